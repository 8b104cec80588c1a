"""Scores that need no model call: the official code's cheap pruning modes (BM25 or dense
similarity to the question), ToG-R's random or dense entity pruning, and the uniform scores
that stand in for an unreadable reply. A relation's score multiplies its entities' scores, so
every mode gives scores in [0, 1]."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from readi_graph.environments.kg.explore import Similarity
from readi_graph.strategies.tog.state import ListedRelation, Tail


def uniform(n: int) -> list[float]:
    return [1.0 / n] * n if n else []


def clamped(scores: Sequence[float]) -> list[float]:
    """Similarities as scores: negatives are 0; all zero becomes uniform (as the official
    code does), so a mode that finds no similarity still explores."""
    out = [min(max(float(s), 0.0), 1.0) for s in scores]
    return out if any(out) else uniform(len(out))


def top_relations(
    rows: Sequence[ListedRelation], similarity: Similarity, width: int
) -> list[tuple[int, float]]:
    """(index, score) of the `width` relations most similar to the question, no call."""
    scores = [similarity.relation(r["relation"]) for r in rows]
    order = sorted(range(len(rows)), key=lambda i: (-scores[i], i))[:width]
    return list(zip(order, clamped([scores[i] for i in order]), strict=True))


def similar_entities(rows: Sequence[Tail], similarity: Similarity) -> list[float]:
    return clamped(similarity.names([r["name"] for r in rows]))


def drawn(rows: Sequence[Tail], seed: int, question: str) -> list[float]:
    """ToG-R's random pruning, seeded: the same question draws the same scores every run."""
    out = []
    for r in rows:
        digest = hashlib.sha256(f"{seed}\x00{question}\x00{r['node']['value']}".encode())
        out.append((int(digest.hexdigest()[:8], 16) + 1) / 2**32)
    return out
