"""What the Chinese self-learner of review 26 met in lessons 4, 6, 7, 8 and 10 (JupyterLab's Chinese UI, 1280 x 720
at 110 %), fixed.

1. An answer worked out as arithmetic and typed in quotes (``answer = '3/19'`` for exercise 6.1's bubble,
   ``'989/4.8'`` for 7.2's ridge point, ``'2*2*2*2*4'`` for 4.2's rank count) was refused with "必须是实数（int 或
   float），而不是 str": Python's type names, no fix. Now the refusal says Python does not work out text and shows the
   line without quotes (``answer = 3/19``), which Python computes and the checker then judges; a ``×`` or ``÷``
   copied from the lesson is written ``*`` / ``/`` in that line.
2. Exercise 4.1 ("用从小到大的列表作答，如 [0, 1]") answered ``'5,7'``, ``'[5, 7]'``, ``'5、7'`` or ``'5 和 7'`` (a
   list typed as text) got "答案应当是列表或元组（list / tuple）... 而不是 str": a newcomer to Python learns the type's
   name but not how to write one. The refusal now shows ``answer = [5, 7]``.
3. A list of one item where one value is wanted (``answer = [1]`` for 8.6's slow rank, ``['mb2']`` for 7.4's option,
   ``answer = 64,`` (a one-item tuple) for 10.4) was refused with "必须是整数 (int)，而不是 list"; now it says the
   question wants one value and shows it without brackets (and without the comma).
4. The lessons print their arithmetic with ``×``, ``÷`` and ``·`` ("2 × 2 × 2 × 2 × 4 = 64", "989 ÷ 4.8", "2 · 80 ·
   8 · 128 · 2"), and the lessons write powers as ``10^5``. A line copied or typed that way, ``answer =
   1.07×10^5`` or ``answer = 2×2×2×2×4``, stopped at "SyntaxError: invalid character '×' (U+00D7)" with no line of
   help (``·`` alone had one). Each sign now gets one naming Python's ``*``, ``/`` and ``**`` and the fixed line
   (``answer = 1.07*10**5``).
5. Counts typed as Chinese numerals beyond ten (exercise 4.3's 16 as ``十六``, 4.2's ``六十四``, 10.2's
   ``一百八十四``): ``answer = 十六`` was told to put it in quotes as an option, and ``'十六'`` then got "必须是整数
   (int)，而不是 str" — review 25's dead end for 0-10, still open above ten. Both now say it is a Chinese numeral and
   show the digits (``answer = 16``), by :func:`coursekit.exercises.input_help.chinese_numeral_value`.
6. Lesson 8's structural check printed six lines of English and code names alone ("busbw dist.all_reduce 0.58
   GiB/s") in the Chinese lesson; each line now names the collective in Chinese with its call and says 总线带宽.

7. A kernel restart in the middle of a lesson (lesson 10, then the widget's cell run again) ended in Python's bare
   "NameError: name 'ServingWidget' is not defined" with no line of help: the lessons installed the help when their
   first cell imported ``coursekit.exercises``, and a restart removes it. The course's kernel (tools/install_kernel.py,
   run by ``make`` and binder/postBuild) now loads :mod:`coursekit.exercises.input_help` as an IPython extension at
   start, in the language of the lesson's folder, so the restarted kernel says what to run, in Chinese.

8. More slips at the ``answer =`` line: a power copied from a web page or PDF as a superscript (``answer = 10⁵``)
   was "retyped" by the line of help as ``answer = 105`` (NFKC makes ⁵ a 5), another number; the letter x for
   times (``answer = 1.07x10^5``), a quote opened and never closed (``answer = 'Y``) and a list without commas
   (``answer = [5 7]``) got no line of help; ``answer = 107,374.18`` (exercise 8.2 with thousands commas) became the
   tuple (107, 374.18) and was told only "must be a real number, not tuple". Each now gets the line meant
   (``answer = 10**5``, ``answer = 1.07 * 10**5``, ``answer = 'Y'``, ``answer = [5, 7]``, ``107374.18``).

9. Lesson 8 runs everything on "the gloo backend" and compares with NCCL, terms a learner new to communication has
   met nowhere and the glossary lacked; both are now glossary entries, and the lesson says what each is where it
   first names them. The reveal of exercise 8.6 printed a bare command line (English to a Chinese learner, with no
   word of what it is); it now says it is the full recording command, with R the slow rank found. The lesson's
   estimated time moved from 95 to 100 minutes (tools/lesson_times.py rounds to 5), and the guides' timing tables
   with it.

10. Exercises 8.8 and 8.9 ask which of "运行 X、Y、Z" had a fault; ``answer = '运行 Y'`` (the run as the question
    and the tables name it) was refused with "必须是 'X', 'Y', 'Z' 之一". The run's word before its letter is now
    read as the letter (``'运行 Y'``, ``'run Y'``); two runs or a wrong one are not taken.

tests/browser/test_learner_review26.py shows 1 to 9 in Chromium.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

from coursekit import get_language, set_language
from coursekit.exercises import check, get_exercise, input_help
from coursekit.exercises.input_help import CHINESE_NUMERALS, chinese_numeral_value, input_hint
from coursekit.glossary import lookup
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"


def _syntax_error(line: str) -> SyntaxError:
    try:
        compile(line, "<cell>", "exec")
    except SyntaxError as error:
        return error
    raise AssertionError(f"{line!r} compiled")


def _name_error(line: str) -> NameError:
    try:
        exec(compile(line, "<cell>", "exec"), {})
    except NameError as error:
        return error
    raise AssertionError(f"{line!r} ran")


# -- 1. arithmetic in quotes ---------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("exercise_id", "typed", "line"),
    [
        ("pipeline.bubble_p4_m16", "3/19", "answer = 3/19"),  # (p-1)/(m+p-1) with p = 4, m = 16
        ("eff.h200_ridge", "989/4.8", "answer = 989/4.8"),  # peak / bandwidth, the exercise's own figures
        ("eff.h200_ridge", "989 ÷ 4.8", "answer = 989 / 4.8"),
        ("q4.naive_ranks", "2*2*2*2*4", "answer = 2*2*2*2*4"),  # every degree of the plan multiplied
        ("q4.naive_ranks", "2×2×2×2×4", "answer = 2*2*2*2*4"),
        ("pipeline.efficiency", "6800/(32*250)", "answer = 6800/(32*250)"),
    ],
)
def test_arithmetic_in_quotes_is_shown_without_them(exercise_id: str, typed: str, line: str) -> None:
    feedback = check(exercise_id, typed)
    assert feedback.status == "invalid"
    assert "Python 不会去算它" in feedback.message and f"写成 {line}，Python 会算出它的值" in feedback.message
    assert "而不是 str" not in feedback.message
    # the line shown, run as Python runs it, is the right answer: the advice leads there
    scope: dict[str, object] = {}
    exec(line, scope)
    assert check(exercise_id, scope["answer"]).correct


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("typed", ["0.158", "-0.158", "1e5", "N/2", "abs(3)"])
def test_a_number_or_a_name_in_quotes_is_not_read_as_arithmetic(typed: str) -> None:
    message = check("pipeline.bubble_p4_m16", typed).message
    assert "Python 不会去算它" not in message


@pytest.mark.usefixtures("en")
def test_arithmetic_in_quotes_in_english() -> None:
    message = check("pipeline.bubble_p4_m16", "3/19").message
    assert "Python does not work it out: drop the quotes and write answer = 3/19" in message


# -- 2. a list typed as text ---------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("typed", ["5,7", "[5, 7]", "[5，7]", "5、7", "5 和 7", "(5, 7)"])
def test_a_list_in_quotes_is_shown_as_a_list(typed: str) -> None:
    # Megatron-Core's reference layout (16 GPUs, TP 2, PP 4, DP 2): DP groups are ranks TP apart in one stage,
    # so rank 5's is [5, 7] (the docstring the lesson quotes lists [5, 7] among the DP groups)
    assert get_exercise("q4.dp_group").expected_value() == [5, 7]
    feedback = check("q4.dp_group", typed)
    assert feedback.status == "invalid" and "写成 answer = [5, 7]" in feedback.message
    assert check("q4.dp_group", [5, 7]).correct  # what the message shows is right


@pytest.mark.usefixtures("zh")
def test_text_that_is_no_list_keeps_the_type_message() -> None:
    message = check("q4.dp_group", "rank 5 和 rank 7").message
    assert "答案应当是列表或元组" in message and "answer = [" not in message


@pytest.mark.usefixtures("en")
def test_a_list_in_quotes_in_english() -> None:
    assert (
        "put the items in square brackets, separated by commas: answer = [5, 7]" in check("q4.dp_group", "5,7").message
    )


# -- 3. one item in a list -----------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("exercise_id", "typed", "shown"),
    [
        ("lab.slow_rank", [1], "answer = 1"),
        ("eff.best_change", ["mb2"], "answer = 'mb2'"),
        ("q4.tp_crosses", [True], "answer = True"),
        ("serve.littles_law", [64], "answer = 64"),
    ],
)
def test_a_one_item_list_is_told_to_drop_the_brackets(exercise_id: str, typed: list[object], shown: str) -> None:
    feedback = check(exercise_id, typed)
    assert feedback.status == "invalid"
    assert "只有一项的列表 (list)" in feedback.message and f"去掉方括号，写成 {shown}。" in feedback.message
    assert check(exercise_id, typed[0]).correct  # the value without brackets is the answer here


@pytest.mark.usefixtures("zh")
def test_a_trailing_comma_tuple_is_told_too() -> None:
    scope: dict[str, object] = {}
    exec("answer = 64,", scope)
    message = check("serve.littles_law", scope["answer"]).message
    assert "只有一项的元组 (tuple)" in message and "去掉括号和逗号，写成 answer = 64。" in message


@pytest.mark.usefixtures("zh")
def test_a_sequence_answer_and_longer_lists_are_left_alone() -> None:
    assert "只有一项" not in check("q4.dp_group", [5]).message  # 4.1 wants a list: [5] is a wrong list
    assert "只有一项" not in check("lab.slow_rank", [0, 1]).message


@pytest.mark.usefixtures("en")
def test_a_one_item_list_in_english() -> None:
    assert "drop the square brackets and write answer = 1." in check("lab.slow_rank", [1]).message


# -- 4. the lessons' signs of arithmetic ---------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("line", "sign", "fixed"),
    [
        ("answer = 1.07×10^5", "×", "answer = 1.07*10**5"),
        ("answer = 2×2×2×2×4", "×", "answer = 2*2*2*2*4"),
        ("answer = 989 ÷ 4.8", "÷", "answer = 989 / 4.8"),
        ("answer = 2 · 80 · 8 · 128 · 2 / 1024", "·", "answer = 2 * 80 * 8 * 128 * 2 / 1024"),
    ],
)
def test_a_sign_as_the_lessons_print_it_gets_a_line_of_help(line: str, sign: str, fixed: str) -> None:
    error = _syntax_error(line)
    assert f"invalid character '{sign}'" in str(error)
    hint = input_hint(error, line)
    assert hint is not None and f"'{sign}'：这是课文里印出的数学符号" in hint
    assert "乘号写作 *，除号写作 /，乘方写作 **" in hint and hint.endswith(f"改好的一行：{fixed}")
    compile(fixed, "<cell>", "exec")  # the fixed line runs


def test_the_lessons_print_these_signs() -> None:
    text = "".join(
        (SRC / name).read_text(encoding="utf-8") for name in ("04_composition.py", "07_compute_efficiency.py")
    )
    assert "×" in text and "÷" in text
    assert "·" in (ROOT / "coursekit" / "exercises" / "lesson10.py").read_text(encoding="utf-8")  # 10.1's answer


@pytest.mark.usefixtures("en")
def test_a_sign_in_english() -> None:
    hint = input_hint(_syntax_error("answer = 1.07×10^5"), "answer = 1.07×10^5")
    assert hint is not None and "a mathematical sign as the lessons print it" in hint
    assert hint.endswith("The line fixed: answer = 1.07*10**5")


# -- 5. Chinese numerals above ten ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("numeral", "value"),
    [("十六", 16), ("六十四", 64), ("一百八十四", 184), ("三百二十", 320), ("一千零二十四", 1024), ("两百", 200)],
)
def test_chinese_numerals_read_as_their_numbers(numeral: str, value: int) -> None:
    assert chinese_numeral_value(numeral) == value


def test_the_single_numerals_keep_their_values() -> None:
    assert all(chinese_numeral_value(char) == value for char, value in CHINESE_NUMERALS.items())


@pytest.mark.parametrize("text", ["", "十十", "六四", "百", "放得下", "十六个", "零十"])
def test_text_that_is_no_numeral_is_none(text: str) -> None:
    assert chinese_numeral_value(text) is None


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("exercise_id", "numeral", "value"),
    [("q4.engine_ranks", "十六", 16), ("q4.naive_ranks", "六十四", 64), ("serve.max_requests", "一百八十四", 184)],
)
def test_a_chinese_count_is_shown_in_digits(exercise_id: str, numeral: str, value: int) -> None:
    line = f"answer = {numeral}"
    hint = input_hint(_name_error(line), line)
    assert hint is not None and f"'{numeral}' 是中文数字" in hint and f"写成 answer = {value}。" in hint
    assert "加引号" not in hint
    quoted = check(exercise_id, numeral).message
    assert "是用中文数字写的" in quoted and f"写成 answer = {value}。" in quoted
    assert check(exercise_id, value).correct


# -- 6. lesson 8's busbw lines ---------------------------------------------------------------------------------------


def test_lesson_8_names_each_busbw_line_in_chinese() -> None:
    source = (SRC / "08_lab.py").read_text(encoding="utf-8")
    assert 'f"  busbw {' not in source  # the English-only line
    assert re.search(r'zh=f"  \{COLLECTIVE_NAMES\[kind\]\}（dist\.\{kind\}）"\s*f"的总线带宽 busbw：', source)
    assert re.search(r'en=f"  busbw of \{COLLECTIVE_NAMES\[kind\]\} \(dist\.\{kind\}\): "', source)


# -- 7. the line of help after a kernel restart ----------------------------------------------------------------------


class _Shell:
    """The part of IPython's shell :func:`install` uses."""

    def __init__(self) -> None:
        self.custom_exceptions: tuple[type[BaseException], ...] = ()

    def set_custom_exc(self, errors: tuple[type[BaseException], ...], handler: object) -> None:
        self.custom_exceptions = errors


