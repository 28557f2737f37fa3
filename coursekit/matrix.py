"""The DP / FSDP / TP / PP selection matrix and three paper cases.

:data:`SELECTION_MATRIX` is the course's matrix as data: for each strategy, the
bottleneck it solves, its main communication, the conditions it needs and its
cost. :data:`PAPER_CASES` are three paper cases (the model fits one device; the
training state exceeds one device; one layer exceeds one device) with concrete
numbers, and :func:`evaluate_paper_case` gives, for each strategy, a verdict
可行 / 不优先 / 需更多信息 (feasible / not preferred / needs more information)
with coded, bilingual reasons.

How a verdict is reached, in this order (lesson 3's discipline: exclude first,
compare later):

1. Hard exclusions (``hard_excluded=True``, verdict ``not_preferred``): the fit
   gate (:func:`coursekit.gates.gate_memory`), a layer that a strategy cannot
   split (``layer``), the global batch (:func:`coursekit.gates.check_global_batch`),
   and with a known topology a TP group that would leave its node
   (:func:`coursekit.gates.check_tp_degree`).
2. Not needed (``unneeded``, verdict ``not_preferred``): the smallest degree
   that fits is 1, so the strategy would add communication and complexity for no
   capacity gain (complexity is itself a cost).
3. Missing information (``needs_info``): TP needs fast links for the
   collectives in every layer; with ``topology="unspecified"`` the case does not
   say whether such links exist.
4. Otherwise ``feasible``; the reasons then say how (degree, GiB per rank,
   bubble, placement).

When one layer exceeds the device, no strategy fits alone: TP must split the
layer and the training state must still be sharded across the TP groups. The
FSDP cell then judges FSDP as TP's second dimension (TP × FSDP,
:func:`combination_memory_gib`), and the PP cell says why stages are not
preferred next to that combination.

The topology parameter: ``"unspecified"``, the paper case says nothing about
links; ``"hierarchical"``, fast inside a node of ``gpus_per_node`` devices, slow
between nodes. TP must then stay inside a node, FSDP prefers to shard inside a
node and replicate across nodes, and DP and PP take the across-node dimension.

Per-rank memory models (coarse ideals, GiB; S = training state, A =
activations, R = runtime reserve, W = bf16 weights of the largest layer, N =
devices, G = FSDP gather peak = :data:`FSDP_PEAK_LAYERS` · W, see
:func:`fsdp_gather_peak_gib`):

* DP: ``S + A + R`` (every rank holds the full state).
* FSDP over d ranks: ``S/d + A + R + G`` (with prefetch: two layers of
  parameters and one layer of unsharded gradients at the peak).
* TP = t alone: ``S/t + A/t + R``.
* TP = t with the state also sharded over all N ranks (TP × FSDP):
  ``S/N + (G + A)/t + R``.
* PP = p stages: ``S/p + A + R``; a stage holds whole layers, so it also needs ``W + A + R``.

>>> result = evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE)
>>> [(v.strategy, v.verdict) for v in result.verdicts]
[('DP', 'not_preferred'), ('FSDP', 'feasible'), ('TP', 'not_preferred'), ('PP', 'feasible')]
>>> result.verdict_of("DP").codes
('memory',)

Taught in: lesson 5 (selection matrix).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ._validate import check_choice, check_int, check_items, check_number, learner_functions
from .gates import Candidate, Environment, check_global_batch, check_pp_degree, check_tp_degree, gate_memory
from .i18n import Reason, Text, get_language, register, tr
from .pipeline import bubble_fraction
from .shapes import MODEL_SHAPES, model_shape, transformer_params
from .specs import MAX_DEVICE_MEMORY_GIB, MAX_NODES, MAX_WORLD_SIZE, _divisors

#: The strategies of the matrix, in its order.
STRATEGIES: tuple[str, ...] = ("DP", "FSDP", "TP", "PP")

#: Verdict codes of the paper-case exercise (one per strategy and case).
VERDICTS: tuple[str, ...] = ("feasible", "not_preferred", "needs_info")

#: Bilingual labels of the verdicts.
VERDICT_LABELS: Mapping[str, Text] = MappingProxyType(
    {
        "feasible": Text(zh="可行", en="Feasible"),
        "not_preferred": Text(zh="不优先", en="Not preferred"),
        "needs_info": Text(zh="需更多信息", en="Needs more information"),
    }
)

#: Topologies of the exercise: links unknown, or fast inside a node and slow between nodes.
TOPOLOGIES: tuple[str, ...] = ("unspecified", "hierarchical")

#: FSDP's gather peak in layers of bf16 weights: with prefetch, the parameters of the layer being
#: computed and of the next one being gathered, plus the unsharded gradients of the current layer
#: before their reduce-scatter (PyTorch FSDP documentation, ``BackwardPrefetch.BACKWARD_PRE``: "at the
#: peak, it holds the current set of parameters, next set of parameters, and current set of gradients").
FSDP_PEAK_PARAM_LAYERS: int = 2
FSDP_PEAK_GRAD_LAYERS: int = 1
FSDP_PEAK_LAYERS: int = FSDP_PEAK_PARAM_LAYERS + FSDP_PEAK_GRAD_LAYERS


def fsdp_gather_peak_gib(largest_layer_gib: float) -> float:
    """FSDP's gather peak per rank, GiB: two layers of parameters and one of unsharded gradients.

    Parameters:
        largest_layer_gib: bf16 weights of the largest layer, GiB (gradients in the same precision).

    >>> round(fsdp_gather_peak_gib(0.3), 2)  # 2 x 0.3 GiB parameters + 0.3 GiB gradients
    0.9

    Taught in: lesson 5 (selection matrix, mechanism 2).
    """
    layer = check_number("largest_layer_gib", largest_layer_gib, ge=0)
    return FSDP_PEAK_PARAM_LAYERS * layer + FSDP_PEAK_GRAD_LAYERS * layer


register(
    {
        "matrix.type_key": {
            "zh": "key = {value!r}：必须是非空字符串。",
            "en": "key = {value!r}: must be a non-empty string.",
        },
        "matrix.type_title": {
            "zh": "title = {value!r}：必须是 coursekit.Text，而不是 {type}。",
            "en": "title = {value!r}: must be a coursekit.Text, not {type}.",
        },
        "matrix.layer_in_state": {
            "zh": "largest_layer_gib = {value!r}：必须 <= training_state_gib == {state!r}"
            "（一层的权重是训练状态的一部分）。",
            "en": "largest_layer_gib = {value!r}: must be <= training_state_gib == {state!r} (a layer's weights "
            "are part of the training state).",
        },
        "matrix.type_case": {
            "zh": "{name} = {value!r}：必须是 PaperCase，而不是 {type}。",
            "en": "{name} = {value!r}: must be a PaperCase, not {type}.",
        },
        "matrix.unknown_strategy": {
            "zh": "strategy = {value!r}：这个案例没有该策略的结论；可用的是 {choices}。",
            "en": "strategy = {value!r}: this evaluation has no verdict for it; the strategies are {choices}.",
        },
        "matrix.dp_simplest": {
            "zh": "DP = {dp}：完整训练状态加激活和运行时预留共 {need_gib:.1f} GiB，放得进单卡；"
            "DP 是增加吞吐最简单的方式",
            "en": "DP = {dp}: the full training state with activations and reserve, {need_gib:.1f} GiB, fits one "
            "device; DP is the simplest way to add throughput",
        },
        "matrix.dp_across_nodes": {
            "zh": "DP 每步只有一次梯度全归约 (all-reduce)，能承受慢速的跨节点链路：适合放在跨节点的维度上",
            "en": "DP's single gradient all-reduce per step tolerates the slow inter-node link: it suits the "
            "across-node dimension",
        },
        "matrix.fsdp_unneeded": {
            "zh": "完整训练状态已放得进单卡（{dp_gib:.1f} GiB <= {have_gib:.1f} GiB）：分片只会增加每层的"
            "全收集 (all-gather) 和归约散射 (reduce-scatter)，没有容量收益",
            "en": "the full training state already fits one device ({dp_gib:.1f} GiB <= {have_gib:.1f} GiB): "
            "sharding would add per-layer all-gathers and reduce-scatters for no capacity gain",
        },
        "matrix.fsdp_shards": {
            "zh": "FSDP 分片到 {degree} 个 rank：每个 rank {need_gib:.1f} GiB（状态 / {degree} + 激活 + 运行时预留 + "
            "全收集峰值 {peak_gib:.1f} GiB：预取时两层参数加一层未分片梯度，每层 {layer_gib:.1f} GiB）",
            "en": "FSDP over {degree:@rank}: {need_gib:.1f} GiB per rank (state / {degree} + activations + "
            "reserve + a gather peak of {peak_gib:.1f} GiB: with prefetch two layers of parameters and one of "
            "unsharded gradients, {layer_gib:.1f} GiB each)",
        },
        "matrix.fsdp_hybrid": {
            "zh": "节点内分片（{degree} 个 rank，每个 {need_gib:.1f} GiB）、跨节点复制："
            "每层的全收集 (all-gather) 留在节点内高速链路，只有每步一次梯度全归约 (all-reduce) 跨节点",
            "en": "shard inside each node ({degree:@rank}, {need_gib:.1f} GiB per rank) and replicate across "
            "nodes: per-layer gathers stay on the fast intra-node links and only one gradient all-reduce per "
            "step crosses nodes",
        },
        "matrix.fsdp_cross_node": {
            "zh": "只在节点内分片放不下（每个 rank {hybrid_gib:.1f} GiB）；分片到全部 {degree} 个 rank 时，"
            "每层的全收集 (all-gather) 都走慢速跨节点链路，需要实测它能否与计算重叠",
            "en": "sharding inside one node is not enough ({hybrid_gib:.1f} GiB per rank); sharding over all "
            "{degree:@rank} puts every layer's all-gather on the slow inter-node link: measure whether it "
            "overlaps compute",
        },
        "matrix.fsdp_layer": {
            "zh": "FSDP 计算每层前要全收集 (all-gather) 整层：最大一层的权重就有 {layer_gib:.1f} GiB，"
            "加上激活和运行时预留超过 {have_gib:.1f} GiB；需先用 TP 切开这一层",
            "en": "FSDP gathers a whole layer before computing it: the largest layer's weights alone are "
            "{layer_gib:.1f} GiB, which with activations and reserve exceed {have_gib:.1f} GiB; split the "
            "layer with TP first",
        },
        "matrix.tp_unneeded": {
            "zh": "没有哪一层超过单卡（TP = 1 已放得下）：容量由分片或分段解决，TP 每层的集合通信不是必需的；"
            "TP 配合序列并行还能按 1/t 切分激活（ZeRO/FSDP 不切激活），激活成为瓶颈时再考虑它",
            "en": "no single layer exceeds one device (TP = 1 already fits): sharding or stages solve the capacity, "
            "so TP's collectives in every layer are not required; TP with sequence parallelism also divides "
            "the activations to 1/t (ZeRO / FSDP does not): consider it when activations become the bottleneck",
        },
        "matrix.tp_needed_capacity": {
            "zh": "TP = {tp} 是为了容量，不是为了切开一层（最大一层 {layer_gib:.1f} GiB 单卡放得下）："
            "训练状态只分片到全部 {devices} 个 rank（FSDP）时每个 rank 要 {fsdp_alone_gib:.1f} GiB，"
            "超过 {have_gib:.1f} GiB；"
            "TP {tp} × FSDP {fsdp} 把激活和全收集峰值再除以 {tp}，每个 rank 需要 {need_gib:.1f} GiB",
            "en": "TP = {tp} is for capacity, not to split a layer (the largest layer, {layer_gib:.1f} GiB, fits one "
            "device): with the state sharded over all {devices:@rank} alone (FSDP) each rank needs "
            "{fsdp_alone_gib:.1f} GiB, over {have_gib:.1f} GiB; TP {tp} × FSDP {fsdp} divides the activations and the "
            "gather peak by {tp}: {need_gib:.1f} GiB per rank",
        },
        "matrix.tp_needed": {
            "zh": "TP = {tp} 把最大一层从 {layer_gib:.1f} GiB 切成每个 rank {split_gib:.1f} GiB；但只用 TP 时每个 rank "
            "仍要 {alone_gib:.1f} GiB（训练状态 / {tp} 就有 {state_share_gib:.1f} GiB）。训练状态再分片到全部 "
            "{devices} 个 rank（TP {tp} × FSDP {fsdp}）后，每个 rank 需要 {need_gib:.1f} GiB",
            "en": "TP = {tp} splits the largest layer from {layer_gib:.1f} GiB to {split_gib:.1f} GiB per rank; but "
            "TP alone still needs {alone_gib:.1f} GiB per rank (the training state / {tp} is {state_share_gib:.1f} "
            "GiB). With the state also sharded over all {devices:@rank} (TP {tp} × FSDP {fsdp}) each rank needs "
            "{need_gib:.1f} GiB",
        },
        "matrix.tp_inside_node": {
            "zh": "TP = {tp} 放在一个 {gpus_per_node} 卡节点之内：每层的集合通信留在高速链路上；"
            "跨节点的维度交给 DP/FSDP 或 PP",
            "en": "TP = {tp} fits inside one node of {gpus_per_node:@GPU}: its per-layer collectives stay on the "
            "fast links; give the across-node dimension to DP/FSDP or PP",
        },
        "matrix.link_unknown": {
            "zh": "TP 每层都需要高速链路来做集合通信，而这个案例没有说明拓扑：先补充链路信息"
            "（例如节点内快、跨节点慢的分层互连）再决定",
            "en": "TP needs fast links for the collectives in every layer, and this case declares no topology: "
            "add the link information (for example, a hierarchical interconnect: fast inside a node, slow between "
            "nodes) before deciding",
        },
        "matrix.fsdp_with_tp": {
            "zh": "FSDP 单独做不到（要全收集 (all-gather) 整层），但它是 TP 的第二个维度：TP {tp} 先切开这一层，"
            "训练状态再分片到 {fsdp} 个 TP 组（TP {tp} × FSDP {fsdp}），每个 rank {need_gib:.1f} GiB",
            "en": "FSDP alone cannot (it gathers a whole layer), but it is TP's second dimension: TP {tp} splits the "
            "layer first and the training state is sharded over {fsdp:@TP group} (TP {tp} × FSDP {fsdp}), "
            "{need_gib:.1f} GiB per rank",
        },
        "matrix.fsdp_with_tp_capacity": {
            "zh": "FSDP 单独放不下（每个 rank {alone_gib:.1f} GiB > {have_gib:.1f} GiB：分片、激活和全收集峰值），"
            "但它是 TP 的第二个维度：TP {tp} 把激活和全收集峰值再除以 {tp}，训练状态分片到 {fsdp} 个 TP 组"
            "（TP {tp} × FSDP {fsdp}），每个 rank {need_gib:.1f} GiB",
            "en": "FSDP alone does not fit ({alone_gib:.1f} GiB per rank > {have_gib:.1f} GiB: its shard, the "
            "activations and the gather peak), but it is TP's second dimension: TP {tp} divides the activations and "
            "the gather peak by {tp}, and the training state is sharded over {fsdp:@TP group} (TP {tp} × FSDP {fsdp}), "
            "{need_gib:.1f} GiB per rank",
        },
        "matrix.fsdp_with_tp_cross_node": {
            "zh": "TP 组占满节点内的卡，{fsdp} 路 FSDP 分片跨节点：每层的全收集 (all-gather) 走慢速跨节点链路，"
            "需要实测它能否与计算重叠",
            "en": "the TP groups fill the nodes, so the {fsdp}-way FSDP sharding crosses nodes: every layer's "
            "all-gather runs on the slow inter-node link; measure whether it overlaps compute",
        },
        "matrix.pp_with_tp": {
            "zh": "TP {tp} 切开这一层之后也可以再分段，但 TP {tp} × FSDP {fsdp} 已经放得下（{need_gib:.1f} GiB）且没有"
            "流水线气泡；而且持有最大一层的阶段不均衡",
            "en": "once TP {tp} splits the layer, stages become possible, but TP {tp} × FSDP {fsdp} already fits "
            "({need_gib:.1f} GiB) with no pipeline bubble, and the stage holding the largest layer is "
            "unbalanced",
        },
        "matrix.pp_unneeded": {
            "zh": "训练状态放得进单卡（PP = 1 已放得下）：分段只会带来流水线气泡 (pipeline bubble) 和阶段平衡问题，"
            "没有容量收益",
            "en": "the training state fits one device (PP = 1 already fits): stages would add a pipeline bubble "
            "and stage balancing for no capacity gain",
        },
        "matrix.pp_layer": {
            "zh": "流水线的每个阶段都持有整层：最大一层 {layer_gib:.1f} GiB 加上激活和运行时预留超过 "
            "{have_gib:.1f} GiB，PP 单独无济于事；需先用 TP 切开这一层",
            "en": "a pipeline stage holds whole layers: the largest layer, {layer_gib:.1f} GiB, with activations "
            "and reserve exceeds {have_gib:.1f} GiB, so PP alone cannot help; split the layer with TP first",
        },
        "matrix.pp_stages": {
            "zh": "PP = {pp} 个阶段（每个 rank {need_gib:.1f} GiB），DP = {dp} 条流水线，每条 m = {m} 个"
            "微批次：气泡比例 (p-1)/(m+p-1) = {bubble:.0%}",
            "en": "PP = {pp:@stage} ({need_gib:.1f} GiB per rank), DP = {dp:@pipeline} with m = "
            "{m:@micro-batch/micro-batches} each: bubble fraction (p-1)/(m+p-1) = {bubble:.0%}",
        },
        "matrix.pp_across_nodes": {
            "zh": "把各阶段放在不同节点：只有阶段边界上的点对点激活传输走慢速链路",
            "en": "place the stages on different nodes: only the point-to-point activations at stage boundaries "
            "cross the slow link",
        },
    }
)


# --------------------------------------------------------------------------- the matrix


@dataclass(frozen=True)
class MatrixRow:
    """One row of the selection matrix: strategy, bottleneck it solves, main communication, conditions, cost."""

    strategy: str
    bottleneck_solved: Text
    main_communication: Text
    conditions: Text
    cost: Text


#: Column headers of :data:`SELECTION_MATRIX` (the lesson's first objective:
#: "解决的瓶颈—主要通信—适用条件—代价").
MATRIX_HEADERS: tuple[Text, ...] = (
    Text(zh="策略", en="Strategy"),
    Text(zh="解决的瓶颈", en="Bottleneck solved"),
    Text(zh="主要通信", en="Main communication"),
    Text(zh="适用条件", en="Conditions"),
    Text(zh="代价", en="Cost"),
)

#: The matrix of the lesson, in both languages.
SELECTION_MATRIX: tuple[MatrixRow, ...] = (
    MatrixRow(
        "DP",
        Text(
            zh="吞吐：模型与优化器状态放得进单卡时，用更大的批次铺开计算",
            en="Throughput: when the model and optimizer state fit one device, spread more batch over more devices",
        ),
        Text(
            zh="每步一次梯度全归约 (all-reduce)（频率低，但每次覆盖全部梯度）",
            en="One gradient all-reduce per step (infrequent, but it covers every gradient)",
        ),
        Text(
            zh="完整训练状态 M_model 不超过单卡可用显存 C_device；全局批大小足以分给 DP 并行度个 rank",
            en="The full training state M_model fits the device memory C_device; the global batch is large "
            "enough to split over the DP degree",
        ),
        Text(
            zh="每卡完整复制状态；DP 并行度过大会迫使全局批大小变大或微批次变小",
            en="Every device replicates the full state; a large DP degree forces a larger global batch or "
            "smaller micro-batches",
        ),
    ),
    MatrixRow(
        "FSDP",
        Text(
            zh="容量：训练状态放不下单卡时，把参数、梯度和优化器状态分片 (sharding)，理想约 M_model/P",
            en="Capacity: when the training state exceeds one device, shard parameters, gradients and "
            "optimizer state, ideally about M_model/P per device",
        ),
        Text(
            zh="每层计算前全收集 (all-gather) 参数、反向后归约散射 (reduce-scatter) 梯度，比 DP 更频繁",
            en="An all-gather of parameters before each layer and a reduce-scatter of gradients after it, "
            "more often than DP",
        ),
        Text(
            zh="分片状态加激活 (activation) 和全收集峰值 (gather peak)（预取时约两层参数加一层未分片梯度）放得下；"
            "互连能让全收集与计算重叠",
            en="The shard plus activations and the gather peak (with prefetch about two layers of parameters and "
            "one layer of unsharded gradients) fit; the links let gathers overlap compute",
        ),
        Text(
            zh="更频繁的通信和更多实现细节（何时全收集 (gather)、何时分片 (shard)、检查点 (checkpoint) 格式）",
            en="More frequent communication and more implementation detail (when to gather, when to shard, "
            "checkpoint format)",
        ),
    ),
    MatrixRow(
        "TP",
        Text(
            zh="单层矩阵本身放不下单卡，或希望分摊层内计算；配合序列并行 (sequence parallelism) 还按 1/t 切分激活"
            "（ZeRO/FSDP 不切激活）",
            en="A single layer's matrices do not fit one device, or the layer's compute should be spread; with "
            "sequence parallelism it also cuts the activations to 1/t (ZeRO / FSDP does not)",
        ),
        Text(
            zh="每层前向和反向都有集合通信（全归约 (all-reduce)，或全收集 (all-gather) 加归约散射 (reduce-scatter)），"
            "频率高",
            en="Collectives in every layer, forward and backward (all-reduce or all-gather / reduce-scatter): "
            "high frequency",
        ),
        Text(
            zh="高速节点内互连（如 NVLink）；TP 并行度整除注意力头数",
            en="Fast intra-node links (e.g. NVLink); the TP degree divides the attention heads",
        ),
        Text(
            zh="每层高频通信；并行度越大矩阵越小、内核 (kernel) 效率越低",
            en="High-frequency communication in every layer; a larger degree means smaller matrices and "
            "less efficient kernels",
        ),
    ),
    MatrixRow(
        "PP",
        Text(
            zh="容量：按层切成阶段 (stage)，每卡只放一段层",
            en="Capacity: layers are cut into stages and each device holds one stage",
        ),
        Text(
            zh="阶段边界上点对点传激活（前向）和梯度（反向）",
            en="Point-to-point activations (forward) and gradients (backward) at stage boundaries",
        ),
        Text(
            zh="层数足够、阶段可平衡、微批次足够多；可跨较慢的互连",
            en="Enough layers, balanced stages and enough micro-batches; tolerates slower links",
        ),
        Text(
            zh="流水线气泡 (pipeline bubble)，朴素调度约 (p-1)/(m+p-1)；阶段不平衡；调度复杂",
            en="Pipeline bubble, about (p-1)/(m+p-1) for a naive schedule; stage imbalance; scheduling complexity",
        ),
    ),
)


def matrix_table(lang: str | None = None) -> list[list[str]]:
    """:data:`SELECTION_MATRIX` as rows of strings, the header row first, in ``lang`` (default: current).

    >>> table = matrix_table("en")
    >>> table[0][:3], table[1][0]
    (['Strategy', 'Bottleneck solved', 'Main communication'], 'DP')

    Taught in: lesson 5 (selection matrix).
    """
    if lang is not None:
        check_choice("lang", lang, ("zh", "en"))
    shown = lang or get_language()
    rows = [[header.render(shown) for header in MATRIX_HEADERS]]
    for row in SELECTION_MATRIX:
        rows.append(
            [
                row.strategy,
                row.bottleneck_solved.render(shown),
                row.main_communication.render(shown),
                row.conditions.render(shown),
                row.cost.render(shown),
            ]
        )
    return rows


# --------------------------------------------------------------------------- paper cases


#: Largest training state, activation or reserve a paper case may state, GiB: a million devices' worth of the
#: largest device memory :class:`coursekit.specs.ClusterSpec` takes, so sums over a case stay finite.
MAX_CASE_GIB: float = 1e6 * MAX_DEVICE_MEMORY_GIB


@dataclass(frozen=True)
class PaperCase:
    """One paper case: a model, a cluster and a batch, with every number in GiB or counts.

    Parameters:
        key: a short identifier, e.g. ``"fits_one_device"``.
        title: bilingual title.
        device_memory_gib: memory of one device, GiB (> 0).
        training_state_gib: the full training state M_model (weights, gradients, optimizer state), GiB.
        activation_gib: activations one rank holds at ``micro_batch``, GiB (TP splits them).
        runtime_reserve_gib: runtime reserve per rank (allocator, buffers), GiB.
        largest_layer_gib: weights of the largest layer, GiB: what FSDP gathers at once,
            what a pipeline stage must hold whole, and what TP splits (<= ``training_state_gib``).
        num_layers, num_heads: model shape.
        nodes, gpus_per_node: cluster shape; devices = nodes · gpus_per_node.
        global_batch, micro_batch: sequences per optimizer step and per rank per micro-step.

    Taught in: lesson 5 (selection matrix).
    """

    key: str
    title: Text
    device_memory_gib: float
    training_state_gib: float
    activation_gib: float
    runtime_reserve_gib: float
    largest_layer_gib: float
    num_layers: int
    num_heads: int
    nodes: int
    gpus_per_node: int
    global_batch: int
    micro_batch: int

    def __post_init__(self) -> None:
        raw: Any = self
        if not isinstance(raw.key, str) or not raw.key:
            raise TypeError(tr("matrix.type_key", value=raw.key))
        if not isinstance(raw.title, Text):
            raise TypeError(tr("matrix.type_title", value=raw.title, type=type(raw.title).__name__))
        layer_shown = raw.largest_layer_gib
        for name in ("training_state_gib", "activation_gib", "runtime_reserve_gib", "largest_layer_gib"):
            object.__setattr__(self, name, check_number(name, getattr(raw, name), ge=0, le=MAX_CASE_GIB))
        memory = check_number("device_memory_gib", raw.device_memory_gib, gt=0, le=MAX_DEVICE_MEMORY_GIB)
        object.__setattr__(self, "device_memory_gib", memory)
        if self.largest_layer_gib > self.training_state_gib:
            raise ValueError(tr("matrix.layer_in_state", value=layer_shown, state=self.training_state_gib))
        for name in ("num_layers", "num_heads", "global_batch", "micro_batch"):
            check_int(name, getattr(raw, name), ge=1)
        check_int("nodes", raw.nodes, ge=1, le=MAX_NODES)
        check_int("gpus_per_node", raw.gpus_per_node, ge=1, le=MAX_WORLD_SIZE)
        check_int("nodes × gpus_per_node", raw.nodes * raw.gpus_per_node, le=MAX_WORLD_SIZE)

    @property
    def num_devices(self) -> int:
        """Devices in the cluster: ``nodes · gpus_per_node``."""
        return self.nodes * self.gpus_per_node


#: Device memory of the paper cases: the 24 GiB device of lessons 1 and 3.
PAPER_DEVICE_MEMORY_GIB: float = 24.0
#: Cluster of the paper cases (illustrative): 4 nodes of 8 GPUs, the 8-GPU box of
#: Megatron-Core's ``initialize_model_parallel`` docstring ("DGX box").
PAPER_NODES: int = 4
PAPER_GPUS_PER_NODE: int = 8
#: Batch of the paper cases (illustrative): 64 sequences per step, 1 per rank per micro-step.
PAPER_GLOBAL_BATCH: int = 64
PAPER_MICRO_BATCH: int = 1

#: Case 1, the model fits one device: lesson 1's ``fits`` ledger (13 GiB state,
#: 4 GiB activations, 2 GiB reserve on 24 GiB). Layer size illustrative.
CASE_FITS_ONE_DEVICE: PaperCase = PaperCase(
    key="fits_one_device",
    title=Text(zh="案例 1：模型可单卡容纳", en="Case 1: the model fits one device"),
    device_memory_gib=PAPER_DEVICE_MEMORY_GIB,
    training_state_gib=13.0,
    activation_gib=4.0,
    runtime_reserve_gib=2.0,
    largest_layer_gib=0.1,
    num_layers=24,
    num_heads=16,
    nodes=PAPER_NODES,
    gpus_per_node=PAPER_GPUS_PER_NODE,
    global_batch=PAPER_GLOBAL_BATCH,
    micro_batch=PAPER_MICRO_BATCH,
)

#: Case 2, the training state exceeds one device: 40 GiB of state (illustrative)
#: with lesson 1's ``does_not_fit`` activations (5 GiB) and reserve (2 GiB).
CASE_STATE_EXCEEDS_DEVICE: PaperCase = PaperCase(
    key="state_exceeds_device",
    title=Text(zh="案例 2：训练状态超过单卡", en="Case 2: the training state exceeds one device"),
    device_memory_gib=PAPER_DEVICE_MEMORY_GIB,
    training_state_gib=40.0,
    activation_gib=5.0,
    runtime_reserve_gib=2.0,
    largest_layer_gib=0.3,
    num_layers=24,
    num_heads=32,
    nodes=PAPER_NODES,
    gpus_per_node=PAPER_GPUS_PER_NODE,
    global_batch=PAPER_GLOBAL_BATCH,
    micro_batch=PAPER_MICRO_BATCH,
)

#: Case 3, one layer exceeds one device (illustrative): 40 GiB of bf16 weights
#: of which the largest layer holds 26 GiB; the training state is 8x the bf16
#: weights (16 bytes per parameter for mixed-precision Adam vs 2 for fp16/bf16
#: weights, ZeRO paper, Rajbhandari et al. 2020, section 3.1).
CASE_LAYER_EXCEEDS_DEVICE: PaperCase = PaperCase(
    key="layer_exceeds_device",
    title=Text(zh="案例 3：单层超过单卡", en="Case 3: one layer exceeds one device"),
    device_memory_gib=PAPER_DEVICE_MEMORY_GIB,
    training_state_gib=320.0,
    activation_gib=8.0,
    runtime_reserve_gib=2.0,
    largest_layer_gib=26.0,
    num_layers=4,
    num_heads=64,
    nodes=PAPER_NODES,
    gpus_per_node=PAPER_GPUS_PER_NODE,
    global_batch=PAPER_GLOBAL_BATCH,
    micro_batch=PAPER_MICRO_BATCH,
)

#: The three paper cases, in the lesson's order.
PAPER_CASES: tuple[PaperCase, ...] = (CASE_FITS_ONE_DEVICE, CASE_STATE_EXCEEDS_DEVICE, CASE_LAYER_EXCEEDS_DEVICE)


#: The three kinds of paper case, in the lesson's order (the keys of :data:`PAPER_CASES`).
CASE_KINDS: tuple[str, ...] = ("fits_one_device", "state_exceeds_device", "layer_exceeds_device")

#: Bilingual names of the case kinds.
CASE_KIND_LABELS: Mapping[str, Text] = MappingProxyType(
    {
        "fits_one_device": Text(zh="模型可单卡容纳", en="the model fits one device"),
        "state_exceeds_device": Text(zh="训练状态超过单卡", en="the training state exceeds one device"),
        "layer_exceeds_device": Text(zh="单层超过单卡", en="one layer exceeds one device"),
    }
)


def case_kind(case: PaperCase) -> str:
    """Which of :data:`CASE_KINDS` a case is, from its numbers alone.

    ``layer_exceeds_device`` when the largest layer with activations and reserve
    exceeds the device (``W + A + R > C``); else ``state_exceeds_device`` when the
    full training state does (``S + A + R > C``); else ``fits_one_device``.

    >>> [case_kind(case) for case in PAPER_CASES] == list(CASE_KINDS)
    True

    Taught in: lesson 5 (selection matrix, building the cases).
    """
    if not isinstance(case, PaperCase):
        raise TypeError(tr("matrix.type_case", value=case, type=type(case).__name__))
    if not _layer_fits(case):
        return "layer_exceeds_device"
    if _full_state_gib(case) > case.device_memory_gib:
        return "state_exceeds_device"
    return "fits_one_device"


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class StrategyVerdict:
    """One cell of the paper-case matrix: a strategy's verdict on a case, with reasons.

    ``verdict`` is one of :data:`VERDICTS`; ``hard_excluded`` tells a hard
    exclusion (a gate failed) from a mere preference; ``degree`` and
    ``memory_per_rank_gib`` are the degree the evaluation settled on and its
    per-rank memory (GiB), ``None`` when no degree applies.
    """

    strategy: str
    verdict: str
    hard_excluded: bool
    degree: int | None
    memory_per_rank_gib: float | None
    reasons: tuple[Reason, ...]

    @property
    def label(self) -> str:
        """The verdict in the current language (可行 / 不优先 / 需更多信息)."""
        return VERDICT_LABELS[self.verdict].render()

    @property
    def codes(self) -> tuple[str, ...]:
        """The stable codes of the reasons, in order."""
        return tuple(reason.code for reason in self.reasons)


@dataclass(frozen=True)
class CaseEvaluation:
    """All four verdicts for one paper case under one topology."""

    case_key: str
    topology: str
    verdicts: tuple[StrategyVerdict, ...]

    def verdict_of(self, strategy: str) -> StrategyVerdict:
        """The verdict of one strategy (``"DP"``, ``"FSDP"``, ``"TP"`` or ``"PP"``)."""
        for verdict in self.verdicts:
            if verdict.strategy == strategy:
                return verdict
        raise ValueError(tr("matrix.unknown_strategy", value=strategy, choices=", ".join(STRATEGIES)))

    def summary(self) -> dict[str, str]:
        """``{strategy: verdict code}`` in matrix order."""
        return {verdict.strategy: verdict.verdict for verdict in self.verdicts}


def _decide(
    strategy: str,
    hard: list[Reason],
    soft: list[Reason],
    missing: list[Reason],
    how: list[Reason],
    degree: int | None,
    memory_gib: float | None,
) -> StrategyVerdict:
    if hard:
        return StrategyVerdict(strategy, "not_preferred", True, degree, memory_gib, tuple(hard))
    if soft:
        return StrategyVerdict(strategy, "not_preferred", False, degree, memory_gib, tuple(soft))
    if missing:
        return StrategyVerdict(strategy, "needs_info", False, degree, memory_gib, (*missing, *how))
    return StrategyVerdict(strategy, "feasible", False, degree, memory_gib, tuple(how))


def _fit(case: PaperCase, name: str, memory_gib: float) -> Reason | None:
    """Lesson 3's fit gate on one strategy's per-rank memory."""
    candidate = Candidate(name, memory_gib, frozenset({"training"}), frozenset({"dense", "moe"}), "none")
    environment = Environment(case.device_memory_gib, "training", "dense", "none")
    return gate_memory(candidate, environment)


def _batch(case: PaperCase, dp: int) -> Reason | None:
    """The global-batch rule for ``dp`` data-parallel ranks (accumulation as needed)."""
    per_step = dp * case.micro_batch
    grad_accum = max(1, case.global_batch // per_step)
    return check_global_batch(dp, case.micro_batch, grad_accum, case.global_batch)


def _layer_fits(case: PaperCase) -> bool:
    return case.largest_layer_gib + case.activation_gib + case.runtime_reserve_gib <= case.device_memory_gib


def _full_state_gib(case: PaperCase) -> float:
    return case.training_state_gib + case.activation_gib + case.runtime_reserve_gib


def _evaluate_dp(case: PaperCase, topology: str) -> StrategyVerdict:
    dp = case.num_devices
    memory = _full_state_gib(case)
    hard = [r for r in (_fit(case, "DP", memory), _batch(case, dp)) if r is not None]
    how = [Reason("dp_simplest", "matrix.dp_simplest", {"dp": dp, "need_gib": memory})]
    if topology == "hierarchical":
        how.append(Reason("dp_across_nodes", "matrix.dp_across_nodes", {}))
    return _decide("DP", hard, [], [], how, dp, memory)


def combination_memory_gib(case: PaperCase, tp: int = 1, fsdp: int = 1) -> float:
    """Per-rank memory (GiB) of TP = ``tp`` combined with FSDP over ``fsdp`` ranks, for one paper case.

    ``S/(tp·fsdp) + A/tp + R``, plus the FSDP gather peak (:func:`fsdp_gather_peak_gib`)
    split by ``tp`` when ``fsdp > 1``. ``tp = fsdp = 1`` is pure DP; ``fsdp = 1`` is TP
    alone (activations divided by ``tp``, as with sequence parallelism).

    >>> case = CASE_LAYER_EXCEEDS_DEVICE
    >>> combination_memory_gib(case, tp=8)  # TP alone: 320/8 + 8/8 + 2
    43.0
    >>> combination_memory_gib(case, tp=8, fsdp=4)  # TP x FSDP: 320/32 + (3*26 + 8)/8 + 2
    22.75

    Taught in: lesson 5 (selection matrix, case 3).
    """
    if not isinstance(case, PaperCase):
        raise TypeError(tr("matrix.type_case", value=case, type=type(case).__name__))
    t = check_int("tp", tp, ge=1)
    d = check_int("fsdp", fsdp, ge=1)
    peak = fsdp_gather_peak_gib(case.largest_layer_gib) if d > 1 else 0.0
    return case.training_state_gib / (t * d) + (peak + case.activation_gib) / t + case.runtime_reserve_gib


def _fsdp_memory(case: PaperCase, degree: int) -> float:
    return combination_memory_gib(case, 1, degree) if degree > 1 else _full_state_gib(case)


def _tp_fsdp_plan(case: PaperCase) -> tuple[int, float] | None:
    """The smallest TP degree that fits once the state is sharded over the other ranks (TP × FSDP)."""
    degrees = [t for t in _divisors(case.num_devices) if case.num_heads % t == 0]
    for t in degrees:
        memory = combination_memory_gib(case, t, case.num_devices // t)
        if memory <= case.device_memory_gib:
            return t, memory
    return None


def _evaluate_fsdp(case: PaperCase, topology: str) -> StrategyVerdict:
    degree = case.num_devices
    memory = _fsdp_memory(case, degree)
    have = case.device_memory_gib
    fit = _fit(case, "FSDP", memory)
    hard = [r for r in (fit, _batch(case, degree)) if r is not None]
    if not _layer_fits(case):
        hard.append(Reason("layer", "matrix.fsdp_layer", {"layer_gib": case.largest_layer_gib, "have_gib": have}))
    if fit is not None or not _layer_fits(case):
        # FSDP alone does not fit; TP's plan shards the state over the other ranks (TP x FSDP), and where it fits,
        # FSDP is that plan's second dimension: the FSDP cell says so, as the TP cell does.
        plan = _tp_fsdp_plan(case)
        if plan is not None and 1 < plan[0] < case.num_devices:
            return _evaluate_fsdp_with_tp(case, topology, plan, hard)
    if hard:
        return _decide("FSDP", hard, [], [], [], degree, memory)
    dp_memory = _full_state_gib(case)
    if dp_memory <= have:
        soft = Reason("unneeded", "matrix.fsdp_unneeded", {"dp_gib": dp_memory, "have_gib": have})
        return _decide("FSDP", [], [soft], [], [], degree, memory)
    shards = Reason(
        "fsdp_shards",
        "matrix.fsdp_shards",
        {
            "degree": degree,
            "need_gib": memory,
            "peak_gib": fsdp_gather_peak_gib(case.largest_layer_gib),
            "layer_gib": case.largest_layer_gib,
        },
    )
    how = [shards]
    if topology == "hierarchical" and case.nodes > 1:
        hybrid = _fsdp_memory(case, case.gpus_per_node)
        if hybrid <= have:
            degree, memory = case.gpus_per_node, hybrid
            how = [Reason("fsdp_hybrid", "matrix.fsdp_hybrid", {"degree": degree, "need_gib": memory})]
        else:
            how.append(Reason("fsdp_cross_node", "matrix.fsdp_cross_node", {"hybrid_gib": hybrid, "degree": degree}))
    return _decide("FSDP", [], [], [], how, degree, memory)


def _evaluate_fsdp_with_tp(
    case: PaperCase, topology: str, plan: tuple[int, float], alone: list[Reason]
) -> StrategyVerdict:
    """FSDP as TP's second dimension when one layer exceeds the device (TP × FSDP)."""
    tp, memory = plan
    fsdp = case.num_devices // tp
    hard = [r for r in (_batch(case, fsdp),) if r is not None]
    if topology == "hierarchical":
        placement = check_tp_degree(tp, case.num_heads, case.gpus_per_node)
        if placement is not None:
            hard.append(placement)
    if hard:
        return _decide("FSDP", [*alone, *hard], [], [], [], fsdp, memory)
    # a layer that does not fit is why FSDP cannot go alone (case 3); else it is capacity: its shard, activations
    # and gather peak per rank
    key = "matrix.fsdp_with_tp" if not _layer_fits(case) else "matrix.fsdp_with_tp_capacity"
    params = {
        "tp": tp,
        "fsdp": fsdp,
        "need_gib": memory,
        "alone_gib": _fsdp_memory(case, case.num_devices),
        "have_gib": case.device_memory_gib,
    }
    how = [Reason("fsdp_with_tp", key, params)]
    if topology == "hierarchical" and case.nodes > 1 and case.gpus_per_node // tp < fsdp:
        how.append(Reason("fsdp_with_tp_cross_node", "matrix.fsdp_with_tp_cross_node", {"fsdp": fsdp}))
    return _decide("FSDP", [], [], [], how, fsdp, memory)


