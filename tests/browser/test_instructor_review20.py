"""What an English instructor projecting the lessons found in a real browser (review 20).

Projected at 1024 × 768 with Chromium zoomed to 125 % (819 × 614 CSS px) and the file browser folded away, a widget's
output area is 639 px wide. Every widget the guides demonstrate is shown there in its starting state (the guides'
live demos start from the defaults), and nothing of it may need a sideways scroll:

* lesson 1's capacity widget set its two columns of controls side by side at 30em each (780 px): the second column
  (PP, TP, recomputation, the device) was out of view, behind a sideways scroll of 145 px;
* lesson 9's workbench table held the composition label unbroken (497 px): the verdict box pushed its last columns
  out and scrolled sideways by 171 px;
* every widget's figure overran its area by ipywidgets' two 2 px margins: a 4 px sideways scroll in each.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

#: 1024 px at 125 % zoom, as in review 18's projected measurement.
PROJECTED = {"viewport": (819, 614), "device_scale_factor": 1.25}
#: Every lesson widget, by its module (the workbench last: its search takes longest).
WIDGETS = [
    ("capacity", "CapacityWidget"),
    ("communication", "CommunicationWidget"),
    ("gates", "GatesWidget"),
    ("composition", "CompositionWidget"),
    ("matrix", "MatrixWidget"),
    ("pipeline", "PipelineWidget"),
    ("scaling", "ScalingWidget"),
    ("roofline", "RooflineWidget"),
    ("serving", "ServingWidget"),
    ("workbench", "WorkbenchWidget"),
]

#: For each widget: its class hook, what of it lies right of its output area, and its parts that scroll sideways.
SIDEWAYS = """() => [...document.querySelectorAll('.ck-widget')].map((w) => {
  const area = w.closest('.jp-OutputArea-output').getBoundingClientRect();
  const parts = [w, ...w.querySelectorAll('*')];
  const out = parts
    .filter((e) => { const r = e.getBoundingClientRect(); return r.width && r.right > area.right + 0.5; })
    .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right - area.right)} px`);
  const scrolls = parts.filter((e) => e.clientWidth && e.scrollWidth > e.clientWidth
      && getComputedStyle(e).overflowX !== 'visible' && getComputedStyle(e).overflowX !== 'hidden')
    .map((e) => `${e.tagName}.${e.className} ${e.scrollWidth - e.clientWidth} px`);
  return {area: Math.round(area.width), out: out.slice(0, 4), scrolls: scrolls.slice(0, 4)};
})"""


def test_no_widget_needs_a_sideways_scroll_when_projected(browser: Any) -> None:
    import nbformat

    folder = Path(tempfile.mkdtemp(prefix="coursekit-review20-"))
    cells = ["import coursekit\ncoursekit.set_language('en')"]
    cells += [f"from coursekit.widgets.{module} import {name}\n{name}()" for module, name in WIDGETS]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / "projected.ipynb")
    server = jupyter_browser.LabServer(folder)
    page = jupyter_browser.LessonPage(browser, server, "projected.ipynb", **PROJECTED)
    try:
        page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        state = page.run_all(timeout_s=600)
        assert state["errors"] == [], state["errors"]
        page.page.wait_for_function(
            f"() => document.querySelectorAll('.ck-widget .ck-figure').length >= {len(WIDGETS)}"
        )
        page.page.wait_for_timeout(1000)
        found = page.page.evaluate(SIDEWAYS)
    finally:
        page.close()
        server.close()
    assert len(found) == len(WIDGETS), found
    assert all(widget["area"] == 639 for widget in found), [widget["area"] for widget in found]  # the premise
    wide = {
        name: widget for (_, name), widget in zip(WIDGETS, found, strict=True) if widget["out"] or widget["scrolls"]
    }
    assert wide == {}


#: The output holding ``text``: its content width against its box (what a sideways scroll would have to cover).
OUTPUT_WIDTH = """(text) => {
  const output = [...document.querySelectorAll('.jp-OutputArea-output')].find((o) => o.innerText.includes(text));
  return output ? [output.scrollWidth, output.clientWidth] : null;
}"""


def test_lesson_2_ring_cost_table_fits_a_projected_screen(browser: Any, lab_server: Any) -> None:
    # the guide's section 4 shows the bus-bandwidth factors and ring steps for n = 2, 8, 64; its headers were single
    # words ("factor(n=64)"), so the table was 746 px in the 639 px output area and the n = 64 ring steps (126, which
    # the guide's talking point quotes) were behind an 87 px sideways scroll
    page = jupyter_browser.LessonPage(browser, lab_server, "en/02_communication.ipynb", **PROJECTED)
    try:
        page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        state = page.run_all()
        assert state["errors"] == [], state["errors"]
        page.page.wait_for_timeout(500)
        widths = page.page.evaluate(OUTPUT_WIDTH, "factor (n=2)")
    finally:
        page.close()
    assert widths is not None, "no ring-cost table"
    assert widths[1] == 639 and widths[0] <= widths[1], widths
