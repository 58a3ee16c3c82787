#!/usr/bin/env bash
# Installs @anthropic-ai/claude-agent-sdk and typescript from the npm registry into
# target/claude-agent-sdk/, for the test that type-checks `ct export claude-sdk` against the
# SDK's own `Options` type (crates/ct/tests/it/ai.rs). Kept once installed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/claude-agent-sdk
if [ -f "$dir/node_modules/@anthropic-ai/claude-agent-sdk/package.json" ] && [ -x "$dir/node_modules/.bin/tsc" ]; then
  exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name": "ct-claude-sdk-check", "private": true}' > "$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --silent @anthropic-ai/claude-agent-sdk typescript
