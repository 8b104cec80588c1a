"""Run settings: a frozen dataclass of JSON-able values (Studio and servers send it as JSON).

Heavy objects (the chat model, the KG) are not here: `build_graph` closes over them. Nodes read
the context through `settings(runtime)`, which falls back to the defaults when the graph runs
without a context or inside a parent graph whose context is of another type.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any, Literal


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


@dataclass(frozen=True, kw_only=True)
class ReadiContext:
    model: str = field(
        default_factory=lambda: _env("READI_MODEL", "gpt-4o-mini") or "gpt-4o-mini",
        metadata={"description": "Chat model name, used when no model object is passed."},
    )
    temperature: float = field(default=0.3, metadata={"description": "The paper's setting."})
    max_edits: int = field(default=4, metadata={"description": "Edit calls allowed per question."})
    editor: Literal["model", "human"] = field(
        default="model",
        metadata={
            "description": "Who edits a stuck path: the model, or a person (the run pauses with "
            "interrupt(); resume with Command(resume=<path>); needs a checkpointer)."
        },
    )
    answer_from: Literal["evidence", "evidence_and_knowledge"] = field(
        default="evidence",
        metadata={
            "description": "What the answer may use: the evidence only, or the evidence and "
            "the model's own knowledge (the paper's prompt; the answer says which is which)."
        },
    )
    top_k: int = field(default=5, metadata={"description": "KG relations bound per NL relation."})
    halfway_cap: int = field(default=15, metadata={"description": "Half-way instances shown."})
    candidate_cap: int = field(default=35, metadata={"description": "Candidate relations shown."})
    evidence_cap: int = field(
        default=120, metadata={"description": "Triples shown to the answer prompt (stated if cut)."}
    )
    llm_timeout: float = field(
        default=120.0, metadata={"description": "Seconds one model call may take (then retried)."}
    )
    prompt_budget: int = field(
        default=6000,
        metadata={"description": "Tokens (~4 chars each) a prompt may take; longer parts are cut."},
    )
    # FiDeLiS (strategy="fidelis") only:
    beam_width: int = field(default=4, metadata={"description": "FiDeLiS: paths kept per step."})
    beam_depth: int = field(default=4, metadata={"description": "FiDeLiS: steps at most."})
    alpha: float = field(default=0.3, metadata={"description": "FiDeLiS: look-ahead weight."})
    top_m: int = field(default=10, metadata={"description": "FiDeLiS: candidates per path."})


DEFAULT_CONTEXT = ReadiContext()


def current_settings() -> ReadiContext:
    """`settings` for nodes without a `runtime` parameter, which LangGraph would require even
    when a node is invoked on its own (`compiled.nodes[name].invoke(state)`)."""
    try:
        from langgraph.runtime import get_runtime

        return settings(get_runtime())
    except (RuntimeError, KeyError):  # outside a run
        return DEFAULT_CONTEXT


def settings(runtime: Any) -> ReadiContext:
    """The run's `ReadiContext`, or the defaults (no context, or a parent graph's context)."""
    context = getattr(runtime, "context", None)
    if isinstance(context, ReadiContext):
        return context
    if isinstance(context, dict):
        known = {f.name for f in fields(ReadiContext)}
        return ReadiContext(**{k: v for k, v in context.items() if k in known})
    return DEFAULT_CONTEXT
