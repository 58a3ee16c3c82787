#!/usr/bin/env bash
# Discovery benchmark: `ct list --json` against `fd -u -t f` walking the same ~120,000-file tree
# in the same run, plus ct's peak RSS and its time on a 1,000-file repository. Then a
# python-heavy tree (~40,000 files, mostly library modules ct must read to learn they are not
# runnable) against ripgrep walking it and reading the same candidate files for `__main__`.
# Targets (PRODUCT.md §5, issue 12): ct/fd <= 1.1, ct/rg <= 1.2 on the python tree, peak RSS
# < 40 MB, < 20 ms on 1,000 files.
# Each ratio is the median of paired runs (reference, then ct; bench/pair.py), wall time, with
# the CPU-time ratio beside it.
# Usage: bench/discovery.sh [copies=120] [runs=5] [python copies=40]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
COPIES=${1:-120}
RUNS=${2:-5}
PYCOPIES=${3:-40}

# apt_install PACKAGE: installs it (through sudo unless root).
apt_install() {
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get install -y -qq "$1" >/dev/null
}
FD=$(command -v fd || command -v fdfind || true)
[ -n "$FD" ] || { apt_install fd-find; FD=$(command -v fdfind); }
RG=$(command -v rg || true)
[ -n "$RG" ] || { apt_install ripgrep; RG=$(command -v rg); }
cargo build --release -q -p commandtree
CT=target/release/ct

TREE=$WORK/tree$COPIES
make_tree "$TREE" "$COPIES"
SMALL=$WORK/small
make_tree "$SMALL" 1

files=$("$FD" -u -t f . "$TREE" | wc -l)
listed=$(listed_count "$TREE")
read -r fd_s ct_s ratio ct_cpu ct_rss < <(python3 bench/pair.py "$RUNS" "$FD" -u -t f . "$TREE" \
  -- "$CT" -q --root "$TREE" list --json)
read -r small_s small_rss < <(python3 bench/measure.py $((RUNS * 4)) "$CT" -q --root "$SMALL" list --json)
small_files=$("$FD" -u -t f . "$SMALL" | wc -l)

PYTREE=$WORK/pytree$PYCOPIES
make_tree "$PYTREE" "$PYCOPIES" --python
py_files=$("$FD" -u -t f . "$PYTREE" | wc -l)
py_listed=$(listed_count "$PYTREE")
RG_ARGS=(-uu -l -g '*.py' -g '*.sh' -g '*.md' -g package.json -g Makefile -e __main__ "$PYTREE")
read -r rg_s py_s py_ratio py_cpu py_rss < <(python3 bench/pair.py "$RUNS" "$RG" "${RG_ARGS[@]}" \
  -- "$CT" -q --root "$PYTREE" list --json)

python3 - "$files" "$listed" "$fd_s" "$ct_s" "$ct_rss" "$small_s" "$small_files" "$(nproc)" \
  "$py_files" "$py_listed" "$rg_s" "$py_s" "$py_rss" "$ratio" "$ct_cpu" "$py_ratio" "$py_cpu" <<'PY'
import sys
(files, listed, fd, ct, rss, small, small_files, cores, py_files, py_listed, rg, py, py_rss,
 ratio, ct_cpu, py_ratio, py_cpu) = sys.argv[1:]
fd, ct, small, rg, py = float(fd), float(ct), float(small), float(rg), float(py)
ratio, ct_cpu, py_ratio, py_cpu = float(ratio), float(ct_cpu), float(py_ratio), float(py_cpu)
rss = max(int(rss), int(py_rss))
print(f"tree:              {int(files):,} files, {int(listed):,} commands listed, {cores} cores")
print(f"fd -u -t f:        {fd*1000:8.1f} ms (median)")
print(f"ct list --json:    {ct*1000:8.1f} ms (median)")
print(f"ratio ct/fd:       {ratio:8.2f}   (target <= 1.1)  {'OK' if ratio <= 1.1 else 'MISSED'}   cpu time {ct_cpu:.2f}")
print(f"python tree:       {int(py_files):,} files, {int(py_listed):,} commands listed")
print(f"rg -uu -l __main__:{rg*1000:8.1f} ms (median)")
print(f"ct list --json:    {py*1000:8.1f} ms (median)")
print(f"ratio ct/rg:       {py_ratio:8.2f}   (target <= 1.2)  {'OK' if py_ratio <= 1.2 else 'MISSED'}   cpu time {py_cpu:.2f}")
print(f"ct peak RSS:       {int(rss)/1024:8.1f} MB   (target < 40 MB) {'OK' if int(rss) < 40*1024 else 'MISSED'}")
print(f"{int(small_files):,}-file repo:   {small*1000:8.1f} ms   (target < 20 ms) {'OK' if small < 0.020 else 'MISSED'}")
PY
