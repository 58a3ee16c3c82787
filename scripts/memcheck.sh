#!/usr/bin/env bash
# Runs the embedding crate's unit tests (kernels, the shared-buffer views, search, and the
# whole model against the reference vectors) under Valgrind memcheck, with the portable kernels:
# Valgrind does not emulate AVX-512, and Miri cannot be installed here. The test binary is the
# dev profile's, so the debug checks of `view::SharedBuf` (no overlapping views within a step)
# run too. Installs valgrind from Debian when it is missing. Exits non-zero on any memcheck
# error or failed test.
# Usage: bash scripts/memcheck.sh [test name filter...]
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq valgrind >/dev/null
fi
bash scripts/fetch-test-model.sh >/dev/null

BIN=$(cargo test -p commandtree-embed --lib --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "commandtree_embed":
        print(m["executable"])')
[ -n "$BIN" ] || { echo "memcheck: no test binary" >&2; exit 1; }

# Two threads, as on the benchmark machine: the shared forward pass hands views to threads.
COMMANDTREE_EMBED_ISA=portable COMMANDTREE_EMBED_THREADS=2 \
  valgrind --tool=memcheck --error-exitcode=99 --errors-for-leak-kinds=definite \
  --leak-check=full --show-leak-kinds=definite --track-origins=yes --quiet \
  "$BIN" --test-threads=1 "$@"
echo "memcheck: no errors"
