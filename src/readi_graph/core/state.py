"""The graph's state: what comes in, what goes out, and what the nodes pass along.

Everything is plain JSON (see `records.py`): checkpointers store it, Studio shows it, a parent
graph can read it. Only `attempts` and `usage` accumulate; every other key is overwritten by
the node that owns it.
"""

from __future__ import annotations

from typing import Annotated, Any

from typing_extensions import NotRequired, TypedDict  # noqa: UP035 - pydantic needs these on 3.11

from readi_graph.core.diagnosis import DiagnosisRecord

Record = dict[str, Any]


def add_usage(left: Record | None, right: Record | None) -> Record:
    """Sum counters; per-node wall times (`ms`) are summed per node."""
    merged: Record = dict(left or {})
    for key, value in (right or {}).items():
        if key == "ms":
            ms = dict(merged.get("ms", {}))
            for node, t in value.items():
                ms[node] = round(ms.get(node, 0.0) + t, 3)
            merged["ms"] = ms
        else:
            merged[key] = merged.get(key, 0) + value
    return merged


def add_attempts(left: list[Record] | None, right: list[Record] | None) -> list[Record]:
    return [*(left or []), *(right or [])]


class ReadiInput(TypedDict):
    """What a caller passes to `graph.invoke`."""

    question: str
    topic_entities: NotRequired[list[str]]  # names or IRIs; several = several constraints


class ReadiOutput(TypedDict, total=False):
    """What `graph.invoke` returns."""

    answer: str  # the model's final text
    answers: list[str]  # parsed answers (or the instances themselves when unparseable)
    evidence: list[list[str]]  # (subject, relation, object) triples behind the answers
    grounded: bool  # every answer is a node of the evidence
    path: list[str]  # the final reasoning path, `Entity -> relation -> ...`
    notes: list[str]  # every caveat the answer model was told (unmet constraints, caps, ...)
    topic_entities: list[str]  # those given, or those found in the question (KG)
    edits: int  # edit calls spent
    usage: Record  # llm_calls, prompt_tokens, completion_tokens, queries, ms per node, and
    # plans / plans_unreadable / answers / answers_unreadable (how often model output parsed)
    attempts: list[Record]  # each path tried, with what went wrong
    error: str | None  # set when the environment failed (an endpoint down after its retries)
    answer_source: str  # ToG: graph (every answer is in the evidence) | model_knowledge | none


class RunState(TypedDict, total=False):
    """What every strategy's state holds: the question, the accumulated attempts and usage,
    a failed environment, and the outputs."""

    question: str
    topic_entities: list[str]
    # KG questions without topic entities: what was found in the question (entities,
    # mentions, notes; see environments/kg/entities/linking.py), else None
    linking: Record | None
    failure: str | None  # the environment failed: the run ends with an answer that says so
    attempts: Annotated[list[Record], add_attempts]
    usage: Annotated[Record, add_usage]
    # outputs
    answer: str
    answers: list[str]
    evidence: list[list[str]]
    grounded: bool
    path: list[str]
    notes: list[str]
    edits: int
    error: str | None


class ReadiState(RunState, total=False):
    # The plan (from generate or edit). KG: alternatives of NL relation chains per topic entity;
    # table: {"headers": [...], "constraints": {header: [values]}}.
    plan: Record
    parse_error: str | None  # the model's output could not be read as a path
    bindings: Record  # KG: topic -> alternative -> relation -> candidates; table: headers
    instances: list[Record]  # the chosen instance per topic entity, for the current plan
    # the best instance per topic entity over the plan and its edits: an edit that gets less
    # far never replaces a better earlier instance (the answer uses these)
    best_instances: list[Record]
    diagnosis: DiagnosisRecord | None
    edits_used: int
    editor_done: bool  # a person ended editing (an empty reply): the next step answers
    # fingerprints of the diagnoses the editor was given (core.diagnosis.fingerprint), and why
    # an edit could change nothing when the router answered instead (ReadiContext.stop_hopeless)
    diagnoses_seen: list[str]
    edit_stop: str | None
