"""The capstone brief (docs/capstone_zh.md, docs/capstone_en.md): plannable, non-trivial, the same in both languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from coursekit import plan
from coursekit.planner import WorkloadSpec
from coursekit.presets import CLUSTERS, MODELS

DOCS = Path(__file__).resolve().parents[1] / "docs"
BRIEFS = {"zh": DOCS / "capstone_zh.md", "en": DOCS / "capstone_en.md"}
COMMAND = "python -m coursekit plan --model mixtral-8x7b --cluster a100-8 --nodes 4 --global-batch 256 --seq-len 4096"


def _brief_plan():  # type: ignore[no-untyped-def]
    return plan(MODELS["mixtral-8x7b"], CLUSTERS["a100-8"].with_nodes(4), WorkloadSpec(global_batch=256, seq_len=4096))


@pytest.mark.parametrize("lang", list(BRIEFS))
def test_brief_names_the_setup(lang: str) -> None:
    text = BRIEFS[lang].read_text(encoding="utf-8")
    assert COMMAND in text
    for code in ('MODELS["mixtral-8x7b"]', 'CLUSTERS["a100-8"].with_nodes(4)', "WorkloadSpec(global_batch=256,"):
        assert code in text
    assert MODELS["mixtral-8x7b"].num_experts > 1  # a mixture-of-experts model: EP is in play


def test_the_brief_leaves_a_real_choice() -> None:
    result = _brief_plan()
    removed = {step.code: step.removed for step in result.funnel}
    assert removed["memory"] > 0  # the fit gate matters: the learner has to explain it
    assert result.accepted_count > 5  # more than one defensible plan: alternatives to compare
    assert len(result.rejected_indices()) > 0


@pytest.mark.parametrize("lang", list(BRIEFS))
def test_rubric_has_five_criteria_of_four_levels(lang: str) -> None:
    text = BRIEFS[lang].read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if re.match(r"^\| [^-|][^|]* \| .* \| .* \| .* \| .* \|$", line)]
    assert len(rows) == 6  # header + five criteria
    assert "15" in text
