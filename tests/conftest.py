"""Shared fixtures: the real MetaQA KB from ../shared/data, and a throw-away Virtuoso."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph
from readi_graph.environments.kg.store.local import metaqa_ntriples

from servers import Virtuoso, start_virtuoso, virtuoso_available

# Property tests: `ci` (the default) keeps the suite fast; READI_HYPOTHESIS=slow runs >= 10,000
# examples per property.
settings.register_profile("ci", max_examples=300, deadline=None, derandomize=True)
settings.register_profile("slow", max_examples=10_000, deadline=None)
# scripts/mutation.sh: each surviving mutant reruns the tests that reach it; fewer examples
settings.register_profile("mutation", max_examples=60, deadline=None, derandomize=True)
settings.load_profile(os.environ.get("READI_HYPOTHESIS", "ci"))

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("READI_SHARED_DATA", ROOT.parent / "shared" / "data"))
FIXTURES = Path(__file__).parent / "fixtures"
METAQA_GRAPH = "urn:readi:test:metaqa"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared data directory sits beside the project)")
    return path


@pytest.fixture(autouse=True)
def _private_reply_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own reply cache: a reply cached by one test must not answer another."""
    monkeypatch.setenv("READI_REPLY_CACHE", str(tmp_path / "replies.sqlite"))


@pytest.fixture(scope="session")
def metaqa_dir() -> Path:
    return _need(SHARED_DATA / "metaqa")


@pytest.fixture(scope="session")
def freebase_dir() -> Path:
    return _need(SHARED_DATA / "freebase")


@pytest.fixture(scope="session")
def demo() -> KnowledgeGraph:
    from readi_graph.demo import demo_kg

    return demo_kg()


@pytest.fixture(scope="session")
def metaqa_kg(metaqa_dir: Path) -> KnowledgeGraph:
    return KnowledgeGraph.from_metaqa(metaqa_dir / "kb.txt")


@pytest.fixture(scope="session")
def freebase_mini() -> KnowledgeGraph:
    """A hand-made Freebase-style KG with CVT (compound) nodes."""
    from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS

    return KnowledgeGraph.from_file(
        FIXTURES / "freebase_mini.ttl", KGSettings(entity_namespace=FREEBASE_NS)
    )


@pytest.fixture(scope="session")
def virtuoso(metaqa_dir: Path) -> Iterator[Virtuoso]:
    """Virtuoso with the MetaQA KB loaded in a named graph. CI must have it: no silent skip."""
    if not virtuoso_available():
        if os.environ.get("CI"):
            pytest.fail("CI needs virtuoso-opensource (installed by .ci/run)")
        pytest.skip("virtuoso-opensource is not installed (apt-get install virtuoso-opensource)")
    server = start_virtuoso()
    try:
        server.load_ntriples(metaqa_ntriples(metaqa_dir / "kb.txt"), METAQA_GRAPH)
        yield server
    finally:
        server.stop()


FREEBASE_GRAPH = "urn:readi:test:freebase"


@pytest.fixture(scope="session")
def virtuoso_freebase(virtuoso: Virtuoso) -> str:
    """The Freebase-style fixture KG in its own named graph of the test Virtuoso."""
    import rdflib

    data = rdflib.Graph().parse(FIXTURES / "freebase_mini.ttl").serialize(format="nt")
    virtuoso.load_ntriples(data.encode(), FREEBASE_GRAPH, name="freebase_mini.nt")
    return FREEBASE_GRAPH


@pytest.fixture(scope="session")
def virtuoso_kg(virtuoso: Virtuoso) -> KnowledgeGraph:
    return KnowledgeGraph.from_endpoint(virtuoso.endpoint, default_graph=METAQA_GRAPH)
