#!/usr/bin/env bash
# The extension's checks: clean install from the lock file, lint, typecheck, unit tests.
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund
npx eslint src test
npx tsc -p . --noEmit
npm test
