"""Lesson 9 widget: the decision workbench — choose model, cluster and workload, see the funnel and the survivors.

Controls pick a preset model and cluster, the number of nodes, the workload
(mode, which weights train — all of them or LoRA adapters of one rank —, global batch, sequence length) and
the assumptions of the estimate
(achievable fraction of peak, overlap), plus three what-if toggles: a slower
link between nodes, a longer context (the sequence length control) and "make
the model MoE" (:meth:`coursekit.planner.ModelSpec.as_moe`). Each change runs
:func:`coursekit.planner.plan` and shows

* a funnel chart: how many candidates each gate of
  :data:`coursekit.planner.PLAN_GATES` removed first, in gate order;
* the fastest accepted candidates as stacked bars — compute, exposed
  communication, pipeline bubble — labelled as estimates;
* a table of those candidates with their memory and step time, and the
  assumptions the estimate rests on.

>>> w = WorkbenchWidget()
>>> w.status, w.result.accepted_count > 0
('ok', True)
>>> with w.hold_updates():
...     w.controls["model"].value = "llama3-8b"
...     w.controls["cluster"].value = "pcie-24g-8"
...     w.controls["nodes"].value = 1
>>> w.result.cluster.world_size
8

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import html
import weakref
from collections import OrderedDict
from dataclasses import replace
from typing import Any, ClassVar

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from .._validate import learner_functions
from ..i18n import Text, get_language, register, tr
from ..planner import DEFAULT_OUTPUT_TOKENS, PLAN_GATES, PlanCandidate, PlanResult, WorkloadSpec, what_if
from ..planner.estimate import lora_adapters
from ..plotting import cache_drawing, label
from ..presets import CLUSTERS, MODELS, device_word
from ..serving import SERVING_GATES, ServingPlanResult, plan_serving
from . import (
    LessonWidget,
    checkbox,
    dropdown,
    label_control,
    node_label,
    node_note_html,
    significant_unchecked,
    stepper,
)
from .serving import log_axes, place_ylabel, tradeoff_curve

__all__ = [
    "BATCH_OPTIONS",
    "LINK_SLOWDOWN_OPTIONS",
    "LORA_OPTIONS",
    "NODE_OPTIONS",
    "SEQ_OPTIONS",
    "SERVING_DEFAULT_CONCURRENCY",
    "SERVING_DEFAULT_PROMPT_TOKENS",
    "SERVING_OUTPUT_TOKENS",
    "SITE_PRESETS",
    "WIDGET_MODELS",
    "WorkbenchWidget",
    "breakdown_chart",
    "funnel_chart",
    "what_if",
]

#: Models offered by the widget (a subset of :data:`coursekit.presets.MODELS`).
WIDGET_MODELS: tuple[str, ...] = ("gpt2-small", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b", "gpt3-175b")
#: Node counts offered.
NODE_OPTIONS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
#: Global batch sizes offered (sequences).
BATCH_OPTIONS: tuple[int, ...] = (8, 32, 64, 128, 256, 512, 1024, 2048)  # 256: lesson 9 section 5's long-context case
#: Sequence lengths offered (tokens): the "longer context" what-if.
SEQ_OPTIONS: tuple[int, ...] = (1024, 2048, 4096, 8192, 32768, 131072)
#: LoRA ranks offered beside "every weight trains" (``WorkloadSpec(lora_rank=r)``): 32 is NeMo 24.07's fine-tuning
#: rows (:data:`coursekit.published_runs.NEMO_2407_LORA_RUNS`) and Megatron-Bridge's default, 16 its documentation's
#: example; the others are the usual powers of two around them.
LORA_OPTIONS: tuple[int, ...] = (8, 16, 32, 64, 128)
#: Divisors of the inter-node bandwidth: the "slower link between nodes" what-if.
LINK_SLOWDOWN_OPTIONS: tuple[int, ...] = (1, 2, 4, 5, 8, 16)  # 5: exercise 9.4's case (lesson 9 shows ÷ 8)
#: Serving mode reads the batch control as concurrent requests and the sequence control as prompt tokens; switching
#: to serving sets these defaults (a training batch of 1024 × 8192 tokens is no serving load), and every request
#: generates SERVING_OUTPUT_TOKENS tokens.
SERVING_DEFAULT_CONCURRENCY: int = 64
SERVING_DEFAULT_PROMPT_TOKENS: int = 2048
#: Controls the serving estimate does not read (it assumes no achievable fraction and no overlap, and serves the
#: weights as they are), greyed out in serving mode.
SERVING_UNUSED_CONTROLS: tuple[str, ...] = ("lora", "mfu", "overlap")
#: The controls shown side by side, in pairs (the second goes under the first where the two do not fit). The
#: achievable fraction and the overlap stay alone: at half the width their English options ("from matmul shapes",
#: "per-dimension defaults") were cut.
CONTROL_PAIRS: tuple[tuple[str, str], ...] = (("global_batch", "seq_len"), ("link_slowdown", "moe"))
#: Width of a paired control: two fit the 732 px output area of a 1280 px laptop at 110 % with the file browser open.
PAIR_CONTROL_WIDTH: str = "26em"
SERVING_OUTPUT_TOKENS: int = DEFAULT_OUTPUT_TOKENS
#: Room of the figure above its axes (the titles) and below them (tick labels, axis labels, legends), in inches: the
#: title's is what the 3.6 in figure of review 23 gave it (8 % of its height), the legends' a little less than its
#: 23.5 % (0.85 in), which left 0.13 in blank under the legends.
_TITLE_ROOM_IN: float = 0.288
_LEGEND_ROOM_IN: float = 0.72
#: How far below its axes a chart's legend starts, in font sizes: clear of the tick labels and the axis label.
_LEGEND_DROP: float = 4.0
#: Accepted candidates drawn and listed.
TOP_SHOWN: int = 5
#: Plans the widget keeps for control values seen recently (each holds its searched table and the search's
#: estimate of its accepted candidates: about 2.7 MB in the default state, 11-22 MB for a mixture of experts).
PLAN_CACHE_SIZE: int = 16
#: Verdicts the widget keeps (the message HTML of a plan in one language): a learner going back to earlier control
#: values, or switching the language back, gets the verdict with its plan instead of its tie explanations worked out
#: again. Kept by the plan itself and the language; a plan no longer held anywhere drops out.
VERDICT_CACHE_SIZE: int = 2 * PLAN_CACHE_SIZE
#: The controls the plan depends on: all of them.
_PLAN_INPUTS: tuple[str, ...] = (
    "model",
    "cluster",
    "nodes",
    "mode",
    "lora",
    "global_batch",
    "seq_len",
    "mfu",
    "overlap",
    "link_slowdown",
    "moe",
)

#: The cases lesson 9 works through, as changes from the widget's start (Llama-3 70B, 16 H100 nodes, global
#: batch 1024 × 8192 tokens): the course website offers these, each computed by the widget at build time, where
#: no kernel can run it (the controls span far too many combinations to precompute them all).
SITE_PRESETS: tuple[tuple[Text, dict[str, Any]], ...] = (
    (Text(zh="第 2 节：Llama-3 70B，16 个 H100 节点", en="Section 2: Llama-3 70B on 16 H100 nodes"), {}),
    (
        Text(zh="第 4 节：Llama-3 8B，8 × 24 GiB 的一台机器", en="Section 4: Llama-3 8B on one box of 8 × 24 GiB"),
        {"model": "llama3-8b", "cluster": "pcie-24g-8", "nodes": 1, "global_batch": 64, "seq_len": 2048},
    ),
    (Text(zh="第 5 节：跨节点带宽 ÷ 8", en="Section 5: inter-node bandwidth ÷ 8"), {"link_slowdown": 8}),
    (
        Text(zh="第 5 节：序列 32768，全局批大小 256", en="Section 5: sequence 32768, global batch 256"),
        {"global_batch": 256, "seq_len": 32768},
    ),
    (Text(zh="第 5 节：MoE 8 专家 top-2", en="Section 5: MoE 8 experts top-2"), {"moe": True}),
    (
        Text(
            zh="第 8 节：8 个节点上的 8K 序列，全局批大小 128",
            en="Section 8: 8K tokens on 8 nodes, global batch 128",
        ),
        {"nodes": 8, "global_batch": 128},
    ),
    (
        Text(zh="第 8 节：低秩适配 (LoRA) 秩 32，1 个 H100 节点", en="Section 8: LoRA rank 32 on 1 H100 node"),
        {"nodes": 1, "lora": 32},
    ),
    (Text(zh="服务：16 个节点，64 个并发请求", en="Serving: 16 nodes, 64 concurrent requests"), {"mode": "serving"}),
)

_SEGMENTS: tuple[tuple[str, Text, str], ...] = (
    ("compute", Text(zh="计算", en="compute"), "#4c72b0"),
    ("communication", Text(zh="暴露的通信", en="exposed communication"), "#dd8452"),
    ("bubble", Text(zh="流水线气泡", en="pipeline bubble"), "#8c8c8c"),
    ("host", Text(zh="等待主机发射内核", en="waiting for the host"), "#55a868"),
)

register(
    {
        "widgets.workbench.model": {"zh": "模型", "en": "model"},
        "widgets.workbench.cluster": {"zh": "节点类型", "en": "node type"},
        "widgets.workbench.nodes": {"zh": "节点数", "en": "nodes"},
        "widgets.workbench.mode": {"zh": "工作负载", "en": "workload"},
        "widgets.workbench.lora": {"zh": "训练哪些权重", "en": "weights trained"},
        "widgets.workbench.lora_note": {
            "zh": "低秩适配 (LoRA)，秩 {rank}：全部权重冻结，没有它们的梯度、优化器状态和权重梯度矩阵乘；"
            "只训练每层 linear_qkv、linear_proj、linear_fc1 和 linear_fc2 旁的适配器，每个 token 经过 {adapters:,.0f} "
            "个适配器参数。",
            "en": "LoRA, rank {rank}: every weight frozen, with no gradients, optimizer states or weight-gradient "
            "matmuls; only the adapters beside each layer's linear_qkv, linear_proj, linear_fc1 and linear_fc2 train, "
            "each token passing through {adapters:,.0f@adapter parameter}.",
        },
        "widgets.workbench.lora_serving": {
            "zh": "低秩适配 (LoRA)，秩 {rank}：只用于训练。服务的估算按冻结的模型计（适配器并入权重），"
            "请把“训练哪些权重”选回“全部”，或把工作负载改回训练。",
            "en": "LoRA, rank {rank}: applies to training only. Serving is estimated for the frozen model (adapters "
            "merged into the weights): set “weights trained” back to “all”, or the workload back to training.",
        },
        "widgets.workbench.global_batch": {"zh": "全局批大小（序列数）", "en": "global batch (sequences)"},
        "widgets.workbench.seq_len": {"zh": "序列长度 (token)", "en": "sequence length (tokens)"},
        "widgets.workbench.mfu": {"zh": "可达峰值比例", "en": "fraction of peak"},
        "widgets.workbench.overlap": {"zh": "通信重叠比例", "en": "comm. overlap"},
        "widgets.workbench.link_slowdown": {"zh": "跨节点带宽 ÷", "en": "inter-node bandwidth ÷"},
        "widgets.workbench.moe": {
            "zh": "假如它是 MoE（8 专家，top-2）",
            "en": "what if it were MoE (8 experts, top-2)",
        },
        "widgets.workbench.summary": {
            "zh": "{model} 在 {world} 个 rank 上：搜索 {size} 个组合，{accepted} 个通过全部门槛。"
            "下表是估算最快的 {top} 个——估算，不是测量。",
            "en": "{model} on {world:@rank}: {size:@composition} searched, {accepted} pass every gate. "
            "The table shows the {top} fastest (an estimate, not a measurement).",
        },
        "widgets.workbench.none": {
            "zh": "{model} 在 {world} 个 rank 上：搜索 {size} 个组合，没有一个通过全部门槛，所以没有候选表。",
            "en": "{model} on {world:@rank}: {size:@composition} searched, none passes every gate, so there is no "
            "table of candidates.",
        },
        "widgets.workbench.none_why": {
            "zh": "最后剩下的 {count} 个组合都没通过门槛 {code}（{gate}）；漏斗显示每道门槛排除了多少。",
            "en": "The last {count:@composition} left all fail the gate {code} ({gate}); the funnel shows how many "
            "each gate removed.",
        },
        "widgets.workbench.none_settings": {
            "zh": "本次搜索：{nodes} 个 {cluster} 节点（每个设备 {memory:g} GiB），全局批 {batch} 条序列，"
            "每条 {seq} 个 token。{assumptions}这些假设只给通过门槛的组合排序，没有组合通过时，改动它们不会改变结论。",
            "en": "Searched: {nodes:@node} of {cluster} ({memory:g} GiB per device), a global batch of "
            "{batch:@sequence} of {seq:@token} each. {assumptions} These assumptions only order the compositions that "
            "pass the gates; while none passes, changing them changes no verdict.",
        },
        "widgets.workbench.none_memory": {
            "zh": "每个组合每 rank 需要的显存都超过一张设备：增加节点数（ZeRO、TP、PP 能分得更细），"
            "或换显存更大的节点类型。",
            "en": "Every composition needs more memory per rank than one device holds: add nodes (ZeRO, TP and PP "
            "can then split finer) or pick a node type with more memory.",
        },
        "widgets.workbench.col_degrees": {"zh": "组合", "en": "composition"},
        "widgets.workbench.col_rank": {
            "zh": "# （并列组：估算相差 < {uncertainty:.0%}，分不出先后）",
            "en": "# (tie group: estimates within {uncertainty:.0%}, not ordered)",
        },
        "widgets.workbench.ties_why": {
            "zh": "并列组 1 为何分不出先后：",
            "en": "Why tie group 1 is tied:",
        },
        "widgets.workbench.col_memory": {"zh": "每 rank 显存 (GiB)", "en": "memory per rank (GiB)"},
        "widgets.workbench.col_step": {"zh": "估算步时 (s)", "en": "estimated step (s)"},
        "widgets.workbench.col_parts": {
            "zh": "计算 / 通信 / 气泡 / 等主机 (s)",
            "en": "compute / comm. / bubble / host (s)",
        },
        "widgets.workbench.concurrency": {"zh": "并发请求数", "en": "concurrent requests"},
        "widgets.workbench.prompt_tokens": {"zh": "提示 token 数", "en": "prompt tokens"},
        "widgets.workbench.serving_summary": {
            "zh": "{model} 在 {world} 个 GPU 上服务：搜索 {size} 个“副本数 × TP × PP”布局，{accepted} 个通过全部门槛。",
            "en": "{model} serving on {world:@GPU}: {size:@layout} (replicas × TP × PP) searched, "
            "{accepted} pass every gate.",
        },
        # two sentences in a row: Chinese sets none of the space English puts between them
        "widgets.workbench.two_sentences": {"zh": "{first}{second}", "en": "{first} {second}"},
        "widgets.workbench.serving_terms": {
            "zh": "并发请求 = 整个集群同时在处理的请求（{concurrency} 个），每个副本服务自己那一份；"
            "每个请求 {prompt} 个提示 token、生成 {output} 个 token。"
            "TTFT = 首 token 时间（预填充），TPOT = 每输出 token 时间（一个解码步）。"
            "所有时间都是下界估计（屋顶线、无排队）。",
            "en": "Concurrent requests = requests in flight on the whole cluster ({concurrency}); each replica serves "
            "its own share. Each request has {prompt:@prompt token} and generates {output}. TTFT = time to first token "
            "(prefill); TPOT = time per output token (one decode step). Every time is a lower-bound estimate "
            "(roofline, no queueing).",
        },
        # Built from SERVING_UNUSED_CONTROLS' own labels, so it names exactly the controls greyed out (learner
        # review 27 saw three greyed and a sentence naming two).
        "widgets.workbench.serving_unused": {
            "zh": "服务估算不读取这几个控件，服务模式下它们变灰：{controls}。",
            "en": "The serving estimate does not read these controls, greyed out in serving mode: {controls}.",
        },
        "widgets.workbench.serving_summary_cpu": {
            "zh": "{model} 在 {world} 台 CPU 服务器上服务（只作对照，不是 GPU）：搜索 {size} 个“副本数 × TP × PP”布局，"
            "{accepted} 个通过全部门槛。",
            "en": "{model} serving on {world:@CPU server} (for contrast only, not GPUs): {size:@layout} (replicas × TP "
            "× PP) searched, {accepted} pass every gate.",
        },
        "widgets.workbench.serving_link": {
            "zh": "跨节点带宽 {inter:.1f} GB/s/{device}（单向）：只有 TP × PP 跨节点的布局，"
            "其流水线各段之间的传输才走它。",
            "en": "Inter-node {inter:.1f} GB/s per {device} (one way): only a layout whose TP × PP spans nodes sends "
            "its pipeline hops over it.",
        },
        "widgets.workbench.axis_tps_device": {"zh": "每 {device} token/秒", "en": "tokens/s per {device}"},
        "widgets.workbench.long_step": {
            "zh": "估算最快的一步要 {seconds} s，约 {hours} 小时（{days} 天）。",
            "en": "The fastest estimated step takes {seconds} s, about {hours} hours ({days} days).",
        },
        "widgets.workbench.long_ttft": {
            "zh": "最佳布局的 TTFT 下界 {ms} ms，约 {minutes} 分钟。",
            "en": "The best layout's TTFT bound is {ms} ms, about {minutes} minutes.",
        },
        "widgets.workbench.col_layout": {"zh": "布局", "en": "layout"},
        "widgets.workbench.col_ttft": {"zh": "TTFT 下界 (ms)", "en": "TTFT bound (ms)"},
        "widgets.workbench.col_tpot": {"zh": "TPOT 下界 (ms)", "en": "TPOT bound (ms)"},
        "widgets.workbench.col_tps_gpu": {"zh": "每 {device} token/秒（上界）", "en": "tokens/s per {device} (bound)"},
        "widgets.workbench.tradeoff": {
            "zh": "最佳布局 {layout} 的批次-时延权衡：每副本批 {batches} 时，TPOT {tpots} ms，"
            "每 {device} {rates} token/秒{misfit}。",
            "en": "Batch against latency for the best layout {layout}: at {batches} requests per replica, TPOT {tpots} "
            "ms and {rates} tokens/s per {device}{misfit}.",
        },
        "widgets.workbench.tradeoff_closest": {
            "zh": "最接近放下的布局 {layout}（它放不下，见上）若放得下，批次-时延权衡是：每副本批 {batches} 时，"
            "TPOT {tpots} ms，每 {device} {rates} token/秒{misfit}。",
            "en": "Were the closest layout {layout} to fit (it does not, see above), batch against latency would be: "
            "at {batches} requests per replica, TPOT {tpots} ms and {rates} tokens/s per {device}{misfit}.",
        },
        "widgets.workbench.tradeoff_misfit": {
            "zh": "（批 {batch} 起 KV 缓存放不下）",
            "en": " (from batch {batch} the KV cache does not fit)",
        },
        "widgets.workbench.assumptions": {
            "zh": "假设：峰值 {peak:.0f} TFLOP/s，计算效率 {mfu}，通信重叠 {overlap}，"
            "跨节点 {inter:.1f} GB/s/{device}（单向）。",
            "en": "Assumptions: peak {peak:.0f} TFLOP/s, compute efficiency {mfu}, overlap {overlap}, inter-node "
            "{inter:.1f} GB/s per {device} (one way).",
        },
    }
)


def funnel_chart(ax: Axes, result: PlanResult) -> None:
    """Horizontal bars: candidates each gate removed first (red) and what remains after it (grey), in gate order."""
    ax.clear()
    _Funnel(ax).update(result)


def breakdown_chart(ax: Axes, candidates: list[PlanCandidate]) -> None:
    """Stacked horizontal bars of the estimated step: compute, exposed communication, bubble, waiting for the host
    (seconds)."""
    ax.clear()
    chart = _Breakdown(ax, len(candidates))
    chart.update(candidates)


def _segments(cand: PlanCandidate) -> tuple[float, float, float, float]:
    """The compute, exposed communication, bubble and host-wait seconds of an accepted candidate (order of
    ``_SEGMENTS``); they add up to its estimated step."""
    t = cand.timeline
    assert t is not None
    return (t.compute_s, t.exposed_communication_s, t.bubble_s, t.host_wait_s)


#: The funnel's x axis reaches this many times the searched space, so the widest bar ends two thirds of the way
#: across and the numbers at the right edge never sit on a bar.
FUNNEL_X_ROOM: float = 1.5


class _Funnel:
    """The funnel chart's artists on ``ax``: one bar pair per gate of :data:`PLAN_GATES`, updated in place."""

    def __init__(self, ax: Axes) -> None:
        self.ax = ax
        codes = [gate.code for gate in PLAN_GATES]
        y = list(range(len(codes)))
        zeros = [0.0] * len(codes)
        self.remaining = list(ax.barh(y, zeros, color="#c7c7c7", label=label(Text(zh="剩余", en="remaining"))))
        self.removed = list(
            ax.barh(y, zeros, color="#d62728", label=label(Text(zh="被这道门槛排除", en="removed by this gate")))
        )
        # 6.5 pt: fifteen gates (the offload gate made it fifteen) in the 2.7 in figure, labels apart in either font
        ax.set_yticks(y, labels=codes, fontsize=6.5)
        ax.invert_yaxis()
        ax.set_xlabel(label(Text(zh="候选数", en="candidates")), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(label(Text(zh="漏斗（按门槛顺序）", en="Funnel (gate order)")), fontsize=9)
        # below the axes, clear of every bar (the numbers sit at the right edge)
        self.legend = _legend_below(ax, ncols=2)
        # each row's numbers, at the right edge of the axes: "-removed -> remaining"
        where = blended_transform_factory(ax.transAxes, ax.transData)
        self.numbers = [
            ax.text(0.99, row, "", transform=where, ha="right", va="center", fontsize=6.5,
                    bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 0.5})
            for row in y
        ]  # fmt: skip

    def update(self, result: PlanResult) -> None:
        for step, remaining, removed in zip(result.funnel, self.remaining, self.removed, strict=True):
            remaining.set_width(step.remaining)
            removed.set_x(step.remaining)
            removed.set_width(step.removed)
        for step, text in zip(result.funnel, self.numbers, strict=True):
            text.set_text(funnel_numbers(step.removed, step.remaining))
        # the right third stays clear of bars: the row numbers sit there, not on top of a bar
        self.ax.set_xlim(0, max(result.space_size, 1) * FUNNEL_X_ROOM)


