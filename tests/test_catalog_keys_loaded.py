"""A message a module renders is registered by a module that importing it loads.

coursekit loads its subpackages lazily, so a catalog key written in one module and registered in another only
works when something else happened to import the registering module first: `from coursekit.planner import plan`
followed by a rejected candidate's reason then fails with "no message with this key". The check is static: for
every module, the catalog keys it names as string literals must be registered (``register({...})``) in the
module itself or in a module its imports load (transitively, with the parent packages' ``__init__``; an import
inside a function counts, since such a function imports before it renders).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "coursekit"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


FILES: dict[str, Path] = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


@cache
def _tree(module: str) -> ast.Module:
    return ast.parse(FILES[module].read_text(encoding="utf-8"))


def _is_package(module: str) -> bool:
    return FILES[module].name == "__init__.py"


def _resolve(module: str, node: ast.ImportFrom) -> list[str]:
    """The coursekit modules a ``from ... import ...`` at module level loads."""
    if node.level:
        base = module.split(".") if _is_package(module) else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    found = [prefix] if prefix in FILES else []
    for alias in node.names:
        candidate = f"{prefix}.{alias.name}"
        if candidate in FILES:
            found.append(candidate)
    return found


def _imports(module: str) -> set[str]:
    """Modules ``module`` imports, at module level or inside a function (a function imports what it renders
    before it renders it, e.g. the serving wording in a serving plan), but not for type checking only."""
    checking_only = {
        id(statement)
        for node in _tree(module).body
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
    }
    loaded: set[str] = set()
    for statement in ast.walk(_tree(module)):
        if id(statement) in checking_only:
            continue
        if isinstance(statement, ast.ImportFrom):
            loaded.update(_resolve(module, statement))
        elif isinstance(statement, ast.Import):
            loaded.update(alias.name for alias in statement.names if alias.name in FILES)
    return loaded


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) in FILES]


@cache
def _loaded_by(module: str) -> frozenset[str]:
    """Every coursekit module importing ``module`` loads (itself included)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo.extend(_imports(current))
        todo.extend(_parents(current))
    return frozenset(seen)


def _registered(module: str) -> set[str]:
    keys: set[str] = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in ("register", "_register_messages"):
            if node.args and isinstance(node.args[0], ast.Dict):
                keys.update(
                    k.value for k in node.args[0].keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
                )
    return keys


REGISTERED_IN: dict[str, str] = {key: module for module in FILES for key in _registered(module)}


def _keys_named(module: str) -> set[str]:
    registered_here = _registered(module)
    return {
        node.value
        for node in ast.walk(_tree(module))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in REGISTERED_IN
        and node.value not in registered_here
    }


def test_the_check_sees_the_catalog() -> None:
    assert len(REGISTERED_IN) > 500
    assert REGISTERED_IN["validate.ge"] == "coursekit.i18n"


@pytest.mark.parametrize("module", sorted(FILES))
def test_every_key_a_module_names_is_registered_by_what_it_loads(module: str) -> None:
    loaded = _loaded_by(module)
    missing = {key: REGISTERED_IN[key] for key in _keys_named(module) if REGISTERED_IN[key] not in loaded}
    assert not missing, f"{module} names keys registered in modules it does not load: {missing}"
