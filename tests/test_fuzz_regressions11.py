"""Inputs an eleventh adversarial fuzzing pass found wrong, each with the behaviour the project's rules ask for.

The pass drove the newest surfaces: chunked attention (``ModelSpec(chunk_tokens=, chunk_layers=)``, Llama 4's
``attention_chunk_size`` and ``no_rope_layers`` in a config.json, ``attention_span``, ``attended_keys``,
``decode_keys``, ``kv_token_layers``, ``replace``), FP8 serving (``ServingWorkload(precision=)``,
``serving_estimate(precision=)``, the serving command line's ``--precision``, ``--weight-bytes`` and custom-cluster
flags), the argument checks of the spec classes, and the widgets' stop sliders (``number_stops``). The rules: a count
is an ``int`` (never a bool or a float that equals one), nonsense is refused naming the parameter, the value and the
rule in the learner's language, a valid extreme input gets an answer rather than a bare Python exception, and what a
control shows is the value it holds. The expected values below follow from those rules, not from running the code.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import ServingWorkload, plan_serving
from coursekit.specs import ModelSpec
from tests.test_chunked_attention import SCOUT
from tests.test_fuzz_regressions8 import _refusal, zh  # noqa: F401 (zh: the fixture setting Chinese)
from tests.test_fuzz_regressions9 import MISTRAL_7B

CJK = re.compile(r"[\u4e00-\u9fff]")
SHAPE: dict[str, Any] = {"name": "m", "layers": 4, "hidden": 64, "heads": 4, "ffn_hidden": 128, "vocab": 100,
                         "seq_len": 8192}  # fmt: skip


# --------------------------------------------------------------------------- a layer count is an int


@pytest.mark.parametrize("kind", ["window", "chunk"])
@pytest.mark.parametrize("layers", [False, 0.0, -0.0])
def test_a_layer_count_without_tokens_must_still_be_an_int(kind: str, layers: Any) -> None:
    """Before: ``chunk_layers=False`` (or 0.0, -0.0) beside ``chunk_tokens=None`` was accepted and stored as given,
    a bool or a float where every other spec field holds an int (``chunk_layers=5`` was refused, ``True`` too)."""
    message = _refusal(lambda: ModelSpec(**SHAPE, **{f"{kind}_layers": layers}), TypeError)
    assert message.startswith(f"{kind}_layers = {layers!r}: ") and "int" in message


@pytest.mark.usefixtures("zh")
def test_the_layer_count_refusal_is_said_in_chinese() -> None:
    assert CJK.search(_refusal(lambda: ModelSpec(**SHAPE, chunk_layers=False), TypeError))


def test_no_window_and_no_chunks_are_still_the_default() -> None:
    spec = ModelSpec(**SHAPE, window_layers=0, chunk_layers=0)
    assert (spec.window_tokens, spec.window_layers, spec.chunk_tokens, spec.chunk_layers) == (None, 0, None, 0)
    assert type(spec.chunk_layers) is int and type(spec.window_layers) is int


# --------------------------------------------------------------------------- a config's 0.0 is no integer


@pytest.mark.parametrize(
    ("config", "key"),
    [
        # 0.0 and -0.0 are integer values now, read as 0 (no chunks, no window) as 32.0 reads as 32 (left-over 2 of
        # tests/test_leftovers26.py); a fraction near zero is what stays refused
        ({**SCOUT, "attention_chunk_size": 0.5}, "attention_chunk_size"),
        ({**SCOUT, "attention_chunk_size": -0.5}, "attention_chunk_size"),
        ({**MISTRAL_7B, "sliding_window": 0.5}, "sliding_window"),
        ({**MISTRAL_7B, "sliding_window": -0.5}, "sliding_window"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_float_zero_width_in_a_config_is_refused_as_other_floats_are(
    config: dict[str, Any], key: str, lang: str
) -> None:
    """Before: 0.0 equals false, so it read as "no chunks" / "no window" while 8192.0 and -1.5 were refused as not
    integers (the rule: an integer, or null / false / 0 or below for none)."""
    import coursekit

    before = coursekit.get_language()
    coursekit.set_language(lang)
    try:
        message = _refusal(lambda: ModelSpec.from_config(config), ValueError)
    finally:
        coursekit.set_language(before)
    assert f"'{key}'" in message and "0.5" in message
    assert bool(CJK.search(message)) == (lang == "zh")


@pytest.mark.parametrize(
    ("config", "fields"),
    [
        ({**SCOUT, "attention_chunk_size": 0.0}, ("chunk_tokens", "chunk_layers")),  # an integer value: 0
        ({**MISTRAL_7B, "sliding_window": -0.0}, ("window_tokens", "window_layers")),
        ({**SCOUT, "attention_chunk_size": 0}, ("chunk_tokens", "chunk_layers")),
        ({**SCOUT, "attention_chunk_size": False}, ("chunk_tokens", "chunk_layers")),
        ({**SCOUT, "attention_chunk_size": None}, ("chunk_tokens", "chunk_layers")),
        ({**MISTRAL_7B, "sliding_window": 0}, ("window_tokens", "window_layers")),
        ({**MISTRAL_7B, "sliding_window": False}, ("window_tokens", "window_layers")),
    ],
)
def test_the_integer_zero_false_and_null_still_mean_none(config: dict[str, Any], fields: tuple[str, str]) -> None:
    spec = ModelSpec.from_config(config)
    assert (getattr(spec, fields[0]), getattr(spec, fields[1])) == (None, 0)


# --------------------------------------------------------------------------- a rate no layout sustains


@pytest.mark.parametrize(
    "workload",
    [
        # the rates were 1e308 and 1e300 until fuzz pass 25 gave ServingWorkload the command line's ceiling, a
        # million requests a second (MAX_REQUEST_RATE_PER_S); a 2**53-token answer still makes rate x latency huge
        ServingWorkload(prompt_tokens=2048, output_tokens=256, request_rate_per_s=1e6),
        ServingWorkload(prompt_tokens=1, output_tokens=2**53, request_rate_per_s=1e6),
    ],
)
def test_a_huge_request_rate_is_refused_by_the_slo_gate_not_an_overflow(workload: ServingWorkload) -> None:
    """Before: OverflowError (ceil of rate × latency = infinity) from Little's law. By the rule, rate × latency
    requests must be in flight: at 10^6 requests/s and a latency of at least one decode step (2**53 of them) that is
    beyond any concurrency memory holds, so every layout is rejected, each one of the right shape with the rate
    reason."""
    result = plan_serving(MODELS["llama3-8b"], CLUSTERS["h100-8"], workload)
    assert result.accepted == ()
    shaped = [c for c in result.candidates if c.ledger is not None]
    assert shaped and all("rate" in [r.code for r in c.reasons] for c in shaped)


def test_a_modest_rate_is_still_sustained() -> None:
    workload = ServingWorkload(prompt_tokens=2048, output_tokens=256, request_rate_per_s=1.0)
    assert plan_serving(MODELS["llama3-8b"], CLUSTERS["h100-8"], workload).accepted


# --------------------------------------------------------------------------- a stop slider shows what it holds


def test_a_value_beside_a_stop_reads_differently_from_it() -> None:
    """Before: 25.001 beside the stop 25 was labelled "25" too: two "25" on one slider, the chosen one not 25."""
    from coursekit.widgets import number_stops

    options = number_stops("bandwidth_gib_s", 25.001, (10.0, 25.0, 50.0), gt=0)
    assert options == [("10", 10.0), ("25", 25.0), ("25.001", 25.001), ("50", 50.0)]
    tight = number_stops("x", 1.0000001, (1.0,), gt=0)
    assert [label for label, _ in tight] == ["1", "1.0000001"]


def test_a_stop_of_minus_zero_is_labelled_zero() -> None:
    from coursekit.widgets import number_stops

    assert number_stops("latency_us", 1.0, (-0.0, 5.0), ge=0)[0][0] == "0"


@pytest.mark.parametrize(
    ("stops", "error", "named"),
    [
        (None, TypeError, "stops = None"),
        ({1.0: 2}, TypeError, "stops = {1.0: 2}"),
        (("a",), TypeError, "stops[0] = 'a'"),
        ((1.0, float("nan")), ValueError, "stops[1] = nan"),
        ((True,), TypeError, "stops[0] = True"),
        ((-1.0,), ValueError, "stops[0] = -1.0"),  # outside the argument's own bound, ge=0
    ],
)
def test_bad_stops_are_refused_naming_them(stops: Any, error: type[Exception], named: str) -> None:
    """Before: None and "a" raised Python's own TypeError / ValueError naming nothing; NaN became a stop "nan"; True a
    stop 1; -1 a stop the argument itself refuses."""
    from coursekit.widgets import number_stops

    assert _refusal(lambda: number_stops("latency_us", 1.0, stops, ge=0), error).startswith(named)


@pytest.mark.usefixtures("zh")
def test_the_stops_refusal_is_said_in_chinese() -> None:
    from coursekit.widgets import number_stops

    stops: Any = None
    assert CJK.search(_refusal(lambda: number_stops("latency_us", 1.0, stops, ge=0), TypeError))


def test_the_widget_slider_shows_the_learners_value() -> None:
    pytest.importorskip("ipywidgets")
    from coursekit.widgets.communication import CommunicationWidget

    control = CommunicationWidget(bandwidth_gib_s=25.001).controls["bandwidth_gib_s"]
    labels = [label for label, _ in control.options]
    assert control.label == "25.001" and control.value == 25.001
    assert len(labels) == len(set(labels))


# --------------------------------------------------------------------------- keywords refused in the learner's language


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_self_as_a_keyword_is_an_unknown_argument(lang: str) -> None:
    """Before: Python's English "ModelSpec.__init__() got multiple values for argument 'self'" (the checking
    ``__init__`` and ``ModelSpec.replace`` took ``self`` by keyword too); ``PlanResult.find`` the same."""
    import coursekit
    from coursekit.planner import WorkloadSpec, plan

    before = coursekit.get_language()
    coursekit.set_language(lang)
    try:
        made = _refusal(lambda: ModelSpec(**SHAPE, self=1), TypeError)
        replaced = _refusal(lambda: ModelSpec(**SHAPE).replace(self=1), TypeError)
        result = plan(MODELS["gpt2-small"], CLUSTERS["a100-8"], WorkloadSpec(global_batch=16))
        found = _refusal(lambda: result.find(self=1), ValueError)
    finally:
        coursekit.set_language(before)
    for message in (made, replaced):
        assert message.startswith("ModelSpec ") and "'self'" in message and "name, layers" in message
    assert found.startswith("degrees = {'self': 1}")
    for message in (made, replaced, found):
        assert "multiple values" not in message and bool(CJK.search(message)) == (lang == "zh")


@pytest.mark.parametrize(
    ("strategy", "params", "named"),
    [
        ("dp", {"num_params": 1e9, "dp": 2, "degree": 2}, ("dp_traffic", "'degree'", "num_params, dp, grad_bytes")),
        ("tp", {"num_params": 1e9, "dp": 2}, ("tp_traffic", "'num_params'", "seq_len, micro_batch, hidden")),
        ("dp", {"dp": 2}, ("dp_traffic", "num_params", "num_params, dp")),  # a required one left out
        ("replica", {"replica": 2}, ("replica_traffic", "'replica'", "replicas")),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_strategy_traffic_names_a_wrong_keyword_in_the_learners_language(
    strategy: str, params: dict[str, Any], named: tuple[str, ...], lang: str
) -> None:
    """Before: Python's English "dp_traffic() got an unexpected keyword argument 'degree'" (or "missing 1 required
    keyword-only argument") from the function strategy_traffic passes its keywords on to."""
    import coursekit
    from coursekit.communication import strategy_traffic

    before = coursekit.get_language()
    coursekit.set_language(lang)
    try:
        message = _refusal(lambda: strategy_traffic(strategy, **params), TypeError)
    finally:
        coursekit.set_language(before)
    assert message.startswith(named[0] + " ") and all(part in message for part in named)
    assert "unexpected keyword" not in message and bool(CJK.search(message)) == (lang == "zh")


