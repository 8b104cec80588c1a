"""`build_graph`: any registered strategy over any environment, by name.

The one entry point users, the CLI, Studio (`graphs/`) and the eval runner share: it looks the
strategy up in `readi_graph.strategies`, checks that it searches this kind of environment, and
compiles its builder with the caller's checkpointer and cache.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from readi_graph import strategies
from readi_graph.core.context import ReadiContext
from readi_graph.core.state import ReadiInput, ReadiOutput
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.table.table import Table


def build_graph(
    env: KnowledgeGraph | Table,
    llm: BaseChatModel | str | None = None,
    *,
    checkpointer: Any = None,
    cache: Any = None,
    context: ReadiContext | None = None,
    name: str | None = None,
    strategy: str = "readi",
    **options: Any,
) -> CompiledStateGraph[Any, Any, ReadiInput, ReadiOutput]:
    """Compile a strategy's graph over a KG or a table. `llm` is any LangChain chat model, a
    model name (`"local"`: the bundled local model; a name nothing serves raises
    `ModelNotConfigured` at the first call), or None: the run's or `READI_MODEL`'s name, else
    ChatOpenAI (gpt-4o-mini) from the environment, else the bundled model, said in the
    output's notes (`core/models/choice.py`).

    `strategy` names a registered strategy (`readi_graph.strategies.names()`): "readi" (the
    default; KGs and tables), "fidelis" (the FiDeLiS beam search; KGs) or "tog"
    (Think-on-Graph; KGs), with the same input, output and usage. `checkpointer` and `cache`
    pass through to `compile`; `context` sets the defaults used to build the default model
    (per-run settings go to `invoke(..., context=ReadiContext(...))`);
    `reply_cache=ReplyCache(path)` answers repeated prompts from disk (counted as
    `cached_calls`, not `llm_calls`).
    """
    chosen = strategies.get(strategy, environment_kind(env))
    builder = chosen.make_builder()(env, llm, context=context, **options)
    compiled: CompiledStateGraph[Any, Any, ReadiInput, ReadiOutput] = builder.compile(
        checkpointer=checkpointer, cache=cache, name=name or chosen.name
    )
    return compiled


def environment_kind(env: object) -> str:
    """ "kg" or "table": what a strategy must be able to search."""
    if isinstance(env, KnowledgeGraph):
        return "kg"
    if isinstance(env, Table):
        return "table"
    raise TypeError(f"not an environment: {type(env).__name__} (a KnowledgeGraph or a Table)")
