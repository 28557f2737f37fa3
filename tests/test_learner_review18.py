"""What the Chinese self-learner of review 18 met in the zh lessons, fixed.

1. Widgets, control by control. Lesson 5's matrix widget: choosing the interconnect "fast inside a node, slow between
   nodes" from the start (Megatron 7.5B, 24 GiB) and any global batch for the 39.1B model left the message and the
   figure exactly as they were (silent no-ops). Lesson 1's capacity widget at ZeRO-0: a DP change redrew the faded
   ZeRO-1/2/3 bars but the message did not name DP. Lesson 9's workbench on the CPU servers' contrast ("cpu-box")
   said "serving on 16 GPUs", "tokens/s per GPU", "GB/s/GPU", and showed a step of 234240 s with no hours or days.
2. Typical Chinese-learner slips got "must be a real number (int or float), not str" or the exercise's general hint:
   a decimal comma ('25,77', '25，77'), a Chinese unit ('25.77吉字节'), '约25.8', '25.77％'; a GiB answer in MiB
   (×1024), a GB answer in MB (×1000), busbw doubled (both directions); exercise 8.9 answered with the input-delay
   run or the overlap-off run (and 8.8 with the slow-rank run); 5.2's '不可行' / '排除' (the matrix's word is
   不优先), '不推荐', '需要更多信息'; ``check("0.1", answer)`` (the heading's number) answered "known: -".
3. The checker's tolerance: 0.1's 25.76 passed (0.04 % off, inside the 0.1 % relative tolerance) while 25.7 was told
   it was cut off, and lesson 0's rule read as if a rounded answer were judged at its digits alone. Lesson 0 now states
   the 0.1 % rule with those numbers, and an answer right by that tolerance alone is told so.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from coursekit.exercises import DEFAULT_REL_TOL, Exercise, _evaluate, check, get_exercise
from coursekit.exercises.input_help import input_hint
from coursekit.exercises.lesson8 import MYSTERY_RUNS
from coursekit.i18n import Text
from coursekit.widgets.capacity import CapacityWidget
from coursekit.widgets.matrix import MatrixWidget
from coursekit.widgets.workbench import WorkbenchWidget
from tests.test_learner_review15 import _syntax_error
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)
from tests.test_zh_leftovers import ALLOWED, code_words
from tests.test_zh_leftovers import english_words as _english_words

ROOT = Path(__file__).resolve().parents[1]


def english_words(text: str) -> list[str]:
    """The English words of a zh message outside lesson 0's allowances and the units and names these messages use."""
    return _english_words(text, ALLOWED | code_words() | {"FSDP", "MiB", "KiB", "Python"})


def _png(widget: object) -> str:
    return hashlib.sha256(widget.image.value).hexdigest()  # type: ignore[attr-defined]


# -- 1. widgets: no control leaves what is shown as it was ---------------------------------------------------------

#: (starting controls, control, value): each left the message and the figure exactly as they were before the fix
MATRIX_SILENT = [
    ({}, "topology", "hierarchical"),
    ({"topology": "hierarchical"}, "topology", "unspecified"),
    ({"model": "megatron-39.1b"}, "global_batch", 16),
    ({"model": "megatron-39.1b"}, "global_batch", 512),
]


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(("start", "key", "value"), MATRIX_SILENT)
def test_the_matrix_widget_says_why_a_control_changes_no_verdict(
    start: dict[str, object], key: str, value: object
) -> None:
    widget = MatrixWidget(**start)  # type: ignore[arg-type]
    before, figure = widget.message, _png(widget)
    widget.controls[key].value = value
    assert widget.status == "ok"
    assert widget.message != before, f"{key} = {value!r} from {start} left the message as it was"
    if _png(widget) == figure:  # the figure may stay: then the message must say the verdicts do not change
        assert "结论" in widget.message and "不变" in widget.message
    assert english_words(re.sub(r"<[^>]+>", " ", widget.message)) == []


@pytest.mark.usefixtures("zh")
def test_the_matrix_widget_names_the_interconnect_it_was_given() -> None:
    widget = MatrixWidget()
    widget.controls["topology"].value = "hierarchical"
    assert "互连选“节点内快（NVLink）、跨节点慢”：这个案例的四个结论和选“未知（案例没说）”时完全一样" in widget.message
    # case 3 of the lesson (18.4B on 24 GiB): a 26 GiB layer; TP's verdict depends on the links, so no such note
    widget.controls["model"].value = "megatron-18.4b"
    assert "完全一样" not in widget.message


