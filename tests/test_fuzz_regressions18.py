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
PLAN_ARGS = ["--model", "llama3-8b", "--cluster", "h100-8", "--global-batch", "64"]
SERVE_ARGS = ["--model", "llama3-8b", "--cluster", "h100-8", "--concurrency", "4"]


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


# --- 3. A text_config that is ignored, or not an object, is said so by name ---------------------------------------

#: Llama 3 8B's language-model keys (meta-llama/Meta-Llama-3-8B config.json; 8,030,261,248 parameters on its card).
LLAMA3_8B_CONFIG = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
}


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "gives 'hidden_size' = 4096 at its top level but 8192 in its text_config"),
        ("zh", "模型配置在顶层写 'hidden_size' = 4096，在 text_config 中却写 8192"),
    ],
)
def test_a_text_config_that_disagrees_with_the_top_level_it_loses_to_is_refused(lang: str, expected: str) -> None:
    from coursekit.specs import ModelSpec

    i18n.set_language(lang)
    config = {**LLAMA3_8B_CONFIG, "text_config": {**LLAMA3_8B_CONFIG, "hidden_size": 8192}}
    with pytest.raises(ValueError, match=expected):
        ModelSpec.from_config(config)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "'text_config' = \"llama\": must be a JSON object"), ("zh", "'text_config' = \"llama\"：必须是 JSON 对象")],
)
def test_a_text_config_that_is_not_an_object_is_named(lang: str, expected: str) -> None:
    from coursekit.specs import ModelSpec

    i18n.set_language(lang)
    with pytest.raises(ValueError, match=expected):
        ModelSpec.from_config({"model_type": "llava", "text_config": "llama"})


def test_a_text_config_that_agrees_or_stands_alone_is_still_read() -> None:
    from coursekit.specs import ModelSpec

    # the card's 8,030,261,248: 2 · 128256 · 4096 embeddings and output, 32 layers of 4096 · (2 · 4096 + 2 · 1024)
    # attention, 3 · 4096 · 14336 MLP and 2 · 4096 norms, and the final 4096 norm
    by_hand = 2 * 128256 * 4096 + 32 * (4096 * (2 * 4096 + 2 * 1024) + 3 * 4096 * 14336 + 2 * 4096) + 4096
    assert by_hand == 8_030_261_248
    agreeing = {**LLAMA3_8B_CONFIG, "text_config": dict(LLAMA3_8B_CONFIG)}  # Qwen2.5-VL-style: both, the same
    alone = {"model_type": "llava", "text_config": dict(LLAMA3_8B_CONFIG), "vision_config": {"hidden_size": 1024}}
    for config in (agreeing, alone, LLAMA3_8B_CONFIG):
        assert ModelSpec.from_config(config).num_params == by_hand


# --- 4. Serving: a request too long for any layout is not blamed on the weights -----------------------------------


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "the weights fit (32.7 GiB per rank) but not one request: its KV cache takes 56.0 GiB per rank"),
        ("zh", "权重放得下（每 rank 32.7 GiB），但连一个请求也放不下：一个请求的 KV 缓存每 rank 要 56.0 GiB"),
    ],
)
def test_a_request_whose_kv_cache_does_not_fit_is_not_told_the_weights_do_not(lang: str, expected: str) -> None:
    from coursekit.serving import ServingWorkload, plan_serving

    i18n.set_language(lang)
    # Mixtral 8x22B (141B parameters on its card) at bf16 over tp = 8: 140.6e9 · 2 / 8 B = 32.7 GiB a rank, which fits
    # 80 GiB; one request of 2**20 + 2**20 tokens holds 56 layers · (K, V) · 1 KV head a rank · 128 · 2 B · 2**21
    # = 56 GiB a rank, which with the prefill's workspace does not.
    workload = ServingWorkload(prompt_tokens=2**20, output_tokens=2**20, concurrency=8)
    report = plan_serving(MODELS["mixtral-8x22b"], H100, workload).report()
    assert expected in report
    assert "weights alone" not in report and "光是权重就放不下" not in report


def test_weights_that_do_not_fit_are_still_said_to() -> None:
    from coursekit.serving import ServingWorkload, plan_serving

    # Llama 3 405B at bf16 is 810 GB, over the 8 · 24 GB of the PCIe box
    report = plan_serving(
        MODELS["llama3-405b"],
        CLUSTERS["pcie-24g-8"],
        ServingWorkload(prompt_tokens=2048, output_tokens=256, concurrency=8),
    ).report()
    assert "the weights alone do not fit" in report


