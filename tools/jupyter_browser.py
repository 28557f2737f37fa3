"""Drive the course in a real browser: a JupyterLab server plus headless Chromium.

Used by the browser tests (tests/browser/) and the benchmarks (benchmarks/bench_course.py).

- ``LabServer`` starts JupyterLab on a free loopback port, serving a *copy* of ``notebooks/``
  (so running cells never touches the course files), with the app exposed to page scripts
  (``--LabApp.expose_app_in_browser``), cell windowing off (every cell is in the DOM) and
  no news pop-ups; it stops the server on ``close()``.
- ``LessonPage`` opens one notebook, runs all cells, waits for the kernel, collects error
  outputs, moves the main widget control (CSS class ``ck-main``, set by
  ``coursekit.widgets.LessonWidget``) like a user (keyboard on a slider, a pick on a dropdown)
  and reports what changed in the DOM (message text ``.ck-message``, figure ``.ck-figure``).

Chromium comes from Debian's ``chromium`` package (``/usr/bin/chromium``); Playwright's own
browser download is not used.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/palette.jupyterlab-settings": {},
}


def make_lab_settings(language: str) -> dict[str, Any]:
    """The user settings ``make lab`` writes for course language ``language`` (see the Makefile's ``lab`` target):
    JupyterLab's UI locale, and code cells that wrap their lines without line numbers."""
    locale = {"zh": "zh_CN", "en": "en"}[language]
    return {
        "@jupyterlab/translation-extension/plugin.jupyterlab-settings": {"locale": locale},
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
            "codeCellConfig": {"lineNumbers": False, "lineWrap": True}
        },
    }


def chromium_path() -> str | None:
    """The system Chromium, or None when it is not installed."""
    override = os.environ.get("COURSEKIT_CHROMIUM")
    if override and Path(override).exists():
        return override
    return next((path for path in CHROMIUM_CANDIDATES if Path(path).exists()), None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LabServer:
    """A JupyterLab server on 127.0.0.1 serving a temporary copy of notebooks/."""

    def __init__(self, notebooks_dir: Path = ROOT / "notebooks", settings: dict[str, Any] | None = None) -> None:
        """``settings``: more user settings files (name: value, as :data:`LAB_SETTINGS`), e.g.
        :func:`make_lab_settings`; a file named in both gets the two merged, these winning."""
        self.tmp = Path(tempfile.mkdtemp(prefix="coursekit-lab-"))
        self.root_dir = self.tmp / "course"
        shutil.copytree(notebooks_dir, self.root_dir, ignore=shutil.ignore_patterns("src", ".ipynb_checkpoints"))
        merged = {name: dict(value) for name, value in LAB_SETTINGS.items()}
        for name, value in (settings or {}).items():
            merged[name] = {**merged.get(name, {}), **value}
        settings_dir = self.tmp / "settings"
        for name, value in merged.items():
            target = settings_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(value), encoding="utf-8")
        self.port = free_port()
        self.token = secrets.token_hex(16)
        env = dict(os.environ)
        env.update(
            JUPYTERLAB_SETTINGS_DIR=str(settings_dir),
            JUPYTERLAB_WORKSPACES_DIR=str(self.tmp / "workspaces"),
            JUPYTER_RUNTIME_DIR=str(self.tmp / "runtime"),
            JUPYTER_CONFIG_DIR=str(self.tmp / "config"),
            PYDEVD_DISABLE_FILE_VALIDATION="1",
        )
        command = [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root_dir}",
            "--LabApp.expose_app_in_browser=True",
            "--ServerApp.open_browser=False",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")
        self.log_path = self.tmp / "server.log"
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=self.tmp)
        self._wait_until_up()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str, query: str = "") -> str:
        return f"{self.base_url}/{path.lstrip('/')}?token={self.token}{'&' + query if query else ''}"

    def _wait_until_up(self, timeout_s: float = 90.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited early:\n{self.log_path.read_text()}")
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"JupyterLab did not answer within {timeout_s} s:\n{self.log_path.read_text()}")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> LabServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_JS_PANEL = "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget; return w; }"

