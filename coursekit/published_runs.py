"""Published H100 runs from vendor benchmark tables, and which runs fit a constant and which only check one.

:data:`PUBLISHED_RUNS_2024` adds NVIDIA's own measured configurations to the paper runs of
:data:`coursekit.presets.PUBLISHED_RUNS`. Every run is marked in :data:`RUN_ROLES`: ``"fit"`` runs set a
constant of the estimate and are never used to check it; ``"validation"`` runs only check it. Four constants are
fitted on runs: the efficiency ceiling, on Megatron-LM's Table 1 (:data:`coursekit.presets.MEGATRON_TABLE1`); the host
time per MoE layer, on two Megatron-MoE-ModelZoo rows (:data:`MOE_HOST_FIT_RUNS`); the share of its speed-up an FP8
matmul keeps, on a BF16/FP8 pair (:data:`FP8_FIT_RUNS`); and the share of the EP all-to-all Megatron-Core's overlap
hides, on two ModelZoo rows without and with it (:data:`EP_OVERLAP_FIT_RUNS`); every other published run here is
validation. (The tie rule's
:data:`coursekit.planner.calibration.MEASUREMENT_REPEATABILITY` reads how far NeMo 24.07's rows moved between two
publications of its table — the measurements against each other, never against the estimate — so it tunes
nothing the rows check.)

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ._validate import learner_functions
from .i18n import Text
from .presets import (
    CLUSTERS,
    MEGATRON_CORE_2024,
    MEGATRON_TABLE1,
    PUBLISHED_DEGREE_KEYS,
    PUBLISHED_RUNS,
    PublishedRun,
)
from .specs import EP_A2A_OVERLAP_ON, TP_COMM_OVERLAP_ON, type_error

__all__ = [
    "CITATION_SHARED_PREFIX",
    "DGXC_2505_RUNS",
    "DGXC_2505_SOURCE",
    "DGXC_DEEPSEEK_V3_RUN",
    "DGXC_DEEPSEEK_V3_SOURCE",
    "DGXC_RUNS",
    "DGXC_SOURCE",
    "EP_OVERLAP_FIT_RUNS",
    "FP8_FIT_RUNS",
    "MEGATRON_BRIDGE_2509_SOURCE",
    "MEGATRON_BRIDGE_2511_SOURCE",
    "MEGATRON_BRIDGE_2602_SOURCE",
    "MEGATRON_BRIDGE_2604_SOURCE",
    "MEGATRON_BRIDGE_B200_CONFIG",
    "MEGATRON_BRIDGE_B200_RUNS",
    "MEGATRON_BRIDGE_B200_SOURCE",
    "MEGATRON_BRIDGE_GB200_CONFIG",
    "MEGATRON_BRIDGE_GB200_RUNS",
    "MEGATRON_BRIDGE_GB200_SOURCE",
    "MOE_HOST_FIT_RUNS",
    "MOE_ZOO_QWEN3_LONG_RUNS",
    "MOE_ZOO_QWEN3_RUNS",
    "MOE_ZOO_QWEN3_SOURCE",
    "NEMO_2407_FINETUNE_SOURCE",
    "NEMO_2407_LORA_CONFIG",
    "NEMO_2407_LORA_RUNS",
    "NEMO_2407_SFT_CONFIG",
    "NEMO_2407_SFT_RUNS",
    "NEMO_2407_SOURCE",
    "NEMO_2502_B200_CONFIG",
    "NEMO_2502_B200_RUNS",
    "NEMO_2502_B200_SOURCE",
    "NEMO_2502_H100_RUNS",
    "NEMO_2502_H100_SOURCE",
    "NEMO_2502_MIXTRAL_8X22B_CONFIG",
    "NEMO_LONG_CONTEXT_ROWS",
    "NEMO_LONG_CONTEXT_RUNS",
    "NEMO_LONG_CONTEXT_SOURCE",
    "PUBLISHED_RUNS_2024",
    "PUBLISHED_RUNS_2025",
    "RUN_ROLES",
    "all_published_runs",
    "citation",
    "citation_lines",
    "nemo_llama2_flops_per_token",
]

NEMO_2407_SOURCE: str = (
    "NVIDIA NeMo, “Performance Summary” (NeMo 24.07, DGX-H100, FP8 pre-training), "
    "github.com/NVIDIA/NeMo docs/source/performance/performance_summary.md"
)

#: The training configs that turn on Transformer Engine's TP comm-GEMM overlap for the runs below (the
#: ``overlap_tp`` option: :data:`coursekit.specs.TP_COMM_OVERLAP_ON`).
NEMO_2407_LLAMA_CONFIGS: str = (
    "; NVIDIA NeMo-Framework-Launcher 24.07 (8325688d8345a5513660f0f8390f0482a721c009), "
    "launcher_scripts/conf/training/llama/{name}.yaml: ub_tp_comm_overlap: true"
)
#: NeMo's launcher config of the table's GPT-3 175B rows leaves TP comm-GEMM overlap off (the course's default
#: is on, as NVIDIA's newer performance recipes set it: :data:`coursekit.specs.OVERLAP_SOURCES`).
NEMO_2407_GPT3_CONFIG: str = (
    "; NVIDIA NeMo-Framework-Launcher launcher_scripts/conf/training/gpt3/175b.yaml @ "
    "8325688d8345a5513660f0f8390f0482a721c009 (24.07), @ 26e42fa91d9e608897ce485b4911c263a4b57008: "
    "ub_tp_comm_overlap: False"
)
#: The option for a run whose config leaves the engine's TP comm-GEMM overlap off.
TP_OVERLAP_OFF: tuple[str, Any] = ("overlap_tp", 0.0)
MEGATRON_BRIDGE_LLAMA_RECIPE: str = (
    "; Megatron-Bridge (df0289c180dd20ff26933455c7a0a11084f6a36f) src/megatron/bridge/recipes/llama/llama3.py "
    "{name}: CommOverlapConfig(tp_comm_overlap=True)"
)
#: Gradients accumulated and reduced in fp32: the ``megatron-bf16`` recipe (bf16 weights, fp32 main gradients, fp32
#: master weights and Adam moments, 2 + 4 + 12 bytes per parameter). Megatron-LM's trainer sets it whenever ``--bf16``
#: is on and ``--grad-reduce-in-bf16`` is not (megatron/training/arguments.py @ d98e8a64: "accumulate and all-reduce
#: gradients in fp32 for bfloat16 data type"), and NeMo's 24.03-24.07 launcher configs set it through
#: ``distributed_fused_adam`` with no ``grad_sync_dtype`` (NeMo-Framework-Launcher 8325688d, launcher_scripts/conf/
#: training/{llama,gpt3,nemotron}/*.yaml). The runs of those engines name it, because the workload's default is the
#: bf16-gradient recipe of NVIDIA's performance scripts (:data:`coursekit.specs.DEFAULT_RECIPE`).
FP32_GRADS: tuple[str, Any] = ("recipe", "megatron-bf16")
#: The pipeline split of an engine from before Megatron-Core's ``--account-for-embedding-in-pipeline-split`` and
#: ``--account-for-loss-in-pipeline-split`` (:data:`coursekit.specs.EDGE_LAYERS_SOURCE`, February 2025), or of a config
#: that leaves them off: every stage holds transformer layers only. Named by each run whose model's layers a search
#: could split that way (the workload's default, ``None``, would: :func:`coursekit.specs.edge_layers_at`).
NO_EDGE_SPLIT: tuple[str, Any] = ("pipeline_edge_layers", 0)
#: The split that counts the embedding and the loss as a layer each, as configs that set both options run it: NeMo's
#: ``llama31_405b`` recipe from v2.2.0 (25.02; NVIDIA/NeMo e446337779, "interface for asymmetric pipeline schedule",
#: nemo/collections/llm/recipes/llama31_405b.py: ``account_for_embedding_in_pipeline_split = True``,
#: ``account_for_loss_in_pipeline_split = True``; also @ 6f2c6fda, DGX Cloud's 25.05 recipe) and Megatron-Bridge's
#: ``qwen3_235b_a22b_pretrain_config`` (src/megatron/bridge/recipes/qwen/qwen3_moe.py @ df0289c and c0b9a000: both
#: True).
EDGE_SPLIT: tuple[str, Any] = ("pipeline_edge_layers", 1)
#: Megatron-Bridge's Llama performance scripts reduce gradients in bf16 (df0289c, scripts/performance/configs/llama/
#: llama3_llm_pretrain.py set_llama3_common_configs and llama31_llm_pretrain.py set_llama31_common_configs:
#: ``cfg.ddp.grad_reduce_in_fp32 = False``), so Megatron-Core's gradient buffer holds the parameters' dtype: bf16
#: weights and gradients, fp32 master weights and Adam moments, 2 + 2 + 12 bytes per parameter.
MEGATRON_BRIDGE_LLAMA_GRADS: tuple[str, Any] = ("recipe", "zero-fp16-adam")

#: NVIDIA's measured H100 configurations (NeMo 24.07, FP8 with delayed scaling, Megatron-Core's default recipe),
#: tokens per GPU-second.
PUBLISHED_RUNS_2024: tuple[PublishedRun, ...] = (
    PublishedRun(
        "NeMo Llama 3 8B, 8K, 8 H100 (FP8)",
        "llama3-8b",
        "h100-8",
        1,
        128,
        8192,
        (("tp", 1), ("cp", 2), ("pp", 1), ("dp", 4)),
        "tokens",
        0.0,
        NEMO_2407_SOURCE + ", row LLAMA3-8B",
        measured_tokens_per_gpu_s=12036.0,
        workload_options=(("precision", "fp8"), ("max_micro_batch", 1)),
        note=Text(
            zh="8 张 H100，TP 1、PP 1、CP 2，微批次 1，每 GPU 每秒 12036 个 token（FP8）",
            en="8 H100s, TP 1, PP 1, CP 2, micro-batch 1: 12036 tokens per GPU-second (FP8)",
        ),
    ),
    PublishedRun(
        "NeMo Llama 3 70B, 8K, 64 H100 (FP8)",
        "llama3-70b",
        "h100-8",
        8,
        128,
        8192,
        (("tp", 4), ("cp", 2), ("pp", 4), ("dp", 2)),
        "tokens",
        0.0,
        NEMO_2407_SOURCE + ", row LLAMA3-70B" + NEMO_2407_LLAMA_CONFIGS.format(name="llama3_70b"),
        measured_tokens_per_gpu_s=1533.0,
        workload_options=(
            ("precision", "fp8"),
            ("max_micro_batch", 1),
            ("max_virtual_stages", 5),
            ("overlap_tp", TP_COMM_OVERLAP_ON),
        ),
        note=Text(
            zh="64 张 H100，TP 4、PP 4、CP 2、VP 5，微批次 1，每 GPU 每秒 1533 个 token（FP8）",
            en="64 H100s, TP 4, PP 4, CP 2, VP 5, micro-batch 1: 1533 tokens per GPU-second (FP8)",
        ),
    ),
    PublishedRun(
        "NeMo GPT-3 175B, 2K, 128 H100 (FP8)",
        "gpt3-175b",
        "h100-8",
        16,
        256,
        2048,
        (("tp", 4), ("cp", 1), ("pp", 8), ("dp", 4)),
        "tokens",
        0.0,
        NEMO_2407_SOURCE + ", row GPT3-175B (128 GPUs)" + NEMO_2407_GPT3_CONFIG,
        measured_tokens_per_gpu_s=726.0,
        workload_options=(("precision", "fp8"), ("max_micro_batch", 1), ("max_virtual_stages", 6), TP_OVERLAP_OFF),
        note=Text(
            zh="128 张 H100，TP 4、PP 8、VP 6，微批次 1，每 GPU 每秒 726 个 token（FP8）",
            en="128 H100s, TP 4, PP 8, VP 6, micro-batch 1: 726 tokens per GPU-second (FP8)",
        ),
    ),
)


def _nemo_2407_grads(runs: tuple[PublishedRun, ...]) -> tuple[PublishedRun, ...]:
    """``runs`` with NeMo 24.07's fp32 gradients (:data:`FP32_GRADS`) added to each row of its table that names no
    recipe: every row but Nemotron-4 340B, whose config sets ``grad_sync_dtype: bf16``."""
    return tuple(
        replace(run, workload_options=(*run.workload_options, FP32_GRADS))
        if run.source.startswith(NEMO_2407_SOURCE) and "recipe" not in dict(run.workload_options)
        else run
        for run in runs
    )


PUBLISHED_RUNS_2024 = _nemo_2407_grads(PUBLISHED_RUNS_2024)

#: Megatron-Bridge's performance page, 25.11 release, DGX-H100 table (its MoE rows are token-dropless with
#: force-balanced routing, as the page states).
MEGATRON_BRIDGE_2511_SOURCE: str = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, 25.11 NeMo container, DGX-H100, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md @ c0b9a00031b79b731ccefb56d0aba9629b4dd01b"
)


#: Megatron-Bridge's performance pages of other releases, DGX-H100 tables (each row names its release).
MEGATRON_BRIDGE_2509_SOURCE: str = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, 25.09 NeMo container, DGX-H100, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md @ fa0315ae2684693a666be9d247adf9baf1e30028"
)
MEGATRON_BRIDGE_2602_SOURCE: str = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, 26.02 NeMo container, DGX-H100, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md @ c0b9a00031b79b731ccefb56d0aba9629b4dd01b"
)
MEGATRON_BRIDGE_2604_SOURCE: str = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, 26.04 NeMo container, DGX-H100, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @ "
    "067f987df03b8355b03192d88d70f1709fedf51a"
)
#: The 25.09 DeepSeek-V3 H100 row's recipe: expert tensor parallelism 1, bf16 gradient reduction
#: (grad_reduce_in_fp32: false), and what run_script.py sets for the H100: DeepEP (enable_deepep, the flex
#: dispatcher), the 1F1B all-to-all overlap (overlap_moe_expert_parallel_comm, delay_wgrad_compute), no overlap of the
#: gradient reduction (overlap_grad_reduce = False), selective recomputation of recompute_modules = ["mla_up_proj",
#: "mlp"] only (the list replaces Megatron-Core's default ["core_attn"]), and the pipeline layout "Et|(tt|)*30mL".
DEEPSEEK_V3_BRIDGE_CONFIG: str = (
    "Megatron-Bridge scripts/performance/configs/deepseek/deepseek_v3_llm_pretrain.yaml @ "
    "fa0315ae2684693a666be9d247adf9baf1e30028 (h100 num_gpus_1024: tp 2, pp 8, vp 4, ep 64, etp 1, mbs 1, gbs 8192; "
    "recompute_granularity: selective; grad_reduce_in_fp32: false); Megatron-Bridge scripts/performance/run_script.py, "
    "src/megatron/bridge/recipes/deepseek/deepseek_v3.py @ fa0315ae2684693a666be9d247adf9baf1e30028: "
    "CommOverlapConfig(tp_comm_overlap=False); run_script.py, H100: enable_deepep, overlap_moe_expert_parallel_comm, "
    'delay_wgrad_compute, overlap_grad_reduce = False, recompute_modules = ["mla_up_proj", "mlp"], layout '
    '"Et|(tt|)*30mL"'
)


#: Megatron-Core's MoE guide (megatron/core/transformer/moe/README.md @ 8a71e3bc, its opening paragraph): "This boosts
#: Mixtral 8X7B bf16 training to achieve **468 TFLOPS** as of MCore v0.9" (audit 29: the wording "With MCore v0.9,
#: we've achieved remarkable performance of 468 TFLOPS for Mixtral 8X7B bf16 training" quoted here before came in
#: with Megatron-LM 0d389f5e, 2025-02-25, after the cited commit), and, under "Reference Best Parallel Mapping" ("the
#: reference parallel mappings of MCore v0.8"), Mixtral 8x7B (dropless, all-to-all dispatcher, BF16) on 64 H100s (8
#: per node, InfiniBand 8x400 Gbit/s; PyTorch 24.09 with Transformer Engine v1.11), sequence 4096: TP 1, EP 8, PP 4,
#: VP 8, MBS 1, GBS 256. The guide gives the figure and the mapping on the same page; that the figure was measured on
#: that mapping is the course's reading. The figure is Megatron-Core's logged TFLOP/s per GPU, counted by its r0.8
#: formula (core_r0.8.0 to core_r0.10.0).
MEGATRON_CORE_MOE_GUIDE: str = (
    "NVIDIA Megatron-LM, megatron/core/transformer/moe/README.md @ 8a71e3bc7ddf27b83f981b9751a115e48f31c5f0 "
    "(“This boosts Mixtral 8X7B bf16 training to achieve 468 TFLOPS as of MCore v0.9”; “Reference Best Parallel "
    "Mapping”: Mixtral 8x7B (Dropless), All-to-All, BF16, 64 GPUs, SEQ LEN 4096, TP 1, EP 8, PP 4, VP 8, MBS 1, "
    "GBS 256)"
)


#: Megatron-Core r0.8.0's weak-scaling rows on H100 (Megatron-LM README's model table): size label, TP, PP, DP,
#: GPUs, global batch, teraFLOP/s per GPU. The README: fine-grained overlap of DP (``--overlap-grad-reduce
#: --overlap-param-gather``, hence the distributed optimizer, ZeRO-1), TP (``--tp-comm-overlap``) and PP traffic.
MEGATRON_CORE_WEAK_SCALING: tuple[tuple[str, int, int, int, int, int, float], ...] = (
    ("1.7b", 1, 1, 48, 48, 192, 408.8),
    ("7.1b", 2, 1, 48, 96, 192, 465.9),
    ("16b", 4, 1, 48, 192, 192, 489.1),
    ("32b", 8, 1, 48, 384, 192, 459.6),
    ("70b", 8, 2, 48, 768, 384, 419.7),
    ("119b", 8, 4, 48, 1536, 768, 420.5),
    ("177b", 8, 6, 48, 2304, 1152, 432.8),
    ("314b", 8, 8, 48, 3072, 1536, 474.4),
    ("462b", 8, 16, 48, 6144, 3072, 459.9),
)


def _mcore_run(size: str, tp: int, pp: int, dp: int, gpus: int, batch: int, tflops: float) -> PublishedRun:
    """One row of Megatron-Core's 2024 H100 model table: bf16, sequence 4096, the layout as published, micro-batch,
    interleaving and recomputation searched (the table does not state them)."""
    return PublishedRun(
        f"Megatron-Core GPT {size.upper()}, 4K, {gpus} H100",
        f"mcore-gpt-{size}",
        "h100-8",
        gpus // 8,
        batch,
        4096,
        (("tp", tp), ("cp", 1), ("pp", pp), ("dp", dp)),
        "megatron-core",
        tflops,
        MEGATRON_CORE_2024 + f", row {size.upper()}",
        workload_options=(("zero_stages", (1,)), ("overlap_tp", TP_COMM_OVERLAP_ON), FP32_GRADS, NO_EDGE_SPLIT),
        note=Text(
            zh=f"{gpus} 张 H100，TP {tp}、PP {pp}、DP {dp}，全局批 {batch}：每 GPU {tflops:g} TFLOP/s（bf16）",
            en=f"{gpus} H100s, TP {tp}, PP {pp}, DP {dp}, global batch {batch}: {tflops:g} TFLOP/s per GPU (bf16)",
        ),
    )


#: Megatron-Bridge's performance releases (25.09 on) require megatron-core >= 0.14 (Megatron-Bridge pyproject.toml @
#: fa0315ae2684693a666be9d247adf9baf1e30028: "megatron-core[dev,mlm]>=0.14.0a0,<0.16.0"), which contains Megatron-LM
#: 2659630721 ("perf(MoE): Memory efficient token permutation", 2025-04-09): the router's probabilities multiply the
#: routed experts' activation and the combine keeps no copy of their outputs (``moe_probs_in_experts``).
MEGATRON_BRIDGE_PROBS_IN_EXPERTS: str = (
    "Megatron-Bridge pyproject.toml @ fa0315ae2684693a666be9d247adf9baf1e30028 (megatron-core >= 0.14.0a0); "
    "Megatron-LM 2659630721, megatron/core/transformer/moe/experts.py (activation_func_with_probs) and "
    "token_dispatcher.py (unpermute without probs)"
)


def _is_moe(model: str) -> bool:
    from .presets import MODELS

    return MODELS[model].is_moe


def _run(
    name: str,
    model: str,
    gpus: int,
    batch: int,
    seq: int,
    layout: dict[str, int],
    micro_batch: int,
    virtual: int,
    tokens: float,
    source: str,
    zero_stages: tuple[int, ...] = (0, 1, 2),
    options: tuple[tuple[str, Any], ...] = (),
    cluster: str = "h100-8",
) -> PublishedRun:
    """One row of a vendor table: FP8, tokens per GPU-second, the published micro-batch and interleaving depth as
    upper bounds of the search (the layout as published); ``options`` are further workload settings the run's own
    training config states. The FP8 recipe: NeMo 24.07's rows delayed scaling (the default; Transformer Engine 1.x
    had no other per-tensor recipe), Megatron-Bridge's per-tensor current scaling (:data:`MEGATRON_BRIDGE_FP8_CS`).
    Megatron-Bridge's rows run a Megatron-Core whose MoE layers multiply the router's probabilities into the experts'
    activation (:data:`MEGATRON_BRIDGE_PROBS_IN_EXPERTS`; stated for MoE models only, a dense model has no such
    layer). ``cluster`` is the node preset (H100 unless a row says
    otherwise)."""
    keys = PUBLISHED_DEGREE_KEYS
    degrees = tuple((k, layout.get(k, 1)) for k in keys if k not in ("ep", "etp") or k in layout)
    parts = [f"TP {layout.get('tp', 1)}", f"PP {layout.get('pp', 1)}", f"CP {layout.get('cp', 1)}"]
    parts += [f"EP {layout['ep']}"] if "ep" in layout else []
    parts += [f"ETP {layout['etp']}"] if "etp" in layout else []
    parts += [f"VP {virtual}"] if virtual > 1 else []
    shape = ", ".join(parts)
    device = cluster.split("-")[0].upper()  # the preset's GPU: "h100-8" -> "H100"
    return PublishedRun(
        name,
        model,
        cluster,
        gpus // CLUSTERS[cluster].gpus_per_node,
        batch,
        seq,
        degrees,
        "tokens",
        0.0,
        source,
        measured_tokens_per_gpu_s=tokens,
        workload_options=(
            ("precision", "fp8"),
            ("max_micro_batch", micro_batch),
            ("max_virtual_stages", virtual),
            ("zero_stages", zero_stages),
            *((("fp8_recipe", "current"),) if name.startswith("Megatron-Bridge") else ()),
            # an MoE setting: a dense model's rows leave it out (plan() refuses a setting no answer reads)
            *((("moe_probs_in_experts", True),) if name.startswith("Megatron-Bridge") and _is_moe(model) else ()),
            *options,
        ),
        note=Text(
            zh=f"{gpus} 张 {device}，{shape}，微批次 {micro_batch}，每 GPU 每秒 {tokens:g} 个 token（FP8）",
            en=f"{gpus} {device}s, {shape}, micro-batch {micro_batch}: {tokens:g} tokens per GPU-second (FP8)",
        ),
    )


#: The launcher's training config of Nemotron-4 340B: Megatron-Core's distributed optimizer (ZeRO-1) with
#: ``grad_sync_dtype: bf16`` (bf16 gradients: 16 bytes per parameter in all, the ZeRO paper's 2 + 2 + 12) and
#: ``ub_tp_comm_overlap: True`` (TP communication overlapped with the GEMMs).
NEMOTRON4_340B_CONFIG: str = (
    "NVIDIA NeMo-Framework-Launcher, launcher_scripts/conf/training/nemotron/nemotron_340b.yaml @ "
    "3be81fc10dfe2bcb51da024e2ebcdaf4d4eb3261 (optim: mcore_distributed_optim; grad_sync_dtype: bf16; "
    "ub_tp_comm_overlap: True)"
)

#: Megatron-Bridge's H100 FP8 rows are its ``fp8_cs`` configs, per-tensor current scaling (the config names end in
#: ``_FP8_CS_V1``; DeepSeek-V3's table entry gives the current-scaling figure, the blockwise one in parentheses).
MEGATRON_BRIDGE_FP8_CS: str = (
    "Megatron-Bridge docs/performance-summary-archive.md @ 067f987df03b8355b03192d88d70f1709fedf51a (25.09, DGX-H100: "
    "“The numbers in parentheses indicate the use of different quantization granularities”); "
    "scripts/performance/configs/deepseek/deepseek_v3_llm_pretrain.yaml @ fa0315ae2684693a666be9d247adf9baf1e30028 "
    "(h100 num_gpus_1024: fp8_cs)"
)

#: The H100 FP8 training configs of the Qwen3 MoE rows at EP 32 and EP 8: they set ``moe_a2a_overlap=True``
#: (Megatron-Core's expert-parallel all-to-all overlap: one micro-batch's dispatch and combine run under another's
#: compute), the ``alltoall`` token dispatcher, expert TP 1 and force-balanced, token-dropless routing.
#: Megatron-Bridge's 26.02.01 patch release (the archive's "26.02.01 NeMo Container" table).
MEGATRON_BRIDGE_260201_SOURCE: str = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, 26.02.01 NeMo container, DGX-H100, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @ "
    "067f987df03b8355b03192d88d70f1709fedf51a"
)
#: The 26.02 config of Qwen3 30B-A3B on 16 H100s at FP8: TP 1, PP 2, VP 12, global batch 1024, the all-to-all overlap
#: and DeepEP (the flex dispatcher's backend: one copy of a token per node, ``ep_dedup_per_node``).
QWEN3_30B_H100_2602_CONFIG: str = (
    "NVIDIA-NeMo/Megatron-Bridge scripts/performance/configs/qwen/qwen3_workload_base_configs.py @ "
    "df0289c180dd20ff26933455c7a0a11084f6a36f (QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1: num_gpus 16, "
    "global_batch_size 1024, pipeline_model_parallel_size 2, virtual_pipeline_model_parallel_size 12, "
    "moe_a2a_overlap=True, moe_flex_dispatcher_backend='deepep'; set_qwen3_common_configs: "
    "grad_reduce_in_fp32 = False)"
)
QWEN3_H100_CONFIG: str = (
    "NVIDIA-NeMo/Megatron-Bridge scripts/performance/configs/qwen/qwen3_workload_base_configs.py and "
    "qwen3_llm_pretrain.py @ df0289c180dd20ff26933455c7a0a11084f6a36f (QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1, "
    "QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_FP8_CS_V1: moe_a2a_overlap=True, expert_tensor_parallel_size=1; "
    "moe_token_dispatcher_type alltoall; moe_router_force_load_balancing=True; qwen3_235b_a22b_pretrain_config_h100: "
    "CommOverlapConfig(tp_comm_overlap=False); set_qwen3_common_configs: grad_reduce_in_fp32 = False)"
)
#: Megatron-Bridge's Qwen3 performance scripts reduce gradients in bf16 (``set_qwen3_common_configs``:
#: ``cfg.ddp.grad_reduce_in_fp32 = False``, in scripts/performance/configs/qwen3/qwen3_llm_pretrain.py before the
#: launchers were unified in c3e43e6a and in configs/qwen/ after): 2 + 2 + 12 bytes per parameter, as for Llama.
MEGATRON_BRIDGE_QWEN3_GRADS: tuple[str, Any] = MEGATRON_BRIDGE_LLAMA_GRADS

#: The launcher's 24.07 training config of GPT-3 20B: TP 2, micro-batch 2, Transformer Engine's TP comm-GEMM overlap
#: (the ``overlap_tp`` option), and NeMo's ``distributed_fused_adam`` (Apex's distributed Adam: fp32 optimizer states,
#: gradients reduce-scattered in its fp32 ``dtype`` as no ``grad_sync_dtype`` is set, parameters all-gathered in bf16
#: under ``megatron_amp_O2``: the ``megatron-bf16`` recipe's 2 + 4 + 12 bytes), with ``overlap_grad_sync`` (buckets of
#: 220 MB reduce during the last micro-batch's backward; the earlier micro-batches run under ``no_sync``) and
#: ``overlap_param_sync`` (the all-gathers run under the next step's first forward).
NEMO_2407_GPT3_20B_CONFIG: str = (
    "NVIDIA NeMo-Framework-Launcher 24.07 (8325688d8345a5513660f0f8390f0482a721c009), "
    "launcher_scripts/conf/training/gpt3/20b.yaml: micro_batch_size: 2; ub_tp_comm_overlap: True; optim: "
    "distributed_fused_adam, bucket_cap_mb: 220, overlap_grad_sync: True, overlap_param_sync: true"
)

#: The version of NeMo's 24.07 table the rows below read (an edit of the same page lists other figures, e.g. 825
#: instead of 782 tokens/s for GPT-3 175B on 512 GPUs).
NEMO_2407_COMMIT: str = " @ 070a0bb168d405d653b9734c0017cf5078e77c0d"

#: NeMo's launcher configs of the table's Nemotron-3 rows: TP comm-GEMM overlap on, NeMo's distributed Adam.
NEMO_2407_NEMOTRON3_CONFIG: str = (
    "NVIDIA NeMo-Framework-Launcher 24.07 (8325688d8345a5513660f0f8390f0482a721c009), "
    "launcher_scripts/conf/training/nemotron/nemotron_{size}.yaml: ub_tp_comm_overlap=true; "
    "optim.name=distributed_fused_adam, optim.overlap_grad_sync=true, optim.overlap_param_sync=true"
)

#: More vendor-table rows on H100 (FP8): NeMo 24.07's other large rows and Megatron-Bridge 25.11's H100 table, dense
#: and MoE. ZeRO: the tables' FSDP column is 0 (Megatron's distributed optimizer, ZeRO-1, or plain DDP) except where
#: it says FSDP (ZeRO-3).
PUBLISHED_RUNS_2025: tuple[PublishedRun, ...] = (
    _run(
        "NeMo GPT-3 175B, 2K, 512 H100 (FP8)",
        "gpt3-175b",
        512,
        2048,
        2048,
        {"tp": 4, "pp": 8, "dp": 16},
        2,
        6,
        782.0,
        NEMO_2407_SOURCE + NEMO_2407_COMMIT + ", row GPT3-175B (512 GPUs)" + NEMO_2407_GPT3_CONFIG,
        options=(TP_OVERLAP_OFF,),
    ),
    _run(
        "NeMo Llama 2 7B, 4K, 8 H100 (FP8)",
        "llama2-7b",
        8,
        128,
        4096,
        {"dp": 8},
        1,
        1,
        16847.0,
        NEMO_2407_SOURCE + NEMO_2407_COMMIT + ", row LLAMA2-7B",
    ),
    _run(
        "NeMo Llama 2 13B, 4K, 16 H100 (FP8)",
        "llama2-13b",
        16,
        128,
        4096,
        {"pp": 4, "dp": 4},
        1,
        10,
        8646.0,
        NEMO_2407_SOURCE + NEMO_2407_COMMIT + ", row LLAMA2-13B",
    ),
    _run(
        "NeMo Llama 2 70B, 4K, 64 H100 (FP8)",
        "llama2-70b",
        64,
        128,
        4096,
        {"tp": 4, "pp": 4, "dp": 4},
        1,
        20,
        1707.0,
        NEMO_2407_SOURCE + NEMO_2407_COMMIT + ", row LLAMA2-70B" + NEMO_2407_LLAMA_CONFIGS.format(name="llama2_70b"),
        options=(("overlap_tp", TP_COMM_OVERLAP_ON),),
    ),
    _run(
        "NeMo Nemotron-4 340B, 4K, 128 H100 (FP8)",
        "nemotron4-340b",
        128,
        32,
        4096,
        {"tp": 8, "pp": 8, "dp": 2},
        1,
        12,
        322.0,
        NEMO_2407_SOURCE + NEMO_2407_COMMIT + ", row Nemotron-340B; " + NEMOTRON4_340B_CONFIG,
        zero_stages=(1,),
        options=(
            ("recipe", "zero-fp16-adam"),  # grad_sync_dtype bf16: 2 + 2 + 12 bytes, Megatron's bf16-gradient row
            ("overlap_tp", TP_COMM_OVERLAP_ON),  # ub_tp_comm_overlap: True
        ),
    ),
    _run(
        "Megatron-Bridge Llama 3 8B, 8K, 8 H100 (FP8, FSDP)",
        "llama3-8b",
        8,
        128,
        8192,
        {"dp": 8},
        1,
        1,
        14451.0,
        MEGATRON_BRIDGE_2511_SOURCE + ", row LLAMA3_8B",
        zero_stages=(3,),
        options=(MEGATRON_BRIDGE_LLAMA_GRADS,),
    ),
    _run(
        "Megatron-Bridge Llama 3 70B, 8K, 64 H100 (FP8)",
        "llama3-70b",
        64,
        128,
        8192,
        {"tp": 4, "pp": 8, "dp": 2},
        1,
        5,
        1602.0,
        MEGATRON_BRIDGE_2511_SOURCE
        + ", row LLAMA3_70B"
        + MEGATRON_BRIDGE_LLAMA_RECIPE.format(name="llama3_70b_pretrain_config"),
        options=(("overlap_tp", TP_COMM_OVERLAP_ON), MEGATRON_BRIDGE_LLAMA_GRADS),
    ),
    _run(
        "Megatron-Bridge Llama 3.1 405B, 8K, 1024 H100 (FP8)",
        "llama3-405b",
        1024,
        512,
        8192,
        {"tp": 8, "pp": 8, "cp": 2, "dp": 8},
        1,
        8,
        292.0,
        MEGATRON_BRIDGE_2511_SOURCE
        + ", row LLAMA3.1_405B"
        + MEGATRON_BRIDGE_LLAMA_RECIPE.format(name="llama31_405b_pretrain_config")
        + ", account_for_embedding_in_pipeline_split = account_for_loss_in_pipeline_split = True",
        # The recipe counts the embedding and the loss as a layer of the first and the last stage.
        options=(("overlap_tp", TP_COMM_OVERLAP_ON), ("pipeline_edge_layers", 1), MEGATRON_BRIDGE_LLAMA_GRADS),
    ),
    _run(
        "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8)",
        "qwen3-30b-a3b",
        16,
        512,
        4096,
        {"tp": 1, "pp": 2, "dp": 8, "ep": 8},
        2,
        24,
        5275.0,
        MEGATRON_BRIDGE_2511_SOURCE + ", row Qwen3_30B_a3B; " + QWEN3_H100_CONFIG,
        options=(("overlap_ep", EP_A2A_OVERLAP_ON), MEGATRON_BRIDGE_QWEN3_GRADS),  # moe_a2a_overlap=True
    ),
    _run(
        "Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8)",
        "qwen3-235b-a22b",
        256,
        2048,
        4096,
        {"tp": 2, "pp": 8, "dp": 16, "ep": 32, "etp": 1},  # the recipe sets expert_tensor_parallel_size = 1
        1,
        4,
        1575.0,
        MEGATRON_BRIDGE_2511_SOURCE + ", row Qwen3_235B_a22B; " + QWEN3_H100_CONFIG,
        # moe_a2a_overlap=True; qwen3_235b_a22b_pretrain_config_h100: CommOverlapConfig(tp_comm_overlap=False)
        options=(("overlap_ep", EP_A2A_OVERLAP_ON), TP_OVERLAP_OFF, MEGATRON_BRIDGE_QWEN3_GRADS, EDGE_SPLIT),
    ),
    # More validation rows (none fits a constant): the rest of NeMo 24.07's pre-training table that the presets
    # cover (GPT-3 5B and 20B), and Megatron-Bridge's other H100 configurations: DeepSeek-V3 on H100 (25.09), the
    # 26.02 rows at larger global batches, and 26.04's Qwen3 30B-A3B with EP 16.
    _run(
        "NeMo GPT-3 5B, 2K, 64 H100 (FP8)",
        "gpt3-5b",
        64,
        2048,
        2048,
        {"dp": 64},
        4,
        1,
        22521.0,
        NEMO_2407_SOURCE + NEMO_2407_COMMIT + ", row GPT3-5B",
    ),
    _run(
        "NeMo GPT-3 20B, 2K, 64 H100 (FP8)",
        "gpt3-20b",
        64,
        256,
        2048,
        {"tp": 2, "dp": 32},
        2,
        1,
        5851.0,
        NEMO_2407_SOURCE + NEMO_2407_COMMIT + ", row GPT3-20B; " + NEMO_2407_GPT3_20B_CONFIG,
        options=(("overlap_tp", TP_COMM_OVERLAP_ON),),
    ),
    # The table's two Nemotron-3 rows (configs: presets.NEMOTRON3_CONFIGS; both set ub_tp_comm_overlap: true and
    # distributed_fused_adam with overlap_grad_sync and overlap_param_sync, no grad_sync_dtype: fp32 gradients).
    _run(
        "NeMo Nemotron-3 8B, 4K, 64 H100 (FP8)",
        "nemotron3-8b",
        64,
        256,
        4096,
        {"tp": 2, "dp": 32},
        4,
        1,
        12701.0,
        NEMO_2407_SOURCE + NEMO_2407_COMMIT + ", row Nemotron-8B; " + NEMO_2407_NEMOTRON3_CONFIG.format(size="8b"),
        options=(("overlap_tp", TP_COMM_OVERLAP_ON),),
    ),
    _run(
        "NeMo Nemotron-3 22B, 4K, 64 H100 (FP8)",
        "nemotron3-22b",
        64,
        256,
        4096,
        {"tp": 2, "pp": 4, "dp": 8},
        2,
        10,
        4256.0,
        NEMO_2407_SOURCE + NEMO_2407_COMMIT + ", row Nemotron-22B; " + NEMO_2407_NEMOTRON3_CONFIG.format(size="22b"),
        options=(("overlap_tp", TP_COMM_OVERLAP_ON),),
    ),
    _run(
        "Megatron-Bridge DeepSeek-V3 (MoE), 4K, 1024 H100 (FP8)",
        "deepseek-v3",
        1024,
        8192,
        4096,
        {"tp": 2, "pp": 8, "dp": 64, "ep": 64, "etp": 1},
        1,
        4,
        1297.0,
        MEGATRON_BRIDGE_2509_SOURCE + ", row DeepSeekV3 (dropless); " + DEEPSEEK_V3_BRIDGE_CONFIG,
        options=(
            ("recipe", "zero-fp16-adam"),  # grad_reduce_in_fp32: false, bf16 gradients: 2 + 2 + 12
            # recompute_modules ["mla_up_proj", "mlp"]: no core-attention recomputation; the "mlp" module (the three
            # dense layers' MLPs) is left out
            ("recompute_modes", ("none",)),
            ("recompute_modules", ("mla_up_proj",)),
            # The model's group-limited routing (8 groups, 4 per token); EP 64 puts one group on each node.
            ("ep_node_limit", 4),
            ("ep_dedup_per_node", True),  # enable_deepep on the H100: DeepEP's flex dispatcher
            ("overlap_ep", EP_A2A_OVERLAP_ON),  # overlap_moe_expert_parallel_comm with delay_wgrad_compute
            ("overlap_dp", 0.0),  # overlap_grad_reduce = False on the H100
            # "Et|(tt|)*30mL" (32 chunks of 2 layer slots): the first chunk holds the embedding and 1 layer, the last
            # the MTP block and the loss and no layer. Per stage of 4 chunks: 7, 8 and 6 layers (61 + 1 + 2 = 8 · 8).
            ("pipeline_edge_layers", 1),
            ("pipeline_last_edge_layers", 2),
            TP_OVERLAP_OFF,  # the recipe's CommOverlapConfig(tp_comm_overlap=False)
        ),
    ),
    _run(
        "Megatron-Bridge Llama 3 70B, 8K, 64 H100 (FP8, GBS 256)",
        "llama3-70b",
        64,
        256,
        8192,
        {"tp": 4, "pp": 8, "dp": 2},
        1,
        5,
        1621.0,
        MEGATRON_BRIDGE_2602_SOURCE
        + ", row LLAMA3_70B"
        + MEGATRON_BRIDGE_LLAMA_RECIPE.format(name="llama3_70b_pretrain_config"),
        options=(("overlap_tp", TP_COMM_OVERLAP_ON), MEGATRON_BRIDGE_LLAMA_GRADS),  # the 25.11 row's recipe
    ),
    _run(
        "Megatron-Bridge Llama 3.1 405B, 8K, 1024 H100 (FP8, GBS 1536)",
        "llama3-405b",
        1024,
        1536,
        8192,
        {"tp": 8, "pp": 8, "cp": 2, "dp": 8},
        1,
        8,
        311.0,
        MEGATRON_BRIDGE_2602_SOURCE
        + ", row LLAMA3.1_405B"
        + MEGATRON_BRIDGE_LLAMA_RECIPE.format(name="llama31_405b_pretrain_config")
        + ", account_for_embedding_in_pipeline_split = account_for_loss_in_pipeline_split = True",
        options=(("overlap_tp", TP_COMM_OVERLAP_ON), ("pipeline_edge_layers", 1), MEGATRON_BRIDGE_LLAMA_GRADS),
    ),
    _run(
        "Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8, GBS 8192)",
        "qwen3-235b-a22b",
        256,
        8192,
        4096,
        {"tp": 2, "pp": 8, "dp": 16, "ep": 32, "etp": 1},  # the recipe's expert_tensor_parallel_size = 1, as above
        1,
        4,
        1633.0,
        MEGATRON_BRIDGE_2602_SOURCE + ", row Qwen3_235B_a22B; " + QWEN3_H100_CONFIG + " (V2: V1 with GBS 8192)",
        # moe_a2a_overlap=True, tp_comm_overlap=False and bf16 gradients as above
        options=(("overlap_ep", EP_A2A_OVERLAP_ON), TP_OVERLAP_OFF, MEGATRON_BRIDGE_QWEN3_GRADS, EDGE_SPLIT),
    ),
    _run(
        "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, EP 16)",
        "qwen3-30b-a3b",
        16,
        1024,
        4096,
        {"tp": 1, "pp": 1, "dp": 16, "ep": 16},
        1,
        1,
        8901.0,
        MEGATRON_BRIDGE_2604_SOURCE + ", row Qwen3_30B_a3B (DGX-H100)",
        options=(MEGATRON_BRIDGE_QWEN3_GRADS,),  # set_qwen3_common_configs, as above
    ),
    # The 26.02 table's Qwen3 30B-A3B row and the 26.02.01 patch release's row for the same config (TP 1, PP 2, VP 12,
    # EP 8, global batch 1024, DeepEP, moe_a2a_overlap): one layout measured 1.77x apart by two releases of the engine.
    # The 26.02 row as merged (PR #2492, c0b9a000) reads 5113 tokens/s at 118 TFLOP/s; the PR's draft (df0289c1)
    # printed 2557 beside the same 118 TFLOP/s, half what that TFLOP/s means at this model's count
    # (tests/test_vendor_table_columns.py checks every registered row's two columns against each other).
    *(
        _run(
            f"Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, GBS 1024, {release})",
            "qwen3-30b-a3b",
            16,
            1024,
            4096,
            {"tp": 1, "pp": 2, "dp": 8, "ep": 8},
            1,
            12,
            tokens,
            f"{table}, row Qwen3_30B_a3B (DGX-H100); {QWEN3_30B_H100_2602_CONFIG}",
            options=(("overlap_ep", EP_A2A_OVERLAP_ON), ("ep_dedup_per_node", True), MEGATRON_BRIDGE_QWEN3_GRADS),
        )
        for release, tokens, table in (
            ("26.02", 5113.0, MEGATRON_BRIDGE_2602_SOURCE),
            ("26.02.01", 9058.0, MEGATRON_BRIDGE_260201_SOURCE),
        )
    ),
    PublishedRun(
        "Megatron-Core Mixtral 8x7B (MoE), 4K, 64 H100",
        "mixtral-8x7b",
        "h100-8",
        8,
        256,
        4096,
        (("tp", 1), ("cp", 1), ("pp", 4), ("dp", 16), ("ep", 8)),
        "megatron-core",
        468.0,
        MEGATRON_CORE_MOE_GUIDE,
        workload_options=(
            ("max_micro_batch", 1),
            ("max_virtual_stages", 8),
            # The guide's best practice: the distributed optimizer with --overlap-grad-reduce/--overlap-param-gather.
            ("zero_stages", (1,)),
            FP32_GRADS,  # Megatron-LM's trainer at --bf16
        ),
        note=Text(
            zh="64 张 H100，TP 1、EP 8、PP 4、VP 8，微批次 1，全局批 256：每 GPU 468 TFLOP/s"
            "（bf16，Megatron-Core 计数）",
            en="64 H100s, TP 1, EP 8, PP 4, VP 8, micro-batch 1, global batch 256: 468 TFLOP/s per GPU "
            "(bf16, Megatron-Core's count)",
        ),
    ),
    # Megatron-Core's 2024 weak-scaling table on H100 (bf16): its teraFLOP/s per GPU in Megatron-Core's own count.
    *(_mcore_run(*row) for row in MEGATRON_CORE_WEAK_SCALING),
)

#: The Megatron-MoE-ModelZoo's Qwen3 page, H100 table (256 H100s, NVLink 4, InfiniBand 8 x 50 GB/s a node; BF16,
#: sequence 4096, GBS 2048): step time and "Per GPU TF", Megatron-Core's logged TFLOP/s per GPU. The rows ran
#: Megatron-LM main 1e057005 (2025-05-24) or a moe_dev build (f3e6c5, mid-2025); 1e057005 contains 8873b55 (March
#: 2025), so the figure is the 2025 count (:func:`coursekit.planner.specs.megatron_core_model_flops_per_step`,
#: ``"2025"``): 1.2418e18 FLOPs a step, 245 TFLOP/s x 256 GPUs x 19.7 s = 1.2356e18. (The zoo pads the vocabulary
#: to a multiple of 1187·TP, leaving 151936 as it is; the count's 128·TP padding adds 0.002 %.)
MOE_ZOO_QWEN3_SOURCE: str = (
    "Megatron-MoE-ModelZoo (github.com/yanring/Megatron-MoE-ModelZoo) best_practice/qwen3/readme.md @ "
    "e8650517d60d71ab73fc6b3b0388cac4ba435181, H100"
)
#: What every H100 row of that table set, read from the same commit: model_configs/benchmarking/Qwen3-235B-A22B.yaml
#: (--use-distributed-optimizer, --overlap-grad-reduce, --overlap-param-gather: ZeRO-1; --sequence-parallel;
#: --expert-tensor-parallel-size 1; --account-for-embedding-in-pipeline-split and
#: --account-for-loss-in-pipeline-split, with runtime_configs/benchmarking/runtime.conf counting 96 = 94 + 2 layers:
#: the embedding and the loss take one layer's slot on the first and the last stage) and sbatch_benchmarking.sh
#: (PR=bf16 adds --tp-comm-overlap; DISPATCHER=deepep selects --moe-token-dispatcher-type flex
#: --moe-flex-dispatcher-backend deepep; A2A_OVERLAP=1 adds --overlap-moe-expert-parallel-comm
#: --delay-wgrad-compute). The BF16 rows keep Megatron's fp32 main gradients (the precision-aware optimizer is set
#: only for FP8): the ``megatron-bf16`` recipe.
MOE_ZOO_QWEN3_CONFIG: str = (
    "; model_configs/benchmarking/Qwen3-235B-A22B.yaml, runtime_configs/benchmarking/runtime.conf, "
    "sbatch_benchmarking.sh and best_practice/qwen3/run_235b.sh @ e8650517d60d71ab73fc6b3b0388cac4ba435181"
)
#: DeepEP's normal (training) kernels send a token over RDMA once to each node that holds any of its experts and
#: forward it inside the node over NVLink (deepseek-ai/DeepEP README, "asymmetric-domain bandwidth forwarding";
#: DeepSeek-V3 §3.2.1): the ``ep_dedup_per_node`` option.
DEEPEP_SOURCE: str = (
    "deepseek-ai/DeepEP README (normal kernels: NVLink and RDMA forwarding, one RDMA copy per destination node); "
    "DeepSeek-V3, arXiv:2412.19437, §3.2.1"
)
MOE_ZOO_NORM_ACT: tuple[tuple[str, Any], ...] = (
    ("recompute_modes", ("none",)),
    ("recompute_modules", ("layernorm", "moe_act")),
)
MOE_ZOO_COMMON: tuple[tuple[str, Any], ...] = (
    FP32_GRADS,  # the BF16 rows keep Megatron-LM's fp32 main gradients (MOE_ZOO_QWEN3_CONFIG)
    ("overlap_tp", TP_COMM_OVERLAP_ON),  # PR=bf16: --tp-comm-overlap
    ("pipeline_edge_layers", 1),  # the embedding and the loss each count as a layer of the pipeline split
)


def _zoo_run(
    label: str,
    layout: dict[str, int],
    micro_batch: int,
    virtual: int,
    step_s: float,
    tflops: float,
    row: str,
    options: tuple[tuple[str, Any], ...],
) -> PublishedRun:
    """One H100 row of the Megatron-MoE-ModelZoo's Qwen3 table: Qwen3 235B-A22B, BF16, 256 H100s, sequence 4096,
    GBS 2048, ETP 1, the layout as published; ``options`` are what that row's command set beyond the common ones."""
    keys = PUBLISHED_DEGREE_KEYS
    full = {"cp": 1, "etp": 1, **layout}
    degrees = tuple((k, full[k]) for k in keys)
    shape = ", ".join(f"{k.upper()} {full[k]}" for k in ("tp", "ep", "pp") if k in full)
    shape += f", VP {virtual}" if virtual > 1 else ""
    return PublishedRun(
        f"MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 ({label})",
        "qwen3-235b-a22b",
        "h100-8",
        32,
        2048,
        4096,
        degrees,
        "megatron-core-2025",
        tflops,
        MOE_ZOO_QWEN3_SOURCE + ", row “" + row + "”" + MOE_ZOO_QWEN3_CONFIG,
        workload_options=(
            ("max_micro_batch", micro_batch),
            ("max_virtual_stages", virtual),
            *MOE_ZOO_COMMON,
            *options,
        ),
        note=Text(
            zh=f"256 张 H100，{shape}，微批次 {micro_batch}，全局批 2048：每步 {step_s:g} s，每 GPU {tflops:g} TFLOP/s"
            "（bf16，Megatron-Core 2025 计数）",
            en=f"256 H100s, {shape}, micro-batch {micro_batch}, global batch 2048: {step_s:g} s a step, {tflops:g} "
            "TFLOP/s per GPU (bf16, Megatron-Core's 2025 count)",
        ),
    )


