"""Instructor review 30 in Chromium: English lessons 1, 3 and 5 as ``make lab COURSE_LANG=en`` opens them (English UI,
1280 x 720), every cell run, the guides' demos followed in the widgets (see tests/test_instructor_review30.py for the
Python side):

* guide 1's demo, steps 1 to 6 in order: the numbers each step quotes are in the widget's message after it; step 6
  (GPT-3 175B) shows 403.73 GiB, full recomputation alone 331.73 GiB and no fit, DP = 128 with TP = 8 33.79 GiB with
  ZeRO-2 the smallest stage that fits (the old step said full recomputation would do);
* guide 3's demo, steps 1 to 5 in order: 32 GiB accepts DP, cross_node fails TP, EP and CP at the interconnect gate,
  serving rejects DP and ZeRO-3 at ``mode`` and accepts Replica, CP passes only with both context values declared and
  fails again at 4,096 tokens, and 0 GiB shows the message the guide quotes, no traceback;
* guide 5's demo starts from a result line that reads the words the guide quotes ("the training state exceeds one
  device"), the verdicts under it carry the default's numbers, and every number steps 1 to 3 quote is on screen
  after the step's changes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.conftest import change_and_wait, lesson_page, running_lab, widget_message
from tests.browser.test_lessons_walkthrough2 import _norm, _set

ROOT = Path(__file__).resolve().parents[2]
LAPTOP_720 = {"viewport": (1280, 720)}


def _guide(name: str) -> str:
    return (ROOT / "docs" / "instructor" / "en" / name).read_text(encoding="utf-8")


def _demo_steps(name: str) -> dict[int, str]:
    """The numbered steps of an en guide's live demo, each on one line."""
    text = _guide(name)
    start = text.index("## Live demo with the widget")
    demo = text[start : text.index("\n## ", start + 3)]
    steps = re.split(r"\n(\d)\. ", demo)
    return {int(steps[i]): " ".join(steps[i + 1].split()) for i in range(1, len(steps), 2)}


def _numbers(step: str) -> list[str]:
    return re.findall(r"\d+\.\d\d GiB", step)


def test_guide1_demo_in_lesson1(browser: Any) -> None:
    steps = _demo_steps("01_capacity.md")
    settings = jupyter_browser.make_lab_settings("en")
    with (
        running_lab(settings=settings) as lab,
        lesson_page(browser, lab, "en/01_capacity.ipynb", run_all_s=600, **LAPTOP_720) as lesson,
    ):
        page = lesson.page
        widget = page.locator(".ck-widget").first
        widget.scroll_into_view_if_needed()
        shown = widget_message(widget)
        assert "Needs 122.84 GiB of 80.0 GiB" in shown and "122.84 GiB" in steps[1]
        shown = _set(page, widget, "ZeRO", "1 (+ optimizer)")  # step 2
        assert "Needs 49.81 GiB of 80.0 GiB" in shown and "49.81 GiB fits 80 GiB" in steps[2]
        shown = _set(page, widget, "device memory", "40 GiB")  # step 3
        assert "the smallest ZeRO stage that fits is 2." in shown and "names ZeRO-2" in steps[3]
        _set(page, widget, "activation recomputation", "none")  # step 4
        _set(page, widget, "sequence length", "8192")
        _set(page, widget, "activation recomputation", "selective")  # step 5
        _set(page, widget, "sequence length", "2048")
        shown = _set(page, widget, "pipeline-parallel degree PP", "4")
        assert "micro-batches in flight: 4" in shown and "4 micro-batches in flight" in steps[5]
        # step 6, as the guide now writes it: PP, the device and the stage first, then the shape
        assert "Set PP back to 1, the device back to 80 GiB and ZeRO to 3" in steps[6], steps[6]
        _set(page, widget, "pipeline-parallel degree PP", "1")
        _set(page, widget, "device memory", "80 GiB")
        _set(page, widget, "ZeRO", "3 (+ weights)")
        quoted = _numbers(steps[6])
        assert quoted == ["403.73 GiB", "76.50 GiB", "331.73 GiB", "33.79 GiB"], quoted
        shown = _set(page, widget, "model shape", "GPT-3 175B")
        assert "Needs 403.73 GiB of 80.0 GiB" in shown and "activations 76.50" in shown, shown
        assert "Not even ZeRO-3 fits" in shown
        shown = _set(page, widget, "activation recomputation", "full")
        assert "Needs 331.73 GiB of 80.0 GiB" in shown and "does not fit" in shown, shown
        _set(page, widget, "activation recomputation", "selective")
        _set(page, widget, "data-parallel degree DP", "128")
        shown = _set(page, widget, "tensor-parallel degree TP", "8")
        assert "Needs 33.79 GiB of 80.0 GiB" in shown and "fits on one device" in shown, shown
        assert "the smallest ZeRO stage that fits is 2." in shown and "74.1 GiB" in steps[6]
        assert "Traceback" not in _norm(widget.inner_text())


