"""Link presets: bandwidth and latency of an intra-node link, a cross-node link and the course's example link.

Every hardware figure the lessons use lives here, as a named constant with its
source. Bandwidth is *per GPU, per direction* (unidirectional): the rate at
which one GPU sends, over all of its links together, while it receives at the
same rate. Vendors quote NVLink as the sum of all links and both directions
(H100: 18 links, 900 GB/s), so that figure is halved here (450 GB/s per GPU,
per direction).

The latency of a preset is the fixed cost alpha of one hop (one point-to-point
call, or one step of a ring collective), taken from NCCL's own cost model.
Real systems add launch overheads and congestion; the presets are an order of
magnitude to reason with, not a measurement of your cluster (lesson 8 fits
alpha and B to measurements).

>>> preset = LINK_PRESETS["intra_node"]
>>> round(preset.bandwidth_gib_s, 1), preset.latency_us
(419.1, 3.4)
>>> round(LINK_PRESETS["cross_node"].bandwidth_gib_s, 2)
46.57

Taught in: lesson 2 (Q2 communication).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ._validate import check_choice, check_instance, check_number, learner_functions
from .i18n import Text
from .units import GB_BYTES, GIB_BYTES, US_PER_S

__all__ = [
    "A10_BF16_DENSE_FLOPS",
    "A10_COMPUTE_CAPABILITY",
    "A10_MEMORY_BYTES_PER_S",
    "A100_80GB_HBM_BYTES_PER_S",
    "A100_BF16_DENSE_FLOPS",
    "A100_COMPUTE_CAPABILITY",
    "B200_BF16_DENSE_FLOPS",
    "B200_COMPUTE_CAPABILITY",
    "B200_FP8_DENSE_FLOPS",
    "B200_HBM_BYTES_PER_S",
    "B200_MEMORY_GB",
    "B200_SOURCE",
    "B300_BF16_DENSE_FLOPS",
    "B300_COMPUTE_CAPABILITY",
    "B300_FP8_DENSE_FLOPS",
    "B300_HBM_BYTES_PER_S",
    "B300_MEMORY_GB",
    "B300_SOURCE",
    "COMPUTE_CAPABILITY_SOURCE",
    "CPU_BF16_FLOPS",
    "CPU_DRAM_BYTES_PER_S",
    "CPU_MEMORY_GIB",
    "DATASHEET_MEMORY_GB",
    "DGX_GPUS",
    "DGX_GPUS_PER_HOST_LINK",
    "DGX_HOST_LINK_BYTES_PER_S",
    "DGX_HOST_MEMORY_GIB",
    "DGX_SYSTEM_MEMORY_TB",
    "EP_ALL_TO_ALL_SMS",
    "ETHERNET_100G_PER_CARD_BYTES_PER_S",
    "ETHERNET_LATENCY_S",
    "EXAMPLE_LINK_BANDWIDTH_GIB_S",
    "EXAMPLE_LINK_LATENCY_US",
    "FORMER_LINK_PRESET_NAMES",
    "GB200_BF16_DENSE_FLOPS",
    "GB200_FP8_DENSE_FLOPS",
    "GB200_HBM_BYTES_PER_S",
    "GB200_HOST_LINK_BYTES_PER_S",
    "GB200_HOST_MEMORY_GIB",
    "GB200_MEMORY_GB",
    "GB200_NVL72_DOMAIN_GPUS",
    "GB200_SOURCE",
    "GB200_TRAY_GPUS",
    "GB300_BF16_DENSE_FLOPS",
    "GB300_FP8_DENSE_FLOPS",
    "GB300_HBM_BYTES_PER_S",
    "GB300_MEMORY_GB",
    "GB300_SOURCE",
    "GRACE_LPDDR5X_BYTES_PER_S",
    "GRACE_LPDDR5X_GB",
    "GRACE_SUPERCHIP_GPUS",
    "H100_BF16_DENSE_FLOPS",
    "H100_COMPUTE_CAPABILITY",
    "H100_FP8_DENSE_FLOPS",
    "H100_HBM_BYTES_PER_S",
    "H100_SMS",
    "H200_BF16_DENSE_FLOPS",
    "H200_FP8_DENSE_FLOPS",
    "H200_HBM_BYTES_PER_S",
    "H200_MEMORY_GB",
    "H200_SOURCE",
    "HDR_PER_GPU_BYTES_PER_S",
    "HOST_MEMORY_SOURCE",
    "IB_NDR_BYTES_PER_S",
    "LINK_PRESETS",
    "NCCL_BASE_LATENCY_US",
    "NCCL_LL_MAX_BUS_BYTES_PER_S",
    "NCCL_NVLINK_STEP_LATENCY_US",
    "NCCL_PROTOCOL_BANDWIDTH_SHARE",
    "NET_800G_PER_GPU_BYTES_PER_S",
    "NVIDIA_SMI_MEMORY_MIB",
    "NVLINK3_UNIDIRECTIONAL_BYTES_PER_S",
    "NVLINK4_H100_BIDIRECTIONAL_BYTES_PER_S",
    "NVLINK4_H100_BYTES_PER_S",
    "NVLINK5_B200_BIDIRECTIONAL_BYTES_PER_S",
    "NVLINK5_B200_BYTES_PER_S",
    "NVLINK_C2C_BIDIRECTIONAL_BYTES_PER_S",
    "NVLINK_H800_BYTES_PER_S",
    "OMNIPATH_4X100G_PER_GPU_BYTES_PER_S",
    "PCIE4_X16_BYTES_PER_S",
    "PCIE5_X16_BYTES_PER_S",
    "PCIE_LATENCY_S",
    "TPU_V4_BF16_FLOPS",
    "LinkPreset",
    "link_preset",
    "link_preset_name",
]

#: NVIDIA H100 SXM5 datasheet: fourth-generation NVLink, 900 GB/s per GPU, both directions added.
NVLINK4_H100_BIDIRECTIONAL_BYTES_PER_S: float = 900.0 * GB_BYTES
#: The same link in one direction: 450 GB/s per GPU.
NVLINK4_H100_BYTES_PER_S: float = NVLINK4_H100_BIDIRECTIONAL_BYTES_PER_S / 2

#: Bits per byte, for network line rates quoted in Gb/s.
BITS_PER_BYTE: int = 8
#: InfiniBand NDR (NVIDIA ConnectX-7): 400 Gb/s per port and direction; DGX H100 has one port per GPU.
IB_NDR_BITS_PER_S: float = 400e9
#: The same port in bytes per second: 50 GB/s per GPU and direction.
IB_NDR_BYTES_PER_S: float = IB_NDR_BITS_PER_S / BITS_PER_BYTE

NCCL_TUNING_SOURCE: str = (
    "NVIDIA/nccl src/graph/tuning.cc, table hwLat, Ring algorithm, Simple protocol: "
    "3.4 us per step over NVLink, 14 us over the network (NCCL 2.19-era values)"
)
#: NCCL's modelled hardware latency of one ring step over NVLink (Ring / Simple), in seconds.
NCCL_RING_NVLINK_LATENCY_S: float = 3.4e-6
#: NCCL's modelled hardware latency of one ring step over the network (Ring / Simple), in seconds.
NCCL_RING_NET_LATENCY_S: float = 14.0e-6

#: NCCL's cost model for small messages (NVIDIA/nccl src/graph/tuning.cc, NCCL 2.19/2.20-era tables, in
#: microseconds): a collective costs ``baseLat[algorithm][protocol] + steps · hwLat[link][algorithm][protocol]``
#: plus its bytes at the protocol's bandwidth, and NCCL runs the (algorithm, protocol) pair its model says is
#: fastest. For the few-MiB all-reduces of decoding that is a low-latency protocol: LL (8-byte lines, 4 bytes of
#: data plus a 4-byte flag, so a quarter of the link's bandwidth: tuning.cc's ``busBw * 1.0/4.0``) or LL128
#: (128-byte lines with 8 bytes of flags, tuning.cc's 0.92 factor), not Simple. Keys: (algorithm, protocol).
NCCL_BASE_LATENCY_US: Mapping[tuple[str, str], float] = MappingProxyType(
    {
        ("ring", "LL"): 6.6,
        ("ring", "LL128"): 14.0,
        ("ring", "Simple"): 8.4,
        ("tree", "LL"): 6.8,
        ("tree", "LL128"): 14.0,
        ("tree", "Simple"): 0.0,
    }
)
#: ``hwLat`` over NVLink (per ring step, or per tree hop), microseconds; same source. Ring/Simple is
#: :data:`NCCL_RING_NVLINK_LATENCY_S`.
NCCL_NVLINK_STEP_LATENCY_US: Mapping[tuple[str, str], float] = MappingProxyType(
    {
        ("ring", "LL"): 0.6,
        ("ring", "LL128"): 1.9,
        ("ring", "Simple"): 3.4,
        ("tree", "LL"): 0.6,
        ("tree", "LL128"): 1.25,
        ("tree", "Simple"): 28.0,
    }
)
#: Share of the link bandwidth each protocol delivers (tuning.cc: LL 1/4 for all-reduce, LL128 0.92 on a
#: ring and 7/9 on a single-node tree, tree bandwidth x 0.92; tree all-reduce moves data up then down: x 0.5).
NCCL_PROTOCOL_BANDWIDTH_SHARE: Mapping[tuple[str, str], float] = MappingProxyType(
    {
        ("ring", "LL"): 1 / 4,
        ("ring", "LL128"): 0.92,
        ("ring", "Simple"): 1.0,
        ("tree", "LL"): 0.92 / 3.8 * 0.5,
        ("tree", "LL128"): 0.92 * 7 / 9 * 0.5,
        ("tree", "Simple"): 0.92 * 0.5,
    }
)
#: Cap on LL's bus bandwidth inside one Hopper or Ampere node (tuning.cc ``llMaxBws``: 87.7 GB/s).
NCCL_LL_MAX_BUS_BYTES_PER_S: float = 87.7e9

#: The course's example link (lesson 2's first ledger, ``communication_ledger(256, 1, 100, 5)``):
#: 100 GiB/s, 5 us per call. An illustration, not a product.
EXAMPLE_LINK_BANDWIDTH_GIB_S: float = 100.0
EXAMPLE_LINK_LATENCY_US: float = 5.0
#: Former names of the two constants above, kept importable.
SEED_LINK_BANDWIDTH_GIB_S: float = EXAMPLE_LINK_BANDWIDTH_GIB_S
SEED_LINK_LATENCY_US: float = EXAMPLE_LINK_LATENCY_US


# --------------------------------------------------------------------------- accelerators, hosts and more links

#: NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM): BF16 Tensor Core 312 TFLOP/s dense
#: (624 with structured sparsity).
A100_BF16_DENSE_FLOPS: float = 312e12
#: Same datasheet: A100 80GB SXM GPU memory bandwidth 2,039 GB/s.
A100_80GB_HBM_BYTES_PER_S: float = 2039e9
#: Same datasheet: NVLink 600 GB/s (third-generation NVLink, both directions summed) -> 300 GB/s each way.
NVLINK3_UNIDIRECTIONAL_BYTES_PER_S: float = 300e9
#: NVIDIA DGX A100 datasheet: 8 single-port ConnectX-6 HDR InfiniBand 200 Gb/s for the cluster network,
#: one per GPU: 200e9 / 8 = 25 GB/s per GPU each way.
HDR_PER_GPU_BYTES_PER_S: float = 200e9 / 8

#: GPU memory as ``nvidia-smi`` reports it (its "Memory-Usage" total, MiB): what a program can allocate from, before
#: the CUDA context and the communication buffers (the workload's ``runtime_reserve_gib``). HBM is built in binary
#: sizes, so a datasheet's "80GB" is about 80 GiB, not 80e9 bytes (74.5 GiB): NVIDIA A100-SXM4-80GB and
#: A800-SXM4-80GB show 81920 MiB (80 GiB), H100 80GB HBM3 and H800 81559 MiB (79.6 GiB), H200 143771 MiB (140.4 GiB,
#: its datasheet's "141 GB"). Read from nvidia-smi tables printed in public repositories' logs and READMEs.
NVIDIA_SMI_MEMORY_MIB: dict[str, int] = {
    "A100-SXM4-80GB": 81920,
    "A800-SXM4-80GB": 81920,
    "H100 80GB HBM3": 81559,
    "H800": 81559,
    "H200": 143771,
}
#: The memory sizes datasheets print (GB), the ones a unit slip turns into GB x 10^9 / 2^30 GiB
#: (:meth:`coursekit.specs.ClusterSpec.unit_notes`): GeForce and workstation cards' 16 to 48, A100's 40 and 80,
#: H100 NVL's 94, H200's 141, B200's 180 and 192, GB200's 186, B300's 270 and 288, GB300's 279.
DATASHEET_MEMORY_GB: tuple[int, ...] = (16, 24, 32, 40, 48, 80, 94, 141, 180, 186, 192, 270, 279, 288)

#: NVIDIA H100 Tensor Core GPU datasheet (H100 SXM): BF16 Tensor Core 1,979 TFLOP/s *with sparsity*;
#: dense is half, 989 TFLOP/s.
H100_BF16_DENSE_FLOPS: float = 989e12
#: Same datasheet: FP8 Tensor Core 3,958 TFLOP/s *with sparsity*; dense is half, 1,979 TFLOP/s — twice BF16.
#: The H800 SXM has the same compute (DeepSeek-V3's FP8 training ran on it, arXiv:2412.19437 §3.3). A100 has
#: no FP8 Tensor Cores (its datasheet lists TF32, BF16, FP16, INT8, INT4).
H100_FP8_DENSE_FLOPS: float = 3958e12 / 2
#: Same datasheet: H100 SXM GPU memory bandwidth 3.35 TB/s.
H100_HBM_BYTES_PER_S: float = 3.35e12
#: NVIDIA H200 Tensor Core GPU datasheet (H200 SXM): BF16 Tensor Core 1,979 TFLOP/s with sparsity, so the same
#: 989 TFLOP/s dense as H100; GPU memory bandwidth 4.8 TB/s (HBM3e).
H200_BF16_DENSE_FLOPS: float = 989e12
H200_HBM_BYTES_PER_S: float = 4.8e12
#: Same datasheet: FP8 Tensor Core 3,958 TFLOP/s with sparsity, 1,979 dense, as on H100; GPU memory 141 GB (HBM3e),
#: which the preset takes as GiB, as the H100 preset takes its "80GB". NVIDIA DGX H200 datasheet: fourth-generation
#: NVLink at 900 GB/s per GPU (both directions added, NVLINK4_H100_BYTES_PER_S each way) and 8 single-port ConnectX-7
#: 400 Gb/s InfiniBand adapters for the compute network, one per GPU (IB_NDR_BYTES_PER_S).
H200_FP8_DENSE_FLOPS: float = 3958e12 / 2
H200_MEMORY_GB: float = 141.0
H200_SOURCE: str = (
    "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM: 141 GB HBM3e at 4.8 TB/s, BF16 1,979 and FP8 3,958 TFLOP/s "
    "with sparsity, NVLink 900 GB/s) and NVIDIA DGX H200 datasheet (8x ConnectX-7 400 Gb/s InfiniBand)"
)
#: H100's NVLink 4 (450 GB/s each way) and NDR InfiniBand (50 GB/s per GPU each way) are
#: NVLINK4_H100_BYTES_PER_S and IB_NDR_BYTES_PER_S above.

#: NVIDIA H800 SXM (the export variant used by DeepSeek-V3): H100's compute and HBM; NVLink 400 GB/s both
#: directions -> 200 GB/s each way (DeepSeek-V3 technical report, arXiv:2412.19437, §3.1; it measures about
#: 160 GB/s achievable, §3.2.2). Its InfiniBand is 50 GB/s per GPU (§3.2.2), IB_NDR_BYTES_PER_S.
NVLINK_H800_BYTES_PER_S: float = 400e9 / 2
#: NVIDIA B200 (DGX B200 / HGX B200, Blackwell), as NVIDIA's DGX Cloud Benchmarking recipes state it: the peak table
#: of its Llama 3.1 recipe gives B200 2,250 TFLOP/s BF16 and 4,500 TFLOP/s FP8, both dense (the sparse figures of the
#: datasheet halved), and its B200 reference architecture 180 GB of HBM3e at 7.7 TB/s per GPU, fifth-generation NVLink
#: at 1.8 TB/s per GPU (both directions added) and 8 x 400 Gb/s InfiniBand compute links a node (one per GPU, 50 GB/s
#: per GPU and direction: IB_NDR_BYTES_PER_S).
B200_SOURCE: str = (
    "NVIDIA DGX Cloud Benchmarking, llama3.1/README.md @ 14fb6ae60402b08f7ca26f2fa86a9408806d3b62 (v25.07, “Peak "
    "theoretical throughput across GPUs and Data Types”: B200 BF16 2250, FP8 4500 TFLOPS) and README.md @ "
    "841f5466cd86b66abd48049e839c563776f6d716 (“B200 Reference Architecture”: 8x B200 180 GB HBM3e, memory bandwidth "
    "7.7 TB/s per GPU, NVLink 5th generation 1.8 TB/s per GPU, 8x 400 Gbit/s InfiniBand compute links)"
)
B200_BF16_DENSE_FLOPS: float = 2250e12
B200_FP8_DENSE_FLOPS: float = 4500e12
B200_HBM_BYTES_PER_S: float = 7.7e12
#: GPU memory in the datasheet's GB; the preset takes it as GiB, as the H100 preset takes its "80GB".
B200_MEMORY_GB: float = 180.0
NVLINK5_B200_BIDIRECTIONAL_BYTES_PER_S: float = 1800.0 * GB_BYTES
#: The same link in one direction: 900 GB/s per GPU.
NVLINK5_B200_BYTES_PER_S: float = NVLINK5_B200_BIDIRECTIONAL_BYTES_PER_S / 2

#: NVIDIA GB200 NVL72 (a rack of 18 compute trays, each with 2 Grace Blackwell superchips of 2 B200 GPUs: 4 GPUs a
#: tray), as NVIDIA's DGX Cloud Benchmarking recipes state it: the peak table gives GB200 2,450 TFLOP/s BF16 and 4,900
#: FP8 (dense), its GB200 reference architecture 186 GB of HBM3e at 8 TB/s per GPU and fifth-generation NVLink at 1.8
#: TB/s per GPU (both directions added). The NVLink domain is the rack's 72 GPUs (DGX GB200 user guide, Networking);
#: each tray has 4 InfiniBand OSFP ports, one per GPU (NVIDIA Mission Control, GB200 compute tray network ports),
#: taken as 400 Gb/s NDR like the DGX B200's ConnectX-7 (IB_NDR_BYTES_PER_S).
GB200_SOURCE: str = (
    "NVIDIA DGX Cloud Benchmarking, README.md @ 841f5466cd86b66abd48049e839c563776f6d716 (“Peak Theoretical "
    "Throughput”: GB200 BF16 2450, FP8 4900 TFLOPS; “GB200 Reference Architecture”: 186 GB HBM3e per GPU, memory "
    "bandwidth 8 TB/s per GPU, NVLink 5th generation 1.8 TB/s per GPU); NVIDIA DGX GB200 user guide, Networking "
    "(72 GPUs in one NVLink domain); 4 GPUs and 4 InfiniBand ports per compute tray, 400 Gb/s each (assumed NDR)"
)
GB200_BF16_DENSE_FLOPS: float = 2450e12
GB200_FP8_DENSE_FLOPS: float = 4900e12
GB200_HBM_BYTES_PER_S: float = 8e12
#: GPU memory in the reference architecture's GB; the preset takes it as GiB, as the other presets do.
GB200_MEMORY_GB: float = 186.0
#: GPUs a GB200 NVL72 rack joins in one NVLink domain, and GPUs a compute tray (a node to Slurm) holds.
GB200_NVL72_DOMAIN_GPUS: int = 72
GB200_TRAY_GPUS: int = 4

#: NVIDIA B300 (DGX B300, Blackwell Ultra) and GB300 NVL72, as NVIDIA's DGX Cloud Benchmarking README states them: the
#: peak table gives B300 2,250 and GB300 2,450 TFLOP/s BF16, 4,500 and 4,900 FP8 (dense); the B300 reference
#: architecture 270 GB of HBM3e at 7.7 TB/s per GPU, fifth-generation NVLink at 1.8 TB/s per GPU (both directions
#: added) and 8 x 800 Gb/s compute links a node (one per GPU: 100 GB/s per GPU and direction); the GB300 reference
#: architecture 279 GB of HBM3e at 8 TB/s per GPU and the same NVLink. A GB300 NVL72 rack joins 72 GPUs over 18 trays
#: of 4, as GB200's does; its compute links are taken as 800 Gb/s per GPU like DGX B300's (an assumption: the README
#: gives none for GB300). The README lists GB300's dense BF16 and FP8 peaks equal to GB200's, while Megatron-Bridge's
#: tables measure GB300 faster than GB200 on the same models; the estimate reads the peaks, so it does not see that
#: difference, and its GB300 throughput is the less certain.
B300_SOURCE: str = (
    "NVIDIA DGX Cloud Benchmarking, README.md @ 841f5466cd86b66abd48049e839c563776f6d716 (“Peak Theoretical "
    "Throughput”: B300 BF16 2250, FP8 4500 TFLOPS; “B300 Reference Architecture”: 8x B300 270 GB HBM3e, memory "
    "bandwidth 7.7 TB/s per GPU, NVLink 5th generation 1.8 TB/s per GPU, compute links 8x 800 Gbit/s)"
)
B300_BF16_DENSE_FLOPS: float = 2250e12
B300_FP8_DENSE_FLOPS: float = 4500e12
B300_HBM_BYTES_PER_S: float = 7.7e12
B300_MEMORY_GB: float = 270.0
#: One 800 Gb/s compute link per GPU, each way: 100 GB/s.
NET_800G_PER_GPU_BYTES_PER_S: float = 800e9 / BITS_PER_BYTE
GB300_SOURCE: str = (
    "NVIDIA DGX Cloud Benchmarking, README.md @ 841f5466cd86b66abd48049e839c563776f6d716 (“Peak Theoretical "
    "Throughput”: GB300 BF16 2450, FP8 4900 TFLOPS; “GB300 Reference Architecture”: 279 GB HBM3e per GPU, memory "
    "bandwidth 8 TB/s per GPU, NVLink 5th generation 1.8 TB/s per GPU); 72 GPUs in one NVLink domain over 18 trays of "
    "4, as GB200 NVL72; 800 Gb/s compute links per GPU (assumed, as DGX B300's)"
)
GB300_BF16_DENSE_FLOPS: float = 2450e12
GB300_FP8_DENSE_FLOPS: float = 4900e12
GB300_HBM_BYTES_PER_S: float = 8e12
GB300_MEMORY_GB: float = 279.0

#: Host memory and the host link, for activation offloading (the planner's ``"offload"`` mode). A GB200 superchip
#: pairs one Grace CPU (up to 480 GB of LPDDR5X at up to 512 GB/s) with two B200 GPUs over NVLink-C2C at 900 GB/s,
#: both directions added (NVIDIA GB200 NVL72 product page, specifications table; NVIDIA Grace CPU datasheet). Per GPU
#: that is half the Grace memory, and a copy each way of at most the smaller of C2C's 450 GB/s one way and half the
#: LPDDR5X bandwidth shared by the two GPUs (256 GB/s): 225 GB/s when both GPUs copy at once, as every rank of a
#: data-parallel job does. GB300's superchip is taken as GB200's (same Grace, C2C stated as 900 GB/s: an
#: assumption, some sources quote more). A DGX H100 / H200 / B200 holds 2 TB of system memory for 8 GPUs (DGX
#: datasheets; B200 configurable to 4 TB), each GPU on a PCIe 5.0 x16 link: 32 GT/s x 16 lanes x 128/130 / 8 =
#: 63.0 GB/s each way (PCI-SIG PCIe 5.0 base specification). Between the GPUs and the CPUs sit PCIe switches, each
#: taken here as joining two GPUs (and their network adapters) to the host over one x16 link, so that a GPU gets half
#: of it while its neighbour copies too (an assumption in the DGX A100 / H100 layout, not a datasheet figure; copies
#: reach the theoretical figure only in part, which makes it optimistic as well). Host memory is what the machine
#: has, not what the framework and the OS leave free: the estimate's host check is optimistic by that much.
HOST_MEMORY_SOURCE: str = (
    "NVIDIA GB200 NVL72 specifications (GB200 superchip: Grace CPU with up to 480 GB LPDDR5X at up to 512 GB/s, "
    "NVLink-C2C 900 GB/s bidirectional to its 2 GPUs); NVIDIA DGX H100 / H200 / B200 datasheets (2 TB system memory "
    "per 8 GPUs); PCI-SIG PCIe 5.0 x16 (63.0 GB/s each way), taken as shared by 2 GPUs in a DGX"
)
GRACE_LPDDR5X_GB: float = 480.0
GRACE_LPDDR5X_BYTES_PER_S: float = 512e9
NVLINK_C2C_BIDIRECTIONAL_BYTES_PER_S: float = 900e9
#: GPUs one Grace CPU serves in a GB200 / GB300 superchip.
GRACE_SUPERCHIP_GPUS: int = 2
#: Host memory per GPU of a GB200 / GB300 superchip, GiB (a GB of the datasheet is 10^9 bytes).
GB200_HOST_MEMORY_GIB: float = GRACE_LPDDR5X_GB * 1e9 / GRACE_SUPERCHIP_GPUS / 2**30
#: One GPU's host link each way while its neighbour copies too: min(C2C one way, LPDDR5X bandwidth) / 2.
GB200_HOST_LINK_BYTES_PER_S: float = (
    min(NVLINK_C2C_BIDIRECTIONAL_BYTES_PER_S / 2, GRACE_LPDDR5X_BYTES_PER_S) / GRACE_SUPERCHIP_GPUS
)
DGX_SYSTEM_MEMORY_TB: float = 2.0
DGX_GPUS: int = 8
#: Host memory per GPU of a DGX H100 / H200 / B200, GiB.
DGX_HOST_MEMORY_GIB: float = DGX_SYSTEM_MEMORY_TB * 1e12 / DGX_GPUS / 2**30
#: PCIe 5.0 x16: 32 GT/s x 16 lanes x 128/130 encoding / 8 bits, each way.
PCIE5_X16_BYTES_PER_S: float = 32e9 * 16 * 128 / 130 / 8
#: GPUs taken to share one PCIe switch's x16 link to the host in a DGX (see above).
DGX_GPUS_PER_HOST_LINK: int = 2
#: One DGX GPU's host link each way while every GPU copies: a PCIe 5.0 x16 link shared by two GPUs.
DGX_HOST_LINK_BYTES_PER_S: float = PCIE5_X16_BYTES_PER_S / DGX_GPUS_PER_HOST_LINK

#: CUDA compute capability of each GPU the presets hold (NVIDIA's CUDA GPUs table, developer.nvidia.com/cuda-gpus;
#: Transformer Engine's MXFP8 page names "SM 10.0, SM 10.3" for B200/GB200 and B300/GB300). The engine decides two
#: things on it (:data:`coursekit.specs.FP8_LAYOUT_SOURCE`): whether an FP8 GEMM takes any operand layout, so that no
#: transposed FP8 copy is made, and whether MXFP8 runs at all.
COMPUTE_CAPABILITY_SOURCE: str = (
    "NVIDIA CUDA GPU compute capability table (A100 8.0, A10 8.6, H100/H200/H800 9.0, B200/GB200 10.0, "
    "B300/GB300 10.3); NVIDIA TransformerEngine @ d0067d0da6cb01811b8072a7d304f0e00344ce2b "
    "docs/features/low_precision_training/mxfp8/mxfp8.rst (“Supported devices: SM 10.0, SM 10.3”)"
)
A100_COMPUTE_CAPABILITY: float = 8.0
A10_COMPUTE_CAPABILITY: float = 8.6
H100_COMPUTE_CAPABILITY: float = 9.0
B200_COMPUTE_CAPABILITY: float = 10.0
B300_COMPUTE_CAPABILITY: float = 10.3

#: Jean Zay's A100 nodes (BLOOM, Le Scao et al. 2022, arXiv:2211.05100, §3.4.1): four Omni-Path 100 Gb/s
#: links per 8-GPU node -> 4 x 100e9 / 8 bits / 8 GPUs = 6.25 GB/s per GPU each way.
OMNIPATH_4X100G_PER_GPU_BYTES_PER_S: float = 4 * 100e9 / BITS_PER_BYTE / 8

#: NVIDIA A10 Tensor Core GPU datasheet: BF16 Tensor Core 125 TFLOP/s dense (250 with sparsity),
#: 24 GB GDDR6 at 600 GB/s, PCIe Gen4 x16.
A10_BF16_DENSE_FLOPS: float = 125e12
A10_MEMORY_BYTES_PER_S: float = 600e9
#: PCIe 4.0 x16: 16 GT/s x 16 lanes x 128/130 encoding / 8 bits = 31.5 GB/s each way (PCI-SIG PCIe 4.0
#: base specification); assumes each card gets its full x16 link (no switch oversubscription).
PCIE4_X16_BYTES_PER_S: float = 16e9 * 16 * 128 / 130 / 8
#: 100 Gb/s Ethernet per node shared by 8 cards: 12.5e9 / 8 bytes/s per card each way.
ETHERNET_100G_PER_CARD_BYTES_PER_S: float = 100e9 / 8 / 8

#: Per-ring-step latencies (alpha) of PCIe through the host and of Ethernet: order-of-magnitude
#: assumptions for the alpha-beta model, not datasheet figures (NVLink and InfiniBand use NCCL's
#: modelled values NCCL_RING_NVLINK_LATENCY_S and NCCL_RING_NET_LATENCY_S above).
PCIE_LATENCY_S: float = 5e-6
ETHERNET_LATENCY_S: float = 20e-6

#: Streaming multiprocessors of an H100 SXM5 (and of the H800 SXM, the same die): 132 (NVIDIA, "NVIDIA H100 Tensor
#: Core GPU Architecture" whitepaper, 2022, the H100 SXM5 column of its comparison table).
H100_SMS: int = 132
#: SMs an expert-parallel all-to-all takes from the matmuls while it runs under them: DeepSeek-V3 reports that 20 of
#: the H800's 132 SMs suffice to saturate InfiniBand and NVLink for dispatch and combine (DeepSeek-AI,
#: arXiv:2412.19437, §3.2.2); DeepEP's and Megatron-Core's ``moe_deepep_num_sms`` default is the same 20. NCCL's
#: generic all-to-all may take more, so this is a floor.
EP_ALL_TO_ALL_SMS: int = 20

#: A many-core server CPU treated as one device. An *assumption* for the course, not a datasheet:
#: ~2 TFLOP/s sustained bf16 matmul (AVX-512 BF16 / AMX class), 512 GiB DRAM, 8 channels of DDR5-4800
#: (8 x 38.4 GB/s = 307 GB/s, JEDEC DDR5-4800: 4800 MT/s x 8 bytes per channel).
CPU_BF16_FLOPS: float = 2e12
CPU_MEMORY_GIB: float = 512.0
CPU_DRAM_BYTES_PER_S: float = 8 * 4800e6 * 8

#: Google TPU v4 chip: 275 TFLOP/s peak bf16, the figure PaLM (Chowdhery et al. 2022, arXiv:2204.02311,
#: appendix B) divides by to report MFU; also in Jouppi et al., "TPU v4", ISCA 2023, Table 1.
TPU_V4_BF16_FLOPS: float = 275e12


@dataclass(frozen=True)
class LinkPreset:
    """A named link: bandwidth per GPU and direction, per-hop latency and where both numbers come from.

    Fields:
        name: key in :data:`LINK_PRESETS`.
        label: bilingual short name for controls and legends.
        bandwidth_bytes_per_s: bandwidth per GPU, per direction (unidirectional, all of the GPU's links
            together), > 0.
        latency_s: fixed cost alpha of one hop, >= 0.
        source: citation for both numbers.

    >>> LINK_PRESETS["example"].bandwidth_gib_s, LINK_PRESETS["example"].latency_us
    (100.0, 5.0)

    Taught in: lesson 2 (Q2 communication).
    """

    name: str
    label: Text
    bandwidth_bytes_per_s: float
    latency_s: float
    source: str

    def __post_init__(self) -> None:
        check_number("bandwidth_bytes_per_s", self.bandwidth_bytes_per_s, gt=0)
        check_number("latency_s", self.latency_s, ge=0)

    @property
    def bandwidth_gib_s(self) -> float:
        """Bandwidth per GPU and direction in GiB/s (2**30 bytes per second), the unit of the lesson 2 ledger."""
        return self.bandwidth_bytes_per_s / GIB_BYTES

    @property
    def latency_us(self) -> float:
        """Per-hop latency in microseconds, the unit of the lesson 2 ledger."""
        return self.latency_s * US_PER_S


#: The course's links by name: the course's example link, an NVLink-like intra-node link, an InfiniBand-like
#: cross-node link.
LINK_PRESETS: Mapping[str, LinkPreset] = MappingProxyType(
    {
        preset.name: preset
        for preset in (
            LinkPreset(
                name="example",
                label=Text(zh="课程示例链路（100 GiB/s，5 µs）", en="Course example link (100 GiB/s, 5 µs)"),
                bandwidth_bytes_per_s=EXAMPLE_LINK_BANDWIDTH_GIB_S * GIB_BYTES,
                latency_s=EXAMPLE_LINK_LATENCY_US / US_PER_S,
                source="The course's example link (lesson 2's first ledgers: communication_ledger(256, 1, 100, 5) "
                "and (32, 24, 100, 5)); an illustration, not a product",
            ),
            LinkPreset(
                name="intra_node",
                label=Text(zh="节点内，类 NVLink（H100）", en="Intra-node, NVLink-like (H100)"),
                bandwidth_bytes_per_s=NVLINK4_H100_BYTES_PER_S,
                latency_s=NCCL_RING_NVLINK_LATENCY_S,
                source="NVIDIA H100 datasheet (NVLink 900 GB/s bidirectional, halved); " + NCCL_TUNING_SOURCE,
            ),
            LinkPreset(
                name="cross_node",
                label=Text(zh="跨节点，类 InfiniBand NDR", en="Cross-node, InfiniBand-like (NDR)"),
                bandwidth_bytes_per_s=IB_NDR_BYTES_PER_S,
                latency_s=NCCL_RING_NET_LATENCY_S,
                source="NVIDIA ConnectX-7 / InfiniBand NDR 400 Gb/s per port, one port per GPU; " + NCCL_TUNING_SOURCE,
            ),
        )
    }
)


#: Former preset names, still accepted by :func:`link_preset` and the lesson 2 widget but not offered as choices.
FORMER_LINK_PRESET_NAMES: Mapping[str, str] = MappingProxyType({"seed": "example"})


def link_preset_name(name: str, parameter: str = "name") -> str:
    """The current preset name for ``name``: a key of :data:`LINK_PRESETS`, or a former name mapped to one.

    ``parameter`` is the argument name an error message uses.

    >>> link_preset_name("intra_node")
    'intra_node'
    >>> link_preset_name("nvlink", "link")
    Traceback (most recent call last):
    ...
    ValueError: link = 'nvlink': must be one of 'example', 'intra_node', 'cross_node'.
    """
    check_instance("parameter", parameter, str)  # the name the messages use for ``name``
    if isinstance(name, str) and name in FORMER_LINK_PRESET_NAMES:
        return FORMER_LINK_PRESET_NAMES[name]
    return check_choice(parameter, name, LINK_PRESETS)


def link_preset(name: str) -> LinkPreset:
    """The preset called ``name`` (``"example"``, ``"intra_node"`` or ``"cross_node"``).

    >>> link_preset("cross_node").bandwidth_bytes_per_s / GB_BYTES
    50.0
    >>> link_preset("pcie")
    Traceback (most recent call last):
    ...
    ValueError: name = 'pcie': must be one of 'example', 'intra_node', 'cross_node'.

    Taught in: lesson 2 (Q2 communication).
    """
    return LINK_PRESETS[link_preset_name(name)]


learner_functions(globals())
