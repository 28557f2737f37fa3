"""A config.json whose values the spec refuses: the error names the config key the value was read from.

Before, ``ModelSpec.from_config`` let the spec's own check through, naming the spec's field (``hidden = ...``); a
learner holding a config.json has no key ``hidden`` (it is ``hidden_size``, ``n_embd`` or ``d_model``). The rules are
the spec's: a width at most 2**20 = 1048576, heads dividing the hidden size, key/value heads dividing the heads,
top-k between 1 and the number of experts.
"""

from __future__ import annotations

from typing import Any

import pytest

import coursekit
from coursekit.planner import ModelSpec

BASE: dict[str, Any] = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 128,
    "vocab_size": 100,
    "max_position_embeddings": 16,
}


@pytest.mark.parametrize(
    ("change", "key", "field", "rule_en", "rule_zh"),
    [
        ({"hidden_size": 2**20 + 1}, "hidden_size", "hidden", "must be <= 1048576", "必须 <= 1048576"),
        ({"n_embd": 2**20 + 1, "hidden_size": None}, "n_embd", "hidden", "must be <= 1048576", "必须 <= 1048576"),
        ({"num_attention_heads": 3}, "num_attention_heads", "heads", "must divide hidden = 64", "必须整除 hidden = 64"),
        (
            {"num_attention_heads": 4, "num_key_value_heads": 3},
            "num_key_value_heads",
            "kv_heads",
            "must divide heads = 4",
            "必须整除 heads = 4",
        ),
        ({"num_local_experts": 4, "num_experts_per_tok": 5}, "num_experts_per_tok", "top_k", "num_experts = 4", "1 到"),
    ],
)
def test_a_refused_value_names_its_config_key_in_both_languages(
    change: dict[str, Any], key: str, field: str, rule_en: str, rule_zh: str
) -> None:
    config = {k: v for k, v in {**BASE, **change}.items() if v is not None}
    previous = coursekit.get_language()
    try:
        for lang, head, rule in (
            ("en", f"config key {key!r} (read as the spec's {field})", rule_en),
            ("zh", f"配置键 {key!r}（读作规格的 {field}）", rule_zh),
        ):
            coursekit.set_language(lang)
            with pytest.raises(ValueError) as info:
                ModelSpec.from_config(config)
            assert str(info.value).startswith(head) and rule in str(info.value)
    finally:
        coursekit.set_language(previous)


def test_the_command_line_names_the_key_too(tmp_path: Any, capsys: Any) -> None:
    from coursekit.__main__ import main

    path = tmp_path / "config.json"
    path.write_text('{"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 3, "intermediate_size": 128, '
                    '"vocab_size": 100, "max_position_embeddings": 16}', encoding="utf-8")  # fmt: skip
    with pytest.raises(SystemExit) as info:
        main(["plan", "--model-config", str(path), "--cluster", "h100-8", "--global-batch", "8", "--lang", "en"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "config key 'num_attention_heads' (read as the spec's heads)" in err and "Traceback" not in err
