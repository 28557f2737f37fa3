"""Pipeline stages that are not alike, in the estimate, worked by hand on a small dense model.

Multi-token prediction modules (DeepSeek-V3, arXiv:2412.19437, §2.2): each runs one transformer block, a 2h -> h
projection and the model's output layer once more, on the last pipeline stage (Megatron-Core's ``--mtp-num-layers``;
the pipeline layout ``...mL``), and keeps its own logits.

DualPipe (§3.2.1, Table 2): micro-batches enter from both ends of the pipeline, each GPU holds stage i and stage
p - 1 - i; the bubble is (PP/2 - 1)(F&B + B - 3W) against 1F1B's (PP - 1)(F + B), the parameters 2x, the activations
PP + 1. A workload selects it with ``ep_overlap_schedule="dualpipe"``.
"""

from __future__ import annotations

import dataclasses

import pytest

from coursekit.activations import layer_activation_ledger
from coursekit.pipeline import DUALPIPE_BUBBLE_PER_STAGE_PAIR, _dualpipe_bubble_fraction
from coursekit.planner import PlanCandidate, WorkloadSpec, evaluate_composition
from coursekit.presets import CLUSTERS
from coursekit.specs import ModelSpec

# A small dense model: 4 layers of h 1024, SwiGLU of 4096, vocabulary 32000; on 8 H100s as TP 1, PP 2, DP 4.
MODEL = ModelSpec("small", 4, 1024, 8, 4096, 32000, 2048)
WORKLOAD = WorkloadSpec(global_batch=8, seq_len=2048, recipe="megatron-bf16", achievable_flops_fraction=0.5)
CLUSTER = CLUSTERS["h100-8"]
OUT = 6 * 32000 * 1024  # the output layer's FLOPs per token, 6·V·h (PaLM's 6 FLOPs per weight)


def _candidate(mtp: int = 0, schedule: str = "megatron") -> PlanCandidate:
    model = dataclasses.replace(MODEL, mtp_layers=mtp)
    workload = dataclasses.replace(WORKLOAD, ep_overlap_schedule=schedule)
    return evaluate_composition(model, CLUSTER, workload, tp=1, pp=2, dp=4, zero=1, mb=1, recompute="none")


def _work(candidate: PlanCandidate) -> float:
    """FLOPs per token of the slowest GPU: compute_s = tokens · work / (dp · peak · efficiency) for a dense bf16
    model on TP 1, CP 1, at the stated efficiency 0.5."""
    assert candidate.timeline is not None
    return candidate.timeline.compute_s * 4 * CLUSTER.peak_flops * 0.5 / (8 * 2048)


def _per_layer() -> float:
    """P, one layer's FLOPs per token, from the plain 1F1B run: its last stage waits, 2·P + O."""
    return (_work(_candidate()) - OUT) / 2


def test_mtp_work_on_the_last_stage_by_hand() -> None:
    """With one module the last stage adds a layer, the projection's 6·2h² and the output layer again:
    3·P + 12·h² + 2·O."""
    assert _work(_candidate(1)) == pytest.approx(3 * _per_layer() + 12 * 1024**2 + 2 * OUT, rel=1e-9)


def test_mtp_memory_on_the_last_stage_by_hand() -> None:
    """One module adds to the last stage: its block's saved activations for each micro-batch in flight (1F1B's last
    stage holds one), one more set of fp32 logits, and its weights (a layer, three norms of h, the 2h x h projection)
    at the recipe's bytes, the optimizer's sharded by ZeRO-1 over DP 4 (the recipe megatron-bf16: 2 + 4 + 12/4)."""
    without, with_mtp = _candidate(), _candidate(1)
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


def test_dualpipe_bubble_by_hand() -> None:
    # F : B : W = 1 : 2 : 1 and F&B = F + B = 3: (16/2 - 1)(3 + 2 - 3) = 14 forward-chunk times of bubble, against
    # 120 micro-batches of F + B = 3 each; 1F1B would leave (16 - 1)·3 = 45
    assert DUALPIPE_BUBBLE_PER_STAGE_PAIR * 3 == pytest.approx((3 + 2 - 3 * 1) * 1)
    bubble = 14 / (120 * 3 + 14)
    assert float(_dualpipe_bubble_fraction(16, 120)) == pytest.approx(bubble)
    assert float(_dualpipe_bubble_fraction(2, 8)) == 0  # p/2 - 1 = 0: no bubble on two stages


def test_dualpipe_pairs_the_first_and_last_stage_by_hand() -> None:
    """Two stages of 2 layers, the output layer on the last: 1F1B waits for the last stage, 2·P + O per token;
    DualPipe's one GPU kind runs both stages, half of the micro-batches each: (2·P + 2·P + O) / 2. P from the 1F1B
    run."""

    one_f_one_b, dualpipe = _candidate(), _candidate(schedule="dualpipe")
    assert _work(dualpipe) == pytest.approx((4 * _per_layer() + OUT) / 2, rel=1e-9)
    assert one_f_one_b.timeline is not None and dualpipe.timeline is not None
    assert one_f_one_b.timeline.bubble_s > 0 and dualpipe.timeline.bubble_s == 0  # (2/2 - 1) = 0


def test_dualpipe_memory_by_hand() -> None:
    """Each GPU holds both stages' weights (bf16, 2 bytes): the whole model's layers, embedding, output layer and
    final norm; and p + 1 = 3 micro-batches of the two stages' mean activations, 3 · (2·a + 2·a) / 2 = 6·a for a
    layer's a, plus the fp32 logits of the last stage it holds."""
    candidate = _candidate(schedule="dualpipe")
    assert candidate.memory is not None
    first, _, last = MODEL.stage_dense_params(2)
    gib = float(1 << 30)
    assert candidate.memory.params_gib * gib == pytest.approx(2 * (first + last))
    a = sum(layer_activation_ledger(MODEL.layer_widths(), seq_len=2048, micro_batch=1, flash_attention=True).values())
    assert candidate.memory.activations_gib * gib == pytest.approx(6 * a + MODEL.logits_bytes(2048))
