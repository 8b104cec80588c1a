"""The layout rules of docs/architecture.md, checked on the source: layers only import
downwards, environments and strategies never import a sibling, no import cycles, no private
name imported from another module, no module over 300 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).parent.parent / "src"
PACKAGE = SRC / "readi_graph"
# Each layer may import the layers after it, never the ones before it.
LAYERS = ["cli", "eval", "datasets", "strategies", "environments", "core"]


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(path: Path, *, top_level_only: bool) -> list[tuple[str, list[str]]]:
    """(module, names) imported by a file; `top_level_only` skips imports inside functions
    and `if TYPE_CHECKING:` blocks (they cannot make an import cycle)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                inner = True
            if (
                isinstance(child, ast.ImportFrom)
                and child.module
                and not (top_level_only and nested)
            ):
                found.append((child.module, [a.name for a in child.names]))
            elif isinstance(child, ast.Import) and not (top_level_only and nested):
                found.extend((a.name, []) for a in child.names)
            visit(child, inner)

    visit(tree, False)
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


def test_no_module_is_over_300_lines() -> None:
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > 300}
    assert not long


def test_layers_import_downwards_and_units_never_import_a_sibling() -> None:
    wrong = []
    for name, path in MODULES.items():
        layer, unit = area(name)
        for module, names in imports(path, top_level_only=False):
            for target in targets(module, names):
                other_layer, other_unit = area(target)
                if layer in LAYERS and other_layer in LAYERS:
                    if LAYERS.index(other_layer) < LAYERS.index(layer):
                        wrong.append(f"{name} imports {target} (a layer above)")
                    elif other_layer == layer and unit and other_unit and unit != other_unit:
                        wrong.append(f"{name} imports {target} (a sibling)")
    assert not wrong, "\n".join(wrong)


def test_no_private_name_is_imported_from_another_module() -> None:
    wrong = [
        f"{name} imports {n} from {module}"
        for name, path in MODULES.items()
        for module, names in imports(path, top_level_only=False)
        for n in names
        if n.startswith("_") and not n.startswith("__")
    ]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles() -> None:
    graph = {
        name: {
            t
            for module, names in imports(path, top_level_only=True)
            for t in targets(module, names)
            if t in MODULES and t != name
        }
        for name, path in MODULES.items()
    }
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


# What strategies may not import: the KG's query text, IRI checks, relation index and raw
# reads. They explore a KG through `environments/kg/explore.py` (`Explorer`).
KG_INTERNALS = {
    "readi_graph.environments.kg." + name for name in ("sparql", "retrieval", "encoder", "reads")
}


def test_strategies_explore_a_kg_through_its_public_interface() -> None:
    wrong = [
        f"{name} imports {target}"
        for name, path in MODULES.items()
        if area(name)[0] == "strategies"
        for module, names in imports(path, top_level_only=False)
        for target in targets(module, names)
        if target in KG_INTERNALS
    ]
    assert not wrong, "\n".join(wrong)
