"""Every command's inputs checked before any work: numbers in range (argparse types), files
and directories that exist and are what they should be, a KG that answers, `--entity` names
it has, and a model that something serves. Each failure is one typed error whose sentence
names the flag, file, URL or variable to fix (`cli/errors.py` prints it)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from readi_graph.core.base import InputError, UnknownEntity
from readi_graph.core.context import RunContext, default_model_name
from readi_graph.core.models.choice import BUNDLED_NOTICE, ModelChoice, choose_model
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph


def at_least(low: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `low`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}, the least it can be")
        return value

    parse.__name__ = f"whole number >= {low}"
    return parse


def fraction(text: str) -> float:
    """An argparse type: a number from 0 to 1."""
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and 1")
    return value


def non_negative(text: str) -> float:
    """An argparse type: a number of at least 0 (seconds, weights)."""
    value = _number(text)
    if not value >= 0.0:  # NaN too
        raise argparse.ArgumentTypeError(f"{value} is below 0")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def listed(kind: Callable[[str], float | int]) -> Callable[[str], list[float | int]]:
    """An argparse type: comma-separated values of `kind`."""

    def parse(text: str) -> list[float | int]:
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(f"{text!r} lists nothing")
        return [kind(p) for p in parts]

    return parse


def existing_file(path: str | Path, flag: str) -> Path:
    """`path`, a file that exists (a directory or nothing there is an `InputError`)."""
    found = Path(path)
    if found.is_dir():
        raise InputError(f"{flag} {found}: a directory, not a file")
    if not found.is_file():
        raise InputError(f"{flag} {found}: no such file")
    return found


def json_file(path: str | Path, flag: str) -> Any:
    """The JSON value of a file the user named (else an `InputError` naming it)."""
    found = existing_file(path, flag)
    try:
        return json.loads(found.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{flag} {found}: not JSON ({exc})") from exc


def existing_dir(path: str | Path, flag: str) -> Path:
    found = Path(path)
    if not found.is_dir():
        what = "a file, not a directory" if found.exists() else "no such directory"
        raise InputError(f"{flag} {found}: {what}")
    return found


def writable_target(path: str | Path, flag: str) -> Path:
    """A file to write: its directory must exist (nothing is created behind the user's back)
    and the path must not be a directory."""
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{flag} {target}: a directory; give a file name")
    parent = target.parent
    if not parent.is_dir():
        raise InputError(f"{flag} {target}: the directory {parent} does not exist")
    return target


def eval_arguments(args: argparse.Namespace) -> None:
    """What the options every `readi eval` shares must satisfy together."""
    if getattr(args, "resume", False) and not getattr(args, "out", None):
        raise InputError("--resume continues a results file: give it with --out FILE")
    if getattr(args, "out", None):
        out = writable_target(args.out, "--out")
        if getattr(args, "resume", False):
            from readi_graph.eval.results import read_results

            read_results(out)  # a file that is not results fails now, not after the setup


def kg_answers(kg: KnowledgeGraph) -> None:
    """Contact the KG now (the first query also reads a file KG): an endpoint that cannot be
    reached, or a file that cannot be read, fails here, before any model is loaded."""
    _ = kg.has_labels  # one ASK, kept by the KG for later


def entities_known(kg: KnowledgeGraph, names: list[str]) -> None:
    """Each `--entity` names a node of the KG (else `UnknownEntity`, before any model call)."""
    for name in names:
        if not name.strip():
            raise InputError("--entity '': an empty name")
        if not kg.resolve(name).found:
            raise UnknownEntity(
                f"--entity {name!r} is not in the knowledge graph {kg.name} (no node has that "
                "label, alias or IRI): check the spelling, or leave --entity out to find the "
                "entities in the question"
            )


def model_ready(context: RunContext, flag_given: bool) -> ModelChoice:
    """What will serve the run's model, decided now (`ModelNotConfigured` before anything
    is loaded); when the bundled model stands in for a model nobody named, say so."""
    name = context.model or default_model_name()
    source = "--model" if flag_given else "READI_MODEL" if name else ""
    choice = choose_model(name, source)
    if choice.stands_in:
        print(f"readi: {BUNDLED_NOTICE}", file=sys.stderr, flush=True)
    return choice
