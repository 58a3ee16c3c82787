#!/usr/bin/env bash
# Problem parsing throughput on 200,000 lines (about 15 MB) of generated, realistic mixed build
# output (cargo, make with GCC, tsc, ESLint, go test, pytest and Python tracebacks, npm,
# timestamps, progress lines), against a plain memchr line count over the same bytes in the
# same run (crates/commandtree-engine/examples/problems_bench.rs). Target: >= 100 MB/s with the
# built-in formats.
# Usage: bench/problems.sh [lines = 200000] [rounds = 5]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p commandtree-engine --example problems_bench
"${CARGO_TARGET_DIR:-target}/release/examples/problems_bench" "${1:-200000}" "${2:-5}"
