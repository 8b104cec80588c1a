"""Official WikiTableQuestions denotation accuracy, and `readi score wtq`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.cli import main
from readi_graph.datasets.wtq import (
    denotation_correct,
    load_questions,
    normalize,
    split_answers,
    to_value,
    unescape_tsv,
)


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("Crème Brûlée", "creme brulee"),
        ("“Hello”", "hello"),  # curly quotes unified, then the outer quotes dropped
        ("1990–91", "1990-91"),
        ("Paris[1]", "paris"),
        ("Paris [a][2]", "paris"),
        ("Boston (MA)", "boston"),
        ("(2) only", "(2) only"),  # a leading parenthesis is content, not a detail
        ("Inc.", "inc"),
        ("  New   York  ", "new york"),
        ("Bob's†", "bob's"),
    ],
)
def test_normalize(raw: str, normalized: str) -> None:
    assert normalize(raw) == normalized


def test_values_are_numbers_dates_or_strings() -> None:
    assert to_value("2,000").number is None  # a thousands separator is not a number here
    assert to_value("3.0").number == 3.0
    assert to_value("1998").number == 1998.0
    assert to_value("1998-xx-xx").number == 1998.0  # a bare year is a number
    assert to_value("1998-07-xx").date == (1998, 7, -1)
    assert to_value("1998-13-01").date is None
    assert to_value("nan").number is None


@pytest.mark.parametrize(
    ("gold", "predicted", "correct"),
    [
        (["3"], ["3.0000001"], True),
        (["3"], ["3.01"], False),
        (["1998"], ["1998-xx-xx"], True),
        (["1998-07-xx"], ["1998-07-xx"], True),
        (["Boston"], ["boston (MA)"], True),
        (["A", "B"], ["B", "A"], True),
        (["A", "B"], ["A"], False),  # set equality, not overlap (the published code's "hit")
        (["A"], ["A", "B"], False),
        (["A"], ["A", "a"], True),  # duplicates collapse before the size check
        (["Crème"], ["creme"], True),
        ([], [], True),
    ],
)
def test_denotation(gold: list[str], predicted: list[str], correct: bool) -> None:
    assert denotation_correct(gold, predicted) is correct


def test_tsv_escapes() -> None:
    assert unescape_tsv(r"a\nb\pc\\d") == "a\nb|c\\d"
    assert split_answers(r"x\py|z") == ["x|y", "z"]


@pytest.fixture(scope="module")
def wtq_dir() -> Path:
    from conftest import SHARED_DATA

    path = SHARED_DATA / "wikitablequestions"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


def test_gold_answers_score_one(
    wtq_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = list(load_questions(wtq_dir, "training"))
    assert len(questions) == 14152
    jsonl = tmp_path / "gold.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"id": q.id, "prediction": list(q.answers)}) + "\n" for q in questions),
        encoding="utf-8",
    )
    assert (
        main(
            [
                "score",
                "wtq",
                "--data",
                str(wtq_dir),
                "--split",
                "training",
                "--predictions",
                str(jsonl),
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary == {"n": 14152, "accuracy": 1.0, "correct": 14152, "missing": 0}


def test_wrong_and_missing_predictions_count_as_wrong(
    wtq_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = list(load_questions(wtq_dir, "training"))[:4]
    tsv = tmp_path / "pred.tsv"
    tsv.write_text(
        f"{questions[0].id}\t" + "\t".join(questions[0].answers) + "\n"
        f"{questions[1].id}\tdefinitely wrong\n",
        encoding="utf-8",
    )
    main(["score", "wtq", "--data", str(wtq_dir), "--split", "training", "--predictions", str(tsv)])
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["n"] == 14152 and summary["correct"] == 1
    assert summary["missing"] == 14152 - 2
