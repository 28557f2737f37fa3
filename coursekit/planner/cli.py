"""``python -m coursekit plan``: the decision workbench on the command line.

Prints the funnel (how many candidates each gate removed, in gate order), the assumptions and the
top accepted candidates grouped into ties; ``--explain tp=8,pp=4,dp=4,zero=1,mb=1`` says why one
composition was rejected (or shows its breakdown); ``--json`` prints the full result as JSON;
``--lang zh|en`` picks the language — of coursekit's messages, of argparse's own and of ``--help``.
With ``--model-config FILE.json`` the report starts with the config's keys the planner does not model (a
sliding window, attention and MLP in parallel ...: :func:`coursekit.model_config.config_notes`), each with its
value and what is counted instead; ``--json`` lists them as ``model_config_notes``. ``python -m coursekit.planner``
runs this same command.

Bad arguments — unknown, malformed, out of their documented bounds, or making a search too large —
exit with status 2 and a message naming the argument, never a traceback. Sizes are bounded
(:data:`coursekit.planner.MAX_NODES`, ``MAX_GLOBAL_BATCH``, ``MAX_SEQ_LEN``, ``MAX_SPACE_SIZE``), so
absurd ones are refused at once instead of searched.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

from .._cli import (
    ARGPARSE_ZH,
    EXIT_USAGE,
    LANG_HELP,
    MAX_RESERVE_GIB,
    MAX_TOP,
    NumberArg,
    argparse_language,
    floored,
    number_arg,
    pre_language,
    write_json,
)
from .._validate import check_instance, check_int, learner_functions, plainly_written
from ..capacity import PRECISION_RECIPES
from ..hardware import H100_BF16_DENSE_FLOPS, NCCL_RING_NET_LATENCY_S, NCCL_RING_NVLINK_LATENCY_S
from ..i18n import LANGUAGES, Text, register, tr
from ..specs import (
    ATTENTION_KERNELS,
    DEFAULT_MAX_MICRO_BATCH,
    DEFAULT_MAX_VIRTUAL_STAGES,
    DEFAULT_RECIPE,
    DEFAULT_RUNTIME_RESERVE_GIB,
    EP_A2A_OVERLAP_ON,
    EP_OVERLAP_SCHEDULES,
    FP8_ACTIVATION_CACHES,
    FP8_ONLY_FIELDS,
    FP8_RECIPES,
    FP8_TENSOR_CORE_COMPUTE_CAPABILITY,
    FP8_WEIGHT_CACHE_BYTES,
    MAX_BANDWIDTH_BYTES_PER_S,
    MAX_DEVICE_MEMORY_GIB,
    MAX_LATENCY_S,
    MAX_LORA_RANK,
    MAX_PEAK_FLOPS,
    MAX_WORLD_SIZE,
    MIN_BANDWIDTH_BYTES_PER_S,
    MIN_DEVICE_MEMORY_GIB,
    MIN_PEAK_FLOPS,
    MIN_SHARE,
    MOE_ONLY_FIELDS,
    PLAN_RECOMPUTE_MODES,
    PRECISIONS,
    RECOMPUTE_MODULES,
    _unread_fields,
    unread_recompute_module,
)
from .calibration import EFFICIENCY_CEILING, FP8_MATMUL_SHARE, MOE_LAYER_HOST_S, ceiling_for, fp8_share_for
from .specs import (
    MAX_GLOBAL_BATCH,
    MAX_NODES,
    MAX_SEQ_LEN,
    OVERLAP_DEFAULTS,
    ClusterSpec,
    ModelSpec,
    WorkloadSpec,
)

if TYPE_CHECKING:
    from .result import PlanResult

__all__ = [
    "ARGPARSE_ZH",
    "CLUSTER_USAGE",
    "EXIT_USAGE",
    "GPUS_HELP",
    "NODES_HELP",
    "RESERVE_HELP",
    "add_cluster_arguments",
    "add_nodes_arguments",
    "add_plan_command",
    "argparse_language",
    "cluster_from_args",
    "custom_cluster_values",
    "pre_language",
    "published_run_argv",
    "run_plan",
    "workload_argv",
]

#: Largest link bandwidth a what-if may state, GB/s per GPU (:data:`coursekit.specs.MAX_BANDWIDTH_BYTES_PER_S`).
MAX_LINK_GB_S: float = MAX_BANDWIDTH_BYTES_PER_S / 1e9
#: Smallest link or memory bandwidth, GB/s (:data:`coursekit.specs.MIN_BANDWIDTH_BYTES_PER_S`).
MIN_LINK_GB_S: float = MIN_BANDWIDTH_BYTES_PER_S / 1e9
#: The custom peaks' bounds in TFLOP/s: :class:`coursekit.specs.ClusterSpec`'s, so a flag is refused in its own unit.
_PEAK_TFLOPS_BOUNDS: dict[str, float] = {"ge": MIN_PEAK_FLOPS / 1e12, "le": MAX_PEAK_FLOPS / 1e12}
_LINK_BOUNDS: dict[str, float] = {"ge": MIN_LINK_GB_S, "le": MAX_LINK_GB_S}
#: The latencies' bounds in microseconds: ClusterSpec's 0..MAX_LATENCY_S seconds.
_LATENCY_US_BOUNDS: dict[str, float] = {"ge": 0, "le": MAX_LATENCY_S * 1e6}
#: A custom cluster's flags: (flag, ClusterSpec field, name in messages, bounds). Bandwidths per GPU per direction.
#: The bounds are ClusterSpec's, scaled to the flag's unit.
CUSTOM_CLUSTER_FLAGS: tuple[tuple[str, str, str, dict[str, float]], ...] = (
    (
        "gpu-memory-gib",
        "memory_per_device_gib",
        "gpu_memory_gib",
        {"ge": MIN_DEVICE_MEMORY_GIB, "le": MAX_DEVICE_MEMORY_GIB},
    ),
    ("peak-tflops", "peak_flops", "peak_tflops", _PEAK_TFLOPS_BOUNDS),
    ("peak-fp8-tflops", "peak_flops_fp8", "peak_fp8_tflops", _PEAK_TFLOPS_BOUNDS),
    ("hbm-gb-s", "memory_bandwidth_bytes_per_s", "hbm_gb_s", _LINK_BOUNDS),
    ("gpus-per-node", "gpus_per_node", "gpus_per_node", {"ge": 1, "le": 1024}),
    ("intra-gb-s", "intra_node_bandwidth_bytes_per_s", "intra_gb_s", _LINK_BOUNDS),
    ("inter-gb-s", "inter_node_bandwidth_bytes_per_s", "inter_gb_s", _LINK_BOUNDS),
    ("intra-latency-us", "intra_node_latency_s", "intra_latency_us", _LATENCY_US_BOUNDS),
    ("inter-latency-us", "inter_node_latency_s", "inter_latency_us", _LATENCY_US_BOUNDS),
    ("nvlink-domain-gpus", "nvlink_domain_gpus", "nvlink_domain_gpus", {"ge": 1, "le": MAX_WORLD_SIZE}),
    ("compute-capability", "compute_capability", "compute_capability", {"ge": 1.0, "le": 99.9}),
    (
        "host-memory-gib",
        "host_memory_per_device_gib",
        "host_memory_gib",
        {"ge": MIN_DEVICE_MEMORY_GIB, "le": MAX_DEVICE_MEMORY_GIB},
    ),
    ("host-link-gb-s", "host_link_bandwidth_bytes_per_s", "host_link_gb_s", _LINK_BOUNDS),
)
#: Custom-cluster flags that take a whole number.
_INT_CLUSTER_FLAGS: tuple[str, ...] = ("gpus-per-node", "nvlink-domain-gpus")
#: The cluster in a ``plan`` usage line (training and serving): a preset, or the custom cluster's required flags.
CLUSTER_USAGE: str = (
    "(--cluster CLUSTER | --gpu-memory-gib GIB --peak-tflops T --hbm-gb-s B --gpus-per-node N --intra-gb-s B "
    "--inter-gb-s B)"
)
#: Custom-cluster flags a cluster without ``--cluster`` may leave out: no FP8 peak, NCCL's ring latencies.
OPTIONAL_CUSTOM_FLAGS: tuple[str, ...] = (
    "peak-fp8-tflops",
    "intra-latency-us",
    "inter-latency-us",
    "nvlink-domain-gpus",
    "compute-capability",
    "host-memory-gib",
    "host-link-gb-s",
)
#: The latencies a custom cluster gets without ``--intra-latency-us`` / ``--inter-latency-us``: NCCL's ring latencies
#: (:data:`coursekit.hardware.NCCL_RING_NVLINK_LATENCY_S`, :data:`~coursekit.hardware.NCCL_RING_NET_LATENCY_S`).
DEFAULT_LATENCIES_S: dict[str, float] = {
    "intra_node_latency_s": NCCL_RING_NVLINK_LATENCY_S,
    "inter_node_latency_s": NCCL_RING_NET_LATENCY_S,
}
#: What each custom-cluster flag states (its help, after "custom cluster: ").
CUSTOM_CLUSTER_HELP: dict[str, Text] = {
    "memory_per_device_gib": Text(
        zh="每块 GPU 的显存，GiB：nvidia-smi 显示的总量（MiB）除以 1024（A100 80GB 的 81920 MiB 写 80；"
        "显存按二进制造，不要按 80e9 / 2^30 换算成 74.5）",
        en="memory per GPU, GiB: the total nvidia-smi shows (MiB) divided by 1024 (an A100 80GB's 81920 MiB is 80; "
        "memory is built in binary sizes, so not 80e9 / 2^30 = 74.5)",
    ),
    "peak_flops": Text(zh="每块 GPU 的稠密 bf16 峰值算力，TFLOP/s", en="peak dense bf16 TFLOP/s per GPU"),
    "peak_flops_fp8": Text(
        zh="每块 GPU 的稠密 FP8 峰值算力，TFLOP/s（可选）", en="peak dense FP8 TFLOP/s per GPU (optional)"
    ),
    "memory_bandwidth_bytes_per_s": Text(zh="GPU 显存带宽，GB/s", en="GPU memory bandwidth, GB/s"),
    "gpus_per_node": Text(zh="每个节点的 GPU 数", en="GPUs per node"),
    "intra_node_bandwidth_bytes_per_s": Text(
        zh="节点内每块 GPU 每个方向的带宽（单向），GB/s（数据手册的 NVLink 数字是双向之和，要除以 2：A800 的 400 GB/s "
        "填 200）",
        en="intra-node bandwidth per GPU per direction, GB/s (a datasheet's NVLink figure sums both directions: "
        "divide it by 2, an A800's 400 GB/s is 200)",
    ),
    "inter_node_bandwidth_bytes_per_s": Text(
        zh="跨节点每块 GPU 每个方向的带宽（单向），GB/s（网卡写的是 Gb/s，要除以 8，每节点的总和再除以每节点 GPU 数："
        "每节点 4 × 200 Gb/s、8 张卡填 4 × 200 / 8 / 8 = 12.5）",
        en="inter-node bandwidth per GPU per direction, GB/s (adapters are rated in Gb/s: divide by 8, and a node's "
        "total by its GPUs: 4 × 200 Gb/s per node of 8 GPUs is 4 × 200 / 8 / 8 = 12.5)",
    ),
    "intra_node_latency_s": Text(
        zh=f"节点内环形通信每一步的固定延迟 (alpha)，微秒（可选；默认 NCCL 环形算法的 "
        f"{NCCL_RING_NVLINK_LATENCY_S * 1e6:g}，与 --cluster 一起用时取代预设的值）",
        en=f"intra-node latency of one ring step (alpha), microseconds (optional; default NCCL's ring "
        f"{NCCL_RING_NVLINK_LATENCY_S * 1e6:g}; with --cluster it replaces the preset's)",
    ),
    "nvlink_domain_gpus": Text(
        zh="一个 NVLink 域跨节点连起来的 GPU 数（可选；如 GB200 NVL72 是 72，每个节点 4 张；默认每个节点自成一个域）",
        en="GPUs one NVLink domain joins across nodes (optional; GB200 NVL72: 72, with 4 GPUs per node; default: each "
        "node is its own domain)",
    ),
    "compute_capability": Text(
        zh="GPU 的 CUDA 计算能力 (compute capability)，如 H100 为 9.0、B200 为 10.0、B300 为 10.3（可选；FP8 估计读它："
        "10.x 的 FP8 矩阵乘不需要转置副本，也只有 10.x 能用 --fp8-recipe mxfp8）",
        en="the GPUs' CUDA compute capability, e.g. H100 9.0, B200 10.0, B300 10.3 (optional; the FP8 estimate reads "
        "it: at 10.x FP8 GEMMs need no transposed copies, and only 10.x runs --fp8-recipe mxfp8)",
    ),
    "host_memory_per_device_gib": Text(
        zh="每张 GPU 可用于激活卸载 (activation offloading) 的主机内存，GiB（可选，与 --host-link-gb-s 一起给；"
        "节点的系统内存除以 GPU 数，如 DGX H100 的 2 TB、8 张卡约 232.8）",
        en="host memory per GPU that activation offloading may fill, GiB (optional, together with --host-link-gb-s; "
        "the node's system memory over its GPUs: a DGX H100's 2 TB over 8 GPUs is about 232.8)",
    ),
    "host_link_bandwidth_bytes_per_s": Text(
        zh="每张 GPU 与主机内存之间的单向带宽，GB/s（可选，与 --host-memory-gib 一起给；PCIe 5.0 x16 约 63，"
        "GB200 的 NVLink-C2C 由 2 张卡共用，每张 225）",
        en="bandwidth between one GPU and host memory, one way, GB/s (optional, together with --host-memory-gib; "
        "PCIe 5.0 x16 about 63, a GB200's NVLink-C2C shared by 2 GPUs 225 each)",
    ),
    "inter_node_latency_s": Text(
        zh=f"跨节点环形通信每一步的固定延迟 (alpha)，微秒（可选；默认 NCCL 环形算法的 "
        f"{NCCL_RING_NET_LATENCY_S * 1e6:g}，与 --cluster 一起用时取代预设的值）",
        en=f"inter-node latency of one ring step (alpha), microseconds (optional; default NCCL's ring "
        f"{NCCL_RING_NET_LATENCY_S * 1e6:g}; with --cluster it replaces the preset's)",
    ),
}
#: What a custom-cluster flag's number is in, with a datasheet's figure written in it: the end of its refusal.
CUSTOM_CLUSTER_UNITS: dict[str, Text] = {
    "gpu-memory-gib": Text(
        zh="GiB，nvidia-smi 显示的 MiB 除以 1024：A100 80GB 的卡写 80",
        en="GiB, nvidia-smi's MiB / 1024: an A100 80GB card is 80",
    ),
    "peak-tflops": Text(zh="TFLOP/s，312 TFLOPS 写 312，不写 312e12", en="TFLOP/s, 312 TFLOPS is 312, not 312e12"),
    "peak-fp8-tflops": Text(
        zh="TFLOP/s，1979 TFLOPS 写 1979，不写 1979e12", en="TFLOP/s, 1979 TFLOPS is 1979, not 1979e12"
    ),
    "hbm-gb-s": Text(zh="GB/s，2039 GB/s 写 2039，不写 2039e9", en="GB/s, 2039 GB/s is 2039, not 2039e9"),
    "intra-gb-s": Text(
        zh="每 GPU 单向 GB/s，NVLink 双向 400 GB/s 写 200",
        en="GB/s one way per GPU, NVLink's 400 GB/s both ways is 200",
    ),
    "inter-gb-s": Text(
        zh="每 GPU 单向 GB/s，每节点 4 × 200 Gb/s、8 张卡写 12.5",
        en="GB/s one way per GPU, 4 × 200 Gb/s per node of 8 GPUs is 12.5",
    ),
    "intra-latency-us": Text(zh="微秒，3.4 微秒写 3.4", en="microseconds, 3.4 µs is 3.4"),
    "inter-latency-us": Text(zh="微秒，14 微秒写 14", en="microseconds, 14 µs is 14"),
}
#: Why a custom-cluster flag's floor is where it is: said after the refusal of a value below it (fuzz pass 24).
CUSTOM_CLUSTER_FLOOR_REASONS: dict[str, Text] = {
    "gpu-memory-gib": Text(
        zh=f"{MIN_DEVICE_MEMORY_GIB:g} GiB 约为 1 MiB，比任何 GPU 的显存小几千倍，"
        "课程里最小的 pcie-24g-8 每块也有 24 GiB；更小的数是单位写错了",
        en=f"{MIN_DEVICE_MEMORY_GIB:g} GiB is about 1 MiB, thousands of times below any GPU's memory: the course's "
        "smallest, pcie-24g-8, holds 24 GiB per GPU; a smaller figure is a unit slip",
    ),
}


def _floored(arg: NumberArg, reason: Text | None) -> NumberArg:
    """``arg`` with ``reason`` after a refusal below its floor (:func:`coursekit._cli.floored`), or as it is."""
    return arg if reason is None else floored(arg, reason)


#: The end of ``plan --help``: where the course teaches the command, and what the report says about units.
PLAN_EPILOG: Text = Text(
    zh="课程里的讲解：第 9 课（决策工作台）的“你自己的模型和集群”一节，用同样的字段在笔记本里写 ModelSpec 和 "
    "ClusterSpec。带宽一律按每 GPU 单向计；填的数字像是单位或方向弄错时（跨节点比节点内还快、正好是 NVLink 的"
    "双向数字），"
    "报告在“假设”下面列出提醒。",
    en="Taught in lesson 9 (decision workbench), section “Your own model and cluster”, which writes ModelSpec and "
    "ClusterSpec in a notebook with the same fields. Bandwidths are one way per GPU; when a figure looks like a unit "
    "or direction slip (inter-node faster than intra-node, exactly NVLink's bidirectional figure), the report lists a "
    "note under its assumptions.",
)
#: ``--model-config``'s help, for the training and the serving planner.
MODEL_CONFIG_HELP: Text = Text(
    zh="你自己的模型：一个 Hugging Face 的 config.json（hidden_size、num_hidden_layers 等字段）",
    en="your own model: a Hugging Face config.json (hidden_size, num_hidden_layers, ...)",
)
#: Most multi-token prediction modules ``--mtp-layers`` takes (DeepSeek-V3 trains D = 1; arXiv:2412.19437, §2.2).
MAX_MTP_LAYERS: int = 16
#: Help of ``--nodes`` (training and serving).
NODES_HELP: Text = Text(
    zh=f"节点数（1 到 {MAX_NODES}；GPU 总数也不能超过 {MAX_WORLD_SIZE}）",
    en=f"number of nodes (1 to {MAX_NODES}, and at most {MAX_WORLD_SIZE} GPUs in all)",
)
#: Help of ``--gpus`` (training and serving): the whole cluster's GPUs, as a vendor table states them.
GPUS_HELP: Text = Text(
    zh=f"GPU 总数（1 到 {MAX_WORLD_SIZE}），代替 --nodes：必须是每个节点 GPU 数的倍数（厂商表格常写 GPU 总数；"
    "GB200 NVL72 预设的一个节点只有 4 张）",
    en=f"total GPUs (1 to {MAX_WORLD_SIZE}), instead of --nodes: a multiple of the GPUs per node (vendor tables "
    "state the GPU count; a GB200 NVL72 preset's node holds 4)",
)
#: Help of ``--reserve-gib`` (training and serving).
RESERVE_HELP: Text = Text(
    zh=f"每块 GPU 的运行时预留（runtime reserve：CUDA 上下文、通信缓冲区、内存碎片），GiB"
    f"（默认 {DEFAULT_RUNTIME_RESERVE_GIB:g}）",
    en=f"runtime reserve per GPU (CUDA context, communication buffers, fragmentation), GiB "
    f"(default {DEFAULT_RUNTIME_RESERVE_GIB:g})",
)
#: What a custom cluster's values are multiplied by to get the ClusterSpec's units.
_CUSTOM_SCALE: dict[str, float] = {
    "memory_per_device_gib": 1.0,
    "peak_flops": 1e12,
    "peak_flops_fp8": 1e12,
    "memory_bandwidth_bytes_per_s": 1e9,
    "gpus_per_node": 1,
    "intra_node_bandwidth_bytes_per_s": 1e9,
    "inter_node_bandwidth_bytes_per_s": 1e9,
    "intra_node_latency_s": 1e-6,
    "inter_node_latency_s": 1e-6,
    "nvlink_domain_gpus": 1,
    "compute_capability": 1.0,
    "host_memory_per_device_gib": 1.0,
    "host_link_bandwidth_bytes_per_s": 1e9,
}

register(
    {
        "cli.host_pair": {
            "zh": "给了 {given}，却没有给 {missing}：主机内存和主机链路要么都给，要么都不给（激活卸载两个都要用）",
            "en": "{given} is given without {missing}: give both host figures or neither (activation offloading "
            "needs both)",
        },
        "cli.or_custom": {"zh": "（或自定义集群，还缺：{flags}）", "en": "(or a custom cluster, missing: {flags})"},
        "cli.help_custom": {"zh": "自定义集群：{what}", "en": "custom cluster: {what}"},
        "cli.config_notes": {
            "zh": "模型配置 {path} 中规划器未建模或只部分建模的键（估算按下面所说的计）：",
            "en": "Keys of the model config {path} the planner does not model, or models only in part (the "
            "estimate counts as each says):",
        },
    }
)


def _to_spec_unit(field_name: str, value: float) -> float:
    """A custom-cluster flag's value in ClusterSpec's unit; a latency is divided by 1e6 (3.4 µs is 3.4e-6 s exactly,
    where multiplying by 1e-6 gives 3.3999999999999996e-06)."""
    scale = _CUSTOM_SCALE[field_name]
    return value / round(1 / scale) if scale < 1 else value * scale


def _from_spec_unit(field_name: str, value: float) -> float:
    """A ClusterSpec field's value in its custom-cluster flag's unit."""
    scale = _CUSTOM_SCALE[field_name]
    return value * round(1 / scale) if scale < 1 else value / scale


def _int_list(name: str, low: int, high: int) -> Callable[[str], tuple[int, ...]]:
    def parse(text: str) -> tuple[int, ...]:
        values = []
        for part in text.split(","):
            if not plainly_written(part):  # int() would read "0_1" as 1 and "３" as 3
                raise argparse.ArgumentTypeError(tr("validate.written_number", value=part[:200]))
            try:
                number = int(part)
            except ValueError:
                raise argparse.ArgumentTypeError(tr("cli.not_integer", value=part[:200])) from None
            try:
                values.append(check_int(name, number, ge=low, le=high))
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
        return tuple(values)

    parse.__name__ = name
    return parse


def _choice_list(name: str, choices: Sequence[str]) -> Callable[[str], tuple[str, ...]]:
    def parse(text: str) -> tuple[str, ...]:
        parts = text.split(",")
        for part in parts:
            if part.strip() not in choices:  # shown as typed: an ideographic space is '\u3000', not ''
                raise argparse.ArgumentTypeError(tr("cli.not_choice", value=part[:200], choices=", ".join(choices)))
        return tuple(part.strip() for part in parts)

    parse.__name__ = name
    return parse


def add_plan_command(commands: Any) -> argparse.ArgumentParser:
    """Add the ``plan`` subcommand to ``commands`` (an argparse subparsers action); returns its parser.

    Its help is in the current language: build it after ``--lang`` is applied, inside :func:`argparse_language`.
    """
    required = f"(--model MODEL | --model-config FILE.json) {CLUSTER_USAGE} --global-batch N"
    p: argparse.ArgumentParser = commands.add_parser(
        "plan",
        help=Text(
            zh="搜索所有并行组合，用门槛 (gate) 排除不可行的组合，估算其余组合",
            en="search every parallel composition, gate it and estimate the rest",
        ).render(),
        description=Text(
            zh="决策工作台 (decision workbench)：枚举并行组合，用门槛排除不可行的组合并给出原因，估算其余组合。",
            en="Decision workbench: enumerate compositions, exclude by gates with reasons, estimate the rest.",
        ).render(),
        usage=Text(zh=f"%(prog)s {required} [选项]", en=f"%(prog)s {required} [options]").render(),
        epilog=PLAN_EPILOG.render(),
    )
    _add_model_and_cluster_arguments(p)
    _add_workload_arguments(p)
    _add_estimate_arguments(p)
    _add_search_arguments(p)
    _add_output_arguments(p)
    return p


def model_preset_help() -> str:
    """Help of ``--model``: the model presets' names (training and serving), in the current language."""
    from ..presets import MODELS

    models = ", ".join(sorted(MODELS))
    return Text(zh=f"模型预设：{models}", en=f"model preset: {models}").render()


