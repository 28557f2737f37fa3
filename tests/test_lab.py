"""coursekit.lab: collectives measured with PyTorch, the alpha-beta fit, and per-rank memory vs the ledger.

The pure parts (fit, payload grid, expected outputs, memory accounting,
reports, argument checks) run everywhere. The distributed parts spawn real
ranks over gloo on 127.0.0.1 and are skipped when PyTorch is not installed;
each spawn costs seconds, so each one is shared by several tests through a
module-scoped fixture. Nothing here asserts on a measured time.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import coursekit
from coursekit.communication import COLLECTIVES, bus_bandwidth_factor, collective_time_s
from coursekit.i18n import catalog, placeholders
from coursekit.lab.cli import EXIT_BAD_ARGUMENTS, EXIT_OK, main, parse_bytes
from coursekit.lab.collectives import (
    COLLECTIVES_SCHEMA,
    CollectivePoint,
    CollectiveResult,
    CollectivesReport,
    check_ranks,
    expected_output,
    load_collectives_json,
    payload_sizes,
    reduce_max_of_medians,
    run_collectives,
    verification_input,
)
from coursekit.lab.fit import crossover_bytes, fit_alpha_beta, model_coefficients
from coursekit.lab.memory import (
    MEMORY_SCHEMA,
    STRATEGIES,
    TinyTransformerConfig,
    compare_memory,
    expected_adjustments,
    ledger_for,
    parameter_layout,
    run_memory,
    tp_supported,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def torch_available() -> Any:
    return pytest.importorskip("torch", reason="coursekit.lab's distributed runs need PyTorch (the 'lab' extra)")


# ---------------------------------------------------------------------------
# The ring model's coefficients (the task's formula table, written out independently)
# ---------------------------------------------------------------------------


def _brief_formula(kind: str, n: int) -> tuple[int, float]:
    """(steps, bandwidth factor) as the lab's specification states them for S = nccl-tests' full buffer."""
    if kind == "all_reduce":
        return 2 * (n - 1), 2 * (n - 1) / n
    if kind in ("all_gather", "reduce_scatter", "all_to_all"):
        return n - 1, (n - 1) / n
    if kind == "broadcast":
        return n - 1, 1.0
    return 1, 1.0  # send_recv


@pytest.mark.parametrize("kind", COLLECTIVES)
@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_model_coefficients_follow_the_ring_model(kind: str, n: int) -> None:
    steps, factor = model_coefficients(kind, n)
    assert (steps, factor) == pytest.approx(_brief_formula(kind, n))


@pytest.mark.parametrize("kind", COLLECTIVES)
def test_one_rank_moves_nothing(kind: str) -> None:
    assert model_coefficients(kind, 1) == (0, 0.0)


# ---------------------------------------------------------------------------
# Least-squares fit
# ---------------------------------------------------------------------------

SYNTHETIC_SIZES = [2**k for k in range(0, 41, 2)]


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(COLLECTIVES),
    n=st.integers(2, 16),
    alpha=st.floats(1e-7, 1e-3),
    bandwidth=st.floats(1e8, 1e12),
)
def test_fit_recovers_alpha_and_bandwidth_from_collective_time_s(
    kind: str, n: int, alpha: float, bandwidth: float
) -> None:
    times = [
        collective_time_s(kind, payload_bytes=s, ranks=n, bandwidth_bytes_per_s=bandwidth, latency_s=alpha)
        for s in SYNTHETIC_SIZES
    ]
    fit = fit_alpha_beta(kind, n, SYNTHETIC_SIZES, times)
    assert not fit.degenerate and fit.note is None
    assert fit.alpha_s == pytest.approx(alpha, rel=1e-6)
    assert fit.bandwidth_bytes_per_s == pytest.approx(bandwidth, rel=1e-6)
    assert fit.rms_relative_error < 1e-9
    assert fit.predict_s(3e6) == pytest.approx(
        collective_time_s(kind, payload_bytes=3e6, ranks=n, bandwidth_bytes_per_s=bandwidth, latency_s=alpha)
    )


def test_fit_weighs_relative_error_so_small_payloads_pin_alpha() -> None:
    # 10 µs per step, 1 GB/s; one 1 % error on the largest point. Relative least squares keeps α within
    # 1 %, where least squares on seconds would let that point's 10 ms error swamp the 10 µs points.
    sizes = [1e3, 1e4, 1e5, 1e6, 1e7]
    times = [1e-5 + s / 1e9 for s in sizes]
    times[-1] *= 1.01
    fit = fit_alpha_beta("send_recv", 2, sizes, times)
    assert fit.alpha_s == pytest.approx(1e-5, rel=0.01)
    assert fit.bandwidth_bytes_per_s == pytest.approx(1e9, rel=0.02)


def test_fit_two_points_is_the_exact_solution() -> None:
    # t = 2(n-1)α + 2(n-1)/n S/B with n = 4: 6α + 1.5 S/B, through two points (1 kB, 1 MB).
    alpha, inverse_b = 3e-6, 1 / 4e9
    sizes = [1e3, 1e6]
    times = [6 * alpha + 1.5 * s * inverse_b for s in sizes]
    fit = fit_alpha_beta("all_reduce", 4, sizes, times)
    assert fit.alpha_s == pytest.approx(alpha, rel=1e-9)
    assert fit.bandwidth_bytes_per_s == pytest.approx(4e9, rel=1e-9)
    assert crossover_bytes(fit) == pytest.approx(6 * alpha / (1.5 * inverse_b), rel=1e-9)


def test_fit_clamps_a_negative_alpha_to_zero() -> None:
    sizes = [1e4, 1e5, 1e6]
    times = [s / 1e9 - 1e-6 for s in sizes]  # a straight line through a negative intercept
    fit = fit_alpha_beta("broadcast", 2, sizes, times)
    assert fit.alpha_s == 0.0
    assert fit.note is not None and fit.note.code == "alpha_clamped"
    assert not fit.degenerate
    # The best slope through the origin, by relative least squares: minimise Σ (x s_i / t_i - 1)².
    ratios = np.array(sizes) / np.array(times)
    assert 1 / fit.bandwidth_bytes_per_s == pytest.approx(ratios.sum() / (ratios**2).sum(), rel=1e-9)


def test_fit_without_a_bandwidth_term_is_degenerate() -> None:
    fit = fit_alpha_beta("all_gather", 3, [1e3, 2e3, 4e3], [5e-5, 5e-5, 4.9e-5])
    assert fit.degenerate and fit.bandwidth_bytes_per_s is None
    assert fit.note is not None and fit.note.code == "no_bandwidth"
    assert fit.alpha_s > 0
    assert fit.predict_s(1e9) == pytest.approx(2 * fit.alpha_s)  # only steps(3) = 2 latencies remain
    assert crossover_bytes(fit) is None


@pytest.mark.parametrize(
    ("kind", "ranks", "sizes", "times", "code", "message"),
    [
        (
            "all_reduce",
            1,
            [1e3, 1e6],
            [1e-6, 2e-6],
            "zero_model",
            "with 1 rank the ring model predicts 0 s for all_reduce (no byte leaves the device): "
            "there is no α or B to fit.",
        ),
        (
            "broadcast",
            2,
            [4096, 4096],
            [1e-5, 1.1e-5],
            "too_few_payloads",
            "only 1 distinct payload: at least 2 are needed to separate latency α from bandwidth B; "
            "widen --min-bytes / --max-bytes.",
        ),
    ],
)
def test_fit_reports_why_it_is_degenerate(
    kind: str, ranks: int, sizes: list[float], times: list[float], code: str, message: str
) -> None:
    fit = fit_alpha_beta(kind, ranks, sizes, times)
    assert fit.degenerate and fit.note is not None
    assert (fit.note.code, fit.note.message) == (code, message)


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (
            ("gather", 2, [1.0], [1.0]),
            ValueError,
            "kind = 'gather': must be one of 'all_reduce', 'all_gather', "
            "'reduce_scatter', 'all_to_all', 'broadcast', 'send_recv'.",
        ),
        (("all_reduce", 0, [1.0], [1.0]), ValueError, "ranks = 0: must be >= 1."),
        (
            ("all_reduce", 2, [1.0, 2.0], [1.0]),
            ValueError,
            "payload_bytes has 2 values and times_s has 1: they must pair up one to one.",
        ),
        (("all_reduce", 2, [1.0], [0.0]), ValueError, "times_s[0] = 0.0: must be > 0."),
        (("all_reduce", 2, [-1.0], [1.0]), ValueError, "payload_bytes[0] = -1.0: must be >= 0."),
        (
            ("all_reduce", 2, [True], [1.0]),
            TypeError,
            "payload_bytes[0] = True: must be a real number (int or float), not bool.",
        ),
        (
            ("all_reduce", 2, [1.0], [math.nan]),
            ValueError,
            "times_s[0] = nan: must be a finite number (not NaN or infinity).",
        ),
    ],
)
def test_fit_rejects_bad_input(args: tuple[Any, ...], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as excinfo:
        fit_alpha_beta(*args)
    assert str(excinfo.value) == message


def test_fit_messages_in_chinese() -> None:
    coursekit.set_language("zh")
    fit = fit_alpha_beta("all_reduce", 2, [1e3, 2e3], [1e-4, 1e-4])
    assert fit.note is not None
    assert (
        fit.note.message == "最优的非负拟合给出 1/B = 0：这些点看不出带宽项（全部落在时延主导区），请增大 --max-bytes。"
    )


# ---------------------------------------------------------------------------
# Payload grid, known-tensor oracle, timing statistic
# ---------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(low=st.integers(1, 2**20), span=st.integers(0, 2**22), n=st.integers(1, 8))
def test_payload_sizes_are_whole_chunks_doubling_within_range(low: int, span: int, n: int) -> None:
    high = low + span
    sizes = payload_sizes(low, high, n)
    assert sizes, "the range always yields at least one payload"
    assert all(s % (4 * n) == 0 and s >= 4 * n for s in sizes)
    assert list(sizes) == sorted(set(sizes))
    assert all(s <= max(high, 4 * n) for s in sizes)
    assert len(sizes) <= math.floor(math.log2(high / low)) + 1


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (
            (5000, 1000, 2),
            ValueError,
            "min_bytes = 5000 is larger than max_bytes = 1000: the payload range is empty; "
            "make --min-bytes <= --max-bytes.",
        ),
        ((0, 1000, 2), ValueError, "min_bytes = 0: must be >= 1."),
        ((1, 1000, 0), ValueError, "ranks = 0: must be >= 1."),
        ((1.0, 1000, 2), TypeError, "min_bytes = 1.0: must be an integer (int), not float."),
    ],
)
def test_payload_sizes_reject_bad_ranges(args: tuple[Any, ...], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as excinfo:
        payload_sizes(*args)
    assert str(excinfo.value) == message


def test_min_greater_than_max_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError, match=r"^min_bytes = 9 大于 max_bytes = 8：载荷范围为空"):
        payload_sizes(9, 8, 1)


def _numpy_oracle(kind: str, n: int) -> list[list[float]]:
    """Each rank's result of ``kind`` on the lab's known inputs, computed with numpy from the definitions."""
    chunk = 3
    base = [1000.0 * r + np.arange(chunk * n, dtype=np.float64) for r in range(n)]
    if kind == "all_reduce":
        return [list(np.sum(base, axis=0)) for _ in range(n)]
    if kind == "all_gather":
        gathered = np.concatenate([b[:chunk] for b in base])
        return [list(gathered) for _ in range(n)]
    if kind == "reduce_scatter":
        total = np.sum(base, axis=0)
        return [list(total[r * chunk : (r + 1) * chunk]) for r in range(n)]
    if kind == "all_to_all":
        return [list(np.concatenate([base[j][r * chunk : (r + 1) * chunk] for j in range(n)])) for r in range(n)]
    if kind == "broadcast":
        return [list(base[0]) for _ in range(n)]
    return [list(base[(r - 1) % n]) for r in range(n)]  # send_recv on a ring


@pytest.mark.parametrize("kind", COLLECTIVES)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_expected_output_agrees_with_a_numpy_oracle(kind: str, n: int) -> None:
    oracle = _numpy_oracle(kind, n)
    assert [expected_output(kind, n, r) for r in range(n)] == oracle


def test_verification_input_sizes() -> None:
    # S = 12 n bytes: 3 float32 elements per rank chunk; all_gather sends one chunk.
    assert len(verification_input("all_to_all", 4, 3)) == 12
    assert len(verification_input("all_gather", 4, 3)) == 3


def test_timing_statistic_is_max_over_ranks_of_medians() -> None:
    time_s, medians = reduce_max_of_medians([[3.0, 1.0, 2.0, 100.0], [2.5, 2.5, 9.0]])
    assert medians == (2.5, 2.5)
    assert time_s == 2.5
    assert reduce_max_of_medians([[1.0], [4.0], [2.0]]) == (4.0, (1.0, 4.0, 2.0))


# ---------------------------------------------------------------------------
# Reports and JSON
# ---------------------------------------------------------------------------


def _synthetic_report() -> CollectivesReport:
    results = []
    for kind in ("all_reduce", "send_recv"):
        sizes = payload_sizes(1024, 2**20, 2)
        times = [
            collective_time_s(kind, payload_bytes=s, ranks=2, bandwidth_bytes_per_s=2e9, latency_s=3e-5) for s in sizes
        ]
        fit = fit_alpha_beta(kind, 2, sizes, times)
        factor = bus_bandwidth_factor(kind, 2)
        points = tuple(
            CollectivePoint(s, t, (t, t * 0.9), s / t, s / t * factor, fit.predict_s(s))
            for s, t in zip(sizes, times, strict=True)
        )
        results.append(CollectiveResult(kind, 2, points, fit, True))
    return CollectivesReport(2, "gloo", "cpu", "spawn", "test", 5, 20, tuple(results))


def test_json_round_trip_and_tables() -> None:
    report = _synthetic_report()
    data = json.loads(json.dumps(report.to_json_dict()))
    assert load_collectives_json(data) == report
    text = report.format()
    assert "all_reduce: 2 ranks, backend gloo, device cpu" in text
    assert "α = 30.0 µs, B = 1.863 GiB/s" in text  # 2e9 B/s = 1.863 GiB/s
    coursekit.set_language("zh")
    assert "拟合汇总" in report.summary_table()


def test_loading_something_else_is_refused() -> None:
    with pytest.raises(ValueError) as excinfo:
        load_collectives_json({"schema": "coursekit.lab.memory/1"})
    assert str(excinfo.value) == (
        "schema = 'coursekit.lab.memory/1': not a collectives result written by --json "
        "(expected 'coursekit.lab.collectives/1')."
    )


def test_plot_draws_measured_points_and_the_fitted_line() -> None:
    from coursekit.lab.plot import plot_measured_vs_predicted
    from coursekit.plotting import figure_to_png

    report = _synthetic_report()
    fig = plot_measured_vs_predicted(report)
    assert len(fig.axes) == 2
    measured, model = fig.axes[0].get_lines()[:2]
    assert list(measured.get_xdata()) == [p.payload_bytes for p in report.results[0].points]
    fit = report.results[0].fit
    assert fit is not None
    x, y = model.get_xdata()[10], model.get_ydata()[10]
    assert y == pytest.approx(fit.predict_s(x) * 1000)  # drawn in milliseconds
    assert figure_to_png(fig)[:4] == b"\x89PNG"


# ---------------------------------------------------------------------------
# Command line: argument errors (no process is started)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["collectives", "--ranks", "0"], "error: argument --ranks: --ranks = 0: must be >= 1."),
        (["memory", "--ranks", "-3"], "error: argument --ranks: --ranks = -3: must be >= 1."),
        (
            ["collectives", "--collectives", "all_reduce,gather"],
            "error: argument --collectives: --collectives = 'gather': must be one of 'all_reduce', 'all_gather', "
            "'reduce_scatter', 'all_to_all', 'broadcast', 'send_recv'.",
        ),
        (
            ["collectives", "--min-bytes", "64K", "--max-bytes", "1K"],
            "error: min_bytes = 65536 is larger than max_bytes = 1024: the payload range is empty; "
            "make --min-bytes <= --max-bytes.",
        ),
        (["collectives", "--repeats", "0"], "error: argument --repeats: --repeats = 0: must be >= 1."),
        (["collectives", "--warmup", "-1"], "error: argument --warmup: --warmup = -1: must be >= 0."),
        (
            ["collectives", "--min-bytes", "1.5K"],
            "error: argument --min-bytes: --min-bytes = '1.5K': must be a whole number of bytes, optionally with a "
            "K, M or G suffix (powers of 1024), e.g. 4096 or 16M.",
        ),
        (
            ["memory", "--strategies", "ddp,zero"],
            "error: argument --strategies: --strategies = 'zero': must be one of 'ddp', 'fsdp2-zero3', "
            "'fsdp2-zero2', 'tp'.",
        ),
        (
            ["memory", "--json", f"{ROOT}/README.md/x.json"],
            f"error: --json {ROOT}/README.md/x.json: {ROOT}/README.md is a file, not a folder.",
        ),
    ],
)
def test_cli_rejects_bad_arguments(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own type errors exit directly
        code = int(exit_.code or 0)
    assert code == EXIT_BAD_ARGUMENTS
    err = capsys.readouterr().err
    assert err.splitlines()[-1].endswith(message), err


def test_cli_error_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "zh", "collectives", "--ranks", "0"]) == EXIT_BAD_ARGUMENTS
    assert capsys.readouterr().err.splitlines()[-1].endswith("错误：参数 --ranks：--ranks = 0：必须 >= 1。")


def test_cli_module_entry_point_exits_non_zero() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "coursekit.lab", "collectives", "--collectives", "scatter"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COURSEKIT_LANG": "en"},
    )
    assert done.returncode == EXIT_BAD_ARGUMENTS
    assert "--collectives = 'scatter': must be one of" in done.stderr


def test_parse_bytes_suffixes() -> None:
    assert [parse_bytes(t) for t in ("4096", "4K", "4k", "16M", "1G", "2KiB")] == [4096, 4096, 4096, 2**24, 2**30, 2048]


def test_ranks_under_torchrun(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"RANK": "0", "WORLD_SIZE": "4", "LOCAL_RANK": "0"}.items():
        monkeypatch.setenv(name, value)
    assert check_ranks(None) == 4
    assert check_ranks(4) == 4
    with pytest.raises(ValueError) as excinfo:
        check_ranks(2)
    assert str(excinfo.value) == (
        "ranks = 2 does not match torchrun's WORLD_SIZE = 4: omit --ranks under torchrun or make them equal."
    )


def test_cuda_without_a_gpu_is_refused_before_starting(torch_available: Any) -> None:
    if torch_available.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ValueError) as excinfo:
        run_memory(ranks=2, device="cuda")
    assert str(excinfo.value) == "device = 'cuda': torch.cuda.is_available() is False; use --device auto or cpu."


def test_ranks_required_outside_torchrun(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RANK", raising=False)
    with pytest.raises(TypeError, match=r"^ranks = None: must be an integer \(int\), not NoneType\.$"):
        run_collectives(ranks=None)


# ---------------------------------------------------------------------------
# Memory accounting (pure): layout, ledger, adjustments
# ---------------------------------------------------------------------------


def _count_params(config: TinyTransformerConfig) -> int:
    """Parameters of the lab model, from the architecture: per block 4 (d² + d) attention, 2 LayerNorms,
    fc1 (d·f + f), fc2 (f·d + d); head LayerNorm 2d and classifier (c·d + c)."""
    d, f, c = config.d_model, config.d_ff, config.classes
    block = 4 * (d * d + d) + 2 * 2 * d + (d * f + f) + (f * d + d)
    return config.layers * block + 2 * d + (c * d + c)


@pytest.mark.parametrize(
    "config", [TinyTransformerConfig(), TinyTransformerConfig(d_model=48, heads=6, d_ff=96, layers=3, classes=7)]
)
def test_parameter_layout_counts_the_architecture(config: TinyTransformerConfig) -> None:
    specs = parameter_layout(config)
    assert sum(s.numel for s in specs) == _count_params(config)
    assert len(specs) == config.layers * 16 + 4
    replicated = sum(s.numel for s in specs if s.tp_placement == "replicate")
    # LayerNorms (2 per block + head), the two row-wise biases per block, the whole classifier.
    d = config.d_model
    assert replicated == config.layers * (4 * d + 2 * d) + 2 * d + config.classes * d + config.classes


def test_parameter_layout_matches_the_torch_model(torch_available: Any) -> None:
    from coursekit.lab._memory_worker import parameter_shapes

    config = TinyTransformerConfig(layers=3, classes=7)
    assert parameter_shapes(config) == [(s.name, s.shape) for s in parameter_layout(config)]


def _fsdp_padded_elements(config: TinyTransformerConfig, n: int) -> int:
    return sum(-(-s.shape[0] // n) * (s.numel // s.shape[0]) for s in parameter_layout(config))


def _fsdp_owned_elements(config: TinyTransformerConfig, n: int, rank: int) -> int:
    """Elements of rank ``rank``'s unpadded torch.chunk shard of every tensor."""
    total = 0
    for spec in parameter_layout(config):
        chunk = -(-spec.shape[0] // n)  # torch.chunk: ceil(d0 / n) rows per chunk, the last ones shorter or empty
        mine = len(range(spec.shape[0])[rank * chunk : (rank + 1) * chunk])
        total += mine * (spec.numel // spec.shape[0])
    return total


def _independent_expectation(strategy: str, config: TinyTransformerConfig, n: int, rank: int) -> dict[str, int]:
    """Bytes a rank must hold, from the shapes alone (fp32, Adam: 2 moments + a 4-byte step per tensor)."""
    specs = parameter_layout(config)
    total = sum(s.numel for s in specs)
    steps = 4 * len(specs)
    if strategy == "ddp":
        return {"params": 4 * total, "grads": 4 * total, "optimizer": 8 * total + steps}
    if strategy == "tp":
        local = sum(s.numel // n if s.tp_placement != "replicate" else s.numel for s in specs)
        return {"params": 4 * local, "grads": 4 * local, "optimizer": 8 * local + steps}
    padded = _fsdp_padded_elements(config, n)
    owned = _fsdp_owned_elements(config, n, rank)
    params = 4 * padded if strategy == "fsdp2-zero3" else 4 * padded * (n + 1)  # + the all-gathered copy
    return {"params": params, "grads": 4 * padded, "optimizer": 8 * owned + steps}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_adjustments_explain_the_independent_expectation(strategy: str, n: int) -> None:
    config = TinyTransformerConfig()
    if strategy == "tp" and tp_supported(config, n) is not None:
        pytest.skip("tp needs ranks dividing heads, d_model and d_ff")
    for rank in range(n):
        result = compare_memory(strategy, config, n, rank, _independent_expectation(strategy, config, n, rank))
        assert result.matches, [(row.component, row.unexplained_bytes) for row in result.rows]


def test_fsdp_padding_by_hand() -> None:
    # n = 2: only the classifier (5 x 64 weight, 5 bias) has an odd dim 0; each rank stores 3 rows of it.
    # padded elements per rank = (N - 325)/2 + 3*64 + 3 = 50048 + 195; the even share is N/2 = 50210.5.
    config = TinyTransformerConfig()
    assert _count_params(config) == 100421
    adjustments = expected_adjustments("fsdp2-zero3", config, 2, 0)
    assert [(a.code, a.delta_bytes) for a in adjustments["params"]] == [("padding", 4 * (50048 + 195 - 50210.5))]
    rank1 = expected_adjustments("fsdp2-zero3", config, 2, 1)["optimizer"]
    # rank 1 owns 2 of the 5 rows: 50048 + 2*64 + 2 elements, 8 bytes each, against 8 * 50210.5.
    assert rank1[0].code == "uneven_shard"
    assert rank1[0].delta_bytes == 8 * (50048 + 130 - 50210.5)


def test_ledger_for_uses_the_fp32_adam_recipe() -> None:
    ledger = ledger_for("fsdp2-zero2", 1000, 4)
    assert (ledger.params_bytes, ledger.grads_bytes, ledger.optimizer_bytes) == (4000, 1000, 2000)
    assert ledger_for("tp", 1000, 4).total_bytes == 16 * 1000 / 4


def test_a_wrong_measurement_is_flagged() -> None:
    config = TinyTransformerConfig()
    good = _independent_expectation("ddp", config, 2, 0)
    bad = compare_memory("ddp", config, 2, 0, {**good, "grads": good["grads"] * 2})  # e.g. DDP buckets not viewed
    assert not bad.matches
    assert bad.row("grads").unexplained_bytes == good["grads"]
    assert bad.row("params").matches


def test_tp_with_ranks_not_dividing_heads_is_skipped_without_spawning() -> None:
    report = run_memory(ranks=3, strategies="tp")
    assert report.results == () and report.skipped["tp"].code == "tp_unsupported"
    assert report.table("tp") == (
        "tensor parallelism (TP): ColwiseParallel / RowwiseParallel: skipped, tensor parallelism needs the rank "
        "count to divide heads = 8, d_model = 64 and d_ff = 256; ranks = 3."
    )


def test_config_is_validated() -> None:
    with pytest.raises(ValueError, match=r"^heads = 5: must divide d_model = 64\.$"):
        TinyTransformerConfig(heads=5)
    with pytest.raises(TypeError, match=r"^layers = True: must be an integer \(int\), not bool\.$"):
        TinyTransformerConfig(layers=True)


def test_lab_messages_have_both_languages_with_the_same_placeholders() -> None:
    import coursekit.lab.cli  # noqa: F401  (registers its messages)

    entries = {key: texts for key, texts in catalog().items() if key.startswith("lab.")}
    assert len(entries) > 40
    for key, texts in entries.items():
        assert placeholders(texts["zh"]) == placeholders(texts["en"]), key


# ---------------------------------------------------------------------------
# Distributed runs (spawned over gloo on 127.0.0.1)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module", params=[2, 4], ids=["2 ranks", "4 ranks"])
def outputs(request: pytest.FixtureRequest, torch_available: Any) -> tuple[int, dict[str, Any]]:
    from coursekit.lab.collectives import collective_outputs

    return request.param, collective_outputs(ranks=request.param)


@pytest.mark.parametrize("kind", COLLECTIVES)
def test_collectives_compute_the_right_values(outputs: tuple[int, dict[str, Any]], kind: str) -> None:
    n, results = outputs
    got = results[kind]
    assert not isinstance(got, str), got
    assert [list(rank_output) for rank_output in got] == _numpy_oracle(kind, n)


@pytest.fixture(scope="module")
def cli_collectives(tmp_path_factory: pytest.TempPathFactory, torch_available: Any) -> tuple[int, str, dict[str, Any]]:
    path = tmp_path_factory.mktemp("lab") / "fits.json"
    argv = ["collectives", "--ranks", "2", "--min-bytes", "1K", "--max-bytes", "32K", "--repeats", "3", "--warmup", "1"]
    from contextlib import redirect_stdout
    from io import StringIO

    buffer = StringIO()
    with redirect_stdout(buffer):
        code = main([*argv, "--json", str(path)])
    return code, buffer.getvalue(), json.loads(path.read_text(encoding="utf-8"))


def test_cli_collectives_json_schema(cli_collectives: tuple[int, str, dict[str, Any]]) -> None:
    code, stdout, data = cli_collectives
    assert code == EXIT_OK
    assert data["schema"] == COLLECTIVES_SCHEMA
    assert (data["ranks"], data["backend"], data["device"], data["launcher"]) == (2, "gloo", "cpu", "spawn")
    assert (data["timing"]["warmup"], data["timing"]["repeats"]) == (1, 3)
    assert set(data["collectives"]) == set(COLLECTIVES)
    sizes = list(payload_sizes(1024, 32 * 1024, 2))
    for kind, entry in data["collectives"].items():
        assert entry["verified"] is True and entry["unsupported"] is None, kind  # torch 2.13 gloo runs all six
        assert entry["alpha_s"] >= 0
        assert entry["bandwidth_bytes_per_s"] is None or entry["bandwidth_bytes_per_s"] > 0
        assert [p["payload_bytes"] for p in entry["points"]] == sizes
        factor = bus_bandwidth_factor(kind, 2)
        for point in entry["points"]:
            assert len(point["rank_medians_s"]) == 2
            assert point["time_s"] == max(point["rank_medians_s"])
            assert point["algbw_bytes_per_s"] == pytest.approx(point["payload_bytes"] / point["time_s"])
            assert point["busbw_bytes_per_s"] == pytest.approx(point["algbw_bytes_per_s"] * factor)
            if entry["bandwidth_bytes_per_s"] is not None:  # the Q2 function takes the fitted numbers as they are
                assert point["predicted_s"] == pytest.approx(
                    collective_time_s(
                        kind,
                        payload_bytes=point["payload_bytes"],
                        ranks=2,
                        bandwidth_bytes_per_s=entry["bandwidth_bytes_per_s"],
                        latency_s=entry["alpha_s"],
                    )
                )
        assert f"{kind}: 2 ranks, backend gloo, device cpu" in stdout
    assert load_collectives_json(data).ranks == 2


@pytest.fixture(scope="module")
def cli_memory(tmp_path_factory: pytest.TempPathFactory, torch_available: Any) -> tuple[int, str, dict[str, Any]]:
    from contextlib import redirect_stdout
    from io import StringIO

    path = tmp_path_factory.mktemp("lab") / "memory.json"
    buffer = StringIO()
    with redirect_stdout(buffer):
        code = main(["memory", "--ranks", "2", "--json", str(path)])
    return code, buffer.getvalue(), json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_measured_bytes_equal_the_ledger_plus_explained_extras(
    cli_memory: tuple[int, str, dict[str, Any]], strategy: str
) -> None:
    code, _, data = cli_memory
    assert code == EXIT_OK and data["schema"] == MEMORY_SCHEMA and data["matches"] is True
    config = TinyTransformerConfig()
    ranks = data["strategies"][strategy]["ranks"]
    assert [entry["rank"] for entry in ranks] == [0, 1]
    for entry in ranks:
        measured = {row["component"]: row["measured_bytes"] for row in entry["rows"]}
        expected = _independent_expectation(strategy, config, 2, entry["rank"])
        assert {k: measured[k] for k in expected} == expected
        assert measured["total"] == sum(expected.values())
        assert all(row["unexplained_bytes"] == 0 for row in entry["rows"])


def test_memory_table_and_one_model(cli_memory: tuple[int, str, dict[str, Any]]) -> None:
    _, stdout, data = cli_memory
    assert "All 32 numbers (every strategy, every rank) equal ledger + the explanations above." in stdout
    assert 'ledger = training_state_memory(100421, recipe="fp32-adam", dp=2, zero_stage=3)' in stdout
    losses = [data["strategies"][s]["loss"] for s in STRATEGIES]
    assert losses == pytest.approx([losses[0]] * 4, rel=1e-5)  # same weights, same batch: the same model


@pytest.mark.skipif(shutil.which("torchrun", path=str(Path(sys.executable).parent)) is None, reason="no torchrun")
def test_the_same_command_runs_under_torchrun(tmp_path: Path, torch_available: Any) -> None:
    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent))
    assert torchrun is not None
    path = tmp_path / "fits.json"
    command = [torchrun, "--standalone", "--nproc-per-node", "2", "-m", "coursekit.lab", "collectives"]
    command += ["--collectives", "all_reduce,send_recv", "--max-bytes", "8K", "--repeats", "2", "--json", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert (data["launcher"], data["ranks"], set(data["collectives"])) == ("torchrun", 2, {"all_reduce", "send_recv"})
    assert done.stdout.count("Fit summary") == 1  # only rank 0 prints


# ---------------------------------------------------------------------------
# The optional conda environment of the lab
# ---------------------------------------------------------------------------


def test_lab_conda_environment_is_the_course_plus_cpu_pytorch() -> None:
    yaml = pytest.importorskip("yaml")
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    base = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))["dependencies"]
    lab = yaml.safe_load((ROOT / "environment-lab.yml").read_text(encoding="utf-8"))["dependencies"]
    # Every package of the course environment, and nothing else but PyTorch (order does not matter).
    assert sorted(item for item in base if isinstance(item, str)) == sorted(
        item for item in lab if isinstance(item, str) and not item.startswith("pytorch")
    )
    (torch_spec,) = [item for item in lab if isinstance(item, str) and item.startswith("pytorch")]
    assert "build='cpu*'" in torch_spec
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    (requirement,) = extra["lab"]
    assert requirement.startswith("torch")
    assert f"version='{requirement.removeprefix('torch')}'" in torch_spec


