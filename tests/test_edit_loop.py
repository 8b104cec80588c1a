"""Readi's edit loop on Freebase-shaped subgraphs (tests/fixtures/edit_loop), with scripted
models: what the edit prompt tells the editor (errors, candidates, earlier steps, every
alternative), and what the loop does with the reply (calls spent, paths kept or dropped,
evidence). Each case is one the issue saw with a capable model on CWQ: compound nodes whose
relations all point into them, a dead end behind a rebound relation, a path to drop, an edit
that can change nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from readi_graph.core import markers
from readi_graph.core.context import ReadiContext
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.name_triples import name_triples_kg
from readi_graph.environments.kg.reasoning.diagnosis import NOTHING_LEFT, diagnose
from readi_graph.environments.kg.reasoning.instantiation import Instance, connect
from readi_graph.environments.kg.relations.paths import Candidate, KGPath
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS
from readi_graph.graph import build_graph

from fakes import ScriptedModel, path, scripted

FIXTURES = Path(__file__).parent / "fixtures" / "edit_loop" / "subgraphs.jsonl"
RECORDS = {r["id"]: r for r in map(json.loads, FIXTURES.read_text().splitlines())}
LIMIT = {"recursion_limit": 60}
OFFICE = "government.government_office_or_title."
PM = "Prime Minister of Zembla"


def kg_of(case: str) -> KnowledgeGraph:
    return name_triples_kg([tuple(t) for t in RECORDS[case]["graph"]])  # type: ignore[misc]


def run(case: str, *replies: str, **settings: Any) -> tuple[dict[str, Any], ScriptedModel]:
    record = RECORDS[case]
    llm = scripted(*replies)
    question = {"question": record["question"], "topic_entities": record["q_entity"]}
    out = build_graph(kg_of(case), llm).invoke(question, LIMIT, context=ReadiContext(**settings))
    return out, llm


def edit_prompts(llm: ScriptedModel) -> list[str]:
    """The edit prompts' own part (after the demonstrations)."""
    return [p.split("### Your turn", 1)[1] for p in llm.prompts if markers.KG_EDIT in p]


def section(prompt: str, label: str) -> str:
    return prompt.split(label, 1)[1].split("\n", 1)[0]


def errors(prompt: str) -> str:
    return prompt.split(">>>> Error Message\n", 1)[1].split(">>>> Instantiation Context", 1)[0]


# --- compound nodes whose every relation points into them ------------------------------------
ROSTER_PLAN = path(
    {"Marta Nowak": ["Marta Nowak -> sports.pro_athlete.teams", "Marta Nowak -> team mates"]}
)
ROSTER_FIX = path(
    {"Marta Nowak": ["Marta Nowak -> sports.pro_athlete.teams -> sports.sports_team.roster"]}
)


def test_incoming_relations_that_lead_on_are_offered_and_the_way_back_is_not() -> None:
    out, llm = run("made-up-roster", ROSTER_PLAN, ROSTER_FIX, "{Gdansk Sharks | Warsaw Owls}")
    (prompt,) = edit_prompts(llm)
    assert section(prompt, "Candidate Relations: ") == "<- sports.sports_team.roster"
    assert errors(prompt) == (
        '1. the path from "Marta Nowak" ends in compound nodes (<compound>) after step 1 '
        '("sports.pro_athlete.teams"), which are not answers: add one more relation from '
        "Candidate Relations, from the compound nodes to a named entity (either direction)\n"
    )
    assert section(prompt, "Earlier Relations: ") == (
        "step 1 (from Marta Nowak): sports.pro_athlete.teams, people.person.nationality"
    )
    # both alternatives echoed, each with how far it got
    assert json.loads(section(prompt, "Previous Path: ")) == json.loads(
        ROSTER_PLAN.split("Path: ", 1)[1]
    )
    assert (
        "- Marta Nowak -> sports.pro_athlete.teams: complete, but ends in compound nodes (kept)\n"
        in prompt
    )
    assert "- Marta Nowak -> team mates: complete, but ends in compound nodes\n" in prompt
    # the reply walks the roster edges backwards, from the roster nodes to the teams
    assert out["usage"]["llm_calls"] == 3 and out["edits"] == 1
    assert ["Warsaw Owls", "sports.sports_team.roster", "<compound 2>"] in out["evidence"]
    assert out["answers"] == ["Gdansk Sharks", "Warsaw Owls"] and out["grounded"]


def test_the_paper_preset_shows_what_the_published_loop_showed() -> None:
    _, llm = run(
        "made-up-roster", ROSTER_PLAN, ROSTER_FIX, "{Gdansk Sharks}", edit_feedback="paper"
    )
    (prompt,) = edit_prompts(llm)
    assert "How Far Each Path Got" not in prompt and "Earlier Relations" not in prompt
    assert section(prompt, "Previous Path: ") == (
        '{"Marta Nowak": ["Marta Nowak -> sports.pro_athlete.teams"]}'  # the kept one only
    )
    assert section(prompt, "Candidate Relations: ") == (
        "<- sports.pro_athlete.teams, <- sports.sports_team.roster"
    )
    assert "add the relation that leads on to a named entity" in errors(prompt)


