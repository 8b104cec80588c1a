"""Table constraints a capable model asked for (issue 31): text inside a cell, partial names,
blank cells, values spelled otherwise ("Boston" for "at Boston"); the rows to count named by
constraints; the first rows and the cells the question may mean shown to the planner; ties
and units in the answer prompt. Real WikiTableQuestions tables (training split), scripted
models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.core import markers
from readi_graph.core.context import ReadiContext
from readi_graph.core.prompts import estimate_tokens
from readi_graph.datasets.wtq import denotation_correct
from readi_graph.environments.table.conditions import Condition, read_item
from readi_graph.environments.table.parsing import parse_table_plan
from readi_graph.environments.table.settings import TableSettings
from readi_graph.environments.table.table import Table
from readi_graph.graph import build_graph

from fakes import function_model, scripted


def _wtq(name: str) -> Table:
    from conftest import SHARED_DATA

    path = SHARED_DATA / "wikitablequestions" / "csv" / name
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return Table.from_csv(path)


def _csv(tmp_path: Path, text: str) -> Table:
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    return Table.from_csv(path)


def choice(headers: list[str], constraints: object) -> str:
    return (
        f"Thought: t\nChosen Headers: {json.dumps(headers)}\nConstraints: {json.dumps(constraints)}"
    )


def test_the_kinds_are_read_and_anything_else_is_refused() -> None:
    assert read_item(" Boston ") == Condition("equals", "Boston")
    assert read_item(1964) == Condition("equals", "1964")
    assert read_item({"contains": "(ESP)"}) == Condition("contains", "(ESP)")
    assert read_item({"CONTAINS": 7}) == Condition("contains", "7")
    assert read_item({"empty": True}) == Condition("empty")
    assert read_item({"empty": False}) == Condition("filled")
    for bad in ("", "  ", True, None, [], ["x"], {"contains": ""}, {"contains": True},
                {"empty": "yes"}, {"startswith": "a"}, {"contains": "a", "empty": True}):  # fmt: skip
        assert read_item(bad) is None, bad
    plan = parse_table_plan(choice(["Winner", "Stage"], {
        "Winner": [{"contains": "(ESP)"}, "Federico Bahamontes (ESP)", {"like": "%x"}],
        "Stage": {"empty": False},
    }))  # fmt: skip
    assert plan["constraints"] == {
        "Winner": [{"contains": "(ESP)"}, "Federico Bahamontes (ESP)"],
        "Stage": [{"empty": False}],
    }
    assert plan["ignored"] == ['{"Winner": {"like": "%x"}}']


def test_contains_finds_a_value_inside_a_cell() -> None:
    """The 1964 Tour de France stages: the winner's nation is inside the name, "(ESP)"."""
    table = _wtq("203-csv/44.csv")
    winner = table.column("Winner")
    assert winner is not None
    everyone = [v[0] for _, v in table.rows([winner])]
    for how in ("exact", "normalized", "fuzzy", "words"):
        spanish = [
            v[0] for _, v in table.rows([winner], [(winner, [Condition("contains", "(esp)")], how)])
        ]  # type: ignore[arg-type]
        assert spanish == [w for w in everyone if "(ESP)" in w] and len(spanish) == 4
    assert table.rows([winner], [(winner, ["(ESP)"], "exact")]) == []  # a value: the whole cell


def test_a_partial_name_and_another_spelling_are_found(tmp_path: Path) -> None:
    table = _csv(tmp_path, "Date,Opponent,Coach\n1,at Boston,Pat Riley\n2,Boston,Pat Riley\n"
                 "3,at Chicago,John Fitzpatrick\n4,Boston College,Johnson\n5,Bostonia,x\n")  # fmt: skip
    opponent, coach = table.column("Opponent"), table.column("Coach")
    assert opponent and coach

    def dates(where: list) -> list[str]:  # type: ignore[type-arg]
        return [v[0] for _, v in table.rows([table.columns[0]], where)]

    # a value as whole words of a cell: "Boston" is in "at Boston", not in "Bostonia"
    assert dates([(opponent, ["boston"], "words")]) == ["1", "2", "4"]
    assert dates([(opponent, ["at boston"], "words")]) == ["1"]
    assert dates([(opponent, ["1"], "words")]) == []  # no word "1" in any opponent
    assert dates([(opponent, ["  "], "words")]) == []  # a blank value matches nothing
    # contains: any case, inside words too
    assert dates([(coach, [Condition("contains", "pat")], "exact")]) == ["1", "2", "3"]
    assert dates([(coach, [Condition("contains", "JOHN")], "exact")]) == ["3", "4"]


