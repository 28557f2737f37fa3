"""What communication cannot hide: the overlap model of the planner's estimate.

Engines overlap communication with compute, but never all of it. The estimate counts as *exposed* what
has no compute to hide under:

* **gradient buckets** (Megatron-Core ``--overlap-grad-reduce``; PyTorch DDP): gradients are reduced
  bucket by bucket while backward goes on; the last bucket is ready only when backward ends, so its
  collective is always exposed. Megatron-Core's default bucket is ``max(40e6, 1e6 · dp·cp)`` parameters
  (``megatron/core/distributed``, :data:`BUCKET_SOURCE`);
* **parameter gathers** (``--overlap-param-gather``; ZeRO-3/FSDP forward and backward prefetch): the
  next bucket's / layer's all-gather runs under the current one's compute, but the first gather comes
  before any compute, and ZeRO-3's last reduce-scatter after the last backward;
* **interleaved pipelines** (``v > 1`` model chunks per stage): Megatron-Core launches a chunk's gradient
  reduction when that chunk's last backward ends and the next chunk's parameter gather when the chunk before
  starts its first forward (``schedules.py``, ``grad_sync_func`` / ``param_sync_func``, aligned over the
  pipeline group). In the cooldown the last ``min(pp, m)`` micro-batches run backward chunk by chunk, so the
  first ``v - 1`` chunks' reductions hide under ``(v-1)/v`` of those micro-batches' backward and only the last
  chunk's stays exposed (mirrored for the gathers in the warm-up):
  :func:`interleaved_sync_window_microbatches`;
* **context parallelism's ring**: each of the cp - 1 ring steps sends one K/V block while the attention
  of the block received before is computed (Ring Attention, arXiv:2310.01889, §3); a step hides at most
  that block's attention time, ``exposed = max(0, send - attention)`` per step; after the last backward step
  the accumulated dK, dV block travels back to its owner with no compute left to hide under (Transformer
  Engine's ``flash_attn_p2p_communicate`` passes "KV and dKV" around the ring), one exposed send per layer
  and micro-batch;
* **tensor parallelism's collectives** (only when the engine's communication-GEMM overlap is on:
  Transformer Engine's userbuffers, Megatron-Core ``--tp-comm-overlap``, NeMo ``ub_tp_comm_overlap``): with
  sequence parallelism each layer runs two all-gathers and two reduce-scatters forward and as many backward.
  The all-gathers before a GEMM are replaced by a ring exchange of input chunks (the local chunk is
  multiplied first, each later chunk arrives under the previous chunk's GEMM); the backward pairs overlap in
  bulk with the independent dgrad / wgrad GEMM; the forward reduce-scatters after the attention projection
  and the MLP's second GEMM are split into ``n`` chunks (``num_splits``, or ``tp`` ring steps) and the last
  chunk's reduce-scatter has no GEMM left to hide under: :func:`tp_comm_overlap_share` (:data:`TP_OVERLAP_SOURCE`);
* **shared links**: two dimensions whose groups cross the same inter-node NIC (e.g. DP and CP) share
  its time: what one sends in a window is not available to hide the other.

Each dimension's overlap share (``WorkloadSpec.overlap_*``) scales the compute window it may hide under,
so a learner can still switch overlap off (0) for one dimension.

Causal load balance: Megatron-Core splits the sequence into 2·cp chunks and gives rank r chunks r and
2cp-1-r (the "zig-zag" split); every ring step then computes exactly two chunk-pairs of attention, so
the causal work is balanced in FLOPs (:func:`cp_causal_imbalance` = 1). What remains — the diagonal
step's masked kernel being slower than a full block — is not modelled.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from typing import Any

from ._validate import check_choice, check_int, check_number, finite_result, learner_functions

__all__ = [
    "BUCKET_SOURCE",
    "CP_SPLITS",
    "DDP_BUCKET_BYTES",
    "MEGATRON_BUCKET_MIN_PARAMS",
    "MEGATRON_BUCKET_PARAMS_PER_RANK",
    "TP_OVERLAP_SOURCE",
    "TP_OVERLAP_SPLITS",
    "bucket_params",
    "cp_block_attention_flops",
    "cp_causal_imbalance",
    "exposed_after_window_s",
    "interleaved_sync_window_microbatches",
    "ring_step_exposed_s",
    "tp_comm_overlap_share",
]

#: Megatron-Core's default gradient bucket when ``overlap_grad_reduce`` is on: ``max(40e6, 1e6 · dp·cp)``
#: parameters (``megatron/core/distributed/distributed_data_parallel.py``; larger data-parallel groups get
#: larger buckets so NCCL's ring chunks stay bandwidth-bound).
MEGATRON_BUCKET_MIN_PARAMS: float = 40e6
MEGATRON_BUCKET_PARAMS_PER_RANK: float = 1e6
#: PyTorch DDP's default ``bucket_cap_mb`` = 25 MiB (Li et al., PyTorch Distributed, arXiv:2006.15704, §3.2.3).
DDP_BUCKET_BYTES: float = 25 * (1 << 20)
BUCKET_SOURCE: str = (
    "Megatron-Core DistributedDataParallel: bucket_size = max(40000000, 1000000 * dp_cp_size) parameters when "
    "overlap_grad_reduce is on; PyTorch DDP bucket_cap_mb = 25 (arXiv:2006.15704, §3.2.3); "
    "FSDP BackwardPrefetch / forward_prefetch (Zhao et al., arXiv:2304.11277, §3.3)"
)

#: Chunks of each forward reduce-scatter under Transformer Engine's userbuffers overlap on H100: ``num_splits: 4``
#: (pipelined) in NeMo's and Megatron-Bridge's bf16 configs for proj_fprop and fc2_fprop; their FP8 configs use
#: a ring exchange in ``tp`` steps instead, 4 at TP 4 (:data:`TP_OVERLAP_SOURCE`).
TP_OVERLAP_SPLITS: int = 4
TP_OVERLAP_SOURCE: str = (
    "Transformer Engine userbuffers comm-GEMM overlap as NVIDIA's H100 recipes configure it: NeMo-Framework-Launcher "
    "24.07 (8325688d8345a5513660f0f8390f0482a721c009) launcher_scripts/conf/training/tp_overlap/"
    "ub_cfg_h100_h8192_tp4_mbs1_seqlen4096.yaml (qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad: ring_exchange; "
    "qkv/fc1 dgrad and wgrad: bulk; proj_fprop: pipeline, num_sm 24, num_splits 4; fc2_fprop: pipeline, num_sm 16, "
    "num_splits 4); Megatron-Bridge (df0289c180dd20ff26933455c7a0a11084f6a36f) src/megatron/bridge/training/"
    "comm_overlap.py userbuffers_*_h100_* configs; docs/training/communication-overlap.md (bulk and pipelined "
    "overlap, all-gather replaced by P2P ring exchanges)"
)

#: How a causal sequence is split over the CP ranks: Megatron-Core's 2·cp-chunk "zig-zag", or contiguous.
CP_SPLITS: tuple[str, ...] = ("zigzag", "contiguous")


def _bucket_params(dp_cp: Any) -> Any:
    import numpy as np

    return np.maximum(MEGATRON_BUCKET_MIN_PARAMS, MEGATRON_BUCKET_PARAMS_PER_RANK * dp_cp)


def bucket_params(dp_cp: int) -> float:
    """Megatron-Core's default gradient bucket, parameters: ``max(40e6, 1e6 · dp_cp)``.

    >>> bucket_params(8), bucket_params(128)
    (40000000.0, 128000000.0)

    Taught in: lesson 9 (decision workbench).
    """
    return float(_bucket_params(check_int("dp_cp", dp_cp, ge=1)))


def _exposed_after_window_s(total_s: Any, tail_s: Any, window_s: Any, overlap: Any) -> Any:
    import numpy as np

    tail = np.minimum(tail_s, total_s)
    return total_s - overlap * np.minimum(total_s - tail, np.maximum(window_s, 0.0))


@finite_result
def exposed_after_window_s(total_s: float, tail_s: float, window_s: float, overlap: float = 1.0) -> float:
    """Exposed seconds of ``total_s`` of bucketed communication that may hide under ``window_s`` of compute.

    The last bucket (``tail_s``, its collective's time) starts only when the window's compute ends, so it
    never hides; the rest hides up to ``overlap · window_s``:
    ``total - overlap · min(total - tail, window)``.

    >>> exposed_after_window_s(8.0, 0.5, 6.0)    # 7.5 s could hide, 6 s of compute: 2 s exposed
    2.0
    >>> exposed_after_window_s(3.0, 0.5, 6.0)    # everything but the last bucket hides
    0.5

    Taught in: lesson 9 (decision workbench).
    """
    return float(
        _exposed_after_window_s(
            check_number("total_s", total_s, ge=0),
            check_number("tail_s", tail_s, ge=0),
            check_number("window_s", window_s, ge=0),
            check_number("overlap", overlap, ge=0, le=1),
        )
    )


def _interleaved_sync_window_microbatches(pp: Any, micro_batches: Any, virtual_stages: Any) -> Any:
    import numpy as np

    v = np.asarray(virtual_stages, dtype=np.float64)
    return np.where(v > 1, np.minimum(pp, micro_batches) * (v - 1) / np.maximum(v, 1.0), 1.0)


def interleaved_sync_window_microbatches(pp: int, micro_batches: int, virtual_stages: int) -> float:
    """Micro-batches of backward (or forward) that a step's once-per-step gradient reduction (parameter gather)
    can hide under: 1 without interleaving (the last micro-batch's backward, bucket by bucket), else
    ``min(pp, m) · (v - 1)/v``.

    With ``v`` chunks per stage Megatron-Core's interleaved schedule runs the last ``min(pp, m)`` micro-batches'
    backward chunk by chunk (``pp`` micro-batches per chunk) and launches each chunk's reduction when its last
    backward ends (``megatron/core/pipeline_parallel/schedules.py``: ``grad_sync_func`` at
    ``is_last_microbatch_for_model_chunk``; the gathers at ``is_first_microbatch_for_model_chunk``): the first
    ``v - 1`` chunks' reductions have ``(v - 1)`` chunk-steps of ``pp`` micro-batches each, ``1/v`` of a
    micro-batch per chunk-step, left to hide under; the last chunk's is the exposed tail (Megatron-Bridge,
    docs/training/communication-overlap.md: "the granularity of DP communication becomes the Transformer layers
    per virtual pipeline stage").

    >>> interleaved_sync_window_microbatches(4, 32, 1), interleaved_sync_window_microbatches(4, 32, 5)
    (1.0, 3.2)

    Taught in: lesson 9 (decision workbench).
    """
    return float(
        _interleaved_sync_window_microbatches(
            check_int("pp", pp, ge=1),
            check_int("micro_batches", micro_batches, ge=1),
            check_int("virtual_stages", virtual_stages, ge=1),
        )
    )


def _ring_step_exposed_s(send_s: Any, compute_s: Any, overlap: Any) -> Any:
    import numpy as np

    return np.maximum(send_s - overlap * compute_s, 0.0)


@finite_result
def ring_step_exposed_s(send_s: float, compute_s: float, overlap: float = 1.0) -> float:
    """Exposed seconds of one ring step: ``max(0, send - overlap · compute)``.

    The block in flight hides under the attention of the block received before; what is left waits.

    >>> ring_step_exposed_s(3e-3, 2e-3), ring_step_exposed_s(1e-3, 2e-3)
    (0.001, 0.0)

    Taught in: lesson 9 (decision workbench).
    """
    return float(
        _ring_step_exposed_s(
            check_number("send_s", send_s, ge=0),
            check_number("compute_s", compute_s, ge=0),
            check_number("overlap", overlap, ge=0, le=1),
        )
    )


def _cp_block_attention_flops(seq_len: Any, cp: Any, micro_batch: Any, attention_width: Any, tp: Any) -> Any:
    return 2 * micro_batch * (seq_len / cp) ** 2 * attention_width / tp


@finite_result
def cp_block_attention_flops(seq_len: int, cp: int, micro_batch: int, attention_width: int, tp: int = 1) -> float:
    """Forward attention FLOPs of one ring step on one rank, causal, zig-zag split: ``2·b·(s/cp)²·w/tp``.

    With 2·cp chunks of c = s/(2cp) tokens, a rank's step is two chunk-pairs of query-key work (its two
    query chunks against one key chunk, or one query chunk against two): 2c² pairs at 4·w FLOPs each
    (QKᵀ and AV, ``w`` = heads × head_dim), split over ``tp`` ranks by heads. Backward is twice this.

    >>> cp_block_attention_flops(8192, 2, 1, 8192, 4) / 1e9     # Llama 3 70B shape, cp 2, tp 4
    68.719476736

    Taught in: lesson 9 (decision workbench).
    """
    seq_len = check_int("seq_len", seq_len, ge=1)
    cp = check_int("cp", cp, ge=1)
    return float(
        _cp_block_attention_flops(
            seq_len,
            cp,
            check_int("micro_batch", micro_batch, ge=1),
            check_int("attention_width", attention_width, ge=1),
            check_int("tp", tp, ge=1),
        )
    )


def tp_comm_overlap_share(splits: int = TP_OVERLAP_SPLITS, phases: int = 2) -> float:
    """Share of tensor parallelism's sequence-parallel traffic that Transformer Engine's comm-GEMM overlap hides.

    Per layer and micro-batch each phase (forward, backward, and a recomputed forward: ``phases``) runs two
    all-gathers and two reduce-scatters of one size. Everything hides except, in every forward (``phases - 1``
    of them), the last of ``splits`` chunks of the two reduce-scatters after the row-parallel GEMMs:
    ``1 - 2·(phases - 1)/(splits · 4·phases)``. At the recipes' 4 splits and 2 phases 1 - 1/16.

    Not modelled: the SMs the communication kernels take from the GEMMs they overlap (``num_sm``: 1-24 of
    the H100's 132 in :data:`TP_OVERLAP_SOURCE`). Were each GEMM short of its overlap's SMs for its whole run, a
    Llama 2 70B layer's GEMMs (FLOP-weighted) would take 3.4 % longer with the 4K config and 1.8 % with the
    FP8 8K one; less in fact, as a bulk transfer ends before its GEMM.

    >>> tp_comm_overlap_share(), tp_comm_overlap_share(4, 3)
    (0.9375, 0.9166666666666666)

    Taught in: lesson 9 (decision workbench).
    """
    splits = check_int("splits", splits, ge=1)
    phases = check_int("phases", phases, ge=2, le=3)
    return 1.0 - 2.0 * (phases - 1) / (splits * 4.0 * phases)


def cp_causal_imbalance(cp: int, split: str = "zigzag") -> float:
    """Slowest CP rank's causal attention work over the mean, for a sequence ``split`` over ``cp`` ranks.

    ``"zigzag"`` (Megatron-Core: rank r holds chunks r and 2cp-1-r of 2cp): every rank does the same work,
    1. ``"contiguous"``: rank r holds block r and attends to r full blocks and half of its own, r + 1/2
    blocks; the last rank does cp - 1/2 against a mean of cp/2, so (2cp - 1)/cp.

    >>> cp_causal_imbalance(4), cp_causal_imbalance(4, "contiguous")
    (1.0, 1.75)

    Taught in: lesson 9 (decision workbench).
    """
    cp = check_int("cp", cp, ge=1)
    if check_choice("split", split, CP_SPLITS) == "zigzag":
        return 1.0
    return (2 * cp - 1) / cp


learner_functions(globals())
