"""Property test of the whole graph on generated KGs shaped like the ones users bring.

hypothesis draws small KGs with IRIs, blank nodes, literals of several datatypes and
languages, nodes without labels, homonyms, cycles and self-loops, then topic entities (names,
IRIs, unknown names), paths and model replies. Whatever is drawn, `invoke` raises nothing but
the typed input errors, and an answer marked `grounded` is a node of the evidence.
Profiles: `ci` runs 40 KGs; `READI_HYPOTHESIS=slow` runs 2,000.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readi_graph.core.base import InputError
from readi_graph.core.text import normalize_name
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.local import load_ntriples
from readi_graph.environments.kg.sparql import literal
from readi_graph.graph import build_graph

from fakes import function_model

EX = "http://example.org/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
XSD = "http://www.w3.org/2001/XMLSchema#"
RELATIONS = ["director", "in_language", "P57", "year", "spouse_s"]
NAMES = ["Ann", "ann", "Élodie", "Zoë", "Bob", "Bob", "x"]  # homonyms on purpose
LITERALS = [
    ("1979", XSD + "gYear", None),
    ("1979", None, None),
    ("1979", XSD + "integer", None),
    ("3.5", XSD + "decimal", None),
    ("2001-01-01", XSD + "date", None),
    ("hello", None, "en"),
    ("hello", None, "fr"),
    ("", None, None),
]
EXAMPLES = int(os.environ.get("READI_GRAPH_EXAMPLES", 0)) or (
    2_000 if os.environ.get("READI_HYPOTHESIS") == "slow" else 40
)


def _literal(value: str, datatype: str | None, lang: str | None) -> str:
    return literal(value, datatype=datatype, lang=lang)


@st.composite
def knowledge_graphs(draw: Any) -> tuple[str, list[str]]:
    """N-Triples text, and the names a user could call its nodes."""
    n = draw(st.integers(2, 7))
    nodes = [f"_:b{i}" if draw(st.booleans()) and i else f"<{EX}n{i}>" for i in range(n)]
    objects = [*nodes, *(_literal(*lit) for lit in LITERALS)]
    lines = set()
    names = []
    for node in nodes:
        if node.startswith("<") and draw(st.booleans()):
            name = draw(st.sampled_from(NAMES))
            lang = draw(st.sampled_from([None, "en", "de"]))
            lines.add(f"{node} <{LABEL}> {_literal(name, None, lang)} .")
            names.append(name)
    for _ in range(draw(st.integers(1, 18))):
        s = draw(st.sampled_from(nodes))
        p = draw(st.sampled_from(RELATIONS))
        o = draw(st.sampled_from([s, *objects]))  # self-loops too
        lines.add(f"{s} <{EX}{p}> {o} .")
    for _ in range(draw(st.integers(0, 2))):  # the same value typed and plain, side by side
        s, p = draw(st.sampled_from(nodes)), draw(st.sampled_from(RELATIONS))
        for lit in draw(st.lists(st.sampled_from(LITERALS[:3]), min_size=2, max_size=3)):
            lines.add(f"{s} <{EX}{p}> {_literal(*lit)} .")
    names += [n[1:-1] for n in nodes if n.startswith("<")]  # IRIs name nodes too
    return "\n".join(sorted(lines)) + "\n", names


phrases = st.sampled_from([*RELATIONS, "directed by", "language", "wife", "when", "-> ->", ""])


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    kg=knowledge_graphs(),
    data=st.data(),
)
def test_invoke_never_fails_and_grounded_answers_are_evidence(
    kg: tuple[str, list[str]], data: Any
) -> None:
    text, names = kg
    graph_kg = KnowledgeGraph(load_ntriples(text))
    topics = data.draw(
        st.lists(st.sampled_from([*names, "Nobody", "<" + EX + "n0>"]), min_size=1, max_size=2)
    )
    paths = {
        t: [
            " -> ".join([t, *data.draw(st.lists(phrases, max_size=3))])
            for _ in range(data.draw(st.integers(1, 2)))
        ]
        for t in topics
    }
    edit = {t: [" -> ".join([t, *data.draw(st.lists(phrases, max_size=3))])] for t in topics}
    answer = data.draw(st.sampled_from(["{Ann}", "{1979}", "{hello|Bob}", "no idea", "{}"]))

    def reply(prompt: str) -> str:
        if "could not be instantiated" in prompt:
            return "Path: " + json.dumps(edit)
        if "Topic Entities:" in prompt:
            return "Thought: go\nPath: " + json.dumps(paths)
        return answer

    graph = build_graph(graph_kg, function_model(reply))
    context = {"max_edits": data.draw(st.integers(0, 2))}
    try:
        out = graph.invoke({"question": "who?", "topic_entities": topics}, context=context)
    except InputError:
        return  # the typed error for unusable input
    assert isinstance(out.get("answer"), str)
    if out.get("grounded"):
        known = {normalize_name(x) for s, _, o in out["evidence"] for x in (s, o)}
        assert all(normalize_name(a) in known for a in out["answers"])
    for triple in out.get("evidence") or []:
        assert len(triple) == 3 and all(isinstance(x, str) for x in triple)
    assert not any(re.search(r"Traceback|Error\(", a) for a in out.get("answers") or [])
