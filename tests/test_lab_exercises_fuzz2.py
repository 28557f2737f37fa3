"""Inputs a second adversarial pass found wrong in the exercises' checker and the lab's pure helpers.

Exercises (``coursekit.exercises.check``): an answer is judged by what it is, not by its container or its numpy
type. ``np.True_`` is a bool and ``np.int64(16)`` an int; a list and a tuple are the same sequence; and one rule
holds for a number on its own and inside a sequence (a bool is never a number, an integral float such as ``1152.0``
is refused with a message saying to write ``1152``).

Lab (no PyTorch process): a path that cannot be read, a result with a key missing or a value of the wrong kind, an
argument of the wrong kind, and measured times that would make the fit overflow are each a ``TypeError`` or
``ValueError`` in the learner's language naming the argument (or the path, or the key) — never ``KeyError``,
``AttributeError``, ``FileNotFoundError``, numpy's ``LinAlgError``, NaN or a negative time.
"""

from __future__ import annotations

import contextlib
import copy
import io
import math
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import coursekit
from coursekit.exercises import Feedback, check, get_exercise
from coursekit.lab import (
    RankStepEvents,
    TinyTransformerConfig,
    breakdown_steps,
    compare_memory,
    efficiency_points,
    expected_adjustments,
    fit_alpha_beta,
    load_collectives_json,
    load_recorded,
    load_timeline_json,
    parameter_layout,
)
from coursekit.lab.fit import MIN_TIME_S
from coursekit.lab.memory import load_memory_json, tp_supported
from coursekit.lab.plot import plot_measured_vs_predicted

#: Wrong kinds on purpose: the calls go through ``Any`` so the type checker lets them reach the runtime check.
_fit: Any = fit_alpha_beta
_layout: Any = parameter_layout
_tp_supported: Any = tp_supported
_adjustments: Any = expected_adjustments
_breakdown: Any = breakdown_steps
_compare: Any = compare_memory
_efficiency: Any = efficiency_points
_plot: Any = plot_measured_vs_predicted
_load_recorded: Any = load_recorded


@pytest.fixture(params=["en", "zh"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    coursekit.set_language(request.param)
    yield str(request.param)


def _check(exercise_id: str, answer: Any) -> Feedback:
    with contextlib.redirect_stdout(io.StringIO()):
        return check(exercise_id, answer)


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


# ---------------------------------------------------------------------------
# exercises: numpy answers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("answer", [np.True_, 1 < np.float64(2), np.array(True)])
def test_a_numpy_bool_is_a_bool(answer: Any) -> None:
    assert _check("q4.tp_crosses", answer).correct


def test_a_wrong_numpy_bool_is_judged_not_refused() -> None:
    feedback = _check("q4.tp_crosses", np.False_)
    assert feedback.status == "incorrect"
    assert "not bool" not in feedback.message


def test_numpy_numbers_are_the_numbers_they_hold() -> None:
    assert _check("q2.tp_calls", np.int64(1152)).correct
    assert _check("q2.tp_calls", np.int32(1151)).status == "incorrect"
    assert _check("q3.dp_degrees", (np.int64(1), np.int8(2), 4, 8, 16)).correct
    number = get_exercise("q1.zero2_gib")
    assert number.kind == "number"
    value = number.expected_value()
    assert _check(number.id, np.float64(value)).correct
    assert _check(number.id, np.array(value)).correct  # a 0-d array
    assert _check(number.id, np.float32(value)).correct
    assert _check(number.id, np.float64(value * 3)).status == "incorrect"


def test_a_numpy_bool_is_never_a_number() -> None:
    assert _check("q2.tp_calls", np.True_).status == "invalid"
    assert _check("q1.zero2_gib", np.True_).status == "invalid"


# ---------------------------------------------------------------------------
# exercises: sequences
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("q3.dp_degrees", (1, 2, 4, 8, 16)),
        ("q3.dp_degrees", [1, 2, 4, 8, 16]),
        ("q3.dp_degrees", np.array([1, 2, 4, 8, 16])),
        ("q4.dp_group", [5, 7]),
        ("q4.dp_group", (5, 7)),
    ],
)
def test_a_list_and_a_tuple_are_the_same_sequence(exercise_id: str, answer: Any) -> None:
    assert _check(exercise_id, answer).correct


def test_the_expected_answers_are_unchanged() -> None:
    assert get_exercise("q3.dp_degrees").expected_value() == (1, 2, 4, 8, 16)
    assert get_exercise("q4.dp_group").expected_value() == [5, 7]
    assert get_exercise("q4.tp_crosses").expected_value() is True
    assert get_exercise("q2.tp_calls").expected_value() == 1152