def _add_model_and_cluster_arguments(p: argparse.ArgumentParser) -> None:
    """``--model`` or ``--model-config``; ``--cluster`` or a custom cluster's flags."""
    from ..presets import MODELS

    which_model = p.add_mutually_exclusive_group(required=True)
    which_model.add_argument(
        "--model",
        choices=sorted(MODELS),
        metavar="MODEL",
        help=model_preset_help(),
    )
    which_model.add_argument("--model-config", metavar="FILE.json", help=MODEL_CONFIG_HELP.render())
    p.add_argument(
        "--dropout",
        type=number_arg(float, "dropout", ge=0, lt=1),
        default=None,
        metavar="P",
        help=Text(
            zh="模型的 dropout 概率，0 <= P < 1，取代预设的值或 config.json 的 dropout 键（缺省时为 0）；"
            "大于 0 时每层要保存 dropout 掩码",
            en="the model's dropout probability, 0 <= P < 1, replacing the preset's or the config.json's dropout "
            "keys (0 when it has none); above 0 each layer saves dropout masks",
        ).render(),
    )
    p.add_argument(
        "--mtp-layers",
        type=number_arg(int, "mtp_layers", ge=0, le=MAX_MTP_LAYERS),
        default=None,
        metavar="N",
        help=Text(
            zh=f"训练时的多 token 预测 (multi-token prediction, MTP) 模块数，0 到 {MAX_MTP_LAYERS}，取代预设的值或 "
            "config.json 的 num_nextn_predict_layers（如 DeepSeek-V3 不带 MTP 训练：--mtp-layers 0；"
            "Megatron-Core 的 --mtp-num-layers）",
            en=f"multi-token prediction (MTP) modules trained beside the model, 0 to {MAX_MTP_LAYERS}, replacing the "
            "preset's or the config.json's num_nextn_predict_layers (e.g. DeepSeek-V3 trained without MTP: "
            "--mtp-layers 0; Megatron-Core's --mtp-num-layers)",
        ).render(),
    )
    add_cluster_arguments(p)


