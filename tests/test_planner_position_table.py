"""Sequences longer than a learned position table: the plan says the model cannot run them as given.

GPT-2 small (hidden 768) learns one embedding per position for 1024 positions (Radford et al. 2019, n_ctx = 1024). A
workload of 8192-token sequences needs a table of 8192 positions: (8192 - 1024) x 768 = 5,505,024 more parameters,
worked by hand. Rotary positions (Llama) have no table, so no note.
"""

from __future__ import annotations

import pytest

import coursekit
from coursekit.planner import WorkloadSpec, plan
from coursekit.planner.result import ESTIMATE_NOTES
from coursekit.presets import CLUSTERS, MODELS


def _extra_notes(model: str, seq_len: int) -> list[object]:
    result = plan(MODELS[model], CLUSTERS["h100-8"], WorkloadSpec(global_batch=64, seq_len=seq_len))
    extra = [note for note in result.assumptions.notes if note not in ESTIMATE_NOTES]
    assert list(result.assumptions.workload_notes) == extra  # the notes on this model and workload, apart
    assert result.to_dict()["assumptions"]["workload_notes"] == [str(note) for note in extra]
    return extra


def test_a_sequence_past_the_learned_table_gets_a_note_in_both_languages() -> None:
    assert MODELS["gpt2-small"].position == "learned" and MODELS["gpt2-small"].seq_len == 1024
    (note,) = _extra_notes("gpt2-small", 8192)
    extra = (8192 - 1024) * 768
    assert extra == 5_505_024
    assert f"{extra:,}" in note.en and "1024 positions" in note.en and "8192" in note.en  # type: ignore[attr-defined]
    assert f"{extra:,}" in note.zh and "1024 个位置" in note.zh  # type: ignore[attr-defined]


@pytest.mark.parametrize(("model", "seq_len"), [("gpt2-small", 1024), ("gpt2-small", 512), ("llama3-8b", 16384)])
def test_no_note_when_the_table_holds_the_sequence_or_there_is_none(model: str, seq_len: int) -> None:
    assert _extra_notes(model, seq_len) == []


def test_the_report_shows_the_note_in_the_learners_language() -> None:
    previous = coursekit.get_language()
    try:
        for lang, words in (("en", "learned table of 1024 positions"), ("zh", "只有 1024 个位置")):
            coursekit.set_language(lang)
            result = plan(MODELS["gpt2-small"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=64, seq_len=8192))
            assert words in result.report()
    finally:
        coursekit.set_language(previous)


# Serving: a request holds its prompt and then its output tokens, so it needs prompt + output positions (Hugging Face's
# generate caps GPT-2 at max_length = n_positions = 1024 tokens in all). 1000 + 100 = 1100 tokens is 76 past the table:
# 76 x 768 = 58,368 more parameters, worked by hand; 900 + 124 = 1024 fits exactly.
SERVING_EXTRA = (1000 + 100 - 1024) * 768


def test_serving_notes_a_request_longer_than_the_table_in_the_plan_and_its_json() -> None:
    from coursekit.serving import ServingWorkload, plan_serving

    assert SERVING_EXTRA == 58_368
    model, cluster = MODELS["gpt2-small"], CLUSTERS["h100-8"]
    long = plan_serving(model, cluster, ServingWorkload(prompt_tokens=1000, output_tokens=100, concurrency=8))
    (note,) = long.notes
    assert "58,368" in note.en and "1100" in note.en and "1024 个位置" in note.zh  # type: ignore[attr-defined]
    assert "58,368" in long.report() and long.to_dict()["notes"] == [str(note)]
    exact = plan_serving(model, cluster, ServingWorkload(prompt_tokens=900, output_tokens=124, concurrency=8))
    assert exact.notes == () and exact.to_dict()["notes"] == []
    rope = plan_serving(
        MODELS["llama3-8b"], cluster, ServingWorkload(prompt_tokens=30000, output_tokens=256, concurrency=8)
    )
    assert rope.notes == ()


def test_the_planners_serving_mode_counts_the_output_tokens_too() -> None:
    workload = WorkloadSpec(mode="serving", global_batch=8, seq_len=1000, output_tokens=100)
    result = plan(MODELS["gpt2-small"], CLUSTERS["h100-8"], workload)
    notes = [note for note in result.assumptions.notes if "58,368" in note.en]  # type: ignore[attr-defined]
    assert len(notes) == 1 and "1100 tokens" in notes[0].en  # type: ignore[attr-defined]
    assert "58,368" in result.report() and result.assumptions.workload_notes == tuple(notes)
    training = plan(MODELS["gpt2-small"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=8, seq_len=1000))
    assert [note for note in training.assumptions.notes if note not in ESTIMATE_NOTES] == []
    assert training.assumptions.workload_notes == ()


def test_the_serving_widget_warns_in_the_learners_language_when_a_request_passes_the_table() -> None:
    from coursekit.widgets.serving import ServingWidget, serving_view

    widget = ServingWidget(model="gpt2-small", tp=1, batch=8, prompt_tokens=2048, output_tokens=256)
    view = serving_view("gpt2-small", "h100-8", 1, 8, 2048, 256)
    extra = (2048 + 256 - 1024) * 768  # 983,040
    assert view.ledger.fits and view.note is not None
    assert widget.verdict_level(view) == "warning"
    previous = coursekit.get_language()
    try:
        for lang, words in (("en", f"{extra:,} more parameters"), ("zh", f"多 {extra:,} 个参数")):
            coursekit.set_language(lang)
            assert words in widget.describe(view)
    finally:
        coursekit.set_language(previous)
    fitting = serving_view("gpt2-small", "h100-8", 1, 8, 768, 256)
    assert fitting.note is None and widget.verdict_level(fitting) == "pass"
    assert serving_view("llama3-70b", "h100-8", 8, 8, 32768, 256).note is None  # rotary positions: no table
