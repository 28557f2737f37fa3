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


#: The heading that opens the serving variant, by language; everything before it is the training brief.
SERVING_HEADINGS = {"zh": "## 服务变体", "en": "## Serving variant"}
SERVING_COMMAND = (
    "python -m coursekit plan --mode serving --model llama3-70b --cluster h100-8 --nodes 2 --request-rate 6 "
    "--prompt-tokens 4096 --output-tokens 512 --ttft-ms 1000 --tpot-ms 50"
)


def _parts(lang: str) -> tuple[str, str]:
    """The training brief and the serving variant of one language."""
    text = BRIEFS[lang].read_text(encoding="utf-8")
    training, heading, serving = text.partition(SERVING_HEADINGS[lang])
    assert heading, f"capstone_{lang}.md has no serving variant"
    return training, heading + serving


def _rubric_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"^\| [^-|][^|]* \| .* \| .* \| .* \| .* \|$", line)]


@pytest.mark.parametrize("lang", list(BRIEFS))
def test_rubric_has_five_criteria_of_four_levels(lang: str) -> None:
    for part in _parts(lang):  # the training brief and the serving variant each have their own rubric
        assert len(_rubric_rows(part)) == 6  # header + five criteria
        assert "15" in part


def _serving_plan(rate: float):  # type: ignore[no-untyped-def]
    from coursekit.serving import ServingWorkload, plan_serving

    workload = ServingWorkload(
        prompt_tokens=4096, output_tokens=512, request_rate_per_s=rate, ttft_slo_s=1.0, tpot_slo_s=0.05
    )
    return plan_serving(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(2), workload)


@pytest.mark.parametrize("lang", list(BRIEFS))
def test_serving_variant_names_its_setup(lang: str) -> None:
    _training, serving = _parts(lang)
    assert SERVING_COMMAND in serving
    for code in ('MODELS["llama3-70b"]', 'CLUSTERS["h100-8"].with_nodes(2)', "request_rate_per_s=6", "ttft_slo_s=1.0",
                 "tpot_slo_s=0.05"):  # fmt: skip
        assert code in serving


def test_serving_variant_leaves_a_real_choice_and_a_what_if() -> None:
    result = _serving_plan(6)
    removed = dict(result.funnel)
    assert removed["memory"] > 0 and removed["slo"] > 0  # two gates to explain with numbers
    assert len(result.accepted) > 2  # several layouts: the tie must be broken by a stated quantity
    assert len(_serving_plan(12).accepted) < len(result.accepted)  # the what-if narrows the choice
    assert not _serving_plan(20).accepted  # and at 20 requests/s nothing meets the SLOs: something must change


def test_both_serving_rubrics_have_the_same_criteria_count_and_levels() -> None:
    rows = {lang: _rubric_rows(_parts(lang)[1]) for lang in BRIEFS}
    assert [row.count("|") for row in rows["zh"]] == [row.count("|") for row in rows["en"]]
