"""What ToG's prompts show a model (issue 31): the relations leaving each candidate, scores
that need not add to 1 ('all', 'none', ties kept as evidence), a width that agrees with
itself, and a final prompt that says why the search stopped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.strategies.tog.context import TogContext

from fakes import tog_kind, tog_own
from tog_films import DIRECTED, LANGUAGES, candidates, films_kg, tog_script

WITH_LANGUAGE = {"Harbor Lights", "Paper Moons", "Salt Road"}


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeGraph:
    return films_kg(tmp_path_factory.mktemp("films"))


def by_language(lines: list[str]) -> str:
    """Scores a model gives once it sees which films have a language."""
    return "Scores: " + ", ".join("1" if "in_language" in line else "0" for line in lines)


def test_candidates_show_the_relations_that_leave_them(films: KnowledgeGraph) -> None:
    model = tog_script({1: "{<- directed_by (Score: 1.0)}", 2: "{in_language (Score: 1.0)}"},
                       scores=by_language)  # fmt: skip
    out = build_graph(films, model, strategy="tog").invoke(LANGUAGES, context=TogContext(depth=2))
    first = next(p for p in model.prompts if tog_kind(p) == "entities")
    lines = dict(line.split(": ", 1) for line in candidates(first))
    assert set(lines) == {"Harbor Lights", "Paper Moons", "Winter Ferry", "Salt Road",
                          "Glass Orchard"}  # fmt: skip
    assert {f for f, rest in lines.items() if "in_language (1)" in rest} == WITH_LANGUAGE
    assert lines["Winter Ferry"] == "release_year (1)"  # the way back (one edge) left out
    assert "directed_by" not in " ".join(lines.values())
    assert "Reached by: Ines Calloway\n" in tog_own(first)
    assert "which candidates the question can go on from" in first
    # the model could tell: the three films kept at depth 1 all have a language
    kept = {c["name"] for c in out["attempts"][0]["candidates"] if c["kept"]}
    assert kept == WITH_LANGUAGE
    assert {t[2] for t in out["evidence"] if t[1] == "in_language"} == {"Spanish", "English"}


def test_the_relations_shown_are_bounded_and_the_last_depth_shows_none(
    films: KnowledgeGraph,
) -> None:
    model = tog_script({1: "{<- directed_by (Score: 1.0)}"}, scores=by_language)
    graph = build_graph(films, model, strategy="tog")
    graph.invoke(LANGUAGES, context=TogContext(depth=2, candidate_relations=1))
    first = next(p for p in model.prompts if tog_kind(p) == "entities")
    lines = candidates(first)
    assert all(len(re.findall(r"\(\d+\)", line)) == 1 for line in lines)
    (harbor,) = [line for line in lines if line.startswith("Harbor Lights: ")]
    assert harbor.endswith(" (1), +2 more")  # starred_actors, in_language, release_year
    last = tog_script({1: "{<- directed_by (Score: 1.0)}"})
    build_graph(films, last, strategy="tog").invoke(DIRECTED, context=TogContext(depth=1))
    (scored,) = [p for p in last.prompts if tog_kind(p) == "entities"]
    assert all(": " not in line for line in candidates(scored))  # nothing leads on: not read
    assert "This is the search's last depth" in scored
    paper = tog_script({1: "{<- directed_by (Score: 1.0)}"}, scores=by_language)
    build_graph(films, paper, strategy="tog").invoke(LANGUAGES, context=TogContext.paper())
    official = next(p for p in paper.prompts if tog_kind(p) == "entities")
    assert all(": " not in line for line in candidates(official))
    assert "adding\nup to 1" in official or "adding up to 1" in official


def test_equally_valid_candidates_are_kept_as_evidence_not_cut(films: KnowledgeGraph) -> None:
    def yes_with_all(triples: str) -> str:
        found = re.findall(r"(?m)^\((.+), directed_by, Ines Calloway\)$", triples)
        return "{Yes}. {" + " | ".join(found) + "}"

    runs = {}
    for keep in (True, False):
        model = tog_script({1: "{<- directed_by (Score: 1.0)}"}, verdict=yes_with_all)
        context = TogContext(depth=1, keep_ties=keep)
        runs[keep] = build_graph(films, model, strategy="tog").invoke(DIRECTED, context=context)
    kept, cut = runs[True], runs[False]
    assert len(kept["answers"]) == 5 and len(cut["answers"]) == 3  # 'all' over five films
    record = kept["attempts"][0]
    assert record["tied"] == 2 and sum(c["kept"] for c in record["candidates"]) == 3
    assert sum(c["tied"] for c in record["candidates"]) == 2  # evidence, not explored
    assert sum(t[1] == "directed_by" for t in kept["evidence"]) == 5


def test_ties_are_not_kept_where_more_hops_are_needed(films: KnowledgeGraph) -> None:
    model = tog_script({1: "{<- directed_by (Score: 1.0)}", 2: "{in_language (Score: 1.0)}"},
                       hops={1: 1, 2: 0})  # 'all' at depth 1, and one more hop said  # fmt: skip
    out = build_graph(films, model, strategy="tog").invoke(LANGUAGES, context=TogContext(depth=2))
    first = out["attempts"][0]
    assert first["hops_left"] == 1 and "tied" not in first
    assert sum(t[1] == "directed_by" for t in out["evidence"]) == 3


def test_none_of_these_is_said_and_reported(films: KnowledgeGraph) -> None:
    model = tog_script({1: "{<- directed_by (Score: 1.0)}"}, scores=lambda lines: "Scores: none")
    out = build_graph(films, model, strategy="tog").invoke(LANGUAGES)
    assert out["attempts"][-1]["verdict"] == "nothing new" and out["evidence"] == []
    assert out["answer_source"] == "none" and out["usage"]["llm_calls"] == 2  # no answer call
    assert "`Scores: none` when none of them" in model.prompts[1]


def test_the_final_prompt_says_what_the_search_did(films: KnowledgeGraph) -> None:
    # depth 2: the model chose no relation for any film
    model = tog_script({1: "{<- directed_by (Score: 1.0)}", 2: "{}"}, scores=by_language)
    build_graph(films, model, strategy="tog").invoke(LANGUAGES)
    final = model.prompts[-1]
    assert tog_kind(final) == "answer" and "no new entity could be reached" not in final
    assert re.search(
        r"at depth 2 no relation was followed: none of the relations listed was chosen \(\{\}\) "
        r"for (Harbor Lights|Paper Moons|Salt Road)(, (Harbor Lights|Paper Moons|Salt Road)){2}\. "
        r"The search stopped there\.",
        final,
    )
    # depth 1: every film scored 0 ('none'): no evidence, no answer call, and why
    zero = tog_script({1: "{<- directed_by (Score: 1.0)}"}, scores=lambda lines: "Scores: none")
    out = build_graph(films, zero, strategy="tog").invoke(LANGUAGES)
    assert out["answer"] == (
        "The knowledge graph gave no evidence: at depth 1 every candidate reached was scored 0 "
        "(none of them helps)."
    )


@pytest.mark.parametrize("width", [1, 2, 4])
def test_the_relation_prompt_agrees_with_the_width(films: KnowledgeGraph, width: int) -> None:
    model = tog_script({1: "{<- directed_by (Score: 1.0)}"})
    build_graph(films, model, strategy="tog").invoke(DIRECTED, context=TogContext(width=width))
    prompt = next(p for p in model.prompts if tog_kind(p) == "relations")
    said = re.findall(r"at most\s+(\d+)", prompt)
    assert len(said) == 3 and set(said) == {str(width)}  # the rule, the example, the turn
    example = prompt.split("### Example")[1].split("### Your turn")[0]
    assert example.count("(Score:") <= width


def test_the_examples_name_no_topic_of_a_metaqa_question(metaqa_dir: Path) -> None:
    """ToG's examples are made up: "which languages are the films directed by [Joel Zwick] in"
    was MetaQA dev's "what are the languages spoken in the films directed by [Joel Zwick]"."""
    from readi_graph.core.prompts import load

    topics = {
        topic
        for hops in (1, 2, 3)
        for line in (metaqa_dir / f"{hops}-hop" / "vanilla" / "qa_dev.txt").open(encoding="utf-8")
        for topic in re.findall(r"\[([^\]]+)\]", line.split("\t")[0])
    }
    assert "Joel Zwick" in topics and len(topics) > 10_000
    for name in ("tog_relations", "tog_entities", "tog_entities_share", "tog_reason",
                 "tog_answer", "tog_knowledge"):  # fmt: skip
        examples = load(name).split("### Your turn")[0]
        named = set(re.findall(r"\[([^\]]+)\]", examples))
        assert not named & topics, (name, named & topics)