def test_strategy_traffic_still_passes_right_keywords_on() -> None:
    from coursekit.communication import dp_traffic, strategy_traffic

    assert strategy_traffic("dp", num_params=1e9, dp=2) == dp_traffic(num_params=1e9, dp=2)
    assert strategy_traffic("replica") == ()


# --------------------------------------------------------------------------- a note says what the estimate counts


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chunks_beside_a_window_are_noted_as_not_counted(lang: str) -> None:
    """Before: a config with both ``sliding_window`` and ``attention_chunk_size`` became a spec with the window only
    (a spec has one or the other), while its notes said of the chunks "Counted: those layers' attention FLOPs cover
    only the query-key pairs inside a chunk; in serving their KV cache holds at most 512 tokens per request"."""
    from coursekit.model_config import config_notes

    config = {**SCOUT, "sliding_window": 4096, "attention_chunk_size": 512}
    spec = ModelSpec.from_config(config)
    assert (spec.window_tokens, spec.window_layers, spec.chunk_tokens, spec.chunk_layers) == (4096, 48, None, 0)
    notes = [note.render(lang) for note in config_notes(config)]
    chunk_notes = [note for note in notes if "attention_chunk_size=512" in note]
    assert len(chunk_notes) == 1
    assert ("未计入" if lang == "zh" else "not counted") in chunk_notes[0] and "sliding_window=4096" in chunk_notes[0]
    assert not any("512 tokens per request" in note or "512 个 token" in note for note in notes)
    assert any("sliding_window=4096" in note and ("Counted" in note or "已计入" in note) for note in notes)


