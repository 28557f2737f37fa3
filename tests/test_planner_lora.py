"""LoRA fine-tuning in the workbench (``WorkloadSpec(lora_rank=r)``): frozen weights, trainable adapters.

Expected values are worked by hand from the sources, not read back from the code:

* an adapter beside a linear layer of ``in`` inputs and ``out`` outputs has r·(in + out) parameters (Hu et al.,
  arXiv:2106.09685, §4.1), on Megatron-Core's fused linear layers (``linear_qkv``, ``linear_proj``, ``linear_fc1``,
  ``linear_fc2``: Megatron-Bridge's default target modules);
* Llama 2 7B's shapes from its config (hidden 4096, 32 heads of 128, FFN 11008 with SwiGLU, 32 layers, vocabulary
  32000, untied embeddings; 6,738,415,616 parameters as Hugging Face counts them);
* PaLM's 6 FLOPs per parameter and token (appendix B): forward 2, backward 4, of which the weight gradient is 2.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import coursekit
from coursekit.planner import ClusterSpec, WorkloadSpec, plan
from coursekit.planner.cli import workload_argv
from coursekit.planner.estimate import lora_adapters
from coursekit.planner.search import evaluate_composition
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import NEMO_2407_LORA_RUNS

LLAMA2_7B_PARAMS = 6_738_415_616
# rank 16 on one layer: qkv 4096 -> 3·4096, proj 4096 -> 4096, fc1 4096 -> 2·11008 (gate and up), fc2 11008 -> 4096
LLAMA2_7B_R16_LAYER = 16 * ((4096 + 3 * 4096) + (4096 + 4096) + (4096 + 2 * 11008) + (11008 + 4096))
LLAMA2_7B_R16 = 32 * LLAMA2_7B_R16_LAYER
# the matmul weights whose weight gradients LoRA skips: 32 layers of attention 4·4096² and MLP 3·4096·11008 (the two
# norms of a layer, 2·4096, counted with the layer as the estimate counts a layer's parameters), and the output layer
LLAMA2_7B_LAYERS_AND_OUTPUT = 32 * (4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096) + 32000 * 4096


def _one_gpu() -> ClusterSpec:
    return CLUSTERS["h100-8"].with_nodes(1)


def test_adapter_parameters_worked_by_hand() -> None:
    assert LLAMA2_7B_R16_LAYER == 1_052_672
    adapters = lora_adapters(MODELS["llama2-7b"], 16)
    assert adapters.dense_layer == LLAMA2_7B_R16_LAYER
    assert adapters.per_token == adapters.model_per_token == LLAMA2_7B_R16 == 33_685_504
    # GQA (Llama 3 8B, 8 KV heads of 128): qkv 4096 -> 4096 + 2·1024, FFN 14336, rank 8
    assert lora_adapters(MODELS["llama3-8b"], 8).dense_layer == 8 * (
        (4096 + 6144) + (4096 + 4096) + (4096 + 2 * 14336) + (14336 + 4096)
    )
    # MoE (Mixtral 8x7B, top-2 of 8 experts, FFN 14336): a rank's experts share one adapter per linear layer, and each
    # of a token's two routed copies passes through it
    mixtral = lora_adapters(MODELS["mixtral-8x7b"], 16)
    attention = 16 * ((4096 + 6144) + (4096 + 4096))
    expert = 16 * ((4096 + 2 * 14336) + (14336 + 4096))
    assert (mixtral.moe_layer, mixtral.routed_expert) == (attention, expert)
    assert mixtral.per_token == 32 * (attention + 2 * expert)


def _pair(**degrees: int) -> tuple[object, object]:
    model, cluster = MODELS["llama2-7b"], _one_gpu()
    full = WorkloadSpec(global_batch=8, seq_len=4096, achievable_flops_fraction=0.5)
    lora = WorkloadSpec(global_batch=8, seq_len=4096, achievable_flops_fraction=0.5, lora_rank=16)
    return tuple(  # type: ignore[return-value]
        evaluate_composition(model, cluster, w, recompute="none", **degrees) for w in (full, lora)
    )


def test_compute_drops_by_the_frozen_weight_gradients_and_adds_the_adapters() -> None:
    """Eight GPUs of data parallelism at a flat 50 % of peak, one 4096-token sequence each: the compute time falls by
    exactly 2 FLOPs per frozen matmul weight and token, less the adapters' 6 per parameter and token; the attention
    core is the same in both."""
    full, lora = _pair(tp=1, pp=1, dp=8, zero=3, mb=1)
    assert full.timeline is not None and lora.timeline is not None
    tokens = 8 * 4096
    saved_flops_per_token = 2 * LLAMA2_7B_LAYERS_AND_OUTPUT - 6 * LLAMA2_7B_R16
    expected_s = (tokens / 8) * saved_flops_per_token / (989e12 * 0.5)
    assert full.timeline.compute_s - lora.timeline.compute_s == pytest.approx(expected_s, rel=1e-9)
    # model FLOPs (MFU's numerator) drop by 2 per matmul parameter (the output layer's included) and add 6 per adapter
    matmul = LLAMA2_7B_PARAMS - 32000 * 4096  # the input embedding is a lookup
    assert full.model_flops_per_step - lora.model_flops_per_step == pytest.approx(
        tokens * (2 * matmul - 6 * LLAMA2_7B_R16), rel=1e-12
    )


def test_memory_keeps_frozen_weights_only_and_the_adapters_full_state() -> None:
    """Eight GPUs, plain data parallelism (ZeRO-0), the default recipe's 2 + 2 + 12 bytes per trained parameter: the
    frozen weights keep their 2 bytes, the gradients and optimizer states are the adapters' alone."""
    w = WorkloadSpec(global_batch=32, seq_len=4096, lora_rank=16)
    c = evaluate_composition(MODELS["llama2-7b"], CLUSTERS["h100-8"], w, tp=1, pp=1, dp=8, zero=0, mb=1)
    assert c.memory is not None
    gib = 1 << 30
    assert c.memory.params_gib == pytest.approx(2 * (LLAMA2_7B_PARAMS + LLAMA2_7B_R16) / gib, rel=1e-12)
    assert c.memory.grads_gib == pytest.approx(2 * LLAMA2_7B_R16 / gib, rel=1e-12)
    assert c.memory.optimizer_gib == pytest.approx(12 * LLAMA2_7B_R16 / gib, rel=1e-12)
    # full training of the same layout needs the 16 bytes on every parameter: 100.4 GiB, refused
    full = evaluate_composition(
        MODELS["llama2-7b"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=32, seq_len=4096), tp=1, pp=1, dp=8, zero=0
    )
    assert full.memory is not None and full.memory.params_gib + full.memory.grads_gib + full.memory.optimizer_gib == (
        pytest.approx(16 * LLAMA2_7B_PARAMS / gib, rel=1e-12)
    )
    assert not full.accepted and "memory" in full.codes


