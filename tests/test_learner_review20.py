"""What the Chinese self-learner of review 20 met in lessons 0, 4, 6, 7 and 10 and the glossary, fixed.

1. Lesson 7's roofline widget: choosing GPT-2 small at the default TP 8 said "张量并行度 TP = 8：必须整除 heads = 12。",
   an English parameter name, and neither the model nor the TP values that work.
2. English words in Chinese hints: exercise 6.3's hint and its speed-up slip wrote E(P) = throughput(P) / ..., and so
   did the glossary's 扩展效率 entry and lesson 8's E(P) hint; the lesson itself writes 吞吐(P).
3. Exercise 4.4 (a True/False question) answered '是' or '否' got "必须是 True 或 False，而不是 str", naming Python's
   types but not the fix.
4. Exercise 6.2's cell checks the entries of a dict (``"compute_ms": ...``), but a quoted or comma-written entry was
   told to write "answer = 240": the cell has no variable answer.
5. Lesson 10 said nothing about what it needs; lesson 7's roofline (section 4) and lesson 1's ledger are used as
   known, and lessons 8 and 9 (95 and 160 minutes) are not needed.
6. Terms the lessons use that the glossary lacked: MHA, MQA (lessons 7 and 10), GEMM (lesson 6), 加速比 (lesson 6's
   table and hints), 步时间线 (lesson 6), 前缀缓存 (lesson 10).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from coursekit.exercises import check
from coursekit.widgets.roofline import RooflineWidget
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)

ROOT = Path(__file__).resolve().parents[1]

# -- 1. the roofline widget, a TP that does not divide the model's heads ------------------------------------------


@pytest.mark.usefixtures("zh")
def test_the_roofline_widget_names_the_heads_and_the_tp_values_that_work() -> None:
    widget = RooflineWidget()  # TP 8
    widget.controls["model"].value = "gpt2-small"  # 12 heads (GPT-2 small: 12 layers, 12 heads, d 768)
    assert widget.status == "invalid"
    assert widget.message == (
        "这些输入无法计算：张量并行度 TP = 8 不整除 GPT-2 small 的 12 个注意力头（每个 rank 要拿到整数个头）："
        "请把 TP 调到 1、2、4 之一，或换一个模型。"
    )
    assert "heads" not in widget.message
    widget.controls["tp"].value = 4
    assert widget.status == "ok"


# -- 2. English words in Chinese hints --------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_the_efficiency_hints_write_throughput_in_chinese() -> None:
    general = check("pipeline.efficiency", 0.5).message  # no named slip: the exercise's hint
    assert "E(P) = 吞吐(P) / (P · 吞吐(1))" in general and "throughput" not in general
    speed_up = check("pipeline.efficiency", 6800 / 250)  # S(32) = 27.2 instead of E(32)
    assert speed_up.slip == "speed_up_not_efficiency"
    assert "S(P) = 吞吐(P) / 吞吐(1)" in speed_up.message and "throughput" not in speed_up.message


def test_the_glossary_and_lesson_8_write_throughput_in_chinese() -> None:
    from coursekit.exercises import get_exercise
    from coursekit.glossary import lookup

    assert lookup("扩展效率").definition.zh.startswith("E(P) = 吞吐(P) / (P × 吞吐(1))")
    hint = get_exercise("lab.efficiency_4").hint.zh
    assert "E(P) = 吞吐(P) / (P · 吞吐(1))" in hint and "throughput" not in hint and "step(" not in hint
    source = (ROOT / "notebooks" / "src" / "08_lab.py").read_text(encoding="utf-8")
    zh_lines = [line for line in source.splitlines() if "E(P) =" in line and "按第 6 课的定义" in line]
    assert zh_lines and all("throughput" not in line for line in zh_lines)


# -- 3. a True/False question answered in words -------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("word", ["是", "否", "对", "不是", "是。", "yes", "Ｎｏ"])
def test_yes_or_no_in_words_is_told_how_python_writes_it(word: str) -> None:
    feedback = check("q4.tp_crosses", word)
    assert feedback.status == "invalid"
    assert "Python 里“是”写作 True，“否”写作 False（不加引号，首字母大写）" in feedback.message
    assert "而不是 str" not in feedback.message
    # both spellings are named, so the message does not give the answer away
    assert check("q4.tp_crosses", True).correct


@pytest.mark.usefixtures("en")
def test_yes_or_no_in_words_in_english() -> None:
    assert "in Python “yes” is written True and “no” False" in check("q4.tp_crosses", "no").message


# -- 4. the timeline cell's entries are written as entries ----------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_a_labelled_entry_is_written_as_the_entry(capsys: pytest.CaptureFixture[str]) -> None:
    check("pipeline.timeline_compute_ms", "240 ms", label="compute_ms")
    shown = capsys.readouterr().out
    assert '只写数，不加引号、不带单位，用题目要求的单位："compute_ms": 240。' in shown
    assert "answer =" not in shown
    check("pipeline.timeline_exposed_ms", (3, 0), label="exposed_ms")  # 3,0 written for 3.0
    assert '"exposed_ms": (3, 0)：Python 把逗号读成了' in capsys.readouterr().out
    # a label that is no variable name (lesson 5's "案例 1, PP") leaves the message as it is
    check("pipeline.timeline_compute_ms", "240 ms", label="案例 1, PP")
    assert "answer = '240 ms'" in capsys.readouterr().out


# -- 5. lesson 10 states its prerequisites --------------------------------------------------------------------------


def _first_markdown(lang: str, stem: str) -> str:
    cells = json.loads((ROOT / "notebooks" / lang / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    return "".join(next(cell for cell in cells if cell["cell_type"] == "markdown")["source"])


def test_lesson_10_states_what_it_needs() -> None:
    zh_header, en_header = _first_markdown("zh", "10_serving"), _first_markdown("en", "10_serving")
    assert "> **前置：** 第 1 课的显存账本" in zh_header and "第 7 课的屋顶线" in zh_header
    assert "第 8、9 课不是必需的。" in zh_header
    assert "> **Prerequisites:** lesson 1's memory ledger" in en_header
    assert "Lessons 8 and 9 are not needed." in en_header
    # what it names is what the lesson leans on: its text sends the learner back to lessons 1 and 7 only
    cells = json.loads((ROOT / "notebooks" / "zh" / "10_serving.ipynb").read_text(encoding="utf-8"))["cells"]
    body = "\n".join("".join(cell["source"]) for cell in cells[1:] if cell["cell_type"] == "markdown")
    assert set(re.findall(r"第 (\d+) 课", body.split("导航：")[0])) <= {"1", "7", "10"}


# -- 6. glossary terms ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("term", "zh_name", "en_name"),
    [
        ("MHA", "多头注意力", "multi-head attention"),
        ("MQA", "多查询注意力", "multi-query attention"),
        ("GEMM", "通用矩阵乘", "general matrix multiply"),
        ("加速比", "加速比", "speed-up"),
        ("步时间线", "步时间线", "step timeline"),
        ("前缀缓存", "前缀缓存", "prefix caching"),
    ],
)
def test_terms_the_lessons_use_are_in_the_glossary(term: str, zh_name: str, en_name: str) -> None:
    from coursekit.glossary import lookup

    entry = lookup(term)
    assert (entry.zh, entry.en) == (zh_name, en_name)
    glossary = json.loads((ROOT / "notebooks" / "zh" / "glossary.ipynb").read_text(encoding="utf-8"))
    assert zh_name in "".join("".join(cell["source"]) for cell in glossary["cells"])


# -- 7. lesson 10's serving widget: the weights floor is named, the ledger's legend clear of the device line ---------


@pytest.mark.usefixtures("zh")
def test_the_serving_curve_names_its_weights_floor() -> None:
    from coursekit.widgets.serving import ServingWidget

    widget = ServingWidget()
    legend = widget.ax_curve.get_legend()
    assert [text.get_text() for text in legend.get_texts()] == ["放不下", "权重下限"]
    # the line the legend names is the floor the message quotes: TPOT >= ... (其中 ... 权重下限 5.3 ms)
    assert "权重下限 5.3 ms" in widget.message
    assert widget.floor_line.get_xdata()[0] == pytest.approx(widget.result.estimate.weights_floor_s * 1e3)
    source = (ROOT / "notebooks" / "src" / "10_serving.py").read_text(encoding="utf-8")
    assert "灰色点线是权重下限（图例里也标出）" in source and "虚线是权重下限" not in source


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("model", ["llama3-70b", "gpt3-175b"])
def test_the_ledger_legend_stays_clear_of_the_device_line(model: str) -> None:
    """The legend sat in the upper corner, where the device line (80 GiB, red) crossed it; at 690 GiB of ledger the
    line sits low, so no corner inside the axes is safe: the legend goes above them."""
    from coursekit.widgets.serving import ServingWidget

    widget = ServingWidget()
    widget.controls["model"].value = model
    figure = widget.ax_mem.figure
    renderer = figure.canvas.get_renderer()
    legend_box = widget.ax_mem.get_legend().get_window_extent(renderer)
    axes_box = widget.ax_mem.get_window_extent(renderer)
    assert legend_box.y0 >= axes_box.y1 - 1  # wholly above the axes, so no line inside them can cross it


# -- 8. slips that got only the exercise's general hint -----------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_gib_to_gb_with_one_factor_of_1_024() -> None:
    # 24 GiB = 24 × 2^30 bytes = 25.77 × 10^9 bytes; 24 × 1.024 = 24.576 uses the KiB/kB ratio once, not cubed
    feedback = check("intro.device_gb", 24.576)
    assert feedback.slip == "one_factor_1024" and "你只乘了一次 1.024" in feedback.message
    assert "25.7" not in feedback.message
    assert check("intro.device_gb", 25.77).correct


@pytest.mark.usefixtures("zh")
def test_the_pp_group_for_the_dp_group() -> None:
    # Megatron-Core's docstring example (16 GPUs, TP 2, PP 4): PP groups [1, 5, 9, 13], DP groups [5, 7]
    feedback = check("q4.dp_group", [1, 5, 9, 13])
    assert feedback.slip == "pp_group" and "这是 rank 5 的流水线并行 (PP) 组" in feedback.message
    assert "[5, 7]" not in feedback.message and check("q4.dp_group", [5, 7]).correct


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("answer", "slip", "words"),
    [
        (989e12 / 4.8e9, "units_thousand", "正好差 1000 倍"),  # TFLOP/s over GB/s: 206,042
        (989e9 / 4.8e12, "units_thousand", "正好差 1000 倍"),  # GFLOP/s over TB/s: 0.206
        (4.8e12 / 989e12, "inverted", "比值倒过来了"),  # bandwidth over compute: 0.00485
    ],
)
def test_the_h200_ridge_slips(answer: float, slip: str, words: str) -> None:
    # the H200 SXM datasheet: 989 TFLOP/s dense bf16, 4.8 TB/s: 989 / 4.8 = 206.0 FLOP per byte
    feedback = check("eff.h200_ridge", answer)
    assert feedback.slip == slip and words in feedback.message and "206" not in feedback.message
    assert check("eff.h200_ridge", 206.0).correct


# -- 9. the composition widget's refusal of an EP that cannot fold says what to change ----------------------------


@pytest.mark.usefixtures("zh")
def test_an_ep_that_cannot_fold_says_what_to_change() -> None:
    from coursekit.widgets.composition import CompositionWidget

    widget = CompositionWidget()  # TP 2, PP 4, DP 2: 16 ranks
    widget.controls["ep"].value = 4  # ETP·EP·PP = 2·4·4 = 32 does not divide 16 (EP 4 does not divide DP·CP = 2)
    # since review 24 the engine's "fail" verdict (both counts shown), no longer an input error
    assert widget.status == "ok" and widget.verdict == "fail"
    assert "ETP·EP·PP = 2·4·4 = 32 不能整除 16：减小 EP，或增大 DP、CP" in widget.message
    assert "（ETP = TP 时，EP 要整除 DP·CP）" in widget.message
    widget.controls["dp"].value = 4  # DP·CP = 4: EP 4 folds
    assert widget.status == "ok" and "ep_fold" not in widget.message


def test_the_index_no_longer_says_every_lesson_needs_the_one_before() -> None:
    """Lesson 0 said "每一课都用到前一课的账本或门槛"; lesson 10 uses lessons 1, 2, 4 and 7, not 9 (160 min) or 8."""
    cells = json.loads((ROOT / "notebooks" / "zh" / "00_index.ipynb").read_text(encoding="utf-8"))["cells"]
    index = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    assert "每一课都用到前一课的账本或门槛" not in index
    assert "按顺序学：每一课都用到前面几课的账本或门槛（第 10 课不需要第 8、9 课）。" in index
    assert "第 8、9 课不是必需的。" in _first_markdown("zh", "10_serving")


# -- 10. terms a learner meets before the course defines them carry their English -------------------------------------


@pytest.mark.parametrize(
    ("stem", "term", "english"),
    [
        ("07_compute_efficiency", "KV 缓存", "KV cache"),  # lesson 10 introduces it; lesson 7 uses it first
        ("10_serving", "关键路径", "critical path"),
        ("04_composition", "朴素的计数规则", "naive rule"),
    ],
)
def test_first_use_carries_the_english(stem: str, term: str, english: str) -> None:
    cells = json.loads((ROOT / "notebooks" / "zh" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    first = text.index(term)
    assert text[first + len(term) : first + len(term) + 2 + len(english)] == f" ({english}"


@pytest.mark.usefixtures("zh")
def test_the_scaling_diagnosis_glosses_exposed_communication() -> None:
    """The diagnosis glossed 暴露的通信 as "(communication)", the segment's internal code, not its English name."""
    from coursekit.widgets.scaling import ScalingWidget

    message = ScalingWidget().message
    assert "诊断：暴露的通信 (exposed communication) 占一步时间的 53%" in message
    assert "(communication)" not in message


