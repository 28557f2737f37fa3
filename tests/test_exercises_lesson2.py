"""Lesson 2 exercises (q2.*): right, wrong with a hint, unanswered; the numbers the guide and the lesson quote."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import coursekit
from coursekit.communication import (
    bus_bandwidth_factor,
    collective_cost,
    communication_ledger,
    crossover_payload_mib,
    strategy_traffic,
    traffic_time,
)
from coursekit.exercises import check, exercises, get_exercise
from coursekit.exercises.lesson2 import ledgers
from coursekit.hardware import LINK_PRESETS, NVLINK4_H100_BYTES_PER_S
from coursekit.shapes import MODEL_SHAPES
from coursekit.units import GB_BYTES, GIB_BYTES, MIB_BYTES, MS_PER_S, US_PER_S

ROOT = Path(__file__).resolve().parents[1]
IDS = ("q2.crossover_mib", "q2.latency_bound", "q2.allreduce_ms", "q2.tp_calls")
GUIDES = [ROOT / "docs" / "instructor" / lang / "02_communication.md" for lang in ("zh", "en")]
LESSON_SOURCE = ROOT / "notebooks" / "src" / "02_communication.py"

# Answers derived independently of the exercise module (the formulas stated in the prompts).
INDEPENDENT: dict[str, Any] = {
    # payload* = alpha x B = 10e-6 s x 25 GiB/s, in MiB
    "q2.crossover_mib": 10e-6 * 25 * GIB_BYTES / MIB_BYTES,
    # per call: B sends 64 KiB in 64 * 2**10 / (100 * 2**30) s = 0.61 us < 5 us; A sends 256 MiB in 2.5 ms
    "q2.latency_bound": "B",
    # 2(n-1)/n * S/B + 2(n-1) * alpha (NVIDIA/nccl-tests PERFORMANCE.md; ring all-reduce)
    "q2.allreduce_ms": (2 * 7 / 8 * 256 * MIB_BYTES / (100 * GIB_BYTES) + 14 * 5e-6) * 1e3,
    # Megatron-LM §3: 2 all-reduces per layer in forward and 2 in backward
    "q2.tp_calls": 4 * 36 * 8,
}

WRONG: dict[str, Any] = {
    "q2.crossover_mib": 250.0,
    "q2.latency_bound": "A",
    "q2.allreduce_ms": 2.5,
    "q2.tp_calls": 72,
}


def test_every_exercise_of_lesson_2_is_registered() -> None:
    assert tuple(ex.id for ex in exercises(2)) == tuple(sorted(IDS))


@pytest.mark.parametrize("exercise_id", IDS)
def test_expected_answer_matches_an_independent_derivation(exercise_id: str) -> None:
    expected = get_exercise(exercise_id).expected_value()
    if isinstance(INDEPENDENT[exercise_id], float):
        assert expected == pytest.approx(INDEPENDENT[exercise_id])
    else:
        assert expected == INDEPENDENT[exercise_id]


def test_exactly_one_ledger_is_latency_bound() -> None:
    terms = {name: ledger.dominant_term for name, ledger in ledgers().items()}
    assert terms == {"A": "bandwidth", "B": "latency"}


@pytest.mark.parametrize("exercise_id", IDS)
def test_right_answer_is_correct(exercise_id: str) -> None:
    feedback = check(exercise_id, get_exercise(exercise_id).expected_value())
    assert feedback.correct, feedback.message


def test_choice_is_case_insensitive() -> None:
    assert check("q2.latency_bound", " b ").correct


@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answer_gets_a_hint_without_the_answer(exercise_id: str) -> None:
    feedback = check(exercise_id, WRONG[exercise_id])
    assert feedback.status == "incorrect"
    expected = get_exercise(exercise_id).expected_value()
    shown = {f"{expected:.3g}", f"{expected:.3f}"} if isinstance(expected, float) else {f"{expected}"}
    for lang in ("zh", "en"):
        hint = get_exercise(exercise_id).hint.render(lang)
        if exercise_id == "q2.latency_bound":
            assert '"B"' not in hint and "B 的" not in hint and "B's" not in hint
        else:
            assert not any(s in hint for s in shown), hint
    assert feedback.message.startswith("Not yet. Hint: ")


@pytest.mark.parametrize("exercise_id", IDS)
def test_unanswered(exercise_id: str) -> None:
    feedback = check(exercise_id, ...)
    assert feedback.status == "unanswered"


def test_messages_in_chinese() -> None:
    coursekit.set_language("zh")
    assert check("q2.tp_calls", 1152).message == (
        "正确。4 × 36 × 8 = 1152 次：对比数据并行每步一次梯度全归约，这就是“高频”。"
    )
    assert check("q2.crossover_mib", 1.0).message.startswith("还不对。提示：令 latency")
    assert check("q2.latency_bound", "C").status == "invalid"


# ---------------------------------------------------------------------------
# numbers quoted in the instructor guides and in the lesson's prose
# ---------------------------------------------------------------------------


def _strategy_calls() -> dict[str, int]:
    shape = MODEL_SHAPES["megatron-7.5b"]
    activation = dict(seq_len=4096, micro_batch=1, micro_batches=8)
    plans: dict[str, tuple[str, dict[str, Any]]] = {
        # as lesson 2's table: 8 micro-batches, so each layer's 2 all-gathers and 1 reduce-scatter run 8 times
        "ZeRO-3": ("zero", dict(num_params=shape.num_params, dp=8, stage=3, units=shape.layers, micro_batches=8)),
        "TP": ("tp", dict(**activation, hidden=shape.hidden, layers=shape.layers, tp=8)),
        "PP": ("pp", dict(**activation, hidden=shape.hidden, pp=8)),
        "CP": ("cp", dict(**activation, kv_hidden=shape.hidden, layers=shape.layers, cp=8)),
        "EP": ("ep", dict(**activation, hidden=shape.hidden, moe_layers=shape.layers, ep=8, top_k=2)),
    }
    return {
        name: sum(e.calls_per_step for e in strategy_traffic(key, **params)) for name, (key, params) in plans.items()
    }


def _ring_steps(ranks: int) -> int:
    return collective_cost("all_reduce", payload_bytes=1, ranks=ranks, bandwidth_bytes_per_s=1, latency_s=0).steps


def _quoted_numbers() -> dict[str, str]:
    """Number strings the guides quote, each computed here with coursekit ("|" separates accepted spellings)."""
    low = communication_ledger(256, 1, 100, 5)
    high = communication_ledger(32, 24, 100, 5)
    intra, cross = LINK_PRESETS["intra_node"], LINK_PRESETS["cross_node"]
    b_ledger = ledgers()["B"]
    calls = _strategy_calls()
    shape = MODEL_SHAPES["megatron-7.5b"]
    decode = strategy_traffic("tp", seq_len=1, micro_batch=8, hidden=shape.hidden, layers=shape.layers, tp=8)[:1]
    decode_time = traffic_time(decode, bandwidth_bytes_per_s=intra.bandwidth_bytes_per_s, latency_s=intra.latency_s)
    per_call = collective_cost(
        "send_recv", payload_bytes=32 * MIB_BYTES, ranks=2, bandwidth_bytes_per_s=100 * GIB_BYTES, latency_s=5e-6
    )
    return {
        "low ledger": f"{low.lower_bound_ms} ms",
        "high ledger": f"{high.lower_bound_ms} ms",
        "seed crossover": f"{crossover_payload_mib(100, 5):.3f} MiB",
        "intra crossover": f"{crossover_payload_mib(intra.bandwidth_gib_s, intra.latency_us):.3f} MiB",
        "cross crossover": f"{crossover_payload_mib(cross.bandwidth_gib_s, cross.latency_us):.3f} MiB",
        "nvlink one way": f"{NVLINK4_H100_BYTES_PER_S / GB_BYTES:.0f} GB/s",
        "nvlink GiB/s": f"{intra.bandwidth_gib_s:.1f} GiB/s",
        "ndr GiB/s": f"{cross.bandwidth_gib_s:.1f} GiB/s",
        "factor n=8": f"{bus_bandwidth_factor('all_reduce', 8):g}",
        "factor n=64": f"{bus_bandwidth_factor('all_reduce', 64):.4g}",
        "steps n=8": f"{_ring_steps(8)}",
        "steps n=64": f"{_ring_steps(64)}",
        "ZeRO-3 calls": f"ZeRO-3 **{calls['ZeRO-3']}**",
        "TP calls": f"TP {calls['TP']}",
        "PP calls": f"PP {calls['PP']}|PP 每个边界 {calls['PP']}",
        "CP calls": f"CP {calls['CP']}",
        "EP calls": f"EP {calls['EP']}",
        "decode calls": f"{decode[0].calls_per_step}",
        "decode latency": f"{decode_time.latency_s * MS_PER_S:.3f} ms",
        "decode transfer": f"{decode_time.transfer_s * MS_PER_S:.3f} ms",
        "per-call transfer": f"{per_call.transfer_s * US_PER_S:.0f} µs",
        "B latency": f"{b_ledger.latency_ms} ms",
        # as the ledger's sentence prints it (the reveal): 512 x 64 KiB / 100 GiB/s = 0.3125 ms, its 3-decimal field
        # 0.312 made the sentence read 2.56 + 0.312 = 2.873
        "B transfer": re.search(r"transfer ([\d.]+ ms)", b_ledger.explain()).group(1),  # type: ignore[union-attr]
        "q2.crossover_mib": f"{get_exercise('q2.crossover_mib').expected_value():.3f} MiB",
        "q2.allreduce_ms": f"{get_exercise('q2.allreduce_ms').expected_value():.3f} ms",
        "q2.tp_calls": f"| {get_exercise('q2.tp_calls').expected_value()} |",
    }


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("what", sorted(_quoted_numbers()))
def test_guide_quotes_coursekit(guide: Path, what: str) -> None:
    text = guide.read_text(encoding="utf-8")
    options = _quoted_numbers()[what].split("|") if what != "q2.tp_calls" else [_quoted_numbers()[what]]
    assert any(option in text for option in options), f"{guide.name} should quote {what} as one of {options}"


def test_lesson_prose_quotes_coursekit() -> None:
    """The self-check answers quote the all-reduce factors and ring steps, and the H100 link one way."""
    text = LESSON_SOURCE.read_text(encoding="utf-8")
    factor_8 = bus_bandwidth_factor("all_reduce", 8)
    factor_64 = bus_bandwidth_factor("all_reduce", 64)
    numbers = (f"{factor_8:g}", f"{factor_64:.3g}", f"{_ring_steps(8)}", f"{_ring_steps(64)}")
    for number in (*numbers, f"{NVLINK4_H100_BYTES_PER_S / GB_BYTES:.0f} GB/s"):
        assert text.count(number) >= 2, number
    assert f"{LINK_PRESETS['intra_node'].bandwidth_gib_s:.0f}" in text  # "about 419 GiB/s"
