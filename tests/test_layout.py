"""The layout rules of docs/architecture.md, checked on the source: layers only import
downwards, environments and strategies never import a sibling, the rooms of a package import
downwards, no import cycle (imports inside functions and for types included), no private
name imported from another module, no module over 300 lines, no folder over 15 modules; and
the docs follow the tree: the module table names exactly the modules of each folder, the
packages of pyproject.toml are those of the tree, module paths named in the code exist, and
old module paths (moved.py) still import."""

from __future__ import annotations

import ast
import importlib
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SRC = ROOT / "src"
PACKAGE = SRC / "readi_graph"
# Each layer may import the layers after it, never the ones before it.
LAYERS = ["cli", "bench", "eval", "offline", "datasets", "strategies", "environments", "core"]
# Inside these packages, each room (subpackage; "" for the package's own modules) may import
# the rooms before it, never the ones after it.
ROOMS = {
    "readi_graph.environments.kg": [
        "store",
        "relations",
        "entities",
        "",
        "answer_evidence",
        "reasoning",
    ],
    "readi_graph.core": ["", "local", "models", "run"],
}
MAX_MODULES = 15  # per folder, `__init__.py` not counted


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import of the package in a file: at the top, inside
    functions and under `if TYPE_CHECKING:` alike (each can make an import cycle)."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names)
    return [(m, n) for m, n in found if m == "readi_graph" or m.startswith("readi_graph.")]


def area(module: str) -> tuple[str, str]:
    """(layer, unit): `readi_graph.environments.kg.graph` -> ("environments", "kg")."""
    parts = module.split(".")
    layer = parts[1] if len(parts) > 1 else ""
    unit = parts[2] if len(parts) > 2 and layer in ("environments", "strategies") else ""
    return layer, unit


def targets(module: str, names: list[str]) -> list[str]:
    """The modules an import statement is for: `from pkg import mod, other` is for pkg.mod
    and pkg.other when both are modules, else for pkg itself."""
    submodules = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
    return submodules if names and len(submodules) == len(names) else [module]


def imported(name: str) -> set[str]:
    """The modules of the package that module `name` imports."""
    return {
        t
        for module, names in imports(MODULES[name])
        for t in targets(module, names)
        if t in MODULES and t != name
    }


def test_no_module_is_over_300_lines() -> None:
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > 300}
    assert not long


def test_no_folder_holds_more_than_15_modules() -> None:
    counts = Counter(
        str(p.parent.relative_to(SRC)) for p in PACKAGE.rglob("*.py") if p.name != "__init__.py"
    )
    assert counts, "no module found"
    crowded = {folder: n for folder, n in counts.items() if n > MAX_MODULES}
    assert not crowded, f"split these folders into rooms: {crowded}"


def test_layers_import_downwards_and_units_never_import_a_sibling() -> None:
    wrong = []
    for name, path in MODULES.items():
        layer, unit = area(name)
        for module, names in imports(path):
            for target in targets(module, names):
                other_layer, other_unit = area(target)
                if layer in LAYERS and other_layer in LAYERS:
                    if LAYERS.index(other_layer) < LAYERS.index(layer):
                        wrong.append(f"{name} imports {target} (a layer above)")
                    elif other_layer == layer and unit and other_unit and unit != other_unit:
                        wrong.append(f"{name} imports {target} (a sibling)")
    assert not wrong, "\n".join(wrong)


def room(package: str, module: str) -> str | None:
    """The room of `module` in `package` ("" for the package's own modules), None outside."""
    if module == package:
        return ""
    if not module.startswith(package + "."):
        return None
    rest = module[len(package) + 1 :].split(".")
    if len(rest) > 1 or MODULES[module].name == "__init__.py":
        return rest[0]  # in a subpackage, or the subpackage itself
    return ""


def test_rooms_import_downwards() -> None:
    for package, order in ROOMS.items():
        found = {room(package, m) for m in MODULES} - {None}
        assert found == set(order), f"{package}: rooms {sorted(found)} vs the rule {order}"
    wrong = [
        f"{name} ({here or 'the faces'}) imports {target} ({there or 'the faces'})"
        for package, order in ROOMS.items()
        for name in MODULES
        if (here := room(package, name)) is not None
        for target in imported(name)
        if (there := room(package, target)) is not None and order.index(there) > order.index(here)
    ]
    assert not wrong, "\n".join(wrong)


def test_no_private_name_is_imported_from_another_module() -> None:
    wrong = [
        f"{name} imports {n} from {module}"
        for name, path in MODULES.items()
        for module, names in imports(path)
        for n in names
        if n.startswith("_") and not n.startswith("__")
    ]
    assert not wrong, "\n".join(wrong)


