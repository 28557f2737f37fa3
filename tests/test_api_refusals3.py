"""Refusals that teach, round 3: each bad input is a TypeError / ValueError naming the parameter, the value and
the rule in the learner's language; a widget shows it instead of a traceback.

Covers :meth:`coursekit.planner.PlanResult.explain_ties` (a tie group that does not exist),
:func:`coursekit.gates.max_dp_degree` and :func:`coursekit.gates.dp_degrees_for_batch` (one answer for a micro-batch
that does not divide the global batch), :class:`coursekit.lab.TinyTransformerConfig` (every field, and a keyword
that is not one) and every lesson widget's ``compute`` called with values its controls do not offer.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Iterator
from typing import Any

import ipywidgets
import pytest

import coursekit
from coursekit.gates import dp_degrees_for_batch, max_dp_degree
from coursekit.lab import TinyTransformerConfig, parameter_layout
from coursekit.lab.tiny_config import MAX_ACTIVATION_ELEMENTS, MAX_LAYERS, MAX_PARAMETERS
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS

CJK = re.compile(r"[\u4e00-\u9fff]")


def _refusal(call: Any) -> BaseException:
    """The TypeError / ValueError ``call`` raises (the test fails if it returns or raises anything else)."""
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    return info.value


def _names(message: str, *parts: str) -> None:
    for part in parts:
        assert part in message, (part, message)


# --------------------------------------------------------------------------- explain_ties: which group


@pytest.fixture(scope="module")
def training() -> Any:
    """Lesson 9's plan: Llama 3 70B on 16 H100 nodes, global batch 1024 (many tie groups)."""
    return plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16), WorkloadSpec(global_batch=1024))


def test_a_tie_group_past_the_last_is_refused_with_the_count(training: Any) -> None:
    groups = training.tie_groups()
    assert len(groups) >= 2
    for group in (len(groups) + 1, 99):
        error = _refusal(lambda group=group: training.explain_ties(group))
        assert isinstance(error, ValueError)
        _names(str(error), f"group = {group}", str(len(groups)))
    # the last group exists: its first row is its fastest
    last = training.explain_ties(len(groups), every_member=True)
    assert [row.index for row in last] == groups[-1]
    coursekit.set_language("zh")
    message = str(_refusal(lambda: training.explain_ties(len(groups) + 1)))
    assert CJK.search(message) and f"group = {len(groups) + 1}" in message and str(len(groups)) in message


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"group": 0}, ValueError, "group = 0"),
        ({"group": True}, TypeError, "group = True"),
        ({"group": 1.0}, TypeError, "group = 1.0"),
        ({"group": 1, "top": -1}, ValueError, "top = -1"),
        ({"group": 1, "top": "3"}, TypeError, "top = '3'"),
        ({"group": 1, "every_member": 1}, TypeError, "every_member = 1"),
        ({"group": 1, "every_member": "yes"}, TypeError, "every_member = 'yes'"),
    ],
)
def test_explain_ties_checks_each_argument(training: Any, kwargs: dict[str, Any], error: type, name: str) -> None:
    refused = _refusal(lambda: training.explain_ties(**kwargs))
    assert isinstance(refused, error)
    assert name in str(refused)


def test_top_keeps_the_first_rows(training: Any) -> None:
    every = training.explain_ties(1, every_member=True)
    assert len(every) >= 3
    assert training.explain_ties(1, top=2, every_member=True) == every[:2]
    assert training.explain_ties(1, top=0) == []


def test_a_plan_with_nothing_accepted_has_no_rows_and_no_second_group() -> None:
    # one node of 8 GPUs cannot hold Llama 3 70B's training state: nothing is accepted, so there are no ties
    result = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(1), WorkloadSpec(global_batch=1))
    assert result.accepted_count == 0 and result.tie_groups() == []
    assert result.explain_ties(1) == []  # group 1 is always allowed: a report asks for it without checking
    message = str(_refusal(lambda: result.explain_ties(2)))
    _names(message, "group = 2")


