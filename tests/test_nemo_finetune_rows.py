"""NeMo 24.07's fine-tuning table (DGX-H100, FP8, SQuAD packed to 4096 tokens): its three SFT and three LoRA rows.

The figures are the table's tokens per GPU-second at NVIDIA/NeMo @ 070a0bb1 (docs/source/performance/
performance_summary.md, "Finetuning"); the settings come from the NeMo-Framework-Launcher 24.07 scripts that produced
them (examples/peft/llama/h100/*.sh, launcher_scripts/conf/peft/llama/sft.yaml). None of these rows fits a constant.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from coursekit.planner import compare_published
from coursekit.planner.validation import _published_layout
from coursekit.published_runs import NEMO_2407_LORA_RUNS, NEMO_2407_SFT_RUNS, RUN_ROLES
from coursekit.specs import PRECISION_RECIPES

TABLE_TOKENS = {
    "NeMo SFT Llama 2 7B, 4K, 8 H100 (FP8)": 17120.0,
    "NeMo SFT Llama 2 13B, 4K, 8 H100 (FP8)": 9741.0,
    "NeMo SFT Llama 2 70B, 4K, 16 H100 (FP8)": 1833.0,
    "NeMo LoRA Llama 2 7B, 4K, 8 H100 (FP8)": 25206.0,
    "NeMo LoRA Llama 2 13B, 4K, 8 H100 (FP8)": 14161.0,
    "NeMo LoRA Llama 2 70B, 4K, 8 H100 (FP8)": 2557.0,
}


def test_the_rows_are_the_tables_and_only_check() -> None:
    runs = (*NEMO_2407_SFT_RUNS, *NEMO_2407_LORA_RUNS)
    assert {run.name: run.measured_tokens_per_gpu_s for run in runs} == TABLE_TOKENS
    assert {RUN_ROLES[run.name] for run in runs} == {"validation"}
    layouts = {run.name: dict(run.degrees) for run in runs}
    assert layouts["NeMo SFT Llama 2 13B, 4K, 8 H100 (FP8)"]["pp"] == 4  # TP 1, PP 4 (VP 10) in the table
    assert layouts["NeMo SFT Llama 2 70B, 4K, 16 H100 (FP8)"]["tp"] == 4
    assert layouts["NeMo LoRA Llama 2 70B, 4K, 8 H100 (FP8)"]["tp"] == 2


def test_the_sft_recipe_is_apex_distributed_adam_with_bf16_state() -> None:
    """sft.yaml: distributed_fused_adam, dtype bf16, grad_sync_dtype bf16. Apex's DistributedFusedAdam keeps its
    state in ``dtype`` and, by default, a copy of the parameters as state: a bf16 weight copy and bf16 momentum and
    variance, 2 + 2 + 2 bytes; bf16 weights and gradients, 2 + 2."""
    recipe = PRECISION_RECIPES["apex-dfa-bf16"]
    assert (recipe.param_bytes, recipe.grad_bytes, recipe.optimizer_bytes) == (2, 2, 6)
    assert all(dict(run.workload_options)["recipe"] == "apex-dfa-bf16" for run in NEMO_2407_SFT_RUNS)


@pytest.mark.parametrize("run", (*NEMO_2407_SFT_RUNS, *NEMO_2407_LORA_RUNS), ids=lambda run: run.name)
def test_each_row_passes(run: object) -> None:
    comparison = compare_published(run)
    assert comparison.passes, (comparison.missed, comparison.rank, comparison.estimated_over_published)


def test_the_70b_sft_row_fits_only_with_the_recipe_it_ran() -> None:
    """With the default 2 + 2 + 12 bytes (fp32 master weights and moments) TP 4 x PP 4 does not fit an 80 GiB H100;
    with the bf16 state it ran, the weights, gradients and optimizer state take 10 bytes per parameter, 5 times the
    weights' 2 (one data-parallel rank: nothing sharded)."""
    run = NEMO_2407_SFT_RUNS[2]
    _, check = _published_layout(run, run.workload())
    memory = check.candidate.memory
    assert check.accepted and memory is not None
    assert (memory.params_gib + memory.grads_gib + memory.optimizer_gib) / memory.params_gib == pytest.approx(5.0)
    default = replace(run, workload_options=tuple((k, v) for k, v in run.workload_options if k != "recipe"))
    assert not compare_published(default).accepted