# -- 11. lesson 6's pipeline widget: lowering p drops the chosen slow device, and says so ---------------------------


@pytest.mark.usefixtures("zh")
def test_lowering_p_below_the_slow_device_says_where_it_went() -> None:
    """Device 3 chosen as the slow stage, then p from 4 to 2: the menu went back to "无" and the message said only
    "没有选慢阶段" although the learner had chosen one."""
    from coursekit.widgets.pipeline import PipelineWidget

    widget = PipelineWidget(stages=4, microbatches=8)
    widget.controls["slow_stage"].value = 3
    assert "设备 3 慢 2 倍" in widget.message
    widget.controls["stages"].value = 3
    assert widget.controls["slow_stage"].value == "none"
    assert "慢阶段原来选的是设备 3，p = 3 时设备只有 0 到 2，所以“慢阶段 (slow stage)”已改回“无”。" in widget.message
    widget.controls["stages"].value = 2  # lowered further: still said, with this p
    assert "慢阶段原来选的是设备 3，p = 2 时设备只有 0 到 1" in widget.message
    widget.controls["stages"].value = 5  # device 3 exists again: the note goes (the menu stays at "无")
    assert "原来选的是" not in widget.message and "没有选慢阶段" in widget.message
    # a slow device that p keeps leaves no note
    widget.controls["slow_stage"].value = 1
    widget.controls["stages"].value = 4
    assert "原来选的是" not in widget.message and "设备 1 慢 2 倍" in widget.message


