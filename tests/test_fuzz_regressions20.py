"""Regressions from the twentieth adversarial fuzzing pass: real-world model configs, array inputs, and the CLI's
environment.

Part 1 reads the config.json of model families the presets do not cover (tests/data/fuzz20/*.json, written from
memory of the Hugging Face repos named in :data:`PUBLISHED`, with only the keys those published configs hold: there is
no network here) through ``ModelSpec.from_config`` and ``plan --model-config``: each plans with a parameter count
within 1 % of its published total, or is refused naming the key it cannot express. Part 2 feeds numpy arrays of every
awkward kind to the array-generic formulas and compares element by element with the scalar call. Part 3 runs the
command lines in hostile environments (a C locale, a closed or cut-short stdout, a read-only working folder, no HOME)
in a subprocess. Expected values come from a published figure (named beside it), a formula worked by hand or the
scalar call, never from the code under test.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from coursekit import i18n
from coursekit.__main__ import main as cli_main
from coursekit.model_config import load_model_config
from coursekit.planner import ModelSpec, WorkloadSpec
from coursekit.planner.estimate import (
    attention_core_weight,
    attention_kernel_rate,
    attention_kernel_tokens,
    ep_dispatched_tokens,
    expert_tp_gathered_tokens,
)
from coursekit.planner.gate_table import chunks_divide_stages
from coursekit.presets import MODELS
from coursekit.specs import edge_layers_at, kv_heads_split, stage_layer_counts

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "fuzz20"


@pytest.fixture(autouse=True)
def _english_after() -> Any:
    yield
    i18n.set_language("en")


def _cli(argv: list[str]) -> tuple[int, str, str]:
    """``python -m coursekit argv`` in this process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli_main(argv)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
    return int(status or 0), out.getvalue(), err.getvalue()


def _no_constant(token: str) -> Any:
    raise AssertionError(f"{token} in a JSON output (not JSON: every number must be finite)")


def _config(name: str) -> dict[str, Any]:
    return load_model_config(DATA / f"{name}.json")


# -- part 1: published configs --------------------------------------------------------------------------------------