def funnel_numbers(removed: int, remaining: int) -> str:
    """The numbers a funnel row shows: how many candidates the gate removed first, and how many are left (a gate that
    removed none shows 0, not -0).

    >>> funnel_numbers(1200, 34), funnel_numbers(0, 34)
    ('-1,200 → 34', '0 → 34')
    """
    return f"{-removed:,} → {remaining:,}"


class _Breakdown:
    """The breakdown chart's artists on ``ax``: ``rows`` stacked bars, updated in place (unused rows stay empty)."""

    def __init__(self, ax: Axes, rows: int) -> None:
        self.ax = ax
        y = list(range(rows))
        self.bars = [
            list(ax.barh(y, [0.0] * rows, color=colour, label=label(text))) for _kind, text, colour in _SEGMENTS
        ]
        ax.invert_yaxis()
        ax.set_xlabel(label(Text(zh="估算步时 (s)", en="estimated step (s)")), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(label(Text(zh="最快的候选（估算）", en="Fastest accepted (estimate)")), fontsize=9)
        handles = [Patch(facecolor=colour, label=label(text)) for _kind, text, colour in _SEGMENTS]
        # below the axes, where it hides no bar's end; flush right: it may be wider than the axes
        self.legend = _legend_below(ax, handles=handles, ncols=2, align="right")
        self.shown: int | None = None

    def update(self, candidates: list[PlanCandidate]) -> None:
        rows = len(self.bars[0])
        if len(candidates) > rows:
            raise ValueError(f"{len(candidates)} candidates for a chart of {rows} rows")
        totals = []
        for row in range(rows):
            left = 0.0
            widths = _segments(candidates[row]) if row < len(candidates) else (0.0, 0.0, 0.0, 0.0)
            for bars, width in zip(self.bars, widths, strict=True):
                bars[row].set_x(left)
                bars[row].set_width(width)
                left += width
            totals.append(left)
        if len(candidates) != self.shown:  # tick labels only for the rows in use
            self.ax.set_yticks(range(len(candidates)), labels=[f"#{i + 1}" for i in range(len(candidates))], fontsize=7)
            self.shown = len(candidates)
        self.legend.set_visible(bool(candidates))
        self.ax.set_xlim(0.0, max(totals) * 1.05 if candidates and max(totals) > 0 else 1.0)


class _ServingFunnel:
    """The serving funnel on ``ax``: one bar pair per gate of :data:`coursekit.serving.SERVING_GATES`."""

    def __init__(self, ax: Axes) -> None:
        self.ax = ax
        y = list(range(len(SERVING_GATES)))
        zeros = [0.0] * len(SERVING_GATES)
        self.remaining = list(ax.barh(y, zeros, color="#c7c7c7", label=label(Text(zh="剩余", en="remaining"))))
        self.removed = list(
            ax.barh(y, zeros, color="#d62728", label=label(Text(zh="被这道门槛排除", en="removed by this gate")))
        )
        ax.set_yticks(y, labels=list(SERVING_GATES), fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(label(Text(zh="布局数", en="layouts")), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(label(Text(zh="服务漏斗（按门槛顺序）", en="Serving funnel (gate order)")), fontsize=9)
        self.legend = _legend_below(ax, ncols=2)

    def update(self, result: ServingPlanResult) -> None:
        left = len(result.candidates)
        for (_gate, removed_count), remaining, removed in zip(result.funnel, self.remaining, self.removed, strict=True):
            left -= removed_count
            remaining.set_width(left)
            removed.set_x(left)
            removed.set_width(removed_count)
        self.ax.set_xlim(0, max(len(result.candidates), 1))


class _ServingCurve:
    """The latency–throughput curve of the best layout as its batch grows (fitting batches blue, others grey)."""

    def __init__(self, ax: Axes) -> None:
        self.ax = ax
        (self.fit,) = ax.plot([], [], marker="o", markersize=3, color="#4c72b0")
        (self.misfit,) = ax.plot(
            [], [], marker="x", linestyle="none", color="#8c8c8c", label=label(Text(zh="放不下", en="does not fit"))
        )
        log_axes(ax)
        ax.set_xlim(1.0, 100.0)  # log axes need positive limits before the first curve
        ax.set_ylim(1.0, 1000.0)
        ax.tick_params(labelsize=7)
        ax.set_xlabel(_catalog_label("widgets.serving.axis_tpot"), fontsize=8)
        ax.set_ylabel(_catalog_label("widgets.serving.axis_tps"), fontsize=8)
        self.device = "GPU"  # the device the y label counts per (CPU on the cpu-box contrast)
        place_ylabel(ax)  # the tick labels' width follows the data
        ax.set_title(label(Text(zh="最佳布局：批增大时", en="Best layout as the batch grows")), fontsize=9)
        self.legend = _legend_below(ax, handles=[self.misfit], ncols=1)

    def update(self, curve: tuple[tuple[int, float, float, bool], ...], device: str = "GPU") -> None:
        if device != self.device:
            key = "widgets.workbench.axis_tps_device"
            self.ax.set_ylabel(
                label(Text(zh=tr(key, lang="zh", device=device), en=tr(key, lang="en", device=device))), fontsize=8
            )
            self.device = device
        fit = [(t * 1e3, r) for _, t, r, ok in curve if ok]
        misfit = [(t * 1e3, r) for _, t, r, ok in curve if not ok]
        self.fit.set_data([p[0] for p in fit], [p[1] for p in fit])
        self.misfit.set_data([p[0] for p in misfit], [p[1] for p in misfit])
        if curve:
            xs = [t * 1e3 for _, t, _, _ in curve]
            ys = [r for _, _, r, _ in curve]
            self.ax.set_xlim(min(xs) * 0.8, max(xs) * 1.25)
            self.ax.set_ylim(min(ys) * 0.7, max(ys) * 1.4)


def _legend_below(ax: Axes, ncols: int, handles: list[Any] | None = None, align: str = "center") -> Legend:
    """A frameless legend under ``ax`` (centred, or flush ``"right"``), below its tick labels and axis label, where
    it covers no data."""
    kwargs: dict[str, Any] = {
        "handles": handles if handles is not None else ax.get_legend_handles_labels()[0],
        "loc": "upper right" if align == "right" else "upper center",
        "bbox_to_anchor": (1.0 if align == "right" else 0.5, 0.0),
    }
    return ax.legend(
        **kwargs,
        fontsize=7,
        borderaxespad=_LEGEND_DROP,
        ncols=ncols,
        frameon=False,
        handlelength=1.2,
        columnspacing=1.2,
    )


def _catalog_label(key: str) -> str:
    """A catalog entry in the figure's language (the serving widget's axis labels)."""
    return label(Text(zh=tr(key, lang="zh"), en=tr(key, lang="en")))


def serving_unused_sentence() -> str:
    """The sentence naming the controls serving mode greys out (:data:`SERVING_UNUSED_CONTROLS`), each by its label.

    Each label is the one the control shows (its catalog entry), quoted, in the learner's language.
    """
    quote = Text(zh="“{}”", en='"{}"').render()
    names = [quote.format(tr(f"widgets.workbench.{key}")) for key in SERVING_UNUSED_CONTROLS]
    return tr("widgets.workbench.serving_unused", controls=Text(zh="、", en=", ").render().join(names))


def _best_serving(result: ServingPlanResult) -> Any:
    """The best accepted layout, else the layout closest to fitting (None when nothing was estimated)."""
    if result.accepted:
        return result.accepted[0]
    return result.closest_misfit


class WorkbenchWidget(LessonWidget[Any]):
    """Model, cluster and workload controls plus what-ifs -> funnel chart, breakdown bars and the top table.

    Controls (keyword names of :meth:`compute`): ``model``, ``cluster``, ``nodes``, ``mode``, ``lora``,
    ``global_batch``, ``seq_len``, ``mfu``, ``overlap``, ``link_slowdown`` and ``moe``.
    Defaults: Llama-3 70B on 16 H100 nodes, global batch 1024, 8192 tokens, every weight trained.

    ``lora`` is ``"full"`` (every weight trains: pre-training, full fine-tuning) or a rank of
    :data:`LORA_OPTIONS`, planned as ``WorkloadSpec(lora_rank=rank)``; it is a training setting (serving with a
    rank is refused with a message, and switching to serving sets it to ``"full"``).

    Serving mode reads ``global_batch`` as concurrent requests and ``seq_len`` as prompt tokens (switching to
    it sets :data:`SERVING_DEFAULT_CONCURRENCY` and :data:`SERVING_DEFAULT_PROMPT_TOKENS`, and relabels the two
    controls), searches replicas × TP × PP with :func:`coursekit.serving.plan_serving` and draws the serving
    funnel and the best layout's latency–throughput curve.
    """

    #: 2.7 in tall, not 3.6: at 1280 x 720 and 110 % (534 px of notebook visible) the figure under the controls
    #: ended 161 px below the visible area; the funnel's 14 gate rows keep 12 px each (review 24).
    figure_size_in: ClassVar[tuple[float, float]] = (7.0, 2.7)
    main_control: ClassVar[str | None] = "nodes"
    grid_controls: ClassVar[bool] = True
    wide_controls: ClassVar[tuple[str, ...]] = ("lora",)
    presets: ClassVar[tuple[tuple[Text, dict[str, Any]], ...]] = SITE_PRESETS

    def __init__(self) -> None:
        controls = {
            "model": dropdown("widgets.workbench.model", list(WIDGET_MODELS), value="llama3-70b"),
            "cluster": dropdown(
                "widgets.workbench.cluster", [(node_label(name), name) for name in sorted(CLUSTERS)], value="h100-8"
            ),
            "nodes": stepper("widgets.workbench.nodes", list(NODE_OPTIONS), value=16),
            "mode": dropdown(
                "widgets.workbench.mode",
                [(Text(zh="训练", en="training"), "training"), (Text(zh="服务", en="serving"), "serving")],
                value="training",
            ),
            "lora": dropdown(
                "widgets.workbench.lora",
                [
                    (Text(zh="全部（预训练或全参数微调）", en="all (pre-training or full fine-tuning)"), "full"),
                    *(
                        (Text(zh=f"低秩适配 (LoRA)，秩 {r}", en=f"LoRA adapters only, rank {r}"), r)
                        for r in LORA_OPTIONS
                    ),
                ],
                value="full",
            ),
            "global_batch": dropdown("widgets.workbench.global_batch", list(BATCH_OPTIONS), value=1024),
            "seq_len": dropdown("widgets.workbench.seq_len", list(SEQ_OPTIONS), value=8192),
            "mfu": dropdown(
                "widgets.workbench.mfu",
                [(Text(zh="按矩阵乘形状估算", en="from matmul shapes"), "model"), 0.3, 0.4, 0.5, 0.6],
                value="model",
            ),
            "overlap": dropdown(
                "widgets.workbench.overlap",
                [(Text(zh="按维度的默认值", en="per-dimension defaults"), "default"), 0.0, 0.5, 1.0],
                value="default",
            ),
            "link_slowdown": dropdown("widgets.workbench.link_slowdown", list(LINK_SLOWDOWN_OPTIONS), value=1),
            "moe": checkbox("widgets.workbench.moe", value=False),
        }
        self._training_values: dict[str, Any] = {}
        # Registered before the base class's observer, so the defaults are in place when the plan runs.
        controls["mode"].observe(self._on_mode, names="value")
        controls["model"].observe(self._on_model, names="value")
        super().__init__(controls)
        # Eleven controls in one column were 350 px tall: at 1280 x 720 and 110 % (534 px of notebook visible) the
        # figure under them started 399 px below the first. Two pairs side by side saved two rows, but projected
        # (639 px output area) the pairs went one under the other; the grid (grid_controls) takes six rows.

    def _on_model(self, change: Any) -> None:
        """The what-if "make it MoE" applies to a dense model only: greyed out while the model is already MoE."""
        self.controls["moe"].disabled = change["new"] in MODELS and MODELS[change["new"]].is_moe

    def _on_mode(self, change: Any) -> None:
        """Swap the batch and sequence controls between training and serving meanings and defaults (and LoRA, a
        training setting, off while serving); the controls serving does not read (which weights train, achievable
        fraction, overlap) are greyed out while serving."""
        batch, seq, lora = self.controls["global_batch"], self.controls["seq_len"], self.controls["lora"]
        for key in SERVING_UNUSED_CONTROLS:
            self.controls[key].disabled = change["new"] == "serving"
        with self.hold_updates():
            if change["new"] == "serving":
                self._training_values = {"global_batch": batch.value, "seq_len": seq.value, "lora": lora.value}
                label_control(batch, "widgets.workbench.concurrency")
                label_control(seq, "widgets.workbench.prompt_tokens")
                batch.value = SERVING_DEFAULT_CONCURRENCY
                seq.value = SERVING_DEFAULT_PROMPT_TOKENS
                lora.value = "full"
            else:
                label_control(batch, "widgets.workbench.global_batch")
                label_control(seq, "widgets.workbench.seq_len")
                batch.value = self._training_values.get("global_batch", batch.value)
                seq.value = self._training_values.get("seq_len", seq.value)
                lora.value = self._training_values.get("lora", lora.value)

    def setup(self, fig: Figure) -> None:
        # Fixed margins instead of constrained layout: one draw per PNG instead of two.
        fig.set_layout_engine(None)
        # Room below the axes for the legends, and between them for the serving curve's y label; the room above
        # and below in inches, whatever the figure's height.
        height_in = fig.get_figheight()
        fig.subplots_adjust(
            left=0.135,
            right=0.975,
            top=1 - _TITLE_ROOM_IN / height_in,
            bottom=_LEGEND_ROOM_IN / height_in,
            wspace=0.3,
        )
        self.funnel_ax, self.breakdown_ax = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1.0]})
        # The artists are created once and updated in place (ax.clear() would rebuild every tick and legend).
        self._funnel = _Funnel(self.funnel_ax)
        self._breakdown = _Breakdown(self.breakdown_ax, TOP_SHOWN)
        # The legends and the gate axis never change: drawn from a bitmap after the first render.
        cache_drawing(self._funnel.legend)
        cache_drawing(self._breakdown.legend)
        cache_drawing(self.funnel_ax.yaxis, key=self.funnel_ax.yaxis.get_view_interval)
        self.serving_funnel_ax = fig.add_axes(self.funnel_ax.get_position())
        self.serving_curve_ax = fig.add_axes(self.breakdown_ax.get_position())
        self._serving_funnel = _ServingFunnel(self.serving_funnel_ax)
        self._serving_curve = _ServingCurve(self.serving_curve_ax)
        self._show_serving(False)
        self._plans: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._top: tuple[PlanResult, list[PlanCandidate]] | None = None
        self._kept_curve: tuple[ServingPlanResult, tuple[tuple[int, float, float, bool], ...]] | None = None
        # (id of the plan, language) -> (weak reference to that plan, verdict HTML): the reference tells a plan
        # from a later one that reuses a freed plan's id
        self._verdicts: OrderedDict[tuple[int, str], tuple[weakref.ref[Any], str]] = OrderedDict()

    def compute(self, **values: Any) -> Any:
        values = self.check_values(values)  # a direct call may pass what no control offers
        # Every control feeds the plan (mfu and overlap change the estimates and so the order); a learner
        # going back to earlier values gets the plan from the cache instead of a new search.
        key = tuple(values[name] for name in _PLAN_INPUTS)
        cached = self._plans.get(key)
        if cached is not None:
            self._plans.move_to_end(key)
            return cached
        lora_rank = None if values["lora"] == "full" else values["lora"]
        if values["mode"] == "serving":
            if lora_rank is not None:
                raise ValueError(tr("widgets.workbench.lora_serving", rank=lora_rank))
            result: Any = self._plan_serving(values)
            self._plans[key] = result
            return result
        workload = WorkloadSpec(
            global_batch=values["global_batch"],
            seq_len=values["seq_len"],
            mode=values["mode"],
            achievable_flops_fraction=None if values["mfu"] == "model" else values["mfu"],
            overlap_fraction=None if values["overlap"] == "default" else values["overlap"],
            lora_rank=lora_rank,
        )
        result = what_if(
            values["model"],
            values["cluster"],
            values["nodes"],
            workload,
            link_slowdown=values["link_slowdown"],
            moe=values["moe"],
        )
        self._plans[key] = result
        while len(self._plans) > PLAN_CACHE_SIZE:
            self._plans.popitem(last=False)
        return result

    def top(self, result: PlanResult) -> list[PlanCandidate]:
        """The :data:`TOP_SHOWN` fastest accepted candidates of ``result`` (computed once per result)."""
        if self._top is None or self._top[0] is not result:
            self._top = (result, result.accepted(TOP_SHOWN))
        return self._top[1]

    def _plan_serving(self, values: dict[str, Any]) -> ServingPlanResult:
        spec = MODELS[values["model"]]
        if values["moe"] and not spec.is_moe:
            spec = spec.as_moe(8, 2)
        node = CLUSTERS[values["cluster"]].with_nodes(values["nodes"])
        if values["link_slowdown"] != 1:
            node = replace(
                node, inter_node_bandwidth_bytes_per_s=node.inter_node_bandwidth_bytes_per_s / values["link_slowdown"]
            )
        # The planner's serving workload, turned into the serving search's: the same conversion plan() uses.
        workload = WorkloadSpec(
            global_batch=values["global_batch"],
            seq_len=values["seq_len"],
            mode="serving",
            output_tokens=SERVING_OUTPUT_TOKENS,
        ).serving_workload(spec)
        return plan_serving(spec, node, workload)

    def _show_serving(self, serving: bool) -> None:
        for ax in (self.funnel_ax, self.breakdown_ax):
            ax.set_visible(not serving)
        for ax in (self.serving_funnel_ax, self.serving_curve_ax):
            ax.set_visible(serving)

    def _curve(self, result: ServingPlanResult) -> tuple[tuple[int, float, float, bool], ...]:
        """The best layout's batch-latency curve of ``result`` (worked out once per result: the chart and the verdict
        both show it)."""
        if self._kept_curve is not None and self._kept_curve[0] is result:
            return self._kept_curve[1]
        best = _best_serving(result)
        curve: tuple[tuple[int, float, float, bool], ...] = ()
        if best is not None:
            w = result.workload
            curve = tradeoff_curve(
                result.model,
                result.cluster,
                tp=best.tp,
                pp=best.pp,
                prompt_tokens=w.prompt_tokens,
                output_tokens=w.output_tokens,
            )
        self._kept_curve = (result, curve)
        return curve

    def draw(self, result: Any) -> None:
        if isinstance(result, ServingPlanResult):
            self._show_serving(True)
            self._serving_funnel.update(result)
            self._serving_curve.update(self._curve(result), device_word(result.cluster))
            return
        self._show_serving(False)
        self._funnel.update(result)
        self._breakdown.update(self.top(result))

    def _describe_serving(self, result: ServingPlanResult) -> str:
        w = result.workload
        device = device_word(result.cluster)
        head = tr(
            "widgets.workbench.serving_summary_cpu" if device == "CPU" else "widgets.workbench.serving_summary",
            model=result.model.name,
            world=result.cluster.world_size,
            size=len(result.candidates),
            accepted=len(result.accepted),
        )
        terms = tr(
            "widgets.workbench.serving_terms", concurrency=w.concurrency, prompt=w.prompt_tokens, output=w.output_tokens
        )
        terms = tr("widgets.workbench.two_sentences", first=terms, second=serving_unused_sentence())
        # the inter-node bandwidth (the "inter-node bandwidth ÷" control): stated, so that moving the control always
        # shows, even when no layout shown crosses nodes and nothing else changes
        link = tr(
            "widgets.workbench.serving_link", inter=result.cluster.inter_node_bandwidth_bytes_per_s / 1e9, device=device
        )
        parts = [f"<b>{html.escape(head)}</b>", f"{html.escape(terms)} {html.escape(link)}"]
        if not result.accepted:
            parts.append(html.escape(result.report(top=1).split("\n\n")[2]))
        else:
            cell = "padding:1px 6px;border-bottom:1px solid #ddd;text-align:left"
            keys = (
                "widgets.workbench.col_layout",
                "widgets.workbench.col_memory",
                "widgets.workbench.col_ttft",
                "widgets.workbench.col_tpot",
                "widgets.workbench.col_tps_gpu",
            )
            rows = ["<tr>" + "".join(f'<th style="{cell}">{html.escape(tr(k, device=device))}</th>' for k in keys)]
            rows[0] += "</tr>"
            for c in result.accepted[:TOP_SHOWN]:
                e, lg = c.estimate, c.ledger
                assert e is not None and lg is not None
                rows.append(
                    f'<tr><td style="{cell}"><code>replicas={c.replicas} tp={c.tp} pp={c.pp}</code></td>'
                    f'<td style="{cell}">{lg.total_gib:.1f} / {lg.device_gib:g}</td>'
                    f'<td style="{cell}">{significant_unchecked(e.time_to_first_token_s * 1e3, grouping=True)}</td>'
                    f'<td style="{cell}">{significant_unchecked(e.time_per_output_token_s * 1e3, grouping=True)}</td>'
                    f'<td style="{cell}">{significant_unchecked(c.tokens_per_s_per_gpu, grouping=True)}</td></tr>'
                )
            parts.append(f'<table style="border-collapse:collapse;font-size:90%;margin:4px 0">{"".join(rows)}</table>')
            first = result.accepted[0].estimate
            if first is not None and first.time_to_first_token_s >= 60:  # ms alone hide minutes
                ms = significant_unchecked(first.time_to_first_token_s * 1e3, grouping=True)
                minutes = f"{first.time_to_first_token_s / 60:,.1f}"
                parts.append(html.escape(tr("widgets.workbench.long_ttft", ms=ms, minutes=minutes)))
        best = _best_serving(result)
        curve = self._curve(result)
        if best is not None and curve:
            shown = [point for point in curve if point[0] in (1, 8, 64, 256)]
            first_misfit = next((b for b, *_rest, ok in curve if not ok), None)
            parts.append(
                html.escape(
                    tr(
                        "widgets.workbench.tradeoff" if result.accepted else "widgets.workbench.tradeoff_closest",
                        layout=f"replicas={best.replicas} tp={best.tp} pp={best.pp}",
                        batches=" → ".join(str(b) for b, *_ in shown),
                        tpots=" → ".join(significant_unchecked(t * 1e3, grouping=True) for _, t, _, _ in shown),
                        rates=" → ".join(significant_unchecked(r, grouping=True) for _, _, r, _ in shown),
                        misfit=""
                        if first_misfit is None
                        else tr("widgets.workbench.tradeoff_misfit", batch=first_misfit),
                        device=device,
                    )
                )
            )
        return "<br>".join(parts)

    def verdict_level(self, result: Any) -> str:
        """Fail when no composition (training) or no layout (serving) passes every gate; pass otherwise.

        The message says the same in words ("no composition passes every gate").
        """
        if isinstance(result, ServingPlanResult):
            return "pass" if result.accepted else "fail"
        return "pass" if result.accepted_count else "fail"

    def describe(self, result: Any) -> str:
        """The verdict on ``result`` in the current language (HTML), worked out once per plan and language."""
        key = (id(result), get_language())
        kept = self._verdicts.get(key)
        if kept is not None and kept[0]() is result:
            self._verdicts.move_to_end(key)
            return kept[1]
        if isinstance(result, ServingPlanResult):
            verdict = self._describe_serving(result)
        else:
            verdict = self._describe_training(result)
        verdict += node_note_html(self.controls["cluster"].value)
        self._verdicts[key] = (weakref.ref(result), verdict)
        while len(self._verdicts) > VERDICT_CACHE_SIZE:
            self._verdicts.popitem(last=False)
        return verdict

    def _describe_training(self, result: PlanResult) -> str:
        best = self.top(result)
        cluster = result.cluster
        if not best:
            return _describe_none(result)
        head = tr(
            "widgets.workbench.summary",
            model=result.model.name,
            world=cluster.world_size,
            size=result.space_size,
            accepted=result.accepted_count,
            top=len(best),
        )
        assumptions = _assumptions(result)
        cell = "padding:1px 6px;border-bottom:1px solid #ddd;text-align:left"
        header = "".join(
            f'<th style="{cell}">{html.escape(tr(key))}</th>'
            for key in (
                "widgets.workbench.col_degrees",
                "widgets.workbench.col_memory",
                "widgets.workbench.col_step",
                "widgets.workbench.col_parts",
            )
        )
        rank_head = html.escape(
            tr(
                "widgets.workbench.col_rank",
                uncertainty=result.assumptions.uncertainty,
            )
        )
        rows = [f"<tr><th style='{cell}'>{rank_head}</th>{header}</tr>"]
        shown = result.accepted_indices(len(best))
        # the tie groups of the rows shown (each whole): only the candidates near them are estimated again
        groups = result.tie_groups(top=len(best))
        group_of = {index: g for g, members in enumerate(groups, 1) for index in members}
        for rank, (index, cand) in enumerate(zip(shown, best, strict=True), 1):
            t, mem = cand.timeline, cand.memory
            assert t is not None and mem is not None
            parts = " / ".join(
                significant_unchecked(s, grouping=True)
                for s in (t.compute_s, t.exposed_communication_s, t.bubble_s, t.host_wait_s)
            )
            rows.append(
                f'<tr><td style="{cell}">{rank} ({group_of.get(index, "")})</td>'
                f'<td style="{cell};{_LABEL_WRAP}"><code>{html.escape(cand.label())}</code></td>'
                f'<td style="{cell}">{mem.total_gib:.1f} / {mem.device_gib:g}</td>'
                f'<td style="{cell}">{significant_unchecked(t.step_s, grouping=True)}</td>'
                f'<td style="{cell}">{parts}</td></tr>'
            )
        long_step = _long_step(best[0].timeline.step_s if best[0].timeline is not None else 0.0)
        # group 1's explained rows come fastest first (its fastest, then its contenders), so the rows of the
        # candidates shown are among its first k, k = group 1's members shown: the others are not explained
        in_view = set(shown)
        explained = sum(1 for index in groups[0] if index in in_view) if groups else 0
        why = [row for row in result.explain_ties(1, top=explained) if row.scenarios and row.index in in_view]
        ties = ""
        if why:
            items = "".join(f"<li>{html.escape(row.message)}</li>" for row in why)
            ties = f"{html.escape(tr('widgets.workbench.ties_why'))}<ul style='margin:2px 0'>{items}</ul>"
        return (
            f"<b>{html.escape(head)}</b>"
            f'<table style="border-collapse:collapse;font-size:90%;margin:4px 0">{"".join(rows)}</table>'
            f"{long_step}{ties}<i>{html.escape(assumptions)}{_lora_note(result)}</i>"
        )


