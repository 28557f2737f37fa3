"""Exercises of lesson 6 (pipeline bubble and scaling efficiency): bubble, a step timeline, E(P).

Every expected answer is computed with coursekit: the bubble with
:func:`coursekit.pipeline.bubble_fraction` and :func:`coursekit.pipeline.bubble_overhead`,
the step timeline with :func:`coursekit.scaling.step_timeline` and the
efficiency with :func:`coursekit.scaling.scaling_efficiency`.

Ids (prefix ``pipeline``): ``pipeline.bubble_p4_m16``, the four numbers of one
step timeline (``pipeline.timeline_compute_ms``, ``pipeline.timeline_bubble_ms``,
``pipeline.timeline_exposed_ms``, ``pipeline.timeline_step_ms``) and
``pipeline.efficiency``.

>>> from coursekit.exercises import get_exercise
>>> round(get_exercise("pipeline.bubble_p4_m16").expected_value(), 4)
0.1579
>>> round(get_exercise("pipeline.timeline_step_ms").expected_value(), 6)
360.0

Taught in: lesson 6 (pipeline bubble and scaling efficiency).
"""

from __future__ import annotations

import functools

from .._validate import learner_functions
from ..i18n import Text
from ..pipeline import bubble_fraction, bubble_overhead
from ..scaling import StepTimeline, scaling_efficiency, step_timeline
from ..units import MS_PER_S
from . import PERCENT_VS_FRACTION, SECONDS_VS_MS, Exercise, Slip, mistake, register

#: The bubble exercise: p = 4 stages; the lesson compares m = 4 and m = 16 micro-batches.
BUBBLE_STAGES: int = 4
BUBBLE_MICROBATCHES: int = 16

#: The timeline exercise (illustrative): PP = 4 stages, m = 8 micro-batches of 30 ms forward + backward per
#: stage, then a 60 ms gradient all-reduce across the DP replicas of which half hides under compute.
TIMELINE_STAGES: int = 4
TIMELINE_MICROBATCHES: int = 8
TIMELINE_MICROBATCH_S: float = 0.030
TIMELINE_ALLREDUCE_S: float = 0.060
TIMELINE_OVERLAP: float = 0.5

#: The efficiency exercise (illustrative measurements): one device 250 samples/s, 32 devices 6800 samples/s.
EFFICIENCY_SINGLE_DEVICE: float = 250.0
EFFICIENCY_DEVICES: int = 32
EFFICIENCY_THROUGHPUT: float = 6800.0

_BUBBLE_SUM: str = (
    f"({BUBBLE_STAGES}-1)/({BUBBLE_MICROBATCHES}+{BUBBLE_STAGES}-1) = "
    f"{BUBBLE_STAGES - 1}/{BUBBLE_MICROBATCHES + BUBBLE_STAGES - 1}"
)


def timeline_exercise() -> StepTimeline:
    """The step of the timeline exercise, built with coursekit.

    Compute is ``m`` micro-batches of ``t`` each; the bubble is the pipeline's
    fill and drain, ``(p-1)/m`` of the compute (:func:`coursekit.pipeline.bubble_overhead`);
    the all-reduce is partly hidden under compute.

    >>> t = timeline_exercise()
    >>> round(t.compute_s, 3), round(t.bubble_s, 3), round(t.exposed_communication_s, 3)
    (0.24, 0.09, 0.03)
    """
    compute_s = TIMELINE_MICROBATCHES * TIMELINE_MICROBATCH_S
    bubble_s = bubble_overhead(TIMELINE_STAGES, TIMELINE_MICROBATCHES) * compute_s
    return step_timeline(compute_s, TIMELINE_ALLREDUCE_S, overlap_fraction=TIMELINE_OVERLAP, bubble_s=bubble_s)


