"""Lesson 10's serving widget at BF16 and at FP8 (W8A8), and its refusal of FP8 on a GPU without an FP8 peak.

Expected values are worked by hand from the H100 SXM datasheet numbers that coursekit/hardware.py quotes (989 TFLOP/s
BF16 and 1979 TFLOP/s FP8, dense; 3.35 TB/s HBM) and from the decode step coursekit.serving documents: a
memory-bound step reads every weight once (weight_bytes each) plus each request's KV cache over the mean context
prompt + output / 2, all split over the TP ranks. Llama 3 70B's shape: 80 layers, hidden 8192, 8 KV heads of 128,
SwiGLU 28672, vocabulary 128256, untied embeddings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

import coursekit
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import serving_memory_ledger
from coursekit.widgets.serving import PRECISION_OPTIONS, ServingWidget, serving_view
from tests.serving_default import BATCH, OUTPUT, PROMPT, TP, library_estimate

BF16_PEAK, FP8_PEAK, HBM = 989e12, 1979e12, 3.35e12  # H100 SXM datasheet, dense
L, H, KV, F, V = 80, 8192, 8 * 128, 28672, 128256
#: Llama 3 70B's parameters: per layer Q and O (h×h), K and V (h×kv), three h×f MLP matrices, two RMSNorms; the final
#: norm; the input embedding and the output layer (untied).
PARAMS = L * (2 * H * H + 2 * H * KV + 3 * H * F + 2 * H) + H + 2 * H * V
KV_BYTES_PER_TOKEN = 2 * L * KV * 2  # K and V, every layer, 8 heads of 128, 2 bytes each
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(params=["zh", "en"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    previous = coursekit.get_language()
    coursekit.set_language(request.param)
    yield str(request.param)
    coursekit.set_language(previous)


def test_the_hand_counts_are_the_presets() -> None:
    h100, llama = CLUSTERS["h100-8"], MODELS["llama3-70b"]
    assert (h100.peak_flops, h100.peak_flops_fp8, h100.memory_bandwidth_bytes_per_s) == (BF16_PEAK, FP8_PEAK, HBM)
    assert llama.num_params == PARAMS == 70_553_706_496
    assert CLUSTERS["a100-8"].peak_flops_fp8 is None and CLUSTERS["pcie-24g-8"].peak_flops_fp8 is None
    assert PRECISION_OPTIONS == ("bf16", "fp8")


@pytest.mark.parametrize(("precision", "weight_bytes"), [("bf16", 2), ("fp8", 1)])
def test_decode_memory_time_and_weights_floor_worked_by_hand(precision: str, weight_bytes: int) -> None:
    """The default layout: (N · weight_bytes + 64 requests × 2176 mean-context tokens × 320 KiB) / 8 ranks / 3.35 TB/s.

    BF16: (141,107,412,992 + 45,634,027,520) / 8 / 3.35e12 = 6.968 ms; FP8: (70,553,706,496 + 45,634,027,520) / 8 /
    3.35e12 = 4.335 ms. The weights floor is the first term alone: 5.265 ms and 2.633 ms.
    """
    w = ServingWidget(precision=precision)
    assert w.status == "ok" and w.result is not None and w.result.precision == precision
    kv_read = BATCH * (PROMPT + OUTPUT // 2) * KV_BYTES_PER_TOKEN
    assert kv_read == 45_634_027_520
    weights = PARAMS * weight_bytes
    est = w.result.estimate
    assert est.decode_bound == "memory"
    assert est.decode_memory_s == pytest.approx((weights + kv_read) / TP / HBM, rel=1e-12)
    assert est.weights_floor_s == pytest.approx(weights / TP / HBM, rel=1e-12)
    expected_ms = {"bf16": (6.968, 5.265), "fp8": (4.335, 2.633)}[precision]
    assert (round(est.decode_memory_s * 1e3, 3), round(est.weights_floor_s * 1e3, 3)) == expected_ms
    # the ledger holds 1-byte weights at FP8: 70,553,706,496 / 8 ranks / 2^30 = 8.21 GiB per rank (16.43 at BF16)
    assert w.result.ledger.weights_gib == pytest.approx(weights / TP / 2**30, rel=1e-12)


def test_fp8_prefill_times_the_linear_layers_at_the_fp8_peak() -> None:
    """TTFT of the default prompt is compute-bound: 2·N_matmul·P at the FP8 peak plus causal attention 2·L·h·P² at
    BF16's, split over 8 ranks, plus the TP all-reduces (the same at either precision: they carry activations)."""
    bf16, fp8 = ServingWidget(), ServingWidget(precision="fp8")
    assert bf16.result is not None and fp8.result is not None
    n_matmul = PARAMS - H * V  # every parameter but the input embedding
    attention = 2 * L * H * PROMPT**2
    comm = fp8.result.estimate.prefill_comm_s
    assert comm == bf16.result.estimate.prefill_comm_s
    assert bf16.result.estimate.time_to_first_token_s == pytest.approx(
        (2 * n_matmul * PROMPT + attention) / TP / BF16_PEAK + comm, rel=1e-9
    )
    assert fp8.result.estimate.time_to_first_token_s == pytest.approx(
        (2 * n_matmul * PROMPT / FP8_PEAK + attention / BF16_PEAK) / TP + comm, rel=1e-9
    )


