"""Wiring: START -> start -> relations -> entities -> reason -> (relations | answer | END).

Same input, output and `usage` as the other strategies, plus `answer_source`. The depth and
the model calls left live in state (`depth`, `calls_left`), never in the recursion limit: the
routers read them, and each node asks the model only while calls are left.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import RetryPolicy

from readi_graph import strategies
from readi_graph.core.context import RunContext
from readi_graph.core.models.llm import ModelRef
from readi_graph.core.models.reply_cache import ReplyCache
from readi_graph.core.run.progress import add_nodes, retry_policies
from readi_graph.core.state import ReadiInput, ReadiOutput
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.strategies.tog.context import TogContext
from readi_graph.strategies.tog.entities import make_entities, route_after_entities
from readi_graph.strategies.tog.finish import make_answer, make_reason, route_after_reason
from readi_graph.strategies.tog.nodes import make_relations, make_start, route_after_start
from readi_graph.strategies.tog.state import TogState


def make_tog_builder(
    kg: KnowledgeGraph,
    llm: BaseChatModel | str | None = None,
    *,
    context: RunContext | None = None,
    reply_cache: ReplyCache | None = None,
    llm_retries: int = 3,
    env_retries: int = 2,
) -> StateGraph[TogState, TogContext, ReadiInput, ReadiOutput]:
    """The ToG search over a KG, not yet compiled."""
    if not isinstance(kg, KnowledgeGraph):
        raise TypeError("ToG searches knowledge graphs; use strategy='readi' for tables")
    labels = {"strategy": "tog", "environment": "kg"}
    model = ModelRef(llm, context or TogContext(), reply_cache, labels=labels)
    llm_policy, env_policy = retry_policies(llm_retries, env_retries)
    builder = StateGraph(
        TogState, context_schema=TogContext, input_schema=ReadiInput, output_schema=ReadiOutput
    )
    nodes: list[tuple[str, Any, RetryPolicy]] = [
        ("start", make_start(kg), env_policy),
        ("relations", make_relations(kg, model), llm_policy),
        ("entities", make_entities(kg, model), llm_policy),
        ("reason", make_reason(kg, model), llm_policy),
        ("answer", make_answer(kg, model), llm_policy),
    ]
    describe = strategies.get("tog").describer()
    add_nodes(builder, nodes, "kg", describe, native=kg.native_async)
    builder.add_edge(START, "start")
    builder.add_conditional_edges("start", route_after_start)
    builder.add_edge("relations", "entities")
    builder.add_conditional_edges("entities", route_after_entities)
    builder.add_conditional_edges("reason", route_after_reason)
    builder.add_edge("answer", END)
    return builder


def build_tog_graph(
    kg: KnowledgeGraph,
    llm: BaseChatModel | str | None = None,
    *,
    checkpointer: Any = None,
    cache: Any = None,
    name: str = "tog",
    **options: Any,
) -> CompiledStateGraph[TogState, TogContext, ReadiInput, ReadiOutput]:
    """Compile the Think-on-Graph graph."""
    builder = make_tog_builder(kg, llm, **options)
    return builder.compile(checkpointer=checkpointer, cache=cache, name=name)
