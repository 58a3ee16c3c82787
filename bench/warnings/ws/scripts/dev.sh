#!/usr/bin/env bash
# Start the API and the frontend together; Ctrl-C stops both.
set -euo pipefail
trap 'kill 0' EXIT
go run ./cmd/server --config config/dev.yaml &
npx vite --port 5173
