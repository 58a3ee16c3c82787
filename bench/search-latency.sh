#!/usr/bin/env bash
# Search query latency with both indexes warm, on synthetic workspaces of 10,000 and 100,000
# commands: the hybrid ranking (all similarities, the BM25 list, their fusion) against the
# semantic-only ranking measured in the same run (crates/commandtree-engine/examples/search_bench.rs).
# Targets: hybrid <= 20 ms on 10k and <= 50 ms on 100k.
# Usage: bench/search-latency.sh [rounds = 20]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p commandtree-engine --example search_bench
"${CARGO_TARGET_DIR:-target}/release/examples/search_bench" "${1:-20}"
