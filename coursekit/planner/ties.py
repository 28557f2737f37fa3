"""Ties that say why: which assumption, moved within its uncertainty, would reorder two candidates.

Two accepted candidates are *tied* when the estimate cannot order them: every candidate within the model's
uncertainty (:data:`coursekit.planner.estimate.MODEL_UNCERTAINTY`) of a group's fastest member joins the group.
That is what the published pairs show (:func:`coursekit.planner.layout_pairs`): where two measured layouts' estimates
differ by more than the uncertainty, the estimate ordered every pair the measurements tell apart as measured (one pair
estimated 1.21x apart measured equally fast); where they differ by less, it reversed most of the pairs whose
measurements tell them apart.

Within a group, each member gets the reason it could be the faster one. The estimate rests on a few assumptions whose
error is stated (:data:`coursekit.planner.calibration.ASSUMPTION_UNCERTAINTY`): how matmul efficiency falls with
smaller matmuls, how much communication each engine overlaps, the bus bandwidth each link reaches, the pipeline
bubble and the host's launch time. Each :data:`SCENARIOS` entry moves one of them to the edge of its uncertainty and
re-runs the estimate. A member's reason is

* the scenarios that make it at least as fast as the group's fastest — they name the assumption that decides, and
  :data:`MEASUREMENTS` the measurement that settles it; or
* ``"same"``: its estimate stays within :data:`SAME_ESTIMATE` of the fastest under every scenario — the model sees
  the same step (e.g. ZeRO-1 and ZeRO-2 move the same bytes), and only running both tells them apart; or
* ``"noise"``: its estimate is within :data:`coursekit.planner.calibration.MEASUREMENT_REPEATABILITY` of the
  fastest — closer than two published measurements of one configuration have landed apart
  (:func:`coursekit.planner.calibration.measurement_repeatability`), so only repeated runs can order them; or
* ``"unordered"``: no assumption the model names reverses them, but the model's own uncertainty does: measuring both
  decides.

:func:`contenders` picks the members some scenario makes the group's fastest: those are the ones to measure first.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._validate import (
    called_from_outside,
    check_bool,
    check_choice,
    check_int,
    check_items,
    check_number,
    learner_functions,
)
from ..i18n import Reason, Text, register, shown_repr, tr
from ..specs import _replace_valid, type_error
from ..units import Seconds
from .calibration import ASSUMPTION_UNCERTAINTY, MEASUREMENT_REPEATABILITY
from .specs import ClusterSpec, ModelSpec, WorkloadSpec

__all__ = [
    "MEASUREMENTS",
    "SAME_ESTIMATE",
    "SCENARIOS",
    "UNSEPARATED",
    "TieRow",
    "contenders",
    "robust_tie_groups",
    "scenario_steps",
]

#: One assumption moved to the edge of its uncertainty: (code, assumption it moves).
SCENARIOS: tuple[tuple[str, str], ...] = (
    ("efficiency_flatter", "efficiency"),
    ("efficiency_steeper", "efficiency"),
    ("overlap_lower", "overlap"),
    ("overlap_higher", "overlap"),
    ("intra_bandwidth_lower", "bandwidth"),
    ("inter_bandwidth_lower", "bandwidth"),
    ("bubble_lower", "pipeline"),
    ("host_lower", "host"),
    ("host_higher", "host"),
)
#: Relative difference below which two estimates count as the same step under every scenario.
SAME_ESTIMATE: float = 0.01

#: What each assumption's measurement is (catalog keys; the rows render them in the learner's language).
MEASUREMENTS: dict[str, str] = {
    "efficiency": "planner.measure_efficiency",
    "overlap": "planner.measure_overlap",
    "bandwidth": "planner.measure_bandwidth",
    "pipeline": "planner.measure_pipeline",
    "host": "planner.measure_host",
    "same": "planner.measure_same",
    "noise": "planner.measure_noise",
    "unordered": "planner.measure_unordered",
}
#: The reasons that name no assumption: the estimates never separate (``same``), they are closer than two runs
#: of one configuration land apart (``noise``), or they differ by less than the model's uncertainty and no named
#: assumption reverses them (``unordered``).
UNSEPARATED: tuple[str, ...] = ("same", "noise", "unordered")

register(
    {
        "planner.scenario_efficiency_flatter": {
            "zh": "小矩阵乘的效率损失减半",
            "en": "smaller matmuls lose half as much efficiency",
        },
        "planner.scenario_efficiency_steeper": {
            "zh": "小矩阵乘的效率损失加倍",
            "en": "smaller matmuls lose twice as much efficiency",
        },
        "planner.scenario_overlap_lower": {
            "zh": "各维的重叠份额少四分之一（DP、PP、CP，以及打开了重叠内核的 TP、EP）",
            "en": "every overlap share a quarter lower (DP, PP, CP, and TP and EP where an overlap kernel is on)",
        },
        "planner.scenario_overlap_higher": {
            "zh": "TP 与 EP 的通信有四分之一藏在计算下（打开通信重叠内核）",
            "en": "a quarter of TP and EP communication hides under compute (overlap kernels on)",
        },
        "planner.scenario_intra_bandwidth_lower": {
            "zh": "节点内带宽低 {share:.0%}",
            "en": "intra-node bandwidth {share:.0%} lower",
        },
        "planner.scenario_inter_bandwidth_lower": {
            "zh": "跨节点带宽低 {share:.0%}",
            "en": "inter-node bandwidth {share:.0%} lower",
        },
        "planner.scenario_bubble_lower": {
            "zh": "流水线气泡只有公式的一半",
            "en": "the pipeline bubble is half the formula's",
        },
        "planner.scenario_host_lower": {
            "zh": "主机发射每个 MoE 层内核 (kernel) 的时间只有一半（CUDA graph 捕获路由与分发的准备，或更快的 CPU）",
            "en": "the host launches each MoE layer's kernels in half the time (CUDA graphs over the router and the "
            "dispatch preparation, or a faster CPU)",
        },
        "planner.scenario_host_higher": {
            "zh": "主机发射每个 MoE 层内核 (kernel) 的时间多一半（更慢的 CPU，或更多的 Python 开销）",
            "en": "the host takes half as long again to launch each MoE layer's kernels (a slower CPU, or more Python "
            "overhead)",
        },
        "planner.scenario_same": {
            "zh": "在每种假设下估算都与组首相差不到 {share:.0%}",
            "en": "its estimate stays within {share:.0%} of the group's fastest under every assumption",
        },
        "planner.scenario_noise": {
            "zh": "估算与组首相差不到 {share:.1%}，而同一配置的两次公开实测就曾相差这么多",
            "en": "its estimate is within {share:.1%} of the group's fastest, as far apart as two published "
            "measurements of one configuration have landed",
        },
        "planner.scenario_unordered": {
            "zh": "没有哪个已知假设能让它追上组首，但两者的估算相差不到 {share:.0%}（估算的不确定度），"
            "而估算相差这么小的公开实测布局对，估算多数排反了",
            "en": "no named assumption lets it catch up, but the two estimates differ by less than {share:.0%} (the "
            "estimate's uncertainty), and the estimate reversed most published pairs of measured layouts this close",
        },
        "planner.measure_unordered": {
            "zh": "两者都跑几步，比较实测步时",
            "en": "run a few steps of both and compare the measured step times",
        },
        "planner.measure_noise": {
            "zh": "两者各跑多次（换用不同的节点），比较平均步时：各跑一次分不出这么小的差别",
            "en": "run each several times (on different nodes) and compare the mean step times: one run each cannot "
            "resolve so small a difference",
        },
        "planner.measure_efficiency": {
            "zh": "在一张 GPU 上按两者的形状（微批次、TP、CP）计时一层的前向与反向，读出矩阵乘效率",
            "en": "time one layer's forward and backward on one GPU at both shapes (micro-batch, TP, CP) and read "
            "the matmul efficiency",
        },
        "planner.measure_efficiency_same_shapes": {
            "zh": "两者的矩阵乘形状相同（微批次、TP、CP），估算的矩阵乘效率也相同；差别在通信和显存（例如 ZeRO 阶段），"
            "矩阵乘变快后谁的通信藏得住，谁就快。"
            "各跑几步，用性能分析器 (profiler) 的时间线读出暴露的通信（第 8 课的方法）",
            "en": "both run the same matmul shapes (micro-batch, TP, CP) at the same estimated efficiency; they differ "
            "in communication and memory (the ZeRO stage, say), and once matmuls run faster the one whose "
            "communication still hides wins. Run a few steps of each and read the exposed communication off a "
            "profiler timeline (lesson 8's method)",
        },
        "planner.measure_overlap": {
            "zh": "各跑几步并用性能分析器 (profiler) 的时间线读出暴露的通信（第 8 课的方法）",
            "en": "run a few steps of each and read the exposed communication off a profiler timeline (lesson 8's "
            "method)",
        },
        "planner.measure_bandwidth": {
            "zh": "在节点内和跨节点用 nccl-tests（all_reduce_perf、sendrecv_perf）测出总线带宽",
            "en": "measure the bus bandwidth with nccl-tests (all_reduce_perf, sendrecv_perf) inside a node and "
            "across nodes",
        },
        "planner.measure_pipeline": {
            "zh": "用性能分析器 (profiler) 的时间线量出流水线预热与收尾阶段的空闲时间",
            "en": "measure the idle time of the pipeline's warm-up and cool-down on a profiler timeline",
        },
        "planner.measure_host": {
            "zh": "用 Nsight Systems 时间线看 MoE 层里内核之间的空隙：GPU 在等主机发射时，空隙就是主机的耗时",
            "en": "read the gaps between kernels inside an MoE layer off an Nsight Systems timeline: while the GPU "
            "waits for the host to launch, the gaps are the host's time",
        },
        "planner.measure_same": {
            "zh": "估算分不出两者，只有把两者都跑起来才能比较",
            "en": "the estimate cannot separate them: only running both can",
        },
        "planner.tie_row": {
            "zh": "#{rank} {label}：估算 {step_s:estimate}（组首的 {ratio:.3f} 倍）；当{scenario}时它是本组最快的"
            "（差 1% 以内）；要判断：{measurement}",
            "en": "#{rank} {label}: estimated {step_s:estimate} ({ratio:.3f}x the group's fastest); the group's "
            "fastest (within 1 %) if {scenario}; to decide: {measurement}",
        },
        "planner.tie_row_catch_up": {
            "zh": "#{rank} {label}：估算 {step_s:estimate}（组首的 {ratio:.3f} 倍）；当{scenario}时它不比组首慢；"
            "要判断：{measurement}",
            "en": "#{rank} {label}: estimated {step_s:estimate} ({ratio:.3f}x the group's fastest); at least as fast "
            "as the group's fastest if {scenario}; to decide: {measurement}",
        },
        "planner.tie_row_same": {
            "zh": "#{rank} {label}：估算 {step_s:estimate}（组首的 {ratio:.3f} 倍）；{scenario}；要判断：{measurement}",
            "en": "#{rank} {label}: estimated {step_s:estimate} ({ratio:.3f}x the group's fastest); {scenario}; to "
            "decide: {measurement}",
        },
        "planner.tie_leader": {
            "zh": "#{rank} {label}：估算 {step_s:estimate}，本组最快",
            "en": "#{rank} {label}: estimated {step_s:estimate}, the group's fastest",
        },
    }
)


#: The host-time scenarios' scale of :data:`coursekit.planner.calibration.MOE_LAYER_HOST_S`.
_HOST_SCALE: dict[str, float] = {
    "host_lower": 1 - ASSUMPTION_UNCERTAINTY["host"],
    "host_higher": 1 + ASSUMPTION_UNCERTAINTY["host"],
}


def _scenario_specs(code: str, cluster: ClusterSpec, workload: WorkloadSpec) -> tuple[ClusterSpec, WorkloadSpec, float]:
    """(cluster, workload, efficiency shape) of scenario ``code``.

    The moved values are floats derived from the validated specs and kept in range (a bandwidth times a
    factor in (0, 1), an overlap share clipped to [0, 1]), so the copies skip the specs' checks
    (:func:`coursekit.specs._replace_valid`): one widget update checks its inputs once, not once per scenario.
    """
    u = ASSUMPTION_UNCERTAINTY
    if code == "bubble_lower" or code in _HOST_SCALE:
        return cluster, workload, 1.0
    if code == "efficiency_flatter":
        return cluster, workload, 1 - u["efficiency"]
    if code == "efficiency_steeper":
        return cluster, workload, 1 / (1 - u["efficiency"])
    if code == "intra_bandwidth_lower":
        bw = cluster.intra_node_bandwidth_bytes_per_s * (1 - u["bandwidth"])
        return _replace_valid(cluster, intra_node_bandwidth_bytes_per_s=bw), workload, 1.0
    if code == "inter_bandwidth_lower":
        bw = cluster.inter_node_bandwidth_bytes_per_s * (1 - u["bandwidth"])
        return _replace_valid(cluster, inter_node_bandwidth_bytes_per_s=bw), workload, 1.0
    share = u["overlap"]
    if workload.overlap_fraction is not None:
        moved = workload.overlap_fraction * (1 - share) if code == "overlap_lower" else 1.0
        return cluster, _replace_valid(workload, overlap_fraction=min(1.0, moved)), 1.0
    changes: dict[str, Any]
    if code == "overlap_lower":
        # every share a quarter lower: DP, PP and CP, and TP and EP where an overlap kernel is on (TP's is by
        # default, with sequence parallelism; EP's default 0 stays 0)
        changes = {f"overlap_{dim}": workload.overlap(dim) * (1 - share) for dim in ("dp", "pp", "cp", "tp", "ep")}
    else:
        changes = {f"overlap_{dim}": min(1.0, workload.overlap(dim) + share) for dim in ("tp", "ep")}
    return cluster, _replace_valid(workload, **changes), 1.0


def scenario_steps(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, columns: Mapping[str, Any]
) -> dict[str, Any]:
    """Step time of each candidate in ``columns`` under each of :data:`SCENARIOS` (seconds, arrays).

    Efficiency scenarios are skipped when the workload sets a flat ``achievable_flops_fraction`` (no curve).
    One pass runs them all (:func:`coursekit.planner.estimate.training_steps`), each scenario with the
    :class:`coursekit.planner.estimate.Assumptions` :func:`_scenario_specs` moves: the compute and the communication
    once per distinct (bandwidths, curve shape) among the scenarios — the overlap, bubble and host scenarios share
    the stated ones — and each scenario's step from them at its own overlap, bubble and host scale. The same numbers
    as one estimate per scenario, bit for bit (``tests/test_planner_ties_one_pass.py``).
    """
    from .estimate import Assumptions, check_estimate_inputs, training_steps

    if called_from_outside():
        check_estimate_inputs(model, cluster, workload, columns, name="columns")
    codes: list[str] = []
    blocks: list[Assumptions] = []
    for code, assumption in SCENARIOS:
        if assumption == "efficiency" and workload.achievable_flops_fraction is not None:
            continue
        c2, w2, shape = _scenario_specs(code, cluster, workload)
        bubble = 1 - ASSUMPTION_UNCERTAINTY["pipeline"] if code == "bubble_lower" else 1.0
        host = _HOST_SCALE.get(code, 1.0)
        codes.append(code)
        blocks.append(Assumptions.of(c2, w2, shape, bubble, host))
    return dict(zip(codes, training_steps(model, cluster, workload, columns, blocks), strict=True))


@dataclass(frozen=True)
class TieRow:
    """One member of a tie group: its rank, degrees label and estimate, and what would reorder it.

    ``scenarios`` are the codes of :data:`SCENARIOS` under which it becomes the fastest of its group
    (empty for the fastest itself; ``("same",)`` when no assumption separates them, ``("noise",)`` when they are
    within :data:`~coursekit.planner.calibration.MEASUREMENT_REPEATABILITY`, ``("unordered",)`` when no named
    assumption lets it catch up but the model's uncertainty does); ``assumption`` the first of them's assumption
    (``"efficiency"``, ``"overlap"``, ``"bandwidth"``, ``"pipeline"``, ``"host"``, or one of :data:`UNSEPARATED`);
    ``reason`` renders the row in the learner's language.
    """

    rank: int
    index: int
    label: str
    step_s: float
    ratio: float
    scenarios: tuple[str, ...]
    assumption: str
    reason: Reason

    @property
    def message(self) -> str:
        """The row in the current language."""
        return self.reason.message


def _both(key: str, **params: Any) -> Text:
    """A catalog entry as a :class:`Text`, so it can sit inside another entry in either language."""
    return Text(zh=tr(key, lang="zh", **params), en=tr(key, lang="en", **params))


def _scenario_text(code: str) -> Text:
    if code == "noise":
        return _both("planner.scenario_noise", share=MEASUREMENT_REPEATABILITY)
    if code == "unordered":
        from .estimate import MODEL_UNCERTAINTY

        return _both("planner.scenario_unordered", share=MODEL_UNCERTAINTY)
    share = ASSUMPTION_UNCERTAINTY["bandwidth"] if "bandwidth" in code else SAME_ESTIMATE
    return _both(f"planner.scenario_{code}", share=share)


def tie_row(
    rank: int,
    index: int,
    label: str,
    step_s: float,
    leader_s: float,
    scenarios: tuple[str, ...],
    key: str = "planner.tie_row",
    *,
    same_shapes: bool = False,
) -> TieRow:
    """Build a :class:`TieRow` (``scenarios`` empty: the group's fastest); ``key`` words a reordering row.

    ``same_shapes``: the row's candidate runs its matmuls at the leader's estimated efficiency (the same shapes), so
    where matmul efficiency reorders the two, timing a layer at "both shapes" would time one shape twice: the row
    asks for what differs instead, the exposed communication.
    """
    if called_from_outside():
        check_int("rank", rank, ge=1)
        check_int("index", index, ge=0)
        if not isinstance(label, str):
            raise type_error("label", label, "str")
        check_number("step_s", step_s, ge=0)
        check_number("leader_s", leader_s, gt=0)
        codes = (*(code for code, _ in SCENARIOS), *UNSEPARATED)
        for i, code in enumerate(check_items("scenarios", scenarios)):
            check_choice(f"scenarios[{i}]", code, codes)
        check_choice("key", key, ("planner.tie_row", "planner.tie_row_catch_up"))
        check_bool("same_shapes", same_shapes)
    if not scenarios:
        reason = Reason(
            "leader", "planner.tie_leader", {"rank": rank, "label": label, "step_s": Seconds._of_checked(step_s)}
        )
        return TieRow(rank, index, label, step_s, 1.0, (), "", reason)
    assumption = scenarios[0] if scenarios[0] in UNSEPARATED else dict(SCENARIOS)[scenarios[0]]
    params = {
        "rank": rank,
        "label": label,
        # written as estimate_seconds_text does (3 significant figures): "739 天" for an absurd cluster's step
        "step_s": Seconds._of_checked(step_s),
        "ratio": step_s / leader_s,
        "scenario": _scenario_text(scenarios[0]),
        "measurement": _both(
            "planner.measure_efficiency_same_shapes"
            if assumption == "efficiency" and same_shapes
            else MEASUREMENTS[assumption]
        ),
    }
    reason = Reason(assumption, "planner.tie_row_same" if assumption in UNSEPARATED else key, params)
    return TieRow(rank, index, label, step_s, step_s / leader_s, scenarios, assumption, reason)


register(
    {
        "planner.tie_steps": {
            "zh": "{name} = {value}：必须是一维的有限非负数数组（步长时间，秒），长度 {length}。",
            "en": "{name} = {value}: must be a one-dimensional array of finite non-negative step times (s), "
            "{length} long.",
        },
        "planner.tie_no_scenarios": {
            "zh": "scenarios = {value}：至少要有一个情景（情景代码对应一个与组内位置对齐的步长时间数组）。",
            "en": "scenarios = {value}: must hold at least one scenario (a scenario code mapped to step times aligned "
            "with the group's positions).",
        },
        "planner.tie_group": {
            "zh": "group = {value}：必须是列表，各项是 0 到 {high} 之间的整数位置。",
            "en": "group = {value}: must be a list of integer positions from 0 to {high}.",
        },
        "planner.tie_group_missing": {
            "zh": "group = {value!r}：这份计划只有 {count} 个并列组，group 必须在 1 到 {count} 之间（从 1 数起）。",
            "en": "group = {value!r}: this plan has {count:@tie group}; group must be from 1 to {count} (counted "
            "from 1).",
        },
        "planner.tie_group_none": {
            "zh": "group = {value!r}：这份计划没有并列组（没有通过的候选）：explain_ties(1) 给出空列表，没有别的组。",
            "en": "group = {value!r}: this plan has no tie groups (no candidate was accepted): explain_ties(1) "
            "gives an empty list, and no other group exists.",
        },
    }
)


def _check_steps(name: str, values: Any, length: int | None = None) -> Any:
    """``values`` as a 1-D float array of finite step times >= 0 (of ``length`` when given), else a ValueError
    or TypeError naming it in the learner's language."""
    import numpy as np

    # the value is quoted only in a refusal: printing a search's whole array on every call costs more than the check
    shown_length = length if length is not None else "n"
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(tr("planner.tie_steps", name=name, value=shown_repr(values), length=shown_length))
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(tr("planner.tie_steps", name=name, value=shown_repr(values), length=length or "n")) from None
    if (
        array.ndim != 1
        or (length is not None and len(array) != length)
        or not np.all(np.isfinite(array) & (array >= 0))
    ):
        raise ValueError(tr("planner.tie_steps", name=name, value=shown_repr(values), length=shown_length))
    return array


def _check_scenarios(scenarios: Any, length: int | None) -> dict[str, Any]:
    if not isinstance(scenarios, Mapping):
        raise TypeError(
            tr(
                "validate.type_instance",
                name="scenarios",
                value=shown_repr(scenarios),
                expected="Mapping",
                type=type(scenarios).__name__,
            )
        )
    return {str(code): _check_steps(f"scenarios[{code!r}]", steps, length) for code, steps in scenarios.items()}


def robust_tie_groups(
    base: Any, scenarios: Mapping[str, Any], uncertainty: float, leaders: int | None = None
) -> tuple[list[list[int]], dict[int, tuple[str, ...]]]:
    """Group positions of ascending ``base`` step times into ties (see the module docstring).

    ``scenarios`` maps a scenario code to step times aligned with ``base``. Returns the groups (positions,
    each group led by its fastest) and, for every non-leading member, the scenario codes under which it is at
    least as fast as its group's fastest (``("same",)`` when none is but the estimates never separate,
    ``("noise",)`` when none is but the base estimates are within
    :data:`~coursekit.planner.calibration.MEASUREMENT_REPEATABILITY`, ``("unordered",)`` when none is and they are
    farther apart). Every candidate within ``(1 + uncertainty)`` of a group's fastest is in the group.
    With ``leaders``, only the groups led by the first ``leaders`` positions: groups are formed fastest first,
    each from what the ones before it left, so they are the same as in the whole grouping.

    >>> import numpy as np
    >>> base = np.array([1.00, 1.05, 1.10, 1.30])
    >>> groups, why = robust_tie_groups(base, {"overlap_lower": np.array([1.2, 1.1, 1.3, 1.3])}, 0.2)
    >>> groups, why    # 1 is as fast as 0 when overlap is lower; 2 is within 20 % but no scenario makes it as fast
    ([[0, 1, 2], [3]], {1: ('overlap_lower',), 2: ('unordered',)})

    Taught in: lesson 9 (decision workbench).
    """
    base = _check_steps("base", base)
    scenarios = _check_scenarios(scenarios, len(base))
    uncertainty = check_number("uncertainty", uncertainty, ge=0, le=10)
    if leaders is not None:
        leaders = check_int("leaders", leaders, ge=0)
    return _tie_groups(base, scenarios, uncertainty, leaders)


def _tie_groups(
    base: Any, scenarios: Mapping[str, Any], uncertainty: float, leaders: int | None
) -> tuple[list[list[int]], dict[int, tuple[str, ...]]]:
    """Kernel of :func:`robust_tie_groups` for checked inputs (float arrays)."""
    import numpy as np

    codes = list(scenarios)
    table = np.stack([np.asarray(scenarios[c], dtype=float) for c in codes]) if codes else np.empty((0, len(base)))
    assigned = np.zeros(len(base), dtype=bool)
    groups: list[list[int]] = []
    why: dict[int, tuple[str, ...]] = {}
    names: dict[int, tuple[str, ...]] = {}
    for leader in range(len(base) if leaders is None else min(leaders, len(base))):
        if assigned[leader]:
            continue
        assigned[leader] = True
        group = [leader]
        end = int(np.searchsorted(base, base[leader] * (1 + uncertainty), side="right"))
        window = np.arange(leader + 1, end)
        window = window[~assigned[window]]
        if window.size:
            faster = table[:, window] <= table[:, [leader]] * (1 + 1e-9)
            ratio = np.vstack([base[window][None, :], table[:, window]]) / np.vstack(
                [base[[leader]][:, None], table[:, [leader]]]
            )
            same = np.all(np.abs(ratio - 1) <= SAME_ESTIMATE, axis=0)
            close = base[window] <= base[leader] * (1 + MEASUREMENT_REPEATABILITY)
            # every member within the uncertainty is tied (the estimate has not ordered measured layouts this close:
            # coursekit.planner.layout_pairs); the scenarios say what could reorder each one
            members = window
            group.extend(members.tolist())
            assigned[members] = True
            # which scenarios make each member as fast: a bit per scenario, named once per distinct pattern
            patterns = (faster.T.astype(np.int64) << np.arange(len(codes))).sum(axis=1)
            for member, pattern, alike, near in zip(
                members.tolist(), patterns.tolist(), same.tolist(), close.tolist(), strict=True
            ):
                if alike:
                    why[member] = ("same",)
                elif not pattern:  # no scenario and no sameness: within repeatability, or no named assumption at all
                    why[member] = ("noise",) if near else ("unordered",)
                else:
                    if pattern not in names:
                        names[pattern] = tuple(code for k, code in enumerate(codes) if pattern >> k & 1)
                    why[member] = names[pattern]
        groups.append(group)
    return groups, why


def contenders(group: list[int], scenarios: Mapping[str, Any]) -> dict[int, tuple[str, ...]]:
    """Members of a tie ``group`` (positions, its fastest first) that some scenario makes the fastest of the
    group (within :data:`SAME_ESTIMATE`), with those scenarios' codes: the candidates worth measuring.

    >>> import numpy as np
    >>> contenders([0, 1, 2], {"overlap_lower": np.array([1.2, 1.1, 1.15])})
    {1: ('overlap_lower',)}

    Taught in: lesson 9 (decision workbench).
    """
    import numpy as np

    scenarios = _check_scenarios(scenarios, None)
    sizes = {len(steps) for steps in scenarios.values()}
    if not sizes:  # no scenario: none makes any member the fastest (the positions have no array to index)
        raise ValueError(tr("planner.tie_no_scenarios", value=shown_repr(scenarios)))
    high = min(sizes) - 1
    items = group if isinstance(group, (list, tuple)) else None
    if items is None or not all(isinstance(g, int) and not isinstance(g, bool) and 0 <= g <= high for g in items):
        raise ValueError(tr("planner.tie_group", value=shown_repr(group), high=high))
    codes = list(scenarios)
    if not codes or len(group) < 2:
        return {}
    sub = np.stack([np.asarray(scenarios[c], dtype=float)[group] for c in codes])
    near = sub <= sub.min(axis=1, keepdims=True) * (1 + SAME_ESTIMATE)
    return {
        int(group[pos]): tuple(codes[k] for k in np.flatnonzero(near[:, pos]))
        for pos in np.flatnonzero(near[:, 1:].any(axis=0)) + 1
    }


learner_functions(globals())
