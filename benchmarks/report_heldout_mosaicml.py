"""Held-out check on MosaicML's MPT training benchmarks (llm-foundry), planned as published; nothing is asserted.

    .venv/bin/python benchmarks/report_heldout_mosaicml.py [--table H100|H100-L|H100-FP8|A100-80|A100-40]

The rows are every row of the five tables of mosaicml/llm-foundry scripts/train/benchmarking/README.md @ 495218376
(2024-04-22, unchanged at 8c8dd48f7): MPT models of 125M to 70B parameters trained with PyTorch FSDP on 8 to 512 GPUs
(H100 80GB in bf16 and FP8, A100 80GB and A100 40GB in bf16), each with its sequence length, GPUs, micro-batch,
gradient accumulation, sharding (FULL_SHARD: ZeRO-3; SHARD_GRAD_OP: ZeRO-2), activation checkpointing (full
recomputation) and measured tokens per GPU-second. None is registered and no constant was fitted on them.

Each is planned with what the table and the MPT configs (scripts/train/yamls/pretrain/mpt-*.yaml) state: data
parallelism only (TP, PP and CP 1), the published micro-batch as the search's bound, the table's sharding and
recomputation, flash attention, no dropout; the model as MPTConfig builds it: d_model, n_heads,
n_layers of the yamls, a 4 d_model GELU MLP, LayerNorm without biases, learned positions of the row's sequence length
(MPTConfig's learned_pos_emb default: the table's parameter count grows with the sequence), the 50368-token
vocabulary tied to the output layer. The script checks each model's parameter count against the table's NumParams.
Assumptions, named: the H100 rows on the ``h100-8`` preset (the table does not state the H100 network); the A100 rows
on ``a100-8`` (8 x 200 Gb/s per node, as the table's "1600 Gbps node-node interconnect" says), with 40 GiB for the
A100 40GB; the recipe ``zero-fp16-adam`` (16 bytes a parameter, all sharded under FULL_SHARD; weights gathered in
bf16), though the DEFAULT mixed-precision rows reduce gradients in fp32 (twice the reduce-scatter bytes counted);
the FP8 rows at the course's FP8 recipe (delayed scaling). The attention kernel: the tables predate FlashAttention-3
(July 2024) and ran kernels written for Ampere: llm-foundry's Triton flash attention (``attn_impl: triton``, the
default of submit_benchmarks.py when the H100 table was added, b2a43a147, and the sweep's 13b and 30b rows) or
``flash-attn`` (``attn_impl: flash``: 1.0.9 in the ``gpu`` extra, 2.x in ``gpu-flash2``). The H100 rows are
charged at FlashAttention-2's H100 speed (``WorkloadSpec(attention_kernel="flash-attention-2")``), the Ampere-era
kernel the FlashAttention-3 paper measured on H100 forward and backward (its Triton bars, OpenAI's tutorial kernel,
are 6 to 8 % faster forward and have no backward); the A100 rows keep the workbench's default (on A100 a kernel
written for Ampere is the device's own).
``--attention-kernel flash-attention-3`` shows the H100 rows at the default instead. The pass rule is the registered
runs' (accepted; tie group 1 or top 10; the best step within 1.25x; throughput within ±30 %). Takes a minute or two on
2 cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout import count, print_tally, standing

from coursekit.planner import ModelSpec
from coursekit.planner.validation import compare_published
from coursekit.presets import CLUSTERS, PublishedRun
from coursekit.specs import ATTENTION_KERNELS

SOURCE = (
    "MosaicML, “MPT Training Benchmarks”, github.com/mosaicml/llm-foundry scripts/train/benchmarking/README.md @ "
    "495218376 (table {table}); model dimensions from scripts/train/yamls/pretrain/mpt-{size}.yaml"
)
#: d_model, n_heads, n_layers of each size (the yamls; 3b and 760m with the heads their comments give: d_head 128).
DIMENSIONS: dict[str, tuple[int, int, int]] = {
    "125m": (768, 12, 12),
    "350m": (1024, 16, 24),
    "760m": (1536, 12, 24),
    "1b": (2048, 16, 24),
    "3b": (2560, 20, 32),
    "7b": (4096, 32, 32),
    "13b": (5120, 40, 40),
    "30b": (7168, 56, 48),
    "70b": (8192, 64, 80),
}
VOCAB = 50368
#: (table, size, sequence, GPUs, micro-batch, accumulation, tokens/s/GPU, precision, mixed-precision mode, sharding,
#: activation checkpointing, NumParams), every row of the README in its order.
ROWS: tuple[tuple[str, str, int, int, int, int, int, str, str, str, bool, int], ...] = (
    ("H100-L", "70b", 2048, 512, 8, 1, 1007, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 64862437376),
    ("H100-L", "70b", 2048, 256, 8, 1, 1035, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 64862437376),
    ("H100-L", "70b", 2048, 128, 8, 1, 1058, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 64862437376),
    ("H100-L", "30b", 2048, 512, 8, 1, 2115, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29975214080),
    ("H100-L", "30b", 2048, 256, 8, 1, 2148, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29975214080),
    ("H100-L", "30b", 2048, 128, 8, 1, 2199, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29975214080),
    ("H100-L", "13b", 2048, 512, 16, 1, 4952, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12853954560),
    ("H100-L", "13b", 2048, 256, 16, 1, 4989, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12853954560),
    ("H100-L", "13b", 2048, 128, 16, 1, 5080, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12853954560),
    ("H100-L", "7b", 2048, 512, 6, 1, 9670, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 6658859008),
    ("H100-L", "7b", 2048, 256, 6, 1, 10119, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 6658859008),
    ("H100-L", "7b", 2048, 128, 6, 1, 10475, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 6658859008),
    ("H100-L", "3b", 2048, 512, 8, 1, 21664, "amp_bf16", "DEFAULT", "SHARD_GRAD_OP", False, 2651837440),
    ("H100-L", "3b", 2048, 256, 8, 1, 22772, "amp_bf16", "DEFAULT", "SHARD_GRAD_OP", False, 2651837440),
    ("H100-L", "3b", 2048, 128, 8, 1, 23422, "amp_bf16", "DEFAULT", "SHARD_GRAD_OP", False, 2651837440),
    ("H100-L", "1b", 2048, 512, 12, 1, 39837, "amp_bf16", "DEFAULT", "SHARD_GRAD_OP", False, 1315950592),
    ("H100-L", "1b", 2048, 256, 12, 1, 42555, "amp_bf16", "DEFAULT", "SHARD_GRAD_OP", False, 1315950592),
    ("H100-L", "1b", 2048, 128, 12, 1, 44123, "amp_bf16", "DEFAULT", "SHARD_GRAD_OP", False, 1315950592),
    ("H100", "70b", 2048, 64, 8, 4, 1039, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 64862437376),
    ("H100", "70b", 2048, 32, 2, 16, 882, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 64862437376),
    ("H100", "30b", 8192, 8, 1, 21, 1384, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 30019254272),
    ("H100", "30b", 4096, 8, 1, 21, 1802, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29989894144),
    ("H100", "30b", 2048, 32, 14, 3, 2308, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29975214080),
    ("H100", "30b", 2048, 16, 10, 3, 2263, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29975214080),
    ("H100", "30b", 2048, 8, 3, 21, 2002, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29975214080),
    ("H100", "30b", 1024, 8, 6, 21, 2084, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29967874048),
    ("H100", "13b", 32768, 8, 1, 3, 1976, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 13011240960),
    ("H100", "13b", 16384, 8, 3, 3, 2985, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12927354880),
    ("H100", "13b", 4096, 8, 10, 3, 4717, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12864440320),
    ("H100", "13b", 2048, 64, 2, 1, 4800, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 12853954560),
    ("H100", "13b", 2048, 32, 2, 1, 4811, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 12853954560),
    ("H100", "13b", 2048, 16, 2, 1, 4767, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 12853954560),
    ("H100", "13b", 2048, 8, 2, 1, 4792, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 12853954560),
    ("H100", "13b", 1024, 8, 40, 3, 5502, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12848711680),
    ("H100", "7b", 65536, 8, 1, 2, 1956, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6918905856),
    ("H100", "7b", 32768, 8, 2, 2, 3318, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6784688128),
    ("H100", "7b", 8192, 8, 8, 2, 6935, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6684024832),
    ("H100", "7b", 4096, 8, 16, 2, 8611, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6667247616),
    ("H100", "7b", 2048, 8, 6, 1, 10643, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 6658859008),
    ("H100", "7b", 1024, 8, 64, 2, 10203, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6654664704),
    ("H100", "3b", 65536, 8, 1, 2, 3262, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 2814366720),
    ("H100", "3b", 32768, 8, 3, 6, 5873, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 2730480640),
    ("H100", "3b", 16384, 8, 1, 6, 11152, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2688537600),
    ("H100", "3b", 8192, 8, 3, 6, 16578, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2667566080),
    ("H100", "3b", 4096, 8, 5, 6, 20964, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2657080320),
    ("H100", "3b", 2048, 64, 6, 3, 22525, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2651837440),
    ("H100", "3b", 2048, 32, 6, 3, 23021, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2651837440),
    ("H100", "3b", 2048, 16, 10, 3, 24142, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2651837440),
    ("H100", "3b", 1024, 8, 20, 6, 27046, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2649216000),
    ("H100", "3b", 512, 8, 40, 6, 27965, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2647905280),
    ("H100", "1b", 65536, 8, 1, 2, 5506, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 1445974016),
    ("H100", "1b", 32768, 8, 1, 4, 12025, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1378865152),
    ("H100", "1b", 16384, 8, 2, 4, 19649, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1345310720),
    ("H100", "1b", 8192, 8, 3, 4, 29157, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1328533504),
    ("H100", "1b", 4096, 8, 7, 4, 38535, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1320144896),
    ("H100", "1b", 2048, 64, 20, 1, 44402, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1315950592),
    ("H100", "1b", 2048, 32, 20, 1, 45130, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1315950592),
    ("H100", "1b", 2048, 16, 20, 1, 46037, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1315950592),
    ("H100", "1b", 2048, 8, 14, 1, 45455, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1315950592),
    ("H100", "1b", 1024, 8, 18, 4, 48910, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1313853440),
    ("H100", "1b", 512, 8, 56, 4, 52275, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1312804864),
    ("H100", "760m", 32768, 8, 1, 2, 16291, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 807656448),
    ("H100", "760m", 16384, 8, 3, 2, 27815, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 782490624),
    ("H100", "760m", 8192, 8, 6, 2, 41825, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 769907712),
    ("H100", "760m", 4096, 8, 12, 2, 55459, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 763616256),
    ("H100", "760m", 2048, 32, 24, 1, 67971, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 760470528),
    ("H100", "760m", 2048, 16, 24, 1, 68551, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 760470528),
    ("H100", "760m", 2048, 8, 24, 2, 63147, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 760470528),
    ("H100", "760m", 1024, 8, 48, 2, 78581, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 758897664),
    ("H100", "760m", 512, 8, 96, 2, 83749, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 758111232),
    ("H100-FP8", "3b", 32768, 8, 3, 6, 5856, "amp_fp8", "DEFAULT", "FULL_SHARD", True, 2730480640),
    ("H100-FP8", "3b", 8192, 8, 3, 6, 19146, "amp_fp8", "DEFAULT", "FULL_SHARD", False, 2667566080),
    ("H100-FP8", "3b", 2048, 8, 10, 6, 30586, "amp_fp8", "DEFAULT", "FULL_SHARD", False, 2651837440),
    ("H100-FP8", "3b", 512, 8, 40, 6, 36527, "amp_fp8", "DEFAULT", "FULL_SHARD", False, 2647905280),
    ("H100-FP8", "1b", 32768, 8, 1, 4, 12580, "amp_fp8", "DEFAULT", "FULL_SHARD", False, 1378865152),
    ("H100-FP8", "1b", 8192, 8, 2, 4, 32010, "amp_fp8", "DEFAULT", "FULL_SHARD", False, 1328533504),
    ("H100-FP8", "1b", 512, 8, 56, 4, 70315, "amp_fp8", "DEFAULT", "FULL_SHARD", False, 1312804864),
    ("A100-80", "70b", 2048, 64, 8, 4, 410, "bf16", "PURE", "FULL_SHARD", True, 64862437376),
    ("A100-80", "70b", 2048, 32, 2, 16, 373, "bf16", "PURE", "FULL_SHARD", True, 64862437376),
    ("A100-80", "30b", 8192, 8, 1, 21, 574, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 30019254272),
    ("A100-80", "30b", 4096, 8, 1, 21, 814, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29989894144),
    ("A100-80", "30b", 2048, 8, 3, 21, 916, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29975214080),
    ("A100-80", "30b", 1024, 8, 6, 21, 946, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29967874048),
    ("A100-80", "30b", 512, 8, 12, 21, 967, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 29964204032),
    ("A100-80", "13b", 32768, 8, 1, 3, 1016, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 13011240960),
    ("A100-80", "13b", 16384, 8, 3, 3, 1431, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12927354880),
    ("A100-80", "13b", 8192, 8, 5, 3, 1795, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12885411840),
    ("A100-80", "13b", 4096, 8, 10, 3, 2060, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12864440320),
    ("A100-80", "13b", 2048, 8, 2, 3, 2262, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 12853954560),
    ("A100-80", "13b", 1024, 8, 40, 3, 2330, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 12848711680),
    ("A100-80", "7b", 65536, 8, 1, 2, 1013, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6918905856),
    ("A100-80", "7b", 32768, 8, 2, 2, 1672, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6784688128),
    ("A100-80", "7b", 16384, 8, 4, 2, 2453, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6717579264),
    ("A100-80", "7b", 8192, 8, 8, 2, 3206, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6684024832),
    ("A100-80", "7b", 4096, 8, 16, 2, 3684, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6667247616),
    ("A100-80", "7b", 2048, 8, 6, 2, 4641, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 6658859008),
    ("A100-80", "7b", 1024, 8, 64, 2, 4357, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 6654664704),
    ("A100-80", "3b", 65536, 8, 1, 2, 1767, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 2814366720),
    ("A100-80", "3b", 32768, 8, 3, 6, 3029, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 2730480640),
    ("A100-80", "3b", 16384, 8, 1, 6, 5529, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2688537600),
    ("A100-80", "3b", 8192, 8, 3, 6, 7695, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2667566080),
    ("A100-80", "3b", 4096, 8, 5, 6, 9457, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2657080320),
    ("A100-80", "3b", 2048, 8, 10, 2, 10811, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2651837440),
    ("A100-80", "3b", 1024, 8, 20, 6, 11580, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2649216000),
    ("A100-80", "3b", 512, 8, 40, 6, 12127, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 2647905280),
    ("A100-80", "1b", 65536, 8, 1, 2, 3044, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 1445974016),
    ("A100-80", "1b", 32768, 8, 1, 4, 6275, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1378865152),
    ("A100-80", "1b", 16384, 8, 2, 4, 9956, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1345310720),
    ("A100-80", "1b", 8192, 8, 3, 4, 13814, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1328533504),
    ("A100-80", "1b", 4096, 8, 7, 4, 17807, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1320144896),
    ("A100-80", "1b", 2048, 8, 14, 4, 20513, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1315950592),
    ("A100-80", "1b", 1024, 8, 18, 4, 22112, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1313853440),
    ("A100-80", "1b", 512, 8, 56, 4, 23148, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 1312804864),
    ("A100-80", "760m", 65536, 8, 1, 2, 4143, "amp_bf16", "DEFAULT", "FULL_SHARD", True, 857988096),
    ("A100-80", "760m", 32768, 8, 1, 2, 8802, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 807656448),
    ("A100-80", "760m", 16384, 8, 3, 2, 14274, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 782490624),
    ("A100-80", "760m", 8192, 8, 6, 2, 20933, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 769907712),
    ("A100-80", "760m", 4096, 8, 12, 2, 27351, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 763616256),
    ("A100-80", "760m", 2048, 8, 24, 2, 32434, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 760470528),
    ("A100-80", "760m", 1024, 8, 48, 2, 29765, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 758897664),
    ("A100-80", "760m", 512, 8, 96, 2, 29446, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 758111232),
    ("A100-80", "350m", 65536, 8, 1, 2, 7524, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 420997120),
    ("A100-80", "350m", 32768, 8, 2, 2, 13652, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 387442688),
    ("A100-80", "350m", 16384, 8, 4, 2, 23559, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 370665472),
    ("A100-80", "350m", 8192, 8, 8, 2, 36569, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 362276864),
    ("A100-80", "350m", 4096, 8, 16, 2, 49555, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 358082560),
    ("A100-80", "350m", 2048, 8, 32, 2, 58782, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 355985408),
    ("A100-80", "350m", 1024, 8, 64, 2, 64813, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 354936832),
    ("A100-80", "350m", 512, 8, 128, 2, 69330, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 354412544),
    ("A100-80", "125m", 65536, 8, 1, 2, 20368, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 174070272),
    ("A100-80", "125m", 32768, 8, 2, 2, 36407, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 148904448),
    ("A100-80", "125m", 16384, 8, 4, 2, 60040, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 136321536),
    ("A100-80", "125m", 8192, 8, 8, 2, 90392, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 130030080),
    ("A100-80", "125m", 4096, 8, 16, 2, 118396, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 126884352),
    ("A100-80", "125m", 2048, 8, 40, 2, 142830, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 125311488),
    ("A100-80", "125m", 2048, 8, 32, 2, 141737, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 125311488),
    ("A100-80", "125m", 1024, 8, 64, 2, 156468, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 124525056),
    ("A100-80", "125m", 512, 8, 128, 2, 165681, "amp_bf16", "DEFAULT", "FULL_SHARD", False, 124131840),
    ("A100-40", "70b", 2048, 128, 4, 1, 376, "bf16", "PURE", "FULL_SHARD", True, 64862437376),
    ("A100-40", "70b", 2048, 64, 2, 1, 276, "bf16", "PURE", "FULL_SHARD", True, 64862437376),
    ("A100-40", "30b", 2048, 128, 6, 1, 865, "bf16", "PURE", "FULL_SHARD", True, 29975214080),
    ("A100-40", "30b", 2048, 32, 4, 1, 857, "bf16", "PURE", "FULL_SHARD", True, 29975214080),
    ("A100-40", "13b", 8192, 8, 1, 16, 1407, "bf16", "PURE", "FULL_SHARD", True, 12885411840),
    ("A100-40", "13b", 4096, 8, 2, 16, 1603, "bf16", "PURE", "FULL_SHARD", True, 12864440320),
    ("A100-40", "13b", 2048, 128, 16, 1, 1972, "bf16", "PURE", "FULL_SHARD", True, 12853954560),
    ("A100-40", "13b", 2048, 64, 16, 1, 1976, "bf16", "PURE", "FULL_SHARD", True, 12853954560),
    ("A100-40", "13b", 2048, 32, 14, 1, 1998, "bf16", "PURE", "FULL_SHARD", True, 12853954560),
    ("A100-40", "13b", 2048, 16, 10, 1, 1993, "bf16", "PURE", "FULL_SHARD", True, 12853954560),
    ("A100-40", "13b", 2048, 8, 4, 16, 1668, "bf16", "PURE", "FULL_SHARD", True, 12853954560),
    ("A100-40", "13b", 1024, 8, 8, 16, 1727, "bf16", "PURE", "FULL_SHARD", True, 12848711680),
    ("A100-40", "13b", 512, 8, 16, 16, 1763, "bf16", "PURE", "FULL_SHARD", True, 12846090240),
    ("A100-40", "7b", 16384, 8, 1, 4, 2249, "bf16", "PURE", "FULL_SHARD", True, 6717579264),
    ("A100-40", "7b", 8192, 8, 3, 4, 2887, "bf16", "PURE", "FULL_SHARD", True, 6684024832),
    ("A100-40", "7b", 4096, 8, 6, 4, 3366, "bf16", "PURE", "FULL_SHARD", True, 6667247616),
    ("A100-40", "7b", 2048, 128, 18, 1, 3623, "bf16", "PURE", "FULL_SHARD", True, 6658859008),
    ("A100-40", "7b", 2048, 64, 18, 1, 3665, "bf16", "PURE", "FULL_SHARD", True, 6658859008),
    ("A100-40", "7b", 2048, 32, 18, 1, 3725, "bf16", "PURE", "FULL_SHARD", True, 6658859008),
    ("A100-40", "7b", 2048, 16, 16, 1, 3645, "bf16", "PURE", "FULL_SHARD", True, 6658859008),
    ("A100-40", "7b", 2048, 8, 12, 4, 3679, "bf16", "PURE", "FULL_SHARD", True, 6658859008),
    ("A100-40", "7b", 1024, 8, 24, 4, 3854, "bf16", "PURE", "FULL_SHARD", True, 6654664704),
    ("A100-40", "7b", 512, 8, 48, 4, 3895, "bf16", "PURE", "FULL_SHARD", True, 6652567552),
    ("A100-40", "3b", 32768, 8, 1, 4, 2955, "bf16", "PURE", "FULL_SHARD", True, 2730480640),
    ("A100-40", "3b", 16384, 8, 2, 8, 4465, "bf16", "PURE", "FULL_SHARD", True, 2688537600),
    ("A100-40", "3b", 8192, 8, 1, 8, 7149, "bf16", "PURE", "FULL_SHARD", False, 2667566080),
    ("A100-40", "3b", 4096, 8, 2, 8, 8777, "bf16", "PURE", "FULL_SHARD", False, 2657080320),
    ("A100-40", "3b", 2048, 128, 6, 1, 9538, "bf16", "PURE", "FULL_SHARD", False, 2651837440),
    ("A100-40", "3b", 2048, 64, 6, 1, 9736, "bf16", "PURE", "FULL_SHARD", False, 2651837440),
    ("A100-40", "3b", 2048, 32, 6, 1, 9914, "bf16", "PURE", "FULL_SHARD", False, 2651837440),
    ("A100-40", "3b", 2048, 16, 5, 1, 9750, "bf16", "PURE", "FULL_SHARD", False, 2651837440),
    ("A100-40", "3b", 2048, 8, 5, 8, 10065, "bf16", "PURE", "FULL_SHARD", False, 2651837440),
    ("A100-40", "3b", 1024, 8, 10, 8, 10731, "bf16", "PURE", "FULL_SHARD", False, 2649216000),
    ("A100-40", "3b", 512, 8, 20, 8, 11324, "bf16", "PURE", "FULL_SHARD", False, 2647905280),
    ("A100-40", "1b", 32768, 8, 1, 4, 5095, "bf16", "PURE", "FULL_SHARD", True, 1378865152),
    ("A100-40", "1b", 16384, 8, 1, 8, 9715, "bf16", "PURE", "FULL_SHARD", False, 1345310720),
    ("A100-40", "1b", 8192, 8, 2, 8, 13474, "bf16", "PURE", "FULL_SHARD", False, 1328533504),
    ("A100-40", "1b", 4096, 8, 4, 8, 16856, "bf16", "PURE", "FULL_SHARD", False, 1320144896),
    ("A100-40", "1b", 2048, 128, 10, 1, 18647, "bf16", "PURE", "FULL_SHARD", False, 1315950592),
    ("A100-40", "1b", 2048, 64, 10, 1, 19001, "bf16", "PURE", "FULL_SHARD", False, 1315950592),
    ("A100-40", "1b", 2048, 32, 10, 1, 15555, "bf16", "PURE", "FULL_SHARD", False, 1315950592),
    ("A100-40", "1b", 2048, 16, 8, 1, 19085, "bf16", "PURE", "FULL_SHARD", False, 1315950592),
    ("A100-40", "1b", 2048, 8, 8, 8, 19271, "bf16", "PURE", "FULL_SHARD", False, 1315950592),
    ("A100-40", "1b", 1024, 8, 16, 8, 20959, "bf16", "PURE", "FULL_SHARD", False, 1313853440),
    ("A100-40", "1b", 512, 8, 32, 8, 21782, "bf16", "PURE", "FULL_SHARD", False, 1312804864),
    ("A100-40", "760m", 32768, 8, 1, 4, 7183, "bf16", "PURE", "FULL_SHARD", True, 807656448),
    ("A100-40", "760m", 16384, 8, 1, 4, 13914, "bf16", "PURE", "FULL_SHARD", False, 782490624),
    ("A100-40", "760m", 8192, 8, 3, 4, 20106, "bf16", "PURE", "FULL_SHARD", False, 769907712),
    ("A100-40", "760m", 4096, 8, 6, 4, 25863, "bf16", "PURE", "FULL_SHARD", False, 763616256),
    ("A100-40", "760m", 2048, 128, 12, 1, 28940, "bf16", "PURE", "FULL_SHARD", False, 760470528),
    ("A100-40", "760m", 2048, 64, 12, 1, 29344, "bf16", "PURE", "FULL_SHARD", False, 760470528),
    ("A100-40", "760m", 2048, 32, 12, 1, 29648, "bf16", "PURE", "FULL_SHARD", False, 760470528),
    ("A100-40", "760m", 2048, 16, 12, 1, 29607, "bf16", "PURE", "FULL_SHARD", False, 760470528),
    ("A100-40", "760m", 2048, 8, 12, 4, 30173, "bf16", "PURE", "FULL_SHARD", False, 760470528),
    ("A100-40", "760m", 1024, 8, 24, 4, 33422, "bf16", "PURE", "FULL_SHARD", False, 758897664),
    ("A100-40", "760m", 512, 8, 48, 4, 34938, "bf16", "PURE", "FULL_SHARD", False, 758111232),
    ("A100-40", "350m", 32768, 8, 1, 4, 13416, "bf16", "PURE", "FULL_SHARD", False, 387442688),
    ("A100-40", "350m", 16384, 8, 2, 4, 22896, "bf16", "PURE", "FULL_SHARD", False, 370665472),
    ("A100-40", "350m", 8192, 8, 4, 4, 34933, "bf16", "PURE", "FULL_SHARD", False, 362276864),
    ("A100-40", "350m", 4096, 8, 8, 4, 46833, "bf16", "PURE", "FULL_SHARD", False, 358082560),
    ("A100-40", "350m", 2048, 128, 18, 1, 51934, "bf16", "PURE", "FULL_SHARD", False, 355985408),
    ("A100-40", "350m", 2048, 64, 18, 1, 52689, "bf16", "PURE", "FULL_SHARD", False, 355985408),
    ("A100-40", "350m", 2048, 32, 18, 1, 53811, "bf16", "PURE", "FULL_SHARD", False, 355985408),
    ("A100-40", "350m", 2048, 16, 18, 1, 55413, "bf16", "PURE", "FULL_SHARD", False, 355985408),
    ("A100-40", "350m", 2048, 8, 16, 4, 55995, "bf16", "PURE", "FULL_SHARD", False, 355985408),
    ("A100-40", "350m", 1024, 8, 32, 4, 62523, "bf16", "PURE", "FULL_SHARD", False, 354936832),
    ("A100-40", "350m", 512, 8, 64, 4, 66284, "bf16", "PURE", "FULL_SHARD", False, 354412544),
    ("A100-40", "125m", 32768, 8, 1, 4, 32651, "bf16", "PURE", "FULL_SHARD", False, 148904448),
    ("A100-40", "125m", 16384, 8, 2, 3, 55484, "bf16", "PURE", "FULL_SHARD", False, 136321536),
    ("A100-40", "125m", 8192, 8, 5, 3, 86858, "bf16", "PURE", "FULL_SHARD", False, 130030080),
    ("A100-40", "125m", 4096, 8, 13, 3, 115162, "bf16", "PURE", "FULL_SHARD", False, 126884352),
    ("A100-40", "125m", 2048, 128, 26, 1, 123936, "bf16", "PURE", "FULL_SHARD", False, 125311488),
    ("A100-40", "125m", 2048, 64, 26, 1, 125234, "bf16", "PURE", "FULL_SHARD", False, 125311488),
    ("A100-40", "125m", 2048, 32, 26, 1, 127122, "bf16", "PURE", "FULL_SHARD", False, 125311488),
    ("A100-40", "125m", 2048, 16, 26, 1, 130535, "bf16", "PURE", "FULL_SHARD", False, 125311488),
    ("A100-40", "125m", 2048, 8, 26, 3, 136334, "bf16", "PURE", "FULL_SHARD", False, 125311488),
    ("A100-40", "125m", 1024, 8, 52, 3, 148289, "bf16", "PURE", "FULL_SHARD", False, 124525056),
    ("A100-40", "125m", 512, 8, 104, 3, 156735, "bf16", "PURE", "FULL_SHARD", False, 124131840),
)


#: The H100 rows' attention kernel (the module docstring says why); ``--attention-kernel`` replaces it.
H100_KERNEL = "flash-attention-2"


def model(size: str, seq: int) -> ModelSpec:
    """MPT of ``size`` with learned positions for ``seq`` tokens (the module docstring's reading)."""
    d_model, heads, layers = DIMENSIONS[size]
    return ModelSpec(f"mpt-{size}", layers, d_model, heads, 4 * d_model, VOCAB, seq, mlp="gelu", norm="layernorm",
                     position="learned", biases=False, tied_embeddings=True, dropout=0.0)  # fmt: skip


def held_out_run(row: tuple[object, ...], h100_kernel: str = H100_KERNEL) -> PublishedRun:
    """One row as a :class:`coursekit.presets.PublishedRun`; the H100 rows' attention at ``h100_kernel``."""
    table, size, seq, gpus, micro, accumulation, tokens, precision, _, sharding, checkpointing, _ = row
    assert isinstance(seq, int) and isinstance(gpus, int) and isinstance(tokens, int)
    assert isinstance(micro, int) and isinstance(accumulation, int)
    cluster = CLUSTERS["h100-8" if str(table).startswith("H100") else "a100-8"]
    if table == "A100-40":
        cluster = replace(cluster, name="a100-40gb-8", memory_per_device_gib=40.0)
    options: list[tuple[str, object]] = [
        ("recipe", "zero-fp16-adam"),
        ("zero_stages", (3 if sharding == "FULL_SHARD" else 2,)),
        ("recompute_modes", ("full",) if checkpointing else ("none",)),
        ("max_micro_batch", micro),
        ("precision", "fp8" if precision == "amp_fp8" else "bf16"),
    ]
    if str(table).startswith("H100"):
        options.append(("attention_kernel", h100_kernel))
    return PublishedRun(
        f"MPT-{size}, {seq} tokens, {gpus} GPUs ({table})",
        model(str(size), seq),
        cluster,
        gpus // cluster.gpus_per_node,
        gpus * micro * accumulation,
        seq,
        (("tp", 1), ("cp", 1), ("pp", 1), ("dp", gpus)),
        "tokens",
        0.0,
        SOURCE.format(table=table, size=size),
        measured_tokens_per_gpu_s=float(tokens),
        workload_options=tuple(options),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", choices=sorted({row[0] for row in ROWS}), help="one table only")
    parser.add_argument(
        "--attention-kernel",
        choices=ATTENTION_KERNELS,
        default=H100_KERNEL,
        help=f"the H100 rows' attention kernel (default {H100_KERNEL}; the A100 rows keep the workbench's default)",
    )
    args = parser.parse_args()
    start = time.perf_counter()
    passes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    worst_params = 0.0
    for row in ROWS:
        if args.table and row[0] != args.table:
            continue
        run = held_out_run(row, args.attention_kernel)
        spec = run.model_spec()
        worst_params = max(worst_params, abs(spec.num_params / row[11] - 1))
        c = compare_published(run)
        print(f"{row[0]:8} {row[1]:5} {row[2]:6} tokens {row[3]:4} GPUs mb {row[4]:3} {standing(c)}")
        long = "sequence >= 16K" if row[2] >= 16384 else "sequence < 16K"
        count(passes, totals, ("all", f"table {row[0]}", long), c.passes)
    print_tally(passes, totals)
    print(f"parameter counts: within {100 * worst_params:.2f} % of the table's NumParams")
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