def test_a_sequence_is_compared_in_order() -> None:
    assert _check("q3.dp_degrees", (16, 8, 4, 2, 1)).status == "incorrect"
    assert _check("q4.dp_group", (7, 5)).status == "incorrect"
    assert _check("q3.dp_degrees", (1, 2, 4, 8, 16, 32)).status == "incorrect"


def test_a_slip_is_found_in_either_container() -> None:
    for answer in ([4, 5], (4, 5)):
        assert _check("q4.dp_group", answer).slip == "tp_group"


def test_a_set_where_a_sequence_is_asked_for_is_refused_in_words(lang: str) -> None:
    feedback = _check("q3.dp_degrees", {1, 2, 4, 8, 16})
    assert feedback.status == "invalid"
    if lang == "zh":
        assert "列表或元组" in feedback.message and "set" in feedback.message
    else:
        assert "should be a list or tuple" in feedback.message and "not of type set" in feedback.message


def test_a_set_answer_stays_a_set_where_a_set_is_asked_for() -> None:
    expected = get_exercise("q3.accepted").expected_value()
    assert _check("q3.accepted", set(expected)).correct
    assert _check("q3.accepted", sorted(expected, reverse=True)).correct  # order-free


# ---------------------------------------------------------------------------
# exercises: one rule for numbers, alone and inside a sequence
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exercise_id", "answer", "name", "whole"),
    [
        ("q2.tp_calls", 1152.0, "answer = 1152.0", "1152"),
        ("q2.tp_calls", np.float64(1152.0), "answer = 1152.0", "1152"),
        ("q3.dp_degrees", (1.0, 2.0, 4.0, 8.0, 16.0), "answer[0] = 1.0", "1"),
        ("q3.dp_degrees", (1, 2, 4, 8, 16.0), "answer[4] = 16.0", "16"),
    ],
)
def test_an_integral_float_is_refused_saying_what_to_write(
    lang: str, exercise_id: str, answer: Any, name: str, whole: str
) -> None:
    feedback = _check(exercise_id, answer)
    assert feedback.status == "invalid"
    message = feedback.message
    assert name in message
    if lang == "zh":
        assert f"请写成 {whole}，不带小数点" in message, message
    else:
        assert f"write {whole}, without the decimal point" in message, message


@pytest.mark.parametrize(
    ("exercise_id", "answer", "name"),
    [
        ("q2.tp_calls", True, "answer = True"),
        ("q3.dp_degrees", (True, 2, 4, 8, 16), "answer[0] = True"),
        ("q4.dp_group", [5, np.True_], "answer[1] = True"),
    ],
)
def test_a_bool_is_never_a_number_alone_or_inside_a_sequence(exercise_id: str, answer: Any, name: str) -> None:
    feedback = _check(exercise_id, answer)
    assert feedback.status == "invalid"
    assert f"{name}: must be an integer (int), not bool." in feedback.message


def test_a_fraction_is_still_not_a_count() -> None:
    assert _check("serve.max_requests", 184.5).status == "invalid"
    assert _check("q3.dp_degrees", (1, 2, 4, 8, 16.5)).status == "invalid"


# ---------------------------------------------------------------------------
# lab: reading results back
# ---------------------------------------------------------------------------


@pytest.fixture
def recording() -> dict[str, Any]:
    """The shipped recording as the dict parsed from its file."""
    return load_recorded().to_json_dict()


def test_a_written_recording_reads_back_from_its_path(tmp_path: Path) -> None:
    shipped = load_recorded()
    path = tmp_path / "my-run.json"
    shipped.write_json(path)
    assert load_recorded(path) == shipped
    assert load_recorded(str(path)) == shipped
    assert load_timeline_json(shipped.timeline.to_json_dict()) == shipped.timeline
    assert load_collectives_json(shipped.collectives.to_json_dict()) == shipped.collectives
    assert load_memory_json(shipped.memory.to_json_dict()).to_json_dict() == shipped.memory.to_json_dict()


