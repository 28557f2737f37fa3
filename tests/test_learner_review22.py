"""What the Chinese self-learner of review 22 met in lessons 1, 2, 3 and 5 (alone, on a 13-inch laptop), fixed.

1. A decimal comma before a group of three digits: exercise 2.1's 0.256 MiB typed ``answer = 0,256`` became the
   tuple (0, 256) and was told "必须是实数（int 或 float），而不是 tuple" (Python's type names, no fix); typed with the
   Chinese comma (``0，256``) or in quotes it was told to write ``answer = 0256``, which Python refuses (a leading 0).
   Exercise 2.3's 4.445 ms typed ``4,445`` / ``4，445`` was told to write 4445, 1000 times the answer, and the
   checker then blamed seconds against milliseconds. No thousands group follows a lone 0, and three digits after
   the comma may be either: the hint now offers the decimal and the whole number (an exact count keeps the
   thousands advice).
2. A number typed with its unit or with "约" and no quotes (``answer = 4.45ms``, ``answer = 25.77吉字节``,
   ``answer = 0.256 MiB``, ``answer = 约26.2``), or with a decimal comma before a 0 (``answer = 0,05``), stopped at
   Python's "invalid decimal literal" / "invalid syntax" / "leading zeros in decimal integer literals" with no line
   of help; the same text in quotes has had a Chinese hint since review 18.
"""

from __future__ import annotations

import pytest

from coursekit.exercises import check
from coursekit.exercises.input_help import input_hint
from tests.test_learner_review15 import _syntax_error
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)

# -- 1. a decimal comma before three digits ------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_zero_comma_is_a_decimal_in_every_form_the_learner_types() -> None:
    # exercise 2.1: 10 us x 25 GiB/s = 2.5e-4 GiB = 0.256 MiB (worked by hand)
    as_tuple = check("q2.crossover_mib", (0, 256))  # answer = 0,256
    assert as_tuple.status == "invalid"
    assert "小数要用小数点：写成 0.256。" in as_tuple.message and "tuple" not in as_tuple.message
    quoted = check("q2.crossover_mib", "0,256")
    assert "小数点写成了逗号" in quoted.message and "answer = 0.256。" in quoted.message
    assert "0256" not in quoted.message
    hint = input_hint(_syntax_error("answer = 0，256"))
    assert hint is not None and hint.endswith("：answer = 0.256") and "千位" not in hint


@pytest.mark.usefixtures("zh")
def test_three_digits_after_a_comma_offer_the_decimal_and_the_whole_number() -> None:
    # exercise 2.3: 2·7/8 × 0.25 GiB / 100 GiB/s + 14 × 5 µs = 4.375 + 0.07 = 4.445 ms (worked by hand)
    as_tuple = check("q2.allreduce_ms", (4, 445))  # answer = 4,445
    assert as_tuple.status == "invalid"
    assert "你想写小数就写 4.445，想写整数就写 4445。" in as_tuple.message
    quoted = check("q2.allreduce_ms", "4，445")
    assert "想写小数就写 answer = 4.445，想写整数就写 answer = 4445。" in quoted.message
    hint = input_hint(_syntax_error("answer = 4，445  # 毫秒"))
    assert hint is not None
    assert hint.endswith("想写小数就写 answer = 4.445，想写整数就写 answer = 4445")
    assert check("q2.allreduce_ms", 4.445).status == "correct"


@pytest.mark.usefixtures("en")
def test_the_english_hint_offers_both_readings_too() -> None:
    message = check("q2.allreduce_ms", (4, 445)).message
    assert "For a decimal write 4.445; for a whole number write 4445." in message


@pytest.mark.usefixtures("zh")
def test_an_exact_count_keeps_the_thousands_advice() -> None:
    # exercise 2.4: 4 all-reduces per layer × 36 layers × 8 micro-batches = 1152 (Megatron-LM, §3)
    message = check("q2.tp_calls", (1, 152)).message
    assert "数字里不要写千位分隔的逗号，写成 1152。" in message and "1.152" not in message


