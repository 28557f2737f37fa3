"""The printable cheat sheet (docs/cheatsheet_zh.md, docs/cheatsheet_en.md): every number and rule is coursekit's."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from coursekit.capacity import PRECISION_RECIPES, training_state_memory
from coursekit.communication import bus_bandwidth_factor, collective_time_s
from coursekit.gates import GATES
from coursekit.hardware import (
    A100_80GB_HBM_BYTES_PER_S,
    A100_BF16_DENSE_FLOPS,
    H100_BF16_DENSE_FLOPS,
    H100_HBM_BYTES_PER_S,
    IB_NDR_BYTES_PER_S,
    NCCL_RING_NET_LATENCY_S,
    NCCL_RING_NVLINK_LATENCY_S,
    NVLINK4_H100_BYTES_PER_S,
)
from coursekit.matrix import FSDP_PEAK_LAYERS
from coursekit.pipeline import bubble_fraction
from coursekit.presets import CLUSTERS, MODELS
from coursekit.roofline import hardware_flops_per_token, model_flops_per_token, ridge_point_flop_per_byte
from coursekit.serving import kv_cache_bytes, littles_law_concurrency, serving_estimate
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


def _ridge(peak: float, bandwidth: float) -> float:
    return ridge_point_flop_per_byte(peak, bandwidth)


def _hfu_over_mfu() -> str:
    """HFU / MFU under full recomputation for Llama-3 70B at 8192 tokens: the forward runs twice, 4/3."""
    from fractions import Fraction

    model = MODELS["llama3-70b"]
    shape = (model.num_params, model.layers, model.hidden, 8192)
    ratio = hardware_flops_per_token(*shape, recompute="full") / model_flops_per_token(*shape)
    return str(Fraction(ratio).limit_denominator(10))


def _tpot_floor_ms() -> float:
    estimate = serving_estimate(MODELS["llama3-70b"], CLUSTERS["h100-8"], tp=8, batch=1, prompt_tokens=512,
                                output_tokens=128)  # fmt: skip
    return estimate.weights_floor_s * 1e3


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
    # compute efficiency (lesson 7)
    ("A100 **153**", lambda: f"A100 **{_ridge(A100_BF16_DENSE_FLOPS, A100_80GB_HBM_BYTES_PER_S):.0f}**"),
    ("H100 **295**", lambda: f"H100 **{_ridge(H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S):.0f}**"),
    ("**296**", lambda: f"**{math.ceil(_ridge(H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S))}**"),
    ("**4/3**", lambda: f"**{_hfu_over_mfu()}**"),
    # serving (lesson 10)
    # (examples other than exercises 10.1 and 10.4's, whose answers a handout must not print)
    ("**128 KiB**", lambda: f"**{kv_cache_bytes(MODELS['llama3-8b'], tokens=1) / 1024:.0f} KiB**"),
    ("**5.3 ms**", lambda: f"**{_tpot_floor_ms():.1f} ms**"),
    ("**40**", lambda: f"**{littles_law_concurrency(10.0, 4.0):.0f}**"),
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
        # E(P) as lesson 6 writes it in each language (吞吐 = throughput)
        scaling = "E(P) = throughput(P) / (P · throughput(1))" if lang == "en" else "E(P) = 吞吐(P) / (P · 吞吐(1))"
        for formula in ("2(n-1)/n · S", "(n-1)/n · S", "(p-1)/(m+p-1)", "(p-1)/(v·m+p-1)", "S/P + A + R",
                        "S/N + (3W + A)/t + R", scaling):  # fmt: skip
            assert formula in text, f"{lang}: {formula!r} missing"
        assert ("16 bytes per parameter" if lang == "en" else "每参数 16 字节") in text


@pytest.mark.parametrize("lang", list(SHEETS))
def test_gates_in_coursekits_order(lang: str) -> None:
    text = SHEETS[lang].read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z]+)` \|", text, re.M)
    assert listed == [gate.code for gate in GATES]


@pytest.mark.parametrize("lang", list(SHEETS))
def test_covers_compute_efficiency_and_serving(lang: str) -> None:
    text = SHEETS[lang].read_text(encoding="utf-8")
    for term in ("MFU", "HFU", "TPOT", "2·L·n_kv·d_head·e", "N = λ·W"):  # Little's law; L is the layer count
        assert term in text, f"{lang}: {term!r} missing"
    assert ("Ridge point" if lang == "en" else "脊点") in text
    assert ("Little's law" if lang == "en" else "利特尔定律") in text


@pytest.mark.parametrize("lang", list(SHEETS))
def test_ep_reuses_the_dp_cp_ranks(lang: str) -> None:
    """Lesson 4: EP does not multiply the rank count; the expert layers re-fold the same ranks."""
    text = SHEETS[lang].read_text(encoding="utf-8")
    assert "ETP × EP × EDP × PP" in text
    assert ("(EP divides DP · CP)" if lang == "en" else "（EP 整除 DP · CP）") in text
    assert "× EP" not in text.replace("ETP × EP × EDP", "")


# The one-page rule is checked by printing: tests/browser/test_cheatsheet_print.py.