@pytest.mark.usefixtures("en")
def test_lowering_p_below_the_slow_device_in_english() -> None:
    from coursekit.widgets.pipeline import PipelineWidget

    widget = PipelineWidget(stages=4, microbatches=8, slow_stage=3)
    widget.controls["stages"].value = 2
    assert "The slow stage was device 3; with p = 2 the devices are 0 to 1, so 'slow stage' went back to" in (
        widget.message.replace("&#x27;", "'")
    )


@pytest.mark.usefixtures("zh")
def test_two_digits_stay_a_cut_off_not_the_1_024_slip() -> None:
    """25 is 25.77 cut off (review 15's "truncated") as much as 24.576 rounded: the 1.024 slip needs 3 digits."""
    assert check("intro.device_gb", 25).slip == "truncated"
    assert check("intro.device_gb", 24.6).slip == "one_factor_1024"
    assert check("intro.device_gb", 24.58).slip == "one_factor_1024"


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("q4.naive_ranks", 32),  # 2·2·2·2·4 = 64 with one 2 left out
        ("q4.naive_ranks", 128),  # ... or counted twice
        ("q4.engine_ranks", 8),  # TP·CP·DP·PP = 16 with CP (or another 2) left out
    ],
)
def test_a_degree_of_two_left_out_is_named(exercise_id: str, answer: int) -> None:
    feedback = check(exercise_id, answer)
    assert feedback.slip == "degree_of_two"
    assert "正好差 2 倍：是不是漏掉了（或多算了）一个并行度为 2 的维度" in feedback.message
    # the other slips keep their names: the engine's 16 for the naive count, the naive 64 for the engine's
    assert check("q4.naive_ranks", 16).slip == "engine_rule" and check("q4.engine_ranks", 64).slip == "ep_multiplied"


