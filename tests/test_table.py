"""The DuckDB table environment: every WikiTableQuestions table loads exactly; nothing leaks."""

from __future__ import annotations

import glob
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pytest

from readi_graph.datasets.wtq import unescape_tsv
from readi_graph.environments.table.table import Table, TableFormatError


@pytest.fixture(scope="module")
def wtq_csv() -> Path:
    from conftest import SHARED_DATA

    path = SHARED_DATA / "wikitablequestions" / "csv"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


def _space(text: str) -> str:  # the TSV twins collapse runs of spaces (not newlines)
    return re.sub(r"[^\S\n]+", " ", text).strip()


def _check(csv_path: str) -> str | None:
    """None when the CSV loads with the headers, row count and cells of its .tsv twin."""
    lines = Path(csv_path[:-4] + ".tsv").read_text(encoding="utf-8").split("\n")
    if lines[-1] == "":
        lines.pop()
    want = [[_space(unescape_tsv(c)) for c in line.split("\t")] for line in lines]
    table = Table.from_csv(csv_path)
    got_headers = [_space(c.original) for c in table.columns]
    got_rows = [[_space(v) for v in row] for _, row in table.rows(table.columns)]
    if got_headers != want[0]:
        return f"{csv_path}: headers {got_headers} != {want[0]}"
    if table.n_rows != len(want) - 1 or got_rows != want[1:]:
        return f"{csv_path}: {table.n_rows} rows, cells differ from the .tsv twin"
    return None


def test_every_wtq_table_loads_exactly(wtq_csv: Path) -> None:
    files = sorted(glob.glob(str(wtq_csv / "*" / "*.csv")))
    assert len(files) == 2108
    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for p in pool.map(_check, files) if p]
    assert problems == []