@pytest.mark.usefixtures("en")
def test_the_matrix_widget_states_the_global_batch_that_changes_nothing() -> None:
    widget = MatrixWidget(model="megatron-39.1b")
    widget.controls["global_batch"].value = 128
    assert "Global batch 128 sequences: any global batch from 16 to 512 sequences gives this case the same four" in (
        widget.message
    )


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("dp", [1, 16, 128])
def test_the_capacity_widget_names_dp_at_zero_0(dp: int) -> None:
    widget = CapacityWidget()  # ZeRO-0, DP = 8: the solid bar holds a whole copy of the model states
    before = widget.message
    widget.controls["dp"].value = dp
    assert widget.message != before
    assert f"DP = {dp}" in widget.message
    assert "ZeRO-0 不切分模型状态" in widget.message


@pytest.mark.usefixtures("zh")
def test_the_capacity_widget_says_nothing_of_zero_0_at_another_stage() -> None:
    widget = CapacityWidget(zero_stage=3)
    assert "ZeRO-0 不切分模型状态" not in widget.message and "DP = 8" in widget.message


@pytest.fixture(scope="module")
def cpu_workbench() -> WorkbenchWidget:
    widget = WorkbenchWidget()
    widget.controls["cluster"].value = "cpu-box"  # one CPU server per node, 16 nodes
    return widget


@pytest.mark.usefixtures("zh")
def test_the_cpu_contrast_counts_cpu_servers_not_gpus(cpu_workbench: WorkbenchWidget) -> None:
    widget = cpu_workbench
    widget.controls["mode"].value = "training"
    widget.redraw()  # in this test's language
    step_s = widget.top(widget.result)[0].timeline.step_s  # type: ignore[arg-type,union-attr]
    assert step_s > 86400  # the contrast: a step of days on CPUs
    # hand-worked: s / 3600 s per hour, s / 86400 s per day
    hours, days = f"{step_s / 3600:,.1f}", f"{step_s / 86400:,.1f}"
    assert f"估算最快的一步要 {step_s:,.0f} s，约 {hours} 小时（{days} 天）。" in widget.message
    assert "GB/s/CPU" in widget.message and "GB/s/GPU" not in widget.message
    widget.controls["mode"].value = "serving"
    assert "在 16 台 CPU 服务器上服务（只作对照，不是 GPU）" in widget.message
    assert "个 GPU" not in widget.message and "每 GPU" not in widget.message
    assert "每 CPU token/秒（上界）" in widget.message
    assert re.search(r"最佳布局的 TTFT 下界 [\d,]+ ms，约 [\d.]+ 分钟。", widget.message)


@pytest.mark.usefixtures("en")
def test_the_cpu_contrast_in_english(cpu_workbench: WorkbenchWidget) -> None:
    cpu_workbench.controls["mode"].value = "serving"
    cpu_workbench.redraw()
    assert "serving on 16 CPU servers (for contrast only, not GPUs)" in cpu_workbench.message
    assert "tokens/s per CPU (bound)" in cpu_workbench.message and "per GPU" not in cpu_workbench.message


@pytest.mark.usefixtures("en")
def test_gpu_clusters_still_count_gpus() -> None:
    widget = WorkbenchWidget()
    widget.controls["mode"].value = "serving"
    assert "GPUs" in widget.message and "tokens/s per GPU (bound)" in widget.message and "CPU" not in widget.message


# -- 2. the slips of a Chinese learner get a hint that names them -------------------------------------------------

#: (exercise, answer, the words that name the slip in zh, in en)
QUOTED = [
    ("intro.device_gb", "25,77", "小数点写成了逗号", "decimal point is a comma"),
    ("intro.device_gb", "25，77", "小数点写成了逗号", "decimal point is a comma"),
    ("intro.device_gb", "25.77吉字节", "单位 吉字节", "unit 吉字节"),
    ("intro.device_gb", "约25.8", "不用写“约”", "leave out “约”"),
    ("intro.device_gb", "大约 25.8", "不用写“大约”", "leave out “大约”"),
    ("intro.device_gb", "25.77％", "百分号", "percent sign"),
    ("intro.device_gb", "１,０２５", "千位分隔的逗号", "thousands commas"),
    ("q2.allreduce_ms", "4.45毫秒", "单位 毫秒", "unit 毫秒"),
]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("eid", "answer", "zh_words", "en_words"), QUOTED)
def test_a_number_written_as_text_is_told_what_to_drop(
    lang: str, eid: str, answer: str, zh_words: str, en_words: str, request: pytest.FixtureRequest
) -> None:
    request.getfixturevalue(lang)
    feedback = check(eid, answer)
    assert feedback.status == "invalid"
    assert (zh_words if lang == "zh" else en_words) in feedback.message
    assert "must be a real number" not in feedback.message and "必须是实数" not in feedback.message
    if lang == "zh":
        assert english_words(feedback.message) == []


