"""The final answer when the environment failed: said plainly, no model call, marked as an
error (every strategy ends this way when its environment is down)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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
