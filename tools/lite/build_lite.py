#!/usr/bin/env python
"""Build a JupyterLite site of the course (zero install: Python runs in the browser, in Pyodide).

    python tools/lite/build_lite.py --pyodide PATH [--out build/lite]

``PATH`` is a Pyodide distribution folder (it holds ``pyodide.mjs`` and ``pyodide-lock.json``). Two kinds work:

- the *core* distribution (the npm package ``pyodide``, see ``PYODIDE_CORE_NPM``) carries the interpreter and
  its lock file but none of the package wheels the lock lists. The JupyterLite kernel needs some of them to
  start (micropip, then IPython and jedi with their dependencies, all pure Python): the build downloads those
  wheels from the package index at the versions the lock pins (``pip download --no-deps``), puts them next to
  Pyodide in the site and records their sha256 in the site's copy of the lock. coursekit is then installed
  without its dependencies: its pure modules run, its figures and widgets do not (no numpy, no matplotlib).
- the *full* distribution (a Pyodide release archive) carries every wheel of its lock, numpy and matplotlib
  among them; nothing is downloaded for it and coursekit is installed with its dependencies.

coursekit's own wheel is built from this checkout; the pure wheels it needs in the browser that Pyodide does not
carry (ipywidgets, comm, jupyterlab_widgets) are taken from the package index at the versions installed here.
The site itself then runs offline: Pyodide, the wheels and the notebooks are all in it.

Every lesson except lesson 8 (PyTorch has no WebAssembly build) is copied in, zh and en, with one cell
first that installs coursekit from the site, and only under Pyodide (``sys.platform == "emscripten"``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
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
#: Pure-Python wheels coursekit needs in the browser that Pyodide does not carry (ipywidgets' own dependencies
#: comm and jupyterlab_widgets included; widgetsnbextension comes with the JupyterLite kernel as a stub).
BROWSER_WHEELS = ("ipywidgets", "comm", "jupyterlab_widgets")
#: What the JupyterLite Pyodide kernel loads from Pyodide's lock when it starts: micropip (``loadPackage``), then
#: IPython and jedi (through piplite, which takes a package from the lock when the lock lists it). Their
#: dependencies follow from the lock.
KERNEL_PACKAGES = ("micropip", "ipython", "jedi")
#: Packages only the full distribution carries (compiled for WebAssembly); coursekit's figures need them.
FULL_DISTRIBUTION_PACKAGES = ("numpy", "matplotlib")
_HEADER = (
    "# 仅在浏览器中（JupyterLite / Pyodide）运行：从本站安装 coursekit。\n"
    "# Runs only in the browser (JupyterLite / Pyodide): installs coursekit from this site.\n"
    "import sys\n"
    "\n"
    'if sys.platform == "emscripten":\n'
    "    import piplite\n"
    "\n"
)
#: The install cell of a site built on the full distribution: coursekit with numpy, matplotlib and ipywidgets.
INSTALL_CELL = _HEADER + '    await piplite.install(["coursekit"])'
#: The install cell of a site built on the core distribution, which has no numpy or matplotlib.
INSTALL_CELL_CORE = (
    _HEADER
    + "    # 本站的 Pyodide 是核心发行版，没有 numpy 与 matplotlib：只安装 coursekit 本身，\n"
    + "    # 它的纯 Python 模块可以运行，图与控件不能。\n"
    + "    # This site's Pyodide is the core distribution, without numpy or matplotlib: coursekit alone is installed;\n"
    + "    # its pure-Python modules run, its figures and widgets do not.\n"
    + '    await piplite.install(["coursekit"], deps=False)'
)


def install_cell(full: bool = True) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": "coursekit-lite-install",
        "metadata": {"tags": ["lite-install"]},
        "outputs": [],
        "source": INSTALL_CELL if full else INSTALL_CELL_CORE,
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


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_closure(lock: dict[str, Any], roots: tuple[str, ...]) -> list[dict[str, Any]]:
    """The lock's entries for ``roots`` and everything they depend on, per the lock."""
    packages = {_canonical(name): entry for name, entry in lock["packages"].items()}
    seen: dict[str, dict[str, Any]] = {}
    todo = [_canonical(name) for name in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in packages:
            raise ValueError(f"the Pyodide lock lists no package {name!r}")
        seen[name] = packages[name]
        todo += [_canonical(dep) for dep in packages[name]["depends"]]
    return [seen[name] for name in sorted(seen)]


def is_full(folder: Path) -> bool:
    """Whether the distribution carries the wheels of numpy and matplotlib (the full one does, the core not)."""
    lock = json.loads((folder / "pyodide-lock.json").read_text(encoding="utf-8"))
    return all((folder / entry["file_name"]).is_file() for entry in lock_closure(lock, FULL_DISTRIBUTION_PACKAGES))


def bundle_kernel_packages(folder: Path) -> list[str]:
    """Put into ``folder`` (the site's copy of Pyodide) the kernel's wheels its lock lists but it does not carry.

    They are all pure Python: each is downloaded from the package index at the version the lock pins, and the
    lock's entry is pointed at the downloaded file and its sha256 (Pyodide checks it; its own builds of these
    wheels differ byte for byte from the index's). Returns the file names added.
    """
    lock_path = folder / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text(encoding="utf-8"))
    missing = [entry for entry in lock_closure(lock, KERNEL_PACKAGES) if not (folder / entry["file_name"]).is_file()]
    compiled = [entry["file_name"] for entry in missing if not entry["file_name"].endswith("-none-any.whl")]
    if compiled:
        raise ValueError(f"--pyodide {folder}: lacks compiled wheels the kernel needs: {', '.join(compiled)}")
    if not missing:
        return []
    python = ".".join(lock["info"]["python"].split(".")[:2])
    with tempfile.TemporaryDirectory(prefix="coursekit-lite-kernel-") as tmp:
        download = Path(tmp)
        _pip_download(download, [f"{entry['name']}=={entry['version']}" for entry in missing], python)
        wheels, added = list(download.glob("*.whl")), []
        for entry in missing:
            (wheel,) = (path for path in wheels if _canonical(path.name.split("-")[0]) == _canonical(entry["name"]))
            shutil.copyfile(wheel, folder / wheel.name)
            entry["file_name"] = wheel.name
            entry["sha256"] = hashlib.sha256(wheel.read_bytes()).hexdigest()
            added.append(wheel.name)
    lock_path.write_text(json.dumps(lock), encoding="utf-8")
    return sorted(added)


