"""``python -m coursekit plan``: the decision workbench on the command line.

Prints the funnel (how many candidates each gate removed, in gate order), the assumptions and the
top accepted candidates grouped into ties; ``--explain tp=8,pp=4,dp=4,zero=1,mb=1`` says why one
composition was rejected (or shows its breakdown); ``--json`` prints the full result as JSON;
``--lang zh|en`` picks the language — of coursekit's messages and of argparse's own.

Bad arguments — unknown, malformed, out of their documented bounds, or making a search too large —
exit with status 2 and a message naming the argument, never a traceback. Sizes are bounded
(:data:`coursekit.planner.MAX_NODES`, ``MAX_GLOBAL_BATCH``, ``MAX_SEQ_LEN``, ``MAX_SPACE_SIZE``), so
absurd ones are refused at once instead of searched.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

from .._cli import (
    ARGPARSE_ZH,
    EXIT_USAGE,
    MAX_RESERVE_GIB,
    MAX_TOP,
    argparse_language,
    number_arg,
    pre_language,
)
from .._validate import check_int
from ..capacity import PRECISION_RECIPES, RECOMPUTE_MODES
from ..i18n import LANGUAGES, register, tr
from ..specs import PRECISIONS
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

__all__ = ["ARGPARSE_ZH", "EXIT_USAGE", "add_plan_command", "argparse_language", "pre_language", "run_plan"]

#: Largest link bandwidth a what-if may state, GB/s per GPU (a thousand times NVLink 4).
MAX_LINK_GB_S: float = 1e6
#: A custom cluster's flags: (flag, ClusterSpec field, name in messages, bounds). Bandwidths per GPU per direction.
CUSTOM_CLUSTER_FLAGS: tuple[tuple[str, str, str, dict[str, float]], ...] = (
    ("gpu-memory-gib", "memory_per_device_gib", "gpu_memory_gib", {"gt": 0, "le": 1e6}),
    ("peak-tflops", "peak_flops", "peak_tflops", {"gt": 0, "le": 1e9}),
    ("peak-fp8-tflops", "peak_flops_fp8", "peak_fp8_tflops", {"gt": 0, "le": 1e9}),
    ("hbm-gb-s", "memory_bandwidth_bytes_per_s", "hbm_gb_s", {"gt": 0, "le": MAX_LINK_GB_S}),
    ("gpus-per-node", "gpus_per_node", "gpus_per_node", {"ge": 1, "le": 1024}),
    ("intra-gb-s", "intra_node_bandwidth_bytes_per_s", "intra_gb_s", {"gt": 0, "le": MAX_LINK_GB_S}),
    ("inter-gb-s", "inter_node_bandwidth_bytes_per_s", "inter_gb_s", {"gt": 0, "le": MAX_LINK_GB_S}),
)
CUSTOM_CLUSTER_HELP: dict[str, str] = {
    "memory_per_device_gib": "usable memory per GPU, GiB",
    "peak_flops": "peak dense bf16 TFLOP/s per GPU",
    "peak_flops_fp8": "peak dense FP8 TFLOP/s per GPU (optional)",
    "memory_bandwidth_bytes_per_s": "GPU memory bandwidth, GB/s",
    "gpus_per_node": "GPUs per node",
    "intra_node_bandwidth_bytes_per_s": "intra-node bandwidth per GPU per direction, GB/s",
    "inter_node_bandwidth_bytes_per_s": "inter-node bandwidth per GPU per direction, GB/s",
}
#: What a custom cluster's values are multiplied by to get the ClusterSpec's units.
_CUSTOM_SCALE: dict[str, float] = {
    "memory_per_device_gib": 1.0,
    "peak_flops": 1e12,
    "peak_flops_fp8": 1e12,
    "memory_bandwidth_bytes_per_s": 1e9,
    "gpus_per_node": 1,
    "intra_node_bandwidth_bytes_per_s": 1e9,
    "inter_node_bandwidth_bytes_per_s": 1e9,
}

register(
    {
        "cli.or_custom": {"zh": "（或自定义集群，还缺：{flags}）", "en": "(or a custom cluster, missing: {flags})"},
    }
)


def _int_list(name: str, low: int, high: int) -> Callable[[str], tuple[int, ...]]:
    def parse(text: str) -> tuple[int, ...]:
        values = []
        for part in text.split(","):
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
        values = tuple(part.strip() for part in text.split(","))
        for value in values:
            if value not in choices:
                raise argparse.ArgumentTypeError(tr("cli.not_choice", value=value[:200], choices=", ".join(choices)))
        return values

    parse.__name__ = name
    return parse


def add_plan_command(commands: Any) -> argparse.ArgumentParser:
    """Add the ``plan`` subcommand to ``commands`` (an argparse subparsers action); returns its parser."""
    p: argparse.ArgumentParser = commands.add_parser(
        "plan",
        help="search every parallel composition, gate it and estimate the rest",
        description="Decision workbench: enumerate compositions, exclude by gates with reasons, estimate the rest.",
        usage="%(prog)s (--model MODEL | --model-config FILE.json) (--cluster CLUSTER | --gpu-memory-gib GIB "
        "--peak-tflops T --hbm-gb-s B --gpus-per-node N --intra-gb-s B --inter-gb-s B) --global-batch N [options]",
    )
    _add_model_and_cluster_arguments(p)
    _add_workload_arguments(p)
    _add_estimate_arguments(p)
    _add_search_arguments(p)
    _add_output_arguments(p)
    return p


def _add_model_and_cluster_arguments(p: argparse.ArgumentParser) -> None:
    """``--model`` or ``--model-config``; ``--cluster`` or a custom cluster's flags."""
    from ..presets import CLUSTERS, MODELS

    which_model = p.add_mutually_exclusive_group(required=True)
    which_model.add_argument(
        "--model",
        choices=sorted(MODELS),
        metavar="MODEL",
        help="model preset: " + ", ".join(sorted(MODELS)),
    )
    which_model.add_argument(
        "--model-config",
        metavar="FILE.json",
        help="your own model: a Hugging Face config.json (hidden_size, num_hidden_layers, ...)",
    )
    p.add_argument(
        "--cluster",
        choices=sorted(CLUSTERS),
        metavar="CLUSTER",
        help="cluster preset (one node): "
        + ", ".join(sorted(CLUSTERS))
        + "; or describe your own with "
        + ", ".join(f"--{flag}" for flag, _, _, _ in CUSTOM_CLUSTER_FLAGS),
    )
    for flag, field_name, unit_name, bounds in CUSTOM_CLUSTER_FLAGS:
        p.add_argument(
            f"--{flag}",
            type=number_arg(int if flag == "gpus-per-node" else float, unit_name, **bounds),
            default=None,
            help=f"custom cluster: {CUSTOM_CLUSTER_HELP[field_name]}",
        )