def test_a_serving_plan_explains_no_ties_but_refuses_a_missing_group() -> None:
    serving = WorkloadSpec(global_batch=64, seq_len=2048, mode="serving")
    result = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16), serving)
    groups = result.tie_groups()
    assert groups and result.explain_ties(1) == []
    assert result.explain_ties(len(groups)) == []
    message = str(_refusal(lambda: result.explain_ties(len(groups) + 1)))
    _names(message, f"group = {len(groups) + 1}", str(len(groups)))


# --------------------------------------------------------------------------- the DP degrees a batch admits


@pytest.mark.parametrize(("global_batch", "micro_batch"), [(64, 3), (10, 4), (7, 2), (1, 2), (1536, 5)])
def test_no_dp_degree_is_one_refusal_from_both(global_batch: int, micro_batch: int) -> None:
    # dp · micro_batch · accumulation = global_batch has no solution in whole numbers, not even dp = 1
    assert all(global_batch % (dp * micro_batch) for dp in range(1, global_batch + 1))
    for lang in ("en", "zh"):
        coursekit.set_language(lang)
        listed = _refusal(lambda: dp_degrees_for_batch(global_batch, micro_batch))
        largest = _refusal(lambda: max_dp_degree(global_batch, micro_batch))
        assert isinstance(listed, ValueError) and isinstance(largest, ValueError)
        assert str(listed) == str(largest)
        _names(str(listed), f"micro_batch = {micro_batch}", "global_batch", str(global_batch))
        assert (lang == "zh") == bool(CJK.search(str(listed)))


@pytest.mark.parametrize(("global_batch", "micro_batch"), [(64, 4), (64, 1), (1536, 2), (7, 7)])
def test_admissible_batches_agree_on_the_largest_degree(global_batch: int, micro_batch: int) -> None:
    degrees = dp_degrees_for_batch(global_batch, micro_batch)
    expected = tuple(dp for dp in range(1, global_batch + 1) if global_batch % (dp * micro_batch) == 0)
    assert degrees == expected and degrees
    assert max(degrees) == max_dp_degree(global_batch, micro_batch) == global_batch // micro_batch


# --------------------------------------------------------------------------- the lab's tiny transformer

INT_FIELDS = ("d_model", "heads", "d_ff", "layers", "classes", "seq_len", "batch", "seed")


def test_a_keyword_that_is_not_a_field_is_named_with_the_fields() -> None:
    for lang in ("en", "zh"):
        coursekit.set_language(lang)
        error = _refusal(lambda: TinyTransformerConfig(hidden=0))
        assert isinstance(error, TypeError)
        _names(str(error), "hidden = 0", *INT_FIELDS)
        assert "unexpected keyword" not in str(error)
        assert (lang == "zh") == bool(CJK.search(str(error)))


def test_too_many_positional_arguments_are_refused() -> None:
    error = _refusal(lambda: TinyTransformerConfig(64, 8, 256, 2, 5, 8, 4, 0, 1))
    assert isinstance(error, TypeError)
    _names(str(error), "9", *INT_FIELDS)


@pytest.mark.parametrize("name", INT_FIELDS)
@pytest.mark.parametrize("value", [True, 8.0, "8", None, math.nan, [8]])
def test_every_field_must_be_an_int(name: str, value: Any) -> None:
    error = _refusal(lambda: TinyTransformerConfig(**{name: value}))
    assert isinstance(error, TypeError)
    assert str(error).startswith(f"{name} = ")


@pytest.mark.parametrize("name", INT_FIELDS)
def test_every_size_is_positive_and_the_seed_not_negative(name: str) -> None:
    low = 0 if name == "seed" else 1
    error = _refusal(lambda: TinyTransformerConfig(**{name: low - 1}))
    assert isinstance(error, ValueError)
    _names(str(error), f"{name} = {low - 1}", f">= {low}")


def test_heads_must_divide_the_hidden_size() -> None:
    error = _refusal(lambda: TinyTransformerConfig(d_model=64, heads=6))
    _names(str(error), "heads = 6", "d_model", "64")
    assert TinyTransformerConfig(d_model=48, heads=6).heads == 6