def add_cluster_arguments(p: argparse.ArgumentParser, notes: Mapping[str, Text] | None = None) -> None:
    """``--cluster`` (a preset, not required here) and the custom cluster's flags (:data:`CUSTOM_CLUSTER_FLAGS`),
    the same for training and serving; ``notes`` adds a sentence to the help of the flags it names (serving says
    which one its estimate does not read). :func:`custom_cluster_values` and :func:`cluster_from_args` read them."""
    from ..presets import CLUSTERS

    clusters = ", ".join(sorted(CLUSTERS))
    flags = ", ".join(f"--{flag}" for flag, _, _, _ in CUSTOM_CLUSTER_FLAGS)
    p.add_argument(
        "--cluster",
        choices=sorted(CLUSTERS),
        metavar="CLUSTER",
        help=Text(
            zh=f"集群预设（一个节点）：{clusters}；或用 {flags} 描述你自己的集群",
            en=f"cluster preset (one node): {clusters}; or describe your own with {flags}",
        ).render(),
    )
    for flag, field_name, unit_name, bounds in CUSTOM_CLUSTER_FLAGS:
        note = (notes or {}).get(flag)
        what = CUSTOM_CLUSTER_HELP[field_name].render() + ("" if note is None else note.render())
        p.add_argument(
            f"--{flag}",
            type=_floored(
                number_arg(
                    int if flag in _INT_CLUSTER_FLAGS else float,
                    unit_name,
                    unit=CUSTOM_CLUSTER_UNITS.get(flag),
                    **bounds,
                ),
                CUSTOM_CLUSTER_FLOOR_REASONS.get(flag),
            ),
            default=None,
            help=tr("cli.help_custom", what=what),
        )


