"""Offline planners, the oracle editors and the scripted answer: a chat model that needs no
LLM (paper, Table 3).

It stands where the LLM stands and reads the same prompts, so the real graph (bind, connect,
diagnose, edit loop, answer node) is what gets measured:

- planner `empty`: the first path has no relations; `corrupt`: the gold path (KG ids) with one
  relation replaced by a wrong one (position and replacement fixed by the question, so runs
  repeat).
- editor `oracle`: writes a KG id only where a prompt showed it, else a paraphrase that
  binding must find (the paper's setting); `oracle-all-ids`: the oracle before issue 24, which
  writes the whole gold path in ids once the missing piece is offered; `none` repeats the
  previous path; or a real model edits (`delegate`). The rules and the feedback samples are
  in `editors.py`: every edit prompt is a sample or a named exclusion.
- answers: the scripted answer step (`scripted_answer.py`) picks from the triples the answer
  prompt shows, never from the gold answers. A `delegate` model answers instead.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from readi_graph.core import markers
from readi_graph.datasets.metaqa import TYPE_RELATIONS, MetaQAQuestion
from readi_graph.offline.editors import (
    EditPrompt,
    Outcome,
    after,
    all_ids,
    gold_ids,
    gold_steps,
    shown_only,
)
from readi_graph.offline.scripted_answer import reply as answer_reply
from readi_graph.offline.scripted_answer import scripted_answers

Planner = Literal["empty", "corrupt"]
Editor = Literal["oracle", "oracle-all-ids", "none"]
EDITORS: tuple[str, ...] = ("oracle", "oracle-all-ids", "none")
RELATIONS = sorted(set(TYPE_RELATIONS.values()))

__all__ = ["EDITORS", "OfflineModel", "corrupt", "gold_steps"]


def corrupt(question: MetaQAQuestion) -> list[str]:
    """The gold path with one relation replaced by a relation not on the gold path."""
    names = gold_ids(question)
    seed = int(hashlib.sha256(question.question.encode()).hexdigest(), 16)
    position = seed % len(names)
    wrong = [r for r in RELATIONS if r not in names]
    names[position] = wrong[(seed // len(names)) % len(wrong)]
    return names


class OfflineModel(BaseChatModel):
    """Plans from the gold data (corrupted or empty), edits like an oracle, answers by rule."""

    questions: dict[str, Any]  # question text -> MetaQAQuestion
    planner: Planner = "corrupt"
    editor: Editor = "oracle"
    delegate: BaseChatModel | None = None  # a real model for edits and answers, if any
    _outcomes: dict[str, list[Outcome]] = PrivateAttr(default_factory=dict)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def over(cls, questions: Iterable[MetaQAQuestion], **settings: Any) -> OfflineModel:
        return cls(questions={q.question: q for q in questions}, **settings)

    @property
    def _llm_type(self) -> str:
        return f"readi-offline-{self.planner}-{self.editor}"

    def outcomes(self, question: str) -> tuple[list[bool], list[str]]:
        """The edit prompts of one question: (feedback samples, exclusions), taken: each is
        reported once."""
        with self._lock:
            taken = self._outcomes.pop(question, [])
        return [o for o in taken if isinstance(o, bool)], [o for o in taken if isinstance(o, str)]

    def feedback(self, question: str) -> list[bool]:
        """The feedback samples of one question (taken, with its exclusions)."""
        return self.outcomes(question)[0]

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        prompt = str(messages[-1].content)
        if markers.KG_EDIT in prompt:
            reply = self._edit(prompt)
        elif markers.ANSWER_ONLY_FROM in prompt:
            reply = self._delegated(prompt) if self.delegate is not None else self._answer(prompt)
        else:
            reply = self._plan(prompt)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])

    def _question(self, prompt: str) -> MetaQAQuestion:
        text = after(prompt, markers.QUESTION)
        if text not in self.questions:
            raise KeyError(f"offline planner: no gold data for question {text!r}")
        question: MetaQAQuestion = self.questions[text]
        return question

    def _plan(self, prompt: str) -> str:
        q = self._question(prompt)
        relations = [] if self.planner == "empty" else corrupt(q)
        return _path_reply(q.topic, relations)

    def _edit(self, prompt: str) -> str:
        q = self._question(prompt)
        shown = EditPrompt.read(prompt, q.topic)
        path: list[str] | None
        if self.editor == "oracle-all-ids":
            path, outcome = all_ids(q, prompt, q.topic)
        else:
            path, outcome = shown_only(q, shown)
        with self._lock:
            self._outcomes.setdefault(q.question, []).append(outcome)
        if self.delegate is not None:
            return self._delegated(prompt)
        if self.editor == "none" or path is None:
            return _path_reply(q.topic, shown.previous)
        return _path_reply(q.topic, path)

    def _answer(self, prompt: str) -> str:
        q = self._question(prompt)
        return answer_reply(scripted_answers(prompt, [q.topic], RELATIONS))

    def _delegated(self, prompt: str) -> str:
        assert self.delegate is not None
        return str(self.delegate.invoke([HumanMessage(prompt)]).content)


def _path_reply(topic: str, relations: list[str]) -> str:
    line = " -> ".join([topic, *relations])
    return f"Thought: offline planner.\nPath: {json.dumps({topic: [line]}, ensure_ascii=False)}"
