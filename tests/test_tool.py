"""`as_tool`: a Readi graph as a LangChain tool, called by a prebuilt ReAct agent."""

from __future__ import annotations

import asyncio
import json
from typing import Any, TypedDict

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, StateGraph

from readi_graph.demo import demo_kg
from readi_graph.environments.table.table import Table
from readi_graph.graph import build_graph
from readi_graph.tool import as_tool

from fakes import path, routed, scripted

ZWICK = "which languages are the films directed by Joel Zwick in"


class Parent(TypedDict, total=False):
    """A larger agent's state: the ReAct agent's messages, and what it makes of them."""

    messages: list[Any]
    summary: str


def _readi_tool() -> object:
    readi_model = routed(path({"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}), "{Greek}")
    return as_tool(build_graph(demo_kg(), readi_model), evidence_cap=1)


def test_the_tool_returns_answers_with_their_evidence() -> None:
    tool = _readi_tool()
    assert set(tool.args) == {"question", "topic_entities"}  # type: ignore[attr-defined]
    out = json.loads(tool.invoke({"question": ZWICK, "topic_entities": ["Joel Zwick"]}))  # type: ignore[attr-defined]
    assert out["answers"] == ["Greek"] and out["grounded"] is True
    assert len(out["evidence"]) == 1 and out["evidence_not_shown"] >= 1  # capped, and said so
    assert out["path"] == ["Joel Zwick -> directed -> in_language"]
    again = asyncio.run(tool.ainvoke({"question": ZWICK, "topic_entities": ["Joel Zwick"]}))  # type: ignore[attr-defined]
    assert json.loads(again)["answers"] == ["Greek"]


def test_a_prebuilt_agent_calls_readi_and_answers_from_the_result() -> None:
    call = {
        "name": "readi_kg_qa",
        "args": {"question": ZWICK, "topic_entities": ["Joel Zwick"]},
        "id": "c1",
    }
    agent_model = scripted("", "The films are in Greek.")
    agent_model.messages = iter(
        [AIMessage("", tool_calls=[call]), AIMessage("The films are in Greek.")]
    )
    agent = create_agent(agent_model, [_readi_tool()])
    result = agent.invoke({"messages": [HumanMessage(ZWICK)]})
    tool_messages = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert len(tool_messages) == 1 and json.loads(str(tool_messages[0].content))["answers"] == [
        "Greek"
    ]
    assert result["messages"][-1].content == "The films are in Greek."


def test_a_table_tool_takes_only_the_question(tmp_path: object) -> None:
    from pathlib import Path

    csv = Path(str(tmp_path)) / "t.csv"
    csv.write_text("Year,League\n2001,USL A-League\n2002,USL A-League\n2005,USL First Division\n")
    table_model = routed(
        'Chosen Headers: ["Year", "League"]\nConstraints: {"League": ["USL A-League"]}',
        'Answer: ["2002"]',
    )
    tool = as_tool(build_graph(Table.from_csv(csv), table_model), name="table_qa", table=True)
    assert set(tool.args) == {"question"}  # type: ignore[attr-defined]
    out = json.loads(tool.invoke({"question": "last year in the USL A-League?"}))  # type: ignore[attr-defined]
    assert out["answers"] == ["2002"] and out["grounded"] is True


def test_the_agent_with_the_readi_tool_runs_as_a_subgraph() -> None:
    call = {
        "name": "readi_kg_qa",
        "args": {"question": ZWICK, "topic_entities": ["Joel Zwick"]},
        "id": "c2",
    }
    agent_model = scripted("")
    agent_model.messages = iter([AIMessage("", tool_calls=[call]), AIMessage("Greek.")])
    agent = create_agent(agent_model, [_readi_tool()])

    def summarize(state: Parent) -> dict[str, str]:
        tool_results = [m for m in state["messages"] if isinstance(m, ToolMessage)]
        return {
            "summary": f"{len(tool_results)} tool call(s); final: {state['messages'][-1].content}"
        }

    parent = StateGraph(Parent)
    parent.add_node("agent", agent)
    parent.add_node("summarize", summarize)
    parent.add_edge(START, "agent")
    parent.add_edge("agent", "summarize")
    parent.add_edge("summarize", END)
    out = parent.compile().invoke({"messages": [HumanMessage(ZWICK)]})
    assert out["summary"] == "1 tool call(s); final: Greek."
