"""The Q2 ledger of lesson 2: calls x (latency + payload / bandwidth), and the latency-bandwidth crossover.

Taught in: lesson 2 (Q2 communication).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import (
    check_int,
    check_number,
    finite_result,
    learner_functions,
)
from ..i18n import register, tr
from ..units import GIB_BYTES, MIB_BYTES, MS_PER_S, US_PER_MS, US_PER_S

register(
    {
        "communication.ledger_latency": {
            "zh": "{calls_per_step} 次调用：时延 {latency_ms} ms + 传输 {transfer_ms} ms = {lower_bound_ms} ms，"
            "时延主导 (latency-bound)：减少调用次数比加带宽更有效。",
            "en": "{calls_per_step:@call}: latency {latency_ms} ms + transfer {transfer_ms} ms = {lower_bound_ms} ms, "
            "latency-bound: fewer calls help more than more bandwidth.",
        },
        "communication.ledger_bandwidth": {
            "zh": "{calls_per_step} 次调用：时延 {latency_ms} ms + 传输 {transfer_ms} ms = {lower_bound_ms} ms，"
            "带宽主导 (bandwidth-bound)：减少载荷或提高带宽更有效。",
            "en": "{calls_per_step:@call}: latency {latency_ms} ms + transfer {transfer_ms} ms = {lower_bound_ms} ms, "
            "bandwidth-bound: less payload or more bandwidth helps most.",
        },
        "communication.ledger_none": {
            "zh": "{calls_per_step} 次调用：本训练步没有通信，下界为 {lower_bound_ms} ms。",
            "en": "{calls_per_step:@call}: no communication in this step, lower bound {lower_bound_ms} ms.",
        },
    }
)


#: Decimal places the ledger rounds milliseconds to.
LEDGER_DECIMALS: int = 3

#: Values of ``dominant_term``.
DOMINANT_TERMS: tuple[str, ...] = ("latency", "bandwidth", "none")


def _dominant(latency: float, transfer: float) -> str:
    if latency == 0 and transfer == 0:
        return "none"
    return "latency" if latency > transfer else "bandwidth"


@dataclass(frozen=True)
class CommunicationLedger:
    """One training step's communication lower bound, no congestion and no overlap.

    ``transfer_ms``, ``latency_ms`` and ``lower_bound_ms`` are rounded to 3
    decimals for display; ``dominant_term`` (``"latency"``, ``"bandwidth"``,
    or ``"none"`` when nothing is sent) is decided on the unrounded terms, a tie
    counting as bandwidth. ``bandwidth_gib_s`` is per GPU and direction.

    >>> communication_ledger(1 / 1024, 10, 100, 5).dominant_term
    'latency'

    Taught in: lesson 2 (Q2 communication).
    """

    payload_per_call_mib: float
    calls_per_step: int
    total_payload_mib: float
    bandwidth_gib_s: float
    latency_us: float
    transfer_ms: float
    latency_ms: float
    lower_bound_ms: float
    dominant_term: str

    def explain(self) -> str:
        """One sentence in the current language: the two terms, the total and which one dominates.

        >>> communication_ledger(32, 24, 100, 5).explain()  # doctest: +NORMALIZE_WHITESPACE
        '24 calls: latency 0.12 ms + transfer 7.5 ms = 7.62 ms, bandwidth-bound: less payload or more bandwidth
        helps most.'
        """
        sent = self.calls_per_step > 0
        latency, transfer = _terms_ms(
            self.payload_per_call_mib, self.calls_per_step, self.bandwidth_gib_s, self.latency_us
        )
        decimals = _sentence_decimals(latency, transfer)
        return tr(
            f"communication.ledger_{self.dominant_term}",
            calls_per_step=self.calls_per_step,
            latency_ms=_shown_ms(latency, sent and self.latency_us > 0, decimals),
            transfer_ms=_shown_ms(transfer, sent and self.payload_per_call_mib > 0, decimals),
            lower_bound_ms=_shown_ms(
                latency + transfer, sent and (self.latency_us > 0 or self.payload_per_call_mib > 0), decimals
            ),
        )


#: The most decimals the ledger's sentence uses to make its sum add up (:func:`_sentence_decimals`): 1 ns in ms.
MAX_SENTENCE_DECIMALS: int = 6


def _terms_ms(payload_mib: float, calls: int, bandwidth_gib_s: float, latency_us: float) -> tuple[float, float]:
    """The ledger's two terms in ms, not rounded: ``(calls x latency, calls x payload / bandwidth)``."""
    transfer_ms_per_call = payload_mib * MIB_BYTES / (bandwidth_gib_s * GIB_BYTES) * MS_PER_S
    latency_ms_per_call = latency_us / US_PER_MS
    return calls * latency_ms_per_call, calls * transfer_ms_per_call


