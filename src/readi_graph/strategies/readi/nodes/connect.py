"""connect: instantiate the plan on the environment (paper §4.3, appendix B.1).

Alternatives the generator already wrote are tried here, in order, before any edit: they cost
queries, not LLM calls (the published code keeps only the first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from readi_graph.core.adapter import Adapter
from readi_graph.core.run.nodes import Meter, guarded
from readi_graph.core.state import ReadiState


def make_connect(adapter: Adapter) -> Callable[..., dict[str, Any]]:
    def connect(state: ReadiState) -> dict[str, Any]:
        if state.get("failure"):
            return {}

        def work() -> dict[str, Any]:
            instances, attempts = adapter.connect(state)
            # after an edit, keep the better of the earlier and the new instance per topic
            earlier = (state.get("best_instances") or []) if state.get("edits_used") else []
            best = adapter.keep_best(earlier, instances, state.get("plan") or {})
            return {"instances": instances, "best_instances": best, "attempts": attempts}

        with Meter("connect") as meter:
            update = guarded(meter, work)
        return {**update, "usage": meter.usage}

    return connect
