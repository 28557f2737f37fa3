"""Exercises of lesson 2 (communication, question Q2 of the course): the crossover payload, a
latency-bound ledger, a ring all-reduce.

Every expected answer is computed with :mod:`coursekit.communication`; the
inputs below are the exercises' givens.

>>> from coursekit.exercises import get_exercise
>>> round(get_exercise("q2.crossover_mib").expected_value(), 3)
0.256
>>> get_exercise("q2.latency_bound").expected_value()
'B'

Taught in: lesson 2 (Q2 communication).
"""

from __future__ import annotations

from .._validate import learner_functions
from ..communication import (
    CommunicationLedger,
    bus_bandwidth_factor,
    collective_time_s,
    communication_ledger,
    crossover_payload_mib,
    tp_traffic,
)
from ..hardware import LINK_PRESETS
from ..i18n import Text
from ..units import GIB_BYTES, KB_BYTES, KIB_BYTES, MS_PER_S, US_PER_S, mib_to_bytes
from . import (
    DIRECTION,
    GIB_VS_GB,
    ROUNDED_COUNT,
    SECONDS_VS_MS,
    Exercise,
    Slip,
    any_mistake,
    mistake,
    register,
)

#: q2.crossover_mib: a link with 10 µs per call and 25 GiB/s (unidirectional).
CROSSOVER_LATENCY_US: float = 10.0
CROSSOVER_BANDWIDTH_GIB_S: float = 25.0

#: q2.latency_bound: two ledgers on the course's example link (100 GiB/s, 5 µs per call).
#: A is lesson 2's low-frequency ledger; B sends 64 KiB 512 times.
LINK_BANDWIDTH_GIB_S: float = 100.0
LINK_LATENCY_US: float = 5.0
LEDGER_A: tuple[float, int] = (256.0, 1)
LEDGER_B: tuple[float, int] = (1 / 16, 512)

#: q2.allreduce_ms: a ring all-reduce of S = 256 MiB over n = 8 ranks, B = 100 GiB/s, α = 5 µs per step.
ALLREDUCE_PAYLOAD_MIB: float = 256.0
ALLREDUCE_RANKS: int = 8

#: q2.tp_calls: Megatron TP = 8 on the 7.5B shape (36 layers, h = 4096), s = 4096, b = 1, 8 micro-batches per step.
TP_LAYERS: int = 36
TP_HIDDEN: int = 4096
TP_SEQ_LEN: int = 4096
TP_DEGREE: int = 8
TP_MICRO_BATCHES: int = 8


def ledgers() -> dict[str, CommunicationLedger]:
    """The two ledgers of q2.latency_bound, by name.

    >>> {name: ledger.calls_per_step for name, ledger in ledgers().items()}
    {'A': 1, 'B': 512}
    """
    return {
        name: communication_ledger(payload, calls, LINK_BANDWIDTH_GIB_S, LINK_LATENCY_US)
        for name, (payload, calls) in (("A", LEDGER_A), ("B", LEDGER_B))
    }


def _crossover_mib() -> float:
    return crossover_payload_mib(CROSSOVER_BANDWIDTH_GIB_S, CROSSOVER_LATENCY_US)


def _link_crossover_mib() -> float:
    return crossover_payload_mib(LINK_BANDWIDTH_GIB_S, LINK_LATENCY_US)


#: Exercise 2.2 calls its ledgers "A" and "B" and the lesson calls them 账本 (ledgers): a learner writes 'B', but also
#: '账本 B', 'B 账本', 'B 本' or 'ledger B' (review 27, as lesson 8's runs since review 26)
_LEDGER_WORDS: tuple[str, ...] = ("ledger", "账本", "本")


def _ledger_name(answer: str) -> str:
    """The ledger letter a learner wrote (``'B'``, ``'b'``, ``'账本 B'``, ``'B 本'``, ``'ledger B'``), upper case; the
    rest as typed, so a refusal quotes it.

    >>> _ledger_name(" b "), _ledger_name("账本 B"), _ledger_name("B账本"), _ledger_name("Ledger b")
    ('B', 'B', 'B', 'B')
    >>> _ledger_name("A 和 B"), _ledger_name("账本")
    ('A 和 B', '账本')
    """
    text = answer.strip()
    for word in _LEDGER_WORDS:
        rest = None
        if text.lower().startswith(word):
            rest = text[len(word) :].strip()
        elif text.lower().endswith(word):
            rest = text[: -len(word)].strip()
        if rest is not None and len(rest) == 1 and rest.isascii() and rest.isalpha():
            return rest.upper()
    return text.upper() if len(text) == 1 else text


