"""Lesson 3 widget: the environment on one side, every candidate through every gate on the other.

The learner sets the environment (device memory, workload mode, model
structure, link scope, context length and the context one device can hold);
the widget runs :func:`coursekit.gates.evaluate_candidates` on the example's four
candidates plus the course's PP, CP and Replica, and shows

* a gate × candidate grid (rows: candidates, columns: the six gates of
  :data:`coursekit.gates.GATES` in order; green = pass, red with × = fail,
  a black frame on each candidate's first failing gate), updated in place;
* a table of the candidates, accepted or rejected, every rejection with its
  reasons in the lesson's language. There is no score column, on purpose.

>>> w = GatesWidget()
>>> w.status, [r.name for r in w.result.reports if r.accepted]
('ok', ['ZeRO-3', 'TP', 'PP'])
>>> w.controls["memory_per_device_gib"].value = 32.0
>>> [r.name for r in w.result.reports if r.accepted]
['DP', 'ZeRO-3', 'TP', 'PP']

Taught in: lesson 3 (Q3 gates).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure

from .._validate import learner_functions
from ..gates import (
    COURSE_CANDIDATES,
    EXAMPLE_CANDIDATES,
    EXAMPLE_ENVIRONMENT,
    GATES,
    LINK_SCOPES,
    MODEL_KINDS,
    MODES,
    Candidate,
    CandidateReport,
    Environment,
    evaluate_candidates,
)
from ..i18n import Reason, Text, register, tr
from ..plotting import label, plot_language
from . import LessonWidget, dropdown, number

__all__ = [
    "CONTEXT_OPTIONS",
    "GATE_SHORT_LABELS",
    "MAX_CONTEXT_OPTIONS",
    "OPTION_TEXTS",
    "WIDGET_CANDIDATES",
    "GateGrid",
    "GatesWidget",
    "gate_grid",
]

#: The candidates the widget screens: the example's four, then the course's PP, CP and Replica.
WIDGET_CANDIDATES: tuple[Candidate, ...] = (*EXAMPLE_CANDIDATES, *COURSE_CANDIDATES)

#: Context lengths offered (tokens); ``None`` = not declared, as in the example environment.
CONTEXT_OPTIONS: tuple[int | None, ...] = (None, 4096, 32768, 131072)

#: Tokens whose attention state one device holds; ``None`` = not measured.
MAX_CONTEXT_OPTIONS: tuple[int | None, ...] = (None, 8192, 32768, 65536)

#: Column labels of the grid, one per gate code of :data:`coursekit.gates.GATES`.
GATE_SHORT_LABELS: dict[str, Text] = {
    "memory": Text(zh="容量", en="fit"),
    "interconnect": Text(zh="互连", en="interconnect"),
    "structure": Text(zh="结构", en="structure"),
    "context": Text(zh="上下文", en="context"),
    "mode": Text(zh="模式", en="mode"),
    "serving": Text(zh="服务角色", en="serving"),
}

_PASS_RGB = (0.78, 0.90, 0.79)  # light green
_FAIL_RGB = (0.94, 0.60, 0.60)  # light red
#: How the widget and lesson 3's tables name the environment's and candidates' codes (modes, model kinds, link
#: scopes, execution roles): Chinese first with the code the API takes.
OPTION_TEXTS: dict[str, Text] = {
    "training": Text(zh="训练 (training)", en="training"),
    "serving": Text(zh="服务 (serving)", en="serving"),
    "dense": Text(zh="稠密 (dense)", en="dense"),
    "moe": Text(zh="混合专家 (MoE)", en="mixture of experts (MoE)"),
    "none": Text(zh="无保证 (none)", en="none promised"),
    "cross_node": Text(zh="跨节点 (cross_node)", en="across nodes (cross_node)"),
    "intra_node": Text(zh="节点内 (intra_node)", en="inside a node (intra_node)"),
    "training-sync": Text(zh="训练同步 (training-sync)", en="training sync (training-sync)"),
    "serving-replica": Text(zh="服务副本 (serving-replica)", en="serving replica (serving-replica)"),
}
_NOT_DECLARED = Text(zh="未声明", en="not declared")
_ACCEPTED_RGB = "#1b5e20"  # dark green
_REJECTED_RGB = "#b71c1c"  # dark red
_LEGEND = Text(
    zh="绿色格：通过    红色格加叉：不通过    黑框：第一道不通过的门槛    没有综合分",
    en="green cell: passes    red cell with a cross: fails    black frame: first failing gate    no blended score",
)
#: The verdict written after each candidate's name on the grid's rows (words, not check-mark glyphs).
_ROW_VERDICT: dict[bool, Text] = {True: Text(zh="通过", en="accepted"), False: Text(zh="拒绝", en="rejected")}

register(
    {
        "widgets.gates.memory_per_device_gib": {"zh": "单设备显存 (GiB)", "en": "memory per device (GiB)"},
        "widgets.gates.mode": {"zh": "工作负载模式", "en": "workload mode"},
        "widgets.gates.model_kind": {"zh": "模型结构", "en": "model type"},
        "widgets.gates.link_scope": {"zh": "并行组可用的链路域", "en": "link scope for the group"},
        "widgets.gates.context_len": {"zh": "上下文长度 (token)", "en": "context length (tokens)"},
        "widgets.gates.max_context_per_device": {
            "zh": "单卡可容纳的上下文 (token)",
            "en": "context one device holds (tokens)",
        },
        "widgets.gates.summary": {
            "zh": "{total} 个候选中有 {count} 个通过全部 {gates} 道门槛：{names}。",
            "en": "{count} of {total:@candidate} pass all {gates:@gate}: {names}.",
        },
        "widgets.gates.none_accepted": {"zh": "没有候选", "en": "none"},
        "widgets.gates.title_context": {
            "zh": "上下文长度：{context}    单卡可容纳：{capacity}",
            "en": "context length: {context}    one device holds: {capacity}",
        },
        "widgets.gates.tokens": {"zh": "{count:,} token", "en": "{count:,@token}"},
        "widgets.gates.half_context": {
            "zh": "上下文只声明了一半：“{missing}”还是“未声明”，所以上下文门槛仍然拒绝 CP（见下表 CP 一行）；"
            "两个都选上，才能判断单卡放不放得下这段上下文。",
            "en": "The context is half declared: “{missing}” is still “not declared”, so the context gate still "
            "rejects CP (see CP's row below); choose both to tell whether one device holds this context.",
        },
        "widgets.gates.col_candidate": {"zh": "候选", "en": "candidate"},
        "widgets.gates.col_verdict": {"zh": "结论", "en": "verdict"},
        "widgets.gates.col_reasons": {"zh": "拒绝原因（按门槛顺序）", "en": "reasons (in gate order)"},
        "widgets.gates.accepted": {"zh": "通过，进入实测", "en": "accepted: measure next"},
        "widgets.gates.rejected": {"zh": "拒绝", "en": "rejected"},
        "widgets.gates.context_len_missing": {
            "zh": "{name} 切分上下文；环境声明了单卡可容纳 {max_tokens:,} 个 token 的注意力状态，但没有声明上下文长度"
            "（context_len）：无法证明单卡放不下，也就无法证明需要上下文并行 (context parallelism, CP)",
            "en": "{name} splits the context; the environment declares that one device holds the attention state of "
            "{max_tokens:,@token} but no context length (context_len): nothing shows that one device cannot hold "
            "it, so nothing shows that context parallelism (CP) is needed",
        },
        "widgets.gates.capacity_missing": {
            "zh": "{name} 切分上下文；环境声明了上下文长度 {context_len:,} 个 token，但没有声明单卡可容纳的注意力状态"
            "（max_context_per_device）：无法证明单卡放不下，也就无法证明需要上下文并行 (context parallelism, CP)",
            "en": "{name} splits the context; the environment declares a context of {context_len:,@token} but no "
            "per-device attention capacity (max_context_per_device): nothing shows that one device cannot hold it, "
            "so nothing shows that context parallelism (CP) is needed",
        },
        "widgets.gates.no_score": {
            "zh": "没有综合分：每个被拒绝的候选都写明是哪条规则、差多少；加粗的是第一道不通过的门槛。",
            "en": "No blended score: every rejection names the rule and the numbers; the first failing gate "
            "is in bold.",
        },
    }
)


def _html_message(message: str) -> str:
    """A reason's text as HTML: escaped, its code spans (between backticks, as the catalog marks API codes) shown as
    code rather than with their backticks.

    >>> _html_message("modes `('training',)` <b>")
    'modes <code>(&#x27;training&#x27;,)</code> &lt;b&gt;'
    """
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(message))


@dataclass(frozen=True)
class GateGrid:
    """Every candidate through every gate, for one environment.

    ``passed[i][j]`` is whether candidate ``i`` passes gate ``j`` of
    :data:`~coursekit.gates.GATES`; ``reports[i]`` is
    :func:`~coursekit.gates.evaluate_candidate`'s verdict with its reasons.
    """

    environment: Environment
    reports: tuple[CandidateReport, ...]
    gate_codes: tuple[str, ...]
    passed: tuple[tuple[bool, ...], ...]

    @property
    def first_failure(self) -> tuple[int | None, ...]:
        """For each candidate, the index of its first failing gate (``None`` if accepted)."""
        return tuple(next((j for j, ok in enumerate(row) if not ok), None) for row in self.passed)

    @property
    def accepted(self) -> tuple[str, ...]:
        """Names of the accepted candidates, in candidate order."""
        return tuple(report.name for report in self.reports if report.accepted)


def gate_grid(environment: Environment, candidates: tuple[Candidate, ...] = WIDGET_CANDIDATES) -> GateGrid:
    """Run each gate on each candidate (the grid) and the full evaluation (the reasons).

    >>> grid = gate_grid(EXAMPLE_ENVIRONMENT)
    >>> grid.passed[0]  # DP on the example environment: only the fit gate fails
    (False, True, True, True, True, True)

    Taught in: lesson 3 (Q3 gates).
    """
    passed = tuple(tuple(gate.check(cand, environment) is None for gate in GATES) for cand in candidates)
    reports = tuple(
        _name_the_missing_value(report, environment) for report in evaluate_candidates(candidates, environment)
    )
    return GateGrid(environment, reports, tuple(gate.code for gate in GATES), passed)


def _name_the_missing_value(report: CandidateReport, environment: Environment) -> CandidateReport:
    """``report`` with its context reason naming the one value the environment left undeclared, if only one is.

    The context gate gives one reason whether one or both of ``context_len`` and ``max_context_per_device`` are
    missing; a learner who has just declared one of them reads which one is still missing instead.

    >>> env = replace(EXAMPLE_ENVIRONMENT, context_len=131072)
    >>> cp = next(c for c in WIDGET_CANDIDATES if c.splits_context)
    >>> print(gate_grid(env, (cp,)).reports[0].reasons[0].message)  # doctest: +ELLIPSIS
    CP splits the context; the environment declares a context of 131,072 tokens but no per-device attention ...
    """
    context, capacity = environment.context_len, environment.max_context_per_device
    if (context is None) == (capacity is None):  # both declared (the gate's own reasons), or neither
        return report
    key, params = (
        ("widgets.gates.capacity_missing", {"context_len": context})
        if capacity is None
        else ("widgets.gates.context_len_missing", {"max_tokens": capacity})
    )
    reasons = tuple(
        Reason(r.code, key, {**r.params, **params}) if r.key == "gates.context_unknown" else r for r in report.reasons
    )
    return replace(report, reasons=reasons)


def _context_texts(environment: Environment, lang: str) -> dict[str, str]:
    """The figure title's context length and per-device capacity in ``lang``, "未声明" for an undeclared one."""
    return {
        key: (_NOT_DECLARED.render(lang) if value is None else tr("widgets.gates.tokens", lang=lang, count=value))
        for key, value in (("context", environment.context_len), ("capacity", environment.max_context_per_device))
    }


