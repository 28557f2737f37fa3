"""TP's all-reduce at decode's small sizes, priced by NCCL's own cost model (algorithm and protocol).

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import check_int, check_number, finite_result, learner_functions
from ..hardware import (
    NCCL_BASE_LATENCY_US,
    NCCL_LL_MAX_BUS_BYTES_PER_S,
    NCCL_NVLINK_STEP_LATENCY_US,
    NCCL_PROTOCOL_BANDWIDTH_SHARE,
    NCCL_RING_NVLINK_LATENCY_S,
)
from ..i18n import Text
from ..units import US_PER_S

#: NCCL's algorithms (as NCCL_ALGO names them) in words, for a learner new to them.
ALGORITHM_NAMES: dict[str, Text] = {
    "ring": Text(zh="环形算法 (ring)", en="ring algorithm"),
    "tree": Text(zh="树形算法 (tree)", en="tree algorithm"),
}


@dataclass(frozen=True)
class AllReduceChoice:
    """One all-reduce as NCCL's cost model prices it: the (algorithm, protocol) it picks and the time."""

    algorithm: str
    protocol: str
    latency_s: float
    transfer_s: float

    @property
    def time_s(self) -> float:
        """Latency plus transfer."""
        return self.latency_s + self.transfer_s

    @property
    def label(self) -> str:
        """The pick in words, in the current language: ``'环形算法 (ring)、LL 协议'``, ``'ring algorithm, LL
        protocol'`` (an algorithm NCCL's tables do not name stays as it is)."""
        name = ALGORITHM_NAMES.get(self.algorithm)
        if name is None:
            return f"{self.algorithm}/{self.protocol}"
        return str(Text(zh=f"{name.zh}、{self.protocol} 协议", en=f"{name.en}, {self.protocol} protocol"))


@finite_result
def tp_all_reduce(
    payload_bytes: float,
    *,
    ranks: int,
    bandwidth_bytes_per_s: float,
    step_latency_s: float = NCCL_RING_NVLINK_LATENCY_S,
) -> AllReduceChoice:
    """The fastest (algorithm, protocol) for one all-reduce inside a node, by NCCL's own cost model.

    For each of ring and tree with the LL, LL128 and Simple protocols: base latency + 2·(n-1) hops ·
    hop latency + S / (bandwidth · protocol share · n / (2(n-1))) — the tables of NCCL's
    ``src/graph/tuning.cc`` (see :data:`coursekit.hardware.NCCL_BASE_LATENCY_US`). Hop latencies are
    NVLink's, scaled by ``step_latency_s`` / 3.4 µs (NCCL's ring/Simple NVLink hop) for other links.
    With ``ranks == 1`` nothing is exchanged.

    >>> small = tp_all_reduce(16 * 8192 * 2, ranks=8, bandwidth_bytes_per_s=450e9)   # a decode step, batch 16
    >>> small.algorithm, small.protocol, round(small.time_s * 1e6, 1)
    ('ring', 'LL', 20.2)
    >>> tp_all_reduce(256e6, ranks=8, bandwidth_bytes_per_s=450e9).protocol   # a large message
    'Simple'

    Taught in: lesson 10 (serving).
    """
    payload = check_number("payload_bytes", payload_bytes, ge=0)
    n = check_int("ranks", ranks, ge=1)
    bandwidth = check_number("bandwidth_bytes_per_s", bandwidth_bytes_per_s, gt=0)
    scale = check_number("step_latency_s", step_latency_s, ge=0) / NCCL_RING_NVLINK_LATENCY_S
    return _tp_all_reduce(payload, n, bandwidth, scale)


def _tp_all_reduce(payload: float, n: int, bandwidth: float, scale: float) -> AllReduceChoice:
    """:func:`tp_all_reduce` on checked arguments; ``scale`` = hop latency / NCCL's ring/Simple NVLink hop."""
    if n == 1:
        return AllReduceChoice("none", "none", 0.0, 0.0)
    best: AllReduceChoice | None = None
    for key, share in NCCL_PROTOCOL_BANDWIDTH_SHARE.items():
        algorithm, protocol = key
        latency_us = NCCL_BASE_LATENCY_US[key] + 2 * (n - 1) * NCCL_NVLINK_STEP_LATENCY_US[key] * scale
        bus = bandwidth * share
        if protocol == "LL":
            bus = min(bus, NCCL_LL_MAX_BUS_BYTES_PER_S * (share / NCCL_PROTOCOL_BANDWIDTH_SHARE[("ring", "LL")]))
        algorithm_bandwidth = bus * n / (2 * (n - 1)) if algorithm == "ring" else bus
        choice = AllReduceChoice(algorithm, protocol, latency_us / US_PER_S, payload / algorithm_bandwidth)
        if best is None or choice.time_s < best.time_s:
            best = choice
    assert best is not None
    return best


learner_functions(globals())
