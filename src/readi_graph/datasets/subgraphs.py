"""Per-question subgraphs in RoG's release format (`rmanluo/RoG-webqsp`, `rmanluo/RoG-cwq`).

One record per question, as on the dataset card and in RoG's and FiDeLiS's code:
`{"id", "question", "answer": [names], "q_entity": [names], "a_entity": [names],
"graph": [[head, relation, tail], ...], "choices": []}`; heads and tails are names where
Freebase has one and `m.`/`g.` ids where it has none (CVTs), relations are Freebase ids. The
release is Parquet (`data/{train,validation,test}-*.parquet`); `datasets` writes the same
records as JSON lines (`Dataset.to_json`).

Variants accepted, as found in code that reads these files: extra fields (FiDeLiS adds
`ground_paths` and `hop`), list fields written as strings (`"['a', 'b']"`, as a CSV export
leaves them), `answers` for `answer`, a `topic_entity` map (`{mid: name}`) or list for
`q_entity`, `ID` for `id`, and `subgraph` (a list of triples, or `{"tuples": [...]}`) for
`graph`. A triple that is not three strings is skipped and counted.

Topic entities are the record's own `q_entity`; gold answers its `answer` (each its own
answer), else its `a_entity`. The graph is not kept: `SubgraphSet.triples(question)` reads it
again when its question runs.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readi_graph.datasets.metaqa import DatasetError
from readi_graph.datasets.subgraph_files import Place, RecordFile, data_files

Triple = tuple[str, str, str]
FIELDS = {
    "id": ("id", "ID", "question_id", "qid"),
    "question": ("question", "RawQuestion", "ProcessedQuestion"),
    "answer": ("answer", "answers"),
    "q_entity": ("q_entity", "topic_entity", "topic_entities"),
    "a_entity": ("a_entity", "answer_entity", "answer_entities"),
    "graph": ("graph", "subgraph", "triples"),
}


@dataclass(frozen=True)
class SubgraphQuestion:
    id: str
    question: str
    topics: tuple[str, ...]  # q_entity
    answers: tuple[str, ...]  # the gold answers (`answer`, else `a_entity`)
    a_entity: tuple[str, ...]
    place: Place  # where the record is, to read its graph again


def _field(raw: dict[str, Any], name: str) -> Any:
    for key in FIELDS[name]:
        if key in raw and raw[key] is not None:
            return raw[key]
    return None


def _listed(value: Any) -> Any:
    """A list written as a string (`"['a', 'b']"`) read back; anything else as it is."""
    if isinstance(value, str) and value[:1] in "[{":
        for parse in (json.loads, ast.literal_eval):
            try:
                return parse(value)
            except (ValueError, SyntaxError):
                continue
    return value


def _names(value: Any) -> tuple[str, ...]:
    """A list of names from a list, a single name, a `{mid: name}` map or answer objects."""
    value = _listed(value)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, dict):
        return tuple(str(v or k) for k, v in value.items())
    names = []
    for item in value:
        if isinstance(item, dict):
            item = item.get("text") or item.get("answer") or item.get("name") or item.get("kb_id")
        if item is not None and str(item).strip():
            names.append(str(item))
    return tuple(names)


def graph_of(raw: dict[str, Any]) -> tuple[list[Triple], int]:
    """The record's triples, and how many entries were not triples of three strings."""
    value = _listed(_field(raw, "graph"))
    if isinstance(value, dict):
        value = value.get("tuples") or value.get("triples") or []
    triples: list[Triple] = []
    bad = 0
    for entry in value or ():
        entry = _listed(entry)
        if (
            isinstance(entry, list | tuple)
            and len(entry) == 3
            and all(isinstance(x, str) and x.strip() for x in entry)
        ):
            triples.append((entry[0].strip(), entry[1].strip(), entry[2].strip()))
        else:
            bad += 1
    return triples, bad


def question_of(raw: dict[str, Any], place: Place, number: int) -> SubgraphQuestion:
    answers = _names(_field(raw, "answer"))
    a_entity = _names(_field(raw, "a_entity"))
    ident = _field(raw, "id")
    return SubgraphQuestion(
        id=str(ident) if ident is not None else f"{place.path.name}:{number}",
        question=str(_field(raw, "question") or "").strip(),
        topics=_names(_field(raw, "q_entity")),
        answers=answers or a_entity,
        a_entity=a_entity,
        place=place,
    )


class SubgraphSet:
    """The questions of a subgraph release, and each one's graph on demand."""

    def __init__(self, path: str | Path, split: str | None = None) -> None:
        self.path = Path(path)
        self.file = RecordFile(data_files(path, split))

    def __enter__(self) -> SubgraphSet:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.file.close()

    def questions(self, limit: int | None = None) -> Iterator[SubgraphQuestion]:
        """The questions in file order (the first `limit`); graphs are not kept."""
        seen: set[str] = set()
        for number, (raw, place) in enumerate(self.file.records()):
            if limit is not None and number >= limit:
                return
            question = question_of(raw, place, number)
            if question.id in seen:
                raise DatasetError(f"{place.path}: question id {question.id!r} appears twice")
            seen.add(question.id)
            yield question

    def triples(self, question: SubgraphQuestion) -> tuple[list[Triple], int]:
        """The question's subgraph (read again from its place) and its malformed entries."""
        return graph_of(self.file.read(question.place))


def load_subgraphs(
    path: str | Path, split: str | None = None, limit: int | None = None
) -> tuple[SubgraphSet, list[SubgraphQuestion]]:
    """A subgraph set and its (first `limit`) questions; close the set when done."""
    subgraphs = SubgraphSet(path, split)
    try:
        return subgraphs, list(subgraphs.questions(limit))
    except BaseException:
        subgraphs.close()
        raise