def _add_workload_arguments(p: argparse.ArgumentParser) -> None:
    """What is trained or served, and on how many nodes: precision, attention kernel, batch, sequence, recipe."""
    p.add_argument("--precision", choices=PRECISIONS, default="bf16", help="matmul precision (fp8: H100/H800)")
    p.add_argument(
        "--no-flash-attention",
        action="store_true",
        help="materialise the attention scores (5·a·s²·b bytes per layer) instead of a fused flash-attention kernel",
    )
    p.add_argument(
        "--nodes",
        type=number_arg(int, "nodes", ge=1, le=MAX_NODES),
        default=1,
        help=f"number of nodes (1 to {MAX_NODES})",
    )
    p.add_argument(
        "--global-batch",
        type=number_arg(int, "global_batch", ge=1, le=MAX_GLOBAL_BATCH),
        required=True,
        help=f"sequences per step (1 to {MAX_GLOBAL_BATCH})",
    )
    p.add_argument(
        "--seq-len", type=number_arg(int, "seq_len", ge=1, le=MAX_SEQ_LEN), default=None, help="tokens per sequence"
    )
    p.add_argument("--mode", choices=("training", "serving"), default="training")
    p.add_argument(
        "--recipe",
        choices=sorted(PRECISION_RECIPES),
        default="megatron-bf16",
        metavar="RECIPE",
        help="precision recipe: " + ", ".join(sorted(PRECISION_RECIPES)),
    )


