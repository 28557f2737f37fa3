"""Lesson 1 exercises (q1.*): right, wrong with a hint, unanswered; the numbers the guide and the lesson quote."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import coursekit
from coursekit.capacity import activation_memory, build_resource_ledger, training_state_memory
from coursekit.exercises import check, exercises, get_exercise
from coursekit.exercises.lesson1 import ledger_for_stage
from coursekit.shapes import MODEL_SHAPES
from coursekit.units import GIB_BYTES

ROOT = Path(__file__).resolve().parents[1]
IDS = ("q1.zero2_gib", "q1.min_zero_stage", "q1.headroom_gib")
GUIDES = [ROOT / "docs" / "instructor" / lang / "01_capacity.md" for lang in ("zh", "en")]
LESSON_SOURCE = ROOT / "notebooks" / "src" / "01_capacity.py"

#: The 7.5B shape of Narayanan et al. 2021, Table 1: 36 layers, h = 4096, vocabulary 51,200, sequence 2,048.
PSI_7_5B = 36 * (12 * 4096**2 + 13 * 4096) + (51_200 + 2_048) * 4096
#: Korthikanti et al. 2022, Table 2: selective recomputation keeps 34·s·b·h bytes per layer (t = 1).
SELECTIVE_ACT_BYTES = 34 * 2048 * 1 * 4096 * 36


def _independent_ledger_gib(stage_bytes_per_param: tuple[float, float, float], dp: int) -> float:
    """Model states + activations + 2 GiB for the lesson's 7.5B configuration, by hand (ZeRO §5 formulas)."""
    p, g, k = stage_bytes_per_param
    return (p * PSI_7_5B + g * PSI_7_5B / dp + k * PSI_7_5B / dp + SELECTIVE_ACT_BYTES) / GIB_BYTES + 2.0


# Answers derived independently of the exercise module (the formulas stated in the prompts).
INDEPENDENT: dict[str, Any] = {
    "q1.zero2_gib": (2 * 7.5e9 + 14 * 7.5e9 / 8) / GIB_BYTES,
    # ZeRO-1 keeps p, g whole (2 + 2) and shards k = 12; ZeRO-2 keeps only p whole.
    "q1.min_zero_stage": 1 if _independent_ledger_gib((4, 0, 12), 8) <= 40 else 2,
    "q1.headroom_gib": round(24.0 - _independent_ledger_gib((0, 2, 14), 8), 2),
}

WRONG: dict[str, Any] = {"q1.zero2_gib": 13.97, "q1.min_zero_stage": 3, "q1.headroom_gib": 1.47}


def test_every_exercise_of_lesson_1_is_registered() -> None:
    assert tuple(ex.id for ex in exercises(1)) == tuple(sorted(IDS))


@pytest.mark.parametrize("exercise_id", IDS)
def test_expected_answer_matches_an_independent_derivation(exercise_id: str) -> None:
    assert get_exercise(exercise_id).expected_value() == pytest.approx(INDEPENDENT[exercise_id], abs=0.006)


def test_shape_is_the_one_of_the_prompt() -> None:
    assert MODEL_SHAPES["megatron-7.5b"].num_params == PSI_7_5B


def test_min_stage_is_the_first_ledger_that_fits() -> None:
    fits = [ledger_for_stage(stage, 40.0).fits_one_device for stage in range(4)]
    assert fits == [False, False, True, True]


@pytest.mark.parametrize("exercise_id", IDS)
def test_right_answer_is_correct(exercise_id: str) -> None:
    feedback = check(exercise_id, get_exercise(exercise_id).expected_value())
    assert feedback.correct, feedback.message


@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answer_gets_a_hint_without_the_answer(exercise_id: str) -> None:
    feedback = check(exercise_id, WRONG[exercise_id])
    assert feedback.status == "incorrect"
    expected = get_exercise(exercise_id).expected_value()
    for lang in ("zh", "en"):
        hint = get_exercise(exercise_id).hint.render(lang)
        for shown in {f"{expected:.2f}", f"{expected:.1f}"} if isinstance(expected, float) else {f"ZeRO-{expected}"}:
            assert shown not in hint
    assert feedback.message.startswith("Not yet. Hint: ")


@pytest.mark.parametrize("exercise_id", IDS)
def test_unanswered(exercise_id: str) -> None:
    feedback = check(exercise_id, ...)
    assert feedback.status == "unanswered"
    assert feedback.message == "Not answered. Replace ... with your answer and run the cell again."


def test_messages_in_chinese() -> None:
    coursekit.set_language("zh")
    feedback = check("q1.headroom_gib", get_exercise("q1.headroom_gib").expected_value())
    assert feedback.message == (
        # states 16 bytes x 7.47e9 / 8 = 13.91 GiB; activations 34·s·b·h x 36 layers = 9.56 GiB (s 2048, h 4096)
        "正确。余量 -1.47 GiB：ZeRO-3 把模型状态切到 13.91 GiB，但激活 9.56 GiB 不受 ZeRO 影响，"
        "把合计推过了 24 GiB；下一步该看重计算或微批次，而不是更多 DP。"
    )
    assert check("q1.min_zero_stage", 0).message.startswith("还不对。提示：对每个阶段建一本账")
    # ZeRO-1: the model states alone (about 38 GiB) fit 40 GiB; activations and the reserve do not.
    assert check("q1.min_zero_stage", 1).message.startswith("还不对。提示：在这个阶段只有模型状态")


