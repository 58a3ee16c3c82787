#!/usr/bin/env bash
# Watch benchmark: `ct watch --json` (release) on the ~120,000-file tree of bench/discovery.sh.
# Four changes (modify a package.json, add a script, delete a Makefile, rename a folder); for
# each, the re-discovery time ct reports (`elapsedMs`) and the wall time from the write to the
# event line minus the debounce. Against a full `ct list --json` of the same tree, same run.
# Targets (PRODUCT.md §5): one-file change < 5 ms, >= 50x faster than `ct list`, RSS < 60 MB.
# Usage: bench/watch.sh [copies=120] [runs=3]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
COPIES=${1:-120}
RUNS=${2:-3}
DEBOUNCE_MS=100

cargo build --release -q -p commandtree
CT=target/release/ct

TREE=$WORK/tree$COPIES
make_tree "$TREE" "$COPIES"
# Undo what an earlier run changed, so every run starts from the same tree.
python3 - "$TREE" <<'PY'
import json, os, shutil, sys
t = sys.argv[1]
if os.path.isdir(f"{t}/proj0003-moved"):
    shutil.rmtree(f"{t}/proj0003", ignore_errors=True)
    os.rename(f"{t}/proj0003-moved", f"{t}/proj0003")
p = f"{t}/proj0001/package.json"
d = json.load(open(p)); d["scripts"].pop("bench-extra", None)
json.dump(d, open(p, "w"), indent=2)
for f in [f"{t}/proj0002/scripts/bench-new.sh"]:
    if os.path.exists(f): os.remove(f)
mk = f"{t}/proj0002/Makefile"
if not os.path.exists(mk):
    open(mk, "w").write("CC := gcc\n.PHONY: all\n" + "".join(f"target{i}: dep ## Target {i}\n\techo {i}\n" for i in range(30)))
PY

read -r list_s list_rss < <(python3 bench/measure.py "$RUNS" "$CT" -q --root "$TREE" list --json)

python3 - "$CT" "$TREE" "$DEBOUNCE_MS" "$list_s" "$(nproc)" <<'PY'
import json, os, queue, subprocess, sys, threading, time
ct, tree, debounce_ms, list_s, cores = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
p = subprocess.Popen([ct, "-q", "--root", tree, "watch", "--json", "--debounce-ms", str(debounce_ms)],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
lines = queue.Queue()
def pump():
    for line in p.stdout:
        lines.put((time.perf_counter(), json.loads(line)))
threading.Thread(target=pump, daemon=True).start()

def wait(pred, what, deadline=60):
    end = time.perf_counter() + deadline
    while True:
        t, ev = lines.get(timeout=max(0.1, end - time.perf_counter()))
        if pred(ev):
            return t, ev
        if time.perf_counter() > end:
            sys.exit(f"no event for {what}")

_, ready = wait(lambda e: e["event"] == "ready", "ready", 300)
time.sleep(0.5)  # let the startup settle before measuring (not an assertion)

def change(name, action, pred):
    t0 = time.perf_counter()
    action()
    t1, ev = wait(lambda e: e["event"] == "changed" and pred(e), name)
    wall = (t1 - t0) * 1000 - debounce_ms
    n = len(ev["added"]) + len(ev["updated"]) + len(ev["removed"])
    return name, ev["elapsedMs"], wall, n

def modify():
    f = f"{tree}/proj0001/package.json"
    d = json.load(open(f)); d["scripts"]["bench-extra"] = "node extra.js"
    json.dump(d, open(f, "w"), indent=2)
def add():
    f = f"{tree}/proj0002/scripts/bench-new.sh"
    open(f, "w").write("#!/usr/bin/env bash\n# A new script\necho new\n"); os.chmod(f, 0o755)
def delete():
    os.remove(f"{tree}/proj0002/Makefile")
def rename():
    os.rename(f"{tree}/proj0003", f"{tree}/proj0003-moved")

results = [
    change("modify package.json", modify, lambda e: any(c["label"] == "bench-extra" for c in e["added"])),
    change("add a script", add, lambda e: any(c["label"] == "bench-new.sh" for c in e["added"])),
    change("delete a Makefile", delete, lambda e: any("proj0002/Makefile" in r for r in e["removed"])),
    change("rename a folder", rename, lambda e: any("proj0003-moved" in c["filePath"] for c in e["added"])),
]
status = open(f"/proc/{p.pid}/status").read()
rss = int(next(l.split()[1] for l in status.splitlines() if l.startswith("VmRSS")))
hwm = int(next(l.split()[1] for l in status.splitlines() if l.startswith("VmHWM")))
p.terminate(); code = p.wait(timeout=30)

one_file = [r[1] for r in results[:3]]
worst = max(one_file)
ratio = list_s * 1000 / worst
print(f"tree:                 {ready['commands']:,} commands, {cores} cores; debounce {debounce_ms} ms")
print(f"ct watch ready:       {ready['elapsedMs']:8.1f} ms (first discovery + database)")
print(f"ct list --json:       {list_s*1000:8.1f} ms (median, full discovery)")
print(f"{'change':22}{'elapsedMs':>10}{'wall - debounce':>18}{'commands':>10}")
for name, el, wall, n in results:
    print(f"{name:22}{el:10.3f}{wall:15.1f} ms{n:10}")
print(f"one-file change:      {worst:8.3f} ms worst elapsedMs (target < 5 ms)  {'OK' if worst < 5 else 'MISSED'}")
print(f"ratio list/change:    {ratio:8.0f}x  (target >= 50x)  {'OK' if ratio >= 50 else 'MISSED'}")
print(f"ct watch RSS:         {rss/1024:8.1f} MB now, {hwm/1024:.1f} MB peak (target < 60 MB)  {'OK' if hwm < 60*1024 else 'MISSED'}")
print(f"exit on SIGTERM:      {code}")
PY
