"""Why DuckDB could not read a table file, said in our words.

DuckDB's own message is a page: the reader options it sniffed and advice such as
`ignore_errors=true`, options a `readi ask --table` user cannot set. `TableFormatError` keeps
the file, the line and the kind of fault.
"""

from __future__ import annotations

import re

_CSV_LINE = re.compile(r"CSV Error on Line: (\d+)")


def unreadable(exc: BaseException, kind: str) -> str:
    """Why DuckDB could not read a file, in our words: the kind of fault and where, never
    DuckDB's reader options (the user cannot set them)."""
    text = str(exc)
    line = _CSV_LINE.search(text)
    at = f" (line {line.group(1)})" if line else ""
    if "not utf-8" in text.lower() or "invalid unicode" in text.lower():
        return f"not UTF-8 text{at}; a {kind} table must be UTF-8 text with a header row"
    if kind == "Parquet" and ("parquet" in text.lower() or "magic" in text.lower()):
        return "not a Parquet file (DuckDB could not read its footer)"
    reason = next(
        (
            part.strip()
            for part in text.splitlines()
            if part.strip()
            and not part.startswith((" ", "Original Line", "Possible Solution", "CSV Error"))
        ),
        type(exc).__name__,
    )
    for prefix in ("Invalid Input Error: ", "IO Error: ", "Conversion Error: "):
        reason = reason.removeprefix(prefix)
    return f"cannot be read as a {kind} table{at}: {reason[:200]}"
