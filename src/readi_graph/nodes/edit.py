"""edit: one LLM call corrects the path from the error message (paper §4.4, appendix B.2).

Topics the model leaves out of its correction keep their previous path, so correcting one
constraint never silently drops another.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from readi_graph.llm import ModelRef, call
from readi_graph.nodes import Meter
from readi_graph.nodes.render import diagnosis_text, path_line
from readi_graph.parsing import OutputParseError, parse_kg_paths
from readi_graph.prompts import render
from readi_graph.records import diagnosis_from
from readi_graph.state import ReadiState


def previous_paths(state: ReadiState) -> dict[str, list[str]]:
    """The path each topic entity was last instantiated with (the chosen alternative)."""
    chosen = {r["path"]["topic"]: r["path"]["relations"] for r in state.get("instances") or []}
    plan = state.get("plan") or {}
    return {t: chosen.get(t, (plan.get(t) or [[]])[0]) for t in state.get("topic_entities") or []}


def make_edit(model: ModelRef) -> Callable[[ReadiState], dict[str, Any]]:
    def edit(state: ReadiState) -> dict[str, Any]:
        topics = state.get("topic_entities") or []
        previous = previous_paths(state)
        errors, halfway, candidates = diagnosis_text(diagnosis_from(state["diagnosis"] or {}))
        with Meter("edit") as meter:
            prompt = render(
                "kg_edit",
                question=state["question"],
                topic_entities=json.dumps(topics, ensure_ascii=False),
                path=json.dumps(
                    {t: [path_line(t, r)] for t, r in previous.items()}, ensure_ascii=False
                ),
                errors=errors,
                instances=halfway,
                candidates=candidates,
            )
            reply = meter.llm(call(model.get(), prompt))
            try:
                edited = parse_kg_paths(reply.text, topics, fill_missing=False)
                plan = {
                    t: [list(r) for r in edited[t]] if edited.get(t) else [list(previous[t])]
                    for t in topics
                }
                error = None
            except OutputParseError as exc:
                plan, error = {}, str(exc)
        return {
            "plan": plan,
            "parse_error": error,
            "edits_used": state.get("edits_used", 0) + 1,
            "usage": meter.usage,
        }

    return edit
