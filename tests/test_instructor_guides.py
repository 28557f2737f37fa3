"""The instructor guides quote the numbers coursekit computes, and both languages cover the same lessons."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from coursekit.capacity import activation_memory, build_resource_ledger, training_state_memory
from coursekit.communication import tp_traffic, traffic_time
from coursekit.exercises import get_exercise
from coursekit.gates import check_tp_degree
from coursekit.hardware import link_preset
from coursekit.i18n import Text
from coursekit.lessons import LESSONS
from coursekit.matrix import (
    CASE_LAYER_EXCEEDS_DEVICE,
    CASE_STATE_EXCEEDS_DEVICE,
    combination_memory_gib,
    evaluate_paper_case,
    fsdp_gather_peak_gib,
)
from coursekit.pipeline import bubble_fraction, bubble_overhead, simulate_schedule
from coursekit.scaling import diagnose_efficiency, load_imbalance_s, scaling_curve, step_timeline
from coursekit.units import GB_BYTES, GIB_BYTES, bytes_to_gib
from coursekit.widgets import significant
from coursekit.widgets.pipeline import PipelineWidget
from coursekit.widgets.scaling import ScalingWidget
from coursekit.widgets.serving import ServingWidget
from coursekit.widgets.workbench import WorkbenchWidget

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ROOT / "docs" / "instructor"
LANGS = ("zh", "en")


def _guide(lang: str, stem: str) -> str:
    return (GUIDES / lang / f"{stem}.md").read_text(encoding="utf-8")


def _lesson5_numbers() -> list[str]:
    example = replace(
        CASE_STATE_EXCEEDS_DEVICE, key="example", title=Text(zh="示例", en="example"), training_state_gib=64.0,
        activation_gib=6.0, largest_layer_gib=0.5,
    )  # fmt: skip
    numbers = [f"**{build_resource_ledger(64.0, 6.0, 2.0, 24.0).required_gib:.1f} GiB**"]
    params = 64.0 * GIB_BYTES / 16
    shards = [training_state_memory(params, dp=p, zero_stage=3).total_gib for p in (1, 8, 32)]
    numbers.append("**" + " / ".join(f"{s:.2f}" for s in shards) + " GiB**")
    numbers.append(f"**{fsdp_gather_peak_gib(0.5):.2f} GiB**")
    for topology in ("hierarchical", "unspecified"):  # FSDP over 8 (inside a node), then over 32
        fsdp = evaluate_paper_case(example, topology).verdict_of("FSDP")
        numbers.append(f"**{fsdp.memory_per_rank_gib:.2f} GiB**")
    numbers.append(f"**{evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE).verdict_of('DP').memory_per_rank_gib:.1f} GiB**")
    case3 = CASE_LAYER_EXCEEDS_DEVICE
    numbers += [
        f"**{case3.largest_layer_gib:.1f} GiB**",
        f"**{combination_memory_gib(case3, fsdp=32):.1f} GiB**",
        f"**{combination_memory_gib(case3, tp=8):.1f} GiB**",
        f"**{combination_memory_gib(case3, tp=8, fsdp=4):.2f} GiB**",
        f"**{evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE, 'hierarchical').verdict_of('FSDP').memory_per_rank_gib:.1f} GiB**",  # noqa: E501
    ]
    states = [get_exercise(f"matrix.case{n}_state_gib").expected_value() for n in (1, 2, 3)]
    numbers.append("**" + " / ".join(f"{s:.1f}" for s in states) + " GiB**")
    numbers.append(" / ".join(f"{s * GIB_BYTES / GB_BYTES:.4g}" for s in states))  # the GB slip
    numbers.append(f"`{get_exercise('matrix.max_dp').expected_value()}`")
    full = training_state_memory(7e9).total_gib
    peft = training_state_memory(7e9, param_bytes=2, grad_bytes=0, optimizer_bytes=0).total_gib
    peft += training_state_memory(40e6).total_gib
    numbers += [f"**{full:.1f} GiB**", f"**{peft:.1f} GiB**"]
    return numbers


def _lesson6_numbers() -> list[str]:
    numbers: list[str] = []
    for m in (4, 16):
        numbers += [f"**{bubble_fraction(4, m):.1%}**", f"**{bubble_overhead(4, m):.1%}**"]
    for part in ("compute_ms", "bubble_ms", "exposed_ms", "step_ms"):
        numbers.append(f"**{get_exercise(f'pipeline.timeline_{part}').expected_value():.0f} ms**")
    jobs = [
        step_timeline(0.40, 0.12, overlap_fraction=0.25),
        step_timeline(0.40, 0.12, overlap_fraction=1.0, input_wait_s=0.09),
        step_timeline(0.40, 0.12, overlap_fraction=1.0, load_imbalance_s=load_imbalance_s([0.40, 0.40, 0.40, 0.52])),
    ]
    values = {f"{diagnose_efficiency(t).compute_fraction:.2f}" for t in jobs}
    assert len(values) == 1
    numbers.append(f"**{values.pop()}**")
    numbers += [
        f"**{get_exercise('pipeline.bubble_p4_m16').expected_value():.3f}**",
        f"**{get_exercise('pipeline.efficiency').expected_value():.3f}**",
    ]
    state = training_state_memory(760e6)
    numbers += [f"**{state.params_gib:.2f} GiB**", f"**{state.total_gib:.2f} GiB**"]
    for seq_len in (2048, 8192):
        act = bytes_to_gib(activation_memory(seq_len=seq_len, micro_batch=1, hidden=1536, heads=16, layers=24))
        numbers.append(f"**{build_resource_ledger(state.total_gib, act, 2.0, 24.0).required_gib:.2f} GiB**")
    times = []
    for tp in (2, 4, 8, 16):
        link = link_preset("intra_node" if check_tp_degree(tp, 32, 8) is None else "cross_node")
        entries = tp_traffic(seq_len=2048, micro_batch=1, hidden=4096, layers=32, tp=tp)
        times.append(traffic_time(entries, bandwidth_bytes_per_s=link.bandwidth_bytes_per_s, latency_s=link.latency_s))
    numbers.append(" → ".join(f"{t.total_s * 1e3:.1f}" for t in times[:3]) + " ms")
    numbers.append(f"**{times[3].total_s * 1e3:.1f} ms**")
    unbalanced = simulate_schedule(4, 8, stage_forward_s=[1.0, 1.0, 1.5, 1.0], stage_backward_s=[2.0, 2.0, 3.0, 2.0])
    numbers += [f"**{bubble_fraction(4, 8):.1%}**", f"**{unbalanced.idle_fraction:.1%}**"]
    last = scaling_curve(
        [1, 8, 64], single_device_step_s=1.0, gradient_bytes=14e9,
        bandwidth_bytes_per_s=link_preset("cross_node").bandwidth_bytes_per_s, overlap_fraction=0.5,
    ).points[-1]  # fmt: skip
    numbers += [f"**{last.speedup:.1f}×**", f"**{last.efficiency:.2f}**"]
    return numbers


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    ("stem", "numbers"), [("05_selection_matrix", _lesson5_numbers), ("06_pipeline_scaling", _lesson6_numbers)]
)
def test_guide_quotes_coursekit_numbers(lang: str, stem: str, numbers) -> None:  # type: ignore[no-untyped-def]
    text = _guide(lang, stem)
    missing = [number for number in numbers() if number not in text]
    assert not missing, f"{lang}/{stem}.md does not quote: {missing}"


# --------------------------------------------------------------------------- live demos, step by step

# A live demo is followed literally, in order, on one widget: each step starts where the previous one left the
# controls. These functions do the same and return what the screen shows at each step, formatted as the guide
# quotes it (in the order the guide quotes it).


def _set(widget, **values) -> None:  # type: ignore[no-untyped-def]
    """Move the controls one at a time, in the order given, as a presenter does."""
    for name, value in values.items():
        widget.controls[name].value = value
        assert widget.controls[name].value == value


def _pipeline_demo() -> list[str]:
    w = PipelineWidget()
    shown = [f"**{w.result.simulated_fraction:.1%}**", f"{w.result.schedule.makespan_s:.1f} s"]
    in_flight_1f1b = str(w.result.schedule.peak_inflight_per_stage)
    _set(w, microbatches=16)  # step 1
    shown.append(f"**{w.result.simulated_fraction:.1%}**")
    _set(w, microbatches=2)
    shown.append(f"**{w.result.simulated_fraction:.1%}**")
    _set(w, microbatches=8, schedule="gpipe")  # step 2: back to m = 8, then GPipe
    assert f"{w.result.simulated_fraction:.1%}" == shown[0].strip("*")  # the same bubble
    shown += [str(w.result.schedule.peak_inflight_per_stage), in_flight_1f1b]
    _set(w, schedule="interleaved")  # step 3: v set to 2 by the widget
    assert w.controls["virtual_stages"].value == 2
    shown.append(f"**{w.result.simulated_fraction:.1%}**")
    _set(w, microbatches=6)
    assert w.status == "invalid" and "4, 8, 12, 16" in w.message  # the sliders to move, not a traceback
    _set(w, schedule="1f1b")
    assert w.status == "ok" and w.controls["virtual_stages"].value == 1 and w.controls["virtual_stages"].disabled
    _set(w, microbatches=8, slow_stage=2, slow_factor=1.5)  # step 4
    shown += [f"**{w.result.simulated_fraction:.1%}**", f"{w.result.formula_fraction:.1%}"]
    _set(w, slow_factor=2.0)
    shown.append(f"**{w.result.simulated_fraction:.1%}**")
    _set(w, stages=8, slow_stage=6)  # step 5
    shown += [f"**{w.result.simulated_fraction:.1%}**", f"{w.result.formula_fraction:.1%}"]
    _set(w, stages=4)  # device 6 is gone: the menu offers none and devices 0 to 3, and "none" is chosen
    assert w.status == "ok" and w.controls["slow_stage"].value == "none" and w.result.slow_stage is None
    assert [value for _, value in w.controls["slow_stage"].options] == ["none", 0, 1, 2, 3]
    shown.append(f"**{w.result.simulated_fraction:.1%}**")
    return shown


def _scaling_demo() -> list[str]:
    w = ScalingWidget(gradient_gb=14.0)  # the guide's defaults: 50 GB/s, 14 GB, 500 ms, no overlap
    assert (w.controls["bandwidth_gb_s"].value, w.controls["compute_ms"].value) == (50.0, 500.0)
    shown = [f"**{w.result.last_efficiency:.2f}**"]
    default = shown[0].strip("*")
    assert w.result.diagnosis.dominant == "communication"
    for overlap in (0.5, 0.8):  # step 1
        _set(w, overlap=overlap)
        shown.append(f"**{w.result.last_efficiency:.2f}**")
    _set(w, overlap=0.0, bandwidth_gb_s=450.0)  # step 2
    shown.append(f"**{w.result.last_efficiency:.2f}**")
    _set(w, compute_ms=100.0)  # step 3, at 450 GB/s still
    shown.append(f"**{w.result.last_efficiency:.2f}**")
    _set(w, bandwidth_gb_s=50.0)
    shown += [f"**{w.result.last_efficiency:.2f}**", default]
    return shown


def _workbench_demo() -> list[str]:
    w = WorkbenchWidget()
    fastest = w.top(w.result)[0]
    shown = [f"**{significant(fastest.step_s)} s**"]  # step 1, as the widget's table writes a step
    _set(w, link_slowdown=8)  # step 2: a new fastest, barely slower
    slow = w.top(w.result)[0]
    assert slow.label() != fastest.label() and slow.step_s < 1.1 * fastest.step_s
    _set(w, link_slowdown=1, seq_len=32768, global_batch=256)  # step 3, section 5's longer context
    long_context = w.top(w.result)[0]
    assert long_context.degrees()["cp"] == 4
    shown.append(f"**{significant(long_context.step_s)} s**")
    _set(w, global_batch=1024)  # only the sequence changed: four times the tokens per step
    shown.append(f"**{significant(w.top(w.result)[0].step_s)} s**")
    _set(w, seq_len=8192, moe=True)  # step 4
    assert w.status == "ok" and set(w.result.space_dimensions["ep"]) == {1, 2, 4, 8}
    _set(w, moe=False, nodes=1)  # step 5: every weight trains, nothing fits, the fit gate takes the last ones
    last = [step for step in w.result.funnel if step.removed][-1]
    assert w.result.accepted_count == 0 and last.code == "memory" and last.remaining == 0
    shown.append(f"**{last.removed}**")
    _set(w, lora=32)  # then LoRA, rank 32
    assert w.verdict == "pass" and "linear_qkv" in w.message
    shown += [f"**{w.result.accepted_count}**", f"**{significant(w.top(w.result)[0].step_s)} s**"]
    return shown


def _serving_demo() -> list[str]:
    """Step 5 of lesson 10's demo (steps 1 to 4 are checked by their own tests): the defaults, then FP8, then A100."""
    w = ServingWidget()

    def times() -> list[str]:
        est = w.result.estimate
        return [f"**{est.time_to_first_token_s * 1e3:.0f} ms**", f"**{est.time_per_output_token_s * 1e3:.1f} ms**"]

    bf16, weights = times(), w.result.ledger.weights_gib
    _set(w, precision="fp8")
    fp8 = times()
    shown = [bf16[0], fp8[0], bf16[1], fp8[1], f"**{weights:.1f}**", f"**{w.result.ledger.weights_gib:.1f}**"]
    cluster = w.result.cluster
    shown += [f"{cluster.peak_flops_fp8 / 1e12:.0f} TFLOP/s", f"{cluster.peak_flops / 1e12:.0f} TFLOP/s"]
    _set(w, gpu="a100-8")
    assert w.status == "invalid" and "FP8" in w.message and "a100-8" in w.message
    return shown


