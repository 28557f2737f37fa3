"""FP8 quantisation traffic (coursekit.planner.estimate.fp8_quantisation_bytes_per_token), counted by hand.

Every expected value below is the sum of Transformer Engine's passes as its source runs them
(:data:`coursekit.planner.estimate.FP8_QUANTISATION_SOURCE`), per element: an unfused cast under delayed scaling
reads bf16 and writes FP8, 2 + 1 bytes (amax fused); under current scaling it reads the tensor once more for the
amax first, 2 + 2 + 1. The transposed copy Hopper's wgrad GEMM needs adds 1 written byte when the cast kernel
writes it, or a transpose kernel of its own (read 1, write 1) over the whole tensor after a norm that wrote FP8
(delayed scaling) or a sequence-parallel FP8 all-gather. The norm fused into QKV and fc1 writes FP8 itself under
delayed scaling; under current scaling a quantize pass (2 + 1) follows it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import coursekit.planner.estimate as est
from coursekit.planner import WorkloadSpec
from coursekit.planner.estimate import fp8_quantisation_bytes_per_token, fp8_weight_cast_bytes
from coursekit.planner.search import plan
from coursekit.planner.specs import ModelSpec
from coursekit.presets import CLUSTERS, MODELS

# Llama 3 8B: h 4096, 32 query heads and 8 KV heads of 128 (QKV out 4096 + 2·1024 = 6144), SwiGLU F 14336.
H, QKV, F = 4096, 6144, 14336


def test_llama3_8b_layer_at_tp1_delayed_scaling_by_hand() -> None:
    by_hand = (
        2 * H  # QKV input: the fused norm wrote FP8; a transpose kernel reads 1 and writes 1
        + (3 + 1) * QKV  # QKV output gradient: cast and transpose in one kernel
        + (3 + 1) * H  # projection input (attention's bf16 output)
        + (3 + 1) * H  # projection output gradient
        + 2 * H  # fc1 input: fused norm, transpose only
        + (3 + 1) * 2 * F  # fc1 output gradient (gate and up, 2F wide)
        + (3 + 1) * F  # fc2 input (the bf16 SwiGLU output)
        + (3 + 1) * H  # fc2 output gradient
    )
    bytes_ = fp8_quantisation_bytes_per_token(MODELS["llama3-8b"], "delayed", tp=1)
    assert bytes_.dense_layer == by_hand == 262144
    assert bytes_.moe_layer == bytes_.routed == 0


def test_llama3_8b_layer_at_tp1_current_scaling_by_hand() -> None:
    by_hand = (
        (3 + 1) * H  # QKV input: norm in bf16 with its amax, then quantize (read 2, write 1, transpose 1)
        + (5 + 1) * QKV  # amax read 2, cast read 2 write 1, transpose 1
        + (5 + 1) * H
        + (5 + 1) * H
        + (3 + 1) * H
        + (5 + 1) * 2 * F
        + (5 + 1) * F
        + (5 + 1) * H
    )
    assert fp8_quantisation_bytes_per_token(MODELS["llama3-8b"], "current", tp=1).dense_layer == by_hand == 401408


def test_llama3_8b_layer_at_tp2_sequence_parallel_by_hand() -> None:
    """Column-parallel inputs and row-parallel output gradients are cast on the 1/tp shard and all-gathered in
    FP8; the whole gathered tensor is then transposed (read 1, write 1). The split sides are cast on 1/tp."""
    by_hand = (
        0 * H / 2
        + 2 * H  # QKV input: fused norm (delayed), transpose of the gathered copy
        + 4 * QKV / 2  # QKV output gradient, split
        + 4 * H / 2  # projection input, split
        + 3 * H / 2
        + 2 * H  # projection output gradient: cast the shard, transpose the gathered copy
        + 2 * H  # fc1 input
        + 4 * 2 * F / 2
        + 4 * F / 2
        + 3 * H / 2
        + 2 * H
    )
    got = fp8_quantisation_bytes_per_token(MODELS["llama3-8b"], "delayed", tp=2, sequence_parallel=True)
    assert got.dense_layer == by_hand == 151552
    # Without sequence parallelism the replicated tensors are cast whole on each rank, cast and transpose together.
    no_sp = fp8_quantisation_bytes_per_token(MODELS["llama3-8b"], "delayed", tp=2, sequence_parallel=False)
    assert no_sp.dense_layer == 2 * H + 4 * QKV / 2 + 4 * H / 2 + 4 * H + 2 * H + 4 * 2 * F / 2 + 4 * F / 2 + 4 * H


def test_qwen3_30b_a3b_moe_layer_by_hand() -> None:
    """Qwen3 30B-A3B: h 2048, 32 query heads (4096 wide) and 4 KV heads of 128 (QKV out 5120); 8 of 128 experts
    per token, each SwiGLU of width 768; no shared expert. The experts' inputs come from the token permutation
    (bf16), so every expert tensor is an unfused cast and transpose, on each of the 8 copies."""
    h, q, qkv, f = 2048, 4096, 5120, 768
    attention = 2 * h + 4 * qkv + 4 * q + 4 * h
    routed = 8 * (4 * h + 4 * 2 * f + 4 * f + 4 * h)
    got = fp8_quantisation_bytes_per_token(MODELS["qwen3-30b-a3b"], "delayed", tp=1, etp=1)
    assert (got.moe_layer, got.routed) == (attention, routed) == (49152, 204800)
    # Current scaling: the fused norm's quantize pass 4 bytes, every other tensor 5 + 1.
    cs = fp8_quantisation_bytes_per_token(MODELS["qwen3-30b-a3b"], "current", tp=1, etp=1)
    assert (cs.moe_layer, cs.routed) == (4 * h + 6 * qkv + 6 * q + 6 * h, 8 * 6 * (2 * h + 3 * f))


def test_full_recomputation_repeats_the_row_wise_input_casts() -> None:
    model = MODELS["llama3-8b"]
    again = fp8_quantisation_bytes_per_token(model, "current", rc=2).dense_layer
    once = fp8_quantisation_bytes_per_token(model, "current", rc=0).dense_layer
    # The inputs' row-wise casts: QKV and fc1 after the norm 3 bytes, projection and fc2 inputs 5 bytes.
    assert again - once == 3 * H + 5 * H + 3 * H + 5 * F


def test_weights_cast_once_per_step_by_hand() -> None:
    """Each weight: bf16 read 2, FP8 and its transpose written 1 + 1 (delayed scaling), per parameter."""
    linear_params = H * QKV + H * H + H * 2 * F + F * H
    assert fp8_weight_cast_bytes(MODELS["llama3-8b"], "delayed", tp=4) == 4 * linear_params / 4


def test_array_path_matches_the_scalar_path() -> None:
    np = pytest.importorskip("numpy")
    tp = np.array([1.0, 2.0, 4.0])
    arrays = fp8_quantisation_bytes_per_token(MODELS["qwen3-235b-a22b"], "current", tp, tp, True, np.array([0, 2, 1]))
    for i, (t, rc) in enumerate(zip((1, 2, 4), (0, 2, 1), strict=True)):
        one = fp8_quantisation_bytes_per_token(MODELS["qwen3-235b-a22b"], "current", float(t), float(t), True, rc)
        assert [float(part[i]) for part in arrays] == pytest.approx(list(one), rel=1e-12)


def test_fp8_recipe_is_checked() -> None:
    with pytest.raises(ValueError, match="fp8_recipe"):
        WorkloadSpec(global_batch=8, precision="fp8", fp8_recipe="tensorwise")
    with pytest.raises(TypeError, match="fp8_recipe"):
        WorkloadSpec(global_batch=8, fp8_recipe=1)  # type: ignore[arg-type]


_SMALL = ModelSpec("small", 4, 1024, 8, 4096, 32000, 2048)


def _one_gpu_step(monkeypatch: pytest.MonkeyPatch, workload: WorkloadSpec, zero: bool) -> float:
    cluster = replace(CLUSTERS["h100-8"], gpus_per_node=1)
    with monkeypatch.context() as patch:
        if zero:
            patch.setattr(est, "_fp8_quantisation_s", lambda np, *args: np.zeros_like(args[3].tpf))
        result = plan(_SMALL, cluster, workload)
        index = result.find(tp=1, pp=1, dp=1, cp=1, mb=1, zero=0, recompute="none")
        candidate = result.candidate(index[0])
        assert candidate.step_s is not None
        return candidate.step_s


def test_the_step_grows_by_exactly_the_quantisation_time(monkeypatch: pytest.MonkeyPatch) -> None:
    workload = WorkloadSpec(global_batch=8, precision="fp8", fp8_recipe="current", recompute_modes=("none",))
    grown = _one_gpu_step(monkeypatch, workload, zero=False) - _one_gpu_step(monkeypatch, workload, zero=True)
    tokens = 8 * 2048  # one GPU: the whole global batch, 4 layers
    moved = tokens * 4 * fp8_quantisation_bytes_per_token(_SMALL, "current").dense_layer
    moved += 4 * fp8_weight_cast_bytes(_SMALL, "current")
    assert grown == pytest.approx(moved / CLUSTERS["h100-8"].memory_bandwidth_bytes_per_s, rel=1e-9)
    assert grown > 0


def test_bf16_adds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    workload = WorkloadSpec(global_batch=8, recompute_modes=("none",))
    assert _one_gpu_step(monkeypatch, workload, zero=False) == _one_gpu_step(monkeypatch, workload, zero=True)


def test_the_planner_cli_passes_the_fp8_recipe() -> None:
    import argparse

    from coursekit.planner.cli import _workload, add_plan_command

    plan_parser = add_plan_command(argparse.ArgumentParser().add_subparsers())
    base = ["--model", "llama3-8b", "--cluster", "h100-8", "--global-batch", "8", "--precision", "fp8"]
    assert _workload(plan_parser.parse_args([*base, "--fp8-recipe", "current"])).fp8_recipe == "current"
    assert _workload(plan_parser.parse_args(base)).fp8_recipe == "delayed"


def test_frozen_weights_give_their_inputs_no_column_wise_copy() -> None:
    """LoRA (frozen weights): Transformer Engine asks an input's quantizer for the column-wise copy only when the
    weight takes a gradient (``backward_needs_input = is_grad_enabled and weight.requires_grad``). Llama 3 8B at TP 1,
    delayed scaling: QKV's and fc1's inputs come from a fused norm that writes FP8 itself, nothing to cast; the
    projection's and fc2's inputs a plain cast, read 2 and write 1 byte; the output gradients as before, cast 3 plus
    the transposed copy 1: 3·(4096 + 14336) + 4·(6144 + 4096 + 28672 + 4096)."""
    by_hand = 3 * (4096 + 14336) + 4 * (6144 + 4096 + 28672 + 4096)
    frozen = fp8_quantisation_bytes_per_token(MODELS["llama3-8b"], "delayed", tp=1, frozen=True)
    assert frozen.dense_layer == by_hand == 227328
    # every weight trained: the inputs' transposed copies add 2·4096 + 1·4096 + 2·4096 + 1·14336 (docstring example)
    assert fp8_quantisation_bytes_per_token(MODELS["llama3-8b"], "delayed", tp=1).dense_layer - by_hand == 34816


def test_a_lora_step_casts_its_inputs_row_wise_only(monkeypatch: pytest.MonkeyPatch) -> None:
    workload = WorkloadSpec(
        global_batch=8, precision="fp8", fp8_recipe="current", recompute_modes=("none",), lora_rank=8
    )
    grown = _one_gpu_step(monkeypatch, workload, zero=False) - _one_gpu_step(monkeypatch, workload, zero=True)
    tokens = 8 * 2048
    moved = tokens * 4 * fp8_quantisation_bytes_per_token(_SMALL, "current", frozen=True).dense_layer
    moved += 4 * fp8_weight_cast_bytes(_SMALL, "current")  # the frozen weights still need their FP8 copies
    assert grown == pytest.approx(moved / CLUSTERS["h100-8"].memory_bandwidth_bytes_per_s, rel=1e-9)
