"""diagnose: why instantiation got stuck (paper §4.4), and the router that acts on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from readi_graph.core.adapter import Adapter
from readi_graph.core.context import current_settings
from readi_graph.core.diagnosis import diagnosis_record, unparseable
from readi_graph.core.nodes import Meter, guarded
from readi_graph.core.state import ReadiState


def make_diagnose(adapter: Adapter) -> Callable[..., dict[str, Any]]:
    def diagnose(state: ReadiState) -> dict[str, Any]:
        if state.get("failure"):
            return {}

        def work() -> dict[str, Any]:
            if state.get("parse_error"):
                return {"diagnosis": diagnosis_record(unparseable(state["parse_error"] or ""))}
            return {"diagnosis": diagnosis_record(adapter.diagnose(state, current_settings()))}

        with Meter("diagnose") as meter:
            update = guarded(meter, work)
        return {**update, "usage": meter.usage}

    return diagnose


def route_after_diagnose(
    state: ReadiState,
) -> Literal["edit", "answer"]:
    """Edit only when necessary: something is wrong and the edit budget is not spent. A failed
    environment goes straight to the answer, which reports it (editing cannot help)."""
    if state.get("failure") or state.get("editor_done"):  # failed, or the person is done
        return "answer"
    diagnosis = state.get("diagnosis")
    reasons = diagnosis["reasons"] if diagnosis else []
    # An edit rewrites paths, never the topic entities: an unknown entity is not worth a call.
    if not any(r["kind"] != "unknown_entity" for r in reasons):
        return "answer"
    if state.get("edits_used", 0) >= current_settings().max_edits:
        return "answer"
    return "edit"
