"""Loading KGs into the embedded store, entity resolution, labels and compound nodes."""

from __future__ import annotations

from pathlib import Path

import pytest
import rdflib

from readi_graph.core.base import KGFormatError, Term
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store.local import METAQA_RELATION, metaqa_iri
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS, SKOLEM_BASE

NT = """<http://ex.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "Alpha" .
<http://ex.org/a> <http://ex.org/knows> _:x .
_:x <http://ex.org/knows> <http://ex.org/b> .
<http://ex.org/b> <http://www.w3.org/2000/01/rdf-schema#label> "Béta"@en .
"""


def test_from_file_skolemizes_blank_nodes(tmp_path: Path) -> None:
    path = tmp_path / "g.nt"
    path.write_text(NT, encoding="utf-8")
    kg = KnowledgeGraph.from_file(path)
    a = kg.resolve("Alpha").nodes
    walked = kg.expand(a, ["http://ex.org/knows"], [])
    (compound,) = {e.target for e in walked.edges}
    assert compound.kind == "iri" and compound.value.startswith(SKOLEM_BASE)
    assert kg.is_compound(compound, kg.labels([compound])[compound])
    # The compound node can be named in the next query: the walk goes on.
    onward = kg.expand([compound], ["http://ex.org/knows"], [])
    assert {e.target for e in onward.edges} == {Term.iri("http://ex.org/b")}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "g.ttl",
            "@prefix e: <http://ex.org/> . e:a e:p e:b ; <http://www.w3.org/2000/01/rdf-schema#label> 'A' .",
        ),
        (
            "g.nq",
            "<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> <http://ex.org/graph> .\n"
            '<http://ex.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "A" <http://ex.org/graph> .\n',
        ),
    ],
)
def test_turtle_and_nquads_load(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    kg = KnowledgeGraph.from_file(path)
    assert kg.relations() == ("http://ex.org/p",)
    assert kg.resolve("A").found  # named graphs are part of the default graph


def test_malformed_files_raise_a_typed_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.nt"
    bad.write_text("<http://ex.org/a> <http://ex.org/p> .\n", encoding="utf-8")
    with pytest.raises(KGFormatError, match=r"bad\.nt"):
        KnowledgeGraph.from_file(bad)
    with pytest.raises(KGFormatError, match="unknown RDF extension"):
        KnowledgeGraph.from_file(tmp_path / "kb.txt")
    with pytest.raises(KGFormatError, match="no such file"):
        KnowledgeGraph.from_file(tmp_path / "missing.ttl")


def test_metaqa_conversion(metaqa_kg: KnowledgeGraph) -> None:
    hanks = metaqa_kg.resolve("Tom Hanks")
    assert hanks.match == "exact" and hanks.nodes == (Term.iri(metaqa_iri("Tom Hanks")),)
    years = metaqa_kg.expand(
        metaqa_kg.resolve("Forrest Gump").nodes, [METAQA_RELATION + "release_year"], []
    )
    (year,) = {e.target for e in years.edges}
    assert year.is_literal and year.value == "1994" and year.datatype.endswith("#gYear")  # type: ignore[union-attr]
    assert len(metaqa_kg.relations()) == 9


def test_metaqa_malformed_line(tmp_path: Path) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text("A|directed_by|B\nbroken line\n", encoding="utf-8")
    with pytest.raises(KGFormatError, match=r"kb\.txt:2"):
        KnowledgeGraph.from_metaqa(kb)


def test_resolution_order(freebase_mini: KnowledgeGraph) -> None:
    assert freebase_mini.resolve("Amélie").match == "exact"
    assert freebase_mini.resolve("  AMELIE ").match == "normalized"
    assert freebase_mini.resolve("m.france").nodes == (Term.iri(FREEBASE_NS + "m.france"),)
    assert freebase_mini.resolve(f"<{FREEBASE_NS}m.spain>").match == "iri"
    unknown = freebase_mini.resolve("Atlantis")
    assert not unknown.found and unknown.match == "none"
    assert not freebase_mini.resolve("http://rdf.freebase.com/ns/m.nowhere").found
    assert not freebase_mini.resolve("").found


def test_labels_prefer_the_configured_language(freebase_mini: KnowledgeGraph) -> None:
    spain = Term.iri(FREEBASE_NS + "m.spain")
    cvt = Term.iri(FREEBASE_NS + "m.cvt_adj1")
    labels = freebase_mini.labels([spain, cvt, Term.literal("1999")])
    assert labels == {spain: "Spain", cvt: None, Term.literal("1999"): "1999"}
    assert freebase_mini.is_compound(cvt, None)
    assert not freebase_mini.is_compound(Term.literal("x"), None)
    assert freebase_mini.display(cvt, None) == "<compound>"


def test_hidden_relations_are_never_walked(freebase_mini: KnowledgeGraph) -> None:
    assert not any("common.topic" in r for r in freebase_mini.relations())
    france = freebase_mini.resolve("France").nodes
    assert freebase_mini.expand(france, [FREEBASE_NS + "common.topic.notable_for"], []).edges == []


def test_rdflib_backends_agree(tmp_path: Path) -> None:
    graph = rdflib.Graph().parse(data=NT, format="nt")
    live = KnowledgeGraph.from_rdflib(graph, backend="rdflib")
    copied = KnowledgeGraph.from_rdflib(graph)
    for kg in (live, copied):
        a = kg.resolve("Alpha").nodes
        hop1 = {e.target for e in kg.expand(a, ["http://ex.org/knows"], []).edges}
        hop2 = {e.target for e in kg.expand(list(hop1), ["http://ex.org/knows"], []).edges}
        assert hop2 == {Term.iri("http://ex.org/b")}
        assert kg.resolve("beta").found
