#!/usr/bin/env bash
# AI definitions benchmark: a tree of bench/make_tree.py projects plus N definitions of each
# format (our commands/agents/skills and agent instructions, Claude Code commands/agents/skills,
# Copilot prompts) and 6 general instruction files. Times `ct prompt`, `ct agent show`, `ct skill load`, `ct export claude-sdk` and
# `ct export copilot` against a full `ct list --json` of the same tree, same run: each of them
# walks the tree once (for the AI files only), so the ratio should stay at or below 1.
# Usage: bench/agents.sh [definitions-per-format=200] [copies=10] [runs=5]
# CT=path/to/ct uses another build (default: a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}
COPIES=${2:-10}
RUNS=${3:-5}
WORK=bench/work

if [ -z "${CT:-}" ]; then
  cargo build --release -q -p commandtree
  CT=target/release/ct
fi

TREE=$WORK/agents-$N-$COPIES
if [ ! -f "$TREE/.done" ]; then
  rm -rf "$TREE"; mkdir -p "$TREE"
  python3 bench/make_tree.py "$TREE" "$COPIES" >/dev/null
  python3 - "$TREE" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
def w(rel, text):
    p = os.path.join(root, rel); os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(text)
body = "".join(f"- Step {k}: check the thing number {k} and report it.\n" for k in range(40))
for i in range(n):
    w(f".github/commands/c{i}.command.md", f"---\nname: c{i}\ndescription: Command {i}\nargumentHint: \"[x]\"\n---\n{body}$ARGUMENTS\n")
    w(f".claude/commands/team/d{i}.md", f"---\nargument-hint: [x]\ndescription: Claude command {i}\n---\n{body}$1\n")
    w(f".github/prompts/p{i}.prompt.md", f"---\ndescription: Prompt {i}\nmode: agent\n---\n{body}\n")
    w(f".github/agents/a{i}.agent.md", f"---\ndescription: Agent {i}\ntools: ['Read', 'Grep']\nmodel: sonnet\nuseSkills: ['s{i}']\n---\n{body}")
    w(f".claude/agents/b{i}.md", f"---\nname: b{i}\ndescription: Claude agent {i}\ntools: Read, Grep\n---\n{body}")
    w(f".github/skills/s{i}.skill.md", f"---\nname: Skill {i}\ndescription: Skill {i}\nkeywords: [a, b]\n---\n{body}")
    w(f".claude/skills/k{i}/SKILL.md", f"---\nname: k{i}\ndescription: Agent Skills skill {i}\n---\n{body}")
    w(f".github/agents/a{i}/x.instructions.md", f"Agent {i} only.\n")
# Instructions reach every agent's prompt, so a repository has a handful, not one per agent.
for i in range(5):
    w(f".github/instructions/i{i}.instructions.md", f"---\napplyTo: \"src/{i}/**\"\n---\n{body}")
w("AGENTS.md", body)
PY
  touch "$TREE/.done"
fi

m() { python3 bench/measure.py "$RUNS" "$CT" -q --root "$TREE" "$@"; }
read -r ref_s ref_rss < <(m list --json)
printf '%-34s %9s %8s %10s\n' "command" "median s" "ratio" "peak RSS"
printf '%-34s %9.3f %8s %7d KiB\n' "list --json (reference)" "$ref_s" "1.00" "$ref_rss"
row() {
  local name=$1; shift
  read -r s rss < <(m "$@")
  printf '%-34s %9.3f %8.2f %7d KiB\n' "$name" "$s" "$(python3 -c "print($s/$ref_s)")" "$rss"
}
row "list --json (AI types only)" list --json -t prompt -t agent -t skill -t instructions
row "prompt c1 x" prompt c1 x
row "agent show a1" agent show a1
row "skill load s1" skill load s1
row "export claude-sdk" export claude-sdk
row "export copilot --json (plan)" export copilot --json