def test_a_missing_file_names_its_path(lang: str, tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(ValueError) as caught:
        load_recorded(missing)
    message = str(caught.value)
    assert f"source {missing}" in message
    assert ("不存在" if lang == "zh" else "does not exist") in message


def test_an_empty_path_is_refused_not_read_as_the_current_folder(lang: str) -> None:
    with pytest.raises(ValueError) as caught:
        load_recorded("")
    message = str(caught.value)
    assert "source ''" in message
    assert ("路径为空" if lang == "zh" else "the path is empty") in message


@pytest.mark.parametrize("loader", [load_recorded, load_collectives_json, load_timeline_json, load_memory_json])
def test_a_folder_is_refused_by_every_loader(loader: Callable[[Any], Any], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=rf"^source {re.escape(str(tmp_path))}: is a folder$"):
        loader(tmp_path)


def test_a_file_that_is_not_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text('{"schema":\n oops}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"not valid JSON \(line 2, column 2\)"):
        load_recorded(path)
    path.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(ValueError, match="not usable JSON"):
        load_timeline_json(path)


def test_a_source_of_the_wrong_kind_names_source() -> None:
    with pytest.raises(TypeError, match=r"^source = 3: must be the path of a JSON file .* not int\.$"):
        _load_recorded(3)
    with pytest.raises(TypeError, match=r"^source = \[\]: .* not list\.$"):
        load_collectives_json(_any([]))


def _any(value: Any) -> Any:
    return value


@pytest.mark.parametrize(
    ("call", "place"),
    [
        (lambda: load_recorded({"schema": "coursekit.lab.lesson8/1"}), "source['scaling']"),
        (lambda: load_timeline_json({"schema": "coursekit.lab.timeline/1"}), "source['ranks']"),
        (lambda: load_memory_json({"schema": "coursekit.lab.memory/1"}), "source['config']"),
        (lambda: load_collectives_json({"schema": "coursekit.lab.collectives/1"}), "source['collectives']"),
    ],
)
def test_a_partial_result_names_the_missing_key(lang: str, call: Callable[[], Any], place: str) -> None:
    with pytest.raises(ValueError) as caught:
        call()
    message = str(caught.value)
    assert message.startswith(place), message
    assert ("缺失" if lang == "zh" else "is missing") in message


def test_a_key_missing_deep_inside_names_its_whole_place(recording: dict[str, Any]) -> None:
    del recording["timeline"]["results"][1]["steps"]
    with pytest.raises(ValueError, match=r"^source\['timeline'\]\['results'\]\[1\]\['steps'\] is missing"):
        load_recorded(recording)


def test_a_value_of_the_wrong_kind_names_its_place(recording: dict[str, Any]) -> None:
    broken = copy.deepcopy(recording)
    broken["memory"]["strategies"]["ddp"]["ranks"][0]["rows"][0]["measured_bytes"] = "x"
    place = r"source\['memory'\]\['strategies'\]\['ddp'\]\['ranks'\]\[0\]\['rows'\]\[0\]\['measured_bytes'\]"
    with pytest.raises(TypeError, match=rf"^{place} = 'x': must be an integer \(int\), not str\.$"):
        load_recorded(broken)
    broken = copy.deepcopy(recording)
    broken["collectives"]["collectives"]["all_reduce"]["points"] = {"payload_bytes": 1}
    with pytest.raises(TypeError, match=r"\['points'\] = .*: must be a list or tuple, not dict\."):
        load_recorded(broken)


@pytest.mark.parametrize("bad", [-0.001, math.nan, math.inf])
def test_a_recorded_time_is_never_negative_or_not_finite(recording: dict[str, Any], bad: float) -> None:
    recording["scaling"]["2"]["steps"][0][0]["step_s"] = bad
    with pytest.raises(ValueError, match=r"^source\['scaling'\]\['2'\]\['steps'\]\[0\]\[0\]\['step_s'\] = "):
        load_recorded(recording)


def test_a_reversed_interval_in_a_recorded_sample_is_refused(recording: dict[str, Any]) -> None:
    recording["timeline"]["results"][0]["sample"][0]["step"] = [100.0, 0.0]
    with pytest.raises(ValueError, match=r"step = \(100\.0, 0\.0\): must be an interval"):
        load_recorded(recording)


def test_a_scaling_key_must_be_a_rank_count(lang: str, recording: dict[str, Any]) -> None:
    recording["scaling"]["two"] = recording["scaling"].pop("2")
    with pytest.raises(ValueError) as caught:
        load_recorded(recording)
    message = str(caught.value)
    assert "source['scaling']" in message and "'two'" in message
    assert ("rank 数" if lang == "zh" else "rank count") in message


def test_an_unknown_field_or_reason_is_refused(recording: dict[str, Any]) -> None:
    broken = copy.deepcopy(recording)
    broken["memory"]["config"]["hidden"] = 64
    with pytest.raises(ValueError, match=r"^source\['memory'\]\['config'\]: unknown key\(s\) 'hidden'"):
        load_recorded(broken)
    broken = copy.deepcopy(recording)
    fsdp = next(r for r in broken["timeline"]["results"] if r["skipped"] is not None)
    fsdp["skipped"]["key"] = "no.such.message"
    with pytest.raises(ValueError, match=r"\['skipped'\] = .*: not a reason that can be shown"):
        load_recorded(broken)


def test_a_schema_mismatch_names_the_value(lang: str) -> None:
    with pytest.raises(ValueError) as caught:
        load_timeline_json({"schema": "coursekit.lab.memory/1"})
    message = str(caught.value)
    assert message.startswith("source['schema'] = 'coursekit.lab.memory/1'")
    assert "coursekit.lab.timeline/1" in message
    assert _has_chinese(message) == (lang == "zh")


# ---------------------------------------------------------------------------
# lab: the α-β fit
# ---------------------------------------------------------------------------

SIZES = [1e3, 1e4, 1e5, 1e6]
TIMES = [1.1e-5, 2e-5, 1.1e-4, 1.01e-3]


@pytest.mark.parametrize(
    ("payloads", "times", "name", "kind"),
    [
        (None, TIMES, "payload_bytes = None", "NoneType"),
        (SIZES, None, "times_s = None", "NoneType"),
        (set(SIZES), TIMES, "payload_bytes = ", "set"),
        (SIZES, dict.fromkeys(TIMES), "times_s = ", "dict"),
        (1e3, TIMES, "payload_bytes = 1000.0", "float"),
    ],
)
def test_the_paired_lists_must_be_ordered_sequences(lang: str, payloads: Any, times: Any, name: str, kind: str) -> None:
    with pytest.raises(TypeError) as caught:
        _fit("all_reduce", 4, payloads, times)
    message = str(caught.value)
    assert message.startswith(name) and kind in message, message
    assert ("列表或元组" if lang == "zh" else "must be a list or tuple") in message


def test_numpy_arrays_pair_up_like_lists() -> None:
    as_lists = fit_alpha_beta("all_reduce", 4, SIZES, TIMES)
    assert _fit("all_reduce", 4, np.array(SIZES), np.array(TIMES)) == as_lists


def test_no_points_is_refused_rather_than_nan(lang: str) -> None:
    with pytest.raises(ValueError) as caught:
        fit_alpha_beta("all_reduce", 4, [], [])
    message = str(caught.value)
    assert "payload_bytes" in message and "times_s" in message
    assert _has_chinese(message) == (lang == "zh")


def test_one_point_gives_a_finite_error() -> None:
    fit = fit_alpha_beta("all_reduce", 4, [1e3], [1e-5])
    assert fit.degenerate and math.isfinite(fit.rms_relative_error)


def test_subnormal_times_are_refused_quietly(capfd: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^times_s\[0\] = 5e-324: must be >= 1e-12\.$"):
            fit_alpha_beta("all_reduce", 4, [1e3, 1e4, 1e5], [5e-324, 5e-324, 1e-323])
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # no LAPACK "DLASCL" lines
    # the old messages of the bounds stay: 0 is not > 0, -1 is not >= 0
    with pytest.raises(ValueError, match=r"^times_s\[0\] = 0\.0: must be > 0\.$"):
        fit_alpha_beta("all_reduce", 4, [1e3], [0.0])


@pytest.mark.parametrize("ranks", [1, 2, 3, 2**53])
def test_extreme_measurements_fit_to_finite_non_negative_numbers(ranks: int) -> None:
    sizes = [0.0, 5e-324, 1.0, 1e18, 2.0**60]
    for times in ([MIN_TIME_S] * 5, [1e6] * 5, [MIN_TIME_S, 1e-6, 1.0, 1e3, 1e6]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fit = fit_alpha_beta("all_reduce", ranks, sizes, times)
        numbers = [fit.alpha_s, fit.rms_relative_error, *(fit.predict_s(s) for s in sizes)]
        if fit.bandwidth_bytes_per_s is not None:
            numbers.append(fit.bandwidth_bytes_per_s)
        assert all(math.isfinite(x) and x >= 0 for x in numbers), fit


# ---------------------------------------------------------------------------
# lab: memory and steps
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: _layout(None),
        lambda: _tp_supported({"heads": 8}, 2),
        lambda: _adjustments("ddp", None, 2, 0),
        lambda: _compare("ddp", None, 2, 0, {"params": 0, "grads": 0, "optimizer": 0}),
    ],
)
def test_a_config_of_the_wrong_kind_names_config(lang: str, call: Callable[[], Any]) -> None:
    with pytest.raises(TypeError) as caught:
        call()
    message = str(caught.value)
    assert message.startswith("config = ") and "TinyTransformerConfig" in message
    assert _has_chinese(message) == (lang == "zh")


GOOD = {"params": 401684, "grads": 401684, "optimizer": 803512}


@pytest.mark.parametrize(
    ("measured", "error", "start"),
    [
        ({**GOOD, "params": "x"}, TypeError, "measured['params'] = 'x'"),
        ({**GOOD, "grads": -1}, ValueError, "measured['grads'] = -1"),
        ({**GOOD, "optimizer": 1.5}, TypeError, "measured['optimizer'] = 1.5"),
        ({"params": 1}, ValueError, "measured "),
        (None, TypeError, "measured = None"),
    ],
)
def test_measured_bytes_are_checked_by_name(lang: str, measured: Any, error: type[Exception], start: str) -> None:
    with pytest.raises(error) as caught:
        _compare("ddp", TinyTransformerConfig(), 2, 0, measured)
    message = str(caught.value)
    assert message.startswith(start), message
    assert _has_chinese(message) == (lang == "zh")


def test_numpy_byte_counts_are_counts() -> None:
    measured = {key: np.int64(value) for key, value in GOOD.items()}
    assert compare_memory("ddp", TinyTransformerConfig(), 2, 0, measured).matches


def _step(step: tuple[float, float], collective: tuple[str, float, float] = ("gloo:x", 50, 40)) -> RankStepEvents:
    return RankStepEvents(step, (), ((0, 50),), ((50, 90),), (collective,))


@pytest.mark.parametrize(
    ("per_rank", "error", "start"),
    [
        (None, TypeError, "per_rank = None"),
        ([[1]], TypeError, "per_rank[0][0] = 1"),
        ([{_step((0, 100))}], TypeError, "per_rank[0] = "),
    ],
)
def test_breakdown_steps_names_what_is_not_a_step(lang: str, per_rank: Any, error: type[Exception], start: str) -> None:
    with pytest.raises(error) as caught:
        _breakdown(per_rank)
    message = str(caught.value)
    assert message.startswith(start), message
    assert _has_chinese(message) == (lang == "zh")


def test_a_step_that_ends_before_it_starts_is_refused(lang: str) -> None:
    with pytest.raises(ValueError) as caught:
        _step((100, 0))
    message = str(caught.value)
    assert message.startswith("step = (100, 0)")
    assert ("end >= start" in message) and _has_chinese(message) == (lang == "zh")


@pytest.mark.parametrize(
    ("make", "start"),
    [
        (lambda: _step((0, 100), ("gloo:x", 50, -40)), "collectives[0][2] = -40"),
        (lambda: _step((0, math.nan)), "step[1] = nan"),
        (lambda: RankStepEvents((0, 100), ((5, 1),), (), (), ()), "input[0] = (5, 1)"),
        (lambda: RankStepEvents((0, 100), (), (), (), (("x", 1),)), "collectives[0] = ('x', 1)"),
        (lambda: RankStepEvents((0, 100), (), (), (), (), wall_s=-1.0), "wall_s = -1.0"),
    ],
)
def test_step_events_are_never_negative_or_not_finite(make: Callable[[], Any], start: str) -> None:
    with pytest.raises(ValueError) as caught:
        make()
    assert str(caught.value).startswith(start), str(caught.value)


def test_good_steps_still_break_down() -> None:
    ((fast,), (slow,)) = breakdown_steps([[_step((0, 100), ("gloo:x", 50, 40))], [_step((0, 100), ("gloo:x", 80, 10))]])
    assert fast.step_s == pytest.approx(1e-4) and fast.wait_slower_rank_s == pytest.approx(3e-5)
    assert slow.wait_slower_rank_s == 0.0


def test_the_lab_figures_and_efficiency_name_a_wrong_argument() -> None:
    with pytest.raises(
        TypeError, match=r"^report = None: must be an object of type CollectivesReport, not NoneType\.$"
    ):
        _plot(None)
    with pytest.raises(TypeError, match=r"^baselines = None: must be a list or tuple, not NoneType\.$"):
        _efficiency(None)
    with pytest.raises(TypeError, match=r"^baselines\[0\] = 3: must be an object of type ScenarioResult, not int\.$"):
        _efficiency([3])
