"""Instructor review 29: an English class of 90 minutes prepared from lessons 2, 6 and 9 and their guides, every cell
run in Chromium at 1280 x 720 (tests/browser/test_instructor_review29.py), every guide snippet run in its lesson's
kernel.

Found and fixed:

1. Lesson 9's published-runs table shows DGX Cloud's Grok-1 BF16 run twice under one label, "grok1-314b · 512 × H100
   · s = 8192 · GBS 1024 · TP 4 CP 2 PP 8 EP 8 · BF16", with two results (rank 186 and rank 1), and so for FP8; the
   layout-pairs table at the end of section 8 set the pair side by side as "TP 4 CP 2 PP 8 EP 8 (787)" against
   "TP 4 CP 2 PP 8 EP 8 (1028)": two layouts that look the same, "as measured". They differ in expert TP, which the
   labels leave out (degrees above 1 only; the earlier recipe sets none, so ETP = TP = 4, Megatron-Core's default;
   the 2025 recipe sets ETP 1) -- the very change the guide's talking point and the lesson's prose discuss. The
   lesson's ``layout_of`` now writes ETP for every run with EP ("EP 8 ETP 4" against "EP 8 ETP 1"), and guide 9 (zh
   and en) answers the question a learner asks at the table: why one label, two results. Pinned below: the lesson's
   own function, run on coursekit's registered runs, gives every pair two different texts, and the guide's ranks are
   the ones coursekit computes. The run label itself (``coursekit/presets.py``), left by this review, now writes the
   ETP of every MoE run with EP too (``PublishedRun.label``, Megatron's default ETP = TP from
   ``coursekit.specs.expert_tp_default``), so the two releases no longer share a label.

Checked without a finding (the browser test keeps the demos and the snippet replayed): guide 9's block that plans
NVIDIA's GB200 run runs in lesson 9's kernel after "run all" (no name clash with the lesson's ``plan``, ``MODELS``,
``CLUSTERS``) and prints the guide's 271.0 GiB, 7.65 s, 51 layers and 5.78 s.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path
from typing import Any

from coursekit.planner import compare_published, layout_pairs, published_degrees
from coursekit.published_runs import all_published_runs

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ROOT / "docs" / "instructor"
LESSON_9 = ROOT / "notebooks" / "src" / "09_workbench.py"


def _guide(lang: str) -> str:
    return re.sub(r"\s+", " ", (GUIDES / lang / "09_workbench.md").read_text(encoding="utf-8"))


@cache
def _runs() -> dict[str, Any]:
    return {run.name: run for run in all_published_runs()}


def _grok(precision: str) -> tuple[Any, Any]:
    """The two DGX Cloud Grok-1 runs of one precision: the v24.11.1 recipe's and the 2025 (v25.05.02) recipe's."""
    runs = _runs()
    return runs[f"DGX Cloud Grok-1 314B (MoE), 8K, 512 H100 ({precision})"], runs[
        f"DGX Cloud 25.05 Grok-1 314B (MoE), 8K, 512 H100 ({precision})"
    ]


def _layout_of() -> Any:
    """Lesson 9's own ``layout_of`` (the layout-pairs table's cell text), taken from the lesson source and run on the
    registered runs, as the lesson's kernel runs it."""
    tree = ast.parse(LESSON_9.read_text(encoding="utf-8"))
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "layout_of"]
    assert len(found) == 1
    runs = _runs()
    by_name = {name: compare_published(runs[name]) for p in layout_pairs() for name in (p.first_name, p.second_name)}
    namespace: dict[str, Any] = {"run_of_name": runs, "by_name": by_name, "published_degrees": published_degrees}
    exec(compile(ast.Module(body=found, type_ignores=[]), str(LESSON_9), "exec"), namespace)
    return namespace["layout_of"]


def test_the_two_grok_releases_have_two_labels_and_the_guide_says_why() -> None:
    for precision in ("BF16", "FP8"):
        earlier, later = _grok(precision)
        # the run label writes expert TP for every MoE run with EP, ETP = TP where the run sets none
        assert earlier.label.replace("EP 8 ETP 4", "EP 8 ETP 1") == later.label
        assert f"TP 4 CP 2 PP 8 EP 8 ETP 4 · {precision}" in earlier.label
        assert dict(earlier.degrees) != dict(later.degrees)
    earlier, later = _grok("BF16")
    # Megatron-Core's default: no --expert-tensor-parallel-size means ETP = TP (the glossary's ETP row says so)
    assert "etp" not in dict(earlier.degrees) and dict(earlier.degrees)["tp"] == 4
    assert dict(later.degrees)["etp"] == 1
    first, second = compare_published(earlier).rank, compare_published(later).rank
    en, zh = _guide("en"), _guide("zh")
    assert f"the same degrees but for expert TP, come out at ranks {first} and {second}?" in en
    assert f"为什么名次差这么多（第 {first} 名和第 {second} 名）？" in zh
    assert "(the earlier release sets none, so ETP = TP = 4, Megatron's default; the 2025 release sets ETP 1)" in en
    assert "（前一版配方没设，所以 ETP = TP = 4，Megatron 的默认；2025 年的版本设 ETP 1）" in zh
    assert '("EP 8 ETP 4" against "EP 8 ETP 1")' in en and "（“EP 8 ETP 4”对“EP 8 ETP 1”）" in zh


def test_a_dense_run_label_writes_no_expert_tp() -> None:
    for run in all_published_runs():
        if not run.model_spec().is_moe:
            assert "ETP" not in run.label, run.label


def test_the_layout_pairs_table_tells_every_pair_apart() -> None:
    layout_of = _layout_of()
    runs = _runs()
    for pair in layout_pairs():
        first, second = layout_of(pair.first_name), layout_of(pair.second_name)
        # a pair is two measured layouts: its two cells must not read as one layout
        assert first.rsplit(" (", 1)[0] != second.rsplit(" (", 1)[0], (pair.first_name, pair.second_name)
        for name, text in ((pair.first_name, first), (pair.second_name, second)):
            degrees = dict(runs[name].degrees)
            if degrees.get("ep", 1) > 1:
                assert f"ETP {degrees.get('etp', degrees['tp'])} (" in text, text
            else:
                assert "ETP" not in text, text
    for precision in ("BF16", "FP8"):
        earlier, later = _grok(precision)
        assert layout_of(earlier.name) == f"TP 4 CP 2 PP 8 EP 8 ETP 4 ({earlier.measured_tokens_per_gpu_s:.0f})"
        assert layout_of(later.name) == f"TP 4 CP 2 PP 8 EP 8 ETP 1 ({later.measured_tokens_per_gpu_s:.0f})"
