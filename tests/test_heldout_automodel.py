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

from coursekit.planner.space import parse_degrees
from tests.benchmark_scripts import load_benchmark
from tests.test_fuzz_regressions12 import _cli, _in

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


# --------------------------------------------------------------------------- the tables' FSDP column as a size

# NeMo AutoModel's table and Megatron-Bridge's later pages print the FSDP sharding group's size, not 0/1. The
# archive's legend: "FSDP > 0: use FSDP with sharding group size = #GPUs / (TP x PP)" (Megatron-Bridge
# docs/performance-summary-archive.md); AutoModel's DeepSeek V3 row: 1024 GPUs, PP 4, FSDP 256 (= 1024 / 4).


def test_fsdp_size_reads_as_zero_3_over_that_data_parallel_group() -> None:
    degrees = parse_degrees("tp=1,pp=4,cp=1,ep=64,vp=8,fsdp=256")
    assert (degrees["zero"], degrees["dp"], degrees["v"]) == (3, 256, 8)
    assert parse_degrees({"TP": 2, "FSDP": 64}) == {"tp": 2, "zero": 3, "dp": 64}
    assert parse_degrees("TP=1,PP=1,MBS=2,FSDP=64") == {"tp": 1, "pp": 1, "mb": 2, "zero": 3, "dp": 64}


def test_fsdp_size_may_count_context_parallel_ranks_too() -> None:
    # the archive's legend: 32 GPUs, TP 1, PP 1, CP 2 -> sharding group 32 = dp 16 x cp 2
    assert parse_degrees("tp=1,pp=1,cp=2,dp=16,fsdp=32")["dp"] == 16
    # AutoModel's Llama3 70B row: 64 GPUs, CP 2, FSDP 32 = dp
    assert parse_degrees("tp=1,pp=1,cp=2,dp=32,fsdp=32")["dp"] == 32


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_fsdp_size_with_cp_and_no_dp_asks_for_dp(lang: str) -> None:
    with pytest.raises(ValueError) as info:
        _in(lang, lambda: parse_degrees("tp=1,cp=2,fsdp=32"))
    message = str(info.value)
    assert "dp = 32" in message and "dp = 16" in message
    assert ("写出 dp" in message) if lang == "zh" else ("write dp as well" in message)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_fsdp_group_smaller_than_data_parallel_is_refused(lang: str) -> None:
    with pytest.raises(ValueError) as info:
        _in(lang, lambda: parse_degrees("tp=1,dp=16,fsdp=8"))
    message = str(info.value)
    assert "HSDP" in message and "dp = 16" in message and "fsdp = 8" in message


def test_cli_layout_takes_the_fsdp_size() -> None:
    argv = ["plan", "--model", "llama3-70b", "--cluster", "h100-8", "--nodes", "8", "--global-batch", "128"]
    argv += ["--seq-len", "8192", "--max-micro-batch", "1", "--top", "1"]
    code, out, err = _cli([*argv, "--layout", "tp=1,pp=1,cp=2,dp=32,fsdp=32"])
    assert code == 0, err
    line = out.split("Your layout", 1)[1].splitlines()[0]
    assert "dp=32" in line and "zero=3" in line
    code, _, err = _cli([*argv, "--layout", "tp=1,pp=1,cp=2,fsdp=32"])
    assert code == 2 and "Traceback" not in err and "write dp as well" in err
