"""What an English instructor found preparing every lesson in a real browser (review 12), fixed.

Expected values are worked by hand from each exercise's question, not read from the checker.
"""

from __future__ import annotations

import ast

import pytest

import coursekit
from coursekit.exercises import check, get_exercise
from coursekit.glossary import GLOSSARY
from coursekit.matrix import CASE_LAYER_EXCEEDS_DEVICE, evaluate_paper_case
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS

# 2.3: ring all-reduce of 256 MiB over 8 ranks at 100 GiB/s, 5 us per ring step:
# transfer 2 * 7/8 * 0.25 GiB / (100 GiB/s) = 4.375 ms; latency 2 * 7 * 5 us = 0.07 ms; total 4.445 ms.
TRANSFER_MS, TOTAL_MS = 2 * 7 / 8 * 0.25 / 100 * 1000, 2 * 7 / 8 * 0.25 / 100 * 1000 + 14 * 5e-3


@pytest.fixture(autouse=True)
def _english() -> object:
    coursekit.set_language("en")
    yield None
    coursekit.set_language("en")


def test_the_all_reduce_is_read_at_three_digits_so_the_transfer_term_alone_is_not_right() -> None:
    assert (round(TRANSFER_MS, 3), round(TOTAL_MS, 3)) == (4.375, 4.445)
    assert get_exercise("q2.allreduce_ms").min_digits == 3
    assert "3 significant digits" in get_exercise("q2.allreduce_ms").prompt.en
    # 4.4 rounds both the answer and the transfer term alone (4.375): at 3 digits it reads 4.40 and is wrong
    assert check("q2.allreduce_ms", 4.4).status == "incorrect"
    assert check("q2.allreduce_ms", 4.44).correct and check("q2.allreduce_ms", 4.45).correct
    assert check("q2.allreduce_ms", 4.38).slip == "no_latency"


@pytest.mark.parametrize(
    ("answer", "shown"),
    [((-1, 47), "-1.47"), ((26, 19), "26.19"), ((0, 5), "0.5")],
)
def test_a_decimal_comma_is_told_to_use_a_point(answer: tuple[int, int], shown: str) -> None:
    # Python reads `-1,47` as (-1, 47); a thousands group has three digits and `1,047` is a syntax error, so a
    # second item of 1 to 99 was a decimal comma
    for lang, word in (("en", "decimals with a point"), ("zh", "小数点")):
        coursekit.set_language(lang)
        feedback = check("q1.headroom_gib", answer)
        assert feedback.status == "invalid"
        assert word in feedback.message
        assert f"{shown}." in feedback.message or f"{shown}。" in feedback.message
        assert "thousands" not in feedback.message


def test_a_thousands_comma_still_gets_the_thousands_advice() -> None:
    assert "1772" in check("plan.memory_removed", (1, 772)).message
    assert "1000" in check("plan.memory_removed", (1, 0)).message  # `1,000`: a group of three zeros


def test_the_crossover_off_by_1000_names_microseconds() -> None:
    # 10 us x 25 GiB/s = 2.5e-4 GiB = 0.256 MiB; 10 us taken as 10 ms gives 256
    feedback = check("q2.crossover_mib", 256)
    assert feedback.slip == "microseconds_as_ms" and "µs" in feedback.message


def test_a_label_heads_the_feedback_of_one_entry(capsys: pytest.CaptureFixture[str]) -> None:
    check("matrix.case2_pp", "feasible", label=coursekit.i18n.Text(zh="案例 2，PP", en="Case 2, PP"))
    assert capsys.readouterr().out.startswith("Case 2, PP: Correct.")
    coursekit.set_language("zh")
    check("matrix.case2_pp", "feasible", label=coursekit.i18n.Text(zh="案例 2，PP", en="Case 2, PP"))
    assert capsys.readouterr().out.startswith("案例 2，PP：正确。")
    with pytest.raises(TypeError, match="label"):
        check("matrix.case2_pp", "feasible", label=3)  # type: ignore[arg-type]