_TIMELINE_SETTING = Text(
    zh=f"流水线 p = {TIMELINE_STAGES} 个阶段、m = {TIMELINE_MICROBATCHES} 个微批次，每个阶段每个微批次前向加反向 "
    f"{TIMELINE_MICROBATCH_S * MS_PER_S:g} ms（各阶段均衡）；"
    f"之后各 DP 副本做一次 {TIMELINE_ALLREDUCE_S * MS_PER_S:g} ms "
    f"的梯度全归约，其中 {TIMELINE_OVERLAP:.0%} 被计算掩盖。",
    en=f"A pipeline of p = {TIMELINE_STAGES} stages and m = {TIMELINE_MICROBATCHES} micro-batches, "
    f"{TIMELINE_MICROBATCH_S * MS_PER_S:g} ms of forward plus backward per micro-batch on each stage (balanced "
    f"stages); then a {TIMELINE_ALLREDUCE_S * MS_PER_S:g} ms gradient all-reduce across the DP replicas, "
    f"{TIMELINE_OVERLAP:.0%} of it hidden under compute.",
)

_TIMELINE_PARTS: dict[str, tuple[Text, Text]] = {
    "compute_ms": (
        Text(zh="一个设备在这一步里计算了多少 ms？", en="How many ms does one device compute in this step?"),
        Text(zh="每个设备要处理全部 m 个微批次，每个耗时 t。", en="Each device runs all m micro-batches, t each."),
    ),
    "bubble_ms": (
        Text(
            zh="流水线气泡（填充加排空时的空闲）是多少 ms？",
            en="How many ms is the pipeline bubble (idle while filling and draining)?",
        ),
        Text(
            zh="填充和排空各让设备空等若干个微批次的时间：一共 (p-1) 个 t，不是 (p-1)/(m+p-1)。",
            en="Filling and draining keep a device waiting for a few micro-batch times: (p-1) of t in all, not "
            "(p-1)/(m+p-1).",
        ),
    ),
    "exposed_ms": (
        Text(
            zh="没有被掩盖、暴露在关键路径上的通信是多少 ms？",
            en="How many ms of communication are exposed (not hidden)?",
        ),
        Text(
            zh="被掩盖的部分不占时间线；暴露的是 (1 - 重叠比例) × 通信时间。",
            en="The hidden part costs no time; the exposed part is (1 - overlap) × the communication.",
        ),
    ),
    "step_ms": (
        Text(zh="这一步总共多少 ms？", en="How many ms does the whole step take?"),
        Text(
            zh="一步 = 计算 + 暴露的通信 + 气泡（+ 其它等待，这里没有）。",
            en="step = compute + exposed communication + bubble (+ other waits, none here).",
        ),
    ),
}


def _slipped_timelines() -> dict[str, StepTimeline]:
    """The step a learner draws after one slip in one part (the other parts right), built with coursekit."""
    compute_s = TIMELINE_MICROBATCHES * TIMELINE_MICROBATCH_S
    bubble_s = bubble_overhead(TIMELINE_STAGES, TIMELINE_MICROBATCHES) * compute_s
    allreduce_s, overlap = TIMELINE_ALLREDUCE_S, TIMELINE_OVERLAP
    return {
        "bubble_p_not_p_minus_1": step_timeline(
            compute_s, allreduce_s, overlap_fraction=overlap, bubble_s=TIMELINE_STAGES * TIMELINE_MICROBATCH_S
        ),
        "bubble_share_of_compute": step_timeline(
            compute_s,
            allreduce_s,
            overlap_fraction=overlap,
            bubble_s=bubble_fraction(TIMELINE_STAGES, TIMELINE_MICROBATCHES) * compute_s,
        ),
        "whole_allreduce_exposed": step_timeline(compute_s, allreduce_s, overlap_fraction=0.0, bubble_s=bubble_s),
        "allreduce_all_hidden": step_timeline(compute_s, allreduce_s, overlap_fraction=1.0, bubble_s=bubble_s),
    }


