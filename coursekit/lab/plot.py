"""Figure of the lab: measured collective times against the fitted ring model, log-log.

Each panel shows one collective: the measured points (max over ranks of the
per-rank median), the fitted model ``t = steps·α + factor·S/B`` as a line,
and the crossover payload S* that splits the latency-bound regime (left,
shaded) from the bandwidth-bound one (right).

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from .._validate import check_instance, check_int, check_items, learner_functions
from ..communication import COLLECTIVE_NAMES
from ..i18n import Text
from ..plotting import label, new_figure
from ..units import MS_PER_S
from .collectives import CollectivesReport, check_collectives
from .fit import crossover_bytes
from .timeline import ScenarioResult, step_intervals

#: Colours of the parts of a step in :func:`plot_step_lanes` (the same part, the same colour, in every figure).
#: Where the time axis of :func:`plot_measured_vs_predicted` has labelled ticks: 1, 2 and 5 times each power of ten.
TIME_TICK_SUBS: tuple[float, ...] = (1.0, 2.0, 5.0)

PART_COLOURS: dict[str, str] = {
    "compute": "tab:blue",
    "exposed_communication": "tab:orange",
    "wait_slower_rank": "tab:red",
    "input_wait": "tab:grey",
    "hidden_communication": "tab:green",
}
PART_LABELS: dict[str, Text] = {
    "compute": Text(zh="计算", en="compute"),
    "exposed_communication": Text(zh="暴露的通信", en="exposed communication"),
    "wait_slower_rank": Text(zh="等慢 rank", en="wait: slower rank"),
    "input_wait": Text(zh="等输入", en="wait: input"),
    "hidden_communication": Text(zh="被计算掩盖的通信", en="communication hidden under compute"),
}

__all__ = ["plot_measured_vs_predicted", "plot_step_lanes"]

#: Milliseconds per microsecond (trace timestamps are in µs).
MS_PER_US: float = 1e-3
#: Points on each model line.
LINE_POINTS: int = 64
#: Panel size in inches.
PANEL_WIDTH_IN: float = 3.4
PANEL_HEIGHT_IN: float = 2.7
#: Most panels per row (there are six collectives).
MAX_COLUMNS: int = 6


def plot_measured_vs_predicted(
    report: CollectivesReport, kinds: Sequence[str] | None = None, columns: int = 3
) -> Figure:
    """One log-log panel per collective: measured points, fitted model line, regimes marked.

    Parameters:
        report: a :class:`coursekit.lab.collectives.CollectivesReport`.
        kinds: collectives to draw (default: every one that has points).
        columns: panels per row, >= 1.

    >>> from coursekit.lab.collectives import CollectivesReport
    >>> fig = plot_measured_vs_predicted(CollectivesReport(2, "gloo", "cpu", "spawn", "2.13.0", 5, 20))
    >>> len(fig.axes)
    0

    Taught in: lesson 8 (formula vs measurement).
    """
    check_instance("report", report, CollectivesReport)
    if kinds is not None:
        kinds = check_collectives(kinds, "kinds")
    columns = check_int("columns", columns, ge=1, le=MAX_COLUMNS)
    chosen = [r for r in report.results if r.points and (kinds is None or r.kind in kinds)]
    columns = max(1, min(columns, len(chosen) or 1))
    rows = max(1, math.ceil(len(chosen) / columns))
    fig = new_figure(PANEL_WIDTH_IN * columns, PANEL_HEIGHT_IN * rows)
    for index, result in enumerate(chosen):
        ax = fig.add_subplot(rows, columns, index + 1)
        sizes = [p.payload_bytes for p in result.points]
        times_ms = [p.time_s * MS_PER_S for p in result.points]
        ax.loglog(sizes, times_ms, "o", markersize=4, label=label(Text(zh="实测", en="measured")))
        low, high = min(sizes), max(sizes)
        fit = result.fit
        if fit is not None and fit.bandwidth_bytes_per_s is not None:
            grid = [low * (high / low) ** (i / (LINE_POINTS - 1)) for i in range(LINE_POINTS)] if high > low else [low]
            ax.loglog(
                grid,
                [fit.predict_s(s) * MS_PER_S for s in grid],
                "-",
                label=label(Text(zh="公式（拟合 α, B）", en="formula (fitted α, B)")),
            )
            crossover = crossover_bytes(fit)
            if crossover is not None:
                ax.axvline(crossover, color="grey", linestyle=":", linewidth=1)
                left = min(low, crossover)
                if crossover > low:
                    ax.axvspan(left, min(crossover, high), color="tab:orange", alpha=0.08)
                ax.text(
                    0.03,
                    0.95,
                    label(Text(zh="时延主导", en="latency-bound")),
                    transform=ax.transAxes,
                    fontsize=7,
                    va="top",
                )
                ax.text(
                    0.97,
                    0.05,
                    label(Text(zh="带宽主导", en="bandwidth-bound")),
                    transform=ax.transAxes,
                    fontsize=7,
                    ha="right",
                )
        ax.set_title(f"{label(COLLECTIVE_NAMES[result.kind])} (n = {result.ranks})", fontsize=9)
        ax.set_xlabel(label(Text(zh="载荷 S（字节）", en="payload S (bytes)")), fontsize=8)
        ax.set_ylabel(label(Text(zh="时间（毫秒）", en="time (ms)")), fontsize=8)
        _time_axis_in_ms(ax)
        ax.tick_params(labelsize=7)
        ax.grid(True, which="major", alpha=0.3)
    if chosen:
        fig.legend(*fig.axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize=8)
    return fig


def _time_axis_in_ms(ax: Axes) -> None:
    """Label a log time axis (data in milliseconds) as plain numbers at 1, 2 and 5 times each power of ten, without
    minor ticks on either axis.

    Plain numbers read more easily than 2×10⁻⁴ s, and the minor ticks of six log-log panels (several hundred tick
    objects, drawn twice by the layout engine) were most of the figure's drawing time.
    """
    ax.yaxis.set_major_locator(LogLocator(base=10.0, subs=TIME_TICK_SUBS))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda ms, _: f"{ms:g}"))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_locator(NullLocator())


def plot_step_lanes(results: Sequence[ScenarioResult]) -> Figure:
    """One panel per result: a lane per rank showing its first profiled step, part by part.

    Each lane starts at that rank's own step start (ranks' clocks are not
    compared); hidden communication is drawn as a thin bar under the compute
    it hides beneath. White gaps are "other": host time between operators.

    Taught in: lesson 8 (formula vs measurement).
    """
    for index, result in enumerate(check_items("results", results)):
        check_instance(f"results[{index}]", result, ScenarioResult)
    chosen = [r for r in results if r.sample]
    fig = new_figure(9.0, 1.0 + 1.1 * sum(len(r.sample) for r in chosen))
    for index, result in enumerate(chosen):
        ax = fig.add_subplot(len(chosen), 1, index + 1)
        for lane, (events, parts) in enumerate(zip(result.sample, step_intervals(result.sample), strict=True)):
            origin = events.step[0]
            for part, colour in PART_COLOURS.items():
                spans = [((a - origin) * MS_PER_US, (b - a) * MS_PER_US) for a, b in parts[part]]
                if part == "hidden_communication":
                    ax.broken_barh(spans, (lane - 0.42, 0.16), color=colour, label=label(PART_LABELS[part]))
                else:
                    ax.broken_barh(spans, (lane - 0.25, 0.5), color=colour, label=label(PART_LABELS[part]))
        ax.set_yticks(range(len(result.sample)), [f"rank {r}" for r in range(len(result.sample))], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(f"{result.strategy.upper()} — {result.scenario.label()}", fontsize=9)
        ax.set_xlabel(label(Text(zh="步内时间（毫秒）", en="time within the step (ms)")), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, axis="x", alpha=0.3)
    if chosen:
        handles, names = fig.axes[0].get_legend_handles_labels()
        unique = dict(zip(names, handles, strict=True))
        fig.legend(list(unique.values()), list(unique), loc="outside lower center", ncols=3, fontsize=8)
    return fig


learner_functions(globals())
