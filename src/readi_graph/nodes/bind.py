"""bind: every NL relation of every alternative -> its top-k KG relations (paper §4.3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from readi_graph.context import ReadiContext, settings
from readi_graph.envs.kg import KnowledgeGraph
from readi_graph.instantiation import bind as bind_path
from readi_graph.nodes import Meter
from readi_graph.paths import KGPath
from readi_graph.records import candidate_record
from readi_graph.state import ReadiState


def make_bind(kg: KnowledgeGraph) -> Callable[[ReadiState, Runtime[ReadiContext]], dict[str, Any]]:
    def bind(state: ReadiState, runtime: Runtime[ReadiContext] | None = None) -> dict[str, Any]:
        top_k = settings(runtime).top_k
        with Meter("bind") as meter:
            bindings = {
                topic: [
                    [
                        [candidate_record(c) for c in candidates]
                        for candidates in bind_path(kg, KGPath(topic, tuple(relations)), top_k)
                    ]
                    for relations in alternatives
                ]
                for topic, alternatives in (state.get("plan") or {}).items()
            }
        return {"bindings": bindings, "usage": meter.usage}

    return bind