def test_wrong_type_is_a_message() -> None:
    feedback = check("q1.min_zero_stage", "two")
    assert feedback.status == "invalid"
    assert feedback.message == ("Cannot check. answer = 'two': must be an integer (int), not str.")


# ---------------------------------------------------------------------------
# numbers quoted in the instructor guides and in the lesson's prose
# ---------------------------------------------------------------------------


def _quoted_numbers() -> dict[str, str]:
    """Number strings the guides quote, each computed here with coursekit."""
    shape = MODEL_SHAPES["megatron-7.5b"]
    seed_fits = build_resource_ledger(13.0, 4.0, 2.0, 24.0)
    seed_short = build_resource_ledger(22.0, 5.0, 2.0, 24.0)
    figure_1 = [training_state_memory(7.5e9, dp=64, zero_stage=s) for s in range(4)]
    acts = {
        mode: activation_memory(
            seq_len=2048, micro_batch=1, hidden=shape.hidden, heads=shape.heads, layers=shape.layers, recompute=mode
        )
        / GIB_BYTES
        for mode in ("none", "selective", "full")
    }
    on_80 = [ledger_for_stage(s, 80.0) for s in range(4)]
    on_40 = [ledger_for_stage(s, 40.0) for s in range(4)]
    zero3 = training_state_memory(shape.num_params, dp=8, zero_stage=3)
    return {
        "seed fits required": f"{seed_fits.required_gib:.1f} GiB",
        "seed fits headroom": f"{seed_fits.headroom_gib:.1f} GiB headroom"
        + "|"
        + f"余量 {seed_fits.headroom_gib:.1f} GiB",
        "seed short required": f"{seed_short.required_gib:.1f} GiB",
        "seed short shortfall": f"{seed_short.shortfall_gib:.1f} GiB",
        "figure 1": "|".join(sep.join(f"{m.total_gb:.3f}" for m in figure_1[:2]) for sep in (", ", "、")),
        "figure 1 stage 2": f"{figure_1[2].total_gb:.3f}",
        "figure 1 stage 3": f"{figure_1[3].total_gb:.3f} GB",
        "stage 0 GiB": f"{figure_1[0].total_gib:.3f} GiB",  # as section 3.2 prints it
        "7.5B params": f"{shape.num_params / 1e9:.2f}B",
        "act none": f"{acts['none']:.2f} GiB",
        "act selective": f"{acts['selective']:.2f} GiB",
        "act full": f"{acts['full']:.2f} GiB",
        "ZeRO-0 on 80": f"{on_80[0].required_gib:.2f} GiB",
        "ZeRO-1 on 80": f"{on_80[1].required_gib:.2f} GiB",
        "ZeRO-2 on 80": f"{on_80[2].required_gib:.2f}",
        "ZeRO-3 on 80": f"{on_80[3].required_gib:.2f} GiB",
        "ZeRO-2 on 40": f"{on_40[2].required_gib:.2f} GiB",
        "q1.zero2_gib": f"{get_exercise('q1.zero2_gib').expected_value():.2f} GiB",
        "q1.headroom_gib": f"{get_exercise('q1.headroom_gib').expected_value():.2f} GiB",
        "ZeRO-3 states": f"{zero3.total_gib:.2f} GiB",
    }


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("what", sorted(_quoted_numbers()))
def test_guide_quotes_coursekit(guide: Path, what: str) -> None:
    text = guide.read_text(encoding="utf-8")
    options = _quoted_numbers()[what].split("|")
    assert any(option in text for option in options), f"{guide.name} should quote {what} as one of {options}"


def test_guide_answers_the_min_stage() -> None:
    stage = get_exercise("q1.min_zero_stage").expected_value()
    for guide in GUIDES:
        assert re.search(rf"\| 1\.2 `q1\.min_zero_stage` \| {stage} \|", guide.read_text(encoding="utf-8"))


def test_lesson_prose_quotes_coursekit() -> None:
    """The self-check answers round the ZeRO-3 states and the selective activations to one decimal."""
    text = LESSON_SOURCE.read_text(encoding="utf-8")
    shape = MODEL_SHAPES["megatron-7.5b"]
    states = training_state_memory(shape.num_params, dp=8, zero_stage=3).total_gib
    acts = (
        activation_memory(
            seq_len=2048,
            micro_batch=1,
            hidden=shape.hidden,
            heads=shape.heads,
            layers=shape.layers,
            recompute="selective",
        )
        / GIB_BYTES
    )
    for number in (f"{states:.1f} GiB", f"{acts:.1f} GiB"):
        assert text.count(number) >= 2, number  # once in Chinese, once in English