#: A composition's label (``tp=4,pp=1,dp=32,...,recompute=none``) has no space: unbroken it was 497 px wide, and at a
#: projected 1024 px zoomed to 125 % (a 639 px output area) the table pushed its last columns out of the box, which
#: then scrolled sideways. The label may break where the line ends (its text, and what a learner copies, unchanged).
_LABEL_WRAP = "overflow-wrap:anywhere"


def _long_step(step_s: float) -> str:
    """A line giving a step of an hour or more in hours and days too (HTML, its own line), else "": "234240 s"
    alone does not say "almost three days"."""
    if step_s < 3600:
        return ""
    line = tr(
        "widgets.workbench.long_step",
        seconds=f"{step_s:,.0f}",
        hours=f"{step_s / 3600:,.1f}",
        days=f"{step_s / 86400:,.1f}",
    )
    return f"{html.escape(line)}<br>"


def _assumptions(result: PlanResult) -> str:
    """The line of assumptions the estimates of ``result`` rest on (peak, compute efficiency, overlap, inter-node
    bandwidth), as the widget's controls set them."""
    cluster = result.cluster
    return tr(
        "widgets.workbench.assumptions",
        peak=cluster.peak_flops / 1e12,
        mfu=tr("planner.efficiency_model", device=device_word(cluster))
        if result.workload.achievable_flops_fraction is None
        else f"{result.workload.achievable_flops_fraction:.0%}",
        overlap=", ".join(f"{dim} {share:.0%}" for dim, share in result.assumptions.overlap),
        inter=cluster.inter_node_bandwidth_bytes_per_s / 1e9,
        device=device_word(cluster),
    )


