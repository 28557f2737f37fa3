"""The FP8 weight cache (``WorkloadSpec(fp8_weight_cache=True)``): Transformer Engine keeps each linear layer's FP8
weight and its FP8 transpose between micro-batches when the engine keeps bf16 weights (Megatron-LM without
``--fp8-param-gather``): 1 + 1 bytes per linear-layer weight on the rank.

Every expected value below is worked by hand from the models' published configs (Hugging Face config.json values
quoted in each test), not from the code under test.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from coursekit.planner import WorkloadSpec, evaluate_composition, plan
from coursekit.planner.cli import workload_argv
from coursekit.presets import CLUSTERS, MODELS
from coursekit.specs import FP8_WEIGHT_CACHE_BYTES

GIB = 2**30

# Llama 3 8B (meta-llama/Meta-Llama-3-8B config.json): hidden 4096, 32 heads of 128, 8 KV heads, SwiGLU 14336,
# 32 layers. Linear weights per layer: Q and O 4096·4096 each, K and V 4096·1024 each, gate/up/down 3·4096·14336.
LLAMA3_8B_LINEAR = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336  # 218,103,808

# Mixtral 8x7B (mistralai/Mixtral-8x7B-v0.1 config.json): hidden 4096, 32 heads of 128, 8 KV heads, 8 experts of
# SwiGLU 14336, 32 layers.
MIXTRAL_ATTENTION = 2 * 4096 * 4096 + 2 * 4096 * 1024  # 41,943,040
MIXTRAL_EXPERT = 3 * 4096 * 14336  # 176,160,768

# DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json): hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512,
# qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128, dense intermediate 18432, expert intermediate 2048,
# one shared expert.
DSV3_ATTENTION = (
    7168 * 1536  # q down-projection
    + 1536 * 128 * (128 + 64)  # q up-projection
    + 7168 * (512 + 64)  # KV latent and the shared rope key
    + 512 * 128 * (128 + 128)  # KV up-projection
    + 128 * 128 * 7168  # output projection
)  # 187,105,280
DSV3_EXPERT = 3 * 7168 * 2048  # 44,040,192


def _params_gib(model: str, nodes: int, cache: bool, precision: str = "fp8", **layout: int) -> float:
    cluster = dataclasses.replace(CLUSTERS["h100-8"], nodes=nodes)
    zero = layout.pop("zero", 1)
    workload = WorkloadSpec(
        global_batch=256, seq_len=4096, precision=precision, fp8_weight_cache=cache, zero_stages=(zero,)
    )
    return evaluate_composition(MODELS[model], cluster, workload, zero=zero, **layout).memory.params_gib


def test_constant_is_an_fp8_weight_and_its_transpose() -> None:
    assert FP8_WEIGHT_CACHE_BYTES == 1 + 1


def test_linear_weights_by_hand() -> None:
    assert LLAMA3_8B_LINEAR == 218_103_808
    assert MODELS["llama3-8b"].linear_weights_per_layer("dense") == LLAMA3_8B_LINEAR
    assert MODELS["mixtral-8x7b"].linear_weights_per_layer("moe") == MIXTRAL_ATTENTION
    assert MODELS["mixtral-8x7b"].expert_linear_weights == MIXTRAL_EXPERT
    assert MODELS["deepseek-v3"].linear_weights_per_layer("dense") == DSV3_ATTENTION + 3 * 7168 * 18432
    assert MODELS["deepseek-v3"].linear_weights_per_layer("moe") == DSV3_ATTENTION + DSV3_EXPERT
    assert MODELS["deepseek-v3"].expert_linear_weights == DSV3_EXPERT
    assert MODELS["llama3-8b"].expert_linear_weights == 0


def test_dense_cache_at_tp2() -> None:
    # 2 bytes x 32 layers x 218,103,808 / TP 2 = 6,979,321,856 bytes = 6.5 GiB, on top of the same layout without it
    without = _params_gib("llama3-8b", 1, False, tp=2, pp=1, dp=4)
    with_cache = _params_gib("llama3-8b", 1, True, tp=2, pp=1, dp=4)
    assert with_cache - without == pytest.approx(2 * 32 * LLAMA3_8B_LINEAR / 2 / GIB)
    assert with_cache - without == pytest.approx(6.5)


def test_moe_cache_counts_the_rank_s_experts() -> None:
    # PP 4: 8 layers a stage; EP 8 puts one of the 8 experts on each rank; TP 1.
    without = _params_gib("mixtral-8x7b", 8, False, tp=1, pp=4, dp=16, ep=8)
    with_cache = _params_gib("mixtral-8x7b", 8, True, tp=1, pp=4, dp=16, ep=8)
    expected_bytes = 2 * 8 * (MIXTRAL_ATTENTION + 8 * MIXTRAL_EXPERT / 8)  # 3,489,660,928 bytes
    assert with_cache - without == pytest.approx(expected_bytes / GIB)
    assert with_cache - without == pytest.approx(3.25)


def test_no_cache_at_zero3_or_bf16() -> None:
    for cache in (False, True):
        assert _params_gib("llama3-8b", 1, cache, tp=2, pp=1, dp=4, zero=3) == pytest.approx(
            _params_gib("llama3-8b", 1, False, tp=2, pp=1, dp=4, zero=3)
        )
        assert _params_gib("llama3-8b", 1, cache, "bf16", tp=2, pp=1, dp=4) == pytest.approx(
            _params_gib("llama3-8b", 1, False, "bf16", tp=2, pp=1, dp=4)
        )


def test_search_counts_it_as_the_scalar_path_does() -> None:
    cluster = dataclasses.replace(CLUSTERS["h100-8"], nodes=1)
    workload = WorkloadSpec(global_batch=64, seq_len=8192, precision="fp8", fp8_weight_cache=True, zero_stages=(1,))
    result = plan(MODELS["llama3-8b"], cluster, workload)
    best = result.accepted(1)[0]
    layout = {
        "tp": best.tp,
        "pp": best.pp,
        "dp": best.dp,
        "cp": best.cp,
        "zero": best.zero_stage,
        "mb": best.micro_batch,
        "recompute": best.recompute,
        "v": best.virtual_stages,
    }
    again = evaluate_composition(MODELS["llama3-8b"], cluster, workload, **layout)
    assert again.memory.total_gib == pytest.approx(best.memory.total_gib)
    # the cache is in the search's ledger: the same best layout needs more memory with it than without
    plain = evaluate_composition(
        MODELS["llama3-8b"], cluster, dataclasses.replace(workload, fp8_weight_cache=False), **layout
    )
    assert best.memory.params_gib - plain.memory.params_gib == pytest.approx(
        2 * 32 * LLAMA3_8B_LINEAR / best.tp / best.pp / GIB
    )


def test_bad_value_names_the_field() -> None:
    with pytest.raises(TypeError, match="fp8_weight_cache"):
        WorkloadSpec(global_batch=8, fp8_weight_cache="yes")  # type: ignore[arg-type]


def test_assumptions_say_which_weights_are_counted() -> None:
    cluster = dataclasses.replace(CLUSTERS["h100-8"], nodes=1)
    for cache, phrase in ((True, "transpose cached"), (False, "FP8 weights replace the bf16 ones")):
        workload = WorkloadSpec(global_batch=64, seq_len=8192, precision="fp8", fp8_weight_cache=cache)
        text = plan(MODELS["llama3-8b"], cluster, workload).report()
        assert phrase in text


def test_command_line_flag_round_trips() -> None:
    workload = WorkloadSpec(global_batch=64, precision="fp8", fp8_weight_cache=True)
    argv = workload_argv(workload)
    assert "--fp8-weight-cache" in argv
    out = subprocess.run(
        [sys.executable, "-m", "coursekit", "plan", "--model", "llama3-8b", "--cluster", "h100-8", *argv],
        capture_output=True,
        text=True,
        check=False,
        env={"COURSEKIT_LANG": "en", "PATH": ""},
    )
    assert out.returncode == 0, out.stderr
    assert "transpose cached" in out.stdout


def test_lesson_names_the_option_and_its_bytes() -> None:
    from pathlib import Path

    source = (Path(__file__).resolve().parents[1] / "notebooks" / "src" / "09_workbench.py").read_text("utf-8")
    flat = " ".join(line.removeprefix("# ") for line in source.splitlines())
    assert f"要多占 {FP8_WEIGHT_CACHE_BYTES:.0f} 字节" in flat and "设 fp8_weight_cache=True 才计入" in flat
    assert f"needs {FP8_WEIGHT_CACHE_BYTES:.0f} more bytes per linear-layer parameter" in flat
    assert "counts only with fp8_weight_cache=True" in flat
