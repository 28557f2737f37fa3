"""What the Chinese self-learner of review 24 met typing answers in lessons 4, 6, 7, 8 and 10 in JupyterLab, fixed.

1. ``answer =`` with nothing after it (the learner deleted ``...`` to type an answer and pressed Shift+Enter too early):
   Python's bare ``SyntaxError: invalid syntax`` and no line of help, the only one of the slips typed in review 24
   (full-width digits, a unit, "约", a percent sign, a decimal comma, ...) that got none. Now the line says that the
   equals sign has nothing after it and how to go back to "not answered" (``answer = ...``).
2. Lesson 6's prose rounded what the table beside it prints: "占整步的比例就是 43%" and "比例降到 16%" under a table of
   42.9% and 15.8% (3/7 and 3/19), "见上面 m = 4 的 43%", and "加上优化器状态就是 11 GiB" above a table row of
   11.32 GiB. The prose now quotes the table's digits (42.9%, 15.8%, 11.3 GiB), zh and en. Lesson 7 likewise:
   "选择性重计算只多 4%" under a table row of 1.044 (now 4.4%).
3. ``answer = 206,0`` (exercise 7.2's ridge point, 206, with a decimal comma) is the tuple ``(206, 0)``, the same as
   ``206,000``: the checker said "206,000 成了元组" (a number the learner never typed) and offered 206.000 or 206000.
   When the tuple's second item is 0 the checker now reads how the cell typed it: one or two zeros after the comma
   are a decimal comma ("写成 206.0"); three keep the two readings.
4. Lesson 4's try-this step 3 ("设 EP = 2 ... 再把 DP 改成 1，会发生什么？") asks for both counts; the composition
   widget answered "这些输入无法计算：..." with no count, and its figure "输入无效，见上方说明", though the prose
   says its message opens with the verdict (通过、警告或不通过), and an EP the engine cannot fold is the engine's
   verdict (lesson 4's cell prints it as "引擎不能排出这个方案"). Now it is "不通过" with both counts, the engine's
   [ep_fold] issue and the dense layers' ranks in the figure; coloured by EP it says there are no EP groups.
5. ``answer = fsdp2-zero2`` (exercise 8.5's option without quotes) is ``fsdp2 - zero2`` to Python: the NameError's
   help said 'fsdp2' is defined in a cell above and to run the cells above, which cannot help. An unquoted option
   with hyphens now gets the option hint with the whole option quoted: ``answer = 'fsdp2-zero2'``.
6. Lesson 7's roofline widget labelled its red point "473 FLOP/B, 839 TFLOP/s" in the Chinese figure, whose axis reads
   FLOP/字节, and centred the label under the point, where the roofline's slope ran through it (try-this steps 2
   and 3, memory-bound and near the ridge). The label is now in the figure's language and sits below and to the
   right of the point, clear of both lines.
7. Clicking "显示参考解答与结果" under exercise 8.10 showed "E(4) = step(1) / step(4) = 0.16", English words in a
   Chinese result (its hint and the table say 步时); two of its slip hints too. Exercise 6.1's result said
   "气泡从 43% 降到 16%" next to the lesson's table of 42.9% and 15.8%. Now 步时(1) / 步时(4), and 42.9% / 15.8%.
"""

from __future__ import annotations

import linecache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from coursekit.exercises.input_help import input_hint
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)
from tests.test_learner_review23 import _name_error

SRC = Path(__file__).resolve().parents[1] / "notebooks" / "src"


def _syntax_error(source: str) -> SyntaxError:
    try:
        compile(source, "<cell>", "exec")
    except SyntaxError as error:
        return error
    raise AssertionError(f"{source!r} raised no SyntaxError")


