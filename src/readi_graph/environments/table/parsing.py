"""Reading a table plan (chosen headers and row constraints) from a model reply."""

from __future__ import annotations

import json
import re
from typing import Any

from readi_graph.core.parsing import FENCE, OutputParseError, clip, json_after, json_field
from readi_graph.environments.table.conditions import read_item

TABLE_FORMAT = 'Chosen Headers: ["header", "header"]\nConstraints: {"header": ["value"]}'
# A question names a few rows: a reply with more alternatives would only cost table scans
# (each alternative is tried exactly, normalized, fuzzily and by whole words).
MAX_ALTERNATIVES = 10  # per header, duplicates removed first
MAX_CONSTRAINED = 8  # headers with constraints


_HEADERS = re.compile(r"chosen\s+headers?\s*:\s*", re.IGNORECASE)


_CONSTRAINTS = re.compile(r"constrain(?:t)?s?\s*:\s*", re.IGNORECASE)


def parse_table_plan(text: str) -> dict[str, Any]:
    """`{"headers": [...], "constraints": {header: [values]}}` from a table path reply."""
    body = FENCE.sub("", clip(text))
    headers = json_field(body, "headers")
    if isinstance(headers, list):  # a schema-constrained reply
        constraints = json_field(body, "constraints")
    else:
        headers = json_after(body, _HEADERS, "[")
        constraints = json_after(body, _CONSTRAINTS, "{")
    named = isinstance(headers, list) and all(isinstance(h, str | int | float) for h in headers)
    if not named or not any(str(h).strip() for h in headers):  # none, or an empty list
        snippet = " ".join((text or "").split())[:160]
        raise OutputParseError(f"no chosen headers found in {snippet!r}; expected {TABLE_FORMAT}")
    clean: dict[str, list[Any]] = {}
    ignored: list[str] = []
    capped: list[str] = []
    if isinstance(constraints, dict):
        for header, values in constraints.items():
            if len(clean) == MAX_CONSTRAINED:
                capped.append(f"the constraints on {json.dumps(str(header))} and after it")
                break
            items = values if isinstance(values, list) else [values]
            tests = [(item, read_item(item)) for item in items[: MAX_ALTERNATIVES * 10]]
            found = {json.dumps(t.record(), sort_keys=True): t.record() for _, t in tests if t}
            kept = list(found.values())[:MAX_ALTERNATIVES]
            if len(found) > MAX_ALTERNATIVES or len(items) > MAX_ALTERNATIVES * 10:
                capped.append(f"the alternatives of {json.dumps(str(header))} after the first "
                              f"{MAX_ALTERNATIVES}")  # fmt: skip
            ignored += [
                json.dumps({str(header): item}, ensure_ascii=False)
                for item, t in tests[:MAX_ALTERNATIVES]
                if t is None and not (isinstance(item, str) and not item.strip())  # blank
            ]
            if kept:
                clean[str(header)] = kept
    chosen = dict.fromkeys(str(h) for h in headers if str(h).strip())
    plan: dict[str, Any] = {"headers": list(chosen), "constraints": clean}
    if ignored:  # not a constraint kind: said to the model, never silently lost
        plan["ignored"] = ignored
    if capped:  # over the caps above: said too
        plan["capped"] = capped
    return plan
