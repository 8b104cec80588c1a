"""bind: the plan's NL relations (or headers) -> environment items (paper §4.3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from readi_graph.core.adapter import Adapter
from readi_graph.core.context import current_settings
from readi_graph.core.run.nodes import Meter, guarded
from readi_graph.core.state import ReadiState


def make_bind(adapter: Adapter) -> Callable[..., dict[str, Any]]:
    def bind(state: ReadiState) -> dict[str, Any]:
        if state.get("failure"):
            return {}
        with Meter("bind") as meter:
            update = guarded(meter, lambda: {"bindings": adapter.bind(state, current_settings())})
        return {**update, "usage": meter.usage}

    return bind
