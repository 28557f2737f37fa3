"""DeepSeek-V3's DualPipe schedule (arXiv:2412.19437, §3.2.1, Table 2) in the estimate, worked by hand.

DualPipe feeds micro-batches from both ends of the pipeline: each GPU holds stage i and stage p - 1 - i. Table 2:
the bubble is (PP/2 - 1)(F&B + B - 3W) against 1F1B's (PP - 1)(F + B), the parameters 2x, the activations PP + 1.
A workload selects it with ``ep_overlap_schedule="dualpipe"``.
"""

from __future__ import annotations

import dataclasses

import pytest

from coursekit.activations import layer_activation_ledger
from coursekit.pipeline import DUALPIPE_BUBBLE_PER_STAGE_PAIR, _dualpipe_bubble_fraction
from coursekit.planner import WorkloadSpec, evaluate_composition
from coursekit.presets import CLUSTERS
from coursekit.specs import ModelSpec

MODEL = ModelSpec("small", 4, 1024, 8, 4096, 32000, 2048)
WORKLOAD = WorkloadSpec(global_batch=8, seq_len=2048, achievable_flops_fraction=0.5)
CLUSTER = CLUSTERS["h100-8"]


def _candidate(schedule: str):  # type: ignore[no-untyped-def]
    workload = dataclasses.replace(WORKLOAD, ep_overlap_schedule=schedule)
    return evaluate_composition(MODEL, CLUSTER, workload, tp=1, pp=2, dp=4, zero=1, mb=1, recompute="none")


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
    run; O = 6·V·h."""

    def work(candidate) -> float:  # type: ignore[no-untyped-def]
        return candidate.timeline.compute_s * 4 * CLUSTER.peak_flops * 0.5 / (8 * 2048)

    out = 6 * 32000 * 1024
    one_f_one_b, dualpipe = _candidate("megatron"), _candidate("dualpipe")
    per_layer = (work(one_f_one_b) - out) / 2
    assert work(dualpipe) == pytest.approx((4 * per_layer + out) / 2, rel=1e-9)
    assert one_f_one_b.timeline.bubble_s > 0 and dualpipe.timeline.bubble_s == 0  # (2/2 - 1) = 0


def test_dualpipe_memory_by_hand() -> None:
    """Each GPU holds both stages' weights (bf16, 2 bytes): the whole model's layers, embedding, output layer and
    final norm; and p + 1 = 3 micro-batches of the two stages' mean activations, 3 · (2·a + 2·a) / 2 = 6·a for a
    layer's a, plus the fp32 logits of the last stage it holds."""
    candidate = _candidate("dualpipe")
    assert candidate.memory is not None
    first, _, last = MODEL.stage_dense_params(2)
    gib = float(1 << 30)
    assert candidate.memory.params_gib * gib == pytest.approx(2 * (first + last))
    a = sum(layer_activation_ledger(MODEL.layer_widths(), seq_len=2048, micro_batch=1, flash_attention=True).values())
    assert candidate.memory.activations_gib * gib == pytest.approx(6 * a + MODEL.logits_bytes(2048))
