"""NeMo's long-sequence table (Llama 2 7B on H100s, 8K to 1024K tokens): its rows as registered runs, and what context
parallelism buys at each length, measured and estimated (``cp_speedups``).

The expected values come from the table (its TFLOP/s with and without CP, its speed-up column) and from NeMo's
Llama 2 FLOP count worked by hand from the model's config; never from the code under test.
"""

from __future__ import annotations

import pytest

from coursekit.planner import CpSpeedup, compare_published, cp_speedups
from coursekit.published_runs import (
    NEMO_LONG_CONTEXT_ROWS,
    NEMO_LONG_CONTEXT_RUNS,
    RUN_ROLES,
    all_published_runs,
    nemo_llama2_flops_per_token,
)

#: The table's "Speedup with CP/without CP" column, 4K to 1024K, as printed.
SPEEDUP_COLUMN = (1.00, 1.00, 1.00, 1.03, 1.07, 1.31, 1.40, 5.28, 20.23)


@pytest.fixture(scope="module")
def speedups() -> dict[int, CpSpeedup]:
    return {row.seq_len // 1024: row for row in cp_speedups()}


def test_rows_transcribe_the_table() -> None:
    """Each row's TFLOP/s with CP over its TFLOP/s without reproduces the table's printed speed-up; one GPU per 1K
    tokens and 4M tokens a step, as the table's columns give; the layout uses every GPU."""
    assert len(NEMO_LONG_CONTEXT_ROWS) == len(SPEEDUP_COLUMN)
    for (k, gpus, batch, tp, pp, dp, cp, with_cp, without), printed in zip(
        NEMO_LONG_CONTEXT_ROWS, SPEEDUP_COLUMN, strict=True
    ):
        assert round(with_cp / without, 2) == printed
        assert gpus == k and batch * k == 4096 and tp * pp * dp * cp == gpus


def test_nemo_llama2_count_by_hand() -> None:
    """NeMo's count for Llama 2 7B (32 layers, h 4096, 32 heads, 32 K/V heads, f 11008, V 32000), worked by hand: per
    token 32·4096²·(12 + 12 + 18·11008/4096 + 12·s/4096 + 6·32000/(32·4096)). At 4K: 536,870,912 · 85.840 = 46.085
    GFLOP; at 1024K the attention term alone is 12·1048576/4096 = 3072 of the bracket's 3145.84."""
    base = 32 * 4096**2
    assert nemo_llama2_flops_per_token(4096) == pytest.approx(base * (12 + 12 + 18 * 11008 / 4096 + 12 + 1.46484375))
    assert nemo_llama2_flops_per_token(4096) / 1e9 == pytest.approx(46.085, abs=1e-3)
    assert nemo_llama2_flops_per_token(1048576) == pytest.approx(base * (24 + 48.375 + 3072 + 1.46484375))
    # the same count turns NeMo 24.07's LLAMA2-7B row, 16934 tokens/s, into that table's 780 TFLOP/s
    assert 16934 * nemo_llama2_flops_per_token(4096) / 1e12 == pytest.approx(780, abs=0.5)


def test_nemo_llama2_count_is_megatron_cores_r08_count_at_tp_1() -> None:
    """NeMo's Llama 2 count and Megatron-Core r0.8's are the same formula (one place in spirit: kept apart only because
    the registry cannot call the planner at import); at TP 1 the vocabulary, 32000, needs no padding."""
    from coursekit.planner import megatron_core_model_flops_per_step
    from coursekit.presets import MODELS

    for s in (4096, 131072, 1048576):
        by_megatron = megatron_core_model_flops_per_step(MODELS["llama2-7b"], 1, s, "r0.8", 1) / s
        assert nemo_llama2_flops_per_token(s) == pytest.approx(by_megatron, rel=1e-12)


def test_registered_runs_are_the_whole_node_rows_and_validate() -> None:
    """The 4K row runs on half a node and stays out; the others are validation runs, each at its published layout, with
    tokens per GPU-second from the row's TFLOP/s (1024K: 536e12 / (536,870,912 · 3145.84) = 317.4)."""
    names = [run.name for run in NEMO_LONG_CONTEXT_RUNS]
    assert len(names) == 8 and all(RUN_ROLES[name] == "validation" for name in names)
    assert set(names) <= {run.name for run in all_published_runs()}
    longest = next(run for run in NEMO_LONG_CONTEXT_RUNS if run.seq_len == 1048576)
    assert dict(longest.degrees) == {"tp": 8, "cp": 32, "pp": 1, "dp": 4} and longest.gpus == 1024
    assert longest.measured_tokens_per_gpu_s == pytest.approx(536e12 / (32 * 4096**2 * 3145.83984375))
    assert round(longest.measured_tokens_per_gpu_s, 1) == 317.4


def test_every_long_context_row_passes() -> None:
    """All eight rows meet the pass rule: the published CP layout is accepted, in tie group 1 or the top 10, within
    1.25x of the best estimate and within ±30 % of the measured throughput."""
    missed = {run.name: sorted(compare_published(run).missed) for run in NEMO_LONG_CONTEXT_RUNS}
    assert missed == {name: [] for name in missed}


def test_cp_pays_only_at_long_sequences_as_measured(speedups: dict[int, CpSpeedup]) -> None:
    """Up to 64K the table measures CP at most 7.5 % faster, and the estimate puts the fastest CP-free layout within
    5 % of the CP layout; from 256K both put CP well ahead (above 1.25x)."""
    assert sorted(speedups) == [8, 16, 32, 64, 128, 256, 512, 1024]
    for k in (8, 16, 32, 64):
        assert speedups[k].measured < 1.075
        assert speedups[k].estimated == pytest.approx(1.0, abs=0.05)
    for k in (256, 512, 1024):
        assert speedups[k].measured > 1.25 and speedups[k].estimated is not None and speedups[k].estimated > 1.25


def test_where_the_estimate_misses(speedups: dict[int, CpSpeedup]) -> None:
    """The two gaps lesson 9 states. At 128K the table measures CP 1.31x faster while the estimate finds a layout
    without CP and without a pipeline as fast (TP 4 with activation offloading, TP 8 before the search tried
    offloading). From 256K the estimate overstates the speed-up (1.4x to 1.6x the measured): with fewer sequences a
    step than GPUs and TP inside a node, its CP-free layouts are pipelines of one or two micro-batches, while the
    vendor's CP-free layout is not given. A change that closes either gap shows up here."""
    row = speedups[128]
    assert row.measured == pytest.approx(555 / 424) and row.estimated is not None and row.estimated < 1.1
    assert ",pp=1," in row.no_cp_layout and ",cp=1," in row.no_cp_layout
    for k in (256, 512, 1024):
        over = speedups[k].estimated_over_measured
        assert over is not None and 1.3 < over < 1.7
        assert ",pp=1," not in speedups[k].no_cp_layout
        # lesson 9's reason: fewer sequences a step than GPUs, so the CP-free pipelines get 1 or 2 micro-batches
        assert int(speedups[k].no_cp_layout.split("ga=")[1].split(",")[0]) <= 2
    assert all(run.global_batch < run.gpus for run in NEMO_LONG_CONTEXT_RUNS if run.seq_len >= 256 * 1024)


def test_bad_sequence_length_is_named() -> None:
    with pytest.raises(ValueError, match="seq_len"):
        nemo_llama2_flops_per_token(0)
    with pytest.raises(TypeError, match="seq_len"):
        nemo_llama2_flops_per_token(4096.5)  # type: ignore[arg-type]


def test_estimated_over_measured_by_hand() -> None:
    assert CpSpeedup("x", 8192, 2.0, 3.0, "").estimated_over_measured == 1.5
    assert CpSpeedup("x", 8192, 2.0, None, "").estimated_over_measured is None
