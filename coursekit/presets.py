"""Presets for the decision workbench: published models, clusters of real nodes, and Megatron-LM's Table 1.

Every number here is a named constant with its source. Bandwidths are
*unidirectional per GPU* in bytes/s: NVLink figures are half the vendor's
bidirectional "total NVLink bandwidth"; inter-node figures are the node's
InfiniBand injection bandwidth divided by its GPUs (one NIC per GPU).

>>> MODELS["llama3-8b"].num_params
8030261248
>>> CLUSTERS["h100-8"].peak_flops
989000000000000.0

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ._validate import learner_arguments, learner_functions
from .hardware import (
    A10_BF16_DENSE_FLOPS,
    A10_COMPUTE_CAPABILITY,
    A10_MEMORY_BYTES_PER_S,
    A100_80GB_HBM_BYTES_PER_S,
    A100_BF16_DENSE_FLOPS,
    A100_COMPUTE_CAPABILITY,
    B200_BF16_DENSE_FLOPS,
    B200_COMPUTE_CAPABILITY,
    B200_FP8_DENSE_FLOPS,
    B200_HBM_BYTES_PER_S,
    B200_MEMORY_GB,
    B200_SOURCE,
    B300_BF16_DENSE_FLOPS,
    B300_COMPUTE_CAPABILITY,
    B300_FP8_DENSE_FLOPS,
    B300_HBM_BYTES_PER_S,
    B300_MEMORY_GB,
    B300_SOURCE,
    CPU_BF16_FLOPS,
    CPU_DRAM_BYTES_PER_S,
    CPU_MEMORY_GIB,
    DGX_HOST_LINK_BYTES_PER_S,
    DGX_HOST_MEMORY_GIB,
    ETHERNET_100G_PER_CARD_BYTES_PER_S,
    ETHERNET_LATENCY_S,
    GB200_BF16_DENSE_FLOPS,
    GB200_FP8_DENSE_FLOPS,
    GB200_HBM_BYTES_PER_S,
    GB200_HOST_LINK_BYTES_PER_S,
    GB200_HOST_MEMORY_GIB,
    GB200_MEMORY_GB,
    GB200_NVL72_DOMAIN_GPUS,
    GB200_SOURCE,
    GB200_TRAY_GPUS,
    GB300_BF16_DENSE_FLOPS,
    GB300_FP8_DENSE_FLOPS,
    GB300_HBM_BYTES_PER_S,
    GB300_MEMORY_GB,
    GB300_SOURCE,
    H100_BF16_DENSE_FLOPS,
    H100_COMPUTE_CAPABILITY,
    H100_FP8_DENSE_FLOPS,
    H100_HBM_BYTES_PER_S,
    H200_BF16_DENSE_FLOPS,
    H200_FP8_DENSE_FLOPS,
    H200_HBM_BYTES_PER_S,
    H200_MEMORY_GB,
    H200_SOURCE,
    HDR_PER_GPU_BYTES_PER_S,
    IB_NDR_BYTES_PER_S,
    NCCL_RING_NET_LATENCY_S,
    NCCL_RING_NVLINK_LATENCY_S,
    NET_800G_PER_GPU_BYTES_PER_S,
    NVLINK3_UNIDIRECTIONAL_BYTES_PER_S,
    NVLINK4_H100_BYTES_PER_S,
    NVLINK5_B200_BYTES_PER_S,
    NVLINK_H800_BYTES_PER_S,
    OMNIPATH_4X100G_PER_GPU_BYTES_PER_S,
    PCIE4_X16_BYTES_PER_S,
    PCIE_LATENCY_S,
)
from .i18n import Text, register, tr
from .specs import (
    MAX_GLOBAL_BATCH,
    MAX_NODES,
    MAX_SEQ_LEN,
    ClusterSpec,
    ModelSpec,
    WorkloadSpec,
    expert_tp_default,
    type_error,
)

__all__ = [
    "CLUSTERS",
    "CPU_CLUSTERS",
    "FLOP_CONVENTIONS",
    "MEGATRON_TABLE1",
    "MODELS",
    "PUBLISHED_DEGREE_KEYS",
    "PUBLISHED_RUNS",
    "MegatronRun",
    "PublishedRun",
    "device_word",
]

# --------------------------------------------------------------------------- clusters

#: Cluster presets by name, one node each; use ``CLUSTERS[name].with_nodes(n)`` for n nodes.
CLUSTERS: dict[str, ClusterSpec] = {
    cluster.name: cluster
    for cluster in (
        ClusterSpec(
            name="a100-8",
            nodes=1,
            gpus_per_node=8,
            memory_per_device_gib=80.0,
            peak_flops=A100_BF16_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK3_UNIDIRECTIONAL_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=HDR_PER_GPU_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=A100_80GB_HBM_BYTES_PER_S,
            source="NVIDIA A100 datasheet (80GB SXM), DGX A100 datasheet (8x HDR 200 Gb/s)",
            compute_capability=A100_COMPUTE_CAPABILITY,
        ),
        ClusterSpec(
            name="h100-8",
            nodes=1,
            gpus_per_node=8,
            memory_per_device_gib=80.0,
            peak_flops=H100_BF16_DENSE_FLOPS,
            peak_flops_fp8=H100_FP8_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK4_H100_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=IB_NDR_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=H100_HBM_BYTES_PER_S,
            source="NVIDIA H100 datasheet (SXM), DGX H100 datasheet (8x NDR 400 Gb/s)",
            compute_capability=H100_COMPUTE_CAPABILITY,
            host_memory_per_device_gib=DGX_HOST_MEMORY_GIB,
            host_link_bandwidth_bytes_per_s=DGX_HOST_LINK_BYTES_PER_S,
        ),
        ClusterSpec(
            name="h800-8",
            nodes=1,
            gpus_per_node=8,
            memory_per_device_gib=80.0,
            peak_flops=H100_BF16_DENSE_FLOPS,
            peak_flops_fp8=H100_FP8_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK_H800_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=IB_NDR_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=H100_HBM_BYTES_PER_S,
            source="H800 SXM: H100 compute and HBM, NVLink 400 GB/s bidirectional; 50 GB/s IB per GPU "
            "(DeepSeek-V3 technical report, arXiv:2412.19437, §3.1-3.2)",
            compute_capability=H100_COMPUTE_CAPABILITY,
        ),
        ClusterSpec(
            name="h200-8",
            nodes=1,
            gpus_per_node=8,
            memory_per_device_gib=H200_MEMORY_GB,
            peak_flops=H200_BF16_DENSE_FLOPS,
            peak_flops_fp8=H200_FP8_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK4_H100_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=IB_NDR_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=H200_HBM_BYTES_PER_S,
            source=H200_SOURCE,
            compute_capability=H100_COMPUTE_CAPABILITY,
            host_memory_per_device_gib=DGX_HOST_MEMORY_GIB,
            host_link_bandwidth_bytes_per_s=DGX_HOST_LINK_BYTES_PER_S,
        ),
        ClusterSpec(
            name="b200-8",
            nodes=1,
            gpus_per_node=8,
            memory_per_device_gib=B200_MEMORY_GB,
            peak_flops=B200_BF16_DENSE_FLOPS,
            peak_flops_fp8=B200_FP8_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK5_B200_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=IB_NDR_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=B200_HBM_BYTES_PER_S,
            source=B200_SOURCE,
            compute_capability=B200_COMPUTE_CAPABILITY,
            host_memory_per_device_gib=DGX_HOST_MEMORY_GIB,
            host_link_bandwidth_bytes_per_s=DGX_HOST_LINK_BYTES_PER_S,
        ),
        ClusterSpec(
            name="gb200-nvl72",
            nodes=1,
            gpus_per_node=GB200_TRAY_GPUS,
            memory_per_device_gib=GB200_MEMORY_GB,
            peak_flops=GB200_BF16_DENSE_FLOPS,
            peak_flops_fp8=GB200_FP8_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK5_B200_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=IB_NDR_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=GB200_HBM_BYTES_PER_S,
            source=GB200_SOURCE,
            nvlink_domain_gpus=GB200_NVL72_DOMAIN_GPUS,
            compute_capability=B200_COMPUTE_CAPABILITY,
            host_memory_per_device_gib=GB200_HOST_MEMORY_GIB,
            host_link_bandwidth_bytes_per_s=GB200_HOST_LINK_BYTES_PER_S,
        ),
        ClusterSpec(
            name="b300-8",
            nodes=1,
            gpus_per_node=8,
            memory_per_device_gib=B300_MEMORY_GB,
            peak_flops=B300_BF16_DENSE_FLOPS,
            peak_flops_fp8=B300_FP8_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK5_B200_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=NET_800G_PER_GPU_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=B300_HBM_BYTES_PER_S,
            source=B300_SOURCE,
            compute_capability=B300_COMPUTE_CAPABILITY,
        ),
        ClusterSpec(
            name="gb300-nvl72",
            nodes=1,
            gpus_per_node=GB200_TRAY_GPUS,
            memory_per_device_gib=GB300_MEMORY_GB,
            peak_flops=GB300_BF16_DENSE_FLOPS,
            peak_flops_fp8=GB300_FP8_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK5_B200_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=NET_800G_PER_GPU_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=GB300_HBM_BYTES_PER_S,
            source=GB300_SOURCE,
            nvlink_domain_gpus=GB200_NVL72_DOMAIN_GPUS,
            compute_capability=B300_COMPUTE_CAPABILITY,
            host_memory_per_device_gib=GB200_HOST_MEMORY_GIB,
            host_link_bandwidth_bytes_per_s=GB200_HOST_LINK_BYTES_PER_S,
        ),
        ClusterSpec(
            name="jeanzay-a100-8",
            nodes=1,
            gpus_per_node=8,
            memory_per_device_gib=80.0,
            peak_flops=A100_BF16_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK3_UNIDIRECTIONAL_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=OMNIPATH_4X100G_PER_GPU_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=A100_80GB_HBM_BYTES_PER_S,
            source="Jean Zay A100 80GB nodes, 4 x Omni-Path 100 Gb/s per node (BLOOM, arXiv:2211.05100, §3.4.1)",
            compute_capability=A100_COMPUTE_CAPABILITY,
        ),
        ClusterSpec(
            name="pcie-24g-8",
            nodes=1,
            gpus_per_node=8,
            memory_per_device_gib=24.0,
            peak_flops=A10_BF16_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=PCIE4_X16_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=ETHERNET_100G_PER_CARD_BYTES_PER_S,
            intra_node_latency_s=PCIE_LATENCY_S,
            inter_node_latency_s=ETHERNET_LATENCY_S,
            memory_bandwidth_bytes_per_s=A10_MEMORY_BYTES_PER_S,
            source="NVIDIA A10 datasheet (24 GB; the course's 24 GiB example device); PCIe 4.0 x16; 100 GbE per node",
            compute_capability=A10_COMPUTE_CAPABILITY,
        ),
        ClusterSpec(
            name="cpu-box",
            nodes=1,
            gpus_per_node=1,
            memory_per_device_gib=CPU_MEMORY_GIB,
            peak_flops=CPU_BF16_FLOPS,
            intra_node_bandwidth_bytes_per_s=CPU_DRAM_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=ETHERNET_100G_PER_CARD_BYTES_PER_S * 8,
            intra_node_latency_s=PCIE_LATENCY_S,
            inter_node_latency_s=ETHERNET_LATENCY_S,
            memory_bandwidth_bytes_per_s=CPU_DRAM_BYTES_PER_S,
            source="course assumption: one many-core server CPU (see CPU_BF16_FLOPS); 100 GbE between boxes",
        ),
    )
}

#: The presets whose "devices" are CPU servers, not GPUs (the workbench's contrast): messages count them as CPU
#: servers and give rates per CPU, not per GPU.
CPU_CLUSTERS: frozenset[str] = frozenset({"cpu-box"})


def device_word(cluster: ClusterSpec) -> str:
    """ "CPU" for a preset of CPU servers (:data:`CPU_CLUSTERS`, the workbench's contrast), else "GPU": the word the
    messages count devices and rates per device in.

    >>> device_word(CLUSTERS["cpu-box"]), device_word(CLUSTERS["h100-8"])
    ('CPU', 'GPU')

    Taught in: lesson 9 (decision workbench).
    """
    if not isinstance(cluster, ClusterSpec):
        raise type_error("cluster", cluster, "ClusterSpec")
    return "CPU" if cluster.name in CPU_CLUSTERS else "GPU"


# --------------------------------------------------------------------------- models

BROWN_2020: str = "Brown et al., Language Models are Few-Shot Learners, arXiv:2005.14165, Table 2.1"
RADFORD_2019: str = "Radford et al. 2019, GPT-2 (124M: 12 layers, d_model 768, 12 heads, context 1024, vocab 50257)"
LLAMA3_2024: str = "Llama Team, “The Llama 3 Herd of Models”, arXiv:2407.21783, Table 3 (vocabulary 128K = 128256)"
MIXTRAL_2024: str = "Jiang et al., “Mixtral of Experts”, arXiv:2401.04088, Table 1 (context 32768)"
LLAMA3_2024_TABLE4: str = "Llama Team, “The Llama 3 Herd of Models”, arXiv:2407.21783, Table 4"
MTNLG_2022: str = "Smith et al., “Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B”, arXiv:2201.11990"
BLOOM_2022: str = (
    "BigScience (Le Scao et al.), “BLOOM: A 176B-Parameter Open-Access Multilingual Language Model”, arXiv:2211.05100, "
    "§3"
)
DEEPSEEK_V3_2024: str = "DeepSeek-AI, “DeepSeek-V3 Technical Report”, arXiv:2412.19437"
LLAMA2_2023: str = (
    "Touvron et al., “Llama 2: Open Foundation and Fine-Tuned Chat Models”, arXiv:2307.09288, Table 1 (context 4096, "
    "GQA for 70B only); Hugging Face meta-llama/Llama-2-7b-hf, -13b-hf, -70b-hf config.json (layers 32 / 40 / 80, "
    "hidden 4096 / 5120 / 8192, heads 32 / 40 / 64, KV heads 32 / 40 / 8, intermediate 11008 / 13824 / 28672, "
    "vocabulary 32000)"
)
NEMOTRON4_340B_2024: str = (
    "NVIDIA, “Nemotron-4 340B Technical Report”, arXiv:2406.11704, Table 1 (96 layers, hidden 18432, 96 heads, 8 KV "
    "heads, sequence 4096, vocabulary 256000; squared-ReLU MLP of width 73728, no biases, untied embeddings)"
)
#: The Nemotron family's tokenizer, which NVIDIA's DGX Cloud recipes ship with their Nemotron-4 configs.
NEMOTRON_TOKENIZER: str = (
    "NVIDIA dgxc-benchmarking @ 35a9aecc8d5b17d99d80f52f38c75ade0dbab7ae nemotron/nemotron_2_256k.model (the "
    "256000-token SentencePiece model the Nemotron-4 configs name)"
)
NEMOTRON4_15B_2024: str = (
    "NVIDIA, “Nemotron-4 15B Technical Report”, arXiv:2402.16819, §2 (32 layers, hidden 6144, 48 heads, 8 KV heads, "
    "sequence 4096, vocabulary 256000, squared-ReLU MLP, no biases, untied embeddings); dgxc-benchmarking "
    "nemotron/nemotron4-15b-synth.yaml @ 35a9aecc8d5b17d99d80f52f38c75ade0dbab7ae (ffn_hidden_size 24576, "
    "num_query_groups 8, layernorm1p)"
)
#: NeMo's Nemotron-3 configs of its 24.07 table. The configs leave the tokenizer to the user; the table's own count
#: fixes the vocabulary: its 653 TFLOP/s ÷ 12701 tokens/s = 51.4 GFLOP per token for the 8B is 6 × 8.54B
#: parameters, which holds only with 256000 tokens (a 32000 vocabulary makes 6.70B, 40.2 GFLOP).
NEMOTRON3_CONFIGS: str = (
    "NVIDIA NeMo-Framework-Launcher 24.07 (8325688d8345a5513660f0f8390f0482a721c009), "
    "launcher_scripts/conf/training/nemotron/nemotron_8b.yaml and nemotron_22b.yaml (8B: 32 layers, hidden 4096, "
    "ffn 16384, 32 heads; 22B: 40 layers, hidden 6144, ffn 24576, 48 heads; squared-ReLU, layernorm1p, rope, no "
    "biases, untied, no dropout, sequence 4096); vocabulary 256000: " + NEMOTRON_TOKENIZER
)
#: The DGX Cloud recipe's Grok-1 proxy: Grok-1's shape with Llama 3's tokenizer, capacity factor 1 with padding.
GROK1_PROXY_CONFIG: str = (
    "NVIDIA dgxc-benchmarking grok1/grok1_314b.yaml @ 35a9aecc8d5b17d99d80f52f38c75ade0dbab7ae (“grok-1-proxy”: 64 "
    "layers, hidden 6144, 48 heads, 8 query groups, ffn 32768 fast-geglu, 8 experts, top 2, "
    "moe_expert_capacity_factor 1.0 with moe_pad_expert_input_to_capacity, RMSNorm, no biases, untied, tokenizer "
    "meta-llama/Meta-Llama-3-70B: vocabulary 128256)"
)
QWEN3_2025: str = (
    "Qwen Team, “Qwen3 Technical Report”, arXiv:2505.09388, Table 2; Hugging Face Qwen/Qwen3-30B-A3B and "
    "Qwen/Qwen3-235B-A22B config.json (head_dim 128, 4 KV heads, 128 experts, 8 per token, no shared expert, "
    "vocabulary 151936, untied embeddings)"
)
#: Where the DeepSeek-V3 preset's architecture comes from.
DEEPSEEK_V3_ARCHITECTURE: str = (
    DEEPSEEK_V3_2024 + ", §2.1 and §4.2 (61 layers, h 7168, 128 heads, MLA with d_c 512, d_c' 1536, per-head "
    "128 + 64 rope, 1 shared + 256 routed experts of width 2048, 8 per token, the first 3 layers dense of width "
    "18432, vocabulary 129280, pre-training at 4K tokens); 671B parameters in total, 37B activated per token; §2.2: "
    "one multi-token prediction module (D = 1) trained beside it"
)
#: Mixtral 8x22B: Mistral AI's announcement gives its size, its Hugging Face config the shape.
MIXTRAL_8X22B_2024: str = (
    "Mistral AI, “Cheaper, Better, Faster, Stronger” (mistral.ai/news/mixtral-8x22b, 2024-04-17: 141B parameters, "
    "39B active); Hugging Face mistralai/Mixtral-8x22B-v0.1 config.json (56 layers, hidden 6144, 48 heads, 8 KV "
    "heads, 8 experts of width 16384, 2 per token, vocabulary 32768, context 65536, untied embeddings)"
)
#: DeepSeek-V2 and its Lite model: multi-head latent attention and fine-grained experts with shared ones.
DEEPSEEK_V2_2024: str = (
    "DeepSeek-AI, “DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model”, "
    "arXiv:2405.04434, §3.1.2 (60 layers, h 5120, 128 heads of 128, MLA with d_c 512, d_c' 1536, rope 64; 2 shared + "
    "160 routed experts of width 1536, 6 per token, every layer MoE but the first; 236B total, 21B activated; "
    "pre-training at 4K tokens) and Appendix B (DeepSeek-V2-Lite: 27 layers, h 2048, 16 heads, no query compression, "
    "2 shared + 64 routed experts of width 1408, 6 per token; 15.7B total, 2.4B activated); Hugging Face "
    "deepseek-ai/DeepSeek-V2 and DeepSeek-V2-Lite config.json (vocabulary 102400, first-layer MLP width 12288 and "
    "10944, untied embeddings)"
)
#: Qwen2-57B-A14B: 64 experts and a shared expert eight experts wide.
QWEN2_MOE_2024: str = (
    "Qwen Team, “Qwen2 Technical Report”, arXiv:2407.10671, Table 1 (28 layers, hidden 3584, 28 query heads, 4 KV "
    "heads, 64 experts of width 2560, 8 per token, a shared expert of width 20480; 57B total, 14B activated); "
    "Hugging Face Qwen/Qwen2-57B-A14B config.json (vocabulary 151936, untied; biases on the q, k and v projections, "
    "as transformers' Qwen2-MoE attention has them; the shared expert's one-output gate, 28 x 3584 = 100,352 "
    "parameters, is left out); pre-training at 4K tokens (§3.1)"
)
#: NeMo's GPT-3 configs of the 5B and 20B rows of its 24.07 performance table (GPT-2 BPE vocabulary, its 50257
#: tokens before Megatron pads them; tied embeddings and learned positions are the megatron_gpt defaults).
NEMO_GPT3_CONFIGS: str = (
    "NVIDIA NeMo-Framework-Launcher, launcher_scripts/conf/training/gpt3/5b.yaml and 20b.yaml @ "
    "26e42fa91d9e608897ce485b4911c263a4b57008 (5B: 24 layers, hidden 4096, 32 heads; 20B: 44 layers, hidden 6144, "
    "48 heads; ffn 4 x hidden, sequence 2048, GPT2BPETokenizer, hidden and attention dropout 0.1)"
)
#: Megatron-Core's 2024 H100 scaling study (Megatron-LM README, "Training Speed and Scalability", and its model
#: table image: GPT models with vocabulary 131072 and sequence 4096; attention heads, hidden size and layers per row).
MEGATRON_CORE_2024: str = (
    "NVIDIA Megatron-LM README, “Training Speed and Scalability”, images/model_table.png @ "
    "f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4 (Megatron-Core r0.8.0, H100)"
)
#: Dropout of the GPT-style presets: Megatron-LM's defaults ``--hidden-dropout 0.1 --attention-dropout 0.1``
#: (the Megatron runs of Table 1 and MT-NLG were trained with them) and GPT-2's config (resid_pdrop, attn_pdrop 0.1).
GPT_DROPOUT: float = 0.1
MEGATRON_2021: str = (
    "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, "
    "arXiv:2104.04473, Table 1 (V = 51200, s = 2048)"
)


def _gpt(
    name: str, layers: int, hidden: int, heads: int, vocab: int, seq_len: int, source: str, tied: bool = True
) -> ModelSpec:
    """A GPT-2/3-style model: GELU MLP of width 4h, LayerNorm, learned positions, biases, tied embeddings unless
    ``tied`` is False."""
    return ModelSpec(
        name=name,
        layers=layers,
        hidden=hidden,
        heads=heads,
        ffn_hidden=4 * hidden,
        vocab=vocab,
        seq_len=seq_len,
        mlp="gelu",
        norm="layernorm",
        position="learned",
        biases=True,
        tied_embeddings=tied,
        source=source,
        dropout=GPT_DROPOUT,
    )


#: The model table's shapes: (size label, attention heads, hidden size, layers).
MCORE_GPT_SHAPES: tuple[tuple[str, int, int, int], ...] = (
    ("1.7b", 16, 2048, 24),
    ("7.1b", 32, 4096, 30),
    ("16b", 48, 6144, 32),
    ("32b", 56, 7168, 48),
    ("70b", 64, 8192, 84),
    ("119b", 80, 10240, 92),
    ("177b", 96, 12288, 96),
    ("314b", 128, 16384, 96),
    ("462b", 144, 18432, 112),
)


def _mcore_gpt(name: str, layers: int, hidden: int, heads: int) -> ModelSpec:
    """A GPT model of Megatron-Core's 2024 scaling table: Megatron-LM's defaults (core_r0.8.0 arguments.py: LayerNorm,
    biases, learned positions, GELU MLP of width 4h, dropout 0.1) with untied embeddings (the table's model sizes
    count the output layer apart: 1.7B = 24 · 12 · 2048² + 2 · 131072 · 2048 + ...)."""
    return _gpt(name, layers, hidden, heads, 131072, 4096, MEGATRON_CORE_2024, tied=False)


def _llama3(name: str, layers: int, hidden: int, ffn: int, heads: int) -> ModelSpec:
    """A Llama 3 model: 8 KV heads, vocabulary 128256, context 8192 (Table 3)."""
    return _llama2(name, layers, hidden, ffn, heads, 8, vocab=128256, seq_len=8192, source=LLAMA3_2024)


def _llama2(
    name: str,
    layers: int,
    hidden: int,
    ffn: int,
    heads: int,
    kv_heads: int,
    vocab: int = 32000,
    seq_len: int = 4096,
    source: str = LLAMA2_2023,
) -> ModelSpec:
    """A Llama-family model (SwiGLU, RMSNorm, rotary, no biases, untied): Llama 2's vocabulary and context unless
    given."""
    return ModelSpec(
        name=name,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        ffn_hidden=ffn,
        vocab=vocab,
        seq_len=seq_len,
        source=source,
    )


def _qwen3_moe(name: str, layers: int, hidden: int, heads: int, expert_width: int) -> ModelSpec:
    """A Qwen3 MoE model: GQA with 4 KV heads of 128, every layer 128 SwiGLU experts with 8 routed per token."""
    return ModelSpec(
        name=name,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=4,
        head_dim=128,
        ffn_hidden=expert_width,
        vocab=151936,
        seq_len=4096,
        num_experts=128,
        top_k=8,
        moe_ffn_hidden=expert_width,
        source=QWEN3_2025,
    )


@dataclass(frozen=True)
class MegatronRun:
    """One row of Megatron-LM's Table 1 (Narayanan et al. 2021, arXiv:2104.04473).

    ``params_billion`` as printed; ``tp``, ``pp`` the model-parallel sizes; ``gpus`` A100s in
    8-GPU DGX A100 nodes (so ``dp = gpus / (tp·pp)``); ``global_batch`` sequences of 2048 tokens;
    ``tflops_per_gpu`` the measured throughput (the paper's FLOP count, activation
    recomputation included; see :func:`coursekit.planner.megatron_paper_flops_per_step`).
    """

    params_billion: float
    heads: int
    hidden: int
    layers: int
    tp: int
    pp: int
    gpus: int
    global_batch: int
    tflops_per_gpu: float

    @property
    def name(self) -> str:
        """The preset name of the model, e.g. ``"megatron-145.6b"``."""
        return "megatron-1t" if self.params_billion >= 1000 else f"megatron-{self.params_billion:g}b"

    @property
    def dp(self) -> int:
        """Data-parallel size: gpus / (tp · pp)."""
        return self.gpus // (self.tp * self.pp)

    @property
    def nodes(self) -> int:
        """8-GPU nodes."""
        return self.gpus // 8

    def workload(self, **overrides: Any) -> WorkloadSpec:
        """The paper's set-up as the course reads it (arXiv:2104.04473, §5.1 and §3.5): fp16 mixed precision
        with fp32 master weights and Adam states (16 bytes per parameter, no distributed optimizer, so ZeRO
        stage 0), activation recomputation of every layer ("full"), no sequence parallelism (introduced a
        year later, arXiv:2205.05198) nor flash attention (2022), sequences of 2048 tokens; the batch of the row.
        ``overrides`` are further :class:`~coursekit.planner.WorkloadSpec` fields."""
        options: dict[str, Any] = {
            "global_batch": self.global_batch,
            "seq_len": 2048,
            "recipe": "zero-fp16-adam",
            "sequence_parallel": False,
            "zero_stages": (0,),
            "recompute_modes": ("full",),
            "flash_attention": False,  # 2021: no flash attention (arXiv:2205.14135 is of May 2022)
            "pipeline_edge_layers": 0,  # transformer layers only in every stage (Megatron-LM of 2021)
            **overrides,
        }
        return WorkloadSpec(**options)

    def cluster(self) -> ClusterSpec:
        """The row's GPUs as 8-GPU DGX A100 (80 GB) nodes."""
        return CLUSTERS["a100-8"].with_nodes(self.nodes)


#: Table 1 of Megatron-LM (arXiv:2104.04473): weak scaling from 1.7B to 1T parameters on A100 GPUs.
#: Columns: parameters (billion), attention heads, hidden size, layers, tensor-parallel size,
#: pipeline-parallel size, GPUs, batch size, achieved teraFLOP/s per GPU.
MEGATRON_TABLE1: tuple[MegatronRun, ...] = (
    MegatronRun(1.7, 24, 2304, 24, 1, 1, 32, 512, 137),
    MegatronRun(3.6, 32, 3072, 30, 2, 1, 64, 512, 138),
    MegatronRun(7.5, 32, 4096, 36, 4, 1, 128, 512, 142),
    MegatronRun(18.4, 48, 6144, 40, 8, 1, 256, 1024, 135),
    MegatronRun(39.1, 64, 8192, 48, 8, 2, 512, 1536, 138),
    MegatronRun(76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140),
    MegatronRun(145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148),
    MegatronRun(310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155),
    MegatronRun(529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163),
    MegatronRun(1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163),
)

#: Model presets by name.
MODELS: dict[str, ModelSpec] = {
    model.name: model
    for model in (
        _gpt("gpt2-small", 12, 768, 12, 50257, 1024, RADFORD_2019),
        _gpt("gpt3-175b", 96, 12288, 96, 50257, 2048, BROWN_2020),
        _gpt("gpt3-5b", 24, 4096, 32, 50257, 2048, NEMO_GPT3_CONFIGS),
        _gpt("gpt3-20b", 44, 6144, 48, 50257, 2048, NEMO_GPT3_CONFIGS),
        *(_mcore_gpt(f"mcore-gpt-{size}", layers, hidden, heads) for size, heads, hidden, layers in MCORE_GPT_SHAPES),
        _llama3("llama3-8b", 32, 4096, 14336, 32),
        _llama3("llama3-70b", 80, 8192, 28672, 64),
        _llama3("llama3-405b", 126, 16384, 53248, 128),
        _llama2("llama2-7b", 32, 4096, 11008, 32, 32),
        _llama2("llama2-13b", 40, 5120, 13824, 40, 40),
        _llama2("llama2-70b", 80, 8192, 28672, 64, 8),
        ModelSpec(
            name="nemotron4-340b",
            layers=96,
            hidden=18432,
            heads=96,
            kv_heads=8,
            ffn_hidden=73728,
            vocab=256000,
            seq_len=4096,
            mlp="gelu",  # squared ReLU: a 2-matrix, non-gated MLP like GELU's (same weights, FLOPs and saved tensors)
            norm="layernorm",
            source=NEMOTRON4_340B_2024,
        ),
        ModelSpec(
            name="nemotron4-15b",
            layers=32,
            hidden=6144,
            heads=48,
            kv_heads=8,
            ffn_hidden=24576,
            vocab=256000,
            seq_len=4096,
            mlp="gelu",  # squared ReLU, 2 matrices
            norm="layernorm",
            source=NEMOTRON4_15B_2024,
        ),
        *(
            ModelSpec(
                name=name,
                layers=layers,
                hidden=hidden,
                heads=heads,
                ffn_hidden=4 * hidden,
                vocab=256000,
                seq_len=4096,
                mlp="gelu",  # squared ReLU, 2 matrices
                norm="layernorm",
                source=NEMOTRON3_CONFIGS,
            )
            for name, layers, hidden, heads in (("nemotron3-8b", 32, 4096, 32), ("nemotron3-22b", 40, 6144, 48))
        ),
        ModelSpec(
            name="grok1-314b",
            layers=64,
            hidden=6144,
            heads=48,
            kv_heads=8,
            ffn_hidden=32768,
            vocab=128256,
            seq_len=8192,
            num_experts=8,
            top_k=2,
            capacity_factor=1.0,
            source=GROK1_PROXY_CONFIG,
        ),
        _qwen3_moe("qwen3-30b-a3b", 48, 2048, 32, 768),
        _qwen3_moe("qwen3-235b-a22b", 94, 4096, 64, 1536),
        ModelSpec(
            name="qwen2-57b-a14b",
            layers=28,
            hidden=3584,
            heads=28,
            kv_heads=4,
            ffn_hidden=18944,
            vocab=151936,
            seq_len=4096,
            num_experts=64,
            top_k=8,
            moe_ffn_hidden=2560,
            shared_experts=8,  # shared_expert_intermediate_size 20480 = 8 x 2560
            qkv_biases=True,
            source=QWEN2_MOE_2024,
        ),
        ModelSpec(
            name="mixtral-8x22b",
            layers=56,
            hidden=6144,
            heads=48,
            kv_heads=8,
            ffn_hidden=16384,
            vocab=32768,
            seq_len=65536,
            num_experts=8,
            top_k=2,
            source=MIXTRAL_8X22B_2024,
        ),
        ModelSpec(
            name="mixtral-8x7b",
            layers=32,
            hidden=4096,
            heads=32,
            kv_heads=8,
            ffn_hidden=14336,
            vocab=32000,
            seq_len=32768,
            num_experts=8,
            top_k=2,
            source=MIXTRAL_2024,
        ),
        *(_gpt(run.name, run.layers, run.hidden, run.heads, 51200, 2048, MEGATRON_2021) for run in MEGATRON_TABLE1),
        _gpt("mt-nlg-530b", 105, 20480, 128, 50257, 2048, MTNLG_2022),
        ModelSpec(
            name="bloom-176b",
            layers=70,
            hidden=14336,
            heads=112,
            ffn_hidden=4 * 14336,
            vocab=250880,
            seq_len=2048,
            mlp="gelu",
            norm="layernorm",
            position="rope",  # ALiBi: no position parameters, like rotary; no dropout (config.json: 0.0)
            biases=True,
            tied_embeddings=True,
            source=BLOOM_2022,
        ),
        ModelSpec(
            name="deepseek-v3",
            layers=61,
            hidden=7168,
            heads=128,
            ffn_hidden=18432,
            vocab=129280,
            seq_len=4096,
            num_experts=256,
            top_k=8,
            moe_ffn_hidden=2048,
            shared_experts=1,
            first_k_dense=3,
            q_lora_rank=1536,
            kv_lora_rank=512,
            qk_rope_head_dim=64,
            qk_nope_head_dim=128,
            v_head_dim=128,
            mtp_layers=1,
            source=DEEPSEEK_V3_ARCHITECTURE,
        ),
        *(
            ModelSpec(
                name=name,
                layers=layers,
                hidden=hidden,
                heads=heads,
                ffn_hidden=dense_width,
                vocab=102400,
                seq_len=4096,
                num_experts=experts,
                top_k=6,
                moe_ffn_hidden=expert_width,
                shared_experts=2,
                first_k_dense=1,
                q_lora_rank=q_rank,
                kv_lora_rank=512,
                qk_rope_head_dim=64,
                qk_nope_head_dim=128,
                v_head_dim=128,
                source=DEEPSEEK_V2_2024,
            )
            for name, layers, hidden, heads, dense_width, experts, expert_width, q_rank in (
                ("deepseek-v2", 60, 5120, 128, 12288, 160, 1536, 1536),
                ("deepseek-v2-lite", 27, 2048, 16, 10944, 64, 1408, None),
            )
        ),
    )
}

# --------------------------------------------------------------------------- published runs


#: The degrees a published layout states (:class:`PublishedRun` ``degrees``).
PUBLISHED_DEGREE_KEYS: tuple[str, ...] = ("tp", "cp", "pp", "dp", "ep", "etp")
#: What a vendor table prints beside the degrees but the planner searches: each name a table uses, and the workload
#: option that bounds the search instead (the published value as the upper bound).
_SEARCHED_NOT_DEGREES: dict[str, str] = {
    "v": "max_virtual_stages",
    "vp": "max_virtual_stages",
    "vpp": "max_virtual_stages",
    "mb": "max_micro_batch",
    "mbs": "max_micro_batch",
    "micro_batch": "max_micro_batch",
    "zero": "zero_stages",
}
register(
    {
        "presets.degrees_world": {
            "zh": "degrees = {degrees}：tp × cp × pp × dp = {ranks} 个 rank，而这次训练用了 {world} 张 GPU；"
            "已发表的布局要占满集群，请核对抄录的并行度。",
            "en": "degrees = {degrees}: tp × cp × pp × dp = {ranks:@rank}, but the run used {world:@GPU}; a published "
            "layout fills its cluster, so check the transcribed degrees.",
        },
        "presets.degree_is_searched": {
            "zh": "degrees 里的 {key!r}：它不是布局的并行度，而是规划器搜索的量；请把 {option!r} 写进 "
            "workload_options，以发表的值为搜索范围。degrees 只收 {keys}。",
            "en": "degrees has {key!r}: it is not a parallel degree of the layout but something the planner searches; "
            "put {option!r} in workload_options, the published value bounding the search. degrees takes only {keys}.",
        },
        "presets.run_label_batch": {"zh": "全局批 {batch}", "en": "GBS {batch}"},
        "presets.run_label_lora": {"zh": "低秩适配 r = {rank}", "en": "LoRA r = {rank}"},
    }
)
#: How a published run counts its throughput (:class:`PublishedRun` ``flop_convention``).
FLOP_CONVENTIONS: tuple[str, ...] = ("palm", "megatron", "megatron-core", "megatron-core-2025", "tokens")


@learner_arguments()
@dataclass(frozen=True)
class PublishedRun:
    """A large training run as its authors published it: model, GPUs, layout, batch and measured throughput.

    ``degrees`` is the published layout (tp, cp, pp, dp and, for MoE, ep and — when the recipe sets it — etp,
    else etp = tp, Megatron's default); the planner searches the
    rest (micro-batch, schedule, ZeRO stage, recompute) within ``workload_options``: a table's VP, MBS and ZeRO
    columns go there as ``("max_virtual_stages", vp)``, ``("max_micro_batch", mbs)`` and ``("zero_stages",
    (stage,))`` (``degrees`` refuses them and says so).
    ``model`` and ``cluster`` are preset names (:data:`MODELS`, :data:`CLUSTERS`) or specs of your own (a
    :class:`ModelSpec`, e.g. from :meth:`ModelSpec.from_config`; a one-node :class:`ClusterSpec`), so a run on a
    model the presets do not hold can be checked too (:func:`coursekit.planner.compare_published`).
    ``source`` cites the paper (English, as published) and ``note`` says in the learner's language what it
    reports for this run. ``measured_tflops_per_gpu`` is the paper's figure with the paper's own FLOP convention
    (``flop_convention``: ``"palm"`` = 6N + 12·L·h·s per token, ``"megatron"`` = Megatron-LM's
    eq. 3 with recomputation, ``"megatron-core"`` = Megatron-Core r0.8.0's logged model FLOPs,
    ``"megatron-core-2025"`` = those of its 2025 count (both
    :func:`coursekit.planner.specs.megatron_core_model_flops_per_step`), or ``"tokens"`` when the paper reports
    tokens per GPU-second instead — then ``measured_tokens_per_gpu_s`` holds it).
    """

    name: str
    model: str | ModelSpec
    cluster: str | ClusterSpec
    nodes: int
    global_batch: int
    seq_len: int
    degrees: tuple[tuple[str, int], ...]
    flop_convention: str
    measured_tflops_per_gpu: float
    source: str
    measured_tokens_per_gpu_s: float = 0.0
    workload_options: tuple[tuple[str, Any], ...] = ()
    #: What the source reports for this run, in both languages (layout, time per iteration, throughput).
    note: Text | None = None

    def __post_init__(self) -> None:
        """Refuse what no comparison can use, naming the field (a run of your own is built by hand)."""
        from dataclasses import fields

        from ._validate import check_choice, check_int, check_number
        from .specs import _check_name, _plain_fields, type_error

        _plain_fields(self)
        _check_name("name", self.name)
        _check_name("source", self.source)
        for field_name, value, presets, kind in (
            ("model", self.model, MODELS, ModelSpec),
            ("cluster", self.cluster, CLUSTERS, ClusterSpec),
        ):
            if isinstance(value, str):
                check_choice(field_name, value, tuple(presets))
            elif not isinstance(value, kind):
                raise type_error(field_name, value, f"preset name or {kind.__name__}")
        check_int("nodes", self.nodes, ge=1, le=MAX_NODES)
        check_int("global_batch", self.global_batch, ge=1, le=MAX_GLOBAL_BATCH)
        check_int("seq_len", self.seq_len, ge=1, le=MAX_SEQ_LEN)
        if not isinstance(self.degrees, tuple) or not all(
            isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) for item in self.degrees
        ):
            raise type_error("degrees", self.degrees, "tuple of (name, degree) pairs")
        for key, degree in self.degrees:
            if key in _SEARCHED_NOT_DEGREES:
                option = _SEARCHED_NOT_DEGREES[key]
                bound = (degree,) if option == "zero_stages" else degree
                keys = ", ".join(PUBLISHED_DEGREE_KEYS)
                raise ValueError(tr("presets.degree_is_searched", key=key, option=(option, bound), keys=keys))
            check_choice("degrees", key, PUBLISHED_DEGREE_KEYS)
            check_int(f"degrees[{key!r}]", degree, ge=1, le=MAX_NODES * 1024)
        given = dict(self.degrees)
        if "dp" in given:  # a stated layout fills the cluster: tp · cp · pp · dp ranks = nodes · GPUs per node
            ranks = math.prod(given.get(key, 1) for key in ("tp", "cp", "pp", "dp"))
            world = (
                self.nodes * (CLUSTERS[self.cluster] if isinstance(self.cluster, str) else self.cluster).gpus_per_node
            )
            if ranks != world:
                raise ValueError(tr("presets.degrees_world", degrees=given, ranks=ranks, world=world))
        check_choice("flop_convention", self.flop_convention, FLOP_CONVENTIONS)
        measured = "measured_tokens_per_gpu_s" if self.flop_convention == "tokens" else "measured_tflops_per_gpu"
        check_number("measured_tflops_per_gpu", self.measured_tflops_per_gpu, ge=0, le=1e9)
        check_number("measured_tokens_per_gpu_s", self.measured_tokens_per_gpu_s, ge=0, le=1e12)
        check_number(measured, getattr(self, measured), gt=0, le=1e12)
        if not isinstance(self.workload_options, tuple) or not all(
            isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) for item in self.workload_options
        ):
            raise type_error("workload_options", self.workload_options, "tuple of (WorkloadSpec field, value) pairs")
        settable = tuple(f.name for f in fields(WorkloadSpec) if f.name not in ("global_batch", "seq_len"))
        for key, _ in self.workload_options:
            check_choice("workload_options", key, settable)

    def model_spec(self) -> ModelSpec:
        """The model: the preset ``model`` names, or ``model`` itself."""
        return MODELS[self.model] if isinstance(self.model, str) else self.model

    def cluster_spec(self) -> ClusterSpec:
        """The whole cluster the run used: the preset ``cluster`` names (or ``cluster`` itself) on ``nodes`` nodes."""
        base = CLUSTERS[self.cluster] if isinstance(self.cluster, str) else self.cluster
        return base.with_nodes(self.nodes)

    @property
    def gpus(self) -> int:
        """GPUs the run used."""
        return self.cluster_spec().world_size

    @property
    def label(self) -> str:
        """A label in the learner's language: model preset, GPUs × device, sequence length, global batch, the
        published model-parallel degrees above 1 (several tables ran one model on the same GPUs) and, for an MoE run
        with EP, its expert TP (Megatron's default ETP = TP where the run sets none), the precision and,
        for a LoRA run, its rank (one table ran one layout in BF16 and FP8, another with LoRA and without). Runs that
        share a label are one layout measured again (another release or setting): their sources tell them apart."""
        cluster = self.cluster if isinstance(self.cluster, str) else self.cluster.name
        device = cluster.split("-")[0].upper()
        device = "A100" if device == "JEANZAY" else device
        model = self.model if isinstance(self.model, str) else self.model.name
        parts = [
            model,
            f"{self.gpus} × {device}",
            f"s = {self.seq_len}",
            tr("presets.run_label_batch", batch=self.global_batch),
        ]
        degrees = expert_tp_default(self.model_spec().is_moe, dict(self.degrees))
        shown = [(k, v) for k, v in degrees.items() if k not in ("dp", "etp") and v > 1]
        if degrees.get("ep", 1) > 1:  # expert TP told apart even at 1: one recipe changed only it (Grok-1, 2025)
            shown.append(("etp", degrees["etp"]))
        parts += [" ".join(f"{k.upper()} {v}" for k, v in shown)]
        options = dict(self.workload_options)
        parts.append(str(options.get("precision", "bf16")).upper())
        if options.get("lora_rank") is not None:
            parts.append(tr("presets.run_label_lora", rank=options["lora_rank"]))
        return " · ".join(part for part in parts if part)

    def workload(self) -> WorkloadSpec:
        """The run's workload: its batch and sequence, and the options its paper states."""
        return WorkloadSpec(global_batch=self.global_batch, seq_len=self.seq_len, **dict(self.workload_options))


