"""The inputs of every formula: model, cluster and workload specs, precision recipes, and the course's constants.

This module sits below the formulas (capacity, communication, roofline, serving, the planner): it imports
only the validators, the message catalog and the units, so every formula module can take a
:class:`ModelSpec`, :class:`ClusterSpec` or :class:`WorkloadSpec` without an import cycle.
:mod:`coursekit.planner.specs`, :mod:`coursekit.capacity` and :mod:`coursekit.serving` re-export these names.

Taught in: lesson 9 (decision workbench); the precision recipes in lesson 1, serving workloads in lesson 10.
"""

from __future__ import annotations

import copy
import functools
import math
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

from ._validate import (
    MAX_INT,
    called_from_outside,
    check_bool,
    check_choice,
    check_column_shapes,
    check_divides,
    check_instance,
    check_int,
    check_int_column,
    check_number,
    check_number_column,
    is_numpy_array,
    learner_arguments,
    learner_functions,
)
from .hardware import (
    DATASHEET_MEMORY_GB,
    NCCL_RING_NET_LATENCY_S,
    NCCL_RING_NVLINK_LATENCY_S,
    NET_800G_PER_GPU_BYTES_PER_S,
    NVLINK3_UNIDIRECTIONAL_BYTES_PER_S,
    NVLINK5_B200_BYTES_PER_S,
    NVLINK_H800_BYTES_PER_S,
)
from .i18n import Count, Text, register, shown_repr, tr
from .model_config import model_fields_from_config, spec_error

__all__ = [
    "ACTIVATION_BYTES",
    "ATTENTION_KERNELS",
    "ATTENTION_KERNEL_COMPUTE_CAPABILITY",
    "DEEPSEEK_V3_ACTIVATIONS_SOURCE",
    "DEEPSEEK_V3_ATTENTION_OUTPUT_BYTES",
    "DEFAULT_RECIPE",
    "EDGE_LAYERS_SOURCE",
    "EP_OVERLAP_SCHEDULES",
    "FP8_ACTIVATION_CACHES",
    "FP8_ANY_LAYOUT_COMPUTE_CAPABILITY",
    "FP8_LAYOUT_SOURCE",
    "FP8_ONLY_FIELDS",
    "FP8_RECIPES",
    "FP8_TENSOR_CORE_COMPUTE_CAPABILITY",
    "FP8_WEIGHT_CACHE_BYTES",
    "FP8_WEIGHT_CACHE_SOURCE",
    "LOGITS_BYTES",
    "MAX_LORA_RANK",
    "MIN_WEIGHT_BYTES",
    "MOE_ONLY_FIELDS",
    "MTP_EDGE_SOURCE",
    "MXFP8_BLOCK_ELEMENTS",
    "MXFP8_COMPUTE_CAPABILITY",
    "MXFP8_COPY_BYTES",
    "MXFP8_SCALE_BYTES",
    "MXFP8_SOURCE",
    "OFFLOAD_SOURCE",
    "PLAN_RECOMPUTE_MODES",
    "PRECISION_RECIPES",
    "RECOMPUTE_MODES",
    "RECOMPUTE_MODULES",
    "SERVING_WORKLOAD_FIELDS",
    "ClusterSpec",
    "IgnoredSettingWarning",
    "ModelSpec",
    "PrecisionRecipe",
    "ServingWorkload",
    "WorkloadSpec",
    "check_attention_kernel",
    "check_fp8_recipe",
    "check_weight_bytes",
    "divisors",
    "expert_tp_default",
    "fp8_weight_cache_bytes",
    "group_link",
    "nvlink_segment_nodes",
    "ring_nics",
]


#: Workload modes (Q3, lesson 3: training or serving).
WORKLOAD_MODES: tuple[str, ...] = ("training", "serving")
#: Precisions of the training matmuls: bf16, or fp8 (the linear layers' GEMMs in FP8, as Transformer Engine's
#: ``fp8_autocast`` and DeepSeek-V3 §3.3 do; attention's core stays in bf16).
PRECISIONS: tuple[str, ...] = ("bf16", "fp8")
#: How an expert-parallel all-to-all overlaps compute when ``overlap_ep`` > 0: ``"megatron"``, Megatron-Core's
#: ``--overlap-moe-expert-parallel-comm`` (one micro-batch's forward merged with another's backward), which its
#: ``TransformerConfig`` allows only with interleaving when pp > 1 and never with full recomputation
#: (megatron/core/transformer/transformer_config.py); ``"dualpipe"``, DeepSeek-V3's bidirectional pipeline schedule
#: (arXiv:2412.19437, §3.2.1), which has neither rule and also changes the pipeline (Table 2): each GPU holds stage i
#: and stage p - 1 - i (their work averaged, both stages' weights and states, p + 1 micro-batches of activations) and
#: the bubble is (p/2 - 1)(F&B + B - 3W) (:data:`coursekit.pipeline.DUALPIPE_BUBBLE_PER_STAGE_PAIR`).
EP_OVERLAP_SCHEDULES: tuple[str, ...] = ("megatron", "dualpipe")
#: How FP8 tensors get their scale (``WorkloadSpec(fp8_recipe=...)``), as Transformer Engine names the recipes:
#: ``"delayed"`` (``DelayedScaling``: the scale comes from earlier steps' amax history, the amax of this cast is
#: fused into it; Megatron-Core's ``--fp8-recipe`` default) or ``"current"`` (``Float8CurrentScaling``: a pass over
#: the tensor for its amax before the cast), both one scale per tensor; or ``"mxfp8"`` (``MXFP8BlockScaling``: one
#: E8M0 scale per 32 consecutive elements, Blackwell only, NVIDIA's Megatron-Bridge tables on DGX B200/GB200 and
#: later). They differ in the passes over memory (:func:`coursekit.planner.estimate.fp8_quantisation_bytes_per_token`).
FP8_RECIPES: tuple[str, ...] = ("delayed", "current", "mxfp8")
#: MXFP8's block: one scale per this many consecutive elements, along a row for the row-wise copy and along a column
#: for the column-wise one (:data:`MXFP8_SOURCE`).
MXFP8_BLOCK_ELEMENTS: int = 32
#: Bytes of one MXFP8 scale (E8M0: 8 exponent bits).
MXFP8_SCALE_BYTES: int = 1
#: Bytes per element of one MXFP8 copy (row-wise or column-wise): the E4M3 byte and its share of the block's scale.
MXFP8_COPY_BYTES: float = 1 + MXFP8_SCALE_BYTES / MXFP8_BLOCK_ELEMENTS
#: Where the MXFP8 facts come from: block and scale format, the two copies quantised separately from bf16, the
#: devices that run it (compute capability 10.x), and the default norm path (the norm in bf16, then a quantize pass;
#: cuDNN's fused norm only under ``NVTE_NORM_FWD_USE_CUDNN``).
MXFP8_SOURCE: str = (
    "NVIDIA TransformerEngine @ d0067d0da6cb01811b8072a7d304f0e00344ce2b: docs/features/low_precision_training/mxfp8/"
    "mxfp8.rst (block size 32, E8M0 scales; rowwise and columnwise copies quantised independently from full "
    "precision, no transposes on Blackwell; quantized all-gather supported; SM 10.0, SM 10.3), "
    "transformer_engine/pytorch/quantization.py (_compute_mxfp8_support: compute capability >= 10.0 and < 12.0), "
    "pytorch/csrc/extensions/normalization.cpp (MXFP8: Impl::UNFUSED unless NVTE_NORM_FWD_USE_CUDNN)"
)
#: Where the FP8 GEMM layout rule comes from: per-tensor FP8 GEMMs on Hopper take only the TN layout, so the
#: backward's GEMMs need a transposed FP8 copy of the input and the output gradient; on devices whose FP8 GEMMs take
#: any layout the engine keeps one FP8 copy and makes no transpose.
FP8_LAYOUT_SOURCE: str = (
    "NVIDIA TransformerEngine @ d0067d0da6cb01811b8072a7d304f0e00344ce2b: transformer_engine/common/"
    "transformer_engine.cpp (nvte_is_non_tn_fp8_gemm_supported: compute capability 10.x, or 13.0 and later), "
    "pytorch/csrc/quantizer.cpp (with_transpose = columnwise_usage && !is_non_tn_fp8_gemm_supported)"
)
#: Compute capabilities at which the engine's FP8 GEMMs take any layout: [10.0, 12.0) and from 13.0
#: (:data:`FP8_LAYOUT_SOURCE`), and at which it runs MXFP8: [10.0, 12.0) (:data:`MXFP8_SOURCE`).
FP8_ANY_LAYOUT_COMPUTE_CAPABILITY: tuple[tuple[float, float], ...] = ((10.0, 12.0), (13.0, math.inf))
MXFP8_COMPUTE_CAPABILITY: tuple[float, float] = (10.0, 12.0)
#: The lowest compute capability with FP8 tensor cores: Ada (8.9), then Hopper (9.0) and Blackwell (10.x); Ampere
#: (A100 8.0, A10/RTX 30 8.6) has none (CUDA C++ Programming Guide, "Compute Capabilities": FP8 tensor core support
#: from 8.9). A device stated below it is given no FP8 peak (:class:`ClusterSpec`).
FP8_TENSOR_CORE_COMPUTE_CAPABILITY: float = 8.9

#: What an FP8 run saves for backward beyond Transformer Engine's rule (each FP8 linear layer keeps its FP8 input;
#: flash attention its bf16 output): ``"transformer-engine"``, that rule; ``"deepseek-v3"``, DeepSeek-V3's FP8
#: framework (:data:`DEEPSEEK_V3_ACTIVATIONS_SOURCE`), which keeps the routed experts' SwiGLU input in FP8 instead of
#: bf16 (and, with the ``moe_act`` module recomputation, recomputes the SwiGLU output rather than keeping its FP8 copy
#: for the down projection) and keeps the attention output once, in E5M6
#: (:data:`DEEPSEEK_V3_ATTENTION_OUTPUT_BYTES`), for both the output projection's and the attention core's backward,
#: in place of an FP8 copy and flash attention's bf16 one.
FP8_ACTIVATION_CACHES: tuple[str, ...] = ("transformer-engine", "deepseek-v3")
#: The attention kernels whose measured speed the estimate can charge (``WorkloadSpec(attention_kernel=...)``), each
#: from the same H100 figures (:data:`coursekit.planner.calibration.FLASH_ATTENTION_SOURCE`): ``"flash-attention-3"``
#: (the default) and ``"cudnn"``, kernels written for Hopper (asynchronous wgmma and TMA: FlashAttention-3, cuDNN's
#: fused attention, which Transformer Engine calls on H100), and ``"flash-attention-2"``, the kernel written for
#: Ampere that 2023-2024 engines ran on H100 too (``flash-attn`` 2.x: llm-foundry, PyTorch's SDPA before FA3).
ATTENTION_KERNELS: tuple[str, ...] = ("flash-attention-3", "cudnn", "flash-attention-2")
#: Compute capabilities the non-default kernels' figures were measured on: Hopper, [9.0, 10.0).
ATTENTION_KERNEL_COMPUTE_CAPABILITY: tuple[float, float] = (9.0, 10.0)
#: Bytes of one E5M6 element: 1 sign, 5 exponent and 6 mantissa bits, 12 bits (DeepSeek-V3 §3.3.4).
DEEPSEEK_V3_ATTENTION_OUTPUT_BYTES: float = 12 / 8
DEEPSEEK_V3_ACTIVATIONS_SOURCE: str = (
    "DeepSeek-AI, “DeepSeek-V3 Technical Report”, arXiv:2412.19437, §3.3.4 “Low-Precision Storage and "
    "Communication”: (1) the inputs of the Linear after the attention operator are cached in a customized E5M6 format "
    "and used in the attention operator's backward too; (2) the inputs of the SwiGLU operator in MoE are cached in "
    "FP8 and its output is recomputed in the backward pass"
)

#: Bytes per linear-layer weight that Transformer Engine keeps cached in FP8 between the micro-batches of a step when
#: the engine keeps bf16 weights (``WorkloadSpec(fp8_weight_cache=True)``): the weight cast to FP8 for the forward GEMM
#: and its FP8 transpose for the backward's data-gradient GEMM, 1 byte each on Hopper (:data:`FP8_WEIGHT_CACHE_SOURCE`).
FP8_WEIGHT_CACHE_BYTES: float = 2.0
FP8_WEIGHT_CACHE_SOURCE: str = (
    "TransformerEngine transformer_engine/pytorch/module/linear.py @ d0067d0d (Linear.forward: with "
    "is_first_microbatch given, the quantized weight is kept in self._fp8_workspaces['weight'] and updated only on "
    "the first micro-batch; the weight quantizer is set to rowwise and, for backward, columnwise usage; skipped for "
    "FSDP2 modules) and grouped_linear.py likewise; Megatron-LM megatron/core/extensions/transformer_engine.py @ "
    "d98e8a64 (TELinear, TEGroupedLinear pass is_first_microbatch unless disable_parameter_transpose_cache, "
    "default False). With --fp8-param-gather the weights themselves are FP8 (NeMo 2 "
    "nemo/collections/llm/recipes/precision/mixed_precision.py @ 8cfedd72 and Megatron-Bridge "
    "src/megatron/bridge/training/mixed_precision.py @ 067f987d set fp8_param_gather = True in their FP8 recipes)"
)
#: MLP kinds: SwiGLU has three h×f matrices (gate, up, down), GELU two (up, down).
MLP_KINDS: tuple[str, ...] = ("swiglu", "gelu")
#: Normalisation layers: LayerNorm has a scale and a bias (2h), RMSNorm a scale (h).
NORM_KINDS: tuple[str, ...] = ("layernorm", "rmsnorm")
#: Position embeddings: learned (a seq_len × h table, GPT-2/3) or rotary (no parameters).
POSITION_KINDS: tuple[str, ...] = ("learned", "rope")

#: Bytes per activation element sent by TP / CP / EP / PP collectives and kept in the KV cache (bf16).
ACTIVATION_BYTES: int = 2
#: Bytes per logit kept for the cross-entropy loss: Korthikanti et al. (arXiv:2205.05198, §4.3) count
#: the output layer's fp32 logits as 4·s·b·v/t bytes on the last pipeline stage.
LOGITS_BYTES: int = 4

#: A flat achievable fraction of peak FLOP/s, for learners who want to override the compute-efficiency model
#: (``WorkloadSpec(achievable_flops_fraction=0.5)``). By default (``None``) efficiency comes from each GPU's
#: matmul shapes on the roofline (:mod:`coursekit.planner.estimate`).
DEFAULT_ACHIEVABLE_FLOPS_FRACTION: float = 0.5
#: The uniform overlap override's old default; by default each dimension has its own overlap (:data:`OVERLAP_DEFAULTS`).
DEFAULT_OVERLAP_FRACTION: float = 0.0

#: Share of TP traffic hidden when the engine's comm-GEMM overlap is on (Transformer Engine userbuffers,
#: NeMo ``ub_tp_comm_overlap: true``, Megatron-Bridge ``tp_comm_overlap=True``): everything but the last of 4
#: chunks of each layer's two forward reduce-scatters, 1 - 2/(4·8) = 15/16. The formula and its source are
#: :func:`coursekit.overlap.tp_comm_overlap_share` (a higher layer; a test holds the two equal).
TP_COMM_OVERLAP_ON: float = 15 / 16
#: Share of the expert-parallel all-to-all hidden when Megatron-Core's EP all-to-all overlap is on
#: (``--overlap-moe-expert-parallel-comm``, Megatron-Bridge ``moe_a2a_overlap``: one micro-batch's forward merged with
#: another's backward, so each dispatch or combine runs beside the other pass's attention or experts). Measured, not
#: assumed: the Megatron-MoE-ModelZoo's Qwen3 235B rows (256 H100s, TP 2, EP 32, PP 8, VP 4, one build) ran
#: 245 TFLOP/s per GPU without the overlap and 276 with it, 1.127x; taken as complete (1.0) the estimate made the gain
#: 1.31x. 0.48 is the share (to 0.01) at which the estimate's gain equals the measured one (fitted ONCE on
#: :data:`coursekit.published_runs.EP_OVERLAP_FIT_RUNS`; tests/test_planner_ep_overlap.py re-derives it); the other
#: runs with the overlap on check it. What holds the rest back the table does not say: the all-to-all's SMs (counted
#: apart), the warm-up and cool-down passes that run alone (counted apart), and kernels of the two passes contending
#: for memory bandwidth are candidates. DeepSeek-V3's DualPipe, built around the overlap, is registered at 1.0.
EP_A2A_OVERLAP_ON: float = 0.48
#: Share of each dimension's communication the engines hide under compute, by default, with the reason.
#: The learner can change each (``WorkloadSpec(overlap_tp=..., ...)``); hiding is capped by the compute it
#: can hide under (see :data:`coursekit.planner.result.ESTIMATE_NOTES`).
OVERLAP_DEFAULTS: dict[str, float] = {"dp": 1.0, "pp": 1.0, "cp": 1.0, "tp": TP_COMM_OVERLAP_ON, "ep": 0.0}
OVERLAP_SOURCES: dict[str, str] = {
    "dp": "Megatron-Core --overlap-grad-reduce reduces gradient buckets (max(40M, 1M x dp*cp) parameters) during "
    "backward and --overlap-param-gather gathers the next bucket during forward; PyTorch DDP buckets of 25 MiB "
    "(Li et al., VLDB 2020, §3.2.3); FSDP backward/forward prefetch (Zhao et al., VLDB 2023, §3.3). The share "
    "scales the compute window; the last reduce bucket and the first gather stay exposed; with an interleaved "
    "pipeline each model chunk reduces after its last backward and gathers before its first forward "
    "(Megatron-LM megatron/core/pipeline_parallel/schedules.py grad_sync_func / param_sync_func), so the "
    "window is min(pp, m)(v-1)/v micro-batches and the last chunk stays exposed (coursekit.overlap)",
    "pp": "Megatron-Core --overlap-p2p-communication overlaps send/recv with compute, in the interleaved schedule "
    "only (the non-interleaved 1F1B refuses it): with v = 1 pipeline traffic is exposed",
    "cp": "ring attention passes the next K/V block while the current block is computed (Liu et al., Ring "
    "Attention, arXiv:2310.01889, §3; Megatron-Core context parallelism): each step hides under that step's "
    "attention only, and the dK, dV block's trip home after backward stays exposed",
    "tp": "TP's all-gathers / reduce-scatters sit between dependent matmuls, and the engine's comm-GEMM overlap "
    "(Transformer Engine userbuffers) splits each into chunks that run under the neighbouring GEMM: "
    "TP_COMM_OVERLAP_ON = 15/16 hidden (coursekit.overlap.tp_comm_overlap_share: only the last of 4 chunks of the "
    "two forward reduce-scatters stays exposed). On by default because NVIDIA's current performance recipes turn "
    "it on for their dense models with TP > 1 (NeMo 2.0 recipes' performance mode @ "
    "8cfedd7203462cb251a914e700e5605444277561: gpt3_175b, llama3_70b, llama31_405b, nemotron4_340b, nemotron3_22b "
    "and others set tp_comm_overlap=True; Megatron-Bridge's llama3 recipes; Megatron-Bridge "
    "scripts/performance/utils/overrides.py @ 067f987df03b8355b03192d88d70f1709fedf51a sets tp_comm_overlap = "
    "tensor_model_parallel_size > 1 with the MoE all-to-all overlap). Megatron-LM's own --tp-comm-overlap is off "
    "by default and some configs leave it off (NeMo-Framework-Launcher 24.07 gpt3/175b.yaml, DGX Cloud 24.11's "
    "Nemotron-4 340B and Grok-1, Megatron-Bridge's DeepSeek-V3: coursekit.published_runs.TP_OVERLAP_OFF): set "
    "overlap_tp=0 for them. It runs only with sequence parallelism "
    "(TP_OVERLAP_NEEDS_SP): without it the share in force is 0",
    "ep": "MoE dispatch and combine sit between the router and the experts: on the critical path by default. "
    "Megatron-Core's overlap of the all-to-all with another micro-batch's compute is an option "
    "(--overlap-moe-expert-parallel-comm): with it on, EP_A2A_OVERLAP_ON = 0.48 of the all-to-all hides, the share "
    "measured on the Megatron-MoE-ModelZoo's Qwen3 235B rows with and without it (245 and 276 TFLOP/s per GPU); "
    "DeepSeek-V3's DualPipe (§3.2.1) builds the overlap in and is taken as complete",
}

#: Megatron-LM refuses TP comm-GEMM overlap without sequence parallelism (``validate_args``: "Tensor parallel
#: communication/GEMM overlap can happen only when sequence parallelism is enabled"): the overlap kernels split
#: sequence parallelism's all-gathers and reduce-scatters; without it TP's all-reduces stay on the critical path.
TP_OVERLAP_NEEDS_SP: str = (
    "NVIDIA/Megatron-LM megatron/training/arguments.py validate_args: 'if args.tp_comm_overlap: assert "
    "args.sequence_parallel'"
)

#: Upper bounds on sizes, so every bounded call answers quickly: the largest GPU count, global batch and
#: sequence the planner accepts (larger ones are refused with a message, not searched).
MAX_WORLD_SIZE: int = 1 << 17
MAX_NODES: int = 1 << 17
#: Largest global batch (sequences) the specs, the gates and the planner accept: 2**24 is far above any published run
#: (thousands of sequences) and answers at once.
MAX_GLOBAL_BATCH: int = 1 << 24
MAX_SEQ_LEN: int = 1 << 24
#: Default runtime reserve per device (CUDA context, allocator fragmentation, buffers): 2 GiB, as in
#: lesson 1's first ledger (``build_resource_ledger(13.0, 4.0, 2.0, 24.0)``).
DEFAULT_RUNTIME_RESERVE_GIB: float = 2.0
#: Default largest micro-batch (sequences) the search tries.
DEFAULT_MAX_MICRO_BATCH: int = 8
#: Default largest number of model chunks per pipeline device (interleaved schedule) the search tries: 8, as deep as
#: today's published layouts commonly interleave (Llama 3 405B: v = 8 at PP 16, arXiv:2407.21783 §3.3.2; NeMo 24.07's
#: H100 table: VP 5 to 20; Megatron-Core's MoE guide: Mixtral 8x7B at VP 8). A deeper published v is searched by
#: stating it (``max_virtual_stages``).
DEFAULT_MAX_VIRTUAL_STAGES: int = 8
#: Serving: tokens each request generates when a :class:`WorkloadSpec` in serving mode does not say (lesson 9's
#: workbench widget and lesson 10's examples use 256).
DEFAULT_OUTPUT_TOKENS: int = 256
#: Serving: most concurrent requests a workload may hold (``coursekit.serving``'s bound).
MAX_CONCURRENCY: int = 10**7
#: Fewest requests per second a serving workload (and ``plan --mode serving --request-rate``) states: one every
#: 1000 s. Little's law turns a slower rate into far less than one request in flight, which needs no parallel layout.
MIN_REQUEST_RATE_PER_S: float = 1e-3
#: Seconds a request lasts in the ceiling's reasoning below: 256 output tokens (:data:`DEFAULT_OUTPUT_TOKENS`) at
#: 40 ms each is about 10 s.
RATE_CEILING_REQUEST_S: float = 10.0
#: Most requests per second a serving workload (and ``plan --mode serving --request-rate``) states: a million. By
#: Little's law a million requests a second that last about 10 s each keep 10^7 in flight, :data:`MAX_CONCURRENCY`,
#: the most a workload holds (fuzz pass 25: ``ServingWorkload(request_rate_per_s=1e308)`` was accepted).
MAX_REQUEST_RATE_PER_S: float = MAX_CONCURRENCY / RATE_CEILING_REQUEST_S
#: Shortest TTFT or TPOT objective a serving workload (and ``--ttft-ms`` / ``--tpot-ms``) states: 1 µs. Launching one
#: GPU kernel alone takes a few µs, so no objective below it can be met (fuzz pass 24: 1e-320 ms was echoed as
#: "9.9e-321 ms").
MIN_SLO_S: float = 1e-6

#: Keys :func:`parse_degrees` and :meth:`PlanResult.explain` accept, with their meaning.
DEGREE_KEYS: dict[str, str] = {
    "tp": "tensor parallel",
    "pp": "pipeline parallel",
    "dp": "data parallel",
    "cp": "context parallel",
    "ep": "expert parallel",
    "etp": "expert tensor parallel (MoE only; default = tp)",
    "v": "virtual stages (model chunks per pipeline device)",
    "zero": "ZeRO stage 0-3",
    "mb": "micro-batch (sequences)",
    "ga": "gradient accumulation (micro-batches per step)",
    "recompute": "none, selective or full",
    "replicas": "serving replicas",
}

MEGATRON_2021_SOURCE: str = (
    "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, "
    "arXiv:2104.04473 (SC21)"
)

