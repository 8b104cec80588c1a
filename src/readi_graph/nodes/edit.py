"""edit: one LLM call corrects the path from the error message (paper §4.4, appendix B.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from readi_graph.adapters import Adapter
from readi_graph.context import current_settings
from readi_graph.llm import ModelRef
from readi_graph.nodes import Meter, request_plan
from readi_graph.prompts import render
from readi_graph.state import ReadiState


def make_edit(adapter: Adapter, model: ModelRef) -> Callable[..., dict[str, Any]]:
    def edit(state: ReadiState) -> dict[str, Any]:
        budget = current_settings().prompt_budget
        with Meter("edit") as meter:
            prompt = render(adapter.prompts[1], budget, **adapter.edit_values(state))
            plan, error = request_plan(meter, adapter, model, state, prompt, editing=True)
        return {
            "plan": plan,
            "parse_error": error,
            "edits_used": state.get("edits_used", 0) + 1,
            "usage": meter.usage,
        }

    return edit
