"""`readi ask --editor human`: a person edits stuck paths from the terminal.

The graph pauses at its edit step with `interrupt()` (strategies/readi/nodes/edit.py); this
shows the person what a model editor would read (the errors, the walks so far, the candidate
relations) on stderr, reads one line from stdin and resumes with it as `Command(resume=...)`,
so the budget and the parsing are those of the Studio / Python path. An empty line or the end
of the input ends editing: the run answers from what was found.
"""

from __future__ import annotations

from typing import Any, TextIO

SECTIONS = (  # payload key, heading
    ("attempts", "How far each path got"),
    ("errors", "What went wrong"),
    ("instances", "Walks so far"),
    ("candidates", "Candidate relations"),
    ("earlier", "Relations at earlier steps"),
)


def show_edit_request(payload: dict[str, Any], max_edits: int, out: TextIO) -> None:
    """The diagnosis as a person reads it."""
    print(f"\n--- edit {payload.get('edit', '?')} of {max_edits} ---", file=out)
    if payload.get("path"):
        print(f"Path tried: {payload['path']}", file=out)
    for key, heading in SECTIONS:
        text = str(payload.get(key) or "").strip()
        if text and text.lower() not in ("none", "(none)"):
            print(f"{heading}:\n{_indent(text)}", file=out)
    print(f"Reply with {payload.get('reply_format', 'a corrected path')}.", file=out)
    print("Your path (empty line or end of input: stop editing and answer)> ", end="", file=out)
    out.flush()


def read_reply(source: TextIO) -> str:
    """One line; "" at the end of the input or for an empty line (editing ends)."""
    return source.readline().strip()


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())
