"""Think-on-Graph on the same KG environment: relation and entity pruning, sufficiency, the
final answer and where it came from, the cheap pruning modes, ToG-R, compound nodes."""

from __future__ import annotations

import re
from typing import Any

import pytest

from readi_graph.core import markers
from readi_graph.core.base import InputError
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.relations.encoder import dense_available
from readi_graph.graph import build_graph
from readi_graph.strategies.tog.context import TogContext, call_bound
from readi_graph.strategies.tog.parsing import parse_relations, parse_scores, parse_verdict

from fakes import function_model
from fakes import tog_kind as kind
from fakes import tog_model as explorer_model
from fakes import tog_own as own

NEEDS_DENSE = pytest.mark.skipif(not dense_available(), reason="refused without [embed]")
ZWICK = {  # one film in MetaQA
    "question": "which languages are the films directed by [Joel Zwick] in",
    "topic_entities": ["Joel Zwick"],
}
ALMODOVAR = {  # 17 films directed and written, all in Spanish but one without a language
    "question": "which languages are the films directed by [Pedro Almodóvar] in",
    "topic_entities": ["Pedro Almodóvar"],
}


def test_a_two_hop_question_is_answered_at_depth_two(metaqa_kg: KnowledgeGraph) -> None:
    model = explorer_model(["<- directed_by", "in_language"], enough=lambda t: "Depth 2" in t)
    out = build_graph(metaqa_kg, model, strategy="tog").invoke(ALMODOVAR)
    assert [a["depth"] for a in out["attempts"]] == [1, 2]
    assert [a["verdict"] for a in out["attempts"]] == ["no", "yes"]
    assert out["answers"] == ["Spanish"] and out["grounded"] and out["answer_source"] == "graph"
    assert len(out["path"]) == 1  # three films reach Spanish: a node is kept once
    assert all(p.startswith("Pedro Almodóvar -> <- directed_by -> ") for p in out["path"])
    assert all(p.endswith(" -> in_language -> Spanish") for p in out["path"])
    first = out["attempts"][0]
    kept = [c["name"] for c in first["candidates"] if c["kept"]]
    assert len(kept) == 3 and len(first["candidates"]) > 3  # W of the films, the rest pruned
    assert {r["name"] for r in first["relations"] if r["kept"]} == {"<- directed_by"}
    kinds = [kind(p) for p in model.prompts]
    # depth 1: relations, entities (17 films), reason; depth 2: one relation call per film
    # (each film's languages: one candidate, no entity call), reason; the "yes" answers
    assert kinds == ["relations", "entities", "reason", *["relations"] * 3, "reason"]
    assert out["usage"]["llm_calls"] == len(model.prompts) <= call_bound(3, 3, 1)
    # evidence: the walked triples in their stored direction
    assert sum(t[1:] == ["directed_by", "Pedro Almodóvar"] for t in out["evidence"]) >= 2


def test_the_width_is_enforced_and_zero_scores_are_not_explored(metaqa_kg: KnowledgeGraph) -> None:
    def reply(prompt: str) -> str:
        name = kind(prompt)
        if name == "relations":  # greedy: every relation, one of them with score 0
            listed = own(prompt).split("Relations:\n")[1].split("\nChoose")[0].splitlines()
            return "\n".join(f"{{{r} (Score: {0.5 if i else 0})}}" for i, r in enumerate(listed))
        if name == "entities":
            return "Scores: 0.5"  # one score for two or more candidates: uniform instead
        return "{No}" if name == "reason" else "{y}"

    model = function_model(reply)
    context = TogContext(width=2, depth=2)
    out = build_graph(metaqa_kg, model, strategy="tog").invoke(ALMODOVAR, context=context)
    for record in out["attempts"]:
        per_entity: dict[int, int] = {}
        for r in record["relations"]:
            per_entity[r["entity"]] = per_entity.get(r["entity"], 0) + r["kept"]
        assert max(per_entity.values()) <= 1  # two chosen, the first scored 0 and dropped
        assert sum(c["kept"] for c in record["candidates"]) <= 2
    assert out["usage"]["entity_scores_unreadable"] == out["usage"]["entity_scores"] > 0
    assert out["answers"] == ["y"] and out["answer_source"] == "model_knowledge"  # not a name
    assert not out["grounded"]
    assert out["usage"]["llm_calls"] <= call_bound(2, 2, 1)


