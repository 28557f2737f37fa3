"""What one transformer layer saves for the backward pass, tensor by tensor, in bytes.

Korthikanti et al. 2022 (arXiv:2205.05198, §4.1) count the activations of a GPT layer one saved
tensor at a time and arrive at 34·s·b·h + 5·a·s²·b bytes (16-bit activations, 1-byte dropout masks,
attention scores materialised). This module keeps their list, but lets each tensor take its real width,
so the same count covers today's layers:

* grouped-query attention (GQA): K and V are ``kv_heads / heads`` the size of Q;
* multi-head latent attention (MLA, DeepSeek-V2 §2.1): the compressed latents are saved too, and K, V are
  expanded to every head for the attention core;
* the MLP's real width and gating: a GELU MLP saves the GELU input and output (2·f), a SwiGLU MLP the
  gate and up outputs (Megatron-Core's fused ``bias_swiglu`` saves its 2·f input and recomputes the SiLU)
  and the down projection's input (f), 3·f in all;
* a mixture of experts: every routed copy of a token saves its expert input, inner activations and output;
* dropout off (no masks), and flash/fused attention, which keeps no s×s scores but one fp32 softmax
  statistic per head and query (Dao 2023, FlashAttention-2, Algorithms 1-2: the logsumexp L).

With the Korthikanti model (MHA, GELU with f = 4h, dropout, scores materialised) the count is exactly
Table 2 of the paper; :func:`coursekit.capacity.activation_memory_breakdown` shows it.

>>> ledger = layer_activation_ledger(korthikanti_widths(hidden=12288, heads=96), seq_len=2048, micro_batch=1)
>>> sum(v for k, v in ledger.items() if not k.startswith("attention scores")) == 34 * 2048 * 12288
True

Taught in: lesson 1 (Q1 capacity).
"""

from __future__ import annotations

from typing import Any

from ._validate import check_bool, check_choice, check_divides, check_instance, check_int, check_number
from .specs import RECOMPUTE_MODES, LayerWidths

__all__ = [
    "ELEMENT_BYTES",
    "MASK_BYTES",
    "SOFTMAX_STATS_BYTES",
    "LayerWidths",
    "korthikanti_widths",
    "layer_activation_ledger",
]

#: Bytes of one saved activation element: 16-bit activations (Korthikanti et al. §4.1).
ELEMENT_BYTES: int = 2
#: Bytes of one dropout-mask element (Korthikanti et al. §4.1 count one byte per element).
MASK_BYTES: int = 1
#: Bytes flash attention keeps per head and query row for the backward pass: the fp32 logsumexp
#: L = m + log(l) (Dao 2023, FlashAttention-2, arXiv:2307.08691, Algorithm 1 line 13 and Algorithm 2's input).
SOFTMAX_STATS_BYTES: int = 4


