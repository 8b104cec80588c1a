"""ToG's calls that cannot change the search are not made (issue 31, `skip_needless_calls`):
no sufficiency call while the relation step says more hops are needed, none on a guess, and
no entity-scoring call when a depth reaches at most W candidates. `TogContext.paper()` makes
every call the official code makes."""

from __future__ import annotations

import pytest

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.strategies.tog.context import TogContext, call_bound
from readi_graph.strategies.tog.describe import describe
from readi_graph.strategies.tog.nodes import _hops_left

from fakes import tog_kind
from tog_films import LANGUAGES, films_kg, tog_script

STARRED = {  # Dara Quill starred in two films: at most W candidates
    "question": "which films did [Dara Quill] star in",
    "topic_entities": ["Dara Quill"],
}
RELATIONS = {1: "{<- directed_by (Score: 1.0)}", 2: "{in_language (Score: 1.0)}"}


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeGraph:
    return films_kg(tmp_path_factory.mktemp("films"))


def enough_at_depth_2(triples: str) -> str:
    return "{Yes}. {Spanish | English}" if "Depth 2:" in triples else "{No}. Not yet."


def test_no_sufficiency_call_while_more_hops_are_needed(films: KnowledgeGraph) -> None:
    said = tog_script(RELATIONS, hops={1: 1, 2: 0}, verdict=enough_at_depth_2)
    out = build_graph(films, said, strategy="tog").invoke(LANGUAGES)
    kinds = [tog_kind(p) for p in said.prompts]
    assert kinds == ["relations", "entities", "relations", "relations", "relations", "reason"]
    assert [a["verdict"] for a in out["attempts"]] == ["more hops needed", "yes"]
    assert out["usage"]["verdicts_skipped"] == 1 and out["answers"] == ["Spanish", "English"]
    assert "Hops left: N" in said.prompts[0] and "Hops left: 1" in said.prompts[0]  # example
    line = describe("reason", {"current": out["attempts"][0]})
    assert line == "depth 1: not asked (the relation step said more hops)"
    # the same replies without `Hops left`: the call is made (none skipped on a guess)
    silent = tog_script(RELATIONS, verdict=enough_at_depth_2)
    again = build_graph(films, silent, strategy="tog").invoke(LANGUAGES)
    assert [tog_kind(p) for p in silent.prompts].count("reason") == 2
    assert again["answers"] == out["answers"]
    # the published behaviour: every call made, and no `Hops left` asked
    paper = tog_script(RELATIONS, hops={1: 1, 2: 0}, verdict=enough_at_depth_2)
    build_graph(films, paper, strategy="tog").invoke(LANGUAGES, context=TogContext.paper())
    assert [tog_kind(p) for p in paper.prompts].count("reason") == 2
    assert "Hops left" not in paper.prompts[0]


def test_a_skipped_last_depth_answers_and_says_why(films: KnowledgeGraph) -> None:
    model = tog_script(RELATIONS, hops={1: 1}, answer="{Spanish}")
    out = build_graph(films, model, strategy="tog").invoke(LANGUAGES, context=TogContext(depth=1))
    assert [tog_kind(p) for p in model.prompts] == ["relations", "entities", "answer"]
    assert "its last relation choices said more hops were needed" in model.prompts[-1]
    assert out["answers"] == ["Spanish"] and out["answer_source"] == "model_knowledge"


def test_hops_left_counts_every_entity_that_leads_on() -> None:
    assert _hops_left([[(0, 1.0)], [(1, 0.5)]], {0: 1, 1: 2}) == 1  # the fewest said
    assert _hops_left([[(0, 1.0)], [(1, 0.5)]], {0: 1}) is None  # one said nothing
    assert _hops_left([[(0, 1.0)], []], {0: 2}) == 2  # an entity that leads nowhere
    assert _hops_left([[(0, 0.0)]], {0: 2}) is None  # nothing leads on at all


def test_no_scoring_call_for_at_most_width_candidates(films: KnowledgeGraph) -> None:
    def run(hops: int | None = None, **settings: object) -> tuple[list[str], dict[str, object]]:
        model = tog_script({1: "{<- starred_actors (Score: 1.0)}"}, scores=lambda _: "Scores: 1, 0",
                           hops=None if hops is None else {1: hops})  # fmt: skip
        context = TogContext(**{"depth": 1, **settings})  # type: ignore[arg-type]
        out = build_graph(films, model, strategy="tog").invoke(STARRED, context=context)
        return [tog_kind(p) for p in model.prompts], dict(out)

    kinds, out = run()  # two films, W = 3: both kept whatever the scores
    assert "entities" not in kinds and out["usage"]["entity_scores_skipped"] == 1
    assert {c["name"] for c in out["attempts"][0]["candidates"] if c["kept"]} == {
        "Paper Moons", "Salt Road"}  # fmt: skip
    kinds, out = run(width=1)  # one of two: the scores decide
    assert kinds.count("entities") == 1 and out["usage"].get("entity_scores_skipped", 0) == 0
    kinds, out = run(depth=2)  # not the last depth: a 0 would prune a branch, so it is asked
    assert kinds.count("entities") == 1
    kinds, out = run(depth=2, hops=0)  # ... unless the relation step said no hops are left
    assert "entities" not in kinds and out["usage"]["entity_scores_skipped"] == 1
    kinds, out = run(skip_needless_calls=False)
    assert kinds.count("entities") == 1
    assert [c["name"] for c in out["attempts"][0]["candidates"] if c["kept"]] == ["Paper Moons"]


@pytest.mark.parametrize("context", [TogContext(), TogContext.paper()])
def test_the_bound_holds_with_every_rule(films: KnowledgeGraph, context: TogContext) -> None:
    model = tog_script(RELATIONS, hops={1: 1, 2: 0}, verdict=lambda t: "{No}.")
    out = build_graph(films, model, strategy="tog").invoke(LANGUAGES, context=context)
    assert out["usage"]["llm_calls"] == len(model.prompts) <= call_bound(3, 3, 1)
