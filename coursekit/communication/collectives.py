"""One collective under the ring alpha-beta model, with nccl-tests' bus-bandwidth factors.

Array-generic kernels (``_bus_factor``, ``_steps``, ``_collective_time_s``) serve the public, validating
functions here and the searches' whole columns of candidates.

Taught in: lesson 2 (Q2 communication).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._validate import (
    check_choice,
    check_int,
    check_number,
    finite_result,
    learner_functions,
)
from ..glossary import lookup
from ..i18n import Text
from .ledger import _dominant


def _glossary_term(english: str) -> Text:
    """The glossary entry ``english`` as a two-language term."""
    entry = lookup(english)
    return Text(zh=entry.zh, en=entry.en)


#: The collectives the strategies of the course issue.
COLLECTIVES: tuple[str, ...] = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv")
#: Every kind :func:`bus_bandwidth_factor` and :func:`collective_cost` accept
#: (``reduce`` is in nccl-tests' table; no strategy here issues it).
BUS_BANDWIDTH_KINDS: tuple[str, ...] = (*COLLECTIVES, "reduce")
#: What a lesson calls each kind of :data:`BUS_BANDWIDTH_KINDS`: the glossary's Chinese and English terms
#: (:data:`coursekit.glossary.GLOSSARY`, one place for them), and for the two kinds it has no entry for, their own.
COLLECTIVE_NAMES: dict[str, Text] = {
    **{
        kind: _glossary_term(kind.replace("_", "-"))
        for kind in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
    },
    "send_recv": Text(zh="点对点收发", en="send/recv"),
    "reduce": Text(zh="归约", en="reduce"),
}

NCCL_TESTS_SOURCE: str = "NVIDIA/nccl-tests, doc/PERFORMANCE.md (busbw = algbw x factor) and src/*.cu GetBw functions"


def bus_bandwidth_factor(kind: str, ranks: int) -> float:
    """nccl-tests' correction factor: ``busbw = algbw * factor`` for a collective over ``ranks`` ranks.

    Parameters:
        kind: one of :data:`BUS_BANDWIDTH_KINDS`.
        ranks: ranks taking part, n >= 1.

    all_reduce 2(n-1)/n; all_gather, reduce_scatter and all_to_all (n-1)/n;
    broadcast, reduce and send_recv 1 (NVIDIA/nccl-tests doc/PERFORMANCE.md;
    ``AlltoAllGetBw`` and ``SendRecvGetBw`` in src/). It is also the fraction
    of the full buffer S each rank must push through its link, so transfer time
    is ``S * factor / B`` with B the unidirectional per-link bandwidth.

    >>> bus_bandwidth_factor("all_reduce", 8)
    1.75
    >>> bus_bandwidth_factor("all_gather", 4)
    0.75

    Taught in: lesson 2 (Q2 communication).
    """
    return float(_bus_factor(check_choice("kind", kind, BUS_BANDWIDTH_KINDS), check_int("ranks", ranks, ge=1)))


def _bus_factor(kind: str, n: Any) -> Any:
    """Array-generic :func:`bus_bandwidth_factor` (``n`` may be a numpy array)."""
    if kind == "all_reduce":
        return 2 * (n - 1) / n
    if kind in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    return 1.0 + 0 * n


def _steps(kind: str, n: Any) -> Any:
    """Array-generic ring latency steps: 0 when ``n == 1``."""
    if kind == "all_reduce":
        return 2 * (n - 1)
    if kind == "send_recv":
        return 1 * (n > 1)
    return n - 1


def _collective_transfer_s(kind: str, n: Any, payload_bytes: Any, bandwidth_bytes_per_s: Any) -> Any:
    """Transfer term factor·S/B, 0 when ``n == 1``; array-generic."""
    return (n > 1) * _bus_factor(kind, n) * payload_bytes / bandwidth_bytes_per_s


def _collective_terms_s(
    kind: str, n: Any, payload_bytes: Any, bandwidth_bytes_per_s: Any, latency_s: Any
) -> tuple[Any, Any]:
    """The latency term steps·alpha and the transfer term factor·S/B of one collective; array-generic."""
    return _steps(kind, n) * latency_s, _collective_transfer_s(kind, n, payload_bytes, bandwidth_bytes_per_s)


def _collective_time_s(kind: str, n: Any, payload_bytes: Any, bandwidth_bytes_per_s: Any, latency_s: Any) -> Any:
    """Ring alpha-beta time of one collective (see :func:`collective_cost`); array-generic, no validation."""
    latency, transfer = _collective_terms_s(kind, n, payload_bytes, bandwidth_bytes_per_s, latency_s)
    return latency + transfer


@dataclass(frozen=True)
class CollectiveCost:
    """Time of one collective under the ring alpha-beta model.

    ``latency_s = steps * step_latency_s``, ``transfer_s = bus_factor *
    payload_bytes / bandwidth_bytes_per_s`` (0 when ``ranks == 1``) and
    ``total_s`` is their sum. ``bandwidth_bytes_per_s`` is per GPU and direction.

    >>> collective_cost("all_gather", payload_bytes=8e6, ranks=4, bandwidth_bytes_per_s=1e9, latency_s=1e-5).steps
    3

    Taught in: lesson 2 (Q2 communication).
    """

    kind: str
    ranks: int
    payload_bytes: float
    bandwidth_bytes_per_s: float
    step_latency_s: float
    steps: int
    bus_factor: float
    latency_s: float
    transfer_s: float
    total_s: float

    @property
    def dominant_term(self) -> str:
        """``"latency"``, ``"bandwidth"`` or ``"none"`` (nothing to send)."""
        return _dominant(self.latency_s, self.transfer_s)


@finite_result
def collective_cost(
    kind: str,
    *,
    payload_bytes: float,
    ranks: int,
    bandwidth_bytes_per_s: float,
    latency_s: float,
) -> CollectiveCost:
    """One collective's latency term, transfer term and total under the ring alpha-beta model.

    Parameters:
        kind: one of :data:`BUS_BANDWIDTH_KINDS`.
        payload_bytes: nccl-tests' S, the full buffer in bytes: the all-reduced
            tensor, the gathered output of all_gather, the input of
            reduce_scatter, everything one rank sends in all_to_all, the
            broadcast tensor, the message of send_recv. >= 0.
        ranks: ranks n taking part, >= 1.
        bandwidth_bytes_per_s: B, unidirectional per-link bandwidth in bytes/s, > 0.
        latency_s: alpha, fixed cost of one ring step in seconds, >= 0.

    ==============  ==========  =====================
    kind            steps       transfer
    ==============  ==========  =====================
    all_reduce      2(n-1)      2(n-1)/n · S/B
    all_gather      n-1         (n-1)/n · S/B
    reduce_scatter  n-1         (n-1)/n · S/B
    all_to_all      n-1         (n-1)/n · S/B
    broadcast       n-1         S/B (pipelined ring)
    reduce          n-1         S/B (pipelined ring)
    send_recv       1           S/B
    ==============  ==========  =====================

    The transfer column is S·factor/B with nccl-tests' bus-bandwidth factor;
    for broadcast the whole buffer leaves the root once, chunked along the ring
    so the (n-1) hops overlap. With ``ranks == 1`` nothing leaves the device:
    0 steps and 0 seconds for every kind.

    >>> c = collective_cost("all_reduce", payload_bytes=1e9, ranks=8, bandwidth_bytes_per_s=100e9, latency_s=5e-6)
    >>> c.steps, round(c.latency_s, 9), round(c.transfer_s, 9)
    (14, 7e-05, 0.0175)

    Taught in: lesson 2 (Q2 communication).
    """
    kind = check_choice("kind", kind, BUS_BANDWIDTH_KINDS)
    payload = check_number("payload_bytes", payload_bytes, ge=0)
    n = check_int("ranks", ranks, ge=1)
    bandwidth = check_number("bandwidth_bytes_per_s", bandwidth_bytes_per_s, gt=0)
    alpha = check_number("latency_s", latency_s, ge=0)
    return _collective_cost(kind, payload, n, bandwidth, alpha)


def _collective_cost(kind: str, payload: float, n: int, bandwidth: float, alpha: float) -> CollectiveCost:
    """:func:`collective_cost` on checked arguments."""
    factor = float(_bus_factor(kind, n))
    steps = int(_steps(kind, n))
    latency, transfer = _collective_terms_s(kind, n, payload, bandwidth, alpha)
    latency, transfer = float(latency), float(transfer)
    return CollectiveCost(
        kind=kind,
        ranks=n,
        payload_bytes=payload,
        bandwidth_bytes_per_s=bandwidth,
        step_latency_s=alpha,
        steps=steps,
        bus_factor=factor,
        latency_s=latency,
        transfer_s=transfer,
        total_s=latency + transfer,
    )


@finite_result
def collective_time_s(
    kind: str,
    *,
    payload_bytes: float,
    ranks: int,
    bandwidth_bytes_per_s: float,
    latency_s: float,
) -> float:
    """Seconds one collective takes under the ring alpha-beta model (see :func:`collective_cost`).

    Parameters are those of :func:`collective_cost`; ``bandwidth_bytes_per_s``
    is per GPU and direction.

    >>> collective_time_s("send_recv", payload_bytes=2e9, ranks=2, bandwidth_bytes_per_s=100e9, latency_s=1e-5)
    0.02001
    >>> collective_time_s("all_reduce", payload_bytes=2e9, ranks=1, bandwidth_bytes_per_s=100e9, latency_s=1e-5)
    0.0

    Taught in: lesson 2 (Q2 communication).
    """
    return collective_cost(
        kind,
        payload_bytes=payload_bytes,
        ranks=ranks,
        bandwidth_bytes_per_s=bandwidth_bytes_per_s,
        latency_s=latency_s,
    ).total_s


learner_functions(globals())
