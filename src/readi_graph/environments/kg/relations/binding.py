"""Binding: the KG relations each natural-language relation of a path may mean (paper §4.2).

A phrase is bound to its top-k relations by the retrieval index (BM25, fused with MiniLM when
installed). Three refinements, each measured on what GPT-3.5 really wrote for CWQ
(`readi bench binding --real`, benchmarks/README.md):

- a relation the model names verbatim (an id that exists, up to case and separators) is bound
  first: models write real ids a quarter of the time;
- each bound relation brings its reverse twin (`sports.mascot.team` for
  `sports.sports_team.team_mascot`), which does not take one of the k places: the walk then
  finds the fact whichever direction the KG stored;
- the question may reorder the phrase's candidates (`question_weight`, as KB-BINDER adds the
  question to the query); measured, and off by default.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from readi_graph.environments.kg.relations.paths import Binding, Candidate
from readi_graph.environments.kg.relations.retrieval import RelationIndex
from readi_graph.environments.kg.relations.schema import RelationSchema

# Weight of the question's own retrieval scores added to the phrase's (0 = the paper's
# phrase-only query). On the CWQ GPT-3.5 paths 0.2 raised binding recall@5 by 0.02-0.03 but
# not the gold answers of the replay, while more wrong paths instantiated (and so skipped the
# edit): off by default (benchmarks/README.md).
QUESTION_WEIGHT = 0.0


@dataclass(frozen=True)
class BindingOptions:
    """How a KG binds phrases. The defaults are what helped on real model output; `paper()`
    is the published method, to measure the difference side by side."""

    exact_first: bool = True  # a relation id written verbatim is bound first
    twins: bool = True  # each bound relation brings its reverse twin
    question_weight: float = QUESTION_WEIGHT
    # When none of a hop's top-k relations connects, rank the relations that do occur
    # around the frontier (one query) and walk the best ones that match the phrase, before
    # calling for an edit; the hop is reported as bound "locally". Off by default: on the
    # CWQ replay it doubled first-path instantiation but mostly with wrong relations, which
    # then skip the edit that would have fixed them (benchmarks/README.md).
    local_fallback: bool = False
    # ... among the phrase's global top `local_depth` only: a relation that shares one word
    # with the phrase ("team") is not a binding, and walking it would hide the error.
    local_depth: int = 50

    @classmethod
    def paper(cls) -> BindingOptions:
        return cls(exact_first=False, twins=False, question_weight=0.0)

    @classmethod
    def named(cls, name: str) -> BindingOptions:
        """`default` (the measured best), `paper` (the published method), `local` (+ local
        binding): the choices of `readi eval --binding`."""
        if name not in BINDINGS:
            raise ValueError(f"unknown binding {name!r}; expected one of {BINDINGS}")
        return {"paper": cls.paper(), "local": cls(local_fallback=True)}.get(name, cls())


BINDINGS = ("default", "paper", "local")


def bind_phrase(
    index: RelationIndex,
    phrase: str,
    top_k: int = 5,
    *,
    schema: RelationSchema | None = None,
    question: str | None = None,
    question_weight: float = QUESTION_WEIGHT,
) -> Binding:
    """The top-k relations for `phrase`, each followed by its reverse twin when one is known."""
    return with_twins(ranked(index, phrase, top_k, question, question_weight), schema)


def ranked(
    index: RelationIndex,
    phrase: str,
    top_k: int,
    question: str | None = None,
    question_weight: float = QUESTION_WEIGHT,
) -> list[tuple[str, float]]:
    """The top-k (relation, score) for `phrase`, reordered by the question when weighted."""
    return index.top(weighted(index, phrase, question, question_weight), top_k)


def weighted(
    index: RelationIndex, phrase: str, question: str | None, question_weight: float
) -> np.ndarray:
    """The phrase's scores, plus the question's where the phrase already reaches: the question
    reorders the phrase's candidates, it never makes a relation the phrase does not reach one."""
    scores = index.scores(phrase)
    if question and question_weight > 0:
        context = index.scores(question)
        scores = np.where(scores > 0, scores + question_weight * context, 0.0)
    return np.asarray(scores, dtype=np.float32)


def with_twins(top: Sequence[tuple[str, float]], schema: RelationSchema | None) -> Binding:
    """`top` in order, each relation followed by its twin (same score) unless already bound."""
    out: dict[str, float] = {}
    for relation, score in top:
        out.setdefault(relation, score)
        twin = schema.twin(relation) if schema else None
        if twin is not None:
            out.setdefault(twin, score)
    return tuple(Candidate(relation, "both", score) for relation, score in out.items())


# A phrase written as a relation id (`film.film.directed_by`, `ns:directed_by`), not in words.
_WRITTEN_ID = re.compile(r"^(?:\w+:)?[^\W_]+(?:[._][^\W_]+)+$")


def rebound(index: RelationIndex, phrase: str) -> bool:
    """Was `phrase` written as a relation id the KG does not have? Binding then reads it as
    the closest relations the KG does have, which the editor must be told: it believes its
    relation was walked as written (reported by the diagnosis, never changed here)."""
    text = phrase.strip()
    return bool(_WRITTEN_ID.match(text)) and not index.exact(text)
