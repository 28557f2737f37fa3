"""Command line of the lab: ``python -m coursekit.lab collectives|memory``.

On one machine the command spawns its own ranks (CPU + gloo unless every
rank has a GPU)::

    python -m coursekit.lab collectives --ranks 2 --max-bytes 4M --json fits.json
    python -m coursekit.lab memory --ranks 2

On a cluster the same command runs under torchrun (one process per GPU,
NCCL), and ``--ranks`` may be left out::

    torchrun --nnodes 2 --nproc-per-node 8 -m coursekit.lab collectives --json fits.json

Only rank 0 prints and writes JSON. Exit codes: 0 success; 1 a measurement
contradicts its check (a collective gave a wrong result on known tensors, or
memory differs from ledger + explained extras); 2 bad arguments (a message
names the argument, the value and the rule); 3 PyTorch is missing.

>>> main(["collectives", "--ranks", "0"])  # the reason goes to stderr
2

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ..communication import COLLECTIVES
from ..i18n import LANGUAGES, register, set_language, tr
from ._env import launched_by_torchrun
from .collectives import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MIN_BYTES,
    DEFAULT_REPEATS,
    DEFAULT_WARMUP,
    DEVICES,
    CollectivesReport,
    run_collectives,
)
from .memory import MemoryReport, run_memory

__all__ = ["EXIT_BAD_ARGUMENTS", "EXIT_CHECK_FAILED", "EXIT_NO_TORCH", "EXIT_OK", "main", "parse_bytes"]

EXIT_OK: int = 0
EXIT_CHECK_FAILED: int = 1
EXIT_BAD_ARGUMENTS: int = 2
EXIT_NO_TORCH: int = 3

#: Size suffixes of --min-bytes / --max-bytes, binary like nccl-tests' -b / -e (K = 1024).
SIZE_SUFFIXES: dict[str, int] = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}

register(
    {
        "lab.cli_bad_size": {
            "zh": "{name} = {value!r}：必须是整数字节数，可带后缀 K、M、G（1024 进制），例如 4096 或 16M。",
            "en": "{name} = {value!r}: must be a whole number of bytes, optionally with a K, M or G suffix "
            "(powers of 1024), e.g. 4096 or 16M.",
        },
        "lab.cli_wrote": {"zh": "已写入 {path}", "en": "wrote {path}"},
        "lab.cli_no_directory": {
            "zh": "--json {path}：所在目录不存在。",
            "en": "--json {path}: its directory does not exist.",
        },
        "lab.cli_wrong": {
            "zh": "集合通信 {kinds} 在已知张量上的结果错误。",
            "en": "collective(s) {kinds} gave wrong results on known tensors.",
        },
    }
)


def parse_bytes(text: str, name: str = "bytes") -> int:
    """A byte count from ``"4096"``, ``"4K"``, ``"16M"`` or ``"1G"`` (binary multiples, as nccl-tests).

    >>> parse_bytes("16M")
    16777216
    >>> parse_bytes("1.5K", "--min-bytes")
    Traceback (most recent call last):
    ...
    ValueError: --min-bytes = '1.5K': must be a whole number of bytes, optionally with a K, M or G suffix ...

    Taught in: lesson 8 (formula vs measurement).
    """
    cleaned = text.strip().upper().removesuffix("B").removesuffix("I")
    suffix = cleaned[-1:] if cleaned[-1:] in SIZE_SUFFIXES else ""
    digits = cleaned[: len(cleaned) - len(suffix)]
    if not digits.isdigit():
        raise ValueError(tr("lab.cli_bad_size", name=name, value=text))
    return int(digits) * SIZE_SUFFIXES[suffix]


def _size_type(name: str) -> Callable[[str], int]:
    def convert(text: str) -> int:
        try:
            return parse_bytes(text, name)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return convert


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The argument parser and its subcommand parsers (English help; messages follow ``--lang``)."""
    parser = argparse.ArgumentParser(
        prog="python -m coursekit.lab",
        description="Formula vs measurement: time collectives and count training-state bytes with PyTorch.",
    )
    parser.add_argument("--lang", choices=LANGUAGES, help="language of the output (default: COURSEKIT_LANG or en)")
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--ranks",
            type=int,
            default=None,
            help="processes to spawn on this machine (default 2; under torchrun: WORLD_SIZE)",
        )
        sub.add_argument(
            "--device", choices=DEVICES, default="auto", help="auto: CUDA+NCCL if available, else CPU+gloo"
        )
        sub.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
        sub.add_argument("--lang", choices=LANGUAGES, default=argparse.SUPPRESS, help=argparse.SUPPRESS)

    coll = commands.add_parser("collectives", help="time collectives and fit the ring alpha-beta model")
    common(coll)
    coll.add_argument(
        "--collectives",
        default=",".join(COLLECTIVES),
        help=f"comma-separated subset of {','.join(COLLECTIVES)} (default: all)",
    )
    coll.add_argument(
        "--min-bytes", type=_size_type("--min-bytes"), default=DEFAULT_MIN_BYTES, help="smallest payload S (default 1K)"
    )
    coll.add_argument(
        "--max-bytes", type=_size_type("--max-bytes"), default=DEFAULT_MAX_BYTES, help="largest payload S (default 16M)"
    )
    coll.add_argument("--repeats", type=int, default=DEFAULT_REPEATS, help="timed calls per payload (default 20)")
    coll.add_argument("--warmup", type=int, default=DEFAULT_WARMUP, help="untimed calls per payload (default 5)")

    mem = commands.add_parser("memory", help="count per-rank bytes under DDP, FSDP2 and TP vs the ledger")
    common(mem)
    mem.add_argument("--strategies", default=None, help="comma-separated subset of ddp,fsdp2-zero3,fsdp2-zero2,tp")
    return parser, {"collectives": coll, "memory": mem}


