"""A local model with no network, no key and no build step: SmolLM2-135M-Instruct in-process.

The `[local]` extra installs transformers' GGUF reader (`gguf`) and a constrained-decoding
library (`llguidance`); the weights are found, converted and loaded by `weights.py`.
`local_chat_model()` returns a `LocalChatModel` (`core/local/chat.py`), a LangChain chat model
that loads lazily on its first call, in whatever thread makes that call (a worker thread under
`ainvoke`), so building it never blocks an event loop. With `READI_LOCAL_RUNTIME=llamacpp` and
the `[llamacpp]` extra, the same GGUF is served by llama.cpp instead (`core/local/server.py`).
The model is tiny: it exercises the machinery (format following, parsing, editing), it does
not answer well.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from readi_graph.core.local.weights import LocalModelUnavailable, gguf_path

REQUIRED = ("torch", "transformers", "gguf", "llguidance")  # what the default runtime imports


def runtime() -> str:
    """`transformers` (the default: in-process, wheels only) or `llamacpp` (opt-in)."""
    return os.environ.get("READI_LOCAL_RUNTIME", "transformers").strip().lower() or "transformers"


def local_available() -> bool:
    """Whether the local model can run here (checked without importing anything heavy)."""
    modules = ("llama_cpp",) if runtime() == "llamacpp" else REQUIRED
    if any(importlib.util.find_spec(m) is None for m in modules):
        return False
    try:
        return gguf_path().is_file()
    except LocalModelUnavailable:
        return False


def local_chat_model(
    temperature: float = 0.3, gguf: str | Path | None = None, **kwargs: Any
) -> Any:
    """The local chat model (nothing is loaded until its first call)."""
    if runtime() == "llamacpp":
        from readi_graph.core.local.server import llamacpp_chat_model

        return llamacpp_chat_model(temperature, gguf, **kwargs)
    from readi_graph.core.local.chat import LocalChatModel

    return LocalChatModel(
        temperature=temperature, gguf=str(gguf_path(gguf)) if gguf else None, **kwargs
    )
