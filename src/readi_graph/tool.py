"""A compiled Readi graph as a LangChain tool, for ReAct-style agents.

The agent's model fills in the question (and, for a KG, the topic entities); the tool runs
the whole Readi graph and returns what a calling model needs to use the result faithfully:
the answers, whether they are grounded in the KG, the evidence (capped), the caveats, and the
reasoning path. The graph's own run settings (edit budget, ...) pass through `context`.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

KG_DESCRIPTION = (
    "Answer a factual question from a knowledge graph, faithfully: the answers come with the "
    "triples that support them. Give the question and the entities it is about, by name."
)
TABLE_DESCRIPTION = (
    "Answer a question from a table: the answers come with the columns and rows that support them."
)


class KGQuestion(BaseModel):
    question: str = Field(description="The question, in natural language.")
    topic_entities: list[str] = Field(
        description="The entities the question starts from, by name or IRI (one or more)."
    )


class TableQuestion(BaseModel):
    question: str = Field(description="The question, in natural language.")


def as_tool(
    graph: Runnable[Any, Any],
    *,
    name: str = "readi_kg_qa",
    description: str | None = None,
    table: bool = False,
    context: Any = None,
    evidence_cap: int = 30,
) -> BaseTool:
    """`graph` (from `build_graph`) as a tool; `table=True` for a table graph (no entities).

    The tool's result is JSON text: `answers`, `grounded`, `answer` (the graph's own text),
    `evidence` (at most `evidence_cap` items, the cut stated), `notes`, `path`, `error`, and
    `answer_source` where the strategy says it (ToG: graph or model knowledge).
    """

    def result(out: dict[str, Any]) -> str:
        evidence = list(out.get("evidence") or [])
        shown: dict[str, Any] = {
            "answers": out.get("answers") or [],
            "grounded": bool(out.get("grounded")),
            "answer": out.get("answer", ""),
            "evidence": evidence[:evidence_cap],
            "path": out.get("path") or [],
        }
        if len(evidence) > evidence_cap:
            shown["evidence_not_shown"] = len(evidence) - evidence_cap
        for key in ("notes", "error", "answer_source"):
            if out.get(key):
                shown[key] = out[key]
        return json.dumps(shown, ensure_ascii=False)

    def inputs(question: str, topic_entities: list[str] | None) -> dict[str, Any]:
        return {"question": question, **({} if table else {"topic_entities": topic_entities})}

    def run(question: str, topic_entities: list[str] | None = None) -> str:
        return result(graph.invoke(inputs(question, topic_entities), context=context))

    async def arun(question: str, topic_entities: list[str] | None = None) -> str:
        return result(await graph.ainvoke(inputs(question, topic_entities), context=context))

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=name,
        description=description or (TABLE_DESCRIPTION if table else KG_DESCRIPTION),
        args_schema=TableQuestion if table else KGQuestion,
    )
