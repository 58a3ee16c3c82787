#!/usr/bin/env python3
"""Runs a reference command and a measured one alternately, several times (after one warm-up
each), output discarded. On a shared machine the load changes between runs; pairing them and
taking the median of the per-pair ratios keeps that out of the ratio. Prints
`ref_median_s cmd_median_s wall_ratio cpu_ratio cmd_max_rss_kib`, where cpu is user + system
time. Usage: pair.py RUNS REF_ARGV... -- CMD_ARGV..."""
import os, statistics, subprocess, sys, time

def once(argv):
    """Runs `argv` once, output discarded: (wall s, user + system s, peak RSS KiB)."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"command failed: {' '.join(argv)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss

def main():
    runs = int(sys.argv[1])
    sep = sys.argv.index("--")
    ref, cmd = sys.argv[2:sep], sys.argv[sep + 1:]
    once(ref); once(cmd)
    rw, cw, wall_r, cpu_r, rss = [], [], [], [], 0
    for _ in range(runs):
        a, b = once(ref), once(cmd)
        rw.append(a[0]); cw.append(b[0])
        wall_r.append(b[0] / a[0]); cpu_r.append(b[1] / a[1])
        rss = max(rss, b[2])
    print(f"{statistics.median(rw):.6f} {statistics.median(cw):.6f} "
          f"{statistics.median(wall_r):.4f} {statistics.median(cpu_r):.4f} {rss}")

if __name__ == "__main__":
    main()
