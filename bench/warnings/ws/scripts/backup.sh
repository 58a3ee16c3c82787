#!/bin/sh
# Archive the local data folder with a date stamp.
set -e
stamp=$(date +%Y%m%d-%H%M%S)
mkdir -p backups
tar czf "backups/data-$stamp.tgz" data/
ls -lh backups | tail -5
