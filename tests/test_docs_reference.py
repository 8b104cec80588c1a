"""The reference pages are written from the code: every public name, every context field,
every command and option appears, so a new one cannot be left undocumented."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import readi_graph
from readi_graph import strategies
from readi_graph.cli import build_parser

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import docs_hooks


def test_the_api_page_renders_every_public_name() -> None:
    page = docs_hooks.api_page()
    for name in readi_graph.__all__:
        assert f"::: readi_graph.{name}\n" in page, name
    assert page.count(":::") == len(readi_graph.__all__)


def test_the_contexts_page_has_every_field_of_every_strategys_context() -> None:
    page = docs_hooks.contexts_page()
    for name in strategies.names():
        context = strategies.resolve(strategies.get(name).context)
        assert f"## {context.__name__}" in page
        for field in dataclasses.fields(context):
            assert f"| `{field.name}` |" in page, (context.__name__, field.name)
            assert field.metadata.get("description"), f"{context.__name__}.{field.name}"
            assert docs_hooks.cell(field.metadata["description"]) in page
        assert f"| `{name}` |" in page  # the registry table


def test_the_cli_page_has_every_command_and_option() -> None:
    page = docs_hooks.cli_page()

    def walk(parser: argparse.ArgumentParser, prog: str) -> None:
        assert f"`{prog}`" in page, prog
        for action in parser._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in page.split(f"`{prog}`", 1)[1], (prog, option)
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{prog} {name}")

    walk(build_parser(), "readi")
    assert str(Path.home()) not in page  # defaults under the builder's home read as ~


def test_a_context_default_is_shown_as_the_code_has_it() -> None:
    rows = docs_hooks.context_table(readi_graph.ReadiContext, own_only=True)
    assert any(r.startswith("| `max_edits` | `int` | `4` |") for r in rows)
    assert not any("`model`" in r for r in rows)  # shared fields are RunContext's table
