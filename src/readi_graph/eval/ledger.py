"""One ledger for several strategies: the same questions through each, one row per strategy.

A row is read from the strategy's run summary (`eval/summary.py`) by field name, through
`COLUMNS` (the one place that knows the summary's names), and from its results lines for the
call bound. Every rate is over the questions asked: a question that crashed or never ran
counts 0 (the summary's rule), and `errors` says how many crashed.

Columns: hit@1 (the first answer is a gold answer), answer in evidence (the paper's answer
coverage AC: the evidence the answer step was given names a gold answer), LLM calls, prompt
and completion tokens (as the model reported them, else counted by `core/models/tokens.py`), SPARQL
queries and seconds per question, errors. Beside them, the call bound: each strategy
registers the most model calls one question can make (`Strategy.calls_bound`, computed per
question since it may depend on the number of topic entities, ToG's T0); the ledger shows it
next to the most calls measured and names every question that went over it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from readi_graph import strategies

Record = dict[str, Any]


@dataclass(frozen=True)
class Column:
    header: str
    fields: tuple[str, ...]  # summary fields that hold it, the first one present wins
    digits: int


# The summary fields each column reads (summary names change: keep them here, in one place).
COLUMNS: tuple[Column, ...] = (
    Column("n", ("n",), 0),
    Column("hit@1", ("hit1",), 3),
    Column("answer in evidence", ("answer_in_evidence",), 3),
    Column("LLM calls/q", ("llm_calls_per_question",), 2),
    Column("prompt tokens/q", ("prompt_tokens_per_question",), 0),
    Column("completion tokens/q", ("completion_tokens_per_question",), 0),
    Column("SPARQL queries/q", ("queries_per_question",), 1),
    Column("s/q", ("seconds_per_question",), 3),
    Column("errors", ("errors",), 0),
)


def read(summary: Mapping[str, Any], column: Column) -> float | None:
    """The column's value in a summary (None when the run has no such figure)."""
    for name in column.fields:
        value = summary.get(name)
        if value is not None:
            return float(value)
    return None


@dataclass(frozen=True)
class Bounds:
    """A strategy's call bound over one run's questions, against the calls measured."""

    formula: str
    low: int | None  # the smallest and largest bound over the questions (None: no bound)
    high: int | None
    max_calls: int
    over: list[str] = field(default_factory=list)  # ids of the questions over their bound

    def shown(self) -> str:
        if self.low is None:
            return "-"
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


def bound_of(strategy: str, record: Record, context: Any) -> int | None:
    """The most calls `strategy` guarantees for this question: as written in its results line
    at run time (`calls_bound`), else computed from `context` and its topic entities."""
    if record.get("calls_bound") is not None:
        return int(record["calls_bound"])
    return strategies.get(strategy).bound(context, int(record.get("topics", 1) or 1))


def bounds(strategy: str, records: Sequence[Record], context: Any) -> Bounds:
    """Check every question's LLM calls against the strategy's bound for that question."""
    registered = strategies.get(strategy)
    limits: list[int] = []
    over: list[str] = []
    most = 0
    for record in records:
        calls = int((record.get("usage") or {}).get("llm_calls", 0) or 0)
        most = max(most, calls)
        limit = bound_of(strategy, record, context)
        if limit is None:
            continue
        limits.append(limit)
        if calls > limit:
            over.append(str(record.get("id")))
    formula = registered.calls_formula or ("" if limits else "no bound registered")
    return Bounds(formula, min(limits, default=None), max(limits, default=None), most, over)


@dataclass(frozen=True)
class Row:
    strategy: str
    summary: Record
    bounds: Bounds
    note: str = ""  # how this strategy was driven (e.g. "offline oracle")

    def as_json(self) -> Record:
        """The row in the summary's own field names, plus the bound check."""
        out: Record = {c.fields[0]: _number(read(self.summary, c), c.digits) for c in COLUMNS}
        out.update(
            run=self.summary.get("run"),
            calls_bound=self.bounds.shown(),
            calls_formula=self.bounds.formula,
            max_calls=self.bounds.max_calls,
            over_bound=self.bounds.over,
        )
        if self.note:
            out["driven_by"] = self.note
        return out


def row(
    strategy: str, summary: Record, records: Sequence[Record], context: Any, note: str = ""
) -> Row:
    return Row(strategy, summary, bounds(strategy, records, context), note)


def _number(value: float | None, digits: int) -> float | int | None:
    """Counts (no digits) as integers."""
    return int(value) if value is not None and not digits else value


def _cell(value: float | None, digits: int) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}" if digits else f"{round(value):,}"


def table(rows: Sequence[Row]) -> str:
    """The ledger as markdown: one row per strategy, then what the bounds are and which
    questions went over them."""
    headers = ["strategy", *(c.header for c in COLUMNS), "max calls", "call bound"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        cells = [r.strategy, *(_cell(read(r.summary, c), c.digits) for c in COLUMNS)]
        cells += [str(r.bounds.max_calls), r.bounds.shown()]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Every rate is over the questions asked (a crashed question counts 0)."]
    for r in rows:
        driven = f" Driven by {r.note}." if r.note else ""
        lines.append(f"- {r.strategy}: LLM calls per question at most {r.bounds.formula}.{driven}")
        if r.bounds.over:
            shown = ", ".join(r.bounds.over[:10]) + (" ..." if len(r.bounds.over) > 10 else "")
            lines.append(
                f"  OVER THE BOUND: {len(r.bounds.over)} question(s) made more calls than "
                f"{r.strategy} guarantees: {shown}"
            )
    return "\n".join(lines)


def as_json(rows: Sequence[Row]) -> Record:
    """`{"compare": {strategy: row}}`: the last line `readi eval --strategy a,b` prints."""
    return {"compare": {r.strategy: r.as_json() for r in rows}}
