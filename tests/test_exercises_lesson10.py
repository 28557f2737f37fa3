"""coursekit.exercises.lesson10 (serving): expected answers worked by hand, feedback never gives them away."""

from __future__ import annotations

from pathlib import Path

import pytest

from coursekit.exercises import check, exercises, get_exercise, verify
from coursekit.planner import ModelSpec
from coursekit.presets import CLUSTERS, MODELS
from coursekit.roofline import ridge_point_flop_per_byte
from coursekit.serving import PUBLISHED_MEASUREMENTS, kv_cache_bytes, serving_estimate, serving_memory_ledger

IDS = ["serve.kv_kib_per_token", "serve.max_requests", "serve.best_tp", "serve.littles_law"]


def test_lesson_10_registers_its_exercises() -> None:
    assert sorted(e.id for e in exercises(lesson=10)) == sorted(IDS)


def test_kv_per_token_by_hand() -> None:
    verify("serve.kv_kib_per_token", 2 * 80 * 8 * 128 * 2 / 1024)  # 320 KiB


def test_max_requests_by_hand() -> None:
    llama = MODELS["llama3-70b"]
    weights_gib = llama.num_params * 2 / 8 / 2**30
    per_request_gib = (8192 + 512) * (2 * 80 * 1 * 128 * 2) / 2**30  # one KV head per GPU at TP=8
    # Free memory: 80 GiB minus weights, the 2 GiB reserve and a workspace of well under 1 GiB (an 8192-token chunk).
    upper = int((80 - weights_gib - 2) // per_request_gib)
    answer = get_exercise("serve.max_requests").expected_value()
    assert upper - 10 <= answer <= upper
    verify("serve.max_requests", answer)


def test_best_tp_for_a_small_model_is_not_the_largest() -> None:
    # Megatron-LM's 1.7B at batch 1: TP 4 beats TP 2 (the weight read halves) and TP 8 (the all-reduces' latency
    # outgrows the last halving of a ~0.25 ms read: 1.65e9 params x 2 bytes / 4 / 3.35e12 bytes/s)
    verify("serve.best_tp", 4)
    assert not check("serve.best_tp", 8).correct and not check("serve.best_tp", 1).correct


def test_littles_law_by_hand() -> None:
    verify("serve.littles_law", 20 * 3.2)


@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answer_feedback_hides_the_answer(exercise_id: str) -> None:
    expected = get_exercise(exercise_id).expected_value()
    feedback = check(exercise_id, expected + 1000)
    assert not feedback.correct
    assert f"{expected}" not in feedback.message.replace(exercise_id, "") or len(str(expected)) == 1


# ----------------------------------------------------------------------------- the instructor guides quote coursekit

ROOT = Path(__file__).resolve().parents[1]
GUIDES = [ROOT / "docs/instructor/en/10_serving.md", ROOT / "docs/instructor/zh/10_serving.md"]


def _quoted_numbers() -> list[str]:
    llama, h100 = MODELS["llama3-70b"], CLUSTERS["h100-8"]
    # the KV talking point works the lesson's Llama-3 8B (the 70B is exercise 10.1, review 23)
    llama8 = MODELS["llama3-8b"]
    mha = ModelSpec("mha", llama8.layers, llama8.hidden, llama8.heads, llama8.ffn_hidden, llama8.vocab, llama8.seq_len)
    ledger = serving_memory_ledger(llama, h100, tp=8, concurrency=64, context_tokens=2304, prefill_chunk_tokens=2048)
    prefill = serving_estimate(llama, h100, tp=8, prompt_tokens=2048, output_tokens=256)
    b64 = serving_estimate(llama, h100, tp=8, batch=64, prompt_tokens=2048, output_tokens=256)
    b1 = serving_estimate(llama, h100, tp=8, batch=1, prompt_tokens=2048, output_tokens=256)
    tpot = [
        serving_estimate(llama, h100, tp=tp, prompt_tokens=512, output_tokens=128).time_per_output_token_s * 1e3
        for tp in (1, 2, 4, 8)
    ]
    gpt2 = [
        serving_estimate(
            MODELS["gpt2-small"], h100, tp=tp, prompt_tokens=512, output_tokens=128
        ).time_per_output_token_s
        for tp in (1, 2)
    ]
    ratios = []
    for m in PUBLISHED_MEASUREMENTS:
        est = serving_estimate(
            m.model,
            CLUSTERS[m.gpu],
            tp=m.tp,
            batch=m.batch,
            prompt_tokens=m.prompt_tokens,
            output_tokens=m.output_tokens,
        )
        ratios.append(m.value / (est.time_to_first_token_s if m.metric == "ttft_s" else est.tokens_per_s))
    return [
        f"**{kv_cache_bytes(llama8, tokens=1) // 1024} KiB**",
        f"**{kv_cache_bytes(mha, tokens=1) // 1024} KiB**",
        f"**{kv_cache_bytes(llama8, tokens=1, tp=16) // 1024} KiB**",
        f"**{kv_cache_bytes(llama, tokens=1, tp=16) // 1024} KiB**",
        f"**{ledger.weights_gib:.1f} GiB**",
        f"**{ledger.kv_cache_gib:.1f} GiB**",
        f"**{ledger.total_gib:.1f} / 80 GiB**",
        f"**{get_exercise('serve.max_requests').expected_value()}**",
        f"**{prefill.prefill_compute_s * 1e3:.1f} ms**",
        f"**{prefill.prefill_memory_s * 1e3:.1f} ms**",
        f"**{b64.decode_compute_s * 1e3:.2f} ms**",
        f"**{b64.decode_memory_s * 1e3:.2f} ms**",
        f"**{ridge_point_flop_per_byte(h100.peak_flops, h100.memory_bandwidth_bytes_per_s):.0f}**",
        "**" + " / ".join(f"{t:.1f}" for t in tpot) + " ms**",
        f"**{MODELS['gpt2-small'].num_params * 2 / h100.memory_bandwidth_bytes_per_s * 1e6:.0f} µs**",
        f"**{gpt2[0] * 1e3:.3f}**",
        f"**{gpt2[1] * 1e3:.3f} ms**",
        f"**{b1.time_per_output_token_s * 1e3:.1f} ms**",
        f"**{b64.time_per_output_token_s * 1e3:.1f} ms**",
        f"{b64.decode_tokens_per_s / b1.decode_tokens_per_s:.0f}",
        *(f"**{r:.2f}**" for r in ratios),
    ]


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.parent.name)
def test_instructor_guide_quotes_coursekit(guide: Path) -> None:
    text = guide.read_text(encoding="utf-8")
    missing = [number for number in _quoted_numbers() if number not in text]
    assert not missing


