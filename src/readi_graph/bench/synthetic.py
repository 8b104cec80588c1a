"""Synthetic KGs for limits: a hub node with many labelled neighbours (tests, benchmarks)."""

from __future__ import annotations

EX = "http://example.org/"


def hub_ntriples(edges: int) -> str:
    """N-Triples of a hub linked (`links`) to `edges` labelled nodes, plus one ordinary
    neighbour (`born_in` Town). Labels use `http://example.org/label`."""
    lines = [
        f'<{EX}hub> <{EX}label> "Hub" .',
        f"<{EX}hub> <{EX}born_in> <{EX}town> .",
        f'<{EX}town> <{EX}label> "Town" .',
    ]
    for i in range(edges):
        lines.append(f"<{EX}hub> <{EX}links> <{EX}n{i}> .")
        lines.append(f'<{EX}n{i}> <{EX}label> "Node {i}" .')
    return "\n".join(lines) + "\n"
