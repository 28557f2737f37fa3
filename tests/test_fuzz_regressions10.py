"""Inputs a tenth adversarial fuzzing pass found wrong, each with the behaviour the project's rules ask for.

The pass drove every widget's constructor and controls, the plan results' methods, the exercise checkers and the
``lessons`` command. The rules: nonsense input is refused with a ``ValueError`` naming the parameter, the value and
the rule in the learner's language, not silently matched or answered with misleading advice; a wrong answer gets a
hint about what is wrong with it. The expected values below follow from those rules, not from running the code.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coursekit.exercises import check
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from tests.test_fuzz_regressions8 import _refusal, zh  # noqa: F401 (zh: the fixture setting Chinese)

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")


# --------------------------------------------------------------------------- check_layout keeps to the plan's mode


@pytest.fixture(scope="module")
def training() -> Any:
    return plan(MODELS["gpt2-small"], CLUSTERS["a100-8"], WorkloadSpec(global_batch=16))


@pytest.fixture(scope="module")
def serving() -> Any:
    return plan(
        MODELS["llama3-8b"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=16, mode="serving", output_tokens=10)
    )


@pytest.mark.parametrize("degrees", ["replicas=1", "replicas=2", "tp=1,pp=1,replicas=8", {"replicas": 1}])
def test_a_training_plan_refuses_serving_replicas(training: Any, degrees: Any) -> None:
    """Before: replicas=1 matched every training composition (their replicas column is 1), reported as "your
    layout"; replicas=2 matched none and was sent to widen the training search."""
    message = _refusal(lambda: training.check_layout(degrees), ValueError)
    assert message.startswith("degrees = '") and "replicas" in message and "training" in message


@pytest.mark.parametrize("key", ["dp", "cp", "ep", "v", "zero", "ga"])
def test_a_serving_plan_refuses_a_training_degree(serving: Any, key: str) -> None:
    """Before: 0 variants and the advice to widen --zero, --max-virtual-stages or --recompute, none of which a
    serving search has."""
    value = 1 if key == "zero" else 2
    message = _refusal(lambda: serving.check_layout(f"tp=1,{key}={value}"), ValueError)
    assert message.startswith(f"degrees = 'tp=1,{key}={value}': {key} ")
    assert _refusal(lambda: serving.check_layout("recompute=full"), ValueError).startswith("degrees = 'recompute=full'")


@pytest.mark.usefixtures("zh")
def test_the_mode_refusal_is_said_in_chinese(training: Any, serving: Any) -> None:
    for call in (lambda: training.check_layout("replicas=1"), lambda: serving.check_layout("dp=2")):
        assert CJK.search(_refusal(call, ValueError))


def test_each_mode_still_checks_its_own_degrees(training: Any, serving: Any) -> None:
    # 8 ranks: tp 1 · pp 1 · dp 8 is a training layout; 8 replicas of tp 1 · pp 1 a serving one
    assert training.check_layout("tp=1,pp=1,dp=8").variants > 0
    assert serving.check_layout("tp=1,pp=1,replicas=8").variants == 1


