"""WikiTableQuestions: the dataset's TSV format and its official denotation accuracy.

The metric follows the rules published with the dataset (its `evaluator.py`): strings are
normalized (NFKD without diacritics, unified quotes and dashes, trailing citations and
parenthesised details dropped, a final period dropped, whitespace collapsed, lower case), then
read as numbers (compared with tolerance 1e-6), dates (`yyyy-mm-dd`, `xx` for unknown parts;
a bare year is a number) or strings. A prediction is correct only when it has as many values
as the gold answer and every gold value matches one of them.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from readi_graph.datasets.metaqa import DatasetError

_QUOTES_SINGLE = re.compile("[‘’´`]")
_QUOTES_DOUBLE = re.compile("[“”]")
_DASHES = re.compile("[‐‑‒–—−]")
_CITATIONS = re.compile(r"((?<!^)\[[^\]]*\]|\[\d+\]|[•♦†‡*#+])*$")
_PARENTHESES = re.compile(r"(?<!^)( \([^)]*\))*$")
_OUTER_QUOTES = re.compile(r'^"([^"]*)"$')


def normalize(text: str) -> str:
    """The official string normalization of WikiTableQuestions answers."""
    text = "".join(
        c for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c) != "Mn"
    )
    text = _QUOTES_SINGLE.sub("'", text)
    text = _QUOTES_DOUBLE.sub('"', text)
    text = _DASHES.sub("-", text)
    while True:
        before = text
        text = _CITATIONS.sub("", text.strip())
        text = _PARENTHESES.sub("", text.strip())
        text = _OUTER_QUOTES.sub(r"\1", text.strip())
        if text == before:
            break
    if text and text[-1] == ".":
        text = text[:-1]
    return " ".join(text.split()).lower().strip()


@dataclass(frozen=True)
class Value:
    """A denotation value: its normalized text, plus a number or a date when it is one."""

    normalized: str
    number: float | None = None
    date: tuple[int, int, int] | None = None

    def matches(self, other: Value) -> bool:
        if self.normalized == other.normalized:
            return True
        if self.number is not None and other.number is not None:
            return abs(self.number - other.number) < 1e-6
        return self.date is not None and self.date == other.date


def _number(text: str) -> float | None:
    try:
        return float(int(text))
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isnan(value) or math.isinf(value) else value


def _date(text: str) -> tuple[int, int, int] | None:
    parts = text.lower().split("-")
    if len(parts) != 3:
        return None
    try:
        year = -1 if parts[0] in ("xx", "xxxx") else int(parts[0])
        month = -1 if parts[1] == "xx" else int(parts[1])
        day = -1 if parts[2] == "xx" else int(parts[2])
    except ValueError:
        return None
    if year == month == day == -1:
        return None
    if (month != -1 and not 1 <= month <= 12) or (day != -1 and not 1 <= day <= 31):
        return None
    return (year, month, day)


def to_value(original: str) -> Value:
    normalized = normalize(original)
    number = _number(original)
    if number is not None:
        return Value(normalized, number=number)
    date = _date(original)
    if date is not None:
        if date[1] == date[2] == -1:  # a bare year is a number
            return Value(normalized, number=float(date[0]))
        return Value(normalized, date=date)
    return Value(normalized)


def denotation_correct(gold: Sequence[str], predicted: Sequence[str]) -> bool:
    """Official rule: same number of distinct values, every gold value matched by a prediction."""
    targets = list(dict.fromkeys(to_value(g) for g in gold))
    predictions = list(dict.fromkeys(to_value(p) for p in predicted))
    if len(targets) != len(predictions):
        return False
    return all(any(t.matches(p) for p in predictions) for t in targets)


# --- the dataset --------------------------------------------------------------------------


def unescape_tsv(cell: str) -> str:
    r"""WTQ's TSV escapes: `\n` newline, `\p` pipe, `\\` backslash."""
    out, i = [], 0
    while i < len(cell):
        if cell[i] == "\\" and i + 1 < len(cell):
            out.append({"n": "\n", "p": "|", "\\": "\\"}.get(cell[i + 1], cell[i + 1]))
            i += 2
        else:
            out.append(cell[i])
            i += 1
    return "".join(out)


def split_answers(field: str) -> list[str]:
    """A `|`-separated answer list (escaped pipes are `\\p`, so splitting first is safe)."""
    return [unescape_tsv(a) for a in field.split("|")]


@dataclass(frozen=True)
class WTQQuestion:
    id: str
    question: str
    table: str  # e.g. csv/204-csv/590.csv, relative to the dataset directory
    answers: tuple[str, ...]


def load_questions(data: str | Path, split: str = "training") -> Iterator[WTQQuestion]:
    """Questions of `data/<split>.tsv` (checked now, read lazily)."""
    path = Path(data) / "data" / f"{split}.tsv"
    if not path.is_file():
        raise DatasetError(f"{path} is missing (expected the WikiTableQuestions layout)")
    return _read(path)


def _read(path: Path) -> Iterator[WTQQuestion]:
    with path.open(encoding="utf-8") as lines:
        header = next(lines).rstrip("\n").split("\t")
        if header[:4] != ["id", "utterance", "context", "targetValue"]:
            raise DatasetError(f"{path}: unexpected header {header}")
        for number, line in enumerate(lines, 2):
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 4:
                raise DatasetError(f"{path}:{number}: expected 4 tab-separated fields")
            yield WTQQuestion(
                fields[0], unescape_tsv(fields[1]), fields[2], tuple(split_answers(fields[3]))
            )
