"""The offline oracle for FiDeLiS on MetaQA: a chat model that needs no LLM.

It stands where the LLM stands and reads FiDeLiS's own prompts (recognised by the strings in
`core/markers.py`), so the real search is what gets measured: Path-RAG's candidates, the beam
bookkeeping, the KG queries and the call count. It knows one thing about a question, its gold
relation chain (from the question type, `datasets/metaqa.gold_plan`), never its answers:

- plan: keywords from the gold relation names ("starred actors", "directed by"), one step per
  relation, and a statement that names the question (the verify prompt shows no question);
- select: the candidates whose relations follow the gold chain so far, in the order Path-RAG
  ranked them, at most the width asked for (the prompt allows fewer); when none follows it,
  Path-RAG's first candidates (the oracle has nothing better to go on). A candidate may stand
  for a chain of paths (`strategies/fidelis/grouping.py`): its first line is read, the line
  naming the other ends is not;
- verify: "yes" once a path has walked the whole chain, else "no" (by default the search only
  asks once a path is as long as the plan, which here has one step per gold relation);
- reason: a fixed rule over what the prompt shows, never the gold answers: the last entity of
  each verified path (of every path when none is verified; in the chains layout, the end of
  each chain shown), the ends most paths reach first, ties in the order shown.

So hit@1 asks "does the search, steered by a perfect judge of relations, reach a gold answer
first?": it measures the environment and the loop, not a model's judgement.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from readi_graph.core import markers
from readi_graph.core.base import ReadiError
from readi_graph.datasets.metaqa import MetaQAQuestion
from readi_graph.environments.kg.answer_evidence import read as evidence_read
from readi_graph.offline.readi import RELATIONS, gold_steps

ANSWER_RULE = "Oracle answer: the ends of the verified paths, those most paths reach first."
_STATEMENT = re.compile(r'^\*placeholder\* answers the question "(.*)"$')
_CANDIDATE = re.compile(r"^(\d+)\. (.*)$")
_SHOWN = re.compile(r"^\((verified|unverified)\) (.*)$")
_KNOWN = {*RELATIONS, *(f"<- {r}" for r in RELATIONS)}  # relations as a path shows them


class OracleError(ReadiError, KeyError):
    """A prompt the oracle cannot play: not FiDeLiS's, or about a question it was not given."""


def statement(question: str) -> str:
    """The plan's declarative statement: it carries the question to the verify prompts."""
    return f'*placeholder* answers the question "{question}"'


def walk(path: str) -> tuple[list[str], str]:
    """A path as the prompts show it (`Topic -> rel -> Entity -> <- rel -> Entity`): its
    relations (`<- name` when walked backwards) and its last entity. An entity name that holds
    ` -> ` stays whole: only MetaQA's relation names count as steps."""
    relations: list[str] = []
    entity: list[str] = []
    for part in path.split(" -> "):
        if part in _KNOWN and entity:
            relations.append(part)
            entity = []
        else:
            entity.append(part)
    return relations, " -> ".join(entity)


def _after(prompt: str, marker: str) -> str:
    """What follows the last `marker` (the prompt's own part, after its examples)."""
    return prompt.rsplit(marker, 1)[-1] if marker in prompt else ""


def _line(prompt: str, marker: str) -> str:
    return _after(prompt, marker).split("\n", 1)[0].strip()


class FidelisOracle(BaseChatModel):
    """Plays FiDeLiS's prompts from the gold relation chain of each question (see above)."""

    questions: dict[str, Any]  # question text -> MetaQAQuestion

    @classmethod
    def over(cls, questions: Iterable[MetaQAQuestion]) -> FidelisOracle:
        return cls(questions={q.question: q for q in questions})

    @property
    def _llm_type(self) -> str:
        return "readi-offline-fidelis-oracle"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        prompt = str(messages[-1].content)
        if markers.FIDELIS_SELECT in prompt:
            reply = self._select(prompt)
        elif markers.FIDELIS_VERIFY in prompt:
            reply = self._verify(prompt)
        elif markers.FIDELIS_PLAN in prompt:
            reply = self._plan(prompt)
        elif markers.REASONING_PATHS in prompt:
            reply = self._reason(prompt)
        else:
            raise OracleError(f"not a FiDeLiS prompt: {prompt[:80]!r}")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])

    def _question(self, text: str) -> MetaQAQuestion:
        question: MetaQAQuestion | None = self.questions.get(text)
        if question is None:
            raise OracleError(f"FiDeLiS oracle: no gold chain for question {text!r}")
        return question

    def _plan(self, prompt: str) -> str:
        q = self._question(_line(prompt, markers.QUESTION))
        chain = gold_steps(q)
        names = [step.removeprefix("<- ") for step in chain]
        steps = [
            f"follow {name} {'backwards' if step.startswith('<- ') else 'forwards'}"
            for step, name in zip(chain, names, strict=True)
        ]
        return json.dumps(
            {
                "keywords": list(dict.fromkeys(n.replace("_", " ") for n in names)),
                "planning_steps": steps,
                "declarative_statement": statement(q.question),
            },
            ensure_ascii=False,
        )

    def _select(self, prompt: str) -> str:
        chain = gold_steps(self._question(_line(prompt, markers.QUESTION)))
        width = int(re.sub(r"\D", "", _line(prompt, markers.CHOOSE)) or 1)
        listing = _after(prompt, markers.CANDIDATES).split(f"\n{markers.CHOOSE}", 1)[0]
        numbered = [m.groups() for m in map(_CANDIDATE.match, listing.splitlines()) if m]
        following = [int(n) for n, path in numbered if _follows(walk(path)[0], chain)]
        chosen = following or [int(n) for n, _ in numbered]
        return json.dumps(chosen[:width])

    def _verify(self, prompt: str) -> str:
        said = _line(prompt, markers.STATEMENT)
        match = _STATEMENT.match(said)
        chain = gold_steps(self._question(match.group(1) if match else said))
        relations, _ = walk(_line(prompt, markers.PATH))
        if relations == chain:
            return "yes: the path walks the question's whole relation chain."
        return "no: the path does not walk the question's relation chain (yet)."

    def _reason(self, prompt: str) -> str:
        own = _after(prompt, markers.REASONING_PATHS)
        shown = [m.groups() for m in map(_SHOWN.match, own.splitlines()) if m]
        verified = [path for kind, path in shown if kind == "verified"]
        # the paper's layout marks each path; the chains layout shows one kind of path
        ends = [walk(path)[1] for path in verified or [path for _, path in shown]]
        ends = ends or evidence_read.ends(own)
        support = Counter(ends)
        first = {end: i for i, end in reversed(list(enumerate(ends)))}
        answers = sorted(support, key=lambda e: (-support[e], first[e]))
        return json.dumps({"thought": ANSWER_RULE, "answers": answers}, ensure_ascii=False)


def _follows(relations: list[str], chain: list[str]) -> bool:
    """The path's relations are the gold chain's first steps."""
    return bool(relations) and relations == chain[: len(relations)]