def _factor_slip(eid: str, factor: float) -> tuple[str, str | None, str]:
    expected = float(get_exercise(eid).expected_value())
    feedback = _evaluate(get_exercise(eid), expected * factor)
    return feedback.status, feedback.slip, feedback.message


#: (exercise, factor the slip multiplies the answer by, slip code): a GiB answer in MiB is 1024 times larger
UNIT_SLIPS = [
    ("q1.zero2_gib", 1024, "mib_vs_gib"),
    ("q1.headroom_gib", 1024, "mib_vs_gib"),
    ("matrix.case2_state_gib", 1024, "mib_vs_gib"),
    ("intro.device_gb", 1000, "mb_vs_gb"),
    ("lab.busbw_gib_s", 2, "direction"),
    ("lab.busbw_gib_s", 1024, "mib_vs_gib"),
]


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(("eid", "factor", "code"), UNIT_SLIPS)
def test_an_answer_in_the_wrong_unit_gets_its_slip(eid: str, factor: float, code: str) -> None:
    status, slip, message = _factor_slip(eid, factor)
    assert (status, slip) == ("incorrect", code)
    expected = float(get_exercise(eid).expected_value())
    assert f"{expected:.2f}" not in message and f"{expected:.3g}" not in message  # the hint never gives the answer
    assert english_words(message) == []


#: The recorded run's injected faults (the recording's own names): which run had which
RUN_OF = {fault: run for run, fault in MYSTERY_RUNS.items()}


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("eid", "answer_fault", "code"),
    [
        ("lab.straggler_run", "input_delay", "input_delay_run"),
        ("lab.straggler_run", "no_overlap", "overlap_off_run"),
        ("lab.input_delay_run", "slow_rank", "straggler_run"),
        ("lab.input_delay_run", "no_overlap", "overlap_off_run"),
    ],
)
def test_exercises_8_8_and_8_9_name_the_fault_of_the_run_chosen(eid: str, answer_fault: str, code: str) -> None:
    feedback = _evaluate(get_exercise(eid), RUN_OF[answer_fault])
    assert (feedback.status, feedback.slip) == ("incorrect", code)
    assert english_words(feedback.message) == []
    right = RUN_OF["slow_rank" if eid == "lab.straggler_run" else "input_delay"]
    assert f"运行 {right}" not in feedback.message and f"run {right}" not in feedback.message


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("run", ["Z", " z。", "Ｚ"])
def test_exercise_8_9_takes_the_slow_rank_run_as_typed(run: str) -> None:
    assert RUN_OF["slow_rank"] == "Z"
    assert check("lab.straggler_run", run).correct


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("word", ["不可行", "排除", "infeasible"])
def test_exercise_5_2_says_excluded_cells_are_not_preferred(word: str) -> None:
    feedback = check("matrix.case2_dp", word)
    assert feedback.status == "invalid"
    assert "'not_preferred'（不优先）" in feedback.message and "既包括排除" in feedback.message


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("eid", "answer"),
    [
        ("matrix.case1_dp", "“可行”"),
        ("matrix.case3_tp", "需要更多信息"),
        ("matrix.case3_tp", "needs-info"),
        ("matrix.case1_fsdp", "不推荐"),
        ("matrix.case1_fsdp", "not-preferred"),
    ],
)
def test_exercise_5_2_reads_a_chinese_learners_wording(eid: str, answer: str) -> None:
    # the lesson's worked solution: case 1 DP feasible, case 3 TP needs information, case 1 FSDP not preferred
    assert check(eid, answer).correct


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_headings_number_is_not_an_exercise_id(lang: str, request: pytest.FixtureRequest) -> None:
    request.getfixturevalue(lang)
    with pytest.raises(ValueError) as caught:
        check("0.1", 25.77)
    message = str(caught.value)
    assert "intro.device_gb" in message and "-）" not in message and "(known: -)" not in message
    assert ("练习标题里的题号" if lang == "zh" else "the number in the exercise's heading") in message


