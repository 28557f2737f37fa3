"""The planner's gate table: each gate's array test and its reason, on candidates worked by hand.

A tiny model (4 layers, hidden 64, 4 heads, seq 128) on 2 nodes × 4 devices (8 ranks). Each test builds a few
candidates as columns, runs one gate's test over them at once, and checks the reason the failing ones get.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from coursekit.planner import PLAN_GATES, ClusterSpec, ModelSpec, WorkloadSpec, evaluate_composition
from coursekit.planner.gate_table import GATE_BY_CODE, GATE_CODES, GateInput, reasons_of

TINY = ModelSpec("tiny", 4, 64, 4, 256, 1000, 128)
TINY_MOE = TINY.as_moe(8, 2)
BOX = ClusterSpec("box", 2, 4, 80.0, 100e12, 100e9, 10e9, 1e-6, 5e-6, 1e12)
KEYS = ("tp", "cp", "pp", "dp", "ep", "v", "zero", "mb", "ga", "rc")


def gate_input(
    rows: list[dict[str, int]],
    *,
    model: ModelSpec = TINY,
    cluster: ClusterSpec = BOX,
    workload: WorkloadSpec | None = None,
    candidate_mode: str = "training",
) -> GateInput:
    """Columns from ``rows``; unspecified degrees are tp = cp = pp = ep = v = mb = 1, dp = 8, zero 0, ga = 2."""
    base = {"tp": 1, "cp": 1, "pp": 1, "dp": 8, "ep": 1, "v": 1, "zero": 0, "mb": 1, "ga": 2, "rc": 0}
    full = [{**base, **row} for row in rows]
    columns = {key: np.array([row[key] for row in full], dtype=np.int64) for key in KEYS}
    columns["replicas"] = np.array([row.get("replicas", 1) for row in full], dtype=np.int64)
    if any("etp" in row for row in rows):  # expert TP, else the gates read tp (Megatron's default)
        columns["etp"] = np.array([row.get("etp", row["tp"]) for row in full], dtype=np.int64)
    work = workload if workload is not None else WorkloadSpec(global_batch=16)
    return GateInput(model, cluster, work, columns, candidate_mode)


def fails(g: GateInput, code: str) -> list[bool]:
    return [bool(x) for x in GATE_BY_CODE[code].test(g)]


def reason(g: GateInput, code: str, i: int) -> tuple[str, str, Mapping[str, Any]]:
    r = GATE_BY_CODE[code].reason(g, i)
    assert r.code == code and r.render("zh") and r.render("en")
    return r.code, r.key, r.params


def test_the_table_is_in_funnel_order_and_every_row_has_both_forms() -> None:
    assert GATE_CODES[:8] == (
        "ranks",
        "global_batch",
        "tp_heads",
        "pp_layers",
        "cp_seq",
        "ep_experts",
        "ep_fold",
        "pp_schedule",
    )
    assert GATE_CODES[8:] == ("memory", "offload", "interconnect", "structure", "context", "mode", "serving")
    assert all(callable(gate.test) and callable(gate.reason) for gate in PLAN_GATES)
    assert [gate.code for gate in PLAN_GATES if gate.needs_ledger] == ["memory", "offload"]


def test_ranks() -> None:
    g = gate_input([{"dp": 8}, {"tp": 2, "dp": 8}])  # 8 ranks used, then 2·8 = 16 of 8
    assert fails(g, "ranks") == [False, True]
    assert reason(g, "ranks", 1) == ("ranks", "composition.ranks", {"required": 16, "available": 8})


def test_ranks_refuses_idle_ranks_and_names_the_dp_that_fills_the_cluster() -> None:
    # Megatron-Core derives DP = world / (TP·CP·PP): on 8 ranks tp 2 · dp 2 = 4 leaves 4 idle, and dp = 8 / 2 = 4
    # fills the box; tp 3 · dp 2 = 6 leaves 2 idle and no dp fills it (8 is not a multiple of 3).
    g = gate_input([{"tp": 2, "dp": 2, "ga": 8}, {"tp": 3, "dp": 2, "ga": 8}, {"tp": 2, "dp": 4, "ga": 4}])
    assert fails(g, "ranks") == [True, True, False]
    idle = {"required": 4, "available": 8, "idle": 4, "dp": 4}
    assert reason(g, "ranks", 0) == ("ranks", "composition.ranks_idle", idle)
    none = {"required": 6, "available": 8, "idle": 2, "model_ranks": 3}
    assert reason(g, "ranks", 1) == ("ranks", "composition.ranks_idle_no_dp", none)
    first = reasons_of(g, 0, codes=("ranks",))[0]
    for lang, idle_words in (("en", "4 ranks sit idle"), ("zh", "4 个 rank 闲置")):
        assert idle_words in first.render(lang) and "dp = 4" in first.render(lang)


def test_serving_replicas_that_leave_ranks_idle_are_refused() -> None:
    # 8 ranks: 3 replicas of tp 2 use 6 and leave 2 idle; 4 replicas of tp 2 use them all.
    g = gate_input([{"replicas": 3, "tp": 2, "pp": 1}, {"replicas": 4, "tp": 2, "pp": 1}], candidate_mode="serving")
    assert fails(g, "ranks") == [True, False]
    params = {"required": 6, "available": 8, "idle": 2}
    assert reason(g, "ranks", 0) == ("ranks", "composition.replicas_idle", params)


def test_global_batch() -> None:
    # global batch 16: 8·1·2 = 16 holds; 8·1·1 = 8 does not; 8·3 = 24 does not divide 16.
    g = gate_input([{"ga": 2}, {"ga": 1}, {"mb": 3, "ga": 1}])
    assert fails(g, "global_batch") == [False, True, True]
    params = {"dp": 8, "micro_batch": 1, "grad_accum": 1, "product": 8, "global_batch": 16}
    assert reason(g, "global_batch", 1) == ("global_batch", "gates.global_batch", params)


def test_tp_heads() -> None:
    g = gate_input([{"tp": 1}, {"tp": 2}, {"tp": 4}, {"tp": 3}])  # 4 heads: 3 does not divide them
    assert fails(g, "tp_heads") == [False, False, False, True]
    assert reason(g, "tp_heads", 3) == ("tp_heads", "gates.tp_heads", {"tp": 3, "heads": 4})


def test_pp_layers_more_stages_than_layers_and_empty_edge_stage() -> None:
    g = gate_input([{"pp": 4, "dp": 2}, {"pp": 8, "dp": 1}])
    assert fails(g, "pp_layers") == [False, True]
    assert reason(g, "pp_layers", 1) == ("pp_layers", "gates.pp_layers", {"pp": 8, "layers": 4})
    # 4 layers on 4 stages, 2 taken off each edge: q = ceil((4 + 4) / 4) = 2, edge stages 2 - 2 = 0 layers.
    edge = gate_input([{"pp": 4, "dp": 2}], workload=WorkloadSpec(global_batch=16, pipeline_edge_layers=2))
    assert fails(edge, "pp_layers") == [True]
    assert reason(edge, "pp_layers", 0) == ("pp_layers", "planner.pp_edge", {"layers": 4, "pp": 4, "edge": 2})
    # One off each edge: q = ceil(6 / 4) = 2, edges 1 each, the middle two share 4 - 2 = 2: every stage has one.
    one = gate_input([{"pp": 4, "dp": 2}], workload=WorkloadSpec(global_batch=16, pipeline_edge_layers=1))
    assert fails(one, "pp_layers") == [False]


def test_cp_seq() -> None:
    g = gate_input([{"cp": 2, "dp": 4}, {"cp": 3, "dp": 2}])  # 128 tokens: 3 does not divide them
    assert fails(g, "cp_seq") == [False, True]
    assert reason(g, "cp_seq", 1) == ("cp_seq", "planner.cp_seq", {"cp": 3, "seq_len": 128})


def test_ep_experts() -> None:
    assert fails(gate_input([{"ep": 3}]), "ep_experts") == [False]  # a dense model has no experts to divide
    g = gate_input([{"ep": 2}, {"ep": 3}], model=TINY_MOE)  # 8 experts
    assert fails(g, "ep_experts") == [False, True]
    assert reason(g, "ep_experts", 1) == ("ep_experts", "planner.ep_experts", {"ep": 3, "experts": 8})


def test_ep_fold() -> None:
    # EP reuses the data ranks: tp·ep·pp must divide tp·cp·dp·pp. dp 8, ep 4 folds; dp 2, ep 4 does not.
    g = gate_input([{"ep": 4, "dp": 8}, {"ep": 4, "dp": 2}], model=TINY_MOE)
    assert fails(g, "ep_fold") == [False, True]
    params = {"world": 2, "tp": 1, "cp": 1, "dp": 2, "etp": 1, "ep": 4, "pp": 1, "product": 4}
    assert reason(g, "ep_fold", 1) == ("ep_fold", "planner.etp_fold", params)


def test_ep_fold_uses_the_expert_tensor_parallel_degree() -> None:
    # Megatron-Core's expert grid is ETP·EP·EDP·PP over the attention grid's TP·CP·DP·PP ranks, with no CP of its
    # own (parallel_state.initialize_model_parallel). tp 2, dp 2, ep 4: ETP 2 needs 2·4 = 8 ranks of 4 (fails),
    # ETP 1 needs 4 (folds: EDP 1). tp 1, cp 4, ep 4, ETP 1: the CP ranks serve EP (folds).
    rows = [
        {"tp": 2, "dp": 2, "ep": 4, "etp": 2},
        {"tp": 2, "dp": 2, "ep": 4, "etp": 1},
        {"tp": 1, "cp": 4, "dp": 1, "ep": 4, "etp": 1},
    ]
    g = gate_input(rows, model=TINY_MOE)
    assert fails(g, "ep_fold") == [True, False, False]
    params = {"world": 4, "tp": 2, "cp": 1, "dp": 2, "etp": 2, "ep": 4, "pp": 1, "product": 8}
    assert reason(g, "ep_fold", 0) == ("ep_fold", "planner.etp_fold", params)


def test_pp_schedule_three_reasons() -> None:
    # 4 layers on pp = 2: stages of 2 and 2. v = 2 with ga 2 is fine; v = 2 without pp; v = 4 chunks on 2-layer
    # stages; v = 2 with 3 micro-batches, not a multiple of pp = 2.
    g = gate_input(
        [{"pp": 2, "dp": 4, "v": 2, "ga": 2}, {"v": 2}, {"pp": 2, "dp": 4, "v": 4}, {"pp": 2, "dp": 4, "v": 2, "ga": 3}]
    )
    assert fails(g, "pp_schedule") == [False, True, True, True]
    assert reason(g, "pp_schedule", 1) == ("pp_schedule", "planner.virtual_needs_pp", {"v": 2})
    assert reason(g, "pp_schedule", 2) == (
        "pp_schedule",
        "planner.virtual_chunk_layers",
        {"v": 4, "fewest": 2, "edge": 0},
    )
    assert reason(g, "pp_schedule", 3) == (
        "pp_schedule",
        "pipeline.interleaved_multiple",
        {"microbatches": 3, "stages": 2},
    )


def test_pp_schedule_chunks_split_every_stage_equally() -> None:
    # Megatron-Core refuses an interleaved schedule whose stages do not split into v equal chunks
    # (TransformerConfig: "number of layers on each pipeline rank ... must be divisible by
    # virtual_pipeline_model_parallel_size"; the embedding and the loss count as a layer each when the split accounts
    # for them). 6 layers on pp = 2: stages of 3 and 3, so v = 3 splits them and v = 2 does not; with one edge layer
    # each stage counts 3 + 1 = 4, so v = 2 splits them (rank 0: embedding + 1 layer, then 2 layers).
    six = ModelSpec("tiny6", 6, 64, 4, 256, 1000, 128)
    rows = [{"pp": 2, "dp": 4, "v": 3, "ga": 2}, {"pp": 2, "dp": 4, "v": 2, "ga": 2}]
    g = gate_input(rows, model=six)
    assert fails(g, "pp_schedule") == [False, True]
    assert reason(g, "pp_schedule", 1) == (
        "pp_schedule",
        "planner.virtual_chunk_divide",
        {"v": 2, "stages": "3, 3", "edge": 0},
    )
    edged = gate_input(rows[1:], model=six, workload=WorkloadSpec(global_batch=16, pipeline_edge_layers=1))
    assert fails(edged, "pp_schedule") == [False]


def test_llama3_405b_virtual_stages_follow_megatron_split() -> None:
    # Llama 3 405B: 126 layers, the first and last stages one layer fewer (arXiv:2407.21783, §3.3.2), i.e. the
    # embedding and the loss counted as a layer each: (126 + 2) / 16 = 8 per rank at pp 16, 4 at pp 32. Chunks
    # must be equal, so v = 3 splits neither. At pp 32 the edge stages hold 3 layers, and v = 4 leaves the first
    # rank a chunk with the embedding alone, as Llama 3's own first chunk is (§3.3.2; Megatron-Core builds a chunk
    # of zero layers), so v = 4 is tried there too; v = 8 at pp 16, one layer per chunk as Llama 3 ran, within the
    # default bound (8).
    from coursekit.planner.space import _v_options
    from coursekit.presets import MODELS

    llama, edge = MODELS["llama3-405b"], WorkloadSpec(global_batch=2048, pipeline_edge_layers=1)
    assert _v_options(llama, edge, 16) == [1, 2, 4, 8]
    assert _v_options(llama, edge, 32) == [1, 2, 4]
    assert _v_options(llama, replace(edge, max_virtual_stages=4), 16) == [1, 2, 4]
    # MT-NLG-like 105 layers on 35 stages, no edge layers: 3 per stage, so only v = 3 interleaves
    mtnlg = ModelSpec("mtnlg-like", 105, 20480, 128, 81920, 50257, 2048)
    assert _v_options(mtnlg, WorkloadSpec(global_batch=1920), 35) == [1, 3]


def test_memory_needs_a_well_formed_candidate() -> None:
    small = ClusterSpec("tiny-memory", 2, 4, 1.0, 100e12, 100e9, 10e9, 1e-6, 5e-6, 1e12)
    # The 2 GiB runtime reserve alone exceeds a 1 GiB device; the malformed row (tp 3) has no ledger to judge.
    g = gate_input([{"tp": 1}, {"tp": 3}], cluster=small)
    assert fails(g, "memory") == [True, False]
    code, key, params = reason(g, "memory", 0)
    assert (code, key, params["have_gib"]) == ("memory", "gates.memory", 1.0)
    assert params["need_gib"] == pytest.approx(float(g.estimate["memory"]["total"][0]) / 2**30)
    assert params["need_gib"] > 2.0
    roomy = gate_input([{"tp": 1}], workload=WorkloadSpec(global_batch=16, runtime_reserve_gib=0))
    assert fails(roomy, "memory") == [False]


def test_interconnect_leaves_or_straddles_the_node() -> None:
    g = gate_input([{"tp": 4, "dp": 2}, {"tp": 8, "dp": 1}, {"tp": 3}])  # 4 devices per node
    assert fails(g, "interconnect") == [False, True, True]
    assert reason(g, "interconnect", 1) == ("interconnect", "gates.tp_leaves_node", {"tp": 8, "gpus_per_node": 4})
    assert reason(g, "interconnect", 2) == ("interconnect", "gates.tp_straddles_node", {"tp": 3, "gpus_per_node": 4})


def test_structure() -> None:
    dense = gate_input([{"ep": 1}, {"ep": 2}])
    assert fails(dense, "structure") == [False, True]
    params = {"name": "tp=1,pp=1,dp=8,cp=1,ep=2", "kind": "dense", "kinds": "moe"}
    assert reason(dense, "structure", 1) == ("structure", "gates.structure", params)
    assert fails(gate_input([{"ep": 2}], model=TINY_MOE), "structure") == [False]


def test_context_needs_two_equal_chunks_per_cp_rank_and_never_rejects_on_need() -> None:
    """The tiny model fits one device many times over, yet cp = 2 and cp = 4 pass: CP is weighed on its cost, not
    gated on need. Over a 12-token sequence, cp = 4 divides it (cp_seq passes) but the load-balanced causal split
    needs 2 · 4 = 8 equal chunks, and 12 tokens do not split so; cp = 3 and cp = 2 give 6 and 4 chunks of 2 and 3."""
    g = gate_input([{"cp": 1}, {"cp": 2, "dp": 4, "ga": 4}, {"cp": 4, "dp": 2, "ga": 8}])
    assert fails(g, "context") == [False, False, False]
    short = WorkloadSpec(global_batch=16, seq_len=12)
    g = gate_input([{"cp": 2, "dp": 4}, {"cp": 3, "dp": 2}, {"cp": 4, "dp": 2}], workload=short)
    assert fails(g, "cp_seq") == [False, False, False]
    assert fails(g, "context") == [False, False, True]
    assert reason(g, "context", 2) == ("context", "planner.context_chunks", {"cp": 4, "chunks": 8, "seq_len": 12})


def test_mode_and_serving_gates_for_both_kinds_of_candidate() -> None:
    serving = WorkloadSpec(global_batch=16, mode="serving")
    g = gate_input([{"tp": 1}], workload=serving)
    assert fails(g, "mode") == [True] and fails(g, "serving") == [True]
    params = {"name": "tp=1,pp=1,dp=8,cp=1,ep=1", "mode": "serving", "modes": "training"}
    assert reason(g, "mode", 0) == ("mode", "gates.mode", params)
    assert reason(g, "serving", 0)[1] == "gates.training_sync_in_serving"
    replicas = gate_input([{"tp": 2, "replicas": 4}], candidate_mode="serving")  # replicas in a training workload
    assert fails(replicas, "mode") == [True] and fails(replicas, "serving") == [True]
    assert reason(replicas, "serving", 0) == (
        "serving",
        "gates.serving_replica_in_training",
        {"name": "replicas=4,tp=2,pp=1"},
    )
    assert fails(gate_input([{"tp": 1}]), "mode") == [False]


def test_reasons_come_in_funnel_order_and_explain_uses_the_table() -> None:
    # 6 of 8 ranks used leaves 2 idle, tp 3 breaks the heads and the node, ep 2 the structure: four gates, in table
    # order (2 · 1 · 8 = 16 sequences, 3 · 2 · 1 divides 6).
    g = gate_input([{"tp": 3, "ep": 2, "dp": 2, "ga": 8}])
    assert [r.code for r in reasons_of(g)] == ["ranks", "tp_heads", "interconnect", "structure"]
    one = evaluate_composition(TINY, BOX, WorkloadSpec(global_batch=16), tp=3, dp=2, ep=2)
    assert one.reasons == reasons_of(g)


def test_interconnect_names_the_expert_tp_group_that_leaves_the_node() -> None:
    # BOX has 4 GPUs a node: TP 2 stays inside, an expert-TP group of 8 does not.
    g = gate_input([{"tp": 2, "dp": 4, "etp": 2}, {"tp": 2, "dp": 4, "etp": 8}], model=TINY_MOE)
    assert fails(g, "interconnect") == [False, True]
    assert reason(g, "interconnect", 1) == ("interconnect", "planner.etp_leaves_node", {"etp": 8, "gpus_per_node": 4})


def test_a_chunk_may_hold_only_the_embedding_or_the_loss() -> None:
    """Llama 3 405B (126 layers) on pp = 16 with one layer taken off each edge stage (arXiv:2407.21783, §3.3.2): the
    stages hold 7, 8, ..., 8, 7 layers; counting the embedding and the loss, 8 slots each. v = 8 gives every chunk
    one slot, the first chunk of the first stage only the embedding and the last chunk of the last stage only the
    output layer and loss (the paper's words; Megatron-Core builds such a chunk with zero layers), so it is allowed;
    v = 16 would need 16 slots per stage and is refused, naming the 8 there are."""
    model = ModelSpec("l126", 126, 1024, 8, 4096, 1000, 128)
    workload = WorkloadSpec(global_batch=512, pipeline_edge_layers=1)
    rows = [{"pp": 16, "dp": 1, "v": v, "ga": 32} for v in (4, 8, 16)]
    g = gate_input(rows, model=model, cluster=ClusterSpec("box16", 4, 4, 80.0, 100e12, 100e9, 10e9, 1e-6, 5e-6, 1e12),
                   workload=workload)  # fmt: skip
    assert fails(g, "pp_schedule") == [False, False, True]
    assert reason(g, "pp_schedule", 2) == (
        "pp_schedule",
        "planner.virtual_chunk_layers",
        {"v": 16, "fewest": 8, "edge": 1},
    )
    from coursekit.planner.space import _v_options

    assert _v_options(model, WorkloadSpec(global_batch=512, pipeline_edge_layers=1, max_virtual_stages=16), 16) == [
        1, 2, 4, 8,
    ]  # fmt: skip


def test_a_stage_no_small_v_splits_interleaves_at_the_smallest_v_that_does() -> None:
    """Megatron-Core accepts any v that divides every stage's layers (``TransformerConfig``). 92 layers over
    PP 4 (Megatron-Core's 119B table row) are 23 a stage: 23 is prime, so v = 2, 3, 4 do not split it and only
    v = 23 (one layer per chunk) does; the search tries it instead of leaving the layout at 1F1B. Over PP 2 a stage
    holds 46 layers = 2 · 23, which only v = 2 splits within the default bound (8). ``max_virtual_stages=1``
    turns interleaving off. 126 layers over PP 7 are 18 a stage: v = 2, 3 and 6 split it, 9 and 18 beyond the bound
    are not tried."""
    from coursekit.planner.space import _v_options

    model = ModelSpec("l92", 92, 1024, 8, 4096, 1000, 128)
    default = WorkloadSpec(global_batch=768)
    assert _v_options(model, default, 4) == [1, 23]
    assert _v_options(model, default, 2) == [1, 2]
    assert _v_options(model, WorkloadSpec(global_batch=768, max_virtual_stages=1), 4) == [1]
    assert _v_options(ModelSpec("l126", 126, 1024, 8, 4096, 1000, 128), default, 7) == [1, 2, 3, 6]
    # the pp_schedule gate accepts v = 23 at PP 4 (micro-batches a multiple of PP) and refuses v = 46
    rows = [{"pp": 4, "dp": 1, "v": v, "ga": 16} for v in (23, 46)]
    g = gate_input(rows, model=model, cluster=ClusterSpec("box4", 1, 4, 80.0, 100e12, 100e9, 10e9, 1e-6, 5e-6, 1e12),
                   workload=default)  # fmt: skip
    assert fails(g, "pp_schedule") == [False, True]
