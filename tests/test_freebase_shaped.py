"""The Freebase-shaped KG generator (benchmarks/freebase_shaped.py) on a small graph: the same
seed gives the same bytes, and every gold answer is what an independent store (pyoxigraph,
loading the written files) returns for the question's path."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fbshape.schema import is_cvt_name
from freebase_shaped import generate

from servers import Virtuoso

NS = "http://rdf.freebase.com/ns/"
SMALL: dict[str, Any] = {"triples": 20_000, "questions_per_hop": 60, "per_file": 8_000}


def digest(out: Path) -> str:
    h = hashlib.sha256()
    for f in [*sorted(out.glob("kb-*.nt.gz")), out / "questions.jsonl"]:
        h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory, freebase_dir: Path) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("fb")
    return out, generate(out, seed=0, **SMALL)


@pytest.fixture(scope="module")
def store(small: tuple[Path, dict]) -> ox.Store:
    store = ox.Store()
    for f in sorted(small[0].glob("kb-*.nt.gz")):
        store.bulk_load(gzip.decompress(f.read_bytes()), ox.RdfFormat.N_TRIPLES)
    return store


def select(store: ox.Store, query: str) -> list[str]:
    return [str(row[0]) for row in store.query(query)]


def test_size_files_and_determinism(small: tuple[Path, dict], tmp_path: Path) -> None:
    out, stats = small
    assert SMALL["triples"] <= stats["triples"] < SMALL["triples"] * 1.05
    assert len(stats["files"]) == 3  # 8,000 lines a file, cut at 100,000-line chunks or less
    assert generate(tmp_path / "again", seed=0, **SMALL)["triples"] == stats["triples"]
    assert digest(tmp_path / "again") == digest(out)
    generate(tmp_path / "other", seed=1, **SMALL)
    assert digest(tmp_path / "other") != digest(out)


def test_every_triple_is_distinct(small: tuple[Path, dict], store: ox.Store) -> None:
    assert len(store) == small[1]["triples"]


def path_query(q: dict) -> str:
    """SELECT the ends of the question's relations, walked from its topic."""
    patterns, here = [], f"<{q['topic']}>"
    for i, (relation, direction) in enumerate(q["relations"]):
        there = "?x" if i == len(q["relations"]) - 1 else f"?v{i}"
        s, o = (here, there) if direction == "forward" else (there, here)
        patterns.append(f"{s} <{relation}> {o} .")
        here = there
    return "SELECT DISTINCT ?x WHERE { " + " ".join(patterns) + " }"


def test_gold_answers_are_what_the_store_walks_to(
    small: tuple[Path, dict], store: ox.Store
) -> None:
    questions = [json.loads(line) for line in (small[0] / "questions.jsonl").open()]
    assert len(questions) >= 150
    for q in questions:
        assert sorted(select(store, path_query(q))) == q["answers"], q["id"]  # no repeats either
        name = f'"{q["topic_name"]}"@en'
        assert select(store, f"SELECT ?n WHERE {{ <{q['topic']}> <{NS}type.object.name> ?n }}") == [
            name
        ]
    for hops in (1, 2, 3):
        asked = [q for q in questions if q["hops"] == hops]
        assert len(asked) >= 40 and any(q["through_hub"] for q in asked)
        assert hops == 1 or any(q["through_cvt"] for q in asked)
    assert any(a.startswith('"') for q in questions for a in q["answers"])  # literal answers


def test_literals_of_each_kind(store: ox.Store) -> None:
    for datatype in ("date", "gYear", "float", "integer", "boolean"):
        xsd = f"<http://www.w3.org/2001/XMLSchema#{datatype}>"
        assert store.query(f"ASK {{ ?s ?p ?o FILTER(DATATYPE(?o) = {xsd}) }}"), datatype
    text = f'ASK {{ ?s ?p ?o FILTER(LANG(?o) = "en" && ?p != <{NS}type.object.name>) }}'
    assert store.query(text)


