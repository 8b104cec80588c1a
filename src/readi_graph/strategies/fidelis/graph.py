"""Wiring: START -> plan -> expand -> (select -> verify -> (expand | reason) | reason) -> END.

Same input, output, context and `usage` as the Readi graph, so the two strategies are compared
on the same questions with the same counters. The depth budget lives in state (`depth`).
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
from readi_graph.core.state import ReadiInput, ReadiOutput, Record, RunState
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.strategies.fidelis.context import FidelisContext
from readi_graph.strategies.fidelis.nodes import (
    make_expand,
    make_plan,
    make_reason,
    make_select,
    make_verify,
    route_after_expand,
    route_after_verify,
)


class FidelisState(RunState, total=False):
    plan: Record  # keywords, steps, statement (the planning call)
    beams: list[Record]  # active reasoning paths (see fidelis/beams.py)
    candidates: list[Record]  # the beams extended by one Path-RAG step, best first
    finished: list[Record]  # paths the verifier accepted
    depth: int  # search steps taken (attempts holds one record per step)


def make_fidelis_builder(
    kg: KnowledgeGraph,
    llm: BaseChatModel | str | None = None,
    *,
    context: RunContext | None = None,
    reply_cache: ReplyCache | None = None,
    llm_retries: int = 3,
    env_retries: int = 2,
) -> StateGraph[FidelisState, FidelisContext, ReadiInput, ReadiOutput]:
    """The FiDeLiS search over a KG, not yet compiled."""
    if not isinstance(kg, KnowledgeGraph):
        raise TypeError("FiDeLiS searches knowledge graphs; use strategy='readi' for tables")
    labels = {"strategy": "fidelis", "environment": "kg"}
    model = ModelRef(llm, context or FidelisContext(), reply_cache, labels=labels)
    llm_policy, env_policy = retry_policies(llm_retries, env_retries)
    builder = StateGraph(
        FidelisState,
        context_schema=FidelisContext,
        input_schema=ReadiInput,
        output_schema=ReadiOutput,
    )
    nodes: list[tuple[str, Any, RetryPolicy]] = [
        ("plan", make_plan(kg, model), llm_policy),
        ("expand", make_expand(kg), env_policy),
        ("select", make_select(model), llm_policy),
        ("verify", make_verify(model), llm_policy),
        ("reason", make_reason(kg, model), llm_policy),
    ]
    describe = strategies.get("fidelis").describer()
    add_nodes(builder, nodes, "kg", describe, native=kg.native_async)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "expand")
    builder.add_conditional_edges("expand", route_after_expand)
    builder.add_edge("select", "verify")
    builder.add_conditional_edges("verify", route_after_verify)
    builder.add_edge("reason", END)
    return builder


def build_fidelis_graph(
    kg: KnowledgeGraph,
    llm: BaseChatModel | str | None = None,
    *,
    checkpointer: Any = None,
    cache: Any = None,
    name: str = "fidelis",
    **options: Any,
) -> CompiledStateGraph[FidelisState, FidelisContext, ReadiInput, ReadiOutput]:
    """Compile the FiDeLiS graph (Path-RAG + deductive-verification beam search)."""
    builder = make_fidelis_builder(kg, llm, **options)
    return builder.compile(checkpointer=checkpointer, cache=cache, name=name)