def test_blank_cells_are_selected_by_an_empty_test(tmp_path: Path) -> None:
    table = _csv(tmp_path, 'Name,Party,Seat\nAnn,Red,1\nBob,,2\nCy,"  ",3\nDee,Blue,4\n')
    party = table.column("Party")
    assert party
    names = [
        v[0] for _, v in table.rows([table.columns[0]], [(party, [Condition("empty")], "exact")])
    ]
    assert names == ["Bob", "Cy"]
    filled = table.rows([table.columns[0]], [(party, [Condition("filled")], "exact")])
    assert [v[0] for _, v in filled] == ["Ann", "Dee"]
    # alternatives combine: blank or Red
    either = table.rows([table.columns[0]], [(party, [Condition("empty"), "Red"], "exact")])
    assert [v[0] for _, v in either] == ["Ann", "Bob", "Cy"]


@pytest.mark.parametrize(
    "hostile",
    [
        "'; DROP TABLE t; --",
        "%' OR '1'='1",
        "') UNION SELECT * FROM read_csv('/etc/passwd') --",
        "COPY t TO '/tmp/leak.csv'",
        "a\x00b",
        "\\",
        "' || words(c0) || '",
    ],
)
def test_every_kind_passes_model_text_as_a_parameter(tmp_path: Path, hostile: str) -> None:
    table = _csv(tmp_path, "Name,Score\nAnn,3\nBob,4\n")
    name = table.columns[0]
    for test in (Condition("contains", hostile), Condition("equals", hostile)):
        for how in ("exact", "normalized", "fuzzy", "words"):
            assert table.rows(table.columns, [(name, [test], how)]) == []  # type: ignore[list-item]
    assert table.n_rows == 2 and not Path("/tmp/leak.csv").exists()


def test_count_questions_select_the_rows_to_count_with_constraints() -> None:
    """nt-10036-like: the rows to count are named; the prompts say so, the rows reach the
    answer, and the answer is the bare number."""
    table = _wtq("203-csv/44.csv")
    question = {"question": "how many stages did spanish riders win?"}
    llm = scripted(
        choice(["Stage", "Winner"], {"Winner": [{"contains": "(ESP)"}]}),
        'Thought: four rows.\nAnswer: ["4"]',
    )
    out = build_graph(table, llm).invoke(question)
    generate, answer = llm.prompts
    assert "To count, total or compare some of the rows, constrain to those rows" in generate
    assert len(out["evidence"]) == 1 + 4 and all("(ESP)" in row[1] for row in out["evidence"][1:])
    assert "row " in answer and answer.count("(ESP)") >= 4
    assert 'as the bare number, with no unit added ("17", not "17 years")' in answer
    assert "when rows tie" in answer
    assert denotation_correct(["4"], out["answers"])


def test_the_planner_sees_first_rows_and_the_cells_the_question_may_mean() -> None:
    table = _wtq("204-csv/341.csv")  # the lakes of Turkey (the prompt's own example table)
    llm = function_model(
        lambda p: (
            choice(["Name in English", "Depth"], {})
            if markers.TABLE_GENERATE in p
            else 'Answer: ["x"]'
        )
    )
    build_graph(table, llm).invoke({"question": "which is deeper, lake tuz or lake egirdir?"})
    own = llm.prompts[0].split("### Your turn")[-1]
    rows = own.split(markers.SAMPLE_ROWS)[1].split("\n")
    assert [json.loads(r)[0] for r in rows[:3]] == ["Lake Van", "Lake Tuz", "Lake Beyşehir"]
    cells = own.split(markers.CELLS)[1].splitlines()
    english = json.loads(
        next(c for c in cells if c.startswith('"Name in English"')).split(": ", 1)[1]
    )
    assert english[:2] == ["Lake Tuz", "Lake Eğirdir"]  # sharing most words first; accents
    # the paper's prompt: one row, no cells
    table.settings = TableSettings.paper()
    llm.prompts.clear()
    build_graph(table, llm).invoke({"question": "which is deeper, lake tuz or lake egirdir?"})
    own = llm.prompts[0].split("### Your turn")[-1]
    assert markers.CELLS not in own and own.split(markers.SAMPLE_ROWS)[1].count('["Lake') == 1


def test_a_value_spelled_otherwise_is_found_by_its_words_unless_the_paper_is_asked(
    tmp_path: Path,
) -> None:
    csv = "Date,Opponent,Result\n1,at Boston,W\n2,at Boston,L\n3,Chicago,W\n"
    plan = choice(["Opponent", "Result"], {"Opponent": ["Boston"]})
    for settings, rows in ((TableSettings(), 2), (TableSettings.paper(), 3)):
        table = _csv(tmp_path, csv)
        table.settings = settings
        llm = scripted(plan, 'Answer: ["1"]')
        out = build_graph(table, llm).invoke({"question": "how many games at boston were won?"})
        assert len(out["evidence"]) == 1 + rows  # the paper: no row matched, all rows used
        assert out["attempts"][0]["fallback"] is (rows == 3)


