"""KGQA answer metrics, strict first and lenient labelled as such.

- `hit1`: the first predicted answer equals a gold answer (or one of its aliases) after
  normalisation. This is what "Hits@1" means.
- `hit_lenient`: some gold answer occurs inside some prediction (substring, after
  normalisation), the rule of the published Readi/ToG evaluation scripts. It forgives
  "Paris, France" for "Paris" but also "1990s" for "1990"; report it next to `hit1`, never alone.
- `f1`: over the sets of normalised predictions and gold answers. An alias counts as its
  answer, once: predictions are matched one to one with gold answers (a maximum matching), so
  "Obama" and "Barack Obama" for one gold answer are one correct prediction, not two; a second
  alias of an answer already matched is neither right nor wrong (it names that answer again).

Normalisation: case, accents, punctuation, articles and whitespace, as in SQuAD's scorer.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans({c: " " for c in string.punctuation})

# A gold answer with its aliases: any of them counts as that answer.
Gold = Sequence[Sequence[str]]


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = _ARTICLES.sub(" ", text.translate(_PUNCTUATION))
    return " ".join(text.split())


def as_gold(answers: Sequence[str] | Gold) -> list[set[str]]:
    """Plain answers (each its own group) or alias groups, normalised."""
    groups = [[a] if isinstance(a, str) else list(a) for a in answers]
    return [{n for n in map(normalize, g) if n} for g in groups if g]


def hit1(gold: Sequence[str] | Gold, predicted: Sequence[str]) -> bool:
    if not predicted:
        return False
    first = normalize(predicted[0])
    return any(first in group for group in as_gold(gold))


def hit_lenient(gold: Sequence[str] | Gold, predicted: Sequence[str]) -> bool:
    found = [normalize(p) for p in predicted]
    return any(g and g in p for group in as_gold(gold) for g in group for p in found)


def f1(gold: Sequence[str] | Gold, predicted: Sequence[str]) -> float:
    groups = as_gold(gold)
    found = sorted({n for n in map(normalize, predicted) if n})
    if not groups or not found:
        return 0.0
    hits = {p: [i for i, group in enumerate(groups) if p in group] for p in found}
    matched = _matching(hits)
    wrong = sum(1 for p in found if not hits[p])  # names no gold answer at all
    precision, recall = matched / (matched + wrong), matched / len(groups)
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def _matching(hits: dict[str, list[int]]) -> int:
    """The largest number of (prediction, gold answer) pairs with each side used once
    (augmenting paths; the sets are small)."""
    owner: dict[int, str] = {}

    def place(p: str, seen: set[int]) -> bool:
        for g in hits[p]:
            if g not in seen:
                seen.add(g)
                if g not in owner or place(owner[g], seen):
                    owner[g] = p
                    return True
        return False

    return sum(place(p, set()) for p in hits if hits[p])


def kgqa_scores(gold: Sequence[str] | Gold, predicted: Sequence[str]) -> dict[str, float]:
    """All three KGQA metrics; `correct` (for running accuracy) is the strict `hit1`."""
    strict = hit1(gold, predicted)
    return {
        "correct": float(strict),
        "hit1": float(strict),
        "hit_lenient": float(hit_lenient(gold, predicted)),
        "f1": round(f1(gold, predicted), 5),
    }


def answer_in_evidence(gold: Sequence[str] | Gold, evidence: Sequence[Sequence[str]]) -> float:
    """The paper's answer coverage (AC, its Tables 3 and 4): 1.0 when a gold answer (or an
    alias) is named in the evidence the answer step was given (any cell of a triple or row),
    whatever the strategy; 0.0 otherwise."""
    named = {normalize(str(cell)) for item in evidence for cell in item}
    return float(any(group & named for group in as_gold(gold)))
