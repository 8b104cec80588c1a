"""A graph's input, checked where it comes in: every strategy's first node calls
`checked_input` before it queries anything or calls a model.

A caller's mistake gets one sentence naming it, as an `InputError` (a `ValueError` too), never
an `AttributeError` from deep inside or a run that quietly does something else: a question
must be text, not blank, and no longer than `RunContext.max_question_chars`; topic entities
are a list of names (a single string is one name, not a list of letters).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from readi_graph.core.base import InputError, QuestionTooLong
from readi_graph.core.context import RunContext, run_settings

MAX_TOPIC_ENTITIES = 32  # each one is resolved, and walked from, on its own
EXAMPLE = '{"question": "who directed Forrest Gump", "topic_entities": ["Forrest Gump"]}'


def checked_question(question: Any, max_chars: int | None = None) -> str:
    """The question, stripped; an `InputError` when it is not usable text."""
    if question is None:
        raise InputError(f"no question: invoke the graph with {EXAMPLE}")
    if not isinstance(question, str):
        raise InputError(
            f"the question must be text, not {_kind(question)} ({_shown(question)}): "
            f"invoke the graph with {EXAMPLE}"
        )
    text = question.strip()
    if not text:
        raise InputError("the question is empty: ask something, e.g. 'who directed Forrest Gump'")
    limit = run_settings(RunContext).max_question_chars if max_chars is None else max_chars
    if len(text) > limit:
        raise QuestionTooLong(
            f"the question has {len(text):,} characters; at most {limit:,} are read "
            "(RunContext.max_question_chars): shorten it"
        )
    return text


def checked_entities(given: Any) -> list[str] | None:
    """Topic entities as a list of names (None: none given). A string is one name."""
    if given is None:
        return None
    if isinstance(given, str):
        given = [given]
    elif isinstance(given, set | frozenset):  # names in no order: in a stable one
        given = sorted(given, key=str)
    if not isinstance(given, list | tuple):
        raise InputError(
            f"topic_entities must be a list of names, not {_kind(given)} ({_shown(given)}): "
            'e.g. ["Forrest Gump"]'
        )
    names: list[str] = []
    for i, name in enumerate(given):
        if not isinstance(name, str):
            raise InputError(
                f"topic_entities[{i}] must be a name (text), not {_kind(name)} ({_shown(name)})"
            )
        if name.strip() and name.strip() not in names:
            names.append(name.strip())
    if len(names) > MAX_TOPIC_ENTITIES:
        raise InputError(
            f"{len(names)} topic entities given; at most {MAX_TOPIC_ENTITIES} are walked from"
        )
    return names or None


def checked_input(state: Mapping[str, Any]) -> dict[str, Any]:
    """`question` and `topic_entities` of a graph's input, checked (see the module's
    docstring): the state update a first node starts from."""
    if not isinstance(state, Mapping):
        raise InputError(f"the input must be a dict such as {EXAMPLE}, not {_kind(state)}")
    return {
        "question": checked_question(state.get("question")),
        "topic_entities": checked_entities(state.get("topic_entities")),
    }


def _kind(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
