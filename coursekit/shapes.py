"""Model shapes: how many parameters a GPT-style transformer of a given shape has.

A capacity ledger starts from a parameter count, and a parameter count comes
from a shape: layers l, hidden size h, vocabulary V and sequence length s
(for learned position embeddings). Narayanan et al. 2021 (arXiv:2104.04473,
§5.1) count ``12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h))`` parameters: per
layer 4h² for Q, K, V and the output projection, 8h² for the two MLP matrices
(4h wide), 13h for their biases and the two layer norms; plus the token and
position embeddings. :data:`MODEL_SHAPES` holds the shapes of the paper's
Table 1 (vocabulary 51,200, sequence 2,048) and GPT-3 175B, so the heads and
layers a lesson uses are those of a real configuration.

>>> MODEL_SHAPES["megatron-7.5b"].num_params
7467778048
>>> round(transformer_params(layers=36, hidden=4096) / 1e9, 2)  # 12·l·h² + 13·l·h only
7.25

Taught in: lesson 1 (Q1 capacity).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ._validate import check_choice, check_divides, check_int, learner_functions
from .i18n import Text

__all__ = ["MODEL_SHAPES", "ModelShape", "model_shape", "transformer_params"]

#: Parameters per layer per h² (attention 4h², MLP 8h²) — Narayanan et al. 2021, §5.1.
PARAMS_PER_LAYER_H2: int = 12
#: Parameters per layer per h (QKV bias 3h, output bias h, MLP biases 4h + h, two layer norms 4h) — ibid.
PARAMS_PER_LAYER_H: int = 13

NARAYANAN_SOURCE: str = (
    "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, "
    "arXiv:2104.04473, Table 1 (vocabulary 51,200, sequence length 2,048) and §5.1 (parameter count)"
)
GPT3_SOURCE: str = "Brown et al., Language Models are Few-Shot Learners, arXiv:2005.14165, Table 2.1 (GPT-3 175B)"

#: Vocabulary and sequence length of every model in Narayanan et al.'s Table 1.
MEGATRON_VOCAB_SIZE: int = 51_200
MEGATRON_SEQ_LEN: int = 2_048
#: GPT-2 / GPT-3 BPE vocabulary and GPT-3's context length (Brown et al. 2020, §2.1-2.2).
GPT3_VOCAB_SIZE: int = 50_257
GPT3_SEQ_LEN: int = 2_048


def transformer_params(*, layers: int, hidden: int, vocab_size: int = 0, seq_len: int = 0) -> int:
    """Parameters of a GPT-style transformer: ``l·(12h² + 13h) + (V + s)·h``.

    Parameters:
        layers: transformer layers l, >= 1.
        hidden: hidden size h, >= 1 (the MLP is 4h wide).
        vocab_size: vocabulary V of the (tied) token embedding, >= 0; 0 leaves it out.
        seq_len: positions s of a learned position embedding, >= 0; 0 leaves it out
            (rotary embeddings have none).

    Narayanan et al. 2021 (arXiv:2104.04473), §5.1. With V = s = 0 this is
    the "12·l·h²" rule of thumb plus the 13·l·h of biases and layer norms.

    >>> transformer_params(layers=1, hidden=1)
    25
    >>> transformer_params(layers=96, hidden=12288, vocab_size=50257, seq_len=2048) // 10**9
    174

    Taught in: lesson 1 (Q1 capacity).
    """
    n_layers = check_int("layers", layers, ge=1)
    h = check_int("hidden", hidden, ge=1)
    v = check_int("vocab_size", vocab_size, ge=0)
    s = check_int("seq_len", seq_len, ge=0)
    return n_layers * (PARAMS_PER_LAYER_H2 * h * h + PARAMS_PER_LAYER_H * h) + (v + s) * h


@dataclass(frozen=True)
class ModelShape:
    """A transformer shape: layers, hidden size, attention heads, vocabulary and trained sequence length.

    ``num_params`` is :func:`transformer_params` of the shape; ``heads`` must
    divide ``hidden`` (head dimension h/a). ``label`` is a bilingual one-line
    description and ``source`` the configuration's citation.

    >>> shape = MODEL_SHAPES["gpt3-175b"]
    >>> shape.layers, shape.hidden, shape.heads, round(shape.num_params / 1e9, 1)
    (96, 12288, 96, 174.6)

    Taught in: lesson 1 (Q1 capacity).
    """

    name: str
    label: Text
    layers: int
    hidden: int
    heads: int
    vocab_size: int
    seq_len: int
    source: str

    def __post_init__(self) -> None:
        check_int("layers", self.layers, ge=1)
        check_int("hidden", self.hidden, ge=1)
        check_int("heads", self.heads, ge=1)
        check_int("vocab_size", self.vocab_size, ge=0)
        check_int("seq_len", self.seq_len, ge=0)
        check_divides("heads", self.heads, "hidden", self.hidden)

    @property
    def num_params(self) -> int:
        """Parameters of the whole model, counted by :func:`transformer_params`."""
        return transformer_params(
            layers=self.layers, hidden=self.hidden, vocab_size=self.vocab_size, seq_len=self.seq_len
        )

    @property
    def head_dim(self) -> int:
        """Width of one attention head, ``hidden // heads``."""
        return self.hidden // self.heads