def test_depth_spent_answers_with_the_triples_and_says_where_from(
    metaqa_kg: KnowledgeGraph,
) -> None:
    model = explorer_model(["<- directed_by", "in_language"], enough=lambda t: False,
                           answer="From what I know. {Greek}")  # fmt: skip
    graph = build_graph(metaqa_kg, model, strategy="tog")
    out = graph.invoke(ALMODOVAR, context=TogContext(depth=2))
    assert [a["verdict"] for a in out["attempts"]] == ["no", "no"]
    final = model.prompts[-1]
    assert kind(final) == "answer" and "used all 2 depths" in final
    assert final.startswith(markers.ANSWER_ONLY_FROM)  # the default policy: triples only
    assert "in_language" in final  # the triples stay in the prompt
    assert out["answers"] == ["Greek"]  # as replied, though no triple names Greek: so the
    assert out["answer_source"] == "model_knowledge" and not out["grounded"]  # source says
    knowing = explorer_model(["<- directed_by"], enough=lambda t: False, answer="{Paris}")
    out = build_graph(metaqa_kg, knowing, strategy="tog").invoke(
        ALMODOVAR, context=TogContext(depth=1, answer_from="evidence_and_knowledge")
    )
    assert "your own knowledge" in knowing.prompts[-1]
    assert out["answer_source"] == "model_knowledge" and not out["grounded"]


def test_an_empty_frontier_answers_from_the_triples_so_far(metaqa_kg: KnowledgeGraph) -> None:
    model = explorer_model(["<- directed_by"], enough=lambda t: False)  # then an empty reply
    out = build_graph(metaqa_kg, model, strategy="tog").invoke(ZWICK)
    assert out["attempts"][-1]["verdict"] == "nothing new"
    assert (  # what happened, not a guess
        "at depth 2 no relation was followed: the relation choice could not be read for My Big "
        "Fat Greek Wedding. The search stopped there." in model.prompts[-1]
    )
    assert [kind(p) for p in model.prompts].count("answer") == 1


def test_an_unknown_topic_entity_costs_no_call(metaqa_kg: KnowledgeGraph) -> None:
    model = explorer_model([], enough=lambda t: True)
    out = build_graph(metaqa_kg, model, strategy="tog").invoke(
        {"question": "what did [Nobody Atall] direct", "topic_entities": ["Nobody Atall"]}
    )
    assert out["answers"] == [] and out["usage"]["llm_calls"] == 0
    assert out["answer_source"] == "none" and "not in the knowledge graph" in out["notes"][0]
    with pytest.raises(InputError):  # a blank question is refused
        build_graph(metaqa_kg, model, strategy="tog").invoke({"question": "  "})


@pytest.mark.parametrize(
    "settings",
    [
        {"prune": "bm25"},
        pytest.param({"prune": "dense"}, marks=NEEDS_DENSE),
        {"entity_pruning": "random"},
        pytest.param({"entity_pruning": "dense"}, marks=NEEDS_DENSE),
    ],
)
def test_cheap_modes_and_tog_r_make_no_pruning_calls(
    metaqa_kg: KnowledgeGraph, settings: dict[str, Any]
) -> None:
    model = explorer_model(["<- directed_by", "in_language"], enough=lambda t: "Depth 2" in t)
    context = TogContext(**settings)
    out = build_graph(metaqa_kg, model, strategy="tog").invoke(ALMODOVAR, context=context)
    kinds = {kind(p) for p in model.prompts}
    assert "entities" not in kinds
    assert ("relations" in kinds) == ("prune" not in settings)
    assert out["attempts"] and all(
        sum(c["kept"] for c in a["candidates"]) <= 3 for a in out["attempts"]
    )
    again = explorer_model(["<- directed_by", "in_language"], enough=lambda t: "Depth 2" in t)
    repeat = build_graph(metaqa_kg, again, strategy="tog").invoke(ALMODOVAR, context=context)
    assert repeat["path"] == out["path"]  # seeded: the same run twice


def test_compound_nodes_are_walked_through_and_their_facts_shown(
    freebase_mini: KnowledgeGraph,
) -> None:
    def reply(prompt: str) -> str:
        name, part = kind(prompt), own(prompt)
        if name == "relations":
            return "{people.person.spouse_s (Score: 1.0)}"
        if name == "entities":  # the candidates behind the compound node, with their relation
            listed = re.findall(r"(?m)^\d+\. (.*)$", part)
            return "Scores: " + ", ".join("1.0" if "Michelle" in c else "0.0" for c in listed)
        return "{Yes}. {Michelle Obama}"

    model = function_model(reply)
    out = build_graph(freebase_mini, model, strategy="tog").invoke(
        {"question": "who is Barack Obama married to", "topic_entities": ["Barack Obama"]},
        context=TogContext(skip_needless_calls=False),  # two candidates: scored all the same
    )
    scored = own(next(p for p in model.prompts if kind(p) == "entities"))
    assert "Michelle Obama (people.marriage.spouse)" in scored
    assert "1992-10-03 (people.marriage.from)" in scored and "Barack Obama (" not in scored
    (record,) = out["attempts"]
    (kept,) = [c for c in record["candidates"] if c["kept"]]  # the date scored 0: dropped
    assert kept["name"] == "Michelle Obama" and kept["via"] == "people.marriage.spouse"
    assert out["answers"] == ["Michelle Obama"] and out["grounded"]
    assert "UnName_Entity" not in str(model.prompts) and "<compound 1>" in model.prompts[-1]
    assert "1992-10-03" in model.prompts[-1]  # the marriage's other fact is shown
    assert ["<compound 1>", "people.marriage.spouse", "Michelle Obama"] in out["evidence"]
    assert out["path"] == [
        "Barack Obama -> people.person.spouse_s -> <compound> -> people.marriage.spouse -> "
        "Michelle Obama"
    ]