#: The zoo's five H100 rows. Their recompute column: "norm, act" is Megatron-Core's module-level selective
#: recomputation, --recompute-granularity selective --recompute-modules moe_act layernorm (run_235b.sh), whose list
#: replaces the default core_attn: no recompute mode plus the modules (:data:`MOE_ZOO_NORM_ACT`); "full" and ""
#: (none) are stated as such.
#: The FSDP row ran Megatron-FSDP (``--use-custom-fsdp``) without stating its sharding strategy; the search tries
#: ZeRO-1 to 3, the strategies it offers besides ``no_shard``.
MOE_ZOO_QWEN3_RUNS: tuple[PublishedRun, ...] = (
    _zoo_run(
        "DeepEP, EP 32",
        {"tp": 2, "ep": 32, "pp": 8, "dp": 16},
        1,
        4,
        19.7,
        245.0,
        "235B DeepEP TP 2 EP 32 PP 8 VPP 4 (norm, act recompute)",
        (("zero_stages", (1,)), ("ep_dedup_per_node", True), *MOE_ZOO_NORM_ACT),  # DISPATCHER=deepep
    ),
    _zoo_run(
        "DeepEP, EP 32, 1F1B overlap",
        {"tp": 2, "ep": 32, "pp": 8, "dp": 16},
        1,
        4,
        17.6,
        276.0,
        "235B DeepEP TP 2 EP 32 PP 8 VPP 4 (norm, act recompute; +1f1b overlap)",
        # A2A_OVERLAP=1: --overlap-moe-expert-parallel-comm, Megatron-Core's 1F1B all-to-all overlap
        (("zero_stages", (1,)), ("ep_dedup_per_node", True), ("overlap_ep", EP_A2A_OVERLAP_ON), *MOE_ZOO_NORM_ACT),
    ),
    _zoo_run(
        "DeepEP, EP 8, FSDP",
        {"tp": 2, "ep": 8, "pp": 1, "dp": 128},
        4,
        1,
        17.6,
        276.0,
        "235B DeepEP TP 2 EP 8 PP 1 EDP 32 FSDP MBS 4 (full recompute)",
        # FSDP on, its sharding strategy not stated: Megatron-LM 1e057005 --use-custom-fsdp with
        # --data-parallel-sharding-strategy optim | optim_grads | optim_grads_params (ZeRO-1, -2, -3), so 1 to 3
        (("zero_stages", (1, 2, 3)), ("ep_dedup_per_node", True), ("recompute_modes", ("full",))),
    ),
    # best_practice/qwen3/run_h100_235b.sh: "# H100 config, 320 TFLOPS" — the layout of the row above with
    # DISPATCHER=deepep A2A_OVERLAP=1, --recompute-modules moe_act layernorm, --moe-router-force-load-balancing and
    # --cuda-graph-impl transformer_engine --cuda-graph-scope moe_router moe_preprocess (CUDA graphs for the router
    # and the dispatcher's preprocessing, which the workbench does not model). No step time is given; at the 2025
    # count 320 TFLOP/s is a 15.2 s step.
    PublishedRun(
        "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 32, 1F1B overlap, CUDA graphs)",
        "qwen3-235b-a22b",
        "h100-8",
        32,
        2048,
        4096,
        (("tp", 2), ("cp", 1), ("pp", 8), ("dp", 16), ("ep", 32), ("etp", 1)),
        "megatron-core-2025",
        320.0,
        "Megatron-MoE-ModelZoo (github.com/yanring/Megatron-MoE-ModelZoo) best_practice/qwen3/run_h100_235b.sh @ "
        "e8650517d60d71ab73fc6b3b0388cac4ba435181 (“H100 config, 320 TFLOPS”; “--recompute-modules moe_act layernorm”)"
        + MOE_ZOO_QWEN3_CONFIG,
        workload_options=(
            ("max_micro_batch", 1),
            ("max_virtual_stages", 4),
            *MOE_ZOO_COMMON,
            ("zero_stages", (1,)),
            ("ep_dedup_per_node", True),
            ("overlap_ep", EP_A2A_OVERLAP_ON),
            *MOE_ZOO_NORM_ACT,
        ),
        note=Text(
            zh="256 张 H100，TP 2、EP 32、PP 8、VP 4，微批次 1，全局批 2048，1F1B 全对全重叠，路由器与分发预处理用 "
            "CUDA 图 (CUDA Graph)：每 GPU 320 TFLOP/s（bf16，Megatron-Core 2025 计数）",
            en="256 H100s, TP 2, EP 32, PP 8, VP 4, micro-batch 1, global batch 2048, 1F1B all-to-all overlap, CUDA "
            "graphs for the router and the dispatch preprocessing: 320 TFLOP/s per GPU (bf16, Megatron-Core's 2025 "
            "count)",
        ),
    ),
    _zoo_run(
        "all-to-all, EP 8, PP 32",
        {"tp": 2, "ep": 8, "pp": 32, "dp": 4},
        1,
        3,
        24.2,
        200.0,
        "235B A2A TP 2 EP 8 PP 32 VPP 3 (norm, act recompute)",
        # DISPATCHER=alltoall: every copy sent (EP 8 stays inside a node anyway)
        (("zero_stages", (1,)), *MOE_ZOO_NORM_ACT),
    ),
    _zoo_run(
        "DeepEP, TP 4, EP 8",
        {"tp": 4, "ep": 8, "pp": 8, "dp": 8},
        1,
        4,
        29.0,
        167.0,
        "235B DeepEP TP 4 EP 8 PP 8 VPP 4 (no recompute)",
        (("zero_stages", (1,)), ("ep_dedup_per_node", True), ("recompute_modes", ("none",))),
    ),
)

