"""Readi's nodes, one module each; every `make_<node>` closes over the adapter and the model.

`request_plan` is the plan call that `generate` and `edit` share.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from readi_graph.core.adapter import Adapter
from readi_graph.core.models.llm import Reply
from readi_graph.core.parsing import OutputParseError
from readi_graph.core.run.nodes import Ask, Meter
from readi_graph.core.state import ReadiState


def request_plan(
    meter: Meter,
    adapter: Adapter,
    state: ReadiState,
    prompt: str,
    *,
    editing: bool,
) -> Generator[Ask, Reply, tuple[dict[str, Any], str | None]]:
    """One model call for a plan: (plan, None), or (what stands of the previous plan, why) when
    the reply cannot be read, which the diagnosis then reports to the editor instead of failing
    the run."""
    reply = meter.llm((yield prompt, adapter.plan_schema(state)))
    meter.count("plans")
    try:
        return adapter.parse_plan(reply.text, state, editing=editing), None
    except OutputParseError as exc:
        meter.count("plans_unreadable")
        return adapter.unreadable_plan(state), str(exc)