def _tp_memory(case: PaperCase, tp: int) -> float:
    return combination_memory_gib(case, tp, case.num_devices // tp)


def _evaluate_tp(case: PaperCase, topology: str) -> StrategyVerdict:
    have = case.device_memory_gib
    degrees = [t for t in _divisors(case.num_devices) if case.num_heads % t == 0]
    fitting = [t for t in degrees if _tp_memory(case, t) <= have]
    if not fitting:
        tp = degrees[-1]
        memory = _tp_memory(case, tp)
        hard = [r for r in (_fit(case, "TP", memory),) if r is not None]
        return _decide("TP", hard, [], [], [], tp, memory)
    tp = fitting[0]
    memory = _tp_memory(case, tp)
    if tp == 1:
        return _decide("TP", [], [Reason("unneeded", "matrix.tp_unneeded", {})], [], [], tp, memory)
    hard = [r for r in (_batch(case, case.num_devices // tp),) if r is not None]
    how = [
        Reason(
            "tp_needed",
            "matrix.tp_needed" if not _layer_fits(case) else "matrix.tp_needed_capacity",
            {
                "have_gib": case.device_memory_gib,
                "fsdp_alone_gib": _fsdp_memory(case, case.num_devices),
                "tp": tp,
                "layer_gib": case.largest_layer_gib,
                "split_gib": case.largest_layer_gib / tp,
                "alone_gib": combination_memory_gib(case, tp),
                "state_share_gib": case.training_state_gib / tp,
                "devices": case.num_devices,
                "fsdp": case.num_devices // tp,
                "need_gib": memory,
            },
        )
    ]
    missing: list[Reason] = []
    if topology == "unspecified":
        missing.append(Reason("link_unknown", "matrix.link_unknown", {}))
    else:
        placement = check_tp_degree(tp, case.num_heads, case.gpus_per_node)
        if placement is not None:
            hard.append(placement)
        how.append(Reason("tp_inside_node", "matrix.tp_inside_node", {"tp": tp, "gpus_per_node": case.gpus_per_node}))
    return _decide("TP", hard, [], missing, how, tp, memory)


def _pp_memory(case: PaperCase, pp: int) -> float:
    return case.training_state_gib / pp + case.activation_gib + case.runtime_reserve_gib


def _evaluate_pp(case: PaperCase, topology: str) -> StrategyVerdict:
    have = case.device_memory_gib
    if not _layer_fits(case):
        reason = Reason("layer", "matrix.pp_layer", {"layer_gib": case.largest_layer_gib, "have_gib": have})
        plan = _tp_fsdp_plan(case)
        placed = plan is not None and (
            topology == "unspecified" or check_tp_degree(plan[0], case.num_heads, case.gpus_per_node) is None
        )
        if plan is not None and placed and plan[0] < case.num_devices:
            tp, memory = plan
            prefer = Reason(
                "pp_with_tp", "matrix.pp_with_tp", {"tp": tp, "fsdp": case.num_devices // tp, "need_gib": memory}
            )
            # a stage that cannot hold a layer is a hard exclusion whether or not a TP x FSDP plan is at hand
            return _decide("PP", [reason, prefer], [], [], [], None, None)
        return _decide("PP", [reason], [], [], [], None, None)
    degrees = [p for p in _divisors(case.num_devices) if p <= case.num_layers]
    fitting = [p for p in degrees if _pp_memory(case, p) <= have]
    if not fitting:
        pp = degrees[-1]
        memory = _pp_memory(case, pp)
        hard = [r for r in (_fit(case, "PP", memory),) if r is not None]
        return _decide("PP", hard, [], [], [], pp, memory)
    pp = fitting[0]
    memory = _pp_memory(case, pp)
    if pp == 1:
        return _decide("PP", [], [Reason("unneeded", "matrix.pp_unneeded", {})], [], [], pp, memory)
    dp = case.num_devices // pp
    batch = _batch(case, dp)
    if batch is not None:
        return _decide("PP", [batch], [], [], [], pp, memory)
    micro_batches = case.global_batch // (dp * case.micro_batch)
    how = [
        Reason(
            "pp_stages",
            "matrix.pp_stages",
            {
                "pp": pp,
                "need_gib": memory,
                "dp": dp,
                "m": micro_batches,
                "bubble": bubble_fraction(pp, micro_batches),
            },
        )
    ]
    balance = check_pp_degree(pp, case.num_layers)
    if balance is not None:
        how.append(balance)
    if topology == "hierarchical":
        how.append(Reason("pp_across_nodes", "matrix.pp_across_nodes", {}))
    return _decide("PP", [], [], [], how, pp, memory)


def evaluate_paper_case(case: PaperCase, topology: str = "unspecified") -> CaseEvaluation:
    """Evaluate one paper case: a verdict and reasons for DP, FSDP, TP and PP.

    Parameters:
        case: a :class:`PaperCase`.
        topology: ``"unspecified"`` (links unknown) or ``"hierarchical"`` (fast inside a node of
            ``case.gpus_per_node`` devices, slow between nodes).

    The rules are in the module docstring. Under ``"hierarchical"`` TP must fit
    inside a node, FSDP prefers sharding inside a node, DP and PP take the
    across-node dimension.

    >>> [v.verdict for v in evaluate_paper_case(CASE_FITS_ONE_DEVICE).verdicts]
    ['feasible', 'not_preferred', 'not_preferred', 'not_preferred']
    >>> evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE).summary()["TP"]
    'needs_info'
    >>> evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE, topology="hierarchical").summary()["TP"]
    'feasible'

    Taught in: lesson 5 (selection matrix).
    """
    if not isinstance(case, PaperCase):
        raise TypeError(tr("matrix.type_case", name="case", value=case, type=type(case).__name__))
    topology = check_choice("topology", topology, TOPOLOGIES)
    verdicts = (
        _evaluate_dp(case, topology),
        _evaluate_fsdp(case, topology),
        _evaluate_tp(case, topology),
        _evaluate_pp(case, topology),
    )
    return CaseEvaluation(case.key, topology, verdicts)


def evaluate_paper_cases(
    cases: Iterable[PaperCase] = PAPER_CASES, topology: str = "unspecified"
) -> tuple[CaseEvaluation, ...]:
    """:func:`evaluate_paper_case` for each case: the whole 4 × 3 matrix under one topology.

    >>> [e.summary()["DP"] for e in evaluate_paper_cases()]
    ['feasible', 'not_preferred', 'not_preferred']

    Taught in: lesson 5 (selection matrix).
    """
    evaluations = []
    for index, case in enumerate(check_items("cases", cases)):
        if not isinstance(case, PaperCase):
            raise TypeError(tr("matrix.type_case", name=f"cases[{index}]", value=case, type=type(case).__name__))
        evaluations.append(evaluate_paper_case(case, topology))
    return tuple(evaluations)


#: Bytes of one bf16 weight: what a layer's weights weigh when FSDP gathers them or a stage holds them.
BF16_WEIGHT_BYTES: int = 2
#: Runtime reserve of a constraint case (allocator, buffers), GiB: the paper cases' 2 GiB.
CONSTRAINT_RESERVE_GIB: float = 2.0


def constraint_case(
    model: str,
    *,
    device_memory_gib: float,
    global_batch: int,
    seq_len: int,
    nodes: int = PAPER_NODES,
    gpus_per_node: int = PAPER_GPUS_PER_NODE,
    micro_batch: int = PAPER_MICRO_BATCH,
) -> PaperCase:
    """A :class:`PaperCase` built from constraints a learner sets, every number computed by coursekit.

    ``model`` is a :data:`coursekit.shapes.MODEL_SHAPES` name. The training state is lesson 1's mixed-precision Adam,
    16 bytes per parameter (:func:`coursekit.capacity.training_state_memory`, ZeRO paper §3.1); the activations are
    one rank's at ``micro_batch`` sequences of ``seq_len`` tokens with selective recomputation
    (:func:`coursekit.capacity.activation_memory_breakdown`, Korthikanti et al.); the largest layer is one
    transformer layer's bf16 weights (:func:`coursekit.shapes.transformer_params`); the reserve is 2 GiB.

    >>> case = constraint_case("megatron-7.5b", device_memory_gib=24, global_batch=64, seq_len=2048)
    >>> round(case.training_state_gib, 1), round(case.activation_gib, 2), round(case.largest_layer_gib, 3)
    (111.3, 9.56, 0.375)
    >>> case_kind(case)
    'state_exceeds_device'

    Taught in: lesson 5 (selection matrix, the constraints widget).
    """
    from .capacity import activation_memory_breakdown, training_state_memory  # capacity imports nothing from here

    check_choice("model", model, tuple(MODEL_SHAPES))
    shape = model_shape(model)
    state = training_state_memory(shape.num_params, recipe="zero-fp16-adam")
    activations = activation_memory_breakdown(
        seq_len=check_int("seq_len", seq_len, ge=1),
        micro_batch=micro_batch,
        hidden=shape.hidden,
        heads=shape.heads,
        layers=shape.layers,
        recompute="selective",
    )
    layer_bytes = BF16_WEIGHT_BYTES * transformer_params(layers=1, hidden=shape.hidden)
    return PaperCase(
        key=f"constraints-{model}",
        title=shape.label,
        device_memory_gib=device_memory_gib,
        training_state_gib=state.total_gib,
        activation_gib=activations.total_gib,
        runtime_reserve_gib=CONSTRAINT_RESERVE_GIB,
        largest_layer_gib=layer_bytes / (1 << 30),
        num_layers=shape.layers,
        num_heads=shape.heads,
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        global_batch=global_batch,
        micro_batch=micro_batch,
    )


@dataclass(frozen=True)
class TopologyChange:
    """How one strategy's verdict moves when the topology is added (the lesson's topology step)."""

    strategy: str
    before: str
    after: str
    reasons_after: tuple[Reason, ...]

    @property
    def changed(self) -> bool:
        """``True`` when the verdict code differs."""
        return self.before != self.after


def topology_changes(
    case: PaperCase, before: str = "unspecified", after: str = "hierarchical"
) -> tuple[TopologyChange, ...]:
    """Each strategy's verdict before and after a topology change, with the reasons that explain it.

    >>> [(c.strategy, c.before, c.after) for c in topology_changes(CASE_LAYER_EXCEEDS_DEVICE) if c.changed]
    [('TP', 'needs_info', 'feasible')]

    Taught in: lesson 5 (selection matrix, topology step).
    """
    check_choice("before", before, TOPOLOGIES)
    check_choice("after", after, TOPOLOGIES)
    first = evaluate_paper_case(case, before)
    second = evaluate_paper_case(case, after)
    return tuple(
        TopologyChange(old.strategy, old.verdict, new.verdict, new.reasons)
        for old, new in zip(first.verdicts, second.verdicts, strict=True)
    )


learner_functions(globals())
