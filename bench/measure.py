#!/usr/bin/env python3
"""Runs a command several times (after one warm-up) with its output discarded; prints the median
wall time in seconds and the largest peak RSS in KiB of any run: `median_s max_rss_kib`."""
import statistics, sys
from pair import once

runs = int(sys.argv[1]); cmd = sys.argv[2:]
once(cmd)
times, rss = [], 0
for _ in range(runs):
    wall, _, peak = once(cmd)
    times.append(wall); rss = max(rss, peak)
print(f"{statistics.median(times):.6f} {rss}")
