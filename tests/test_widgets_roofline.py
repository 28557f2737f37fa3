"""coursekit.widgets.roofline: lesson 7's roofline widget against numbers worked by hand.

Expected values come from the datasheet figures and the textbook formulas written out here:
a matmul (m × k) @ (k × n) does 2·m·k·n FLOPs and moves at least 2·(m·k + k·n + m·n) bytes in bf16;
Megatron-LM's TP split gives one rank the column-parallel QKV and MLP-up matrices and the row-parallel
output and MLP-down matrices; the ridge point is peak ÷ bandwidth (Williams et al. 2009).
"""

from __future__ import annotations

import math

import pytest

import coursekit
from coursekit.widgets.roofline import GPUS, RooflineWidget, roofline_view

# NVIDIA datasheets: H100 SXM 989 TFLOP/s dense bf16, 3.35 TB/s; A100 80GB SXM 312 TFLOP/s, 2,039 GB/s.
H100 = (989e12, 3.35e12)
A100 = (312e12, 2039e9)
# Llama 3 70B (The Llama 3 Herd of Models, Table 3): h = 8192, FFN 28672, 64 heads, 8 KV heads of 128.
LLAMA70 = {"hidden": 8192, "ffn": 28672, "kv": 8 * 128}


def _layer_intensity_by_hand(tokens: int, hidden: int, ffn: int, kv: int, tp: int) -> float:
    """FLOP-weighted intensity of one rank's QKV, output, SwiGLU up+gate and down matmuls, bf16."""
    shapes = [(hidden, (hidden + 2 * kv) / tp), (hidden / tp, hidden), (hidden, 2 * ffn / tp), (ffn / tp, hidden)]
    flops = sum(2 * tokens * k * n for k, n in shapes)
    moved = sum(2 * (tokens * k + k * n + tokens * n) for k, n in shapes)
    return flops / moved


def _smooth_share(intensity: float, peak: float, bandwidth: float) -> float:
    """The p = 2 smooth roofline as a share of peak: 1 / sqrt(1 + (ridge / I)²)."""
    return 1 / math.sqrt(1 + (peak / bandwidth / intensity) ** 2)


def test_default_is_llama3_70b_on_h100_at_tp8() -> None:
    w = RooflineWidget()
    assert w.status == "ok" and w.result is not None
    v = w.result
    assert (v.tokens, v.hidden_per_rank) == (8192, 1024)
    by_hand = _layer_intensity_by_hand(8192, tp=8, **LLAMA70)
    assert v.intensity_flop_per_byte == pytest.approx(by_hand, rel=1e-12)
    assert v.ridge_flop_per_byte == pytest.approx(989e12 / 3.35e12, rel=1e-12)
    assert v.bound == "compute" and v.hard_share_of_peak == 1.0
    assert v.share_of_peak == pytest.approx(_smooth_share(by_hand, *H100), rel=1e-12)
    # the point is drawn where the numbers say
    (x,), (y,) = w.point.get_data()
    assert x == pytest.approx(by_hand) and y == pytest.approx(v.share_of_peak * 989)


def test_higher_tp_and_cp_shrink_the_matmul_and_move_the_point() -> None:
    w = RooflineWidget(model="llama3-8b", seq_len=4096)
    before = w.result.intensity_flop_per_byte if w.result else 0.0
    point, png = w.point, bytes(w.image.value)
    with w.hold_updates():
        w.controls["tp"].value = 16
        w.controls["cp"].value = 8
    assert w.result is not None and w.point is point
    # Llama 3 8B: h = 4096, FFN 14336, 8 KV heads of 128; 4096 / 8 = 512 tokens per GPU
    by_hand = _layer_intensity_by_hand(512, hidden=4096, ffn=14336, kv=1024, tp=16)
    assert w.result.tokens == 512
    assert w.result.intensity_flop_per_byte == pytest.approx(by_hand, rel=1e-12)
    assert by_hand < before
    assert w.point.get_data()[0][0] == pytest.approx(by_hand)
    assert bytes(w.image.value) != png


def test_micro_batch_raises_intensity() -> None:
    low = roofline_view("h100", "llama3-70b", 8, 1, 2048, 1)
    high = roofline_view("h100", "llama3-70b", 8, 4, 2048, 1)
    assert (low.tokens, high.tokens) == (2048, 8192)
    assert high.intensity_flop_per_byte > low.intensity_flop_per_byte


def test_memory_bound_layout_on_a100() -> None:
    # GPT-2 small (h = 768, GELU MLP 3072, 12 heads) at TP = 4: hidden 192 per rank, 256 tokens per GPU.
    v = roofline_view("a100", "gpt2-small", 4, 1, 1024, 4)
    shapes = [(768, 3 * 768 / 4), (768 / 4, 768), (768, 3072 / 4), (3072 / 4, 768)]
    by_hand = sum(2 * 256 * k * n for k, n in shapes) / sum(2 * (256 * k + k * n + 256 * n) for k, n in shapes)
    assert v.intensity_flop_per_byte == pytest.approx(by_hand, rel=1e-12)
    ridge = 312e12 / 2039e9
    assert v.bound == "memory" and by_hand < ridge
    assert v.hard_share_of_peak == pytest.approx(by_hand / ridge, rel=1e-12)
    assert v.share_of_peak == pytest.approx(_smooth_share(by_hand, *A100), rel=1e-12)


