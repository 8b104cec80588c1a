"""WebQSP and CWQ in their official JSON formats, for runs against a Freebase SPARQL endpoint.

- WebQSP (`WebQSP.<split>.json`): `{"Questions": [{"QuestionId", "RawQuestion", "Parses":
  [{"TopicEntityMid", "TopicEntityName", "InferentialChain", "Answers": [{"AnswerArgument",
  "EntityName"}]}]}]}`. Gold answers are the union over parses; an answer's name and its
  argument (a mid or a value) are aliases of one another. `InferentialChain` gives a gold path.
- CWQ (`ComplexWebQuestions_<split>.json`): `[{"ID", "question", "answers": [{"answer",
  "answer_id", "aliases"}], "sparql"}]`. The official files have no topic field: topic
  entities are then the `ns:m.*` constants of the gold SPARQL query, constraint entities
  included (gold information a model is not given); preprocessed releases (ToG's, Readi's)
  add a `topic_entity` map ({mid: name}), used when present. `topics_from` says which.

Topic entities are passed by name when the file has one (prompts read better), else by mid.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readi_graph.datasets.metaqa import DatasetError

_MID = re.compile(r"\bns:([mg]\.[0-9a-z_]+)\b")


@dataclass(frozen=True)
class FreebaseQuestion:
    id: str
    question: str
    topics: tuple[str, ...]  # names, or mids when no name is known
    topic_ids: tuple[str, ...]
    answers: tuple[tuple[str, ...], ...]  # alias groups
    chain: tuple[str, ...] = ()  # WebQSP's inferential chain (gold relations), if any
    kind: str = ""  # CWQ compositionality type
    topics_from: str = ""  # the dataset field the topics come from, or GOLD_QUERY


GOLD_QUERY = "gold SPARQL constants"


def _load_json(path: Path) -> Any:
    if not path.is_file():
        raise DatasetError(f"{path} is missing")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path} is not JSON: {exc}") from exc


def _find(data: str | Path, patterns: tuple[str, ...]) -> Path:
    root = Path(data)
    if root.is_file():
        return root
    for pattern in patterns:
        found = sorted(root.glob(pattern))
        if found:
            return found[0]
    raise DatasetError(f"no file matching {' or '.join(patterns)} in {root}")


def load_webqsp(data: str | Path, split: str = "test") -> list[FreebaseQuestion]:
    path = _find(data, (f"WebQSP.{split}.json", f"*{split}*.json"))
    document = _load_json(path)
    if not isinstance(document, dict) or not isinstance(document.get("Questions"), list):
        raise DatasetError(f"{path}: not the WebQSP format (no 'Questions' list)")
    questions = []
    for raw in document["Questions"]:
        parses = raw.get("Parses") or []
        first = parses[0] if parses else {}
        groups: dict[str, tuple[str, ...]] = {}
        for parse in parses:
            for answer in parse.get("Answers") or []:
                argument = str(answer.get("AnswerArgument") or "")
                names = (answer.get("EntityName"), argument)
                groups.setdefault(argument, tuple(n for n in names if n))
        mid = first.get("TopicEntityMid")
        questions.append(
            FreebaseQuestion(
                id=str(raw.get("QuestionId")),
                question=str(raw.get("ProcessedQuestion") or raw.get("RawQuestion") or ""),
                topics=tuple(n for n in [first.get("TopicEntityName") or mid] if n),
                topic_ids=tuple(m for m in [mid] if m),
                answers=tuple(groups.values()),
                chain=tuple(first.get("InferentialChain") or ()),
                topics_from="TopicEntityMid",
            )
        )
    return questions


def load_cwq(data: str | Path, split: str = "dev") -> list[FreebaseQuestion]:
    path = _find(data, (f"ComplexWebQuestions_{split}.json", f"*{split}*.json"))
    document = _load_json(path)
    if not isinstance(document, list):
        raise DatasetError(f"{path}: not the CWQ format (a list of questions)")
    questions = []
    for raw in document:
        named: dict[str, str] = dict(raw.get("topic_entity") or {})
        ids = list(named) or list(dict.fromkeys(_MID.findall(str(raw.get("sparql") or ""))))
        answers = tuple(
            tuple(
                x
                for x in (a.get("answer"), *(a.get("aliases") or ()), a.get("answer_id"))
                if isinstance(x, str) and x
            )
            for a in raw.get("answers") or []
        )
        questions.append(
            FreebaseQuestion(
                id=str(raw.get("ID")),
                question=str(raw.get("question") or ""),
                topics=tuple(named.get(m) or m for m in ids),
                topic_ids=tuple(ids),
                answers=answers,
                kind=str(raw.get("compositionality_type") or ""),
                topics_from="topic_entity" if named else GOLD_QUERY,
            )
        )
    return questions