def _latency_bound() -> str:
    bound = [name for name, ledger in ledgers().items() if ledger.dominant_term == "latency"]
    if len(bound) != 1:
        raise ValueError(f"exactly one ledger should be latency-bound, got {bound}")
    return bound[0]


def _allreduce_ms() -> float:
    seconds = collective_time_s(
        "all_reduce",
        payload_bytes=mib_to_bytes(ALLREDUCE_PAYLOAD_MIB),
        ranks=ALLREDUCE_RANKS,
        bandwidth_bytes_per_s=LINK_BANDWIDTH_GIB_S * GIB_BYTES,
        latency_s=LINK_LATENCY_US / US_PER_S,
    )
    return seconds * MS_PER_S


def _preset_table_ms() -> tuple[float, ...]:
    """The totals of section 4's table, printed just above exercise 2.3: the same 256 MiB all-reduce on the intra-node
    and cross-node presets at n = 2, 8 and 64 (ms)."""
    return tuple(
        collective_time_s(
            "all_reduce",
            payload_bytes=mib_to_bytes(ALLREDUCE_PAYLOAD_MIB),
            ranks=ranks,
            bandwidth_bytes_per_s=LINK_PRESETS[name].bandwidth_bytes_per_s,
            latency_s=LINK_PRESETS[name].latency_s,
        )
        * MS_PER_S
        for name in ("intra_node", "cross_node")
        for ranks in (2, 8, 64)
    )


#: A row of the preset table above exercise 2.3 copied as its answer (1.092 ms: intra-node, n = 8): that table uses
#: the presets' links, the exercise its own (review 22: it got the general hint).
PRESET_TABLE_ROW: Slip = any_mistake(
    "preset_table_row",
    _preset_table_ms,
    Text(
        zh=f"这是上面那张表里预设链路（节点内或跨节点）的一行：那张表用预设的带宽和时延。本题的链路是单向 "
        f"{LINK_BANDWIDTH_GIB_S:g} GiB/s、每个环步 {LINK_LATENCY_US:g} µs，用这两个数重新算。",
        en=f"That is a row of the preset table above, which uses the presets' bandwidth and latency. This exercise's "
        f"link carries {LINK_BANDWIDTH_GIB_S:g} GiB/s one way at {LINK_LATENCY_US:g} µs per ring step: compute it "
        "again with those two figures.",
    ),
)


def _allreduce_parts_ms() -> tuple[float, float]:
    """The ring all-reduce of q2.allreduce_ms as (transfer, latency) in ms: 2(n-1)/n · S/B and 2(n-1) · α."""
    transfer_s = (
        bus_bandwidth_factor("all_reduce", ALLREDUCE_RANKS)
        * mib_to_bytes(ALLREDUCE_PAYLOAD_MIB)
        / (LINK_BANDWIDTH_GIB_S * GIB_BYTES)
    )
    latency_s = 2 * (ALLREDUCE_RANKS - 1) * LINK_LATENCY_US / US_PER_S
    return transfer_s * MS_PER_S, latency_s * MS_PER_S


def _tp_calls() -> int:
    entries = tp_traffic(
        seq_len=TP_SEQ_LEN,
        micro_batch=1,
        hidden=TP_HIDDEN,
        layers=TP_LAYERS,
        tp=TP_DEGREE,
        micro_batches=TP_MICRO_BATCHES,
    )
    return sum(entry.calls_per_step for entry in entries)


