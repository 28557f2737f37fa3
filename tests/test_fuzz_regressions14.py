"""Inputs a fourteenth adversarial fuzzing pass found wrong, each with the behaviour the project's rules ask for.

The pass aimed at what the earlier ones skip: a terminal that cannot encode the output, a closed or full stdout,
``None`` set on widget controls, numbers written with underscores or other scripts' digits, the plan's own JSON read
back, flags that change nothing, English counts with an adjective before the noun ("1 concurrent requests"),
rounding that prints a positive quantity as 0, answers that break Python's protocols, and odd lesson folders. The
rules: a command line never prints a traceback (one line on stderr, exit status 2); bad input is a
``TypeError``/``ValueError`` naming the parameter, the value and the rule, in the learner's language; a widget never
fails silently; a value no answer reads is refused rather than dropped; English nouns agree with their counts. The
expected values below follow from those rules or a hand count, not from running the code.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from tests.test_fuzz_regressions8 import _refusal, zh  # noqa: F401 (zh: the fixture setting Chinese)
from tests.test_fuzz_regressions12 import _all_messages, _cli

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")
PLAN = ["plan", "--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16", "--top", "1"]
SERVING = ["plan", "--mode", "serving", "--model", "llama3-8b", "--cluster", "h100-8", "--concurrency", "8"]


def _run(
    module: str, argv: list[str], *, encoding: str = "utf-8", cwd: Path | None = None, **popen: Any
) -> subprocess.CompletedProcess[bytes]:
    """``python -m module argv`` in a fresh interpreter whose stdout encodes with ``encoding``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COURSEKIT_LANG": "en", "PYTHONIOENCODING": encoding}
    popen.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(
        [sys.executable, "-m", module, *argv], stderr=subprocess.PIPE, env=env, cwd=cwd, check=False, **popen
    )


def _no_traceback(done: subprocess.CompletedProcess[bytes]) -> str:
    err = done.stderr.decode("utf-8", errors="replace")
    assert "Traceback" not in err and "Error:" not in err.replace("error:", ""), err
    return err


# --------------------------------------------------------------------------- 1: a terminal that cannot encode it


COMMANDS = [
    ("coursekit", PLAN),
    ("coursekit", [*PLAN, "--explain", "tp=2,pp=1,dp=4,zero=1,mb=1"]),
    ("coursekit", SERVING),
    ("coursekit", [*PLAN, "--lang", "zh", "--help"]),
    ("coursekit.planner", PLAN[1:]),
    ("coursekit.lab", ["--lang", "zh", "--help"]),
]


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize(("module", "argv"), COMMANDS, ids=[" ".join(argv[:4]) for _, argv in COMMANDS])
def test_a_report_the_terminal_cannot_encode_still_reaches_it(module: str, argv: list[str], encoding: str) -> None:
    """Before: UnicodeEncodeError on '×' or on the Chinese help, exit 1, with a traceback. Now the same text arrives,
    with each character the encoding lacks written as a backslash escape (what Python's stderr already does)."""
    done = _run(module, argv, encoding=encoding)
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode(errors="replace")
    reference = _run(module, argv)  # a UTF-8 terminal
    mask = re.compile(rb"searched in \d+ ms")  # the search's wall-clock time differs from run to run
    expected = reference.stdout.decode("utf-8").encode(encoding, errors="backslashreplace")
    assert mask.sub(b"", done.stdout) == mask.sub(b"", expected)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("argv", [[*PLAN, "--json"], [*SERVING, "--json", "--lang", "zh"]], ids=["plan", "serving"])
def test_json_the_terminal_cannot_encode_is_still_the_same_valid_json(argv: list[str], encoding: str) -> None:
    """Before: 3724 bytes of JSON, then a traceback. JSON's own \\u escapes keep the document valid and equal."""
    done = _run("coursekit", argv, encoding=encoding)
    assert done.returncode == 0 and done.stderr == b""
    got = json.loads(done.stdout.decode(encoding))  # every byte is the encoding's own
    reference = json.loads(_run("coursekit", argv).stdout.decode("utf-8"))
    for data in (got, reference):
        data.pop("elapsed_s", None)  # the search's wall-clock time
    assert got == reference


