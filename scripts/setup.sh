#!/usr/bin/env bash
# Set up readi-graph on a fresh machine: a venv in .venv with the package and its extras.
#   bash scripts/setup.sh          # package + dense embeddings ([embed])
#   bash scripts/setup.sh --dev    # + test tools, and Virtuoso (Debian) for the integration tests
# Needs Python >= 3.11 and the package registries; nothing else is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
[ "${1:-}" = "--dev" ] && dev=1
python=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# torch first, pinned: the CPU build lies on our machines; an unpinned torch pulls GBs of CUDA.
.venv/bin/python -m pip install -q "torch==2.13.0"
if [ "$dev" = 1 ]; then
  .venv/bin/python -m pip install -q -e ".[embed,dev]"
  if ! command -v virtuoso-t >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      echo "installing virtuoso-opensource (Debian) for the integration tests" >&2
      apt-get update -q >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q virtuoso-opensource >/dev/null
    else
      echo "note: virtuoso-opensource is not installed; its tests will be skipped" >&2
    fi
  fi
else
  .venv/bin/python -m pip install -q -e ".[embed]"
fi
echo "readi-graph is set up in .venv ($(.venv/bin/python -c 'import readi_graph; print(readi_graph.__version__)'))" >&2
