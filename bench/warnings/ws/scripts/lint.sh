#!/bin/sh
set -e
# Lint shell scripts and the frontend.
shellcheck scripts/*.sh
npx eslint . --max-warnings 0
