"""coursekit.lab — formula vs measurement on PyTorch distributed (lesson 8).

Three experiments, each a Python function and a command:

* :func:`run_collectives` / ``python -m coursekit.lab collectives`` — time
  all_reduce, all_gather, reduce_scatter, all_to_all, broadcast and
  send/recv over a range of payloads, report nccl-tests' algbw and busbw,
  fit the ring model's α and B per collective and compare every point with
  :func:`coursekit.communication.collective_time_s`.
* :func:`run_memory` / ``python -m coursekit.lab memory`` — train a small
  transformer one Adam step under DDP, FSDP2 (ZeRO-3 and ZeRO-2 behaviour) and
  tensor parallelism, count the bytes every rank holds and explain each
  difference from :func:`coursekit.capacity.training_state_memory`.
* :func:`run_timeline` / ``python -m coursekit.lab timeline`` — profile a few
  training steps on every rank, export each rank's Chrome trace and split a
  step into compute, communication (exposed and hidden) and waiting (for a
  slower rank, for input), with injected faults compared against
  :func:`coursekit.scaling.step_timeline`.
* :func:`load_recorded` / ``python -m coursekit.lab record`` — the lesson's
  measurements as recorded with the course, or measured again.

The same code runs on one CPU machine (the lab spawns its own ranks over
gloo on 127.0.0.1) and under ``torchrun`` on a GPU cluster (NCCL).

The lab needs PyTorch (``pip install -e '.[lab]'`` in the course's folder); the rest of
coursekit does not. Importing this package is cheap: PyTorch is loaded only
when a measurement starts, and matplotlib only for the figure. It is not
exported from the top-level ``coursekit`` namespace; import it explicitly.

>>> import coursekit.lab as lab
>>> lab.payload_sizes(1024, 8192, 2)
(1024, 2048, 4096, 8192)

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import importlib
from typing import Any

from .._validate import learner_functions

# Public name -> submodule that defines it. Loaded lazily (PEP 562).
_EXPORTS: dict[str, str] = {}
for _module, _names in {
    "fit": ("AlphaBetaFit", "crossover_bytes", "fit_alpha_beta", "model_coefficients"),
    "collectives": (
        "CollectivePoint",
        "CollectiveResult",
        "CollectivesReport",
        "collective_outputs",
        "expected_output",
        "load_collectives_json",
        "payload_sizes",
        "run_collectives",
        "verification_input",
    ),
    "memory": (
        "MemoryAdjustment",
        "MemoryReport",
        "MemoryRow",
        "ParameterSpec",
        "StrategyMemory",
        "TinyTransformerConfig",
        "compare_memory",
        "expected_adjustments",
        "ledger_for",
        "parameter_layout",
        "run_memory",
    ),
    "timeline": (
        "RankStepEvents",
        "Scenario",
        "ScenarioResult",
        "StepBreakdown",
        "TimelineReport",
        "breakdown_steps",
        "efficiency_points",
        "extract_steps",
        "load_timeline_json",
        "predict",
        "run_timeline",
    ),
    "recorded": ("LessonRecording", "load_recorded", "record_lesson"),
    "plot": ("plot_measured_vs_predicted", "plot_step_lanes"),
    "cli": ("main",),
}.items():
    for _name in _names:
        _EXPORTS[_name] = _module

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'coursekit.lab' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


learner_functions(globals())
