"""The benchmarks' side-by-side timing (benchmarks/_timing.py): both sides of a ratio are
timed under the same conditions. Each side's first call finds the process-wide phrase cache
empty (the other side's encodings do not make it look fast), the sides alternate, and each
gets the same number of warm calls."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from readi_graph.environments.kg.relations import encoder

from _timing import percentile, side_by_side, spread


class Store:
    """Stands in for a KnowledgeGraph: side_by_side only builds its relation index."""

    def __init__(self) -> None:
        self.indexed = 0

    @property
    def relation_index(self) -> None:
        self.indexed += 1


@pytest.fixture
def fake_phrases() -> Any:
    """The phrase cache is the process's: whatever the fake encoder put there is dropped."""
    yield
    encoder.phrases.cache_clear()


@pytest.mark.usefixtures("fake_phrases")
def test_each_side_starts_cold_then_alternates(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[str] = []

    def encode(texts: list[str]) -> np.ndarray:
        encoded.extend(texts)
        return np.zeros((len(texts), 3), dtype=np.float32)

    monkeypatch.setattr(encoder.DenseEncoder, "encode", staticmethod(encode))
    calls: list[tuple[str, bool]] = []  # (side, whether the label had to be encoded)

    def work(side: str) -> Any:
        def call(kg: Any) -> str:
            before = len(encoded)
            encoder.phrases.many(["the same label on both sides"])
            calls.append((side, len(encoded) > before))
            return side

        return call

    stores = {"before": Store(), "after": Store()}
    timings = side_by_side(
        stores,  # type: ignore[arg-type]
        {"before": work("before"), "after": work("after")},
        runs=3,
    )
    assert [s.indexed for s in stores.values()] == [1, 1]
    # Both cold calls encode (the cache is emptied before each); no warm call does.
    assert calls[:2] == [("before", True), ("after", True)]
    assert calls[2:8] == [("before", False), ("after", False)] * 3
    assert len(calls) == 10  # one more call per side for the memory peak
    for side, timing in timings.items():
        assert len(timing.warm) == 3 and timing.result == side and timing.cold > 0
        assert timing.warm_text().count("(") == 1


def test_quantiles_and_spread() -> None:
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert percentile(values, 0.5) == 3.0
    assert percentile(values, 0.95) == 5.0
    assert percentile(list(range(1, 101)), 0.95) == 95
    assert percentile([], 0.95) == 0.0
    assert spread([3.0, 1.0, 2.0]) == "2.0 (1.0-3.0)"
    assert spread([2.5]) == "2.5"
    assert spread([]) == "-"