def test_lessons_report_reaches_an_ascii_terminal(tmp_path: Path) -> None:
    done = _run("coursekit", ["lessons", "L", "--lang", "zh"], encoding="ascii", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == b""
    # "已复制" (copied) and "00_index.ipynb", the notebook to open, as escapes
    assert b"\\u5df2\\u590d\\u5236" in done.stdout and b"L/notebooks/zh/00_index.ipynb" in done.stdout
    assert (tmp_path / "L" / "notebooks" / "zh" / "00_index.ipynb").is_file()


# --------------------------------------------------------------------------- 2: a closed stdout


@pytest.mark.parametrize(
    ("module", "argv"),
    [
        ("coursekit", PLAN),
        ("coursekit", [*PLAN, "--json"]),
        ("coursekit", SERVING),
        ("coursekit.lab", ["--help"]),
        ("coursekit.planner", PLAN[1:]),
    ],
)
def test_a_closed_stdout_is_one_line_and_exit_2(module: str, argv: list[str]) -> None:
    """Before: AttributeError: 'NoneType' object has no attribute 'flush' (exit 1). Python sets sys.stdout to None
    when descriptor 1 is closed (``>&-``); no output can reach anyone, so the command says so and stops."""
    done = _run(module, argv, stdout=None, preexec_fn=lambda: os.close(1))
    err = _no_traceback(done)
    assert done.returncode == 2 and len(err.splitlines()) == 1 and "standard output is closed" in err


def test_a_closed_stdout_is_said_in_chinese_and_copies_nothing(tmp_path: Path) -> None:
    argv = ["lessons", str(tmp_path / "L"), "--lang", "zh"]
    done = _run("coursekit", argv, stdout=None, preexec_fn=lambda: os.close(1))
    err = _no_traceback(done)
    assert done.returncode == 2 and len(err.splitlines()) == 1 and CJK.search(err)
    assert not (tmp_path / "L").exists()  # refused before any work, as a refused path is


# --------------------------------------------------------------------------- 3: stdout that cannot be written


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (PLAN, "no space left on the device"),
        ([*PLAN, "--json"], "no space left on the device"),
        ([*SERVING, "--lang", "zh"], "磁盘空间不足"),
    ],
)
def test_a_full_device_on_stdout_is_one_line_not_a_traceback(argv: list[str], words: str) -> None:
    """Before: OSError: [Errno 28] No space left on device, with a traceback (exit 1)."""
    with open("/dev/full", "wb") as full:
        done = _run("coursekit", argv, stdout=full)
    err = _no_traceback(done)
    assert done.returncode == 2 and len(err.splitlines()) == 1 and words in err, err


# --------------------------------------------------------------------------- 6: digits a reader would not read


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--global-batch", "1_6"),  # int() reads 16
        ("--global-batch", "\u0661\u0666"),  # Arabic-Indic 16
        ("--global-batch", "\uff11\uff16"),  # fullwidth 16
        ("--reserve-gib", "1_0"),
        ("--reserve-gib", "\u0662"),
        ("--max-cp", "\uff12"),
        ("--top", "\uff11"),
        ("--zero", "0_1"),  # a list flag: read as zero stage 1
        ("--zero", "\uff13"),
        ("--zero", "0,\uff13"),
    ],
)
def test_a_number_written_with_underscores_or_other_digits_exits_2_naming_the_flag(flag: str, value: str) -> None:
    code, _, err = _cli([*PLAN, flag, value])
    assert code == 2 and f"argument {flag}:" in err and "Traceback" not in err, err


def test_every_numeric_option_of_every_command_refuses_such_digits() -> None:
    from coursekit._cli import NumberArg
    from tests.test_cli_boundaries import TYPED

    numeric = [action for _, _, _, action in TYPED if isinstance(action.type, NumberArg)]
    assert len(numeric) >= 25
    for action in numeric:
        for text in ("1_0", "\u0661", "\uff11", "1.5\u0665"):
            with pytest.raises(argparse.ArgumentTypeError):
                action.type(text)  # type: ignore[misc]


def test_the_lab_byte_sizes_refuse_other_digits() -> None:
    from coursekit.lab.cli import parse_bytes

    for text in ("\u0661\u0666M", "\uff11K", "1_024"):
        with pytest.raises(ValueError, match="--min-bytes"):
            parse_bytes(text, "--min-bytes")
    assert parse_bytes("16M", "--min-bytes") == 16 * 2**20  # ASCII digits still read


