"""The pipeline split's default: the embedding and the loss count as a layer each exactly where that evens a split.

Megatron-Core's ``--account-for-embedding-in-pipeline-split`` and ``--account-for-loss-in-pipeline-split``
(Megatron-LM ef490839, February 2025) let the first and the last stage hold one transformer layer fewer, the slot
taken by the embedding and by the output layer with the loss. Llama 3 405B's 126 layers on 16 stages are the paper's
case: 7, 8, ..., 8, 7, and one layer per model chunk at v = 8 (arXiv:2407.21783, §3.3.2). The workload's default
(``pipeline_edge_layers=None``) uses that split where the layers do not divide the stages but the layers plus two
do; a number (``0`` never) is used as given, and every registered run whose model that rule would split names its
own.
"""

from __future__ import annotations

import pytest

from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import all_published_runs
from coursekit.specs import edge_layers_at, stage_layer_counts


def test_default_is_none_and_the_rule_by_hand() -> None:
    assert WorkloadSpec(global_batch=8).pipeline_edge_layers is None
    # 126 = 16·7.875, 128 = 16·8: split; 94 on 8 (96 = 8·12): split; 80 on 16 divides already; 61 + 2 = 63 divides
    # no power of two; two stages never move a layer.
    cases = {(126, 16): 1, (126, 8): 1, (94, 8): 1, (94, 4): 1, (80, 16): 0, (96, 8): 0, (61, 16): 0, (126, 2): 0}
    for (layers, pp), edge in cases.items():
        assert edge_layers_at(layers, pp, None) == edge, (layers, pp)
        assert edge_layers_at(layers, pp, 0) == 0 and edge_layers_at(layers, pp, 1) == 1


def test_llama3_405b_on_16_stages_gets_the_papers_split_and_one_layer_per_chunk() -> None:
    """Layers 7, 8, 7 (first, middle, last): 7 + 1 = 8 slots on the edge stages, 8 in the middle; v = 8 chunks of
    one slot each. With the split turned off (0) the first stage holds ceil(126/16) = 8 layers, one more than with
    it, and at v = 8 its activations in flight no longer fit in 80 GiB."""
    assert stage_layer_counts(126, 16, 1) == (7, 8, 7)
    model, cluster = MODELS["llama3-405b"], CLUSTERS["h100-8"].with_nodes(1024)
    layout = "tp=8,pp=16,dp=64,cp=1,v=8,zero=2,mb=1,recompute=none"
    auto = plan(model, cluster, WorkloadSpec(global_batch=2048, seq_len=8192, max_virtual_stages=8))
    off = plan(
        model, cluster, WorkloadSpec(global_batch=2048, seq_len=8192, max_virtual_stages=8, pipeline_edge_layers=0)
    )
    with_split, without = auto.explain(layout), off.explain(layout)
    assert with_split.accepted, with_split.codes
    assert with_split.stage_layers == (7, 8, 7) and without.stage_layers == (8, 8, 8)
    assert without.codes == ("memory",)
    assert with_split.memory is not None and without.memory is not None
    assert with_split.memory.total_gib < without.memory.total_gib


def test_a_model_whose_layers_divide_every_stage_count_plans_the_same_either_way() -> None:
    model, cluster = MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(8)
    results = [
        plan(model, cluster, WorkloadSpec(global_batch=128, seq_len=8192, pipeline_edge_layers=edge))
        for edge in (None, 0)
    ]
    assert results[0].accepted_count == results[1].accepted_count
    assert [c.step_s for c in results[0].accepted(20)] == [c.step_s for c in results[1].accepted(20)]


@pytest.mark.parametrize("pp", [4, 8, 16, 32, 64, 128])
def test_every_registered_run_the_rule_would_split_names_its_split(pp: int) -> None:
    unnamed = []
    for run in all_published_runs():
        named = "pipeline_edge_layers" in dict(run.workload_options)
        if edge_layers_at(run.model_spec().layers, pp, None) and not named:
            unnamed.append(run.name)
    assert unnamed == []


def test_configs_that_set_the_split_are_registered_with_it() -> None:
    """NeMo's llama31_405b recipe from v2.2.0 and DGX Cloud's 25.05 recipe, and Megatron-Bridge's Qwen3 235B recipe,
    set both options; DGX Cloud's 2024 recipes and Megatron-Core's 2024 tables predate them."""
    edges = {run.name: dict(run.workload_options).get("pipeline_edge_layers") for run in all_published_runs()}
    for name in (
        "NeMo 25.02 Llama 3 405B, 8K, 128 B200 (FP8)",
        "DGX Cloud 25.05 Llama 3.1 405B, 8K, 512 H100 (BF16)",
        "Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8)",
    ):
        assert edges[name] == 1, name
    for name in ("DGX Cloud Llama 3.1 405B, 8K, 576 H100 (BF16)", "Megatron-Core GPT 7.1B, 4K, 96 H100"):
        assert edges[name] == 0, name
