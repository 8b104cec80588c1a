"""MkDocs hook: the reference pages, written from the code at every build.

So they cannot drift: docs/reference/*.md are placeholders, replaced by what the code says
when the site is built. The Python API page lists `readi_graph.__all__` (each name rendered by
mkdocstrings from its docstring and signature), the run-contexts page reads the dataclass
fields of every registered strategy's context (type, default, `metadata["description"]`), and
the CLI page walks `readi_graph.cli.build_parser()`. Tests import the `*_page` functions too
(tests/test_docs_reference.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from typing import Any

API_PAGE = "reference/python.md"
CONTEXTS_PAGE = "reference/contexts.md"
CLI_PAGE = "reference/cli.md"


GENERATED = {API_PAGE: "api_page", CONTEXTS_PAGE: "contexts_page", CLI_PAGE: "cli_page"}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """The three reference pages' text, written now (their files in docs/ are placeholders
    that say so, for readers of the repository)."""
    made = GENERATED.get(page.file.src_uri)
    return markdown if made is None else str(globals()[made]())


# -- the Python API ---------------------------------------------------------------------------

GROUPS = (
    ("Graphs", "Build a strategy's graph, wrap it as a tool, bound its calls."),
    ("Run contexts", "Per-run settings: see [Run contexts](contexts.md) for every field."),
    ("Environments", "Knowledge graphs, tables and what they are built from."),
    (
        "Readi's pieces",
        "The path, its binding and instantiation, the diagnosis: usable without an LLM.",
    ),
    ("State", "What a graph takes and returns."),
    ("Errors", "Typed errors: catch `ReadiError` for all of the project's own."),
)


def group_of(obj: Any) -> str:
    from readi_graph import KGSettings, KnowledgeGraph, RunContext, Table

    if isinstance(obj, type) and issubclass(obj, BaseException):
        return "Errors"
    if isinstance(obj, type) and issubclass(obj, RunContext):
        return "Run contexts"
    if isinstance(obj, type) and hasattr(obj, "__total__"):  # a TypedDict
        return "State"
    if obj in (KnowledgeGraph, Table, KGSettings) or getattr(obj, "__module__", "").endswith(
        ("schema", "retrieval", "reply_cache", "explore")
    ):
        return "Environments"
    if inspect.isfunction(obj) and obj.__module__.split(".")[-1] in ("graph", "tool", "context"):
        return "Graphs"
    return "Readi's pieces"


def api_page() -> str:
    import readi_graph

    grouped: dict[str, list[str]] = {name: [] for name, _ in GROUPS}
    for name in readi_graph.__all__:
        grouped[group_of(getattr(readi_graph, name))].append(name)
    lines = [
        "# Python API",
        "",
        "Everything `readi_graph` exports (`readi_graph.__all__`), written from the code's own",
        "docstrings and signatures when the site is built. Import each name from the package:",
        "`from readi_graph import build_graph, KnowledgeGraph`.",
        "",
    ]
    for group, blurb in GROUPS:
        if not grouped[group]:
            continue
        lines += [f"## {group}", "", blurb, ""]
        for name in grouped[group]:
            lines += [f"::: readi_graph.{name}", "    options:", "      heading_level: 3", ""]
    return "\n".join(lines)


# -- the run contexts -------------------------------------------------------------------------


def contexts() -> list[type]:
    """RunContext, then each registered strategy's context (the order of the registry)."""
    from readi_graph import RunContext, strategies

    found: list[type] = [RunContext]
    for name in strategies.names():
        context = strategies.resolve(strategies.get(name).context)
        if context not in found:
            found.append(context)
    return found


def cell(text: str) -> str:
    """Text for a table cell: one line, its pipes escaped."""
    return text.replace("|", "\\|").replace("\n", " ")


def code(text: str) -> str:
    """A code span for a table cell (Python-Markdown keeps pipes inside backticks)."""
    return "`" + text.replace("\n", " ") + "`"


def type_text(field: dataclasses.Field[Any]) -> str:
    kind = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
    return code(str(kind))


def default_text(field: dataclasses.Field[Any]) -> str:
    if field.default is not dataclasses.MISSING:
        return code(repr(field.default))
    if field.default_factory is not dataclasses.MISSING:
        return code(repr(field.default_factory()))
    return "required"


