"""Serving defects an adversarial pass found: the request-rate search, the split of requests over replicas, TP and
byte-width bounds, and the wording of the missing-load message.

Expected values are worked from the formulas (serving_estimate's docstring and the lesson) or by a scan of every
concurrency through the public :func:`~coursekit.serving.serving_estimate`, never from the code under test.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace

import pytest

import coursekit
from coursekit.__main__ import main
from coursekit.planner import ModelSpec
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import (
    ServingWorkload,
    evaluate_layout,
    kv_cache_bytes,
    kv_heads_per_rank,
    plan_serving,
    serving_estimate,
    serving_memory_ledger,
)
from coursekit.serving.search import _rate_concurrency
from coursekit.specs import MAX_ELEMENT_BYTES

H100 = CLUSTERS["h100-8"]
LLAMA8 = MODELS["llama3-8b"]


def _in(lang: str, action):  # type: ignore[no-untyped-def]
    """The ValueError message ``action`` raises in ``lang``."""
    previous = coursekit.get_language()
    coursekit.set_language(lang)
    try:
        with pytest.raises(ValueError) as info:
            action()
    finally:
        coursekit.set_language(previous)
    return str(info.value)


# ----------------------------------------------------------------------------- H1: a request rate


def _scan(model: ModelSpec, tp: int, pp: int, prompt: int, output: int, cap: int) -> list[tuple[float, float]]:
    """(latency, requests/s) of one replica at every concurrency 1 .. cap, through the public estimate."""
    rows = []
    for c in range(1, cap + 1):
        est = serving_estimate(model, H100, tp=tp, pp=pp, batch=c, prompt_tokens=prompt, output_tokens=output)
        rows.append((est.time_to_first_token_s + output * est.time_per_output_token_s, est.tokens_per_s / output))
    return rows


def _smallest(rows: list[tuple[float, float]], rate: float) -> int | None:
    """The brief's definition: the smallest c with ceil(rate · latency(c)) <= c and rate <= throughput(c)."""
    for c, (latency, per_s) in enumerate(rows, start=1):
        if max(1, math.ceil(rate * latency)) <= c and rate <= per_s:
            return c
    return None


# (model, tp, pp, prompt, output, cap): dense, GQA, MoE, TP with all-reduces, PP with its padded decode groups,
# caps that are and are not a multiple of pp.
SCAN_CASES = [
    ("llama3-8b", 1, 1, 16, 512, 300),
    ("llama3-8b", 1, 1, 512, 16, 300),
    ("gpt2-small", 1, 1, 64, 64, 400),
    ("llama3-8b", 8, 1, 64, 64, 300),
    ("mixtral-8x7b", 2, 1, 128, 128, 200),
    ("llama3-8b", 1, 2, 2048, 256, 201),
    ("gpt2-small", 1, 2, 1024, 64, 301),
    ("llama3-8b", 2, 4, 128, 128, 258),
    ("gpt2-small", 1, 3, 64, 64, 200),
]


@pytest.mark.parametrize(("name", "tp", "pp", "prompt", "output", "cap"), SCAN_CASES)
def test_rate_search_finds_the_smallest_sustaining_concurrency(
    name: str, tp: int, pp: int, prompt: int, output: int, cap: int
) -> None:
    model = MODELS[name]
    rows = _scan(model, tp, pp, prompt, output, cap)
    best = max(per_s for _, per_s in rows)
    # A grid up to just past the best throughput, plus every concurrency's own throughput (the rates at which the
    # throughput condition holds with equality).
    rates = [best * k / 40 for k in range(1, 43)] + [per_s for _, per_s in rows]
    w = ServingWorkload(prompt_tokens=prompt, output_tokens=output, request_rate_per_s=1.0)
    wrong = [
        (rate, found, expected)
        for rate in rates
        if (found := _rate_concurrency(model, H100, w, tp, pp, rate, cap)) != (expected := _smallest(rows, rate))
    ]
    assert not wrong
    # The grid reaches both verdicts: some rates settle inside the cap, the ones above the best throughput do not.
    assert _smallest(rows, rates[0]) is not None and _smallest(rows, best * 1.05) is None