def test_cvts_have_no_name_and_entities_one(small: tuple[Path, dict], store: ox.Store) -> None:
    stats = small[1]
    types = select(store, f"SELECT DISTINCT ?t WHERE {{ ?e <{NS}type.object.type> ?t }}")
    cvt_types = [t for t in types if is_cvt_name(t[len(NS) + 1 : -1])]
    assert len(cvt_types) >= 10
    values = " ".join(cvt_types)
    cvts = select(
        store,
        f"SELECT DISTINCT ?c WHERE {{ VALUES ?t {{ {values} }} ?c <{NS}type.object.type> ?t }}",
    )
    assert len(cvts) == stats["cvts"]
    named = select(
        store,
        f"SELECT ?c WHERE {{ VALUES ?t {{ {values} }} ?c <{NS}type.object.type> ?t . ?c <{NS}type.object.name> ?n }}",
    )
    assert named == []
    dated = f"<{NS}measurement_unit.dated_integer>"
    assert count(store, f"?c <{NS}type.object.type> {dated}") >= 5
    shared = f"SELECT ?c WHERE {{ ?c <{NS}type.object.type> {dated} . ?s ?p ?c }} GROUP BY ?c HAVING (COUNT(?s) > 1)"
    assert select(store, shared) == []  # a population figure belongs to one place
    names = select(store, f"SELECT (COUNT(*) AS ?n) WHERE {{ ?e <{NS}type.object.name> ?name }}")
    assert names == [f'"{stats["entities"]}"^^<http://www.w3.org/2001/XMLSchema#integer>']
    shared = select(
        store,
        f"SELECT ?name WHERE {{ ?e <{NS}type.object.name> ?name }} GROUP BY ?name HAVING (COUNT(?e) > 1)",
    )
    assert len(shared) >= 20  # homonyms


def count(store: ox.Store, pattern: str) -> int:
    return int(select(store, f"SELECT (COUNT(*) AS ?n) WHERE {{ {pattern} }}")[0].split('"')[1])


def test_hubs_have_the_planned_degree(small: tuple[Path, dict], store: ox.Store) -> None:
    hubs = small[1]["hubs"]
    usa, male = hubs["United States of America"], hubs["Male"]
    assert usa["big_relations"]["location.location.contains"]["out"] == 1_000  # 5% of 20,000
    assert usa["big_relations"]["location.location.containedby"]["in"] == 1_000  # its reverse
    assert usa["big_relations"]["people.person.nationality"]["in"] == 1_200
    assert male["big_relations"]["people.person.gender"]["in"] == 2_100
    for hub in hubs.values():
        iri = f"<{hub['iri']}>"
        assert count(store, f"{iri} ?p ?o") + count(store, f"?s ?p {iri}") == hub["degree"]
        for relation, n in hub["big_relations"].items():
            assert count(store, f"{iri} <{NS}{relation}> ?o") == n["out"]
            assert count(store, f"?s <{NS}{relation}> {iri}") == n["in"]
    persons = count(store, f"?p <{NS}type.object.type> <{NS}people.person>")
    assert count(store, f"?p <{NS}people.person.gender> ?g") == persons  # one gender each


def as_ntriples(term: dict[str, str]) -> str:
    """A SPARQL JSON result term in N-Triples syntax."""
    if term["type"] == "uri":
        return f"<{term['value']}>"
    if "datatype" in term:
        return f'"{term["value"]}"^^<{term["datatype"]}>'
    return f'"{term["value"]}"' + (f"@{term['xml:lang']}" if "xml:lang" in term else "")


@pytest.mark.virtuoso
def test_bulk_load_into_virtuoso(small: tuple[Path, dict], virtuoso: Virtuoso) -> None:
    """load_virtuoso.py's load and count on the small graph; every gold answer holds there too
    (literals included: they are written in forms Virtuoso prints back unchanged)."""
    import httpx

    from load_virtuoso import bulk_load, sparql_count

    data = virtuoso.workdir / "freebase_shaped"  # ld_dir reads only where DirsAllowed says
    shutil.copytree(small[0], data)
    graph = "urn:readi:test:freebase-shaped"
    try:
        bulk_load(virtuoso, data, graph, loaders=1)
        assert sparql_count(virtuoso, graph) == small[1]["triples"]
        for line in (data / "questions.jsonl").open():
            q = json.loads(line)
            query = path_query(q).replace(" WHERE", f" FROM <{graph}> WHERE")
            r = httpx.post(
                virtuoso.endpoint,
                data={"query": query},
                headers={"Accept": "application/sparql-results+json"},
            )
            got = {as_ntriples(b["x"]) for b in r.json()["results"]["bindings"]}
            assert sorted(got) == q["answers"], q["id"]  # a set: DISTINCT can repeat floats there
    finally:
        virtuoso.isql(f"SPARQL CLEAR GRAPH <{graph}>;")
        shutil.rmtree(data, ignore_errors=True)
