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
