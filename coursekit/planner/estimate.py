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

import decimal
import functools
import inspect
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from .._validate import (
    MAX_INT,
    called_from_outside,
    check_bool,
    check_choice,
    check_column_shapes,
    check_instance,
    check_int,
    check_items,
    check_number,
    check_number_column,
    learner_functions,
)
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
from ..hardware import EP_ALL_TO_ALL_SMS, H100_SMS
from ..i18n import register, shown_repr, tr
from ..overlap import (
    _bucket_params,
    _cp_block_attention_flops,
    _exposed_after_window_s,
    _interleaved_sync_window_microbatches,
    _ring_step_exposed_s,
)
from ..pipeline import _bubble_fraction, _dualpipe_bubble_fraction, _microbatches_in_flight
from ..roofline import (
    ROOFLINE_SMOOTHNESS,
    _achieved_flops,
    _attention_forward_flops_per_token,
    _attention_matmul_totals,
    _expert_matmul_intensity,
    _hardware_flops_per_token,
    _mlp_matmul_totals,
    _model_flops_per_token,
    _transformer_layer_matmul_intensity,
)
from ..specs import (
    FP8_RECIPES,
    FP8_WEIGHT_CACHE_BYTES,
    MAX_BANDWIDTH_BYTES_PER_S,
    MAX_LORA_RANK,
    MIN_BANDWIDTH_BYTES_PER_S,
    MXFP8_COPY_BYTES,
    PLAN_RECOMPUTE_MODES,
    RECOMPUTE_MODULES,
    _inter_node_ring_bandwidth,
    _peak_flops,
    _replace_valid,
    check_attention_kernel,
    check_fp8_recipe,
    fp8_weight_cache_bytes,
    pipeline_edges_at,
    stage_layer_counts,
    type_error,
)
from ..units import GIB_BYTES
from .calibration import (
    ATTENTION_KERNEL_FIGURES,
    CAUSAL_EXECUTED_SHARE,
    EFFICIENCY_CEILING,
    MAMF_SOURCE,
    MOE_LAYER_HOST_S,
    attention_rate_at,
    ceiling_for,
    fp8_share_for,
)
from .specs import ACTIVATION_BYTES, ClusterSpec, ModelSpec, WorkloadSpec

