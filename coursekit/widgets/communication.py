"""Lesson 2 widget: when is a call latency-bound, and when bandwidth-bound?

Controls: a link preset (which loads its bandwidth and latency into the two
sliders), the payload per call (a log-spaced slider), the calls per step, the
bandwidth (GiB/s, per GPU and direction) and the latency (µs per call).

The figure plots the time of one call against its payload on log-log axes:
the latency term (flat), the transfer term (slope 1) and their sum, with the
crossover payload ``payload* = latency x bandwidth``
(:func:`coursekit.communication.crossover_payload_mib`) marked and the current
payload as a dot. The totals of the intra-node and cross-node presets are
drawn faintly for comparison. One call is one point-to-point transfer:
:func:`coursekit.communication.collective_cost` of ``send_recv`` gives exactly
the per-call ``latency + payload / bandwidth`` of lesson 2's ledger, unrounded. The
verdict is :meth:`coursekit.communication.CommunicationLedger.explain` of the
whole step.

>>> from coursekit.widgets.communication import CommunicationWidget
>>> w = CommunicationWidget()
>>> w.result.ledger.lower_bound_ms, w.result.ledger.dominant_term
(7.62, 'bandwidth')
>>> w.controls["payload_mib"].value = 1 / 64
>>> w.result.ledger.dominant_term
'latency'

Taught in: lesson 2 (Q2 communication).
"""

from __future__ import annotations

import html
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import ipywidgets
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, NullLocator

from .._validate import check_int, check_number, learner_functions
from ..communication import CollectiveCost, CommunicationLedger, collective_cost, communication_ledger
from ..communication import crossover_payload_mib as crossover_mib
from ..communication.collectives import _collective_terms_s
from ..hardware import LINK_PRESETS, LinkPreset, link_preset_name
from ..i18n import Text, register, tr
from ..plotting import cache_drawing, label
from ..units import GIB_BYTES, MIB_BYTES, US_PER_S, mib_to_bytes
from . import CONTROL_WIDTH, CheckedSelectionSlider, LessonWidget, dropdown, number_stepper, stepper

__all__ = [
    "BANDWIDTH_STOPS_GIB_S",
    "CALLS_STOPS",
    "LATENCY_STOPS_US",
    "PAYLOAD_CHOICES_MIB",
    "CommunicationView",
    "CommunicationWidget",
    "call_cost",
    "payload_label",
]

register(
    {
        "widgets.communication.link": {"zh": "链路预设", "en": "link preset"},
        "widgets.communication.payload_mib": {"zh": "每次调用的载荷", "en": "payload per call"},
        "widgets.communication.calls_per_step": {"zh": "每步调用次数", "en": "calls per step"},
        "widgets.communication.bandwidth_gib_s": {
            "zh": "带宽 (GiB/s，单向)",
            "en": "bandwidth (GiB/s, one way)",
        },
        "widgets.communication.latency_us": {"zh": "时延 (µs/次)", "en": "latency (µs per call)"},
        "widgets.communication.per_call_latency": {
            "zh": "每次调用：时延 {latency}，传输 {transfer}。载荷 {payload} 低于分界载荷 "
            "payload* = {crossover}：时延主导。",
            "en": "Per call: latency {latency}, transfer {transfer}. The payload {payload} is "
            "below the crossover payload* = {crossover}: latency-bound.",
        },
        "widgets.communication.per_call_bandwidth": {
            "zh": "每次调用：时延 {latency}，传输 {transfer}。载荷 {payload} 不低于分界载荷 "
            "payload* = {crossover}：带宽主导。",
            "en": "Per call: latency {latency}, transfer {transfer}. The payload {payload} is "
            "at or above the crossover payload* = {crossover}: bandwidth-bound.",
        },
        "widgets.communication.off_preset": {
            "zh": "{changed}，不再是链路预设“{preset}”的值：上面按 {bandwidth} GiB/s、{latency} µs 计算。",
            "en": "{changed} the link preset “{preset}”: the lines above use {bandwidth} GiB/s and {latency} µs.",
        },
        "widgets.communication.changed_bandwidth": {
            "zh": "带宽已经改过",
            "en": "The bandwidth was changed and no longer matches",
        },
        "widgets.communication.changed_latency": {
            "zh": "时延已经改过",
            "en": "The latency was changed and no longer matches",
        },
        "widgets.communication.changed_both": {
            "zh": "带宽和时延都已经改过",
            "en": "The bandwidth and the latency were changed and no longer match",
        },
        "widgets.communication.per_call_none": {
            "zh": "每次调用：时延和传输都是 0，没有需要计时的通信。",
            "en": "Per call: latency and transfer are both 0, there is nothing to time.",
        },
    }
)