def _part_slips(part: str) -> tuple[Slip, ...]:
    """The slips a learner's answer to one part of the timeline can show (beyond seconds for milliseconds)."""
    ms = MS_PER_S
    if part == "bubble_ms":
        return (
            mistake(
                "p_not_p_minus_1",
                lambda: _slipped_timelines()["bubble_p_not_p_minus_1"].bubble_s * ms,
                Text(
                    zh="你数了 p 个微批次时间：填充加排空让一个设备一共空等 p-1 个微批次时间，不是 p 个。",
                    en="You counted p micro-batch times: filling and draining leave a device idle for p-1 "
                    "micro-batch times in all, not p.",
                ),
            ),
            mistake(
                "share_not_time",
                lambda: _slipped_timelines()["bubble_share_of_compute"].bubble_s * ms,
                Text(
                    zh="你用了比例 (p-1)/(m+p-1) 乘计算时间：那个比例的分母已经含有气泡本身。气泡的时间是 (p-1) 个 t。",
                    en="You multiplied the compute by the fraction (p-1)/(m+p-1), whose denominator already contains "
                    "the bubble. The bubble's time is (p-1) micro-batch times t.",
                ),
            ),
        )
    if part == "exposed_ms":
        return (
            mistake(
                "whole_allreduce",
                lambda: TIMELINE_ALLREDUCE_S * ms,
                Text(
                    zh="这是整个全归约：其中一半被计算掩盖，不占时间线，暴露的只有剩下的部分。",
                    en="That is the whole all-reduce: half of it hides under compute and costs no time; only the rest "
                    "is exposed.",
                ),
            ),
        )
    if part == "step_ms":
        return _step_slips()
    return ()


#: What each slipped timeline of :func:`_slipped_timelines` got wrong, in both languages (the step's own slips).
_STEP_SLIP_TEXT: dict[str, Text] = {
    "bubble_p_not_p_minus_1": Text(
        zh="把气泡算成了 p 个微批次的时间（应为 p-1 个）", en="a bubble of p micro-batch times, not p-1"
    ),
    "bubble_share_of_compute": Text(
        zh="把气泡算成了比例 (p-1)/(m+p-1) 乘计算时间",
        en="the bubble taken as the fraction (p-1)/(m+p-1) of the compute",
    ),
    "whole_allreduce_exposed": Text(
        zh="把整个全归约都算成了暴露的（其中一半被计算掩盖）",
        en="the whole all-reduce counted as exposed (half of it hides under compute)",
    ),
    "allreduce_all_hidden": Text(
        zh="把全归约算成全被掩盖（只掩盖了一半）",
        en="the all-reduce counted as entirely hidden (only half of it hides)",
    ),
}


def _step_slips() -> tuple[Slip, ...]:
    """The step's slips: one per wrong step value, naming every slipped part that adds up to it with its sum.

    Two slips can give one step (a bubble of p micro-batch times, or the whole all-reduce exposed, both give 390 ms
    here), so a wrong step names each way to it rather than guessing one; the three parts are checked apart.

    >>> [slip.code for slip in _step_slips()]  # doctest: +NORMALIZE_WHITESPACE
    ['step:bubble_p_not_p_minus_1+whole_allreduce_exposed', 'step:bubble_share_of_compute',
     'step:allreduce_all_hidden']
    """
    ms = MS_PER_S
    groups: dict[float, list[tuple[str, StepTimeline]]] = {}
    for name, timeline in _slipped_timelines().items():
        groups.setdefault(round(timeline.step_s * ms, 6), []).append((name, timeline))
    slips = []
    for step_ms, members in groups.items():
        sums = [
            f"{timeline.compute_s * ms:.4g} + {timeline.bubble_s * ms:.4g} + "
            f"{timeline.exposed_communication_s * ms:.4g} = {timeline.step_s * ms:.4g} ms"
            for _, timeline in members
        ]
        joiner = Text(zh="；要么", en="; or ")
        ways = Text(
            zh=joiner.zh.join(
                f"{_STEP_SLIP_TEXT[name].zh}：{total}" for (name, _), total in zip(members, sums, strict=True)
            ),
            en=joiner.en.join(
                f"{_STEP_SLIP_TEXT[name].en}: {total}" for (name, _), total in zip(members, sums, strict=True)
            ),
        )
        hint = Text(
            zh=f"{step_ms:.4g} ms 是三部分（计算 + 气泡 + 暴露的通信）之和，但其中一部分算错了：要么{ways.zh}。"
            "逐项核对三部分，再把它们相加。",
            en=f"{step_ms:.4g} ms is the sum of the three parts (compute + bubble + exposed communication), but with "
            f"one part wrong: {ways.en}. Check each part, then add the three again.",
        )
        slips.append(mistake("step:" + "+".join(name for name, _ in members), functools.partial(float, step_ms), hint))
    return tuple(slips)


