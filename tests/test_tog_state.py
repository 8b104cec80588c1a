"""ToG's state holds what its types say (strategies/tog/state.py): every value the graph
passes from node to node, and every depth record, checked key by key against the TypedDicts
at run time (mypy checks the code that writes them; this checks what a run writes, through
the `Any` a guarded environment step returns)."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
from typing_extensions import is_typeddict

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.strategies.tog.context import TogContext
from readi_graph.strategies.tog.state import Candidate, DepthRecord, TogState

from fakes import function_model, tog_kind
from tog_films import LANGUAGES, films_kg, tog_script


def problems(value: Any, tp: Any, where: str = "state") -> list[str]:
    """Where `value` is not a `tp` (TypedDicts exactly: no unknown key, no required key
    missing; JSON numbers: an int is a float, a bool is not an int)."""
    if tp is Any:
        return []
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not {tp.__name__}"]
        hints = get_type_hints(tp)
        out = [f"{where}: unknown key {k!r}" for k in value if k not in hints]
        out += [f"{where}: {k!r} missing" for k in tp.__required_keys__ if k not in value]
        return out + [p for k, v in value.items() if k in hints
                      for p in problems(v, hints[k], f"{where}.{k}")]  # fmt: skip
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        found = [problems(value, a, where) for a in args]
        return [] if any(not p for p in found) else min(found, key=len)
    if origin is Literal:
        return [] if value in args else [f"{where}: {value!r} not one of {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        return [p for i, v in enumerate(value) for p in problems(v, args[0], f"{where}[{i}]")]
    if origin is dict:
        return [] if isinstance(value, dict) else [f"{where}: not a dict"]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif tp is type(None):
        ok = value is None
    else:
        ok = isinstance(value, tp)
    return [] if ok else [f"{where}: {value!r} is not {getattr(tp, '__name__', tp)}"]


def states_of(
    kg: KnowledgeGraph, model: Any, question: dict[str, Any], **context: Any
) -> list[Any]:
    """The whole state after every step of one run."""
    graph = build_graph(kg, model, strategy="tog")
    return list(graph.stream(question, context=TogContext(**context), stream_mode="values"))


def assert_typed(states: list[Any]) -> None:
    assert states
    for step, state in enumerate(states):
        assert problems(state, TogState, f"step {step}") == []
        for i, record in enumerate(state.get("attempts") or []):
            assert problems(record, DepthRecord, f"step {step}: attempts[{i}]") == []


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeGraph:
    return films_kg(tmp_path_factory.mktemp("films"))


@pytest.mark.parametrize("context", [{}, {"keep_ties": False, "entity_scores": "share"}])
def test_every_state_of_a_two_hop_search_is_what_its_types_say(
    films: KnowledgeGraph, context: dict[str, Any]
) -> None:
    relations = {1: "{<- directed_by (Score: 1.0)}", 2: "{in_language (Score: 1.0)}"}
    model = tog_script(relations, scores=lambda lines: "Scores: " + ", ".join("1" for _ in lines))
    states = states_of(films, model, LANGUAGES, depth=2, **context)
    assert_typed(states)
    last = states[-1]
    films, languages = last["explored"]  # W films or more (ties), then their languages
    assert len(films) >= 3 and {c["name"] for c in languages} == {"Spanish", "English"}
    assert [a["depth"] for a in last["attempts"]] == [1, 2]
    assert {tog_kind(p) for p in model.prompts} >= {"relations", "entities"}


def test_the_state_through_compound_nodes_is_what_its_types_say(
    freebase_mini: KnowledgeGraph,
) -> None:
    def reply(prompt: str) -> str:
        if tog_kind(prompt) == "relations":
            return "{people.person.spouse_s (Score: 1.0)}"
        return "Scores: all" if tog_kind(prompt) == "entities" else "{Yes}. {Michelle Obama}"

    question = {"question": "who is Barack Obama married to", "topic_entities": ["Barack Obama"]}
    states = states_of(freebase_mini, function_model(reply), question, skip_needless_calls=False)
    assert_typed(states)
    kept: list[Candidate] = states[-1]["explored"][0]
    assert any(c["via"] and c["via"]["name"] == "people.marriage.spouse" for c in kept)


def test_the_check_finds_what_a_run_must_not_write(tmp_path: Path) -> None:
    pair = {"entity": 0, "relation": "r", "forward": True, "name": "r", "score": 1}
    assert problems({"pairs": [pair]}, TogState) == []  # an int score is a JSON number
    assert problems({"pairs": [{**pair, "weight": 1.0}]}, TogState) == [
        "state.pairs[0]: unknown key 'weight'"
    ]
    no_name = {k: v for k, v in pair.items() if k != "name"}
    assert problems({"pairs": [no_name]}, TogState) == ["state.pairs[0]: 'name' missing"]
    assert problems({"current": {"kind": "fidelis"}}, TogState) != []
    assert problems({"current": {"hops_left": None, "tied": True}}, TogState) == [
        "state.current.tied: True is not int"
    ]
    assert problems({"current": {}}, TogState) == []  # before the first depth
