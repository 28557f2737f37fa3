"""Fit the ring alpha-beta model to measured collective times (least squares, non-negative).

For one collective over ``n`` ranks, :func:`coursekit.communication.collective_time_s`
predicts ``t(S) = steps(n)·α + factor(n)·S / B``: linear in the two unknowns
α (seconds per ring step) and 1/B (seconds per byte, B the unidirectional
per-link bandwidth). The coefficients ``steps(n)`` and ``factor(n)`` are read
from :func:`coursekit.communication.collective_cost`, so the fit and the
formula of lesson 2 can never disagree.

The fit minimises the *relative* error ``Σ ((t_model - t_i) / t_i)²`` — each
row of the system divided by its measured time — so the microsecond points of
the latency-bound regime count as much as the millisecond points of the
bandwidth-bound one (plain least squares on seconds would ignore the small
payloads and leave α to chance). Both unknowns are constrained to be >= 0
(the two-variable NNLS problem is solved exactly by checking the interior
solution and both faces). A fit is *degenerate* when the data cannot pin down
the bandwidth: fewer than two distinct payloads, a model that predicts 0 s
(``ranks == 1``), or a best non-negative 1/B of 0 (or one whose term is
below ``NEGLIGIBLE_SHARE`` of every measured time).

>>> from coursekit.communication import collective_time_s
>>> sizes = [2**k for k in range(10, 25, 2)]
>>> times = [collective_time_s("all_reduce", payload_bytes=s, ranks=4,
...          bandwidth_bytes_per_s=5e9, latency_s=2e-5) for s in sizes]
>>> fit = fit_alpha_beta("all_reduce", 4, sizes, times)
>>> round(fit.alpha_s * 1e6, 6), round(fit.bandwidth_bytes_per_s / 1e9, 6), fit.degenerate
(20.0, 5.0, False)

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_choice, check_instance, check_int, check_number, check_sequence, learner_functions
from ..communication import COLLECTIVES, collective_cost, collective_time_s
from ..i18n import Reason, register, tr
from ..units import GIB_BYTES

__all__ = ["AlphaBetaFit", "crossover_bytes", "fit_alpha_beta", "model_coefficients"]

register(
    {
        "lab.fit_lengths": {
            "zh": "payload_bytes 有 {payloads} 个值，times_s 有 {times} 个值：两者必须一一对应。",
            "en": "payload_bytes has {payloads:@value} and times_s has {times}: they must pair up one to one.",
        },
        "lab.fit_empty": {
            "zh": "payload_bytes 与 times_s 都是空的：至少需要一个实测点（载荷，时间）。",
            "en": "payload_bytes and times_s are empty: give at least one measured point (payload, time).",
        },
        "lab.fit_too_few_payloads": {
            "zh": "只有 {distinct} 种不同的载荷：至少需要 2 种才能把时延 α 与带宽 B 分开，"
            "请放宽 --min-bytes / --max-bytes。",
            "en": "only {distinct:@distinct payload}: at least 2 are needed to separate latency α from bandwidth B; "
            "widen --min-bytes / --max-bytes.",
        },
        "lab.fit_zero_model": {
            "zh": "{ranks} 个 rank 时环形模型预测 {kind} 耗时为 0（没有数据离开本设备），无从拟合 α 与 B。",
            "en": "with {ranks:@rank} the ring model predicts 0 s for {kind} (no byte leaves the device): "
            "there is no α or B to fit.",
        },
        "lab.fit_no_bandwidth": {
            "zh": "最优的非负拟合给出 1/B = 0：这些点看不出带宽项（全部落在时延主导区），请增大 --max-bytes。",
            "en": "the best non-negative fit has 1/B = 0: these points show no bandwidth term (all latency-bound); "
            "raise --max-bytes.",
        },
        "lab.fit_alpha_clamped": {
            "zh": "无约束最小二乘给出负的 α，已截断为 0：小载荷的时间主要由带宽项解释。",
            "en": "unconstrained least squares gave a negative α, clamped to 0: "
            "the small payloads are explained by the bandwidth term alone.",
        },
    }
)


#: A fitted term that explains less than this share of every measured time is rounding noise, not a term.
NEGLIGIBLE_SHARE: float = 1e-9
#: Shortest and longest measured time the fit takes, seconds: a picosecond is far below any clock's resolution
#: (``time.perf_counter`` counts nanoseconds), a million seconds (11.6 days) far above any collective. Outside them a
#: row of the relative-error system (divided by its time) overflows or loses every digit.
MIN_TIME_S: float = 1e-12
MAX_TIME_S: float = 1e6
#: Largest payload the fit takes, bytes (2**60, an exbibyte: no buffer is larger).
MAX_PAYLOAD_BYTES: float = float(2**60)


def model_coefficients(kind: str, ranks: int) -> tuple[int, float]:
    """``(steps, factor)`` of the ring model: ``t = steps·α + factor·S/B``.

    Read from :func:`coursekit.communication.collective_cost` (``factor`` is
    nccl-tests' bus-bandwidth factor, 0 when ``ranks == 1``).

    Parameters:
        kind: one of :data:`coursekit.communication.COLLECTIVES`.
        ranks: ranks n taking part, >= 1.

    >>> model_coefficients("all_reduce", 4)
    (6, 1.5)
    >>> model_coefficients("send_recv", 2)
    (1, 1.0)

    Taught in: lesson 8 (formula vs measurement).
    """
    kind = check_choice("kind", kind, COLLECTIVES)
    n = check_int("ranks", ranks, ge=1)
    unit = collective_cost(kind, payload_bytes=1.0, ranks=n, bandwidth_bytes_per_s=1.0, latency_s=0.0)
    return unit.steps, unit.transfer_s


@dataclass(frozen=True)
class AlphaBetaFit:
    """The ring-model parameters that best explain one collective's measured times.

    Fields:
        kind: the collective (:data:`coursekit.communication.COLLECTIVES`).
        ranks: ranks n it ran over.
        alpha_s: fitted latency α per ring step, seconds (>= 0).
        bandwidth_bytes_per_s: fitted unidirectional per-link bandwidth B,
            bytes/s; ``None`` when the data show no bandwidth term.
        num_points: measured points used.
        rms_relative_error: root-mean-square of (predicted - measured) / measured.
        degenerate: True when α and B could not both be determined.
        note: why the fit is degenerate or was clamped, else ``None``.

    Taught in: lesson 8 (formula vs measurement).
    """

    kind: str
    ranks: int
    alpha_s: float
    bandwidth_bytes_per_s: float | None
    num_points: int
    rms_relative_error: float
    degenerate: bool
    note: Reason | None = None

    @property
    def bandwidth_gib_s(self) -> float | None:
        """B in GiB/s (2**30 bytes per second), per rank and direction."""
        return None if self.bandwidth_bytes_per_s is None else self.bandwidth_bytes_per_s / GIB_BYTES

    def predict_s(self, payload_bytes: float) -> float:
        """Predicted seconds for payload S with the fitted α and B.

        Uses :func:`coursekit.communication.collective_time_s`; when B is
        unknown (``None``) the bandwidth term is 0 and only ``steps·α`` remains.

        >>> AlphaBetaFit("send_recv", 2, 1e-5, 1e9, 5, 0.0, False).predict_s(1e6)
        0.00101
        """
        payload = check_number("payload_bytes", payload_bytes, ge=0)
        if self.bandwidth_bytes_per_s is None:
            steps, _ = model_coefficients(self.kind, self.ranks)
            return steps * self.alpha_s
        return collective_time_s(
            self.kind,
            payload_bytes=payload,
            ranks=self.ranks,
            bandwidth_bytes_per_s=self.bandwidth_bytes_per_s,
            latency_s=self.alpha_s,
        )


def crossover_bytes(fit: AlphaBetaFit) -> float | None:
    """Payload where the latency term equals the bandwidth term: ``S* = steps·α·B / factor``.

    Below S* the collective is latency-bound, above it bandwidth-bound.
    ``None`` when the fit has no bandwidth or the model has no transfer term.

    >>> crossover_bytes(AlphaBetaFit("all_reduce", 2, 1e-5, 1e9, 5, 0.0, False))
    20000.0

    Taught in: lesson 8 (formula vs measurement).
    """
    check_instance("fit", fit, AlphaBetaFit)
    steps, factor = model_coefficients(fit.kind, fit.ranks)
    if fit.bandwidth_bytes_per_s is None or factor == 0:
        return None
    return steps * fit.alpha_s * fit.bandwidth_bytes_per_s / factor


def _payload(name: str, value: Any) -> float:
    """A measured payload, bytes: finite, >= 0 and at most :data:`MAX_PAYLOAD_BYTES`."""
    check_number(name, value, ge=0)
    return check_number(name, value, le=MAX_PAYLOAD_BYTES)


def _time(name: str, value: Any) -> float:
    """A measured time, seconds: > 0, within :data:`MIN_TIME_S` … :data:`MAX_TIME_S`."""
    check_number(name, value, gt=0)
    return check_number(name, value, ge=MIN_TIME_S, le=MAX_TIME_S)


def _solve_nonnegative(matrix: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, bool]:
    """Exact two-variable NNLS: the interior least-squares point, else the best face.

    Returns the solution and whether the interior solution had to be clamped.
    """
    scale = np.linalg.norm(matrix, axis=0)
    scale[scale == 0] = 1.0
    scaled = matrix / scale
    solution, *_ = np.linalg.lstsq(scaled, target, rcond=None)
    if np.all(solution >= 0):
        return solution / scale, False
    best = np.zeros(2)
    best_residual = float(np.sum(target**2))
    for column in range(2):
        vector = scaled[:, column]
        norm2 = float(vector @ vector)
        if norm2 == 0:
            continue
        value = max(0.0, float(vector @ target) / norm2)
        residual = float(np.sum((target - value * vector) ** 2))
        if residual < best_residual:
            best = np.zeros(2)
            best[column] = value
            best_residual = residual
    return best / scale, True


def fit_alpha_beta(
    kind: str,
    ranks: int,
    payload_bytes: Sequence[float],
    times_s: Sequence[float],
) -> AlphaBetaFit:
    """Least-squares α and B of the ring model from measured (payload, time) points.

    Parameters:
        kind: one of :data:`coursekit.communication.COLLECTIVES`.
        ranks: ranks n the collective ran over, >= 1.
        payload_bytes: nccl-tests' S of each point, bytes, 0 … :data:`MAX_PAYLOAD_BYTES`; a list, tuple or
            one-dimensional numpy array (a set or a dict has no order to pair the times by, and is refused).
        times_s: measured seconds of each point, :data:`MIN_TIME_S` … :data:`MAX_TIME_S`, in the same order;
            at least one point.

    Solves ``[steps, factor·S_i] · [α, 1/B] = t_i`` with every row divided by
    ``t_i`` (relative error), α >= 0 and 1/B >= 0, using ``numpy.linalg.lstsq``.
    See the module docstring for when the result is ``degenerate``.

    >>> fit = fit_alpha_beta("broadcast", 2, [1e3, 1e6], [1.1e-5, 1.01e-3])
    >>> f"{fit.alpha_s:.2e} {fit.bandwidth_bytes_per_s:.2e}"
    '1.00e-05 1.00e+09'
    >>> fit_alpha_beta("all_gather", 1, [1e3, 1e6], [1e-6, 1e-6]).note.code
    'zero_model'

    Taught in: lesson 8 (formula vs measurement).
    """
    kind = check_choice("kind", kind, COLLECTIVES)
    n = check_int("ranks", ranks, ge=1)
    sizes = [
        _payload(f"payload_bytes[{i}]", value) for i, value in enumerate(check_sequence("payload_bytes", payload_bytes))
    ]
    times = [_time(f"times_s[{i}]", value) for i, value in enumerate(check_sequence("times_s", times_s))]
    if len(sizes) != len(times):
        raise ValueError(Reason("lengths", "lab.fit_lengths", {"payloads": len(sizes), "times": len(times)}).message)
    if not sizes:
        raise ValueError(tr("lab.fit_empty"))
    steps, factor = model_coefficients(kind, n)

    def result(alpha: float, inverse_bandwidth: float, degenerate: bool, note: Reason | None) -> AlphaBetaFit:
        predicted = [steps * alpha + factor * size * inverse_bandwidth for size in sizes]
        errors = [(p - t) / t for p, t in zip(predicted, times, strict=True)]
        rms = math.sqrt(sum(e * e for e in errors) / len(errors))
        return AlphaBetaFit(
            kind=kind,
            ranks=n,
            alpha_s=alpha,
            bandwidth_bytes_per_s=None if inverse_bandwidth <= 0 else 1.0 / inverse_bandwidth,
            num_points=len(sizes),
            rms_relative_error=rms,
            degenerate=degenerate,
            note=note,
        )

    if steps == 0 and factor == 0:
        return result(0.0, 0.0, True, Reason("zero_model", "lab.fit_zero_model", {"kind": kind, "ranks": n}))
    distinct = len(set(sizes))
    if distinct < 2:
        return result(0.0, 0.0, True, Reason("too_few_payloads", "lab.fit_too_few_payloads", {"distinct": distinct}))
    time_array = np.asarray(times, dtype=float)
    matrix = np.column_stack([np.full(len(sizes), float(steps)), factor * np.asarray(sizes, dtype=float)])
    matrix /= time_array[:, None]
    solution, clamped = _solve_nonnegative(matrix, np.ones(len(sizes)))
    alpha, inverse_bandwidth = float(solution[0]), float(solution[1])
    if float(np.max(matrix[:, 1])) * inverse_bandwidth <= NEGLIGIBLE_SHARE:
        return result(alpha, 0.0, True, Reason("no_bandwidth", "lab.fit_no_bandwidth", {}))
    note = Reason("alpha_clamped", "lab.fit_alpha_clamped", {}) if clamped else None
    return result(alpha, inverse_bandwidth, False, note)


learner_functions(globals())
