"""Asymmetric pipeline edges: the first stage gives up e1 layers to the embedding, the last e2 to the output layer,
the loss and the multi-token prediction block (``WorkloadSpec.pipeline_last_edge_layers``).

Megatron-LM counts the two apart (``--account-for-embedding-in-pipeline-split``,
``--account-for-loss-in-pipeline-split``, ``--decoder-first-pipeline-num-layers``,
``--decoder-last-pipeline-num-layers``, ``pipeline_model_parallel_layout``;
``megatron/core/transformer/transformer_config.py``). Megatron-Bridge's DeepSeek-V3 recipe
(``recipes/deepseek/deepseek_v3.py``, ``layout_map[(16, 1)]``) lays 16 stages out as the embedding and 4 layers, 14
stages of 4 layers, and 1 layer with the MTP block and the loss: first edge 0, last edge 3.

Every expected value below is worked by hand from those sources in the comments, not read off the code.
"""

from __future__ import annotations

import numpy as np
import pytest

from coursekit.planner import WorkloadSpec, evaluate_composition, plan, stage_layers
from coursekit.planner.gate_table import chunks_divide_stages
from coursekit.presets import CLUSTERS, MODELS
from coursekit.specs import pipeline_edges_at, stage_layer_counts


def test_deepseek_v3_on_16_stages_as_megatron_bridge_lays_it_out() -> None:
    # L = 61, e1 = 0, e2 = 3: q = ceil((61 + 0 + 3) / 16) = ceil(64 / 16) = 4; first = 4 - 0 = 4, last = 4 - 3 = 1;
    # the 14 middle stages share 61 - 4 - 1 = 56 layers, 56 / 14 = 4 each.
    assert stage_layers(61, 16, 0, 3) == (4, 4, 1)
    assert tuple(int(x) for x in stage_layer_counts(61, 16, 0, 3)) == (4, 4, 1)


def test_deepseek_v3_on_8_stages() -> None:
    # q = ceil(64 / 8) = 8; first 8 - 0 = 8, last 8 - 3 = 5; middle ceil((61 - 8 - 5) / 6) = ceil(48 / 6) = 8.
    assert stage_layers(61, 8, 0, 3) == (8, 8, 5)


def test_llama3_405b_symmetric_split_is_unchanged() -> None:
    # 126 layers, 16 stages, e = 1 on both edges (the default rule: 126 + 2 = 128 = 16 * 8): q = 8, edges 7, middle
    # (126 - 14) / 14 = 8 (arXiv:2407.21783, §3.3.2).
    assert pipeline_edges_at(126, 16, None) == (1, 1)
    assert pipeline_edges_at(126, 16, None, None) == (1, 1)
    assert stage_layers(126, 16, 1) == stage_layers(126, 16, 1, None) == stage_layers(126, 16, 1, 1) == (7, 8, 7)


def test_megatron_bridge_h100_layout_string_states_edges_1_and_2() -> None:
    # "Et|(tt|)*30mL": 32 chunks of two layer slots. The first chunk is the embedding and 1 layer (the embedding
    # takes 1 slot: e1 = 1); the last chunk is the MTP block and the loss with no layer (2 slots: e2 = 2); the 30 in
    # between hold 2 layers each: 1 + 60 = 61 layers.
    chunks = ["Et"] + ["tt"] * 30 + ["mL"]
    assert sum(chunk.count("t") for chunk in chunks) == 61
    e1, e2 = 2 - chunks[0].count("t"), 2 - chunks[-1].count("t")
    assert (e1, e2) == (1, 2)
    # PP 8, VP 4 (the published run): stage 1 holds chunks 1, 9, 17, 25 = 1 + 2 + 2 + 2 = 7 layers, stage 8 chunks
    # 8, 16, 24, 32 = 2 + 2 + 2 + 0 = 6, every other stage 4 chunks of 2 = 8. By the rule: q = ceil(64 / 8) = 8,
    # first 8 - 1 = 7, last 8 - 2 = 6, middle (61 - 13) / 6 = 8.
    by_chunks = [sum(chunks[stage + 8 * k].count("t") for k in range(4)) for stage in range(8)]
    assert (by_chunks[0], max(by_chunks[1:-1]), by_chunks[-1]) == (7, 8, 6)
    assert stage_layers(61, 8, 1, 2) == (7, 8, 6)
    # each stage's slots (7 + 1, 8, 6 + 2) split into 4 chunks of 2
    assert bool(chunks_divide_stages(7, 8, 6, 8, 1, 4, 2))
    # PP 16, VP 2: q = 4, first 3, last 2, middle (61 - 5) / 14 = 4
    assert stage_layers(61, 16, 1, 2) == (3, 4, 2)


