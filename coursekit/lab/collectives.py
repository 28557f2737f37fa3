"""Measure the six collectives of the course and fit the ring alpha-beta model to them.

:func:`run_collectives` starts ``ranks`` processes (or joins a torchrun job),
checks every collective on known tensors, then times it over a range of
payloads and fits α and B per collective (:func:`coursekit.lab.fit.fit_alpha_beta`).

What is measured, precisely:

* **Payload** S is nccl-tests' S, the full buffer (see
  :func:`coursekit.communication.collective_cost`): the all-reduced tensor,
  the gathered output of all_gather, the input of reduce_scatter, what one
  rank sends in all_to_all, the broadcast tensor, the message of send_recv.
  Buffers are float32; each payload is rounded down to a multiple of 4·n bytes
  so that every rank's chunk holds whole elements.
* **send_recv** is nccl-tests' ring pattern: every rank sends S to rank+1 and
  receives S from rank-1 at the same time (``batch_isend_irecv``).
* **Timing**: ``warmup`` untimed calls, then ``repeats`` timed calls, each
  started right after a barrier and timed with ``time.perf_counter`` (after a
  device synchronise on CUDA). Each rank takes the median of its repeats; the
  reported time is the **maximum over ranks of those medians** — a collective
  is finished when its slowest rank is. (nccl-tests reports the mean over
  iterations, averaged over ranks by default; the median resists the outliers
  of a shared CPU.) The barrier's own skew (ranks leave it a few µs apart) is
  part of what is measured.
* **algbw** = S / t; **busbw** = algbw × :func:`coursekit.communication.bus_bandwidth_factor`
  (nccl-tests doc/PERFORMANCE.md), both in bytes per second.

Backend support: torch 2.13's gloo runs all six on CPU (all_gather and
reduce_scatter through ``all_gather_single`` / ``reduce_scatter_single``, the
names that replace ``all_gather_into_tensor`` / ``reduce_scatter_tensor``).
An older gloo without reduce_scatter makes the known-tensor check raise; that
collective is then reported as "unsupported by backend gloo" and not timed.

>>> payload_sizes(1000, 10000, 2)
(1000, 2000, 4000, 8000)

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._validate import check_choice, check_int, check_items, learner_functions
from ..communication import COLLECTIVE_NAMES, COLLECTIVES, bus_bandwidth_factor
from ..i18n import Reason, register, tr
from ._env import FORCED_RANKS_CEILING, launched_by_torchrun, torchrun_world_size
from ._format import LabTable, fmt_bytes, fmt_gib_s, fmt_seconds
from ._json import Field, read_source
from .fit import AlphaBetaFit, crossover_bytes, fit_alpha_beta
from .known_tensors import ELEMENT_BYTES, expected_output, verification_input
from .known_tensors import RANK_OFFSET as RANK_OFFSET
from .known_tensors import VERIFY_CHUNK_ELEMENTS as VERIFY_CHUNK_ELEMENTS

__all__ = [
    "COLLECTIVES_SCHEMA",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MIN_BYTES",
    "DEFAULT_REPEATS",
    "DEFAULT_WARMUP",
    "DEVICES",
    "ELEMENT_BYTES",
    "CollectivePoint",
    "CollectiveResult",
    "CollectivesReport",
    "check_ranks",
    "collective_outputs",
    "expected_output",
    "load_collectives_json",
    "payload_sizes",
    "reduce_max_of_medians",
    "run_collectives",
    "verification_input",
]

#: Smallest and largest default payloads: 1 KiB is latency-bound and 16 MiB is
#: bandwidth-bound on loopback gloo as on NVLink, so both regimes are sampled.
DEFAULT_MIN_BYTES: int = 2**10
DEFAULT_MAX_BYTES: int = 2**24
#: Untimed and timed calls per payload: nccl-tests' defaults (-w 5, -n 20; NVIDIA/nccl-tests README).
DEFAULT_WARMUP: int = 5
DEFAULT_REPEATS: int = 20
#: Device choices: ``auto`` takes CUDA + NCCL when every local rank has a GPU, else CPU + gloo.
DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda")
#: Version tag of the JSON written by :meth:`CollectivesReport.to_json_dict`.
COLLECTIVES_SCHEMA: str = "coursekit.lab.collectives/1"

register(
    {
        "lab.report_empty": {
            "zh": "{name} = {value!r}：这份报告没有任何结果。",
            "en": "{name} = {value!r}: this report holds no results.",
        },
        "lab.min_gt_max": {
            "zh": "min_bytes = {min_bytes} 大于 max_bytes = {max_bytes}：载荷范围为空，"
            "请让 --min-bytes <= --max-bytes。",
            "en": "min_bytes = {min_bytes} is larger than max_bytes = {max_bytes}: the payload range is empty; "
            "make --min-bytes <= --max-bytes.",
        },
        "lab.no_collectives": {
            "zh": "collectives 为空：至少选择一个集合通信 ({choices})。",
            "en": "collectives is empty: choose at least one collective ({choices}).",
        },
        "lab.ranks_mismatch": {
            "zh": "ranks = {ranks} 与 torchrun 的 WORLD_SIZE = {world} 不一致：在 torchrun 下省略 --ranks，"
            "或令二者相等。",
            "en": "ranks = {ranks} does not match torchrun's WORLD_SIZE = {world}: omit --ranks under torchrun "
            "or make them equal.",
        },
        "lab.bad_schema": {
            "zh": "schema = {value!r}：这不是 --json 写出的集合通信结果（应为 {expected!r}）。",
            "en": "schema = {value!r}: not a collectives result written by --json (expected {expected!r}).",
        },
        "lab.no_torch": {
            "zh": "实验需要 PyTorch：在课程文件夹中运行 pip install -e '.[lab]'，或者 pip install torch"
            "（CPU 版即可，见 README 的第 8 课一节）。",
            "en": "the lab needs PyTorch: pip install -e '.[lab]' in the course's folder, or pip install torch "
            "(a CPU build is enough; see README's lesson 8 section).",
        },
        "lab.collectives_title": {
            "zh": "{kind}：{ranks} 个 rank，后端 {backend}，设备 {device}",
            "en": "{kind}: {ranks:@rank}, backend {backend}, device {device}",
        },
        "lab.fit_line": {
            "zh": "  拟合：α = {alpha}，B = {bandwidth}（每个 rank 每个方向），相对误差均方根 {rms:.0%}，"
            "时延/带宽分界 S* = {crossover}",
            "en": "  fit: α = {alpha}, B = {bandwidth} (per rank, per direction), rms relative error {rms:.0%}, "
            "latency/bandwidth crossover S* = {crossover}",
        },
        "lab.note_line": {
            "zh": "  注意：{message}",
            "en": "  note: {message}",
        },
        "lab.col_payload": {"zh": "载荷 S", "en": "payload S"},
        "lab.col_time": {"zh": "实测时间", "en": "measured"},
        "lab.col_algbw": {"zh": "算法带宽 algbw", "en": "algbw"},
        "lab.col_busbw": {"zh": "总线带宽 busbw", "en": "busbw"},
        "lab.col_predicted": {"zh": "公式预测", "en": "predicted"},
        "lab.col_ratio": {"zh": "预测/实测", "en": "pred/meas"},
        "lab.col_collective": {"zh": "集合通信", "en": "collective"},
        "lab.col_alpha": {"zh": "α（每步）", "en": "α (per step)"},
        "lab.col_bandwidth": {"zh": "B（单向）", "en": "B (one-way)"},
        "lab.col_rms": {"zh": "相对误差", "en": "rms rel. err"},
        "lab.col_status": {"zh": "状态", "en": "status"},
        "lab.status_ok": {"zh": "已拟合", "en": "fitted"},
        "lab.status_degenerate": {"zh": "拟合退化", "en": "degenerate fit"},
        "lab.summary_title": {
            "zh": "拟合汇总（{ranks} 个 rank，{backend}/{device}，每点取 {repeats} 次中位数的跨 rank 最大值）",
            "en": "Fit summary ({ranks:@rank}, {backend}/{device}, each point: max over ranks of the median "
            "of {repeats:@repeat})",
        },
    }
)


def payload_sizes(min_bytes: int, max_bytes: int, ranks: int) -> tuple[int, ...]:
    """Payloads S from ``min_bytes`` doubling up to ``max_bytes``, each a multiple of 4·ranks bytes.

    Every payload is rounded down to whole float32 elements per rank chunk
    (at least one element per rank); duplicates are dropped.

    Parameters:
        min_bytes: first payload, bytes, >= 1.
        max_bytes: last payload at most, bytes, >= min_bytes.
        ranks: ranks n, >= 1.

    >>> payload_sizes(1, 40, 3)
    (12, 24)
    >>> payload_sizes(10, 1, 2)
    Traceback (most recent call last):
    ...
    ValueError: min_bytes = 10 is larger than max_bytes = 1: the payload range is empty; ...

    Taught in: lesson 8 (formula vs measurement).
    """
    low = check_int("min_bytes", min_bytes, ge=1)
    high = check_int("max_bytes", max_bytes, ge=1)
    n = check_int("ranks", ranks, ge=1)
    if low > high:
        raise ValueError(tr("lab.min_gt_max", min_bytes=low, max_bytes=high))
    unit = ELEMENT_BYTES * n
    sizes: list[int] = []
    size = low
    while size <= high:
        rounded = max(unit, size - size % unit)
        if not sizes or rounded != sizes[-1]:
            sizes.append(rounded)
        size *= 2
    return tuple(sizes)


def reduce_max_of_medians(times_by_rank: Sequence[Sequence[float]]) -> tuple[float, tuple[float, ...]]:
    """``(max over ranks of each rank's median, the medians)`` — the lab's timing statistic.

    >>> reduce_max_of_medians([[1.0, 3.0, 2.0], [5.0, 1.0, 4.0]])
    (4.0, (2.0, 4.0))

    Taught in: lesson 8 (formula vs measurement).
    """
    medians = tuple(float(statistics.median(times)) for times in times_by_rank)
    return max(medians), medians


def _collective_label(kind: str) -> str:
    """How the lab's tables name a collective: the course's term in the current language, then the code name the
    lesson passes around (``全归约 all_reduce``); the code name alone where the term is only that name spelled
    otherwise (English ``all-reduce`` for ``all_reduce``).

    >>> from coursekit import set_language
    >>> set_language("zh"); _collective_label("all_reduce"), _collective_label("send_recv")
    ('全归约 all_reduce', '点对点收发 send_recv')
    >>> set_language("en"); _collective_label("all_reduce"), _collective_label("send_recv")
    ('all_reduce', 'send_recv')
    """
    if kind not in COLLECTIVE_NAMES:
        return kind
    name = str(COLLECTIVE_NAMES[kind])
    letters = "".join(char for char in name.lower() if char.isalpha())
    return kind if letters == kind.replace("_", "") else f"{name} {kind}"


@dataclass(frozen=True)
class CollectivePoint:
    """One measured payload of one collective.

    Fields: ``payload_bytes`` (S), ``time_s`` (max over ranks of the
    per-rank median), ``rank_medians_s`` (each rank's median),
    ``algbw_bytes_per_s`` (S / t), ``busbw_bytes_per_s`` (algbw × bus factor)
    and ``predicted_s`` (the fitted ring model's time, ``None`` without a fit).

    Taught in: lesson 8 (formula vs measurement).
    """

    payload_bytes: int
    time_s: float
    rank_medians_s: tuple[float, ...]
    algbw_bytes_per_s: float
    busbw_bytes_per_s: float
    predicted_s: float | None = None


@dataclass(frozen=True)
class CollectiveResult:
    """Everything measured for one collective: points, fit, and whether it could run.

    ``unsupported`` (a :class:`coursekit.i18n.Reason`) is set when the backend
    cannot run it or the known-tensor check failed; then ``points`` is empty
    and ``fit`` is ``None``.

    Taught in: lesson 8 (formula vs measurement).
    """

    kind: str
    ranks: int
    points: tuple[CollectivePoint, ...]
    fit: AlphaBetaFit | None
    verified: bool
    unsupported: Reason | None = None


@dataclass(frozen=True)
class CollectivesReport:
    """The result of :func:`run_collectives`: where it ran, how it was timed, and one result per collective.

    Taught in: lesson 8 (formula vs measurement).
    """

    ranks: int
    backend: str
    device: str
    launcher: str
    torch_version: str
    warmup: int
    repeats: int
    results: tuple[CollectiveResult, ...] = field(default_factory=tuple)

    @property
    def wrong_results(self) -> tuple[str, ...]:
        """Collectives whose known-tensor check gave a wrong answer (a bug, not a missing feature)."""
        return tuple(r.kind for r in self.results if r.unsupported is not None and r.unsupported.code == "wrong_result")

    def result(self, kind: str) -> CollectiveResult:
        """The result of one collective.

        A collective the report does not hold is a ``ValueError`` naming those it holds (a ``TypeError`` for a kind
        that is not a string), never a ``KeyError``.

        >>> CollectivesReport(2, "gloo", "cpu", "spawn", "2.13.0", 5, 20).result("broadcast")
        Traceback (most recent call last):
        ...
        ValueError: kind = 'broadcast': this report holds no results.
        """
        kind = check_listed("kind", kind, (item.kind for item in self.results))
        return next(item for item in self.results if item.kind == kind)

    def summary_table(self) -> str:
        """One line per collective: fitted α, B, rms error and status, in the current language."""
        return self.summary_view().text()

    def summary_view(self) -> LabTable:
        """:meth:`summary_table` as a :class:`~coursekit.lab._format.LabTable` (an HTML table in a notebook)."""
        header = [tr(f"lab.col_{name}") for name in ("collective", "alpha", "bandwidth", "rms", "status")]
        rows = []
        for item in self.results:
            if item.fit is None:
                reason = item.unsupported.message if item.unsupported else ""
                rows.append([_collective_label(item.kind), "—", "—", "—", reason])
                continue
            fit = item.fit
            status = tr("lab.status_degenerate") if fit.degenerate else tr("lab.status_ok")
            if fit.note is not None:
                status += f" ({fit.note.code})"
            rows.append(
                [
                    _collective_label(item.kind),
                    fmt_seconds(fit.alpha_s),
                    fmt_gib_s(fit.bandwidth_bytes_per_s),
                    f"{fit.rms_relative_error:.0%}",
                    status,
                ]
            )
        title = tr(
            "lab.summary_title", ranks=self.ranks, backend=self.backend, device=self.device, repeats=self.repeats
        )
        return LabTable.of([title], header, rows, right={1, 2, 3})

    def detail_table(self, kind: str) -> str:
        """Measured vs predicted for every payload of one collective, in the current language."""
        return self.detail_view(kind).text()

    def detail_view(self, kind: str) -> LabTable:
        """:meth:`detail_table` as a :class:`~coursekit.lab._format.LabTable` (an HTML table in a notebook)."""
        item = self.result(kind)
        lines = [
            tr(
                "lab.collectives_title",
                kind=_collective_label(kind),
                ranks=self.ranks,
                backend=self.backend,
                device=self.device,
            )
        ]
        if item.unsupported is not None:
            lines.append(tr("lab.note_line", message=item.unsupported.message))
            return LabTable.of(lines)
        fit = item.fit
        if fit is not None:
            crossover = crossover_bytes(fit)
            lines.append(
                tr(
                    "lab.fit_line",
                    alpha=fmt_seconds(fit.alpha_s),
                    bandwidth=fmt_gib_s(fit.bandwidth_bytes_per_s),
                    rms=fit.rms_relative_error,
                    crossover="—" if crossover is None else fmt_bytes(crossover),
                )
            )
            if fit.note is not None:
                lines.append(tr("lab.note_line", message=fit.note.message))
        header = [tr(f"lab.col_{name}") for name in ("payload", "time", "algbw", "busbw", "predicted", "ratio")]
        rows = []
        for point in item.points:
            predicted = point.predicted_s
            rows.append(
                [
                    fmt_bytes(point.payload_bytes),
                    fmt_seconds(point.time_s),
                    fmt_gib_s(point.algbw_bytes_per_s),
                    fmt_gib_s(point.busbw_bytes_per_s),
                    "—" if predicted is None else fmt_seconds(predicted),
                    "—" if predicted is None else f"{predicted / point.time_s:.2f}",
                ]
            )
        return LabTable.of(lines, header, rows, right={0, 1, 2, 3, 4, 5})

    def format(self) -> str:
        """Every detail table, then the fit summary."""
        parts = [self.detail_table(item.kind) for item in self.results]
        return "\n\n".join([*parts, self.summary_table()])

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (schema :data:`COLLECTIVES_SCHEMA`).

        ``collectives[kind]`` holds ``alpha_s`` and ``bandwidth_bytes_per_s``
        (what :func:`coursekit.communication.collective_time_s` takes as
        ``latency_s`` and ``bandwidth_bytes_per_s``), the fit diagnostics, and
        the raw ``points``. Unknown values are ``null``.
        """
        collectives: dict[str, Any] = {}
        for item in self.results:
            fit = item.fit
            collectives[item.kind] = {
                "ranks": item.ranks,
                "verified": item.verified,
                "unsupported": _reason_to_json(item.unsupported),
                "alpha_s": None if fit is None else fit.alpha_s,
                "bandwidth_bytes_per_s": None if fit is None else fit.bandwidth_bytes_per_s,
                "rms_relative_error": None if fit is None else fit.rms_relative_error,
                "degenerate": None if fit is None else fit.degenerate,
                "fit_note": None if fit is None else _reason_to_json(fit.note),
                "points": [
                    {
                        "payload_bytes": p.payload_bytes,
                        "time_s": p.time_s,
                        "rank_medians_s": list(p.rank_medians_s),
                        "algbw_bytes_per_s": p.algbw_bytes_per_s,
                        "busbw_bytes_per_s": p.busbw_bytes_per_s,
                        "predicted_s": p.predicted_s,
                    }
                    for p in item.points
                ],
            }
        return {
            "schema": COLLECTIVES_SCHEMA,
            "ranks": self.ranks,
            "backend": self.backend,
            "device": self.device,
            "launcher": self.launcher,
            "torch_version": self.torch_version,
            "timing": {
                "warmup": self.warmup,
                "repeats": self.repeats,
                "statistic": "max over ranks of the per-rank median of the timed repeats",
                "payload": "nccl-tests S (full buffer), float32, bytes",
                "bandwidth": "bytes per second, per rank and direction; busbw = algbw x nccl-tests bus factor",
            },
            "collectives": collectives,
        }

    def write_json(self, path: str | Path) -> None:
        """Write :meth:`to_json_dict` to ``path`` (UTF-8, indented)."""
        Path(path).write_text(json.dumps(self.to_json_dict(), indent=2, allow_nan=False) + "\n", encoding="utf-8")


def load_collectives_json(source: str | Path | Mapping[str, Any]) -> CollectivesReport:
    """Read a report written by ``--json`` (a path, or the already-parsed dict).

    Fits are rebuilt from the stored ``alpha_s`` / ``bandwidth_bytes_per_s``;
    an unsupported collective comes back with its code and English message.
    A path that cannot be read, or a result with a key missing or a value of the wrong kind, is a ``ValueError``
    or ``TypeError`` naming the path or the key, in the current language.

    >>> fit = AlphaBetaFit("broadcast", 2, 1e-5, 1e9, 1, 0.0, False)
    >>> point = CollectivePoint(1024, 1.2e-5, (1.1e-5, 1.2e-5), 1024 / 1.2e-5, 1024 / 1.2e-5, fit.predict_s(1024))
    >>> report = CollectivesReport(2, "gloo", "cpu", "spawn", "2.13.0", 5, 20,
    ...                            (CollectiveResult("broadcast", 2, (point,), fit, True),))
    >>> load_collectives_json(report.to_json_dict()) == report
    True

    Taught in: lesson 8 (formula vs measurement).
    """
    return collectives_report_from(read_source(source, COLLECTIVES_WRITER))


#: The command that writes what :func:`load_collectives_json` reads (named in its messages).
COLLECTIVES_WRITER: str = "python -m coursekit.lab collectives --json"


def collectives_report_from(data: Field) -> CollectivesReport:
    """A :class:`CollectivesReport` from its JSON object (see :func:`load_collectives_json`)."""
    schema = data.mapping().get("schema")
    if schema != COLLECTIVES_SCHEMA:
        raise ValueError(tr("lab.bad_schema", value=schema, expected=COLLECTIVES_SCHEMA))
    results = []
    entries = data["collectives"]
    for kind, entry in entries.entries():
        check_choice(f"{entries.name} key", kind, COLLECTIVES)
        points = tuple(
            CollectivePoint(
                payload_bytes=p["payload_bytes"].int(ge=0),
                time_s=p["time_s"].number(gt=0),
                rank_medians_s=tuple(t.number(gt=0) for t in p["rank_medians_s"].items()),
                algbw_bytes_per_s=p["algbw_bytes_per_s"].number(ge=0),
                busbw_bytes_per_s=p["busbw_bytes_per_s"].number(ge=0),
                predicted_s=None if p.get("predicted_s") is None else p["predicted_s"].number(ge=0),
            )
            for p in entry["points"].items()
        )
        n = entry["ranks"].int(ge=1)
        fit = None
        if entry.get("alpha_s") is not None:
            bandwidth = entry.get("bandwidth_bytes_per_s")
            fit = AlphaBetaFit(
                kind=kind,
                ranks=n,
                alpha_s=entry["alpha_s"].number(ge=0),
                bandwidth_bytes_per_s=None if bandwidth is None else bandwidth.number(gt=0),
                num_points=len(points),
                rms_relative_error=entry["rms_relative_error"].number(ge=0),
                degenerate=entry["degenerate"].flag(),
                note=entry["fit_note"].reason(),
            )
        unsupported = entry["unsupported"].reason()
        results.append(CollectiveResult(kind, n, points, fit, entry["verified"].flag(), unsupported))
    timing = data["timing"]
    return CollectivesReport(
        ranks=data["ranks"].int(ge=1),
        backend=data["backend"].text(),
        device=data["device"].text(),
        launcher=data["launcher"].text(),
        torch_version=data["torch_version"].text(),
        warmup=timing["warmup"].int(ge=0),
        repeats=timing["repeats"].int(ge=1),
        results=tuple(results),
    )


def _reason_to_json(reason: Reason | None) -> dict[str, Any] | None:
    if reason is None:
        return None
    return {"code": reason.code, "key": reason.key, "params": dict(reason.params), "message": reason.render("en")}


def check_collectives(collectives: Iterable[str] | None, name: str = "collectives") -> tuple[str, ...]:
    """The collectives named by ``collectives`` (argument ``name``): ``None`` for all of them, a comma-separated
    string, or a list, tuple or set of names; anything else is a ``TypeError`` naming ``name``.

    >>> check_collectives(-1, "kinds")
    Traceback (most recent call last):
    ...
    TypeError: kinds = -1: must be a list or tuple, not int.
    """
    if collectives is None:
        return COLLECTIVES
    if isinstance(collectives, str):
        collectives = [part.strip() for part in collectives.split(",") if part.strip()]
    elif isinstance(collectives, (set, frozenset)):  # no order of its own: the course's
        collectives = sorted(collectives, key=lambda kind: COLLECTIVES.index(kind) if kind in COLLECTIVES else -1)
    elif isinstance(collectives, Iterator):  # a generator of names, read once
        collectives = list(collectives)
    chosen = tuple(check_choice(name, kind, COLLECTIVES) for kind in check_items(name, collectives))
    if not chosen:
        raise ValueError(tr("lab.no_collectives", choices=", ".join(COLLECTIVES)))
    return tuple(dict.fromkeys(chosen))


def check_listed(name: str, value: Any, present: Iterable[str]) -> str:
    """``value`` checked to be one of the names a report holds (``present``), what a report's lookup by name does
    first: a ``TypeError`` / ``ValueError`` naming ``name``, the value and the names held, in the learner's language.

    >>> check_listed("strategy", "fsdp", ("ddp", "tp"))
    Traceback (most recent call last):
    ...
    ValueError: strategy = 'fsdp': must be one of 'ddp', 'tp'.
    """
    options = tuple(dict.fromkeys(present))
    if options or not isinstance(value, str):
        return check_choice(name, value, options)
    raise ValueError(tr("lab.report_empty", name=name, value=value))


def check_ranks(ranks: int | None) -> int:
    """Validate ``ranks`` (>= 1) and reconcile it with torchrun's WORLD_SIZE when torchrun started us.

    ``None`` means "torchrun's WORLD_SIZE" and is accepted only under torchrun. Without torchrun the lab spawns the
    ranks itself, at most :data:`FORCED_RANKS_CEILING` of them (each a process importing PyTorch).

    >>> check_ranks(2)
    2
    >>> check_ranks(1000)
    Traceback (most recent call last):
    ...
    ValueError: ranks = 1000: must be <= 64.

    Taught in: lesson 8 (formula vs measurement).
    """
    under_torchrun = launched_by_torchrun()
    if ranks is None and under_torchrun:
        return torchrun_world_size()
    n = check_int("ranks", ranks, ge=1, le=None if under_torchrun else FORCED_RANKS_CEILING)
    if under_torchrun and torchrun_world_size() != n:
        raise ValueError(tr("lab.ranks_mismatch", ranks=n, world=torchrun_world_size()))
    return n


def _import_worker() -> Any:
    try:
        from . import _collective_worker
    except ImportError as error:  # pragma: no cover - exercised only without torch
        raise ImportError(tr("lab.no_torch")) from error
    return _collective_worker


def collective_outputs(
    *,
    ranks: int | None = 2,
    collectives: Iterable[str] | None = None,
    device: str = "auto",
) -> dict[str, tuple[tuple[float, ...], ...] | str]:
    """Run each collective once on the :func:`verification_input` tensors and return every rank's output.

    ``result[kind][rank]`` is that rank's output as floats; a collective the
    backend cannot run maps to the error text instead. Used by the lab's
    self-check and by the tests (which compare against their own oracle).

    Parameters:
        ranks: processes to spawn (or torchrun's WORLD_SIZE), >= 1.
        collectives: subset of :data:`coursekit.communication.COLLECTIVES` (default all).
        device: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    >>> collective_outputs(collectives=["gather"])
    Traceback (most recent call last):
    ...
    ValueError: collectives = 'gather': must be one of 'all_reduce', 'all_gather', 'reduce_scatter', ...

    Taught in: lesson 8 (formula vs measurement).
    """
    n = check_ranks(ranks)
    kinds = check_collectives(collectives)
    device = check_choice("device", device, DEVICES)
    worker = _import_worker()
    from ._dist import run_distributed

    raw: dict[str, Any] = run_distributed(worker.outputs_worker, n, (kinds,), device)
    return raw["outputs"]  # type: ignore[no-any-return]


def run_collectives(
    *,
    ranks: int | None = 2,
    collectives: Iterable[str] | None = None,
    min_bytes: int = DEFAULT_MIN_BYTES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    repeats: int = DEFAULT_REPEATS,
    warmup: int = DEFAULT_WARMUP,
    device: str = "auto",
) -> CollectivesReport:
    """Check, time and fit the collectives; return a :class:`CollectivesReport`.

    Parameters:
        ranks: processes to spawn on this machine, >= 1; under torchrun leave it
            ``None`` (or equal to WORLD_SIZE).
        collectives: subset of :data:`coursekit.communication.COLLECTIVES`, a
            list or a comma-separated string (default all six).
        min_bytes, max_bytes: payload range S in bytes (doubling; see :func:`payload_sizes`).
        repeats: timed calls per payload, >= 1.
        warmup: untimed calls per payload first, >= 0.
        device: ``"auto"`` (CUDA + NCCL if every local rank has a GPU, else
            CPU + gloo), ``"cpu"`` or ``"cuda"``.

    >>> run_collectives(ranks=0)
    Traceback (most recent call last):
    ...
    ValueError: ranks = 0: must be >= 1.

    Taught in: lesson 8 (formula vs measurement).
    """
    n = check_ranks(ranks)
    kinds = check_collectives(collectives)
    sizes = payload_sizes(min_bytes, max_bytes, n)
    repeats = check_int("repeats", repeats, ge=1)
    warmup = check_int("warmup", warmup, ge=0)
    device = check_choice("device", device, DEVICES)
    worker = _import_worker()
    from ._dist import run_distributed

    raw: dict[str, Any] = run_distributed(worker.timing_worker, n, (kinds, sizes, warmup, repeats), device)
    return build_report(raw, warmup=warmup, repeats=repeats)


#: Fit notes after which the fitted numbers predict nothing (0 s everywhere).
_NO_PREDICTION: frozenset[str] = frozenset({"zero_model", "too_few_payloads"})


def build_report(raw: Mapping[str, Any], *, warmup: int, repeats: int) -> CollectivesReport:
    """Turn a timing worker's raw output into a fitted :class:`CollectivesReport`."""
    n = int(raw["world_size"])
    results = []
    for kind in raw["kinds"]:
        status = raw["status"][kind]
        if status["code"] is not None:
            reason = Reason(status["code"], status["key"], status["params"])
            results.append(CollectiveResult(kind, n, (), None, False, reason))
            continue
        factor = bus_bandwidth_factor(kind, n)
        measured = []
        for size, per_rank in raw["times"][kind]:
            time_s, medians = reduce_max_of_medians(per_rank)
            measured.append((int(size), time_s, medians))
        fit = fit_alpha_beta(kind, n, [m[0] for m in measured], [m[1] for m in measured])
        points = tuple(
            CollectivePoint(
                payload_bytes=size,
                time_s=time_s,
                rank_medians_s=medians,
                algbw_bytes_per_s=size / time_s,
                busbw_bytes_per_s=size / time_s * factor,
                predicted_s=None if fit.note is not None and fit.note.code in _NO_PREDICTION else fit.predict_s(size),
            )
            for size, time_s, medians in measured
        )
        results.append(CollectiveResult(kind, n, points, fit, True, None))
    return CollectivesReport(
        ranks=n,
        backend=str(raw["backend"]),
        device=str(raw["device"]),
        launcher=str(raw["launcher"]),
        torch_version=str(raw["torch_version"]),
        warmup=warmup,
        repeats=repeats,
        results=tuple(results),
    )


learner_functions(globals())
