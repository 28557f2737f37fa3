"""The decision workbench: apply the course's method to a whole search space of parallel compositions.

Tools such as Calculon or llm-analysis estimate or search and hand back the best
configuration. :func:`plan` applies the course's method instead — register the
constraints (:class:`ModelSpec`, :class:`ClusterSpec`, :class:`WorkloadSpec`),
enumerate every composition the cluster admits, exclude by hard gates with reasons,
check the composition, and only then estimate — and it keeps every exclusion with its
reason. Accepted candidates are ordered by an *estimated* step time built from stated
assumptions (peak FLOP/s, a compute-efficiency model calibrated once, per-dimension
overlap); candidates closer than the model's stated uncertainty form a tie group.

The package:

* :mod:`~coursekit.planner.specs` — ModelSpec, ClusterSpec, WorkloadSpec, constants and bounds;
* :mod:`~coursekit.planner.space` — the gates in funnel order, pipeline stage layouts, the space;
* :mod:`~coursekit.planner.estimate` — memory, communication, efficiency and step time, written once
  over arrays (the search runs it on every candidate, ``explain`` on one);
* :mod:`~coursekit.planner.result` — PlanCandidate, PlanResult, ties, reports;
* :mod:`~coursekit.planner.search` — :func:`evaluate_composition`, :func:`plan`, :func:`what_if`;
* :mod:`~coursekit.planner.validation` — the estimate against published runs;
* :mod:`~coursekit.planner.cli` — ``python -m coursekit plan``.

The search space (training) is every tuple

    (tp, cp, pp, dp, ep, virtual_stages, zero_stage, micro_batch, recompute)

with ``tp · cp · pp · dp = world`` (all ranks of the cluster), ``cp`` at most ``max_cp`` when the
workload bounds it (an engine without context parallelism), ``ep`` a divisor of the
expert count (MoE only), ``virtual_stages`` in 1..``max_virtual_stages`` with at least one
layer per model chunk (or, where no such v splits the stages, the smallest v that does),
``micro_batch`` a divisor of the global batch up to ``max_micro_batch`` and the recompute modes and
ZeRO stages of the workload; the gradient accumulation is
``global_batch / (dp · micro_batch)``. Degrees that cannot tile the ranks are never
generated (the only pruning); everything else goes through the gates, so the funnel
shows why each composition lost. With d(W) divisors of the world size W the space has
O(d(W)³ · |ep| · |v| · |zero| · |mb| · |recompute|) candidates (about 10⁴–10⁵ for
W = 4096); each gate and each estimate is evaluated for all of them at once with
numpy, O(1) per candidate. Serving (``WorkloadSpec(mode="serving")``) is not estimated here: the
workload becomes a :class:`coursekit.serving.ServingWorkload` and :func:`coursekit.serving.plan_serving`
searches ``tp · pp · replicas = world`` with the serving formulas, so both give one ranking and one estimate.

>>> from coursekit.presets import MODELS, CLUSTERS
>>> result = plan(MODELS["llama3-8b"], CLUSTERS["pcie-24g-8"], WorkloadSpec(global_batch=64, seq_len=4096))
>>> result.space_size > 0, result.funnel[-1].remaining == len(result.accepted())
(True, True)

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from .._validate import learner_functions
from ..specs import IgnoredSettingWarning
from .calibration import MEASUREMENT_REPEATABILITY, measurement_repeatability
from .estimate import (
    COMM_DIMENSIONS,
    EFFICIENCY_CALIBRATION,
    EFFICIENCY_CEILING,
    EFFICIENCY_SMOOTHNESS,
    MODEL_UNCERTAINTY,
)
from .result import (
    ESTIMATE_NOTES,
    Assumptions,
    CommRow,
    FunnelStep,
    LayoutCheck,
    MemoryLedger,
    PlanCandidate,
    PlanResult,
    tie_groups,
)
from .search import ContextTwins, context_twins, evaluate_composition, plan, what_if
from .space import MAX_SPACE_SIZE, PLAN_GATES, PlanGate, parse_degrees, stage_layers
from .specs import (
    ACTIVATION_BYTES,
    DEFAULT_ACHIEVABLE_FLOPS_FRACTION,
    DEFAULT_MAX_MICRO_BATCH,
    DEFAULT_MAX_VIRTUAL_STAGES,
    DEFAULT_OUTPUT_TOKENS,
    DEFAULT_OVERLAP_FRACTION,
    DEFAULT_RUNTIME_RESERVE_GIB,
    DEGREE_KEYS,
    LOGITS_BYTES,
    MAX_CONCURRENCY,
    MAX_GLOBAL_BATCH,
    MAX_NODES,
    MAX_SEQ_LEN,
    MAX_WORLD_SIZE,
    MEGATRON_2021_SOURCE,
    MLP_KINDS,
    NORM_KINDS,
    OVERLAP_DEFAULTS,
    OVERLAP_SOURCES,
    PARAM_PARTS,
    POSITION_KINDS,
    WORKLOAD_MODES,
    ClusterSpec,
    ModelSpec,
    WorkloadSpec,
    divisors,
    group_link,
    megatron_core_flops_per_step,
    megatron_core_model_flops_per_step,
    megatron_padded_vocab,
    megatron_paper_flops_per_step,
    megatron_paper_param_count,
    param_part_name,
    ring_nics,
)
from .validation import (
    CpSpeedup,
    Fp8Speedup,
    LayoutPair,
    PublishedComparison,
    compare_published,
    cp_speedups,
    fp8_speedups,
    layout_pairs,
    published_degrees,
)

__all__ = [
    "ACTIVATION_BYTES",
    "COMM_DIMENSIONS",
    "DEFAULT_ACHIEVABLE_FLOPS_FRACTION",
    "DEFAULT_MAX_MICRO_BATCH",
    "DEFAULT_MAX_VIRTUAL_STAGES",
    "DEFAULT_OUTPUT_TOKENS",
    "DEFAULT_OVERLAP_FRACTION",
    "DEFAULT_RUNTIME_RESERVE_GIB",
    "DEGREE_KEYS",
    "EFFICIENCY_CALIBRATION",
    "EFFICIENCY_CEILING",
    "EFFICIENCY_SMOOTHNESS",
    "ESTIMATE_NOTES",
    "LOGITS_BYTES",
    "MAX_CONCURRENCY",
    "MAX_GLOBAL_BATCH",
    "MAX_NODES",
    "MAX_SEQ_LEN",
    "MAX_SPACE_SIZE",
    "MAX_WORLD_SIZE",
    "MEASUREMENT_REPEATABILITY",
    "MEGATRON_2021_SOURCE",
    "MLP_KINDS",
    "MODEL_UNCERTAINTY",
    "NORM_KINDS",
    "OVERLAP_DEFAULTS",
    "OVERLAP_SOURCES",
    "PARAM_PARTS",
    "PLAN_GATES",
    "POSITION_KINDS",
    "WORKLOAD_MODES",
    "Assumptions",
    "ClusterSpec",
    "CommRow",
    "ContextTwins",
    "CpSpeedup",
    "Fp8Speedup",
    "FunnelStep",
    "IgnoredSettingWarning",
    "LayoutCheck",
    "LayoutPair",
    "MemoryLedger",
    "ModelSpec",
    "PlanCandidate",
    "PlanGate",
    "PlanResult",
    "PublishedComparison",
    "WorkloadSpec",
    "compare_published",
    "context_twins",
    "cp_speedups",
    "divisors",
    "evaluate_composition",
    "fp8_speedups",
    "group_link",
    "layout_pairs",
    "measurement_repeatability",
    "megatron_core_flops_per_step",
    "megatron_core_model_flops_per_step",
    "megatron_padded_vocab",
    "megatron_paper_flops_per_step",
    "megatron_paper_param_count",
    "param_part_name",
    "parse_degrees",
    "plan",
    "published_degrees",
    "ring_nics",
    "stage_layers",
    "tie_groups",
    "what_if",
]

learner_functions(globals())