# --- a dead end, behind a relation read as the one that reached it ----------------------------
OFFICE_PLAN = path({PM: [f"{PM} -> {OFFICE}office_holders -> {OFFICE}jurisdiction"]})
OFFICE_FIX = path({PM: [f"{PM} -> government.governmental_jurisdiction.government_positions"]})


def test_a_dead_end_says_back_up_and_names_what_the_relation_was_read_as() -> None:
    out, llm = run("made-up-office", OFFICE_PLAN, OFFICE_FIX, "{Zembla}")
    (prompt,) = edit_prompts(llm)
    error = errors(prompt)
    assert error.startswith(
        f'1. relation "{OFFICE}jurisdiction" (step 2 from "{PM}") is not in this knowledge graph '
        f"and was read as {OFFICE}office_holders, "
    )
    # the relation it was read as is the one that reached the position nodes: it goes back
    assert (
        f"({OFFICE}office_holders, {OFFICE}category only lead back the way the path came)" in error
    )
    assert error.endswith(
        f'nothing leads on from the nodes reached by step 1 ("{OFFICE}office_holders"): end the '
        "path after step 1 if the nodes it reached answer the question, or back up: replace "
        "step 1 or an earlier step with a relation from Earlier Relations\n"
    )  # step 1 also reached "Prime minister", a named node, by the office's category
    assert section(prompt, "Candidate Relations: ") == "(none)"
    earlier = section(prompt, "Earlier Relations: ")
    assert earlier.startswith(f"step 1 (from {PM}): ")
    assert "<- government.governmental_jurisdiction.government_positions" in earlier
    assert out["usage"]["llm_calls"] == 3 and out["edits"] == 1
    assert "Zembla" in out["answers"] and out["grounded"]


def test_an_edit_that_can_change_nothing_is_not_made() -> None:
    """The editor writes the same path again: the diagnosis repeats the one it was given,
    so the next edit prompt would too. The published loop spends its whole budget on it."""
    replies = [OFFICE_PLAN] * 5 + ["{Prime minister}"]
    out, llm = run("made-up-office", *replies)
    assert out["usage"]["llm_calls"] == 3 and out["edits"] == 1  # plan, one edit, answer
    assert out["usage"]["edit_stops"] == 1 and out["usage"]["edits_spared"] == 3
    note = (
        "Editing stopped after 1 edit with 3 left unspent: the last edit led to a diagnosis "
        "the editor had already been given: it has nothing new to work from."
    )
    assert note in out["notes"]  # the run's notes; not the answer prompt's (nothing to act on)
    assert "Notes:" in llm.prompts[-1] and "Editing stopped" not in llm.prompts[-1]
    kept, llm = run("made-up-office", *replies, stop_hopeless=False)
    prompts = edit_prompts(llm)
    assert (
        kept["usage"]["llm_calls"] == 6 and kept["edits"] == 4 and "edit_stops" not in kept["usage"]
    )
    assert len(set(prompts)) == 1 and len(prompts) == 4  # the same prompt four times
    assert kept["evidence"] == out["evidence"]  # and nothing more found


def test_nothing_to_walk_from_the_topic_spends_no_edit() -> None:
    out, _ = run("made-up-lonely", path({"Lonely Hill": ["Lonely Hill -> part of range"]}))
    assert out["usage"]["llm_calls"] == 1 and out["edits"] == 0  # the plan; no evidence, no answer
    assert out["usage"]["edit_stops"] == 1 and out["usage"]["edits_spared"] == 4
    assert out["answers"] == [] and "no evidence" in out["answer"]
    assert any("no relation leads on from where the paths stopped" in n for n in out["notes"])
    out, _ = run("made-up-lonely", *[path({"Lonely Hill": ["Lonely Hill -> part of range"]})] * 5,
                 stop_hopeless=False)  # fmt: skip
    assert out["usage"]["llm_calls"] == 5 and out["edits"] == 4


# --- a path the editor drops ------------------------------------------------------------------
POSITION_PLAN = path(
    {
        "Marta Nowak": [
            "Marta Nowak -> sports.pro_athlete.teams -> sports.sports_team_roster.position",
            "Marta Nowak -> position",
        ],
        "Gdansk Sharks": ["Gdansk Sharks -> sports.sports_team.roster"],
    }
)


def _roster_triples(out: dict[str, Any]) -> list[list[str]]:
    return [t for t in out["evidence"] if t[:2] == ["Gdansk Sharks", "sports.sports_team.roster"]]


