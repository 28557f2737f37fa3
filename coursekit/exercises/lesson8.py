"""Exercises of lesson 8 (formula vs measurement): bus bandwidth, the crossover, the bytes a ledger misses,
and reading a measured step timeline.

Every expected answer is computed with coursekit (the ring model, nccl-tests'
bus factors, the lab's exact memory accounting, the run the lesson
shows: the recording read by :func:`coursekit.lab.recorded.load_recorded`, or the learner's own run after
:func:`use_run`); none needs PyTorch.

>>> from coursekit.exercises import get_exercise
>>> get_exercise("lab.fsdp_padding_bytes").expected_value()
195.0

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

from functools import cache

from .._validate import check_instance, learner_functions
from ..capacity import PRECISION_RECIPES
from ..communication import bus_bandwidth_factor
from ..i18n import Text
from ..lab.fit import AlphaBetaFit, crossover_bytes
from ..lab.memory import (
    RECIPE,
    STRATEGIES,
    TinyTransformerConfig,
    expected_adjustments,
    ledger_for,
    parameter_layout,
)
from ..lab.recorded import LessonRecording, load_recorded
from ..units import GIB_BYTES, KIB_BYTES, MIB_BYTES, MS_PER_S, US_PER_S
from . import DIRECTION, GIB_VS_GB, MIB_VS_GIB, PERCENT_VS_FRACTION, Exercise, Slip, mistake, register

#: Exercise lab.busbw_gib_s: an nccl-tests all_gather of S = 256 MiB over 8 ranks that takes 4 ms.
BUSBW_PAYLOAD_BYTES: int = 256 * MIB_BYTES
BUSBW_RANKS: int = 8
BUSBW_TIME_S: float = 4e-3

#: Exercise lab.crossover_bytes: a fitted all_reduce over 2 ranks, α = 50 µs per step, B = 1 GiB/s.
CROSSOVER_ALPHA_S: float = 50e-6
CROSSOVER_BANDWIDTH_BYTES_PER_S: float = float(GIB_BYTES)
CROSSOVER_RANKS: int = 2

#: Exercises on the lab model: 4 ranks for padding and TP, 2 ranks for "most parameter bytes".
MEMORY_RANKS: int = 4
MOST_BYTES_RANKS: int = 2


def _algbw_gib_s() -> float:
    return BUSBW_PAYLOAD_BYTES / BUSBW_TIME_S / GIB_BYTES


def _busbw_gib_s() -> float:
    return _algbw_gib_s() * bus_bandwidth_factor("all_gather", BUSBW_RANKS)


def _crossover_bytes(steps: int | None = None, factor_scale: float = 1.0) -> float:
    """S* of exercise 8.2; ``steps`` / ``factor_scale`` give the answers of a wrong step count or transfer factor."""
    fit = AlphaBetaFit("all_reduce", CROSSOVER_RANKS, CROSSOVER_ALPHA_S, CROSSOVER_BANDWIDTH_BYTES_PER_S, 0, 0.0, False)
    value = crossover_bytes(fit)
    assert value is not None
    if steps is None and factor_scale == 1.0:
        return value
    # S* solves steps · α = factor · S / B: scale the right answer by the slipped steps and factor
    ring_steps = 2 * (CROSSOVER_RANKS - 1)
    return value * (ring_steps if steps is None else steps) / ring_steps / factor_scale


def _extra_param_bytes(strategy: str, ranks: int) -> float:
    adjustments = expected_adjustments(strategy, TinyTransformerConfig(), ranks, 0)["params"]
    return sum(a.delta_bytes for a in adjustments)


def _param_element_bytes() -> int:
    """Bytes per parameter element of the lab's model (fp32)."""
    return int(PRECISION_RECIPES[RECIPE].param_bytes)


#: Slip of the two byte-count exercises: elements counted, not bytes.
_ELEMENTS_HINT = Text(
    zh="你数的是元素个数，不是字节数：实验模型的参数是 fp32，每个元素 4 字节。",
    en="You counted elements, not bytes: the lab model's parameters are fp32, 4 bytes each.",
)


