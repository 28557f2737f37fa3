"""Command line: ``python -m coursekit plan --model llama3-70b --cluster h100-8 --nodes 16 --global-batch 1024``.

Subcommands:

* ``plan`` — run the decision workbench (:func:`coursekit.planner.plan`): print the funnel
  (how many candidates each gate removed, in gate order), the assumptions and the top
  accepted candidates with their breakdowns; ``--explain tp=8,pp=4,dp=4,zero=1,mb=1`` says
  why one composition was rejected (or shows its breakdown); ``--json`` prints the full
  result as JSON; ``--lang zh|en`` picks the language.

* ``lessons DIR [--lang zh|en]`` — copy the lesson notebooks out of the installed package
  (:mod:`coursekit.lessons_cli`).

Bad arguments exit with status 2 and a message naming the argument.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from . import i18n
from ._validate import check_int, check_number
from .capacity import PRECISION_RECIPES, RECOMPUTE_MODES

#: Exit status for bad arguments (argparse's convention).
EXIT_USAGE: int = 2


def _arg_type(convert: Callable[[str], Any], name: str, **bounds: float) -> Callable[[str], Any]:
    """An argparse ``type=`` that converts, then checks bounds with coursekit's validators."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            kind = "an integer" if convert is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {kind}") from None
        try:
            if convert is int:
                check_int(name, value, **{k: int(v) for k, v in bounds.items()})
            else:
                check_number(name, value, **bounds)
        except (TypeError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return value

    parse.__name__ = name
    return parse


def _int_list(name: str, low: int, high: int) -> Callable[[str], tuple[int, ...]]:
    def parse(text: str) -> tuple[int, ...]:
        values = []
        for part in text.split(","):
            try:
                values.append(check_int(name, int(part), ge=low, le=high))
            except ValueError as exc:
                message = str(exc) if part.strip().lstrip("-").isdigit() else f"{part!r} is not an integer"
                raise argparse.ArgumentTypeError(message) from None
        return tuple(values)

    parse.__name__ = name
    return parse


def _choice_list(name: str, choices: Sequence[str]) -> Callable[[str], tuple[str, ...]]:
    def parse(text: str) -> tuple[str, ...]:
        values = tuple(part.strip() for part in text.split(","))
        for value in values:
            if value not in choices:
                raise argparse.ArgumentTypeError(f"{value!r} is not one of {', '.join(choices)}")
        return values

    parse.__name__ = name
    return parse


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m coursekit`` argument parser (subcommand ``plan``)."""
    from .presets import CLUSTERS, MODELS

    parser = argparse.ArgumentParser(prog="python -m coursekit", description="coursekit command line")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    p = commands.add_parser(
        "plan",
        help="search every parallel composition, gate it and estimate the rest",
        description="Decision workbench: enumerate compositions, exclude by gates with reasons, estimate the rest.",
    )
    p.add_argument(
        "--model",
        required=True,
        choices=sorted(MODELS),
        metavar="MODEL",
        help="model preset: " + ", ".join(sorted(MODELS)),
    )
    p.add_argument(
        "--cluster",
        required=True,
        choices=sorted(CLUSTERS),
        metavar="CLUSTER",
        help="cluster preset (one node): " + ", ".join(sorted(CLUSTERS)),
    )
    p.add_argument("--nodes", type=_arg_type(int, "nodes", ge=1), default=1, help="number of nodes (default 1)")
    p.add_argument(
        "--global-batch", type=_arg_type(int, "global_batch", ge=1), required=True, help="sequences per step"
    )
    p.add_argument("--seq-len", type=_arg_type(int, "seq_len", ge=1), default=None, help="tokens per sequence")
    p.add_argument("--mode", choices=("training", "serving"), default="training")
    p.add_argument(
        "--recipe",
        choices=sorted(PRECISION_RECIPES),
        default="megatron-bf16",
        metavar="RECIPE",
        help="precision recipe: " + ", ".join(sorted(PRECISION_RECIPES)),
    )
    p.add_argument(
        "--mfu",
        type=_arg_type(float, "achievable_flops_fraction", gt=0, le=1),
        default=None,
        help="achievable fraction of peak FLOP/s (default 0.5)",
    )
    p.add_argument(
        "--overlap",
        type=_arg_type(float, "overlap_fraction", ge=0, le=1),
        default=None,
        help="share of communication hidden under compute (default 0)",
    )
    p.add_argument("--reserve-gib", type=_arg_type(float, "runtime_reserve_gib", ge=0), default=None)
    p.add_argument("--zero", type=_int_list("zero_stages", 0, 3), default=None, help="ZeRO stages, e.g. 0,1,3")
    p.add_argument(
        "--recompute",
        type=_choice_list("recompute_modes", RECOMPUTE_MODES),
        default=None,
        help="recompute modes, e.g. selective,full",
    )
    p.add_argument("--max-micro-batch", type=_arg_type(int, "max_micro_batch", ge=1), default=None)
    p.add_argument("--no-sequence-parallel", action="store_true", help="turn Megatron sequence parallelism off")
    p.add_argument(
        "--inter-node-gb-s",
        type=_arg_type(float, "inter_node_gb_s", gt=0),
        default=None,
        help="what-if: inter-node bandwidth per GPU, GB/s, unidirectional",
    )
    p.add_argument("--top", type=_arg_type(int, "top", ge=0), default=5, help="accepted candidates to show")
    p.add_argument("--explain", metavar="DEGREES", default=None, help="e.g. tp=8,pp=4,dp=4,zero=1,mb=1")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.add_argument("--all", action="store_true", help="with --json: include every rejected candidate")
    p.add_argument("--lang", choices=("zh", "en"), default=None, help="output language")
    return parser


def _pre_language(argv: Sequence[str]) -> None:
    """Apply ``--lang`` before parsing, so argument errors are reported in that language where coursekit speaks."""
    for index, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if arg.startswith("--lang=") else None
        if arg == "--lang" and index + 1 < len(argv):
            value = argv[index + 1]
        if value in ("zh", "en"):
            i18n.set_language(value)


def _run_plan(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .planner import WorkloadSpec, parse_degrees, plan
    from .presets import CLUSTERS, MODELS

    model = MODELS[args.model]
    cluster = CLUSTERS[args.cluster].with_nodes(args.nodes)
    if args.inter_node_gb_s is not None:
        cluster = replace(cluster, inter_node_bandwidth_bytes_per_s=args.inter_node_gb_s * 1e9)
    options: dict[str, Any] = {
        "global_batch": args.global_batch,
        "seq_len": args.seq_len,
        "mode": args.mode,
        "recipe": args.recipe,
        "sequence_parallel": not args.no_sequence_parallel,
    }
    for flag, field_name in (
        ("mfu", "achievable_flops_fraction"),
        ("overlap", "overlap_fraction"),
        ("reserve_gib", "runtime_reserve_gib"),
        ("zero", "zero_stages"),
        ("recompute", "recompute_modes"),
        ("max_micro_batch", "max_micro_batch"),
    ):
        if getattr(args, flag) is not None:
            options[field_name] = getattr(args, flag)
    workload = WorkloadSpec(**options)
    degrees: dict[str, Any] | None = None
    if args.explain is not None:
        try:
            degrees = parse_degrees(args.explain)
        except (TypeError, ValueError) as exc:
            parser.error(f"argument --explain: {exc}")
    result = plan(model, cluster, workload)
    explained = result.explain(degrees) if degrees is not None else None
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m coursekit``; returns the exit status (2 for bad arguments)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["lessons"]:  # copying the notebooks out: its own module and parser
        from .lessons_cli import main as lessons_main

        return lessons_main(args_list[1:])
    _pre_language(args_list)
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.lang is not None:
        i18n.set_language(args.lang)
    if args.command == "plan":
        plan_parser = next(
            action.choices["plan"]
            for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)  # argparse keeps subparsers here
        )
        return _run_plan(args, plan_parser)
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover - argparse refuses it first


if __name__ == "__main__":
    sys.exit(main())
