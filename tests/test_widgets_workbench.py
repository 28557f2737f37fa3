"""Lesson 9 widget (coursekit.widgets.workbench) and exercises (coursekit.exercises.lesson9)."""

from __future__ import annotations

import html
from typing import Any

import pytest

import coursekit
from coursekit.exercises import check, exercises, get_exercise
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.widgets import significant
from coursekit.widgets.workbench import TOP_SHOWN, WorkbenchWidget, what_if


@pytest.fixture(scope="module")
def widget() -> WorkbenchWidget:
    return WorkbenchWidget()


def test_widget_shows_the_plan_of_its_controls(widget: WorkbenchWidget) -> None:
    result = widget.result
    assert widget.status == "ok" and result is not None
    direct = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16), WorkloadSpec(global_batch=1024))
    assert (result.space_size, result.accepted_count) == (direct.space_size, direct.accepted_count)
    assert [c.label() for c in result.accepted(5)] == [c.label() for c in direct.accepted(5)]
    for cand in result.accepted(5):
        assert cand.label() in widget.message
    assert "an estimate, not a measurement" in widget.message
    assert widget.image.value[:4] == b"\x89PNG"


def test_widget_explains_the_ties_it_shows(widget: WorkbenchWidget) -> None:
    """Every member of tie group 1 among the rows shown, other than the fastest, comes with the assumption that would
    reorder it and the measurement that decides (the rows of PlanResult.explain_ties)."""
    result = widget.result
    assert result is not None
    shown = set(result.accepted_indices()[:TOP_SHOWN])
    rows = [row for row in result.explain_ties(1) if row.scenarios and row.index in shown]
    for row in rows:
        assert html.escape(row.message) in widget.message
    assert ("Why tie group 1 is tied" in widget.message) == bool(rows)


def test_widget_what_ifs(widget: WorkbenchWidget) -> None:
    base = widget.result
    assert base is not None
    with widget.hold_updates():
        widget.controls["link_slowdown"].value = 16
        widget.controls["moe"].value = True
    moe = widget.result
    assert moe is not None and moe.model.kind == "moe"
    assert moe.cluster.inter_node_bandwidth_bytes_per_s == base.cluster.inter_node_bandwidth_bytes_per_s / 16
    assert set(moe.space_dimensions["ep"]) == {1, 2, 4, 8}
    with widget.hold_updates():
        widget.controls["link_slowdown"].value = 1
        widget.controls["moe"].value = False
        widget.controls["mode"].value = "serving"
    assert widget.result is not None and widget.result.workload.mode == "serving"
    widget.controls["mode"].value = "training"


def test_widget_speaks_chinese(widget: WorkbenchWidget) -> None:
    coursekit.set_language("zh")
    widget.redraw()
    assert "个组合" in widget.message and "估算，不是测量" in widget.message


def test_what_if_slower_link_never_speeds_up() -> None:
    workload = WorkloadSpec(global_batch=256, seq_len=4096)
    steps = [what_if("llama3-8b", "a100-8", 4, workload, link_slowdown=k).accepted(1)[0].step_s for k in (1, 4, 16)]
    assert steps == sorted(steps)  # type: ignore[type-var]


LESSON9 = ("plan.memory_removed", "plan.cp_cost", "plan.moe_active", "plan.slow_link")


@pytest.mark.parametrize("exercise_id", LESSON9)
def test_lesson9_exercises_accept_their_answer_and_refuse_others(exercise_id: str) -> None:
    ex = get_exercise(exercise_id)
    expected = ex.expected_value()
    assert check(exercise_id, expected).correct
    wrong = expected * 2
    feedback = check(exercise_id, wrong)
    assert feedback.status == "incorrect" and str(expected) not in feedback.message