# -- 2. a number with a unit or "约" and no quotes -----------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("source", "words", "fixed"),
    [
        ("answer = 4.45ms", "单位 'ms'", "answer = 4.45"),
        ("answer = 25.77吉字节", "单位 '吉字节'", "answer = 25.77"),
        ("answer = 0.256 MiB  # 分界载荷", "单位 'MiB'", "answer = 0.256  # 分界载荷"),
        ("answer = 25.77吉字节。", "单位 '吉字节'", "answer = 25.77"),  # the full stop of a sentence, too
        ("answer = -1.47 GiB", "单位 'GiB'", "answer = -1.47"),
        ("answer = 约26.2", "不用写“约”", "answer = 26.2"),
        ("answer = 大约 0.26", "不用写“大约”", "answer = 0.26"),
        ("answer = 0,05", "小数点写成了逗号", "answer = 0.05"),
    ],
)
def test_a_number_with_words_around_it_gets_a_line_of_help(source: str, words: str, fixed: str) -> None:
    hint = input_hint(_syntax_error(source))
    assert hint is not None and words in hint and hint.endswith(f"：{fixed}")
    compile(fixed, "<fixed>", "exec")  # the line the hint offers is Python


@pytest.mark.usefixtures("en")
def test_the_unit_hint_is_english_in_english() -> None:
    hint = input_hint(_syntax_error("answer = 4.45ms"))
    assert hint == (
        "Line 1 has the unit 'ms' after its number: Python numbers take no unit. Write the number alone, in the "
        "unit the question asks for: answer = 4.45"
    )


@pytest.mark.usefixtures("zh")
def test_an_expression_that_python_refuses_for_another_reason_gets_no_unit_hint() -> None:
    assert input_hint(_syntax_error("answer = (4.45")) is None
    assert input_hint(_syntax_error("answer = 4.45 +")) is None


# -- 3. lesson 3's gates widget: a context chosen alone ---------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_choosing_a_context_alone_changes_the_figure_and_the_headline() -> None:
    from coursekit.widgets.gates import GatesWidget

    widget = GatesWidget()
    start_png, start_title = widget.image.value, widget.title.get_text()
    widget.controls["context_len"].value = 32768
    # the grid is the same (CP is still rejected at the context gate), so the title says what was chosen
    assert widget.image.value != start_png
    assert widget.title.get_text() == start_title + "\n上下文长度：32,768 token    单卡可容纳：未声明"
    headline = widget.message.split("</b>", 1)[0]
    assert "上下文只声明了一半：“单卡可容纳的上下文 (token)”还是“未声明”，所以上下文门槛仍然拒绝 CP" in headline
    widget.controls["max_context_per_device"].value = 8192  # 32,768 tokens do not fit one device's 8,192
    assert "CP" in widget.result.accepted and "一半" not in widget.message
    assert widget.title.get_text().endswith("上下文长度：32,768 token    单卡可容纳：8,192 token")


@pytest.mark.usefixtures("en")
def test_the_half_declared_context_is_english_in_english() -> None:
    from coursekit.widgets.gates import GatesWidget

    widget = GatesWidget()
    widget.controls["max_context_per_device"].value = 8192
    assert widget.title.get_text().endswith("\ncontext length: not declared    one device holds: 8,192 tokens")
    assert "The context is half declared: “context length (tokens)” is still “not declared”" in widget.message


# -- 4. lesson 2's communication widget names the slider that left the preset ------------------------------------


@pytest.mark.usefixtures("zh")
def test_the_off_preset_note_names_what_was_moved() -> None:
    from coursekit.widgets.communication import CommunicationWidget

    widget = CommunicationWidget()  # the course example link: 100 GiB/s, 5 µs
    widget.controls["bandwidth_gib_s"].value = 200.0  # try-this step 2: double the bandwidth
    assert "带宽已经改过，不再是链路预设“课程示例链路（100 GiB/s，5 µs）”的值：上面按 200 GiB/s、5 µs 计算。" in (
        widget.message
    )
    assert "时延" not in widget.message.split("已经改过")[0].rsplit("<br>", 1)[-1]
    widget.controls["latency_us"].value = 2.5
    assert "带宽和时延都已经改过" in widget.message
    widget.controls["bandwidth_gib_s"].value = 100.0
    assert "时延已经改过，不再是链路预设" in widget.message and "带宽和时延" not in widget.message


@pytest.mark.usefixtures("en")
def test_the_off_preset_note_in_english() -> None:
    from coursekit.widgets.communication import CommunicationWidget

    widget = CommunicationWidget()
    widget.controls["latency_us"].value = 2.5
    assert "The latency was changed and no longer matches the link preset" in widget.message


# -- 5. exercise 3.1 in the other common spelling of 互连 ---------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("answer", ["互联", "互联门槛", "互连", "interconnect"])
def test_the_interconnect_gate_in_either_chinese_spelling_is_right(answer: str) -> None:
    # lesson 3's example environment with TP's group across nodes: TP requires intra_node, so the
    # interconnect gate (the second of GATES, after memory, which TP's 16 GiB passes on 24 GiB) rejects it first
    assert check("q3.first_gate", answer).status == "correct"


