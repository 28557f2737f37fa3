"""coursekit.exercises.lesson5 (selection matrix): every expected answer worked by hand, and the feedback.

The expected values below are worked from the cases' numbers with the lesson's memory model written out here
(not read from the code under test): DP S + A + R; FSDP over d ranks S/d + A + R + 3W (two layers of parameters and
one of unsharded gradients, PyTorch FSDP docs, BackwardPrefetch.BACKWARD_PRE); TP = t alone S/t + A/t + R; TP x FSDP
S/N + (3W + A)/t + R; PP = p stages S/p + A + R with a whole layer per stage (W + A + R).
"""

from __future__ import annotations

import pytest

import coursekit
from coursekit.exercises import check, exercises, get_exercise, verify
from coursekit.exercises.lesson5 import CASE_PARAMS, MAX_DP_GLOBAL_BATCH, MAX_DP_MICRO_BATCH
from coursekit.matrix import PAPER_CASES

# -- the cases, as the lesson's table gives them (GiB; N = 32 devices of 24 GiB) --------------------------------------
DEVICE_GIB = 24.0
N = 32
# (parameters, activations, reserve, largest layer)
CASES = {
    1: (872_415_232, 4.0, 2.0, 0.1),
    2: (2_684_354_560, 5.0, 2.0, 0.3),
    3: (21_474_836_480, 8.0, 2.0, 26.0),
}


def _state_gib(n: int) -> float:
    return CASES[n][0] * 16 / 2**30  # mixed-precision Adam, 16 bytes per parameter (ZeRO paper, section 3.1)


HAND_STATE_GIB = {1: 13.0, 2: 40.0, 3: 320.0}

# Worked by hand:
# case 1: S + A + R = 13 + 4 + 2 = 19 <= 24 -> fits; every split has degree 1 -> not needed.
# case 2: S + A + R = 47 > 24 (DP hard-excluded); no layer exceeds (0.3 + 7 <= 24) -> TP not needed;
#         FSDP 32: 40/32 + 5 + 2 + 0.9 = 9.15 fits; PP: 40/p + 7 <= 24 first at p = 4 (17) -> feasible.
# case 3: layer 26 + 8 + 2 = 36 > 24 -> no strategy alone; TP x FSDP: 320/32 + (78 + 8)/t + 2 <= 24 first at
#         t = 8 (22.75; t = 4 gives 33.5); TP's links unknown -> needs info; FSDP is TP's second dimension -> feasible;
#         PP alone cannot split the layer and TP x FSDP fits with no bubble -> not preferred.
HAND_KINDS = {1: "fits_one_device", 2: "state_exceeds_device", 3: "layer_exceeds_device"}
HAND_MATRIX = {
    1: {"dp": "feasible", "fsdp": "not_preferred", "tp": "not_preferred", "pp": "not_preferred"},
    2: {"dp": "not_preferred", "fsdp": "feasible", "tp": "not_preferred", "pp": "feasible"},
    3: {"dp": "not_preferred", "fsdp": "feasible", "tp": "needs_info", "pp": "not_preferred"},
}

IDS = sorted(
    [f"matrix.case{n}_state_gib" for n in CASES]
    + [f"matrix.case{n}_kind" for n in CASES]
    + [f"matrix.case{n}_{s}" for n in CASES for s in ("dp", "fsdp", "tp", "pp")]
    + ["matrix.topology_changed", "matrix.max_dp"]
)


def test_lesson5_registers_its_exercises() -> None:
    assert [ex.id for ex in exercises(5)] == IDS
    assert all(ex.lesson == 5 for ex in exercises(5))


def test_the_parameter_counts_are_the_cases() -> None:
    assert [CASE_PARAMS[case.key] for case in PAPER_CASES] == [CASES[n][0] for n in (1, 2, 3)]
    for n, case in enumerate(PAPER_CASES, start=1):
        assert (case.activation_gib, case.runtime_reserve_gib, case.largest_layer_gib) == CASES[n][1:]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_state_gib_is_params_times_16_bytes(n: int) -> None:
    assert _state_gib(n) == HAND_STATE_GIB[n]
    assert get_exercise(f"matrix.case{n}_state_gib").expected_value() == pytest.approx(HAND_STATE_GIB[n])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_case_kind_by_hand(n: int) -> None:
    _, act, reserve, layer = CASES[n]
    state = _state_gib(n)
    kind = (
        "layer_exceeds_device"
        if layer + act + reserve > DEVICE_GIB
        else "state_exceeds_device"
        if state + act + reserve > DEVICE_GIB
        else "fits_one_device"
    )
    assert kind == HAND_KINDS[n]
    assert get_exercise(f"matrix.case{n}_kind").expected_value() == kind


