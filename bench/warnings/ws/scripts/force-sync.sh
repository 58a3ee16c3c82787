#!/bin/sh
# Make the fork match upstream exactly.
git fetch upstream
git checkout main
git reset --hard upstream/main
git push origin main --force