def _replicated_params() -> int:
    return sum(spec.numel for spec in parameter_layout(TinyTransformerConfig()) if spec.tp_placement == "replicate")


def _most_param_bytes() -> str:
    num_params = sum(spec.numel for spec in parameter_layout(TinyTransformerConfig()))

    def held(strategy: str) -> float:
        ledger = ledger_for(strategy, num_params, MOST_BYTES_RANKS).params_bytes
        return ledger + _extra_param_bytes(strategy, MOST_BYTES_RANKS)

    return max(STRATEGIES, key=held)


#: "运行 Y" / "run Y" / "Run Y": the run named as the question and the tables name it (review 26)
_RUN_WORDS: Text = Text(zh="运行", en="run")


def _run_name(answer: str) -> str:
    """The run letter a learner wrote (``'Y'``, ``'y'``, ``'运行 Y'``, ``'run Y'``), upper case; the rest as typed.

    >>> _run_name(" y "), _run_name("运行 Y"), _run_name("Run z"), _run_name("运行 X 和 Y")
    ('Y', 'Y', 'Z', '运行 X 和 Y')
    """
    text = answer.strip()
    for word in (_RUN_WORDS.zh, _RUN_WORDS.en):
        if text.lower().startswith(word) and len(text[len(word) :].strip()) == 1:
            return text[len(word) :].strip().upper()
    return text.upper() if len(text) == 1 else text


BUSBW = register(
    Exercise(
        id="lab.busbw_gib_s",
        lesson=8,
        prompt=Text(
            zh="nccl-tests 在 8 个 rank 上做 S = 256 MiB 的全收集 (all-gather)，耗时 4 ms。"
            "它报告的总线带宽 busbw 是多少 GiB/s？",
            en="nccl-tests runs an all_gather of S = 256 MiB over 8 ranks in 4 ms. "
            "What bus bandwidth (busbw) does it report, in GiB/s?",
        ),
        expected=_busbw_gib_s,
        hint=Text(
            zh="先算 algbw = S / t，再乘以全收集的总线因子 (n-1)/n（coursekit.communication.bus_bandwidth_factor）。",
            en="First algbw = S / t, then multiply by all_gather's bus factor (n-1)/n "
            "(coursekit.communication.bus_bandwidth_factor).",
        ),
        why=lambda busbw: Text(
            zh=f"algbw = {BUSBW_PAYLOAD_BYTES // MIB_BYTES} MiB / {BUSBW_TIME_S * MS_PER_S:g} ms = "
            f"{_algbw_gib_s():g} GiB/s；乘以 {BUSBW_RANKS - 1}/{BUSBW_RANKS} 得 {busbw:.2f} GiB/s："
            "每个 rank 只需收发 (n-1)/n 的数据。",
            en=f"algbw = {BUSBW_PAYLOAD_BYTES // MIB_BYTES} MiB / {BUSBW_TIME_S * MS_PER_S:g} ms = "
            f"{_algbw_gib_s():g} GiB/s; times {BUSBW_RANKS - 1}/{BUSBW_RANKS} gives {busbw:.2f} GiB/s: "
            "each rank moves only (n-1)/n of the buffer.",
        ),
        slips=(
            GIB_VS_GB,
            mistake(
                "algbw",
                _algbw_gib_s,
                Text(
                    zh="这是算法带宽 algbw = S / t；nccl-tests 报告的 busbw 还要乘以该集合通信的总线因子。",
                    en="That is the algorithm bandwidth algbw = S / t; the busbw nccl-tests reports is multiplied by "
                    "the collective's bus factor.",
                ),
            ),
            DIRECTION,
            MIB_VS_GIB,
        ),
    ),
    replace=True,
)

