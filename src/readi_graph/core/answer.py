"""What every strategy's final answer shares: the answer when the environment failed (said
plainly, no model call, marked as an error) and the grounded check."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from readi_graph.core.text import normalize_name


def failed_answer(state: Mapping[str, Any]) -> dict[str, Any]:
    """The environment failed: say so, spend no call, and mark the run as failed."""
    failure = state.get("failure") or "unknown failure"
    return {
        "answer": f"The question could not be answered: the environment failed ({failure}).",
        "answers": [],
        "evidence": [],
        "grounded": False,
        "path": [],
        "notes": [],
        "edits": state.get("edits_used", 0),
        "error": failure,
        "usage": {},
    }


def triple_names(triples: Iterable[Sequence[str]]) -> set[str]:
    """The normalised names of the subjects and objects of evidence triples: what a KG
    strategy's answer may name to be `grounded`."""
    return {normalize_name(x) for s, _, o in triples for x in (s, o)}


def grounded(answers: Sequence[str], known: Collection[str]) -> bool:
    """Every answer names something in the evidence (`known` holds normalised names): the
    output's `grounded` flag, the same test for every strategy."""
    return bool(answers) and all(normalize_name(a) in known for a in answers)
