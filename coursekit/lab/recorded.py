"""Lesson 8's measurements, recorded once and shipped with the course, or measured again live.

The lesson reads :func:`load_recorded` so that it opens in a second and runs
the same under test; a learner re-runs every measurement on their own machine
with one command::

    python -m coursekit.lab record --json my-run.json

or, in the notebook, by setting ``LIVE = True`` (:func:`record_lesson`). The
2-rank experiments share one spawn; the scaling points at 1, 2 and 4 ranks
follow, one spawn each, back to back.

>>> rec = load_recorded()
>>> rec.memory.ranks, rec.timeline.ranks, sorted(rec.scaling)
(2, 2, [1, 2, 4])

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .._validate import learner_functions
from ..i18n import register, tr
from ._env import launched_by_torchrun, quiet_profiler, temporary_folder
from ._json import Field, read_source
from .collectives import (
    DEFAULT_MIN_BYTES,
    CollectivesReport,
    build_report,
    check_collectives,
    check_ranks,
    collectives_report_from,
    payload_sizes,
)
from .memory import STRATEGIES, MemoryReport, TinyTransformerConfig, build_memory_report, memory_report_from
from .timeline import (
    TIMELINE_STRATEGIES,
    EfficiencyPoint,
    ScenarioResult,
    TimelineReport,
    build_timeline_report,
    efficiency_points,
    efficiency_table,
    run_timeline,
    scenario_result_from,
    scenarios_for,
    timeline_report_from,
    without_folders,
)

__all__ = ["LESSON_SCHEMA", "LessonRecording", "load_recorded", "record_lesson"]

#: Version tag of the lesson's recording.
LESSON_SCHEMA: str = "coursekit.lab.lesson8/1"
#: The recording shipped with the course (inside the package, so it installs with it).
RECORDED_FILE: str = "lesson8.json"
#: What the lesson measures: payloads of the collectives, the faults injected into the timelines.
LESSON_MAX_BYTES: int = 4 * 2**20
LESSON_REPEATS: int = 10
LESSON_WARMUP: int = 3
LESSON_SLOW_RANK: int = 1
LESSON_SLOW_FACTOR: float = 3.0
LESSON_INPUT_DELAY_MS: float = 20.0
#: Rank counts of the scaling-efficiency points (weak scaling, DDP).
SCALING_RANKS: tuple[int, ...] = (1, 2, 4)

register(
    {
        "lab.rec_not_torchrun": {
            "zh": "record 在一台机器上自己启动 1、2、4 个 rank，不能在 torchrun 下运行；集群上请用 timeline、"
            "collectives 或 memory。",
            "en": "record starts 1, 2 and 4 ranks on one machine itself and cannot run under torchrun; on a cluster "
            "use timeline, collectives or memory.",
        },
        "lab.rec_rank_key": {
            "zh": "{name} 的键 {value!r}：必须是写成文本的 rank 数（>= 1 的整数，如 '2'）。",
            "en": "{name} key {value!r}: must be a rank count written as text (an integer >= 1, such as '2').",
        },
        "lab.rec_where": {
            "zh": "测量环境：{arch}，{cpus} 个 CPU 核，PyTorch {torch}，{backend} / {device}，{ranks} 个 rank。",
            "en": "measured on {arch} with {cpus:@CPU core}, PyTorch {torch}, {backend} / {device}, {ranks:@rank}.",
        },
    }
)


@dataclass(frozen=True)
class LessonRecording:
    """Everything lesson 8 shows: the collectives, memory and timeline reports, and the scaling runs.

    ``scaling`` maps a rank count to its DDP baseline :class:`ScenarioResult`.

    Taught in: lesson 8 (formula vs measurement).
    """

    collectives: CollectivesReport
    memory: MemoryReport
    timeline: TimelineReport
    scaling: Mapping[int, ScenarioResult]
    machine: Mapping[str, Any] = field(default_factory=dict)

    def where(self) -> str:
        """Where the recording was made, one line in the current language."""
        return tr(
            "lab.rec_where",
            arch=self.machine.get("arch", "?"),
            cpus=self.machine.get("cpus", "?"),
            torch=self.timeline.torch_version,
            backend=self.timeline.backend,
            device=self.timeline.device,
            ranks=self.timeline.ranks,
        )

    def efficiency(self) -> tuple[EfficiencyPoint, ...]:
        """E(P) of the scaling runs, in rank order (the first is the reference)."""
        return efficiency_points([self.scaling[p] for p in sorted(self.scaling)])

    def format(self) -> str:
        """Every report, in the current language."""
        return "\n\n".join(
            [
                self.collectives.format(),
                self.memory.format(),
                self.timeline.format(),
                efficiency_table(self.efficiency(), "ddp"),
            ]
        )

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (schema :data:`LESSON_SCHEMA`)."""
        return {
            "schema": LESSON_SCHEMA,
            "machine": self.machine,
            "collectives": self.collectives.to_json_dict(),
            "memory": self.memory.to_json_dict(),
            "timeline": self.timeline.to_json_dict(),
            "scaling": {str(p): {**result.to_json_dict(), "sample": []} for p, result in sorted(self.scaling.items())},
        }

    def write_json(self, path: str | Path) -> None:
        """Write :meth:`to_json_dict` to ``path`` (UTF-8, compact: it ships with the course)."""
        text = json.dumps(self.to_json_dict(), separators=(",", ":"), allow_nan=False)
        Path(path).write_text(text + "\n", encoding="utf-8")


