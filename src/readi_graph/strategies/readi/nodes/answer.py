"""answer: one LLM call answers from the instances (paper §4.5), citing what it used.

When nothing was instantiated there is no evidence to answer from, and no call is made: the
answer says why. When the model's answer cannot be read, the instances themselves are reported.
"""

from __future__ import annotations

from readi_graph.core.adapter import Adapter, answer_schema
from readi_graph.core.answer import failed_answer, grounded
from readi_graph.core.context import ReadiContext, current_settings
from readi_graph.core.models.llm import ModelRef
from readi_graph.core.prompts import render
from readi_graph.core.run.nodes import Meter, ModelNode, Steps, model_node
from readi_graph.core.state import ReadiState


def make_answer(adapter: Adapter, model: ModelRef) -> ModelNode:
    def answer(state: ReadiState) -> Steps:
        if state.get("failure"):
            return failed_answer(state)
        run = current_settings()
        with Meter("answer") as meter:
            material = adapter.material(state, run)
            notes = stopped(state, run, material.notes)
            values = material.prompt_values  # its notes are on the evidence alone
            if material.no_evidence is not None:
                text, answers = material.no_evidence, []
            else:
                prompt = render(
                    material.prompt or adapter.prompts["answer"],
                    run.prompt_budget,
                    question=state["question"],
                    **values,
                )
                schema = answer_schema(material.names, run.answer_from)
                text = meter.llm((yield prompt, schema)).text
                parsed = adapter.parse_answer(text)
                meter.count("answers")
                meter.count("answers_unreadable", parsed is None)
                answers = material.fallback if parsed is None else parsed
        return {
            "answer": text,
            "answers": answers,
            "evidence": material.evidence,
            "grounded": grounded(answers, material.known),
            "path": material.path,
            "notes": notes,
            "edits": state.get("edits_used", 0),
            "usage": meter.usage,
        }

    return model_node(model, answer, native=adapter.native_async)


def stopped(state: ReadiState, run: ReadiContext, notes: list[str]) -> list[str]:
    """The output's notes with why editing stopped early, when the router answered because no
    edit could change anything (`edit_stop`). A note on the run, not on the evidence: the
    answer prompt does not carry it (the answering model can do nothing with it)."""
    why = state.get("edit_stop")
    if not why:
        return notes
    edits = state.get("edits_used", 0)
    left = run.max_edits - edits
    done = f"{edits} edit{'s' if edits != 1 else ''}"
    return [*notes, f"Editing stopped after {done} with {left} left unspent: {why}."]
