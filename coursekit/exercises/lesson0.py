"""Exercises of lesson 0 (course index): units, the first habit of the course.

>>> from coursekit.exercises import get_exercise
>>> round(get_exercise("intro.device_gb").expected_value(), 2)
25.77

Taught in: lesson 0 (course index).
"""

from __future__ import annotations

import math

from .._validate import learner_functions
from ..i18n import Text
from ..units import GB_BYTES, GIB_BYTES, bytes_to_gb, gib_to_bytes
from . import GIB_VS_GB, MB_VS_GB, Exercise, Slip, mistake, register

#: The device of the course's first capacity example (``build_resource_ledger(13.0, 4.0, 2.0, 24.0)``): 24 GiB.
DEVICE_MEMORY_GIB: float = 24.0
#: Former name, kept importable.
SEED_DEVICE_MEMORY_GIB: float = DEVICE_MEMORY_GIB


def _device_gb() -> float:
    return bytes_to_gb(gib_to_bytes(DEVICE_MEMORY_GIB))


DEVICE_GB = register(
    Exercise(
        id="intro.device_gb",
        lesson=0,
        prompt=Text(
            zh="一块 24 GiB 显存的设备，按 GB (10^9 字节) 计是多少 GB？",
            en="A device with 24 GiB of memory: how many GB (10^9 bytes) is that?",
        ),
        expected=_device_gb,
        hint=Text(
            zh="1 GiB = 2^30 字节，1 GB = 10^9 字节；先换成字节，再换成 GB。coursekit.units 里有换算函数。",
            en="1 GiB = 2^30 bytes and 1 GB = 10^9 bytes: convert to bytes first, then to GB. "
            "coursekit.units has the conversions.",
        ),
        why=lambda gb: Text(
            zh=f"24 × 2^30 字节 = {gb:.2f} × 10^9 字节；GiB 比 GB 大 {GIB_BYTES / GB_BYTES - 1:.1%}，账本里不能混用。",
            en=f"24 × 2^30 bytes = {gb:.2f} × 10^9 bytes; a GiB is {GIB_BYTES / GB_BYTES - 1:.1%} larger than a GB, "
            "so a ledger must not mix them.",
        ),
        slips=(
            GIB_VS_GB,
            MB_VS_GB,
            mistake(
                "bytes",
                lambda: gib_to_bytes(DEVICE_MEMORY_GIB),
                Text(
                    zh="这是字节数：题目问的是多少 GB（1 GB = 10^9 字节），把字节数除以 10^9。",
                    en="That is the number of bytes: the question asks how many GB (1 GB = 10^9 bytes), so divide "
                    "the bytes by 10^9.",
                ),
            ),
            Slip(
                "one_factor_1024",
                # at 3 significant digits or more only: 25 (two digits) is 25.77 cut off as much as 24.576 rounded
                matches=lambda answer, _expected: (
                    isinstance(answer, (int, float))
                    and not isinstance(answer, bool)
                    and math.isclose(answer, DEVICE_MEMORY_GIB * 1.024, rel_tol=1e-3)
                ),
                hint=Text(
                    zh="你只乘了一次 1.024：那是 KiB 与 kB 之比。"
                    "1 GiB = 1024 × 1024 × 1024 字节，1 GB = 1000 × 1000 × 1000 字节，1.024 要乘三次。",
                    en="You multiplied by 1.024 once: that is the KiB-to-kB ratio. "
                    "1 GiB = 1024 × 1024 × 1024 bytes and 1 GB = 1000 × 1000 × 1000 bytes, "
                    "so 1.024 applies three times.",
                ),
            ),
            mistake(
                "divided",
                lambda: DEVICE_MEMORY_GIB * GB_BYTES / GIB_BYTES,
                Text(
                    zh="你除了该乘的系数：GiB 比 GB 大，同样多的显存按 GB 计数字更大"
                    "（24 × 2^30 / 10^9，不是 24 × 10^9 / 2^30）。",
                    en="You divided by the factor you should multiply by: a GiB is larger than a GB, so the same "
                    "memory is a larger number of GB (24 × 2^30 / 10^9, not 24 × 10^9 / 2^30).",
                ),
            ),
        ),
    ),
    replace=True,
)

learner_functions(globals())