def _add_estimate_arguments(p: argparse.ArgumentParser) -> None:
    """The estimate's assumptions: achievable FLOP/s, communication hidden under compute, runtime reserve."""
    p.add_argument(
        "--mfu",
        type=number_arg(float, "achievable_flops_fraction", gt=0, le=1),
        default=None,
        help="a flat achievable fraction of peak FLOP/s instead of the compute-efficiency model",
    )
    p.add_argument(
        "--overlap",
        type=number_arg(float, "overlap_fraction", ge=0, le=1),
        default=None,
        help="one share of communication hidden under compute for every dimension (default: per dimension, "
        + ", ".join(f"{dim} {share:g}" for dim, share in OVERLAP_DEFAULTS.items())
        + ")",
    )
    for dim in OVERLAP_DEFAULTS:
        p.add_argument(
            f"--overlap-{dim}",
            type=number_arg(float, f"overlap_{dim}", ge=0, le=1),
            default=None,
            help=f"share of {dim.upper()} communication hidden under compute (default {OVERLAP_DEFAULTS[dim]:g})",
        )
    p.add_argument(
        "--reserve-gib", type=number_arg(float, "runtime_reserve_gib", ge=0, le=MAX_RESERVE_GIB), default=None
    )


def _add_search_arguments(p: argparse.ArgumentParser) -> None:
    """What the search enumerates: ZeRO stages, recompute modes, micro-batch sizes, pipeline edges, and a what-if."""
    p.add_argument("--zero", type=_int_list("zero_stages", 0, 3), default=None, help="ZeRO stages, e.g. 0,1,3")
    p.add_argument(
        "--recompute",
        type=_choice_list("recompute_modes", RECOMPUTE_MODES),
        default=None,
        help="recompute modes, e.g. selective,full",
    )
    p.add_argument("--max-micro-batch", type=number_arg(int, "max_micro_batch", ge=1, le=4096), default=None)
    p.add_argument(
        "--edge-layers",
        type=number_arg(int, "pipeline_edge_layers", ge=0, le=1024),
        default=None,
        help="layers taken off the first and last pipeline stage (Llama 3 405B: 1)",
    )
    p.add_argument("--no-sequence-parallel", action="store_true", help="turn Megatron sequence parallelism off")
    p.add_argument(
        "--inter-node-gb-s",
        type=number_arg(float, "inter_node_gb_s", gt=0, le=MAX_LINK_GB_S),
        default=None,
        help="what-if: inter-node bandwidth per GPU, GB/s, unidirectional",
    )


def _add_output_arguments(p: argparse.ArgumentParser) -> None:
    """What is printed, and in which language."""
    p.add_argument(
        "--top", type=number_arg(int, "top", ge=0, le=MAX_TOP), default=5, help="accepted candidates to show"
    )
    p.add_argument("--explain", metavar="DEGREES", default=None, help="e.g. tp=8,pp=4,dp=4,zero=1,mb=1")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.add_argument("--all", action="store_true", help="with --json: include every rejected candidate")
    p.add_argument("--lang", choices=LANGUAGES, default=None, help="output language")


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
    ("max_micro_batch", "max_micro_batch"),
    ("edge_layers", "pipeline_edge_layers"),
    *((f"overlap_{dim}", f"overlap_{dim}") for dim in OVERLAP_DEFAULTS),
)


