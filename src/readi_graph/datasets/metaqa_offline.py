"""Offline planners and the oracle editor: a chat model that needs no LLM (paper, Table 3).

It stands where the LLM stands and reads the same prompts, so the real graph (bind, connect,
diagnose, edit loop, answer node) is what gets measured:

- planner `empty`: the first path has no relations; `corrupt`: the gold path with one relation
  replaced by a wrong one (position and replacement fixed by the question, so runs repeat).
- editor `oracle`: repairs the first wrong position of the previous path *only if* the gold
  relation is among the "Candidate Relations" of the edit prompt, and then writes the whole
  gold path (a perfect editor knows the rest from the question). Each edit prompt is one
  feedback sample: did the error message hold what a perfect editor needs (feedback recall)?
  Editor `none` repeats the previous path (no repair), or a real model can edit (`delegate`).
- answers: the offline model does not answer; its reply is unreadable on purpose, so the answer
  node reports the instances' end nodes (the gold planner's rule). A `delegate` model answers.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterable
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from readi_graph.core import markers
from readi_graph.datasets.metaqa import TYPE_RELATIONS, MetaQAQuestion, gold_plan
from readi_graph.environments.kg.local import METAQA_RELATION

Planner = Literal["empty", "corrupt"]
Editor = Literal["oracle", "none"]
NO_ANSWER = "(offline planner: no answer model; the instances are the answer)"
RELATIONS = sorted(set(TYPE_RELATIONS.values()))


def gold_steps(question: MetaQAQuestion) -> list[str]:
    """The gold relations as the edit prompt lists them: `name`, or `<- name` backwards."""
    return [
        (name if c.direction == "forward" else f"<- {name}")
        for c in gold_plan(question.qtype)
        if (name := c.relation.removeprefix(METAQA_RELATION))
    ]


def _name(step: str) -> str:
    return step.removeprefix("<- ")


def corrupt(question: MetaQAQuestion) -> list[str]:
    """The gold path with one relation replaced by a relation not on the gold path."""
    names = [_name(s) for s in gold_steps(question)]
    seed = int(hashlib.sha256(question.question.encode()).hexdigest(), 16)
    position = seed % len(names)
    wrong = [r for r in RELATIONS if r not in names]
    names[position] = wrong[(seed // len(names)) % len(wrong)]
    return names


def _after(prompt: str, marker: str) -> str:
    """The rest of the line after the last `marker` (the prompt's own part, after the demos)."""
    return prompt.rsplit(marker, 1)[-1].split("\n", 1)[0].strip() if marker in prompt else ""


class OfflineModel(BaseChatModel):
    """Plans from the gold data (corrupted or empty) and edits like a perfect editor would."""

    questions: dict[str, Any]  # question text -> MetaQAQuestion
    planner: Planner = "corrupt"
    editor: Editor = "oracle"
    delegate: BaseChatModel | None = None  # a real model for edits and answers, if any
    _feedback: dict[str, list[bool]] = PrivateAttr(default_factory=dict)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def over(cls, questions: Iterable[MetaQAQuestion], **settings: Any) -> OfflineModel:
        return cls(questions={q.question: q for q in questions}, **settings)

    @property
    def _llm_type(self) -> str:
        return f"readi-offline-{self.planner}-{self.editor}"

    def feedback(self, question: str) -> list[bool]:
        """The feedback samples of one question (taken: each is reported once)."""
        with self._lock:
            return self._feedback.pop(question, [])

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        prompt = str(messages[-1].content)
        if markers.KG_EDIT in prompt:
            reply = self._edit(prompt)
        elif markers.ANSWER_ONLY_FROM in prompt:
            reply = self._delegated(prompt) if self.delegate is not None else NO_ANSWER
        else:
            reply = self._plan(prompt)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])

    def _question(self, prompt: str) -> MetaQAQuestion:
        text = _after(prompt, markers.QUESTION)
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
        gold = gold_steps(q)
        previous = _previous(_after(prompt, markers.PREVIOUS_PATH), q.topic)
        names = [_name(s) for s in gold]
        wrong = next((i for i, r in enumerate(previous) if i >= len(names) or r != names[i]), None)
        if wrong is None and len(previous) < len(names):
            wrong = len(previous)  # a correct prefix: the next gold relation is missing
        offered = _offered(prompt, wrong)
        if wrong is not None and wrong < len(gold):
            with self._lock:
                self._feedback.setdefault(q.question, []).append(gold[wrong] in offered)
        if self.delegate is not None:
            return self._delegated(prompt)
        if self.editor == "none" or wrong is None or wrong >= len(gold):
            return _path_reply(q.topic, previous)
        if gold[wrong] not in offered:
            return _path_reply(q.topic, previous)  # the feedback lacks what is needed
        return _path_reply(q.topic, names)  # the missing piece was offered: the whole path

    def _delegated(self, prompt: str) -> str:
        assert self.delegate is not None
        return str(self.delegate.invoke([HumanMessage(prompt)]).content)


def _offered(prompt: str, wrong: int | None) -> set[str]:
    """The relations the prompt offers for position `wrong`: that step's "Earlier Relations"
    when the prompt lists them, else the "Candidate Relations" around the stuck node."""
    stuck = {c.strip() for c in _after(prompt, markers.CANDIDATE_RELATIONS).split(",")}
    earlier = _after(prompt, markers.EARLIER_RELATIONS)
    if wrong is None or not earlier or earlier == "(none)":
        return stuck
    for match in re.finditer(r"step (\d+) \(from .*?\): ([^;]*)", earlier):
        if int(match.group(1)) == wrong + 1:
            return {c.strip() for c in match.group(2).split(",")}
    return stuck


def _previous(line: str, topic: str) -> list[str]:
    try:
        paths = json.loads(line)
        first = (paths.get(topic) or [topic])[0]
    except (json.JSONDecodeError, AttributeError, IndexError, TypeError):
        return []
    return [r.strip() for r in str(first).split(" -> ")[1:]]


def _path_reply(topic: str, relations: list[str]) -> str:
    line = " -> ".join([topic, *relations])
    return f"Thought: offline planner.\nPath: {json.dumps({topic: [line]}, ensure_ascii=False)}"
