#!/usr/bin/env bash
# Build the release bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf dist
mkdir -p dist
npm ci
npm run build
tar czf dist/bundle.tgz -C build .
echo "bundle written to dist/bundle.tgz"
