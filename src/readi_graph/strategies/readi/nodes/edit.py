"""edit: the path is corrected from the error message (paper §4.4, appendix B.2), by one LLM
call or, with `ReadiContext(editor="human")`, by a person.

A human edit pauses the run with `interrupt()`: the payload is what the model would be told
(the numbered errors, the half-way instances, the candidate relations, the whole prompt), and
`Command(resume=...)` brings the corrected path in any form the model may write (JSON, a
`Path:` line, a bare `Entity -> relation` chain) or as a dict `{topic: [path, ...]}`. The edit
budget applies alike; an unreadable reply becomes edit feedback, as for a model. An empty
reply (`Command(resume="")`) ends editing: no edit is spent, and the run answers from the best
instances found so far.
"""

from __future__ import annotations

import json
from typing import Any

from langgraph.types import interrupt

from readi_graph.core.adapter import Adapter
from readi_graph.core.context import current_settings
from readi_graph.core.diagnosis import fingerprint
from readi_graph.core.models.llm import ModelRef
from readi_graph.core.parsing import OutputParseError
from readi_graph.core.prompts import render
from readi_graph.core.run.nodes import Meter, ModelNode, Steps, model_node
from readi_graph.core.state import ReadiState
from readi_graph.strategies.readi.nodes import request_plan

HUMAN_EDIT = "readi_edit"  # the payload's `kind`, for apps that handle several interrupts


def make_edit(adapter: Adapter, model: ModelRef) -> ModelNode:
    def edit(state: ReadiState) -> Steps:
        settings = current_settings()
        # the paper's feedback has its own prompt, when the environment has one
        name = adapter.prompts.get(f"edit_{settings.edit_feedback}") or adapter.prompts["edit"]
        with Meter("edit") as meter:
            values = adapter.edit_values(state, settings)
            prompt = render(name, settings.prompt_budget, **values)
            if settings.editor == "human":
                reply = human_edit(meter, adapter, state, values, prompt)
            else:
                reply = yield from request_plan(meter, adapter, state, prompt, editing=True)
        if reply is None:  # the person ended editing: the same plan once more, then answer
            return {"editor_done": True, "usage": meter.usage}
        plan, error = reply
        seen = state.get("diagnoses_seen") or []
        return {
            "plan": plan,
            "parse_error": error,
            "edits_used": state.get("edits_used", 0) + 1,
            # what this editor was told: a later diagnosis equal to it has nothing new to offer
            "diagnoses_seen": [*seen, fingerprint(state.get("diagnosis") or {})],
            "usage": meter.usage,
        }

    return model_node(model, edit, native=adapter.native_async)


def human_edit(
    meter: Meter, adapter: Adapter, state: ReadiState, values: dict[str, str], prompt: str
) -> tuple[dict[str, Any], str | None] | None:
    """Pause for a person; read their path like a model's reply (None: they ended editing)."""
    reply = interrupt(
        {
            "kind": HUMAN_EDIT,
            "edit": state.get("edits_used", 0) + 1,
            **values,  # question, previous path, errors, instances, candidates, ...
            "prompt": prompt,
            "reply_format": 'a path per topic entity, e.g. {"Topic": ["Topic -> relation -> '
            'relation"]} (tables: Chosen Headers: [...] / Constraints: {...}); an empty reply '
            "ends editing (the answer uses what was found)",
        }
    )
    if reply is None or (isinstance(reply, str) and not reply.strip()):
        meter.count("human_stops")
        return None
    meter.count("human_edits")
    if isinstance(reply, dict) and ("headers" in reply or "path" in reply):
        text = json.dumps(reply, ensure_ascii=False)  # a table plan, or {"path": {...}}
    elif isinstance(reply, dict):
        text = json.dumps({"path": reply}, ensure_ascii=False)  # {topic: [path, ...]}
    else:
        text = str(reply)
    try:
        return adapter.parse_plan(text, state, editing=True), None
    except OutputParseError as exc:
        meter.count("plans_unreadable")
        return adapter.unreadable_plan(state), str(exc)
