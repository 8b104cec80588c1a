"""Adapters: what differs between environments, behind one interface the nodes use.

The graph, state, router, budget and usage accounting are shared; an adapter supplies the
prompts' values, reads the model's plans and answers, and binds, connects and diagnoses on its
environment (a KG's relation paths, or a table's headers and row constraints). Everything that
crosses the interface is plain JSON, because it lives in the graph's state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from readi_graph.core.context import ReadiContext
from readi_graph.core.diagnosis import Diagnosis
from readi_graph.core.state import ReadiState

Record = dict[str, Any]


@dataclass
class Material:
    """What the answer node needs from the instances."""

    evidence: list[list[str]]  # KG: (subject, relation, object); table: headers, then rows
    prompt_values: dict[str, str]  # placeholders of the answer prompt besides the question
    fallback: list[str]  # answers to report when the model's answer cannot be read
    known: set[str] = field(default_factory=set)  # normalized values an answer is grounded in
    path: list[str] = field(default_factory=list)  # the final path, rendered
    no_evidence: str | None = None  # why there is nothing to answer from (no LLM call then)
    notes: list[str] = field(default_factory=list)  # caveats the answer model was told
    names: list[str] | None = None  # the names an answer may take (None: any text)
    prompt: str | None = None  # the answer prompt's file, if not the adapter's own


class Adapter(Protocol):
    # the prompt file of each step that asks the model: {"generate", "edit", "answer"}
    prompts: Mapping[str, str]
    # the environment awaits its own I/O inside `core.run.bridge.run` (a remote endpoint), so the
    # async path runs its steps on the event loop instead of in worker threads
    native_async: bool

    def prepare(self, state: ReadiState) -> Record:
        """Check the input (raise `InputError`); return state updates (e.g. cleaned names, or
        topic entities found in the question). A `plan` among them settles the plan without a
        model call (a KG question in which no topic entity was found has nothing to plan)."""
        ...

    def generate_values(self, state: ReadiState) -> dict[str, str]: ...

    def parse_plan(self, text: str, state: ReadiState, editing: bool) -> Record:
        """The plan in the model's reply (raise `OutputParseError`); an edit may keep parts of
        the previous plan the model left out."""
        ...

    def unreadable_plan(self, state: ReadiState) -> Record:
        """The plan after a reply that could not be read: nothing new to walk, but what the
        previous plan decided for good (a KG path the editor dropped) stands."""
        ...

    def bind(self, state: ReadiState, ctx: ReadiContext) -> Record: ...

    def connect(self, state: ReadiState) -> tuple[list[Record], list[Record]]:
        """(instances, attempts) for the current plan and bindings."""
        ...

    def keep_best(
        self, previous: list[Record], current: list[Record], plan: Record
    ) -> list[Record]:
        """The better of each earlier and current instance (an edit can get less far), for
        what the current `plan` still holds (an edit may drop a constraint)."""
        ...

    def diagnose(self, state: ReadiState, ctx: ReadiContext) -> Diagnosis: ...

    def edit_values(self, state: ReadiState, ctx: ReadiContext) -> dict[str, str]:
        """The edit prompt's values (`ctx.edit_feedback` may choose what they show)."""
        ...

    def material(self, state: ReadiState, ctx: ReadiContext) -> Material: ...

    def parse_answer(self, text: str) -> list[str] | None: ...

    def plan_schema(self, state: ReadiState) -> Record:
        """JSON schema of a plan reply, for servers that constrain output (the local model)."""
        ...


def no_evidence(state: ReadiState, source: str, default: str) -> str:
    """Why there is nothing to answer from: the diagnosis' reasons, or `default`."""
    diagnosis = state.get("diagnosis")
    reasons = diagnosis["reasons"] if diagnosis else []
    why = "; ".join(r["message"] for r in reasons) or default
    return f"The {source} gave no evidence: {why}."


ANSWER_SCHEMA: Record = {
    "type": "object",
    "properties": {
        "thought": {"type": "string", "maxLength": 400},
        "answers": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["thought", "answers"],
}
MAX_ANSWER_NAMES = 400  # an enum this long compiles in milliseconds (llguidance)


def answer_schema(names: Sequence[str] | None, answer_from: str = "evidence") -> Record:
    """The answer reply's schema; with `names` (the evidence's names, as the prompt shows
    them) and answers from the evidence only, each answer must be one of them (an enum, the
    first `MAX_ANSWER_NAMES`), so a model whose replies are constrained cannot write a name
    the evidence does not hold. An empty list of answers stays allowed ("not answered")."""
    chosen = list(dict.fromkeys(n for n in names or () if n))[:MAX_ANSWER_NAMES]
    if not chosen or answer_from != "evidence":
        return ANSWER_SCHEMA
    items = {"type": "string", "enum": chosen}
    answers = {"type": "array", "items": items, "maxItems": min(len(chosen), 8)}
    return {**ANSWER_SCHEMA, "properties": {**ANSWER_SCHEMA["properties"], "answers": answers}}
