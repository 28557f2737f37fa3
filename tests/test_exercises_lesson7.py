"""Lesson 7 exercises (eff.*): expected answers against hand-worked values; feedback; the instructor guide."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import coursekit
from coursekit.exercises import check, exercises, get_exercise

ROOT = Path(__file__).resolve().parents[1]
IDS = ("eff.matmul_intensity", "eff.h200_ridge", "eff.megatron_mfu", "eff.best_change", "eff.decode_share")


def _llama70_layer_intensity(tokens: int, tp: int) -> float:
    """Llama 3 70B (h 8192, FFN 28672, 8 KV heads × 128; Llama 3 paper, Table 3), one TP rank, bf16.

    Megatron-LM's split: QKV and SwiGLU up+gate column-parallel, output and down row-parallel.
    """
    h, ffn, kv = 8192, 28672, 1024
    shapes = [(h, (h + 2 * kv) / tp), (h / tp, h), (h, 2 * ffn / tp), (ffn / tp, h)]
    flops = sum(2 * tokens * k * n for k, n in shapes)
    return flops / sum(2 * (tokens * k + k * n + tokens * n) for k, n in shapes)


def _megatron_mfu_by_hand() -> float:
    """Narayanan et al. 2021, Table 1 (145.6B: l = 80, h = 12288; s = 2048, V = 51200) and eq. (3).

    Eq. (3), with full recomputation, per step: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)).
    Without recomputation (model FLOPs, 6N + 12·l·h·s per token with N = 12·l·h² + V·h):
    72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)). The reported 148 TFLOP/s use eq. (3); A100 peak 312 TFLOP/s.
    """
    layers, h, s, v = 80, 12288, 2048, 51200
    hardware = 96 * (1 + s / (6 * h) + v / (16 * layers * h))
    model = 72 * (1 + s / (6 * h) + v / (12 * layers * h))
    return 148e12 * model / hardware / 312e12


INDEPENDENT: dict[str, Any] = {
    # m·k·n / (m·k + k·n + m·n) = 2048·8192 / (2048 + 8192 + 2048) = 16777216 / 12288
    "eff.matmul_intensity": 1365.3333333333333,
    # H200 SXM datasheet: 989 TFLOP/s dense bf16 over 4.8 TB/s
    "eff.h200_ridge": 989 / 4.8,
    "eff.megatron_mfu": _megatron_mfu_by_hand(),
    # twice the tokens (8192) at TP 8, vs 4096 tokens at TP 16, vs 2048 tokens at TP 8
    "eff.best_change": max(
        {
            "tp16": _llama70_layer_intensity(4096, 16),
            "cp2": _llama70_layer_intensity(2048, 8),
            "mb2": _llama70_layer_intensity(8192, 8),
        }.items(),
        key=lambda item: item[1],
    )[0],
    # 16 tokens per matmul: left of the ridge, attainable = intensity × bandwidth
    "eff.decode_share": _llama70_layer_intensity(16, 8) * 3.35e12 / 989e12,
}

WRONG: dict[str, Any] = {
    "eff.matmul_intensity": 4096.0,
    "eff.h200_ridge": 989 / 4.8 / 3,
    "eff.megatron_mfu": 148 / 312,
    "eff.best_change": "tp16",
    "eff.decode_share": 1.0,
}


def test_every_exercise_of_lesson_7_is_registered() -> None:
    assert tuple(ex.id for ex in exercises(7)) == tuple(sorted(IDS))


@pytest.mark.parametrize("exercise_id", IDS)
def test_expected_answer_matches_a_hand_worked_value(exercise_id: str) -> None:
    expected = get_exercise(exercise_id).expected_value()
    independent = INDEPENDENT[exercise_id]
    if isinstance(independent, str):
        assert expected == independent
    else:
        assert expected == pytest.approx(independent, rel=1e-9)


def test_hand_worked_values_are_plausible() -> None:
    # Full recomputation adds about a third: MFU is about 3/4 of HFU; decode is far below the ridge.
    assert math.isclose(INDEPENDENT["eff.megatron_mfu"] / (148 / 312), 0.75, rel_tol=0.01)
    assert INDEPENDENT["eff.best_change"] == "mb2"
    assert 0.05 < INDEPENDENT["eff.decode_share"] < 0.06


@pytest.mark.parametrize("exercise_id", IDS)
def test_right_answer_is_correct(exercise_id: str) -> None:
    feedback = check(exercise_id, get_exercise(exercise_id).expected_value())
    assert feedback.correct, feedback.message


def test_rounded_answers_are_accepted() -> None:
    assert check("eff.h200_ridge", 206).correct
    assert check("eff.megatron_mfu", 0.356).correct
    assert check("eff.decode_share", 0.054).correct
    assert check("eff.best_change", " MB2 ").correct


@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answer_gets_a_hint_without_the_answer(exercise_id: str) -> None:
    feedback = check(exercise_id, WRONG[exercise_id])
    assert feedback.status == "incorrect"
    expected = get_exercise(exercise_id).expected_value()
    shown = [f"{expected:.3f}", f"{expected:.1f}"] if isinstance(expected, float) else [repr(expected)]
    assert not any(text in feedback.message for text in shown)
    assert feedback.message.startswith("Not yet. Hint: ")


@pytest.mark.parametrize("exercise_id", IDS)
def test_unanswered(exercise_id: str) -> None:
    assert check(exercise_id, ...).status == "unanswered"


def test_wrong_kind_of_answer_is_explained_not_raised() -> None:
    assert check("eff.h200_ridge", "206").status == "invalid"
    assert check("eff.best_change", "tp32").status == "invalid"


def test_feedback_in_chinese() -> None:
    coursekit.set_language("zh")
    assert check("eff.h200_ridge", 100).message.startswith("还不对。提示：")
    assert check("eff.h200_ridge", 206.0).message.startswith("正确。989e12 / 4.8e12 = 206.0")


@pytest.mark.parametrize(
    ("exercise_id", "answer", "slip"),
    [
        ("eff.h200_ridge", 989 / 3.35, "h100_figures"),  # H100's bandwidth from the lesson's table
        # 2·m·k·n FLOPs over the elements (not bytes) of the three matrices
        ("eff.matmul_intensity", 2 * 2048 * 8192 * 8192 / (2048 * 8192 + 8192**2 + 2048 * 8192), "elements_not_bytes"),
        ("eff.matmul_intensity", 2048 * 8192 / 12288 / 2, "multiply_add"),
        ("eff.megatron_mfu", 100 * _megatron_mfu_by_hand(), "percent_vs_fraction"),
        ("eff.megatron_mfu", 148 / 312, "hfu_for_mfu"),
        ("eff.decode_share", 100 * INDEPENDENT["eff.decode_share"], "percent_vs_fraction"),
    ],
)
def test_declared_slips_are_named(exercise_id: str, answer: float, slip: str) -> None:
    from coursekit.exercises import _slip_of

    exercise = get_exercise(exercise_id)
    found = _slip_of(exercise, answer, exercise.expected_value())
    assert found is not None and found.code == slip
    assert not check(exercise_id, answer).correct


# --------------------------------------------------------------------------- instructor guide


def _guide(lang: str) -> str:
    return (ROOT / "docs" / "instructor" / lang / "07_compute_efficiency.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_instructor_guide_quotes_every_answer(lang: str) -> None:
    guide = _guide(lang)
    for exercise_id in IDS:
        expected = get_exercise(exercise_id).expected_value()
        shown = repr(expected) if isinstance(expected, str) else f"{expected:.4g}"
        assert f"`{exercise_id}`" in guide
        assert f"→ `{shown}`" in guide, (exercise_id, shown)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_instructor_guide_numbers_are_coursekits(lang: str) -> None:
    from coursekit import roofline as rl
    from coursekit.hardware import (
        A100_80GB_HBM_BYTES_PER_S,
        A100_BF16_DENSE_FLOPS,
        H100_BF16_DENSE_FLOPS,
        H100_HBM_BYTES_PER_S,
        TPU_V4_BF16_FLOPS,
    )
    from coursekit.presets import MODELS

    guide = _guide(lang)
    percent = "%" if lang == "zh" else " %"
    ridges = (
        rl.ridge_point_flop_per_byte(A100_BF16_DENSE_FLOPS, A100_80GB_HBM_BYTES_PER_S),
        rl.ridge_point_flop_per_byte(H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S),
    )
    assert all(f"**{r:.0f}**" in guide for r in ridges)
    assert f"**{rl.matmul_intensity_flop_per_byte(16, 8192, 8192):.1f}**" in guide
    llama = MODELS["llama3-70b"]
    for tp, cp in ((8, 1), (32, 1), (8, 8)):
        intensity = rl.layout_matmul_intensity(llama, tp=tp, micro_batch=1, seq_len=4096, cp=cp)
        assert f"**{intensity:.0f}**" in guide
    n, layers, hidden = llama.num_params, llama.layers, llama.hidden
    for seq_len in (8192, 131072):
        share = rl.attention_flops_per_token(layers, hidden, seq_len) / rl.model_flops_per_token(
            n, layers, hidden, seq_len
        )
        assert f"**{100 * share:.0f}{percent}**" in guide
    model = rl.model_flops_per_token(n, layers, hidden, 8192)
    for recompute in ("full", "selective"):
        ratio = rl.hardware_flops_per_token(n, layers, hidden, 8192, recompute) / model
        assert f"**{ratio:.3f}" in guide
    palm = rl.mfu(rl.model_flops_per_token(540.35e9, 118, 48 * 256, 2048), 238.3e3, 6144, TPU_V4_BF16_FLOPS)
    assert f"**{100 * palm:.1f}{percent}**" in guide
    decode = rl.layout_matmul_intensity(llama, tp=8, micro_batch=8, seq_len=1)
    share8 = rl.roofline_flops(decode, H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S) / H100_BF16_DENSE_FLOPS
    assert f"**{100 * share8:.1f}{percent}**" in guide
    for batch in (1, 1024):  # a decode step at TP = 8: 2·N/8 FLOPs per token, N/8 bf16 weights read once
        step_s = rl.roofline_time_s(2 * n / 8 * batch, 2 * n / 8, H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S)
        assert f"**{1e3 * step_s:.1f} ms**" in guide
