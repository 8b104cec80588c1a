"""Reading model output: bounded, tolerant, and explicit when it fails.

Shared by every strategy and environment: the error a reply that cannot be read raises, the
clip that bounds the work on a long reply, the JSON object finder, and the answer parsers.
Path and plan formats live with their environment (`environments/kg/reasoning/parsing.py`,
`environments/table/parsing.py`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from readi_graph.core.base import ReadiError

FENCE = re.compile(r"```[a-zA-Z]*\n?|```")


class OutputParseError(ReadiError, ValueError):
    """Model output that does not contain what the prompt asked for."""


MAX_REPLY_CHARS = 20_000  # a longer reply is read from its end (where paths and answers are)


_MAX_OBJECT_STARTS = 64  # `{` positions tried: bounded work on brace-flooded replies


def clip(text: str | None) -> str:
    """The part of a model reply the parsers read: its last MAX_REPLY_CHARS characters."""
    text = text or ""
    return text[-MAX_REPLY_CHARS:] if len(text) > MAX_REPLY_CHARS else text


def balanced_object(text: str) -> str | None:
    """The first `{...}` with balanced braces (quotes respected), or None."""
    start = text.find("{")
    for _ in range(_MAX_OBJECT_STARTS):
        if start == -1:
            break
        depth, in_string, escaped = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:  # a quote after a backslash does not end the string
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
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


def json_field(text: str, name: str) -> Any:
    """`name` of a JSON object reply (schema-constrained output), or None."""
    block = balanced_object(FENCE.sub("", clip(text)))
    try:
        data = json.loads(block) if block else None
    except json.JSONDecodeError:
        return None
    return data.get(name) if isinstance(data, dict) else None


def _answers_field(text: str) -> list[str] | None:
    value = json_field(text, "answers")
    if isinstance(value, list):
        return list(dict.fromkeys(str(v).strip() for v in value if str(v).strip()))
    return None


def parse_answer(text: str) -> list[str] | None:
    """Answers from the last `{a | b}` in the text; [] for an explicit `{}`; None if absent.
    A JSON reply `{"answers": [...]}` (schema-constrained output) is read as such."""
    structured = _answers_field(text)
    if structured is not None:
        return structured
    groups = BRACES.findall(FENCE.sub("", clip(text)))
    if not groups:
        return None
    answers = [clean_part(a) for a in re.split(r"\s*\|\s*", groups[-1])]
    return list(dict.fromkeys(a for a in answers if a))


_ANSWER = re.compile(r"answer\s*:\s*", re.IGNORECASE)


def json_after(text: str, marker: re.Pattern[str], opener: str) -> Any:
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
            chunks.append(balanced_object(candidate[start:]) or "")
        for chunk in chunks:
            for attempt in (chunk, chunk.replace("'", '"')):
                try:
                    value = json.loads(attempt)
                except json.JSONDecodeError:
                    continue
                if isinstance(value, wanted):
                    return value
    return None


def parse_list_answer(text: str) -> list[str] | None:
    """The list after the last `Answer:` (`Answer: ["a", "b"]`), or of a JSON reply's
    "answers"; None when absent."""
    structured = _answers_field(text)
    if structured is not None:
        return structured
    body = FENCE.sub("", clip(text))
    value = json_after(body, _ANSWER, "[")
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    found = list(_ANSWER.finditer(body))
    if found:  # `Answer: 2004` without brackets
        line = body[found[-1].end() :].strip().splitlines()
        return [line[0].strip().strip(".")] if line and line[0].strip() else None
    return None


BRACES = re.compile(r"\{([^{}]*)\}")


def clean_part(part: str) -> str:
    return part.strip().strip("\"'`[](),.;:*").strip()
