"""diagnose: why instantiation got stuck (paper §4.4), and the router that acts on it.

The router edits only when an edit is needed and allowed (`wants_edit`). With
`ReadiContext.stop_hopeless` (the default) it also answers at once when no edit can change
anything (`edit_stop`): the diagnosis offers nothing anywhere, or repeats one the editor was
already given (the same prompt would get the same reply; a cached one certainly would). The
published loop edits on until its budget is spent (`stop_hopeless=False`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, cast

from readi_graph.core.adapter import Adapter
from readi_graph.core.context import ReadiContext, current_settings
from readi_graph.core.diagnosis import diagnosis_record, fingerprint, unparseable
from readi_graph.core.run.nodes import Meter, guarded
from readi_graph.core.state import ReadiState

REPEATED = (
    "the last edit led to a diagnosis the editor had already been given: it has nothing new "
    "to work from"
)


def make_diagnose(adapter: Adapter) -> Callable[..., dict[str, Any]]:
    def diagnose(state: ReadiState) -> dict[str, Any]:
        if state.get("failure"):
            return {}
        settings = current_settings()

        def work() -> dict[str, Any]:
            if state.get("parse_error"):
                record = diagnosis_record(unparseable(state["parse_error"] or ""))
            else:
                record = diagnosis_record(adapter.diagnose(state, settings))
            diagnosed = cast(ReadiState, {**state, "diagnosis": record})
            return {"diagnosis": record, "edit_stop": edit_stop(diagnosed, settings)}

        with Meter("diagnose") as meter:
            update = guarded(meter, work)
            if update.get("edit_stop"):  # the calls the budget still allowed, not spent
                meter.count("edit_stops")
                meter.count("edits_spared", settings.max_edits - state.get("edits_used", 0))
        return {**update, "usage": meter.usage}

    return diagnose


def wants_edit(state: ReadiState, settings: ReadiContext) -> bool:
    """Edit only when necessary: something is wrong and the edit budget is not spent. A failed
    environment goes straight to the answer, which reports it (editing cannot help)."""
    if state.get("failure") or state.get("editor_done"):  # failed, or the person is done
        return False
    diagnosis = state.get("diagnosis")
    reasons = diagnosis["reasons"] if diagnosis else []
    # An edit rewrites paths, never the topic entities: an unknown entity is not worth a call.
    if not any(r["kind"] != "unknown_entity" for r in reasons):
        return False
    return state.get("edits_used", 0) < settings.max_edits


def edit_stop(state: ReadiState, settings: ReadiContext) -> str | None:
    """Why the edit the router would make can change nothing (None: it can, or stopping
    early is off): nothing is offered anywhere, or the editor has seen this diagnosis."""
    diagnosis = state.get("diagnosis")
    if not settings.stop_hopeless or diagnosis is None or not wants_edit(state, settings):
        return None
    if diagnosis.get("hopeless"):
        return diagnosis["hopeless"]
    if fingerprint(diagnosis) in (state.get("diagnoses_seen") or []):
        return REPEATED
    return None


def route_after_diagnose(
    state: ReadiState,
) -> Literal["edit", "answer"]:
    """A pure function of the state and the run's settings: edit when an edit is wanted and
    can change something, else answer from the best instances so far."""
    if state.get("edit_stop") or not wants_edit(state, current_settings()):
        return "answer"
    return "edit"
