"""coursekit: the analytical tools of the parallel-strategy course.

Q1 capacity ledger, Q2 communication ledger, Q3 hard gates, Q4 composition
checks, the pipeline bubble and schedule simulator, scaling efficiency and the
selection matrix. Every number the course shows is computed here.

Submodules load on first use, so ``import coursekit`` stays fast and never
imports matplotlib or ipywidgets (those live in ``coursekit.widgets`` and
``coursekit.plotting``, which the lessons import).

>>> import coursekit
>>> coursekit.get_language() in ("zh", "en")
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._validate import learner_export, learner_functions
from .i18n import Reason as Reason
from .i18n import Text as Text
from .i18n import get_language as get_language
from .i18n import set_language as set_language
from .i18n import tr as tr

__version__ = "0.1.0"

# Public names of each submodule, loaded lazily on first attribute access (PEP 562).
_MODULE_EXPORTS: dict[str, tuple[str, ...]] = {
    "capacity": (
        "build_resource_ledger",
        "ResourceLedger",
        "PrecisionRecipe",
        "PRECISION_RECIPES",
        "training_state_memory",
        "TrainingStateMemory",
        "fsdp_zero_stage",
        "FSDP_SHARDING_TO_ZERO_STAGE",
        "activation_memory",
        "activation_memory_breakdown",
        "ActivationMemory",
        "RECOMPUTE_MODES",
    ),
    "communication": (
        "communication_ledger",
        "CommunicationLedger",
        "COLLECTIVES",
        "BUS_BANDWIDTH_KINDS",
        "bus_bandwidth_factor",
        "collective_cost",
        "collective_time_s",
        "CollectiveCost",
        "TrafficEntry",
        "TrafficCost",
        "TrafficTime",
        "TRAFFIC_GROUPS",
        "dp_traffic",
        "zero_traffic",
        "tp_traffic",
        "pp_traffic",
        "cp_traffic",
        "ep_traffic",
        "replica_traffic",
        "strategy_traffic",
        "STRATEGIES",
        "traffic_time",
        "crossover_payload_mib",
    ),
    "gates": (
        "MODES",
        "MODEL_KINDS",
        "LINK_SCOPES",
        "LINK_SCOPE_ORDER",
        "ROLES",
        "REASON_TEXTS_EN",
        "WARNING_CODES",
        "Candidate",
        "Environment",
        "CandidateReport",
        "Gate",
        "GATES",
        "gate_memory",
        "gate_interconnect",
        "gate_structure",
        "gate_context",
        "gate_mode",
        "gate_serving",
        "evaluate_candidate",
        "evaluate_candidates",
        "EXAMPLE_ENVIRONMENT",
        "EXAMPLE_CANDIDATES",
        "COURSE_CANDIDATES",
        "check_global_batch",
        "dp_degrees_for_batch",
        "max_dp_degree",
        "check_tp_degree",
        "check_pp_degree",
    ),
    "composition": (
        "DIMENSIONS",
        "ENGINE_DIMENSIONS",
        "DEFAULT_ORDER",
        "FAST_DOMAIN_DIMENSIONS",
        "CompositionReport",
        "validate_parallel_composition",
        "MegatronLayout",
        "validate_megatron_composition",
        "megatron_world_size",
        "EpRuleComparison",
        "compare_ep_rules",
        "rank_groups",
        "expert_rank_groups",
        "NodeMapping",
        "map_groups_to_nodes",
        "TopologyReport",
        "topology_report",
    ),
    # matrix.STRATEGIES (DP/FSDP/TP/PP) stays in coursekit.matrix: the top-level STRATEGIES is communication's.
    "matrix": (
        "VERDICTS",
        "VERDICT_LABELS",
        "TOPOLOGIES",
        "MatrixRow",
        "MATRIX_HEADERS",
        "SELECTION_MATRIX",
        "matrix_table",
        "PaperCase",
        "PAPER_DEVICE_MEMORY_GIB",
        "PAPER_NODES",
        "PAPER_GPUS_PER_NODE",
        "PAPER_GLOBAL_BATCH",
        "PAPER_MICRO_BATCH",
        "CASE_FITS_ONE_DEVICE",
        "CASE_STATE_EXCEEDS_DEVICE",
        "CASE_LAYER_EXCEEDS_DEVICE",
        "PAPER_CASES",
        "StrategyVerdict",
        "CaseEvaluation",
        "evaluate_paper_case",
        "evaluate_paper_cases",
        "TopologyChange",
        "topology_changes",
    ),
    "pipeline": (
        "DEFAULT_BACKWARD_S",
        "DEFAULT_FORWARD_S",
        "PHASES",
        "SCHEDULES",
        "GanttBar",
        "GanttRow",
        "Schedule",
        "ScheduleEvent",
        "bubble_fraction",
        "bubble_overhead",
        "gantt_rows",
        "simulate_schedule",
        "warmup_microbatches",
    ),
    "scaling": (
        "DIAGNOSIS_TERMS",
        "EfficiencyDiagnosis",
        "ScalingCurve",
        "ScalingPoint",
        "StepTimeline",
        "TimelineSegment",
        "diagnose_efficiency",
        "load_imbalance_s",
        "scaling_curve",
        "scaling_efficiency",
        "step_timeline",
    ),
    "planner": (
        "plan",
        "ModelSpec",
        "ClusterSpec",
        "WorkloadSpec",
        "PlanResult",
        "PlanCandidate",
        "MemoryLedger",
        "CommRow",
        "FunnelStep",
        "Assumptions",
        "PLAN_GATES",
        "evaluate_composition",
        "parse_degrees",
        "megatron_paper_param_count",
        "megatron_paper_flops_per_step",
        "megatron_core_flops_per_step",
        "megatron_core_model_flops_per_step",
        "megatron_padded_vocab",
    ),
    "presets": ("MODELS", "CLUSTERS", "MEGATRON_TABLE1", "MegatronRun"),
    "strategies": ("STRATEGY_TABLE", "STRATEGY_COLUMNS", "StrategyRow", "strategy_row", "strategy_table"),
    "hardware": (
        "LINK_PRESETS",
        "LinkPreset",
        "link_preset",
        "NVLINK4_H100_BYTES_PER_S",
        "NVLINK4_H100_BIDIRECTIONAL_BYTES_PER_S",
        "IB_NDR_BYTES_PER_S",
    ),
    "shapes": ("MODEL_SHAPES", "ModelShape", "model_shape", "transformer_params"),
    "glossary": ("GLOSSARY", "GlossaryEntry", "lookup"),
    "roofline": (
        "achieved_flops",
        "attention_flops_per_token",
        "hardware_flops_per_token",
        "matmul_intensity_flop_per_byte",
        "mfu",
        "model_flops_per_token",
        "ridge_point_flop_per_byte",
        "roofline_flops",
        "roofline_time_s",
        "transformer_layer_matmul_intensity",
    ),
    "exercises": ("check", "Exercise", "Feedback"),
    "units": (
        "GIB_BYTES",
        "MIB_BYTES",
        "GB_BYTES",
        "bytes_to_gib",
        "bytes_to_gb",
        "bytes_to_mib",
        "gib_to_bytes",
        "mib_to_bytes",
    ),
}
#: Former public names, still importable (``coursekit.SEED_CANDIDATES``) but left out of ``__all__``.
_FORMER_NAMES: dict[str, str] = {
    "SEED_CANDIDATES": "gates",
    "SEED_ENVIRONMENT": "gates",
    "SEED_REASON_TEXTS": "gates",
}
#: Submodules whose whole ``__all__`` is public here too, read from the submodule on first use (of one of its names
#: or of ``coursekit.__all__``): ``import coursekit`` stays light and the list is written once, in the submodule.
_WHOLE_MODULES: tuple[str, ...] = ("serving",)
_EXPORTS: dict[str, str] = {name: module for module, names in _MODULE_EXPORTS.items() for name in names}
_EXPORTS.update(_FORMER_NAMES)
_BASE_NAMES: tuple[str, ...] = ("Reason", "Text", "get_language", "set_language", "tr")


def _whole_module_exports() -> dict[str, str]:
    """Public name -> submodule, for the submodules exported whole (imports them)."""
    return {
        name: module for module in _WHOLE_MODULES for name in importlib.import_module(f".{module}", __name__).__all__
    }


def _public_names() -> list[str]:
    return [*_BASE_NAMES, *sorted((set(_EXPORTS) | set(_whole_module_exports())) - set(_FORMER_NAMES))]


def __getattr__(name: str) -> Any:
    if name == "__all__":
        names = _public_names()
        globals()["__all__"] = names
        return names
    module = _EXPORTS.get(name)
    if module is None and not name.startswith("_"):
        module = _whole_module_exports().get(name)
    if module is None:
        raise AttributeError(f"module 'coursekit' has no attribute {name!r}")
    value = learner_export(getattr(importlib.import_module(f".{module}", __name__), name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_public_names()))


if TYPE_CHECKING:  # pragma: no cover - static typing only
    pass

# The language functions get the learner's-language call check here: coursekit.i18n is imported by the check itself.
_i18n = importlib.import_module(".i18n", __name__)
learner_functions(vars(_i18n))
globals().update({name: getattr(_i18n, name) for name in ("get_language", "set_language", "tr")})
