"""Inputs an adversarial fuzzing pass found wrong, each with the behaviour it must have now.

numpy integers narrower than Python's wrap around silently in arithmetic; positive floats as small as 1e-320 are valid
floats yet make a step time infinite; a deeply nested or huge JSON file reaches Python's recursion or memory limit. Each
must now give a clear ``TypeError``/``ValueError`` naming the parameter, or be taken as the number it holds.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from coursekit.model_config import MAX_CONFIG_BYTES, load_model_config
from coursekit.planner import ClusterSpec, ModelSpec, WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS

# A Llama-2-7B-like shape: 32 layers, hidden 4096, 32 heads, SwiGLU 14336, vocabulary 32000, sequence 4096.
SHAPE = (32, 4096, 32, 14336, 32000, 4096)


def test_numpy_integers_are_stored_as_python_ints() -> None:
    plain = ModelSpec("m", *SHAPE)
    for kind in (np.int16, np.int32, np.uint32, np.int64):
        narrow = ModelSpec("m", SHAPE[0], kind(SHAPE[1]), *SHAPE[2:])
        assert type(narrow.hidden) is int
        # 4096² in int32 would wrap: the parameter count must equal the plain-int model's, worked by hand below
        assert narrow.num_params == plain.num_params
    # attention 2·4096·4096 + 2·4096·4096 (MHA), SwiGLU 3·4096·14336, 2 RMSNorms of 4096 per layer; embedding and
    # untied output 32000·4096 each; the final norm 4096
    per_layer = 4 * 4096 * 4096 + 3 * 4096 * 14336 + 2 * 4096
    assert plain.num_params == 32 * per_layer + 2 * 32000 * 4096 + 4096


def test_numpy_cluster_sizes_cannot_bypass_the_world_size_limit() -> None:
    with pytest.raises(ValueError, match="world size"):
        ClusterSpec("c", np.int16(1000), np.int16(200), 80, 312e12, 300e9, 25e9, 0, 0, 2e12)


def test_a_plan_with_numpy_sizes_equals_the_plain_plan() -> None:
    cluster = CLUSTERS["h100-8"]
    narrow = plan(
        ModelSpec("m", SHAPE[0], np.int32(SHAPE[1]), *SHAPE[2:]),
        cluster,
        WorkloadSpec(global_batch=np.int32(64), seq_len=np.int16(4096)),
    )
    plain = plan(ModelSpec("m", *SHAPE), cluster, WorkloadSpec(global_batch=64, seq_len=4096))
    best, expected = narrow.accepted(1)[0], plain.accepted(1)[0]
    assert best.label() == expected.label() and best.step_s == pytest.approx(expected.step_s) and best.step_s > 0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("inter_node_bandwidth_bytes_per_s", 1e-320),
        ("intra_node_bandwidth_bytes_per_s", 5e-324),
        ("memory_bandwidth_bytes_per_s", 1e-300),
        ("peak_flops", 5e-324),
        ("peak_flops", 1e308),
        ("memory_per_device_gib", 1e308),
        ("inter_node_latency_s", 1e300),
    ],
)
def test_device_figures_outside_physical_bounds_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(CLUSTERS["h100-8"], **{field: value})


@pytest.mark.parametrize("field", ["achievable_flops_fraction", "efficiency_ceiling", "fp8_matmul_share"])
def test_vanishing_shares_of_peak_are_refused(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        WorkloadSpec(global_batch=8, **{field: 1e-310})


def test_index_accessors_check_their_index() -> None:
    result = plan(MODELS["gpt2-small"], CLUSTERS["a100-8"], WorkloadSpec(global_batch=16))
    for call in (
        lambda: result.codes(len(result)),
        lambda: result.degrees(-1),
        lambda: result.estimated_step_s(-1),
        lambda: result.to_dict(top=-1),
    ):
        with pytest.raises(ValueError, match=r"index|top"):
            call()
    with pytest.raises(TypeError, match="index"):
        result.degrees(1.0)  # type: ignore[arg-type]
    assert result.explain({"tp": np.int64(2)}).tp == 2


def test_model_methods_check_plain_numbers() -> None:
    model = MODELS["gpt2-small"]
    with pytest.raises(ValueError, match="shards"):
        model.logits_bytes(5, 0)
    with pytest.raises(ValueError, match="tokens"):
        model.logits_bytes(-5)
    with pytest.raises(ValueError, match="tp"):
        MODELS["llama3-8b"].kv_width_per_rank(0)
    with pytest.raises(TypeError, match="model"):
        WorkloadSpec(global_batch=4).tokens_per_sequence("x")  # type: ignore[arg-type]
    # 4 bytes x 8 tokens x 50257 / 2, the documented formula, worked by hand
    assert model.logits_bytes(8, 2) == 4 * 8 * 50257 / 2


def test_config_files_that_are_too_deep_or_too_large(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nested too deeply"):
        load_model_config(deep)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"pad": "x" * MAX_CONFIG_BYTES}))
    with pytest.raises(ValueError, match="over the limit"):
        load_model_config(big)
    with pytest.raises(ValueError, match="does not exist"):
        load_model_config("")


def test_config_numbers_from_numpy_and_null_booleans() -> None:
    config = {
        "hidden_size": np.int64(512),
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "intermediate_size": 1024,
        "vocab_size": 1000,
        "max_position_embeddings": 256,
        "tie_word_embeddings": None,  # JSON null: absent, as for the integer keys
        "attention_dropout": np.float32(0.0),
    }
    model = ModelSpec.from_config(config)
    assert type(model.hidden) is int and model.hidden == 512


@pytest.mark.parametrize(
    "flags",
    [
        ["--inter-node-gb-s", "1e-320"],
        ["--mfu", "1e-310"],
        ["--precision", "fp8", "--fp8-matmul-share", "1e-320"],
    ],
)
def test_command_line_refuses_vanishing_figures_without_a_traceback(flags: list[str]) -> None:
    out = subprocess.run(
        [
            *(sys.executable, "-m", "coursekit", "plan", "--model", "gpt2-small", "--cluster", "h100-8"),
            *("--global-batch", "16", "--nodes", "2", *flags),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={"COURSEKIT_LANG": "en", "PATH": ""},
    )
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "must be >=" in out.stderr


def test_config_odd_values_are_named(tmp_path: Path) -> None:
    base = {
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "intermediate_size": 1024,
        "vocab_size": 1000,
        "max_position_embeddings": 256,
    }
    infinite = tmp_path / "inf.json"
    infinite.write_text(json.dumps(base)[:-1] + ', "hidden_size": Infinity}')
    with pytest.raises(ValueError, match=r"'hidden_size' = inf"):
        ModelSpec.from_config(load_model_config(infinite))
    digits = tmp_path / "digits.json"
    digits.write_text('{"hidden_size": ' + "9" * 5000 + "}")
    with pytest.raises(ValueError, match="not usable JSON"):
        load_model_config(digits)
    moe = {**base, "hidden_size": 512, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 256}
    with pytest.raises(ValueError, match="mlp_only_layers"):
        ModelSpec.from_config({**moe, "mlp_only_layers": [0, "a"]})
    assert ModelSpec.from_config({**base, "hidden_size": 512, "_name_or_path": "   ", "model_type": "llama"}).name == (
        "llama"
    )


def test_serving_replicas_refuse_training_arguments() -> None:
    from coursekit.planner import evaluate_composition

    serving = WorkloadSpec(global_batch=8, mode="serving")
    with pytest.raises(ValueError, match=r"dp = 2, cp = 2, ep = 2, zero = 3"):
        evaluate_composition(MODELS["llama3-8b"], CLUSTERS["h100-8"], serving, replicas=4, ep=2, cp=2, dp=2, zero=3)
    assert evaluate_composition(MODELS["llama3-8b"], CLUSTERS["h100-8"], serving, tp=2, replicas=4).replicas == 4


def test_serving_bytes_per_element_are_bounded() -> None:
    from coursekit.serving import ServingWorkload

    with pytest.raises(ValueError, match="weight_bytes"):
        ServingWorkload(prompt_tokens=1, output_tokens=1, concurrency=8, weight_bytes=1e308)
    with pytest.raises(ValueError, match="kv_bytes"):
        ServingWorkload(prompt_tokens=1, output_tokens=1, concurrency=8, kv_bytes=10**15)
    with pytest.raises(ValueError, match="runtime_reserve_gib"):
        WorkloadSpec(global_batch=8, runtime_reserve_gib=1e308)


# A custom cluster an H100 node would state on the command line: 80 GiB, 989 TFLOP/s, 3350 GB/s HBM, 8 GPUs,
# 450 GB/s NVLink and 50 GB/s InfiniBand per GPU per direction.
H100_FLAGS = {
    "gpu-memory-gib": "80",
    "peak-tflops": "989",
    "hbm-gb-s": "3350",
    "gpus-per-node": "8",
    "intra-gb-s": "450",
    "inter-gb-s": "50",
}


@pytest.mark.parametrize(
    ("flag", "value", "spec_field", "spec_value"),
    [
        # ClusterSpec takes a peak of 1e9..1e18 FLOP/s: 0.001..1e6 TFLOP/s on the command line
        ("peak-tflops", "1e7", "peak_flops", 1e19),
        ("peak-tflops", "1e-4", "peak_flops", 1e8),
        # and a bandwidth of 1e6..1e15 B/s: 0.001..1e6 GB/s
        ("inter-gb-s", "1e-4", "inter_node_bandwidth_bytes_per_s", 1e5),
        ("hbm-gb-s", "2e6", "memory_bandwidth_bytes_per_s", 2e15),
    ],
)
def test_custom_cluster_flags_are_refused_in_their_own_unit(
    flag: str, value: str, spec_field: str, spec_value: float
) -> None:
    h100 = CLUSTERS["h100-8"]
    with pytest.raises(ValueError, match=spec_field):  # the spec refuses the same figure in its own unit
        dataclasses.replace(h100, **{spec_field: spec_value})
    flags = [item for key, default in H100_FLAGS.items() for item in (f"--{key}", value if key == flag else default)]
    out = subprocess.run(
        [sys.executable, "-m", "coursekit", "plan", "--model", "gpt2-small", *flags, "--global-batch", "16"],
        capture_output=True,
        text=True,
        check=False,
        env={"COURSEKIT_LANG": "en", "PATH": ""},
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"argument --{flag}:" in out.stderr, out.stderr  # named as typed, not as the spec's FLOP/s field


def test_stage_layers_refuses_edges_that_leave_a_negative_stage() -> None:
    from coursekit.planner import stage_layers

    # 12 layers, 4 stages, 100 edge layers: q = ceil((12 + 200) / 4) = 53, edge stages 53 - 100 = -47
    with pytest.raises(ValueError, match=r"edge_layers = 100.*-47"):
        stage_layers(12, 4, 100)
    # 6 edge layers: q = ceil(24 / 4) = 6, edge stages 0 (malformed, named by the pp_layers gate), middle 12 / 2 = 6
    assert stage_layers(12, 4, 6) == (0, 6, 0)


def test_load_imbalance_of_equal_times_is_exactly_zero() -> None:
    from coursekit.scaling import load_imbalance_s, step_timeline

    # max(t) - mean(t) with t = 0.1 three times rounds to -1.4e-17; the mean of the waits max(t) - t_i is 0 exactly
    assert load_imbalance_s([0.1, 0.1, 0.1]) == 0.0 and load_imbalance_s([0.7] * 3) == 0.0
    assert load_imbalance_s([1.0, 1.0, 1.0, 1.4]) == pytest.approx(0.3)  # waits 0.4, 0.4, 0.4 and 0: mean 0.3
    assert step_timeline(0.1, 0.05, load_imbalance_s=load_imbalance_s([0.1] * 3)).load_imbalance_s == 0.0
    # near the float limit: equal times wait 0 (max - mean overflowed the sum), and the waits' mean stays finite
    assert load_imbalance_s([1e308] * 4) == 0.0
    assert load_imbalance_s([1.7e308, 1e-300, 1e-300, 1e-300]) == pytest.approx(0.75 * 1.7e308)


# Phi-2 (huggingface.co/microsoft/phi-2 config.json): model_type "phi", GELU ("gelu_new"), layer_norm_eps, biases
PHI2 = {
    "model_type": "phi",
    "hidden_size": 2560,
    "intermediate_size": 10240,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "num_hidden_layers": 32,
    "vocab_size": 51200,
    "max_position_embeddings": 2048,
    "hidden_act": "gelu_new",
    "layer_norm_eps": 1e-5,
    "tie_word_embeddings": False,
}


def test_an_unknown_model_type_is_read_from_its_own_keys() -> None:
    phi = ModelSpec.from_config(PHI2)
    assert (phi.mlp, phi.norm, phi.biases) == ("gelu", "layernorm", True)
    h, f, layers, vocab = 2560, 10240, 32, 51200
    # the spec's structure: 4 projections with biases, a 2-matrix MLP with biases, 2 LayerNorms (weight and bias) a
    # layer; a final LayerNorm; untied embedding and output layer. (Phi-2's own block is parallel with one norm and
    # its output layer has a bias: 2,779,683,840 published, 0.004 % less.)
    per_layer = 4 * h * h + 4 * h + 2 * h * f + f + h + 2 * 2 * h
    assert phi.num_params == layers * per_layer + 2 * h + 2 * vocab * h == 2_779_796_480
    # StarCoder2 names its norm and biases: norm_type layer_norm, use_bias true
    star = ModelSpec.from_config(
        {**PHI2, "model_type": "starcoder2", "hidden_act": "gelu_pytorch_tanh", "norm_type": "layer_norm"}
        | {"use_bias": True, "layer_norm_eps": None, "norm_epsilon": 1e-5}
    )
    assert (star.mlp, star.norm, star.biases) == ("gelu", "layernorm", True)
    # Nemotron: squared ReLU (2 matrices), no biases as attention_bias says
    nemotron = ModelSpec.from_config({**PHI2, "model_type": "nemotron", "hidden_act": "relu2", "attention_bias": False})
    assert (nemotron.mlp, nemotron.biases) == ("gelu", False)
    # an unknown type with SiLU is gated, as Llama; with no activation key the spec says it assumed so
    silu = ModelSpec.from_config({**PHI2, "model_type": "newmodel", "hidden_act": "silu", "layer_norm_eps": None})
    assert (silu.mlp, silu.norm, silu.biases) == ("swiglu", "rmsnorm", False)
    bare = {k: v for k, v in PHI2.items() if k not in ("model_type", "hidden_act", "layer_norm_eps")}
    assert "assumed Llama-style" in ModelSpec.from_config(bare).source
    # a known type still decides, whatever its activation key says (Gemma's GeGLU is gated)
    gemma = ModelSpec.from_config({**PHI2, "model_type": "gemma", "hidden_act": "gelu_pytorch_tanh"})
    assert (gemma.mlp, gemma.norm) == ("swiglu", "rmsnorm")


def test_opt_dropout_key_is_read() -> None:
    assert ModelSpec.from_config({**PHI2, "model_type": "opt", "dropout": 0.1}).dropout == 0.1


def test_groups_of_a_layout_on_one_node_stay_inside_it() -> None:
    from coursekit.planner import group_link

    # contiguous ranks: TP 3 over 6 ranks of one 8-GPU node holds {0, 1, 2} and {3, 4, 5}; over 12 ranks {6, 7, 8}
    # spans nodes 0 and 1
    assert group_link(3, 8, used_ranks=6) == "intra_node" and group_link(3, 8, used_ranks=12) == "inter_node"
    result = plan(MODELS["gpt2-small"], CLUSTERS["a100-8"], WorkloadSpec(global_batch=16))
    one_node = result.explain("tp=3")
    # the 2 idle ranks (Megatron-Core needs TP·CP·PP·DP = world size) are the reason it is refused, not the node
    assert "interconnect" not in one_node.codes and one_node.codes[0] == "ranks"


def test_what_if_bounds_the_slowdown_by_the_link_it_divides() -> None:
    from coursekit.planner import what_if

    # H100 nodes' 50 GB/s InfiniBand over ClusterSpec's floor of 1e6 B/s: a slowdown of at most 50,000
    with pytest.raises(ValueError, match=r"link_slowdown = 100000.0: must be <= 50000"):
        what_if("llama3-8b", "h100-8", 2, WorkloadSpec(global_batch=64), link_slowdown=1e5)


def test_type_descriptions_follow_the_language() -> None:
    import coursekit
    from coursekit.planner import parse_degrees

    coursekit.set_language("zh")
    try:
        with pytest.raises(TypeError) as info:
            parse_degrees([("tp", 2)])
        assert "str 或映射 (mapping)" in str(info.value) and " or " not in str(info.value)
    finally:
        coursekit.set_language("en")
    # a mapping's keys are read as the text form reads them: case and spaces do not matter
    assert parse_degrees({"TP": 2, " pp ": 4}) == parse_degrees("TP=2, pp=4") == {"tp": 2, "pp": 4}


def test_mfu_above_one_is_refused() -> None:
    from coursekit.roofline import mfu

    # 8e9 FLOPs a token × 1e9 tokens/s = 8e18 FLOP/s on one 312 TFLOP/s device: 25,641 times its peak
    with pytest.raises(ValueError, match=r"MFU = 2\.564e\+04 > 1"):
        mfu(model_flops_per_token=8e9, tokens_per_s=1e9, devices=1, peak_flops=312e12)
    assert mfu(6 * 175e9, 1.0e5, 1024, 312e12) == pytest.approx(6 * 175e9 * 1e5 / (1024 * 312e12))


def test_paper_case_names_its_own_fields() -> None:
    from coursekit.matrix import PAPER_CASES

    case = PAPER_CASES[0]
    with pytest.raises(ValueError, match="nodes = 9007199254740992"):
        dataclasses.replace(case, nodes=2**53, gpus_per_node=2**53)
    with pytest.raises(ValueError, match="training_state_gib = 1e\\+308"):
        dataclasses.replace(case, training_state_gib=1e308)


def test_the_command_line_refuses_two_inter_node_bandwidths() -> None:
    out = subprocess.run(
        [
            *(sys.executable, "-m", "coursekit", "plan", "--model", "gpt2-small", "--cluster", "h100-8"),
            *("--global-batch", "16", "--nodes", "2", "--inter-gb-s", "10", "--inter-node-gb-s", "40"),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={"COURSEKIT_LANG": "en", "PATH": ""},
    )
    assert out.returncode == 2 and "both set the inter-node bandwidth" in out.stderr


def test_a_published_layout_fills_its_cluster() -> None:
    from coursekit.presets import PublishedRun

    # 128 nodes of 8 H100s are 1024 GPUs; TP 8 × DP 16 covers 128 of them (a transcription slip: DP is 128)
    args = ("x", "llama3-70b", "h100-8", 128, 512, 8192)
    with pytest.raises(ValueError, match="128 ranks, but the run used 1024 GPUs"):
        PublishedRun(*args, (("tp", 8), ("pp", 1), ("dp", 16)), "megatron-core-2025", 400.0, "source")
    assert PublishedRun(*args, (("tp", 8), ("pp", 1), ("dp", 128)), "megatron-core-2025", 400.0, "source").nodes == 128
