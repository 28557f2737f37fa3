"""Does the estimate order two measured layouts of one model as they were measured? (``layout_pairs``)

A pair is two published runs of one model on the same GPUs, batch, sequence length and precision, in different
layouts. The measured ratios here are the sources' own figures worked by hand (Megatron-MoE-ModelZoo's H100 table for
Qwen3 235B-A22B at e8650517, "Per GPU TF" column); none is read back from the code under test.
"""

from __future__ import annotations

import itertools

import pytest

from coursekit.planner import LayoutPair, layout_pairs, published_degrees
from coursekit.planner.calibration import MEASUREMENT_REPEATABILITY
from coursekit.planner.validation import _published_layout
from coursekit.published_runs import all_published_runs

# The zoo table's 4K rows (TFLOP/s per GPU, BF16, 256 H100, GBS 2048), by their layouts: two rows share TP 2, EP 32,
# PP 8 (without and with the 1F1B all-to-all overlap); the other three each have their own layout.
ZOO_4K_TFLOPS = {
    "EP 32": 245.0,
    "EP 32, 1F1B overlap": 276.0,
    "EP 8, FSDP": 276.0,
    "all-to-all, EP 8, PP 32": 200.0,
    "TP 4, EP 8": 167.0,
}


@pytest.fixture(scope="module")
def pairs() -> tuple[LayoutPair, ...]:
    return layout_pairs()


def _spread(ratio: float) -> float:
    """A ratio or its inverse, whichever is at least 1 (a pair's order in the registry is arbitrary)."""
    return max(ratio, 1 / ratio)


def test_the_zoo_table_pairs_are_its_rows_of_different_layouts_with_their_published_ratios(
    pairs: tuple[LayoutPair, ...],
) -> None:
    """Of the five rows, the two EP 32 rows share a layout and are not a pair: 2 · 3 + 3 = 9 pairs, with ratios
    worked from the table."""
    same_layout = {"EP 32", "EP 32, 1F1B overlap"}
    by_hand = sorted(
        round(_spread(ZOO_4K_TFLOPS[a] / ZOO_4K_TFLOPS[b]), 4)
        for a, b in itertools.combinations(ZOO_4K_TFLOPS, 2)
        if not {a, b} <= same_layout
    )
    assert len(by_hand) == 9
    zoo = [p for p in pairs if p.same_source and "MoE-ModelZoo" in p.first_name]
    assert sorted(round(_spread(p.measured), 4) for p in zoo) == by_hand
    # the zoo's script-only row (its run_h100_235b.sh comment, CUDA graphs) is not in the table: never "one table"
    script_row = [p for p in pairs if "CUDA graphs" in p.first_name + p.second_name]
    assert script_row and not any(p.same_source for p in script_row)


def test_the_estimated_ratio_is_the_inverse_ratio_of_estimated_steps(pairs: tuple[LayoutPair, ...]) -> None:
    """Two runs with one batch on the same GPUs: the throughput ratio is the step-time ratio inverted, in the runs'
    own FLOP convention (Megatron-Core's 2025 count for the zoo, tokens per second for the vendor tables)."""
    runs = {run.name: run for run in all_published_runs()}
    for pair in pairs:
        first, second = runs[pair.first_name], runs[pair.second_name]
        steps = []
        for run in (first, second):
            _, check = _published_layout(run, run.workload())
            assert check.candidate is not None and check.candidate.step_s is not None
            steps.append(check.candidate.step_s)
        assert pair.estimated == pytest.approx(steps[1] / steps[0], rel=1e-9)


def test_pairs_differ_in_layout_and_share_model_gpus_batch_sequence_and_precision(
    pairs: tuple[LayoutPair, ...],
) -> None:
    runs = {run.name: run for run in all_published_runs()}
    assert pairs
    for pair in pairs:
        a, b = runs[pair.first_name], runs[pair.second_name]
        assert published_degrees(a) != published_degrees(b)
        assert (a.model, a.cluster, a.nodes, a.global_batch, a.seq_len) == (
            b.model,
            b.cluster,
            b.nodes,
            b.global_batch,
            b.seq_len,
        )
        assert a.workload().precision == b.workload().precision
    names = {frozenset((p.first_name, p.second_name)) for p in pairs}
    # DGX Cloud ran each recipe in BF16 and in FP8 with one layout: a precision pair, never a layout pair
    assert not any(all("DGX Cloud" in n for n in pair) and len({n[-5:] for n in pair}) == 2 for pair in names)
    # Megatron-Bridge's 26.02 and 26.02.01 rows of Qwen3 30B-A3B: one layout measured twice, not a pair
    assert not any(all("GBS 1024, 26.02" in n for n in pair) for pair in names)


def test_same_order_counts_a_pair_only_when_its_measurements_order_it() -> None:
    """By hand: measured 1.30 (A faster) but estimated 0.95 (B faster) is reversed; measured 0.80 and estimated 0.90
    agree; measured 1.02 is inside the 4.5 % repeatability and orders nothing."""
    assert LayoutPair("a", "b", 1.30, 0.95, True).same_order is False
    assert LayoutPair("a", "b", 0.80, 0.90, False).same_order is True
    assert LayoutPair("a", "b", 1.02, 1.40, True).same_order is None
    edge = 1 + MEASUREMENT_REPEATABILITY
    assert LayoutPair("a", "b", edge * 1.001, 1.1, True).same_order is True
    assert LayoutPair("a", "b", 1.30, 1.3 / 1.30, True).estimated_over_measured == pytest.approx(1 / 1.30)


def test_comparisons_already_made_are_used_and_give_the_same_pairs(
    pairs: tuple[LayoutPair, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lesson 9 compares every run first and passes those comparisons: no run is planned again, and the pairs are
    the ones made from scratch; runs the list leaves out are still compared."""
    from coursekit.planner import validation

    runs = all_published_runs()
    made = [validation.compare_published(run) for run in runs]
    planned: list[str] = []
    original = validation.compare_published

    def counting(run: object) -> object:
        planned.append(run.name)  # type: ignore[attr-defined]
        return original(run)

    monkeypatch.setattr(validation, "compare_published", counting)
    assert layout_pairs(made) == pairs and planned == []
    assert layout_pairs(tuple(made[1:])) == pairs and planned == [runs[0].name]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_comparisons_of_something_else_are_refused_naming_the_item(lang: str) -> None:
    import coursekit
    from coursekit.planner import compare_published

    run = all_published_runs()[0]
    coursekit.set_language(lang)
    try:
        with pytest.raises(TypeError, match=r"comparisons = 'abc'"):
            layout_pairs("abc")
        with pytest.raises(TypeError, match=r"comparisons\[1\] = 3"):
            layout_pairs([compare_published(run), 3])
        renamed = compare_published(run)._replace(name="my run")
        with pytest.raises(ValueError) as info:
            layout_pairs([renamed])
        assert str(info.value).startswith("comparisons[0] = 'my run'")
        assert ("已登记" if lang == "zh" else "registered published run") in str(info.value)
        resourced = compare_published(run)._replace(source="elsewhere")
        with pytest.raises(ValueError, match=r"comparisons\[0\]"):
            layout_pairs([resourced])
    finally:
        coursekit.set_language("en")