# -- 1. answer = with nothing after it --------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_an_empty_answer_gets_a_line_of_help() -> None:
    # the exercise cell as the learner left it: the first line emptied, check() under it
    hint = input_hint(_syntax_error('answer =\ncheck("q4.naive_ranks", answer)\n'))
    assert hint == (
        "第 1 行的等号后面是空的：Python 要求 = 右边有一个值。在 answer = 后面写上你的答案，"
        "再运行本单元格；还没想好就写回 answer = ...（表示还没作答）。"
    )
    # a comment after the equals sign is still nothing; the line number is the error's
    later = input_hint(_syntax_error("x = 1\nanswer =   # 填这里\n"))
    assert later is not None and later.startswith("第 2 行的等号后面是空的")
    # other syntax errors keep their own help (or none): a percent sign, a stray bracket
    percent = input_hint(_syntax_error("answer = 15.8%\n"))
    assert percent is not None and "百分号" in percent
    assert input_hint(_syntax_error("answer = [5, 7\n")) is None


@pytest.mark.usefixtures("en")
def test_an_empty_answer_in_english() -> None:
    hint = input_hint(_syntax_error("answer = \n"))
    assert hint is not None and hint.startswith("Line 1 has nothing after its equals sign")
    assert "answer = ..." in hint


# -- 2. lesson 6's prose quotes the table's digits ------------------------------------------------------------------


def test_lesson_6_prose_quotes_the_digits_of_the_table_beside_it() -> None:
    import coursekit
    from coursekit.capacity import training_state_memory

    source = (SRC / "06_pipeline_scaling.py").read_text(encoding="utf-8")
    # the table prints f"{fraction:.1%}": (4-1)/(4+4-1) = 3/7 = 42.857 %, (4-1)/(16+4-1) = 3/19 = 15.789 % (by hand)
    assert f"{coursekit.bubble_fraction(4, 4):.1%}" == "42.9%"
    assert f"{coursekit.bubble_fraction(4, 16):.1%}" == "15.8%"
    for phrase in ("占整步的比例就是 42.9%", "比例降到 15.8%", "m = 4 的 42.9%", "it is 42.9%", "down to 15.8%"):
        assert phrase in source, phrase
    for rounded in ("就是 43%", "降到 16%", "的 43%", "it is 43%", "to 16%", "(43% at"):
        assert rounded not in source, rounded
    # the table row "完整训练状态（混合精度 Adam）" prints 760e6 x 16 bytes / 2^30 = 11.32 GiB (by hand)
    assert f"{training_state_memory(760e6).total_gib:.2f}" == "11.32"
    assert "加上优化器状态就是 11.3 GiB" in source and "state it is 11.3 GiB" in source


def test_lesson_7_prose_quotes_the_selective_recomputation_row() -> None:
    from coursekit.presets import MODELS
    from coursekit.roofline import hardware_flops_per_token, model_flops_per_token

    llama = MODELS["llama3-70b"]
    args = (llama.num_params, llama.layers, llama.hidden, 8192)
    ratio = hardware_flops_per_token(*args, "selective") / model_flops_per_token(*args)
    # 4·L·h·s / (6N + 12·L·h·s) with N = 70.6e9, L = 80, h = 8192, s = 8192: 21.5e9 / 487e9 = 4.4 % (by hand)
    assert f"{ratio:.3f}" == "1.044" and f"{ratio - 1:.1%}" == "4.4%"
    source = (SRC / "07_compute_efficiency.py").read_text(encoding="utf-8")
    assert "选择性重计算只多 4.4%" in source and "adds only 4.4%" in source
    assert "只多 4%" not in source and "only 4%" not in source


# -- 3. answer = 206,0 -------------------------------------------------------------------------------------------


def _run_cell(source: str, name: str) -> str:
    """Run ``source`` as a learner's cell (IPython keeps a cell's code in linecache) and return check()'s message."""
    from coursekit.exercises import check

    filename = f"<review24-{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, object] = {"__name__": "__main__", "check": check}
    try:
        exec(compile(source, filename, "exec"), namespace)
    finally:
        linecache.cache.pop(filename, None)
    return str(namespace["feedback"].message)  # type: ignore[attr-defined]


