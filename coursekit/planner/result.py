"""Result objects of the decision workbench: candidates with ledgers, the funnel, ties and the whole result.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .._cli import StreamedList
from .._validate import (
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_sequence,
    learner_functions,
)
from ..communication import TrafficTime
from ..hardware import EP_ALL_TO_ALL_SMS, H100_SMS
from ..i18n import Reason, Text, register, tr
from ..model_config import localized_source
from ..scaling import StepTimeline
from ..specs import ATTENTION_KERNEL_COMPUTE_CAPABILITY, ATTENTION_KERNELS, PLAN_RECOMPUTE_MODES, fp8_weight_cache_bytes
from ..units import (
    DURATION_PLAIN_RANGE,
    DURATION_UNITS,
    ESTIMATE_SIGNIFICANT,
    MAX_PRINTED_PLACES,
    _duration_text,
    adding_up_places,
    bytes_to_gib,
    parts_adding_up,
)
from .calibration import (
    ATTENTION_KERNEL_NAMES,
    ATTENTION_KERNEL_RATES,
    ATTENTION_RELATIVE_RATE,
    CAUSAL_EXECUTED_SHARE,
    DENSE_THROUGHPUT_RATIOS,
    FLASH_ATTENTION_H100_SHORT_TFLOPS,
    MOE_LAYER_HOST_S,
    MOE_THROUGHPUT_RATIOS,
    PASS_THROUGHPUT_TOLERANCE,
    attention_relative_rate,
    fp8_share_for,
)
from .estimate import fp8_column_copy
from .gate_table import GATE_CODES
from .space import expert_tp_default, parse_degrees
from .specs import ClusterSpec, ModelSpec, WorkloadSpec

if TYPE_CHECKING:  # pragma: no cover - typing only; numpy is imported inside the search
    import numpy.typing as npt

    from ..serving import ServingCandidate
    from .ties import TieRow

register(
    {
        "planner.stages_line": {
            "zh": "  流水线 {pp} 段：首段 {first} 层、中间最多 {mid} 层、末段 {last} 层"
            "（首段含嵌入，末段含输出层与损失）",
            "en": "  Pipeline of {pp:@stage}: first {first:@layer}, middle up to {mid}, last {last} (the first holds "
            "the embedding, the last the output layer and loss)",
        },
        "planner.stages_line_two": {
            "zh": "  流水线 2 段：首段 {first} 层、末段 {last} 层（首段含嵌入，末段含输出层与损失）",
            "en": "  Pipeline of 2 stages: first {first:@layer}, last {last} (the first holds the embedding, the last "
            "the output layer and loss)",
        },
        "planner.ep_split_line": {
            "zh": "        其中节点内 {intra}、跨节点 {inter}（并行进行，取较慢者）",
            "en": "        of which intra-node {intra}, inter-node {inter} (concurrent; the slower counts)",
        },
        "planner.efficiency_line": {
            "zh": "  矩阵乘效率 {efficiency:.0%~} 峰值（每 GPU 矩阵乘的计算强度 {intensity:.0f} FLOP/字节，"
            "平滑屋顶线）",
            "en": "  Matmul efficiency {efficiency:.0%~} of peak (per-GPU matmul intensity {intensity:.0f} FLOP/byte, "
            "smooth roofline)",
        },
        "planner.efficiency_line_moe": {
            "zh": "  注意力与共享专家的矩阵乘效率 {efficiency:.0%~} 峰值（计算强度 {intensity:.0f} FLOP/字节，"
            "平滑屋顶线）",
            "en": "  Attention and shared-expert matmul efficiency {efficiency:.0%~} of peak (intensity "
            "{intensity:.0f} FLOP/byte, smooth roofline)",
        },
        "planner.expert_efficiency_line": {
            "zh": "  路由专家矩阵乘效率 {efficiency:.0%~} 峰值（每个本地专家乘 {rows:.0f} 行 token，"
            "计算强度 {intensity:.0f} FLOP/字节）；token 重排 (token permutation) 与还原 {permute}"
            "（按显存带宽计）；藏在计算下的全对全占用 {sms} 个 SM，计算因此多 {slowdown}",
            "en": "  Routed-expert matmul efficiency {efficiency:.0%~} of peak (each local expert multiplies "
            "{rows:.0f@token row}, intensity {intensity:.0f} FLOP/byte); token permutation and unpermutation "
            "{permute} (at memory bandwidth); the all-to-all hidden under compute holds {sms:@SM}, "
            "{slowdown} more compute",
        },
        "planner.ties_sorted": {
            "zh": "step_s 必须按从小到大排好序（并列组从最快的候选开始）。",
            "en": "step_s must be sorted ascending (a tie group starts at its fastest candidate).",
        },
        "planner.ties_why_header": {
            "zh": "并列组 1 为何分不出先后（{count} 个候选；下面是某个假设在其不确定度内变动就会成为最快的那些，"
            "每行：哪个假设、怎样测量来判断）：",
            "en": "Why tie group 1 is tied ({count:@candidate}; below, those that one assumption moved within its "
            "uncertainty makes the fastest; each row: which assumption, and what measurement decides):",
        },
        "planner.tie_header": {
            "zh": "并列组 {group}（估算相差不到 {uncertainty:.0%}，模型分不出先后）：{count} 个候选",
            "en": "Tie group {group} (estimates within {uncertainty:.0%}; the model cannot order them): "
            "{count:@candidate}",
        },
    }
)

# --------------------------------------------------------------------------- result objects


@dataclass(frozen=True)
class MemoryLedger:
    """One rank's memory (the heaviest pipeline stage), GiB, against the device.

    ``workspace_gib`` is the unit of weights ZeRO-3 gathers for the layer it computes. For serving
    candidates (:func:`coursekit.serving.serving_memory_ledger`'s numbers) ``params_gib`` holds the
    weights, ``activations_gib`` the KV cache and ``workspace_gib`` the activation workspace.
    ``total_gib`` sums every part with the reserve.
    """

    params_gib: float
    grads_gib: float
    optimizer_gib: float
    workspace_gib: float
    activations_gib: float
    reserve_gib: float
    total_gib: float
    device_gib: float

    @property
    def headroom_gib(self) -> float:
        """``device_gib - total_gib`` (negative: it does not fit)."""
        return self.device_gib - self.total_gib

    @property
    def fits(self) -> bool:
        """True when the total does not exceed the device (the fit gate's rule)."""
        return self.total_gib <= self.device_gib


@dataclass(frozen=True)
class CommRow:
    """One parallel dimension's communication per step for one rank.

    ``group_ranks`` ranks take part; ``link`` is ``"intra_node"`` or ``"inter_node"`` (see
    :func:`group_link`); ``payload_bytes`` is the buffers handed to the library per step
    (sum over calls), ``bus_bytes`` what crosses this rank's link; ``time_s`` is latency +
    transfer on that link (bandwidth unidirectional per GPU), from the planner's estimate. ``traffic``
    has the entries (:mod:`coursekit.communication`, the same kernels). For expert parallelism
    ``intra_node_s`` and ``inter_node_s`` are the all-to-all's two shares (they run concurrently, so
    ``time_s`` is the larger).
    """

    dimension: str
    group_ranks: int
    link: str
    calls: int
    payload_bytes: float
    bus_bytes: float
    time_s: float
    traffic: TrafficTime | None = None
    intra_node_s: float = 0.0
    inter_node_s: float = 0.0


@dataclass(frozen=True)
class PlanCandidate:
    """One composition, its verdict with reasons, and — when it is well formed — its ledgers and estimate.

    Degrees: ``tp``, ``pp``, ``dp``, ``cp``, ``ep``, ``virtual_stages``, ``zero_stage``,
    ``micro_batch``, ``grad_accum``, ``recompute`` and, for serving, ``replicas`` (then
    ``dp`` is 1). ``ranks`` = tp·cp·dp·pp·replicas. ``reasons`` holds one
    :class:`~coursekit.i18n.Reason` per failed check (codes of :data:`PLAN_GATES`);
    ``warnings`` holds non-excluding ones (``pp_balance``). ``memory``, ``communication``,
    ``timeline`` (a :class:`~coursekit.scaling.StepTimeline`) and ``bubble_fraction`` are
    ``None`` / empty for a malformed composition.

    A serving candidate carries ``serving``, the :class:`coursekit.serving.ServingCandidate` its numbers come
    from (:func:`coursekit.serving.plan_serving`'s evaluation): ``memory`` is its ledger (``activations_gib`` the
    KV cache), the timeline one decode step (TPOT), and ``tokens_per_s`` the serving estimate's output tokens/s of
    all replicas.
    """

    mode: str
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    virtual_stages: int
    zero_stage: int
    micro_batch: int
    grad_accum: int
    recompute: str
    replicas: int
    accepted: bool
    reasons: tuple[Reason, ...]
    warnings: tuple[Reason, ...]
    memory: MemoryLedger | None
    communication: tuple[CommRow, ...]
    bubble_fraction: float | None
    timeline: StepTimeline | None
    tokens_per_step: int
    model_flops_per_step: float
    world_size: int
    peak_flops: float
    efficiency: float | None = None
    intensity_flop_per_byte: float | None = None
    stage_layers: tuple[int, int, int] | None = None
    serving: ServingCandidate | None = None
    etp: int | None = None  # expert TP of a mixture of experts (Megatron-Core parallel folding); None: dense
    expert_efficiency: float | None = None  # share of peak of the routed experts' matmuls (MoE); None: dense
    expert_intensity_flop_per_byte: float | None = None
    expert_rows: float | None = None  # token rows one local expert multiplies per micro-batch
    permutation_s: float | None = None  # the slowest stage's token permutation and unpermutation per step
    ep_overlap_slowdown_s: float | None = None  # compute lost to the SMs a hidden EP all-to-all holds
    #: activation offloading (recompute "offload"): layers whose saved activations go to host memory, their GiB per
    #: GPU on the host, and the copies' seconds per step (all of them, and the part the compute does not hide)
    offloaded_layers: int | None = None
    host_offload_gib: float | None = None
    offload_copy_s: float | None = None
    offload_exposed_s: float | None = None

    @property
    def ranks(self) -> int:
        """Ranks this composition uses: the product of its degrees."""
        return self.tp * self.cp * self.dp * self.pp * self.replicas

    @property
    def codes(self) -> tuple[str, ...]:
        """Codes of the failed checks, in gate order."""
        return tuple(reason.code for reason in self.reasons)

    @property
    def step_s(self) -> float | None:
        """Estimated seconds per step (training) or per decode step (serving); None when malformed."""
        return None if self.timeline is None else self.timeline.step_s

    @property
    def tokens_per_s(self) -> float | None:
        """Estimated tokens per second of the whole cluster (serving: output tokens, prefill included in the time)."""
        if self.serving is not None:
            return float(self.serving.cluster_tokens_per_s)
        step = self.step_s
        return None if step is None or step <= 0 else self.tokens_per_step / step

    @property
    def estimated_mfu(self) -> float | None:
        """Model FLOP/s over peak, estimated: PaLM's 6·N + 12·L·h·s per trained token (appendix B), 2·N per served
        output token; N the active parameters a token multiplies through (:attr:`coursekit.specs.ModelSpec.
        matmul_params`: not an untied input embedding or learned positions, which are looked up)."""
        rate = self.tokens_per_s
        if rate is None or rate <= 0 or self.tokens_per_step <= 0:
            return None
        return self.model_flops_per_step / self.tokens_per_step * rate / (self.ranks * self.peak_flops)

    def degrees(self) -> dict[str, Any]:
        """The degrees as a dict with :data:`DEGREE_KEYS` names."""
        if self.mode == "serving":
            return {"replicas": self.replicas, "tp": self.tp, "pp": self.pp}
        return {
            "tp": self.tp,
            "pp": self.pp,
            "dp": self.dp,
            "cp": self.cp,
            "ep": self.ep,
            **({"etp": self.etp} if self.etp is not None else {}),
            "v": self.virtual_stages,
            "zero": self.zero_stage,
            "mb": self.micro_batch,
            "ga": self.grad_accum,
            "recompute": self.recompute,
        }

    def label(self) -> str:
        """``tp=8,pp=4,dp=4,...`` — the form :func:`parse_degrees` reads back."""
        return ",".join(f"{key}={value}" for key, value in self.degrees().items())

    def explain(self) -> str:
        """The verdict, reasons, ledgers and estimate as text in the current language."""
        lines = [
            tr(
                "planner.candidate_line",
                status=tr(f"planner.{'accepted' if self.accepted else 'rejected'}"),
                label=self.label(),
            )
        ]
        if self.reasons:
            lines.append(tr("planner.reasons"))
            lines.extend(f"    [{reason.code}] {reason.message}" for reason in self.reasons)
        if self.warnings:
            lines.append(tr("planner.warnings"))
            lines.extend(f"    [{reason.code}] {reason.message}" for reason in self.warnings)
        if self.serving is not None:
            from ..serving import candidate_lines  # the serving search's own wording of its estimate

            lines.extend(candidate_lines(self.serving))
            return "\n".join(lines)
        if self.memory is None:
            lines.append(tr("planner.no_ledger"))
            return "\n".join(lines)
        lines.extend(self._memory_lines(self.memory))
        lines.extend(self._communication_lines())
        lines.extend(self._estimate_lines())
        return "\n".join(lines)

    def _memory_lines(self, mem: MemoryLedger) -> list[str]:
        """The memory ledger ``mem``'s line and, with a pipeline, the stage layers' line."""
        lines: list[str] = []
        act_label = tr("planner.kv_label" if self.mode == "serving" else "planner.act_label")
        # the six parts as printed add up to the printed total: 2 places, or 3 where 2 do not (each rounded to 2
        # places on its own, 44 of 110 candidates' lines were 0.01 GiB off)
        parts = (mem.params_gib, mem.grads_gib, mem.optimizer_gib, mem.workspace_gib, mem.activations_gib)
        places = adding_up_places((*parts, mem.reserve_gib), 2, 3)
        shown = parts_adding_up((*parts, mem.reserve_gib), places)
        lines.append(
            tr(
                "planner.memory_line",
                **dict(
                    zip(("params", "grads", "optimizer", "workspace", "activations", "reserve"), shown, strict=True)
                ),
                act_label=act_label,
                total=f"{sum((*parts, mem.reserve_gib)):.{places}f}",
                device=mem.device_gib,
            )
        )
        if self.offloaded_layers:
            lines.append(
                tr(
                    "planner.offload_line",
                    layers=self.offloaded_layers,
                    host_gib=self.host_offload_gib or 0.0,
                    copy=_duration_text(self.offload_copy_s or 0.0),
                    exposed=_duration_text(self.offload_exposed_s or 0.0),
                )
            )
        if self.stage_layers is not None and self.pp > 1:
            first, mid, last = self.stage_layers
            key = "planner.stages_line" if self.pp > 2 else "planner.stages_line_two"  # two stages have no middle
            lines.append(tr(key, pp=self.pp, first=first, mid=mid, last=last))
        return lines

    def _communication_lines(self) -> list[str]:
        """One line per communication dimension (EP also split by link tier)."""
        lines: list[str] = []
        if self.communication:
            lines.append(tr("planner.comm_header"))
            for row in self.communication:
                lines.append(
                    tr(
                        "planner.comm_line",
                        dim=row.dimension,
                        ranks=row.group_ranks,
                        link=tr(f"planner.link_{row.link}"),
                        calls=row.calls,
                        payload_gib=bytes_to_gib(row.payload_bytes),
                        time=_duration_text(row.time_s),
                    )
                )
                if row.dimension == "EP" and row.inter_node_s > 0:
                    lines.append(
                        tr(
                            "planner.ep_split_line",
                            intra=_duration_text(row.intra_node_s),
                            inter=_duration_text(row.inter_node_s),
                        )
                    )
        return lines

    def _estimate_lines(self) -> list[str]:
        """The efficiency, step-time and throughput lines of the estimate."""
        lines: list[str] = []
        if self.efficiency is not None:
            lines.append(
                tr(
                    "planner.efficiency_line" if self.expert_efficiency is None else "planner.efficiency_line_moe",
                    efficiency=self.efficiency,
                    intensity=self.intensity_flop_per_byte or 0.0,
                )
            )
        if self.expert_efficiency is not None:
            lines.append(
                tr(
                    "planner.expert_efficiency_line",
                    efficiency=self.expert_efficiency,
                    rows=self.expert_rows or 0.0,
                    intensity=self.expert_intensity_flop_per_byte or 0.0,
                    permute=_duration_text(self.permutation_s or 0.0),
                    sms=EP_ALL_TO_ALL_SMS,
                    slowdown=_duration_text(self.ep_overlap_slowdown_s or 0.0),
                )
            )
        if self.timeline is not None:
            t = self.timeline
            waits = t.host_wait_s > 0
            shown = step_line_parts(t)
            lines.append(
                tr(
                    "planner.step_line",
                    unit=shown["unit"],
                    step_s=shown["step_s"],
                    compute_s=shown["compute_s"],
                    exposed_s=shown["exposed_s"],
                    bubble_s=shown["bubble_s"],
                    comm_s=shown["comm_s"],
                    hidden_s=shown["hidden_s"],
                    bubble=self.bubble_fraction or 0.0,
                    host=tr("planner.step_host", host_s=shown["host_s"]) if waits else "",
                    host_note=tr("planner.step_host_note") if waits else "",
                )
            )
            lines.append(
                tr("planner.throughput_line", tokens_per_s=self.tokens_per_s or 0.0, mfu=self.estimated_mfu or 0.0)
            )
        return lines

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: degrees, verdict, reasons (code and message), ledgers and estimate."""
        out: dict[str, Any] = {
            "mode": self.mode,
            "degrees": self.degrees(),
            "ranks": self.ranks,
            "accepted": self.accepted,
            "reasons": [{"code": r.code, "message": r.message} for r in self.reasons],
            "warnings": [{"code": r.code, "message": r.message} for r in self.warnings],
            "memory_gib": None,
            "communication": [],
            "bubble_fraction": self.bubble_fraction,
            "estimate": None,
        }
        if self.memory is not None:
            out["memory_gib"] = {
                "params": self.memory.params_gib,
                "grads": self.memory.grads_gib,
                "optimizer": self.memory.optimizer_gib,
                "workspace": self.memory.workspace_gib,
                "activations" if self.mode == "training" else "kv_cache": self.memory.activations_gib,
                "reserve": self.memory.reserve_gib,
                "total": self.memory.total_gib,
                "device": self.memory.device_gib,
            }
        out["communication"] = [
            {
                "dimension": row.dimension,
                "group_ranks": row.group_ranks,
                "link": row.link,
                "calls": row.calls,
                "payload_bytes": row.payload_bytes,
                "bus_bytes": row.bus_bytes,
                "time_s": row.time_s,
            }
            for row in self.communication
        ]
        if self.timeline is not None:
            t = self.timeline
            out["estimate"] = {
                "step_s": t.step_s,
                "compute_s": t.compute_s,
                "communication_s": t.communication_s,
                "exposed_communication_s": t.exposed_communication_s,
                "hidden_communication_s": t.hidden_communication_s,
                "bubble_s": t.bubble_s,
                "tokens_per_s": self.tokens_per_s,
                "estimated_mfu": self.estimated_mfu,
                "matmul_efficiency": self.efficiency,
            }
            if self.expert_efficiency is not None:
                out["estimate"]["expert_matmul_efficiency"] = self.expert_efficiency
                out["estimate"]["expert_rows"] = self.expert_rows
                out["estimate"]["token_permutation_s"] = self.permutation_s
                out["estimate"]["ep_overlap_slowdown_s"] = self.ep_overlap_slowdown_s
                out["estimate"]["host_wait_s"] = t.host_wait_s
            if self.offloaded_layers:
                out["estimate"]["offloaded_layers"] = self.offloaded_layers
                out["estimate"]["host_offload_gib"] = self.host_offload_gib
                out["estimate"]["offload_copy_s"] = self.offload_copy_s
                out["estimate"]["offload_exposed_s"] = self.offload_exposed_s
        if self.serving is not None and self.serving.estimate is not None:
            # The serving search's own fields (time_to_first_token_s, time_per_output_token_s, tokens_per_s per
            # replica, ...), as ``python -m coursekit plan --mode serving --json`` prints them.
            serving = self.serving.to_dict()
            out["estimate"].update(serving["estimate"])
            out["ledger"] = serving["ledger"]
            out["concurrency_per_replica"] = serving["concurrency_per_replica"]
        return out


register(
    {
        "planner.layout_header": {"zh": "你的布局 {degrees}：", "en": "Your layout {degrees}:"},
        "planner.layout_variants": {
            "zh": "  搜索空间里有 {variants} 个组合具有这些并行度（没写出的 CP、EP 取 1，{etp_rule}；"
            "DP、交错段数、ZeRO 阶段、微批次和重计算取任意值），其中 {accepted} 个通过全部门槛。",
            "en": "  The searched space holds {variants:@composition} with these degrees (CP and EP not given are 1, "
            "{etp_rule}; DP, interleaving, ZeRO stage, micro-batch and recomputation take any value); "
            "{accepted} of them pass every gate.",
        },
        "planner.layout_rank": {
            "zh": "  通过门槛的变体中估算最快的是 {label}：在 {count} 个通过门槛的候选中排第 {rank}，属于并列组 {group}"
            "（组内的估算相差不到 {uncertainty:.0%}，模型分不出先后）；{measure}是最快候选 {best} 的 {ratio:.3f} 倍"
            "（估算，不是测量）。",
            "en": "  The fastest accepted variant by the estimate is {label}: rank {rank} of {count} accepted, in tie "
            "group {group} (estimates within {uncertainty:.0%}; the model cannot order them); its {measure} is "
            "{ratio:.3f}x that of the fastest, {best} (estimated, not measured).",
        },
        "planner.layout_tie_row": {"zh": "  在它的并列组里：{row}", "en": "  Within its tie group: {row}"},
        "planner.layout_measure_training": {"zh": "估算步时", "en": "estimated step time"},
        "planner.layout_measure_serving": {
            "zh": "每个输出 token 花的 GPU 秒数",
            "en": "cost in GPU-seconds per output token",
        },
        "planner.layout_rejected": {
            "zh": "  没有一个变体通过门槛。各变体最先未通过的门槛：{counts}。最接近通过的变体（通过的门槛最多，"
            "其中显存最少）：",
            "en": "  No variant passes every gate. The gate each variant fails first: {counts}. The variant that comes "
            "closest (the most gates passed; of those, the least memory):",
        },
        "planner.layout_etp_fold": {
            "zh": "  专家张量并行 (ETP) 没有给出。Megatron-Core 的默认 ETP = TP = {tp} 下，这些并行度的每个变体都未通过"
            " ep_fold 门槛（专家网格 ETP × EP × PP 不能整除 rank 数），这样的训练无法启动；所以按 etp=1"
            "（Megatron-Bridge 等 MoE 配方常用的设置，厂商表格不印 ETP 这一栏）检查。",
            "en": "  Expert tensor parallelism (ETP) was not given. With Megatron-Core's default ETP = TP = {tp} every "
            "variant of these degrees fails the ep_fold gate (the expert grid ETP × EP × PP does not divide the "
            "ranks), so no such run could start; the layout is checked with etp=1 instead (what many MoE recipes, "
            "Megatron-Bridge's among them, set; vendor tables print no ETP column).",
        },
        "planner.layout_per_gpu": {
            "zh": "  按每张 GPU 计（估算，不是测量）：每秒 {tokens:,.0f} 个 token，{tflops:,.0f} 模型 TFLOP/s"
            "（上面利用率所用的模型 FLOPs）。厂商表格里“每 GPU 每秒 token 数”和“每 GPU 模型 TFLOP/s”两栏就是这两个"
            "单位；表格的 FLOPs 计数可能和这里不同，每 GPU 每秒 token 数可以直接比较。",
            "en": "  Per GPU (estimated, not measured): {tokens:,.0f} tokens/s, {tflops:,.0f} model TFLOP/s (the model "
            "FLOPs of the utilisation above). These are the units of vendor tables' tokens/s/GPU and model "
            "TFLOP/s/GPU columns; a table may count FLOPs differently, tokens/s/GPU compares directly.",
        },
        "planner.layout_outside_ranks": {
            "zh": "  {key} = {value} 不在搜索空间里：{product} 要等于集群的 {world} 个 rank，"
            "所以 {key} 必须整除 {world}（搜索的 {key} 取值：{values}）。",
            "en": "  {key} = {value} is not in the searched space: {product} equals the cluster's {world:@rank}, so "
            "{key} must divide {world} (the search tries {key} {values}).",
        },
        "planner.layout_outside_experts": {
            "zh": "  ep = {value} 不在搜索空间里：专家并行 (EP) 必须整除 {model} 的 {experts} 个专家（搜索的 ep 取值："
            "{values}）。",
            "en": "  ep = {value} is not in the searched space: expert parallelism (EP) must divide {model}'s "
            "{experts:@expert} (the search tries ep {values}).",
        },
        "planner.layout_outside_dense": {
            "zh": "  ep = {value} 不在搜索空间里：{model} 是稠密模型，没有专家可分，专家并行 (EP) 只能是 1。",
            "en": "  ep = {value} is not in the searched space: {model} is a dense model with no experts to split, so "
            "expert parallelism (EP) is 1.",
        },
        "planner.layout_outside_batch": {
            "zh": "  {key} = {value} 不在搜索空间里：dp × 微批次 (mb) × 梯度累积 (ga) 等于全局批大小 {batch}，"
            "所以 mb 必须整除 {batch}，ga = {batch} / (dp × mb)（搜索的 {key} 取值：{values}）。",
            "en": "  {key} = {value} is not in the searched space: dp × micro-batch (mb) × gradient accumulation (ga) "
            "equals the global batch {batch}, so mb must divide {batch} and ga is {batch} / (dp × mb) (the search "
            "tries {key} {values}).",
        },
        "planner.layout_outside_bound": {
            "zh": "  {key} = {value} 不在搜索空间里（搜索的 {key} 取值：{values}）。",
            "en": "  {key} = {value} is not in the searched space (the search tries {key} {values}).",
        },
        "planner.layout_outside": {
            "zh": "  搜索空间里没有具有这些并行度的组合（搜索空间：{space}）。用 --explain 查看这个组合本身，"
            "或放宽搜索（例如 --max-virtual-stages、--max-micro-batch、--zero、--recompute）。",
            "en": "  The searched space holds no composition with these degrees (space: {space}). Use --explain for "
            "the composition itself, or widen the search (e.g. --max-virtual-stages, --max-micro-batch, --zero, "
            "--recompute).",
        },
    }
)


@dataclass(frozen=True)
class LayoutCheck:
    """What the workbench says of one layout (:meth:`PlanResult.check_layout`): a published or planned layout given
    by some degrees, the others left free.

    * ``degrees``: the degrees given; ``variants``: the searched compositions that have them (any value of the
      degrees not given); ``accepted_variants``: those of them that pass every gate;
    * ``index``, ``rank``, ``tie_group``: the fastest accepted variant by the estimate (space index; position among
      all ``accepted_count`` accepted candidates, 1-based; tie group, 1-based), ``None`` when no variant passes;
    * ``over_best``: its estimated step time (serving: GPU-seconds per output token) over the fastest candidate's;
    * ``candidate``: that variant, or when none passes the one that comes closest (the latest first failing gate;
      of those, the least memory); ``None`` when no searched composition has the degrees;
    * ``first_failures``: for the rejected variants, how many fail each gate first (gate order);
    * ``best``: the fastest accepted candidate of the whole search (``None`` when none passes).

    Taught in: lesson 9 (decision workbench).
    """

    degrees: dict[str, Any]
    variants: int
    accepted_variants: int
    accepted_count: int
    index: int | None
    rank: int | None
    tie_group: int | None
    over_best: float | None
    candidate: PlanCandidate | None
    first_failures: dict[str, int]
    best: PlanCandidate | None
    mode: str = "training"
    uncertainty: float = 0.0
    space: str = ""
    #: Training: the variant's row of :meth:`PlanResult.explain_ties` for its tie group (``every_member=True``): the
    #: group's fastest, or the assumption that lets it catch up and the measurement that decides.
    tie_row: TieRow | None = None
    #: When no searched composition has the degrees because they do not use the cluster's ranks exactly (all of
    #: tp, pp and dp given; serving: replicas, tp and pp): the ``ranks`` gate's reason, which says so.
    ranks_reason: Reason | None = None
    #: Training, an MoE model, expert TP not given: the default ETP (= TP) when every variant with it failed the
    #: ``ep_fold`` gate (a grid no engine starts), so the check took ``etp=1``; ``None`` when the default was kept.
    etp_from_fold: int | None = None
    #: When no searched composition has the degrees: for each degree whose value the search never tries, why (a
    #: ``Reason`` whose code is ``"ranks"``, ``"experts"`` or ``"batch"`` when the value cannot fill the cluster, split
    #: the experts or the batch, ``"bound"`` when only the search's own bounds leave it out).
    outside: tuple[Reason, ...] = ()

    @property
    def accepted(self) -> bool:
        """Whether some variant of the layout passes every gate."""
        return self.index is not None

    def report(self) -> str:
        """The check as text (current language), with the variant's breakdown."""
        lines = [tr("planner.layout_header", degrees=",".join(f"{key}={value}" for key, value in self.degrees.items()))]
        if self.variants == 0:
            if self.ranks_reason is not None:
                lines.append(f"  {self.ranks_reason.render()}")
            lines.extend(reason.render() for reason in self.outside)
            if all(reason.code == "bound" for reason in self.outside):  # widening the search can reach it
                lines.append(tr("planner.layout_outside", space=self.space))
            return "\n".join(lines)
        if self.etp_from_fold is not None:
            lines.append(tr("planner.layout_etp_fold", tp=self.etp_from_fold))
        etp_rule = (
            Text(zh="专家 TP 取 TP", en="expert TP is TP")
            if self.etp_from_fold is None
            else Text(zh="专家 TP 取 1（见上）", en="expert TP is 1 (see above)")
        )
        lines.append(
            tr("planner.layout_variants", variants=self.variants, accepted=self.accepted_variants, etp_rule=etp_rule)
        )
        assert self.candidate is not None
        if self.accepted:
            assert self.best is not None
            lines.append(
                tr(
                    "planner.layout_rank",
                    label=self.candidate.label(),
                    rank=self.rank,
                    count=self.accepted_count,
                    group=self.tie_group,
                    uncertainty=self.uncertainty,
                    measure=tr(f"planner.layout_measure_{self.mode}"),
                    ratio=self.over_best,
                    best=self.best.label(),
                )
            )
        else:
            separator = Text(zh="、", en=", ").render()
            counts = separator.join(f"{code} {count}" for code, count in self.first_failures.items())
            lines.append(tr("planner.layout_rejected", counts=counts))
        if self.tie_row is not None:
            lines.append(tr("planner.layout_tie_row", row=self.tie_row.message))
        lines.append(self.candidate.explain())
        per_gpu = self.per_gpu()
        if per_gpu is not None:
            lines.append(tr("planner.layout_per_gpu", tokens=per_gpu[0], tflops=per_gpu[1]))
        return "\n".join(lines)

    def per_gpu(self) -> tuple[float, float] | None:
        """Training, when a variant passes: its estimated tokens per GPU-second and model TFLOP/s per GPU (the model
        FLOPs of its utilisation), the units of vendor tables' columns; ``None`` otherwise."""
        cand = self.candidate
        if not self.accepted or self.mode != "training" or cand is None or not cand.step_s or not cand.ranks:
            return None
        return (
            cand.tokens_per_step / cand.step_s / cand.ranks,
            cand.model_flops_per_step / cand.step_s / cand.ranks / 1e12,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the fields, the variant as :meth:`PlanCandidate.to_dict` and the best as its degrees;
        ``per_gpu`` the variant's :meth:`per_gpu` (tokens/s and model TFLOP/s per GPU, or ``None``)."""
        per_gpu = self.per_gpu()
        return {
            "degrees": dict(self.degrees),
            "variants": self.variants,
            "accepted_variants": self.accepted_variants,
            "accepted_count": self.accepted_count,
            "accepted": self.accepted,
            "index": self.index,
            "rank": self.rank,
            "tie_group": self.tie_group,
            "over_best": self.over_best,
            "first_failures": dict(self.first_failures),
            "tie_row": None
            if self.tie_row is None
            else {"assumption": self.tie_row.assumption, "scenarios": list(self.tie_row.scenarios)},
            "candidate": None if self.candidate is None else self.candidate.to_dict(),
            "best": None if self.best is None else self.best.label(),
            "per_gpu": None if per_gpu is None else {"tokens_per_s": per_gpu[0], "model_tflops": per_gpu[1]},
            "etp_from_fold": self.etp_from_fold,
            "outside": [{"code": reason.code, "message": reason.render().strip()} for reason in self.outside],
            "estimate": "estimated, not measured",
        }


@dataclass(frozen=True)
class FunnelStep:
    """One gate of the funnel: how many candidates it removed first, and how many remain after it."""

    code: str
    description: Text
    removed: int
    remaining: int


@dataclass(frozen=True)
class Assumptions:
    """What the estimate rests on; every accepted candidate's step time is conditional on these."""

    peak_flops: float
    achievable_flops_fraction: float | None
    overlap_fraction: float | None
    recipe: str
    runtime_reserve_gib: float
    sequence_parallel: bool
    intra_node_bandwidth_bytes_per_s: float
    inter_node_bandwidth_bytes_per_s: float
    intra_node_latency_s: float
    inter_node_latency_s: float
    memory_bandwidth_bytes_per_s: float
    notes: tuple[Text, ...] = ()
    overlap: tuple[tuple[str, float], ...] = ()
    efficiency_calibration: str = ""
    uncertainty: float = 0.0
    #: The notes of ``notes`` about this model and workload (a sequence longer than a learned position table), apart
    #: from the method's notes every estimate carries (:data:`ESTIMATE_NOTES`, the serving search's assumptions).
    workload_notes: tuple[Text, ...] = ()


#: FlashAttention-3's rate at 1K tokens (its shortest bar the estimate uses), quoted by the notes.
_RATE_1K: float = attention_relative_rate(FLASH_ATTENTION_H100_SHORT_TFLOPS[:1])

#: The modelling choices behind every estimate, shown with the results.
#: The degree keys of a training composition that a serving plan's layouts do not have (:meth:`PlanResult.check_layout`
#: refuses them; ``etp`` has its own message).
_TRAINING_ONLY_KEYS: tuple[str, ...] = ("dp", "cp", "ep", "v", "zero", "ga", "recompute")
#: Decimal places of the step line's seconds where they add up as printed (each part rounded on its own, 46 of 140
#: lines were 0.001 s off their printed sum); :func:`step_line_parts` takes more where they do not.
STEP_LINE_PLACES: int = 3
#: The most significant figures the step line gives its step (its largest number): an absurd cluster's 28256 s step
#: next to microseconds of communication printed 12 (28256.3477420), and a part too small for the line's places reads
#: "<0.1", never 0.0. It was 6 (28256.3 s, and 64.224 s for lesson 9's 64 s step); an estimate good to about +-20 %
#: shows :data:`coursekit.units.ESTIMATE_SIGNIFICANT` (3: 64.2 s; every digit left of the point kept, 28256 s).
STEP_LINE_SIGNIFICANT: int = ESTIMATE_SIGNIFICANT
#: The step line's seconds range: a step outside it is written in the unit of :data:`coursekit.units.DURATION_UNITS`
#: it is largest in (a 1e6-TFLOP/s cluster's 68 µs step as 68.220 µs, not 0.000068 s; a 0.001-TFLOP/s one's
#: 63,882,919 s as 739 days).
STEP_LINE_SECONDS: tuple[float, float] = (1e-3, 1e5)


def _shows_digit(value: float, places: int) -> bool:
    """Whether ``value`` printed to ``places`` decimals shows it is nonzero (a zero needs no digit, nor a value no
    printable places show: below half of 10**-MAX_PRINTED_PLACES, rounding noise such as 1e-17 s)."""
    invisible = abs(value) < 0.5 * 10.0**-MAX_PRINTED_PLACES
    return invisible or any(ch in "123456789" for ch in f"{value:.{places}f}")


def step_line_parts(timeline: StepTimeline) -> dict[str, str]:
    """The seconds of ``plan --explain``'s step line, printed so that its sums add up as printed: step = compute +
    exposed communication + bubble (+ host wait), and communication = exposed + hidden.

    The unit is seconds, or for a step outside :data:`STEP_LINE_SECONDS` the unit of
    :data:`coursekit.units.DURATION_UNITS` it is largest in (``shown["unit"]``). The places are
    :data:`STEP_LINE_PLACES`, or as many more as it takes for no nonzero value to read as zero, or one more where that
    makes the sums add up with each part rounded on its own: both sums, else the step's (then the hidden part is
    printed as the communication less the exposed part, at most one unit of the last place from its own rounding);
    never so many that the step has more than :data:`STEP_LINE_SIGNIFICANT` significant figures (the estimate's 3
    since leftovers 28: no places for a step of 100 s or more, whose every digit left of the point is kept). A nonzero
    value too small for the places reads "<0.1" (one unit of the last place), never 0.0, unless the sum moved it up
    one unit. Where the step's parts do not add up, they move by at most one unit of the last place
    (:func:`coursekit.units.parts_adding_up`). The step is printed as the sum of its printed parts. A timeline here
    has no input wait or load imbalance (the search sets both to 0); one that has is refused.

    >>> from coursekit.scaling import StepTimeline
    >>> t = StepTimeline(compute_s=1.0004, communication_s=0.5, exposed_communication_s=0.2004,
    ...                  hidden_communication_s=0.2996, bubble_s=0.1004, input_wait_s=0.0, step_s=1.3012)
    >>> shown = step_line_parts(t)  # 3 significant figures: 1.00 + 0.20 + 0.10 = 1.30
    >>> shown["step_s"], shown["compute_s"], shown["exposed_s"], shown["bubble_s"], shown["comm_s"], shown["hidden_s"]
    ('1.30', '1.00', '0.20', '0.10', '0.50', '0.30')
    """
    check_instance("timeline", timeline, StepTimeline)
    check_number("timeline.input_wait_s", timeline.input_wait_s, ge=0, le=0)
    check_number("timeline.load_imbalance_s", timeline.load_imbalance_s, ge=0, le=0)
    host = check_number("timeline.host_wait_s", timeline.host_wait_s, ge=0)
    seconds = (timeline.compute_s, timeline.exposed_communication_s, timeline.bubble_s, host)
    total_s = timeline.compute_s + timeline.exposed_communication_s + timeline.bubble_s + host
    unit, per_unit = "s", 1.0
    if total_s > 0 and not STEP_LINE_SECONDS[0] <= total_s < STEP_LINE_SECONDS[1]:
        name, per_unit, _ = next(u for u in DURATION_UNITS if total_s >= u[2] and u[1] != 1.0)
        unit = name.render()
    compute, exposed, bubble, host = (x / per_unit for x in seconds)
    hidden = timeline.hidden_communication_s / per_unit
    # past DURATION_PLAIN_RANGE in the largest unit (an absurd model's 577769999703 days, fuzz pass 26): every number
    # of the line in the step's power of ten, printed as duration_text writes such a time (2.87e+06 days)
    exponent = 0
    if total_s / per_unit >= DURATION_PLAIN_RANGE[1]:
        exponent = math.floor(math.log10(total_s / per_unit))
        compute, exposed, bubble, host, hidden = (x / 10.0**exponent for x in (compute, exposed, bubble, host, hidden))
    step_parts = (compute, exposed, bubble, *((host,) if host > 0 else ()))
    comm_parts = (exposed, hidden)
    values = (*step_parts, hidden, sum(step_parts), sum(comm_parts))
    magnitude = math.floor(math.log10(sum(step_parts))) if sum(step_parts) > 0 else 0
    most = min(MAX_PRINTED_PLACES, max(0, STEP_LINE_SIGNIFICANT - 1 - magnitude))
    low = min(STEP_LINE_PLACES, most)
    while low < most and not all(_shows_digit(value, low) for value in values):
        low += 1
    tried = range(low, min(low + 1, most) + 1)
    places = next(
        (p for p in tried if _adds_up_alone(step_parts, p) and _adds_up_alone(comm_parts, p)),
        next((p for p in tried if _adds_up_alone(step_parts, p)), tried[-1]),
    )
    parts = parts_adding_up(step_parts, places)
    # the communication as rounded, the hidden part what is left of it after the exposed part as printed
    comm_shown = Decimal(f"{sum(comm_parts):.{places}f}")
    hidden_shown = max(comm_shown - Decimal(parts[1]), Decimal(0).quantize(comm_shown))
    comm_shown = Decimal(parts[1]) + hidden_shown
    step_shown = sum(Decimal(part) for part in parts)
    shown = {
        "step_s": f"{step_shown:.{places}f}",  # fixed-point, never "0E-12"
        "compute_s": parts[0],
        "exposed_s": parts[1],
        "bubble_s": parts[2],
        "host_s": parts[3] if host > 0 else f"{0.0:.{places}f}",
        "comm_s": f"{comm_shown:.{places}f}",
        "hidden_s": f"{hidden_shown:.{places}f}",
    }
    below = "<" + f"{Decimal(1).scaleb(-places):f}"  # "<0.1" at one place, "<1" at none
    values_by_key = {"compute_s": compute, "exposed_s": exposed, "bubble_s": bubble, "host_s": host,
                     "hidden_s": hidden, "comm_s": exposed + hidden}  # fmt: skip
    for key, value in values_by_key.items():
        # nonzero, but too small for the line's places, and printed as zero: a part the sum moved up one unit (0.04
        # printed 0.1 so that 62.1 + 0.8 + 0.1 = 63.0) keeps its digit, so the line still adds up as printed
        if not _shows_digit(value, places) and Decimal(shown[key]) == 0:
            shown[key] = below
    if exponent:
        shown = {key: _with_exponent(text, exponent) for key, text in shown.items()}
    return {**shown, "unit": unit}


def _with_exponent(text: str, exponent: int) -> str:
    """A number of the step line printed in units of ``10**exponent`` written in e-notation: ``2.87`` at 6 as
    ``2.87e+06``, ``<0.01`` as ``<0.01e+06``, a zero as ``0``."""
    if not text.startswith("<") and Decimal(text) == 0:
        return "0"
    return f"{text}e{exponent:+03d}"


def _adds_up_alone(parts: tuple[float, ...], places: int) -> bool:
    """Whether ``parts``, each rounded on its own to ``places``, add up to their sum rounded the same way."""
    return sum(Decimal(f"{x:.{places}f}") for x in parts) == Decimal(f"{sum(parts):.{places}f}")


#: Rows of accepted candidates the tie scenarios estimate in one pass (:meth:`PlanResult._scenario_steps`): a pass
#: holds about 3.5 KB of intermediate arrays per row, so a search of a million accepted candidates estimated at once
#: peaked over 3 GB; in blocks of this many rows the pass holds about 115 MB, with the same step times.
SCENARIO_BLOCK_ROWS = 32768

ESTIMATE_NOTES: tuple[Text, ...] = (
    Text(
        zh="计算 = 最慢流水线阶段的执行 FLOPs / (该阶段 rank 数·峰值·矩阵乘效率)。模型 FLOPs 按 PaLM 附录 B："
        "6·N + 12·L·h·s 每 token（N 是一个 token 经过矩阵乘的激活参数，不含只查表的输入嵌入与位置表；"
        "含注意力的两个矩阵乘，不按因果减半）；选择性重计算加 4·L·h·s，"
        f"完全重计算再加各层的 2·N。用融合注意力时，因果核只算一部分查询-键对（{CAUSAL_EXECUTED_SHARE:g}），"
        f"在 4K 到 16K 个 token 的序列上速度约是最佳矩阵乘的 {ATTENTION_RELATIVE_RATE:.3f}"
        f"（FlashAttention-3 在 H100 上的实测），所以注意力核心每计一个 FLOP 约花 "
        f"{CAUSAL_EXECUTED_SHARE / ATTENTION_RELATIVE_RATE:.2f} 个线性层 FLOP 的时间；序列越短越慢"
        f"（同一组实测，1K 时 {_RATE_1K:.2f}），每次调用只跑一个 rank 的 s/cp 个 token。"
        "首/末阶段算嵌入与输出层，可以少放几层（参数 `pipeline_edge_layers`；"
        "只设末阶段用 `pipeline_last_edge_layers`）；带多 token 预测 (multi-token prediction, MTP) 模块的模型"
        "两者都不设时，首阶段不让，末阶段为损失和每个 MTP 模块让出 1 + 2·模块数 层"
        "（一个模块即 3 层，与 Megatron-Bridge 对 DeepSeek-V3 的切分相同）。",
        en="Compute = the slowest pipeline stage's executed FLOPs / (its ranks·peak·matmul efficiency). Model "
        "FLOPs follow PaLM appendix B: 6·N + 12·L·h·s per token (N: the active parameters a token multiplies "
        "through, not the input embedding or position tables it only looks up in; attention's two matmuls, not "
        "halved for causality); selective recompute adds 4·L·h·s, full recompute also the layers' 2·N. With flash "
        f"attention the causal kernel computes a share of the query-key pairs ({CAUSAL_EXECUTED_SHARE:g}) at "
        f"about {ATTENTION_RELATIVE_RATE:.3f} of the best matmul's speed on sequences of 4K to 16K tokens "
        f"(FlashAttention-3 measured on H100), so each counted FLOP of attention's core takes about "
        f"{CAUSAL_EXECUTED_SHARE / ATTENTION_RELATIVE_RATE:.2f} of a linear layer's FLOP; shorter sequences run slower "
        f"({_RATE_1K:.2f} at 1K tokens in the same figures), and each call runs over one rank's s/cp "
        "tokens. The first and last stages carry the embedding and the output layer and may hold fewer "
        "layers (pipeline_edge_layers; the last stage's alone: pipeline_last_edge_layers); a model with multi-token "
        "prediction (MTP) modules and neither set gives up none on the first stage and 1 + 2·modules on the last, "
        "for the loss and each MTP module (3 for one module, as Megatron-Bridge splits DeepSeek-V3).",
    ),
    Text(
        zh="矩阵乘效率：每个 GPU 的矩阵乘是 (mb·s/cp) 个 token 乘以 h/tp 宽（h 为隐藏维度）的权重分片；"
        "其计算强度放到平滑屋顶线 (roofline) 上得到峰值占比。天花板 = Megatron-LM 表 1（A100）上标定的整步份额 × "
        "该 GPU 实测的最佳矩阵乘占峰值之比（A100 85.9%，H100 80.1%；其他 GPU 按峰值的对数在两者之间插值，"
        "超出范围取较近的一个：这是假设，不是实测）。MoE 的每个路由专家按自己的形状算："
        "ep·(token 数·etp/tp)·top_k·c/专家数 行乘以 h × 专家宽度/etp 的分片（路由按均衡计；c 是容量因子，"
        "专家输入补齐到容量，没有容量因子时为 1）；"
        f"token 重排与还原按显存带宽计时；藏在计算下的 EP 全对全占用 {EP_ALL_TO_ALL_SMS} 个流式多处理器 "
        f"(streaming multiprocessor, SM)（共 {H100_SMS} 个），"
        "计算相应变慢。",
        en="Matmul efficiency: each GPU multiplies (mb·s/cp) tokens by weight shards hidden/tp wide; their "
        "arithmetic intensity on a smooth roofline gives the share of peak. The ceiling is the step share fitted on "
        "Megatron-LM Table 1 (A100) times the GPU's measured best-matmul share of peak (A100 85.9 %, H100 80.1 %; "
        "another GPU's share is interpolated in log(peak) between them, the nearer one's outside them: an "
        "assumption, not a measurement); each routed expert of an MoE multiplies its own shape: "
        "ep·(tokens·etp/tp)·top_k·c/experts rows by hidden × expert width/etp shards (routing taken as balanced; c is "
        "the capacity factor, to which the experts' inputs are padded, 1 without one); token permutation and "
        "unpermutation are timed at memory bandwidth; an EP all-to-all hidden under compute holds "
        f"{EP_ALL_TO_ALL_SMS} SMs (of {H100_SMS}) and slows the compute by that share.",
    ),
    Text(
        zh="通信 = 各维度在其链路上按环形算法 (ring) 的 α-β 模型（时延 + 字节数/带宽）算出的时间之和"
        "（组留在节点内用节点内带宽，否则跨节点带宽）。"
        "ZeRO-2 每个微批次对梯度做一次归约散射 (reduce-scatter)，ZeRO-3 每个微批次前向、反向各全收集 (all-gather) "
        "一次参数。CP 每层 cp-1 步环形传递 K/V（反向连同 dK、dV），反向后 dK、dV 传回原 rank。EP 的全对全 (all-to-all) "
        "按组跨越的节点分成节点内和跨节点两部分，两者并行，取较慢者；每个 rank 发出自己的序列并行份额（token 数/tp，"
        "每个 token top_k 份），再在专家张量并行组内全收集（Megatron-Core 的全对全分发器）；DeepEP "
        "所用的分发器（Megatron-Core 中的 `flex` 分发器）把 token 直接发给专家的每个 etp rank（token 数·etp/tp），"
        "不再全收集。",
        en="Communication = the sum over dimensions of ring alpha-beta time on each group's link (intra-node if the "
        "group stays in a node, else inter-node). ZeRO-2 reduce-scatters gradients every micro-batch, ZeRO-3 also "
        "all-gathers weights for every micro-batch's forward and backward. CP passes K/V around the ring in cp-1 "
        "steps per layer (with dK, dV backward), and dK, dV travel home after backward. EP's all-to-all is split "
        "into intra- and inter-node shares by the group's span; they run concurrently, the slower counts. Each rank "
        "sends its sequence-parallel share (tokens/tp, top_k copies of each), then gathers over expert TP "
        "(Megatron-Core's all-to-all dispatcher); the flex dispatcher DeepEP runs under sends a token to each of "
        "its expert's etp ranks (tokens·etp/tp) and gathers nothing.",
    ),
    Text(
        zh="暴露的通信是藏不住的部分：梯度的最后一个桶（Megatron 默认 max(4×10⁷, 10⁶·dp·cp) 个参数）"
        "在反向结束后才归约，参数的第一次全收集在任何计算之前（ZeRO-3：第一层的全收集和最后一层的"
        "归约散射）；其余最多藏在同一窗口的计算下（每步一次的同步只有最后一个微批次的反向；交错调度下每个"
        "模型分块在自己最后一次反向后归约，窗口是 min(pp, m)·(v-1)/v 个微批次，最后一个分块暴露）。"
        "CP 每步只藏在这一步的因果注意力计算下；PP 只在交错调度下重叠；TP 与 EP 默认在关键路径上"
        "（打开 TP 通信-矩阵乘重叠时藏住 15/16）。TP、CP、EP 在另一种链路上让前向或反向停下等待的时间也算进 DP 的窗口："
        "等待时梯度桶照样在传。同一种链路上藏住的总量不超过计算时间，两种链路各自超出计算的部分同时进行，只有较长的"
        "那段露出来；DP 与 CP 同跨节点时共用网卡。"
        "气泡 = f/(1-f)·计算（f 为气泡占比 `bubble_fraction`）。",
        en="Exposed communication is what cannot hide: the last gradient bucket (Megatron's default max(4×10⁷, "
        "10⁶·dp·cp) parameters) reduces after backward ends, the first parameter all-gather comes before any compute "
        "(ZeRO-3: the first layer's gather and the last layer's reduce-scatter); the rest hides at most under the "
        "compute of its window (a once-per-step sync: the last micro-batch's backward; in the interleaved schedule "
        "each model chunk reduces after its own last backward, a window of min(pp, m)·(v-1)/v micro-batches, the last "
        "chunk exposed). CP hides each ring step only under that step's causal attention; PP overlaps only in the "
        "interleaved schedule; TP and EP are on the critical path by default (with TP's comm-GEMM overlap on, "
        "15/16 hides). The time TP, CP and EP make a forward or backward pass wait on another kind of link counts in "
        "DP's window too: the gradient buckets keep moving while the pass waits. What hides on one kind of link "
        "cannot exceed the compute; what each kind of link runs past the compute runs side by side, so only the "
        "longer overrun shows; DP and CP crossing nodes share the NIC. "
        "Bubble = bubble_fraction/(1-bubble_fraction)·compute.",
    ),
    Text(
        zh="主机 (host)：MoE 层每次前向都让 CPU 等 GPU 一次（分发器要先把各专家的 token 数拿到 CPU 上，"
        "Megatron-Core 的全对全分发器与 DeepEP 都是如此），CPU 无法提前发射后面的内核 (kernel)，所以一个 MoE 层"
        "至少要花 CPU 发射它的时间。每个 MoE 层一个微批次的前向加反向默认估为 "
        f"{MOE_LAYER_HOST_S * 1e3:.1f} ms（参数 `moe_layer_host_s` 可以改；"
        "不用 CUDA 图 (CUDA graphs) 的 Megatron-Core；"
        "用一对 ModelZoo 实测拟合：Qwen3 235B 在 256 张 H100 上 TP 2/EP 32 与 TP 4/EP 8 两行，"
        "这是假设，不确定度按一半计）。"
        "GPU 上一层比这更短时，差额就是等待；TP 越大、微批次越小，越容易等。稠密层不等：CPU 可以提前发射。",
        en="The host: every MoE layer's forward makes the CPU wait for the GPU once (the dispatcher needs each "
        "expert's token count on the CPU; so do Megatron-Core's all-to-all dispatcher and DeepEP), so the CPU cannot "
        "launch later kernels ahead and an MoE layer takes at least the CPU's time to launch it. One MoE layer's "
        f"forward and backward of one micro-batch is taken as {MOE_LAYER_HOST_S * 1e3:.1f} ms of host time by default "
        "(moe_layer_host_s sets it; Megatron-Core without CUDA graphs; fitted on one pair of ModelZoo measurements, "
        "Qwen3 235B on 256 H100s at TP 2/EP 32 and TP 4/EP 8: an assumption, uncertain by half). A layer shorter "
        "than that on the GPU waits for the difference; larger TP and smaller micro-batches wait sooner. Dense "
        "layers do not wait: the CPU launches ahead.",
    ),
    Text(
        zh="显存按最重的流水线阶段：首/末阶段的嵌入或输出层、1F1B 在途的微批次（交错调度乘 1+(p-1)/(pv)）、"
        "完全重计算时一层的工作集、末阶段 fp32 的输出分数 (logits)；激活按模型的真实宽度逐个张量计"
        "（GQA、SwiGLU、MLA、MoE、丢弃 (dropout)），默认用融合注意力（不存 s×s 分数，完全重计算的工作集也按此计），"
        "Korthikanti 等人的 GPT 层是其特例。",
        en="Memory is the heaviest pipeline stage's: the embedding or output layer, the micro-batches 1F1B keeps "
        "in flight (times 1+(p-1)/(pv) when interleaved), one layer's working set under full recompute, fp32 "
        "logits on the last stage; activations are counted tensor by tensor at the model's real widths (GQA, "
        "SwiGLU, MLA, MoE, dropout), with flash attention by default (no s×s scores, also in full recomputation's "
        "working set); Korthikanti et al.'s GPT layer is the special case.",
    ),
    Text(
        zh="估算不含：稠密层的内核 (kernel) 启动开销与同步抖动、网络拥塞与拓扑（胖树 (fat tree)、"
        "轨道优化 (rail optimisation)）、数据加载、优化器步、"
        "掉队节点与故障。估算相差小于所述不确定度的候选是并列的：估算相差这么小的公开实测布局对，估算多数排反了；"
        "并列组里每个候选都注明哪个假设能让它追上组首、该测什么。",
        en="Left out: dense layers' kernel launch overhead and synchronisation jitter, network congestion and "
        "topology (fat tree, rail optimisation), data loading, the optimizer step, stragglers and failures. "
        "Candidates closer than the stated uncertainty are tied: the estimate reversed most published pairs of "
        "measured layouts this close. Each member of a tie group says which assumption would let it catch up "
        "and what to measure.",
    ),
)


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class CandidateTable:
    """The searched space as columns (numpy arrays), the failing checks and the estimates."""

    columns: dict[str, npt.NDArray[Any]]
    fails: dict[str, npt.NDArray[Any]]
    step_s: npt.NDArray[Any]
    memory_gib: npt.NDArray[Any]
    accepted: npt.NDArray[Any]
    #: Serving: the serving search's order (position, best first) and the tie measure (GPU-seconds per output
    #: token, the inverse of throughput per GPU). ``None`` for training: step time orders and ties.
    rank: npt.NDArray[Any] | None = None
    tie_value: npt.NDArray[Any] | None = None
    #: Training: accepted candidates (space indices) as :class:`PlanCandidate`, from the search's own estimate.
    #: The search estimates the step of the accepted candidates only: ``step_s`` is NaN for the rejected ones too
    #: (:meth:`PlanResult.estimated_step_s` estimates a well-formed one's when asked).
    accepted_candidates: Callable[[list[int]], list[PlanCandidate]] | None = None

    def __len__(self) -> int:
        return int(self.accepted.shape[0])


def tie_groups(step_s: Any, uncertainty: float) -> list[list[int]]:
    """Group positions of ascending ``step_s`` into ties: a group starts at its fastest member and holds every
    later one within ``(1 + uncertainty)`` of it.

    >>> tie_groups([1.0, 1.05, 1.09, 1.2, 1.3], 0.1)
    [[0, 1, 2], [3, 4]]

    Taught in: lesson 9 (decision workbench).
    """
    uncertainty = check_number("uncertainty", uncertainty, ge=0, le=10)
    steps = check_sequence("step_s", step_s, max_items=1 << 24)  # a search's whole column may be long
    return _tie_groups([check_number(f"step_s[{i}]", value, ge=0) for i, value in enumerate(steps)], uncertainty)


def _tie_groups(values: list[float], uncertainty: float) -> list[list[int]]:
    """:func:`tie_groups` on checked values (a search's own estimates)."""
    if values != sorted(values):
        raise ValueError(tr("planner.ties_sorted"))
    groups: list[list[int]] = []
    start = 0.0
    for index, value in enumerate(values):
        if not groups or value > start * (1 + uncertainty):
            groups.append([])
            start = float(value)
        groups[-1].append(index)
    return groups


@dataclass(frozen=True)
class PlanResult:
    """Everything :func:`plan` found: the space, the funnel, the candidates and the assumptions.

    * ``space_size``: candidates evaluated; ``space_dimensions``: the options per dimension;
    * ``funnel``: one :class:`FunnelStep` per gate of :data:`PLAN_GATES`, in order;
    * :meth:`accepted` — accepted candidates, fastest estimate first; :meth:`rejected`;
      :meth:`candidate` — the i-th candidate; :meth:`explain` — any composition;
    * ``assumptions`` — what every estimate rests on; ``elapsed_s`` — search time.

    Candidates are materialised on demand (each through :func:`evaluate_composition`).
    """

    model: ModelSpec
    cluster: ClusterSpec
    workload: WorkloadSpec
    assumptions: Assumptions
    space_dimensions: dict[str, tuple[Any, ...]]
    funnel: tuple[FunnelStep, ...]
    elapsed_s: float
    _table: CandidateTable = field(repr=False, compare=False)
    #: Evaluates one composition: :func:`coursekit.planner.evaluate_composition` (given by :func:`plan`), for
    #: degrees a learner typed; and its unchecked core, for the searched space's own (valid) degrees.
    _evaluate: Callable[..., PlanCandidate] = field(repr=False, compare=False)
    _evaluate_checked: Callable[..., PlanCandidate] = field(repr=False, compare=False)
    #: Evaluates several of the searched space's rows with one estimate (columns -> candidates, in row order).
    _evaluate_rows: Callable[..., list[PlanCandidate]] | None = field(default=None, repr=False, compare=False)
    _materialised: dict[int, PlanCandidate] = field(default_factory=dict, repr=False, compare=False)
    #: What the accepted order and the ties computed so far (the order, scenario step times of its fastest, groups).
    _ties: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def space_size(self) -> int:
        """How many compositions were evaluated."""
        return len(self._table)

    def __len__(self) -> int:
        return self.space_size

    @property
    def accepted_count(self) -> int:
        """How many candidates pass every check."""
        return int(self._table.accepted.sum())

    def codes(self, index: int) -> tuple[str, ...]:
        """Codes of the checks candidate ``index`` fails (from the vectorised table)."""
        index = check_int("index", index, ge=0, lt=self.space_size)
        return tuple(code for code in GATE_CODES if bool(self._table.fails[code][index]))

    def degrees(self, index: int) -> dict[str, Any]:
        """The degrees of candidate ``index`` as keyword arguments of :func:`evaluate_composition`."""
        index = check_int("index", index, ge=0, lt=self.space_size)
        col = self._table.columns
        if self.workload.mode == "serving":
            return {"tp": int(col["tp"][index]), "pp": int(col["pp"][index]), "replicas": int(col["replicas"][index])}
        return {
            "tp": int(col["tp"][index]),
            "pp": int(col["pp"][index]),
            "dp": int(col["dp"][index]),
            "cp": int(col["cp"][index]),
            "ep": int(col["ep"][index]),
            **({"etp": int(col["etp"][index])} if self.model.is_moe else {}),
            "v": int(col["v"][index]),
            "zero": int(col["zero"][index]),
            "mb": int(col["mb"][index]),
            "ga": int(col["ga"][index]),
            "recompute": PLAN_RECOMPUTE_MODES[int(col["rc"][index])],
        }

    def estimated_step_s(self, index: int) -> float | None:
        """The vectorised step-time estimate of candidate ``index`` (None if malformed)."""
        index = check_int("index", index, ge=0, lt=self.space_size)
        value = float(self._table.step_s[index])
        if math.isnan(value) and self.workload.mode == "training" and not math.isnan(self._table.memory_gib[index]):
            return self._candidate(index).step_s  # rejected but well formed: the search estimated accepted ones only
        return None if math.isnan(value) else value

    def candidate(self, index: int) -> PlanCandidate:
        """Candidate ``index`` with reasons, ledgers and estimate."""
        return self._candidate(check_int("index", index, ge=0, lt=self.space_size))

    def _candidate(self, index: int) -> PlanCandidate:
        """Kernel of :meth:`candidate` for an index this result produced itself (in range already)."""
        if index not in self._materialised:
            evaluate = self._evaluate if self.workload.mode == "serving" else self._evaluate_checked
            self._materialised[index] = evaluate(self.model, self.cluster, self.workload, **self.degrees(index))
        return self._materialised[index]

    def _candidates(self, indices: list[int]) -> list[PlanCandidate]:
        """:meth:`_candidate` of each of ``indices``; those not yet materialised are evaluated together."""
        missing = list(dict.fromkeys(i for i in indices if i not in self._materialised))
        listed = self._table.accepted_candidates
        if listed is not None and missing:
            accepted = [i for i in missing if self._table.accepted[i]]
            self._materialised.update(zip(accepted, listed(accepted), strict=True))
            missing = [i for i in missing if not self._table.accepted[i]]
        if len(missing) > 1 and self.workload.mode == "training" and self._evaluate_rows is not None:
            columns = {name: column[missing] for name, column in self._table.columns.items()}
            evaluated = self._evaluate_rows(self.model, self.cluster, self.workload, columns)
            self._materialised.update(zip(missing, evaluated, strict=True))
        return [self._candidate(i) for i in indices]

    def __iter__(self) -> Iterator[PlanCandidate]:
        return (self._candidate(i) for i in range(self.space_size))

    def _order(self) -> npt.NDArray[Any]:
        """Indices of accepted candidates, fastest first, as an array (computed once: the table never changes)."""
        import numpy as np

        if "order" not in self._ties:
            idx = np.flatnonzero(self._table.accepted)
            if self._table.rank is not None:  # serving: plan_serving's order, best throughput per GPU first
                order = idx[np.argsort(self._table.rank[idx], kind="stable")]
            else:
                # Ties in the estimate (e.g. ZeRO-1 vs ZeRO-2 move the same bytes) go to the smaller memory total.
                order = idx[np.lexsort((self._table.memory_gib[idx], self._table.step_s[idx]))]
            self._ties["order"] = order
            self._ties["order_step_s"] = self._table.step_s[order]
        cached: npt.NDArray[Any] = self._ties["order"]
        return cached

    def _ordered_step_s(self) -> npt.NDArray[Any]:
        """The estimated step of each accepted candidate, in :meth:`_order` (ascending, for training)."""
        self._order()
        cached: npt.NDArray[Any] = self._ties["order_step_s"]
        return cached

    def accepted_indices(self, top: int | None = None) -> list[int]:
        """Indices of accepted candidates, fastest estimated step first (ties: smaller memory, then space order);
        the first ``top`` if given."""
        order = self._order()
        if top is not None:
            order = order[: check_int("top", top, ge=0)]
        indices: list[int] = order.tolist()
        return indices

    def tie_groups(self, uncertainty: float | None = None, top: int | None = None) -> list[list[int]]:
        """Accepted candidates (indices, fastest first) grouped into ties; with ``top``, only the groups that hold
        the ``top`` fastest (each group whole).

        Training: a candidate within ``uncertainty`` (default: the model's stated
        :data:`coursekit.planner.estimate.MODEL_UNCERTAINTY`) of a group's fastest joins the group only when
        some assumption, moved within its own uncertainty, makes it at least as fast, or when the two
        estimates never separate (:mod:`coursekit.planner.ties`); :meth:`explain_ties` says which. The groups of
        the ``top`` fastest depend only on the candidates within ``uncertainty`` of the ``top``-th, so only those
        are estimated again under each assumption.

        Serving: throughput per GPU at least ``1 - uncertainty`` of the group's best (default
        :data:`coursekit.serving.TIE_TOLERANCE`, the serving search's own tie rule)."""
        u = (
            self.assumptions.uncertainty
            if uncertainty is None
            else check_number("uncertainty", uncertainty, ge=0, le=10)
        )
        order = self._order()
        count = len(order) if top is None else min(check_int("top", top, ge=0), len(order))
        if self._table.tie_value is not None:
            # tokens/s per GPU >= (1 - u) · best  <=>  GPU-seconds per token <= best's / (1 - u)
            values = [float(self._table.tie_value[i]) for i in order]
            u = 1 / (1 - min(u, 0.999999)) - 1
            positions = [group for group in _tie_groups(values, u) if group[0] < count]
        else:
            positions = self._robust_ties(u, count)[0]
        return [[int(order[pos]) for pos in group] for group in positions]

    def _robust_ties(self, u: float, count: int) -> tuple[list[list[int]], dict[int, tuple[str, ...]]]:
        """The tie groups led by the ``count`` fastest accepted candidates (positions in :meth:`_order`) and, per
        tied member, the scenarios that reorder it.

        A group's members lie within ``(1 + u)`` of its leader, so the groups led by the first ``count`` are
        decided by the candidates up to ``(1 + u)`` times the ``count``-th's step: the scenario estimates run on
        that prefix only (:func:`coursekit.planner.ties.scenario_steps`, extended when a later call needs more) and
        :func:`coursekit.planner.ties.robust_tie_groups` forms the groups its first ``count`` lead (those before a
        group are formed before it, so the later ones change nothing). Cached per uncertainty (the most leaders)."""
        import numpy as np

        from .ties import robust_tie_groups

        base = self._ordered_step_s()
        needed = 0 if count == 0 else int(np.searchsorted(base, base[count - 1] * (1 + u), side="right"))
        if needed == 0:
            return [], {}
        key = f"groups:{u!r}"
        if key not in self._ties or self._ties[key][0] < count:
            positions, why = robust_tie_groups(base[:needed], self._scenario_steps(needed), u, leaders=count)
            self._ties[key] = (count, positions, why)
        _, positions, why = self._ties[key]
        groups: list[list[int]] = [group for group in positions if group[0] < count]
        return groups, why

    def _scenario_steps(self, count: int) -> dict[str, Any]:
        """Step times of the ``count`` fastest accepted candidates under each scenario of
        :data:`coursekit.planner.ties.SCENARIOS` (computed once per candidate: a longer prefix extends the arrays)."""
        import numpy as np

        from .ties import scenario_steps

        done: int = self._ties.get("scenarios_count", 0)
        if count > done:
            have = self._ties.get("scenarios")
            pieces: list[dict[str, Any]] = [] if have is None else [have]
            order = self._order()
            # a block of rows at a time: each row's estimate reads that row's columns only, so the steps are the same
            # as in one pass, and the pass's intermediate arrays (about 3.5 KB per row) stay those of one block
            for start in range(done, count, SCENARIO_BLOCK_ROWS):
                rows = order[start : min(count, start + SCENARIO_BLOCK_ROWS)]
                columns = {name: column[rows] for name, column in self._table.columns.items()}
                pieces.append(scenario_steps(self.model, self.cluster, self.workload, columns))
            self._ties["scenarios"] = (
                pieces[0] if len(pieces) == 1 else {k: np.concatenate([p[k] for p in pieces]) for k in pieces[-1]}
            )
            self._ties["scenarios_count"] = count
        return {code: steps[:count] for code, steps in self._ties["scenarios"].items()}

    def _groups_through(self, u: float, group: int) -> tuple[list[list[int]], dict[int, tuple[str, ...]]]:
        """:meth:`_robust_ties` far enough to hold tie group ``group`` whole (or every group, if there are fewer)."""
        total = len(self._order())
        count = min(group, total)
        while True:
            groups, why = self._robust_ties(u, count)
            if len(groups) >= group or count == total:
                return groups, why
            count = min(2 * count, total)

    def explain_ties(self, group: int = 1, top: int | None = None, *, every_member: bool = False) -> list[TieRow]:
        """Why tie group ``group`` (1-based) is tied: one :class:`~coursekit.planner.ties.TieRow` per member, with
        the assumption that decides and the measurement that settles it (the first ``top`` rows).

        By default the rows are the group's fastest and its *contenders*: the members that one assumption, moved
        within its uncertainty, makes the fastest of the group (:func:`coursekit.planner.ties.contenders`), and
        those whose estimate never separates from the fastest — the candidates worth measuring.
        (Members no named assumption lets catch up, ``("noise",)`` or ``("unordered",)``, are left out: there are
        many, and each needs the same measurement of both.) ``every_member=True`` lists every member with the
        assumptions that let it catch up with the fastest, or its reason without one.
        Training only (a serving plan's ties come from its own tolerance: ``[]``).

        ``group`` counts the plan's tie groups (:meth:`tie_groups`) from 1: a larger one is a ``ValueError`` that
        says how many there are. Group 1 is always allowed: a plan that accepted no candidate has no ties to
        explain, and its ``explain_ties(1)`` is ``[]`` (as for a serving plan), so a report or a lesson asks for
        it without checking first. ``top`` is an int >= 0 or ``None`` (every row); ``every_member`` a bool.

        Taught in: lesson 9 (decision workbench).
        """
        from .ties import contenders, tie_row

        group = check_int("group", group, ge=1)
        if top is not None:
            top = check_int("top", top, ge=0)
        every_member = check_bool("every_member", every_member)
        if self._table.tie_value is not None or not self.accepted_count:
            # serving (ties from its tolerance, no scenarios) or nothing accepted: no rows, but a group that does
            # not exist is still refused
            if group > 1:
                existing = len(self.tie_groups()) if self.accepted_count else 0
                if group > existing:
                    key = "planner.tie_group_missing" if existing else "planner.tie_group_none"
                    raise ValueError(tr(key, value=group, count=existing))
            return []
        groups, why = self._groups_through(self.assumptions.uncertainty, group)
        if group > len(groups):  # _groups_through gave every group: there are fewer
            raise ValueError(tr("planner.tie_group_missing", value=group, count=len(groups)))
        members = groups[group - 1]  # positions among the accepted, fastest first
        if not every_member:
            reasons = contenders(members, self._ties["scenarios"])
            # the ones the estimate never separates; those no assumption reorders ("noise", "unordered") are too many
            reasons.update({pos: ("same",) for pos in members[1:] if why.get(pos) == ("same",)})
            why = reasons
            members = [members[0], *(pos for pos in members[1:] if pos in reasons)]
        if top is not None:
            members = members[:top]
        order, base = self._order(), self._ordered_step_s()
        leader_s = float(base[groups[group - 1][0]])
        key = "planner.tie_row_catch_up" if every_member else "planner.tie_row"
        candidates = self._candidates([int(order[pos]) for pos in members])
        leader = self._candidate(int(order[groups[group - 1][0]]))
        return [
            tie_row(
                pos + 1,
                int(order[pos]),
                cand.label(),
                float(base[pos]),
                leader_s,
                why.get(pos, ()),
                key,
                same_shapes=_same_matmul_efficiency(cand, leader),
            )
            for pos, cand in zip(members, candidates, strict=True)
        ]

    def _tie_row_of(self, index: int, rank: int, group: int) -> TieRow | None:
        """The :meth:`explain_ties` row (``every_member=True``) of accepted candidate ``index`` at ``rank`` in tie
        group ``group``, built for that one member; ``None`` for serving (its ties have no scenarios)."""
        from .ties import tie_row

        if self._table.tie_value is not None:
            return None
        groups, why = self._groups_through(self.assumptions.uncertainty, group)
        base = self._ordered_step_s()
        leader_s = float(base[groups[group - 1][0]])
        candidate = self._candidate(index)
        leader = self._candidate(int(self._order()[groups[group - 1][0]]))
        return tie_row(
            rank,
            index,
            candidate.label(),
            float(base[rank - 1]),
            leader_s,
            why.get(rank - 1, ()),
            "planner.tie_row_catch_up",
            same_shapes=_same_matmul_efficiency(candidate, leader),
        )

    def rank_of(self, index: int) -> tuple[int, int]:
        """(position among accepted, 1-based; tie group, 1-based) of accepted candidate ``index``."""
        order = self.accepted_indices()
        index = check_int("index", index, ge=0, lt=self.space_size)
        if index not in order:
            raise ValueError(tr("planner.not_accepted", index=index))
        rank = order.index(index) + 1
        group = next(g for g, members in enumerate(self.tie_groups(top=rank), 1) if index in members)
        return rank, group

    def accepted(self, top: int | None = None) -> list[PlanCandidate]:
        """Accepted candidates, fastest estimated step first; the first ``top`` if given."""
        return self._candidates(self.accepted_indices(top))

    def rejected_indices(self, code: str | None = None) -> list[int]:
        """Indices of rejected candidates (failing ``code``, if given)."""
        import numpy as np

        if code is None:
            mask = ~self._table.accepted
        else:
            mask = self._table.fails[check_choice("code", code, GATE_CODES)]
        return [int(i) for i in np.flatnonzero(mask)]

    def rejected(self, code: str | None = None, limit: int = 10) -> list[PlanCandidate]:
        """Up to ``limit`` rejected candidates (failing ``code``, if given), in space order."""
        return [self._candidate(i) for i in self.rejected_indices(code)[: check_int("limit", limit, ge=0)]]

    def find(self, /, **degrees: Any) -> list[int]:
        """Indices of the candidates whose degrees equal the given ones (keys of :data:`DEGREE_KEYS`)."""
        import numpy as np

        mask = np.ones(self.space_size, dtype=bool)
        for key, value in parse_degrees(degrees, name="degrees").items():
            column = "rc" if key == "recompute" else key
            wanted = PLAN_RECOMPUTE_MODES.index(value) if key == "recompute" else value
            mask &= self._table.columns[column] == wanted
        return [int(i) for i in np.flatnonzero(mask)]

    def _outside(self, wanted: Mapping[str, Any]) -> tuple[Reason, ...]:
        """For :meth:`check_layout`: each given degree whose value no searched composition has, with the rule that
        leaves it out (the ranks, the experts, the batch) or ``"bound"`` when only the search's bounds do."""
        import numpy as np

        world, batch, serving = self.cluster.world_size, self.workload.global_batch, self.workload.mode == "serving"
        ranked = ("replicas", "tp", "pp") if serving else ("tp", "pp", "dp", "cp")
        product = " × ".join(ranked)
        reasons = []
        for key, value in wanted.items():
            column = self._table.columns.get("rc" if key == "recompute" else key)
            if column is None:
                continue
            present = np.unique(column)
            if key == "recompute":
                shown = "/".join(PLAN_RECOMPUTE_MODES[int(i)] for i in present)
                if PLAN_RECOMPUTE_MODES.index(value) in present:
                    continue
            else:
                shown = "/".join(str(int(i)) for i in present)
                if value in present:
                    continue
            params = {"key": key, "value": value, "values": shown}
            if key in ranked and world % value:
                reasons.append(Reason("ranks", "planner.layout_outside_ranks", {**params, "product": product,
                                                                                  "world": world}))  # fmt: skip
            elif key == "ep" and not self.model.is_moe:
                reasons.append(Reason("experts", "planner.layout_outside_dense", {**params, "model": self.model.name}))
            elif key == "ep" and self.model.num_experts % value:
                experts = self.model.num_experts
                reasons.append(Reason("experts", "planner.layout_outside_experts",
                                      {**params, "model": self.model.name, "experts": experts}))  # fmt: skip
            elif not serving and (key == "ga" or (key == "mb" and batch % value)):
                reasons.append(Reason("batch", "planner.layout_outside_batch", {**params, "batch": batch}))
            else:
                reasons.append(Reason("bound", "planner.layout_outside_bound", params))
        return tuple(reasons)

    def check_layout(self, degrees: str | Mapping[str, Any]) -> LayoutCheck:
        """Where one layout stands: the fastest accepted variant of the compositions with ``degrees`` (text like
        ``"tp=4,pp=4,cp=2,dp=2"`` or a mapping), its rank and tie group among all accepted candidates and its
        estimate over the fastest's. Training: CP, EP and expert TP not given are Megatron's defaults (1, 1 and, for
        an MoE model, TP), as a paper's or a vendor table's layout means them; the data-parallel degree, the
        interleaving depth, the ZeRO stage, the micro-batch and the recomputation not given take any value. When no
        variant passes: how many fail each gate first, and the one that comes closest. This is how a published run
        is checked (:func:`coursekit.planner.validation.compare_published`) and what ``python -m coursekit plan
        --layout`` prints. A key the plan's mode does not have is a ``ValueError``: ``replicas`` for a training plan,
        a training degree (dp, cp, ep, v, zero, ga, recompute) for a serving one.
        """
        import numpy as np

        wanted = parse_degrees(degrees, name="degrees")
        # a key the plan's mode has no column for is refused, not matched against a constant column (a training
        # plan's replicas are all 1) or reported as "not in the searched space" with advice to widen it
        foreign = ("replicas",) if self.workload.mode == "training" else _TRAINING_ONLY_KEYS
        key = next((key for key in wanted if key in foreign), None)
        if key is not None:
            shown = degrees if isinstance(degrees, str) else ",".join(f"{k}={v}" for k, v in wanted.items())
            message = (
                "planner.layout_training_key" if self.workload.mode == "training" else "planner.layout_serving_key"
            )
            raise ValueError(tr(message, name="degrees", value=shown, key=key))
        if "etp" in wanted and (not self.model.is_moe or self.workload.mode != "training"):
            # no expert layers to split: refused as explain (evaluate_composition) refuses it, not read as tp
            raise ValueError(tr("planner.etp_dense", etp=wanted["etp"], model=self.model.name))
        if self.workload.mode == "training":  # the engine's defaults for the model-parallel degrees not given
            wanted.setdefault("cp", 1)
            wanted.setdefault("ep", 1)
            expert_tp_default(self.model.is_moe, wanted)
        variants = self.find(**wanted)
        etp_from_fold = None
        given_etp = "etp" in parse_degrees(degrees, name="degrees")
        if variants and self.model.is_moe and not given_etp and wanted.get("etp", 1) > 1:
            # the default ETP = TP folds into no variant's ranks: a grid Megatron-Core refuses to start, so the run
            # the layout describes cannot have used it; the recipes' etp=1 (the search's other value) is checked
            fold = self._table.fails["ep_fold"]
            alternative = self.find(**{**wanted, "etp": 1})
            if all(fold[i] for i in variants) and any(not fold[i] for i in alternative):
                etp_from_fold, wanted["etp"], variants = wanted["etp"], 1, alternative
        order = self.accepted_indices()
        chosen = set(variants)
        accepted = [i for i in order if i in chosen]
        best = self._candidate(order[0]) if order else None
        measure = self._table.tie_value if self._table.tie_value is not None else self._table.step_s
        space = ", ".join(f"{key} {'/'.join(map(str, values))}" for key, values in self.space_dimensions.items())
        common: dict[str, Any] = {
            "degrees": wanted,
            "variants": len(variants),
            "accepted_variants": len(accepted),
            "accepted_count": len(order),
            "best": best,
            "mode": self.workload.mode,
            "uncertainty": self.assumptions.uncertainty,
            "space": space,
            "etp_from_fold": etp_from_fold,
        }
        if accepted:
            index = accepted[0]
            rank, group = self.rank_of(index)
            over = float(measure[index] / measure[order[0]])
            return LayoutCheck(
                index=index,
                rank=rank,
                tie_group=group,
                over_best=over,
                candidate=self._candidate(index),
                first_failures={},
                tie_row=self._tie_row_of(index, rank, group),
                **common,
            )
        ranks_reason = None
        given = ("replicas", "tp", "pp") if self.workload.mode == "serving" else ("tp", "pp", "dp")
        if not variants and all(key in wanted for key in given):  # degrees that cannot fill the cluster
            ranks_reason = next((r for r in self.explain(wanted).reasons if r.code == "ranks"), None)
        outside = () if variants or ranks_reason is not None else self._outside(wanted)
        first = {index: GATE_CODES.index(self.codes(index)[0]) for index in variants}  # the first gate each fails
        counts = {code: sum(1 for pos in first.values() if pos == p) for p, code in enumerate(GATE_CODES)}
        nearest = None
        if variants:
            memory = np.nan_to_num(self._table.memory_gib, nan=np.inf)
            nearest = min(variants, key=lambda i: (-first[i], float(memory[i]), i))
        return LayoutCheck(
            index=None,
            rank=None,
            tie_group=None,
            over_best=None,
            candidate=None if nearest is None else self._candidate(nearest),
            first_failures={code: count for code, count in counts.items() if count},
            ranks_reason=ranks_reason,
            outside=outside,
            **common,
        )

    def explain(self, degrees: str | Mapping[str, Any]) -> PlanCandidate:
        """Evaluate one composition (text like ``"tp=8,pp=4,dp=4,zero=1,mb=1"`` or a mapping).

        Unspecified degrees default to cp = ep = v = 1, zero = 0, mb = 1, dp = the ranks left over,
        ga from the global batch and the workload's first recompute mode.
        """
        return self._evaluate(self.model, self.cluster, self.workload, **parse_degrees(degrees, name="degrees"))

    def report(self, top: int = 5) -> str:
        """The funnel, the assumptions and the ``top`` accepted candidates as text (current language)."""
        w, c, m = self.workload, self.cluster, self.model
        s = w.tokens_per_sequence(m)
        mode_text = tr(f"planner.mode_{w.mode}", global_batch=w.global_batch, seq_len=s, output_tokens=w.output_tokens)
        if w.mode == "serving":
            from ..serving import SERVING_ASSUMPTIONS  # the serving search's own assumptions

            assumptions = "\n".join(
                [
                    tr("serving.assumptions_head"),
                    *(f"  - {tr(f'serving.assume.{key}')}" for key in SERVING_ASSUMPTIONS),
                    *(f"  - {note}" for note in self.assumptions.workload_notes),
                ]
            )
        else:
            from ..presets import device_word  # "CPU" on the CPU-server contrast, else "GPU"

            assumptions = tr(
                "planner.assumptions",
                peak_tflops=c.peak_flops / 1e12,
                mfu=tr("planner.efficiency_model", device=device_word(c))
                if w.achievable_flops_fraction is None
                else f"{w.achievable_flops_fraction:.0%}",
                overlap=tr("planner.list_separator").join(
                    f"{dim} {share:.0%}" for dim, share in self.assumptions.overlap
                ),
                uncertainty=self.assumptions.uncertainty,
                recipe=w.recipe,
                reserve_gib=w.runtime_reserve_gib,
                intra_gb_s=c.intra_node_bandwidth_bytes_per_s / 1e9,
                inter_gb_s=c.inter_node_bandwidth_bytes_per_s / 1e9,
                device=device_word(c),
            )
            assumptions += (
                tr(
                    _attention_kernel_key(w.attention_kernel, c.compute_capability),
                    kernel=ATTENTION_KERNEL_NAMES[w.attention_kernel],
                    share=CAUSAL_EXECUTED_SHARE,
                    rate=ATTENTION_KERNEL_RATES[w.attention_kernel],
                )
                if w.flash_attention
                else tr("planner.attention_kernel_eager")
            )
            if m.is_moe:
                moe, dense = MOE_THROUGHPUT_RATIOS, DENSE_THROUGHPUT_RATIOS
                assumptions += tr(
                    "planner.moe_uncertainty",
                    uncertainty=self.assumptions.uncertainty,
                    moe_runs=moe[0],
                    moe_low=moe[1],
                    moe_high=moe[2],
                    moe_outside=moe[3],
                    tolerance=PASS_THROUGHPUT_TOLERANCE,
                    dense_runs=dense[0],
                    dense_low=dense[1],
                    dense_high=dense[2],
                )
            if c.nvlink_domain_gpus is not None:
                assumptions += tr(
                    "planner.nvlink_domain", domain=c.nvlink_domain_gpus, gpn=c.gpus_per_node, filled=c.domain_gpus
                )
            if w.overlap_fraction is None and w.overlap("tp") < w.overlap_tp:  # asked, but cannot run
                assumptions += tr("planner.tp_overlap_needs_sp", asked=w.overlap_tp)
            if w.recompute_modules:
                assumptions += tr("planner.recompute_modules", modules=", ".join(w.recompute_modules))
            if "offload" in w.recompute_modes and c.host_memory_per_device_gib is not None:
                assumptions += tr(
                    "planner.offload_assumption",
                    host_gib=c.host_memory_per_device_gib,
                    link_gb_s=(c.host_link_bandwidth_bytes_per_s or 0.0) / 1e9,
                )
            if w.lora_rank is not None:
                from .estimate import lora_adapters

                adapters = lora_adapters(m, w.lora_rank)
                assumptions += tr("planner.lora", rank=w.lora_rank, adapters_m=adapters.model_per_token / 1e6)
            if w.precision == "fp8":
                fitted = w.fp8_matmul_share is None
                assumptions += tr(
                    "planner.precision_fp8",
                    fp8_tflops=c.peak("fp8") / 1e12,
                    share=fp8_share_for(c.peak_flops, c.compute_capability) if fitted else w.fp8_matmul_share,
                    share_source=tr("planner.fp8_share_fitted" if fitted else "planner.fp8_share_set"),
                )
                column = fp8_column_copy(w.fp8_recipe, c.fp8_any_layout)
                cc = tr("planner.capability_unstated") if c.compute_capability is None else f"{c.compute_capability:g}"
                assumptions += tr(f"planner.fp8_layout_{column}", recipe=w.fp8_recipe, cc=cc)
                cached = fp8_weight_cache_bytes(w.fp8_recipe, c.fp8_any_layout)
                if not w.fp8_weight_cache:
                    assumptions += tr("planner.fp8_weights_replace")
                elif column == "transpose":
                    assumptions += tr("planner.fp8_weight_cache", bytes=cached)
                else:
                    copies = tr(f"planner.fp8_copies_{column}")
                    assumptions += tr("planner.fp8_weight_cache_copies", bytes=cached, copies=copies)
                if w.fp8_activation_cache == "deepseek-v3":
                    assumptions += tr("planner.fp8_activation_cache_deepseek")
            assumptions += "".join(f"\n  - {note}" for note in self.assumptions.workload_notes)
        lines = [
            tr(
                "planner.header",
                model=m.name,
                cluster=c.name,
                nodes=c.nodes,
                gpn=c.gpus_per_node,
                world=c.world_size,
                mode=mode_text,
            ),
            assumptions,
            tr(
                "planner.space",
                size=self.space_size,
                elapsed_ms=self.elapsed_s * 1e3,
                dims=", ".join(f"{key} {'/'.join(map(str, values))}" for key, values in self.space_dimensions.items()),
            ),
            tr("planner.funnel_header"),
        ]
        lines.extend(
            tr("planner.funnel_row", code=step.code, removed=step.removed, remaining=step.remaining)
            + f"  — {step.description}"
            for step in self.funnel
        )
        best = self.accepted(top)
        if not self.accepted_count:
            lines.append(tr("planner.none_accepted"))
        else:
            header = "planner.accepted_header_serving" if w.mode == "serving" else "planner.accepted_header"
            if not best:  # top = 0: no "top 0:" over an empty list
                header += "_unlisted"
            lines.append(tr(header, count=self.accepted_count, top=len(best)))
            groups = self.tie_groups(top=len(best))  # the groups of the rows shown, each whole
            group_of = {index: g for g, members in enumerate(groups, 1) for index in members}
            shown_group = 0
            for rank, (index, cand) in enumerate(zip(self.accepted_indices(len(best)), best, strict=True), 1):
                if group_of[index] != shown_group:
                    shown_group = group_of[index]
                    lines.append(
                        tr(
                            "planner.tie_header",
                            group=shown_group,
                            uncertainty=self.assumptions.uncertainty,
                            count=len(groups[shown_group - 1]),
                        )
                    )
                lines.append(f"#{rank} " + cand.explain())
            rows = self.explain_ties(1, top=top)
            if len(rows) > 1:
                lines.append(tr("planner.ties_why_header", count=len(groups[0])))
                lines.extend(f"  {row.message}" for row in rows)
        return "\n".join(lines)

    def to_dict(self, top: int = 10, include_rejected: bool = False, *, stream: bool = False) -> dict[str, Any]:
        """JSON-ready: specs, assumptions, space, funnel, every accepted candidate (the first ``top`` in
        full, the rest as degrees + estimate), and with ``include_rejected`` every rejected one as
        degrees + codes. With ``stream``, the lists of accepted and rejected candidates are
        :class:`coursekit._cli.StreamedList` s, whose items are made only while :func:`coursekit._cli.write_json` writes
        them: what ``python -m coursekit plan --json`` writes, so a search of millions of candidates does not hold a
        dict for each (read them by writing the JSON, not by indexing)."""
        from dataclasses import asdict

        top = check_int("top", top, ge=0)
        include_rejected = check_bool("include_rejected", include_rejected)
        stream = check_bool("stream", stream)
        accepted = self.accepted_indices()

        def accepted_entry(i: int) -> dict[str, Any]:
            return {
                "degrees": self.degrees(i),
                "step_s": self.estimated_step_s(i),
                "memory_gib": float(self._table.memory_gib[i]),
            }

        def rejected_entry(i: int) -> dict[str, Any]:
            return {"degrees": self.degrees(i), "codes": list(self.codes(i))}

        def entries(indices: list[int], entry: Callable[[int], dict[str, Any]]) -> list[dict[str, Any]]:
            if stream:
                return StreamedList(len(indices), lambda k: entry(indices[k]))
            return [entry(i) for i in indices]

        out: dict[str, Any] = {
            "model": {**asdict(self.model), "source": localized_source(self.model.source)},
            "cluster": asdict(self.cluster),
            "workload": asdict(self.workload),
            "assumptions": {
                **{k: val for k, val in asdict(self.assumptions).items() if k != "notes"},
                "notes": [str(note) for note in self.assumptions.notes],
                "workload_notes": [str(note) for note in self.assumptions.workload_notes],
                "estimate": "estimated, not measured",
            },
            "space_size": self.space_size,
            "space_dimensions": {key: list(values) for key, values in self.space_dimensions.items()},
            "elapsed_s": self.elapsed_s,
            "funnel": [
                {"code": st.code, "description": str(st.description), "removed": st.removed, "remaining": st.remaining}
                for st in self.funnel
            ],
            "accepted_count": len(accepted),
            "tie_groups": self.tie_groups(),
            "top": [self._candidate(i).to_dict() for i in accepted[:top]],
            "accepted": entries(accepted, accepted_entry),
        }
        if include_rejected:
            out["rejected"] = entries(self.rejected_indices(), rejected_entry)
        return out


learner_functions(globals())


def _same_matmul_efficiency(a: PlanCandidate, b: PlanCandidate) -> bool:
    """True when two candidates run their matmuls at the same estimated efficiency (the same shapes as far as the
    estimate sees: micro-batch, TP, CP and, for MoE, the experts' rows), so a matmul measurement cannot order them."""

    def same(x: float | None, y: float | None) -> bool:
        if x is None or y is None:
            return x is None and y is None
        return math.isclose(x, y, rel_tol=1e-9)

    return same(a.efficiency, b.efficiency) and same(a.expert_efficiency, b.expert_efficiency)


def _attention_kernel_key(kernel: str, compute_capability: float | None) -> str:
    """The assumptions line's attention text: the kernel by name, except the default (FlashAttention-3, a Hopper
    kernel) on a device known not to be Hopper, where it stands for that device's own fused kernel."""
    low, high = ATTENTION_KERNEL_COMPUTE_CAPABILITY
    hopper = compute_capability is None or low <= compute_capability < high
    if kernel == ATTENTION_KERNELS[0] and not hopper:
        return "planner.attention_kernel_carried"
    return "planner.attention_kernel_flash"
