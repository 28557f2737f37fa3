"""S18: the selection matrix, the three paper cases and the topology step (coursekit.matrix)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import coursekit
from coursekit.i18n import Text
from coursekit.matrix import (
    CASE_FITS_ONE_DEVICE,
    CASE_LAYER_EXCEEDS_DEVICE,
    CASE_STATE_EXCEEDS_DEVICE,
    MATRIX_HEADERS,
    PAPER_CASES,
    SELECTION_MATRIX,
    STRATEGIES,
    TOPOLOGIES,
    VERDICT_LABELS,
    VERDICTS,
    PaperCase,
    combination_memory_gib,
    evaluate_paper_case,
    evaluate_paper_cases,
    fsdp_gather_peak_gib,
    matrix_table,
    topology_changes,
)

CJK = re.compile(r"[\u4e00-\u9fff]")


# --------------------------------------------------------------------------- the matrix


def test_matrix_has_seed_001_strategies_and_bilingual_cells() -> None:
    assert tuple(row.strategy for row in SELECTION_MATRIX) == STRATEGIES == ("DP", "FSDP", "TP", "PP")
    for row in SELECTION_MATRIX:
        for cell in (row.bottleneck_solved, row.main_communication, row.conditions, row.cost):
            assert isinstance(cell, Text)
            assert CJK.search(cell.zh) and not CJK.search(cell.en)
    assert [h.en for h in MATRIX_HEADERS] == [
        "Strategy",
        "Bottleneck solved",
        "Main communication",
        "Conditions",
        "Cost",
    ]


def test_matrix_carries_the_seed_facts() -> None:
    by_name = {row.strategy: row for row in SELECTION_MATRIX}
    # seed 001: TP "通常需要高速互联"; PP bubble (p-1)/(m+p-1); FSDP ideal M_model/P; DP replicates every state.
    assert "NVLink" in by_name["TP"].conditions.en
    assert "(p-1)/(m+p-1)" in by_name["PP"].cost.zh and "(p-1)/(m+p-1)" in by_name["PP"].cost.en
    assert "M_model/P" in by_name["FSDP"].bottleneck_solved.zh
    assert "replicates" in by_name["DP"].cost.en


def test_matrix_table_follows_the_language() -> None:
    assert matrix_table("zh")[0] == ["策略", "解决的瓶颈", "主要通信", "适用条件", "代价"]
    coursekit.set_language("zh")
    table = matrix_table()
    assert len(table) == 5 and all(len(row) == 5 for row in table)
    assert table[2][0] == "FSDP" and CJK.search(table[2][1])
    with pytest.raises(ValueError) as info:
        matrix_table("fr")
    assert str(info.value) == "lang = 'fr'：必须是 'zh', 'en' 之一。"


# --------------------------------------------------------------------------- the paper cases


def seed_build_resource_ledger(
    state_gib: float, activation_gib: float, runtime_reserve_gib: float, device_memory_gib: float
) -> dict[str, Any]:
    """Seed 000 Q1's ledger, copied as the oracle for the cases' fit."""
    values = (state_gib, activation_gib, runtime_reserve_gib, device_memory_gib)
    if any(value < 0 for value in values) or device_memory_gib == 0:
        raise ValueError("容量必须为非负数，且设备显存必须大于 0 GiB")
    required_gib = state_gib + activation_gib + runtime_reserve_gib
    headroom_gib = device_memory_gib - required_gib
    return {"required_gib": round(required_gib, 2), "fits_one_device": headroom_gib >= 0}


def _ledger(case: PaperCase) -> dict[str, Any]:
    return seed_build_resource_ledger(
        case.training_state_gib, case.activation_gib, case.runtime_reserve_gib, case.device_memory_gib
    )


def test_paper_cases_are_the_three_of_seed_001() -> None:
    assert [case.key for case in PAPER_CASES] == ["fits_one_device", "state_exceeds_device", "layer_exceeds_device"]
    # Case 1 is seed 000 Q1's `fits` ledger (13, 4, 2 on 24 GiB).
    fits = seed_build_resource_ledger(13.0, 4.0, 2.0, 24.0)
    assert fits["fits_one_device"] and _ledger(CASE_FITS_ONE_DEVICE) == fits
    # Case 2: the full training state alone exceeds the device (S18: M_model > C_device).
    assert CASE_STATE_EXCEEDS_DEVICE.training_state_gib > CASE_STATE_EXCEEDS_DEVICE.device_memory_gib
    assert not _ledger(CASE_STATE_EXCEEDS_DEVICE)["fits_one_device"]
    # Case 3: one layer's weights alone exceed the device.
    assert CASE_LAYER_EXCEEDS_DEVICE.largest_layer_gib > CASE_LAYER_EXCEEDS_DEVICE.device_memory_gib
    # ZeRO paper (Rajbhandari et al. 2020, sec. 3.1): mixed-precision Adam holds 16 bytes per parameter,
    # 8x the 2-byte fp16/bf16 weights. Case 3's 40 GiB of weights therefore carry 320 GiB of state.
    assert CASE_LAYER_EXCEEDS_DEVICE.training_state_gib == 40.0 * 16 / 2
    assert all(case.num_devices == 32 for case in PAPER_CASES)


# Expected verdicts, derived by hand from seed 001 and the module's rules (exclude first, then prefer).
EXPECTED = {
    ("fits_one_device", "unspecified"): {
        "DP": "feasible",
        "FSDP": "not_preferred",
        "TP": "not_preferred",
        "PP": "not_preferred",
    },
    ("state_exceeds_device", "unspecified"): {
        "DP": "not_preferred",
        "FSDP": "feasible",
        "TP": "not_preferred",
        "PP": "feasible",
    },
    ("layer_exceeds_device", "unspecified"): {
        "DP": "not_preferred",
        "FSDP": "feasible",
        "TP": "needs_info",
        "PP": "not_preferred",
    },
    ("fits_one_device", "hierarchical"): {
        "DP": "feasible",
        "FSDP": "not_preferred",
        "TP": "not_preferred",
        "PP": "not_preferred",
    },
    ("state_exceeds_device", "hierarchical"): {
        "DP": "not_preferred",
        "FSDP": "feasible",
        "TP": "not_preferred",
        "PP": "feasible",
    },
    ("layer_exceeds_device", "hierarchical"): {
        "DP": "not_preferred",
        "FSDP": "feasible",
        "TP": "feasible",
        "PP": "not_preferred",
    },
}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_verdict_table(topology: str) -> None:
    for evaluation in evaluate_paper_cases(topology=topology):
        assert evaluation.topology == topology
        assert evaluation.summary() == EXPECTED[(evaluation.case_key, topology)]


@pytest.mark.parametrize(
    ("case", "strategy", "hard", "codes"),
    [
        (CASE_FITS_ONE_DEVICE, "DP", False, ("dp_simplest",)),
        (CASE_FITS_ONE_DEVICE, "FSDP", False, ("unneeded",)),
        (CASE_FITS_ONE_DEVICE, "TP", False, ("unneeded",)),
        (CASE_FITS_ONE_DEVICE, "PP", False, ("unneeded",)),
        (CASE_STATE_EXCEEDS_DEVICE, "DP", True, ("memory",)),
        (CASE_STATE_EXCEEDS_DEVICE, "FSDP", False, ("fsdp_shards",)),
        (CASE_STATE_EXCEEDS_DEVICE, "TP", False, ("unneeded",)),
        (CASE_STATE_EXCEEDS_DEVICE, "PP", False, ("pp_stages",)),
        (CASE_LAYER_EXCEEDS_DEVICE, "DP", True, ("memory",)),
        (CASE_LAYER_EXCEEDS_DEVICE, "FSDP", False, ("fsdp_with_tp",)),
        (CASE_LAYER_EXCEEDS_DEVICE, "TP", False, ("link_unknown", "tp_needed")),
        # a stage must hold a whole layer: a hard exclusion, with TP x FSDP named as the way out
        (CASE_LAYER_EXCEEDS_DEVICE, "PP", True, ("layer", "pp_with_tp")),
    ],
)
def test_reasons_per_cell(case: PaperCase, strategy: str, hard: bool, codes: tuple[str, ...]) -> None:
    verdict = evaluate_paper_case(case).verdict_of(strategy)
    assert verdict.hard_excluded == hard
    assert verdict.codes == codes


def test_numbers_behind_the_verdicts() -> None:
    # DP: S + A + R = 40 + 5 + 2 = 47 GiB > 24 GiB -> the Q3 fit gate's message.
    dp = evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE).verdict_of("DP")
    assert dp.memory_per_rank_gib == pytest.approx(47.0)
    assert dp.reasons[0].message == "per-rank memory 47.0 GiB exceeds device memory 24.0 GiB"
    # PP: smallest p dividing 32 devices with 40/p + 7 <= 24 is p = 4 (17 GiB); DP = 8 pipelines,
    # m = 64 / (8 * 1) = 8 micro-batches, naive bubble (p-1)/(m+p-1) = 3/11 (seed 001).
    pp = evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE).verdict_of("PP")
    assert (pp.degree, pp.memory_per_rank_gib) == (4, pytest.approx(17.0))
    assert pp.reasons[0].params["bubble"] == pytest.approx(3 / 11)
    assert pp.reasons[0].message == (
        "PP = 4 stages (17.0 GiB per rank), DP = 8 pipelines with m = 8 micro-batches each: "
        "bubble fraction (p-1)/(m+p-1) = 27%"
    )
    # FSDP over 32 with prefetch (PyTorch FSDP docs, BACKWARD_PRE: current and next parameters plus current
    # gradients at the peak): 40/32 + 5 + 2 + 3 x 0.3 = 9.15 GiB.
    fsdp = evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE).verdict_of("FSDP")
    assert (fsdp.degree, fsdp.memory_per_rank_gib) == (32, pytest.approx(9.15))
    # TP in case 3, with the state sharded over all 32 ranks: 320/32 + (3 x 26 + 8)/t + 2 <= 24 first holds
    # at t = 8 (22.75 GiB); t = 4 gives 10 + 86/4 + 2 = 33.5 GiB.
    tp = evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE).verdict_of("TP")
    assert (tp.degree, tp.memory_per_rank_gib) == (8, pytest.approx(22.75))
    # TP = 8 alone: 320/8 + 8/8 + 2 = 43 GiB, so FSDP is TP's second dimension: TP 8 x FSDP 4.
    assert tp.reasons[1].params["alone_gib"] == pytest.approx(43.0)
    assert combination_memory_gib(CASE_LAYER_EXCEEDS_DEVICE, tp=8) == pytest.approx(43.0)
    fsdp3 = evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE).verdict_of("FSDP")
    assert (fsdp3.degree, fsdp3.memory_per_rank_gib) == (4, pytest.approx(22.75))
    assert fsdp3.reasons[0].message == (
        "FSDP alone cannot (it gathers a whole layer), but it is TP's second dimension: TP 8 splits the layer "
        "first and the training state is sharded over 4 TP groups (TP 8 × FSDP 4), 22.8 GiB per rank"
    )
    # FSDP alone in case 3: 320/32 + 8 + 2 + 3 x 26 = 98 GiB.
    assert combination_memory_gib(CASE_LAYER_EXCEEDS_DEVICE, fsdp=32) == pytest.approx(98.0)


def test_fsdp_gather_peak_is_two_layers_of_parameters_and_one_of_gradients() -> None:
    assert fsdp_gather_peak_gib(0.3) == pytest.approx(2 * 0.3 + 0.3)
    assert fsdp_gather_peak_gib(0.0) == 0.0
    with pytest.raises(ValueError):
        fsdp_gather_peak_gib(-1.0)


# --------------------------------------------------------------------------- the topology step


def test_topology_moves_tp_from_needs_info_to_feasible_in_case_3() -> None:
    changes = topology_changes(CASE_LAYER_EXCEEDS_DEVICE)
    assert [(c.strategy, c.before, c.after) for c in changes if c.changed] == [("TP", "needs_info", "feasible")]
    tp = next(c for c in changes if c.strategy == "TP")
    assert [r.code for r in tp.reasons_after] == ["tp_needed", "tp_inside_node"]
    assert tp.reasons_after[1].message == (
        "TP = 8 fits inside one node of 8 GPUs: its per-layer collectives stay on the fast links; "
        "give the across-node dimension to DP/FSDP or PP"
    )


def test_topology_keeps_labels_but_changes_placement_in_case_2() -> None:
    changes = topology_changes(CASE_STATE_EXCEEDS_DEVICE)
    assert not any(c.changed for c in changes)
    hierarchical = evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE, "hierarchical")
    fsdp = hierarchical.verdict_of("FSDP")
    # Shard inside a node: 40/8 + 5 + 2 + 3 x 0.3 = 12.9 GiB fits, so replicate across nodes.
    assert (fsdp.degree, fsdp.memory_per_rank_gib, fsdp.codes) == (8, pytest.approx(12.9), ("fsdp_hybrid",))
    assert hierarchical.verdict_of("PP").codes == ("pp_stages", "pp_across_nodes")
    assert evaluate_paper_case(CASE_FITS_ONE_DEVICE, "hierarchical").verdict_of("DP").codes == (
        "dp_simplest",
        "dp_across_nodes",
    )


def test_tp_that_must_leave_the_node_is_excluded_once_the_topology_is_known() -> None:
    # A 150 GiB layer: 320/32 + (3 x 150 + 8)/t + 2 <= 24 needs t = 32 > 8 GPUs per node.
    wide = replace(CASE_LAYER_EXCEEDS_DEVICE, key="wide_layer", largest_layer_gib=150.0)
    assert evaluate_paper_case(wide).verdict_of("TP").verdict == "needs_info"
    tp = evaluate_paper_case(wide, "hierarchical").verdict_of("TP")
    assert (tp.verdict, tp.hard_excluded, tp.degree) == ("not_preferred", True, 32)
    assert tp.codes == ("interconnect",)
    assert tp.reasons[0].message.startswith("tp = 32 exceeds the 8 GPUs per node")


def test_fsdp_that_cannot_shard_inside_a_node_is_told_to_measure() -> None:
    big = replace(CASE_STATE_EXCEEDS_DEVICE, key="big_state", training_state_gib=200.0)
    # 200/8 + 7.9 = 32.9 GiB inside a node is too much; 200/32 + 7.9 = 14.15 GiB over all ranks fits.
    fsdp = evaluate_paper_case(big, "hierarchical").verdict_of("FSDP")
    assert (fsdp.verdict, fsdp.degree) == ("feasible", 32)
    assert fsdp.codes == ("fsdp_shards", "fsdp_cross_node")
    assert fsdp.reasons[1].message == (
        "sharding inside one node is not enough (32.9 GiB per rank); sharding over all 32 ranks puts every "
        "layer's all-gather on the slow inter-node link: measure whether it overlaps compute"
    )


# --------------------------------------------------------------------------- batch and balance


def test_global_batch_excludes_a_dp_degree_it_cannot_feed() -> None:
    # seed 001 self-check 3: the global batch bounds the DP degree. 16 sequences cannot feed 32 ranks.
    small_batch = replace(CASE_FITS_ONE_DEVICE, global_batch=16)
    dp = evaluate_paper_case(small_batch).verdict_of("DP")
    assert (dp.verdict, dp.hard_excluded, dp.codes) == ("not_preferred", True, ("global_batch",))
    assert dp.reasons[0].message == (
        "dp 32 × micro-batch 1 × gradient accumulation 1 = 32 sequences, but the global batch is 16"
    )


def test_uneven_stages_are_a_warning_on_a_feasible_pp() -> None:
    uneven = replace(CASE_STATE_EXCEEDS_DEVICE, key="uneven", num_layers=30)
    pp = evaluate_paper_case(uneven).verdict_of("PP")
    assert pp.verdict == "feasible"
    assert pp.codes == ("pp_stages", "pp_balance")


# --------------------------------------------------------------------------- labels and languages


def test_verdict_labels_are_bilingual() -> None:
    assert tuple(VERDICT_LABELS) == VERDICTS
    assert [VERDICT_LABELS[v].zh for v in VERDICTS] == ["可行", "不优先", "需更多信息"]
    verdict = evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE).verdict_of("TP")
    assert verdict.label == "Needs more information"
    coursekit.set_language("zh")
    assert verdict.label == "需更多信息"
    assert verdict.reasons[0].message == (
        "TP 每层都需要高速链路来做集合通信，而这个案例没有说明拓扑："
        "先补充链路信息（例如节点内快、跨节点慢的分层互连）再决定"
    )


# --------------------------------------------------------------------------- properties


@st.composite
def random_cases(draw: Any) -> PaperCase:
    state = draw(st.floats(min_value=0, max_value=2000, allow_nan=False))
    return PaperCase(
        key="random",
        title=Text(zh="随机案例", en="random case"),
        device_memory_gib=draw(st.floats(min_value=8, max_value=192, allow_nan=False)),
        training_state_gib=state,
        activation_gib=draw(st.floats(min_value=0, max_value=40, allow_nan=False)),
        runtime_reserve_gib=draw(st.floats(min_value=0, max_value=4, allow_nan=False)),
        largest_layer_gib=state * draw(st.floats(min_value=0, max_value=1)),
        num_layers=draw(st.integers(1, 96)),
        num_heads=draw(st.sampled_from([8, 12, 16, 32, 48, 64, 96])),
        nodes=draw(st.integers(1, 8)),
        gpus_per_node=draw(st.sampled_from([1, 2, 4, 8])),
        global_batch=draw(st.sampled_from([16, 64, 256, 1024])),
        micro_batch=draw(st.sampled_from([1, 2, 4])),
    )


cases = random_cases()


@given(cases, st.sampled_from(TOPOLOGIES))
def test_verdicts_are_well_formed(case: PaperCase, topology: str) -> None:
    evaluation = evaluate_paper_case(case, topology)
    assert tuple(v.strategy for v in evaluation.verdicts) == STRATEGIES
    for verdict in evaluation.verdicts:
        assert verdict.verdict in VERDICTS
        assert verdict.reasons, "every verdict explains itself"
        if verdict.hard_excluded:
            assert verdict.verdict == "not_preferred"
        if verdict.verdict == "feasible":
            assert verdict.memory_per_rank_gib is not None
            assert verdict.memory_per_rank_gib <= case.device_memory_gib


@given(cases)
def test_pure_dp_is_excluded_exactly_when_the_state_does_not_fit(case: PaperCase) -> None:
    # seed 001 self-check 1: "若 M_model > C_device，纯 DP 被容量直接排除" (with activations and reserve counted).
    dp = evaluate_paper_case(case).verdict_of("DP")
    overflow = case.training_state_gib + case.activation_gib + case.runtime_reserve_gib > case.device_memory_gib
    assert ("memory" in dp.codes) == overflow
    assert _ledger(case)["fits_one_device"] == (not overflow)


@given(cases)
def test_when_a_layer_exceeds_the_device_fsdp_is_feasible_only_next_to_tp(case: PaperCase) -> None:
    layer_too_big = case.largest_layer_gib + case.activation_gib + case.runtime_reserve_gib > case.device_memory_gib
    evaluation = evaluate_paper_case(case, "hierarchical")
    summary = evaluation.summary()
    if layer_too_big:
        assert summary["DP"] == summary["PP"] == "not_preferred"
        if summary["FSDP"] == "feasible":
            tp = evaluation.verdict_of("TP")
            fsdp = evaluation.verdict_of("FSDP")
            assert tp.verdict == "feasible" and tp.degree is not None and tp.degree > 1
            assert fsdp.codes[0] == "fsdp_with_tp" and fsdp.degree == case.num_devices // tp.degree


@given(cases)
def test_the_topology_moves_tp_and_only_what_rests_on_tp(case: PaperCase) -> None:
    changes = {c.strategy: c for c in topology_changes(case) if c.changed}
    assert set(changes) <= {"TP", "FSDP"}
    if "FSDP" in changes:  # FSDP as TP's second dimension falls with a TP group that must leave its node
        assert "TP" in changes and changes["FSDP"].after == changes["TP"].after == "not_preferred"


# --------------------------------------------------------------------------- input validation


def _case(**changes: Any) -> PaperCase:
    return replace(CASE_FITS_ONE_DEVICE, **changes)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: _case(device_memory_gib=0), ValueError, "device_memory_gib = 0: must be > 0."),
        (lambda: _case(training_state_gib=-1), ValueError, "training_state_gib = -1: must be >= 0."),
        (
            lambda: _case(largest_layer_gib="big"),
            TypeError,
            "largest_layer_gib = 'big': must be a real number (int or float), not str.",
        ),
        (lambda: _case(num_layers=0), ValueError, "num_layers = 0: must be >= 1."),
        (
            lambda: _case(largest_layer_gib=14),
            ValueError,
            "largest_layer_gib = 14: must be <= training_state_gib == 13.0 (a layer's weights are part of the "
            "training state).",
        ),
        (lambda: _case(nodes=1.0), TypeError, "nodes = 1.0: must be an integer (int), not float."),
        (lambda: _case(key=""), TypeError, "key = '': must be a non-empty string."),
        (lambda: _case(title="Case"), TypeError, "title = 'Case': must be a coursekit.Text, not str."),
        (
            lambda: evaluate_paper_case(CASE_FITS_ONE_DEVICE, "flat"),
            ValueError,
            "topology = 'flat': must be one of 'unspecified', 'hierarchical'.",
        ),
        (lambda: evaluate_paper_case("case 1"), TypeError, "case = 'case 1': must be a PaperCase, not str."),
        (
            lambda: evaluate_paper_case(CASE_FITS_ONE_DEVICE).verdict_of("ZeRO"),
            ValueError,
            "strategy = 'ZeRO': this evaluation has no verdict for it; the strategies are DP, FSDP, TP, PP.",
        ),
    ],
)
def test_input_errors(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_input_error_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        evaluate_paper_case(CASE_FITS_ONE_DEVICE, "flat")
    assert str(info.value) == "topology = 'flat'：必须是 'unspecified', 'hierarchical' 之一。"


def test_constraint_case_by_hand() -> None:
    """The widget's case for Megatron 7.5B (36 layers, h = 4096, 32 heads, V = 51,200, s = 2048), worked by hand."""
    from coursekit.matrix import constraint_case

    case = constraint_case("megatron-7.5b", device_memory_gib=24, global_batch=64, seq_len=2048)
    params = 12 * 36 * 4096**2 + 13 * 36 * 4096 + (51_200 + 2048) * 4096  # Narayanan et al. §5.1
    assert case.training_state_gib == pytest.approx(16 * params / 2**30)  # mixed-precision Adam, 16 B/parameter
    assert case.activation_gib == pytest.approx(34 * 2048 * 1 * 4096 * 36 / 2**30)  # selective: 34·s·b·h per layer
    assert case.largest_layer_gib == pytest.approx(2 * (12 * 4096**2 + 13 * 4096) / 2**30)  # one layer, bf16
    assert (case.num_layers, case.num_heads, case.num_devices, case.runtime_reserve_gib) == (36, 32, 32, 2.0)
    longer = constraint_case("megatron-7.5b", device_memory_gib=24, global_batch=64, seq_len=8192)
    assert longer.activation_gib == pytest.approx(4 * case.activation_gib)  # selective: linear in s
    with pytest.raises(ValueError, match="model = 'gpt-9'"):
        constraint_case("gpt-9", device_memory_gib=24, global_batch=64, seq_len=2048)
