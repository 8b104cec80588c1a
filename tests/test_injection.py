"""Hostile model output against the embedded store, Virtuoso and DuckDB (tests/hostile.py).

For every string of the corpus, as an entity name, a relation name, a header and a row
constraint: every query that is sent is captured and must be a read (SELECT/ASK) with no
federated SERVICE call, the string may only arrive as a literal/parameter (or be refused with a
typed error), and the stores are unchanged afterwards.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile import CORPUS
from rdflib import Literal, URIRef
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery

from readi_graph.core import markers
from readi_graph.core.base import ReadiError, Term
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.table.table import Table
from readi_graph.graph import build_graph

from fakes import path, routed

ZWICK = Term.iri("urn:readi:metaqa:entity:Joel%20Zwick")
DIRECTED_BY = "urn:readi:metaqa:relation:directed_by"
EVIL_FILES = [Path("/tmp/readi_pwned.csv"), Path("/tmp/readi_evil.db")]


class Recorder:
    """Wraps a store backend and keeps every query sent to it."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.queries: list[str] = []

    def select(self, query: str) -> Any:
        self.queries.append(query)
        return self.backend.select(query)

    def ask(self, query: str) -> Any:
        self.queries.append(query)
        return self.backend.ask(query)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)


def _walk(node: Any) -> Iterator[Any]:
    yield node
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _walk(value)
    elif isinstance(node, list | tuple | set):
        for value in node:
            yield from _walk(value)
    elif hasattr(node, "name") and hasattr(node, "items"):  # rdflib CompValue
        yield node.name
        for value in node.values():
            yield from _walk(value)


def check_read_only(query: str) -> set[str]:
    """Parse `query` (SPARQL 1.1): a SELECT/ASK without SERVICE; returns its literal values."""
    parsed = parseQuery(query)
    assert parsed[1].name in ("SelectQuery", "AskQuery"), query[:200]
    algebra = translateQuery(parsed).algebra
    nodes = list(_walk(algebra))
    assert "ServiceGraphPattern" not in nodes and not any(
        type(n) is str and n.lower().startswith("service") for n in nodes
    ), query[:200]
    for n in nodes:  # an IRI is a name to match, never fetched (no FROM, LOAD or SERVICE)
        if isinstance(n, URIRef):
            assert not set(str(n)) & set(' <>"{}|^`\\'), str(n)
    return {str(n) for n in nodes if isinstance(n, Literal)}