def _pip_download(into: Path, specs: list[str], python: str | None = None) -> None:
    """``pip download`` pure wheels, without their dependencies (the caller names every one it needs)."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q"]
    command += ["--disable-pip-version-check", "-d", str(into)]
    if python is not None:
        command += ["--python-version", python]
    subprocess.run([*command, *specs], check=True)


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

    _pip_download(into, [f"{name}=={version(name)}" for name in BROWSER_WHEELS])
    return sorted(into.glob("*.whl"))


def build(pyodide: Path, out: Path) -> dict[str, Any]:
    """Stage the lite folder and run ``jupyter lite build``; returns what went in."""
    check_pyodide(pyodide)
    with tempfile.TemporaryDirectory(prefix="coursekit-lite-") as tmp:
        stage = Path(tmp)
        site_pyodide = stage / "static" / "pyodide"  # the "well-known" place jupyterlite looks
        shutil.copytree(pyodide, site_pyodide)
        full = is_full(site_pyodide)
        kernel = bundle_kernel_packages(site_pyodide)
        content = stage / "content"
        copied = []
        for lang, path in lite_notebooks():
            notebook = json.loads(path.read_text(encoding="utf-8"))
            notebook["cells"].insert(0, install_cell(full))
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
    return {"notebooks": copied, "wheels": [w.name for w in built], "kernel_wheels": kernel, "full": full}


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
    kind = "full" if summary["full"] else "core (figures and widgets need the full distribution)"
    print(f"JupyterLite site: {args.out / 'index.html'} ({len(summary['notebooks'])} notebooks; Pyodide {kind})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
