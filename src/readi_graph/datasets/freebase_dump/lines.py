"""The public Freebase dump's lines, looked at a chunk at a time with numpy, not line by line.

The dump (`freebase-rdf-latest.gz`, ~3.1 billion lines) writes one triple a line, its terms
separated by tabs and the line ended by a tab and a dot:
`<http://rdf.freebase.com/ns/m.0abc>\\t<http://rdf.freebase.com/ns/type.object.name>\\t"Name"@en\\t.`
Splitting a line into Python objects costs ~0.6 µs, which caps a filter at ~1.5M lines/s
before it does anything. Here a chunk of whole lines stays one `bytes` object: the tabs are
found with one vectorised comparison, each line's terms are (start, end) offsets, and a term is
recognised by a 64-bit key computed from its bytes in numpy (`span_keys`). Only the lines a
filter keeps are ever copied, a run of consecutive kept lines at a time (`select`).

A chunk whose lines do not all have this shape (three tabs, `\\t.` at the end: a hand-edited
or truncated file) is handled line by line by the caller's slow path.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

KEY_BYTES = 96  # bytes of a term its key covers (from its end); longer terms are checked exactly
# distinct odd weights, one per 8-byte word of a key's window
_MULTIPLIERS = (
    np.arange(1, KEY_BYTES // 8 + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
) | np.uint64(1)


@dataclass(frozen=True)
class Lines:
    """Offsets of the lines of a chunk: line i spans [starts[i], ends[i]) (newline included);
    its subject is [starts, tab1), predicate (tab1, tab2), object (tab2, tab3)."""

    data: np.ndarray  # the chunk as uint8
    starts: np.ndarray
    ends: np.ndarray
    tab1: np.ndarray
    tab2: np.ndarray
    tab3: np.ndarray

    def __len__(self) -> int:
        return len(self.starts)


def split_lines(chunk: bytes) -> Lines | None:
    """The lines of a chunk of whole lines, or None when one is not `s\tp\to\t.`."""
    data = np.frombuffer(chunk, dtype=np.uint8)
    tabs = np.flatnonzero(data == 9)
    newlines = np.flatnonzero(data == 10)
    n = len(newlines)
    if not n or len(tabs) != 3 * n or newlines[-1] != len(chunk) - 1:
        return None
    tab1, tab2, tab3 = tabs[0::3], tabs[1::3], tabs[2::3]
    gaps = np.diff(tabs)  # within a line: predicate and object lengths + 1
    if (
        not np.array_equal(newlines, tab3 + 2)  # each line ends with `\t.\n`
        or not np.all(data[tab3 + 1] == 46)
        or tab1[0] == 0  # an empty first subject
        or (len(gaps) and gaps.min() < 2)  # an empty predicate or object
        or (n > 1 and gaps[2::3].min() < 4)  # an empty subject: `\t.\n` then a tab
    ):
        return None
    ends = newlines + 1
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1]
    return Lines(data, starts, ends, tab1, tab2, tab3)


def before(data: np.ndarray, end: np.ndarray, width: int) -> np.ndarray:
    """The `width` bytes before each offset `end` of `data`, one row each (zeros before the
    start of `data`), gathered from a sliding view: no copy of the chunk."""
    if len(data) < width:  # a short chunk: all of it padded
        padded = np.concatenate((np.zeros(width, dtype=np.uint8), data))
        short: np.ndarray = sliding_window_view(padded, width)[end]
        return short
    rows: np.ndarray = sliding_window_view(data, width)[np.maximum(end - width, 0)]
    early = np.flatnonzero(end < width)  # rows that reach before the chunk's first byte
    if len(early):
        head = np.concatenate((np.zeros(width, dtype=np.uint8), data[:width]))
        rows[early] = sliding_window_view(head, width)[end[early]]
    return rows


# row v: 0xFF on the last v bytes of a window (the bytes of a term v bytes long), 0 before
_MASKS = (np.arange(KEY_BYTES)[None, :] >= KEY_BYTES - np.arange(KEY_BYTES + 1)[:, None]).astype(
    np.uint8
) * np.uint8(0xFF)


def span_keys(data: np.ndarray, first: np.ndarray, end: np.ndarray) -> np.ndarray:
    """A 64-bit key of each span [first, end) of `data`, from its last `KEY_BYTES` bytes and
    its length (a span's key does not depend on the bytes around it): equal spans have equal
    keys, and two different spans of at most `KEY_BYTES` bytes share one with a chance of
    about 2^-64 (each 8-byte word is mixed by a shift and a multiplication, the words are
    summed with distinct odd weights, and the sum goes through splitmix64's finaliser)."""
    length = end - first
    window = before(data, end, KEY_BYTES)
    window &= _MASKS[np.minimum(length, KEY_BYTES)]
    words = window.view(np.uint64)
    with np.errstate(over="ignore"):
        words ^= words >> np.uint64(29)
        words *= _MULTIPLIERS
        mixed = words.sum(axis=1, dtype=np.uint64)
        mixed ^= length.astype(np.uint64) * np.uint64(0x2545F4914F6CDD1D)
        return _finish(mixed)


def _finish(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser (in place)."""
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


def tail_keys(data: np.ndarray, end: np.ndarray, length: np.ndarray) -> np.ndarray:
    """A cheap first look at each span: its length and last 8 bytes in one 64-bit number.
    Equal spans give equal numbers; the converse is checked by `span_keys`."""
    tail = np.ascontiguousarray(before(data, end, 8)).view(np.uint64).ravel()
    with np.errstate(over="ignore"):
        mixed: np.ndarray = tail ^ (length.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    return mixed


def _joined(terms: Iterable[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The terms one after another (8 bytes apart), with their starts and ends."""
    pieces = [b"\n" * 8]
    first, end, at = [], [], 8
    for term in terms:
        pieces += [term, b"\n" * 8]
        first.append(at)
        end.append(at + len(term))
        at += len(term) + 8
    data = np.frombuffer(b"".join(pieces), dtype=np.uint8)
    return data, np.array(first, dtype=np.int64), np.array(end, dtype=np.int64)


def keys_of(terms: Iterable[bytes]) -> np.ndarray:
    """The sorted distinct `span_keys` of these terms (the set a filter looks keys up in)."""
    data, first, end = _joined(terms)
    return np.unique(span_keys(data, first, end)) if len(first) else np.zeros(0, np.uint64)


def tails_of(terms: Iterable[bytes]) -> np.ndarray:
    """The sorted distinct `tail_keys` of these terms."""
    data, first, end = _joined(terms)
    return np.unique(tail_keys(data, end, end - first)) if len(first) else np.zeros(0, np.uint64)


def member(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """`keys` found in the sorted array `wanted`, as a mask."""
    if not len(wanted):
        return np.zeros(len(keys), dtype=bool)
    at = np.searchsorted(wanted, keys)
    at[at == len(wanted)] = 0
    found: np.ndarray = wanted[at] == keys
    return found


def select(chunk: bytes, lines: Lines, keep: np.ndarray) -> bytes:
    """The kept lines of the chunk, copied a run of consecutive kept lines at a time."""
    if not keep.any():
        return b""
    edges = np.diff(np.concatenate(([0], keep.view(np.int8), [0])))
    first, last = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    begin, end = lines.starts[first].tolist(), lines.ends[last].tolist()
    return b"".join([chunk[a:b] for a, b in zip(begin, end, strict=True)])


def literal_language_ok(data: np.ndarray, end: np.ndarray, language: bytes) -> np.ndarray:
    """Objects ending at `end` that are not a literal in another language: an IRI, a typed
    literal (both end with `>`), a plain literal (ends with `"`), or one tagged
    `@<language>` exactly."""
    last = data[end - 1]
    tagged = np.frombuffer(b'"@' + language, dtype=np.uint8)
    same: np.ndarray = np.all(before(data, end, len(tagged)) == tagged, axis=1)
    ok: np.ndarray = (last == 62) | (last == 34) | same
    return ok