CROSSOVER = register(
    Exercise(
        id="lab.crossover_bytes",
        lesson=8,
        prompt=Text(
            zh="2 个 rank 上拟合全归约 (all-reduce) 得到 α = 50 µs（每步）、B = 1 GiB/s。"
            "载荷 S 超过多少字节后，带宽项大于时延项？",
            en="A fit of all_reduce over 2 ranks gives α = 50 µs per step and B = 1 GiB/s. "
            "Above which payload S, in bytes, is the bandwidth term larger than the latency term?",
        ),
        expected=_crossover_bytes,
        hint=Text(
            zh="令 steps·α = factor·S/B。n = 2 时全归约有 2(n-1) 步，factor = 2(n-1)/n；1 GiB = 2^30 字节。",
            en="Set steps·α = factor·S/B. With n = 2, all_reduce has 2(n-1) steps and factor = 2(n-1)/n; "
            "1 GiB = 2^30 bytes.",
        ),
        why=lambda s: Text(
            zh=f"S* = 2 × {CROSSOVER_ALPHA_S * US_PER_S:g} µs × 2^30 B/s / 1 = {s:,.0f} 字节"
            f"（约 {s / KIB_BYTES:.0f} KiB）；更小的载荷由时延主导。",
            en=f"S* = 2 × {CROSSOVER_ALPHA_S * US_PER_S:g} µs × 2^30 B/s / 1 = {s:,.0f} bytes "
            f"(about {s / KIB_BYTES:.0f} KiB); smaller payloads are latency-bound.",
        ),
        slips=(
            GIB_VS_GB,
            mistake(
                "one_step",
                lambda: _crossover_bytes(steps=CROSSOVER_RANKS - 1),
                Text(
                    zh="你的 S* 是一半：全归约在 n 个 rank 上有 2(n-1) 个环步（这里是 2 步），每步都付一次 α，"
                    "不是 n-1 步。（如果步数你数对了，就检查 B：拟合出的 B 已经是单向带宽。）",
                    en="Your S* is half: an all_reduce over n ranks takes 2(n-1) ring steps (here 2), each paying α, "
                    "not n-1. (If you counted the steps right, check B: the fitted B is already per direction.)",
                ),
            ),
            mistake(
                "half_factor",
                lambda: _crossover_bytes(factor_scale=0.5),
                Text(
                    zh="你的 S* 是两倍：全归约的传输因子是 2(n-1)/n（一次归约散射加一次全收集，这里等于 1），"
                    "不是 (n-1)/n。（如果因子你用对了，就检查 B：拟合出的 B 已经是单向带宽。）",
                    en="Your S* is twice the answer: all_reduce's transfer factor is 2(n-1)/n (a reduce-scatter plus "
                    "an all-gather; here 1), not (n-1)/n. (If your factor was right, check B: the fitted B is "
                    "already per direction.)",
                ),
            ),
            # the worked solution says "about 105 KiB": an answer in KiB (or MiB) is the right S* in another unit
            Slip(
                "kib_for_bytes",
                Text(
                    zh="你的答案与正确值正好差 1024 倍（或 1024 × 1024 倍）：题目要的是字节数，不是 KiB 或 MiB"
                    "（1 KiB = 1024 字节）。",
                    en="Your answer is off by exactly 1024 (or 1024 × 1024): the question asks for bytes, not KiB or "
                    "MiB (1 KiB = 1024 bytes).",
                ),
                matches=lambda answer, expected: any(
                    isinstance(answer, (int, float))
                    and not isinstance(answer, bool)
                    and answer > 0
                    and abs(answer * unit - expected) <= 0.01 * expected
                    for unit in (KIB_BYTES, MIB_BYTES)
                ),
            ),
        ),
    ),
    replace=True,
)