#: file (the Hugging Face repo's name, lower case) -> (published parameters of the language model, where from). For a
#: vision-language repo the published figure is the text part's where the source splits it (Gemma 3: embedding plus
#: non-embedding parameters), else the whole repo's and VISION below holds the vision encoder's count, by hand.
PUBLISHED: dict[str, tuple[float, str]] = {
    # google/gemma-2-9b, google/gemma-2-27b: Gemma 2 report (arXiv:2408.00118) Table 2, embedding + non-embedding
    "gemma-2-9b": (917_962_752 + 8_324_201_984, "Gemma 2 report, Table 2"),
    "gemma-2-27b": (1_180_237_824 + 26_047_480_320, "Gemma 2 report, Table 2"),
    # google/gemma-3-{1b,4b,12b,27b}-it: Gemma 3 report (arXiv:2503.19786) Table 1, embedding + non-embedding (text)
    "gemma-3-1b-it": (302e6 + 698e6, "Gemma 3 report, Table 1"),
    "gemma-3-4b-it": (675e6 + 3_209e6, "Gemma 3 report, Table 1"),
    "gemma-3-12b-it": (1_012e6 + 10_759e6, "Gemma 3 report, Table 1"),
    "gemma-3-27b-it": (1_416e6 + 25_600e6, "Gemma 3 report, Table 1"),
    # microsoft/Phi-3-mini-4k-instruct, Phi-3-medium-4k-instruct: Phi-3 report (arXiv:2404.14219), 3.8B and 14B
    "phi-3-mini-4k-instruct": (3.8e9, "Phi-3 report, abstract"),
    "phi-3-medium-4k-instruct": (14e9, "Phi-3 report, abstract"),
    # microsoft/Phi-3.5-MoE-instruct: model card, "16x3.8B parameters with 6.6B active"; 41.9B in all
    "phi-3.5-moe-instruct": (41.9e9, "Phi-3.5-MoE-instruct model card"),
    # Qwen/Qwen2.5-VL-7B-Instruct: 8.29B, the Hugging Face repo's weights (vision encoder included)
    "qwen2.5-vl-7b-instruct": (8.29e9, "Qwen2.5-VL-7B-Instruct repo, safetensors parameter count"),
    # mistralai/Mistral-7B-v0.1: "a 7.3B parameter model" (Mistral AI's announcement, 27 Sep 2023)
    "mistral-7b-v0.1": (7.3e9, "Mistral AI, Mistral 7B announcement"),
    # mistralai/Mixtral-8x7B-v0.1: "46.7B total parameters" (Mistral AI's announcement, 11 Dec 2023)
    "mixtral-8x7b-v0.1": (46.7e9, "Mistral AI, Mixtral of experts announcement"),
    # Qwen/Qwen1.5-MoE-A2.7B: "14.3B parameters in total" (Qwen blog, Qwen1.5-MoE, Mar 2024)
    "qwen1.5-moe-a2.7b": (14.3e9, "Qwen1.5-MoE blog"),
    # Qwen/Qwen2.5-7B, Qwen2.5-0.5B: model cards, "Number of Parameters: 7.61B" and "0.49B"
    "qwen2.5-7b": (7.61e9, "Qwen2.5-7B model card"),
    "qwen2.5-0.5b": (0.49e9, "Qwen2.5-0.5B model card"),
    # allenai/OLMoE-1B-7B-0924: OLMoE paper (arXiv:2409.02060), 6.9B total
    "olmoe-1b-7b-0924": (6.9e9, "OLMoE paper, Table 1"),
    # deepseek-ai/DeepSeek-V2-Lite: DeepSeek-V2 paper (arXiv:2405.04434) Appendix B, 15.7B total
    "deepseek-v2-lite": (15.7e9, "DeepSeek-V2 paper, Appendix B"),
    # openai/gpt-oss-20b: gpt-oss model card (arXiv:2508.10925) Table 1, 20.91B total
    "gpt-oss-20b": (20.91e9, "gpt-oss model card, Table 1"),
    # meta-llama/Llama-4-Scout-17B-16E-Instruct: "109B total parameters" (Meta's Llama 4 announcement), vision included
    "llama-4-scout-17b-16e-instruct": (109e9, "Meta, Llama 4 announcement"),
    # mistralai/Mistral-Small-3.1-24B-Instruct-2503: 24B (Mistral AI's announcement; the repo's weights: 24.0B)
    "mistral-small-3.1-24b-instruct-2503": (24e9, "Mistral AI, Mistral Small 3.1 announcement"),
}

#: Vision encoders and projectors a published total includes, counted by hand from the config's vision_config.
#: Llama 4 (llama4_vision_model): 34 layers of 4·1408² attention and a 2·1408·5632 GELU MLP with biases and two
#: LayerNorms (23.8M each, 809M), the pixel-shuffle adapter 5632·4096 + 4096·4096 (39.8M), the projector 4096·5120
#: (21.0M), the 14·14·3·1408 patch embedding and 577·1408 positions (1.6M): 0.872B. Pixtral (Mistral Small 3.1): 24
#: layers of 4·1024² attention and a 3·1024·4096 SiLU-gated MLP (16.8M each, 403M), the patch merger 4096·1024 and the
#: projector 1024·5120 + 5120·5120 (35.7M), the 14·14·3·1024 patch embedding (0.6M): 0.439B.
#: Qwen2.5-VL's ViT: 32 blocks of 4·1280² attention with biases and a 3·1280·3420 SiLU-gated MLP (19.7M each, 630M),
#: the patch merger 5120·5120 + 5120·3584 (44.6M), the 2·14·14·3·1280 patch embedding (1.5M): 0.676B.
VISION: dict[str, float] = {
    "llama-4-scout-17b-16e-instruct": 0.872e9,
    "mistral-small-3.1-24b-instruct-2503": 0.439e9,
    "qwen2.5-vl-7b-instruct": 0.676e9,
}


def test_every_config_file_has_its_published_figure() -> None:
    """A config file added without a published figure would escape the check below."""
    files = {path.stem for path in DATA.glob("*.json")}
    refused = {"llama-4-maverick-17b-128e-instruct", "llava-1.5-7b-hf"}
    assert files == set(PUBLISHED) | refused


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_count_within_one_percent(name: str) -> None:
    model = ModelSpec.from_config(_config(name))
    published, _source = PUBLISHED[name]
    assert (model.num_params + VISION.get(name, 0.0)) / published == pytest.approx(1.0, abs=0.01)


