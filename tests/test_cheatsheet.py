"""The printable cheat sheet (docs/cheatsheet_zh.md, docs/cheatsheet_en.md): every number and rule is coursekit's."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from coursekit.capacity import PRECISION_RECIPES, training_state_memory
from coursekit.communication import bus_bandwidth_factor, collective_time_s
from coursekit.gates import GATES
from coursekit.hardware import (
    IB_NDR_BYTES_PER_S,
    NCCL_RING_NET_LATENCY_S,
    NCCL_RING_NVLINK_LATENCY_S,
    NVLINK4_H100_BYTES_PER_S,
)
from coursekit.matrix import FSDP_PEAK_LAYERS
from coursekit.pipeline import bubble_fraction
from coursekit.units import GB_BYTES, GIB_BYTES

DOCS = Path(__file__).resolve().parents[1] / "docs"
SHEETS = {"zh": DOCS / "cheatsheet_zh.md", "en": DOCS / "cheatsheet_en.md"}


def _zero_gb(stage: int) -> float:
    # ZeRO paper, Figure 1: Psi = 7.5B, N_d = 64; bytes per rank in GB (10**9).
    return training_state_memory(7.5e9, dp=64, zero_stage=stage).total_gib * GIB_BYTES / GB_BYTES


def _allreduce_ms(bandwidth: float, latency: float) -> float:
    return (
        collective_time_s("all_reduce", payload_bytes=1e9, ranks=8, bandwidth_bytes_per_s=bandwidth, latency_s=latency)
        * 1e3
    )


# (text on both sheets, the value coursekit computes, formatted the same way)
NUMBERS: list[tuple[str, Callable[[], str]]] = [
    ("1 GiB = 1.0737 GB", lambda: f"1 GiB = {GIB_BYTES / GB_BYTES:.4f} GB"),
    ("**120 GB**", lambda: f"**{_zero_gb(0):.0f} GB**"),
    ("**31.4 / 16.6 / 1.88 GB**", lambda: f"**{_zero_gb(1):.3g} / {_zero_gb(2):.3g} / {_zero_gb(3):.3g} GB**"),
    ("**3 W**", lambda: f"**{FSDP_PEAK_LAYERS} W**"),
    ("**450 GB/s**", lambda: f"**{NVLINK4_H100_BYTES_PER_S / GB_BYTES:.0f} GB/s**"),
    ("**50 GB/s**", lambda: f"**{IB_NDR_BYTES_PER_S / GB_BYTES:.0f} GB/s**"),
    ("**3.94 ms**", lambda: f"**{_allreduce_ms(NVLINK4_H100_BYTES_PER_S, NCCL_RING_NVLINK_LATENCY_S):.2f} ms**"),
    ("**35.2 ms**", lambda: f"**{_allreduce_ms(IB_NDR_BYTES_PER_S, NCCL_RING_NET_LATENCY_S):.1f} ms**"),
    ("m = 4 → **42.9%**", lambda: f"m = 4 → **{bubble_fraction(4, 4):.1%}**"),
    ("m = 16 → **15.8%**", lambda: f"m = 16 → **{bubble_fraction(4, 16):.1%}**"),
    ("v = 2 → **15.8%**", lambda: f"v = 2 → **{bubble_fraction(4, 8, 2):.1%}**"),
]


@pytest.mark.parametrize("lang", list(SHEETS))
@pytest.mark.parametrize(("text", "computed"), NUMBERS, ids=[text for text, _ in NUMBERS])
def test_number_is_coursekits(lang: str, text: str, computed: Callable[[], str]) -> None:
    assert computed() == text
    assert text in SHEETS[lang].read_text(encoding="utf-8")


def test_formulas_are_coursekits() -> None:
    assert PRECISION_RECIPES["zero-fp16-adam"].bytes_per_param == 16  # "16 bytes per parameter"
    for n in (2, 4, 8, 64):
        assert bus_bandwidth_factor("all_reduce", n) == pytest.approx(2 * (n - 1) / n)
        assert bus_bandwidth_factor("all_gather", n) == pytest.approx((n - 1) / n)
        assert bus_bandwidth_factor("reduce_scatter", n) == pytest.approx((n - 1) / n)
    assert bubble_fraction(4, 16) == pytest.approx(3 / 19)
    for lang, path in SHEETS.items():
        text = path.read_text(encoding="utf-8")
        for formula in ("2(n-1)/n · S", "(n-1)/n · S", "(p-1)/(m+p-1)", "(p-1)/(v·m+p-1)", "S/P + A + R",
                        "S/N + (3W + A)/t + R", "E(P) = throughput(P) / (P · throughput(1))"):  # fmt: skip
            assert formula in text, f"{lang}: {formula!r} missing"
        assert ("16 bytes per parameter" if lang == "en" else "每参数 16 字节") in text


@pytest.mark.parametrize("lang", list(SHEETS))
def test_gates_in_coursekits_order(lang: str) -> None:
    text = SHEETS[lang].read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z]+)` \|", text, re.M)
    assert listed == [gate.code for gate in GATES]


@pytest.mark.parametrize("lang", list(SHEETS))
def test_fits_one_printed_page(lang: str) -> None:
    lines = SHEETS[lang].read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 80  # one A4 page at the usual print size of rendered Markdown
