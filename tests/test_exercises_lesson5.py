"""coursekit.exercises.lesson5 (S18 selection matrix) and the numbers the lesson-5 instructor guides quote."""

from __future__ import annotations

from pathlib import Path

import pytest

import coursekit
from coursekit.capacity import activation_memory, build_resource_ledger, training_state_memory
from coursekit.communication import tp_traffic, traffic_time
from coursekit.exercises import check, exercises, get_exercise
from coursekit.exercises.lesson5 import (
    BUBBLE_MICROBATCHES,
    BUBBLE_STAGES,
    EFFICIENCY_DEVICES,
    EFFICIENCY_SINGLE_DEVICE,
    EFFICIENCY_THROUGHPUT,
    MAX_DP_GLOBAL_BATCH,
    MAX_DP_MICRO_BATCH,
)
from coursekit.gates import check_tp_degree
from coursekit.hardware import link_preset
from coursekit.matrix import (
    CASE_FITS_ONE_DEVICE,
    CASE_LAYER_EXCEEDS_DEVICE,
    CASE_STATE_EXCEEDS_DEVICE,
    evaluate_paper_case,
)
from coursekit.pipeline import bubble_fraction, bubble_overhead, simulate_schedule
from coursekit.scaling import diagnose_efficiency, load_imbalance_s, scaling_curve, step_timeline
from coursekit.units import bytes_to_gib, gib_to_bytes
from coursekit.widgets.pipeline import pipeline_view
from coursekit.widgets.scaling import scaling_view

ROOT = Path(__file__).resolve().parents[1]
GUIDES = [ROOT / "docs/instructor/en/05_selection_matrix.md", ROOT / "docs/instructor/zh/05_selection_matrix.md"]

IDS = ["s18.bubble_p4_m16", "s18.case2_dp_verdict", "s18.topology_changed", "s18.max_dp", "s18.efficiency"]


def test_lesson5_registers_its_exercises() -> None:
    assert sorted(ex.id for ex in exercises(5)) == sorted(IDS)


# -- expected values, each from an independent coursekit call ---------------------------------------


def test_bubble_is_the_seed_formula() -> None:
    p, m = BUBBLE_STAGES, BUBBLE_MICROBATCHES
    assert (p, m) == (4, 16)  # seed 001, step 4
    expected = get_exercise("s18.bubble_p4_m16").expected_value()
    assert expected == (p - 1) / (m + p - 1)
    assert expected == simulate_schedule(p, m).idle_fraction


def test_case2_dp_is_hard_excluded() -> None:
    verdict = evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE).verdict_of("DP")
    assert get_exercise("s18.case2_dp_verdict").expected_value() == verdict.verdict == "not_preferred"
    assert verdict.hard_excluded and verdict.codes == ("memory",)


def test_topology_changes_only_tp_in_case3() -> None:
    before = evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE).summary()
    after = evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE, "hierarchical").summary()
    changed = [s for s in before if before[s] != after[s]]
    assert get_exercise("s18.topology_changed").expected_value() == changed[0] == "TP" and len(changed) == 1


def test_max_dp_is_global_over_micro() -> None:
    assert get_exercise("s18.max_dp").expected_value() == MAX_DP_GLOBAL_BATCH // MAX_DP_MICRO_BATCH


def test_efficiency_is_the_seed_definition() -> None:
    expected = EFFICIENCY_THROUGHPUT / (EFFICIENCY_DEVICES * EFFICIENCY_SINGLE_DEVICE)
    assert get_exercise("s18.efficiency").expected_value() == pytest.approx(expected)


# -- feedback: right, wrong (hint without the answer), unanswered, wrong type --------------------------


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("s18.bubble_p4_m16", 3 / 19),
        ("s18.bubble_p4_m16", 0.158),
        ("s18.case2_dp_verdict", "not_preferred"),
        ("s18.case2_dp_verdict", "Not preferred"),
        ("s18.case2_dp_verdict", "不优先"),
        ("s18.topology_changed", "TP"),
        ("s18.topology_changed", " tp "),
        ("s18.max_dp", 128),
        ("s18.efficiency", 0.85),
    ],
)
def test_right_answers(exercise_id: str, answer: object) -> None:
    assert check(exercise_id, answer).status == "correct"