@pytest.mark.usefixtures("zh")
def test_a_decimal_comma_before_a_zero_is_not_read_as_thousands() -> None:
    # exercise 7.2: 989 TFLOP/s / 4.8 TB/s = 206.04 FLOP/byte (worked by hand); 206,0 is 206.0 written with a comma
    typed = _run_cell('answer = 206,0\nfeedback = check("eff.h200_ridge", answer)\n', "ridge")
    assert "206,0 成了元组" in typed and "写成 206.0。" in typed
    assert "206,000" not in typed and "206000" not in typed
    two_zeros = _run_cell('answer = 64,00\nfeedback = check("serve.littles_law", answer)\n', "little")
    assert "写成 64.00。" in two_zeros
    # a count (exercise 4.2: 2 x 2 x 2 x 2 x 4 = 64 ranks, an int) takes no decimals: 64,0 is 64
    count = _run_cell('answer = 64,0\nfeedback = check("q4.naive_ranks", answer)\n', "ranks")
    assert "64,0 成了元组" in count and "写成 64。" in count and "64000" not in count
    # three zeros may be either: both readings stay on offer
    three = _run_cell('answer = 206,000\nfeedback = check("eff.h200_ridge", answer)\n', "ridge3")
    assert "206.000" in three and "206000" in three


@pytest.mark.usefixtures("en")
def test_a_decimal_comma_before_a_zero_in_english() -> None:
    typed = _run_cell('answer = 206,0\nfeedback = check("eff.h200_ridge", answer)\n', "ridge-en")
    assert "so 206,0 became a tuple" in typed and "Write decimals with a point: 206.0." in typed


# -- 4. an EP that does not fold is the engine's verdict, not an input error -----------------------------------------


@pytest.mark.usefixtures("zh")
def test_lesson_4_try_this_step_3_gets_a_verdict_with_both_counts() -> None:
    from coursekit.widgets.composition import CompositionWidget

    widget = CompositionWidget()  # the reference example: TP 2, PP 4, DP 2, 8 GPUs a node
    widget.controls["ep"].value = 2
    widget.controls["dp"].value = 1
    # naive: 2 x 4 x 1 x 2 = 16 ranks; the engine: TP·CP·DP·PP = 2 x 1 x 1 x 4 = 8, and ETP·EP·PP = 2·2·4 = 16 does not
    # divide 8 (worked by hand)
    assert widget.status == "ok" and widget.verdict == "fail"
    assert widget.message.startswith("<b>朴素规则（所有并行度相乘，EP 也算）：16 个 rank；Megatron-Core 规则")
    assert "8 个 rank = 1 个节点 × 每节点 8 张 GPU" in widget.message
    assert "[ep_fold]" in widget.message and "ETP·EP·PP = 2·2·4 = 16 不能整除 8" in widget.message
    assert "不通过" in widget.summary_html.value and "无法计算" not in widget.summary_html.value
    assert widget.result is not None and not widget.result.experts_fold
    widget.controls["colour_by"].value = "EP"
    assert "EP：引擎排不出专家层" in widget.message
    assert set(widget.result.group_of_rank) == {0}  # one colour: there are no EP groups
    widget.controls["dp"].value = 2  # DP·CP = 2: EP 2 folds again
    assert widget.result.experts_fold and "[ep_fold]" not in widget.message


@pytest.mark.usefixtures("en")
def test_an_ep_that_does_not_fold_in_english() -> None:
    from coursekit.widgets.composition import CompositionWidget

    widget = CompositionWidget()
    widget.controls["ep"].value = 2
    widget.controls["dp"].value = 1
    widget.controls["colour_by"].value = "EP"
    assert widget.verdict == "fail" and "there are no EP groups to colour" in widget.message


# -- 5. an option with hyphens typed without quotes --------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_an_unquoted_option_with_hyphens_is_told_to_quote_it_whole() -> None:
    # exercise 8.5 lists "ddp", "fsdp2-zero3", "fsdp2-zero2", "tp"
    hint = input_hint(_name_error("answer = fsdp2-zero2"), "answer = fsdp2-zero2")
    assert hint is not None and "要加引号写成文字：answer = 'fsdp2-zero2'。" in hint
    # a subtraction with a number is no option: the hint for a variable from a cell above stays
    other = input_hint(_name_error("answer = total-1"), "answer = total-1")
    assert other is not None and "'total-1'" not in other and "前面的单元格" in other


