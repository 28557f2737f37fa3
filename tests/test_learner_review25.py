"""What the Chinese self-learner of review 25 met in lessons 0, 1, 2, 3, 5 and 9 (JupyterLab's Chinese UI, 1280 x 720
at 110 %), fixed.

1. Lesson 0 ("重启内核之后") and the line of help under a NameError told the learner to use the menu
   "Run → Run All Above Selected Cell"; in JupyterLab's Chinese UI (the zh_CN language pack ``make lab`` selects)
   there is no menu "Run": it is "运行 → 运行选中单元格上方的所有单元格". Both now name the Chinese menu first and the
   English one after it; the English lesson says to select the exercise cell first, as the Chinese one does.
2. Lesson 9's first report (``result.report(top=0)``) ended with "通过的候选：6127 个；按估算的步时排序
   （估算，不是测量），前 0 个：" and nothing under it ("top 0:" in English), and the CLI did the same
   with ``--top 0``. With top = 0 the line now gives the count, says none is listed and how to list some.
3. Exercise 1.3 (headroom -1.47 GiB, an absolute tolerance of 0.01 GiB) answered ``0`` ("it does not fit: no
   headroom") was told "你的答案与正确值正好差 1024 倍：检查单位是 MiB 还是 GiB": 0 is within 0.01 of -1.47 / 1024.
   A unit slip's scaled value is now compared with the tolerance scaled alike; 0 gets the exercise's hint, and
   -1505 (-1.47 GiB written in MiB) keeps the MiB hint.
4. Lesson 9's "your own model and cluster" example writes the L40S's "48 GB" as ``48e9 / 2**30`` (44.7 GiB, printed
   "每卡 44.7 GiB"), and the table under it says the opposite: a datasheet's 80 GB is about 80 GiB already, "不要再按
   10^9 换算". The prose now says why the example is more cautious (ECC on the L40S's GDDR6 takes part of the memory)
   and what to do with the machine at hand (nvidia-smi's MiB / 1024), zh and en.
5. Exercises 9.2 and 9.4 ask for 3 significant digits; their slips were judged at 3 digits too, so the growth in
   percent typed with two (9.4's 2.9 for 2.92 %, 9.2's 1.6 for 1.62 %; review 19 fixed them at 2.92 and 1.62) and the
   growth typed as 0.029 got the method hint. An answer with fewer digits than the exercise asks is now matched
   against the exercise's slips at the digits it is written with (at least two).
6. Exercise 5.1's kind typed as ``'放得下'`` was told "必须是 'fits_one_device', 'state_exceeds_device',
   'layer_exceeds_device' 之一", though the Chinese names (模型可单卡容纳 ...) are taken too; now the refusal names
   both, as the matrix cells' refusal does, and a closing "。" or full-width letters are read as the verdicts are.
7. Exercise 1.2 ("能放下的最小 ZeRO 阶段是几（0-3 的整数）？") answered with a Chinese numeral: ``answer = 二`` (a
   NameError) was told to put it in quotes as an option (``answer = '二'``), and ``'二'`` was then refused with
   "必须是整数 (int)，而不是 str": two dead ends. Both now say it is a Chinese numeral and show ``answer = 2``.
8. Lesson 9's own model on a hand-built cluster where nothing fits (a 7.9B model on two 24 GiB cards): the report
   ended "没有候选通过全部门槛。用 --explain 查看某个组合被拒绝的原因。", a command-line flag, in a notebook where the
   lesson teaches ``result.explain('tp=...')``. It now points at the funnel's biggest gate and names both.
9. Lesson 0's exercise 0.1 worked as the lessons print powers, ``answer = 24 * 2^30 / 10^9``: Python's ``^`` is XOR,
   so the cell stopped at "TypeError: unsupported operand type(s) for ^: 'int' and 'float'" with no line of help;
   ``answer = 2^30`` (all whole numbers) ran silently to 28 and got an unrelated hint. The TypeError now gets a line
   of help (the course's handler takes TypeError too) showing the line with ``**``, and check() tells a wrong answer
   whose ``answer =`` line has a ``^`` between digits what ``^`` is.

tests/browser/test_learner_review25.py shows 1, 2, 5, 7 and 9 in Chromium.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import coursekit
from coursekit.exercises import check, get_exercise
from coursekit.exercises.input_help import HANDLED_ERRORS, input_hint, install
from coursekit.planner import ClusterSpec, ModelSpec, WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)
from tests.test_learner_review23 import _name_error

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"


def zh_cn_label(english: str) -> str:
    """JupyterLab's Chinese label for menu item ``english``, read from the installed zh_CN language pack."""
    pack = pytest.importorskip("jupyterlab_language_pack_zh_CN")
    catalog = Path(pack.__file__).parent / "locale" / "zh_CN" / "LC_MESSAGES" / "jupyterlab.json"
    return str(json.loads(catalog.read_text(encoding="utf-8"))[english][0])


