"""The gold planner: instantiate each question's gold path and check what the KG returns.

No LLM is involved and there is no answer step: the ends of the walk are the answers. This
measures the environment alone: a faithful instantiation reaches a gold answer (`reached`, the
paper's MetaQA "hit"), finds every gold answer of a correct path (`coverage`), and nothing
else (`exact`), at a cost of O(1) queries per hop; `ends` is how many end nodes it returned.
A question whose walk raises a readi-graph error is written with it and counts as 0.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from readi_graph.core.base import ReadiError
from readi_graph.datasets.metaqa import MetaQAQuestion, gold_path
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph, count_queries
from readi_graph.environments.kg.reasoning.instantiation import connect, merge


@dataclass
class GoldResult:
    id: str
    reached: bool
    coverage: bool
    exact: bool
    queries: int
    ms: float
    predicted: list[str]
    gold: list[str]
    capped: bool
    retrieved_triples: int = 0  # the triples behind the answers (the paper's #RK)
    ends: int = 0  # end nodes returned
    error: str | None = None


def run_question(kg: KnowledgeGraph, question: MetaQAQuestion) -> GoldResult:
    start = time.perf_counter()
    with count_queries() as queries:
        try:
            path, bindings = gold_path(question)
            instance = connect(kg, path, bindings)
            merged = merge([instance])
            labels = kg.labels(merged.answers)
        except ReadiError as exc:  # the run goes on; the question counts as 0
            ms = (time.perf_counter() - start) * 1000
            return GoldResult(question.id, False, False, False, queries.n, ms, [],
                              sorted(set(question.answers)), False,
                              error=f"{type(exc).__name__}: {exc}")  # fmt: skip
    ms = (time.perf_counter() - start) * 1000
    # MetaQA never counts the topic entity among its own answers.
    predicted = {labels[t] or t.value for t in merged.answers} - {question.topic}
    gold = set(question.answers)
    return GoldResult(
        id=question.id,
        reached=bool(predicted & gold),
        coverage=gold <= predicted,
        exact=predicted == gold,
        queries=queries.n,
        ms=ms,
        predicted=sorted(predicted),
        gold=sorted(gold),
        capped=any(h.capped or h.truncated for h in instance.hops),
        retrieved_triples=len(merged.evidence),
        ends=len(predicted),
    )


@dataclass
class Summary:
    label: str
    n: int = 0
    reached: int = 0
    coverage: int = 0
    exact: int = 0
    queries: int = 0
    ms: float = 0.0
    capped: int = 0
    triples: int = 0
    ends: int = 0
    errors: int = 0
    ms_all: list[float] = field(default_factory=list)

    def add(self, r: GoldResult) -> None:
        self.n += 1
        self.reached += r.reached
        self.ends += r.ends
        self.errors += r.error is not None
        self.coverage += r.coverage
        self.exact += r.exact
        self.queries += r.queries
        self.ms += r.ms
        self.capped += r.capped
        self.triples += r.retrieved_triples
        self.ms_all.append(r.ms)

    def as_dict(self) -> dict[str, Any]:
        n = max(self.n, 1)
        ordered = sorted(self.ms_all) or [0.0]
        return {
            "run": self.label,
            "n": self.n,
            "errors": self.errors,
            "reached": round(self.reached / n, 5),
            "coverage": round(self.coverage / n, 5),
            "exact": round(self.exact / n, 5),
            "ends_per_question": round(self.ends / n, 3),
            "queries_per_question": round(self.queries / n, 3),
            "ms_per_question": round(self.ms / n, 3),
            "ms_p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
            "capped_questions": self.capped,
            "retrieved_triples_per_question": round(self.triples / n, 2),
        }


def evaluate(
    kg: KnowledgeGraph,
    questions: Iterable[MetaQAQuestion],
    *,
    label: str,
    out: IO[str] | None = None,
    progress: IO[str] | None = None,
    every: int = 1000,
) -> dict[str, Any]:
    """Run the gold planner over `questions`; JSON lines to `out`, progress to `progress`
    (default: sys.stderr as it is when called)."""
    progress = progress or sys.stderr
    summary = Summary(label)
    for result in (run_question(kg, q) for q in questions):
        summary.add(result)
        if out is not None:
            out.write(json.dumps(result.__dict__, ensure_ascii=False) + "\n")
        if progress is not None and summary.n % every == 0:
            s = summary.as_dict()
            progress.write(
                f"[{label}] {s['n']} questions  reached={s['reached']:.4f}"
                f" coverage={s['coverage']:.4f}"
                f" exact={s['exact']:.4f} queries/q={s['queries_per_question']}"
                f" ms/q={s['ms_per_question']}\n"
            )
            progress.flush()
    return summary.as_dict()