#: The same page's long-context table (Qwen3 235B-A22B, DeepEP, bf16, 32 nodes of 8 H100s, GBS 256; TFLOP/s per GPU
#: only): sequence, CP, TFLOP/s with forced load balancing, TFLOP/s dropless. Its command (best_practice/qwen3/
#: run_235b.sh, "Long context"): OPTIMIZER_OFFLOAD=0 A2A_OVERLAP=0 PP=8 VPP=4 TP=4 EP=8, MBS 1, PR=bf16,
#: --recompute-granularity selective --recompute-modules layernorm moe, and --moe-router-force-load-balancing for
#: the forced figure. The workbench routes tokens evenly, so the forced figure is compared; the dropless one is in the
#: note. The table names no code version; the count is the 2025 one, as for the 4K rows of the same page.
MOE_ZOO_QWEN3_LONG: tuple[tuple[int, int, float, float], ...] = (
    (16384, 1, 295.0, 237.0),
    (32768, 2, 335.0, 277.0),
    (65536, 4, 368.0, 320.0),
    (131072, 8, 389.0, 357.0),
)


def _zoo_long_run(seq_len: int, cp: int, forced: float, dropless: float) -> PublishedRun:
    """One row of the zoo's Qwen3 long-context table: TP 4, CP ``cp``, PP 8, VP 4, EP 8, ETP 1, DP the rest."""
    dp = 256 // (4 * cp * 8)
    k = seq_len // 1024
    return PublishedRun(
        f"MoE-ModelZoo Qwen3 235B-A22B (MoE), {k}K, 256 H100 (CP {cp})",
        "qwen3-235b-a22b",
        "h100-8",
        32,
        256,
        seq_len,
        (("tp", 4), ("cp", cp), ("pp", 8), ("dp", dp), ("ep", 8), ("etp", 1)),
        "megatron-core-2025",
        forced,
        MOE_ZOO_QWEN3_SOURCE + f", “Long Context” {seq_len} (“forced balance”)" + MOE_ZOO_QWEN3_CONFIG,
        workload_options=(
            ("max_micro_batch", 1),
            ("max_virtual_stages", 4),
            *MOE_ZOO_COMMON,
            ("zero_stages", (1,)),
            ("ep_dedup_per_node", True),  # Dispatcher: DeepEP
            ("recompute_modes", ("none",)),  # --recompute-modules replaces the default core_attn
            ("recompute_modules", ("layernorm", "moe")),
        ),
        note=Text(
            zh=f"256 张 H100，TP 4、CP {cp}、PP 8、VP 4、EP 8，序列 {seq_len}，全局批 256：每 GPU {forced:g} TFLOP/s"
            f"（强制负载均衡；不丢 token 时 {dropless:g}；bf16，Megatron-Core 2025 计数）",
            en=f"256 H100s, TP 4, CP {cp}, PP 8, VP 4, EP 8, sequence {seq_len}, global batch 256: {forced:g} TFLOP/s "
            f"per GPU (forced load balance; {dropless:g} dropless; bf16, Megatron-Core's 2025 count)",
        ),
    )