def test_gemma3_12b_head_width_is_gemma3s_default() -> None:
    """google/gemma-3-12b-it's text_config states 16 heads of 8 K/V heads but no head_dim: Gemma3TextConfig's 256,
    not 3840 / 16 = 240 (it was read as 240: 11.62B, 1.2 % short of the report's 11.77B). By hand: per layer Q and
    O 3840 x 4096, K and V 3840 x 2048, a 3 x 3840 x 15360 gated MLP, 2 RMSNorms; 262208 x 3840 tied embeddings."""
    model = ModelSpec.from_config(_config("gemma-3-12b-it"))
    h = 3840
    layer = 2 * h * 16 * 256 + 2 * h * 8 * 256 + 3 * h * 15360 + 2 * h
    assert model.head_dim == 256
    assert model.num_params == 48 * layer + 262208 * h + h


def test_gemma3_4b_reads_its_class_defaults() -> None:
    """google/gemma-3-4b-it's text_config states no heads at all (Gemma3TextConfig: 8 heads, 4 K/V heads of 256); it
    was refused for a missing num_attention_heads. By hand: 34 layers of Q and O 2560 x 2048, K and V 2560 x 1024, a
    3 x 2560 x 10240 MLP; the report's 3,209M non-embedding parameters."""
    model = ModelSpec.from_config(_config("gemma-3-4b-it"))
    h = 2560
    layer = 2 * h * 2048 + 2 * h * 1024 + 3 * h * 10240 + 2 * h
    assert (model.heads, model.kv_heads, model.head_dim) == (8, 4, 256)
    assert model.num_params == 34 * layer + 262208 * h + h
    assert round((34 * layer) / 1e6) == 3209


def test_mistral3_text_config_is_untied() -> None:
    """mistralai/Mistral-Small-3.1-24B-Instruct-2503's text_config (model_type mistral) states no
    tie_word_embeddings: MistralConfig's default is False, a 131072 x 5120 output layer of its own. It was read as tied
    (22.90B, with its vision encoder 23.34B: 2.7 % short of 24B)."""
    model = ModelSpec.from_config(_config("mistral-small-3.1-24b-instruct-2503"))
    h = 5120
    layer = 2 * h * 4096 + 2 * h * 1024 + 3 * h * 32768 + 2 * h
    assert model.tied_embeddings is False
    assert model.num_params == 40 * layer + 2 * 131072 * h + h


@pytest.mark.parametrize(
    ("config", "tied"),
    [
        ({"model_type": "llama"}, False),  # LlamaConfig(tie_word_embeddings=False)
        ({"model_type": "qwen2"}, False),  # Qwen2Config
        ({"model_type": "gpt_neox"}, False),  # GPTNeoXConfig
        ({"model_type": "gemma2"}, True),  # Gemma2Config
        ({"model_type": "gpt2"}, True),  # PretrainedConfig
        ({"model_type": "llama", "tie_word_embeddings": True}, True),  # stated: kept
    ],
)
def test_absent_tie_takes_the_config_class_default(config: dict[str, Any], tied: bool) -> None:
    keys = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
            "vocab_size": 1000, "max_position_embeddings": 128}  # fmt: skip
    assert ModelSpec.from_config({**keys, **config}).tied_embeddings is tied


def test_text_config_without_tie_takes_the_outer_flag() -> None:
    """llava-hf's configs state tie_word_embeddings beside text_config, not in it (transformers reads the composite
    config's flag): the outer false is read when the text_config states none."""
    text = {"model_type": "gemma2", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 1000, "max_position_embeddings": 128}  # fmt: skip
    assert ModelSpec.from_config({"text_config": text}).tied_embeddings is True
    assert ModelSpec.from_config({"text_config": text, "tie_word_embeddings": False}).tied_embeddings is False
    inner = {**text, "tie_word_embeddings": True}
    assert ModelSpec.from_config({"text_config": inner, "tie_word_embeddings": False}).tied_embeddings is True


