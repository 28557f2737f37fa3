"""Regressions from the twenty-fourth adversarial fuzzing pass: the public surface added since pass 23
(``coursekit.units``' duration, seconds and share texts and ``Seconds``, ``ModelSpec.qkv_biases`` and
``ModelSpec.from_config``'s qkv-bias keys and integer-valued floats, the node menu's notes, the input help's IPython
extension, ``StepTimeline``, the cheat-sheet tool) fed ints, floats, bools, numpy scalars, 0-d and 1-d arrays, NaN,
infinities, -0.0, 1e308, 5e-324, strings, None, Fraction and Decimal; metamorphic properties of the planner on presets
and seeded random custom clusters; and two leftovers of pass 23.

Found and fixed:

1. ``coursekit.pipeline.ScheduleEvent`` and ``Schedule`` took any field: ``stage='0'``, a phase "X", an event ending
   before it starts, a schedule of events on a device it does not have. Both now check their fields at the public
   constructor, naming the field, the value and the rule in the learner's language; the simulator builds its events
   and its result through the unchecked ``_of_checked`` (as ``StepTimeline._of_checked`` does), and this file checks
   that it equals the checked constructor on every event and field of valid simulated schedules.
2. ``plan --gpu-memory-gib 1e-320``, ``plan --mode serving --request-rate 1e-320`` and ``--ttft-ms`` / ``--tpot-ms
   1e-320`` were accepted and echoed as "9.99989e-321" / "9.9e-321 ms". They are refused with a stated floor and its
   reason: at least 0.001 GiB of memory per device (about 1 MiB, thousands of times below any GPU's;
   ``coursekit.specs.MIN_DEVICE_MEMORY_GIB``, held by ``ClusterSpec`` too), at least 0.001 requests per second (one
   every 1000 s; Little's law keeps far less than one request in flight below it; ``MIN_REQUEST_RATE_PER_S``, held
   by ``ServingWorkload`` too) and objectives of at least 1 µs (one kernel launch takes a few µs; ``MIN_SLO_S``).
3. ``coursekit.units.duration_text`` and ``seconds_text`` ("never a 12-digit number") wrote 1e308 s as 304 digits of
   days and 5e-324 s as 324 characters of nanoseconds; outside ``DURATION_PLAIN_RANGE`` (a thousandth of a unit to
   10^6 of it) they now write three significant figures in e-notation.
4. ``coursekit.units.share_text`` ("never 0% or 100% for a share strictly between") wrote 5e-324 as "0.000%" once its
   three decimals ran out; it now writes a share near 0 in e-notation and one near 1 rounded down (the one rule of
   ``coursekit.i18n.nonzero``, merged from leftovers 27; first written here as "<0.001%").
5. ``coursekit.units.Seconds`` took NaN (written "0.0 ms"), a negative time ("0.0 ms"), a string ("0.1" read as a
   number) and an infinity (``OverflowError`` when formatted). It now takes a finite number of seconds >= 0, refused
   by name in the learner's language; the planner's tie lines build theirs through ``Seconds._of_checked``.
6. ``coursekit.exercises.input_help.input_hint`` raised ``AttributeError`` / ``TypeError`` for a ``SyntaxError`` whose
   ``text`` is not a str (bytes or an int, in an error built by hand): only a str is read now.
7. ``tools/cheatsheet_pdf.py`` (``make cheatsheet``) given an output path in a folder that does not exist printed a
   Python traceback after Chromium had printed the sheet; it now says which folder, in the course's language, before
   starting Chromium, and exits with status 1.
8. ``coursekit.exercises.input_help.chinese_numeral_value`` read "零零" as 0, "十零" as 10, "一千零" as 1000 and
   "一千零零一" as 1001, none of them a Chinese numeral: 零 stands only for a place skipped between a unit and a
   nonzero digit (一千零二十四, 一百零五), so these are now None (no line of help shows a number for them).

Examined without a defect found: the planner's metamorphic properties, by hand on 210 training plans of 30 seeded
random custom clusters (8 models, dense and MoE, bf16 and fp8; 104,215 comparisons, with HBM bandwidth x2 and latencies
/2 too) and 40 serving plans (480 comparisons), and kept here on 6 cases (2 presets, an MoE preset and 3 seeded random
custom clusters) of 6 plans each (36 plans): doubling the intra-node or the inter-node bandwidth or every
FLOP/s peak never made a sampled layout's estimated step slower, doubling the memory never rejected an accepted layout,
doubling the global batch at a fixed micro-batch never lowered the pipeline's micro-batch count (gradient accumulation),
each shown step line's parts add up to its step as printed, and ``explain(label)`` gives the table row's step and
verdict. ``ModelSpec.from_config`` with each of its qkv-bias, bias, tie and integer keys fed the values above: a named
refusal in Chinese or the value read as the key means it (null as the key's default, 32.0 as 32).
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from coursekit import i18n
from coursekit.__main__ import main
from coursekit.exercises.input_help import chinese_numeral_value, input_hint
from coursekit.pipeline import Schedule, ScheduleEvent, simulate_schedule
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import ServingWorkload
from coursekit.specs import MIN_DEVICE_MEMORY_GIB, MIN_REQUEST_RATE_PER_S, MIN_SLO_S, ClusterSpec
from coursekit.units import Seconds, duration_text, seconds_text, share_text

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(params=["zh", "en"])
def lang(request: pytest.FixtureRequest) -> Any:
    before = i18n.get_language()
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language(before)


def _refusal(error: BaseException, lang: str, *needles: str) -> None:
    text = str(error)
    assert bool(CJK.search(text)) == (lang == "zh"), text
    for needle in needles:
        assert needle in text, (needle, text)


# 1. ScheduleEvent and Schedule are checked at the public constructor ----------------------------------------------


@pytest.mark.parametrize(
    ("fields", "error", "needles"),
    [
        ({"stage": "0"}, TypeError, ("stage", "'0'")),
        ({"stage": -1}, ValueError, ("stage", "-1", ">= 0")),
        ({"stage": True}, TypeError, ("stage", "True")),
        ({"microbatch": 1.5}, TypeError, ("microbatch", "1.5")),
        ({"phase": "X"}, ValueError, ("phase", "'X'", "'F'", "'B'")),
        ({"start_s": float("nan")}, ValueError, ("start_s", "nan")),
        ({"start_s": -1.0}, ValueError, ("start_s", "-1.0", ">= 0")),
        ({"start_s": 2.0, "end_s": 1.0}, ValueError, ("end_s", "1.0", "start_s", "2.0")),
        ({"end_s": "1"}, TypeError, ("end_s", "'1'")),
        ({"chunk": None}, TypeError, ("chunk", "None")),
    ],
)
def test_a_schedule_event_built_by_hand_is_checked(
    lang: str, fields: dict[str, Any], error: type[Exception], needles: tuple[str, ...]
) -> None:
    valid: dict[str, Any] = {"stage": 0, "microbatch": 0, "phase": "F", "start_s": 0.0, "end_s": 1.0, "chunk": 0}
    with pytest.raises(error) as refused:
        ScheduleEvent(**{**valid, **fields})
    _refusal(refused.value, lang, *needles)


def _fields(schedule: Schedule) -> dict[str, Any]:
    return {field.name: getattr(schedule, field.name) for field in dataclasses.fields(Schedule)}


@pytest.mark.parametrize(
    ("change", "error", "needles"),
    [
        ({"schedule": "zb-v"}, ValueError, ("schedule", "'zb-v'")),
        ({"stages": "2"}, TypeError, ("stages", "'2'")),
        ({"events": None}, TypeError, ("events", "None")),
        ({"events": ("F0",)}, TypeError, ("events[0]", "'F0'", "ScheduleEvent")),
        ({"events": (ScheduleEvent(5, 0, "F", 0.0, 1.0),)}, ValueError, ("events[0].stage", "5", "<= 1")),
        ({"events": (ScheduleEvent(0, 0, "F", 0.0, 99.0),)}, ValueError, ("events[0].end_s", "99.0")),
        ({"busy_s_per_stage": (1.0,)}, ValueError, ("busy_s_per_stage", "1")),
        ({"busy_s_per_stage": (1.0, -1.0)}, ValueError, ("busy_s_per_stage[1]", "-1.0")),
        ({"idle_fraction": 1.5}, ValueError, ("idle_fraction", "1.5", "<= 1")),
        ({"peak_inflight_per_stage": (2, 0.5)}, TypeError, ("peak_inflight_per_stage[1]", "0.5")),
        ({"makespan_s": float("inf")}, ValueError, ("makespan_s", "inf")),
    ],
)
def test_a_schedule_built_by_hand_is_checked(
    lang: str, change: dict[str, Any], error: type[Exception], needles: tuple[str, ...]
) -> None:
    valid = _fields(simulate_schedule(2, 2, schedule="gpipe"))  # makespan (m + p - 1)(1 + 2) = 9 s
    with pytest.raises(error) as refused:
        Schedule(**{**valid, **change})
    _refusal(refused.value, lang, *needles)


@pytest.mark.parametrize(
    ("p", "m", "name", "v", "p2p_s"),
    [(2, 2, "gpipe", 1, 0.0), (4, 8, "1f1b", 1, 0.1), (4, 8, "interleaved", 2, 0.0), (3, 6, "interleaved", 3, 0.25)],
)
def test_the_simulators_unchecked_path_equals_the_checked_constructors(
    p: int, m: int, name: str, v: int, p2p_s: float
) -> None:
    simulated = simulate_schedule(p, m, schedule=name, virtual_stages=v, p2p_s=p2p_s)
    for event in simulated.events:
        rebuilt = ScheduleEvent(
            stage=event.stage,
            microbatch=event.microbatch,
            phase=event.phase,
            start_s=event.start_s,
            end_s=event.end_s,
            chunk=event.chunk,
        )
        assert rebuilt == event
        assert [type(getattr(rebuilt, f.name)) for f in dataclasses.fields(ScheduleEvent)] == [
            type(getattr(event, f.name)) for f in dataclasses.fields(ScheduleEvent)
        ]
    checked = Schedule(**_fields(simulated))
    assert checked == simulated
    assert len(simulated.events) == 2 * p * m * v  # a forward and a backward per micro-batch and chunk


def test_a_schedule_built_from_lists_keeps_tuples() -> None:
    fields = _fields(simulate_schedule(2, 2, schedule="gpipe"))
    built = Schedule(
        **{
            **fields,
            "events": list(fields["events"]),
            "busy_s_per_stage": list(fields["busy_s_per_stage"]),
            "peak_inflight_per_stage": list(fields["peak_inflight_per_stage"]),
        }
    )
    assert built == simulate_schedule(2, 2, schedule="gpipe")


# 2. Floors of the device memory, the request rate and the objectives, stated and explained -------------------------

_CUSTOM = ["--peak-tflops", "312", "--hbm-gb-s", "2039", "--gpus-per-node", "8", "--intra-gb-s", "300"]
_CUSTOM += ["--inter-gb-s", "25", "--model", "gpt2-small", "--nodes", "1", "--global-batch", "8"]
_SERVING = ["plan", "--mode", "serving", "--model", "llama3-8b", "--cluster", "a100-8"]


@pytest.mark.parametrize(
    ("argv", "flag", "reason"),
    [
        (["plan", *_CUSTOM, "--gpu-memory-gib", "1e-320"], "--gpu-memory-gib", {"zh": "1 MiB", "en": "1 MiB"}),
        ([*_SERVING, "--request-rate", "1e-320"], "--request-rate", {"zh": "利特尔定律", "en": "Little's law"}),
        ([*_SERVING, "--concurrency", "4", "--ttft-ms", "1e-320"], "--ttft-ms", {"zh": "1 微秒", "en": "1 µs"}),
        ([*_SERVING, "--concurrency", "4", "--tpot-ms", "5e-324"], "--tpot-ms", {"zh": "1 微秒", "en": "1 µs"}),
    ],
)
def test_subnormal_flags_are_refused_with_the_floor_and_its_reason(
    argv: list[str], flag: str, reason: dict[str, str], lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--lang", lang, *argv])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert flag in err and ">= 0.001" in err and reason[lang] in err, err
    assert "e-32" not in err.replace(argv[-1], ""), err  # the value typed is named; nothing else echoes it
    assert bool(CJK.search(err)) == (lang == "zh"), err


def test_the_floors_are_the_stated_ones_and_values_at_them_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert MIN_DEVICE_MEMORY_GIB * 2**30 == pytest.approx(2**20, rel=0.08)  # 0.001 GiB is about 1 MiB (1.07 MB)
    assert 1 / MIN_REQUEST_RATE_PER_S == 1000.0 and MIN_SLO_S == 1e-6
    assert main(["--lang", "en", "plan", *_CUSTOM, "--gpu-memory-gib", "0.001"]) == 0  # accepted, none fits
    out = capsys.readouterr().out
    assert "9.99989e-321" not in out and "No candidate passes" in out


def test_the_library_holds_the_same_floors(lang: str) -> None:
    cluster = CLUSTERS["a100-8"]
    with pytest.raises(ValueError) as refused:
        dataclasses.replace(cluster, memory_per_device_gib=1e-320)
    _refusal(refused.value, lang, "memory_per_device_gib", "1e-320", ">= 0.001")
    assert dataclasses.replace(cluster, memory_per_device_gib=0.001).memory_per_device_gib == 0.001
    with pytest.raises(ValueError) as refused:
        ServingWorkload(prompt_tokens=16, output_tokens=16, request_rate_per_s=5e-324)
    _refusal(refused.value, lang, "request_rate_per_s", "5e-324", ">= 0.001")
    with pytest.raises(ValueError) as refused:
        ServingWorkload(prompt_tokens=16, output_tokens=16, concurrency=1, ttft_slo_s=1e-320)
    _refusal(refused.value, lang, "ttft_slo_s", "1e-320", ">= 1e-06")
    assert ClusterSpec is type(cluster)


# 3-5. coursekit.units at the ends of the float range ---------------------------------------------------------------


def test_durations_outside_the_plain_range_are_three_figures_in_e_notation(lang: str) -> None:
    days, hours = ("天", "小时") if lang == "zh" else ("days", "h")
    # 1e308 s / 86,400 s a day = 1.1574e303 days; 5e-324 s (the smallest subnormal, 4.94e-324) / 1e-9 = 4.94e-315 ns
    assert duration_text(1e308) == f"1.16e+303 {days}"
    assert duration_text(5e-324) == "4.94e-315 ns"
    assert seconds_text(1e-300) == "1.00e-291 ns"
    assert duration_text(86400 * 1e6) == f"1.00e+06 {days}"  # a million days: past the plain range's 10^6
    assert duration_text(86400 * 999_999.0) == f"999999 {days}"  # below it: every digit left of the point
    assert duration_text(3.6e5) == f"100 {hours}"
    assert duration_text(1e-12) == "0.001 ns"  # a thousandth of a nanosecond: the plain range's floor
    for seconds in (1e308, 5e-324, 1e-300, 2.2e-308, 1e200, 1e-200):
        assert len(duration_text(seconds)) <= 16 and len(seconds_text(seconds)) <= 16


def test_a_share_strictly_between_0_and_1_never_reads_as_either() -> None:
    # the one rule (coursekit.i18n.nonzero, leftovers 27): past MAX_SHARE_DECIMALS decimals a share near 0 is written
    # in e-notation with two significant digits (5e-324 is 4.94e-322 %), one near 1 rounded down to the last decimal
    assert share_text(5e-324) == "4.9e-322%"
    assert share_text(1e-9) == "1e-07%"
    assert share_text(1 - 1e-12) == "99.9999%"
    assert share_text(0.00001) == "0.001%"  # 0.001% exactly: the last decimal shows it
    assert share_text(0.0) == "0%" and share_text(1.0) == "100%"


@pytest.mark.parametrize(
    ("value", "error", "needle"),
    [
        (float("nan"), ValueError, "nan"),
        (float("inf"), ValueError, "inf"),
        (-1.0, ValueError, ">= 0"),
        ("0.1", TypeError, "'0.1'"),
        (True, TypeError, "True"),
        (None, TypeError, "None"),
    ],
)
def test_seconds_takes_a_finite_time_of_at_least_zero(
    value: Any, error: type[Exception], needle: str, lang: str
) -> None:
    with pytest.raises(error) as refused:
        Seconds(value)
    _refusal(refused.value, lang, "seconds", needle)


def test_seconds_formats_as_before() -> None:
    assert f"{Seconds(13.5326):time}" == "13.533 s" and f"{Seconds(-0.0):time}" == "0.000 s"
    assert f"{Seconds(13.5326):.1f}" == "13.5" and Seconds(2.0) + 1 == 3.0
    assert Seconds._of_checked(2.5) == Seconds(2.5) and type(Seconds._of_checked(2.5)) is Seconds


# 6. The line of help reads only a str ------------------------------------------------------------------------------


def test_a_syntax_error_holding_no_str_line_gets_help_from_the_line_given() -> None:
    i18n.set_language("en")
    try:
        assert input_hint(SyntaxError("bad", ("<cell>", 1, 1, 123)), None) is None
        assert input_hint(SyntaxError("bad", ("<cell>", 1, 1, b"answer = 5.4%")), None) is None
        hint = input_hint(SyntaxError("bad", ("<cell>", 1, 1, b"x")), "answer = 5.4%")
        assert hint is not None and "0.054" in hint  # 5.4 % is 0.054, read from the line given
    finally:
        i18n.set_language("zh")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        *[("零零", None), ("十零", None), ("一千零", None), ("一千零零一", None), ("零五", None), ("二零", None)],
        *[("零", 0), ("一百零五", 105), ("一千零二十四", 1024), ("一千零一十", 1010), ("两千两百", 2200)],
    ],
)
def test_zero_stands_only_for_a_skipped_place(text: str, value: int | None) -> None:
    assert chinese_numeral_value(text) == value


# 7. The cheat-sheet tool names a folder that does not exist ---------------------------------------------------------


@pytest.mark.parametrize(("code", "words"), [("zh", "不存在"), ("en", "does not exist")])
def test_cheatsheet_tool_refuses_a_missing_folder_in_one_line(code: str, words: str, tmp_path: Path) -> None:
    out = tmp_path / "missing" / "sheet.pdf"
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "cheatsheet_pdf.py"), "zh", str(out)],
        capture_output=True,
        text=True,
        env={"COURSEKIT_LANG": code, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and str(out.parent) in done.stderr and words in done.stderr
    assert done.stderr.count("\n") == 1 and not out.exists()


# Metamorphic properties of the planner ------------------------------------------------------------------------------

#: Layouts compared per plan: a seeded sample (the whole space would be thousands of lookups per variant).
SAMPLE = 150


def _cases() -> list[tuple[str, ClusterSpec, WorkloadSpec]]:
    cases = [
        ("gpt2-small", CLUSTERS["pcie-24g-8"], WorkloadSpec(global_batch=64, seq_len=1024)),
        ("llama3-8b", CLUSTERS["h100-8"].with_nodes(2), WorkloadSpec(global_batch=64, seq_len=4096)),
        ("qwen3-30b-a3b", CLUSTERS["h100-8"], WorkloadSpec(global_batch=64, seq_len=2048)),
    ]
    rng = random.Random(24)
    for k, name in enumerate(("llama2-7b", "mixtral-8x7b", "gpt2-small")):
        cluster = dataclasses.replace(
            CLUSTERS["h100-8"],
            name=f"custom-{k}",
            nodes=rng.choice([1, 2]),
            gpus_per_node=rng.choice([4, 8]),
            memory_per_device_gib=rng.choice([24.0, 40.0, 80.0]),
            peak_flops=rng.uniform(50e12, 1000e12),
            intra_node_bandwidth_bytes_per_s=rng.uniform(10e9, 450e9),
            inter_node_bandwidth_bytes_per_s=rng.uniform(1e9, 50e9),
            memory_bandwidth_bytes_per_s=rng.uniform(500e9, 4e12),
            peak_flops_fp8=None,
            nvlink_domain_gpus=None,
        )
        workload = WorkloadSpec(global_batch=rng.choice([32, 64, 128]), seq_len=rng.choice([1024, 2048]))
        cases.append((name, cluster, workload))
    return cases


CASES = _cases()


def _layout(result: Any, index: int) -> dict[str, Any]:
    return {key: value for key, value in result.degrees(index).items() if key != "ga"}


def _same(result: Any, layout: dict[str, Any]) -> int:
    (index,) = result.find(**layout)
    return int(index)


def _sample(result: Any, indices: list[int]) -> list[int]:
    return sorted(random.Random(24).sample(indices, min(SAMPLE, len(indices))))


@pytest.mark.parametrize(("name", "cluster", "workload"), CASES, ids=[f"{c[0]}@{c[1].name}" for c in CASES])
def test_the_planner_is_monotone_in_bandwidth_peak_memory_and_batch(
    name: str, cluster: ClusterSpec, workload: WorkloadSpec
) -> None:
    model = MODELS[name]
    base = plan(model, cluster, workload)
    # accepted layouts and layouts refused by memory alone (both estimated), not the whole space: thousands of lookups
    pool = sorted(set(base.accepted_indices()) | set(base.rejected_indices("memory")))
    sample = [i for i in _sample(base, pool) if base.estimated_step_s(i) is not None]
    assert sample, "no layout of the case is estimated: the case tests nothing"
    faster = {
        "intra-node bandwidth x2": {"intra_node_bandwidth_bytes_per_s": cluster.intra_node_bandwidth_bytes_per_s * 2},
        "inter-node bandwidth x2": {"inter_node_bandwidth_bytes_per_s": cluster.inter_node_bandwidth_bytes_per_s * 2},
        "every peak x2": {
            "peak_flops": cluster.peak_flops * 2,
            "peak_flops_fp8": None if cluster.peak_flops_fp8 is None else cluster.peak_flops_fp8 * 2,
        },
    }
    for what, change in faster.items():
        varied = plan(model, dataclasses.replace(cluster, **change), workload)
        for i in sample:
            before = base.estimated_step_s(i)
            after = varied.estimated_step_s(_same(varied, _layout(base, i)))
            assert before is not None and after is not None
            assert after <= before * (1 + 1e-12), (what, base.degrees(i), before, after)

    accepted = base.accepted_indices()
    roomier = plan(
        model, dataclasses.replace(cluster, memory_per_device_gib=cluster.memory_per_device_gib * 2), workload
    )
    kept = set(roomier.accepted_indices())
    for i in _sample(base, accepted):
        layout = _layout(base, i)
        if layout.get("recompute") == "offload" and _same(roomier, layout) not in kept:
            # the offload gate's rule (offloading only where needed): on the roomier device the same layout fits
            # without offloading, and its row without recomputation is the one accepted
            layout = {**layout, "recompute": "none"}
        assert _same(roomier, layout) in kept, ("memory x2 rejected", base.degrees(i))

    bigger = plan(model, cluster, dataclasses.replace(workload, global_batch=workload.global_batch * 2))
    for i in sample:
        # ga = global_batch / (dp · mb): the micro-batches each pipeline runs per step (Narayanan et al. 2021, §2.2)
        layout = _layout(base, i)
        assert bigger.degrees(_same(bigger, layout))["ga"] == 2 * base.degrees(i)["ga"], layout


_STEP_LINE = {
    "en": re.compile(r"Estimated step ([\d.]+) (\S+) = (.*?) \("),
    "zh": re.compile(r"估算步时 ([\d.]+) (\S+) = (.*?) （"),
}


@pytest.mark.parametrize(("name", "cluster", "workload"), CASES, ids=[f"{c[0]}@{c[1].name}" for c in CASES])
def test_explain_agrees_with_the_table_and_its_step_line_adds_up(
    name: str, cluster: ClusterSpec, workload: WorkloadSpec, lang: str
) -> None:
    base = plan(MODELS[name], cluster, workload)
    accepted = set(base.accepted_indices())
    shown = base.accepted_indices(top=4) + base.rejected_indices()[:4]
    for i in shown:
        candidate = base.explain(base.candidate(i).label())
        assert candidate.accepted == (i in accepted)
        table_step = base.estimated_step_s(i)
        assert (candidate.step_s is None) == (table_step is None)
        if table_step is None:
            continue
        assert candidate.step_s is not None and math.isclose(candidate.step_s, table_step, rel_tol=1e-9)
        line = _STEP_LINE[lang].search(candidate.explain())
        assert line is not None, candidate.explain()
        parts = re.findall(r"<?[\d.]+", line.group(3))
        if any(part.startswith("<") for part in parts):
            continue  # a part too small for the line's places reads "<0.1": the sum is of the others
        assert sum(Decimal(part) for part in parts) == Decimal(line.group(1)), line.group(0)
