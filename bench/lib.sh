# Shared by the benchmark scripts (sourced from the repository root, not run).

# Generated trees and results; not tracked.
WORK=bench/work

# make_tree DIR COPIES [ARGS...]: the tree of bench/make_tree.py at DIR, generated on the first
# run only (`.done` marks a complete one), so repeated runs measure the same files.
make_tree() {
  if [ ! -f "$1/.done" ]; then
    rm -rf "$1"; mkdir -p "$1"
    python3 bench/make_tree.py "$@" >/dev/null
    touch "$1/.done"
  fi
}

# listed_count ROOT: how many commands `$CT list --json` lists under ROOT.
listed_count() {
  "$CT" -q --root "$1" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'
}