def test_one_and_two_stages() -> None:
    # pp = 1: the one stage holds every layer, whatever the edges.
    assert stage_layers(61, 1, 0, 3) == (61, 0, 61)
    # pp = 2: the halves of L + e1 + e2 less each edge: ceil((61 + 0 + 3) / 2) = 32 for the first, 61 - 32 = 29 last
    assert stage_layers(61, 2, 0, 3) == (32, 0, 29)
    # equal edges keep the old rule, ceil(L / 2) on the first stage, whatever e is
    for edge in (0, 1, 2, 5):
        assert stage_layers(61, 2, edge, edge) == stage_layers(61, 2, edge) == (31, 0, 30)


def test_a_negative_stage_is_refused_naming_the_parameter() -> None:
    # q = ceil((61 + 0 + 40) / 16) = ceil(101 / 16) = 7; the last stage would hold 7 - 40 = -33 layers
    with pytest.raises(ValueError, match="last_edge_layers = 40") as refused:
        stage_layers(61, 16, 0, 40)
    assert "-33" in str(refused.value)
    with pytest.raises(ValueError, match="pipeline_last_edge_layers"):
        WorkloadSpec(global_batch=8, pipeline_last_edge_layers=-1)
    with pytest.raises(ValueError, match="pipeline_last_edge_layers"):
        WorkloadSpec(global_batch=8, pipeline_last_edge_layers=(1 << 16) + 1)
    with pytest.raises(ValueError, match="last_edge_layers"):
        stage_layers(61, 16, 0, -1)
    # the planner's pp_layers gate refuses the same composition and names both parameters
    model, cluster = MODELS["deepseek-v3"], CLUSTERS["h100-8"].with_nodes(128)
    workload = WorkloadSpec(global_batch=8192, seq_len=4096, pipeline_edge_layers=0, pipeline_last_edge_layers=40)
    cand = evaluate_composition(model, cluster, workload, tp=2, pp=16, dp=32, ep=64, etp=1, zero=1, mb=1)
    assert cand.codes == ("pp_layers",)
    text = str(cand.reasons[0])
    assert "pipeline_last_edge_layers" in text and "pipeline_edge_layers" in text and "-33" in text


def test_an_empty_last_stage_fails_the_pp_layers_gate() -> None:
    # q = ceil((61 + 0 + 4) / 16) = 5; last 5 - 4 = 1 layer: accepted by the gate; e2 = 5: q = ceil(66 / 16) = 5,
    # last 5 - 5 = 0 layers: a stage without a layer.
    model, cluster = MODELS["deepseek-v3"], CLUSTERS["h100-8"].with_nodes(128)
    for last_edge, refused in ((4, False), (5, True)):
        workload = WorkloadSpec(
            global_batch=8192, seq_len=4096, pipeline_edge_layers=0, pipeline_last_edge_layers=last_edge
        )
        cand = evaluate_composition(model, cluster, workload, tp=2, pp=16, dp=32, ep=64, etp=1, zero=1, mb=1)
        assert ("pp_layers" in cand.codes) is refused, (last_edge, cand.codes)


def test_array_pp_matches_scalar_calls() -> None:
    pp = np.arange(1, 65)
    for layers, e1, e2 in ((61, 0, 3), (61, 1, 2), (126, 1, None), (94, 2, 0), (80, 0, 0)):
        columns = stage_layer_counts(layers, pp, e1, e2)
        for i, p in enumerate(pp.tolist()):
            assert tuple(int(x[i]) for x in columns) == tuple(int(x) for x in stage_layer_counts(layers, p, e1, e2))
    first, last = pipeline_edges_at(126, pp, None, 3)
    assert np.array_equal(first, pipeline_edges_at(126, pp, None)[0]) and last == 3


def test_equal_or_unset_last_edge_is_the_symmetric_split() -> None:
    for layers in (1, 2, 7, 61, 80, 94, 126):
        for pp in range(1, 40):
            for edge in range(4):
                old = tuple(int(x) for x in stage_layer_counts(layers, pp, edge))
                assert old == tuple(int(x) for x in stage_layer_counts(layers, pp, edge, edge)), (layers, pp, edge)
                assert old == tuple(int(x) for x in stage_layer_counts(layers, pp, edge, None)), (layers, pp, edge)


