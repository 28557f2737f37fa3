"""The workbench's serving mode: serving defaults, defined terms, coursekit.serving's search and trade-off."""

from __future__ import annotations

import pytest

import coursekit
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import ServingPlanResult, ServingWorkload, plan_serving
from coursekit.widgets.workbench import (
    SERVING_DEFAULT_CONCURRENCY,
    SERVING_DEFAULT_PROMPT_TOKENS,
    SERVING_OUTPUT_TOKENS,
    WorkbenchWidget,
)


@pytest.fixture
def widget() -> WorkbenchWidget:
    coursekit.set_language("en")
    w = WorkbenchWidget()
    with w.hold_updates():
        w.controls["nodes"].value = 1
    return w


def test_serving_mode_uses_serving_defaults_and_the_serving_search(widget: WorkbenchWidget) -> None:
    widget.controls["mode"].value = "serving"
    assert widget.controls["global_batch"].value == SERVING_DEFAULT_CONCURRENCY
    assert widget.controls["seq_len"].value == SERVING_DEFAULT_PROMPT_TOKENS
    assert widget.controls["global_batch"].description == "concurrent requests"
    assert widget.status == "ok" and isinstance(widget.result, ServingPlanResult)
    expected = plan_serving(
        MODELS["llama3-70b"],
        CLUSTERS["h100-8"],
        ServingWorkload(
            prompt_tokens=SERVING_DEFAULT_PROMPT_TOKENS,
            output_tokens=SERVING_OUTPUT_TOKENS,
            concurrency=SERVING_DEFAULT_CONCURRENCY,
        ),
    )
    assert [(c.tp, c.pp, c.accepted) for c in widget.result.candidates] == [
        (c.tp, c.pp, c.accepted) for c in expected.candidates
    ]
    assert expected.accepted  # the defaults make sense: some layout serves them
    # The planner's serving mode on the same controls ranks the same layouts the same way (one serving estimate).
    planner = plan(
        MODELS["llama3-70b"],
        CLUSTERS["h100-8"],
        WorkloadSpec(
            global_batch=SERVING_DEFAULT_CONCURRENCY,
            seq_len=SERVING_DEFAULT_PROMPT_TOKENS,
            mode="serving",
            output_tokens=SERVING_OUTPUT_TOKENS,
        ),
    )
    assert [(c.replicas, c.tp, c.pp) for c in planner.accepted()] == [
        (c.replicas, c.tp, c.pp) for c in widget.result.accepted
    ]
    message = widget.message
    assert "TTFT = time to first token" in message and "TPOT = time per output token" in message
    assert "lower-bound" in message and "Batch against latency" in message


def test_back_to_training_restores_the_training_values(widget: WorkbenchWidget) -> None:
    before = (widget.controls["global_batch"].value, widget.controls["seq_len"].value)
    widget.controls["mode"].value = "serving"
    widget.controls["mode"].value = "training"
    assert (widget.controls["global_batch"].value, widget.controls["seq_len"].value) == before
    assert widget.controls["global_batch"].description != "concurrent requests"
    assert widget.result is not None and widget.result.workload.mode == "training"


def test_serving_mode_with_too_many_requests_names_the_shortfall(widget: WorkbenchWidget) -> None:
    with widget.hold_updates():
        widget.controls["model"].value = "llama3-405b"
        widget.controls["mode"].value = "serving"
    assert widget.status == "ok"
    assert "No layout fits" in widget.message


def test_serving_mode_speaks_chinese(widget: WorkbenchWidget) -> None:
    coursekit.set_language("zh")
    try:
        widget.controls["mode"].value = "serving"
        assert "首 token 时间" in widget.message and "下界" in widget.message
    finally:
        coursekit.set_language("en")


def test_serving_mode_verdict_level(widget: WorkbenchWidget) -> None:
    widget.controls["mode"].value = "serving"
    assert isinstance(widget.result, ServingPlanResult) and widget.result.accepted
    assert widget.verdict == "pass" and "Pass: " in widget.message_html.value
    # Llama 3 405B: 405e9 x 2 bytes of bf16 weights = 754 GiB, more than one node's 8 x 80 GiB.
    widget.controls["model"].value = "llama3-405b"
    assert isinstance(widget.result, ServingPlanResult) and not widget.result.accepted
    assert widget.verdict == "fail" and "coursekit-fail" in widget.message_html.value
    assert "Fail: " in widget.message_html.value and "No layout fits" in widget.message