def _add_workload_arguments(p: argparse.ArgumentParser) -> None:
    """What is trained or served, and on how many nodes: precision, attention kernel, batch, sequence, recipe."""
    p.add_argument(
        "--precision",
        choices=PRECISIONS,
        default="bf16",
        help=Text(
            zh="矩阵乘的精度（fp8 需要有 FP8 张量核心的 GPU：H100、H200、H800 及 Blackwell 的 B200、B300、"
            "GB200、GB300；A100 没有）",
            en="matmul precision (fp8 needs a GPU with FP8 tensor cores: H100, H200, H800 and Blackwell's B200, "
            "B300, GB200, GB300; not A100)",
        ).render(),
    )
    p.add_argument(
        "--fp8-recipe",
        choices=FP8_RECIPES,
        default=None,  # None: not given (WorkloadSpec's delayed); given at bf16 it is refused (FP8_ONLY_FIELDS)
        help=Text(
            zh="FP8 转换的缩放方式：delayed（延迟缩放，默认）、current（当前缩放，每次转换前多读一遍求 amax；"
            "厂商表格的 FP8-CS）或 mxfp8（每 32 个值一个缩放因子，只在 Blackwell 上；表格的 FP8-MX、MXFP8）",
            en="how FP8 casts are scaled: delayed (the default), current (an extra amax pass before each cast; vendor "
            "tables' FP8-CS) or mxfp8 (one scale per 32 values, Blackwell only; the tables' FP8-MX, MXFP8)",
        ).render(),
    )
    p.add_argument(
        "--attention-kernel",
        choices=ATTENTION_KERNELS,
        default=ATTENTION_KERNELS[0],
        help=Text(
            zh="注意力核心用哪个融合内核，按它在 H100 上测得的速度计：flash-attention-3（默认；在其他设备上沿用它相对"
            "最佳矩阵乘的速度）、cudnn（Transformer Engine 在 H100 上调用的 cuDNN 融合注意力）或 flash-attention-2"
            "（为 Ampere 编写的内核，2023-2024 年的引擎在 H100 上也用它）；后两个只适用于计算能力 9.x 的集群",
            en="the fused kernel that runs attention's core, charged at its speed measured on H100: flash-attention-3 "
            "(the default; on other devices its speed relative to the best matmul is carried over), cudnn (cuDNN's "
            "fused attention, which Transformer Engine calls on H100) or flash-attention-2 (the kernel written for "
            "Ampere, which 2023-2024 engines ran on H100 too); the last two only on clusters of compute capability 9.x",
        ).render(),
    )
    p.add_argument(
        "--fp8-activation-cache",
        choices=FP8_ACTIVATION_CACHES,
        default=None,  # None: not given (WorkloadSpec's transformer-engine); refused at bf16 (FP8_ONLY_FIELDS)
        help=Text(
            zh="FP8 训练为反向传播保存什么：transformer-engine（默认：每个 FP8 线性层保存其 FP8 输入，融合注意力"
            "另存 bf16 输出）或 deepseek-v3（DeepSeek-V3 技术报告 §3.3.4：路由专家的 SwiGLU 输入存为 FP8，配合 "
            "moe_act 重计算其输出；注意力输出只存一份 E5M6）",
            en="what an FP8 run saves for backward: transformer-engine (the default: each FP8 linear layer its FP8 "
            "input, flash attention its bf16 output too) or deepseek-v3 (DeepSeek-V3 report §3.3.4: the routed "
            "experts' SwiGLU input in FP8, its output recomputed with moe_act; the attention output once, in E5M6)",
        ).render(),
    )
    p.add_argument(
        "--fp8-weight-cache",
        action="store_true",
        help=Text(
            zh="FP8 训练时引擎保留 bf16 权重，并在微批次之间缓存每个线性层的 FP8 权重及其转置（Megatron-LM 不加 "
            f"--fp8-param-gather 时），每个线性层参数多占 {FP8_WEIGHT_CACHE_BYTES:.0f} 字节；默认按 FP8 权重取代 bf16 "
            "权重计",
            en="at FP8 the engine keeps bf16 weights and caches each linear layer's FP8 weight and its transpose "
            f"between micro-batches (Megatron-LM without --fp8-param-gather): {FP8_WEIGHT_CACHE_BYTES:.0f} more bytes "
            "per linear-layer weight; by default the FP8 weights replace the bf16 ones",
        ).render(),
    )
    p.add_argument(
        "--moe-probs-in-experts",
        action="store_true",
        help=Text(
            zh="路由概率乘进专家的激活函数，汇合时不保存专家输出（Megatron-Core 0.13 起；默认按保存计）",
            en="the router's probabilities multiply the experts' activation and the combine keeps no copy of their "
            "outputs (Megatron-Core 0.13 on; by default they are kept)",
        ).render(),
    )
    p.add_argument(
        "--no-flash-attention",
        action="store_true",
        help=Text(
            zh="把注意力分数完整存下来（每层 5·a·s²·b 字节），不用融合注意力 (flash attention) 内核",
            en="materialise the attention scores (5·a·s²·b bytes per layer) instead of a fused flash-attention kernel",
        ).render(),
    )
    add_nodes_arguments(p)
    p.add_argument(
        "--global-batch",
        type=number_arg(int, "global_batch", ge=1, le=MAX_GLOBAL_BATCH),
        required=True,
        help=Text(
            zh=f"全局批大小：每步的序列数（1 到 {MAX_GLOBAL_BATCH}）",
            en=f"global batch size: sequences per step (1 to {MAX_GLOBAL_BATCH})",
        ).render(),
    )
    p.add_argument(
        "--seq-len",
        type=number_arg(int, "seq_len", ge=1, le=MAX_SEQ_LEN),
        default=None,
        help=Text(
            zh="每个序列的 token 数（默认：模型训练时的上下文长度）",
            en="tokens per sequence (default: the context length the model was trained with)",
        ).render(),
    )
    p.add_argument(
        "--mode",
        choices=("training", "serving"),
        default="training",
        help=Text(
            zh="training 规划训练（默认）；serving 规划服务，它的选项见 --mode serving --help",
            en="training plans training (the default); serving plans serving, see --mode serving --help for its "
            "options",
        ).render(),
    )
    recipes = ", ".join(sorted(PRECISION_RECIPES))
    p.add_argument(
        "--recipe",
        choices=sorted(PRECISION_RECIPES),
        default=DEFAULT_RECIPE,
        metavar="RECIPE",
        help=Text(
            zh=f"精度方案 (precision recipe)：{recipes}（默认 %(default)s）",
            en=f"precision recipe: {recipes} (default %(default)s)",
        ).render(),
    )


def _add_estimate_arguments(p: argparse.ArgumentParser) -> None:
    """The estimate's assumptions: achievable FLOP/s, communication hidden under compute, runtime reserve."""
    p.add_argument(
        "--mfu",
        type=number_arg(float, "achievable_flops_fraction", ge=MIN_SHARE, le=1),
        default=None,
        help=Text(
            zh="用一个固定的可达比例（峰值 FLOP/s 的几成）代替计算效率模型",
            en="a flat achievable fraction of peak FLOP/s instead of the compute-efficiency model",
        ).render(),
    )
    defaults = ", ".join(f"{dim} {share:g}" for dim, share in OVERLAP_DEFAULTS.items())
    p.add_argument(
        "--overlap",
        type=number_arg(float, "overlap_fraction", ge=0, le=1),
        default=None,
        help=Text(
            zh=f"所有维度统一的通信被计算掩盖的比例（默认按维度：{defaults}）",
            en=f"one share of communication hidden under compute for every dimension (default: per dimension, "
            f"{defaults})",
        ).render(),
    )
    tp_note = Text(
        zh="：引擎的通信-矩阵乘重叠，只在序列并行下运行；没有这种重叠的引擎设 0",
        en=": the engine's comm-GEMM overlap, which runs only with sequence parallelism; 0 for an engine without it",
    )
    ep_note = Text(
        zh=f"；Megatron-Core 的 1F1B 全对全重叠 (--overlap-moe-expert-parallel-comm) 实测藏住 {EP_A2A_OVERLAP_ON:g}，"
        "DualPipe 取 1",
        en=f"; Megatron-Core's 1F1B all-to-all overlap (--overlap-moe-expert-parallel-comm) was measured to hide "
        f"{EP_A2A_OVERLAP_ON:g}, DualPipe 1",
    )
    notes = {"tp": tp_note, "ep": ep_note}
    for dim, share in OVERLAP_DEFAULTS.items():
        name = dim.upper()
        note_zh, note_en = (notes[dim].zh, notes[dim].en) if dim in notes else ("", "")
        p.add_argument(
            f"--overlap-{dim}",
            type=number_arg(float, f"overlap_{dim}", ge=0, le=1),
            default=None,
            help=Text(
                zh=f"{name} 通信被计算掩盖的比例（默认 {share:g}{note_zh}）",
                en=f"share of {name} communication hidden under compute (default {share:g}{note_en})",
            ).render(),
        )
    p.add_argument(
        "--reserve-gib",
        type=number_arg(float, "runtime_reserve_gib", ge=0, le=MAX_RESERVE_GIB),
        default=None,
        help=RESERVE_HELP.render(),
    )


