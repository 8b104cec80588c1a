"""generate: one LLM call writes the whole reasoning path (paper §4.2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from readi_graph.envs.base import ReadiError
from readi_graph.llm import ModelRef, call
from readi_graph.nodes import Meter
from readi_graph.parsing import OutputParseError, parse_kg_paths
from readi_graph.prompts import render
from readi_graph.state import ReadiState


class InputError(ReadiError, ValueError):
    """The graph was invoked with input it cannot work on."""


def make_generate(model: ModelRef) -> Callable[[ReadiState], dict[str, Any]]:
    def generate(state: ReadiState) -> dict[str, Any]:
        question = (state.get("question") or "").strip()
        topics = [t for t in state.get("topic_entities") or [] if t.strip()]
        if not question or not topics:
            raise InputError(
                'a KG question needs {"question": "...", "topic_entities": ["name or IRI", ...]}'
            )
        with Meter("generate") as meter:
            prompt = render(
                "kg_generate",
                question=question,
                topic_entities=json.dumps(topics, ensure_ascii=False),
            )
            reply = meter.llm(call(model.get(), prompt))
            try:
                plan = parse_kg_paths(reply.text, topics)
                error = None
            except OutputParseError as exc:
                plan, error = {}, str(exc)
        return {
            "topic_entities": topics,
            "plan": {t: [list(r) for r in alternatives] for t, alternatives in plan.items()},
            "parse_error": error,
            "edits_used": 0,
            "usage": meter.usage,
        }

    return generate
