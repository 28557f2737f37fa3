"""Command line of the lab: ``python -m coursekit.lab collectives|memory|timeline|record``.

On one machine the command spawns its own ranks (CPU + gloo unless every
rank has a GPU)::

    python -m coursekit.lab collectives --ranks 2 --max-bytes 4M --json fits.json
    python -m coursekit.lab memory --ranks 2
    python -m coursekit.lab timeline --ranks 2 --strategy ddp,fsdp,tp --slow-rank 1 --slow-factor 3 \
        --input-delay-ms 20 --no-overlap --trace traces/
    python -m coursekit.lab record --json lesson8.json   # lesson 8's measurements, all of them

On a cluster the same command runs under torchrun (one process per GPU,
NCCL), and ``--ranks`` may be left out::

    torchrun --nnodes 2 --nproc-per-node 8 -m coursekit.lab collectives --json fits.json

Only rank 0 prints and writes JSON. Exit codes: 0 success; 1 a measurement
contradicts its check (a collective gave a wrong result on known tensors, or
memory differs from ledger + explained extras); 2 bad arguments (a message
names the argument, the value and the rule, in the language of ``--lang``,
argparse's own messages included), or a ``--json`` / ``--trace`` target that
cannot be written (checked, its folders made, before any rank starts; any
later refusal of the operating system is one line too); 3 PyTorch is missing; 4 a worker process
died or failed (one line says which rank and how); 130 / 143 interrupted
(SIGINT / SIGTERM); 141 stdout was closed (``... | head``). Temporary folders
``/tmp/coursekit-lab-*`` are removed on every one of these paths, and even
when this process is killed (SIGKILL): its ranks end at once and a janitor
removes the folders (:mod:`coursekit.lab._lifetime`).

Sizes are bounded: ``--ranks`` at most :data:`RANKS_PER_CPU` per CPU core
unless ``--force`` (then at most :data:`FORCED_RANKS_CEILING`);
``--max-bytes`` at most what the available memory holds for every rank's
buffers (:func:`max_payload_bytes`).

>>> main(["collectives", "--ranks", "0"])  # the reason goes to stderr
2

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from .._cli import (
    LANG_HELP,
    CourseParser,
    argparse_language,
    argparse_text,
    check_output_file,
    check_output_folder,
    fail_line,
    guard,
    language_args,
    number_arg,
    pre_language,
)
from .._validate import check_choice, learner_functions, plainly_written
from ..communication import COLLECTIVES
from ..i18n import LANGUAGES, Text, register, tr
from ._env import FORCED_RANKS_CEILING, WorkerFailed, launched_by_torchrun
from ._format import fmt_bytes
from .collectives import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MIN_BYTES,
    DEFAULT_REPEATS,
    DEFAULT_WARMUP,
    DEVICES,
    run_collectives,
)
from .memory import STRATEGIES, run_memory
from .timeline import (
    DEFAULT_STEPS,
    MAX_INPUT_DELAY_MS,
    MAX_SLOW_FACTOR,
    MAX_STEPS,
    TIMELINE_STRATEGIES,
    run_timeline,
)

__all__ = [
    "EXIT_BAD_ARGUMENTS",
    "EXIT_CHECK_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_NO_TORCH",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "EXIT_WORKER_FAILED",
    "FORCED_RANKS_CEILING",
    "RANKS_PER_CPU",
    "main",
    "max_payload_bytes",
    "parse_bytes",
]

EXIT_OK: int = 0
EXIT_CHECK_FAILED: int = 1
EXIT_BAD_ARGUMENTS: int = 2
EXIT_NO_TORCH: int = 3
EXIT_WORKER_FAILED: int = 4
#: 128 + the signal number, as shells report a process ended by that signal.
EXIT_INTERRUPTED: int = 128 + signal.SIGINT
EXIT_TERMINATED: int = 128 + signal.SIGTERM

#: Ranks per CPU core allowed without --force (2: the lab's E(P) runs 4 ranks on 2 cores).
RANKS_PER_CPU: int = 2
#: Share of the available memory the collectives' buffers may take.
MEMORY_SHARE: float = 0.5
#: Buffers a rank holds per payload byte at most (all_to_all: a send and a receive buffer of S).
BUFFERS_PER_PAYLOAD: int = 2
#: Digits accepted in a byte count before the suffix (10**30 bytes is already absurd).
MAX_SIZE_DIGITS: int = 30

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
        "lab.cli_wrong": {
            "zh": "集合通信 {kinds} 在已知张量上的结果错误。",
            "en": "collective(s) {kinds} gave wrong results on known tensors.",
        },
        "lab.cli_ranks_cap": {
            "zh": "--ranks = {value}：本机有 {cpus} 个 CPU 核，最多 {cap} 个 rank（每核 {per_cpu} 个）；"
            "确需更多请加 --force（上限 {ceiling}）。",
            "en": "--ranks = {value}: this machine has {cpus:@CPU core}, so at most {cap:@rank} ({per_cpu} per "
            "core); add --force for more (ceiling {ceiling}).",
        },
        "lab.cli_bytes_cap": {
            "zh": "--max-bytes = {value}：超过上限 {cap}。可用内存 {available} 的一半，分给 {ranks} 个 rank、"
            "每个 rank {buffers} 个缓冲区。",
            "en": "--max-bytes = {value}: above the cap of {cap}, which is half the available memory ({available}) "
            "shared by {ranks:@rank} with {buffers:@buffer} each.",
        },
        "lab.cli_interrupted": {
            "zh": "已中断（{signal}）：所有 rank 已停止，临时文件夹已删除。",
            "en": "interrupted ({signal}): every rank was stopped and the temporary folders removed.",
        },
        "lab.cli_slow_pair": {
            "zh": "--slow-rank 与 --slow-factor 必须一起给出。",
            "en": "give --slow-rank and --slow-factor together.",
        },
        "lab.cli_slow_rank": {
            "zh": "--slow-rank = {value}：必须在 0 到 --ranks - 1 = {last} 之间。",
            "en": "--slow-rank = {value}: must be between 0 and --ranks - 1 = {last}.",
        },
        "lab.cli_traces": {
            "zh": "每个 rank 的 Chrome / Perfetto 追踪在 {path}（用 chrome://tracing 或 https://ui.perfetto.dev 打开）",
            "en": "each rank's Chrome / Perfetto trace is in {path} (open it in chrome://tracing or "
            "https://ui.perfetto.dev)",
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
    if not (plainly_written(digits) and digits.isdigit()) or len(digits) > MAX_SIZE_DIGITS:
        raise ValueError(tr("lab.cli_bad_size", name=name, value=text[:60]))
    return int(digits) * SIZE_SUFFIXES[suffix]


def available_memory_bytes() -> int | None:
    """Memory the system can give without swapping (Linux ``MemAvailable``, else free pages), or ``None``."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def max_payload_bytes(ranks: int, available_bytes: int | None = None) -> int | None:
    """Largest ``--max-bytes``: :data:`MEMORY_SHARE` of the available memory over ranks × :data:`BUFFERS_PER_PAYLOAD`.

    ``None`` when the available memory cannot be read (no cap is applied then).

    >>> max_payload_bytes(2, available_bytes=8 * 2**30) == 2**30
    True

    Taught in: lesson 8 (formula vs measurement).
    """
    available = available_memory_bytes() if available_bytes is None else available_bytes
    if available is None:
        return None
    return int(available * MEMORY_SHARE) // (ranks * BUFFERS_PER_PAYLOAD)