def _timeline_value(part: str) -> float:
    timeline = timeline_exercise()
    seconds = {
        "compute_ms": timeline.compute_s,
        "bubble_ms": timeline.bubble_s,
        "exposed_ms": timeline.exposed_communication_s,
        "step_ms": timeline.step_s,
    }[part]
    return seconds * MS_PER_S


def _register_timeline_part(part: str, question: Text, hint: Text) -> None:
    register(
        Exercise(
            id=f"pipeline.timeline_{part}",
            lesson=6,
            prompt=Text(zh=_TIMELINE_SETTING.zh + question.zh, en=_TIMELINE_SETTING.en + " " + question.en),
            expected=lambda: _timeline_value(part),
            hint=hint,
            slips=(SECONDS_VS_MS, *_part_slips(part)),
            why=lambda value: Text(
                zh=f"{value:g} ms（由 coursekit.scaling.step_timeline 算出，和你画的时间线对照）。",
                en=f"{value:g} ms (from coursekit.scaling.step_timeline; compare it with the timeline you drew).",
            ),
        ),
        replace=True,
    )


for _part, (_question, _hint) in _TIMELINE_PARTS.items():
    _register_timeline_part(_part, _question, _hint)


BUBBLE_P4_M16 = register(
    Exercise(
        id="pipeline.bubble_p4_m16",
        lesson=6,
        prompt=Text(
            zh=f"p = {BUBBLE_STAGES} 个流水线阶段、m = {BUBBLE_MICROBATCHES} 个微批次，朴素调度的气泡比例 "
            "(p-1)/(m+p-1) 是多少？答一个 0 到 1 之间的小数。",
            en=f"With p = {BUBBLE_STAGES} pipeline stages and m = {BUBBLE_MICROBATCHES} micro-batches, what is the "
            "bubble fraction (p-1)/(m+p-1) of the simple schedule? Answer with a number between 0 and 1.",
        ),
        expected=lambda: bubble_fraction(BUBBLE_STAGES, BUBBLE_MICROBATCHES),
        slips=(
            PERCENT_VS_FRACTION,
            mistake(
                "overhead_not_fraction",
                lambda: bubble_overhead(BUBBLE_STAGES, BUBBLE_MICROBATCHES),
                Text(
                    zh="这是 (p-1)/m，即气泡相对计算的开销；问的是气泡占整段时间的比例，分母是 m+p-1。",
                    en="That is (p-1)/m, the bubble's overhead relative to compute; the question asks for its share "
                    "of the whole time, whose denominator is m+p-1.",
                ),
            ),
            mistake(
                "p_and_m_swapped",
                lambda: bubble_fraction(BUBBLE_MICROBATCHES, BUBBLE_STAGES),
                Text(
                    zh=f"你把 p 和 m 对调了：p 是流水线阶段数（{BUBBLE_STAGES}），m 是微批次数"
                    f"（{BUBBLE_MICROBATCHES}）；m 越多，气泡越小。",
                    en=f"You swapped p and m: p is the number of pipeline stages ({BUBBLE_STAGES}), m the number of "
                    f"micro-batches ({BUBBLE_MICROBATCHES}); more micro-batches make the bubble smaller.",
                ),
            ),
        ),
        hint=Text(
            zh="分子是 p-1，分母是 m+p-1（只除以 m 得到的是 Megatron 的开销，不是比例）；答的是比例（如 0.25），"
            "不是百分数。coursekit.pipeline.bubble_fraction 可以验证。",
            en="The numerator is p-1 and the denominator m+p-1 (dividing by m alone gives Megatron's overhead, not "
            "the fraction); answer a fraction (like 0.25), not a percentage. coursekit.pipeline.bubble_fraction can "
            "check it.",
        ),
        why=lambda value: Text(
            zh=f"{_BUBBLE_SUM} ≈ {value:.3f}：微批次从 {BUBBLE_STAGES} 增加到 {BUBBLE_MICROBATCHES}，气泡从 "
            f"{bubble_fraction(BUBBLE_STAGES, BUBBLE_STAGES):.1%} 降到 {value:.1%}。",
            en=f"{_BUBBLE_SUM} ≈ {value:.3f}: going from {BUBBLE_STAGES} to {BUBBLE_MICROBATCHES} micro-batches "
            f"shrinks the bubble from {bubble_fraction(BUBBLE_STAGES, BUBBLE_STAGES):.1%} to {value:.1%}.",
        ),
    ),
    replace=True,
)