@pytest.mark.usefixtures("zh")
def test_the_digit_refusal_is_in_chinese() -> None:
    code, _, err = _cli([*PLAN, "--global-batch", "1_6"])
    assert code == 2 and "--global-batch" in err and CJK.search(err.splitlines()[-1])


def test_plain_ascii_numbers_still_work() -> None:
    plan = [arg if arg != "16" else "32" for arg in PLAN]  # --global-batch 32 (given twice, a flag is refused)
    code, out, err = _cli([*plan, "--reserve-gib", "1.5", "--zero", "0,1", "--max-cp", "2"])
    assert code == 0, err
    assert "global batch 32 sequences" in out and "runtime reserve 1.5 GiB" in out and "zero 0/1" in out


# --------------------------------------------------------------------------- 7: the plan's JSON read back


@pytest.mark.parametrize(
    ("model", "options"),
    [
        ("gpt2-small", {}),
        ("mixtral-8x7b", {"recompute_modules": ("moe_act",), "zero_stages": (1, 2), "lora_rank": 8}),
        ("llama3-8b", {"precision": "fp8", "fp8_recipe": "current", "recompute_modes": ("selective",)}),
    ],
)
def test_the_plan_json_workload_reads_back_into_an_equal_workload(model: str, options: dict[str, Any]) -> None:
    """Before: ValueError 'recompute_modules = []: must hold at least one value'; JSON turns () into []."""
    workload = WorkloadSpec(global_batch=16, **options)
    data = json.loads(json.dumps(plan(MODELS[model], CLUSTERS["h100-8"], workload).to_dict(top=0)))
    back = WorkloadSpec(**data["workload"])
    assert back == workload and hash(back) == hash(workload)


def test_an_empty_list_of_recompute_modules_is_none_as_the_empty_tuple_is() -> None:
    assert WorkloadSpec(global_batch=8, recompute_modules=[]) == WorkloadSpec(global_batch=8, recompute_modules=())
    assert WorkloadSpec(global_batch=8, recompute_modules=[]).recompute_modules == ()
    # a list of modules is read as the tuple is; an empty zero_stages is still refused (no stage to search)
    assert WorkloadSpec(global_batch=8, recompute_modules=["moe_act"]).recompute_modules == ("moe_act",)
    assert _refusal(lambda: WorkloadSpec(global_batch=8, zero_stages=[]), ValueError).startswith("zero_stages")


# --------------------------------------------------------------------------- 8: flags that change nothing


DENSE = ["plan", "--model", "gpt2-small", "--cluster", "h100-8", "--global-batch", "16", "--top", "1"]
MOE = ["plan", "--model", "mixtral-8x7b", "--cluster", "h100-8", "--nodes", "2", "--global-batch", "64", "--top", "1"]
MOE_FLAGS = [
    ["--ep-node-limit", "1"],
    ["--ep-dedup-per-node"],
    ["--ep-fp8-dispatch"],
    ["--moe-probs-in-experts"],
    ["--moe-layer-host-s", "0.5"],
]
FP8_FLAGS = [
    ["--fp8-recipe", "current"],
    ["--fp8-recipe", "delayed"],  # the default value, given: still nothing reads it at bf16
    ["--fp8-matmul-share", "0.5"],
    ["--fp8-weight-cache"],
    ["--fp8-activation-cache", "deepseek-v3"],
]


@pytest.mark.parametrize("flag", MOE_FLAGS, ids=[f[0] for f in MOE_FLAGS])
def test_an_moe_only_flag_on_a_dense_model_exits_2_naming_it(flag: list[str]) -> None:
    """Before: the report was byte-identical to the run without the flag, with no note."""
    code, _, err = _cli([*DENSE, *flag])
    last = err.splitlines()[-1]
    assert code == 2 and flag[0] in last and "dense" in last and "MoE" in last, err


@pytest.mark.parametrize("flag", FP8_FLAGS, ids=[" ".join(f) for f in FP8_FLAGS])
def test_an_fp8_only_flag_at_bf16_exits_2_naming_it(flag: list[str]) -> None:
    code, _, err = _cli([*DENSE, *flag])
    last = err.splitlines()[-1]
    assert code == 2 and flag[0] in last and "--precision fp8" in last, err


@pytest.mark.usefixtures("zh")
def test_the_unread_flag_refusal_is_in_chinese() -> None:
    for flag in (["--ep-dedup-per-node"], ["--fp8-weight-cache"], ["--all"]):
        code, _, err = _cli([*DENSE, *flag])
        assert code == 2 and flag[0] in err and CJK.search(err.splitlines()[-1]), err