_JS_STATE = """
() => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content || !panel.sessionContext) return null;
  const session = panel.sessionContext.session;
  const kernel = session && session.kernel;
  const cells = panel.content.widgets;
  let pending = 0, errors = [];
  cells.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    if (cell.model.executionCount === null) pending += 1;
    const outputs = cell.model.outputs.toJSON();
    for (const out of outputs) {
      if (out.output_type === 'error') errors.push({cell: index, ename: out.ename, evalue: out.evalue});
      if (out.output_type === 'stream' && out.name === 'stderr' && /Traceback|Error/.test(out.text))
        errors.push({cell: index, ename: 'stderr', evalue: String(out.text).slice(0, 500)});
    }
  });
  return {kernel: kernel ? kernel.status : 'none', pending, errors, cells: cells.length,
          ready: panel.context.isReady};
}
"""


@dataclass
class Interaction:
    """What moving the main control changed on the page."""

    control_kind: str
    message_before: str
    message_after: str
    figure_changed: bool
    elapsed_ms: float
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def message_changed(self) -> bool:
        return self.message_before != self.message_after


@dataclass
class KeyStep:
    """One key pressed on a widget's main control (:meth:`LessonPage.step_with_key`)."""

    key: str
    value_before: str
    value_after: str
    focus_stayed: bool
    active_cell_before: int
    active_cell_after: int


def _shown(control: Any) -> str:
    """The value a control shows: a slider's readout, else its input box's value."""
    readout, select = control.locator(".widget-readout"), control.locator("select")
    if readout.count():
        return str(readout.first.inner_text())
    if select.count():
        return str(select.first.evaluate("(s) => s.options[s.selectedIndex].text"))
    return str(control.locator("input").first.input_value())


