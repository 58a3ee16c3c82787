#!/usr/bin/env bash
# Editor-server benchmark: `commandtree/discoverTasks` over `ct lsp` (release) on the
# ~100,000-file tree of bench/make_tree.py, the first request (it waits for the live index's
# one walk) and repeated ones (answered from the live index), against `ct list --json` of the
# same tree (a fresh walk each time), measured in the same run.
# Target (issue "one engine owns every workflow"): repeated requests >= 50x faster than a
# fresh walk.
# Usage: bench/lsp-list.sh [copies=100] [runs=5] [requests=20]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
COPIES=${1:-100}
RUNS=${2:-5}
REQUESTS=${3:-20}

cargo build --release -q -p commandtree
CT=$PWD/target/release/ct

TREE=$WORK/tree$COPIES
make_tree "$TREE" "$COPIES"
files=$(find "$TREE" -type f | wc -l)

read -r list_s list_rss < <(python3 bench/measure.py "$RUNS" "$CT" -q --root "$TREE" list --json)

python3 - "$CT" "$TREE" "$REQUESTS" "$list_s" "$files" "$(nproc)" <<'PY'
import json, os, statistics, subprocess, sys, time
ct, tree, requests, list_s, files, cores = sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
p = subprocess.Popen([ct, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tree)
next_id = [0]
def send(msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body); p.stdin.flush()
def read_raw():
    length = None
    while True:
        line = p.stdout.readline()
        if not line: sys.exit("ct lsp ended")
        line = line.strip()
        if not line: break
        if line.lower().startswith(b"content-length:"): length = int(line.split(b":")[1])
    return p.stdout.read(length)
def request(method, params, parse=True):
    """The result; with parse=False only the answer's size (the client's JSON parsing of a
    multi-megabyte answer is not the server's time)."""
    next_id[0] += 1; i = next_id[0]
    send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    mark = b'"id":%d,' % i
    while True:
        raw = read_raw()
        head = raw[:64]
        if mark in head and b'"method"' not in head:
            if not parse: return len(raw)
            m = json.loads(raw)
            if "error" in m: sys.exit(f"{method}: {m['error']}")
            return m["result"]
request("initialize", {"processId": None, "rootUri": None, "capabilities": {}, "initializationOptions": {"workspaceRoot": tree}})
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
t = time.perf_counter()
first_size = request("commandtree/discoverTasks", {"workspaceRoot": tree}, parse=False)
first_s = time.perf_counter() - t
first = request("commandtree/discoverTasks", {"workspaceRoot": tree})
times = []
for _ in range(requests):
    t = time.perf_counter()
    size = request("commandtree/discoverTasks", {"workspaceRoot": tree}, parse=False)
    times.append(time.perf_counter() - t)
    assert abs(size - first_size) <= 8, (size, first_size)  # only the id differs
rep_s = statistics.median(times)
request("shutdown", None); send({"jsonrpc": "2.0", "method": "exit"}); p.wait(timeout=30)
n = len(first["tasks"])
print(f"tree: {files} files, {n} commands listed ({first_size/1e6:.1f} MB of JSON), {cores} cores")
print(f"ct list --json (fresh walk):          {list_s*1000:9.1f} ms (median)")
print(f"ct lsp discoverTasks, first request:  {first_s*1000:9.1f} ms (the live index's walk)")
print(f"ct lsp discoverTasks, repeated:       {rep_s*1000:9.1f} ms (median of {requests})")
ratio = list_s / rep_s
print(f"ratio fresh walk / repeated request:  {ratio:9.1f}x  (target >= 50x: {'met' if ratio >= 50 else 'NOT met'})")
PY