def test_lesson9_exercise_answers_from_the_planner() -> None:
    # CP at 8K with the same recomputation as its twin removes nothing: accepted, and estimated slower than the twin
    example = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16), WorkloadSpec(global_batch=1024))
    cp, twin = (
        example.explain(d)
        for d in (
            "tp=8,pp=2,dp=4,cp=2,zero=1,mb=1,recompute=selective",
            "tp=8,pp=2,dp=8,cp=1,zero=1,mb=1,recompute=selective",
        )
    )
    assert cp.accepted and twin.accepted and cp.step_s is not None and twin.step_s is not None
    assert get_exercise("plan.cp_cost").expected_value() == pytest.approx(cp.step_s / twin.step_s)
    assert cp.step_s > twin.step_s
    small = plan(MODELS["llama3-8b"], CLUSTERS["pcie-24g-8"], WorkloadSpec(global_batch=64, seq_len=4096))
    assert get_exercise("plan.memory_removed").expected_value() == small.funnel[8].removed > 0
    assert get_exercise("plan.slow_link").expected_value() >= 1.0
    # The MoE exercise, worked by hand: Llama-3 70B plus 3 more SwiGLU MLPs (3·h·f each) per layer for top-4,
    # plus a 16-way router (h·16) per layer.
    base = MODELS["llama3-70b"]
    by_hand = base.active_params + base.layers * (3 * 3 * 8192 * 28672 + 8192 * 16)
    assert get_exercise("plan.moe_active").expected_value() * 1e9 == pytest.approx(by_hand)
    # Errata of the lesson's what-if (8 experts, top-2): 70.6B -> 126.9B active, one more MLP and an 8-way router.
    top2 = base.active_params + base.layers * (3 * 8192 * 28672 + 8192 * 8)
    assert round(base.active_params / 1e9, 1) == 70.6 and round(top2 / 1e9, 1) == 126.9
    assert base.as_moe(8, 2).active_params == top2
    assert {ex.id for ex in exercises(9)} == set(LESSON9)


def test_verdict_level_pass_when_plans_are_accepted_fail_when_none_is() -> None:
    coursekit.set_language("en")
    w = WorkbenchWidget()
    assert w.result is not None and w.result.accepted_count > 0
    assert w.verdict == "pass" and "coursekit-pass" in w.message_html.value and "Pass: " in w.message_html.value
    # Llama 3 405B on one node of 8 x 24 GiB cards: even fully sharded, 405e9 x 16 bytes of training state over
    # 8 ranks is about 750 GiB per rank, so no composition fits.
    with w.hold_updates():
        w.controls["model"].value = "llama3-405b"
        w.controls["cluster"].value = "pcie-24g-8"
        w.controls["nodes"].value = 1
    assert w.status == "ok" and w.result.accepted_count == 0
    assert w.verdict == "fail" and "coursekit-fail" in w.message_html.value and "Fail: " in w.message_html.value
    assert "none passes every gate, so there is no table" in w.message and "<table" not in w.message
    assert "The table shows" not in w.message and "fail the gate memory" in w.message  # why: the last gate
    coursekit.set_language("zh")
    w.redraw()
    assert "不通过：" in w.message_html.value and "没有一个通过全部门槛，所以没有候选表" in w.message
    assert "下表" not in w.message and "没通过门槛 memory" in w.message


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_node_for_a_70b_model_says_why_nothing_passes(lang: str) -> None:
    """Nodes = 1 (the slider's Home) for Llama 3 70B on H100s: no table of "the 0 fastest", but the gate that
    removed the last compositions, with what would help."""
    coursekit.set_language(lang)
    try:
        w = WorkbenchWidget()
        w.controls["nodes"].value = 1
        assert w.status == "ok" and w.result is not None and w.result.accepted_count == 0
        last = [step for step in w.result.funnel if step.removed][-1]
        assert last.code == "memory" and last.remaining == 0  # it took all that was left
        assert f" {last.removed} " in w.message and html.escape(str(last.description)) in w.message
        assert " 0 " not in w.message.replace("<br>", " ") and "<table" not in w.message
        assert ("增加节点数" if lang == "zh" else "add nodes") in w.message
    finally:
        coursekit.set_language("en")


def test_funnel_shows_each_gates_numbers(widget: WorkbenchWidget) -> None:
    """Every funnel row is labelled with what its gate removed first and what is left, from the plan itself."""
    result = widget.result
    assert result is not None
    shown = [text.get_text() for text in widget._funnel.numbers]  # the widget's own artists
    # a gate that removed none shows 0, never "-0"
    removed = [f"-{step.removed:,}" if step.removed else "0" for step in result.funnel]
    assert shown == [f"{gone} → {step.remaining:,}" for gone, step in zip(removed, result.funnel, strict=True)]
    assert sum(step.removed for step in result.funnel) + result.accepted_count == result.space_size


def test_link_slowdown_offers_exercise_9_4s_case(widget: WorkbenchWidget) -> None:
    from coursekit.exercises.lesson9 import SLOWDOWN

    options = [value for _label, value in widget.controls["link_slowdown"].options]
    assert SLOWDOWN in options and 8 in options  # the exercise's ÷ 5 and the lesson's table's ÷ 8