@pytest.mark.parametrize("reply", ['{"Gdansk Sharks": []}', '{"path": {"Gdansk Sharks": []}}'])
def test_a_dropped_path_is_not_walked_and_gives_no_evidence(reply: str) -> None:
    out, llm = run(
        "made-up-position", POSITION_PLAN, f"Thought: drop it.\nPath: {reply}", "{Forward}"
    )
    (prompt,) = edit_prompts(llm)
    assert (
        "- Marta Nowak -> sports.pro_athlete.teams -> sports.sports_team_roster.position: "
        "complete: reaches named entities (kept)\n"
        "- Marta Nowak -> position: not tried (an earlier alternative reached named entities)\n"
        "- Gdansk Sharks -> sports.sports_team.roster: complete, but ends in compound nodes (kept)"
    ) in prompt
    assert out["usage"]["llm_calls"] == 3 and out["edits"] == 1
    assert out["path"] == [
        "Marta Nowak -> sports.pro_athlete.teams -> sports.sports_team_roster.position"
    ]
    assert [a["topic"] for a in out["attempts"] if a["source"] == "edit 1"] == ["Marta Nowak"]
    assert len(_roster_triples(out)) <= 1  # the player's own roster node, not the team's 13
    assert not any("their union" in n for n in out["notes"])


def test_a_path_left_out_is_kept_where_a_dropped_one_is_not() -> None:
    keep = path(
        {
            "Marta Nowak": [
                "Marta Nowak -> sports.pro_athlete.teams -> sports.sports_team_roster.position"
            ]
        }
    )
    out, _ = run("made-up-position", POSITION_PLAN, keep, "{Forward}")
    assert len(_roster_triples(out)) == 13  # the team's path still walked, to its roster
    assert any("share no answer" in n for n in out["notes"])  # both paths reached their end


# --- the diagnosis alone, on the walk a model's exact ids make --------------------------------
def _walk(kg: KnowledgeGraph, topic: str, *relations: str) -> Instance:
    """`relations` are ids bound to themselves alone (no other candidate)."""
    path = KGPath(topic, relations)
    return connect(kg, path, [(Candidate(FREEBASE_NS + r),) for r in relations])


def test_a_dead_end_of_compound_nodes_backs_up_and_only_an_empty_one_is_hopeless() -> None:
    kg = kg_of("made-up-office")
    stuck = _walk(kg, PM, f"{OFFICE}office_holders", f"{OFFICE}office_holders")
    d = diagnose(kg, "what country", [stuck])
    (reason,) = d.reasons
    assert reason.message.endswith(  # the position nodes are all it reached: no end to stop at
        f'nothing leads on from the nodes reached by step 1 ("{OFFICE}office_holders"): back up: '
        "replace step 1 or an earlier step with a relation from Earlier Relations"
    )
    assert f"({OFFICE}office_holders only leads back the way the path came)" in reason.message
    assert d.candidates == [] and d.hopeless == ""  # step 1 has other relations to take
    alone = name_triples_kg([(PM, f"{OFFICE}office_holders", f"m.0held{i}") for i in range(3)])
    d = diagnose(alone, "q", [_walk(alone, PM, f"{OFFICE}office_holders", "x.y.z")])
    assert d.hopeless == NOTHING_LEFT and d.candidates == []
    assert d.earlier[0][2][0].name == f"{OFFICE}office_holders"  # only the one walked


def test_a_dropped_path_stays_dropped_after_an_unreadable_reply() -> None:
    """Edit 1 drops the team's path while the player's is still stuck; edit 2 cannot be read;
    edit 3 fixes the player's path. The team's path is never asked for again nor shown."""
    stuck = path({"Marta Nowak": ["Marta Nowak -> sports.pro_athlete.teams -> shoe size"],
                  "Gdansk Sharks": []})  # fmt: skip
    fixed = path(
        {
            "Marta Nowak": [
                "Marta Nowak -> sports.pro_athlete.teams -> sports.sports_team_roster.position"
            ]
        }
    )
    out, llm = run("made-up-position", path({"Marta Nowak": ["Marta Nowak -> shoe size"],
                   "Gdansk Sharks": ["Gdansk Sharks -> sports.sports_team.roster"]}),
                   stuck, "???", fixed, "{Forward}")  # fmt: skip
    _, second, third = edit_prompts(llm)
    assert "could not be read" in errors(third)
    for later in (second, third):
        assert "Gdansk Sharks ->" not in later.split(">>>> Error Message")[0]  # not echoed
        assert "Gdansk Sharks" not in errors(later)  # nothing asked of it
    assert out["edits"] == 3 and len(_roster_triples(out)) <= 1  # the player's own, not 13
    assert [p.split(" -> ")[0] for p in out["path"]] == ["Marta Nowak"]
