"""Wrong inputs to the `readi` command line, each with the answer it must get (issue 30).

Every case names its arguments, its environment, the exit code it must end with and the words
its last stderr line must hold (the culprit: the file, URL, variable or flag to fix). The
table is shared by `tests/test_wrong_inputs.py` (in-process, part of the normal test run) and
by this file run as a script, which runs each case as its own `readi` process and counts the
cases that pass, e.g. to compare two trees:

    PYTHONPATH=/path/to/tree/src python tests/wrong_inputs.py [WORDS OF CASE NAMES]

A case passes when the exit code is the one expected, stderr holds no traceback, the error is
one line (cases that fail before running anything print nothing else) naming the culprit, and
it ended within its time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# Exit codes (readi --help): 0 answered from the environment, 1 ran and found no evidence,
# 2 bad input, 3 a model or endpoint that cannot be used.
ANSWERED, NO_EVIDENCE, BAD_INPUT, UNREACHABLE = 0, 1, 2, 3
REFUSED_URL = "http://127.0.0.1:9"  # the discard port: connections are refused at once
ZEMECKIS = "which films did Robert Zemeckis direct"
ENTRY = "import sys; from readi_graph.cli import main; sys.exit(main())"


@dataclass(frozen=True)
class Case:
    name: str
    argv: list[str]
    code: int
    names: tuple[str, ...]  # words the error line must hold
    env: dict[str, str] = field(default_factory=dict)
    seconds: float = 30.0
    one_line: bool = True  # nothing but the error on stderr


def paths(root: Path) -> dict[str, Path]:
    """Where the files the cases read live under `root` (`fixtures` writes them)."""
    return {
        "binary": root / "table.csv",
        "bad_nt": root / "bad.nt",
        "not_predictions": root / "predictions.txt",
        "not_predictions_jsonl": root / "predictions.jsonl",
        "run": root / "run.json",
        "results": root / "results.jsonl",
        "empty_dir": root / "empty",
        "garbage_results": root / "garbage.jsonl",
        "wtq": root / "wtq",
    }


def fixtures(root: Path) -> dict[str, Path]:
    """The files the cases read, written under `root`."""
    files = paths(root)
    files["binary"].write_bytes(bytes(range(256)) * 64)
    files["bad_nt"].write_text(
        "<urn:a> <urn:b> <urn:c> .\n<urn:a> <urn:b> not a term .\n", encoding="utf-8"
    )
    files["not_predictions"].write_text(
        "Dear reader,\nthis is a letter, not predictions.\n", encoding="utf-8"
    )
    files["not_predictions_jsonl"].write_text('{"name": "x"}\n{"name": "y"}\n', encoding="utf-8")
    run = {"question": "q", "answers": ["a"], "attempts": [], "usage": {}}
    files["run"].write_text(json.dumps(run), encoding="utf-8")
    lines = [{**run, "id": "q1"}, {**run, "id": "q2"}]
    files["results"].write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    files["empty_dir"].mkdir(exist_ok=True)
    files["garbage_results"].write_text("not json at all\n", encoding="utf-8")
    wtq = files["wtq"]
    (wtq / "data").mkdir(parents=True, exist_ok=True)
    (wtq / "csv").mkdir(exist_ok=True)
    (wtq / "csv" / "t.csv").write_text("Year,Place\n2001,4th\n2002,2nd\n", encoding="utf-8")
    (wtq / "data" / "training.tsv").write_text(
        "id\tutterance\tcontext\ttargetValue\nnt-0\twhich year came first\tcsv/t.csv\t2001\n",
        encoding="utf-8",
    )
    return files


def cases(root: Path) -> list[Case]:
    """The cases, reading the files `fixtures(root)` writes."""
    f = paths(root)
    missing = root / "missing"
    wtq = ["--data", str(f["wtq"])]
    metaqa = ["eval", "metaqa", "--data", str(f["empty_dir"]), "--hops", "1"]
    return [
        Case("a model name nothing serves", ["ask", "--model", "gpt-4o-mini", ZEMECKIS],
             UNREACHABLE, ("gpt-4o-mini", "OPENAI_API_KEY")),
        Case("READI_MODEL that nothing serves", ["ask", ZEMECKIS], UNREACHABLE,
             ("READI_MODEL", "OPENAI_API_KEY"), env={"READI_MODEL": "gpt-4o"}),
        Case("a model server that refuses", ["ask", "--model", "m", ZEMECKIS], UNREACHABLE,
             (f"{REFUSED_URL}/v1",), env={"OPENAI_BASE_URL": f"{REFUSED_URL}/v1"}),
        Case("an endpoint that refuses, with --entity",
             ["ask", "--kg", f"{REFUSED_URL}/sparql", "--entity", "Forrest Gump",
              "who directed Forrest Gump"], UNREACHABLE, (f"{REFUSED_URL}/sparql",),
             seconds=20),
        Case("an endpoint that refuses, entity in the question",
             ["ask", "--kg", f"{REFUSED_URL}/sparql", "who directed Forrest Gump"],
             UNREACHABLE, (f"{REFUSED_URL}/sparql",), seconds=20),
        Case("an --entity the KG does not have",
             ["ask", "--entity", "Nobody Atall", "what did Nobody Atall direct"], BAD_INPUT,
             ("Nobody Atall",)),
        Case("--max-edits -1", ["ask", "--max-edits", "-1", ZEMECKIS], BAD_INPUT,
             ("--max-edits",)),
        Case("an empty question", ["ask", "   "], BAD_INPUT, ("question",)),
        Case("a 20,000-character question", ["ask", "why" + "?" * 19_997], BAD_INPUT,
             ("20,000", "characters")),
        Case("a binary file as --table", ["ask", "--table", str(f["binary"]), "which year"],
             BAD_INPUT, (str(f["binary"]),)),
        Case("a missing --kg file", ["ask", "--kg", str(missing / "kb.nt"), ZEMECKIS],
             BAD_INPUT, (str(missing / "kb.nt"),)),
        Case("a malformed --kg file", ["ask", "--kg", str(f["bad_nt"]), ZEMECKIS], BAD_INPUT,
             (str(f["bad_nt"]),)),
        Case("a directory as --kg", ["ask", "--kg", str(f["empty_dir"]), ZEMECKIS], BAD_INPUT,
             (str(f["empty_dir"]),)),
        Case("--trace into a missing directory",
             ["ask", "--trace", str(missing / "run.html"), ZEMECKIS], BAD_INPUT,
             (str(missing),)),
        Case("score: missing predictions",
             ["score", "wtq", *wtq, "--predictions", str(missing / "p.jsonl")], BAD_INPUT,
             (str(missing / "p.jsonl"),)),
        Case("score: a letter, not predictions",
             ["score", "wtq", *wtq, "--predictions", str(f["not_predictions"])], BAD_INPUT,
             (str(f["not_predictions"]),)),
        Case("score: JSON lines without ids",
             ["score", "wtq", *wtq, "--predictions", str(f["not_predictions_jsonl"])],
             BAD_INPUT, (str(f["not_predictions_jsonl"]),)),
        Case("score: a split the data does not have",
             ["score", "wtq", *wtq, "--split", "nosuch", "--predictions", str(f["results"])],
             BAD_INPUT, ("nosuch",)),
        Case("trace: an --id no result has",
             ["trace", str(f["run"]), "--id", "nope", "--out", str(root / "t.html")],
             BAD_INPUT, ("nope",)),
        Case("trace: a --line past the end",
             ["trace", str(f["results"]), "--line", "9", "--out", str(root / "t.html")],
             BAD_INPUT, ("9",)),
        Case("eval: a data directory without the MetaQA layout", metaqa, BAD_INPUT,
             (str(f["empty_dir"]),)),
        Case("eval: --limit 0", [*metaqa, "--limit", "0"], BAD_INPUT, ("--limit",)),
        Case("eval: --concurrency 0", [*metaqa, "--concurrency", "0"], BAD_INPUT,
             ("--concurrency",)),
        Case("eval: --resume without --out", ["eval", "wtq", *wtq, "--resume"], BAD_INPUT,
             ("--resume", "--out")),
        Case("eval: --resume of a file that is not results",
             ["eval", "wtq", *wtq, "--resume", "--out", str(f["garbage_results"])], BAD_INPUT,
             (str(f["garbage_results"]),)),
        Case("eval: --out into a missing directory",
             ["eval", "wtq", *wtq, "--out", str(missing / "out.jsonl")], BAD_INPUT,
             (str(missing),)),
        Case("trace: a binary file", ["trace", str(f["binary"]), "--out", str(root / "t.html")],
             BAD_INPUT, (str(f["binary"]),)),
        Case("bench replay: a missing --real",
             ["bench", "replay", "--real", str(missing / "paths.json")], BAD_INPUT,
             (str(missing / "paths.json"),)),
        Case("report: missing results",
             ["report", str(missing / "r.jsonl"), "--out", str(root / "report")], BAD_INPUT,
             (str(missing / "r.jsonl"),)),
        Case("kg freebase: a missing dump",
             ["kg", "freebase", "--dump", str(missing / "fb.gz"), "--out", str(root / "fb"),
              "--relations", str(f["results"])], BAD_INPUT, (str(missing / "fb.gz"),)),
        Case("bench linking: a missing data directory",
             ["bench", "linking", "--data", str(missing)], BAD_INPUT, (str(missing),)),
    ]  # fmt: skip


def judge(
    case: Case, code: int | None, err: str, seconds: float, *, lenient: bool = False
) -> str | None:
    """What is wrong with one outcome (None: it passed). `lenient`: any non-zero code will
    do for a failure (how many would pass if only the exit codes had been chosen apart)."""
    lines = [line for line in err.splitlines() if line.strip()]
    if code is None:
        return f"still running after {case.seconds:.0f}s"
    if "Traceback" in err:
        return f"a traceback ({len(lines)} lines on stderr)"
    if lenient and (code == 0) == (case.code == 0):
        pass
    elif code != case.code:
        return f"exit {code}, not {case.code}: {lines[-1] if lines else '(no stderr)'}"
    if not lines:
        return "nothing on stderr"
    if case.one_line and len(lines) != 1:
        return f"{len(lines)} lines on stderr, not one: {lines[0]}"
    missed = [word for word in case.names if word not in lines[-1]]
    if missed:
        return f"the error does not name {missed}: {lines[-1]}"
    if seconds > case.seconds:
        return f"took {seconds:.0f}s (at most {case.seconds:.0f}s)"
    return None


def clean_environment(extra: dict[str, str], root: Path) -> dict[str, str]:
    """No model configured, a private reply cache, one OpenMP thread."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "READI_MODEL"))}
    env.pop("READI_DEBUG", None)
    env.update(OMP_NUM_THREADS="1", READI_REPLY_CACHE=str(root / "replies.sqlite"))
    return {**env, **extra}


def main() -> int:
    passed = lenient = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        fixtures(root)
        table = [c for c in cases(root) if all(word in c.name for word in sys.argv[1:])]
        for case in table:
            started = time.perf_counter()
            command = [sys.executable, "-c", ENTRY, *case.argv]
            try:
                done = subprocess.run(
                    command,
                    env=clean_environment(case.env, root),
                    capture_output=True,
                    text=True,
                    timeout=case.seconds + 30,
                )
                code, err = done.returncode, done.stderr
            except subprocess.TimeoutExpired as exc:
                code, err = None, str(exc.stderr or "")
            seconds = time.perf_counter() - started
            problem = judge(case, code, err, seconds)
            passed += problem is None
            lenient += judge(case, code, err, seconds, lenient=True) is None
            verdict = "pass" if problem is None else f"FAIL {problem[:160]}"
            print(f"{seconds:5.1f}s  {case.name}: {verdict}", flush=True)
    print(f"{passed} of {len(table)} pass ({lenient} with any non-zero code for a failure)")
    return 0 if passed == len(table) else 1


if __name__ == "__main__":
    raise SystemExit(main())
