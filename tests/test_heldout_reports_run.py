"""Every held-out report under benchmarks/ runs offline to the end and scores each of its runs.

The reports assert nothing about the estimate (their runs are held out: no test pins their verdicts), but a report
that stops with a traceback hides what it would have shown. Review 17 changed how the Blackwell report reads its model
names and left it raising AttributeError on its first row until the next stop ran it; this test runs each report.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REPORTS = sorted((ROOT / "benchmarks").glob("report_heldout_*.py"))


def test_there_are_reports_to_run() -> None:
    assert len(REPORTS) >= 8


@pytest.mark.parametrize("script", REPORTS, ids=lambda path: path.stem)
def test_report_runs_and_gives_each_run_a_verdict(script: Path) -> None:
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    verdicts = re.findall(r"estimate/measured \S+: (pass|miss)", done.stdout)
    assert verdicts, done.stdout[-2000:]
    tally = re.search(r"^all: (\d+) of (\d+) pass$", done.stdout, re.MULTILINE)
    if tally:  # the reports with a tally count every run they print a verdict for
        assert int(tally.group(2)) == len(verdicts) and int(tally.group(1)) == verdicts.count("pass")
