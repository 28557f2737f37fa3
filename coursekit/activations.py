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
  statistic per head and query (Dao 2023, FlashAttention-2, Algorithms 1-2: the logsumexp L);
* FP8 training (Transformer Engine's ``fp8_autocast``): a linear layer that runs in FP8 saves its input
  after the cast to FP8, 1 byte per element, instead of the 16-bit tensor (see :data:`FP8_SAVED_INPUTS_SOURCE`).
  Those are the inputs of the QKV, output-projection, fc1 and fc2 (and expert, MLA up/down) projections;
  layer-norm inputs, Q, K, V, the MLP's inner activation input and the router's input stay 16-bit.
  Flash attention keeps its own bf16 output for its backward, so without recomputation an FP8 run holds
  that tensor twice (2 bytes in the kernel, 1 in the projection).

With the Korthikanti model (MHA, GELU with f = 4h, dropout, scores materialised) the count is exactly
Table 2 of the paper; :func:`coursekit.capacity.activation_memory_breakdown` shows it.

>>> ledger = layer_activation_ledger(korthikanti_widths(hidden=12288, heads=96), seq_len=2048, micro_batch=1)
>>> sum(v for k, v in ledger.items() if not k.startswith("attention scores")) == 34 * 2048 * 12288
True

Taught in: lesson 1 (Q1 capacity).
"""

from __future__ import annotations

from typing import Any

from ._validate import (
    check_bool,
    check_choice,
    check_divides,
    check_instance,
    check_int,
    check_number,
    learner_functions,
)
from .specs import (
    DEEPSEEK_V3_ATTENTION_OUTPUT_BYTES,
    FP8_ACTIVATION_CACHES,
    PRECISIONS,
    RECOMPUTE_MODES,
    RECOMPUTE_MODULES,
    LayerWidths,
    _check_str_tuple,
)

__all__ = [
    "ELEMENT_BYTES",
    "FP8_ELEMENT_BYTES",
    "FP8_SAVED_INPUTS_SOURCE",
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
#: Bytes of one element a linear layer saves for backward when it runs in FP8: the input after its cast to
#: FP8 (E4M3). The per-tensor scale (a few fp32 numbers per module) does not grow with tokens and is left out.
FP8_ELEMENT_BYTES: int = 1
#: Where the FP8 rule comes from (read at these commits).
FP8_SAVED_INPUTS_SOURCE: str = (
    "NVIDIA/TransformerEngine v1.9 (e79d915aa0ae1bfc69a6c6491357ce4dfc7befe8), transformer_engine/pytorch/module/: "
    "linear.py _Linear.forward saves the FP8 inputmat (or its FP8 transpose), inputmat_no_fp8 only without FP8; "
    "layernorm_linear.py saves the bf16 norm input, mu, rsigma and the FP8 ln_out; layernorm_mlp.py saves the bf16 "
    "norm input, FP8 ln_out, bf16 fc1_out and FP8 gelu_out; grouped_linear.py the FP8 expert inputs; attention.py "
    "FusedAttnFunc saves bf16 q, k, v and out unless fp8_dpa. Same rule at d0067d0da6cb01811b8072a7d304f0e00344ce2b "
    "(linear.py: input_quantizer, saved_inputmat). NVIDIA/Megatron-LM core_r0.9.0 "
    "(1afee592e85ac7994887eb5f4ef3998f76384333), megatron/core/models/gpt/gpt_layer_specs.py: linear_qkv and "
    "linear_fc1 are TELayerNormColumnParallelLinear (norm fused), pre_mlp_layernorm TENorm only with experts; "
    "megatron/core/transformer/moe/router.py: the router is torch.nn.functional.linear; MLA at "
    "d98e8a64ddf34856e74b24714e3bedb2f5a39553: input_layernorm separate, q/kv down projections TELinear, up "
    "projections with the latent norms fused"
)
#: Bytes flash attention keeps per head and query row for the backward pass: the fp32 logsumexp
#: L = m + log(l) (Dao 2023, FlashAttention-2, arXiv:2307.08691, Algorithm 1 line 13 and Algorithm 2's input).
SOFTMAX_STATS_BYTES: int = 4


def _korthikanti_widths(h: Any, a: Any) -> LayerWidths:
    """Korthikanti's GPT layer, unchecked (``h`` and ``a`` may be floats holding integers)."""
    return LayerWidths(h, a, h // a, h // a, a, mlp_split=2 * 4 * h, dropout=True, mlp_down_inputs=4 * h)


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
    w: LayerWidths,
    s: Any,
    b: Any,
    t: Any,
    sp: Any,
    recompute_code: Any,
    cp: Any,
    flash: Any,
    fp8: Any = False,
    modules: tuple[str, ...] = (),
    probs_in_experts: Any = False,
    fp8_bytes: float = FP8_ELEMENT_BYTES,
    deepseek_cache: Any = False,
) -> dict[str, Any]:
    """Numerators (bytes over t·cp) of each saved tensor of one layer on one rank; array-generic.

    ``recompute_code`` indexes ("none", "selective", "full"); ``sp`` sequence parallelism; ``flash`` flash
    attention; ``fp8`` the linear layers run in FP8 (their saved inputs take ``fp8_bytes`` each: 1, or under MXFP8
    1 + 1/32 with the column-wise copy's E8M0 scales); ``modules`` the
    module-level recomputation (:data:`coursekit.specs.RECOMPUTE_MODULES`). Every tensor holds s/cp tokens
    (context parallelism), so every entry is over t·cp.

    Module-level recomputation discards a module's 16-bit output after the forward: ``"layernorm"`` the MoE
    layer's pre-MLP norm output (the router's input; the shared experts' FP8 copy stays) and, with MLA, the
    input norm's output in bf16 (in FP8 the down projections keep their own copies); ``"moe_act"`` the routed
    experts' activation output in bf16 (in FP8 their down projection keeps its FP8 copy, which is what the
    ledger counts); ``"moe"`` keeps of an MoE layer's MLP part only the block's input (the MLP input): its inner
    activations and its routed copies' inputs and outputs go; ``"mla_up_proj"`` (multi-head latent attention only)
    discards the up-projected Q, K and V, which backward recomputes from the latents.

    ``probs_in_experts``: the router's probabilities multiply the experts' activation (Megatron-Core from 0.13), so
    the combine keeps no copy of the routed copies' outputs (copies · h, as many as their inputs).

    ``deepseek_cache`` (FP8 runs only; :data:`coursekit.specs.DEEPSEEK_V3_ACTIVATIONS_SOURCE`): the routed experts'
    SwiGLU input is kept in FP8 instead of bf16 and, with ``"moe_act"``, its output is recomputed rather than kept
    as the down projection's FP8 input; without recomputation of the attention core its output is kept once, in
    E5M6, in place of the output projection's FP8 copy and flash attention's bf16 one.
    """
    e, m = ELEMENT_BYTES, MASK_BYTES
    q8 = fp8 * 1
    lin = e - q8 * (e - fp8_bytes)  # bytes of a saved linear-layer input: 2, or 1 in FP8 (1 + 1/32 in MXFP8)
    saved = (e - lin) * 1  # bytes an FP8 run saves per element of such an input
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
    none = (recompute_code == 0) * 1
    no_flash = 1 - flash * 1
    # Attention input: the input norm fused into the QKV projection saves its output once; MLA's separate
    # norm feeds two down projections, each saving its own FP8 copy (in bf16 they share one tensor).
    attention_input = e + (lin * (1 + (w.latent_width > 0)) - e) * q8
    # MLP input: the fused norm + fc1 saves it once; an MoE layer's router keeps it in bf16, and its shared
    # experts save one more FP8 copy.
    mlp_input = lin + (w.router * 1) * (e - lin + q8 * fp8_bytes * w.shared_expert_input)
    norm = "layernorm" in modules
    mlp_input = mlp_input - norm * (w.router * 1) * e  # the pre-MLP norm's bf16 output, discarded
    attention_input = attention_input - norm * (w.latent_width > 0) * (1 - q8) * e  # MLA's separate input norm
    act_discarded = ("moe_act" in modules) * (1 - q8) * e * w.moe_act_width
    block = 1 - ("moe" in modules) * (w.router * 1)  # 0 where the whole MoE block is recomputed from its input
    qkv = 1 - ("mla_up_proj" in modules) * (w.latent_width > 0)  # 0 where MLA's Q, K, V are recomputed
    act_discarded = act_discarded * block
    ds = deepseek_cache * q8  # 0/1: DeepSeek-V3's FP8 storage (an FP8 run only)
    routed_cached = ds * block * (2 * (e - fp8_bytes) + ("moe_act" in modules) * lin) * w.moe_act_width
    attention_output = lin + ds * none * (DEEPSEEK_V3_ATTENTION_OUTPUT_BYTES - lin)  # one E5M6 copy without recompute
    terms = {
        "layer norm inputs (2)": keep * e * 2 * h * tokens * whole,
        "attention input": keep * attention_input * h * tokens * whole,
        "MLA latents": keep * (e * w.latent_width - saved * w.latent_linear_inputs) * tokens * whole,
        "Q": keep * qkv * e * a * w.qk_head_dim * tokens,
        "K": keep * qkv * e * kv_heads_all_ranks * w.qk_head_dim * tokens,
        "V": keep * qkv * e * kv_heads_all_ranks * w.v_head_dim * tokens,
        "attention output (projection input)": keep * attention_output * a * w.v_head_dim * tokens,
        # Flash attention saves its output for its own backward; in bf16 that is the projection's input, in FP8
        # the projection keeps an FP8 copy besides it.
        "attention output (flash kernel's bf16 copy)": none
        * (flash * 1)
        * q8
        * (1 - ds)
        * e
        * a
        * w.v_head_dim
        * tokens,
        "MLP input": keep * mlp_input * h * tokens * whole,
        "MLP inner": keep
        * (block * (e * w.mlp_split - saved * w.mlp_down_inputs - act_discarded) - routed_cached)
        * tokens,
        "MoE routed inputs and outputs": keep
        * block
        * (e * (w.mlp_replicated - (probs_in_experts * 1) * w.moe_expert_inputs) - saved * w.moe_expert_inputs)
        * tokens
        * whole,
        "dropout masks (2)": keep * drop * m * 2 * h * tokens * whole,
        "full recompute: layer input": full * e * h * tokens * whole,
    }
    terms["attention scores (softmax, dropout)"] = none * no_flash * (e + drop * (m + e)) * a * s * s * b
    terms["attention scores (flash softmax stats)"] = none * (flash * 1) * SOFTMAX_STATS_BYTES * a * tokens
    return terms


def _layer_activation_terms(
    w: LayerWidths,
    s: Any,
    b: Any,
    t: Any,
    sp: Any,
    recompute_code: Any,
    cp: Any,
    flash: Any = False,
    fp8: Any = False,
    modules: tuple[str, ...] = (),
    probs_in_experts: Any = False,
    fp8_bytes: float = FP8_ELEMENT_BYTES,
    deepseek_cache: Any = False,
) -> tuple[Any, Any, Any]:
    """(linear, attention-score, total) bytes per layer per rank; array-generic.

    The linear part holds every tensor proportional to s; the score part the s² scores (or flash attention's
    per-row statistics). Each part is an integer numerator divided once by t·cp, so integer inputs give the
    correctly rounded value of the exact fraction.
    """
    terms = _layer_terms(
        w, s, b, t, sp, recompute_code, cp, flash, fp8, modules, probs_in_experts, fp8_bytes, deepseek_cache
    )
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
    precision: str = "bf16",
    recompute_modules: tuple[str, ...] = (),
    moe_probs_in_experts: bool = False,
    fp8_activation_cache: str = "transformer-engine",
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
        precision: ``"bf16"``, or ``"fp8"``: the linear layers run in FP8 and save their inputs at
            :data:`FP8_ELEMENT_BYTES` (Transformer Engine; :data:`FP8_SAVED_INPUTS_SOURCE`).
        recompute_modules: Megatron-Core's module-level recomputation on top of ``recompute`` (any of
            :data:`coursekit.specs.RECOMPUTE_MODULES`; nothing changes under ``"full"``): ``"layernorm"``
            discards an MoE layer's pre-MLP norm output (and MLA's input norm output in bf16), ``"moe_act"`` the
            routed experts' bf16 activation output, e·copies·expert width per token, ``"moe"`` everything an MoE
            layer's MLP part saves but its input, ``"mla_up_proj"`` MLA's up-projected Q, K and V
            (:data:`coursekit.specs.RECOMPUTE_MODULES_SOURCE`).
        moe_probs_in_experts: the router's probabilities multiply the experts' activation (Megatron-Core from
            0.13), so the combine keeps no copy of the routed copies' outputs: e·copies·h per token less.
        fp8_activation_cache: at ``precision="fp8"``, ``"transformer-engine"`` (the rule above) or
            ``"deepseek-v3"``: DeepSeek-V3's FP8 storage (:data:`coursekit.specs.DEEPSEEK_V3_ACTIVATIONS_SOURCE`):
            the routed experts' SwiGLU input in FP8 (e·2·copies·f_e bytes per token become 2·copies·f_e), its output
            recomputed with ``"moe_act"`` (the down projection's FP8 input, copies·f_e, not kept), and without
            recomputation the attention output kept once in E5M6, 1.5·a·d_v bytes per token, in place of the
            projection's FP8 copy and flash attention's bf16 one (3·a·d_v).

    The entries, in bytes before the division by t·cp (e = 2 bytes per element, masks 1 byte):
    layer-norm inputs 2·e·s·b·h, attention input e·s·b·h, Q e·s·b·a·d_qk, K e·s·b·kv·d_qk, V e·s·b·kv·d_v,
    attention output e·s·b·a·d_v, MLP input e·s·b·h, MLP inner e·s·b·(2f GELU | 3f SwiGLU), dropout masks
    2·s·b·h, scores (e + 3 with dropout)·a·s²·b or flash statistics 4·a·s·b. In FP8 the attention input,
    attention output, MLP input and the f-wide down-projection input take 1 byte per element, and with flash
    attention and no recomputation the kernel's bf16 output, e·s·b·a·d_v, is kept besides the FP8 copy: a
    dense layer then keeps (2·h + f − a·d_v)·s·b bytes less than in bf16, otherwise (2·h + f + a·d_v)·s·b less.

    >>> w = korthikanti_widths(hidden=4096, heads=32)
    >>> bf16 = layer_activation_ledger(w, seq_len=1024, micro_batch=1, flash_attention=True)
    >>> fp8 = layer_activation_ledger(w, seq_len=1024, micro_batch=1, flash_attention=True, precision="fp8")
    >>> (sum(bf16.values()) - sum(fp8.values())) / (1024 * 4096)  # 2·h + 4·h - h
    5.0

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
    fp8 = check_choice("precision", precision, PRECISIONS) == "fp8"
    check_number("mlp_split", widths.mlp_split, ge=0)
    check_divides("tp", t, "heads", widths.heads)
    check_divides("cp", c, "seq_len", s)
    modules: tuple[str, ...] = ()
    if recompute_modules != ():
        modules = _check_str_tuple("recompute_modules", recompute_modules, RECOMPUTE_MODULES)
    probs = check_bool("moe_probs_in_experts", moe_probs_in_experts)
    deepseek = check_choice("fp8_activation_cache", fp8_activation_cache, FP8_ACTIVATION_CACHES) == "deepseek-v3"
    code = RECOMPUTE_MODES.index(mode)
    terms = _layer_terms(widths, s, b, t, sp, code, c, flash, fp8, modules, probs, deepseek_cache=deepseek)
    return {name: float(value / (t * c)) for name, value in terms.items() if value}


learner_functions(globals())
