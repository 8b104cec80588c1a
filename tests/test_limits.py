"""Caps hold on a hub: a node with 100,000 edges (frontier cap, row limit, FiDeLiS edge cap),
and the truncation is reported in the output and to the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.bench.synthetic import EX, hub_ntriples
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph

from fakes import function_model, path

EDGES = 100_000


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeGraph:
    from readi_graph.environments.kg.knowledge_graph import KGSettings

    file: Path = tmp_path_factory.mktemp("hub") / "hub.nt"
    file.write_text(hub_ntriples(EDGES), encoding="utf-8")
    return KnowledgeGraph.from_file(file, KGSettings(label_predicates=(EX + "label",)))


def test_readi_walk_from_a_hub_is_capped_and_says_so(hub: KnowledgeGraph) -> None:
    model = function_model(
        lambda p: "Answer: {Node 1}" if "Answer the question" in p
        else path({"Hub": ["Hub -> links"]})
    )  # fmt: skip
    result = build_graph(hub, model).invoke(
        {"question": "what does [Hub] link to", "topic_entities": ["Hub"]}
    )
    assert result["attempts"][0]["capped"] is True and result["attempts"][0]["complete"]
    assert len({o for _, _, o in result["evidence"]}) == hub.settings.frontier_cap
    caveat = "The walk kept 200 nodes per step; more exist and are not shown."
    assert f"- {caveat}" in model.prompts[-1] and caveat in result["notes"]  # told, and said
    assert result["usage"]["queries"] < 20  # bounded, not one query per neighbour


@pytest.mark.parametrize("preset", ["default", "paper"])
def test_fidelis_scores_a_bounded_part_of_a_hub(hub: KnowledgeGraph, preset: str) -> None:
    """top_m steps (the paper), or every step of the top_m relations, chain_cap of each."""
    from readi_graph.strategies.fidelis.context import FidelisContext

    context = FidelisContext.paper() if preset == "paper" else FidelisContext()
    plan = {"keywords": ["born in", "town"], "planning_steps": [],
            "declarative_statement": "Hub was born in *placeholder*."}  # fmt: skip
    model = function_model(
        lambda p: json.dumps(plan) if "plan for it" in p
        else "[1]" if "choose how" in p
        else "yes" if "You check" in p
        else "{Town}"
    )  # fmt: skip
    result = build_graph(hub, model, strategy="fidelis").invoke(
        {"question": "where was [Hub] born", "topic_entities": ["Hub"]}, context=context
    )
    step = result["attempts"][0]
    bound = 10 if preset == "paper" else 10 * context.chain_cap  # top_m (x chain_cap)
    assert step["capped"] is True and step["candidates"] <= bound and step["choices"] <= 10
    assert result["path"] == ["Hub -> born_in -> Town"]  # the right edge survived the cut


def test_a_hub_hop_reads_a_bounded_number_of_rows_and_keeps_the_uncapped_querys_first(
    hub: KnowledgeGraph,
) -> None:
    """The cap is inside the query: the hop reads `rows_per_relation` + 1 rows of the 100,000,
    and keeps the nodes an uncapped query gives first (same store order), then the cap."""
    from readi_graph.core.base import Term
    from readi_graph.environments.kg.reasoning.instantiation import connect
    from readi_graph.environments.kg.relations.paths import Candidate, KGPath

    sizes: list[int] = []
    select = hub.backend.select

    def counted(query: str) -> list[dict[str, Term]]:
        rows = select(query)
        sizes.append(len(rows))
        return rows

    hub.backend.select = counted  # type: ignore[method-assign]
    try:
        walk = connect(hub, KGPath("Hub", ("links",)), [(Candidate(EX + "links", "forward"),)])
    finally:
        del hub.backend.select
    per = hub.settings.rows_per_relation
    assert max(sizes) == per + 1 < EDGES  # the extra row only says that more exist
    hop = walk.hops[0]
    assert hop.truncated and hop.capped and len(walk.frontier) == hub.settings.frontier_cap
    uncapped = hub.backend.select(f"SELECT ?y WHERE {{ <{EX}hub> <{EX}links> ?y }}")
    first = sorted({r["y"] for r in uncapped[:per]})[: hub.settings.frontier_cap]
    assert list(walk.frontier) == first