FSDP_PADDING = register(
    Exercise(
        id="lab.fsdp_padding_bytes",
        lesson=8,
        prompt=Text(
            zh="本课的模型在 4 个 rank 上用 FSDP2（reshard_after_forward=True）。"
            "每个 rank 存的参数比账本的 4·N/4 字节多多少字节？",
            en="The lesson's model on 4 ranks under FSDP2 (reshard_after_forward=True): how many bytes of parameters "
            "does each rank store beyond the ledger's 4·N/4?",
        ),
        expected=lambda: _extra_param_bytes("fsdp2-zero3", MEMORY_RANKS),
        hint=Text(
            zh="只有分类头的第 0 维 (5) 不能被 4 整除：权重 5 × 64 和偏置 5。每个 rank 存 ceil(5/4) 行；"
            "与平均份额 (5·64 + 5)/4 相比多多少个 fp32 元素？",
            en="Only the classifier's dim 0 (5) does not divide by 4: a 5 × 64 weight and a 5-element bias. Every "
            "rank stores ceil(5/4) rows; how many fp32 elements is that beyond the even share (5·64 + 5)/4?",
        ),
        why=lambda extra: Text(
            zh=f"分类头每个 rank 存 2 × 64 + 2 个元素，平均份额是 (5 × 64 + 5)/4 个：多出 {extra / 4:g} × 4 = "
            f"{extra:g} 字节的填充。",
            en=f"Each rank stores 2 × 64 + 2 elements of the head against an even share of (5 × 64 + 5)/4: "
            f"{extra / 4:g} × 4 = {extra:g} bytes of padding.",
        ),
        slips=(
            mistake(
                "elements_not_bytes",
                lambda: _extra_param_bytes("fsdp2-zero3", MEMORY_RANKS) / _param_element_bytes(),
                _ELEMENTS_HINT,
            ),
            mistake(
                "all_ranks",
                lambda: _extra_param_bytes("fsdp2-zero3", MEMORY_RANKS) * MEMORY_RANKS,
                Text(
                    zh="这是 4 个 rank 的填充加在一起（补齐后的 8 行减去实际的 5 行）；题目问的是每个 rank 多存多少。",
                    en="That is the padding of all 4 ranks together (8 padded rows less the 5 real ones); the "
                    "question asks what each rank stores beyond its share.",
                ),
            ),
        ),
    ),
    replace=True,
)

TP_REPLICATED = register(
    Exercise(
        id="lab.tp_replicated_bytes",
        lesson=8,
        prompt=Text(
            zh="同一模型在 4 个 rank 上做张量并行。每个 rank 的参数比账本的 4·N/4 字节多多少字节？",
            en="The same model with tensor parallelism over 4 ranks: how many bytes of parameters beyond the "
            "ledger's 4·N/4 does each rank hold?",
        ),
        expected=lambda: _extra_param_bytes("tp", MEMORY_RANKS),
        hint=Text(
            zh="不被切分的参数：每个 block 两个 LayerNorm（各 2 × 64）、两个行切分层的偏置（各 64），"
            "加上分类头（LayerNorm 128 + 5 × 64 + 5）。它们每个 rank 存全量，账本却只算 1/4。",
            en="The unsharded parameters: per block two LayerNorms (2 × 64 each) and the biases of the two row-wise "
            "layers (64 each), plus the head (LayerNorm 128 + 5 × 64 + 5). Each rank holds them whole; the ledger "
            "counts 1/4.",
        ),
        why=lambda extra: Text(
            zh=f"复制的参数共 {_replicated_params()} 个；每个 rank 多存 (1 - 1/4) × {_replicated_params()} × 4 = "
            f"{extra:g} 字节。",
            en=f"{_replicated_params()} parameters are replicated; each rank holds (1 - 1/4) × {_replicated_params()} "
            f"× 4 = {extra:g} bytes more.",
        ),
        slips=(
            mistake(
                "elements_not_bytes",
                lambda: _extra_param_bytes("tp", MEMORY_RANKS) / _param_element_bytes(),
                _ELEMENTS_HINT,
            ),
            mistake(
                "whole_copy",
                lambda: _replicated_params() * _param_element_bytes(),
                Text(
                    zh="这是被复制参数的全部字节；账本已经给每个 rank 算了其中的 1/4，多出来的只是其余的部分。",
                    en="That is all the bytes of the replicated parameters; the ledger already counts 1/4 of them on "
                    "each rank, and only the rest is extra.",
                ),
            ),
        ),
    ),
    replace=True,
)

