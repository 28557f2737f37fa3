"""A spawned rank lives no longer than the process that started it.

The parent (the lab's command line, a notebook's kernel) owns Ctrl-C and the
clean-up: it blocks SIGINT while it starts the ranks, so they start with SIGINT
blocked (inherited across ``exec``) and ignore it from their first line on; a
Ctrl-C typed while PyTorch is still importing prints no rank tracebacks (the
parent catches it, stops the ranks and removes the temporary folders). A Ctrl-C
typed while the ranks start is held and delivered to the parent afterwards,
never dropped. A rank ends at once when its parent dies, through two paths:

* Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (via ctypes): the kernel kills the
  rank the moment the parent dies, whatever the rank is doing (importing
  PyTorch, waiting in a rendezvous, inside a collective);
* elsewhere, a watchdog thread polls ``os.getppid()`` every
  :data:`WATCHDOG_PERIOD_S` and leaves with ``os._exit`` when it changes.

Neither path runs Python's exception handling, so no PyTorch error file
(``pytorch-errorfile-*``, written for exceptions) is left; the temporary
folders are removed by the janitor of :func:`coursekit.lab._env.temporary_folder`.

>>> WATCHDOG_PERIOD_S < 2
True

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..i18n import tr
from ._env import WorkerFailed

#: Longest time between the parent's death and the watchdog noticing it, s.
WATCHDOG_PERIOD_S: float = 0.25
#: Exit status of a rank that leaves because its parent died (128 + SIGKILL, as the kernel's path reports).
EXIT_ORPHANED: int = 128 + signal.SIGKILL
#: ``PR_SET_PDEATHSIG`` of ``<linux/prctl.h>``.
PR_SET_PDEATHSIG: int = 1

__all__ = [
    "EXIT_ORPHANED",
    "WATCHDOG_PERIOD_S",
    "end_with_parent",
    "join_ranks",
    "ranks_ignore_sigint",
    "set_parent_death_signal",
    "spawn_entry",
    "start_ranks",
    "stop_ranks",
]


def set_parent_death_signal(signum: int) -> bool:
    """Ask Linux to send ``signum`` to this process when its parent dies; ``False`` where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


@contextlib.contextmanager
def ranks_ignore_sigint() -> Iterator[None]:
    """While starting ranks: hold any Ctrl-C here, and let the ranks start with SIGINT held too.

    Where POSIX signal masks exist, this thread blocks SIGINT, and a spawned rank inherits the
    block across ``exec`` (a Ctrl-C to the terminal's group stays pending in it until
    :func:`end_with_parent` ignores it). A Ctrl-C that reaches this process meanwhile is not acted
    on mid-start, nor dropped: it is recorded (or stays pending) and handed to the previous handler
    on the way out -- a ``KeyboardInterrupt`` under Python's default handler. Elsewhere (Windows)
    SIGINT is ignored instead, so the ranks inherit "ignore". Only the main thread may change
    signal handlers; in other threads this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    can_block = hasattr(signal, "pthread_sigmask")
    held: list[int] = []
    # Another thread may take a process-wide Ctrl-C while this one blocks it: record it there.
    previous = signal.signal(
        signal.SIGINT, (lambda signum, frame: held.append(signum)) if can_block else signal.SIG_IGN
    )
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if can_block else set()
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if can_block:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # one pending in this thread arrives here
        if held:
            signal.raise_signal(signal.SIGINT)


def _leave_if_orphaned(parent_pid: int) -> None:
    if os.getppid() != parent_pid:
        os._exit(EXIT_ORPHANED)


def _watch(parent_pid: int) -> None:
    tick = threading.Event()
    while not tick.wait(WATCHDOG_PERIOD_S):
        _leave_if_orphaned(parent_pid)


def end_with_parent(parent_pid: int) -> None:
    """In a freshly spawned rank: ignore Ctrl-C (the parent handles it) and end when ``parent_pid`` dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # also drops a Ctrl-C held since the rank started
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # inherited blocked; ignored from now on
    set_parent_death_signal(signal.SIGKILL)
    threading.Thread(target=_watch, args=(parent_pid,), name="coursekit-lab-watchdog", daemon=True).start()
    _leave_if_orphaned(parent_pid)  # the parent died before the signal was armed


def spawn_entry(rank: int, parent_pid: int, payload: bytes, error_path: str) -> None:
    """What a spawned rank runs: arm :func:`end_with_parent`, then unpickle and run ``function(rank, *args)``.

    The work (``payload``: a pickled ``(function, args)``) is unpickled only now, because unpickling
    imports PyTorch, which takes seconds: the rank must already end with its parent by then. An
    exception's traceback goes to ``error_path`` (inside the lab's temporary folder) for the parent.
    """
    end_with_parent(parent_pid)
    try:
        function, args = pickle.loads(payload)
        function(rank, *args)
    except Exception:
        _leave_if_orphaned(parent_pid)  # a peer vanished with the parent: no report
        Path(error_path).write_text(traceback.format_exc(), encoding="utf-8")
        sys.exit(1)


def start_ranks(function: Callable[..., Any], ranks: int, args: tuple[Any, ...], folder: str) -> list[Any]:
    """Spawn ``ranks`` processes running ``function(rank, *args)``; they ignore SIGINT and end with this process.

    A Ctrl-C while they start is held until all have started; then the ranks go and it is re-raised.

    This module imports no PyTorch, so a rank arms its parent-death signal within the first second,
    before it imports PyTorch (``torch.multiprocessing`` would import it first, through its own entry).
    """
    spawn = multiprocessing.get_context("spawn")
    payload = pickle.dumps((function, args))
    processes: list[Any] = []
    if os.name == "posix":
        # The spawn start method starts multiprocessing's resource tracker with the first rank, and
        # unblocks SIGINT after it: start it now, so the ranks below start with SIGINT still held.
        from multiprocessing import resource_tracker  # here: it needs _multiprocessing, which Pyodide lacks

        resource_tracker.ensure_running()
    try:
        with ranks_ignore_sigint():  # inherited across exec: a Ctrl-C while a rank imports stays with us
            for rank in range(ranks):
                error_path = str(Path(folder) / f"rank{rank}.error")
                process = spawn.Process(target=spawn_entry, args=(rank, os.getpid(), payload, error_path))
                process.start()
                processes.append(process)
    except BaseException:  # a Ctrl-C held while starting: the ranks already started go too
        stop_ranks(processes)
        raise
    return processes


def join_ranks(processes: Sequence[Any], folder: str) -> None:
    """Wait for every rank; the first that fails raises :class:`WorkerFailed` (one line: which rank, how)."""
    pending = dict(enumerate(processes))
    while pending:
        multiprocessing.connection.wait([process.sentinel for process in pending.values()], timeout=0.5)
        for rank, process in list(pending.items()):
            if process.exitcode is None:
                continue
            del pending[rank]
            if process.exitcode != 0:
                raise WorkerFailed(_failure(rank, process.exitcode, Path(folder) / f"rank{rank}.error"))


def _failure(rank: int, exit_code: int, error_path: Path) -> str:
    if error_path.is_file():
        lines = [line.strip() for line in error_path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return tr("lab.worker_raised", rank=rank, error=(lines[-1] if lines else "?")[:300])
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = str(-exit_code)
        return tr("lab.worker_died", rank=rank, how=tr("lab.worker_signal", signal=name))
    return tr("lab.worker_died", rank=rank, how=tr("lab.worker_exit_code", code=exit_code))


def stop_ranks(processes: Sequence[Any]) -> None:
    """Terminate the ranks still running (SIGTERM, then SIGKILL after 10 s) and reap them all."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
            process.join()