def _list_type(name: str, choices: Sequence[str]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        try:
            if not parts:
                raise ValueError(tr("validate.choice", name=name, value=text, choices=", ".join(map(repr, choices))))
            for part in parts:
                check_choice(name, part, choices)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        return ",".join(parts)

    return parse


def _size_type(name: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            return parse_bytes(text, name)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The argument parser and its subcommand parsers, their help in the current language (apply ``--lang`` first)."""
    with argparse_language():  # argparse words its titles and -h help as it builds a parser
        parser = CourseParser(
            prog="python -m coursekit.lab",
            description=Text(
                zh="公式与实测对照：用 PyTorch 为集合通信计时、清点训练状态的字节数、剖析训练步。",
                en="Formula vs measurement: time collectives, count training-state bytes and profile training "
                "steps with PyTorch.",
            ).render(),
        )
        parser.add_argument("--lang", choices=LANGUAGES, help=LANG_HELP.render())
        commands = parser.add_subparsers(
            dest="command",
            required=True,
            help=Text(
                zh="要做的测量；在它后面加 --help 显示它的选项",
                en="the measurement to run; --help after it shows its options",
            ).render(),
        )
        subcommands = {
            "collectives": _add_collectives(commands),
            "memory": _add_memory(commands),
            "timeline": _add_timeline(commands),
            "record": _add_record(commands),
        }
    return parser, subcommands


def _common(sub: argparse.ArgumentParser) -> None:
    """The options of every subcommand: ranks, device, JSON output, language."""
    sub.add_argument(
        "--ranks",
        type=number_arg(int, "--ranks", ge=1, le=FORCED_RANKS_CEILING),
        default=None,
        help=Text(
            zh=f"在本机启动的进程数（默认 2；不加 --force 时每个 CPU 核最多 {RANKS_PER_CPU} 个；"
            "在 torchrun 下为 WORLD_SIZE）",
            en=f"processes to spawn on this machine (default 2; at most {RANKS_PER_CPU} per CPU core without "
            "--force; under torchrun: WORLD_SIZE)",
        ).render(),
    )
    sub.add_argument(
        "--force",
        action="store_true",
        help=Text(
            zh=f"允许每个 CPU 核超过 {RANKS_PER_CPU} 个 rank（最多 {FORCED_RANKS_CEILING} 个）",
            en=f"allow more than {RANKS_PER_CPU} ranks per CPU core (at most {FORCED_RANKS_CEILING})",
        ).render(),
    )
    sub.add_argument(
        "--device",
        choices=DEVICES,
        default="auto",
        help=Text(
            zh="auto：有 CUDA 时用 CUDA+NCCL，否则用 CPU+gloo", en="auto: CUDA+NCCL if available, else CPU+gloo"
        ).render(),
    )
    sub.add_argument(
        "--json",
        metavar="PATH",
        help=Text(zh="同时把结果以 JSON 写入 PATH", en="also write the results as JSON to PATH").render(),
    )
    sub.add_argument("--lang", choices=LANGUAGES, default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def _add_collectives(commands: Any) -> argparse.ArgumentParser:
    coll: argparse.ArgumentParser = commands.add_parser(
        "collectives",
        help=Text(
            zh="为集合通信计时，并拟合环形算法的 alpha-beta 模型",
            en="time collectives and fit the ring alpha-beta model",
        ).render(),
    )
    _common(coll)
    names = ",".join(COLLECTIVES)
    coll.add_argument(
        "--collectives",
        type=_list_type("--collectives", COLLECTIVES),
        default=names,
        help=Text(
            zh=f"{names} 中以逗号分隔的一部分（默认：全部）", en=f"comma-separated subset of {names} (default: all)"
        ).render(),
    )
    coll.add_argument(
        "--min-bytes",
        type=_size_type("--min-bytes"),
        default=DEFAULT_MIN_BYTES,
        help=Text(zh="最小载荷 S（默认 1K）", en="smallest payload S (default 1K)").render(),
    )
    coll.add_argument(
        "--max-bytes",
        type=_size_type("--max-bytes"),
        default=DEFAULT_MAX_BYTES,
        help=Text(
            zh="最大载荷 S（默认 16M；不超过可用内存所能容纳的大小）",
            en="largest payload S (default 16M; capped by the available memory)",
        ).render(),
    )
    coll.add_argument(
        "--repeats",
        type=number_arg(int, "--repeats", ge=1, le=10_000),
        default=DEFAULT_REPEATS,
        help=Text(
            zh="每个载荷计时的调用次数（默认 %(default)s）", en="timed calls per payload (default %(default)s)"
        ).render(),
    )
    coll.add_argument(
        "--warmup",
        type=number_arg(int, "--warmup", ge=0, le=1_000),
        default=DEFAULT_WARMUP,
        help=Text(
            zh="每个载荷不计时的预热调用次数（默认 %(default)s）", en="untimed calls per payload (default %(default)s)"
        ).render(),
    )
    return coll


def _add_memory(commands: Any) -> argparse.ArgumentParser:
    mem: argparse.ArgumentParser = commands.add_parser(
        "memory",
        help=Text(
            zh="清点 DDP、FSDP2 和 TP 下每个 rank 持有的字节数，并与账本对照",
            en="count per-rank bytes under DDP, FSDP2 and TP vs the ledger",
        ).render(),
    )
    _common(mem)
    names = ",".join(STRATEGIES)
    mem.add_argument(
        "--strategies",
        type=_list_type("--strategies", STRATEGIES),
        default=None,
        help=Text(
            zh=f"{names} 中以逗号分隔的一部分（默认：全部）", en=f"comma-separated subset of {names} (default: all)"
        ).render(),
    )
    return mem


def _add_timeline(commands: Any) -> argparse.ArgumentParser:
    tl: argparse.ArgumentParser = commands.add_parser(
        "timeline",
        help=Text(
            zh="在每个 rank 上剖析训练步：计算、通信、等待，并与 step_timeline 对照",
            en="profile training steps on every rank: compute, communication, waiting vs step_timeline",
        ).render(),
    )
    _common(tl)
    tl.add_argument(
        "--strategy",
        type=_list_type("--strategy", TIMELINE_STRATEGIES),
        default="ddp",
        help=Text(
            zh="ddp、fsdp 或 tp，或以逗号分隔的几个（默认 ddp）",
            en="ddp, fsdp or tp, or a comma-separated list (default ddp)",
        ).render(),
    )
    tl.add_argument(
        "--steps",
        type=number_arg(int, "--steps", ge=1, le=MAX_STEPS),
        default=DEFAULT_STEPS,
        help=Text(
            zh=f"每个场景剖析的步数（默认 {DEFAULT_STEPS}，最多 {MAX_STEPS}）",
            en=f"profiled steps per scenario (default {DEFAULT_STEPS}, at most {MAX_STEPS})",
        ).render(),
    )
    tl.add_argument(
        "--slow-rank",
        type=number_arg(int, "--slow-rank", ge=0, le=FORCED_RANKS_CEILING - 1),
        default=None,
        help=Text(zh="计算较慢的 rank（掉队者）", en="rank that computes slower (the straggler)").render(),
    )
    tl.add_argument(
        "--slow-factor",
        type=number_arg(float, "--slow-factor", gt=1, le=MAX_SLOW_FACTOR),
        default=None,
        help=Text(
            zh=f"慢 rank 的计算量是其基准的几倍（> 1，最多 {MAX_SLOW_FACTOR:g}）",
            en=f"how many times its baseline compute the slow rank does (> 1, at most {MAX_SLOW_FACTOR:g})",
        ).render(),
    )
    tl.add_argument(
        "--input-delay-ms",
        type=number_arg(float, "--input-delay-ms", gt=0, le=MAX_INPUT_DELAY_MS),
        default=None,
        help=Text(
            zh=f"每步读取输入时等待这么久（最多 {MAX_INPUT_DELAY_MS:g} ms）",
            en=f"sleep this long in every step's input (at most {MAX_INPUT_DELAY_MS:g} ms)",
        ).render(),
    )
    tl.add_argument(
        "--no-overlap",
        action="store_true",
        help=Text(
            zh="另外运行一次 DDP，把梯度全归约 (all-reduce) 放到反向之后（关闭分桶和重叠）",
            en="also run DDP with its gradient all-reduce after backward (bucketing and overlap off)",
        ).render(),
    )
    tl.add_argument(
        "--trace",
        metavar="DIR",
        default=None,
        help=Text(
            zh="把每个 rank 的 Chrome / Perfetto 追踪保存在 DIR", en="keep each rank's Chrome / Perfetto trace in DIR"
        ).render(),
    )
    return tl


def _add_record(commands: Any) -> argparse.ArgumentParser:
    rec: argparse.ArgumentParser = commands.add_parser(
        "record",
        help=Text(
            zh="运行第 8 课的全部测量，并写入一个 JSON 文件",
            en="run every measurement of lesson 8 and write them to one JSON file",
        ).render(),
    )
    _common(rec)
    rec.add_argument(
        "--steps",
        type=number_arg(int, "--steps", ge=1, le=MAX_STEPS),
        default=DEFAULT_STEPS,
        help=Text(
            zh=f"每个时间线场景剖析的步数（默认 {DEFAULT_STEPS}）",
            en=f"profiled steps per timeline scenario (default {DEFAULT_STEPS})",
        ).render(),
    )
    return rec


def _is_rank_zero() -> bool:
    return not launched_by_torchrun() or os.environ.get("RANK") == "0"


class _Terminated(BaseException):
    """SIGTERM arrived: unwind like an interrupt so every ``finally`` (temporary folders, workers) runs."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise _Terminated


def _check_ranks_cap(ranks: int | None, force: bool) -> None:
    if ranks is None:
        return
    cpus = os.cpu_count() or 1
    cap = RANKS_PER_CPU * cpus
    if ranks > cap and not force:
        raise ValueError(
            tr(
                "lab.cli_ranks_cap",
                value=ranks,
                cpus=cpus,
                cap=cap,
                per_cpu=RANKS_PER_CPU,
                ceiling=FORCED_RANKS_CEILING,
            )
        )


def _run(args: argparse.Namespace, ranks: int | None) -> tuple[Any, str, bool]:
    """Run the chosen command; ``(report, text, failed)``."""
    if args.command == "collectives":
        available = available_memory_bytes()
        cap = max_payload_bytes(ranks or 1, available)
        if cap is not None and available is not None and args.max_bytes > cap:
            raise ValueError(
                tr(
                    "lab.cli_bytes_cap",
                    value=fmt_bytes(args.max_bytes),
                    cap=fmt_bytes(cap),
                    available=fmt_bytes(available),
                    ranks=ranks or 1,
                    buffers=BUFFERS_PER_PAYLOAD,
                )
            )
        report: Any = run_collectives(
            ranks=ranks,
            collectives=args.collectives,
            min_bytes=args.min_bytes,
            max_bytes=args.max_bytes,
            repeats=args.repeats,
            warmup=args.warmup,
            device=args.device,
        )
        text = report.format()
        failed = bool(report.wrong_results)
        if failed:
            text += "\n" + tr("lab.cli_wrong", kinds=", ".join(report.wrong_results))
        return report, text, failed
    if args.command == "memory":
        report = run_memory(ranks=ranks, strategies=args.strategies, device=args.device)
        return report, report.format(), not report.matches
    if args.command == "timeline":
        if (args.slow_rank is None) != (args.slow_factor is None):
            raise ValueError(tr("lab.cli_slow_pair"))
        if args.slow_rank is not None and ranks is not None and args.slow_rank >= ranks:
            raise ValueError(tr("lab.cli_slow_rank", value=args.slow_rank, last=ranks - 1))
        report = run_timeline(
            ranks=ranks,
            strategies=args.strategy,
            steps=args.steps,
            slow_rank=args.slow_rank,
            slow_factor=args.slow_factor,
            input_delay_ms=args.input_delay_ms,
            no_overlap=args.no_overlap,
            trace_dir=args.trace,
            device=args.device,
        )
        text = report.format()
        if args.trace is not None:
            text += "\n\n" + tr("lab.cli_traces", path=args.trace)
        return report, text, False
    from .recorded import record_lesson

    bundle = record_lesson(ranks=ranks, steps=args.steps, device=args.device)
    return bundle, bundle.format(), False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    argv = language_args(sys.argv[1:] if argv is None else argv)  # --lang zh_CN, ZH ... as --lang zh
    return guard("python -m coursekit.lab", lambda: _main(argv), argv)


def _check_paths(args: argparse.Namespace) -> None:
    """Refuse a ``--json`` or ``--trace`` target that cannot be written, before any rank starts.

    Under torchrun only rank 0 writes ``--json``, so only rank 0 tries it: every rank trying the same new file at
    once raced (one removed the trial file the other was about to remove, and that rank stopped with exit 2).
    """
    if args.json is not None and _is_rank_zero():
        check_output_file("--json", args.json, create=True)
    if getattr(args, "trace", None) is not None:
        check_output_folder("--trace", args.trace, create=True)


def _main(argv: list[str]) -> int:
    pre_language(argv)  # --lang anywhere in argv, before the parsers are built (their help is in it too)
    parser, commands = build_parser()
    try:
        with argparse_language():
            args = parser.parse_args(argv)
    except SystemExit as done:  # argparse printed its message (or the help)
        return done.code if isinstance(done.code, int) else EXIT_BAD_ARGUMENTS
    command = commands[args.command]
    try:
        _check_paths(args)
    except ValueError as error:
        return fail_line(command.prog, str(error))
    ranks = args.ranks if args.ranks is not None or launched_by_torchrun() else 2
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if _in_main_thread() else None
    try:
        try:
            _check_ranks_cap(args.ranks, args.force)
            report, text, failed = _run(args, ranks)
        except ImportError as error:
            print(str(error), file=sys.stderr)
            return EXIT_NO_TORCH
        except (TypeError, ValueError) as error:
            with argparse_language():
                command.print_usage(sys.stderr)
                print(
                    argparse_text("%(prog)s: error: %(message)s\n") % {"prog": command.prog, "message": error},
                    end="",
                    file=sys.stderr,
                )
            return EXIT_BAD_ARGUMENTS
        except WorkerFailed as error:
            print(f"{command.prog}: {error}", file=sys.stderr)
            return EXIT_WORKER_FAILED
        except KeyboardInterrupt:
            print(f"{command.prog}: {tr('lab.cli_interrupted', signal='SIGINT')}", file=sys.stderr)
            return EXIT_INTERRUPTED
        except _Terminated:
            print(f"{command.prog}: {tr('lab.cli_interrupted', signal='SIGTERM')}", file=sys.stderr)
            return EXIT_TERMINATED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if _is_rank_zero():
        print(text)
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            report.write_json(args.json)
            print(tr("lab.cli_wrote", path=args.json))
    return EXIT_CHECK_FAILED if failed else EXIT_OK


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


learner_functions(globals())
