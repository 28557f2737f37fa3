"""The estimate, written once: memory ledger, communication, compute efficiency and step time over arrays.

Every number here is computed for a whole column of candidates at once (numpy arrays), by the
array kernels of :mod:`coursekit.capacity`, :mod:`coursekit.communication`,
:mod:`coursekit.pipeline` and :mod:`coursekit.roofline` — the same kernels their public functions
call. :func:`coursekit.planner.plan` runs it over the whole search space; ``explain`` runs it over a
one-row column. There is no second, scalar copy of these formulas.

Compute efficiency (issue "no compute-efficiency model"): each GPU multiplies ``mb·s/cp`` tokens by
weight shards ``hidden/tp`` wide. :func:`coursekit.roofline.transformer_layer_matmul_intensity` gives
those matmuls' arithmetic intensity, and the smooth roofline
:func:`coursekit.roofline.achieved_flops` turns it into a share of peak: high TP, tiny micro-batches
and high CP lower the intensity and so the efficiency. The roofline's ``ceiling`` — the share of peak
the best large matmuls reach inside a whole training step — is the model's one fitted constant,
:data:`EFFICIENCY_CEILING`, calibrated once on Megatron-LM's Table 1 (see there).

Taught in: lesson 9 (decision workbench); the roofline itself in lesson 7.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..activations import _layer_activation_terms
from ..capacity import PRECISION_RECIPES, RECOMPUTE_MODES, _state_bytes
from ..communication import (
    _all_to_all_two_tier_s,
    _collective_time_s,
    _cp_step_times_s,
    _ep_calls,
    _ep_payload_bytes,
    _ep_remote_share,
    _pp_time_s,
    _tp_time_s,
    _zero_calls,
    _zero_payloads,
)
from ..overlap import (
    _bucket_params,
    _cp_block_attention_flops,
    _exposed_after_window_s,
    _ring_step_exposed_s,
)
from ..pipeline import _bubble_fraction, _microbatches_in_flight
from ..roofline import (
    ROOFLINE_SMOOTHNESS,
    _achieved_flops,
    _hardware_flops_per_token,
    _model_flops_per_token,
    _transformer_layer_matmul_intensity,
)
from ..specs import _peak_flops, stage_layer_counts
from .calibration import EFFICIENCY_CEILING, MAMF_SOURCE, ceiling_for
from .specs import ACTIVATION_BYTES, ClusterSpec, ModelSpec, WorkloadSpec

__all__ = [
    "COMM_DIMENSIONS",
    "EFFICIENCY_CALIBRATION",
    "EFFICIENCY_CEILING",
    "EFFICIENCY_SMOOTHNESS",
    "MODEL_UNCERTAINTY",
    "training_estimate",
]

#: The roofline's smoothness exponent: the course's stated shape (:data:`coursekit.roofline.ROOFLINE_SMOOTHNESS`),
#: not fitted.
EFFICIENCY_SMOOTHNESS: float = ROOFLINE_SMOOTHNESS
#: What the calibration rests on, shown with every result.
EFFICIENCY_CALIBRATION: str = (
    "ceiling fitted once on Megatron-LM Table 1 (Narayanan et al. 2021, arXiv:2104.04473): geometric mean of "
    "estimated / published TFLOP/s per GPU = 1 over its ten A100 runs; carried to other GPUs by their measured "
    "best-matmul share of peak (" + MAMF_SOURCE + ")"
)
#: The relative uncertainty the estimate states: the largest |estimated ÷ published - 1| of step time over
#: the calibration set, rounded up to 5 %. Candidates whose estimates differ by less are a tie.
MODEL_UNCERTAINTY: float = 0.20

#: Communication dimensions in the order the ledger shows them.
COMM_DIMENSIONS: tuple[str, ...] = ("TP", "CP", "EP", "PP", "DP", "EDP")


def _link(np: Any, cluster: ClusterSpec, span: Any) -> tuple[Any, Any, Any]:
    """(intra?, bandwidth, latency) of groups spanning ``span`` consecutive ranks (see ``group_link``)."""
    g = cluster.gpus_per_node
    intra = (span <= g) & (g % np.maximum(span, 1) == 0)
    bandwidth = np.where(intra, cluster.intra_node_bandwidth_bytes_per_s, cluster.inter_node_bandwidth_bytes_per_s)
    latency = np.where(intra, cluster.intra_node_latency_s, cluster.inter_node_latency_s)
    return intra, bandwidth, latency


def _flops_per_token(model: ModelSpec, s: int, rc: Any, np: Any) -> tuple[Any, float, float]:
    """(executed FLOPs per token by recompute code, model FLOPs per token, output-layer FLOPs per token).

    Model FLOPs are PaLM's 6·N_active + 12·L·h·s (:func:`coursekit.roofline.model_flops_per_token`).
    Selective recomputation repeats attention's core forward (4·L·h·s); full recomputation repeats the
    layers' forward (2·N_layers + 4·L·h·s), not the output layer (Megatron-LM does not recompute it).
    """
    L, h = model.layers, model.attention_flops_width  # = hidden, except for MLA's wider query/key heads
    active = float(model.active_params)
    model_flops = float(_model_flops_per_token(active, L, h, s))
    output_flops = 6.0 * model.vocab * h
    layer_params = float(model.active_params - model.input_embedding_params - model.output_params)
    by_mode = [float(_hardware_flops_per_token(active, L, h, s, mode, layer_params)) for mode in RECOMPUTE_MODES]
    executed = np.select([rc == code for code in range(len(RECOMPUTE_MODES))], by_mode, model_flops)
    return executed, model_flops, output_flops


def precision_peak_flops(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, executed: Any, rc: Any) -> Any:
    """Peak FLOP/s of one device for the step's mix of matmuls at the workload's precision; array-generic.

    bf16: the device's bf16 peak. fp8: the linear layers' GEMMs at the FP8 peak, attention's core at bf16
    (12·L·h·s per token, plus the 4·L·h·s forward that selective and full recomputation repeat), combined
    by their shares of the executed FLOPs per token ``executed`` (a harmonic mean). ``rc`` is the recompute
    code. A device without FP8 is refused (:meth:`ClusterSpec.peak`).
    """
    bf16 = _peak_flops(cluster, "bf16")  # the workload's precision was checked when it was built
    if workload.precision == "bf16":
        return bf16
    fp8 = _peak_flops(cluster, "fp8")
    forward_core = 4.0 * model.layers * model.attention_flops_width * workload.tokens_per_sequence(model)
    core = (3.0 + (rc >= 1)) * forward_core / executed
    return 1.0 / (core / bf16 + (1.0 - core) / fp8)


def matmul_efficiency(
    model: ModelSpec, cluster: ClusterSpec, tokens: Any, tp: Any, ceiling: float | None = None
) -> tuple[Any, Any]:
    """Share of peak the per-GPU matmuls reach: ``tokens`` (= mb·s/cp) rows against weight shards ``/tp``.

    The smooth roofline of :func:`coursekit.roofline.achieved_flops` at the FLOP-weighted intensity of one
    layer's four linear matmuls, with ceiling ``ceiling`` (default: the device's,
    :func:`coursekit.planner.calibration.ceiling_for`). For a mixture of experts the
    MLP width is ``top_k`` experts side by side (a grouped GEMM with every routed token), an
    approximation that ignores how few tokens each expert gets.
    """
    ffn = (model.moe_ffn_hidden or model.ffn_hidden) * model.top_k if model.is_moe else model.ffn_hidden
    intensity = _transformer_layer_matmul_intensity(
        tokens, model.hidden, ffn, model.kv_hidden, tp, 3 if model.mlp == "swiglu" else 2, ACTIVATION_BYTES
    )
    peak = cluster.peak_flops
    ceiling = ceiling_for(peak) if ceiling is None else ceiling
    achieved = _achieved_flops(intensity, peak, cluster.memory_bandwidth_bytes_per_s, ceiling, EFFICIENCY_SMOOTHNESS)
    return achieved / peak, intensity


def training_estimate(
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    c: Mapping[str, Any],
    *,
    efficiency_shape: float = 1.0,
    bubble_scale: float = 1.0,
    with_memory: bool = True,
) -> dict[str, Any]:
    """Memory ledger, communication per dimension, efficiency and step time for the columns ``c``.

    ``c`` maps ``tp, cp, pp, dp, ep, v, zero, mb, ga, rc`` (recompute code, index into
    ``RECOMPUTE_MODES``) to equal-length integer arrays. Returns a dict of float arrays (bytes and
    seconds); keys are documented inline. Malformed rows (see the structural gates) get numbers too;
    the caller masks them. ``efficiency_shape`` k bends the efficiency curve below its ceiling,
    ``ceiling · (efficiency / ceiling)**k`` (1: the model; 0.5 halves and 2 doubles how much smaller
    matmuls lose — what :mod:`coursekit.planner.ties` moves within its uncertainty); ``bubble_scale``
    multiplies the pipeline bubble (1: the schedule's formula). ``with_memory=False`` skips the memory ledger
    (``"memory"`` is then empty): the step time does not depend on it, and the tie scenarios need only the step.
    """
    import numpy as np

    f64 = np.float64
    tp, cp, pp, dp, ep, v = (np.asarray(c[key]) for key in ("tp", "cp", "pp", "dp", "ep", "v"))
    zero, mb, ga, rc = (np.asarray(c[key]) for key in ("zero", "mb", "ga", "rc"))
    tpf, cpf, ppf, dpf, epf, vf = (x.astype(f64) for x in (tp, cp, pp, dp, ep, v))
    mbf, gaf = mb.astype(f64), ga.astype(f64)
    recipe = PRECISION_RECIPES[workload.recipe]
    pb, gb_, kb = recipe.param_bytes, recipe.grad_bytes, recipe.optimizer_bytes
    s = workload.tokens_per_sequence(model)
    L, h = model.layers, model.hidden
    used = tpf * cpf * dpf * ppf
    dpc = dpf * cpf
    edp = used / (tpf * epf * ppf)
    sp = workload.sequence_parallel

    # ---- pipeline stages: layers and parameters of the first, heaviest middle and last stage
    first, mid, last = (x.astype(f64) for x in stage_layer_counts(L, pp, workload.pipeline_edge_layers))
    layers_max = np.maximum(np.maximum(first, mid), last)
    single = (pp == 1).astype(f64)
    p_layer = float(model.dense_params_per_layer)
    p_experts = float(model.num_experts * model.expert_params)
    stage_params = model.stage_dense_params(pp, workload.pipeline_edge_layers)
    dense = {kind: x.astype(f64) for kind, x in zip(("first", "mid", "last"), stage_params, strict=True)}
    stage_layer = {"first": first, "mid": mid, "last": last}

    # ---- memory of each stage kind; the ledger is the heaviest (skipped without with_memory)
    memory: dict[str, Any] = {}
    if with_memory:
        # What each layer saves, tensor by tensor, for this model's widths (coursekit.activations). Full
        # recomputation re-runs one layer at a time: its working set is that layer's activations, taken without
        # the attention-score term (this assumes fused / flash attention, which does not materialise the s×s scores).
        widths, flash = model.layer_widths(), workload.flash_attention
        full_none = _layer_activation_terms(widths, float(s), mbf, tpf, sp, np.ones_like(rc), cpf, flash)[2]
        per_layer = _layer_activation_terms(widths, float(s), mbf, tpf, sp, rc, cpf, flash)[2]
        inflight = dict(zip(("first", "mid", "last"), _microbatches_in_flight(ppf, gaf, vf), strict=True))
        logits = model.logits_bytes(float(s) * mbf, tpf * cpf)
        workspace = (zero == 3) * (dpc > 1) * pb * p_layer / tpf
        if model.is_moe:
            workspace = workspace + (zero == 3) * (edp > 1) * pb * p_experts / (tpf * epf)
        reserve = workload.runtime_reserve_gib * float(1 << 30)

        def stage_memory(kind: str, act_per_layer: Any, act_inflight: Any, act_full_extra: Any) -> dict[str, Any]:
            params, grads, optimizer = _state_bytes(dense[kind] / tpf, dpc, zero, pb, gb_, kb)
            if model.is_moe:
                experts = stage_layer[kind] * p_experts / (tpf * epf)
                ep_par, ep_grad, ep_opt = _state_bytes(experts, edp, zero, pb, gb_, kb)
                params, grads, optimizer = params + ep_par, grads + ep_grad, optimizer + ep_opt
            has_logits = 1.0 if kind == "last" else single
            activations = act_per_layer * stage_layer[kind] * act_inflight + act_full_extra + has_logits * logits
            fixed = params + grads + optimizer + workspace + reserve
            return {
                "params": params,
                "grads": grads,
                "optimizer": optimizer,
                "workspace": workspace + 0 * params,
                "activations": activations,
                "fixed": fixed,
                "total": fixed + activations,
            }

        full_extra = (rc == 2) * full_none
        stages = [stage_memory(kind, per_layer, inflight[kind], full_extra) for kind in ("first", "mid", "last")]
        totals = np.stack([st["total"] for st in stages])
        heaviest = np.argmax(totals, axis=0)
        memory = {key: np.choose(heaviest, [st[key] for st in stages]) for key in stages[0]}

    # ---- compute: executed FLOPs of the slowest stage at the efficiency its matmul shapes allow
    executed, model_flops, output_flops = _flops_per_token(model, s, rc, np)
    # The layers' share: executed FLOPs minus PaLM's 6·N share of the parameters outside the layers (the
    # embedding lookup does no matmul); the output layer's matmul, 6·V·h, is the last stage's.
    non_layer = 6.0 * (model.input_embedding_params + model.output_params)
    per_layer_flops = (executed - non_layer) / L
    work = np.maximum(
        np.maximum(first * per_layer_flops + single * output_flops, mid * per_layer_flops),
        last * per_layer_flops + output_flops,
    )
    tokens_rank = mbf * s / cpf
    efficiency, intensity = matmul_efficiency(model, cluster, tokens_rank, tpf, workload.efficiency_ceiling)
    if efficiency_shape != 1.0:
        top = ceiling_for(cluster.peak_flops) if workload.efficiency_ceiling is None else workload.efficiency_ceiling
        efficiency = top * (efficiency / top) ** efficiency_shape
    if workload.achievable_flops_fraction is not None:
        efficiency = np.full_like(tpf, workload.achievable_flops_fraction)
    tokens_step = float(workload.global_batch) * s
    peak = precision_peak_flops(model, cluster, workload, executed, rc)
    compute = tokens_step * work / (tpf * cpf * dpf * peak * efficiency)
    bubble = np.where(pp > 1, _bubble_fraction(ppf, gaf, vf), 0.0)
    bubble_s = bubble_scale * bubble / (1 - bubble) * compute

    # ---- communication per dimension, each on its group's link
    comm: dict[str, Any] = {}
    links: dict[str, Any] = {}
    tokens = float(s) / cpf
    intra, bw, lat = _link(np, cluster, tp)
    links["TP"] = intra
    comm["TP"] = (tp > 1) * _tp_time_s(
        tokens, mbf, float(h), layers_max, tpf, ACTIVATION_BYTES, sp, rc == 2, gaf, bw, lat
    )
    intra, bw, lat = _link(np, cluster, tp * cp)
    links["CP"] = intra
    kv_rank = model.kv_width_per_rank(tpf)
    cp_send_f, cp_send_b = _cp_step_times_s(float(s), cpf, mbf, kv_rank, ACTIVATION_BYTES, bw, lat)
    # cp-1 ring steps per layer and micro-batch; full recomputation runs the forward ring a second time
    ring_steps = (cp > 1) * (cpf - 1) * layers_max * gaf
    forward_rings = 1.0 + (rc == 2)
    # after the last backward step the accumulated dK, dV (one block) travel home: no compute left to hide it
    dkv_home = (cp > 1) * layers_max * gaf * cp_send_f
    comm["CP"] = ring_steps * (forward_rings * cp_send_f + cp_send_b) + dkv_home
    # the attention of one ring step (causal, zig-zag balanced), the compute a K/V block can hide under
    width = float(model.attention_flops_width)
    cp_attention_f = _cp_block_attention_flops(float(s), cpf, mbf, width, tpf) / (cluster.peak_flops * efficiency)
    comm["EP"] = np.zeros_like(tpf)
    comm["EP_intra"] = np.zeros_like(tpf)
    comm["EP_inter"] = np.zeros_like(tpf)
    links["EP"] = np.ones(tp.shape, dtype=bool)
    if model.is_moe:
        g = cluster.gpus_per_node
        per_node = np.clip(g // np.minimum(tp, g), 1, None)
        members = np.minimum(epf, per_node.astype(f64))  # EP ranks that share a node (EP ranks are tp apart)
        share = _ep_remote_share(epf, members, model.top_k, workload.ep_dedup_per_node, workload.ep_node_limit)
        payload = _ep_payload_bytes(tokens, mbf, h, ACTIVATION_BYTES, model.top_k)
        calls = _ep_calls(layers_max, gaf)
        one_intra, one_inter = _all_to_all_two_tier_s(
            epf,
            members,
            payload,
            share,
            cluster.intra_node_bandwidth_bytes_per_s,
            cluster.intra_node_latency_s,
            cluster.inter_node_bandwidth_bytes_per_s,
            cluster.inter_node_latency_s,
        )
        comm["EP_intra"] = (ep > 1) * calls * one_intra
        comm["EP_inter"] = (ep > 1) * calls * one_inter
        comm["EP"] = np.maximum(comm["EP_intra"], comm["EP_inter"])
        links["EP"] = members >= epf
    intra, bw, lat = _link(np, cluster, used)
    links["PP"] = intra
    comm["PP"] = _pp_time_s(tokens, mbf, float(h) / tpf, ppf, gaf * vf, ACTIVATION_BYTES, bw, lat)
    intra, bw, lat = _link(np, cluster, used / ppf)
    links["DP"] = links["EDP"] = intra
    units = np.where(zero == 3, layers_max, 1.0)
    all_reduce_calls, reduce_scatter_calls, gather_calls = _zero_calls(zero, units, gaf)
    bucket = _bucket_params(dpc)

    def zero_parts(psi: Any, n: Any) -> tuple[Any, Any, Any, Any]:
        """(reduce s, gather s, last reduce bucket s, first gather bucket s) of ZeRO over ``n`` ranks."""
        grads_payload, params_payload = _zero_payloads(psi, gb_, pb, units)
        reduce_kind_time = np.where(
            zero == 0,
            _collective_time_s("all_reduce", n, grads_payload, bw, lat),
            _collective_time_s("reduce_scatter", n, grads_payload, bw, lat),
        )
        reduce = (n > 1) * (all_reduce_calls + reduce_scatter_calls) * reduce_kind_time
        gather = (n > 1) * gather_calls * _collective_time_s("all_gather", n, params_payload, bw, lat)
        # the bucket that closes backward (ZeRO-3: one layer's reduce-scatter) and the one that opens forward
        tail_params = np.where(zero == 3, psi / units, np.minimum(psi, bucket))
        tail_reduce = np.where(
            zero == 0,
            _collective_time_s("all_reduce", n, tail_params * gb_, bw, lat),
            _collective_time_s("reduce_scatter", n, tail_params * gb_, bw, lat),
        )
        tail_gather = (zero >= 1) * _collective_time_s("all_gather", n, tail_params * pb, bw, lat)
        return reduce, gather, (n > 1) * tail_reduce, (n > 1) * tail_gather

    psi_dense = np.max(np.stack([dense[k] for k in ("first", "mid", "last")]), axis=0) / tpf
    dp_reduce, dp_gather, dp_tail_r, dp_tail_g = zero_parts(psi_dense, dpc)
    comm["DP"] = dp_reduce + dp_gather
    if model.is_moe:
        e_reduce, e_gather, e_tail_r, e_tail_g = zero_parts(layers_max * p_experts / (tpf * epf), edp)
        comm["EDP"] = e_reduce + e_gather
    else:
        e_reduce = e_gather = e_tail_r = e_tail_g = np.zeros_like(tpf)
        comm["EDP"] = np.zeros_like(tpf)
    total_comm = sum(comm[d] for d in COMM_DIMENSIONS)

    # ---- overlap: what each dimension cannot hide (coursekit.overlap)
    o = {dim: workload.overlap(dim) for dim in ("dp", "pp", "cp", "tp", "ep")}
    micro_batch_s = compute / gaf
    # CP: per ring step, the block in flight hides under the attention of the block before it
    exposed_cp = dkv_home + ring_steps * (
        forward_rings * _ring_step_exposed_s(cp_send_f, cp_attention_f, o["cp"])
        + _ring_step_exposed_s(cp_send_b, 2 * cp_attention_f, o["cp"])
    )
    # DP/ZeRO: gradients reduce under backward — the last micro-batch's (stages 0-1), every one's (2-3) —
    # except the last bucket; gathers run under forward — the first micro-batch's (1-2), all compute (3) —
    # except the first. A CP ring on the same inter-node NIC takes its share of the backward window.
    shared_nic = (~links["DP"]) & (~links["CP"]) & (cp > 1)
    cp_in_backward = np.where(shared_nic, ring_steps * cp_send_b / gaf, 0.0)
    reduce_window = np.where(zero >= 2, compute * 2.0 / 3.0, micro_batch_s * 2.0 / 3.0)
    reduce_window = np.maximum(reduce_window - cp_in_backward * np.where(zero >= 2, gaf, 1.0), 0.0)
    gather_window = np.where(zero == 3, compute, micro_batch_s / 3.0)
    exposed_dp = _exposed_after_window_s(dp_reduce + e_reduce, dp_tail_r + e_tail_r, reduce_window, o["dp"])
    exposed_dp = exposed_dp + _exposed_after_window_s(
        dp_gather + e_gather, dp_tail_g + e_tail_g, gather_window, o["dp"]
    )
    # what hides on one link cannot exceed the compute it hides under: one cap per link kind
    hidden_by_dim = {
        "CP": comm["CP"] - exposed_cp,
        "DP": comm["DP"] + comm["EDP"] - exposed_dp,
        "TP": o["tp"] * comm["TP"],
        "EP": o["ep"] * comm["EP"],
        # Megatron-Core overlaps pipeline send/recv only in the interleaved schedule (--overlap-p2p-communication
        # raises "Non-interleaved pipeline parallelism does not support overlapping p2p communication")
        "PP": np.where(v > 1, o["pp"], 0.0) * comm["PP"],
    }
    hidden_intra = sum(np.where(links[dim], part, 0.0) for dim, part in hidden_by_dim.items())
    hidden_inter = sum(np.where(links[dim], 0.0, part) for dim, part in hidden_by_dim.items())
    hidden = np.minimum(hidden_intra, compute) + np.minimum(hidden_inter, compute)
    exposed = total_comm - hidden
    step = compute + exposed + bubble_s
    return {
        "memory": memory,
        "comm": comm,
        "comm_intra": links,
        "communication_s": total_comm,
        "hidden_s": hidden,
        "exposed_s": exposed,
        "compute_s": compute,
        "bubble": bubble,
        "bubble_s": bubble_s,
        "step_s": step,
        "efficiency": efficiency,
        "intensity": intensity,
        "exposed_cp_s": exposed_cp,
        "exposed_dp_s": exposed_dp,
        "executed_flops_per_token": executed,
        "model_flops_per_token": model_flops,
        "stage_layers": (first, mid, last),
    }
