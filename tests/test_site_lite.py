"""`make lite`: the course as a JupyterLite site, and coursekit's pure modules on Pyodide.

What can be tested here, with the Pyodide *core* from the npm package (the full distribution, which has
numpy and matplotlib for WebAssembly, is not on the npm registry and cannot be fetched here): the build
(notebooks without lesson 8, each starting with a Pyodide-only install cell; coursekit's wheel in the site's
package index; Pyodide and the kernel's wheels served from the site), a Node-driven Pyodide run of every
doctest of coursekit, where only doctests that stop at numpy, matplotlib, ipywidgets or torch may be left
undone, and a lesson opened in JupyterLite in Chromium with every non-local request blocked, whose install
cell and a cell using coursekit's capacity formulas run.

The site is built once per session (about a minute and a half; the npm package is fetched once).
"""

from __future__ import annotations

import concurrent.futures
import functools
import http.server
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import Any, ClassVar

import pytest

import coursekit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "lite"))
sys.path.insert(0, str(ROOT / "tools"))

import build_lite  # noqa: E402
import jupyter_browser  # noqa: E402

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


@pytest.fixture(scope="session")
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


@pytest.fixture(scope="session")
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
    assert {"ipywidgets", "comm", "jupyterlab-widgets"} <= set(index)


def test_site_carries_the_kernel_wheels_the_core_distribution_lacks(lite: Path, pyodide_core: Path) -> None:
    """micropip, IPython, jedi and their dependencies: in the site, at the lock's versions, with their hashes."""
    import hashlib

    original = json.loads((pyodide_core / "pyodide-lock.json").read_text(encoding="utf-8"))["packages"]
    site = lite / "static" / "pyodide"
    lock = json.loads((site / "pyodide-lock.json").read_text(encoding="utf-8"))["packages"]
    # What JupyterLite's kernel loads when it starts (jupyterlite-pyodide-kernel's worker), and their lock closure.
    for name in ("micropip", "ipython", "jedi", "parso", "traitlets", "pygments", "prompt-toolkit"):
        entry = lock[name]
        wheel = site / entry["file_name"]
        assert wheel.is_file() and not (pyodide_core / original[name]["file_name"]).exists(), name
        assert entry["version"] == original[name]["version"], name
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"], name
    assert not (site / lock["numpy"]["file_name"]).exists()  # the core: nothing compiled is added


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


@pytest.mark.parametrize("source", [build_lite.INSTALL_CELL, build_lite.INSTALL_CELL_CORE], ids=["full", "core"])
def test_install_cell_does_nothing_outside_pyodide(source: str) -> None:
    import ast

    tree = ast.parse(source.replace("await ", ""))  # top-level await is fine in a notebook, not in ast.parse
    namespace: dict[str, object] = {}
    exec(compile(tree, "<install cell>", "exec"), namespace)  # on CPython the branch is skipped
    assert "piplite" not in namespace


def test_core_site_installs_coursekit_alone(lite: Path) -> None:
    """The core distribution has no numpy: asking piplite for coursekit's dependencies would fail offline."""
    cells = json.loads((lite / "files" / "notebooks" / "en" / "01_capacity.ipynb").read_text(encoding="utf-8"))
    assert "".join(cells["cells"][0]["source"]) == build_lite.INSTALL_CELL_CORE
    assert 'piplite.install(["coursekit"], deps=False)' in build_lite.INSTALL_CELL_CORE


