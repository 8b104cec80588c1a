"""The registry of strategies: every place that offers a choice of strategy reads it.

A strategy is a LangGraph workflow over an environment: Readi (reasoning-path editing),
FiDeLiS (Path-RAG + deductive-verification beam search) and Think-on-Graph (ToG) are
registered here. `build_graph`,
the CLI's `--strategy` choices, `readi eval` and the progress lines all look strategies up by
name, so adding one is a package of its own plus one `register(Strategy(...))` call.

Builders, states, contexts and describers are named as `"module:attribute"` and imported when
first used, so importing the registry stays cheap and free of cycles.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from readi_graph.core.base import ReadiError

Update = dict[str, Any]
Describe = Callable[[str, Update, str], str]  # (node, its update, environment kind) -> a line


class UnknownStrategy(ReadiError, ValueError):
    """No strategy of that name is registered, or it does not search this environment."""


@dataclass(frozen=True)
class Strategy:
    """One strategy. References are `"module:attribute"` strings or the objects themselves.

    `builder(env, llm, *, context, reply_cache, **options)` returns the uncompiled
    `StateGraph` (callers choose the checkpointer). `state` and `context` are its state and
    run-context types. `describe(node, update, environment)` turns a node's update into the
    progress line streamed to people watching (`progress.reporting`). `environments` are the
    kinds it searches ("kg", "table"). `offline`: `readi eval metaqa` can drive it without a
    model (Readi: the offline planners and the oracle editor; FiDeLiS and ToG: their
    gold-chain oracles, `offline/oracles.py`). `calls_bound(context, topics)`: the
    most model calls one question can make under that run context with that many topic
    entities, which `readi eval --strategy a,b` checks every question against
    (`eval/ledger.py`); `calls_formula` says how it is counted.
    """

    name: str
    builder: str | Callable[..., Any]
    state: str | type
    context: str | type
    describe: str | Describe
    environments: tuple[str, ...] = ("kg",)
    description: str = ""
    offline: bool = False
    calls_bound: str | Callable[[Any, int], int] | None = None
    calls_formula: str = ""

    def make_builder(self) -> Callable[..., Any]:
        made: Callable[..., Any] = resolve(self.builder)
        return made

    def describer(self) -> Describe:
        made: Describe = resolve(self.describe)
        return made

    def bound(self, context: Any, topics: int) -> int | None:
        """`calls_bound` for one question (None when the strategy registered none)."""
        return None if self.calls_bound is None else int(resolve(self.calls_bound)(context, topics))


def resolve(reference: Any) -> Any:
    """`"module:attribute"` imported, anything else as it is."""
    if not isinstance(reference, str):
        return reference
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


STRATEGIES: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    """Add (or replace) a strategy under its name."""
    STRATEGIES[strategy.name] = strategy
    return strategy


def get(name: str, environment: str | None = None) -> Strategy:
    """The strategy called `name`; with `environment`, one that searches that kind."""
    try:
        strategy = STRATEGIES[name]
    except KeyError:
        known = ", ".join(repr(n) for n in STRATEGIES)
        raise UnknownStrategy(f"unknown strategy {name!r}: one of {known}") from None
    if environment is not None and environment not in strategy.environments:
        able = [s.name for s in STRATEGIES.values() if environment in s.environments]
        raise UnknownStrategy(
            f"strategy {name!r} does not search a {environment}; these do: {', '.join(able)}"
        )
    return strategy


def names(environment: str | None = None) -> list[str]:
    return [s.name for s in STRATEGIES.values() if environment in (None, *s.environments)]


register(
    Strategy(
        "readi",
        builder="readi_graph.strategies.readi.graph:make_builder",
        state="readi_graph.core.state:ReadiState",
        context="readi_graph.core.context:ReadiContext",
        describe="readi_graph.strategies.readi.nodes.describe:describe",
        environments=("kg", "table"),
        description="Readi: the model writes a whole path, edited only when it does not "
        "instantiate",
        offline=True,
        calls_bound="readi_graph.strategies.readi.graph:calls_bound",
        calls_formula="1 plan + E edits + 1 answer (E = max_edits)",
    )
)
register(
    Strategy(
        "fidelis",
        builder="readi_graph.strategies.fidelis.graph:make_fidelis_builder",
        state="readi_graph.strategies.fidelis.graph:FidelisState",
        context="readi_graph.strategies.fidelis.context:FidelisContext",
        describe="readi_graph.strategies.fidelis.describe:describe",
        environments=("kg",),
        description="FiDeLiS: Path-RAG retrieval and a deductive-verification beam search",
        offline=True,
        calls_bound="readi_graph.strategies.fidelis.context:calls_bound",
        calls_formula="1 plan + D x (1 selection + N verifications) + 1 answer = N·D + D + 2 "
        "(N = beam_width, D = beam_depth)",
    )
)
register(
    Strategy(
        "tog",
        builder="readi_graph.strategies.tog.graph:make_tog_builder",
        state="readi_graph.strategies.tog.state:TogState",
        context="readi_graph.strategies.tog.context:TogContext",
        describe="readi_graph.strategies.tog.describe:describe",
        environments=("kg",),
        description="Think-on-Graph: the model prunes relations and entities depth by depth "
        "and judges when the triples found are enough",
        offline=True,
        calls_bound="readi_graph.strategies.tog.context:calls_bound",
        calls_formula="per depth 1 relation call per frontier entity + 1 entity call per kept "
        "(entity, relation) + 1 sufficiency call; 1 answer: (1+W)(T0+(D-1)W) + D + 1 "
        "(W = width, D = depth, T0 = topic entities)",
    )
)