MOST_PARAM_BYTES = register(
    Exercise(
        id="lab.most_param_bytes",
        lesson=8,
        prompt=Text(
            zh="2 个 rank、前向刚结束时，哪种策略在每个 rank 上持有最多的参数字节？"
            "（ddp、fsdp2-zero3、fsdp2-zero2、tp）",
            en="With 2 ranks, right after the forward pass, which strategy holds the most parameter bytes per rank? "
            "(ddp, fsdp2-zero3, fsdp2-zero2, tp)",
        ),
        expected=_most_param_bytes,
        kind="choice",
        choices=STRATEGIES,
        normalize=lambda s: s.strip().lower(),
        hint=Text(
            zh="reshard_after_forward=False 时，前向结束后每个 rank 上有几份参数？别忘了 FSDP2 自己的分片。",
            en="With reshard_after_forward=False, how many copies of the parameters does a rank hold after forward? "
            "Do not forget FSDP2's own shards.",
        ),
        why=Text(
            zh="fsdp2-zero2：完整参数一份，加上 FSDP2 保留的 1/2 分片，共约 1.5 份，比 DDP 的一份还多；"
            "这份峰值要到反向结束才释放。",
            en="fsdp2-zero2: one full copy plus the 1/2 shard FSDP2 keeps, about 1.5 copies, more than DDP's one; "
            "the peak lasts until backward is done.",
        ),
    ),
    replace=True,
)


# ---------------------------------------------------------------------------
# Reading the recorded step timelines (section 6 of the lesson)
# ---------------------------------------------------------------------------

#: The three DDP runs with one fault each, under the names the lesson shows them with.
MYSTERY_RUNS: dict[str, str] = {"X": "no_overlap", "Y": "input_delay", "Z": "slow_rank"}
#: The strategy whose straggler the learner finds, and the strategy of the mystery runs.
STRAGGLER_STRATEGY: str = "tp"
MYSTERY_STRATEGY: str = "ddp"
#: The rank count whose E(P) the learner computes.
EFFICIENCY_RANKS: int = 4


_LIVE_RUN: list[LessonRecording] = []


@cache
def _recorded() -> LessonRecording:
    return load_recorded()


def use_run(run: LessonRecording | None) -> None:
    """Judge the timeline exercises against ``run``: the run the learner just measured (``LIVE = True``).

    ``None`` goes back to the recording shipped with the course. Every expected answer and every number in the
    feedback of exercises 8.6 to 8.10 then comes from that run.

    Taught in: lesson 8 (formula vs measurement), first code cell.
    """
    if run is not None:
        check_instance("run", run, LessonRecording)
    _LIVE_RUN.clear()
    if run is not None:
        _LIVE_RUN.append(run)


def recording() -> LessonRecording:
    """The run the timeline exercises are judged against: the learner's live run if set, else the recorded one."""
    return _LIVE_RUN[0] if _LIVE_RUN else _recorded()


def _slow_rank() -> int:
    return recording().timeline.result(STRAGGLER_STRATEGY, "slow_rank").least_waiting_rank


def _most_waiting_rank() -> int:
    per_rank = recording().timeline.result(STRAGGLER_STRATEGY, "slow_rank").per_rank
    return max(per_rank, key=lambda b: (b.wait_slower_rank_s, -b.rank)).rank


def _exposed_share() -> float:
    mean = recording().timeline.result(MYSTERY_STRATEGY, "baseline").mean
    return mean.exposed_communication_s / (mean.exposed_communication_s + mean.hidden_communication_s)


def _exposed_share_of_step() -> float:
    mean = recording().timeline.result(MYSTERY_STRATEGY, "baseline").mean
    return mean.exposed_communication_s / mean.step_s


def _grown_most(part: str) -> str:
    """The mystery run in which ``part`` grew most over the baseline (mean of ranks)."""
    timeline = recording().timeline
    base = getattr(timeline.result(MYSTERY_STRATEGY, "baseline").mean, f"{part}_s")
    return max(
        MYSTERY_RUNS,
        key=lambda name: getattr(timeline.result(MYSTERY_STRATEGY, MYSTERY_RUNS[name]).mean, f"{part}_s") - base,
    )