@pytest.mark.parametrize(
    ("lang", "title", "ylabel"), [("zh", "全归约 (n = 2)", "时间（毫秒）"), ("en", "all-reduce (n = 2)", "time (ms)")]
)
def test_plot_names_the_collective_and_labels_time_in_milliseconds(lang: str, title: str, ylabel: str) -> None:
    """Titles take the lesson's name of the collective; time is drawn in ms (so the alt text read from the data
    agrees with the label), labelled at 1, 2 and 5 times each power of ten as plain numbers, without minor ticks."""
    from coursekit.lab.plot import plot_measured_vs_predicted
    from coursekit.plotting import plot_language

    coursekit.set_language(lang)
    try:
        if plot_language() != lang:
            pytest.skip("no CJK font: figures fall back to English")
        ax = plot_measured_vs_predicted(_synthetic_report()).axes[0]
        assert ax.get_title() == title and ax.get_ylabel() == ylabel
        formatter = ax.yaxis.get_major_formatter()
        assert [formatter(ms, 0) for ms in (0.2, 5.0, 1000.0)] == ["0.2", "5", "1000"]
        report = _synthetic_report()
        first = report.results[0].points[0]
        assert ax.get_lines()[0].get_ydata()[0] == pytest.approx(first.time_s * 1000)
        low, high = ax.get_ylim()
        ticks = [t for t in ax.yaxis.get_majorticklocs() if low <= t <= high]
        assert ticks and all(round(t / 10 ** math.floor(math.log10(t) + 1e-9), 6) in (1.0, 2.0, 5.0) for t in ticks)
        assert len(ax.yaxis.get_minorticklocs()) == 0 and len(ax.xaxis.get_minorticklocs()) == 0
    finally:
        coursekit.set_language("en")