# --- 5. A huge range is refused by its length before it is made into a list ----------------------------------------


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "answer has 1000000000 items: at most 10000."), ("zh", "answer 有 1000000000 项：最多 10000 项。")],
)
@pytest.mark.parametrize("exercise_id", ["q3.dp_degrees", "q4.dp_group"])
def test_a_range_of_a_billion_items_is_refused_without_building_it(exercise_id: str, lang: str, expected: str) -> None:
    from coursekit.exercises import check

    i18n.set_language(lang)
    # list(range(10**9)) is 10**9 pointers (8 GB) and ints: the checker built it, and the kernel died of memory
    feedback = check(exercise_id, range(10**9))
    assert feedback.status == "invalid" and expected in str(feedback.message)


def test_a_range_beyond_len_and_the_count_of_ranges_are_right() -> None:
    from coursekit._validate import check_sequence

    with pytest.raises(ValueError, match="items: at most 10000"):
        check_sequence("times_s", range(10**20))  # len() of it raises OverflowError
    with pytest.raises(ValueError, match="has 10001 items"):
        check_sequence("times_s", range(10_001))
    with pytest.raises(ValueError, match="has 10001 items"):
        check_sequence("times_s", np.zeros(10_001))
    # counted by hand: 0, 3, 6, 9 and 10, 7, 4, 1 and nothing
    assert check_sequence("x", range(0, 10, 3)) == (0, 3, 6, 9)
    assert check_sequence("x", range(10, 0, -3)) == (10, 7, 4, 1)
    assert check_sequence("x", range(5, 5)) == ()
    assert len(check_sequence("x", range(10_000))) == 10_000


