"""coursekit.serving: KV cache bytes, the serving ledger, prefill/decode lower bounds and the serving search.

Expected values are worked by hand from the models' published shapes (papers and model cards), from
NCCL's cost-model tables and from TensorRT-LLM's published measurements, never from the code under test.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace

import pytest

import coursekit
from coursekit import i18n
from coursekit.__main__ import main
from coursekit.planner import ModelSpec
from coursekit.presets import CLUSTERS, MEGATRON_TABLE1, MODELS
from coursekit.serving import (
    PUBLISHED_MEASUREMENTS,
    ServingWorkload,
    kv_cache_bytes,
    kv_heads_per_rank,
    littles_law_concurrency,
    plan_serving,
    serving_estimate,
    serving_memory_ledger,
    tp_all_reduce,
)
from coursekit.serving_cli import wants_serving

H100 = CLUSTERS["h100-8"]
A100 = CLUSTERS["a100-8"]
GIB = 2**30

# ----------------------------------------------------------------------------- KV bytes per token

# 2 (K and V) · layers · KV heads · head_dim · 2 bytes, from each model's paper / config.
KV_BYTES_PER_TOKEN = {
    "gpt2-small": 2 * 12 * 12 * 64 * 2,  # Radford et al. 2019: 12 layers, 12 heads of 64
    "gpt3-175b": 2 * 96 * 96 * 128 * 2,  # Brown et al. 2020, Table 2.1: 96 layers, 96 heads of 128
    "llama3-8b": 2 * 32 * 8 * 128 * 2,  # Llama 3 herd, Table 3: 32 layers, 8 KV heads, 4096/32 = 128
    "llama3-70b": 2 * 80 * 8 * 128 * 2,  # 80 layers, 8 KV heads, 8192/64 = 128
    "llama3-405b": 2 * 126 * 8 * 128 * 2,  # 126 layers, 8 KV heads, 16384/128 = 128
    "mixtral-8x7b": 2 * 32 * 8 * 128 * 2,  # Mixtral, Table 1: 32 layers, 8 KV heads, head_dim 128
}


@pytest.mark.parametrize(("name", "expected"), sorted(KV_BYTES_PER_TOKEN.items()))
def test_kv_bytes_per_token_of_the_presets(name: str, expected: int) -> None:
    assert kv_cache_bytes(MODELS[name], tokens=1) == expected


def test_kv_bytes_of_llama3_70b_is_the_issue_example() -> None:
    assert kv_cache_bytes(MODELS["llama3-70b"], tokens=1) == 327_680  # 320 KiB per token
    assert coursekit.kv_cache_bytes(MODELS["llama3-70b"], tokens=2048) == 2048 * 327_680


@pytest.mark.parametrize("run", MEGATRON_TABLE1, ids=lambda run: run.name)
def test_kv_bytes_of_the_megatron_models(run: object) -> None:
    # Multi-head attention: KV heads · head_dim = hidden, so a token is 2 · L · h · 2 bytes.
    assert kv_cache_bytes(MODELS[run.name], tokens=1) == 2 * run.layers * run.hidden * 2  # type: ignore[attr-defined]


LLAMA2_7B = ModelSpec("llama2-7b", layers=32, hidden=4096, heads=32, ffn_hidden=11008, vocab=32000, seq_len=4096)
MISTRAL_7B = ModelSpec(  # Jiang et al. 2023, arXiv:2310.06825, Table 1
    "mistral-7b", layers=32, hidden=4096, heads=32, kv_heads=8, ffn_hidden=14336, vocab=32000, seq_len=8192
)
FALCON_7B = ModelSpec(  # Falcon-7B config: 32 layers, d 4544, 71 heads of 64, multi-query (one KV head)
    "falcon-7b", layers=32, hidden=4544, heads=71, kv_heads=1, ffn_hidden=4 * 4544, vocab=65024, seq_len=2048
)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        (LLAMA2_7B, 2 * 32 * 32 * 128 * 2),  # MHA: 512 KiB per token
        (MISTRAL_7B, 2 * 32 * 8 * 128 * 2),  # GQA, 8 KV heads: 128 KiB
        (FALCON_7B, 2 * 32 * 1 * 64 * 2),  # MQA, one KV head of 64: 8 KiB
    ],
    ids=lambda v: getattr(v, "name", ""),
)
def test_kv_bytes_of_more_public_configurations(model: ModelSpec, expected: int) -> None:
    assert kv_cache_bytes(model, tokens=1) == expected
    assert kv_cache_bytes(model, tokens=1000, kv_bytes=1) == 1000 * expected // 2


def test_tp_splits_kv_heads_and_replicates_beyond_them() -> None:
    llama = MODELS["llama3-70b"]
    assert kv_cache_bytes(llama, tokens=1, tp=4) == 2 * 80 * 2 * 128 * 2  # 8 heads / 4 ranks
    assert kv_cache_bytes(llama, tokens=1, tp=8) == 2 * 80 * 1 * 128 * 2
    assert kv_cache_bytes(llama, tokens=1, tp=16) == 2 * 80 * 1 * 128 * 2  # replicated: still one head each
    assert kv_cache_bytes(FALCON_7B, tokens=1, tp=8) == kv_cache_bytes(FALCON_7B, tokens=1)  # MQA: every rank
    # 8 KV heads over 3 ranks can be neither split evenly nor copied whole (vLLM's QKVParallelLinear refuses it)
    with pytest.raises(ValueError, match=r"tp = 3: must divide kv_heads = 8 or be a multiple of it"):
        kv_heads_per_rank(8, 3)


def test_pp_splits_layers() -> None:
    llama = MODELS["llama3-70b"]
    assert kv_cache_bytes(llama, tokens=1, pp=4) == 2 * 20 * 8 * 128 * 2
    assert kv_cache_bytes(llama, tokens=1, pp=3) == 2 * 27 * 8 * 128 * 2  # ceil(80 / 3) on the first stages


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"tokens": -1}, "tokens"),
        ({"tokens": 1.5}, "tokens"),
        ({"tokens": 1, "tp": 0}, "tp"),
        ({"tokens": 1, "pp": 81}, "pp"),
        ({"tokens": 1, "kv_bytes": 0}, "kv_bytes"),
        ({"tokens": True}, "tokens"),
    ],
)
def test_kv_cache_bytes_refuses_bad_input(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises((TypeError, ValueError), match=name):
        kv_cache_bytes(MODELS["llama3-70b"], **kwargs)  # type: ignore[arg-type]


def test_kv_cache_bytes_refuses_a_model_name() -> None:
    with pytest.raises(TypeError, match="model"):
        kv_cache_bytes("llama3-70b", tokens=1)  # type: ignore[arg-type]


def test_estimates_refuse_preset_names() -> None:
    with pytest.raises(TypeError, match="cluster"):
        serving_estimate(MODELS["llama3-8b"], "h100-8", prompt_tokens=1, output_tokens=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="model"):
        serving_memory_ledger("llama3-8b", H100, concurrency=1, context_tokens=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="workload"):
        plan_serving(MODELS["llama3-8b"], H100, {"concurrency": 1})  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- the ledger


def test_serving_ledger_adds_up_by_hand() -> None:
    llama = MODELS["llama3-70b"]
    ledger = serving_memory_ledger(llama, H100, tp=8, concurrency=64, context_tokens=2304)
    assert ledger.weights_gib == pytest.approx(llama.num_params * 2 / 8 / GIB)
    assert ledger.kv_cache_gib == pytest.approx(64 * 2304 * (2 * 80 * 1 * 128 * 2) / GIB)
    assert ledger.reserve_gib == 2.0
    assert ledger.total_gib == pytest.approx(
        ledger.weights_gib + ledger.kv_cache_gib + ledger.workspace_gib + ledger.reserve_gib
    )
    assert ledger.fits and ledger.headroom_gib == pytest.approx(80 - ledger.total_gib)
    # The most requests that fit: the free memory over what one request adds (its KV cache and its logits).
    logits = 4 * llama.vocab / 8 / GIB
    free = 80 - ledger.weights_gib - (ledger.workspace_gib - 64 * logits) - ledger.reserve_gib
    most = int(free // (2304 * 2 * 80 * 128 * 2 / GIB + logits))
    assert ledger.max_concurrency == most
    # ... the same whatever concurrency the ledger was built for: the ledger of that many fits, one more does not.
    for concurrency in (1, most, most + 1, 5000):
        other = serving_memory_ledger(llama, H100, tp=8, concurrency=concurrency, context_tokens=2304)
        assert other.max_concurrency == most
        assert other.fits == (concurrency <= most)


def test_weights_that_do_not_fit_hold_no_request() -> None:
    ledger = serving_memory_ledger(MODELS["llama3-70b"], H100, tp=1, concurrency=1, context_tokens=2048)
    assert not ledger.fits and ledger.max_concurrency == 0
    assert "short" in ledger.verdict() or "差" in ledger.verdict()


@pytest.mark.parametrize("tp", [1, 2, 8])
def test_higher_concurrency_never_lowers_the_kv_cache(tp: int) -> None:
    kv = [
        serving_memory_ledger(MODELS["llama3-8b"], H100, tp=tp, concurrency=c, context_tokens=4096).kv_cache_gib
        for c in (0, 1, 2, 7, 64, 65, 500)
    ]
    assert kv == sorted(kv)
    results = [
        plan_serving(MODELS["llama3-8b"], H100, ServingWorkload(prompt_tokens=1024, output_tokens=256, concurrency=c))
        for c in (8, 64, 512)
    ]
    for low, high in itertools.pairwise(results):
        kv_low = {(c.tp, c.pp): c.ledger.kv_cache_gib for c in low.candidates if c.ledger is not None}
        kv_high = {(c.tp, c.pp): c.ledger.kv_cache_gib for c in high.candidates if c.ledger is not None}
        assert all(kv_high[key] >= kv_low[key] for key in kv_low)


# ----------------------------------------------------------------------------- TP's all-reduce


def test_small_all_reduce_uses_ll_and_costs_what_ncclss_table_says() -> None:
    # 16 tokens × 8192 × 2 bytes on 8 NVLink ranks. Ring/LL: 6.6 us + 2·7 hops · 0.6 us = 15.0 us, and the bytes
    # at LL's bus bandwidth min(450/4, 87.7) GB/s times n / (2(n-1)) = 8/14.
    choice = tp_all_reduce(16 * 8192 * 2, ranks=8, bandwidth_bytes_per_s=450e9)
    assert (choice.algorithm, choice.protocol) == ("ring", "LL")
    assert choice.latency_s == pytest.approx(15.0e-6)
    assert choice.transfer_s == pytest.approx(16 * 8192 * 2 / (87.7e9 * 8 / 14))


def test_large_all_reduce_uses_simple() -> None:
    # 256 MB: Simple's full bandwidth wins; its time is 8.4 + 14 · 3.4 us plus 2·7/8 · S / B.
    choice = tp_all_reduce(256e6, ranks=8, bandwidth_bytes_per_s=450e9)
    assert choice.protocol == "Simple"
    assert choice.time_s == pytest.approx((8.4 + 14 * 3.4) * 1e-6 + 256e6 / (450e9 * 8 / 14))


def test_one_rank_exchanges_nothing() -> None:
    assert tp_all_reduce(1e6, ranks=1, bandwidth_bytes_per_s=450e9).time_s == 0.0


# ----------------------------------------------------------------------------- prefill and decode


DENSE_PRESETS = ["gpt2-small", "llama3-8b", "llama3-70b", "gpt3-175b", "mixtral-8x7b"]


@pytest.mark.parametrize("name", DENSE_PRESETS)
@pytest.mark.parametrize("tp", [1, 2, 4, 8])
@pytest.mark.parametrize("pp", [1, 2])
@pytest.mark.parametrize("batch", [1, 32])
def test_decode_never_beats_weights_per_gpu_over_hbm_bandwidth(name: str, tp: int, pp: int, batch: int) -> None:
    model = MODELS[name]
    if model.heads % tp:  # gpt2-small's 12 heads at tp = 8: no rank gets whole heads, refused as the shape gate does
        with pytest.raises(ValueError, match=f"tp = {tp}: must divide heads = {model.heads}"):
            serving_estimate(model, H100, tp=tp, pp=pp, batch=batch, prompt_tokens=512, output_tokens=128)
        return
    for cluster in (H100, A100):
        est = serving_estimate(model, cluster, tp=tp, pp=pp, batch=batch, prompt_tokens=512, output_tokens=128)
        params = model.num_params
        if model.is_moe:
            # A step over g = ceil(batch / pp) tokens reads the experts they are routed to: uniform routing of g
            # tokens to top_k of E experts touches E · (1 - (1 - k/E)^g) distinct experts per layer on average.
            g = -(-batch // pp)
            e, k = model.num_experts, model.top_k
            unread = model.layers * (e - e * (1 - (1 - k / e) ** g)) * model.expert_params
            params -= unread
        floor = params * 2 / (tp * pp) / cluster.memory_bandwidth_bytes_per_s
        assert est.weights_floor_s == pytest.approx(floor)
        assert est.time_per_output_token_s >= est.weights_floor_s
        assert est.lower_bound


def test_mixtral_weights_floor_is_its_active_experts_at_batch_1() -> None:
    """Mixtral 8x7B (32 layers, h 4096, 32 heads, 8 KV heads of 128, SwiGLU experts 14336 wide, 8 experts top-2,
    vocab 32000 untied, RMSNorm; Jiang et al. 2024) on one H100 (3.35 TB/s), batch 1: one token reads 2 of the 8
    experts. Per layer: q, o 2 · 4096² + k, v 2 · 4096 · 1024 + router 4096 · 8 + two norms 2 · 4096 = 41,984,000;
    one expert 3 · 4096 · 14336 = 176,160,768. Read: 32 · (41,984,000 + 2 · 176,160,768) + embedding 32000 · 4096
    + output 32000 · 4096 + final norm 4096 = 12,879,925,248 parameters, 2 bytes each: 7.69 ms. All 46.7 B
    parameters would be 27.9 ms, more than the step itself."""
    mixtral = MODELS["mixtral-8x7b"]
    read = 32 * (41_984_000 + 2 * 176_160_768) + 32000 * 4096 + 32000 * 4096 + 4096
    assert read == 12_879_925_248
    est = serving_estimate(mixtral, H100, tp=1, batch=1, prompt_tokens=512, output_tokens=128)
    assert est.weights_floor_s == pytest.approx(read * 2 / 3.35e12)
    assert est.weights_floor_s * 1e3 == pytest.approx(7.69, abs=0.005)
    assert est.weights_floor_s <= est.time_per_output_token_s < mixtral.num_params * 2 / 3.35e12


def test_decode_is_memory_bound_and_prefill_compute_bound() -> None:
    est = serving_estimate(MODELS["llama3-70b"], H100, tp=8, batch=64, prompt_tokens=2048, output_tokens=256)
    assert est.decode_bound == "memory"
    assert est.prefill_compute_s > est.prefill_memory_s
    # Prefill FLOPs by hand: 2 · N_matmul · P + causal attention 2 · L · h · P², on 8 devices at peak.
    llama = MODELS["llama3-70b"]
    n_matmul = llama.num_params - llama.vocab * llama.hidden  # the input embedding is a lookup
    flops = 2 * n_matmul * 2048 + 2 * 80 * 8192 * 2048**2
    assert est.time_to_first_token_s >= flops / (8 * H100.peak_flops)
    assert est.time_to_first_token_s - est.prefill_comm_s == pytest.approx(flops / (8 * H100.peak_flops))


def test_tp_lowers_tpot_for_a_70b_model() -> None:
    tpot = [
        serving_estimate(
            MODELS["llama3-70b"], H100, tp=tp, prompt_tokens=2048, output_tokens=256
        ).time_per_output_token_s
        for tp in (1, 2, 4, 8)
    ]
    assert tpot == sorted(tpot, reverse=True)


def test_tp_stops_paying_when_all_reduce_latency_dominates() -> None:
    # GPT-2 small reads 0.25 GB of weights per token: 74 us on an H100. TP=2 could save at most half of that,
    # 37 us, but adds 2 · 12 = 24 all-reduces, each at least NCCL's 6.6 us base latency: 158 us. So TP hurts.
    gpt2 = MODELS["gpt2-small"]
    tp1 = serving_estimate(gpt2, H100, tp=1, prompt_tokens=512, output_tokens=128)
    tp2 = serving_estimate(gpt2, H100, tp=2, prompt_tokens=512, output_tokens=128)
    assert tp1.weights_floor_s / 2 < 24 * 6.6e-6
    assert tp2.time_per_output_token_s > tp1.time_per_output_token_s
    assert tp2.decode_comm_s > tp2.time_per_output_token_s - tp2.decode_comm_s  # communication dominates
    # For the 70B model, the memory part keeps halving while the communication part keeps growing.
    llama = [
        serving_estimate(MODELS["llama3-70b"], H100, tp=tp, prompt_tokens=2048, output_tokens=256) for tp in (2, 4, 8)
    ]
    memory = [e.time_per_output_token_s - e.decode_comm_s for e in llama]
    comm = [e.decode_comm_s for e in llama]
    assert memory == sorted(memory, reverse=True) and comm == sorted(comm)


def test_pp_does_not_lower_tpot() -> None:
    llama = MODELS["llama3-70b"]
    # PP splits the batch of 16 into two groups of 8 that take turns on the two stages; one token still passes
    # both stages, so its step is never faster than a group of 8 on the TP group alone (plus a hand-off).
    tp4_group = serving_estimate(llama, H100, tp=4, batch=8, prompt_tokens=2048, output_tokens=256)
    tp4_pp2 = serving_estimate(llama, H100, tp=4, pp=2, batch=16, prompt_tokens=2048, output_tokens=256)
    assert tp4_pp2.time_per_output_token_s > tp4_group.time_per_output_token_s
    assert tp4_pp2.weights_floor_s * 2 == pytest.approx(tp4_group.weights_floor_s)  # half the weights per GPU...
    assert tp4_pp2.time_per_output_token_s > tp4_group.weights_floor_s  # ...but a token still reads all of them


def test_bigger_batch_trades_latency_for_throughput() -> None:
    runs = [
        serving_estimate(MODELS["llama3-8b"], H100, batch=b, prompt_tokens=1024, output_tokens=256) for b in (1, 8, 64)
    ]
    assert [r.time_per_output_token_s for r in runs] == sorted(r.time_per_output_token_s for r in runs)
    assert [r.decode_tokens_per_s for r in runs] == sorted(r.decode_tokens_per_s for r in runs)


#: Each published measurement ÷ this lesson's bound, as stated by hand with its reason (lesson 10, section 9).
#: TTFT: real prefill kernels reach about 70 % of peak FLOP/s (softmax, norms and launch gaps are not matmuls), so
#: the measurement is about 1 / 0.70 = 1.43 times the compute-bound prefill. Throughput: decode reads the weights
#: and the KV cache at about 80 % of the 2.0 TB/s (and in-flight batching schedules around prefills), so about 0.80
#: of the bound.
STATED_RATIOS: dict[str, tuple[float, str]] = {
    "Llama-2-7B, 1×A100, TTFT, prompt 2048": (1 / 0.70, "prefill kernels at about 70 % of peak FLOP/s"),
    "Llama-2-70B, 4×A100 TP4, TTFT, prompt 2048": (1 / 0.70, "prefill kernels at about 70 % of peak FLOP/s"),
    "Llama-2-7B, 1×A100, batch 60, 128 in / 2048 out": (
        0.80,
        "decode reads weights and KV cache at about 80 % of HBM bandwidth; in-flight batching schedules prefills",
    ),
}


@pytest.mark.parametrize("measurement", PUBLISHED_MEASUREMENTS, ids=lambda m: m.label)
def test_against_published_tensorrt_llm_measurements(measurement: object) -> None:
    """TensorRT-LLM's published A100 FP16 figures (docs/source/performance.md) against the lower bounds, each ratio
    within ±10 % of its stated value (:data:`STATED_RATIOS`). A lower bound on time must never exceed a measurement,
    and an upper bound on throughput never fall below one."""
    m = measurement
    est = serving_estimate(
        m.model,  # type: ignore[attr-defined]
        CLUSTERS[m.gpu],  # type: ignore[attr-defined]
        tp=m.tp,  # type: ignore[attr-defined]
        batch=m.batch,  # type: ignore[attr-defined]
        prompt_tokens=m.prompt_tokens,  # type: ignore[attr-defined]
        output_tokens=m.output_tokens,  # type: ignore[attr-defined]
    )
    stated, reason = STATED_RATIOS[m.label]  # type: ignore[attr-defined]
    if m.metric == "ttft_s":  # type: ignore[attr-defined]
        ratio = m.value / est.time_to_first_token_s  # type: ignore[attr-defined]
        assert ratio >= 1.0
    else:
        ratio = m.value / est.tokens_per_s  # type: ignore[attr-defined]
        assert ratio <= 1.0
    assert ratio == pytest.approx(stated, rel=0.10), f"{m.label}: {ratio:.2f}, stated {stated:.2f} ({reason})"  # type: ignore[attr-defined]


def test_every_published_measurement_has_a_stated_ratio() -> None:
    assert set(STATED_RATIOS) == {m.label for m in PUBLISHED_MEASUREMENTS}


def test_littles_law() -> None:
    assert littles_law_concurrency(10.0, 3.2) == pytest.approx(32.0)
    with pytest.raises(ValueError, match="request_rate_per_s"):
        littles_law_concurrency(-1.0, 1.0)


# ----------------------------------------------------------------------------- the search


def _workload(**kwargs: object) -> ServingWorkload:
    base: dict[str, object] = {"prompt_tokens": 2048, "output_tokens": 256, "concurrency": 64}
    base.update(kwargs)
    return ServingWorkload(**base)  # type: ignore[arg-type]


def test_the_issue_example_has_accepted_layouts() -> None:
    result = plan_serving(MODELS["llama3-70b"], H100, _workload(ttft_slo_s=0.5, tpot_slo_s=0.05))
    assert result.accepted
    assert all(c.tp * c.pp * c.replicas == 8 for c in result.candidates)
    tp1 = result.candidate(tp=1)
    assert not tp1.accepted and tp1.reasons[0].code == "memory"  # 141 GB of weights on an 80 GB device


@pytest.mark.parametrize("name", ["llama3-8b", "llama3-70b", "mixtral-8x7b"])
@pytest.mark.parametrize("concurrency", [16, 256, 4096])
def test_more_memory_never_removes_an_accepted_layout(name: str, concurrency: int) -> None:
    workload = _workload(concurrency=concurrency, tpot_slo_s=0.05)
    small = plan_serving(MODELS[name], H100, workload)
    big = plan_serving(MODELS[name], replace(H100, memory_per_device_gib=141.0), workload)
    accepted_small = {(c.tp, c.pp) for c in small.accepted}
    accepted_big = {(c.tp, c.pp) for c in big.accepted}
    assert accepted_small <= accepted_big


def test_interconnect_gate_keeps_tp_inside_a_node() -> None:
    result = plan_serving(MODELS["llama3-70b"], H100.with_nodes(2), _workload())
    tp16 = result.candidate(tp=16)
    assert "interconnect" in {r.code for r in tp16.reasons}


def test_replicas_are_not_dp_each_needs_requests() -> None:
    result = plan_serving(MODELS["llama3-8b"], H100, _workload(concurrency=4))
    tp1 = result.candidate(tp=1)  # 8 replicas for 4 requests
    assert [r.code for r in tp1.reasons] == ["replica"]
    assert result.candidate(tp=2).accepted  # 4 replicas, one request each


def test_slo_gate_uses_the_estimates() -> None:
    result = plan_serving(MODELS["llama3-70b"], H100, _workload(ttft_slo_s=0.08))
    for c in result.candidates:
        if c.estimate is not None and c.ledger is not None and c.ledger.fits:
            assert ("ttft" in {r.code for r in c.reasons}) == (c.estimate.time_to_first_token_s > 0.08)


def test_request_rate_settles_by_littles_law() -> None:
    result = plan_serving(MODELS["llama3-70b"], H100.with_nodes(2), _workload(concurrency=None, request_rate_per_s=8.0))
    assert result.accepted
    for c in result.accepted:
        assert c.estimate is not None
        latency = c.estimate.time_to_first_token_s + 256 * c.estimate.time_per_output_token_s
        assert c.concurrency_per_replica >= math.ceil(8.0 / c.replicas * latency)


def test_impossible_rate_is_a_reason_not_a_crash() -> None:
    result = plan_serving(MODELS["llama3-70b"], H100, _workload(concurrency=None, request_rate_per_s=1e4))
    assert not result.accepted
    assert any(r.code == "rate" for c in result.candidates for r in c.reasons)


def test_impossible_concurrency_names_the_smallest_shortfall() -> None:
    result = plan_serving(MODELS["llama3-70b"], H100, _workload(concurrency=100_000))
    assert not result.accepted
    misfit = result.closest_misfit
    assert misfit is not None and misfit.ledger is not None
    shortfalls = [-c.ledger.headroom_gib for c in result.candidates if c.ledger is not None]
    assert -misfit.ledger.headroom_gib == min(shortfalls)
    payload = result.to_dict()
    assert payload["no_fit"]["shortfall_gib"] == pytest.approx(min(shortfalls))
    assert "No layout fits" in result.report() or "没有布局放得下" in result.report()


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"prompt_tokens": 0}, "prompt_tokens"),
        ({"prompt_tokens": -5}, "prompt_tokens"),
        ({"output_tokens": 0}, "output_tokens"),
        ({"concurrency": 0}, "concurrency"),
        ({"concurrency": -3}, "concurrency"),
        ({"concurrency": None}, "concurrency"),
        ({"request_rate_per_s": 2.0}, "request_rate_per_s"),
        ({"ttft_slo_s": 0.0}, "ttft_slo_s"),
        ({"tpot_slo_s": float("nan")}, "tpot_slo_s"),
        ({"concurrency": True}, "concurrency"),
    ],
)
def test_bad_workloads_name_the_parameter(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises((TypeError, ValueError), match=name):
        _workload(**kwargs)


def test_reasons_speak_chinese() -> None:
    previous = i18n.get_language()
    try:
        i18n.set_language("zh")
        result = plan_serving(MODELS["llama3-70b"], H100, _workload())
        assert "差" in result.candidate(tp=1).reasons[0].message
        assert "漏斗" in result.report()
    finally:
        i18n.set_language(previous)


# ----------------------------------------------------------------------------- the command line

ISSUE_ARGS = [
    "plan",
    "--mode",
    "serving",
    "--model",
    "llama3-70b",
    "--cluster",
    "h100-8",
    "--nodes",
    "1",
    "--concurrency",
    "64",
    "--prompt-tokens",
    "2048",
    "--output-tokens",
    "256",
    "--ttft-ms",
    "500",
    "--tpot-ms",
    "50",
]


def test_cli_json_top_candidates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ISSUE_ARGS, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["mode"] == "serving" and payload["top"]
    for candidate in payload["top"]:
        assert isinstance(candidate["accepted"], bool)
        assert set(candidate["degrees"]) == {"tp", "pp", "replicas"}
        for key in ("time_to_first_token_s", "time_per_output_token_s", "tokens_per_s"):
            assert candidate["estimate"][key] > 0
        assert candidate["estimate"]["lower_bound"] is True
    assert payload["top"][0]["accepted"]


def test_cli_text_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    previous = i18n.get_language()
    try:
        assert main([*ISSUE_ARGS, "--lang", "zh"]) == 0
    finally:
        i18n.set_language(previous)
    out = capsys.readouterr().out
    assert "漏斗" in out and "每 rank 显存" in out


@pytest.mark.parametrize(
    ("extra", "name"),
    [
        (["--model", "llama3-7b"], "--model"),
        (["--prompt-tokens", "0"], "--prompt-tokens"),
        (["--output-tokens", "-1"], "--output-tokens"),
        (["--concurrency", "0"], "--concurrency"),
        (["--ttft-ms", "abc"], "--ttft-ms"),
    ],
)
def test_cli_bad_arguments_exit_2_naming_the_argument(
    extra: list[str], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = list(ISSUE_ARGS)
    flag = extra[0]
    args[args.index(flag) + 1] = extra[1]
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert name in err and "Traceback" not in err


def test_cli_needs_a_load(capsys: pytest.CaptureFixture[str]) -> None:
    args = [a for a in ISSUE_ARGS if a not in ("--concurrency", "64")]
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert "--concurrency" in capsys.readouterr().err


def test_training_commands_keep_their_parser() -> None:
    assert wants_serving(ISSUE_ARGS)
    assert wants_serving(["plan", "--mode=serving"])
    assert not wants_serving(["plan", "--mode", "training", "--model", "llama3-8b"])
    assert not wants_serving(["other", "--mode", "serving"])