#: Exercises 8.8 and 8.9 answered with another fault's run: each hint names the column that run grew in, and the
#: column the question's fault shows in, never the run.
_STRAGGLER_RUN_SLIP = mistake(
    "straggler_run",
    lambda: _grown_most("wait_slower_rank"),
    Text(
        zh="三个运行里，你选的这个“等慢 rank”比基线涨得最多：那是慢 rank（练习 8.9 问的）。输入延迟看“等输入”一列。",
        en="Of the three runs, the one you chose grew most in 'wait: slower rank' over the baseline: that is the slow "
        "rank (exercise 8.9's question). An input delay shows in the 'wait: input' column.",
    ),
)
_INPUT_DELAY_RUN_SLIP = mistake(
    "input_delay_run",
    lambda: _grown_most("input_wait"),
    Text(
        zh="三个运行里，你选的这个“等输入”比基线涨得最多：那是输入延迟（练习 8.8 问的），所有 rank 一起等数据。"
        "慢 rank 看“等慢 rank”一列。",
        en="Of the three runs, the one you chose grew most in 'wait: input' over the baseline: that is the input delay "
        "(exercise 8.8's question), every rank waiting for data together. A slow rank shows in the 'wait: slower "
        "rank' column.",
    ),
)
_OVERLAP_OFF_RUN_SLIP = mistake(
    "overlap_off_run",
    lambda: next(name for name, run in MYSTERY_RUNS.items() if run == "no_overlap"),
    Text(
        zh="你选的运行注入的是关掉通信与计算的重叠：它既不让数据晚到，也不让某个 rank 变慢。"
        "和基线比，看题目问的故障会让哪一列多出一大块。",
        en="The run you chose had communication-compute overlap turned off: that neither delays the data nor slows "
        "one rank. Compared with the baseline, look for the column the question's fault makes grow by a large amount.",
    ),
)


def _growth_ms(part: str, run: str) -> float:
    """How much ``part`` grew in mystery run ``run`` over the baseline (mean of ranks), in ms."""
    timeline = recording().timeline
    base = getattr(timeline.result(MYSTERY_STRATEGY, "baseline").mean, f"{part}_s")
    grown: float = getattr(timeline.result(MYSTERY_STRATEGY, MYSTERY_RUNS[run]).mean, f"{part}_s") - base
    return grown * MS_PER_S


def _injected_delay_ms() -> float:
    """The input delay the recording injected, in ms."""
    return recording().timeline.result(MYSTERY_STRATEGY, "input_delay").scenario.input_delay_s * MS_PER_S


def _efficiency() -> float:
    points = {p.ranks: p for p in recording().efficiency()}
    return points[EFFICIENCY_RANKS].efficiency


SLOW_RANK = register(
    Exercise(
        id="lab.slow_rank",
        lesson=8,
        prompt=Text(
            zh="在录制的张量并行 (TP) 运行中，有一个 rank 被注入了额外的计算。只看表中的数字，哪个 rank 是慢 rank？",
            en="In the recorded tensor-parallel (TP) run, one rank was given extra compute. From the numbers alone, "
            "which rank is the slow one?",
        ),
        expected=_slow_rank,
        kind="exact",
        hint=Text(
            zh="在集合通信处，先到的 rank 要等最后到的 rank。看“等慢 rank”一列：谁等得最少？",
            en="At a collective, the ranks that arrive first wait for the last one. Look at the 'wait: slower rank' "
            "column: who waits least?",
        ),
        why=lambda rank: Text(
            zh=f"rank {rank} 几乎不等别人，其他 rank 却在每次集合通信前等它：它就是掉队者 (straggler)。",
            en=f"rank {rank} hardly waits for anyone while the others wait for it before every collective: it is "
            "the straggler.",
        ),
        slips=(
            Slip(
                "no_such_rank",
                Text(
                    zh="录制的运行里没有这个编号的 rank：rank 从 0 开始编号，每个进程一个"
                    "（表中的 rank 列列出了它们）。",
                    en="The recorded run has no rank with that number: ranks are numbered from 0, one per process "
                    "(the table's 'rank' column lists them).",
                ),
                matches=lambda answer, _expected: answer not in range(recording().timeline.ranks),
            ),
            mistake(
                "waits_most",
                _most_waiting_rank,
                Text(
                    zh="这个 rank 等得最多：它早早到了集合通信处，在等别人。慢 rank 是让别人等的那一个。",
                    en="That rank waits most: it reaches each collective early and waits for another. The slow rank "
                    "is the one the others wait for.",
                ),
            ),
        ),
    ),
    replace=True,
)

