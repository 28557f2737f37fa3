"""Lesson 8's 2-rank measurements in one spawn: collectives, memory and timelines share one process group.

Starting PyTorch processes dominates the lesson's run time on a small machine,
so :func:`coursekit.lab.recorded.record_lesson` runs the three experiments
one after the other inside the same ranks.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._collective_worker import timing_worker
from ._dist import DistContext
from ._memory_worker import memory_worker
from ._timeline_worker import timeline_worker
from .memory import TinyTransformerConfig
from .timeline import Scenario


def lesson_worker(
    ctx: DistContext,
    collectives: tuple[Sequence[str], Sequence[int], int, int],
    memory: tuple[TinyTransformerConfig, Sequence[str]],
    timeline: tuple[Sequence[str], Sequence[Scenario], int, str],
) -> dict[str, Any]:
    """Run the collectives, memory and timeline workers in turn; rank 0 returns the three results."""
    return {
        "collectives": timing_worker(ctx, *collectives),
        "memory": memory_worker(ctx, *memory),
        "timeline": timeline_worker(ctx, *timeline),
    }