#: The command that writes what :func:`load_recorded` reads (named in its messages).
RECORDING_WRITER: str = "python -m coursekit.lab record --json"


def load_recorded(source: str | Path | Mapping[str, Any] | None = None) -> LessonRecording:
    """The shipped recording (or one written by ``python -m coursekit.lab record --json PATH``).

    ``source`` is that file's path, or the dict parsed from it; ``None`` reads the recording shipped with the course.
    A path that cannot be read (missing, a folder, empty), or a recording with a key missing or a value of the wrong
    kind, is a ``ValueError`` or ``TypeError`` naming the path or the key, in the current language:

    >>> load_recorded({"schema": LESSON_SCHEMA})
    Traceback (most recent call last):
    ...
    ValueError: source['scaling'] is missing; every result python -m coursekit.lab record --json writes has it.

    Taught in: lesson 8 (formula vs measurement).
    """
    if source is None:
        text = resources.files(__package__).joinpath("recorded").joinpath(RECORDED_FILE).read_text(encoding="utf-8")
        data = Field(json.loads(text), RECORDED_FILE, RECORDING_WRITER)
    else:
        data = read_source(source, RECORDING_WRITER)
    data.check_schema(LESSON_SCHEMA)
    scaling = {}
    for p, item in data["scaling"].entries():
        scaling[_rank_count(data["scaling"], p)] = scenario_result_from(item)
    machine = data.get("machine")
    return LessonRecording(
        collectives=collectives_report_from(data["collectives"]),
        memory=memory_report_from(data["memory"]),
        timeline=timeline_report_from(data["timeline"]),
        scaling=scaling,
        machine={} if machine is None else dict(machine.mapping()),
    )


def _rank_count(scaling: Field, key: str) -> int:
    """A key of ``scaling``: a rank count written as text (``"2"``), else ``ValueError`` naming it."""
    if not (isinstance(key, str) and key.isascii() and key.isdigit() and int(key) >= 1):
        raise ValueError(tr("lab.rec_rank_key", name=scaling.name, value=key))
    return int(key)


def _machine() -> dict[str, Any]:
    import os
    import platform

    return {"arch": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()}


def record_lesson(*, ranks: int | None = 2, steps: int = 3, device: str = "auto") -> LessonRecording:
    """Measure everything lesson 8 shows: one spawn at ``ranks`` ranks, then DDP at each of :data:`SCALING_RANKS`.

    Taught in: lesson 8 (formula vs measurement).
    """
    if launched_by_torchrun():
        raise ValueError(tr("lab.rec_not_torchrun"))
    n = check_ranks(ranks)
    quiet_profiler()
    from . import _lesson_worker
    from ._dist import run_distributed

    kinds = check_collectives(None)
    sizes = payload_sizes(DEFAULT_MIN_BYTES, LESSON_MAX_BYTES, n)
    config = TinyTransformerConfig()
    scenarios = scenarios_for(
        n,
        slow_rank=LESSON_SLOW_RANK if n > LESSON_SLOW_RANK else None,
        slow_factor=LESSON_SLOW_FACTOR if n > LESSON_SLOW_RANK else None,
        input_delay_ms=LESSON_INPUT_DELAY_MS,
        no_overlap=True,
    )
    memory_strategies = STRATEGIES if config.heads % n == 0 and config.d_ff % n == 0 else STRATEGIES[:-1]
    with temporary_folder() as tmp:
        raw = run_distributed(
            _lesson_worker.lesson_worker,
            n,
            (
                (kinds, sizes, LESSON_WARMUP, LESSON_REPEATS),
                (config, memory_strategies),
                (TIMELINE_STRATEGIES, scenarios, steps, tmp),
            ),
            device,
        )
    timeline = without_folders(build_timeline_report(raw["timeline"]))
    # The scaling points run back to back, so the machine's other load changes as little as possible between them.
    scaling = {
        p: run_timeline(ranks=p, strategies="ddp", steps=steps, device=device).result("ddp") for p in SCALING_RANKS
    }
    return LessonRecording(
        collectives=build_report(raw["collectives"], warmup=LESSON_WARMUP, repeats=LESSON_REPEATS),
        memory=build_memory_report(raw["memory"], config),
        timeline=timeline,
        scaling=scaling,
        machine=_machine(),
    )


learner_functions(globals())
