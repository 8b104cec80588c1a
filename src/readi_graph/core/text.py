"""How names are shown and compared, the same everywhere: the short form of an IRI that every
prompt uses for a relation without a label, and the case/accent-insensitive form of a name."""

from __future__ import annotations

import unicodedata


def local_name(relation: str) -> str:
    """The part of a relation IRI that carries its meaning (after the last `/`, `#` or `:`)."""
    cut = max(relation.rfind("/"), relation.rfind("#"))
    tail = relation[cut + 1 :] if cut >= 0 else relation
    if cut < 0 and ":" in tail:  # urn:...:directed_by
        tail = tail.rsplit(":", 1)[1]
    return tail


def normalize_name(text: str) -> str:
    """Case-, accent- and whitespace-insensitive form of a name."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().split())
