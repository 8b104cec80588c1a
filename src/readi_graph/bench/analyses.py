"""The paper's analyses without an LLM: the edit-budget sweep (Readi's Table 9) and FiDeLiS's
Path-RAG candidate coverage with an α sweep.

Per-question answer coverage, retrieved triples (#RK, Table 4), path length and the
compound-ending rate (Table 8) are in every run's summary (`eval/summary.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from readi_graph.core.base import Term
from readi_graph.datasets.metaqa import MetaQAQuestion, gold_path
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.instantiation import connect
from readi_graph.strategies.fidelis.pathrag import candidates

Record = dict[str, Any]
SWEEP_KEYS = (
    "accuracy",
    "hit1",
    "f1",
    "reached",
    "coverage",
    "llm_calls_per_question",
    "edits_per_question",
    "instantiation_final_complete",
    "retrieved_triples_per_question",
)


def budget_sweep(run: Callable[[int], Record], budgets: Sequence[int]) -> list[Record]:
    """`run(max_edits)` -> a run summary, for each budget: accuracy and cost per budget."""
    rows = []
    for budget in budgets:
        summary = run(budget)
        rows.append({"max_edits": budget, **{k: summary.get(k) for k in SWEEP_KEYS}})
    return rows


def sweep_out(out: str | None, budget: int) -> str | None:
    """One results file per budget: `r.jsonl` -> `r.edits2.jsonl`."""
    if not out:
        return None
    path = Path(out)
    return str(path.with_name(f"{path.stem}.edits{budget}{path.suffix}"))


def pathrag_coverage(
    kg: KnowledgeGraph,
    questions: Sequence[MetaQAQuestion],
    alphas: Sequence[float],
    *,
    top_m: int = 10,
) -> dict[str, Any]:
    """Is the gold relation (in its direction) among Path-RAG's top-m candidates at each step
    of the gold path? Keywords are the question itself (no planner); the beam end of a step is
    the first gold node reached by the step before, as a beam on the gold path would hold.

    Every step of every question is in the denominator: a step with no beam end (the topic
    is not in the KG, or the gold walk broke before it) counts as a miss, and
    `steps_unreached` / `questions_unreached` say how many there were."""
    cutoffs = sorted({1, 3, top_m})
    found = {(a, k): 0 for a in alphas for k in cutoffs}
    steps = unreached = broken = 0
    for q in questions:
        path, bindings = gold_path(q)
        steps += len(bindings)
        instance = connect(kg, path, bindings)
        ends: list[Term] = [sorted(instance.start.nodes)[0]] if instance.start.found else []
        for position, binding in enumerate(bindings):
            if not ends:
                unreached += len(bindings) - position
                broken += 1
                break
            gold = {(c.relation, c.forward) for c in binding if c.direction != "both"}
            both = [c.relation for c in binding if c.direction == "both"]
            gold |= {(r, f) for r in both for f in (True, False)}
            for alpha in alphas:
                ranked = candidates(kg, ends, q.question, top_m=top_m, alpha=alpha).ranked[0]
                hits = [(s.relation, s.forward) in gold for s in ranked]
                for k in cutoffs:
                    found[(alpha, k)] += any(hits[:k])
            hop = instance.hops[position] if position < len(instance.hops) else None
            reached = sorted({e.target for e in hop.edges if e.source == ends[0]}) if hop else []
            ends = reached[:1]
    return {
        "questions": len(questions),
        "steps": steps,
        "steps_unreached": unreached,
        "questions_unreached": broken,
        "coverage": {
            f"alpha={a}": {f"top{k}": round(found[(a, k)] / max(steps, 1), 4) for k in cutoffs}
            for a in alphas
        },
    }
