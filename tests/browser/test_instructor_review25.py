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
  343 s; MoE adds EP; one node fits nothing, 2320, and LoRA rank 32 fits 581 with 728 s).

Part 1 replays the English guides of lessons 0, 2, 4, 6 and 10 the same way: lesson 0 run whole (the DP row's
111.76 GiB, exercise 0.1 typed as the guide's answer 25.77 and as its typical slip 22.35, the eight terms with the
Chinese in parentheses); the live demos of lessons 2, 4, 6 (both widgets) and 10 step by step by their controls,
including guide 10's re-run of the cell for the FP8 step.

One JupyterLab session per lesson (lessons 2, 4, 6 and 10 share one); the widget lessons use a notebook of the
lesson's widget cell (built as the lesson builds it, tests/browser/test_instructor_review24.py checks the cells),
lessons 0 and 8 their own notebooks, run whole. About 2.5 minutes in all.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from .conftest import change_and_wait, choose, lesson_page, press, running_lab, widget_message, write_notebook
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
    write_notebook(folder / "demo.ipynb", ["import coursekit\ncoursekit.set_language('en')", WIDGETS[name]])
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
    for phrase in ("**64.2 s**", "**66.6 s**", "**85.7 s**", "CP 4", "**343 s**", "**2320**", "**581**", "**728 s**"):
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
        # 5. untick MoE, nodes to 1 (Home): nothing passes, the fit gate removes the last 2320
        _tick(page, widget, "moe")
        shown = press(page, widget, "nodes", "Home")
        assert "none passes every gate" in shown and "The last 2320 compositions left all fail the gate memory" in shown
        shown = choose(page, widget, "lora", "LoRA adapters only, rank 32")
        assert "2320 compositions searched, 581 pass every gate" in _summary(widget), shown[:300]
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


# -- part 1: the English guides of lessons 0, 2, 4, 6 and 10, their demos replayed by the controls ------------------

PART1 = ["02 communication", "04 composition", "06 pipeline", "06 scaling", "10 serving"]


def _pick(page: Any, widget: Any, key: str, starts: str) -> str:
    """Choose the option of menu ``key`` whose shown text starts with ``starts``; the message once changed."""
    select = widget.locator(f".ck-control-{key} select").first
    label = next(text for text in select.locator("option").all_inner_texts() if _flat(text).startswith(starts))
    return change_and_wait(page, widget, lambda: select.select_option(label=label))


def _readout(widget: Any, key: str) -> str:
    return _flat(str(widget.locator(f".ck-control-{key} .widget-readout").first.inner_text()))


def _slide(page: Any, widget: Any, key: str, value: str, key_name: str) -> str:
    """Press ``key_name`` on slider ``key`` until its readout shows ``value``; the message then."""
    for _ in range(20):
        if _readout(widget, key) == value:
            return widget_message(widget)
        press(page, widget, key, key_name)
    raise AssertionError(f"slider {key} never showed {value}: {_readout(widget, key)}")


def _type_readout(page: Any, widget: Any, key: str, value: str) -> str:
    """Type ``value`` into slider ``key``'s readout and press Enter, as guide 10's step 1 says; the message."""
    readout = widget.locator(f".ck-control-{key} .widget-readout").first

    def typed() -> None:
        readout.click()
        page.keyboard.press("Control+A")
        page.keyboard.type(value)
        page.keyboard.press("Enter")

    return change_and_wait(page, widget, typed)


@pytest.fixture(scope="module")
def part1_widgets(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, Any]]]:
    """Lessons 2, 4, 6 and 10's widgets in one English notebook, projected; (page, {name: widget})."""
    folder = tmp_path_factory.mktemp("part1")
    sources = ["import coursekit\ncoursekit.set_language('en')", *(WIDGETS[name] for name in PART1)]
    write_notebook(folder / "demo.ipynb", sources)
    server = jupyter_browser.LabServer(folder, settings=jupyter_browser.make_lab_settings("en"))
    page = jupyter_browser.LessonPage(browser, server, "demo.ipynb", **PROJECTED)
    try:
        page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        state = page.run_all(timeout_s=300)
        assert state["errors"] == [], state["errors"]
        page.page.locator(".ck-widget").nth(len(PART1) - 1).locator(".ck-figure").wait_for(timeout=60_000)
        yield page.page, {name: page.page.locator(".ck-widget").nth(i) for i, name in enumerate(PART1)}
    finally:
        page.close()
        server.close()


