"""coursekit.roofline's layout helpers (lesson 7): tokens per GPU and a layout's per-GPU layer intensity."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from coursekit import roofline as rl
from coursekit.presets import MODELS


@dataclass(frozen=True)
class _Shape:
    hidden: int
    ffn_hidden: int
    kv_hidden: int
    mlp: str


def test_tokens_per_gpu_is_micro_batch_times_sequence_over_cp() -> None:
    # Context parallelism splits each sequence into cp chunks (Megatron-LM's CP): 2 × 8192 / 4 = 4096.
    assert rl.tokens_per_gpu(2, 8192, 4) == 4096
    assert rl.tokens_per_gpu(16, 1) == 16  # a decode step: one new token for each of 16 sequences


def test_layout_intensity_of_a_gelu_model_by_hand() -> None:
    # GPT-3 175B (Brown et al. 2020): h = 12288, GELU MLP 4h, no GQA. TP = 8, 2 × 2048 tokens.
    h, tokens, tp = 12288, 4096, 8
    shapes = [(h, 3 * h / tp), (h / tp, h), (h, 4 * h / tp), (4 * h / tp, h)]
    by_hand = sum(2 * tokens * k * n for k, n in shapes) / sum(2 * (tokens * k + k * n + tokens * n) for k, n in shapes)
    ours = rl.layout_matmul_intensity(MODELS["gpt3-175b"], tp=tp, micro_batch=2, seq_len=2048)
    assert ours == pytest.approx(by_hand, rel=1e-12)


def test_layout_intensity_reads_any_model_shape() -> None:
    shape = _Shape(hidden=1024, ffn_hidden=4096, kv_hidden=1024, mlp="gelu")
    tokens, h = 512, 1024
    shapes = [(h, 3 * h), (h, h), (h, 4 * h), (4 * h, h)]
    by_hand = sum(2 * tokens * k * n for k, n in shapes) / sum(2 * (tokens * k + k * n + tokens * n) for k, n in shapes)
    assert rl.layout_matmul_intensity(shape, tp=1, micro_batch=1, seq_len=1024, cp=2) == pytest.approx(by_hand)


def test_every_knob_moves_intensity_the_documented_way() -> None:
    model = MODELS["llama3-8b"]
    base = rl.layout_matmul_intensity(model, tp=4, micro_batch=2, seq_len=4096, cp=2)
    assert rl.layout_matmul_intensity(model, tp=8, micro_batch=2, seq_len=4096, cp=2) < base
    assert rl.layout_matmul_intensity(model, tp=4, micro_batch=2, seq_len=4096, cp=4) < base
    assert rl.layout_matmul_intensity(model, tp=4, micro_batch=4, seq_len=4096, cp=2) > base


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: rl.tokens_per_gpu(1, 1000, 16), ValueError, "cp = 16: must divide seq_len = 1000."),
        (lambda: rl.tokens_per_gpu(0, 1024), ValueError, "micro_batch = 0: must be >= 1."),
        (lambda: rl.tokens_per_gpu(1, 1024, True), TypeError, "cp = True: must be an integer"),
        (
            lambda: rl.layout_matmul_intensity(_Shape(64, 256, 64, "relu"), tp=1, micro_batch=1, seq_len=8),
            ValueError,
            "mlp = 'relu': must be one of 'swiglu', 'gelu'.",
        ),
    ],
)
def test_bad_input_names_the_parameter(call: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()  # type: ignore[operator]
    assert str(info.value).startswith(message)