#: q2.crossover_mib's ×1000 slip: the latency in µs converted as if it were ms (10 µs as 1e-2 s), or the other way;
#: the only time in the question, so the hint names µs, not seconds and milliseconds.
MICROSECONDS_AS_MS: Slip = Slip(
    "microseconds_as_ms",
    Text(
        zh="你的答案与正确值正好差 1000 倍：检查时延的单位换算，1 µs = 10⁻⁶ s = 10⁻³ ms。",
        en="Your answer is off by exactly 1000: check how the latency's unit was converted: 1 µs = 10⁻⁶ s = 10⁻³ ms.",
    ),
    factor=1000.0,
)

#: 25 GiB/s × 10 µs = 2.5e-4 GiB turned into MiB with 1000 instead of 1024: 0.25 for 0.256 MiB. At two digits 0.25 is
#: also 0.256 cut off instead of rounded, and the truncation hint that answered it alone sent the learner to write
#: more digits: 0.250 got the same hint again (review 27). The hint names both readings, the unit step first.
BINARY_STEP_AS_1000: Slip = Slip(
    "binary_step_as_1000",
    Text(
        zh="你的答案与正确值正好差 1.024 倍 (1024 / 1000)：二进制单位之间差 1024 倍，不是 1000 倍"
        "（1 GiB = 1024 MiB）。如果换算没错，再看看是不是把多出的位数直接舍掉了，而不是四舍五入。",
        en="Your answer is off by exactly 1.024 (1024 / 1000): binary units are 1024 apart, not 1000 "
        "(1 GiB = 1024 MiB). If the conversion is right, check that you rounded rather than cut off the last digits.",
    ),
    factor=KIB_BYTES / KB_BYTES,
)

#: 0.512 MiB is the crossover of the course's example link (100 GiB/s, 5 µs) that section 2, its table and the widget
#: show; a learner who copies it gets a hint about that link, not the one-direction slip it also happens to be (2 x).
EXAMPLE_LINK_CROSSOVER: Slip = mistake(
    "example_link_crossover",
    lambda: crossover_payload_mib(LINK_BANDWIDTH_GIB_S, LINK_LATENCY_US),
    Text(
        zh=f"这是第 2 节课程示例链路（{LINK_BANDWIDTH_GIB_S:g} GiB/s、每次 {LINK_LATENCY_US:g} µs）的分界载荷，"
        f"也正好是本题答案的 2 倍：用本题链路的两个数（{CROSSOVER_LATENCY_US:g} µs、单向 "
        f"{CROSSOVER_BANDWIDTH_GIB_S:g} GiB/s）重新算。",
        en=f"That is the crossover of section 2's example link ({LINK_BANDWIDTH_GIB_S:g} GiB/s, {LINK_LATENCY_US:g} µs "
        f"per call), which is also exactly 2 x this answer: compute it again with this link's two figures "
        f"({CROSSOVER_LATENCY_US:g} µs, {CROSSOVER_BANDWIDTH_GIB_S:g} GiB/s one way).",
    ),
)

CROSSOVER_MIB = register(
    Exercise(
        id="q2.crossover_mib",
        lesson=2,
        prompt=Text(
            zh="一条链路每次调用固定时延 10 µs，单向带宽 25 GiB/s。载荷多大时，时延项正好等于传输项？用 MiB 作答。",
            en="A link costs 10 µs per call and carries 25 GiB/s one way. At what payload does the latency term "
            "equal the transfer term? Answer in MiB.",
        ),
        expected=_crossover_mib,
        hint=Text(
            zh="令 latency = payload / bandwidth，解出 payload = latency × bandwidth；注意把 µs 换成秒、GiB 换成 MiB。",
            en="Set latency = payload / bandwidth and solve: payload = latency × bandwidth; convert µs to seconds "
            "and GiB to MiB.",
        ),
        why=lambda mib: Text(
            zh=f"10e-6 s × 25 GiB/s = {mib:.3g} MiB。比它小的载荷由时延主导，比它大的由带宽主导。",
            en=f"10e-6 s × 25 GiB/s = {mib:.3g} MiB. Smaller payloads are latency-bound, larger ones bandwidth-bound.",
        ),
        slips=(
            GIB_VS_GB,
            BINARY_STEP_AS_1000,
            EXAMPLE_LINK_CROSSOVER,
            DIRECTION,
            MICROSECONDS_AS_MS,
            any_mistake(
                "kib_or_bytes",
                lambda: (_crossover_mib() * KIB_BYTES, _crossover_mib() * KIB_BYTES**2),
                Text(
                    zh="你的答案与正确值正好差 1024 倍（或 1024 × 1024 倍）：那是 KiB 数或字节数，题目要的是 MiB"
                    "（1 MiB = 1024 KiB = 1024 × 1024 字节）。",
                    en="Your answer is off by exactly 1024 (or 1024 × 1024): that is KiB or bytes, and the question "
                    "asks for MiB (1 MiB = 1024 KiB = 1024 × 1024 bytes).",
                ),
            ),
        ),
    ),
    replace=True,
)

