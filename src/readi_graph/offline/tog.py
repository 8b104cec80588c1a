"""An offline oracle for Think-on-Graph on MetaQA: a chat model that needs no LLM.

It plays every ToG prompt knowing only the gold relation chain of the question (from its
type, `offline.editors.gold_steps`), never its answers, so what gets measured is the
environment and the loop (listing, bounded reads, entity pruning, the call budget), not a
model's judgement:
- relation pruning: the gold relation of the step the entity was reached at (counted on its
  "Reached by" path), when it is listed (else `{}`); with `keep="gold"` alone (score 1: the
  fewest calls ToG can make, a floor), with `keep="width"` beside the W-1 other relations
  listed first (the most similar to the question), as a model that keeps W does, so each
  kept relation costs its entity-scoring call and the calls compare with published ones;
  and `Hops left:` (the gold relations after this one) when the prompt asks;
- entity scoring: 0 for the candidates of a relation off the gold chain; on it, 1 for a
  candidate that can go on (the next gold relation is among those the prompt shows leaving
  it, or they are not all shown, or this is the chain's last relation), else 0;
- sufficiency: "yes" once the triples hold the gold chain up to its last relation, and the
  answers are the entities that relation reached there, in the order shown (the search's best
  first); "no" before;
- the final answer (frontier emptied, depth spent): the entities reached at the deepest depth
  shown, by the gold relation of that depth when it was walked, else `{}`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from readi_graph.core import markers
from readi_graph.datasets.metaqa import MetaQAQuestion
from readi_graph.environments.kg.answer_evidence import read as evidence_read
from readi_graph.offline.readi import gold_steps

YOUR_TURN = "### Your turn"


def own_part(prompt: str) -> str:
    """The prompt after its demonstrations."""
    return prompt.rsplit(YOUR_TURN, 1)[-1]


def after(text: str, marker: str) -> str:
    """The rest of the line after the last `marker`."""
    return text.rsplit(marker, 1)[-1].split("\n", 1)[0].strip() if marker in text else ""


def block(text: str, marker: str) -> list[str]:
    """The non-empty lines after `marker` (a header line ending in a newline)."""
    if marker not in text:
        return []
    return [line.strip() for line in text.split(marker, 1)[1].splitlines() if line.strip()]


def depths(text: str) -> dict[int, list[str]]:
    """The triple lines of each `Depth N:` section of a ToG prompt, or, where the triples are
    shown as chains, of each depth of the chain trees (no compound node on MetaQA: a line's
    depth in its tree is the search depth it was found at)."""
    if any(line.startswith(markers.DEPTH) for line in block(text, markers.TRIPLES)):
        return _sections(text)
    found: dict[int, list[str]] = {}
    for line in evidence_read.lines(text):
        found.setdefault(line.depth + 1, []).append(", ".join(line.triple))
    return found


def _sections(text: str) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    current: list[str] | None = None
    for line in block(text, markers.TRIPLES):
        if line.startswith(markers.DEPTH) and line.endswith(":"):
            number = line[len(markers.DEPTH) : -1]
            current = found.setdefault(int(number), []) if number.isdigit() else None
        elif line.startswith("(") and line.endswith(")") and current is not None:
            current.append(line[1:-1])
        else:
            current = None  # notes, compound facts: not a depth's triples
    return found


def reached(lines: list[str], step: str) -> list[str]:
    """The entities a gold step reached in a depth's triples (object when the step walks
    forward, subject when it walks `<-` backwards), in order, once each."""
    relation, backward = step.removeprefix("<- "), step.startswith("<- ")
    ends = []
    for line in lines:
        subject, sep, obj = line.partition(f", {relation}, ")
        if sep:
            ends.append(subject if backward else obj)
    return list(dict.fromkeys(ends))


_ITEM = re.compile(r"(<- )?(\S+) \((\d+)\)")
_MORE = re.compile(r"\+\d+ more")
KEEPS = ("gold", "width")  # the relations the oracle keeps: the gold one, or W with it


def leads_of(line: str) -> tuple[set[str], bool] | None:
    """The relations a candidate line of the entity prompt shows leaving it (as listed:
    `<- name` backwards), and whether they are all shown; None when it shows none (a name
    may hold ": " itself: the last part that reads as a list is the list)."""
    for i in reversed([m.start() for m in re.finditer(": ", line)]):
        rest = line[i + 2 :]
        if rest in ("a value", "nothing leads on"):
            return set(), True
        items = rest.split(", ")
        if all(_ITEM.fullmatch(x) or _MORE.fullmatch(x) for x in items):
            names = {(m.group(1) or "") + m.group(2) for x in items if (m := _ITEM.fullmatch(x))}
            return names, not any(_MORE.fullmatch(x) for x in items)
    return None


class TogOracle(BaseChatModel):
    """Plays ToG's prompts from the gold relation chains of MetaQA questions."""

    questions: dict[str, Any]  # question text -> MetaQAQuestion
    keep: str = "gold"  # one of KEEPS

    @classmethod
    def over(cls, questions: Iterable[MetaQAQuestion], keep: str = "gold") -> TogOracle:
        if keep not in KEEPS:
            raise ValueError(f"ToG oracle: keep is one of {KEEPS}, not {keep!r}")
        return cls(questions={q.question: q for q in questions}, keep=keep)

    @property
    def _llm_type(self) -> str:
        return "readi-tog-oracle"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        prompt = str(messages[-1].content)
        own = own_part(prompt)
        if markers.TOG_RELATIONS in prompt:
            reply = self._relations(prompt, own)
        elif markers.TOG_ENTITIES in prompt:
            reply = self._scores(own)
        elif markers.TOG_REASON in prompt:
            reply = self._judge(own)
        else:
            reply = self._answer(own)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])

    def _gold(self, own: str) -> list[str]:
        text = after(own, markers.QUESTION)
        if text not in self.questions:
            raise KeyError(f"ToG oracle: no gold data for question {text!r}")
        return gold_steps(self.questions[text])

    def _relations(self, prompt: str, own: str) -> str:
        gold = self._gold(own)
        step = after(own, markers.REACHED_BY).count(" -> ") // 2  # relations walked so far
        listed = list(itertools.takewhile(lambda x: not x.startswith(markers.CHOOSE_AT_MOST),
                                          block(own, markers.RELATIONS_LIST)))  # fmt: skip
        if step >= len(gold) or gold[step] not in listed:
            return "{}\nNo listed relation is on the gold chain."
        width = int(after(own, markers.CHOOSE_AT_MOST).rstrip(":") or 1)
        others = [r for r in listed if r != gold[step]][: width - 1] if self.keep == "width" else []
        share = 0.4 / len(others) if others else 0.0
        lines = [f"{{{gold[step]} (Score: {1.0 - 0.4 * bool(others):.1f})}}"]
        lines += [f"{{{r} (Score: {share:.3f})}}" for r in others]
        if markers.HOPS_LEFT in prompt:  # the rules ask for it
            lines.append(f"{markers.HOPS_LEFT}{len(gold) - step - 1}")
        return "\n".join([*lines, "The next relation of the gold chain."])

    def _scores(self, own: str) -> str:
        gold = self._gold(own)
        step = after(own, markers.REACHED_BY).count(" -> ") // 2  # relations walked so far
        relation = after(own, markers.RELATION)
        lines = block(own, markers.CANDIDATES_LIST)
        if not lines:
            return "Scores: none"
        if step >= len(gold) or relation != gold[step]:
            return "Scores: none\nThis relation is off the gold chain."
        following = gold[step + 1] if step + 1 < len(gold) else None
        scores = []
        for line in lines:
            shown = leads_of(line)
            goes_on = following is None or shown is None or following in shown[0] or not shown[1]
            scores.append("1" if goes_on else "0")
        return "Scores: " + ", ".join(scores)

    def _walked(self, own: str) -> tuple[int, list[str]]:
        """The deepest depth whose triples hold its gold relation, and what it reached."""
        gold, found = self._gold(own), depths(own)
        best: tuple[int, list[str]] = (0, [])
        for depth in range(1, len(gold) + 1):
            ends = reached(found.get(depth, []), gold[depth - 1])
            if not ends:
                break
            best = (depth, ends)
        return best

    def _judge(self, own: str) -> str:
        depth, ends = self._walked(own)
        if depth == len(self._gold(own)):
            return "{Yes}. The gold chain is walked. {" + " | ".join(ends) + "}"
        return "{No}. The gold chain is not walked yet."

    def _answer(self, own: str) -> str:
        _, ends = self._walked(own)
        return "From the deepest gold step walked. {" + " | ".join(ends) + "}"