def _lora_note(result: PlanResult) -> str:
    """The LoRA assumption of ``result``'s workload (HTML, a line of its own), or "" when every weight trains.

    The adapter count is the planner's own (:func:`coursekit.planner.estimate.lora_adapters` of the model it
    planned, the MoE what-if's included)."""
    rank = result.workload.lora_rank
    if rank is None:
        return ""
    adapters = lora_adapters(result.model, rank).model_per_token
    return "<br>" + html.escape(tr("widgets.workbench.lora_note", rank=rank, adapters=adapters))


def _describe_none(result: PlanResult) -> str:
    """The verdict when no composition passes: the search, no table, and the gate that removed the last ones."""
    head = tr(
        "widgets.workbench.none", model=result.model.name, world=result.cluster.world_size, size=result.space_size
    )
    parts = [f"<b>{html.escape(head)}</b>"]
    last = next((step for step in reversed(result.funnel) if step.removed), None)
    if last is not None:  # the gate that removed the last survivors (an empty space has none)
        why = tr("widgets.workbench.none_why", count=last.removed, code=last.code, gate=str(last.description))
        parts.append(html.escape(why))
        if last.code == "memory":
            parts.append(html.escape(tr("widgets.workbench.none_memory")))
    # what was searched, and the assumptions: without this line a control that changes no verdict (the node type,
    # the global batch, the sequence length, the estimate's assumptions) would leave the message as it was, a silent
    # no-op
    settings = tr(
        "widgets.workbench.none_settings",
        nodes=result.cluster.nodes,
        cluster=result.cluster.name,
        memory=result.cluster.memory_per_device_gib,
        batch=result.workload.global_batch,
        seq=result.workload.seq_len,
        assumptions=_assumptions(result),
    )
    parts.append(f"<i>{html.escape(settings)}</i>")
    return "<br>".join(parts) + _lora_note(result)


#: Gate codes in funnel order (for lessons that label the chart).
GATE_ORDER: tuple[str, ...] = tuple(gate.code for gate in PLAN_GATES)

learner_functions(globals())