@pytest.fixture
def recorded(metaqa_kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder(metaqa_kg.backend)
    monkeypatch.setattr(metaqa_kg, "backend", recorder)
    return recorder


def test_the_corpus_reaches_the_embedded_store_only_as_literals(
    metaqa_kg: KnowledgeGraph, recorded: Recorder
) -> None:
    size = len(recorded.backend.store)
    refused = arrived = 0
    for s in CORPUS:
        before = len(recorded.queries)
        resolution = metaqa_kg.resolve(s)
        # at most the real name inside the payload is found, never anything the payload built
        assert set(resolution.nodes) <= {ZWICK}, s[:80]
        for query in recorded.queries[before:]:
            literals = check_read_only(query)
            if s.strip() and query.lstrip().upper().startswith("SELECT DISTINCT ?X"):
                arrived += s in literals  # the lookup carried the string as a literal, intact
        try:  # as a node IRI: refused unless it is a well-formed IRI
            metaqa_kg.expand([Term.iri(s)], [DIRECTED_BY], [])
        except ReadiError:
            refused += 1
        metaqa_kg.expand([ZWICK], [s], [s])  # as relations: unsafe ones are dropped unsent
        metaqa_kg.relation_index.search(s)  # binding never queries the store
        metaqa_kg.relations_around([Term.literal(s)])
    for query in recorded.queries:
        check_read_only(query)
    assert len(recorded.backend.store) == size
    print(f"hostile strings: {len(CORPUS)}, queries checked: {len(recorded.queries)}, "
          f"refused as IRIs: {refused}, carried intact as literals: {arrived}")  # fmt: skip
    assert refused > 150 and arrived > 150


ZWICK_FILM = ["My Big Fat Greek Wedding", "directed_by", "Joel Zwick"]  # his one film in the KB


def test_the_corpus_as_model_output_through_the_graph(
    metaqa_kg: KnowledgeGraph, recorded: Recorder
) -> None:
    """Each string as a topic entity and a relation of the model's path: the run ends as
    the KB says it must, never as an environment failure."""
    size = len(recorded.backend.store)
    outcomes: Counter[str] = Counter()
    for s in CORPUS[::3]:
        topic = s if s.strip() else "Joel Zwick"
        model = routed(path({topic: [f"{topic} -> {s} -> directed_by"]}), "{x}", edit="{}")
        result = build_graph(metaqa_kg, model).invoke(
            {"question": f"what about [{topic}]", "topic_entities": [topic]},
            context={"max_edits": 1, "max_question_chars": 20_000},  # the 5,000-char string
        )
        asked_to_answer = any(markers.ANSWER_ONLY_FROM in p for p in model.prompts)
        assert result.get("error") is None, s[:80]  # no environment failure
        assert result["grounded"] is False, s[:80]  # "x" names nothing in the KB
        if not metaqa_kg.resolve(topic).found:
            outcome = "unknown topic: no evidence, no answer call"
            assert result["answer"].startswith("The knowledge graph gave no evidence"), s[:80]
        elif result["evidence"]:
            outcome = "Zwick's film found, the model asked"
            assert result["evidence"] == [ZWICK_FILM] and result["answers"] == ["x"], s[:80]
        else:
            outcome = "Zwick found, path stuck, edit unreadable"
            assert result["edits"] == 1, s[:80]
        if not result["evidence"]:
            assert result["answers"] == [] and not asked_to_answer, s[:80]
        outcomes[outcome] += 1
    # The only topics of this third of the corpus that resolve: "" (the test asks about Joel
    # Zwick instead) and " Joel Zwick" (whose path walks the relation "Joel Zwick": stuck).
    # Quoted or bracketed, the name is no name of the KB.
    assert outcomes == {
        "unknown topic: no evidence, no answer call": len(CORPUS[::3]) - 2,
        "Zwick's film found, the model asked": 1,
        "Zwick found, path stuck, edit unreadable": 1,
    }
    for query in recorded.queries:
        check_read_only(query)
    assert len(recorded.backend.store) == size


def _graph_count(virtuoso: Any) -> int:
    import httpx

    query = "SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
    reply = httpx.post(virtuoso.endpoint, data={"query": query},
                       headers={"Accept": "application/sparql-results+json"}, timeout=60)  # fmt: skip
    return int(reply.json()["results"]["bindings"][0]["n"]["value"])


def test_the_corpus_reaches_virtuoso_only_as_literals(
    virtuoso: Any, virtuoso_kg: KnowledgeGraph
) -> None:
    from test_virtuoso import triple_count

    before = triple_count(virtuoso)
    graphs = _graph_count(virtuoso)
    rejected = 0
    for s in CORPUS:
        try:
            assert set(virtuoso_kg.resolve(s).nodes) <= {ZWICK}, s[:80]
            virtuoso_kg.expand([ZWICK], [s], [s])  # unsafe relations are dropped unsent
            virtuoso_kg.expand([Term.iri(s)], [DIRECTED_BY], [])
        except ReadiError:  # refused before sending, or a typed rejection by the endpoint
            rejected += 1
    assert triple_count(virtuoso) == before
    assert _graph_count(virtuoso) == graphs  # no graph created or dropped
    print(f"virtuoso: {len(CORPUS)} hostile strings, {rejected} refused with a typed error")
    assert rejected > 150


def test_the_corpus_reaches_duckdb_only_as_parameters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pandas as pd

    for f in EVIL_FILES:
        f.unlink(missing_ok=True)
    strings = [s for s in CORPUS if "\x00" not in s]  # a NUL cannot be a DataFrame header
    frame = pd.DataFrame({s: ["a", s] for s in strings[:120]})
    table = Table.from_dataframe(frame)
    sent: list[str] = []
    original = table._query

    def capture(sql: str, params: Any = ()) -> Any:
        sent.append(sql)
        return original(sql, params)

    monkeypatch.setattr(table, "_query", capture)
    for s in CORPUS:
        column = table.column(s) or table.columns[0]
        for how in ("exact", "normalized", "fuzzy"):
            table.rows([column], [(column, [s], how)])  # type: ignore[list-item]
    for sql in sent:
        assert sql.lstrip().upper().startswith(("SELECT", "WITH")), sql
        for s in CORPUS:
            if len(s.strip()) >= 4:
                assert s not in sql, (s[:60], sql[:200])
    assert table.n_rows == 2 and not any(f.exists() for f in EVIL_FILES)
    assert original("SELECT current_setting('enable_external_access')")[0][0] is False


def test_the_corpus_as_table_plans_through_the_graph(tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("Name,Score\nAnn,3\nBob,4\n", encoding="utf-8")
    table = Table.from_csv(csv)
    for s in CORPUS[::4]:
        plan = f"Chosen Headers: {json.dumps([s, 'Score'])}\nConstraints: {json.dumps({s: [s]})}"
        model = routed("", 'Answer: ["3"]')
        model.replies = {"from a table": plan, "could not": plan, "Answer": 'Answer: ["3"]'}
        result = build_graph(table, model).invoke({"question": "what?"}, context={"max_edits": 1})
        # the string names no header: one edit (the same plan), then the answer from the one
        # column it did name, every row (its constraint was on the missing header)
        assert result.get("error") is None and result["edits"] == 1, s[:80]
        assert result["usage"]["llm_calls"] == 3, s[:80]
        assert result["evidence"] == [["Score"], ["3"], ["4"]], s[:80]
        assert result["answers"] == ["3"] and result["grounded"], s[:80]
    assert table.n_rows == 2 and not any(f.exists() for f in EVIL_FILES)