def _in_order(text: str, quoted: list[str]) -> list[str]:
    """The items of ``quoted`` not found in ``text`` after the one before them."""
    missing, at = [], 0
    for item in quoted:
        found = text.find(item, at)
        if found < 0:
            missing.append(item)
        else:
            at = found + len(item)
    return missing


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    ("stem", "heading", "demo"),
    [
        ("06_pipeline_scaling", "PipelineWidget", _pipeline_demo),
        ("06_pipeline_scaling", "ScalingWidget", _scaling_demo),
        ("09_workbench", "WorkbenchWidget", _workbench_demo),
        ("10_serving", "ServingWidget", _serving_demo),
    ],
)
def test_live_demo_steps_done_in_order_show_what_the_guide_says(lang: str, stem: str, heading: str, demo) -> None:  # type: ignore[no-untyped-def]
    """Each live demo, done step by step in the guide's order on one widget, shows the numbers the guide quotes."""
    section = _section(_guide(lang, stem), heading)  # the "## " heading of the demo names the widget
    assert section.strip(), f"{lang}/{stem}.md: no live demo of {heading}"
    missing = _in_order(section, demo())
    assert not missing, f"{lang}/{stem}.md, live demo of {heading}: not quoted in order: {missing}"


# Exercise answers quoted by the pages of lessons 0, 8 and 9, formatted as the pages show them.
ANSWERS = {
    "00_index": [("intro.device_gb", "**{:.2f}**")],
    "08_lab": [
        ("lab.busbw_gib_s", "**{:.2f}**"),
        ("lab.crossover_bytes", "**{:.0f}**"),
        ("lab.fsdp_padding_bytes", "**{:.0f}**"),
        ("lab.tp_replicated_bytes", "**{:.0f}**"),
        ("lab.most_param_bytes", '`"{}"`'),
        ("lab.slow_rank", "**{}**"),
        ("lab.exposed_share", "**{:.3f}**"),
        ("lab.input_delay_run", '`"{}"`'),
        ("lab.straggler_run", '`"{}"`'),
        ("lab.efficiency_4", "**{:.3f}**"),
    ],
    "09_workbench": [
        ("plan.memory_removed", "**{}**"),
        ("plan.cp_cost", "**{:.3f}**"),
        ("plan.moe_active", "**{:.1f}**"),
        ("plan.slow_link", "**{:.3f}**"),
    ],
}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("stem", sorted(ANSWERS))
def test_guide_quotes_the_exercise_answers(lang: str, stem: str) -> None:
    text = _guide(lang, stem)
    for exercise_id, form in ANSWERS[stem]:
        try:
            expected = get_exercise(exercise_id).expected_value()
        except ImportError:  # lesson 8's answers come from PyTorch measurements of the lab module
            pytest.skip("the lab extra is not installed")
        assert f"`{exercise_id}`" in text
        assert form.format(expected) in text, f"{lang}/{stem}.md: {exercise_id} should read {form.format(expected)}"


