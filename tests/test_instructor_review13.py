"""What a Chinese instructor found preparing the Chinese lessons in a real browser (review 13), fixed.

Expected values are worked from the cases and the rules they state, not read from the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import coursekit
from coursekit.exercises import check
from coursekit.gates import Candidate, Environment, gate_structure
from coursekit.glossary import GLOSSARY
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _english() -> object:
    coursekit.set_language("en")
    yield None
    coursekit.set_language("en")


def test_a_layer_that_fits_is_not_given_as_the_reason_for_tp() -> None:
    # 7.5B on 32 x 16 GiB: its largest layer (0.4 GiB) fits; FSDP over 32 needs 16.2 GiB > 16, so TP 2 x FSDP 16
    # is for capacity. The case-3 wording ("gathers a whole layer", "splits the layer first") must not appear.
    from coursekit.widgets.matrix import matrix_view

    evaluation = matrix_view("megatron-7.5b", 16, "unspecified", 64, 2048).evaluation
    fsdp = " ".join(r.message for r in evaluation.verdict_of("FSDP").reasons)
    tp = " ".join(r.message for r in evaluation.verdict_of("TP").reasons)
    assert "does not fit (16.2 GiB per rank > 16.0 GiB" in fsdp and "whole layer" not in fsdp
    assert "for capacity, not to split a layer" in tp


def test_the_case_whose_layer_exceeds_the_device_keeps_the_layer_wording() -> None:
    from coursekit.matrix import CASE_LAYER_EXCEEDS_DEVICE, evaluate_paper_case

    fsdp = evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE).verdict_of("FSDP").reasons[0].message
    assert "gathers a whole layer" in fsdp


@pytest.mark.parametrize(("cluster", "named"), [("a100-8", False), ("b200-8", False), ("h100-8", True)])
def test_flashattention_3_is_named_only_where_it_runs(cluster: str, named: bool) -> None:
    # FlashAttention-3 is a Hopper kernel (compute capability 9.x): on A100 (8.0) and B200 (10.0) the default stands
    # for the device's own fused kernel, charged at FlashAttention-3's speed relative to the best matmul
    report = plan(MODELS["llama3-8b"], CLUSTERS[cluster], WorkloadSpec(global_batch=64)).report(top=1)
    assert ("fused kernel FlashAttention-3" in report) is named
    assert ("this device's own fused kernel" in report) is not named


def test_full_width_letters_from_an_input_method_are_read_as_plain_ones() -> None:
    assert check("q2.latency_bound", "Ｂ").correct
    assert check("q3.tp_rule", "ｉｎｔｅｒｃｏｎｎｅｃｔ").correct
    assert check("q3.accepted", {"ＥＰ", "PP", "Replica", "TP"}).correct


def test_a_verdict_with_a_full_stop_is_the_verdict() -> None:
    assert check("matrix.case2_pp", "可行。").correct and check("matrix.case2_pp", "Feasible.").correct


def test_dividing_by_the_gib_factor_is_named() -> None:
    # 24 GiB = 24 x 2^30 / 10^9 = 25.77 GB; dividing instead: 24 x 10^9 / 2^30 = 22.35
    assert round(24 * 10**9 / 2**30, 2) == 22.35
    assert check("intro.device_gb", 22.35).slip == "divided"


def test_the_glossary_names_the_terms_the_lessons_use() -> None:
    zh = {entry.zh for entry in GLOSSARY}
    assert {"全收集峰值", "漏斗", "假设分析", "性能分析时间线"} <= zh
    lesson5 = (ROOT / "notebooks" / "src" / "05_selection_matrix.py").read_text(encoding="utf-8")
    assert "全收集峰值" in lesson5 and "收集峰值" not in lesson5.replace("全收集峰值", "")


def test_the_cheat_sheets_separate_formulas_with_no_multiplication_dot() -> None:
    for name in ("cheatsheet_zh.md", "cheatsheet_en.md"):
        text = (ROOT / "docs" / name).read_text(encoding="utf-8")
        assert "12Ψ/N_d · 2Ψ" not in text and "+ R · S/N" not in text


def test_the_structure_gate_prints_no_markdown() -> None:
    for lang in ("zh", "en"):
        coursekit.set_language(lang)
        reason = gate_structure(
            Candidate("EP", 14, {"training"}, {"moe"}, "intra_node"), Environment(24, "training", "dense", "intra_node")
        )
        assert reason is not None and "`" not in reason.message


def test_the_gates_table_keeps_names_and_verdicts_on_one_line() -> None:
    from coursekit.widgets.gates import GatesWidget

    widget = GatesWidget()
    assert widget.message.count("white-space:nowrap") >= 2 * (1 + 7)  # two header cells and two cells per candidate


def test_lesson_0_does_not_claim_bilingual_comments_and_warns_about_full_width_input() -> None:
    source = (ROOT / "notebooks" / "src" / "00_index.py").read_text(encoding="utf-8")
    assert "注释也是中英两行" not in source and "comments come in a zh line and an en line" not in source
    assert "全角数字" in source and "full-width comma" in source


def test_a_state_that_fits_is_told_what_pushes_the_case_over() -> None:
    # 1.7B at 8192 tokens on 40 GiB: the state (about 24.6 GiB) fits; with activations and the 2 GiB reserve the
    # full state passes 40 GiB, so the case is "the training state exceeds one device" for its activations
    from coursekit.widgets.matrix import MatrixWidget

    widget = MatrixWidget()
    widget.controls["model"].value = "megatron-1.7b"
    widget.controls["device_memory_gib"].value = 40
    widget.controls["seq_len"].value = 8192
    assert widget.result is not None and widget.result.case.training_state_gib < 40
    assert "the state itself fits; the activations and reserve make it not fit" in widget.message
    widget.controls["seq_len"].value = 2048  # fits one device: no such note
    assert "the state itself fits" not in widget.message


def test_a_verdict_that_is_no_verdict_is_refused_naming_codes_and_labels() -> None:
    cases = (("en", "Feasible / Not preferred / Needs more information"), ("zh", "可行 / 不优先 / 需更多信息"))
    for lang, labels in cases:
        coursekit.set_language(lang)
        feedback = check("matrix.case2_pp", "maybe")
        assert feedback.status == "invalid" and "'not_preferred'" in feedback.message and labels in feedback.message
