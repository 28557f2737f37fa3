"""ZeRO-3 (FSDP) under pipeline stages runs as the engines run it: whole weights and gradients through the step.

PyTorch's pipeline schedules keep a stage's weights gathered and its gradients whole until the last micro-batch, then
reduce-scatter once (torch 2.13, torch/distributed/pipelining/stage.py: ``backward_maybe_with_nosync`` turns off
gradient sync and resharding for every backward but the last; ``perform_reduce_grad`` runs after the last);
torchtitan keeps the weights gathered under PP "to avoid per-microbatch all-gathers"; DeepSpeed refuses ZeRO-3 with
its pipeline engine. So a ZeRO-3 rank with pp > 1 holds ZeRO-1's bytes and moves ZeRO-1's traffic
(:data:`coursekit.planner.estimate.ZERO3_PIPELINE_SOURCE`). The estimate once sharded those weights and gradients
and gathered every layer every micro-batch: TorchTitan's Llama 3.1 405B at FSDP 8, TP 8, PP 8 was read at 18.5 GiB a
GPU when typed as FSDP (measured: 82.5 GiB). Expected values below are worked by hand from Llama 3 8B's config.
"""

from __future__ import annotations

import pytest

from coursekit.planner import WorkloadSpec, evaluate_composition
from coursekit.planner.estimate import stage_as_run
from coursekit.presets import CLUSTERS, MODELS

GIB = 2**30
# Llama 3 8B (meta-llama/Meta-Llama-3-8B config.json): hidden 4096, 32 heads of 128, 8 KV heads, MLP 14336 (SwiGLU),
# 32 layers, vocabulary 128256, untied embeddings
HIDDEN, KV, FFN, LAYERS, VOCAB = 4096, 8 * 128, 14336, 32, 128256
LAYER = 2 * HIDDEN * HIDDEN + 2 * HIDDEN * KV + 3 * HIDDEN * FFN + 2 * HIDDEN  # q, o; k, v; gate, up, down; 2 norms
#: the last of two stages: 16 layers, the final norm and the output projection
LAST_STAGE = 16 * LAYER + HIDDEN + VOCAB * HIDDEN


def _candidate(zero: int, pp: int, ga: int = 4):
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    dp = 8 // pp
    workload = WorkloadSpec(global_batch=dp * ga, seq_len=4096, recipe="zero-fp16-adam")
    return evaluate_composition(model, cluster, workload, tp=1, pp=pp, dp=dp, zero=zero, mb=1, recompute="full")


def test_the_hand_count_of_the_last_stage() -> None:
    assert LAYER == 218_112_000
    assert LAST_STAGE == 16 * 218_112_000 + 4096 + 525_336_576 == 4_015_132_672


def test_zero3_under_a_pipeline_keeps_whole_weights_and_gradients() -> None:
    fsdp = _candidate(zero=3, pp=2)
    assert fsdp.memory is not None
    # bf16 weights and gradients whole (2 + 2 bytes), fp32 master weights and Adam moments (12 bytes) over dp = 4
    assert fsdp.memory.params_gib == pytest.approx(2 * LAST_STAGE / GIB, rel=1e-6)
    assert fsdp.memory.grads_gib == pytest.approx(2 * LAST_STAGE / GIB, rel=1e-6)
    assert fsdp.memory.optimizer_gib == pytest.approx(12 * LAST_STAGE / 4 / GIB, rel=1e-6)
    assert fsdp.memory.workspace_gib == 0.0  # no per-layer gather buffer: the stage stays gathered


def test_zero3_under_a_pipeline_is_zero1_in_memory_traffic_and_time() -> None:
    fsdp, zero1 = _candidate(zero=3, pp=2), _candidate(zero=1, pp=2)
    assert fsdp.zero_stage == 3  # the layout keeps its name
    assert fsdp.memory == zero1.memory and fsdp.step_s == zero1.step_s
    dp_rows = [row for row in fsdp.communication if row.dimension == "DP"]
    assert len(dp_rows) == 1 and dp_rows[0].calls == 2  # one reduce-scatter and one all-gather a step, whatever ga


@pytest.mark.parametrize("ga", [2, 8])
def test_without_a_pipeline_zero3_still_gathers_every_layer_every_micro_batch(ga: int) -> None:
    fsdp = _candidate(zero=3, pp=1, ga=ga)
    assert fsdp.memory is not None
    whole = 2 * (LAYERS * LAYER + HIDDEN + 2 * VOCAB * HIDDEN)  # bf16, the whole model on one stage
    assert fsdp.memory.params_gib == pytest.approx(whole / 8 / GIB, rel=1e-6)
    dp_rows = [row for row in fsdp.communication if row.dimension == "DP"]
    # per micro-batch: a gather per layer forward and backward and a reduce-scatter per layer
    assert dp_rows[0].calls == 3 * LAYERS * ga


def test_stage_as_run_on_every_stage_and_pipeline() -> None:
    assert [stage_as_run(z, 1) for z in range(4)] == [0, 1, 2, 3]
    assert [stage_as_run(z, 4) for z in range(4)] == [0, 1, 2, 1]
