#!/usr/bin/env bash
# End-to-end test of the extension in a real VS Code: code-server 4.100.3 (VS Code 1.100.3, the
# newest that runs on Node 20) from the npm registry, headless Chromium from Debian, the packaged
# .vsix with its bundled `ct`, a copy of test/fixtures/workspace, and test/e2e/drive.js clicking
# through it with playwright-core (including a check that the @agent chat participant registers;
# no Copilot is needed for that), then a second code-server on a multi-root workspace (the
# fixture and a folder with a Makefile). Writes test/e2e-output.txt and test/e2e-screenshot.png
# (the single-folder window).
#
#   bash editors/vscode/test/e2e.sh
#
# Environment:
#   CT_BIN=path/to/ct        bundle this binary instead of building ct in release (faster)
#   COMMANDTREE_E2E_CACHE    where code-server is installed (default ~/.cache/commandtree-e2e)
#   E2E_PORT                 code-server port on 127.0.0.1 (default 18080; the multi-root one
#                            uses the next port)
#   E2E_KEEP=1               keep the temporary folder (workspace, logs) afterwards
# Needs: Node 20, apt (run as root or with sudo) for chromium, libkrb5-dev (code-server's
# kerberos module), ripgrep, and a C toolchain for node-pty's build.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="${COMMANDTREE_E2E_CACHE:-$HOME/.cache/commandtree-e2e}"
port="${E2E_PORT:-18080}"
cs_version=4.100.3
output="$here/test/e2e-output.txt"
screenshot="$here/test/e2e-screenshot.png"
exec > >(tee "$output") 2>&1
t0=$(date +%s)
step() { echo "== $* ($(($(date +%s) - t0))s)"; }

sudo_if_needed() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

step "system packages"
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v rg >/dev/null || missing+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
command -v make >/dev/null || missing+=(build-essential)
command -v pkg-config >/dev/null || missing+=(pkg-config)
if ((${#missing[@]})); then
  sudo_if_needed apt-get update
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

step "code-server $cs_version"
cs="$cache/cs/node_modules/.bin/code-server"
if ! [[ -x "$cs" ]] || ! "$cs" --version 2>/dev/null | grep -q "^$cs_version "; then
  mkdir -p "$cache/cs"
  (
    cd "$cache/cs"
    [[ -f package.json ]] || echo '{"name":"cs-host","private":true}' >package.json
    # @vscode/ripgrep's postinstall downloads rg from GitHub unless its cache already holds the
    # archive, so the cache is seeded with Debian's rg.
    rgcache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
    mkdir -p "$rgcache"
    archive="$rgcache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
    if [[ ! -f "$archive" ]]; then
      tmp=$(mktemp -d)
      cp "$(command -v rg)" "$tmp/rg"
      tar czf "$archive" -C "$tmp" rg
      rm -rf "$tmp"
    fi
    # unsafe_perm: code-server's postinstall refuses root without it; yes: node-pty's postinstall
    # runs `npx node-gyp`, which an npmrc with yes=false would cancel.
    npm_config_unsafe_perm=true npm_config_yes=true npm install --no-save --no-audit --no-fund \
      "code-server@$cs_version" --foreground-scripts
  )
fi
"$cs" --config "$cache/cs-config.yaml" --version

step "extension: npm ci, package with ct"
(cd "$here" && npm ci --no-audit --no-fund >/dev/null)
vsix="$(bash "$here/scripts/package.sh" | tail -n 1)"
ls -l "$vsix"

work="$(mktemp -d "${TMPDIR:-/tmp}/ct-e2e-XXXXXX")"
cleanup() {
  for pid in ${cs_pid:-} ${cs2_pid:-}; do
    # Its own process group: the pty host and the terminals' shells outlive the main process.
    kill -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ -n "${E2E_KEEP:-}" ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

step "install the .vsix into a fresh extensions folder"
"$cs" --config "$work/cs-config.yaml" --user-data-dir "$work/ud" --extensions-dir "$work/exts" \
  --install-extension "$vsix"
ct="$(find "$work/exts" -path '*/bin/*/ct' -type f | head -n 1)"
[[ -x "$ct" ]] || { echo "the installed extension has no bundled ct"; exit 1; }
echo "bundled server: $ct"

step "protocol tests against the bundled ct lsp"
(cd "$here" && CT_BIN="$ct" npx mocha --config .mocharc.server.json)

step "fixture workspace"
cp -r "$here/test/fixtures/workspace" "$work/ws"
ws="$(cd "$work/ws" && pwd -P)"
# A second folder for the multi-root check, and a workspace file holding both.
mkdir -p "$work/second"
printf 'deploy: ## Deploy the site\n\t@echo deploying\n' >"$work/second/Makefile"
second="$(cd "$work/second" && pwd -P)"
printf '{"folders": [{"path": "%s", "name": "fixture"}, {"path": "%s", "name": "second"}]}\n' \
  "$ws" "$second" >"$work/multi.code-workspace"
mkdir -p "$work/ud/User"
# The DOM renderer keeps terminal text in the page, where the driver can read it.
cat >"$work/ud/User/settings.json" <<'EOF'
{
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "terminal.integrated.gpuAcceleration": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "telemetry.telemetryLevel": "off"
}
EOF

step "code-server on 127.0.0.1:$port"
setsid "$cs" --config "$work/cs-config.yaml" --bind-addr "127.0.0.1:$port" --auth none \
  --disable-telemetry --disable-update-check --disable-workspace-trust \
  --user-data-dir "$work/ud" --extensions-dir "$work/exts" "$ws" >"$work/code-server.log" 2>&1 &
cs_pid=$!
# A second instance opens the multi-root workspace (a window switched to another workspace in
# the same instance is not what a user starting VS Code on a workspace gets).
port2=$((port + 1))
mkdir -p "$work/ud2/User"
cp "$work/ud/User/settings.json" "$work/ud2/User/settings.json"
setsid "$cs" --config "$work/cs-config.yaml" --bind-addr "127.0.0.1:$port2" --auth none \
  --disable-telemetry --disable-update-check --disable-workspace-trust \
  --user-data-dir "$work/ud2" --extensions-dir "$work/exts" "$work/multi.code-workspace" \
  >"$work/code-server-multi.log" 2>&1 &
cs2_pid=$!
for p in "$port" "$port2"; do
  for _ in $(seq 1 300); do
    curl -s -o /dev/null "http://127.0.0.1:$p/healthz" && break
    sleep 0.1
  done
done

step "drive the workbench"
status=0
E2E_USER_DATA="$work/ud" E2E_MULTI_URL="http://127.0.0.1:$port2/" E2E_SECOND_FOLDER="$second" \
  node "$here/test/e2e/drive.js" "http://127.0.0.1:$port/" "$ws" "$ct" "$screenshot" || status=$?
if ((status != 0)); then
  echo "--- code-server log (last 60 lines)"
  tail -n 60 "$work/code-server.log"
  find "$work/ud/logs" -name '*CommandTree*.log' | while read -r log; do
    echo "--- $log"
    tail -n 60 "$log"
  done
fi
step "done: exit $status"
exit "$status"
