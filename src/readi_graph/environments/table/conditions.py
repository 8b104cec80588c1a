"""Row constraints a plan may write, validated, and the SQL test of each (values as parameters).

A plan's constraints map a header to alternatives (any may hold), each one of:

- a value, `"USL A-League"`: the cell equals it, tried exactly, then normalized (case,
  accents, spaces, thousands separators), then fuzzily, then as whole words of the cell
  ("Boston" finds "at Boston"); the first way that selects rows is used;
- `{"contains": "(ESP)"}`: the cell holds the text anywhere, case-insensitively ("pat" finds
  "Pat Riley"; also a value inside a longer cell);
- `{"empty": true}` / `{"empty": false}`: the cell is blank / not blank.

Anything else is not a constraint: it is kept as text (`ignored`) and said to the model.
Model text reaches DuckDB only as `?` parameters; the SQL around it is ours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Match = Literal["exact", "normalized", "fuzzy", "words"]
MATCHES: tuple[Match, ...] = ("exact", "normalized", "fuzzy", "words")
FUZZY_THRESHOLD = 0.9  # Jaro-Winkler similarity of normalized texts
MAX_VALUE = 300  # characters of one constraint value

Kind = Literal["equals", "contains", "empty", "filled"]


@dataclass(frozen=True)
class Condition:
    """One alternative of a constraint."""

    kind: Kind
    value: str = ""

    def record(self) -> str | dict[str, Any]:
        """As a plan holds it (JSON): a value, or the one-key object the model wrote."""
        if self.kind == "equals":
            return self.value
        if self.kind == "contains":
            return {"contains": self.value}
        return {"empty": self.kind == "empty"}


def read_item(item: Any) -> Condition | None:
    """One alternative as the model wrote it; None when it is none of the kinds above (a
    blank value, a list, an unknown key, a contains without text)."""
    if isinstance(item, bool):
        return None
    if isinstance(item, str | int | float):
        text = str(item).strip()
        return Condition("equals", text[:MAX_VALUE]) if text else None
    if isinstance(item, dict) and len(item) == 1:
        ((key, value),) = item.items()
        key = str(key).strip().lower()
        if (
            key == "contains"
            and isinstance(value, str | int | float)
            and not isinstance(value, bool)
        ):
            text = str(value).strip()
            return Condition("contains", text[:MAX_VALUE]) if text else None
        if key == "empty" and isinstance(value, bool):
            return Condition("empty" if value else "filled")
    return None


def as_condition(item: Any) -> Condition:
    """A plan's alternative as a `Condition`: a string is a value as it is (blank too); anything
    else as `read_item` reads it (ValueError: none of the kinds)."""
    if isinstance(item, str):
        return Condition("equals", item)
    test = item if isinstance(item, Condition) else read_item(item)
    if test is None:
        raise ValueError(f"not a table constraint: {json.dumps(item, ensure_ascii=False)}")
    return test


def condition_sql(ident: str, test: Condition, how: Match) -> tuple[str, list[str]]:
    """The SQL test of one alternative on column `ident` (ours: c0, c1, ...), and its
    parameters. Only `equals` depends on `how`."""
    if test.kind == "empty":
        return f"nullif(trim({ident}), '') IS NULL", []
    if test.kind == "filled":
        return f"nullif(trim({ident}), '') IS NOT NULL", []
    if test.kind == "contains":  # never text that normalizes to nothing (it is in every cell)
        return f"(norm(?) <> '' AND contains(norm({ident}), norm(?)))", [test.value] * 2
    if how == "exact":
        return f"{ident} = ?", [test.value]
    if how == "normalized":
        return f"norm({ident}) = norm(?)", [test.value]
    if how == "fuzzy":
        return f"jaro_winkler_similarity(norm({ident}), norm(?)) >= {FUZZY_THRESHOLD}", [test.value]
    # whole words: the value's words, in order, among the cell's (never an empty value)
    return f"(words(?) <> '  ' AND contains(words({ident}), words(?)))", [test.value] * 2
