"""A disk cache of model replies, keyed by model settings + prompt + schema.

Rerunning an evaluation then costs no LLM calls: a cached reply is counted as `cached_calls`,
never as `llm_calls`, so a rerun reports the cost of the original run separately from what was
spent now. SQLite makes the cache safe for the threads of `graph.batch` and for two processes
sharing a file (last writer wins; the replies for one key are interchangeable).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel


def model_key(llm: BaseChatModel) -> str:
    """What identifies a model's behaviour: its class and parameters (no secrets)."""
    try:
        params = llm._get_llm_string()  # langchain-core's own cache key (model, temperature...)
    except Exception:  # a custom model without serializable parameters
        params = repr(sorted(getattr(llm, "_identifying_params", {}).items()))
    return f"{type(llm).__module__}.{type(llm).__qualname__}:{params}"


class ReplyCache:
    """`get`/`put` (text, prompt tokens, completion tokens) under a digest of the request."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock, self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, text TEXT NOT NULL,"
                " prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)"
            )
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(model: str, prompt: str, schema: dict[str, Any] | None) -> str:
        blob = json.dumps([model, prompt, schema], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def get(self, key: str) -> tuple[str, int, int] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens FROM replies WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
            return str(row[0]), int(row[1]), int(row[2])

    def put(self, key: str, text: str, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?)",
                (key, text, prompt_tokens, completion_tokens),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