def _markdown(path: Path, lang: str) -> str:
    """The markdown cells of lesson source ``path`` in ``lang``, comment marks removed, lines joined."""
    cells = re.split(r"^# %%", path.read_text(encoding="utf-8"), flags=re.M)
    chosen = [c for c in cells if c.startswith(f' [markdown] lang="{lang}"')]
    lines = (line[2:] if line.startswith("# ") else line.lstrip("#") for c in chosen for line in c.splitlines()[1:])
    return " ".join(line.strip() for line in lines)


# -- 1. the menu the Chinese UI shows ------------------------------------------------------------------------------


def test_lesson_0_names_the_menu_as_the_chinese_ui_shows_it() -> None:
    menu, item = zh_cn_label("Run"), zh_cn_label("Run All Above Selected Cell")
    assert (menu, item) == ("运行", "运行选中单元格上方的所有单元格")  # the language pack this course installs
    text = _markdown(SRC / "00_index.py", "zh").replace(" ", "")
    assert f"“{menu}→{item}”" in text and "选中要做的练习单元格" in text
    english = _markdown(SRC / "00_index.py", "en")
    assert "(select the exercise cell: Run → Run All Above Selected Cell)" in english


@pytest.mark.usefixtures("zh")
def test_the_name_error_help_names_the_chinese_menu() -> None:
    item = zh_cn_label("Run All Above Selected Cell")
    undefined = input_hint(_name_error("answer = shape.num_params * 2"), "answer = shape.num_params * 2")
    option = input_hint(_name_error("answer = B"), "answer = B")
    for hint in (undefined, option):
        assert hint is not None and f"“运行 → {item}”" in hint
        assert "英文界面是 Run → Run All Above Selected Cell" in hint  # the English UI's name after it


@pytest.mark.usefixtures("en")
def test_the_name_error_help_in_english() -> None:
    hint = input_hint(_name_error("answer = B"), "answer = B")
    assert hint is not None and "(JupyterLab's menu Run → Run All Above Selected Cell)" in hint
    assert "运行" not in hint


# -- 2. report(top=0) --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lesson9_result():  # type: ignore[no-untyped-def]
    # lesson 9's section 1: Llama-3 70B on 16 H100 nodes, global batch 1024 x 8192 tokens
    return plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16), WorkloadSpec(global_batch=1024))


def test_a_report_of_top_0_lists_nothing_and_says_so(lesson9_result) -> None:  # type: ignore[no-untyped-def]
    try:
        coursekit.set_language("zh")
        last = lesson9_result.report(top=0).splitlines()[-1]
        listed = lesson9_result.report(top=1)
    finally:
        coursekit.set_language("en")
    count = lesson9_result.accepted_count
    assert last.startswith(f"通过的候选：{count} 个；按估算的步时排序（估算，不是测量）。")
    assert "前 0 个" not in last and "`top = 0`，所以这里一个也不列出" in last and "--top" in last
    assert "前 1 个：" in listed  # a positive top keeps its heading
    english = lesson9_result.report(top=0).splitlines()[-1]
    assert english.startswith(f"Accepted: {count}; ordered by estimated step time") and "top 0" not in english
    assert "With top = 0 none is listed here" in english


def test_lesson_9_still_prints_the_first_report_with_top_0() -> None:
    source = (SRC / "09_workbench.py").read_text(encoding="utf-8")
    assert "print(result.report(top=0))" in source  # the cell whose last line this is


# -- 3. an answer of 0 is not a unit slip ------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_zero_headroom_is_not_told_it_is_1024_times_off() -> None:
    expected = get_exercise("q1.headroom_gib").expected_value()
    assert expected == pytest.approx(-1.47, abs=0.005)  # the lesson's 24 GiB device, ZeRO-3 (exercise 1.3)
    zero = check("q1.headroom_gib", 0)
    assert not zero.correct and zero.slip is None and "1024" not in zero.message
    assert "余量 = 24 - 合计" in zero.message  # the exercise's hint
    # -1.47 GiB written in MiB: -1.47 x 1024 = -1505.3 (by hand)
    mib = check("q1.headroom_gib", -1505.3)
    assert mib.slip == "mib_vs_gib" and "1024 倍" in mib.message


# -- 4. lesson 9's L40S memory -------------------------------------------------------------------------------------


