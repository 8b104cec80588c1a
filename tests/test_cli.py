"""`readi eval metaqa --planner gold`: progress on stderr, one JSON summary as the last line."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from readi_graph.cli import main


def test_eval_metaqa_gold(
    metaqa_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    code = main(
        [
            "eval",
            "metaqa",
            "--data",
            str(metaqa_dir),
            "--hops",
            "2",
            "--split",
            "dev",
            "--planner",
            "gold",
            "--limit",
            "60",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["n"] == 60
    assert summary["reached"] == 1.0 and summary["coverage"] == 1.0 and summary["errors"] == 0
    assert 0 < summary["queries_per_question"] <= 4  # resolve + 2 hops + labels
    lines = out.read_text().splitlines()
    assert len(lines) == 60 and json.loads(lines[0])["reached"] is True


def test_missing_dataset_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "kb.txt").write_text("A|directed_by|B\n", encoding="utf-8")
    code = main(["eval", "metaqa", "--data", str(tmp_path), "--hops", "1"])
    assert code == 2  # bad input (cli/errors.py)
    assert "official MetaQA layout" in capsys.readouterr().err


def test_ask_streams_progress_through_an_openai_compatible_server(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from openai_stub import openai_stub

    replies = {
        "You plan how to answer": 'Thought: t\nPath: {"Joel Zwick": ["Joel Zwick -> directed -> nationality"]}',
        "could not be instantiated": 'Goal: g\nPath: {"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}',
        "Answer the question using only": "(My Big Fat Greek Wedding, in_language, Greek) {Greek}",
    }
    with openai_stub(replies) as (base_url, prompts):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        code = main(
            [
                "ask",
                "--entity",
                "Joel Zwick",
                "--model",
                "stub-model",
                "which languages are the films directed by Joel Zwick in",
            ]
        )
    assert code == 0 and len(prompts) == 3
    captured = capsys.readouterr()
    assert "[generate] Joel Zwick -> directed -> nationality" in captured.err
    assert '[diagnose] relation "nationality"' in captured.err
    assert "[edit] Joel Zwick -> directed -> in_language" in captured.err
    assert "Answers: ['Greek']  (grounded: True)" in captured.out
    usage = json.loads(captured.out.split("Usage: ")[1])
    assert usage["llm_calls"] == 3 and usage["prompt_tokens"] == 300  # as the server reported


def _table_model(prompt: str) -> str:
    """A stand-in model for table prompts: the first two headers, then the first cell."""
    if "Answer the question using only the table rows" in prompt:
        first = prompt.split("row 1: ")[-1].split(" | ")[0].splitlines()[0]
        return f'Answer: ["{first}"]'
    headers = json.loads(prompt.split("\nHeaders: ")[-1].splitlines()[0])
    return f"Chosen Headers: {json.dumps(headers[:2])}\nConstraints: {{}}"


def test_ask_over_a_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from openai_stub import openai_stub

    csv = tmp_path / "seasons.csv"
    csv.write_text(
        "Year,League,Place\n2001,USL A-League,4th\n2002,USL A-League,2nd\n", encoding="utf-8"
    )
    with openai_stub(_table_model) as (base_url, prompts):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        assert main(["ask", "--table", str(csv), "which year came first"]) == 0
    captured = capsys.readouterr()
    assert "[bind] Year -> Year, League -> League" in captured.err
    assert "[connect] 2 columns, 2 rows" in captured.err
    assert "Answers: ['2001']" in captured.out and len(prompts) == 2


def test_a_computed_table_answer_is_an_answer_from_the_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A count is no cell, so it is not `grounded`, yet it was computed from the rows the run
    selected: `readi ask` exits 0 (answered from the table), not 1 (no evidence)."""
    from openai_stub import openai_stub

    csv = tmp_path / "seasons.csv"
    csv.write_text(
        "Year,League,Place\n2001,USL A-League,4th\n2002,USL A-League,2nd\n", encoding="utf-8"
    )

    def count(prompt: str) -> str:
        if "Answer the question using only the table rows" in prompt:
            return 'Thought: rows 1 and 2.\nAnswer: ["2"]'
        return _table_model(prompt)

    with openai_stub(count) as (base_url, _):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        assert main(["ask", "--table", str(csv), "how many seasons were played"]) == 0
    captured = capsys.readouterr()
    assert "Answers: ['2']  (grounded: False)" in captured.out
    assert "no answer" not in captured.err


def _zemeckis_model(prompt: str) -> str:
    """Plans from the topic entity it is given; answers with the films in the evidence."""
    import re

    from readi_graph.core import markers

    if markers.GENERATE in prompt:
        topic = json.loads(prompt.split("Topic Entities: ")[-1].splitlines()[0])[0]
        return f'Path: {{"{topic}": ["{topic} -> directed"]}}'
    films = sorted(set(re.findall(r"\(([^,()]+), directed_by, Robert Zemeckis\)", prompt)))
    return "{" + "|".join(films) + "}"