# ----------------------------------------------------------------------------- numbers the lesson's prose quotes

LESSON = (ROOT / "notebooks" / "src" / "10_serving.py").read_text(encoding="utf-8")


def _ratios() -> list[float]:
    out = []
    for m in PUBLISHED_MEASUREMENTS:
        est = serving_estimate(
            m.model,
            CLUSTERS[m.gpu],
            tp=m.tp,
            batch=m.batch,
            prompt_tokens=m.prompt_tokens,
            output_tokens=m.output_tokens,
        )
        out.append(m.value / (est.time_to_first_token_s if m.metric == "ttft_s" else est.tokens_per_s))
    return out


def test_lesson_prose_quotes_the_comparison() -> None:
    ttft_low, ttft_high, throughput = _ratios()
    # "1.4-1.5 times the bound" / "约为下界的 1.4-1.5 倍"; "about 70 % of peak" / "七成"; "about 0.8" / "八成".
    assert 1.4 <= min(ttft_low, ttft_high) and max(ttft_low, ttft_high) <= 1.5
    assert "1.4-1.5 倍" in LESSON and "1.4-1.5 times" in LESSON
    assert round(1 / ttft_low, 1) == round(1 / ttft_high, 1) == 0.7 and "70 %" in LESSON and "七成" in LESSON
    assert round(throughput, 1) == 0.8 and "about 0.8" in LESSON and "八成" in LESSON


def test_lesson_prose_quotes_nccl_and_gpt2() -> None:
    from coursekit.hardware import NCCL_BASE_LATENCY_US

    assert NCCL_BASE_LATENCY_US[("ring", "LL")] == 6.6 and "6.6 µs" in LESSON
    assert 2 * MODELS["gpt2-small"].layers == 24 and "24 all-reduces" in LESSON and "24 次全归约" in LESSON
    # the KV section's worked example is Llama-3 8B (exercise 10.1 asks the same of the 70B model)
    mha_factor = MODELS["llama3-8b"].heads // MODELS["llama3-8b"].kv_heads  # type: ignore[operator]
    assert mha_factor == 4 and "4 times as large" in LESSON and "缓存是 GQA 时的 4 倍" in LESSON