def test_the_layers_are_bounded() -> None:
    assert TinyTransformerConfig(layers=MAX_LAYERS).layers == MAX_LAYERS
    _names(str(_refusal(lambda: TinyTransformerConfig(layers=MAX_LAYERS + 1))), f"layers = {MAX_LAYERS + 1}")
    _names(str(_refusal(lambda: TinyTransformerConfig(layers=2**60))), "layers = ")


def _parameters(d: int, f: int, layers: int, classes: int) -> int:
    """The lab model's parameters, counted from its architecture (lesson 8): per block two LayerNorms, q/k/v/o
    with biases and a two-layer MLP with biases; then the head's LayerNorm and its linear layer."""
    return layers * (2 * 2 * d + 4 * (d * d + d) + (d * f + f) + (f * d + d)) + 2 * d + (d * classes + classes)


@pytest.mark.parametrize(
    ("d_model", "d_ff", "layers"),
    [(512, 2048, 2), (1024, 4096, 1), (256, 1024, 64), (384, 1536, 64)],
)
def test_the_model_stays_small(d_model: int, d_ff: int, layers: int) -> None:
    count = _parameters(d_model, d_ff, layers, 5)
    if count <= MAX_PARAMETERS:
        config = TinyTransformerConfig(d_model=d_model, d_ff=d_ff, layers=layers)
        assert sum(spec.numel for spec in parameter_layout(config)) == count
    else:
        error = _refusal(lambda: TinyTransformerConfig(d_model=d_model, d_ff=d_ff, layers=layers))
        assert isinstance(error, ValueError)
        _names(str(error), f"d_model = {d_model}", f"d_ff = {d_ff}", f"layers = {layers}", f"{count:,}")


@pytest.mark.parametrize(
    ("batch", "seq_len", "d_ff"), [(4, 2048, 256), (64, 512, 256), (1, 1024, 256), (1024, 8, 1024), (512, 8, 256)]
)
def test_the_activations_stay_small(batch: int, seq_len: int, d_ff: int) -> None:
    heads = 8
    largest = max(batch * heads * seq_len**2, batch * seq_len * max(64, d_ff))  # attention scores, MLP activation
    if largest <= MAX_ACTIVATION_ELEMENTS:
        assert TinyTransformerConfig(batch=batch, seq_len=seq_len, d_ff=d_ff).seq_len == seq_len
    else:
        error = _refusal(lambda: TinyTransformerConfig(batch=batch, seq_len=seq_len, d_ff=d_ff))
        assert isinstance(error, ValueError)
        _names(str(error), f"batch = {batch}", f"seq_len = {seq_len}", f"{largest:,}")


def test_tiny_config_refusals_speak_chinese() -> None:
    coursekit.set_language("zh")
    for kwargs in ({"d_model": 0}, {"d_model": 4096}, {"seq_len": 4096}, {"layers": 100}, {"heads": 5}):
        message = str(_refusal(lambda kwargs=kwargs: TinyTransformerConfig(**kwargs)))
        assert CJK.search(message), message
        assert next(iter(kwargs)) in message


# --------------------------------------------------------------------------- widgets: compute() called directly

WIDGETS = [
    ("capacity", "CapacityWidget"),
    ("communication", "CommunicationWidget"),
    ("composition", "CompositionWidget"),
    ("gates", "GatesWidget"),
    ("matrix", "MatrixWidget"),
    ("pipeline", "PipelineWidget"),
    ("roofline", "RooflineWidget"),
    ("scaling", "ScalingWidget"),
    ("serving", "ServingWidget"),
    ("workbench", "WorkbenchWidget"),
]


@pytest.fixture(scope="module", params=WIDGETS, ids=[name for _, name in WIDGETS])
def widget(request: pytest.FixtureRequest) -> Iterator[Any]:
    module, name = request.param
    yield getattr(importlib.import_module(f"coursekit.widgets.{module}"), name)()


def _option_values(control: Any) -> list[Any]:
    return [o[1] if isinstance(o, tuple) and len(o) == 2 else o for o in control.options]