#: Payloads offered per call, MiB: 1 KiB to 4 GiB in steps of 4x (a log-spaced slider).
PAYLOAD_CHOICES_MIB: tuple[float, ...] = tuple(4.0**k for k in range(-5, 7))
#: Payloads of lesson 2's first two ledgers, added to the choices so the slider can show them exactly.
_LEDGER_PAYLOADS_MIB: tuple[float, ...] = (32.0, 256.0)
#: Stops of the bandwidth slider (GiB/s, one way), about 2x apart, with every link preset's bandwidth: a slider with
#: a 0.01 GiB/s step needed 10,000 arrow presses to double the course's 100 GiB/s.
BANDWIDTH_STOPS_GIB_S: tuple[float, ...] = tuple(
    sorted({1.0, 2.0, 5.0, 10.0, 25.0, 50.0, 100.0, 200.0, 500.0} | {p.bandwidth_gib_s for p in LINK_PRESETS.values()})
)
#: Stops of the latency slider (µs per call), with every preset's latency and half the course's 5 µs.
LATENCY_STOPS_US: tuple[float, ...] = tuple(
    sorted({0.0, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 50.0} | {p.latency_us for p in LINK_PRESETS.values()})
)
#: Stops of the calls-per-step slider: powers of two up to 512, with lesson 2's 24 and 96 calls.
CALLS_STOPS: tuple[int, ...] = (0, 1, 2, 4, 8, 16, 24, 32, 64, 96, 128, 256, 512)
#: Payloads (MiB) where the curves are sampled: 2**-10 (1 KiB) to 2**12 (4 GiB), 4 points per octave.
_CURVE_MIB: tuple[float, ...] = tuple(2.0 ** (k / 4) for k in range(-40, 49))
_CURVE_BYTES = np.array([mib_to_bytes(mib) for mib in _CURVE_MIB])
#: Fixed y range of the figure, µs per call.
_Y_RANGE_US: tuple[float, float] = (1e-3, 1e7)
#: The presets drawn faintly for comparison, with their colours.
_COMPARISON: tuple[tuple[str, str], ...] = (("intra_node", "#55a868"), ("cross_node", "#c44e52"))


def duration_label(us: float) -> str:
    """A duration in µs below 1000 µs, in ms below 1000 ms, else in s, to three significant figures.

    >>> duration_label(6.6), duration_label(31_200), duration_label(2.5e6)
    ('6.6 µs', '31.2 ms', '2.5 s')
    """
    value = check_number("us", us, ge=0)
    if value >= 1e6:
        return f"{value / 1e6:.3g} s"
    if value >= 1e3:
        return f"{value / 1e3:.3g} ms"
    return f"{value:.3g} µs"


def payload_label(mib: float) -> str:
    """A payload in the largest binary unit that keeps it >= 1 (KiB, MiB or GiB).

    >>> payload_label(1 / 1024), payload_label(32), payload_label(4096)
    ('1 KiB', '32 MiB', '4 GiB')

    Taught in: lesson 2 (Q2 communication).
    """
    value = check_number("mib", mib, ge=0)
    if value >= 1024:
        return f"{value / 1024:g} GiB"
    if value >= 1 or value == 0:
        return f"{value:g} MiB"
    return f"{value * 1024:g} KiB"


#: The largest float: a payload or bandwidth whose bytes would pass it is refused by name.
_FLOAT_MAX: float = sys.float_info.max