LATENCY_BOUND = register(
    Exercise(
        id="q2.latency_bound",
        lesson=2,
        prompt=Text(
            zh="同一条链路（100 GiB/s，每次 5 µs）上有两本账：A 每步 1 次、每次 256 MiB；B 每步 512 次、每次 64 KiB。"
            '哪一本由时延主导？回答 "A" 或 "B"。',
            en="Two ledgers on the same link (100 GiB/s, 5 µs per call): A makes 1 call of 256 MiB per step; "
            'B makes 512 calls of 64 KiB. Which one is latency-bound? Answer "A" or "B".',
        ),
        expected=_latency_bound,
        kind="choice",
        choices=("A", "B"),
        normalize=_ledger_name,
        hint=Text(
            zh="先算这条链路的分界载荷 payload* = latency × bandwidth，再把每本账的单次载荷和它比。",
            en="Compute the link's crossover payload* = latency × bandwidth, then compare each ledger's payload "
            "per call with it.",
        ),
        why=lambda _: Text(
            zh=f"B 每次只有 64 KiB，远小于 {_link_crossover_mib():.3g} MiB 的分界载荷："
            "512 次 × 5 µs 的时延比传输时间长得多。",
            en=f"B sends only 64 KiB per call, far below the {_link_crossover_mib():.3g} MiB crossover: "
            "512 × 5 µs of latency outweighs its transfer time.",
        ),
    ),
    replace=True,
)

ALLREDUCE_MS = register(
    Exercise(
        id="q2.allreduce_ms",
        lesson=2,
        prompt=Text(
            zh="环形全归约 (ring all-reduce)：S = 256 MiB，n = 8 个 rank，单向带宽 100 GiB/s，每个环步时延 5 µs。"
            "一次全归约要多少毫秒？（保留 3 位有效数字。）",
            en="A ring all-reduce of S = 256 MiB over n = 8 ranks, 100 GiB/s one way, 5 µs per ring step. "
            "How many milliseconds does one all-reduce take? (3 significant digits.)",
        ),
        expected=_allreduce_ms,
        # 3 significant digits: at 2, "4.4" would pass for 4.445 ms though it is also the transfer term alone (4.375)
        # rounded, the answer without the latency term this exercise is about.
        min_digits=3,
        hint=Text(
            zh="传输项 2(n-1)/n · S/B，时延项 2(n-1) 步 × 5 µs；coursekit.communication.collective_time_s 可以核对。",
            en="Transfer 2(n-1)/n · S/B, latency 2(n-1) steps × 5 µs; coursekit.communication.collective_time_s "
            "checks it.",
        ),
        why=lambda ms: Text(
            zh=f"2·7/8 × 0.25 GiB / 100 GiB/s + 14 × 5 µs = {ms:.3f} ms：传输项占了绝大部分。",
            en=f"2·7/8 × 0.25 GiB / 100 GiB/s + 14 × 5 µs = {ms:.3f} ms: the transfer term is nearly all of it.",
        ),
        slips=(
            SECONDS_VS_MS,
            PRESET_TABLE_ROW,
            mistake(
                "half_transfer",
                lambda: _allreduce_parts_ms()[0] / 2 + _allreduce_parts_ms()[1],
                Text(
                    zh="时延项对了，传输项只有一半：环形全归约 = 归约散射 (reduce-scatter) + 全收集 (all-gather)，"
                    "每个 rank 发送 2(n-1)/n · S，不是 (n-1)/n · S。"
                    "（如果这个因子 2 你算了，就检查带宽：100 GiB/s 已经是单向的，不要再乘 2。）",
                    en="The latency term is right but the transfer term is half: a ring all-reduce is a "
                    "reduce-scatter plus an all-gather, so each rank sends 2(n-1)/n · S, not (n-1)/n · S. (If you "
                    "had that factor 2, check the bandwidth: 100 GiB/s is already one direction; do not multiply it "
                    "by 2.)",
                ),
            ),
            mistake(
                "direction",
                lambda: 2 * _allreduce_parts_ms()[0] + _allreduce_parts_ms()[1],
                Text(
                    zh="时延项对了，传输项翻了一倍：你是不是把 100 GiB/s 当成了两个方向之和、再除以 2？"
                    "题目给的就是单向带宽，本课程一律用单向带宽。",
                    en="The latency term is right but the transfer term is doubled: did you take 100 GiB/s as both "
                    "directions added and divide it by 2? The question gives the per-direction bandwidth, which this "
                    "course always uses.",
                ),
            ),
            mistake(
                "ring_steps",
                lambda: _allreduce_parts_ms()[0] + (ALLREDUCE_RANKS - 1) * LINK_LATENCY_US / US_PER_S * MS_PER_S,
                Text(
                    zh="传输项对了，环步数不对：环形全归约有 2(n-1) 步（归约散射与全收集各 n-1 步），"
                    "每步付一次时延，不是 n-1 步。",
                    en="The transfer term is right but the step count is not: a ring all-reduce takes 2(n-1) steps "
                    "(n-1 each for the reduce-scatter and the all-gather), each paying the latency, not n-1.",
                ),
            ),
            GIB_VS_GB,
            mistake(
                "no_latency",
                lambda: _allreduce_ms() - 2 * (ALLREDUCE_RANKS - 1) * LINK_LATENCY_US / US_PER_S * MS_PER_S,
                Text(
                    zh="传输项对了，但漏了时延项：环形全归约有 2(n-1) 步，每步都要付一次时延。",
                    en="The transfer term is right, but the latency term is missing: a ring all-reduce takes "
                    "2(n-1) steps and pays the latency at each.",
                ),
            ),
        ),
    ),
    replace=True,
)