EXPOSED_SHARE = register(
    Exercise(
        id="lab.exposed_share",
        lesson=8,
        prompt=Text(
            zh="在录制的 DDP 基线运行中（各 rank 平均），通信里有多大比例是暴露的（没有被计算掩盖）？"
            "答一个 0 到 1 之间的小数。",
            en="In the recorded DDP baseline (mean of ranks), what share of the communication is exposed (not "
            "hidden under compute)? Answer a fraction between 0 and 1.",
        ),
        expected=_exposed_share,
        rel_tol=0.02,
        hint=Text(
            zh="通信 = 暴露的通信 + 被掩盖的通信；用“实测（各 rank 平均）”一行的两个数。",
            en="Communication = exposed + hidden; use the two numbers of the 'measured (mean of ranks)' row.",
        ),
        why=lambda share: Text(
            zh=f"暴露 / (暴露 + 掩盖) = {share:.2f}：DDP 在反向中就按桶启动全归约，但在这台机器上只有 "
            f"{1 - share:.0%} 真正与计算重叠。",
            en=f"exposed / (exposed + hidden) = {share:.2f}: DDP starts bucketed all-reduces during backward, yet on "
            f"this machine only {1 - share:.0%} of the communication really overlapped compute.",
        ),
        slips=(
            PERCENT_VS_FRACTION,
            mistake(
                "hidden_share",
                lambda: 1 - _exposed_share(),
                Text(
                    zh="这是被掩盖的比例；题目问的是暴露的通信占通信的比例。",
                    en="That is the hidden share; the question asks for the exposed share of the communication.",
                ),
            ),
            mistake(
                "share_of_step",
                _exposed_share_of_step,
                Text(
                    zh="你除以的是步时；题目问的是占通信（暴露 + 被掩盖）的比例。",
                    en="You divided by the step; the question asks for a share of the communication (exposed + "
                    "hidden).",
                ),
            ),
        ),
    ),
    replace=True,
)

INPUT_DELAY_RUN = register(
    Exercise(
        id="lab.input_delay_run",
        lesson=8,
        prompt=Text(
            zh="运行 X、Y、Z 各注入了一种故障（慢 rank、输入延迟、关闭重叠）。哪一个注入的是输入延迟？",
            en="Runs X, Y and Z each had one fault injected (a slow rank, an input delay, overlap turned off). "
            "Which one had the input delay?",
        ),
        expected=lambda: _grown_most("input_wait"),
        kind="choice",
        choices=tuple(MYSTERY_RUNS),
        normalize=_run_name,
        slips=(_STRAGGLER_RUN_SLIP, _OVERLAP_OFF_RUN_SLIP),
        hint=Text(
            zh="和基线比，哪一列在哪个运行里多出了一大块？输入延迟只会出现在一个地方。",
            en="Compared with the baseline, which column grew by a large amount in which run? An input delay shows "
            "in one place only.",
        ),
        why=lambda run: Text(
            zh=f"运行 {run} 的“等输入”每步比基线多出 {_growth_ms('input_wait', run):.1f} ms，正是注入的 "
            f"{_injected_delay_ms():g} ms 延迟；输入延迟只会出现在这一列（其他列的变化是本机的噪声）。"
            "数据加载跟不上，与并行策略无关。",
            en=f"In run {run}, 'wait: input' grew by {_growth_ms('input_wait', run):.1f} ms per step over the "
            f"baseline, the injected delay of {_injected_delay_ms():g} ms; an input delay shows in that column only "
            "(changes elsewhere are this machine's noise). The input pipeline is too slow, whatever the parallel "
            "strategy.",
        ),
    ),
    replace=True,
)