def test_a_hub_is_read_bounded_and_ranked(tmp_path: Any) -> None:
    from readi_graph.bench.synthetic import EX, hub_ntriples
    from readi_graph.environments.kg.knowledge_graph import KGSettings

    file = tmp_path / "hub.nt"
    file.write_text(hub_ntriples(5_000), encoding="utf-8")
    hub = KnowledgeGraph.from_file(file, KGSettings(label_predicates=(EX + "label",)))
    model = explorer_model(["links"], enough=lambda t: True)
    out = build_graph(hub, model, strategy="tog").invoke(
        {"question": "which nodes does [Hub] link to", "topic_entities": ["Hub"]},
        context=TogContext(max_candidates=7),
    )
    scored = [p for p in model.prompts if kind(p) == "entities"]
    assert len(re.findall(r"(?m)^\d+\. ", own(scored[0]))) == 7  # capped, then scored
    assert out["attempts"][0]["capped"] and any("most similar" in n for n in out["notes"])
    assert out["usage"]["queries"] < 15


def test_the_recursion_limit_is_checked_before_the_search(metaqa_kg: KnowledgeGraph) -> None:
    graph = build_graph(metaqa_kg, explorer_model([], enough=lambda t: True), strategy="tog")
    with pytest.raises(InputError, match="recursion_limit"):
        graph.invoke(ZWICK, context=TogContext(depth=9))
    out = graph.invoke(ZWICK, {"recursion_limit": 40}, context=TogContext(depth=9))
    assert out["answer_source"] in ("graph", "none")


def test_parsers_read_choices_scores_and_verdicts_safely() -> None:
    listed = ["<- directed_by", "in_language", "written_by"]
    reply = "{Directed By (Score: 0.7)}\n{in_language (score: 3)}\n{nope (Score: 0.1)}"
    assert parse_relations(reply, listed, 2) == [(0, 0.7), (1, 1.0)]  # `<-` implied, clamped
    assert parse_relations("{in_language (Score: 0.5)}" * 3, listed, 3) == [(1, 0.5)]
    assert parse_relations("nothing helps: {}", listed, 3) == []
    assert parse_relations("I think in_language", listed, 3) is None
    assert parse_scores("1. A 2. B\nScores: 0.2, 0.8", 2) == [0.2, 0.8]
    assert parse_scores("Scores: 0.2", 2) is None and parse_scores("Scores: 7, 0", 2) == [1.0, 0.0]
    assert parse_verdict("{Yes}. It is {Paris | Lyon}") == (True, ["Paris", "Lyon"])
    assert parse_verdict("{No}. Missing the year.") == (False, None)
    assert parse_verdict("{Yes}.") == (True, None) and parse_verdict("hmm") == (None, None)
    assert parse_verdict('{"sufficient": "yes", "answers": ["A"]}') == (True, ["A"])


def test_tog_graph_shape(metaqa_kg: KnowledgeGraph) -> None:
    graph = build_graph(metaqa_kg, function_model(lambda _: ""), strategy="tog")
    mermaid = graph.get_graph().draw_mermaid()
    for edge in ("__start__ --> start", "start -.-> relations", "start -.-> answer",
                 "relations --> entities", "entities -.-> reason", "entities -.-> answer",
                 "reason -.-> relations", "reason -.-> answer", "reason -.-> __end__",
                 "answer --> __end__"):  # fmt: skip
        assert edge in mermaid, edge
    assert graph.name == "tog"
    assert call_bound(3, 3, 1) == 32 and call_bound(3, 3, 2) == 36 and call_bound(3, 1, 1) == 6


def test_entity_pruning_breaks_ties_by_what_leads_on() -> None:
    from readi_graph.core.base import Term
    from readi_graph.strategies.tog.search import prune, tied

    def c(name: str, score: float) -> dict[str, Any]:
        return {"node": {"kind": "iri", "value": f"http://x/{name}"}, "score": score}

    pool = [c("a", 0.5), c("b", 0.2), c("c", 0.2), c("d", 0.2), c("a", 0.9), c("z", 0.0)]
    assert tied(pool, 2) == [Term.iri("http://x/b"), Term.iri("http://x/c"), Term.iri("http://x/d")]
    assert tied(pool, 1) == [] and tied(pool, 4) == []  # no tie across the boundary
    names = [k["node"]["value"][-1] for k in prune(pool, 3)]
    assert names == ["a", "b", "c"]  # a once (its best score), then candidate order
    leads = {Term.iri("http://x/d"): 7, Term.iri("http://x/b"): 1}
    assert [k["node"]["value"][-1] for k in prune(pool, 3, leads)] == ["a", "d", "b"]
    assert len(prune(pool, 10)) == 4  # zero scores are never kept