def _korthikanti_widths(h: Any, a: Any) -> LayerWidths:
    """Korthikanti's GPT layer, unchecked (``h`` and ``a`` may be floats holding integers)."""
    return LayerWidths(h, a, h // a, h // a, a, mlp_split=2 * 4 * h, dropout=True)


def korthikanti_widths(*, hidden: int, heads: int) -> LayerWidths:
    """The GPT layer of Korthikanti et al.: multi-head attention, a GELU MLP of width 4h, dropout on.

    >>> korthikanti_widths(hidden=1024, heads=8).mlp_split  # GELU input and output, 4h wide each
    8192

    Taught in: lesson 1 (Q1 capacity).
    """
    hidden = check_int("hidden", hidden, ge=1)
    heads = check_int("heads", heads, ge=1)
    check_divides("heads", heads, "hidden", hidden)
    return _korthikanti_widths(hidden, heads)


def _layer_terms(
    w: LayerWidths, s: Any, b: Any, t: Any, sp: Any, recompute_code: Any, cp: Any, flash: Any
) -> dict[str, Any]:
    """Numerators (bytes over t·cp) of each saved tensor of one layer on one rank; array-generic.

    ``recompute_code`` indexes ("none", "selective", "full"); ``sp`` sequence parallelism; ``flash`` flash
    attention. Every tensor holds s/cp tokens (context parallelism), so every entry is over t·cp.
    """
    e, m = ELEMENT_BYTES, MASK_BYTES
    h, a = w.hidden, w.heads
    tokens = s * b
    full = (recompute_code == 2) * 1
    keep = 1 - full  # 0/1 (numpy refuses bool subtraction)
    t_sp = 1 + (t - 1) * sp  # t with sequence parallelism, else 1
    # Tensors every TP rank keeps whole unless sequence parallelism splits the tokens: they are multiplied
    # by t here, because every entry is divided by t at the end.
    whole = t // t_sp
    kv_heads_all_ranks = -(-w.kv_heads // t) * t  # a TP rank holds ceil(kv_heads / t) heads (copies when t > kv)
    drop = 1 if w.dropout else 0
    terms = {
        "layer norm inputs (2)": keep * e * 2 * h * tokens * whole,
        "attention input": keep * e * h * tokens * whole,
        "MLA latents": keep * e * w.latent_width * tokens * whole,
        "Q": keep * e * a * w.qk_head_dim * tokens,
        "K": keep * e * kv_heads_all_ranks * w.qk_head_dim * tokens,
        "V": keep * e * kv_heads_all_ranks * w.v_head_dim * tokens,
        "attention output (projection input)": keep * e * a * w.v_head_dim * tokens,
        "MLP input": keep * e * h * tokens * whole,
        "MLP inner": keep * e * w.mlp_split * tokens,
        "MoE routed inputs and outputs": keep * e * w.mlp_replicated * tokens * whole,
        "dropout masks (2)": keep * drop * m * 2 * h * tokens * whole,
        "full recompute: layer input": full * e * h * tokens * whole,
    }
    none = (recompute_code == 0) * 1
    no_flash = 1 - flash * 1
    terms["attention scores (softmax, dropout)"] = none * no_flash * (e + drop * (m + e)) * a * s * s * b
    terms["attention scores (flash softmax stats)"] = none * (flash * 1) * SOFTMAX_STATS_BYTES * a * tokens
    return terms


def _layer_activation_terms(
    w: LayerWidths, s: Any, b: Any, t: Any, sp: Any, recompute_code: Any, cp: Any, flash: Any = False
) -> tuple[Any, Any, Any]:
    """(linear, attention-score, total) bytes per layer per rank; array-generic.

    The linear part holds every tensor proportional to s; the score part the s² scores (or flash attention's
    per-row statistics). Each part is an integer numerator divided once by t·cp, so integer inputs give the
    correctly rounded value of the exact fraction.
    """
    terms = _layer_terms(w, s, b, t, sp, recompute_code, cp, flash)
    scores = terms.pop("attention scores (softmax, dropout)") + terms.pop("attention scores (flash softmax stats)")
    linear = sum(terms.values())
    denominator = t * cp
    return linear / denominator, scores / denominator, (linear + scores) / denominator


def layer_activation_ledger(
    widths: LayerWidths,
    *,
    seq_len: int,
    micro_batch: int,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    cp: int = 1,
    flash_attention: bool = False,
) -> dict[str, float]:
    """Bytes each saved tensor of one layer takes on one rank, as a ledger ``{tensor: bytes}``.

    Parameters:
        widths: the layer's widths (:class:`LayerWidths`; a model gives them with
            :meth:`coursekit.planner.ModelSpec.layer_widths`).
        seq_len, micro_batch: s tokens per sequence (before context parallelism), b sequences.
        tp: tensor-parallel degree t; it splits the heads and the MLP's inner width; without sequence
            parallelism the layer norms' inputs, the inputs of the first attention and MLP matmuls and the
            dropout masks stay whole on every rank (Korthikanti et al. Eq. 2).
        sequence_parallel: those whole tensors are split along the sequence as well (§4.2.2).
        recompute: ``"none"``; ``"selective"`` recomputes the attention core (no scores or softmax statistics
            kept, §5); ``"full"`` keeps only the layer input.
        cp: context-parallel degree: every tensor holds s/cp tokens (the scores: s/cp queries × s keys).
        flash_attention: fused attention that keeps no s×s scores, only an fp32 logsumexp per head and query;
            its dropout mask is regenerated from the random state, not saved.

    The entries, in bytes before the division by t·cp (e = 2 bytes per element, masks 1 byte):
    layer-norm inputs 2·e·s·b·h, attention input e·s·b·h, Q e·s·b·a·d_qk, K e·s·b·kv·d_qk, V e·s·b·kv·d_v,
    attention output e·s·b·a·d_v, MLP input e·s·b·h, MLP inner e·s·b·(2f GELU | 3f SwiGLU), dropout masks
    2·s·b·h, scores (e + 3 with dropout)·a·s²·b or flash statistics 4·a·s·b.

    >>> w = korthikanti_widths(hidden=12288, heads=96)
    >>> ledger = layer_activation_ledger(w, seq_len=2048, micro_batch=1, tp=8, sequence_parallel=True)
    >>> ledger["attention scores (softmax, dropout)"] == 5 * 96 * 2048**2 / 8
    True

    Taught in: lesson 1 (Q1 capacity).
    """
    check_instance("widths", widths, LayerWidths)
    s = check_int("seq_len", seq_len, ge=1)
    b = check_int("micro_batch", micro_batch, ge=1)
    t = check_int("tp", tp, ge=1)
    sp = check_bool("sequence_parallel", sequence_parallel)
    mode = check_choice("recompute", recompute, RECOMPUTE_MODES)
    c = check_int("cp", cp, ge=1)
    flash = check_bool("flash_attention", flash_attention)
    check_number("mlp_split", widths.mlp_split, ge=0)
    check_divides("tp", t, "heads", widths.heads)
    check_divides("cp", c, "seq_len", s)
    terms = _layer_terms(widths, s, b, t, sp, RECOMPUTE_MODES.index(mode), c, flash)
    return {name: float(value / (t * c)) for name, value in terms.items() if value}