register(
    {
        # a ClusterSpec figure refused or left out: the unit the field wants, from a vendor sheet's figure
        "specs.cluster_unit.memory_per_device_gib": {
            "zh": "单位是 GiB（2^30 字节），一个数：nvidia-smi 显示的显存总量（MiB）除以 1024，"
            "例如 A100 80GB 的 81920 MiB 写 80（显存按二进制造，数据手册的 80 GB 约是 80 GiB）。",
            "en": "The unit is GiB (2^30 bytes), as a number: the memory total nvidia-smi shows (MiB) divided by 1024, "
            "e.g. an A100 80GB's 81920 MiB is 80 (memory is built in binary sizes: a datasheet's 80 GB is about 80 "
            "GiB).",
        },
        "specs.cluster_unit.peak_flops": {
            "zh": "单位是 FLOP/s（每秒浮点运算次数），不是 TFLOP/s：数据手册的稠密 bf16 312 TFLOPS 写作 312e12"
            "（不要用带稀疏的数字）。",
            "en": "The unit is FLOP/s, not TFLOP/s: a datasheet's dense bf16 312 TFLOPS is 312e12 (not the sparse "
            "figure).",
        },
        "specs.cluster_unit.bandwidth": {
            "zh": "单位是字节/秒 (bytes/s)，每 GPU 单向：200 GB/s 写作 200e9；NVLink 的双向数字（如 A800 的 400 GB/s）"
            "要除以 2；网卡的 Gb/s（吉比特每秒）要除以 8，每节点的总和再除以每节点 GPU 数（每节点 4 × 200 Gb/s、"
            "8 张卡：4 * 200e9 / 8 / 8 = 12.5e9）。",
            "en": "The unit is bytes/s, one way per GPU: 200 GB/s is 200e9; divide NVLink's bidirectional figure by 2 "
            "(an A800's 400 GB/s); divide a network's Gb/s (gigabits per second) by 8, and a node's total by its GPUs "
            "(4 × 200 Gb/s per node of 8 GPUs: 4 * 200e9 / 8 / 8 = 12.5e9).",
        },
        "specs.cluster_unit.memory_bandwidth_bytes_per_s": {
            "zh": "单位是字节/秒 (bytes/s)：数据手册的显存带宽 2039 GB/s 写作 2039e9。",
            "en": "The unit is bytes/s: a datasheet's memory bandwidth of 2039 GB/s is 2039e9.",
        },
        "specs.cluster_unit.host_memory_per_device_gib": {
            "zh": "单位是 GiB（2^30 字节），每 GPU 一份：节点的系统内存除以节点的 GPU 数，"
            "例如 DGX H100 的 2 TB、8 张卡：2e12 / 8 / 2**30 = 232.8。",
            "en": "The unit is GiB (2^30 bytes) per GPU: the node's system memory divided by its GPUs, e.g. a DGX "
            "H100's 2 TB over 8 GPUs: 2e12 / 8 / 2**30 = 232.8.",
        },
        "specs.cluster_unit.host_link": {
            "zh": "单位是字节/秒 (bytes/s)，每 GPU 单向：PCIe 5.0 x16 写作 63e9；"
            "GB200 超级芯片的 NVLink-C2C 双向 900 GB/s 由 2 张 GPU 共用，每张单向 225e9。",
            "en": "The unit is bytes/s, one way per GPU: PCIe 5.0 x16 is 63e9; a GB200 superchip's NVLink-C2C, 900 "
            "GB/s both directions added, is shared by 2 GPUs: 225e9 each way.",
        },
        "specs.host_pair": {
            "zh": "{given} = {value}，但 {missing} 没有给：主机内存和主机链路要么都给，要么都不给"
            "（激活卸载 (activation offloading) 两个都要用）。",
            "en": "{given} = {value}, but {missing} is not given: give both host figures or neither (activation "
            "offloading needs both).",
        },
        "specs.cluster_unit.latency": {
            "zh": "单位是秒：3.4 微秒写作 3.4e-6。",
            "en": "The unit is seconds: 3.4 microseconds is 3.4e-6.",
        },
        "specs.cluster_latency_default": {
            "zh": f"不知道时用 NCCL 环形算法每一步的默认值（命令行不写 --intra-latency-us、--inter-latency-us 时也用"
            f"它们）：intra_node_latency_s={NCCL_RING_NVLINK_LATENCY_S:g}、"
            f"inter_node_latency_s={NCCL_RING_NET_LATENCY_S:g}（秒）。",
            "en": f"If you do not know them, use NCCL's ring step latencies (what the command line uses without "
            f"--intra-latency-us and --inter-latency-us): intra_node_latency_s={NCCL_RING_NVLINK_LATENCY_S:g}, "
            f"inter_node_latency_s={NCCL_RING_NET_LATENCY_S:g} (seconds).",
        },
        # a ClusterSpec's link figures that a unit or direction slip gives (the planner's report lists them)
        "specs.note.inter_above_intra": {
            "zh": "请核对集群的单位：跨节点带宽 {inter:g} GB/s 高于节点内带宽 {intra:g} GB/s（两者都按每 GPU 单向计），"
            "实际机器上跨节点的网卡比节点内的链路慢。是否把网卡的 Gb/s（吉比特每秒）当成了 GB/s（要除以 8），"
            "或填了每节点所有网卡之和（要再除以每节点的 {gpus} 张卡）？",
            "en": "Check the cluster's units: the inter-node bandwidth, {inter:g} GB/s, is above the intra-node "
            "{intra:g} GB/s (both one way per GPU), while a real machine's network is slower than its links inside a "
            "node. Was a network's Gb/s (gigabits per second) typed as GB/s (divide by 8), or a node's total of all "
            "its adapters (divide by its {gpus:@GPU} too)?",
        },
        "specs.note.inter_too_fast": {
            "zh": "请核对集群的单位：跨节点带宽 {inter:g} GB/s（每 GPU 单向）超过每张卡配一块 800 Gb/s 网卡的 "
            "{limit:g} GB/s。网卡的 Gb/s 要除以 8，每节点的总和要再除以每节点的 {gpus} 张卡。",
            "en": "Check the cluster's units: the inter-node bandwidth, {inter:g} GB/s (one way per GPU), is above "
            "the {limit:g} GB/s of one 800 Gb/s adapter per GPU. Divide a network's Gb/s by 8, and a node's total by "
            "its {gpus:@GPU} too.",
        },
        "specs.note.intra_too_fast": {
            "zh": "请核对集群的单位：节点内带宽 {intra:g} GB/s（每 GPU 单向）超过 NVLink 5（B200）单向的 "
            "{limit:g} GB/s：是否填了两个方向之和？本课程用单向带宽，双向的数字要除以 2。",
            "en": "Check the cluster's units: the intra-node bandwidth, {intra:g} GB/s (one way per GPU), is above "
            "NVLink 5's (B200) {limit:g} GB/s each way: was the sum of both directions typed? The course uses one "
            "way; divide a bidirectional figure by 2.",
        },
        "specs.note.memory_decimal": {
            "zh": "请核对显存单位：{gib:g} GiB 正好是 {gb} × 10^9 字节，像是把数据手册的 {gb} GB 按 10^9 换算成了 GiB。"
            "显存按二进制造，数据手册的 {gb} GB 本身就约是 {gb} GiB（A100/A800 80GB 的 nvidia-smi 显示 81920 MiB = "
            "80 GiB，H100 80GB 显示 81559 MiB ≈ 79.6 GiB）：请填 nvidia-smi 显示的 MiB 除以 1024。",
            "en": "Check the memory's unit: {gib:g} GiB is exactly {gb} x 10^9 bytes, as if the datasheet's {gb} GB "
            "had been converted to GiB by 10^9. Memory is built in binary sizes, so a datasheet's {gb} GB is about "
            "{gb} GiB already (an A100/A800 80GB shows 81920 MiB = 80 GiB in nvidia-smi, an H100 80GB 81559 MiB ≈ "
            "79.6 GiB): write the MiB nvidia-smi shows divided by 1024.",
        },
        "specs.note.intra_bidirectional": {
            "zh": "请核对方向：节点内带宽 {intra:g} GB/s 正是数据手册上 {gpu} NVLink 的双向数字（两个方向之和）；"
            "本课程用每 GPU 单向带宽，{gpu} 是 {half:g} GB/s。若你的机器单向确实是 {intra:g} GB/s，可以不管这条。",
            "en": "Check the direction: the intra-node bandwidth, {intra:g} GB/s, is the {gpu} datasheet's NVLink "
            "figure for both directions summed; the course uses one way per GPU, {half:g} GB/s on the {gpu}. If "
            "your machine really carries {intra:g} GB/s each way, ignore this note.",
        },
        "specs.world_size": {
            "zh": "设备总数 (nodes × gpus_per_node)",
            "en": "world size (nodes × gpus_per_node)",
        },
        "specs.domain_of_nodes": {
            "zh": "nvlink_domain_gpus = {domain}：一个 NVLink 域由整数个节点组成，必须是每节点 GPU 数 "
            "gpus_per_node = {gpus} 的倍数（至少一个节点）。",
            "en": "nvlink_domain_gpus = {domain}: an NVLink domain is made of whole nodes, so it must be a multiple "
            "of gpus_per_node = {gpus} (one node at least).",
        },
        "planner.edge_layers_negative": {
            "zh": "edge_layers = {edge}：{layers} 层分成 {pp} 个流水线阶段时，首尾阶段只剩 {stage} 层；"
            "每个阶段至少要有 0 层，请减小 edge_layers。",
            "en": "edge_layers = {edge}: with {layers:@layer} in {pp:@pipeline stage} the first and last stages would "
            "hold {stage:@layer}; a stage holds at least 0 layers, so use a smaller edge_layers.",
        },
        "planner.edge_layers_negative_asymmetric": {
            "zh": "edge_layers = {edge}、last_edge_layers = {last_edge}：{layers} 层分成 {pp} 个流水线阶段时，"
            "首、中、末阶段只剩 {first}、{mid}、{last} 层；每个阶段至少要有 0 层，"
            "请减小 last_edge_layers 或 edge_layers。",
            "en": "edge_layers = {edge}, last_edge_layers = {last_edge}: with {layers:@layer} in {pp:@pipeline stage} "
            "the first, middle and last stages would hold {first}, {mid} and {last:@layer}; a stage holds at least "
            "0 layers, so use a smaller last_edge_layers or edge_layers.",
        },
        "planner.model_from_config_hint": {
            "zh": "Hugging Face 的 config.json 请用 ModelSpec.from_config(...) 读取，它认得 hidden_size、"
            "num_hidden_layers 这类键。",
            "en": "Read a Hugging Face config.json with ModelSpec.from_config(...), which knows keys such as "
            "hidden_size and num_hidden_layers.",
        },
        "planner.window_pair": {
            "zh": "window_tokens = {tokens!r}，window_layers = {layers!r}：两者要么都不给（没有滑动窗口），要么一起给"
            "（窗口宽度 >= 1 个 token，作用于 1 到 {total} 层）。",
            "en": "window_tokens = {tokens!r}, window_layers = {layers!r}: give both (a window of >= 1 token on 1 to "
            "{total:@layer}) or neither (no sliding window).",
        },
        "planner.chunk_pair": {
            "zh": "chunk_tokens = {tokens!r}，chunk_layers = {layers!r}：两者要么都不给（没有分块注意力），要么一起给"
            "（块长 >= 1 个 token，作用于 1 到 {total} 层）。",
            "en": "chunk_tokens = {tokens!r}, chunk_layers = {layers!r}: give both (chunks of >= 1 token on 1 to "
            "{total:@layer}) or neither (no chunked attention).",
        },
        "planner.window_and_chunk": {
            "zh": "window_tokens = {window!r} 与 chunk_tokens = {chunk!r}：一个模型在这里要么有滑动窗口层，要么有分块"
            "注意力层，不能两者都有（已知的模型没有同时用两者的）。",
            "en": "window_tokens = {window!r} and chunk_tokens = {chunk!r}: a model here has sliding-window layers or "
            "chunked-attention layers, not both (no known model uses both).",
        },
        "planner.mla_only": {
            "zh": "{name} = {value!r}：只属于多头潜在注意力 (MLA)，需要同时给出 kv_lora_rank。",
            "en": "{name} = {value!r}: belongs to multi-head latent attention (MLA) and needs kv_lora_rank too.",
        },
        "planner.no_fp8": {
            "zh": "precision = 'fp8'：{cluster} 的设备没有 FP8 张量核心（例如 A100），请用 'bf16'；"
            "自定义的设备若有这种张量核心，请给出它的 FP8 峰值（ClusterSpec(peak_flops_fp8=...)，"
            "命令行 --peak-fp8-tflops），若给出计算能力，至少为 {low}（命令行 --compute-capability）。",
            "en": "precision = 'fp8': the devices of {cluster} have no FP8 tensor cores (e.g. A100); use 'bf16', or, "
            "for a device of your own that has them, give its FP8 peak (ClusterSpec(peak_flops_fp8=...), "
            "--peak-fp8-tflops on the command line) and a compute capability of at least {low} if you state one "
            "(--compute-capability).",
        },
        "planner.no_mxfp8": {
            "zh": "fp8_recipe = 'mxfp8'：{cluster} 的设备不能运行 MXFP8（Transformer Engine 只在计算能力 "
            "(compute capability) 10.x 的 GPU 上运行它，例如 B200、GB200、B300、GB300；这里是 {capability}）。"
            "请用 'current' 或 'delayed'；自定义的 Blackwell 集群请给出它的计算能力"
            "（ClusterSpec(compute_capability=10.0)，命令行 --compute-capability 10.0）。",
            "en": "fp8_recipe = 'mxfp8': the devices of {cluster} cannot run MXFP8 (Transformer Engine runs it only on "
            "GPUs of compute capability 10.x, e.g. B200, GB200, B300, GB300; here: {capability}). Use 'current' or "
            "'delayed', or, for a Blackwell cluster of your own, state its compute capability "
            "(ClusterSpec(compute_capability=10.0), --compute-capability 10.0 on the command line).",
        },
        "planner.attention_kernel_device": {
            "zh": "attention_kernel = {value!r}：它的速度是在 H100（计算能力 (compute capability) 9.x）上测得的；"
            "{cluster} 的计算能力是 {capability}，这里没有它在该设备上的测量。请用默认的 'flash-attention-3'"
            "（在非 Hopper 设备上它代表该设备自己的融合注意力内核，"
            "按 FlashAttention-3 在 H100 上相对最佳矩阵乘的速度外推）；"
            "自定义的 Hopper 集群请给出计算能力"
            "（ClusterSpec(compute_capability=9.0)，命令行 --compute-capability 9.0）。",
            "en": "attention_kernel = {value!r}: its speed was measured on H100 (compute capability 9.x); "
            "{cluster} has compute capability {capability}, where no measurement of it is at hand. Use the default "
            "'flash-attention-3' (off Hopper it stands for the device's own fused attention kernel, charged at "
            "FlashAttention-3's speed relative to the best matmul as measured on H100), "
            "or, for a Hopper cluster of your own, state its compute capability (ClusterSpec(compute_capability=9.0), "
            "--compute-capability 9.0 on the command line).",
        },
        "planner.attention_kernel_serving": {
            "zh": "attention_kernel = {value!r}：注意力内核的速度只用于训练的估算，而 mode = 'serving' 规划推理，"
            "推理的估算不读它；请去掉 attention_kernel（用默认值），或用 mode = 'training'。",
            "en": "attention_kernel = {value!r}: the attention kernel's speed is used by the training estimate only, "
            "while mode = 'serving' plans inference, whose estimate does not read it; leave attention_kernel at its "
            "default or use mode = 'training'.",
        },
        "planner.attention_kernel_no_flash": {
            "zh": "attention_kernel = {value!r} 是融合注意力内核，但 flash_attention=False（注意力分数按批量矩阵乘"
            "显式计算并保存）：两者不能同时成立。要用这个内核，请保留 flash_attention=True。",
            "en": "attention_kernel = {value!r} is a fused attention kernel, but flash_attention=False (the scores "
            "are computed by batched matmuls and kept): both cannot hold. To use this kernel, keep "
            "flash_attention=True.",
        },
        "planner.capability_unstated": {"zh": "未给出", "en": "not stated"},
        "planner.fp8_peak_below_bf16": {
            "zh": "{name} = {value!r}：FP8 峰值不能低于 bf16 峰值 {bf16_name} = {bf16!r}（有 FP8 张量核心的设备，"
            "FP8 峰值至少等于 bf16 峰值，例如 H100 SXM 稠密 1979 对 989 TFLOP/s）；没有 FP8 张量核心的设备不给 FP8 "
            "峰值。",
            "en": "{name} = {value!r}: an FP8 peak cannot be below the bf16 peak {bf16_name} = {bf16!r} (a "
            "device with FP8 tensor cores runs FP8 at least as fast as bf16, e.g. H100 SXM 1979 vs 989 dense "
            "TFLOP/s); a device without FP8 tensor cores has no FP8 peak to give.",
        },
        "planner.fp8_peak_no_tensor_cores": {
            "zh": "{name} = {value!r}：计算能力 (compute capability) {cc_name} = {cc!r} 的设备没有 FP8 张量核心（从 "
            "{low} 起才有：Ada 8.9、Hopper 9.0、Blackwell 10.x；A100 是 8.0），所以没有 FP8 峰值；请去掉 FP8 峰值，"
            "或给出这台有这种张量核心的设备的计算能力（至少 {low}）。",
            "en": "{name} = {value!r}: devices of compute capability {cc_name} = {cc!r} have no FP8 tensor cores "
            "(they start at {low}: Ada 8.9, Hopper 9.0, Blackwell 10.x; A100 is 8.0), so they have no FP8 peak; leave "
            "the FP8 peak out, or state the compute capability of a device that has them (at least {low}).",
        },
        "planner.ceiling_with_flat": {
            "zh": "efficiency_ceiling = {ceiling!r}：achievable_flops_fraction = {flat!r} 给每个矩阵乘设定同一个峰值"
            "占比，效率模型不再使用，它的上限也就不会被读取；只给其中一个。",
            "en": "efficiency_ceiling = {ceiling!r}: achievable_flops_fraction = {flat!r} sets one share of peak for "
            "every matmul instead of the efficiency model, so the model's ceiling would be ignored; give one of them.",
        },
        "planner.overlap_with_all": {
            "zh": "{name} = {value!r}：overlap_fraction = {all!r} 为每个维度设定被计算掩盖的通信比例，所以 {name} "
            "不会被读取；只给其中一个。",
            "en": "{name} = {value!r}: overlap_fraction = {all!r} sets the share of communication hidden under "
            "compute for every dimension, so {name} would be ignored; give one of them.",
        },
        "planner.training_field_serving": {
            "zh": "{name} = {value!r}：这是训练的设置，只有训练的估算读它；mode = 'serving' 规划推理，推理的搜索和"
            "估算不读它，任何结果都不会因它改变；请去掉 {name}（用默认值 {default!r}），或用 mode = 'training'。",
            "en": "{name} = {value!r}: a training setting, read by the training estimate only; mode = 'serving' plans "
            "inference, whose search and estimate do not read it, so no answer would change; leave {name} at its "
            "default ({default!r}) or use mode = 'training'.",
        },
        "planner.moe_only_field": {
            "zh": "{name} = {value!r}：{model} 是稠密模型（没有路由专家），只有混合专家 (MoE) 模型的估算读这个设置，"
            "任何结果都不会因它改变；请去掉 {name}（用默认值 {default!r}），或规划一个 MoE 模型。",
            "en": "{name} = {value!r}: {model} is a dense model (no routed experts) and only a mixture-of-experts "
            "(MoE) model's estimate reads this setting, so no answer would change; leave {name} at its default "
            "({default!r}) or plan an MoE model.",
        },
        "planner.unread_recompute_module": {
            "zh": "{name} 中的 {module!r}：{why}，这个模块级重计算不会改变任何结果；请把它从 {name} 中去掉。",
            "en": "{module!r} in {name}: {why}, so this module-level recomputation would change no answer; take it out "
            "of {name}.",
        },
        "planner.unread_module.moe": {
            "zh": "{model} 是稠密模型（没有路由专家），没有 MoE 块可重算",
            "en": "{model} is a dense model (no routed experts), with no MoE block to recompute",
        },
        "planner.unread_module.mla": {
            "zh": "{model} 不用多头潜在注意力 (multi-head latent attention, MLA)，没有上投影可重算",
            "en": "{model} does not use multi-head latent attention (MLA), so it has no up-projections to recompute",
        },
        "planner.unread_module.norm": {
            "zh": "{model} 既没有 MoE 层也不用 MLA，它的 norm 融合在下一个线性层里，没有单独的 norm 模块可重算",
            "en": "{model} has neither MoE layers nor MLA, so its norms are fused into the next linear layer and none "
            "is a module to recompute",
        },
        "planner.unread_module.full": {
            "zh": "只搜索了重计算模式 'full'（{modes}），它只保留每层的输入，不再叠加模块级重计算",
            "en": "only recompute mode 'full' is searched ({modes}), which keeps only each layer's input and adds no "
            "module-level recomputation",
        },
        "planner.fp8_only_field": {
            "zh": "{name} = {value!r}：只有 FP8 训练 (precision = 'fp8') 读这个设置；在 precision = {precision!r} "
            "下它不改变任何结果，已被忽略（默认值 {default!r}）。",
            "en": "{name} = {value!r}: only an FP8 run (precision = 'fp8') reads this setting; at precision = "
            "{precision!r} it changes no answer and is ignored (its default is {default!r}).",
        },
        "planner.serving_field_training": {
            "zh": "{name} = {value!r}：每个请求生成的输出 token 数只用于推理 (mode = 'serving') 的估算；mode = "
            "'training' 规划训练，训练的估算不读它；请去掉 {name}（用默认值 {default!r}），或用 mode = 'serving'。",
            "en": "{name} = {value!r}: the tokens each request generates are read by the serving estimate (mode = "
            "'serving') only; mode = 'training' plans training, whose estimate does not read them; leave {name} at "
            "its default ({default!r}) or use mode = 'serving'.",
        },
        "planner.lora_serving": {
            "zh": "lora_rank = {value!r}：低秩适配 (LoRA) 是训练负载（冻结权重，只训练适配器），而 mode = 'serving' "
            "规划推理，推理的估算不含 LoRA 适配器；请去掉 lora_rank（None），或用 mode = 'training'。",
            "en": "lora_rank = {value!r}: LoRA is a training workload (frozen weights, only the adapters train), "
            "while mode = 'serving' plans inference, whose estimate has no LoRA adapters; leave lora_rank out (None) "
            "or use mode = 'training'.",
        },
        "serving.fp8_weights": {
            "zh": "precision = 'fp8'，weight_bytes = {weight_bytes!r}：FP8 矩阵乘的权重每个 1 字节（或更少），"
            "请把 weight_bytes 设为 1。",
            "en": "precision = 'fp8', weight_bytes = {weight_bytes!r}: FP8 matmuls take weights of 1 byte (or "
            "fewer) each; set weight_bytes to 1.",
        },
        "planner.moe_top_k": {
            "zh": "top_k = {top_k}：MoE 模型必须在 1 到 num_experts = {experts} 之间，稠密模型必须为 0。",
            "en": "top_k = {top_k}: must be between 1 and num_experts = {experts} for an MoE model, and 0 for "
            "a dense one.",
        },
        "planner.moe_field_dense": {
            "zh": "{name} = {value!r}：这是混合专家 (MoE) 层的设置，但 num_experts = 0（稠密模型，没有专家层），"
            "它不会改变任何结果；请去掉 {name}（用默认值 {default!r}），或同时给出 num_experts 和 top_k。",
            "en": "{name} = {value!r}: a setting of mixture-of-experts (MoE) layers, but num_experts = 0 (a dense "
            "model, no expert layer), so it would change nothing; leave {name} at its default ({default!r}) or give "
            "num_experts and top_k too.",
        },
        "planner.type_spec": {
            "zh": "{name} = {value!r}：必须是 {expected}，而不是 {type}。",
            "en": "{name} = {value!r}: must be a {expected}, not {type}.",
        },
        "planner.layer_kind": {
            "zh": 'kind = {value!r}：必须是 None、"dense"（稠密层）或 "moe"（混合专家层）。',
            "en": 'kind = {value!r}: must be None, "dense" or "moe".',
        },
        "planner.layer_kind_moe": {
            "zh": "kind = 'moe'：只有混合专家模型才有混合专家层，本模型是稠密模型。",
            "en": "kind = 'moe': only a mixture-of-experts model has MoE layers; this model is dense.",
        },
        "planner.empty_choices": {
            "zh": "{name} = {value!r}：至少要有一个取值。",
            "en": "{name} = {value!r}: must hold at least one value.",
        },
        "serving.both_load": {
            "zh": "concurrency = {concurrency!r}，request_rate_per_s = {rate!r}：必须给出其中一个，且只能给一个"
            "（并发数，或用利特尔定律从请求速率推出并发）。",
            "en": "concurrency = {concurrency!r}, request_rate_per_s = {rate!r}: give exactly one (a concurrency, "
            "or a request rate that Little's law turns into one).",
        },
        "serving.rate_ceiling": {
            "zh": "request_rate_per_s = {value:.4g}：必须 <= {high:.4g}（每秒一百万个请求）：按利特尔定律，"
            "每个请求约持续 {seconds:g} 秒时，这个速率下同时在处理的请求就有 {concurrency:.4g} 个，"
            "已是一个工作负载能容纳的最大并发数。",
            "en": "request_rate_per_s = {value:.4g}: must be <= {high:.4g} (a million requests a second): by "
            "Little's law, with each request lasting about {seconds:g} s, that rate means a concurrency of "
            "{concurrency:.4g}, the most a workload holds.",
        },
        "serving.weight_bytes_below_bit": {
            "zh": "weight_bytes = {value!r}：必须 >= {low}（每个权重 1 位，即二值权重，是最小的权重格式）。",
            "en": "weight_bytes = {value!r}: must be >= {low} (1 bit per weight, binary weights: the smallest weight "
            "format).",
        },
    }
)


