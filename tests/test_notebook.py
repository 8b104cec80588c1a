"""The quickstart notebook runs top to bottom (with its scripted stand-in for the model)."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "quickstart.ipynb"


def test_quickstart_executes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [
        "".join(o.get("text", "") for o in cell.get("outputs", []))
        for cell in nb.cells
        if cell.cell_type == "code"
    ]
    assert "['Greek'] grounded: True edits: 1" in outputs[1]
    assert "'llm_calls': 3" in outputs[1]
    assert "diagnose -> ['diagnosis', 'edit_stop', 'usage']" in outputs[2]
    assert "diagnose -.-> edit;" in outputs[3]
    assert outputs[4].strip() == "The films are in Greek."
    assert "in_language" in outputs[5]  # the person is offered the repair ...
    assert "['Greek'] edits: 1 LLM calls: 2" in outputs[5]  # ... and no model edits
    assert "['2023'] grounded: True llm calls: 2" in outputs[6]
    assert "[['Season', 'Position'], ['2018', '11th']" in outputs[6]
    assert os.environ.get("OPENAI_API_KEY") is None
