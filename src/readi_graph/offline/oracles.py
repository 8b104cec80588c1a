"""Which offline model drives which strategy on MetaQA, when no LLM is given.

Readi is driven by the offline planners and the oracle editor (`readi.py`, with its
own `--planner` / `--editor` settings); every other strategy that can run offline has one
oracle here, a chat model that plays that strategy's prompts from the gold relation chain of
each question and never sees its answers. Each is a `"module:Class"` whose class has
`over(questions)`. A strategy registered with `offline=True` needs an entry here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.language_models import BaseChatModel

from readi_graph.datasets.metaqa import MetaQAQuestion
from readi_graph.strategies import resolve

ORACLES: dict[str, str] = {
    "fidelis": "readi_graph.offline.fidelis:FidelisOracle",
    "tog": "readi_graph.offline.tog:TogOracle",
}


def oracle(strategy: str, questions: Iterable[MetaQAQuestion], **options: Any) -> BaseChatModel:
    """The oracle that drives `strategy` over these questions (KeyError: it has none);
    `options` go to its `over` (ToG's: `keep`)."""
    model: BaseChatModel = resolve(ORACLES[strategy]).over(questions, **options)
    return model