def test_the_course_kernel_loads_the_line_of_help_at_start() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import install_kernel
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert install_kernel.EXTENSION == "coursekit.exercises.input_help"
    assert hasattr(importlib.import_module(install_kernel.EXTENSION), "load_ipython_extension")
    argv = install_kernel.with_extension([sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    assert argv[-1] == "--ext=coursekit.exercises.input_help" and argv.count(argv[-1]) == 1
    assert install_kernel.KERNEL_NAME == "python3" and install_kernel.DISPLAY_NAME == "Python 3 (coursekit)"
    # every way the course is installed runs it
    assert "$(PY) tools/install_kernel.py" in (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "python tools/install_kernel.py" in (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")


@pytest.mark.parametrize(("session", "lang"), [("notebooks/zh/10_serving.ipynb", "zh"), ("en/08_lab.ipynb", "en")])
def test_the_extension_installs_the_handler_in_the_lesson_language(
    session: str, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COURSEKIT_LANG", raising=False)
    monkeypatch.setenv("JPY_SESSION_NAME", session)
    before = get_language()
    shell = _Shell()
    try:
        set_language("en" if lang == "zh" else "zh")
        input_help.load_ipython_extension(shell)
        assert shell.custom_exceptions == input_help.HANDLED_ERRORS
        assert get_language() == lang
        hint = input_hint(_name_error("widget = ServingWidget()"), "widget = ServingWidget()")
        assert hint is not None
        assert ("找不到名字 'ServingWidget'" in hint) == (lang == "zh")
    finally:
        set_language(before)


def test_a_language_the_learner_set_wins_over_the_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEKIT_LANG", "en")
    monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/zh/10_serving.ipynb")
    before = get_language()
    try:
        set_language("en")
        input_help.load_ipython_extension(_Shell())
        assert get_language() == "en"
    finally:
        set_language(before)


# -- 8. powers copied as superscripts, x for times, an unclosed quote, a list without commas -----------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("line", "key", "fixed"),
    [
        # NFKC reads 10⁵ as 105: the old line of help "retyped" it as answer = 105, another number
        ("answer = 10⁵", "上标 '⁵'", "answer = 10**5"),
        ("answer = 1.07 × 10⁵", "'×'：这是课文里印出的数学符号", "answer = 1.07 * 10**5"),
        ("answer = 2⁻³", "上标 '⁻'", "answer = 2**-3"),
        ("answer = 1.07x10^5", "把字母 x 当成了乘号", "answer = 1.07 * 10**5"),
        ("answer = 2x2x2x2x4", "把字母 x 当成了乘号", "answer = 2 * 2 * 2 * 2 * 4"),
        ("answer = 'Y", "引号没有成对", "answer = 'Y'"),
        ('answer = "fsdp2-zero2', "引号没有成对", 'answer = "fsdp2-zero2"'),
        ("answer = [5 7]", "括号里的各项之间缺少逗号", "answer = [5, 7]"),
    ],
)
def test_more_slips_get_a_line_of_help_whose_line_runs(line: str, key: str, fixed: str) -> None:
    hint = input_hint(_syntax_error(line), line)
    assert hint is not None and key in hint and hint.endswith(fixed), hint
    assert "answer = 105" not in hint
    scope: dict[str, object] = {}
    exec(fixed, scope)  # the fixed line the hint shows


def test_the_fixed_lines_give_the_numbers_meant() -> None:
    # 10⁵ is 100000 and 1.07 × 10⁵ is 107000 (by hand), not 105 and 112.35
    for fixed, value in [("answer = 10**5", 100000), ("answer = 1.07 * 10**5", 107000.0), ("answer = 2**-3", 0.125)]:
        scope: dict[str, object] = {}
        exec(fixed, scope)
        assert scope["answer"] == pytest.approx(value)


@pytest.mark.usefixtures("zh")
def test_thousands_commas_before_a_decimal_point() -> None:
    # answer = 107,374.18 (exercise 8.2's crossover, 2 x 50 µs x 2^30 B/s = 107,374.18 bytes) is (107, 374.18)
    scope: dict[str, object] = {}
    exec("answer = 107,374.18", scope)
    message = check("lab.crossover_bytes", scope["answer"]).message
    assert "107,374.18 成了元组" in message and "写成 107374.18。" in message
    assert check("lab.crossover_bytes", 107374.18).correct


@pytest.mark.usefixtures("en")
def test_the_new_lines_of_help_in_english() -> None:
    hint = input_hint(_syntax_error("answer = 10⁵"), "answer = 10⁵")
    assert hint is not None and "superscript '⁵'" in hint and hint.endswith("The line fixed: answer = 10**5")
    hint = input_hint(_syntax_error("answer = 2 x 2"), "answer = 2 x 2")
    assert hint is not None and "the letter x as a multiplication sign" in hint


# -- 9. lesson 8's libraries and its recording command ---------------------------------------------------------------


def _markdown(path: Path, lang: str) -> str:
    """The markdown cells of lesson source ``path`` in ``lang``, comment marks removed, lines joined."""
    cells = re.split(r"^# %%", path.read_text(encoding="utf-8"), flags=re.M)
    chosen = [c for c in cells if c.startswith(f' [markdown] lang="{lang}"')]
    lines = (line[2:] if line.startswith("# ") else line.lstrip("#") for c in chosen for line in c.splitlines()[1:])
    return " ".join(line.strip() for line in lines)


def test_gloo_and_nccl_are_explained_where_lesson_8_first_uses_them() -> None:
    for term in ("NCCL", "gloo"):
        entry = lookup(term)
        assert entry.abbr == term and entry.definition.zh and entry.definition.en
    zh_text, en_text = _markdown(SRC / "08_lab.py", "zh"), _markdown(SRC / "08_lab.py", "en")
    first = zh_text.index("gloo")
    assert zh_text[first:].startswith("gloo 后端（PyTorch 在 CPU 上做集合通信的库；GPU 上对应的是 NVIDIA 的 NCCL")
    assert zh_text.index("NCCL") > first and "[术语表](glossary.ipynb)" in zh_text[first : first + 80]
    first = en_text.index("gloo")
    assert en_text[first:].startswith(
        "gloo backend (PyTorch's library for collectives on CPUs; on GPUs its counterpart"
    )
    assert en_text.index("NCCL") > first


def test_the_slow_rank_reveal_says_what_its_command_is() -> None:
    source = (SRC / "08_lab.py").read_text(encoding="utf-8")
    assert 'zh=f"录制用的完整命令（R 就是慢 rank {slow}）：",' in source
    assert 'en=f"The full recording command (R is the slow rank, {slow}):",' in source


# -- 10. a run named as the tables name it -------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("typed", ["运行 Y", "运行Y", "run y", "Run Y"])
def test_a_run_named_with_its_word_is_read_as_its_letter(typed: str) -> None:
    # the tables and the question call them "运行 X、Y、Z"; the injected input delay is run Y's (its 等输入 column)
    assert get_exercise("lab.input_delay_run").expected_value() == "Y"
    assert check("lab.input_delay_run", typed).correct
    assert check("lab.straggler_run", typed.replace("Y", "Z").replace("y", "z")).correct


@pytest.mark.usefixtures("zh")
def test_two_runs_or_another_run_are_not_taken() -> None:
    assert check("lab.input_delay_run", "运行 X").slip is not None  # a wrong run keeps its slip's hint
    assert check("lab.input_delay_run", "运行 X 和 Y").status == "invalid"
