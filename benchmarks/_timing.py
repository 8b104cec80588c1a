"""Shared by the benchmark scripts: timing two sides of a comparison under the same conditions.

A ratio means something only when both sides ran the same way. `side_by_side` gives each side
a store or client of its own, made fresh by the caller, then times on each: the first call
(cold: nothing cached yet by the store, the client or the query) and `runs` further calls
(warm), alternating sides so that drift on a shared machine falls on both alike.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph, count_queries
from readi_graph.environments.kg.relations.encoder import phrases

Work = Callable[[KnowledgeGraph], Any]


@dataclass
class Timing:
    """Seconds of one piece of work on one side: the first call, then the warm ones."""

    cold: float
    warm: list[float] = field(default_factory=list)
    peak_mib: float = 0.0  # Python allocations of one more call (tracemalloc)
    queries: int = 0  # queries per call (the last one)
    result: Any = None

    @property
    def median(self) -> float:
        return statistics.median(self.warm) if self.warm else self.cold

    def warm_text(self, digits: int = 3) -> str:
        """`median (min-max)` of the warm calls."""
        if not self.warm:
            return "-"
        return f"{self.median:.{digits}f} ({min(self.warm):.{digits}f}-{max(self.warm):.{digits}f})"


def _call(kg: KnowledgeGraph, work: Work) -> tuple[float, int, Any]:
    started = time.perf_counter()
    with count_queries() as counted:
        result = work(kg)
    return time.perf_counter() - started, counted.n, result


def cold_caches() -> None:
    """Empty the process-wide caches a KG client does not own: the phrase embeddings
    (`encoder.phrases`: entity labels and keywords, shared by every KG of the process)."""
    phrases.cache_clear()


def side_by_side(
    kgs: dict[str, KnowledgeGraph], works: dict[str, Work], runs: int = 5, *, memory: bool = True
) -> dict[str, Timing]:
    """Time `works[side](kgs[side])` for every side under the same conditions.

    Each side's KG should be fresh (its own store or client, nothing read yet). The relation
    index is built first, untimed, on every side; then one cold call per side, each after
    `cold_caches()` (so the second side does not find what the first one encoded); then
    `runs` rounds of one warm call per side; then (`memory`) one more call per side under
    tracemalloc (it slows Python down 2x, so it is never timed)."""
    for kg in kgs.values():
        kg.relation_index  # noqa: B018 - built once, outside the measured calls
    timings: dict[str, Timing] = {}
    for side in kgs:
        cold_caches()
        seconds, queries, result = _call(kgs[side], works[side])
        timings[side] = Timing(seconds, queries=queries, result=result)
    for _ in range(runs):
        for side in kgs:
            seconds, queries, result = _call(kgs[side], works[side])
            timings[side].warm.append(seconds)
            timings[side].queries, timings[side].result = queries, result
    for side in kgs if memory else ():
        tracemalloc.start()
        works[side](kgs[side])
        timings[side].peak_mib = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return timings


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank `q` quantile (0.95: p95) of `values`, 0.0 when empty."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def spread(values: Sequence[float], digits: int = 1) -> str:
    """`median (min-max)` of several runs' figures."""
    if not values:
        return "-"
    text = f"{statistics.median(values):.{digits}f}"
    return text + (
        f" ({min(values):.{digits}f}-{max(values):.{digits}f})" if len(values) > 1 else ""
    )
