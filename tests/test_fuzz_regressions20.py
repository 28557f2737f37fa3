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
from pathlib import Path
from typing import Any

import pytest

from coursekit import i18n
from coursekit.__main__ import main as cli_main
from coursekit.model_config import load_model_config
from coursekit.planner import ModelSpec

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
VISION: dict[str, float] = {"llama-4-scout-17b-16e-instruct": 0.872e9, "mistral-small-3.1-24b-instruct-2503": 0.439e9}


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
