"""Readi's view of an environment: the adapter that gives its nodes one interface over a KG
(relation paths) and a table (headers and row constraints)."""

from __future__ import annotations

from readi_graph.core.adapter import Adapter


def adapter_for(env: object) -> Adapter:
    """The adapter of a `KnowledgeGraph` or a `Table`."""
    from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
    from readi_graph.environments.table.table import Table

    if isinstance(env, KnowledgeGraph):
        from readi_graph.environments.kg.reasoning.adapter import KGAdapter

        return KGAdapter(env)
    if isinstance(env, Table):
        from readi_graph.environments.table.adapter import TableAdapter

        return TableAdapter(env)
    raise TypeError(f"build_graph needs a KnowledgeGraph or a Table, got {type(env).__name__}")
