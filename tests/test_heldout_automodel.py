"""The held-out report on NeMo AutoModel's H100 table (another engine: FSDP2, Transformer Engine, DeepEP) runs
offline and scores every row; its config.json models have the sizes their publishers state.

Expected sizes come from the publishers, not from the code: OpenAI's gpt-oss model card (arXiv:2508.10925, Table 1:
gpt-oss-120b 116.83B total and 5.13B active parameters, gpt-oss-20b 20.91B and 3.61B; the active counts leave out
the embedding table) and Kimi K2's report (arXiv:2507.20534, abstract: 1 trillion total and 32 billion activated
parameters, rounded).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmark_scripts import load_benchmark

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "report_heldout_automodel.py"


def _report() -> ModuleType:
    return load_benchmark("report_heldout_automodel")


def test_report_runs_and_scores_every_row() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("estimate/measured") == 7
    assert "all: " in done.stdout and " of 7 pass" in done.stdout


@pytest.mark.parametrize(
    ("key", "total_b", "active_b"),
    [("gpt-oss-20b", 20.91, 3.61), ("gpt-oss-120b", 116.83, 5.13)],
)
def test_gpt_oss_sizes_match_the_model_card(key: str, total_b: float, active_b: float) -> None:
    model = _report()._model(key)
    embedding_b = 201088 * 2880 / 1e9  # the vocabulary x hidden table the card's active count leaves out
    assert model.num_params / 1e9 == pytest.approx(total_b, rel=0.005)
    assert (model.active_params / 1e9 - embedding_b) == pytest.approx(active_b, rel=0.01)


def test_kimi_k2_size_matches_its_report() -> None:
    model = _report()._model("kimi-k2")
    assert model.num_params / 1e12 == pytest.approx(1.0, rel=0.05)
    assert model.active_params / 1e9 == pytest.approx(32.0, rel=0.05)
    assert (model.num_experts, model.top_k, model.layers, model.first_k_dense) == (384, 8, 61, 1)


def test_fsdp_column_is_the_data_parallel_degree() -> None:
    report = _report()
    for row in report.ROWS:
        run = report.automodel_run(row)
        degrees = dict(run.degrees)
        assert degrees["dp"] == row[11], row[1]
        assert dict(run.workload_options)["zero_stages"] == (3,)
