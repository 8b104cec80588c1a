"""A person as the editor: the edit step pauses with interrupt() and resumes with the path."""

from __future__ import annotations

from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from readi_graph.core.context import ReadiContext
from readi_graph.demo import demo_kg
from readi_graph.environments.table.table import Table
from readi_graph.graph import build_graph

from fakes import path, routed

ZWICK = {
    "question": "which languages are the films directed by Joel Zwick in",
    "topic_entities": ["Joel Zwick"],
}
HUMAN = ReadiContext(editor="human", max_edits=2)


def _graph() -> object:
    model = routed(path({"Joel Zwick": ["Joel Zwick -> directed -> nationality"]}), "{Greek}")
    return build_graph(demo_kg(), model, checkpointer=InMemorySaver())


def test_the_run_pauses_with_the_diagnosis_and_resumes_with_the_persons_path() -> None:
    graph = _graph()
    config = {"configurable": {"thread_id": "a"}}
    paused = graph.invoke(ZWICK, config, context=HUMAN)  # type: ignore[attr-defined]
    (request,) = paused["__interrupt__"]
    payload = request.value
    assert payload["kind"] == "readi_edit" and payload["edit"] == 1
    assert "nationality" in payload["errors"] and "in_language" in payload["candidates"]
    assert "Joel Zwick -> directed_by -> My Big Fat Greek Wedding" in payload["instances"]
    assert "Candidate Relations" in payload["prompt"]  # what a model would have been told
    fixed = {"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}
    out = graph.invoke(Command(resume=fixed), config, context=HUMAN)  # type: ignore[attr-defined]
    assert out["answers"] == ["Greek"] and out["edits"] == 1
    assert out["usage"]["llm_calls"] == 2 and out["usage"]["human_edits"] == 1  # no model edit


def test_text_replies_unreadable_replies_and_the_budget() -> None:
    graph = _graph()
    config = {"configurable": {"thread_id": "b"}}
    graph.invoke(ZWICK, config, context=HUMAN)  # type: ignore[attr-defined]
    again = graph.invoke(Command(resume="???"), config, context=HUMAN)  # type: ignore[attr-defined]
    payload = again["__interrupt__"][0].value  # an unreadable reply is edit feedback
    assert payload["edit"] == 2 and "could not be read" in payload["errors"]
    out = graph.invoke(  # type: ignore[attr-defined]
        Command(resume="Path: Joel Zwick -> directed -> in_language"), config, context=HUMAN
    )
    assert out["answers"] == ["Greek"] and out["edits"] == 2
    # a budget of 2 is spent: a third wrong reply ends the run instead of asking again
    graph.invoke(ZWICK, {"configurable": {"thread_id": "c"}}, context=HUMAN)  # type: ignore[attr-defined]
    for _ in range(2):
        last = graph.invoke(
            Command(resume="???"), {"configurable": {"thread_id": "c"}}, context=HUMAN
        )  # type: ignore[attr-defined]
    assert "__interrupt__" not in last and last["edits"] == 2


def test_an_empty_reply_ends_editing_and_answers_from_the_walk_so_far() -> None:
    graph = _graph()
    config = {"configurable": {"thread_id": "stop"}}
    graph.invoke(ZWICK, config, context=HUMAN)  # type: ignore[attr-defined]
    out = graph.invoke(Command(resume=""), config, context=HUMAN)  # type: ignore[attr-defined]
    assert "__interrupt__" not in out and out["edits"] == 0  # no edit spent
    assert out["usage"]["human_stops"] == 1 and "human_edits" not in out["usage"]
    assert ["My Big Fat Greek Wedding", "directed_by", "Joel Zwick"] in out["evidence"]
    assert any("deepest partial walk" in n for n in out["notes"])


def test_a_person_edits_a_table_plan(tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("Year,League\n2001,USL A-League\n2002,USL A-League\n2005,USL First Division\n")
    model = routed('Chosen Headers: ["Season", "League"]\nConstraints: {}', 'Answer: ["2002"]')
    graph = build_graph(Table.from_csv(csv), model, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    paused = graph.invoke({"question": "last year in the USL A-League?"}, config, context=HUMAN)
    payload = paused["__interrupt__"][0].value
    assert "Season" in payload["errors"] and "Year" in payload["prompt"]
    plan = {"headers": ["Year", "League"], "constraints": {"League": ["USL A-League"]}}
    out = graph.invoke(Command(resume=plan), config, context=HUMAN)
    assert out["answers"] == ["2002"] and out["usage"]["human_edits"] == 1


def test_a_person_edits_through_ainvoke_too() -> None:
    """The async path pauses and resumes the same way (the edit body runs in the executor)."""
    import asyncio

    graph = _graph()
    config = {"configurable": {"thread_id": "async"}}

    async def run() -> dict[str, object]:
        paused = await graph.ainvoke(ZWICK, config, context=HUMAN)  # type: ignore[attr-defined]
        assert paused["__interrupt__"][0].value["kind"] == "readi_edit"
        fixed = {"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}
        return await graph.ainvoke(Command(resume=fixed), config, context=HUMAN)  # type: ignore[attr-defined,no-any-return]

    out = asyncio.run(run())
    assert out["answers"] == ["Greek"] and out["usage"]["human_edits"] == 1  # type: ignore[index]
