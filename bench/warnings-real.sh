#!/usr/bin/env bash
# Precision and recall of ct's security warnings on real repositories, against hand labels
# (bench/warnings/real/: repos.tsv and one NAME.tsv of labels per repository; README.md there
# says how they were made).
#
#   bash bench/warnings-real.sh [REPOS_DIR]
#
# REPOS_DIR (default $COMMANDTREE_REAL_REPOS, else /work/repos) holds one checkout per
# repository of repos.tsv, named like its `name` column (casey+just, ...), at the commit given
# there; missing ones are skipped and named. CT=path/to/ct picks the binary; without it
# target/release/ct is built. SHOW_FALSE=1 lists every false warning. WITH_SYNTHETIC=1 adds the
# static line of the synthetic set (bench/warnings.sh with COMMANDTREE_WARNINGS_STATIC_ONLY=1,
# which builds its own example with cargo).
#
# The held-out repository (role held-out) is reported apart: do not tune the analyser on it.
set -euo pipefail
cd "$(dirname "$0")/.."

repos="${1:-${COMMANDTREE_REAL_REPOS:-/work/repos}}"
real=bench/warnings/real

if [ -z "${CT:-}" ]; then
  cargo build -q --release -p commandtree --bin ct
  CT="${CARGO_TARGET_DIR:-target}/release/ct"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Discovery must not depend on the caller's environment.
unset COMMANDTREE_EXCLUDE

while IFS=$'\t' read -r name _source _commit _role; do
  case "$name" in '' | '#'* | name) continue ;; esac
  dir="$repos/$name"
  [ -d "$dir" ] || continue
  if ! "$CT" --root "$dir" list --json --all >"$work/$name.json" 2>"$work/$name.err"; then
    echo "ct failed on $dir:" >&2
    cat "$work/$name.err" >&2
    rm -f "$work/$name.json"
  fi
done <"$real/repos.tsv"

echo "ct: $CT"
echo "repositories: $repos"
echo
python3 "$real/score.py" "$repos" "$work"

if [ "${WITH_SYNTHETIC:-0}" = 1 ]; then
  echo
  echo "synthetic set (bench/warnings/ws), static analyser:"
  COMMANDTREE_WARNINGS_STATIC_ONLY=1 bash bench/warnings.sh | grep -E '^\| (static analyser| +\|)|precision' || true
fi
