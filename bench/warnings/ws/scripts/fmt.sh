#!/bin/sh
# Format everything in place.
npx prettier --write .
gofmt -w ./cmd ./internal
