"""What the Chinese self-learner of review 28 met in lessons 0, 4, 6, 7, 8 and 10 (JupyterLab's Chinese UI,
1280 x 720 at 110 %), fixed.

1. Exercise 10.1 (KV bytes per token of Llama-3 70B in KiB) typed as a calculation with the bytes written as the
   lesson prints them, ``answer = 327,680/1024``: Python makes the tuple ``(327, 0.6640625)`` and the checker read
   it as a number with thousands commas and a decimal part: "327,000.6640625 成了元组 ... 写成 327000.6640625", a
   number the learner never typed, which is wrong when written. A calculation on the answer line with a number
   written with thousands commas is now shown as the same line without them (``answer = 327680/1024``), checked by
   recomputing the typed line as plain arithmetic; a number alone keeps reviews 24 and 26's messages.
2. Exercise 10.2 (how many requests fit) answered with the division's result, ``answer = 184.7``, was told
   "必须是整数 (int)，而不是 float": Python's type names and no way on (``184.0`` had its line since review 20). A
   count or an index with a fraction is now told that it has none, that a fraction comes from ``/``, and that
   "how many fit" counts whole ones only: round down with ``//`` (never the answer itself).
3. Exercise 4.4 ("用 True 或 False 作答") answered ``answer = 1`` was told "必须是 True 或 False，而不是 int"; 1 and 0
   now get the line '是' and 'yes' have had since review 21: "是" is True, "否" is False, not 1 and 0.
4. A choice typed with another hyphen, space, underscore or quote than the option (exercise 8.5's
   ``'fsdp2 zero2'`` or ``'fsdp2_zero2'``, exercise 7.4's ``"'mb2'"`` or ``'mb 2'``) was told "必须是 'ddp',
   'fsdp2-zero3', 'fsdp2-zero2', 'tp' 之一" and left to spot the hyphen; the refusal now names the one option it
   spells and writes it (``answer = 'fsdp2-zero2'``).
5. Lesson 10's table of NCCL's picks (section 5) printed code names alone, "ring/LL", "ring/LL128", "ring/Simple",
   and the serving report "NCCL 选 ring/LL", to a learner new to communication: LL128 and Simple and what a
   protocol or an algorithm is were never said. :attr:`coursekit.serving.AllReduceChoice.label` names the pick in
   words ("环形算法 (ring)、LL 协议"; "ring algorithm, LL protocol"), the table and the report use it, and the
   prose says what each protocol and algorithm does and what to read in the table (one all-reduce of 16 KiB against
   1 MiB: 64 times the bytes, little more than twice the time, checked in the cell).
6. Exercise 8.10 ("用上表中 P = 1 和 P = 4 的步时，算出 E(4)。") did not say whether E(4) is a fraction or a
   percentage, and the table above it lists step times, not E; a learner who answered 16 (per cent) was told
   "检查题目要的是分数还是百分数", which the question never said. It now asks, as exercise 6.2 does, for a fraction
   between 0 and 1 (1 is ideal scaling), in the lesson and in the exercise's own prompt.
7. Lesson 10 is to leave a newcomer knowing which numbers are estimates and how far off: section 4's FP8 table
   heads its columns "TTFT 下界" and "TPOT 下界", but the tables of sections 5 and 6 (TPOT by TP, TPOT and
   throughput by batch) headed them "TPOT (ms)" and "解码 token/秒", read as predictions, and the uncertainty
   (measured TTFT about 1.4-1.5 times the bound, throughput about 0.8 of it) came only in section 9. Their columns
   now say 下界 / 上界, and section 6's prose says what the bounds are worth before the table.
8. A number typed with its gloss in brackets, as the lessons write "MFU (model FLOPs utilization)": ``answer = 0.356
   (MFU)`` (exercise 7.3), ``answer = 206 (FLOP/字节)`` (7.2). Python looks the bracket's word up first and raised
   NameError for 'MFU', whose line of help said that 'MFU' "在本课前面的单元格里定义或导入" and to run the cells
   above: no cell defines it, so the learner was stuck. The NameError now gets review 24's line for a number with a
   note in brackets ("答案只写一个数：answer = 0.356").
9. A unit typed after a calculation, ``answer = 20*3.2个`` (exercise 10.4), ``answer = 989 / 4.8 TB/s`` (7.2),
   ``answer = 2*80*8*128*2/1024 KiB`` (10.1), stopped at Python's "SyntaxError: invalid syntax" with no line of help
   (a number alone had one since review 22). The unit after a calculation of numbers now gets the same line, with
   the calculation kept (``answer = 20*3.2``); an order of magnitude after one (``20*3.2万``) is not stripped.

tests/browser/test_learner_review28.py shows 1 to 9 in Chromium.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from coursekit.exercises import check
from coursekit.exercises.input_help import input_hint
from coursekit.i18n import set_language
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import ServingWorkload, plan_serving, tp_all_reduce
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)
from tests.test_learner_review24 import _run_cell
from tests.test_learner_review26 import _name_error, _syntax_error

ROOT = Path(__file__).resolve().parents[1]

# -- 1. thousands commas inside a calculation ------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_a_calculation_with_thousands_commas_gets_its_own_line_back() -> None:
    # Llama-3 70B: 2 (K and V) x 80 layers x 8 KV heads x 128 head_dim x 2 bytes = 327,680 bytes = 320 KiB (by hand)
    typed = _run_cell('answer = 327,680/1024\nfeedback = check("serve.kv_kib_per_token", answer)\n', "kv")
    assert typed.startswith("无法检查。") and "把这一行写成 answer = 327680/1024" in typed
    assert "327000" not in typed and "327,000" not in typed
    fixed = _run_cell('answer = 327680/1024\nfeedback = check("serve.kv_kib_per_token", answer)\n', "kv2")
    assert fixed.startswith("正确。")
    # exercise 7.2, H200's ridge point: 989 TFLOP/s over 4.8 TB/s (by hand 206.04), written with commas in both numbers
    both = _run_cell('answer = 989,000 / 4,800\nfeedback = check("eff.h200_ridge", answer)\n', "ridge")
    assert "answer = 989000 / 4800" in both
    assert _run_cell('answer = 989000 / 4800\nfeedback = check("eff.h200_ridge", answer)\n', "ridge2").startswith(
        "正确。"
    )
    # a number alone keeps review 26's reading (107,374.18 is 107374.18), and a call is not recomputed
    alone = _run_cell('answer = 107,374.1824\nfeedback = check("lab.crossover_bytes", answer)\n', "alone")
    assert "写成 107374.1824。" in alone and "把这一行写成" not in alone
    call = _run_cell('answer = max(1,500, 5), 1\nfeedback = check("eff.h200_ridge", answer)\n', "call")
    assert "把这一行写成" not in call


@pytest.mark.usefixtures("en")
def test_a_calculation_with_thousands_commas_in_english() -> None:
    typed = _run_cell('answer = 327,680/1024\nfeedback = check("serve.kv_kib_per_token", answer)\n', "kv-en")
    assert "Write the numbers of a calculation without thousands commas: answer = 327680/1024" in typed


# -- 2. a count with a fraction ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(("exercise_id", "answer"), [("serve.max_requests", 184.7), ("lab.slow_rank", 1.5)])
def test_a_count_with_a_fraction_is_told_to_round_down(exercise_id: str, answer: float) -> None:
    feedback = check(exercise_id, answer)
    message = str(feedback.message)
    assert feedback.status == "invalid"
    assert f"answer = {answer}：必须是整数 (int)" in message and "向下取整" in message and "//" in message
    assert "float" not in message and "写成" not in message  # no type name, no number to copy


@pytest.mark.usefixtures("zh")
def test_a_whole_float_keeps_its_line() -> None:
    assert "请写成 184，不带小数点" in str(check("serve.max_requests", 184.0).message)


@pytest.mark.usefixtures("en")
def test_a_count_with_a_fraction_in_english() -> None:
    message = str(check("serve.max_requests", 184.7).message)
    assert "must be an integer (int)" in message and "round down" in message and "float" not in message


# -- 3. 1 and 0 for True and False ---------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("answer", [1, 0])
def test_one_and_zero_for_a_truth_value(answer: int) -> None:
    message = str(check("q4.tp_crosses", answer).message)
    assert f"answer = {answer}：必须是真假值 True 或 False" in message and "不用 1 和 0" in message
    assert "int" not in message.replace("(int)", "")


@pytest.mark.usefixtures("en")
def test_one_and_zero_for_a_truth_value_in_english() -> None:
    assert "not 1 and 0" in str(check("q4.tp_crosses", 1).message)


# -- 4. an option spelled apart -------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("exercise_id", "typed", "option"),
    [
        ("lab.most_param_bytes", "fsdp2 zero2", "fsdp2-zero2"),
        ("lab.most_param_bytes", "FSDP2_ZeRO2", "fsdp2-zero2"),
        ("lab.most_param_bytes", "fsdp2zero3", "fsdp2-zero3"),
        ("eff.best_change", "'mb2'", "mb2"),
        ("eff.best_change", "mb 2", "mb2"),
    ],
)
def test_an_option_spelled_apart_is_written_out(exercise_id: str, typed: str, option: str) -> None:
    feedback = check(exercise_id, typed)
    assert feedback.status == "invalid"
    assert str(feedback.message).endswith(f"你写的是选项 {option!r}：answer = {option!r}")
    assert check(exercise_id, option).status in ("correct", "incorrect")  # the line written is an option


@pytest.mark.usefixtures("zh")
def test_no_option_is_guessed_from_part_of_one() -> None:
    # 'zero2' is part of 'fsdp2-zero2', not that option spelled apart: the list of options, as before
    message = str(check("lab.most_param_bytes", "zero2").message)
    assert "必须是 'ddp', 'fsdp2-zero3', 'fsdp2-zero2', 'tp' 之一" in message and "你写的是选项" not in message


# -- 5. NCCL's pick in words ----------------------------------------------------------------------------------------


def test_the_all_reduce_pick_is_named_in_words() -> None:
    before = "en"
    try:
        # 16 KiB, a decode step of batch 1 at h = 8192 in bf16: LL on a ring (NCCL's tuning tables, lesson 10's table)
        small = tp_all_reduce(8192 * 2, ranks=8, bandwidth_bytes_per_s=450e9)
        set_language("zh")
        assert (small.algorithm, small.protocol) == ("ring", "LL")
        assert small.label == "环形算法 (ring)、LL 协议"
        set_language("en")
        assert small.label == "ring algorithm, LL protocol"
    finally:
        set_language(before)


@pytest.mark.usefixtures("zh")
def test_the_serving_report_names_the_pick_in_words() -> None:
    workload = ServingWorkload(prompt_tokens=2048, output_tokens=256, concurrency=64)
    report = plan_serving(MODELS["llama3-70b"], CLUSTERS["h100-8"], workload).report(top=1)
    assert "（NCCL 选环形算法 (ring)、LL 协议）" in report
    assert not re.search(r"NCCL 选 ?ring/", report)


def test_lesson_10_table_and_prose_name_protocols_and_algorithms() -> None:
    source = (ROOT / "notebooks" / "src" / "10_serving.py").read_text(encoding="utf-8")
    assert "c.label," in source and 'f"{c.algorithm}/{c.protocol}"' not in source
    zh_words = ("LL128 每 128 字节里 8 字节是标志", "Simple 整块写完再同步一次", "环形算法 (ring)", "树形算法 (tree)")
    for words in zh_words:
        assert words in source, words
    for words in ("LL128 spends 8 bytes of every 128", "Simple writes whole blocks", "the tree algorithm reduces"):
        assert words in source, words


# -- 6. E(4) asked as a fraction ------------------------------------------------------------------------------------


def test_exercise_8_10_says_a_fraction() -> None:
    from coursekit.exercises import get_exercise

    source = (ROOT / "notebooks" / "src" / "08_lab.py").read_text(encoding="utf-8")
    assert "算出 E(4)。答 0 到 1 之间的小数（1 是理想扩展），不是百分数。" in source
    assert "compute E(4). Answer with a fraction between 0 and 1 (1 is ideal" in source
    prompt = get_exercise("lab.efficiency_4").prompt
    assert "0 到 1 之间的小数" in prompt.zh and "not a percentage" in prompt.en


# -- 7. bounds named as bounds in lesson 10 -------------------------------------------------------------------------


def test_lesson_10_tables_say_bound() -> None:
    source = (ROOT / "notebooks" / "src" / "10_serving.py").read_text(encoding="utf-8")
    assert '"TPOT (ms)"' not in source
    assert source.count('Text(zh="TPOT 下界 (ms)", en="TPOT lower bound (ms)")') == 3  # sections 4, 5 and 6
    assert 'zh="解码 token/秒（上界）", en="decode tokens/s (upper bound)"' in source
    # the ratios quoted before the table are those section 9's cell asserts (1.4 <= TTFT ratio <= 1.5, throughput 0.8)
    assert "实测的首 token 时间约为\n# 下界的 1.4-1.5 倍，吞吐约为上界的 0.8" in source
    assert 'all(1.4 <= r <= 1.5 for r in ratios["ttft_s"])' in source and "round(r, 1) == 0.8" in source
    assert "time to first token is about 1.4-1.5 times the bound and the throughput about 0.8 of it" in source


# -- 8. a number with its gloss in brackets -------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # Python's "'float' object is not callable" at compile time
@pytest.mark.parametrize(
    ("line", "name", "fixed"),
    [("answer = 0.356 (MFU)", "MFU", "answer = 0.356"), ("answer = 206 (FLOP/字节)", "FLOP", "answer = 206")],
)
def test_a_gloss_in_brackets_is_not_a_name_to_define(line: str, name: str, fixed: str) -> None:
    error = _name_error(line)
    assert error.name == name  # Python looks the bracket's word up before it calls the number
    hint = input_hint(error, line)
    assert hint is not None and hint.endswith(f"答案只写一个数：{fixed}")
    assert "定义或导入" not in hint and "运行前面的单元格" not in hint


@pytest.mark.usefixtures("zh")
def test_an_undefined_name_alone_keeps_its_line() -> None:
    hint = input_hint(_name_error("answer = x"), "answer = x")
    assert hint is not None and "答案只写一个数" not in hint


# -- 9. a unit after a calculation ----------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("line", "unit", "fixed"),
    [
        ("answer = 20*3.2个", "个", "answer = 20*3.2"),  # Little's law, 20/s x 3.2 s = 64 (exercise 10.4)
        ("answer = 989 / 4.8 TB/s", "TB/s", "answer = 989 / 4.8"),
        ("answer = 2*80*8*128*2/1024 KiB", "KiB", "answer = 2*80*8*128*2/1024"),
    ],
)
def test_a_unit_after_a_calculation_gets_its_line(line: str, unit: str, fixed: str) -> None:
    hint = input_hint(_syntax_error(line), line)
    assert hint == f"第 1 行的数后面带着单位 '{unit}'：Python 的数不带单位。只写数，用题目要求的单位：{fixed}"


@pytest.mark.usefixtures("zh")
def test_an_order_of_magnitude_after_a_calculation_is_not_stripped() -> None:
    hint = input_hint(_syntax_error("answer = 20*3.2万"), "answer = 20*3.2万")
    # stripped, 万 would leave answer = 20*3.2 (64, not 640000); since leftovers 29 it is written as 10^4 instead
    assert hint is None or re.search(r"answer = 20\*3\.2(?![e\d])", hint) is None
    assert hint is None or hint.endswith("answer = 20*3.2e4")