def _offered(options: list[Any], value: Any) -> bool:
    """Whether ``value`` is one of ``options`` (True is not 1; NaN is nothing)."""
    for option in options:
        if isinstance(option, bool) != isinstance(value, bool):
            continue
        try:
            if option == value:
                return True
        except Exception:
            continue
    return False


def _never_offered(control: Any) -> list[Any]:
    """Values ``control`` cannot hold, derived from what it offers: not an option, outside the range, not a bool."""
    candidates: list[Any]
    if isinstance(control, ipywidgets.widgets.widget_selection._Selection):
        options = _option_values(control)
        numbers = [o for o in options if isinstance(o, (int, float)) and not isinstance(o, bool)]
        candidates = ["not-an-option", None, math.nan, math.inf, True, [1], -1]
        if numbers:
            candidates += [max(numbers) * 2 + 1, min(numbers) - 1, max(numbers) + 0.5]
        return [value for value in candidates if not _offered(options, value)]
    if isinstance(control, ipywidgets.Checkbox):
        return [1, 0, "yes", None, math.nan]
    if isinstance(control, (ipywidgets.IntSlider, ipywidgets.FloatSlider)):
        candidates = ["x", str(control.value), None, math.nan, math.inf, True, [control.value]]
        candidates += [control.max + control.step, control.min - control.step]
        if isinstance(control, ipywidgets.IntSlider):
            candidates.append(control.value + 0.5)
        return candidates
    if isinstance(control, ipywidgets.IntText):
        return ["x", None, math.nan, 2.5, True]
    if isinstance(control, ipywidgets.FloatText):
        return ["x", None, math.nan, math.inf, True]
    return []


def test_compute_refuses_every_value_no_control_offers(widget: Any) -> None:
    start = widget.values()
    checked = 0
    for name, control in widget.controls.items():
        for bad in _never_offered(control):
            error = _refusal(lambda name=name, bad=bad: widget.compute(**{**start, name: bad}))
            assert str(error).startswith(f"{name} = "), (name, bad, str(error))
            checked += 1
    assert checked >= 5 * len(widget.controls)
    assert widget.values() == start


def test_compute_names_a_missing_or_unknown_control(widget: Any) -> None:
    start = widget.values()
    first = next(iter(start))
    missing = {key: value for key, value in start.items() if key != first}
    _names(str(_refusal(lambda: widget.compute(**missing))), first)
    _names(str(_refusal(lambda: widget.compute(**start, not_a_control=1))), "not_a_control")


def test_compute_accepts_the_values_the_controls_hold(widget: Any) -> None:
    assert widget.status == "ok"
    assert widget.compute(**widget.values()) is not None


def test_the_widget_shows_the_refusal_in_its_message_box(widget: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """What update() shows when compute is handed a value no control offers: the localized message, no traceback."""
    start = widget.values()
    name, control = next((n, c) for n, c in widget.controls.items() if _never_offered(c))
    bad = _never_offered(control)[0]
    try:
        for lang in ("en", "zh"):
            coursekit.set_language(lang)
            monkeypatch.setattr(widget, "values", lambda: {**start, name: bad})
            widget.redraw()
            assert widget.status == "invalid" and widget.result is None
            # named as the learner sees it: by the control's label where it has one, else by the argument's name
            label = str(control.description or "").strip() or name
            assert f"{label} = " in widget.message
            assert "Traceback" not in widget.message_html.value and "coursekit-invalid" in widget.message_html.value
            assert (lang == "zh") == bool(CJK.search(widget.message))
            assert widget.last_error is not None and isinstance(widget.last_error, (TypeError, ValueError))
    finally:
        monkeypatch.undo()
        coursekit.set_language("en")
        widget.redraw()
    assert widget.status == "ok"


def test_a_dropdown_value_equal_to_an_option_is_that_option() -> None:
    from coursekit.widgets.capacity import CapacityWidget

    w = CapacityWidget()
    values = {**w.values(), "dp": float(w.values()["dp"])}
    checked = w.check_values(values)
    assert checked["dp"] == values["dp"] and type(checked["dp"]) is int
