"""The website build's lesson cache (tools/site/execute_lessons.py): a lesson is executed again when the
library it imports changes, or the notebook does, and not otherwise; a failing lesson fails the build."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "site"))

import execute_lessons  # noqa: E402

pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


def notebook(*sources: str) -> dict[str, object]:
    return {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [], "source": s}
            for i, s in enumerate(sources)
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def printed(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "".join("".join(out.get("text", "")) for cell in cells for out in cell["outputs"])


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-module package the notebooks import, on the kernels' PYTHONPATH."""
    package = tmp_path / "lib" / "ck_cache_probe"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(package.parent), os.environ.get("PYTHONPATH")])))
    return package


def run(tmp_path: Path, package: Path, source: dict[str, object]) -> tuple[dict[str, object], str]:
    """Stage ``source`` (outputs empty, as the site builder writes it), execute it with the cache."""
    staged = tmp_path / "staged" / "lesson.ipynb"
    staged.parent.mkdir(exist_ok=True)
    staged.write_text(json.dumps(source), encoding="utf-8")
    report = execute_lessons.execute(
        [staged], jobs=1, cache=tmp_path / "cache", names={staged: "lesson"}, package=package
    )
    return report["lesson"], printed(staged)


def test_a_library_change_executes_the_lesson_again(tmp_path: Path, library: Path) -> None:
    source = notebook("import ck_cache_probe\nprint(ck_cache_probe.VALUE)")
    first, text = run(tmp_path, library, source)
    assert (first["cached"], text) == (False, "1\n")
    again, text = run(tmp_path, library, source)
    assert (again["cached"], text) == (True, "1\n")  # unchanged: the executed copy, not a new run
    (library / "__init__.py").write_text("VALUE = 2\n", encoding="utf-8")
    changed, text = run(tmp_path, library, source)
    assert (changed["cached"], text) == (False, "2\n")  # the kernel saw the new source


def test_a_notebook_change_executes_it_again(tmp_path: Path, library: Path) -> None:
    assert run(tmp_path, library, notebook("print(6 * 7)"))[0]["cached"] is False
    assert run(tmp_path, library, notebook("print(6 * 7)"))[0]["cached"] is True
    rerun, text = run(tmp_path, library, notebook("print(6 * 8)"))
    assert (rerun["cached"], text) == (False, "48\n")
    # the lesson's earlier version is dropped from the cache, the current one kept
    entries = list((tmp_path / "cache").glob("*/lesson.*.ipynb"))
    assert len(entries) == 1


def test_the_key_covers_every_file_of_the_library(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "data" / "table.json").write_text("[1]", encoding="utf-8")
    env = dict(os.environ)
    before = execute_lessons.environment_digest(package, env)
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")  # Python's own cache: no change
    assert execute_lessons.environment_digest(package, env) == before
    (package / "data" / "table.json").write_text("[2]", encoding="utf-8")  # data the lessons read
    assert execute_lessons.environment_digest(package, env) != before


def test_a_failing_lesson_fails_the_build_naming_it(tmp_path: Path, library: Path) -> None:
    with pytest.raises(execute_lessons.ExecutionFailed, match=r"(?s)lesson\.ipynb.*ZeroDivisionError"):
        run(tmp_path, library, notebook("1 / 0"))
    assert not list((tmp_path / "cache").glob("*/lesson.*.ipynb"))  # nothing cached for it