#: Control states of the workbench and the what_if arguments they stand for (model, cluster, nodes, workload, what-ifs).
STATES: tuple[tuple[dict[str, Any], tuple[Any, ...]], ...] = (
    ({}, ("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024, seq_len=8192), {})),
    (
        {"model": "mixtral-8x7b", "nodes": 4, "global_batch": 512, "seq_len": 4096},
        ("mixtral-8x7b", "h100-8", 4, WorkloadSpec(global_batch=512, seq_len=4096), {}),
    ),
    (
        {"moe": True, "link_slowdown": 2, "nodes": 32},
        ("llama3-70b", "h100-8", 32, WorkloadSpec(global_batch=1024, seq_len=8192), {"link_slowdown": 2, "moe": True}),
    ),
    (
        {"model": "llama3-8b", "cluster": "a100-8", "nodes": 2, "global_batch": 64, "mfu": 0.4, "overlap": 0.5},
        (
            "llama3-8b",
            "a100-8",
            2,
            WorkloadSpec(global_batch=64, seq_len=8192, achievable_flops_fraction=0.4, overlap_fraction=0.5),
            {},
        ),
    ),
)


@pytest.mark.parametrize(("controls", "expected_plan"), STATES)
def test_widget_rows_and_ties_are_the_plans(controls: dict[str, Any], expected_plan: tuple[Any, ...]) -> None:
    """The table's rows, their tie groups and the tie explanations are those of the whole plan, asked through the
    planner's public API (every tie group, every row of explain_ties), for several states."""
    import re

    coursekit.set_language("en")
    w = WorkbenchWidget()
    with w.hold_updates():
        for name, value in controls.items():
            w.controls[name].value = value
    model, cluster, nodes, workload, what_ifs = expected_plan
    direct = what_if(model, cluster, nodes, workload, **what_ifs)
    order = direct.accepted_indices()[:TOP_SHOWN]
    group_of = {index: g for g, members in enumerate(direct.tie_groups(), 1) for index in members}
    labels = [direct.candidate(i).label() for i in order]
    shown_rows = re.findall(r"<tr><td[^>]*>(\d+) \((\d+)\)</td><td[^>]*><code>([^<]*)</code>", w.message)
    assert shown_rows == [(str(rank), str(group_of[i]), html.escape(label)) for rank, (i, label) in
                          enumerate(zip(order, labels, strict=True), 1)]  # fmt: skip
    for i in order:
        cand = direct.candidate(i)
        assert cand.timeline is not None and cand.memory is not None
        assert f"{cand.memory.total_gib:.1f} / {cand.memory.device_gib:g}" in w.message
        assert f">{significant(cand.timeline.step_s)}<" in w.message
    explained = [html.escape(row.message) for row in direct.explain_ties(1) if row.scenarios and row.index in order]
    assert re.findall(r"<li>(.*?)</li>", w.message) == explained


def test_site_presets_are_the_lessons_cases() -> None:
    """The cases the course website offers (the workbench cannot be precomputed whole) are lesson 9's: each case's
    funnel counts are those of the lesson's own call to plan / what_if (notebooks/src/09_workbench.py)."""
    import json
    import re
    from dataclasses import replace

    from coursekit.widgets.workbench import SITE_PRESETS

    coursekit.set_language("en")
    widget = WorkbenchWidget()
    start = widget.message
    (data,) = re.findall(r'class="ck-live-frames">(.*?)</script>', widget.static_bundle(live=True)["text/html"], re.S)
    cases = json.loads(data)["presets"]
    assert [c["name"] for c in cases] == [str(name) for name, _ in SITE_PRESETS]
    workload = WorkloadSpec(global_batch=1024)
    lesson = {  # section -> the lesson's call
        0: plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16), workload),
        1: plan(MODELS["llama3-8b"], CLUSTERS["pcie-24g-8"], WorkloadSpec(global_batch=64, seq_len=2048)),
        2: what_if("llama3-70b", "h100-8", 16, workload, link_slowdown=8),
        3: what_if("llama3-70b", "h100-8", 16, replace(workload, global_batch=256, seq_len=32768)),
        4: what_if("llama3-70b", "h100-8", 16, workload, moe=True),
        5: plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(8), WorkloadSpec(global_batch=128, seq_len=8192)),
        6: what_if("llama3-70b", "h100-8", 1, replace(workload, lora_rank=32)),  # the LoRA section's trial
    }
    for index, result in lesson.items():
        text = html.unescape(cases[index]["message"])
        assert f"{result.space_size} compositions searched, {result.accepted_count} pass every gate" in text, index
        best = result.accepted(1)[0].label()
        assert best in text, (index, best)
    lora = dict(cases[6]["controls"])
    assert lora["weights trained"].endswith("32") and lora["nodes"] == "1"
    serving = dict(cases[7]["controls"])
    assert serving["workload"] == "serving" and serving["concurrent requests"] == "64"  # relabelled by the mode
    for case in cases:  # the notebook's verdict box: its level's class (the colours) and word
        (level,) = re.findall(r'<div class="coursekit-ok coursekit-(\w+)"', case["message"])
        assert case["message"].split("</b>")[0].endswith({"pass": "Pass: ", "fail": "Fail: "}[level])
    assert widget.message == start and widget.controls["mode"].value == "training"