def test_llama4_moe_layers_list_is_read() -> None:
    """Llama4TextConfig takes ``moe_layers`` before ``interleave_moe_layer_step``: a Scout config whose list names
    every other layer (Maverick's spacing) without the step key was read as MoE in all 48 layers (107.8B). Now it is
    refused naming the key; a list of the last layers sets the dense layers first."""
    config = _config("llama-4-scout-17b-16e-instruct")
    spaced = copy.deepcopy(config)
    del spaced["text_config"]["interleave_moe_layer_step"]
    spaced["text_config"]["moe_layers"] = list(range(1, 48, 2))
    refusal = r"'moe_layers' = \[1, 3, 5, .*must be the last ones, \[k, k \+ 1, \.\.\., 47\]"
    with pytest.raises(ValueError, match=refusal):
        ModelSpec.from_config(spaced)
    i18n.set_language("zh")
    with pytest.raises(ValueError, match=r"模型配置的 'moe_layers' = .*必须是最后连续的几层"):
        ModelSpec.from_config(spaced)
    i18n.set_language("en")
    later = copy.deepcopy(config)
    later["text_config"]["moe_layers"] = list(range(2, 48))
    model = ModelSpec.from_config(later)
    assert (model.first_k_dense, model.moe_layers) == (2, 46)
    for bad in ([], [47, 47], "all", [True] * 48):
        odd = copy.deepcopy(config)
        odd["text_config"]["moe_layers"] = bad
        with pytest.raises(ValueError, match="'moe_layers'"):
            ModelSpec.from_config(odd)


def test_llama4_maverick_and_a_partial_llava_are_refused_by_key() -> None:
    """Maverick's interleaved MoE layers (interleave_moe_layer_step 2) and llava-1.5's text_config, which states only
    the keys that differ from LlamaConfig's defaults, are refused naming the key, never planned with guessed values."""
    with pytest.raises(ValueError, match="'interleave_moe_layer_step' = 2"):
        ModelSpec.from_config(_config("llama-4-maverick-17b-128e-instruct"))
    with pytest.raises(ValueError, match="no key 'num_hidden_layers'"):
        ModelSpec.from_config(_config("llava-1.5-7b-hf"))


@pytest.mark.parametrize(("name", "bits"), [("gpt-oss-20b", 4)])
def test_quantized_note_names_the_width_of_a_method_without_bits(name: str, bits: int) -> None:
    """gpt-oss's quantization_config states quant_method mxfp4 and no bits: the note said "? bits" ("? 位"). MXFP4's
    elements are 4-bit E2M1 (OCP Microscaling Formats spec v1.0)."""
    config = _config(name)
    model = ModelSpec.from_config(config)
    assert f'quant_method="mxfp4", {bits} bits' in model.source and "?" not in model.source
    i18n.set_language("zh")
    assert f"{bits} 位" in ModelSpec.from_config(config).source
    unknown = {**config, "quantization_config": {"quant_method": "compressed-tensors"}}
    i18n.set_language("en")
    source = ModelSpec.from_config(unknown).source
    assert 'quant_method="compressed-tensors")' in source and "?" not in source


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_plan_training_and_serving(name: str) -> None:
    """Both command lines plan each config: exit 0, strict JSON (no NaN token), the model's parameters as the spec."""
    path = str(DATA / f"{name}.json")
    expected = ModelSpec.from_config(_config(name)).num_params
    training = ["plan", "--model-config", path, "--cluster", "h100-8", "--nodes", "4", "--global-batch", "64",
                "--seq-len", "4096", "--json", "--top", "1"]  # fmt: skip
    serving = ["plan", "--mode", "serving", "--model-config", path, "--cluster", "h100-8", "--concurrency", "8",
               "--prompt-tokens", "1024", "--output-tokens", "128", "--json", "--top", "1"]  # fmt: skip
    for argv in (training, serving):
        status, out, err = _cli(argv)
        assert status == 0, err
        result = json.loads(out, parse_constant=_no_constant)
        assert result["top"], argv
        spec = result["model_spec"] if "model_spec" in result else result["model"]
        assert ModelSpec(**spec).num_params == expected  # the spec the JSON states is the one read


# -- part 2: arrays given to the array-generic formulas ----------------------------------------------------------

_LLAMA = MODELS["llama3-8b"]
_MIXTRAL = MODELS["mixtral-8x7b"]
_WORKLOAD = WorkloadSpec(global_batch=8, seq_len=4096)


