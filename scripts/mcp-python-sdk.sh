#!/usr/bin/env bash
# Makes the virtual environment with the official Python MCP SDK that the `ct mcp` interop test
# drives (crates/ct/tests/it/mcp_interop.rs), outside the repository, in the user cache. Prints
# nothing when it is already there.
# Usage: bash scripts/mcp-python-sdk.sh [VENV]
set -euo pipefail

VENV=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/commandtree/mcp-venv}
VERSION=2.3.0

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$VERSION'" 2>/dev/null; then
  exit 0
fi
PY=$(command -v python3 || true)
if [ -z "$PY" ] || ! "$PY" -m venv --help >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3-venv python3-pip >/dev/null
  PY=$(command -v python3)
fi
rm -rf "$VENV"
"$PY" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==$VERSION"
echo "Python MCP SDK $VERSION installed in $VENV"
