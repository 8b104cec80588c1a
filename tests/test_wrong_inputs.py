"""Wrong inputs get a clear answer (issue 30): through the command line (the table in
`tests/wrong_inputs.py`: the exit code, one line on stderr naming the culprit, no traceback)
and through `graph.invoke` of every registered strategy (a typed error naming the field),
with no model substituted or loaded behind the caller's back."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from readi_graph.cli import main
from readi_graph.core.base import InputError, PromptTooLong, QuestionTooLong
from readi_graph.core.context import ReadiContext
from readi_graph.core.models.choice import BUNDLED_NOTE, choose_model
from readi_graph.core.models.llm import ModelNotConfigured
from readi_graph.demo import demo_kg, demo_table
from readi_graph.graph import build_graph

from fakes import FunctionModel, scripted
from wrong_inputs import BAD_INPUT, Case, cases, fixtures, judge

CASE_NAMES = [c.name for c in cases(Path("/unused"))]


@pytest.fixture(autouse=True)
def _no_model_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing names or serves a model, and the bundled one must never load."""
    import readi_graph.core.local.model as local_model

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "READI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("READI_DEBUG", raising=False)
    monkeypatch.setattr(local_model, "local_available", lambda: True)
    monkeypatch.setattr(
        local_model, "local_chat_model", lambda *a, **k: pytest.fail("the bundled model loaded")
    )


