"""bind: the plan's NL relations (or headers) -> environment items (paper §4.3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from readi_graph.core.adapter import Adapter
from readi_graph.core.context import ReadiContext, settings
from readi_graph.core.nodes import Meter, guarded
from readi_graph.core.state import ReadiState


def make_bind(adapter: Adapter) -> Callable[..., dict[str, Any]]:
    def bind(state: ReadiState, runtime: Runtime[ReadiContext] | None = None) -> dict[str, Any]:
        if state.get("failure"):
            return {}
        with Meter("bind") as meter:
            update = guarded(meter, lambda: {"bindings": adapter.bind(state, settings(runtime))})
        return {**update, "usage": meter.usage}

    return bind
