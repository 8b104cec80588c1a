"""Tables: a constraint that matches nothing is dropped (and said), the others still filter;
selections above the row cap come with DuckDB's counts and sums over every selected row."""

from __future__ import annotations

from pathlib import Path

from readi_graph.core.context import ReadiContext
from readi_graph.environments.table.table import Table
from readi_graph.graph import build_graph

from fakes import function_model


def _run(table: Table, plan: str, question: str, prompts: list[str], **context: int) -> dict:  # type: ignore[type-arg]
    def reply(prompt: str) -> str:
        prompts.append(prompt)
        return plan if "from a table" in prompt else 'Answer: ["x"]'

    return dict(build_graph(table, function_model(reply)).invoke(
        {"question": question}, context=ReadiContext(**context)))  # fmt: skip


def test_an_unmatched_constraint_is_dropped_and_the_others_still_filter(tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text(
        "Year,League,Position\n2001,USL A-League,4th\n2002,USL A-League,2nd\n"
        "2003,USL First Division,1st\n2004,USL First Division,3rd\n"
    )
    prompts: list[str] = []
    plan = ('Chosen Headers: ["Year", "League", "Position"]\n'
            'Constraints: {"League": ["USL A-League"], "Position": ["Martian champion"]}')  # fmt: skip
    out = _run(Table.from_csv(csv), plan, "when was the club in the A-League?", prompts)
    years = {row[0] for row in out["evidence"][1:]}
    assert years == {"2001", "2002"}  # League still filters (today: all four rows)
    (note,) = out["notes"]
    assert "Martian champion" in note and "dropped" in note and note in prompts[-1]


def test_a_big_selection_comes_with_its_totals(tmp_path: Path) -> None:
    csv = tmp_path / "big.csv"
    lines = ["Match,Team,Goals,Attendance"]
    lines += [f'{i},{"Blue" if i % 3 else "Red"},{i % 7},"{1000 + i:,}"' for i in range(1, 601)]
    csv.write_text("\n".join(lines) + "\n")
    prompts: list[str] = []
    plan = 'Chosen Headers: ["Team", "Goals", "Attendance"]\nConstraints: {"Team": ["Blue"]}'
    out = _run(
        Table.from_csv(csv), plan, "how many goals did Blue score?", prompts, evidence_cap=50
    )
    blue = [i for i in range(1, 601) if i % 3]
    (note,) = out["notes"]
    assert f"{len(blue)} rows were selected and 50 are shown" in note
    assert f"Goals: count {len(blue)}, sum {sum(i % 7 for i in blue)}," in note
    assert f"Attendance: count {len(blue)}, sum {sum(1000 + i for i in blue)}," in note
    assert "Team:" not in note  # a text column has no totals
    assert note in prompts[-1]
