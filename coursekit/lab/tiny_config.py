"""The sizes of the lab's small transformer, shared by the drivers and the torch ranks.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import check_divides, check_int

__all__ = ["TinyTransformerConfig"]


@dataclass(frozen=True)
class TinyTransformerConfig:
    """Sizes of the lab's small transformer (pre-LayerNorm blocks of attention + MLP, a classifier head).

    Fields: ``d_model`` (hidden size), ``heads`` (attention heads, must divide
    d_model), ``d_ff`` (MLP hidden size), ``layers`` (blocks), ``classes``
    (outputs of the head; 5 rows do not split evenly over 2 or 4 ranks, which
    is what makes FSDP2's padding visible), ``seq_len`` and ``batch`` of the
    random input, ``seed`` of the weights and data.

    >>> TinyTransformerConfig(d_model=60, heads=8)
    Traceback (most recent call last):
    ...
    ValueError: heads = 8: must divide d_model == 60.

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

    def __post_init__(self) -> None:
        for name in ("d_model", "heads", "d_ff", "layers", "classes", "seq_len", "batch"):
            check_int(name, getattr(self, name), ge=1)
        check_int("seed", self.seed, ge=0)
        check_divides("heads", self.heads, "d_model", self.d_model)