def test_guide5_result_line_in_lesson5(browser: Any) -> None:
    guide = " ".join(_guide("05_selection_matrix.md").split())
    quoted = re.search(r'The result line reads "([^"]+)"', guide)
    assert quoted is not None
    settings = jupyter_browser.make_lab_settings("en")
    with (
        running_lab(settings=settings) as lab,
        lesson_page(browser, lab, "en/05_selection_matrix.ipynb", run_all_s=600, **LAPTOP_720) as lesson,
    ):
        widget = lesson.page.locator(".ck-widget").first
        widget.scroll_into_view_if_needed()
        summary = _norm(widget.locator(".ck-summary").first.inner_text())
        assert quoted.group(1) in summary, (quoted.group(1), summary)
        shown = widget_message(widget)
        for number in ("122.8 GiB", "16.2 GiB", "18.5 GiB", "32%"):
            assert number in shown and number in guide, number
        # steps 1 to 3 in order: every number a step quotes is on screen after one of its changes
        page, steps = lesson.page, _demo_steps("05_selection_matrix.md")
        changes = {
            1: [("device memory", "16"), ("device memory", "80")],
            2: [("device memory", "24"), ("model", "18.4B"), ("interconnect", "fast inside a node")],
            3: [
                ("model", "7.5B"),
                ("interconnect", "unknown"),
                ("sequence length", "32768"),
                ("interconnect", "fast inside a node"),
                ("sequence length", "2048"),
                ("global batch", "16"),
            ],
        }
        assert sorted(steps) == [1, 2, 3]
        for number, step in steps.items():
            assert re.findall(r"\d+\.\d GiB", step), step
            seen = []
            for label, value in changes[number]:
                seen.append(_set(page, widget, label, value))
                seen.append(_norm(widget.locator(".ck-summary").first.inner_text()))
            for quoted_number in re.findall(r"\d+\.\d GiB|\d+%", step):
                assert any(quoted_number in text for text in seen), (number, quoted_number, seen)
        assert "tp = 16 exceeds the 8 GPUs per node" in " ".join(seen)  # step 3: the plan refused once links are known


def _accepted(message: str) -> str:
    """The names after "... pass all 6 gates:" in the gates widget's message."""
    found = re.search(r"pass all 6 gates: ([^.]+)\.", message)
    assert found is not None, message
    return found.group(1)


def test_guide3_demo_in_lesson3(browser: Any) -> None:
    steps = _demo_steps("03_gates.md")
    settings = jupyter_browser.make_lab_settings("en")
    with (
        running_lab(settings=settings) as lab,
        lesson_page(browser, lab, "en/03_gates.ipynb", run_all_s=600, **LAPTOP_720) as lesson,
    ):
        page = lesson.page
        widget = page.locator(".ck-widget").first
        widget.scroll_into_view_if_needed()
        assert _accepted(widget_message(widget)) == "ZeRO-3, TP, PP"  # the guide: "accepts ZeRO-3, TP, PP"
        box = widget.locator(".ck-control-memory_per_device_gib input").first

        def typed(value: str) -> str:
            return change_and_wait(page, widget, lambda: (box.fill(value), box.press("Enter")))

        assert "Type **32**" in steps[1] and _accepted(typed("32")) == "DP, ZeRO-3, TP, PP"  # step 1
        shown = _set(page, widget, "link scope", "across nodes (cross_node)")  # step 2: TP, EP, CP fail interconnect
        for name in ("TP", "EP", "CP"):
            assert re.search(rf"\b{name}\s+rejected\s+\[interconnect\]", shown), (name, shown)
        _set(page, widget, "link scope", "inside a node (intra_node)")  # step 3
        shown = _set(page, widget, "workload mode", "serving")
        assert "Replica" in _accepted(shown), shown
        assert re.search(r"\bDP\s+rejected\s+\[mode\]", shown) and re.search(r"ZeRO-3\s+rejected\s+\[mode\]", shown)
        shown = _set(page, widget, "context length", "131,072")  # step 4
        assert "CP" not in _accepted(shown) and "per-device attention capacity" in steps[4]
        shown = _set(page, widget, "context one device holds", "32,768")
        assert "CP" in _accepted(shown), shown
        shown = _set(page, widget, "context length", "4,096")
        assert "CP" not in _accepted(shown) and re.search(r"\bCP\s+rejected\s+\[context\]", shown), shown
        quoted = re.search(r"`(memory per device \(GiB\) = 0\.0: must be > 0\.)`", steps[5])  # step 5
        assert quoted is not None, steps[5]
        shown = typed("0")
        assert quoted.group(1) in shown and "Traceback" not in _norm(widget.inner_text()), shown
