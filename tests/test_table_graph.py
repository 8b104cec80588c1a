"""Readi over a real WikiTableQuestions table, with scripted chat models."""

from __future__ import annotations

from pathlib import Path

import pytest

from readi_graph.core.context import ReadiContext
from readi_graph.datasets.wtq import denotation_correct
from readi_graph.environments.table.table import Table
from readi_graph.graph import build_graph

from fakes import scripted

QUESTION = {"question": "what was the last year where this team was a part of the usl a-league?"}
LIMIT = {"recursion_limit": 60}


def choice(headers: str, constraints: str = "{}") -> str:
    return f"Thought: t\nChosen Headers: {headers}\nConstraints: {constraints}"


@pytest.fixture(scope="module")
def table() -> Table:
    from conftest import SHARED_DATA

    path = SHARED_DATA / "wikitablequestions" / "csv" / "204-csv" / "590.csv"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return Table.from_csv(path)


def test_right_headers_first_time_cost_two_calls(table: Table) -> None:
    llm = scripted(
        choice('["Year", "League"]', '{"League": ["usl a-league"]}'),
        'Rows 1-4 are USL A-League; the last is 2004.\nAnswer: ["2004"]',
    )
    out = build_graph(table, llm).invoke(QUESTION, LIMIT)
    assert out["usage"]["llm_calls"] == 2 and out["edits"] == 0
    assert out["answers"] == ["2004"] and out["grounded"]
    assert denotation_correct(["2004"], out["answers"])
    assert out["evidence"][0] == ["Year", "League"]
    assert len(out["evidence"]) == 5  # the 4 USL A-League rows (matched case-insensitively)
    assert ["2004", "USL A-League"] in out["evidence"]
    generate_prompt = llm.prompts[0]
    assert 'Headers: ["Year", "Division", "League"' in generate_prompt
    assert 'Sample Rows:\n["2001", "2", "USL A-League"' in generate_prompt  # deterministic
    assert '\n["2003", "2", "USL A-League", "3rd, Pacific"' in generate_prompt  # three rows
    assert '"League": ["USL A-League", "USL First Division", "USSF D-2 Pro League"]' in (
        generate_prompt  # the cells the question may mean
    )
    assert "row 4: 2004 | USL A-League" in llm.prompts[1]


def test_a_wrong_header_is_fixed_by_one_edit(table: Table) -> None:
    llm = scripted(
        choice('["year", "team"]', '{"team": ["usl a-league"]}'),
        choice('["Year", "League"]', '{"League": ["USL A-League"]}'),
        'Answer: ["2004"]',
    )
    out = build_graph(table, llm).invoke(QUESTION, LIMIT)
    assert out["usage"]["llm_calls"] == 3 and out["edits"] == 1 and out["answers"] == ["2004"]
    edit_prompt = llm.prompts[1]
    assert '1. header "team" is not in the table' in edit_prompt
    assert '"Avg. Attendance"]' in edit_prompt  # every real header is offered
    assert 'Chosen Headers: ["year", "team"]' in edit_prompt


def test_one_header_only_goes_to_edit(table: Table) -> None:
    llm = scripted(choice('["Year"]'), choice('["Year", "League"]'), 'Answer: ["2004"]')
    out = build_graph(table, llm).invoke(QUESTION, LIMIT)
    assert out["edits"] == 1
    assert "choose at least two headers" in llm.prompts[1]


def test_unmatched_constraint_falls_back_to_all_rows(table: Table) -> None:
    llm = scripted(
        choice('["Year", "League"]', '{"League": ["Premier League"]}'), 'Answer: ["2010"]'
    )
    out = build_graph(table, llm).invoke(QUESTION, LIMIT)
    assert out["edits"] == 0  # row constraints never trigger an edit (paper, appendix A)
    assert len(out["evidence"]) == 1 + table.n_rows
    assert 'no row matched the constraints {"League": ["Premier League"]}' in llm.prompts[1]
    assert out["path"][0].endswith("(no row matched the constraints: all rows used)")
    assert out["attempts"][0]["fallback"] is True


def test_rows_shown_to_the_model_are_capped(table: Table) -> None:
    llm = scripted(choice('["Year", "Playoffs"]'), 'Answer: ["2004"]')
    out = build_graph(table, llm).invoke(QUESTION, LIMIT, context=ReadiContext(evidence_cap=3))
    assert f"({table.n_rows - 3} more rows not shown)" in llm.prompts[1]
    assert len(out["evidence"]) == 1 + table.n_rows  # the output keeps them all


def test_budget_spent_on_bad_headers_still_answers_honestly(table: Table) -> None:
    bad = choice('["team", "season"]')
    llm = scripted(bad, bad, bad)
    published = ReadiContext(max_edits=2, stop_hopeless=False)
    out = build_graph(table, llm).invoke(QUESTION, LIMIT, context=published)
    assert out["edits"] == 2 and out["usage"]["llm_calls"] == 3  # no answer call without rows
    assert out["answers"] == [] and "The table gave no evidence" in out["answer"]


def test_the_same_bad_headers_again_end_editing_at_once(table: Table) -> None:
    """The second diagnosis repeats the first: a third call would read the same prompt."""
    bad = choice('["team", "season"]')
    llm = scripted(bad, bad, bad)
    out = build_graph(table, llm).invoke(QUESTION, LIMIT, context=ReadiContext(max_edits=2))
    assert out["edits"] == 1 and out["usage"]["llm_calls"] == 2
    assert out["usage"]["edit_stops"] == 1 and out["usage"]["edits_spared"] == 1
    assert out["answers"] == [] and "The table gave no evidence" in out["answer"]
    assert any("Editing stopped after 1 edit with 1 left unspent" in n for n in out["notes"])


@pytest.mark.parametrize(
    "hostile", ["'; DROP TABLE t; --", 'x") OR 1=1 --', "a\x00b", "read_csv('/etc/passwd')"]
)
def test_hostile_headers_and_constraints_are_harmless(
    table: Table, hostile: str, tmp_path: Path
) -> None:
    import json

    llm = scripted(
        choice(json.dumps(["Year", hostile]), json.dumps({"Year": [hostile]})),
        choice('["Year", "League"]', json.dumps({"League": [hostile]})),
        'Answer: ["2004"]',
    )
    out = build_graph(table, llm).invoke(QUESTION, LIMIT)
    assert out["edits"] == 1 and table.n_rows == 10
    assert len(out["evidence"]) == 1 + table.n_rows  # the hostile value matched no row


def test_a_cell_with_line_breaks_is_shown_on_its_row_line(tmp_path: Path) -> None:
    """A cell holding line breaks (WTQ has many) does not split its row across lines of the
    answer prompt; its whitespace is shown collapsed, as the WTQ metric compares it."""
    from fakes import function_model

    csv = tmp_path / "trucks.csv"
    csv.write_text('Model,Notes\nM939,">20\n\n-\n\n-"\nM35,"6  12"\n', encoding="utf-8")
    prompts: list[str] = []

    def reply(prompt: str) -> str:
        prompts.append(prompt)
        if "Chosen Headers" in prompt and "Rows (" not in prompt:
            return choice('["Model", "Notes"]')
        return 'Thought: t\nAnswer: ["M939"]'

    build_graph(Table.from_csv(csv), function_model(reply)).invoke({"question": "which model"})
    answer = prompts[-1]
    assert "row 1: M939 | >20 - -\n" in answer and "row 2: M35 | 6 12\n" in answer
