"""Held-out check by an outside reviewer: vendor table rows not registered, planned as published; nothing asserted.

    .venv/bin/python benchmarks/report_heldout_outside16.py

None of these rows is registered (``coursekit.published_runs``: NeMo's 25.02 page is, for DGX-B200 and one DGX-H100
row; Megatron-Bridge's GB200 rows are, from 25.09 on) and no constant of the estimate was fitted on them. The rows
are typed from NVIDIA NeMo Framework's performance page for the NeMo 25.04 container, system DGX-GB200
(docs.nvidia.com/nemo-framework/user-guide/latest/performance/archive/25.04-performance-summary.html, the same table
the page performance_summary.html carried while 25.04 was current): every row of a model the presets hold, at the
table's GPUs, global batch, micro-batch, sequence, FSDP, TP, PP, CP, VP and EP, measured in tokens per GPU-second. The
page states FP8 with per-tensor scaling factors computed in the current step (``fp8_recipe="current"``). The page's
legend reads FSDP = 1 as "use FSDP" (planned as ZeRO stage 3) and FSDP = 0 as "use DDP" (ZeRO stages 0-2 searched:
the page does not say whether the distributed optimizer ran). The Mixtral 8x22B row prints GBS 1 and MBS 64 in
swapped columns, as on the 25.02 page (its GA 16 on DP 4 at micro-batch 1 gives 64). Nothing else is set: this is
the workbench as a reader who copies a table row into ``python -m coursekit plan --precision fp8 --fp8-recipe
current --max-micro-batch MBS --max-virtual-stages VP --layout tp=..,pp=..,cp=..,vp=..[,ep=..][,fsdp=1]`` (with
``--zero 0,1,2`` for FSDP = 0) would use it. The pass rule is the registered
runs' (accepted; tie group 1 or top 10; the best step within 1.25x; throughput within ±30 %).

A second group (``BRIDGE_ROWS``) types the Megatron-Bridge performance pages' pre-training rows that neither the
registered runs nor ``report_heldout_blackwell.py`` hold, from github.com/NVIDIA-NeMo/Megatron-Bridge
docs/performance-summary-archive.md @ 067f987df03b8355b03192d88d70f1709fedf51a: the 25.09 and 25.11 containers'
DGX-GB300, GB200, B200 and H100 tables (FP8-CS, FP8-MX and BF16; a "(…)" value in 25.11 is the FP8-MX variant of
the row, as its note says; 25.09's "(…)" layouts and its token-dropping MoE rows are left out), and the 26.02.01 to
26.06 DGX-H100 rows of a release the registered runs do not cite. Precision: FP8-CS is ``fp8_recipe="current"``,
FP8-MX ``"mxfp8"``; the FSDP column holds Megatron-FSDP's size (the whole DP group: ZeRO-3), 0 searches stages 0-2.
"DeepSeekV3 (w/o MTP)" drops the preset's multi-token prediction module. Only what the table prints is set.

A third group (``GPT_OSS_ROWS``) is a model no preset holds, GPT OSS 120B, read as an outsider reads it: its
Hugging Face config.json values (openai/gpt-oss-120b: 36 layers alternating sliding-window 128 and full attention,
hidden 2880, 64 heads, 8 KV heads of 64, 128 experts of 2880 with top-4, vocabulary 201088; typed below) through
``ModelSpec.from_config``, and the 25.11 tables' BF16 rows on DGX-H100, B200 and GB200.
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
from coursekit.presets import CLUSTERS, MODELS, PublishedRun
from coursekit.specs import ModelSpec

SOURCE = (
    "NVIDIA NeMo, “Performance”, NeMo 25.04, DGX-GB200, FP8 (current scaling), "
    "docs.nvidia.com/nemo-framework/user-guide/latest/performance/archive/25.04-performance-summary.html, row {row}"
)
CLUSTER = "gb200-nvl72"
#: (model preset, table row, GPUs, GBS, MBS, sequence, FSDP, TP, PP, CP, VP, EP, tokens/s/GPU)
ROWS: tuple[tuple[str, str, int, int, int, int, int, int, int, int, int, int, float], ...] = (
    ("gpt3-175b", "GPT3-175B", 128, 256, 2, 2048, 0, 4, 4, 1, 12, 1, 1804.0),
    ("llama3-8b", "LLAMA3-8B", 8, 128, 2, 8192, 0, 1, 1, 1, 1, 1, 33099.0),
    ("llama3-70b", "LLAMA3-70B", 64, 128, 1, 8192, 1, 1, 1, 1, 1, 1, 4035.0),
    ("llama3-405b", "LLAMA3-405B", 128, 64, 1, 8192, 0, 4, 8, 2, 8, 1, 665.0),
    ("nemotron4-15b", "Nemotron-15B", 64, 256, 2, 4096, 0, 1, 1, 1, 1, 1, 17809.0),
    ("nemotron4-340b", "Nemotron-340B", 128, 32, 1, 4096, 0, 8, 4, 1, 12, 1, 737.0),
    ("mixtral-8x7b", "Mixtral-8x7B", 64, 256, 2, 4096, 0, 1, 1, 1, 1, 8, 19275.0),
    ("mixtral-8x22b", "Mixtral-8x22B", 256, 64, 1, 65536, 0, 2, 4, 8, 14, 8, 2731.0),
)


def held_out_run(row: tuple[object, ...]) -> PublishedRun:
    """One row as a :class:`coursekit.presets.PublishedRun`, with only what the table states."""
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
    ]
    options.append(("zero_stages", (3,) if fsdp else (0, 1, 2)))
    return PublishedRun(
        f"NeMo 25.04 {label}, {seq // 1024}K, {gpus} GB200 (FP8{', FSDP' if fsdp else ''})",
        str(model),
        CLUSTER,
        gpus // CLUSTERS[CLUSTER].gpus_per_node,
        batch,
        seq,
        tuple(degrees.items()),
        "tokens",
        0.0,
        SOURCE.format(row=label),
        measured_tokens_per_gpu_s=tokens,
        workload_options=tuple(options),
    )


BRIDGE_SOURCE = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, {release} NeMo container, DGX-{system}, {precision}, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @ "
    "067f987df03b8355b03192d88d70f1709fedf51a, row {row}"
)
BRIDGE_SYSTEMS = {"GB300": "gb300-nvl72", "GB200": "gb200-nvl72", "B300": "b300-8", "B200": "b200-8", "H100": "h100-8"}
BRIDGE_PRECISIONS = {"FP8-CS": ("fp8", "current"), "FP8-MX": ("fp8", "mxfp8"), "BF16": ("bf16", None)}
#: (release, system, table row, model preset, precision, GPUs, GBS, MBS, sequence, FSDP, TP, PP, CP, VP, EP,
#: tokens/s/GPU); VP 1 where the table prints n/a.
BRIDGE_ROWS: tuple[tuple[str, str, str, str, str, int, int, int, int, int, int, int, int, int, int, float], ...] = (
    ("25.11", "GB300", "LLAMA3_8B", "llama3-8b", "FP8-CS", 8, 128, 2, 8192, 0, 1, 1, 1, 1, 1, 37556.0),
    ("25.11", "GB300", "LLAMA3_8B", "llama3-8b", "FP8-MX", 8, 128, 2, 8192, 0, 1, 1, 1, 1, 1, 36108.0),
    ("25.11", "GB300", "LLAMA3_70B", "llama3-70b", "FP8-CS", 64, 256, 2, 8192, 64, 1, 1, 1, 1, 1, 4520.0),
    ("25.11", "GB300", "LLAMA3.1_405B", "llama3-405b", "FP8-CS", 256, 1536, 1, 8192, 0, 2, 8, 2, 4, 1, 999.0),
    ("25.11", "GB300", "DeepSeekV3 (w/o MTP)", "deepseek-v3", "BF16", 256, 4096, 1, 4096, 0, 1, 2, 1, 4, 32, 3848.0),
    ("25.11", "GB300", "DeepSeekV3 (w/o MTP)", "deepseek-v3", "FP8-MX", 256, 4096, 1, 4096, 0, 1, 2, 1, 4, 32, 4357.0),
    ("25.11", "GB300", "Qwen3_30B_a3B", "qwen3-30b-a3b", "FP8-MX", 8, 512, 4, 4096, 0, 1, 1, 1, 1, 8, 28934.0),
    ("25.11", "GB300", "Qwen3_235B_a22B", "qwen3-235b-a22b", "BF16", 256, 8192, 2, 4096, 0, 1, 4, 1, 12, 16, 6131.0),
    ("25.11", "GB200", "LLAMA3_8B", "llama3-8b", "FP8-MX", 8, 128, 2, 8192, 0, 1, 1, 1, 1, 1, 29789.0),
    ("25.11", "GB200", "LLAMA3_70B", "llama3-70b", "FP8-CS", 64, 256, 2, 8192, 64, 1, 1, 1, 1, 1, 4312.0),
    ("25.11", "GB200", "DeepSeekV3 (w/o MTP)", "deepseek-v3", "BF16", 256, 4096, 1, 4096, 0, 1, 4, 1, 4, 64, 3139.0),
    ("25.11", "GB200", "DeepSeekV3 (w/o MTP)", "deepseek-v3", "FP8-MX", 256, 4096, 1, 4096, 0, 1, 8, 1, 4, 32, 4018.0),
    ("25.11", "GB200", "Qwen3_30B_a3B", "qwen3-30b-a3b", "FP8-MX", 8, 512, 4, 4096, 0, 1, 1, 1, 1, 8, 23766.0),
    ("25.11", "GB200", "Qwen3_235B_a22B", "qwen3-235b-a22b", "BF16", 256, 8192, 1, 4096, 0, 1, 8, 1, 3, 32, 4916.0),
    ("25.11", "B200", "LLAMA3_8B", "llama3-8b", "FP8-MX", 8, 128, 2, 8192, 0, 1, 1, 1, 1, 1, 29521.0),
    ("25.11", "B200", "LLAMA3.1_405B", "llama3-405b", "FP8-MX", 128, 64, 1, 8192, 0, 4, 8, 2, 8, 1, 624.0),
    ("25.11", "B200", "DeepSeekV3 (w/ MTP)", "deepseek-v3", "FP8-MX", 256, 2048, 1, 4096, 0, 1, 16, 1, 1, 8, 2139.0),
    ("25.11", "B200", "Qwen3_30B_a3B", "qwen3-30b-a3b", "FP8-MX", 8, 512, 1, 4096, 0, 1, 1, 1, 1, 8, 9299.0),
    ("25.11", "B200", "Qwen3_235B_a22B", "qwen3-235b-a22b", "FP8-MX", 64, 1024, 1, 4096, 0, 1, 8, 1, 2, 8, 3269.0),
    ("25.09", "GB200", "LLAMA3_70B", "llama3-70b", "FP8-CS", 64, 128, 2, 8192, 64, 1, 1, 1, 1, 1, 3986.0),
    ("25.09", "GB200", "LLAMA3.1_405B", "llama3-405b", "FP8-CS", 128, 64, 1, 8192, 64, 2, 1, 1, 1, 1, 729.0),
    ("25.09", "H100", "LLAMA3_8B", "llama3-8b", "FP8-CS", 8, 128, 1, 8192, 8, 1, 1, 1, 1, 1, 14079.0),
    ("25.09", "H100", "LLAMA3_70B", "llama3-70b", "FP8-CS", 64, 128, 1, 8192, 0, 4, 8, 1, 5, 1, 1619.0),
    ("25.09", "H100", "LLAMA3.1_405B", "llama3-405b", "FP8-CS", 1024, 512, 1, 8192, 0, 8, 8, 2, 8, 1, 302.0),
    ("26.02.01", "H100", "LLAMA3_70B", "llama3-70b", "FP8-CS", 64, 256, 1, 8192, 0, 4, 8, 1, 5, 1, 1639.0),
    ("26.04", "H100", "LLAMA3_70B", "llama3-70b", "FP8-CS", 64, 256, 1, 8192, 0, 4, 8, 1, 5, 1, 1633.0),
    ("26.04.01", "H100", "LLAMA3_70B", "llama3-70b", "FP8-CS", 64, 256, 1, 8192, 0, 4, 8, 1, 5, 1, 1664.0),
    ("26.04.01", "H100", "LLAMA3.1_405B", "llama3-405b", "FP8-CS", 1024, 1536, 1, 8192, 0, 8, 8, 2, 8, 1, 328.0),
    ("26.06", "H100", "LLAMA3.1_405B", "llama3-405b", "FP8-CS", 1024, 1536, 1, 8192, 0, 8, 8, 2, 8, 1, 326.0),
    ("26.02.01", "H100", "Qwen3_235B_a22B", "qwen3-235b-a22b", "FP8-CS", 256, 8192, 1, 4096, 0, 2, 8, 1, 4, 32, 1611.0),
    ("26.04", "H100", "Qwen3_235B_a22B", "qwen3-235b-a22b", "FP8-CS", 256, 8192, 1, 4096, 0, 2, 8, 1, 4, 32, 1686.0),
    ("26.04.01", "H100", "Qwen3_235B_a22B", "qwen3-235b-a22b", "FP8-CS", 256, 8192, 1, 4096, 0, 2, 8, 1, 4, 32, 1712.0),
    ("26.04.01", "H100", "Qwen3_30B_a3B", "qwen3-30b-a3b", "FP8-CS", 16, 1024, 1, 4096, 0, 1, 1, 1, 1, 16, 8960.0),
    ("26.06", "H100", "Qwen3_30B_a3B", "qwen3-30b-a3b", "FP8-CS", 16, 1024, 1, 4096, 0, 1, 1, 1, 1, 16, 8826.0),
)


def bridge_run(row: tuple[object, ...]) -> PublishedRun:
    """One Megatron-Bridge row as a :class:`coursekit.presets.PublishedRun`, with only what the table prints."""
    release, system, label, model, precision, gpus, batch, micro, seq, fsdp, tp, pp, cp, vp, ep, tokens = row
    assert isinstance(gpus, int) and isinstance(tp, int) and isinstance(pp, int) and isinstance(cp, int)
    assert isinstance(ep, int) and isinstance(tokens, float) and isinstance(seq, int) and isinstance(batch, int)
    cluster = BRIDGE_SYSTEMS[str(system)]
    spec = MODELS[str(model)]
    if "w/o MTP" in str(label):
        spec = replace(spec, name=spec.name + " (no MTP)", mtp_layers=0)
    degrees: dict[str, int] = {"tp": tp, "cp": cp, "pp": pp, "dp": gpus // (tp * pp * cp)}
    if ep > 1:
        degrees["ep"] = ep
    matmul, recipe = BRIDGE_PRECISIONS[str(precision)]
    options: list[tuple[str, object]] = [("precision", matmul), ("max_micro_batch", micro), ("max_virtual_stages", vp)]
    if recipe is not None:
        options.append(("fp8_recipe", recipe))
    options.append(("zero_stages", (3,) if fsdp else (0, 1, 2)))
    return PublishedRun(
        f"Megatron-Bridge {release} {label}, {gpus} {system} ({precision})",
        spec,
        cluster,
        gpus // CLUSTERS[cluster].gpus_per_node,
        batch,
        seq,
        tuple(degrees.items()),
        "tokens",
        0.0,
        BRIDGE_SOURCE.format(release=release, system=system, precision=precision, row=label),
        measured_tokens_per_gpu_s=tokens,
        workload_options=tuple(options),
    )


#: openai/gpt-oss-120b config.json, the keys the workbench reads (the rest: rope scaling, swiglu_limit, biases).
GPT_OSS_120B_CONFIG: dict[str, object] = {
    "model_type": "gpt_oss",
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "num_hidden_layers": 36,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "num_local_experts": 128,
    "num_experts_per_tok": 4,
    "vocab_size": 201088,
    "max_position_embeddings": 131072,
    "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention"] * 18,
    "tie_word_embeddings": False,
}
#: Megatron-Bridge 25.11, GPT OSS 120B, BF16: (system, GPUs, GBS, MBS, sequence, TP, PP, CP, EP, tokens/s/GPU).
GPT_OSS_ROWS: tuple[tuple[str, int, int, int, int, int, int, int, int, float], ...] = (
    ("H100", 64, 512, 4, 4096, 1, 4, 1, 8, 5630.0),
    ("B200", 64, 512, 4, 4096, 1, 1, 1, 8, 8213.0),
    ("GB200", 64, 1280, 1, 8192, 1, 1, 1, 64, 15876.0),
    ("GB300", 64, 1280, 2, 8192, 1, 1, 1, 64, 18347.0),
)


def gpt_oss_run(row: tuple[object, ...]) -> PublishedRun:
    """One GPT OSS 120B row, the model from its config.json."""
    system, gpus, batch, micro, seq, tp, pp, cp, ep, tokens = row
    assert isinstance(gpus, int) and isinstance(tp, int) and isinstance(pp, int) and isinstance(cp, int)
    assert isinstance(ep, int) and isinstance(tokens, float) and isinstance(seq, int) and isinstance(batch, int)
    cluster = BRIDGE_SYSTEMS[str(system)]
    degrees = {"tp": tp, "cp": cp, "pp": pp, "dp": gpus // (tp * pp * cp), "ep": ep}
    options = (("precision", "bf16"), ("max_micro_batch", micro), ("max_virtual_stages", 1), ("zero_stages", (0, 1, 2)))
    return PublishedRun(
        f"Megatron-Bridge 25.11 GPT OSS 120B, {gpus} {system} (BF16)",
        ModelSpec.from_config(GPT_OSS_120B_CONFIG, name="gpt-oss-120b"),
        cluster,
        gpus // CLUSTERS[cluster].gpus_per_node,
        batch,
        seq,
        tuple(degrees.items()),
        "tokens",
        0.0,
        BRIDGE_SOURCE.format(release="25.11", system=system, precision="BF16", row="GPT OSS 120B"),
        measured_tokens_per_gpu_s=tokens,
        workload_options=options,
    )


def main() -> int:
    start = time.perf_counter()
    passes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for row in ROWS:
        c = compare_published(held_out_run(row))
        print(f"{row[1]:14} {standing(c)}")
        if c.estimated_over_published is not None:
            print(f"{'':14} measured {row[-1]:,.0f} tokens/s/GPU; fastest with the layout: {c.layout}")
        count(passes, totals, ("all", "NeMo 25.04 GB200", "MoE" if row[11] > 1 else "dense"), c.passes)
    print()
    for brow in BRIDGE_ROWS:
        c = compare_published(bridge_run(brow))
        print(f"{brow[0]:8} {brow[1]:5} {brow[2]:20} {brow[4]:6} {standing(c)}")
        if c.estimated_over_published is not None:
            print(f"{'':14} measured {brow[-1]:,.0f} tokens/s/GPU; fastest with the layout: {c.layout}")
        groups = ("all", "Megatron-Bridge", f"system {brow[1]}", f"precision {brow[4]}")
        count(passes, totals, (*groups, "MoE" if brow[14] > 1 else "dense"), c.passes)
    print()
    for grow in GPT_OSS_ROWS:
        c = compare_published(gpt_oss_run(grow))
        print(f"25.11    {grow[0]:5} GPT OSS 120B (config.json) BF16 {standing(c)}")
        groups = ("all", "Megatron-Bridge", "GPT OSS 120B (config.json)", f"system {grow[0]}", "precision BF16", "MoE")
        count(passes, totals, groups, c.passes)
    print_tally(passes, totals)
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