def test_the_scan_cases_include_a_concurrency_that_sustains_and_its_successor_that_does_not() -> None:
    """With pp > 1, c = g·pp + 1 opens a decode group of one request: a rate that g·pp sustains can fail one request
    later, so the search must not assume one condition monotone in c (it bisects group ends, then inside a group)."""
    rows = _scan(LLAMA8, 1, 2, 2048, 256, 201)  # a SCAN_CASES case: long contexts, so the KV reads weigh

    def sustains(c: int, rate: float) -> bool:
        latency, per_s = rows[c - 1]
        return max(1, math.ceil(rate * latency)) <= c and rate <= per_s

    # the throughput of c requests as the rate: c sustains it when Little's law holds, c + 1 may not
    drops = [c for c in range(1, len(rows)) if sustains(c, rows[c - 1][1]) and not sustains(c + 1, rows[c - 1][1])]
    assert drops and all(c % 2 == 0 for c in drops)  # always at a full group's end: c + 1 opens a new group


@pytest.mark.parametrize(
    ("name", "tp", "pp"), [("llama3-8b", 1, 1), ("llama3-8b", 8, 1), ("mixtral-8x7b", 2, 2), ("gpt2-small", 1, 4)]
)
def test_the_monotonicity_the_rate_search_rests_on(name: str, tp: int, pp: int) -> None:
    """TTFT does not depend on the batch; TPOT depends only on the decode group g = ceil(batch / pp), and TPOT(g) / g
    does not grow with g (see ``_rate_concurrency``'s docstring)."""
    model = MODELS[name]

    def est(batch: int):  # type: ignore[no-untyped-def]
        return serving_estimate(model, H100, tp=tp, pp=pp, batch=batch, prompt_tokens=256, output_tokens=128)

    groups = [*range(1, 65), *(int(1.3**k) for k in range(17, 45))]
    ttfts, per_group = set(), []
    for g in groups:
        first, last = est((g - 1) * pp + 1), est(g * pp)
        assert first.time_per_output_token_s == last.time_per_output_token_s  # one group, one TPOT
        ttfts |= {first.time_to_first_token_s, last.time_to_first_token_s}
        per_group.append(last.time_per_output_token_s / g)
    assert len(ttfts) == 1
    assert all(b <= a * (1 + 1e-12) for a, b in itertools.pairwise(per_group))
    assert per_group[-1] < per_group[0]  # the ratio really falls: the weights are read once per step


REPRO = ("llama3-8b", "h100-8", 528.0, 16, 512)  # 66 requests/s per replica on 8 replicas


def test_a_rate_that_a_replica_sustains_is_accepted() -> None:
    """The reproducer: 528 requests/s of 16 + 512 tokens on 8 single-GPU replicas. Before the fix the search gave up
    after 200 steps of one request each and rejected every layout as unable to settle."""
    w = ServingWorkload(prompt_tokens=16, output_tokens=512, request_rate_per_s=528.0)
    result = plan_serving(LLAMA8, H100, w)
    for c in result.candidates:
        assert c.ledger is not None
        cap = c.ledger.max_concurrency
        rows = _scan(LLAMA8, c.tp, c.pp, 16, 512, cap)
        expected = _smallest(rows, 528.0 / c.replicas)
        if expected is None:
            assert [r.code for r in c.reasons] == ["rate"], (c.replicas, c.tp, c.pp)
        else:
            assert c.concurrency_per_replica == expected and c.accepted, (c.replicas, c.tp, c.pp)
    accepted = [(c.replicas, c.tp, c.pp) for c in result.accepted]
    assert accepted == [(8, 1, 1)]
    one = result.candidate(tp=1, pp=1)
    # Little's law at the answer, by hand from the estimate's times: rate · (TTFT + O · TPOT) <= c.
    e = one.estimate
    assert e is not None
    assert 66.0 * (e.time_to_first_token_s + 512 * e.time_per_output_token_s) <= one.concurrency_per_replica
    assert 66.0 * 512 <= e.tokens_per_s


