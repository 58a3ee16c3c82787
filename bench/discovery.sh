#!/usr/bin/env bash
# Discovery benchmark: `ct list --json` against `fd -u -t f` walking the same ~120,000-file tree
# in the same run, plus ct's peak RSS and its time on a 1,000-file repository.
# Targets (PRODUCT.md §5): ratio <= 1.5, peak RSS < 40 MB, < 20 ms on 1,000 files.
# Usage: bench/discovery.sh [copies=120] [runs=5]
set -euo pipefail
cd "$(dirname "$0")/.."
COPIES=${1:-120}
RUNS=${2:-5}
WORK=bench/work

FD=$(command -v fd || command -v fdfind || true)
if [ -z "$FD" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get install -y -qq fd-find >/dev/null
  FD=$(command -v fdfind)
fi
cargo build --release -q -p commandtree
CT=target/release/ct

TREE=$WORK/tree$COPIES
if [ ! -f "$TREE/.done" ]; then
  rm -rf "$TREE"; mkdir -p "$TREE"
  python3 bench/make_tree.py "$TREE" "$COPIES" >/dev/null
  touch "$TREE/.done"
fi
SMALL=$WORK/small
if [ ! -f "$SMALL/.done" ]; then
  rm -rf "$SMALL"; mkdir -p "$SMALL"
  python3 bench/make_tree.py "$SMALL" 1 >/dev/null
  touch "$SMALL/.done"
fi

files=$("$FD" -u -t f . "$TREE" | wc -l)
listed=$("$CT" -q --root "$TREE" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
read -r fd_s fd_rss < <(python3 bench/measure.py "$RUNS" "$FD" -u -t f . "$TREE")
read -r ct_s ct_rss < <(python3 bench/measure.py "$RUNS" "$CT" -q --root "$TREE" list --json)
read -r small_s small_rss < <(python3 bench/measure.py $((RUNS * 4)) "$CT" -q --root "$SMALL" list --json)
small_files=$("$FD" -u -t f . "$SMALL" | wc -l)

python3 - "$files" "$listed" "$fd_s" "$ct_s" "$ct_rss" "$small_s" "$small_files" "$(nproc)" <<'PY'
import sys
files, listed, fd, ct, rss, small, small_files, cores = sys.argv[1:]
fd, ct, small = float(fd), float(ct), float(small)
ratio = ct / fd
print(f"tree:              {int(files):,} files, {int(listed):,} commands listed, {cores} cores")
print(f"fd -u -t f:        {fd*1000:8.1f} ms (median)")
print(f"ct list --json:    {ct*1000:8.1f} ms (median)")
print(f"ratio ct/fd:       {ratio:8.2f}   (target <= 1.5)  {'OK' if ratio <= 1.5 else 'MISSED'}")
print(f"ct peak RSS:       {int(rss)/1024:8.1f} MB   (target < 40 MB) {'OK' if int(rss) < 40*1024 else 'MISSED'}")
print(f"{int(small_files):,}-file repo:   {small*1000:8.1f} ms   (target < 20 ms) {'OK' if small < 0.020 else 'MISSED'}")
PY