#: Llama 3's context parallelism all-gathers K and V, then computes the local queries' attention; the paper says the
#: all-gather is exposed on the critical path (Llama Team 2024, arXiv:2407.21783, §3.3.2 "Context parallelism for long
#: sequences"): none of the CP traffic hides under attention, ``overlap_cp`` 0. Its volume per rank, (cp - 1) K/V blocks
#: forward, is the ring's.
_LLAMA3_CP: tuple[str, Any] = ("overlap_cp", 0.0)
#: Llama 3's FSDP shards the optimizer states and the gradients but does not reshard the weights after the forward
#: pass (arXiv:2407.21783, §3.3.2 "Parallelism for model scaling"): ZeRO-2.
_LLAMA3_FSDP: tuple[str, Any] = ("zero_stages", (2,))
#: Llama 3's pipeline takes one layer off the first and the last stage, "so the first model chunk on the first stage
#: has only the embedding, and the last model chunk on the last stage has only output projection and loss"
#: (§3.3.2): one layer per model chunk, so 126 layers and the two edge slots on pp = 16 make v = 128 / 16 = 8 chunks
#: per rank; the search goes up to it.
_LLAMA3_CHUNKS: tuple[str, Any] = ("max_virtual_stages", 8)
#: Llama 3 accumulates gradients over micro-batches in FP32 and reduce-scatters them in FP32 (§3.3.2, "Numerical
#: stability"): bf16 weights with fp32 gradients, the ``megatron-bf16`` recipe (2 + 4 + 12 bytes per parameter).
_LLAMA3_GRADS: tuple[str, Any] = ("recipe", "megatron-bf16")
_LLAMA3_SETUP: tuple[tuple[str, Any], ...] = (
    ("pipeline_edge_layers", 1),
    _LLAMA3_FSDP,
    _LLAMA3_CHUNKS,
    _LLAMA3_CP,
    _LLAMA3_GRADS,
)

