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
    kinds it searches ("kg", "table"). `offline`: `readi eval metaqa`'s offline planners,
    which script Readi's prompts, can drive it.
    """

    name: str
    builder: str | Callable[..., Any]
    state: str | type
    context: str | type
    describe: str | Describe
    environments: tuple[str, ...] = ("kg",)
    description: str = ""
    offline: bool = False

    def make_builder(self) -> Callable[..., Any]:
        made: Callable[..., Any] = resolve(self.builder)
        return made

    def describer(self) -> Describe:
        made: Describe = resolve(self.describe)
        return made


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
    )
)
register(
    Strategy(
        "tog",
        builder="readi_graph.strategies.tog.graph:make_tog_builder",
        state="readi_graph.strategies.tog.graph:TogState",
        context="readi_graph.strategies.tog.context:TogContext",
        describe="readi_graph.strategies.tog.describe:describe",
        environments=("kg",),
        description="Think-on-Graph: the model prunes relations and entities depth by depth "
        "and judges when the triples found are enough",
    )
)