# -- 6. lesson 5: the matrix widget's own label as an answer -------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("answer", ["不优先（硬排除）", "不优先(硬排除)", "不优先（硬排除）。"])
def test_the_widgets_hard_exclusion_label_is_a_not_preferred_answer(answer: str) -> None:
    from coursekit.widgets.matrix import MatrixWidget

    # case 2: 40 GiB of training state + 5 GiB activations + 2 GiB reserve = 47 GiB > 24 GiB, so pure DP is
    # excluded; the lesson's widget prints that verdict as "DP 不优先（硬排除）"
    assert "不优先（硬排除）" in MatrixWidget().message
    feedback = check("matrix.case2_dp", answer)
    assert feedback.status == "correct", feedback.message


@pytest.mark.usefixtures("en")
def test_the_english_hard_exclusion_label_is_a_not_preferred_answer() -> None:
    assert check("matrix.case2_dp", "Not preferred (hard exclusion)").status == "correct"
    assert check("matrix.case3_tp", "not enough information").status == "correct"


# -- 7. terms of lessons 1 and 2 the glossary lacked ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("term", "zh_name", "lesson", "in_lesson"),
    [
        ("GiB", "吉比字节", "01_capacity.py", "全部以 GiB 计"),
        ("分桶", "分桶", "02_communication.py", "分桶 (bucketing)"),
        ("bucketing", "分桶", "02_communication.py", "分桶 (bucketing)"),
        ("选择性重计算", "选择性重计算", "01_capacity.py", "**选择性重计算 (selective)**"),
        ("selective recomputation", "选择性重计算", "01_capacity.py", "**选择性重计算 (selective)**"),
    ],
)
def test_the_glossary_defines_the_terms_the_lessons_use(term: str, zh_name: str, lesson: str, in_lesson: str) -> None:
    from pathlib import Path

    from coursekit.glossary import lookup

    assert lookup(term).zh == zh_name
    source = (Path(__file__).resolve().parents[1] / "notebooks" / "src" / lesson).read_text(encoding="utf-8")
    assert in_lesson in source  # the lesson uses the term the entry explains


def test_the_gib_entry_gives_the_factors_the_exercises_check() -> None:
    from coursekit.glossary import lookup

    definition = lookup("GiB").definition
    # 2^30 / 10^9 = 1.073741824: the factor of exercises' GiB-vs-GB slip
    assert "1 GiB = 1024 MiB" in definition.zh and "1 GiB ≈ 1.074 GB" in definition.zh
    assert f"{2**30:,}" in definition.zh and f"{2**30:,}" in definition.en


# -- 8. exercise 2.3 answered with a row of the table above it ---------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("row_ms", [1.092, 1.09, 9.591, 0.603])
def test_a_row_of_the_preset_table_is_named(row_ms: float) -> None:
    # section 4's table, just above exercise 2.3 (256 MiB ring all-reduce): intra-node n = 8 is
    # 14 × 3.4 µs + 1.75 × 256 MiB / (450e9 B/s) = 0.0476 + 1.0439 = 1.092 ms (the H100 datasheet's 900 GB/s halved);
    # cross-node n = 8 is 14 × 14 µs + 1.75 × 256 MiB / 50e9 B/s = 0.196 + 9.395 = 9.591 ms
    feedback = check("q2.allreduce_ms", row_ms)
    assert (feedback.status, feedback.slip) == ("incorrect", "preset_table_row")
    assert "上面那张表里预设链路" in feedback.message and "单向 100 GiB/s、每个环步 5 µs" in feedback.message
    assert "4.4" not in feedback.message  # the hint does not give the answer away
    assert check("q2.allreduce_ms", 4.445).status == "correct"


@pytest.mark.usefixtures("zh")
def test_exercise_1_2s_device_in_exercise_1_3_is_named() -> None:
    # 7.47B params × 16 B / 8 = 13.91 GiB states + 9.56 GiB activations (34·s·b·h × 36 layers) + 2 GiB reserve =
    # 25.47 GiB; on exercise 1.2's 40 GiB device the headroom is 40 - 25.47 = 14.53 GiB (on 24 GiB: -1.47)
    feedback = check("q1.headroom_gib", 14.53)
    assert (feedback.status, feedback.slip) == ("incorrect", "previous_device")
    assert "这是 40 GiB 设备上的余量（练习 1.2 的设备）" in feedback.message and "-1.47" not in feedback.message
    assert check("q1.headroom_gib", -1.47).status == "correct"
