"""The rows of ``benchmarks/report_heldout_outside17.py`` are typed consistently with their sources.

No verdict is pinned (the rows are held out). The expected values come from the sources: the model names' sizes
("Llama3 70b", "DeepSeek-V3" 671B, "Qwen3 235B"), the DGX Cloud READMEs' experiment names (which spell the layout:
``gpus1024_tp1_pp8_cp1_vp2_ep64_mbs1_gbs8192``) and their worked examples ("E.g. 4096 * 8192 / 36.189 = 927200").
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import report_heldout_outside17 as report  # noqa: E402

from coursekit.presets import PublishedRun  # noqa: E402

RUNS: list[tuple[str, PublishedRun, bool]] = report.all_runs()
#: The size each source's model name states, in parameters.
NAMED_SIZE = {
    "llama3-8b": 8e9,
    "llama3-70b": 70e9,
    "llama3-405b": 405e9,
    "deepseek-v3": 671e9,
    "qwen3-235b-a22b": 235e9,
    "qwen3-30b-a3b": 30e9,
}


def _option(run: PublishedRun, key: str) -> Any:
    return dict(run.workload_options)[key]


@pytest.mark.parametrize("run", [r for _, r, _ in RUNS], ids=lambda r: r.name)
def test_gpus_are_the_product_of_the_degrees(run: PublishedRun) -> None:
    d = dict(run.degrees)
    gpus = run.nodes * run.cluster_spec().gpus_per_node
    assert d["tp"] * d["pp"] * d["cp"] * d["dp"] == gpus
    if "ep" in d:
        assert (d["dp"] * d["cp"] * d["tp"]) % d["ep"] == 0  # EP within the data-parallel x CP x TP ranks


@pytest.mark.parametrize("run", [r for _, r, _ in RUNS], ids=lambda r: r.name)
def test_global_batch_divides_by_micro_batch_times_dp(run: PublishedRun) -> None:
    assert run.global_batch % (_option(run, "max_micro_batch") * dict(run.degrees)["dp"]) == 0


@pytest.mark.parametrize("run", [r for _, r, _ in RUNS], ids=lambda r: r.name)
def test_model_size_matches_the_name(run: PublishedRun) -> None:
    named = NAMED_SIZE[run.model if isinstance(run.model, str) else run.model.name]
    assert abs(run.model_spec().num_params / named - 1) < 0.02


def test_row_counts() -> None:
    assert len(report.ASYNC_TP_ROWS) == 8  # 2 tables x (bf16, float8 tensorwise) x (vanilla, async); rowwise out
    assert len(RUNS) == 8 + 2 + 3 + 4 + 1 + 1
    assert sum(moe for _, _, moe in RUNS) == 5


def test_zoo_row_is_64_gpus_at_ep_64() -> None:
    (zoo,) = [r for _, r, _ in RUNS if r.name.startswith("MoE-ModelZoo")]
    assert zoo.nodes * zoo.cluster_spec().gpus_per_node == 64 and dict(zoo.degrees)["ep"] == 64
    assert zoo.measured_tflops_per_gpu == 1055.0 and "798dfb5" in zoo.source


@pytest.mark.parametrize("row", report.DGXC_ROWS, ids=lambda row: str(row[3]))
def test_dgxc_rows_match_their_experiment_names(row: tuple[Any, ...]) -> None:
    name = str(row[3])
    fields = dict(re.findall(r"_(gpus|tp|pp|cp|vp|ep|mbs|gbs)(\d+|None)", name))
    gpus, batch, micro, tp, pp, cp, vp, ep = (row[i] for i in (7, 8, 9, 12, 13, 14, 15, 16))
    assert int(fields["gpus"]) == gpus and int(fields["gbs"]) == batch and int(fields["mbs"]) == micro
    assert (int(fields["tp"]), int(fields["pp"]), int(fields["cp"]), int(fields["ep"])) == (tp, pp, cp, ep)
    assert (1 if fields["vp"] == "None" else int(fields["vp"])) == vp


@pytest.mark.parametrize(
    ("index", "job_tokens_per_s"),
    [(0, 4096 * 8192 / 36.189), (1, 757641.0)],  # deepseek_v3 README, releases 25.08 and 25.10: "E.g. ..."
)
def test_dgxc_tokens_follow_the_readme_formula(index: int, job_tokens_per_s: float) -> None:
    row = report.DGXC_ROWS[index]
    assert report.dgxc_tokens_per_gpu_s(row) == pytest.approx(job_tokens_per_s / row[7], rel=1e-3)


def test_automodel_row_matches_its_step_time() -> None:
    # the page's own columns: 512 sequences of 4096 tokens in 22.14 s on 8 GPUs = 11,842 tokens/s/GPU
    (row,) = report.AUTOMODEL_ROWS
    assert row[-1] == pytest.approx(512 * 4096 / (22.14 * 8), rel=1e-3)


def test_async_tp_global_batch_is_local_batch_times_fsdp() -> None:
    seventy = [r for _, r, _ in RUNS if r.name.startswith("TorchTitan 2025-06 Llama3 70b")]
    assert {r.global_batch for r in seventy} == {16 * 32}
    eight = [r for _, r, _ in RUNS if r.name.startswith("TorchTitan 2025-06 Llama3 8b")]
    assert {r.global_batch for r in eight} == {12 * 8}


def test_report_runs_and_scores_every_row() -> None:
    script = ROOT / "benchmarks" / "report_heldout_outside17.py"
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = re.findall(r"estimate/measured \S+: (pass|miss)", done.stdout)
    assert len(verdicts) == len(RUNS)
    tally = re.search(r"^all: (\d+) of (\d+) pass$", done.stdout, re.MULTILINE)
    assert tally is not None and int(tally.group(2)) == len(RUNS)