class GatesWidget(LessonWidget[GateGrid]):
    """Environment controls -> the gate × candidate grid and the table of verdicts with reasons.

    Controls (keyword names of :meth:`compute`): ``memory_per_device_gib`` (a number box,
    GiB), ``mode``, ``model_kind``, ``link_scope``, ``context_len`` and
    ``max_context_per_device`` (tokens, or ``None`` = not declared). The defaults are
    :data:`coursekit.gates.EXAMPLE_ENVIRONMENT`.
    """

    figure_size_in: ClassVar[tuple[float, float]] = (6.4, 3.0)
    #: Six controls in one column (190 px) put the grid's bottom 31-33 px below the 493 px visible when projected at
    #: 125 % (review 24): in a grid of two columns, the link scope and the per-device context (English options too
    #: long for a column) in rows of their own, last.
    grid_controls: ClassVar[bool] = True
    wide_controls: ClassVar[tuple[str, ...]] = ("link_scope", "max_context_per_device")
    #: The reasons table under the grid: with it above, the widget was 998 px tall at 1280 px wide and the controls
    #: scrolled off while the grid cell they change was on screen.
    figure_first: ClassVar[bool] = True
    main_control: ClassVar[str | None] = "memory_per_device_gib"

    def __init__(self) -> None:
        def options(values: tuple[str, ...]) -> list[tuple[Text, str]]:
            return [(OPTION_TEXTS[value], value) for value in values]

        def tokens(values: tuple[int | None, ...]) -> list[tuple[Text | str, int | None]]:
            return [(_NOT_DECLARED if v is None else f"{v:,}", v) for v in values]

        env = EXAMPLE_ENVIRONMENT
        super().__init__(
            {
                "memory_per_device_gib": number(
                    "widgets.gates.memory_per_device_gib", value=float(env.memory_per_device_gib)
                ),
                "mode": dropdown("widgets.gates.mode", options(MODES), value=env.mode),
                "model_kind": dropdown("widgets.gates.model_kind", options(MODEL_KINDS), value=env.model_kind),
                "context_len": dropdown("widgets.gates.context_len", tokens(CONTEXT_OPTIONS)),
                "link_scope": dropdown("widgets.gates.link_scope", options(LINK_SCOPES), value=env.link_scope),
                "max_context_per_device": dropdown("widgets.gates.max_context_per_device", tokens(MAX_CONTEXT_OPTIONS)),
            }
        )

    # -- LessonWidget ---------------------------------------------------------------------

    def setup(self, fig: Figure) -> None:
        rows, cols = len(WIDGET_CANDIDATES), len(GATES)
        # Fixed margins instead of constrained layout: one draw per PNG instead of two.
        fig.set_layout_engine(None)
        fig.subplots_adjust(left=0.2, right=0.98, top=0.83, bottom=0.09)
        self.ax = fig.add_subplot()
        # One cell per (candidate, gate), row-major; a collection is cheaper to render than an image.
        self.cells = PolyCollection(
            [
                [(j - 0.5, i - 0.5), (j + 0.5, i - 0.5), (j + 0.5, i + 0.5), (j - 0.5, i + 0.5)]
                for i in range(rows)
                for j in range(cols)
            ],
            facecolors="white",
            edgecolors="white",
            linewidths=1.0,
        )
        self.ax.add_collection(self.cells, autolim=False)
        self.fail_marks = self.ax.scatter(np.empty(0), np.empty(0), marker="x", s=40, c="#7f0000", linewidths=1.5)
        self.first_marks = self.ax.scatter(
            np.empty(0), np.empty(0), marker="s", s=520, facecolors="none", edgecolors="black", linewidths=2.0
        )
        self.ax.set_yticks(range(rows), labels=[cand.name for cand in WIDGET_CANDIDATES])
        self.ax.set_xticks(range(cols))
        self.ax.xaxis.tick_top()
        self.ax.tick_params(length=0)
        self.ax.set_xlim(-0.5, cols - 0.5)
        self.ax.set_ylim(rows - 0.5, -0.5)
        self.title = self.ax.set_title("", fontsize=9, pad=22)
        self.legend = fig.text(0.02, 0.015, "", fontsize=8, color="#444444")
        self._labels_lang: str | None = None

    def compute(self, **values: Any) -> GateGrid:
        values = self.check_values(values)  # a direct call may pass what no control offers
        environment = Environment(
            memory_per_device_gib=values["memory_per_device_gib"],
            mode=values["mode"],
            model_kind=values["model_kind"],
            link_scope=values["link_scope"],
            context_len=values["context_len"],
            max_context_per_device=values["max_context_per_device"],
        )
        return gate_grid(environment)

    def verdict_level(self, result: GateGrid) -> str:
        """Pass while at least one candidate passes every gate; fail when all are rejected."""
        return "pass" if result.accepted else "fail"

    def draw(self, result: GateGrid) -> None:
        lang = plot_language()
        if lang != self._labels_lang:  # tick labels follow the figure language
            self.ax.set_xticklabels([label(GATE_SHORT_LABELS[code]) for code in result.gate_codes], fontsize=8)
            self._labels_lang = lang
        self.cells.set_facecolor([_PASS_RGB if ok else _FAIL_RGB for row in result.passed for ok in row])
        passed = np.array(result.passed, dtype=bool)
        fail_rows, fail_cols = np.nonzero(~passed)
        self.fail_marks.set_offsets(np.column_stack([fail_cols, fail_rows]).astype(float).reshape(-1, 2))
        firsts = [(j, i) for i, j in enumerate(result.first_failure) if j is not None]
        self.first_marks.set_offsets(np.array(firsts, dtype=float).reshape(-1, 2))
        # the verdict is the row label: a word and its colour (cheaper to draw than extra texts)
        self.ax.set_yticklabels([f"{r.name} {label(_ROW_VERDICT[r.accepted])}" for r in result.reports])
        for tick, report in zip(self.ax.get_yticklabels(), result.reports, strict=True):
            tick.set_color(_ACCEPTED_RGB if report.accepted else _REJECTED_RGB)
        self.legend.set_text(label(_LEGEND))
        env = result.environment
        title = (
            f"{env.memory_per_device_gib:g} GiB · {label(OPTION_TEXTS[env.mode])} · "
            f"{label(OPTION_TEXTS[env.model_kind])} · {label(OPTION_TEXTS[env.link_scope])}"
        )
        if env.context_len is not None or env.max_context_per_device is not None:
            # a second line: choosing a context alone changed neither a cell nor the headline (review 22)
            title += "\n" + tr("widgets.gates.title_context", lang=lang, **_context_texts(env, lang))
        self.title.set_text(title)

    def describe(self, result: GateGrid) -> str:
        names = Text(zh="、", en=", ").render().join(result.accepted) or tr("widgets.gates.none_accepted")
        summary = tr(
            "widgets.gates.summary",
            count=len(result.accepted),
            total=len(result.reports),
            gates=len(result.gate_codes),
            names=names,
        )
        cell = "padding:1px 6px;border-bottom:1px solid #ddd;vertical-align:top;text-align:left"
        # the name and verdict columns stay on one line: the narrow columns broke "ZeRO-3" and "通过，进入实测" mid-word
        short = cell + ";white-space:nowrap"
        rows = [
            f'<tr><th style="{short}">{html.escape(tr("widgets.gates.col_candidate"))}</th>'
            f'<th style="{short}">{html.escape(tr("widgets.gates.col_verdict"))}</th>'
            f'<th style="{cell}">{html.escape(tr("widgets.gates.col_reasons"))}</th></tr>'
        ]
        for report in result.reports:
            verdict = tr("widgets.gates.accepted" if report.accepted else "widgets.gates.rejected")
            reasons = "<br>".join(
                (
                    f"<b>[{html.escape(r.code)}] {_html_message(r.message)}</b>"
                    if k == 0
                    else f"[{html.escape(r.code)}] {_html_message(r.message)}"
                )
                for k, r in enumerate(report.reasons)
            )
            rows.append(
                f'<tr><td style="{short}">{html.escape(report.name)}</td>'
                f'<td style="{short}">{html.escape(verdict)}</td>'
                f'<td style="{cell}">{reasons or "—"}</td></tr>'
            )
        env = result.environment
        if (env.context_len is None) != (env.max_context_per_device is None):
            missing = self.controls["context_len" if env.context_len is None else "max_context_per_device"]
            summary += " " + tr("widgets.gates.half_context", missing=str(missing.description))
        note = html.escape(tr("widgets.gates.no_score"))
        return (
            f"<b>{html.escape(summary)}</b>"
            f'<table style="border-collapse:collapse;font-size:90%;margin:4px 0">{"".join(rows)}</table>'
            f"<i>{note}</i>"
        )


learner_functions(globals())
