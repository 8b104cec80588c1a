"""connect: instantiate each topic entity's alternatives in order; keep the first that works.

Trying the alternatives the generator already wrote costs queries, not LLM calls: only when
none instantiates does the graph spend an edit (the published code keeps only the first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from readi_graph.envs.kg import KnowledgeGraph
from readi_graph.instantiation import Instance, connect
from readi_graph.nodes import Meter
from readi_graph.nodes.render import path_line
from readi_graph.paths import KGPath
from readi_graph.records import candidate_from, instance_record
from readi_graph.state import ReadiState


def _ends_named(kg: KnowledgeGraph, instance: Instance) -> bool:
    labels = kg.labels(instance.frontier)
    return any(not kg.is_compound(t, labels.get(t)) for t in instance.frontier)


def _rank(kg: KnowledgeGraph, instance: Instance) -> tuple[int, int]:
    """Higher is better: complete with named ends > complete > deeper."""
    if instance.complete:
        return (2 if _ends_named(kg, instance) else 1, instance.depth)
    return (0, instance.depth)


def make_connect(kg: KnowledgeGraph) -> Callable[[ReadiState], dict[str, Any]]:
    def connect_node(state: ReadiState) -> dict[str, Any]:
        source = f"edit {state['edits_used']}" if state.get("edits_used") else "generate"
        chosen: list[dict[str, Any]] = []
        attempts: list[dict[str, Any]] = []
        with Meter("connect") as meter:
            bindings = state.get("bindings") or {}
            for topic, alternatives in (state.get("plan") or {}).items():
                start = kg.resolve(topic)
                best: Instance | None = None
                for relations, bound in zip(alternatives, bindings.get(topic, []), strict=True):
                    path = KGPath(topic, tuple(relations))
                    candidates = [tuple(candidate_from(c) for c in b) for b in bound]
                    instance = connect(kg, path, candidates, start)
                    attempts.append(
                        {
                            "source": source,
                            "path": path_line(topic, relations),
                            "complete": instance.complete,
                            "depth": instance.depth,
                            "failed_at": instance.failed_at,
                        }
                    )
                    if best is None or _rank(kg, instance) > _rank(kg, best):
                        best = instance
                    if _rank(kg, best)[0] == 2:
                        break
                if best is not None:
                    chosen.append(instance_record(best))
        return {"instances": chosen, "attempts": attempts, "usage": meter.usage}

    return connect_node