def test_deepseek_v3_last_stage_is_lighter_with_the_recipes_edges() -> None:
    """The same candidate (TP 2, PP 16, EP 64) with (0, 0) holds 4, 4, 4 layers: the last stage also holds the MTP
    block and the 129280 x 7168 output layer and is the slowest. With (0, 3) it holds 1 layer, and the slowest stage
    is a middle one: less compute on the slowest stage and a shorter step."""
    model, cluster = MODELS["deepseek-v3"], CLUSTERS["h100-8"].with_nodes(128)
    degrees = {"tp": 2, "pp": 16, "dp": 32, "ep": 64, "etp": 1, "zero": 1, "mb": 1, "recompute": "none"}
    runs = {}
    for edges in ((0, 0), (0, 3)):
        workload = WorkloadSpec(
            global_batch=8192, seq_len=4096, pipeline_edge_layers=edges[0], pipeline_last_edge_layers=edges[1]
        )
        runs[edges] = evaluate_composition(model, cluster, workload, **degrees)
    even, recipe = runs[(0, 0)], runs[(0, 3)]
    assert even.stage_layers == (4, 4, 4) and recipe.stage_layers == (4, 4, 1)
    assert even.timeline is not None and recipe.timeline is not None
    assert recipe.timeline.compute_s < even.timeline.compute_s
    assert recipe.step_s is not None and even.step_s is not None and recipe.step_s < even.step_s
    assert even.memory is not None and recipe.memory is not None


@pytest.mark.parametrize(
    ("name", "nodes", "edge"),
    [("llama3-405b", 8, 1), ("llama3-70b", 4, 0), ("mixtral-8x7b", 4, 1), ("mcore-gpt-119b", 4, 2)],
)
def test_unset_last_edge_plans_exactly_as_an_equal_one(name: str, nodes: int, edge: int) -> None:
    model, cluster = MODELS[name], CLUSTERS["h100-8"].with_nodes(nodes)
    base = {"global_batch": 256, "seq_len": 4096, "pipeline_edge_layers": edge}
    unset = plan(model, cluster, WorkloadSpec(**base))
    equal = plan(model, cluster, WorkloadSpec(**base, pipeline_last_edge_layers=edge))
    assert unset.funnel == equal.funnel and unset.space_size == equal.space_size
    assert unset.accepted_count == equal.accepted_count
    assert [c.step_s for c in unset.accepted(20)] == [c.step_s for c in equal.accepted(20)]
    assert [c.stage_layers for c in unset.accepted(20)] == [c.stage_layers for c in equal.accepted(20)]


def test_the_command_line_reads_last_edge_layers() -> None:
    from coursekit.planner.cli import workload_argv

    workload = WorkloadSpec(global_batch=64, pipeline_edge_layers=0, pipeline_last_edge_layers=3)
    argv = workload_argv(workload)
    assert argv[argv.index("--last-edge-layers") + 1] == "3"
    assert argv[argv.index("--edge-layers") + 1] == "0"


# Megatron-Bridge's DeepSeek-V3 layout map (recipes/deepseek/h100/deepseek_v3.py @ 067f987df,
# _get_deepseek_v3_pipeline_layout), one MTP module, read per pipeline rank: (pp, vp) -> (first, middle, last) layers.
# (4, 1): 16 | 16 | 16 | 13; (8, 1): 8, 6 x 8, 5; (16, 1): 4, 14 x 4, 1. The first stage holds the embedding and a
# full stage of layers, the last 3 fewer: the MTP module and the loss.
BRIDGE_DEEPSEEK_V3_LAYOUTS = {4: (16, 16, 13), 8: (8, 8, 5), 16: (4, 4, 1)}


@pytest.mark.parametrize(("pp", "expected"), sorted(BRIDGE_DEEPSEEK_V3_LAYOUTS.items()))
def test_an_mtp_model_with_no_split_stated_is_laid_out_as_megatron_bridge_does(
    pp: int, expected: tuple[int, int, int]
) -> None:
    model = MODELS["deepseek-v3"]
    assert model.mtp_layers == 1 and model.layers == 61
    # nothing stated: edges (0, 3) for the one MTP module; 61 + 0 + 3 = 64 splits evenly over 4, 8 and 16 stages
    assert pipeline_edges_at(model.layers, pp, None, None, mtp_layers=model.mtp_layers) == (0, 3)
    assert stage_layers(model.layers, pp, 0, 3) == expected
    # the planner reads it the same way: the candidate's stage layers are the layout's
    cluster = CLUSTERS["h100-8"].with_nodes(128)
    workload = WorkloadSpec(global_batch=8192, seq_len=4096)
    cand = evaluate_composition(model, cluster, workload, tp=2, pp=pp, ep=64, etp=1, zero=1, mb=1)
    assert cand.stage_layers == expected


