"""coursekit.lab's timeline: a step read from a profiler trace, split into compute, communication and waiting.

The reduction is tested on small synthetic traces whose parts are worked out
by hand. One real run (2 ranks over gloo: DDP, FSDP and TP, with a slow rank,
an input delay and DDP without overlap) is shared by the tests that need
PyTorch; they assert what the injected faults guarantee, not a timing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from coursekit.i18n import catalog, placeholders
from coursekit.lab.cli import (
    EXIT_BAD_ARGUMENTS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_WORKER_FAILED,
    FORCED_RANKS_CEILING,
    RANKS_PER_CPU,
    main,
    max_payload_bytes,
)
from coursekit.lab.timeline import (
    INPUT_REGION,
    STEP_REGION,
    SUM_TOLERANCE_S,
    TIMELINE_SCHEMA,
    RankStepEvents,
    Scenario,
    ScenarioResult,
    StepBreakdown,
    breakdown_steps,
    efficiency_points,
    extract_steps,
    load_timeline_json,
    predict,
    scenarios_for,
    step_inside_wall_clock,
)

ROOT = Path(__file__).resolve().parents[1]


def _event(name: str, ts: float, dur: float, tid: int = 1, cat: str = "cpu_op") -> dict[str, Any]:
    return {"ph": "X", "name": name, "cat": cat, "tid": tid, "pid": 1, "ts": ts, "dur": dur}


# ---------------------------------------------------------------------------
# Reading a trace and splitting a step (synthetic traces, worked by hand)
# ---------------------------------------------------------------------------


def _trace(comm_start: float, comm_end: float) -> dict[str, Any]:
    """A 1000 µs step: input 0-100, compute 100-600 on the main thread, one all-reduce on a backend thread."""
    return {
        "traceEvents": [
            {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
            _event(STEP_REGION, 0, 1000, cat="user_annotation"),
            _event(INPUT_REGION, 0, 100, cat="user_annotation"),
            _event("aten::addmm", 100, 300),
            _event("aten::mm", 400, 200),
            _event("aten::empty", 420, 10),  # nested in aten::mm: counted once
            _event("c10d::allreduce_", 590, 5),  # the enqueue on the main thread: communication, not compute
            _event("gloo:all_reduce", comm_start, comm_end - comm_start, tid=2, cat="user_annotation"),
            _event("aten::copy_", comm_start + 1, 2, tid=2),  # gloo's own copies: not the main thread's compute
        ]
    }


def test_extract_reads_regions_operators_and_collectives() -> None:
    (step,) = extract_steps(_trace(500, 800))
    assert step.step == (0.0, 1000.0)
    assert step.input == ((0.0, 100.0),)
    assert step.compute == ((100.0, 590.0), (595.0, 600.0))  # the main-thread collective is cut out
    assert step.comm == ((500.0, 800.0),)
    assert step.collectives == (("gloo:all_reduce", 500.0, 300.0),)


def test_on_cuda_kernels_are_the_compute_and_nccl_kernels_the_communication() -> None:
    trace = {
        "traceEvents": [
            _event(STEP_REGION, 0, 1000, cat="user_annotation"),
            _event("aten::mm", 10, 20),  # the CPU launching work: not the device's compute
            _event("nccl:all_reduce", 30, 5, cat="user_annotation"),  # the CPU side of the collective
            _event("ampere_sgemm_128x64_tn", 100, 400, tid=7, cat="kernel"),
            _event("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 450, 300, tid=8, cat="kernel"),
        ]
    }
    (step,) = extract_steps(trace, device="cuda")
    assert step.compute == ((100.0, 500.0),)
    assert step.comm == ((450.0, 750.0),)
    assert step.collectives == (("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 450.0, 300.0),)
    ((b,),) = breakdown_steps([[step]])
    assert (b.hidden_communication_s, b.exposed_communication_s) == (pytest.approx(50e-6), pytest.approx(250e-6))


def test_one_rank_parts_by_hand() -> None:
    ((b,),) = breakdown_steps([extract_steps(_trace(500, 800))])
    # compute 100-590 and 595-600 = 495 µs; the collective 500-800 = 300 µs, of which 500-590 and 595-600
    # (95 µs) run under compute and 590-595 plus 600-800 (205 µs) are exposed; the rest 800-1000 is other.
    assert b.compute_s == pytest.approx(495e-6)
    assert b.communication_s == pytest.approx(300e-6)
    assert b.hidden_communication_s == pytest.approx(95e-6)
    assert b.exposed_communication_s == pytest.approx(205e-6)
    assert b.wait_slower_rank_s == 0
    assert b.input_wait_s == pytest.approx(100e-6)
    assert b.other_s == pytest.approx(200e-6)
    assert b.parts_s == pytest.approx(b.step_s, abs=SUM_TOLERANCE_S)


def test_the_rank_that_arrives_first_waits_for_the_last() -> None:
    # Rank 0 starts the all-reduce at 600, rank 1 at 900; both finish at 950. The shortest duration (50 µs,
    # rank 1's) is the transfer; rank 0's other 300 µs are waiting for rank 1.
    early = [RankStepEvents((0, 1000), (), ((0, 600),), ((600, 950),), (("gloo:all_reduce", 600, 350),))]
    late = [RankStepEvents((0, 1000), (), ((0, 900),), ((900, 950),), (("gloo:all_reduce", 900, 50),))]
    (fast,), (slow,) = breakdown_steps([early, late])
    assert fast.wait_slower_rank_s == pytest.approx(300e-6)
    assert fast.exposed_communication_s == pytest.approx(50e-6)
    assert fast.communication_s == pytest.approx(50e-6)
    assert slow.wait_slower_rank_s == 0
    assert slow.exposed_communication_s == pytest.approx(50e-6)
    for b in (fast, slow):
        assert b.parts_s == pytest.approx(b.step_s, abs=SUM_TOLERANCE_S)
    result = ScenarioResult("ddp", Scenario("slow_rank", slow_rank=1, slow_factor=2), ((fast,), (slow,)))
    assert result.least_waiting_rank == 1


def test_wait_under_compute_is_hidden_not_exposed() -> None:
    # Rank 0's collective starts at 100 while it still computes until 600; rank 1 joins at 500.
    # Its 400 µs of waiting all lie under compute: nothing is exposed; the transfer 500-600 hides too.
    early = [RankStepEvents((0, 700), (), ((0, 600),), ((100, 600),), (("gloo:all_reduce", 100, 500),))]
    late = [RankStepEvents((0, 700), (), ((0, 600),), ((500, 600),), (("gloo:all_reduce", 500, 100),))]
    (fast,), _ = breakdown_steps([early, late])
    assert fast.wait_slower_rank_s == 0
    assert fast.exposed_communication_s == 0
    assert fast.hidden_communication_s == pytest.approx(100e-6)


def test_mismatched_collectives_split_no_wait() -> None:
    one = [RankStepEvents((0, 100), (), (), ((0, 50),), (("gloo:all_reduce", 0, 50),))]
    two = [RankStepEvents((0, 100), (), (), ((0, 80),), (("gloo:all_reduce", 0, 40), ("gloo:all_reduce", 40, 40)))]
    (a,), (b,) = breakdown_steps([one, two])
    assert a.wait_slower_rank_s == b.wait_slower_rank_s == 0
    assert a.exposed_communication_s == pytest.approx(50e-6)


def test_the_report_attaches_the_model_to_each_fault_and_keeps_skips() -> None:
    from dataclasses import asdict

    from coursekit.lab.timeline import build_timeline_report, skip_reason

    def events(compute_end: float) -> list[dict[str, Any]]:
        step = RankStepEvents(
            (0, 1000), (), ((0, compute_end),), ((compute_end, 1000),), (("gloo:x", compute_end, 1000 - compute_end),)
        )
        return [asdict(step)]

    runs = [
        {
            "scenario": asdict(Scenario("baseline")),
            "skipped": None,
            "events": [events(800), events(800)],
            "trace_files": ["a", "b"],
        },
        {
            "scenario": asdict(Scenario("input_delay", input_delay_s=0.01)),
            "skipped": None,
            "events": [events(800), events(800)],
            "trace_files": ["c", "d"],
        },
    ]
    reason = skip_reason("tp", Scenario("no_overlap", overlap=False), 2)
    assert reason is not None
    skipped = {
        "scenario": asdict(Scenario("no_overlap", overlap=False)),
        "skipped": {"code": reason.code, "key": reason.key, "params": {}},
    }
    raw = {
        "world_size": 2,
        "backend": "gloo",
        "device": "cpu",
        "launcher": "spawn",
        "torch_version": "x",
        "steps": 1,
        "runs": {"ddp": runs, "tp": [skipped]},
    }
    report = build_timeline_report(raw)
    assert report.result("ddp").predicted is None
    predicted = report.result("ddp", "input_delay").predicted
    # Baseline: compute 800 µs, the collective 200 µs after it, nothing hidden; plus 10 ms of input.
    assert predicted is not None
    assert predicted.step_s == pytest.approx(800e-6 + 200e-6 + 0.01)
    assert report.result("tp", "no_overlap").skipped.code == "no_overlap_ddp_only"  # type: ignore[union-attr]
    assert "skipped" in report.format()


def test_a_file_that_is_not_a_trace_is_refused() -> None:
    with pytest.raises(ValueError, match="not a Chrome trace"):
        extract_steps({"events": []}, name="x.json")
    with pytest.raises(ValueError, match=r"no step region named coursekit\.step"):
        extract_steps({"traceEvents": [_event("aten::mm", 0, 1)]}, name="x.json")


# ---------------------------------------------------------------------------
# The model's prediction from the same inputs, and E(P)
# ---------------------------------------------------------------------------


def _flat(rank: int, compute_s: float, comm_s: float, hidden_s: float, other_s: float = 0.0) -> StepBreakdown:
    exposed = comm_s - hidden_s
    step = compute_s + exposed + other_s
    return StepBreakdown(rank, step, compute_s, comm_s, hidden_s, exposed, 0.0, 0.0, other_s)


def test_the_trace_step_lies_inside_the_wall_clock_read_around_it() -> None:
    import dataclasses

    from coursekit.lab.timeline import wall_clock_agrees

    step = _flat(0, 0.020, 0.004, 0.001)  # a 23 ms traced step
    assert step_inside_wall_clock(dataclasses.replace(step, wall_s=0.0262))  # 3.2 ms of region overhead: inside
    assert not wall_clock_agrees(dataclasses.replace(step, wall_s=0.0262))  # but more than 5 % + 1 ms apart
    assert wall_clock_agrees(dataclasses.replace(step, wall_s=0.0235))
    assert not step_inside_wall_clock(dataclasses.replace(step, wall_s=0.022))  # a step longer than the clock
    assert step_inside_wall_clock(step) and wall_clock_agrees(step)  # no wall clock read: nothing to compare


def test_prediction_of_each_fault_by_hand() -> None:
    # Baseline: both ranks compute 0.08 s with 0.02 s host time; 0.04 s of communication, 0.01 s hidden.
    baseline = ScenarioResult(
        "ddp", Scenario("baseline"), ((_flat(0, 0.08, 0.04, 0.01, 0.02),), (_flat(1, 0.08, 0.04, 0.01, 0.02),))
    )
    slow = predict(baseline, Scenario("slow_rank", slow_rank=1, slow_factor=3))
    # rank 1 computes 3 × 0.1 = 0.3 s, rank 0 0.1 s: mean 0.2, the others wait max - mean = 0.1 s on average.
    assert slow.compute_s == pytest.approx(0.2)
    assert slow.load_imbalance_s == pytest.approx(0.1)
    assert slow.exposed_communication_s == pytest.approx(0.03)
    assert slow.step_s == pytest.approx(0.3 + 0.03)
    delay = predict(baseline, Scenario("input_delay", input_delay_s=0.02))
    assert (delay.input_wait_s, delay.step_s) == (pytest.approx(0.02), pytest.approx(0.1 + 0.03 + 0.02))
    serial = predict(baseline, Scenario("no_overlap", overlap=False))
    assert serial.hidden_communication_s == 0
    assert serial.exposed_communication_s == pytest.approx(0.04)


def test_efficiency_is_step_one_over_step_p_under_weak_scaling() -> None:
    one = ScenarioResult("ddp", Scenario("baseline"), ((_flat(0, 0.1, 0.0, 0.0),),))
    two = ScenarioResult("ddp", Scenario("baseline"), tuple((_flat(r, 0.1, 0.025, 0.0),) for r in range(2)))
    four = ScenarioResult("ddp", Scenario("baseline"), tuple((_flat(r, 0.2, 0.05, 0.0),) for r in range(4)))
    points = efficiency_points([one, two, four])
    # E(P) = step(1) / step(P): 0.1 / 0.125 = 0.8 and 0.1 / 0.25 = 0.4.
    assert [p.ranks for p in points] == [1, 2, 4]
    assert [p.efficiency for p in points] == pytest.approx([1.0, 0.8, 0.4])
    assert [p.cause for p in points] == [None, "exposed_communication", "compute"]


def test_scenarios_are_validated() -> None:
    assert [s.name for s in scenarios_for(2, input_delay_ms=5, no_overlap=True)] == [
        "baseline",
        "input_delay",
        "no_overlap",
    ]
    with pytest.raises(ValueError, match="slow_factor = 1: must be > 1"):
        scenarios_for(2, slow_rank=0, slow_factor=1)
    with pytest.raises(ValueError, match="input_delay_ms = 0: must be > 0"):
        scenarios_for(2, input_delay_ms=0)


def test_timeline_messages_have_both_languages_with_the_same_placeholders() -> None:
    entries = {key: texts for key, texts in catalog().items() if key.startswith(("lab.tl_", "lab.worker", "lab.cli_"))}
    assert len(entries) > 30
    for key, texts in entries.items():
        assert placeholders(texts["zh"]) == placeholders(texts["en"]), key


# ---------------------------------------------------------------------------
# Command line: bounds, language, faults (no PyTorch process is started for a refused argument)
# ---------------------------------------------------------------------------


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exit_:  # argparse's own errors exit directly
        return int(exit_.code or 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["memory", "--ranks", "10000"], f"argument --ranks: --ranks = 10000: must be <= {FORCED_RANKS_CEILING}."),
        (["memory", "--ranks", "10000", "--force"], f"--ranks = 10000: must be <= {FORCED_RANKS_CEILING}."),
        (["timeline", "--ranks", "0"], "argument --ranks: --ranks = 0: must be >= 1."),
        (["timeline", "--strategy", "ddp,pp"], "argument --strategy: --strategy = 'pp': must be one of"),
        (["timeline", "--steps", "51"], "argument --steps: --steps = 51: must be <= 50."),
        (["timeline", "--slow-factor", "nan"], "argument --slow-factor: --slow-factor = nan: must be a finite"),
        (["timeline", "--input-delay-ms", "-5"], "argument --input-delay-ms: --input-delay-ms = -5.0: must be > 0."),
        (["timeline", "--slow-rank", "1"], "give --slow-rank and --slow-factor together."),
        (["timeline", "--slow-rank", "2", "--slow-factor", "3"], "--slow-rank = 2: must be between 0 and --ranks - 1"),
        (["timeline", "--no-such-option"], "unrecognized arguments: --no-such-option"),
    ],
)
def test_bad_arguments_exit_2_naming_the_argument(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit_code(argv) == EXIT_BAD_ARGUMENTS
    err = capsys.readouterr().err
    assert message in err.splitlines()[-1], err
    assert "Traceback" not in err


def test_record_refuses_torchrun(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name, value in {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0"}.items():
        monkeypatch.setenv(name, value)
    assert _exit_code(["record"]) == EXIT_BAD_ARGUMENTS
    assert "cannot run under torchrun" in capsys.readouterr().err


def test_ranks_are_capped_by_the_cpu_count_unless_forced(capsys: pytest.CaptureFixture[str]) -> None:
    too_many = RANKS_PER_CPU * (os.cpu_count() or 1) + 1
    if too_many > FORCED_RANKS_CEILING:
        pytest.skip("this machine's cap is the --force ceiling itself")
    assert _exit_code(["memory", "--ranks", str(too_many)]) == EXIT_BAD_ARGUMENTS
    assert "add --force for more" in capsys.readouterr().err


def test_message_sizes_are_capped_by_the_available_memory(capsys: pytest.CaptureFixture[str]) -> None:
    # Half of 8 GiB over 2 ranks × 2 buffers = 1 GiB.
    assert max_payload_bytes(2, available_bytes=8 * 2**30) == 2**30
    assert _exit_code(["collectives", "--max-bytes", "999999999999G"]) == EXIT_BAD_ARGUMENTS
    last = capsys.readouterr().err.splitlines()[-1]
    assert "--max-bytes = " in last and "above the cap of" in last and "available memory" in last


def test_argparse_messages_follow_lang_zh(capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(["--lang", "zh", "timeline", "--bogus"]) == EXIT_BAD_ARGUMENTS
    err = capsys.readouterr().err
    assert err.startswith("用法：") and "错误：无法识别的参数：--bogus" in err
    assert _exit_code(["--lang", "zh"]) == EXIT_BAD_ARGUMENTS
    assert "缺少必需的参数：command" in capsys.readouterr().err
    assert _exit_code(["--lang", "zh", "memory", "--device", "tpu"]) == EXIT_BAD_ARGUMENTS
    assert "参数 --device：无效的选择：'tpu'" in capsys.readouterr().err
    assert _exit_code(["--lang", "zh", "memory", "--ranks", "100000"]) == EXIT_BAD_ARGUMENTS
    assert "参数 --ranks：--ranks = 100000：必须 <= 64。" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Real runs (PyTorch, gloo on 127.0.0.1)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch_available() -> Any:
    return pytest.importorskip("torch", reason="coursekit.lab's distributed runs need PyTorch (the 'lab' extra)")


#: The timeline model's gradient bytes, from its shapes (d_model 128, d_ff 512, 2 blocks, 5 classes, fp32):
#: per block 2 LayerNorms (2·128 each), q, k, v, o (128·128 + 128 each), fc1 (128·512 + 512), fc2 (512·128 + 128);
#: the head's LayerNorm (2·128) and classifier (128·5 + 5).
TIMELINE_GRAD_BYTES = 4 * (2 * (2 * 256 + 4 * (128 * 128 + 128) + 128 * 512 + 512 + 512 * 128 + 128) + 256 + 645)
#: DDP closes a bucket once it holds bucket_cap_mb = 0.25 MiB, so a bucket holds less than 0.25 MiB plus the
#: largest gradient (fc1's 128·512·4 bytes = 0.25 MiB): at least ceil(1,589,780 / 524,288) = 4 buckets,
#: each all-reduced on its own.
MIN_DDP_BUCKETS = -(-TIMELINE_GRAD_BYTES // (2 * 2**18))

SLOW_RANK = 1
SLOW_FACTOR = 4.0
INPUT_DELAY_MS = 30.0
STEPS = 2


@pytest.fixture(scope="module")
def timeline_run(
    tmp_path_factory: pytest.TempPathFactory, torch_available: Any
) -> tuple[int, str, dict[str, Any], Path]:
    folder = tmp_path_factory.mktemp("timeline")
    traces, path = folder / "traces", folder / "timeline.json"
    argv = ["timeline", "--ranks", "2", "--strategy", "ddp,fsdp,tp", "--steps", str(STEPS)]
    argv += ["--slow-rank", str(SLOW_RANK), "--slow-factor", str(SLOW_FACTOR)]
    argv += ["--input-delay-ms", str(INPUT_DELAY_MS), "--no-overlap", "--trace", str(traces), "--json", str(path)]
    buffer = StringIO()
    with redirect_stdout(buffer):
        code = main(argv)
    return code, buffer.getvalue(), json.loads(path.read_text(encoding="utf-8")), traces


def test_every_rank_exports_a_trace_that_parses(timeline_run: tuple[int, str, dict[str, Any], Path]) -> None:
    code, stdout, data, traces = timeline_run
    assert code == EXIT_OK and data["schema"] == TIMELINE_SCHEMA
    names = sorted(p.name for p in traces.iterdir())
    expected = [
        f"{s}-{scenario}-rank{r}.json"
        for s in ("ddp", "fsdp", "tp")
        for scenario in ("baseline", "slow_rank", "input_delay", "no_overlap")
        if scenario != "no_overlap" or s == "ddp"
        for r in (0, 1)
    ]
    assert names == sorted(expected)
    for name in names:
        trace = json.loads((traces / name).read_text(encoding="utf-8"))
        assert len(extract_steps(trace, name=name)) == STEPS
        assert trace["distributedInfo"]["rank"] == int(name[-6])  # the profiler's own record of the rank
    assert "chrome://tracing" in stdout


def test_parts_sum_to_the_step_and_to_the_wall_clock(timeline_run: tuple[int, str, dict[str, Any], Path]) -> None:
    report = load_timeline_json(timeline_run[2])
    measured = [r for r in report.results if r.skipped is None]
    assert len(measured) == 10
    for result in measured:
        assert result.ranks == 2
        for steps in result.steps:
            assert len(steps) == STEPS
            for b in steps:
                assert b.parts_s == pytest.approx(b.step_s, abs=SUM_TOLERANCE_S)
                assert min(b.compute_s, b.exposed_communication_s, b.wait_slower_rank_s, b.input_wait_s) >= 0
                assert b.other_s >= 0 and b.hidden_communication_s <= b.communication_s + 1e-12
                # The step region lies between the two clock reads (how close they are depends on the load).
                assert step_inside_wall_clock(b), (result.strategy, result.scenario.name, b)


@pytest.mark.parametrize("strategy", ["ddp", "fsdp", "tp"])
def test_a_slow_rank_shows_as_the_others_waiting(
    timeline_run: tuple[int, str, dict[str, Any], Path], strategy: str
) -> None:
    result = load_timeline_json(timeline_run[2]).result(strategy, "slow_rank")
    fast, slow = (result.per_rank[r] for r in (1 - SLOW_RANK, SLOW_RANK))
    assert fast.wait_slower_rank_s > slow.wait_slower_rank_s
    assert result.least_waiting_rank == SLOW_RANK
    assert result.predicted is not None and result.predicted.load_imbalance_s > 0


@pytest.mark.parametrize("strategy", ["ddp", "fsdp", "tp"])
def test_an_input_delay_shows_as_input_wait(timeline_run: tuple[int, str, dict[str, Any], Path], strategy: str) -> None:
    result = load_timeline_json(timeline_run[2]).result(strategy, "input_delay")
    # The delay is slept inside the input region of every step: at least D per step, less 1 ms of trace rounding.
    for steps in result.steps:
        assert sum(b.input_wait_s for b in steps) >= STEPS * (INPUT_DELAY_MS / 1000 - 1e-3)
    assert result.predicted is not None and result.predicted.input_wait_s == pytest.approx(INPUT_DELAY_MS / 1000)


def test_no_overlap_is_ddp_only_and_hides_no_communication_in_the_model(
    timeline_run: tuple[int, str, dict[str, Any], Path],
) -> None:
    report = load_timeline_json(timeline_run[2])
    assert report.result("fsdp", "no_overlap").skipped is not None
    assert report.result("tp", "no_overlap").skipped.code == "no_overlap_ddp_only"  # type: ignore[union-attr]
    serial = report.result("ddp", "no_overlap")
    assert serial.predicted is not None and serial.predicted.hidden_communication_s == 0
    # Without overlap every gradient byte is all-reduced in one call after backward: one collective per step.
    assert all(b.communication_s > 0 for steps in serial.steps for b in steps)
    assert [[name for name, _, _ in e.collectives] for e in serial.sample] == [["gloo:all_reduce"]] * 2
    # With overlap DDP all-reduces bucket by bucket during backward (several collectives, see the recording test).
    assert all(len(e.collectives) >= MIN_DDP_BUCKETS for e in report.result("ddp", "baseline").sample)


# ---------------------------------------------------------------------------
# Faults: a dead worker, signals to the parent; temporary folders removed on every path
# ---------------------------------------------------------------------------


def _lab(args: list[str], tmp: Path, **env: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "COURSEKIT_LANG": "en", "TMPDIR": str(tmp), **env}
    return subprocess.Popen(
        [sys.executable, "-m", "coursekit.lab", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=ROOT,
    )


def _lab_folders(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("coursekit-lab-*"))


def test_a_dead_worker_gets_its_own_exit_code_and_one_line(tmp_path: Path, torch_available: Any) -> None:
    process = _lab(["memory", "--ranks", "2", "--strategies", "ddp"], tmp_path, COURSEKIT_LAB_KILL_RANK="1")
    _, err = process.communicate(timeout=300)
    assert process.returncode == EXIT_WORKER_FAILED, err
    lines = [line for line in err.splitlines() if line.strip() and "USDT" not in line]
    assert lines[-1] == (
        "python -m coursekit.lab memory: the process of rank 1 ended unexpectedly (exit code 7); "
        "the other ranks were stopped."
    ), err
    assert "Traceback" not in err
    assert _lab_folders(tmp_path) == []


def test_a_dead_worker_of_the_timeline_gets_its_own_exit_code_and_one_line(
    tmp_path: Path, torch_available: Any
) -> None:
    process = _lab(["timeline", "--ranks", "2", "--steps", "1"], tmp_path, COURSEKIT_LAB_KILL_RANK="1")
    _, err = process.communicate(timeout=300)
    assert process.returncode == EXIT_WORKER_FAILED, err
    lines = [line for line in err.splitlines() if line.strip() and "USDT" not in line]
    assert lines[-1] == (
        "python -m coursekit.lab timeline: the process of rank 1 ended unexpectedly (exit code 7); "
        "the other ranks were stopped."
    ), err
    assert "Traceback" not in err
    assert _lab_folders(tmp_path) == []


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, EXIT_TERMINATED), (signal.SIGINT, EXIT_INTERRUPTED)])
def test_a_signal_to_the_parent_stops_the_ranks_and_removes_the_folders(
    tmp_path: Path, torch_available: Any, sig: signal.Signals, code: int
) -> None:
    process = _lab(["timeline", "--ranks", "2", "--steps", "50", "--input-delay-ms", "100"], tmp_path)
    deadline = time.monotonic() + 120
    while not _lab_folders(tmp_path) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.1)
    assert _lab_folders(tmp_path), "the lab never made its temporary folder"
    time.sleep(2)  # the ranks are starting
    process.send_signal(sig)
    _, err = process.communicate(timeout=120)
    assert process.returncode == code, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].endswith("every rank was stopped and the temporary folders removed.")
    assert _lab_folders(tmp_path) == []


# ---------------------------------------------------------------------------
# The recording shipped with the course
# ---------------------------------------------------------------------------


def test_the_recording_round_trips_and_is_complete() -> None:
    from coursekit.lab.recorded import load_recorded

    recording = load_recorded()
    again = load_recorded(json.loads(json.dumps(recording.to_json_dict())))
    assert again.to_json_dict() == recording.to_json_dict()
    assert sorted(recording.scaling) == [1, 2, 4]
    assert recording.memory.matches  # every recorded byte is still explained by today's ledger
    for strategy in ("ddp", "fsdp", "tp"):
        for scenario in ("baseline", "slow_rank", "input_delay"):
            result = recording.timeline.result(strategy, scenario)
            assert result.ranks == 2 and len(result.sample) == 2
            for steps in result.steps:
                for b in steps:
                    assert b.parts_s == pytest.approx(b.step_s, abs=SUM_TOLERANCE_S)
    assert recording.timeline.result("ddp", "no_overlap").skipped is None


def test_the_recording_shows_ddp_overlap_and_what_the_lesson_says_about_turning_it_off() -> None:
    from coursekit.lab.recorded import load_recorded

    timeline = load_recorded().timeline
    assert TIMELINE_GRAD_BYTES == 1_589_780 and MIN_DDP_BUCKETS == 4
    overlapped, serial = timeline.result("ddp", "baseline"), timeline.result("ddp", "no_overlap")
    # Bucketed: several all-reduces per step, some of them under backward's compute.
    assert all(len(e.collectives) >= MIN_DDP_BUCKETS for e in overlapped.sample)
    assert overlapped.mean.hidden_communication_s > 0
    assert all(b.hidden_communication_s > 0 for b in overlapped.per_rank)
    # Overlap off: one all-reduce per step after backward, nothing hidden.
    assert all(len(e.collectives) == 1 for e in serial.sample)
    assert serial.mean.hidden_communication_s == 0
    # Lesson 8, section 6.2, says that on 2 CPU cores with gloo turning overlap off shows no more exposed
    # communication: in this recording there is less of it, and the step is shorter. Re-record, re-read the prose.
    assert serial.mean.exposed_communication_s < overlapped.mean.exposed_communication_s
    assert serial.mean.step_s < overlapped.mean.step_s


def test_the_lanes_figure_draws_one_panel_per_result() -> None:
    from coursekit.lab.plot import plot_step_lanes
    from coursekit.lab.recorded import load_recorded

    timeline = load_recorded().timeline
    fig = plot_step_lanes([timeline.result(s) for s in ("ddp", "fsdp", "tp")])
    assert len(fig.axes) == 3
    assert [label.get_text() for label in fig.axes[0].get_yticklabels()] == ["rank 0", "rank 1"]
    assert all(ax.collections for ax in fig.axes)  # bars were drawn
