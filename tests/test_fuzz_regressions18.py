"""Regressions from the eighteenth adversarial fuzzing pass (scalar vs array agreement, repeated command-line flags,
serving, hostile model configs, exercise checkers).

Each test failed before its fix. Expected values come from the rule a test names (argparse's documented behaviour,
a formula worked by hand, a model's public config.json and its published parameter count), never from the code
under test.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from coursekit import i18n
from coursekit.__main__ import _subparser
from coursekit.__main__ import build_parser as build_plan_parser
from coursekit._cli import StoreOnce
from coursekit.lab.cli import build_parser as build_lab_parser
from coursekit.planner import estimate
from coursekit.planner.gate_table import chunks_divide_stages
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving_cli import build_serving_parser
from coursekit.specs import kv_heads_split, stage_layer_counts

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _english_after() -> Any:
    yield
    i18n.set_language("en")


# --- 1. A value flag given twice with different values is refused (argparse kept the later one without a word) ----

#: Texts tried, in order, until two that an option's type and choices accept with different values are found.
_CANDIDATES = ("1", "2", "3", "0.5", "0", "zh", "en", "a.json", "b.json", "ddp", "tp", "all_reduce", "broadcast")
_CANDIDATES += ("selective", "full", "layernorm", "moe")


def _value_options() -> list[tuple[str, argparse.ArgumentParser, list[str], argparse.Action]]:
    plan = _subparser(build_plan_parser(), "plan")
    rows: list[tuple[str, argparse.ArgumentParser, list[str]]] = [
        ("plan", plan, ["--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16"]),
        ("serving", build_serving_parser(), ["--model", "llama3-70b", "--cluster", "h100-8", "--concurrency", "8"]),
    ]
    _, lab = build_lab_parser()
    rows += [(f"lab {name}", sub, []) for name, sub in lab.items()]
    found = []
    for label, parser, required in rows:
        for action in parser._actions:
            if action.option_strings and action.nargs is None and not isinstance(action, argparse._HelpAction):
                if action.const is None and type(action).__name__ not in ("_StoreTrueAction", "_StoreFalseAction"):
                    found.append((label, parser, required, action))
    return found


def _two_values(action: argparse.Action) -> tuple[str, str] | None:
    accepted: dict[Any, str] = {}
    for text in [*(action.choices or ()), *_CANDIDATES]:
        try:
            value = action.type(text) if callable(action.type) else text
        except (argparse.ArgumentTypeError, TypeError, ValueError):
            continue
        if action.choices is not None and value not in action.choices:
            continue
        accepted.setdefault(value, str(text))
        if len(accepted) == 2:
            first, second = accepted.values()
            return first, second
    return None


VALUE_OPTIONS = _value_options()


def test_every_value_option_of_every_parser_is_stored_once() -> None:
    assert len(VALUE_OPTIONS) >= 40  # plan ~40, serving ~20, lab ~25: the walk found the options
    for label, _, _, action in VALUE_OPTIONS:
        assert isinstance(action, StoreOnce), (label, action.option_strings, type(action))


@pytest.mark.parametrize(
    ("label", "parser", "required", "action"),
    VALUE_OPTIONS,
    ids=[f"{label} {action.option_strings[-1]}" for label, _, _, action in VALUE_OPTIONS],
)
def test_a_value_option_given_twice_with_different_values_exits_2_naming_both(
    label: str,
    parser: argparse.ArgumentParser,
    required: list[str],
    action: argparse.Action,
    capsys: pytest.CaptureFixture[str],
) -> None:
    values = _two_values(action)
    if values is None:  # one accepted value only (serving's --mode serving): it cannot be given two ways
        assert action.choices is not None and len(list(action.choices)) == 1, action.option_strings
        return
    option = action.option_strings[-1]
    # The required options, less the repeated one and those it excludes (--model-config takes --model's place).
    excluded = {option}
    for group in parser._mutually_exclusive_groups:
        if action in group._group_actions:
            excluded |= {name for other in group._group_actions for name in other.option_strings}
    argv: list[str] = []
    for name, value in zip(required[::2], required[1::2], strict=True):
        argv += [] if name in excluded else [name, value]
    with pytest.raises(SystemExit) as done:
        parser.parse_args([*argv, option, values[0], f"{option}={values[1]}"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"{option} {values[0]}" in err and f"{option} {values[1]}" in err and "given twice" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("lang", "argv", "expected"),
    [
        (
            "en",
            [
                "plan",
                "--model",
                "llama3-8b",
                "--cluster",
                "h100-8",
                "--global-batch",
                "64",
                "--nodes",
                "2",
                "--nodes",
                "4",
            ],
            "argument --nodes: given twice with different values, --nodes 2 and --nodes 4; give one value",
        ),
        (
            "zh",
            [
                "--lang",
                "zh",
                "plan",
                "--model",
                "llama3-8b",
                "--cluster",
                "h100-8",
                "--global-batch",
                "64",
                "--nodes",
                "2",
                "--nodes=4",
            ],
            "参数 --nodes：给了两次，值不同：--nodes 2 和 --nodes 4；请只给一个值",
        ),
        (
            "zh",
            [
                "plan",
                "--mode",
                "serving",
                "--model",
                "llama3-8b",
                "--cluster",
                "h100-8",
                "--concurrency",
                "4",
                "--conc",
                "8",
                "--lang",
                "zh",
            ],
            "参数 --concurrency：给了两次，值不同：--concurrency 4 和 --concurrency 8；",
        ),
        (
            "en",
            [
                "--lang",
                "en",
                "--lang",
                "en",
                "plan",
                "--model",
                "gpt2-small",
                "--cluster",
                "a100-8",
                "--cluster",
                "h100-8",
                "--global-batch",
                "16",
            ],
            "argument --cluster: given twice with different values, --cluster a100-8 and --cluster h100-8",
        ),
        (
            "zh",  # the last --lang has been applied when the parser is built
            ["lessons", "/tmp/coursekit-fuzz18-unused", "--lang", "en", "--lang", "zh"],
            "参数 --lang：给了两次，值不同：--lang en 和 --lang zh",
        ),
    ],
)
def test_the_command_line_refuses_a_repeated_flag_in_one_line_of_the_language(
    lang: str, argv: list[str], expected: str
) -> None:
    env = {"PYTHONPATH": str(ROOT), "COURSEKIT_LANG": "en", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "coursekit", *argv], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""
    assert not Path("/tmp/coursekit-fuzz18-unused").exists()


def test_a_flag_given_twice_with_the_same_value_is_read_once() -> None:
    parser = build_plan_parser()
    args = parser.parse_args(
        ["plan", "--model", "llama3-8b", "--cluster", "h100-8", "--global-batch", "64", "--nodes", "2", "--nodes=2"]
    )
    assert args.nodes == 2
    assert not hasattr(args, "_coursekit_given")  # the bookkeeping does not reach the command


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "argument --ranks: given twice with different values, --ranks 2 and --ranks 4; give one value"),
        ("zh", "参数 --ranks：给了两次，值不同：--ranks 2 和 --ranks 4；请只给一个值"),
    ],
)
def test_the_lab_refuses_a_repeated_flag_in_the_language(lang: str, expected: str) -> None:
    env = {"PYTHONPATH": str(ROOT), "COURSEKIT_LANG": lang, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "coursekit.lab", "memory", "--ranks", "2", "--ranks", "4"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr and "Traceback" not in done.stderr, done.stderr


# --- 2. The array-generic helpers refuse numpy types that overflow, wrap or round (they computed in them) ---------

DEEPSEEK_V3 = MODELS["deepseek-v3"]
H100 = CLUSTERS["h100-8"]


@pytest.mark.parametrize(
    ("call", "name", "dtype"),
    [
        # ep·tokens·etp/tp·top_k/E = 1·2**30·2/8·8/256 = 8,388,608 rows; int32 made it -8,388,608
        (lambda: estimate.expert_rows(DEEPSEEK_V3, np.int32(2**30), 8, 1, 2), "tokens", "int32"),
        (lambda: estimate.expert_rows(DEEPSEEK_V3, np.array([2**30], dtype=np.int32), 8, 1, 2), "tokens", "int32"),
        # ceil(8/4) = 2 heads; -8 wraps in uint64, so the answer was 13,835,058,055,282,163,714
        (lambda: kv_heads_split(np.array([8], dtype=np.uint64), 4), "kv_heads", "uint64"),
        (lambda: kv_heads_split(8, np.uint64(4)), "tp", "uint64"),
        # float16 holds at most 65504: a 131072-token sequence became inf tokens
        (lambda: estimate.attention_kernel_tokens(np.array([4096.0], dtype=np.float16)), "s", "float16"),
        # 126 layers on 16 stages with one edge layer: 7, 8, 7; uint8 gave 247, 0, 135
        (lambda: stage_layer_counts(np.array([126], dtype=np.uint8), 16, 1), "layers", "uint8"),
        (lambda: chunks_divide_stages(np.array([7], dtype=np.int16), 8, 7, 16, 1, 4), "first", "int16"),
        (lambda: estimate.matmul_efficiency(DEEPSEEK_V3, H100, np.array([4096.0], np.float32), 8), "tokens", "float32"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_array_helper_refuses_a_narrow_or_unsigned_numpy_type_by_name(
    call: Any, name: str, dtype: str, lang: str
) -> None:
    i18n.set_language(lang)
    with pytest.raises(TypeError) as refused:
        call()
    message = str(refused.value)
    assert message.startswith(f"{name} = ") and dtype in message and "int64" in message and "float64" in message
    if lang == "zh":
        assert "必须是 int64 或 float64" in message and "must" not in message
    else:
        assert "must be int64 or float64" in message


def test_the_array_helpers_still_take_int64_float64_and_python_numbers() -> None:
    # the same hand-worked figures as above, in the types the search computes in
    assert estimate.expert_rows(DEEPSEEK_V3, 2**30, 8, 1, 2) == 8388608.0
    assert estimate.expert_rows(DEEPSEEK_V3, np.int64(2**30), 8, 1, 2) == 8388608.0
    assert estimate.expert_rows(DEEPSEEK_V3, np.array([2.0**30, 4096.0]), 8, 1, 2).tolist() == [8388608.0, 32.0]
    assert kv_heads_split(np.array([8, 8, 1]), np.array([4, 16, 8])).tolist() == [2, 1, 1]
    assert [int(x[0]) for x in stage_layer_counts(np.array([126]), np.array([16]), 1)] == [7, 8, 7]
    assert stage_layer_counts(126, 16, 1) == (7, 8, 7)
