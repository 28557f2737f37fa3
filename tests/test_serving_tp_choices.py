"""A serving TP that does not divide the attention heads is refused with the TP values that do work.

The lists below are worked by hand from each model's head counts: a TP must divide the attention heads, and divide
the KV heads or be a multiple of them (vLLM's QKVParallelLinear rule, coursekit.serving.kv).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from coursekit.i18n import set_language
from coursekit.presets import MODELS
from coursekit.serving.kv import _check_tp


def _refusal(model: object, tp: int, lang: str) -> str:
    set_language(lang)
    try:
        with pytest.raises(ValueError) as info:
            _check_tp(model, tp)  # type: ignore[arg-type]
    finally:
        set_language("en")
    return str(info.value)


def test_llama3_8b_lists_the_divisors_of_its_32_heads() -> None:
    # 32 heads, 8 KV heads: 1, 2, 4 and 8 split the KV heads, 16 and 32 copy them
    assert _refusal(MODELS["llama3-8b"], 3, "en").endswith("TP values that work for this model: 1, 2, 4, 8, 16, 32.")
    assert _refusal(MODELS["llama3-8b"], 3, "zh").endswith("这个模型能用的 TP：1、2、4、8、16、32。")


def test_the_kv_rule_removes_divisors_of_the_heads() -> None:
    # 48 heads, 6 KV heads: 4, 8 and 16 divide 48 but neither divide 6 nor are multiples of it
    model = replace(MODELS["llama3-8b"], name="toy-48", heads=48, kv_heads=6, hidden=48 * 128)
    assert _refusal(model, 5, "en").endswith("TP values that work for this model: 1, 2, 3, 6, 12, 24, 48.")


def test_a_long_list_is_cut_after_eight() -> None:
    # 128 heads and 128 KV heads (DeepSeek-V3's MLA, one latent per head in the planner's count): 8 of them fit the list
    text = _refusal(MODELS["deepseek-v3"], 3, "en")
    assert text.endswith("1, 2, 4, 8, 16, 32, 64, 128.")
    model = replace(MODELS["llama3-8b"], name="toy-720", heads=720, kv_heads=720, hidden=720 * 8)
    assert _refusal(model, 7, "en").endswith("1, 2, 3, 4, 5, 6, 8, 9, ….")
