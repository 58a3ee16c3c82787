"""Scores the runs of bench/warnings.sh: NAME:FILE.jsonl arguments, one JSON object per command."""
import json
import sys


def score(rows, key):
    tp = sum(1 for r in rows if r.get(key) and r["expected"] == "risky")
    fp = sum(1 for r in rows if r.get(key) and r["expected"] == "safe")
    fn = sum(1 for r in rows if not r.get(key) and r["expected"] == "risky")
    tn = sum(1 for r in rows if not r.get(key) and r["expected"] == "safe")
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    fpr = fp / (fp + tn) if fp + tn else 0.0
    return precision, recall, fpr, tp, fp, fn, tn


def main():
    table = []
    misses = []
    for arg in sys.argv[1:]:
        name, path = arg.split(":", 1)
        rows = [json.loads(l) for l in open(path) if l.strip()]
        kinds = [("static analyser", "static")]
        if any("model" in r for r in rows):
            kinds = [(f"model alone ({name})", "model"), (f"static + {name}", "combined")]
        for title, key in kinds:
            if title == "static analyser" and any(t[0] == title for t in table):
                continue
            table.append((title, score(rows, key)))
            for r in rows:
                got = bool(r.get(key))
                if got != (r["expected"] == "risky"):
                    misses.append(f"  {title}: {'missed' if not got else 'false alarm'}: {r['type']} {r['label']}"
                                  + (f" [{r.get('modelRisk')}: {r.get('modelWarning')}]" if key == "model" else ""))
        n_safe = sum(1 for r in rows if r["expected"] == "safe")
        print(f"{name}: {len(rows)} commands ({len(rows) - n_safe} risky, {n_safe} harmless)")
        errors = [r for r in rows if r.get("error")]
        if errors:
            print(f"{name}: {len(errors)} failed answers, e.g. {errors[0]['error'][:160]}")
    print()
    print(f"| {'':34} | precision | recall | false-positive rate | TP | FP | FN | TN |")
    print(f"|{'-' * 36}|-----------|--------|---------------------|----|----|----|----|")
    for title, (p, r, f, tp, fp, fn, tn) in table:
        print(f"| {title:34} | {p:9.2f} | {r:6.2f} | {f:19.2f} | {tp:2} | {fp:2} | {fn:2} | {tn:2} |")
    if misses:
        print("\nwrong answers:")
        print("\n".join(misses))


main()