@pytest.mark.parametrize(
    ("model", "gpu", "layout"),
    [
        ("llama3-70b", "h100-8", {}),
        ("llama3-8b", "h100-8", {"tp": 1, "batch": 16, "prompt_tokens": 4096, "output_tokens": 512}),
        ("mixtral-8x7b", "h100-8", {"tp": 2, "batch": 1}),
        ("gpt3-175b", "h100-8", {"batch": 256, "prompt_tokens": 1024, "output_tokens": 1024}),
    ],
)
def test_the_widget_shows_the_librarys_fp8_estimate(model: str, gpu: str, layout: dict[str, int]) -> None:
    args = {"tp": TP, "batch": BATCH, "prompt_tokens": PROMPT, "output_tokens": OUTPUT, **layout}
    w = ServingWidget(model=model, gpu=gpu, precision="fp8", **args)
    assert w.status == "ok" and w.result is not None
    expected = library_estimate("fp8", model, gpu, **layout)
    assert w.result.estimate == expected
    assert w.result.estimate.time_per_output_token_s == expected.time_per_output_token_s
    ledger = serving_memory_ledger(
        MODELS[model],
        CLUSTERS[gpu],
        tp=args["tp"],
        concurrency=args["batch"],
        context_tokens=args["prompt_tokens"] + args["output_tokens"],
        weight_bytes=1,
        prefill_chunk_tokens=args["prompt_tokens"],
    )
    assert w.result.ledger == ledger
    for batch, tpot_s, _, _ in w.result.curve:  # every point of the curve is an FP8 point too
        assert tpot_s == library_estimate("fp8", model, gpu, **{**layout, "batch": batch}).time_per_output_token_s


def test_switching_the_control_recomputes_and_back() -> None:
    w = ServingWidget()
    assert w.result is not None and w.result.estimate == library_estimate("bf16")
    w.controls["precision"].value = "fp8"
    assert w.status == "ok" and w.result.estimate == library_estimate("fp8")
    assert w.result.estimate.time_per_output_token_s < library_estimate("bf16").time_per_output_token_s
    w.controls["precision"].value = "bf16"
    assert w.result.estimate == library_estimate("bf16")


def test_serving_view_keeps_its_six_argument_call() -> None:
    plain = serving_view("llama3-70b", "h100-8", TP, BATCH, PROMPT, OUTPUT)
    assert plain == serving_view("llama3-70b", "h100-8", TP, BATCH, PROMPT, OUTPUT, precision="bf16")
    assert plain.precision == "bf16" and plain.estimate == library_estimate("bf16")
    assert serving_view("llama3-70b", "h100-8", TP, BATCH, PROMPT, OUTPUT, "fp8").estimate == library_estimate("fp8")


def test_the_description_names_the_precision_and_the_peaks(lang: str) -> None:
    w = ServingWidget()
    bf16 = w.message
    assert "bf16" in bf16 and "989 TFLOP/s" in bf16 and "3.35 TB/s" in bf16 and "1979" not in bf16
    w.controls["precision"].value = "fp8"
    fp8 = w.message
    assert "FP8 (W8A8)" in fp8 and "1979 TFLOP/s" in fp8 and "989 TFLOP/s" in fp8 and "3.35 TB/s" in fp8
    # the default layout's lower bounds, as the lesson's table gives them to 2 significant digits: 66 -> 48 ms, 12.7 ->
    # 10.1 ms; the library's values formatted as the widget formats them
    for text, precision in ((bf16, "bf16"), (fp8, "fp8")):
        est = library_estimate(precision)
        assert f"{est.time_to_first_token_s * 1e3:.0f} ms" in text
        assert f"{est.time_per_output_token_s * 1e3:.1f} ms" in text
    assert "<b>48 ms</b>" in fp8 and "<b>10.1 ms</b>" in fp8 and "<b>66 ms</b>" in bf16 and "<b>12.7 ms</b>" in bf16
    if lang == "zh":
        assert "屋顶线下界" in fp8 and "评测" in fp8 and "输出质量" in fp8
        assert "精度" in w.controls["precision"].description and CJK.search(w.controls["precision"].label)
        # no English sentence: what is left after the Chinese, numbers and units is names (TTFT, FP8, W8A8, KV, ...)
        latin = re.findall(r"[A-Za-z]{3,}", re.sub(r"<[^>]+>|&#x27;", " ", fp8))
        assert set(latin) <= {"TTFT", "TPOT", "GiB", "rank", "token", "BF", "FP", "TFLOP", "KV"}, latin
    else:
        assert "roofline lower bounds" in fp8 and "evaluation" in fp8 and "quality" in fp8
        assert not CJK.search(fp8)
        assert w.controls["precision"].description == "precision"