def test_both_languages_cover_the_same_lessons() -> None:
    pages = {lang: sorted(p.name for p in (GUIDES / lang).glob("[0-9][0-9]_*.md")) for lang in LANGS}
    assert pages["zh"] == pages["en"] == sorted(f"{entry.stem}.md" for entry in LESSONS)
    for lang in LANGS:
        contents = (GUIDES / lang / "README.md").read_text(encoding="utf-8")
        linked = re.findall(r"\]\(([0-9][0-9]_[a-z_]+\.md)\)", contents)
        assert sorted(linked) == pages[lang], f"{lang}/README.md must link every page"
        assert "90" in contents and ("90-minute" in contents or "90 分钟" in contents)


@pytest.mark.parametrize("lang", LANGS)
def test_guides_use_no_internal_names(lang: str) -> None:
    for path in sorted((GUIDES / lang).glob("*.md")):
        prose = re.sub(r"`[^`]*`", "", path.read_text(encoding="utf-8"))  # code (exercise ids) is not prose
        assert not re.search(r"\bS18\b|seed|种子|\bQ[1-4]\b", prose), f"{lang}/{path.name}"


def test_relative_links_in_the_docs_resolve() -> None:
    """Every relative Markdown link of docs/ and the README points at a file of the repository."""
    root = Path(__file__).resolve().parents[1]
    broken = []
    for page in [root / "README.md", *sorted((root / "docs").rglob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            path = target.split("#", 1)[0]
            if not path or re.match(r"^[a-z]+:", path):
                continue
            if not (page.parent / path).exists():
                broken.append(f"{page.relative_to(root)} -> {target}")
    assert not broken, broken


# --------------------------------------------------------------------------- each page in step with its lesson

LESSON_SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
_CHECK = re.compile(r'check\(\s*"([a-z0-9_.]+)"')
_SELF_CHECK = re.compile(r'# %% \[markdown\] lang="en"\n# #+ [^\n]*Self-check[^\n]*\n(.*?)(?=\n# %%)', re.S)


def lesson_exercises(source: str) -> list[str]:
    r"""The exercise ids a lesson asks the learner to answer (its ``check("id", answer)`` calls).

    >>> lesson_exercises('answer = ...\ncheck("serve.littles_law", answer)\nverify("serve.x", answer)')
    ['serve.littles_law']
    """
    return sorted(set(_CHECK.findall(source)))


def lesson_self_checks(source: str) -> int:
    r"""How many numbered self-check questions the lesson's English self-check cell asks.

    >>> lesson_self_checks('# %% [markdown] lang="en"\n# ### Self-check questions\n#\n# 1. Why?\n# 2. How?\n\n# %%')
    2
    """
    found = _SELF_CHECK.search(source)
    assert found, "no self-check cell"
    return len(re.findall(r"^# (\d+)\. ", found.group(1), re.M))


def _section(page: str, heading: str) -> str:
    """The text under the first ``## `` heading matching ``heading`` (a regex), up to the next ``## ``."""
    found = re.search(rf"^## [^\n]*(?:{heading})[^\n]*\n(.*?)(?=^## |\Z)", page, re.S | re.M | re.I)
    return found.group(1) if found else ""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("source", LESSON_SOURCES, ids=lambda p: p.stem)
def test_page_answers_every_exercise_and_self_check(lang: str, source: Path) -> None:
    """Each exercise of the lesson is on its page by id, and each self-check question has a numbered answer."""
    text = source.read_text(encoding="utf-8")
    page = _guide(lang, source.stem)
    missing = [f"`{exercise}`" for exercise in lesson_exercises(text) if f"`{exercise}`" not in page]
    assert not missing, f"{lang}/{source.stem}.md has no answer for {missing}"
    answers = _section(page, "self-check|自检")
    numbered = sorted({int(n) for n in re.findall(r"^(\d+)\. ", answers, re.M)})
    assert numbered == list(range(1, lesson_self_checks(text) + 1)), f"{lang}/{source.stem}.md self-check answers"
    if source.stem != "00_index":
        assert _section(page, "misconception|误解|误区").strip(), f"{lang}/{source.stem}.md: no misconceptions section"


def _serving_numbers() -> list[str]:
    from coursekit.presets import CLUSTERS, MODELS
    from coursekit.serving import serving_estimate

    h100, llama = CLUSTERS["h100-8"], MODELS["llama3-70b"]
    tp8 = serving_estimate(llama, h100, tp=8, batch=1, prompt_tokens=512, output_tokens=128)
    reads_ms = (tp8.time_per_output_token_s - tp8.decode_comm_s) * 1e3
    tpot = {b: serving_estimate(llama, h100, tp=8, batch=b, prompt_tokens=2048, output_tokens=256) for b in (16, 64)}
    return [
        f"**{tp8.decode_comm_s * 1e3:.2f} ms**",
        f"**{reads_ms:.2f} ms**",
        f"**{round(100 * tp8.decode_comm_s / tp8.time_per_output_token_s)} %**",
        f"**{tpot[64].time_per_output_token_s * 1e3:.1f} ms**",
        f"**{tpot[16].time_per_output_token_s * 1e3:.1f} ms**",
        f"**{MODELS['mixtral-8x7b'].num_params * 2 / 1e9:.0f}** GB",
    ]


@pytest.mark.parametrize(("lang", "template"), [("en", "{:.1f} GiB of weights"), ("zh", "{:.1f} GiB 的权重")])
def test_serving_guide_quotes_the_tp1_weights_in_gib(lang: str, template: str) -> None:
    """Live-demo step 2: Llama 3 70B's weights at TP = 1, in the ledger's unit (GiB) against the 80 GiB device:
    70,553,706,496 parameters x 2 bytes / 2**30 = 131.4 GiB (141 GB in decimal units)."""
    from coursekit.presets import MODELS

    weights_gib = MODELS["llama3-70b"].num_params * 2 / 2**30
    assert round(weights_gib, 1) == 131.4
    text = _guide(lang, "10_serving")
    assert template.format(weights_gib) in text and "80 GiB" in text and "80 GB" not in text


def _zero_collectives() -> list[str]:
    from coursekit.communication import strategy_traffic
    from coursekit.shapes import model_shape

    shape = model_shape("megatron-7.5b")
    counts = []
    for stage, extra in ((2, {}), (3, {"units": shape.layers})):
        entries = strategy_traffic("zero", num_params=shape.num_params, dp=8, stage=stage, micro_batches=8, **extra)
        counts.append(f"**{sum(entry.calls_per_step for entry in entries)}**")
    return counts


@pytest.mark.parametrize(
    ("stem", "numbers", "lang"),
    [
        ("10_serving", _serving_numbers, "en"),
        ("02_communication", _zero_collectives, "en"),
        ("02_communication", _zero_collectives, "zh"),
    ],
)
def test_corrected_numbers_are_coursekits(stem: str, numbers, lang: str) -> None:  # type: ignore[no-untyped-def]
    text = _guide(lang, stem)
    missing = [number for number in numbers() if number not in text]
    assert not missing, f"{lang}/{stem}.md does not quote: {missing}"


@pytest.mark.parametrize("lang", LANGS)
def test_the_90_minute_path_includes_serving(lang: str) -> None:
    path = _section((GUIDES / lang / "README.md").read_text(encoding="utf-8"), "90")
    ends_with_serving = re.search(r"^\| 78.90 \| (10:|第 10 课)", path, re.M)
    assert ends_with_serving, f"{lang}/README.md: the short path ends without serving"


@pytest.mark.parametrize("lang", LANGS)
def test_each_guides_timing_table_adds_up_to_the_lesson_time_it_states(lang: str) -> None:
    """An instructor plans a class from the timing table: its minutes add up to the time the guide's header states
    (which the lesson-time estimate writes), so no part of the lesson goes unplanned."""
    for path in sorted((GUIDES / lang).glob("[0-9][0-9]_*.md")):
        text = path.read_text(encoding="utf-8")
        stated = re.search(r"\*\*(?:Time|时间)：?:?\*\*：?\s*(?:about|约)\s*(\d+)", text)
        assert stated, f"{lang}/{path.name}: no time in the header"
        lines = text.splitlines()
        header = next(
            i for i, line in enumerate(lines) if line.startswith("| ") and ("Minutes" in line or "分钟" in line)
        )
        minutes = []
        for line in lines[header + 2 :]:
            if not line.startswith("| "):
                break
            minutes.append(int(line.split(" | ")[1]))
        assert minutes and sum(minutes) == int(stated.group(1)), (f"{lang}/{path.name}", minutes, stated.group(1))