@pytest.mark.parametrize(
    ("lang", "argv", "expected"),
    [
        ("en", ["--mode", "serving", "--mode", "training"], "--mode serving and --mode training"),
        (
            "zh",
            ["--mode", "training", "--mode=serving"],
            "参数 --mode：给了两次，值不同：--mode training 和 --mode serving",
        ),
    ],
)
def test_both_modes_at_once_are_a_flag_given_twice(lang: str, argv: list[str], expected: str) -> None:
    # serving's parser knew only "serving": the learner read "invalid choice: 'training' (choose from 'serving')"
    env = {"PYTHONPATH": str(ROOT), "COURSEKIT_LANG": lang, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "coursekit",
            "plan",
            "--model",
            "llama3-8b",
            "--cluster",
            "h100-8",
            "--concurrency",
            "4",
            *argv,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 2 and expected in done.stderr and "invalid choice" not in done.stderr, done.stderr


# --- 6. A 0-d array is one number: the array helpers check its value as a number's --------------------------------


@pytest.mark.parametrize(
    ("call", "shown", "rule"),
    [
        (lambda: kv_heads_split(np.array(0), 4), "kv_heads = np.int64(0)", ">= 1"),  # gave 0 heads
        (lambda: stage_layer_counts(np.array(-126), np.array(16), 1), "layers = np.int64(-126)", ">= 1"),  # -8, 0, -118
        (lambda: estimate.expert_rows(DEEPSEEK_V3, np.array(-5.0), 8, 1, 2), "tokens = np.float64(-5.0)", "> 0"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_zero_dimensional_array_is_checked_as_the_number_it_holds(
    call: Any, shown: str, rule: str, lang: str
) -> None:
    i18n.set_language(lang)
    with pytest.raises(ValueError) as refused:
        call()
    assert str(refused.value).startswith(shown) and rule in str(refused.value)
    assert ("必须" in str(refused.value)) == (lang == "zh")


def test_a_zero_dimensional_array_in_range_gives_the_numbers_answer() -> None:
    # ceil(8 / 4) = 2 heads; 1 · 2**30 · 2 / 8 · 8 / 256 = 8,388,608 rows (DeepSeek-V3: top 8 of 256 experts)
    assert kv_heads_split(np.array(8), np.array(4)) == kv_heads_split(8, 4) == 2
    assert estimate.expert_rows(DEEPSEEK_V3, np.array(2.0**30), 8, 1, 2) == 8388608.0


@pytest.mark.parametrize(
    ("module", "argv", "expected"),
    [
        ("coursekit", ["--lang", "zh", "plan", *PLAN_ARGS, "--lang", "en"], "--lang zh and --lang en"),
        (
            "coursekit",
            ["--lang=en", "plan", "--mode", "serving", *SERVE_ARGS, "--lang", "zh"],
            "--lang en 和 --lang zh",
        ),
        ("coursekit.lab", ["--lang", "en", "memory", "--lang", "zh", "--ranks", "2"], "--lang en 和 --lang zh"),
    ],
)
def test_an_option_of_a_command_and_its_subcommand_given_both_ways_is_refused(
    module: str, argv: list[str], expected: str
) -> None:
    # the later --lang silently won: the learner asked for two languages and got one without a word
    env = {"PYTHONPATH": str(ROOT), "COURSEKIT_LANG": "en", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", module, *argv], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )
    assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""


def test_the_same_language_before_and_after_the_command_is_read_once() -> None:
    parser = build_plan_parser()
    args = parser.parse_args(["--lang", "zh", "plan", *PLAN_ARGS, "--lang", "zh"])
    assert (args.lang_before_command, args.lang) == ("zh", "zh")


# --- 7. A module-level recomputation the model has no module for is refused, not planned as if it did nothing ------


@pytest.mark.parametrize(
    ("model", "modules", "modes", "expected_en", "expected_zh"),
    [
        # Megatron-Core's moe_act / moe wrap the routed experts (moe/experts.py, moe_layer.py): Llama 3 8B has none
        ("llama3-8b", ("moe_act",), ("none",), "llama3-8b is a dense model", "llama3-8b 是稠密模型"),
        ("llama3-8b", ("moe",), ("selective",), "llama3-8b is a dense model", "llama3-8b 是稠密模型"),
        # mla_up_proj wraps multi_latent_attention.py's up projections: Mixtral has grouped-query attention
        ("mixtral-8x7b", ("mla_up_proj",), ("none",), "does not use multi-head latent attention", "不用多头潜在注意力"),
        # layernorm: with Transformer Engine a dense GQA layer's norms are fused into linear_qkv / linear_fc1
        ("llama3-8b", ("layernorm",), ("none",), "has neither MoE layers nor MLA", "既没有 MoE 层也不用 MLA"),
        # every module is added to a mode but full, which keeps only the layer input
        (
            "mixtral-8x7b",
            ("moe_act",),
            ("full",),
            "only recompute mode 'full' is searched",
            "只搜索了重计算模式 'full'",
        ),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_recompute_module_no_answer_reads_is_refused_by_name(
    model: str, modules: tuple[str, ...], modes: tuple[str, ...], expected_en: str, expected_zh: str, lang: str
) -> None:
    from coursekit.planner import WorkloadSpec, plan

    i18n.set_language(lang)
    workload = WorkloadSpec(global_batch=64, seq_len=4096, recompute_modules=modules, recompute_modes=modes)
    with pytest.raises(ValueError) as refused:
        plan(MODELS[model], H100, workload)
    message = str(refused.value)
    assert repr(modules[0]) in message and "recompute_modules" in message
    assert (expected_zh if lang == "zh" else expected_en) in message


@pytest.mark.parametrize(
    ("lang", "argv", "expected"),
    [
        ("en", ["--recompute-modules", "moe_act"], "'moe_act' in --recompute-modules: llama3-8b is a dense model"),
        ("zh", ["--recompute-modules", "layernorm"], "--recompute-modules 中的 'layernorm'：llama3-8b 既没有 MoE 层"),
        ("en", ["--recompute", "full", "--recompute-modules", "moe_act"], "(--recompute full)"),
    ],
)
def test_the_command_line_refuses_a_recompute_module_no_answer_reads(lang: str, argv: list[str], expected: str) -> None:
    env = {"PYTHONPATH": str(ROOT), "COURSEKIT_LANG": lang, "PATH": "/usr/bin:/bin"}
    model = "mixtral-8x7b" if "full" in argv else "llama3-8b"
    plan_args = ["--model", model, "--cluster", "h100-8", "--global-batch", "64", *argv]
    done = subprocess.run(
        [sys.executable, "-m", "coursekit", "plan", *plan_args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_the_recompute_modules_a_model_has_are_still_planned() -> None:
    from coursekit.planner import WorkloadSpec, plan

    # Megatron-Bridge's DeepSeek-V3 recipe: mla_up_proj (MLA) and layernorm (its MoE and MLA norms are modules);
    # Mixtral: moe_act and layernorm (its MoE layers' pre-MLP norm)
    for model, modules in (("deepseek-v2-lite", ("mla_up_proj", "layernorm")), ("mixtral-8x7b", ("moe_act", "moe"))):
        workload = WorkloadSpec(global_batch=64, seq_len=4096, recompute_modules=modules)
        assert plan(MODELS[model], H100, workload).space_size > 0


@pytest.mark.parametrize("passes", [np.array([True]), [True, 2.0], np.True_], ids=["bool array", "list", "np.True_"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_moe_host_wait_refuses_a_truth_value_in_an_array_as_it_does_alone(passes: Any, lang: str) -> None:
    # True alone was refused; in an array it counted as one MoE layer pass (0.0044 s: 1 · (9.4 - 5.0) ms)
    i18n.set_language(lang)
    with pytest.raises(TypeError) as refused:
        estimate.moe_host_wait_s(0.005, 0.0094, passes)
    assert str(refused.value).startswith("moe_layer_passes = ") and ("必须" in str(refused.value)) == (lang == "zh")


def test_moe_host_wait_still_takes_numbers_and_arrays_of_them() -> None:
    # 1536 layer passes of (9.4 - 5.0) ms: 6.7584 s (the function's own example, worked by hand)
    assert estimate.moe_host_wait_s(0.005, 0.0094, 1536) == pytest.approx(6.7584, rel=1e-12)
    assert estimate.moe_host_wait_s(0.005, 0.0094, (1.0, 2.0)).tolist() == pytest.approx([0.0044, 0.0088], rel=1e-12)


# --- 8. Time hidden under compute is never negative --------------------------------------------------------------


def test_no_candidate_reports_a_negative_hidden_communication_time() -> None:
    from coursekit.planner import WorkloadSpec, plan
    from coursekit.specs import ModelSpec

    # a 3-layer, 64-wide model on GB200 NVL72: communication all exposed, and communication - exposed came out as
    # -1.06e-18 s in the JSON (the difference of two equal sums in floating point)
    config = {
        "model_type": "qwen2",
        "hidden_size": 64,
        "num_attention_heads": 1,
        "num_key_value_heads": 1,
        "head_dim": 64,
        "intermediate_size": 14336,
        "num_hidden_layers": 3,
        "vocab_size": 32000,
        "max_position_embeddings": 4096,
    }
    result = plan(ModelSpec.from_config(config), CLUSTERS["gb200-nvl72"], WorkloadSpec(global_batch=64, seq_len=4096))
    tops = result.to_dict(top=5)["top"]
    assert tops and all(c["estimate"]["hidden_communication_s"] >= 0.0 for c in tops)
    # and at the source: the estimate's own column over every accepted candidate of the search
    import numpy as np

    from coursekit.planner.estimate import training_estimate

    table = result._table
    rows = np.flatnonzero(table.accepted)
    columns = {key: np.asarray(values)[rows] for key, values in table.columns.items()}
    est = training_estimate(result.model, result.cluster, result.workload, columns, with_memory=False)
    assert len(rows) > 0 and float(np.min(est["hidden_s"])) >= 0.0


# --- 9. A config.json with a comment or a Python literal is told so, not "a value was expected here" ---------------


@pytest.mark.parametrize(
    ("text", "en", "zh"),
    [
        (
            '// Llama 3 8B\n{"hidden_size": 4096}',
            "line 1, column 1, a comment starts here",
            "第 1 行第 1 列，这里是注释",
        ),
        (
            '{\n  /* sizes */ "hidden_size": 4096\n}',
            "line 2, column 3, a comment starts here",
            "第 2 行第 3 列，这里是注释",
        ),
        ('{"hidden_size": 4096, # width\n}', "line 1, column 23, a comment starts here", "第 1 行第 23 列，这里是注释"),
        ('{"tie_word_embeddings": False}', "Python's False is here; JSON writes it false", "这里是 Python 的 False"),
        (
            '{"rope_scaling": None}',
            "Python's None is here; JSON writes it null",
            "这里是 Python 的 None；JSON 写作小写的 null",
        ),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_comment_or_a_python_literal_in_a_config_file_is_named(
    tmp_path: Path, text: str, en: str, zh: str, lang: str
) -> None:
    from coursekit.model_config import load_model_config

    i18n.set_language(lang)
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        load_model_config(path)
    assert (zh if lang == "zh" else en) in str(refused.value)


def test_other_json_errors_keep_their_reason(tmp_path: Path) -> None:
    from coursekit.model_config import load_model_config

    path = tmp_path / "config.json"
    path.write_text('{"hidden_size": }', encoding="utf-8")
    with pytest.raises(ValueError, match="line 1, column 17, a value was expected here"):
        load_model_config(path)
