"""Every numeric exercise declares a likely slip; lessons 1 and 8-10 name theirs.

The wrong answers are worked by hand from the prompts (the arithmetic in the comments), or, for lesson 8's
recorded run, read straight from the shipped JSON with plain Python; lesson 9's step ratio comes from the
planner's public ``what_if``, not from the exercise under test.
"""

from __future__ import annotations

import json
from importlib import resources
from statistics import fmean
from typing import Any

import pytest

import coursekit
from coursekit.exercises import PREFIX_MODULES, Exercise, _slip_of, check, exercises, get_exercise

# -- every numeric exercise declares at least one slip ----------------------------------------------------------


def _is_numeric(exercise: Exercise) -> bool:
    if exercise.kind == "number":
        return True
    if exercise.kind != "exact":
        return False
    expected = exercise.expected_value()
    return isinstance(expected, (int, float)) and not isinstance(expected, bool)


def _course_exercises() -> list[Exercise]:
    prefixes = set(PREFIX_MODULES)
    return [ex for ex in exercises() if ex.prefix in prefixes]


def _course_numeric() -> list[Exercise]:
    return [ex for ex in _course_exercises() if _is_numeric(ex)]


def test_the_course_has_numeric_exercises_in_every_lesson_module() -> None:
    lessons = {ex.lesson for ex in _course_numeric()}
    assert {0, 1, 2, 7, 8, 9, 10} <= lessons


@pytest.mark.parametrize("exercise", _course_numeric(), ids=lambda ex: ex.id)
def test_every_numeric_exercise_declares_a_slip(exercise: Exercise) -> None:
    assert exercise.slips, f"{exercise.id} declares no likely slip"


@pytest.mark.parametrize(
    "pair",
    [(ex, slip) for ex in _course_numeric() for slip in ex.slips if slip.alternative is not None],
    ids=lambda pair: f"{pair[0].id}-{pair[1].code}",
)
def test_no_declared_slip_is_judged_right(pair: Any) -> None:
    # A slip whose wrong answer the checker would accept could never be named: it must differ from the answer.
    exercise, slip = pair
    wrong = slip.alternative()
    assert not check(exercise.id, wrong).correct, (exercise.id, slip.code, wrong)


# -- lesson 8: the recording, read with plain Python ------------------------------------------------------------