def test_the_matrix_lesson_labels_every_check() -> None:
    # the lesson's check_entries(my_..., {n: f"matrix.case...", ...}, ...) calls (fuzz pass 27: one check per key of
    # the learner's dict), read with ast: the 80-column lesson code splits them over lines; each labels its checks
    source = open("notebooks/src/05_selection_matrix.py", encoding="utf-8").read()
    calls = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "check_entries"
        and len(node.args) > 1
        and "f'matrix.case" in ast.unparse(node.args[1])
    ]
    assert len(calls) == 3 and all(any(k.arg == "labels" for k in call.keywords) for call in calls)


def test_a_stage_that_cannot_hold_a_layer_is_always_a_hard_exclusion() -> None:
    for topology in ("unspecified", "hierarchical"):
        pp = evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE, topology).verdict_of("PP")
        assert pp.codes[0] == "layer" and pp.hard_excluded


def test_the_fsdp_cell_names_the_plan_the_tp_cell_uses() -> None:
    # 18.4B on 32 x 24 GiB: FSDP alone 29.1 GiB > 24; TP's plan TP 2 x FSDP 16 fits (19.8 GiB)
    from coursekit.widgets.matrix import matrix_view

    for topology in ("unspecified", "hierarchical"):
        evaluation = matrix_view("megatron-18.4b", 24, topology, 64, 2048).evaluation
        tp, fsdp = evaluation.verdict_of("TP"), evaluation.verdict_of("FSDP")
        assert fsdp.verdict == "feasible" and fsdp.codes[0] == "fsdp_with_tp"
        assert (tp.degree, tp.reasons[-1 if topology == "unspecified" else 0].params["fsdp"]) == (2, fsdp.degree)


def test_ties_of_one_shape_are_not_sent_to_time_both_shapes() -> None:
    # Llama-3 70B, LoRA rank 32 on one H100 node (the workbench's fifth demo step): members that differ only in the
    # ZeRO stage run the same matmuls, so "time ... at both shapes" would time one shape twice
    result = plan(
        MODELS["llama3-70b"],
        CLUSTERS["h100-8"],
        WorkloadSpec(global_batch=1024, seq_len=8192, lora_rank=32),
    )
    rows = result.explain_ties(1)
    leader = result.candidate(rows[0].index)
    for row in rows[1:]:
        candidate = result.candidate(row.index)
        same = (candidate.tp, candidate.cp, candidate.micro_batch) == (leader.tp, leader.cp, leader.micro_batch)
        if row.assumption == "efficiency" and same:
            assert "at both shapes" not in row.message and "same matmul shapes" in row.message
    assert any(row.assumption == "efficiency" for row in rows[1:])


def test_the_glossary_has_the_terms_lessons_4_and_5_use() -> None:
    names = {entry.en for entry in GLOSSARY}
    assert {"naive rule", "hard exclusion", "gather peak"} <= names


def test_the_gates_widget_shows_its_grid_above_the_reasons() -> None:
    from coursekit.widgets.gates import GatesWidget

    widget = GatesWidget()
    _controls, _summary, first, second = widget.view.children
    assert (first, second) == (widget.image, widget.message_html)


def test_a_refused_option_is_quoted_as_written() -> None:
    # q2.latency_bound upper-cases its answer; "both" is no option and is quoted as the learner wrote it
    message = check("q2.latency_bound", "both").message
    assert "'both'" in message and "'BOTH'" not in message
    assert check("q2.latency_bound", " b ").correct


def test_the_option_none_written_as_python_none_is_told_to_quote_it() -> None:
    feedback = check("q3.tp_rule", None)
    assert feedback.status == "invalid" and "answer = 'none'" in feedback.message
    assert check("q2.latency_bound", None).status == "unanswered"  # no option 'none': None is "not answered"


def test_a_wrong_type_is_named_as_a_type() -> None:
    # "not a int" was the English of a type name after an article
    assert "not of type int (5)" in check("q4.dp_group", 5).message
    # a word where a list belongs (a list typed in quotes, '5, 7', gets its own line of help since review 26)
    assert "not of type str ('abc')" in check("q4.dp_group", "abc").message