@pytest.mark.parametrize(
    ("exercise_id", "answer", "hint_part"),
    [
        (
            "s18.bubble_p4_m16",
            0.1875,
            "dividing by m alone gives Megatron's overhead",
        ),  # Megatron's overhead (p-1)/m instead of the fraction
        ("s18.bubble_p4_m16", 15.8, "not a percentage"),
        ("s18.case2_dp_verdict", "feasible", "fit gate"),
        ("s18.case2_dp_verdict", "需更多信息", "fit gate"),
        ("s18.topology_changed", "FSDP", "needs more information"),
        ("s18.max_dp", 512, "gradient accumulation"),
        ("s18.efficiency", 27.2, "not a percentage"),
    ],
)
def test_wrong_answers_get_a_hint_not_the_answer(exercise_id: str, answer: object, hint_part: str) -> None:
    feedback = check(exercise_id, answer)
    assert feedback.status == "incorrect"
    assert hint_part in feedback.message
    expected = get_exercise(exercise_id).expected_value()
    for revealing in {str(expected), f"{expected:.3f}" if isinstance(expected, float) else str(expected)}:
        assert revealing not in feedback.message


@pytest.mark.parametrize("exercise_id", IDS)
def test_unanswered(exercise_id: str) -> None:
    feedback = check(exercise_id, ...)
    assert feedback.status == "unanswered"
    assert feedback.message == f"Not answered: {exercise_id}. Replace ... with your answer and run the cell again."


@pytest.mark.parametrize(
    ("exercise_id", "answer", "message"),
    [
        (
            "s18.max_dp",
            128.0,
            "Cannot check: s18.max_dp. answer = 128.0: must be an integer (int), not float.",
        ),
        (
            "s18.case2_dp_verdict",
            "maybe",
            "Cannot check: s18.case2_dp_verdict. answer = 'maybe': must be one of 'feasible', "
            "'not_preferred', 'needs_info'.",
        ),
        (
            "s18.efficiency",
            "0.85",
            "Cannot check: s18.efficiency. answer = '0.85': must be a real number (int or float), not str.",
        ),
    ],
)
def test_wrong_type_is_a_message(exercise_id: str, answer: object, message: str) -> None:
    feedback = check(exercise_id, answer)
    assert feedback.status == "invalid" and feedback.message == message


def test_feedback_in_chinese() -> None:
    coursekit.set_language("zh")
    right = check("s18.max_dp", 128)
    assert right.message == (
        "正确：s18.max_dp。梯度累积为 1 时 dp = 512 / 4 = 128；再大就要么加大 global batch，要么把每个 rank 的 "
        "micro-batch 缩小。"
    )
    wrong = check("s18.topology_changed", "PP")
    assert (
        wrong.message
        == "还不对：s18.topology_changed。提示：哪个策略在没有拓扑信息时是“需更多信息”？它缺的正是链路信息。"
    )
    assert "TP" in check("s18.topology_changed", "TP").message


def test_why_quotes_computed_values() -> None:
    message = check("s18.bubble_p4_m16", 3 / 19).message
    assert f"{bubble_fraction(4, 16):.3f}" in message and f"{bubble_fraction(4, 4):.0%}" in message
    tp = evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE, "hierarchical").verdict_of("TP")
    assert f"TP = {tp.degree} fits inside a node" in check("s18.topology_changed", "TP").message


# -- the numbers the instructor guides quote ----------------------------------------------------------