MOE_ZOO_QWEN3_LONG_RUNS: tuple[PublishedRun, ...] = tuple(_zoo_long_run(*row) for row in MOE_ZOO_QWEN3_LONG)
PUBLISHED_RUNS_2025 = (*_nemo_2407_grads(PUBLISHED_RUNS_2025), *MOE_ZOO_QWEN3_RUNS, *MOE_ZOO_QWEN3_LONG_RUNS)

#: NVIDIA's DGX Cloud Benchmarking recipes, release v24.11.1: each recipe's README lists, under "Expected
#: Performance", the step time of one layout on DGX-H100 at several scales (weak scaling), in BF16 and in FP8, with
#: the recipe's NeMo config beside it. The rows here are each table's smallest scale, both precisions (Llama 3.1 405B's
#: smallest that runs the whole model: its smaller columns are proxies with fewer layers).
DGXC_SOURCE: str = (
    "NVIDIA “DGX Cloud Benchmarking” (github.com/NVIDIA/dgxc-benchmarking) @ 35a9aecc8d5b17d99d80f52f38c75ade0dbab7ae "
    "(v24.11.1)"
)


def _dgxc_run(
    model: str,
    label: str,
    gpus: int,
    batch: int,
    seq: int,
    layout: dict[str, int],
    micro_batch: int,
    virtual: int,
    precision: str,
    step_s: float,
    table: str,
    options: tuple[tuple[str, Any], ...],
    source: str = DGXC_SOURCE,
    release: str = "",
) -> PublishedRun:
    """One DGX Cloud Benchmarking row: ``table`` names the README, its table title and the recipe's config;
    ``step_s`` is the README's "Training step time" at ``gpus``; the throughput compared is tokens per GPU-second,
    ``batch·seq / (step_s·gpus)`` (the README's own formula, per GPU). ``source`` names the release read, and
    ``release`` (e.g. ``"25.05 "``) starts the name of a row whose model and GPUs an earlier release also ran."""
    keys = ("tp", "cp", "pp", "dp", "ep", "etp")
    full = {"cp": 1, "pp": 1, **layout}
    degrees = tuple((k, full[k]) for k in keys if k in full)
    tokens = batch * seq / (step_s * gpus)
    shown = [k for k in ("tp", "pp", "cp", "ep", "etp") if full.get(k, 1) > 1 or (k == "etp" and k in full)]
    shape = ", ".join(f"{k.upper()} {full[k]}" for k in shown)
    shape += f", VP {virtual}" if virtual > 1 else ""
    upper = precision.upper()
    return PublishedRun(
        f"DGX Cloud {release}{label}, {seq // 1024}K, {gpus} H100 ({upper})",
        model,
        "h100-8",
        gpus // 8,
        batch,
        seq,
        degrees,
        "tokens",
        0.0,
        source + ", " + table,
        measured_tokens_per_gpu_s=tokens,
        workload_options=(
            ("precision", precision),
            ("max_micro_batch", micro_batch),
            ("max_virtual_stages", virtual),
            *options,
        ),
        note=Text(
            zh=f"{gpus} 张 H100，{shape}，微批次 {micro_batch}，全局批 {batch}：每步 {step_s:g} s（{upper}）",
            en=f"{gpus} H100s, {shape}, micro-batch {micro_batch}, global batch {batch}: {step_s:g} s a step ({upper})",
        ),
    )


