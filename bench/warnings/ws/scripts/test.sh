#!/bin/sh
# Run the test suites the way CI does.
set -e
export NODE_ENV=test
npx vitest run --reporter=dot
go test ./...
