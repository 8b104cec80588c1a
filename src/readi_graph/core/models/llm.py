"""Chat models: any LangChain `BaseChatModel`, or one chosen by name, never silently replaced
(`core/models/choice.py`: the order, the errors, the note when the bundled model stands in).

The model is resolved on first use, so a graph can be built (and shown in Studio) before a key
is configured; the first call then fails with one clear error. A server that cannot be reached
is a `ModelUnavailable` naming its URL. Under `ainvoke` nothing here blocks the event loop:
resolving a model and the reply cache's disk reads run in worker threads.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, replace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from readi_graph.core.base import ReadiError
from readi_graph.core.context import RunContext, default_model_name, run_settings
from readi_graph.core.models import tokens
from readi_graph.core.models.choice import (
    BUNDLED_NOTE,
    LOCAL,
    ModelNotConfigured,
    ModelRefused,
    ModelUnavailable,
    default_model,
    in_our_words,
    is_transient,
)
from readi_graph.core.models.reply_cache import ReplyCache, model_key

__all__ = [
    "ModelConflict",
    "ModelNotConfigured",
    "ModelRef",
    "ModelRefused",
    "ModelUnavailable",
    "Reply",
    "default_model",
    "is_transient",
]


class ModelConflict(ReadiError, ValueError):
    """The run's context names a model, but the graph was built with a model object."""


class ModelRef:
    """The model a graph uses: the object given to `build_graph`, or resolved by name per run.

    Built with a model object, every run uses it; a run whose context names another model is
    refused (`ModelConflict`) rather than silently ignored. Built without one (or with a
    name), each run uses the model its context names (`RunContext.model`), else the graph's,
    else `READI_MODEL`; each name is resolved once, on first use, so a graph can be built (and
    shown in Studio) before a key is configured.
    """

    def __init__(
        self,
        llm: BaseChatModel | str | None,
        context: RunContext,
        cache: ReplyCache | None = None,
        *,
        labels: dict[str, str] | None = None,
    ) -> None:
        # What tracing (LangSmith or any callback handler) sees on every call: the strategy and
        # the environment (e.g. {"strategy": "readi", "environment": "kg"}) and the node.
        self.labels = dict(labels or {})
        if isinstance(llm, str):  # a model name, e.g. "local"
            context = replace(context, model=llm)
            llm = None
        self._given = llm
        self._context = context
        self._by_name: dict[str, BaseChatModel] = {}
        self.cache = cache
        self._lock = threading.Lock()

    def get(self) -> BaseChatModel:
        """The model of the current run (see the class docstring)."""
        wanted = run_settings(RunContext).model
        if self._given is not None:
            if wanted is not None and wanted not in _names(self._given, self._context):
                raise ModelConflict(
                    f"the run's context names model {wanted!r}, but this graph was built with "
                    f"a {type(self._given).__name__} object: build the graph without a model "
                    "(llm=None or a name) to choose the model per run, or leave `model` out of "
                    "the run's context"
                )
            return self._given
        key = self._name() or ""
        with self._lock:
            if key not in self._by_name:
                self._by_name[key] = default_model(replace(self._context, model=key or None))
            return self._by_name[key]

    def _name(self) -> str | None:
        """The model name of the current run: its context's, the graph's, else READI_MODEL
        (None: none named)."""
        return run_settings(RunContext).model or self._context.model or default_model_name()

    def note(self) -> str | None:
        """The output's note on this run's model, when there is one to make: the bundled
        model ran because nothing named a model (`choice.BUNDLED_NOTE`)."""
        if self._given is not None or self._name() is not None:
            return None
        with self._lock:
            model = self._by_name.get("")
        return BUNDLED_NOTE if getattr(model, "model_name", None) == LOCAL else None

    def ask(self, prompt: str, schema: dict[str, Any] | None = None) -> Reply:
        """One call (see `call`), answered from the reply cache when it holds this request."""
        llm, schema, key = self._request(prompt, schema)
        hit = self._cached(key)
        if hit is not None:
            return hit
        return self._store(key, call(llm, prompt, schema, self.trace_config()))

    async def aask(self, prompt: str, schema: dict[str, Any] | None = None) -> Reply:
        """`ask` through the model's native async path: waiting holds no thread. Resolving a
        model the first time (it may load weights or read files) and the reply cache's disk
        reads and writes run in worker threads, never on the event loop."""
        if self._given is None and self._unresolved():
            await asyncio.to_thread(self.get)
        llm, schema, key = self._request(prompt, schema)
        if self.cache is not None and key is not None:
            hit = await asyncio.to_thread(self._cached, key)
            if hit is not None:
                return hit
        reply = await acall(llm, prompt, schema, self.trace_config())
        if self.cache is not None and key is not None:
            await asyncio.to_thread(self._store, key, reply)
        return reply

    def _unresolved(self) -> bool:
        with self._lock:
            return (self._name() or "") not in self._by_name

    def _request(
        self, prompt: str, schema: dict[str, Any] | None
    ) -> tuple[BaseChatModel, dict[str, Any] | None, str | None]:
        llm = self.get()
        schema = schema if constrains(llm) else None  # the local model constrains replies
        key = None if self.cache is None else self.cache.key(model_key(llm), prompt, schema)
        return llm, schema, key

    def _cached(self, key: str | None) -> Reply | None:
        hit = None if self.cache is None or key is None else self.cache.get(key)
        return None if hit is None else Reply(*hit, cached=True)

    def _store(self, key: str | None, reply: Reply) -> Reply:
        if self.cache is not None and key is not None:
            self.cache.put(key, reply.text, reply.prompt_tokens, reply.completion_tokens)
        return reply

    def trace_config(self) -> dict[str, Any]:
        """Run name, tags and metadata of a model call, named after the graph node making it."""
        node = "model"
        try:
            from langgraph.config import get_config

            node = str(get_config().get("metadata", {}).get("langgraph_node") or node)
        except RuntimeError:  # called outside a graph run
            pass
        strategy = self.labels.get("strategy", "readi")
        return {
            "run_name": f"readi-graph:{strategy}:{node}",
            "tags": ["readi-graph", strategy, node],
            "metadata": {**self.labels, "readi_node": node},
        }