#: Runs a notebook's code cells the way the core distribution would: the packages only the full one carries cannot
#: be imported. The Colab install cell (IPython syntax, and a no-op off Colab) is left out. Prints one JSON object:
#: how many code cells ran, and each failing cell's error.
_CORE_RUN = """
import json, sys
for name in ("numpy", "matplotlib", "PIL", "ipywidgets", "torch"):
    sys.modules[name] = None  # import raises ModuleNotFoundError, as on the core distribution
cells = json.load(open(sys.argv[1], encoding="utf-8"))["cells"]
namespace, ran, errors = {"__name__": "__main__"}, 0, []
for cell in cells:
    if cell["cell_type"] == "code" and "colab-install" not in cell["metadata"].get("tags", []):
        try:
            exec(compile("".join(cell["source"]), "<cell>", "exec"), namespace)
            ran += 1
        except Exception as exc:
            errors.append([type(exc).__name__, getattr(exc, "name", None)])
print(json.dumps({"ran": ran, "errors": errors}))
"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_lesson_1_runs_on_the_core_distribution_but_its_widget(lang: str) -> None:
    """The README's claim: every cell of lesson 1 runs without numpy, matplotlib or ipywidgets but the widget's."""
    path = ROOT / "notebooks" / lang / "01_capacity.ipynb"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", _CORE_RUN, str(path)], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    # The cell importing the widget stops at ipywidgets; the cell showing it then lacks the widget's class.
    assert report["errors"] == [["ModuleNotFoundError", "ipywidgets"], ["NameError", "CapacityWidget"]], report
    assert report["ran"] > 10, report  # the ledgers, tables and exercises before and after the widget


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
        assert result["attempted"] > 0, name
        # Only array-generic private helpers (the planner's vectorised search calls them) may use numpy.
        public = [test for test in result["needs_in"] if not test.rsplit(".", 1)[-1].startswith("_")]
        assert public == [], (name, public)
    needs = {need for r in report["modules"].values() for need in r["needs"]}
    assert needs <= FULL_DISTRIBUTION, needs


class _Handler(http.server.SimpleHTTPRequestHandler):
    """A static file server with the types a browser insists on for ES modules and WebAssembly."""

    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass


#: ZeRO (Rajbhandari et al., SC 2020), section 5 and Figure 1: a 7.5e9-parameter model trained with mixed-precision
#: Adam (2 + 2 + 12 bytes per parameter) on N_d = 64 data-parallel ranks. Stage 1 keeps weights and gradients whole
#: and shards the optimizer states: 2*7.5e9 + 2*7.5e9 + 12*7.5e9/64 = 31.40625e9 bytes (the paper's 31.4 GB).
#: Stage 3 shards all three: (2 + 2 + 12) * 7.5e9 / 64 = 1.875e9 bytes (the paper's 1.9 GB).
ZERO_STAGE_1_BYTES = 2 * 7.5e9 + 2 * 7.5e9 + 12 * 7.5e9 / 64
ZERO_STAGE_3_BYTES = 16 * 7.5e9 / 64
PROBE_CELL = (
    "from coursekit.capacity import training_state_memory as tsm; "
    "print('probe', sys.platform, tsm(7.5e9, dp=64, zero_stage=1).total_bytes, "
    "tsm(7.5e9, dp=64, zero_stage=3).total_bytes)"
)


def _run_cell(page: Any, cell: Any, timeout_s: float) -> str:
    """Run ``cell`` and wait until it has run; returns its prompt, e.g. ``[1]:``.

    A cell run before the notebook's session has its kernel is not run at all (its prompt stays ``[ ]:``, or
    JupyterLab asks which kernel to use): then it is run again, or the dialog's default kernel is accepted. Once
    the kernel has it (``[*]:``), the kernel runs it after it has started.
    """
    prompt = cell.locator(".jp-InputPrompt")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = prompt.inner_text(timeout=300_000).strip()
        if re.fullmatch(r"\[\d+\]:", text):
            return str(text)
        dialog = page.locator(".jp-Dialog .jp-mod-accept")
        if dialog.count():  # run too early, JupyterLab asks which kernel: its default is the site's Pyodide kernel
            dialog.first.click()
        elif text in ("", "[ ]:"):
            cell.locator(".jp-InputArea-editor").click()
            page.keyboard.press("Shift+Enter")
        page.wait_for_timeout(3000)
    raise AssertionError(f"the cell did not run within {timeout_s} s (prompt {prompt.inner_text()!r})")


def test_lesson_runs_in_chromium_offline(lite: Path) -> None:
    """Open lesson 1 in JupyterLite with every non-local request blocked; its install cell and a capacity cell run.

    The kernel starts from the site alone (micropip, IPython and jedi from the site's copy of Pyodide), the first
    cell installs coursekit from the site's package index, and a cell added after it computes ZeRO's per-rank
    memory in the browser. Timeouts are generous: on two shared cores the kernel takes minutes to start.
    """
    if jupyter_browser.chromium_path() is None:
        _need("chromium")
    playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(lite)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    blocked: list[str] = []
    failed: list[str] = []

    def only_local(route: object) -> None:
        url = route.request.url  # type: ignore[attr-defined]
        if url.startswith(base):
            route.continue_()  # type: ignore[attr-defined]
        else:
            blocked.append(url)
            route.abort()  # type: ignore[attr-defined]

    # Playwright's sync API refuses a thread whose asyncio loop runs (the JupyterLab browser tests keep one for the
    # session): drive this browser from a worker thread of its own.
    def drive() -> list[str]:
        with playwright_api.sync_playwright() as playwright:
            # Besides the route below, a dead proxy for everything but loopback: requests a service worker or a
            # web worker makes, which page routes may not see, cannot leave the machine either.
            args = [
                *jupyter_browser.CHROMIUM_ARGS,
                "--proxy-server=http://127.0.0.1:9",
                "--proxy-bypass-list=127.0.0.1",
            ]
            browser = playwright.chromium.launch(
                executable_path=jupyter_browser.chromium_path(), args=args, headless=True
            )
            try:
                context = browser.new_context()
                context.route("**/*", only_local)
                page = context.new_page()
                page.on("requestfailed", lambda request: failed.append(request.url))
                # The block works: a package index is out of reach from this page.
                reached = page.evaluate(
                    "url => fetch(url).then(() => true, () => false)", "https://pypi.org/simple/micropip/"
                )
                assert reached is False
                blocked.clear()
                failed.clear()
                page.goto(base + "lab/index.html?path=notebooks/en/01_capacity.ipynb")
                cells = page.locator(".jp-Notebook .jp-Cell")
                install = cells.first
                _run_cell(page, install, timeout_s=900)  # the kernel starts first: minutes on two shared cores
                assert install.locator(".jp-OutputArea").inner_text().strip() == ""  # no error, no warning
                page.keyboard.press("Escape")
                page.keyboard.press("a")  # a new code cell above the title cell, i.e. right after the install cell
                page.keyboard.press("Enter")
                page.keyboard.insert_text(PROBE_CELL)
                _run_cell(page, cells.nth(1), timeout_s=300)
                output = cells.nth(1).locator(".jp-OutputArea-output")
                playwright_api.expect(output.first).to_contain_text("probe", timeout=60_000)
                words = output.first.inner_text().split()
            finally:
                browser.close()
        return words

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            words = pool.submit(drive).result()
    finally:
        server.shutdown()
        server.server_close()
    assert words[:2] == ["probe", "emscripten"], words  # it ran in Pyodide, not on a server
    assert math.isclose(float(words[2]), ZERO_STAGE_1_BYTES, rel_tol=1e-12), words
    assert math.isclose(float(words[3]), ZERO_STAGE_3_BYTES, rel_tol=1e-12), words
    assert blocked == [] and failed == [], (blocked, failed)  # the site asked for nothing outside itself
