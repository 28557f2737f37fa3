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


def test_chinese_message() -> None:
    previous = i18n.get_language()
    try:
        i18n.set_language("zh")
        w = ServingWidget(model="llama3-8b", tp=1, batch=32)
        assert "每 rank" in w.message and "下界" in w.message
    finally:
        i18n.set_language(previous)
