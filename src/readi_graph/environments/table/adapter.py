"""The table adapter: headers plus row constraints (paper appendix A), on a DuckDB `Table`.

Binding maps each chosen header to a column (exact text, then case/space-insensitive).
Connecting selects those columns and the rows the constraints name (`conditions.py`: values,
matched exactly, then normalized, then fuzzily, then as whole words; `contains`; `empty`); a
constraint that matches nothing is dropped and said so, and when nothing is left all rows are
used (the paper's behaviour). Only header errors call for an edit: a header not in the table,
or fewer than two headers. The planning prompts show the headers, the first rows and the cells
the question may mean (`values.py`; `table.settings`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from readi_graph.core.adapter import Material, Record, no_evidence
from readi_graph.core.base import InputError
from readi_graph.core.context import ReadiContext
from readi_graph.core.diagnosis import Diagnosis, Reason, diagnosis_from, diagnosis_text
from readi_graph.core.parsing import parse_list_answer
from readi_graph.core.prompts import instruction, notes_text
from readi_graph.core.state import ReadiState
from readi_graph.core.text import normalize_name
from readi_graph.environments.table.conditions import MATCHES, Match
from readi_graph.environments.table.parsing import parse_table_plan
from readi_graph.environments.table.table import Table
from readi_graph.environments.table.values import cut, values_text

ROW_CAP = 500  # rows kept in state; the answer prompt shows `evidence_cap` of them


def plan_text(plan: Record) -> str:
    return (
        f"Chosen Headers: {json.dumps(plan.get('headers', []), ensure_ascii=False)}\n"
        f"Constraints: {json.dumps(plan.get('constraints', {}), ensure_ascii=False)}"
    )


class TableAdapter:
    prompts: Mapping[str, str] = MappingProxyType(
        {"generate": "table_generate", "edit": "table_edit", "answer": "table_answer"}
    )
    native_async = False  # an in-memory DuckDB: its queries are CPU work, run in threads

    def __init__(self, table: Table) -> None:
        self.table = table

    def prepare(self, state: ReadiState) -> Record:
        if not (state.get("question") or "").strip():
            raise InputError('a table question needs {"question": "..."}')
        return {}

    def _described(self, question: str) -> dict[str, str]:
        settings = self.table.settings
        rows = [
            [cut(cell, settings.cell_chars) for cell in row]
            for row in self.table.sample_rows(settings.sample_rows)
        ]
        return {
            "headers": json.dumps(self.table.headers, ensure_ascii=False),
            "sample_rows": "\n".join(json.dumps(r, ensure_ascii=False) for r in rows),
            "values": values_text(self.table, question),
        }

    def generate_values(self, state: ReadiState) -> dict[str, str]:
        return {"question": state["question"], **self._described(state["question"])}

    @property
    def matches(self) -> tuple[Match, ...]:
        """How constraint values are matched, in order (whole words only when settings say)."""
        return MATCHES if self.table.settings.words else MATCHES[:-1]

    def parse_plan(self, text: str, state: ReadiState, editing: bool) -> Record:
        return parse_table_plan(text)

    # --- instantiation -----------------------------------------------------------------------
    def bind(self, state: ReadiState, ctx: ReadiContext) -> Record:
        plan = state.get("plan") or {}
        found = {
            h: self.table.column(h)
            for h in [*plan.get("headers", []), *plan.get("constraints", {})]
        }
        return {h: (c.header if c else None) for h, c in found.items()}

    def connect(self, state: ReadiState) -> tuple[list[Record], list[Record]]:
        plan = state.get("plan") or {}
        bound: dict[str, str | None] = state.get("bindings") or {}
        headers: list[str] = list(plan.get("headers", []))
        missing = [h for h in bound if bound[h] is None]
        columns = [c for h in headers if bound.get(h) and (c := self.table.column(h)) is not None]
        columns = list({c.ident: c for c in columns}.values())
        complete = not missing and len(columns) >= 2
        instance: Record = {
            "headers": [c.header for c in columns],
            "missing": missing,
            "complete": complete,
            "rows": [],
            "total": 0,
            "match": None,
            "fallback": False,
        }
        if columns:
            where = [
                (c, values)
                for h, values in plan.get("constraints", {}).items()
                if bound.get(h) and (c := self.table.column(h)) is not None
            ]
            rows, how = self._select(columns, where)
            if where and not rows:
                # A constraint that matches no row on its own is dropped (and said so); the
                # others still filter. Only if that leaves nothing are all rows used.
                kept = [(c, v) for c, v in where if self._any_row(c, v)]
                instance["dropped"] = {c.header: list(v) for c, v in where if (c, v) not in kept}
                if kept and len(kept) < len(where):
                    rows, how = self._select(columns, kept)
                    where = kept
            if not rows:
                instance["fallback"] = bool(where)  # constraints matched nothing: all rows
                rows, how, where = self.table.rows(columns), None, []
            instance["match"] = how
            instance["where"] = [[c.header, list(v), how] for c, v in where]
            instance["total"] = len(rows)
            instance["rows"] = [[r, values] for r, values in rows[:ROW_CAP]]
        source = f"edit {state['edits_used']}" if state.get("edits_used") else "generate"
        attempt = {
            "source": source,
            "path": plan_text(plan),
            "complete": complete,
            "depth": len(columns),
            "failed_at": None,
            "fallback": instance["fallback"],
        }
        return [instance], [attempt]

    def _select(
        self, columns: list[Any], where: list[tuple[Any, Any]]
    ) -> tuple[list[tuple[int, list[str]]], Match | None]:
        """Rows matching every constraint, trying exact, then normalized, then fuzzy (then
        whole words): the first way that selects rows."""
        for how in self.matches if where else ():
            rows = self.table.rows(columns, [(c, v, how) for c, v in where])
            if rows:
                return rows, how
        return [], None

    def _any_row(self, column: Any, values: Any) -> bool:
        """The constraint selects a row on its own, some way."""
        return any(self.table.rows([column], [(column, values, how)], 1) for how in self.matches)

    def unreadable_plan(self, state: ReadiState) -> Record:
        return {}  # a table plan is chosen whole each time: nothing of the last one stands

    def keep_best(
        self, previous: list[Record], current: list[Record], plan: Record
    ) -> list[Record]:
        return current  # a table plan that reads its columns is complete: nothing to compare

    def diagnose(self, state: ReadiState, ctx: ReadiContext) -> Diagnosis:
        diagnosis = Diagnosis()
        for instance in state.get("instances") or []:
            for header in instance["missing"]:
                diagnosis.reasons.append(
                    Reason(
                        "missing_header",
                        f'header "{header}" is not in the table; choose from the headers listed',
                        relation=header,
                    )
                )
            if not instance["missing"] and len(instance["headers"]) < 2:
                diagnosis.reasons.append(
                    Reason(
                        "too_few_headers",
                        f"choose at least two headers: {instance['headers']} cannot answer the "
                        "question alone",
                    )
                )
            if diagnosis.reasons and instance["headers"]:
                diagnosis.halfway.append("Instantiated headers: " + json.dumps(instance["headers"]))
        return diagnosis

    def edit_values(self, state: ReadiState, ctx: ReadiContext) -> dict[str, str]:
        errors, _, _ = diagnosis_text(diagnosis_from(state.get("diagnosis") or {}))
        return {
            "question": state["question"],
            "path": plan_text(state.get("plan") or {}),
            "errors": errors,
            **self._described(state["question"]),
        }

    # --- answers -----------------------------------------------------------------------------
    def material(self, state: ReadiState, ctx: ReadiContext) -> Material:
        plan = state.get("plan") or {}
        instance: dict[str, Any] = (state.get("instances") or [{}])[0]
        headers: list[str] = instance.get("headers", [])
        rows: list[list[Any]] = instance.get("rows", [])
        if not headers:
            return Material(
                [],
                {},
                [],
                path=[plan_text(plan)],
                no_evidence=no_evidence(state, "table", "no header was chosen"),
            )
        lines = [f"Rows ({' | '.join(headers)}):"]
        # a cell's line breaks and runs of spaces shown as one space: one row, one line
        # (WikiTableQuestions' metric compares answers with whitespace collapsed alike)
        lines += [
            f"row {r + 1}: {' | '.join(' '.join(str(v).split()) for v in values)}"
            for r, values in rows[: ctx.evidence_cap]
        ]
        if instance["total"] > ctx.evidence_cap:
            lines.append(f"({instance['total'] - ctx.evidence_cap} more rows not shown)")
        if instance.get("fallback"):
            lines.append(
                f"(no row matched the constraints {json.dumps(plan.get('constraints'))};"
                " all rows are shown)"
            )
        # Unreadable answer: report the first unconstrained column of the selected rows.
        bound = [self.table.column(h) for h in plan.get("constraints", {})]
        constrained = {c.header for c in bound if c is not None}
        free = [i for i, h in enumerate(headers) if h not in constrained]
        fallback = (
            [values[free[0]] for _, values in rows[:10]]
            if free and not instance.get("fallback") and instance.get("match")
            else []
        )
        note = (
            " (no row matched the constraints: all rows used)" if instance.get("fallback") else ""
        )
        notes = [
            f"The constraint {json.dumps({h: v}, ensure_ascii=False)} matched no row and was "
            "dropped; the other constraints still filter."
            for h, v in (instance.get("dropped") or {}).items()
            if not instance.get("fallback")
        ]
        notes += [
            f"The constraint {item} is not a value, a contains or an empty test; it was ignored."
            for item in plan.get("ignored") or []
        ]
        notes += [
            f"Too many constraints: {what} were ignored." for what in plan.get("capped") or []
        ]
        if instance.get("fallback"):
            notes.append("No row matched the constraints; all rows are shown.")
        if instance["total"] > ctx.evidence_cap:
            notes.append(
                f"{instance['total']} rows were selected and {ctx.evidence_cap} are shown; "
                "totals over all selected rows: " + self._totals(instance)
            )
        source = "the table rows below (the columns chosen for it)"
        return Material(
            evidence=[headers, *[list(values) for _, values in rows]],
            prompt_values={
                "rows": "\n".join(lines),
                "instruction": instruction(ctx.answer_from, source),
                "notes": notes_text(notes),
            },
            notes=notes,
            fallback=fallback,
            known={normalize_name(v) for _, values in rows for v in values},
            path=[plan_text(plan) + note],
        )

    def _totals(self, instance: Record) -> str:
        """count/sum/min/max of the numeric columns over every selected row (DuckDB)."""
        columns = [c for h in instance["headers"] if (c := self.table.column(h)) is not None]
        where = [
            (c, values, how)
            for h, values, how in instance.get("where") or []
            if how and (c := self.table.column(h)) is not None
        ]
        found = self.table.aggregates(columns, where)
        parts = [
            f"{h}: count {a['count']}, sum {a['sum']:g}, min {a['min']:g}, max {a['max']:g}"
            for h, a in found.items()
        ]
        return "; ".join(parts) or "no numeric column"

    def parse_answer(self, text: str) -> list[str] | None:
        return parse_list_answer(text)

    def plan_schema(self, state: ReadiState) -> Record:
        """The schema a constrained decoder holds the plan to: values only (a small model
        keeps to strings; the whole-words match still finds "at Boston" from "Boston")."""
        header = {"type": "string", "enum": self.table.headers}
        return {
            "type": "object",
            "properties": {
                "thought": {"type": "string", "maxLength": 400},
                "headers": {"type": "array", "items": header, "minItems": 2},
                "constraints": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                },
            },
            "required": ["thought", "headers", "constraints"],
        }
