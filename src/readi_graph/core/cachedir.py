"""Where readi-graph keeps what it computes once per machine (embeddings, converted models)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """`READI_CACHE_DIR`, else `$XDG_CACHE_HOME/readi-graph` (`~/.cache/readi-graph`)."""
    base = os.environ.get("READI_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "readi-graph"
    )
    return Path(base)
