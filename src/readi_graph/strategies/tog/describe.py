"""ToG's progress lines: each node's update in a sentence, for people watching a run."""

from __future__ import annotations

from typing import Any

Update = dict[str, Any]


def describe(node: str, update: Update, environment: str = "kg") -> str:
    """A sentence for people watching a question being answered."""
    if update.get("failure"):
        return f"the environment failed: {update['failure']}"
    current = update.get("current") or {}
    if node == "start":
        names = ", ".join(e["name"] for e in update.get("frontier") or []) or "nothing found"
        return f"start from {names}; at most {update.get('calls_left', 0)} model calls"
    if node == "relations":
        kept = [f"{r['name']} ({r['score']:.2f})" for r in update.get("pairs") or []]
        return f"depth {current.get('depth')}: relations kept: {', '.join(kept) or 'none'}"
    if node == "entities":
        frontier = [e["name"] for e in update.get("frontier") or []]
        shown = len(current.get("candidates") or [])
        return f"depth {update.get('depth')}: {shown} candidates scored, kept: " + (
            ", ".join(frontier) or "no entity to explore"
        )
    if node == "reason":
        if update.get("sufficient"):
            return f"enough: answers {update.get('answers')}"
        if current.get("verdict") == "more hops needed":
            return f"depth {current.get('depth')}: not asked (the relation step said more hops)"
        return f"depth {current.get('depth')}: not enough yet ({current.get('verdict')})"
    if node == "answer":
        grounded = " (grounded)" if update.get("grounded") else ""
        return f"answers {update.get('answers')}{grounded}, from {update.get('answer_source')}"
    return "done"
