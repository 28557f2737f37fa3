"""FP8 serving (W8A8): the linear layers' matmuls at the device's FP8 peak, 1-byte weights, attention at bf16's.

Expected values are worked by hand from Llama 3 8B's shape (32 layers, hidden 4096, 8 KV heads of 128, SwiGLU
14336, vocabulary 128256, untied) and the H100 SXM datasheet peaks (989 TFLOP/s bf16, 1979 FP8, dense), with the
serving estimate's documented prefill: 2·N·P matmul FLOPs plus causal attention 2·L·h·P², on the roofline.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import coursekit
from coursekit.__main__ import main as cli
from coursekit.planner import WorkloadSpec
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import ServingWorkload, plan_serving, serving_estimate

CJK = re.compile(r"[\u4e00-\u9fff]")
L, H, KV, F, V = 32, 4096, 8 * 128, 14336, 128256
#: Llama 3 8B's N: Q and O h×h, K and V h×kv, three h×f MLP matrices and two RMSNorm weights per layer, the final
#: norm and the output layer (every parameter but the untied input embedding, as PaLM's 2·N counts them).
N_MATMUL = L * (2 * H * H + 2 * H * KV + 3 * H * F + 2 * H) + H + H * V
BF16, FP8 = 989e12, 1979e12


def test_the_hand_count_is_the_models() -> None:
    assert MODELS["llama3-8b"].matmul_params == N_MATMUL
    assert (CLUSTERS["h100-8"].peak_flops, CLUSTERS["h100-8"].peak_flops_fp8) == (BF16, FP8)


def test_fp8_prefill_runs_the_matmuls_at_the_fp8_peak() -> None:
    """One 4096-token prompt on one H100: compute-bound, so TTFT is the FLOPs at their peaks."""
    prompt = 4096
    attention = 2 * L * H * prompt**2
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    bf16 = serving_estimate(model, cluster, prompt_tokens=prompt, output_tokens=1)
    fp8 = serving_estimate(model, cluster, prompt_tokens=prompt, output_tokens=1, weight_bytes=1, precision="fp8")
    assert bf16.time_to_first_token_s == pytest.approx((2 * N_MATMUL * prompt + attention) / BF16, rel=1e-12)
    assert fp8.time_to_first_token_s == pytest.approx(2 * N_MATMUL * prompt / FP8 + attention / BF16, rel=1e-12)


def test_fp8_decode_reads_one_byte_a_weight() -> None:
    """A decode step of one request is memory-bound: the weights (all parameters of a dense model) once, at 2 bytes
    or 1, plus the same KV cache."""
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    bf16 = serving_estimate(model, cluster, prompt_tokens=1024, output_tokens=64)
    fp8 = serving_estimate(model, cluster, prompt_tokens=1024, output_tokens=64, weight_bytes=1, precision="fp8")
    assert bf16.decode_bound == fp8.decode_bound == "memory"
    hbm = cluster.memory_bandwidth_bytes_per_s
    assert bf16.decode_memory_s - fp8.decode_memory_s == pytest.approx(model.num_params / hbm, rel=1e-9)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_fp8_is_refused_without_fp8_tensor_cores_or_with_wide_weights(lang: str) -> None:
    coursekit.set_language(lang)
    with pytest.raises(ValueError, match="weight_bytes") as caught:
        ServingWorkload(prompt_tokens=8, output_tokens=8, concurrency=1, precision="fp8")  # weights left at 2 bytes
    assert bool(CJK.search(str(caught.value))) == (lang == "zh")
    with pytest.raises(ValueError, match="precision") as caught:
        ServingWorkload(prompt_tokens=8, output_tokens=8, concurrency=1, precision="int8")
    fp8 = ServingWorkload(prompt_tokens=8, output_tokens=8, concurrency=1, precision="fp8", weight_bytes=1)
    with pytest.raises(ValueError, match="fp8") as caught:
        plan_serving(MODELS["llama3-8b"], CLUSTERS["a100-8"], fp8)  # A100: no FP8 tensor cores
    assert bool(CJK.search(str(caught.value))) == (lang == "zh")
    with pytest.raises(ValueError, match="weight_bytes"):
        serving_estimate(MODELS["llama3-8b"], CLUSTERS["h100-8"], prompt_tokens=8, output_tokens=8, precision="fp8")


def test_the_planners_serving_mode_serves_fp8_with_one_byte_weights() -> None:
    w = WorkloadSpec(global_batch=64, seq_len=2048, mode="serving", precision="fp8")
    served = w.serving_workload(MODELS["llama3-70b"])
    assert (served.precision, served.weight_bytes) == ("fp8", 1.0)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        status = cli(argv)
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


BASE = ["plan", "--mode", "serving", "--model", "llama3-70b", "--cluster", "h100-8", "--concurrency", "64"]


def test_the_command_line_plans_fp8(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run([*BASE, "--precision", "fp8", "--json", "--lang", "en"], capsys)
    assert status == 0
    payload: dict[str, Any] = json.loads(out)
    assert payload["workload"]["precision"] == "fp8" and payload["workload"]["weight_bytes"] == 1.0
    status, out, _ = _run([*BASE, "--json", "--lang", "en"], capsys)
    bf16: dict[str, Any] = json.loads(out)
    assert bf16["workload"]["precision"] == "bf16" and bf16["workload"]["weight_bytes"] == 2.0
    status, out, _ = _run([*BASE, "--precision", "fp8", "--lang", "zh"], capsys)
    assert status == 0 and "FP8 (W8A8)" in out and "1979" in out and "989" in out
    status, _, err = _run([*BASE, "--precision", "fp8", "--weight-bytes", "2", "--lang", "zh"], capsys)
    assert status == 2 and "weight_bytes" in err and "Traceback" not in err and CJK.search(err)
    status, _, err = _run([*BASE[:-4], "--cluster", "a100-8", "--concurrency", "8", "--precision", "fp8"], capsys)
    assert status == 2 and "FP8" in err and "Traceback" not in err
    status, out, _ = _run([*BASE, "--weight-bytes", "0.5", "--json"], capsys)  # 4-bit weights at bf16 matmuls
    assert status == 0 and json.loads(out)["workload"]["weight_bytes"] == 0.5