def _add_search_arguments(p: argparse.ArgumentParser) -> None:
    """What the search enumerates: ZeRO stages, recompute modes, micro-batch sizes, pipeline edges, and a what-if."""
    p.add_argument(
        "--zero",
        type=_int_list("zero_stages", 0, 3),
        default=None,
        help=Text(zh="要搜索的 ZeRO 阶段，例如 0,1,3", en="ZeRO stages, e.g. 0,1,3").render(),
    )
    p.add_argument(
        "--recompute",
        type=_choice_list("recompute_modes", PLAN_RECOMPUTE_MODES),
        default=None,
        help=Text(
            zh="要搜索的激活重计算模式，例如 selective,full；offload 是不重计算、把部分层的激活卸载到主机内存"
            "（集群要给出主机内存和主机链路）",
            en="recompute modes, e.g. selective,full; offload keeps every activation but moves some layers' to host "
            "memory (the cluster must state its host memory and host link)",
        ).render(),
    )
    p.add_argument(
        "--recompute-modules",
        type=_choice_list("recompute_modules", RECOMPUTE_MODULES),
        default=None,
        help=Text(
            zh="在重计算模式之上再做的模块级重计算（Megatron-Core 的 --recompute-modules），例如 layernorm,moe_act；"
            "可选 " + ", ".join(RECOMPUTE_MODULES),
            en="module-level recomputation on top of the recompute mode (Megatron-Core's --recompute-modules), e.g. "
            "layernorm,moe_act; any of " + ", ".join(RECOMPUTE_MODULES),
        ).render(),
    )
    p.add_argument(
        "--max-micro-batch",
        type=number_arg(int, "max_micro_batch", ge=1, le=4096),
        default=None,
        help=Text(
            zh=f"搜索的最大微批次大小，单位为序列（默认 {DEFAULT_MAX_MICRO_BATCH}）",
            en=f"largest micro-batch size searched, in sequences (default {DEFAULT_MAX_MICRO_BATCH})",
        ).render(),
    )
    p.add_argument(
        "--max-virtual-stages",
        type=number_arg(int, "max_virtual_stages", ge=1, le=1024),
        default=None,
        help=Text(
            zh="搜索的最大虚拟流水线段数（交错调度 (interleaved schedule) 中每个设备的模型块数，"
            f"Megatron 的 VP）；1 表示不交错（默认 {DEFAULT_MAX_VIRTUAL_STAGES}）",
            en="largest number of model chunks per pipeline device searched (the interleaved schedule's virtual "
            f"stages, Megatron's VP); 1 turns interleaving off (default {DEFAULT_MAX_VIRTUAL_STAGES})",
        ).render(),
    )
    p.add_argument(
        "--edge-layers",
        type=number_arg(int, "pipeline_edge_layers", ge=0, le=1 << 16),  # WorkloadSpec's bound
        default=None,
        help=Text(
            zh="从第一个和最后一个流水线阶段各拿掉的层数（Llama 3 405B：1；0 表示从不）；默认：只在它能把"
            "不均匀的切分变均匀时取 1（如 Megatron-Core 的 --account-for-embedding-in-pipeline-split 与 "
            "--account-for-loss-in-pipeline-split）",
            en="layers taken off the first and last pipeline stage (Llama 3 405B: 1; 0 never); default: 1 only "
            "where it evens a split that is otherwise uneven (as Megatron-Core's "
            "--account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split do)",
        ).render(),
    )
    p.add_argument(
        "--last-edge-layers",
        type=number_arg(int, "pipeline_last_edge_layers", ge=0, le=1 << 16),  # WorkloadSpec's bound
        default=None,
        help=Text(
            zh="只从最后一个流水线阶段拿掉的层数（输出层、损失与多 token 预测 (MTP) 块；Megatron-Bridge 的 "
            "DeepSeek-V3 在 16 个阶段上：3，配 --edge-layers 0）；默认与 --edge-layers 相同；两者都不给时，"
            "带 MTP 模块的模型首阶段取 0、末阶段取 1 + 2·模块数（一个模块为 3）",
            en="layers taken off the last pipeline stage alone (the output layer, the loss and a multi-token "
            "prediction block; Megatron-Bridge's DeepSeek-V3 on 16 stages: 3, with --edge-layers 0); default: the "
            "same as --edge-layers; with neither given, a model with MTP modules takes 0 on the first stage and "
            "1 + 2·modules on the last (3 for one module)",
        ).render(),
    )
    p.add_argument(
        "--pipeline-uneven-chunks",
        action="store_true",
        help=Text(
            zh="交错调度的各模型块可放任意层数（Megatron-Core 手写的 --pipeline-model-parallel-layout，或 PyTorch 的 "
            "torch.distributed.pipelining）；默认每个阶段的层数要能被 v 整除",
            en="the interleaved schedule's model chunks may hold any number of layers (Megatron-Core's hand-written "
            "--pipeline-model-parallel-layout, or PyTorch's torch.distributed.pipelining); by default v divides "
            "every stage's layers",
        ).render(),
    )
    p.add_argument(
        "--ep-node-limit",
        type=number_arg(int, "ep_node_limit", ge=1, le=MAX_NODES),
        default=None,
        help=Text(
            zh="按节点限制的路由：每个 token 最多发往这么多个其他节点（DeepSeek-V3：4；默认不限）",
            en="node-limited routing: each token reaches at most this many other nodes (DeepSeek-V3: 4; default: "
            "no limit)",
        ).render(),
    )
    p.add_argument(
        "--ep-dedup-per-node",
        action="store_true",
        help=Text(
            zh="专家并行 (EP) 的全对全每个目标节点只发一次 token，再在节点内经 NVLink 分发（DeepSeek-V3、DeepEP）",
            en="expert parallelism's (EP) all-to-all sends a token once per target node, which fans it out over "
            "NVLink (DeepSeek-V3, DeepEP)",
        ).render(),
    )
    p.add_argument(
        "--ep-fp8-dispatch",
        action="store_true",
        help=Text(
            zh="EP 的分发 (dispatch) 与专家下投影 (down projection) 之前的激活梯度用 FP8 发送，其余用 bf16"
            "（DeepSeek-V3）",
            en="EP's dispatch and the activation gradient before the down-projection go in FP8, the rest in bf16 "
            "(DeepSeek-V3)",
        ).render(),
    )
    p.add_argument(
        "--ep-overlap-schedule",
        choices=EP_OVERLAP_SCHEDULES,
        default=None,
        help=Text(
            zh="掩盖 EP 全对全的调度：megatron（默认；流水线不交错或完全重计算时不掩盖）或 dualpipe",
            en="the schedule that hides EP's all-to-all: megatron (the default; none hides with a non-interleaved "
            "pipeline or under full recomputation) or dualpipe",
        ).render(),
    )
    p.add_argument(
        "--efficiency-ceiling",
        type=number_arg(float, "efficiency_ceiling", ge=MIN_SHARE, le=1),
        default=None,
        help=Text(
            zh=f"计算效率模型的上限：最大的矩阵乘能达到的峰值比例（默认：按设备标定，A100 为 {EFFICIENCY_CEILING:g}、"
            f"H100 为 {ceiling_for(H100_BF16_DENSE_FLOPS):.3f}；可用你自己实测的值）",
            en="the compute-efficiency model's ceiling: the share of peak the largest matmuls reach (default: "
            f"calibrated per device, {EFFICIENCY_CEILING:g} on A100 and {ceiling_for(H100_BF16_DENSE_FLOPS):.3f} on "
            "H100; set it from your own measurement)",
        ).render(),
    )
    p.add_argument(
        "--moe-layer-host-s",
        type=number_arg(float, "moe_layer_host_s", ge=0, le=1),
        default=None,
        help=Text(
            zh="主机发射一个 MoE 层（一个微批次的前向加反向）所需的秒数；GPU 上更短的层要等它"
            f"（默认：标定值 {MOE_LAYER_HOST_S:g}；0 表示不受主机限制，例如整层用 CUDA graph）",
            en="seconds the host takes to launch one MoE layer's forward and backward of one micro-batch; a layer "
            f"shorter on the GPU waits for it (default: the calibrated {MOE_LAYER_HOST_S:g}; 0 for no host limit, "
            "e.g. a whole layer in a CUDA graph)",
        ).render(),
    )
    p.add_argument(
        "--fp8-matmul-share",
        type=number_arg(float, "fp8_matmul_share", ge=MIN_SHARE, le=1),
        default=None,
        help=Text(
            zh="FP8 线性层矩阵乘保留 FP8 峰值翻倍所带来提速的比例，取 (0, 1]（默认：在 H100 上标定的 "
            f"{FP8_MATMUL_SHARE:g}，按实测的 FP8/bf16 最佳矩阵乘比例换算到所用设备，"
            f"B200 级为 {fp8_share_for(2250e12):.3f}；"
            "1 表示按规格表的翻倍计；只在 --precision fp8 时起作用）",
            en="share of the speed-up the doubled FP8 peak promises that the FP8 linear layers' matmuls keep, in "
            f"(0, 1] (default: {FP8_MATMUL_SHARE:g}, calibrated on H100 and carried to the device by its measured "
            f"FP8/bf16 best-matmul ratio, {fp8_share_for(2250e12):.3f} on a B200-class device; 1 takes the "
            "datasheet's doubling; matters only with --precision fp8)",
        ).render(),
    )
    p.add_argument(
        "--lora-rank",
        type=number_arg(int, "lora_rank", ge=1, le=MAX_LORA_RANK),
        default=None,
        help=Text(
            zh="低秩适配 (LoRA) 微调：冻结全部权重，只训练每个线性层旁秩为 R 的低秩适配器"
            "（没有被冻结权重的梯度、优化器状态和权重梯度矩阵乘；默认：训练全部权重）",
            en="LoRA fine-tuning: every weight frozen, only a rank-R low-rank adapter beside each linear layer trains "
            "(no gradients, optimizer states or weight-gradient matmuls for the frozen weights; default: every "
            "weight trains)",
        ).render(),
        metavar="R",
    )
    p.add_argument(
        "--max-cp",
        type=number_arg(int, "max_cp", ge=1, le=1 << 20),
        default=None,
        help=Text(
            zh="搜索的最大上下文并行 (context parallelism, CP) 度；没有 CP 的引擎填 1（默认：不限）",
            en="largest context-parallel (CP) degree searched; 1 for an engine without CP (default: no bound)",
        ).render(),
    )
    p.add_argument(
        "--no-sequence-parallel",
        action="store_true",
        help=Text(
            zh="关闭 Megatron 的序列并行 (sequence parallelism)", en="turn Megatron sequence parallelism off"
        ).render(),
    )
    p.add_argument(
        "--inter-node-gb-s",
        type=number_arg(float, "inter_node_gb_s", unit=CUSTOM_CLUSTER_UNITS["inter-gb-s"], **_LINK_BOUNDS),
        default=None,
        help=Text(
            zh="假设分析 (what-if)：跨节点每块 GPU 的带宽，GB/s，单向",
            en="what-if: inter-node bandwidth per GPU, GB/s, unidirectional",
        ).render(),
    )


