"""Where the website build's time goes: wall and CPU clocks at the boundaries of its phases.

:class:`Clock` times the phases :func:`build_site.build` runs itself (staging, finishing, PDF printing); the
Sphinx run is a child process, so this module is also a small Sphinx extension (listed in the ``conf.py`` the
builder writes) that appends the clocks at the end of Sphinx's read phase (every page parsed, every lesson
executed) and at the end of its write phase to the file named by ``coursekit_phase_file``. CPU time counts the
process and every child it has waited for (Sphinx's parallel readers, the notebook kernels), so CPU above
wall time means the phase used both cores.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def cpu_s() -> float:
    """CPU seconds (user + system) of this process and of every child process it has waited for (children:
    0 on Windows, where the operating system does not count them)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def tree_cpu_s(pid: int | None = None) -> float:
    """CPU seconds of the live descendants of process ``pid`` (default: this one), their reaped children
    included. For a browser whose helper processes are not reaped by this process (Chromium's renderers):
    read it before the browser closes. 0.0 where /proc is missing."""
    root = os.getpid() if pid is None else pid
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
    total, frontier = 0.0, [root]
    while frontier:
        children = [p for p, parent in parents.items() if parent in frontier]
        total += sum(times[p] for p in children)
        frontier = children
    return total


def stamp() -> dict[str, float]:
    """The clocks now: wall (epoch seconds, comparable across processes) and this process tree's CPU seconds."""
    return {"wall_s": time.time(), "cpu_s": cpu_s()}


class Clock:
    """Phase timings: ``with clock.phase("finish"): ...`` records its wall and CPU seconds under that name."""

    def __init__(self) -> None:
        self.phases: dict[str, dict[str, float]] = {}

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = stamp()
        try:
            yield
        finally:
            self.add(name, start, stamp())

    def add(self, name: str, start: dict[str, float], end: dict[str, float]) -> None:
        self.phases[name] = {
            "wall_s": round(end["wall_s"] - start["wall_s"], 2),
            "cpu_s": round(end["cpu_s"] - start["cpu_s"], 2),
        }

    def add_cpu(self, name: str, cpu_s: float) -> None:
        """Count ``cpu_s`` more CPU seconds for phase ``name`` (processes the CPU clock cannot see)."""
        self.phases[name]["cpu_s"] = round(self.phases[name]["cpu_s"] + cpu_s, 2)

    def split_sphinx(self, start: dict[str, float], marks_file: Path, end: dict[str, float]) -> None:
        """Record ``sphinx_read`` and ``sphinx_write`` from the marks the extension left (``sphinx`` if none).

        ``start`` and ``end`` are the builder's clocks around the Sphinx process; the marks carry the Sphinx
        process's own CPU clock, which starts near zero.
        """
        marks = json.loads(marks_file.read_text(encoding="utf-8")) if marks_file.exists() else {}
        read, write = marks.get("read"), marks.get("write")
        if read is None or write is None:
            self.add("sphinx", start, end)
            return
        self.add("sphinx_read", {"wall_s": start["wall_s"], "cpu_s": 0.0}, read)
        self.add("sphinx_write", read, write)
        # Starting the interpreter and Sphinx before the first mark, exiting after the last: folded into the ends.
        total = end["cpu_s"] - start["cpu_s"]
        self.phases["sphinx_write"]["wall_s"] = round(end["wall_s"] - read["wall_s"], 2)
        self.phases["sphinx_write"]["cpu_s"] = round(total - self.phases["sphinx_read"]["cpu_s"], 2)

    def summary(self) -> dict[str, Any]:
        total_wall = sum(p["wall_s"] for p in self.phases.values())
        total_cpu = sum(p["cpu_s"] for p in self.phases.values())
        return {**self.phases, "total": {"wall_s": round(total_wall, 2), "cpu_s": round(total_cpu, 2)}}


# -- the Sphinx extension ---------------------------------------------------------------------


def _mark(app: Any, name: str) -> None:
    path = app.config.coursekit_phase_file
    if not path:
        return
    target = Path(app.srcdir) / path
    marks = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
    marks[name] = stamp()
    target.write_text(json.dumps(marks), encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("coursekit_phase_file", "", "")
    app.connect("env-updated", lambda app, env: _mark(app, "read"))
    app.connect("build-finished", lambda app, exc: _mark(app, "write"))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
