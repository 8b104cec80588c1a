"""`readi ask --editor human`: the terminal shows what a model editor would read, the person's
line resumes the run (same budget and parsing as `Command(resume=...)`), and an empty line or
the end of the input stops editing: the answer uses what was found."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from readi_graph.cli import main
from readi_graph.core import markers

ZWICK = "which languages are the films directed by Joel Zwick in"
ASK = ["ask", "--model", "stub", "--editor", "human", "--max-edits", "2", ZWICK]


def _model(prompt: str) -> str:
    """Plans a path that gets stuck; answers Greek when the evidence says so."""
    if markers.GENERATE in prompt:
        return 'Path: {"Joel Zwick": ["Joel Zwick -> directed -> nationality"]}'
    return "{Greek}" if "(My Big Fat Greek Wedding, in_language, Greek)" in prompt else "{}"


def _usage(out: str) -> dict[str, int]:
    usage: dict[str, int] = json.loads(out.split("Usage: ")[1].splitlines()[0])
    return usage


def test_the_persons_path_from_stdin_is_walked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from openai_stub import openai_stub

    monkeypatch.setattr(sys, "stdin", io.StringIO("Joel Zwick -> directed -> in_language\n"))
    with openai_stub(_model) as (base_url, prompts):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        assert main(ASK) == 0
    captured = capsys.readouterr()
    assert captured.err.count("--- edit ") == 1 and "--- edit 1 of 2 ---" in captured.err
    shown = captured.err.split("--- edit 1 of 2 ---")[1]
    assert 'relation "nationality"' in shown.split("Candidate relations:")[0]  # the diagnosis
    assert "in_language" in shown.split("Candidate relations:")[1].splitlines()[1]
    assert "Joel Zwick -> directed_by -> My Big Fat Greek Wedding" in shown  # walks so far
    assert "[edit] Joel Zwick -> directed -> in_language" in captured.err
    assert "Answers: ['Greek']  (grounded: True)" in captured.out
    usage = _usage(captured.out)
    assert usage["human_edits"] == 1 and usage["llm_calls"] == 2 and len(prompts) == 2


def test_an_empty_line_stops_editing_and_answers_from_the_walk_so_far(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from openai_stub import openai_stub

    monkeypatch.setattr(sys, "stdin", io.StringIO("\nnever read\n"))
    with openai_stub(_model) as (base_url, prompts):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        assert main(ASK) == 1  # a partial walk: no grounded answer (cli/errors.py)
    captured = capsys.readouterr()
    assert captured.err.count("--- edit ") == 1  # asked once, then no more
    usage = _usage(captured.out)
    assert usage["human_stops"] == 1 and "human_edits" not in usage
    assert usage["llm_calls"] == 2 == len(prompts)  # plan + answer: no model edit instead
    assert "Path: Joel Zwick -> directed -> nationality" in captured.out
    assert "deepest partial walk" in captured.out  # the answer's note: what it used


def test_piped_input_an_unreadable_line_then_the_end_of_input() -> None:
    """A real pipe into the `readi` process: the unreadable line is edit feedback (an edit
    spent, asked again with the reason), then the end of input stops editing."""
    from openai_stub import openai_stub

    code = "from readi_graph.cli import main; raise SystemExit(main())"
    with openai_stub(_model) as (base_url, prompts):
        env = {**os.environ, "OPENAI_BASE_URL": base_url}
        env.pop("OPENAI_API_KEY", None)
        done = subprocess.run(
            [sys.executable, "-c", code, *ASK], input="???\n", env=env,
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr  # a partial walk: no grounded answer
    assert done.stderr.count("--- edit ") == 2
    second = done.stderr.split("--- edit 2 of 2 ---")[1]
    assert "could not be read" in second
    usage = _usage(done.stdout)
    assert usage["human_edits"] == 1 and usage["human_stops"] == 1
    assert "Answer: " in done.stdout and len(prompts) == 2