def test_guide2_demo_replayed(part1_widgets: tuple[Any, dict[str, Any]]) -> None:
    page, widgets = part1_widgets
    widget, en = widgets["02 communication"], _guide("en", "02")
    assert "per call 5 µs of latency vs 312 µs of transfer, bandwidth-bound; the step is 7.62 ms" in en
    assert "Per call: latency 5 µs, transfer 312 µs." in _summary(widget) and "bandwidth-bound" in _summary(widget)
    assert "= 7.62 ms" in widget_message(widget) and "7.62" not in _summary(widget)  # under the figure
    # 2. the payload down step by step: at 256 KiB past the dotted line (0.512 MiB), latency-bound
    shown = _slide(page, widget, "payload_mib", "256 KiB", "ArrowLeft")
    assert "below the crossover payload* = 0.512 MiB: latency-bound" in shown, shown
    # 3. at 16 KiB double the bandwidth: the total hardly moves; halve the latency (two presses): it nearly halves
    total = re.compile(r"= ([\d.]+) ms, latency-bound")
    start = float(total.search(_flat(_slide(page, widget, "payload_mib", "16 KiB", "ArrowLeft"))).group(1))  # type: ignore[union-attr]
    press(page, widget, "bandwidth_gib_s", "ArrowRight")
    assert _readout(widget, "bandwidth_gib_s") == "200"
    doubled = float(total.search(_flat(widget_message(widget))).group(1))  # type: ignore[union-attr]
    lows = [_readout(widget, "latency_us")]
    for _ in range(2):
        press(page, widget, "latency_us", "ArrowLeft")
        lows.append(_readout(widget, "latency_us"))
    assert lows == ["5", "3.4", "2.5"], lows  # "two presses of the left arrow: 5 → 3.4 → 2.5 µs"
    halved = float(total.search(_flat(widget_message(widget))).group(1))  # type: ignore[union-attr]
    assert doubled > 0.95 * start and halved < 0.55 * doubled, (start, doubled, halved)
    # 4. the intra-node preset: the crossover moves right to 1.46 MiB
    assert "crossover payload* = 1.46 MiB" in _pick(page, widget, "link", "Intra-node")
    _pick(page, widget, "link", "Cross-node")
    # 5. calls per step 0: "no communication in this step", under the figure
    shown = _slide(page, widget, "calls_per_step", "0", "Home")
    assert "no communication in this step" in shown and "no communication" not in _summary(widget)


def test_guide4_demo_replayed(part1_widgets: tuple[Any, dict[str, Any]]) -> None:
    page, widgets = part1_widgets
    widget = widgets["04 composition"]
    shown = widget_message(widget)
    assert "16 ranks; Megatron-Core rule" in shown and "Naive check issues: none Engine check issues: none" in _flat(
        shown
    )
    # 1. colour by DP, then PP: PP groups cross nodes, TP still fine
    _pick(page, widget, "colour_by", "DP")
    shown = _flat(_pick(page, widget, "colour_by", "PP"))
    assert "PP: 4 of 4 groups span more than one node" in shown and "Every TP group stays inside a node" in shown
    # 2. order PP-DP-CP-EP-TP, colour by TP: every TP group red, the interconnect reason under the figure
    _pick(page, widget, "order", "PP-DP-CP-EP-TP")
    shown = _flat(_pick(page, widget, "colour_by", "TP"))
    assert "[interconnect]" in shown and "TP: 8 of 8 groups span more than one node" in shown
    assert "[interconnect]" not in _summary(widget)
    # 3. back to the default order; EP = 2, dense: 32 against 16, issues ranks + structure / structure; then MoE
    _pick(page, widget, "order", "TP-CP-EP-DP-PP")
    shown = _flat(_pick(page, widget, "ep", "2"))
    assert (
        "Naive rule (every degree multiplies, EP included): 32 ranks" in shown
        and "rule (EP reuses the DP·CP ranks): 16" in shown
    )
    naive, engine = shown.split("Naive check issues:")[1].split("Engine check issues:")
    assert "[ranks]" in naive and "[structure]" in naive and "[structure]" in engine and "[ranks]" not in engine
    shown = _flat(_pick(page, widget, "model_kind", "MoE"))
    assert shown.startswith("Warning:") and "32 ranks" in shown and "Engine check issues: none" in shown
    # 4. DP = 1: Fail, 16 against 8, the ep_fold refusal quoted by the guide
    shown = _flat(_pick(page, widget, "dp", "1"))
    assert shown.startswith("Fail:") and "EP included): 16 ranks" in shown and "8 ranks = 1 × 8 GPUs" in shown
    quoted = "in Megatron-Core expert parallelism (EP) reuses data-parallel ranks"
    assert quoted in shown and "ETP·EP·PP = 2·2·4 = 16 does not divide 8" in shown
    assert quoted in _guide("en", "04")
    # 5. TP = 8, DP = 8: 256 ranks, above the drawing limit of 64
    _slide(page, widget, "tp", "8", "ArrowRight")
    shown = _flat(_pick(page, widget, "dp", "8"))
    assert "256 ranks exceed the drawing limit of 64" in shown, shown[-300:]


