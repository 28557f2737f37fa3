"""Tests for coursekit.communication (Q2): seed ledger, collectives, per-strategy traffic."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import coursekit
from coursekit.communication import (
    BUS_BANDWIDTH_KINDS,
    COLLECTIVES,
    STRATEGIES,
    TrafficEntry,
    bus_bandwidth_factor,
    collective_cost,
    collective_time_s,
    communication_ledger,
    cp_traffic,
    crossover_payload_mib,
    dp_traffic,
    ep_traffic,
    pp_traffic,
    replica_traffic,
    strategy_traffic,
    tp_traffic,
    traffic_time,
    zero_traffic,
)
from coursekit.i18n import Text, catalog, placeholders

NAN = float("nan")

# ---------------------------------------------------------------------------
# communication_ledger: the seed's Q2 check
# ---------------------------------------------------------------------------


def test_seed_assertion() -> None:
    # The inline assertion of seed 000 (Q2小验证), through coursekit.
    low_frequency = communication_ledger(256, 1, 100, 5)
    high_frequency = communication_ledger(32, 24, 100, 5)
    assert high_frequency.calls_per_step > low_frequency.calls_per_step


def test_seed_values_by_hand() -> None:
    # 256 MiB = 0.25 GiB at 100 GiB/s = 2.5 ms, plus 5 us = 0.005 ms.
    low = communication_ledger(256, 1, 100, 5)
    assert (low.payload_per_call_mib, low.calls_per_step, low.total_payload_mib) == (256, 1, 256)
    assert (low.transfer_ms, low.latency_ms, low.lower_bound_ms) == (2.5, 0.005, 2.505)
    # 32 MiB = 1/32 GiB at 100 GiB/s = 0.3125 ms per call; 24 calls = 7.5 ms, latency 24 x 0.005 = 0.12 ms.
    high = communication_ledger(32, 24, 100, 5)
    assert high.total_payload_mib == 768
    assert (high.transfer_ms, high.latency_ms, high.lower_bound_ms) == (7.5, 0.12, 7.62)
    assert low.dominant_term == high.dominant_term == "bandwidth"


def test_dominant_term() -> None:
    # 1 KiB at 100 GiB/s is ~0.01 us per call, far below 5 us of latency.
    assert communication_ledger(1 / 1024, 10, 100, 5).dominant_term == "latency"
    assert communication_ledger(256, 0, 100, 5).dominant_term == "none"
    assert communication_ledger(256, 0, 100, 5).lower_bound_ms == 0


@pytest.mark.parametrize(
    ("args", "exc", "message"),
    [
        ((-1, 1, 100, 5), ValueError, "payload_mib = -1: must be >= 0."),
        ((256, -1, 100, 5), ValueError, "calls_per_step = -1: must be >= 0."),
        ((256, 1.5, 100, 5), TypeError, "calls_per_step = 1.5: must be an integer (int), not float."),
        ((256, True, 100, 5), TypeError, "calls_per_step = True: must be an integer (int), not bool."),
        ((256, 1, 0, 5), ValueError, "bandwidth_gib_s = 0: must be > 0."),
        ((256, 1, 100, -5), ValueError, "latency_us = -5: must be >= 0."),
        ((NAN, 1, 100, 5), ValueError, "payload_mib = nan: must be a finite number (not NaN or infinity)."),
        ((256, 1, "100", 5), TypeError, "bandwidth_gib_s = '100': must be a real number (int or float), not str."),
    ],
)
def test_ledger_rejects(args: tuple[Any, ...], exc: type[Exception], message: str) -> None:
    with pytest.raises(exc) as info:
        communication_ledger(*args)
    assert str(info.value) == message


def test_ledger_messages_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        communication_ledger(256, 1, 0, 5)
    assert str(info.value) == "bandwidth_gib_s = 0：必须 > 0。"
    assert communication_ledger(1 / 1024, 10, 100, 5).explain() == (
        "10 次调用：时延 0.05 ms + 传输 < 0.001 ms = 0.05 ms，时延主导 (latency-bound)：减少调用次数比加带宽更有效。"
    )


def test_ledger_sentence_never_calls_a_nonzero_term_zero() -> None:
    """10 calls of 1 KiB at 100 GiB/s move 10 * 2**10 / (100 * 2**30) s = 9.5e-8 s = 0.000095 ms: below the ledger's
    3 decimals, but not nothing (a learner read '传输 0.0 ms' as 'no transfer'). A term that is truly zero stays 0.0."""
    sentence = communication_ledger(1 / 1024, 10, 100, 5).explain()
    assert "transfer < 0.001 ms" in sentence and "latency 0.05 ms" in sentence
    assert (
        communication_ledger(1 / 1024, 10, 100, 0).explain().startswith("10 calls: latency 0.0 ms + transfer < 0.001")
    )
    assert "transfer 0.0 ms" in communication_ledger(0, 10, 100, 5).explain()


def test_ledger_explain_english() -> None:
    assert communication_ledger(256, 0, 100, 5).explain() == (
        "0 calls: no communication in this step, lower bound 0.0 ms."
    )


mib = st.floats(min_value=0, max_value=1e6, allow_nan=False)


@given(mib, st.integers(0, 10_000), st.floats(min_value=0.01, max_value=1e4), st.floats(min_value=0, max_value=1e4))
def test_ledger_total_is_sum_of_parts(payload: float, calls: int, bandwidth: float, latency: float) -> None:
    ledger = communication_ledger(payload, calls, bandwidth, latency)
    assert ledger.total_payload_mib == pytest.approx(payload * calls)
    # each of the three is rounded to 3 decimals, so they agree to within 1.5e-3 ms
    assert abs(ledger.lower_bound_ms - ledger.transfer_ms - ledger.latency_ms) <= 1.5e-3 + 1e-12 * ledger.lower_bound_ms
    assert abs(ledger.latency_ms - calls * latency / 1000) <= 5e-4 + 1e-12 * calls * latency


# ---------------------------------------------------------------------------
# bus_bandwidth_factor: nccl-tests doc/PERFORMANCE.md
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "factors"),
    [
        # NVIDIA/nccl-tests doc/PERFORMANCE.md "Summary", evaluated by hand for n = 2, 4, 8.
        ("all_reduce", (1.0, 1.5, 1.75)),  # 2(n-1)/n
        ("reduce_scatter", (0.5, 0.75, 0.875)),  # (n-1)/n
        ("all_gather", (0.5, 0.75, 0.875)),  # (n-1)/n
        ("all_to_all", (0.5, 0.75, 0.875)),  # (n-1)/n, src/alltoall.cu AlltoAllGetBw
        ("broadcast", (1.0, 1.0, 1.0)),
        ("reduce", (1.0, 1.0, 1.0)),
        ("send_recv", (1.0, 1.0, 1.0)),  # src/sendrecv.cu SendRecvGetBw: factor = 1
    ],
)
def test_nccl_tests_bus_bandwidth_factors(kind: str, factors: tuple[float, float, float]) -> None:
    assert tuple(bus_bandwidth_factor(kind, n) for n in (2, 4, 8)) == factors


def test_collectives_list() -> None:
    assert COLLECTIVES == ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv")
    assert set(COLLECTIVES) < set(BUS_BANDWIDTH_KINDS)


@pytest.mark.parametrize(
    ("args", "exc", "message"),
    [
        (
            ("allreduce", 8),
            ValueError,
            "kind = 'allreduce': must be one of 'all_reduce', 'all_gather', 'reduce_scatter', 'all_to_all', "
            "'broadcast', 'send_recv', 'reduce'.",
        ),
        (("all_reduce", 0), ValueError, "ranks = 0: must be >= 1."),
        (("all_reduce", 8.0), TypeError, "ranks = 8.0: must be an integer (int), not float."),
        ((None, 8), TypeError, "kind = None: must be a string, not NoneType."),
    ],
)
def test_bus_factor_rejects(args: tuple[Any, ...], exc: type[Exception], message: str) -> None:
    with pytest.raises(exc) as info:
        bus_bandwidth_factor(*args)
    assert str(info.value) == message


# ---------------------------------------------------------------------------
# collective_cost / collective_time_s: ring alpha-beta model
# ---------------------------------------------------------------------------

GB = 1e9
LINK = {"bandwidth_bytes_per_s": 100 * GB, "latency_s": 5e-6}


@pytest.mark.parametrize(
    ("kind", "ranks", "steps", "transfer_s"),
    [
        # Hand-checked: S = 1 GB over 100 GB/s per link, alpha = 5 us.
        ("all_reduce", 8, 14, 0.0175),  # 2(n-1) steps, 2(n-1)/n x 10 ms
        ("all_gather", 8, 7, 0.00875),  # (n-1) steps, (n-1)/n x 10 ms
        ("reduce_scatter", 8, 7, 0.00875),
        ("all_to_all", 8, 7, 0.00875),
        ("broadcast", 8, 7, 0.01),  # pipelined ring: S/B
        ("reduce", 8, 7, 0.01),
        ("send_recv", 2, 1, 0.01),  # one message: alpha + S/B
        ("all_reduce", 2, 2, 0.01),
    ],
)
def test_alpha_beta_by_hand(kind: str, ranks: int, steps: int, transfer_s: float) -> None:
    cost = collective_cost(kind, payload_bytes=1 * GB, ranks=ranks, **LINK)
    assert cost.steps == steps
    assert cost.latency_s == pytest.approx(steps * 5e-6)
    assert cost.transfer_s == pytest.approx(transfer_s)
    assert cost.total_s == pytest.approx(steps * 5e-6 + transfer_s)
    assert collective_time_s(kind, payload_bytes=1 * GB, ranks=ranks, **LINK) == cost.total_s
    assert cost.dominant_term == "bandwidth"


def test_small_messages_are_latency_bound() -> None:
    # 8 KB all-reduce over 8 ranks: 14 x 5 us = 70 us of latency vs 1.75 x 8e3 / 1e11 = 0.14 us of transfer.
    cost = collective_cost("all_reduce", payload_bytes=8e3, ranks=8, **LINK)
    assert cost.dominant_term == "latency"
    assert cost.transfer_s == pytest.approx(1.4e-7)


@pytest.mark.parametrize("kind", BUS_BANDWIDTH_KINDS)
def test_one_rank_sends_nothing(kind: str) -> None:
    cost = collective_cost(kind, payload_bytes=1 * GB, ranks=1, **LINK)
    assert (cost.steps, cost.latency_s, cost.transfer_s, cost.total_s) == (0, 0.0, 0.0, 0.0)
    assert cost.dominant_term == "none"


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        ({"payload_bytes": -1}, ValueError, "payload_bytes = -1: must be >= 0."),
        ({"ranks": 0}, ValueError, "ranks = 0: must be >= 1."),
        ({"bandwidth_bytes_per_s": 0}, ValueError, "bandwidth_bytes_per_s = 0: must be > 0."),
        ({"latency_s": -1e-6}, ValueError, "latency_s = -1e-06: must be >= 0."),
        (
            {"latency_s": math.inf},
            ValueError,
            "latency_s = inf: must be a finite number (not NaN or infinity).",
        ),
        ({"payload_bytes": False}, TypeError, "payload_bytes = False: must be a real number (int or float), not bool."),
    ],
)
def test_collective_rejects(kwargs: dict[str, Any], exc: type[Exception], message: str) -> None:
    call = {"payload_bytes": 1e9, "ranks": 8, **LINK, **kwargs}
    with pytest.raises(exc) as info:
        collective_time_s("all_reduce", **call)
    assert str(info.value) == message


kinds = st.sampled_from(BUS_BANDWIDTH_KINDS)
payloads = st.floats(min_value=0, max_value=1e12, allow_nan=False)
rank_counts = st.integers(min_value=1, max_value=4096)
bandwidths = st.floats(min_value=1e6, max_value=1e13)
alphas = st.floats(min_value=0, max_value=1e-3)


@given(kinds, payloads, payloads, rank_counts, bandwidths, alphas)
def test_time_monotone_in_payload(kind: str, s1: float, s2: float, n: int, bw: float, alpha: float) -> None:
    small, large = sorted((s1, s2))
    t_small = collective_time_s(kind, payload_bytes=small, ranks=n, bandwidth_bytes_per_s=bw, latency_s=alpha)
    t_large = collective_time_s(kind, payload_bytes=large, ranks=n, bandwidth_bytes_per_s=bw, latency_s=alpha)
    assert t_small <= t_large


@given(kinds, payloads, rank_counts, rank_counts, bandwidths, alphas)
def test_time_monotone_in_ranks(kind: str, s: float, n1: int, n2: int, bw: float, alpha: float) -> None:
    few, many = sorted((n1, n2))
    t_few = collective_time_s(kind, payload_bytes=s, ranks=few, bandwidth_bytes_per_s=bw, latency_s=alpha)
    t_many = collective_time_s(kind, payload_bytes=s, ranks=many, bandwidth_bytes_per_s=bw, latency_s=alpha)
    assert t_few <= t_many * (1 + 1e-12)


@given(kinds, payloads, st.integers(min_value=2, max_value=4096), bandwidths, alphas)
def test_time_is_latency_plus_bus_bytes(kind: str, s: float, n: int, bw: float, alpha: float) -> None:
    cost = collective_cost(kind, payload_bytes=s, ranks=n, bandwidth_bytes_per_s=bw, latency_s=alpha)
    assert cost.total_s == cost.latency_s + cost.transfer_s
    assert cost.transfer_s == pytest.approx(s * bus_bandwidth_factor(kind, n) / bw)
    assert cost.latency_s == pytest.approx(cost.steps * alpha)


# ---------------------------------------------------------------------------
# Traffic per strategy
# ---------------------------------------------------------------------------


def _calls(entries: tuple[TrafficEntry, ...], collective: str | None = None) -> int:
    return sum(e.calls_per_step for e in entries if collective is None or e.collective == collective)


def _bus_bytes(entries: tuple[TrafficEntry, ...]) -> float:
    return traffic_time(entries, bandwidth_bytes_per_s=1.0, latency_s=0).bus_bytes


def test_dp_one_all_reduce_of_the_gradients() -> None:
    (entry,) = dp_traffic(num_params=1e9, dp=8)
    assert (entry.collective, entry.payload_bytes, entry.calls_per_step, entry.group, entry.ranks) == (
        "all_reduce",
        2e9,
        1,
        "dp",
        8,
    )
    assert isinstance(entry.description, Text)
    assert "1910.02054" in entry.source


def test_dp_buckets_keep_the_volume() -> None:
    # 2e9 bytes of bf16 gradients in 25 MiB buckets: ceil(2e9 / 26214400) = 77 all-reduces.
    (entry,) = dp_traffic(num_params=1e9, dp=8, bucket_bytes=25 * 2**20)
    assert entry.calls_per_step == 77
    assert entry.total_payload_bytes == pytest.approx(2e9)


@pytest.mark.parametrize(
    ("stage", "ratio"),
    [
        (0, 1.0),
        (1, 1.0),  # ZeRO §7.2.1: P_os, reduce-scatter + all-gather = 2Ψ, same as DP
        (2, 1.0),  # ZeRO §7.2.1: P_os+g, same 2Ψ
        (3, 1.5),  # ZeRO §7.2.2: P_os+g+p, 3Ψ = 1.5x DP
    ],
)
def test_zero_communication_volume(stage: int, ratio: float) -> None:
    dp = _bus_bytes(dp_traffic(num_params=7.5e9, dp=64))
    zero = _bus_bytes(zero_traffic(num_params=7.5e9, dp=64, stage=stage, units=48))
    assert zero / dp == pytest.approx(ratio)


def test_zero_3_collectives() -> None:
    entries = zero_traffic(num_params=1e9, dp=8, stage=3, units=32)
    assert [e.collective for e in entries] == ["all_gather", "all_gather", "reduce_scatter"]
    assert all(e.calls_per_step == 32 and e.payload_bytes == pytest.approx(2e9 / 32) for e in entries)
    stage_2 = zero_traffic(num_params=1e9, dp=8, stage=2)
    assert [e.collective for e in stage_2] == ["reduce_scatter", "all_gather"]


@given(st.floats(min_value=1e6, max_value=1e12), st.integers(2, 1024), st.integers(1, 128))
def test_zero_3_is_one_and_a_half_dp(psi: float, dp: int, units: int) -> None:
    base = _bus_bytes(dp_traffic(num_params=psi, dp=dp))
    assert _bus_bytes(zero_traffic(num_params=psi, dp=dp, stage=3, units=units)) == pytest.approx(1.5 * base)


TP_DIMS = {"seq_len": 2048, "micro_batch": 1, "hidden": 12288, "layers": 12, "tp": 8, "micro_batches": 4}


def test_tp_four_all_reduces_per_layer() -> None:
    # Megatron-LM arXiv:1909.08053 §3: 2 all-reduces in forward and 2 in backward per transformer layer,
    # each of the b x s x h activation.
    entries = tp_traffic(**TP_DIMS)
    assert _calls(entries, "all_reduce") == 4 * 12 * 4
    assert all(e.payload_bytes == 2048 * 12288 * 2 and e.group == "tp" and e.ranks == 8 for e in entries)


def test_tp_sequence_parallel_same_volume() -> None:
    # Korthikanti arXiv:2205.05198 §4.2.2: each all-reduce becomes reduce-scatter + all-gather, same bandwidth.
    plain = tp_traffic(**TP_DIMS)
    sp = tp_traffic(**TP_DIMS, sequence_parallel=True)
    assert _calls(sp, "all_gather") == _calls(sp, "reduce_scatter") == 4 * 12 * 4
    assert _calls(sp, "all_reduce") == 0
    assert _bus_bytes(sp) == pytest.approx(_bus_bytes(plain))


def test_tp_full_recompute_matches_zero_section_8() -> None:
    # ZeRO arXiv:1910.02054 §8: with activation checkpointing Megatron does 2 all-reduces in forward,
    # 2 in the forward recomputation and 2 in backward per block: 12 x seq x hidden of volume
    # (an all-reduce moves twice its message). Our bus bytes carry the ring's (n-1)/n on top.
    dims = {**TP_DIMS, "micro_batches": 1, "layers": 1}
    entries = tp_traffic(**dims, recompute="full")
    assert _calls(entries, "all_reduce") == 6
    volume = _bus_bytes(entries) / (7 / 8)
    assert volume == pytest.approx(12 * 2048 * 12288 * 2)
    assert _calls(tp_traffic(**dims, recompute="selective")) == 4


def test_pp_per_boundary() -> None:
    entries = pp_traffic(seq_len=2048, micro_batch=2, hidden=4096, pp=4, micro_batches=8)
    assert [e.collective for e in entries] == ["send_recv", "send_recv"]
    assert all(e.payload_bytes == 2 * 2048 * 4096 * 2 and e.ranks == 2 for e in entries)
    # m forward + m backward per boundary, p - 1 boundaries: 2 m (p - 1) transfers in the pipeline
    assert _calls(entries) * (4 - 1) == 2 * 8 * 3


def test_cp_ring_attention() -> None:
    # each of cp - 1 ring steps per layer passes K and V of s/cp tokens: 2 b (s/cp) h_kv bytes
    entries = cp_traffic(seq_len=8192, micro_batch=1, kv_hidden=1024, layers=32, cp=4)
    forward, backward = entries
    assert forward.payload_bytes == 2 * 1 * (8192 // 4) * 1024 * 2
    assert backward.payload_bytes == 2 * forward.payload_bytes  # K, V and dK, dV
    assert forward.calls_per_step == backward.calls_per_step == (4 - 1) * 32
    assert "2310.01889" in forward.source


def test_ep_four_all_to_alls_per_moe_layer() -> None:
    # GShard arXiv:2006.16668: dispatch + combine per MoE layer forward, and their gradients backward.
    entries = ep_traffic(seq_len=4096, micro_batch=1, hidden=4096, moe_layers=16, ep=8, top_k=2, micro_batches=2)
    assert _calls(entries, "all_to_all") == 4 * 16 * 2
    assert all(e.payload_bytes == 4096 * 4096 * 2 * 2 and e.ranks == 8 for e in entries)


@pytest.mark.parametrize(
    ("strategy", "params"),
    [
        ("dp", {"num_params": 1e9, "dp": 1}),
        ("zero", {"num_params": 1e9, "dp": 1, "stage": 3}),
        ("tp", {"seq_len": 2048, "micro_batch": 1, "hidden": 4096, "layers": 4, "tp": 1}),
        ("pp", {"seq_len": 2048, "micro_batch": 1, "hidden": 4096, "pp": 1, "micro_batches": 8}),
        ("cp", {"seq_len": 2048, "micro_batch": 1, "kv_hidden": 1024, "layers": 4, "cp": 1}),
        ("ep", {"seq_len": 2048, "micro_batch": 1, "hidden": 4096, "moe_layers": 4, "ep": 1, "top_k": 2}),
        ("replica", {"replicas": 8}),
    ],
)
def test_degree_one_and_replicas_send_nothing(strategy: str, params: dict[str, Any]) -> None:
    assert strategy_traffic(strategy, **params) == ()


def test_replicas_exchange_no_model_tensors() -> None:
    assert replica_traffic(replicas=16) == ()
    assert traffic_time(replica_traffic(replicas=16), **{"bandwidth_bytes_per_s": 1e9, "latency_s": 1e-6}).total_s == 0


def test_strategy_traffic_dispatches() -> None:
    assert STRATEGIES == ("dp", "zero", "tp", "pp", "cp", "ep", "replica")
    assert strategy_traffic("tp", **TP_DIMS) == tp_traffic(**TP_DIMS)


@pytest.mark.parametrize(
    ("call", "exc", "message"),
    [
        (
            lambda: strategy_traffic("fsdp"),
            ValueError,
            "strategy = 'fsdp': must be one of 'dp', 'zero', 'tp', 'pp', 'cp', 'ep', 'replica'.",
        ),
        (lambda: dp_traffic(num_params=1e9, dp=0), ValueError, "dp = 0: must be >= 1."),
        (lambda: dp_traffic(num_params=1e9, dp=8, bucket_bytes=0), ValueError, "bucket_bytes = 0: must be > 0."),
        (lambda: zero_traffic(num_params=1e9, dp=8, stage=4), ValueError, "stage = 4: must be <= 3."),
        (lambda: zero_traffic(num_params=1e9, dp=8, stage=3, units=0), ValueError, "units = 0: must be >= 1."),
        (
            lambda: tp_traffic(**TP_DIMS, recompute="some"),
            ValueError,
            "recompute = 'some': must be one of 'none', 'selective', 'full'.",
        ),
        (
            lambda: tp_traffic(**TP_DIMS, sequence_parallel="yes"),
            TypeError,
            "sequence_parallel = 'yes': must be True or False, not str.",
        ),
        (
            lambda: cp_traffic(seq_len=1000, micro_batch=1, kv_hidden=1024, layers=1, cp=3),
            ValueError,
            "cp = 3: must divide seq_len = 1000.",
        ),
        (
            lambda: ep_traffic(seq_len=8, micro_batch=1, hidden=8, moe_layers=1, ep=2, top_k=0),
            ValueError,
            "top_k = 0: must be >= 1.",
        ),
        (
            lambda: pp_traffic(seq_len=8, micro_batch=1, hidden=8, pp=2, micro_batches=0),
            ValueError,
            "micro_batches = 0: must be >= 1.",
        ),
        (lambda: replica_traffic(replicas=0), ValueError, "replicas = 0: must be >= 1."),
        (
            lambda: traffic_time([("all_reduce", 1e9)], bandwidth_bytes_per_s=1e9, latency_s=0),  # type: ignore[list-item]
            TypeError,
            "entries[0] = ('all_reduce', 1000000000.0): must be a TrafficEntry, not tuple.",
        ),
        (
            lambda: TrafficEntry("allreduce", 1.0, 1, "dp", 2, Text(zh="x", en="x"), "test"),
            ValueError,
            "collective = 'allreduce': must be one of 'all_reduce', 'all_gather', 'reduce_scatter', 'all_to_all', "
            "'broadcast', 'send_recv', 'reduce'.",
        ),
        (
            lambda: TrafficEntry("all_reduce", 1.0, 1, "world", 2, Text(zh="x", en="x"), "test"),
            ValueError,
            "group = 'world': must be one of 'dp', 'tp', 'pp', 'cp', 'ep'.",
        ),
    ],
)
def test_traffic_rejects(call: Any, exc: type[Exception], message: str) -> None:
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_traffic_message_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(TypeError) as info:
        traffic_time([3], bandwidth_bytes_per_s=1e9, latency_s=0)  # type: ignore[list-item]
    assert str(info.value) == "entries[0] = 3：必须是 TrafficEntry，而不是 int。"
    (entry,) = dp_traffic(num_params=1e9, dp=8)
    assert str(entry.description) == "反向结束后对梯度做全归约（按桶切分时每桶一次）"


def test_traffic_time_by_hand() -> None:
    # TP = 8, one layer, one micro-batch: 4 all-reduces of 2048 x 12288 x 2 B = 50,331,648 B each.
    # Per call: 14 x 5 us latency + 1.75 x 50,331,648 / 100e9 s transfer.
    dims = {**TP_DIMS, "layers": 1, "micro_batches": 1}
    result = traffic_time(tp_traffic(**dims), **LINK)
    per_call_transfer = 1.75 * 50_331_648 / 100e9
    assert result.latency_s == pytest.approx(4 * 14 * 5e-6)
    assert result.transfer_s == pytest.approx(4 * per_call_transfer)
    assert result.total_s == pytest.approx(4 * (70e-6 + per_call_transfer))
    assert result.dominant_term == "bandwidth"
    assert [row.entry for row in result.rows] == list(tp_traffic(**dims))


def test_traffic_time_of_nothing() -> None:
    empty = traffic_time([], **LINK)
    assert (empty.rows, empty.latency_s, empty.transfer_s, empty.total_s, empty.bus_bytes) == ((), 0, 0, 0, 0)
    assert empty.dominant_term == "none"


@given(
    st.integers(2, 64),
    st.integers(1, 96),
    st.integers(1, 16),
    st.booleans(),
    st.sampled_from(["none", "selective", "full"]),
    bandwidths,
    alphas,
)
def test_traffic_time_totals_are_sums(
    tp: int, layers: int, m: int, sp: bool, recompute: str, bw: float, alpha: float
) -> None:
    entries = tp_traffic(
        seq_len=4096,
        micro_batch=1,
        hidden=8192,
        layers=layers,
        tp=tp,
        micro_batches=m,
        sequence_parallel=sp,
        recompute=recompute,
    ) + zero_traffic(num_params=1e9, dp=tp, stage=3, units=layers)
    result = traffic_time(entries, bandwidth_bytes_per_s=bw, latency_s=alpha)
    assert result.total_s == pytest.approx(sum(row.total_s for row in result.rows))
    assert result.total_s == pytest.approx(result.latency_s + result.transfer_s)
    for row in result.rows:
        assert row.total_s == pytest.approx(row.entry.calls_per_step * row.per_call.total_s)


# ---------------------------------------------------------------------------
# catalog
# ---------------------------------------------------------------------------


def test_communication_messages_are_bilingual_and_consistent() -> None:
    entries = {key: texts for key, texts in catalog().items() if key.startswith("communication.")}
    assert {
        "communication.ledger_latency",
        "communication.ledger_bandwidth",
        "communication.ledger_none",
        "communication.entry_type",
    } <= set(entries)
    for texts in entries.values():
        assert placeholders(texts["zh"]) == placeholders(texts["en"])


# ---------------------------------------------------------------------------
# crossover payload (lesson 2)
# ---------------------------------------------------------------------------


def test_crossover_of_the_seed_link() -> None:
    # Seed 000, Q2: 5 us per call, 100 GiB/s -> 5e-6 s x 100 x 2**30 B/s = 0.512 x 2**20 B.
    assert crossover_payload_mib(100, 5) == pytest.approx(0.512)
    # both seed ledgers carry more than that per call, so both are bandwidth-bound
    for payload, calls in ((256, 1), (32, 24)):
        assert payload > crossover_payload_mib(100, 5)
        assert communication_ledger(payload, calls, 100, 5).dominant_term == "bandwidth"


@given(
    bandwidth=st.floats(0.1, 1000, allow_nan=False),
    latency=st.floats(0.01, 1000, allow_nan=False),
    factor=st.floats(0.05, 20, allow_nan=False),
    calls=st.integers(1, 10_000),
)
def test_crossover_splits_the_two_regimes(bandwidth: float, latency: float, factor: float, calls: int) -> None:
    crossover = crossover_payload_mib(bandwidth, latency)
    ledger = communication_ledger(crossover * factor, calls, bandwidth, latency)
    if factor < 0.99:
        assert ledger.dominant_term == "latency"
    elif factor > 1.01:
        assert ledger.dominant_term == "bandwidth"
    # at the crossover the two per-call terms are equal
    at = collective_cost(
        "send_recv",
        payload_bytes=crossover * 2**20,
        ranks=2,
        bandwidth_bytes_per_s=bandwidth * 2**30,
        latency_s=latency * 1e-6,
    )
    assert at.transfer_s == pytest.approx(at.latency_s)


@pytest.mark.parametrize(
    ("args", "exc", "message"),
    [
        ((0, 5), ValueError, "bandwidth_gib_s = 0: must be > 0."),
        ((100, -1), ValueError, "latency_us = -1: must be >= 0."),
        ((100, float("nan")), ValueError, "latency_us = nan: must be a finite number (not NaN or infinity)."),
        (("100", 5), TypeError, "bandwidth_gib_s = '100': must be a real number (int or float), not str."),
    ],
)
def test_crossover_rejects(args: tuple[Any, ...], exc: type[Exception], message: str) -> None:
    with pytest.raises(exc) as info:
        crossover_payload_mib(*args)
    assert str(info.value) == message