def _gathered(etp: Any) -> Any:
    return expert_tp_gathered_tokens(_MIXTRAL, _WORKLOAD, 4096, 1, etp, 2)


#: (label, the call with one argument v, valid values of v, whether v is an integer column). Each call's array
#: argument is the one named in the label; the other arguments are fixed numbers.
ARRAY_CASES: list[tuple[str, Callable[[Any], Any], list[float], bool]] = [
    ("attention_kernel_tokens(s)", lambda v: attention_kernel_tokens(v, 2), [4096, 8192, 1], False),
    ("attention_kernel_tokens(cp)", lambda v: attention_kernel_tokens(8192, v), [1, 2, 8], False),
    ("attention_core_weight(cp)", lambda v: attention_core_weight(_WORKLOAD, 8192, v), [1, 2, 8], False),
    ("attention_kernel_rate(cp)", lambda v: attention_kernel_rate(_WORKLOAD, 8192, v), [1, 2, 8], False),
    ("ep_dispatched_tokens(tokens)", lambda v: ep_dispatched_tokens(_WORKLOAD, v, 2, 1), [4096, 1, 100], False),
    ("ep_dispatched_tokens(tp)", lambda v: ep_dispatched_tokens(_WORKLOAD, 4096, v, 1), [1, 2, 8], False),
    ("expert_tp_gathered_tokens(etp)", _gathered, [1, 2, 4], False),
    ("chunks_divide_stages(v)", lambda v: chunks_divide_stages(8, 8, 8, 4, 0, v), [1, 2, 3], True),
    ("kv_heads_split(tp)", lambda v: kv_heads_split(8, v), [1, 2, 16], True),
    ("edge_layers_at(pp)", lambda v: edge_layers_at(126, v, None), [1, 2, 16], True),
    ("stage_layer_counts(pp)", lambda v: stage_layer_counts(32, v), [1, 2, 8], True),
    ("stage_layer_counts(layers)", lambda v: stage_layer_counts(v, 4), [32, 8, 100], True),
    ("ModelSpec.kv_width_per_rank(tp)", lambda v: _LLAMA.kv_width_per_rank(v), [1, 2, 16], True),
    ("ModelSpec.kv_cache_elements_per_token(tp)", lambda v: _LLAMA.kv_cache_elements_per_token(v), [1, 2, 16], True),
    ("ModelSpec.attention_span(seq_len)", lambda v: _LLAMA.attention_span(v), [1024, 8192, 3], False),
    ("ModelSpec.attended_keys(position)", lambda v: _LLAMA.attended_keys(v), [1, 5000, 8192], False),
    ("ModelSpec.decode_keys(prompt)", lambda v: _LLAMA.decode_keys(v, 128), [1, 5000, 8192], False),
    ("ModelSpec.kv_token_layers(pp)", lambda v: _LLAMA.kv_token_layers(8192, v), [1, 2, 7], True),
    ("ModelSpec.logits_bytes(shards)", lambda v: _LLAMA.logits_bytes(4096, v), [1, 2, 8], False),
    ("ModelSpec.stage_layer_kinds(pp)", lambda v: _MIXTRAL.stage_layer_kinds(v), [1, 2, 8], True),
    ("ModelSpec.stage_dense_params(pp)", lambda v: _MIXTRAL.stage_dense_params(v), [1, 2, 8], True),
]
_IDS = [case[0] for case in ARRAY_CASES]


def _leaves(value: Any) -> list[Any]:
    """The numbers or arrays of a result, a nested tuple flattened."""
    if isinstance(value, tuple):
        return [leaf for part in value for leaf in _leaves(part)]
    return [value]


def _at(result: Any, index: tuple[int, ...]) -> list[float]:
    return [float(np.asarray(leaf)[index]) if np.ndim(leaf) else float(leaf) for leaf in _leaves(result)]


def _scalar(call: Callable[[Any], Any], value: float, integer: bool) -> list[float]:
    return [float(leaf) for leaf in _leaves(call(int(value) if integer else float(value)))]