def _add_output_arguments(p: argparse.ArgumentParser) -> None:
    """What is printed, and in which language."""
    p.add_argument(
        "--top",
        type=number_arg(int, "top", ge=0, le=MAX_TOP),
        default=5,
        help=Text(
            zh="显示多少个通过门槛的候选（默认 %(default)s）", en="accepted candidates to show (default %(default)s)"
        ).render(),
    )
    p.add_argument(
        "--explain",
        metavar="DEGREES",
        default=None,
        help=Text(
            zh="说明一个组合为何被拒绝（或给出它的明细），例如 tp=8,pp=4,dp=4,zero=1,mb=1",
            en="say why one composition was rejected (or show its breakdown), e.g. tp=8,pp=4,dp=4,zero=1,mb=1",
        ).render(),
    )
    p.add_argument(
        "--layout",
        metavar="DEGREES",
        default=None,
        help=Text(
            zh="检查一个布局（例如论文或厂商表格里的 tp=4,pp=4,cp=2,dp=2）：在具有这些并行度的组合中"
            "找出通过门槛且估算最快的，给出它的名次、并列组和相对最快候选的倍数；没写出的 CP、EP 取 1、专家 TP 取 TP，"
            "其余（DP、交错段数、ZeRO、微批次、重计算）取任意值；表格的栏名也可以用：vp 即 v，mbs 即 mb，"
            "fsdp=1 即 zero=3，fsdp=N（N >= 2，表格印的 FSDP 分片组大小）即 zero=3 且 dp=N；"
            '各项之间用逗号、分号或空格分隔（如 "TP=4 PP=8 VP=4"）',
            en="check a layout (e.g. a paper's or a vendor table's tp=4,pp=4,cp=2,dp=2): the fastest accepted "
            "composition with these degrees, its rank, tie group and ratio to the fastest; CP and EP not given are 1 "
            "and expert TP is TP, the rest (DP, interleaving, ZeRO, micro-batch, recomputation) take any value; a "
            "table's column names work too: vp is v, mbs is mb, fsdp=1 is zero=3, fsdp=N (N >= 2, a table's FSDP "
            "sharding group size) is zero=3 with dp=N; items are separated by commas, semicolons or spaces (e.g. "
            '"TP=4 PP=8 VP=4")',
        ).render(),
    )
    p.add_argument(
        "--json", action="store_true", help=Text(zh="以 JSON 打印完整结果", en="print the full result as JSON").render()
    )
    p.add_argument(
        "--all",
        action="store_true",
        help=Text(
            zh="与 --json 一起用：包含每个被拒绝的候选（没有 --json 时拒绝）",
            en="with --json: include every rejected candidate (refused without --json)",
        ).render(),
    )
    p.add_argument("--lang", choices=LANGUAGES, default=None, help=LANG_HELP.render())


# MOE_ONLY_FIELDS and FP8_ONLY_FIELDS live in coursekit.specs (plan() refuses or warns about them too)


def _flag_of(field_name: str) -> str:
    return "--" + field_name.replace("_", "-")


def unread_fields(workload: WorkloadSpec, model: ModelSpec) -> tuple[str, ...]:
    """The fields of ``workload`` set away from their default that no answer for ``model`` reads: the MoE-only
    fields on a dense model, the FP8-only fields when the precision is not FP8.

    >>> from coursekit.presets import MODELS
    >>> unread_fields(WorkloadSpec(global_batch=8, moe_probs_in_experts=True), MODELS["llama3-8b"])
    ('moe_probs_in_experts',)
    >>> unread_fields(WorkloadSpec(global_batch=8, moe_probs_in_experts=True), MODELS["mixtral-8x7b"])
    ()
    """
    check_instance("workload", workload, WorkloadSpec)
    check_instance("model", model, ModelSpec)
    return _unread_fields(workload, model)


def _refuse_unread_flags(args: argparse.Namespace, parser: argparse.ArgumentParser, model: ModelSpec) -> None:
    """A flag given for a model or precision it does not apply to changes nothing: exit status 2 naming it and why
    (a value no answer reads is refused rather than dropped); ``--all`` without ``--json`` likewise."""
    check_all_with_json(args, parser)
    for field_name in () if model.is_moe else MOE_ONLY_FIELDS:
        if getattr(args, field_name) not in (None, False):
            _fail(parser, tr("cli.moe_only_flag", flag=_flag_of(field_name), model=model.name))
    for field_name in () if args.precision == "fp8" else FP8_ONLY_FIELDS:
        if getattr(args, field_name) not in (None, False):
            _fail(parser, tr("cli.fp8_only_flag", flag=_flag_of(field_name), precision=args.precision))
    if args.recompute_modules:
        modes = PLAN_RECOMPUTE_MODES if args.recompute is None else tuple(args.recompute)
        modules = tuple(args.recompute_modules)
        why = unread_recompute_module(modules, modes, model, "--recompute-modules", "--recompute full")
        if why is not None:
            _fail(parser, why)