def test_guide6_demos_replayed(part1_widgets: tuple[Any, dict[str, Any]]) -> None:
    page, widgets = part1_widgets
    widget = widgets["06 pipeline"]
    bubble = re.compile(r"idle share of the step\): ([\d.]+%); formula \(p-1\)/\(v·m\+p-1\) = ([\d.]+%)")

    def shares() -> tuple[str, str]:
        found = bubble.search(_summary(widget))
        assert found, _summary(widget)
        return found.group(1), found.group(2)

    assert shares() == ("27.3%", "27.3%") and "Makespan 33.0 s" in widget_message(widget)
    assert "Makespan" not in _summary(widget)  # "(under the figure: scroll down)"
    _slide(page, widget, "microbatches", "16", "ArrowRight")
    assert shares()[0] == "15.8%"
    _slide(page, widget, "microbatches", "2", "ArrowLeft")
    assert shares()[0] == "60.0%"
    _slide(page, widget, "microbatches", "8", "ArrowRight")
    shown = _flat(_pick(page, widget, "schedule", "GPipe"))
    assert shares()[0] == "27.3%" and "Makespan 33.0 s" in shown and "(activations held at once): 8, 8, 8, 8" in shown
    _pick(page, widget, "schedule", "interleaved")
    assert _readout(widget, "virtual_stages") == "2" and shares()[0] == "15.8%"
    shown = _slide(page, widget, "microbatches", "6", "ArrowLeft")
    assert "move m to one of 4, 8, 12, 16" in shown, shown
    _pick(page, widget, "schedule", "1F1B")
    assert _readout(widget, "virtual_stages") == "1"
    assert widget.locator(".ck-control-virtual_stages [disabled]").count() >= 1  # greyed out
    _slide(page, widget, "microbatches", "8", "ArrowRight")
    _pick(page, widget, "slow_stage", "2")
    _slide(page, widget, "slow_factor", "1.50", "ArrowLeft")
    assert shares() == ("37.9%", "27.3%")
    _slide(page, widget, "slow_factor", "2.00", "ArrowRight")
    assert shares()[0] == "45.5%"
    _slide(page, widget, "stages", "8", "ArrowRight")
    _pick(page, widget, "slow_stage", "6")
    assert shares() == ("59.7%", "46.7%")
    _slide(page, widget, "stages", "4", "ArrowLeft")
    options = [_flat(text) for text in widget.locator(".ck-control-slow_stage select option").all_inner_texts()]
    assert options == ["none", "0", "1", "2", "3"] and shares()[0] == "27.3%"

    widget = widgets["06 scaling"]
    efficiency = re.compile(r"E\(512\) = ([\d.]+)")

    def e512() -> str:
        return efficiency.search(_summary(widget)).group(1)  # type: ignore[union-attr]

    assert e512() == "0.47" and "Diagnosis: exposed communication" in widget_message(widget)
    _slide(page, widget, "overlap", "0.50", "ArrowRight")
    assert e512() == "0.64"
    _slide(page, widget, "overlap", "0.80", "ArrowRight")
    assert e512() == "0.82"
    _slide(page, widget, "overlap", "0.00", "Home")
    _slide(page, widget, "bandwidth_gb_s", "450", "ArrowRight")
    assert e512() == "0.89"
    _slide(page, widget, "compute_ms", "100", "ArrowLeft")
    assert e512() == "0.62"
    _slide(page, widget, "bandwidth_gb_s", "50", "ArrowLeft")
    assert e512() == "0.15"