def _sentence_decimals(latency_ms: float, transfer_ms: float) -> int:
    """The decimals at which the sentence's ``latency + transfer = total`` adds up as printed: :data:`LEDGER_DECIMALS`,
    or more where the three numbers rounded there do not (at 3 decimals 512 calls of 64 KiB at 100 GiB/s and 5 µs
    read "2.56 ms + 0.312 ms = 2.873 ms", and 1 call of 1 KiB at 1 GiB/s and 0.5 µs "0.001 ms + 0.001 ms =
    0.001 ms"); at most :data:`MAX_SENTENCE_DECIMALS`."""
    for decimals in range(LEDGER_DECIMALS, MAX_SENTENCE_DECIMALS):
        total = round(latency_ms + transfer_ms, decimals)
        if round(round(latency_ms, decimals) + round(transfer_ms, decimals), decimals) == total:
            return decimals
    return MAX_SENTENCE_DECIMALS


def _shown_ms(value_ms: float, nonzero: bool, decimals: int = LEDGER_DECIMALS) -> str:
    """A ledger term as the sentence shows it, rounded to ``decimals``: ``< 0.001`` where a term that is not zero
    rounds to 0 (a 1 KiB payload's transfer), so a sentence never says a nonzero term is 0. At
    :data:`LEDGER_DECIMALS` the number reads as the ledger's field does (``7.5``, ``0.12``, ``256.0``); with more
    decimals it is written out in full, its trailing zeros dropped (``0.3125``, never ``1e-05``)."""
    rounded = round(value_ms, decimals)
    if nonzero and rounded == 0:
        return f"< {10.0**-decimals:.{decimals}f}"
    if decimals == LEDGER_DECIMALS:
        return str(rounded)
    return f"{rounded:.{decimals}f}".rstrip("0").rstrip(".")


@finite_result
def communication_ledger(
    payload_mib: float,
    calls_per_step: int,
    bandwidth_gib_s: float,
    latency_us: float,
) -> CommunicationLedger:
    """Lower bound of one step's communication: ``calls x (latency + payload / bandwidth)``.

    Parameters:
        payload_mib: bytes moved per call, in MiB (2**20 bytes), >= 0.
        calls_per_step: calls per training step, an int >= 0.
        bandwidth_gib_s: link bandwidth in GiB/s (2**30 bytes per second),
            per GPU and direction, > 0.
        latency_us: fixed cost per call in microseconds, >= 0.

    No collective algorithm is modelled here (see :func:`collective_cost`):
    the payload crosses the link once per call.

    >>> low = communication_ledger(256, 1, 100, 5)
    >>> low.transfer_ms, low.latency_ms, low.lower_bound_ms, low.dominant_term
    (2.5, 0.005, 2.505, 'bandwidth')
    >>> communication_ledger(32, 24, 0, 5)
    Traceback (most recent call last):
    ...
    ValueError: bandwidth_gib_s = 0: must be > 0.

    Taught in: lesson 2 (Q2 communication).
    """
    payload = check_number("payload_mib", payload_mib, ge=0)
    calls = check_int("calls_per_step", calls_per_step, ge=0)
    bandwidth = check_number("bandwidth_gib_s", bandwidth_gib_s, gt=0)
    latency = check_number("latency_us", latency_us, ge=0)
    latency_ms, transfer_ms = _terms_ms(payload, calls, bandwidth, latency)
    return CommunicationLedger(
        payload_per_call_mib=payload,
        calls_per_step=calls,
        total_payload_mib=payload * calls,
        bandwidth_gib_s=bandwidth,
        latency_us=latency,
        transfer_ms=round(transfer_ms, LEDGER_DECIMALS),
        latency_ms=round(latency_ms, LEDGER_DECIMALS),
        lower_bound_ms=round(transfer_ms + latency_ms, LEDGER_DECIMALS),
        dominant_term=_dominant(latency_ms, transfer_ms),
    )


@finite_result
def crossover_payload_mib(bandwidth_gib_s: float, latency_us: float) -> float:
    """Payload per call at which the latency term equals the transfer term: ``payload* = latency x bandwidth``.

    Parameters:
        bandwidth_gib_s: link bandwidth in GiB/s, per GPU and direction, > 0.
        latency_us: fixed cost per call in microseconds, >= 0.

    Returns MiB (2**20 bytes). In :func:`communication_ledger`, a call with a
    smaller payload is latency-bound (fewer, larger calls help), a larger one
    bandwidth-bound (less payload or more bandwidth helps); the dominant term
    of a whole step is the same, since both terms scale with the call count.

    >>> round(crossover_payload_mib(100, 5), 6)  # the course's example link: 5 us x 100 GiB/s
    0.512
    >>> crossover_payload_mib(100, 0)
    0.0

    Taught in: lesson 2 (Q2 communication).
    """
    bandwidth = check_number("bandwidth_gib_s", bandwidth_gib_s, gt=0)
    latency = check_number("latency_us", latency_us, ge=0)
    return latency / US_PER_S * bandwidth * GIB_BYTES / MIB_BYTES


learner_functions(globals())
