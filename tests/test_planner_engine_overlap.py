"""What NVIDIA's H100 engines overlap, worked by hand from their configs: Transformer Engine's TP comm-GEMM
overlap (userbuffers) and Megatron-Core's per-chunk gradient reduction and parameter gather in the interleaved
pipeline schedule.

Sources: NeMo-Framework-Launcher 24.07 ``conf/training/tp_overlap/ub_cfg_h100_h8192_tp4_mbs1_seqlen4096.yaml``
(the AG+GEMMs ring-exchanged, the dgrad/wgrad pairs bulk-overlapped, proj_fprop and fc2_fprop pipelined in
``num_splits: 4``); Megatron-LM ``megatron/core/pipeline_parallel/schedules.py`` (``grad_sync_func`` launched at
``is_last_microbatch_for_model_chunk``, ``param_sync_func`` at ``is_first_microbatch_for_model_chunk``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from coursekit.capacity import PRECISION_RECIPES
from coursekit.communication import collective_time_s
from coursekit.overlap import interleaved_sync_window_microbatches, tp_comm_overlap_share
from coursekit.planner import WorkloadSpec
from coursekit.planner.estimate import training_estimate
from coursekit.planner.ties import _scenario_specs
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import all_published_runs
from coursekit.specs import TP_COMM_OVERLAP_ON


def _columns(**values: int) -> dict[str, np.ndarray]:
    keys = ("tp", "cp", "pp", "dp", "ep", "v", "zero", "mb", "ga", "rc")
    defaults = {"ep": 1, "v": 1, "pp": 1, "cp": 1, "mb": 1, "rc": 0}
    return {k: np.atleast_1d(np.asarray(values.get(k, defaults.get(k)), dtype=np.int64)) for k in keys}


def test_tp_overlap_share_from_the_userbuffers_config() -> None:
    """Per layer and micro-batch, sequence parallelism runs 2 all-gathers + 2 reduce-scatters forward and as many
    backward: 8 equal collectives. Only the last of the 4 chunks of the 2 forward reduce-scatters (proj_fprop,
    fc2_fprop: num_splits 4) has no GEMM after it: 2 · 1/4 of 8 collectives exposed = 1/16. A recomputed forward
    adds 4 collectives and 2 more exposed quarter-chunks: 1/12 of 12."""
    assert tp_comm_overlap_share() == pytest.approx(1 - (2 * 0.25) / 8)
    assert tp_comm_overlap_share(4, 3) == pytest.approx(1 - (2 * 2 * 0.25) / 12)
    assert tp_comm_overlap_share(8) == pytest.approx(1 - (2 / 8) / 8)
    assert TP_COMM_OVERLAP_ON == tp_comm_overlap_share()  # the constant the runs use is the formula's value
    with pytest.raises(ValueError, match="splits"):
        tp_comm_overlap_share(0)


@pytest.mark.parametrize(
    ("name", "overlap_tp"),
    [
        ("NeMo Llama 2 70B, 4K, 64 H100 (FP8)", 15 / 16),  # llama2_70b.yaml @ 24.07: ub_tp_comm_overlap: true
        ("NeMo Llama 3 70B, 8K, 64 H100 (FP8)", 15 / 16),  # llama3_70b.yaml @ 24.07: ub_tp_comm_overlap: true
        ("NeMo GPT-3 175B, 2K, 128 H100 (FP8)", 0.0),  # gpt3/175b.yaml @ 24.07: ub_tp_comm_overlap: False
        ("Megatron-Bridge Llama 3 70B, 8K, 64 H100 (FP8)", 15 / 16),  # llama3_70b_pretrain_config: tp_comm_overlap=True
        ("Llama 3 405B, 8K, 16384 GPUs", 15 / 16),  # Meta's paper states none either way: the default, on
        ("NeMo GPT-3 175B, 2K, 512 H100 (FP8)", 0.0),  # the same launcher config as the 128-GPU row
        ("DGX Cloud Nemotron-4 340B, 4K, 128 H100 (FP8)", 0.0),  # nemotron4-340b-synth.yaml: ub_tp_comm_overlap False
        ("DGX Cloud Grok-1 314B (MoE), 8K, 512 H100 (BF16)", 0.0),  # grok1_314b.yaml: ub_tp_comm_overlap: false
        ("DGX Cloud Nemotron-4 15B, 4K, 16 H100 (FP8)", 15 / 16),  # nemotron4-15b-synth.yaml: ... True
        ("Megatron-Bridge DeepSeek-V3 (MoE), 4K, 1024 H100 (FP8)", 0.0),  # recipe: CommOverlapConfig(..=False)
        # the 25.11 row's config (qwen3_llm_pretrain.py @ df0289c1, qwen3_235b_a22b_pretrain_config_h100):
        # CommOverlapConfig(tp_comm_overlap=False); the 25.09 run_script.py (fa0315ae) had set it True
        ("Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8)", 0.0),
        ("BLOOM 176B, 384 GPUs", 0.0),  # no sequence parallelism (Megatron-DeepSpeed): the overlap cannot run
    ],
)
def test_runs_state_the_tp_overlap_their_config_sets(name: str, overlap_tp: float) -> None:
    run = next(r for r in all_published_runs() if r.name == name)
    assert run.workload().overlap("tp") == pytest.approx(overlap_tp)


def test_tp_overlap_leaves_a_sixteenth_exposed() -> None:
    """Llama 3 8B on one H100 node, TP 8, no other parallelism: the only communication is TP's, far below the
    compute, so with the overlap on exactly 1/16 of it is exposed; off, all of it."""
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    cols = _columns(tp=8, dp=1, zero=1, ga=4)
    on = training_estimate(model, cluster, WorkloadSpec(global_batch=4), cols)  # on by default
    off = training_estimate(model, cluster, WorkloadSpec(global_batch=4, overlap_tp=0.0), cols)
    tp_s = float(on["comm"]["TP"][0])
    assert 0 < tp_s < float(on["compute_s"][0])
    assert float(on["exposed_s"][0]) == pytest.approx(tp_s / 16, rel=1e-9)
    assert float(off["exposed_s"][0]) == pytest.approx(tp_s, rel=1e-9)


def test_tp_overlap_needs_sequence_parallelism() -> None:
    """Megatron-LM refuses --tp-comm-overlap without --sequence-parallel (validate_args asserts it): the overlap
    kernels split sequence parallelism's all-gathers and reduce-scatters. Without sequence parallelism TP's
    all-reduces stay on the critical path, whatever overlap_tp says: the same Llama 3 8B TP 8 layout as above
    exposes all its TP traffic, as with the overlap off; with sequence parallelism on, a sixteenth."""
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    cols = _columns(tp=8, dp=1, zero=1, ga=4)
    no_sp = WorkloadSpec(global_batch=4, overlap_tp=TP_COMM_OVERLAP_ON, sequence_parallel=False)
    assert no_sp.overlap("tp") == 0.0 and no_sp.overlap_tp == TP_COMM_OVERLAP_ON  # the stated share is kept
    asked = training_estimate(model, cluster, no_sp, cols)
    off = training_estimate(model, cluster, replace(no_sp, overlap_tp=0.0), cols)
    tp_s = float(asked["comm"]["TP"][0])
    assert 0 < tp_s < float(asked["compute_s"][0])
    assert float(asked["exposed_s"][0]) == float(off["exposed_s"][0]) == pytest.approx(tp_s, rel=1e-9)
    on = training_estimate(model, cluster, replace(no_sp, sequence_parallel=True), cols)
    assert float(on["exposed_s"][0]) == pytest.approx(float(on["comm"]["TP"][0]) / 16, rel=1e-9)
    # the uniform what-if override still answers for every dimension
    assert replace(no_sp, overlap_fraction=0.5).overlap("tp") == 0.5


def test_report_says_when_asked_tp_overlap_cannot_run() -> None:
    """A learner who asks for TP overlap with sequence parallelism off is told, in the report's assumptions, that
    the overlap in force is 0 and why (zh and en); nothing is said when sequence parallelism is on."""
    from coursekit.i18n import get_language, set_language
    from coursekit.planner import plan

    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    asked = WorkloadSpec(global_batch=8, overlap_tp=0.9, sequence_parallel=False, zero_stages=(1,))
    before = get_language()
    try:
        set_language("en")
        told = "TP overlap 90% asked, but it runs only with sequence parallelism"
        assert told in plan(model, cluster, asked).report()
        assert "TP overlap" not in plan(model, cluster, replace(asked, sequence_parallel=True)).report()
        set_language("zh")
        assert "TP 通信重叠要求 90%" in plan(model, cluster, asked).report()
    finally:
        set_language(before)


def test_overlap_lower_scenario_lowers_tp_only_where_it_is_on() -> None:
    """The overlap uncertainty (a quarter) moves every share down in the 'lower' scenario: TP's overlap (on by
    default) drops to 15/16 · 3/4; a TP overlap switched off and EP's default 0 stay 0."""
    cluster = CLUSTERS["h100-8"]
    _, moved, _ = _scenario_specs("overlap_lower", cluster, WorkloadSpec(global_batch=8))
    assert moved.overlap("tp") == pytest.approx(15 / 16 * 0.75)
    assert moved.overlap("dp") == pytest.approx(0.75)
    _, off, _ = _scenario_specs("overlap_lower", cluster, WorkloadSpec(global_batch=8, overlap_tp=0.0))
    assert off.overlap("tp") == 0.0 and off.overlap("ep") == 0.0


