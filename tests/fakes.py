"""Scripted chat models (langchain-core fakes) that record the prompts they receive."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from readi_graph.core import markers


class ScriptedModel(GenericFakeChatModel):
    """Replies with the scripted messages in order; `prompts` keeps what it was asked."""

    prompts: list[str] = Field(default_factory=list)
    failures: list[BaseException] = Field(default_factory=list)  # raised first, one per call

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.prompts.append(str(messages[-1].content))
        if self.failures:
            raise self.failures.pop(0)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


def scripted(*replies: str, failures: list[BaseException] | None = None) -> ScriptedModel:
    messages: Iterator[AIMessage] = iter(AIMessage(r) for r in replies)
    return ScriptedModel(messages=messages, failures=failures or [])


def path(mapping: dict[str, list[str]], thought: str = "step by step") -> str:
    import json

    return f"Thought: {thought}\nPath: {json.dumps(mapping)}"


class PromptRoutedModel(ScriptedModel):
    """Answers by prompt kind (thread-safe for graph.batch): a reply per prompt file."""

    replies: dict[str, str] = Field(default_factory=dict)  # marker in the prompt -> reply

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        from langchain_core.outputs import ChatGeneration

        prompt = str(messages[-1].content)
        self.prompts.append(prompt)
        reply = next(r for marker, r in self.replies.items() if marker in prompt)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])


def routed(generate: str, answer: str, edit: str = "") -> PromptRoutedModel:
    return PromptRoutedModel(
        messages=iter([]),
        replies={
            markers.GENERATE: generate,  # KG and table
            markers.KG_EDIT: edit,
            markers.ANSWER_ONLY_FROM: answer,
        },
    )


class FunctionModel(ScriptedModel):
    """Replies with `reply(prompt)`: a scripted model whose answer depends on what it reads."""

    reply: Any = None  # Callable[[str], str]

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        from langchain_core.outputs import ChatGeneration

        prompt = str(messages[-1].content)
        self.prompts.append(prompt)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self.reply(prompt)))])


def function_model(reply: Any) -> FunctionModel:
    return FunctionModel(messages=iter([]), reply=reply)


def tog_kind(prompt: str) -> str:
    """Which ToG prompt this is: relations, entities, reason or answer."""
    for marker, name in ((markers.TOG_RELATIONS, "relations"), (markers.TOG_ENTITIES, "entities"),
                         (markers.TOG_REASON, "reason"), (markers.TOG_ANSWER, "answer"),
                     (markers.TOG_KNOWLEDGE, "knowledge")):  # fmt: skip
        if marker in prompt:
            return name
    raise AssertionError(f"unexpected prompt: {prompt[:80]}")


def tog_own(prompt: str) -> str:
    """A prompt's own part, after its demonstrations."""
    return prompt.split("### Your turn")[-1]


def tog_model(wanted: list[str], *, enough: Any, answer: str = "{x}") -> FunctionModel:
    """A scripted ToG model: keeps the listed relations named in `wanted` (in that order of
    preference), scores entities by position (the first best), says yes when
    `enough(triples)` answering with what the last depth reached (the names of its triples
    not bracketed in the question nor seen at an earlier depth), else `answer`."""
    import re

    def reply(prompt: str) -> str:
        part, name = tog_own(prompt), tog_kind(prompt)
        if name == "relations":
            listed = part.split("Relations:\n")[1].split("\nChoose")[0].splitlines()
            picks = [r for w in wanted for r in listed if r == w]
            return "\n".join(f"{{{r} (Score: {0.9 - 0.1 * i:.1f})}}" for i, r in enumerate(picks))
        if name == "entities":
            n = len(re.findall(r"(?m)^\d+\. ", part))
            return "Scores: " + ", ".join(f"{1 / (i + 1):.3f}" for i in range(n))
        triples = part.split("Knowledge Triples:\n")[1]
        if name == "reason":
            if not enough(triples):
                return "{No}. Not yet."
            *earlier, last = triples.split("Depth ")
            lines = [x[1:-1].split(", ") for x in re.findall(r"(?m)^\(.*\)$", last)]
            seen = {*re.findall(r"\[([^\]]+)\]", part), *"".join(earlier).replace("(", ", ")
                    .replace(")", ", ").split(", ")}  # fmt: skip
            new = [x for t in lines for x in (t[0], t[-1]) if x not in seen]
            ends = [x for x in new if "<compound" not in x]  # what the last depth reached
            return "{Yes}. Found. {" + " | ".join(dict.fromkeys(ends)) + "}"
        return answer

    return function_model(reply)