STRAGGLER_RUN = register(
    Exercise(
        id="lab.straggler_run",
        lesson=8,
        prompt=Text(
            zh="同样的三个运行 X、Y、Z：哪一个注入的是慢 rank？",
            en="The same three runs X, Y and Z: which one had the slow rank?",
        ),
        expected=lambda: _grown_most("wait_slower_rank"),
        kind="choice",
        choices=tuple(MYSTERY_RUNS),
        normalize=_run_name,
        slips=(_INPUT_DELAY_RUN_SLIP, _OVERLAP_OFF_RUN_SLIP),
        hint=Text(
            zh="慢 rank 自己的计算变长，而其他 rank 在集合通信处等它。哪个运行里“等慢 rank”涨得最多？",
            en="The slow rank's own compute grows and the others wait for it at collectives. In which run did "
            "'wait: slower rank' grow most?",
        ),
        why=lambda run: Text(
            zh=f"运行 {run}：一个 rank 的计算变长，另一个 rank 的“等慢 rank”随之变长（各 rank 平均比基线多出 "
            f"{_growth_ms('wait_slower_rank', run):.1f} ms），步时由最慢的 rank 决定。",
            en=f"Run {run}: one rank's compute grew and the other's 'wait: slower rank' grew with it (by "
            f"{_growth_ms('wait_slower_rank', run):.1f} ms over the baseline, mean of ranks); the slowest rank sets "
            "the step.",
        ),
    ),
    replace=True,
)

EFFICIENCY = register(
    Exercise(
        id="lab.efficiency_4",
        lesson=8,
        prompt=Text(
            zh="用 E(P) 表中 P = 1 与 P = 4 的步时，算出本机上 4 个 rank 的扩展效率 E(4)（每个 rank 的 batch 固定）。"
            "答 0 到 1 之间的小数（1 是理想扩展），不是百分数。",
            en="From the steps at P = 1 and P = 4 in the E(P) table, compute the scaling efficiency "
            "E(4) of 4 ranks on this machine (fixed batch per rank). Answer with a fraction between 0 and 1 "
            "(1 is ideal scaling), not a percentage.",
        ),
        expected=_efficiency,
        rel_tol=0.02,
        hint=Text(
            zh="弱扩展下 吞吐(P) = P · 每设备批大小 / 步时(P)，所以 E(P) = 吞吐(P) / (P · 吞吐(1)) = "
            "步时(1) / 步时(P)。",
            en="Under weak scaling throughput(P) = P · batch / step(P), so E(P) = throughput(P) / (P · throughput(1)) "
            "= step(1) / step(P).",
        ),
        why=lambda e: Text(
            zh=f"E(4) = 步时(1) / 步时(4) = {e:.2f}。",
            en=f"E(4) = step(1) / step(4) = {e:.2f}.",
        ),
        slips=(
            PERCENT_VS_FRACTION,
            mistake(
                "inverted",
                lambda: 1 / _efficiency(),
                Text(
                    zh="比值倒过来了：E(P) 不会大于 1 太多，它是 步时(1) / 步时(P)，不是 步时(P) / 步时(1)。",
                    en="The ratio is upside down: E(P) is step(1) / step(P), not step(P) / step(1), and it is rarely "
                    "much above 1.",
                ),
            ),
            mistake(
                "other_p",
                lambda: {p.ranks: p for p in recording().efficiency()}[2].efficiency,
                Text(
                    zh="这是 E(2)，用的是 P = 2 那一行的步时：题目问的是 P = 4。",
                    en="That is E(2), from the step of the P = 2 row: the question asks for P = 4.",
                ),
            ),
            mistake(
                "strong_scaling",
                lambda: _efficiency() / EFFICIENCY_RANKS,
                Text(
                    zh="你又除了一次 P：那是强扩展（总 batch 固定）的公式。这里每个 rank 的 batch 固定，"
                    "吞吐量已经随 P 增长，E(P) = 步时(1) / 步时(P)。",
                    en="You divided by P once more: that is the strong-scaling formula (a fixed total batch). Here "
                    "each rank keeps its batch, so throughput already grows with P and E(P) = step(1) / step(P).",
                ),
            ),
        ),
    ),
    replace=True,
)

learner_functions(globals())