TP_CALLS = register(
    Exercise(
        id="q2.tp_calls",
        lesson=2,
        prompt=Text(
            zh="Megatron 张量并行 TP = 8，模型 36 层，每步 8 个微批次，不开序列并行、不重计算。"
            "每个 rank 每步发起多少次全归约 (all-reduce)？",
            en="Megatron tensor parallelism with TP = 8, a 36-layer model, 8 micro-batches per step, no sequence "
            "parallelism and no recomputation. How many all-reduces does each rank issue per step?",
        ),
        expected=_tp_calls,
        kind="exact",
        hint=Text(
            zh="每层前向 2 次（注意力块、MLP 块各一次），反向也是 2 次；再乘层数和微批次数。",
            en="Each layer needs 2 in forward (one per attention block, one per MLP block) and 2 in backward; "
            "multiply by the layers and the micro-batches.",
        ),
        why=lambda calls: Text(
            zh=f"4 × 36 × 8 = {calls} 次：对比数据并行每步一次梯度全归约，这就是“高频”。",
            en=f"4 × 36 × 8 = {calls} calls: against data parallelism's one gradient all-reduce per step, "
            'this is what "frequent" means.',
        ),
        slips=(
            mistake(
                "forward_only",
                lambda: _tp_calls() // 2,
                Text(
                    zh="你只数了前向：反向传播在每层同样需要 2 次全归约（输入梯度的归约）。",
                    en="You counted the forward pass only: the backward pass needs 2 all-reduces per layer as well "
                    "(reducing the input gradients).",
                ),
            ),
            mistake(
                "one_micro_batch",
                lambda: _tp_calls() // TP_MICRO_BATCHES,
                Text(
                    zh="这是一个微批次的次数：每步有 8 个微批次，每个都要走一遍前向和反向。",
                    en="That is the count for one micro-batch: a step runs 8 micro-batches, each with its own "
                    "forward and backward pass.",
                ),
            ),
            ROUNDED_COUNT,
        ),
    ),
    replace=True,
)

learner_functions(globals())
