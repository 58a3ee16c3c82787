#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 20) and reports crashes.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); works on stable through RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${1:-20}
export RUSTC_BOOTSTRAP=1
failed=()
for t in $(cargo fuzz list); do
  if cargo fuzz run "$t" -- -max_total_time="$SECONDS_EACH" >"/tmp/fuzz-$t.log" 2>&1; then
    echo "ok      $t  $(grep -o 'Done [0-9]* runs' "/tmp/fuzz-$t.log" | tail -1)"
  else
    echo "CRASH   $t  (see /tmp/fuzz-$t.log and fuzz/artifacts/$t)"
    failed+=("$t")
  fi
done
((${#failed[@]} == 0)) || { echo "crashes in: ${failed[*]}"; exit 1; }
