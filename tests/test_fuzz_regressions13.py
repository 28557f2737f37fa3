"""Inputs a thirteenth adversarial fuzzing pass found wrong, each with the behaviour the project's rules ask for.

The pass aimed at what the earlier ones skip: functions exported only from submodules, dataclass constructors,
methods of the specs and results, ``--explain``/``--layout`` strings and widget controls set in code. The rules: bad
input is a ``TypeError``/``ValueError`` naming the parameter, the value and the rule, in the learner's language; no
negative bytes, NaN or infinity comes back as a result; a widget never puts a traceback in the notebook; an empty or
oddly written command-line value exits 2 with one line. The expected values follow from those rules or a hand count.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np
import pytest

from coursekit.activations import korthikanti_widths, layer_activation_ledger
from coursekit.planner import WorkloadSpec, plan, tie_groups
from coursekit.planner.estimate import moe_host_wait_s
from coursekit.presets import CLUSTERS, MODELS
from tests.test_fuzz_regressions8 import _refusal, zh  # noqa: F401 (zh: the fixture setting Chinese)
from tests.test_fuzz_regressions12 import _cli

CJK = re.compile(r"[\u4e00-\u9fff]")
LLAMA = MODELS["llama3-8b"]


# --------------------------------------------------------------------------- numpy scalars are numbers


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: LLAMA.attention_span(np.int64(-100)), "seq_len"),
        (lambda: LLAMA.kv_token_layers(np.int64(-1024)), "tokens"),
        (lambda: LLAMA.logits_bytes(np.float64(-1024)), "tokens"),
        (lambda: LLAMA.logits_bytes(1024, np.int64(0)), "shards"),
        (lambda: LLAMA.stage_dense_params(np.int64(-3)), "pp"),
        (lambda: LLAMA.kv_cache_elements_per_token(np.int64(-2)), "tp"),
        (lambda: LLAMA.attended_keys(np.float64(-7.5)), "position"),
        (lambda: LLAMA.kv_width_per_rank(np.int64(0)), "tp"),
    ],
)
def test_a_numpy_scalar_is_checked_as_the_number_it_holds(call: Any, name: str) -> None:
    """Indexing an array gives a numpy scalar; it was taken for a column and returned negative or infinite sizes."""
    message = _refusal(call, ValueError)
    assert message.startswith(f"{name} = ") and CJK.search(message)


def test_a_nan_numpy_scalar_is_refused_by_name() -> None:
    assert _refusal(lambda: LLAMA.kv_width_per_rank(np.float32("nan")), TypeError).startswith("tp = ")


def test_numpy_scalars_and_arrays_give_what_plain_numbers_give() -> None:
    """The fix checks scalars; arrays (the search's columns) still pass, and the answers agree: 4096 tokens of
    Llama 3 8B's full attention span 4096 keys, and its logits at 4 bytes x 128256 entries per token."""
    assert LLAMA.attention_span(np.int64(4096)) == LLAMA.attention_span(4096) == 4096
    assert LLAMA.attention_span(np.array([4096, 8192])).tolist() == [4096, 8192]
    assert LLAMA.logits_bytes(np.int64(2)) == LLAMA.logits_bytes(2) == 2 * 4 * 128256


# --------------------------------------------------------------------------- results that overflowed


def test_sizes_that_would_overflow_to_infinity_are_refused() -> None:
    assert "tokens = " in _refusal(lambda: LLAMA.logits_bytes(1e308), ValueError)
    assert "host_s = " in _refusal(lambda: moe_host_wait_s(0.01, 1e308, 4), ValueError)
    assert "host_s = " in _refusal(lambda: moe_host_wait_s([0.01], [1e300], 4), ValueError)
    # 1536 layer passes waiting 9.4 - 5.0 = 4.4 ms each: 6.7584 s, as before
    assert moe_host_wait_s(0.005, 0.0094, 1536) == pytest.approx(6.7584)


# --------------------------------------------------------------------------- LayerWidths checks its fields


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("value", "kind"),
    [(-1024, ValueError), ("1024", TypeError), (10**400, ValueError), (float("nan"), ValueError), (None, TypeError)],
)
def test_layer_widths_refuse_a_bad_hidden_width_by_name(value: Any, kind: type[Exception]) -> None:
    """Through layer_activation_ledger a width of -1024 gave negative bytes; a string a bare Python TypeError."""
    widths = korthikanti_widths(hidden=1024, heads=16)
    message = _refusal(lambda: dataclasses.replace(widths, hidden=value), kind)
    assert message.startswith("hidden = ") and CJK.search(message)


def test_layer_widths_refuse_a_non_bool_flag() -> None:
    widths = korthikanti_widths(hidden=1024, heads=16)
    assert _refusal(lambda: dataclasses.replace(widths, dropout=1), TypeError).startswith("dropout = ")


def test_valid_widths_still_give_korthikantis_bytes() -> None:
    """Korthikanti et al.'s 34·s·b·h + 5·a·s²·b bytes per layer, worked by hand for h 1024, a 16, s 2048, b 1."""
    ledger = layer_activation_ledger(korthikanti_widths(hidden=1024, heads=16), seq_len=2048, micro_batch=1)
    assert sum(ledger.values()) == 34 * 2048 * 1024 + 5 * 16 * 2048**2
    for model in MODELS.values():  # every preset's widths pass their own checks
        model.layer_widths("moe" if model.is_moe else "dense")