@pytest.mark.usefixtures("en")
def test_an_unquoted_option_with_hyphens_in_english() -> None:
    hint = input_hint(_name_error("answer = fsdp2-zero3"), "answer = fsdp2-zero3")
    assert hint is not None and "write it in quotes: answer = 'fsdp2-zero3'." in hint


# -- 6. lesson 7's roofline widget: the point's label ------------------------------------------------------------


def _line_points_in_label(widget: Any) -> int:
    """How many of 4000 points sampled along each roofline (hard and smooth, straight in log-log) fall inside the
    drawn box of the red point's label."""
    renderer = widget.figure.canvas.get_renderer()
    box = widget.point_text.get_window_extent(renderer)
    inside = 0
    for line in (widget.hard_line, widget.smooth_line):
        xs, ys = (np.log10(np.asarray(values, dtype=float)) for values in line.get_data())
        where = np.linspace(0, len(xs) - 1, 4000)
        samples = np.column_stack([10 ** np.interp(where, np.arange(len(xs)), series) for series in (xs, ys)])
        shown = widget.ax.transData.transform(samples)
        inside += int(
            np.sum((shown[:, 0] > box.x0) & (shown[:, 0] < box.x1) & (shown[:, 1] > box.y0) & (shown[:, 1] < box.y1))
        )
    return inside


@pytest.mark.usefixtures("zh")
def test_the_roofline_points_label_is_chinese_and_clear_of_the_lines() -> None:
    from coursekit.plotting import plot_language
    from coursekit.widgets.roofline import RooflineWidget

    widget = RooflineWidget()  # Llama 3 70B on H100, TP 8, micro-batch 1, s 8192
    if plot_language() == "zh":  # a machine without a CJK font draws English labels
        assert "FLOP/字节" in widget.point_text.get_text() and "FLOP/B" not in widget.point_text.get_text()
    # memory-bound (try-this step 2: CP 32 leaves 8192 / 32 = 256 tokens), near the ridge, compute-bound
    for settings in ({"seq_len": 1024, "cp": 32}, {"cp": 16, "seq_len": 8192, "tp": 1}, {"cp": 1, "tp": 8}):
        for name, value in settings.items():
            widget.controls[name].value = value
        assert _line_points_in_label(widget) == 0, (settings, widget.point_text.get_text())


@pytest.mark.usefixtures("en")
def test_the_roofline_points_label_in_english() -> None:
    from coursekit.widgets.roofline import RooflineWidget

    text = RooflineWidget().point_text.get_text()
    assert "FLOP/B, " in text and text.endswith(" TFLOP/s")


# -- 7. the worked results speak Chinese and quote the table's digits ---------------------------------------------


@pytest.mark.usefixtures("zh")
def test_exercise_8_10_result_and_slips_say_step_time_in_chinese() -> None:
    from coursekit.exercises import check

    # the recorded E(P) table: step(1) = 13.44 ms, step(4) = 84.04 ms, so E(4) = 13.44 / 84.04 = 0.16 (by hand)
    right = check("lab.efficiency_4", 0.16).message
    assert "E(4) = 步时(1) / 步时(4) = 0.16。" in right and "step(" not in right
    inverted = check("lab.efficiency_4", 6.25).message  # 84.04 / 13.44
    assert "步时(1) / 步时(P)" in inverted and "step(" not in inverted
    strong = check("lab.efficiency_4", 0.04).message  # 0.16 / 4: divided by P once more
    assert "步时(1) / 步时(P)" in strong and "step(" not in strong


@pytest.mark.usefixtures("zh")
def test_exercise_6_1_result_quotes_the_tables_digits() -> None:
    from coursekit.exercises import check

    # 3/7 = 42.857 % at m = 4 and 3/19 = 15.789 % at m = 16 (by hand), as lesson 6's table prints them
    assert "气泡从 42.9% 降到 15.8%。" in check("pipeline.bubble_p4_m16", 0.158).message
