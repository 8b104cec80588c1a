"""diagnose: why instantiation got stuck (paper §4.4), and the router that acts on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from langgraph.runtime import Runtime

from readi_graph.context import ReadiContext, settings
from readi_graph.diagnosis import diagnose, unparseable
from readi_graph.envs.kg import KnowledgeGraph
from readi_graph.nodes import Meter
from readi_graph.parsing import PATH_FORMAT
from readi_graph.records import diagnosis_record, instance_from
from readi_graph.state import ReadiState


def make_diagnose(
    kg: KnowledgeGraph,
) -> Callable[[ReadiState, Runtime[ReadiContext]], dict[str, Any]]:
    def diagnose_node(
        state: ReadiState, runtime: Runtime[ReadiContext] | None = None
    ) -> dict[str, Any]:
        ctx = settings(runtime)
        with Meter("diagnose") as meter:
            if state.get("parse_error"):
                diagnosis = unparseable(state["parse_error"] or "", PATH_FORMAT)
            else:
                diagnosis = diagnose(
                    kg,
                    state["question"],
                    [instance_from(r) for r in state.get("instances") or []],
                    halfway_cap=ctx.halfway_cap,
                    candidate_cap=ctx.candidate_cap,
                )
        return {"diagnosis": diagnosis_record(diagnosis), "usage": meter.usage}

    return diagnose_node


def route_after_diagnose(
    state: ReadiState, runtime: Runtime[ReadiContext] | None = None
) -> Literal["edit", "answer"]:
    """Edit only when necessary: something is wrong and the edit budget is not spent."""
    diagnosis = state.get("diagnosis") or {}
    if not diagnosis.get("reasons"):
        return "answer"
    if state.get("edits_used", 0) >= settings(runtime).max_edits:
        return "answer"
    return "edit"