class LessonPage:
    """One notebook open in JupyterLab, driven through Playwright's sync API."""

    def __init__(
        self,
        browser: Any,
        server: LabServer,
        notebook: str,
        viewport: tuple[int, int] = (1280, 900),
        device_scale_factor: float = 1.0,
    ) -> None:
        # device_scale_factor 2 is a HiDPI ("retina") screen: 2 device pixels per CSS pixel.
        self.page = browser.new_page(
            viewport={"width": viewport[0], "height": viewport[1]}, device_scale_factor=device_scale_factor
        )
        self.console_errors: list[str] = []
        self.page.on("pageerror", lambda error: self.console_errors.append(str(error)))
        self.server = server
        self.notebook = notebook
        # a workspace of its own and `reset`, so no tab (and no kernel) of an earlier page is restored
        workspace = "ck" + notebook.replace("/", "-").replace(".", "-")
        self.page.goto(
            server.url(f"lab/workspaces/{workspace}/tree/{notebook}", "reset"), wait_until="domcontentloaded"
        )
        self.page.wait_for_function(
            """(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                 return !!(w && w.context && w.context.isReady && w.context.path.endsWith(name)
                           && w.sessionContext.session && w.sessionContext.session.kernel
                           && w.sessionContext.session.kernel.status === 'idle'); }""",
            arg=notebook.split("/")[-1],
            timeout=120_000,
        )

    def state(self) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(_JS_STATE)
        return result

    def run_all(self, timeout_s: float = 180.0) -> dict[str, Any]:
        """Run every cell and wait until all have executed and the kernel is idle."""
        self.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        deadline = time.monotonic() + timeout_s
        state = self.state()
        while time.monotonic() < deadline:
            state = self.state()
            if state and state["pending"] == 0 and state["kernel"] == "idle":
                # a second look: output widgets may still be rendering
                self.page.wait_for_timeout(300)
                state = self.state()
                if state["pending"] == 0 and state["kernel"] == "idle":
                    return state
            self.page.wait_for_timeout(200)
        raise TimeoutError(f"{self.notebook}: cells still running after {timeout_s} s: {state}")

    def _message(self) -> str:
        return str(self.page.locator(".ck-message").first.inner_text())

    def _figure_src(self) -> str:
        return str(self.page.locator(".ck-figure").first.get_attribute("src") or "")

    def wait_for_widget(self, timeout_ms: int = 60_000) -> None:
        self.page.locator(".ck-main").first.wait_for(state="visible", timeout=timeout_ms)
        self.page.wait_for_function(
            """() => { const i = document.querySelector('.ck-figure');
                 return !!(i && i.src && /^(blob:|data:image)/.test(i.src) && i.naturalWidth > 0); }""",
            timeout=timeout_ms,
        )

    def move_main_control(self, timeout_ms: int = 30_000, step: int = 1) -> Interaction:
        """Change the first ``ck-main`` control as a user would; wait for the page to update.

        ``step`` +1 moves a slider right / picks the next option / doubles a number box; -1 moves left / the
        previous one / halves it. ``elapsed_ms`` runs from the keypress (or pick) that sends the new value to the
        kernel to the figure's new ``src``: for a number box that is the Enter that commits the typed number.
        """
        main = self.page.locator(".ck-main").first
        main.scroll_into_view_if_needed()
        before_message, before_src = self._message(), self._figure_src()
        # watch the figure's src from inside the page so the time is the page's own clock
        self.page.evaluate(
            """() => { const img = document.querySelector('.ck-figure');
                 window.__ckChanged = null; const t0 = performance.now(); window.__ckT0 = t0;
                 const obs = new MutationObserver(() => { if (window.__ckChanged === null)
                     window.__ckChanged = performance.now() - window.__ckT0; });
                 obs.observe(img, {attributes: true, attributeFilter: ['src']}); window.__ckObs = obs; }"""
        )
        select = main.locator("select")
        handle = main.locator(".noUi-handle")
        checkbox = main.locator("input[type=checkbox]")
        if select.count():
            kind = "dropdown"
            options = select.first.locator("option").all_inner_texts()
            current = select.first.evaluate("(s) => s.selectedIndex")
            target = options[(current + step) % len(options)]
            self.page.evaluate("() => { window.__ckT0 = performance.now(); }")
            select.first.select_option(label=target)
        elif handle.count():
            kind = "slider"
            handle.first.focus()
            self.page.evaluate("() => { window.__ckT0 = performance.now(); }")
            handle.first.press("ArrowRight" if step > 0 else "ArrowLeft")
        elif checkbox.count():
            kind = "checkbox"
            self.page.evaluate("() => { window.__ckT0 = performance.now(); }")
            checkbox.first.click()
        else:
            # A number box sends its value when Enter commits it (ipywidgets' continuous_update=False): the
            # clock starts at that keypress, after the new number is typed. +1 doubles the value, -1 halves it,
            # so alternate presses stay between two values as a slider does.
            kind = "text"
            box = main.locator("input").first
            value = float(box.input_value() or 0) or 1.0
            box.fill(f"{value * 2 if step > 0 else value / 2:g}")
            self.page.evaluate("() => { window.__ckT0 = performance.now(); }")
            box.press("Enter")
        self.page.wait_for_function("() => window.__ckChanged !== null", timeout=timeout_ms)
        elapsed = float(self.page.evaluate("() => window.__ckChanged"))
        self.page.evaluate("() => window.__ckObs.disconnect()")
        self.page.wait_for_timeout(100)
        return Interaction(kind, before_message, self._message(), self._figure_src() != before_src, elapsed)

    def step_with_key(self, widget_index: int, key: str, timeout_ms: int = 30_000) -> KeyStep:
        """Focus the main control of the ``widget_index``-th widget on the page and press ``key`` there.

        The control's keyboard target is a slider's handle, a dropdown or a number box. Returns the value the control
        shows before and after, whether the keyboard focus is still inside the control, and the notebook's active cell
        before and after (JupyterLab moves it when a key escapes the widget). Waits for the figure to change when
        the value did, so the kernel has seen the new value.
        """
        main = self.page.locator(".ck-widget").nth(widget_index).locator(".ck-main").first
        main.scroll_into_view_if_needed()
        handle, select = main.locator(".noUi-handle"), main.locator("select")
        target = handle.first if handle.count() else select.first if select.count() else main.locator("input").first
        figure = self.page.locator(".ck-widget").nth(widget_index).locator(".ck-figure").first
        target.focus()
        active = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
        cell_before = int(self.page.evaluate(active))
        before, src_before = _shown(main), str(figure.get_attribute("src") or "")
        target.press(key)
        self.page.wait_for_timeout(200)
        after = _shown(main)
        if after != before:
            self.page.wait_for_function(
                "([img, src]) => img.getAttribute('src') !== src",
                arg=[figure.element_handle(), src_before],
                timeout=timeout_ms,
            )
        focused = bool(main.evaluate("(el) => el.contains(document.activeElement)"))
        return KeyStep(key, before, after, focused, cell_before, int(self.page.evaluate(active)))

    def run_cell(self, index: int, timeout_ms: int = 60_000) -> str:
        """Run code cell ``index`` alone, as Shift+Enter does, and return the text its output area shows once the
        kernel is idle (an error's traceback and any display after it, such as the exercises' line of input help)."""
        self.page.evaluate(
            """async (i) => { const panel = window.jupyterapp.shell.currentWidget;
                 panel.content.activeCellIndex = i; panel.content.deselectAll();
                 await window.jupyterapp.commands.execute('notebook:run-cell'); }""",
            index,
        )
        self.page.wait_for_function(
            "(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.executionCount !== null",
            arg=index,
            timeout=timeout_ms,
        )
        self.page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'",
            timeout=timeout_ms,
        )
        self.page.wait_for_timeout(500)  # a display that follows an error arrives after the error
        text = self.page.evaluate(
            """(i) => { const cell = window.jupyterapp.shell.currentWidget.content.widgets[i];
                 const area = cell.node.querySelector('.jp-OutputArea'); return area ? area.innerText : ''; }""",
            index,
        )
        return str(text).replace("\xa0", " ")

    def widget_count(self) -> int:
        """How many lesson widgets the page shows."""
        return int(self.page.locator(".ck-widget").count())

    def figure_pixel_ratio(self) -> float:
        """Image pixels per CSS pixel of the least dense figure shown: the widgets' figures and the lesson's image
        outputs (>= the device pixel ratio is sharp; 0 when none is shown)."""
        ratio = self.page.evaluate(
            """() => { const ratios = [...document.querySelectorAll('.ck-figure, .jp-RenderedImage img')]
                 .filter((i) => i.clientWidth && i.naturalWidth).map((i) => i.naturalWidth / i.clientWidth);
                 return ratios.length ? Math.min(...ratios) : 0; }"""
        )
        return float(ratio)

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        widget = self.page.locator(".ck-widget")
        if widget.count():
            widget.first.scroll_into_view_if_needed()
        self.page.screenshot(path=str(path), full_page=False)

    def close(self) -> None:
        """Shut the notebook's kernel down, then close the page."""
        try:
            self.page.evaluate(
                "async () => { const w = window.jupyterapp.shell.currentWidget;"
                " if (w && w.sessionContext) await w.sessionContext.shutdown(); }"
            )
        finally:
            self.page.close()


def launch_chromium(playwright: Any) -> Any:
    path = chromium_path()
    if path is None:
        raise RuntimeError("Chromium is not installed (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)


def lesson_notebooks(root: Path = ROOT / "notebooks") -> list[str]:
    """Every generated lesson notebook, as 'zh/01_capacity.ipynb' paths relative to notebooks/."""
    return sorted(
        str(path.relative_to(root))
        for lang in ("zh", "en")
        for path in (root / lang).glob("[0-9][0-9]_*.ipynb")
        if ".mine" not in path.name
    )
