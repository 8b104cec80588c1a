"""An edit's reply read into the next plan (paths written, kept, dropped), and the router's
decision once an edit can change nothing: no graph, no model, plain state."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from readi_graph.core.context import ReadiContext
from readi_graph.core.diagnosis import Diagnosis, Reason, diagnosis_record, fingerprint
from readi_graph.core.parsing import OutputParseError
from readi_graph.environments.kg.reasoning.editing import attempts_text, chosen_paths, parse_edit
from readi_graph.environments.kg.reasoning.parsing import dropped_topics, parse_kg_edit
from readi_graph.strategies.readi.nodes.diagnose import edit_stop, route_after_diagnose

TOPICS = ["Marta Nowak", "Gdansk Sharks"]


def _instance(topic: str, relations: list[str]) -> dict[str, Any]:
    return {"path": {"topic": topic, "relations": relations}}


def _state(**extra: Any) -> Any:
    return {
        "question": "q",
        "topic_entities": TOPICS,
        "plan": {
            "Marta Nowak": [["teams", "position"], ["position"]],
            "Gdansk Sharks": [["roster"]],
        },
        "instances": [
            _instance("Marta Nowak", ["teams", "position"]),
            _instance("Gdansk Sharks", ["roster"]),
        ],
        **extra,
    }


@pytest.mark.parametrize(
    ("reply", "dropped"),
    [
        ('Path: {"Gdansk Sharks": []}', {"Gdansk Sharks"}),
        ('Path: {"path": {"gdansk sharks": []}}', {"Gdansk Sharks"}),  # a schema reply, any case
        ('Path: {"Gdansk Sharks": [], "Marta Nowak": ["Marta Nowak -> teams"]}', {"Gdansk Sharks"}),
        ('Path: {"Gdansk Sharks": ["Gdansk Sharks -> roster -> player"]}', set()),
        ('Path: {"Gdansk Sharks": null}', set()),  # only an empty list drops
        ('Path: {"Nobody": []}', set()),  # not a topic entity
        ("Path: Gdansk Sharks -> roster", set()),
        ('Path: {"Gdansk Sharks": [}', set()),  # not JSON
    ],
)
def test_an_empty_list_drops_a_topic_entity(reply: str, dropped: set[str]) -> None:
    assert dropped_topics(reply, TOPICS) == dropped


def test_a_reply_that_only_drops_is_no_parse_error_and_paths_win() -> None:
    assert parse_kg_edit('Path: {"Gdansk Sharks": []}', TOPICS) == ({}, {"Gdansk Sharks"})
    with pytest.raises(OutputParseError):
        parse_kg_edit("no idea", TOPICS)
    both = 'Path: {"Gdansk Sharks": []}\nGdansk Sharks -> roster'  # a chain after the object
    assert parse_kg_edit(both, TOPICS) == ({"Gdansk Sharks": [("roster",)]}, set())  # a path wins


def test_the_next_plan_writes_keeps_and_drops() -> None:
    state = _state()
    assert parse_edit('Path: {"Gdansk Sharks": []}', state) == {
        "Marta Nowak": [["teams", "position"]],  # left out: its kept path, not every alternative
        "Gdansk Sharks": [],
    }
    after = _state(
        plan={"Marta Nowak": [["teams", "position"]], "Gdansk Sharks": []},
        instances=[_instance("Marta Nowak", ["teams", "position"])],
    )
    assert chosen_paths(after) == {"Marta Nowak": ["teams", "position"], "Gdansk Sharks": None}
    reply = 'Path: {"Marta Nowak": ["Marta Nowak -> teams -> roster"]}'
    assert parse_edit(reply, after) == {"Marta Nowak": [["teams", "roster"]], "Gdansk Sharks": []}
    back = 'Path: {"Gdansk Sharks": ["Gdansk Sharks -> roster -> player"]}'  # written again
    assert parse_edit(back, after)["Gdansk Sharks"] == [["roster", "player"]]
    with pytest.raises(OutputParseError, match="drops every topic entity's path"):
        parse_edit('Path: {"Marta Nowak": []}', after)


def test_how_far_each_path_got_comes_from_the_attempts_of_the_plan_diagnosed() -> None:
    attempts = [
        {"source": "generate", "topic": "Marta Nowak", "relations": ["x"], "failed_at": 0},
        {"source": "edit 1", "topic": "Marta Nowak", "relations": ["teams", "position"],
         "failed_at": 1, "topic_found": True},
        {"source": "edit 1", "topic": "Marta Nowak", "relations": ["position"], "failed_at": 0},
        {"source": "edit 1", "topic": "Gdansk Sharks", "relations": ["roster"],
         "failed_at": None, "compound_end": True},
    ]  # fmt: skip
    text = attempts_text(_state(attempts=attempts, edits_used=1))
    assert text.splitlines() == [
        '- Marta Nowak -> teams -> position: stuck at step 2 ("position") after 1 step (kept)',
        '- Marta Nowak -> position: stuck at step 1 ("position")',
        "- Gdansk Sharks -> roster: complete, but ends in compound nodes (kept)",
    ]
    unread = attempts_text(_state(attempts=attempts[:1], edits_used=1))  # nothing walked
    assert unread == "(nothing: the reply could not be read)"


def _diagnosed(**extra: Any) -> Any:
    diagnosis = diagnosis_record(Diagnosis([Reason("compound_end", "ends in <compound>")]))
    return {"diagnosis": diagnosis, "edits_used": 1, **extra}


def test_the_router_answers_once_an_edit_can_change_nothing() -> None:
    assert typing.get_type_hints(route_after_diagnose)["return"] == typing.Literal["edit", "answer"]
    state = _diagnosed()
    settings = ReadiContext()
    assert edit_stop(state, settings) is None and route_after_diagnose(state) == "edit"
    seen = _diagnosed(diagnoses_seen=[fingerprint(state["diagnosis"])])
    assert edit_stop(seen, settings) and "nothing new" in (edit_stop(seen, settings) or "")
    assert edit_stop(seen, ReadiContext(stop_hopeless=False)) is None  # the published loop
    assert route_after_diagnose({**seen, "edit_stop": edit_stop(seen, settings)}) == "answer"
    empty = _diagnosed()
    empty["diagnosis"]["hopeless"] = "nothing leads on"
    assert edit_stop(empty, settings) == "nothing leads on"
    spent = _diagnosed(diagnoses_seen=seen["diagnoses_seen"], edits_used=4)
    assert edit_stop(spent, settings) is None  # no edit was coming anyway: no stop to count
    changed = _diagnosed(diagnoses_seen=["0" * 16])
    assert edit_stop(changed, settings) is None
