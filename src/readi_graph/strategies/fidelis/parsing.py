"""Reading FiDeLiS replies: the plan (JSON), the chosen candidates, the verification verdict.

Model output is untrusted: nothing is evaluated, numbers are bounds-checked, and the beam width
is enforced here (the published code takes every integer of the reply as an index).
"""

from __future__ import annotations

import json
import re
from typing import Any

from readi_graph.core.parsing import FENCE, OutputParseError, balanced_object, clip

MAX_KEYWORDS = 30
MAX_TEXT = 300
_INT = re.compile(r"(?<![\d.\-])\d{1,4}(?![\d.])")
_LIST = re.compile(r"\[[^\[\]]*\]")
_VERDICT = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


def _strings(value: Any, limit: int) -> list[str]:
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    cleaned = (str(v).strip()[:MAX_TEXT] for v in items if isinstance(v, str | int | float))
    return list(dict.fromkeys(v for v in cleaned if v))[:limit]


def parse_plan(text: str) -> dict[str, Any]:
    """{"keywords": [...], "steps": [...], "statement": "..."} from the planning reply."""
    block = balanced_object(FENCE.sub("", clip(text)))
    try:
        data = json.loads(block) if block else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        raise OutputParseError("the plan is not a JSON object with keywords and a statement")
    keywords = _strings(data.get("keywords"), MAX_KEYWORDS)
    statement = data.get("declarative_statement") or data.get("statement") or ""
    if not keywords and not statement:
        raise OutputParseError("the plan has neither keywords nor a declarative statement")
    return {
        "keywords": keywords,
        "steps": _strings(data.get("planning_steps") or data.get("steps"), 10),
        "statement": str(statement).strip()[:MAX_TEXT],
    }


def parse_choice(text: str, n: int, width: int) -> list[int]:
    """0-based indices of the chosen candidates (1-based in the prompt): valid, distinct, at
    most `width`. The last JSON-like list wins; else every number in the reply, in order."""
    clean = FENCE.sub("", clip(text))
    lists = _LIST.findall(clean)
    source = lists[-1] if lists else clean
    chosen: list[int] = []
    for match in _INT.findall(source):
        i = int(match) - 1
        if 0 <= i < n and i not in chosen:
            chosen.append(i)
        if len(chosen) == width:
            break
    return chosen


def parse_verdict(text: str) -> bool | None:
    """True/False from a yes/no reply (its first yes or no), None when it has neither."""
    match = _VERDICT.search(clip(text))
    return None if match is None else match.group(1).lower() == "yes"
