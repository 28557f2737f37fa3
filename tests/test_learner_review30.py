"""Learner review 30: a Chinese self-learner on a 13-inch laptop (1280 x 720, 110 % zoom, JupyterLab's Chinese UI)
works through zh lessons 0, 4, 6, 7, 8 and 10, moving every widget control to its extremes and typing right answers,
wrong ones and a newcomer's slips into every exercise cell. What was met and fixed:

1. Lesson 6, the scaling-efficiency widget at its extremes. With the slowest link (5 GB/s), the most
   gradient (40 GB) and the least compute (50 ms) the message read
   "E(512) = 0.00：512 个设备的吞吐是单设备的 2 倍" (an efficiency of zero beside a speed-up of two), and one
   step of the overlap slider said "重叠比例从 0.00 往上，一步的时间都一样", which overlap 0 contradicts (the
   step is 50 ms longer there). With the fastest link (450 GB/s), the least gradient and the most compute the
   first line said "暴露的通信只占一步的 0.11%" and the diagnosis below it "占一步时间的 0%（2.22 ms）". The
   efficiency, the overlap threshold and every share a step diagnosis names (coursekit.scaling.diagnose_efficiency,
   also shown in lessons 6 and 8) now use the course's one rule for a nonzero value that would print as 0 or
   100 % (coursekit.i18n.nonzero, the catalog's "~" suffix): "E(512) = 0.003", "从 0.003 往上",
   "0.1%（2.22 ms）"; the end label of the curve likewise.

2. The lessons write "3/19 ≈ 0.158" in prose; a learner who copied it, ``answer = 3/19≈0.158`` (or
   ``answer ≈ 0.158``, the sign for "="), met Python's bare "invalid character '≈' (U+2248)" with no line of help
   (the "~" of review 29 has one). The line now gets one: Python has no "about" sign; write one side only, each
   side shown as the line to write (``answer = 3/19 或 answer = 0.158``).

tests/browser/test_learner_review30.py shows 1 and 2 in Chromium, in the zh lesson.
"""

from __future__ import annotations

import re

import pytest

from coursekit.exercises import check
from coursekit.exercises.input_help import approx_hint, input_hint
from coursekit.scaling import diagnose_efficiency, step_timeline
from coursekit.widgets.scaling import (
    BANDWIDTH_STEPS_GB_S,
    COMPUTE_STEPS_MS,
    GRADIENT_STEPS_GB,
    ScalingWidget,
)
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)

# The widget's extremes, worked by hand for P = 512 devices and a ring all-reduce of S bytes at B bytes/s:
# communication = 2 (P-1)/P · S / B.
# * slowest link, most gradient, least compute: 2 · 511/512 · 40e9 / 5e9 s = 15.96875 s = 15968.75 ms of exposed
#   communication (overlap 0), so E(512) = 50 / (50 + 15968.75) = 0.00312, printed "0.003"; one slider step of
#   overlap (0.05) is capped by the compute: every overlap from 50 / 15968.75 = 0.00313 up gives the same step.
# * fastest link, least gradient, most compute: 2 · 511/512 · 0.5e9 / 450e9 s = 2.218 ms exposed, a share of
#   2.218 / 2002.218 = 0.11 % of the step, printed "0.1%" (the first decimal that shows a digit), not "0%".
SLOW_EXPOSED_MS = 2 * 511 / 512 * 40e9 / 5e9 * 1000
FAST_EXPOSED_MS = 2 * 511 / 512 * 0.5e9 / 450e9 * 1000


def _widget(overlap: float, bandwidth: float, gradient: float, compute: float) -> str:
    widget = ScalingWidget(overlap=overlap, bandwidth_gb_s=bandwidth, gradient_gb=gradient, compute_ms=compute)
    assert widget.status == "ok"
    return re.sub(r"<[^>]+>", "", widget.message)


def test_the_extremes_are_the_sliders_ends() -> None:
    assert (BANDWIDTH_STEPS_GB_S[0], BANDWIDTH_STEPS_GB_S[-1]) == (5.0, 450.0)
    assert (GRADIENT_STEPS_GB[0], GRADIENT_STEPS_GB[-1]) == (0.5, 40.0)
    assert (COMPUTE_STEPS_MS[0], COMPUTE_STEPS_MS[-1]) == (50.0, 2000.0)