def _run(case: Case, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> tuple[int, str, float]:
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    started = time.perf_counter()
    code = main(case.argv)
    return code, capsys.readouterr().err, time.perf_counter() - started


@pytest.mark.parametrize("name", CASE_NAMES)
def test_a_wrong_input_to_the_command_line_gets_one_line_and_its_exit_code(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    fixtures(tmp_path)
    case = next(c for c in cases(tmp_path) if c.name == name)
    code, err, seconds = _run(case, monkeypatch, capsys)
    assert judge(case, code, err, seconds) is None, err


def test_debug_shows_the_traceback_before_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    missing = str(tmp_path / "none.nt")
    for argv, env in (
        (["--debug", "ask", "--kg", missing, "q"], {}),
        (["ask", "--kg", missing, "q", "--debug"], {}),
        (["ask", "--kg", missing, "q"], {"READI_DEBUG": "1"}),
    ):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        assert main(argv) == BAD_INPUT
        err = capsys.readouterr().err
        assert "Traceback (most recent call last)" in err
        assert err.strip().splitlines()[-1] == f"readi: error: --kg {missing}: no such file"
    monkeypatch.delenv("READI_DEBUG")
    assert main(["ask", "--kg", missing, "q"]) == BAD_INPUT
    assert "Traceback" not in capsys.readouterr().err


def test_help_documents_the_exit_codes_and_the_model_order(capsys: Any) -> None:
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    for line in ("0  answered", "1  ran, but found no evidence", "2  bad input", "3  a model"):
        assert line in text
    assert main(["ask", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "default: READI_MODEL; with no name at all, gpt-4o-mini where" in shown


def test_ask_prints_the_text_of_a_json_answer() -> None:
    from readi_graph.cli.ask import shown_answer

    reply = '{"thought": "from the triples", "answers": ["Greek", "English"]}'
    assert shown_answer(reply) == "Greek; English\n  (reasoning: from the triples)"
    assert shown_answer('{"answers": []}') == "(none)"
    assert shown_answer("Greek, I think. {not json") == "Greek, I think. {not json"


# --- graph.invoke: every registered strategy -------------------------------------------------

KG_STRATEGIES = ("readi", "fidelis", "tog")
BAD_STATES: list[tuple[Any, str]] = [
    ({}, "no question"),
    ({"question": None}, "no question"),
    ({"question": 123}, "must be text, not int"),
    ({"question": ["who", "directed"]}, "must be text, not list"),
    ({"question": "   "}, "the question is empty"),
    ({"question": "why" + "?" * 20_000}, "20,003 characters; at most 4,000"),
    ({"question": "who directed it", "topic_entities": 5}, "topic_entities must be a list"),
    ({"question": "who directed it", "topic_entities": {"a": 1}}, "not dict"),
    ({"question": "who directed it", "topic_entities": ["Tom Hanks", 3]}, "topic_entities[1]"),
    ({"question": "q", "topic_entities": [f"e{i}" for i in range(40)]}, "at most 32"),
]


def _graph(strategy: str, env: str = "kg") -> Any:
    model = scripted(*["unused"] * 20)
    source = demo_table() if env == "table" else demo_kg()
    return build_graph(source, model, strategy=strategy), model


@pytest.mark.parametrize("strategy", [*KG_STRATEGIES, "readi-table"])
@pytest.mark.parametrize(("state", "words"), BAD_STATES)
def test_a_wrong_input_to_graph_invoke_is_a_typed_error_naming_it(
    strategy: str, state: Any, words: str
) -> None:
    graph, model = _graph(strategy.split("-")[0], "table" if "table" in strategy else "kg")
    with pytest.raises(InputError, match=words.replace("[", r"\[").replace("?", r"\?")) as caught:
        graph.invoke(state)
    assert "\n" not in str(caught.value) and not model.prompts  # one sentence, no call
    if "characters" in words:
        assert isinstance(caught.value, QuestionTooLong)


@pytest.mark.parametrize("strategy", KG_STRATEGIES)
def test_a_single_string_is_one_topic_entity_not_its_letters(strategy: str) -> None:
    graph, _ = _graph(strategy)
    given = {"question": "what did Joel Zwick direct", "topic_entities": "Joel Zwick"}
    first = next(iter(graph.stream(given, stream_mode="updates")))  # the first node's update
    assert next(iter(first.values()))["topic_entities"] == ["Joel Zwick"]


@pytest.mark.parametrize("strategy", KG_STRATEGIES)
def test_an_unknown_topic_entity_spends_no_model_call_and_is_named(strategy: str) -> None:
    graph, model = _graph(strategy)
    out = graph.invoke(
        {"question": "what did Nobody Atall direct", "topic_entities": ["Nobody Atall"]}
    )
    assert out["usage"]["llm_calls"] == 0 and not model.prompts
    assert '"Nobody Atall" is not in the knowledge graph' in out["notes"][0]
    assert '"Nobody Atall" is not in the knowledge graph' in out["answer"]
    assert out["answers"] == [] and not out.get("grounded")


def test_run_settings_out_of_range_are_refused() -> None:
    with pytest.raises(InputError, match=r"ReadiContext.max_edits must be .* at least 0, not -1"):
        ReadiContext(max_edits=-1)
    with pytest.raises(InputError, match="evidence_cap"):
        ReadiContext(evidence_cap=0)
    graph, _ = _graph("readi")
    with pytest.raises(InputError, match="max_edits"):  # a run context sent as JSON
        graph.invoke(
            {"question": "q", "topic_entities": ["Joel Zwick"]}, context={"max_edits": "2"}
        )


# --- models: never substituted silently ------------------------------------------------------


class LocalStandIn(FunctionModel):
    model_name: str = "local"  # what the bundled model answers to


def _local_stand_in(monkeypatch: pytest.MonkeyPatch, reply: str) -> list[str]:
    """The bundled model replaced by a scripted one answering to the same name."""
    import readi_graph.core.local.model as local_model

    built: list[str] = []

    def stand_in(*_: Any, **__: Any) -> Any:
        built.append("local")
        return LocalStandIn(messages=iter([]), reply=lambda _p: reply)

    monkeypatch.setattr(local_model, "local_chat_model", stand_in)
    return built


ZWICK = {"question": "what did Joel Zwick direct", "topic_entities": ["Joel Zwick"]}
PLAN = 'Path: {"Joel Zwick": ["Joel Zwick -> directed"]}'


def test_a_named_model_nothing_serves_is_an_error_not_the_bundled_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    graph = build_graph(demo_kg())
    with pytest.raises(ModelNotConfigured, match=r"'gpt-4o-mini' has nothing to serve it.*local"):
        graph.invoke(ZWICK, context=ReadiContext(model="gpt-4o-mini"))
    monkeypatch.setenv("READI_MODEL", "gpt-4o")
    with pytest.raises(ModelNotConfigured, match=r"'gpt-4o' \(from READI_MODEL\)"):
        graph.invoke(ZWICK)


def test_the_bundled_model_stands_in_only_when_nothing_is_named_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _local_stand_in(monkeypatch, PLAN)
    out = build_graph(demo_kg()).invoke(ZWICK)
    assert built == ["local"] and out["notes"][0] == BUNDLED_NOTE
    asked = build_graph(demo_kg(), "local").invoke(ZWICK)  # asked for: no note
    assert BUNDLED_NOTE not in asked["notes"] and len(built) == 2
    fidelis = build_graph(demo_kg(), strategy="fidelis").invoke(ZWICK)
    assert fidelis["notes"][0] == BUNDLED_NOTE


def test_a_prompt_over_the_bundled_models_context_is_refused_before_generating() -> None:
    from readi_graph.core.local.chat import fits

    fits(7_000, 384, 8_192)  # fits: nothing raised
    with pytest.raises(PromptTooLong, match=r"8,000 tokens .* 384; .* context holds 8,192"):
        fits(8_000, 384, 8_192)


def test_readi_ask_says_when_the_bundled_model_stands_in(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    built = _local_stand_in(monkeypatch, PLAN)
    main(["ask", "--entity", "Joel Zwick", "what did Joel Zwick direct"])
    captured = capsys.readouterr()
    assert built == ["local"] and captured.err.startswith("readi: no model named (--model")
    assert f"Note: {BUNDLED_NOTE}" in captured.out
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # a server: gpt-4o-mini
    assert choose_model(None).served_by == "openai" and len(built) == 1