@pytest.mark.parametrize("flag", MOE_FLAGS, ids=[f[0] for f in MOE_FLAGS])
def test_the_moe_flags_still_run_on_an_moe_model(flag: list[str]) -> None:
    code, _, err = _cli([*MOE, "--precision", "fp8", *flag])
    assert code == 0, err


@pytest.mark.parametrize("flag", FP8_FLAGS, ids=[" ".join(f) for f in FP8_FLAGS])
def test_the_fp8_flags_still_run_at_fp8(flag: list[str]) -> None:
    code, _, err = _cli([*DENSE, "--precision", "fp8", *flag])
    assert code == 0, err


@pytest.mark.parametrize(
    ("model", "field", "value"),
    [
        ("llama3-8b", "ep_node_limit", 1),
        ("llama3-8b", "ep_dedup_per_node", True),
        ("llama3-8b", "ep_fp8_dispatch", True),
        ("llama3-8b", "moe_probs_in_experts", True),
        ("llama3-8b", "moe_layer_host_s", 0.5),
        ("mixtral-8x7b", "fp8_recipe", "current"),
        ("mixtral-8x7b", "fp8_matmul_share", 0.5),
        ("mixtral-8x7b", "fp8_weight_cache", True),
        ("mixtral-8x7b", "fp8_activation_cache", "deepseek-v3"),
    ],
)
def test_what_the_command_line_refuses_indeed_changes_no_answer(
    model: str, field: str, value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal's premise: planned through the Python API with its own check switched off (plan() now refuses
    the MoE-only fields on a dense model and warns about the FP8-only ones at bf16: tests/test_fuzz_regressions17.py),
    the field changes neither the report nor any candidate, rejected ones included; and unread_fields names it."""
    import coursekit.planner.search as search
    from coursekit.planner.cli import unread_fields

    monkeypatch.setattr(search, "_check_read_fields", lambda model, workload: None)
    cluster = CLUSTERS["h100-8"].with_nodes(2)
    base = WorkloadSpec(global_batch=64, seq_len=2048)
    changed = WorkloadSpec(global_batch=64, seq_len=2048, **{field: value})
    assert unread_fields(changed, MODELS[model]) == (field,)
    one, other = plan(MODELS[model], cluster, base), plan(MODELS[model], cluster, changed)
    drop = {"workload", "elapsed_s"}  # what was asked, and the wall-clock time
    first = {k: v for k, v in one.to_dict(top=20, include_rejected=True).items() if k not in drop}
    second = {k: v for k, v in other.to_dict(top=20, include_rejected=True).items() if k not in drop}
    assert first == second


def test_published_runs_of_dense_models_still_check_on_the_command_line() -> None:
    """Megatron-Bridge's rows state the engine's MoE setting (probabilities in the experts) for MoE models only (a
    dense model's rows left it out since plan() refuses it there: tests/test_fuzz_regressions17.py): the command
    published_run_argv builds has no such flag for a dense model, and the command runs."""
    from coursekit.planner.cli import published_run_argv
    from coursekit.published_runs import all_published_runs

    run = next(r for r in all_published_runs() if r.name.startswith("Megatron-Bridge Llama 3 8B"))
    assert not run.workload().moe_probs_in_experts and not MODELS[run.model].is_moe
    argv = published_run_argv(run)
    assert "--moe-probs-in-experts" not in argv and "--fp8-recipe" in argv
    code, out, err = _cli([*argv, "--json", "--top", "0"])
    assert code == 0 and json.loads(out)["layout"]["accepted"] is not None, err


@pytest.mark.parametrize("argv", [DENSE, SERVING], ids=["plan", "serving"])
def test_all_without_json_exits_2(argv: list[str]) -> None:
    """Before: --all was ignored without --json, silently; its help says 'with --json'."""
    code, _, err = _cli([*argv, "--all"])
    assert code == 2 and "--all" in err.splitlines()[-1] and "--json" in err.splitlines()[-1]
    code, out, _ = _cli([*[arg for arg in argv if arg not in ("--top", "1")], "--all", "--json", "--top", "0"])
    assert code == 0 and json.loads(out)


# --------------------------------------------------------------------------- 9: "{n} adjective noun"


def test_one_concurrent_request_and_one_output_token_are_singular() -> None:
    """Before: "serving, 1 concurrent requests, prompts of 1024 tokens, 1 output tokens"."""
    head = plan(MODELS["gpt2-small"], CLUSTERS["a100-8"], WorkloadSpec(global_batch=1, mode="serving", output_tokens=1))
    line = head.report(top=0).splitlines()[0]
    assert "serving, 1 concurrent request, prompts of 1024 tokens, 1 output token" in line
    assert line.endswith("1 output token"), line
    code, out, _ = _cli([*SERVING[:-1], "1", "--output-tokens", "1", "--prompt-tokens", "1", "--top", "0"])
    assert code == 0 and "1 concurrent request, prompts of 1 token, 1 output token" in out.splitlines()[0]


def test_one_attention_head_and_one_tie_group_are_singular() -> None:
    import dataclasses

    from coursekit.specs import ModelSpec

    onehead = ModelSpec("onehead", layers=2, hidden=64, heads=1, ffn_hidden=128, vocab=100, seq_len=16)
    text = plan(onehead, CLUSTERS["h100-8"], WorkloadSpec(global_batch=8)).explain("tp=2,pp=1,dp=4,zero=0,mb=1")
    assert "does not divide the 1 attention head:" in text.explain()
    one_gpu = dataclasses.replace(CLUSTERS["h100-8"], nodes=1, gpus_per_node=1)
    workload = WorkloadSpec(global_batch=1, zero_stages=(0,), recompute_modes=("none",))
    tiny = plan(MODELS["gpt2-small"], one_gpu, workload)
    assert "this plan has 1 tie group;" in _refusal(lambda: tiny.explain_ties(2), ValueError)


@pytest.mark.parametrize(
    ("key", "params", "count", "one", "two"),
    [
        ("serving.load_concurrency", {}, "concurrency", "1 concurrent request", "2 concurrent requests"),
        ("gates.tp_heads", {"tp": 2}, "heads", "the 1 attention head:", "the 2 attention heads:"),
        ("serving.reason.tp_kv_heads", {"tp": 2}, "kv_heads", "the 1 KV head nor", "the 2 KV heads nor"),
        ("planner.virtual_chunk_divide", {"layers": 3}, "v", "v = 1 model chunk ", "v = 2 model chunks "),
        ("planner.edge_layers_negative", {"edge": 9, "layers": 4, "stage": -5}, "pp", "in 1 pipeline stage ",
         "in 2 pipeline stages "),
        ("config.note_group_routing", {"value": 1}, "groups", "of 1 expert group ", "of 2 expert groups "),
        ("planner.tie_group_missing", {"value": 3}, "count", "has 1 tie group;", "has 2 tie groups;"),
        ("matrix.fsdp_with_tp", {"tp": 8, "need_gib": 1.0}, "fsdp", "over 1 TP group (", "over 2 TP groups ("),
    ],
)  # fmt: skip
def test_a_count_with_an_adjective_takes_the_singular_for_one(
    key: str, params: dict[str, Any], count: str, one: str, two: str
) -> None:
    from coursekit.i18n import placeholders, tr

    english = _all_messages()[key]["en"]  # every module imported, so every catalog entry registered
    filled = {name: 2 for name in placeholders(english)} | params
    singular = re.escape(one.rstrip(" (:;")) + r"(?!\w)"  # "request", not "requests"
    assert re.search(singular, tr(key, "en", **{**filled, count: 1}))
    assert two in tr(key, "en", **{**filled, count: 2})
    assert CJK.search(tr(key, "zh", **{**filled, count: 1}))  # Chinese has no plural: unchanged


# --------------------------------------------------------------------------- 4, 5: None and other values set in code


def _widget(module: str, name: str) -> Any:
    import importlib

    return getattr(importlib.import_module(f"coursekit.widgets.{module}"), name)()


def _selection_sliders() -> list[tuple[str, str, str]]:
    """(module, widget class, control) of every selection slider of the lesson widgets, found by walking them."""
    import ipywidgets

    found = []
    for module, name in WIDGETS:
        for control_name, control in _widget(module, name).controls.items():
            if isinstance(control, ipywidgets.SelectionSlider):
                found.append((module, name, control_name))
    return found


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
SELECTION_SLIDERS = _selection_sliders()


def test_the_walk_finds_the_selection_sliders_the_report_lists() -> None:
    assert len(SELECTION_SLIDERS) >= 12
    assert ("scaling", "ScalingWidget", "bandwidth_gb_s") in SELECTION_SLIDERS


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(("module", "name", "control"), SELECTION_SLIDERS, ids=[c for _, _, c in SELECTION_SLIDERS])
def test_none_on_a_selection_slider_is_refused_by_name(module: str, name: str, control: str) -> None:
    """Before: traitlets' English TraitError about the 'index' trait; .value stayed None while the slider showed the old
    option and the widget kept its old figure as "ok"."""
    widget = _widget(module, name)
    box = widget.controls[control]
    before = (box.value, box.index, box.label, widget.status)
    message = _refusal(lambda: setattr(box, "value", None), ValueError)
    assert message.startswith(f"{control} = None") and CJK.search(message)
    assert (box.value, box.index, box.label, widget.status) == before


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(("module", "name"), WIDGETS, ids=[n for _, n in WIDGETS])
def test_none_on_any_control_is_refused_or_is_one_of_its_options(module: str, name: str) -> None:
    """Every control of every widget: None is refused by name in Chinese (the value kept), unless the control offers
    None as an option (the gates widget's "not declared"), which then shows that option."""
    widget = _widget(module, name)
    for control_name, box in widget.controls.items():
        offered = None in getattr(box, "_options_values", ())
        before = box.value
        if offered:
            box.value = None
            assert box.value is None and box.label is not None, control_name
            continue
        with pytest.raises((TypeError, ValueError)) as refused:
            box.value = None
        assert str(refused.value).startswith(f"{control_name} = None") and CJK.search(str(refused.value))
        assert box.value == before and widget.status == "ok", control_name


def test_none_on_the_pipeline_stages_is_refused_before_its_observer_runs() -> None:
    """Before: the stages observer raised "'NoneType' object cannot be interpreted as an integer" (range(None))."""
    widget = _widget("pipeline", "PipelineWidget")
    message = _refusal(lambda: setattr(widget.controls["stages"], "value", None), TypeError)
    assert message.startswith("stages = None") and widget.controls["stages"].value == 4 and widget.status == "ok"


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("value", "kind"),
    [("x", TypeError), (None, TypeError), (True, TypeError), (10**400, ValueError), ("32", TypeError)],
)
def test_the_gates_memory_box_refuses_what_is_not_a_number_by_name(value: Any, kind: type[Exception]) -> None:
    """Before: a plain FloatText; an English TraitError (with all 401 digits of 10**400), and True taken as 1.0 GiB."""
    widget = _widget("gates", "GatesWidget")
    box = widget.controls["memory_per_device_gib"]
    before = (box.value, widget.status, widget.message)
    message = _refusal(lambda: setattr(box, "value", value), kind)
    assert message.startswith("memory_per_device_gib = ") and CJK.search(message) and len(message) < 300
    assert (box.value, widget.status, widget.message) == before


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 0.0, -1.0])
def test_the_gates_memory_box_still_explains_a_number_out_of_range_in_its_message_box(value: float) -> None:
    """A number box lets the learner type any number; the widget explains the ones it cannot use."""
    widget = _widget("gates", "GatesWidget")
    widget.controls["memory_per_device_gib"].value = value
    # named by the box's label, as the learner sees it
    label = widget.controls["memory_per_device_gib"].description
    assert widget.status == "invalid" and f"{label} = " in widget.message
    widget.controls["memory_per_device_gib"].value = 32  # an int is a number of GiB too
    assert widget.status == "ok" and widget.controls["memory_per_device_gib"].value == 32.0


