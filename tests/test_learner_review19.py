"""What the English self-learner of review 19 met in lessons 6, 7, 9 and 10, fixed.

1. Lesson 6's pipeline widget: with no slow stage chosen (its starting state), moving the slow-stage time factor
   left the message and the chart exactly as they were: a silent no-op.
2. Lesson 6's scaling widget: once the overlap hides as much communication as the compute can cover (at P = 512
   with 100 ms of compute, any overlap from 0.18 up), moving the overlap slider changed nothing the message said.
3. Slips that got the exercise's general hint: 6.1 with p and m swapped (15/19); 9's CP-cost factor as its growth
   (0.016) or its growth in percent (1.6), 9's slow-link factor as its growth in percent (2.9); 10's replica
   capacity multiplied by the 8 GPUs the KV cache is already split over.
4. Comments re-wrapped to 80 columns: a last word alone on a line ('# point.', '# again.', '# figure', '# 个头。') and
   a number cut from its unit ('25 / 50 GB' then '/s。', 'TPOT 从 12.7' then 'ms 降到 8.9 ms', 'MoE（3' then
   '个通过）').
5. Abbreviations met undefined: HBM (lesson 7, and missing from the glossary), VP 8, MAMF and TMA (lesson 9).
6. Exercise 6.3 answered 85 got "check whether the question asks for a fraction or a percentage"; it asked neither.
"""

from __future__ import annotations

import html
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from coursekit.exercises import check, get_exercise
from coursekit.widgets.pipeline import PipelineWidget
from coursekit.widgets.scaling import ScalingWidget
from tests.test_instructor_review18 import display_columns
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)

# -- 1. the pipeline widget's slow-stage factor, with no slow stage ---------------------------------------------


@pytest.mark.usefixtures("en")
def test_the_slow_factor_without_a_slow_stage_says_why_it_changes_nothing() -> None:
    widget = PipelineWidget(stages=4, microbatches=8)
    assert widget.controls["slow_stage"].value == "none"
    seen = {widget.message}
    for factor in (1.0, 1.5, 3.0):
        widget.controls["slow_factor"].value = factor
        assert widget.status == "ok"
        assert widget.message not in seen, f"slow factor {factor} left the message as it was"
        seen.add(widget.message)
    shown = html.unescape(widget.message)
    assert "No slow stage is chosen, so the 'slow-stage time factor' (now 3×) changes nothing" in shown
    # with a slow device chosen, the factor shows in the idle share, and the sentence goes
    widget.controls["slow_stage"].value = 1
    assert "Device 1 is 3× slower" in widget.message and "No slow stage" not in widget.message


@pytest.mark.usefixtures("zh")
def test_the_chinese_pipeline_message_says_it_too() -> None:
    widget = PipelineWidget(stages=4, microbatches=8, slow_factor=1.5)
    assert "没有选慢阶段，所以“慢阶段耗时倍数”（现在 1.5 倍）不起作用" in widget.message


# -- 2. the scaling widget's overlap, capped by the compute -----------------------------------------------------


@pytest.mark.usefixtures("en")
def test_an_overlap_the_compute_caps_is_named() -> None:
    # ring all-reduce of 14 GB over 512 GPUs at 50 GB/s one way: 2 × 511/512 × 14 / 50 s = 559 ms, against 100 ms
    # of compute: at most 100 / 559 = 0.18 of it can hide, so every overlap from 0.18 up gives the same step
    widget = ScalingWidget(overlap=0.5, compute_ms=100.0)
    assert "At P = 512 a step takes 559 ms: compute 100 ms, exposed communication 459 ms" in widget.message
    assert "every overlap from 0.18 up gives this same step" in widget.message
    # and says what helps instead; the diagnosis below no longer advises more overlap
    assert "More overlap cannot help here: only fewer bytes, a faster link or more compute per step" in widget.message
    seen = {widget.message}
    for overlap in (0.2, 0.35, 0.8, 1.0):
        widget.controls["overlap"].value = overlap
        assert widget.message not in seen, f"overlap {overlap} left the message as it was"
        seen.add(widget.message)
    assert "An overlap of 1.00 would hide 559 ms of communication" in widget.message
    # below the cap the step itself changes and no such sentence is added
    widget.controls["overlap"].value = 0.1
    assert "would hide" not in widget.message and "exposed communication 503 ms" in widget.message


