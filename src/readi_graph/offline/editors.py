"""The oracle editor's rules: what it may write, and what each edit prompt counts as.

Both oracles know the gold path of a MetaQA question (its type's relations, in order) and read
the edit prompt, as a perfect editor reading the question would:

- `oracle` (the paper's setting: an editor that knows no KG id it was not shown). At each step
  it writes the gold KG relation id only where a prompt showed it: the previous path holds it
  at that step, or the prompt offers it for that step ("Earlier Relations" for a step before
  the stuck one, "Candidate Relations" for the stuck step). Every other step it writes as a
  paraphrase, the question type's own word for the step (`actor_to_movie_to_director`:
  "actor", then "director"), never the KG's id: binding must find it, as it must find what a
  model writes.
- `oracle-all-ids` (the oracle before issue 24, kept for comparison): it repairs the first
  wrong step only if the prompt offers the gold relation there, and then writes the whole gold
  path in KG ids, including steps no prompt has shown.

Each edit prompt is one feedback sample (did the prompt offer the gold relation for the step
the oracle must repair?) or one named exclusion: `gold_path_stuck` (the previous path is the
gold path and still did not instantiate: nothing to offer) or `longer_than_gold` (the repair
is a deletion: nothing to offer).
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass

from readi_graph.core import markers
from readi_graph.datasets.metaqa import MetaQAQuestion, gold_plan
from readi_graph.environments.kg.store.local import METAQA_RELATION

# The question type's words that are not a plain word of English.
_WORDS = {"imdbrating": "imdb rating", "imdbvotes": "imdb votes"}
_STEP = re.compile(r'\(step (\d+) from "')
_EARLIER = re.compile(r"step (\d+) \(from .*?\): ([^;]*)")
_NUMBERED = re.compile(r"\d+\. ")


def gold_steps(question: MetaQAQuestion) -> list[str]:
    """The gold relations as the edit prompt lists them: `name`, or `<- name` backwards."""
    return [
        (name if c.direction == "forward" else f"<- {name}")
        for c in gold_plan(question.qtype)
        if (name := c.relation.removeprefix(METAQA_RELATION))
    ]


def gold_ids(question: MetaQAQuestion) -> list[str]:
    """The gold relations as a path writes them (no direction)."""
    return [s.removeprefix("<- ") for s in gold_steps(question)]


def paraphrases(question: MetaQAQuestion) -> list[str]:
    """Each gold step in words, from the question type: the thing the step reaches or comes
    from (`movie_to_year` -> "year", `director_to_movie` -> "director")."""
    words = question.qtype.split("_to_")
    steps = (b if a == "movie" else a for a, b in itertools.pairwise(words))
    return [_WORDS.get(w, w) for w in steps]


def after(prompt: str, marker: str) -> str:
    """The rest of the line after the last `marker` (the prompt's own part, after the demos)."""
    return prompt.rsplit(marker, 1)[-1].split("\n", 1)[0].strip() if marker in prompt else ""


def previous_path(line: str, topic: str) -> list[str]:
    """The relations of the topic's first previous path, as written."""
    try:
        paths = json.loads(line)
        first = (paths.get(topic) or [topic])[0]
    except (json.JSONDecodeError, AttributeError, IndexError, TypeError):
        return []
    return [r.strip() for r in str(first).split(" -> ")[1:]]


@dataclass(frozen=True)
class EditPrompt:
    """What an edit prompt shows the editor, read back from its text."""

    previous: list[str]  # the previous path's relations, as written
    candidates: set[str]  # "Candidate Relations" (`name` or `<- name`)
    earlier: dict[int, set[str]]  # "Earlier Relations": step (from 1) -> relations
    stuck: int | None  # the step (from 0) the error message names as not instantiated

    @classmethod
    def read(cls, prompt: str, topic: str) -> EditPrompt:
        own = prompt.rsplit(markers.QUESTION, 1)[-1]  # the prompt's own part
        # the step named by a numbered error (notes and the attempts may name other steps)
        errors = own.split(markers.EDIT_ERRORS, 1)[-1].split(markers.EDIT_CONTEXT, 1)[0]
        numbered = "\n".join(line for line in errors.splitlines() if _NUMBERED.match(line))
        stuck = _STEP.search(numbered)
        earlier: dict[int, set[str]] = {}
        for match in _EARLIER.finditer(after(own, markers.EARLIER_RELATIONS)):
            earlier[int(match.group(1))] = _names(match.group(2))
        return cls(
            previous=previous_path(after(own, markers.PREVIOUS_PATH), topic),
            candidates=_names(after(own, markers.CANDIDATE_RELATIONS)),
            earlier=earlier,
            stuck=int(stuck.group(1)) - 1 if stuck else None,
        )

    def offered(self, position: int) -> set[str]:
        """The relations the prompt offers for step `position` (from 0)."""
        if position + 1 in self.earlier:
            return self.earlier[position + 1]
        stuck = self.stuck if self.stuck is not None else len(self.previous)
        return self.candidates if position == stuck else set()


def _names(text: str) -> set[str]:
    return {c.strip() for c in text.split(",") if c.strip()}


Outcome = bool | str  # a feedback sample, or the name of an exclusion


def shown_only(question: MetaQAQuestion, prompt: EditPrompt) -> tuple[list[str], Outcome]:
    """The `oracle`'s corrected path and the prompt's feedback outcome."""
    steps, ids, words = gold_steps(question), gold_ids(question), paraphrases(question)
    path = [
        rid if (i < len(prompt.previous) and prompt.previous[i] == rid) or step in prompt.offered(i)
        else word
        for i, (step, rid, word) in enumerate(zip(steps, ids, words, strict=True))
    ]  # fmt: skip
    position = _repair(prompt, ids, words)
    if isinstance(position, str):
        return path, position
    return path, steps[position] in prompt.offered(position)


def _repair(prompt: EditPrompt, ids: list[str], words: list[str]) -> int | str:
    """The step the oracle must repair first, or why there is none."""
    previous = prompt.previous
    prefix = zip(previous, ids, words, strict=False)
    if len(previous) > len(ids) and all(r in (i, w) for r, i, w in prefix):
        return "longer_than_gold"
    wrong = [i for i, r in enumerate(previous[: len(ids)]) if r not in (ids[i], words[i])]
    if len(previous) < len(ids):
        wrong.append(len(previous))
    stuck = prompt.stuck
    if stuck is not None and stuck < min(len(ids), len(previous)) and previous[stuck] != ids[stuck]:
        wrong.append(stuck)
    if wrong:
        return min(wrong)
    worded = [i for i, r in enumerate(previous) if r != ids[i]]
    return worded[0] if worded else "gold_path_stuck"


def all_ids(question: MetaQAQuestion, prompt: str, topic: str) -> tuple[list[str] | None, Outcome]:
    """The `oracle-all-ids` editor (as before issue 24): the whole gold path when the first
    wrong step's gold relation is offered, else None (the previous path again)."""
    gold, ids = gold_steps(question), gold_ids(question)
    previous = EditPrompt.read(prompt, topic).previous
    wrong = next((i for i, r in enumerate(previous) if i >= len(ids) or r != ids[i]), None)
    if wrong is None and len(previous) < len(ids):
        wrong = len(previous)  # a correct prefix: the next gold relation is missing
    if wrong is None:
        return None, "gold_path_stuck"
    if wrong >= len(gold):
        return None, "longer_than_gold"
    offered = gold[wrong] in _offered_before(prompt, wrong)
    return (ids if offered else None), offered


def _offered_before(prompt: str, wrong: int) -> set[str]:
    """The relations offered for position `wrong` as the oracle read them before issue 24:
    that step's "Earlier Relations" when listed, else the "Candidate Relations"."""
    stuck = _names(after(prompt, markers.CANDIDATE_RELATIONS))
    earlier = after(prompt, markers.EARLIER_RELATIONS)
    if not earlier or earlier == "(none)":
        return stuck
    for match in _EARLIER.finditer(earlier):
        if int(match.group(1)) == wrong + 1:
            return _names(match.group(2))
    return stuck
