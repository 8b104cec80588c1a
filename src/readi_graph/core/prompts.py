"""Prompt files (`prompts/*.md`, shipped in the wheel as `readi_graph._prompts`) and rendering.

Templates use `$name` placeholders (string.Template), so the JSON braces of the few-shot
demonstrations need no escaping. Values are substituted once, never re-expanded.
"""

from __future__ import annotations

import math
from functools import cache
from importlib import resources
from pathlib import Path
from string import Template

from readi_graph.core import markers

_SOURCE = Path(__file__).resolve().parents[3] / "prompts"  # a source checkout


@cache
def load(name: str) -> str:
    """The text of `prompts/<name>.md`."""
    try:
        return resources.files("readi_graph._prompts").joinpath(f"{name}.md").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return (_SOURCE / f"{name}.md").read_text(encoding="utf-8")


def estimate_tokens(text: str) -> int:
    """~4 characters per token: the budget is a guard rail, not an exact count."""
    return math.ceil(len(text) / 4)


def render(name: str, budget: int | None = None, **values: str) -> str:
    """The prompt with `values` substituted. With `budget` (tokens), the longest values are
    halved (whole lines; characters for one-line values) until the prompt fits, each cut
    stated in the prompt, so no prompt outgrows the model's context."""
    template = Template(load(name))
    text = template.safe_substitute(values)
    if budget is None or estimate_tokens(text) <= budget:
        return text
    parts = {k: v.splitlines() or [v] for k, v in values.items()}
    kept = {k: len(lines) for k, lines in parts.items()}
    chars = {k: len(v) for k, v in values.items()}
    shown = dict(values)
    while estimate_tokens(text) > budget:
        key = max(shown, key=lambda k: len(shown[k]))
        if len(shown[key]) <= 200:  # nothing worth cutting is left: send what we have
            break
        if kept[key] > 1:
            kept[key] //= 2
            cut = len(parts[key]) - kept[key]
            shown[key] = "\n".join(
                [*parts[key][: kept[key]], f"({cut} more lines cut to fit the prompt budget)"]
            )
        else:
            chars[key] //= 2
            shown[key] = values[key][: chars[key]] + " ... (cut to fit the prompt budget)"
        text = template.safe_substitute(shown)
    return text


def instruction(answer_from: str, source: str) -> str:
    """The answer prompts' first sentence: the evidence only (the default), or the evidence
    and the model's own knowledge (the paper's answer prompt), said apart."""
    if answer_from == "evidence_and_knowledge":
        return (
            f"Answer the question with {source} and your own knowledge: prefer the evidence, and "
            "where it does not settle the question, add what you know and say which answers "
            "come from your own knowledge."
        )
    return f"{markers.ANSWER_ONLY_FROM} {source}."


def notes_text(notes: list[str]) -> str:
    """The caveats the answer model is told (the same as the output's `notes`)."""
    return "Notes:\n" + "\n".join(f"- {n}" for n in notes) if notes else ""