def _megatron(billions: str, heads: int, hidden: int, layers: int) -> ModelShape:
    return ModelShape(
        name=f"megatron-{billions}b",
        label=Text(
            zh=f"{billions}B（Megatron 表 1：{layers} 层，h={hidden}，{heads} 个头）",
            en=f"{billions}B (Megatron Table 1: {layers} layers, h={hidden}, {heads} heads)",
        ),
        layers=layers,
        hidden=hidden,
        heads=heads,
        vocab_size=MEGATRON_VOCAB_SIZE,
        seq_len=MEGATRON_SEQ_LEN,
        source=NARAYANAN_SOURCE,
    )


#: Model shapes of the course, by name: Narayanan et al.'s Table 1 (1.7B-145.6B) and GPT-3 175B.
MODEL_SHAPES: Mapping[str, ModelShape] = MappingProxyType(
    {
        shape.name: shape
        for shape in (
            _megatron("1.7", heads=24, hidden=2304, layers=24),
            _megatron("3.6", heads=32, hidden=3072, layers=30),
            _megatron("7.5", heads=32, hidden=4096, layers=36),
            _megatron("18.4", heads=48, hidden=6144, layers=40),
            _megatron("39.1", heads=64, hidden=8192, layers=48),
            _megatron("76.1", heads=80, hidden=10240, layers=60),
            _megatron("145.6", heads=96, hidden=12288, layers=80),
            ModelShape(
                name="gpt3-175b",
                label=Text(
                    zh="GPT-3 175B（96 层，h=12288，96 个头）",
                    en="GPT-3 175B (96 layers, h=12288, 96 heads)",
                ),
                layers=96,
                hidden=12288,
                heads=96,
                vocab_size=GPT3_VOCAB_SIZE,
                seq_len=GPT3_SEQ_LEN,
                source=GPT3_SOURCE,
            ),
        )
    }
)


def model_shape(name: str) -> ModelShape:
    """The shape called ``name`` in :data:`MODEL_SHAPES` (a validated lookup).

    >>> model_shape("megatron-18.4b").layers
    40
    >>> model_shape("llama")
    Traceback (most recent call last):
    ...
    ValueError: name = 'llama': must be one of 'megatron-1.7b', 'megatron-3.6b', 'megatron-7.5b', \
'megatron-18.4b', 'megatron-39.1b', 'megatron-76.1b', 'megatron-145.6b', 'gpt3-175b'.

    Taught in: lesson 1 (Q1 capacity).
    """
    return MODEL_SHAPES[check_choice("name", name, MODEL_SHAPES)]


learner_functions(globals())
