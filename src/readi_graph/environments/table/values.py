"""The cells a question may mean: what the planning prompts show beside the first rows.

A constraint must name cells as the table spells them ("at Boston", "Pat Riley (ESP)"), and
the first rows rarely hold them. Two cheap reads find them: the cells that share a word with
the question (any column), and the most frequent cells of the columns whose header the
question names when they hold categories (at most `values_per_column` distinct cells, or each
repeated twice on average), not one name per row. Words reach DuckDB as a list parameter; the
SQL is ours.
"""

from __future__ import annotations

import json
import re

from readi_graph.core import markers
from readi_graph.core.text import normalize_name
from readi_graph.environments.table.table import Column, Table

MAX_WORDS = 16
STOP = frozenset(
    "a an and are as at be by did do does for from had has have how in into is it its many "
    "much name number of on or than that the their them then there these this those to total "
    "was were what when where which who whom whose why with".split()
)
_WORD = re.compile(r"[^\W_]+")


def cut(cell: str, chars: int) -> str:
    """A cell as the prompts show it: whole, or its first `chars` characters and "…"."""
    return cell if chars <= 0 or len(cell) <= chars else cell[: chars - 1] + "…"


def question_words(question: str) -> list[str]:
    """The question's words that may name a cell: no stop words, no single letters."""
    found = _WORD.findall(normalize_name(question))
    kept = [w for w in found if w not in STOP and (len(w) > 1 or w.isdigit())]
    return list(dict.fromkeys(kept))[:MAX_WORDS]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def named_columns(table: Table, words: list[str]) -> list[Column]:
    """The columns whose header shares a word with the question (plurals forgiven)."""
    wanted = {_stem(w) for w in words}

    def stems(header: str) -> set[str]:
        return {_stem(w) for w in _WORD.findall(normalize_name(header))}

    return [c for c in table.columns if wanted & stems(c.header)]


def sharing(table: Table, words: list[str], per_column: int) -> dict[Column, list[str]]:
    """Per column, its distinct cells that share a word with `words`, those sharing the most
    first (then in row order)."""
    if not words or not table.columns or per_column <= 0:
        return {}
    parts = []
    for i, c in enumerate(table.columns):
        cell_words = f"string_split(trim(words({c.ident})), ' ')"
        parts.append(
            f"SELECT {i} AS k, {c.ident} AS v, len(list_intersect({cell_words}, ?)) AS shared, "
            f"min(r) AS first FROM t GROUP BY {c.ident}"
        )
    sql = (
        "SELECT k, v FROM (SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY shared DESC, "
        f"first) AS i FROM ({' UNION ALL '.join(parts)}) WHERE shared > 0) "
        f"WHERE i <= {int(per_column)} ORDER BY k, i"
    )
    found: dict[Column, list[str]] = {}
    for k, v in table._query(sql, [words] * len(parts)):
        found.setdefault(table.columns[int(k)], []).append(str(v))
    return found


def frequent(table: Table, column: Column, n: int) -> tuple[list[str], int]:
    """The column's `n` most frequent non-blank cells, and how many distinct ones it has."""
    ident = column.ident
    filled = f"nullif(trim({ident}), '') IS NOT NULL"
    rows = table._query(
        f"SELECT {ident}, count(*) AS n, min(r) AS first FROM t WHERE {filled} "
        f"GROUP BY {ident} ORDER BY n DESC, first LIMIT {int(n)}"
    )
    distinct = table._query(f"SELECT count(DISTINCT {ident}) FROM t WHERE {filled}")
    return [str(r[0]) for r in rows], int(distinct[0][0])


def values_text(table: Table, question: str) -> str:
    """The prompt's "Values" section: per column the question points at, the cells it may
    mean (those sharing its words first), with the number of distinct cells when more exist;
    '' when there are none or the settings show none."""
    settings = table.settings
    per, most = settings.values_per_column, settings.value_columns
    words = question_words(question)
    if per <= 0 or not words:
        return ""
    shown = sharing(table, words, per)
    totals: dict[Column, int] = {}
    for column in named_columns(table, words):
        cells, distinct = frequent(table, column, per)
        if distinct <= per or 2 * distinct <= table.n_rows:  # categories, not one per row
            totals[column] = distinct
            shown[column] = list(dict.fromkeys([*shown.get(column, []), *cells]))[:per]
    lines = []
    for column in [c for c in table.columns if shown.get(c)][:most]:
        cells = shown[column]
        line = f"{json.dumps(column.header, ensure_ascii=False)}: "
        line += json.dumps([cut(c, settings.cell_chars) for c in cells], ensure_ascii=False)
        if totals.get(column, 0) > len(cells):
            line += f" ({totals[column]} distinct in all)"
        lines.append(line)
    if not lines:
        return ""
    return markers.CELLS + "\n" + "\n".join(lines)