@pytest.mark.parametrize(("label", "call", "values", "integer"), ARRAY_CASES, ids=_IDS)
@pytest.mark.parametrize("dtype", ["int64", "float64"])
@pytest.mark.parametrize("shape", [(3,), (3, 1), (1, 3)])
def test_an_array_gives_the_scalar_calls_element_by_element(
    label: str, call: Callable[[Any], Any], values: list[float], integer: bool, dtype: str, shape: tuple[int, ...]
) -> None:
    column = np.asarray(values, dtype=dtype).reshape(shape)
    result = call(column)
    for index in np.ndindex(*shape):
        assert _at(result, index) == pytest.approx(_scalar(call, column[index], integer), rel=1e-12), (label, index)
    if integer and dtype == "float64":  # a 0-d array is one number, and a float is no degree (as np.float64(2.0))
        with pytest.raises(TypeError, match="must be an integer"):
            call(np.asarray(values[1], dtype=dtype))
    else:
        zero_d = call(np.asarray(values[1], dtype=dtype))
        assert _at(zero_d, ()) == pytest.approx(_scalar(call, values[1], integer), rel=1e-12)
    empty = call(np.asarray([], dtype=dtype))
    assert all(np.size(leaf) in (0, 1) for leaf in _leaves(empty)), label  # nothing computed, nothing refused


#: Values a number alone is refused for, in a column: each must be refused too, naming the element. Before, the
#: column was computed through: tp = 0 divided by zero (a RuntimeWarning and inf), NaN and -1 gave numbers, and
#: 2**62 gave 1.8e-15 tokens.
BAD_ELEMENTS: list[tuple[str, float]] = [("nan", math.nan), ("inf", math.inf), ("zero", 0), ("negative", -1),
                                         ("huge", 2.0**62)]  # fmt: skip


