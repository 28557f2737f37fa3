"""The planner's gates as one table: each row owns its array test and the reason it gives a learner.

A row's ``test`` answers "which of these candidates fail?" for a whole column of candidates at once
(numpy bool arrays); its ``reason`` says why candidate ``i`` failed, in the words of the message catalog.
The search (:func:`coursekit.planner.plan`) runs the tests over the whole space; the explain path
(:func:`coursekit.planner.evaluate_composition`) runs the same tests on a one-row column and asks the
failing rows for their reasons. There is no second copy of a rule.

Taught in: lesson 9 (decision workbench); the gates themselves in lessons 3 to 5.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from .. import composition  # noqa: F401  (registers the composition.* messages the rank and EP reasons name)
from .._validate import (
    called_from_outside,
    check_choice,
    check_column_shapes,
    check_instance,
    check_int,
    check_int_column,
    check_items,
    learner_functions,
)
from ..gates import memory_reason
from ..i18n import Reason, Text, register
from ..specs import (
    RECOMPUTE_MODES,
    ClusterSpec,
    ModelSpec,
    WorkloadSpec,
    _check_read_fields,
    _divisors,
    pipeline_edges_at,
    stage_layer_counts,
)
from ..units import GIB_BYTES, bytes_to_gib
from .estimate import OFFLOAD_CODE, on_distinct, training_estimate, training_memory

register(
    {
        "planner.offload_pipeline": {
            "zh": "激活卸载 (activation offloading) 不能和流水线并行一起用（pp = {pp} > 1）："
            "Megatron-Core 拒绝这种设置",
            "en": "activation offloading does not run with pipeline parallelism (pp = {pp} > 1): Megatron-Core "
            "refuses the setting",
        },
        "planner.offload_modules": {
            "zh": "激活卸载不能和模块级重计算（{modules}）一起用：Megatron-Core 拒绝卸载与任何重计算同时设置",
            "en": "activation offloading does not run with module-level recomputation ({modules}): Megatron-Core "
            "refuses offloading together with any recomputation",
        },
        "planner.offload_no_host": {
            "zh": "集群 {cluster} 没有给出每张 GPU 的主机内存和主机链路带宽（host_memory_per_device_gib、"
            "host_link_bandwidth_bytes_per_s），估算不了激活卸载",
            "en": "cluster {cluster} states no host memory and host link per GPU (host_memory_per_device_gib, "
            "host_link_bandwidth_bytes_per_s), so activation offloading cannot be estimated",
        },
        "planner.offload_unneeded": {
            "zh": "不卸载也放得下（每 rank {need_gib:.1f} GiB，设备 {have_gib:.1f} GiB）：卸载只会多出拷贝，"
            "这个布局不重计算 (none) 的那一行就是它",
            "en": "it fits without offloading ({need_gib:.1f} GiB per rank, device {have_gib:.1f} GiB): offloading "
            "would only add copies; the same layout without recomputation (none) is that row",
        },
        "planner.offload_host_full": {
            "zh": "要卸载 {layers} 层、共 {host_gib:.1f} GiB 的激活，超过每张 GPU 的主机内存 {host_have_gib:.1f} GiB",
            "en": "offloading {layers:@layer} takes {host_gib:.1f} GiB of activations, more than the "
            "{host_have_gib:.1f} GiB of host memory per GPU",
        },
        "planner.cp_seq": {
            "zh": "cp = {cp} 不能整除序列长度 {seq_len}：每个上下文并行 (CP) rank 必须持有等长的一段序列",
            "en": "cp = {cp} does not divide the sequence length {seq_len}: every context-parallel rank must "
            "hold an equal slice of the sequence",
        },
        "planner.ep_experts": {
            "zh": "ep = {ep} 不能整除 {experts} 个专家：每个专家并行 (EP) rank 必须持有整数个专家",
            "en": "ep = {ep} does not divide the {experts:@expert}: every expert-parallel rank must hold whole experts",
        },
        "planner.etp_fold": {
            "zh": "专家层把同样的 {world} 个 rank 重新排成自己的网格 ETP·EP·EDP·PP（Megatron-Core 的并行折叠 "
            "(parallel folding)；专家层没有 CP，CP 的 rank 并入专家数据并行 EDP）：ETP·EP·PP = {etp}·{ep}·{pp} = "
            "{product} 不能整除 {world}；注意力层的网格 TP·CP·DP·PP = {tp}·{cp}·{dp}·{pp} 不受影响",
            "en": "the expert layers re-fold the same {world:@rank} into their own grid ETP·EP·EDP·PP (Megatron-Core's "
            "parallel folding; expert layers have no CP, whose ranks join the expert data-parallel group EDP): "
            "ETP·EP·PP = {etp}·{ep}·{pp} = {product} does not divide {world}; the attention grid "
            "TP·CP·DP·PP = {tp}·{cp}·{dp}·{pp} is not affected",
        },
        "planner.etp_leaves_node": {
            "zh": "etp = {etp}：专家张量并行 (expert tensor parallelism, ETP) 组必须留在一个 "
            "{gpus_per_node} 卡的节点内",
            "en": "etp = {etp}: an expert tensor-parallel (ETP) group must stay inside one node of "
            "{gpus_per_node:@GPU}",
        },
        "planner.etp_leaves_node_domain": {
            "zh": "etp = {etp}：专家张量并行 (ETP) 组必须留在一个 NVLink 域里，这个作业每个域用 {gpus_per_node} 卡",
            "en": "etp = {etp}: an expert tensor-parallel (ETP) group must stay inside one NVLink domain, of which "
            "this job fills {gpus_per_node:@GPU}",
        },
        "planner.tp_leaves_domain": {
            "zh": "tp = {tp} 超过这个作业每个 NVLink 域的 {gpus_per_node} 张 GPU：张量并行 (TP) 组会离开 NVLink，"
            "走跨域网络",
            "en": "tp = {tp} exceeds the {gpus_per_node:@GPU} this job fills in each NVLink domain: the TP group "
            "would leave NVLink for the network between domains",
        },
        "planner.tp_straddles_domain": {
            "zh": "tp = {tp} 不能整除这个作业每个 NVLink 域的 {gpus_per_node} 张 GPU：rank 连续排布时，有的 TP 组"
            "会跨两个域",
            "en": "tp = {tp} does not divide the {gpus_per_node:@GPU} this job fills in each NVLink domain: with "
            "contiguous ranks some TP groups would straddle two domains",
        },
        "planner.virtual_needs_pp": {
            "zh": "v = {v} 个虚拟阶段需要流水线并行 (pp > 1)：模型块 (model chunk) 是在流水线阶段之间交错的",
            "en": "v = {v:@virtual stage} need pipeline parallelism (pp > 1): model chunks interleave across "
            "pipeline stages",
        },
        "planner.pp_edge": {
            "zh": "{layers} 层分给 pp = {pp} 个阶段、首末各少 {edge} 层时，有阶段一层都没有",
            "en": "{layers:@layer} over pp = {pp:@stage} with {edge} fewer on the first and last leave a stage "
            "without a layer",
        },
        "planner.pp_edges": {
            "zh": "{layers} 层分给 pp = {pp} 个阶段、首阶段少 {edge} 层（pipeline_edge_layers）、"
            "末阶段少 {last_edge} 层（pipeline_last_edge_layers）时，首、中、末阶段是 {stages} 层：有阶段一层都没有",
            "en": "{layers:@layer} over pp = {pp:@stage} with {edge} fewer on the first (pipeline_edge_layers) and "
            "{last_edge} fewer on the last (pipeline_last_edge_layers) leave a stage without a layer: the first, "
            "middle and last stages hold {stages}",
        },
        "planner.pp_balance_edges": {
            "zh": "{layers} 层分给 pp = {pp} 个阶段、首阶段少 {edge} 层（pipeline_edge_layers）、"
            "末阶段少 {last_edge} 层（pipeline_last_edge_layers）时，每阶段 {low} 到 {high} 层：最慢的阶段决定节奏",
            "en": "{layers:@layer} over pp = {pp:@stage} with {edge} fewer on the first (pipeline_edge_layers) and "
            "{last_edge} fewer on the last (pipeline_last_edge_layers) hold {low} to {high:@layer} per stage: the "
            "slowest stage sets the pace",
        },
        "planner.virtual_chunk_layers_edges": {
            "zh": "v = {v} 个模型块需要每个流水线阶段至少 {v} 层（首阶段把嵌入算作 {edge} 层，末阶段把输出层与损失"
            "算作 {last_edge} 层，一个模型块可以只放它们）；最少的阶段只有 {fewest} 层",
            "en": "v = {v:@model chunk} need at least {v:@layer} on every pipeline stage (the first counts the "
            "embedding as {edge:@layer}, the last the output layer and the loss as {last_edge}, and a chunk may hold "
            "only them); the smallest holds {fewest}",
        },
        "planner.virtual_chunk_divide_edges": {
            "zh": "v = {v} 个模型块要把每个流水线阶段的层数等分（首阶段把嵌入算作 {edge} 层，末阶段把输出层与损失"
            "算作 {last_edge} 层）；首、中、末阶段的层数是 {stages}（引擎能给各块放任意层数时：pipeline_uneven_chunks，"
            "命令行 --pipeline-uneven-chunks）",
            "en": "v = {v:@model chunk} must split every pipeline stage's layers equally (the first counts the "
            "embedding as {edge:@layer}, the last the output layer and the loss as {last_edge}); the first, middle "
            "and last stages hold {stages} (an engine that puts any number of layers on a chunk: "
            "pipeline_uneven_chunks, on the command line --pipeline-uneven-chunks)",
        },
        "planner.virtual_chunk_layers": {
            "zh": "v = {v} 个模型块需要每个流水线阶段至少 {v} 层（首末阶段把嵌入与损失各算作 {edge} 层，"
            "一个模型块可以只放它们）；最少的阶段只有 {fewest} 层",
            "en": "v = {v:@model chunk} need at least {v:@layer} on every pipeline stage (the first and last count "
            "the embedding and the loss as {edge} layer each, and a chunk may hold only them); the smallest holds "
            "{fewest}",
        },
        "planner.virtual_chunk_divide": {
            "zh": "v = {v} 个模型块要把每个流水线阶段的层数等分（首末阶段把嵌入与损失各算作 {edge} 层）；"
            "首、中、末阶段的层数是 {stages}（引擎能给各块放任意层数时：pipeline_uneven_chunks，"
            "命令行 --pipeline-uneven-chunks）",
            "en": "v = {v:@model chunk} must split every pipeline stage's layers equally (the first and last count "
            "the embedding and the loss as {edge} layer each); the first, middle and last stages hold {stages} (an "
            "engine that puts any number of layers on a chunk: pipeline_uneven_chunks, on the command line "
            "--pipeline-uneven-chunks)",
        },
        "planner.context_chunks": {
            "zh": "cp = {cp}：因果注意力的负载均衡切分要把序列分成 2·cp = {chunks} 段等长的块（每个 CP rank "
            "拿首尾各一块），{seq_len} 个 token 分不成这样",
            "en": "cp = {cp}: the load-balanced causal split cuts the sequence into 2·cp = {chunks:@equal chunk} (each "
            "CP rank takes one from each end); {seq_len:@token} do not split so",
        },
    }
)

__all__ = ["GATE_CODES", "PLAN_GATES", "WELL_FORMED_CODES", "ContextTwins", "GateInput", "PlanGate", "context_twins"]


@dataclass
class GateInput:
    """The candidates under test (integer columns of equal length) and what every gate reads about them.

    ``candidate_mode`` is the mode the candidates are built for: ``"training"`` (the search's compositions) or
    ``"serving"`` (replicas of :mod:`coursekit.serving`, for which only the mode and serving rows apply).
    Derived columns (stage layers, the estimate) are computed once, on first use.
    """

    model: ModelSpec
    cluster: ClusterSpec
    workload: WorkloadSpec
    columns: Mapping[str, Any]
    candidate_mode: str = "training"
    _fails: dict[str, Any] = field(default_factory=dict, repr=False)

    def __getitem__(self, key: str) -> Any:
        return self.columns[key]

    def value(self, key: str, i: int) -> int:
        """Column ``key`` of candidate ``i`` as a Python int (``etp``: ``tp`` when the columns carry none)."""
        return int(self.etp[i] if key == "etp" else self.columns[key][i])

    @property
    def etp(self) -> Any:
        """Expert tensor-parallel degree of every candidate: its ``etp`` column, else ``tp`` (Megatron's default)."""
        return self.columns["etp"] if "etp" in self.columns else self.columns["tp"]

    def name(self, i: int) -> str:
        """How a reason names candidate ``i``."""
        if self.candidate_mode == "serving":
            return ",".join(f"{key}={self.value(key, i)}" for key in ("replicas", "tp", "pp"))
        keys = ("tp", "pp", "dp", "cp", "ep", "etp") if self.model.is_moe else ("tp", "pp", "dp", "cp", "ep")
        return ",".join(f"{key}={self.value(key, i)}" for key in keys)

    @property
    def size(self) -> int:
        return len(self.columns["tp"])

    @cached_property
    def used_ranks(self) -> Any:
        """Ranks every candidate occupies: tp · cp · dp · pp (training), replicas · tp · pp (serving)."""
        if self.candidate_mode == "serving":
            return self["replicas"] * self["tp"] * self["pp"]
        return self["tp"] * self["cp"] * self["dp"] * self["pp"]

    @cached_property
    def seq_len(self) -> int:
        return self.workload.tokens_per_sequence(self.model)

    @cached_property
    def stage_layers(self) -> tuple[Any, Any, Any]:
        """Layers of the (first, heaviest middle, last) pipeline stage (computed once per distinct pp)."""
        import numpy as np

        layers, option, last, mtp = (
            self.model.layers,
            self.workload.pipeline_edge_layers,
            self.workload.pipeline_last_edge_layers,
            self.model.mtp_layers,
        )
        counts: tuple[Any, Any, Any] = on_distinct(
            np,
            lambda pp: stage_layer_counts(layers, pp, *pipeline_edges_at(layers, pp, option, last, mtp)),
            self["pp"],
        )
        return counts

    @cached_property
    def _edges(self) -> tuple[Any, Any]:
        """Layers the (first, last) stage gives up, per candidate (:func:`coursekit.specs.pipeline_edges_at`)."""
        import numpy as np

        pp, workload = self["pp"], self.workload
        first, last = pipeline_edges_at(
            self.model.layers,
            pp,
            workload.pipeline_edge_layers,
            workload.pipeline_last_edge_layers,
            self.model.mtp_layers,
        )
        return np.zeros_like(pp) + first, np.zeros_like(pp) + last

    @cached_property
    def edge_layers(self) -> Any:
        """Layers the first stage gives up to the embedding, per candidate (:func:`coursekit.specs.edge_layers_at`;
        the last stage's too unless ``pipeline_last_edge_layers`` says otherwise; a model with MTP modules and no
        split stated: :func:`coursekit.specs.pipeline_edges_at`)."""
        return self._edges[0]

    @cached_property
    def last_edge_layers(self) -> Any:
        """Layers the last stage gives up to the output layer and the loss, per candidate
        (:func:`coursekit.specs.pipeline_edges_at`)."""
        return self._edges[1]

    @cached_property
    def fewest_layers(self) -> Any:
        """Layers of the smallest pipeline stage (the middle ones count only when pp > 2)."""
        import numpy as np

        first, mid, last = self.stage_layers
        return np.where(self["pp"] > 2, np.minimum(np.minimum(first, last), mid), np.minimum(first, last))

    @cached_property
    def fewest_chunk_slots(self) -> Any:
        """Layers of the smallest pipeline stage as the interleaved schedule splits it: the first and last stages also
        count the ``pipeline_edge_layers`` / ``pipeline_last_edge_layers`` the embedding and the loss stand for (see
        :func:`chunks_divide_stages`)."""
        import numpy as np

        first, mid, last = self.stage_layers
        edges = np.minimum(first + self.edge_layers, last + self.last_edge_layers)
        return np.where(self["pp"] > 2, np.minimum(edges, mid), edges)

    @cached_property
    def estimate(self) -> dict[str, Any]:
        """:func:`coursekit.planner.estimate.training_estimate` of every candidate."""
        return training_estimate(self.model, self.cluster, self.workload, self.columns)

    @cached_property
    def memory(self) -> dict[str, Any]:
        """The memory ledger (bytes per rank, :func:`coursekit.planner.estimate.training_memory`) of every well-formed
        candidate, NaN where malformed: what the memory gate reads. The estimate's own ledger once that exists;
        else only the well-formed rows are estimated (a malformed composition has no ledger)."""
        import numpy as np

        if "estimate" in self.__dict__:
            ledger: dict[str, Any] = self.estimate["memory"]
            return ledger
        rows = np.flatnonzero(self.well_formed)
        if rows.size == self.size:
            return training_memory(self.model, self.cluster, self.workload, self.columns)
        part = training_memory(self.model, self.cluster, self.workload, {k: v[rows] for k, v in self.columns.items()})
        full = {key: np.full(self.size, np.nan) for key in part}
        for key, value in part.items():
            full[key][rows] = value
        return full

    def fails(self, code: str) -> Any:
        """Gate ``code``'s bool column: True where the candidate fails it (computed once)."""
        if code not in self._fails:
            self._fails[code] = GATE_BY_CODE[code].test(self)
        return self._fails[code]

    @cached_property
    def well_formed(self) -> Any:
        """True where every composition check passes: only those have a ledger."""
        import numpy as np

        return ~np.logical_or.reduce([self.fails(code) for code in WELL_FORMED_CODES])


class PlanGate(NamedTuple):
    """One check the planner runs: its stable ``code``, what it asks, whether it needs a ledger, and its two forms:
    ``test(GateInput) -> bool array`` (True = fails) and ``reason(GateInput, i) -> Reason`` for a failing row."""

    code: str
    description: Text
    needs_ledger: bool
    test: Callable[[GateInput], Any]
    reason: Callable[[GateInput, int], Reason]


# --------------------------------------------------------------------------- the composition checks


def _ranks_reason(g: GateInput, i: int) -> Reason:
    required, available = int(g.used_ranks[i]), g.cluster.world_size
    if required > available:
        return Reason("ranks", "composition.ranks", {"required": required, "available": available})
    params = {"required": required, "available": available, "idle": available - required}
    if g.candidate_mode == "serving":
        return Reason("ranks", "composition.replicas_idle", params)
    model_ranks = int(g["tp"][i] * g["cp"][i] * g["pp"][i])
    if available % model_ranks:
        return Reason("ranks", "composition.ranks_idle_no_dp", {**params, "model_ranks": model_ranks})
    return Reason("ranks", "composition.ranks_idle", {**params, "dp": available // model_ranks})


def _global_batch_test(g: GateInput) -> Any:
    dp, mb, ga, gb = g["dp"], g["mb"], g["ga"], g.workload.global_batch
    return (gb % (dp * mb) != 0) | (dp * mb * ga != gb)


def _global_batch_reason(g: GateInput, i: int) -> Reason:
    dp, mb, ga = g.value("dp", i), g.value("mb", i), g.value("ga", i)
    params = {"dp": dp, "micro_batch": mb, "grad_accum": ga, "product": dp * mb * ga}
    return Reason("global_batch", "gates.global_batch", {**params, "global_batch": g.workload.global_batch})


def _pp_layers_reason(g: GateInput, i: int) -> Reason:
    pp, layers = g.value("pp", i), g.model.layers
    if pp > layers:
        return Reason("pp_layers", "gates.pp_layers", {"pp": pp, "layers": layers})
    edge, last_edge = int(g.edge_layers[i]), int(g.last_edge_layers[i])
    if edge == last_edge:
        return Reason("pp_layers", "planner.pp_edge", {"layers": layers, "pp": pp, "edge": edge})
    first, mid, last = (int(x[i]) for x in g.stage_layers)
    stages = f"{first}, {mid}, {last}" if pp > 2 else f"{first}, {last}"
    params = {"layers": layers, "pp": pp, "edge": edge, "last_edge": last_edge, "stages": stages}
    return Reason("pp_layers", "planner.pp_edges", params)


def _ep_experts_test(g: GateInput) -> Any:
    import numpy as np

    return (g.model.num_experts % g["ep"] != 0) if g.model.is_moe else np.zeros(g["tp"].shape, dtype=bool)


def _ep_fold_test(g: GateInput) -> Any:
    # Megatron-Core (parallel_state.initialize_model_parallel): the attention grid is TP·CP·DP·PP, the expert grid
    # ETP·EP·EDP·PP with cp = 1 over the same world; EDP = world / (ETP·EP·PP) must be whole.
    return g.used_ranks % (g.etp * g["ep"] * g["pp"]) != 0


def _ep_fold_reason(g: GateInput, i: int) -> Reason:
    tp, cp, dp, etp, ep, pp = (g.value(key, i) for key in ("tp", "cp", "dp", "etp", "ep", "pp"))
    params = {"world": int(g.used_ranks[i]), "tp": tp, "cp": cp, "dp": dp, "etp": etp, "ep": ep, "pp": pp}
    return Reason("ep_fold", "planner.etp_fold", {**params, "product": etp * ep * pp})


def chunks_divide_stages(
    first: Any, mid: Any, last: Any, pp: Any, edge_layers: Any, v: Any, last_edge_layers: Any = None
) -> Any:
    """True where ``v`` model chunks split every pipeline stage into equal chunks; array-generic.

    Megatron-Core's rule for the interleaved schedule (``TransformerConfig``: "number of layers on each pipeline
    rank ... must be divisible by virtual_pipeline_model_parallel_size"): each stage's layers — the first and
    last counting the ``edge_layers`` / ``last_edge_layers`` (``None``: as many) that the embedding and the loss
    stand for, as
    ``--account-for-embedding-in-pipeline-split`` / ``--account-for-loss-in-pipeline-split`` count them — are a
    multiple of ``v``. ``first, mid, last`` are :func:`coursekit.specs.stage_layer_counts`; ``mid`` counts only
    when pp > 2. Only a hand-written ``--pipeline-model-parallel-layout`` lifts the rule. A chunk may hold only the
    embedding or only the loss: Megatron-Core builds such a chunk with zero transformer layers
    (``transformer_block.get_num_layers_to_build`` asserts only ``num_layers_to_build >= 0``), and Llama 3's first
    chunk on the first stage holds only the embedding, its last chunk on the last stage only the output layer and
    the loss (arXiv:2407.21783, §3.3.2); so v may reach the first stage's layers plus ``edge_layers``
    (``GateInput.fewest_chunk_slots``).

    >>> bool(chunks_divide_stages(7, 8, 7, 16, 1, 4)), bool(chunks_divide_stages(3, 4, 3, 32, 1, 3))
    (True, False)
    >>> bool(chunks_divide_stages(7, 8, 6, 8, 1, 4, 2))  # Megatron-Bridge's DeepSeek-V3 "Et|(tt|)*30mL" on 8 x 4
    True
    """
    if called_from_outside():
        for name, value in (("first", first), ("mid", mid), ("last", last), ("edge_layers", edge_layers)):
            check_int_column(name, value, ge=0)
        check_int_column("pp", pp, ge=1)
        check_int_column("v", v, ge=1)
        if last_edge_layers is not None:
            check_int_column("last_edge_layers", last_edge_layers, ge=0)
        check_column_shapes(first=first, mid=mid, last=last, pp=pp, edge_layers=edge_layers, v=v,
                            last_edge_layers=last_edge_layers)  # fmt: skip
    last_edge = edge_layers if last_edge_layers is None else last_edge_layers
    edge = first + edge_layers, last + last_edge
    return (edge[0] % v == 0) & (edge[1] % v == 0) & ((pp <= 2) | (mid % v == 0))


def _pp_schedule_test(g: GateInput) -> Any:
    pp, v = g["pp"], g["v"]
    uneven = ~chunks_divide_stages(*g.stage_layers, pp, g.edge_layers, v, g.last_edge_layers)
    uneven = uneven & (not g.workload.pipeline_uneven_chunks)  # a layout that places layers freely
    return (v > 1) & ((pp == 1) | (g.fewest_chunk_slots < v) | uneven | (g["ga"] % pp != 0))


def _pp_schedule_reason(g: GateInput, i: int) -> Reason:
    pp, v, fewest = g.value("pp", i), g.value("v", i), int(g.fewest_chunk_slots[i])
    if pp == 1:
        return Reason("pp_schedule", "planner.virtual_needs_pp", {"v": v})
    edge, last_edge = int(g.edge_layers[i]), int(g.last_edge_layers[i])
    same = edge == last_edge  # the symmetric messages, as before pipeline_last_edge_layers
    edges: dict[str, int] = {"edge": edge} if same else {"edge": edge, "last_edge": last_edge}
    if fewest < v:
        key = "planner.virtual_chunk_layers" if same else "planner.virtual_chunk_layers_edges"
        return Reason("pp_schedule", key, {"v": v, "fewest": fewest, **edges})
    first, mid, last = (int(x[i]) for x in g.stage_layers)
    if not g.workload.pipeline_uneven_chunks and not chunks_divide_stages(first, mid, last, pp, edge, v, last_edge):
        stages = f"{first}, {mid}, {last}" if pp > 2 else f"{first}, {last}"
        key = "planner.virtual_chunk_divide" if same else "planner.virtual_chunk_divide_edges"
        return Reason("pp_schedule", key, {"v": v, "stages": stages, **edges})
    return Reason("pp_schedule", "pipeline.interleaved_multiple", {"microbatches": g.value("ga", i), "stages": pp})


# --------------------------------------------------------------------------- the hard gates of lesson 3


def _memory_test(g: GateInput) -> Any:
    return g.well_formed & (g.memory["total"] > g.cluster.memory_per_device_gib * GIB_BYTES)


def _memory_reason(g: GateInput, i: int) -> Reason:
    need_gib = bytes_to_gib(float(g.memory["total"][i]))
    return memory_reason(need_gib, g.cluster.memory_per_device_gib)


def _offload_test(g: GateInput) -> Any:
    import numpy as np

    offload = g["rc"] == OFFLOAD_CODE
    if not np.any(offload):
        return offload
    if g.cluster.host_memory_per_device_gib is None:  # nowhere to offload to: every offloading row fails
        return offload
    refused = (g["pp"] > 1) | bool(g.workload.recompute_modules)
    rows = offload & g.well_formed & ~refused
    if np.any(rows):
        layers, host = g.memory["offloaded_layers"], g.memory["host_bytes"]
        host_have = g.cluster.host_memory_per_device_gib * GIB_BYTES
        with np.errstate(invalid="ignore"):
            refused = refused | (rows & ((layers == 0) | (host > host_have)))
    return offload & refused


def _offload_reason(g: GateInput, i: int) -> Reason:
    pp, modules, host_have = g.value("pp", i), g.workload.recompute_modules, g.cluster.host_memory_per_device_gib
    if pp > 1:
        return Reason("offload", "planner.offload_pipeline", {"pp": pp})
    if modules:
        return Reason("offload", "planner.offload_modules", {"modules": ", ".join(modules)})
    if host_have is None:
        return Reason("offload", "planner.offload_no_host", {"cluster": g.cluster.name})
    layers = int(g.memory["offloaded_layers"][i])
    if layers == 0:
        need_gib = bytes_to_gib(float(g.memory["total"][i]))
        return Reason(
            "offload", "planner.offload_unneeded", {"need_gib": need_gib, "have_gib": g.cluster.memory_per_device_gib}
        )
    host_gib = bytes_to_gib(float(g.memory["host_bytes"][i]))
    return Reason(
        "offload", "planner.offload_host_full", {"layers": layers, "host_gib": host_gib, "host_have_gib": host_have}
    )


def _interconnect_reason(g: GateInput, i: int) -> Reason:
    tp, etp, gpn = g.value("tp", i), g.value("etp", i), g.cluster.domain_gpus
    domain = "_domain" if g.cluster.nvlink_domain_gpus is not None else ""  # an NVLink domain over nodes: say so
    if gpn % tp == 0:  # the attention-TP group fits: the expert-TP group is the one that leaves the node
        return Reason("interconnect", f"planner.etp_leaves_node{domain}", {"etp": etp, "gpus_per_node": gpn})
    if domain:
        key = "planner.tp_leaves_domain" if tp > gpn else "planner.tp_straddles_domain"
    else:
        key = "gates.tp_leaves_node" if tp > gpn else "gates.tp_straddles_node"
    return Reason("interconnect", key, {"tp": tp, "gpus_per_node": gpn})


def _structure_reason(g: GateInput, i: int) -> Reason:
    return Reason("structure", "gates.structure", {"name": g.name(i), "kind": g.model.kind, "kinds": "moe"})


def _context_test(g: GateInput) -> Any:
    # Megatron-Core's load-balanced causal split gives each CP rank two of 2·cp equal chunks (Transformer
    # Engine refuses a per-rank sequence that is not divisible by 2). Whether CP pays is the estimate's call.
    return (g["cp"] > 1) & (g.seq_len % (2 * g["cp"]) != 0)


def _context_reason(g: GateInput, i: int) -> Reason:
    cp = g.value("cp", i)
    return Reason("context", "planner.context_chunks", {"cp": cp, "chunks": 2 * cp, "seq_len": g.seq_len})


def _mode_test(g: GateInput) -> Any:
    import numpy as np

    return np.full(g["tp"].shape, g.workload.mode != g.candidate_mode)


def _mode_reason(g: GateInput, i: int) -> Reason:
    return Reason("mode", "gates.mode", {"name": g.name(i), "mode": g.workload.mode, "modes": g.candidate_mode})


def _serving_reason(g: GateInput, i: int) -> Reason:
    if g.candidate_mode == "serving":
        return Reason("serving", "gates.serving_replica_in_training", {"name": g.name(i)})
    return Reason("serving", "gates.training_sync_in_serving", {"name": g.name(i)})


#: The checks, in funnel order. First the composition must be well formed (the degree rules of lesson 5's
#: selection matrix and the Q4 composition rules); then the Q3 hard gates in lesson 3's order (fit,
#: interconnect, structure, context, serving). ``memory`` and ``context`` need a per-rank ledger, which exists
#: only for a well-formed composition. Codes are those of :mod:`coursekit.gates` and :mod:`coursekit.composition`
#: where they have one; ``cp_seq``, ``ep_experts`` and ``pp_schedule`` are the planner's.
PLAN_GATES: tuple[PlanGate, ...] = (
    PlanGate(
        "ranks",
        Text(zh="组合恰好用满集群的 rank", en="the composition uses exactly the ranks that exist"),
        False,
        lambda g: g.used_ranks != g.cluster.world_size,
        _ranks_reason,
    ),
    PlanGate(
        "global_batch",
        Text(zh="dp × 微批次 × 梯度累积 = 全局批大小", en="dp × micro-batch × accumulation = global batch"),
        False,
        _global_batch_test,
        _global_batch_reason,
    ),
    PlanGate(
        "tp_heads",
        Text(zh="TP 整除注意力头数", en="TP divides the attention heads"),
        False,
        lambda g: g.model.heads % g["tp"] != 0,
        lambda g, i: Reason("tp_heads", "gates.tp_heads", {"tp": g.value("tp", i), "heads": g.model.heads}),
    ),
    PlanGate(
        "pp_layers",
        Text(zh="每个流水线阶段至少一层", en="every pipeline stage holds a layer"),
        False,
        lambda g: (g["pp"] > g.model.layers) | (g.fewest_layers < 1),
        _pp_layers_reason,
    ),
    PlanGate(
        "cp_seq",
        Text(zh="CP 整除序列长度", en="CP divides the sequence length"),
        False,
        lambda g: g.seq_len % g["cp"] != 0,
        lambda g, i: Reason("cp_seq", "planner.cp_seq", {"cp": g.value("cp", i), "seq_len": g.seq_len}),
    ),
    PlanGate(
        "ep_experts",
        Text(zh="EP 整除专家数", en="EP divides the experts"),
        False,
        _ep_experts_test,
        lambda g, i: Reason(
            "ep_experts", "planner.ep_experts", {"ep": g.value("ep", i), "experts": g.model.num_experts}
        ),
    ),
    PlanGate(
        "ep_fold",
        Text(
            zh="专家层的网格 ETP·EP·EDP·PP 铺满同样的 rank（Megatron-Core 并行折叠）",
            en="the expert grid ETP·EP·EDP·PP folds over the same ranks (Megatron-Core parallel folding)",
        ),
        False,
        _ep_fold_test,
        _ep_fold_reason,
    ),
    PlanGate(
        "pp_schedule",
        Text(
            zh="交错流水线：每个模型块至少一层，微批次数是 pp 的倍数",
            en="interleaved schedule: every model chunk holds a layer, micro-batches a multiple of pp",
        ),
        False,
        _pp_schedule_test,
        _pp_schedule_reason,
    ),
    PlanGate(
        "memory",
        Text(zh="容量门槛：每 rank 放得下", en="fit gate: one rank's ledger fits the device"),
        True,
        _memory_test,
        _memory_reason,
    ),
    PlanGate(
        "offload",
        Text(
            zh="卸载门槛：激活卸载只在需要时、在引擎允许（pp = 1、不重计算）且主机内存够的地方用",
            en="offload gate: activation offloading only where needed, where the engine allows it (pp = 1, no "
            "recomputation) and the host memory holds it",
        ),
        True,
        _offload_test,
        _offload_reason,
    ),
    PlanGate(
        "interconnect",
        Text(zh="互连门槛：TP 与 ETP 组留在一个节点内", en="interconnect gate: TP and ETP groups stay inside a node"),
        False,
        # a group that does not divide the node crosses one, unless the layout's ranks all sit on one node
        lambda g: (
            ((g.cluster.domain_gpus % g["tp"] != 0) | (g.cluster.domain_gpus % g.etp != 0))
            & (g.used_ranks > g.cluster.domain_gpus)
        ),
        _interconnect_reason,
    ),
    PlanGate(
        "structure",
        Text(zh="结构门槛：EP 只用于 MoE", en="structure gate: EP only for MoE"),
        False,
        lambda g: (g["ep"] > 1) & (not g.model.is_moe),
        _structure_reason,
    ),
    PlanGate(
        "context",
        Text(
            zh="上下文门槛：CP 的因果负载均衡需要 2·cp 段等长的块；CP 值不值由估算决定",
            en="context gate: CP's causal load balance needs 2·cp equal chunks; whether CP pays is the estimate's call",
        ),
        False,
        _context_test,
        _context_reason,
    ),
    PlanGate(
        "mode",
        Text(zh="服务门槛第 1 部分：工作负载模式", en="serving gate, part 1: workload mode"),
        False,
        _mode_test,
        _mode_reason,
    ),
    PlanGate(
        "serving",
        Text(zh="服务门槛第 2 部分：副本不是训练 DP", en="serving gate, part 2: replicas are not DP"),
        False,
        _mode_test,  # replicas are not training DP: the same condition as the mode, its own reason
        _serving_reason,
    ),
)

#: Gate codes in funnel order.
GATE_CODES: tuple[str, ...] = tuple(gate.code for gate in PLAN_GATES)
#: The composition checks: a candidate that passes them all is well formed and has a ledger.
WELL_FORMED_CODES: frozenset[str] = frozenset(GATE_CODES[:8])
GATE_BY_CODE: dict[str, PlanGate] = {gate.code: gate for gate in PLAN_GATES}


def reasons_of(g: GateInput, i: int = 0, codes: tuple[str, ...] = GATE_CODES) -> tuple[Reason, ...]:
    """The reasons candidate ``i`` fails, in funnel order, from the gates ``codes`` (default: every gate)."""
    if called_from_outside():
        check_instance("g", g, GateInput)
        check_int("i", i, ge=0, le=max(g.size - 1, 0))
        for position, code in enumerate(check_items("codes", codes)):
            check_choice(f"codes[{position}]", code, GATE_CODES)
    return tuple(GATE_BY_CODE[code].reason(g, i) for code in codes if bool(g.fails(code)[i]))


# --------------------------------------------------------------------------- the context gate's comparison


class ContextTwins(NamedTuple):
    """Every layout without CP in its least-memory settings, and which hold the context (see :func:`context_twins`).

    Taught in: lesson 9 (decision workbench).
    """

    tp: Any
    pp: Any
    dp: Any
    ep: Any
    total_bytes: Any
    holds: Any  # bool per row: well formed, inside the node, fits, pipeline fed
    recompute: str
    zero: int

    @property
    def exists(self) -> bool:
        """True when some layout without CP holds the context: then no CP candidate is needed."""
        return bool(self.holds.any())

    def pick(self, tp: int, pp: int, dp: int, ep: int) -> tuple[int, bool]:
        """(row, folded): the candidate's own fold (same tp, pp, ep; dp·cp data ranks) if it holds the context,
        else the least-memory row that does. Call only when :attr:`exists`."""
        import numpy as np

        own = np.flatnonzero(self.holds & (self.tp == tp) & (self.pp == pp) & (self.dp == dp) & (self.ep == ep))
        if own.size:
            return int(own[0]), True
        rows = np.flatnonzero(self.holds)
        return int(rows[np.argmin(self.total_bytes[rows])]), False


def context_twins(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> ContextTwins:
    """Every layout without context parallelism on the whole cluster, in its least-memory settings, and which of
    them hold the context: does the workload *need* CP to fit?

    For each tp, pp, ep with cp = 1 and dp = world / (tp·pp): one sequence per micro-batch, the plain 1F1B
    schedule (v = 1), the most memory-saving recompute mode and the highest ZeRO stage the workload allows, and
    the accumulation ga = global_batch / dp. A row *holds the context* when it is well formed (the structural
    checks of :data:`PLAN_GATES`), keeps TP inside a node, fits the device (the same ledger as every candidate),
    and keeps its pipeline fed — at least as many micro-batches as stages (ga >= pp): a layout that leaves a
    pipeline idle most of the step is no alternative to CP. The planner no longer rejects CP when such a row
    exists: CP is weighed on its cost (the estimate's ring, overlap and matmul shapes), so it is accepted
    whenever it fits and wins only where its costs are smaller than what it removes (e.g. full recomputation).

    >>> from coursekit.presets import MODELS, CLUSTERS
    >>> context_twins(MODELS["llama3-8b"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=16, seq_len=2048)).exists
    True

    Taught in: lesson 9 (decision workbench).
    """
    check_instance("model", model, ModelSpec)
    check_instance("cluster", cluster, ClusterSpec)
    check_instance("workload", workload, WorkloadSpec)
    _check_read_fields(model, workload)
    import numpy as np

    world = cluster.world_size
    ep_options = _divisors(model.num_experts) if model.is_moe else (1,)
    layouts = [
        (tp, pp, world // (tp * pp), ep)
        for tp in _divisors(world)
        for pp in _divisors(world // tp)
        for ep in ep_options
    ]
    table = np.array(layouts, dtype=np.int64).reshape(-1, 4)
    tp, pp, dp, ep = (table[:, i] for i in range(4))
    # the most memory-saving recompute mode (offloading is the search's business: the engine refuses it with pp > 1)
    modes = [mode for mode in workload.recompute_modes if mode in RECOMPUTE_MODES]
    recompute = max(modes, key=RECOMPUTE_MODES.index, default="none")
    zero = max(workload.zero_stages)
    ones = np.ones_like(tp)
    ga = np.maximum(1, workload.global_batch // dp)
    rc = RECOMPUTE_MODES.index(recompute)
    row = {"tp": tp, "cp": ones, "pp": pp, "dp": dp, "ep": ep, "etp": tp, "v": ones, "zero": ones * zero, "mb": ones}
    row["ga"] = ga
    g = GateInput(model, cluster, workload, {**row, "rc": ones * rc})
    bad = ~g.well_formed | g.fails("interconnect") | g.fails("structure")
    total = g.estimate["memory"]["total"]
    holds = ~bad & (total <= cluster.memory_per_device_gib * GIB_BYTES) & (ga >= pp)
    return ContextTwins(tp, pp, dp, ep, total, holds, recompute, zero)


learner_functions(globals())