#: What the recipes' configs set that the workbench models: ``grad_sync_dtype: bf16`` (bf16 gradients, the
#: ``zero-fp16-adam`` recipe's 2 + 2 + 12 bytes), ``ub_tp_comm_overlap`` (TP comm-GEMM overlap) and the
#: recompute granularity; NeMo 24.09-24.11 (Transformer Engine 1.x) scales FP8 with delayed scaling, the default.
_DGXC_BF16_GRADS: tuple[str, Any] = ("recipe", "zero-fp16-adam")
#: The dense recipes' configs keep torch FSDP off (``fsdp: false``, NeMo's default where unstated) and train with
#: ``distributed_fused_adam`` (Apex's DistributedFusedAdam, ZeRO-2 by its own description: optimizer states sharded,
#: gradients reduce-scattered to their owners), as NeMo 24.07's rows (:func:`_run`). The search may try ZeRO up to 2.
#: A caveat on memory: the configs set ``contiguous_grad_buffer: true``, and Apex then keeps every gradient in one
#: full-size buffer (its docstring: "maximizes memory usage"), as Megatron-Core's distributed optimizer does with its
#: full ``grad_data`` buffer (Megatron-Bridge's rows): ZeRO-1's gradient memory, where ZeRO-2 counts a 1/dp share.
#: Three passes rest on that smaller count (``benchmarks/report_published_options.py --keep`` without
#: ``zero_stages`` shows them): DGX Cloud's Nemotron-4 340B in BF16 (its VP 12 layout fits only with sharded
#: gradients) and Megatron-Bridge's two Llama 3 70B rows (with ZeRO-1 only, the fastest competitor changes and
#: they fall to tie group 2 at 1.08x).
_DGXC_NO_FSDP: tuple[str, Any] = ("zero_stages", (0, 1, 2))
_DGXC_ROWS: tuple[tuple[Any, ...], ...] = (
    # model, label, GPUs, GBS, seq, layout, MBS, VP, step s (BF16, FP8), README and table, config, options
    (
        "llama3-8b",
        "Llama 3.1 8B",
        8,
        128,
        8192,
        {"tp": 1, "cp": 2, "dp": 4},
        1,
        1,
        (12.91, 9.67),
        "llama3.1/README_8b.md, “Llama 3.1 8b 24.09 {p} (TP=1, PP=1, CP=2, MBS=1, GA=32)”, 8x H100",
        "llama3.1/llama3.1_8b.yaml: grad_sync_dtype bf16, sequence_parallel false, ub_tp_comm_overlap false",
        (_DGXC_BF16_GRADS, _DGXC_NO_FSDP),
    ),
    (
        "llama3-70b",
        "Llama 3.1 70B",
        64,
        128,
        8192,
        {"tp": 4, "pp": 4, "cp": 2, "dp": 2},
        1,
        5,
        (14.72, 11.01),
        "llama3.1/README_70b.md, “Llama 3.1 70b 24.09 {p} (TP=4, PP=4, CP=2, VP=5, MBS=1, GA=64)”, 64x H100",
        "llama3.1/llama3.1_70b.yaml: grad_sync_dtype bf16, ub_tp_comm_overlap true",
        (_DGXC_BF16_GRADS, _DGXC_NO_FSDP, ("overlap_tp", TP_COMM_OVERLAP_ON)),
    ),
    (  # the recipe's smallest scale that runs all 126 layers: its 32- to 192-GPU columns are proxies of 7 to 42
        "llama3-405b",
        "Llama 3.1 405B",
        576,
        252,
        8192,
        {"tp": 8, "pp": 9, "cp": 2, "dp": 4},
        1,
        7,
        (17.20, 11.24),
        "llama3.1/README_405b.md, “Llama 3.1 405b 24.09 {p} (TP=8, PP=9, CP=2, VP=7, MBS=1, GA=63)”, 576x H100",
        "llama3.1/llama3.1_405b.yaml: grad_sync_dtype bf16, ub_tp_comm_overlap true",
        (_DGXC_BF16_GRADS, _DGXC_NO_FSDP, ("overlap_tp", TP_COMM_OVERLAP_ON)),
    ),
    (
        "gpt3-175b",
        "GPT-3 175B",
        128,
        256,
        2048,
        {"tp": 4, "pp": 8, "dp": 4},
        1,
        12,
        (8.91, 5.92),
        "nemo_megatron/README_175b.md, “NeMo Megatron 24.11 {p} (TP=4,PP=8, MBS=1, VP=12, SEQ=2048)”, 128x H100",
        "nemo_megatron/gpt3_175b_hydra.yaml: grad_sync_dtype bf16, ub_tp_comm_overlap true",
        (_DGXC_BF16_GRADS, _DGXC_NO_FSDP, ("overlap_tp", TP_COMM_OVERLAP_ON)),
    ),
    (
        "nemotron4-15b",
        "Nemotron-4 15B",
        16,
        64,
        4096,
        {"tp": 4, "dp": 4},
        4,
        1,
        (2.83, 2.08),
        "nemotron/README_15b.md, “Nemotron4 15b 24.11 {p} (TP=4, PP=1, MBS=4, GA=4)”, 16x H100",
        "nemotron/nemotron4-15b-synth.yaml: grad_sync_dtype bf16, ub_tp_comm_overlap true",
        (_DGXC_BF16_GRADS, _DGXC_NO_FSDP, ("overlap_tp", TP_COMM_OVERLAP_ON)),
    ),
    (
        "nemotron4-340b",
        "Nemotron-4 340B",
        128,
        32,
        4096,
        {"tp": 8, "pp": 8, "dp": 2},
        1,
        12,
        (4.61, 3.16),
        "nemotron/README_340b.md, “Nemotron4 340b 24.11 {p} (TP=8, PP=8, MBS=1, GA=16, VP=12)”, 128x H100",
        "nemotron/nemotron4-340b-synth.yaml: grad_sync_dtype bf16, activations_checkpoint_granularity selective, "
        "ub_tp_comm_overlap false",
        (_DGXC_BF16_GRADS, _DGXC_NO_FSDP, ("recompute_modes", ("selective",)), TP_OVERLAP_OFF),
    ),
    (
        "grok1-314b",
        "Grok-1 314B (MoE)",
        512,
        1024,
        8192,
        {"tp": 4, "pp": 8, "cp": 2, "ep": 8, "dp": 8},
        1,
        8,
        (20.83, 16.69),
        "grok1/README_314b.md, “Grok 1 314b Dev {p}”, 512 H100 (TP 4, PP 8, CP 2, EP 8, VP 8, MBS 1, GBS 1024)",
        "grok1/grok1_314b.yaml: mcore_distributed_optim, grad_sync_dtype bf16, ub_tp_comm_overlap false",
        (_DGXC_BF16_GRADS, ("zero_stages", (1,)), TP_OVERLAP_OFF),
    ),
)


def _dgxc_runs(
    rows: tuple[tuple[Any, ...], ...], source: str = DGXC_SOURCE, release: str = "", common: tuple[Any, ...] = ()
) -> tuple[PublishedRun, ...]:
    """A release's rows (model, label, GPUs, GBS, seq, layout, MBS, VP, step s (BF16, FP8), README and table, config
    and, optionally, the row's own options) as runs, BF16 then FP8, each with the release's ``common`` options."""
    return tuple(
        _dgxc_run(
            model,
            label,
            gpus,
            batch,
            seq,
            layout,
            mbs,
            vp,
            precision,
            step,
            table.format(p=precision.upper()) + "; " + config,
            (*common, *(own[0] if own else ())),
            source=source,
            release=release,
        )
        for model, label, gpus, batch, seq, layout, mbs, vp, steps, table, config, *own in rows
        for precision, step in zip(("bf16", "fp8"), steps, strict=True)
    )


DGXC_RUNS: tuple[PublishedRun, ...] = _dgxc_runs(_DGXC_ROWS, common=(NO_EDGE_SPLIT,))  # NeMo of 2024