@dataclass(frozen=True)
class Reply:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool = False  # served by the reply cache: no model was called
    counted_by: str | None = None  # the tokenizer that counted what the model did not report


def call(
    llm: BaseChatModel,
    prompt: str,
    schema: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
) -> Reply:
    """One model call with one user message; token counts as reported, else counted by
    `core.models.tokens` (and the reply says so: `counted_by`).

    With `schema`, the model is asked to constrain the reply to that JSON schema (the local
    model decodes under it; llama.cpp's server turns it into a grammar); the parsers read such
    JSON replies as well as free text.
    """
    try:
        message = _runnable(llm, schema).invoke([HumanMessage(prompt)], config)
    except Exception as exc:
        return _out_of_tokens(llm, exc, prompt)
    return _reply(message, prompt)


async def acall(
    llm: BaseChatModel,
    prompt: str,
    schema: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
) -> Reply:
    """`call` through `ainvoke`. Token counting, when the model reports none, runs in a
    worker thread: its first use loads the tokenizer's vocabulary from disk."""
    try:
        message = await _runnable(llm, schema).ainvoke([HumanMessage(prompt)], config)
    except Exception as exc:
        return await asyncio.to_thread(_out_of_tokens, llm, exc, prompt)
    return await asyncio.to_thread(_reply, message, prompt)


def _runnable(llm: BaseChatModel, schema: dict[str, Any] | None) -> Any:
    if schema is None:
        return llm
    return llm.bind(response_format={"type": "json_object", "schema": schema})


def _out_of_tokens(llm: BaseChatModel, exc: Exception, prompt: str) -> Reply:
    """The model ran out of tokens before finishing its (JSON) reply: an unreadable reply,
    which the diagnosis reports, not a failed run. Any other exception is raised again, a
    client's own in our words (`in_our_words`)."""
    if type(exc).__name__ != "LengthFinishReasonError":
        raise in_our_words(llm, exc) from exc
    usage = getattr(getattr(exc, "completion", None), "usage", None)
    reported = int(getattr(usage, "prompt_tokens", 0) or 0)
    return Reply(
        "",
        reported or tokens.count(prompt),
        int(getattr(usage, "completion_tokens", 0) or 0),
        counted_by=None if reported else tokens.ENCODING,
    )


def _reply(message: Any, prompt: str) -> Reply:
    content = message.content
    if isinstance(content, list):
        content = "".join(
            part if isinstance(part, str) else str(part.get("text", "")) for part in content
        )
    text = str(content)
    usage = getattr(message, "usage_metadata", None) or {}
    reported = (int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0))
    return Reply(
        text,
        reported[0] or tokens.count(prompt),
        reported[1] or tokens.count(text),
        counted_by=None if all(reported) else tokens.ENCODING,
    )


def constrains(llm: BaseChatModel) -> bool:
    """Whether replies can be constrained to a JSON schema: the bundled local model, in-process
    (`LocalChatModel`) or behind llama.cpp's server on loopback (the opt-in runtime)."""
    if getattr(llm, "_llm_type", None) == "readi-local-transformers":
        return True
    return getattr(llm, "model_name", None) == "local" and "127.0.0.1" in str(
        getattr(llm, "openai_api_base", "")
    )


def _names(llm: BaseChatModel, context: RunContext) -> set[str | None]:
    """The names a model object answers to (a run naming one of them is not a conflict)."""
    return {context.model, getattr(llm, "model_name", None), getattr(llm, "model", None)}
