"""`Table`: a table as a Readi environment, on DuckDB.

Every table is copied into a private in-memory DuckDB database whose columns are named `c0`,
`c1`, ... and hold text; the original header text is kept for the LLM, made unique and
non-empty. After loading, external access (files, ATTACH, HTTP) is switched off and the
configuration locked, and every query is built from our own identifiers with values passed as
parameters: model text never becomes SQL (`conditions.py` holds the constraint kinds and their
SQL). Each call uses its own cursor (thread-safe).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from readi_graph.core.base import ReadiError
from readi_graph.core.text import normalize_name
from readi_graph.environments.table.conditions import (
    FUZZY_THRESHOLD,
    Condition,
    Match,
    as_condition,
    condition_sql,
)
from readi_graph.environments.table.format_errors import unreadable
from readi_graph.environments.table.settings import TableSettings

__all__ = ["FUZZY_THRESHOLD", "Column", "Match", "Table", "TableFormatError", "Where"]


Where = tuple[
    "Column", Sequence[Condition | str], Match
]  # a column, its alternatives, how to match


class TableFormatError(ReadiError):
    """A table file could not be read (missing, not CSV/Parquet, malformed)."""


@dataclass(frozen=True)
class Column:
    header: str  # what the LLM sees: the original header, made unique and non-empty
    original: str  # the header cell exactly as in the source
    ident: str  # the SQL identifier: c0, c1, ...


def _display_headers(originals: Sequence[str]) -> list[str]:
    shown: list[str] = []
    seen: dict[str, int] = {}
    for i, original in enumerate(originals):
        text = " ".join(original.split()) or f"column {i + 1}"
        key = text.lower()
        seen[key] = seen.get(key, 0) + 1
        shown.append(text if seen[key] == 1 else f"{text} ({seen[key]})")
    return shown


def _csv_escape(path: Path) -> str:
    r"""`\` when the file escapes quotes with backslashes (WikiTableQuestions), else `"`."""
    with path.open("rb") as handle:
        head = handle.read(1 << 20)
    return "\\" if b'\\"' in head or b"\\\\" in head else '"'