def test_the_number_boxes_are_checked_controls() -> None:
    import ipywidgets

    from coursekit.widgets import CheckedFloatText, CheckedIntText, number

    box = number("widgets.gates.memory_per_device_gib", value=8.0)
    assert isinstance(box, CheckedFloatText) and isinstance(box, ipywidgets.FloatText)
    whole = number("widgets.gates.memory_per_device_gib", value=8, argument="gib")
    assert isinstance(whole, CheckedIntText)
    assert _refusal(lambda: setattr(whole, "value", 2.5), TypeError).startswith("gib = 2.5")
    whole.value = 16
    assert whole.value == 16


# --------------------------------------------------------------------------- 12: odd things where a lesson goes


def _lessons(folder: Path, lang: str = "en") -> tuple[int, str, str]:
    return _cli(["lessons", str(folder), "--lang", lang])


def test_a_folder_named_like_a_notebook_is_refused_not_kept(tmp_path: Path) -> None:
    """Before: 'kept 1 file you already have', then 'Open .../00_index.ipynb in JupyterLab', which was a folder."""
    (tmp_path / "notebooks" / "en" / "00_index.ipynb").mkdir(parents=True)
    code, out, err = _lessons(tmp_path)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "00_index.ipynb: is a folder" in err and "kept" not in err


