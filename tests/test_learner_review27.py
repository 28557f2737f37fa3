"""What the Chinese self-learner of review 27 met in lessons 1, 2, 3, 5 and 9 (JupyterLab's Chinese UI, 1280 x 720
at 110 %), fixed.

1. Exercise 3.3 ("用从小到大的元组作答，如 (1, 2)") typed without commas, ``answer = (1 2 4 8 16)``, stopped at
   Python's English "SyntaxError: invalid syntax. Perhaps you forgot a comma?" with no line of help: review 26 gave
   one to a list in square brackets (``[5 7]``) only. A tuple or a set written so now gets the same line, with the
   brackets the learner typed (``answer = (1, 2, 4, 8, 16)``).
2. Exercise 3.2's set typed without quotes, ``answer = {TP, EP, PP, Replica}``: the NameError's line of help quoted
   the first name only (``answer = {'TP', EP, PP, Replica}``), so the learner ran it and met the same NameError for
   EP, then PP, then Replica. Every bare option of the set, list or tuple is now quoted at once.
3. Exercise 3.2's set typed as text (``answer = 'TP, EP'``, ``'TP、EP'``, ``'{TP, EP}'``) was told "答案应当是由 ...
   中的选项组成的集合，例如 {'DP'}" and not how to write the set it meant; the refusal now shows it
   (``answer = {'TP', 'EP'}``), when every part is an option.
4. Exercise 2.1 (10 µs × 25 GiB/s = 0.256 MiB) answered 0.25, the GiB turned into MiB with 1000 instead of 1024, got
   the truncation hint ("多写一位有效数字再试"); the learner then wrote 0.250 and got the same hint again. The answer
   off by exactly 1.024 now gets a hint naming 1024 against 1000 first, and rounding second (0.25 is both).
5. Exercise 2.2 ("哪一本由时延主导？回答 "A" 或 "B"") answered as the lesson names the ledgers, ``'账本 B'``,
   ``'B 账本'``, ``'B 本'`` or ``'ledger B'``, was refused with "必须是 'A', 'B' 之一"; the ledger word is now read
   around the letter, as lesson 8's "运行 Y" since review 26.

6. Lesson 2's listing of each strategy's traffic per step (section 5, under the table exercise 2.4's button shows)
   printed code names alone, "ZeRO-3   all_gather      x  288", though the lesson says its tables name each
   collective in Chinese beside the code name, and a learner new to communication meets all_gather, send_recv and
   all_to_all here first (review 26 fixed the same in lesson 8's busbw lines). Each line now reads
   "ZeRO-3   全收集（all_gather），每步 288 次".

7. Exercise 9.3 asks for the active parameters "以十亿（B）为单位"; a Chinese learner counts in 亿, and
   ``answer = 2400亿`` was told "数后面带着单位 '亿' ... answer = 2400", ``'2400亿'`` likewise: 10 times the answer
   (亿 is 10^8, so 2400亿 is 240 billion). Chinese orders of magnitude (万, 亿, 十亿, ...) are now converted, not
   stripped: the help shows 2400 * 10**8 = 2.4e+11, 240 in billions, and asks for the question's unit.

8. Lesson 5's exercises 5.1 and 5.2 are answered as entries of dicts (``my_state_gib = {1: ..., 2: ..., 3: ...}``,
   ``my_matrix = {1: {"DP": ..., ...}, ...}``), but a refusal wrote its fix for a variable the cell does not have:
   ``'13 GiB'`` was told "写成 answer = 13", ``['not_preferred']`` "写成 answer = 'not_preferred'" (review 20 fixed
   the same for lesson 6's dict, whose keys are names). :func:`coursekit.exercises.check` takes ``entry``, how the
   cell writes the answer (``'1: '``, ``'"DP": '``), and lesson 5's cells pass it: "写成 1: 13".
9. Lesson 1's CP table headed two Chinese columns "合计：none (GiB)" and "合计：selective (GiB)", the recompute codes
   in English, where the table above it writes 不重计算 (none) and 选择性重计算 (selective). Now "合计：不重计算 (GiB)"
   and "合计：选择性重计算 (GiB)".

10. Exercise 1.2 ("能放下的最小 ZeRO 阶段是几（0-3 的整数）？") answered with the stage in words: ``'阶段2'``,
    ``'第2阶段'``, ``'ZeRO 第 2 阶段'`` got "必须是整数 (int)，而不是 str" (Python's type names, no fix; ``'ZeRO-2'``
    alone had one), and ``answer = ZeRO-2`` without quotes was told that 'ZeRO' is defined in a cell above and to run
    the cells above, which cannot help. The words around the stage are now read as 'ZeRO-2' is ("写成 answer = 2",
    a Chinese numeral too: ``'第二阶段'``), and ``ZeRO-2`` unquoted gets the option hint, whose quoted line the checker
    then reads as 2.

11. Lesson 3's serving-role example printed "原因：Replica* 是服务副本 ..." with a star the text never mentions; the
    prose now says the page is called ``Replica*`` and that the star only marks it as the mislabelled page.

tests/browser/test_learner_review27.py shows 1 to 8 in Chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from coursekit.communication import COLLECTIVE_NAMES, strategy_traffic
from coursekit.exercises import check, get_exercise
from coursekit.exercises.input_help import CHINESE_MAGNITUDES, input_hint
from coursekit.units import GIB_BYTES, MIB_BYTES
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)
from tests.test_learner_review26 import _name_error, _syntax_error

ROOT = Path(__file__).resolve().parents[1]

# -- 1. a tuple or a set without commas ----------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("answer = (1 2 4 8 16)", "answer = (1, 2, 4, 8, 16)"),
        ("answer = {1 2 4 8 16}", "answer = {1, 2, 4, 8, 16}"),
        ("answer = [5 7]", "answer = [5, 7]"),  # review 26's list keeps its line
    ],
)
def test_items_without_commas_get_the_line_fixed(line: str, fixed: str) -> None:
    hint = input_hint(_syntax_error(line), line)
    assert hint is not None and "括号里的各项之间缺少逗号" in hint and hint.endswith(f"改好的一行：{fixed}")
    scope: dict[str, object] = {}
    exec(fixed, scope)  # the line shown runs


@pytest.mark.usefixtures("zh")
def test_exercise_3_3_written_as_the_fixed_line_is_right() -> None:
    # 64 sequences, micro-batch 4: dp x 4 x accumulation = 64 needs dp to divide 16 (lesson 3's stated rule)
    assert get_exercise("q3.dp_degrees").expected_value() == (1, 2, 4, 8, 16)
    scope: dict[str, object] = {}
    exec("answer = (1, 2, 4, 8, 16)", scope)
    assert check("q3.dp_degrees", scope["answer"]).correct


@pytest.mark.usefixtures("zh")
def test_mismatched_brackets_get_no_invented_line() -> None:
    line = "answer = (1 2 4 8 16]"
    assert input_hint(_syntax_error(line), line) is None


@pytest.mark.usefixtures("en")
def test_items_without_commas_in_english() -> None:
    line = "answer = (1 2 4 8 16)"
    hint = input_hint(_syntax_error(line), line)
    assert hint is not None and "a list, a tuple or a set separates its items with commas" in hint
    assert hint.endswith("The line fixed: answer = (1, 2, 4, 8, 16)")


# -- 2. every bare option of a set quoted at once --------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("answer = {TP, EP, PP, Replica}", "answer = {'TP', 'EP', 'PP', 'Replica'}"),
        ("answer = [TP, EP]", "answer = ['TP', 'EP']"),
        ("answer = {'TP', EP}", "answer = {'TP', 'EP'}"),
    ],
)
def test_a_set_of_bare_options_is_quoted_whole(line: str, fixed: str) -> None:
    hint = input_hint(_name_error(line), line)
    assert hint is not None and f"要加引号写成文字：{fixed}。" in hint
    scope: dict[str, object] = {}
    exec(fixed, scope)  # runs with no NameError left


@pytest.mark.usefixtures("zh")
def test_exercise_3_2_as_the_quoted_line_is_right() -> None:
    # serving a MoE on 24 GiB intra-node cards: DP and ZeRO-3 declare training only, CP needs a context to split
    # (lesson 3's gates), so TP, EP, PP and the serving replica pass
    scope: dict[str, object] = {}
    exec("answer = {'TP', 'EP', 'PP', 'Replica'}", scope)
    assert check("q3.accepted", scope["answer"]).correct


@pytest.mark.usefixtures("zh")
def test_a_bare_name_in_an_expression_is_still_a_variable() -> None:
    line = "answer = f(x, EP)"
    hint = input_hint(_name_error("answer = f(x, EP)"), line)
    assert hint is not None and "加引号" not in hint


# -- 3. a set typed as text ----------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("typed", "literal"),
    [
        ("TP, EP", "{'TP', 'EP'}"),
        ("TP、EP、PP、Replica", "{'TP', 'EP', 'PP', 'Replica'}"),
        ("{TP, EP, PP, replica}", "{'TP', 'EP', 'PP', 'Replica'}"),
        ("TP 和 EP", "{'TP', 'EP'}"),
        ("TP", "{'TP'}"),
    ],
)
def test_a_set_in_quotes_is_shown_as_a_set(typed: str, literal: str) -> None:
    feedback = check("q3.accepted", typed)
    assert feedback.status == "invalid"
    assert "不是集合" in feedback.message and f"写成 answer = {literal}。" in feedback.message
    scope: dict[str, object] = {}
    exec(f"answer = {literal}", scope)
    assert check("q3.accepted", scope["answer"]).status in ("correct", "incorrect")  # judged, not refused


@pytest.mark.usefixtures("zh")
def test_text_with_a_part_that_is_no_option_keeps_the_set_message() -> None:
    message = check("q3.accepted", "TP, XX").message
    assert "组成的集合" in message and "写成 answer" not in message


@pytest.mark.usefixtures("en")
def test_a_set_in_quotes_in_english() -> None:
    assert "not a set: drop the outer quotes" in check("q3.accepted", "TP, EP").message
    assert "answer = {'TP', 'EP'}." in check("q3.accepted", "TP, EP").message


# -- 4. 0.25 MiB for 0.256 MiB ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("answer", [0.25, 0.250, 0.2500])
def test_gib_to_mib_by_1000_is_named(answer: float) -> None:
    # the exercise's figures worked by hand: 10e-6 s x 25 GiB/s = 2.5e-4 GiB; x 1024 = 0.256 MiB, x 1000 = 0.25
    right = 10e-6 * 25 * GIB_BYTES / MIB_BYTES
    assert right == pytest.approx(0.256)
    assert 10e-6 * 25 * 1000 == pytest.approx(answer)
    feedback = check("q2.crossover_mib", answer)
    assert feedback.status == "incorrect" and feedback.slip == "binary_step_as_1000"
    assert "1024 倍，不是 1000 倍" in feedback.message and "四舍五入" in feedback.message
    assert check("q2.crossover_mib", round(right, 3)).correct


@pytest.mark.usefixtures("zh")
def test_the_rounded_answer_and_other_slips_keep_their_verdicts() -> None:
    assert check("q2.crossover_mib", 0.26).correct
    assert check("q2.crossover_mib", 0.128).slip == "direction"
    assert check("q2.crossover_mib", 0.512).slip == "example_link_crossover"


@pytest.mark.usefixtures("en")
def test_gib_to_mib_by_1000_in_english() -> None:
    assert "binary units are 1024 apart, not 1000" in check("q2.crossover_mib", 0.25).message


# -- 5. the ledger named as the lesson names it --------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("typed", ["账本 B", "B 账本", "B账本", "B 本", "ledger B", "Ledger b", "b"])
def test_the_ledger_word_around_the_letter_is_read(typed: str) -> None:
    # B: 64 KiB per call against a crossover of 5 µs x 100 GiB/s = 0.512 MiB, so its latency dominates
    assert get_exercise("q2.latency_bound").expected_value() == "B"
    assert check("q2.latency_bound", typed).correct


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("typed", ["账本 A", "A 本"])
def test_the_other_ledger_is_still_wrong(typed: str) -> None:
    assert check("q2.latency_bound", typed).status == "incorrect"


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("typed", ["A 和 B", "账本", "账本 AB"])
def test_two_ledgers_or_none_are_not_taken(typed: str) -> None:
    assert check("q2.latency_bound", typed).status == "invalid"


# -- 6. lesson 2's traffic listing names each collective ------------------------------------------------------------


def test_lesson_2_traffic_listing_names_each_collective_in_chinese() -> None:
    from tests.notebook_outputs import executed, output_texts

    notebook = executed(ROOT / "notebooks" / "zh" / "02_communication.ipynb")
    listing = next(text for cell in notebook.cells for text in output_texts(cell) if "前向：每层 2 次全归约" in text)
    lines = [line for line in listing.splitlines() if line and not line.startswith(" ")]
    assert len(lines) == 14, listing  # DP 1, ZeRO-2 2, ZeRO-3 3, TP 2, PP 2, CP 2, EP 2 entries
    for line in lines:
        assert "，每步 " in line and line.endswith(" 次"), line
        code = line.split("（", 1)[1].split("）", 1)[0]
        assert f"{COLLECTIVE_NAMES[code].zh}（{code}）" in line
    # Megatron TP: 2 all-reduces per layer forward and 2 backward (Shoeybi et al., 2019): 36 layers x 8 micro-batches
    tp = [line for line in lines if line.startswith("TP ")]
    assert tp == ["TP       全归约（all_reduce），每步 576 次"] * 2
    assert (
        sum(
            e.calls_per_step
            for e in strategy_traffic("tp", seq_len=4096, micro_batch=1, micro_batches=8, hidden=4096, layers=36, tp=8)
        )
        == 2 * 2 * 36 * 8
    )


# -- 7. 亿 is an order of magnitude, not a unit to strip --------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("line", ["answer = 2400亿", "answer = 约2400亿"])
def test_yi_after_the_number_is_converted_not_stripped(line: str) -> None:
    error: BaseException
    try:
        exec(compile(line, "<cell>", "exec"), {})
    except (SyntaxError, NameError) as raised:
        error = raised
    else:
        raise AssertionError(f"{line!r} ran")
    hint = input_hint(error, line)
    assert hint is not None
    assert "'亿' 不是单位，是数量级 10^8" in hint and "2400亿 = 2400 * 10**8 = 2.4e+11" in hint
    assert "按十亿 (B) 计是 240）" in hint and "answer = 2400" not in hint


@pytest.mark.usefixtures("zh")
def test_exercise_9_3_in_yi_leads_to_the_right_answer() -> None:
    # 1 亿 = 10^8 and 1 十亿 = 10^9 (the Chinese number words); 2400亿 = 240 x 10^9
    assert CHINESE_MAGNITUDES["亿"] == 8 and CHINESE_MAGNITUDES["十亿"] == 9 and CHINESE_MAGNITUDES["万"] == 4
    feedback = check("plan.moe_active", "2400亿")
    assert feedback.status == "invalid" and "按十亿 (B) 计是 240）" in feedback.message
    assert "answer = 2400" not in feedback.message
    assert check("plan.moe_active", 240).correct  # what the help leads to: 239.7 billion at three digits


@pytest.mark.usefixtures("zh")
def test_a_real_unit_is_still_stripped() -> None:
    line = "answer = 4.45ms"
    hint = input_hint(_syntax_error(line), line)
    assert hint is not None and "单位 'ms'" in hint and hint.endswith("answer = 4.45")


@pytest.mark.usefixtures("en")
def test_yi_in_english() -> None:
    message = check("plan.moe_active", "2400亿").message
    assert "'亿' is no unit but a Chinese order of magnitude, 10^8" in message and "240 in billions, B" in message


# -- 8. lesson 5's entries: the fix written as the cell writes it ---------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_a_dict_entry_is_told_its_fix_as_an_entry(capsys: pytest.CaptureFixture[str]) -> None:
    from coursekit.i18n import Text

    check("matrix.case1_state_gib", "13 GiB", label=Text(zh="案例 1，训练状态", en="Case 1, state"), entry="1: ")
    shown = capsys.readouterr().out
    assert shown.startswith("案例 1，训练状态：无法检查。1: '13 GiB'") and shown.rstrip().endswith("：1: 13。")
    assert "answer" not in shown
    check("matrix.case3_dp", ["not_preferred"], label=Text(zh="案例 3，DP", en="Case 3, DP"), entry='"DP": ')
    shown = capsys.readouterr().out
    assert "写成 \"DP\": 'not_preferred'。" in shown and "answer" not in shown
    # case 1: 872,415,232 parameters x 16 bytes / 2^30 = 13.0 GiB (the lesson's table and lesson 1's 16 bytes)
    assert check("matrix.case1_state_gib", 872_415_232 * 16 / GIB_BYTES).correct


@pytest.mark.usefixtures("zh")
def test_a_blank_entry_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="entry = ' '"):
        check("matrix.case1_state_gib", 13, entry=" ")
    with pytest.raises(TypeError, match="entry"):
        check("matrix.case1_state_gib", 13, entry=1)  # type: ignore[arg-type]


def test_lesson_5_cells_pass_their_entry() -> None:
    source = (ROOT / "notebooks" / "src" / "05_selection_matrix.py").read_text(encoding="utf-8")
    # since fuzz pass 27 the cells check the learner's dicts with check_entries, whose entries= holds each key's entry
    learner = [cell for cell in source.split("# %%") if cell.startswith(' tags=["learner"]') and "labels=" in cell]
    assert len(learner) == 2  # exercise 5.1's state and kind, exercise 5.2's matrix
    assert all(cell.count("check_entries(") == cell.count("entries=") for cell in learner)


# -- 9. lesson 1's CP table in Chinese --------------------------------------------------------------------------------


def test_lesson_1_cp_table_names_the_recompute_settings_in_chinese() -> None:
    from tests.notebook_outputs import executed, output_texts

    notebook = executed(ROOT / "notebooks" / "zh" / "01_capacity.ipynb")
    table = next(text for cell in notebook.cells for text in output_texts(cell) if "注意力分数 (GiB)" in text)
    assert "合计：不重计算 (GiB)" in table and "合计：选择性重计算 (GiB)" in table
    assert "none" not in table and "selective" not in table


# -- 10. the stage in words ----------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("typed", ["阶段2", "第2阶段", "ZeRO 第 2 阶段", "ZeRO-2 阶段", "2 级", "第二阶段"])
def test_the_stage_in_words_is_shown_as_its_number(typed: str) -> None:
    # 7.47B x (2 + 2) bytes + 12 bytes / 8 ranks, plus selective activations and 2 GiB, first fits 40 GiB at ZeRO-2
    assert get_exercise("q1.min_zero_stage").expected_value() == 2
    feedback = check("q1.min_zero_stage", typed)
    assert feedback.status == "invalid" and "写成 answer = 2。" in feedback.message
    assert "而不是 str" not in feedback.message


@pytest.mark.usefixtures("zh")
def test_zero_2_unquoted_gets_the_option_hint_that_leads_to_2() -> None:
    line = "answer = ZeRO-2"
    hint = input_hint(_name_error(line), line)
    assert hint is not None and "要加引号写成文字：answer = 'ZeRO-2'" in hint
    assert "写成 answer = 2。" in check("q1.min_zero_stage", "ZeRO-2").message  # the next step


@pytest.mark.usefixtures("zh")
def test_arithmetic_on_a_lower_case_name_is_not_an_option() -> None:
    line = "answer = x-1"
    hint = input_hint(_name_error(line), line)
    assert hint is not None and "加引号" not in hint


@pytest.mark.usefixtures("zh")
def test_stage_words_without_a_number_keep_the_type_message() -> None:
    assert "必须是整数" in check("q1.min_zero_stage", "阶段").message


# -- 11. lesson 3's Replica* ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("zh", "下面这页就叫 `Replica*`：星号只是提醒这是写错的那一页"),
        ("en", "The page below is called `Replica*`: the star"),
    ],
)
def test_lesson_3_says_what_the_star_of_replica_marks(language: str, said: str) -> None:
    import json

    cells = json.loads((ROOT / "notebooks" / language / "03_gates.ipynb").read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells]
    prose = next(i for i, text in enumerate(sources) if said in text)
    assert '"Replica*"' in sources[prose + 1]  # the cell right under it builds that page
