"""Multi-token prediction modules in the estimate (DeepSeek-V3, arXiv:2412.19437, §2.2), worked by hand.

Each module runs one transformer block, a 2h -> h projection and the model's output layer once more, on the last
pipeline stage (Megatron-Core's ``--mtp-num-layers``; the pipeline layout ``...mL``), and keeps its own logits.
"""

from __future__ import annotations

import dataclasses

import pytest

from coursekit.activations import layer_activation_ledger
from coursekit.planner import WorkloadSpec, evaluate_composition
from coursekit.presets import CLUSTERS
from coursekit.specs import ModelSpec

# A small dense model: 4 layers of h 1024, SwiGLU of 4096, vocabulary 32000; on 8 H100s as TP 1, PP 2, DP 4.
MODEL = ModelSpec("small", 4, 1024, 8, 4096, 32000, 2048)
WORKLOAD = WorkloadSpec(global_batch=8, seq_len=2048, achievable_flops_fraction=0.5)
CLUSTER = CLUSTERS["h100-8"]


def _candidate(mtp: int):  # type: ignore[no-untyped-def]
    model = dataclasses.replace(MODEL, mtp_layers=mtp)
    return evaluate_composition(model, CLUSTER, WORKLOAD, tp=1, pp=2, dp=4, zero=1, mb=1, recompute="none")


def test_mtp_work_on_the_last_stage_by_hand() -> None:
    """Stage work per token: the first stage 2 layers (2·P), the last 2 layers and the output layer (2·P + O).
    With one module the last stage adds a layer, the projection's 6·2h² and the output layer again:
    3·P + 12·h² + 2·O. P comes from the run without the module, O is 6·V·h (PaLM's 6 FLOPs per weight)."""

    def work(candidate) -> float:  # type: ignore[no-untyped-def]
        # compute_s = tokens · work / (dp · peak · efficiency) for a dense bf16 model on TP 1, CP 1
        return candidate.timeline.compute_s * 4 * CLUSTER.peak_flops * 0.5 / (8 * 2048)

    out = 6 * 32000 * 1024
    without, with_mtp = work(_candidate(0)), work(_candidate(1))
    per_layer = (without - out) / 2
    assert with_mtp == pytest.approx(3 * per_layer + 12 * 1024**2 + 2 * out, rel=1e-9)


def test_mtp_memory_on_the_last_stage_by_hand() -> None:
    """One module adds to the last stage: its block's saved activations for each micro-batch in flight (1F1B's last
    stage holds one), one more set of fp32 logits, and its weights (a layer, three norms of h, the 2h x h projection)
    at the recipe's bytes, the optimizer's sharded by ZeRO-1 over DP 4 (the default megatron-bf16: 2 + 4 + 12/4)."""
    without, with_mtp = _candidate(0), _candidate(1)
    assert without.memory is not None and with_mtp.memory is not None
    layer = sum(
        layer_activation_ledger(MODEL.layer_widths(), seq_len=2048, micro_batch=1, flash_attention=True).values()
    )
    logits = MODEL.logits_bytes(2048)
    gib = float(1 << 30)
    assert (with_mtp.memory.activations_gib - without.memory.activations_gib) * gib == pytest.approx(layer + logits)
    weights = dataclasses.replace(MODEL, mtp_layers=1).mtp_block_params
    assert weights == 4 * 1024 * 1024 + 3 * 1024 * 4096 + 2 * 1024 + 3 * 1024 + 2 * 1024 * 1024
    assert WORKLOAD.recipe == "megatron-bf16"
    states = (with_mtp.memory.params_gib + with_mtp.memory.grads_gib + with_mtp.memory.optimizer_gib) - (
        without.memory.params_gib + without.memory.grads_gib + without.memory.optimizer_gib
    )
    assert states * gib == pytest.approx(weights * (2 + 4 + 12 / 4))