def check_all_with_json(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """``--all`` adds the rejected candidates to the JSON: without ``--json`` it would do nothing, so exit status 2
    (``plan`` and ``plan --mode serving``)."""
    if args.all and not args.json:
        _fail(parser, tr("cli.all_needs_json"))


def _fail(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """Print the usage and ``prog: error: message`` (current language) to stderr; exit with status 2,
    as argparse does for the errors it finds itself."""
    parser.print_usage(sys.stderr)
    sys.stderr.write(tr("cli.error", prog=parser.prog, message=message) + "\n")
    raise SystemExit(EXIT_USAGE)


#: ``plan``'s optional flags and the WorkloadSpec field each sets when given.
_WORKLOAD_FLAGS: tuple[tuple[str, str], ...] = (
    ("mfu", "achievable_flops_fraction"),
    ("overlap", "overlap_fraction"),
    ("reserve_gib", "runtime_reserve_gib"),
    ("zero", "zero_stages"),
    ("recompute", "recompute_modes"),
    ("recompute_modules", "recompute_modules"),
    ("max_micro_batch", "max_micro_batch"),
    ("max_cp", "max_cp"),
    ("max_virtual_stages", "max_virtual_stages"),
    ("edge_layers", "pipeline_edge_layers"),
    ("last_edge_layers", "pipeline_last_edge_layers"),
    ("ep_node_limit", "ep_node_limit"),
    ("ep_overlap_schedule", "ep_overlap_schedule"),
    ("efficiency_ceiling", "efficiency_ceiling"),
    ("moe_layer_host_s", "moe_layer_host_s"),
    ("fp8_matmul_share", "fp8_matmul_share"),
    ("lora_rank", "lora_rank"),
    *((f"overlap_{dim}", f"overlap_{dim}") for dim in OVERLAP_DEFAULTS),
)


#: ``plan``'s flags for the WorkloadSpec fields :data:`_WORKLOAD_FLAGS` leaves out: (field, flag, kind), where a
#: ``"value"`` flag takes the field's value and an ``"on"`` / ``"off"`` flag is given when the field is True / False.
_OTHER_WORKLOAD_FLAGS: tuple[tuple[str, str, str], ...] = (
    ("seq_len", "--seq-len", "value"),
    ("recipe", "--recipe", "value"),
    ("precision", "--precision", "value"),
    ("fp8_recipe", "--fp8-recipe", "value"),
    ("fp8_weight_cache", "--fp8-weight-cache", "on"),
    ("fp8_activation_cache", "--fp8-activation-cache", "value"),
    ("sequence_parallel", "--no-sequence-parallel", "off"),
    ("flash_attention", "--no-flash-attention", "off"),
    ("attention_kernel", "--attention-kernel", "value"),
    ("moe_probs_in_experts", "--moe-probs-in-experts", "on"),
    ("ep_dedup_per_node", "--ep-dedup-per-node", "on"),
    ("ep_fp8_dispatch", "--ep-fp8-dispatch", "on"),
    ("pipeline_uneven_chunks", "--pipeline-uneven-chunks", "on"),
)
#: WorkloadSpec fields no ``plan`` flag sets: the batch (``--global-batch``, always given), the mode (training
#: here; ``--mode serving`` has its own flags) and what only serving reads.
_NOT_WORKLOAD_FLAGS: tuple[str, ...] = ("global_batch", "mode", "output_tokens")


def _flag_value(value: Any) -> str:
    """A field's value as its flag takes it: tuples comma-joined, floats exactly (``repr``)."""
    if isinstance(value, tuple):
        return ",".join(_flag_value(item) for item in value)
    return repr(value) if isinstance(value, float) else str(value)


def workload_argv(workload: WorkloadSpec, model: ModelSpec | None = None) -> list[str]:
    """The ``python -m coursekit plan`` flags that describe a training ``workload``: ``--global-batch`` and a flag
    for every field that differs from WorkloadSpec's default (the command line reads them back into an equal
    WorkloadSpec). ValueError for a serving workload (its flags are ``--mode serving``'s). With ``model``, the fields
    no answer for it reads (:func:`unread_fields`, which the command line refuses) are left out.

    >>> from coursekit.planner import WorkloadSpec
    >>> workload_argv(WorkloadSpec(global_batch=512, seq_len=8192, precision="fp8", zero_stages=(0, 1)))
    ['--global-batch', '512', '--seq-len', '8192', '--precision', 'fp8', '--zero', '0,1']
    """
    from dataclasses import fields

    from ..specs import type_error

    if not isinstance(workload, WorkloadSpec):
        raise type_error("workload", workload, "WorkloadSpec")
    if workload.mode != "training":
        raise ValueError(tr("cli.workload_argv_training", mode=workload.mode))
    if model is not None and not isinstance(model, ModelSpec):
        raise type_error("model", model, "ModelSpec")
    defaults = WorkloadSpec(global_batch=workload.global_batch)
    unread = () if model is None else unread_fields(workload, model)
    flag_of = {field_name: "--" + flag.replace("_", "-") for flag, field_name in _WORKLOAD_FLAGS}
    argv = ["--global-batch", str(workload.global_batch)]
    for name, flag, kind in _OTHER_WORKLOAD_FLAGS:
        value = getattr(workload, name)
        if value != getattr(defaults, name) and name not in unread:
            argv += [flag] if kind in ("on", "off") else [flag, _flag_value(value)]
    for item in fields(WorkloadSpec):
        value = getattr(workload, item.name)
        if item.name in flag_of and value != getattr(defaults, item.name) and item.name not in unread:
            argv += [flag_of[item.name], _flag_value(value)]
    return argv


def published_run_argv(run: object) -> list[str]:
    """The ``python -m coursekit`` arguments that check a published run (a :class:`coursekit.presets.PublishedRun`)
    on the command line: its model (a preset; ValueError for a model of your own, which the command line reads from
    a config.json), its cluster (a preset, or a one-node ClusterSpec as the custom-cluster flags) and nodes,
    :func:`workload_argv` of its workload (batch, sequence and every option it states) and ``--layout`` with its
    published degrees. The layout's rank, tie group and ratio to
    the best are :func:`coursekit.planner.compare_published`'s.

    >>> from coursekit.published_runs import all_published_runs
    >>> run = next(r for r in all_published_runs() if r.name == "Megatron-Core Mixtral 8x7B (MoE), 4K, 64 H100")
    >>> print(" ".join(published_run_argv(run)))  # doctest: +NORMALIZE_WHITESPACE
    plan --model mixtral-8x7b --cluster h100-8 --nodes 8 --global-batch 256 --seq-len 4096 --recipe megatron-bf16
    --zero 1 --max-micro-batch 1 --layout tp=1,cp=1,pp=4,dp=16,ep=8
    """
    from ..presets import MODELS, PublishedRun
    from .validation import published_degrees

    published_degrees(run)  # checks the type
    assert isinstance(run, PublishedRun)
    degrees = dict(run.degrees)  # as stated: --layout applies the expert-TP default as compare_published does
    model = run.model if isinstance(run.model, str) else next((k for k, m in MODELS.items() if m == run.model), None)
    if model is None:  # a model of your own: the command line reads it from a config.json (--model-config)
        raise ValueError(tr("cli.published_run_preset", name=run.name[:200]))
    layout = ",".join(f"{key}={value}" for key, value in degrees.items())
    head = ["plan", "--model", model, *_cluster_argv(run.cluster), "--nodes", str(run.nodes)]
    # an engine setting the run states for MoE layers (Megatron-Bridge's probabilities in the experts) is left out
    # for a dense model: the command line refuses a flag that changes nothing
    return [*head, *workload_argv(run.workload(), MODELS[model]), "--layout", layout]


def _cluster_argv(cluster: str | ClusterSpec) -> list[str]:
    """``--cluster NAME``, or a one-node ClusterSpec of your own as the custom-cluster flags (a latency only when it
    is not the command line's default, NCCL's ring latency)."""
    if isinstance(cluster, str):
        return ["--cluster", cluster]
    argv = []
    for flag, field_name, _, _ in CUSTOM_CLUSTER_FLAGS:
        value = getattr(cluster, field_name)
        if value is not None and value != DEFAULT_LATENCIES_S.get(field_name):
            scaled = _from_spec_unit(field_name, value)
            argv += [f"--{flag}", str(int(scaled)) if flag in _INT_CLUSTER_FLAGS else repr(float(scaled))]
    return argv


register(
    {
        "cli.inter_twice": {
            "zh": "--inter-gb-s {custom:g} 与 --inter-node-gb-s {what_if:g} 都设定跨节点带宽：只给其中一个。",
            "en": "--inter-gb-s {custom:g} and --inter-node-gb-s {what_if:g} both set the inter-node bandwidth: give "
            "one of them.",
        },
        "cli.ceiling_with_mfu": {
            "zh": "--mfu {mfu:g} 给每个矩阵乘设定同一个峰值占比，效率模型不再使用，会让 --efficiency-ceiling "
            "{ceiling:g} 不起作用：只给其中一个。",
            "en": "--mfu {mfu:g} sets one share of peak for every matmul instead of the efficiency model, so "
            "--efficiency-ceiling {ceiling:g} would be ignored: give one of them.",
        },
        "cli.overlap_twice": {
            "zh": "--overlap {all:g} 为每个维度设定被计算掩盖的通信比例，会让 --overlap-{dim} {value:g} 不起作用："
            "只给其中一个。",
            "en": "--overlap {all:g} sets the share of communication hidden under compute for every dimension, so "
            "--overlap-{dim} {value:g} would be ignored: give one of them.",
        },
        "cli.gpus_not_whole_nodes": {
            "zh": "--gpus = {value}：GPU 总数必须是每个节点 GPU 数 ({per_node}) 的倍数，集群由整个节点组成；"
            "写 {per_node} 的倍数，或用 --nodes 给出节点数。",
            "en": "--gpus = {value}: the total GPUs must be a multiple of the GPUs per node ({per_node}), since a "
            "cluster is made of whole nodes; give a multiple of {per_node}, or the node count with --nodes.",
        },
        "cli.published_run_preset": {
            "zh": "已发表训练 {name!r} 的模型不是预设：命令行要用 --model-config 读一个 config.json，请对它的 "
            "ModelSpec 直接调用 plan 与 check_layout",
            "en": "published run {name!r} has a model that is not a preset: the command line reads one with "
            "--model-config from a config.json; call plan and check_layout on its ModelSpec directly",
        },
        "cli.moe_only_flag": {
            "zh": "{flag}：{model} 是稠密模型（没有路由专家），这个设置不会改变任何结果；"
            "它只适用于混合专家 (MoE) 模型。",
            "en": "{flag}: {model} is a dense model (no routed experts), so this setting would change nothing; it "
            "applies to mixture-of-experts (MoE) models only.",
        },
        "cli.fp8_only_flag": {
            "zh": "{flag}：只有 FP8 训练会用到它（--precision fp8），在 --precision {precision} 下它不会改变任何结果。",
            "en": "{flag}: only an FP8 run reads it (--precision fp8), so at --precision {precision} it would change "
            "nothing.",
        },
        "cli.all_needs_json": {
            "zh": "--all 只影响 JSON 输出（加入被拒绝的项），所以要与 --json 一起用：加上 --json，或去掉 --all。",
            "en": "--all only changes the JSON output (it adds what was rejected), so it needs --json: add --json or "
            "drop --all.",
        },
        "cli.degrees_empty": {
            "zh": "{value!r} 没有写出任何并行度：至少写一个 键=值，例如 tp=8,pp=4",
            "en": "{value!r} names no degree: give at least one key=value, e.g. tp=8,pp=4",
        },
        "cli.workload_argv_training": {
            "zh": "workload.mode = {mode!r}：只能为训练负载生成 plan 的参数（服务的参数见 --mode serving --help）",
            "en": "workload.mode = {mode!r}: plan's flags describe training workloads only (serving's are those of "
            "--mode serving --help)",
        },
    }
)


def run_plan(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run ``plan`` for parsed ``args``; every bad value ends as exit status 2 with a message, no traceback."""
    from .search import plan

    degrees = _degrees_flag(args, parser, "explain")
    layout = _degrees_flag(args, parser, "layout")
    model, notes = model_from_args(args, parser)
    _refuse_unread_flags(args, parser, model)
    custom = _custom_cluster_values(args, parser)
    try:
        cluster = cluster_from_args(args, custom)
        result = plan(model, cluster, _workload(args))
        explained = result.explain(degrees) if degrees is not None else None
        checked = result.check_layout(layout) if layout is not None else None
    except (TypeError, ValueError) as exc:
        return _fail(parser, str(exc))
    return _print_result(args, result, explained, checked, notes)


def _degrees_flag(args: argparse.Namespace, parser: argparse.ArgumentParser, flag: str) -> dict[str, Any] | None:
    """The degrees ``--explain`` or ``--layout`` (``flag``) names (None without it); a malformed one ends as exit
    status 2."""
    from .space import parse_degrees

    text = getattr(args, flag)
    if text is None:
        return None
    try:
        degrees = parse_degrees(text, name="degrees")
        if not degrees:  # an empty value (an unset shell variable, say) would otherwise ask about the defaults
            raise ValueError(tr("cli.degrees_empty", value=text))
        return degrees
    except (TypeError, ValueError) as exc:
        _fail(parser, tr("argparse.argument") % {"argument_name": f"--{flag}", "message": exc})


def model_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple[ModelSpec, tuple[Text, ...]]:
    """The ``--model`` preset, or the model ``--model-config`` describes (a bad file ends as exit status 2) with the
    notes on the config's keys it does not model (:func:`coursekit.model_config.config_notes`); ``--dropout``
    and ``--mtp-layers`` replace the model's dropout and multi-token prediction depth."""
    from ..model_config import config_notes, load_model_config
    from ..presets import MODELS

    notes: tuple[Text, ...] = ()
    if args.model_config is None:
        model = MODELS[args.model]
    else:
        try:
            config = load_model_config(args.model_config)
            model, notes = ModelSpec.from_config(config), config_notes(config)
        except (TypeError, ValueError) as exc:
            sys.stderr.write(tr("cli.error", prog=parser.prog, message=str(exc)) + "\n")
            raise SystemExit(EXIT_USAGE) from None
    if getattr(args, "dropout", None) is not None:  # the serving parser has no --dropout
        model = replace(model, dropout=args.dropout)
    if getattr(args, "mtp_layers", None) is not None:  # nor --mtp-layers (MTP modules are trained, not served)
        model = replace(model, mtp_layers=args.mtp_layers)
    return model, notes


def print_config_notes(path: str, notes: tuple[Text, ...]) -> None:
    """The notes on ``--model-config``'s keys the planner does not model (or only in part), before a report."""
    if notes:
        print(tr("cli.config_notes", path=path))
        for note in notes:
            print(f"  - {note}")
        print()


def _custom_cluster_values(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """Training's checks of flags that would set the same value twice (``--inter-gb-s`` and ``--inter-node-gb-s``,
    ``--overlap`` and ``--overlap-DIM``) or one that the other leaves unread (``--mfu`` and ``--efficiency-ceiling``),
    then :func:`custom_cluster_values`."""
    if args.inter_gb_s is not None and args.inter_node_gb_s is not None:  # both set the same field
        _fail(parser, tr("cli.inter_twice", custom=args.inter_gb_s, what_if=args.inter_node_gb_s))
    if args.mfu is not None and args.efficiency_ceiling is not None:  # a flat share: the model's ceiling is dead
        _fail(parser, tr("cli.ceiling_with_mfu", mfu=args.mfu, ceiling=args.efficiency_ceiling))
    if args.overlap is not None:  # it answers for every dimension (WorkloadSpec.overlap): a dimension's flag is dead
        for dim in OVERLAP_DEFAULTS:
            value = getattr(args, f"overlap_{dim}")
            if value is not None:
                _fail(parser, tr("cli.overlap_twice", all=args.overlap, dim=dim, value=value))
    return custom_cluster_values(args, parser)


def custom_cluster_values(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The custom cluster's flags given (:func:`add_cluster_arguments`), in ClusterSpec's fields and units; without
    ``--cluster`` each is required (but those of :data:`OPTIONAL_CUSTOM_FLAGS`), and a missing one ends as exit
    status 2 with a message naming it (training and serving)."""
    custom = {
        field_name: _to_spec_unit(field_name, getattr(args, flag.replace("-", "_")))
        for flag, field_name, _, _ in CUSTOM_CLUSTER_FLAGS
        if getattr(args, flag.replace("-", "_")) is not None
    }
    if args.cluster is None:
        missing = [f"--{flag}" for flag, field_name, _, _ in CUSTOM_CLUSTER_FLAGS if field_name not in custom]
        missing = [flag for flag in missing if flag[2:] not in OPTIONAL_CUSTOM_FLAGS]
        if missing:
            _fail(parser, tr("argparse.required") % ("--cluster " + tr("cli.or_custom", flags=", ".join(missing))))
    from ..presets import CLUSTERS

    preset = None if args.cluster is None else CLUSTERS.get(args.cluster)
    host = {
        flag: custom.get(field_name, getattr(preset, field_name, None))
        for flag, field_name in (
            ("--host-memory-gib", "host_memory_per_device_gib"),
            ("--host-link-gb-s", "host_link_bandwidth_bytes_per_s"),
        )
    }
    if sum(value is None for value in host.values()) == 1:  # activation offloading needs both
        given, missing_flag = sorted(host, key=lambda flag: host[flag] is None)
        _fail(parser, tr("cli.host_pair", given=given, missing=missing_flag))
    return custom


def add_nodes_arguments(p: argparse.ArgumentParser) -> None:
    """``--nodes`` and, instead of it, ``--gpus`` (the whole cluster's GPUs; training and serving)."""
    size = p.add_mutually_exclusive_group()
    size.add_argument(
        "--nodes",
        type=number_arg(int, "nodes", ge=1, le=MAX_NODES),
        default=1,
        help=NODES_HELP.render(),
    )
    size.add_argument(
        "--gpus",
        type=number_arg(int, "gpus", ge=1, le=MAX_WORLD_SIZE),
        default=None,
        help=GPUS_HELP.render(),
    )


def nodes_for_gpus(gpus: int, gpus_per_node: int) -> int:
    """Nodes that hold ``gpus`` GPUs, ``gpus_per_node`` to a node (``--gpus``); ValueError when they do not divide.

    >>> nodes_for_gpus(256, 8), nodes_for_gpus(72, 4)
    (32, 18)
    """
    gpus = check_int("gpus", gpus, ge=1, le=MAX_WORLD_SIZE)
    gpus_per_node = check_int("gpus_per_node", gpus_per_node, ge=1, le=MAX_WORLD_SIZE)
    if gpus % gpus_per_node:
        raise ValueError(tr("cli.gpus_not_whole_nodes", value=gpus, per_node=gpus_per_node))
    return gpus // gpus_per_node


def cluster_from_args(args: argparse.Namespace, custom: dict[str, Any]) -> ClusterSpec:
    """The ``--cluster`` preset with the custom values over it (or a custom cluster, its latencies
    :data:`DEFAULT_LATENCIES_S` unless given), on ``--nodes`` nodes, with the ``--inter-node-gb-s`` what-if (training
    only); ValueError / TypeError for values ClusterSpec refuses. A preset a flag changed is named with its changes
    (``h100-8 + --inter-latency-us 30``). ``custom`` is :func:`custom_cluster_values`'s (training and serving)."""
    from ..presets import CLUSTERS

    preset = None if args.cluster is None else CLUSTERS[args.cluster]
    bf16, fp8 = (custom.get(key, getattr(preset, key, None)) for key in ("peak_flops", "peak_flops_fp8"))
    if fp8 is not None and bf16 is not None and fp8 < bf16:  # said in the flags' unit, TFLOP/s
        fp8_tflops, bf16_tflops = _from_spec_unit("peak_flops_fp8", fp8), _from_spec_unit("peak_flops", bf16)
        raise ValueError(
            tr(
                "planner.fp8_peak_below_bf16",
                name="--peak-fp8-tflops",
                value=fp8_tflops,
                bf16_name="--peak-tflops",
                bf16=bf16_tflops,
            )
        )
    cc = custom.get("compute_capability", getattr(preset, "compute_capability", None))
    if fp8 is not None and cc is not None and cc < FP8_TENSOR_CORE_COMPUTE_CAPABILITY:  # a100-8 + --peak-fp8-tflops
        raise ValueError(
            tr(
                "planner.fp8_peak_no_tensor_cores",
                name="--peak-fp8-tflops",
                value=_from_spec_unit("peak_flops_fp8", fp8),
                cc_name="--compute-capability",
                cc=cc,
                low=FP8_TENSOR_CORE_COMPUTE_CAPABILITY,
            )
        )
    if args.cluster is None:
        base = ClusterSpec(name="custom", nodes=1, source="command line", **{**DEFAULT_LATENCIES_S, **custom})
    else:
        base = replace(CLUSTERS[args.cluster], **custom)
    gpus = getattr(args, "gpus", None)
    cluster = base.with_nodes(args.nodes if gpus is None else nodes_for_gpus(gpus, base.gpus_per_node))
    what_if = getattr(args, "inter_node_gb_s", None)  # the serving parser has no --inter-node-gb-s
    if what_if is not None:
        cluster = replace(cluster, inter_node_bandwidth_bytes_per_s=what_if * 1e9)
    changed = [
        f"--{flag} {getattr(args, flag.replace('-', '_'), None):g}"
        for flag in [flag for flag, _, _, _ in CUSTOM_CLUSTER_FLAGS] + ["inter-node-gb-s"]
        if getattr(args, flag.replace("-", "_"), None) is not None
    ]
    if args.cluster is not None and changed:  # a preset the flags changed is no longer the preset its name says
        cluster = replace(cluster, name=f"{args.cluster} + {' '.join(changed)}")
    return cluster


def _workload(args: argparse.Namespace) -> WorkloadSpec:
    """The WorkloadSpec the flags describe (flags not given keep WorkloadSpec's defaults)."""

    options: dict[str, Any] = {
        "global_batch": args.global_batch,
        "seq_len": args.seq_len,
        "mode": args.mode,
        "recipe": args.recipe,
        "sequence_parallel": not args.no_sequence_parallel,
        "precision": args.precision,
        "fp8_weight_cache": args.fp8_weight_cache,
        "flash_attention": not args.no_flash_attention,
        "attention_kernel": args.attention_kernel,
        "moe_probs_in_experts": args.moe_probs_in_experts,
        "ep_dedup_per_node": args.ep_dedup_per_node,
        "pipeline_uneven_chunks": args.pipeline_uneven_chunks,
        "ep_fp8_dispatch": args.ep_fp8_dispatch,
    }
    for flag, field_name in (
        *_WORKLOAD_FLAGS,
        ("fp8_recipe", "fp8_recipe"),
        ("fp8_activation_cache", "fp8_activation_cache"),
    ):
        if getattr(args, flag) is not None:
            options[field_name] = getattr(args, flag)
    return WorkloadSpec(**options)


def _print_result(
    args: argparse.Namespace, result: PlanResult, explained: Any, checked: Any = None, notes: tuple[Text, ...] = ()
) -> int:
    """The result as JSON (``--json``) or as the report, with the explained composition and the checked layout
    after it; the notes on ``--model-config``'s keys not modelled come first (JSON: ``model_config_notes``, a list
    for every ``--model-config``); returns 0."""
    if args.json:
        payload = result.to_dict(top=args.top, include_rejected=args.all, stream=True)
        if args.model_config is not None:
            payload["model_config_notes"] = [note.render() for note in notes]
        if explained is not None:
            payload["explain"] = explained.to_dict()
        if checked is not None:
            payload["layout"] = checked.to_dict()
        write_json(payload)
        return 0
    print_config_notes(args.model_config, notes)
    print(result.report(top=args.top))
    if explained is not None:
        print()
        print(explained.explain())
    if checked is not None:
        print()
        print(checked.report())
    return 0


learner_functions(globals())