def test_chunks_alone_are_still_noted_as_counted() -> None:
    from coursekit.model_config import config_notes

    notes = [note.render("en") for note in config_notes({**SCOUT, "attention_chunk_size": 512})]
    assert any(note.startswith("attention_chunk_size=512 on 36 of 48 layers") and "Counted" in note for note in notes)


@pytest.mark.parametrize("factory", ["stepper", "dropdown", "slider", "checkbox", "number_stepper"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_control_key_that_is_not_a_string_is_refused_by_name(factory: str, lang: str) -> None:
    """Before: AttributeError "'NoneType' object has no attribute 'rsplit'" (the argument's name was cut from the
    key before the key was checked)."""
    pytest.importorskip("ipywidgets")
    import coursekit
    import coursekit.widgets as widgets

    calls = {
        "stepper": lambda: widgets.stepper(None, [1, 2]),  # type: ignore[arg-type]
        "dropdown": lambda: widgets.dropdown(None, [1, 2]),  # type: ignore[arg-type]
        "slider": lambda: widgets.slider(None, value=1, min=0, max=2, step=1),  # type: ignore[arg-type]
        "checkbox": lambda: widgets.checkbox(None),  # type: ignore[arg-type]
        "number_stepper": lambda: widgets.number_stepper(None, "x", 1.0, (1.0,)),  # type: ignore[arg-type]
    }
    before = coursekit.get_language()
    coursekit.set_language(lang)
    try:
        message = _refusal(calls[factory], TypeError)
    finally:
        coursekit.set_language(before)
    assert message.startswith("key = None") and bool(CJK.search(message)) == (lang == "zh")


# --------------------------------------------------------------------------- a bound that comes from another argument


@pytest.mark.parametrize(("tokens", "requests", "limit"), [(0, 2, 1), (5, 6, 5)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_too_many_requests_for_the_tokens_names_tokens(tokens: int, requests: int, limit: int, lang: str) -> None:
    """Before: "requests = 2: must be <= 1." with nothing saying the 1 is the cached tokens (each request holds at
    least one of them)."""
    import coursekit
    from coursekit.serving import kv_cache_bytes

    before = coursekit.get_language()
    coursekit.set_language(lang)
    try:
        message = _refusal(lambda: kv_cache_bytes(MODELS["llama3-8b"], tokens=tokens, requests=requests), ValueError)
    finally:
        coursekit.set_language(before)
    assert message.startswith(f"requests = {requests}") and f"<= {limit}" in message and f"tokens = {tokens}" in message
    assert bool(CJK.search(message)) == (lang == "zh")


# --------------------------------------------------------------------------- a degree is an int


@pytest.mark.parametrize(
    ("degrees", "error", "start"),
    [
        ({"tp": True}, TypeError, "tp = True"),
        ({"tp": 2.0}, TypeError, "tp = 2.0"),
        ({"tp": 2, "pp": True}, TypeError, "pp = True"),
        ({"tp": "2"}, TypeError, "tp = '2'"),
        ({"tp": 0}, ValueError, "tp = 0"),
    ],
)
def test_a_serving_plan_looks_layouts_up_by_int_degrees(degrees: dict[str, Any], error: type, start: str) -> None:
    """Before: ``candidate(tp=True)`` returned the tp=1 layout and ``candidate(tp=2.0)`` the tp=2 one (True == 1,
    2.0 == 2); "2" was "(tp, pp) = ('2', 1): must be one of ..."."""
    result = plan_serving(
        MODELS["llama3-8b"], CLUSTERS["h100-8"], ServingWorkload(prompt_tokens=128, output_tokens=16, concurrency=8)
    )
    assert _refusal(lambda: result.candidate(**degrees), error).startswith(start)
    assert (result.candidate(tp=2).tp, result.candidate(tp=2, pp=2).pp) == (2, 2)


# --------------------------------------------------------------------------- the FP8 line names the weights it serves


@pytest.mark.parametrize(("weight_bytes", "label"), [(1.0, "W8A8"), (0.5, "W4A8"), (0.25, "W2A8")])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_fp8_line_names_the_weight_width_it_serves(weight_bytes: float, label: str, lang: str) -> None:
    """Before: "FP8 (W8A8): 0.5-byte weights" — W8A8 means 8-bit weights, and --weight-bytes 0.5 (4-bit weights, the
    help's own example) serves W4A8: 8 bits per byte times the bytes per weight, activations in FP8."""
    workload = ServingWorkload(
        prompt_tokens=128, output_tokens=16, concurrency=8, precision="fp8", weight_bytes=weight_bytes
    )
    import coursekit

    before = coursekit.get_language()
    coursekit.set_language(lang)
    try:
        line = plan_serving(MODELS["llama3-8b"], CLUSTERS["h100-8"], workload).report(top=0).splitlines()[1]
    finally:
        coursekit.set_language(before)
    assert line.startswith(f"FP8 ({label})") and f"{weight_bytes:g}" in line
