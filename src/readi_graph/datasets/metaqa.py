"""MetaQA: the official file layout, and the gold planner derived from question types.

`N-hop/vanilla/qa_<split>.txt` holds `question<TAB>answer|answer...` with the topic entity in
`[brackets]`; `N-hop/qa_<split>_qtype.txt` holds one type per question, such as
`actor_to_movie_to_director`. From the type the gold relation path follows: X_to_movie walks
the movie->X relation backwards, movie_to_X walks it forwards.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from readi_graph.core.base import ReadiError
from readi_graph.environments.kg.relations.paths import Candidate, KGPath
from readi_graph.environments.kg.store.local import METAQA_RELATION

# The MetaQA relation each question-type word stands for (movie -> word).
TYPE_RELATIONS = {
    "director": "directed_by",
    "writer": "written_by",
    "actor": "starred_actors",
    "year": "release_year",
    "language": "in_language",
    "genre": "has_genre",
    "tag": "has_tags",
    "tags": "has_tags",
    "imdbrating": "has_imdb_rating",
    "imdbvotes": "has_imdb_votes",
}
_TOPIC = re.compile(r"\[([^\]]+)\]")


@dataclass(frozen=True)
class MetaQAQuestion:
    id: str
    question: str
    topic: str
    answers: tuple[str, ...]
    qtype: str
    hops: int


class DatasetError(ReadiError, ValueError):
    """The dataset directory does not have the expected layout or content."""


def gold_plan(qtype: str) -> list[Candidate]:
    """The KG relations (with direction) a question type walks, e.g.
    `actor_to_movie_to_director` -> [starred_actors backwards, directed_by forwards]."""
    words = qtype.split("_to_")
    if len(words) < 2:
        raise DatasetError(f"not a MetaQA question type: {qtype!r}")
    plan = []
    for a, b in itertools.pairwise(words):
        if a == "movie" and b in TYPE_RELATIONS:
            plan.append(Candidate(METAQA_RELATION + TYPE_RELATIONS[b], "forward"))
        elif b == "movie" and a in TYPE_RELATIONS:
            plan.append(Candidate(METAQA_RELATION + TYPE_RELATIONS[a], "backward"))
        else:
            raise DatasetError(f"unknown step {a}_to_{b} in question type {qtype!r}")
    return plan


def gold_path(question: MetaQAQuestion) -> tuple[KGPath, list[tuple[Candidate, ...]]]:
    """A path plus its exact bindings: what a perfect generator and binder would produce."""
    plan = gold_plan(question.qtype)
    relations = tuple(c.relation.removeprefix(METAQA_RELATION) for c in plan)
    return KGPath(question.topic, relations), [(c,) for c in plan]


def load_questions(data: str | Path, hops: int, split: str = "dev") -> Iterator[MetaQAQuestion]:
    """Questions of one hop count and split, with their types, in file order.

    The files are checked now (a wrong directory fails before any work); read lazily after.
    """
    root = Path(data)
    qa = root / f"{hops}-hop" / "vanilla" / f"qa_{split}.txt"
    types = root / f"{hops}-hop" / f"qa_{split}_qtype.txt"
    for required in (qa, types):
        if not required.is_file():
            raise DatasetError(f"{required} is missing (expected the official MetaQA layout)")
    return _read(qa, types, hops, split)


def _read(qa: Path, types: Path, hops: int, split: str) -> Iterator[MetaQAQuestion]:
    with qa.open(encoding="utf-8") as lines, types.open(encoding="utf-8") as qtypes:
        for number, (line, qtype) in enumerate(zip(lines, qtypes, strict=True), 1):
            text, _, answers = line.rstrip("\n").partition("\t")
            match = _TOPIC.search(text)
            if not match or not answers:
                raise DatasetError(f"{qa}:{number}: no [topic entity] or no answers")
            yield MetaQAQuestion(
                id=f"{hops}hop-{split}-{number}",
                question=text,
                topic=match.group(1),
                answers=tuple(answers.split("|")),
                qtype=qtype.strip(),
                hops=hops,
            )