def test_the_cli_accepts_the_reproducers_layout(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["plan", "--mode", "serving", "--model", "llama3-8b", "--cluster", "h100-8", "--request-rate", "528"]
    assert main([*args, "--prompt-tokens", "16", "--output-tokens", "512", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["accepted"] == 1
    assert payload["top"][0]["degrees"] == {"tp": 1, "pp": 1, "replicas": 8}


def test_an_unsustainable_rate_is_still_refused() -> None:
    """One replica of Llama-3 8B finishes at most 1 / TTFT requests per second (each prefill takes TTFT): a rate
    above that is refused at every concurrency, with the rate gate's reason."""
    ttft = serving_estimate(LLAMA8, H100, batch=1, prompt_tokens=16, output_tokens=512).time_to_first_token_s
    w = ServingWorkload(prompt_tokens=16, output_tokens=512, request_rate_per_s=8 * 1.01 / ttft)
    c = evaluate_layout(LLAMA8, H100, w, 1, 1)
    assert [r.code for r in c.reasons] == ["rate"]
    assert c.ledger is not None
    cap = c.ledger.max_concurrency
    assert f"no concurrency within the {cap} concurrent requests memory holds" in c.reasons[0].message
    assert _smallest(_scan(LLAMA8, 1, 1, 16, 512, cap), w.request_rate_per_s / 8) is None  # true: none sustains it


# ----------------------------------------------------------------------------- M1: requests split over replicas


def _llama8_by_hand(batch: int) -> float:
    """Output tokens/s of one TP = 1 Llama-3 8B replica on an H100 at ``batch`` requests of 1024 + 256 tokens.

    N (matmul parameters) = 8,030,261,248 - 128256 · 4096 (untied input embedding) = 7,504,924,672.
    Prefill: 2·N·1024 + 4·32·4096·1024 / 2 · 1024 = 15,644,963,635,200 FLOPs at 989e12 FLOP/s (compute-bound).
    Decode step: the bf16 weights (16,060,522,496 bytes) plus K and V of batch × (1024 + 128) tokens at
    2 · 32 layers · 8 heads · 128 · 2 bytes = 131,072 bytes each, at 3.35e12 bytes/s (memory-bound: 15.6e9 FLOPs
    per request take 16 µs). Throughput = batch · 256 / (batch · TTFT + 256 · TPOT).
    """
    ttft = 15_644_963_635_200 / 989e12
    tpot = (16_060_522_496 + batch * 1152 * 131_072) / 3.35e12
    return batch * 256 / (batch * ttft + 256 * tpot)


def test_the_by_hand_numbers_are_the_presets() -> None:
    assert LLAMA8.num_params == 8_030_261_248 and LLAMA8.vocab * LLAMA8.hidden == 128_256 * 4096
    assert (H100.peak_flops, H100.memory_bandwidth_bytes_per_s) == (989e12, 3.35e12)
    assert kv_cache_bytes(LLAMA8, tokens=1) == 131_072


@pytest.mark.parametrize(
    ("concurrency", "batches", "gate"),
    [
        (8, [1] * 8, None),
        (9, [2] + [1] * 7, None),  # the reproducer: 1,828 tokens/s, not the 3,195 of 16 requests
        (16, [2] * 8, None),
        (13, [2] * 5 + [1] * 3, None),
        (6, [1] * 6 + [0] * 2, "replica"),  # two replicas idle: refused, and they add nothing
    ],
)
def test_cluster_throughput_adds_each_replicas_own_batch(
    concurrency: int, batches: list[int], gate: str | None
) -> None:
    w = ServingWorkload(prompt_tokens=1024, output_tokens=256, concurrency=concurrency)
    c = evaluate_layout(LLAMA8, H100, w, 1, 1)
    expected = sum(_llama8_by_hand(b) for b in batches if b)
    assert c.cluster_tokens_per_s == pytest.approx(expected, rel=1e-9)
    assert c.tokens_per_s_per_gpu == pytest.approx(expected / 8, rel=1e-9)
    assert c.concurrency_per_replica == max(batches) and c.requests == concurrency == sum(batches)
    assert c.ledger is not None and c.ledger.concurrency == max(batches)  # the memory gate sees the fullest
    assert c.estimate is not None and c.estimate.batch == max(batches)  # and so do the latencies
    assert [r.code for r in c.reasons] == ([gate] if gate else [])


def test_nine_requests_on_eight_replicas_is_the_reproducers_number() -> None:
    w = ServingWorkload(prompt_tokens=1024, output_tokens=256, concurrency=9)
    c = evaluate_layout(LLAMA8, H100, w, 1, 1)
    assert round(c.cluster_tokens_per_s) == 1828  # 7 × 204.04 + 399.37
    assert c.to_dict()["estimate"]["cluster_tokens_per_s"] == c.cluster_tokens_per_s
    assert c.to_dict()["replicas_at_concurrency"] == 1 and c.to_dict()["requests"] == 9


def test_the_ranking_follows_the_real_split() -> None:
    """With 9 requests the phantom 10th request of 2 × TP = 4 (5 + 5) no longer lifts it above 1 × TP = 8."""
    result = plan_serving(LLAMA8, H100, ServingWorkload(prompt_tokens=1024, output_tokens=256, concurrency=9))
    per_gpu = [c.tokens_per_s_per_gpu for c in result.accepted]
    assert per_gpu == sorted(per_gpu, reverse=True)
    assert [(c.replicas, c.tp, c.pp) for c in result.accepted][:2] == [(1, 8, 1), (2, 4, 1)]
    two = result.accepted[1]
    assert two.estimate is not None and two.lighter_estimate is not None
    assert (two.concurrency_per_replica, two.lighter_estimate.batch) == (5, 4)
    assert two.cluster_tokens_per_s == two.estimate.tokens_per_s + two.lighter_estimate.tokens_per_s
    text = result.report(top=2)
    assert "replicas=2 tp=4 pp=1: 5 requests on 1 of the replicas, 4 on the other 1" in text


def test_the_split_is_reported_in_chinese_too() -> None:
    result = plan_serving(LLAMA8, H100, ServingWorkload(prompt_tokens=1024, output_tokens=256, concurrency=9))
    coursekit.set_language("zh")
    text = result.report(top=2)
    assert "replicas=2 tp=4 pp=1：1 个副本各 5 个请求，其余 1 个各 4 个" in text


# ----------------------------------------------------------------------------- L1: TP and byte widths


@pytest.mark.parametrize(("kv_heads", "tp", "expected"), [(8, 1, 8), (8, 4, 2), (8, 8, 1), (8, 16, 1), (1, 8, 1)])
def test_kv_heads_per_rank_splits_or_copies(kv_heads: int, tp: int, expected: int) -> None:
    assert kv_heads_per_rank(kv_heads, tp) == expected


@pytest.mark.parametrize(("kv_heads", "tp"), [(8, 3), (8, 12), (6, 4), (4, 6)])
def test_kv_heads_per_rank_refuses_a_tp_that_neither_splits_nor_copies(kv_heads: int, tp: int) -> None:
    en = _in("en", lambda: kv_heads_per_rank(kv_heads, tp))
    zh = _in("zh", lambda: kv_heads_per_rank(kv_heads, tp))
    assert en.startswith(f"tp = {tp}: must divide kv_heads = {kv_heads} or be a multiple of it")
    assert zh.startswith(f"tp = {tp}：必须整除 kv_heads = {kv_heads}，或是它的整数倍")


def test_serving_functions_refuse_a_tp_that_does_not_divide_the_heads() -> None:
    est = lambda: serving_estimate(LLAMA8, H100, tp=3, batch=1, prompt_tokens=10, output_tokens=10)  # noqa: E731
    ledger = lambda: serving_memory_ledger(LLAMA8, H100, tp=2**53, concurrency=1, context_tokens=10)  # noqa: E731
    assert _in("en", est).startswith("tp = 3: must divide heads = 32, the attention heads of llama3-8b")
    assert _in("zh", est).startswith("tp = 3：必须整除 heads = 32（llama3-8b 的注意力头数")
    assert _in("en", ledger).startswith(f"tp = {2**53}: must divide heads = 32")
    # the planner's shape gate refuses the same TP
    assert "tp_heads" in [r.code for r in evaluate_layout(LLAMA8, H100, _concurrency(8), 3, 1, 1).reasons]


def _concurrency(n: int) -> ServingWorkload:
    return ServingWorkload(prompt_tokens=64, output_tokens=64, concurrency=n)


def test_the_shape_gate_refuses_kv_heads_that_tp_cannot_split() -> None:
    """24 query heads and 8 KV heads on 6-GPU nodes: TP = 3 and 6 divide the heads but not the KV heads (nor are
    they multiples of 8), so no engine can lay them out; TP = 2 splits them 4 per rank."""
    model = ModelSpec("gqa-24", layers=4, hidden=3072, heads=24, kv_heads=8, ffn_hidden=8192, vocab=32000, seq_len=4096)
    cluster = replace(H100, name="six", gpus_per_node=6)
    result = plan_serving(model, cluster, _concurrency(12))
    for tp in (3, 6):
        reasons = result.candidate(tp=tp).reasons
        assert reasons[0].code == "tp_heads"
        assert reasons[0].message.startswith(f"tp = {tp} neither divides the 8 KV heads nor is a multiple of them")
        with pytest.raises(ValueError, match=f"tp = {tp}: must divide kv_heads = 8"):
            serving_estimate(model, cluster, tp=tp, prompt_tokens=64, output_tokens=64)
    assert result.candidate(tp=2).accepted
    assert serving_estimate(model, cluster, tp=2, prompt_tokens=64, output_tokens=64).tp == 2


def test_kv_cache_bytes_needs_only_the_kv_heads_split() -> None:
    # Falcon-7B's one KV head is copied to every rank whatever the TP; 8 KV heads cannot be spread over 3 ranks
    falcon = ModelSpec("falcon-7b", layers=32, hidden=4544, heads=71, kv_heads=1, ffn_hidden=18176, vocab=65024,
                       seq_len=2048)  # fmt: skip
    assert kv_cache_bytes(falcon, tokens=1, tp=8) == 2 * 32 * 64 * 2
    with pytest.raises(ValueError, match="tp = 3: must divide kv_heads = 8"):
        kv_cache_bytes(LLAMA8, tokens=1, tp=3)


@pytest.mark.parametrize("field", ["kv_bytes", "weight_bytes"])
def test_byte_widths_share_one_bound(field: str) -> None:
    common = {"prompt_tokens": 1, "output_tokens": 1}
    ok = serving_estimate(LLAMA8, H100, batch=1, **common, **{field: MAX_ELEMENT_BYTES})
    assert ok.time_to_first_token_s > 0
    ServingWorkload(concurrency=1, **common, **{field: MAX_ELEMENT_BYTES})
    too_big = MAX_ELEMENT_BYTES + 1
    messages = [
        _in("en", lambda: serving_estimate(LLAMA8, H100, batch=1, **common, **{field: too_big})),
        _in("en", lambda: serving_memory_ledger(LLAMA8, H100, concurrency=1, context_tokens=2, **{field: too_big})),
        _in("en", lambda: ServingWorkload(concurrency=1, **common, **{field: too_big})),
    ]
    assert MAX_ELEMENT_BYTES == 8  # fp64
    assert messages == [f"{field} = {too_big}: must be <= 8."] * 3
    assert _in("zh", lambda: serving_estimate(LLAMA8, H100, batch=1, **common, **{field: too_big})).startswith(
        f"{field} = {too_big}："
    )


def test_the_cli_kv_bytes_bound_is_the_apis(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["plan", "--mode", "serving", "--model", "llama3-8b", "--cluster", "h100-8", "--concurrency", "8"]
    assert main([*args, "--kv-bytes", str(MAX_ELEMENT_BYTES), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["workload"]["kv_bytes"] == MAX_ELEMENT_BYTES
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--kv-bytes", str(MAX_ELEMENT_BYTES + 1)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "kv_bytes" in err and f"<= {MAX_ELEMENT_BYTES}" in err


# ----------------------------------------------------------------------------- L2: the missing load


def test_no_load_is_worded_alike_in_both_languages() -> None:
    neither = lambda: ServingWorkload(prompt_tokens=1, output_tokens=1)  # noqa: E731
    both = lambda: ServingWorkload(prompt_tokens=1, output_tokens=1, concurrency=1, request_rate_per_s=1.0)  # noqa: E731
    for action in (neither, both):
        en, zh = _in("en", action), _in("zh", action)
        assert "give exactly one" in en
        assert "必须给出其中一个，且只能给一个" in zh and "两者只能给一个" not in zh
        assert "concurrency = " in zh and "request_rate_per_s = " in zh