# --------------------------------------------------------------------------- precision recipes


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars as the Python number they hold (tuples item by item); anything else as given.

    A numpy integer keeps its width in arithmetic: ``np.int32(4096)`` squared in a parameter count wraps around to a
    negative number, silently. Specs store Python ints, floats and bools, whose arithmetic does not wrap.
    """
    if isinstance(value, tuple):
        items = tuple(_plain(item) for item in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


def _plain_fields(spec: Any) -> None:
    """Store every field of the frozen dataclass ``spec`` with numpy scalars turned into Python numbers
    (:func:`_plain`), before its checks run."""
    for item in fields(spec):
        value = getattr(spec, item.name)
        plain = _plain(value)
        if plain is not value:
            object.__setattr__(spec, item.name, plain)


@learner_arguments()
@dataclass(frozen=True)
class PrecisionRecipe:
    """Bytes per parameter that training keeps for weights, gradients and optimizer states.

    Fields:
        name: catalog key of the recipe (``"custom"`` for user-made ones).
        description: bilingual one-line description.
        param_bytes: bytes per parameter of the weights the model computes with.
        grad_bytes: bytes per parameter of the gradients that are reduced.
        optimizer_bytes: bytes per parameter of everything only the optimizer
            needs (fp32 master weights, Adam momentum and variance): the ZeRO
            paper's K.
        source: where the numbers come from.

    A recipe counts model states only. What FP8 training changes is elsewhere: its matmuls run at the FP8 peak and the
    inputs its linear layers save for backward take 1 byte per element (``WorkloadSpec(precision="fp8")``,
    :mod:`coursekit.activations`). The weights' bytes per parameter stay the recipe's, which is exact when the FP8
    weights replace the bf16 ones (Megatron-Core ``--fp8-param-gather``, which NeMo 2's and Megatron-Bridge's FP8
    recipes set: on Hopper an FP8 weight and its FP8 transpose, 1 + 1 bytes, where bf16 took 2). Without it,
    Transformer Engine keeps each linear layer's FP8 weight and transpose between micro-batches besides the bf16
    weight (``_fp8_workspaces``, filled while Megatron-Core passes ``is_first_microbatch``), 2 bytes more per
    linear-layer parameter on the rank, which the ledger does not count.

    >>> PRECISION_RECIPES["megatron-bf16"].bytes_per_param
    18.0

    Taught in: lesson 1 (Q1 capacity).
    """

    name: str
    description: Text
    param_bytes: float
    grad_bytes: float
    optimizer_bytes: float
    source: str

    def __post_init__(self) -> None:
        _plain_fields(self)
        for field_name in ("param_bytes", "grad_bytes", "optimizer_bytes"):
            value = check_number(field_name, getattr(self, field_name), ge=0)
            object.__setattr__(self, field_name, value)

    @property
    def bytes_per_param(self) -> float:
        """Unsharded model-state bytes per parameter: weights + gradients + optimizer."""
        return self.param_bytes + self.grad_bytes + self.optimizer_bytes


#: Source strings, cited by the recipes below and by the tests.
ZERO_PAPER_SOURCE: str = (
    "Rajbhandari et al., ZeRO: Memory Optimizations Toward Training Trillion Parameter Models, "
    "arXiv:1910.02054, §3.1 (mixed-precision Adam: 2 + 2 + K, K = 12)"
)
MEGATRON_DISTOPT_SOURCE: str = (
    "Megatron-Core developer guide, Distributed Optimizer, table of theoretical bytes per parameter "
    "(docs.nvidia.com/megatron-core/developer-guide/latest/api-guide/dist_optimizer.html)"
)

#: The precision recipes of the course, by name. Numbers are bytes per parameter.
PRECISION_RECIPES: dict[str, PrecisionRecipe] = {
    recipe.name: recipe
    for recipe in (
        PrecisionRecipe(
            name="zero-fp16-adam",
            description=Text(
                zh="混合精度 Adam（ZeRO 论文）：16 位（fp16 或 bf16）参数与梯度，fp32 主参数、动量、方差",
                en="Mixed-precision Adam (ZeRO paper): 16-bit (fp16 or bf16) weights and gradients; fp32 master "
                "weights, momentum, variance",
            ),
            param_bytes=2,
            grad_bytes=2,
            optimizer_bytes=12,
            source=ZERO_PAPER_SOURCE,
        ),
        PrecisionRecipe(
            name="megatron-bf16",
            description=Text(
                zh="Megatron bf16：bf16 参数，fp32 主梯度，fp32 主参数与 Adam 状态（每参数 18 字节）",
                en="Megatron bf16: bf16 weights, fp32 main gradients, fp32 master weights and Adam states "
                "(18 bytes per parameter)",
            ),
            param_bytes=2,
            grad_bytes=4,
            optimizer_bytes=12,
            source=MEGATRON_DISTOPT_SOURCE + ": bf16 parameters, fp32 gradients -> 18, distributed 6 + 12/d",
        ),
        PrecisionRecipe(
            name="fp32-adam",
            description=Text(
                zh="全 fp32 Adam：fp32 参数与梯度，fp32 动量与方差（无需另存主参数）",
                en="Plain fp32 Adam: fp32 weights and gradients, fp32 momentum and variance (no separate master copy)",
            ),
            param_bytes=4,
            grad_bytes=4,
            optimizer_bytes=8,
            source=MEGATRON_DISTOPT_SOURCE + ": fp32 parameters, fp32 gradients -> 16, distributed 8 + 8/d",
        ),
        PrecisionRecipe(
            name="bf16-adam-no-master",
            description=Text(
                zh="bf16 参数与梯度，fp32 动量与方差，不保留 fp32 主参数",
                en="bf16 weights and gradients, fp32 momentum and variance, no fp32 master weights",
            ),
            param_bytes=2,
            grad_bytes=2,
            optimizer_bytes=8,
            source="Derived from " + ZERO_PAPER_SOURCE + " by dropping the 4-byte fp32 master copy (K = 8)",
        ),
        PrecisionRecipe(
            name="apex-dfa-bf16",
            description=Text(
                zh="Apex 分布式 Adam，状态用 bf16（NeMo 的 distributed_fused_adam，dtype bf16）：bf16 参数与梯度，"
                "优化器另存一份 bf16 参数，动量与方差也是 bf16（每参数 10 字节）",
                en="Apex distributed Adam with bf16 state (NeMo's distributed_fused_adam, dtype bf16): bf16 weights "
                "and gradients; the optimizer keeps its own bf16 copy of the weights and bf16 momentum and variance "
                "(10 bytes per parameter)",
            ),
            param_bytes=2,
            grad_bytes=2,
            optimizer_bytes=6,
            source="NVIDIA/apex apex/contrib/optimizers/distributed_fused_adam.py, DistributedFusedAdam: 'dtype: "
            "datatype for optimizer state', 'store_params: store a distributed copy of the parameters as optimizer "
            "state (default: True)'; NVIDIA NeMo-Framework-Launcher 24.07 (8325688d8345a5513660f0f8390f0482a721c009) "
            "launcher_scripts/conf/peft/llama/sft.yaml: optim.name distributed_fused_adam, dtype bf16, "
            "grad_sync_dtype bf16",
        ),
        PrecisionRecipe(
            name="deepseek-v3-fp8",
            description=Text(
                zh="DeepSeek-V3 FP8 训练：bf16 参数，fp32 梯度与主参数，bf16 的 Adam 动量与方差（每参数 14 字节）",
                en="DeepSeek-V3 FP8 training: bf16 weights, fp32 gradients and master weights, bf16 Adam momentum "
                "and variance (14 bytes per parameter)",
            ),
            param_bytes=2,
            grad_bytes=4,
            optimizer_bytes=8,
            source="DeepSeek-AI, DeepSeek-V3 Technical Report, arXiv:2412.19437, §3.3.3 (low-precision optimizer "
            "states: AdamW moments in BF16; master weights and accumulated gradients kept in FP32)",
        ),
    )
}

#: The recipe used when none is named: the ZeRO paper's accounting (2 + 2 + 12 bytes per parameter), which is also
#: what NVIDIA's performance scripts, behind its published H100/B200 tables, run: bf16 gradients reduced in bf16
#: (Megatron-Bridge scripts/performance ``cfg.ddp.grad_reduce_in_fp32 = False``; NeMo 2 performance scripts;
#: DGX Cloud Benchmarking recipes). Megatron-LM's own trainer and NeMo's 24.07 launcher keep fp32 gradients
#: (``"megatron-bf16"``, 2 + 4 + 12): a run of theirs names that recipe.
DEFAULT_RECIPE: str = "zero-fp16-adam"


#: Activation recomputation modes: keep everything, recompute the attention core
#: ("selective", Korthikanti §5), or keep only each layer's input ("full").
RECOMPUTE_MODES: tuple[str, ...] = ("none", "selective", "full")
#: What the planner searches: the recompute modes and ``"offload"``, activation offloading without recomputation
#: (Megatron-Core's ``cpu_offloading`` with ``cpu_offloading_num_layers``: the saved activations of the first N
#: layers go to host memory during the forward and come back for the backward; the engine refuses it together
#: with any recomputation and with pipeline parallelism, :data:`OFFLOAD_SOURCE`). It is not a recompute mode of the
#: capacity ledger, which counts one device's memory only.
PLAN_RECOMPUTE_MODES: tuple[str, ...] = (*RECOMPUTE_MODES, "offload")
OFFLOAD_SOURCE: str = (
    "NVIDIA/Megatron-LM d98e8a64dd: megatron/core/model_parallel_config.py (cpu_offloading, "
    "cpu_offloading_num_layers, cpu_offloading_activations); megatron/core/transformer/transformer_config.py "
    "(cpu_offloading_num_layers must be in [0, num_layers); refused with pipeline_model_parallel_size > 1 and with "
    "recompute_granularity); transformer_block.py (Transformer Engine's get_cpu_offload_context); "
    "NVIDIA-NeMo/Megatron-Bridge dc87ce51 scripts/performance/configs/llama31/workload_base_configs.py "
    "(Llama 3.1 405B on GB200: cpu_offloading_num_layers=95)"
)
#: Megatron-Core's module-level recomputation that the workbench can add to a recompute mode (the workload's
#: ``recompute_modules``): ``"layernorm"`` recomputes the norms that are separate modules — in an MoE layer the
#: pre-MLP norm, whose output feeds the router and the token permutation, and with multi-head latent attention
#: also the input norm; elsewhere the norm is fused into the next linear layer and nothing changes —,
#: ``"moe_act"`` the routed experts' activation function (SwiGLU), whose output is the experts' down-projection
#: input, ``"moe"`` the whole MoE block (router, dispatch, experts, combine) from its input, and ``"mla_up_proj"``
#: multi-head latent attention's up-projections with the rotary embedding: the per-head Q, K and V, recomputed
#: from the latents the layer keeps (DeepSeek-V3 recomputes them too, arXiv:2412.19437 §3.2.3). All but ``"moe"``
#: discard their output after the forward and recompute it from an input the layer keeps anyway; ``"moe"`` keeps
#: only the block's input and runs the block's forward again, all-to-alls included
#: (:data:`RECOMPUTE_MODULES_SOURCE`).
RECOMPUTE_MODULES: tuple[str, ...] = ("layernorm", "moe_act", "moe", "mla_up_proj")
RECOMPUTE_MODULES_SOURCE: str = (
    "NVIDIA/Megatron-LM 1e057005959b75e8bc62f610a335bd03080bc659: megatron/core/transformer/transformer_config.py "
    '(recompute_modules: "moe_act", "layernorm" ... use output-discarding checkpointing; the list replaces the '
    'default ["core_attn"]); transformer_layer.py (a norm is recomputed only when it is not an IdentityOp); '
    "megatron/core/models/gpt/gpt_layer_specs.py (with Transformer Engine the input norm is fused into linear_qkv "
    "except for MLA, the pre-MLP norm is a TENorm only with experts); megatron/core/transformer/moe/experts.py "
    "TEGroupedMLP (moe_act: CheckpointWithoutOutput around the activation, its output discarded after linear_fc2); "
    "megatron/core/transformer/moe/moe_layer.py MoELayer.forward (moe: tensor_parallel.checkpoint around router, "
    "token_permutation, experts and token_unpermutation); megatron/core/transformer/multi_latent_attention.py "
    '("mla_up_proj": the up projections and the rotary embedding under CheckpointWithoutOutput, their output '
    "discarded after core attention and recomputed before its backward)"
)


# --------------------------------------------------------------------------- helpers


#: The words of a type description (``"tuple of int"``, ``"str or mapping"``) in both languages, applied in order;
#: type and class names (str, int, ModelSpec ...) stay as Python spells them.
_TYPE_WORDS: tuple[Text, ...] = (
    Text(zh="str 或映射 (mapping)", en="str or mapping"),
    Text(zh="(名称, 并行度) 对组成的元组 (tuple)", en="tuple of (name, degree) pairs"),
    Text(zh="(WorkloadSpec 字段, 值) 对组成的元组 (tuple)", en="tuple of (WorkloadSpec field, value) pairs"),
    Text(zh="str 组成的元组 (tuple)", en="tuple of str"),
    Text(zh="int 组成的元组 (tuple)", en="tuple of int"),
    Text(zh="非空 str", en="non-empty str"),
    Text(zh="预设名称", en="preset name"),
    Text(zh="`numpy` 模块", en="the numpy module"),
    Text(zh="由列组成的映射 (mapping)", en="mapping of columns"),
    Text(zh="由数值组成的一维 `numpy` 数组", en="one-dimensional numpy array of numbers"),
    Text(zh="可调用对象 (callable)", en="callable"),
    Text(zh=" 或 ", en=" or "),
)


def type_error(name: str, value: Any, expected: str) -> TypeError:
    """A localized ``TypeError``: ``name = value: must be a <expected>, not <type>``."""
    arguments: tuple[tuple[str, object], ...] = (("name", name), ("expected", expected))
    for argument, given in arguments:
        if not isinstance(given, str):  # the error about the error: this helper's own arguments
            return TypeError(
                tr("planner.type_spec", name=argument, value=given, expected="str", type=type(given).__name__)
            )
    for words in _TYPE_WORDS:  # the current language's words (English ones stay as they are)
        expected = expected.replace(words.en, words.render())
    return TypeError(tr("planner.type_spec", name=name, value=value, expected=expected, type=type(value).__name__))


def _check_name(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise type_error(name, value, "non-empty str")
    return value


def _check_int_tuple(name: str, value: Any, *, ge: int, le: int | None = None) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise type_error(name, value, "tuple of int")
    items = tuple(check_int(tr("validate.item_of", name=name), item, ge=ge, le=le) for item in value)
    if not items:
        raise ValueError(tr("planner.empty_choices", name=name, value=value))
    return tuple(sorted(set(items)))


def _check_str_tuple(name: str, value: Any, choices: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise type_error(name, value, "tuple of str")
    items = tuple(check_choice(tr("validate.item_of", name=name), item, choices) for item in value)
    if not items:
        raise ValueError(tr("planner.empty_choices", name=name, value=value))
    return tuple(mode for mode in choices if mode in items)


def divisors(n: int) -> tuple[int, ...]:
    """The positive divisors of ``n``, ascending.

    >>> divisors(12)
    (1, 2, 3, 4, 6, 12)
    """
    return _divisors(check_int("n", n, ge=1, le=1 << 40))


def _divisors(n: int) -> tuple[int, ...]:
    """:func:`divisors` without validation (the searches call it on counts they built)."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return tuple(sorted(set(small + [n // d for d in small])))


def group_link(span: int, gpus_per_node: int, used_ranks: int | None = None) -> str:
    """``"intra_node"`` if every group spanning ``span`` consecutive ranks stays inside one node, else ``"inter_node"``.

    Ranks are placed contiguously (rank r on node r // gpus_per_node) and a
    dimension's groups occupy aligned blocks of ``span`` ranks (Megatron-Core's
    order tp-cp-ep-dp-pp: TP spans tp, CP spans tp·cp, EP spans tp·ep, DP spans
    tp·cp·dp, PP spans the world). A block lies in one node exactly when ``span``
    divides ``gpus_per_node``; otherwise some group crosses a node and — since a
    ring runs at its slowest link — the whole dimension is timed on the
    inter-node link. ``used_ranks``: the ranks a layout occupies (default: more than a node); when they fit in one
    node (ranks 0 .. used_ranks - 1 on node 0) every group does.

    >>> group_link(8, 8), group_link(16, 8), group_link(3, 8), group_link(3, 8, used_ranks=6)
    ('intra_node', 'inter_node', 'inter_node', 'intra_node')

    Taught in: lesson 9 (decision workbench).
    """
    span = check_int("span", span, ge=1)
    gpus_per_node = check_int("gpus_per_node", gpus_per_node, ge=1)
    used = None if used_ranks is None else check_int("used_ranks", used_ranks, ge=1)
    return _group_link(span, gpus_per_node, used)


def _group_link(span: int, gpus_per_node: int, used_ranks: int | None = None) -> str:
    """:func:`group_link` without validation."""
    one_node = used_ranks is not None and used_ranks <= gpus_per_node
    return "intra_node" if gpus_per_node % span == 0 or one_node else "inter_node"


def nvlink_segment_nodes(nodes: int, domain_nodes: int) -> int:
    """Nodes of a job on ``nodes`` nodes that share one NVLink domain of ``domain_nodes`` nodes: all of them when
    they fit in one domain, else the largest number at most ``domain_nodes`` that divides ``nodes``, so that every
    domain holds the same share of the job. This is the Slurm ``--segment`` Megatron-Bridge's launcher asks for on
    GB200 (scripts/performance/utils/executors.py @ 067f987df: nodes of 4 GPUs, at most 18 to a segment): a job on
    64 trays runs in 4 segments of 16 trays (64 GPUs each), a job on 20 in 2 of 10.

    >>> [nvlink_segment_nodes(nodes, 18) for nodes in (2, 18, 64, 20)]
    [2, 18, 16, 10]

    Taught in: lesson 9 (decision workbench).
    """
    nodes = check_int("nodes", nodes, ge=1, le=MAX_NODES)
    return _segment_nodes(nodes, check_int("domain_nodes", domain_nodes, ge=1, le=MAX_WORLD_SIZE))


@functools.lru_cache(maxsize=256)
def _segment_nodes(nodes: int, domain_nodes: int) -> int:
    """:func:`nvlink_segment_nodes` without validation, kept per pair (a prime node count scans every size)."""
    if nodes <= domain_nodes:
        return nodes
    return next(size for size in range(domain_nodes, 0, -1) if nodes % size == 0)


def ring_nics(span: int, group_ranks: int, gpus_per_node: int) -> int:
    """Network cards one ring collective of a group crossing nodes drives per rank's share of traffic.

    A group of ``group_ranks`` ranks occupies a block of ``span`` consecutive ranks (stride ``span //
    group_ranks``; see :func:`group_link`). NCCL builds each ring so it enters and leaves every node once per
    channel and spreads its channels over the NICs next to the group's GPUs on that node, so a ring all-reduce,
    reduce-scatter or all-gather whose group holds k ranks on each node crosses nodes on k NICs: k times one
    GPU's share of the network (NVIDIA/nccl#569: the same 8-rank all-reduce of 1.6 GB over 1, 2 and 4 GPUs a
    node with as many IB cards took 363, 173 and 132 ms; nccl#1168: ~45 GB/s at 4 GPUs a node, ~90 GB/s at 8;
    nccl#412: more NICs on the GPUs' PCI switches give more bandwidth, up to NVLink's; NCCL src/graph/search.cc
    @ 5067397c: a ring channel runs "NET n -> GPU a -> .. -> GPU x -> NET n", the NETs tried are those each of
    the communicator's GPUs on the node prefers, and each channel takes its bandwidth off the NET it uses). This
    returns k when every
    node holds the same number of the group's ranks (``span`` a multiple of ``gpus_per_node``, the stride
    dividing it), else 1, a lower bound (uneven nodes; the slowest holds the fewest of the group's ranks).
    Point-to-point traffic (pipeline send/recv, the context-parallel K/V ring's neighbour exchange, the expert
    all-to-all) leaves through each rank's own NIC: one card. The bandwidth is capped by the node's intra-node
    bandwidth, which each channel also crosses (``coursekit.planner`` applies the cap).

    >>> ring_nics(64, 8, 8), ring_nics(16, 16, 8), ring_nics(32, 8, 8), ring_nics(12, 12, 8)
    (1, 8, 2, 1)

    Taught in: lesson 9 (decision workbench).
    """
    span = check_int("span", span, ge=1)
    group_ranks = check_int("group_ranks", group_ranks, ge=1)
    gpus_per_node = check_int("gpus_per_node", gpus_per_node, ge=1)
    check_divides("group_ranks", group_ranks, "span", span)
    return int(_ring_nics(span, group_ranks, gpus_per_node))


def _ring_nics(span: Any, group_ranks: Any, gpus_per_node: int) -> Any:
    """:func:`ring_nics` without validation; array-generic (integer arithmetic, so numpy columns or ints)."""
    stride = span // (group_ranks + (group_ranks < 1))  # rows no layout can have (a search's refused candidates)
    stride = stride + (stride < 1)  # stay defined: a stride of at least 1
    per_node, rest = divmod(gpus_per_node, stride)  # one division for both (numpy's divmod on columns)
    aligned = (span % gpus_per_node == 0) & (rest == 0)
    return 1 + aligned * (per_node - 1)


def _inter_node_ring_bandwidth(np: Any, cluster: Any, span: Any, ring_ranks: Any) -> Any:
    """Bytes/s per rank and direction of a group crossing nodes: ``ring_nics`` NICs' worth for ring collectives
    (``ring_ranks`` the group's ranks; 1 for point-to-point), capped by the intra-node bandwidth each channel also
    crosses, never below one NIC. Array-generic (``np`` is numpy); the planner's links and ledger rows call it."""
    inter_bw, intra_bw = cluster.inter_node_bandwidth_bytes_per_s, cluster.intra_node_bandwidth_bytes_per_s
    nics = _ring_nics(span, ring_ranks, cluster.domain_gpus)
    return np.maximum(inter_bw, np.minimum(nics * inter_bw, intra_bw))


def _elementwise(op: Any, a: Any, b: Any) -> Any:
    """``min`` or ``max`` of two numbers, elementwise when either is a numpy array (numbers stay plain numbers)."""
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return (np.minimum if op is min else np.maximum)(a, b)
    return op(a, b)


