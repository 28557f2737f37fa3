"""Command line for serving: ``python -m coursekit plan --mode serving --model llama3-70b --cluster h100-8``.

The cluster is a preset (``--cluster``) or your own, described by the same flags as training's
(``--gpu-memory-gib --peak-tflops --hbm-gb-s --gpus-per-node --intra-gb-s --inter-gb-s``, optional
``--peak-fp8-tflops --intra-latency-us --inter-latency-us``; bandwidths per GPU per direction), read by the
same code (:func:`coursekit.planner.cli.add_cluster_arguments`, :func:`~coursekit.planner.cli.custom_cluster_values`,
:func:`~coursekit.planner.cli.cluster_from_args`); with ``--cluster`` they replace the preset's values and the
output names the preset with its changes (``h100-8 + --hbm-gb-s 1675``).

``--concurrency 64`` (or ``--request-rate 20``, requests per second, turned into a concurrency by
Little's law), ``--prompt-tokens 2048 --output-tokens 256``, optional objectives ``--ttft-ms 500
--tpot-ms 50``; ``--precision fp8`` (W8A8: 1-byte weights, the linear layers at the FP8 peak) and
``--weight-bytes`` / ``--kv-bytes`` for quantised weights and cache; ``--json`` prints the result as JSON,
``--lang zh|en`` picks the language. It prints
the funnel and the accepted layouts with their ledgers (:func:`coursekit.serving.plan_serving`).

Bad arguments exit with status 2 and a message naming the argument.

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ._cli import (
    LANG_HELP,
    MAX_RESERVE_GIB,
    MAX_TOP,
    CourseParser,
    NumberArg,
    argparse_language,
    fail_line,
    floored,
    language_args,
    number_arg,
    pre_language,
    write_json,
)
from ._validate import check_argv, learner_functions
from .i18n import Text
from .planner.cli import (
    CLUSTER_USAGE,
    MODEL_CONFIG_HELP,
    RESERVE_HELP,
    add_cluster_arguments,
    add_nodes_arguments,
    check_all_with_json,
    cluster_from_args,
    custom_cluster_values,
    model_from_args,
    model_preset_help,
    print_config_notes,
)
from .planner.specs import MAX_CONCURRENCY, MAX_SEQ_LEN
from .specs import (  # MAX_REQUEST_RATE_PER_S: ServingWorkload's bound, importable here as before
    MAX_ELEMENT_BYTES,
    MAX_REQUEST_RATE_PER_S,
    MIN_REQUEST_RATE_PER_S,
    MIN_SLO_S,
    check_weight_bytes,
)
from .units import MS_PER_S

__all__ = ["build_serving_parser", "run_serving", "wants_serving"]


class _WeightBytesArg(NumberArg):
    """``--weight-bytes``: a number up to :data:`~coursekit.specs.MAX_ELEMENT_BYTES` and at least one bit
    (:func:`~coursekit.specs.check_weight_bytes`, the library's own floor and message)."""

    def __call__(self, text: str) -> Any:
        value = super().__call__(text)
        try:
            return check_weight_bytes(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None


def wants_serving(argv: Sequence[str]) -> bool:
    """True when ``argv`` is ``plan ... --mode serving ...`` (the training path keeps its own parser)."""
    args = check_argv("argv", argv)
    if not args or args[0] != "plan":
        return False
    for index, arg in enumerate(args):
        if arg == "--mode=serving" or (arg == "--mode" and index + 1 < len(args) and args[index + 1] == "serving"):
            return True
    return False


#: Largest latency objective ``--ttft-ms`` / ``--tpot-ms`` may state: one hour, in ms.
MAX_SLO_MS: float = 3.6e6
#: Shortest latency objective ``--ttft-ms`` / ``--tpot-ms`` may state, in ms (:data:`coursekit.specs.MIN_SLO_S`).
MIN_SLO_MS: float = MIN_SLO_S * MS_PER_S
#: Why ``--request-rate`` and the objectives have their floors: said after a refusal below one (fuzz pass 24).
REQUEST_RATE_FLOOR_REASON: Text = Text(
    zh=f"每秒 {MIN_REQUEST_RATE_PER_S:g} 个即每 {1 / MIN_REQUEST_RATE_PER_S:g} 秒一个请求；"
    "按利特尔定律，更慢时同时在处理的请求远不到一个，用不着并行布局",
    en=f"{MIN_REQUEST_RATE_PER_S:g} per second is one request every {1 / MIN_REQUEST_RATE_PER_S:g} s; "
    "by Little's law a slower rate keeps far less than one request in flight, which needs no parallel layout",
)
SLO_FLOOR_REASON: Text = Text(
    zh=f"{MIN_SLO_MS:g} ms 即 1 微秒：光是启动一个 GPU 内核就要几微秒，更短的目标不可能达到",
    en=f"{MIN_SLO_MS:g} ms is 1 µs: launching one GPU kernel alone takes a few µs, so no shorter objective can be met",
)
#: Largest pipeline degree ``--max-pp`` may ask for (more stages than any preset model has layers).
MAX_PP: int = 1024
#: What serving adds to a custom-cluster flag's help: the FP8 peak times the linear layers at --precision fp8.
SERVING_CLUSTER_NOTES: dict[str, Text] = {
    "peak-fp8-tflops": Text(
        zh="；服务在 --precision fp8 时用它计线性层的矩阵乘",
        en="; serving times the linear layers' matmuls at it with --precision fp8",
    ),
}


def build_serving_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m coursekit plan --mode serving``, its help in the current language."""
    with argparse_language():  # argparse words its titles and -h help as it builds a parser
        return _serving_parser()


def _serving_parser() -> argparse.ArgumentParser:
    from .presets import MODELS

    required = f"(--model MODEL | --model-config FILE.json) {CLUSTER_USAGE} (--concurrency N | --request-rate R)"
    p = CourseParser(
        prog="python -m coursekit plan --mode serving",
        usage=Text(zh=f"%(prog)s {required} [选项]", en=f"%(prog)s {required} [options]").render(),
        description=Text(
            zh="服务规划：枚举副本数 × TP × PP 的布局，用门槛筛选（显存、互连、副本、服务目标 SLO），"
            "估算其余布局（TTFT、TPOT 的下界与每秒 token 数的上界）。",
            en="Serving plan: replicas × TP × PP layouts, gated (memory, interconnect, replicas, SLO) and "
            "estimated (lower bounds of TTFT and TPOT, an upper bound of tokens/s).",
        ).render(),
    )
    p.add_argument(
        "--mode",
        # training too: this parser runs only when --mode serving is given, so a --mode training beside it is the
        # same flag given twice with different values, refused as such (not as "training is not a choice")
        choices=("training", "serving"),
        metavar="{serving}",
        default="serving",
        help=Text(
            zh="规划服务（训练的选项见 plan --help）", en="plan serving (training's options: plan --help)"
        ).render(),
    )
    which_model = p.add_mutually_exclusive_group(required=True)
    which_model.add_argument(
        "--model",
        choices=sorted(MODELS),
        metavar="MODEL",
        help=model_preset_help(),
    )
    which_model.add_argument("--model-config", metavar="FILE.json", help=MODEL_CONFIG_HELP.render())
    add_cluster_arguments(p, notes=SERVING_CLUSTER_NOTES)
    add_nodes_arguments(p)
    load = p.add_mutually_exclusive_group(required=True)
    load.add_argument(
        "--concurrency",
        type=number_arg(int, "concurrency", ge=1, le=MAX_CONCURRENCY),
        help=Text(zh="同时在处理的请求数（并发数）", en="requests in flight").render(),
    )
    load.add_argument(
        "--request-rate",
        type=floored(
            number_arg(float, "request_rate_per_s", ge=MIN_REQUEST_RATE_PER_S, le=MAX_REQUEST_RATE_PER_S),
            REQUEST_RATE_FLOOR_REASON,
        ),
        help=Text(
            zh="每秒到达的请求数（按利特尔定律 (Little's law) 换算成并发数）",
            en="arrivals per second (turned into a concurrency by Little's law)",
        ).render(),
    )
    p.add_argument(
        "--prompt-tokens",
        type=number_arg(int, "prompt_tokens", ge=1, le=MAX_SEQ_LEN),
        default=2048,
        help=Text(
            zh="每个请求的提示 (prompt) token 数（默认 %(default)s）",
            en="prompt tokens per request (default %(default)s)",
        ).render(),
    )
    p.add_argument(
        "--output-tokens",
        type=number_arg(int, "output_tokens", ge=1, le=MAX_SEQ_LEN),
        default=256,
        help=Text(
            zh="每个请求生成的 token 数（默认 %(default)s）", en="tokens generated per request (default %(default)s)"
        ).render(),
    )
    p.add_argument(
        "--ttft-ms",
        type=floored(number_arg(float, "ttft_ms", ge=MIN_SLO_MS, le=MAX_SLO_MS), SLO_FLOOR_REASON),
        default=None,
        help=Text(zh="首 token 时间 (TTFT) 的目标，ms", en="TTFT objective, ms").render(),
    )
    p.add_argument(
        "--tpot-ms",
        type=floored(number_arg(float, "tpot_ms", ge=MIN_SLO_MS, le=MAX_SLO_MS), SLO_FLOOR_REASON),
        default=None,
        help=Text(zh="每输出 token 时间 (TPOT) 的目标，ms", en="TPOT objective, ms").render(),
    )
    p.add_argument(
        "--precision",
        choices=("bf16", "fp8"),
        default="bf16",
        help=Text(
            zh="矩阵乘精度：bf16（默认），或 fp8（W8A8：权重与激活都是 FP8，线性层按设备的 FP8 峰值计，"
            "注意力仍按 bf16；权重每个 1 字节，除非另给 --weight-bytes；需要 FP8 张量核心，如 H100/H800/B200）",
            en="matmul precision: bf16 (the default) or fp8 (W8A8: FP8 weights and activations, the linear layers at "
            "the device's FP8 peak, attention still at bf16's; weights of 1 byte unless --weight-bytes says "
            "otherwise; needs FP8 tensor cores, e.g. H100/H800/B200)",
        ).render(),
    )
    p.add_argument(
        "--weight-bytes",
        type=_WeightBytesArg(float, "weight_bytes", {"gt": 0, "le": MAX_ELEMENT_BYTES}),
        default=None,
        help=Text(
            zh="每个权重的字节数（默认 bf16 为 2，fp8 为 1；4 位量化为 0.5；至少 0.125，即每个权重 1 位）",
            en="bytes per weight (default 2 at bf16, 1 at fp8; 0.5 for 4-bit weights; at least 0.125, 1 bit)",
        ).render(),
    )
    p.add_argument(
        "--kv-bytes",
        type=number_arg(int, "kv_bytes", ge=1, le=MAX_ELEMENT_BYTES),
        default=2,
        help=Text(
            zh="KV 缓存每个元素的字节数（默认 %(default)s）", en="bytes per KV element (default %(default)s)"
        ).render(),
    )
    p.add_argument(
        "--reserve-gib",
        type=number_arg(float, "runtime_reserve_gib", ge=0, le=MAX_RESERVE_GIB),
        default=None,
        help=RESERVE_HELP.render(),
    )
    p.add_argument(
        "--max-pp",
        type=number_arg(int, "max_pp", ge=1, le=MAX_PP),
        default=8,
        help=Text(
            zh="尝试的最大流水线并行度（默认 %(default)s）", en="largest pipeline degree tried (default %(default)s)"
        ).render(),
    )
    p.add_argument(
        "--top",
        type=number_arg(int, "top", ge=0, le=MAX_TOP),
        default=5,
        help=Text(zh="显示多少个布局（默认 %(default)s）", en="layouts to show (default %(default)s)").render(),
    )
    p.add_argument(
        "--json", action="store_true", help=Text(zh="以 JSON 打印结果", en="print the result as JSON").render()
    )
    p.add_argument(
        "--all",
        action="store_true",
        help=Text(
            zh="与 --json 一起用：包含每个被拒绝的布局（没有 --json 时拒绝）",
            en="with --json: include every rejected layout (refused without --json)",
        ).render(),
    )
    p.add_argument("--lang", choices=("zh", "en"), default=None, help=LANG_HELP.render())
    return p


def run_serving(argv: Sequence[str]) -> int:
    """Parse ``argv`` (the arguments after ``plan``), plan and print; returns the exit status.

    Every message, argparse's own included, is in the current language (``--lang``).
    """
    argv = language_args(check_argv("argv", argv))  # --lang zh_CN, ZH ... as --lang zh
    pre_language(argv)
    parser = build_serving_parser()
    with argparse_language():  # the usage printed before a refusal is in that language too
        args = parser.parse_args(list(argv))
        check_all_with_json(args, parser)  # --all without --json would change nothing
        model, notes = model_from_args(args, parser)  # a bad --model-config file ends as exit status 2, one line
        custom = custom_cluster_values(args, parser)  # a custom cluster missing a flag ends as exit status 2
        try:
            result = _plan(args, model, cluster_from_args(args, custom))
        except (TypeError, ValueError) as exc:
            parser.print_usage(sys.stderr)
            return fail_line(parser.prog, str(exc))
    if args.json:
        payload = result.to_dict(top=args.top, include_rejected=args.all)
        if args.model_config is not None:
            payload["model_config_notes"] = [note.render() for note in notes]
        write_json(payload)
        return 0
    print_config_notes(args.model_config, notes)
    print(result.report(top=args.top))
    return 0


def _plan(args: argparse.Namespace, model: Any, cluster: Any) -> Any:
    from .serving import ServingWorkload, plan_serving

    options: dict[str, Any] = {
        "prompt_tokens": args.prompt_tokens,
        "output_tokens": args.output_tokens,
        "concurrency": args.concurrency,
        "request_rate_per_s": args.request_rate,
        "ttft_slo_s": None if args.ttft_ms is None else args.ttft_ms / 1e3,
        "tpot_slo_s": None if args.tpot_ms is None else args.tpot_ms / 1e3,
        "kv_bytes": args.kv_bytes,
        "max_pp": args.max_pp,
        "precision": args.precision,
        "weight_bytes": args.weight_bytes
        if args.weight_bytes is not None
        else (1.0 if args.precision == "fp8" else 2.0),
    }
    if args.reserve_gib is not None:
        options["runtime_reserve_gib"] = args.reserve_gib
    workload = ServingWorkload(**options)
    return plan_serving(model, cluster, workload)


learner_functions(globals())
