"""Left-over 4 of tests/test_leftovers26.py, in a real browser: lesson 9's node menu (the workbench's ``cluster``
dropdown) cut three options at 1280 x 720 / 110 % ("jeanzay-a100-8：Jean Zay 超算的 A100 节点，BLOOM 在上面训练",
"pcie-24g-8：课程的示例机器：8 张 24 GiB 的 PCIe 卡", "cpu-box：一台 CPU 服务器，不是 GPU（只作对照）"): review 24's
test measured only the part before the colon. Now every option of the workbench's node menu and of lesson 10's GPU
menu is short (the node's name and what it holds, "jeanzay-a100-8: 8 × 80 GiB", or "cpu-box: CPU server"), measured
whole here in each language on the laptop and on the projected screen (1024 x 768 at 125 %, where the menu has 188 px
for its text), and the widget's message ends with the whole note of the node chosen.

JupyterLab as ``make lab`` starts it for the course language; the widgets are built as their lessons build them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coursekit.i18n import Text
from coursekit.widgets import node_label, node_note
from tests.browser.conftest import choose, widget_message, write_notebook
from tests.browser.test_instructor_review24 import PROJECTED, WIDEST, WIDGETS
from tests.browser.test_learner_review23 import LAPTOP

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

#: The menus of node presets: the workbench's node type and the serving widget's GPU.
MENUS = {"09 workbench": "cluster", "10 serving": "gpu"}
SCREENS = {"laptop": (LAPTOP, False), "projected": (PROJECTED, True)}


@pytest.fixture(scope="module", params=["zh", "en"])
def menus_page(browser: Any, tmp_path_factory: pytest.TempPathFactory, request: Any) -> Iterator[tuple[str, Any]]:
    """A notebook of lesson 9's and lesson 10's widgets in ``lang``, served by a JupyterLab set up as ``make lab``."""
    lang = request.param
    folder = tmp_path_factory.mktemp(f"menus-{lang}")
    sources = [f"import coursekit\ncoursekit.set_language('{lang}')", *(WIDGETS[name] for name in MENUS)]
    write_notebook(folder / "menus.ipynb", sources)
    server = jupyter_browser.LabServer(folder, settings=jupyter_browser.make_lab_settings(lang))
    try:
        yield lang, server
    finally:
        server.close()


def _open(browser: Any, server: Any, screen: str) -> Any:
    settings, fold = SCREENS[screen]
    page = jupyter_browser.LessonPage(browser, server, "menus.ipynb", **settings)
    if fold:  # projected: the file browser folded away, as review 20's projector test has it
        page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    state = page.run_all(timeout_s=300)
    assert state["errors"] == [], state["errors"]
    page.page.locator(".ck-widget").nth(len(MENUS) - 1).locator(".ck-figure").wait_for(timeout=60_000)
    return page


@pytest.mark.parametrize("screen", list(SCREENS))
def test_every_node_option_shows_whole(browser: Any, menus_page: tuple[str, Any], screen: str) -> None:
    lang, server = menus_page
    page = _open(browser, server, screen)
    try:
        measured = {}
        for index, (name, key) in enumerate(MENUS.items()):
            select = page.page.locator(".ck-widget").nth(index).locator(f".ck-control-{key} select").first
            options = select.evaluate("(m) => [...m.options].map((o) => o.text.replace(/\\u00a0/g, ' '))")
            measured[name] = (options, select.evaluate(WIDEST, False))
    finally:
        page.close()
    for name, (options, (text, width, room)) in measured.items():
        assert len(options) >= 3, (name, options)
        assert width <= room, f"{lang}, {screen}: {name}'s menu cuts {text!r} ({width} px text, {room} px room)"
    cluster_options = measured["09 workbench"][0]
    for node in ("jeanzay-a100-8", "pcie-24g-8", "cpu-box"):  # the three that were cut, now whole and in the menu
        assert node_label(node).render(lang) in cluster_options, (node, cluster_options)


def test_the_message_says_the_whole_note_of_the_node_chosen(browser: Any, menus_page: tuple[str, Any]) -> None:
    lang, server = menus_page
    page = _open(browser, server, "laptop")
    try:
        workbench = page.page.locator(".ck-widget").nth(0)
        said = {}
        for node in ("jeanzay-a100-8", "pcie-24g-8"):
            said[node] = choose(page.page, workbench, "cluster", node_label(node).render(lang))
        plain = choose(page.page, workbench, "cluster", node_label("h100-8").render(lang))
        serving = page.page.locator(".ck-widget").nth(1)
        served = choose(page.page, serving, "gpu", node_label("pcie-24g-8").render(lang))
        still = widget_message(serving)
    finally:
        page.close()
    for node, message in said.items():
        note = node_note(node)
        assert note is not None
        line = Text(zh=f"{node}：{note.zh}", en=f"{node}: {note.en}").render(lang)
        assert line in message, (node, message[-300:])
        assert "Traceback" not in message
    assert "Jean Zay" not in plain and "PCIe" not in plain  # a plain GPU node has no note
    pcie = node_note("pcie-24g-8")
    assert pcie is not None and pcie.render(lang) in served and served == still