def test_a_dangling_link_is_named_as_a_link(tmp_path: Path) -> None:
    """Before: 'docs/GLOSSARY.md: does not exist', of a path that exists as a link."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "GLOSSARY.md").symlink_to(tmp_path / "gone")
    code, _, err = _lessons(tmp_path)
    assert code == 2 and "GLOSSARY.md: is a link to" in err and "does not exist" in err
    assert not (tmp_path / "notebooks").exists()  # checked before anything was copied


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_file_where_a_folder_goes_is_named(tmp_path: Path, lang: str) -> None:
    """Before: the operating system's 'File exists (error 17)'."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / lang).write_text("not a folder")
    code, _, err = _lessons(tmp_path, lang)
    assert code == 2 and len(err.splitlines()) == 1 and "error 17" not in err
    blocker = str(tmp_path / "notebooks" / lang)
    if lang == "en":
        assert f"{blocker} is a file, not a folder" in err
    else:
        assert f"{blocker} 是文件，不是文件夹" in err


def test_a_link_to_a_notebook_of_your_own_is_kept(tmp_path: Path) -> None:
    mine = tmp_path / "mine.ipynb"
    mine.write_text("{}")
    (tmp_path / "L" / "notebooks" / "en").mkdir(parents=True)
    (tmp_path / "L" / "notebooks" / "en" / "00_index.ipynb").symlink_to(mine)
    code, out, _ = _lessons(tmp_path / "L")
    assert code == 0 and "kept 1 file you already have" in out and mine.read_text() == "{}"