def _recording() -> dict[str, Any]:
    text = resources.files("coursekit.lab").joinpath("recorded").joinpath("lesson8.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _mean(item: dict[str, Any], name: str) -> float:
    """Mean over ranks of each rank's mean over its steps."""
    return fmean(fmean(step[name] for step in rank) for rank in item["steps"])


def _timeline(strategy: str, scenario: str) -> dict[str, Any]:
    (item,) = [
        r
        for r in _recording()["timeline"]["results"]
        if r["strategy"] == strategy and r["scenario"]["name"] == scenario
    ]
    return item


def _lesson8_wrong() -> list[tuple[str, Any, str]]:
    data = _recording()
    step_1, step_4 = (_mean(data["scaling"][p], "step_s") for p in ("1", "4"))
    base = _timeline("ddp", "baseline")
    exposed, hidden = _mean(base, "exposed_communication_s"), _mean(base, "hidden_communication_s")
    step = _mean(base, "step_s")
    waits = [fmean(s["wait_slower_rank_s"] for s in rank) for rank in _timeline("tp", "slow_rank")["steps"]]
    return [
        # E(4) = step(1) / step(4): as a percentage, upside down, or divided by P again (strong scaling).
        ("lab.efficiency_4", 100 * step_1 / step_4, "percent_vs_fraction"),
        ("lab.efficiency_4", step_4 / step_1, "inverted"),
        ("lab.efficiency_4", step_1 / (4 * step_4), "strong_scaling"),
        # E(2) = step(1) / step(2): the table's other row
        ("lab.efficiency_4", step_1 / _mean(data["scaling"]["2"], "step_s"), "other_p"),
        # exposed / (exposed + hidden): the hidden share instead, a share of the step, or a percentage.
        ("lab.exposed_share", hidden / (exposed + hidden), "hidden_share"),
        ("lab.exposed_share", exposed / step, "share_of_step"),
        ("lab.exposed_share", 100 * exposed / (exposed + hidden), "percent_vs_fraction"),
        # FSDP2 over 4 ranks: each stores 2 rows of (64 + 1) of the 5-row head against (5 * 65) / 4 elements:
        # 48.75 elements; 4 ranks together pad 8 - 5 = 3 rows of 65 elements = 780 bytes.
        ("lab.fsdp_padding_bytes", 2 * 65 - 5 * 65 / 4, "elements_not_bytes"),
        ("lab.fsdp_padding_bytes", 3 * 65 * 4, "all_ranks"),
        # TP over 4 ranks: 1221 replicated parameters (2 blocks x (2 LayerNorms of 128 + 2 biases of 64) + 128 + 325),
        # 3/4 of them extra: 915.75 elements; all of them, 4884 bytes.
        ("lab.tp_replicated_bytes", 1221 * 3 / 4, "elements_not_bytes"),
        ("lab.tp_replicated_bytes", 1221 * 4, "whole_copy"),
        # The TP rank that waits most is the fast one.
        ("lab.slow_rank", waits.index(max(waits)), "waits_most"),
        # one rank per process, numbered from 0: the recorded TP run has len(waits) of them
        ("lab.slow_rank", len(waits), "no_such_rank"),
    ]


# -- lesson 9 ---------------------------------------------------------------------------------------------------


def _llama70_params(experts: int, routed: int) -> float:
    """Llama 3 70B (Llama 3 paper, Table 3): 80 layers, h 8192, FFN 28672, 64 heads, 8 KV heads of 128, vocabulary
    128256, untied embeddings, RMSNorm without biases. ``routed`` of ``experts`` SwiGLU MLPs per token, with an
    h x experts router when experts > 1."""
    h, ffn, layers, vocab, kv = 8192, 28672, 80, 128256, 8 * 128
    attention = 2 * h * h + 2 * h * kv
    mlp = 3 * h * ffn
    router = h * experts if experts > 1 else 0
    return layers * (attention + routed * mlp + router + 2 * h) + 2 * vocab * h + h


def _slow_link_ratio() -> float:
    from coursekit.planner import WorkloadSpec, what_if

    runs = [what_if("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024), link_slowdown=s) for s in (1, 5)]
    fast, slow = (run.accepted(1)[0].step_s for run in runs)
    assert fast is not None and slow is not None
    return slow / fast


def _memory_remaining() -> int:
    from coursekit.planner import WorkloadSpec, plan
    from coursekit.presets import CLUSTERS, MODELS

    result = plan(MODELS["llama3-8b"], CLUSTERS["pcie-24g-8"], WorkloadSpec(global_batch=64, seq_len=4096))
    return next(step.remaining for step in result.funnel if step.code == "memory")


def _lesson9_wrong() -> list[tuple[str, Any, str]]:
    ratio = _slow_link_ratio()
    return [
        # All 16 experts (about 916B) instead of the 4 routed (about 240B); or the dense model (about 70.6B).
        ("plan.moe_active", _llama70_params(16, 16) / 1e9, "total_not_active"),
        ("plan.moe_active", _llama70_params(1, 1) / 1e9, "dense"),
        # The right count written as parameters (about 2.397e11), not in billions as asked.
        ("plan.moe_active", _llama70_params(16, 4), "count_vs_billions"),
        # The step ratio slow / fast upside down, as growth, or the link's own factor 6.
        ("plan.slow_link", 1 / ratio, "inverted"),
        ("plan.slow_link", ratio - 1, "growth_not_factor"),
        ("plan.slow_link", 5, "link_factor"),  # the question cuts the link to 1/5
        ("plan.slow_link", round((ratio - 1) * 100, 2), "percent_growth"),  # the growth in percent, about 2.9
        ("plan.memory_removed", _memory_remaining(), "remaining"),
        ("plan.memory_removed", 1800, "rounded_count"),  # the exact count (1772) rounded to two digits
        ("plan.memory_removed", -1772, "sign"),  # the funnel chart's "-1,772" copied with its minus sign
    ]


def test_hand_worked_moe_counts_are_the_presets() -> None:
    # The dense count is the preset's (Llama 3 paper: 70.6B); the MoE count is the exercise's expected answer.
    assert _llama70_params(1, 1) == pytest.approx(70.553706496e9, rel=1e-9)
    assert _llama70_params(16, 4) / 1e9 == pytest.approx(get_exercise("plan.moe_active").expected_value(), rel=1e-9)


# -- lesson 10 --------------------------------------------------------------------------------------------------

#: K and V per token of Llama 3 70B: 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 bytes = 320 KiB.
KV_BYTES_PER_TOKEN = 2 * 80 * 8 * 128 * 2


def _max_requests_by_hand(tokens: int, kv_split: int, workspace: bool = True) -> int:
    """Free memory of one H100 (80 GiB) at TP = 8 over one request's KV cache on it.

    Weights: 70,553,706,496 parameters x 2 bytes / 8 ranks; workspace and reserve read from the ledger's own
    fields (they are not what the slip is about).
    """
    from coursekit.presets import CLUSTERS, MODELS
    from coursekit.serving import serving_memory_ledger

    ledger = serving_memory_ledger(
        MODELS["llama3-70b"], CLUSTERS["h100-8"], tp=8, concurrency=1, context_tokens=8704, prefill_chunk_tokens=8192
    )
    weights_gib = 70_553_706_496 * 2 / 8 / 2**30
    assert ledger.weights_gib == pytest.approx(weights_gib, rel=1e-9)
    free_gib = 80 - weights_gib - (ledger.workspace_gib if workspace else 0.0) - ledger.reserve_gib
    return int(free_gib // (tokens * KV_BYTES_PER_TOKEN / kv_split / 2**30))


def _section3_capacity() -> int:
    """The capacity of the ledger lesson 10's section 3 builds, read from the lesson's own code: its cell calls
    ``serving_memory_ledger(LLAMA70, H100, tp=8, concurrency=64, context_tokens=2304, prefill_chunk_tokens=2048)``."""
    import re
    from pathlib import Path

    from coursekit.presets import CLUSTERS, MODELS
    from coursekit.serving import serving_memory_ledger

    source = (Path(__file__).resolve().parents[1] / "notebooks" / "src" / "10_serving.py").read_text()
    # the call may span lines (lesson code is kept to 80 columns): any whitespace between its arguments
    call = re.search(r"serving_memory_ledger\(\s*LLAMA70,\s*H100,\s*tp=8,\s*concurrency=64,\s*"
                     r"context_tokens=(\d+),\s*prefill_chunk_tokens=(\d+),?\s*\)", source)  # fmt: skip
    assert call is not None
    context, chunk = int(call.group(1)), int(call.group(2))
    return serving_memory_ledger(
        MODELS["llama3-70b"],
        CLUSTERS["h100-8"],
        tp=8,
        concurrency=1,
        context_tokens=context,
        prefill_chunk_tokens=chunk,
    ).max_concurrency


def _lesson10_wrong() -> list[tuple[str, Any, str]]:
    return [
        ("serve.kv_kib_per_token", KV_BYTES_PER_TOKEN / 2 / 1024, "k_or_v_only"),  # 160: K or V only
        ("serve.kv_kib_per_token", KV_BYTES_PER_TOKEN / 1000, "kb_not_kib"),  # 327.68 kB
        ("serve.kv_kib_per_token", 2 * 80 * 64 * 128 * 2 / 1024, "query_heads"),  # 2560: all 64 query heads
        ("serve.kv_kib_per_token", KV_BYTES_PER_TOKEN, "binary_unit"),  # 327,680: bytes, not KiB
        ("serve.max_requests", _max_requests_by_hand(8192, 8), "prompt_only"),  # 195: output tokens left out
        ("serve.max_requests", _max_requests_by_hand(8192 + 512, 1), "kv_not_split"),  # 23: KV not split by TP
        ("serve.max_requests", 180, "rounded_count"),  # the exact count rounded to two digits
        ("serve.max_requests", _section3_capacity(), "section3_ledger"),  # 699: lesson 10 section 3's ledger
        # 185: free memory over per-request KV with the activation workspace left out
        ("serve.max_requests", _max_requests_by_hand(8192 + 512, 8, workspace=False), "no_workspace"),
        # 1472: one GPU's 184 requests times the 8 GPUs the KV cache is already split over
        ("serve.max_requests", 8 * _max_requests_by_hand(8192 + 512, 8), "times_gpus"),
        ("serve.best_tp", 8, "most_tp"),
        ("serve.littles_law", 20 * 3200, "seconds_vs_ms"),  # 3.2 s taken as 3200
        ("serve.littles_law", 20 / 3.2, "divided"),  # 6.25
    ]


def test_max_requests_by_hand_is_the_exercise_answer() -> None:
    # (8192 + 512) tokens x 40 KiB per GPU per request: about 184 requests in the free memory.
    assert _max_requests_by_hand(8192 + 512, 8) == get_exercise("serve.max_requests").expected_value()
    # leaving the workspace out gives one request more: a distinct answer, which the exercise names as a slip
    assert _max_requests_by_hand(8192 + 512, 8, workspace=False) == 185


# -- lesson 1 ---------------------------------------------------------------------------------------------------

LESSON1_WRONG: list[tuple[str, Any, str]] = [
    # ZeRO-1's model states, 2 + 2 + 12/8 = 5.5 bytes per parameter of the 7.5B shape, about 38 GiB, fit 40 GiB
    # alone; with 9.6 GiB of activations and the 2 GiB reserve they do not (ZeRO-2 is the answer).
    ("q1.min_zero_stage", 1, "states_only"),
    # ZeRO has stages 0 to 3 (the ZeRO paper's P_os, P_os+g, P_os+g+p and plain DP)
    ("q1.min_zero_stage", 4, "no_such_stage"),
]


def _all_wrong() -> list[tuple[str, Any, str]]:
    return [*LESSON1_WRONG, *_lesson8_wrong(), *_lesson9_wrong(), *_lesson10_wrong()]


@pytest.mark.parametrize(("exercise_id", "answer", "slip"), _all_wrong(), ids=lambda v: str(v)[:28])
def test_hand_worked_wrong_answers_get_the_named_slip(exercise_id: str, answer: Any, slip: str) -> None:
    exercise = get_exercise(exercise_id)
    found = _slip_of(exercise, answer, exercise.expected_value())
    assert found is not None and found.code == slip, (exercise_id, answer, found)
    feedback = check(exercise_id, answer)
    assert (feedback.status, feedback.slip) == ("incorrect", slip), feedback.message


def test_every_new_slip_is_exercised_here() -> None:
    named = {(eid, slip) for eid, _, slip in _all_wrong()}
    ids = {eid for eid, _, _ in _all_wrong()}
    declared = {(ex.id, slip.code) for ex in _course_exercises() if ex.id in ids for slip in ex.slips}
    assert declared == named


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_slip_hints_name_the_mistake_not_the_answer(lang: str) -> None:
    coursekit.set_language(lang)
    for exercise_id, answer, _ in _all_wrong():
        expected = get_exercise(exercise_id).expected_value()
        message = check(exercise_id, answer).message
        if isinstance(expected, float):
            shown = {f"{expected:.2f}", f"{expected:.3g}"}
        else:  # an integer answer: the forms that would give it away (the prompt's own numbers may appear)
            shown = {f"ZeRO-{expected}", f"= {expected}", f"rank {expected}", f"{expected} 个", f"{expected} requests"}
        assert not any(text in message for text in shown), (exercise_id, message)
        assert message.startswith("还不对。" if lang == "zh" else "Not yet. ")