#: DGX Cloud Benchmarking's v25.05.02 release: the H100 recipes moved to NeMo 2.0 (NeMo 25.04 containers; each
#: recipe's setup.sh pins the NeMo commit its options are read at). Every one runs NeMo's
#: ``pretrain_recipe(performance_mode=True)``: bf16 gradient reduction (``grad_reduce_in_fp32 = False``, the
#: ``zero-fp16-adam`` recipe's 2 + 2 + 12 bytes), Megatron-Core's distributed optimizer (ZeRO-1) and TP comm overlap
#: (``tp_comm_overlap=True``, userbuffers); no recomputation is set. FP8 is NeMo's default delayed scaling. Grok-1 now
#: runs expert TP 1 (``-et 1``, launch.sh).
DGXC_2505_SOURCE: str = (
    "NVIDIA “DGX Cloud Benchmarking” (github.com/NVIDIA/dgxc-benchmarking) @ f041145fd100054c03ad37f1fe5a7689b672ee64 "
    "(v25.05.02)"
)
_DGXC_2505_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("recipe", "zero-fp16-adam"),
    ("zero_stages", (1,)),
    ("overlap_tp", TP_COMM_OVERLAP_ON),
)
_DGXC_2505_ROWS: tuple[tuple[Any, ...], ...] = (
    # model, label, GPUs, GBS, seq, layout, MBS, VP, step s (BF16, FP8), README and table, config
    (
        "llama3-405b",
        "Llama 3.1 405B",
        512,
        256,
        8192,
        {"tp": 8, "pp": 8, "cp": 2, "dp": 4},
        1,
        8,
        (19.810, 13.020),
        "llama3.1/README.md, “Llama3.1 405b {p}”, 512x H100 (TP 8, PP 8, CP 2, DP 4, VP 8, MBS 1, GBS 256)",
        "NVIDIA/NeMo @ 6f2c6fdaffcc0af97a9e2219fcc104e2399627e4: nemo/collections/llm/recipes/llama31_405b.py "
        "performance_optimizations (tp_comm_overlap = True, grad_reduce_in_fp32 = False; "
        "account_for_embedding_in_pipeline_split = account_for_loss_in_pipeline_split = True)",
        (EDGE_SPLIT,),
    ),
    (
        "nemotron4-15b",
        "Nemotron-4 15B",
        16,
        64,
        4096,
        {"tp": 2, "dp": 8},
        2,
        1,
        (2.746, 1.988),
        "nemotron/README.md, “Nemotron4 15b {p} H100”, 16x H100 (TP 2, DP 8, MBS 2, GBS 64)",
        "NVIDIA/NeMo @ b4148d21695de467d50ebf050566555429c26919: nemo/collections/llm/recipes/nemotron4_15b.py "
        "(tp_comm_overlap = True, grad_reduce_in_fp32 = False)",
    ),
    (
        "nemotron4-340b",
        "Nemotron-4 340B",
        256,
        64,
        4096,
        {"tp": 8, "pp": 8, "dp": 4},
        1,
        12,
        (4.606, 3.107),
        "nemotron/README.md, “Nemotron4 340b {p} H100”, 256x H100 (TP 8, PP 8, DP 4, VP 12, MBS 1, GBS 64)",
        "NVIDIA/NeMo @ b4148d21695de467d50ebf050566555429c26919: nemo/collections/llm/recipes/nemotron4_340b.py "
        "(tp_comm_overlap = True, grad_reduce_in_fp32 = False)",
    ),
    (
        "grok1-314b",
        "Grok-1 314B (MoE)",
        512,
        1024,
        8192,
        {"tp": 4, "pp": 8, "cp": 2, "ep": 8, "etp": 1, "dp": 8},
        1,
        8,
        (15.933, 13.433),
        "grok1/README.md, “Grok1 314b {p}”, 512x H100 (TP 4, PP 8, CP 2, EP 8, ETP 1, DP 8, VP 8, MBS 1, GBS 1024)",
        "grok1/launch.sh (-et 1, --cuda_graphs false); NVIDIA/NeMo @ 6f2c6fdaffcc0af97a9e2219fcc104e2399627e4: "
        "scripts/performance/llm/pretrain_grok1_314b.py (tp_comm_overlap = True, grad_reduce_in_fp32 = False, "
        "MegatronTokenDropCallback)",
    ),
)
#: The v25.05.02 rows. Two of them run a model on the same GPUs, batch and sequence as a v24.11.1 row, in another
#: layout (Nemotron-4 15B: TP 2 for TP 4; Grok-1: expert TP 1 for 4), which :func:`coursekit.planner.layout_pairs`
#: compares; the name starts with the release to tell them apart.
DGXC_2505_RUNS: tuple[PublishedRun, ...] = _dgxc_runs(_DGXC_2505_ROWS, DGXC_2505_SOURCE, "25.05 ", _DGXC_2505_OPTIONS)

#: DGX Cloud Benchmarking v25.05's DeepSeek-V3 recipe on 1024 H100s (BF16; NeMo 25.04.01, Megatron-Core at
#: 7094270c): the README's layout and step time, and what the recipe sets that the workbench models.
DGXC_DEEPSEEK_V3_SOURCE: str = (
    "NVIDIA “DGX Cloud Benchmarking” (github.com/NVIDIA/dgxc-benchmarking) @ "
    "68eaf7e117bf16cb018861ce101e8f80925f74d8 (v25.05), deepseek_v3/pretraining/README.md, “Deepseek V3 BF16 "
    "H100”, 1024 H100 (TP 2, PP 16, EP 64, ETP 1, DP 32, VP 1, MBS 1, GBS 8192): 52.04 s; launch.sh: "
    "--recompute_modules mla_up_proj; NVIDIA/NeMo @ 7a8f1cc7bc40a84447c0681a9e4e956a135ae8a2: "
    "scripts/performance/llm/pretrain_deepseek_v3.py (recompute_granularity = selective, "
    "num_layers_in_first_pipeline_stage = 3, num_layers_in_last_pipeline_stage = 2, tp_comm_overlap = False, "
    "MegatronTokenDropCallback), nemo/collections/llm/recipes/deepseek_v3.py (mtp_num_layers = 1), "
    "recipes/precision/mixed_precision.py bf16_mixed (grad_reduce_in_fp32 = True); MLA + CP: "
    "NVIDIA/TransformerEngine @ faee0e8bb046bfe9a481158e7ac9796d10e8640f (v2.5, 2025-06-11), "
    "NVIDIA/TransformerEngine#1552"
)
#: The recipe's first and last stage hold 3 and 2 layers (61 = 3 + 14 · 4 + 2): edges of 1 and 2 layers
#: (``pipeline_edge_layers``, ``pipeline_last_edge_layers``), the embedding standing for one layer and the MTP block
#: with the loss for two. Its token-drop callback (expert capacity 1.0, padded) changes nothing under the balanced
#: routing the estimate assumes.
DGXC_DEEPSEEK_V3_RUN: PublishedRun = PublishedRun(
    "DGX Cloud DeepSeek-V3 (MoE), 4K, 1024 H100 (BF16)",
    "deepseek-v3",
    "h100-8",
    128,
    8192,
    4096,
    (("tp", 2), ("cp", 1), ("pp", 16), ("dp", 32), ("ep", 64), ("etp", 1)),
    "tokens",
    0.0,
    DGXC_DEEPSEEK_V3_SOURCE,
    measured_tokens_per_gpu_s=8192 * 4096 / (52.04 * 1024),
    workload_options=(
        ("precision", "bf16"),
        ("recipe", "megatron-bf16"),  # bf16 weights, fp32 gradients (grad_reduce_in_fp32), distributed Adam
        ("zero_stages", (1,)),
        ("max_micro_batch", 1),
        ("max_virtual_stages", 1),
        ("recompute_modes", ("none",)),
        ("recompute_modules", ("mla_up_proj",)),
        ("pipeline_edge_layers", 1),
        ("pipeline_last_edge_layers", 2),
        TP_OVERLAP_OFF,
        ("max_cp", 1),  # the container's Transformer Engine predates MLA with CP
    ),
    note=Text(
        zh="1024 张 H100，TP 2、PP 16、EP 64、ETP 1，微批次 1，全局批 8192：每步 52.04 s（BF16）",
        en="1024 H100s, TP 2, PP 16, EP 64, ETP 1, micro-batch 1, global batch 8192: 52.04 s a step (BF16)",
    ),
)


#: NeMo's long-sequence table (Llama 2 7B, FP8, NeMo 24.03.01 on DGX-H100): the same model from 4K to 1024K tokens,
#: one GPU per 1K tokens of sequence and 4M tokens a step, each length at its fastest layout with context parallelism
#: and at the fastest without it ("the most performant model- and data-parallel configurations without CP given the
#: memory capacity constraint"; that layout is not given).
NEMO_LONG_CONTEXT_SOURCE: str = (
    "NVIDIA NeMo, “Long Sequence Performance”, LLAMA2-7B (FP8) - H100 (NeMo 24.03.01, DGX-H100), "
    "github.com/NVIDIA/NeMo docs/source/performance/performance_long_sequence.md @ "
    "19fadb67b09ba94c55094d34df119d6f9c565068"
)
#: The table gives TFLOP/s per GPU in NeMo's model-FLOP count of Llama 2 of the time, which counts the attention
#: scores over every query-key pair (no causal half):
#: l·h²·(12 + 12·g/a + 18·f/h + 12·s/h + 6·V/(l·h)) per sequence-token (nemo/utils/flops_formulas.py ``llama2`` at
#: f0bf77bcf7f38cb1eebf4c16979f8a0fc2641852, its first version; the causal half came in 6251117f, August 2025). The
#: same count turns NeMo 24.07's LLAMA2-7B row (16934 tokens/s) into that row's 780 TFLOP/s, and it is the count under
#: which the 1024K row's 536 TFLOP/s is physically possible: counted causally, it would ask of the bf16 attention
#: kernels 54 % of the H100's dense peak across forward, backward and the CP ring, above what fused attention reached
#: in 2024. The rows below divide the table's TFLOP/s by it.
NEMO_LLAMA2_FLOPS_SOURCE: str = (
    "TFLOP/s -> tokens/s: NVIDIA NeMo, nemo/utils/flops_formulas.py llama2 @ f0bf77bcf7f38cb1eebf4c16979f8a0fc2641852"
)
#: The H100 rows: (sequence length in K tokens, GPUs, global batch, TP, PP, DP, CP, TFLOP/s per GPU with CP,
#: TFLOP/s per GPU without CP). The 4K row (4 GPUs, half a node) is left out of the registered runs, which count
#: whole 8-GPU nodes.
NEMO_LONG_CONTEXT_ROWS: tuple[tuple[int, int, int, int, int, int, int, float, float], ...] = (
    (4, 4, 1024, 1, 1, 4, 1, 768.0, 768.0),
    (8, 8, 512, 1, 2, 4, 1, 730.0, 730.0),
    (16, 16, 256, 2, 1, 8, 1, 660.0, 660.0),
    (32, 32, 128, 2, 1, 8, 2, 610.0, 595.0),
    (64, 64, 64, 4, 1, 8, 2, 574.0, 534.0),
    (128, 128, 32, 4, 1, 8, 4, 555.0, 424.0),
    (256, 256, 16, 4, 1, 8, 8, 549.0, 392.0),
    (512, 512, 8, 8, 1, 4, 16, 549.0, 104.0),
    (1024, 1024, 4, 8, 1, 4, 32, 536.0, 26.5),
)


def nemo_llama2_flops_per_token(seq_len: int) -> float:
    """NeMo's model FLOPs per token of Llama 2 7B at ``seq_len`` tokens (:data:`NEMO_LLAMA2_FLOPS_SOURCE`: full
    attention scores, no causal half), from the preset's config (32 layers, h 4096, 32 heads and K/V heads, f 11008,
    vocabulary 32000). Term for term it is Megatron-Core r0.8's count at TP 1
    (:func:`coursekit.planner.megatron_core_model_flops_per_step`), which this module cannot call while the planner
    imports it; a test holds the two equal.

    >>> round(16934 * nemo_llama2_flops_per_token(4096) / 1e12)  # NeMo 24.07's LLAMA2-7B row: 780 TFLOP/s
    780
    """
    from ._validate import check_int
    from .presets import MODELS
    from .specs import MAX_SEQ_LEN

    s = check_int("seq_len", seq_len, ge=1, le=MAX_SEQ_LEN)
    m = MODELS["llama2-7b"]
    layers, h = m.layers, m.hidden
    ratio = 12 + 12 * m.kv_heads / m.heads + 18 * m.ffn_hidden / h + 12 * s / h + 6 * m.vocab / (layers * h)
    return float(layers * h * h * ratio)


def _long_context_run(row: tuple[int, int, int, int, int, int, int, float, float]) -> PublishedRun:
    k, gpus, batch, tp, pp, dp, cp, tflops, _ = row
    seq = k * 1024
    tokens = tflops * 1e12 / nemo_llama2_flops_per_token(seq)
    layout = f"TP {tp}, PP {pp}, DP {dp}, CP {cp}"
    return PublishedRun(
        f"NeMo Llama 2 7B, {k}K, {gpus} H100 (FP8, CP {cp})",
        "llama2-7b",
        "h100-8",
        gpus // 8,
        batch,
        seq,
        (("tp", tp), ("cp", cp), ("pp", pp), ("dp", dp)),
        "tokens",
        0.0,
        f"{NEMO_LONG_CONTEXT_SOURCE}, row {k}K ({tflops:g} TFLOP/s); {NEMO_LLAMA2_FLOPS_SOURCE}",
        measured_tokens_per_gpu_s=tokens,
        # The table gives no micro-batch nor interleaving: 1 and none. The FP8 recipe: delayed scaling (NeMo 24.03),
        # and the launcher's fp32 gradients (FP32_GRADS).
        workload_options=(("precision", "fp8"), ("max_micro_batch", 1), ("max_virtual_stages", 1), FP32_GRADS),
        note=Text(
            zh=f"{gpus} 张 H100，序列 {k}K，{layout}，每步 {batch} 条序列；每 GPU {tflops:g} TFLOP/s"
            f"（按 NeMo 的 FLOP 计数折合每 GPU 每秒 {tokens:.0f} 个 token，FP8）",
            en=f"{gpus} H100s, {k}K sequence, {layout}, {batch} sequences a step; {tflops:g} TFLOP/s per GPU "
            f"({tokens:.0f} tokens per GPU-second in NeMo's FLOP count, FP8)",
        ),
    )


#: The long-sequence table's H100 rows on whole nodes (8K to 1024K), each at its published layout with CP.
NEMO_LONG_CONTEXT_RUNS: tuple[PublishedRun, ...] = tuple(
    _long_context_run(row) for row in NEMO_LONG_CONTEXT_ROWS if row[1] % 8 == 0
)

#: The two rows that fit :data:`coursekit.planner.calibration.MOE_LAYER_HOST_S`, the host time per MoE layer: the
#: ModelZoo's Qwen3 235B-A22B on 256 H100s (DeepEP, 4K tokens, micro-batch 1, PP 8, VPP 4, no all-to-all overlap) at
#: TP 2, EP 32 and at TP 4, EP 8 (their measured 245 and 167 TFLOP/s per GPU). Marked ``"fit"`` in :data:`RUN_ROLES`.
MOE_HOST_FIT_RUNS: tuple[str, ...] = (
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 32)",
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, TP 4, EP 8)",
)