def test_data_parallelism_reduces_only_the_adapter_gradients() -> None:
    w = WorkloadSpec(global_batch=32, seq_len=4096, lora_rank=16)
    c = evaluate_composition(MODELS["llama2-7b"], CLUSTERS["h100-8"], w, tp=1, pp=1, dp=8, zero=0, mb=1)
    (dp_row,) = [row for row in c.communication if row.dimension == "DP"]
    assert (dp_row.calls, dp_row.payload_bytes) == (1, 2 * LLAMA2_7B_R16)  # one all-reduce of 2-byte gradients
    # ZeRO-3 still gathers every frozen weight before each forward and backward: the weights' bytes dominate
    z3 = evaluate_composition(MODELS["llama2-7b"], CLUSTERS["h100-8"], w, tp=1, pp=1, dp=8, zero=3, mb=1)
    (z3_row,) = [row for row in z3.communication if row.dimension == "DP"]
    assert z3_row.payload_bytes > 2 * 2 * LLAMA2_7B_PARAMS * 4  # 2 gathers x 4 micro-batches of 2-byte weights


def test_the_nemo_lora_rows_are_searched_with_their_rank_and_pass() -> None:
    """NeMo 24.07's three LoRA rows (validation): without LoRA their layouts do not fit (ZeRO-0 Adam on every
    weight); with it each passes: accepted, in tie group 1 or the top 10, within 1.25x of the best and ±30 % of the
    measured tokens per GPU-second."""
    from dataclasses import replace

    from coursekit.planner import compare_published

    assert len(NEMO_2407_LORA_RUNS) == 3
    for run in NEMO_2407_LORA_RUNS:
        assert dict(run.workload_options)["lora_rank"] == 32
        assert compare_published(run).passes, run.name
        frozen_off = replace(run, workload_options=tuple((k, v) for k, v in run.workload_options if k != "lora_rank"))
        assert not compare_published(frozen_off).accepted


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (0, ValueError, "lora_rank = 0: must be >= 1."),
        (True, TypeError, "lora_rank = True: must be an integer (int), not bool."),
        ("16", TypeError, "lora_rank = '16': must be an integer (int), not str."),
        (1 << 17, ValueError, "lora_rank = 131072: must be <= 65536."),
    ],
)
def test_bad_ranks_are_refused_naming_the_rule(value: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        WorkloadSpec(global_batch=8, lora_rank=value)  # type: ignore[arg-type]
    assert str(info.value) == message


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_cli_takes_a_rank_and_states_the_assumption(lang: str) -> None:
    argv = ["--model", "llama2-7b", "--cluster", "h100-8", "--nodes", "1", "--global-batch", "32", "--seq-len", "4096"]
    run = subprocess.run(
        [sys.executable, "-m", "coursekit", "plan", *argv, "--lora-rank", "16", "--top", "1", "--lang", lang],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert ("低秩适配 (LoRA) 微调，秩 16" if lang == "zh" else "LoRA fine-tuning, rank 16") in run.stdout
    assert "33.7M" in run.stdout  # 33,685,504 adapter parameters
    bad = subprocess.run(
        [sys.executable, "-m", "coursekit", "plan", *argv, "--lora-rank", "0", "--lang", lang],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "lora_rank = 0" in bad.stderr and "Traceback" not in bad.stderr


def test_workload_argv_round_trips_the_rank() -> None:
    argv = workload_argv(WorkloadSpec(global_batch=32, lora_rank=64))
    assert argv[argv.index("--lora-rank") + 1] == "64"


def test_plan_prefers_what_fits_only_with_frozen_weights() -> None:
    """Llama 2 70B on one node of 8 H100s: full training does not fit any layout; LoRA does (the NeMo table ran it
    at TP 2, PP 4)."""
    model, cluster = MODELS["llama2-70b"], CLUSTERS["h100-8"].with_nodes(1)
    base = {"global_batch": 32, "seq_len": 4096, "precision": "fp8"}
    assert plan(model, cluster, WorkloadSpec(**base)).accepted_count == 0  # type: ignore[arg-type]
    assert plan(model, cluster, WorkloadSpec(**base, lora_rank=32)).accepted_count > 0  # type: ignore[arg-type]


def test_the_assumptions_line_is_in_the_learners_language() -> None:
    result = plan(MODELS["llama2-7b"], _one_gpu(), WorkloadSpec(global_batch=8, seq_len=4096, lora_rank=8))
    coursekit.set_language("zh")
    try:
        assert "低秩适配 (LoRA) 微调，秩 8" in result.report(top=1)
    finally:
        coursekit.set_language("en")
    assert "LoRA fine-tuning, rank 8" in result.report(top=1)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_serving_with_a_lora_rank_is_refused_not_ignored(lang: str) -> None:
    """The serving estimate counts no adapters: a serving workload with a LoRA rank is refused by name, in the
    learner's language, instead of planned as if the rank were not there."""
    previous = coursekit.get_language()
    coursekit.set_language(lang)
    try:
        with pytest.raises(ValueError, match="lora_rank = 16") as refused:
            WorkloadSpec(global_batch=8, mode="serving", lora_rank=16)
        assert ("低秩适配" in str(refused.value)) == (lang == "zh")
    finally:
        coursekit.set_language(previous)
    assert WorkloadSpec(global_batch=8, mode="serving").lora_rank is None  # serving without LoRA still plans