@pytest.mark.usefixtures("zh")
def test_the_naive_count_hint_says_degrees_in_chinese() -> None:
    message = check("q4.naive_ranks", 33).message
    assert "把各维度的并行度（degrees 字典里的每个值）都乘起来" in message


@pytest.mark.usefixtures("zh")
def test_hfu_written_as_a_percentage() -> None:
    # Megatron-LM Table 1, 145.6B: 148 TFLOP/s per A100 of 312: HFU = 0.474, in percent 47.4
    feedback = check("eff.megatron_mfu", 47.44)
    assert feedback.slip == "hfu_percent" and "这是以百分数写的 HFU" in feedback.message
    assert check("eff.megatron_mfu", 0.4744).slip == "hfu_for_mfu"
    assert "0.356" not in feedback.message and check("eff.megatron_mfu", 0.356).correct


LESSON_STEMS = [path.stem for path in sorted((ROOT / "notebooks" / "src").glob("[01][0-9]_*.py"))]


@pytest.mark.parametrize("stem", LESSON_STEMS[1:])
def test_every_lesson_after_the_index_states_its_prerequisites(stem: str) -> None:
    # lessons 8 and 9 lacked the line lessons 1-7 and 10 carry (learner review 20 left them)
    assert "> **前置：**" in _first_markdown("zh", stem)
    assert "> **Prerequisites:**" in _first_markdown("en", stem)
