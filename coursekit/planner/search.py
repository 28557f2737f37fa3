"""Evaluate one composition, search them all, and the lesson's what-ifs.

:func:`evaluate_composition` and :func:`plan` run the same estimate
(:func:`coursekit.planner.estimate.training_estimate`) — on one row, and on every row of the
space — and the same structural checks (:func:`coursekit.planner.space.structural_fails`); the
scalar path only adds the reasons' wording and the per-collective breakdown.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from .._validate import check_bool, check_choice, check_int, check_number
from ..capacity import PRECISION_RECIPES, RECOMPUTE_MODES
from ..communication import (
    TrafficEntry,
    cp_traffic,
    ep_traffic,
    pp_traffic,
    tp_traffic,
    traffic_time,
    zero_traffic,
)
from ..composition import validate_megatron_composition, validate_parallel_composition
from ..gates import (
    Candidate,
    Environment,
    check_global_batch,
    check_pp_degree,
    check_tp_degree,
    gate_memory,
    gate_mode,
    gate_serving,
    gate_structure,
)
from ..i18n import Reason, Text, register, tr
from ..scaling import StepTimeline
from ..units import GIB_BYTES, bytes_to_gib
from .estimate import COMM_DIMENSIONS, EFFICIENCY_CALIBRATION, MODEL_UNCERTAINTY, training_estimate
from .result import ESTIMATE_NOTES, Assumptions, CommRow, FunnelStep, MemoryLedger, PlanCandidate, PlanResult, _Table
from .space import (
    _GATE_CODES,
    _INT_COLUMNS,
    _WELL_FORMED_CODES,
    PLAN_GATES,
    stage_layers,
    structural_fails,
    training_space,
)
from .specs import (
    ACTIVATION_BYTES,
    MAX_GLOBAL_BATCH,
    MAX_WORLD_SIZE,
    ClusterSpec,
    ModelSpec,
    WorkloadSpec,
    _type_error,
    divisors,
    group_link,
)

register(
    {
        "planner.pp_edge": {
            "zh": "{layers} 层分给 pp = {pp} 个阶段、首末各少 {edge} 层时，有阶段一层都没有",
            "en": "{layers} layers over pp = {pp} stages with {edge} fewer on the first and last leave a stage "
            "without a layer",
        },
        "planner.virtual_chunk_layers": {
            "zh": "v = {v} 个模型块需要每个流水线阶段至少 {v} 层；最少的阶段只有 {fewest} 层",
            "en": "v = {v} model chunks need at least {v} layers on every pipeline stage; the smallest holds {fewest}",
        },
        "planner.context_twin": {
            "zh": "不需要上下文并行：把 CP 折回数据并行的同一布局（tp = {tp}，pp = {pp}，dp = {dp}，cp = 1），"
            "用最省显存的设置（每个 micro-batch 一条序列，v = 1，{recompute} 重计算，ZeRO-{zero}）每 rank 只要 "
            "{twin_gib:.1f} GiB，放得下 {device_gib:.0f} GiB 的设备，micro-batch 数也不少于流水线段数；"
            "CP 只在不用它就放不下上下文时使用",
            "en": "context parallelism is not needed: the same layout with CP folded back into data parallelism "
            "(tp = {tp}, pp = {pp}, dp = {dp}, cp = 1), in its least-memory settings (one sequence per micro-batch, "
            "v = 1, {recompute} recompute, ZeRO-{zero}), needs {twin_gib:.1f} GiB per rank, fits the "
            "{device_gib:.0f} GiB device and has at least as many micro-batches as pipeline stages; CP is for "
            "contexts no layout without it can hold",
        },
        "planner.context_other": {
            "zh": "不需要上下文并行：不用 CP 的布局 tp = {tp}，pp = {pp}，dp = {dp}，cp = 1 "
            "用最省显存的设置（每个 micro-batch 一条序列，v = 1，{recompute} 重计算，ZeRO-{zero}）每 rank 只要 "
            "{twin_gib:.1f} GiB，放得下 {device_gib:.0f} GiB 的设备，micro-batch 数也不少于流水线段数；"
            "CP 只在不用它就放不下上下文时使用",
            "en": "context parallelism is not needed: the layout tp = {tp}, pp = {pp}, dp = {dp}, cp = 1 without CP, "
            "in its least-memory settings (one sequence per micro-batch, v = 1, {recompute} recompute, ZeRO-{zero}), "
            "needs {twin_gib:.1f} GiB per rank, fits the {device_gib:.0f} GiB device and has at least as many "
            "micro-batches as pipeline stages; CP is for contexts no layout without it can hold",
        },
    }
)


def _check_model_split(
    model: ModelSpec, tp: int, pp: int, gpus_per_node: int, reasons: dict[str, Reason], warnings: list[Reason]
) -> None:
    """Selection-matrix shape checks, training and serving: TP divides the heads; PP <= layers (uneven warns)."""
    tp_rule = check_tp_degree(tp, model.heads, gpus_per_node)
    if tp_rule is not None and tp_rule.code == "tp_heads":
        reasons["tp_heads"] = tp_rule
    pp_rule = check_pp_degree(pp, model.layers)
    if pp_rule is not None and pp_rule.code == "pp_balance":
        warnings.append(pp_rule)
    elif pp_rule is not None:
        reasons[pp_rule.code] = pp_rule


def _kv_hidden_per_rank(model: ModelSpec, tp: int) -> int:
    assert model.kv_heads is not None
    return -(-model.kv_heads // tp) * model.head_dim


def _link_kind(cluster: ClusterSpec, span: int) -> tuple[str, float, float]:
    kind = group_link(span, cluster.gpus_per_node)
    bandwidth, latency = cluster.link(kind)
    return kind, bandwidth, latency


def _comm_row(
    dimension: str,
    entries: Sequence[TrafficEntry],
    ranks: int,
    cluster: ClusterSpec,
    span: int,
    time_s: float | None = None,
    split: tuple[float, float] = (0.0, 0.0),
) -> CommRow:
    """A ledger row: the entries' calls and bytes; ``time_s`` from the estimate (or the entries' ring time)."""
    kind, bandwidth, latency = _link_kind(cluster, span)
    timed = traffic_time(entries, bandwidth_bytes_per_s=bandwidth, latency_s=latency)
    if dimension == "EP":
        kind = "inter_node" if split[1] > 0 else "intra_node"
    return CommRow(
        dimension=dimension,
        group_ranks=ranks,
        link=kind,
        calls=sum(entry.calls_per_step for entry in entries),
        payload_bytes=sum(entry.total_payload_bytes for entry in entries),
        bus_bytes=timed.bus_bytes,
        time_s=timed.total_s if time_s is None else time_s,
        traffic=timed,
        intra_node_s=split[0],
        inter_node_s=split[1],
    )


def _one_row(**degrees: int) -> dict[str, Any]:
    import numpy as np

    return {key: np.array([value], dtype=np.int64) for key, value in degrees.items()}


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
    them hold the context — the context gate's comparison.

    For each tp, pp, ep with cp = 1 and dp = world / (tp·pp): one sequence per micro-batch, the plain 1F1B
    schedule (v = 1), the most memory-saving recompute mode and the highest ZeRO stage the workload allows, and
    the accumulation ga = global_batch / dp. A row *holds the context* when it is well formed (the structural
    checks of :data:`PLAN_GATES`), keeps TP inside a node, fits the device (the same ledger as every candidate),
    and keeps its pipeline fed — at least as many micro-batches as stages (ga >= pp): a layout that leaves a
    pipeline idle most of the step is no alternative to CP. If any row holds the context, every CP candidate is
    rejected (the gate of lesson 3: CP only when one device cannot hold the context).

    >>> from coursekit.presets import MODELS, CLUSTERS
    >>> context_twins(MODELS["llama3-8b"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=16, seq_len=2048)).exists
    True

    Taught in: lesson 9 (decision workbench).
    """
    import numpy as np

    world = cluster.world_size
    ep_options = divisors(model.num_experts) if model.is_moe else (1,)
    layouts = [
        (tp, pp, world // (tp * pp), ep) for tp in divisors(world) for pp in divisors(world // tp) for ep in ep_options
    ]
    table = np.array(layouts, dtype=np.int64).reshape(-1, 4)
    tp, pp, dp, ep = (table[:, i] for i in range(4))
    gb = workload.global_batch
    recompute = max(workload.recompute_modes, key=RECOMPUTE_MODES.index)
    zero = max(workload.zero_stages)
    ones = np.ones_like(tp)
    ga = np.maximum(1, gb // dp)
    row = {
        "tp": tp,
        "cp": ones,
        "pp": pp,
        "dp": dp,
        "ep": ep,
        "v": ones,
        "zero": ones * zero,
        "mb": ones,
        "ga": ga,
        "rc": ones * RECOMPUTE_MODES.index(recompute),
    }
    fails = structural_fails(model, cluster, workload, row)
    bad = np.logical_or.reduce([fails[code] for code in (*_WELL_FORMED_CODES, "interconnect", "structure")])
    total = training_estimate(model, cluster, workload, row)["memory"]["total"]
    holds = ~bad & (total <= cluster.memory_per_device_gib * GIB_BYTES) & (ga >= pp)
    return ContextTwins(tp, pp, dp, ep, total, holds, recompute, zero)


def _context_reason(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, tp: int, pp: int, dp: int, ep: int
) -> Reason | None:
    """The context gate for one CP candidate (tp, pp, dp, ep): a reason naming a layout without CP, or None."""
    twins = context_twins(model, cluster, workload)
    if not twins.exists:
        return None
    row, folded = twins.pick(tp, pp, dp, ep)
    return Reason(
        "context",
        "planner.context_twin" if folded else "planner.context_other",
        {
            "tp": int(twins.tp[row]),
            "pp": int(twins.pp[row]),
            "dp": int(twins.dp[row]),
            "recompute": twins.recompute,
            "zero": twins.zero,
            "twin_gib": bytes_to_gib(float(twins.total_bytes[row])),
            "device_gib": cluster.memory_per_device_gib,
        },
    )


def evaluate_composition(
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    *,
    tp: int = 1,
    pp: int = 1,
    dp: int | None = None,
    cp: int = 1,
    ep: int = 1,
    v: int = 1,
    zero: int = 0,
    mb: int = 1,
    ga: int | None = None,
    recompute: str | None = None,
    replicas: int | None = None,
) -> PlanCandidate:
    """Run every check of :data:`PLAN_GATES` on one composition and, if well formed, its ledgers and estimate.

    Parameters (degrees, ints >= 1):
        tp, pp, cp, ep: tensor, pipeline, context and expert parallel degrees.
        dp: data parallel degree; ``None`` = the ranks left over, world / (tp·cp·pp).
        v: model chunks per pipeline device (interleaved schedule).
        zero: ZeRO stage 0-3 (sharding over dp·cp ranks; experts over the expert-data-parallel ranks).
        mb: micro-batch in sequences; ga: gradient accumulation, ``None`` = global_batch / (dp·mb).
        recompute: ``"none"``, ``"selective"`` or ``"full"``; ``None`` = the workload's first mode.
        replicas: serving replicas. Given, the candidate is a serving one (tp·pp per replica), gated and estimated
            by :mod:`coursekit.serving`'s own evaluation (the one :func:`coursekit.serving.plan_serving` runs) on
            :meth:`WorkloadSpec.serving_workload`; only the rank count and the workload mode are the planner's.

    The training numbers come from :func:`coursekit.planner.estimate.training_estimate` on a one-row column —
    the function :func:`plan` runs over the whole space.

    >>> from coursekit.presets import MODELS, CLUSTERS
    >>> c = evaluate_composition(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(2),
    ...                          WorkloadSpec(global_batch=64), tp=16, pp=1, zero=3, recompute="full")
    >>> c.accepted, c.codes
    (False, ('interconnect',))

    Taught in: lesson 9 (decision workbench).
    """
    if not isinstance(model, ModelSpec):
        raise _type_error("model", model, "ModelSpec")
    if not isinstance(cluster, ClusterSpec):
        raise _type_error("cluster", cluster, "ClusterSpec")
    if not isinstance(workload, WorkloadSpec):
        raise _type_error("workload", workload, "WorkloadSpec")
    tp = check_int("tp", tp, ge=1, le=MAX_WORLD_SIZE)
    pp = check_int("pp", pp, ge=1, le=MAX_WORLD_SIZE)
    cp = check_int("cp", cp, ge=1, le=MAX_WORLD_SIZE)
    ep = check_int("ep", ep, ge=1, le=MAX_WORLD_SIZE)
    v = check_int("v", v, ge=1, le=1 << 10)
    zero = check_int("zero", zero, ge=0, le=3)
    mb = check_int("mb", mb, ge=1, le=MAX_GLOBAL_BATCH)
    mode = workload.recompute_modes[0] if recompute is None else check_choice("recompute", recompute, RECOMPUTE_MODES)
    world = cluster.world_size
    if replicas is not None:
        replicas = check_int("replicas", replicas, ge=1, le=MAX_WORLD_SIZE)
        return _evaluate_serving(model, cluster, workload, tp=tp, pp=pp, replicas=replicas)
    if dp is None:
        dp = max(1, world // (tp * cp * pp))
    dp = check_int("dp", dp, ge=1, le=MAX_WORLD_SIZE)
    check_int("tp·cp·pp·dp", tp * cp * pp * dp, le=MAX_WORLD_SIZE)
    gb = workload.global_batch
    ga = max(1, gb // (dp * mb)) if ga is None else check_int("ga", ga, ge=1, le=MAX_GLOBAL_BATCH)
    s = workload.tokens_per_sequence(model)
    g = cluster.gpus_per_node
    rc = RECOMPUTE_MODES.index(mode)
    row = _one_row(tp=tp, cp=cp, pp=pp, dp=dp, ep=ep, v=v, zero=zero, mb=mb, ga=ga, rc=rc)
    fails = {code: bool(value[0]) for code, value in structural_fails(model, cluster, workload, row).items()}
    well_formed = not any(fails[code] for code in _WELL_FORMED_CODES)

    reasons: dict[str, Reason] = {}
    warnings: list[Reason] = []
    layout = validate_megatron_composition(tp, pp, dp, cp, ep, model_kind=model.kind, available_ranks=world)
    for issue in layout.issues:
        if issue.code in ("ranks", "ep_fold") and fails[issue.code]:
            reasons[issue.code] = issue
    if fails["global_batch"]:
        reasons["global_batch"] = check_global_batch(dp, mb, ga, gb) or Reason(
            "global_batch", "gates.global_batch", {"dp": dp, "mb": mb, "ga": ga, "global_batch": gb}
        )
    _check_model_split(model, tp, pp, g, reasons, warnings)
    first, mid, last = stage_layers(model.layers, pp, workload.pipeline_edge_layers)
    fewest = min(first, last, mid) if pp > 2 else min(first, last)
    if fails["pp_layers"] and "pp_layers" not in reasons:
        reasons["pp_layers"] = Reason(
            "pp_layers", "planner.pp_edge", {"layers": model.layers, "pp": pp, "edge": workload.pipeline_edge_layers}
        )
    if fails["cp_seq"]:
        reasons["cp_seq"] = Reason("cp_seq", "planner.cp_seq", {"cp": cp, "seq_len": s})
    if fails["ep_experts"]:
        reasons["ep_experts"] = Reason("ep_experts", "planner.ep_experts", {"ep": ep, "experts": model.num_experts})
    if fails["pp_schedule"]:
        if pp == 1:
            reasons["pp_schedule"] = Reason("pp_schedule", "planner.virtual_needs_pp", {"v": v})
        elif fewest < v:
            reasons["pp_schedule"] = Reason("pp_schedule", "planner.virtual_chunk_layers", {"v": v, "fewest": fewest})
        else:
            reasons["pp_schedule"] = Reason(
                "pp_schedule", "pipeline.interleaved_multiple", {"microbatches": ga, "stages": pp}
            )
    node_rule = check_tp_degree(tp, tp, g)
    if node_rule is not None:
        reasons["interconnect"] = node_rule

    ledger: MemoryLedger | None = None
    rows: tuple[CommRow, ...] = ()
    timeline: StepTimeline | None = None
    bubble: float | None = None
    est: dict[str, Any] | None = None
    if well_formed:
        est = training_estimate(model, cluster, workload, row)
        mem = {key: float(value[0]) for key, value in est["memory"].items()}
        ledger = MemoryLedger(
            params_gib=bytes_to_gib(mem["params"]),
            grads_gib=bytes_to_gib(mem["grads"]),
            optimizer_gib=bytes_to_gib(mem["optimizer"]),
            workspace_gib=bytes_to_gib(mem["workspace"]),
            activations_gib=bytes_to_gib(mem["activations"]),
            reserve_gib=workload.runtime_reserve_gib,
            total_gib=bytes_to_gib(mem["total"]),
            device_gib=cluster.memory_per_device_gib,
        )
        rows = _training_rows(
            model, cluster, workload, est, tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, v=v, zero=zero, mb=mb, ga=ga, mode=mode
        )
        bubble = float(est["bubble"][0])
        timeline = StepTimeline(
            compute_s=float(est["compute_s"][0]),
            communication_s=float(est["communication_s"][0]),
            exposed_communication_s=float(est["exposed_s"][0]),
            hidden_communication_s=float(est["hidden_s"][0]),
            bubble_s=float(est["bubble_s"][0]),
            input_wait_s=0.0,
            step_s=float(est["step_s"][0]),
            load_imbalance_s=0.0,
        )
    candidate = Candidate(
        name=f"tp={tp},pp={pp},dp={dp},cp={cp},ep={ep}",
        memory_per_rank_gib=ledger.total_gib if ledger is not None else 0.0,
        modes=frozenset({"training"}),
        model_kinds=frozenset({"moe"}) if ep > 1 else frozenset({"dense", "moe"}),
        required_link_scope="intra_node" if tp > 1 else "none",
        splits_context=cp > 1,
        role="training-sync",
    )
    env = Environment(
        memory_per_device_gib=cluster.memory_per_device_gib,
        mode=workload.mode,
        model_kind=model.kind,
        link_scope="intra_node" if node_rule is None else "cross_node",
    )
    if ledger is not None:
        memory_reason = gate_memory(candidate, env)
        if memory_reason is not None:
            reasons["memory"] = memory_reason
    structure = gate_structure(candidate, env)
    if structure is not None:
        reasons["structure"] = structure
    if est is not None and cp > 1:
        context = _context_reason(model, cluster, workload, tp, pp, dp * cp, ep)
        if context is not None:
            reasons["context"] = context
    for gate in (gate_mode, gate_serving):
        reason = gate(candidate, env)
        if reason is not None:
            reasons[reason.code] = reason
    ordered = tuple(reasons[code] for code in _GATE_CODES if code in reasons)
    model_flops = float(est["model_flops_per_token"]) if est is not None else 0.0
    return PlanCandidate(
        mode="training",
        tp=tp,
        pp=pp,
        dp=dp,
        cp=cp,
        ep=ep,
        virtual_stages=v,
        zero_stage=zero,
        micro_batch=mb,
        grad_accum=ga,
        recompute=mode,
        replicas=1,
        accepted=not ordered,
        reasons=ordered,
        warnings=tuple(warnings),
        memory=ledger,
        communication=rows,
        bubble_fraction=bubble,
        timeline=timeline,
        tokens_per_step=gb * s,
        model_flops_per_step=model_flops * gb * s,
        world_size=world,
        peak_flops=cluster.peak_flops,
        efficiency=float(est["efficiency"][0]) if est is not None else None,
        intensity_flop_per_byte=float(est["intensity"][0]) if est is not None else None,
        stage_layers=(int(first), int(mid), int(last)),
    )


def _training_rows(
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    est: dict[str, Any],
    *,
    tp: int,
    pp: int,
    dp: int,
    cp: int,
    ep: int,
    v: int,
    zero: int,
    mb: int,
    ga: int,
    mode: str,
) -> tuple[CommRow, ...]:
    """The communication ledger of one candidate: calls and bytes from :mod:`coursekit.communication`'s
    traffic functions, times from the estimate (the same kernels)."""
    recipe = PRECISION_RECIPES[workload.recipe]
    s = workload.tokens_per_sequence(model)
    comm = {dim: float(est["comm"][dim][0]) for dim in (*COMM_DIMENSIONS, "EP_intra", "EP_inter")}
    first, mid, last = (int(x[0]) for x in est["stage_layers"])
    layers = max(first, mid, last)
    world = tp * cp * dp * pp
    dpc = dp * cp
    edp = world // (tp * ep * pp)
    tokens = s // cp
    rows: list[CommRow] = []
    if tp > 1:
        entries = tp_traffic(
            seq_len=tokens,
            micro_batch=mb,
            hidden=model.hidden,
            layers=layers,
            tp=tp,
            activation_bytes=ACTIVATION_BYTES,
            sequence_parallel=workload.sequence_parallel,
            recompute=mode,
            micro_batches=ga,
        )
        rows.append(_comm_row("TP", entries, tp, cluster, tp, comm["TP"]))
    if cp > 1:
        entries = cp_traffic(
            seq_len=s,
            micro_batch=mb,
            kv_hidden=_kv_hidden_per_rank(model, tp),
            layers=layers,
            cp=cp,
            activation_bytes=ACTIVATION_BYTES,
            micro_batches=ga,
        )
        rows.append(_comm_row("CP", entries, cp, cluster, tp * cp, comm["CP"]))
    if model.is_moe and ep > 1:
        entries = ep_traffic(
            seq_len=tokens,
            micro_batch=mb,
            hidden=model.hidden,
            moe_layers=layers,
            ep=ep,
            top_k=model.top_k,
            activation_bytes=ACTIVATION_BYTES,
            micro_batches=ga,
        )
        split = (comm["EP_intra"], comm["EP_inter"])
        rows.append(_comm_row("EP", entries, ep, cluster, tp * ep, comm["EP"], split))
    if pp > 1:
        entries = pp_traffic(
            seq_len=tokens,
            micro_batch=mb,
            hidden=max(1, model.hidden // tp),
            pp=pp,
            micro_batches=ga * v,
            activation_bytes=ACTIVATION_BYTES,
        )
        rows.append(_comm_row("PP", entries, pp, cluster, world, comm["PP"]))
    units = layers if zero == 3 else 1
    dense_stage = max(
        first * model.dense_params_per_layer + model.input_embedding_params + (model.output_params if pp == 1 else 0),
        mid * model.dense_params_per_layer,
        last * model.dense_params_per_layer
        + (model.output_params if pp == 1 else model.vocab * model.hidden + model._norm_params()),
    )
    for dimension, params, ranks in (
        ("DP", dense_stage / tp, dpc),
        ("EDP", layers * model.num_experts * model.expert_params / (tp * ep), edp if model.is_moe else 1),
    ):
        if ranks > 1 and params > 0:
            entries = zero_traffic(
                num_params=params,
                dp=ranks,
                stage=zero,
                param_bytes=recipe.param_bytes,
                grad_bytes=recipe.grad_bytes,
                units=units,
                micro_batches=ga,
            )
            rows.append(_comm_row(dimension, entries, ranks, cluster, world // pp, comm[dimension]))
    return tuple(rows)


#: The serving gates' reason codes (:data:`coursekit.serving.SERVING_GATES`) as the planner's gate codes. The
#: planner's workload has no SLO, so the SLO codes do not arise; "replicas are not DP" is the planner's serving gate.
_SERVING_CODES: dict[str, str] = {
    "tp_heads": "tp_heads",
    "pp_layers": "pp_layers",
    "interconnect": "interconnect",
    "memory": "memory",
    "replica": "serving",
}


def _evaluate_serving(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, *, tp: int, pp: int, replicas: int
) -> PlanCandidate:
    """One serving layout through :mod:`coursekit.serving`'s own evaluation (one serving estimate)."""
    from ..serving import _evaluate  # serving imports the planner's specs, so not at module level

    serving = _evaluate(model, cluster, workload.serving_workload(model), tp, pp, replicas)
    return _serving_plan_candidate(model, cluster, workload, serving)


def _serving_plan_candidate(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, serving: Any
) -> PlanCandidate:
    """A :class:`coursekit.serving.ServingCandidate` as the planner's :class:`PlanCandidate`: the same reasons
    (under the planner's gate codes), ledger and estimate, plus the checks only the planner makes (all ranks
    used, the workload mode)."""
    tp, pp, replicas = serving.tp, serving.pp, serving.replicas
    world = cluster.world_size
    reasons: dict[str, Reason] = {}
    warnings: list[Reason] = []
    composition = validate_parallel_composition({"TP": tp, "PP": pp, "Replica": replicas}, world, model.kind)
    for issue in composition.issues:
        if issue.code == "ranks":
            reasons["ranks"] = issue
    pp_rule = check_pp_degree(pp, model.layers)
    if pp_rule is not None and pp_rule.code == "pp_balance":
        warnings.append(pp_rule)
    for reason in serving.reasons:
        code = _SERVING_CODES[reason.code]
        reasons.setdefault(code, Reason(code, reason.key, reason.params))
    well_formed = not (set(reasons) & _WELL_FORMED_CODES)
    ledger: MemoryLedger | None = None
    timeline: StepTimeline | None = None
    estimate = serving.estimate if well_formed else None
    if well_formed and serving.ledger is not None:
        lg = serving.ledger
        ledger = MemoryLedger(
            params_gib=lg.weights_gib,
            grads_gib=0.0,
            optimizer_gib=0.0,
            workspace_gib=lg.workspace_gib,
            activations_gib=lg.kv_cache_gib,
            reserve_gib=lg.reserve_gib,
            total_gib=lg.total_gib,
            device_gib=lg.device_gib,
        )
    if estimate is not None:
        # One decode step: the roofline time of its stages plus TP all-reduces and PP hand-offs (not overlapped).
        timeline = StepTimeline(
            compute_s=estimate.time_per_output_token_s - estimate.decode_comm_s,
            communication_s=estimate.decode_comm_s,
            exposed_communication_s=estimate.decode_comm_s,
            hidden_communication_s=0.0,
            bubble_s=0.0,
            input_wait_s=0.0,
            step_s=estimate.time_per_output_token_s,
            load_imbalance_s=0.0,
        )
    candidate = Candidate(
        name=f"replicas={replicas},tp={tp},pp={pp}",
        memory_per_rank_gib=ledger.total_gib if ledger is not None else 0.0,
        modes=frozenset({"serving"}),
        model_kinds=frozenset({"dense", "moe"}),
        required_link_scope="intra_node" if tp > 1 else "none",
        role="serving-replica",
    )
    env = Environment(
        memory_per_device_gib=cluster.memory_per_device_gib,
        mode=workload.mode,
        model_kind=model.kind,
        link_scope="cross_node" if "interconnect" in reasons else "intra_node",
    )
    for gate in (gate_mode, gate_serving):
        reason = gate(candidate, env)
        if reason is not None:
            reasons[reason.code] = reason
    ordered = tuple(reasons[code] for code in _GATE_CODES if code in reasons)
    tokens = replicas * serving.concurrency_per_replica  # one output token per request per decode step
    return PlanCandidate(
        mode="serving",
        tp=tp,
        pp=pp,
        dp=1,
        cp=1,
        ep=1,
        virtual_stages=1,
        zero_stage=0,
        micro_batch=serving.concurrency_per_replica,
        grad_accum=1,
        recompute="none",
        replicas=replicas,
        accepted=not ordered,
        reasons=ordered,
        warnings=tuple(warnings),
        memory=ledger,
        communication=(),
        bubble_fraction=0.0 if estimate is not None else None,
        timeline=timeline,
        tokens_per_step=tokens,
        model_flops_per_step=2.0 * model.active_params * tokens,
        world_size=world,
        peak_flops=cluster.peak_flops,
        serving=serving if well_formed else None,
    )


# --------------------------------------------------------------------------- the search


def _training_table(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> _Table:
    """Every training candidate: the structural checks, then the estimate (memory, context, step time)."""
    import numpy as np

    c = training_space(model, cluster, workload)
    fails = structural_fails(model, cluster, workload, c)
    well = ~np.logical_or.reduce([fails[code] for code in _WELL_FORMED_CODES])
    est = training_estimate(model, cluster, workload, c)
    device_bytes = cluster.memory_per_device_gib * GIB_BYTES
    total = est["memory"]["total"]
    fails["memory"] = well & (total > device_bytes)
    fails["context"] = well & (c["cp"] > 1) & context_twins(model, cluster, workload).exists
    any_fail = np.logical_or.reduce([fails[code] for code in _GATE_CODES])
    return _Table(
        columns={key: c[key] for key in _INT_COLUMNS},
        fails={code: fails[code] for code in _GATE_CODES},
        step_s=np.where(well, est["step_s"], np.nan),
        memory_gib=np.where(well, total / GIB_BYTES, np.nan),
        accepted=~any_fail,
    )


def _serving_table(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec
) -> tuple[_Table, list[PlanCandidate]]:
    """Every serving layout, searched by :func:`coursekit.serving.plan_serving` and kept in its order (best
    throughput per GPU first): the planner's serving mode ranks exactly as the serving search does."""
    import numpy as np

    from ..serving import plan_serving  # serving imports the planner's specs, so not at module level

    searched = plan_serving(model, cluster, workload.serving_workload(model))
    candidates = [_serving_plan_candidate(model, cluster, workload, c) for c in searched.candidates]
    columns = {key: np.array([_column_value(cand, key) for cand in candidates], dtype=np.int64) for key in _INT_COLUMNS}
    fails = {code: np.array([code in cand.codes for cand in candidates], dtype=bool) for code in _GATE_CODES}
    step = np.array([cand.step_s if cand.step_s is not None else np.nan for cand in candidates], dtype=np.float64)
    memory = np.array(
        [cand.memory.total_gib if cand.memory is not None else np.nan for cand in candidates], dtype=np.float64
    )
    accepted = np.array([cand.accepted for cand in candidates], dtype=bool)
    gpu_s_per_token = np.array(
        [1.0 / c.estimate.tokens_per_s_per_gpu if c.estimate is not None else np.nan for c in searched.candidates],
        dtype=np.float64,
    )
    order = np.arange(len(candidates), dtype=np.float64)
    return _Table(columns, fails, step, memory, accepted, rank=order, tie_value=gpu_s_per_token), candidates


def _column_value(candidate: PlanCandidate, key: str) -> int:
    if key == "rc":
        return RECOMPUTE_MODES.index(candidate.recompute)
    attr = {"v": "virtual_stages", "zero": "zero_stage", "mb": "micro_batch", "ga": "grad_accum"}.get(key, key)
    value: int = getattr(candidate, attr)
    return value


def plan(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> PlanResult:
    """Enumerate every composition of ``cluster`` for ``model`` and ``workload``, gate it, and estimate the rest.

    Parameters:
        model: a :class:`ModelSpec` (presets in :data:`coursekit.presets.MODELS`).
        cluster: a :class:`ClusterSpec` (presets in :data:`coursekit.presets.CLUSTERS`); every
            candidate uses all ``cluster.world_size`` ranks.
        workload: a :class:`WorkloadSpec`: mode, batch, sequence, recipe and the assumptions of the estimate.

    Returns a :class:`PlanResult`: the funnel of :data:`PLAN_GATES` (how many candidates each
    check removed first), every candidate with its reasons, and the accepted ones ordered by
    *estimated* step time (compute at the efficiency its matmul shapes allow + exposed communication
    + pipeline bubble; see :data:`ESTIMATE_NOTES`), grouped into ties within the model's stated
    uncertainty (:meth:`PlanResult.tie_groups`). In serving mode the search is
    :func:`coursekit.serving.plan_serving` on :meth:`WorkloadSpec.serving_workload`, in its order (best
    throughput per GPU first) and with its tie rule. Sizes beyond the documented bounds
    (:data:`coursekit.planner.MAX_WORLD_SIZE`, ``MAX_GLOBAL_BATCH``, ``MAX_SPACE_SIZE``) are refused
    with a ValueError before any search.

    >>> from coursekit.presets import MODELS, CLUSTERS
    >>> r = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16), WorkloadSpec(global_batch=1024))
    >>> sum(step.removed for step in r.funnel) + r.accepted_count == r.space_size
    True
    >>> best = r.accepted(1)[0]
    >>> best.accepted, best.tp <= 8
    (True, True)

    Taught in: lesson 9 (decision workbench).
    """
    if not isinstance(model, ModelSpec):
        raise _type_error("model", model, "ModelSpec")
    if not isinstance(cluster, ClusterSpec):
        raise _type_error("cluster", cluster, "ClusterSpec")
    if not isinstance(workload, WorkloadSpec):
        raise _type_error("workload", workload, "WorkloadSpec")
    import numpy as np

    start = time.perf_counter()
    materialised: dict[int, PlanCandidate] = {}
    if workload.mode == "training":
        table = _training_table(model, cluster, workload)
    else:
        table, serving = _serving_table(model, cluster, workload)
        materialised = dict(enumerate(serving))
    alive = np.ones(len(table), dtype=bool)
    funnel: list[FunnelStep] = []
    for gate in PLAN_GATES:
        removed = alive & table.fails[gate.code]
        alive &= ~removed
        funnel.append(FunnelStep(gate.code, gate.description, int(removed.sum()), int(alive.sum())))
    elapsed = time.perf_counter() - start
    dims: dict[str, tuple[Any, ...]] = {
        key: tuple(int(x) for x in np.unique(table.columns[key]))
        for key in ("tp", "pp", "dp", "cp", "ep", "v", "zero", "mb")
    }
    uncertainty = MODEL_UNCERTAINTY
    notes = ESTIMATE_NOTES
    if workload.mode == "training":
        dims["recompute"] = workload.recompute_modes
    else:
        from ..serving import SERVING_ASSUMPTIONS, TIE_TOLERANCE

        dims = {key: tuple(int(x) for x in np.unique(table.columns[key])) for key in ("replicas", "tp", "pp")}
        uncertainty = TIE_TOLERANCE
        notes = tuple(
            Text(zh=tr(f"serving.assume.{key}", lang="zh"), en=tr(f"serving.assume.{key}", lang="en"))
            for key in SERVING_ASSUMPTIONS
        )
    assumptions = Assumptions(
        peak_flops=cluster.peak_flops,
        achievable_flops_fraction=workload.achievable_flops_fraction,
        overlap_fraction=workload.overlap_fraction,
        recipe=workload.recipe,
        runtime_reserve_gib=workload.runtime_reserve_gib,
        sequence_parallel=workload.sequence_parallel,
        intra_node_bandwidth_bytes_per_s=cluster.intra_node_bandwidth_bytes_per_s,
        inter_node_bandwidth_bytes_per_s=cluster.inter_node_bandwidth_bytes_per_s,
        intra_node_latency_s=cluster.intra_node_latency_s,
        inter_node_latency_s=cluster.inter_node_latency_s,
        memory_bandwidth_bytes_per_s=cluster.memory_bandwidth_bytes_per_s,
        notes=notes,
        overlap=tuple((dim, workload.overlap(dim)) for dim in ("dp", "pp", "cp", "tp", "ep")),
        efficiency_calibration=EFFICIENCY_CALIBRATION if workload.achievable_flops_fraction is None else "",
        uncertainty=uncertainty,
    )
    return PlanResult(
        model=model,
        cluster=cluster,
        workload=workload,
        assumptions=assumptions,
        space_dimensions=dims,
        funnel=tuple(funnel),
        elapsed_s=elapsed,
        _table=table,
        _materialised=materialised,
    )


def what_if(
    model: str | ModelSpec,
    cluster: str | ClusterSpec,
    nodes: int,
    workload: WorkloadSpec,
    *,
    link_slowdown: float = 1.0,
    moe: bool = False,
) -> PlanResult:
    """:func:`plan` for preset names (or specs), with the lesson's what-ifs applied.

    ``link_slowdown`` divides the inter-node bandwidth; ``moe`` turns the model into an MoE
    model with 8 experts, top-2 (:meth:`ModelSpec.as_moe`).

    >>> base = what_if("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024))
    >>> slow = what_if("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024), link_slowdown=8)
    >>> slow.accepted(1)[0].step_s >= base.accepted(1)[0].step_s
    True

    Taught in: lesson 9 (decision workbench).
    """
    from ..presets import CLUSTERS, MODELS

    spec = MODELS[check_choice("model", model, tuple(MODELS))] if isinstance(model, str) else model
    node = CLUSTERS[check_choice("cluster", cluster, tuple(CLUSTERS))] if isinstance(cluster, str) else cluster
    if not isinstance(spec, ModelSpec):
        raise _type_error("model", spec, "ModelSpec or preset name")
    if not isinstance(node, ClusterSpec):
        raise _type_error("cluster", node, "ClusterSpec or preset name")
    slowdown = check_number("link_slowdown", link_slowdown, ge=1, le=1e6)
    if check_bool("moe", moe) and not spec.is_moe:
        spec = spec.as_moe(8, 2)
    node = node.with_nodes(nodes)
    if slowdown != 1:
        node = replace(node, inter_node_bandwidth_bytes_per_s=node.inter_node_bandwidth_bytes_per_s / slowdown)
    return plan(spec, node, workload)