def test_chinese_labels_are_chinese() -> None:
    """The zh workbench says 全局批大小 and 内核, as the lessons do, and the site's case names them so too."""
    from coursekit.widgets.workbench import SITE_PRESETS

    coursekit.set_language("zh")
    try:
        w = WorkbenchWidget()
        assert w.controls["global_batch"].description == "全局批大小（序列数）"
        legend = [t.get_text() for t in w._breakdown.legend.get_texts()]
        assert "等待主机发射内核" in legend and not any("kernel" in t for t in legend)
        assert all("global batch" not in name.zh for name, _ in SITE_PRESETS)
        w.controls["mode"].value = "serving"
        assert "副本数 × TP × PP" in w.message and "replicas ×" not in w.message
    finally:
        coursekit.set_language("en")


def _extent(artist: Any, renderer: Any) -> Any:
    return artist.get_window_extent(renderer)


def test_legends_sit_below_the_charts_and_inside_the_figure() -> None:
    """No legend covers a bar: each lies below its axes (and its axis label), within the figure."""
    coursekit.set_language("en")
    w = WorkbenchWidget()
    w.controls["moe"].value = True  # the MoE case, whose #5 bar the legend used to hide
    renderer = w.figure.canvas.get_renderer()
    figure_box = w.figure.bbox
    for legend, ax in ((w._funnel.legend, w.funnel_ax), (w._breakdown.legend, w.breakdown_ax)):
        box, axes_box = _extent(legend, renderer), _extent(ax, renderer)
        assert box.y1 <= ax.xaxis.label.get_window_extent(renderer).y0 < axes_box.y0
        assert figure_box.x0 <= box.x0 and box.x1 <= figure_box.x1 and box.y0 >= figure_box.y0


def test_serving_charts_are_labelled_inside_the_figure() -> None:
    """Serving mode (its axes hidden on the first render): the funnel's and the curve's axis labels are drawn in
    the figure, clear of the tick labels, also once the tick labels widen (gpt2-small on B200: 100000)."""
    coursekit.set_language("en")
    w = WorkbenchWidget()
    w.controls["mode"].value = "serving"
    for model, cluster in (("llama3-70b", "h100-8"), ("gpt2-small", "b200-8")):
        with w.hold_updates():
            w.controls["model"].value = model
            w.controls["cluster"].value = cluster
        assert w.status == "ok"
        renderer = w.figure.canvas.get_renderer()
        figure_box = w.figure.bbox
        labels = {
            "funnel x": w.serving_funnel_ax.xaxis.label,
            "curve x": w.serving_curve_ax.xaxis.label,
            "curve y": w.serving_curve_ax.yaxis.label,
        }
        assert labels["funnel x"].get_text() == "layouts" and "TPOT" in labels["curve x"].get_text()
        assert labels["curve y"].get_text() == "tokens/s per GPU"
        for name, text in labels.items():
            box = text.get_window_extent(renderer)
            assert figure_box.x0 <= box.x0 and box.x1 <= figure_box.x1, (model, name)
            assert figure_box.y0 <= box.y0 and box.y1 <= figure_box.y1, (model, name)
        ticks = [t.get_window_extent(renderer) for t in w.serving_curve_ax.get_yticklabels() if t.get_text()]
        y_label = labels["curve y"].get_window_extent(renderer)
        assert ticks and all(y_label.x1 <= tick.x0 for tick in ticks), model


def test_serving_times_keep_their_digits() -> None:
    """gpt2-small's TTFT bound is well under a millisecond: the table says so (0.215), not 0."""
    import re

    coursekit.set_language("en")
    w = WorkbenchWidget()
    with w.hold_updates():
        w.controls["mode"].value = "serving"
        w.controls["model"].value = "gpt2-small"
    best = w.result.accepted[0]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", w.message.split("</tr>", 2)[1])
    ttft, tpot = best.estimate.time_to_first_token_s * 1e3, best.estimate.time_per_output_token_s * 1e3
    assert cells[1:3] == [significant(ttft, grouping=True), significant(tpot, grouping=True)]  # after memory
    assert float(cells[1]) > 0 and float(cells[2]) > 0 and abs(float(cells[1]) / ttft - 1) < 0.01
