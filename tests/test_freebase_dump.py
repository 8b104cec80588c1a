"""`readi kg freebase`: a dump with the public dump's noise filtered to exactly the expected
lines, whatever the chunking; the output loads into the embedded store and answers a question;
the neighbourhood of given entities with a hub cap; and the Freebase-shaped generator's dump
filtered back to the graph it was generated from."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from readi_graph.cli import main
from readi_graph.datasets.freebase_dump import streams as dump_streams
from readi_graph.datasets.freebase_dump.filter import DumpFilter
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph

from conftest import FIXTURES
from fakes import function_model
from servers import Virtuoso

DUMP = FIXTURES / "freebase_dump"
NS = "http://rdf.freebase.com/ns/"


def _gzipped(tmp_path: Path, data: bytes, name: str = "dump.nt.gz") -> Path:
    path = tmp_path / name
    path.write_bytes(gzip.compress(data))
    return path


def _run(tmp_path: Path, dump: Path, *extra: str) -> dict[str, object]:
    out = tmp_path / "out"
    args = ["kg", "freebase", "--dump", str(dump), "--out", str(out), "--relations",
            str(DUMP / "relations.txt"), "--quiet", *extra]  # fmt: skip
    assert main(args) == 0
    stats: dict[str, object] = json.loads((out / "stats.json").read_text())
    return stats


def _output(tmp_path: Path) -> bytes:
    return b"".join(
        gzip.decompress(p.read_bytes()) for p in sorted((tmp_path / "out").glob("part-*"))
    )


def test_the_filter_keeps_exactly_the_knowledge_lines() -> None:
    kept, counts = DumpFilter.from_inventory(DUMP / "relations.txt").chunk(
        (DUMP / "dump.nt").read_bytes()
    )
    assert kept == (DUMP / "expected.nt").read_bytes()
    assert (counts.lines, counts.kept, counts.malformed_chunks) == (38, 22, 0)
    assert counts.kept_text == 7  # English names and aliases
    assert counts.other_language == 5  # names in fr/ja/es, an alias in de, a tagline in fr


@pytest.mark.parametrize("chunk_bytes", [7, 300, 1 << 20])
def test_any_chunking_gives_the_same_output(
    chunk_bytes: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dump_streams, "CHUNK_BYTES", chunk_bytes)  # 7: shorter than any line
    stats = _run(tmp_path, _gzipped(tmp_path, (DUMP / "dump.nt").read_bytes()))
    assert _output(tmp_path) == (DUMP / "expected.nt").read_bytes()
    filtered = stats["filter"]
    assert isinstance(filtered, dict)
    assert filtered["lines"] == 38 and filtered["kept"] == 22 and filtered["decompressor"]
    assert filtered["dropped_other_predicates"] == 38 - 22 - 5


def test_a_line_of_another_shape_is_dropped_and_the_rest_kept(tmp_path: Path) -> None:
    lines = (DUMP / "dump.nt").read_bytes().splitlines(keepends=True)
    broken = b"".join([*lines[:5], b"a line without tabs\n", b"<a>\t<b>\n", *lines[5:]])
    kept, counts = DumpFilter.from_inventory(DUMP / "relations.txt").chunk(broken)
    assert kept == (DUMP / "expected.nt").read_bytes()
    assert counts.malformed_chunks == 1 and counts.lines == 40 and counts.kept == 22


def test_the_output_loads_into_the_embedded_store_and_answers(tmp_path: Path) -> None:
    from readi_graph.graph import build_graph

    _run(tmp_path, _gzipped(tmp_path, (DUMP / "dump.nt").read_bytes()))
    part = tmp_path / "out" / "part-00000.nt.gz"
    kg = KnowledgeGraph.from_file(part, "freebase")
    assert len(kg.backend) == 21  # 22 lines, one of them twice
    assert kg.resolve("Barack Hussein Obama II").match == "alias"

    def reply(prompt: str) -> str:
        if "Answer the question using only" in prompt:
            return "{Michelle Obama}" if ", Michelle Obama)" in prompt else "{}"
        path = "Barack Obama -> people.person.spouse_s -> people.marriage.spouse"
        return "Path: " + json.dumps({"Barack Obama": [path]})

    graph = build_graph(kg, function_model(reply))
    out = graph.invoke({"question": "Who is Barack Obama married to?",
                        "topic_entities": ["Barack Obama"]})  # fmt: skip
    assert out["answers"] == ["Michelle Obama"] and not out.get("error")


def _triples(data: bytes) -> set[tuple[str, str, str]]:
    return {(str(t.subject), str(t.predicate), str(t.object))
            for t in ox.parse(data, format=ox.RdfFormat.N_TRIPLES)}  # fmt: skip


def test_the_neighbourhood_of_given_entities_with_a_hub_cap(tmp_path: Path) -> None:
    dump = _gzipped(tmp_path, (DUMP / "dump.nt").read_bytes())
    stats = _run(tmp_path, dump, "--around", str(DUMP / "topics.txt"), "--hops", "1")
    one = _triples(_output(tmp_path))
    subjects = {s for s, _, _ in one}
    assert f"<{NS}m.025s5v9>" not in subjects  # Michelle Obama is two hops away
    assert (f"<{NS}m.02nqglv>", f"<{NS}people.marriage.spouse>", f"<{NS}m.02mjmr>") in one
    assert (f"<{NS}m.0d_0y>", f"<{NS}type.object.name>", '"D. W. Griffith"@en') in one
    around = stats["around"]
    assert isinstance(around, dict) and around["seeds"] == 2 and around["seeds_found"] == 2

    stats = _run(tmp_path, dump, "--around", str(DUMP / "topics.txt"), "--hops", "2",
                 "--hub-cap", "5")  # fmt: skip
    two = _triples(_output(tmp_path))
    assert one < two
    assert (f"<{NS}m.025s5v9>", f"<{NS}type.object.name>", '"Michelle Obama"@en') in two
    # the United States has 6 neighbours: the first 5 in file order are kept
    assert (f"<{NS}m.0usaperson2>", f"<{NS}people.person.nationality>", f"<{NS}m.09c7w0>") in two
    assert not any("usaperson3" in s for s, _, _ in two)
    around = stats["around"]
    assert isinstance(around, dict) and around["hub_cap"] == 5
    assert [h["hubs_capped"] for h in around["per_hop"]] == [0, 1]
    assert around["per_hop"][1]["hubs"] == {f"<{NS}m.09c7w0>": 6}


def test_the_generator_s_dump_filters_back_to_its_graph(tmp_path: Path, freebase_dir: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from freebase_shaped import generate

    small = {"triples": 20_000, "questions_per_hop": 5, "seed": 3}
    generate(tmp_path / "nt", **small)
    stats = generate(tmp_path / "dump", **small, fmt="dump")
    assert stats["dump"]["noise"] > stats["triples"] and stats["dump"]["duplicates"] > 0
    graph = set()
    for part in sorted((tmp_path / "nt").glob("kb-*.nt.gz")):
        graph |= _triples(gzip.decompress(part.read_bytes()))
    dump = tmp_path / "dump" / "freebase-rdf-shaped.gz"
    text = gzip.decompress(dump.read_bytes())
    aliases = {
        t for t in _triples(text) if t[1] == f"<{NS}common.topic.alias>" and t[2].endswith("@en")
    }
    args = ["kg", "freebase", "--dump", str(dump), "--out", str(tmp_path / "out"), "--quiet",
            "--relations", str(freebase_dir / "fb_relations_domain_range_label.json")]  # fmt: skip
    assert main(args) == 0
    kept = _triples(_output(tmp_path))
    types = {t for t in graph if t[1] == f"<{NS}type.object.type>"}
    assert kept == (graph - types) | aliases


@pytest.mark.virtuoso
def test_the_output_bulk_loads_into_virtuoso(tmp_path: Path, virtuoso: Virtuoso) -> None:
    import shutil

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from load_virtuoso import sparql_count

    _run(tmp_path, _gzipped(tmp_path, (DUMP / "dump.nt").read_bytes()))
    data = virtuoso.workdir / "freebase_dump"  # ld_dir reads only where DirsAllowed says
    shutil.copytree(tmp_path / "out", data)
    graph = "urn:readi:test:freebase-dump"
    try:
        virtuoso.isql(f"ld_dir('{data}', 'part-*.nt.gz', '{graph}');")
        virtuoso.isql("rdf_loader_run();", 600)
        failed = virtuoso.isql(
            f"SELECT ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_file LIKE '{data}%'"
            " AND ll_error IS NOT NULL;"
        )
        assert "part-" not in failed
        assert sparql_count(virtuoso, graph) == 21  # 22 lines, one twice
        kg = KnowledgeGraph.from_endpoint(virtuoso.endpoint, "freebase", default_graph=graph)
        assert [t.value for t in kg.resolve("Michelle Obama").nodes] == [f"{NS}m.025s5v9"]
    finally:
        virtuoso.isql(f"SPARQL CLEAR GRAPH <{graph}>;")
        shutil.rmtree(data, ignore_errors=True)
