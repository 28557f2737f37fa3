"""DeepSeek-V3's FP8 activation storage (``fp8_activation_cache="deepseek-v3"``), worked by hand from its report.

DeepSeek-V3 (arXiv:2412.19437) §3.3.4 states two activations its FP8 framework keeps differently from Transformer
Engine's rule (each FP8 linear layer keeps its FP8 input; flash attention keeps its bf16 output besides):
(1) the inputs of the Linear after the attention operator, kept once in E5M6 (12 bits) and used by the attention
operator's backward too; (2) the inputs of the SwiGLU operator in MoE, kept in FP8, its output recomputed.

With DeepSeek-V3's widths (§2.1, §4.2: 128 heads of value width 128; routed experts of width 2048, 8 per token),
per token and MoE layer:

* SwiGLU input, 2·2048 per routed copy, 8 copies: 32,768 elements at 2 bytes (bf16) become 1 byte: 32,768 bytes
  fewer;
* with its output recomputed (Megatron-Core's ``moe_act``), the down projection's FP8 input, 2048 per copy, is not
  kept: 16,384 bytes fewer;
* the attention output, 128·128 = 16,384 elements: an FP8 copy (1 byte) and flash attention's bf16 one (2 bytes),
  49,152 bytes, become one E5M6 copy, 1.5 bytes each, 24,576 bytes: 24,576 bytes fewer.
"""

from __future__ import annotations

import dataclasses

import pytest

from coursekit.activations import layer_activation_ledger
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import MODELS
from coursekit.published_runs import all_published_runs
from coursekit.specs import DEEPSEEK_V3_ATTENTION_OUTPUT_BYTES

TOKENS = 4096
HEADS, V_HEAD = 128, 128
EXPERT_WIDTH, TOP_K = 2048, 8
SWIGLU_INPUT = 2 * EXPERT_WIDTH * TOP_K  # elements per token
DOWN_INPUT = EXPERT_WIDTH * TOP_K
ATTENTION_OUTPUT = HEADS * V_HEAD


def _bytes_per_token(
    kind: str, cache: str, recompute: str = "none", modules: tuple[str, ...] = (), **kw: object
) -> float:
    widths = MODELS["deepseek-v3"].layer_widths(kind)
    ledger = layer_activation_ledger(
        widths,
        seq_len=TOKENS,
        micro_batch=1,
        flash_attention=True,
        precision=kw.get("precision", "fp8"),  # type: ignore[arg-type]
        recompute=recompute,
        recompute_modules=modules,
        fp8_activation_cache=cache,
    )
    return sum(ledger.values()) / TOKENS


def test_e5m6_is_twelve_bits() -> None:
    assert DEEPSEEK_V3_ATTENTION_OUTPUT_BYTES == (1 + 5 + 6) / 8


@pytest.mark.parametrize(
    ("modules", "recompute", "fewer"),
    [
        # SwiGLU input at 1 byte instead of 2; the down projection's FP8 input not kept; one E5M6 attention output
        (("layernorm", "mla_up_proj", "moe_act"), "none", SWIGLU_INPUT * (2 - 1) + DOWN_INPUT * 1 + 24_576),
        # without moe_act the SwiGLU output is kept (as the down projection's FP8 input) either way
        (("layernorm", "mla_up_proj"), "none", SWIGLU_INPUT * (2 - 1) + 24_576),
        # attention's core recomputed: its output is recomputed too, so only the projection's FP8 copy is kept, as
        # without the option
        (("layernorm", "mla_up_proj", "moe_act"), "selective", SWIGLU_INPUT * (2 - 1) + DOWN_INPUT * 1),
    ],
)
def test_an_moe_layer_keeps_what_the_report_says(modules: tuple[str, ...], recompute: str, fewer: int) -> None:
    engine = _bytes_per_token("moe", "transformer-engine", recompute, modules)
    deepseek = _bytes_per_token("moe", "deepseek-v3", recompute, modules)
    assert engine - deepseek == fewer


def test_the_attention_output_alone_changes_in_a_dense_layer() -> None:
    # DeepSeek-V3's first three layers are dense: no routed experts, only the attention output's copies change
    fewer = ATTENTION_OUTPUT * (1 + 2) - ATTENTION_OUTPUT * 1.5
    assert fewer == 24_576
    modules = ("layernorm", "mla_up_proj", "moe_act")
    assert (
        _bytes_per_token("dense", "transformer-engine", "none", modules)
        - _bytes_per_token("dense", "deepseek-v3", "none", modules)
        == fewer
    )


def test_a_bf16_run_is_unchanged() -> None:
    assert _bytes_per_token("moe", "deepseek-v3", precision="bf16") == _bytes_per_token(
        "moe", "transformer-engine", precision="bf16"
    )


def test_the_workload_option_is_checked_and_named() -> None:
    with pytest.raises(ValueError, match="fp8_activation_cache"):
        WorkloadSpec(global_batch=8, fp8_activation_cache="deepseek")
    with pytest.raises(TypeError, match="fp8_activation_cache"):
        WorkloadSpec(global_batch=8, fp8_activation_cache=None)  # type: ignore[arg-type]


def test_the_deepseek_run_states_it_and_its_layout_needs_less_memory() -> None:
    run = next(r for r in all_published_runs() if r.name == "DeepSeek-V3 (MoE), 2048 H800 GPUs")
    assert dict(run.workload_options)["fp8_activation_cache"] == "deepseek-v3"
    layout = "tp=1,pp=16,dp=128,ep=64,etp=1,zero=1,mb=1,recompute=none"
    stated = plan(run.model_spec(), run.cluster_spec(), run.workload()).explain(layout)
    engine_workload = dataclasses.replace(run.workload(), fp8_activation_cache="transformer-engine")
    engine = plan(run.model_spec(), run.cluster_spec(), engine_workload).explain(layout)
    assert stated.memory.activations_gib < engine.memory.activations_gib
    assert stated.memory.params_gib == engine.memory.params_gib  # only the activations change
    assert "E5M6" in plan(run.model_spec(), run.cluster_spec(), run.workload()).report(top=1)
