"""What the held-out reports (``report_heldout_*.py``) print for each run and at the end: one wording for all."""

from __future__ import annotations

from collections import Counter
from typing import Any


def standing(c: Any) -> str:
    """A comparison's rank, tie group, ratio to the best estimate, estimated over measured throughput and verdict
    (``c``: a :class:`coursekit.planner.validation.PublishedComparison`)."""
    verdict = "pass" if c.passes else "miss (" + ", ".join(sorted(c.missed)) + ")"
    ratio = "refused" if c.estimated_over_published is None else f"{c.estimated_over_published:.2f}"
    over = "-" if c.step_over_best is None else f"{c.step_over_best:.2f}"
    return f"rank {c.rank}/{c.accepted_count} group {c.tie_group} over best {over} estimate/measured {ratio}: {verdict}"


def count(passes: Counter[str], totals: Counter[str], keys: tuple[str, ...], passed: bool) -> None:
    """Count one run, passed or not, in each group of ``keys``."""
    for key in keys:
        totals[key] += 1
        passes[key] += passed


def print_tally(passes: Counter[str], totals: Counter[str]) -> None:
    """One line per group: how many of its runs pass."""
    print()
    for key in totals:
        print(f"{key}: {passes[key]} of {totals[key]} pass")
