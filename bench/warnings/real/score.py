"""Scores ct's security warnings on real repositories against the labels beside this file.

    python3 score.py REPOS_DIR LISTINGS_DIR

LISTINGS_DIR holds NAME.json, the output of `ct --root REPOS_DIR/NAME list --json --all`, for
each repository of repos.tsv that was found. Labels are joined on (type, file relative to the
repository root, label). A shown warning is true when its label is caution or danger.
SHOW_FALSE=1 also lists every false warning with its text (what an analyser fix works from).
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


def pct(a, b):
    return f"{a / b:.2f}" if b else "  - "


class Tally:
    def __init__(self):
        self.commands = self.shown = self.true = self.false = self.unlabelled = 0
        self.risky = self.recalled = 0
        self.risky_own = self.recalled_own = 0
        self.verdicts = {"safe": 0, "caution": 0, "danger": 0}

    def add(self, o):
        for k, v in vars(o).items():
            if k == "verdicts":
                for vk, vv in v.items():
                    self.verdicts[vk] += vv
            else:
                setattr(self, k, getattr(self, k) + v)

    def row(self, name):
        v = self.verdicts
        return (f"{name:30} {self.commands:5} | {v['safe']:4} {v['caution']:4} {v['danger']:4} | {self.shown:5} {self.true:4} "
                f"{self.false:5} {pct(self.true, self.true + self.false):>5} | {self.risky:5} {self.recalled:6} "
                f"{pct(self.recalled, self.risky):>6} {pct(self.recalled_own, self.risky_own):>5} "
                f"{pct(self.recalled - self.recalled_own, self.risky - self.risky_own):>5}"
                + (f"  ({self.unlabelled} unlabelled)" if self.unlabelled else ""))


HEADER = (f"{'':30} {'':5} | {'labels':^14} | {'shown warnings':^23} | labelled risky commands\n"
          f"{'repository':30} {'cmds':>5} | safe caut dang | shown true false  prec | risky warned recall   own   dep")


def main():
    repos_dir, listings = sys.argv[1], sys.argv[2]
    show_false = os.environ.get("SHOW_FALSE") == "1"
    repos = read_tsv(os.path.join(HERE, "repos.tsv"))
    per = {}
    unlabelled, missed, stale, false_list, missing = [], [], [], [], []
    for r in repos:
        name = r["name"]
        listing = os.path.join(listings, name + ".json")
        if not os.path.exists(listing):
            owner_repo = r["source"].split(":", 1)[-1]
            missing.append(f"  {name} ({r['role']}): not at {os.path.join(repos_dir, name)}; put a checkout of "
                           f"{owner_repo} at {r['commit']} there "
                           f"(git clone https://github.com/{owner_repo} {name} && git -C {name} checkout {r['commit']})")
            continue
        # ct may report paths through the resolved (symlink-free) root.
        roots = {os.path.join(repos_dir, name).rstrip("/") + "/", os.path.realpath(os.path.join(repos_dir, name)) + "/"}
        cmds = json.load(open(listing, encoding="utf-8"))
        labels = {(l["type"], l["file"], l["label"]): l for l in read_tsv(os.path.join(HERE, name + ".tsv"))}
        t = Tally()
        t.commands = len(cmds)
        for l in labels.values():
            t.verdicts[l["verdict"]] += 1
        listed = set()
        for c in cmds:
            rel = next((c["filePath"][len(r):] for r in roots if c["filePath"].startswith(r)), c["filePath"])
            key = (c["type"], rel, c["label"])
            listed.add(key)
            warning = c.get("securityWarning") or ""
            label = labels.get(key)
            risky = label is not None and label["verdict"] != "safe"
            if warning:
                t.shown += 1
                if label is None:
                    t.unlabelled += 1
                    unlabelled.append(f"  {name}: {c['type']} {rel} [{c['label']}]: {warning[:160]}")
                elif risky:
                    t.true += 1
                else:
                    t.false += 1
                    false_list.append(f"  {name}: {c['type']} {rel} [{c['label']}]: {warning[:200]}")
            if risky:
                own = not label["via"]
                t.risky += 1
                t.risky_own += own
                if warning:
                    t.recalled += 1
                    t.recalled_own += own
                else:
                    via = f" via {label['via']}" if label["via"] else ""
                    missed.append(f"  {name}: {label['verdict']}{via}: {c['type']} {rel} [{c['label']}]: {label['reason'][:150]}")
        for key, l in labels.items():
            if key not in listed:
                stale.append(f"  {name}: {l['type']} {l['file']} [{l['label']}] ({l['verdict']}) is labelled but ct no longer lists it")
        per[name] = (r["role"], t)

    print(HEADER)
    tune, held = Tally(), Tally()
    for name, (role, t) in per.items():
        print(t.row(name + (" (held-out)" if role == "held-out" else "")))
        (held if role == "held-out" else tune).add(t)
    print("-" * 114)
    print(tune.row("tuning set total"))
    if any(role == "held-out" for role, _ in per.values()):
        print(held.row("held-out total"))
    print("\nprec = true / (true + false) shown warnings (true: labelled caution or danger); recall = labelled risky"
          "\ncommands that got a warning; own / dep = recall where the risky step is in the command's own text /"
          "\nruns through a dependency (make prerequisite, task dep, a script it calls).")
    if missing:
        print("\nmissing repositories (not scored):")
        print("\n".join(missing))
    if unlabelled:
        print(f"\nwarned commands without a label ({len(unlabelled)}; label them in bench/warnings/real/NAME.tsv):")
        print("\n".join(unlabelled))
    if stale:
        print(f"\nlabels whose command is not listed ({len(stale)}):")
        print("\n".join(stale))
    print(f"\nlabelled risky commands without a warning ({len(missed)}):")
    print("\n".join(missed) if missed else "  none")
    if show_false:
        print(f"\nfalse warnings ({len(false_list)}):")
        print("\n".join(false_list) if false_list else "  none")
    else:
        print(f"\n({len(false_list)} false warnings; SHOW_FALSE=1 lists them)")


main()
