"""Local binding ranks the relations around the frontier with the phrase's own scores: what it
keeps (the phrase's global top `local_depth`, ties at the floor included), in which order, and
with which direction and score. The scores are scripted so each rule is seen on its own."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from readi_graph.bench.replay import fragment_ntriples
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning import instantiation
from readi_graph.environments.kg.reasoning.instantiation import bind_locally
from readi_graph.environments.kg.relations.binding import BindingOptions
from readi_graph.environments.kg.relations.paths import Candidate
from readi_graph.environments.kg.relations.retrieval import RelationIndex
from readi_graph.environments.kg.relations.schema import FREEBASE_NS as NS
from readi_graph.environments.kg.store.local import load_ntriples

SCORES = {"team.alpha": 2.0, "team.beta": 2.0, "team.gamma": 1.0, "team.delta": 0.0, "far": 3.0}


def _kg(local_depth: int, question_weight: float = 0.3) -> KnowledgeGraph:
    triples = [
        ("Giants", "team.alpha", "a"),
        ("Giants", "team.beta", "b"),
        ("Giants", "team.gamma", "c"),
        ("d", "team.delta", "Giants"),  # around the Giants too, the other way
        ("elsewhere", "far", "e"),
    ]
    options = BindingOptions(
        twins=False,
        local_fallback=True,
        local_depth=local_depth,
        question_weight=question_weight,
    )
    return KnowledgeGraph(
        load_ntriples(fragment_ntriples(triples)),
        relations=[NS + r for r in SCORES],
        binding=options,
    )


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str | None, float]]:
    """`weighted` scripted with SCORES; the arguments it was called with, in order."""
    calls: list[tuple[str, str | None, float]] = []

    def scripted(
        index: RelationIndex, phrase: str, question: str | None, weight: float
    ) -> np.ndarray:
        calls.append((phrase, question, weight))
        return np.array([SCORES[r.removeprefix(NS)] for r in index.relations], dtype=np.float32)

    monkeypatch.setattr(instantiation, "weighted", scripted)
    return calls


def _local(kg: KnowledgeGraph, k: int, question: str | None = None) -> Sequence[Candidate]:
    return bind_locally(kg, kg.resolve("Giants").nodes, "won", k, question)


def test_the_floor_is_the_phrase_global_top_depth_and_ties_at_it_are_kept(
    asked: list[tuple[str, str | None, float]],
) -> None:
    # global top 3: far 3.0, alpha 2.0, beta 2.0 -> floor 2.0; far is not around the Giants
    kg = _kg(local_depth=3, question_weight=0.3)
    assert _local(kg, 5, question="who won?") == (
        Candidate(NS + "team.alpha", "both", 2.0),
        Candidate(NS + "team.beta", "both", 2.0),
    )
    assert asked == [("won", "who won?", 0.3)]  # the question and its weight reach the scores
    assert _local(kg, 1) == (Candidate(NS + "team.alpha", "both", 2.0),)  # k cuts the list


def test_a_deeper_floor_lets_weaker_relations_in_best_first(
    asked: list[tuple[str, str | None, float]],
) -> None:
    kg = _kg(local_depth=4)  # floor 1.0: gamma joins; delta (0: not reached) never does
    assert [(c.relation.removeprefix(NS), c.score) for c in _local(kg, 5)] == [
        ("team.alpha", 2.0),
        ("team.beta", 2.0),
        ("team.gamma", 1.0),
    ]
    assert [(c.relation.removeprefix(NS), c.score) for c in _local(_kg(local_depth=50), 5)] == [
        ("team.alpha", 2.0),
        ("team.beta", 2.0),
        ("team.gamma", 1.0),
    ]


def test_no_depth_binds_nothing(asked: list[tuple[str, str | None, float]]) -> None:
    assert _local(_kg(local_depth=0), 5) == ()
    assert _local(_kg(local_depth=1), 5) == ()  # the floor is far's 3.0, not around here
