"""Text that names the code's choices must match the code: strategies, commands, options.

Read: README.md, every page of docs/, benchmarks/README.md, every docstring under src/ and
every help text of the `readi` parser. Checked against the strategy registry
(`readi_graph.strategies.names()`) and the argparse parser (`readi_graph.cli.build_parser()`):
each `readi COMMAND [SUBCOMMAND]` and each option written after it exists; each strategy
named as a value (`strategy="x"`, `--strategy x,y`) is registered; a list of strategies
(`"readi" or "fidelis"`) or of commands (`readi ask, eval, ...`, `readi eval {a,b}`) names
all of them; README's links point to pages and headings that exist.
"""

from __future__ import annotations

import argparse
import ast
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from readi_graph import strategies
from readi_graph.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
STRATEGY_WORDS = {"all", "both"}  # what `--strategy` takes besides registered names


@dataclass(frozen=True)
class Text:
    where: str
    text: str


def pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "benchmarks" / "README.md",
            *sorted((ROOT / "docs").rglob("*.md"))]  # fmt: skip


def docstrings() -> Iterator[Text]:
    for path in sorted((ROOT / "src" / "readi_graph").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc:
                    name = getattr(node, "name", "module")
                    yield Text(f"{path.relative_to(ROOT)}:{name}", doc)


def parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


def help_texts() -> Iterator[Text]:
    for path, parser in parsers(build_parser()):
        where = "readi " + " ".join(path)
        if parser.description:
            yield Text(where, parser.description)
        for action in parser._actions:
            if action.help and action.help != argparse.SUPPRESS:
                yield Text(f"{where} {'/'.join(action.option_strings) or action.dest}", action.help)
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    if choice.help:
                        yield Text(f"{where} {choice.dest}", choice.help)


def texts() -> list[Text]:
    found = [Text(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in pages()]
    return [*found, *docstrings(), *help_texts()]


# -- what the code offers ---------------------------------------------------------------------

PARSERS = dict(parsers(build_parser()))
COMMANDS = {path[0] for path in PARSERS if len(path) == 1}
STRATEGIES = set(strategies.names())


def subcommands(path: tuple[str, ...]) -> set[str]:
    return {p[-1] for p in PARSERS if len(p) == len(path) + 1 and p[: len(path)] == path}


def options(path: tuple[str, ...]) -> set[str]:
    """The options of a command, or of any command under it (`readi eval ... --strategy`)."""
    found: set[str] = set()
    for p, parser in PARSERS.items():
        if p[: len(path)] == path:
            for action in parser._actions:
                found.update(action.option_strings)
    return found


# -- what the text says -----------------------------------------------------------------------

WORD = r"[a-z]+(?:-[a-z]+)*"
COMMAND = re.compile(
    rf"(?<![\w.-])readi (?P<first>{WORD}(?:/{WORD})*)"
    rf"(?: (?P<second>\{{[a-z,-]+\}}|{WORD}(?:[|/]{WORD})*))?(?P<rest>[^`\n]*)"
)
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def code_parts(text: str) -> list[str]:
    """Inline code spans and the lines of fenced blocks (continued lines joined)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    fenced = re.findall(r"(?ms)^\s*```[^\n]*\n(.*?)^\s*```", joined)
    lines = [line for block in fenced for line in block.splitlines()]
    prose = re.sub(r"(?ms)^\s*```[^\n]*\n.*?^\s*```", "", joined)
    spans = re.findall(r"``?([^`]+?)``?", prose.replace("\n", " "))
    return [*lines, *spans]


def command_mentions(text: Text) -> Iterator[tuple[tuple[str, ...], str, str]]:
    """(command path, the rest of the line, the mention) of each `readi ...` in code."""
    parts = (
        code_parts(text.text)
        if text.where.endswith(".md")
        else [*code_parts(text.text), *([text.text] if text.where.startswith("readi") else [])]
    )
    for part in parts:
        for m in COMMAND.finditer(part):
            for first in m["first"].split("/"):
                path: tuple[str, ...] = (first,)
                second, rest = m["second"], m["rest"]
                if first in COMMANDS and second and subcommands(path):
                    names = re.split(r"[,|/]", second.strip("{}"))
                    for name in names:
                        yield (first, name), rest, m[0]
                    continue
                if second and second.startswith("-"):
                    rest = " " + second + rest
                yield path, rest, m[0]


def problems_with_commands(text: Text) -> list[str]:
    found = []
    for path, rest, mention in command_mentions(text):
        if path[0] not in COMMANDS:
            found.append(
                f"{text.where}: `{mention}` names no command (commands: "
                f"{', '.join(sorted(COMMANDS))})"
            )
            continue
        if len(path) == 2 and path[1] not in subcommands(path[:1]):
            found.append(f"{text.where}: `{mention}`: readi {path[0]} has no {path[1]!r}")
            continue
        own = options(path)
        rest = re.split(r"\||&&|;| readi ", rest)[0]
        for option in OPTION.findall(rest):
            if option not in own:
                found.append(f"{text.where}: `{mention}`: readi {' '.join(path)} has no {option}")
    return found


STRATEGY_VALUE = re.compile(
    r"""strategy=["'](?P<name>[^"']+)["']|--strategy[ =](?P<list>[A-Za-z|,_.-]+)"""
)


def problems_with_strategies(text: Text) -> list[str]:
    found = []
    for m in STRATEGY_VALUE.finditer(text.text):
        names = [m["name"]] if m["name"] else re.split(r"[|,]", m["list"].rstrip(".,"))
        for name in names:
            if name in ("...", "…", "") or name.isupper() or len(name) == 1:  # placeholders
                continue
            if name not in STRATEGIES | STRATEGY_WORDS:
                found.append(
                    f"{text.where}: strategy {name!r} is not registered "
                    f"({', '.join(sorted(STRATEGIES))})"
                )
    return found


def sentences(text: str) -> list[str]:
    """Prose cut at sentence ends and blank lines; CLI values of --strategy left out."""
    prose = re.sub(r"(?ms)^\s*```[^\n]*\n.*?^\s*```", "\n\n", text)
    prose = STRATEGY_VALUE.sub(" ", prose)
    units = re.split(r"\n\s*\n|\n(?=\s*\|)|(?<=[.!?])\s+(?=[A-Z(`*])", prose)  # table rows apart
    return [" ".join(u.split()) for u in units if u.strip()]


def named_strategies(sentence: str) -> set[str]:
    """Registered names written as identifiers: quoted, in code, or as a package (`x/`)."""
    found = set()
    for name in STRATEGIES:
        if re.search(rf"""["'`]{name}["'`]|(?<![\w.])`?{name}/""", sentence):
            found.add(name)
    return found


def problems_with_lists(text: Text) -> list[str]:
    found = []
    for sentence in sentences(text.text):
        named = named_strategies(sentence)
        if len(named) >= 2 and named != STRATEGIES:
            found.append(
                f"{text.where}: lists strategies {sorted(named)} but not "
                f"{sorted(STRATEGIES - named)}: {sentence[:120]!r}"
            )
    for unit in [*sentences(text.text), *code_parts(text.text)]:
        for m in re.finditer(rf"(?<![\w.-])readi ({WORD}(?:, {WORD}){{2,}})", unit):
            listed = set(m[1].split(", "))
            if listed < COMMANDS | listed and listed != COMMANDS:
                found.append(
                    f"{text.where}: lists commands {sorted(listed)} but not "
                    f"{sorted(COMMANDS - listed)}"
                )
    for part in code_parts(text.text) if text.where.endswith(".md") else [text.text]:
        for m in re.finditer(rf"(?<![\w.-])readi ({WORD}) \{{([a-z,-]+)\}}", part):
            listed, offered = set(m[2].split(",")), subcommands((m[1],))
            if offered and listed != offered:
                found.append(
                    f"{text.where}: `{m[0]}` lists {sorted(listed)}, the parser "
                    f"offers {sorted(offered)}"
                )
    return found


# -- the tests --------------------------------------------------------------------------------

TEXTS = texts()


@pytest.mark.parametrize(
    "check", [problems_with_commands, problems_with_strategies, problems_with_lists],
    ids=["commands-and-options", "strategy-values", "complete-lists"],
)  # fmt: skip
def test_text_names_only_what_exists(check: object) -> None:
    assert callable(check)
    found = [problem for text in TEXTS for problem in check(text)]
    assert found == [], "\n".join(found)


def test_the_checks_catch_drift() -> None:
    """Each check fires on the kind of drift it is for (so none passes by reading nothing)."""
    stale = Text(
        "x.md",
        "Run `readi evaluate metaqa`, `readi eval metaqa --gold`, "
        "`readi bench {binding,replay}` or `readi ask --strategy fidelis,pog`.",
    )
    assert len(problems_with_commands(stale)) == 2
    assert len(problems_with_strategies(stale)) == 1
    assert len(problems_with_lists(stale)) == 1
    listing = Text(
        "doc",
        'strategy is "readi" (the default) or "fidelis". The cli: readi ask, '
        "eval, bench, trace, score.",
    )
    assert len(problems_with_lists(listing)) == 2
    complete = Text("doc", 'one of "' + '", "'.join(sorted(STRATEGIES)) + '".')
    assert problems_with_lists(complete) == []


def test_the_texts_read_are_the_projects() -> None:
    wheres = {t.where for t in TEXTS}
    assert {"README.md", "docs/architecture.md"} <= wheres
    assert any(w.startswith("src/readi_graph/graph.py") for w in wheres)
    assert any(w.startswith("readi ask") for w in wheres)
    assert sum(1 for t in TEXTS for _ in command_mentions(t)) >= 50


def test_the_readme_lists_every_command_and_strategy() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"`readi {command}" in readme, command
    for name in STRATEGIES:
        assert f"| `{name}`" in readme, name


def slug(heading: str) -> str:
    """The anchor MkDocs (and GitHub, for these headings) gives a heading."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", text)


def test_readme_links_point_to_pages_and_headings_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\((?!https?:)([^)\s]+)\)", readme):
        page, _, anchor = target.partition("#")
        path = ROOT / page
        generated = page.startswith("docs/reference/")  # written when the site is built
        assert path.exists() or generated, target
        if anchor and not generated:
            headings = re.findall(r"(?m)^#+ (.+)$", path.read_text(encoding="utf-8"))
            assert anchor in {slug(h) for h in headings}, target


FILES = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.py")
         if not {".venv", "site", "mutants", ".git"} & set(p.relative_to(ROOT).parts)]  # fmt: skip
FILE_NAME = re.compile(r"`(?P<path>[\w./-]*[\w-]+\.py)(?::\w+)?`")
DOTTED = re.compile(r"`(?P<name>readi_graph(?:\.\w+)+)")
OTHERS = {  # files outside the project that pages name on purpose
    "evaluator.py",  # WikiTableQuestions' official evaluator, which datasets/wtq.py follows
    "referee_llm.py",  # the workplace's referee endpoint (contributing/capable-model.md)
}


def _old_paths() -> set[str]:
    """The module paths before the layout of rooms: the keys of the table moved.py keeps."""
    tree = ast.parse((ROOT / "src" / "readi_graph" / "moved.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_MOVES":
            return set(ast.literal_eval(node.value))
    raise AssertionError("moved.py has no table of moves")


OLD_PATHS = _old_paths()
PACKAGE_DATA = "readi_graph._prompts"  # prompts/, installed as package data by the wheel


def problems_with_modules(text: Text) -> list[str]:
    """A file named in code (`core/run/bridge.py`, `nodes/describe.py`) is one of the project's
    (the end of its path), and a dotted `readi_graph....` name imports."""
    import importlib

    found = []
    for m in FILE_NAME.finditer(text.text):
        path = m["path"].lstrip("./")
        if path in OTHERS:
            continue
        if not any(f == path or f.endswith("/" + path) for f in FILES):
            found.append(f"{text.where}: names {m['path']}, which is no file of the project")
    for m in DOTTED.finditer(text.text):
        if m["name"].startswith(PACKAGE_DATA):
            continue
        parts = m["name"].split(".")
        for cut in range(len(parts), 0, -1):
            old = ".".join(parts[1:cut])
            if old in OLD_PATHS and "moved.py" not in text.where:  # it names them on purpose
                found.append(f"{text.where}: `{m['name']}` is an old module path")
                break
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attribute in parts[cut:]:
                obj = getattr(obj, attribute, None)
            if obj is None:
                found.append(f"{text.where}: `{m['name']}` does not exist")
            break
    return found


def test_modules_named_exist() -> None:
    found = [problem for text in TEXTS for problem in problems_with_modules(text)]
    assert found == [], "\n".join(found)
