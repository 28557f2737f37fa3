"""coursekit.roofline: FLOP conventions from the papers, worked by hand; the roofline's shape."""

from __future__ import annotations

import math

import numpy as np
import pytest

from coursekit import roofline as rl
from coursekit.hardware import (
    A100_80GB_HBM_BYTES_PER_S,
    A100_BF16_DENSE_FLOPS,
    H100_BF16_DENSE_FLOPS,
    H100_HBM_BYTES_PER_S,
)


def test_palm_model_flops_formula() -> None:
    # PaLM appendix B: 6N + 12·L·H·Q·T. PaLM 540B: L=118, H=48 heads, Q=256 head dim, T=2048.
    n, layers, heads, head_dim, seq = 540.35e9, 118, 48, 256, 2048
    by_hand = 6 * n + 12 * layers * heads * head_dim * seq
    assert rl.model_flops_per_token(n, layers, heads * head_dim, seq) == pytest.approx(by_hand, rel=1e-12)
    # PaLM Table 3: 238.3K tokens/s on 6,144 TPU v4 chips (275 TFLOP/s bf16 peak each) is 46.2 % MFU.
    assert rl.mfu(by_hand, 238.3e3, 6144, 275e12) == pytest.approx(0.462, abs=0.0005)


def test_megatron_formula_is_the_same_convention() -> None:
    # Narayanan et al. 2021, eq. 3 with full recompute: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) per step.
    # Per token (B·s tokens), with N ≈ 12·l·h² + V·h (the output layer), it is 4/3 of 72·l·h²(1 + s/(6h)) + ...
    layers, hidden, seq, vocab = 96, 12288, 2048, 51200
    megatron_per_token = 96 * layers * hidden**2 * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))
    layer_params = 12 * layers * hidden**2  # the layers' matmul parameters (no biases/norms)
    n = layer_params + vocab * hidden  # plus the output layer, which Megatron-LM does not recompute
    ours = rl.hardware_flops_per_token(n, layers, hidden, seq, "full", recomputed_params=layer_params)
    assert ours == pytest.approx(megatron_per_token, rel=1e-12)


def test_recompute_adds_what_it_repeats() -> None:
    n, layers, hidden, seq = 7e9, 32, 4096, 4096
    model = 6 * n + 12 * layers * hidden * seq
    assert rl.hardware_flops_per_token(n, layers, hidden, seq, "none") == pytest.approx(model)
    assert rl.hardware_flops_per_token(n, layers, hidden, seq, "selective") == pytest.approx(
        model + 4 * layers * hidden * seq
    )
    assert rl.hardware_flops_per_token(n, layers, hidden, seq, "full") == pytest.approx(
        model + 2 * n + 4 * layers * hidden * seq
    )


def test_attention_grows_with_the_square_of_the_sequence() -> None:
    per_token = [rl.attention_flops_per_token(32, 4096, s) for s in (1024, 2048, 4096)]
    per_sequence = [f * s for f, s in zip(per_token, (1024, 2048, 4096), strict=True)]
    assert per_sequence[1] == 4 * per_sequence[0] and per_sequence[2] == 4 * per_sequence[1]


def test_mfu_by_hand() -> None:
    # 1,024 A100s, 175B dense model at 2048 tokens, 140 TFLOP/s of model FLOPs each -> 140/312.
    f = rl.model_flops_per_token(175e9, 96, 12288, 2048)
    tokens_per_s = 1024 * 140e12 / f
    assert rl.mfu(f, tokens_per_s, 1024, A100_BF16_DENSE_FLOPS) == pytest.approx(140 / 312)


def test_matmul_counts_by_hand() -> None:
    assert rl.matmul_flops(3, 5, 7) == 210
    assert rl.matmul_bytes(3, 5, 7) == 2 * (15 + 35 + 21)
    assert rl.matmul_bytes(3, 5, 7, 4) == 4 * (15 + 35 + 21)
    assert rl.matmul_intensity_flop_per_byte(3, 5, 7) == pytest.approx(210 / 142)


def test_ridge_points_from_datasheets() -> None:
    assert rl.ridge_point_flop_per_byte(H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S) == pytest.approx(989 / 3.35)
    assert rl.ridge_point_flop_per_byte(A100_BF16_DENSE_FLOPS, A100_80GB_HBM_BYTES_PER_S) == pytest.approx(312 / 2.039)