def test_a_constraint_of_no_known_kind_is_said_not_lost(tmp_path: Path) -> None:
    table = _csv(tmp_path, "Name,Score\nAnn,3\nBob,4\n")
    llm = scripted(choice(["Name", "Score"], {"Score": [{"above": 3}]}), 'Answer: ["Bob"]')
    out = build_graph(table, llm).invoke({"question": "who scored more than 3?"})
    (note,) = out["notes"]
    assert '{"Score": {"above": 3}}' in note and "ignored" in note and note in llm.prompts[-1]
    assert len(out["evidence"]) == 3  # no constraint left: every row


def test_the_planning_prompt_stays_within_its_budget(tmp_path: Path) -> None:
    """Long cells that share the question's words: the cells shown are cut to the budget."""
    lines = ["Team,Notes"] + [f'T{i},"{"boston harbour crossing " * 40}{i}"' for i in range(300)]
    table = _csv(tmp_path, "\n".join(lines) + "\n")
    table.settings = TableSettings(cell_chars=0)  # cells shown whole
    prompts: list[str] = []

    def reply(prompt: str) -> str:
        prompts.append(prompt)
        return (
            choice(["Team", "Notes"], {}) if markers.TABLE_GENERATE in prompt else 'Answer: ["x"]'
        )

    build_graph(table, function_model(reply)).invoke(
        {"question": "which team notes mention the boston harbour crossing?"},
        context=ReadiContext(prompt_budget=1500),
    )
    assert estimate_tokens(prompts[0]) <= 1500 and "cut to fit the prompt budget" in prompts[0]


def test_long_cells_are_shown_cut_and_still_found_by_contains(tmp_path: Path) -> None:
    long = "Stadium of the harbour " + "and the old quay " * 20
    table = _csv(tmp_path, f'Venue,Year\n"{long}",1999\nPark,2000\n')
    llm = scripted(
        choice(["Venue", "Year"], {"Venue": [{"contains": "old quay"}]}), 'Answer: ["1999"]'
    )
    out = build_graph(table, llm).invoke({"question": "when was the harbour stadium opened?"})
    shown = long[:99] + "…"
    own = llm.prompts[0].split("### Your turn")[-1]
    assert json.dumps(shown, ensure_ascii=False) in own.split(markers.SAMPLE_ROWS)[1]
    assert json.dumps([shown], ensure_ascii=False) in own.split(markers.CELLS)[1]
    assert long not in own and out["evidence"][1] == [long, "1999"]  # the answer sees it whole


def test_a_named_column_shows_its_categories_not_one_name_per_row(tmp_path: Path) -> None:
    from readi_graph.environments.table.values import values_text

    rows = [f"P{i},{'Home' if i % 3 else 'Away'},{i}" for i in range(20)]
    table = _csv(tmp_path, "Player,Venue,Goals\n" + "\n".join(rows) + "\n")
    text = values_text(table, "how many players scored at the home venue?")
    lines = text.splitlines()
    assert lines[0] == markers.CELLS
    assert '"Venue": ["Home", "Away"]' in lines  # both categories, the most frequent first
    assert not any(line.startswith('"Player"') for line in lines)  # 20 names for 20 rows
    table.settings = TableSettings(values_per_column=0)
    assert values_text(table, "how many players scored at the home venue?") == ""


def test_contains_text_is_literal_and_never_empty_after_normalizing(tmp_path: Path) -> None:
    """`%` and `_` are not wildcards, and a text that normalizes to nothing (a lone accent)
    is in no cell: it must not select every row."""
    table = _csv(tmp_path, "Name,Note\nAnn,50%\nBob,a_b\nCy,plain\n")
    name, note = table.column("Name"), table.column("Note")
    assert name and note

    def names(text: str) -> list[str]:
        return [
            v[0] for _, v in table.rows([name], [(note, [Condition("contains", text)], "exact")])
        ]

    assert names("%") == ["Ann"] and names("_") == ["Bob"]
    assert names("\u0301") == [] and names("a") == ["Bob", "Cy"]


def test_a_reply_with_hundreds_of_alternatives_keeps_ten_and_says_so() -> None:
    """A question names a few rows: past ten alternatives per header (duplicates first
    removed) and eight constrained headers, the rest is ignored with a note, so a reply cannot
    make a plan that scans the table thousands of times."""
    many = [f"Team {i}" for i in range(1500)]
    plan = parse_table_plan(choice(["Team", "Year"], {"Team": ["Team 0", *many]}))
    assert plan["constraints"]["Team"] == many[:10]  # "Team 0" once
    assert plan["capped"] == ['the alternatives of "Team" after the first 10']
    headers = {f"H{i}": ["x"] for i in range(12)}
    plan = parse_table_plan(choice(["H0", "H1"], headers))
    assert list(plan["constraints"]) == [f"H{i}" for i in range(8)]
    assert plan["capped"] == ['the constraints on "H8" and after it']