def cycle_in(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done

    def visit(node: str, stack: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt, [*stack, nxt])):
                return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node, [node])):
            return found
    return None


def test_no_import_cycles_not_even_through_functions_or_types() -> None:
    cycle = cycle_in({name: imported(name) for name in MODULES})
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_check_sees_imports_inside_functions_and_for_types(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from readi_graph.a import A\n"
        "def f():\n    from readi_graph.b import B\n",
        encoding="utf-8",
    )
    assert {m for m, _ in imports(probe)} == {"readi_graph.a", "readi_graph.b"}
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle_in({"a": {"b"}, "b": set()}) is None


# What strategies may not import: the KG's store (query text, IRI checks, raw reads) and its
# relation index. They explore a KG through `environments/kg/explore.py` (`Explorer`).
KG_INTERNALS = ("readi_graph.environments.kg.store",)
KG_INTERNAL_MODULES = {
    "readi_graph.environments.kg.relations." + name for name in ("retrieval", "encoder")
}


def test_strategies_explore_a_kg_through_its_public_interface() -> None:
    wrong = [
        f"{name} imports {target}"
        for name, path in MODULES.items()
        if area(name)[0] == "strategies"
        for module, names in imports(path)
        for target in targets(module, names)
        if target in KG_INTERNAL_MODULES or target.startswith(KG_INTERNALS)
    ]
    assert not wrong, "\n".join(wrong)


def module_table() -> dict[str, list[str]]:
    """docs/architecture.md's module table: folder -> the file names its row gives."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    head = "| folder | holds | modules |"
    assert head in text, "docs/architecture.md has no module table"
    rows: dict[str, list[str]] = {}
    for line in text[text.index(head) :].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == 3, f"a row of three cells: {line[:80]}"
        folder = cells[0].strip("`").rstrip("/")
        folder = "." if folder == "readi_graph" else folder
        assert folder not in rows, f"two rows for {folder}"
        rows[folder] = re.findall(r"`(\w+\.py)`", cells[2])
    return rows


def test_the_module_table_names_exactly_the_modules_of_each_folder() -> None:
    table = module_table()
    tree: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        folder = path.parent.relative_to(PACKAGE).as_posix()
        tree.setdefault(folder, set()).add(path.name)
    assert set(table) == set(tree), (
        f"folders without a row: {sorted(set(tree) - set(table))}; "
        f"rows without a folder: {sorted(set(table) - set(tree))}"
    )
    wrong = []
    for folder, named in table.items():
        modules = tree[folder] - {"__init__.py"}
        if missing := modules - set(named):
            wrong.append(f"{folder}/: not in the table: {sorted(missing)}")
        if stale := set(named) - tree[folder]:
            wrong.append(f"{folder}/: no such module: {sorted(stale)}")
        if twice := [n for n, k in Counter(named).items() if k > 1]:
            wrong.append(f"{folder}/: named twice: {twice}")
    assert not wrong, "\n".join(wrong)


def test_pyproject_lists_the_packages_of_the_tree() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {module_name(p.parent / "__init__.py") for p in PACKAGE.rglob("*.py")}
    assert listed == found | {"readi_graph._prompts"}


def test_module_paths_named_in_the_code_and_the_architecture_exist() -> None:
    tracked = [
        p.relative_to(ROOT).as_posix()
        for top in ("src", "tests", "benchmarks", "scripts", "docs", "graphs", "prompts")
        for p in (ROOT / top).rglob("*")
        if p.is_file()
    ]
    mention = re.compile(r"(?<![\w/.-])((?:[\w-]+/)+[\w-]+\.py)\b")
    sources = [*PACKAGE.rglob("*.py"), ROOT / "docs" / "architecture.md"]
    wrong = [
        f"{source.relative_to(ROOT)}:{i}: {name}"
        for source in sources
        for i, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1)
        for name in mention.findall(line)
        if not (ROOT / name).exists()
        and not (PACKAGE / name).exists()
        and not any(t.endswith("/" + name) for t in tracked)
    ]
    assert not wrong, "\n".join(wrong)


def test_old_module_paths_import_the_moved_module_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from readi_graph.moved import MOVED

    assert MOVED
    for old, new in MOVED.items():
        assert old not in MODULES, f"{old} is a module again: drop it from moved.py"
        assert new in MODULES, f"{new} (for {old}) is not a module"
        monkeypatch.delitem(sys.modules, old, raising=False)
        with pytest.warns(DeprecationWarning, match=re.escape(new)):
            module = importlib.import_module(old)
        assert module is importlib.import_module(new)
        assert module.__spec__ is not None and module.__spec__.name == new
