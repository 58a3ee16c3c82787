#!/usr/bin/env bash
# Search quality on real repositories, against hand labels (bench/search/: repos.tsv and
# queries.tsv; README.md there says how they were made): hit@1, hit@5 and MRR (over the first
# ten) for lexical only, semantic only and hybrid (what every front end uses), per repository,
# for the tuning repositories together and each seen or held-out one apart, and the mean wall time
# of one `ct search` (process start, model load and query included).
#
#   bash bench/search.sh [REPOS_DIR]
#
# REPOS_DIR (default $COMMANDTREE_REAL_REPOS, else /work/repos) holds one checkout per
# repository of repos.tsv, named like its `name` column, at the commit given there; missing ones
# are skipped and named. Each is copied to a temporary folder first (search writes its index
# into the workspace's .commandtree/). CT=path/to/ct picks the binary; without it
# target/release/ct is built. The model comes from scripts/fetch-test-model.sh (offline after).
# SHOW_MISSES=1 lists every query whose first hybrid result is not acceptable (never a held-out
# repository's). ROLES=tune,seen measures only the repositories of those roles; MODES=hybrid only
# that mode (default: lexical, semantic and hybrid).
set -euo pipefail
cd "$(dirname "$0")/.."

repos="${1:-${COMMANDTREE_REAL_REPOS:-/work/repos}}"
set_dir=bench/search

if [ -z "${CT:-}" ]; then
  cargo build -q --release -p commandtree --bin ct
  CT="${CARGO_TARGET_DIR:-target}/release/ct"
fi
MODEL=${COMMANDTREE_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/commandtree/models/all-MiniLM-L6-v2}
bash scripts/fetch-test-model.sh "$MODEL" >/dev/null
export COMMANDTREE_MODEL_DIR="$MODEL" COMMANDTREE_OFFLINE=1
unset COMMANDTREE_EXCLUDE

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 "$set_dir/run.py" "$CT" "$repos" "$work" "$set_dir"
