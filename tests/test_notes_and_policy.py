"""What the answer model is told is also what the caller gets: `notes` (constraints that did
not meet, homonyms, caps, partial walks), and the answer policy (evidence, or evidence and
the model's own knowledge) for Readi on KGs and tables and for FiDeLiS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.core.context import ReadiContext
from readi_graph.demo import demo_kg
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store.local import load_ntriples
from readi_graph.environments.table.table import Table
from readi_graph.graph import build_graph

from fakes import function_model

EX = "http://example.org/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
DESCRIPTION = "http://schema.org/description"


def _kg() -> KnowledgeGraph:
    return KnowledgeGraph(load_ntriples(
        f'<{EX}ann> <{LABEL}> "Ann" .\n<{EX}bob> <{LABEL}> "Bob" .\n'
        f'<{EX}ann> <{EX}lives_in> <{EX}oslo> .\n<{EX}oslo> <{LABEL}> "Oslo" .\n'
        f'<{EX}bob> <{EX}lives_in> <{EX}rome> .\n<{EX}rome> <{LABEL}> "Rome" .\n'
        f'<{EX}p1> <{LABEL}> "Paris" .\n<{EX}p1> <{DESCRIPTION}> "capital of France" .\n'
        f'<{EX}p2> <{LABEL}> "Paris" .\n<{EX}p2> <{DESCRIPTION}> "town in Texas" .\n'
        f'<{EX}p1> <{EX}mayor> <{EX}ann> .\n<{EX}p2> <{EX}mayor> <{EX}bob> .\n'
    ))  # fmt: skip


def _model(paths: dict[str, list[str]], prompts: list[str]) -> object:
    def reply(prompt: str) -> str:
        prompts.append(prompt)
        return "Path: " + json.dumps(paths) if "Topic Entities:" in prompt else "{Oslo}"

    return function_model(reply)


def test_constraints_that_share_no_answer_are_never_silent() -> None:
    prompts: list[str] = []
    model = _model({"Ann": ["Ann -> lives_in"], "Bob": ["Bob -> lives_in"]}, prompts)
    out = build_graph(_kg(), model).invoke(
        {"question": "where do Ann and Bob both live?", "topic_entities": ["Ann", "Bob"]}
    )
    (note,) = [n for n in out["notes"] if "share no answer" in n]
    assert '"Ann"' in note and '"Bob"' in note
    assert "Notes:\n- " + note in prompts[-1]  # the answer model was told the same


def test_homonyms_are_told_apart_in_notes_and_prompt() -> None:
    prompts: list[str] = []
    out = build_graph(_kg(), _model({"Paris": ["Paris -> mayor"]}, prompts)).invoke(
        {"question": "who is the mayor of Paris?", "topic_entities": ["Paris"]}
    )
    (note,) = [n for n in out["notes"] if "capital of France" in n]
    assert "town in Texas" in note and note in prompts[-1]


def test_a_partial_walk_is_said_to_be_partial() -> None:
    prompts: list[str] = []
    model = _model({"Ann": ["Ann -> lives_in -> mayor -> founded"]}, prompts)
    out = build_graph(_kg(), model).invoke(
        {"question": "?", "topic_entities": ["Ann"]}, context=ReadiContext(max_edits=0)
    )
    assert any("deepest partial walk" in n for n in out["notes"])


def test_the_answer_policy_reaches_every_answer_prompt(tmp_path: Path) -> None:
    kg_prompts: list[str] = []
    graph = build_graph(demo_kg(), _model({"Joel Zwick": ["Joel Zwick -> directed"]}, kg_prompts))
    question = {"question": "what did Joel Zwick direct", "topic_entities": ["Joel Zwick"]}
    graph.invoke(question)
    assert "Answer the question using only the knowledge triples" in kg_prompts[-1]
    assert "your own knowledge" not in kg_prompts[-1]
    graph.invoke(question, context=ReadiContext(answer_from="evidence_and_knowledge"))
    assert (
        "knowledge triples (subject, relation, object) below and your own knowledge"
        in kg_prompts[-1]
    )

    reasoned: list[str] = []
    fidelis = build_graph(
        demo_kg(), function_model(lambda p: reasoned.append(p) or "{x}"), strategy="fidelis"
    )
    fidelis.invoke(question, context=ReadiContext(answer_from="evidence_and_knowledge"))
    assert (
        "reasoning paths below, found in a knowledge graph and your own knowledge" in reasoned[-1]
    )

    csv = tmp_path / "t.csv"
    csv.write_text("Year,League\n2001,USL A-League\n2002,USL A-League\n")
    rows: list[str] = []

    def table_reply(prompt: str) -> str:
        rows.append(prompt)
        return (
            'Chosen Headers: ["Year", "League"]\nConstraints: {"League": ["nothing like it"]}'
            if "from a table" in prompt
            else 'Answer: ["2002"]'
        )

    out = build_graph(Table.from_csv(csv), function_model(table_reply)).invoke(
        {"question": "last year?"}, context=ReadiContext(answer_from="evidence_and_knowledge")
    )
    assert "table rows below (the columns chosen for it) and your own knowledge" in rows[-1]
    assert out["notes"] and out["notes"][0] in rows[-1]  # all rows shown: told, and said


def test_two_marriages_are_two_numbered_compounds_with_their_own_dates() -> None:
    """Two compound nodes of one person printed as the same `<compound>`: the model could not
    tell which date belongs to which spouse."""
    ns, date = "http://rdf.freebase.com/ns/", "http://www.w3.org/2001/XMLSchema#date"
    name = ns + "type.object.name"
    kg = KnowledgeGraph(load_ntriples(
        f'<{ns}m.liz> <{name}> "Elizabeth Taylor"@en .\n<{ns}m.rb> <{name}> "Richard Burton"@en .\n'
        f'<{ns}m.ew> <{name}> "Eddie Fisher"@en .\n'
        f'<{ns}m.liz> <{ns}people.person.spouse_s> <{ns}m.c1> .\n'
        f'<{ns}m.liz> <{ns}people.person.spouse_s> <{ns}m.c2> .\n'
        f'<{ns}m.c1> <{ns}people.marriage.spouse> <{ns}m.ew> .\n'
        f'<{ns}m.c2> <{ns}people.marriage.spouse> <{ns}m.rb> .\n'
        f'<{ns}m.c1> <{ns}people.marriage.from> "1959-05-12"^^<{date}> .\n'
        f'<{ns}m.c2> <{ns}people.marriage.from> "1964-03-15"^^<{date}> .\n'
    ))  # fmt: skip
    prompts: list[str] = []
    model = _model({"Elizabeth Taylor": ["Elizabeth Taylor -> spouse_s -> spouse"]}, prompts)
    out = build_graph(kg, model).invoke(
        {
            "question": "whom did Elizabeth Taylor marry in 1964?",
            "topic_entities": ["Elizabeth Taylor"],
        }
    )
    rows = {tuple(t) for t in out["evidence"]}
    by_spouse = {o: s for s, p, o in rows if p.endswith("marriage.spouse")}
    assert by_spouse["Eddie Fisher"] != by_spouse["Richard Burton"]  # told apart
    assert {by_spouse["Eddie Fisher"], by_spouse["Richard Burton"]} == {
        "<compound 1>",
        "<compound 2>",
    }
    dates = {s: o for s, p, o in rows if p.endswith("marriage.from")}  # their other facts
    assert dates[by_spouse["Richard Burton"]] == "1964-03-15"
    assert dates[by_spouse["Eddie Fisher"]] == "1959-05-12"
    assert f"({by_spouse['Richard Burton']}, people.marriage.from, 1964-03-15)" in prompts[-1]


def test_a_cut_keeps_whole_chains_the_most_relevant_first() -> None:
    from readi_graph.environments.kg.reasoning.render import by_relevance

    rows = [
        ["Zwick", "directed", "Fat Albert"], ["Fat Albert", "in_language", "English"],
        ["Zwick", "directed", "Greek Wedding"], ["Greek Wedding", "in_language", "Greek"],
        ["Zwick", "directed", "Second Wedding"], ["Second Wedding", "in_language", "Greek"],
    ]  # fmt: skip
    # chains link through shared nodes but not through the topic: {0, 1} and {2, 3, 4, 5}
    greek = by_relevance("which Greek films did Zwick direct", rows, 5, ["Zwick"])
    assert greek == rows[2:]  # the relevant chain whole; Fat Albert's would pass the cap
    assert by_relevance("which films are in English", rows, 2, ["Zwick"]) == rows[:2]
    assert sorted(map(tuple, by_relevance("x", rows, 6, ["Zwick"]))) == sorted(map(tuple, rows))


def _three_films() -> KnowledgeGraph:
    return KnowledgeGraph(load_ntriples("".join(
        f'<{EX}{film}> <{EX}directed_by> <{EX}zwick> .\n<{EX}{film}> <{EX}in_language> <{EX}{lang}> .\n'
        f'<{EX}{film}> <{LABEL}> "{film}" .\n<{EX}{lang}> <{LABEL}> "{lang}" .\n'
        for film, lang in (("Fat_Albert", "English"), ("Greek_Wedding", "Greek"), ("Elsa", "German"))
    ) + f'<{EX}zwick> <{LABEL}> "Joel Zwick" .\n'))  # fmt: skip


@pytest.mark.parametrize("layout", ["chains", "flat"])
def test_the_prompt_shows_whole_chains_when_evidence_is_cut(layout: str) -> None:
    prompts: list[str] = []
    model = _model({"Joel Zwick": ["Joel Zwick -> directed_by -> in_language"]}, prompts)
    out = build_graph(_three_films(), model).invoke(
        {"question": "which Greek films did Joel Zwick direct", "topic_entities": ["Joel Zwick"]},
        context=ReadiContext(evidence_cap=3, evidence_layout=layout),  # type: ignore[arg-type]
    )
    shown = [line.strip() for line in prompts[-1].split("Knowledge Triples:\n")[-1].splitlines()
             if line.strip().startswith("(")]  # fmt: skip
    assert len(out["evidence"]) == 6 and len(shown) == 2  # one whole chain, not 1.5
    assert shown == [  # the chain naming the question's "Greek"
        "(Greek_Wedding, directed_by, Joel Zwick)",
        "(Greek_Wedding, in_language, Greek)",
    ]
    said = {
        "chains": "2 of 3 chains, 4 of 6 triples; 2 of 3 end nodes are the end of no chain",
        "flat": "4 of 6 triples are not shown (whole connected groups were cut",
    }[layout]
    assert any(said in n for n in out["notes"]), out["notes"]
    assert not any("whole chains were kept" in n for n in out["notes"])


def test_the_frontier_cap_keeps_the_nodes_other_constraints_reached() -> None:
    """Ann likes five things, Bob one of them; with a cap of 2 nodes per step Ann's walk kept
    two others and the question 'what do both like' met nothing."""
    from readi_graph.environments.kg.knowledge_graph import KGSettings

    text = f'<{EX}ann> <{LABEL}> "Ann" .\n<{EX}bob> <{LABEL}> "Bob" .\n'
    text += "".join(
        f'<{EX}ann> <{EX}likes> <{EX}x{i}> .\n<{EX}x{i}> <{LABEL}> "thing {i}" .\n'
        for i in range(1, 6)
    )
    text += f"<{EX}bob> <{EX}likes> <{EX}x5> .\n"
    kg = KnowledgeGraph(load_ntriples(text), KGSettings(frontier_cap=2))
    prompts: list[str] = []
    model = _model({"Ann": ["Ann -> likes"], "Bob": ["Bob -> likes"]}, prompts)
    out = build_graph(kg, model).invoke(
        {"question": "what do Ann and Bob both like?", "topic_entities": ["Ann", "Bob"]}
    )
    assert not any("share no answer" in n for n in out["notes"])
    assert ["Ann", "likes", "thing 5"] in out["evidence"]
    assert {o for s, _, o in out["evidence"]} == {"thing 5"}
    assert any("kept 2 nodes per step" in n for n in out["notes"])  # the cap is still said


def test_a_read_capped_in_the_query_still_finds_what_other_constraints_reached() -> None:
    """With one row read per relation, Ann's walk sees one liked thing, the store's first; the
    one Bob likes is another, and is looked for on purpose (one more query)."""
    from readi_graph.core.base import Term
    from readi_graph.environments.kg.knowledge_graph import KGSettings

    ann = f'<{EX}ann> <{LABEL}> "Ann" .\n<{EX}bob> <{LABEL}> "Bob" .\n'
    ann += "".join(
        f'<{EX}ann> <{EX}likes> <{EX}x{i}> .\n<{EX}x{i}> <{LABEL}> "thing {i}" .\n'
        for i in range(1, 6)
    )
    settings = KGSettings(frontier_cap=2, rows_per_relation=1)
    first = KnowledgeGraph(load_ntriples(ann), settings).expand(
        [Term.iri(EX + "ann")], [EX + "likes"], []
    )
    assert first.truncated and len(first.edges) == 1
    other = next(i for i in range(1, 6) if Term.iri(f"{EX}x{i}") != first.edges[0].target)
    kg = KnowledgeGraph(load_ntriples(ann + f"<{EX}bob> <{EX}likes> <{EX}x{other}> .\n"), settings)
    prompts: list[str] = []
    model = _model({"Ann": ["Ann -> likes"], "Bob": ["Bob -> likes"]}, prompts)
    out = build_graph(kg, model).invoke(
        {"question": "what do Ann and Bob both like?", "topic_entities": ["Ann", "Bob"]}
    )
    assert {o for s, _, o in out["evidence"]} == {f"thing {other}"}
    assert not any("share no answer" in n for n in out["notes"])