# --------------------------------------------------------------------------- arguments numpy used to answer


@pytest.mark.usefixtures("zh")
def test_recompute_modules_as_a_numpy_array_is_refused_by_name() -> None:
    for value in (np.array(["moe_act", "layernorm"]), np.array(["moe_act"])):
        message = _refusal(lambda v=value: WorkloadSpec(global_batch=8, recompute_modules=v), TypeError)
        assert message.startswith("recompute_modules = ") and CJK.search(message)


def test_layer_widths_kind_as_an_array_is_refused_by_name() -> None:
    assert _refusal(lambda: LLAMA.layer_widths(np.array([1, 2])), TypeError).startswith("kind = ")


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize("value", [None, 3.0, "12", {"a": 1.0}])
def test_tie_groups_refuse_what_is_not_a_sequence(value: Any) -> None:
    """A string was read character by character, a dict by its keys, None as Python's 'not iterable'."""
    message = _refusal(lambda: tie_groups(value, 0.1), TypeError)
    assert message.startswith("step_s = ") and CJK.search(message)


def test_tie_groups_still_group_a_numpy_column() -> None:
    # 1.05 is within 10 % of 1.0, 2.0 is not
    assert tie_groups(np.array([1.0, 1.05, 2.0]), 0.1) == [[0, 1], [2]]


def test_find_refuses_a_huge_recompute_by_name() -> None:
    result = plan(MODELS["gpt2-small"], CLUSTERS["a100-8"], WorkloadSpec(global_batch=16))
    assert _refusal(lambda: result.find(recompute=10**5000), TypeError).startswith("recompute = ")


# --------------------------------------------------------------------------- the command line's degrees


def _run(argv: list[str]) -> tuple[int, str]:
    code, out, err = _cli(argv)
    return code, out + err


PLAN = ["plan", "--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16", "--top", "1"]


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--explain", ""),
        ("--explain", ",,,"),
        ("--layout", ""),
        ("--layout", "tp=2_0"),  # int() reads 20
        ("--explain", "tp=1_6"),
        ("--explain", "tp=\u0662,pp=1,dp=4,zero=1,mb=1"),  # an Arabic-Indic 2
        ("--explain", "tp=\uff12,pp=1,dp=4,zero=1,mb=1"),  # a fullwidth 2
    ],
)
def test_an_empty_or_oddly_written_degree_exits_2_naming_the_flag(flag: str, value: str) -> None:
    """An empty --explain explained the all-default composition nobody asked for; '2_0' was read as 20."""
    code, text = _run([*PLAN, flag, value])
    assert code == 2 and f"argument {flag}:" in text and "Traceback" not in text


def test_plain_ascii_degrees_still_work() -> None:
    code, text = _run([*PLAN, "--explain", "tp=2,pp=1,dp=4,zero=1,mb=1"])
    assert code == 0 and "tp=2,pp=1,dp=4" in text


# --------------------------------------------------------------------------- a widget set in code


@pytest.mark.usefixtures("zh")
def test_a_link_preset_that_is_not_one_is_named() -> None:
    """The preset observer indexed the presets first, so a KeyError reached the notebook and the box still said ok.
    Since pass 14 the control itself refuses ``None`` by name, as it refuses any other value that is not one of its
    options, and keeps its value (before, ``None`` slipped past the control's check and the message box named it)."""
    from coursekit.widgets.communication import CommunicationWidget

    widget = CommunicationWidget()
    before = widget.controls["link"].value
    message = _refusal(lambda: setattr(widget.controls["link"], "value", None), ValueError)
    assert message.startswith("link = None") and CJK.search(message)
    assert widget.controls["link"].value == before and widget.status == "ok"
    widget.controls["link"].value = "intra_node"  # a real preset loads its numbers again
    assert widget.status == "ok"


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("control", "value", "kind"),
    [
        ("stages", 100, ValueError),  # ipywidgets clamped it to 8, silently
        ("stages", 2.5, TypeError),  # cast to 2
        ("stages", True, TypeError),  # cast to 1
        ("schedule", "bogus", ValueError),  # ipywidgets' "Invalid selection: value not found", in English
        ("slow_factor", float("inf"), ValueError),
    ],
)
def test_a_control_set_in_code_is_checked_as_the_constructor_checks_it(
    control: str, value: Any, kind: type[Exception]
) -> None:
    from coursekit.widgets.pipeline import PipelineWidget

    widget = PipelineWidget()
    before = widget.controls[control].value
    message = _refusal(lambda: setattr(widget.controls[control], "value", value), kind)
    assert message.startswith(f"{control} = ") and CJK.search(message)
    assert widget.controls[control].value == before and widget.status == "ok"


def test_a_legal_value_set_in_code_still_moves_the_widget() -> None:
    from coursekit.widgets.pipeline import PipelineWidget

    widget = PipelineWidget()
    widget.controls["stages"].value = 4
    widget.controls["schedule"].value = "1f1b"
    assert (widget.controls["stages"].value, widget.controls["schedule"].value) == (4, "1f1b")
    assert widget.status == "ok"