def test_the_l40s_memory_and_the_table_rule_agree_in_the_prose() -> None:
    # 48 GB = 48e9 bytes = 48e9 / 2^30 GiB = 44.70 GiB (by hand), the number the cell prints ("每卡 44.7 GiB")
    shown = f"{48e9 / 2**30:.1f}"
    assert shown == "44.7"
    source = (SRC / "09_workbench.py").read_text(encoding="utf-8")
    assert "memory_per_device_gib=48e9 / 2**30," in source
    zh_text, en_text = _markdown(SRC / "09_workbench.py", "zh"), _markdown(SRC / "09_workbench.py", "en")
    assert f"显存这里按 48 × 10^9 字节 = {shown} GiB 计" in zh_text.replace(" ", " ")
    assert "ECC" in zh_text and "nvidia-smi 显示的总量（MiB）除以 1024" in zh_text
    assert f"The memory is counted as 48 × 10^9 bytes = {shown} GiB here" in en_text
    assert "ECC" in en_text and "divide the total nvidia-smi shows (MiB) by 1024" in en_text
    # the table's rule the example is reconciled with is still there
    assert "数据手册的 80 GB 本身就约是 80 GiB" in zh_text


# -- 5. slips at the digits written ------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("exercise_id", ["plan.cp_cost", "plan.slow_link"])
def test_a_growth_typed_with_two_digits_gets_its_slip(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    assert exercise.min_digits == 3  # "保留 3 位有效数字"
    factor = exercise.expected_value()
    percent = check(exercise_id, float(f"{(factor - 1) * 100:.2g}"))  # 9.4: 2.9; 9.2: 1.6
    assert percent.slip == "percent_growth" and "这是以百分数写的增长" in percent.message
    growth = check(exercise_id, float(f"{factor - 1:.2g}"))  # 0.029, 0.016
    assert growth.slip == "growth_not_factor"
    # the factor itself with too few digits keeps its own hint, and 3 digits are right
    assert check(exercise_id, float(f"{factor:.2g}")).slip == "more_digits"
    assert check(exercise_id, float(f"{factor:.3g}")).correct


@pytest.mark.usefixtures("zh")
def test_a_two_digit_answer_far_from_every_slip_keeps_the_method_hint() -> None:
    feedback = check("plan.slow_link", 7.7)
    assert feedback.slip is None and "what_if" in feedback.message


# -- 6. exercise 5.1's kinds ---------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_an_unknown_kind_is_told_the_chinese_names_too() -> None:
    feedback = check("matrix.case1_kind", "放得下")
    assert feedback.status == "invalid"
    assert "'fits_one_device'、'state_exceeds_device'、'layer_exceeds_device'" in feedback.message
    assert "也可以写 模型可单卡容纳 / 训练状态超过单卡 / 单层超过单卡" in feedback.message
    # case 1 fits one device (lesson 5's table: 19 GiB of 24 GiB); its name with a full stop, or full-width, is it
    for typed in ("模型可单卡容纳。", "ｆｉｔｓ_ｏｎｅ_ｄｅｖｉｃｅ", "'fits_one_device'"):
        assert check("matrix.case1_kind", typed).correct, typed


@pytest.mark.usefixtures("en")
def test_an_unknown_kind_in_english() -> None:
    feedback = check("matrix.case2_kind", "too big")
    assert feedback.status == "invalid" and "(or the model fits one device / " in feedback.message


# -- 7. a Chinese numeral --------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(("typed", "digits"), [("二", "2"), ("两", "2"), ("零", "0"), ("十", "10")])
def test_a_chinese_numeral_is_shown_in_digits(typed: str, digits: str) -> None:
    source = f"answer = {typed}  # 我的答案"
    hint = input_hint(_name_error(source), source)
    assert hint is not None and f"'{typed}' 是中文数字" in hint and hint.endswith(f"写成 answer = {digits}。")
    assert "引号" not in hint  # not an option to quote
    quoted = check("q1.min_zero_stage", typed)
    assert quoted.status == "invalid" and "中文数字" in quoted.message
    assert f"写成 answer = {digits}。" in quoted.message and "int" not in quoted.message


@pytest.mark.usefixtures("zh")
def test_a_chinese_numeral_in_an_expression_or_a_choice_keeps_its_help() -> None:
    # a numeral inside an expression is some other name: the NameError's usual help
    source = "answer = 二 + stage"
    hint = input_hint(_name_error(source), source)
    assert hint is not None and "中文数字" not in hint and "运行选中单元格上方的所有单元格" in hint
    # a choice question is not about numbers: its own refusal
    assert "中文数字" not in check("q2.latency_bound", "一").message


@pytest.mark.usefixtures("en")
def test_a_chinese_numeral_in_english() -> None:
    hint = input_hint(_name_error("answer = 二"), "answer = 二")
    assert hint is not None and hint.startswith("'二' is a Chinese numeral") and hint.endswith("answer = 2.")
    assert "Arabic digits" in check("q1.min_zero_stage", "二").message


# -- 8. nothing fits: what to do in a notebook ------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_a_plan_where_nothing_fits_names_explain_for_a_notebook() -> None:
    config = {  # a 7B-class model written by hand (Llama-2-7B's published shape, MHA)
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "intermediate_size": 11008,
        "vocab_size": 32000,
        "max_position_embeddings": 4096,
    }
    model = ModelSpec.from_config(config, name="mine")
    two_cards = ClusterSpec(
        name="two-24g",
        nodes=1,
        gpus_per_node=2,
        memory_per_device_gib=24,
        peak_flops=165e12,
        intra_node_bandwidth_bytes_per_s=16e9,
        inter_node_bandwidth_bytes_per_s=1e9,
        intra_node_latency_s=5e-6,
        inter_node_latency_s=15e-6,
        memory_bandwidth_bytes_per_s=1008e9,
    )
    # 16 bytes per parameter for ~6.7e9 parameters is ~100 GiB of model states, 50 GiB per card even at ZeRO-3 over 2
    result = plan(model, two_cards, WorkloadSpec(global_batch=8, seq_len=2048))
    assert result.accepted_count == 0
    last = result.report().splitlines()[-1]
    assert last.startswith("没有候选通过全部门槛。") and "explain('tp=...,pp=...')" in last and "--explain" in last
    assert "漏斗里排除最多的那道门槛" in last
    # the label the message shows works as it says, partial labels included
    assert not result.explain("tp=2,pp=1").accepted


# -- 9. 2^30 written as the lessons print it -------------------------------------------------------------------------


def _type_error(source: str) -> TypeError:
    try:
        exec(compile(source, "<cell>", "exec"), {})
    except TypeError as error:
        return error
    raise AssertionError(f"{source!r} raised no TypeError")


@pytest.mark.usefixtures("zh")
def test_a_caret_power_gets_a_line_of_help() -> None:
    source = "answer = 24 * 2^30 / 10^9  # GB"
    hint = input_hint(_type_error(source), source)
    assert hint is not None and "按位异或" in hint and hint.endswith("改好的一行：answer = 24 * 2**30 / 10**9")
    # the line it shows is right: 24 x 2^30 / 10^9 = 25.769803776 (lesson 0's exercise 0.1, by hand)
    fixed: dict[str, float] = {}
    exec("answer = 24 * 2**30 / 10**9", fixed)
    assert fixed["answer"] == pytest.approx(25.769803776)
    # another TypeError gets no line
    assert input_hint(_type_error("answer = 1 + 'a'"), "answer = 1 + 'a'") is None


def test_the_handler_takes_type_errors() -> None:
    assert TypeError in HANDLED_ERRORS

    class Shell:
        def __init__(self, custom: tuple[type[BaseException], ...]) -> None:
            self.custom_exceptions = custom

        def set_custom_exc(self, exceptions: tuple[type[BaseException], ...], handler: object) -> None:
            self.custom_exceptions = exceptions

    earlier = Shell((SyntaxError, NameError))  # registered by the course before review 25 (a reloaded module)
    assert install(earlier) and earlier.custom_exceptions == HANDLED_ERRORS


@pytest.mark.usefixtures("zh")
def test_a_silent_xor_is_named_by_check(tmp_path: Path) -> None:
    # a cell as the kernel keeps it: a file linecache reads, run as the learner's code (not coursekit's)
    cell = tmp_path / "cell.py"
    cell.write_text(
        "from coursekit.exercises import check\n"
        "answer = 2^30  # 1 GiB in bytes?\n"
        "wrong = check('intro.device_gb', answer)\n"
        "answer = 24 * 2**30 / 10**9\n"
        "right = check('intro.device_gb', answer)\n",
        encoding="utf-8",
    )
    scope: dict[str, object] = {"__name__": "cell"}
    exec(compile(cell.read_text(encoding="utf-8"), str(cell), "exec"), scope)
    wrong, right = scope["wrong"], scope["right"]
    assert wrong.slip == "caret" and "answer = 2^30：Python 里 ^ 不是乘方" in wrong.message  # type: ignore[attr-defined]
    assert "（2^30 是 28）" in wrong.message and wrong.message.endswith("answer = 2**30")  # type: ignore[attr-defined]
    assert 2 ^ 30 == 28  # what the message says, by Python's own XOR
    assert right.correct  # type: ignore[attr-defined]
