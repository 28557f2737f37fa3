"""`make lite`: the course as a JupyterLite site, and coursekit's pure modules on Pyodide.

What can be tested here, with the Pyodide *core* from the npm package (the full distribution, which has
numpy and matplotlib for WebAssembly, cannot be fetched here): the build (notebooks without lesson 8, each
starting with a Pyodide-only install cell; coursekit's wheel in the site's package index; Pyodide served
from the site), and a Node-driven Pyodide run of every doctest of coursekit, where only doctests that stop
at numpy, matplotlib, ipywidgets or torch may be left undone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import coursekit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "lite"))

import build_lite  # noqa: E402

IN_CI = os.environ.get("CI", "").lower() in ("true", "1")
#: What only Pyodide's full distribution (or nothing, for torch) provides.
FULL_DISTRIBUTION = {"numpy", "matplotlib", "ipywidgets", "torch"}
#: Modules whose doctests must all run on the Pyodide core: the course's formulas.
PURE_MODULES = (
    "i18n",
    "units",
    "_validate",
    "capacity",
    "communication",
    "gates",
    "composition",
    "glossary",
    "hardware",
    "pipeline",
    "scaling",
    "matrix",
    "shapes",
    "strategies",
)


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        if IN_CI:
            pytest.fail(f"{tool} is needed for the JupyterLite tests")
        pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="module")
def pyodide_core(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The npm package's Pyodide core (a local override: COURSEKIT_PYODIDE_DIR)."""
    override = os.environ.get("COURSEKIT_PYODIDE_DIR")
    if override:
        return Path(override)
    _need("npm")
    prefix = tmp_path_factory.mktemp("pyodide-npm")
    subprocess.run(
        ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--silent", build_lite.PYODIDE_CORE_NPM],
        check=True,
        capture_output=True,
    )
    return prefix / "node_modules" / "pyodide"


@pytest.fixture(scope="module")
def lite(pyodide_core: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("jupyterlite_core", reason="pip install -e '.[lite]'")
    out = tmp_path_factory.mktemp("lite") / "lite"
    build_lite.build(pyodide_core, out)
    return out


def test_site_serves_pyodide_and_coursekit(lite: Path) -> None:
    assert (lite / "index.html").is_file() and (lite / "lab" / "index.html").is_file()
    config = json.loads((lite / "jupyter-lite.json").read_text(encoding="utf-8"))
    options = config["jupyter-config-data"]["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert options["pyodideUrl"] == "./static/pyodide/pyodide.mjs"
    assert (lite / "static" / "pyodide" / "pyodide.mjs").is_file()
    index = json.loads((lite / "pypi" / "all.json").read_text(encoding="utf-8"))
    assert coursekit.__version__ in index["coursekit"]["releases"]
    assert {"ipywidgets", "comm"} <= set(index)


def test_lessons_without_lesson_8_each_with_a_pyodide_only_install_cell(lite: Path) -> None:
    for lang in ("zh", "en"):
        expected = sorted(
            p.name
            for p in (ROOT / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb")
            if ".mine" not in p.name and not p.name.startswith("08_")
        )
        folder = lite / "files" / "notebooks" / lang
        assert sorted(p.name for p in folder.glob("*.ipynb")) == sorted([*expected, "glossary.ipynb"])
        for name in expected:
            cells = json.loads((folder / name).read_text(encoding="utf-8"))["cells"]
            first = "".join(cells[0]["source"])
            assert 'if sys.platform == "emscripten":' in first and "piplite.install" in first
            original = json.loads((ROOT / "notebooks" / lang / name).read_text(encoding="utf-8"))["cells"]
            assert cells[1:] == original


def test_install_cell_does_nothing_outside_pyodide() -> None:
    source = build_lite.INSTALL_CELL
    import ast

    tree = ast.parse(source.replace("await ", ""))  # top-level await is fine in a notebook, not in ast.parse
    namespace: dict[str, object] = {}
    exec(compile(tree, "<install cell>", "exec"), namespace)  # on CPython the branch is skipped
    assert "piplite" not in namespace


def test_bad_pyodide_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a Pyodide distribution"):
        build_lite.build(tmp_path, tmp_path / "out")


def test_coursekit_doctests_pass_on_pyodide(lite: Path, pyodide_core: Path) -> None:
    _need("node")
    (wheel,) = (lite / "pypi").glob("coursekit-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert "coursekit/capacity.py" in archive.namelist()
    run = subprocess.run(
        ["node", str(ROOT / "tools" / "lite" / "pyodide_doctest.mjs"), str(pyodide_core), str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(run.stdout)
    assert report["platform"] == "emscripten"
    failures = {name: r["failures"] for name, r in report["modules"].items() if r["failures"]}
    assert not failures and run.returncode == 0, failures
    for name in PURE_MODULES:
        result = report["modules"][f"coursekit.{name}"]
        assert result["needs"] == [] and result["attempted"] > 0, name
    needs = {need for r in report["modules"].values() for need in r["needs"]}
    assert needs <= FULL_DISTRIBUTION, needs
