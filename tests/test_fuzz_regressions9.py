"""Inputs a ninth adversarial fuzzing pass found wrong, each with the behaviour the project's rules ask for.

The rules: bad input is a ``TypeError`` / ``ValueError`` naming the parameter, the value and the rule in the learner's
language (never a ``ZeroDivisionError`` or a negative count); a count is an ``int``, never a bool; a config key that
sets a spec field is refused when malformed rather than read as absent; array inputs stay accepted. The expected
values below follow from those rules and from hand sums of the docstrings' formulas, not from running the code.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from coursekit.__main__ import main
from coursekit.planner import ModelSpec
from tests.model_configs import GEMMA_3_27B
from tests.test_fuzz_regressions8 import _refusal, zh  # noqa: F401 (zh: the fixture setting Chinese)

CJK = re.compile(r"[\u4e00-\u9fff]")

#: 2 layers, one of them with a 4-token window (the docstring's example model).
SWA = ModelSpec("swa", layers=2, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8192, window_tokens=4,
                window_layers=1)  # fmt: skip
#: 4 layers, 2 of them with a 128-token window.
SWA4 = ModelSpec("swa4", layers=4, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8192, window_tokens=128,
                 window_layers=2)  # fmt: skip

#: mistralai/Mistral-7B-v0.1's config.json (the keys the planner reads): a 4096-token window on every layer.
MISTRAL_7B = {
    "model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 32768,
    "sliding_window": 4096, "tie_word_embeddings": False,
}  # fmt: skip
#: A Qwen2-7B-shaped config with its window switched on from layer 14 (use_sliding_window, max_window_layers).
QWEN2_WINDOWED = {
    "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
    "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 32768,
    "sliding_window": 4096, "use_sliding_window": True, "max_window_layers": 14,
}  # fmt: skip


# --------------------------------------------------------------------------- the window methods check a scalar


@pytest.mark.parametrize(
    ("call", "kind", "start"),
    [
        (lambda: SWA.attention_span(0), ValueError, "seq_len = 0"),  # was ZeroDivisionError (0 causal pairs)
        (lambda: SWA.attention_span(-0.0), ValueError, "seq_len = -0.0"),  # was ZeroDivisionError too
        (lambda: SWA.attention_span(True), TypeError, "seq_len = True"),  # was 1.0
        (lambda: SWA.attention_span(float("nan")), ValueError, "seq_len = nan"),  # was nan
        (lambda: SWA.attention_span("8"), TypeError, "seq_len = '8'"),  # was "can't multiply sequence"
        (lambda: SWA4.attended_keys(-1), ValueError, "position = -1"),  # was -1.0 keys
        (lambda: SWA4.attended_keys(float("inf")), ValueError, "position = inf"),
        (lambda: SWA4.kv_token_layers(-1), ValueError, "tokens = -1"),  # was -4 token-layers
        (lambda: SWA4.kv_token_layers(100, pp=0), ValueError, "pp = 0"),  # was ZeroDivisionError
        (lambda: SWA4.kv_token_layers(100, pp=5), ValueError, "pp = 5"),  # 4 layers: a stage without a layer
        (lambda: SWA4.kv_token_layers(100, requests=0), ValueError, "requests = 0"),  # was 200
        (lambda: SWA4.kv_token_layers(100, requests=True), TypeError, "requests = True"),  # was 400, as 1 request
        (lambda: SWA4.kv_token_layers(100, requests=1.5), TypeError, "requests = 1.5"),
    ],
)
def test_the_window_methods_refuse_a_nonsense_scalar(call: Any, kind: type[Exception], start: str) -> None:
    assert _refusal(call, kind).startswith(start + ":")


@pytest.mark.usefixtures("zh")
def test_a_window_method_refuses_in_the_learners_language() -> None:
    message = _refusal(lambda: SWA.attention_span(0), ValueError)
    assert message.startswith("seq_len = 0") and CJK.search(message)


def test_the_window_methods_still_take_arrays() -> None:
    # s = 8: window pairs 1+2+3+4·5 = 26 of 36 causal -> span 8·26/36; mean with the full layer's 8
    # s = 16: window pairs 1+2+3+4·13 = 58 of 136 -> span 16·58/136
    spans = SWA.attention_span(np.array([8, 16]))
    assert np.allclose(spans, [(8 + 8 * 26 / 36) / 2, (16 + 16 * 58 / 136) / 2])
    # two full layers keep every token, two window layers min(tokens, 128): 2·t + 2·min(t, 128)
    assert SWA4.kv_token_layers(np.array([100, 1000])).tolist() == [400, 2256]


def test_minus_zero_tokens_are_zero_token_layers() -> None:
    layers = SWA4.kv_token_layers(-0.0)
    assert layers == 0 and math.copysign(1.0, layers) == 1.0


@pytest.mark.parametrize("serving", ["yes", 1, None])
def test_window_note_refuses_a_serving_flag_that_is_no_bool(serving: Any) -> None:
    """Before, any value was taken by its truth: ``serving="no"`` gave the serving note."""
    assert _refusal(lambda: SWA4.window_note(100, serving=serving), TypeError).startswith(f"serving = {serving!r}:")


# --------------------------------------------------------------------------- ModelSpec.replace derives again


BASE = ModelSpec("m", layers=2, hidden=1024, heads=16, ffn_hidden=4096, vocab=1000, seq_len=128)  # head_dim 64


def test_replace_derives_the_head_width_again() -> None:
    """``dataclasses.replace(BASE, hidden=2048)`` keeps head_dim 64 (1024 / 16), so 16 heads of 64 no longer span
    the 2048-wide hidden state; :meth:`ModelSpec.replace` divides again: 2048 / 16 = 128."""
    assert dataclasses.replace(BASE, hidden=2048).head_dim == 64  # the documented behaviour it works around
    wide = BASE.replace(hidden=2048)
    assert (wide.head_dim, wide.qk_nope_head_dim, wide.v_head_dim) == (128, 128, 128)


def test_replace_keeps_mha_when_the_heads_change() -> None:
    fewer = BASE.replace(heads=8)  # kv_heads was heads (16): still as many as the heads, and 1024 / 8 = 128 wide
    assert (fewer.kv_heads, fewer.head_dim, fewer.attention_kind) == (8, 128, "mha")


def test_replace_of_the_head_width_moves_the_value_and_key_widths() -> None:
    """``dataclasses.replace(BASE, head_dim=128)`` is refused: it copies v_head_dim 64, an MLA-only width now."""
    with pytest.raises(ValueError, match="MLA"):
        dataclasses.replace(BASE, head_dim=128)
    wider = BASE.replace(head_dim=128)
    assert (wider.head_dim, wider.qk_nope_head_dim, wider.v_head_dim) == (128, 128, 128)


def test_replace_keeps_the_widths_given_explicitly() -> None:
    gqa = ModelSpec("g", layers=2, hidden=1024, heads=16, ffn_hidden=4096, vocab=1000, seq_len=128, kv_heads=4,
                    head_dim=128)  # fmt: skip  # Gemma-style: 16 · 128 != 1024
    copy = gqa.replace(hidden=2048, heads=32)
    assert (copy.kv_heads, copy.head_dim) == (4, 128)


# --------------------------------------------------------------------------- config.json window keys


@pytest.mark.parametrize(
    ("base", "key", "value"),
    [
        (MISTRAL_7B, "sliding_window", "4096"),  # was read as no window
        (MISTRAL_7B, "sliding_window", 4096.5),  # 4096.0, an integer value, is read as 4096
        (MISTRAL_7B, "sliding_window", True),
        (MISTRAL_7B, "use_sliding_window", "true"),
        (QWEN2_WINDOWED, "use_sliding_window", "false"),  # was read as on: a window on 14 layers
        (QWEN2_WINDOWED, "use_sliding_window", 0),
        (QWEN2_WINDOWED, "max_window_layers", 14.5),  # was read as absent; 14.0 is read as 14
        (QWEN2_WINDOWED, "max_window_layers", -1),
        (GEMMA_3_27B, "sliding_window_pattern", "6"),  # was read as absent: every layer windowed
        (GEMMA_3_27B, "sliding_window_pattern", 0),
        (GEMMA_3_27B, "layer_types", "sliding_attention"),  # was ignored
        (GEMMA_3_27B, "layer_types", ["sliding_attention"] * 5),  # 5 entries for 62 layers: was a window on 5
        (GEMMA_3_27B, "layer_types", [1] * 62),
    ],
)
def test_a_malformed_window_key_is_refused_naming_it(base: dict[str, Any], key: str, value: Any) -> None:
    message = _refusal(lambda: ModelSpec.from_config({**base, key: value}), ValueError)
    assert f"'{key}'" in message, message


@pytest.mark.parametrize(
    ("config", "window"),
    [
        ({**MISTRAL_7B, "sliding_window": None}, (None, 0)),  # null: no window
        ({**MISTRAL_7B, "sliding_window": False}, (None, 0)),
        ({**MISTRAL_7B, "sliding_window": 0}, (None, 0)),  # 0 and -1: engines' "no window"
        ({**MISTRAL_7B, "sliding_window": -1}, (None, 0)),
        ({**QWEN2_WINDOWED, "use_sliding_window": False, "max_window_layers": "x"}, (None, 0)),  # off: not read
        (MISTRAL_7B, (4096, 32)),
        (QWEN2_WINDOWED, (4096, 28 - 14)),
        ({**GEMMA_3_27B, "layer_types": ["sliding_attention"] * 50 + ["full_attention"] * 12}, (1024, 50)),
    ],
)
def test_well_formed_window_keys_are_still_read(config: dict[str, Any], window: tuple[Any, int]) -> None:
    spec = ModelSpec.from_config(config)
    assert (spec.window_tokens, spec.window_layers) == window


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_command_line_refuses_a_malformed_window_key_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**GEMMA_3_27B, "sliding_window": "1024"}), encoding="utf-8")
    argv = ["plan", "--mode", "serving", "--model-config", str(path), "--cluster", "h100-8", "--concurrency", "8"]
    with pytest.raises(SystemExit) as info:
        main([*argv, "--lang", lang])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'sliding_window'" in err and "Traceback" not in err, err
    assert bool(CJK.search(err)) == (lang == "zh"), err
