"""The lab's ranks live no longer than their parent, and a Ctrl-C while they start prints no rank tracebacks.

Each test starts ``python -m coursekit.lab timeline`` in its own session with
``TMPDIR`` pointing at a fresh folder, so every temporary folder and PyTorch
error file the run makes lands where the test can count it. Waiting uses
generous polling deadlines (the machine may be loaded); what is asserted is
the outcome: the ranks are gone, nothing is left behind, no traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("torch")
if not Path("/proc/self/stat").exists():  # pragma: no cover - the process table is read from /proc
    pytest.skip("needs /proc", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
#: Generous deadlines for a loaded machine, s (the rank's own bound is a fraction of a second).
START_DEADLINE_S = 120.0
#: A rank must be gone within a few seconds of its parent (its own bound: at once on Linux, 0.25 s elsewhere).
RANKS_GONE_DEADLINE_S = 5.0
GONE_DEADLINE_S = 20.0
#: What multiprocessing's spawn puts on a rank's command line.
RANK_MARK = "--multiprocessing-fork"


def _ranks_of(parent: int) -> list[int]:
    """Living processes whose parent is ``parent`` and whose command line is a spawned rank's."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z" and RANK_MARK in cmdline:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its exit status waits to be read


def _poll(condition: object, deadline_s: float) -> bool:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return bool(condition())  # type: ignore[operator]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(("coursekit-lab-", "pytorch-errorfile-")))


@pytest.fixture
def lab_run(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, list[int]]]:
    """A two-rank timeline run whose ranks have just been spawned: (process, its TMPDIR, rank pids)."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(ROOT), "COURSEKIT_LANG": "en"}
    process = subprocess.Popen(
        [sys.executable, "-m", "coursekit.lab", "timeline", "--ranks", "2", "--steps", "1"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    ranks: list[int] = []
    try:
        assert _poll(lambda: len(_ranks_of(process.pid)) == 2 or process.poll() is not None, START_DEADLINE_S)
        ranks = _ranks_of(process.pid)
        assert len(ranks) == 2, f"ranks not seen (exit {process.poll()})"
        yield process, temp, ranks
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        for pid in ranks:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("delay_s", [0.0, 8.0], ids=["while-importing", "while-running"])
def test_ranks_end_with_a_killed_parent_and_leave_nothing(
    lab_run: tuple[subprocess.Popen[str], Path, list[int]], delay_s: float
) -> None:
    process, temp, ranks = lab_run
    time.sleep(delay_s)
    if process.poll() is not None:
        pytest.skip("the run ended before the parent could be killed")
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert _poll(lambda: not any(_alive(pid) for pid in ranks), RANKS_GONE_DEADLINE_S), "ranks outlived their parent"
    assert _poll(lambda: not _leftovers(temp), GONE_DEADLINE_S), _leftovers(temp)


def test_ctrl_c_while_ranks_start_prints_no_rank_traceback(
    lab_run: tuple[subprocess.Popen[str], Path, list[int]],
) -> None:
    process, temp, ranks = lab_run
    os.killpg(process.pid, signal.SIGINT)  # what a terminal sends to the whole foreground group
    _, err = process.communicate(timeout=GONE_DEADLINE_S * 3)
    assert "Traceback" not in err, err
    assert process.returncode == 128 + signal.SIGINT, err
    assert len(err.strip().splitlines()) == 1, err
    assert "interrupted (SIGINT)" in err
    assert not any(_alive(pid) for pid in ranks)
    assert not _leftovers(temp)