# --------------------------------------------------------------------------- 11: the exercise checker


class _NoIteration(list):  # type: ignore[type-arg]
    """A list whose own iteration fails: a class of the learner's that breaks a protocol it claims."""

    def __iter__(self) -> Any:
        raise RuntimeError("no iteration")


class _NoRepr(float):
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    __str__ = __repr__


def _checked(exercise_id: str, answer: Any) -> Any:
    import contextlib
    import io

    from coursekit.exercises import check

    with contextlib.redirect_stdout(io.StringIO()):
        return check(exercise_id, answer)


def _all_exercises() -> list[Any]:
    """The course's exercises (not the demo ones other tests register)."""
    from coursekit.exercises import PREFIX_MODULES, exercises

    return [exercise for exercise in exercises() if exercise.id.split(".", 1)[0] in PREFIX_MODULES]


@pytest.mark.usefixtures("zh")
def test_an_answer_of_your_own_class_that_breaks_a_protocol_is_invalid_not_a_checker_error() -> None:
    """Before: 'Checker error ... not your fault; please tell the course authors' for all 65 exercises."""
    statuses = {}
    for exercise in _all_exercises():
        answers = [_NoIteration([1])]
        if exercise.kind != "number":
            answers += [_NoRepr(1.0), [_NoRepr(2.0)]]
        for answer in answers:
            feedback = _checked(exercise.id, answer)
            statuses[(exercise.id, type(answer).__name__)] = feedback.status
            assert CJK.search(feedback.message), feedback.message
    assert len(statuses) >= 65 and set(statuses.values()) <= {"invalid", "incorrect"}, statuses
    # the message says what went wrong: the learner's own class failed while being read
    message = _checked("q1.zero2_gib", _NoIteration([1])).message
    assert "_NoIteration" in message and "RuntimeError" in message


def test_a_one_dimensional_numpy_array_of_options_is_the_list_it_holds() -> None:
    """The module docstring: a list, a tuple and a 1-D numpy array are the same sequence; q3.accepted refused it."""
    import numpy as np

    options = ["EP", "PP", "Replica", "TP"]
    assert _checked("q3.accepted", options).status == "correct"
    assert _checked("q3.accepted", np.array(options)).status == "correct"
    assert _checked("q3.accepted", np.array(options[:2])).status == "incorrect"
    assert _checked("q3.accepted", np.array([options])).status == "invalid"  # 2-D is not a list of options


