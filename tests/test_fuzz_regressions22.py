"""Regressions from the twenty-second adversarial fuzzing pass: a learner's own model (Hugging Face config.json shapes
of many families, then each key set to null, a string, a bool, NaN, an infinity, a negative, zero or a huge value),
the command line's ``--model-config`` files and custom-cluster flags, and sums that must add up as printed.

Found and fixed:

1. ``plan --explain``'s step line printed each second rounded to 3 places on its own: in 46 of 140 seeded candidates
   the step was 0.001 s off the sum of its printed parts ("step 13.833 = compute 13.793 + 0.040 + 0.000" with the
   parts summing to 13.833 only by luck elsewhere). The parts are now printed at the fewest places (3, or 4 where 3
   do not add up, more only for a tiny nonzero part) at which they add up, else moved by at most one unit of the last
   place (``coursekit.planner.result.step_line_parts``); the communication total is the exposed part plus the hidden
   part as printed.
2. Lesson 1's capacity widget printed its five parts (parameters, gradients, optimizer state, activations, reserve)
   each rounded to 0.01 GiB on its own: in 133 of 297 random states they were 0.01 GiB off the total the ledger's
   sentence printed just above ("Needs 26.37 GiB" with parts summing to 26.38). They now add up
   (``coursekit.widgets.capacity.breakdown_parts``).
"""

from __future__ import annotations

import html
import random
import re
from decimal import Decimal
from typing import Any

import ipywidgets
import pytest

from coursekit import i18n
from coursekit.planner import WorkloadSpec, plan
from coursekit.planner.result import step_line_parts
from coursekit.presets import CLUSTERS, MODELS
from coursekit.scaling import StepTimeline
from coursekit.widgets.capacity import CapacityWidget

TAG = re.compile(r"<[^>]+>")


@pytest.fixture(autouse=True)
def _english_after() -> Any:
    yield
    i18n.set_language("en")


def _text(html_text: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(TAG.sub(" ", html_text))).strip()


def _adds_up(parts: list[str], total: str) -> bool:
    return sum(Decimal(x) for x in parts) == Decimal(total)


def _places(number: str) -> int:
    return len(number.split(".")[1]) if "." in number else 0


# ---------------------------------------------------------------------------------------------------------------------
# Part 1: sums that add up as printed
# ---------------------------------------------------------------------------------------------------------------------

_STEP = {
    "en": re.compile(
        r"Estimated step ([\d.]+) s = compute ([\d.]+) \+ exposed communication ([\d.]+) \+ bubble ([\d.]+)"
        r"(?: \+ waiting for the host to launch MoE layers ([\d.]+))? \(communication ([\d.]+) s, ([\d.]+) s hidden"
    ),
    "zh": re.compile(
        r"估算步时 ([\d.]+) s = 计算 ([\d.]+) \+ 暴露的通信 ([\d.]+) \+ 气泡 ([\d.]+)"
        r"(?: \+ 等待主机发射 MoE 层 ([\d.]+))? （通信共 ([\d.]+) s，其中 ([\d.]+) s 藏在计算下"
    ),
}


def test_the_planners_step_line_adds_up_as_printed() -> None:
    """``plan --explain``: step = compute + exposed communication + bubble (+ host wait) in the digits printed, and
    communication = exposed + hidden (the timeline's own rule, coursekit.scaling.StepTimeline). Each printed value is
    its estimate rounded to the places shown, a part moved by at most one unit of the last place (the rule of
    coursekit.units.parts_adding_up), the totals at most half a unit. Rounded each on its own to 3 places, 46 of these
    140 lines were 0.001 s off."""
    rng = random.Random(4)
    checked = 0
    for _ in range(16):
        model = MODELS[rng.choice(["llama3-8b", "llama3-70b", "mixtral-8x7b", "deepseek-v2-lite", "gpt2-small"])]
        cluster = CLUSTERS[rng.choice(["h100-8", "a100-8", "b200-8", "pcie-24g-8"])].with_nodes(rng.choice([1, 2, 4]))
        lang = rng.choice(["en", "zh"])
        i18n.set_language(lang)
        try:
            result = plan(model, cluster, WorkloadSpec(global_batch=rng.choice([64, 256]), seq_len=4096))
        except ValueError:
            continue
        for cand in result.accepted(top=10):
            shown = _STEP[lang].search(cand.explain())
            assert shown is not None, cand.explain()
            step, compute, exposed, bubble, host, comm, hidden = shown.groups()
            parts = [compute, exposed, bubble] + ([host] if host is not None else [])
            assert _adds_up(parts, step), shown.group(0)
            assert _adds_up([exposed, hidden], comm), shown.group(0)
            t = cand.timeline
            assert t is not None
            unit = Decimal(10) ** -_places(step)
            assert all(_places(x) == _places(step) for x in (*parts, comm, hidden)), shown.group(0)
            assert abs(Decimal(step) - Decimal(t.step_s)) <= unit / 2 + Decimal("1e-12"), shown.group(0)
            assert abs(Decimal(comm) - Decimal(t.communication_s)) <= unit / 2 + Decimal("1e-12"), shown.group(0)
            values = [t.compute_s, t.exposed_communication_s, t.bubble_s] + ([t.host_wait_s] if host else [])
            for text, value in zip([*parts, hidden], [*values, t.hidden_communication_s], strict=True):
                assert abs(Decimal(text) - Decimal(value)) < unit * Decimal("1.5"), (text, value)
            assert _places(step) <= 5, shown.group(0)  # 3 places, or one more; 5 only for a tiny part
            checked += 1
    assert checked >= 100


