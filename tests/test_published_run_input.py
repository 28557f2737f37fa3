"""A run of your own: what :class:`coursekit.presets.PublishedRun` says when a vendor table's column is put in the
wrong place. Tables print VP, MBS and the ZeRO stage beside TP, PP, CP, DP and EP; the planner searches the first
three, so the run's ``degrees`` refuses them and names the workload option that bounds the search instead."""

from __future__ import annotations

import pytest

from coursekit.i18n import set_language
from coursekit.planner import compare_published
from coursekit.presets import PublishedRun


def _run(degrees: tuple[tuple[str, int], ...], options: tuple[tuple[str, object], ...] = ()) -> PublishedRun:
    return PublishedRun(
        "a table row", "llama3-8b", "h100-8", 1, 128, 8192, degrees, "tokens", 0.0, "a table",
        measured_tokens_per_gpu_s=12000.0, workload_options=options,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("key", "value", "option"),
    [
        ("vp", 4, "('max_virtual_stages', 4)"),
        ("v", 5, "('max_virtual_stages', 5)"),
        ("mbs", 2, "('max_micro_batch', 2)"),
        ("zero", 1, "('zero_stages', (1,))"),
    ],
)
def test_a_searched_column_in_degrees_names_the_option_that_bounds_it(key: str, value: int, option: str) -> None:
    degrees = (("tp", 1), ("cp", 1), ("pp", 2), ("dp", 4), (key, value))
    with pytest.raises(ValueError) as english:
        _run(degrees)
    assert f"degrees has {key!r}" in str(english.value) and f"put {option} in workload_options" in str(english.value)
    assert "degrees takes only tp, cp, pp, dp, ep, etp." in str(english.value)
    try:
        set_language("zh")
        with pytest.raises(ValueError) as chinese:
            _run(degrees)
    finally:
        set_language("en")
    message = str(chinese.value)
    assert f"degrees 里的 {key!r}" in message and f"请把 {option} 写进 workload_options" in message


def test_the_option_the_message_names_is_accepted_and_bounds_the_search() -> None:
    """What the message says to write works: VP 4 as the search's bound, and the published layout is checked."""
    comparison = compare_published(
        _run((("tp", 1), ("cp", 1), ("pp", 2), ("dp", 4)), (("max_virtual_stages", 4), ("max_micro_batch", 1)))
    )
    assert comparison.accepted
    assert ",mb=1," in comparison.layout and int(comparison.layout.split(",v=")[1].split(",")[0]) <= 4


def test_an_unknown_key_still_lists_the_degrees() -> None:
    with pytest.raises(ValueError, match=r"degrees = 'xp': must be one of 'tp', 'cp', 'pp', 'dp', 'ep', 'etp'\."):
        _run((("tp", 1), ("xp", 2)))
