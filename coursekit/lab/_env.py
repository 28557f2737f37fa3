"""What the lab needs before torch is imported: torchrun detection, temporary folders, worker faults.

>>> isinstance(launched_by_torchrun(), bool)
True
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from ..i18n import register

#: Prefix of every temporary folder the lab makes (all removed on the way out, signals included).
TEMP_PREFIX: str = "coursekit-lab-"
#: Environment variable naming a rank that exits at once with code 7 (the lab's fault-path tests).
KILL_RANK_ENV: str = "COURSEKIT_LAB_KILL_RANK"

register(
    {
        "lab.wrong_result": {
            "zh": "已知张量上的结果不对（rank {rank}）：得到 {got}，应为 {expected}。",
            "en": "wrong result on known tensors (rank {rank}): got {got}, expected {expected}.",
        },
        "lab.unsupported_backend": {
            "zh": "后端 {backend} 不支持：{error}",
            "en": "unsupported by backend {backend}: {error}",
        },
        "lab.needs_two_ranks": {
            "zh": "点对点收发 (send_recv) 需要至少 2 个 rank（环上每个 rank 发给下一个）。",
            "en": "send_recv needs at least 2 ranks (each rank sends to the next one on the ring).",
        },
        "lab.no_cuda": {
            "zh": "device = 'cuda'：torch.cuda.is_available() 为 False，请改用 --device auto 或 cpu。",
            "en": "device = 'cuda': torch.cuda.is_available() is False; use --device auto or cpu.",
        },
        "lab.worker_died": {
            "zh": "rank {rank} 的进程意外结束（{how}），其余 rank 已停止。",
            "en": "the process of rank {rank} ended unexpectedly ({how}); the other ranks were stopped.",
        },
        "lab.worker_signal": {
            "zh": "被信号 {signal} 终止；SIGKILL 常见于内存不足",
            "en": "killed by signal {signal}; SIGKILL often means out of memory",
        },
        "lab.worker_exit_code": {"zh": "退出码 {code}", "en": "exit code {code}"},
        "lab.worker_raised": {
            "zh": "rank {rank} 出错并停止：{error}",
            "en": "rank {rank} failed and stopped: {error}",
        },
    }
)


#: Kineto (the profiler's tracing library) prints a "USDT ... profiler_start" line per rank and step
#: to stderr at its default level; level 6 keeps the lab's output to its own messages.
KINETO_LOG_ENV: str = "KINETO_LOG_LEVEL"
KINETO_QUIET_LEVEL: str = "6"


def quiet_profiler() -> None:
    """Silence Kineto's progress lines in this process and the ranks it starts (unless the user set a level)."""
    os.environ.setdefault(KINETO_LOG_ENV, KINETO_QUIET_LEVEL)


class WorkerFailed(RuntimeError):
    """A rank of the lab died or raised; the message is one line in the current language."""


@contextmanager
def temporary_folder() -> Iterator[str]:
    """A fresh ``/tmp/coursekit-lab-*`` folder, removed when the block ends however it ends.

    Even SIGKILL of this process: a small janitor process removes the folder then.

    >>> with temporary_folder() as path:
    ...     os.path.isdir(path)
    True
    >>> os.path.exists(path)
    False
    """
    path = tempfile.mkdtemp(prefix=TEMP_PREFIX)
    janitor = _start_janitor(path)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        if janitor is not None:
            _dismiss(janitor)


#: The janitor: a bare interpreter (no site, no coursekit) that waits for "done" on stdin and removes the
#: folder if stdin closes without it, which happens when the process that made the folder was killed.
_JANITOR_CODE: str = (
    "import shutil, sys\nif sys.stdin.buffer.read() != b'done':\n    shutil.rmtree(sys.argv[1], ignore_errors=True)\n"
)


def _start_janitor(path: str) -> subprocess.Popen[bytes] | None:
    """A process that removes ``path`` if this one dies before it does (SIGKILL runs no ``finally``)."""
    try:
        return subprocess.Popen(
            [sys.executable, "-S", "-c", _JANITOR_CODE, path],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # out of the terminal's process group: Ctrl-C and hang-ups are for us
        )
    except OSError:  # no interpreter to start (an embedded Python): the folder is still removed on every other path
        return None


def _dismiss(janitor: subprocess.Popen[bytes]) -> None:
    if janitor.stdin is not None:
        try:
            janitor.stdin.write(b"done")
            janitor.stdin.close()
        except OSError:  # it is gone already
            pass
    janitor.wait()


#: Environment variables torchrun sets for every worker (PyTorch docs, torch.distributed.run).
TORCHRUN_ENV_VARS: tuple[str, ...] = ("RANK", "WORLD_SIZE", "LOCAL_RANK")


#: Most ranks the lab spawns on one machine (each rank is a process importing PyTorch, ~0.3-0.5 GiB); the command
#: line's ``--force`` ceiling too. Under torchrun the launcher decides and its WORLD_SIZE is taken as it is.
FORCED_RANKS_CEILING: int = 64


def launched_by_torchrun() -> bool:
    """True when this process is a torchrun worker (``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK`` are set)."""
    return all(name in os.environ for name in TORCHRUN_ENV_VARS)


def torchrun_world_size() -> int:
    """``WORLD_SIZE`` of the torchrun job this process belongs to."""
    return int(os.environ["WORLD_SIZE"])