# -- 3. lesson 0's rule and the checker's tolerance agree ----------------------------------------------------------

#: Lesson 0's example of the rule (not an exercise's answer: the rule sits above exercise 0.1 and must not give it)
EXAMPLE = 2.3456


def _lesson0(lang: str) -> str:
    source = (ROOT / "notebooks" / "src" / "00_index.py").read_text(encoding="utf-8")
    cells = re.split(r"^# %% ", source, flags=re.M)
    return "\n".join(c for c in cells if c.startswith(f'[markdown] lang="{lang}"'))


def _example_exercise() -> Exercise:
    return Exercise(
        id="review18.example",
        lesson=0,
        prompt=Text(zh="例子", en="example"),
        expected=lambda: EXAMPLE,
        hint=Text(zh="提示。", en="Hint."),
        why=Text(zh="解释。", en="Why."),
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_lesson_0_states_the_tolerance_the_checker_uses(lang: str) -> None:
    text = re.sub(r"\n#\s*", " ", _lesson0(lang))
    tolerance = f"{DEFAULT_REL_TOL:.1%}"
    assert tolerance == "0.1%"
    stated = {
        "zh": "与正确值相差不到 0.1% 的答案也算对",
        "en": "An answer within 0.1% of the right value is also right",
    }[lang]
    assert stated in text
    # the examples the rule gives, with their distances from 2.3456 worked here
    assert f"{EXAMPLE}" in text and "2.346" in text and "2.35" in text
    assert f"{abs(2.345 - EXAMPLE) / EXAMPLE:.2%}" == "0.03%" and "2.345" in text and "0.03%" in text
    assert f"{abs(2.34 - EXAMPLE) / EXAMPLE:.2%}" == "0.24%" and "2.34 " in text and "0.24%" in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_checker_does_what_lesson_0_says(lang: str, request: pytest.FixtureRequest) -> None:
    request.getfixturevalue(lang)
    example = _example_exercise()
    for rounded in (2.346, 2.35, 2.3):
        feedback = _evaluate(example, rounded)
        assert feedback.correct and feedback.key == "exercises.correct"
    close = _evaluate(example, 2.345)
    assert close.correct and close.key == "exercises.correct_tolerance"
    assert ("相差不到 0.1%" if lang == "zh" else "within 0.1% of the right value") in close.message
    cut = _evaluate(example, 2.34)
    assert (cut.correct, cut.slip) == (False, "truncated")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_exercise_0_1_is_judged_by_the_same_rule(lang: str, request: pytest.FixtureRequest) -> None:
    """0.1's 25.76 (0.04 % off 24 × 2^30 / 10^9 = 25.7698) passes by the tolerance, and says so; 25.7 (0.27 % off)
    is told it was cut off."""
    request.getfixturevalue(lang)
    device_gb = 24 * 2**30 / 1e9
    assert get_exercise("intro.device_gb").expected_value() == pytest.approx(device_gb)
    assert abs(25.76 - device_gb) / device_gb < DEFAULT_REL_TOL < abs(25.7 - device_gb) / device_gb
    assert check("intro.device_gb", 25.76).key == "exercises.correct_tolerance"
    assert check("intro.device_gb", 25.7).slip == "truncated"


# -- 4. lesson 5's figure: no line through a label ------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("device", [16, 24, 80])
def test_the_matrix_figures_device_label_sits_above_the_frame(device: int) -> None:
    """The "单卡 24 GiB" label sat at the frame's top edge, which ran through its characters."""
    widget = MatrixWidget(device_memory_gib=device)
    renderer = widget.figure.canvas.get_renderer()  # type: ignore[attr-defined]
    label = widget.device_text.get_window_extent(renderer)
    frame = widget.ax.get_window_extent(renderer)
    assert widget.device_text.get_text() == f"单卡 {device} GiB"
    assert label.y0 >= frame.y1, "the device label overlaps the frame's top edge"
    assert frame.x0 <= (label.x0 + label.x1) / 2 <= frame.x1


@pytest.mark.usefixtures("zh")
def test_the_matrix_figures_verdict_labels_are_not_crossed_by_the_device_line() -> None:
    """FSDP's and TP's "可行 16 GiB" start left of the 24 GiB line and run across it: on a white ground now."""
    widget = MatrixWidget()
    renderer = widget.figure.canvas.get_renderer()  # type: ignore[attr-defined]
    line_x = widget.ax.transData.transform((24.0, 0.0))[0]
    crossed = [
        t for t in widget.verdicts if t.get_window_extent(renderer).x0 < line_x < t.get_window_extent(renderer).x1
    ]
    assert crossed, "no label crosses the line at the start: the test no longer tests anything"
    for text in crossed:
        patch = text.get_bbox_patch()
        assert patch is not None and patch.get_facecolor()[:3] == (1.0, 1.0, 1.0)


# -- 5. terms the zh lessons use without defining them ---------------------------------------------------------------

#: (zh term, English): each is used in the zh lessons' prose with its English in parentheses, and was in no glossary
#: entry: 内核 means the Jupyter kernel in lesson 0 and a GPU kernel from lesson 1 on (融合内核, 内核效率).
UNDEFINED_TERMS = [("内核", "kernel"), ("桶", "bucket"), ("预取", "prefetch"), ("关键路径", "critical path")]


@pytest.mark.parametrize(("term_zh", "term_en"), UNDEFINED_TERMS)
def test_a_term_the_lessons_use_is_in_the_glossary(term_zh: str, term_en: str) -> None:
    from coursekit.glossary import GLOSSARY

    prose = "\n".join(_lesson_markdown(path, "zh") for path in sorted((ROOT / "notebooks" / "src").glob("*.py")))
    assert f"{term_zh} ({term_en})" in prose, f"the lessons no longer write {term_zh} ({term_en})"
    entries = [e for e in GLOSSARY if term_zh in e.zh and term_en in e.en.lower()]
    assert entries, f"{term_zh} ({term_en}) is in no glossary entry"


def _lesson_markdown(path: Path, lang: str) -> str:
    cells = re.split(r"^# %% ", path.read_text(encoding="utf-8"), flags=re.M)
    return re.sub(r"\n#\s?", "\n", "\n".join(c for c in cells if c.startswith(f'[markdown] lang="{lang}"')))


def test_the_glossary_says_which_kernel_is_which() -> None:
    from coursekit.glossary import lookup

    definition = lookup("内核").definition
    assert "GPU" in definition.zh and "Jupyter" in definition.zh and "重启内核" in definition.zh
    assert "GPU" in definition.en and "Jupyter" in definition.en
    # lesson 8's "回环上的“链路”本身就是经过内核 TCP 栈的内存拷贝": the operating system's kernel
    assert "操作系统的内核" in definition.zh and "operating system's kernel" in definition.en
    lesson8 = (ROOT / "notebooks" / "src" / "08_lab.py").read_text(encoding="utf-8")
    assert "经过内核 TCP 栈" in lesson8


# -- 6. a full-width comma inside the number ---------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("source", "fixed", "words"),
    [
        ("answer = 25，77", "answer = 25.77", "小数点是半角句点"),  # the line retyped was 'answer = 25,77', a tuple
        ("answer = ２５，７７", "answer = 25.77", "小数点是半角句点"),  # Python names '２' first
        # review 22: a group of three digits may be a decimal too (4，445 for 4.445 ms); both lines are offered,
        # the whole number last
        ("answer = 1，772  # 我的答案", "answer = 1772", "千位分隔的逗号"),
    ],
)
def test_a_full_width_comma_in_the_number_is_told_apart(source: str, fixed: str, words: str) -> None:
    hint = input_hint(_syntax_error(source))
    assert hint is not None and "第 1 行的数中间有 '，'" in hint and words in hint
    assert hint.endswith(f"：{fixed}" if "千位" not in words else f"就写 {fixed}")
    assert isinstance(eval(compile(fixed.split("#")[0].replace("answer = ", ""), "<fixed>", "eval")), (int, float))


@pytest.mark.usefixtures("zh")
def test_the_cpu_contrasts_serving_curve_counts_per_cpu(cpu_workbench: WorkbenchWidget) -> None:
    """The figure's y axis said "每 GPU token/秒" for CPU servers while the message said per CPU."""
    cpu_workbench.controls["mode"].value = "serving"
    assert cpu_workbench.serving_curve_ax.get_ylabel() == "每 CPU token/秒"
    cpu_workbench.controls["cluster"].value = "h100-8"
    assert cpu_workbench.serving_curve_ax.get_ylabel() == "每 GPU token/秒"
    cpu_workbench.controls["cluster"].value = "cpu-box"