def run_plan(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run ``plan`` for parsed ``args``; every bad value ends as exit status 2 with a message, no traceback."""
    from .search import plan

    degrees = _explain_degrees(args, parser)
    model = _model(args, parser)
    custom = _custom_cluster_values(args, parser)
    try:
        cluster = _cluster(args, custom)
        result = plan(model, cluster, _workload(args))
        explained = result.explain(degrees) if degrees is not None else None
    except (TypeError, ValueError) as exc:
        return _fail(parser, str(exc))
    return _print_result(args, result, explained)


def _explain_degrees(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any] | None:
    """The degrees ``--explain`` names (None without it); a malformed one ends as exit status 2."""
    from .space import parse_degrees

    if args.explain is None:
        return None
    try:
        return parse_degrees(args.explain, name="degrees")
    except (TypeError, ValueError) as exc:
        _fail(parser, tr("argparse.argument") % {"argument_name": "--explain", "message": exc})


def _model(args: argparse.Namespace, parser: argparse.ArgumentParser) -> ModelSpec:
    """The ``--model`` preset, or the model ``--model-config`` describes (a bad file ends as exit status 2)."""
    from ..model_config import load_model_config
    from ..presets import MODELS

    if args.model_config is None:
        return MODELS[args.model]
    try:
        return ModelSpec.from_config(load_model_config(args.model_config))
    except (TypeError, ValueError) as exc:
        sys.stderr.write(tr("cli.error", prog=parser.prog, message=exc) + "\n")
        raise SystemExit(EXIT_USAGE) from None


def _custom_cluster_values(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The custom cluster's flags given, in ClusterSpec's fields and units; without ``--cluster`` each is required
    (but ``--peak-fp8-tflops``), and a missing one ends as exit status 2."""
    custom = {
        field_name: getattr(args, flag.replace("-", "_")) * _CUSTOM_SCALE[field_name]
        for flag, field_name, _, _ in CUSTOM_CLUSTER_FLAGS
        if getattr(args, flag.replace("-", "_")) is not None
    }
    if args.cluster is None:
        missing = [f"--{flag}" for flag, field_name, _, _ in CUSTOM_CLUSTER_FLAGS if field_name not in custom]
        missing = [flag for flag in missing if flag != "--peak-fp8-tflops"]
        if missing:
            _fail(parser, tr("argparse.required") % ("--cluster " + tr("cli.or_custom", flags=", ".join(missing))))
    return custom


def _cluster(args: argparse.Namespace, custom: dict[str, Any]) -> ClusterSpec:
    """The ``--cluster`` preset with the custom values over it (or a custom cluster), on ``--nodes`` nodes, with the
    ``--inter-node-gb-s`` what-if; ValueError / TypeError for values ClusterSpec refuses."""
    from ..hardware import NCCL_RING_NET_LATENCY_S, NCCL_RING_NVLINK_LATENCY_S
    from ..presets import CLUSTERS

    if args.cluster is None:
        base = ClusterSpec(
            name="custom",
            nodes=1,
            intra_node_latency_s=NCCL_RING_NVLINK_LATENCY_S,
            inter_node_latency_s=NCCL_RING_NET_LATENCY_S,
            source="command line",
            **custom,
        )
    else:
        base = replace(CLUSTERS[args.cluster], **custom)
    cluster = base.with_nodes(args.nodes)
    if args.inter_node_gb_s is not None:
        cluster = replace(cluster, inter_node_bandwidth_bytes_per_s=args.inter_node_gb_s * 1e9)
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
        "flash_attention": not args.no_flash_attention,
    }
    for flag, field_name in _WORKLOAD_FLAGS:
        if getattr(args, flag) is not None:
            options[field_name] = getattr(args, flag)
    return WorkloadSpec(**options)


def _print_result(args: argparse.Namespace, result: PlanResult, explained: Any) -> int:
    """The result as JSON (``--json``) or as the report, with the explained composition after it; returns 0."""
    if args.json:
        payload = result.to_dict(top=args.top, include_rejected=args.all)
        if explained is not None:
            payload["explain"] = explained.to_dict()
        json.dump(payload, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return 0
    print(result.report(top=args.top))
    if explained is not None:
        print()
        print(explained.explain())
    return 0