def _language_from(argv: Sequence[str]) -> str | None:
    """The value of ``--lang`` anywhere in ``argv`` (read before parsing, so parse errors are localized too)."""
    for i, item in enumerate(argv):
        if item == "--lang" and i + 1 < len(argv) and argv[i + 1] in LANGUAGES:
            return argv[i + 1]
        if item.startswith("--lang=") and item.split("=", 1)[1] in LANGUAGES:
            return item.split("=", 1)[1]
    return None


def _is_rank_zero() -> bool:
    return not launched_by_torchrun() or os.environ.get("RANK") == "0"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = _language_from(argv)
    if lang is not None:
        set_language(lang)
    parser, commands = build_parser()
    args = parser.parse_args(argv)
    ranks = args.ranks if args.ranks is not None or launched_by_torchrun() else 2
    report: CollectivesReport | MemoryReport
    try:
        if args.json is not None and not Path(args.json).resolve().parent.is_dir():
            raise ValueError(tr("lab.cli_no_directory", path=args.json))
        if args.command == "collectives":
            report = run_collectives(
                ranks=ranks,
                collectives=args.collectives,
                min_bytes=args.min_bytes,
                max_bytes=args.max_bytes,
                repeats=args.repeats,
                warmup=args.warmup,
                device=args.device,
            )
            failed = bool(report.wrong_results)
            text = report.format()
            if failed:
                text += "\n" + tr("lab.cli_wrong", kinds=", ".join(report.wrong_results))
        else:
            report = run_memory(ranks=ranks, strategies=args.strategies, device=args.device)
            failed = not report.matches
            text = report.format()
    except ImportError as error:
        print(str(error), file=sys.stderr)
        return EXIT_NO_TORCH
    except (TypeError, ValueError) as error:
        command = commands[args.command]
        command.print_usage(sys.stderr)
        print(f"{command.prog}: error: {error}", file=sys.stderr)
        return EXIT_BAD_ARGUMENTS
    if _is_rank_zero():
        print(text)
        if args.json:
            report.write_json(args.json)
            print(tr("lab.cli_wrote", path=args.json))
    return EXIT_CHECK_FAILED if failed else EXIT_OK
