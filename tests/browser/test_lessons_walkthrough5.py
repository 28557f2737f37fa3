"""Walk-through of lesson 10 (serving) in real JupyterLab, read as a Chinese self-learner would, checked in English.

What a file-level test cannot see: the comment a zh reader finds in a code cell, whether a printed result explains
the number it states, the text of a folded self-check answer once it is opened, and how a table's numbers read side
by side. These tests open the lesson in the session's JupyterLab, run it all and read the cells' visible text.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from coursekit.widgets import node_label

from .conftest import choose, press
from .test_lessons_walkthrough2 import _message
from .test_lessons_walkthrough3 import _cell_with

_LATIN_WORDS = re.compile(r"[A-Za-z]{3,}(?: [A-Za-z]{2,}){2,}")  # three English words in a row


@pytest.mark.parametrize(
    ("notebook", "keeps_up", "behind"),
    [
        ("zh/10_serving.ipynb", "跟得上", "跟不上"),
        ("en/10_serving.ipynb", "it keeps up", "it falls behind"),
    ],
)
def test_lesson10_reads_whole_in_the_browser(open_lesson: Any, notebook: str, keeps_up: str, behind: str) -> None:
    page = open_lesson(notebook).page
    zh = notebook.startswith("zh")

    # Section 7: the cell printed a bare "20.0" under an English-only comment (also in the zh lesson), then stated
    # "8 requests in flight per replica" with nothing that says where 8 comes from (Little's law alone gives 6.2).
    rate = _cell_with(page, "littles_law_concurrency(8.0, 2.5)")
    code, _, shown = rate.partition("littles_law_concurrency(8.0, 2.5) = 20")
    assert shown, rate
    if zh:
        comments = [line for line in code.splitlines() if "#" in line]
        assert not any(_LATIN_WORDS.search(line.split("#", 1)[1]) for line in comments), comments
    numbers = re.search(r"c = (\d+)", shown)
    assert numbers, shown
    c = int(numbers.group(1))
    per_replica = re.search(r"replicas=(\d+) tp=(\d+)", shown)
    assert per_replica and 8 / int(per_replica.group(1)) == 1.0, shown  # 8 requests/s over 8 replicas
    at_c = re.search(
        rf"c = {c}[^\n]*?λ × W = ([\d.]+) ≤ {c}[^\n]*?([\d.]+) (?:个请求|requests/s)[^\n]*{keeps_up}", shown
    )
    below = re.search(rf"c = {c - 1}[^\n]*?λ × W = ([\d.]+)[^\n]*?([\d.]+) (?:个请求|requests/s)[^\n]*{behind}", shown)
    assert at_c and below, shown
    assert float(at_c.group(1)) <= c and float(at_c.group(2)) >= 1.0  # Little's law holds and the replica keeps up
    assert float(below.group(1)) <= c - 1 and float(below.group(2)) < 1.0  # only the throughput rules out c - 1

    # Section 3: "no layout passes" for a training batch was a claim without a number. Per rank at TP 8: weights
    # 70.6e9 × 2 bytes / 8 = 16.4 GiB, KV cache 1024 × 8192 tokens × 40 KiB (Llama-3 70B: 2 · 80 layers · 1 KV head
    # per GPU · 128 · 2 bytes) = 320 GiB, reserve 2 GiB: about 339 GiB on an 80 GiB device.
    training = _cell_with(page, "training_batch = ")
    assert re.search(r"\b339 / 80 GiB", training), training
    if zh:
        assert "全局批次 (global batch)" in _cell_with(page, "当作并发请求")

    # Section 9: the published throughput read "1928" next to the bound "2,441".
    table = _cell_with(page, "PUBLISHED_MEASUREMENTS:")
    assert "\t1,928\t2,441\t" in table, table[-400:]

    # Self-check answer 3 said every decode step uses all the weights; section 4 says an MoE reads only the routed
    # experts (its active parameters at batch 1).
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    answers = _cell_with(page, "参考答案" if zh else "Answers")
    third = next(line for line in answers.splitlines() if "HBM" in line)
    assert ("MoE" in third and "激活参数" in third) if zh else ("MoE" in third and "active parameters" in third)
    assert "全部权重，每张卡" not in third and "uses all the weights," not in third, third

    # The widget at its extremes: a message in the lesson's language, no traceback.
    widget = page.locator(".ck-widget").first
    widget.scroll_into_view_if_needed()
    a100 = getattr(node_label("a100-8"), notebook[:2])  # the menu shows what a node holds: "a100-8：8 × 80 GiB"
    for key, value in (("model", "mixtral-8x7b"), ("gpu", a100), ("tp", "1")):
        choose(page, widget, key, value)
    for key in ("prompt_tokens", "output_tokens", "batch"):
        press(page, widget, key, "End")
    message = _message(widget)
    assert "Traceback" not in message and "2560.0" in message, message
    assert message.startswith("不通过" if zh else "Fail"), message
