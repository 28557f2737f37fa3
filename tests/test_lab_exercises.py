"""Lesson 8's exercises: every expected answer against a value worked out independently.

The first five are worked by hand from the prompts (nccl-tests' bus factor,
the ring model's steps, the lab model's shapes). The last five read the
recording shipped with the course; their expected values are computed here
straight from its JSON with plain Python, not with the lab's reports.
"""

from __future__ import annotations

import json
from importlib import resources
from statistics import fmean
from typing import Any

import pytest

from coursekit.exercises import check, exercises, get_exercise, verify


def _recording() -> dict[str, Any]:
    text = resources.files("coursekit.lab").joinpath("recorded").joinpath("lesson8.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _result(data: dict[str, Any], strategy: str, scenario: str) -> dict[str, Any]:
    (item,) = [
        r for r in data["timeline"]["results"] if r["strategy"] == strategy and r["scenario"]["name"] == scenario
    ]
    return item


def _mean(item: dict[str, Any], field: str) -> float:
    """Mean over ranks of each rank's mean over its steps."""
    return fmean(fmean(step[field] for step in rank) for rank in item["steps"])


def _by_hand() -> dict[str, Any]:
    data = _recording()
    tp_slow = _result(data, "tp", "slow_rank")
    waits = [fmean(step["wait_slower_rank_s"] for step in rank) for rank in tp_slow["steps"]]
    base = _result(data, "ddp", "baseline")
    exposed, hidden = _mean(base, "exposed_communication_s"), _mean(base, "hidden_communication_s")
    runs = {"X": "no_overlap", "Y": "input_delay", "Z": "slow_rank"}

    def grew_most(field: str) -> str:
        return max(runs, key=lambda name: _mean(_result(data, "ddp", runs[name]), field) - _mean(base, field))

    step_1 = _mean(data["scaling"]["1"], "step_s")
    step_4 = _mean(data["scaling"]["4"], "step_s")
    return {
        # algbw = 256 MiB / 4 ms = 0.25 GiB / 0.004 s = 62.5 GiB/s; all_gather's factor (n-1)/n = 7/8.
        "lab.busbw_gib_s": 62.5 * 7 / 8,
        # all_reduce over 2 ranks: 2(n-1) = 2 steps, factor 2(n-1)/n = 1: S* = 2 · 50 µs · 2**30 B/s.
        "lab.crossover_bytes": 2 * 50e-6 * 2**30,
        # The 5-row head over 4 ranks: 2 rows of 64 + 2 biases stored, (5·64 + 5)/4 even share, 4 bytes each.
        "lab.fsdp_padding_bytes": (2 * 64 + 2 - (5 * 64 + 5) / 4) * 4,
        # Replicated under TP: per block 2 LayerNorms (2·64 each) + 2 row-wise biases (64 each); the head 128 + 325.
        "lab.tp_replicated_bytes": (2 * (2 * 128 + 2 * 64) + 128 + 5 * 64 + 5) * (1 - 1 / 4) * 4,
        # After forward with n = 2: ZeRO-2 holds 1 full copy + its 1/2 shard; DDP 1; ZeRO-3 and TP about 1/2.
        "lab.most_param_bytes": "fsdp2-zero2",
        "lab.slow_rank": waits.index(min(waits)),
        "lab.exposed_share": exposed / (exposed + hidden),
        "lab.input_delay_run": grew_most("input_wait_s"),
        "lab.straggler_run": grew_most("wait_slower_rank_s"),
        "lab.efficiency_4": step_1 / step_4,
    }


def test_every_lab_exercise_has_an_independent_value() -> None:
    assert {ex.id for ex in exercises(8)} == set(_by_hand())


@pytest.mark.parametrize("exercise_id", sorted(_by_hand()))
def test_expected_value_equals_the_hand_computation(exercise_id: str) -> None:
    expected = get_exercise(exercise_id).expected_value()
    by_hand = _by_hand()[exercise_id]
    if isinstance(by_hand, (str, int)):
        assert expected == by_hand
    else:
        assert expected == pytest.approx(by_hand, rel=1e-9)
    verify(exercise_id, by_hand)


def test_the_injected_faults_are_what_the_recording_shows() -> None:
    # The recording injected the input delay into run Y, the straggler into run Z, and slowed rank 1 in TP.
    values = _by_hand()
    assert (values["lab.input_delay_run"], values["lab.straggler_run"], values["lab.slow_rank"]) == ("Y", "Z", 1)


@pytest.mark.parametrize(
    ("exercise_id", "wrong"),
    [
        ("lab.busbw_gib_s", 62.5),  # algbw, the bus factor forgotten
        ("lab.crossover_bytes", 2 * 50e-6 * 10**9),  # GB instead of GiB
        ("lab.fsdp_padding_bytes", 195 / 4),  # elements, not bytes
        ("lab.tp_replicated_bytes", 1221 * 4),  # the ledger's 1/4 share forgotten
        ("lab.most_param_bytes", "ddp"),
        ("lab.slow_rank", 0),
        ("lab.input_delay_run", "Z"),
        ("lab.straggler_run", "Y"),
    ],
)
def test_wrong_answers_are_rejected(exercise_id: str, wrong: Any) -> None:
    assert check(exercise_id, wrong).status == "incorrect"
