"""Counting environment queries per question, whatever the environment.

A context variable holds the counter of the block being measured (a node run, a question in
the eval runner), so concurrent questions in threads or asyncio tasks never mix their counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class QueryCount:
    n: int = 0


_counter: ContextVar[QueryCount | None] = ContextVar("readi_query_counter", default=None)


@contextmanager
def count_queries() -> Iterator[QueryCount]:
    """Count the queries issued in this context (thread/task), e.g. for one question."""
    count = QueryCount()
    token = _counter.set(count)
    try:
        yield count
    finally:
        _counter.reset(token)


def count_query() -> None:
    """One more query in the block being counted (if any)."""
    counter = _counter.get()
    if counter is not None:
        counter.n += 1
