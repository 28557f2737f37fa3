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

from dataclasses import dataclass
from typing import Any

from .hardware import (
    A10_BF16_DENSE_FLOPS,
    A10_MEMORY_BYTES_PER_S,
    A100_80GB_HBM_BYTES_PER_S,
    A100_BF16_DENSE_FLOPS,
    CPU_BF16_FLOPS,
    CPU_DRAM_BYTES_PER_S,
    CPU_MEMORY_GIB,
    ETHERNET_100G_PER_CARD_BYTES_PER_S,
    ETHERNET_LATENCY_S,
    H100_BF16_DENSE_FLOPS,
    H100_HBM_BYTES_PER_S,
    HDR_PER_GPU_BYTES_PER_S,
    IB_NDR_BYTES_PER_S,
    NCCL_RING_NET_LATENCY_S,
    NCCL_RING_NVLINK_LATENCY_S,
    NVLINK3_UNIDIRECTIONAL_BYTES_PER_S,
    NVLINK4_H100_BYTES_PER_S,
    PCIE4_X16_BYTES_PER_S,
    PCIE_LATENCY_S,
)
from .planner import ClusterSpec, ModelSpec, WorkloadSpec

__all__ = [
    "CLUSTERS",
    "MEGATRON_TABLE1",
    "MODELS",
    "MegatronRun",
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
        ),
        ClusterSpec(
            name="h100-8",
            nodes=1,
            gpus_per_node=8,
            memory_per_device_gib=80.0,
            peak_flops=H100_BF16_DENSE_FLOPS,
            intra_node_bandwidth_bytes_per_s=NVLINK4_H100_BYTES_PER_S,
            inter_node_bandwidth_bytes_per_s=IB_NDR_BYTES_PER_S,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            memory_bandwidth_bytes_per_s=H100_HBM_BYTES_PER_S,
            source="NVIDIA H100 datasheet (SXM), DGX H100 datasheet (8x NDR 400 Gb/s)",
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
            source="seed 000's 24 GiB devices; NVIDIA A10 datasheet; PCIe 4.0 x16; 100 GbE per node",
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

# --------------------------------------------------------------------------- models

BROWN_2020: str = "Brown et al., Language Models are Few-Shot Learners, arXiv:2005.14165, Table 2.1"
RADFORD_2019: str = "Radford et al. 2019, GPT-2 (124M: 12 layers, d_model 768, 12 heads, context 1024, vocab 50257)"
LLAMA3_2024: str = "Llama Team, The Llama 3 Herd of Models, arXiv:2407.21783, Table 3 (vocabulary 128K = 128256)"
MIXTRAL_2024: str = "Jiang et al., Mixtral of Experts, arXiv:2401.04088, Table 1 (context 32768)"
MEGATRON_2021: str = (
    "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, "
    "arXiv:2104.04473, Table 1 (V = 51200, s = 2048)"
)


def _gpt(name: str, layers: int, hidden: int, heads: int, vocab: int, seq_len: int, source: str) -> ModelSpec:
    """A GPT-2/3-style model: GELU MLP of width 4h, LayerNorm, learned positions, biases, tied embeddings."""
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
        tied_embeddings=True,
        source=source,
    )


def _llama3(name: str, layers: int, hidden: int, ffn: int, heads: int) -> ModelSpec:
    return ModelSpec(
        name=name,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=8,
        ffn_hidden=ffn,
        vocab=128256,
        seq_len=8192,
        source=LLAMA3_2024,
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
        year later, arXiv:2205.05198), sequences of 2048 tokens; the batch of the row. ``overrides`` are
        further :class:`~coursekit.planner.WorkloadSpec` fields."""
        options: dict[str, Any] = {
            "global_batch": self.global_batch,
            "seq_len": 2048,
            "recipe": "zero-fp16-adam",
            "sequence_parallel": False,
            "zero_stages": (0,),
            "recompute_modes": ("full",),
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
        _llama3("llama3-8b", 32, 4096, 14336, 32),
        _llama3("llama3-70b", 80, 8192, 28672, 64),
        _llama3("llama3-405b", 126, 16384, 53248, 128),
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
    )
}