def test_guide10_demo_replayed(part1_widgets: tuple[Any, dict[str, Any]]) -> None:
    page, widgets = part1_widgets
    widget, en = widgets["10 serving"], _guide("en", "10")
    for option in ("`llama3-70b`", "`h100-8`", "`gpt2-small`", "`llama3-8b`", "a100-8"):
        assert option in en and option in _guide("zh", "10"), option
    shown_options = [_flat(t) for t in widget.locator(".ck-control-model select option").all_inner_texts()]
    assert {"llama3-70b", "gpt2-small", "llama3-8b"} <= set(shown_options), shown_options
    defaults = widget_message(widget)
    assert "TTFT >= 66 ms, TPOT >= 12.7 ms" in _flat(defaults) and "weights 16.43" in _summary(widget)
    # 1. the batch from 1 to 256, typed into the readout
    _type_readout(page, widget, "batch", "1")
    _type_readout(page, widget, "batch", "256")
    assert _readout(widget, "batch") == "256"
    # 2. TP = 1: does not fit, 131.4 GiB of weights on 80 GiB
    shown = _pick(page, widget, "tp", "1")
    assert "weights 131.4" in _summary(widget) and "/ 80 GiB, does not fit" in shown
    # 3. gpt2-small, "TP per replica" 8: the message the guide quotes
    _pick(page, widget, "model", "gpt2-small")
    shown = _pick(page, widget, "tp", "8")
    assert "TP per replica = 8 does not divide the 12 attention heads" in shown and "Traceback" not in shown
    assert "TP per replica = 8 does not divide the 12 attention heads" in en
    assert _label(widget, "tp") == "TP per replica"
    # 4. llama3-8b, TP 1, batch back to 64, prompt 32768
    _pick(page, widget, "model", "llama3-8b")
    _pick(page, widget, "tp", "1")
    _type_readout(page, widget, "batch", "64")
    shown = _slide(page, widget, "prompt_tokens", "32768", "End")
    assert "does not fit" in shown
    # 5. run the cell again (the defaults), FP8 W8A8: TTFT 66 -> 48 ms, TPOT 12.7 -> 10.1 ms (under the figure),
    # weights per rank 16.4 -> 8.2 GiB; then a100-8: no numbers, A100 has no FP8 tensor cores
    before = widget.locator(".ck-figure").first.get_attribute("src")
    page.evaluate(
        """(i) => { const panel = window.jupyterapp.shell.currentWidget; panel.content.activeCellIndex = i;
             return window.jupyterapp.commands.execute('notebook:run-cell'); }""",
        PART1.index("10 serving") + 1,
    )
    widget = page.locator(".ck-widget").nth(PART1.index("10 serving"))
    for _ in range(300):
        page.wait_for_timeout(100)
        if widget.locator(".ck-figure").count() and widget.locator(".ck-figure").first.get_attribute("src") != before:
            break
    assert _readout(widget, "batch") == "64" and _readout(widget, "prompt_tokens") == "2048"
    assert "TTFT >= 66 ms, TPOT >= 12.7 ms" in _flat(widget_message(widget))
    shown = _flat(_pick(page, widget, "precision", "FP8 W8A8"))
    assert "TTFT >= 48 ms, TPOT >= 10.1 ms" in shown and "weights 8.2" in _summary(widget), shown
    assert "TTFT" not in _summary(widget)
    assert "1979 TFLOP/s" in shown and "989 TFLOP/s" in shown
    for number in ("**66 ms** → **48 ms**", "**12.7 ms** → **10.1 ms**", "**16.4** → **8.2** GiB"):
        assert number in en, number
    shown = _flat(_pick(page, widget, "gpu", "a100-8"))
    assert "a100-8 has no FP8 tensor cores" in shown and "TTFT" not in shown, shown


def test_guide0_replayed(browser: Any) -> None:
    """Lesson 0 as guide 0 teaches it: the GB/GiB table's DP row, exercise 0.1 answered as the guide gives it and as
    its typical slip, and the terms cell (eight terms, DP to Replica, the other language in parentheses)."""
    from .test_learner_review24 import _cell_index, _type_first_line

    en = _guide("en", "00")
    assert "120.00 GB = **111.76 GiB**" in en and "| **25.77** GB" in en and "| 22.35 (divided instead" in en
    with (
        running_lab(settings=jupyter_browser.make_lab_settings("en")) as server,
        lesson_page(browser, server, "en/00_index.ipynb", **PROJECTED) as lesson,
    ):
        lesson.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        state = lesson.run_all(timeout_s=300)
        assert state["errors"] == [], state["errors"]
        outputs = [_flat(text) for text in lesson.page.locator(".jp-OutputArea-output").all_inner_texts()]
        dp_row = next(text for text in outputs if "120.00" in text)
        assert "DP 120.00 GB = 111.76 GiB per device" in dp_row, dp_row
        terms = next(text for text in outputs if text.startswith("Abbr. Term Definition"))
        # each of the eight terms: its abbreviation, the English term, the Chinese in parentheses
        found = re.findall(r"\b(DP|ZeRO|FSDP|TP|PP|CP|EP|Replica) [A-Za-z -]+ \([^)]*[\u4e00-\u9fff][^)]*\)", terms)
        assert found == ["DP", "ZeRO", "FSDP", "TP", "PP", "CP", "EP", "Replica"], (found, terms[:300])
        index = _cell_index(lesson.page, 'check("intro.device_gb", answer)')
        right = _type_first_line(lesson, index, "answer = 25.77")
        assert right.startswith("Correct"), right
        slip = _type_first_line(lesson, index, "answer = 22.35")
        assert not slip.startswith("Correct") and "divided" in slip.lower(), slip