def test_the_layout_flag_refuses_replicas_of_a_training_plan_in_one_line() -> None:
    args = ["plan", "--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16", "--layout", "replicas=1"]
    for lang in ("en", "zh"):
        done = subprocess.run(
            [sys.executable, "-m", "coursekit", "--lang", lang, *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        last = done.stderr.strip().splitlines()[-1]
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "degrees = 'replicas=1'" in last and (lang == "en" or CJK.search(last))


# --------------------------------------------------------------------------- an ordered answer in another order


@pytest.mark.parametrize(
    ("exercise", "answer"),
    [
        # Megatron order TP-CP-EP-DP-PP, TP = 2, PP = 4 on 16 GPUs: rank 5 = tp 1 + 2·dp 0 + 4·pp 1, its DP group is
        # ranks 5 and 7; the question asks for them ascending
        ("q4.dp_group", [7, 5]),
        # dp · 4 · ga = 64: dp divides 16, so (1, 2, 4, 8, 16), asked ascending
        ("q3.dp_degrees", (16, 8, 4, 2, 1)),
    ],
)
def test_the_right_items_in_another_order_are_told_so(exercise: str, answer: Any) -> None:
    """Before: the exercise's own hint ("dp × micro-batch must divide the global batch", "ranks of one DP group differ
    by TP"), which sends a learner who has every item right after wrong ones."""
    feedback = check(exercise, answer)
    assert feedback.status == "incorrect" and feedback.slip == "order"
    assert "order" in feedback.message
    assert check(exercise, sorted(answer)).correct


@pytest.mark.usefixtures("zh")
def test_the_order_hint_is_said_in_chinese() -> None:
    feedback = check("q4.dp_group", [7, 5])
    assert feedback.slip == "order" and CJK.search(feedback.message.split("：", 2)[-1])


def test_wrong_items_keep_the_exercises_own_hint() -> None:
    assert check("q4.dp_group", [5, 7, 7]).slip is None  # one item too many: not a question of order
    assert check("q4.dp_group", [5, 9]).slip is None


# --------------------------------------------------------------------------- the lab reports' lookups by name


@pytest.fixture(scope="module")
def recording() -> Any:
    from coursekit.lab import load_recorded

    return load_recorded()  # the lesson's recorded measurements: timeline of ddp, fsdp and tp; memory of 4 strategies


@pytest.mark.parametrize(
    ("call", "start", "named"),
    [
        # all were KeyError (no rule, no choices, English under zh)
        (lambda r: r.timeline.result("fsdp2"), "strategy = 'fsdp2':", "'fsdp'"),
        (lambda r: r.timeline.result("ddp", "slow"), "scenario = 'slow':", "'slow_rank'"),
        (lambda r: r.collectives.result("allreduce"), "kind = 'allreduce':", "'all_reduce'"),
        (lambda r: r.memory.largest_rank("ddp").row("activations"), "component = 'activations':", "'optimizer'"),
        # these two were "max() arg is an empty sequence", naming nothing
        (lambda r: r.memory.largest_rank("fsdp"), "strategy = 'fsdp':", "'fsdp2-zero3'"),
        (lambda r: r.memory.table("zero3"), "strategy = 'zero3':", "'fsdp2-zero3'"),
    ],
)
def test_a_lab_report_names_what_it_holds(recording: Any, call: Any, start: str, named: str) -> None:
    message = _refusal(lambda: call(recording), ValueError)
    assert message.startswith(start) and named in message


def test_a_lab_lookup_of_a_non_string_is_a_type_error(recording: Any) -> None:
    assert _refusal(lambda: recording.memory.table(["ddp"]), TypeError).startswith("strategy = ['ddp']:")  # unhashable
    assert _refusal(lambda: recording.timeline.result(None), TypeError).startswith("strategy = None:")


@pytest.mark.usefixtures("zh")
def test_a_lab_lookup_is_refused_in_chinese(recording: Any) -> None:
    assert CJK.search(_refusal(lambda: recording.timeline.result("fsdp2"), ValueError))


def test_an_empty_collectives_report_says_it_holds_nothing() -> None:
    from coursekit.lab import CollectivesReport

    empty = CollectivesReport(2, "gloo", "cpu", "spawn", "2.13.0", 5, 20)
    assert _refusal(lambda: empty.result("broadcast"), ValueError).startswith("kind = 'broadcast': ")


def test_the_lab_lookups_still_find_what_is_there(recording: Any) -> None:
    assert recording.timeline.result("tp", "slow_rank").scenario.name == "slow_rank"
    assert recording.collectives.result("all_reduce").kind == "all_reduce"
    assert recording.memory.largest_rank("ddp").row("total").component == "total"


# --------------------------------------------------------------------------- the workbench funnel shows no "-0"


def test_a_gate_that_removed_nothing_shows_zero_not_minus_zero() -> None:
    """The workbench widget's funnel wrote "-0 → 11,052" beside every gate that removed no candidate."""
    from coursekit.widgets.workbench import funnel_numbers

    assert funnel_numbers(0, 11052) == "0 → 11,052"
    assert funnel_numbers(1200, 34) == "-1,200 → 34"


def test_the_workbench_figure_shows_no_minus_zero() -> None:
    from coursekit.widgets.workbench import WorkbenchWidget

    widget = WorkbenchWidget()
    shown = [text.get_text() for ax in widget.figure.axes for text in ax.texts]
    assert any("→" in text for text in shown)  # the funnel's numbers are drawn
    assert not [text for text in shown if re.match(r"-0(?!\d)", text)]
