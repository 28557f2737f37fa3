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
    return [note for note in result.assumptions.notes if note not in ESTIMATE_NOTES]


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
