"""Reading model output: tolerant, safe (no eval), and explicit about failure.

Models wrap paths in code fences, add prose, drop JSON quotes, rename entities. We look for the
last `Path:` block, try strict JSON first, then fall back to any `a -> b -> c` chains in the
text. What cannot be read raises `OutputParseError`, which the graph turns into a diagnosis
("unparseable path") instead of a crash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from readi_graph.core.base import ReadiError
from readi_graph.environments.kg.names import normalize_name

PATH_FORMAT = 'Path: {"Topic Entity": ["Topic Entity -> relation -> relation"]}'
MAX_ALTERNATIVES = 5
MAX_RELATIONS = 6  # longer chains are not plans any more
MAX_RELATION_CHARS = 120

_FENCE = re.compile(r"```[a-zA-Z]*\n?|```")
_CHAIN = re.compile(r"[^\"\[\]{}\n]*?->[^\"\[\]{}\n]*")
_BRACES = re.compile(r"\{([^{}]*)\}")


class OutputParseError(ReadiError, ValueError):
    """Model output that does not contain what the prompt asked for."""


MAX_REPLY_CHARS = 20_000  # a longer reply is read from its end (where paths and answers are)
_MAX_OBJECT_STARTS = 64  # `{` positions tried: bounded work on brace-flooded replies


def clip(text: str | None) -> str:
    """The part of a model reply the parsers read: its last MAX_REPLY_CHARS characters."""
    text = text or ""
    return text[-MAX_REPLY_CHARS:] if len(text) > MAX_REPLY_CHARS else text


def _balanced_object(text: str) -> str | None:
    """The first `{...}` with balanced braces (quotes respected), or None."""
    start = text.find("{")
    for _ in range(_MAX_OBJECT_STARTS):
        if start == -1:
            break
        depth, in_string, escaped = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                escaped = ch == "\\" and not escaped
                if ch == '"' and not escaped:
                    in_string = False
                continue
            if ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    return None


def _clean(part: str) -> str:
    return part.strip().strip("\"'`[](),.;:*").strip()


def _split_chain(chain: str) -> list[str]:
    parts = chain.replace("→", "->").split("->")
    parts[-1] = re.split(r"[.!?]\s", parts[-1])[0]  # a sentence may go on after the path
    return [p for p in map(_clean, parts) if p]


def _chains(text: str) -> list[tuple[str | None, str]]:
    """(key, chain) pairs: from a JSON object when there is one, else every `->` chain."""
    found: list[tuple[str | None, str]] = []
    block = _balanced_object(text)
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
    by_name = {normalize_name(t): t for t in topics}
    for name in (head, key or ""):
        if normalize_name(name) in by_name:
            return by_name[normalize_name(name)]
    if len(topics) == 1:  # the model renamed the only entity
        return topics[0]
    for name in (head, key or ""):
        n = normalize_name(name)
        matches = [t for t in topics if n and (n in normalize_name(t) or normalize_name(t) in n)]
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
    written = (topic, key or "")
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
    body = _FENCE.sub("", clip(text))
    marker = body.rfind("Path:")
    region = body[marker + len("Path:") :] if marker != -1 else body
    pairs = _chains(region) or (_chains(body) if marker != -1 else [])
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


def _json_field(text: str, name: str) -> Any:
    """`name` of a JSON object reply (schema-constrained output), or None."""
    block = _balanced_object(_FENCE.sub("", clip(text)))
    try:
        data = json.loads(block) if block else None
    except json.JSONDecodeError:
        return None
    return data.get(name) if isinstance(data, dict) else None


def _answers_field(text: str) -> list[str] | None:
    value = _json_field(text, "answers")
    if isinstance(value, list):
        return list(dict.fromkeys(str(v).strip() for v in value if str(v).strip()))
    return None


def parse_answer(text: str) -> list[str] | None:
    """Answers from the last `{a | b}` in the text; [] for an explicit `{}`; None if absent.
    A JSON reply `{"answers": [...]}` (schema-constrained output) is read as such."""
    structured = _answers_field(text)
    if structured is not None:
        return structured
    groups = _BRACES.findall(_FENCE.sub("", clip(text)))
    if not groups:
        return None
    answers = [_clean(a) for a in re.split(r"\s*\|\s*", groups[-1])]
    return list(dict.fromkeys(a for a in answers if a))


# --- tables -------------------------------------------------------------------------------

TABLE_FORMAT = 'Chosen Headers: ["header", "header"]\nConstraints: {"header": ["value"]}'
_HEADERS = re.compile(r"chosen\s+headers?\s*:\s*", re.IGNORECASE)
_CONSTRAINTS = re.compile(r"constrain(?:t)?s?\s*:\s*", re.IGNORECASE)
_ANSWER = re.compile(r"answer\s*:\s*", re.IGNORECASE)


def _json_after(text: str, marker: re.Pattern[str], opener: str) -> Any:
    """The JSON value (list or object) after the last `marker`, tolerating single quotes and
    a missing pair of braces; None when there is none."""
    found = list(marker.finditer(text))
    if not found:
        return None
    rest = text[found[-1].end() :].strip()
    closer = "]" if opener == "[" else "}"
    line = rest.splitlines()[0].strip() if rest else ""
    candidates = [line, rest]
    if opener == "{" and not line.startswith("{"):
        candidates.insert(0, "{" + line.rstrip(",") + "}")
    wanted = list if opener == "[" else dict
    for candidate in candidates:
        start = candidate.find(opener)
        if start == -1:
            continue
        chunks = [candidate[start : candidate.rfind(closer) + 1]]
        if opener == "{":
            chunks.append(_balanced_object(candidate[start:]) or "")
        for chunk in chunks:
            for attempt in (chunk, chunk.replace("'", '"')):
                try:
                    value = json.loads(attempt)
                except json.JSONDecodeError:
                    continue
                if isinstance(value, wanted):
                    return value
    return None


def parse_table_plan(text: str) -> dict[str, Any]:
    """`{"headers": [...], "constraints": {header: [values]}}` from a table path reply."""
    body = _FENCE.sub("", clip(text))
    headers = _json_field(body, "headers")
    if isinstance(headers, list):  # a schema-constrained reply
        constraints = _json_field(body, "constraints")
    else:
        headers = _json_after(body, _HEADERS, "[")
        constraints = _json_after(body, _CONSTRAINTS, "{")
    if not isinstance(headers, list) or not all(isinstance(h, str | int | float) for h in headers):
        snippet = " ".join((text or "").split())[:160]
        raise OutputParseError(f"no chosen headers found in {snippet!r}; expected {TABLE_FORMAT}")
    clean: dict[str, list[str]] = {}
    if isinstance(constraints, dict):
        for header, values in constraints.items():
            items = values if isinstance(values, list) else [values]
            kept = [str(v) for v in items if isinstance(v, str | int | float) and str(v).strip()]
            if kept:
                clean[str(header)] = kept
    return {"headers": list(dict.fromkeys(str(h) for h in headers)), "constraints": clean}


def parse_list_answer(text: str) -> list[str] | None:
    """The list after the last `Answer:` (`Answer: ["a", "b"]`), or of a JSON reply's
    "answers"; None when absent."""
    structured = _answers_field(text)
    if structured is not None:
        return structured
    body = _FENCE.sub("", clip(text))
    value = _json_after(body, _ANSWER, "[")
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    found = list(_ANSWER.finditer(body))
    if found:  # `Answer: 2004` without brackets
        line = body[found[-1].end() :].strip().splitlines()
        return [line[0].strip().strip(".")] if line and line[0].strip() else None
    return None