def _guide_numbers() -> list[str]:
    """Every number the lesson-5 guides quote, formatted as they quote it, computed with coursekit."""
    case2, case3 = CASE_STATE_EXCEEDS_DEVICE, CASE_LAYER_EXCEEDS_DEVICE
    numbers: list[str] = []
    dp = build_resource_ledger(case2.training_state_gib, case2.activation_gib, case2.runtime_reserve_gib, 24.0)
    numbers.append(f"**{dp.required_gib:.1f} GiB**")
    params = gib_to_bytes(case2.training_state_gib) / 16
    shards = [training_state_memory(params, dp=p, zero_stage=3).total_gib for p in (1, 8, 32)]
    numbers.append(" / ".join(f"{s:.2f}" for s in shards) + " GiB")
    for shard in shards[1:]:
        per_rank = shard + case2.largest_layer_gib + case2.activation_gib + case2.runtime_reserve_gib
        numbers.append(f"**{per_rank:.2f} GiB**")
    numbers.append(f"**{evaluate_paper_case(case3, 'hierarchical').verdict_of('TP').memory_per_rank_gib:.1f} GiB**")
    numbers.append(f"**{evaluate_paper_case(case2, 'hierarchical').verdict_of('FSDP').memory_per_rank_gib:.1f} GiB**")
    for m in (4, 16):
        numbers += [f"**{bubble_fraction(4, m):.1%}**", f"**{bubble_overhead(4, m):.1%}**"]
    # E(P): three jobs, one value
    jobs = [
        step_timeline(0.40, 0.12, overlap_fraction=0.25),
        step_timeline(0.40, 0.12, overlap_fraction=1.0, input_wait_s=0.09),
        step_timeline(0.40, 0.12, overlap_fraction=1.0, load_imbalance_s=load_imbalance_s([0.40, 0.40, 0.40, 0.52])),
    ]
    values = {f"{diagnose_efficiency(t).compute_fraction:.2f}" for t in jobs}
    assert len(values) == 1
    numbers.append(f"**{values.pop()}**")
    # pipeline widget demo
    numbers.append(f"**{pipeline_view(4, 8).simulated_fraction:.1%}**")
    numbers.append(f"{pipeline_view(4, 8).schedule.makespan_s:.1f} s")
    numbers.append(f"**{pipeline_view(4, 2).simulated_fraction:.1%}**")
    numbers.append(str(simulate_schedule(4, 8, schedule="gpipe").peak_inflight_per_stage))
    numbers.append(str(simulate_schedule(4, 8).peak_inflight_per_stage))
    numbers.append(f"**{pipeline_view(4, 8, 'interleaved', 2).simulated_fraction:.1%}**")
    numbers.append(f"**{pipeline_view(4, 8, slow_stage=2, slow_factor=1.5).simulated_fraction:.1%}**")
    numbers.append(f"**{pipeline_view(4, 8, slow_stage=2, slow_factor=2.0).simulated_fraction:.1%}**")
    # scaling widget demo
    for overlap, bandwidth, compute in ((0.0, 50.0, 500.0), (0.5, 50.0, 500.0), (0.8, 50.0, 500.0),
                                        (0.0, 450.0, 500.0), (0.0, 50.0, 100.0)):  # fmt: skip
        numbers.append(f"**{scaling_view(overlap, bandwidth, 14.0, compute).last_efficiency:.2f}**")
    # exercises
    numbers += [
        f"`{get_exercise('s18.max_dp').expected_value()}`",
        f"**{get_exercise('s18.bubble_p4_m16').expected_value():.3f}**",
        f"**{get_exercise('s18.efficiency').expected_value():.3f}**",
    ]
    # misconception 1: GPT-3 Large
    state = training_state_memory(760e6)
    numbers += [f"**{state.params_gib:.2f} GiB**", f"**{state.total_gib:.2f} GiB**"]
    for seq_len in (2048, 8192):
        act = bytes_to_gib(activation_memory(seq_len=seq_len, micro_batch=1, hidden=1536, heads=16, layers=24))
        numbers.append(f"**{build_resource_ledger(state.total_gib, act, 2.0, 24.0).required_gib:.2f} GiB**")
    # misconception 2: TP communication per step
    times = []
    for tp in (2, 4, 8, 16):
        link = link_preset("intra_node" if check_tp_degree(tp, 32, 8) is None else "cross_node")
        entries = tp_traffic(seq_len=2048, micro_batch=1, hidden=4096, layers=32, tp=tp)
        times.append(traffic_time(entries, bandwidth_bytes_per_s=link.bandwidth_bytes_per_s, latency_s=link.latency_s))
    numbers.append(" → ".join(f"{t.total_s * 1e3:.1f}" for t in times[:3]) + " ms")
    numbers.append(f"**{times[3].total_s * 1e3:.1f} ms**")
    # misconception 3
    unbalanced = simulate_schedule(4, 8, stage_forward_s=[1.0, 1.0, 1.5, 1.0], stage_backward_s=[2.0, 2.0, 3.0, 2.0])
    numbers += [f"**{bubble_fraction(4, 8):.1%}**", f"**{unbalanced.idle_fraction:.1%}**"]
    # misconception 4
    last = scaling_curve(
        [1, 8, 64],
        single_device_step_s=1.0,
        gradient_bytes=14e9,
        bandwidth_bytes_per_s=link_preset("cross_node").bandwidth_bytes_per_s,
        overlap_fraction=0.5,
    ).points[-1]
    numbers += [f"**{last.speedup:.1f}×**", f"**{last.efficiency:.2f}**"]
    # systems connection: PEFT
    full = training_state_memory(7e9).total_gib
    peft = training_state_memory(7e9, param_bytes=2, grad_bytes=0, optimizer_bytes=0).total_gib
    peft += training_state_memory(40e6).total_gib
    numbers += [f"**{full:.1f} GiB**", f"**{peft:.1f} GiB**"]
    return numbers


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.parent.name)
def test_guide_quotes_coursekit_numbers(guide: Path) -> None:
    text = guide.read_text(encoding="utf-8")
    missing = [number for number in _guide_numbers() if number not in text]
    assert not missing, f"{guide.name} does not quote: {missing}"


def test_case1_unneeded_as_the_guides_say() -> None:
    codes = [v.codes for v in evaluate_paper_case(CASE_FITS_ONE_DEVICE).verdicts[1:]]
    assert codes == [("unneeded",), ("unneeded",), ("unneeded",)]
