"""Instructor review 25, in a real browser: the live demos of the instructor guides of lessons 7, 8 and 9, replayed
step by step as an instructor projects them (JupyterLab as ``make lab`` starts it for English, 1024 x 768 at 125 %).

Each step sets the controls the English guide names, to the values it names, by the labels the learner sees, and
reads what the widget shows; every number or word the guide quotes for that step must be on the screen. Each quoted
phrase is also looked up in both guides (zh and en), so a guide edited without the widget, or the widget without
the guide, fails here.

* Lesson 7 (``RooflineWidget``): the defaults (compute-bound, 1816 FLOP/byte, 6.2x the ridge); TP 16 and 32 stay
  compute-bound; Llama 3 8B at sequence 4096 crosses the ridge between CP 8 and CP 16; GPT-2 small at TP 4, sequence
  1024, CP 4 is memory-bound with 256 tokens and 192 per rank, compute-bound at micro-batch 16, refused at TP 8
  (12 heads); A100 and H100 put the ridge at 153 and 295.
* Lesson 8: the guide's one demo is experiment A's fit, shown from the recording while learners' runs finish; the
  lesson shows the fitted alpha and bandwidth, and the button after exercises 8.6-8.9 reveals the three titled runs
  (the slow rank the guide answers, rank 1, named in its title). The exercise answers the guide quotes from the
  recorded run (0.639, 0.160) are worked from the tables on the page, as a learner works them.
* Lesson 9 (``WorkbenchWidget``): the five demo steps (64.2 s; the link ÷ 8 switch, 66.6 s; 85.7 s with CP 4 and
  343 s; MoE adds EP; one node fits nothing, 2172, and LoRA rank 32 fits 523 with 728 s).

One JupyterLab session per lesson; lessons 7 and 9 use a notebook of the lesson's widget cell (built as the lesson
builds it, tests/browser/test_instructor_review24.py checks the cells), lesson 8 its own notebook, run whole.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .conftest import change_and_wait, choose, press, widget_message
from .test_instructor_review24 import PROJECTED, WIDGETS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

ROOT = Path(__file__).resolve().parents[2]
GUIDES = ROOT / "docs" / "instructor"


def _guide(lang: str, lesson: str) -> str:
    path = next((GUIDES / lang).glob(f"{lesson}_*.md"))
    return re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


@contextmanager
def _open_widget(browser: Any, folder: Path, name: str) -> Iterator[tuple[Any, Any]]:
    """A notebook of lesson widget ``name`` (review 24's cell) in English, opened projected in a lab set up as
    ``make lab`` sets it for English; (page, widget)."""
    import nbformat

    sources = ["import coursekit\ncoursekit.set_language('en')", WIDGETS[name]]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / "demo.ipynb")
    server = jupyter_browser.LabServer(folder, settings=jupyter_browser.make_lab_settings("en"))
    page = jupyter_browser.LessonPage(browser, server, "demo.ipynb", **PROJECTED)
    try:
        page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        state = page.run_all(timeout_s=300)
        assert state["errors"] == [], state["errors"]
        page.wait_for_widget()
        yield page.page, page.page.locator(".ck-widget").first
    finally:
        page.close()
        server.close()


def _summary(widget: Any) -> str:
    """The result line above the figure, as the learner reads it."""
    return _flat(str(widget.locator(".ck-summary").first.inner_text()))


def _label(widget: Any, key: str) -> str:
    return _flat(str(widget.locator(f".ck-control-{key} label").first.inner_text()))


def _slider_to(page: Any, widget: Any, key: str, value: str) -> str:
    """Step the slider of control ``key`` with the arrow keys until its readout shows ``value``; the message."""
    readout = widget.locator(f".ck-control-{key} .widget-readout").first
    for _ in range(12):
        shown = _flat(str(readout.inner_text()))
        if shown == value:
            return widget_message(widget)
        key_name = "ArrowRight" if float(shown.replace(",", "")) < float(value.replace(",", "")) else "ArrowLeft"
        press(page, widget, key, key_name)
    raise AssertionError(f"slider {key} never showed {value}")


# -- lesson 7 --------------------------------------------------------------------------------------------------------

#: The labels the guide's lesson-7 demo names the controls by, as the widget shows them (en).
ROOFLINE_LABELS = {
    "gpu": "GPU",
    "model": "model",
    "tp": "tensor-parallel degree TP",
    "micro_batch": "micro-batch (sequences)",
    "seq_len": "sequence length (tokens)",
    "cp": "context-parallel degree CP",
}


def test_guide7_demo_replayed(browser: Any, tmp_path: Path) -> None:
    en, zh = _guide("en", "07"), _guide("zh", "07")
    # what the guide quotes, in both languages
    for phrase in ("1816", "6.2", "153", "295", "256", "192", "12"):
        assert phrase in en and phrase in zh, phrase
    assert "Raise TP to 16, then 32" in en and "把 TP 调到 16、32" in zh
    assert "CP 8, 16, 32" in en and "CP 调到 8、16、32" in zh
    assert "Set TP back to 4" in en and "先把 TP 调回 4" in zh
    assert "(305 FLOP/byte)" in en and "2.0× the ridge on A100, 1.0× on H100" in en
    assert "（305 FLOP/字节）" in zh and "A100 上是脊点的 2.0 倍，H100 上 1.0 倍" in zh
    with _open_widget(browser, tmp_path, "07 roofline") as (page, widget):
        for key, label in ROOFLINE_LABELS.items():
            assert _label(widget, key) == label, key
        shown = widget_message(widget)
        # Defaults: compute-bound, intensity 1816 (6.2x the ridge)
        assert shown.startswith("Compute-bound") and "1816 FLOP per byte" in shown and "6.2×" in shown, shown
        assert "1816 FLOP per byte, 6.2×" in _summary(widget)  # the result line above the figure
        # 1. TP 16, then 32: the point slides left and stays right of the ridge
        intensities = [1816]
        for tp in ("16", "32"):
            shown = _slider_to(page, widget, "tp", tp)
            assert shown.startswith("Compute-bound"), (tp, shown)
            intensities.append(int(re.search(r"do (\d+) FLOP per byte", shown).group(1)))  # type: ignore[union-attr]
        assert intensities == sorted(intensities, reverse=True), intensities
        # 2. Llama 3 8B, TP 8, sequence 4096, CP 8, 16, 32: approaches, then crosses the ridge
        choose(page, widget, "model", "Llama 3 8B")
        _slider_to(page, widget, "tp", "8")
        choose(page, widget, "seq_len", "4096")
        bounds = [choose(page, widget, "cp", cp).split(":")[0] for cp in ("8", "16", "32")]
        assert bounds == ["Compute-bound", "Memory-bound", "Memory-bound"], bounds
        # 3. TP 4 first, then GPT-2 small, sequence 1024, CP 4: memory-bound, 256 tokens, 192 per rank
        _slider_to(page, widget, "tp", "4")
        choose(page, widget, "model", "GPT-2 small")
        choose(page, widget, "seq_len", "1024")
        shown = choose(page, widget, "cp", "4")
        assert shown.startswith("Memory-bound") and "= 256 tokens" in shown and "= 192 per rank" in shown, shown
        # the per-GPU shapes are under the figure (the guide says scroll down), the verdict above it
        assert "256 tokens" not in _summary(widget) and _summary(widget).startswith("Memory-bound")
        shown = choose(page, widget, "micro_batch", "16")
        assert shown.startswith("Compute-bound"), shown
        shown = _slider_to(page, widget, "tp", "8")
        assert "does not divide GPT-2 small's 12 attention heads" in shown, shown
        assert "Traceback" not in shown
        # 4. TP back to 4; A100, then H100: the ridge from 153 to 295, the point closer to it on H100
        _slider_to(page, widget, "tp", "4")
        on_a100 = choose(page, widget, "gpu", "A100 80GB SXM")
        on_h100 = choose(page, widget, "gpu", "H100 SXM")
        assert "(153 FLOP/byte)" in on_a100 and "(295 FLOP/byte)" in on_h100, (on_a100, on_h100)
        assert "do 305 FLOP per byte, 1.0× H100 SXM's ridge point (295 FLOP/byte)" in _summary(widget)
        assert "do 305 FLOP per byte, 2.0× A100" in on_a100 and "do 305 FLOP per byte, 1.0× H100" in on_h100


# -- lesson 9 --------------------------------------------------------------------------------------------------------

#: The labels the guide's lesson-9 demo names the controls by (en; the zh guide's in brackets in WORKBENCH_ZH).
WORKBENCH_LABELS = {
    "link_slowdown": "inter-node bandwidth ÷",
    "seq_len": "sequence length (tokens)",
    "global_batch": "global batch (sequences)",
    "nodes": "nodes",
    "lora": "weights trained",
}
FIRST_ROW = re.compile(r"host \(s\) 1 \(1\) (tp=\S+) [\d.]+ / \d+ ([\d.]+) ")


def _fastest(shown: str) -> tuple[str, str]:
    """The fastest accepted composition and its estimated step (s), as the table's first row shows them."""
    found = FIRST_ROW.search(_flat(shown))
    assert found, shown[:600]
    return found.group(1), found.group(2)


def _tick(page: Any, widget: Any, key: str) -> str:
    box = widget.locator(f".ck-control-{key} input[type=checkbox]").first
    return change_and_wait(page, widget, box.click, timeout_ms=60_000)


def test_guide9_demo_replayed(browser: Any, tmp_path: Path) -> None:
    en, zh = _guide("en", "09"), _guide("zh", "09")
    for phrase in ("**64.2 s**", "**66.6 s**", "**85.7 s**", "CP 4", "**343 s**", "**2172**", "**523**", "**728 s**"):
        assert phrase in en and phrase in zh, phrase
    assert '"what if it were MoE"' in en and "“假如它是 MoE”" in zh
    assert '"weights trained"' in en and "“训练哪些权重”" in zh
    assert '"inter-node bandwidth ÷" to 8' in en and "“跨节点带宽 ÷”设为 8" in zh
    with _open_widget(browser, tmp_path, "09 workbench") as (page, widget):
        for key, label in WORKBENCH_LABELS.items():
            assert _label(widget, key) == label, key
        moe = _flat(str(widget.locator(".ck-control-moe").first.inner_text())).replace("\u200b", "").strip()
        assert moe.startswith("what if it were MoE"), moe
        # 1. the defaults: the fastest estimate is 64.2 s
        baseline, step_s = _fastest(widget_message(widget))
        assert step_s == "64.2" and "64.2" not in _summary(widget), step_s
        assert en.count("(under the figure: scroll down)") == zh.count("（图下方，向下滚动）") >= 6
        # 2. inter-node bandwidth ÷ 8: another fastest composition, the step only a little longer (66.6 s)
        slow, step_s = _fastest(choose(page, widget, "link_slowdown", "8"))
        assert slow != baseline and step_s == "66.6", (baseline, slow, step_s)
        # 3. back to ÷ 1; sequence 32768 and global batch 256: 85.7 s with CP 4; sequence alone: 343 s
        choose(page, widget, "link_slowdown", "1")
        choose(page, widget, "seq_len", "32768")
        composition, step_s = _fastest(choose(page, widget, "global_batch", "256"))
        assert step_s == "85.7" and ",cp=4," in composition, (composition, step_s)
        _, step_s = _fastest(choose(page, widget, "global_batch", "1024"))
        assert step_s == "343", step_s
        # 4. back to 8192 and 1024, tick MoE: EP enters the space
        choose(page, widget, "seq_len", "8192")
        composition, _ = _fastest(_tick(page, widget, "moe"))
        assert re.search(r",ep=([2-9]|\d\d)", composition), composition
        # 5. untick MoE, nodes to 1 (Home): nothing passes, the fit gate removes the last 2172
        _tick(page, widget, "moe")
        shown = press(page, widget, "nodes", "Home")
        assert "none passes every gate" in shown and "The last 2172 compositions left all fail the gate memory" in shown
        shown = choose(page, widget, "lora", "LoRA adapters only, rank 32")
        assert "2172 compositions searched, 523 pass every gate" in _summary(widget), shown[:300]
        assert "728" not in _summary(widget)  # the table is under the figure (the guide says scroll down)
        assert _fastest(shown)[1] == "728", shown[:600]
        assert "every weight frozen" in shown and "linear_qkv, linear_proj, linear_fc1 and linear_fc2" in shown


# -- lesson 8 --------------------------------------------------------------------------------------------------------

REVEAL = "Show the result (it gives the exercises above away)"


def _mean_row(table: str) -> list[float]:
    """The "measured (mean of ranks)" row of a step table as the page shows it: compute, exposed comm, wait: slower
    rank, wait: input, other, hidden comm, step (ms)."""
    found = re.search(r"measured \(mean of ranks\) ((?:[\d.]+ ){6}[\d.]+)", _flat(table))
    assert found, table[:400]
    return [float(x) for x in found.group(1).split()]


def test_guide8_demo_and_recorded_answers_replayed(browser: Any) -> None:
    en, zh = _guide("en", "08"), _guide("zh", "08")
    command = "`python -m coursekit.lab collectives --ranks 2 --json fits.json`"
    assert command in en and command in zh
    for phrase in ("**0.639**", "**0.160**", "| **1** |", '`"Y"`', '`"Z"`'):
        assert phrase in en and phrase in zh, phrase
    server = jupyter_browser.LabServer(settings=jupyter_browser.make_lab_settings("en"))
    page = jupyter_browser.LessonPage(browser, server, "en/08_lab.ipynb", **PROJECTED)
    try:
        page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        state = page.run_all(timeout_s=400)
        assert state["errors"] == [], state["errors"]
        outputs = [_flat(text) for text in page.page.locator(".jp-OutputArea-output").all_inner_texts()]
        # experiment A's fit, shown from the recording: one fitted alpha and B per collective, the six of the command
        fits = next(text for text in outputs if "collective α (per step) B (one-way)" in text)
        for collective in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv"):
            assert re.search(collective + r" [\d.]+ µs [\d.]+ GiB/s \d+% fitted", fits), (collective, fits)
        # exercise 8.7 worked from the DDP baseline's mean row: exposed / (exposed + hidden)
        baseline = next(text for text in outputs if text.startswith("DDP, baseline (nothing injected)"))
        mean = _mean_row(baseline)
        assert round(mean[1] / (mean[1] + mean[5]), 3) == 0.639, mean
        # exercise 8.10 worked from the E(P) table: step(1) / step(4)
        scaling = next(text for text in outputs if text.startswith("Scaling efficiency E(P)"))
        steps = {
            int(p): float(s)
            for p, s in re.findall(r"(\d) ([\d.]+) (?:\(reference\)|compute|exposed|wait|other)", scaling)
        }
        assert round(steps[1] / steps[4], 3) == 0.160, scaling
        # exercise 8.6: in the TP run with a slow rank, the slow one computes longest and waits least: rank 1
        tp = next(text for text in outputs if text.startswith("TP, one rank slowed"))
        rows = {
            int(r): [float(x) for x in rest.split()] for r, rest in re.findall(r" ([01]) ((?:[\d.]+ ){6}[\d.]+)", tp)
        }
        assert max(rows, key=lambda r: rows[r][0]) == 1 and min(rows, key=lambda r: rows[r][2]) == 1, rows
        # the button after exercises 8.6-8.9 reveals the titled runs: Z had the slow rank (rank 1), Y the input delay
        assert not any(text.startswith("DDP, slow rank:") for text in outputs)
        page.page.get_by_role("button", name=REVEAL).click()
        page.page.get_by_text("DDP, slow rank: rank 1 computes × 3").first.wait_for(timeout=30_000)
        revealed = [_flat(text) for text in page.page.locator(".jp-OutputArea-output").all_inner_texts()]
        titled = {
            title: _mean_row(next(text for text in revealed if text.startswith(title)))
            for title in ("DDP, slow rank: rank 1", "DDP, input delay", "DDP, no overlap")
        }
        runs = {
            name: _mean_row(next(text for text in outputs if text.startswith(f"DDP, run {name}"))) for name in "XYZ"
        }
        assert titled["DDP, slow rank: rank 1"] == runs["Z"] and titled["DDP, input delay"] == runs["Y"]
        assert titled["DDP, no overlap"] == runs["X"]
        assert any(re.search(r"model (?:[\d.]+ ){4}— ", text) for text in revealed), "no model row after the button"
    finally:
        page.close()
        server.close()
