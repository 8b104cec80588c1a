"""Reading ToG replies: the chosen relations with scores, the entity scores, the verdict.

Model output is untrusted: nothing is evaluated, a relation counts only if it names one that
was listed, scores are clamped to [0, 1], and the width is enforced here (the published code
keeps whatever the reply lists).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from readi_graph.core.parsing import FENCE, clip, json_field, parse_answer

_CHOICE = re.compile(
    r"\{\s*([^{}]+?)\s*\(\s*score\s*[:=]\s*([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*\)\s*\}", re.I
)
_NONE = re.compile(r"\{\s*(none)?\s*\}", re.IGNORECASE)  # `{}`: no relation helps
_SCORES = re.compile(r"scores?\s*:\s*(.*)", re.IGNORECASE)
# one way to read each number (no backtracking between `[0-9]*` and `[0-9]+` on long digit runs)
_NUMBER = re.compile(r"(?<![\w.])(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?![\w.])")
_BRACED = re.compile(r"\{\s*(yes|no)\s*[.!]?\s*\}", re.IGNORECASE)  # the official reading
_OPENING = re.compile(r"^[\W_]*(yes|no)\b", re.IGNORECASE)  # a reply that starts "Yes." / "No,"
_WHOLE = re.compile(r"^\s*(all|none)\b", re.IGNORECASE)  # `Scores: all` / `Scores: none`
_HOPS_LEFT = re.compile(r"hops?\s+left\s*[:=]\s*(\d+)", re.IGNORECASE)
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
    numbers), clamped to [0, 1]; `Scores: all` gives every candidate 1, `Scores: none` every
    candidate 0 (none of them helps). None unless exactly `n` numbers are found."""
    body = FENCE.sub("", clip(text))
    lines = _SCORES.findall(body)
    source = lines[-1] if lines else body
    whole = _WHOLE.match(source) if lines else None
    if whole:
        return [1.0 if whole.group(1).lower() == "all" else 0.0] * n
    numbers = _NUMBER.findall(source)[:MAX_SCORES]
    if len(numbers) != n:
        return None
    return [min(max(float(x), 0.0), 1.0) for x in numbers]


def parse_hops_left(text: str) -> int | None:
    """The last `Hops left: N` of a relation reply: how many relations the model says the
    question needs after the chosen ones (None when not said)."""
    found = _HOPS_LEFT.findall(FENCE.sub("", clip(text)))
    return min(int(found[-1]), 1_000) if found else None


def parse_verdict(text: str) -> tuple[bool | None, list[str] | None]:
    """(enough?, answers) from the sufficiency reply. The verdict is the first `{Yes}`/`{No}`
    (the official code reads the first brace group), else a JSON reply's "sufficient", else a
    reply that opens with a bare yes/no; a bare word elsewhere ("no doubt") is not a verdict.
    The answers are the last brace group after the verdict (None when absent). (None, None):
    no verdict found."""
    body = FENCE.sub("", clip(text))
    match = _BRACED.search(body)
    if match is not None:
        return match.group(1).lower() == "yes", parse_answer(body[match.end() :])
    flag = json_field(body, "sufficient")
    if isinstance(flag, bool | str) and str(flag).strip().lower() in ("true", "yes", "false", "no"):
        verdict = str(flag).strip().lower() in ("true", "yes")
        return verdict, parse_answer(body)
    match = _OPENING.match(body)
    if match is None:
        return None, None
    return match.group(1).lower() == "yes", parse_answer(body[match.end() :])