def test_hard_and_smooth_roofline() -> None:
    peak, bw = 100.0, 10.0  # ridge at 10 FLOP/byte
    assert rl.roofline_flops(2, peak, bw) == 20
    assert rl.roofline_flops(50, peak, bw) == 100
    # smooth curve: below the hard roofline everywhere, 1/sqrt(2) of it at the ridge, -> peak far above it
    for intensity in (0.5, 2, 10, 30, 1000):
        assert rl.achieved_flops(intensity, peak, bw) < rl.roofline_flops(intensity, peak, bw)
    assert rl.achieved_flops(10, peak, bw) == pytest.approx(100 / math.sqrt(2))
    assert rl.achieved_flops(1e6, peak, bw, ceiling=0.6) == pytest.approx(60, rel=1e-6)
    # p = 2 at 3x the ridge: 1/sqrt(1 + 1/9)
    assert rl.achieved_flops(30, peak, bw) == pytest.approx(100 / math.sqrt(1 + 1 / 9))


def test_roofline_time_is_the_slower_limb() -> None:
    assert rl.roofline_time_s(100, 5, 10, 1) == 10
    assert rl.roofline_time_s(10, 50, 10, 1) == 50


def test_layer_intensity_by_hand_and_monotone() -> None:
    # GELU layer, MHA, tp = 2, 4 tokens, h = 8, f = 32: four matmuls summed.
    t, h, f, tp = 4, 8, 32, 2
    shapes = [(h, 3 * h // tp), (h // tp, h), (h, f // tp), (f // tp, h)]
    flops = sum(2 * t * k * n for k, n in shapes)
    moved = sum(2 * (t * k + k * n + t * n) for k, n in shapes)
    assert rl.transformer_layer_matmul_intensity(t, h, f, tp=tp, mlp_matrices=2) == pytest.approx(flops / moved)
    # efficiency falls as per-GPU matmuls shrink: fewer tokens, or a higher TP
    by_tokens = [rl.transformer_layer_matmul_intensity(t, 8192, 28672, kv_hidden=1024, tp=8) for t in (64, 512, 4096)]
    assert by_tokens == sorted(by_tokens)
    by_tp = [rl.transformer_layer_matmul_intensity(1024, 8192, 28672, kv_hidden=1024, tp=tp) for tp in (1, 2, 4, 8, 16)]
    assert by_tp == sorted(by_tp, reverse=True)


def test_kernels_accept_numpy_arrays_and_agree_with_scalars() -> None:
    tokens = np.array([64, 512, 4096])
    tp = np.array([8, 2, 1])
    vector = rl._transformer_layer_matmul_intensity(tokens, 8192, 28672, 1024, tp, 3, 2)
    for i in range(3):
        assert vector[i] == pytest.approx(
            rl.transformer_layer_matmul_intensity(int(tokens[i]), 8192, 28672, kv_hidden=1024, tp=int(tp[i]))
        )
    achieved = rl._achieved_flops(np.array([1.0, 300.0]), 989e12, 3.35e12, 0.8, 2.0)
    assert achieved[0] == pytest.approx(rl.achieved_flops(1.0, 989e12, 3.35e12, ceiling=0.8))
    times = rl._roofline_time_s(np.array([1.0, 100.0]), np.array([50.0, 1.0]), 10.0, 1.0)
    assert list(times) == [50.0, 10.0]


@pytest.mark.parametrize(
    ("call", "exc", "words"),
    [
        (lambda: rl.matmul_flops(0, 1, 1), ValueError, "m = 0"),
        (lambda: rl.model_flops_per_token(float("nan"), 1, 1, 1), ValueError, "active_params"),
        (lambda: rl.hardware_flops_per_token(1e9, 2, 64, 128, "some"), ValueError, "recompute"),
        (lambda: rl.achieved_flops(1, 1, 1, ceiling=1.5), ValueError, "ceiling = 1.5"),
        (lambda: rl.ridge_point_flop_per_byte(True, 1), TypeError, "peak_flops"),
        (lambda: rl.transformer_layer_matmul_intensity(8, 64, 256, tp=0), ValueError, "tp = 0"),
    ],
)
def test_bad_input_names_the_parameter(call: object, exc: type[Exception], words: str) -> None:
    with pytest.raises(exc, match=words):
        call()  # type: ignore[operator]