def kv_heads_split(kv_heads: Any, tp: Any) -> Any:
    """KV heads one TP rank holds: ceil(kv_heads / tp), so 1 when tp exceeds kv_heads (each head is replicated).

    Array-generic (a kernel): the public :func:`coursekit.serving.kv_heads_per_rank` checks its arguments and calls
    this; the planner calls it on whole columns of ``tp``; called from outside the package it checks its own.

    >>> kv_heads_split(8, 4), kv_heads_split(8, 16), kv_heads_split(1, 8)
    (2, 1, 1)
    """
    if called_from_outside():
        check_int_column("kv_heads", kv_heads, ge=1)
        check_int_column("tp", tp, ge=1)
        check_column_shapes(kv_heads=kv_heads, tp=tp)
    return -(-kv_heads // tp)


#: Megatron-Core's option to count the embedding and the loss as a layer each of the pipeline split
#: (``--account-for-embedding-in-pipeline-split`` / ``--account-for-loss-in-pipeline-split``), added with uneven
#: virtual pipeline parallelism: Megatron-LM ef490839 (2025-02-03, "Uneven Virtual Pipeline Parallelism").
EDGE_LAYERS_SOURCE: str = (
    "NVIDIA/Megatron-LM ef490839e8 (2025-02-03, !1961 Uneven Virtual Pipeline Parallelism): "
    "megatron/core/transformer/transformer_config.py account_for_embedding_in_pipeline_split, "
    "account_for_loss_in_pipeline_split"
)


def _check_split(layers: Any, pp: Any, **edges: Any) -> None:
    """The guard of the pipeline-split kernels below, run when they are called from outside the package:
    ``layers`` and ``pp`` at least 1, each edge given (``None``: not stated) at least 0; integers or numpy columns."""
    check_int_column("layers", layers, ge=1)
    check_int_column("pp", pp, ge=1)
    for name, value in edges.items():
        if value is not None:
            check_int_column(name, value, ge=0)
    check_column_shapes(layers=layers, pp=pp, **edges)


def edge_layers_at(layers: Any, pp: Any, option: int | None) -> Any:
    """The layers each edge pipeline stage gives up to the embedding and the loss at ``pp`` stages; array-generic
    over ``pp``, its arguments checked only when called from outside the package (:func:`_check_split`).

    ``option`` is :attr:`WorkloadSpec.pipeline_edge_layers`: a number is used as given; ``None`` (the default)
    counts the embedding and the loss as one layer each (1) exactly where that evens a split that is otherwise
    uneven — ``layers`` not a multiple of ``pp`` but ``layers + 2`` one, with more than two stages — and 0
    elsewhere (:data:`EDGE_LAYERS_SOURCE`). Llama 3 405B's 126 layers on 16 stages: 128 = 16 · 8 (arXiv:2407.21783,
    §3.3.2); Qwen3 235B-A22B's 94 on 8: 96 = 8 · 12; 80 layers split evenly and keep 0.

    >>> edge_layers_at(126, 16, None), edge_layers_at(94, 8, None), edge_layers_at(80, 16, None)
    (1, 1, 0)
    >>> edge_layers_at(126, 2, None), edge_layers_at(61, 16, None), edge_layers_at(126, 16, 0)
    (0, 0, 0)
    """
    if called_from_outside():
        _check_split(layers, pp, option=option)
    if option is not None:
        return option
    return ((layers % pp != 0) & ((layers + 2) % pp == 0) & (pp > 2)) * 1


#: Where the default split of a model with multi-token prediction (MTP) modules comes from: Megatron-Bridge's
#: DeepSeek-V3 layouts (one MTP module), for every pipeline shape they define — (pp, vp) = (4, 1), (8, 1), (4, 2),
#: (16, 1), (8, 2), (4, 4) — put the embedding on the first stage with a full stage of layers and give the last stage
#: 3 layers fewer, for the MTP module and the loss (16 + 16 + 16 + 13, 8 · 7 + 5, 4 · 15 + 1 of DeepSeek-V3's 61).
MTP_EDGE_SOURCE: str = (
    "NVIDIA-NeMo/Megatron-Bridge @ 067f987df03b8355b03192d88d70f1709fedf51a, "
    "src/megatron/bridge/recipes/deepseek/h100/deepseek_v3.py _get_deepseek_v3_pipeline_layout: last stage "
    '["decoder"] * (q - 3) + ["mtp"] * mtp_layers + ["loss"], first ["embedding"] + ["decoder"] * q'
)


def _mtp_last_edge_layers(mtp_layers: int) -> int:
    """Layers the last pipeline stage gives up for the loss and ``mtp_layers`` multi-token prediction modules when the
    workload states no split: 1 for the output layer and the loss, and 2 for each MTP module (its transformer block and
    its own pass through the shared output layer), so 3 for DeepSeek-V3's one module, as Megatron-Bridge's DeepSeek-V3
    layouts give it (:data:`MTP_EDGE_SOURCE`); 0 without MTP modules (the model's own rule applies).

    >>> _mtp_last_edge_layers(0), _mtp_last_edge_layers(1), _mtp_last_edge_layers(2)
    (0, 3, 5)
    """
    return 1 + 2 * mtp_layers if mtp_layers > 0 else 0


def pipeline_edges_at(
    layers: Any, pp: Any, option: int | None, last_option: int | None = None, mtp_layers: int = 0
) -> tuple[Any, Any]:
    """The layers the (first, last) pipeline stage gives up at ``pp`` stages; array-generic over ``pp``, checked
    only when called from outside the package.

    ``option`` is :attr:`WorkloadSpec.pipeline_edge_layers` (the first stage's, by :func:`edge_layers_at`),
    ``last_option`` :attr:`WorkloadSpec.pipeline_last_edge_layers`: a number is the last stage's as given; ``None``
    (the default) the same as the first stage's. DeepSeek-V3 on 16 stages as Megatron-Bridge lays it out states
    (0, 3): the embedding shares the first stage with 4 layers, the last holds 1 layer, the MTP block and the loss.
    A model with ``mtp_layers`` multi-token prediction modules (:attr:`ModelSpec.mtp_layers`) whose workload states
    neither edge is laid out that way: (0, :func:`_mtp_last_edge_layers`), the MTP modules and the loss on the last
    stage in place of layers (:data:`MTP_EDGE_SOURCE`), wherever that leaves every stage a layer; where it would not
    (too few layers a stage: DeepSeek-V3's 61 on 32 stages), the model's other rule (:func:`edge_layers_at`) applies.

    >>> pipeline_edges_at(126, 16, None), pipeline_edges_at(61, 16, 0, 3), pipeline_edges_at(61, 8, 1, None)
    ((1, 1), (0, 3), (1, 1))
    >>> pipeline_edges_at(61, 16, None, None, mtp_layers=1), pipeline_edges_at(61, 16, 1, None, mtp_layers=1)
    ((0, 3), (1, 1))
    >>> pipeline_edges_at(61, 32, None, None, mtp_layers=1)
    (0, 0)
    """
    if called_from_outside():
        _check_split(layers, pp, option=option, last_option=last_option)
        check_int("mtp_layers", mtp_layers, ge=0)
    first = edge_layers_at(layers, pp, option)
    last = first if last_option is None else last_option
    if mtp_layers > 0 and option is None and last_option is None:
        mtp_last = _mtp_last_edge_layers(mtp_layers)
        head, middle, tail = stage_layer_counts(layers, pp, 0, mtp_last)
        fits = (tail >= 1) & ((middle >= 1) | (pp <= 2)) & (head >= 1)
        return first * (1 - fits), fits * mtp_last + (1 - fits) * last
    return first, last


def stage_layer_counts(
    layers: Any, pp: Any, edge_layers: Any = 0, last_edge_layers: Any = None
) -> tuple[Any, Any, Any]:
    """Layers of the (first, heaviest middle, last) pipeline stage; array-generic over ``pp``, checked only when
    called from outside the package.

    The rule (the first stage gives up ``edge_layers`` to the embedding, the last ``last_edge_layers`` — ``None``:
    as many — to the output layer and the loss) is documented at :func:`coursekit.planner.stage_layers`, the
    public, validated form.

    >>> stage_layer_counts(126, 16, 1), stage_layer_counts(61, 16, 0, 3)
    ((7, 8, 7), (4, 4, 1))
    """
    if called_from_outside():
        _check_split(layers, pp, last_edge_layers=last_edge_layers)
        check_int_column("edge_layers", edge_layers, ge=0)  # always stated here (0 by default)
    last_edge = edge_layers if last_edge_layers is None else last_edge_layers
    pp_safe = pp + (pp < 1)
    q = -(-(layers + edge_layers + last_edge) // pp_safe)
    first_many = q - edge_layers  # pp == 2 too: the larger half of L + e1 + e2, less the first edge
    last_rule = q - last_edge
    rest = layers - first_many
    # the last stage holds q - e2, but never more layers than the first leaves (1 layer on 3+ stages: 1, 0, 0)
    last_many = (last_rule <= rest) * last_rule + (last_rule > rest) * rest
    many = pp_safe > 2
    middle_total = layers - first_many - last_many
    middle = -(-middle_total // (pp_safe - 2 + (pp_safe <= 2) * (3 - pp_safe)))  # ceil(/max(pp - 2, 1))
    single = pp_safe == 1
    two = pp_safe == 2
    first = single * layers + (1 - single) * first_many
    last = single * layers + two * (layers - first_many) + many * last_many
    mid = many * middle
    return first, mid, last


def _is_scalar(value: Any) -> bool:
    """True unless ``value`` is a numpy array: a plain number (a numpy scalar too, as indexing an array gives), checked
    as a number by the array-generic methods below; an array is checked element by element (:func:`_check_arg`). The
    planner's vectorised search calls their unchecked kernels, whose columns may hold rows a gate has refused."""
    return not is_numpy_array(value)


def _check_arg(name: str, value: Any, *, integer: bool, ge: float | None = None, le: float | None = None) -> None:
    """A public method's argument: a number checked as :func:`check_int` or :func:`check_number` checks it, a numpy
    array element by element the same way (:func:`check_int_column`, :func:`check_number_column`: int64 or float64,
    not masked, each element finite and in range), so a column never gives a number where one of its values alone
    is refused. The planner's search calls the unchecked kernels (``_kv_width_per_rank`` ...), never these."""
    if _is_scalar(value):
        if integer:
            check_int(name, value, ge=None if ge is None else int(ge), le=None if le is None else int(le))
        else:
            check_number(name, value, ge=ge, le=le)
    elif integer:
        check_int_column(name, value, ge=None if ge is None else int(ge), le=None if le is None else int(le))
    else:
        check_number_column(name, value, ge=ge, le=le)


def _check_stage_args(layers: int, pp: Any, edge_layers: Any, last_edge_layers: Any = None) -> None:
    """A plain number given for ``pp``, ``edge_layers`` or ``last_edge_layers`` must be an int in range, and edges
    that would leave a stage fewer than no layers are refused (:func:`_check_stage_counts`). An array is checked element
    by element, its range (:func:`_check_arg`) and its stage counts alike: the first element whose split a plain number
    would refuse is refused with the same message, so a column never gives stage parameters where one of its values
    alone is refused (fuzz pass 23: ``stage_dense_params(np.array([8]), 0, 3)`` on GPT-2 small gave a last stage of
    -1 layers). The planner's vectorised search calls the unchecked kernels, and gates such stages itself."""
    _check_arg("pp", pp, integer=True, ge=1, le=1 << 20)
    _check_arg("edge_layers", edge_layers, integer=True, ge=0, le=1 << 16)
    if last_edge_layers is not None:
        _check_arg("last_edge_layers", last_edge_layers, integer=True, ge=0, le=1 << 16)
    check_column_shapes(pp=pp, edge_layers=edge_layers, last_edge_layers=last_edge_layers)
    if all(_is_scalar(value) for value in (pp, edge_layers, last_edge_layers)):
        _check_stage_counts(layers, pp, edge_layers, last_edge_layers)
        return
    import numpy as np

    last_given = edge_layers if last_edge_layers is None else last_edge_layers
    columns = np.broadcast_arrays(*(np.asarray(value) for value in (pp, edge_layers, last_given)))
    counts = stage_layer_counts(layers, *columns)
    short = np.minimum(np.minimum(counts[0], counts[1]), counts[2]) < 0
    if bool(np.any(short)):  # the first such element, refused as that plain number would be
        where = np.unravel_index(int(np.argmax(short)), short.shape)
        pp_at, edge_at, last_at = (int(column[where]) for column in columns)
        _check_stage_counts(layers, pp_at, edge_at, None if last_edge_layers is None else last_at)


def _check_stage_counts(
    layers: int, pp: int, edge_layers: int, last_edge_layers: int | None = None
) -> tuple[int, int, int]:
    """:func:`stage_layer_counts` of checked plain ints, as ints; ``ValueError`` naming the edges when a stage would
    hold fewer than no layers (zero layers is a malformed stage the planner's ``pp_layers`` gate names).

    >>> _check_stage_counts(32, 4, 100)
    Traceback (most recent call last):
    ...
    ValueError: edge_layers = 100: with 32 layers in 4 pipeline stages the first and last stages would hold -42 \
layers; a stage holds at least 0 layers, so use a smaller edge_layers.
    """
    first, mid, last = (int(x) for x in stage_layer_counts(layers, pp, edge_layers, last_edge_layers))
    if min(first, mid, last) >= 0:
        return first, mid, last
    if last_edge_layers is None or last_edge_layers == edge_layers:
        stage = min(first, last)
        raise ValueError(tr("planner.edge_layers_negative", edge=edge_layers, layers=layers, pp=pp, stage=stage))
    raise ValueError(
        tr(
            "planner.edge_layers_negative_asymmetric",
            edge=edge_layers,
            last_edge=last_edge_layers,
            layers=layers,
            pp=pp,
            first=first,
            mid=mid,
            last=last,
        )
    )


# --------------------------------------------------------------------------- what one layer saves


@dataclass(frozen=True)
class LayerWidths:
    """Per-token widths (elements) of the tensors one transformer layer saves for backward.

    Fields:
        hidden: h, the residual stream.
        heads: attention (query) heads a.
        qk_head_dim, v_head_dim: per-head widths of Q/K and of V (both h/a in a plain model).
        kv_heads: heads of K and V as the attention core reads them (GQA: fewer than ``heads``; MLA: ``heads``,
            because its up-projection expands them).
        latent_width: MLA only: the saved latents (the q latent and its norm input, the kv latent with the rope
            key and its norm input), computed by the un-split down projections, so kept whole on every TP rank.
        mlp_split: inner MLP elements per token that tensor parallelism splits (GELU 2·f, SwiGLU 3·f; MoE: the
            routed copies' inner activations plus the shared experts').
        mlp_replicated: MoE only: elements per token kept whole on every TP rank unless sequence parallelism
            splits the tokens (each routed copy's expert input and output, the fp32 router probabilities).
        dropout: dropout layers are on (masks are saved).
        mlp_down_inputs: of ``mlp_split``, the elements that are the down projections' inputs (GELU and SwiGLU:
            f; MoE: one expert width per routed copy and per shared expert). An FP8 run saves them at 1 byte.
        latent_linear_inputs: MLA only: of ``latent_width``, the latent norms' outputs, which the up projections
            read (q_lora + kv_lora); an FP8 run saves them at 1 byte.
        moe_expert_inputs: MoE only: of ``mlp_replicated``, the routed copies' expert inputs (copies · h); an FP8
            run saves them at 1 byte.
        router: MoE only: the MLP input also feeds the router, a plain matmul that keeps it in bf16.
        shared_expert_input: MoE only: shared experts read the MLP input through their own linear layer (an FP8
            run saves one more 1-byte copy of it).
        moe_act_width: MoE only: of ``mlp_down_inputs``, the routed copies' (copies · expert width): the output of
            the routed experts' activation function, which module-level recomputation ``"moe_act"`` discards.

    The five fields after ``dropout`` up to ``shared_expert_input`` matter only at FP8
    (:mod:`coursekit.activations`); their defaults (0, ``False``) keep those tensors at 16 bits.

    >>> LayerWidths(hidden=1024, heads=8, qk_head_dim=128, v_head_dim=128, kv_heads=2, mlp_split=3 * 4096).kv_heads
    2

    The widths are data (a model gives them with :meth:`ModelSpec.layer_widths`); what they cost in bytes is
    :mod:`coursekit.activations`.

    Taught in: lesson 1 (Q1 capacity).
    """

    hidden: int
    heads: int
    qk_head_dim: int
    v_head_dim: int
    kv_heads: int
    latent_width: int = 0
    mlp_split: float = 0
    mlp_replicated: float = 0
    dropout: bool = False
    mlp_down_inputs: float = 0
    latent_linear_inputs: int = 0
    moe_expert_inputs: float = 0
    router: bool = False
    shared_expert_input: bool = False
    moe_act_width: float = 0

    def __post_init__(self) -> None:
        # Numbers (numpy scalars too) are checked, each by its field's name; arrays, the columns a vectorised caller
        # passes (``coursekit.activations`` on a sweep of widths), are the caller's to check.
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name in ("dropout", "router", "shared_expert_input"):
                check_bool(item.name, value)
            elif _is_scalar(value):
                # head widths may be 0: Korthikanti's widths take h // a, which a learner's h < a makes 0
                low = 1 if item.name in ("hidden", "heads", "kv_heads") else 0
                check_number(item.name, value, ge=low, le=MAX_INT)


# --------------------------------------------------------------------------- the three specs

#: ``ModelSpec(kv_heads=None)`` (the default) means as many KV heads as query heads.
_SAME_AS_HEADS: Any = None


@learner_arguments(hint="planner.model_from_config_hint")
@dataclass(frozen=True)
class ModelSpec:
    """A transformer's shape, enough to count its parameters, FLOPs, activations and traffic.

    Parameters:
        name: a label.
        layers, hidden, heads: L, h, a; ``heads`` divides ``hidden`` unless ``head_dim`` is given.
        kv_heads: key/value heads (grouped-query attention); divides ``heads``. ``None`` (the default) = ``heads``:
            resolved when the spec is built, so ``model.kv_heads`` is always an int.
        ffn_hidden: the MLP's inner width f (dense layers, and experts unless ``moe_ffn_hidden``).
        vocab: vocabulary size V.
        seq_len: the context length the model was trained with (the workload's default).
        mlp: ``"swiglu"`` (3 matrices h×f) or ``"gelu"`` (2 matrices).
        norm: ``"rmsnorm"`` (h parameters) or ``"layernorm"`` (2h).
        position: ``"rope"`` (no parameters) or ``"learned"`` (seq_len × h).
        biases: linear layers carry biases (GPT-2/3, Megatron GPT) or not (Llama, Mixtral).
        qkv_biases: only the Q, K and V projections carry biases, a·hd + 2·kv·hd a layer (Qwen2 and Qwen2.5: their
            output projection and MLP have none); implied by ``biases``, which puts biases on every linear layer.
        tied_embeddings: the output layer reuses the input embedding.
        num_experts, top_k, moe_ffn_hidden: MoE layers with ``num_experts`` routed experts of width
            ``moe_ffn_hidden``, ``top_k`` routed per token; 0 and 0 for a dense model.
        source: where the numbers come from.
        head_dim: width of one attention head; ``None`` = hidden / heads (Gemma-style models differ).
        dropout: dropout probability; > 0 means the layers save dropout masks (Megatron's GPT: 0.1; Llama: 0).
        shared_experts: experts every token passes through besides its routed ones (DeepSeek-V3: 1), each
            ``moe_ffn_hidden`` wide.
        first_k_dense: the first layers keep a dense MLP of width ``ffn_hidden`` (DeepSeek-V3: 3).
        capacity_factor: each expert processes at most capacity_factor × its even share of the routed tokens
            (padded to it; Switch Transformer, Fedus et al. 2021, §2.2); ``None`` = dropless. It sizes the
            MoE activations (:meth:`layer_widths`) and, in the planner's estimate, the experts' matmuls, the token
            permutation and the all-to-all dispatcher's buffers (:func:`coursekit.planner.estimate.routed_copies`).
        q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim: multi-head latent
            attention (DeepSeek-V2, arXiv:2405.04434, §2.1): set ``kv_lora_rank`` to use it; the query and key
            heads are qk_nope + qk_rope wide, the value heads v_head_dim; ``q_lora_rank`` ``None`` = a full-rank
            query projection. :attr:`attention_kind` says ``"mha"``, ``"gqa"`` or ``"mla"``.
        mtp_layers: multi-token prediction modules trained beside the model (DeepSeek-V3, arXiv:2412.19437, §2.2:
            D = 1), each predicting one more token ahead: two norms and a 2h → h projection that join the previous
            depth's hidden state with the next token's embedding, one transformer block (an MoE layer in an MoE
            model), and the output layer and embedding shared with the model. Training only: they sit on the last
            pipeline stage (Megatron-Core's ``--mtp-num-layers``; the layout ``...mL``), and their weights,
            :attr:`mtp_params`, are not in :attr:`num_params` (DeepSeek-V3's 671B leave out its 14B-weight module).
        window_tokens, window_layers: sliding-window attention (Mistral 7B, Jiang et al. 2023, §2; Gemma 2 and 3;
            GPT-OSS): on ``window_layers`` of the layers a query attends only the last ``window_tokens`` tokens,
            itself included (transformers' ``sliding_window``); ``None`` and 0 (the default) = every layer attends
            the whole causal sequence. Give both or neither. They change attention's FLOPs
            (:meth:`attention_span`, :meth:`attended_keys`) and the serving KV cache (:meth:`kv_token_layers`),
            not the parameters.
        chunk_tokens, chunk_layers: chunked attention (Llama 4: 8192-token chunks on 3 of every 4 layers, the ones
            with rotary positions; transformers' ``attention_chunk_size``): the sequence is cut into chunks of
            ``chunk_tokens`` tokens from its start, and on ``chunk_layers`` of the layers a query attends only the
            earlier tokens of its own chunk, itself included. Give both or neither, and not with a window. Like a
            window they change attention's FLOPs and the serving KV cache, not the parameters.

    ``head_dim``, ``kv_heads``, ``qk_nope_head_dim`` and ``v_head_dim`` left at ``None`` are stored resolved, so
    :func:`dataclasses.replace` copies them as they are: ``dataclasses.replace(spec, hidden=2048)`` keeps the old
    head_dim. :meth:`replace` derives again those the spec holds at their derived value.

    Parameter count (:attr:`num_params`), with hd = head_dim and kv = kv_heads·hd:

    * embeddings: V·h, plus seq_len·h for learned positions; output layer V·h unless tied;
    * attention per layer: h·a·hd (Q) + 2·h·kv (K, V) + a·hd·h (O), plus biases a·hd + 2·kv + h (with
      ``qkv_biases`` alone: a·hd + 2·kv); MLA as
      :attr:`attention_params_per_layer` says;
    * MLP per layer: 3·h·f (SwiGLU) or 2·h·f (GELU), plus biases (f + h for GELU, 2f + h for SwiGLU);
    * norms: two per layer and a final one, 2h each (LayerNorm) or h (RMSNorm);
    * MoE: in all but the first ``first_k_dense`` layers the MLP is replaced by ``num_experts`` routed and
      ``shared_experts`` shared expert MLPs of width ``moe_ffn_hidden`` and a router h·num_experts;
      :attr:`active_params` counts ``top_k`` routed experts instead of all.

    With GELU, f = 4h, biases and LayerNorm this is Megatron-LM's 12·L·h² + 13·L·h + (V + s)·h
    plus the final norm's 2h (see :func:`megatron_paper_param_count`).

    >>> gpt2 = ModelSpec("gpt2-small", layers=12, hidden=768, heads=12, ffn_hidden=3072, vocab=50257,
    ...                  seq_len=1024, mlp="gelu", norm="layernorm", position="learned", biases=True,
    ...                  tied_embeddings=True)
    >>> gpt2.num_params
    124439808

    Taught in: lesson 9 (decision workbench).
    """

    name: str
    layers: int
    hidden: int
    heads: int
    ffn_hidden: int
    vocab: int
    seq_len: int
    kv_heads: int = _SAME_AS_HEADS
    mlp: str = "swiglu"
    norm: str = "rmsnorm"
    position: str = "rope"
    biases: bool = False
    tied_embeddings: bool = False
    num_experts: int = 0
    top_k: int = 0
    moe_ffn_hidden: int | None = None
    source: str = ""
    head_dim: int = _SAME_AS_HEADS
    dropout: float = 0.0
    shared_experts: int = 0
    first_k_dense: int = 0
    capacity_factor: float | None = None
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = _SAME_AS_HEADS
    v_head_dim: int = _SAME_AS_HEADS
    mtp_layers: int = 0
    window_tokens: int | None = None
    window_layers: int = 0
    chunk_tokens: int | None = None
    chunk_layers: int = 0
    qkv_biases: bool = False

    def __post_init__(self) -> None:
        _plain_fields(self)
        raw: Any = self
        _check_name("name", raw.name)
        for attr in ("layers", "hidden", "heads", "ffn_hidden", "vocab", "seq_len"):
            check_int(attr, getattr(raw, attr), ge=1, le=MAX_SEQ_LEN if attr in ("vocab", "seq_len") else 1 << 20)
        if raw.head_dim is None:
            check_divides("heads", raw.heads, "hidden", raw.hidden)
            object.__setattr__(self, "head_dim", raw.hidden // raw.heads)
        check_int("head_dim", self.head_dim, ge=1, le=1 << 16)
        self._check_mla(raw)
        if raw.kv_heads is None:
            object.__setattr__(self, "kv_heads", raw.heads)
        object.__setattr__(self, "kv_heads", check_int("kv_heads", self.kv_heads, ge=1))
        check_divides("kv_heads", self.kv_heads, "heads", raw.heads)
        check_choice("mlp", raw.mlp, MLP_KINDS)
        check_choice("norm", raw.norm, NORM_KINDS)
        check_choice("position", raw.position, POSITION_KINDS)
        check_bool("biases", raw.biases)
        check_bool("tied_embeddings", raw.tied_embeddings)
        check_bool("qkv_biases", raw.qkv_biases)
        experts = check_int("num_experts", raw.num_experts, ge=0, le=1 << 16)
        top_k = check_int("top_k", raw.top_k, ge=0)
        if (experts > 0) != (1 <= top_k <= experts) or (experts == 0 and top_k != 0):
            raise ValueError(tr("planner.moe_top_k", top_k=top_k, experts=experts))
        if raw.moe_ffn_hidden is not None:
            check_int("moe_ffn_hidden", raw.moe_ffn_hidden, ge=1)
        check_int("shared_experts", raw.shared_experts, ge=0, le=1 << 10)
        check_int("first_k_dense", raw.first_k_dense, ge=0, le=raw.layers - 1 if experts > 0 else 0)
        check_int("mtp_layers", raw.mtp_layers, ge=0, le=1 << 10)
        if experts == 0:  # the expert layers' own settings: a dense model has none, so no number would read them
            for name, default in (("moe_ffn_hidden", None), ("shared_experts", 0), ("capacity_factor", None)):
                value = getattr(raw, name)
                if value != default:
                    raise ValueError(tr("planner.moe_field_dense", name=name, value=value, default=default))
        self._check_window(raw)
        if raw.capacity_factor is not None:
            object.__setattr__(
                self, "capacity_factor", check_number("capacity_factor", raw.capacity_factor, ge=1, le=1 << 10)
            )
        object.__setattr__(self, "dropout", check_number("dropout", raw.dropout, ge=0, lt=1))
        if not isinstance(raw.source, str):
            raise type_error("source", raw.source, "str")

    def _check_window(self, raw: Any) -> None:
        """A sliding window and chunked attention: each a width and a layer count, both or neither; not both."""
        for kind in ("window", "chunk"):
            tokens, layers = getattr(raw, f"{kind}_tokens"), getattr(raw, f"{kind}_layers")
            if tokens is None:
                # an int first (False, 0.0 or -0.0 equal 0 but are no layer count), then the pair rule
                if check_int(f"{kind}_layers", layers, ge=0, le=raw.layers) != 0:
                    raise ValueError(tr(f"planner.{kind}_pair", tokens=None, layers=layers, total=raw.layers))
                continue
            check_int(f"{kind}_tokens", tokens, ge=1, le=MAX_SEQ_LEN)
            check_int(f"{kind}_layers", layers, ge=0, le=raw.layers)
            if layers == 0:
                raise ValueError(tr(f"planner.{kind}_pair", tokens=tokens, layers=0, total=raw.layers))
        if raw.window_tokens is not None and raw.chunk_tokens is not None:
            raise ValueError(tr("planner.window_and_chunk", window=raw.window_tokens, chunk=raw.chunk_tokens))

    def _check_mla(self, raw: Any) -> None:
        """Multi-head latent attention's ranks: all or nothing, positive; the head widths default to head_dim."""
        mla = raw.kv_lora_rank is not None
        if mla:
            check_int("kv_lora_rank", raw.kv_lora_rank, ge=1, le=1 << 16)
            if raw.q_lora_rank is not None:
                check_int("q_lora_rank", raw.q_lora_rank, ge=1, le=1 << 16)
            check_int("qk_rope_head_dim", raw.qk_rope_head_dim, ge=0, le=1 << 16)
        else:
            # an int first (0.0, False or 64.0 equal the defaults but are no widths), then the default
            if raw.q_lora_rank is not None:
                raise ValueError(tr("planner.mla_only", name="q_lora_rank", value=raw.q_lora_rank))
            if check_int("qk_rope_head_dim", raw.qk_rope_head_dim, ge=0, le=1 << 16) != 0:
                raise ValueError(tr("planner.mla_only", name="qk_rope_head_dim", value=raw.qk_rope_head_dim))
        for attr in ("qk_nope_head_dim", "v_head_dim"):
            value = getattr(raw, attr)
            if value is None:
                object.__setattr__(self, attr, self.head_dim)
                continue
            check_int(attr, value, ge=1, le=1 << 16)
            if not mla and value != self.head_dim:  # a copy made by dataclasses.replace carries the resolved head_dim
                raise ValueError(tr("planner.mla_only", name=attr, value=value))

    def replace(self, /, **changes: Any) -> ModelSpec:
        """A copy with ``changes``, as :func:`dataclasses.replace` makes it, except that the widths at their derived
        value and not named in ``changes`` are derived again from the new fields: head_dim = hidden / heads,
        kv_heads = heads, qk_nope_head_dim and v_head_dim = head_dim. (``dataclasses.replace`` copies them as stored,
        so ``dataclasses.replace(spec, hidden=2048)`` keeps the head width the old hidden gave.)

        >>> m = ModelSpec("m", layers=2, hidden=1024, heads=16, ffn_hidden=4096, vocab=1000, seq_len=128)
        >>> wide = m.replace(hidden=2048)  # 2048 / 16 heads
        >>> wide.head_dim, m.replace(heads=8).kv_heads, m.replace(head_dim=128).v_head_dim
        (128, 8, 128)
        """
        derived: dict[str, Any] = {}
        if self.hidden % self.heads == 0 and self.head_dim == self.hidden // self.heads:
            derived["head_dim"] = None
        if self.kv_heads == self.heads:
            derived["kv_heads"] = None
        for attr in ("qk_nope_head_dim", "v_head_dim"):
            if getattr(self, attr) == self.head_dim:
                derived[attr] = None
        return replace(self, **{**derived, **changes})

    # -- shape
    @property
    def kv_hidden(self) -> int:
        """Width of K (and of V): kv_heads · head_dim."""
        return self.kv_heads * self.head_dim

    def kv_width_per_rank(self, tp: Any) -> Any:
        """Width of K (and of V) one TP rank holds: :func:`kv_heads_split` · head_dim; array-generic in ``tp``.

        >>> ModelSpec("gqa", 2, 1024, 16, 4096, 1000, 128, kv_heads=4).kv_width_per_rank(8)  # 4 heads over 8 ranks
        64
        """
        _check_arg("tp", tp, integer=True, ge=1, le=MAX_WORLD_SIZE)
        return self._kv_width_per_rank(tp)

    def _kv_width_per_rank(self, tp: Any) -> Any:
        """:meth:`kv_width_per_rank` without the check (the planner's and the serving ledger's kernels)."""
        return kv_heads_split(self.kv_heads, tp) * self.head_dim

    @property
    def attention_kind(self) -> str:
        """``"mla"`` (multi-head latent attention), ``"gqa"`` (fewer KV heads than heads) or ``"mha"``."""
        if self.kv_lora_rank is not None:
            return "mla"
        return "gqa" if self.kv_heads != self.heads else "mha"

    @property
    def qk_head_dim(self) -> int:
        """Width of one query/key head: head_dim, or for MLA qk_nope_head_dim + qk_rope_head_dim."""
        if self.kv_lora_rank is None:
            return self.head_dim
        return self.qk_nope_head_dim + self.qk_rope_head_dim

    @property
    def value_head_dim(self) -> int:
        """Width of one value head: head_dim, or MLA's v_head_dim."""
        return self.v_head_dim

    @property
    def attention_flops_width(self) -> int:
        """heads · (qk_head_dim + value_head_dim) / 2: the h of attention's 12·L·h·s training FLOPs per token.

        QKᵀ costs 2·s·a·d_qk per token and layer, AV 2·s·a·d_v; with d_qk = d_v = h/a that is 4·s·h.
        MLA (DeepSeek-V2 §2.1) computes them over 192-wide query/key heads and 128-wide value heads.
        """
        return self.heads * (self.qk_head_dim + self.value_head_dim) // 2

    # -- sliding-window and chunked attention
    def attention_span(self, seq_len: Any) -> Any:
        """The s of PaLM's 12·L·h·s attention FLOPs per token for training sequences of ``seq_len`` tokens, as a
        mean over the layers; array-generic.

        PaLM (appendix B) counts every query against all s keys, twice the pairs a causal kernel computes. A layer
        with a sliding window of w tokens computes sum_i min(i, w) pairs instead of s(s+1)/2, so it counts
        s · (window pairs / causal pairs): s while s <= w, about 2w - w²/s beyond. A chunked layer (chunks of C
        tokens) computes q·C(C+1)/2 + r(r+1)/2 pairs, with q whole chunks and r tokens left (s = qC + r), and
        counts s · (chunk pairs / causal pairs). Without either: ``seq_len``.

        >>> m = ModelSpec("swa", layers=2, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8192,
        ...               window_tokens=4, window_layers=1)
        >>> float(m.attention_span(8))  # full layer 8; window layer 8 · (1+2+3+4·5 = 26) / 36 = 5.78
        6.888888888888889
        >>> c = ModelSpec("chunked", layers=2, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8192,
        ...               chunk_tokens=4, chunk_layers=1)
        >>> float(c.attention_span(10))  # full layer 10; chunked layer 10 · (10 + 10 + 3 = 23) / 55 = 4.18
        7.090909090909091
        """
        _check_arg("seq_len", seq_len, integer=False, ge=1, le=MAX_SEQ_LEN)
        return self._attention_span(seq_len)

    def _limited(self) -> tuple[int, float] | None:
        """(layers, tokens) of the window or the chunks (a spec has at most one of them), or None."""
        if self.window_tokens is not None:
            return self.window_layers, float(self.window_tokens)
        if self.chunk_tokens is not None:
            return self.chunk_layers, float(self.chunk_tokens)
        return None

    def _limited_pairs(self, n: Any) -> Any:
        """Query-key pairs one window or chunked layer computes over the first ``n`` tokens of a sequence (each
        query with the keys it attends, itself included); array-generic. Window of w: n(n+1)/2 less the pairs
        farther back than w, (n-w)(n-w+1)/2 when n > w. Chunks of C: q·C(C+1)/2 + r(r+1)/2, n = qC + r. It is also
        the sum over positions 1 to n of the keys one query attends."""
        causal = n * (n + 1) / 2
        if self.window_tokens is not None:
            w = float(self.window_tokens)
            return causal - _elementwise(max, n - w, 0.0) * (n - w + 1) / 2
        c = float(self.chunk_tokens)  # type: ignore[arg-type]
        whole = n // c
        rest = n - whole * c
        return whole * c * (c + 1) / 2 + rest * (rest + 1) / 2

    def _attention_span(self, seq_len: Any) -> Any:
        """:meth:`attention_span` without the check (the planner's and the serving estimate's kernels)."""
        s = seq_len * 1.0
        limited = self._limited()
        if limited is None:
            return s
        count = limited[0]
        causal = s * (s + 1) / 2
        full = self.layers - count
        return (full * s + count * s * self._limited_pairs(s) / causal) / self.layers

    def attended_keys(self, position: Any) -> Any:
        """Keys the query at ``position`` (1-based: the tokens cached before it plus itself) attends, as a mean
        over the layers; array-generic. Full attention: ``position``; a window layer: min(position, window_tokens);
        a chunked layer: the tokens of its own chunk up to it, (position - 1) mod chunk_tokens + 1.

        >>> m = ModelSpec("swa", layers=4, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8192,
        ...               window_tokens=128, window_layers=2)
        >>> float(m.attended_keys(1000)), float(m.attended_keys(100))  # (2·1000 + 2·128) / 4
        (564.0, 100.0)
        >>> c = ModelSpec("chunked", layers=4, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8192,
        ...               chunk_tokens=128, chunk_layers=3)
        >>> float(c.attended_keys(1000))  # (1000 + 3 · (999 mod 128 + 1 = 104)) / 4
        328.0
        """
        _check_arg("position", position, integer=False, ge=1, le=MAX_SEQ_LEN)
        return self._attended_keys(position)

    def _attended_keys(self, position: Any) -> Any:
        """:meth:`attended_keys` without the check."""
        keys = position * 1.0
        if self.window_tokens is not None:
            full = self.layers - self.window_layers
            return (full * keys + self.window_layers * _elementwise(min, keys, self.window_tokens)) / self.layers
        if self.chunk_tokens is not None:
            full = self.layers - self.chunk_layers
            return (full * keys + self.chunk_layers * ((keys - 1) % self.chunk_tokens + 1)) / self.layers
        return keys

    def decode_keys(self, prompt: Any, output: Any) -> Any:
        """Keys a decoding query attends for a request of ``prompt`` tokens that generates ``output`` more, as a
        mean over the layers and the output tokens; array-generic. The serving estimate's decode step counts
        attention's FLOPs and KV reads with it.

        Full attention and a window take the middle query, :meth:`attended_keys` at prompt + output / 2 (for full
        attention half a key below the mean over the queries at prompt + 1 to prompt + output; a window's mean of
        min(position, w) differs only where the output crosses w). A chunked layer's keys fall back to 1 at each
        chunk's start, so it takes the exact mean over those queries, from the chunk pairs
        (:meth:`attention_span`'s count): (pairs(prompt + output) - pairs(prompt)) / output.

        >>> c = ModelSpec("chunked", layers=4, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8192,
        ...               chunk_tokens=128, chunk_layers=3)
        >>> float(c.decode_keys(120, 16))  # full: 128; chunked: (121..128, then 1..8) mean 64.5
        80.375
        """
        _check_arg("prompt", prompt, integer=False, ge=1, le=MAX_SEQ_LEN)
        _check_arg("output", output, integer=False, ge=1, le=MAX_SEQ_LEN)
        check_column_shapes(prompt=prompt, output=output)
        return self._decode_keys(prompt, output)

    def _decode_keys(self, prompt: Any, output: Any) -> Any:
        """:meth:`decode_keys` without the checks (the serving estimate's kernel)."""
        middle = prompt + output / 2
        if self.chunk_tokens is None:
            return self._attended_keys(middle)
        full = self.layers - self.chunk_layers
        end = prompt + output * 1.0
        chunked = (self._limited_pairs(end) - self._limited_pairs(prompt * 1.0)) / output
        return (full * middle + self.chunk_layers * chunked) / self.layers

    def kv_token_layers(self, tokens: Any, pp: Any = 1, requests: Any = 1) -> Any:
        """Token-layers of KV cache on the fullest pipeline stage for ``tokens`` cached tokens over ``requests``
        requests; array-generic.

        Without a window or chunks: ceil(layers / pp) · tokens. A window layer keeps at most the last
        ``window_tokens`` of each request (an engine that frees what leaves the window: vLLM's hybrid KV cache
        manager, SGLang's), so at most min(tokens, requests · window_tokens); a chunked layer keeps at most the
        current chunk of each request, min(tokens, requests · chunk_tokens) (vLLM frees a past chunk's blocks the
        same way). The fullest stage holds ceil(layers / pp) layers, of them ceil(full layers / pp) with full
        attention (the limited layers are spread through the model: Gemma's one full layer in 6, GPT-OSS's
        alternate layers, Llama 4's one in 4).

        >>> m = ModelSpec("swa", layers=4, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8192,
        ...               window_tokens=128, window_layers=2)
        >>> m.kv_token_layers(1000), m.kv_token_layers(1000, pp=2), m.kv_token_layers(4000, requests=4)
        (2256, 1128, 9024)
        """
        _check_arg("tokens", tokens, integer=False, ge=0, le=MAX_INT)
        if _is_scalar(tokens):
            tokens = tokens + 0  # -0.0 counts as 0
        _check_arg("pp", pp, integer=True, ge=1, le=self.layers)
        _check_arg("requests", requests, integer=True, ge=1, le=MAX_INT)
        check_column_shapes(tokens=tokens, pp=pp, requests=requests)
        return self._kv_token_layers(tokens, pp, requests)

    def _kv_token_layers(self, tokens: Any, pp: Any = 1, requests: Any = 1) -> Any:
        """:meth:`kv_token_layers` without the checks (the serving ledger's kernel)."""
        per_stage = -(-self.layers // pp)
        if self.window_tokens is not None:
            count, cap = self.window_layers, self.window_tokens
        elif self.chunk_tokens is not None:
            count, cap = self.chunk_layers, self.chunk_tokens
        else:
            return per_stage * tokens
        full = _elementwise(min, -(-(self.layers - count) // pp), per_stage)
        limited = _elementwise(min, tokens, requests * cap)
        return full * tokens + (per_stage - full) * limited

    def kv_cache_elements_per_token(self, tp: Any = 1) -> Any:
        """Cached elements per token and layer on one TP rank; array-generic in ``tp``.

        MHA/GQA: 2 (K and V) · ceil(kv_heads / tp) · head_dim. MLA caches the compressed latent and the
        shared rope key, kv_lora_rank + qk_rope_head_dim, whole on every TP rank (DeepSeek-V2,
        arXiv:2405.04434, §2.1.2 and Table 1: (d_c + d_h^R)·l elements per token).

        >>> from coursekit.presets import MODELS
        >>> MODELS["deepseek-v3"].kv_cache_elements_per_token(), MODELS["llama3-70b"].kv_cache_elements_per_token(8)
        (576, 256)
        """
        _check_arg("tp", tp, integer=True, ge=1, le=MAX_WORLD_SIZE)
        return self._kv_cache_elements_per_token(tp)

    def _kv_cache_elements_per_token(self, tp: Any) -> Any:
        """:meth:`kv_cache_elements_per_token` without the check (the serving ledger's kernel)."""
        if self.kv_lora_rank is not None:
            return self.kv_lora_rank + self.qk_rope_head_dim + 0 * tp
        return 2 * self._kv_width_per_rank(tp)

    def position_table_note(self, tokens: int) -> Text | None:
        """A note when sequences of ``tokens`` tokens (a training sequence, or a request's prompt plus output) are
        longer than a learned position table holds (GPT-2/3 style): such a model cannot run them as given, and the
        ledgers still count the given model's table. ``None`` for rotary positions or sequences that fit.

        >>> from coursekit.presets import MODELS
        >>> print(MODELS["gpt2-small"].position_table_note(2048).render("en"))  # doctest: +NORMALIZE_WHITESPACE
        gpt2-small's position embedding is a learned table of 1024 positions; sequences of 2048 tokens need a model
        with 2048 positions (786,432 more parameters) or rotary positions (RoPE). The estimate still counts the given
        model's parameters (1024 positions).
        >>> MODELS["gpt2-small"].position_table_note(1024) is None, MODELS["llama3-8b"].position_table_note(65536)
        (True, None)
        """
        tokens = check_int("tokens", tokens, ge=1)
        if self.position != "learned" or tokens <= self.seq_len:
            return None
        extra = (tokens - self.seq_len) * self.hidden
        positions = Count(self.seq_len)
        return Text(
            zh=f"{self.name} 的位置嵌入 (position embedding) 是学出来的一张表，只有 {positions} 个位置；每条序列 "
            f"{tokens} 个 token 要一个有 {tokens} 个位置的模型（多 {extra:,} 个参数），或者换成旋转位置编码 (RoPE)。"
            f"估算仍按给定的模型（{positions} 个位置）计参数。",
            en=f"{self.name}'s position embedding is a learned table of {positions:@position}; sequences of {tokens} "
            f"tokens need a model with {tokens} positions ({extra:,} more parameters) or rotary positions (RoPE). The "
            f"estimate still counts the given model's parameters ({positions:@position}).",
        )

    def window_note(self, tokens: int, serving: bool = False) -> Text | None:
        """What the estimate counts and assumes for a model with sliding-window layers, at sequences (training) or
        requests (``serving``: prompt plus output) of ``tokens`` tokens; the same for chunked attention; ``None``
        without either.

        >>> m = ModelSpec("swa", layers=4, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8192,
        ...               window_tokens=128, window_layers=2)
        >>> print(m.window_note(4096).render("en"))  # doctest: +NORMALIZE_WHITESPACE
        2 of 4 layers of swa attend a sliding window of the last 128 tokens: attention's FLOPs count only the
        query-key pairs inside it (12·L·h·s with s = 2174, not 4096). Assumed: the attention kernel runs as fast on
        the window as on a whole sequence; context parallelism's ring passes every layer's keys and values as for
        full attention.
        """
        tokens = check_int("tokens", tokens, ge=1)
        serving = check_bool("serving", serving)
        if self.chunk_tokens is not None:
            return self._chunk_note(tokens, serving)
        if self.window_tokens is None:
            return None
        w, count, span = Count(self.window_tokens), self.window_layers, float(self._attention_span(tokens))
        layers = Count(self.layers)
        if serving:
            return Text(
                zh=f"{self.name} 的 {layers} 层中有 {count} 层用滑动窗口注意力，只看最近 {w} 个 token：这些层的"
                f"注意力 FLOP 与读取只算窗口内的 token，KV 缓存每个请求最多存 {w} 个 token（按会释放窗口外 token 的推理"
                "引擎计，如 vLLM 的混合 KV 缓存管理器；把整个上下文都留在显存里的引擎要多存）。",
                en=f"{count} of {layers:@layer} of {self.name} attend a sliding window of the last {w:@token}: their "
                "attention FLOPs and reads count only the tokens inside it, and their KV cache holds at most "
                f"{w:@token} per request (an engine that frees what leaves the window, as vLLM's hybrid KV cache "
                "manager does; an engine that keeps the whole context needs more).",
            )
        return Text(
            zh=f"{self.name} 的 {layers} 层中有 {count} 层用滑动窗口注意力，只看最近 {w} 个 token：注意力 FLOP "
            f"只算窗口内的查询-键对（12·L·h·s 中 s = {span:.0f}，而不是 {tokens}）。假设：注意力内核在窗口上与整段"
            "序列上一样快；上下文并行 (CP) 的环按全注意力传递每层的 K 与 V。",
            en=f"{count} of {layers:@layer} of {self.name} attend a sliding window of the last {w:@token}: "
            f"attention's FLOPs count only the query-key pairs inside it (12·L·h·s with s = {span:.0f}, not {tokens}). "
            "Assumed: the attention kernel runs as fast on the window as on a whole sequence; context parallelism's "
            "ring passes every layer's keys and values as for full attention.",
        )

    def _chunk_note(self, tokens: int, serving: bool) -> Text:
        """:meth:`window_note` for a model with chunked-attention layers."""
        c, count, span = Count(self.chunk_tokens), self.chunk_layers, float(self._attention_span(tokens))
        layers = Count(self.layers)
        if serving:
            return Text(
                zh=f"{self.name} 的 {layers} 层中有 {count} 层用分块注意力 (chunked attention)，每块 {c} 个 "
                "token，查询只看本块内在它之前的 token：这些层的注意力 FLOP 与读取只算本块内的 token"
                f"（解码时按输出 token 的平均计），KV 缓存每个请求最多存 {c} 个 token（按会释放前面各块的推理引擎计，"
                "如 vLLM；把整个上下文都留在显存里的引擎要多存）。",
                en=f"{count} of {layers:@layer} of {self.name} use chunked attention in chunks of {c:@token}, a query "
                "attending only the earlier tokens of its own chunk: their attention FLOPs and reads count only those "
                f"tokens (averaged over the output tokens when decoding), and their KV cache holds at most {c:@token} "
                "per request (an engine that frees the earlier chunks, as vLLM does; an engine that keeps the "
                "whole context needs more).",
            )
        return Text(
            zh=f"{self.name} 的 {layers} 层中有 {count} 层用分块注意力 (chunked attention)，每块 {c} 个 token："
            f"注意力 FLOP 只算块内的查询-键对（12·L·h·s 中 s = {span:.0f}，而不是 {tokens}）。假设：注意力内核在短块"
            "上与整段序列上一样快；上下文并行 (CP) 的环按全注意力传递每层的 K 与 V。",
            en=f"{count} of {layers:@layer} of {self.name} use chunked attention in chunks of {c:@token}: "
            f"attention's FLOPs count only the query-key pairs inside a chunk (12·L·h·s with s = {span:.0f}, not "
            f"{tokens}). Assumed: the attention kernel runs as fast on a chunk as on a whole sequence; context "
            "parallelism's ring passes every layer's keys and values as for full attention.",
        )

    def layer_widths(self, kind: str | None = None) -> LayerWidths:
        """What one layer saves for backward, as widths per token (:class:`coursekit.activations.LayerWidths`).

        Attention: Q a·d_qk, K and V kv_heads·d_qk and kv_heads·d_v (GQA), or for MLA K and V expanded to
        every head plus the latents (the q and kv latents' norm inputs and outputs, 2·q_lora + 2·kv_lora).
        MLP: GELU 2·f, SwiGLU 3·f (:data:`MLP_KINDS`). An MoE layer saves, per routed copy of a token
        (top_k of them, times the capacity factor when experts are padded to capacity), the expert's input
        and output (2·h, whole on every TP rank unless sequence parallelism splits the tokens) and its inner
        activations (2 or 3 × the expert width), the shared experts' inner activations, and the fp32 router
        probabilities (4 bytes = 2 elements per expert). ``kind`` picks the layer: ``"dense"`` (an MLP of
        ``ffn_hidden``), ``"moe"`` (the experts; a mixture-of-experts model only) or ``None``, the model's own: an
        MoE layer, or with dense layers first the heavier of the two kinds (what the planner counts for a pipeline
        stage whose mix of kinds it does not know, :meth:`stage_layer_kinds`).

        >>> from coursekit.presets import MODELS
        >>> w = MODELS["llama3-8b"].layer_widths()
        >>> w.kv_heads, w.mlp_split, w.dropout
        (8, 43008, False)
        """
        if kind is not None and not isinstance(kind, str):
            raise type_error("kind", kind, "str or None")
        if kind not in (None, "dense", "moe"):
            raise ValueError(tr("planner.layer_kind", value=kind))
        if kind == "moe" and not self.is_moe:
            raise ValueError(tr("planner.layer_kind_moe"))
        inner = 3 if self.mlp == "swiglu" else 2  # saved inner tensors of MLP width: GELU 2, SwiGLU 3
        dense_split: float = inner * self.ffn_hidden
        down_inputs: float = self.ffn_hidden
        replicated: float = 0
        expert_inputs: float = 0
        act_width: float = 0
        moe_layer = False
        if self.is_moe and kind != "dense":
            width = self.moe_ffn_hidden or self.ffn_hidden
            copies = self.top_k * (self.capacity_factor or 1)
            moe_split = copies * inner * width + self.shared_experts * inner * width
            moe_replicated = copies * 2 * self.hidden + 2 * self.num_experts
            if kind == "moe" or not self.first_k_dense or moe_split + moe_replicated >= dense_split:
                dense_split, replicated, moe_layer = moe_split, moe_replicated, True
                down_inputs, expert_inputs = (copies + self.shared_experts) * width, copies * self.hidden
                act_width = copies * width
        mla = self.kv_lora_rank is not None
        return LayerWidths(
            hidden=self.hidden,
            heads=self.heads,
            qk_head_dim=self.qk_head_dim,
            v_head_dim=self.value_head_dim,
            kv_heads=self.heads if mla else self.kv_heads,
            latent_width=2 * (self.q_lora_rank or 0) + 2 * (self.kv_lora_rank or 0),
            mlp_split=dense_split,
            mlp_replicated=replicated,
            dropout=self.dropout > 0,
            mlp_down_inputs=down_inputs,
            latent_linear_inputs=(self.q_lora_rank or 0) + (self.kv_lora_rank or 0),
            moe_expert_inputs=expert_inputs,
            router=moe_layer,
            shared_expert_input=moe_layer and self.shared_experts > 0,
            moe_act_width=act_width,
        )

    @classmethod
    def from_config(cls, config: Any, name: str | None = None) -> ModelSpec:
        """A spec from a Hugging Face ``config.json`` dict (the keys :mod:`coursekit.model_config` lists).

        A missing key or a wrong value raises ``ValueError`` naming the key, in the learner's language.

        >>> m = ModelSpec.from_config({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32,
        ...     "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
        ...     "max_position_embeddings": 32768, "num_local_experts": 8, "num_experts_per_tok": 2,
        ...     "tie_word_embeddings": False})
        >>> round(m.num_params / 1e9, 1), round(m.active_params / 1e9, 1)
        (46.7, 12.9)

        Taught in: lesson 9 (decision workbench).
        """
        fields = model_fields_from_config(config, name)
        try:
            return cls(**fields)
        except (TypeError, ValueError) as exc:  # name the config key the refused field was read from
            raise spec_error(config, exc) from exc

    @property
    def moe_layers(self) -> int:
        """Layers whose MLP is a mixture of experts: all but the first ``first_k_dense`` (0 for a dense model)."""
        return self.layers - self.first_k_dense if self.is_moe else 0

    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts model."""
        return self.num_experts > 0

    @property
    def kind(self) -> str:
        """``"moe"`` or ``"dense"`` (the structure gate's vocabulary)."""
        return "moe" if self.is_moe else "dense"

    def as_moe(self, num_experts: int = 8, top_k: int = 2) -> ModelSpec:
        """The what-if "same model, but every MLP is ``num_experts`` experts with ``top_k`` routed per token".

        >>> moe = ModelSpec("tiny", 2, 64, 4, 256, 1000, 128).as_moe(8, 2)
        >>> moe.kind, moe.name, moe.active_params < moe.num_params
        ('moe', 'tiny-moe8x2', True)
        """
        experts = check_int("num_experts", num_experts, ge=1)
        k = check_int("top_k", top_k, ge=1)
        return replace(
            self, name=f"{self.name}-moe{experts}x{k}", num_experts=experts, top_k=k, moe_ffn_hidden=self.ffn_hidden
        )

    # -- parameter ledger
    def _norm_params(self) -> int:
        return 2 * self.hidden if self.norm == "layernorm" else self.hidden

    def _mlp_weights(self, width: int) -> int:
        """Weights of an MLP ``width`` wide: three h×f matrices (SwiGLU) or two (GELU)."""
        return (3 if self.mlp == "swiglu" else 2) * self.hidden * width

    def _mlp_params(self, width: int) -> int:
        h = self.hidden
        biases = ((2 * width + h) if self.mlp == "swiglu" else (width + h)) if self.biases else 0
        return self._mlp_weights(width) + biases

    def _attention_weights(self) -> int:
        """Weights of the attention projections (MLA: its down and up projections), without biases or norms."""
        h, a = self.hidden, self.heads
        if self.kv_lora_rank is None:
            return 2 * h * a * self.head_dim + 2 * h * self.kv_hidden
        d_qk, d_v, rank_q, rank_kv = self.qk_head_dim, self.value_head_dim, self.q_lora_rank, self.kv_lora_rank
        query = h * a * d_qk if rank_q is None else h * rank_q + rank_q * a * d_qk
        latent = h * (rank_kv + self.qk_rope_head_dim)
        up = rank_kv * a * (self.qk_nope_head_dim + d_v)
        return query + latent + up + a * d_v * h

    @property
    def attention_params_per_layer(self) -> int:
        """Q, K, V, O projections (GQA-aware) and their biases; for MLA its down/up projections and latent norms.

        MHA/GQA: h·(a·hd) for Q and for O, h·(kv·hd) for K and for V, plus biases a·hd + 2·kv·hd + h (Q, K and V
        alone, a·hd + 2·kv·hd, with ``qkv_biases``).
        MLA (DeepSeek-V2, arXiv:2405.04434, §2.1.2-2.1.3): Q through a rank-q_lora latent
        (h·q_lora + q_lora·a·d_qk, or h·a·d_qk without one), the KV latent and the shared rope key
        h·(kv_lora + d_rope), its up-projection kv_lora·a·(d_nope + d_v), O a·d_v·h, and a norm on each latent.
        """
        h = self.hidden
        if self.kv_lora_rank is None:
            q, kv = self.heads * self.head_dim, self.kv_hidden
            biases = (q + 2 * kv + h) if self.biases else (q + 2 * kv) if self.qkv_biases else 0
            return self._attention_weights() + biases
        unit = self._norm_params() // h  # parameters per normalised element: 1 (RMSNorm) or 2 (LayerNorm)
        latent_norms = unit * ((self.q_lora_rank or 0) + self.kv_lora_rank)
        return self._attention_weights() + latent_norms

    @property
    def expert_params(self) -> int:
        """Parameters of one expert MLP (0 for a dense model); shared experts have the same width."""
        if not self.is_moe:
            return 0
        return self._mlp_params(self.moe_ffn_hidden or self.ffn_hidden)

    @property
    def dense_params_per_layer(self) -> int:
        """Per-layer parameters every token uses: attention, norms, and the MLP (dense) or the router and the
        shared experts (MoE). With dense layers before the MoE layers it is the heavier of the two kinds: what a
        layer counts when its stage's mix of kinds is not known (:meth:`stage_layer_kinds`)."""
        if not self.is_moe:
            return self._layer_params(moe=False)
        moe = self._layer_params(moe=True)
        return max(moe, self._layer_params(moe=False)) if self.first_k_dense else moe

    def _layer_params(self, moe: bool) -> int:
        """One layer's parameters outside the routed experts: attention, two norms, and the MLP (a dense layer) or
        the router and the shared experts (an MoE layer)."""
        base = self.attention_params_per_layer + 2 * self._norm_params()
        if moe:
            return base + self.hidden * self.num_experts + self.shared_experts * self.expert_params
        return base + self._mlp_params(self.ffn_hidden)

    def linear_weights_per_layer(self, kind: str = "dense") -> int:
        """Weights of one layer's linear layers outside the routed experts, without biases: the attention
        projections (MLA: its down and up projections) and the MLP (``kind="dense"``) or the shared experts
        (``kind="moe"``). The norms, the router and the biases are not linear-layer weights; a routed expert's are
        :attr:`expert_linear_weights`. What Transformer Engine casts to FP8 (:data:`FP8_WEIGHT_CACHE_BYTES`).

        >>> from coursekit.presets import MODELS
        >>> MODELS["llama3-8b"].linear_weights_per_layer()  # 2·4096·4096 + 2·4096·1024 + 3·4096·14336
        218103808
        """
        kind = check_choice("kind", kind, ("dense", "moe"))
        if kind == "dense" or not self.is_moe:
            return self._attention_weights() + self._mlp_weights(self.ffn_hidden)
        return self._attention_weights() + self.shared_experts * self.expert_linear_weights

    @property
    def expert_linear_weights(self) -> int:
        """Weights of one routed expert's linear layers, without biases (0 for a dense model)."""
        if not self.is_moe:
            return 0
        return self._mlp_weights(self.moe_ffn_hidden or self.ffn_hidden)

    @property
    def input_embedding_params(self) -> int:
        """Token embedding V·h, plus seq_len·h for learned positions."""
        return self.vocab * self.hidden + (self.seq_len * self.hidden if self.position == "learned" else 0)

    @property
    def output_params(self) -> int:
        """The output layer V·h (0 when tied to the input embedding) plus the final norm."""
        return (0 if self.tied_embeddings else self.vocab * self.hidden) + self._norm_params()

    def param_ledger(self) -> dict[str, int]:
        """The parameter count as a ledger ``{part: parameters}`` (all layers together).

        >>> ledger = ModelSpec("tiny", 2, 64, 4, 256, 1000, 128).param_ledger()
        >>> sum(ledger.values()) == ModelSpec("tiny", 2, 64, 4, 256, 1000, 128).num_params
        True
        """
        ledger = {
            "embedding": self.input_embedding_params,
            "attention": self.layers * self.attention_params_per_layer,
            "norms": (2 * self.layers + 1) * self._norm_params(),
            "output": 0 if self.tied_embeddings else self.vocab * self.hidden,
        }
        moe = self.moe_layers
        if self.layers > moe:
            ledger["mlp"] = (self.layers - moe) * self._mlp_params(self.ffn_hidden)
        if moe:
            ledger["router"] = moe * self.hidden * self.num_experts
            ledger["experts"] = moe * self.num_experts * self.expert_params
            if self.shared_experts:
                ledger["shared experts"] = moe * self.shared_experts * self.expert_params
        return ledger

    @property
    def num_params(self) -> int:
        """All parameters (every expert counted)."""
        return sum(self.param_ledger().values())

    def logits_bytes(self, tokens: Any, shards: Any = 1) -> Any:
        """Bytes of the fp32 logits of ``tokens`` tokens split over ``shards`` ranks (vocabulary-parallel output
        layer, or tokens split by CP): :data:`LOGITS_BYTES` · tokens · V / shards; array-generic.

        >>> ModelSpec("tiny", 2, 64, 4, 256, 1000, 128).logits_bytes(8, 2)   # 4 bytes · 8 tokens · 1000 / 2
        16000.0
        """
        _check_arg("tokens", tokens, integer=False, ge=0, le=MAX_INT)
        _check_arg("shards", shards, integer=False, ge=1, le=MAX_INT)
        check_column_shapes(tokens=tokens, shards=shards)
        if is_numpy_array(tokens) and tokens.dtype.kind == "i":  # 4 · tokens · V in int64 wraps past 9.2e18 bytes
            tokens = tokens.astype("float64")  # (2**50 tokens of a 128256-word vocabulary gave 5.8e18, not 5.8e20)
        return self._logits_bytes(tokens, shards)

    def _logits_bytes(self, tokens: Any, shards: Any = 1) -> Any:
        """:meth:`logits_bytes` without the checks (the planner's and the serving ledger's kernels)."""
        return LOGITS_BYTES * tokens * self.vocab / shards

    def stage_layer_kinds(
        self, pp: Any, edge_layers: Any = 0, last_edge_layers: Any = None
    ) -> tuple[tuple[Any, Any, Any], ...]:
        """(dense, MoE, either) layers of the (first, heaviest middle, last) pipeline stage; array-generic in ``pp``.

        A dense model's layers are all dense, an MoE model's all MoE but its ``first_k_dense`` = k first ones,
        which sit at the front of the pipeline: the first stage holds min(k, its layers) of them, the last stage
        the ones past every earlier stage. The middle stages are MoE when the first stage holds every dense
        layer; when some reach past it, which middle stage is heaviest depends on the shards, and its layers are
        counted as "either": each as the heavier kind (:attr:`dense_params_per_layer`, :meth:`layer_widths`), an
        upper bound. The stage sizes are :func:`stage_layer_counts` (``last_edge_layers`` ``None``: as many as
        ``edge_layers``); the last stage also holds the :attr:`mtp_layers` multi-token prediction modules'
        transformer blocks, counted as layers of the model's kind.

        >>> from coursekit.presets import MODELS
        >>> MODELS["deepseek-v3"].stage_layer_kinds(8, 1)  # 61 layers: 7, 8, 7; the first 3 dense; 1 MTP block
        ((3, 4, 0), (0, 8, 0), (0, 8, 0))
        """
        _check_stage_args(self.layers, pp, edge_layers, last_edge_layers)
        return self._stage_layer_kinds(pp, edge_layers, last_edge_layers)

    def _stage_layer_kinds(
        self, pp: Any, edge_layers: Any, last_edge_layers: Any = None
    ) -> tuple[tuple[Any, Any, Any], ...]:
        """:meth:`stage_layer_kinds` on checked arguments (the planner's columns)."""
        first, mid, last = stage_layer_counts(self.layers, pp, edge_layers, last_edge_layers)
        if not self.is_moe:
            return (first, 0 * first, 0 * first), (mid, 0 * mid, 0 * mid), (last + self.mtp_layers, 0 * last, 0 * last)
        k = self.first_k_dense
        first_dense = (first > k) * k + (first <= k) * first  # min(k, first), array-generic
        past = k - (self.layers - last)  # dense layers that reach the last stage (pp == 1: all k)
        last_dense = (past > 0) * ((past < last) * past + (past >= last) * last)
        spill = (k > first) * 1  # dense layers beyond the first stage: the middle ones are "either"
        return (
            (first_dense, first - first_dense, 0 * first),
            (0 * mid, (1 - spill) * mid, spill * mid),
            (last_dense, last - last_dense + self.mtp_layers, 0 * last),
        )

    def stage_dense_params(self, pp: Any, edge_layers: Any = 0, last_edge_layers: Any = None) -> tuple[Any, Any, Any]:
        """Parameters of the (first, heaviest middle, last) pipeline stage outside the experts; array-generic in ``pp``.

        Each stage holds its layers' parameters outside the experts (:meth:`stage_layer_kinds`): a dense layer its
        attention, norms and MLP; an MoE layer its attention, norms, router and shared experts; a layer of either
        kind the heavier, :attr:`dense_params_per_layer`. The first stage adds the input embedding, the last the
        output layer and final norm. With ``pp == 1`` the one stage holds everything (a tied output layer counted
        once); with ``pp > 1`` the last stage keeps its own copy of a tied output layer. The last stage also holds the
        multi-token prediction modules (:attr:`mtp_block_params` each).

        >>> tiny = ModelSpec("tiny", 4, 64, 4, 256, 1000, 128, tied_embeddings=True)
        >>> first, mid, last = tiny.stage_dense_params(2)
        >>> first - last == tiny.input_embedding_params - tiny.vocab * tiny.hidden - tiny.hidden
        True
        """
        _check_stage_args(self.layers, pp, edge_layers, last_edge_layers)
        return self._stage_dense_params(pp, edge_layers, last_edge_layers)

    def _stage_dense_params(self, pp: Any, edge_layers: Any, last_edge_layers: Any = None) -> tuple[Any, Any, Any]:
        """:meth:`stage_dense_params` on checked arguments (the planner's columns)."""
        dense_layer, moe_layer = self._layer_params(moe=False), self._layer_params(moe=True)
        either = self.dense_params_per_layer

        def params(kinds: tuple[Any, Any, Any]) -> Any:
            return kinds[0] * dense_layer + kinds[1] * moe_layer + kinds[2] * either

        first, mid, last = self._stage_layer_kinds(pp, edge_layers, last_edge_layers)
        single = (pp == 1) * 1
        out_many = self.vocab * self.hidden + self._norm_params()
        out_last = single * self.output_params + (1 - single) * out_many
        # the MTP blocks are among the last stage's layers; their projection and three norms come on top
        mtp_extra = self.mtp_layers * self._mtp_joint_params
        return (
            params(first) + self.input_embedding_params + single * self.output_params,
            params(mid),
            params(last) + out_last + mtp_extra,
        )

    @property
    def active_params(self) -> int:
        """Parameters one token passes through: ``top_k`` routed experts per MoE layer instead of all."""
        return self.num_params - self.moe_layers * (self.num_experts - self.top_k) * self.expert_params

    @property
    def matmul_params(self) -> int:
        """Active parameters a token multiplies through: :attr:`active_params` less the tables it only looks up in —
        the input embedding when it is not tied to the output layer, and learned positions. A lookup does no
        multiply-add, so these are the N of PaLM's 6·N model FLOPs (Chowdhery et al. 2022, appendix B; PaLM ties
        its embeddings, so its N counts the shared matrix once, as the output layer's matmul).

        >>> from coursekit.presets import MODELS
        >>> m = MODELS["llama3-8b"]
        >>> m.active_params - m.matmul_params == 128256 * 4096   # the untied input embedding
        True
        >>> g = MODELS["gpt2-small"]
        >>> g.active_params - g.matmul_params == 1024 * 768      # tied: only the learned positions
        True
        """
        lookup = self.input_embedding_params - (self.vocab * self.hidden if self.tied_embeddings else 0)
        return self.active_params - lookup

    @property
    def mtp_block_params(self) -> int:
        """Parameters of one multi-token prediction module outside its transformer block's routed experts: the
        block's attention, norms and MLP (dense) or router and shared experts (MoE), the two input norms, the final
        norm and the 2h → h projection (DeepSeek-V3 §2.2). 0 without MTP modules."""
        if not self.mtp_layers:
            return 0
        return self._layer_params(moe=self.is_moe) + self._mtp_joint_params

    @property
    def _mtp_joint_params(self) -> int:
        """What an MTP module adds to its transformer block: the two input norms, the final norm, the 2h -> h
        projection."""
        return 3 * self._norm_params() + 2 * self.hidden * self.hidden

    @property
    def mtp_params(self) -> int:
        """Weights of the multi-token prediction modules (:attr:`mtp_layers`), routed experts included; the
        embedding and the output layer they share with the model are not counted again.

        >>> from coursekit.presets import MODELS
        >>> round(MODELS["deepseek-v3"].mtp_params / 1e9, 1)  # its report's 14B with the embedding and head stored
        11.6
        """
        return self.mtp_layers * (self.mtp_block_params + self.num_experts * self.expert_params)


#: Bounds a :class:`ClusterSpec`'s device figures must lie in. Real devices sit orders of magnitude inside them (a
#: CPU core does ~1e11 FLOP/s, a GB200 5e15 at FP8; PCIe 3 x1 carries ~1e9 bytes/s, NVLink 5 9e11); outside them
#: the estimate's arithmetic overflows or underflows (1e-320 bytes/s is a valid positive float) and a step time
#: would come out infinite or NaN.
MIN_PEAK_FLOPS: float = 1e9
MAX_PEAK_FLOPS: float = 1e18
MIN_BANDWIDTH_BYTES_PER_S: float = 1e6
MAX_BANDWIDTH_BYTES_PER_S: float = 1e15
MAX_LATENCY_S: float = 1.0
MAX_DEVICE_MEMORY_GIB: float = 1e6
#: Smallest memory per device a ClusterSpec (and ``plan --gpu-memory-gib``) takes: 0.001 GiB, about 1 MiB, thousands
#: of times below any accelerator's (the course's smallest, pcie-24g-8, holds 24 GiB). Below it the figure is a unit
#: slip, and a subnormal float (1e-320 GiB) was echoed as "9.99989e-321" (fuzz pass 24).
MIN_DEVICE_MEMORY_GIB: float = 1e-3
#: Smallest share of peak a workload may assume (``achievable_flops_fraction``, ``efficiency_ceiling``,
#: ``fp8_matmul_share``): 0.1 %, far below any measured training step, far above where the step time overflows.
MIN_SHARE: float = 1e-3
#: Largest LoRA adapter rank ``WorkloadSpec(lora_rank=...)`` takes (and ``plan --lora-rank``): 2^16, far above the
#: 8 to 256 LoRA is run at (Hu et al., arXiv:2106.09685, §7.2; Megatron-Bridge's default is 32).
MAX_LORA_RANK: int = 1 << 16


#: The unit hint (a catalog key) a ClusterSpec figure's refusal ends with: a figure typed in the datasheet's unit
#: (312 for 312 TFLOP/s, 200 for 200 GB/s, 80e9 bytes for 80 GiB) lies outside the field's bounds.
_CLUSTER_UNIT_HINTS: dict[str, str] = {
    "memory_per_device_gib": "specs.cluster_unit.memory_per_device_gib",
    "peak_flops": "specs.cluster_unit.peak_flops",
    "peak_flops_fp8": "specs.cluster_unit.peak_flops",
    "intra_node_bandwidth_bytes_per_s": "specs.cluster_unit.bandwidth",
    "inter_node_bandwidth_bytes_per_s": "specs.cluster_unit.bandwidth",
    "memory_bandwidth_bytes_per_s": "specs.cluster_unit.memory_bandwidth_bytes_per_s",
    "intra_node_latency_s": "specs.cluster_unit.latency",
    "inter_node_latency_s": "specs.cluster_unit.latency",
    "host_memory_per_device_gib": "specs.cluster_unit.host_memory_per_device_gib",
    "host_link_bandwidth_bytes_per_s": "specs.cluster_unit.host_link",
}


def _cluster_figure(name: str, value: Any, **bounds: float) -> float:
    """:func:`check_number` for a ClusterSpec figure, its refusal ending with the unit the field wants."""
    try:
        return check_number(name, value, **bounds)
    except (TypeError, ValueError) as exc:
        hint = tr("validate.then_hint", hint=tr(_CLUSTER_UNIT_HINTS[name]))
        raise type(exc)(f"{exc}{hint}") from None


def _both_languages(key: str, **values: Any) -> Text:
    """The catalog text ``key`` with ``values`` in every language, as a :class:`Text` (shown in the current one)."""
    return Text(zh=tr(key, lang="zh", **values), en=tr(key, lang="en", **values))


@learner_arguments(
    missing_hints={
        "intra_node_latency_s": "specs.cluster_latency_default",
        "inter_node_latency_s": "specs.cluster_latency_default",
    }
)
@dataclass(frozen=True)
class ClusterSpec:
    """Devices, their memory and peak, and the two kinds of links between them.

    Parameters:
        name: a label.
        nodes, gpus_per_node: the cluster is ``nodes × gpus_per_node`` devices (ranks).
        memory_per_device_gib: usable device memory, GiB.
        peak_flops: peak dense bf16 FLOP/s of one device (vendor datasheet).
        intra_node_bandwidth_bytes_per_s: bytes/s one device can send to the others of its node,
            unidirectional per GPU (NVLink: half the vendor's bidirectional figure).
        inter_node_bandwidth_bytes_per_s: bytes/s one device can send off its node, unidirectional
            per GPU (the node's network injection bandwidth divided by its GPUs).
        intra_node_latency_s, inter_node_latency_s: alpha, the fixed cost of one ring step.
        memory_bandwidth_bytes_per_s: device memory bandwidth (serving's decode is bound by it).
        source: where the numbers come from.
        peak_flops_fp8: peak dense FP8 FLOP/s of one device, or ``None`` when it has no FP8 tensor cores.
        nvlink_domain_gpus: GPUs one NVLink domain joins when it spans nodes (GB200 NVL72: 72 GPUs over 18
            compute trays of 4); the intra-node link then carries every group inside the domain a job fills
            (:attr:`domain_gpus`). ``None`` (the default): each node is its own domain.
        compute_capability: the GPUs' CUDA compute capability (H100 9.0, B200 10.0, B300 10.3), or ``None``
            (the default) when not stated. The FP8 estimate reads it: from 10.0 FP8 GEMMs take any layout, so no
            transposed FP8 copies are made (:attr:`fp8_any_layout`), and only 10.x runs the ``"mxfp8"`` recipe
            (:attr:`mxfp8`). ``None`` counts as Hopper's rule and refuses MXFP8.
        host_memory_per_device_gib: host (CPU) memory per GPU, GiB, that activation offloading may fill, or
            ``None`` (the default) when not stated: then the planner does not offload (its ``"offload"`` mode is
            refused with that reason). A node's system memory divided by its GPUs (a DGX H100's 2 TB over 8 GPUs:
            232.8 GiB; :data:`coursekit.hardware.HOST_MEMORY_SOURCE`).
        host_link_bandwidth_bytes_per_s: bytes/s one GPU copies to or from host memory, unidirectional per GPU
            while every GPU copies (a PCIe 5.0 x16 link of its own: 63e9, shared by two GPUs: 31.5e9; a GB200
            superchip's NVLink-C2C shared by its 2 GPUs: 225e9), or ``None`` (the default) when not stated. Both
            host figures or neither.

    >>> c = ClusterSpec("toy", 2, 8, 80, 312e12, 300e9, 25e9, 2e-6, 5e-6, 2.0e12)
    >>> c.world_size, c.with_nodes(4).world_size
    (16, 32)

    Taught in: lesson 9 (decision workbench).
    """

    name: str
    nodes: int
    gpus_per_node: int
    memory_per_device_gib: float
    peak_flops: float
    intra_node_bandwidth_bytes_per_s: float
    inter_node_bandwidth_bytes_per_s: float
    intra_node_latency_s: float
    inter_node_latency_s: float
    memory_bandwidth_bytes_per_s: float
    source: str = ""
    peak_flops_fp8: float | None = None
    nvlink_domain_gpus: int | None = None
    compute_capability: float | None = None
    host_memory_per_device_gib: float | None = None
    host_link_bandwidth_bytes_per_s: float | None = None

    def __post_init__(self) -> None:
        _plain_fields(self)
        raw: Any = self
        _check_name("name", raw.name)
        host = (raw.host_memory_per_device_gib, raw.host_link_bandwidth_bytes_per_s)
        if (host[0] is None) != (host[1] is None):
            given, missing = (
                ("host_memory_per_device_gib", "host_link_bandwidth_bytes_per_s")
                if host[1] is None
                else ("host_link_bandwidth_bytes_per_s", "host_memory_per_device_gib")
            )
            value = getattr(raw, given)
            shown = format(value, ".6g") if type(value) is float and math.isfinite(value) else shown_repr(value)
            raise ValueError(tr("specs.host_pair", given=given, value=shown, missing=missing))
        if host[0] is not None:
            memory = _cluster_figure(
                "host_memory_per_device_gib", host[0], ge=MIN_DEVICE_MEMORY_GIB, le=MAX_DEVICE_MEMORY_GIB
            )
            link = _cluster_figure(
                "host_link_bandwidth_bytes_per_s", host[1], ge=MIN_BANDWIDTH_BYTES_PER_S, le=MAX_BANDWIDTH_BYTES_PER_S
            )
            object.__setattr__(self, "host_memory_per_device_gib", memory)
            object.__setattr__(self, "host_link_bandwidth_bytes_per_s", link)
        if raw.compute_capability is not None:
            capability = check_number("compute_capability", raw.compute_capability, ge=1.0, le=99.9)
            object.__setattr__(self, "compute_capability", capability)
        if raw.nvlink_domain_gpus is not None:
            domain = check_int("nvlink_domain_gpus", raw.nvlink_domain_gpus, ge=1, le=MAX_WORLD_SIZE)
            gpus = check_int("gpus_per_node", raw.gpus_per_node, ge=1, le=1024)
            if domain < gpus or domain % gpus:
                raise ValueError(tr("specs.domain_of_nodes", domain=domain, gpus=gpus))
        if raw.peak_flops_fp8 is not None:
            peak_fp8 = _cluster_figure("peak_flops_fp8", raw.peak_flops_fp8, ge=MIN_PEAK_FLOPS, le=MAX_PEAK_FLOPS)
            object.__setattr__(self, "peak_flops_fp8", peak_fp8)
        check_int("nodes", raw.nodes, ge=1, le=MAX_NODES)
        check_int("gpus_per_node", raw.gpus_per_node, ge=1, le=1024)
        check_int(tr("specs.world_size"), raw.nodes * raw.gpus_per_node, le=MAX_WORLD_SIZE)
        object.__setattr__(
            self,
            "memory_per_device_gib",
            _cluster_figure(
                "memory_per_device_gib", raw.memory_per_device_gib, ge=MIN_DEVICE_MEMORY_GIB, le=MAX_DEVICE_MEMORY_GIB
            ),
        )
        object.__setattr__(
            self, "peak_flops", _cluster_figure("peak_flops", raw.peak_flops, ge=MIN_PEAK_FLOPS, le=MAX_PEAK_FLOPS)
        )
        if self.peak_flops_fp8 is not None and self.peak_flops_fp8 < self.peak_flops:
            raise ValueError(
                tr(
                    "planner.fp8_peak_below_bf16",
                    name="peak_flops_fp8",
                    value=raw.peak_flops_fp8,
                    bf16_name="peak_flops",
                    bf16=self.peak_flops,
                )
            )
        cc = self.compute_capability
        if self.peak_flops_fp8 is not None and cc is not None and cc < FP8_TENSOR_CORE_COMPUTE_CAPABILITY:
            raise ValueError(
                tr(
                    "planner.fp8_peak_no_tensor_cores",
                    name="peak_flops_fp8",
                    value=raw.peak_flops_fp8,
                    cc_name="compute_capability",
                    cc=cc,
                    low=FP8_TENSOR_CORE_COMPUTE_CAPABILITY,
                )
            )
        for attr in (
            "intra_node_bandwidth_bytes_per_s",
            "inter_node_bandwidth_bytes_per_s",
            "memory_bandwidth_bytes_per_s",
        ):
            value = _cluster_figure(
                attr, getattr(raw, attr), ge=MIN_BANDWIDTH_BYTES_PER_S, le=MAX_BANDWIDTH_BYTES_PER_S
            )
            object.__setattr__(self, attr, value)
        for attr in ("intra_node_latency_s", "inter_node_latency_s"):
            object.__setattr__(self, attr, _cluster_figure(attr, getattr(raw, attr), ge=0, le=MAX_LATENCY_S))
        if not isinstance(raw.source, str):
            raise type_error("source", raw.source, "str")

    def unit_notes(self) -> tuple[Text, ...]:
        """Notes on figures that a unit or direction slip gives: an inter-node bandwidth above the intra-node
        one or above one 800 Gb/s adapter per GPU (Gb/s typed as GB/s, or a node's total), an intra-node one above
        NVLink 5's 900 GB/s each way or equal to a datasheet's bidirectional NVLink figure (A800/H800 400 GB/s,
        A100 600 GB/s), and a memory that is a datasheet's size in GB read as 10^9 bytes (80 GB as 74.5 GiB, where
        the card holds 80 GiB: :data:`coursekit.hardware.NVIDIA_SMI_MEMORY_MIB`). :func:`coursekit.planner.plan`
        lists them with its assumptions; the presets have none.

        >>> from coursekit.presets import CLUSTERS
        >>> any(c.unit_notes() for c in CLUSTERS.values())
        False
        >>> from dataclasses import replace
        >>> [str(n)[:40] for n in replace(CLUSTERS["a100-8"], inter_node_bandwidth_bytes_per_s=800e9).unit_notes()]
        ["Check the cluster's units: the inter-nod", "Check the cluster's units: the inter-nod"]
        """
        intra, inter = self.intra_node_bandwidth_bytes_per_s, self.inter_node_bandwidth_bytes_per_s
        figures = {"intra": intra / 1e9, "inter": inter / 1e9, "gpus": self.gpus_per_node}
        notes: list[Text] = []
        if inter > intra:
            notes.append(_both_languages("specs.note.inter_above_intra", **figures))
        if inter > NET_800G_PER_GPU_BYTES_PER_S:
            notes.append(
                _both_languages("specs.note.inter_too_fast", limit=NET_800G_PER_GPU_BYTES_PER_S / 1e9, **figures)
            )
        if intra > NVLINK5_B200_BYTES_PER_S:
            notes.append(_both_languages("specs.note.intra_too_fast", limit=NVLINK5_B200_BYTES_PER_S / 1e9, **figures))
        for gpu, one_way in (("A800/H800", NVLINK_H800_BYTES_PER_S), ("A100", NVLINK3_UNIDIRECTIONAL_BYTES_PER_S)):
            if math.isclose(intra, 2 * one_way, rel_tol=1e-9):
                notes.append(_both_languages("specs.note.intra_bidirectional", gpu=gpu, half=one_way / 1e9, **figures))
        gib = self.memory_per_device_gib
        for gb in DATASHEET_MEMORY_GB:  # a datasheet's GB converted as if decimal: 80 GB -> 74.5 GiB
            if math.isclose(gib, gb * 1e9 / 2**30, rel_tol=1e-3):
                notes.append(_both_languages("specs.note.memory_decimal", gib=round(gib, 2), gb=gb))
        return tuple(notes)

    def peak(self, precision: str = "bf16") -> float:
        """Peak dense FLOP/s of one device at ``precision`` (``"bf16"`` or ``"fp8"``); a device without FP8
        tensor cores (A100) is refused with a message.

        >>> from coursekit.presets import CLUSTERS
        >>> round(CLUSTERS["h100-8"].peak("fp8") / CLUSTERS["h100-8"].peak("bf16"), 3)
        2.001
        """
        return _peak_flops(self, check_choice("precision", precision, PRECISIONS))

    @property
    def fp8_any_layout(self) -> bool:
        """Whether the devices' FP8 GEMMs take any operand layout (compute capability 10.x, or 13.0 and later:
        :data:`FP8_ANY_LAYOUT_COMPUTE_CAPABILITY`), so Transformer Engine keeps one FP8 copy of a tensor and makes no
        transposed one; ``False`` on Hopper and when :attr:`compute_capability` is not stated.

        >>> from coursekit.presets import CLUSTERS
        >>> CLUSTERS["h100-8"].fp8_any_layout, CLUSTERS["b200-8"].fp8_any_layout
        (False, True)
        """
        cc = self.compute_capability
        return cc is not None and any(low <= cc < high for low, high in FP8_ANY_LAYOUT_COMPUTE_CAPABILITY)

    @property
    def mxfp8(self) -> bool:
        """Whether the devices run the ``"mxfp8"`` FP8 recipe (compute capability 10.x: :data:`MXFP8_SOURCE`);
        ``False`` when :attr:`compute_capability` is not stated."""
        cc = self.compute_capability
        return cc is not None and MXFP8_COMPUTE_CAPABILITY[0] <= cc < MXFP8_COMPUTE_CAPABILITY[1]

    @property
    def world_size(self) -> int:
        """Devices in the cluster: nodes × gpus_per_node."""
        return self.nodes * self.gpus_per_node

    @property
    def domain_gpus(self) -> int:
        """GPUs whose groups the intra-node link carries in a job on all of this cluster's nodes: a node's, or, where
        an NVLink domain spans nodes (:attr:`nvlink_domain_gpus`), those of the nodes the job fills in one domain
        (:func:`nvlink_segment_nodes`).

        >>> from coursekit.presets import CLUSTERS
        >>> CLUSTERS["h100-8"].with_nodes(4).domain_gpus, CLUSTERS["gb200-nvl72"].with_nodes(64).domain_gpus
        (8, 64)
        """
        if self.nvlink_domain_gpus is None:
            return self.gpus_per_node
        return _segment_nodes(self.nodes, self.nvlink_domain_gpus // self.gpus_per_node) * self.gpus_per_node

    def with_nodes(self, nodes: int) -> ClusterSpec:
        """The same kind of node, ``nodes`` of them."""
        return replace(self, nodes=check_int("nodes", nodes, ge=1, le=MAX_NODES))

    def link(self, kind: str) -> tuple[float, float]:
        """``(bandwidth_bytes_per_s, latency_s)`` of ``"intra_node"`` or ``"inter_node"``."""
        if kind == "intra_node":
            return self.intra_node_bandwidth_bytes_per_s, self.intra_node_latency_s
        if kind == "inter_node":
            return self.inter_node_bandwidth_bytes_per_s, self.inter_node_latency_s
        check_choice("link", kind, ("intra_node", "inter_node"))  # raises, naming the two kinds
        raise AssertionError("unreachable")  # pragma: no cover


@learner_arguments()
@dataclass(frozen=True)
class WorkloadSpec:
    """What the cluster should do, and the assumptions the estimate rests on.

    Parameters:
        mode: ``"training"`` or ``"serving"``.
        global_batch: sequences per optimizer step (training) or concurrent requests (serving, at most
            :data:`MAX_CONCURRENCY`).
        seq_len: tokens per sequence (training) or per prompt (serving); ``None`` = the model's ``seq_len``.
        output_tokens: serving only: tokens each request generates (default :data:`DEFAULT_OUTPUT_TOKENS`).
            Serving mode is :func:`coursekit.serving.plan_serving` on :meth:`serving_workload`, which reads the
            fields of :data:`SERVING_WORKLOAD_FIELDS` only: any other field set away from its default with
            ``mode="serving"`` (a ZeRO stage, an overlap share, ``achievable_flops_fraction``, ...) is a ValueError
            naming it, as is ``output_tokens`` set with ``mode="training"``, rather than a setting no answer reads.
        recipe: a precision recipe name of :data:`coursekit.capacity.PRECISION_RECIPES`; default
            :data:`DEFAULT_RECIPE` (bf16 gradients, as NVIDIA's performance scripts run; ``"megatron-bf16"`` for
            Megatron-LM's trainer, which keeps fp32 gradients under ``--bf16``).
        achievable_flops_fraction: ``None`` (default): the compute-efficiency model (each GPU's matmul
            shapes on the roofline, calibrated once); a number in (0, 1]: a flat share of peak instead.
        overlap_fraction: ``None`` (default): per-dimension overlap ``overlap_dp`` ... ``overlap_ep``;
            a number in [0, 1] overrides all of them.
        overlap_dp, overlap_pp, overlap_cp, overlap_tp, overlap_ep: share of that dimension's communication
            hidden under compute, [0, 1]; defaults and sources in :data:`OVERLAP_DEFAULTS` / :data:`OVERLAP_SOURCES`.
        pipeline_edge_layers: layers taken off the first and the last pipeline stage to make room for the
            embedding and the output layer + loss (Llama 3 405B: 1; Llama Team 2024, §3.3.2); ``0`` never.
            ``None`` (the default): 1 at each pp where that evens a split that is otherwise uneven, as Megatron-Core's
            ``--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split`` do (from February
            2025), else 0 (:func:`edge_layers_at`). An engine or config without those options is ``0``.
            With :attr:`pipeline_last_edge_layers` set, this is the first stage's alone.
        pipeline_last_edge_layers: layers taken off the last pipeline stage alone, for the output layer, the loss
            and the multi-token prediction block (:func:`pipeline_edges_at`); ``None`` (the default): the same as
            the first stage's, :attr:`pipeline_edge_layers` (its ``None`` rule included). Megatron-Core's layouts
            are asymmetric: ``--account-for-embedding-in-pipeline-split`` and ``--account-for-loss-in-pipeline-split``
            are separate options, and ``--decoder-first-pipeline-num-layers`` /
            ``--decoder-last-pipeline-num-layers`` and ``pipeline_model_parallel_layout`` size the two edge stages
            apart (NVIDIA/Megatron-LM, ``megatron/core/transformer/transformer_config.py``). Megatron-Bridge's
            DeepSeek-V3 recipe (``recipes/deepseek/deepseek_v3.py``, ``layout_map[(16, 1)]``) puts the embedding and
            4 layers on the first of 16 stages, 4 on each middle one, and 1 layer, the MTP block and the loss on the
            last: ``pipeline_edge_layers=0, pipeline_last_edge_layers=3``. That is also what a model with
            multi-token prediction modules (:attr:`ModelSpec.mtp_layers`) gets when neither edge is stated: first edge
            0, last edge 1 + 2 per module, wherever every stage keeps a layer (:data:`MTP_EDGE_SOURCE`).
        pipeline_uneven_chunks: the engine places any number of layers on each model chunk of the interleaved
            schedule: Megatron-Core's hand-written ``--pipeline-model-parallel-layout`` (from 0.13), or PyTorch's
            ``torch.distributed.pipelining`` (TorchTitan, NeMo Automodel), which split a stage's layers into v
            chunks of ceil or floor(layers / v). ``False`` (the default): Megatron-Core's rule without a layout, v
            divides every stage's layers. Either way each chunk holds at least one layer (or the embedding or the
            loss), and the bubble is counted as for equal chunks (:func:`coursekit.pipeline.bubble_fraction`).
        ep_node_limit: node-limited routing, each token reaches at most this many other nodes (DeepSeek-V3
            §2.1.2: 4); ``None`` = unlimited.
        efficiency_ceiling: the compute-efficiency model's ceiling (share of peak the largest matmuls reach);
            ``None`` = the calibrated :data:`coursekit.planner.estimate.EFFICIENCY_CEILING`. Set it from your
            own measurement (lesson 8).
        ep_dedup_per_node: send a token once per node even when several of its experts live there, to the GPU
            with the same in-node index there, and fan out inside the node over NVLink (DeepSeek-V3 §3.2.1;
            DeepEP's normal kernels): fewer bytes, and one inter-node peer per other node instead of one per
            off-node EP rank.
        ep_fp8_dispatch: EP's all-to-all sends the dispatched tokens and the activation gradient before the
            experts' down-projection in FP8 (1 byte), the combine and the other gradient in bf16 (DeepSeek-V3
            §3.3.3): 1.5 bytes per element on average instead of 2.
        ep_overlap_schedule: the schedule that overlaps EP's all-to-all (:data:`EP_OVERLAP_SCHEDULES`):
            ``"megatron"`` (default; no overlap at pp > 1 without interleaving, nor under full recomputation) or
            ``"dualpipe"`` (DeepSeek-V3's pipeline: its stage pairing, bubble and memory as well).
        runtime_reserve_gib: memory kept free per device, GiB.
        precision: ``"bf16"`` (default) or ``"fp8"``: the linear layers' matmuls run at the device's FP8 peak
            (:meth:`ClusterSpec.peak`) times ``fp8_matmul_share`` (FP8 matmuls keep only part of the speed-up the
            doubled peak promises: fitted on a DGX Cloud BF16/FP8 pair), attention's core at bf16, both at the share of
            peak the efficiency model gives; the rest of the step does not speed up. Weights, gradients and optimizer
            states are counted as the recipe's: exact when FP8 weights replace the bf16 ones (``--fp8-param-gather``,
            set by NeMo 2's and Megatron-Bridge's FP8 recipes; on Hopper an FP8 weight plus its FP8 transpose, 2 bytes
            as in bf16); without it Transformer Engine caches each linear layer's FP8 weight and transpose between
            micro-batches beside the bf16 weight, 2 bytes more per linear-layer parameter that the ledger does not
            count (:class:`PrecisionRecipe`); DeepSeek-V3 keeps fp32 master weights and gradients
            and bf16 Adam moments (arXiv:2412.19437 §3.3.3: the recipe ``"deepseek-v3-fp8"``). Activations shrink: each
            linear layer that runs in FP8 saves its input for backward after the cast, 1 byte per element (QKV, output
            projection, fc1, fc2, experts); layer-norm inputs, Q, K, V, the activation function's input and the router's
            input stay 16-bit, and flash attention keeps its own bf16 output besides the projection's FP8 copy
            (:mod:`coursekit.activations`). The FP8 weights' smaller all-gather under ``--fp8-param-gather`` and
            DeepSeek-V3's own activation formats (§3.3.3) are not modelled. Quantising to FP8 costs memory passes
            besides the GEMMs, charged at HBM bandwidth
            (:func:`coursekit.planner.estimate.fp8_quantisation_bytes_per_token`).
        fp8_recipe: how the FP8 casts get their scale (:data:`FP8_RECIPES`): ``"delayed"`` (default, Megatron-Core's
            ``--fp8-recipe`` default; NeMo 24.07) or ``"current"`` (per-tensor current scaling, an amax pass before each
            unfused cast; Megatron-Bridge's ``FP8_CS`` configs). Matters only at ``precision="fp8"``.
        flash_attention: attention runs in a fused kernel that keeps no s×s scores (the default, as in today's
            Megatron-Core and NeMo); ``False`` materialises them (Korthikanti et al.'s 5·a·s²·b per layer).
        attention_kernel: which fused kernel runs attention's core (:data:`ATTENTION_KERNELS`), charged at its
            own measured speed on H100 (:data:`coursekit.planner.calibration.ATTENTION_KERNEL_FIGURES`):
            ``"flash-attention-3"`` (the default; on other devices its speed relative to the best matmul is carried
            over), ``"cudnn"`` (cuDNN's fused attention, which Transformer Engine calls on H100) or
            ``"flash-attention-2"`` (the Ampere kernel on H100: about 0.57 times FlashAttention-3's speed). The
            last two were measured on H100 only, so they need a cluster of compute capability 9.x
            (:func:`check_attention_kernel`). Memory is the same for all three. Needs ``flash_attention``; training
            only (the serving search does not read it, so ``mode="serving"`` refuses another kernel).
        moe_probs_in_experts: the router's probabilities multiply the routed experts' activation (Megatron-Core from
            0.13: megatron-lm 2659630721, "Memory efficient token permutation", April 2025), so the combine adds the
            expert outputs up unweighted and keeps no copy of them for backward: an MoE layer saves top_k·h fewer
            elements per token. ``False`` (the default): the combine weighs the outputs and keeps them (Megatron-Core
            up to 0.12; the safe assumption when the engine is not known).
        moe_layer_host_s: seconds the host (CPU) takes to launch one MoE layer's forward and backward for one
            micro-batch; ``None`` (default) = the calibrated
            :data:`coursekit.planner.calibration.MOE_LAYER_HOST_S` (eager Megatron-Core). Both Megatron-Core
            dispatchers make the host wait for the GPU once per MoE layer, so a layer whose GPU work is shorter
            leaves the GPU waiting (:func:`coursekit.planner.estimate.moe_host_wait_s`). ``0`` turns the limit off
            (a layer captured whole in a CUDA graph, or a dispatcher that never waits). Dense layers never wait:
            their host runs ahead.
        fp8_matmul_share: how much of the FP8 peak's speed-up the FP8 linear layers' matmuls keep, in (0, 1]: their
            share of the FP8 peak over a bf16 matmul's share of the bf16 peak. ``None`` (default) = the calibrated
            :data:`coursekit.planner.calibration.FP8_MATMUL_SHARE` (fitted on a DGX Cloud BF16/FP8 pair); ``1``
            takes the datasheet's doubling at face value. Matters only at ``precision="fp8"``.
        fp8_weight_cache: the engine keeps bf16 weights and Transformer Engine caches each linear layer's FP8 weight
            and its transpose between the micro-batches of a step (Megatron-LM's trainer without
            ``--fp8-param-gather``; NeMo 1): :data:`FP8_WEIGHT_CACHE_BYTES` more per linear-layer weight on the rank
            (attention projections, MLP or shared experts, routed experts; not the embedding, output layer, norms
            or router), counted with the weights. ``False`` (the default): the FP8 weights replace the bf16 ones
            (``--fp8-param-gather``, as NeMo 2's and Megatron-Bridge's FP8 recipes set), the same bytes. At ZeRO-3
            nothing is cached: the gathered weights are freed after use (Transformer Engine skips the cache for
            FSDP2). Matters only at ``precision="fp8"``.
        fp8_activation_cache: what an FP8 run saves for backward (:data:`FP8_ACTIVATION_CACHES`):
            ``"transformer-engine"`` (the default) each FP8 linear layer's FP8 input and flash attention's bf16
            output; ``"deepseek-v3"`` DeepSeek-V3's framework (:data:`DEEPSEEK_V3_ACTIVATIONS_SOURCE`): the routed
            experts' SwiGLU input in FP8, its output recomputed where ``recompute_modules`` names ``"moe_act"``, and
            the attention output once in E5M6 (1.5 bytes) for both backward passes that need it. Matters only at
            ``precision="fp8"``.
        sequence_parallel: Megatron sequence parallelism inside TP groups.
        zero_stages, recompute_modes: the ZeRO stages and recompute modes the search tries; the modes are any of
            :data:`PLAN_RECOMPUTE_MODES` (default all): :data:`RECOMPUTE_MODES` and ``"offload"``, activation
            offloading to host memory, which needs a cluster that states its host memory and host link.
        recompute_modules: module-level recomputation added to every mode but ``"full"`` (which keeps only the
            layer input anyway): any of :data:`RECOMPUTE_MODULES`, Megatron-Core's ``--recompute-modules
            layernorm moe_act moe``; ``()`` (the default) none. Megatron-Core's list replaces its default
            ``core_attn``, so a run that names only these modules is ``recompute_modes=("none",)`` here.
        max_micro_batch: largest micro-batch (sequences) the search tries.
        max_virtual_stages: largest number of model chunks per pipeline device it tries; when no v up to it splits
            every stage into equal chunks (23 layers a stage), the smallest v that does; 1 turns interleaving off.
        max_cp: largest context-parallel degree the search tries; ``None`` (default) tries every divisor. An engine
            without context parallelism (Megatron-DeepSpeed, which trained MT-NLG and BLOOM) is ``max_cp=1``.
        lora_rank: ``None`` (default): every weight trains (pre-training, full fine-tuning). A rank r: LoRA
            fine-tuning (Hu et al., arXiv:2106.09685): every weight is frozen and a trainable low-rank adapter of rank
            r sits beside each linear layer of every transformer layer — Megatron-Core's fused ``linear_qkv``,
            ``linear_proj``, ``linear_fc1`` and ``linear_fc2`` (the target modules of Megatron-Bridge's and NeMo 2's
            LoRA; MLA's projections; each routed expert its own) — r·(in + out) parameters each
            (:func:`coursekit.planner.estimate.lora_adapters`). Frozen weights keep their bytes but have no
            gradients or optimizer states and no weight-gradient matmuls (2 of PaLM's 6 FLOPs per parameter and
            token); data parallelism reduces only the adapters' gradients. Activations are unchanged: each adapter
            needs its layer's input for its own gradient. Training only: with ``mode="serving"`` it is refused (the
            serving estimate has no adapters).

    >>> WorkloadSpec(global_batch=1024).overlap("tp"), WorkloadSpec(global_batch=1024).overlap("dp")
    (0.9375, 1.0)
    >>> WorkloadSpec(global_batch=1024, overlap_tp=0).overlap("tp")  # an engine without TP comm-GEMM overlap
    0.0
    >>> WorkloadSpec(global_batch=1024, overlap_fraction=1.5)
    Traceback (most recent call last):
    ...
    ValueError: overlap_fraction = 1.5: must be <= 1.

    Taught in: lesson 9 (decision workbench).
    """

    global_batch: int
    seq_len: int | None = None
    mode: str = "training"
    recipe: str = DEFAULT_RECIPE
    achievable_flops_fraction: float | None = None
    overlap_fraction: float | None = None
    runtime_reserve_gib: float = DEFAULT_RUNTIME_RESERVE_GIB
    sequence_parallel: bool = True
    zero_stages: tuple[int, ...] = (0, 1, 2, 3)
    recompute_modes: tuple[str, ...] = PLAN_RECOMPUTE_MODES
    recompute_modules: tuple[str, ...] = ()
    max_micro_batch: int = DEFAULT_MAX_MICRO_BATCH
    max_virtual_stages: int = DEFAULT_MAX_VIRTUAL_STAGES
    max_cp: int | None = None
    overlap_dp: float = OVERLAP_DEFAULTS["dp"]
    overlap_pp: float = OVERLAP_DEFAULTS["pp"]
    overlap_cp: float = OVERLAP_DEFAULTS["cp"]
    overlap_tp: float = OVERLAP_DEFAULTS["tp"]
    overlap_ep: float = OVERLAP_DEFAULTS["ep"]
    pipeline_edge_layers: int | None = None
    ep_node_limit: int | None = None
    ep_dedup_per_node: bool = False
    ep_fp8_dispatch: bool = False
    ep_overlap_schedule: str = "megatron"
    efficiency_ceiling: float | None = None
    output_tokens: int = DEFAULT_OUTPUT_TOKENS
    precision: str = "bf16"
    flash_attention: bool = True
    fp8_recipe: str = "delayed"
    moe_probs_in_experts: bool = False
    moe_layer_host_s: float | None = None
    fp8_matmul_share: float | None = None
    fp8_weight_cache: bool = False
    pipeline_last_edge_layers: int | None = None
    pipeline_uneven_chunks: bool = False
    lora_rank: int | None = None
    fp8_activation_cache: str = "transformer-engine"
    attention_kernel: str = "flash-attention-3"

    def __post_init__(self) -> None:
        _plain_fields(self)
        raw: Any = self
        if raw.lora_rank is not None:
            check_int("lora_rank", raw.lora_rank, ge=1, le=MAX_LORA_RANK)
        check_bool("fp8_weight_cache", raw.fp8_weight_cache)
        check_bool("pipeline_uneven_chunks", raw.pipeline_uneven_chunks)
        if raw.fp8_matmul_share is not None:
            object.__setattr__(
                self, "fp8_matmul_share", check_number("fp8_matmul_share", raw.fp8_matmul_share, ge=MIN_SHARE, le=1)
            )
        if raw.moe_layer_host_s is not None:
            object.__setattr__(
                self, "moe_layer_host_s", check_number("moe_layer_host_s", raw.moe_layer_host_s, ge=0, le=1)
            )
        check_choice("precision", raw.precision, PRECISIONS)
        check_choice("fp8_recipe", raw.fp8_recipe, FP8_RECIPES)
        check_bool("flash_attention", raw.flash_attention)
        if check_choice("attention_kernel", raw.attention_kernel, ATTENTION_KERNELS) != ATTENTION_KERNELS[0]:
            if not raw.flash_attention:  # the kernel's speed would be read nowhere: say so rather than ignore it
                raise ValueError(tr("planner.attention_kernel_no_flash", value=raw.attention_kernel))
        check_int("global_batch", raw.global_batch, ge=1, le=MAX_GLOBAL_BATCH)
        check_int("output_tokens", raw.output_tokens, ge=1, le=MAX_SEQ_LEN)
        if raw.seq_len is not None:
            check_int("seq_len", raw.seq_len, ge=1, le=MAX_SEQ_LEN)
        if check_choice("mode", raw.mode, WORKLOAD_MODES) == "serving":
            check_int("global_batch", raw.global_batch, ge=1, le=MAX_CONCURRENCY)
            if raw.lora_rank is not None:  # the serving search never reads it: no answer would show it
                raise ValueError(tr("planner.lora_serving", value=raw.lora_rank))
            if raw.attention_kernel != ATTENTION_KERNELS[0]:  # the serving search never reads it either
                raise ValueError(tr("planner.attention_kernel_serving", value=raw.attention_kernel))
        check_choice("recipe", raw.recipe, PRECISION_RECIPES)
        if raw.achievable_flops_fraction is not None:
            object.__setattr__(
                self,
                "achievable_flops_fraction",
                check_number("achievable_flops_fraction", raw.achievable_flops_fraction, ge=MIN_SHARE, le=1),
            )
        if raw.overlap_fraction is not None:
            object.__setattr__(
                self, "overlap_fraction", check_number("overlap_fraction", raw.overlap_fraction, ge=0, le=1)
            )
        for dim in OVERLAP_DEFAULTS:
            name = f"overlap_{dim}"
            object.__setattr__(self, name, check_number(name, getattr(raw, name), ge=0, le=1))
        if raw.pipeline_edge_layers is not None:
            check_int("pipeline_edge_layers", raw.pipeline_edge_layers, ge=0, le=1 << 16)
        if raw.pipeline_last_edge_layers is not None:
            check_int("pipeline_last_edge_layers", raw.pipeline_last_edge_layers, ge=0, le=1 << 16)
        if raw.ep_node_limit is not None:
            check_int("ep_node_limit", raw.ep_node_limit, ge=1, le=MAX_NODES)
        check_bool("ep_dedup_per_node", raw.ep_dedup_per_node)
        check_bool("ep_fp8_dispatch", raw.ep_fp8_dispatch)
        check_bool("moe_probs_in_experts", raw.moe_probs_in_experts)
        check_choice("fp8_activation_cache", raw.fp8_activation_cache, FP8_ACTIVATION_CACHES)
        check_choice("ep_overlap_schedule", raw.ep_overlap_schedule, EP_OVERLAP_SCHEDULES)
        if raw.efficiency_ceiling is not None:
            object.__setattr__(
                self,
                "efficiency_ceiling",
                check_number("efficiency_ceiling", raw.efficiency_ceiling, ge=MIN_SHARE, le=1),
            )
        if self.achievable_flops_fraction is not None and self.efficiency_ceiling is not None:  # one would be dead
            ceiling, flat = self.efficiency_ceiling, self.achievable_flops_fraction
            raise ValueError(tr("planner.ceiling_with_flat", ceiling=ceiling, flat=flat))
        for dim, default in OVERLAP_DEFAULTS.items() if self.overlap_fraction is not None else ():
            name = f"overlap_{dim}"  # overlap_fraction answers for every dimension (overlap()): this one is dead
            if getattr(self, name) != default:
                raise ValueError(tr("planner.overlap_with_all", name=name, value=getattr(self, name),
                                    all=self.overlap_fraction))  # fmt: skip
        reserve = check_number("runtime_reserve_gib", raw.runtime_reserve_gib, ge=0, le=MAX_DEVICE_MEMORY_GIB)
        object.__setattr__(self, "runtime_reserve_gib", reserve)
        check_bool("sequence_parallel", raw.sequence_parallel)
        object.__setattr__(self, "zero_stages", _check_int_tuple("zero_stages", raw.zero_stages, ge=0, le=3))
        object.__setattr__(
            self, "recompute_modes", _check_str_tuple("recompute_modes", raw.recompute_modes, PLAN_RECOMPUTE_MODES)
        )
        if isinstance(raw.recompute_modules, (tuple, list)) and not raw.recompute_modules:  # () and [] are "none"
            object.__setattr__(self, "recompute_modules", ())  # [] is what to_dict's JSON gives back for ()
        else:
            modules = _check_str_tuple("recompute_modules", raw.recompute_modules, RECOMPUTE_MODULES)
            object.__setattr__(self, "recompute_modules", modules)
        check_int("max_micro_batch", raw.max_micro_batch, ge=1)
        check_int("max_virtual_stages", raw.max_virtual_stages, ge=1)
        if raw.max_cp is not None:
            check_int("max_cp", raw.max_cp, ge=1)
        self._refuse_fields_the_mode_does_not_read()

    def _refuse_fields_the_mode_does_not_read(self) -> None:
        """A field set away from its default that the plan's mode never reads is refused, naming it: with
        ``mode="serving"`` every field outside :data:`SERVING_WORKLOAD_FIELDS` (the serving search reads those only),
        with ``mode="training"`` ``output_tokens`` (only serving reads it)."""
        for item in fields(self):
            value, default = getattr(self, item.name), item.default
            if value == default:
                continue
            if self.mode == "serving" and item.name not in SERVING_WORKLOAD_FIELDS:
                raise ValueError(tr("planner.training_field_serving", name=item.name, value=value, default=default))
            if self.mode == "training" and item.name == "output_tokens":
                raise ValueError(tr("planner.serving_field_training", name=item.name, value=value, default=default))

    def overlap(self, dimension: str) -> float:
        """Share of ``dimension``'s communication (dp, pp, cp, tp, ep) hidden under compute.

        ``overlap_fraction``, when set, answers for every dimension. Otherwise each dimension's own share, except
        that TP's is 0 without sequence parallelism: the engine's TP comm-GEMM overlap splits the all-gathers and
        reduce-scatters of sequence parallelism and refuses to run without it (:data:`TP_OVERLAP_NEEDS_SP`).

        >>> on = WorkloadSpec(global_batch=64, overlap_tp=TP_COMM_OVERLAP_ON)
        >>> on.overlap("tp") == TP_COMM_OVERLAP_ON, replace(on, sequence_parallel=False).overlap("tp")
        (True, 0.0)
        """
        dim = dimension  # checked only when it is not one of the five (the searches ask many times)
        if not (isinstance(dim, str) and dim in OVERLAP_DEFAULTS):
            dim = check_choice("dimension", dimension, tuple(OVERLAP_DEFAULTS))
        if self.overlap_fraction is not None:
            return self.overlap_fraction
        if dim == "tp" and not self.sequence_parallel:
            return 0.0  # comm-GEMM overlap runs on sequence parallelism's collectives only (TP_OVERLAP_NEEDS_SP)
        value: float = getattr(self, f"overlap_{dim}")
        return value

    def tokens_per_sequence(self, model: ModelSpec) -> int:
        """The sequence length in force: this workload's, else the model's."""
        if not isinstance(model, ModelSpec):
            raise type_error("model", model, "ModelSpec")
        return self.seq_len if self.seq_len is not None else model.seq_len

    def serving_workload(self, model: ModelSpec) -> Any:
        """This workload as a :class:`coursekit.serving.ServingWorkload`: ``global_batch`` concurrent requests of
        ``tokens_per_sequence(model)`` prompt tokens and ``output_tokens`` output tokens, weights in the recipe's
        parameter bytes (1 at ``precision="fp8"``: FP8 weights and matmuls), the KV cache in bf16, the same runtime
        reserve. The planner's serving mode searches it with
        :func:`coursekit.serving.plan_serving` — there is one serving estimate.

        >>> from coursekit.presets import MODELS
        >>> w = WorkloadSpec(global_batch=64, seq_len=2048, mode="serving").serving_workload(MODELS["llama3-70b"])
        >>> w.concurrency, w.prompt_tokens, w.output_tokens, w.weight_bytes, w.kv_bytes
        (64, 2048, 256, 2.0, 2)

        Taught in: lesson 10 (serving).
        """
        return ServingWorkload(
            prompt_tokens=self.tokens_per_sequence(model),
            output_tokens=self.output_tokens,
            concurrency=self.global_batch,
            weight_bytes=float(PRECISION_RECIPES[self.recipe].param_bytes) if self.precision == "bf16" else 1.0,
            kv_bytes=ACTIVATION_BYTES,
            runtime_reserve_gib=self.runtime_reserve_gib,
            precision=self.precision,
        )


# --------------------------------------------------------------------------- serving

#: The :class:`WorkloadSpec` fields a serving plan reads (:meth:`WorkloadSpec.serving_workload` and the mode itself);
#: ``mode="serving"`` refuses any other field set away from its default.
SERVING_WORKLOAD_FIELDS: tuple[str, ...] = (
    "global_batch",
    "seq_len",
    "mode",
    "recipe",
    "runtime_reserve_gib",
    "output_tokens",
    "precision",
)

#: WorkloadSpec fields (and ``plan``'s flags, ``--`` and the field with dashes) that only a mixture-of-experts model's
#: answer reads: a dense model routes no token to an expert, so on it they would change nothing.
MOE_ONLY_FIELDS: tuple[str, ...] = (
    "ep_node_limit",
    "ep_dedup_per_node",
    "ep_fp8_dispatch",
    "moe_probs_in_experts",
    "moe_layer_host_s",
)
#: WorkloadSpec fields (and flags) that only an FP8 run reads (``precision="fp8"``): at bf16 they change nothing.
FP8_ONLY_FIELDS: tuple[str, ...] = ("fp8_recipe", "fp8_matmul_share", "fp8_weight_cache", "fp8_activation_cache")


class IgnoredSettingWarning(UserWarning):
    """A :class:`WorkloadSpec` setting no answer reads was given: the FP8-only fields (:data:`FP8_ONLY_FIELDS`) on a
    workload whose precision is not FP8. The planner warns rather than refuses, so that one workload can be planned
    at both precisions (``dataclasses.replace(workload, precision="bf16")``); the command line refuses the flag."""


def _unread_fields(workload: WorkloadSpec, model: ModelSpec) -> tuple[str, ...]:
    """Kernel of :func:`coursekit.planner.cli.unread_fields`: the fields of a training ``workload`` set away from
    their default that no answer for ``model`` reads (the MoE-only ones on a dense model, then the FP8-only ones
    when the precision is not FP8)."""
    unread = () if model.is_moe else MOE_ONLY_FIELDS
    unread += () if workload.precision == "fp8" else FP8_ONLY_FIELDS
    defaults = {item.name: item.default for item in fields(WorkloadSpec)}
    return tuple(name for name in unread if getattr(workload, name) != defaults[name])


def unread_recompute_module(
    modules: Any,
    modes: Any,
    model: Any,
    name: Any = "recompute_modules",
    modes_name: Any = "recompute_modes = ('full',)",
) -> str | None:
    """Why the first of ``modules`` (:data:`RECOMPUTE_MODULES`) changes no answer for ``model`` searched at the
    recompute ``modes``, in the learner's language, naming ``name`` (the field or its flag) and, for the modes,
    ``modes_name`` (how the field or the flag states full recomputation alone); ``None`` when each is
    read. ``"moe_act"`` and ``"moe"`` need routed experts, ``"mla_up_proj"`` multi-head latent attention,
    ``"layernorm"`` either (elsewhere the norm is fused into the next linear layer), and every module a mode other than
    ``"full"``, which keeps only each layer's input (:data:`RECOMPUTE_MODULES`).

    >>> from coursekit.presets import MODELS
    >>> unread_recompute_module(("moe_act",), ("none",), MODELS["mixtral-8x7b"]) is None
    True
    >>> why = unread_recompute_module(("moe_act",), ("none",), MODELS["llama3-8b"])
    >>> why.startswith("'moe_act' in recompute_modules: llama3-8b is a dense model (no routed experts)")
    True
    """
    if not isinstance(model, ModelSpec):
        raise type_error("model", model, "ModelSpec")
    for label, given, choices in (("modules", modules, RECOMPUTE_MODULES), ("modes", modes, PLAN_RECOMPUTE_MODES)):
        if isinstance(given, (str, bytes)) or not isinstance(given, (tuple, list)):
            raise type_error(label, given, "tuple of str")
        for item in given:
            check_choice(tr("validate.item_of", name=label), item, choices)
    for label, text in (("name", name), ("modes_name", modes_name)):
        if not isinstance(text, str):
            raise type_error(label, text, "str")
    return _unread_recompute_module(tuple(modules), tuple(modes), model, name, modes_name)


def _unread_recompute_module(
    modules: tuple[str, ...], modes: tuple[str, ...], model: ModelSpec, name: str, modes_name: str
) -> str | None:
    """:func:`unread_recompute_module` on checked values (the planner's and the command line's own)."""
    mla = model.attention_kind == "mla"
    for module in modules:
        if tuple(modes) == ("full",):
            why = tr("planner.unread_module.full", modes=modes_name)
        elif module in ("moe_act", "moe") and not model.is_moe:
            why = tr("planner.unread_module.moe", model=model.name)
        elif module == "mla_up_proj" and not mla:
            why = tr("planner.unread_module.mla", model=model.name)
        elif module == "layernorm" and not (model.is_moe or mla):
            why = tr("planner.unread_module.norm", model=model.name)
        else:
            continue
        return tr("planner.unread_recompute_module", name=name, module=module, why=why)
    return None


def _check_read_fields(model: ModelSpec, workload: WorkloadSpec) -> None:
    """What :func:`coursekit.planner.plan` and :func:`coursekit.planner.evaluate_composition` do with a training
    setting no answer reads (the command line refuses its flag): an MoE-only field set on a dense model is a
    ValueError (the model cannot become MoE without another spec); an FP8-only field at bf16 is an
    :class:`IgnoredSettingWarning`, each naming the field, its value and the rule, in the learner's language. The
    warning points at the learner's line: the first caller outside coursekit."""
    import os
    import sys
    import warnings

    if workload.mode != "training":
        return  # a serving workload refuses every training setting itself
    # the workload's own fields, checked when it was built: the unchecked kernel
    unread_module = _unread_recompute_module(
        workload.recompute_modules, workload.recompute_modes, model, "recompute_modules", "recompute_modes = ('full',)"
    )
    if unread_module is not None:
        raise ValueError(unread_module)
    defaults = {item.name: item.default for item in fields(WorkloadSpec)}
    for name in _unread_fields(workload, model):
        value, default = getattr(workload, name), defaults[name]
        if name in MOE_ONLY_FIELDS:
            raise ValueError(tr("planner.moe_only_field", name=name, value=value, default=default, model=model.name))
        message = tr("planner.fp8_only_field", name=name, value=value, default=default, precision=workload.precision)
        package, frame, level = os.path.dirname(os.path.abspath(__file__)), sys._getframe(0), 1
        while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
            frame, level = frame.f_back, level + 1
        warnings.warn(message, IgnoredSettingWarning, stacklevel=level)


#: Most bytes one weight or one cached K/V element may take: 8 (fp64). The one bound of ``ServingWorkload``'s
#: ``weight_bytes`` and ``kv_bytes``, of the serving functions' (:func:`coursekit.serving.serving_estimate`, ...)
#: and of ``--kv-bytes``.
MAX_ELEMENT_BYTES: int = 8

#: Fewest bytes one weight may take: 1/8, one bit (binary weights, as BitNet's; Wang et al., arXiv:2310.11453). The
#: floor of ``ServingWorkload``'s ``weight_bytes``, of the serving functions' and of ``--weight-bytes``: below it no
#: weight format exists, and 0.0001 bytes per weight would make a 70B model's weights 7 MB.
MIN_WEIGHT_BYTES: float = 0.125


def check_weight_bytes(value: Any) -> float:
    """``value`` as bytes per weight after checking it is a number from :data:`MIN_WEIGHT_BYTES` (one bit) to
    :data:`MAX_ELEMENT_BYTES`; below one bit the refusal says why.

    >>> check_weight_bytes(0.5)
    0.5
    >>> check_weight_bytes(0.0001)
    Traceback (most recent call last):
    ...
    ValueError: weight_bytes = 0.0001: must be >= 0.125 (1 bit per weight, ...).
    """
    weight_bytes = check_number("weight_bytes", value, gt=0, le=MAX_ELEMENT_BYTES)
    if weight_bytes < MIN_WEIGHT_BYTES:
        raise ValueError(tr("serving.weight_bytes_below_bit", value=value, low=MIN_WEIGHT_BYTES))
    return weight_bytes


@learner_arguments()
@dataclass(frozen=True)
class ServingWorkload:
    """What to serve: request shape, load and the optional service-level objectives (SLO).

    Parameters:
        prompt_tokens, output_tokens: tokens per request read (P) and generated (O), >= 1.
        concurrency: requests in flight over the whole cluster; or
        request_rate_per_s: arrivals per second, turned into a concurrency by Little's law (give exactly one).
        ttft_slo_s, tpot_slo_s: objectives for TTFT and TPOT, seconds; ``None`` = none.
        weight_bytes: bytes per weight (2 for bf16), at least :data:`MIN_WEIGHT_BYTES` (one bit); kv_bytes: bytes
            per cached K/V element (an int); both at most :data:`MAX_ELEMENT_BYTES`.
        precision: ``"bf16"`` (the default) or ``"fp8"``: the linear layers' matmuls multiply FP8 weights and
            activations at the device's FP8 peak (W8A8, as vLLM's and TensorRT-LLM's FP8 checkpoints run on
            Hopper), attention stays at the bf16 peak; ``"fp8"`` needs weights of at most 1 byte (``weight_bytes``)
            and a device with FP8 tensor cores.
        runtime_reserve_gib: memory kept free per device (CUDA context, allocator), GiB.
        max_pp: largest pipeline degree the search tries.

    >>> ServingWorkload(prompt_tokens=2048, output_tokens=256, concurrency=64).context_tokens
    2304
    >>> ServingWorkload(prompt_tokens=0, output_tokens=256, concurrency=64)
    Traceback (most recent call last):
    ...
    ValueError: prompt_tokens = 0: must be >= 1.

    Taught in: lesson 10 (serving).
    """

    prompt_tokens: int
    output_tokens: int
    concurrency: int | None = None
    request_rate_per_s: float | None = None
    ttft_slo_s: float | None = None
    tpot_slo_s: float | None = None
    weight_bytes: float = 2.0
    kv_bytes: int = 2
    runtime_reserve_gib: float = DEFAULT_RUNTIME_RESERVE_GIB
    max_pp: int = 8
    precision: str = "bf16"

    def __post_init__(self) -> None:
        _plain_fields(self)
        raw: Any = self
        check_int("prompt_tokens", raw.prompt_tokens, ge=1)
        check_int("output_tokens", raw.output_tokens, ge=1)
        if (raw.concurrency is None) == (raw.request_rate_per_s is None):
            raise ValueError(tr("serving.both_load", concurrency=raw.concurrency, rate=raw.request_rate_per_s))
        if raw.concurrency is not None:
            check_int("concurrency", raw.concurrency, ge=1, le=MAX_CONCURRENCY)
        else:
            rate = check_number("request_rate_per_s", raw.request_rate_per_s, ge=MIN_REQUEST_RATE_PER_S)
            if rate > MAX_REQUEST_RATE_PER_S:
                raise ValueError(
                    tr(
                        "serving.rate_ceiling",
                        value=rate,
                        high=MAX_REQUEST_RATE_PER_S,
                        seconds=RATE_CEILING_REQUEST_S,
                        concurrency=MAX_CONCURRENCY,
                    )
                )
            object.__setattr__(self, "request_rate_per_s", rate)
        for name in ("ttft_slo_s", "tpot_slo_s"):
            if getattr(raw, name) is not None:
                object.__setattr__(self, name, check_number(name, getattr(raw, name), ge=MIN_SLO_S))
        # bytes per element: at most MAX_ELEMENT_BYTES (fp64); a 4-bit weight is 0.5
        weight_bytes = check_weight_bytes(raw.weight_bytes)
        object.__setattr__(self, "weight_bytes", weight_bytes)
        check_int("kv_bytes", raw.kv_bytes, ge=1, le=MAX_ELEMENT_BYTES)
        reserve = check_number("runtime_reserve_gib", raw.runtime_reserve_gib, ge=0, le=MAX_DEVICE_MEMORY_GIB)
        object.__setattr__(self, "runtime_reserve_gib", reserve)
        check_int("max_pp", raw.max_pp, ge=1)
        check_choice("precision", raw.precision, PRECISIONS)
        if raw.precision == "fp8" and weight_bytes > 1:
            raise ValueError(tr("serving.fp8_weights", weight_bytes=weight_bytes))

    @property
    def mode(self) -> str:
        """Always ``"serving"`` (the planner's :class:`~coursekit.planner.WorkloadSpec` has training too)."""
        return "serving"

    @property
    def context_tokens(self) -> int:
        """A request's full context, prompt + output: what its KV cache holds at the end."""
        return self.prompt_tokens + self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "concurrency": self.concurrency,
            "request_rate_per_s": self.request_rate_per_s,
            "ttft_slo_s": self.ttft_slo_s,
            "tpot_slo_s": self.tpot_slo_s,
            "weight_bytes": self.weight_bytes,
            "kv_bytes": self.kv_bytes,
            "runtime_reserve_gib": self.runtime_reserve_gib,
            "precision": self.precision,
        }


# --------------------------------------------------------------------------- unvalidated kernels

_Spec = TypeVar("_Spec")


def _peak_flops(cluster: ClusterSpec, precision: str) -> float:
    """Kernel of :meth:`ClusterSpec.peak`: ``precision`` is one of :data:`PRECISIONS` already (a validated
    workload's); a device without FP8 is still refused."""
    if precision == "bf16":
        return cluster.peak_flops
    if cluster.peak_flops_fp8 is None:
        raise ValueError(tr("planner.no_fp8", cluster=cluster.name, low=FP8_TENSOR_CORE_COMPUTE_CAPABILITY))
    return cluster.peak_flops_fp8


def check_fp8_recipe(cluster: ClusterSpec, recipe: str) -> None:
    """Refuse ``recipe`` (one of :data:`FP8_RECIPES`, already checked) where ``cluster``'s devices cannot run it:
    ``"mxfp8"`` needs compute capability 10.x (:attr:`ClusterSpec.mxfp8`), as Transformer Engine refuses it
    elsewhere (:data:`MXFP8_SOURCE`)."""
    if not isinstance(cluster, ClusterSpec):
        raise type_error("cluster", cluster, "ClusterSpec")
    if check_choice("recipe", recipe, FP8_RECIPES) == "mxfp8" and not cluster.mxfp8:
        cc = cluster.compute_capability
        raise ValueError(
            tr(
                "planner.no_mxfp8",
                cluster=cluster.name,
                capability=tr("planner.capability_unstated") if cc is None else f"{cc:g}",
            )
        )


def check_attention_kernel(cluster: ClusterSpec, kernel: str) -> None:
    """Refuse ``kernel`` (one of :data:`ATTENTION_KERNELS`) where its measured speed does not apply: the figures of
    ``"cudnn"`` and ``"flash-attention-2"`` are H100's, so they need ``cluster``'s compute capability to be 9.x
    (:data:`ATTENTION_KERNEL_COMPUTE_CAPABILITY`); the default, ``"flash-attention-3"``, runs anywhere (its speed
    relative to the best matmul is carried to other devices).

    >>> from coursekit.presets import CLUSTERS
    >>> check_attention_kernel(CLUSTERS["h100-8"], "flash-attention-2")   # measured there: accepted
    >>> check_attention_kernel(CLUSTERS["a100-8"], "flash-attention-2")
    Traceback (most recent call last):
    ...
    ValueError: attention_kernel = 'flash-attention-2': its speed was measured on H100 (compute capability 9.x); ...
    """
    if not isinstance(cluster, ClusterSpec):
        raise type_error("cluster", cluster, "ClusterSpec")
    if check_choice("attention_kernel", kernel, ATTENTION_KERNELS) == ATTENTION_KERNELS[0]:
        return
    cc = cluster.compute_capability
    low, high = ATTENTION_KERNEL_COMPUTE_CAPABILITY
    if cc is None or not low <= cc < high:
        raise ValueError(
            tr(
                "planner.attention_kernel_device",
                value=kernel,
                cluster=cluster.name,
                capability=tr("planner.capability_unstated") if cc is None else f"{cc:.1f}",
            )
        )


def fp8_weight_cache_bytes(recipe: str, any_layout: bool) -> float:
    """Bytes per linear-layer weight of the FP8 copies Transformer Engine caches between micro-batches beside bf16
    weights (``WorkloadSpec(fp8_weight_cache=True)``): on Hopper the FP8 weight and its FP8 transpose,
    :data:`FP8_WEIGHT_CACHE_BYTES`; where the FP8 GEMMs take any layout (``any_layout``, Blackwell) the FP8 weight
    alone, 1; under MXFP8 the row-wise and the column-wise copies with one E8M0 scale per 32 elements each,
    2·(1 + 1/32) (:data:`FP8_LAYOUT_SOURCE`, :data:`MXFP8_SOURCE`).

    >>> [fp8_weight_cache_bytes(recipe, any_layout) for recipe, any_layout in (("current", False), ("current", True),
    ...  ("mxfp8", True))]
    [2.0, 1.0, 2.0625]
    """
    return _fp8_weight_cache_bytes(check_choice("recipe", recipe, FP8_RECIPES), check_bool("any_layout", any_layout))


def _fp8_weight_cache_bytes(recipe: str, any_layout: bool) -> float:
    """Kernel of :func:`fp8_weight_cache_bytes` on checked values."""
    if recipe == "mxfp8":
        return 2.0 * MXFP8_COPY_BYTES
    return 1.0 if any_layout else FP8_WEIGHT_CACHE_BYTES


def _replace_valid(spec: _Spec, **changes: Any) -> _Spec:
    """``dataclasses.replace`` without ``__post_init__``'s checks, for internal callers whose new values are
    valid by construction (floats derived from a validated spec and kept in range). The changed names must be
    fields of the spec; the values are stored as given, so pass them already normalised (floats, not ints)."""
    names = {field.name for field in fields(spec)}  # type: ignore[arg-type]
    unknown = sorted(set(changes) - names)
    if unknown:
        raise TypeError(f"{type(spec).__name__} has no field {unknown[0]!r}")
    new = copy.copy(spec)
    for name, value in changes.items():
        object.__setattr__(new, name, value)
    return new


def expert_tp_default(is_moe: bool, degrees: dict[str, Any]) -> dict[str, Any]:
    """``degrees`` with Megatron's default expert tensor parallelism, ETP = TP, where an MoE layout gives TP but no
    ETP (a paper's or a vendor table's layout means it so); other layouts unchanged. Updates ``degrees`` in place
    and returns it. Source: Megatron-Core's ``initialize_model_parallel`` (megatron/core/parallel_state.py) sets
    ``expert_tensor_parallel_size`` to ``tensor_model_parallel_size`` when none is given.

    >>> expert_tp_default(True, {"tp": 2, "ep": 8}), expert_tp_default(False, {"tp": 2})
    ({'tp': 2, 'ep': 8, 'etp': 2}, {'tp': 2})

    Taught in: lesson 9 (decision workbench).
    """
    if called_from_outside():
        check_bool("is_moe", is_moe)
        check_instance("degrees", degrees, dict)
    if is_moe and "tp" in degrees:
        degrees.setdefault("etp", degrees["tp"])
    return degrees


learner_functions(globals())
