"""An offline oracle for Think-on-Graph on MetaQA: a chat model that needs no LLM.

It plays every ToG prompt knowing only the gold relation chain of the question (from its
type, `metaqa_offline.gold_steps`), never its answers, so what gets measured is the
environment and the loop (listing, bounded reads, entity pruning, the call budget), not a
model's judgement:
- relation pruning: the gold relation of the step the entity was reached at (counted on its
  "Reached by" path), alone with score 1, when it is listed; else `{}`;
- entity scoring: uniform, whatever the candidates;
- sufficiency: "yes" once the triples hold the gold chain up to its last relation, and the
  answers are the entities that relation reached there, in the order shown (the search's best
  first); "no" before;
- the final answer (frontier emptied, depth spent): the entities reached at the deepest depth
  shown, by the gold relation of that depth when it was walked, else `{}`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from readi_graph.core import markers
from readi_graph.datasets.metaqa import MetaQAQuestion
from readi_graph.datasets.metaqa_offline import gold_steps
from readi_graph.environments.kg import evidence_read

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


class TogOracle(BaseChatModel):
    """Plays ToG's prompts from the gold relation chains of MetaQA questions."""

    questions: dict[str, Any]  # question text -> MetaQAQuestion

    @classmethod
    def over(cls, questions: Iterable[MetaQAQuestion]) -> TogOracle:
        return cls(questions={q.question: q for q in questions})

    @property
    def _llm_type(self) -> str:
        return "readi-tog-oracle"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        prompt = str(messages[-1].content)
        own = own_part(prompt)
        if markers.TOG_RELATIONS in prompt:
            reply = self._relations(own)
        elif markers.TOG_ENTITIES in prompt:
            n = len(block(own, markers.CANDIDATES_LIST))
            reply = "Scores: " + ", ".join([f"{1 / n:.4f}"] * n) if n else "Scores:"
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

    def _relations(self, own: str) -> str:
        gold = self._gold(own)
        step = after(own, markers.REACHED_BY).count(" -> ") // 2  # relations walked so far
        listed = set(block(own, markers.RELATIONS_LIST))
        if step < len(gold) and gold[step] in listed:
            return f"{{{gold[step]} (Score: 1.0)}}\nThe next relation of the gold chain."
        return "{}\nNo listed relation is on the gold chain."

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