def test_hand_memory_numbers_behind_the_matrix() -> None:
    s2, s3 = HAND_STATE_GIB[2], HAND_STATE_GIB[3]
    assert s2 + 5 + 2 == 47.0
    assert s2 / N + 5 + 2 + 3 * 0.3 == pytest.approx(9.15)
    assert s2 / 4 + 5 + 2 == 17.0
    assert s3 / N + (3 * 26 + 8) / 4 + 2 == pytest.approx(33.5)
    assert s3 / N + (3 * 26 + 8) / 8 + 2 == pytest.approx(22.75)
    assert s3 / 8 + 8 / 8 + 2 == 43.0  # TP = 8 alone


@pytest.mark.parametrize(("n", "strategy"), [(n, s) for n in CASES for s in ("dp", "fsdp", "tp", "pp")])
def test_each_cell_by_hand(n: int, strategy: str) -> None:
    assert get_exercise(f"matrix.case{n}_{strategy}").expected_value() == HAND_MATRIX[n][strategy]


def test_topology_and_batch() -> None:
    # With 8 fast GPUs per node, TP = 8 stays inside a node: only TP's verdict rested on the links.
    assert get_exercise("matrix.topology_changed").expected_value() == "TP"
    assert (MAX_DP_GLOBAL_BATCH, MAX_DP_MICRO_BATCH) == (512, 4)
    assert get_exercise("matrix.max_dp").expected_value() == 128


# -- feedback ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("matrix.case2_state_gib", 40.0),
        ("matrix.case2_state_gib", 40),
        ("matrix.case1_state_gib", 13),
        ("matrix.case3_kind", "layer_exceeds_device"),
        ("matrix.case3_kind", "单层超过单卡"),
        ("matrix.case1_kind", "The model fits one device"),
        ("matrix.case3_fsdp", "feasible"),
        ("matrix.case3_tp", "需更多信息"),
        ("matrix.case2_dp", "Not preferred"),
        ("matrix.topology_changed", " tp "),
        ("matrix.max_dp", 128),
    ],
)
def test_right_answers_pass(exercise_id: str, answer: object) -> None:
    assert check(exercise_id, answer).correct
    verify(exercise_id, answer)


@pytest.mark.parametrize(
    ("exercise_id", "answer", "hint_words"),
    [
        ("matrix.case2_state_gib", 42.95, "GiB (2^30 bytes)"),  # GB instead of GiB: the named slip
        ("matrix.case3_kind", "state_exceeds_device", "largest layer"),
        ("matrix.case3_fsdp", "not_preferred", "second dimension"),
        ("matrix.case3_pp", "feasible", "without a bubble"),
        ("matrix.case2_tp", "feasible", "single layer"),
        ("matrix.case2_dp", "feasible", "fit gate"),
        ("matrix.topology_changed", "FSDP", "needs more information"),
        ("matrix.max_dp", 512, "at least one micro-batch"),  # micro-batch left out: the named slip
    ],
)
def test_wrong_answers_get_a_hint_without_the_answer(exercise_id: str, answer: object, hint_words: str) -> None:
    feedback = check(exercise_id, answer)
    assert feedback.status == "incorrect"
    assert hint_words in feedback.message
    with pytest.raises(AssertionError):
        verify(exercise_id, answer)


def test_right_cell_explains_itself_in_chinese() -> None:
    coursekit.set_language("zh")
    message = check("matrix.case3_fsdp", "可行").message
    assert "TP 8 × FSDP 4" in message and "22.8 GiB" in message


def test_unanswered_cells_show_no_answer() -> None:
    for exercise_id in IDS:
        feedback = check(exercise_id, ...)
        assert feedback.status == "unanswered"
        expected = str(get_exercise(exercise_id).expected_value())
        assert expected not in feedback.message.replace(exercise_id, "")