@pytest.mark.usefixtures("zh")
def test_the_chinese_scaling_message_names_the_cap() -> None:
    widget = ScalingWidget(overlap=0.9)  # 500 ms of compute: the cap is 500 / 559 = 0.89
    assert "重叠比例 0.90 本可掩盖 503 ms 通信，但通信只能藏在 500 ms 的计算之下" in widget.message
    assert "重叠比例从 0.89 往上，一步的时间都一样；再提高重叠也没用" in widget.message


@pytest.mark.usefixtures("en")
def test_the_diagnosis_under_a_capped_overlap_does_not_advise_more_overlap() -> None:
    # 100 ms of compute under 559 ms of communication (above): 100 ms hide at any overlap from 0.18 up
    capped = ScalingWidget(overlap=0.5, compute_ms=100.0).message
    assert "Diagnosis: exposed communication" in capped and "overlap it with compute" not in capped
    assert "the compute (100 ms) already hides all it can, so more overlap cannot help" in capped
    # below the cap more overlap does help, and the diagnosis still says so
    assert "overlap it with compute" in ScalingWidget(overlap=0.1, compute_ms=100.0).message


@pytest.mark.usefixtures("zh")
def test_the_chinese_diagnosis_under_a_capped_overlap() -> None:
    message = ScalingWidget(overlap=0.9).message  # 500 ms of compute, the cap 0.89
    assert "计算（500 ms）下面已经藏满了，再提高重叠也没用" in message and "先提高与计算的重叠" not in message


# -- 3. slips named ---------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("en")
def test_bubble_with_p_and_m_swapped() -> None:
    feedback = check("pipeline.bubble_p4_m16", 15 / 19)  # (16-1)/(4+16-1)
    assert feedback.slip == "p_and_m_swapped"
    assert "You swapped p and m" in feedback.message and "0.158" not in feedback.message
    assert check("pipeline.bubble_p4_m16", 3 / 19).correct


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize("exercise_id", ["plan.cp_cost", "plan.slow_link"])
def test_a_factor_answered_as_its_growth(exercise_id: str) -> None:
    factor = get_exercise(exercise_id).expected_value()
    assert 1.005 < factor < 1.1  # both are a few percent: the growth and its percent are far from the factor
    growth = check(exercise_id, round(factor - 1, 4))
    assert growth.slip == "growth_not_factor" and "That is the growth (the factor minus 1)" in growth.message
    percent = check(exercise_id, round((factor - 1) * 100, 2))
    assert percent.slip == "percent_growth" and "That is the growth in percent" in percent.message
    assert f"{factor:.3g}" not in percent.message
    assert check(exercise_id, round(factor, 3)).correct


@pytest.mark.usefixtures("zh")
def test_the_growth_in_percent_in_chinese() -> None:
    factor = get_exercise("plan.cp_cost").expected_value()
    assert "这是以百分数写的增长" in check("plan.cp_cost", round((factor - 1) * 100, 2)).message


@pytest.mark.usefixtures("en")
def test_the_replica_capacity_times_its_gpus() -> None:
    capacity = get_exercise("serve.max_requests").expected_value()
    feedback = check("serve.max_requests", capacity * 8)  # TP = 8: one node's 8 GPUs
    assert feedback.slip == "times_gpus"
    assert "You multiplied one GPU's capacity by 8" in feedback.message and str(capacity) not in feedback.message
    assert check("serve.max_requests", capacity).correct


# -- 4. comments re-wrapped to 80 columns read as sentences ---------------------------------------------------------

REVIEWED_LESSONS = ("06_pipeline_scaling", "07_compute_efficiency", "09_workbench", "10_serving")