#: The two rows that fit :data:`coursekit.specs.EP_A2A_OVERLAP_ON`, the share of the EP all-to-all Megatron-Core's
#: 1F1B all-to-all overlap hides: the ModelZoo's Qwen3 235B-A22B on 256 H100s (DeepEP, TP 2, EP 32, PP 8, VPP 4, the
#: same moe_dev build) without and with ``--overlap-moe-expert-parallel-comm`` (245 and 276 TFLOP/s per GPU). The first
#: also fits the host time (:data:`MOE_HOST_FIT_RUNS`; that fit has no overlap in it, so the two fits are independent).
#: Marked ``"fit"`` in :data:`RUN_ROLES`.
EP_OVERLAP_FIT_RUNS: tuple[str, ...] = (
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 32)",
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 32, 1F1B overlap)",
)

#: The two rows that fit :data:`coursekit.planner.calibration.FP8_MATMUL_SHARE`, how much of the FP8 peak's speed-up
#: an FP8 matmul keeps: DGX Cloud Benchmarking's Llama 3.1 8B on 8 H100s (one node, no pipeline, the least
#: communication of its recipes) in BF16 and in FP8, same layout. Marked ``"fit"`` in :data:`RUN_ROLES`.
FP8_FIT_RUNS: tuple[str, ...] = (
    "DGX Cloud Llama 3.1 8B, 8K, 8 H100 (BF16)",
    "DGX Cloud Llama 3.1 8B, 8K, 8 H100 (FP8)",
)

#: Megatron-Bridge's DGX-B200 tables (25.09 and 25.11; B200: :data:`coursekit.presets.CLUSTERS` ``"b200-8"``).
MEGATRON_BRIDGE_B200_SOURCE: str = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, {release} NeMo container, DGX-B200, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md @ {commit}"
)
#: The B200 configs of those rows (scripts/performance/configs/llama @ df0289c180dd20ff26933455c7a0a11084f6a36f):
#: LLAMA3_8B_PRETRAIN_CONFIG_B200_FP8_CS_V1 (micro-batch 2, no FSDP, CUDA graphs over the whole iteration) and
#: LLAMA31_405B_PRETRAIN_CONFIG_B200_FP8_CS_V1 (TP 4, PP 8, CP 2, VP 8, global batch 64) with the B200 userbuffers
#: TP comm overlap config (llama31_llm_pretrain.py: userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192); both
#: reduce gradients in bf16 (set_llama3_common_configs, set_llama31_common_configs) and keep the recipes' distributed
#: optimizer (ZeRO-1).
MEGATRON_BRIDGE_B200_CONFIG: str = (
    "NVIDIA-NeMo/Megatron-Bridge scripts/performance/configs/llama/llama3_workload_base_configs.py, "
    "llama31_workload_base_configs.py, llama3_llm_pretrain.py and llama31_llm_pretrain.py @ "
    "df0289c180dd20ff26933455c7a0a11084f6a36f (LLAMA3_8B_PRETRAIN_CONFIG_B200_FP8_CS_V1, "
    "LLAMA31_405B_PRETRAIN_CONFIG_B200_FP8_CS_V1; grad_reduce_in_fp32 = False; "
    "userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192); src/megatron/bridge/recipes/llama/llama3.py: "
    "use_distributed_optimizer = True"
)

#: The rows of those tables that run a precision the course models: FP8 with per-tensor current scaling (FP8-CS).
#: Their FP8-MX figures (in parentheses in the tables) and the MXFP8 MoE rows use block scaling, which the FP8
#: recipes here do not count. No constant was fitted on a B200: the efficiency ceiling carries over through the
#: B200's measured best matmul (:data:`coursekit.planner.calibration.MAMF_FRACTION`), as it does to the H100.
MEGATRON_BRIDGE_B200_RUNS: tuple[PublishedRun, ...] = tuple(
    run
    for release, commit, llama8b, llama405b in (
        ("25.09", "fa0315ae2684693a666be9d247adf9baf1e30028", 29994.0, 664.0),
        ("25.11", "c0b9a00031b79b731ccefb56d0aba9629b4dd01b", 30624.0, 661.0),
    )
    for run in (
        _run(
            f"Megatron-Bridge Llama 3 8B, 8K, 8 B200 (FP8, {release})",
            "llama3-8b",
            8,
            128,
            8192,
            {"dp": 8},
            2,
            1,
            llama8b,
            MEGATRON_BRIDGE_B200_SOURCE.format(release=release, commit=commit)
            + ", row LLAMA3_8B; "
            + MEGATRON_BRIDGE_B200_CONFIG,
            zero_stages=(1,),
            options=(MEGATRON_BRIDGE_LLAMA_GRADS,),
            cluster="b200-8",
        ),
        _run(
            f"Megatron-Bridge Llama 3.1 405B, 8K, 128 B200 (FP8, {release})",
            "llama3-405b",
            128,
            64,
            8192,
            {"tp": 4, "pp": 8, "cp": 2, "dp": 2},
            1,
            8,
            llama405b,
            MEGATRON_BRIDGE_B200_SOURCE.format(release=release, commit=commit)
            + ", row LLAMA3.1_405B; "
            + MEGATRON_BRIDGE_B200_CONFIG
            + "; account_for_embedding_in_pipeline_split = account_for_loss_in_pipeline_split = True",
            zero_stages=(1,),
            options=(("overlap_tp", TP_COMM_OVERLAP_ON), ("pipeline_edge_layers", 1), MEGATRON_BRIDGE_LLAMA_GRADS),
            cluster="b200-8",
        ),
    )
)


MEGATRON_BRIDGE_GB200_SOURCE: str = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, {release} NeMo container, DGX-GB200, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md @ {commit}"
)
#: The GB200 configs of those rows (scripts/performance/configs/llama @ c0b9a00031b79b731ccefb56d0aba9629b4dd01b):
#: LLAMA3_8B_PRETRAIN_CONFIG_GB200_FP8_CS_V1 (micro-batch 2, no FSDP, CUDA graphs over the whole iteration, as on
#: B200) and LLAMA31_405B_PRETRAIN_CONFIG_GB200_FP8_CS_V2 (256 GPUs, TP 4, PP 16, VP 4, global batch 1536, no FSDP, no
#: CPU offloading) with the B200 userbuffers TP comm overlap config; bf16 gradient reduction; distributed optimizer.
#: The launcher runs a GB200 job in Slurm segments of at most 18 trays (scripts/performance/utils/executors.py), so the
#: 405B rows' 64 trays fill four NVLink domains of 16 (:func:`coursekit.specs.nvlink_segment_nodes`).
MEGATRON_BRIDGE_GB200_CONFIG: str = (
    "NVIDIA-NeMo/Megatron-Bridge scripts/performance/configs/llama/llama3_workload_base_configs.py, "
    "llama31_workload_base_configs.py and llama31_llm_pretrain.py @ c0b9a00031b79b731ccefb56d0aba9629b4dd01b "
    "(LLAMA3_8B_PRETRAIN_CONFIG_GB200_FP8_CS_V1, LLAMA31_405B_PRETRAIN_CONFIG_GB200_FP8_CS_V2; "
    "grad_reduce_in_fp32 = False; userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192); "
    "scripts/performance/utils/executors.py @ 067f987df: Slurm --segment of at most 18 nodes of 4 GPUs"
)

#: GB200 NVL72 rows of the same tables, FP8 with per-tensor current scaling, each config's first and last release in
#: the tables: Llama 3 8B on 8 GPUs (25.09, 25.11) and Llama 3.1 405B on 256 (25.11, 26.06). Registered after the
#: GB200 preset was written, with no constant changed (the efficiency ceiling takes the B200's measured best matmul,
#: the nearest GPU of the MAMF table). The tables' other GB200 Llama rows run FSDP with activations offloaded to the
#: Grace CPU's memory (``cpu_offloading_num_layers``), which the course does not model; their MoE rows run MXFP8.
MEGATRON_BRIDGE_GB200_RUNS: tuple[PublishedRun, ...] = (
    *(
        _run(
            f"Megatron-Bridge Llama 3 8B, 8K, 8 GB200 (FP8, {release})",
            "llama3-8b",
            8,
            128,
            8192,
            {"dp": 8},
            2,
            1,
            tokens,
            MEGATRON_BRIDGE_GB200_SOURCE.format(release=release, commit=commit)
            + ", row LLAMA3_8B; "
            + MEGATRON_BRIDGE_GB200_CONFIG,
            zero_stages=(1,),
            options=(MEGATRON_BRIDGE_LLAMA_GRADS,),
            cluster="gb200-nvl72",
        )
        for release, commit, tokens in (
            ("25.09", "fa0315ae2684693a666be9d247adf9baf1e30028", 31357.0),
            ("25.11", "c0b9a00031b79b731ccefb56d0aba9629b4dd01b", 31508.0),
        )
    ),
    *(
        _run(
            f"Megatron-Bridge Llama 3.1 405B, 8K, 256 GB200 (FP8, {release})",
            "llama3-405b",
            256,
            1536,
            8192,
            {"tp": 4, "pp": 16, "dp": 4},
            1,
            4,
            tokens,
            MEGATRON_BRIDGE_GB200_SOURCE.format(release=release, commit=commit)
            + ", row LLAMA3.1_405B; "
            + MEGATRON_BRIDGE_GB200_CONFIG
            + "; account_for_embedding_in_pipeline_split = account_for_loss_in_pipeline_split = True",
            zero_stages=(1,),
            options=(("overlap_tp", TP_COMM_OVERLAP_ON), ("pipeline_edge_layers", 1), MEGATRON_BRIDGE_LLAMA_GRADS),
            cluster="gb200-nvl72",
        )
        for release, commit, tokens in (
            ("25.11", "c0b9a00031b79b731ccefb56d0aba9629b4dd01b", 813.0),
            ("26.06", "63b08b397a3ee37edf439c7be0b24d7439d8cf23", 843.0),
        )
    ),
)


#: NVIDIA NeMo Framework's performance page for the NeMo 25.02 container, DGX-B200 pre-training table (FP8, NeMo 2.0).
#: Published as a web page, not in a repository; the page shows each row's layout, tokens/s and model TFLOP/s.
_NEMO_2502_SOURCE: str = (
    "NVIDIA NeMo, “Performance”, NeMo 25.02, {system}, FP8, "
    "docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance_summary.html"
)
NEMO_2502_B200_SOURCE: str = _NEMO_2502_SOURCE.format(system="DGX-B200")
#: The same page's DGX-H100 table. The stored copy of the page shows its first row in full (GPT-3 175B on 512 GPUs)
#: and is cut off after it, so that row alone is registered.
NEMO_2502_H100_SOURCE: str = _NEMO_2502_SOURCE.format(system="DGX-H100")
#: What those rows ran: NeMo's performance scripts of that release (scripts/llm/performance/pretrain_*.py @ v2.2.0,
#: 7192a2c944c48ab253f3f711ee52fe2dc986a3bb) build ``pretrain_recipe(performance_mode=True)`` (Megatron-Core's
#: distributed optimizer; TP comm overlap in every recipe of the table but Mixtral 8x22B's,
#: :data:`NEMO_2502_MIXTRAL_8X22B_CONFIG`) and, at FP8, ``bf16_with_fp8_mixed()`` (delayed scaling) with
#: ``grad_reduce_in_fp32 = False`` (bf16 gradients: the ``zero-fp16-adam`` recipe's 2 + 2 + 12 bytes).
NEMO_2502_B200_CONFIG: str = (
    "NVIDIA NeMo scripts/llm/performance/pretrain_llama3_8b.py (and the other pretrain_*.py) @ "
    "7192a2c944c48ab253f3f711ee52fe2dc986a3bb (v2.2.0): pretrain_recipe(performance_mode=True); fp8: "
    "bf16_with_fp8_mixed(), grad_reduce_in_fp32 = False"
)
#: The table's eight rows (model, label, GPUs, GBS, micro-batch, sequence, TP, PP, CP, VP, EP, tokens/s per GPU). The
#: Mixtral 8x22B row prints GBS 1 and MBS 64 in swapped columns: its GA 16 on DP 4 (256 / (2 · 4 · 8)) at micro-batch 1
#: gives the global batch of 64.
_NEMO_2502_B200_ROWS: tuple[tuple[Any, ...], ...] = (
    ("gpt3-175b", "GPT-3 175B, 2K", 512, 2048, 2, 2048, 4, 4, 1, 6, 1, 1600.0),
    ("llama3-8b", "Llama 3 8B, 8K", 8, 128, 2, 8192, 1, 1, 1, 1, 1, 26006.0),
    ("llama3-70b", "Llama 3 70B, 8K", 64, 128, 1, 8192, 2, 4, 2, 5, 1, 3062.0),
    ("llama3-405b", "Llama 3 405B, 8K", 128, 64, 1, 8192, 4, 8, 2, 8, 1, 625.0),
    ("nemotron4-15b", "Nemotron-4 15B, 4K", 64, 256, 2, 4096, 1, 1, 1, 1, 1, 14760.0),
    ("nemotron4-340b", "Nemotron-4 340B, 4K", 128, 32, 1, 4096, 8, 4, 1, 12, 1, 602.0),
    ("mixtral-8x7b", "Mixtral 8x7B (MoE), 4K", 64, 256, 2, 4096, 1, 1, 1, 1, 8, 15457.0),
    ("mixtral-8x22b", "Mixtral 8x22B (MoE), 64K", 256, 64, 1, 65536, 2, 4, 8, 14, 8, 2232.0),
)


