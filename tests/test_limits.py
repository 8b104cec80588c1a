"""Caps hold on a hub: a node with 100,000 edges (frontier cap, row limit, FiDeLiS edge cap),
and the truncation is reported in the output and to the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.envs.kg import KnowledgeGraph
from readi_graph.eval.synthetic import EX, hub_ntriples
from readi_graph.graph import build_graph

from fakes import function_model, path

EDGES = 100_000


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeGraph:
    from readi_graph.envs.kg import KGSettings

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


def test_fidelis_scores_a_bounded_part_of_a_hub(hub: KnowledgeGraph) -> None:
    plan = {"keywords": ["born in", "town"], "planning_steps": [],
            "declarative_statement": "Hub was born in *placeholder*."}  # fmt: skip
    model = function_model(
        lambda p: json.dumps(plan) if "plan for it" in p
        else "[1]" if "choose how" in p
        else "yes" if "You check" in p
        else "{Town}"
    )  # fmt: skip
    result = build_graph(hub, model, strategy="fidelis").invoke(
        {"question": "where was [Hub] born", "topic_entities": ["Hub"]}
    )
    step = result["attempts"][0]
    assert step["capped"] is True and step["candidates"] <= 10  # top_m
    assert result["path"] == ["Hub -> born_in -> Town"]  # the right edge survived the cut
