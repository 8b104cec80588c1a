"""Wiring only: START -> generate -> bind -> connect -> diagnose -> (edit -> bind | answer) -> END.

The edit budget lives in state (`edits_used`) and the router, never in the recursion limit.
`make_builder` returns the uncompiled graph so callers pick their checkpointer, cache and
store; `build_graph` compiles it.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

from readi_graph import strategies
from readi_graph.core.context import ReadiContext, settings_of
from readi_graph.core.models.llm import ModelRef
from readi_graph.core.models.reply_cache import ReplyCache
from readi_graph.core.run.progress import add_nodes, retry_policies
from readi_graph.core.state import ReadiInput, ReadiOutput, ReadiState
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.table.table import Table
from readi_graph.strategies.readi.adapters import adapter_for
from readi_graph.strategies.readi.nodes.answer import make_answer
from readi_graph.strategies.readi.nodes.bind import make_bind
from readi_graph.strategies.readi.nodes.connect import make_connect
from readi_graph.strategies.readi.nodes.diagnose import make_diagnose, route_after_diagnose
from readi_graph.strategies.readi.nodes.edit import make_edit
from readi_graph.strategies.readi.nodes.generate import make_generate


def make_builder(
    env: KnowledgeGraph | Table,
    llm: BaseChatModel | str | None = None,
    *,
    context: ReadiContext | None = None,
    reply_cache: ReplyCache | None = None,
    llm_retries: int = 3,
    env_retries: int = 2,
) -> StateGraph[ReadiState, ReadiContext, ReadiInput, ReadiOutput]:
    """The Readi workflow over a KG or a table, not yet compiled."""
    adapter = adapter_for(env)
    environment = "kg" if isinstance(env, KnowledgeGraph) else "table"
    labels = {"strategy": "readi", "environment": environment}
    model = ModelRef(llm, context or ReadiContext(), reply_cache, labels=labels)
    llm_policy, env_policy = retry_policies(llm_retries, env_retries)

    builder = StateGraph(
        ReadiState, context_schema=ReadiContext, input_schema=ReadiInput, output_schema=ReadiOutput
    )
    nodes: list[tuple[str, Any, RetryPolicy]] = [  # (name, node function, retry policy)
        ("generate", make_generate(adapter, model), llm_policy),
        ("bind", make_bind(adapter), env_policy),
        ("connect", make_connect(adapter), env_policy),
        ("diagnose", make_diagnose(adapter), env_policy),
        ("edit", make_edit(adapter, model), llm_policy),
        ("answer", make_answer(adapter, model), llm_policy),
    ]
    describe = strategies.get("readi").describer()
    add_nodes(builder, nodes, environment, describe, native=adapter.native_async)
    builder.add_edge(START, "generate")
    builder.add_edge("generate", "bind")
    builder.add_edge("bind", "connect")
    builder.add_edge("connect", "diagnose")
    builder.add_conditional_edges("diagnose", route_after_diagnose)
    builder.add_edge("edit", "bind")
    builder.add_edge("answer", END)
    return builder


def calls_bound(context: Any, topics: int) -> int:
    """The most model calls one question can make: the plan (`generate`), at most `max_edits`
    edits (`route_after_diagnose`), at most one answer (none without evidence), whatever
    the number of topic entities (they share one path per call)."""
    return 2 + settings_of(context, ReadiContext).max_edits