class Table:
    """A read-only table the Readi graph can choose columns and rows from."""

    def __init__(self, con: duckdb.DuckDBPyConnection, columns: Sequence[Column], name: str):
        self._con = con
        self.columns = list(columns)
        self.name = name
        self._lock = threading.Lock()
        self.settings = TableSettings()  # what the prompts show, how loosely values match
        self.n_rows = int(self._query("SELECT count(*) FROM t")[0][0])

    # --- constructors ------------------------------------------------------------------------
    @classmethod
    def _build(
        cls,
        load: Any,
        name: str,
        *,
        header_row: bool,
        headers: Sequence[str] | None = None,
        source: str | None = None,
        kind: str = "table",
    ) -> Table:
        """`load(con)` returns a relation; with `header_row` its first row holds the headers
        (so their exact text, duplicates and blanks included, is kept), else `headers` or the
        relation's column names do. A source DuckDB cannot read is a `TableFormatError`
        naming it (`source`: the file) in our words."""
        con = duckdb.connect(":memory:")
        try:
            relation = load(con)
            names = list(relation.columns)
            con.register("source", relation)
            idents = [f"c{i}" for i in range(len(names))]
            select = ", ".join(
                f'CAST("{n.replace(chr(34), chr(34) * 2)}" AS VARCHAR) AS {c}'
                for n, c in zip(names, idents, strict=True)
            )
            con.execute(
                f"CREATE TABLE raw AS SELECT row_number() OVER () - 1 AS r, {select} FROM source"
            )
            con.unregister("source")
        except (duckdb.Error, OSError) as exc:
            con.close()
            raise TableFormatError(f"{source or name}: {unreadable(exc, kind)}") from exc
        if header_row:
            first = con.execute(f"SELECT {', '.join(idents)} FROM raw WHERE r = 0").fetchall()
            if not first:
                con.close()
                raise TableFormatError(f"{source or name}: empty (no header row)")
            originals = [str(v) if v is not None else "" for v in first[0]]
            con.execute(
                f"CREATE TABLE t AS SELECT r - 1 AS r, {', '.join(idents)} FROM raw WHERE r > 0"
            )
        else:
            originals = list(headers) if headers is not None else names
            con.execute(f"CREATE TABLE t AS SELECT r, {', '.join(idents)} FROM raw")
        con.execute("DROP TABLE raw")
        # Normalized comparison: case, accents, whitespace, thousands separators. A separator
        # pass skips the comma right after one it removed, so two passes remove them all.
        con.execute(r"CREATE MACRO nosep(x) AS regexp_replace(x, '(\d),(\d{3})', '\1\2', 'g')")
        con.execute(
            r"CREATE MACRO norm(x) AS "
            r"lower(strip_accents(trim(regexp_replace(nosep(nosep(x)), '\s+', ' ', 'g'))))"
        )
        # A cell's words between spaces (' at boston '): whole-word containment is `contains`.
        con.execute(
            "CREATE MACRO words(x) AS "
            "' ' || trim(regexp_replace(norm(x), '[[:punct:][:space:]]+', ' ', 'g')) || ' '"
        )
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        shown = _display_headers(originals)
        columns = [Column(h, o, c) for h, o, c in zip(shown, originals, idents, strict=True)]
        return cls(con, columns, name)

    @classmethod
    def from_csv(cls, path: str | Path, *, escape: str | None = None) -> Table:
        r"""A CSV file; `escape` defaults to `\` when the file uses it (WikiTableQuestions)."""
        path = Path(path)
        if not path.is_file():
            raise TableFormatError(f"{path}: no such file")
        esc = escape or _csv_escape(path)

        def load(con: duckdb.DuckDBPyConnection) -> Any:
            return con.read_csv(
                str(path),
                header=False,
                all_varchar=True,
                escapechar=esc,
                quotechar='"',
                strict_mode=False,
                parallel=False,
                null_padding=True,
            )

        return cls._build(load, path.name, header_row=True, source=str(path), kind="CSV")

    @classmethod
    def from_parquet(cls, path: str | Path) -> Table:
        path = Path(path)
        if not path.is_file():
            raise TableFormatError(f"{path}: no such file")
        return cls._build(
            lambda con: con.read_parquet(str(path)),
            path.name,
            header_row=False,
            source=str(path),
            kind="Parquet",
        )

    @classmethod
    def from_dataframe(cls, frame: Any, name: str = "dataframe") -> Table:
        """A pandas or polars DataFrame, or a pyarrow Table."""
        return cls._build(
            lambda con: con.from_df(frame) if hasattr(frame, "iloc") else con.from_arrow(frame),
            name,
            header_row=False,
        )

    @classmethod
    def from_duckdb(cls, con: duckdb.DuckDBPyConnection, table: str) -> Table:
        """A table of an existing DuckDB connection, copied (the copy is what the LLM drives)."""
        rows = con.execute(f'SELECT * FROM "{table.replace(chr(34), chr(34) * 2)}"')
        names = [d[0] for d in rows.description or []]
        data = rows.fetchall()

        def load(own: duckdb.DuckDBPyConnection) -> Any:
            cols = ", ".join(f'"c{i}" VARCHAR' for i in range(len(names)))
            own.execute(f"CREATE TABLE copied ({cols})")
            if data:
                marks = ", ".join("?" for _ in names)
                own.executemany(
                    f"INSERT INTO copied VALUES ({marks})",
                    [[None if v is None else str(v) for v in row] for row in data],
                )
            return own.table("copied")

        return cls._build(load, table, header_row=False, headers=names)

    # --- reading -----------------------------------------------------------------------------
    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            cursor = self._con.cursor()
        try:
            return cursor.execute(sql, list(params)).fetchall()
        finally:
            cursor.close()

    @property
    def headers(self) -> list[str]:
        return [c.header for c in self.columns]

    def column(self, header: str) -> Column | None:
        """The column a header names: exact text first, then case/accent/space-insensitive."""
        for c in self.columns:
            if header == c.header or header == c.original:
                return c
        wanted = normalize_name(header)
        matches = [c for c in self.columns if normalize_name(c.header) == wanted]
        return matches[0] if matches else None

    def sample_row(self) -> list[str]:
        """The first data row (deterministic, unlike the paper's random sample)."""
        rows = self.sample_rows(1)
        return rows[0] if rows else []

    def sample_rows(self, n: int) -> list[list[str]]:
        """The first `n` data rows."""
        idents = ", ".join(c.ident for c in self.columns)
        rows = self._query(f"SELECT {idents} FROM t ORDER BY r LIMIT {max(int(n), 0)}")
        return [[v or "" for v in row] for row in rows]

    def rows(
        self,
        columns: Sequence[Column],
        where: Sequence[Where] = (),
        limit: int | None = None,
    ) -> list[tuple[int, list[str]]]:
        """(row number, values) of the rows matching every `where` (any of its alternatives:
        values, or `conditions.Condition`s)."""
        condition, params = _where_sql(where)
        sql = f"SELECT r, {', '.join(c.ident for c in columns) or 'NULL'} FROM t{condition}"
        sql += " ORDER BY r"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [(int(r[0]), [v or "" for v in r[1:]]) for r in self._query(sql, params)]

    def aggregates(
        self,
        columns: Sequence[Column],
        where: Sequence[Where] = (),
    ) -> dict[str, dict[str, float | int]]:
        """count / sum / min / max of each numeric column over the rows matching `where`,
        computed by DuckDB (cells are text: thousands separators, currency signs and `%` are
        stripped before the cast). A column counts as numeric when at least 80% of its
        non-empty selected cells are numbers. Values reach DuckDB only as parameters."""
        condition, params = _where_sql(where)
        out: dict[str, dict[str, float | int]] = {}
        for column in columns:
            number = f"TRY_CAST(regexp_replace({column.ident}, '[,$€£%\\s]', '', 'g') AS DOUBLE)"
            found = self._query(
                f"SELECT count(*) FILTER (WHERE nullif(trim({column.ident}), '') IS NOT NULL), "
                f"count({number}), sum({number}), min({number}), max({number}) FROM t{condition}",
                params,
            )
            filled, numeric, total, low, high = found[0]
            if numeric and numeric >= 0.8 * filled:
                out[column.header] = {
                    "count": int(numeric),
                    "sum": float(total),
                    "min": float(low),
                    "max": float(high),
                }
        return out


def _where_sql(where: Sequence[Where]) -> tuple[str, list[str]]:
    """` WHERE ...` with a `?` per value (values are parameters, never SQL), or ''."""
    clauses, params = [], []
    for column, alternatives, how in where:
        tests = []
        for item in alternatives:
            sql, values = condition_sql(column.ident, as_condition(item), how)
            tests.append(sql)
            params += values
        clauses.append("(" + (" OR ".join(tests) or "FALSE") + ")")
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params