__all__ = [
    "COMM_DIMENSIONS",
    "EFFICIENCY_CALIBRATION",
    "EFFICIENCY_CEILING",
    "EFFICIENCY_SMOOTHNESS",
    "MODEL_UNCERTAINTY",
    "Assumptions",
    "LoraAdapters",
    "frozen_weight_grad_flops_per_token",
    "lora_adapters",
    "moe_host_wait_s",
    "offload_copy_s",
    "training_estimate",
    "training_memory",
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
#: The pipeline stage kinds the ledger weighs: the first, the heaviest middle and the last stage.
STAGE_KINDS: tuple[str, ...] = ("first", "mid", "last")


@dataclass(frozen=True)
class Assumptions:
    """What the estimate assumes that :mod:`coursekit.planner.ties` moves within its uncertainty: the links' bus
    bandwidths (bytes/s, unidirectional), each dimension's overlap share (``dp, pp, cp, tp, ep``), the
    efficiency curve's shape, the pipeline bubble's scale and the scale of the host's launch time per MoE layer
    (see :func:`training_estimate`).

    Each value is a scalar or one value per row of the columns, so that one estimate runs several scenarios at
    once (:meth:`stacked`); a scalar is what the cluster and the workload state (:meth:`of`).
    """

    intra_node_bandwidth_bytes_per_s: Any
    inter_node_bandwidth_bytes_per_s: Any
    overlap: Mapping[str, Any]
    efficiency_shape: Any = 1.0
    bubble_scale: Any = 1.0
    host_scale: Any = 1.0

    @classmethod
    def of(
        cls,
        cluster: ClusterSpec,
        workload: WorkloadSpec,
        efficiency_shape: float = 1.0,
        bubble_scale: float = 1.0,
        host_scale: float = 1.0,
    ) -> Assumptions:
        """The assumptions ``cluster`` and ``workload`` state, with the curve's shape, the bubble's scale and the
        scale of the host's launch time per MoE layer."""
        overlap = {dim: workload.overlap(dim) for dim in ("dp", "pp", "cp", "tp", "ep")}
        intra, inter = cluster.intra_node_bandwidth_bytes_per_s, cluster.inter_node_bandwidth_bytes_per_s
        return cls(intra, inter, overlap, efficiency_shape, bubble_scale, host_scale)

    @classmethod
    def stacked(cls, np: Any, blocks: Sequence[Assumptions], rows: int) -> Assumptions:
        """Scalar ``blocks`` as one value per row of columns tiled once per block: block ``i`` holds rows
        ``i·rows`` to ``(i + 1)·rows - 1``."""

        def per_row(values: list[Any]) -> Any:
            return np.repeat(np.array(values, dtype=np.float64), rows)

        return cls(
            per_row([b.intra_node_bandwidth_bytes_per_s for b in blocks]),
            per_row([b.inter_node_bandwidth_bytes_per_s for b in blocks]),
            {dim: per_row([b.overlap[dim] for b in blocks]) for dim in blocks[0].overlap},
            per_row([b.efficiency_shape for b in blocks]),
            per_row([b.bubble_scale for b in blocks]),
            per_row([b.host_scale for b in blocks]),
        )

    def links(self, cluster: ClusterSpec) -> ClusterSpec:
        """``cluster`` with these bandwidths (the communication terms read a group's link off the cluster; they
        are elementwise, so per-row bandwidths give per-row times). Internal: the copy skips the checks."""
        intra, inter = self.intra_node_bandwidth_bytes_per_s, self.inter_node_bandwidth_bytes_per_s
        if intra is cluster.intra_node_bandwidth_bytes_per_s and inter is cluster.inter_node_bandwidth_bytes_per_s:
            return cluster
        return _replace_valid(cluster, intra_node_bandwidth_bytes_per_s=intra, inter_node_bandwidth_bytes_per_s=inter)


def _bent(np: Any, efficiency: Any, top: float, shape: Any) -> Any:
    """``top · (efficiency / top)**shape``, rows at shape 1 left as they are. ``shape`` is a scalar or one per row;
    each distinct value is raised as a scalar power, as an estimate of one scenario raises it (numpy computes a
    scalar power of 0.5 or 2 as a square root or a square, not as an elementwise ``pow``)."""
    if np.ndim(shape) == 0:
        return efficiency if shape == 1.0 else top * (efficiency / top) ** shape
    out = np.array(efficiency, dtype=np.float64)
    for value in np.unique(shape).tolist():
        if value != 1.0:
            rows = shape == value
            out[rows] = top * (out[rows] / top) ** value
    return out


def _link(np: Any, cluster: ClusterSpec, span: Any, ring_ranks: Any = 1, used: Any = None) -> tuple[Any, Any, Any]:
    """(intra?, bandwidth, latency) of groups spanning ``span`` consecutive ranks (see ``group_link``; ``used`` the
    ranks the layout occupies: all of them on one node keeps every group inside it).

    ``ring_ranks``: the group's ranks when it runs NCCL ring collectives, which cross nodes on the NICs of all the
    group's ranks on a node (``coursekit.specs.ring_nics``; capped by the intra-node bandwidth each channel also
    crosses, never below one NIC); 1 (the default) for point-to-point traffic, which leaves on the rank's own NIC.
    """
    g = cluster.domain_gpus
    intra = (span <= g) & (g % np.maximum(span, 1) == 0)
    if used is not None:
        intra = intra | (used <= g)
    ring_bw = _inter_node_ring_bandwidth(np, cluster, span, ring_ranks)
    bandwidth = np.where(intra, cluster.intra_node_bandwidth_bytes_per_s, ring_bw)
    latency = np.where(intra, cluster.intra_node_latency_s, cluster.inter_node_latency_s)
    return intra, bandwidth, latency


#: Largest column value factored by counting (a table that long) rather than by sorting.
_COUNTING_LIMIT: int = 1 << 16
#: Fewest rows worth finding the distinct ones of: on fewer, a term is computed on every row directly.
DISTINCT_MIN_ROWS: int = 2048


def _factor(np: Any, column: Any) -> tuple[int, Any]:
    """(how many distinct values, each row's value numbered 0..count-1 in ascending order) of an integer column."""
    if column.size and 0 <= column.min() and column.max() <= _COUNTING_LIMIT:
        present = np.bincount(column) > 0  # counting beats sorting for small ints
        return int(present.sum()), (np.cumsum(present) - 1)[column]
    values, inverse = np.unique(column, return_inverse=True)
    return len(values), inverse.reshape(-1)


def _check_numpy_columns(np: Any, columns: tuple[Any, ...]) -> None:
    """The guard of :func:`distinct_rows` and :func:`on_distinct`: ``np`` is the numpy module, ``columns`` one or
    more numpy arrays of numbers of one length."""
    if getattr(np, "__name__", None) != "numpy":
        raise type_error("np", np, "the numpy module")
    if not columns:
        raise ValueError(tr("planner.columns_needed", name="columns"))
    for i, column in enumerate(columns):
        if not isinstance(column, np.ndarray) or column.ndim != 1 or column.dtype.kind not in "biuf":
            raise type_error(f"columns[{i}]", column, "one-dimensional numpy array of numbers")
        if len(column) != len(columns[0]):
            raise ValueError(
                tr("planner.columns_length", name=f"columns[{i}]", length=len(column), first=len(columns[0]))
            )


def distinct_rows(np: Any, *columns: Any) -> tuple[Any, Any]:
    """(rows, inverse) of equal-length integer ``columns``: one row index per distinct combination of their values,
    and for every row which combination it holds, so that ``term(*(c[rows] for c in columns))[inverse]`` equals
    ``term(*columns)`` for any elementwise ``term``: a term of a few columns is computed once per combination, not
    once per candidate. ``rows`` lists each combination's last row, in ascending code order."""
    if called_from_outside():
        _check_numpy_columns(np, columns)
    count, code = _factor(np, np.asarray(columns[0]))
    for column in columns[1:]:
        n, inverse = _factor(np, np.asarray(column))
        count, code = count * n, code * n + inverse
        if count > _COUNTING_LIMIT:  # keep the code small: number the combinations that occur
            count, code = _factor(np, code)
    if len(columns) > 1:  # number the combinations that occur (one column's values all occur)
        count, code = _factor(np, code)
    rows = np.empty(count, dtype=np.int64)
    rows[code] = np.arange(code.size)
    return rows, code


def on_distinct(np: Any, term: Any, *columns: Any) -> Any:
    """``term(*columns)`` — an elementwise function of the integer ``columns`` returning an array or a tuple of
    arrays — computed once per distinct row of ``columns`` (:func:`distinct_rows`) and broadcast back; on fewer
    than :data:`DISTINCT_MIN_ROWS` rows, on every row (the same numbers either way)."""
    if called_from_outside():
        _check_numpy_columns(np, columns)
        if not callable(term):
            raise type_error("term", term, "callable")
    if len(columns[0]) < DISTINCT_MIN_ROWS:
        return term(*(np.asarray(column) for column in columns))
    rows, inverse = distinct_rows(np, *columns)
    out = term(*(np.asarray(column)[rows] for column in columns))
    if isinstance(out, tuple):
        return tuple(np.broadcast_to(part, rows.shape)[inverse] for part in out)
    return np.broadcast_to(out, rows.shape)[inverse]


def _flops_per_token(model: ModelSpec, s: int, rc: Any, np: Any) -> tuple[Any, float, float]:
    """(executed FLOPs per token by recompute code, model FLOPs per token, output-layer FLOPs per token).

    Model FLOPs are PaLM's 6·N + 12·L·h·s (:func:`coursekit.roofline.model_flops_per_token`), N the active
    parameters a token multiplies through (:attr:`~coursekit.specs.ModelSpec.matmul_params`: an untied input
    embedding and learned positions are lookups, no matmul, and the estimate charges them no time either), s the
    attention span (:meth:`~coursekit.specs.ModelSpec.attention_span`: the sequence length, less where sliding-window
    layers compute fewer query-key pairs). Selective recomputation repeats attention's core forward (4·L·h·s);
    full recomputation repeats the layers' forward (2·N_layers + 4·L·h·s), not the output layer (Megatron-LM does
    not recompute it).
    """
    L, h = model.layers, model.attention_flops_width  # = hidden, except for MLA's wider query/key heads
    span = float(model._attention_span(s))  # = s, or less where sliding-window layers compute fewer pairs
    active = float(model.active_params)
    model_flops = float(_model_flops_per_token(float(model.matmul_params), L, h, span))
    output_flops = 6.0 * model.vocab * model.hidden  # the output layer multiplies the hidden state (not attention's w)
    layer_params = float(model.active_params - model.input_embedding_params - model.output_params)
    by_mode = [float(_hardware_flops_per_token(active, L, h, span, mode, layer_params)) for mode in RECOMPUTE_MODES]
    executed = np.select([rc == code for code in range(len(RECOMPUTE_MODES))], by_mode, model_flops)
    return executed, model_flops, output_flops


#: The spec and column parameters of the array-generic helpers below, checked by :func:`_guarded`: specs by type,
#: columns (a number or a numpy array of numbers: the search computes with float64 degree columns) by their legal
#: range as (least, and whether the least is excluded), up to :data:`_GUARDED_MOST` (2^53: a count a float holds
#: exactly; larger ones overflow the efficiency curve's powers), flags by type.
_GUARDED_SPECS: dict[str, type] = {"model": ModelSpec, "cluster": ClusterSpec, "workload": WorkloadSpec}
_GUARDED_COLUMNS: dict[str, tuple[float, bool]] = {
    "tp": (1, False),
    "ep": (1, False),
    "etp": (1, False),
    "cp": (1, False),
    "rc": (0, False),
    "s": (1, False),
    "tokens": (0, True),
    "rows": (0, True),
    "executed": (0, False),
}
_GUARDED_FLAGS: tuple[str, ...] = ("frozen", "any_layout", "sequence_parallel")
#: A share of peak in (0, 1] (an efficiency ceiling; ``None`` where that is the default) and a tuple of
#: :data:`coursekit.specs.RECOMPUTE_MODULES` (possibly empty).
_GUARDED_SHARES: tuple[str, ...] = ("ceiling",)
_GUARDED_MODULES: tuple[str, ...] = ("modules",)
#: An FP8 recipe (:data:`coursekit.specs.FP8_RECIPES`).
_GUARDED_RECIPES: tuple[str, ...] = ("recipe",)
_GUARDED_MOST: float = 2.0**53


def _guarded(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with its spec parameters (``model``, ``cluster``, ``workload``) checked by type and its column
    parameters (:data:`_GUARDED_COLUMNS`) by :func:`~coursekit._validate.check_number_column`, so a helper called
    by hand with a wrong value gets a message naming it; ``None`` passes where it is the default."""
    signature = inspect.signature(function)
    known = (
        *_GUARDED_SPECS,
        *_GUARDED_COLUMNS,
        *_GUARDED_FLAGS,
        *_GUARDED_SHARES,
        *_GUARDED_MODULES,
        *_GUARDED_RECIPES,
    )
    checked = [name for name in signature.parameters if name in known]

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not called_from_outside():  # the search's own call: its arguments were checked at the boundary
            return function(*args, **kwargs)
        arguments = signature.bind(*args, **kwargs).arguments
        for name in checked:
            if name not in arguments or (arguments[name] is None and signature.parameters[name].default is None):
                continue
            value = arguments[name]
            if name in _GUARDED_SPECS:
                check_instance(name, value, _GUARDED_SPECS[name])
            elif name in _GUARDED_FLAGS:
                if getattr(getattr(value, "dtype", None), "kind", None) != "b":  # a boolean column passes
                    check_bool(name, value)
            elif name in _GUARDED_RECIPES:
                check_choice(name, value, FP8_RECIPES)
            elif name in _GUARDED_SHARES:
                check_number(name, value, gt=0, le=1)
            elif name in _GUARDED_MODULES:
                for i, module in enumerate(check_items(name, value)):
                    check_choice(f"{name}[{i}]", module, RECOMPUTE_MODULES)
            else:
                least, excluded = _GUARDED_COLUMNS[name]
                if excluded:
                    check_number_column(name, value, gt=least, le=_GUARDED_MOST)
                else:
                    check_number_column(name, value, ge=least, le=_GUARDED_MOST)
        # columns that do not line up element by element: named, in the learner's language (fuzz pass 20)
        check_column_shapes(
            **{name: arguments[name] for name in checked if name in _GUARDED_COLUMNS and name in arguments}
        )
        return function(*args, **kwargs)

    return wrapper


@_guarded
def attention_core_flops_per_token(model: ModelSpec, s: int, rc: Any) -> Any:
    """Counted FLOPs per token of attention's core (QKᵀ and AV), all layers, by recompute code ``rc``: PaLM's
    12·L·w·s (forward 4·L·w·s, backward twice that, w = ``model.attention_flops_width``), plus the forward again
    (4·L·w·s) under selective and full recomputation. Part of :func:`_flops_per_token`'s executed FLOPs."""
    forward = _attention_forward_flops_per_token(model.layers, model.attention_flops_width, model._attention_span(s))
    return (3.0 + (rc >= 1)) * forward


@_guarded
def attention_kernel_tokens(s: Any, cp: Any = 1) -> Any:
    """The sequence length one call of the attention kernel runs over, with a sequence of ``s`` tokens on ``cp``
    context-parallel ranks; array-generic: s/cp.

    Without context parallelism the causal kernel runs over the whole sequence. With it each rank holds s/cp tokens
    (Transformer Engine's ring, zig-zag: two chunks of s/(2·cp)) and calls the kernel once per ring step on its own
    queries against the visiting keys, at most s/cp of each.

    >>> attention_kernel_tokens(8192), attention_kernel_tokens(8192, 4)
    (8192.0, 2048.0)
    """
    return s / (1.0 * cp)


@_guarded
def attention_core_weight(workload: WorkloadSpec, s: Any, cp: Any = 1) -> Any:
    """What one counted FLOP of attention's core costs in linear-layer FLOPs (FLOPs at the matmul efficiency), with
    a sequence of ``s`` tokens on ``cp`` context-parallel ranks; array-generic in ``cp``.

    Flash attention (``workload.flash_attention``), causal: the kernel computes
    :data:`~coursekit.planner.calibration.CAUSAL_EXECUTED_SHARE` of the counted pairs at
    :func:`attention_kernel_rate` of a matmul's speed: 0.5 / 0.613 = 0.82 over 4K tokens, 0.5 / 0.629 = 0.79 over 8K.
    Without flash attention (2021-2022 engines: Megatron-LM, Megatron-DeepSpeed) the scores are full batched
    matmuls over every pair, masked afterwards: 1.

    >>> from coursekit.planner import WorkloadSpec
    >>> round(attention_core_weight(WorkloadSpec(global_batch=8, seq_len=8192), 8192), 2)
    0.79
    >>> round(attention_core_weight(WorkloadSpec(global_batch=8, seq_len=8192), 8192, cp=4), 2)   # 2K tokens a rank
    0.87
    """
    if not workload.flash_attention:
        return 1.0
    return CAUSAL_EXECUTED_SHARE / attention_kernel_rate(workload, s, cp)


@_guarded
def attention_kernel_rate(workload: WorkloadSpec, s: Any, cp: Any = 1) -> Any:
    """Speed of attention's kernel per executed FLOP against a linear layer's matmul: the measured rate of the
    workload's kernel (``workload.attention_kernel``: FlashAttention-3 by default, cuDNN or FlashAttention-2, each on
    H100; :data:`~coursekit.planner.calibration.ATTENTION_KERNEL_FIGURES`) over :func:`attention_kernel_tokens`
    (:func:`~coursekit.planner.calibration.attention_rate_at`), or 1 for plain batched matmuls; array-generic in
    ``cp``.

    >>> from coursekit.planner import WorkloadSpec
    >>> fa2 = WorkloadSpec(global_batch=8, seq_len=4096, attention_kernel="flash-attention-2")
    >>> round(attention_kernel_rate(WorkloadSpec(global_batch=8, seq_len=4096), 4096), 3), round(
    ...     attention_kernel_rate(fa2, 4096), 3)
    (0.613, 0.351)
    """
    if not workload.flash_attention:
        return 1.0
    return attention_rate_at(attention_kernel_tokens(s, cp), ATTENTION_KERNEL_FIGURES[workload.attention_kernel])


@_guarded
def precision_peak_flops(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, executed: Any, rc: Any, cp: Any = 1
) -> Any:
    """Peak FLOP/s of one device for the step's mix of matmuls at the workload's precision; array-generic.

    bf16: the device's bf16 peak. fp8: the transformer layers' linear GEMMs at the FP8 peak times the share of its
    speed-up they keep (``workload.fp8_matmul_share``, by default the fitted
    :data:`~coursekit.planner.calibration.FP8_MATMUL_SHARE` carried to the device by
    :func:`~coursekit.planner.calibration.fp8_share_for`: the datasheet doubles the peak, a step's matmuls do not
    double their speed); at bf16 attention's
    core (12·L·h·s per token, plus the 4·L·h·s forward that selective and full recomputation repeat) and the
    output layer (6·V·h per token); combined by their shares of the executed FLOPs per token ``executed`` (a
    harmonic mean), attention's core weighted by :func:`attention_core_weight` — ``executed`` is the weighted
    count :func:`_compute_time` charges. ``rc`` is the recompute code. A device without FP8 is refused
    (:meth:`ClusterSpec.peak`).

    The output layer stays in bf16: Transformer Engine's ``fp8_autocast`` casts only its own modules' GEMMs
    (``te.Linear`` and the fused layers Megatron-Core's layer specs build), while Megatron-Core's output layer is
    ``tensor_parallel.ColumnParallelLinear`` (``megatron/core/models/gpt/gpt_model.py``), a plain PyTorch matmul;
    DeepSeek-V3 keeps its output head in BF16 too (arXiv:2412.19437, §3.3.1).
    """
    bf16 = _peak_flops(cluster, "bf16")  # the workload's precision was checked when it was built
    if workload.precision == "bf16":
        return bf16
    check_fp8_recipe(cluster, workload.fp8_recipe)
    share = workload.fp8_matmul_share
    if share is None:
        share = fp8_share_for(cluster.peak_flops, cluster.compute_capability)
    fp8 = _peak_flops(cluster, "fp8") * share
    s = workload.tokens_per_sequence(model)
    core = attention_core_flops_per_token(model, s, rc)
    output_layer = (6.0 - 2.0 * (workload.lora_rank is not None)) * model.vocab * model.hidden  # LoRA: no wgrad
    at_bf16 = (core * attention_core_weight(workload, s, cp) + output_layer) / executed
    return 1.0 / (at_bf16 / bf16 + (1.0 - at_bf16) / fp8)


def _share_of_peak(cluster: ClusterSpec, intensity: Any, ceiling: float | None) -> Any:
    """Share of peak the smooth roofline gives matmuls of ``intensity`` with ceiling ``ceiling`` (default: the
    device's, :func:`coursekit.planner.calibration.ceiling_for`)."""
    peak = cluster.peak_flops
    ceiling = ceiling_for(peak, cluster.compute_capability) if ceiling is None else ceiling
    achieved = _achieved_flops(intensity, peak, cluster.memory_bandwidth_bytes_per_s, ceiling, EFFICIENCY_SMOOTHNESS)
    return achieved / peak


@_guarded
def matmul_efficiency(
    model: ModelSpec, cluster: ClusterSpec, tokens: Any, tp: Any, ceiling: float | None = None, etp: Any = None
) -> tuple[Any, Any]:
    """Share of peak the per-GPU matmuls outside the routed experts reach: ``tokens`` (= mb·s/cp) rows against
    weight shards ``/tp``.

    The smooth roofline of :func:`coursekit.roofline.achieved_flops` at the FLOP-weighted intensity of one
    layer's linear matmuls, with ceiling ``ceiling`` (default: the device's,
    :func:`coursekit.planner.calibration.ceiling_for`). Dense model: the four matmuls of attention and MLP. Mixture
    of experts: the attention projections and the shared experts (an MLP ``shared_experts·moe_ffn_hidden`` wide over
    TP); the routed experts multiply their own shapes, :func:`expert_matmul_efficiency`. (The first ``first_k_dense``
    dense layers are taken at the MoE layers' shape.) ``etp`` is accepted for the signature's sake and unused.
    """
    mats = 3 if model.mlp == "swiglu" else 2
    if model.is_moe:
        flops, moved = _attention_matmul_totals(tokens, model.hidden, model.kv_hidden, tp, ACTIVATION_BYTES)
        if model.shared_experts:
            width = model.shared_experts * (model.moe_ffn_hidden or model.ffn_hidden)
            shared_flops, shared_moved = _mlp_matmul_totals(tokens, model.hidden, width, tp, mats, ACTIVATION_BYTES)
            flops, moved = flops + shared_flops, moved + shared_moved
        intensity = flops / moved
    else:
        intensity = _transformer_layer_matmul_intensity(
            tokens, model.hidden, model.ffn_hidden, model.kv_hidden, tp, mats, ACTIVATION_BYTES
        )
    return _share_of_peak(cluster, intensity, ceiling), intensity


@_guarded
def routed_copies(model: ModelSpec) -> float:
    """Rows the routed experts multiply per token a rank routes (MoE): ``top_k·c``, with ``c`` the capacity factor
    (1 without one).

    With a capacity factor Megatron-Core pads every expert's input to its capacity, ``ceil(top_k·tokens/E·c)``
    rows (``--moe-pad-expert-input-to-capacity``: ``get_capacity`` in megatron/core/transformer/moe/moe_utils.py,
    and the ``drop_and_pad`` branches of token_dispatcher.py, whose permuted buffer holds ``capacity·E`` rows), so
    the experts' matmuls, the permutation and the saved activations work on ``c`` times the even share. Model
    FLOPs (MFU) still count the ``top_k`` copies: the padding is executed, not useful, work.

    >>> from coursekit.presets import MODELS
    >>> import dataclasses
    >>> routed_copies(MODELS["mixtral-8x7b"]), routed_copies(dataclasses.replace(MODELS["mixtral-8x7b"],
    ...     capacity_factor=1.25))
    (2.0, 2.5)
    """
    return model.top_k * (model.capacity_factor or 1.0)


@_guarded
def ep_sent_copies(model: ModelSpec, workload: WorkloadSpec) -> float:
    """Copies of each dispatched token that one expert-parallel all-to-all carries (MoE).

    Megatron-Core's all-to-all dispatcher pads before it sends: with a capacity factor every rank sends each
    expert exactly its capacity (``num_global_tokens_per_local_expert`` is filled with ``capacity``), so
    :func:`routed_copies`. The flex dispatcher that runs DeepEP (``workload.ep_dedup_per_node``) sends the routed
    tokens themselves and pads after the dispatch (``num_permuted_tokens = capacity·ranks·local experts``), so
    ``top_k`` (megatron/core/transformer/moe/token_dispatcher.py).

    >>> import dataclasses
    >>> from coursekit.planner import WorkloadSpec
    >>> from coursekit.presets import MODELS
    >>> padded = dataclasses.replace(MODELS["mixtral-8x7b"], capacity_factor=1.5)
    >>> ep_sent_copies(padded, WorkloadSpec(global_batch=8)), ep_sent_copies(
    ...     padded, WorkloadSpec(global_batch=8, ep_dedup_per_node=True))
    (3.0, 2.0)
    """
    return float(model.top_k) if workload.ep_dedup_per_node else routed_copies(model)


@_guarded
def expert_rows(model: ModelSpec, tokens: Any, tp: Any, ep: Any, etp: Any) -> Any:
    """Rows one routed expert multiplies per micro-batch on one rank (MoE): ``ep·(tokens·etp/tp)·top_k·c/E``.

    Each rank of an expert-parallel group dispatches the tokens its expert-TP group needs, ``tokens·etp/tp``
    (``tokens`` = mb·s/cp), ``top_k`` copies of each; the ``ep`` ranks' copies spread over the ``E`` experts.
    Routing is taken as balanced — Megatron-Bridge's MoE benchmarks force-balance the tokens and DeepSeek-V3
    balances without an auxiliary loss (arXiv:2412.19437, §2.1.2) — so every expert gets the even share; with a
    capacity factor ``c`` the busiest expert may take up to ``c`` times it, and the step waits for the busiest, so
    the bound is used (``c`` = 1 for drop-less routing without one).

    A dense model has no routed experts: called by hand on one, a ``ValueError`` naming the model (fuzz pass 23: a
    ZeroDivisionError for numbers, NaN rows for numpy columns); the search calls it on MoE models only.
    """
    if not model.is_moe:
        raise ValueError(tr("planner.expert_rows_dense", model=model.name))
    return ep * tokens * etp / tp * routed_copies(model) / model.num_experts


@_guarded
def expert_matmul_efficiency(
    model: ModelSpec, cluster: ClusterSpec, rows: Any, etp: Any, ceiling: float | None = None
) -> tuple[Any, Any]:
    """(share of peak, intensity) of the routed experts' matmuls: each local expert, one GEMM of a grouped GEMM,
    multiplies ``rows`` (:func:`expert_rows`) by its own ``hidden × moe_ffn_hidden/etp`` shards
    (:func:`coursekit.roofline.expert_matmul_intensity`), on the same smooth roofline as :func:`matmul_efficiency`.

    Source of the shape: Megatron-Core's ``GroupedMLP`` / ``TEGroupedMLP`` (megatron/core/transformer/moe/experts.py)
    runs one GEMM per local expert on the tokens the dispatcher sorted to it (``tokens_per_expert``).
    """
    width = model.moe_ffn_hidden or model.ffn_hidden
    mats = 3 if model.mlp == "swiglu" else 2
    intensity = _expert_matmul_intensity(rows, model.hidden, width, etp, mats, ACTIVATION_BYTES)
    return _share_of_peak(cluster, intensity, ceiling), intensity


def _moe_block_again(full: Any, modules: tuple[str, ...]) -> Any:
    """Where an MoE block's forward runs again in backward (array-generic in ``full``): under full recomputation
    (``full``: the whole layer) or the module-level recomputation ``"moe"`` (the whole block) -- its experts'
    matmuls, permutation, casts and its dispatch and combine all-to-alls alike."""
    return full | ("moe" in modules)


@_guarded
def routed_expert_flops_per_token(
    model: ModelSpec, rc: Any, modules: tuple[str, ...] = (), frozen: bool = False
) -> Any:
    """Executed FLOPs per token of the routed experts' matmuls, all layers: ``(6 + 2·full)·moe_layers·top_k·c·P_e``
    (``frozen``, LoRA: ``(4 + 2·full)·...``, no weight gradients).

    PaLM's 6 FLOPs per parameter and token (forward 2, backward 4) over the :func:`routed_copies` rows a token
    brings, ``top_k·c``, each through one expert of ``expert_params`` P_e; full recomputation (``rc`` = 2) repeats
    the forward, 2 more, and so does the module-level recomputation of the whole MoE block (``"moe"`` in
    ``modules``). :func:`_flops_per_token` (plus :func:`moe_block_recompute_flops_per_token`) counts the ``top_k``
    copies among the active parameters; :func:`_compute_time` adds the capacity padding, the share ``1 - 1/c``.
    """
    again = _moe_block_again(rc == 2, modules)
    return (6.0 - 2.0 * frozen + 2.0 * again) * model.moe_layers * routed_copies(model) * float(model.expert_params)


@_guarded
def mla_up_proj_recompute_flops_per_token(model: ModelSpec, rc: Any, modules: tuple[str, ...]) -> Any:
    """FLOPs per token the module-level recomputation ``"mla_up_proj"`` adds (multi-head latent attention): the
    up-projections' forward once more on every layer, ``2·L·(r_q·a·(d_nope + d_rope) + r_kv·a·(d_nope + d_v))``
    (the query's from its latent of rank r_q, or from the hidden size h without one; the keys' and values' from
    the KV latent of rank r_kv); the rotary embedding is elementwise and left out. Nothing under full
    recomputation, which repeats the whole layer, nor for other attention."""
    if model.attention_kind != "mla" or "mla_up_proj" not in modules:
        return 0.0
    assert model.kv_lora_rank is not None
    a, d_nope, d_rope, d_v = model.heads, model.qk_nope_head_dim, model.qk_rope_head_dim, model.v_head_dim
    q_in = model.q_lora_rank or model.hidden
    per_layer = q_in * a * (d_nope + d_rope) + model.kv_lora_rank * a * (d_nope + d_v)
    return (rc != 2) * 2.0 * model.layers * float(per_layer)


@_guarded
def moe_block_recompute_flops_per_token(model: ModelSpec, rc: Any, modules: tuple[str, ...]) -> Any:
    """FLOPs per token the module-level recomputation ``"moe"`` adds: the MoE block's forward once more on every MoE
    layer, ``2·moe_layers·(top_k·c·P_e + shared·P_e + h·E)`` (routed experts on their :func:`routed_copies`, shared
    experts and the router); nothing under full recomputation (``rc`` = 2), which repeats the whole layer already,
    nor for a dense model."""
    if not model.is_moe or "moe" not in modules:
        return 0.0 * rc
    copies = routed_copies(model) + model.shared_experts
    per_layer = copies * float(model.expert_params) + model.hidden * model.num_experts
    return (rc != 2) * 2.0 * model.moe_layers * per_layer


@_guarded
def token_permutation_bytes_per_token(model: ModelSpec, rc: Any, ep: Any = 1, modules: tuple[str, ...] = ()) -> Any:
    """HBM bytes per token and MoE layer of sorting tokens to their experts and back (MoE; 0 for a dense model).

    Counted for fused permute/unpermute kernels (Megatron-Core ``--moe-permute-fusion``, Transformer Engine's
    ``moe_permute`` / ``moe_unpermute``), in units of one token's hidden vector h of ``ACTIVATION_BYTES`` each,
    with k the :func:`routed_copies` (top_k, times the capacity factor when experts are padded): forward, permute
    reads the token once and writes k copies (k + 1), unpermute reads the k expert outputs and writes their
    probability-weighted sum (k + 1); backward, unpermute's gradient reads h and
    writes k weighted copies and reads the k expert outputs again for the probabilities' gradient (2k + 1), and
    permute's gradient reads k copies and writes their sum (k + 1): (5k + 4)·h. When a rank holds more than one
    expert (``num_experts / ep`` > 1), Megatron-Core's all-to-all dispatcher sorts the received copies by local
    expert after the dispatch and back before the combine ("Permutation 2" / "Unpermutation 2",
    ``sort_chunks_by_idxs`` in megatron/core/transformer/moe/token_dispatcher.py): each pass reads and writes the k
    copies, forward and backward, 8k·h more. Full recomputation repeats the forward: 2(k + 1)·h, and 4k·h for the
    sort. The router's softmax and top-k over E fp32 scores per token are left out: a few E·4 bytes, under 3 % of
    the (5k + 4)·h for the course's MoE presets. The module-level recomputation of the whole MoE block (``"moe"``
    in ``modules``) repeats the forward as full recomputation does.
    """
    if not model.is_moe:
        return 0.0 * rc
    k = routed_copies(model)
    full = _moe_block_again(rc == 2, modules)
    sort = (model.num_experts / ep > 1) * (8.0 * k + 4.0 * k * full)
    return (5.0 * k + 4.0 + 2.0 * (k + 1.0) * full + sort) * model.hidden * ACTIVATION_BYTES


#: Bytes of one FP8 element (E4M3 or E5M2).
FP8_BYTES: int = 1
#: Where the passes below are read: Transformer Engine's PyTorch modules and their C++ casts.
FP8_QUANTISATION_SOURCE: str = (
    "NVIDIA TransformerEngine @ d0067d0da6cb01811b8072a7d304f0e00344ce2b: transformer_engine/pytorch/module/"
    "linear.py (input cast before the sequence-parallel all-gather row-wise only, the gathered copy made "
    "column-wise for wgrad; grad_output quantised row- and column-wise; quantize_weight with "
    "update_workspace = is_first_microbatch), tensor/storage/float8_tensor_storage.py (_create_transpose: "
    "tex.fp8_transpose), csrc/quantizer.cpp (Float8CurrentScalingQuantizer::quantize_impl: "
    "nvte_compute_amax, then nvte_quantize_v2), csrc/extensions/normalization.cpp and activation.cpp (FULLY_FUSED "
    "FP8 output for delayed scaling, FUSED_NORM_AMAX_FP8: norm in bf16 with its amax, then a quantize pass, for "
    "current scaling)"
)

#: The linear layers of one transformer layer as Megatron-Core's Transformer Engine layer spec builds them:
#: (input width, input side, output width, output side, input cast fused into a norm). A side is ``"split"`` (the
#: tensor is divided over the TP ranks), ``"gathered"`` (whole on every TP rank; with sequence parallelism each
#: rank casts its 1/tp shard and the FP8 copies are all-gathered) or ``"whole"`` (whole on every rank, no FP8
#: gather). Column-parallel layers take a gathered input and give a split output; row-parallel ones the reverse.
_Linear = tuple[float, str, float, str, bool]


def _attention_linears(model: ModelSpec) -> list[_Linear]:
    """Attention's linear layers (the core stays bf16): MHA/GQA ``TELayerNormColumnParallelLinear`` QKV (the
    input norm fused) and ``TERowParallelLinear`` output projection; MLA (DeepSeek-V2/V3) its q and kv
    down-projections (``TELinear`` after a separate ``TENorm``, their outputs whole), the up-projections with the
    latent norms fused, and the output projection."""
    h, a = float(model.hidden), float(model.heads)
    if model.kv_lora_rank is None:
        q, kv = a * model.head_dim, float(model.kv_hidden)
        return [(h, "gathered", q + 2.0 * kv, "split", True), (q, "split", h, "gathered", False)]
    q_lora, kv_lora = model.q_lora_rank, float(model.kv_lora_rank)
    d_qk, d_v = float(model.qk_head_dim), float(model.value_head_dim)
    linears: list[_Linear] = [(h, "gathered", kv_lora + model.qk_rope_head_dim, "whole", False)]
    if q_lora is None:
        linears.append((h, "gathered", a * d_qk, "split", False))
    else:
        linears += [(h, "gathered", float(q_lora), "whole", False), (float(q_lora), "whole", a * d_qk, "split", True)]
    linears += [
        (kv_lora, "whole", a * (model.qk_nope_head_dim + d_v), "split", True),
        (a * d_v, "split", h, "gathered", False),
    ]
    return linears


def _mlp_linears(model: ModelSpec, width: float, fused_norm: bool) -> list[_Linear]:
    """fc1 (a column-parallel layer, ``2·width`` out for SwiGLU) and fc2 (row-parallel) of an MLP of ``width``;
    ``fused_norm``: fc1 is ``TELayerNormColumnParallelLinear`` (a dense layer's MLP), else its input comes from
    a separate norm (an MoE layer's shared experts)."""
    h, gate = float(model.hidden), (2.0 if model.mlp == "swiglu" else 1.0)
    return [(h, "gathered", gate * width, "split", fused_norm), (width, "split", h, "gathered", False)]


def _cast_bytes(recipe: str, fused: bool) -> float:
    """Bytes per element of one FP8 cast kernel, without a transpose: delayed scaling reads bf16 and writes FP8
    (its amax fused), 2 + 1; current scaling first reads the tensor for its amax, 2 + 2 + 1. Fused into the
    preceding norm: delayed scaling's norm writes FP8 itself (no pass); current scaling's norm writes bf16 with
    its amax and a quantize pass follows, 2 + 1. MXFP8 reads bf16 and writes the row-wise FP8 copy with one E8M0
    scale per 32 elements, 2 + 1 + 1/32, fused into a norm or not (the engine's default norm writes bf16 and a
    quantize pass follows: :data:`coursekit.specs.MXFP8_SOURCE`)."""
    bf16, fp8 = float(ACTIVATION_BYTES), float(FP8_BYTES)
    if recipe == "mxfp8":
        return bf16 + MXFP8_COPY_BYTES
    if fused:
        return 0.0 if recipe == "delayed" else bf16 + fp8
    return bf16 + fp8 + (bf16 if recipe == "current" else 0.0)


def fp8_column_copy(recipe: str, any_layout: bool) -> str:
    """How Transformer Engine makes the column-wise FP8 copy the backward's GEMMs read, for the FP8 ``recipe``
    (:data:`coursekit.specs.FP8_RECIPES`) on a device whose FP8 GEMMs take ``any_layout``
    (:attr:`coursekit.specs.ClusterSpec.fp8_any_layout`): ``"cast"``, written by the cast kernel from bf16 (MXFP8: its
    blocks run along the other dimension, so it cannot come from the row-wise copy); ``"none"``, not made (per-tensor
    scaling where FP8 GEMMs take any layout: the row-wise copy serves); ``"transpose"``, Hopper's transposed copy
    (:data:`coursekit.specs.FP8_LAYOUT_SOURCE`).

    >>> fp8_column_copy("current", False), fp8_column_copy("current", True), fp8_column_copy("mxfp8", True)
    ('transpose', 'none', 'cast')
    """
    return _column_kind(check_choice("recipe", recipe, FP8_RECIPES), check_bool("any_layout", any_layout))


#: Bytes per element a column-wise copy adds where its cast kernel writes it (:func:`_column_kind`): Hopper's
#: transposed FP8 byte, nothing, or an MXFP8 copy with its scale.
_COLUMN_COPY_BYTES: dict[str, float] = {"transpose": float(FP8_BYTES), "none": 0.0, "cast": MXFP8_COPY_BYTES}


def _column_kind(recipe: str, any_layout: bool) -> str:
    """Kernel of :func:`fp8_column_copy` on checked values."""
    if recipe == "mxfp8":
        return "cast"
    return "none" if any_layout else "transpose"


def _side_bytes(
    width: float, side: str, cast: float, tp: Any, gather: Any, backward: bool, column: str = "transpose"
) -> Any:
    """Bytes per token on one rank of quantising one tensor ``width`` elements wide per token, on its ``side``
    (:data:`_Linear`), with ``cast`` bytes per element (:func:`_cast_bytes`); ``gather`` is 1 where sequence
    parallelism all-gathers the FP8 copies (tp > 1), else 0. ``backward`` False: the row-wise cast alone (the
    forward that full recomputation re-runs without grad, when no column-wise copy is asked for).

    With ``backward`` the column-wise copy the backward's GEMMs need is added, as ``column``
    (:func:`_column_kind`) says: ``"transpose"`` (Hopper), written by the cast kernel itself (1 byte per element),
    or, after an FP8 all-gather or a norm that wrote FP8 itself, made from the whole FP8 copy by a transpose kernel
    (read 1, write 1); ``"cast"`` (MXFP8), written by the cast kernel on the rank's own elements before any
    all-gather, 1 + 1/32 bytes each; ``"none"``, nothing.
    """
    whole = width / tp if side == "split" else width + 0.0 * tp
    shard = gather * (width / tp) + (1 - gather) * width if side == "gathered" else whole
    if not backward or column == "none":
        return cast * shard
    if column == "cast":
        return (cast + MXFP8_COPY_BYTES) * shard
    separate = 1.0 if cast == 0.0 else (gather if side == "gathered" else 0.0)
    fp8 = float(FP8_BYTES)
    return cast * shard + separate * 2.0 * fp8 * whole + (1 - separate) * fp8 * shard


def _linears_bytes(
    linears: list[_Linear],
    recipe: str,
    tp: Any,
    gather: Any,
    backward: bool,
    frozen: bool = False,
    any_layout: bool = False,
) -> Any:
    """Sum of :func:`_side_bytes` over the linear layers' inputs (forward) and, with ``backward``, their output
    gradients (always a kernel of their own: the gradient arrives in bf16). ``frozen``: the weights take no
    gradient, so the inputs get no column-wise copy (see :func:`fp8_quantisation_bytes_per_token`);
    ``any_layout``: the device's FP8 GEMMs take any layout (:func:`_column_kind`)."""
    column = _column_kind(recipe, any_layout)
    total: Any = 0.0 * tp
    for in_width, in_side, out_width, out_side, fused in linears:
        cast = _cast_bytes(recipe, fused)
        total = total + _side_bytes(in_width, in_side, cast, tp, gather, backward and not frozen, column)
        if backward:
            total = total + _side_bytes(out_width, out_side, _cast_bytes(recipe, False), tp, gather, True, column)
    return total


class Fp8CastBytes(NamedTuple):
    """HBM bytes of FP8 quantisation per token and layer on one rank (:func:`fp8_quantisation_bytes_per_token`)."""

    dense_layer: Any  # a dense layer: attention's and the MLP's linear layers, per token of the TP group
    moe_layer: Any  # an MoE layer outside the routed experts: attention and the shared experts, per token
    routed: Any  # an MoE layer's routed experts, per token the rank dispatches (top_k·c copies)


def _moe_parts(model: ModelSpec) -> tuple[list[_Linear], list[_Linear], float]:
    """(shared experts' linear layers, one routed expert's, copies per token top_k·c) of an MoE layer."""
    width = float(model.moe_ffn_hidden or model.ffn_hidden)
    shared = _mlp_linears(model, model.shared_experts * width, False) if model.shared_experts else []
    routed = [
        (w_in, "whole" if side == "gathered" else side, w_out, "whole" if o_side == "gathered" else o_side, f)
        for w_in, side, w_out, o_side, f in _mlp_linears(model, width, False)
    ]
    return shared, routed, routed_copies(model)


class LoraAdapters(NamedTuple):
    """Trainable parameters of LoRA adapters of one rank r (:func:`lora_adapters`), by where they sit."""

    dense_layer: float  # a dense layer's: attention's linear layers and the MLP's
    moe_layer: float  # an MoE layer's outside the routed experts: attention's and the shared experts'
    routed_expert: float  # the routed experts' of one MoE layer on one rank: one expert's fc1 and fc2 adapters
    per_token: float  # adapter parameters a token passes through, all layers, routed copies top_k·c
    model_per_token: float  # the same with top_k copies (model FLOPs count no capacity padding)


def lora_adapters(model: ModelSpec, rank: int) -> LoraAdapters:
    """LoRA adapters of rank ``rank`` on every linear layer of every transformer layer (:class:`LoraAdapters`).

    An adapter beside a linear layer of ``in`` inputs and ``out`` outputs is two matrices, A (in × r) and B (r × out):
    r·(in + out) parameters (Hu et al., "LoRA", arXiv:2106.09685, §4.1). The linear layers are Megatron-Core's fused
    ones, the target modules Megatron-Bridge's ``LoRA`` takes by default (``linear_qkv``, ``linear_proj``,
    ``linear_fc1``, ``linear_fc2``: src/megatron/bridge/peft/lora.py @ 067f987df), for MLA its projections
    (:func:`_attention_linears`). The routed experts of a rank share one adapter per linear layer
    (``share_expert_adapters=True``, the default there), so a rank holds one expert's worth per MoE layer; every
    routed copy of a token passes through it. The embedding, the output layer and the router have none.

    >>> from coursekit.presets import MODELS
    >>> lora_adapters(MODELS["llama2-7b"], 16).dense_layer  # 16·((4096 + 12288) + 8192 + (4096 + 22016) + 15104)
    1052672.0
    """
    if not isinstance(model, ModelSpec):
        raise type_error("model", model, "ModelSpec")
    r = float(check_int("rank", rank, ge=1, le=MAX_LORA_RANK))

    def count(linears: list[_Linear]) -> float:
        return r * sum(w_in + w_out for w_in, _, w_out, _, _ in linears)

    attention = count(_attention_linears(model))
    dense = attention + count(_mlp_linears(model, float(model.ffn_hidden), True))
    dense_layers = float(model.layers - model.moe_layers)
    if not model.is_moe:
        total = dense_layers * dense
        return LoraAdapters(dense, 0.0, 0.0, total, total)
    shared, routed, copies = _moe_parts(model)
    moe, expert = attention + count(shared), count(routed)
    base = dense_layers * dense + model.moe_layers * moe
    return LoraAdapters(
        dense, moe, expert, base + model.moe_layers * copies * expert, base + model.moe_layers * model.top_k * expert
    )


@_guarded
def frozen_weight_grad_flops_per_token(model: ModelSpec) -> float:
    """Weight-gradient FLOPs per token a LoRA run does not execute: 2 of PaLM's 6 per parameter and token (the
    backward's weight gradient; its data gradient, 2, still runs) for every matmul weight a token multiplies
    through, the output layer and the ``top_k`` routed experts included: ``2·N`` (N =
    :attr:`~coursekit.specs.ModelSpec.matmul_params`). The routed experts' capacity padding, counted apart
    (:func:`routed_expert_flops_per_token` with ``frozen``), follows it there."""
    return 2.0 * float(model.matmul_params)


@_guarded
def fp8_quantisation_bytes_per_token(
    model: ModelSpec,
    recipe: str = "delayed",
    tp: Any = 1,
    etp: Any = None,
    sequence_parallel: bool = True,
    rc: Any = 0,
    modules: tuple[str, ...] = (),
    frozen: bool = False,
    any_layout: bool = False,
) -> Fp8CastBytes:
    """HBM bytes per token and layer one rank moves quantising tensors to FP8, besides the GEMMs; array-generic.

    Passes counted from Transformer Engine's modules (:data:`FP8_QUANTISATION_SOURCE`), per micro-batch, for
    each linear layer Megatron-Core builds with them (attention's core and the output layer stay bf16, as in
    :func:`precision_peak_flops`; the router is a plain bf16 linear): forward, its input is cast to FP8; backward,
    its output gradient is cast to FP8 and, on Hopper, both also get a column-wise (transposed) FP8 copy for the
    weight-gradient GEMM. One cast kernel per element, by ``recipe`` (:data:`coursekit.specs.FP8_RECIPES`):
    ``"delayed"`` reads bf16 and writes FP8, 2 + 1 bytes (the amax fused into it), ``"current"`` reads the tensor
    once more for its amax first, 2 + 2 + 1; the transposed copy adds 1 written byte when the cast kernel writes
    it, or a transpose kernel of its own over the whole FP8 tensor, 1 + 1, after a sequence-parallel FP8
    all-gather (column-parallel inputs, row-parallel output gradients: the cast runs on the 1/tp shard). A norm
    fused into the next linear layer (``TELayerNormColumnParallelLinear``: QKV, a dense layer's fc1, MLA's up
    projections) writes FP8 itself under delayed scaling (no cast pass, only the transpose); under current
    scaling it writes bf16 with the amax and a quantize pass follows, 2 + 1. Widths per token: QKV ``h`` in,
    ``q + 2·kv`` out; projection ``q`` in, ``h`` out; fc1 ``h`` in, ``2·F`` (SwiGLU) or ``F`` out; fc2 ``F`` in,
    ``h`` out; a routed expert the same at its own width on each of the top_k·c copies, split over ``etp``.
    Full recomputation (``rc`` = 2) re-runs the forward, the row-wise input casts once more, and so does
    ``"moe"`` in ``modules`` for the shared and routed experts. Weights are cast once per step, not per token
    (:func:`fp8_weight_cast_bytes`).

    ``any_layout`` (:attr:`coursekit.specs.ClusterSpec.fp8_any_layout`, Blackwell): the FP8 GEMMs take any operand
    layout, so per-tensor scaling makes no column-wise copy at all (:data:`coursekit.specs.FP8_LAYOUT_SOURCE`).
    ``"mxfp8"`` (Blackwell only) has no transposes either, but its column-wise copy has blocks along the other
    dimension: the cast kernel writes it from bf16 beside the row-wise one, 2 + 2·(1 + 1/32) bytes per element, on
    the rank's own elements before a sequence-parallel all-gather, fused norm or not (:data:`~coursekit.specs.
    MXFP8_SOURCE`).

    ``frozen`` (LoRA, ``WorkloadSpec.lora_rank``: the linear layers' own weights take no gradient): Transformer
    Engine asks an input's quantizer for the column-wise copy only when the weight needs its gradient
    (``backward_needs_input = is_grad_enabled and weight.requires_grad`` in linear.py and layernorm_linear.py; the
    grouped experts' ``columnwise=weight_requires_grad``), so each input gets its row-wise cast alone, and a norm that
    writes FP8 itself nothing. The output gradients are counted as above: the modules' backward asks for both copies.

    Llama 3 8B at TP 1, delayed scaling: QKV input (fused norm) transpose 2·4096, output gradient 4·6144; projection
    input 4·4096, gradient 4·4096; fc1 input transpose 2·4096, gradient 4·28672; fc2 input 4·14336, gradient 4·4096:

    >>> from coursekit.presets import MODELS
    >>> fp8_quantisation_bytes_per_token(MODELS["llama3-8b"]).dense_layer
    262144.0
    """
    etp = tp if etp is None else etp
    gather = (tp > 1) * (1.0 if sequence_parallel else 0.0)
    full = rc == 2
    attention = _attention_linears(model)
    dense_mlp = _mlp_linears(model, float(model.ffn_hidden), True)

    def both(linears: list[_Linear], shards: Any, again: Any) -> Any:  # the routed experts have no gathered side
        once = _linears_bytes(linears, recipe, shards, gather, True, frozen, any_layout)
        return once + again * _linears_bytes(linears, recipe, shards, gather, False, any_layout=any_layout)

    dense_layer = both(attention + dense_mlp, tp, full)
    if not model.is_moe:
        return Fp8CastBytes(dense_layer, 0.0 * dense_layer, 0.0 * dense_layer)
    shared, routed, copies = _moe_parts(model)
    expert_again = _moe_block_again(full, modules)
    moe_layer = both(attention, tp, full) + both(shared, tp, expert_again)
    return Fp8CastBytes(dense_layer, moe_layer, copies * both(routed, etp, expert_again))


@_guarded
def fp8_weight_cast_bytes(
    model: ModelSpec, recipe: str = "delayed", tp: Any = 1, ep: Any = 1, etp: Any = None, any_layout: bool = False
) -> Any:
    """HBM bytes per step and layer one rank moves casting its linear layers' weights to FP8 (an MoE layer's
    when the model has experts, with its E/ep local experts split over ``etp``; a dense layer's otherwise).

    Transformer Engine casts a weight once per step and caches it over the micro-batches (``quantize_weight``'s
    ``update_workspace = is_first_microbatch is None or is_first_microbatch``, which Megatron-Core's wrappers
    pass): the bf16 weight read, its FP8 copy and the transposed copy written, ``_cast_bytes + 1`` per parameter
    on Hopper; without the transposed copy where the FP8 GEMMs take any layout (``any_layout``); with MXFP8 the
    row-wise and the column-wise copies and their scales, ``2 + 2·(1 + 1/32)`` (:func:`_column_kind`).
    """
    etp = tp if etp is None else etp
    column = _column_kind(recipe, any_layout)
    per_param = _cast_bytes(recipe, False) + _COLUMN_COPY_BYTES[column]

    def params(linears: list[_Linear]) -> float:
        return sum(w_in * w_out for w_in, _, w_out, _, _ in linears)

    attention = params(_attention_linears(model))
    if not model.is_moe:
        return per_param * (attention + params(_mlp_linears(model, float(model.ffn_hidden), True))) / tp
    shared, routed, _ = _moe_parts(model)
    return per_param * ((attention + params(shared)) / tp + model.num_experts / ep * params(routed) / etp)


@dataclass(frozen=True)
class _Columns:
    """The candidate columns of :func:`training_estimate`: integer arrays and their float64 copies (``*f``)."""

    tp: Any
    cp: Any
    pp: Any
    dp: Any
    ep: Any
    etp: Any
    v: Any
    zero: Any
    mb: Any
    ga: Any
    rc: Any
    offload: Any  # True where the planner's mode is "offload": no recomputation (rc 0), activations to the host
    tpf: Any
    cpf: Any
    ppf: Any
    dpf: Any
    epf: Any
    etpf: Any
    vf: Any
    mbf: Any
    gaf: Any

    @classmethod
    def of(cls, np: Any, c: Mapping[str, Any]) -> _Columns:
        ints = {key: np.asarray(c[key]) for key in ("tp", "cp", "pp", "dp", "ep", "v", "zero", "mb", "ga", "rc")}
        ints["etp"] = np.asarray(c["etp"]) if "etp" in c else ints["tp"]  # Megatron's default: expert TP = TP
        # the planner's "offload" recomputes nothing: every formula of a recompute code reads it as "none"
        offload = ints["rc"] == OFFLOAD_CODE
        ints["rc"] = np.where(offload, 0, ints["rc"])
        keys = ("tp", "cp", "pp", "dp", "ep", "etp", "v", "mb", "ga")
        floats = {key + "f": ints[key].astype(np.float64) for key in keys}
        return cls(**ints, **floats, offload=offload)

    @property
    def used(self) -> Any:
        """Ranks each candidate occupies: tp · cp · dp · pp."""
        return self.tpf * self.cpf * self.dpf * self.ppf

    @property
    def dpc(self) -> Any:
        """Ranks the dense weights' gradients reduce over: dp · cp."""
        return self.dpf * self.cpf

    @property
    def edp(self) -> Any:
        """Expert data-parallel ranks: used / (etp · ep · pp) — Megatron-Core's expert grid ETP × EP × EDP × PP has
        no CP, so the CP ranks join EDP (``parallel_state.initialize_model_parallel``)."""
        return self.used / (self.etpf * self.epf * self.ppf)

    @property
    def expert_shards(self) -> Any:
        """Ranks one MoE layer's experts are split over before data parallelism: etp · ep."""
        return self.etpf * self.epf


@dataclass(frozen=True)
class _Stages:
    """Layers and dense parameters of the first, heaviest middle and last pipeline stage (float arrays)."""

    layers: dict[str, Any]
    dense: dict[str, Any]
    layers_max: Any
    single: Any  # 1.0 where pp == 1: the one stage is first and last
    #: works out :attr:`kinds` (read by the memory ledger and LoRA's trained parameters only, so not before)
    kinds_of: Callable[[], dict[str, tuple[Any, Any, Any]]] = field(repr=False, compare=False)

    @cached_property
    def kinds(self) -> dict[str, tuple[Any, Any, Any]]:
        """(dense, MoE, either) layers of each stage kind (ModelSpec.stage_layer_kinds), worked out on first read."""
        return self.kinds_of()

    @classmethod
    def of(cls, np: Any, model: ModelSpec, workload: WorkloadSpec, k: _Columns) -> _Stages:
        def edges_at(pp: Any) -> tuple[Any, Any]:
            return pipeline_edges_at(
                model.layers, pp, workload.pipeline_edge_layers, workload.pipeline_last_edge_layers, model.mtp_layers
            )

        # the stages depend on pp alone: once per distinct pp, and as floats there (converting each candidate's copy
        # afterwards gives the same numbers)
        def per_pp(pp: Any) -> tuple[Any, ...]:
            edges = edges_at(pp)
            values = (*stage_layer_counts(model.layers, pp, *edges), *model._stage_dense_params(pp, *edges))
            return tuple(np.asarray(x, dtype=np.float64) for x in values)

        def kinds_per_pp(pp: Any) -> tuple[Any, ...]:
            stages = model._stage_layer_kinds(pp, *edges_at(pp))
            return tuple(np.asarray(n * np.ones_like(pp), dtype=np.float64) for stage in stages for n in stage)

        def kinds() -> dict[str, tuple[Any, Any, Any]]:
            parts = on_distinct(np, kinds_per_pp, k.pp)
            return {kind: (parts[3 * i], parts[3 * i + 1], parts[3 * i + 2]) for i, kind in enumerate(STAGE_KINDS)}

        parts = on_distinct(np, per_pp, k.pp)
        layers = dict(zip(STAGE_KINDS, parts[:3], strict=True))
        dense = dict(zip(STAGE_KINDS, parts[3:6], strict=True))
        layers_max = np.maximum(np.maximum(layers["first"], layers["mid"]), layers["last"])
        return cls(layers, dense, layers_max, (k.pp == 1).astype(np.float64), kinds)


def _memory_ledger(
    np: Any, model: ModelSpec, workload: WorkloadSpec, k: _Columns, st: _Stages, cluster: ClusterSpec
) -> dict[str, Any]:
    """Bytes per GPU of each stage kind (params, grads, optimizer, workspace, activations); the heaviest stage's.
    ``cluster`` sets the bytes of cached FP8 weights (``fp8_weight_cache``: :func:`coursekit.specs.
    fp8_weight_cache_bytes`).

    What each layer saves, tensor by tensor, for this model's widths (coursekit.activations). Full
    recomputation re-runs one layer at a time: its working set is that layer's activations, taken without
    the attention-score term (this assumes fused / flash attention, which does not materialise the s×s scores).
    """
    recipe = PRECISION_RECIPES[workload.recipe]
    pb, gb_, kb = recipe.param_bytes, recipe.grad_bytes, recipe.optimizer_bytes
    s = float(workload.tokens_per_sequence(model))
    widths, flash, sp = model.layer_widths(), workload.flash_attention, workload.sequence_parallel
    fp8 = workload.precision == "fp8"  # FP8 linear layers save their inputs at 1 byte (coursekit.activations)
    fp8_bytes = MXFP8_COPY_BYTES if workload.fp8_recipe == "mxfp8" else float(FP8_BYTES)  # MXFP8: + its scales
    modules = workload.recompute_modules  # module-level recomputation (coursekit.specs.RECOMPUTE_MODULES)
    probs = workload.moe_probs_in_experts  # the combine keeps no copy of the expert outputs (Megatron-Core >= 0.13)
    deepseek = workload.fp8_activation_cache == "deepseek-v3"  # DeepSeek-V3's FP8 storage (coursekit.activations)

    # one layer of each kind a stage holds (dense, MoE, either: ModelSpec.stage_layer_kinds); one kind suffices unless
    # an MoE model has dense layers first
    mixed = model.is_moe and model.first_k_dense > 0
    kind_widths = (model.layer_widths("dense"), model.layer_widths("moe"), widths) if mixed else (widths,)

    def per_shape(mb: Any, tp: Any, cp: Any, rc: Any) -> tuple[Any, ...]:  # once per distinct (mb, tp, cp, rc)
        mbf, tpf, cpf = (x.astype(np.float64) for x in (mb, tp, cp))
        one = np.ones_like(rc)
        full_none = _layer_activation_terms(
            widths, s, mbf, tpf, sp, one, cpf, flash, fp8, (), probs, fp8_bytes, deepseek
        )[2]
        per_kind = [
            _layer_activation_terms(w, s, mbf, tpf, sp, rc, cpf, flash, fp8, modules, probs, fp8_bytes, deepseek)[2]
            for w in kind_widths
        ]
        per_layer = per_kind[-1]
        extra = (rc == 2) * full_none
        if "moe" in modules:  # one MoE block's activations exist again while its recomputation runs
            kept = tuple(m for m in modules if m != "moe")
            again = _layer_activation_terms(
                widths, s, mbf, tpf, sp, rc, cpf, flash, fp8, kept, probs, fp8_bytes, deepseek
            )[2]
            extra = extra + again - per_layer
        return (*per_kind, extra, model._logits_bytes(s * mbf, tpf * cpf))

    *per_kind, full_extra, logits = on_distinct(np, per_shape, k.mb, k.tp, k.cp, k.rc)
    p_layer = float(model.dense_params_per_layer)
    p_experts = float(model.num_experts * model.expert_params)
    zero, dpc = k.zero, k.dpc
    workspace = (zero == 3) * (dpc > 1) * pb * p_layer / k.tpf
    reserve = workload.runtime_reserve_gib * float(1 << 30)
    # every stage kind at once: rows of (3, candidates) arrays, first, heaviest middle and last stage (STAGE_KINDS)
    dense = np.stack([st.dense[kind] for kind in STAGE_KINDS])
    counts = [np.stack([st.kinds[kind][i] for kind in STAGE_KINDS]) for i in range(3)]  # dense, MoE, either
    params, grads, optimizer = _state_bytes(dense / k.tpf, dpc, zero, pb, gb_, kb)
    if model.is_moe:
        edp, shards = k.edp, k.expert_shards
        workspace = workspace + (zero == 3) * (edp > 1) * pb * p_experts / shards
        expert_layers = counts[1] + counts[2]  # the layers that hold experts (either: counted as holding them)
        ep_par, ep_grad, ep_opt = _state_bytes(expert_layers * p_experts / shards, edp, zero, pb, gb_, kb)
        params, grads, optimizer = params + ep_par, grads + ep_grad, optimizer + ep_opt
    if workload.lora_rank is not None:
        # frozen weights keep their bytes only; the adapters carry gradients and optimizer states
        adapter, expert_adapter = _lora_stage_params(np, model, workload, k, counts)
        a_par, grads, optimizer = _state_bytes(adapter, dpc, zero, pb, gb_, kb)
        params = params + a_par
        if model.is_moe:
            e_par, e_grad, e_opt = _state_bytes(expert_adapter, k.edp, zero, pb, gb_, kb)
            params, grads, optimizer = params + e_par, grads + e_grad, optimizer + e_opt
    if fp8 and workload.fp8_weight_cache:
        per_weight = fp8_weight_cache_bytes(workload.fp8_recipe, cluster.fp8_any_layout)
        params = params + (zero != 3) * _fp8_weight_cache_bytes(model, counts, k.tpf, k.expert_shards, per_weight)
    inflight = np.stack(_microbatches_in_flight(k.ppf, k.gaf, k.vf))
    # the last stage, or the only one, keeps the logits: once more for each multi-token prediction module
    has_logits = np.stack([st.single, st.single, np.ones_like(st.single)]) * (1.0 + model.mtp_layers)
    saved = sum(n * a for n, a in zip(counts, per_kind, strict=True)) if mixed else sum(counts) * per_kind[0]
    activations = saved * inflight + full_extra + has_logits * logits
    if workload.ep_overlap_schedule == "dualpipe":
        # DualPipe (DeepSeek-V3 §3.2.1, Table 2): each GPU holds stage i and stage p - 1 - i, so two stages' weights,
        # gradients and optimizer states ("parameter 2x"), and p + 1 micro-batches of their activations
        piped = k.pp > 1
        states = [_dualpipe_pairs(np, x, piped) for x in (params, grads, optimizer)]
        params, grads, optimizer = states
        pairs = _dualpipe_pairs(np, saved, piped) / 2.0 * (k.ppf + 1.0)
        edge_logits = np.stack([np.ones_like(k.ppf), np.zeros_like(k.ppf), np.ones_like(k.ppf)]) * logits
        activations = np.where(piped, pairs + full_extra + edge_logits * (1.0 + model.mtp_layers), activations)
    fixed = params + grads + optimizer + workspace + reserve
    total = fixed + activations
    # the heaviest stage's row of each: one gather per key from the flattened (3, candidates) array
    count = total.shape[1]
    pick = np.argmax(total, axis=0) * count + np.arange(count)
    ledger = {"params": params, "grads": grads, "optimizer": optimizer, "workspace": workspace}
    ledger.update(activations=activations, fixed=fixed, total=total)
    layers = sum(counts)
    ledger["layer_bytes"] = np.where(layers > 0, saved * inflight / np.maximum(layers, 1.0), 0.0)
    ledger["layers"] = layers
    # the workspace is the same on every stage (one row already)
    out = {key: value if value.ndim == 1 else value.reshape(-1)[pick] for key, value in ledger.items()}
    layer_bytes, stage_layers = out.pop("layer_bytes"), out.pop("layers")
    device_bytes = cluster.memory_per_device_gib * GIB_BYTES
    offloaded = np.where(k.offload, _offloaded_layers(np, out["total"], device_bytes, layer_bytes, stage_layers), 0.0)
    kept_less = np.maximum(offloaded - 1.0, 0.0) * layer_bytes  # N layers on the host, one more in flight
    out["activations"] = out["activations"] - kept_less
    out["total"] = out["total"] - kept_less
    out["offloaded_layers"] = offloaded
    out["offload_layer_bytes"] = np.where(k.offload, layer_bytes, 0.0)
    out["host_bytes"] = offloaded * layer_bytes
    return out


def offload_copy_s(
    offloaded_layers: Any, layer_bytes: Any, host_link_bytes_per_s: Any, layer_compute_s: Any, micro_batches: Any = 1
) -> tuple[Any, Any]:
    """(copy, exposed) seconds per step of activation offloading: ``offloaded_layers`` layers of ``layer_bytes``
    saved bytes each go to the host in the forward and come back in the backward, over a host link of
    ``host_link_bytes_per_s`` (one way, a number), once per micro-batch (``micro_batches``). A layer's copy runs
    while the next layer runs (Transformer Engine's CPU offload streams): its forward takes a third of
    ``layer_compute_s`` (the layer's forward and backward for one micro-batch: its compute and the communication it
    waits for) and its backward two thirds, and only the part of a
    copy longer than that shows. Assumed: the copies do not slow the compute (they share the device memory's
    bandwidth) and the link gives its bandwidth to each copy. The others are numbers or arrays (elementwise), each
    finite and >= 0; ``offloaded_layers`` and ``micro_batches`` are counts, whole numbers.

    >>> copy, exposed = offload_copy_s(95, 1.864e9, 225e9, 0.045)   # Llama 3.1 405B on GB200: 95 layers of 1.86 GB
    >>> round(float(copy), 3), round(float(exposed), 3)              # 8.3 ms a copy, under 15 / 30 ms of compute
    (1.574, 0.0)
    >>> [round(float(x), 3) for x in offload_copy_s(10, 1.0e9, 63e9, 0.03)]  # PCIe 5.0: 15.9 ms > 10 ms forward
    [0.317, 0.059]

    Taught in: lesson 9 (decision workbench).
    """
    import numpy as np

    checked = [
        _nonnegative_values(np, name, value)
        for name, value in (
            ("offloaded_layers", offloaded_layers),
            ("layer_bytes", layer_bytes),
            ("layer_compute_s", layer_compute_s),
            ("micro_batches", micro_batches),
        )
    ]
    link = check_number(
        "host_link_bytes_per_s", host_link_bytes_per_s, ge=MIN_BANDWIDTH_BYTES_PER_S, le=MAX_BANDWIDTH_BYTES_PER_S
    )
    shapes = [np.shape(value) for value in checked]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(tr("planner.offload_shapes", shapes=", ".join(str(shape) for shape in shapes))) from None
    layers, layer_b, compute, micro = checked
    for name, value, given in (("offloaded_layers", layers, offloaded_layers), ("micro_batches", micro, micro_batches)):
        if not np.all(np.floor(value) == value):  # counts: 2.5 layers, 5e-324 micro-batches (fuzz pass 26)
            raise ValueError(tr("planner.whole_counts", name=name, value=shown_repr(given)))
    return _offload_copy_s(np, layers, layer_b, link, compute, micro)


def _offload_copy_s(
    np: Any, layers: Any, layer_bytes: Any, link_bytes_per_s: Any, layer_compute_s: Any, micro_batches: Any
) -> tuple[Any, Any]:
    """Kernel of :func:`offload_copy_s` on checked values (the estimate's own columns)."""
    one_way = layer_bytes / link_bytes_per_s
    forward, backward = layer_compute_s / 3.0, 2.0 * layer_compute_s / 3.0
    per_layer = np.maximum(one_way - forward, 0.0) + np.maximum(one_way - backward, 0.0)
    return 2.0 * micro_batches * layers * one_way, micro_batches * layers * per_layer


def _offloaded_layers(np: Any, total_bytes: Any, device_bytes: float, layer_bytes: Any, stage_layers: Any) -> Any:
    """The fewest layers N whose saved activations must go to the host for a stage
    of ``stage_layers`` layers (``layer_bytes`` each, ``total_bytes`` on the device without offloading) to fit
    ``device_bytes``: 0 when it fits already; else ``ceil((total - device) / A) + 1`` (N on the host save N - 1
    layers: one layer is always in flight, being copied out in the forward or back in the backward), at most
    ``stage_layers - 1`` (the engine offloads fewer layers than the model has)."""
    over = total_bytes - device_bytes
    need = np.where(over > 0, np.ceil(over / np.maximum(layer_bytes, 1.0)) + 1.0, 0.0)
    return np.minimum(need, np.maximum(stage_layers - 1.0, 0.0))


def _lora_stage_params(np: Any, model: ModelSpec, workload: WorkloadSpec, k: _Columns, counts: Any) -> tuple[Any, Any]:
    """(adapters outside the routed experts, the routed experts' shared adapters) per rank of each stage holding
    ``counts`` = (dense, MoE, either) layers (LoRA, :func:`lora_adapters`). The first are taken as divided over TP as
    the layers' weights are (an adapter's A or B may be whole on every TP rank: a few MB more); the second over expert
    TP, one per MoE layer on every expert-parallel rank."""
    assert workload.lora_rank is not None
    adapters = lora_adapters(model, workload.lora_rank)
    dense, moe, either = counts
    either_kind = adapters.moe_layer if model.is_moe else adapters.dense_layer
    local = (dense * adapters.dense_layer + moe * adapters.moe_layer + either * either_kind) / k.tpf
    return local, (moe + either) * adapters.routed_expert / k.etpf


def _lora_trained(np: Any, model: ModelSpec, workload: WorkloadSpec, k: _Columns, st: _Stages) -> tuple[Any, Any]:
    """(adapters outside the routed experts, routed experts' adapters) per rank of the heaviest stage: the parameters
    data parallelism reduces under LoRA (:func:`_lora_stage_params`); ``(None, None)`` when every weight trains."""
    if workload.lora_rank is None:
        return None, None
    counts = [np.stack([st.kinds[kind][i] for kind in STAGE_KINDS]) for i in range(3)]
    adapter, expert_adapter = _lora_stage_params(np, model, workload, k, counts)
    return np.max(adapter, axis=0), np.max(expert_adapter, axis=0)


def _fp8_weight_cache_bytes(
    model: ModelSpec, kinds: Any, tp: Any, expert_shards: Any = 1, per_weight: float = FP8_WEIGHT_CACHE_BYTES
) -> Any:
    """Bytes of the FP8 weight copies Transformer Engine caches between micro-batches on one rank whose stage holds
    ``kinds`` = (dense, MoE, either) layers (:meth:`ModelSpec.stage_layer_kinds`), at tensor-parallel degree ``tp``
    and with each routed expert's weights split over ``expert_shards`` ranks (ep·etp): ``per_weight`` bytes
    (:func:`coursekit.specs.fp8_weight_cache_bytes`; Hopper's :data:`FP8_WEIGHT_CACHE_BYTES` by default) per
    linear-layer weight (:meth:`ModelSpec.linear_weights_per_layer`, :attr:`ModelSpec.expert_linear_weights`);
    a layer of either kind counts as the heavier. Only under ``WorkloadSpec(precision="fp8",
    fp8_weight_cache=True)`` and below ZeRO-3; array-generic.

    >>> from coursekit.presets import MODELS
    >>> _fp8_weight_cache_bytes(MODELS["llama3-8b"], (32, 0, 0), 2) / 2**30  # 2 bytes x 32 x 218103808 / 2
    6.5
    """
    dense, moe = model.linear_weights_per_layer("dense"), model.linear_weights_per_layer("moe")
    layers = kinds[0] * dense + kinds[1] * moe + kinds[2] * max(dense, moe)
    experts = (kinds[1] + kinds[2]) * model.num_experts * model.expert_linear_weights / expert_shards
    return per_weight * (layers / tp + experts)


def _dualpipe_pairs(np: Any, rows: Any, piped: Any) -> Any:
    """(first, heaviest middle, last) stage rows as DualPipe's GPUs hold them, where ``piped`` (pp > 1): the first and
    the last stage on one GPU, and a middle stage with its mirror, counted as two of the heaviest middle."""
    edge = rows[0] + rows[2]
    return np.where(piped, np.stack([edge, 2.0 * rows[1], edge]), rows)


def _compute_time(
    np: Any,
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    k: _Columns,
    st: _Stages,
    efficiency_shape: Any,
) -> dict[str, Any]:
    """Executed FLOPs of the slowest stage at the efficiency its matmul shapes allow: seconds of compute per step.

    Returns ``compute_s``, ``efficiency``, ``intensity``, ``executed_flops_per_token`` and
    ``model_flops_per_token``. ``efficiency_shape`` k (a scalar or one per row) bends the efficiency below its
    ceiling, ``ceiling · (efficiency / ceiling)**k``; a stated ``achievable_flops_fraction`` replaces the curve.
    """
    check_attention_kernel(cluster, workload.attention_kernel)  # measured on H100 only, where not the default
    s = workload.tokens_per_sequence(model)
    executed, model_flops, output_flops = _flops_per_token(model, s, k.rc, np)
    frozen = workload.lora_rank is not None
    # PaLM's FLOPs per parameter and token: forward 2, backward 4; 2 without the weight gradient (LoRA's frozen weights)
    per_param = 6.0 - 2.0 * frozen
    if workload.lora_rank is not None:
        # frozen weights skip their weight-gradient matmuls; the adapters train: 6 FLOPs per parameter and token.
        # The executed count is taken over the active parameters (the embedding lookup's share leaves with the
        # non-layer term below), the model count over the matmul parameters (frozen_weight_grad_flops_per_token).
        adapters = lora_adapters(model, workload.lora_rank)
        executed = executed - 2.0 * float(model.active_params) + 6.0 * adapters.per_token
        model_flops = model_flops - frozen_weight_grad_flops_per_token(model) + 6.0 * adapters.model_per_token
        output_flops = per_param * model.vocab * model.hidden
    modules = workload.recompute_modules
    executed = executed + moe_block_recompute_flops_per_token(model, k.rc, modules)
    executed = executed + mla_up_proj_recompute_flops_per_token(model, k.rc, modules)
    routed_all = routed_expert_flops_per_token(model, k.rc, modules, frozen)
    # A capacity factor c pads every expert's input to its capacity (routed_copies): the experts multiply c times
    # the top_k copies _flops_per_token counts, so the padding, 1 - 1/c of their FLOPs, is executed too.
    executed = executed + routed_all * (1.0 - 1.0 / (model.capacity_factor or 1.0))
    # Attention's core costs attention_core_weight linear-layer FLOPs per counted FLOP (causal flash attention:
    # half the pairs at its own kernel's speed): the charged count.
    weight = attention_core_weight(workload, s, k.cpf)
    charged = executed + attention_core_flops_per_token(model, s, k.rc) * (weight - 1.0)
    # The layers' share: charged FLOPs minus PaLM's 6·N share of the parameters outside the layers (the
    # embedding lookup does no matmul); the output layer's matmul, 6·V·h, is the last stage's.
    non_layer = per_param * (model.input_embedding_params + model.output_params)
    per_layer_flops = (charged - non_layer) / model.layers
    first, mid, last = (st.layers[kind] for kind in STAGE_KINDS)

    def per_shape(mb: Any, cp: Any, tp: Any, etp: Any, ep: Any) -> tuple[Any, ...]:  # once per distinct shape
        tokens_rank = mb.astype(np.float64) * s / cp.astype(np.float64)
        tpf, etpf, epf = tp.astype(np.float64), etp.astype(np.float64), ep.astype(np.float64)
        efficiency, intensity = matmul_efficiency(model, cluster, tokens_rank, tpf, workload.efficiency_ceiling, etpf)
        expert_efficiency, expert_intensity, rows = _expert_efficiency(
            np, model, cluster, workload, tokens_rank, tpf, epf, etpf
        )
        return efficiency, intensity, expert_efficiency, expert_intensity, rows

    efficiency, intensity, expert_efficiency, expert_intensity, rows = on_distinct(
        np, per_shape, k.mb, k.cp, k.tp, k.etp, k.ep
    )
    if np.ndim(efficiency_shape) or efficiency_shape != 1.0:
        ceiling = workload.efficiency_ceiling
        top = ceiling_for(cluster.peak_flops, cluster.compute_capability) if ceiling is None else ceiling
        efficiency = _bent(np, efficiency, top, efficiency_shape)
        expert_efficiency = _bent(np, expert_efficiency, top, efficiency_shape)
    if workload.achievable_flops_fraction is not None:
        efficiency = np.full_like(k.tpf, workload.achievable_flops_fraction)
        expert_efficiency = efficiency
    # The routed experts' FLOPs run at their own efficiency: counted in units of the rest's efficiency, each of
    # their FLOPs weighs efficiency / expert_efficiency (per layer, averaged over the layers like the rest).
    routed = routed_all / model.layers
    per_layer_flops = per_layer_flops + routed * (efficiency / expert_efficiency - 1.0)
    # the last stage also runs the multi-token prediction modules: a transformer block (a layer's FLOPs), the 2h -> h
    # projection (6·2h² per token) and the shared output layer once more each (DeepSeek-V3 §2.2)
    mtp = float(model.mtp_layers)
    mtp_work = mtp * (per_layer_flops + per_param * 2.0 * model.hidden * model.hidden + output_flops)
    first_work = first * per_layer_flops + st.single * output_flops
    last_work = last * per_layer_flops + output_flops + mtp_work
    work = np.maximum(np.maximum(first_work, mid * per_layer_flops), last_work)
    if workload.ep_overlap_schedule == "dualpipe":
        # DualPipe runs stage i and stage p - 1 - i on one GPU, half of the micro-batches through each: the first
        # and the last stage share a GPU's time (DeepSeek-V3 §3.2.1)
        paired = np.maximum(mid * per_layer_flops, (first_work + last_work) / 2.0)
        work = np.where(k.pp > 1, paired, work)
    tokens_step = float(workload.global_batch) * s
    peak = precision_peak_flops(model, cluster, workload, charged, k.rc, k.cpf)
    permutation_s = _permutation_s(np, model, cluster, workload, k, st)
    recompute_modules_s = _module_recompute_s(np, model, cluster, workload, k, st)
    quantisation_s = _fp8_quantisation_s(np, model, cluster, workload, k, st)
    return {
        "compute_s": tokens_step * work / (k.tpf * k.cpf * k.dpf * peak * efficiency)
        + permutation_s
        + recompute_modules_s
        + quantisation_s,
        "efficiency": efficiency,
        "intensity": intensity,
        "expert_efficiency": expert_efficiency,
        "expert_intensity": expert_intensity,
        "expert_rows": rows,
        "permutation_s": permutation_s,
        "executed_flops_per_token": executed,
        "model_flops_per_token": model_flops,
    }


def _expert_efficiency(
    np: Any,
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    tokens_rank: Any,
    tp: Any,
    ep: Any,
    etp: Any,
) -> tuple[Any, Any, Any]:
    """(share of peak, intensity, rows per expert) of the routed experts' matmuls per candidate; ones (and no
    rows) for a dense model."""
    if not model.is_moe:
        return np.ones_like(tokens_rank), np.ones_like(tokens_rank), np.zeros_like(tokens_rank)
    rows = expert_rows(model, tokens_rank, tp, ep, etp)
    return (*expert_matmul_efficiency(model, cluster, rows, etp, workload.efficiency_ceiling), rows)


def _permutation_s(
    np: Any, model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, k: _Columns, st: _Stages
) -> Any:
    """Seconds per step of the slowest stage's token permutation and unpermutation (MoE), memory-bound: the
    tokens each rank dispatches, ``global_batch·s/(dp·cp)·etp/tp``, times its MoE layers (the stage's layers times
    the model's MoE share), times :func:`token_permutation_bytes_per_token`, at the device's HBM bandwidth."""
    if not model.is_moe:
        return np.zeros_like(k.tpf)
    s = float(workload.tokens_per_sequence(model))
    tokens = float(workload.global_batch) * s / (k.dpf * k.cpf) * k.etpf / k.tpf
    moe_layers = st.layers_max * model.moe_layers / model.layers
    moved = tokens * moe_layers * token_permutation_bytes_per_token(model, k.rc, k.epf, workload.recompute_modules)
    return moved / cluster.memory_bandwidth_bytes_per_s


def _fp8_quantisation_s(
    np: Any, model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, k: _Columns, st: _Stages
) -> Any:
    """Seconds per step the slowest stage spends quantising to FP8 (``precision="fp8"``; 0 at bf16), memory-bound
    at the device's HBM bandwidth: :func:`fp8_quantisation_bytes_per_token` on each rank's tokens,
    ``global_batch·s/(dp·cp)`` for attention, the dense MLPs and the shared experts, and for the routed experts the
    tokens it dispatches, ``global_batch·s/(dp·cp)·etp/tp``, over the stage's dense and MoE layers; plus
    :func:`fp8_weight_cast_bytes` once per step for each of the stage's layers."""
    if workload.precision != "fp8":
        return np.zeros_like(k.tpf)
    s = float(workload.tokens_per_sequence(model))
    tokens = float(workload.global_batch) * s / (k.dpf * k.cpf)

    def per_shape(tp: Any, etp: Any, ep: Any, rc: Any) -> tuple[Any, Any, Any, Any]:  # once per distinct shape
        tpf, etpf, epf = tp.astype(np.float64), etp.astype(np.float64), ep.astype(np.float64)
        cast = fp8_quantisation_bytes_per_token(
            model,
            workload.fp8_recipe,
            tpf,
            etpf,
            workload.sequence_parallel,
            rc,
            workload.recompute_modules,
            frozen=workload.lora_rank is not None,
            any_layout=cluster.fp8_any_layout,
        )
        weights = fp8_weight_cast_bytes(model, workload.fp8_recipe, tpf, epf, etpf, cluster.fp8_any_layout)
        return cast.dense_layer, cast.moe_layer, cast.routed, weights

    dense_layer, moe_layer, routed, weights = on_distinct(np, per_shape, k.tp, k.etp, k.ep, k.rc)
    moe_layers = st.layers_max * model.moe_layers / model.layers
    dense_layers = st.layers_max - moe_layers
    moved = tokens * (dense_layers * dense_layer + moe_layers * (moe_layer + routed * k.etpf / k.tpf))
    return (moved + st.layers_max * weights) / cluster.memory_bandwidth_bytes_per_s


@_guarded
def module_recompute_bytes_per_token(model: ModelSpec, modules: tuple[str, ...], rc: Any) -> tuple[Any, Any]:
    """HBM bytes per token and layer that module-level recomputation re-runs, as (norm, experts' activation).

    Both are elementwise kernels, memory-bound. ``"layernorm"`` re-runs an MoE layer's pre-MLP RMSNorm (and with
    MLA the input norm): it reads the h-wide input and writes the h-wide output, 2·h·ACTIVATION_BYTES each.
    ``"moe_act"`` re-runs the routed experts' SwiGLU on each of the top_k·c copies: it reads the 2·F-wide fc1
    output (F for a non-gated activation) and writes the F-wide product, (2 + 1)·F·ACTIVATION_BYTES per copy
    (the routing probability each copy is scaled by, one fp32 number, is left out); with ``"moe"`` it is part of
    the whole block's recomputation (:func:`moe_block_recompute_flops_per_token`) and not counted here. Nothing is
    re-run under full recomputation (``rc`` = 2), which recomputes the whole layer, nor for a dense model (its norms
    are fused into the next linear layer and it has no experts): :data:`coursekit.specs.RECOMPUTE_MODULES_SOURCE`.
    """
    if not model.is_moe:
        return 0.0 * rc, 0.0 * rc
    not_full = rc != 2
    norms = 1.0 + (model.attention_kind == "mla")
    norm_bytes = ("layernorm" in modules) * norms * 2.0 * model.hidden * ACTIVATION_BYTES
    width = float(model.moe_ffn_hidden or model.ffn_hidden)
    copies = routed_copies(model)
    act_in = 2.0 if model.mlp == "swiglu" else 1.0
    act_alone = ("moe_act" in modules) and ("moe" not in modules)  # "moe" re-runs it with the whole block
    act_bytes = act_alone * copies * (act_in + 1.0) * width * ACTIVATION_BYTES
    return not_full * norm_bytes, not_full * act_bytes


def _module_recompute_s(
    np: Any, model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, k: _Columns, st: _Stages
) -> Any:
    """Seconds per step the slowest stage spends re-running the recomputed modules (MoE), at HBM bandwidth:
    the norm on each rank's share of the tokens, ``global_batch·s/(dp·cp)`` over tp with sequence parallelism;
    the experts' activation on the copies the rank's experts receive, on average the copies of the tokens it
    dispatches, ``global_batch·s/(dp·cp)·etp/tp``, each ``1/etp`` of the expert width
    (:func:`module_recompute_bytes_per_token`)."""
    if not workload.recompute_modules or not model.is_moe:
        return np.zeros_like(k.tpf)
    s = float(workload.tokens_per_sequence(model))
    tokens = float(workload.global_batch) * s / (k.dpf * k.cpf)
    norm_bytes, act_bytes = module_recompute_bytes_per_token(model, workload.recompute_modules, k.rc)
    t_sp = np.where(workload.sequence_parallel, k.tpf, 1.0)
    moe_layers = st.layers_max * model.moe_layers / model.layers
    moved = tokens * moe_layers * (norm_bytes / t_sp + act_bytes / k.tpf)
    return moved / cluster.memory_bandwidth_bytes_per_s


class _Ring(NamedTuple):
    """Context parallelism's K/V ring per candidate: one step's send times and how many steps run."""

    send_f_s: Any  # one forward ring step's K/V block
    send_b_s: Any  # one backward ring step's K/V and dK/dV blocks
    steps: Any  # cp - 1 ring steps per layer and micro-batch, over the heaviest stage's layers and all micro-batches
    forward_rings: Any  # 2 under full recomputation (the forward ring runs again), else 1
    dkv_home_s: Any  # after the last backward step the accumulated dK, dV travel home, with no compute left
    attention_f_s: Any  # the attention of one ring step (causal, zig-zag balanced): what a K/V block hides under


def _tp_cp_comm(
    np: Any, model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, k: _Columns, st: _Stages, efficiency: Any
) -> tuple[Any, Any, Any, Any, _Ring]:
    """(TP seconds, TP intra-node?, CP seconds, CP intra-node?, the CP ring's parts) per step."""
    s = float(workload.tokens_per_sequence(model))
    tokens = s / k.cpf
    intra_tp, bw, lat = _link(np, cluster, k.tp, k.tp, k.used)
    h, sp, full = float(model.hidden), workload.sequence_parallel, k.rc == 2
    if model.is_moe:
        # Parallel folding: the attention block's collectives run over TP; the expert block's over expert TP, on
        # the routed rows its ETP group gathers (expert_tp_gathered_tokens; none under the flex dispatcher).
        layers, act = st.layers_max, ACTIVATION_BYTES
        attention = _tp_time_s(tokens, k.mbf, h, layers, k.tpf, act, sp, full, k.gaf, bw, lat, 1)
        _, bw_e, lat_e = _link(np, cluster, k.etp, k.etp, k.used)
        tokens_e = expert_tp_gathered_tokens(model, workload, tokens, k.tpf, k.etpf, k.ep)
        experts = _tp_time_s(tokens_e, k.mbf, h, layers, k.etpf, act, sp, full, k.gaf, bw_e, lat_e, 1)
        tp_s = (k.tp > 1) * attention + (k.etp > 1) * experts
    else:
        tp_s = (k.tp > 1) * _tp_time_s(
            tokens, k.mbf, h, st.layers_max, k.tpf, ACTIVATION_BYTES, sp, full, k.gaf, bw, lat
        )
    intra_cp, bw, lat = _link(np, cluster, k.tp * k.cp, 1, k.used)
    kv_rank = model._kv_width_per_rank(k.tpf)
    send_f, send_b = _cp_step_times_s(s, k.cpf, k.mbf, kv_rank, ACTIVATION_BYTES, bw, lat)
    steps = (k.cp > 1) * (k.cpf - 1) * st.layers_max * k.gaf
    forward_rings = 1.0 + (k.rc == 2)
    dkv_home = (k.cp > 1) * st.layers_max * k.gaf * send_f
    width = float(model.attention_flops_width)
    # the block's executed FLOPs (causal, zig-zag) at flash attention's kernel speed over the rank's s/cp tokens
    rate = attention_kernel_rate(workload, s, k.cpf)
    attention_f = _cp_block_attention_flops(s, k.cpf, k.mbf, width, k.tpf) / (cluster.peak_flops * efficiency * rate)
    ring = _Ring(send_f, send_b, steps, forward_rings, dkv_home, attention_f)
    cp_s = steps * (forward_rings * send_f + send_b) + dkv_home
    return tp_s, intra_tp, cp_s, intra_cp, ring


@_guarded
def ep_dispatched_tokens(workload: WorkloadSpec, tokens: Any, tp: Any, etp: Any) -> Any:
    """Tokens one rank's expert-parallel all-to-all dispatches (each in top_k copies) out of ``tokens`` (a micro-batch
    sequence's share on one CP rank); array-generic.

    Megatron-Core hands the MoE layer each rank's sequence-parallel share, tokens/tp. Its all-to-all dispatcher
    (``MoEAlltoAllTokenDispatcher``: A2A over EP, then an all-gather over expert TP; r0.8's ``all_to_all_sp2hp``
    first moves the same bytes) sends that share once: ``tokens/tp``. The flex dispatcher that runs DeepEP
    (``MoEFlexTokenDispatcher``, ``workload.ep_dedup_per_node``) has one group over TP × EP and sends each token to
    every expert-TP rank of its expert: ``tokens·etp/tp`` (megatron/core/transformer/moe/token_dispatcher.py).

    >>> from coursekit.planner import WorkloadSpec
    >>> ep_dispatched_tokens(WorkloadSpec(global_batch=8), 4096, 4, 4), ep_dispatched_tokens(
    ...     WorkloadSpec(global_batch=8, ep_dedup_per_node=True), 4096, 4, 4)
    (1024.0, 4096.0)
    """
    return tokens / tp * (etp if workload.ep_dedup_per_node else 1.0)


@_guarded
def expert_tp_gathered_tokens(model: ModelSpec, workload: WorkloadSpec, tokens: Any, tp: Any, etp: Any, ep: Any) -> Any:
    """Rows the expert block's tensor-parallel all-gather (and, backward of it, reduce-scatter) gathers over its
    ``etp`` ranks per micro-batch, in tokens of ``hidden`` values (MoE); array-generic.

    The all-to-all dispatcher gathers, after the all-to-all, the routed rows of its ETP group: each rank received
    about top_k·tokens/tp (:func:`routed_copies` per token: padded to capacity with a capacity factor), so
    ``top_k·c·tokens·etp/tp``; the reduce-scatter before the combine returns them
    (``dispatch_postprocess`` / ``combine_preprocess``). The flex dispatcher (``workload.ep_dedup_per_node``) already
    delivered every expert-TP rank its rows (:func:`ep_dispatched_tokens`), so with ep > 1 there is nothing to
    gather: 0. Uniform routing.

    >>> from coursekit.planner import WorkloadSpec
    >>> from coursekit.presets import MODELS
    >>> expert_tp_gathered_tokens(MODELS["mixtral-8x7b"], WorkloadSpec(global_batch=8), 4096, 4, 4, 8)
    8192.0
    """
    flex_with_ep = workload.ep_dedup_per_node * (ep > 1)
    return routed_copies(model) * tokens * etp / tp * (1 - flex_with_ep)


@_guarded
def ep_element_bytes(workload: WorkloadSpec) -> float:
    """Mean bytes per element of EP's four all-to-alls (dispatch, combine and their gradients) per MoE layer.

    ``ACTIVATION_BYTES`` (bf16) by default. With ``workload.ep_fp8_dispatch`` (DeepSeek-V3, arXiv:2412.19437,
    §3.3.3): the dispatch forward and the activation gradient before the experts' down-projection go in FP8, 1 byte;
    the combine forward and the other gradient stay in bf16, 2 bytes: (1 + 2 + 1 + 2) / 4 = 1.5. FP8's per-block
    scaling factors (one fp32 per 128 elements, 4/128 of a byte each) are left out.
    """
    return (1.0 + ACTIVATION_BYTES) / 2.0 if workload.ep_fp8_dispatch else float(ACTIVATION_BYTES)


def _ep_comm(
    np: Any, model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, k: _Columns, st: _Stages
) -> dict[str, Any]:
    """Expert-parallel all-to-all seconds per step: ``EP`` (the slower tier), ``EP_intra``, ``EP_inter``, and
    ``link`` (True where every EP rank shares a node)."""
    zeros = np.zeros_like(k.tpf)
    if not model.is_moe:
        return {"EP": zeros, "EP_intra": zeros, "EP_inter": zeros, "link": np.ones(k.tp.shape, dtype=bool)}
    g = cluster.domain_gpus
    per_node = np.clip(g // np.minimum(k.etp, g), 1, None)
    members = np.minimum(k.epf, per_node.astype(np.float64))  # EP ranks that share a node (EP ranks are etp apart)
    share = _ep_remote_share(k.epf, members, model.top_k, workload.ep_dedup_per_node, workload.ep_node_limit)
    tokens = ep_dispatched_tokens(workload, float(workload.tokens_per_sequence(model)) / k.cpf, k.tpf, k.etpf)
    payload = _ep_payload_bytes(
        tokens, k.mbf, model.hidden, ep_element_bytes(workload), ep_sent_copies(model, workload)
    )
    calls = _ep_calls(st.layers_max, k.gaf)
    # the MoE block's forward runs again in backward -- under full recomputation (the whole layer) or the module-level
    # recomputation "moe" -- and with it its dispatch and combine (4 -> 6 all-to-alls), as TP's and CP's forward
    # collectives repeat under full recomputation (_tp_time_s, _tp_cp_comm's forward_rings)
    calls = calls * (1.0 + 0.5 * _moe_block_again(k.rc == 2, workload.recompute_modules))
    one_intra, one_inter = _all_to_all_two_tier_s(
        k.epf,
        members,
        payload,
        share,
        cluster.intra_node_bandwidth_bytes_per_s,
        cluster.intra_node_latency_s,
        cluster.inter_node_bandwidth_bytes_per_s,
        cluster.inter_node_latency_s,
        workload.ep_dedup_per_node,  # one InfiniBand peer per other node, forwarded over NVLink
    )
    ep_intra, ep_inter = (k.ep > 1) * calls * one_intra, (k.ep > 1) * calls * one_inter
    return {"EP": np.maximum(ep_intra, ep_inter), "EP_intra": ep_intra, "EP_inter": ep_inter, "link": members >= k.epf}


def _ep_overlap_share(np: Any, k: _Columns, o_ep: float, schedule: str = "megatron") -> Any:
    """Share of the expert-parallel all-to-all that can hide, at overlap ``o_ep``: only passes that run merged with
    another micro-batch's opposite pass hide it (MoE).

    Megatron-Core's EP all-to-all overlap (``--overlap-moe-expert-parallel-comm``) runs the forward of one
    micro-batch merged with the backward of another, so only the 1F1B steady state hides it; the warm-up's forwards
    and the cool-down's backwards run alone. The first pipeline rank warms up with
    ``W = 2(p - 1) + (v - 1)·p + 1`` of its ``m·v`` chunk passes (interleaved; ``p - 1 + 1`` without interleaving;
    ``1`` without a pipeline: the first forward and the last backward) — megatron/core/pipeline_parallel/
    schedules.py, ``get_pp_rank_microbatches``, with the extra forward it schedules for this overlap, and
    combined_1f1b.py, ``combined_1f1b_schedule_for_no_pipelining``. Other schedules that overlap the all-to-all
    across micro-batches (DeepSeek-V3's DualPipe) are taken at the same count. So a share
    ``W / (m·v)`` of the all-to-all (capped at 1) cannot hide; the rest hides at ``o_ep``. Under ``schedule``
    ``"megatron"`` nothing hides where Megatron-Core's ``TransformerConfig`` refuses the overlap: pp > 1 without
    interleaving, or full recomputation (:data:`coursekit.specs.EP_OVERLAP_SCHEDULES`).
    """
    p, v, m = k.ppf, k.vf, k.gaf
    warmup = np.where(k.pp > 1, (p - 1.0) * (1.0 + (k.v > 1)) + (v - 1.0) * p, 0.0) + 1.0
    share = o_ep * (1.0 - np.minimum(warmup / (m * v), 1.0))
    if schedule == "megatron":  # TransformerConfig refuses the overlap at pp > 1 without VPP, and under full recompute
        share = share * (((k.pp == 1) | (k.v > 1)) & (k.rc != 2))
    return share


def _ep_overlap_slowdown_s(np: Any, ep_s: Any, o_ep: Any, compute: Any) -> Any:
    """Seconds the matmuls lose to an expert-parallel all-to-all that runs under them (MoE), at overlap ``o_ep``.

    Overlapped dispatch and combine kernels occupy SMs: ``EP_ALL_TO_ALL_SMS`` of ``H100_SMS`` (DeepSeek-V3, §3.2.2).
    While ``hidden`` seconds of all-to-all run under compute, the matmuls have the rest of the SMs, so the compute
    takes ``hidden · sms/total`` longer; ``hidden`` is the share ``o_ep`` (:func:`_ep_overlap_share`) of the
    all-to-all, at most the compute it hides under. The SM share of the H100/H800 is used for every device (an
    approximation where SM counts differ).
    """
    hidden = np.minimum(o_ep * ep_s, compute)
    return hidden * (EP_ALL_TO_ALL_SMS / H100_SMS)


class _ZeroParts(NamedTuple):
    """Seconds per step of one data-parallel group's ZeRO traffic, and of the buckets nothing can hide."""

    reduce_s: Any
    gather_s: Any
    tail_reduce_s: Any  # the bucket that closes backward (ZeRO-3: one layer's reduce-scatter)
    tail_gather_s: Any  # the bucket that opens forward


def _zero_parts(
    np: Any,
    workload: WorkloadSpec,
    k: _Columns,
    units: Any,
    psi: Any,
    n: Any,
    bw: Any,
    lat: Any,
    trained: Any = None,
) -> _ZeroParts:
    """ZeRO's reduce and gather seconds for ``psi`` parameters per rank over ``n`` ranks on link (``bw``, ``lat``);
    ``units`` are the collectives one pass splits into (a layer each under ZeRO-3, else 1). ``trained`` (default
    ``psi``) of them have gradients (LoRA: the adapters): only they are reduced and, below ZeRO-3, gathered after the
    optimizer step; ZeRO-3 gathers every weight before it is used."""
    recipe = PRECISION_RECIPES[workload.recipe]
    pb, gb_ = recipe.param_bytes, recipe.grad_bytes
    zero = k.zero
    trained = psi if trained is None else trained
    gathered = np.where(zero == 3, psi, trained)
    all_reduce_calls, reduce_scatter_calls, gather_calls = _zero_calls(zero, units, k.gaf)
    grads_payload, params_payload = (
        _zero_payloads(trained, gb_, pb, units)[0],
        _zero_payloads(gathered, gb_, pb, units)[1],
    )
    reduce_kind_time = np.where(
        zero == 0,
        _collective_time_s("all_reduce", n, grads_payload, bw, lat),
        _collective_time_s("reduce_scatter", n, grads_payload, bw, lat),
    )
    reduce = (n > 1) * (all_reduce_calls + reduce_scatter_calls) * reduce_kind_time
    gather = (n > 1) * gather_calls * _collective_time_s("all_gather", n, params_payload, bw, lat)

    # the last unit to reduce: a layer under ZeRO-3; else the last bucket, or with an interleaved pipeline the last
    # model chunk (Megatron-Core launches each chunk's reduction after its last backward: coursekit.overlap)
    def tail(params: Any) -> Any:
        return np.where(
            zero == 3, params / units, np.where(k.v > 1, params / k.vf, np.minimum(params, _bucket_params(k.dpc)))
        )

    tail_trained = tail(trained)
    tail_reduce = np.where(
        zero == 0,
        _collective_time_s("all_reduce", n, tail_trained * gb_, bw, lat),
        _collective_time_s("reduce_scatter", n, tail_trained * gb_, bw, lat),
    )
    tail_gather = (zero >= 1) * _collective_time_s("all_gather", n, tail(gathered) * pb, bw, lat)
    return _ZeroParts(reduce, gather, (n > 1) * tail_reduce, (n > 1) * tail_gather)


def _data_parallel_comm(
    np: Any,
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    k: _Columns,
    st: _Stages,
    trained: tuple[Any, Any],
) -> tuple[_ZeroParts, _ZeroParts, Any]:
    """ZeRO traffic of the dense weights (over dp · cp) and of the experts (over the expert-data-parallel group),
    and whether that group is inside one node; ``trained`` is :func:`_lora_trained`'s (None, None) or the LoRA
    adapters data parallelism reduces."""
    span = k.tp * k.cp * k.dp  # ints: the ring's NIC count (coursekit.specs.ring_nics) is integer arithmetic
    intra, bw, lat = _link(np, cluster, span, k.dp * k.cp, k.used)
    units = np.where(k.zero == 3, st.layers_max, 1.0)
    psi_dense = np.max(np.stack([st.dense[kind] for kind in STAGE_KINDS]), axis=0) / k.tpf
    trained_dense, trained_experts = trained
    dense = _zero_parts(np, workload, k, units, psi_dense, k.dpc, bw, lat, trained_dense)
    if model.is_moe:
        p_experts = float(model.num_experts * model.expert_params)
        _, bw, lat = _link(np, cluster, span, span // (k.etp * k.ep), k.used)
        psi_experts = st.layers_max * p_experts / k.expert_shards
        experts = _zero_parts(np, workload, k, units, psi_experts, k.edp, bw, lat, trained_experts)
    else:
        zeros = np.zeros_like(k.tpf)
        experts = _ZeroParts(zeros, zeros, zeros, zeros)
    return dense, experts, intra


def _communication(
    np: Any,
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    k: _Columns,
    st: _Stages,
    efficiency: Any,
    trained: tuple[Any, Any],
) -> tuple[dict[str, Any], dict[str, Any], _Ring, _ZeroParts, _ZeroParts]:
    """Communication seconds per step of each dimension, each on its group's link (``trained``: what
    :func:`_data_parallel_comm` takes).

    Returns (seconds by dimension, intra-node? by dimension, the CP ring's parts, the dense and the expert ZeRO
    parts) — the parts are what the overlap model needs.
    """
    comm: dict[str, Any] = {}
    links: dict[str, Any] = {}
    comm["TP"], links["TP"], comm["CP"], links["CP"], ring = _tp_cp_comm(
        np, model, cluster, workload, k, st, efficiency
    )
    ep = _ep_comm(np, model, cluster, workload, k, st)
    links["EP"] = ep.pop("link")
    comm.update(ep)
    # the span in ints (k.used's value): the link's integer arithmetic runs about 3x faster on ints than on floats
    links["PP"], bw, lat = _link(np, cluster, k.tp * k.cp * k.dp * k.pp, 1, k.used)
    tokens = float(workload.tokens_per_sequence(model)) / k.cpf
    width = float(model.hidden) / k.tpf
    comm["PP"] = _pp_time_s(tokens, k.mbf, width, k.ppf, k.gaf * k.vf, ACTIVATION_BYTES, bw, lat)
    dense, experts, links["DP"] = _data_parallel_comm(np, model, cluster, workload, k, st, trained)
    links["EDP"] = links["DP"]
    comm["DP"] = dense.reduce_s + dense.gather_s
    comm["EDP"] = experts.reduce_s + experts.gather_s
    return comm, links, ring, dense, experts


def _exposed_dp_s(
    np: Any,
    k: _Columns,
    compute: Any,
    ring: _Ring,
    shared_nic: Any,
    dense: _ZeroParts,
    experts: _ZeroParts,
    o: float,
    passes_s: Any = None,
) -> Any:
    """DP/ZeRO seconds that cannot hide, at overlap ``o``.

    Gradients reduce under backward — the last micro-batch's (stages 0-1), every one's (2-3) — except the last
    bucket; gathers run under forward — the first micro-batch's (1-2), all compute (3) — except the first. With an
    interleaved pipeline the once-per-step reduction and gather hide under ``min(pp, m)·(v-1)/v`` micro-batches
    instead of one, the last (first) chunk exposed (:func:`coursekit.overlap.interleaved_sync_window_microbatches`).
    The windows are the passes (``passes_s``, per step: :func:`_passes_s`, the compute and the stalls and overruns
    of the other dimensions; the compute alone when not given), two thirds backward and one third forward as the
    compute: the buckets move during those stalls too. A CP ring on the same inter-node NIC (``shared_nic``) holds the
    link for its backward blocks, hidden or waited for, so they take their time from the backward window. Each
    window's exposure falls by at most what the window grows and a window grows by at most what the passes grow, so
    longer passes never shorten the step they are part of.
    """
    once = _interleaved_sync_window_microbatches(k.ppf, k.gaf, k.vf)  # micro-batches a once-per-step sync hides under
    # the CP ring's backward blocks hold the shared link inside the backward passes, hidden under the attention or
    # waited for (the passes include those waits)
    cp_in_backward = np.where(shared_nic, ring.steps * ring.send_b_s / k.gaf, 0.0)
    passes = compute if passes_s is None else passes_s
    backward_s = passes * (2.0 / 3.0) / k.gaf  # one micro-batch's backward pass, with its stalls
    forward_s = passes / 3.0 / k.gaf
    reduce_window = np.where(k.zero >= 2, k.gaf, once) * np.maximum(backward_s - cp_in_backward, 0.0)
    gather_window = np.where(k.zero == 3, k.gaf * (forward_s + backward_s), once * forward_s)
    reduce_s, tail_reduce_s = dense.reduce_s + experts.reduce_s, dense.tail_reduce_s + experts.tail_reduce_s
    gather_s, tail_gather_s = dense.gather_s + experts.gather_s, dense.tail_gather_s + experts.tail_gather_s
    reduce = _exposed_after_window_s(reduce_s, tail_reduce_s, reduce_window, o)
    gather = _exposed_after_window_s(gather_s, tail_gather_s, gather_window, o)
    # ZeRO-3's gather window (every pass) holds its reduce window (every backward), and the two directions share the
    # link: together they hide under the gather window once, not under both windows each as if alone. Below stage 3
    # the windows are apart in time (the reduction under the last backward, the gather under the first forward).
    joint = _exposed_after_window_s(reduce_s + gather_s, tail_reduce_s + tail_gather_s, gather_window, o)
    return np.where(k.zero == 3, np.maximum(np.maximum(reduce, gather), joint), reduce + gather)


def _exposed_cp_s(ring: _Ring, o: float) -> Any:
    """CP seconds that cannot hide: per ring step the block in flight hides under the attention of the block
    before it (backward: twice the forward's attention), at overlap ``o``; the dK, dV return never hides."""
    return ring.dkv_home_s + ring.steps * (
        ring.forward_rings * _ring_step_exposed_s(ring.send_f_s, ring.attention_f_s, o)
        + _ring_step_exposed_s(ring.send_b_s, 2 * ring.attention_f_s, o)
    )


def _passes_s(
    np: Any,
    hidden: Mapping[str, Any],
    stalls: Mapping[str, Any],
    links: Mapping[str, Any],
    compute: Any,
    tp_idle_s: Any = 0.0,
) -> Any:
    """Seconds the forward and backward passes of a step take, from each dimension's traffic inside them that could
    hide (``hidden``) and that cannot (``stalls``: the compute waits for it), on the links ``links`` says (True:
    inside a node); DP's entries, if any, are left out (its buckets wait outside the passes, :func:`_exposed_s`).
    Array-generic.

    Let *a* be the link kind data parallelism (DP) uses and *b* the other; H and S a link's hideable and stalled
    seconds, C the compute. The passes hold the compute and every stall, ``C + S_a + S_b``; and each link carries its
    traffic inside them, ``H_b + S_b`` and ``H_a + S_a`` (a link that cannot finish under the compute lengthens the
    passes, while the other link's stalls run meanwhile). TP's collectives hide under the GEMMs next to them, never
    under the attention core: while context parallelism's K/V ring hides under that core on the other link, TP's link
    carries no TP traffic (``tp_idle_s``, that core's seconds), so TP's link is busy at least ``H_tp + S + tp_idle_s``.

    The passes never shrink when a resource gets slower, and when the compute shrinks by some seconds they shrink by
    at most as much: every term is a sum of the compute and of traffic seconds, and a dimension's stall grows by at
    most the compute it loses (its hidden part shrinks by as much).

    >>> import numpy as np
    >>> links = {"TP": np.array(True), "CP": np.array(False), "DP": np.array(False)}
    >>> hidden, stalls = {"TP": np.array(3.0), "CP": np.array(1.0)}, {"TP": np.array(0.5), "CP": np.array(1.5)}
    >>> [float(_passes_s(np, hidden, stalls, links, c)) for c in (1.0, 4.0)]  # NVLink 3.5 s, IB 2.5 s, stalls 2 s
    [3.5, 6.0]
    >>> float(_passes_s(np, hidden, stalls, links, 1.0, tp_idle_s=np.array(1.0)))  # the ring's core: 1 s of NVLink idle
    4.5
    """
    dims = [dim for dim in hidden if dim != "DP"]
    same = {dim: links[dim] == links["DP"] for dim in dims}
    h_a = sum(np.where(same[dim], hidden[dim], 0.0) for dim in dims)
    h_b = sum(np.where(same[dim], 0.0, hidden[dim]) for dim in dims)
    s_a = sum(np.where(same[dim], stalls[dim], 0.0) for dim in dims)
    s_b = sum(np.where(same[dim], 0.0, stalls[dim]) for dim in dims)
    passes = np.maximum(np.maximum(compute + s_a + s_b, h_b + s_b), h_a + s_a)
    if "TP" in hidden:
        tp_busy = hidden["TP"] + tp_idle_s + np.where(same["TP"], s_a, s_b)
        passes = np.maximum(passes, tp_busy)
    return passes


def _exposed_s(
    np: Any,
    hidden: Mapping[str, Any],
    stalls: Mapping[str, Any],
    links: Mapping[str, Any],
    compute: Any,
    tp_idle_s: Any = 0.0,
    passes_s: Any = None,
) -> Any:
    """Seconds of communication the step shows beyond ``compute``, from each dimension's traffic that could hide
    (``hidden``) and that cannot (``stalls``), on the links ``links`` says (True: inside a node); ``passes_s``, the
    passes when the caller has them already (else computed here from the same arguments). Array-generic.

    The passes take W (:func:`_passes_s`, every dimension but DP); DP's buckets that cannot hide (its stall, whose
    windows :func:`_exposed_dp_s` took as these passes) come on top; and DP's link *a* carries all its traffic,
    ``A = H_a + S_a`` with DP's. So the step's compute and communication take ``max(W + S_DP, A)`` and the exposed
    seconds are that minus C. Without stalls this is ``max(C, A, B)``: hideable traffic on the two link kinds runs
    concurrently with the compute and with each other, and only the longer overrun shows.

    The step never shrinks when a resource gets slower, nor grows when the compute shrinks: W grows with C, S and H
    and shrinks by at most what C does, and S_DP grows by at most what W shrinks (:func:`_exposed_dp_s`). (Charging a
    link's overrun with the other link's stalls, as this estimate did before, made a faster GPU slower: first up to
    5 %; later, with the stalls of CP or PP on one link and TP or PP overrunning the other, up to 17 %, fuzz pass 19.)

    >>> import numpy as np
    >>> links = {"TP": np.array(True), "DP": np.array(False)}
    >>> hidden, stalls = {"TP": np.array(3.0), "DP": np.array(5.0)}, {"TP": np.array(0.0), "DP": np.array(0.0)}
    >>> [float(_exposed_s(np, hidden, stalls, links, c)) for c in (4.0, 2.0, 9.0)]  # 3 s of NVLink, 5 s of IB
    [1.0, 3.0, 0.0]
    >>> float(_exposed_s(np, hidden, {"TP": np.array(1.0), "DP": np.array(0.5)}, links, 2.0))  # IB busy 5.5 s
    3.5
    """
    passes = _passes_s(np, hidden, stalls, links, compute, tp_idle_s) if passes_s is None else passes_s
    same = {dim: links[dim] == links["DP"] for dim in hidden}
    link_a = sum(np.where(same[dim], hidden[dim] + stalls[dim], 0.0) for dim in hidden)
    dp_wait = stalls["DP"] if "DP" in stalls else 0.0
    return np.maximum(passes + dp_wait, link_a) - compute


register(
    {
        "planner.expert_rows_dense": {
            "zh": "model = {model}：稠密模型没有路由专家 (routed experts)，每个专家的行数无从谈起；"
            "请给一个混合专家 (MoE) 模型。",
            "en": "model = {model}: a dense model has no routed experts, so there are no rows per expert; "
            "give a mixture-of-experts (MoE) model.",
        },
        "planner.columns_key": {
            "zh": "{name} 缺少列 {key!r}：要有 {keys} 各一列（etp 可选）。",
            "en": "{name} has no column {key!r}: it needs one each of {keys} (etp optional).",
        },
        "planner.columns_range": {
            "zh": "{name} 里有 {value}：每个值都必须在 {low} 到 {high} 之间。",
            "en": "{name} holds {value}: every value must be between {low} and {high}.",
        },
        "planner.columns_needed": {
            "zh": "{name}：至少要给一列（`numpy` 数组）。",
            "en": "{name}: give at least one column (a numpy array).",
        },
        "planner.columns_length": {
            "zh": "{name} 有 {length} 行，而第一列有 {first} 行：各列的长度必须相同。",
            "en": "{name} has {length:@row}, but the first column has {first}: the columns must have one length.",
        },
        "planner.whole_counts": {
            "zh": "{name} = {value}：必须是整数（这是个数），或由整数组成的数组。",
            "en": "{name} = {value}: must be a whole number (it is a count), or an array of them.",
        },
        "planner.nonnegative_values": {
            "zh": "{name} = {value}：必须是不超过 2**53 的非负数，或由这样的数组成的数组。",
            "en": "{name} = {value}: must be a non-negative number no larger than 2**53, or an array of them.",
        },
        "planner.offload_shapes": {
            "zh": "offloaded_layers、layer_bytes、layer_compute_s、micro_batches 的形状 "
            "{shapes} 不能逐元素对齐：数组的长度必须相同（数可以配任何数组）。",
            "en": "offloaded_layers, layer_bytes, layer_compute_s, micro_batches have shapes "
            "{shapes} that do not line up element by element: arrays must have the same length (a number goes with "
            "any array).",
        },
        "planner.host_wait_shapes": {
            "zh": "layer_gpu_s、host_s、moe_layer_passes 的形状 {shapes} 不能逐元素对齐："
            "数组的长度必须相同（数可以配任何数组）。",
            "en": "layer_gpu_s, host_s, moe_layer_passes have shapes {shapes} that do not line up element by element: "
            "arrays must have the same length (a number goes with any array).",
        },
    }
)


def _nonnegative_values(np: Any, name: str, value: Any) -> Any:
    """``value`` as a float or a float array of values from 0 to 2**53 (:data:`MAX_INT`: their products stay finite);
    else TypeError / ValueError naming ``name``."""
    # Decimal is no real number here as everywhere in the course (fuzz pass 26: Decimal('2.5') was taken)
    if isinstance(value, (str, bytes, bool, decimal.Decimal)) or value is None:
        raise TypeError(tr("planner.nonnegative_values", name=name, value=shown_repr(value)))
    if isinstance(value, numbers.Real):
        return check_number(name, value, ge=0, le=MAX_INT)
    truth = (bool, np.bool_)  # True is no count or time, in an array or a list as alone (where it is refused above)
    if isinstance(value, np.bool_) or getattr(value, "dtype", None) == np.bool_:
        raise TypeError(tr("planner.nonnegative_values", name=name, value=shown_repr(value)))
    if isinstance(value, (list, tuple)) and any(isinstance(item, (*truth, decimal.Decimal)) for item in value):
        raise TypeError(tr("planner.nonnegative_values", name=name, value=shown_repr(value)))
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(tr("planner.nonnegative_values", name=name, value=shown_repr(value))) from None
    if not np.all(np.isfinite(array) & (array >= 0) & (array <= MAX_INT)):
        raise ValueError(tr("planner.nonnegative_values", name=name, value=shown_repr(value)))
    return array


def moe_host_wait_s(layer_gpu_s: Any, host_s: Any, moe_layer_passes: Any) -> Any:
    """Seconds per step the GPU waits for the host to launch MoE layers: ``passes · max(host_s − layer_gpu_s, 0)``.

    ``layer_gpu_s`` is the GPU's time for one layer's forward and backward of one micro-batch (its compute and
    the communication it waits for), ``host_s`` the host's time to launch them, ``moe_layer_passes`` how many MoE
    layers a GPU runs per step (its MoE layers × micro-batches). The host waits for the device once per MoE layer
    (the dispatcher needs the token counts, :data:`coursekit.planner.calibration.MOE_LAYER_HOST_S`), so it cannot
    get ahead: a layer takes the longer of the two. Numbers or arrays (elementwise), each finite and >= 0.

    >>> round(float(moe_host_wait_s(0.005, 0.0094, 12 * 128)), 6)   # 1536 layer passes, 4.4 ms each
    6.7584
    >>> moe_host_wait_s([0.02, 0.009], 0.0094, 100.0).round(6).tolist()  # long layers never wait
    [0.0, 0.04]

    Taught in: lesson 9 (decision workbench).
    """
    import numpy as np

    checked = [
        _nonnegative_values(np, name, value)
        for name, value in (("layer_gpu_s", layer_gpu_s), ("host_s", host_s), ("moe_layer_passes", moe_layer_passes))
    ]
    shapes = [np.shape(value) for value in checked]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(tr("planner.host_wait_shapes", shapes=", ".join(str(shape) for shape in shapes))) from None
    return _moe_host_wait_s(np, *checked)


def _moe_host_wait_s(np: Any, layer_gpu_s: Any, host_s: Any, moe_layer_passes: Any) -> Any:
    """Kernel of :func:`moe_host_wait_s` on checked values (the estimate's own columns)."""
    return moe_layer_passes * np.maximum(host_s - layer_gpu_s, 0.0)


#: The recompute code of the planner's ``"offload"`` mode (an index into ``PLAN_RECOMPUTE_MODES``).
OFFLOAD_CODE: int = PLAN_RECOMPUTE_MODES.index("offload")
#: The memory ledger's offloading entries a search may carry among its columns (internal calls only: the step of an
#: offloading row reads them instead of working out the ledger again).
OFFLOAD_COLUMNS: tuple[str, str] = ("offloaded_layers", "offload_layer_bytes")

#: Each column :func:`training_estimate` reads, with its legal range (recompute codes index ``PLAN_RECOMPUTE_MODES``).
_ESTIMATE_COLUMNS: dict[str, tuple[int, int]] = {
    "tp": (1, 1 << 40),
    "cp": (1, 1 << 40),
    "pp": (1, 1 << 40),
    "dp": (1, 1 << 40),
    "ep": (1, 1 << 40),
    "v": (1, 1 << 40),
    "zero": (0, 3),
    "mb": (1, 1 << 40),
    "ga": (1, 1 << 40),
    "rc": (0, len(PLAN_RECOMPUTE_MODES) - 1),
}


def check_estimate_inputs(model: Any, cluster: Any, workload: Any, columns: Any, name: str = "c") -> None:
    """The public guard of :func:`training_estimate`, :func:`training_memory`, :func:`training_steps` and
    :func:`coursekit.planner.ties.scenario_steps`, called when a person calls them (the search's own calls pass
    checked columns): the three specs by type, and ``columns`` (named ``name``) a mapping with every column of
    :data:`_ESTIMATE_COLUMNS` (and optionally ``etp``), each a one-dimensional array of integers, all of one length,
    every value in its range."""
    import numpy as np

    check_instance("model", model, ModelSpec)
    check_instance("cluster", cluster, ClusterSpec)
    check_instance("workload", workload, WorkloadSpec)
    if not isinstance(columns, Mapping):
        raise type_error(name, columns, "mapping of columns")
    length = None
    for key, (low, high) in {**_ESTIMATE_COLUMNS, **({"etp": (1, 1 << 40)} if "etp" in columns else {})}.items():
        if key not in columns:
            raise ValueError(tr("planner.columns_key", name=name, key=key, keys=", ".join(_ESTIMATE_COLUMNS)))
        column = np.asarray(columns[key]) if isinstance(columns[key], (list, tuple, np.ndarray)) else None
        label = f"{name}[{key!r}]"
        if column is None or column.ndim != 1 or column.dtype.kind not in "iu":
            raise type_error(label, columns[key], "one-dimensional numpy array of numbers")
        length = len(column) if length is None else length
        if len(column) != length:
            raise ValueError(tr("planner.columns_length", name=label, length=len(column), first=length))
        if column.size and (column.min() < low or column.max() > high):
            bad = column[(column < low) | (column > high)][0].item()
            raise ValueError(tr("planner.columns_range", name=label, value=bad, low=low, high=high))


def training_memory(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, c: Mapping[str, Any]
) -> dict[str, Any]:
    """The memory ledger of :func:`training_estimate` alone (its ``"memory"``), for the columns ``c``: what the
    memory gate needs, without the step time. Of ``cluster`` only its FP8 GEMM layout rule is read (the cached FP8
    weights' bytes); the ledger is per rank."""
    import numpy as np

    if called_from_outside():
        check_estimate_inputs(model, cluster, workload, c)
    k = _Columns.of(np, c)
    return _memory_ledger(np, model, workload, k, _Stages.of(np, model, workload, k), cluster)


def training_estimate(
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    c: Mapping[str, Any],
    *,
    efficiency_shape: float = 1.0,
    bubble_scale: float = 1.0,
    with_memory: bool = True,
    assumptions: Assumptions | None = None,
) -> dict[str, Any]:
    """Memory ledger, communication per dimension, efficiency and step time for the columns ``c``.

    ``c`` maps ``tp, cp, pp, dp, ep, v, zero, mb, ga, rc`` (recompute code, index into ``PLAN_RECOMPUTE_MODES``:
    :data:`OFFLOAD_CODE` is ``"offload"``, :func:`offload_copy_s`) and optionally ``etp`` (expert TP, default
    ``tp``) to equal-length integer arrays.
    Returns a dict of float arrays (bytes and seconds); keys are documented inline. Malformed rows (see the
    structural gates) get numbers too; the caller masks them. ``efficiency_shape`` k bends the efficiency curve
    below its ceiling, ``ceiling · (efficiency / ceiling)**k`` (1: the model; 0.5 halves and 2 doubles how much smaller
    matmuls lose — what :mod:`coursekit.planner.ties` moves within its uncertainty); ``bubble_scale``
    multiplies the pipeline bubble (1: the schedule's formula). ``with_memory=False`` skips the memory ledger
    (``"memory"`` is then empty): the step time does not depend on it, and the tie scenarios need only the step.
    ``assumptions`` replaces the bandwidths and overlap shares the cluster and the workload state, and both
    keywords above, with values that may differ per row (:class:`Assumptions`; the tie scenarios in one pass).
    """
    import numpy as np

    if called_from_outside():
        check_estimate_inputs(model, cluster, workload, c)
        check_number("efficiency_shape", efficiency_shape, gt=0, le=10)
        check_number("bubble_scale", bubble_scale, ge=0, le=10)
        check_bool("with_memory", with_memory)
        if assumptions is not None:
            check_instance("assumptions", assumptions, Assumptions)
    a = Assumptions.of(cluster, workload, efficiency_shape, bubble_scale) if assumptions is None else assumptions
    k = _Columns.of(np, c)
    st = _Stages.of(np, model, workload, k)
    memory = _memory_ledger(np, model, workload, k, st, cluster) if with_memory else {}
    parts = _step_parts(np, model, a.links(cluster), workload, k, st, a.efficiency_shape)
    offload = _offload_ledger(np, model, cluster, workload, c, k, memory)
    step = _step_from_parts(np, model, workload, k, st, a, parts, offload, cluster.host_link_bandwidth_bytes_per_s)
    return {"memory": memory, **step}


def _offload_ledger(
    np: Any,
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    c: Mapping[str, Any],
    k: _Columns,
    memory: Mapping[str, Any],
) -> dict[str, Any] | None:
    """The offloaded layers and one layer's bytes of every row of ``c`` (0 where a row does not offload), from the
    memory ledger ``memory`` when there is one, else from the columns of those names the search carries in ``c``
    (its kept ledger's, :data:`OFFLOAD_COLUMNS`), else from the ledger of the offloading rows alone; ``None`` when no
    row offloads."""
    if not np.any(k.offload):
        return None
    keys = OFFLOAD_COLUMNS
    if memory:
        return {key: memory[key] for key in keys}
    if all(key in c for key in keys):
        return {key: np.asarray(c[key], dtype=np.float64) for key in keys}
    rows = np.flatnonzero(k.offload)
    sub = _Columns.of(np, {key: np.asarray(column)[rows] for key, column in c.items()})
    part = _memory_ledger(np, model, workload, sub, _Stages.of(np, model, workload, sub), cluster)
    out = {key: np.zeros(k.offload.shape, dtype=np.float64) for key in keys}
    for key in keys:
        out[key][rows] = part[key]
    return out


def training_steps(
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    c: Mapping[str, Any],
    blocks: Sequence[Assumptions],
) -> list[Any]:
    """The step (seconds per row of the columns ``c``) under each of ``blocks``, in one pass: what
    :func:`training_estimate` with ``assumptions=`` that block gives, bit for bit (the tie scenarios,
    :func:`coursekit.planner.ties.scenario_steps`). Each block holds scalars (:meth:`Assumptions.of`).

    The compute and the communication (:func:`_step_parts`) depend only on the links' bandwidths and the efficiency
    curve's shape, so the columns are tiled once per distinct value of those among the blocks, each tile with its
    own as one value per row (:meth:`Assumptions.stacked`); each block's step then comes from its tile at the
    block's own overlap shares, bubble scale and host scale (:func:`_step_from_parts`). Internal: ``c`` is a search's
    own columns, unchecked.
    """
    import numpy as np

    if called_from_outside():
        check_estimate_inputs(model, cluster, workload, c)
        for i, block in enumerate(check_items("blocks", blocks)):
            check_instance(f"blocks[{i}]", block, Assumptions)
    if not blocks:
        return []
    rows = len(np.asarray(c["tp"]))
    reads = [
        (a.intra_node_bandwidth_bytes_per_s, a.inter_node_bandwidth_bytes_per_s, a.efficiency_shape) for a in blocks
    ]
    distinct = list(dict.fromkeys(reads))
    tiles = len(distinct)
    k = _Columns.of(np, {name: np.tile(np.asarray(column), tiles) for name, column in c.items()})
    shared = Assumptions.stacked(np, [blocks[reads.index(read)] for read in distinct], rows)
    parts = _step_parts(
        np, model, shared.links(cluster), workload, k, _Stages.of(np, model, workload, k), shared.efficiency_shape
    )
    # every tile holds the same columns: the first tile's columns and their stages serve every block
    k_rows = _rows(k, slice(0, rows), rows * tiles)
    st_rows = _Stages.of(np, model, workload, k_rows)
    parts_rows = [_rows(parts, slice(i * rows, (i + 1) * rows), rows * tiles) for i in range(tiles)]
    offload = _offload_ledger(np, model, cluster, workload, c, k_rows, {})
    link = cluster.host_link_bandwidth_bytes_per_s
    return [
        _step_from_parts(np, model, workload, k_rows, st_rows, a, parts_rows[distinct.index(read)], offload, link)[
            "step_s"
        ]
        for a, read in zip(blocks, reads, strict=True)
    ]


def _rows(value: Any, view: slice, total: int) -> Any:
    """``value`` (the estimate's columns or parts: arrays of one value per row, in dicts, tuples and dataclasses,
    and scalars) with every array cut to the rows ``view`` of ``total`` (views, not copies)."""
    import dataclasses

    import numpy as np

    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return value
        if value.shape[-1] != total:
            raise ValueError(f"an array of shape {value.shape} among the estimate's {total} rows")
        return value[..., view]
    if isinstance(value, dict):
        return {key: _rows(part, view, total) for key, part in value.items()}
    if isinstance(value, tuple):
        parts = (_rows(part, view, total) for part in value)
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _rows(getattr(value, f.name), view, total) for f in dataclasses.fields(value)}
        return type(value)(**fields)
    return value


class _StepParts(NamedTuple):
    """What :func:`training_estimate` works out before the overlap shares, the bubble's scale and the host's launch
    time enter: the compute (``run``), LoRA's trained parameters, the communication per dimension on its links, the
    CP ring's and the ZeRO traffic's parts, and the pipeline bubble's fraction. They depend on the links' bandwidths
    and the efficiency curve's shape, and not on the rest of :class:`Assumptions`: the tie scenarios that move only
    the rest share them (:func:`coursekit.planner.ties.scenario_steps`)."""

    run: dict[str, Any]
    lora_trained: tuple[Any, Any]
    comm: dict[str, Any]
    links: dict[str, Any]
    ring: _Ring
    dense: _ZeroParts
    experts: _ZeroParts
    bubble: Any


def _step_parts(
    np: Any,
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    k: _Columns,
    st: _Stages,
    efficiency_shape: Any,
) -> _StepParts:
    """The :class:`_StepParts` of the columns ``k`` on ``cluster``'s links (:meth:`Assumptions.links`)."""
    run = _compute_time(np, model, cluster, workload, k, st, efficiency_shape)
    lora_trained = _lora_trained(np, model, workload, k, st)
    comm, links, ring, dense, experts = _communication(
        np, model, cluster, workload, k, st, run["efficiency"], lora_trained
    )
    if workload.ep_overlap_schedule == "dualpipe":
        bubble = np.where(k.pp > 1, _dualpipe_bubble_fraction(k.ppf, k.gaf), 0.0)
    else:
        bubble = np.where(k.pp > 1, _bubble_fraction(k.ppf, k.gaf, k.vf), 0.0)
    return _StepParts(run, lora_trained, comm, links, ring, dense, experts, bubble)


def _step_from_parts(
    np: Any,
    model: ModelSpec,
    workload: WorkloadSpec,
    k: _Columns,
    st: _Stages,
    a: Assumptions,
    p: _StepParts,
    offload: Mapping[str, Any] | None = None,
    host_link_bytes_per_s: float | None = None,
) -> dict[str, Any]:
    """The rest of :func:`training_estimate` (all but ``"memory"``): the overlap, the bubble and the host's wait on
    ``p``, at the overlap shares, the bubble's scale and the host's scale of ``a``; and the copies of activation
    offloading, from the memory ledger ``offload`` (its ``offloaded_layers`` and ``offload_layer_bytes``) over the
    host link (``host_link_bytes_per_s``), where rows offload."""
    run, lora_trained, comm, links, ring, dense, experts, bubble = p
    ep_share = _ep_overlap_share(np, k, a.overlap["ep"], workload.ep_overlap_schedule)
    ep_slowdown = _ep_overlap_slowdown_s(np, comm["EP"], ep_share, run["compute_s"])
    compute = run["compute_s"] + ep_slowdown

    total_comm = sum(comm[d] for d in COMM_DIMENSIONS)

    # ---- overlap: what each dimension cannot hide (coursekit.overlap)
    o = a.overlap
    exposed_cp = _exposed_cp_s(ring, o["cp"])
    shared_nic = (~links["DP"]) & (~links["CP"]) & (k.cp > 1)
    hidden_by_dim = {
        "CP": comm["CP"] - exposed_cp,
        "TP": o["tp"] * comm["TP"],
        "EP": ep_share * comm["EP"],
        # Megatron-Core overlaps pipeline send/recv only in the interleaved schedule (--overlap-p2p-communication
        # raises "Non-interleaved pipeline parallelism does not support overlapping p2p communication")
        "PP": np.where(k.v > 1, o["pp"], 0.0) * comm["PP"],
    }
    # The passes: the compute, what TP, CP, EP and PP stall it for, and what their links cannot finish under it; DP's
    # buckets move under them. TP's link carries no TP traffic during the attention core CP's ring hides under on
    # the other link (see _passes_s).
    stalls = {dim: comm[dim] - hidden_by_dim[dim] for dim in ("CP", "TP", "EP", "PP")}
    ring_core = ring.steps * (ring.forward_rings + 2.0) * ring.attention_f_s
    tp_idle = np.where(links["TP"] != links["CP"], ring_core, 0.0)
    passes = _passes_s(np, hidden_by_dim, stalls, links, compute, tp_idle)
    exposed_dp = _exposed_dp_s(np, k, compute, ring, shared_nic, dense, experts, o["dp"], passes)
    hidden_by_dim["DP"] = comm["DP"] + comm["EDP"] - exposed_dp
    stalls["DP"] = exposed_dp
    exposed = _exposed_s(np, hidden_by_dim, stalls, links, compute, tp_idle, passes)
    # ---- activation offloading: the copies run on the host link, beside the other traffic, while the next layer
    # runs: its compute and the communication it waits for (a layer slowed by its links hides more of a copy, so a
    # faster GPU never lengthens the step); what shows of them is exposed communication, which the GPU spends before
    # any wait for the host below (the copies go on meanwhile)
    copy_s, copy_exposed_s = np.zeros_like(compute), np.zeros_like(compute)
    if offload is not None and host_link_bytes_per_s is not None:
        layer_compute_s = (compute + exposed) / (k.gaf * np.maximum(st.layers_max, 1.0))
        copy_s, copy_exposed_s = _offload_copy_s(
            np,
            offload["offloaded_layers"],
            offload["offload_layer_bytes"],
            host_link_bytes_per_s,
            layer_compute_s,
            k.gaf,
        )
    total_comm = total_comm + copy_s
    exposed = exposed + copy_exposed_s
    # where all of it is exposed, the difference of two equal sums can come out a few 1e-18 below 0 in floating point
    hidden = np.maximum(total_comm - exposed, 0.0)

    # ---- the host: an MoE layer takes at least the host's time to launch it (one wait per layer)
    host_wait = np.zeros_like(compute)
    if model.is_moe:
        layer_passes = st.layers_max * k.gaf  # the busiest stage's layers x micro-batches
        host_s = MOE_LAYER_HOST_S if workload.moe_layer_host_s is None else workload.moe_layer_host_s
        moe_share = model.moe_layers / model.layers
        host_wait = _moe_host_wait_s(
            np, (compute + exposed) / layer_passes, a.host_scale * host_s, moe_share * layer_passes
        )
    # the bubble's idle slots are counted on the compute alone, as without a host limit: a faster link or more overlap,
    # which shortens a layer on the GPU and lengthens its wait for the host by as much, then never slows the step
    bubble_s = a.bubble_scale * bubble / (1 - bubble) * compute
    return {
        "comm": comm,
        "comm_intra": links,
        "communication_s": total_comm,
        "hidden_s": hidden,
        "exposed_s": exposed,
        "compute_s": compute,
        "bubble": bubble,
        "bubble_s": bubble_s,
        "host_wait_s": host_wait,
        "step_s": compute + exposed + bubble_s + host_wait,
        "offload_copy_s": copy_s,
        "offload_exposed_s": copy_exposed_s,
        "efficiency": run["efficiency"],
        "intensity": run["intensity"],
        "expert_efficiency": run["expert_efficiency"],
        "expert_intensity": run["expert_intensity"],
        "expert_rows": run["expert_rows"],
        "permutation_s": run["permutation_s"],
        "ep_overlap_slowdown_s": ep_slowdown,
        "exposed_cp_s": exposed_cp,
        "exposed_dp_s": exposed_dp,
        "executed_flops_per_token": run["executed_flops_per_token"],
        "model_flops_per_token": run["model_flops_per_token"],
        "stage_layers": (st.layers["first"], st.layers["mid"], st.layers["last"]),
        "lora_trained": lora_trained,
    }


learner_functions(globals())
