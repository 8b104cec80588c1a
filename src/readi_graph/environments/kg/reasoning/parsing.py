"""Reading model output: tolerant, safe (no eval), and explicit about failure.

Models wrap paths in code fences, add prose, drop JSON quotes, rename entities. We look for the
last `Path:` block, try strict JSON first, then fall back to any `a -> b -> c` chains in the
text. What cannot be read raises `OutputParseError`, which the graph turns into a diagnosis
("unparseable path") instead of a crash. An edit may drop a topic entity's path by mapping it
to an empty list (`"Topic": []`); a topic it leaves out keeps its previous path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from readi_graph.core.parsing import FENCE, OutputParseError, balanced_object, clean_part, clip
from readi_graph.core.text import normalize_name

PATH_FORMAT = 'Path: {"Topic Entity": ["Topic Entity -> relation -> relation"]}'
MAX_ALTERNATIVES = 5
MAX_RELATIONS = 6  # longer chains are not plans any more
MAX_RELATION_CHARS = 120

_CHAIN = re.compile(r"[^\"\[\]{}\n]*?->[^\"\[\]{}\n]*")


def _split_chain(chain: str) -> list[str]:
    parts = chain.replace("→", "->").split("->")
    parts[-1] = re.split(r"[.!?]\s", parts[-1])[0]  # a sentence may go on after the path
    return [p for p in map(clean_part, parts) if p]


def _chains(text: str) -> list[tuple[str | None, str]]:
    """(key, chain) pairs: from a JSON object when there is one, else every `->` chain."""
    found: list[tuple[str | None, str]] = []
    block = balanced_object(text)
    if block is not None:
        try:
            data = json.loads(block)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            # A schema-constrained reply: {"thought": ..., "path": {topic: [paths]}}.
            inner = {str(k).lower(): v for k, v in data.items()}.get("path")
            data = inner if isinstance(inner, dict) else data
            for key, value in data.items():
                items = value if isinstance(value, list) else [value]
                found += [(str(key), v) for v in items if isinstance(v, str)]
            if found:
                return found
    for line in text.replace("→", "->").splitlines():
        if "->" in line:  # the pattern is quadratic on long lines without an arrow
            found += [(None, m.group(0)) for m in _CHAIN.finditer(line) if "->" in m.group(0)]
    return found


def _topic_for(key: str | None, head: str, topics: Sequence[str]) -> str | None:
    """The topic a chain is about: its head or key names one exactly, else it is the only
    topic, else the one topic whose name contains (or is contained in) the head or key."""
    names = [n for n in map(normalize_name, (head, key or "")) if n]  # "" is in every name
    by_name = {normalize_name(t): t for t in topics}
    for n in names:
        if n in by_name:
            return by_name[n]
    if len(topics) == 1:  # the model renamed the only entity
        return topics[0]
    for n in names:
        matches = [t for t in topics if n in normalize_name(t) or normalize_name(t) in n]
        if len(matches) == 1:
            return matches[0]
    return None


_ID_SUFFIX = re.compile(r"\s*\[[^\[\]]*\]\s*$")  # the id of a topic given as "Name [id]"


def names_entity(head: str, topic: str, key: str | None) -> bool:
    """Is the first element of a chain the topic entity (then it is no relation)? Only if it
    names it: the topic or the model's key for it, or a longer name that contains the topic
    ("Joel Zwick (director)"). `{"Joel Zwick": ["directed -> language"]}` keeps both
    relations."""
    h = _loose(head)
    written = (topic, key) if key else (topic,)
    bare = (_ID_SUFFIX.sub("", name) for name in written)  # "France [m.france]" is "France"
    names = {n for n in map(_loose, (*written, *bare)) if n}
    return bool(h) and (h in names or any(len(n) >= 4 and n in h for n in names))


def _loose(name: str) -> str:
    """A name up to case, accents and punctuation: "The D.I." as a chain's head may come
    back as "The D.I" (a sentence's full stop), "Robert Downey Jr." as "Robert Downey Jr"."""
    return " ".join(re.sub(r"[^\w\s]", " ", normalize_name(name)).split())


def parse_kg_paths(
    text: str, topics: Sequence[str], *, fill_missing: bool = True
) -> dict[str, list[tuple[str, ...]]]:
    """Alternatives of NL relation chains per topic entity, in the model's order.

    A topic the model left out gets one empty path (which the diagnosis reports as such), or
    no entry at all with `fill_missing=False` (an edit that corrects only one constraint).
    """
    if not topics:
        raise OutputParseError("no topic entities to read paths for")
    body, region = _region(text)
    pairs = _chains(body) if region is None else (_chains(region) or _chains(body))
    plan: dict[str, list[tuple[str, ...]]] = {t: [] for t in topics}
    for key, chain in pairs:
        parts = _split_chain(chain)
        if not parts:
            continue
        topic = _topic_for(key, parts[0], topics)
        if topic is None:
            continue
        relations = tuple(parts[1:] if names_entity(parts[0], topic, key) else parts)
        if len(relations) > MAX_RELATIONS or any(len(r) > MAX_RELATION_CHARS for r in relations):
            continue
        if relations not in plan[topic] and len(plan[topic]) < MAX_ALTERNATIVES:
            plan[topic].append(relations)
    if not any(plan.values()):
        snippet = " ".join((text or "").split())[:160]
        raise OutputParseError(f"no path found in {snippet!r}; expected {PATH_FORMAT}")
    if not fill_missing:
        return {t: alternatives for t, alternatives in plan.items() if alternatives}
    return {t: alternatives or [()] for t, alternatives in plan.items()}


def _region(text: str) -> tuple[str, str | None]:
    """(the reply without code fences, what follows its last `Path:`, or None without one)."""
    body = FENCE.sub("", clip(text))
    marker = body.rfind("Path:")
    return body, (body[marker + len("Path:") :] if marker != -1 else None)


def dropped_topics(text: str, topics: Sequence[str]) -> set[str]:
    """The topic entities an edit maps to an empty list in its `Path:` object: their paths are
    dropped (the model says they cannot help), which a topic left out is not."""
    body, region = _region(text)
    block = balanced_object(body if region is None else region)
    try:
        data = json.loads(block) if block is not None else None
    except json.JSONDecodeError:
        return set()
    if not isinstance(data, dict):
        return set()
    inner = {str(k).lower(): v for k, v in data.items()}.get("path")
    data = inner if isinstance(inner, dict) else data
    found = (_topic_for(str(key), str(key), topics) for key, v in data.items() if v == [])
    return {t for t in found if t is not None}


def parse_kg_edit(
    text: str, topics: Sequence[str]
) -> tuple[dict[str, list[tuple[str, ...]]], set[str]]:
    """An edit's paths for the topics it writes (`parse_kg_paths`), and the topics it drops.
    A reply that only drops paths has no path to read, and is no parse error for that."""
    dropped = dropped_topics(text, topics)
    try:
        paths = parse_kg_paths(text, topics, fill_missing=False)
    except OutputParseError:
        if not dropped:
            raise
        paths = {}
    return paths, dropped - set(paths)
