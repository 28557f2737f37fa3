"""Held-out check by an outside reviewer (17): published runs of six sources not yet read, planned as published;
nothing asserted.

    .venv/bin/python benchmarks/report_heldout_outside17.py

None of these rows is registered (``coursekit.published_runs``) or typed in another ``report_heldout_*.py``, and no
constant of the estimate was fitted on them. Each row sets only what its source prints; the pass rule is the
registered runs' (accepted; tie group 1 or top 10; the best step within 1.25x; throughput within ±30 %).

1. ``ASYNC_TP_ROWS``: pytorch/torchtitan benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md (added in
   2887250bbd9103d0bc997ea2efb3a525b5e5dbc0, read @ b5bcd76c66d0acb1a08b176d9639425bc55e0b2a): Llama 3.1 70B on 256
   H100s (FSDP 32, TP 8, full AC, local batch 16) and 8B on 64 H100s (FSDP 8, TP 8, per-op SAC, local batch 12),
   torch.compile, vanilla TP and async TP, bf16 and float8 tensorwise, tokens/s (per GPU: 597 tokens/s for 70B is
   251 TFLOP/s, so the column cannot be per job). The float8 rowwise rows are left out: the workbench's FP8 recipes
   (delayed, current, mxfp8) have no per-row scaling. Read as ``report_heldout_torchtitan.py`` reads the same
   platform (Grand Teton, "96GB HBM2e with 2.4 TB/sec", 400 Gb/s per GPU, 500 W): the H100 with 96 GB at the SXM's
   989 TFLOP/s bf16 (an upper bound), FlashAttention-2 for PyTorch's SDPA, FSDP2 as ZeRO-3, "per op SAC" as no
   recomputation, "full AC" as full recomputation, float8 tensorwise as current scaling, vanilla TP as
   ``overlap_tp=0`` and async TP as the workbench's TP overlap (the default). The local batch is per data-parallel
   rank (torchtitan's ``local_batch_size``), so the global batch is local batch x FSDP degree. Sequence 8192
   (torchtitan's llama3 configs). The file's version table dates torchtitan 820504e "2024/06/13"; that commit is
   2025-06-13.
2. ``TRAINY_ROWS``: pytorch/torchtitan benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md (added in
   cbccb387871a5e1f522c1e222c51ab88b03c0392): Llama 3.1 8B on 4 and 8 hosts of 8 H200s ("400Gb/s (Mellanox CX-7) per
   GPU": the ``h200-8`` preset's 50 GB/s per GPU), ``--training.local_batch_size=2``, compile, float8 (tensorwise:
   the converter's default) with FSDP float8 all-gather, TPS/GPU at the 100th step. The config it names,
   torchtitan/models/llama3/train_configs/llama3_8b.toml @ e7c0cae934df78d6e9c2835f42ff1f757dc3fddc: seq_len 8192,
   ``data_parallel_shard_degree = -1`` (FSDP over every GPU), activation checkpointing ``mode = "selective"``,
   ``selective_ac_option = "op"`` (no recomputation, as above). Not modelled: the float8 all-gather of the weights
   (the workbench gathers them in bf16) and ``force_recompute_fp8_weight_in_bwd``.
3. ``NEMO_2507_ROWS``: NVIDIA NeMo Framework's performance page for the NeMo 25.07 container, system DGX-GB200
   (docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance-summary.html while 25.07 was current),
   FP8 with current scaling, the rows of models the presets hold (Llama 3 8B, 70B, 3.1 405B) at their unbracketed
   values. Each row also prints a bracketed variant (e.g. 70B: "1 (0)" FSDP, "1 (2)" TP ... "4066 (2605)"); the
   note that explains the brackets was not in the text available to this reviewer, so they are left out. The
   Llama 4 Scout and Maverick rows are left out (no preset; their chunked attention and interleaved MoE layers are
   not a config the workbench reads), and the page's DGX-B200 and DGX-H100 tables could not be read.
4. ``DGXC_ROWS``: NVIDIA's DGX Cloud Benchmarking recipes (github.com/NVIDIA/dgxc-benchmarking) of releases the
   registered runs do not cite (they cite v24.11.1, v25.05 and v25.05.02): each README's "Example output" of its
   timing script is one measured run, the experiment name carrying its layout (GPUs, TP, PP, CP, VP, EP, MBS, GBS),
   its step time averaged over iterations 35-44, and its TFLOP/s per GPU; the README's table row of that layout
   gives the sequence and the rest. Tokens per GPU-second = GBS x sequence / (step time x GPUs), the README's own
   formula per GPU. The rows: DeepSeek-V3 BF16 on 1024 H100 (release 25.08, "Training step time = 36.189 s", the
   table's RecomputeModule "mla_up_proj,mlp,moe": ``recompute_modules`` ``mla_up_proj`` and ``moe``; "mlp" has no
   counterpart in the workbench); DeepSeek-V3 BF16 on 256 GB200 (release 25.10, 11071.480 ms, "E.g. DeepSeek-V3
   BF16 on 256x GB200 GPUs"); Llama 3.1 405B FP8-CS on 128 GB200 (release 25.10, 5741.470 ms, "E.g. Llama3.1 405b FP8
   on 128x GB200"; the table: FSDP True, TP 2, DP GPUs/2, MBS 1, GBS GPUs/2, OL 80, which this reviewer reads as 80
   layers' activations offloaded: the search includes the workbench's offload mode but the count is not set);
   Qwen3 235B-A22B BF16 on 256 GPUs (release 25.12, 25532.270 ms; the example names no system: TP 2, PP 8, VP 4, EP 32
   at 256 GPUs and GBS 2048 is a row of the H100 table only, so it is planned on H100, an inference). The other
   example lines of these releases are left out where the name, the table and the numbers disagree (e.g. 25.07's
   "32nodes ... 1024gbs ... 34.229" beside "training step time = 52.04 s"; Nemotron-4 340B's 21.542 s beside 2.693 s).
   No option beyond the printed ones is set (ZeRO stages 0-2 are searched where FSDP is not printed, 3 where it is).
5. ``ZOO_ROWS``: Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @ 798dfb5 (2026-05-13), newer than the commit
   ``report_heldout_zoo_blackwell.py`` reads (020b813): its GB300 table now holds one row, Qwen3 235B-A22B, 4096
   tokens, 16 nodes (64 GB300), MXFP8, TP 1, PP 1, VPP 1, CP 1, EP 64, MBS 1, GBS 8192, 1055 TFLOP/s per GPU, command
   ``A2A_OVERLAP=1`` and no recompute flag. Planned exactly as that report plans the page's rows
   (``report_heldout_zoo_blackwell.held_out_run``: the distributed optimizer, bf16 gradients for MXFP8, expert TP 1,
   Megatron-Core's 2025 FLOP count); only the source differs. The same commit lists the 128K long-context row
   (TP 4, PP 4, VPP 12, CP 4, EP 32, 1150 TFLOP/s) under GB200 where 020b813 listed it under GB300; which system ran
   it is not clear, so it is left out.
6. ``AUTOMODEL_ROWS``: NeMo AutoModel's first performance page, github.com/NVIDIA-NeMo/Automodel
   docs/performance-summary.md @ 89e3a9fdd604bc3e70240f2fe4c6a9e1ce76cbd0 (2025-10-06): its Qwen3 MoE 30B row (8
   H100, GBS 512, MBS 4, sequence 4096, EP 8, FSDP 8) measured 22.14 s a step, 11,842 tokens/s/GPU, an earlier
   measurement than the 21.773 s (12,040) of the page ``report_heldout_automodel.py`` reads (36044ad3d); the layout
   is the same. Planned with that report's reading (``automodel_run``); its other rows are unchanged there.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout import count, print_tally, standing

from coursekit.planner.validation import compare_published
from coursekit.presets import CLUSTERS, PublishedRun
from coursekit.specs import ClusterSpec

# --------------------------------------------------------------------------- 1: torchtitan async TP, June 2025

ASYNC_TP_SOURCE = (
    "pytorch/torchtitan benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md @ "
    "b5bcd76c66d0acb1a08b176d9639425bc55e0b2a (added in 2887250bbd9103d0bc997ea2efb3a525b5e5dbc0), table “{table}”, "
    "row “{row}”; torch 38410cf9, torchao 6243040, torchtitan 820504e"
)
#: The H100 of the Grand Teton platform as ``report_heldout_torchtitan.py`` reads it (96 GB HBM2e, 2.4 TB/s, the
#: SXM's bf16 peak as an upper bound); host-to-host 400 Gb/s per GPU is the ``h100-8`` preset's.
GRAND_TETON_H100: ClusterSpec = replace(
    CLUSTERS["h100-8"],
    name="h100-96gb-500w",
    memory_per_device_gib=96e9 / 2**30,
    memory_bandwidth_bytes_per_s=2.4e12,
)
ATTENTION_KERNEL = "flash-attention-2"
#: (model, table, GPUs, FSDP, TP, local batch, recompute, quantization, async TP, tokens/s/GPU); sequence 8192.
ASYNC_TP_ROWS: tuple[tuple[str, str, int, int, int, int, str, str, bool, float], ...] = (
    ("llama3-70b", "Llama3 70b on 256 H100s", 256, 32, 8, 16, "full", "bf16", False, 597.3),
    ("llama3-70b", "Llama3 70b on 256 H100s", 256, 32, 8, 16, "full", "bf16", True, 652.4),
    ("llama3-70b", "Llama3 70b on 256 H100s", 256, 32, 8, 16, "full", "fp8", False, 809.8),
    ("llama3-70b", "Llama3 70b on 256 H100s", 256, 32, 8, 16, "full", "fp8", True, 942.4),
    ("llama3-8b", "Llama3 8b on 64 H100s", 64, 8, 8, 12, "none", "bf16", False, 4378.0),
    ("llama3-8b", "Llama3 8b on 64 H100s", 64, 8, 8, 12, "none", "bf16", True, 4809.4),
    ("llama3-8b", "Llama3 8b on 64 H100s", 64, 8, 8, 12, "none", "fp8", False, 5078.1),
    ("llama3-8b", "Llama3 8b on 64 H100s", 64, 8, 8, 12, "none", "fp8", True, 5570.1),
)
TORCHTITAN_SEQ = 8192


def async_tp_run(row: tuple[object, ...]) -> PublishedRun:
    """One row of the async TP tables (the module docstring's reading)."""
    model, table, gpus, fsdp, tp, local, recompute, precision, async_tp, tokens = row
    assert isinstance(gpus, int) and isinstance(fsdp, int) and isinstance(tp, int) and isinstance(local, int)
    assert isinstance(tokens, float)
    quant = "float8 tensorwise" if precision == "fp8" else "None (bfloat16)"
    options: list[tuple[str, object]] = [
        ("zero_stages", (3,)),
        ("recompute_modes", (recompute,)),
        ("max_micro_batch", local),
        ("max_virtual_stages", 1),
        ("precision", precision),
        ("attention_kernel", ATTENTION_KERNEL),
    ]
    if precision == "fp8":
        options.append(("fp8_recipe", "current"))
    if not async_tp:
        options.append(("overlap_tp", 0.0))
    column = "Async TP" if async_tp else "Vanilla TP"
    return PublishedRun(
        f"TorchTitan 2025-06 {table}, {quant}, {column}",
        str(model),
        GRAND_TETON_H100,
        gpus // GRAND_TETON_H100.gpus_per_node,
        local * fsdp,
        TORCHTITAN_SEQ,
        (("dp", fsdp), ("tp", tp), ("pp", 1), ("cp", 1)),
        "tokens",
        0.0,
        ASYNC_TP_SOURCE.format(table=table, row=f"{quant}, {column} tokens/sec"),
        measured_tokens_per_gpu_s=tokens,
        workload_options=tuple(options),
    )


# --------------------------------------------------------------------------- 2: torchtitan on H200 (Trainy)

TRAINY_SOURCE = (
    "pytorch/torchtitan benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md @ "
    "b5bcd76c66d0acb1a08b176d9639425bc55e0b2a (added in cbccb387871a5e1f522c1e222c51ab88b03c0392), row NUM_NODES "
    "{nodes}; torchtitan/models/llama3/train_configs/llama3_8b.toml @ e7c0cae934df78d6e9c2835f42ff1f757dc3fddc"
)
#: (hosts of 8 H200, TPS/GPU); local batch 2, FSDP over every GPU, float8 tensorwise, selective (per-op) AC.
TRAINY_ROWS: tuple[tuple[int, float], ...] = ((4, 10938.0), (8, 10753.0))
TRAINY_LOCAL_BATCH = 2


def trainy_run(row: tuple[int, float]) -> PublishedRun:
    """One row of the H200 table: Llama 3.1 8B under FSDP on every GPU."""
    nodes, tokens = row
    gpus = nodes * CLUSTERS["h200-8"].gpus_per_node
    options = (
        ("zero_stages", (3,)),
        ("recompute_modes", ("none",)),
        ("max_micro_batch", TRAINY_LOCAL_BATCH),
        ("max_virtual_stages", 1),
        ("precision", "fp8"),
        ("fp8_recipe", "current"),
        ("attention_kernel", ATTENTION_KERNEL),
    )
    return PublishedRun(
        f"TorchTitan Llama 3.1 8B, {gpus} H200 (Trainy, float8)",
        "llama3-8b",
        "h200-8",
        nodes,
        TRAINY_LOCAL_BATCH * gpus,
        TORCHTITAN_SEQ,
        (("dp", gpus), ("tp", 1), ("pp", 1), ("cp", 1)),
        "tokens",
        0.0,
        TRAINY_SOURCE.format(nodes=nodes),
        measured_tokens_per_gpu_s=tokens,
        workload_options=options,
    )


# --------------------------------------------------------------------------- 3: NeMo 25.07, DGX-GB200

NEMO_2507_SOURCE = (
    "NVIDIA NeMo, “Performance”, Container NeMo 25.07, System DGX-GB200, FP8 (current scaling), "
    "docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance-summary.html, row {row} "
    "(unbracketed values)"
)
#: (model preset, table row, GPUs, GBS, MBS, sequence, FSDP, TP, PP, CP, VP, EP, tokens/s/GPU)
NEMO_2507_ROWS: tuple[tuple[str, str, int, int, int, int, int, int, int, int, int, int, float], ...] = (
    ("llama3-8b", "LLAMA3-8B", 8, 128, 2, 8192, 0, 1, 1, 1, 1, 1, 31737.0),
    ("llama3-70b", "LLAMA3-70B", 64, 128, 1, 8192, 1, 1, 1, 1, 1, 1, 4066.0),
    ("llama3-405b", "LLAMA3.1-405B", 128, 64, 1, 8192, 1, 2, 1, 1, 1, 1, 706.0),
)


def nemo_2507_run(row: tuple[object, ...]) -> PublishedRun:
    """One NeMo 25.07 GB200 row, as ``report_heldout_outside16.py`` reads the 25.04 page (FSDP 1: ZeRO-3)."""
    model, label, gpus, batch, micro, seq, fsdp, tp, pp, cp, vp, ep, tokens = row
    assert isinstance(gpus, int) and isinstance(tp, int) and isinstance(pp, int) and isinstance(cp, int)
    assert isinstance(ep, int) and isinstance(tokens, float) and isinstance(seq, int) and isinstance(batch, int)
    degrees: dict[str, int] = {"tp": tp, "cp": cp, "pp": pp, "dp": gpus // (tp * pp * cp)}
    if ep > 1:
        degrees["ep"] = ep
    options: list[tuple[str, object]] = [
        ("precision", "fp8"),
        ("fp8_recipe", "current"),
        ("max_micro_batch", micro),
        ("max_virtual_stages", vp),
        ("zero_stages", (3,) if fsdp else (0, 1, 2)),
    ]
    cluster = "gb200-nvl72"
    return PublishedRun(
        f"NeMo 25.07 {label}, {seq // 1024}K, {gpus} GB200 (FP8{', FSDP' if fsdp else ''})",
        str(model),
        cluster,
        gpus // CLUSTERS[cluster].gpus_per_node,
        batch,
        seq,
        tuple(degrees.items()),
        "tokens",
        0.0,
        NEMO_2507_SOURCE.format(row=label),
        measured_tokens_per_gpu_s=tokens,
        workload_options=tuple(options),
    )


# --------------------------------------------------------------------------- 4: DGX Cloud Benchmarking examples

DGXC_SOURCE = (
    "NVIDIA “DGX Cloud Benchmarking” (github.com/NVIDIA/dgxc-benchmarking) @ {commit} (release {release}), "
    "{readme}, “Example output”: {experiment}, {step}"
)
DGXC_SYSTEMS = {"H100": "h100-8", "GB200": "gb200-nvl72"}
#: (release, commit, README, experiment name, system, model preset, precision, GPUs, GBS, MBS, sequence, FSDP, TP,
#: PP, CP, VP, EP, step time s, recompute modules)
DGXC_ROWS: tuple[tuple[object, ...], ...] = (
    ("25.08", "59689f59eb5739acb3b06652c1a7b363f80b828c", "deepseek_v3/pretrain/README.md",
     "pretrain_deepseek_v3_bf16_gpus1024_tp1_pp8_cp1_vp2_ep64_mbs1_gbs8192", "H100", "deepseek-v3", "BF16",
     1024, 8192, 1, 4096, 0, 1, 8, 1, 2, 64, 36.189, ("mla_up_proj", "moe")),
    ("25.10", "8e77d607c06f8c8603568ba7e49e65f8ff88c1b8", "deepseek_v3/pretrain/README.md",
     "pretrain_deepseek_v3_bf16_gpus256_tp1_pp4_cp1_vp4_ep64_mbs1_gbs2048", "GB200", "deepseek-v3", "BF16",
     256, 2048, 1, 4096, 0, 1, 4, 1, 4, 64, 11.07148, ()),
    ("25.10", "8e77d607c06f8c8603568ba7e49e65f8ff88c1b8", "llama3.1/README.md",
     "pretrain_llama31_405b_fp8_cs_gpus128_tp2_pp1_cp1_vpNone_ep1_mbs1_gbs64", "GB200", "llama3-405b", "FP8-CS",
     128, 64, 1, 8192, 1, 2, 1, 1, 1, 1, 5.74147, ()),
    ("25.12", "db1b14c466609306d1ff740a5139eb778aaf940f", "qwen3/pretrain/README.md",
     "pretrain_qwen3_235b_a22b_bf16_gpus256_tp2_pp8_cp1_vp4_ep32_mbs1_gbs2048", "H100", "qwen3-235b-a22b", "BF16",
     256, 2048, 1, 4096, 0, 2, 8, 1, 4, 32, 25.53227, ()),
)  # fmt: skip


def dgxc_tokens_per_gpu_s(row: tuple[object, ...]) -> float:
    """The README's formula, per GPU: GBS x sequence / (step time x GPUs)."""
    gpus, batch, seq, step_s = row[7], row[8], row[10], row[17]
    assert isinstance(gpus, int) and isinstance(batch, int) and isinstance(seq, int) and isinstance(step_s, float)
    return batch * seq / (step_s * gpus)


def dgxc_run(row: tuple[object, ...]) -> PublishedRun:
    """One example run of a DGX Cloud Benchmarking README, with what its name and table row print."""
    release, commit, readme, experiment, system, model, precision, gpus, batch, micro, seq = row[:11]
    fsdp, tp, pp, cp, vp, ep, step_s, modules = row[11:]
    assert isinstance(gpus, int) and isinstance(tp, int) and isinstance(pp, int) and isinstance(cp, int)
    assert isinstance(ep, int) and isinstance(seq, int) and isinstance(batch, int) and isinstance(modules, tuple)
    cluster = DGXC_SYSTEMS[str(system)]
    degrees: dict[str, int] = {"tp": tp, "cp": cp, "pp": pp, "dp": gpus // (tp * pp * cp)}
    if ep > 1:
        degrees["ep"] = ep
    options: list[tuple[str, object]] = [
        ("precision", "fp8" if str(precision).startswith("FP8") else "bf16"),
        ("max_micro_batch", micro),
        ("max_virtual_stages", vp),
        ("zero_stages", (3,) if fsdp else (0, 1, 2)),
    ]
    if precision == "FP8-CS":
        options.append(("fp8_recipe", "current"))
    if modules:
        options.append(("recompute_modules", modules))
    return PublishedRun(
        f"DGX Cloud {release} {model}, {gpus} {system} ({precision})",
        str(model),
        cluster,
        gpus // CLUSTERS[cluster].gpus_per_node,
        batch,
        seq,
        tuple(degrees.items()),
        "tokens",
        0.0,
        DGXC_SOURCE.format(commit=commit, release=release, readme=readme, experiment=experiment, step=f"{step_s} s"),
        measured_tokens_per_gpu_s=dgxc_tokens_per_gpu_s(row),
        workload_options=tuple(options),
    )


# --------------------------------------------------------------------------- 5: MoE-ModelZoo's newer GB300 row

ZOO_SOURCE = (
    "Megatron-MoE-ModelZoo (github.com/yanring/Megatron-MoE-ModelZoo) best_practice/qwen3/readme.md @ "
    "798dfb5 (2026-05-13), GB300 table, row 4096 / 16 nodes / MXFP8 / EP 64"
)
#: In ``report_heldout_zoo_blackwell.ROWS``' order: (system, sequence, nodes, precision, TP, PP, VP, CP, EP, MBS,
#: GBS, A2A overlap, selective norm+act recompute, activation offloading, TFLOP/s per GPU).
ZOO_ROWS: tuple[tuple[str, int, int, str, int, int, int, int, int, int, int, bool, bool, bool, float], ...] = (
    ("GB300", 4096, 16, "mxfp8", 1, 1, 1, 1, 64, 1, 8192, True, False, False, 1055.0),
)


def zoo_run(row: tuple[object, ...]) -> PublishedRun:
    """One newer ModelZoo row, planned by ``report_heldout_zoo_blackwell``'s reading with this commit as source."""
    from report_heldout_zoo_blackwell import held_out_run as zoo_held_out_run

    run = zoo_held_out_run(row)
    return replace(run, name=run.name.replace("MoE-ModelZoo", "MoE-ModelZoo 2026-05"), source=ZOO_SOURCE)


# --------------------------------------------------------------------------- 6: AutoModel's first page

AUTOMODEL_SOURCE = (
    "NVIDIA NeMo AutoModel, “Performance Summary”, Pre-Training Performance, DGX-H100, BF16, "
    "github.com/NVIDIA-NeMo/Automodel docs/performance-summary.md @ 89e3a9fdd604bc3e70240f2fe4c6a9e1ce76cbd0, "
    "row Qwen3 MoE 30B (22.14 s per global step)"
)
#: In ``report_heldout_automodel.ROWS``' order: (model, row, GPUs, GBS, MBS, sequence, TP, PP, CP, EP, VP, FSDP,
#: tokens/s/GPU).
AUTOMODEL_ROWS: tuple[tuple[str, str, int, int, int, int, int, int, int, int, int, int, float], ...] = (
    ("qwen3-30b-a3b", "Qwen3 MoE 30B", 8, 512, 4, 4096, 1, 1, 1, 8, 1, 8, 11842.0),
)


def automodel_first_page_run(row: tuple[object, ...]) -> PublishedRun:
    """The first page's row, planned by ``report_heldout_automodel``'s reading with this commit as source."""
    from report_heldout_automodel import automodel_run

    run = automodel_run(row)
    return replace(run, name=run.name.replace("NeMo AutoModel", "NeMo AutoModel 2025-10"), source=AUTOMODEL_SOURCE)


def all_runs() -> list[tuple[str, PublishedRun, bool]]:
    """Every row of the six groups: (group, run, MoE)."""
    runs: list[tuple[str, PublishedRun, bool]] = []
    runs += [("torchtitan async TP (H100)", async_tp_run(r), False) for r in ASYNC_TP_ROWS]
    runs += [("torchtitan H200 (Trainy)", trainy_run(r), False) for r in TRAINY_ROWS]
    runs += [("NeMo 25.07 GB200", nemo_2507_run(r), r[11] > 1) for r in NEMO_2507_ROWS]
    runs += [("DGX Cloud examples", dgxc_run(r), int(str(r[16])) > 1) for r in DGXC_ROWS]
    runs += [("MoE-ModelZoo 2026-05", zoo_run(r), True) for r in ZOO_ROWS]
    runs += [("NeMo AutoModel 2025-10", automodel_first_page_run(r), True) for r in AUTOMODEL_ROWS]
    return runs


def main() -> int:
    start = time.perf_counter()
    passes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    group = ""
    for name, run, moe in all_runs():
        if name != group:
            print(f"\n{name}")
            group = name
        c = compare_published(run)
        print(f"  {run.name}")
        print(f"    {'accepted' if c.accepted else 'refused'}; {standing(c)}")
        if c.estimated_over_published is not None:
            if run.measured_tokens_per_gpu_s:
                measured = f"measured {run.measured_tokens_per_gpu_s:,.0f} tokens/s/GPU"
            else:
                measured = f"measured {run.measured_tflops_per_gpu:,.0f} TFLOP/s/GPU ({run.flop_convention})"
            print(f"    {measured}; published layout {c.layout}; best {c.best_layout}")
        count(passes, totals, ("all", name, "MoE" if moe else "dense"), c.passes)
    print_tally(passes, totals)
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
