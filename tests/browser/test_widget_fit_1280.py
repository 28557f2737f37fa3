"""At a 1280 px wide JupyterLab (file browser open), a menu shows its chosen option whole, and the gates widget puts
its grid right under its controls, in a real browser.

An instructor preparing the lessons found lesson 4's rank-order menu cut to "TP-CP-EP-DP-PP (Megatron-Core defau",
and lesson 3's gates widget 998 px tall with its reasons table between the controls and the grid they change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import scratch_notebook

#: Width of the text of a select's chosen option, in its own font, against the room the select gives it (its inner
#: width less the arrow, about 24 px).
FITS = """m => {
  const style = getComputedStyle(m);
  const canvas = document.createElement("canvas").getContext("2d");
  canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const text = m.options[m.selectedIndex].text;
  const room = m.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
  return [text, Math.ceil(canvas.measureText(text).width), Math.floor(room)];
}"""


def test_the_rank_order_menu_shows_each_option_whole(browser: Any, tmp_path: Path) -> None:
    sources = [
        "import coursekit\ncoursekit.set_language('en')",
        "from coursekit.widgets.composition import CompositionWidget\nCompositionWidget()",
    ]
    with scratch_notebook(browser, tmp_path, sources) as page:
        page.wait_for_widget()
        menu = page.page.locator(".ck-control-order select").first
        for index in range(menu.evaluate("m => m.options.length")):
            menu.select_option(index=index)
            text, width, room = menu.evaluate(FITS)
            assert width <= room, (text, width, room)


def test_the_gates_grid_sits_right_under_its_controls(browser: Any, tmp_path: Path) -> None:
    sources = [
        "import coursekit\ncoursekit.set_language('en')",
        "from coursekit.widgets.gates import GatesWidget\nGatesWidget()",
    ]
    with scratch_notebook(browser, tmp_path, sources) as page:
        page.wait_for_widget()
        top = page.page.evaluate(
            """() => {
              const w = document.querySelector(".ck-widget");
              const last = [...w.querySelectorAll("select, input")].pop().getBoundingClientRect();
              const figure = w.querySelector(".ck-figure").getBoundingClientRect();
              const message = w.querySelector(".ck-message").getBoundingClientRect();
              return [last.bottom, figure.top, figure.bottom, message.top];
            }"""
        )
        controls_bottom, figure_top, figure_bottom, message_top = top
        assert controls_bottom <= figure_top <= controls_bottom + 40, top  # the grid follows the controls
        assert message_top >= figure_bottom - 1, top  # and the reasons come after it