def test_interleaved_sync_window_by_hand() -> None:
    """pp 4, m 32, v 5: the cooldown runs the last 4 micro-batches' backward chunk by chunk; the first 4 chunks'
    reductions hide under 4 chunk-steps of 4 micro-batches at 1/5 each: 4 · 4/5 = 3.2 micro-batches. v 1: the
    last micro-batch's backward, 1. m < pp: only m micro-batches are in the cooldown."""
    assert interleaved_sync_window_microbatches(4, 32, 5) == pytest.approx(3.2)
    assert interleaved_sync_window_microbatches(4, 32, 1) == 1.0
    assert interleaved_sync_window_microbatches(8, 4, 2) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="virtual_stages"):
        interleaved_sync_window_microbatches(4, 32, 0)


def test_interleaved_pipeline_exposes_one_chunks_dp_traffic() -> None:
    """Llama 2 70B (NeMo's layout: TP 4, PP 4, DP 4, v 20, m 32, distributed optimizer) on 8 H100 nodes: the DP
    group (tp · dp = 16 ranks) crosses nodes. The gradient reduce-scatter hides under 4 · 19/20 micro-batches of
    backward except the last chunk's (1/20 of the stage), the parameter all-gather under as many forwards except the
    first chunk's. The DP ring holds ranks 0, 4, 8, 12 of a 16-rank block: 2 on each node, so it crosses nodes on 2
    NICs (NVIDIA/nccl#569), 2 · 50 GB/s."""
    model, cluster = MODELS["llama2-70b"], CLUSTERS["h100-8"].with_nodes(8)
    workload = WorkloadSpec(global_batch=128, seq_len=4096)
    est = training_estimate(model, cluster, workload, _columns(tp=4, pp=4, dp=4, v=20, zero=1, ga=32))
    recipe = PRECISION_RECIPES[workload.recipe]
    psi = max(float(x) for x in model.stage_dense_params(4)) / 4  # the heaviest stage's shard of one TP rank
    bw, lat = 2 * cluster.inter_node_bandwidth_bytes_per_s, cluster.inter_node_latency_s

    def over_dp(kind: str, payload_bytes: float) -> float:
        return collective_time_s(kind, payload_bytes=payload_bytes, ranks=4, bandwidth_bytes_per_s=bw, latency_s=lat)

    reduce = over_dp("reduce_scatter", psi * recipe.grad_bytes)
    gather = over_dp("all_gather", psi * recipe.param_bytes)
    reduce_tail = over_dp("reduce_scatter", psi / 20 * recipe.grad_bytes)
    gather_tail = over_dp("all_gather", psi / 20 * recipe.param_bytes)
    micro_batch_s = float(est["compute_s"][0]) / 32
    window = 4 * 19 / 20
    exposed_reduce = reduce - min(reduce - reduce_tail, window * micro_batch_s * 2 / 3)
    exposed_gather = gather - min(gather - gather_tail, window * micro_batch_s / 3)
    assert float(est["comm"]["DP"][0]) == pytest.approx(reduce + gather, rel=1e-9)
    assert float(est["exposed_dp_s"][0]) == pytest.approx(exposed_reduce + exposed_gather, rel=1e-9)
    # without interleaving the same traffic hides under one micro-batch only, except Megatron's last 40e6-parameter
    # bucket (max(40e6, 1e6 · dp) at dp 4); on 2 NICs it fits that window, so less than one chunk (psi / 20) stays out
    flat = training_estimate(model, cluster, workload, _columns(tp=4, pp=4, dp=4, v=1, zero=1, ga=32))
    flat_reduce_tail = over_dp("reduce_scatter", 40e6 * recipe.grad_bytes)
    flat_gather_tail = over_dp("all_gather", 40e6 * recipe.param_bytes)
    flat_mb_s = float(flat["compute_s"][0]) / 32
    exposed_flat = (reduce - min(reduce - flat_reduce_tail, flat_mb_s * 2 / 3)) + (
        gather - min(gather - flat_gather_tail, flat_mb_s / 3)
    )
    assert float(flat["exposed_dp_s"][0]) == pytest.approx(exposed_flat, rel=1e-9)


@pytest.mark.parametrize("name", ["Llama 3 405B, 8K, 8192 GPUs", "Llama 3 405B, 128K, 16384 GPUs"])
def test_llama3_all_gather_cp_is_exposed(name: str) -> None:
    """Llama 3 all-gathers K and V for context parallelism and says the all-gather sits exposed on the critical path
    (arXiv:2407.21783, §3.3.2): its runs hide none of their CP traffic, and every CP second of a layout counts."""
    run = next(r for r in all_published_runs() if r.name == name)
    workload = run.workload()
    assert workload.overlap("cp") == 0.0
    model, cluster = MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes)
    est = training_estimate(
        model, cluster, workload, _columns(tp=8, cp=16, pp=16, dp=run.gpus // 2048, v=4, zero=2, ga=16)
    )
    assert float(est["comm"]["CP"][0]) > 0
    assert float(est["exposed_cp_s"][0]) == pytest.approx(float(est["comm"]["CP"][0]), rel=1e-12)
