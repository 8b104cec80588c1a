"""Old module paths, still importable: each warns and gives the module at its new place.

The layout of docs/architecture.md moved modules into rooms (issue 32); code that imports a
module by its old path (`readi_graph.environments.kg.instantiation`) keeps working for now and
gets a `DeprecationWarning` naming the new path. Generated from the relayout mapping
(relayout: keep): the old paths below are on purpose.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

_MOVES = {  # old -> new, under readi_graph.
    "core.bridge": "core.run.bridge",
    "core.counting": "core.run.counting",
    "core.llm": "core.models.llm",
    "core.llm_cache": "core.models.reply_cache",
    "core.local_chat": "core.local.chat",
    "core.local_child": "core.local.child",
    "core.local_model": "core.local.model",
    "core.local_server": "core.local.server",
    "core.nodes": "core.run.nodes",
    "core.progress": "core.run.progress",
    "core.tokens": "core.models.tokens",
    "datasets.metaqa_fidelis": "offline.fidelis",
    "datasets.metaqa_gold": "offline.gold",
    "datasets.metaqa_offline": "offline.readi",
    "datasets.metaqa_oracle": "offline.editors",
    "datasets.metaqa_oracles": "offline.oracles",
    "datasets.metaqa_tog": "offline.tog",
    "datasets.scripted_answer": "offline.scripted_answer",
    "environments.kg.adapter": "environments.kg.reasoning.adapter",
    "environments.kg.binding": "environments.kg.relations.binding",
    "environments.kg.diagnosis": "environments.kg.reasoning.diagnosis",
    "environments.kg.dump_filter": "datasets.freebase_dump.filter",
    "environments.kg.dump_hops": "datasets.freebase_dump.hops",
    "environments.kg.dump_lines": "datasets.freebase_dump.lines",
    "environments.kg.dump_streams": "datasets.freebase_dump.streams",
    "environments.kg.edges": "environments.kg.store.edges",
    "environments.kg.encoder": "environments.kg.relations.encoder",
    "environments.kg.endpoint": "environments.kg.store.endpoint",
    "environments.kg.freebase_dump": "datasets.freebase_dump.run",
    "environments.kg.instantiation": "environments.kg.reasoning.instantiation",
    "environments.kg.linking": "environments.kg.entities.linking",
    "environments.kg.local": "environments.kg.store.local",
    "environments.kg.names": "environments.kg.entities.names",
    "environments.kg.parsing": "environments.kg.reasoning.parsing",
    "environments.kg.paths": "environments.kg.relations.paths",
    "environments.kg.reads": "environments.kg.store.reads",
    "environments.kg.records": "environments.kg.reasoning.records",
    "environments.kg.render": "environments.kg.reasoning.render",
    "environments.kg.retrieval": "environments.kg.relations.retrieval",
    "environments.kg.schema": "environments.kg.relations.schema",
    "environments.kg.settings": "environments.kg.store.settings",
    "environments.kg.sparql": "environments.kg.store.sparql",
    "environments.kg.topics": "environments.kg.reasoning.topics",
    "environments.kg.vocabulary": "environments.kg.store.vocabulary",
    "eval.analyses": "bench.analyses",
    "eval.binding_real": "bench.binding_real",
    "eval.binding_recall": "bench.binding_recall",
    "eval.linking": "bench.entity_linking",
    "eval.offline": "eval.instance_ends",
    "eval.replay": "bench.replay",
    "eval.subgraph_pathrag": "bench.subgraph_pathrag",
    "eval.subgraph_replay": "bench.subgraph_replay",
    "eval.synthetic": "bench.synthetic",
}
MOVED: dict[str, str] = {f"readi_graph.{o}": f"readi_graph.{n}" for o, n in _MOVES.items()}


class _OldPaths(MetaPathFinder, Loader):
    """Finds an old path (after the real finders failed) and loads the module at its new one."""

    def __init__(self) -> None:
        self._specs: dict[str, ModuleSpec | None] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        return ModuleSpec(fullname, self) if fullname in MOVED else None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}: import it from there",
            DeprecationWarning,
            stacklevel=2,  # the import statement (warnings skips importlib's own frames)
        )
        module = importlib.import_module(new)
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system gave the module the old name's spec: give it its own back.
        old = module.__spec__.name if module.__spec__ else ""
        if old in self._specs:
            module.__spec__ = self._specs.pop(old)


def install() -> None:
    """Put the finder last on `sys.meta_path` (once)."""
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.append(_OldPaths())
