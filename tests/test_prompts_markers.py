"""The strings prompts are recognised by live in one place (`core.markers`); every template
still contains them, so rewording a prompt fails here instead of silently misrouting the
offline oracle or a scripted model."""

from __future__ import annotations

import pytest

from readi_graph.core import markers
from readi_graph.core.prompts import instruction, load

from fakes import routed


@pytest.mark.parametrize("template", sorted(markers.TEMPLATE_MARKERS))
def test_every_template_holds_the_markers_it_is_known_by(template: str) -> None:
    text = load(template)
    for marker in markers.TEMPLATE_MARKERS[template]:
        assert marker in text, f"{template}.md no longer contains {marker!r}"


def test_section_labels_start_their_line_in_the_edit_prompt() -> None:
    lines = load("kg_edit").splitlines()
    for label in (markers.PREVIOUS_PATH, markers.CANDIDATE_RELATIONS, markers.EARLIER_RELATIONS):
        assert any(line.startswith(label) for line in lines), label


def test_section_labels_start_their_line_in_the_fidelis_prompts() -> None:
    """The FiDeLiS oracle (offline/fidelis.py) reads these sections line by line."""
    for template, labels in (
        ("fidelis_plan", (markers.QUESTION,)),
        ("fidelis_select", (markers.QUESTION, markers.CANDIDATES, markers.CHOOSE)),
        ("fidelis_verify", (markers.STATEMENT, markers.PATH)),
        ("fidelis_reason", (markers.QUESTION, markers.REASONING_PATHS)),
        ("fidelis_reason_flat", (markers.QUESTION, markers.REASONING_PATHS)),
    ):
        lines = load(template).splitlines(keepends=True)
        for label in labels:
            assert any(line.startswith(label) for line in lines), (template, label)


def test_the_answer_instruction_and_the_scripted_models_use_the_markers() -> None:
    assert instruction("evidence", "the triples below").startswith(markers.ANSWER_ONLY_FROM)
    model = routed("plan", "answer", "edit")
    assert set(model.replies) == {markers.GENERATE, markers.KG_EDIT, markers.ANSWER_ONLY_FROM}