def test_duplicate_and_empty_headers_get_unique_names(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text('"Title","","Title","Notes / Ref."\n"a","b","c","d"\n', encoding="utf-8")
    table = Table.from_csv(path)
    assert table.headers == ["Title", "column 2", "Title (2)", "Notes / Ref."]
    assert [c.original for c in table.columns] == ["Title", "", "Title", "Notes / Ref."]
    assert table.column("notes / ref.") is table.columns[3]
    assert table.column("Title (2)") is table.columns[2]
    assert table.column("Year") is None


def test_matching_exact_normalized_fuzzy(wtq_csv: Path) -> None:
    table = Table.from_csv(wtq_csv / "204-csv" / "602.csv")
    name = table.column("Name")
    assert name is not None
    exact = table.rows([name], [(name, ["Jonathan Aldridge"], "exact")])
    assert table.rows([name], [(name, ["jonathan  aldridge"], "exact")]) == []
    assert table.rows([name], [(name, ["  JONATHAN aldridge "], "normalized")]) == exact
    assert table.rows([name], [(name, ["Jonathon Aldrige"], "fuzzy")]) == exact
    assert table.sample_row()[0] == "Jonathan Aldridge"


def test_thousands_separators_normalize(tmp_path: Path) -> None:
    path = tmp_path / "n.csv"
    path.write_text('City,Population\nA,"1,234"\nB,"12,345,678"\n', encoding="utf-8")
    table = Table.from_csv(path)
    pop = table.column("Population")
    assert pop is not None
    assert table.rows([pop], [(pop, ["1234"], "normalized")]) == [(0, ["1,234"])]
    assert table.rows([pop], [(pop, ["12345678"], "normalized")]) == [(1, ["12,345,678"])]


@pytest.mark.parametrize(
    "hostile",
    [
        "'; DROP TABLE t; --",
        'x" OR 1=1 --',
        "a\x00b",
        "') UNION SELECT * FROM read_csv('/etc/passwd') --",
        "ATTACH '/tmp/x.db' AS x",
        "COPY t TO '/tmp/out.csv'",
    ],
)
def test_hostile_values_are_only_values(tmp_path: Path, hostile: str) -> None:
    path = tmp_path / "h.csv"
    path.write_text("Name,Score\nAnn,3\nBob,4\n", encoding="utf-8")
    table = Table.from_csv(path)
    name = table.columns[0]
    for how in ("exact", "normalized", "fuzzy"):
        assert table.rows(table.columns, [(name, [hostile], how)]) == []  # type: ignore[list-item]
    assert table.n_rows == 2 and len(table.rows(table.columns)) == 2
    assert not (tmp_path / "out.csv").exists()


def test_the_connection_cannot_reach_files(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    table = Table.from_csv(path)
    with pytest.raises(duckdb.Error):
        table._query("SELECT * FROM read_csv('/etc/passwd')")
    with pytest.raises(duckdb.Error):
        table._query(f"COPY t TO '{tmp_path / 'leak.csv'}'")
    with pytest.raises(duckdb.Error):
        table._query("SET enable_external_access = true")
    assert not (tmp_path / "leak.csv").exists()


def test_other_sources(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"Year": [2001, 2002], "League": ["USL A-League", None]})
    from_frame = Table.from_dataframe(frame)
    assert from_frame.headers == ["Year", "League"]
    assert from_frame.rows(from_frame.columns) == [(0, ["2001", "USL A-League"]), (1, ["2002", ""])]

    con = duckdb.connect()
    con.execute('CREATE TABLE scores ("Team Name" VARCHAR, pts INTEGER)')
    con.execute("INSERT INTO scores VALUES ('Ajax', 3), ('PSV', 1)")
    from_db = Table.from_duckdb(con, "scores")
    assert from_db.headers == ["Team Name", "pts"] and from_db.n_rows == 2
    parquet = tmp_path / "s.parquet"
    con.execute(f"COPY scores TO '{parquet}' (FORMAT parquet)")
    from_parquet = Table.from_parquet(parquet)
    assert from_parquet.rows(from_parquet.columns)[1] == (1, ["PSV", "1"])


def test_broken_inputs_raise_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(TableFormatError, match="no such file"):
        Table.from_csv(tmp_path / "missing.csv")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(TableFormatError, match=r"bad\.parquet"):
        Table.from_parquet(bad)


def test_constraints_and_totals(tmp_path: Path) -> None:
    """Values of one constraint are alternatives (OR), constraints combine (AND); totals are
    over the selected rows, for columns whose non-empty cells are numbers for 80% or more."""
    path = tmp_path / "t.csv"
    path.write_text(
        'Name,Score,Team,Prize\nAnn,3,red,"$1,000"\nBob,4,blue,n/a\nCy,5,red,"$2,500"\n'
        "Dee,x,red,\nEve,6,blue,7%\n",
        encoding="utf-8",
    )
    table = Table.from_csv(path)
    name, score, team, prize = (table.column(h) for h in ("Name", "Score", "Team", "Prize"))
    assert name and score and team and prize
    assert table.rows([name], [(team, ["red", "blue"], "exact")]) == [
        (r, [n]) for r, n in enumerate(["Ann", "Bob", "Cy", "Dee", "Eve"])
    ]
    red_a_or_c = [(team, ["red"], "exact"), (name, ["Ann", "Cy", "Eve"], "exact")]
    assert table.rows([name, score], red_a_or_c) == [(0, ["Ann", "3"]), (2, ["Cy", "5"])]
    assert table.rows([name], limit=2) == [(0, ["Ann"]), (1, ["Bob"])]
    assert table.rows([], [(name, ["Bob"], "exact")]) == [(1, [""])]  # no column: row numbers
    # Score: 4 numbers of 5 cells (80%); Prize: 3 of 4 non-empty cells (75%): not numeric
    assert table.aggregates([name, score, prize]) == {
        "Score": {"count": 4, "sum": 18.0, "min": 3.0, "max": 6.0}
    }
    # red rows: Score 2 of 3 (not numeric); Prize $1,000 and $2,500, the empty cell not counted
    assert table.aggregates([score, prize], [(team, ["red"], "exact")]) == {
        "Prize": {"count": 2, "sum": 3500.0, "min": 1000.0, "max": 2500.0}
    }
