"""Prompt files (`prompts/*.md`, shipped in the wheel as `readi_graph._prompts`) and rendering.

Templates use `$name` placeholders (string.Template), so the JSON braces of the few-shot
demonstrations need no escaping. Values are substituted once, never re-expanded.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from pathlib import Path
from string import Template

_SOURCE = Path(__file__).resolve().parents[2] / "prompts"  # a source checkout


@cache
def load(name: str) -> str:
    """The text of `prompts/<name>.md`."""
    try:
        return resources.files("readi_graph._prompts").joinpath(f"{name}.md").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return (_SOURCE / f"{name}.md").read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    return Template(load(name)).safe_substitute(values)


def version(*names: str) -> str:
    """A short hash of the prompt texts: part of cache keys, so an edited prompt is a miss."""
    digest = hashlib.sha256("\0".join(load(n) for n in names).encode()).hexdigest()
    return digest[:12]