def context_table(context: type, own_only: bool) -> list[str]:
    parent_fields = {f.name for f in dataclasses.fields(context.__mro__[1])} if own_only else set()
    rows = ["| field | type | default | description |", "|---|---|---|---|"]
    for field in dataclasses.fields(context):
        if field.name in parent_fields:
            continue
        description = cell(field.metadata.get("description", ""))
        rows.append(
            f"| `{field.name}` | {type_text(field)} | {default_text(field)} | {description} |"
        )
    return rows


def contexts_page() -> str:
    from readi_graph import RunContext, strategies

    users: dict[type, list[str]] = {}
    for name in strategies.names():
        users.setdefault(strategies.resolve(strategies.get(name).context), []).append(name)
    lines = [
        "# Run contexts",
        "",
        "Per-run settings, passed as `graph.invoke(inputs, context=...)` (a dict with the same",
        "keys works too, e.g. from Studio). A run without a context, or with another strategy's",
        "context, gets the defaults completed with the fields they share. This page is written",
        "from the dataclasses' fields when the site is built.",
        "",
        "## Registered strategies",
        "",
        "| strategy | searches | what it does | most LLM calls per question |",
        "|---|---|---|---|",
    ]
    for name in strategies.names():
        s = strategies.get(name)
        lines.append(
            f"| `{name}` | {', '.join(s.environments)} | {cell(s.description)} | "
            f"{cell(s.calls_formula)} |"
        )
    lines.append("")
    for context in contexts():
        shared = context is not RunContext and issubclass(context, RunContext)
        used_by = ", ".join(f"`{n}`" for n in users.get(context, [])) or "every strategy"
        lines += [
            f"## {context.__name__}",
            "",
            f"`from readi_graph import {context.__name__}`; read by: {used_by}.",
            "",
        ]
        lines += context_table(context, own_only=shared)
        if shared:
            lines += ["", "And every field of [RunContext](#runcontext)."]
        lines.append("")
    return "\n".join(lines)


# -- the command line -------------------------------------------------------------------------


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, help, parser) of each subcommand, in the order they were added."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                found.append((name, helps.get(name, ""), sub))
    return found


def home_as_tilde(value: object) -> str:
    """A default under the builder's home directory, written as the reader's `~`."""
    from pathlib import Path

    return str(value).replace(str(Path.home()), "~")


def option_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = ", ".join(action.option_strings) or action.dest
        if action.option_strings and action.nargs != 0:
            name += f" {action.metavar or action.dest.upper()}"
        notes = []
        if action.choices is not None:
            notes.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
        if action.required and action.option_strings:
            notes.append("required")
        if action.default not in (None, False, argparse.SUPPRESS) and action.nargs != 0:
            notes.append(f"default `{home_as_tilde(action.default)}`")
        text = "; ".join(filter(None, [cell(action.help or ""), "; ".join(notes)]))
        rows.append(f"| {code(name)} | {text} |")
    return rows


def wide_formatter(prog: str) -> argparse.HelpFormatter:
    """Usage lines wrapped at 100 columns whatever the terminal building the site."""
    return argparse.HelpFormatter(prog, width=100)


def command_section(
    prog: str, help_text: str, parser: argparse.ArgumentParser, depth: int
) -> list[str]:
    lines = [f"{'#' * min(depth, 6)} `{prog}`", ""]
    if help_text:
        lines += [help_text[0].upper() + help_text[1:] + ".", ""]
    parser.formatter_class = wide_formatter
    usage = parser.format_usage().strip().removeprefix("usage: ")
    lines += ["```text", usage, "```", ""]
    rows = option_rows(parser)
    if rows:
        lines += ["| argument | meaning |", "|---|---|", *rows, ""]
    for name, sub_help, sub in subcommands(parser):
        lines += command_section(f"{prog} {name}", sub_help, sub, depth + 1)
    return lines


def cli_page() -> str:
    from readi_graph.cli import build_parser

    parser = build_parser()
    lines = [
        "# Command line",
        "",
        "Every command of `readi`, written from its argument parser when the site is built",
        "(`readi COMMAND --help` prints the same).",
        "",
    ]
    for name, help_text, sub in subcommands(parser):
        lines += command_section(f"readi {name}", help_text, sub, 2)
    return "\n".join(lines)
