"""generate: one LLM call writes the whole reasoning path (paper §4.2)."""

from __future__ import annotations

from readi_graph.core.adapter import Adapter
from readi_graph.core.base import InputError
from readi_graph.core.context import current_settings
from readi_graph.core.inputs import checked_input
from readi_graph.core.models.llm import ModelRef
from readi_graph.core.prompts import render
from readi_graph.core.run.nodes import Meter, ModelNode, Steps, guarded, model_node
from readi_graph.core.state import ReadiState
from readi_graph.strategies.readi.nodes import request_plan

__all__ = ["InputError", "make_generate"]


def make_generate(adapter: Adapter, model: ModelRef) -> ModelNode:
    def generate(state: ReadiState) -> Steps:
        state = {**state, **checked_input(state)}  # type: ignore[typeddict-item]
        with Meter("generate") as meter:
            # the input checked, and the topic entities found in the question if none is given
            # (KG queries: an endpoint that fails here ends the run like any later step)
            updates = guarded(meter, lambda: adapter.prepare(state))
            state = {**state, **updates}  # type: ignore[typeddict-item]
            budget = current_settings().prompt_budget
            if "plan" in updates or "failure" in updates:  # nothing to ask the model
                plan, error = updates.get("plan") or {}, None
            else:
                values = adapter.generate_values(state)
                prompt = render(adapter.prompts["generate"], budget, **values)
                plan, error = yield from request_plan(meter, adapter, state, prompt, editing=False)
        return {
            "failure": None,  # a new run on a checkpointed thread starts clean
            "error": None,
            **updates,
            "plan": plan,
            "parse_error": error,
            "edits_used": 0,
            "editor_done": False,
            "diagnoses_seen": [],
            "edit_stop": None,
            "usage": meter.usage,
        }

    return model_node(model, generate, native=adapter.native_async)
