"""The sizes of the lab's small transformer, shared by the drivers and the torch ranks.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._validate import check_divides, check_int, learner_functions
from ..i18n import register, shown_repr, tr

__all__ = ["MAX_ACTIVATION_ELEMENTS", "MAX_LAYERS", "MAX_PARAMETERS", "TinyTransformerConfig"]

#: Most parameters the lab's model may have: 100 times the default's 100,421. Under fp32 Adam each takes
#: 16 bytes on every rank that holds it (weight, gradient, two moments), 160 MB for a whole copy, so a laptop
#: trains it one step per strategy in seconds.
MAX_PARAMETERS: int = 10_000_000
#: Most numbers in one activation tensor (16 MiB in fp32): the attention scores (batch · heads · seq_len²) and
#: the MLP's hidden activations (batch · seq_len · d_ff) are the largest the model makes.
MAX_ACTIVATION_ELEMENTS: int = 2**22
#: Most blocks: the memory ledger lists every block's parameters one by one (:func:`coursekit.lab.parameter_layout`).
MAX_LAYERS: int = 64

register(
    {
        "lab.tiny_unknown_field": {
            "zh": "{name} = {value}：TinyTransformerConfig 没有这个字段；它的字段是 {fields}（隐藏层大小是 d_model）。",
            "en": "{name} = {value}: TinyTransformerConfig has no such field; its fields are {fields} (the hidden "
            "size is d_model).",
        },
        "lab.tiny_positional": {
            "zh": "TinyTransformerConfig 收到 {count} 个位置参数：最多 {limit} 个（{fields}），其余请用关键字。",
            "en": "TinyTransformerConfig got {count} positional arguments: at most {limit} ({fields}); pass the "
            "rest by keyword.",
        },
        "lab.tiny_parameters": {
            "zh": "d_model = {d_model}、d_ff = {d_ff}、layers = {layers}、classes = {classes}：模型会有 {count:,} "
            "个参数，而实验用的小模型最多 {limit:,} 个（fp32 Adam 下每个参数在每个 rank 上占 16 字节，"
            "要能在笔记本电脑上几秒内训练一步）。",
            "en": "d_model = {d_model}, d_ff = {d_ff}, layers = {layers}, classes = {classes}: the model would have "
            "{count:,@parameter}, and the lab's small model has at most {limit:,} (16 bytes each on every rank "
            "under fp32 Adam, so that a laptop trains one step in seconds).",
        },
        "lab.tiny_activation": {
            "zh": "batch = {batch}、seq_len = {seq_len}、heads = {heads}、d_model = {d_model}、d_ff = {d_ff}："
            "最大的激活张量（注意力分数 batch·heads·seq_len²，或 MLP 的 batch·seq_len·max(d_model, d_ff)）"
            "会有 {count:,} 个数，最多 {limit:,} 个（fp32 下 16 MiB）。",
            "en": "batch = {batch}, seq_len = {seq_len}, heads = {heads}, d_model = {d_model}, d_ff = {d_ff}: the "
            "largest activation tensor (the attention scores, batch·heads·seq_len², or the MLP's "
            "batch·seq_len·max(d_model, d_ff)) would hold {count:,@number}; at most {limit:,} (16 MiB in fp32).",
        },
    }
)


@dataclass(frozen=True)
class TinyTransformerConfig:
    """Sizes of the lab's small transformer (pre-LayerNorm blocks of attention + MLP, a classifier head).

    Fields: ``d_model`` (hidden size), ``heads`` (attention heads, must divide
    d_model), ``d_ff`` (MLP hidden size), ``layers`` (blocks), ``classes``
    (outputs of the head; 5 rows do not split evenly over 2 or 4 ranks, which
    is what makes FSDP2's padding visible), ``seq_len`` and ``batch`` of the
    random input, ``seed`` of the weights and data.

    Every field is an ``int`` (not a bool, not a float such as ``64.0``); all are ``>= 1`` except ``seed``
    (``>= 0``). The model is small by design, so a laptop runs it in seconds: at most :data:`MAX_LAYERS`
    blocks, :data:`MAX_PARAMETERS` parameters (:meth:`parameter_count`) and :data:`MAX_ACTIVATION_ELEMENTS`
    numbers in its largest activation tensor (:meth:`largest_activation`). A bad value, or a keyword that is
    not a field (``hidden=`` for ``d_model=``), is a ``TypeError`` / ``ValueError`` that names it, in the
    learner's language.

    >>> TinyTransformerConfig(d_model=60, heads=8)
    Traceback (most recent call last):
    ...
    ValueError: heads = 8: must divide d_model = 60.
    >>> TinyTransformerConfig(hidden=0)
    Traceback (most recent call last):
    ...
    TypeError: hidden = 0: TinyTransformerConfig has no such field; its fields are d_model, heads, d_ff, layers, \
classes, seq_len, batch, seed (the hidden size is d_model).

    Taught in: lesson 8 (formula vs measurement).
    """

    d_model: int = 64
    heads: int = 8
    d_ff: int = 256
    layers: int = 2
    classes: int = 5
    seq_len: int = 8
    batch: int = 4
    seed: int = 0

    if not TYPE_CHECKING:  # a type checker keeps the dataclass's signature, and so still flags a wrong keyword

        def __new__(cls, *args: Any, **kwargs: Any) -> TinyTransformerConfig:
            # Runs before the dataclass's __init__, so a keyword that is not a field gets the course's message
            # rather than Python's "unexpected keyword argument".
            names = [item.name for item in dataclasses.fields(cls)]
            if len(args) > len(names):
                raise TypeError(tr("lab.tiny_positional", count=len(args), limit=len(names), fields=", ".join(names)))
            for name, value in kwargs.items():
                if name not in names:
                    raise TypeError(
                        tr("lab.tiny_unknown_field", name=name, value=shown_repr(value), fields=", ".join(names))
                    )
            return super().__new__(cls)

    def __post_init__(self) -> None:
        for name in ("d_model", "heads", "d_ff", "layers", "classes", "seq_len", "batch"):
            check_int(name, getattr(self, name), ge=1, le=MAX_LAYERS if name == "layers" else None)
        check_int("seed", self.seed, ge=0)
        check_divides("heads", self.heads, "d_model", self.d_model)
        count = self.parameter_count()
        if count > MAX_PARAMETERS:
            sizes = {name: getattr(self, name) for name in ("d_model", "d_ff", "layers", "classes")}
            raise ValueError(tr("lab.tiny_parameters", count=count, limit=MAX_PARAMETERS, **sizes))
        largest = self.largest_activation()
        if largest > MAX_ACTIVATION_ELEMENTS:
            sizes = {name: getattr(self, name) for name in ("batch", "seq_len", "heads", "d_model", "d_ff")}
            raise ValueError(tr("lab.tiny_activation", count=largest, limit=MAX_ACTIVATION_ELEMENTS, **sizes))

    def parameter_count(self) -> int:
        """Parameters of the model: per block two LayerNorms (``2·d_model`` each), four attention projections
        (``d_model² + d_model`` each) and the MLP (``2·d_model·d_ff + d_ff + d_model``); then the head's LayerNorm
        and its ``d_model → classes`` linear layer (what :func:`coursekit.lab.parameter_layout` lists).

        >>> TinyTransformerConfig().parameter_count()
        100421
        """
        d, f = self.d_model, self.d_ff
        block = 2 * 2 * d + 4 * (d * d + d) + (f * d + f) + (d * f + d)
        return self.layers * block + 2 * d + self.classes * d + self.classes

    def largest_activation(self) -> int:
        """Numbers in the model's largest activation tensor: the attention scores (``batch · heads · seq_len²``)
        or an MLP activation (``batch · seq_len · max(d_model, d_ff)``), whichever is larger.

        >>> TinyTransformerConfig().largest_activation()    # 4 · 8 · 8², vs 4 · 8 · 256
        8192
        """
        scores = self.batch * self.heads * self.seq_len**2
        return max(scores, self.batch * self.seq_len * max(self.d_model, self.d_ff))


learner_functions(globals())
