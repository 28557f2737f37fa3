"""The two command lines under abuse: no traceback, bad arguments exit 2 naming the argument, in the chosen language.

Each row runs ``python -m coursekit ...`` (the planner) or ``python -m
coursekit.lab ...`` in a subprocess. Rows are run four at a time once per
session; a row still running after :data:`HANG_GUARD_S` is a hang (the
planner must refuse absurd sizes at once; the lab must refuse a rank count
or message size it cannot hold before it spawns anything).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Seconds after which a command counts as hung.
HANG_GUARD_S = 20
#: Longest acceptable stderr: one message, not a flood.
MAX_STDERR_CHARS = 3000
_CJK = re.compile(r"[\u4e00-\u9fff]")

PLAN = ("-m", "coursekit", "plan", "--model", "gpt2-small", "--cluster", "a100-8")
SERVE = ("-m", "coursekit", "plan", "--mode", "serving", "--model", "llama3-70b", "--cluster", "h100-8")
LAB = ("-m", "coursekit.lab")
LESSONS = ("-m", "coursekit", "lessons")
#: A path below a file (the repository's README), so no folder can be made there, whoever runs the test.
UNDER_A_FILE = "README.md/sub"
#: A place even root may not create folders in (sysfs); elsewhere a path with no permission to write.
UNWRITABLE = "/sys/coursekit-test-folder" if Path("/sys/kernel").is_dir() else "/coursekit-test-folder"
LONG_NAME = "n" * 300


@dataclass(frozen=True)
class Row:
    """One command line and what it must do."""

    label: str
    args: tuple[str, ...]
    exit_codes: frozenset[int]  # allowed exit codes
    names: tuple[str, ...] = ()  # stderr names one of these (the argument); empty: no message needed
    zh: bool = False  # stderr must be Chinese


def _bad(label: str, args: tuple[str, ...], *names: str, zh: bool = False) -> Row:
    return Row(label, args, frozenset({2}), names, zh)


ROWS: tuple[Row, ...] = (
    # planner: absurd sizes are refused at once, naming the argument
    _bad("plan nodes 10**30", (*PLAN, "--global-batch", "16", "--nodes", str(10**30)), "--nodes"),
    _bad("plan nodes 10**12", (*PLAN, "--global-batch", "16", "--nodes", str(10**12)), "--nodes"),
    _bad("plan global batch 10**30", (*PLAN, "--global-batch", str(10**30)), "--global-batch"),
    _bad("plan nodes not a number", (*PLAN, "--global-batch", "16", "--nodes", "many"), "--nodes"),
    _bad("plan nodes 0", (*PLAN, "--global-batch", "16", "--nodes", "0"), "--nodes"),
    _bad("plan mfu nan", (*PLAN, "--global-batch", "16", "--mfu", "nan"), "--mfu"),
    _bad(
        "plan unknown model",
        ("-m", "coursekit", "plan", "--model", "gpt5", "--cluster", "a100-8", "--global-batch", "16"),
        "--model",
    ),
    _bad("plan explain zero=9", (*PLAN, "--global-batch", "16", "--explain", "zero=9"), "--explain", "zero"),
    _bad("plan explain duplicate key", (*PLAN, "--global-batch", "16", "--explain", "tp=8,tp=2"), "--explain", "tp"),
    Row(
        "plan inter-node 1e308",
        (*PLAN, "--global-batch", "16", "--nodes", "2", "--inter-node-gb-s", "1e308"),
        frozenset({0, 2}),
        (),
    ),
    _bad(
        "plan missing batch in zh",
        ("-m", "coursekit", "plan", "--model", "gpt2-small", "--cluster", "a100-8", "--lang", "zh"),
        "--global-batch",
        zh=True,
    ),
    _bad("plan bad number in zh", (*PLAN, "--global-batch", "x", "--lang", "zh"), "--global-batch", zh=True),
    _bad(
        "plan nodes huge in zh",
        (*PLAN, "--global-batch", "16", "--nodes", str(10**30), "--lang", "zh"),
        "--nodes",
        zh=True,
    ),
    # lab: ranks and message sizes are capped before anything is spawned
    _bad("lab memory ranks 10000", (*LAB, "memory", "--ranks", "10000"), "--ranks"),
    _bad("lab collectives ranks -1", (*LAB, "collectives", "--ranks", "-1"), "--ranks"),
    _bad("lab collectives max-bytes huge", (*LAB, "collectives", "--max-bytes", "999999999999G"), "--max-bytes"),
    _bad("lab collectives max-bytes junk", (*LAB, "collectives", "--max-bytes", "lots"), "--max-bytes"),
    _bad("lab ranks in zh", (*LAB, "--lang", "zh", "memory", "--ranks", "10000"), "--ranks", zh=True),
    _bad("lab unknown command in zh", (*LAB, "--lang", "zh", "explode"), "explode", zh=True),
    # serving: every number bounded, every message in the chosen language
    _bad("serve request rate 1e308", (*SERVE, "--request-rate", "1e308"), "--request-rate"),
    _bad(
        "serve request rate 1e308 in zh", (*SERVE, "--request-rate", "1e308", "--lang", "zh"), "--request-rate", zh=True
    ),
    _bad("serve reserve 1e308", (*SERVE, "--concurrency", "8", "--reserve-gib", "1e308"), "--reserve-gib"),
    _bad("serve prompt tokens 1e30", (*SERVE, "--concurrency", "8", "--prompt-tokens", str(10**30)), "--prompt-tokens"),
    _bad("serve no load in zh", (*SERVE, "--lang", "zh"), "--concurrency", zh=True),
    _bad("serve bad number in zh", (*SERVE, "--concurrency", "x", "--lang", "zh"), "--concurrency", zh=True),
    # paths the user gives: one line, exit 2, checked before any work
    _bad("lessons empty dir", (*LESSONS, ""), "DIR"),
    _bad("lessons empty dir in zh", (*LESSONS, "", "--lang", "zh"), "DIR", zh=True),
    _bad("lessons dir under a file", (*LESSONS, UNDER_A_FILE), "README.md"),
    _bad("lessons dir under a file in zh", (*LESSONS, UNDER_A_FILE, "--lang", "zh"), "README.md", zh=True),
    _bad("lessons dir unwritable", (*LESSONS, UNWRITABLE), UNWRITABLE),
    _bad("lessons dir unwritable in zh", (*LESSONS, UNWRITABLE, "--lang", "zh"), UNWRITABLE, zh=True),
    _bad("lessons 300-character name", (*LESSONS, LONG_NAME), "300"),
    _bad("lessons 300-character name in zh", (*LESSONS, LONG_NAME, "--lang", "zh"), "300", zh=True),
    _bad("lab json is a folder", (*LAB, "memory", "--json", "."), "--json"),
    _bad("lab json is a folder in zh", (*LAB, "--lang", "zh", "memory", "--json", "."), "--json", zh=True),
    _bad("lab json under a file", (*LAB, "memory", "--json", f"{UNDER_A_FILE}/x.json"), "--json"),
    _bad("lab json unwritable", (*LAB, "memory", "--json", f"{UNWRITABLE}/x.json"), "--json"),
    _bad("lab json empty", (*LAB, "memory", "--json", ""), "--json"),
    _bad("lab trace under a file", (*LAB, "timeline", "--trace", UNDER_A_FILE), "--trace"),
    _bad("lab trace unwritable in zh", (*LAB, "--lang", "zh", "timeline", "--trace", UNWRITABLE), "--trace", zh=True),
    _bad("lab trace 300-character name", (*LAB, "timeline", "--trace", LONG_NAME), "--trace"),
)

#: Rows whose arguments name a path: the refusal is one line (no usage block) and nothing ran (stdout empty).
PATH_ROWS = frozenset(
    row.label for row in ROWS if row.label.startswith("lessons") or "json" in row.label or "trace" in row.label
)

#: Rows whose fixes live in other branches of this round (planner CLI, lab CLI).
PLANNER_ROWS = frozenset(row.label for row in ROWS if row.label.startswith("plan"))
LAB_ROWS = frozenset(row.label for row in ROWS if row.label.startswith("lab"))


def _run(row: Row) -> subprocess.CompletedProcess[str] | None:
    env = {**os.environ, "COURSEKIT_LANG": "en", "PYTHONPATH": str(ROOT)}
    try:
        return subprocess.run(
            [sys.executable, *row.args], capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=ROOT, env=env
        )
    except subprocess.TimeoutExpired:
        return None


@cache
def _results() -> dict[str, subprocess.CompletedProcess[str] | None]:
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip((row.label for row in ROWS), pool.map(_run, ROWS), strict=True))


@pytest.mark.parametrize("row", ROWS, ids=[row.label for row in ROWS])
def test_command_line_holds_under_abuse(row: Row) -> None:
    done = _results()[row.label]
    assert done is not None, f"{row.label}: still running after {HANG_GUARD_S} s"
    err = done.stderr
    assert "Traceback" not in err and "Traceback" not in done.stdout, f"{row.label}: traceback\n{err[-2000:]}"
    assert done.returncode in row.exit_codes, f"{row.label}: exit {done.returncode}, stderr:\n{err[-1500:]}"
    assert len(err) <= MAX_STDERR_CHARS, f"{row.label}: {len(err)} characters on stderr"
    if row.names:
        assert any(name in err for name in row.names), f"{row.label}: stderr names none of {row.names}:\n{err}"
    if row.zh:
        assert _CJK.search(err), f"{row.label}: English under --lang zh:\n{err}"
    if row.label in PATH_ROWS:
        assert len(err.strip().splitlines()) == 1, f"{row.label}: not one line:\n{err}"
        assert not done.stdout, f"{row.label}: work started before the path was checked:\n{done.stdout[:500]}"
