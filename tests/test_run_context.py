"""Per-run settings are read one way, and a model named per run is used or refused, never
silently ignored."""

from __future__ import annotations

from typing import Any

import pytest

from readi_graph import FidelisContext, InputError, ModelConflict, ReadiContext, TogContext
from readi_graph.core.context import settings_of
from readi_graph.core.models import llm
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph

from fakes import function_model, path

QUESTION = {"question": "what did [Robert Zemeckis] direct", "topic_entities": ["Robert Zemeckis"]}


def _named(name: str) -> Any:
    return function_model(
        lambda p: f"Answer: {{{name}}}" if "Answer the question" in p
        else path({"Robert Zemeckis": ["Robert Zemeckis -> directed_by"]})
    )  # fmt: skip


def test_each_run_uses_the_model_its_context_names(
    metaqa_kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = {"model-a": _named("from a"), "model-b": _named("from b")}
    resolved: list[str | None] = []

    def resolve(context: Any) -> Any:
        resolved.append(context.model)
        return models[context.model]

    monkeypatch.setattr(llm, "default_model", resolve)
    graph = build_graph(metaqa_kg, "model-a")  # a name: the default, a run may choose another
    assert graph.invoke(QUESTION)["answers"] == ["from a"]
    assert graph.invoke(QUESTION, context=ReadiContext(model="model-b"))["answers"] == ["from b"]
    assert graph.invoke(QUESTION, context=ReadiContext(model="model-a"))["answers"] == ["from a"]
    assert resolved == ["model-a", "model-b"]  # each name resolved once
    assert len(models["model-a"].prompts) == 4 and len(models["model-b"].prompts) == 2


def test_a_graph_built_with_a_model_object_refuses_another_per_run(
    metaqa_kg: KnowledgeGraph,
) -> None:
    model = _named("x")
    graph = build_graph(metaqa_kg, model)
    assert graph.invoke(QUESTION, context=ReadiContext(max_edits=1))["answers"] == ["x"]
    with pytest.raises(
        ModelConflict,
        match=r"names model 'gpt-4o', but .*FunctionModel object: build the graph without",
    ):
        graph.invoke(QUESTION, context=ReadiContext(model="gpt-4o"))
    assert len(model.prompts) == 2  # the refused run called nothing


def test_a_context_of_another_strategy_keeps_the_fields_they_share() -> None:
    readi = ReadiContext(model="m", prompt_budget=100, max_edits=2)
    fidelis = settings_of(readi, FidelisContext)
    assert (fidelis.model, fidelis.prompt_budget, fidelis.beam_width) == ("m", 100, 4)
    assert settings_of({"max_edits": 1, "nope": 3}, ReadiContext).max_edits == 1
    assert settings_of(None, ReadiContext) == ReadiContext()


def test_the_paper_preset_runs_the_published_edit_prompt_and_flat_evidence(
    demo: KnowledgeGraph,
) -> None:
    """`ReadiContext.paper()`: the paper's edit feedback (no Earlier Relations, no echo of
    every alternative), edits until the budget is spent, the answer's triples as one flat set;
    the defaults steer the editor and show whole chains under the walked path."""
    question = {"question": "which languages are the films directed by Joel Zwick in"}
    stuck = path({"Joel Zwick": ["Joel Zwick -> directed -> nationality"]})
    fixed = path({"Joel Zwick": ["Joel Zwick -> directed -> in_language"]})
    prompts: dict[str, list[str]] = {}
    for name, context in (("default", ReadiContext()), ("paper", ReadiContext.paper())):
        replies = iter([stuck, fixed, "{Greek}"])
        model = function_model(lambda _prompt, replies=replies: next(replies))
        out = build_graph(demo, model).invoke(question, context=context)
        assert out["answers"] == ["Greek"] and out["edits"] == 1
        prompts[name] = model.prompts
    (_, edit, answer), (_, paper_edit, paper_answer) = prompts["default"], prompts["paper"]
    assert "Earlier Relations" in edit and "Earlier Relations" not in paper_edit
    assert "Paths walked" in answer and "Paths walked" not in paper_answer
    assert ReadiContext.paper().stop_hopeless is False
    assert ReadiContext.paper(max_edits=2).max_edits == 2  # overrides apply


@pytest.mark.parametrize(
    ("kind", "setting"),
    [
        (ReadiContext, {"edit_feedback": "Paper"}),
        (ReadiContext, {"evidence_layout": "flat "}),
        (ReadiContext, {"answer_from": "knowledge"}),
        (FidelisContext, {"verify_from": "plans"}),
        (FidelisContext, {"beam_width": 0}),
        (FidelisContext, {"chain_cap": 0}),
        (FidelisContext, {"top_m": -3}),
        (TogContext, {"prune": "llm "}),
        (TogContext, {"width": 0}),
        (TogContext, {"candidate_relations": -1}),
    ],
)
def test_a_setting_out_of_its_choices_or_range_is_refused_by_name(
    kind: type, setting: dict[str, Any]
) -> None:
    """A misspelt choice or a number out of range would otherwise run the default silently
    (`verify_from="plans"` verified from the first step; `chain_cap=0` cut every candidate)."""
    (name,) = setting
    with pytest.raises(InputError, match=rf"{kind.__name__}\.{name} must be"):
        kind(**setting)
    kind()  # the defaults are valid
