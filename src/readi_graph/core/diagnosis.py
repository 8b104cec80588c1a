"""What went wrong with a plan, in one shape for every environment: reasons, half-way
instances, candidate relations; as JSON records in state, and as the text of the edit prompt.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from typing_extensions import TypedDict

from readi_graph.core.text import local_name

Record = dict[str, Any]


@dataclass(frozen=True)
class Reason:
    kind: ReasonKind
    message: str
    topic: str | None = None
    position: int | None = None  # index of the failed NL relation
    relation: str | None = None  # the failed NL relation


@dataclass(frozen=True)
class CandidateRelation:
    """A KG relation around a stuck node; `forward` = it leaves the node."""

    relation: str
    forward: bool
    label: str = ""  # how the KG names it (`KnowledgeGraph.relation_name`), when known

    @property
    def name(self) -> str:
        return self.label or local_name(self.relation)


@dataclass
class Diagnosis:
    reasons: list[Reason] = field(default_factory=list)
    halfway: list[str] = field(default_factory=list)  # rendered instances, e.g. `A -> r -> B`
    candidates: list[CandidateRelation] = field(default_factory=list)
    # When a path got stuck after step 1, an earlier relation may be the wrong one: the
    # relations around the nodes each earlier step started from, (step, from, candidates).
    earlier: list[tuple[int, str, list[CandidateRelation]]] = field(default_factory=list)
    # What the editor should also know, shown under the numbered errors: e.g. a relation it
    # wrote that is not in the KG, and what it was read as.
    notes: list[str] = field(default_factory=list)
    # Why no edit can help (nothing is offered anywhere), or "" when one can.
    hopeless: str = ""

    @property
    def ok(self) -> bool:
        return not self.reasons


def unparseable(error: str) -> Diagnosis:
    """The LLM's path could not be read at all (`error` says what was seen and expected)."""
    return Diagnosis([Reason("unparseable_path", f"the previous reply could not be read: {error}")])


class ReasonRecord(TypedDict):
    kind: str
    message: str
    topic: str | None
    position: int | None
    relation: str | None


class RelationRecord(TypedDict):
    relation: str
    forward: bool
    label: str


class DiagnosisRecord(TypedDict):
    """A `Diagnosis` as it is kept in state (JSON)."""

    reasons: list[ReasonRecord]
    halfway: list[str]
    candidates: list[RelationRecord]
    earlier: list[list[Any]]  # [step, from, [RelationRecord, ...]]
    notes: list[str]
    hopeless: str


def diagnosis_record(d: Diagnosis) -> DiagnosisRecord:
    return {
        "reasons": [
            {
                "kind": x.kind,
                "message": x.message,
                "topic": x.topic,
                "position": x.position,
                "relation": x.relation,
            }
            for x in d.reasons
        ],
        "halfway": list(d.halfway),
        "candidates": [_relation_record(c) for c in d.candidates],
        "earlier": [
            [step, where, [_relation_record(c) for c in found]] for step, where, found in d.earlier
        ],
        "notes": list(d.notes),
        "hopeless": d.hopeless,
    }


def fingerprint(record: DiagnosisRecord | Record) -> str:
    """The same diagnosis, the same text: an edit given it again has nothing new to use."""
    text = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _relation_record(c: CandidateRelation) -> RelationRecord:
    return {"relation": c.relation, "forward": c.forward, "label": c.label}


def _relation_from(r: RelationRecord | Record) -> CandidateRelation:
    return CandidateRelation(r["relation"], r["forward"], r.get("label") or "")


def diagnosis_from(r: DiagnosisRecord | Record) -> Diagnosis:
    return Diagnosis(
        [Reason(**x) for x in r["reasons"]],
        list(r["halfway"]),
        [_relation_from(c) for c in r["candidates"]],
        [
            (int(step), str(where), [_relation_from(c) for c in found])
            for step, where, found in r.get("earlier") or []
        ],
        list(r.get("notes") or []),
        str(r.get("hopeless") or ""),
    )


def diagnosis_text(d: Diagnosis) -> tuple[str, str, str]:
    """(numbered errors and their notes, instantiated paths, candidate relations) for the edit
    prompt."""
    numbered = [f"{i}. {r.message}" for i, r in enumerate(d.reasons, 1)]
    errors = "\n".join(numbered + [f"Note: {n}" for n in d.notes])
    halfway = "\n".join(d.halfway) or "(none: the path did not get past its topic entity)"
    return errors, halfway, _names(d.candidates) or "(none)"


def _names(candidates: Sequence[CandidateRelation]) -> str:
    return ", ".join(c.name if c.forward else f"<- {c.name}" for c in candidates)


def earlier_text(d: Diagnosis) -> str:
    """The relations at the steps before the one that failed, for the edit prompt."""
    steps = [f"step {step} (from {where}): {_names(found)}" for step, where, found in d.earlier]
    return "; ".join(s for s in steps) or "(none)"


ReasonKind = Literal[
    "unknown_entity",
    "unparseable_path",
    "empty_path",
    "irrelevant_relation",
    "compound_end",
    "missing_header",  # tables: a chosen header is not in the table
    "too_few_headers",  # tables: fewer than two headers chosen
]
