"""Topic entities found in the question (`KnowledgeGraph.link_topic_entities`): longest names,
name-like spans before common words, ids in brackets, ambiguity and "none found" as notes, on
the embedded store and through the bounded look-ups an endpoint gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from readi_graph.core import markers
from readi_graph.core.run.counting import count_queries
from readi_graph.environments.kg.entities import linking, names
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store.local import load_metaqa, metaqa_iri

KB = """\
1941|directed_by|Steven Spielberg
1941|has_tags|film
Jaws|directed_by|Steven Spielberg
Jaws|has_tags|steven spielberg
Time Changer|starred_actors|Gavin MacLeod
In Time|starred_actors|Justin Timberlake
Her|directed_by|Spike Jonze
Directed by John Ford|directed_by|Peter Bogdanovich
The Searchers|directed_by|John Ford
Red River|starred_actors|John Wayne
River Queen|starred_actors|Temuera Morrison
Amélie|directed_by|Jean-Pierre Jeunet
Desperate Hours|directed_by|Michael Cimino
The Desperate Hours|directed_by|William Wyler
"""


@pytest.fixture(params=["embedded", "endpoint-like"])
def kg(request: pytest.FixtureRequest, tmp_path: Path) -> KnowledgeGraph:
    """The same KB scanned (embedded) and looked up span by span, as on an endpoint."""
    kb = tmp_path / "kb.txt"
    kb.write_text(KB, encoding="utf-8")
    scan = request.param == "embedded"
    return KnowledgeGraph(load_metaqa(kb), "metaqa", name="tiny", scan_labels=scan)


@pytest.mark.parametrize(
    ("question", "entities"),
    [
        ("which films did Steven Spielberg direct", ["Steven Spielberg"]),
        ("which film did Steven Spielberg direct?", ["Steven Spielberg"]),  # not "film"
        ("Steven Spielberg's films", ["Steven Spielberg"]),  # possessive
        ('who acted in "Jaws"', ["Jaws"]),  # quotes
        ("who stars in Time Changer", ["Time Changer"]),  # not "in Time"
        ("who directed Her", ["Her"]),  # stopwords only, when nothing else is found
        ("who directed 1941", ["1941"]),  # a number, likewise
        ("did John Wayne or Spike Jonze act in it", ["John Wayne", "Spike Jonze"]),
        ("who directed amélie", ["Amélie"]),  # up to case, in the KG's spelling
        ("which films directed by John Ford", ["Directed by John Ford"]),  # the longest
    ],
)
def test_the_longest_most_name_like_spans_are_linked(
    kg: KnowledgeGraph, question: str, entities: list[str]
) -> None:
    found = kg.link_topic_entities(question)
    assert found.entities == entities
    assert (
        found.notes[0]
        == "No topic entity was given; found in the question: "
        + ", ".join(f'"{e}"' for e in entities)
        + "."
    )
    for entity in entities:  # each resolves to what --entity would give
        assert kg.resolve(entity).found


def test_accents_are_ignored_where_labels_are_scanned(kg: KnowledgeGraph) -> None:
    found = kg.link_topic_entities("who directed amelie").entities
    # an endpoint looks up the usual spellings only: "amelie" is not one of "Amélie"'s
    assert found == (["Amélie"] if kg.names.scan_labels else [])


def test_nothing_found_is_a_note_not_an_error(kg: KnowledgeGraph) -> None:
    found = kg.link_topic_entities("what is the meaning of it all")
    assert found.entities == [] and found.notes == (linking.NONE_FOUND,)
    assert not found.ambiguous


def test_a_lower_case_name_with_another_spelling_is_ambiguous(kg: KnowledgeGraph) -> None:
    found = kg.link_topic_entities("what did steven spielberg direct")
    (mention,) = found.mentions
    assert mention.entity == "steven spielberg"  # the exact spelling (a tag), as --entity
    assert mention.others == ("Steven Spielberg",) and found.ambiguous
    assert '"steven spielberg" in the question may also mean "Steven Spielberg"' in found.notes[1]
    capitalized = kg.link_topic_entities("what did Steven Spielberg direct")
    assert not capitalized.ambiguous and len(capitalized.notes) == 1


def test_overlapping_names_of_one_length_are_another_reading(kg: KnowledgeGraph) -> None:
    found = kg.link_topic_entities("films like Red River Queen")  # "Red River", "River Queen"
    (mention,) = found.mentions
    assert mention.entity == "Red River" and mention.others == ("River Queen",)
    assert found.ambiguous and '"River Queen"' in found.notes[1]


def test_lower_case_stopwords_at_the_edges_belong_to_the_question(kg: KnowledgeGraph) -> None:
    found = kg.link_topic_entities("who directed the Desperate Hours")
    (mention,) = found.mentions  # not "the Desperate Hours", but that reading is noted
    assert mention.entity == "Desperate Hours" and mention.others == ("the Desperate Hours",)
    assert kg.link_topic_entities("who directed The Desperate Hours").entities == [
        "The Desperate Hours"
    ]


def test_bracketed_names_and_ids_are_taken_as_marked(kg: KnowledgeGraph) -> None:
    iri = metaqa_iri("Jaws")
    found = kg.link_topic_entities(f"who directed Jaws [{iri}] and what else")
    assert found.entities == [f"Jaws [{iri}]"]  # one entity: the name and its id
    assert kg.resolve(found.entities[0]).nodes[0].value == iri
    assert kg.link_topic_entities(f"who directed <{iri}>").entities == [f"Jaws [{iri}]"]
    again = kg.link_topic_entities(f"who directed <{iri}>, the film Jaws")  # one node, once
    assert again.entities == [f"Jaws [{iri}]"]
    # a marked name wins over common words and is enough
    assert kg.link_topic_entities("which film stars [In Time]").entities == ["In Time"]
    unknown = kg.link_topic_entities("who directed [Nope] Jaws")  # unknown marks are ignored
    assert unknown.entities == ["Jaws"]


def test_endpoint_look_ups_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text(KB, encoding="utf-8")
    kg = KnowledgeGraph(load_metaqa(kb), "metaqa", scan_labels=False)
    question = " ".join(["Jaws"] + [f"word{i}" for i in range(200)])  # 201 words
    monkeypatch.setattr(names, "NAMES_LIMIT", 500)
    with count_queries() as counted:
        found = kg.link_topic_entities(question)
    assert found.entities == ["Jaws"]
    lookups = -(-500 // names.NAMES_CHUNK)  # the spellings, NAMES_CHUNK to a query
    assert counted.n <= lookups + 3  # + the resolution of the one mention (and its spellings)


# --- every KG strategy links when no topic entity is given --------------------------------
ZEMECKIS = "which films did Robert Zemeckis direct"


def _directed_by_zemeckis() -> list[str]:
    from readi_graph.demo import DEMO_KB

    lines = DEMO_KB.read_text(encoding="utf-8").splitlines()
    return sorted(s for s, r, o in (x.split("|") for x in lines) if (r, o) == (
        "directed_by", "Robert Zemeckis"))  # fmt: skip


def _films_in_evidence(prompt: str) -> str:
    """An answer model that names every film of the evidence it was shown."""
    import re

    films = sorted(set(re.findall(r"\(([^,()]+), directed_by, Robert Zemeckis\)", prompt)))
    return "{" + "|".join(films) + "}"


@pytest.mark.parametrize("strategy", ["readi", "fidelis", "tog"])
def test_a_strategy_links_the_question_and_notes_it(strategy: str) -> None:
    from readi_graph.demo import demo_kg
    from readi_graph.graph import build_graph

    from fakes import FunctionModel, path

    def reply(prompt: str) -> str:
        if markers.KG_GENERATE in prompt:
            return path({"Robert Zemeckis": ["Robert Zemeckis -> directed"]})
        if markers.FIDELIS_PLAN in prompt:
            return (
                '{"keywords": ["directed by"], "planning_steps": [], "declarative_statement":'
                ' "Robert Zemeckis directed *placeholder*."}'
            )
        if markers.FIDELIS_VERIFY in prompt:
            return "yes"
        if markers.TOG_RELATIONS in prompt:
            return "{<- directed_by (Score: 1.0)}"
        if markers.TOG_REASON in prompt:
            return "{Yes} " + _films_in_evidence(prompt)
        return _films_in_evidence(prompt)

    model = FunctionModel(messages=iter([]), reply=reply)
    out = build_graph(demo_kg(), model, strategy=strategy).invoke({"question": ZEMECKIS})
    assert out["topic_entities"] == ["Robert Zemeckis"]
    assert out["notes"][0] == 'No topic entity was given; found in the question: "Robert Zemeckis".'
    # the first call was asked about that entity (a plan; ToG: the relations around it)
    assert (
        '["Robert Zemeckis"]' in model.prompts[0] or "Entity: Robert Zemeckis" in model.prompts[0]
    )
    if strategy == "readi":  # (FiDeLiS keeps the beam's best paths, not every film)
        assert sorted(out["answers"]) == _directed_by_zemeckis() and out["grounded"]


@pytest.mark.parametrize("strategy", ["readi", "fidelis", "tog"])
def test_given_topic_entities_win_and_none_found_costs_no_call(strategy: str) -> None:
    from readi_graph.demo import demo_kg
    from readi_graph.graph import build_graph

    from fakes import FunctionModel, path

    def reply(prompt: str) -> str:  # a plan for Tom Hanks, "no" to everything else
        return path({"Tom Hanks": ["Tom Hanks -> directed"]}) if "Path" in prompt else "no"

    model = FunctionModel(messages=iter([]), reply=reply)
    graph = build_graph(demo_kg(), model, strategy=strategy)
    given = graph.invoke({"question": ZEMECKIS, "topic_entities": ["Tom Hanks"]})
    first = model.prompts[0]
    assert given["topic_entities"] == ["Tom Hanks"]
    assert '["Tom Hanks"]' in first or "Entity: Tom Hanks" in first
    assert not any("found in the question" in n for n in given.get("notes") or [])
    calls = len(model.prompts)
    none = graph.invoke({"question": "what is the capital of Peru"})
    assert len(model.prompts) == calls and none["usage"]["llm_calls"] == 0  # no call at all
    assert none["topic_entities"] == [] and none["notes"] == [linking.NONE_FOUND]
    assert "no topic entity was given or found in the question" in none["answer"]
    assert none["answers"] == [] and not none["grounded"]


def test_bench_linking_counts_over_every_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`readi bench linking` on a made-up MetaQA layout: the brackets are removed before
    linking, and each rate is over all questions asked."""
    import json

    from readi_graph.cli import main

    (tmp_path / "kb.txt").write_text(KB + "Stars|directed_by|Nobody\n", encoding="utf-8")
    (tmp_path / "1-hop" / "vanilla").mkdir(parents=True)
    questions = [
        "who directed [Jaws]\tSteven Spielberg",  # right
        "who stars in [Time Changer]\tGavin MacLeod",  # right (not "in Time")
        "who stars in [Her]\tJoaquin Phoenix",  # wrong: "stars", a word, beats "Her"
        "[Red River] Queen actors\tJohn Wayne",  # right, with another reading
    ]
    (tmp_path / "1-hop" / "vanilla" / "qa_dev.txt").write_text("\n".join(questions) + "\n")
    (tmp_path / "1-hop" / "qa_dev_qtype.txt").write_text("movie_to_director\n" * 4)
    for mode in ([], ["--as-endpoint"]):
        assert main(["bench", "linking", "--data", str(tmp_path), "--hops", "1", *mode]) == 0
        result = json.loads(capsys.readouterr().out)["linking"]["1-hop"]
        assert result["n"] == 4 and result["exact"] == 0.75 == result["gold_linked"]
        assert result["ambiguous"] == 0.25 and result["none"] == 0 and result["extra"] == 0
        miss = {"question": "who stars in Her", "gold": "Her", "linked": ["Stars"]}
        assert result["misses"] == [miss]
