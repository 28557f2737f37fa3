"""Exercises of lesson 1 (capacity, question Q1 of the course): model states under ZeRO, the smallest
stage that fits, a ledger's headroom.

Every expected answer is computed with :mod:`coursekit.capacity` and
:mod:`coursekit.shapes`; the inputs below are the exercises' givens.

>>> from coursekit.exercises import get_exercise
>>> round(get_exercise("q1.zero2_gib").expected_value(), 2)
26.19
>>> get_exercise("q1.min_zero_stage").expected_value()
2

Taught in: lesson 1 (Q1 capacity).
"""

from __future__ import annotations

from .._validate import learner_functions
from ..capacity import ResourceLedger, activation_memory, build_resource_ledger, training_state_memory
from ..i18n import Text
from ..shapes import model_shape
from ..units import bytes_to_gib
from . import GIB_VS_GB, MIB_VS_GIB, Exercise, Slip, degree_left_out, mistake, register

#: q1.zero2_gib: the ZeRO paper's 7.5B parameters, mixed-precision Adam, 8-way data parallelism, ZeRO-2.
ZERO2_PARAMS: float = 7.5e9
ZERO2_DP: int = 8
ZERO2_STAGE: int = 2
#: N_d of the ZeRO paper's Figure 1, which the lesson prints just before exercise 1.1 (the slip of taking it over)
ZERO2_PAPER_DP: int = 64

#: q1.min_zero_stage and q1.headroom_gib: the 7.5B shape of Megatron's Table 1, DP = 8, s = 2048, b = 1,
#: selective recomputation, the course's 2.0 GiB runtime reserve.
SHAPE_NAME: str = "megatron-7.5b"
DP: int = 8
SEQ_LEN: int = 2048
MICRO_BATCH: int = 1
RECOMPUTE: str = "selective"
RESERVE_GIB: float = 2.0
#: q1.min_zero_stage runs on a 40 GiB device; q1.headroom_gib on the course's 24 GiB example device with ZeRO-3.
MIN_STAGE_DEVICE_GIB: float = 40.0
HEADROOM_DEVICE_GIB: float = 24.0
HEADROOM_STAGE: int = 3


def _zero2_gib() -> float:
    return training_state_memory(ZERO2_PARAMS, dp=ZERO2_DP, zero_stage=ZERO2_STAGE).total_gib


def ledger_for_stage(stage: int, device_memory_gib: float) -> ResourceLedger:
    """The rank ledger of the lesson's 7.5B configuration at ZeRO ``stage`` on a ``device_memory_gib`` device.

    >>> ledger_for_stage(3, 24.0).fits_one_device
    False
    """
    shape = model_shape(SHAPE_NAME)
    state = training_state_memory(shape.num_params, dp=DP, zero_stage=stage)
    activations = activation_memory(
        seq_len=SEQ_LEN,
        micro_batch=MICRO_BATCH,
        hidden=shape.hidden,
        heads=shape.heads,
        layers=shape.layers,
        recompute=RECOMPUTE,
    )
    return build_resource_ledger(state.total_gib, bytes_to_gib(activations), RESERVE_GIB, device_memory_gib)


def _min_zero_stage() -> int:
    for stage in range(4):
        if ledger_for_stage(stage, MIN_STAGE_DEVICE_GIB).fits_one_device:
            return stage
    raise ValueError("no ZeRO stage fits: the exercise's givens are inconsistent")


def _min_stage_states_only() -> int:
    """The slip of q1.min_zero_stage: the smallest stage whose model states alone fit (activations and reserve
    left out), or 3."""
    shape = model_shape(SHAPE_NAME)
    for stage in range(3):
        state = training_state_memory(shape.num_params, dp=DP, zero_stage=stage)
        if build_resource_ledger(state.total_gib, 0.0, 0.0, MIN_STAGE_DEVICE_GIB).fits_one_device:
            return stage
    return 3


def _headroom_ledger() -> ResourceLedger:
    return ledger_for_stage(HEADROOM_STAGE, HEADROOM_DEVICE_GIB)


def _headroom_gib() -> float:
    return float(_headroom_ledger().headroom_gib)