@pytest.mark.parametrize("gpu", ["a100-8", "pcie-24g-8"])
def test_fp8_on_a_gpu_without_an_fp8_peak_says_so_in_the_learners_language(lang: str, gpu: str) -> None:
    model, tp = ("llama3-70b", 8) if gpu == "a100-8" else ("llama3-8b", 1)
    w = ServingWidget(model=model, gpu=gpu, tp=tp)
    assert w.status == "ok"
    w.controls["precision"].value = "fp8"
    assert w.status == "invalid" and w.result is None and isinstance(w.last_error, ValueError)
    message = w.message
    assert "Traceback" not in message and gpu in message and "FP8" in message and "bf16" in message
    assert "h100-8" in message  # where FP8 is offered
    if lang == "zh":
        assert "没有 FP8 张量核心" in message and "精度" in message
        assert not re.search(r"[A-Za-z]{4,} [A-Za-z]{2,}", message), message  # no English phrase
    else:
        assert "has no FP8 tensor cores" in message and not CJK.search(message)
    assert "coursekit-invalid" in w.message_html.value  # the amber box, not a pass or a fail
    w.controls["precision"].value = "bf16"  # back to BF16: numbers again
    assert w.status == "ok" and w.result is not None and w.result.precision == "bf16"


def test_serving_view_refuses_fp8_without_an_fp8_peak() -> None:
    with pytest.raises(ValueError, match="a100-8"):
        serving_view("llama3-70b", "a100-8", TP, BATCH, PROMPT, OUTPUT, precision="fp8")
    # a widget built on such inputs shows the message too (it used to fail to log-scale its empty curve: a matplotlib
    # ValueError out of the constructor, also for a TP that does not divide the heads)
    for kwargs in ({"gpu": "a100-8", "precision": "fp8"}, {"model": "gpt2-small", "tp": 8}):
        w = ServingWidget(**kwargs)  # type: ignore[arg-type]
        assert w.status == "invalid" and w.render_count == 1 and w.image.value, kwargs
        w.controls["tp"].value = 4
        w.controls["precision"].value = "bf16"
        w.controls["gpu"].value = "h100-8"
        assert w.status == "ok", (kwargs, w.message)


@pytest.mark.parametrize("precision", ["fp16", "FP8", 8])
def test_a_precision_no_control_offers_is_refused_by_name(precision: object) -> None:
    with pytest.raises((TypeError, ValueError), match="precision"):
        ServingWidget(precision=precision)  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError), match="precision"):
        serving_view("llama3-70b", "h100-8", TP, BATCH, PROMPT, OUTPUT, precision=precision)  # type: ignore[arg-type]


def test_the_public_tradeoff_curve_takes_the_precision() -> None:
    """``tradeoff_curve`` at FP8 is the widget's FP8 curve, and at the default layout's batch its TPOT is the library's
    FP8 estimate (1-byte weights); a device without an FP8 peak and an unknown precision are refused by name."""
    from coursekit.widgets.serving import tradeoff_curve

    model, cluster = MODELS["llama3-70b"], CLUSTERS["h100-8"]
    shape = {"tp": TP, "prompt_tokens": PROMPT, "output_tokens": OUTPUT}
    fp8 = tradeoff_curve(model, cluster, precision="fp8", **shape)
    assert fp8 == serving_view("llama3-70b", "h100-8", TP, BATCH, PROMPT, OUTPUT, precision="fp8").curve
    (at_batch,) = [row for row in fp8 if row[0] == BATCH]
    assert at_batch[1] == library_estimate("fp8").time_per_output_token_s
    bf16 = tradeoff_curve(model, cluster, **shape)
    assert bf16 == tradeoff_curve(model, cluster, precision="bf16", **shape)
    assert all(f[1] < b[1] for f, b in zip(fp8, bf16, strict=True))  # 1-byte weights: every batch decodes faster
    with pytest.raises(ValueError, match="a100-8"):
        tradeoff_curve(model, CLUSTERS["a100-8"], precision="fp8", **shape)
    with pytest.raises((TypeError, ValueError), match="precision"):
        tradeoff_curve(model, cluster, precision="int4", **shape)
