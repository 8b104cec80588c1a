"""FiDeLiS's Path-RAG candidate coverage on per-question subgraphs (`readi bench pathrag
--subgraphs`), the analysis of its Figure 3 on the data it was run on.

Gold relations come from the subgraph itself, as RoG and FiDeLiS derive them: the shortest
paths (edges either way) from a question entity to an answer entity (`eval/subgraph_paths.py`,
up to 20 per question). At each step of the first such path, the beam end is that path's node
and the gold steps are those of every ground path through that node at that position; a step
is covered at k when one of them is among Path-RAG's top-k candidates (keywords = the
question). Steps are counted over the ground paths; `path_covered` counts, over every question
asked, those whose whole first ground path is covered (no ground path: not covered).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from readi_graph.core.base import Term
from readi_graph.datasets.subgraphs import SubgraphQuestion, SubgraphSet
from readi_graph.environments.kg.name_triples import (
    name_triples_kg,
    node_iri,
    relation_iri,
    walkable,
)
from readi_graph.eval.subgraph_paths import answer_nodes, ground_paths
from readi_graph.strategies.fidelis.pathrag import candidates


def pathrag_on_subgraphs(
    subgraphs: SubgraphSet,
    questions: Sequence[SubgraphQuestion],
    alphas: Sequence[float],
    *,
    top_m: int = 10,
) -> dict[str, Any]:
    cutoffs = sorted({1, 3, top_m})
    found = {(a, k): 0 for a in alphas for k in cutoffs}
    whole = {(a, k): 0 for a in alphas for k in cutoffs}
    steps = with_path = inside = 0
    for q in questions:
        triples, _ = subgraphs.triples(q)
        ends = answer_nodes(triples, q.answers)
        inside += bool(ends)
        kg = name_triples_kg(triples, name=f"subgraph {q.id}")
        paths = ground_paths(walkable(kg, triples), q.topics, ends) if ends else []
        if not paths:
            continue
        with_path += 1
        first = paths[0]
        covered = {key: True for key in whole}
        for position, step in enumerate(first):
            gold = {
                (relation_iri(p[position].relation), p[position].forward)
                for p in paths
                if len(p) > position and p[position].node == step.node
            }
            steps += 1
            end = Term.iri(node_iri(step.node))
            for alpha in alphas:
                ranked = candidates(kg, [end], q.question, top_m=top_m, alpha=alpha).ranked[0]
                hits = [(s.relation, s.forward) in gold for s in ranked]
                for k in cutoffs:
                    found[(alpha, k)] += any(hits[:k])
                    covered[(alpha, k)] = covered[(alpha, k)] and any(hits[:k])
        for key, ok in covered.items():
            whole[key] += ok
    n = max(len(questions), 1)
    return {
        "questions": len(questions),
        "answer_in_subgraph": round(inside / n, 4),
        "with_ground_path": round(with_path / n, 4),
        "steps": steps,
        "coverage": {
            f"alpha={a}": {f"top{k}": round(found[(a, k)] / max(steps, 1), 4) for k in cutoffs}
            for a in alphas
        },
        "path_covered": {
            f"alpha={a}": {f"top{k}": round(whole[(a, k)] / n, 4) for k in cutoffs} for a in alphas
        },
    }
