#!/usr/bin/env python3
"""Runs a command several times (after one warm-up) with its output discarded; prints the median
wall time in seconds and the largest peak RSS in KiB of any run: `median_s max_rss_kib`."""
import os, statistics, subprocess, sys, time

runs = int(sys.argv[1]); cmd = sys.argv[2:]
times, rss = [], 0
for i in range(runs + 1):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"command failed: {' '.join(cmd)}")
    if i:
        times.append(dt); rss = max(rss, usage.ru_maxrss)
print(f"{statistics.median(times):.6f} {rss}")
