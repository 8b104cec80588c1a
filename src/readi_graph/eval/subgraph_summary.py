"""The summary of a run on per-question subgraphs: how often the answer was there at all.

Every rate is over the questions asked: a question whose answer is not in its subgraph stays
in the denominator (it can only be answered wrong, or from the model's memory). Papers that
run on these subgraphs often drop such questions (FiDeLiS keeps only those with a path from a
question entity to an answer); `answerable_subset` gives the same scores on the questions
whose answer is in their subgraph, labelled as such, for comparison with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Record = dict[str, Any]
SCORES = ("accuracy", "hit1", "hit_lenient", "f1")
SUBSET_NOTE = (
    "only the questions whose gold answer is a node of their subgraph, as papers that filter "
    "report; every other figure counts every question asked"
)


def _score(record: Record, key: str) -> float:
    return float(record.get("correct" if key == "accuracy" else key, 0) or 0)


def subgraph_figures(records: Sequence[Record], asked: int) -> Record:
    """`answer_in_subgraph`, `answer_reachable` and triples per question over `asked`
    questions, and the scores on the answerable subset."""
    per = max(asked, 1)
    inside = [r for r in records if r.get("answer_in_subgraph")]
    reachable = sum(1 for r in records if r.get("answer_hops") is not None)
    triples = sum(int(r.get("subgraph_triples") or 0) for r in records)
    subset: Record = {"note": SUBSET_NOTE, "n": len(inside)}
    for key in SCORES:
        if any(key in r or key == "accuracy" for r in inside):
            subset[key] = round(sum(_score(r, key) for r in inside) / len(inside), 5)
    return {
        "answer_in_subgraph": round(len(inside) / per, 5),
        "answer_reachable": round(reachable / per, 5),
        "subgraph_triples_per_question": round(triples / len(records), 1) if records else 0.0,
        "answerable_subset": subset,
    }
