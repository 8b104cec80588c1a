"""The registry of datasets: `readi eval <name>` is built from it.

Each dataset names its loader, its scorer, its gold planner where one exists (paths from the
gold data, no model), and the function that adds its own command-line arguments and sets the
command it runs. Adding a dataset is a module of its own plus one `register(Dataset(...))`.
References are `"module:attribute"` strings, imported when used (the CLI lists every dataset
without importing them all).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from readi_graph.strategies import resolve


@dataclass(frozen=True)
class Dataset:
    name: str
    help: str
    split: str  # the default split
    cli: str | Callable[[Any], None]  # (argparse parser) -> None: its arguments and `func`
    loader: str
    scorer: str
    gold: str | None = None  # the gold planner, where the dataset has gold paths

    def add_arguments(self, parser: Any) -> None:
        resolve(self.cli)(parser)


DATASETS: dict[str, Dataset] = {}


def register(dataset: Dataset) -> Dataset:
    DATASETS[dataset.name] = dataset
    return dataset


register(
    Dataset(
        "metaqa",
        "MetaQA (official layout: kb.txt, N-hop/...)",
        "dev",
        cli="readi_graph.cli.evaluate_metaqa:add_arguments",
        loader="readi_graph.datasets.metaqa:load_questions",
        scorer="readi_graph.eval.metrics:kgqa_scores",
        gold="readi_graph.datasets.metaqa:gold_path",
    )
)
register(
    Dataset(
        "wtq",
        "WikiTableQuestions with a chat model",
        "training",
        cli="readi_graph.cli.evaluate_wtq:add_arguments",
        loader="readi_graph.datasets.wtq:load_questions",
        scorer="readi_graph.datasets.wtq:denotation_correct",
    )
)
register(
    Dataset(
        "webqsp",
        "WebQSP (official JSON) over Freebase",
        "test",
        cli="readi_graph.cli.evaluate_freebase:add_webqsp_arguments",
        loader="readi_graph.datasets.freebase:load_webqsp",
        scorer="readi_graph.eval.metrics:kgqa_scores",
        gold="readi_graph.cli.evaluate_freebase:webqsp_gold",
    )
)
register(
    Dataset(
        "cwq",
        "ComplexWebQuestions (official JSON) over Freebase",
        "dev",
        cli="readi_graph.cli.evaluate_freebase:add_cwq_arguments",
        loader="readi_graph.datasets.freebase:load_cwq",
        scorer="readi_graph.eval.metrics:kgqa_scores",
    )
)
