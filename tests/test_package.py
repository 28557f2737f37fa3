"""Package-level promises: a light import, and every public name resolves."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import coursekit


def _fresh_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout


def test_import_does_not_pull_plotting_or_widgets() -> None:
    heavy = ["matplotlib", "ipywidgets", "numpy", "torch", "IPython"]
    out = _fresh_python(f"import sys, json, coursekit\nprint(json.dumps([m for m in {heavy!r} if m in sys.modules]))")
    assert json.loads(out) == []


@pytest.mark.parametrize("name", coursekit.__all__)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(coursekit, name) is not None


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        coursekit.nonsense  # noqa: B018


def test_language_from_environment() -> None:
    out = _fresh_python("import coursekit; print(coursekit.get_language())")
    assert out.strip() in ("zh", "en")
    zh = subprocess.run(
        [sys.executable, "-c", "import coursekit; print(coursekit.get_language())"],
        check=True,
        capture_output=True,
        text=True,
        env={"COURSEKIT_LANG": "zh", "PATH": ""},
    ).stdout
    assert zh.strip() == "zh"


def test_no_public_name_is_claimed_by_two_modules() -> None:
    seen: dict[str, str] = {}
    whole = {
        module: tuple(importlib.import_module(f"coursekit.{module}").__all__) for module in coursekit._WHOLE_MODULES
    }
    for module, names in {**coursekit._MODULE_EXPORTS, **whole}.items():
        for name in names:
            assert name not in seen, f"{name} is exported by both {seen[name]} and {module}"
            seen[name] = module


def test_a_whole_module_is_exported_from_its_own_list_and_loaded_on_first_use() -> None:
    code = (
        "import sys, json, coursekit\n"
        "before = 'coursekit.serving' in sys.modules\n"
        "names = set(coursekit.__all__)\n"
        "print(json.dumps([before, sorted(set(sys.modules['coursekit.serving'].__all__) - names)]))"
    )
    assert json.loads(_fresh_python(code)) == [False, []]
