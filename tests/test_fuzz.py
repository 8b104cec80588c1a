"""Property tests: every parser of model output, and the generate -> diagnose -> edit round trip.

No exception escapes but the documented typed ones (`OutputParseError`, other `ReadiError`).
Profiles (conftest): `ci` by default; `READI_HYPOTHESIS=slow` runs >= 10,000 examples each.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readi_graph.core.base import ReadiError
from readi_graph.core.parsing import OutputParseError, parse_answer, parse_list_answer
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.parsing import parse_kg_paths
from readi_graph.environments.table.parsing import parse_table_plan
from readi_graph.graph import build_graph
from readi_graph.strategies.fidelis.parsing import parse_choice, parse_plan, parse_verdict

from fakes import scripted

TOPICS = ["Joel Zwick", "Tom Hanks"]
PIECES = ["Path:", "Thought:", "Answer:", "Chosen Headers:", "Constraints:", "->", "<-", "{", "}",
          "[", "]", '"', "'", "|", "```json", "```", "\n", "Joel Zwick", "directed_by", "yes", "no",
          "keywords", "declarative_statement", "headers", "answers", "1", "-1", "99", ","]  # fmt: skip

KEYS = ["path", "keywords", "answers", "headers", "Joel Zwick", "declarative_statement", "x"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "path",
                    "keywords",
                    "answers",
                    "headers",
                    "Joel Zwick",
                    "declarative_statement",
                    "thought",
                    "x",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)
model_text = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(PIECES) | st.text(max_size=12), max_size=40).map("".join),
    json_values.map(json.dumps),
    st.tuples(st.sampled_from(["Path: ", "Answer: ", "Chosen Headers: ", ""]), json_values).map(
        lambda t: t[0] + json.dumps(t[1])
    ),
)
SLOW = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@given(model_text)
def test_path_parser(text: str) -> None:
    for fill in (True, False):
        try:
            paths = parse_kg_paths(text, TOPICS, fill_missing=fill)
        except OutputParseError:
            continue
        assert set(paths) <= set(TOPICS)
        for alternatives in paths.values():
            assert all(isinstance(r, str) for chain in alternatives for r in chain)


@given(model_text)
def test_answer_parsers(text: str) -> None:
    for parse in (parse_answer, parse_list_answer):
        answers = parse(text)
        assert answers is None or all(isinstance(a, str) and a for a in answers)


@given(model_text)
def test_table_plan_parser(text: str) -> None:
    try:
        plan = parse_table_plan(text)
    except OutputParseError:
        return
    assert all(isinstance(h, str) for h in plan["headers"])
    assert all(isinstance(v, str) for vs in plan["constraints"].values() for v in vs)


@given(model_text, st.integers(0, 50), st.integers(1, 8))
def test_fidelis_parsers(text: str, n: int, width: int) -> None:
    chosen = parse_choice(text, n, width)
    assert len(chosen) <= width and len(set(chosen)) == len(chosen)
    assert all(0 <= i < n for i in chosen)
    assert parse_verdict(text) in (True, False, None)
    try:
        plan = parse_plan(text)
    except OutputParseError:
        return
    assert all(isinstance(k, str) for k in plan["keywords"]) and isinstance(plan["statement"], str)


def test_huge_replies_parse_in_bounded_time() -> None:
    huge = ("Joel Zwick -> directed_by -> " * 20_000) + "{" * 50_000 + "[1, 2" * 20_000
    started = time.perf_counter()
    for text in (huge, "x" * 1_000_000, '{"path": ' * 10_000):
        with contextlib.suppress(OutputParseError):
            parse_kg_paths(text, TOPICS)
        parse_answer(text)
        parse_choice(text, 10, 4)
        with contextlib.suppress(OutputParseError):
            parse_plan(text)
    assert time.perf_counter() - started < 30


@settings(suppress_health_check=SLOW, max_examples=max(40, settings.default.max_examples // 10))
@given(model_text, model_text)
def test_generate_diagnose_edit_round_trip(demo: KnowledgeGraph, first: str, edit: str) -> None:
    """Any generation and edit reply: the run ends with a state, or a typed error."""
    model = scripted(first, edit, "Answer: {x}")
    question: dict[str, Any] = {"question": "what did [Joel Zwick] direct",
                                "topic_entities": ["Joel Zwick"]}  # fmt: skip
    try:
        result = build_graph(demo, model).invoke(question, context={"max_edits": 1})
    except ReadiError:
        return
    assert result["usage"]["llm_calls"] <= 3 and isinstance(result["answer"], str)


relation_words = st.from_regex(r"[a-z][a-z_ ]{0,18}[a-z]", fullmatch=True).filter(
    lambda r: "zwick" not in r and "joel" not in r and "->" not in r
)


@given(st.lists(relation_words, min_size=1, max_size=4), st.booleans())
def test_every_relation_is_kept_whether_or_not_the_topic_leads(
    relations: list[str], with_topic: bool
) -> None:
    chain = " -> ".join((["Joel Zwick"] if with_topic else []) + relations)
    parsed = parse_kg_paths("Path: " + json.dumps({"Joel Zwick": [chain]}), ["Joel Zwick"])
    assert parsed == {"Joel Zwick": [tuple(" ".join(r.split()) for r in relations)]}
