"""The workload's default precision recipe, and the registered runs that name another.

The default is what NVIDIA's performance scripts (the configurations behind its published H100/B200 tables) run:
bf16 weights and gradients, gradients reduced in bf16 (Megatron-Bridge scripts/performance:
``cfg.ddp.grad_reduce_in_fp32 = False``), fp32 master weights and Adam moments: 2 + 2 + 12 bytes per parameter, the
ZeRO paper's mixed-precision Adam (arXiv:1910.02054, §3.1, K = 12). Megatron-LM's own trainer keeps gradients in fp32
under ``--bf16`` (megatron/training/arguments.py: "accumulate and all-reduce gradients in fp32 for bfloat16 data
type"), and so did NeMo's 24.07 launcher, Llama 3 (arXiv:2407.21783, §3.3.2, "Numerical stability") and BLOOM's
BF16Optimizer: 2 + 4 + 12. Every registered run names its recipe, so the default never moves a registered run.
"""

from __future__ import annotations

import pytest

from coursekit.capacity import PRECISION_RECIPES
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import NEMO_2407_FINETUNE_SOURCE, NEMO_2407_SOURCE, all_published_runs

GIB = 2**30


def test_default_recipe_is_bf16_gradients_with_fp32_master_and_adam() -> None:
    recipe = PRECISION_RECIPES[WorkloadSpec(global_batch=8).recipe]
    assert (recipe.param_bytes, recipe.grad_bytes, recipe.optimizer_bytes) == (2, 2, 12)


def test_every_registered_run_names_its_recipe() -> None:
    unnamed = [run.name for run in all_published_runs() if "recipe" not in dict(run.workload_options)]
    assert unnamed == []


@pytest.mark.parametrize(
    "prefix",
    ["Llama 3 405B", "BLOOM", "Megatron-Core ", "MoE-ModelZoo ", "NeMo Llama", "NeMo GPT-3", "NeMo Nemotron-3"],
)
def test_engines_that_keep_fp32_gradients_name_that_recipe(prefix: str) -> None:
    runs = [run for run in all_published_runs() if run.name.startswith(prefix)]
    assert runs
    assert {dict(run.workload_options)["recipe"] for run in runs} == {"megatron-bf16"}, prefix


def test_nemo_2407_rows_reduce_in_fp32_except_the_one_whose_config_says_bf16() -> None:
    rows = {run.name: dict(run.workload_options)["recipe"] for run in all_published_runs()}
    nemo = {name: recipe for name, recipe in rows.items() if name.startswith("NeMo ") and "25.02" not in name}
    bf16 = {name for name, recipe in nemo.items() if recipe == "zero-fp16-adam"}
    assert bf16 == {"NeMo Nemotron-4 340B, 4K, 128 H100 (FP8)"}  # grad_sync_dtype: bf16 in its launcher config
    sources = [run.source for run in all_published_runs() if run.name in nemo and "Long Sequence" not in run.source]
    assert all(source.startswith((NEMO_2407_SOURCE, NEMO_2407_FINETUNE_SOURCE)) for source in sources)


def test_default_recipe_saves_two_bytes_per_parameter_of_the_ledger_by_hand() -> None:
    """Llama 3 8B on one 8-GPU node, TP 1, PP 1, DP 8, ZeRO-0: the gradients take 2 bytes per parameter instead of
    4, and nothing else in the ledger changes (weights 2, optimizer 12)."""
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    layout = "tp=1,cp=1,pp=1,dp=8,zero=0,mb=1,recompute=full"
    ledgers = {}
    for recipe in ("zero-fp16-adam", "megatron-bf16"):
        workload = WorkloadSpec(global_batch=8, seq_len=2048, recipe=recipe, zero_stages=(0,))
        ledgers[recipe] = plan(model, cluster, workload).explain(layout).memory
    bf16, fp32 = ledgers["zero-fp16-adam"], ledgers["megatron-bf16"]
    assert bf16 is not None and fp32 is not None
    psi = model.num_params
    assert bf16.grads_gib * GIB == pytest.approx(2 * psi)
    assert fp32.grads_gib * GIB == pytest.approx(4 * psi)
    assert (bf16.params_gib, bf16.optimizer_gib, bf16.activations_gib) == (
        fp32.params_gib,
        fp32.optimizer_gib,
        fp32.activations_gib,
    )
    assert (fp32.total_gib - bf16.total_gib) * GIB == pytest.approx(2 * psi)