EFFICIENCY = register(
    Exercise(
        id="pipeline.efficiency",
        lesson=6,
        prompt=Text(
            zh=f"单设备吞吐为每秒 {EFFICIENCY_SINGLE_DEVICE:g} 个样本，{EFFICIENCY_DEVICES} 个设备吞吐为每秒 "
            f"{EFFICIENCY_THROUGHPUT:g} 个样本。扩展效率 E({EFFICIENCY_DEVICES}) 是多少？"
            "用小数作答（理想扩展为 1），不要写成百分数。",
            en=f"One device gives {EFFICIENCY_SINGLE_DEVICE:g} samples/s and {EFFICIENCY_DEVICES} devices give "
            f"{EFFICIENCY_THROUGHPUT:g} samples/s. What is the scaling efficiency E({EFFICIENCY_DEVICES})? "
            "Answer with a fraction (1 is ideal scaling), not a percentage.",
        ),
        expected=lambda: scaling_efficiency(EFFICIENCY_THROUGHPUT, EFFICIENCY_DEVICES, EFFICIENCY_SINGLE_DEVICE),
        slips=(
            PERCENT_VS_FRACTION,
            mistake(
                "speed_up_not_efficiency",
                lambda: EFFICIENCY_THROUGHPUT / EFFICIENCY_SINGLE_DEVICE,
                Text(
                    zh="这是加速比 (speed-up) S(P) = 吞吐(P) / 吞吐(1)，不是效率：效率还要除以设备数 P，"
                    "E(P) = S(P) / P，理想时是 1。",
                    en="That is the speed-up S(P) = throughput(P) / throughput(1), not the efficiency: the efficiency "
                    "divides it by the device count P, E(P) = S(P) / P, which is 1 when scaling is ideal.",
                ),
            ),
            mistake(
                "inverted",
                lambda: EFFICIENCY_DEVICES * EFFICIENCY_SINGLE_DEVICE / EFFICIENCY_THROUGHPUT,
                Text(
                    zh="比值倒过来了：E(P) 是 P 个设备的吞吐除以 P 倍的单设备吞吐，不是反过来；它不会大于 1 太多，"
                    "理想时是 1。",
                    en="The ratio is upside down: E(P) is P devices' throughput over P times one device's, not the "
                    "other way round; it is rarely much above 1, and 1 when scaling is ideal.",
                ),
            ),
        ),
        hint=Text(
            zh="E(P) = 吞吐(P) / (P · 吞吐(1))：把 P 个设备的吞吐和 P 倍的单设备吞吐相比。",
            en="E(P) = throughput(P) / (P · throughput(1)): compare P devices' throughput with P times one device's.",
        ),
        why=lambda value: Text(
            zh=f"{EFFICIENCY_THROUGHPUT:g} / ({EFFICIENCY_DEVICES} × {EFFICIENCY_SINGLE_DEVICE:g}) = {value:.3f}。"
            "它低于 1 本身不说明策略错了：要拆开一步的时间线，看是通信、等待还是输入。",
            en=f"{EFFICIENCY_THROUGHPUT:g} / ({EFFICIENCY_DEVICES} × {EFFICIENCY_SINGLE_DEVICE:g}) = {value:.3f}. "
            "Being below 1 does not by itself mean the strategy is wrong: take the step timeline apart to see "
            "whether it is communication, waiting or input.",
        ),
    ),
    replace=True,
)

learner_functions(globals())
