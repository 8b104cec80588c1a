"""`readi score wtq`: official denotation accuracy of a predictions file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from readi_graph.cli.checks import existing_file
from readi_graph.core.base import InputError


def _read_predictions(path: Path) -> dict[str, list[str]]:
    """JSON lines (`id` + `prediction`/`answers`: a list, or a `|`-joined string), or the
    official TSV (`id<TAB>answer<TAB>answer...`, TSV-escaped). A line that is neither is an
    `InputError` naming it."""
    from readi_graph.datasets.wtq import unescape_tsv

    predictions: dict[str, list[str]] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            if path.suffix in (".jsonl", ".json"):
                try:
                    record = json.loads(line)
                    value = record.get("prediction", record.get("answers", []))
                    key = str(record["id"])
                except (json.JSONDecodeError, KeyError, AttributeError) as exc:
                    raise InputError(
                        f"{path}:{number}: not a prediction record (a JSON object with an "
                        '"id" and a "prediction" or "answers")'
                    ) from exc
                if not isinstance(value, str | list):
                    raise InputError(f"{path}:{number}: the prediction is not a list or text")
                predictions[key] = value.split("|") if isinstance(value, str) else list(value)
            else:
                key, *answers = line.rstrip("\n").split("\t")
                predictions[key] = [unescape_tsv(a) for a in answers]
    return predictions


def score_wtq(args: argparse.Namespace) -> int:
    from readi_graph.datasets.wtq import denotation_correct, load_questions

    questions = list(load_questions(args.data, args.split))
    path = existing_file(args.predictions, "--predictions")
    try:
        predictions = _read_predictions(path)
    except UnicodeDecodeError as exc:
        raise InputError(f"--predictions {path}: not UTF-8 text ({exc.reason})") from exc
    known = {q.id for q in questions}
    if not known & predictions.keys():
        example = next(iter(known), "nt-0")
        raise InputError(
            f"--predictions {path}: none of its {len(predictions)} lines names a question of "
            f"{args.split} (ids such as {example!r}): not predictions for this split"
        )
    correct = sum(
        denotation_correct(q.answers, predictions[q.id]) for q in questions if q.id in predictions
    )
    missing = sum(q.id not in predictions for q in questions)
    n = len(questions)
    print(
        json.dumps(
            {
                "n": n,
                "accuracy": round(correct / max(n, 1), 5),
                "correct": correct,
                "missing": missing,
            }
        )
    )
    return 0
