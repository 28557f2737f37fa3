#!/usr/bin/env python
"""Build a JupyterLite site of the course (zero install: Python runs in the browser, in Pyodide).

    python tools/lite/build_lite.py --pyodide PATH [--out build/lite]

``PATH`` is a Pyodide distribution folder (it holds ``pyodide.mjs`` and ``pyodide-lock.json``). The lessons'
figures need numpy, matplotlib and pillow built for WebAssembly, which only Pyodide's *full* distribution
carries; the core distribution from the npm package ``pyodide`` runs coursekit's pure modules and builds the
site, but cannot draw. coursekit's own wheel is built from this checkout; the pure wheels it needs in the
browser (ipywidgets and comm) are taken from the package index at the versions installed here, the only
download. The site itself then runs offline: Pyodide, the wheels and the notebooks are all in it.

Every lesson except lesson 8 (PyTorch has no WebAssembly build) is copied in, zh and en, with one cell
first that installs coursekit from the site, and only under Pyodide (``sys.platform == "emscripten"``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1].parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from coursekit.lessons import LESSONS  # noqa: E402

LANGS = ("zh", "en")
#: Lessons that cannot run in the browser: the registry's lessons that need PyTorch (lesson 8 measures with
#: PyTorch processes).
EXCLUDED_LESSONS = tuple(entry.stem for entry in LESSONS if entry.needs == "PyTorch")
#: The Pyodide core the tests run coursekit's pure modules on (npm package; no numpy or matplotlib in it).
PYODIDE_CORE_NPM = "pyodide@314.0.7"
#: Pure-Python wheels coursekit needs in the browser that Pyodide does not carry.
BROWSER_WHEELS = ("ipywidgets", "comm")
INSTALL_CELL = (
    "# 仅在浏览器中（JupyterLite / Pyodide）运行：从本站安装 coursekit。\n"
    "# Runs only in the browser (JupyterLite / Pyodide): installs coursekit from this site.\n"
    "import sys\n"
    "\n"
    'if sys.platform == "emscripten":\n'
    "    import piplite\n"
    "\n"
    '    await piplite.install(["coursekit"])'
)


def install_cell() -> dict[str, Any]:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": "coursekit-lite-install",
        "metadata": {"tags": ["lite-install"]},
        "outputs": [],
        "source": INSTALL_CELL,
    }


def lite_notebooks() -> list[tuple[str, Path]]:
    """(language, path) of every lesson that runs in the browser."""
    return [
        (lang, path)
        for lang in LANGS
        for path in sorted((ROOT / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb"))
        if ".mine" not in path.name and path.stem not in EXCLUDED_LESSONS
    ]


def check_pyodide(folder: Path) -> None:
    missing = [
        name for name in ("pyodide.mjs", "pyodide-lock.json", "python_stdlib.zip") if not (folder / name).is_file()
    ]
    if missing:
        raise ValueError(f"--pyodide {folder}: not a Pyodide distribution (missing {', '.join(missing)})")


def wheels(into: Path) -> list[Path]:
    """coursekit's wheel, built from this checkout, and the pure wheels it needs in the browser (installed versions)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "--disable-pip-version-check",
            "-w",
            str(into),
            str(ROOT),
        ],
        check=True,
    )
    from importlib.metadata import version

    specs = [f"{name}=={version(name)}" for name in BROWSER_WHEELS]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "-q",
            "--disable-pip-version-check",
            "-d",
            str(into),
            *specs,
        ],
        check=True,
    )
    return sorted(into.glob("*.whl"))


def build(pyodide: Path, out: Path) -> dict[str, Any]:
    """Stage the lite folder and run ``jupyter lite build``; returns what went in."""
    check_pyodide(pyodide)
    with tempfile.TemporaryDirectory(prefix="coursekit-lite-") as tmp:
        stage = Path(tmp)
        shutil.copytree(pyodide, stage / "static" / "pyodide")  # the "well-known" place jupyterlite looks
        content = stage / "content"
        copied = []
        for lang, path in lite_notebooks():
            notebook = json.loads(path.read_text(encoding="utf-8"))
            notebook["cells"].insert(0, install_cell())
            target = content / "notebooks" / lang / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(notebook, ensure_ascii=False, indent=1), encoding="utf-8")
            copied.append(f"{lang}/{path.name}")
        for lang in LANGS:  # the glossary notebook every lesson links to (markdown only: nothing to install)
            shutil.copyfile(
                ROOT / "notebooks" / lang / "glossary.ipynb", content / "notebooks" / lang / "glossary.ipynb"
            )
        (content / "docs").mkdir()
        shutil.copyfile(ROOT / "docs" / "GLOSSARY.md", content / "docs" / "GLOSSARY.md")
        built = wheels(stage / "wheels")
        if out.exists():
            shutil.rmtree(out)
        command = [sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", str(stage)]
        command += ["--contents", str(content), "--output-dir", str(out)]
        for wheel in built:
            command += ["--piplite-wheels", str(wheel)]
        subprocess.run(command, check=True, cwd=stage)
    return {"notebooks": copied, "wheels": [w.name for w in built]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the course as a JupyterLite site.")
    parser.add_argument("--pyodide", type=Path, required=True, help="a Pyodide distribution folder")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "lite", help="output folder (default build/lite)")
    args = parser.parse_args(argv)
    try:
        summary = build(args.pyodide.resolve(), args.out.resolve())
    except ValueError as exc:
        print(f"build_lite: {exc}", file=sys.stderr)
        return 2
    print(f"JupyterLite site: {args.out / 'index.html'} ({len(summary['notebooks'])} notebooks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
