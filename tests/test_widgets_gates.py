"""Lesson 3 widget: environment controls -> every candidate through every gate, with reasons, updated in place."""

from __future__ import annotations

import html
import re
from dataclasses import replace

import numpy as np
import pytest

import coursekit
from coursekit.gates import (
    EXAMPLE_ENVIRONMENT,
    GATES,
    Candidate,
    Environment,
    evaluate_candidate,
    evaluate_candidates,
)
from coursekit.i18n import tr
from coursekit.plotting import cjk_font_family
from coursekit.widgets.gates import (
    CONTEXT_OPTIONS,
    MAX_CONTEXT_OPTIONS,
    WIDGET_CANDIDATES,
    GatesWidget,
    gate_grid,
)


def _shown_text(message_html: str) -> str:
    """The widget message as the learner reads it: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", message_html))


def _candidate(name: str) -> Candidate:
    return next(c for c in WIDGET_CANDIDATES if c.name == name)


def _set(w: GatesWidget, **values: object) -> None:
    with w.hold_updates():
        for name, value in values.items():
            w.controls[name].value = value


def test_defaults_are_the_seed_environment_and_match_a_direct_evaluation() -> None:
    w = GatesWidget()
    assert w.status == "ok" and w.result is not None
    assert w.result.environment == EXAMPLE_ENVIRONMENT
    direct = evaluate_candidates(WIDGET_CANDIDATES, EXAMPLE_ENVIRONMENT)
    assert w.result.reports == direct
    # the seed's two asserts, seen through the widget
    by_name = {r.name: r for r in w.result.reports}
    assert not by_name["DP"].accepted and by_name["TP"].accepted


def test_grid_cells_are_the_gates_called_one_by_one() -> None:
    env = replace(EXAMPLE_ENVIRONMENT, mode="serving", model_kind="moe", link_scope="cross_node")
    grid = gate_grid(env)
    for i, cand in enumerate(WIDGET_CANDIDATES):
        assert grid.passed[i] == tuple(gate.check(cand, env) is None for gate in GATES)
        report = evaluate_candidate(cand, env)
        first = grid.first_failure[i]
        assert (first is None) == report.accepted
        if first is not None:
            assert GATES[first].code == report.codes[0]
    assert grid.accepted == tuple(r.name for r in evaluate_candidates(WIDGET_CANDIDATES, env) if r.accepted)


@pytest.mark.parametrize(
    ("controls", "environment"),
    [
        ({"memory_per_device_gib": 32.0}, replace(EXAMPLE_ENVIRONMENT, memory_per_device_gib=32.0)),
        ({"link_scope": "cross_node"}, replace(EXAMPLE_ENVIRONMENT, link_scope="cross_node")),
        ({"mode": "serving", "model_kind": "moe"}, replace(EXAMPLE_ENVIRONMENT, mode="serving", model_kind="moe")),
        (
            {"context_len": 131072, "max_context_per_device": 32768},
            replace(EXAMPLE_ENVIRONMENT, context_len=131072, max_context_per_device=32768),
        ),
        ({"link_scope": "none", "memory_per_device_gib": 8.0}, Environment(8.0, "training", "dense", "none")),
    ],
)
def test_controls_map_to_the_environment(controls: dict[str, object], environment: Environment) -> None:
    w = GatesWidget()
    _set(w, **controls)
    assert w.status == "ok" and w.result is not None
    assert w.result.environment == environment
    assert w.result.reports == evaluate_candidates(WIDGET_CANDIDATES, environment)


def test_more_memory_admits_dp() -> None:
    w = GatesWidget()
    dp = _candidate("DP")
    w.controls["memory_per_device_gib"].value = float(dp.memory_per_rank_gib)  # equality passes, as in the seed
    assert w.result is not None
    assert "DP" in w.result.accepted
    assert evaluate_candidate(dp, w.result.environment).accepted


def test_context_options_include_not_declared() -> None:
    assert CONTEXT_OPTIONS[0] is None and MAX_CONTEXT_OPTIONS[0] is None
    w = GatesWidget()
    assert w.controls["context_len"].value is None
    # Shown as a choice, not as a blank box: ipywidgets shows nothing for value=None unless an index is selected.
    for name in ("context_len", "max_context_per_device"):
        assert w.controls[name].index == 0 and w.controls[name].label == "not declared"
    coursekit.set_language("zh")
    w = GatesWidget()
    assert w.controls["context_len"].label == "未声明"


def test_status_colour_and_words_follow_the_verdict() -> None:
    w = GatesWidget()  # the lesson's example environment: ZeRO-3 and TP pass
    assert w.verdict == "pass" and "coursekit-pass" in w.message_html.value
    w.controls["memory_per_device_gib"].value = 0.5  # nothing fits half a GiB
    assert w.result is not None and w.result.accepted == ()
    assert w.verdict == "fail" and "coursekit-fail" in w.message_html.value and "Fail: " in w.message_html.value


def test_message_lists_every_candidate_with_its_reasons_in_english() -> None:
    w = GatesWidget()
    assert w.result is not None
    accepted = [r.name for r in w.result.reports if r.accepted]
    summary = tr(
        "widgets.gates.summary",
        count=len(accepted),
        total=len(WIDGET_CANDIDATES),
        gates=len(GATES),
        names=", ".join(accepted),
    )
    assert html.escape(summary) in w.message
    shown = _shown_text(w.message)
    for report in w.result.reports:
        assert "<td style" in w.message and html.escape(report.name) in w.message
        for reason in report.reasons:
            assert reason.render("en").replace("`", "") in shown
    assert "`" not in shown
    # the first failing gate of a rejected candidate is in bold
    dp = next(r for r in w.result.reports if r.name == "DP")
    assert f"<b>[{dp.reasons[0].code}] {html.escape(dp.reasons[0].render('en'))}</b>" in w.message
    assert "No blended score" in w.message


def test_message_in_chinese() -> None:
    coursekit.set_language("zh")
    w = GatesWidget()
    assert w.result is not None
    assert "个候选中有" in w.message and "没有综合分" in w.message
    # The accepted candidates are a Chinese enumeration (、), as in the lesson's prose; it read "ZeRO-3, TP, PP".
    accepted = [r.name for r in w.result.reports if r.accepted]
    assert len(accepted) == 3
    assert f"{len(WIDGET_CANDIDATES)} 个候选中有 3 个通过全部 {len(GATES)} 道门槛：{'、'.join(accepted)}。" in w.message
    shown = _shown_text(w.message)
    for report in w.result.reports:
        for reason in report.reasons:
            assert reason.render("zh").replace("`", "") in shown
    assert "`" not in shown  # code spans show as code, not as Markdown backticks
    assert w.controls["memory_per_device_gib"].description == "单设备显存 (GiB)"
    labels = {w.figure.axes[0].get_xticklabels()[j].get_text() for j in range(len(GATES))}
    assert ("容量" in labels) == (cjk_font_family() is not None)


def test_invalid_memory_is_a_friendly_message() -> None:
    w = GatesWidget()
    with pytest.raises(ValueError) as direct:
        Environment(0.0, "training", "dense", "intra_node")
    w.controls["memory_per_device_gib"].value = 0.0
    assert w.status == "invalid" and w.result is None
    # the message names the box by its label, as the learner sees it (the formula's error names its parameter)
    assert str(direct.value) == "memory_per_device_gib = 0.0: must be > 0."
    assert w.message == "These inputs cannot be computed: memory per device (GiB) = 0.0: must be > 0."
    assert "Traceback" not in w.message_html.value
    w.controls["memory_per_device_gib"].value = 24.0
    assert w.status == "ok"


def test_invalid_memory_in_chinese() -> None:
    coursekit.set_language("zh")
    w = GatesWidget()
    w.controls["memory_per_device_gib"].value = -1.0
    assert w.status == "invalid"
    assert w.message == "这些输入无法计算：单设备显存 (GiB) = -1.0：必须 > 0。"


def test_figure_and_artists_are_updated_in_place() -> None:
    w = GatesWidget()
    figure, ax = w.figure, w.ax
    cells, fails, firsts = w.cells, w.fail_marks, w.first_marks
    rgb_before = np.array(cells.get_facecolor()).copy()
    fails_before = np.array(fails.get_offsets()).copy()
    png_before, renders = bytes(w.image.value), w.render_count
    rows_before = [t.get_text() for t in ax.get_yticklabels()]
    w.controls["mode"].value = "serving"
    assert w.figure is figure and w.figure.axes == [ax]
    assert w.cells is cells and w.fail_marks is fails and w.first_marks is firsts
    assert not np.array_equal(np.array(cells.get_facecolor()), rgb_before)
    assert not np.array_equal(np.array(fails.get_offsets()), fails_before)
    assert bytes(w.image.value) != png_before and w.render_count == renders + 1
    # one frame per rejected candidate, on its first failing gate
    assert w.result is not None
    expected = sorted((j, i) for i, j in enumerate(w.result.first_failure) if j is not None)
    assert sorted(map(tuple, np.array(firsts.get_offsets()).tolist())) == [(float(j), float(i)) for j, i in expected]
    # one × per failing cell
    n_fail = sum(not ok for row in w.result.passed for ok in row)
    assert len(fails.get_offsets()) == n_fail
    # the row labels carry the verdicts: Replica turns from rejected to accepted when serving
    rows_after = [t.get_text() for t in ax.get_yticklabels()]
    assert rows_before[-1] == "Replica rejected" and rows_after[-1] == "Replica accepted"
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        f"{r.name} {'accepted' if r.accepted else 'rejected'}" for r in w.result.reports
    ]


def test_fail_colour_marks_exactly_the_failing_cells() -> None:
    w = GatesWidget()
    assert w.result is not None
    rgb = np.array(w.cells.get_facecolor()).reshape(len(WIDGET_CANDIDATES), len(GATES), 4)
    passed = np.array(w.result.passed)
    # the pass colour is greener than red, the fail colour redder than green
    assert np.all((rgb[..., 1] > rgb[..., 0]) == passed)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_context_reason_names_the_value_still_missing(lang: str) -> None:
    """Guide 3's step 4 in order: the context length declared first, the per-device capacity not yet; CP's reason
    names the capacity as missing (not both), then CP passes once the capacity is declared too."""
    coursekit.set_language(lang)
    try:
        w = GatesWidget()
        cp = [r.name for r in w.result.reports].index("CP")  # type: ignore[union-attr]
        both = w.result.reports[cp].reasons[0].message  # type: ignore[union-attr]
        assert both == evaluate_candidate(_candidate("CP"), EXAMPLE_ENVIRONMENT).reasons[0].message  # neither declared
        w.controls["context_len"].value = 131072
        assert w.result is not None and not w.result.reports[cp].accepted
        (reason,) = w.result.reports[cp].reasons
        assert reason.code == "context" and reason.message != both
        assert "131,072" in reason.message and "max_context_per_device" in reason.message
        assert "context_len" not in reason.message  # the context length is declared: only the capacity is missing
        assert html.escape(reason.message) in w.message
        w.controls["max_context_per_device"].value = 32768
        assert w.result.reports[cp].accepted
        w.controls["context_len"].value = None  # only the capacity declared: the context length is missing
        (reason,) = w.result.reports[cp].reasons
        assert "32,768" in reason.message and "context_len" in reason.message
        assert "max_context_per_device" not in reason.message
    finally:
        coursekit.set_language("en")


def test_a_code_span_in_a_reason_is_shown_as_code() -> None:
    # the catalog marks API codes with backticks (Markdown code spans); the widget's HTML table shows them as code
    coursekit.set_language("zh")
    w = GatesWidget()
    assert w.result is not None
    spans = [r for report in w.result.reports for r in report.reasons if "`" in r.render("zh")]
    assert spans, "the example rejects a candidate on its mode or structure, whose zh reason quotes codes"
    assert "<code>" in w.message and "`" not in w.message
