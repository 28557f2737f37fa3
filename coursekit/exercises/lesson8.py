"""Exercises of lesson 8 (formula vs measurement): bus bandwidth, the crossover, the bytes a ledger misses.

Every expected answer is computed with coursekit (the ring model, nccl-tests'
bus factors, the lab's exact memory accounting); none needs PyTorch.

>>> from coursekit.exercises import get_exercise
>>> get_exercise("lab.fsdp_padding_bytes").expected_value()
195.0

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

from ..communication import bus_bandwidth_factor
from ..i18n import Text
from ..lab.fit import AlphaBetaFit, crossover_bytes
from ..lab.memory import STRATEGIES, TinyTransformerConfig, expected_adjustments, ledger_for, parameter_layout
from ..units import GIB_BYTES, KIB_BYTES, MIB_BYTES, MS_PER_S, US_PER_S
from . import DIRECTION, GIB_VS_GB, Exercise, mistake, register

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


def _crossover_bytes() -> float:
    fit = AlphaBetaFit("all_reduce", CROSSOVER_RANKS, CROSSOVER_ALPHA_S, CROSSOVER_BANDWIDTH_BYTES_PER_S, 0, 0.0, False)
    value = crossover_bytes(fit)
    assert value is not None
    return value


def _extra_param_bytes(strategy: str, ranks: int) -> float:
    adjustments = expected_adjustments(strategy, TinyTransformerConfig(), ranks, 0)["params"]
    return sum(a.delta_bytes for a in adjustments)


def _replicated_params() -> int:
    return sum(spec.numel for spec in parameter_layout(TinyTransformerConfig()) if spec.tp_placement == "replicate")


def _most_param_bytes() -> str:
    num_params = sum(spec.numel for spec in parameter_layout(TinyTransformerConfig()))

    def held(strategy: str) -> float:
        ledger = ledger_for(strategy, num_params, MOST_BYTES_RANKS).params_bytes
        return ledger + _extra_param_bytes(strategy, MOST_BYTES_RANKS)

    return max(STRATEGIES, key=held)


BUSBW = register(
    Exercise(
        id="lab.busbw_gib_s",
        lesson=8,
        prompt=Text(
            zh="nccl-tests 在 8 个 rank 上做 S = 256 MiB 的 all_gather，耗时 4 ms。"
            "它报告的总线带宽 busbw 是多少 GiB/s？",
            en="nccl-tests runs an all_gather of S = 256 MiB over 8 ranks in 4 ms. "
            "What bus bandwidth (busbw) does it report, in GiB/s?",
        ),
        expected=_busbw_gib_s,
        hint=Text(
            zh="先算 algbw = S / t，再乘以 all_gather 的总线因子 (n-1)/n"
            "（coursekit.communication.bus_bandwidth_factor）。",
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
        ),
    ),
    replace=True,
)

CROSSOVER = register(
    Exercise(
        id="lab.crossover_bytes",
        lesson=8,
        prompt=Text(
            zh="2 个 rank 上拟合 all_reduce 得到 α = 50 µs（每步）、B = 1 GiB/s。"
            "载荷 S 超过多少字节后，带宽项大于时延项？",
            en="A fit of all_reduce over 2 ranks gives α = 50 µs per step and B = 1 GiB/s. "
            "Above which payload S, in bytes, is the bandwidth term larger than the latency term?",
        ),
        expected=_crossover_bytes,
        hint=Text(
            zh="令 steps·α = factor·S/B。n = 2 时 all_reduce 有 2(n-1) 步，factor = 2(n-1)/n；1 GiB = 2**30 字节。",
            en="Set steps·α = factor·S/B. With n = 2, all_reduce has 2(n-1) steps and factor = 2(n-1)/n; "
            "1 GiB = 2**30 bytes.",
        ),
        why=lambda s: Text(
            zh=f"S* = 2 × {CROSSOVER_ALPHA_S * US_PER_S:g} µs × 2**30 B/s / 1 = {s:,.0f} 字节"
            f"（约 {s / KIB_BYTES:.0f} KiB）；更小的载荷由时延主导。",
            en=f"S* = 2 × {CROSSOVER_ALPHA_S * US_PER_S:g} µs × 2**30 B/s / 1 = {s:,.0f} bytes "
            f"(about {s / KIB_BYTES:.0f} KiB); smaller payloads are latency-bound.",
        ),
        slips=(GIB_VS_GB, DIRECTION),
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
            zh="fsdp2-zero2：完整参数一份，加上 FSDP2 保留的 1/2 分片，共约 1.5 份，比 DDP 的 1 份还多；"
            "这份峰值要到反向结束才释放。",
            en="fsdp2-zero2: one full copy plus the 1/2 shard FSDP2 keeps, about 1.5 copies, more than DDP's one; "
            "the peak lasts until backward is done.",
        ),
    ),
    replace=True,
)