#: Megatron-DeepSpeed, the engine that trained MT-NLG (arXiv:2201.11990, §2: "3D parallelism" of data, tensor and
#: pipeline parallelism) and BLOOM (arXiv:2211.05100, §3.4: the same three with ZeRO), had no context parallelism
#: (Megatron-Core added it in 2024, ``--context-parallel-size``): its runs search CP 1 only.
_NO_CONTEXT_PARALLEL: tuple[str, Any] = ("max_cp", 1)
#: Nor had the engines of 2021-2022 (Megatron-LM's Table 1, Megatron-DeepSpeed for MT-NLG and BLOOM) flash attention
#: (FlashAttention, arXiv:2205.14135, May 2022): the scores were batched matmuls over every query-key pair, masked
#: afterwards, and kept for backward.
_NO_FLASH_ATTENTION: tuple[str, Any] = ("flash_attention", False)

_MTNLG_SETUP: tuple[tuple[str, Any], ...] = (
    ("recipe", "zero-fp16-adam"),
    ("zero_stages", (0, 1)),
    ("recompute_modes", ("full",)),
    ("sequence_parallel", False),
    _NO_CONTEXT_PARALLEL,
    _NO_FLASH_ATTENTION,
)

#: Published runs the course checks its estimate against (none of them calibrates it).
PUBLISHED_RUNS: tuple[PublishedRun, ...] = (
    PublishedRun(
        "Llama 3 405B, 8K, 8192 GPUs",
        "llama3-405b",
        "h100-8",
        1024,
        2048,
        8192,
        (("tp", 8), ("cp", 1), ("pp", 16), ("dp", 64)),
        "palm",
        430.0,
        LLAMA3_2024_TABLE4 + ", row 1",
        note=Text(zh="每 GPU 430 TFLOPs，BF16 MFU 43 %", en="430 TFLOPs/GPU, 43 % BF16 MFU"),
        workload_options=(*_LLAMA3_SETUP, ("max_micro_batch", 2)),
    ),
    PublishedRun(
        "Llama 3 405B, 8K, 16384 GPUs",
        "llama3-405b",
        "h100-8",
        2048,
        2048,
        8192,
        (("tp", 8), ("cp", 1), ("pp", 16), ("dp", 128)),
        "palm",
        400.0,
        LLAMA3_2024_TABLE4 + ", row 2",
        note=Text(zh="每 GPU 400 TFLOPs，BF16 MFU 41 %", en="400 TFLOPs/GPU, 41 % BF16 MFU"),
        workload_options=(*_LLAMA3_SETUP, ("max_micro_batch", 2)),
    ),
    PublishedRun(
        "Llama 3 405B, 128K, 16384 GPUs",
        "llama3-405b",
        "h100-8",
        2048,
        128,
        131072,
        (("tp", 8), ("cp", 16), ("pp", 16), ("dp", 8)),
        "palm",
        380.0,
        LLAMA3_2024_TABLE4 + ", row 3",
        note=Text(zh="每 GPU 380 TFLOPs，BF16 MFU 38 %", en="380 TFLOPs/GPU, 38 % BF16 MFU"),
        workload_options=(*_LLAMA3_SETUP, ("max_micro_batch", 1)),
    ),
    PublishedRun(
        "MT-NLG 530B, 280 nodes",
        "mt-nlg-530b",
        "a100-8",
        280,
        1920,
        2048,
        (("tp", 8), ("cp", 1), ("pp", 35), ("dp", 8)),
        "megatron",
        126.0,
        MTNLG_2022 + ", Table 1",
        note=Text(
            zh="280 个 DGX A100 节点：每次迭代 60.1 s，每 GPU 126 TFLOP/s",
            en="280 DGX A100 nodes: 60.1 s per iteration, 126 TFLOP/s per GPU",
        ),
        workload_options=_MTNLG_SETUP,
    ),
    PublishedRun(
        "MT-NLG 530B, 350 nodes",
        "mt-nlg-530b",
        "a100-8",
        350,
        1920,
        2048,
        (("tp", 8), ("cp", 1), ("pp", 35), ("dp", 10)),
        "megatron",
        121.0,
        MTNLG_2022 + ", Table 1",
        note=Text(
            zh="350 个节点：每次迭代 50.2 s，每 GPU 121 TFLOP/s",
            en="350 nodes: 50.2 s per iteration, 121 TFLOP/s per GPU",
        ),
        workload_options=_MTNLG_SETUP,
    ),
    PublishedRun(
        "MT-NLG 530B, 420 nodes",
        "mt-nlg-530b",
        "a100-8",
        420,
        1920,
        2048,
        (("tp", 8), ("cp", 1), ("pp", 35), ("dp", 12)),
        "megatron",
        113.0,
        MTNLG_2022 + ", Table 1",
        note=Text(
            zh="420 个节点：每次迭代 44.4 s，每 GPU 113 TFLOP/s",
            en="420 nodes: 44.4 s per iteration, 113 TFLOP/s per GPU",
        ),
        workload_options=_MTNLG_SETUP,
    ),
    PublishedRun(
        "BLOOM 176B, 384 GPUs",
        "bloom-176b",
        "jeanzay-a100-8",
        48,
        2048,
        2048,
        (("tp", 4), ("cp", 1), ("pp", 12), ("dp", 8)),
        "megatron",
        150.0,
        BLOOM_2022 + "; BigScience, “BLOOM 176B model card”; BigScience, github.com/bigscience-workshop/bigscience "
        "train/tr11-176B-ml/README.md (--pp-partition-method 'type:transformer|embedding')",
        note=Text(
            zh="TP 4、PP 12、DP 8，配 ZeRO-1 与 bf16；首末两段各少一层、放嵌入层；模型卡给出约 150 TFLOPs",
            en="TP 4, PP 12, DP 8 with ZeRO-1, bf16; the first and last stages hold one layer fewer and the "
            "embedding; the model card gives about 150 TFLOPs",
        ),
        workload_options=(
            # DeepSpeed's BF16Optimizer, written for BLOOM, accumulates gradients in fp32 (Hugging Face blog, "The
            # Technology Behind BLOOM Training", section BF16Optimizer): bf16 weights, fp32 gradients.
            ("recipe", "megatron-bf16"),
            ("zero_stages", (1,)),
            ("recompute_modes", ("full",)),
            ("sequence_parallel", False),
            ("pipeline_edge_layers", 1),
            _NO_CONTEXT_PARALLEL,
            _NO_FLASH_ATTENTION,
        ),
    ),
    PublishedRun(
        "DeepSeek-V3 (MoE), 2048 H800 GPUs",
        "deepseek-v3",
        "h800-8",
        256,
        15360,
        4096,
        (("tp", 1), ("cp", 1), ("pp", 16), ("dp", 128), ("ep", 64)),
        "tokens",
        0.0,
        DEEPSEEK_V3_2024 + ", §1, §2.1.2 and §3.2",
        note=Text(
            zh="每万亿 token 180K H800 GPU 小时 (§1)；PP 16，EP 64 跨 8 个节点，ZeRO-1 DP (§3.2)；"
            "按节点限制路由，每个 token 最多到 4 个节点 (§2.1.2)",
            en="180K H800 GPU hours per trillion tokens (§1); PP 16, EP 64 over 8 nodes, ZeRO-1 DP (§3.2); "
            "node-limited routing to 4 nodes (§2.1.2)",
        ),
        measured_tokens_per_gpu_s=1e12 / (180e3 * 3600),
        workload_options=(
            ("precision", "fp8"),  # FP8 mixed-precision training (§3.3)
            ("recipe", "deepseek-v3-fp8"),
            ("zero_stages", (1,)),
            ("ep_node_limit", 4),
            ("ep_dedup_per_node", True),
            ("overlap_ep", 1.0),  # DualPipe overlaps dispatch and combine with compute (§3.2.1)
            ("ep_overlap_schedule", "dualpipe"),
            ("ep_fp8_dispatch", True),  # dispatch and the down-projection's input gradient in FP8 (§3.3.3)
            # Tile- and block-wise scales computed online (§3.3.2): charged as current scaling's passes (an amax
            # read before each cast), an upper bound where a kernel finds a tile's amax in the cast's own pass.
            ("fp8_recipe", "current"),
            ("max_micro_batch", 2),
            # Recomputation of every RMSNorm and of MLA's up-projections (§3.2.3), and of the MoE SwiGLU's output
            # from its cached input (§3.3.4): Megatron-Core's modules "layernorm", "mla_up_proj" and "moe_act".
            ("recompute_modules", ("layernorm", "mla_up_proj", "moe_act")),
            # The MoE SwiGLU's input cached in FP8, and the attention output once in E5M6 for the output projection's
            # and the attention core's backward (§3.3.4).
            ("fp8_activation_cache", "deepseek-v3"),
            # The router's weights multiply on the experts' side, so the combine keeps no copy of the experts'
            # outputs. DeepEP, DeepSeek's expert-parallel library, dispatches each token copy with its weight and
            # combines the experts' outputs unweighted; the weights' gradient comes back through the dispatch's
            # backward (deepseek-ai/DeepEP README @ 0297fc801788b14b338a46554faca28d419e518a, "Example use in model
            # training": dispatch_forward returns recv_topk_weights, combine_forward passes none). Where on the
            # expert side they multiply is not stated; the report trains this layout without tensor parallelism and
            # recomputes only the norms, MLA's up-projections and the SwiGLU output (§3.2, §3.2.3, §3.3.4), which
            # fits in 80 GB only if nothing h-wide is kept per routed copy beyond its input: with the experts'
            # outputs kept as well, the ledger needs 102.8 GiB (tests/test_planner_validation.py).
            ("moe_probs_in_experts", True),
        ),
    ),
)

learner_functions(globals())
