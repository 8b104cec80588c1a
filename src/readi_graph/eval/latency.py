"""A chat model that answers after a fixed delay: an API stand-in for measuring throughput.

No LLM is reachable here, and the offline models answer in microseconds, which hides what
matters when serving or evaluating with a real model: questions wait on the model, so
throughput comes from running many at once. `Delayed` wraps any chat model and waits
`seconds` before each reply: `time.sleep` under `invoke` (the waiting thread is held),
`asyncio.sleep` under `ainvoke` (no thread is held).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class Delayed(BaseChatModel):
    """`inner`'s replies, each after `seconds`."""

    inner: BaseChatModel
    seconds: float = 0.3

    @property
    def _llm_type(self) -> str:
        return f"delayed-{self.inner._llm_type}"

    def _reply(self, messages: list[BaseMessage]) -> ChatResult:
        # The inner model is fast and local: called in place, on whatever thread is running.
        return ChatResult(generations=[ChatGeneration(message=self.inner.invoke(messages))])

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        time.sleep(self.seconds)
        return self._reply(messages)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        await asyncio.sleep(self.seconds)
        return self._reply(messages)