def call_cost(payload_mib: float, bandwidth_gib_s: float, latency_us: float) -> CollectiveCost:
    """One call of lesson 2's ledger, unrounded: a point-to-point transfer (``send_recv`` over 2 ranks).

    Parameters: ``payload_mib`` in MiB, ``bandwidth_gib_s`` in GiB/s (per GPU and
    direction), ``latency_us`` in µs per call.

    >>> c = call_cost(256, 100, 5)
    >>> round(c.latency_s * 1e6, 6), round(c.transfer_s * 1e3, 6)
    (5.0, 2.5)

    Taught in: lesson 2 (Q2 communication).
    """
    return collective_cost(
        "send_recv",
        # bounded so that the bytes they stand for stay finite floats (the messages name these arguments)
        payload_bytes=mib_to_bytes(check_number("payload_mib", payload_mib, ge=0, le=_FLOAT_MAX / MIB_BYTES)),
        ranks=2,
        bandwidth_bytes_per_s=check_number("bandwidth_gib_s", bandwidth_gib_s, gt=0, le=_FLOAT_MAX / GIB_BYTES)
        * GIB_BYTES,
        latency_s=check_number("latency_us", latency_us, ge=0) / US_PER_S,
    )


@dataclass(frozen=True)
class CommunicationView:
    """What :class:`CommunicationWidget` computed for one set of control values.

    ``ledger`` is the step ledger (:func:`coursekit.communication.communication_ledger`);
    ``per_call`` one call, unrounded;
    ``crossover_mib`` the payload where latency equals transfer;
    ``curve_mib`` the payloads sampled and ``latency_us`` / ``transfer_us`` /
    ``total_us`` the per-call terms there, in µs.
    """

    ledger: CommunicationLedger
    per_call: CollectiveCost
    crossover_mib: float
    curve_mib: tuple[float, ...]
    latency_us: tuple[float, ...]
    transfer_us: tuple[float, ...]
    total_us: tuple[float, ...]

    @property
    def per_call_dominant_term(self) -> str:
        """``"latency"``, ``"bandwidth"`` or ``"none"`` for one call (the same as the step's)."""
        return self.per_call.dominant_term


