"""Every model call carries a run name, tags and metadata (strategy, environment, node), as
LangSmith or any callback handler sees them."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from readi_graph.demo import demo_kg, demo_table
from readi_graph.graph import build_graph

from fakes import function_model, path, routed

ZWICK = {
    "question": "which languages are the films directed by Joel Zwick in",
    "topic_entities": ["Joel Zwick"],
}


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.calls.append(
            {
                "name": kwargs.get("name"),
                "tags": kwargs.get("tags") or [],
                "metadata": kwargs.get("metadata") or {},
            }
        )


def test_each_model_call_is_labelled_with_strategy_environment_and_node() -> None:
    recorder = Recorder()
    model = routed(
        path({"Joel Zwick": ["Joel Zwick -> directed -> nationality"]}),
        "{Greek}",
        edit=path({"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}),
    )
    out = build_graph(demo_kg(), model).invoke(ZWICK, {"callbacks": [recorder]})
    assert out["usage"]["llm_calls"] == len(recorder.calls) == 3
    assert [c["metadata"]["readi_node"] for c in recorder.calls] == ["generate", "edit", "answer"]
    for call in recorder.calls:
        node = call["metadata"]["readi_node"]
        assert call["name"] == f"readi-graph:readi:{node}"
        assert {"readi-graph", "readi", node} <= set(call["tags"])
        assert call["metadata"]["strategy"] == "readi" and call["metadata"]["environment"] == "kg"


def test_tables_and_fidelis_say_so() -> None:
    recorder = Recorder()
    table_model = routed(
        'Chosen Headers: ["Season", "Position"]\\nConstraints: {}', 'Answer: ["2023"]'
    )
    build_graph(demo_table(), table_model).invoke(
        {"question": "which season?"}, {"callbacks": [recorder]}
    )
    assert recorder.calls and all(c["metadata"]["environment"] == "table" for c in recorder.calls)
    recorder.calls.clear()
    fidelis_model = function_model(lambda prompt: "{Greek}")  # any reply: only labels matter
    build_graph(demo_kg(), fidelis_model, strategy="fidelis").invoke(
        ZWICK, {"callbacks": [recorder]}
    )
    assert recorder.calls
    assert all(c["metadata"]["strategy"] == "fidelis" for c in recorder.calls)
    assert all(c["name"].startswith("readi-graph:fidelis:") for c in recorder.calls)
