"""Run settings: frozen dataclasses of JSON-able values (Studio and servers send them as JSON).

Heavy objects (the chat model, the KG) are not here: `build_graph` closes over them. Every node
reads its settings one way, `run_settings(kind)` (Readi's: `current_settings()`), from
LangGraph's runtime; a run without a context, a dict, or another strategy's context (e.g. a
parent graph's) gives the defaults, completed with the fields the two have in common.

`RunContext` holds what every strategy reads (the model, the answer policy, budgets);
`ReadiContext` adds Readi's (and its environment adapters'); FiDeLiS has its own
(`strategies/fidelis/context.py`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from types import MappingProxyType
from typing import Any, ClassVar, Literal, Self, TypeVar, get_args, get_origin, get_type_hints

from readi_graph.core.base import InputError


def default_model_name() -> str | None:
    """The model named when no run and no graph names one: `READI_MODEL`, else None (nothing
    named: `core.models.choice.choose_model` says what then serves the run, and the run says so)."""
    return os.environ.get("READI_MODEL") or None


@dataclass(frozen=True, kw_only=True)
class RunContext:
    model: str | None = field(
        default=None,
        metadata={
            "description": "Chat model name for this run (None: the graph's model, else "
            "READI_MODEL; none named: gpt-4o-mini when OPENAI_API_KEY or OPENAI_BASE_URL is set, "
            "else the bundled local model, and the output's notes say so). 'local': the bundled "
            "model. A name nothing serves raises ModelNotConfigured; a graph built with a model "
            "object refuses another name."
        },
    )
    temperature: float = field(default=0.3, metadata={"description": "The paper's setting."})
    answer_from: Literal["evidence", "evidence_and_knowledge"] = field(
        default="evidence",
        metadata={
            "description": "What the answer may use: the evidence only, or the evidence and "
            "the model's own knowledge (the paper's prompt; the answer says which is which)."
        },
    )
    evidence_cap: int = field(
        default=120,
        metadata={
            "description": "Triple lines shown to the answer prompt (what is cut is stated)."
        },
    )
    evidence_layout: Literal["chains", "flat"] = field(
        default="chains",
        metadata={
            "description": "How KG evidence is shown to the answer step: whole chains from the "
            "topic entities under the paths walked, cut by whole chains, best supported first "
            "(default); or each strategy's published form (Readi: one set of triples; FiDeLiS: "
            "its paths, one per line; ToG: the triples by depth)."
        },
    )
    llm_timeout: float = field(
        default=120.0, metadata={"description": "Seconds one model call may take (then retried)."}
    )
    prompt_budget: int = field(
        default=6000,
        metadata={"description": "Tokens (~4 chars each) a prompt may take; longer parts are cut."},
    )
    max_question_chars: int = field(
        default=4000,
        metadata={
            "description": "Characters a question may have; a longer one is refused "
            "(QuestionTooLong) before any model call."
        },
    )

    # The published algorithm where the defaults depart from it: the evidence in its paper's
    # flat form; each strategy's context adds its own departures.
    PAPER: ClassVar[Mapping[str, Any]] = MappingProxyType({"evidence_layout": "flat"})

    def __post_init__(self) -> None:
        require_choices(self)
        require_at_least(self, llm_timeout=0.001, prompt_budget=1, evidence_cap=1)
        require_at_least(self, max_question_chars=1, temperature=0.0)

    @classmethod
    def paper(cls, **overrides: Any) -> Self:
        """The strategy as published where the defaults depart from it (`PAPER`), with
        `overrides` on top."""
        return cls(**{**cls.PAPER, **overrides})


@dataclass(frozen=True, kw_only=True)
class ReadiContext(RunContext):
    max_edits: int = field(default=4, metadata={"description": "Edit calls allowed per question."})
    editor: Literal["model", "human"] = field(
        default="model",
        metadata={
            "description": "Who edits a stuck path: the model, or a person (the run pauses with "
            "interrupt(); resume with Command(resume=<path>); needs a checkpointer)."
        },
    )
    top_k: int = field(default=5, metadata={"description": "KG relations bound per NL relation."})
    halfway_cap: int = field(default=15, metadata={"description": "Half-way instances shown."})
    candidate_cap: int = field(default=35, metadata={"description": "Candidate relations shown."})
    edit_feedback: Literal["steerable", "paper"] = field(
        default="steerable",
        metadata={
            "description": "What the edit prompt tells the editor. steerable (the default): "
            "each error says what to do (add a relation, back up), what a relation the "
            "editor wrote was read as, candidates that lead on (in either direction) and the "
            "relations at earlier steps, every alternative with how far it got. paper: the "
            "published feedback (reason, half-way instances, relations around the stuck "
            "nodes, the chosen path) with its own prompt (kg_edit_paper)."
        },
    )
    stop_hopeless: bool = field(
        default=True,
        metadata={
            "description": "Spend no edit call that cannot change anything: answer at once "
            "when the diagnosis offers nothing anywhere or repeats one an editor was already "
            "given (the output's notes say so). False: edit until the budget is spent, as "
            "published."
        },
    )

    # Readi as published: the paper's edit feedback, edits until the budget is spent, the
    # evidence as one flat set of triples.
    PAPER: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {**RunContext.PAPER, "edit_feedback": "paper", "stop_hopeless": False}
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        require_at_least(self, max_edits=0, top_k=1, halfway_cap=0, candidate_cap=0)


def require_choices(context: Any) -> None:
    """A setting outside its `Literal` choices is an `InputError` naming it ("Paper" or
    "flat " would otherwise run the default silently)."""
    kind: type = type(context)
    for name, allowed in _choices(kind).items():
        value = getattr(context, name)
        if value not in allowed or not isinstance(value, str):
            shown = ", ".join(repr(a) for a in allowed)
            raise InputError(
                f"{type(context).__name__}.{name} must be one of {shown}, not {value!r}"
            )


@cache
def _choices(kind: type) -> dict[str, tuple[object, ...]]:
    """The fields of a context class typed `Literal[...]`, and their choices."""
    hints = get_type_hints(kind)
    return {
        f.name: get_args(hints[f.name])
        for f in fields(kind)
        if get_origin(hints[f.name]) is Literal
    }


def require_at_least(context: Any, **lows: float) -> None:
    """A setting out of range is an `InputError` naming it (a run context may come as JSON
    from Studio or a server, not only from code)."""
    for name, low in lows.items():
        value = getattr(context, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= low:
            raise InputError(
                f"{type(context).__name__}.{name} must be a number of at least {low}, not {value!r}"
            )


C = TypeVar("C", bound=RunContext)


def run_settings(kind: type[C]) -> C:
    """The current run's settings as `kind` (the defaults outside a run)."""
    try:
        from langgraph.runtime import get_runtime

        context = getattr(get_runtime(), "context", None)
    except (RuntimeError, KeyError):  # outside a run, e.g. a node invoked on its own
        context = None
    return settings_of(context, kind)


def current_settings() -> ReadiContext:
    """Readi's settings of the current run."""
    return run_settings(ReadiContext)


def settings_of(context: Any, kind: type[C]) -> C:
    """`context` as `kind`: itself, or built from the fields they share (a dict, or another
    strategy's context), or the defaults."""
    if isinstance(context, kind):
        return context
    if isinstance(context, RunContext):
        context = {f.name: getattr(context, f.name) for f in fields(context)}
    if isinstance(context, dict):
        known = {f.name for f in fields(kind)}
        return kind(**{k: v for k, v in context.items() if k in known})
    return kind()