def test_message_in_english() -> None:
    w = RooflineWidget(gpu="a100", model="gpt2-small", tp=4, seq_len=1024, cp=4)
    v = w.result
    assert v is not None
    ridge = 312e12 / 2039e9
    assert w.message.startswith(
        f"<b>Memory-bound</b>: the layer's linear matmuls do {v.intensity_flop_per_byte:.0f} FLOP per byte, only "
        f"{v.intensity_flop_per_byte / ridge:.0%} of A100 80GB SXM's ridge point ({ridge:.0f} FLOP/byte)."
    )
    assert "Per GPU: micro-batch 1 × 1024 tokens ÷ CP 4 = 256 tokens; hidden 768 ÷ TP 4 = 192 per rank." in w.message
    assert "An upper bound, not a measurement" in w.message


def test_message_in_chinese() -> None:
    coursekit.set_language("zh")
    w = RooflineWidget()
    assert w.message.startswith("<b>计算受限 (compute-bound)</b>：每层线性矩阵乘的计算强度 ")
    assert f"是 H100 SXM 脊点 ({989e12 / 3.35e12:.0f} FLOP/字节) 的" in w.message
    assert "每张 GPU：微批次 1 × 8192 token ÷ CP 1 = 8192 个 token；隐藏维 8192 ÷ TP 8 = 每个 rank 1024。" in w.message
    assert "这是上限，不是测量" in w.message
    assert w.controls["tp"].description == "张量并行度 TP"
    assert w.controls["model"].label == "Llama 3 70B"


def test_gpu_switch_moves_the_ridge() -> None:
    w = RooflineWidget()
    w.controls["gpu"].value = "a100"
    assert w.result is not None and w.result.gpu is GPUS["a100"]
    assert list(w.ridge_line.get_xdata()) == pytest.approx([312e12 / 2039e9] * 2)
    # the hard roofline's knee sits at (ridge, peak in TFLOP/s)
    xs, ys = w.hard_line.get_data()
    assert list(xs)[1] == pytest.approx(312e12 / 2039e9) and list(ys)[1] == pytest.approx(312.0)


def test_invalid_layout_is_a_message_not_a_traceback() -> None:
    w = RooflineWidget()
    w.controls["model"].value = "gpt2-small"  # 12 heads: TP = 8 does not divide them
    assert w.status == "invalid" and w.result is None
    assert w.message == (
        "These inputs cannot be computed: tensor-parallel degree TP = 8 does not divide GPT-2 small's 12 attention "
        "heads (each rank takes whole heads): set TP to one of 1, 2, 4, or pick another model."
    )
    w.controls["tp"].value = 4
    assert w.status == "ok"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"gpu": "v100"}, ValueError, "gpu = 'v100': must be one of 'a100', 'h100'."),
        ({"model": "mixtral-8x7b"}, ValueError, "model = 'mixtral-8x7b': must be one of 'gpt2-small', "),
        ({"tp": 3}, ValueError, "tp = 3: must be one of 1, 2, 4, 8, 16, 32."),
        ({"cp": True}, TypeError, "cp = True: must be an integer"),
        ({"seq_len": 1000}, ValueError, "seq_len = 1000: must be one of 1024, "),
    ],
)
def test_constructor_validates(kwargs: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        RooflineWidget(**kwargs)  # type: ignore[arg-type]
    assert str(info.value).startswith(message)


def test_view_refuses_cp_that_does_not_divide_the_sequence() -> None:
    with pytest.raises(ValueError) as info:
        roofline_view("h100", "llama3-70b", 8, 1, 1000, 16)
    assert str(info.value) == "cp = 16: must divide seq_len = 1000."


def test_every_offered_layout_stays_inside_the_axes() -> None:
    # The extremes of the controls: the thinnest and the thickest per-GPU layer a learner can choose.
    from coursekit.widgets.roofline import INTENSITY_RANGE, TFLOPS_RANGE

    thin = roofline_view("h100", "gpt2-small", 4, 1, 1024, 32)  # 32 tokens, 192 wide
    thick = roofline_view("h100", "llama3-405b", 1, 16, 131072, 1)  # 2M tokens, full width
    for view in (thin, thick):
        assert INTENSITY_RANGE[0] < view.intensity_flop_per_byte < INTENSITY_RANGE[1]
        assert TFLOPS_RANGE[0] < view.achieved_flops / 1e12 < TFLOPS_RANGE[1]
