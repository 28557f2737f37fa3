"""Inputs a third adversarial fuzzing pass found wrong, each with the behaviour the project's rules ask for.

The rules: bad input is a ``TypeError`` / ``ValueError`` (command line: one localized line, exit status 2, no
traceback) naming the parameter, the value and the rule in the learner's language; valid input never gives a crash,
a negative count or two different answers to one question. The expected values below are worked from those rules and
from the pipeline split's documented rule (:func:`coursekit.planner.stage_layers`), not read off the code.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import coursekit
from coursekit.lessons_cli import copy_lessons
from coursekit.model_config import config_notes, load_model_config
from coursekit.planner import ModelSpec, WorkloadSpec, evaluate_composition, plan, stage_layers
from coursekit.presets import CLUSTERS, MODELS

CJK = re.compile(r"[\u4e00-\u9fff]")

#: A small Llama-style config.json: 4 layers, hidden 64, 4 heads, SwiGLU 256, vocabulary 1000, 128 positions.
TINY_CONFIG: dict[str, Any] = {
    "model_type": "llama",
    "num_hidden_layers": 4,
    "hidden_size": 64,
    "num_attention_heads": 4,
    "intermediate_size": 256,
    "vocab_size": 1000,
    "max_position_embeddings": 128,
}
#: JSON allows integers of any length; Python reads this one exactly and cannot turn it into a float.
HUGE = 10**400


def _refusal(call: Any, kind: type[Exception] | tuple[type[Exception], ...] = (TypeError, ValueError)) -> str:
    """The message of the TypeError / ValueError ``call`` raises (the test fails on anything else)."""
    with pytest.raises(kind) as info:
        call()
    return str(info.value)


def _run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "coursekit", *args], capture_output=True, text=True, timeout=120)


# --------------------------------------------------------------------------- model configs: integers beyond floats


@pytest.mark.parametrize("key", ["rotary_pct", "partial_rotary_factor"])
def test_a_huge_integer_share_gets_no_note_and_no_overflow(key: str) -> None:
    # A share of a head's dimensions is a number in [0, 1); 10**400 is none, so no partial-rotary note (the notes
    # never refuse a config), and the spec is read as without the key.
    config = {**TINY_CONFIG, key: HUGE}
    assert config_notes(config) == ()
    assert ModelSpec.from_config(config) == ModelSpec.from_config(TINY_CONFIG)


@pytest.mark.parametrize("value", [HUGE, -HUGE, 1, 1.0])
def test_a_dropout_key_outside_a_probability_names_the_key(value: Any) -> None:
    # ModelSpec.dropout is a probability below 1: the config's key is refused by its own name, not as "dropout"
    message = _refusal(lambda: ModelSpec.from_config({**TINY_CONFIG, "attention_dropout": value}), ValueError)
    assert "'attention_dropout'" in message and "1" in message


def test_the_command_line_refuses_a_huge_share_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**TINY_CONFIG, "attention_dropout": HUGE}), encoding="utf-8")
    run = _run_cli("plan", "--model-config", str(path), "--cluster", "h100-8", "--global-batch", "8", "--top", "0")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "attention_dropout" in run.stderr and len(run.stderr.strip().splitlines()) == 1
    path.write_text(json.dumps({**TINY_CONFIG, "rotary_pct": HUGE}), encoding="utf-8")
    run = _run_cli("plan", "--model-config", str(path), "--cluster", "h100-8", "--global-batch", "8", "--top", "0")
    assert run.returncode == 0 and "Traceback" not in run.stderr


def test_a_config_file_error_is_said_in_the_learners_language(tmp_path: Path) -> None:
    not_utf8 = tmp_path / "latin1.json"
    not_utf8.write_bytes(b'{"model_type": "caf\xe9"}')
    folder = tmp_path / "folder.json"
    folder.mkdir()
    try:
        coursekit.set_language("zh")
        for path in (not_utf8, folder):
            message = _refusal(lambda: load_model_config(path), ValueError)  # noqa: B023 - called at once
            assert str(path) in message and CJK.search(message)
            # the operating system's and the codec's own English is not passed on
            assert not re.search(r"codec|directory|Errno|invalid", message), message
    finally:
        coursekit.set_language("en")


def test_a_config_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(TINY_CONFIG).encode("utf-8"))
    assert load_model_config(path) == TINY_CONFIG


# --------------------------------------------------------------------------- pipeline stages: one split everywhere


def test_stage_counts_of_a_model_refuse_what_stage_layers_refuses() -> None:
    # 32 layers on 4 stages with 100 layers' room taken off each edge: q = ceil(232 / 4) = 58, first = last = 58 - 100
    # = -42 layers, which is no stage at all (stage_layers refuses it); the model's own counts must not return it.
    model = MODELS["llama3-8b"]
    expected = _refusal(lambda: stage_layers(32, 4, 100), ValueError)
    assert "edge_layers = 100" in expected
    assert _refusal(lambda: model.stage_layer_kinds(4, 100), ValueError) == expected
    assert _refusal(lambda: model.stage_dense_params(4, 100), ValueError) == expected
    # last edge alone: q = ceil(132 / 4) = 33, the last stage 33 - 100 = -67
    message = _refusal(lambda: model.stage_dense_params(4, 0, 100), ValueError)
    assert "last_edge_layers = 100" in message and "-67" in message
    # pp 2: the first holds q - 0 = ceil(132 / 2) = 66 and the last the rest, 32 - 66 = -34
    message = _refusal(lambda: model.stage_layer_kinds(2, 0, 100), ValueError)
    assert "last_edge_layers = 100" in message and "-34" in message


def test_a_valid_split_is_unchanged_by_the_check() -> None:
    # DeepSeek-V3's 61 layers on 16 stages, edges (0, 3): q = 4, first 4 (3 dense + 1 MoE), middle 4, last 1 plus its
    # multi-token prediction block (an MoE layer)
    assert MODELS["deepseek-v3"].stage_layer_kinds(16, 0, 3) == ((3, 1, 0), (0, 4, 0), (0, 2, 0))


@pytest.mark.parametrize("pp", [3, 4, 8])
def test_one_layer_on_many_stages_is_never_two_layers(pp: int) -> None:
    # One layer: the first stage holds q - e1 = 1, which leaves the rest none; no stage may hold a layer twice, and
    # nothing here is fewer than no layers (the pp_layers gate names the empty stages), so no refusal either.
    first, mid, last = stage_layers(1, pp)
    assert (first, mid, last) == (1, 0, 0)


def test_the_uneven_split_warning_states_the_split_the_plan_counts() -> None:
    # DeepSeek-V3 as Megatron-Bridge lays out 16 stages (edges 0 and 3): the stages hold 4, 4 ... 4, 1 layers
    # (stage_layers(61, 16, 0, 3)), so the warning's range is 1 to 4, not the even split's 3 to 4.
    workload = WorkloadSpec(global_batch=1024, seq_len=4096, pipeline_edge_layers=0, pipeline_last_edge_layers=3)
    cluster = CLUSTERS["h100-8"].with_nodes(128)
    candidate = evaluate_composition(
        MODELS["deepseek-v3"], cluster, workload, tp=2, pp=16, ep=64, etp=1, zero=1, recompute="full"
    )
    assert candidate.stage_layers == stage_layers(61, 16, 0, 3) == (4, 4, 1)
    (warning,) = candidate.warnings
    assert warning.code == "pp_balance"
    assert "1 to 4" in warning.message and "3 to 4" not in warning.message
    # with symmetric edges the even split's range is the plan's: Llama 3 405B's 126 layers on 16 stages, 7 to 8
    workload = WorkloadSpec(global_batch=1024, seq_len=4096, pipeline_edge_layers=1)
    candidate = evaluate_composition(MODELS["llama3-405b"], cluster, workload, tp=8, pp=16, zero=1, recompute="full")
    assert candidate.stage_layers == (7, 8, 7)
    assert [w.message for w in candidate.warnings] == [
        "126 layers do not split evenly over pp = 16 stages (7 to 8 layers per stage): the slowest stage sets the pace"
    ]


# --------------------------------------------------------------------------- layouts: explain and check agree


@pytest.mark.parametrize("mode", ["training", "serving"])
def test_check_layout_refuses_an_expert_tp_that_explain_refuses(mode: str) -> None:
    # A dense model has no expert layers: evaluate_composition (explain) refuses etp, so check_layout must not read
    # etp = 2 as "tp = 2" and rank those layouts.
    result = plan(MODELS["gpt2-small"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=8, mode=mode))
    expected = _refusal(lambda: result.explain("etp=2"), ValueError)
    assert "etp = 2" in expected
    assert _refusal(lambda: result.check_layout("etp=2"), ValueError) == expected
    assert _refusal(lambda: result.check_layout({"tp": 2, "etp": 1}), ValueError).startswith("etp = 1")


def test_the_layout_flag_refuses_an_expert_tp_of_a_dense_model() -> None:
    run = _run_cli(
        "plan",
        "--model",
        "gpt2-small",
        "--cluster",
        "h100-8",
        "--global-batch",
        "8",
        "--layout",
        "etp=2",
        "--lang",
        "zh",
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "etp = 2" in run.stderr and CJK.search(run.stderr.splitlines()[-1])


# --------------------------------------------------------------------------- command line: contradicting flags


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_overlap_for_every_dimension_and_for_one_contradict(lang: str) -> None:
    # WorkloadSpec.overlap: overlap_fraction answers for every dimension, so --overlap-tp would be dropped silently
    run = _run_cli(
        "plan",
        "--model",
        "gpt2-small",
        "--cluster",
        "h100-8",
        "--global-batch",
        "8",
        "--overlap",
        "0.5",
        "--overlap-tp",
        "0",
        "--lang",
        lang,
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    line = run.stderr.strip().splitlines()[-1]
    assert "--overlap 0.5" in line and "--overlap-tp 0" in line
    assert bool(CJK.search(line)) == (lang == "zh")


def test_overlap_alone_and_per_dimension_alone_still_run() -> None:
    for flags in (("--overlap", "0.5"), ("--overlap-tp", "0", "--overlap-dp", "0.5")):
        run = _run_cli(
            "plan", "--model", "gpt2-small", "--cluster", "h100-8", "--global-batch", "8", "--top", "0", *flags
        )
        assert run.returncode == 0, run.stderr


# --------------------------------------------------------------------------- copy_lessons' arguments


@pytest.mark.parametrize("target", [None, 5, b"lessons"])
def test_copy_lessons_names_a_target_that_is_not_a_path(target: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    message = _refusal(lambda: copy_lessons(target, ("en",)), TypeError)
    assert message.startswith("target = ") and "path" in message
    assert not any(tmp_path.iterdir())  # no folder named "None" or "5"


def test_copy_lessons_names_a_path_with_a_nul_character(tmp_path: Path) -> None:
    message = _refusal(lambda: copy_lessons(str(tmp_path / "a\0b"), ("en",)), ValueError)
    assert message.startswith("target ") and "NUL" in message


@pytest.mark.parametrize("langs", [None, 5, "en", "zh"])
def test_copy_lessons_names_langs_that_are_not_a_list(langs: Any, tmp_path: Path) -> None:
    # a string would be read letter by letter ("e", "n") and refused as if the learner had written "e"
    message = _refusal(lambda: copy_lessons(tmp_path, langs), TypeError)
    assert message.startswith("langs = ") and "list or tuple" in message
    assert not any(tmp_path.iterdir())


def test_copy_lessons_names_the_bad_item_of_langs(tmp_path: Path) -> None:
    message = _refusal(lambda: copy_lessons(tmp_path, ["en", "EN"]), ValueError)
    assert message.startswith("langs[1] = 'EN'")


# --------------------------------------------------------------------------- coursekit.tr


def test_tr_names_the_parameters_a_message_still_needs() -> None:
    message = _refusal(lambda: coursekit.tr("validate.ge", name="x"), TypeError)
    assert "'validate.ge'" in message and "low" in message and "value" in message


def test_tr_names_a_parameter_its_format_cannot_show() -> None:
    import coursekit.planner.space  # registers planner.space_too_large

    message = _refusal(lambda: coursekit.tr("planner.space_too_large", size="many", limit=3), TypeError)
    assert message.startswith("size = 'many'") and "'planner.space_too_large'" in message


# --------------------------------------------------------------------------- measurement_repeatability


def test_repeatability_of_measurements_too_far_apart_is_refused_not_infinite() -> None:
    from coursekit.planner import measurement_repeatability

    # both measurements are positive finite floats, as the function asks; their relative difference 1e600 - 1 is not
    # a float, so the answer must be a ValueError naming the input rather than inf
    message = _refusal(lambda: measurement_repeatability((("a", 1e-300, 1e300),)), ValueError)
    assert "pairs" in message and "inf" in message


# --------------------------------------------------------------------------- attention kernel rates


@pytest.mark.parametrize("peak_flops", [5e-324, 1.0, 1e21])
def test_attention_rates_take_a_peak_a_cluster_may_have(peak_flops: float) -> None:
    from coursekit.planner.calibration import attention_rate_at, attention_relative_rate
    from coursekit.specs import MAX_PEAK_FLOPS, MIN_PEAK_FLOPS

    # a rate over a device's best matmul; 5e-324 FLOP/s made it inf. ClusterSpec's bounds on a peak apply.
    assert not MIN_PEAK_FLOPS <= peak_flops <= MAX_PEAK_FLOPS
    figures = ((8192, 600.0, 500.0),)
    for call in (
        lambda: attention_relative_rate(figures, peak_flops),
        lambda: attention_rate_at(4096, figures, peak_flops),
    ):
        assert _refusal(call, ValueError).startswith("peak_flops = ")


@pytest.mark.parametrize("tokens", [[float("inf")], ["x"], [[1, 2], [3]]])
def test_attention_rate_names_tokens_that_are_not_finite_positive_numbers(tokens: Any) -> None:
    from coursekit.planner.calibration import attention_rate_at

    # one inf took the longest bar's rate; a string or a ragged list raised numpy's own words
    assert _refusal(lambda: attention_rate_at(tokens), ValueError).startswith("tokens = ")


# --------------------------------------------------------------------------- edge-layer flags take the spec's values


def test_edge_layer_flags_read_back_every_value_the_workload_takes() -> None:
    import argparse

    from coursekit.planner.cli import _workload, add_plan_command, workload_argv

    # WorkloadSpec takes 0 ... 2**16 edge layers; workload_argv promises flags the command line reads back equal
    workload = WorkloadSpec(global_batch=8, pipeline_edge_layers=2000, pipeline_last_edge_layers=1 << 16)
    parser = argparse.ArgumentParser()
    add_plan_command(parser.add_subparsers())
    args = parser.parse_args(["plan", "--model", "llama3-8b", "--cluster", "h100-8", *workload_argv(workload)])
    assert _workload(args) == workload


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_two_pipeline_stages_are_not_described_with_a_middle_stage(lang: str) -> None:
    # stage_layers: "with pp == 2 there is no middle"; a line saying "middle up to 0" reads as an empty stage, the
    # malformed split the pp_layers gate rejects. 32 layers on 2 stages: 16 and 16.
    candidate = evaluate_composition(MODELS["llama3-8b"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=8), tp=1, pp=2)
    try:
        coursekit.set_language(lang)
        (line,) = [
            text
            for text in candidate.explain().splitlines()
            if "16" in text and ("Pipeline" in text or "流水线" in text)
        ]
    finally:
        coursekit.set_language("en")
    assert "middle" not in line and "中间" not in line
    assert line.count("16") == 2