def test_step_line_parts_at_a_line_that_did_not_add_up() -> None:
    """Hand-made timeline: 1.0004 + 0.2004 + 0.1004 = 1.3012 s. At 3 places each part prints 1.000, 0.200, 0.100,
    summing to 1.300 while the step prints 1.301; at 4 places they add up, and so does communication 0.2004 + 0.2996 =
    0.5000."""
    t = StepTimeline(compute_s=1.0004, communication_s=0.5, exposed_communication_s=0.2004,
                     hidden_communication_s=0.2996, bubble_s=0.1004, input_wait_s=0.0, step_s=1.3012)  # fmt: skip
    shown = step_line_parts(t)
    assert (shown["step_s"], shown["compute_s"], shown["exposed_s"], shown["bubble_s"]) == (
        "1.3012", "1.0004", "0.2004", "0.1004",
    )  # fmt: skip
    assert (shown["comm_s"], shown["hidden_s"]) == ("0.5000", "0.2996")
    # a tiny nonzero part keeps a digit: 2e-6 s of bubble is not printed as 0.000
    tiny = StepTimeline(compute_s=0.5, communication_s=0.0, exposed_communication_s=0.0, hidden_communication_s=0.0,
                        bubble_s=2e-6, input_wait_s=0.0, step_s=0.500002)  # fmt: skip
    shown = step_line_parts(tiny)
    assert shown["bubble_s"] == "0.000002" and shown["step_s"] == "0.500002", shown
    with pytest.raises(ValueError, match="input_wait_s"):
        step_line_parts(StepTimeline(1.0, 0.0, 0.0, 0.0, 0.0, input_wait_s=0.5, step_s=1.5))
    with pytest.raises(TypeError, match="timeline"):
        step_line_parts("1.0 s")  # type: ignore[arg-type]


_CAPACITY = {
    "en": (
        re.compile(r"Needs ([\d.]+) GiB of ([\d.]+) GiB device memory"),
        re.compile(
            r"parameters ([\d.]+) \+ gradients ([\d.]+) \+ optimizer state ([\d.]+) \+ activations ([\d.]+) "
            r"\(micro-batches in flight: \d+\) \+ reserve ([\d.]+) GiB"
        ),
    ),
    "zh": (
        re.compile(r"需要 ([\d.]+) GiB，设备显存 ([\d.]+) GiB"),
        re.compile(
            r"参数 ([\d.]+) \+ 梯度 ([\d.]+) \+ 优化器状态 ([\d.]+) \+ 激活 ([\d.]+)（\d+ 个微批次在途）"
            r"\+ 预留 ([\d.]+) GiB"
        ),
    ),
}


def _choices(control: ipywidgets.ValueWidget) -> list[Any]:
    """A dropdown's or selection slider's options; a slider's two ends and its middle step."""
    if hasattr(control, "_options_values"):
        return list(control._options_values)
    low, high, step = control.min, control.max, control.step
    middle = low + round((high - low) / 2 / step) * step
    return [low, middle, high]


def test_the_capacity_widgets_parts_add_up_to_its_total() -> None:
    """Lesson 1's widget, 150 seeded random states in each language: parameters + gradients + optimizer state +
    activations + reserve, as printed, equal the "Needs ... GiB" total printed above them (133 of 297 states were 0.01
    GiB off), each part within one unit of the last place (0.01 GiB) of its own value."""
    checked = 0
    for lang in ("en", "zh"):
        i18n.set_language(lang)
        widget = CapacityWidget()
        rng = random.Random(2)
        for _ in range(150):
            with widget.hold_updates():
                for control in widget.controls.values():
                    control.value = rng.choice(_choices(control))
            text = _text(widget.message)
            verdict, parts = (pattern.search(text) for pattern in _CAPACITY[lang])
            if verdict is None or parts is None:
                continue
            assert _adds_up(list(parts.groups()), verdict.group(1)), (verdict.group(0), parts.group(0))
            view = widget.compute(**widget.values())
            exact = (view.state.params_gib, view.state.grads_gib, view.state.optimizer_gib, view.activation_gib,
                     view.reserve_gib)  # fmt: skip
            for text_part, value in zip(parts.groups(), exact, strict=True):
                assert abs(Decimal(text_part) - Decimal(value)) < Decimal("0.01"), (text_part, value)
            checked += 1
    assert checked >= 250
