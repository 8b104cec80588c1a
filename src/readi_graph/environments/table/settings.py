"""What the planning prompts show of a table, and how loosely a constraint value may match.

The paper shows the headers and one random row (we show the first: runs repeat), and matches
a constraint value to cells by equality. A capable model asked for more (issue 31): one row is
too little to guess how values are spelled ("at Boston" or "Boston"), so by default the first
three rows are shown and, for the columns the question points at, the cells it may mean; and
a value that matches no cell exactly, normalized or fuzzily may match whole words of a cell.
Long cells are shown cut (a constraint need not copy them whole: `contains`).
`TableSettings.paper()` sets all of it back. Set them with `table.settings = ...`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TableSettings:
    sample_rows: int = 3  # first rows shown to plan (the paper: one)
    values_per_column: int = 8  # cells shown per column the question points at (0: none)
    value_columns: int = 6  # columns with values shown, at most
    words: bool = True  # a value may match whole words of a cell ("Boston": "at Boston")
    cell_chars: int = 100  # a longer cell is shown cut, with "…" (0: whole)

    @classmethod
    def paper(cls) -> TableSettings:
        """The paper's prompt and matching: one row, no values, equality (we keep the
        normalized and fuzzy equality, which only forgive spelling)."""
        return cls(sample_rows=1, values_per_column=0, words=False, cell_chars=0)
