"""Evaluate one composition, search them all, and the lesson's what-ifs.

:func:`evaluate_composition` and :func:`plan` run the same estimate
(:func:`coursekit.planner.estimate.training_estimate`) — on one row, and on every row of the
space — and the same gate table (:data:`coursekit.planner.gate_table.PLAN_GATES`: each gate's array
test and its reason); the scalar path only asks the failing gates for their reasons and adds the
per-collective breakdown.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .._validate import check_bool, check_choice, check_int, check_number, learner_functions
from ..capacity import PRECISION_RECIPES
from ..communication import (
    TrafficEntry,
    _cp_entries,
    _ep_entries,
    _ep_recompute_entries,
    _pp_entries,
    _tp_entries,
    _traffic_time,
    _zero_entries,
)
from ..gates import _pp_rule
from ..i18n import Reason, Text, tr
from ..scaling import StepTimeline
from ..specs import (
    MIN_BANDWIDTH_BYTES_PER_S,
    PLAN_RECOMPUTE_MODES,
    _check_read_fields,
    _group_link,
    _inter_node_ring_bandwidth,
    _replace_valid,
    pipeline_edges_at,
    stage_layer_counts,
    type_error,
)
from ..units import GIB_BYTES
from .estimate import (
    COMM_DIMENSIONS,
    EFFICIENCY_CALIBRATION,
    MODEL_UNCERTAINTY,
    OFFLOAD_COLUMNS,
    ep_dispatched_tokens,
    ep_element_bytes,
    ep_sent_copies,
    expert_tp_gathered_tokens,
    training_estimate,
)
from .gate_table import GATE_CODES, PLAN_GATES, WELL_FORMED_CODES, GateInput, reasons_of
from .gate_table import ContextTwins as ContextTwins
from .gate_table import context_twins as context_twins
from .result import (
    ESTIMATE_NOTES,
    Assumptions,
    CandidateTable,
    CommRow,
    FunnelStep,
    MemoryLedger,
    PlanCandidate,
    PlanResult,
)
from .space import INT_COLUMNS, training_space
from .specs import (
    ACTIVATION_BYTES,
    MAX_GLOBAL_BATCH,
    MAX_WORLD_SIZE,
    ClusterSpec,
    ModelSpec,
    WorkloadSpec,
)


def _link_kind(
    cluster: ClusterSpec, span: int, ring_ranks: int = 1, used: int | None = None
) -> tuple[str, float, float]:
    """The link of groups spanning ``span`` ranks, timed as the estimate times it (``estimate._link``)."""
    import numpy as np

    kind = _group_link(span, cluster.domain_gpus, used)
    bandwidth, latency = cluster.link(kind)
    if kind == "inter_node":
        bandwidth = float(_inter_node_ring_bandwidth(np, cluster, span, ring_ranks))
    return kind, bandwidth, latency


def _comm_row(
    dimension: str,
    entries: Sequence[TrafficEntry],
    ranks: int,
    cluster: ClusterSpec,
    span: int,
    time_s: float | None = None,
    split: tuple[float, float] = (0.0, 0.0),
    ring_ranks: int = 1,
    used: int | None = None,
) -> CommRow:
    """A ledger row: the entries' calls and bytes; ``time_s`` from the estimate (or the entries' ring time);
    ``ring_ranks`` as ``estimate._link`` takes it (the group's ranks for ring collectives, 1 for point-to-point)."""
    kind, bandwidth, latency = _link_kind(cluster, span, ring_ranks, used)
    timed = _traffic_time(entries, bandwidth, latency)
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
    etp: int | None = None,
) -> PlanCandidate:
    """Run every check of :data:`PLAN_GATES` on one composition and, if well formed, its ledgers and estimate.

    Parameters (degrees, ints >= 1):
        tp, pp, cp, ep: tensor, pipeline, context and expert parallel degrees.
        etp: the expert layers' own tensor-parallel degree (Megatron-Core's ``--expert-tensor-parallel-size``);
            ``None`` = tp. A mixture of experts only: a dense model has no expert layers, and a given etp is refused.
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
    _check_specs(model, cluster, workload)
    tp, pp, cp, ep = (
        check_int(name, value, ge=1, le=MAX_WORLD_SIZE)
        for name, value in zip("tp pp cp ep".split(), (tp, pp, cp, ep), strict=True)
    )
    v = check_int("v", v, ge=1, le=1 << 10)
    zero = check_int("zero", zero, ge=0, le=3)
    mb = check_int("mb", mb, ge=1, le=MAX_GLOBAL_BATCH)
    modes = PLAN_RECOMPUTE_MODES
    mode = workload.recompute_modes[0] if recompute is None else check_choice("recompute", recompute, modes)
    if etp is not None:
        etp = check_int("etp", etp, ge=1, le=MAX_WORLD_SIZE)
        if not model.is_moe or replicas is not None:
            raise ValueError(tr("planner.etp_dense", etp=etp, model=model.name))
    if replicas is not None:
        replicas = check_int("replicas", replicas, ge=1, le=MAX_WORLD_SIZE)
        training = {"dp": dp, "cp": cp, "ep": ep, "v": v, "zero": zero, "mb": mb, "ga": ga, "recompute": recompute}
        defaults = {"dp": None, "cp": 1, "ep": 1, "v": 1, "zero": 0, "mb": 1, "ga": None, "recompute": None}
        given = [f"{key} = {value!r}" for key, value in training.items() if value != defaults[key]]
        if given:
            raise ValueError(tr("planner.replicas_with_training", given=", ".join(given), replicas=replicas))
        return _evaluate_serving(model, cluster, workload, tp=tp, pp=pp, replicas=replicas)
    dp = max(1, cluster.world_size // (tp * cp * pp)) if dp is None else dp
    dp = check_int("dp", dp, ge=1, le=MAX_WORLD_SIZE)
    check_int("tp·cp·pp·dp", tp * cp * pp * dp, le=MAX_WORLD_SIZE)
    gb = workload.global_batch
    ga = max(1, gb // (dp * mb)) if ga is None else check_int("ga", ga, ge=1, le=MAX_GLOBAL_BATCH)
    etp = tp if etp is None else etp
    return _evaluate_checked(
        model,
        cluster,
        workload,
        tp=tp,
        pp=pp,
        dp=dp,
        cp=cp,
        ep=ep,
        v=v,
        zero=zero,
        mb=mb,
        ga=ga,
        recompute=mode,
        etp=etp,
    )


def _evaluate_checked(
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
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
    recompute: str,
    etp: int | None = None,
) -> PlanCandidate:
    """:func:`evaluate_composition` of a training composition whose degrees are known to be in range (the
    searched space's own): :meth:`PlanResult.candidate` materialises candidates through it."""
    rc = PLAN_RECOMPUTE_MODES.index(recompute)
    etp = tp if etp is None else etp
    row = _one_row(tp=tp, cp=cp, pp=pp, dp=dp, ep=ep, etp=etp, v=v, zero=zero, mb=mb, ga=ga, rc=rc)
    return _training_candidate(GateInput(model, cluster, workload, row), recompute)


def _evaluate_rows(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, columns: Mapping[str, Any]
) -> list[PlanCandidate]:
    """:func:`_evaluate_checked` of every row of ``columns`` (the searched space's own, in range), with one
    estimate for them all: :meth:`PlanResult.accepted` materialises the candidates it lists through it."""
    g = GateInput(model, cluster, workload, columns)
    return [_training_candidate(g, PLAN_RECOMPUTE_MODES[g.value("rc", i)], i) for i in range(g.size)]


def _check_specs(model: Any, cluster: Any, workload: Any) -> None:
    """TypeError naming ``model``, ``cluster`` or ``workload`` when it is not the planner's spec; then a training
    setting no answer for ``model`` reads is refused (MoE-only on a dense model) or warned about (FP8-only at bf16),
    as the command line refuses its flag (:func:`coursekit.specs._check_read_fields`)."""
    for name, value, kind in (
        ("model", model, ModelSpec),
        ("cluster", cluster, ClusterSpec),
        ("workload", workload, WorkloadSpec),
    ):
        if not isinstance(value, kind):
            raise type_error(name, value, kind.__name__)
    _check_read_fields(model, workload)


def _pp_warnings(model: ModelSpec, pp: int, edges: tuple[int, int] = (0, 0)) -> tuple[Reason, ...]:
    """The selection matrix's warning for an uneven pipeline split (``pp_balance``), if any.

    With edge layers (the first and last stages' ``edges``, :func:`coursekit.specs.pipeline_edges_at`) the range is
    that of the split the plan counts (:func:`coursekit.specs.stage_layer_counts`, the explanation's pipeline line),
    not of an even split: DeepSeek-V3's 61 layers on 16 stages with edges (0, 3) hold 1 to 4 layers, not 3 to 4. A
    split that leaves a stage without a layer has the ``pp_layers`` reason instead.
    """
    rule = _pp_rule(pp, model.layers)
    if not any(edges) or pp == 1 or (rule is not None and rule.code == "pp_layers"):
        return (rule,) if rule is not None and rule.code == "pp_balance" else ()
    layers = model.layers
    first, mid, last = (int(x) for x in stage_layer_counts(layers, pp, *edges))
    sizes = [first, last] if pp == 2 else [first, last, mid, (layers - first - last) // (pp - 2)]
    low, high = min(sizes), max(sizes)
    if low < 1 or low == high:
        return ()
    if rule is not None and (rule.params["low"], rule.params["high"]) == (low, high):
        return (rule,)  # the even split's range: its own words (Llama 3 405B's 7 to 8 on 16 stages)
    params = {"layers": layers, "pp": pp, "edge": edges[0], "last_edge": edges[1], "low": low, "high": high}
    return (Reason("pp_balance", "planner.pp_balance_edges", params),)


def _memory_ledger(est: dict[str, Any], cluster: ClusterSpec, workload: WorkloadSpec, i: int = 0) -> MemoryLedger:
    """Row ``i`` of the estimate's per-rank memory, in GiB."""
    mem = {key: float(value[i]) / GIB_BYTES for key, value in est["memory"].items()}
    return MemoryLedger(
        params_gib=mem["params"],
        grads_gib=mem["grads"],
        optimizer_gib=mem["optimizer"],
        workspace_gib=mem["workspace"],
        activations_gib=mem["activations"],
        reserve_gib=workload.runtime_reserve_gib,
        total_gib=mem["total"],
        device_gib=cluster.memory_per_device_gib,
    )


def _training_timeline(est: dict[str, Any], i: int = 0) -> StepTimeline:
    """Row ``i`` of the estimate's step time, as a timeline."""
    return StepTimeline._of_checked(
        compute_s=float(est["compute_s"][i]),
        communication_s=float(est["communication_s"][i]),
        exposed_communication_s=float(est["exposed_s"][i]),
        hidden_communication_s=float(est["hidden_s"][i]),  # never below 0: training_estimate clamps it
        bubble_s=float(est["bubble_s"][i]),
        input_wait_s=0.0,
        step_s=float(est["step_s"][i]),
        load_imbalance_s=0.0,
        host_wait_s=float(est["host_wait_s"][i]),
    )


def _training_candidate(g: GateInput, mode: str, i: int = 0) -> PlanCandidate:
    """Training composition ``i`` of ``g``: every gate's test and reason from :data:`PLAN_GATES`, and, if
    well formed, its ledger, communication rows and step time from the estimate the search runs."""
    model, cluster, workload = g.model, g.cluster, g.workload
    degrees = {key: g.value(key, i) for key in ("tp", "pp", "dp", "cp", "ep", "etp", "v", "zero", "mb", "ga")}
    est = g.estimate if bool(g.well_formed[i]) else None  # first: the memory gate then reads its ledger
    reasons = reasons_of(g, i)
    ledger = _memory_ledger(est, cluster, workload, i) if est is not None else None
    rows = _training_rows(model, cluster, workload, est, i, mode=mode, **degrees) if est is not None else ()
    first, mid, last = (int(x[i]) for x in g.stage_layers)
    tokens = workload.global_batch * g.seq_len
    moe = _moe_fields(model, est, i)
    return PlanCandidate(
        mode="training",
        tp=degrees["tp"],
        pp=degrees["pp"],
        dp=degrees["dp"],
        cp=degrees["cp"],
        ep=degrees["ep"],
        etp=degrees["etp"] if model.is_moe else None,
        virtual_stages=degrees["v"],
        zero_stage=degrees["zero"],
        micro_batch=degrees["mb"],
        grad_accum=degrees["ga"],
        recompute=mode,
        replicas=1,
        accepted=not reasons,
        reasons=reasons,
        warnings=_pp_warnings(model, degrees["pp"], (int(g.edge_layers[i]), int(g.last_edge_layers[i]))),
        memory=ledger,
        communication=rows,
        bubble_fraction=float(est["bubble"][i]) if est is not None else None,
        timeline=_training_timeline(est, i) if est is not None else None,
        tokens_per_step=tokens,
        model_flops_per_step=float(est["model_flops_per_token"]) * tokens if est is not None else 0.0,
        world_size=cluster.world_size,
        peak_flops=cluster.peak_flops,
        efficiency=float(est["efficiency"][i]) if est is not None else None,
        intensity_flop_per_byte=float(est["intensity"][i]) if est is not None else None,
        stage_layers=(first, mid, last),
        expert_efficiency=moe.get("expert_efficiency"),
        expert_intensity_flop_per_byte=moe.get("expert_intensity_flop_per_byte"),
        expert_rows=moe.get("expert_rows"),
        permutation_s=moe.get("permutation_s"),
        ep_overlap_slowdown_s=moe.get("ep_overlap_slowdown_s"),
        **_offload_fields(est, i),
    )


def _offload_fields(est: dict[str, Any] | None, i: int) -> dict[str, Any]:
    """The offloaded layers, their host GiB and the copies' seconds of candidate ``i`` where it offloads."""
    if est is None or not est["memory"] or not est["memory"]["offloaded_layers"][i]:
        return {}
    memory = est["memory"]
    return {
        "offloaded_layers": int(memory["offloaded_layers"][i]),
        "host_offload_gib": float(memory["host_bytes"][i]) / GIB_BYTES,
        "offload_copy_s": float(est["offload_copy_s"][i]),
        "offload_exposed_s": float(est["offload_exposed_s"][i]),
    }


def _moe_fields(model: ModelSpec, est: dict[str, Any] | None, i: int) -> dict[str, float]:
    """The routed experts' efficiency, intensity and rows and the token permutation seconds of candidate ``i``
    (MoE with an estimate; empty otherwise)."""
    if est is None or not model.is_moe:
        return {}
    return {
        "expert_efficiency": float(est["expert_efficiency"][i]),
        "expert_intensity_flop_per_byte": float(est["expert_intensity"][i]),
        "expert_rows": float(est["expert_rows"][i]),
        "permutation_s": float(est["permutation_s"][i]),
        "ep_overlap_slowdown_s": float(est["ep_overlap_slowdown_s"][i]),
    }


def _training_rows(
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    est: dict[str, Any],
    i: int,
    *,
    tp: int,
    pp: int,
    dp: int,
    cp: int,
    ep: int,
    etp: int,
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
    comm = {dim: float(est["comm"][dim][i]) for dim in (*COMM_DIMENSIONS, "EP_intra", "EP_inter")}
    first, mid, last = (int(x[i]) for x in est["stage_layers"])
    layers = max(first, mid, last)
    world = tp * cp * dp * pp
    dpc = dp * cp
    edp = world // (etp * ep * pp)
    tokens = s // cp
    rows: list[CommRow] = []
    sp = workload.sequence_parallel
    if model.is_moe and (tp > 1 or etp > 1):  # the attention block over TP, the expert block over expert TP
        attention = _tp_entries(tokens, mb, model.hidden, layers, tp, ACTIVATION_BYTES, sp, mode, ga, 1)
        gathered = expert_tp_gathered_tokens(model, workload, tokens, tp, etp, ep)
        experts = (  # none where the flex dispatcher's all-to-all already reached every ETP rank
            _tp_entries(gathered, mb, model.hidden, layers, etp, ACTIVATION_BYTES, sp, mode, ga, 1) if gathered else ()
        )
        t = max(tp, etp)
        rows.append(_comm_row("TP", attention + experts, t, cluster, t, comm["TP"], ring_ranks=t, used=world))
    elif tp > 1:
        entries = _tp_entries(tokens, mb, model.hidden, layers, tp, ACTIVATION_BYTES, sp, mode, ga)
        rows.append(_comm_row("TP", entries, tp, cluster, tp, comm["TP"], ring_ranks=tp, used=world))
    if cp > 1:
        entries = _cp_entries(s, mb, model._kv_width_per_rank(tp), layers, cp, ACTIVATION_BYTES, ga, mode == "full")
        rows.append(_comm_row("CP", entries, cp, cluster, tp * cp, comm["CP"], used=world))
    if model.is_moe and ep > 1:
        dispatched = ep_dispatched_tokens(workload, tokens, tp, etp)
        element = ep_element_bytes(workload)
        copies = ep_sent_copies(model, workload)
        entries = _ep_entries(dispatched, mb, model.hidden, layers, ep, copies, element, ga)
        if "moe" in workload.recompute_modules or mode == "full":  # the block's forward again (estimate._ep_comm)
            entries += _ep_recompute_entries(dispatched, mb, model.hidden, layers, ep, copies, element, ga)
        split = (comm["EP_intra"], comm["EP_inter"])
        rows.append(_comm_row("EP", entries, ep, cluster, etp * ep, comm["EP"], split, used=world))
    if pp > 1:
        entries = _pp_entries(tokens, mb, max(1, model.hidden // tp), pp, ga * v, ACTIVATION_BYTES)
        rows.append(_comm_row("PP", entries, pp, cluster, world, comm["PP"], used=world))
    units = layers if zero == 3 else 1
    edges = pipeline_edges_at(
        model.layers, pp, workload.pipeline_edge_layers, workload.pipeline_last_edge_layers, model.mtp_layers
    )
    dense_stage = max(model._stage_dense_params(pp, *edges))
    trained: dict[str, float | None] = {"DP": None, "EDP": None}
    if workload.lora_rank is not None:  # only the adapters have gradients (the estimate's _lora_stage_params)
        trained["DP"], trained["EDP"] = (float(x[i]) for x in est["lora_trained"])
    for dimension, params, ranks in (
        ("DP", dense_stage / tp, dpc),
        ("EDP", layers * model.num_experts * model.expert_params / (etp * ep), edp if model.is_moe else 1),
    ):
        if ranks > 1 and params > 0:
            entries = _zero_entries(
                params, ranks, zero, recipe.param_bytes, recipe.grad_bytes, units, ga, trained[dimension]
            )
            rows.append(
                _comm_row(
                    dimension, entries, ranks, cluster, world // pp, comm[dimension], ring_ranks=ranks, used=world
                )
            )
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
    from ..serving import evaluate_layout

    serving = evaluate_layout(model, cluster, workload.serving_workload(model), tp, pp, replicas)
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
    g = GateInput(model, cluster, workload, _one_row(tp=tp, pp=pp, replicas=replicas), candidate_mode="serving")
    reasons.update((reason.code, reason) for reason in reasons_of(g, codes=("ranks",)))
    for reason in serving.reasons:
        code = _SERVING_CODES[reason.code]
        reasons.setdefault(code, Reason(code, reason.key, reason.params))
    well_formed = not (set(reasons) & WELL_FORMED_CODES)
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
        timeline = StepTimeline._of_checked(
            compute_s=estimate.time_per_output_token_s - estimate.decode_comm_s,
            communication_s=estimate.decode_comm_s,
            exposed_communication_s=estimate.decode_comm_s,
            hidden_communication_s=0.0,
            bubble_s=0.0,
            input_wait_s=0.0,
            step_s=estimate.time_per_output_token_s,
            load_imbalance_s=0.0,
        )
    reasons.update((reason.code, reason) for reason in reasons_of(g, codes=("mode", "serving")))
    ordered = tuple(reasons[code] for code in GATE_CODES if code in reasons)
    tokens = serving.requests  # one output token per request per decode step (replicas may hold one fewer)
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
        warnings=_pp_warnings(model, pp),
        memory=ledger,
        communication=(),
        bubble_fraction=0.0 if estimate is not None else None,
        timeline=timeline,
        tokens_per_step=tokens,
        model_flops_per_step=2.0 * model.matmul_params * tokens,
        world_size=world,
        peak_flops=cluster.peak_flops,
        serving=serving if well_formed else None,
    )


# --------------------------------------------------------------------------- the search


#: Candidate rows of the gated spaces :func:`_gated_space` keeps, all together (least recently used dropped first;
#: about 170 bytes a row: a lesson's searches of 10,000 to 30,000 rows, not a 4,096-GPU one).
GATED_SPACE_CACHE_ROWS: int = 200_000
_gated_spaces: OrderedDict[tuple[Any, ...], tuple[dict[str, Any], dict[str, Any], dict[str, Any], Any]] = OrderedDict()


def _gate_inputs_key(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> tuple[Any, ...]:
    """What the training space, the gates and the memory ledger read: the model, the cluster's shape, device
    memory, FP8 GEMM layout rule and host memory, and the workload but its flat efficiency and overlap (the step
    estimate alone reads those, and the cluster's bandwidths, latencies and peak FLOP/s)."""
    # a key only, of a validated workload with two optional fields unset: no checks to run again
    rest = _replace_valid(workload, achievable_flops_fraction=None, overlap_fraction=None)
    return (
        model,
        cluster.nodes,
        cluster.gpus_per_node,
        cluster.domain_gpus,
        cluster.memory_per_device_gib,
        cluster.fp8_any_layout,  # the bytes of cached FP8 weights (fp8_weight_cache)
        cluster.host_memory_per_device_gib,  # the offload gate (and whether there is a host to offload to)
        rest,
    )


def _gated_space(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], Any]:
    """(columns, each gate's failures, memory ledger, memory GiB or NaN) of every training candidate, kept per
    :func:`_gate_inputs_key`: a learner moving the efficiency, the overlap or a link's speed re-estimates the
    steps only. The arrays are shared between plans, so they are read-only."""
    import numpy as np

    key = _gate_inputs_key(model, cluster, workload)
    kept = _gated_spaces.get(key)
    if kept is not None:
        _gated_spaces.move_to_end(key)
        return kept
    c = training_space(model, cluster, workload)
    g = GateInput(model, cluster, workload, c)
    fails = {code: g.fails(code) for code in GATE_CODES}  # the memory gate estimates the well-formed rows' ledgers
    memory_gib = np.where(g.well_formed, g.memory["total"] / GIB_BYTES, np.nan)
    kept = (c, fails, g.memory, memory_gib)
    for column in (*c.values(), *fails.values(), *g.memory.values(), memory_gib):
        column.flags.writeable = False
    _gated_spaces[key] = kept
    while sum(len(part[3]) for part in _gated_spaces.values()) > GATED_SPACE_CACHE_ROWS:
        _gated_spaces.popitem(last=False)  # the space just kept too, when it alone is larger
    return kept


def _training_table(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> CandidateTable:
    """Every training candidate: the structural checks, then the estimate (memory, context, step time)."""
    import numpy as np

    c, fails, memory, memory_gib = _gated_space(model, cluster, workload)
    accepted = ~np.logical_or.reduce(list(fails.values()))
    # The step is estimated for the accepted candidates, the ones ordered, tied and listed; a rejected candidate's
    # when asked for (PlanResult.estimated_step_s, .candidate): the same estimate, on its own row.
    rows = np.flatnonzero(accepted)
    # the kept ledger's offloading entries ride along: an offloading row's step reads them (no second ledger)
    kept = {**c, **{key: memory[key] for key in OFFLOAD_COLUMNS}}
    listed = GateInput(model, cluster, workload, {key: column[rows] for key, column in kept.items()})
    est = training_estimate(model, cluster, workload, listed.columns, with_memory=False)
    est["memory"] = {key: value[rows] for key, value in memory.items()}
    listed.estimate = est  # the search's own estimate: a listed candidate is not estimated again
    listed._fails.update((code, np.zeros(rows.size, dtype=bool)) for code in GATE_CODES)  # they pass every gate
    step_s = np.full(len(accepted), np.nan)
    step_s[rows] = est["step_s"]

    def candidates(indices: list[int]) -> list[PlanCandidate]:
        positions = np.searchsorted(rows, indices).tolist()
        return [_training_candidate(listed, PLAN_RECOMPUTE_MODES[listed.value("rc", p)], p) for p in positions]

    return CandidateTable(
        columns={**{key: c[key] for key in INT_COLUMNS}, **{key: memory[key] for key in OFFLOAD_COLUMNS}},
        fails=fails,
        step_s=step_s,
        memory_gib=memory_gib,
        accepted=accepted,
        accepted_candidates=candidates,
    )


def _serving_table(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec
) -> tuple[CandidateTable, list[PlanCandidate]]:
    """Every serving layout, searched by :func:`coursekit.serving.plan_serving` and kept in its order (best
    throughput per GPU first): the planner's serving mode ranks exactly as the serving search does."""
    import numpy as np

    from ..serving import plan_serving  # serving imports the planner's specs, so not at module level

    searched = plan_serving(model, cluster, workload.serving_workload(model))
    candidates = [_serving_plan_candidate(model, cluster, workload, c) for c in searched.candidates]
    columns = {key: np.array([_column_value(cand, key) for cand in candidates], dtype=np.int64) for key in INT_COLUMNS}
    fails = {code: np.array([code in cand.codes for cand in candidates], dtype=bool) for code in GATE_CODES}
    step = np.array([cand.step_s if cand.step_s is not None else np.nan for cand in candidates], dtype=np.float64)
    memory = np.array(
        [cand.memory.total_gib if cand.memory is not None else np.nan for cand in candidates], dtype=np.float64
    )
    accepted = np.array([cand.accepted for cand in candidates], dtype=bool)
    # what plan_serving ranks by: every replica's output tokens/s (a lighter last replica at its own batch) per GPU
    gpu_s_per_token = np.array(
        [1.0 / c.tokens_per_s_per_gpu if c.estimate is not None else np.nan for c in searched.candidates],
        dtype=np.float64,
    )
    order = np.arange(len(candidates), dtype=np.float64)
    return CandidateTable(columns, fails, step, memory, accepted, rank=order, tie_value=gpu_s_per_token), candidates


#: The searched degrees a report lists (a mixture of experts adds ``etp`` after ``ep``).
DEGREE_KEYS_SEARCHED: tuple[str, ...] = ("tp", "pp", "dp", "cp", "ep", "v", "zero", "mb")


def _column_value(candidate: PlanCandidate, key: str) -> int:
    if key == "rc":
        return PLAN_RECOMPUTE_MODES.index(candidate.recompute)
    if key == "etp":
        return candidate.tp if candidate.etp is None else candidate.etp
    attr = {"v": "virtual_stages", "zero": "zero_stage", "mb": "micro_batch", "ga": "grad_accum"}.get(key, key)
    value: int = getattr(candidate, attr)
    return value


def _distinct(column: Any) -> tuple[int, ...]:
    """The distinct values of a column of degrees (non-negative ints), ascending."""
    import numpy as np

    if column.size and 0 <= column.min() and column.max() <= MAX_WORLD_SIZE:
        return tuple(np.flatnonzero(np.bincount(column)).tolist())  # counting beats sorting for small ints
    return tuple(int(x) for x in np.unique(column))


def _position_table_notes(model: ModelSpec, workload: WorkloadSpec) -> tuple[Text, ...]:
    """The notes on this model at this workload's sequences (a training sequence, or in serving mode a request's
    prompt plus its output tokens): longer than a learned position table holds
    (:meth:`~coursekit.specs.ModelSpec.position_table_note`), and what a sliding window changes
    (:meth:`~coursekit.specs.ModelSpec.window_note`)."""
    tokens = workload.tokens_per_sequence(model)
    if workload.mode != "training":
        tokens += workload.output_tokens
    notes = (model.position_table_note(tokens), model.window_note(tokens, serving=workload.mode != "training"))
    return tuple(note for note in notes if note is not None)


def _dimensions_and_assumptions(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, columns: Mapping[str, Any]
) -> tuple[dict[str, tuple[Any, ...]], Assumptions]:
    """The searched values of each dimension in ``columns``, and the assumptions the result states (the serving
    search states its own, and its own tie tolerance)."""
    keys = ("tp", "pp", "dp", "cp", "ep", "etp", "v", "zero", "mb") if model.is_moe else DEGREE_KEYS_SEARCHED
    dims: dict[str, tuple[Any, ...]] = {key: _distinct(columns[key]) for key in keys}
    uncertainty = MODEL_UNCERTAINTY
    workload_notes = _position_table_notes(model, workload) + cluster.unit_notes()
    notes = workload_notes + ESTIMATE_NOTES
    if workload.mode == "training":
        dims["recompute"] = workload.recompute_modes
    else:
        from ..serving import SERVING_ASSUMPTIONS, TIE_TOLERANCE

        dims = {key: _distinct(columns[key]) for key in ("replicas", "tp", "pp")}
        uncertainty = TIE_TOLERANCE
        notes = workload_notes + tuple(
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
        workload_notes=workload_notes,
        overlap=tuple((dim, workload.overlap(dim)) for dim in ("dp", "pp", "cp", "tp", "ep")),
        efficiency_calibration=EFFICIENCY_CALIBRATION if workload.achievable_flops_fraction is None else "",
        uncertainty=uncertainty,
    )
    return dims, assumptions


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
    _check_specs(model, cluster, workload)
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
        counts = int(np.count_nonzero(removed)), int(np.count_nonzero(alive))  # (bool.sum() adds them as ints)
        funnel.append(FunnelStep(gate.code, gate.description, *counts))
    elapsed = time.perf_counter() - start
    dims, assumptions = _dimensions_and_assumptions(model, cluster, workload, table.columns)
    return PlanResult(
        model=model,
        cluster=cluster,
        workload=workload,
        assumptions=assumptions,
        space_dimensions=dims,
        funnel=tuple(funnel),
        elapsed_s=elapsed,
        _table=table,
        _evaluate=evaluate_composition,
        _evaluate_checked=_evaluate_checked,
        _evaluate_rows=_evaluate_rows,
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
        raise type_error("model", spec, "ModelSpec or preset name")
    if not isinstance(node, ClusterSpec):
        raise type_error("cluster", node, "ClusterSpec or preset name")
    # at most the slowdown that leaves the link at ClusterSpec's floor, so the refusal names link_slowdown
    slowest = node.inter_node_bandwidth_bytes_per_s / MIN_BANDWIDTH_BYTES_PER_S
    slowdown = check_number("link_slowdown", link_slowdown, ge=1, le=min(1e6, slowest))
    if check_bool("moe", moe) and not spec.is_moe:
        spec = spec.as_moe(8, 2)
    node = node.with_nodes(nodes)
    if slowdown != 1:
        node = replace(node, inter_node_bandwidth_bytes_per_s=node.inter_node_bandwidth_bytes_per_s / slowdown)
    return plan(spec, node, workload)


learner_functions(globals())
