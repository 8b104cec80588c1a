"""Offline scores: what the instances reached, beside what the answer step answered.

An offline run (no LLM: gold, empty or corrupt first paths, an oracle editor, the scripted
answer) is scored twice per question:

- the answer step's answers, strictly (`hit1`, `hit_lenient`, `f1`; `correct` is `hit1`);
- the instances' end nodes, whatever the answer step made of them (`ends_scores`): `reached`
  (a gold answer among the ends: the paper's MetaQA "hit", lenient, since it asks nothing of
  the answer), `ends` (how many), `coverage` (every gold answer among them), `exact` (the
  ends are the gold answers).

The graph's output holds the answer step's answers only, so `WithEnds` runs it asking
LangGraph for the chosen instances as well (`output_keys`) and keeps each question's ends
(the nodes the answer node falls back to: the merge of the complete instances, else the
deepest partial walk) until `take` hands them to the scorer.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from readi_graph.core.context import ReadiContext
from readi_graph.core.state import ReadiOutput
from readi_graph.eval.metrics import kgqa_scores, normalize

OUTPUT_KEYS = [*ReadiOutput.__annotations__, "best_instances", "instances"]


def ends_scores(gold: Sequence[Any], ends: Sequence[str]) -> dict[str, float]:
    """`reached`, `ends`, `coverage`, `exact` of the instance ends against the gold answers
    (plain answers, or alias groups: any alias counts as its answer)."""
    found = {normalize(e) for e in ends}
    groups = [{normalize(a) for a in ([g] if isinstance(g, str) else g)} for g in gold]
    hit = [bool(group & found) for group in groups]
    named = {e for e in found if any(e in group for group in groups)}
    return {
        "reached": float(any(hit)),
        "ends": float(len(found)),
        "coverage": float(bool(hit) and all(hit)),
        "exact": float(bool(hit) and all(hit) and named == found),
    }


def ends_as_answers(gold: Any, predicted: list[str]) -> dict[str, float]:
    """A scorer for runs whose answers *are* the ends (gold paths, no answer step): the
    strict scores of the ends in name order and the ends' own, `correct` = `reached`."""
    scores = {**kgqa_scores(gold, predicted), **ends_scores(gold, predicted)}
    scores["correct"] = scores["reached"]
    return scores


class WithEnds:
    """A compiled Readi graph over a KG that also keeps each question's instance ends."""

    def __init__(self, graph: Any, adapter: Any) -> None:
        self.graph, self.adapter = graph, adapter
        self._ends: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def _keep(self, state: dict[str, Any], context: Any) -> dict[str, Any]:
        settings = context if isinstance(context, ReadiContext) else ReadiContext()
        ends = [] if state.get("error") else self.adapter.material(state, settings).fallback
        with self._lock:
            self._ends[str(state.get("question"))] = ends
        return {k: v for k, v in state.items() if k in ReadiOutput.__annotations__}

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> dict[str, Any]:
        state = self.graph.invoke(input, config, output_keys=OUTPUT_KEYS, **kwargs)
        return self._keep({"question": input.get("question"), **state}, kwargs.get("context"))

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> dict[str, Any]:
        state = await self.graph.ainvoke(input, config, output_keys=OUTPUT_KEYS, **kwargs)
        full = {"question": input.get("question"), **state}
        return await asyncio.to_thread(self._keep, full, kwargs.get("context"))

    def take(self, question: str) -> list[str]:
        """The ends of one question's last run (taken: reported once)."""
        with self._lock:
            return self._ends.pop(question, [])
