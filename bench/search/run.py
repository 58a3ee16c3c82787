"""Runs the labelled queries through `ct search` in three modes and scores them (see
bench/search.sh)."""

import csv
import json
import os
import shutil
import subprocess
import sys
import time

MODES = [m for m in os.environ.get("MODES", "lexical,semantic,hybrid").split(",") if m]


def read_tsv(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f, delimiter="\t") if r and not r[0].startswith("#")]
    header, body = rows[0], rows[1:]
    return [dict(zip(header, r)) for r in body]


def search(ct, root, mode, query):
    start = time.monotonic()
    out = subprocess.run(
        [ct, "--root", root, "-q", "search", "--json", "--mode", mode, "-n", "10", query],
        capture_output=True,
        text=True,
    )
    took = time.monotonic() - start
    if out.returncode != 0:
        sys.exit(f"ct search failed on {root} ({mode}, {query!r}): {out.stderr}")
    prefix = root.rstrip("/") + "/"
    return [h["id"].replace(prefix, "", 1) for h in json.loads(out.stdout)], took


def main():
    ct, repos, work, set_dir = sys.argv[1:5]
    repo_rows = {r["name"]: r for r in read_tsv(os.path.join(set_dir, "repos.tsv"))}
    queries = read_tsv(os.path.join(set_dir, "queries.tsv"))
    by_repo = {}
    for q in queries:
        by_repo.setdefault(q["repo"], []).append(q)
    results = []  # (repo, role, mode, rank or None, query, first)
    times = {m: [] for m in MODES}
    missing = []
    # ROLES=tune,seen measures only those: a held-out repository's one measurement is taken
    # when the ranking is final, not along the way.
    roles = {r for r in os.environ.get("ROLES", "").split(",") if r}
    for name, qs in by_repo.items():
        if roles and repo_rows[name]["role"] not in roles:
            continue
        src = os.path.join(repos, name)
        if not os.path.isdir(src):
            missing.append(name)
            continue
        root = os.path.join(work, name)
        shutil.copytree(src, root, symlinks=True, ignore=shutil.ignore_patterns(".commandtree"))
        root = os.path.realpath(root)
        # The first search indexes the workspace: not a query's time.
        search(ct, root, "hybrid", "build")
        for q in qs:
            ok = {a.strip() for a in q["acceptable"].split("|") if a.strip()}
            for mode in MODES:
                ids, took = search(ct, root, mode, q["query"])
                times[mode].append(took)
                rank = next((i + 1 for i, x in enumerate(ids) if x in ok), None)
                results.append((name, repo_rows[name]["role"], mode, rank, q["query"], ids[:1]))
        shutil.rmtree(root)

    def score(rows):
        n = len(rows)
        if n == 0:
            return None
        h1 = sum(1 for r in rows if r[3] == 1) / n
        h5 = sum(1 for r in rows if r[3] and r[3] <= 5) / n
        mrr = sum(1 / r[3] for r in rows if r[3]) / n
        return n, h1, h5, mrr

    print(f"ct: {ct}")
    print(f"repositories: {repos}")
    if missing:
        print(f"missing (skipped): {', '.join(missing)}")
    print()
    # The columns follow MODES, in the order given.
    heads = [f"{m} hit@1 / hit@5 / MRR" if i == 0 else m for i, m in enumerate(MODES)]
    print(f"| repository | role | queries | {' | '.join(heads)} |")
    print("|---|---|---|" + "---|" * len(MODES))
    names = sorted(by_repo, key=lambda n: (repo_rows[n]["role"] != "tune", n))
    groups = [(n, lambda r, n=n: r[0] == n) for n in names if n not in missing]
    # Each repository that was held out (never tuned on, or measured once before its misses
    # were looked at) is its own figure: no total over them.
    groups += [("**tuning, all**", lambda r: r[1] == "tune")]
    for label, pick in groups:
        cells = []
        count = 0
        role = ""
        for mode in MODES:
            rows = [r for r in results if r[2] == mode and pick(r)]
            s = score(rows)
            if s is None:
                cells.append("-")
                continue
            count = s[0]
            role = rows[0][1]
            cells.append(f"{s[1]:.2f} / {s[2]:.2f} / {s[3]:.2f}")
        if count:
            print(f"| {label} | {role} | {count} | {' | '.join(cells)} |")
    print()
    for mode in MODES:
        t = times[mode]
        if t:
            print(f"mean `ct search` wall time, {mode}: {1000 * sum(t) / len(t):.0f} ms over {len(t)} queries")
    if os.environ.get("SHOW_MISSES") == "1":
        print()
        # Never a held-out repository's: looking at them would make it tuning.
        print("hybrid misses outside the held-out repositories (first result not acceptable):")
        for r in results:
            if r[2] == "hybrid" and r[3] != 1 and r[1] != "held-out":
                print(f"  {r[0]}: {r[4]!r} -> rank {r[3]}, first {r[5]}")


main()