ZERO2_GIB = register(
    Exercise(
        id="q1.zero2_gib",
        lesson=1,
        prompt=Text(
            zh="ZeRO 论文的 7.5B 参数模型，混合精度 Adam（2 + 2 + 12 字节/参数），8 路数据并行，ZeRO-2。"
            "每个 rank 的模型状态是多少 GiB？",
            en="The ZeRO paper's 7.5B-parameter model, mixed-precision Adam (2 + 2 + 12 bytes per parameter), "
            "8-way data parallelism, ZeRO-2. How many GiB of model states does each rank hold?",
        ),
        expected=_zero2_gib,
        hint=Text(
            zh="ZeRO-2 切分梯度和优化器状态，参数不切分：2Ψ + (2 + 12)Ψ/N_d 字节；再除以 2^30。"
            "可以用 training_state_memory(..., dp=..., zero_stage=...).total_gib 核对。",
            en="ZeRO-2 shards gradients and optimizer state but not the parameters: 2Ψ + (2 + 12)Ψ/N_d bytes, "
            "then divide by 2^30. training_state_memory(..., dp=..., zero_stage=...).total_gib checks it.",
        ),
        why=lambda gib: Text(
            zh=f"2 × 7.5e9 + 14 × 7.5e9 / 8 字节 = {gib:.2f} GiB：参数仍是完整的一份，占了大头。",
            en=f"2 × 7.5e9 + 14 × 7.5e9 / 8 bytes = {gib:.2f} GiB: the full copy of the parameters is now the "
            "largest part.",
        ),
        slips=(
            GIB_VS_GB,
            MIB_VS_GIB,
            mistake(
                "zero3",
                lambda: training_state_memory(ZERO2_PARAMS, dp=ZERO2_DP, zero_stage=3).total_gib,
                Text(
                    zh="这是连参数也切分后的结果，即 ZeRO-3。ZeRO-2 每个 rank 仍保存一整份 fp16 参数。",
                    en="That is the result with the parameters sharded too, i.e. ZeRO-3. Under ZeRO-2 every rank "
                    "still holds a whole copy of the fp16 parameters.",
                ),
            ),
            mistake(
                "no_sharding",
                lambda: training_state_memory(ZERO2_PARAMS, dp=ZERO2_DP, zero_stage=0).total_gib,
                Text(
                    zh="这是完全不切分（纯数据并行）的模型状态：ZeRO-2 把梯度和优化器状态分给 N_d 个 rank。",
                    en="That is the model state with nothing sharded (plain data parallelism): ZeRO-2 divides the "
                    "gradients and the optimizer state among the N_d ranks.",
                ),
            ),
            degree_left_out("DP", ZERO2_DP),
            mistake(
                "paper_dp",
                lambda: training_state_memory(ZERO2_PARAMS, dp=ZERO2_PAPER_DP, zero_stage=ZERO2_STAGE).total_gib,
                Text(
                    zh=f"这是 ZeRO 论文图 1 的 ZeRO-2（N_d = {ZERO2_PAPER_DP}，本课上面打印过）：这道题是 "
                    f"{ZERO2_DP} 路数据并行，用 N_d = {ZERO2_DP} 再算一遍。",
                    en=f"That is the ZeRO-2 of the ZeRO paper's Figure 1 (N_d = {ZERO2_PAPER_DP}, printed above): "
                    f"this question has {ZERO2_DP}-way data parallelism; work it out again with N_d = {ZERO2_DP}.",
                ),
            ),
        ),
    ),
    replace=True,
)

MIN_ZERO_STAGE = register(
    Exercise(
        id="q1.min_zero_stage",
        lesson=1,
        prompt=Text(
            zh="Megatron 表 1 的 7.5B 形状（36 层，h=4096，32 个头），混合精度 Adam，DP = 8，s = 2048，b = 1，"
            "选择性重计算，运行时预留 2 GiB，设备 40 GiB。能放下的最小 ZeRO 阶段是几（0-3 的整数）？",
            en="The 7.5B shape of Megatron's Table 1 (36 layers, h=4096, 32 heads), mixed-precision Adam, DP = 8, "
            "s = 2048, b = 1, selective recomputation, 2 GiB runtime reserve, 40 GiB device. What is the smallest "
            "ZeRO stage that fits (an integer 0-3)?",
        ),
        expected=_min_zero_stage,
        kind="exact",
        hint=Text(
            zh="对每个阶段建一本账：模型状态 + 激活 + 预留，与 40 GiB 比较。激活不受 ZeRO 影响，只算一次。",
            en="Build one ledger per stage: model states + activations + reserve, against 40 GiB. "
            "Activations do not depend on ZeRO; compute them once.",
        ),
        why=lambda stage: Text(
            zh=f"ZeRO-{stage} 是第一个余量非负的阶段；更低的阶段被完整的优化器状态或梯度撑爆。",
            en=f"ZeRO-{stage} is the first stage with non-negative headroom; lower stages burst with the "
            "replicated optimizer state or gradients.",
        ),
        slips=(
            Slip(
                "no_such_stage",
                Text(
                    zh="ZeRO 只有 0 到 3 这四个阶段（0 即不切分的数据并行）：在这四个里找能放下的最小的一个。",
                    en="ZeRO has four stages, 0 to 3 (0 is plain data parallelism): look for the smallest of these "
                    "four that fits.",
                ),
                matches=lambda answer, _expected: answer not in range(4),
            ),
            mistake(
                "states_only",
                _min_stage_states_only,
                Text(
                    zh="在这个阶段只有模型状态放得下 40 GiB；账本还要加上激活和 2 GiB 的运行时预留。",
                    en="At that stage only the model states fit in 40 GiB; the ledger also holds the activations and "
                    "the 2 GiB runtime reserve.",
                ),
            ),
        ),
    ),
    replace=True,
)

