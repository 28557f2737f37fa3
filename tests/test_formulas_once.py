"""Formulas that used to be written more than once, now kernels shared by every caller: worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from coursekit.communication import _ep_calls, _ep_payload_bytes, _ep_remote_share, collective_cost
from coursekit.pipeline import _microbatches_in_flight
from coursekit.roofline import _attention_forward_flops_per_token, attention_flops_per_token
from coursekit.scaling import scaling_curve
from coursekit.specs import ModelSpec


def test_microbatches_in_flight_1f1b_and_interleaved() -> None:
    # 1F1B, p = 4: the first stage holds min(4, m), a middle one min(3, m), the last one 1.
    assert [float(x) for x in _microbatches_in_flight(4, 8)] == [4.0, 3.0, 1.0]
    assert [float(x) for x in _microbatches_in_flight(4, 2)] == [2.0, 2.0, 1.0]
    assert [float(x) for x in _microbatches_in_flight(1, 8)] == [1.0, 1.0, 1.0]
    # Interleaved, p = 4, v = 2: 4 · (1 + 3/8) = 5.5 on every stage (Narayanan et al. 2021, §2.2.2).
    assert [float(x) for x in _microbatches_in_flight(4, 8, 2)] == [5.5, 5.5, 5.5]
    first, _mid, _last = _microbatches_in_flight(np.array([2.0, 8.0]), np.array([16.0, 4.0]), np.array([1.0, 1.0]))
    assert list(first) == [2.0, 4.0]


def test_ep_payload_and_calls() -> None:
    # b·s·h·top_k·bytes = 1 · 4096 · 4096 · 2 · 2 bytes; 4 all-to-alls per MoE layer and micro-batch.
    assert _ep_payload_bytes(4096, 1, 4096, 2, 2) == 4096 * 4096 * 4
    assert _ep_calls(16, 3) == 4 * 16 * 3


@pytest.mark.parametrize(
    ("ep", "members", "top_k", "dedup", "limit", "expected"),
    [
        (8, 8, 2, False, None, 1.0),  # every EP rank on the node: nothing leaves it
        (16, 8, 2, False, None, 1.0),  # no de-duplication: every remote copy is sent
        (16, 8, 2, True, None, 0.75),  # 2 nodes: one other node, reached with prob. 1 - (1/2)^2 = 0.75 of 1 copy
        (32, 8, 8, True, 2, 2 / 6),  # 4 nodes, 8·24/32 = 6 remote copies, at most 2 nodes: 2 of 6
    ],
)
def test_ep_remote_share(ep: int, members: int, top_k: int, dedup: bool, limit: int | None, expected: float) -> None:
    assert float(_ep_remote_share(float(ep), float(members), top_k, dedup, limit)) == pytest.approx(expected)


def test_attention_forward_is_a_third_of_training() -> None:
    # QKᵀ and AV forward: 2·s·h each per token and layer; training adds twice the forward.
    assert _attention_forward_flops_per_token(2, 64, 128) == 4 * 2 * 64 * 128
    assert attention_flops_per_token(2, 64, 128) == 12 * 2 * 64 * 128


def test_logits_bytes() -> None:
    model = ModelSpec("tiny", 2, 64, 4, 256, 32000, 128)
    assert model.logits_bytes(4096) == 4 * 4096 * 32000  # fp32, one rank holds every logit
    assert float(model.logits_bytes(np.array([4096.0]), np.array([8.0]))[0]) == 4 * 4096 * 32000 / 8


def test_scaling_ring_is_the_communication_ring() -> None:
    # 1 GB gradients, 8 devices at 100 GB/s and 5 µs: 2·7/8 · 0.01 s + 14 · 5 µs = 0.01757 s per step.
    curve = scaling_curve(
        [8], single_device_step_s=1.0, gradient_bytes=1e9, bandwidth_bytes_per_s=100e9, latency_s=5e-6
    )
    ring = collective_cost("all_reduce", payload_bytes=1e9, ranks=8, bandwidth_bytes_per_s=100e9, latency_s=5e-6)
    assert ring.total_s == pytest.approx(2 * 7 / 8 * 1e9 / 100e9 + 14 * 5e-6)
    assert curve.points[0].timeline.communication_s == ring.total_s
