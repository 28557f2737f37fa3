"""Lesson 8 in live mode: the exercises are judged against the run the learner just made, never the recording.

A synthetic "live" run stands in for a fresh measurement (no PyTorch needed): the recording with its 4-rank
scaling steps halved (so E(4) doubles) and the DDP baseline's exposed and hidden communication swapped (so the
exposed share becomes 1 - the recorded one). The expected values below are worked from the synthetic run's
own step breakdowns, not through the exercise module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from coursekit import set_language
from coursekit.exercises import check, get_exercise, lesson8
from coursekit.lab.recorded import LessonRecording, load_recorded
from coursekit.lab.timeline import ScenarioResult, StepBreakdown

#: The time fields of a step breakdown (seconds), all scaled together; the wall-clock reading is not one of them.
TIME_FIELDS = tuple(f.name for f in dataclasses.fields(StepBreakdown) if f.name.endswith("_s") and f.name != "wall_s")


def _halved(result: ScenarioResult) -> ScenarioResult:
    def half(step: StepBreakdown) -> StepBreakdown:
        return dataclasses.replace(step, **{name: getattr(step, name) / 2 for name in TIME_FIELDS})

    return dataclasses.replace(result, steps=tuple(tuple(half(s) for s in rank) for rank in result.steps))


def _swapped_overlap(result: ScenarioResult) -> ScenarioResult:
    def swap(step: StepBreakdown) -> StepBreakdown:
        return dataclasses.replace(
            step,
            hidden_communication_s=step.exposed_communication_s,
            exposed_communication_s=step.hidden_communication_s,
        )

    return dataclasses.replace(result, steps=tuple(tuple(swap(s) for s in rank) for rank in result.steps))


def _mean_of(result: ScenarioResult, name: str) -> float:
    values = [getattr(step, name) for rank in result.steps for step in rank]
    return sum(values) / len(values)  # every rank runs the same number of steps: the mean of ranks' means


@pytest.fixture
def live_run() -> Iterator[LessonRecording]:
    recorded = load_recorded()
    timeline = recorded.timeline
    results = tuple(
        _swapped_overlap(r) if (r.strategy, r.scenario.name) == ("ddp", "baseline") else r for r in timeline.results
    )
    live = dataclasses.replace(
        recorded,
        scaling={**recorded.scaling, 4: _halved(recorded.scaling[4])},
        timeline=dataclasses.replace(timeline, results=results),
    )
    lesson8.use_run(live)
    yield live
    lesson8.use_run(None)


def test_live_efficiency_is_judged_against_the_live_run(live_run: LessonRecording) -> None:
    recorded = load_recorded()
    recorded_e4 = _mean_of(recorded.scaling[1], "step_s") / _mean_of(recorded.scaling[4], "step_s")
    live_e4 = _mean_of(live_run.scaling[1], "step_s") / _mean_of(live_run.scaling[4], "step_s")
    assert live_e4 == pytest.approx(2 * recorded_e4)
    assert get_exercise("lab.efficiency_4").expected_value() == pytest.approx(live_e4)
    assert check("lab.efficiency_4", round(live_e4, 2)).correct
    assert not check("lab.efficiency_4", round(recorded_e4, 2)).correct  # the recording's value is wrong now


def test_live_exposed_share_feedback_quotes_the_live_run(live_run: LessonRecording) -> None:
    set_language("en")
    baseline = next(r for r in live_run.timeline.results if (r.strategy, r.scenario.name) == ("ddp", "baseline"))
    exposed, hidden = _mean_of(baseline, "exposed_communication_s"), _mean_of(baseline, "hidden_communication_s")
    share = exposed / (exposed + hidden)
    feedback = check("lab.exposed_share", round(share, 3))
    assert feedback.correct
    assert f"= {share:.2f}:" in feedback.message and f"only {1 - share:.0%} of the communication" in feedback.message


def test_recorded_mode_uses_the_recording() -> None:
    lesson8.use_run(None)
    recorded = load_recorded()
    e4 = _mean_of(recorded.scaling[1], "step_s") / _mean_of(recorded.scaling[4], "step_s")
    assert get_exercise("lab.efficiency_4").expected_value() == pytest.approx(e4)


def test_use_run_refuses_what_is_not_a_run() -> None:
    with pytest.raises(TypeError, match="LessonRecording"):
        lesson8.use_run({"scaling": {}})  # type: ignore[arg-type]
