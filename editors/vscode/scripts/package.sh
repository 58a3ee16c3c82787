#!/usr/bin/env bash
# Builds `ct` in release, bundles it as bin/<platform>-<arch>/ct and packages the extension
# into commandtree-<version>.vsix (path printed on the last line).
# CT_BIN=/path/to/ct skips the cargo build and bundles that binary instead.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
# A relative CT_BIN means relative to where this was run, not to the extension folder.
if [[ -n "${CT_BIN:-}" && "$CT_BIN" != /* ]]; then CT_BIN="$PWD/$CT_BIN"; fi
cd "$here"

platform="$(node -p 'process.platform + "-" + process.arch')"
exe=ct
[[ "$platform" == win32-* ]] && exe=ct.exe
if [[ -z "${CT_BIN:-}" ]]; then
  (cd "$repo" && cargo build --release -p commandtree --bin ct)
  CT_BIN="$repo/target/release/$exe"
fi
rm -rf bin
mkdir -p "bin/$platform"
cp "$CT_BIN" "bin/$platform/$exe"
chmod 755 "bin/$platform/$exe"

[[ -d node_modules ]] || npm ci --no-audit --no-fund
npx tsc -p .
version="$(node -p 'require("./package.json").version')"
out="$here/commandtree-$version.vsix"
npx vsce package --allow-missing-repository --target "$platform" -o "$out"
echo "$out"