def test_a_stated_edge_still_wins_over_the_mtp_default() -> None:
    # the MTP default applies only when the workload states neither edge: a stated first edge keeps the old rule
    # (the last stage the same as the first), a stated last edge keeps the first edge's own rule (61 + 2 = 63 is no
    # multiple of 16: 0)
    assert pipeline_edges_at(61, 16, 1, None, mtp_layers=1) == (1, 1)
    assert pipeline_edges_at(61, 16, None, 2, mtp_layers=1) == (0, 2)
    assert pipeline_edges_at(61, 16, 0, 0, mtp_layers=1) == (0, 0)
    # and a model without MTP modules keeps the Megatron-Core rule (Llama 3 405B: 126 + 2 = 128 = 16 * 8)
    assert pipeline_edges_at(126, 16, None, None, mtp_layers=0) == (1, 1)
    model, cluster = MODELS["deepseek-v3"], CLUSTERS["h100-8"].with_nodes(128)
    stated = WorkloadSpec(global_batch=8192, seq_len=4096, pipeline_edge_layers=0, pipeline_last_edge_layers=0)
    cand = evaluate_composition(model, cluster, stated, tp=2, pp=16, ep=64, etp=1, zero=1, mb=1)
    assert cand.stage_layers == (4, 4, 4)


def test_two_mtp_modules_give_up_five_layers() -> None:
    # each further MTP module is one more transformer block and one more pass through the output layer: 1 + 2 * 2
    from coursekit.specs import _mtp_last_edge_layers

    assert [_mtp_last_edge_layers(m) for m in (0, 1, 2, 3)] == [0, 3, 5, 7]
    # 61 + 5 = 66: on 4 stages q = 17, last 12; on 8, q = 9, last 4; on 16, q = 5 and the last stage would hold none,
    # so the other rule (0, 0) applies there
    pp = np.array([4, 8, 16])
    first, last = pipeline_edges_at(61, pp, None, None, mtp_layers=2)
    assert np.all(first == 0) and last.tolist() == [5, 5, 0]
    assert stage_layers(61, 4, 0, 5)[2] == 12 and stage_layers(61, 8, 0, 5)[2] == 4


def test_the_mtp_default_never_leaves_a_stage_without_a_layer() -> None:
    # DeepSeek-V3 on 32 stages: (0, 3) gives q = ceil(64 / 32) = 2 and a last stage of 2 - 3 = -1 layers, so the
    # model's other rule applies: 61 + 2 = 63 is no multiple of 32, edges (0, 0): q = ceil(61 / 32) = 2, first and last
    # 2, the 30 middle stages ceil(57 / 30) = 2 at most (pp = 21 still fits: q =
    # ceil(64 / 21) = 4, last 4 - 3 = 1)
    assert pipeline_edges_at(61, 32, None, None, mtp_layers=1) == (0, 0)
    assert stage_layers(61, 32, 0, 0) == (2, 2, 2)
    assert pipeline_edges_at(61, 21, None, None, mtp_layers=1) == (0, 3)
    assert pipeline_edges_at(61, 22, None, None, mtp_layers=1) == (0, 0)  # q = ceil(64 / 22) = 3: last 0
    # a 4-layer model with one MTP module on 2 stages: (0, 3) gives q = ceil(7 / 2) = 4, the first stage all 4 layers
    # and the last none, so the even split (2, 2)
    assert pipeline_edges_at(4, 2, None, None, mtp_layers=1) == (0, 0)
    assert stage_layers(4, 2, 0, 0) == (2, 0, 2)
    # over a column of pp the same, element by element
    pp = np.array([16, 21, 22, 32])
    first, last = pipeline_edges_at(61, pp, None, None, mtp_layers=1)
    assert np.array_equal(np.broadcast_to(first, pp.shape), [0, 0, 0, 0]) and np.array_equal(last, [3, 3, 0, 0])