@pytest.mark.parametrize(("label", "call", "values", "integer"), ARRAY_CASES, ids=_IDS)
@pytest.mark.parametrize(("kind", "bad"), BAD_ELEMENTS, ids=[b[0] for b in BAD_ELEMENTS])
def test_an_element_a_number_is_refused_for_is_refused_in_a_column(
    label: str, call: Callable[[Any], Any], values: list[float], integer: bool, kind: str, bad: float
) -> None:
    with pytest.raises((TypeError, ValueError)):  # the element alone: the rule the column must keep
        call(bad if not integer or not math.isfinite(bad) else int(bad))
    dtype = "int64" if integer and math.isfinite(bad) else "float64"
    column = np.asarray([values[0], bad], dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a division by zero inside numpy is no refusal
        with pytest.raises(ValueError, match=r"\[1\] = "):
            call(column)
    i18n.set_language("zh")
    with pytest.raises(ValueError, match=r"\[1\] = .*[\u4e00-\u9fff]"):
        call(column)


@pytest.mark.parametrize(("label", "call", "values", "integer"), ARRAY_CASES, ids=_IDS)
def test_masked_bool_object_and_narrow_arrays_are_refused_by_name(
    label: str, call: Callable[[Any], Any], values: list[float], integer: bool
) -> None:
    """A masked array was computed with its masked entries as numbers (ModelSpec.attention_span gave 21.0 for
    8192); a bool array divided by False. Each is refused with a TypeError, as are object, int32 and float32 arrays."""
    dtype = "int64" if integer else "float64"
    for column in (
        np.ma.masked_array(np.asarray(values, dtype=dtype), mask=[False, True, False]),
        np.asarray([True, False]),
        np.asarray(values, dtype=object),
        np.asarray(values, dtype="int32"),
        np.asarray(values, dtype="float32"),
    ):
        with pytest.raises(TypeError):
            call(column)


@pytest.mark.parametrize(
    ("call", "names"),
    [
        (lambda: kv_heads_split(np.array([8, 8, 4]), np.array([1, 2])), "kv_heads, tp"),
        (lambda: stage_layer_counts(np.array([32, 64, 8]), np.array([1, 2])), "layers, pp"),
        (lambda: _LLAMA.decode_keys(np.array([100.0, 200, 300]), np.array([10.0, 20])), "prompt, output"),
        (lambda: _LLAMA.kv_token_layers(np.array([100.0, 200, 300]), np.array([1, 2])), "tokens, pp"),
        (lambda: _LLAMA.logits_bytes(np.array([100.0, 200, 300]), np.array([1.0, 2])), "tokens, shards"),
        (lambda: _MIXTRAL.stage_layer_kinds(np.array([1, 2, 4]), np.array([0, 1])), "pp, edge_layers"),
        (lambda: chunks_divide_stages(np.array([8, 8, 8]), 8, 8, np.array([4, 2]), 0, 1), "first, pp"),
        # the estimate's array-generic helpers (their _guarded wrapper)
        (lambda: attention_kernel_tokens(np.array([4096, 8192]), np.array([1, 2, 4])), "s, cp"),
        (
            lambda: attention_core_weight(WorkloadSpec(global_batch=8), np.array([4096, 8192]), np.array([1, 2, 4])),
            "s, cp",
        ),
        (
            lambda: attention_kernel_rate(WorkloadSpec(global_batch=8), np.array([4096, 8192]), np.array([1, 2, 4])),
            "s, cp",
        ),
        (
            lambda: ep_dispatched_tokens(WorkloadSpec(global_batch=8), np.array([1.0, 2, 3]), np.array([1, 2]), 1),
            "tokens, tp",
        ),
        (
            lambda: expert_tp_gathered_tokens(
                _MIXTRAL, WorkloadSpec(global_batch=8), np.array([1.0, 2, 3]), np.array([1, 2]), 1, 8
            ),
            "tokens, tp",
        ),
    ],
)
def test_columns_that_do_not_line_up_are_named(call: Callable[[], Any], names: str) -> None:
    """numpy's own "operands could not be broadcast together with shapes (3,) (2,)" named no parameter and stayed
    English in a Chinese lesson."""
    with pytest.raises(ValueError, match=f"^{names} have shapes"):
        call()
    i18n.set_language("zh")
    with pytest.raises(ValueError, match=f"^{names} 的形状"):
        call()


def test_an_int64_token_column_does_not_wrap_in_the_logits_bytes() -> None:
    """4 bytes · 2**50 tokens · 128256 words = 5.78e20 bytes (Python's ints, by hand); an int64 column wrapped past
    2**63 and gave 5.76e18 without a word."""
    expected = 4 * 2**50 * 128256
    assert _LLAMA.logits_bytes(2**50) == pytest.approx(expected, rel=1e-15)
    column = _LLAMA.logits_bytes(np.array([2**50, 4096], dtype=np.int64))
    assert column.tolist() == pytest.approx([expected, 4 * 4096 * 128256], rel=1e-15)


def test_columns_that_broadcast_still_give_the_scalar_calls() -> None:
    heads, tp = np.array([8, 8, 4]), np.array([[1], [2]])
    grid = kv_heads_split(heads, tp)
    assert grid.tolist() == [[kv_heads_split(int(h), int(t)) for h in heads] for t in tp[:, 0]]


# -- part 3: the command lines in hostile environments --------------------------------------------------------------

_PLAN = ["plan", "--model", "llama3-8b", "--cluster", "h100-8", "--global-batch", "64", "--top", "1"]
_SERVE = ["plan", "--mode", "serving", "--model", "llama3-8b", "--cluster", "h100-8", "--concurrency", "8", "--top",
          "1"]  # fmt: skip


@pytest.mark.parametrize(
    ("spelling", "lang"),
    [("ZH", "zh"), ("zh_CN", "zh"), ("zh-Hans", "zh"), ("zh_CN.UTF-8", "zh"), ("en_US.UTF-8", "en"), ("EN", "en")],
)
@pytest.mark.parametrize("argv", [_PLAN, _SERVE], ids=["training", "serving"])
def test_lang_takes_the_obvious_spellings(argv: list[str], spelling: str, lang: str) -> None:
    """``--lang zh_CN`` was refused ("invalid choice: 'zh_CN' (choose from 'zh', 'en')") although COURSEKIT_LANG
    reads the same locale name as zh; now both read it."""
    status, out, err = _cli([*argv, "--lang", spelling])
    assert status == 0, err
    assert bool(re.search(r"[\u4e00-\u9fff]", out)) is (lang == "zh")
    status, out_before, _ = _cli(["--lang=" + spelling, *argv])
    assert status == 0 and out_before.splitlines()[0] == out.splitlines()[0]


@pytest.mark.parametrize("spelling", ["fr", "", "chinese"])
def test_lang_refuses_what_names_no_course_language(spelling: str) -> None:
    status, out, err = _cli([*_PLAN, "--lang", spelling])
    assert (status, out) == (2, "")
    assert f"invalid choice: '{spelling}'" in err and "Traceback" not in err


def test_lab_and_lessons_take_the_spellings_too(tmp_path: Path) -> None:
    from coursekit.lab.cli import main as lab_main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            status = lab_main(["--lang", "zh_CN", "--help"])
        except SystemExit as exc:
            status = exc.code
    assert status == 0 and out.getvalue().startswith("用法")
    status, _, err = _cli(["lessons", str(tmp_path / "copy"), "--lang", "ZH"])
    assert status == 0, err
    assert (tmp_path / "copy" / "notebooks" / "zh").is_dir() and not (tmp_path / "copy" / "notebooks" / "en").exists()


def _run(argv: list[str], env: dict[str, str | None], cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    environment = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_CTYPE", "COURSEKIT_LANG")}
    environment["PYTHONPATH"] = str(ROOT)
    for key, value in env.items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    return subprocess.run([sys.executable, *argv], env=environment, cwd=cwd or ROOT, capture_output=True, timeout=120)


@pytest.mark.parametrize(
    "env",
    [
        {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0"},  # an ASCII stdout
        {"PYTHONIOENCODING": "latin-1"},
        {"COLUMNS": "20", "NO_COLOR": "1", "TERM": "dumb"},
        {"COLUMNS": "1000", "HOME": None},
    ],
    ids=["C-locale", "latin-1", "narrow-dumb", "wide-no-home"],
)
@pytest.mark.parametrize(
    "argv",
    [["-m", "coursekit", "--lang", "zh_CN", *_PLAN], ["-m", "coursekit.planner", *_PLAN[1:], "--lang", "ZH"],
     ["-m", "coursekit", *_SERVE, "--lang", "zh", "--json"]],
    ids=["plan", "planner-module", "serving-json"],
)  # fmt: skip
def test_chinese_output_survives_a_hostile_environment(argv: list[str], env: dict[str, str | None]) -> None:
    done = _run(argv, env)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in done.stderr and done.stdout
    if "--json" in argv:
        json.loads(done.stdout, parse_constant=_no_constant)


def test_cut_short_and_closed_stdout_end_quietly() -> None:
    """``| head -1`` and ``>&-``: exit 141 or 0 (the pipe) and 2 (closed) with one line, never a traceback."""
    argv = [sys.executable, "-m", "coursekit", *_PLAN, "--lang", "zh-Hans"]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    reader = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    assert reader.stdout is not None and reader.stderr is not None
    first = reader.stdout.readline()
    reader.stdout.close()  # what head -1 does after its line
    status = reader.wait(timeout=120)
    err = reader.stderr.read()
    reader.stderr.close()
    assert "决策工作台" in first.decode("utf-8") and status in (0, 141) and b"Traceback" not in err
    closed = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment,
                            pass_fds=(), timeout=120, preexec_fn=lambda: os.close(1))  # fmt: skip
    assert closed.returncode == 2 and "标准输出已关闭" in closed.stderr.decode("utf-8")


def test_a_partial_text_config_is_refused_saying_where_it_was_read() -> None:
    """llava-1.5's text_config states only the keys that differ from LlamaConfig's defaults: the refusal named
    num_hidden_layers and sent the reader to "the config.json", whose top level has none to add (the language model
    is read from text_config); it now says so and names the language model's own config, lmsys/vicuna-7b-v1.5."""
    config = _config("llava-1.5-7b-hf")
    hint = r"no key 'num_hidden_layers'.*read from its text_config.*lmsys/vicuna-7b-v1.5"
    with pytest.raises(ValueError, match=hint):
        ModelSpec.from_config(config)
    i18n.set_language("zh")
    with pytest.raises(ValueError, match=r"缺少键 'num_hidden_layers'.*text_config 里读取.*lmsys/vicuna-7b-v1.5"):
        ModelSpec.from_config(config)
    i18n.set_language("en")
    top = {"num_hidden_layers": 2, "hidden_size": 8, "text_config": {"hidden_size": 8}}  # the top level is read
    with pytest.raises(ValueError, match=r"no key 'num_attention_heads'.*other names\.$"):
        ModelSpec.from_config(top)
