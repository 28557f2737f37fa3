"""A Ctrl-C typed while the lab starts its ranks is held and delivered, never dropped.

The parent blocks SIGINT while it spawns ranks, so they start with it blocked
(inherited across ``exec``) and ignore it from their first line on. A Ctrl-C
that reaches the parent meanwhile -- pending in the blocking thread, or taken
by another thread -- must reach the parent's own handler once the start is
over. These tests send the signal inside that moment and check the outcome:
the run stops (``KeyboardInterrupt``) after the start, not in the middle of it,
and the ranks already started are stopped with it. No PyTorch is needed.
"""

from __future__ import annotations

import multiprocessing.context
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from coursekit.lab._lifetime import ranks_ignore_sigint, start_ranks

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs POSIX signal masks")


def test_a_ctrl_c_inside_the_start_is_delivered_when_it_ends() -> None:
    reached_end_of_block = False
    with pytest.raises(KeyboardInterrupt):
        with ranks_ignore_sigint():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # an ignored, unblocked SIGINT would be gone by now
            reached_end_of_block = True
    assert reached_end_of_block  # held during the start, not acted on inside it
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


def test_a_child_started_inside_inherits_the_block_and_a_rank_ignores_then_unblocks() -> None:
    probe = (
        "import signal, sys\n"
        "ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN\n"
        "blocked_before = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())\n"
        "from coursekit.lab._lifetime import end_with_parent\n"
        "import os\n"
        "end_with_parent(os.getppid())\n"
        "blocked_after = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())\n"
        "still_ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN\n"
        "print(ignored, blocked_before, blocked_after, still_ignored)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with ranks_ignore_sigint():
        child = subprocess.Popen([sys.executable, "-c", probe], env=env, stdout=subprocess.PIPE, text=True)
    out, _ = child.communicate(timeout=60)
    # Not ignored at first (a caught handler is reset by exec) but blocked; then ignored and unblocked.
    assert out.split() == ["False", "True", "False", "True"]


def test_a_ctrl_c_taken_by_another_thread_is_held_too() -> None:
    """A terminal's Ctrl-C goes to the process; a thread that does not block it may take it."""
    import threading

    taken = threading.Event()

    def other_thread() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, set())  # this thread leaves SIGINT unblocked
        taken.wait(5)

    thread = threading.Thread(target=other_thread)
    thread.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            with ranks_ignore_sigint():
                os.kill(os.getpid(), signal.SIGINT)  # process-directed: only the other thread can take it now
                time.sleep(0.2)
                reached_end_of_block = True
        assert reached_end_of_block
    finally:
        taken.set()
        thread.join()


RANK_MASKS = """
import multiprocessing.util, signal, sys, time
from coursekit.lab._lifetime import start_ranks, stop_ranks

seen = []
real = multiprocessing.util.spawnv_passfds

def spawn_and_record(path, args, passfds):
    if "--multiprocessing-fork" in args:  # a rank, not the resource tracker
        seen.append(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set()))
    return real(path, args, passfds)

multiprocessing.util.spawnv_passfds = spawn_and_record
stop_ranks(start_ranks(time.sleep, 2, (0.0,), sys.argv[1]))
print(seen)
"""


def test_every_rank_starts_with_sigint_held_in_a_fresh_process(tmp_path: Path) -> None:
    """The first start in a process also starts multiprocessing's resource tracker, which unblocks SIGINT."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", RANK_MASKS, str(tmp_path)], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.strip() == "[True, True]", out.stderr


def test_ranks_started_before_a_held_ctrl_c_are_stopped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    started: list[Any] = []
    real_start = multiprocessing.context.SpawnProcess.start

    def start_then_ctrl_c(self: Any) -> None:
        real_start(self)
        started.append(self)
        if len(started) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # typed after the first rank started, before the second

    monkeypatch.setattr(multiprocessing.context.SpawnProcess, "start", start_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        start_ranks(time.sleep, 2, (60.0,), str(tmp_path))
    assert len(started) == 2  # the start finished: the signal was held, not acted on mid-way
    assert [process.is_alive() for process in started] == [False, False]
    assert all(process.exitcode is not None for process in started)