@pytest.mark.usefixtures("zh")
def test_a_tiny_efficiency_is_not_printed_as_zero() -> None:
    assert round(50 / (50 + SLOW_EXPOSED_MS), 3) == 0.003
    message = _widget(0.0, 5.0, 40.0, 50.0)
    assert "E(512) = 0.003：512 个设备的吞吐是单设备的 2 倍" in message, message
    assert "0.00：" not in message
    capped = _widget(0.05, 5.0, 40.0, 50.0)
    assert round(50 / SLOW_EXPOSED_MS, 3) == 0.003
    assert "重叠比例从 0.003 往上，一步的时间都一样" in capped, capped
    assert "从 0.00 往上" not in capped


@pytest.mark.usefixtures("en")
def test_a_tiny_efficiency_is_not_printed_as_zero_in_english() -> None:
    message = _widget(0.0, 5.0, 40.0, 50.0)
    assert "E(512) = 0.003: 512 devices give 2× the throughput of one" in message, message
    assert "every overlap from 0.003 up gives this same step" in _widget(0.05, 5.0, 40.0, 50.0)


@pytest.mark.usefixtures("zh")
def test_the_diagnosis_share_agrees_with_the_line_above_it() -> None:
    share = FAST_EXPOSED_MS / (2000 + FAST_EXPOSED_MS)
    assert f"{share:.1%}" == "0.1%" and f"{100 * share:.2g}" == "0.11"
    message = _widget(0.0, 450.0, 0.5, 2000.0)
    assert "暴露的通信只占一步的 0.11%" in message, message
    assert "诊断：暴露的通信 (exposed communication) 占一步时间的 0.1%（2.22 ms）" in message, message
    assert "0%（" not in message


@pytest.mark.usefixtures("zh")
def test_a_diagnosed_share_is_never_a_rounded_zero_or_whole() -> None:
    # 1 ms of exposed communication under 999 ms of compute: 0.1 % of the step; 999 ms of it over 1 ms of compute:
    # 99.9 %. Whole percents would print 0 % and 100 %.
    assert "占一步时间的 0.1%（1 ms）" in diagnose_efficiency(step_timeline(0.999, 0.001)).reason.message
    assert "占一步时间的 99.9%（999 ms）" in diagnose_efficiency(step_timeline(0.001, 0.999)).reason.message
    bubbled = diagnose_efficiency(step_timeline(0.100, 0.040, bubble_s=0.010))
    assert "占一步时间的 27%（40 ms）" in bubbled.reason.message


@pytest.mark.usefixtures("zh")
def test_the_curve_end_label_is_not_zero() -> None:
    widget = ScalingWidget(overlap=0.0, bandwidth_gb_s=5.0, gradient_gb=40.0, compute_ms=50.0)
    widget.draw(widget.result)
    assert widget.end_label.get_text() == "0.003"


# -- 2. "≈" copied from the prose ------------------------------------------------------------------------------------


def _syntax_error(line: str) -> SyntaxError:
    try:
        compile(line, "<cell>", "exec")
    except SyntaxError as error:
        return error
    raise AssertionError(f"{line!r} compiled")


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        # exercise 6.1 worked by hand: (p-1)/(m+p-1) with p = 4, m = 16 is 3/19 = 0.158
        ("answer = 3/19≈0.158", "answer = 3/19 或 answer = 0.158"),
        ("answer = 3/19 ≈ 0.158  # p = 4", "answer = 3/19 或 answer = 0.158"),
        ("answer ≈ 0.158", "answer = 0.158"),
        ("answer = 206≈", "answer = 206"),
    ],
)
def test_an_approx_sign_gets_a_line_of_help(typed: str, shown: str) -> None:
    hint = input_hint(_syntax_error(typed), typed)
    assert hint is not None and hint.startswith("第 1 行有“≈”：Python 里没有“约等于”号。只写一边"), hint
    assert hint.endswith(shown), hint
    for line in shown.split(" 或 "):  # every line shown runs, and each side of 3/19 ≈ 0.158 is right
        compile(line, "<shown>", "exec")
        if "0.158" in line or "3/19" in line:
            value = eval(line.split("=", 1)[1])
            assert check("pipeline.bubble_p4_m16", value).status == "correct"


@pytest.mark.usefixtures("en")
def test_an_approx_sign_gets_a_line_of_help_in_english() -> None:
    typed = "answer = 3/19≈0.158"
    hint = input_hint(_syntax_error(typed), typed)
    assert hint is not None and hint.startswith("Line 1 has “≈”: Python has no “about” sign. Write one side only")
    assert hint.endswith("answer = 3/19 or answer = 0.158"), hint


@pytest.mark.usefixtures("zh")
def test_a_line_without_an_answer_gets_no_approx_help() -> None:
    assert approx_hint("x = 3≈4", 1) is None
    assert approx_hint("answer = 0.158", 1) is None
    assert approx_hint("answer = ≈", 1) is None
