"""coursekit.shapes: parameter counts of transformer shapes, against the papers that published them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import coursekit
from coursekit.i18n import Text
from coursekit.shapes import MODEL_SHAPES, ModelShape, model_shape, transformer_params

#: Narayanan et al. 2021 (arXiv:2104.04473), Table 1: model size in billions as printed, per configuration.
MEGATRON_TABLE_1_BILLIONS: dict[str, float] = {
    "megatron-1.7b": 1.7,
    "megatron-3.6b": 3.6,
    "megatron-7.5b": 7.5,
    "megatron-18.4b": 18.4,
    "megatron-39.1b": 39.1,
    "megatron-76.1b": 76.1,
    "megatron-145.6b": 145.6,
}


@pytest.mark.parametrize(("name", "billions"), sorted(MEGATRON_TABLE_1_BILLIONS.items()))
def test_megatron_table_1_sizes(name: str, billions: float) -> None:
    assert round(MODEL_SHAPES[name].num_params / 1e9, 1) == billions


def test_gpt3_is_175b() -> None:
    # Brown et al. 2020 (arXiv:2005.14165), Table 2.1: "GPT-3 175B" with 96 layers, d_model 12288, 96 heads.
    shape = MODEL_SHAPES["gpt3-175b"]
    assert (shape.layers, shape.hidden, shape.heads, shape.head_dim) == (96, 12288, 96, 128)
    assert 174e9 < shape.num_params < 176e9


def test_formula_by_hand() -> None:
    # one layer of h = 2: 12·4 + 13·2 = 74; embeddings (V + s)·h = (10 + 3)·2 = 26
    assert transformer_params(layers=1, hidden=2, vocab_size=10, seq_len=3) == 74 + 26
    assert transformer_params(layers=3, hidden=2) == 3 * 74


@given(
    layers=st.integers(1, 200),
    hidden=st.integers(1, 30_000),
    vocab=st.integers(0, 300_000),
    seq=st.integers(0, 100_000),
)
def test_count_matches_narayanans_form(layers: int, hidden: int, vocab: int, seq: int) -> None:
    # Narayanan et al. 2021, §5.1 write the count as 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)).
    total = transformer_params(layers=layers, hidden=hidden, vocab_size=vocab, seq_len=seq)
    paper_form = 12 * layers * hidden**2 * (1 + 13 / (12 * hidden) + (vocab + seq) / (12 * layers * hidden))
    assert total == pytest.approx(paper_form, rel=1e-12)
    assert transformer_params(layers=layers + 1, hidden=hidden, vocab_size=vocab, seq_len=seq) > total
    assert transformer_params(layers=layers, hidden=hidden + 1, vocab_size=vocab, seq_len=seq) > total


def test_every_shape_is_consistent() -> None:
    for name, shape in MODEL_SHAPES.items():
        assert shape.name == name
        assert shape.hidden % shape.heads == 0
        assert isinstance(shape.label, Text) and shape.label.zh and shape.label.en
        assert shape.source


def test_labels_render_in_both_languages() -> None:
    shape = model_shape("megatron-7.5b")
    assert shape.label.render("en") == "7.5B (Megatron Table 1: 36 layers, h=4096, 32 heads)"
    assert shape.label.render("zh") == "7.5B（Megatron 表 1：36 层，h=4096，32 个头）"


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        ({"layers": 0, "hidden": 8}, ValueError, "layers = 0: must be >= 1."),
        ({"layers": 2, "hidden": 8.0}, TypeError, "hidden = 8.0: must be an integer (int), not float."),
        ({"layers": True, "hidden": 8}, TypeError, "layers = True: must be an integer (int), not bool."),
        ({"layers": 2, "hidden": 8, "vocab_size": -1}, ValueError, "vocab_size = -1: must be >= 0."),
        ({"layers": 2, "hidden": 8, "seq_len": -5}, ValueError, "seq_len = -5: must be >= 0."),
    ],
)
def test_transformer_params_rejects(kwargs: dict[str, Any], exc: type[Exception], message: str) -> None:
    with pytest.raises(exc) as info:
        transformer_params(**kwargs)
    assert str(info.value) == message


def test_shape_rejects_heads_that_do_not_divide_hidden() -> None:
    with pytest.raises(ValueError) as info:
        ModelShape("odd", Text(zh="奇", en="odd"), layers=2, hidden=100, heads=3, vocab_size=0, seq_len=0, source="-")
    assert str(info.value) == "heads = 3: must divide hidden = 100."


def test_unknown_shape_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        model_shape("llama")
    assert str(info.value).startswith("name = 'llama'：必须是")