def _curve(bandwidth_gib_s: float, latency_us: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Latency and transfer terms (µs) of :func:`call_cost` at each payload of :data:`_CURVE_MIB`, unvalidated.

    The same kernel as :func:`call_cost` (``send_recv`` over 2 ranks), on all payloads at once.
    """
    latency_s, transfer_s = _collective_terms_s(
        "send_recv", 2, _CURVE_BYTES, bandwidth_gib_s * GIB_BYTES, latency_us / US_PER_S
    )
    latency = np.broadcast_to(latency_s, _CURVE_BYTES.shape) * US_PER_S
    return tuple(latency.tolist()), tuple((transfer_s * US_PER_S).tolist())


def _payload_slider(key: str, choices: Sequence[float], value: float) -> ipywidgets.ValueWidget:
    options = [(payload_label(mib), mib) for mib in sorted(set(choices))]
    slider = CheckedSelectionSlider(
        description=tr(key),
        options=options,
        value=value,
        continuous_update=False,
        style={"description_width": "initial"},
        layout=ipywidgets.Layout(width=CONTROL_WIDTH),
    )
    slider._ck_name, slider._ck_label = "payload_mib", key
    return slider


def _positive(values: Sequence[float]) -> list[float]:
    """Values for a log axis: zeros become NaN (not drawn)."""
    return [v if v > 0 else float("nan") for v in values]


class CommunicationWidget(LessonWidget[CommunicationView]):
    """Time per call vs payload (log-log): latency term, transfer term, total and the crossover payload.

    Keyword arguments set the initial values; the defaults are lesson 2's
    high-frequency ledger ``communication_ledger(32, 24, 100, 5)`` on the course's
    example link (``link="example"``).

    Taught in: lesson 2 (Q2 communication).
    """

    #: 3.0 in tall, not 3.2: the link menu takes a row of its own in the grid of controls (its options are too long
    #: for a column), and projected at 125 % (493 px visible) the figure must still end inside (review 24).
    figure_size_in: ClassVar[tuple[float, float]] = (6.2, 3.0)
    grid_controls: ClassVar[bool] = True
    wide_controls: ClassVar[tuple[str, ...]] = ("link",)
    main_control: ClassVar[str | None] = "payload_mib"

    def __init__(
        self,
        *,
        link: str = "example",
        payload_mib: float = 32.0,
        calls_per_step: int = 24,
        bandwidth_gib_s: float | None = None,
        latency_us: float | None = None,
    ) -> None:
        link = link_preset_name(link, "link")  # a former preset name maps to its current one
        preset = LINK_PRESETS[link]
        payload_mib = check_number("payload_mib", payload_mib, ge=0, le=max(PAYLOAD_CHOICES_MIB))
        bandwidth = (
            preset.bandwidth_gib_s if bandwidth_gib_s is None else check_number("bandwidth_gib_s", bandwidth_gib_s)
        )
        latency = preset.latency_us if latency_us is None else check_number("latency_us", latency_us)
        calls = check_int("calls_per_step", calls_per_step, ge=0)
        link_control = dropdown(
            "widgets.communication.link", [(p.label, name) for name, p in LINK_PRESETS.items()], value=link
        )
        # Registered before the base class's observer, so a preset loads both sliders before the update.
        link_control.observe(self._load_preset, names="value")
        choices = (*PAYLOAD_CHOICES_MIB, *_LEDGER_PAYLOADS_MIB, float(payload_mib))
        super().__init__(
            {
                "link": link_control,
                "payload_mib": _payload_slider("widgets.communication.payload_mib", choices, float(payload_mib)),
                # stops a press apart, not fine steps: see BANDWIDTH_STOPS_GIB_S
                "calls_per_step": stepper(
                    "widgets.communication.calls_per_step",
                    [(str(n), n) for n in sorted({*CALLS_STOPS, calls})],
                    value=calls,
                ),
                "bandwidth_gib_s": number_stepper(
                    "widgets.communication.bandwidth_gib_s", "bandwidth_gib_s", bandwidth, BANDWIDTH_STOPS_GIB_S, gt=0
                ),
                "latency_us": number_stepper(
                    "widgets.communication.latency_us", "latency_us", latency, LATENCY_STOPS_US, ge=0
                ),
            }
        )

    def _load_preset(self, change: Mapping[str, Any]) -> None:
        preset: LinkPreset | None = LINK_PRESETS.get(change["new"]) if isinstance(change["new"], str) else None
        if preset is None:  # a value set in code that is no preset: update() names it in the message box
            return
        with self.hold_updates():
            self.controls["bandwidth_gib_s"].value = preset.bandwidth_gib_s
            self.controls["latency_us"].value = preset.latency_us

    # -- LessonWidget -------------------------------------------------------------------

    def setup(self, fig: Figure) -> None:
        # Fixed margins instead of constrained layout: the layout never changes, and each PNG is cheaper.
        fig.set_layout_engine(None)
        fig.subplots_adjust(left=0.12, right=0.97, top=0.95, bottom=0.15)
        ax = fig.add_subplot()
        self.ax = ax
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(_CURVE_MIB[0], _CURVE_MIB[-1])
        ax.set_ylim(*_Y_RANGE_US)
        # Fewer tick labels: each text costs a few ms per PNG.
        ax.xaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_major_locator(LogLocator(base=10, numticks=6))
        ax.set_xlabel(label(Text(zh="每次调用的载荷 (MiB)", en="payload per call (MiB)")))
        ax.set_ylabel(label(Text(zh="每次调用的时间 (µs)", en="time per call (µs)")))
        for name, colour in _COMPARISON:
            preset = LINK_PRESETS[name]
            latency, transfer = _curve(preset.bandwidth_gib_s, preset.latency_us)
            total = [a + b for a, b in zip(latency, transfer, strict=True)]
            ax.plot(_CURVE_MIB, total, color=colour, alpha=0.3, linewidth=1.2, label=label(preset.label))
        (self.latency_line,) = ax.plot([], [], color="#dd8452", linestyle="--", linewidth=1.2)
        (self.transfer_line,) = ax.plot([], [], color="#4c72b0", linestyle="--", linewidth=1.2)
        (self.total_line,) = ax.plot([], [], color="black", linewidth=1.8)
        self.latency_line.set_label(label(Text(zh="时延项", en="latency term")))
        self.transfer_line.set_label(label(Text(zh="传输项 (载荷/带宽)", en="transfer term (payload / bandwidth)")))
        self.total_line.set_label(label(Text(zh="合计", en="total")))
        self.crossover_line = ax.axvline(1.0, color="grey", linestyle=":", linewidth=1.2)
        self.crossover_text = ax.text(
            1.0, 0.03, "", fontsize=8, color="dimgrey", ha="left", va="bottom", transform=ax.get_xaxis_transform()
        )
        (self.point,) = ax.plot([], [], "o", color="black", markersize=7, zorder=5)
        # Fixed limits: the legend and both axes look the same at every update, drawn from a bitmap.
        cache_drawing(ax.legend(loc="upper left", fontsize=7, framealpha=0.9))
        cache_drawing(ax.xaxis, key=ax.xaxis.get_view_interval)
        cache_drawing(ax.yaxis, key=ax.yaxis.get_view_interval)

    def compute(self, **values: Any) -> CommunicationView:
        values = self.check_values(values)  # a direct call may pass what no control offers
        payload = values["payload_mib"]
        bandwidth = values["bandwidth_gib_s"]
        latency = values["latency_us"]
        ledger = communication_ledger(payload, values["calls_per_step"], bandwidth, latency)
        per_call = call_cost(payload, bandwidth, latency)
        latency_curve, transfer_curve = _curve(bandwidth, latency)
        return CommunicationView(
            ledger=ledger,
            per_call=per_call,
            crossover_mib=crossover_mib(bandwidth, latency),
            curve_mib=_CURVE_MIB,
            latency_us=latency_curve,
            transfer_us=transfer_curve,
            total_us=tuple(a + b for a, b in zip(latency_curve, transfer_curve, strict=True)),
        )

    def draw(self, result: CommunicationView) -> None:
        self.latency_line.set_data(result.curve_mib, _positive(result.latency_us))
        self.transfer_line.set_data(result.curve_mib, _positive(result.transfer_us))
        self.total_line.set_data(result.curve_mib, _positive(result.total_us))
        crossover = result.crossover_mib
        visible = crossover > 0
        self.crossover_line.set_visible(visible)
        self.crossover_text.set_visible(visible)
        if visible:
            self.crossover_line.set_xdata([crossover, crossover])
            self.crossover_text.set_x(crossover * 1.1)
            self.crossover_text.set_text(f"payload* = {crossover:.3g} MiB")
        total_us = result.per_call.total_s * US_PER_S
        self.point.set_data([result.ledger.payload_per_call_mib], _positive([total_us]))

    def describe(self, result: CommunicationView) -> str:
        per_call = result.per_call
        dominant = result.per_call_dominant_term
        if dominant == "none":
            first = tr("widgets.communication.per_call_none")
        else:
            first = tr(
                f"widgets.communication.per_call_{dominant}",
                latency=duration_label(per_call.latency_s * US_PER_S),
                transfer=duration_label(per_call.transfer_s * US_PER_S),
                payload=payload_label(result.ledger.payload_per_call_mib),
                crossover=f"{result.crossover_mib:.3g} MiB",
            )
        text = f"{first}<br><b>{result.ledger.explain()}</b>"
        # the menu keeps showing the preset a learner picked before moving the sliders: say the lines are not it
        preset = LINK_PRESETS.get(self.controls["link"].value)
        bandwidth, latency = self.controls["bandwidth_gib_s"].value, self.controls["latency_us"].value
        bandwidth_moved = preset is not None and not math.isclose(bandwidth, preset.bandwidth_gib_s, rel_tol=1e-9)
        latency_moved = preset is not None and not math.isclose(latency, preset.latency_us, rel_tol=1e-9, abs_tol=1e-12)
        if preset is not None and (bandwidth_moved or latency_moved):
            # name what moved: "带宽和时延已经改过" after moving only the bandwidth sent the learner looking (review 22)
            both = bandwidth_moved and latency_moved
            changed = "both" if both else "bandwidth" if bandwidth_moved else "latency"
            off = tr(
                "widgets.communication.off_preset",
                changed=tr(f"widgets.communication.changed_{changed}"),
                preset=str(preset.label),
                bandwidth=f"{bandwidth:.3g}",
                latency=f"{latency:.3g}",
            )
            text += f"<br>{html.escape(off)}"
        return text


learner_functions(globals())
