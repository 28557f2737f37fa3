"""The import graph keeps the layers of ARCHITECTURE.md: read from the source (AST), imports inside functions count.

The layer list lives in :mod:`coursekit._layers`; ARCHITECTURE.md shows it and is checked to agree.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coursekit._layers import KERNEL_MODULES, LAYERS, is_kernel_module, layer_of

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "coursekit"


def _module_files() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = _module_files()


def _imports(module: str) -> list[tuple[str, str, int]]:
    """(imported module, imported name or "", line) for every import of ``module``, at any depth of the AST."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: list[tuple[str, str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, "", node.lineno) for alias in node.names if alias.name.startswith("coursekit"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith("coursekit"):
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in MODULES:
                    found.append((submodule, "", node.lineno))
                else:
                    found.append((source, alias.name, node.lineno))
    return found


GRAPH: dict[str, set[str]] = {
    module: {target for target, _name, _line in _imports(module) if target in MODULES and target != module}
    for module in MODULES
}


def test_every_module_is_in_a_layer() -> None:
    missing = []
    for module in MODULES:
        try:
            layer_of(module)
        except ValueError:
            missing.append(module)
    assert not missing


def test_imports_go_down_or_sideways_never_up() -> None:
    upward = [
        f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for module, targets in GRAPH.items()
        for target in targets
        if layer_of(target) > layer_of(module)
    ]
    assert not upward, "\n".join(upward)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module, or a module importing itself (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for vertex in sorted(graph):
        if vertex not in index:
            visit(vertex)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_counting_imports_inside_functions() -> None:
    assert _cycles(GRAPH) == []


def _own_package(module: str, source: str) -> bool:
    """True when ``module`` is a package's ``__init__`` and ``source`` one of its submodules."""
    return MODULES[module].name == "__init__.py" and source.startswith(module + ".")


def test_private_names_come_only_from_kernel_modules() -> None:
    crossing = [
        f"{module}:{line} imports {name} from {source}"
        for module in MODULES
        for source, name, line in _imports(module)
        if name.startswith("_")
        and source != module
        and not is_kernel_module(source)
        and not _own_package(module, source)
    ]
    assert not crossing, "\n".join(crossing)


@pytest.mark.parametrize("entry", ["coursekit.serving", "coursekit.specs", "coursekit.capacity"])
def test_importing_a_lower_layer_loads_no_planner_module(entry: str) -> None:
    code = f"import sys, json, {entry}\nprint(json.dumps(sorted(m for m in sys.modules if 'planner' in m)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert json.loads(out) == []


# --------------------------------------------------------------------------- ARCHITECTURE.md agrees


def _doc_layers() -> list[tuple[str, list[str]]]:
    """(layer, modules) of each row of ARCHITECTURE.md's layer table, top row first."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        match = re.match(r"^\| *(\d+) *\| *([a-z]+) *\| *(.+?) *\|", line)
        if match:
            modules = re.findall(r"`([a-z0-9_.*]+)`", match.group(3))
            rows.append((int(match.group(1)), match.group(2), modules))
    return [(name, modules) for _number, name, modules in sorted(rows)]


def test_architecture_md_shows_the_layers_of_the_list() -> None:
    assert _doc_layers() == [(name, list(patterns)) for name, patterns, _rule in LAYERS]


def test_architecture_md_states_each_layer_rule_and_the_kernel_modules() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for _name, _patterns, rule in LAYERS:
        assert rule in text
    kernel_line = next(line for line in text.splitlines() if line.startswith("Kernel modules:"))
    assert re.findall(r"`([a-z0-9_.*]+)`", kernel_line) == list(KERNEL_MODULES)
