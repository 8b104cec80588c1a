"""Reading ToG replies: the chosen relations with scores, the entity scores, the verdict.

Model output is untrusted: nothing is evaluated, a relation counts only if it names one that
was listed, scores are clamped to [0, 1], and the width is enforced here (the published code
keeps whatever the reply lists).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from readi_graph.core.parsing import FENCE, clip, json_field, parse_answer

_CHOICE = re.compile(r"\{\s*([^{}]+?)\s*\(\s*score\s*[:=]\s*([0-9]*\.?[0-9]+)\s*\)\s*\}", re.I)
_NONE = re.compile(r"\{\s*(none)?\s*\}", re.IGNORECASE)  # `{}`: no relation helps
_SCORES = re.compile(r"scores?\s*:\s*(.*)", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])[0-9]*\.?[0-9]+(?![\w.])")
_VERDICT = re.compile(r"\{\s*(yes|no)\s*\}|\b(yes|no)\b", re.IGNORECASE)
MAX_SCORES = 1000  # numbers read from one reply (bounds the work on a flooded reply)


def relation_key(text: str) -> str:
    """A relation as written, reduced for matching: `<-` kept as the direction, case and
    separators dropped (`<- Directed By` and `<-directed_by` meet)."""
    text = text.strip().strip("\"'`*").strip()
    backward = text.startswith("<-")
    body = re.sub(r"[\W_]+", "", text.removeprefix("<-").casefold())
    return ("<-" if backward else "") + body


def parse_relations(text: str, listed: Sequence[str], width: int) -> list[tuple[int, float]] | None:
    """(index into `listed`, score) of the chosen relations, best first as the reply ranks
    them: at most `width`, each listed at most once, scores clamped to [0, 1]. A reply that
    names a relation without `<-` while only its backward form was listed means that one.
    [] for an explicit `{}` (none helps); None when the reply holds neither (unreadable)."""
    body = FENCE.sub("", clip(text))
    found = _CHOICE.findall(body)
    if not found:
        return [] if _NONE.search(body) else None
    keys: dict[str, int] = {}
    for k, name in enumerate(listed):
        keys.setdefault(relation_key(name), k)
    chosen: list[tuple[int, float]] = []
    for name, score in found:
        key = relation_key(name)
        i = keys.get(key)
        if i is None and not key.startswith("<-"):
            i = keys.get("<-" + key)
        if i is None or any(i == j for j, _ in chosen):
            continue
        chosen.append((i, min(max(float(score), 0.0), 1.0)))
        if len(chosen) == width:
            break
    return chosen


def parse_scores(text: str, n: int) -> list[float] | None:
    """One score per candidate, in order, from the last `Scores:` line (else the reply's
    numbers), clamped to [0, 1]; None unless exactly `n` numbers are found."""
    body = FENCE.sub("", clip(text))
    lines = _SCORES.findall(body)
    source = lines[-1] if lines else body
    numbers = _NUMBER.findall(source)[:MAX_SCORES]
    if len(numbers) != n:
        return None
    return [min(max(float(x), 0.0), 1.0) for x in numbers]


def parse_verdict(text: str) -> tuple[bool | None, list[str] | None]:
    """(enough?, answers) from the sufficiency reply: the verdict is the first `{Yes}`/`{No}`
    (else the first bare yes/no; a JSON reply's "sufficient"); the answers are the last brace
    group after it (None when absent). (None, None): neither yes nor no."""
    body = FENCE.sub("", clip(text))
    flag = json_field(body, "sufficient")
    if isinstance(flag, bool | str) and str(flag).strip().lower() in ("true", "yes", "false", "no"):
        verdict = str(flag).strip().lower() in ("true", "yes")
        answers = parse_answer(body)
        return verdict, answers
    match = _VERDICT.search(body)
    if match is None:
        return None, None
    verdict = (match.group(1) or match.group(2)).lower() == "yes"
    rest = body[match.end() :]
    return verdict, parse_answer(rest)