#: What the same release's scripts set for Mixtral 8x22B that differs from the other rows (audit 29). Its B200 row in
#: scripts/llm/performance/recommended_model_configs/model_configs_b200.csv sets expert TP 1 (``etp_size`` 1.0, which
#: ``get_user_configs`` passes to ``expert_tensor_parallel_size``; unset, Megatron-Core's default is ETP = TP = 2), and
#: the recipe's ``pretrain_performance_optimizations`` builds ``MegatronCommOverlapCallback`` without
#: ``tp_comm_overlap``, which the callback leaves off ("Optimizations disabled by default, can be overriden by user":
#: ``comm_overlap_cfg.tp_comm_overlap = False``), where the dense recipes of the table pass ``tp_comm_overlap=True``.
NEMO_2502_MIXTRAL_8X22B_CONFIG: str = (
    "NVIDIA NeMo @ 7192a2c944c48ab253f3f711ee52fe2dc986a3bb (v2.2.0): scripts/llm/performance/"
    "recommended_model_configs/model_configs_b200.csv (pre_train,mixtral,8x22b,b200,fp8: tp 2, pp 4, cp 8, dp 4, ep 8, "
    "etp 1, vp 14, mbs 1, gbs 64); nemo/collections/llm/recipes/mixtral_8x22b.py pretrain_performance_optimizations: "
    "MegatronCommOverlapCallback(overlap_param_gather_with_optimizer_step=False), tp_comm_overlap not set; "
    "nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py: comm_overlap_cfg.tp_comm_overlap = False "
    "(“Optimizations disabled by default”)"
)
#: The rows whose scripts leave TP comm overlap off and set an expert TP: model -> expert TP (audit 29).
_NEMO_2502_ETP: dict[str, int] = {"mixtral-8x22b": 1}


def _nemo_2502_run(row: tuple[Any, ...], cluster: str, source: str) -> PublishedRun:
    """One row of NeMo 25.02's page (the layout of :data:`_NEMO_2502_B200_ROWS`), with its scripts' options: TP comm
    overlap on, except for Mixtral 8x22B, whose recipe leaves it off and sets expert TP 1
    (:data:`NEMO_2502_MIXTRAL_8X22B_CONFIG`)."""
    model, label, gpus, batch, micro_batch, seq, tp, pp, cp, virtual, ep, tokens = row
    etp = _NEMO_2502_ETP.get(model)
    own = f"; {NEMO_2502_MIXTRAL_8X22B_CONFIG}" if etp is not None else ""
    return _run(
        f"NeMo 25.02 {label}, {gpus} {cluster.split('-')[0].upper()} (FP8)",
        model,
        gpus,
        batch,
        seq,
        {
            "tp": tp,
            "pp": pp,
            "cp": cp,
            "dp": gpus // (tp * pp * cp),
            **({"ep": ep} if ep > 1 else {}),
            **({"etp": etp} if etp is not None else {}),
        },
        micro_batch,
        virtual,
        tokens,
        f"{source}, row {label.split(',')[0]}; {NEMO_2502_B200_CONFIG}{own}",
        zero_stages=(1,),
        options=(
            ("recipe", "zero-fp16-adam"),
            TP_OVERLAP_OFF if etp is not None else ("overlap_tp", TP_COMM_OVERLAP_ON),
            *((EDGE_SPLIT,) if model == "llama3-405b" else ()),  # v2.2.0's llama31_405b recipe (EDGE_SPLIT)
        ),
        cluster=cluster,
    )


NEMO_2502_B200_RUNS: tuple[PublishedRun, ...] = tuple(
    _nemo_2502_run(row, "b200-8", NEMO_2502_B200_SOURCE) for row in _NEMO_2502_B200_ROWS
)
#: That H100 row: GPT-3 175B, 512 GPUs, GBS 2048, MBS 2, TP 4, PP 8, VP 6, GA 64: 866 tokens/s per GPU. The same options
#: as the B200 rows (one release of the same scripts).
NEMO_2502_H100_RUNS: tuple[PublishedRun, ...] = (
    _nemo_2502_run(
        ("gpt3-175b", "GPT-3 175B, 2K", 512, 2048, 2, 2048, 4, 8, 1, 6, 1, 866.0), "h100-8", NEMO_2502_H100_SOURCE
    ),
)


#: NeMo 24.07's fine-tuning table (the same page as :data:`NEMO_2407_SOURCE`): LoRA on SQuAD, inputs packed to 4096
#: tokens, FP8, tokens per GPU-second.
NEMO_2407_FINETUNE_SOURCE: str = (
    "NVIDIA NeMo, “Performance Summary” (NeMo 24.07, DGX-H100, FP8), table “Finetuning”, "
    "github.com/NVIDIA/NeMo docs/source/performance/performance_summary.md"
)
#: The launcher's H100 LoRA scripts of those rows: the ``peft=llama/sft`` config with ``peft_scheme=lora`` (adapter
#: dim 32; NeMo's LoRA puts it on ``attention_qkv`` alone where the config names no target modules, the workbench
#: on all four fused linear layers: at rank 32 the difference is under 1.5 % of the FLOPs and 0.2 GB), no activation
#: checkpointing, sequence parallelism off (so no TP comm-GEMM overlap, which needs it), FP8 weights
#: (``fp8_params``) and ``fused_adam`` (no distributed optimizer: ZeRO-0).
NEMO_2407_LORA_CONFIG: str = (
    "; NVIDIA NeMo-Framework-Launcher 24.07 (8325688d8345a5513660f0f8390f0482a721c009), "
    "examples/peft/llama/h100/{name}_1node_lora.sh and launcher_scripts/conf/peft/llama/sft.yaml: "
    "peft_scheme=lora, lora_tuning.adapter_dim 32, activations_checkpoint_granularity null, sequence_parallel False, "
    "fp8=true, fp8_params=true, optim.name=fused_adam"
)
_NEMO_2407_LORA_OPTIONS: tuple[tuple[str, Any], ...] = (
    # fused_adam under megatron_amp_O2: bf16 weights, fp32 main gradients and main weights (only the adapters' count)
    ("recipe", "megatron-bf16"),
    ("lora_rank", 32),
    ("sequence_parallel", False),
    ("recompute_modes", ("none",)),
)
#: The three LoRA rows: every weight frozen but the adapters (``WorkloadSpec(lora_rank=32)``).
NEMO_2407_LORA_RUNS: tuple[PublishedRun, ...] = tuple(
    _run(
        f"NeMo LoRA {label}, 4K, 8 H100 (FP8)",
        model,
        8,
        32,
        4096,
        layout,
        1,
        1,
        tokens,
        NEMO_2407_FINETUNE_SOURCE + NEMO_2407_COMMIT + f", row {row} LoRA" + NEMO_2407_LORA_CONFIG.format(name=name),
        zero_stages=(0,),
        options=_NEMO_2407_LORA_OPTIONS,
    )
    for label, model, layout, tokens, row, name in (
        ("Llama 2 7B", "llama2-7b", {"dp": 8}, 25206.0, "LLAMA2-7B", "7b"),
        ("Llama 2 13B", "llama2-13b", {"dp": 8}, 14161.0, "LLAMA2-13B", "13b"),
        ("Llama 2 70B", "llama2-70b", {"tp": 2, "pp": 4}, 2557.0, "LLAMA2-70B", "70b"),
    )
)


#: The launcher's H100 SFT scripts of the same table's SFT rows: the ``peft=llama/sft`` config (every weight trains),
#: no activation checkpointing, NeMo's ``distributed_fused_adam`` with bf16 state (the ``apex-dfa-bf16`` recipe;
#: ``contiguous_grad_buffer`` keeps every gradient in one full-size buffer, so ZeRO-1's memory), FP8 weights; the 13B
#: and 70B rows interleave their pipelines (VP 10 and 20), the 70B row runs sequence parallelism with TP comm overlap.
NEMO_2407_SFT_CONFIG: str = (
    "; NVIDIA NeMo-Framework-Launcher 24.07 (8325688d8345a5513660f0f8390f0482a721c009), "
    "examples/peft/llama/h100/{name}.sh and launcher_scripts/conf/peft/llama/sft.yaml: "
    "activations_checkpoint_granularity null, optim distributed_fused_adam (dtype bf16, grad_sync_dtype bf16, "
    "contiguous_grad_buffer True), fp8=true, fp8_params=true{extra}"
)
_NEMO_2407_SFT_OPTIONS: tuple[tuple[str, Any], ...] = (("recipe", "apex-dfa-bf16"), ("recompute_modes", ("none",)))
#: The three SFT rows of the same table: every weight trains.
NEMO_2407_SFT_RUNS: tuple[PublishedRun, ...] = tuple(
    _run(
        f"NeMo SFT {label}, 4K, {gpus} H100 (FP8)",
        model,
        gpus,
        32,
        4096,
        layout,
        1,
        virtual,
        tokens,
        NEMO_2407_FINETUNE_SOURCE
        + NEMO_2407_COMMIT
        + f", row {row} SFT"
        + NEMO_2407_SFT_CONFIG.format(name=name, extra=extra),
        zero_stages=(1,),
        options=_NEMO_2407_SFT_OPTIONS + options,
    )
    for label, model, gpus, layout, virtual, tokens, row, name, extra, options in (
        (
            "Llama 2 7B",
            "llama2-7b",
            8,
            {"dp": 8},
            1,
            17120.0,
            "LLAMA2-7B",
            "7b_1node",
            ", sequence_parallel False",
            (("sequence_parallel", False),),
        ),
        (
            "Llama 2 13B",
            "llama2-13b",
            8,
            {"pp": 4, "dp": 2},
            10,
            9741.0,
            "LLAMA2-13B",
            "13b_1node",
            ", sequence_parallel False, virtual_pipeline_model_parallel_size 10",
            (("sequence_parallel", False),),
        ),
        (
            "Llama 2 70B",
            "llama2-70b",
            16,
            {"tp": 4, "pp": 4},
            20,
            1833.0,
            "LLAMA2-70B",
            "70b_2node",
            ", virtual_pipeline_model_parallel_size 20, sequence_parallel true, ub_tp_comm_overlap true",
            (("overlap_tp", TP_COMM_OVERLAP_ON),),
        ),
    )
)


#: Every run's role: the calibration rows fit the efficiency ceiling, two ModelZoo rows fit the host time per MoE
#: layer (:data:`MOE_HOST_FIT_RUNS`), two DGX Cloud rows the FP8 matmul share (:data:`FP8_FIT_RUNS`); the other
#: published runs validate. No run is both.
RUN_ROLES: dict[str, str] = {
    **{f"Megatron-LM Table 1, {run.name}": "fit" for run in MEGATRON_TABLE1},
    **{
        run.name: "validation"
        for run in (
            *PUBLISHED_RUNS,
            *PUBLISHED_RUNS_2024,
            *PUBLISHED_RUNS_2025,
            *DGXC_RUNS,
            *DGXC_2505_RUNS,
            DGXC_DEEPSEEK_V3_RUN,
            *NEMO_LONG_CONTEXT_RUNS,
            *NEMO_2407_LORA_RUNS,
            *NEMO_2407_SFT_RUNS,
            *MEGATRON_BRIDGE_B200_RUNS,
            *NEMO_2502_B200_RUNS,
            *NEMO_2502_H100_RUNS,
            *MEGATRON_BRIDGE_GB200_RUNS,
        )
    },
    **{name: "fit" for name in MOE_HOST_FIT_RUNS},
    **{name: "fit" for name in FP8_FIT_RUNS},
    **{name: "fit" for name in EP_OVERLAP_FIT_RUNS},
}


def all_published_runs() -> tuple[PublishedRun, ...]:
    """The paper runs and the vendor-table runs: validation runs, and the two that fit the host time per MoE layer
    (:data:`RUN_ROLES`)."""
    return (
        *PUBLISHED_RUNS,
        *PUBLISHED_RUNS_2024,
        *PUBLISHED_RUNS_2025,
        *DGXC_RUNS,
        *DGXC_2505_RUNS,
        DGXC_DEEPSEEK_V3_RUN,
        *NEMO_LONG_CONTEXT_RUNS,
        *NEMO_2407_LORA_RUNS,
        *NEMO_2407_SFT_RUNS,
        *MEGATRON_BRIDGE_B200_RUNS,
        *NEMO_2502_B200_RUNS,
        *NEMO_2502_H100_RUNS,
        *MEGATRON_BRIDGE_GB200_RUNS,
    )


#: How :func:`citation_lines` starts a citation that repeats the one before it.
_AS_ABOVE = Text(zh="同上，", en="as above, ")
#: Shortest prefix two consecutive citations must share for :func:`citation_lines` to print the second as "as above".
CITATION_SHARED_PREFIX: int = 60


def _top_level(source: str, separator: str) -> list[int]:
    """Where ``separator`` occurs in ``source`` outside parentheses and quotation marks (“...”)."""
    depth, found = 0, []
    for i, char in enumerate(source):
        depth += (char in "(“") - (char in ")”")
        if depth == 0 and source.startswith(separator, i):
            found.append(i)
    return found


def citation(run: PublishedRun) -> str:
    """The paper or table and its row that ``run.source`` cites first: the text before its first top-level ``"; "``
    (the training configs follow it)."""
    if not isinstance(run, PublishedRun):
        raise type_error("run", run, "PublishedRun")
    ends = _top_level(run.source, "; ")
    return run.source[: ends[0]] if ends else run.source


def citation_lines(runs: Any) -> list[Text]:
    """One line per run, numbered from 1 as lesson 9's table numbers them (the table names the run):
    ``"n. citation (note)"``, in the learner's language. A citation that shares at least
    :data:`CITATION_SHARED_PREFIX` characters with the line before it, up to a top-level ``", "``, is shortened to
    "as above, <the rest>".

    >>> for line in citation_lines(all_published_runs()[:2]):
    ...     print(str(line)[:60])
    1. Llama Team, “The Llama 3 Herd of Models”, arXiv:2407.2178
    2. as above, row 2 (400 TFLOPs/GPU, 41 % BF16 MFU)

    Taught in: lesson 9 (decision workbench).
    """
    from ._validate import check_items

    lines, previous = [], ""
    for index, run in enumerate(check_items("runs", runs, max_items=1 << 12)):
        if not isinstance(run, PublishedRun):
            raise type_error(f"runs[{index}]", run, "PublishedRun")
        cited = citation(run)
        pairs = zip(cited, previous, strict=False)  # up to the shorter one
        shared = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(cited), len(previous)))
        cuts = [i for i in _top_level(cited, ", ") if i < shared]
        rest = cited[cuts[-1] + 2 :] if shared >= CITATION_SHARED_PREFIX and cuts else None
        zh_note, en_note = (f"（{run.note.zh}）", f" ({run.note.en})") if run.note else ("", "")
        head = f"{index + 1}. "
        lines.append(
            Text(
                zh=head + (cited if rest is None else _AS_ABOVE.zh + rest) + zh_note,
                en=head + (cited if rest is None else _AS_ABOVE.en + rest) + en_note,
            )
        )
        previous = cited
    return lines


learner_functions(globals())
