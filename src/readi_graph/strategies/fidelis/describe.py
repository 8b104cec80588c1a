"""FiDeLiS's progress lines: each node's update in a sentence, for people watching a run."""

from __future__ import annotations

from typing import Any

Update = dict[str, Any]


def describe(node: str, update: Update, environment: str = "kg") -> str:
    """A sentence for people watching a question being answered."""
    if update.get("failure"):
        return f"the environment failed: {update['failure']}"
    if node == "plan":
        plan = update.get("plan") or {}
        return f"keywords {plan.get('keywords')}; statement {plan.get('statement')!r}"
    if node == "expand":
        if not update.get("attempts"):
            return "nothing to expand: no beam"
        step = update["attempts"][-1]
        return f"step {step.get('step')}: {step.get('candidates')} candidates"
    if node in ("select", "verify"):
        verified = update.get("finished")
        extra = "" if verified is None else f", {len(verified)} verified"
        return f"{len(update.get('beams') or [])} beams{extra}"
    if node == "reason":
        return f"answers {update.get('answers')}" + (
            " (grounded)" if update.get("grounded") else ""
        )
    return "done"