HEADROOM_GIB = register(
    Exercise(
        id="q1.headroom_gib",
        lesson=1,
        prompt=Text(
            zh="同一配置改用 ZeRO-3，放到课程第一个例子里的 24 GiB 设备上。build_resource_ledger 给出的余量 "
            "headroom_gib 是多少（负数表示缺口）？",
            en="The same configuration with ZeRO-3, on the course's first example device of 24 GiB. What "
            "headroom_gib does "
            "build_resource_ledger report (negative means a shortfall)?",
        ),
        expected=_headroom_gib,
        abs_tol=0.01,
        hint=Text(
            zh="模型状态 16Ψ/8（Ψ = shape.num_params，约 7.47B），激活按 Korthikanti 的选择性重计算 "
            "34·s·b·h 字节/层（36 层），再加 2 GiB 预留；余量 = 24 - 合计。",
            en="Model states 16Ψ/8 (Ψ = shape.num_params, about 7.47B), activations with Korthikanti's selective "
            "recomputation 34·s·b·h bytes per layer (36 layers), plus the 2 GiB reserve; headroom = 24 - total.",
        ),
        why=lambda gib: Text(
            zh=f"余量 {gib:.2f} GiB：ZeRO-3 把模型状态切到 {_headroom_ledger().state_gib:.2f} GiB，但激活 "
            f"{_headroom_ledger().activation_gib:.2f} GiB 不受 ZeRO 影响，把合计推过了 {HEADROOM_DEVICE_GIB:g} GiB；"
            "下一步该看重计算或微批次，而不是更多 DP。",
            en=f"Headroom {gib:.2f} GiB: ZeRO-3 cuts the model states to {_headroom_ledger().state_gib:.2f} GiB, but "
            f"the activations, {_headroom_ledger().activation_gib:.2f} GiB, are untouched by ZeRO and push the total "
            f"past {HEADROOM_DEVICE_GIB:g} GiB; look at recomputation or the micro-batch next, not at more DP.",
        ),
        slips=(
            mistake(
                "no_reserve",
                lambda: _headroom_gib() + RESERVE_GIB,
                Text(
                    zh="账本里漏了 2 GiB 的运行时预留（CUDA 上下文、通信缓冲区、碎片）。",
                    en="The ledger is missing the 2 GiB runtime reserve (CUDA context, communication buffers, "
                    "fragmentation).",
                ),
            ),
            mistake(
                "rounded_params",
                lambda: (
                    build_resource_ledger(
                        training_state_memory(ZERO2_PARAMS, dp=DP, zero_stage=HEADROOM_STAGE).total_gib,
                        _headroom_ledger().activation_gib,
                        RESERVE_GIB,
                        HEADROOM_DEVICE_GIB,
                    ).headroom_gib
                ),
                Text(
                    zh="你按 7.5e9 个参数算了模型状态：这个形状的参数量是 shape.num_params，约 7.47B，用它再算一遍。",
                    en="You counted the model states for 7.5e9 parameters: this shape has shape.num_params, about "
                    "7.47B; work it out again with that.",
                ),
            ),
            mistake(
                "previous_device",
                # exercise 1.2's 40 GiB device kept (review 22: 14.53 got the general hint)
                lambda: ledger_for_stage(HEADROOM_STAGE, MIN_STAGE_DEVICE_GIB).headroom_gib,
                Text(
                    zh=f"这是 {MIN_STAGE_DEVICE_GIB:g} GiB 设备上的余量（练习 1.2 的设备）：本题放到第 2 节第一本账的 "
                    f"{HEADROOM_DEVICE_GIB:g} GiB 设备上，用它再算一遍。",
                    en=f"That is the headroom on a {MIN_STAGE_DEVICE_GIB:g} GiB device (exercise 1.2's): this one "
                    f"puts it on the {HEADROOM_DEVICE_GIB:g} GiB device of section 2's first ledger; work it out "
                    "again with that.",
                ),
            ),
            mistake(
                "sign",
                lambda: -_headroom_gib(),
                Text(
                    zh="符号反了：余量 = 设备显存 - 合计，放不下时是负数。",
                    en="The sign is flipped: headroom = device memory - total, negative when it does not fit.",
                ),
            ),
            MIB_VS_GIB,
        ),
    ),
    replace=True,
)

learner_functions(globals())