def test_offer_solution_outside_a_notebook_says_how_to_see_the_solution(capsys: pytest.CaptureFixture[str]) -> None:
    """Before: '<coursekit.exercises._RevealButton object at 0x7f...>'."""
    from coursekit.exercises import offer_solution, solution_text

    offer_solution("q1.zero2_gib")
    out = capsys.readouterr().out
    assert 'show_solution("q1.zero2_gib")' in out and "object at 0x" not in out
    result_line = solution_text("q1.zero2_gib").splitlines()[-1]
    assert result_line not in out  # the solution itself stays put away


# --------------------------------------------------------------------------- 10: a positive quantity never prints as 0


NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?(?:e-?\d+)?")


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def test_a_serving_bound_is_never_zero_nor_below_its_printed_part() -> None:
    """Before: 'TTFT >= 0 ms, TPOT >= 0.0 ms', then 'TP all-reduce: ... = 0.04 ms' on the next line."""
    from coursekit.serving import ServingWorkload, plan_serving
    from coursekit.specs import ModelSpec

    tiny = ModelSpec("m1", layers=2, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=16, num_experts=1, top_k=1)
    lines = plan_serving(tiny, CLUSTERS["h100-8"], ServingWorkload(16, 16, 1)).report(top=1).splitlines()
    bounds = next(line for line in lines if "TTFT >= " in line)
    ttft = _value(re.search(r"TTFT >= (\S+) ms", bounds).group(1))  # type: ignore[union-attr]
    tpot = _value(re.search(r"TPOT >= (\S+) ms", bounds).group(1))  # type: ignore[union-attr]
    part = _value(re.search(r"all-reduce: .* = (\S+) ms", "\n".join(lines)).group(1))  # type: ignore[union-attr]
    assert ttft > 0 and tpot > 0 and tpot >= part > 0, bounds


def test_a_real_model_with_one_prompt_token_has_a_positive_ttft() -> None:
    code, out, _ = _cli(["plan", "--mode", "serving", "--model", "gpt2-small", "--cluster", "h100-8",
                         "--concurrency", "1", "--prompt-tokens", "1", "--top", "1"])  # fmt: skip
    assert code == 0 and "TTFT >= 0 ms" not in out and re.search(r"TTFT >= 0\.0*[1-9]\d* ms", out), out


def test_a_tiny_training_step_prints_no_positive_part_as_zero() -> None:
    """Before: 'Matmul efficiency 0% of peak' and 'Estimated step 0.000 s = compute 0.000 + ...'."""
    import dataclasses

    from coursekit.specs import ModelSpec

    one_gpu = dataclasses.replace(CLUSTERS["h100-8"], nodes=1, gpus_per_node=1)
    result = plan(ModelSpec("tiny", 1, 8, 1, 8, vocab=1, seq_len=1), one_gpu, WorkloadSpec(global_batch=1))
    lines = result.report(top=1).splitlines()
    efficiency = next(line for line in lines if "Matmul efficiency" in line)
    assert "Matmul efficiency 0% " not in efficiency
    step = next(line for line in lines if "Estimated step" in line)
    shown = dict(re.findall(r"(step|compute) (" + NUMBER.pattern + ")", step))
    assert _value(shown["step"]) > 0 and _value(shown["compute"]) > 0, step
    assert _value(shown["step"]) >= _value(shown["compute"])  # a sum is never printed below one of its parts


def test_the_gates_widget_never_prints_a_positive_device_memory_as_zero() -> None:
    widget = _widget("gates", "GatesWidget")
    for tiny in (1e-9, 5e-324):
        widget.controls["memory_per_device_gib"].value = tiny
        found = re.findall(r"exceeds device memory (\S+) GiB", widget.message)
        assert found and all(_value(text) > 0 for text in found), widget.message


def test_ordinary_reports_keep_their_digits() -> None:
    """The rule only adds digits where a nonzero value would read as zero: a 12.3 ms bound still prints as before."""
    from coursekit.i18n import nonzero

    assert nonzero(12.34, ".1f") == "12.3" and nonzero(0.0, ".3f") == "0.000" and nonzero(-0.004, ".2f") == "-0.004"
    assert nonzero(0.04, ".0f") == "0.04" and nonzero(0.0004, ".0%") == "0.04%"
