"""The bundled model's answer is held to the names of its evidence (issue 31, item 5): each
KG strategy's answer call carries a schema whose answers are an enum of the names its prompt
shows, and llguidance (what the bundled model decodes under) accepts exactly those names.
No model is loaded: a scripted model that says it constrains replies records the schema,
and a byte-level tokenizer drives the grammar."""

from __future__ import annotations

import json
from typing import Any

import llguidance
import pytest
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from readi_graph.core.adapter import ANSWER_SCHEMA, MAX_ANSWER_NAMES, answer_schema
from readi_graph.core.context import ReadiContext
from readi_graph.core.local.chat import JSON_OPTIONS, bounded
from readi_graph.demo import demo_kg
from readi_graph.environments.kg.answer_evidence import read as evidence_read
from readi_graph.graph import build_graph

from fakes import FunctionModel, tog_kind

QUESTION = {
    "question": "which languages are the films directed by [Joel Zwick] in",
    "topic_entities": ["Joel Zwick"],
}


class Constrained(FunctionModel):
    """A scripted model that, like the bundled one, decodes under the schema it is sent."""

    schemas: list[Any] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "readi-local-transformers"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.schemas.append((kw.get("response_format") or {}).get("schema"))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)


class _Bytes:
    """A tokenizer with one token per byte (and an end token), enough to drive a grammar."""

    eos_token_id, bos_token_id, special_token_ids = 256, None, [256]
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]

    def __call__(self, text: bytes) -> list[int]:
        return list(text)


def accepts(schema: dict[str, Any], reply: dict[str, Any]) -> bool:
    """Whether the bundled model's decoder could write `reply` under `schema`."""
    tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Bytes()))
    grammar = llguidance.LLMatcher.grammar_from_json_schema(
        json.dumps(bounded(schema)), overrides=JSON_OPTIONS
    )
    matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
    data = list(json.dumps(reply, ensure_ascii=False, separators=(", ", ": ")).encode())
    return matcher.try_consume_tokens(data) == len(data) and matcher.is_accepting()


def test_the_schema_holds_answers_to_the_names_given() -> None:
    schema = answer_schema(["Greek", "English", "Greek", ""])
    items = schema["properties"]["answers"]["items"]
    assert items == {"type": "string", "enum": ["Greek", "English"]}
    assert schema["properties"]["answers"]["maxItems"] == 2
    assert accepts(schema, {"thought": "x", "answers": ["Greek"]})
    assert accepts(schema, {"thought": "x", "answers": []})  # "not answered" stays possible
    assert not accepts(schema, {"thought": "x", "answers": ["French"]})
    assert not accepts(schema, {"thought": "x", "answers": ["Gree"]})
    # no names, or answers that may come from the model's own knowledge: any text
    assert answer_schema(None) == answer_schema([]) == ANSWER_SCHEMA
    assert answer_schema(["Greek"], "evidence_and_knowledge") == ANSWER_SCHEMA
    assert accepts(ANSWER_SCHEMA, {"thought": "x", "answers": ["French"]})
    many = answer_schema([f"name {i}" for i in range(MAX_ANSWER_NAMES + 50)])
    assert len(many["properties"]["answers"]["items"]["enum"]) == MAX_ANSWER_NAMES


def _reply(prompt: str) -> str:
    if "Topic Entities:" in prompt:  # Readi's plan
        return 'Path: {"Joel Zwick": ["Joel Zwick -> directed -> in language"]}'
    if "plan for it" in prompt:  # FiDeLiS's plan
        return json.dumps(
            {"keywords": ["language"], "planning_steps": [], "declarative_statement": ""}
        )
    if "You choose how a search" in prompt:
        return "[1, 2]"
    if "You check a reasoning path" in prompt:
        walked = prompt.rsplit("Path: ", 1)[-1].split("\n", 1)[0]
        return "yes" if walked.count(" -> ") >= 4 else "no"
    if "Answer the question using only" in prompt or "You" not in prompt.split("\n", 1)[0]:
        return '{"thought": "x", "answers": []}'
    kind = tog_kind(prompt)
    if kind == "relations":
        listed = prompt.split("Relations:\n")[-1].split("\nChoose")[0].splitlines()
        return "\n".join(f"{{{r} (Score: 0.5)}}" for r in listed[:2])
    if kind == "entities":
        return "Scores: 0.5, 0.5, 0.5, 0.5, 0.5"
    return "{No}. Not yet."


@pytest.mark.parametrize("strategy", ["readi", "fidelis", "tog"])
def test_each_strategy_sends_the_names_its_answer_prompt_shows(strategy: str) -> None:
    model = Constrained(messages=iter([]), reply=_reply, schemas=[])
    build_graph(demo_kg(), model, strategy=strategy).invoke(QUESTION)
    prompt, schema = model.prompts[-1], model.schemas[-1]
    assert "Answer the question using only" in prompt  # the answer call
    enum = schema["properties"]["answers"]["items"]["enum"]
    shown = prompt.split("### Your turn")[-1]
    assert enum and all(f"{name}," in shown or f", {name})" in shown for name in enum)
    ends = evidence_read.ends(shown)
    assert ends and set(ends) <= set(enum)  # the end of every chain shown
    assert not accepts(schema, {"thought": "x", "answers": ["Klingon"]})
    # answers that may come from the model's own knowledge are not held to the evidence
    model.schemas.clear()
    context = ReadiContext(answer_from="evidence_and_knowledge")
    build_graph(demo_kg(), model, strategy=strategy).invoke(QUESTION, context=context)
    assert model.schemas[-1] == ANSWER_SCHEMA


@pytest.mark.parametrize(
    ("strategy", "flat"),
    [("readi", "\n(My Big Fat Greek Wedding, in_language, Greek)\n"), ("fidelis", "verified) "),
     ("tog", "\nDepth 1:\n")],
)  # fmt: skip
def test_the_flat_layout_is_each_papers_form(strategy: str, flat: str) -> None:
    """`evidence_layout="flat"`: the published evidence and its own prompt, no chains, and
    the answer still held to the names shown."""
    model = Constrained(messages=iter([]), reply=_reply, schemas=[])
    context = ReadiContext(evidence_layout="flat")
    build_graph(demo_kg(), model, strategy=strategy).invoke(QUESTION, context=context)
    prompt = model.prompts[-1]
    assert "Answer the question using only" in prompt and "Chains from" not in prompt
    assert "Paths walked" not in prompt and flat in prompt.split("### Your turn")[-1]
    enum = model.schemas[-1]["properties"]["answers"]["items"]["enum"]
    assert enum and all(name in prompt.split("### Your turn")[-1] for name in enum)