def test_ask_finds_the_topic_entity_in_the_question(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from readi_graph.demo import DEMO_KB

    from openai_stub import openai_stub

    page = tmp_path / "run.html"
    with openai_stub(_zemeckis_model) as (base_url, prompts):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        code = main(["ask", "--model", "stub", "--trace", str(page),
                     "which films did Robert Zemeckis direct"])  # fmt: skip
    assert code == 0 and len(prompts) == 2  # plan, answer: the path instantiated
    captured = capsys.readouterr()
    assert "[generate] Robert Zemeckis -> directed" in captured.err
    assert "topic entities found in the question: Robert Zemeckis" in captured.err
    assert 'Note: No topic entity was given; found in the question: "Robert Zemeckis".' in (
        captured.out
    )
    films = sorted(
        line.split("|")[0]
        for line in DEMO_KB.read_text(encoding="utf-8").splitlines()
        if line.endswith("|directed_by|Robert Zemeckis")
    )
    assert f"Answers: {films}  (grounded: True)" in captured.out
    # --trace draws this run: the question, the bound relation, each answer
    drawn = page.read_text(encoding="utf-8")
    assert f"Trace: {page}" in captured.out and "which films did Robert Zemeckis direct" in drawn
    assert "directed_by" in drawn and all(html.escape(f) in drawn for f in films)


def test_ask_entity_wins_and_none_found_is_said_plainly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from openai_stub import openai_stub

    with openai_stub(_zemeckis_model) as (base_url, prompts):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        args = ["ask", "--model", "stub", "--entity", "Tom Hanks"]
        # Tom Hanks directed none of the demo's films: the run ends without evidence (exit 1)
        assert main([*args, "which films did Robert Zemeckis direct"]) == 1
        assert 'Topic Entities: ["Tom Hanks"]' in prompts[0]
        assert "[generate] Tom Hanks -> directed" in capsys.readouterr().err
        calls = len(prompts)
        assert main(["ask", "--model", "stub", "what is the capital of Peru"]) == 1
        assert len(prompts) == calls  # nothing to plan from: no model call
    captured = capsys.readouterr()
    assert "no topic entity was found in the question; name one with --entity" in captured.err
    assert "Note: No topic entity was given and none was found in the question" in captured.out


def test_eval_wtq_writes_lines_and_a_summary(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from conftest import SHARED_DATA
    from openai_stub import openai_stub

    data = SHARED_DATA / "wikitablequestions"
    if not data.exists():
        pytest.skip(f"{data} is absent")
    out = tmp_path / "wtq.jsonl"

    def model(prompt: str) -> str:  # right once: nt-0's gold answer, else the first cell
        if "usl a-league?" in prompt and "Answer the question using only the table" in prompt:
            return 'Answer: ["2004"]'
        return _table_model(prompt)

    with openai_stub(model) as (base_url, _):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        assert (
            main(
                [
                    "eval",
                    "wtq",
                    "--data",
                    str(data),
                    "--split",
                    "training",
                    "--limit",
                    "4",
                    "--out",
                    str(out),
                ]
            )
            == 0
        )
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert summary["n"] == 4 and summary["accuracy"] == 0.25
    assert summary["llm_calls_per_question"] == 2.0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in records] == ["nt-0", "nt-1", "nt-2", "nt-3"]
    assert [r["prediction"] for r in records] == [["2004"], ["2001"], ["Greystones"], ["1"]]
    assert [r["correct"] for r in records] == [1.0, 0.0, 0.0, 0.0]
    assert "wtq training: 100%" in captured.err and "4/4" in captured.err and "acc=" in captured.err


def _kg_model(prompt: str) -> str:
    """A stand-in model for KG prompts: a well-formed path, then the first object it sees."""
    if "Answer the question using only the knowledge triples" in prompt:
        triple = prompt.split("Knowledge Triples:\n")[-1].splitlines()[0]
        return "{" + triple.strip("()").split(", ")[-1] + "}"
    topic = json.loads(prompt.split("\nTopic Entities: ")[-1].splitlines()[0])[0]
    return f'Path: {{"{topic}": ["{topic} -> directed by"]}}'


def test_eval_metaqa_with_a_model(
    metaqa_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from openai_stub import openai_stub

    with openai_stub(_kg_model) as (base_url, _):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        code = main(
            [
                "eval",
                "metaqa",
                "--data",
                str(metaqa_dir),
                "--hops",
                "1",
                "--limit",
                "5",
                "--model",
                "stub",
                "--max-edits",
                "1",
                "--out",
                str(tmp_path / "r.jsonl"),
            ]
        )
    assert code == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["n"] == 5 and summary["errors"] == 0
    # "directed by" leads nowhere from these actors: no evidence, so no answer call to parse.
    assert summary["plan_parse_rate"] == 1.0 and summary["answer_parse_rate"] is None
    assert 2 <= summary["llm_calls_per_question"] <= 3
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 5