def _comment_blocks(source: str) -> list[list[str]]:
    """The runs of consecutive comment lines of one code cell, each line without its ``#``."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in [*source.split("\n"), ""]:
        stripped = line.strip()
        if stripped.startswith("#"):
            current.append(stripped.lstrip("#").strip())
        elif current:
            blocks.append(current)
            current = []
    return blocks


def _reviewed_comment_blocks(lang: str) -> Iterator[tuple[str, int, list[str]]]:
    """(lesson, code cell index, comment block) of every comment block in the reviewed lessons' code cells."""
    root = Path(__file__).resolve().parents[1] / "notebooks" / lang
    for stem in REVIEWED_LESSONS:
        cells = json.loads((root / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
        for index, cell in enumerate(cells):
            if cell["cell_type"] == "code":
                for block in _comment_blocks("".join(cell["source"])):
                    yield stem, index, block


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_rewrapped_comment_ends_in_an_orphan(lang: str) -> None:
    """A comment cut at 80 columns leaves its last word alone on a line ('# point.', '# 个头。'): write it whole,
    or cut it where the sense breaks."""
    orphans = []
    for stem, index, block in _reviewed_comment_blocks(lang):
        if len(block) >= 2 and display_columns(block[-1]) < 8:
            orphans.append(f"{stem} cell {index}: {block[-2][-30:]!r} / {block[-1]!r}")
    assert orphans == []


#: A unit or counter word that belongs to the number at the end of the line before.
_UNIT_START = re.compile(r"^(/s|GB|GiB|MB|MiB|ms|TFLOP|FLOP|bytes?\b|tokens?\b|个|倍|字节)")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_rewrapped_comment_cuts_a_number_from_its_unit(lang: str) -> None:
    """'... 即 25 / 50 GB' then '/s。', 'TPOT 从 12.7' then 'ms 降到 8.9 ms', 'MoE（3' then '个通过）': a reader must
    join the lines to read the number."""
    cuts = []
    for stem, index, block in _reviewed_comment_blocks(lang):
        for before, after in itertools.pairwise(block):
            if re.search(r"(\d|GB|/)$", before) and _UNIT_START.match(after):
                cuts.append(f"{stem} cell {index}: {before[-20:]!r} / {after[:12]!r}")
    assert cuts == []


# -- 5. abbreviations a learner meets undefined -----------------------------------------------------------------


def _markdown(lang: str, stem: str) -> str:
    root = Path(__file__).resolve().parents[1] / "notebooks" / lang
    cells = json.loads((root / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def test_hbm_vp_and_mamf_are_spelled_out_where_they_first_appear() -> None:
    lesson7, lesson9 = _markdown("en", "07_compute_efficiency"), _markdown("en", "09_workbench")
    assert lesson7.index("HBM (high-bandwidth memory") == lesson7.index("HBM")
    assert "VP 8: 8 model chunks per device, lesson 6's v = 8" in lesson9
    assert "maximum achievable matmul FLOPS, MAMF" in lesson9 and lesson9.index("MAMF") > lesson9.index("FLOPS, MAMF")
    zh7, zh9 = _markdown("zh", "07_compute_efficiency"), _markdown("zh", "09_workbench")
    assert "HBM 显存（高带宽显存 (high-bandwidth memory)" in zh7
    assert "VP 8，即每个设备 8 个模型块" in zh9 and "最大可达矩阵乘算力 (maximum achievable matmul FLOPS, MAMF)" in zh9
    # FlashAttention-3's Hopper features, named rather than left as bare acronyms
    assert "asynchronous matmul instruction, wgmma, and its Tensor Memory\n  Accelerator, TMA," in lesson9
    assert "张量内存加速器 (Tensor Memory Accelerator, TMA)" in zh9


def test_hbm_is_in_the_glossary() -> None:
    from coursekit.glossary import lookup

    entry = lookup("HBM")
    assert entry.en == "high-bandwidth memory" and entry.zh == "高带宽显存"
    # the H100 SXM datasheet: 80 GB of HBM3 at 3.35 TB/s
    assert "80 GB at 3.35 TB/s" in entry.definition.en


# -- 6. a question the percent hint refers to says which form it wants --------------------------------------------


@pytest.mark.usefixtures("en")
def test_exercise_6_3_says_it_wants_a_fraction() -> None:
    """85 gets "check whether the question asks for a fraction or a percentage": the question now says which."""
    prompt = get_exercise("pipeline.efficiency").prompt
    assert "Answer with a fraction (1 is ideal scaling), not a percentage." in prompt.en
    assert "用小数作答（理想扩展为 1），不要写成百分数。" in prompt.zh
    assert "Answer with a fraction (1 is ideal\nscaling), not a percentage." in _markdown("en", "06_pipeline_scaling")
    assert "用小数作答（理想扩展为 1），不要写成百分数。" in _markdown("zh", "06_pipeline_scaling")
    assert check("pipeline.efficiency", 85).slip == "percent_vs_fraction"
