"""The lesson 10 serving widget: computes through coursekit.serving, validates its arguments, never raises."""

from __future__ import annotations

import pytest

from coursekit import i18n
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import serving_estimate, serving_memory_ledger
from coursekit.widgets.serving import BATCH_OPTIONS, ServingWidget, serving_view


def test_default_view_matches_the_library() -> None:
    w = ServingWidget()
    assert w.status == "ok" and w.result is not None
    expected = serving_estimate(
        MODELS["llama3-70b"], CLUSTERS["h100-8"], tp=8, batch=64, prompt_tokens=2048, output_tokens=256
    )
    assert w.result.estimate == expected
    ledger = serving_memory_ledger(
        MODELS["llama3-70b"], CLUSTERS["h100-8"], tp=8, concurrency=64, context_tokens=2304, prefill_chunk_tokens=2048
    )
    assert w.result.ledger.total_gib == pytest.approx(ledger.total_gib)


def test_curve_trades_latency_for_throughput() -> None:
    view = serving_view("llama3-8b", "h100-8", 1, 16, 1024, 256)
    tpot = [t for _, t, _, _ in view.curve]
    tps = [r for _, _, r, _ in view.curve]
    assert [b for b, *_ in view.curve] == list(BATCH_OPTIONS)
    assert tpot == sorted(tpot) and tps == sorted(tps)
    fits = [ok for *_, ok in view.curve]
    assert fits == sorted(fits, reverse=True)  # once the KV cache overflows, bigger batches overflow too


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"model": "llama3-7b"}, "model"),
        ({"gpu": "tpu"}, "gpu"),
        ({"tp": 3}, "tp"),
        ({"tp": 2.0}, "tp"),
        ({"batch": 0}, "batch"),
        ({"prompt_tokens": -1}, "prompt_tokens"),
        ({"output_tokens": 0}, "output_tokens"),
    ],
)
def test_constructor_names_the_bad_argument(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises((TypeError, ValueError), match=name):
        ServingWidget(**kwargs)  # type: ignore[arg-type]


def test_tp_that_does_not_divide_the_heads_is_a_friendly_message() -> None:
    w = ServingWidget(model="gpt2-small", tp=1)
    w.controls["tp"].value = 8
    assert w.status == "invalid" and "12" in w.message and "Traceback" not in w.message


def test_weights_that_do_not_fit_are_shown_not_raised() -> None:
    w = ServingWidget(tp=1)
    assert w.status == "ok" and w.result is not None and not w.result.ledger.fits


def test_weights_alone_too_big_say_so_instead_of_holding_zero_requests() -> None:
    # Llama 3 70B at TP 1: 70,553,706,496 x 2 bytes = 131.4 GiB of weights against an 80 GiB H100
    previous = i18n.get_language()
    try:
        for lang, said, not_said in (
            ("en", "alone do not fit", "holds at most 0"),
            ("zh", "本身就放不下", "最多容纳 0"),
        ):
            i18n.set_language(lang)
            w = ServingWidget(tp=1)
            assert w.result is not None and w.result.ledger.max_concurrency == 0
            assert said in w.message and not_said not in w.message
            w.controls["tp"].value = 8  # 16.4 GiB of weights per rank: requests fit, and the count is shown
            assert w.result is not None and w.result.ledger.max_concurrency > 0
            assert said not in w.message
    finally:
        i18n.set_language(previous)


def test_chinese_message() -> None:
    previous = i18n.get_language()
    try:
        i18n.set_language("zh")
        w = ServingWidget(model="llama3-8b", tp=1, batch=32)
        assert "每 rank" in w.message and "下界" in w.message
    finally:
        i18n.set_language(previous)


def test_verdict_level_colours_fit_green_and_no_fit_red_with_the_same_words() -> None:
    previous = i18n.get_language()
    try:
        i18n.set_language("en")
        # TP = 8, 64 requests of 2048 + 256 tokens: weights 70.6e9 x 2 B / 8 = 16.4 GiB and KV 64 x 2304 x 40 KiB
        # = 5.6 GiB per rank fit an 80 GiB H100.
        fits = ServingWidget()
        assert fits.verdict == "pass"
        assert "coursekit-pass" in fits.message_html.value and "Pass: " in fits.message_html.value
        assert "fits" in fits.message
        # TP = 1: the weights alone, 70.6e9 x 2 bytes = 131 GiB, exceed 80 GiB.
        short = ServingWidget(tp=1)
        assert short.verdict == "fail"
        assert "coursekit-fail" in short.message_html.value and "Fail: " in short.message_html.value
        assert "does not fit" in short.message
        i18n.set_language("zh")
        short.redraw()
        assert "不通过：" in short.message_html.value and "放不下" in short.message
    finally:
        i18n.set_language(previous)
