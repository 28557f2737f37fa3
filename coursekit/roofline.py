"""Compute efficiency: FLOPs of a transformer, arithmetic intensity and the roofline.

A device does at most ``peak_flops`` FLOP/s, and it can feed its arithmetic
units at most ``memory_bandwidth_bytes_per_s`` bytes/s from its memory. A
kernel that does F FLOPs while moving at least B bytes has an *arithmetic
intensity* I = F / B (FLOP per byte). The roofline (Williams, Waterman and
Patterson, "Roofline", CACM 2009) says the kernel cannot run faster than
``min(peak, I · bandwidth)``: below the *ridge point* ``peak / bandwidth`` it
is memory-bound, above it compute-bound.

FLOP conventions (the ones papers report, so numbers compare):

* **model FLOPs** per token of training = 6·N + 12·L·h·s (PaLM, Chowdhery et
  al. 2022, appendix B: 6N for the parameter matmuls forward and backward, and
  12·L·H·Q·T for attention's two matmuls QKᵀ and AV, forward and backward,
  H·Q = h, T = s). Attention is counted *without* the causal half, as PaLM and
  Megatron-LM (Narayanan et al. 2021, eq. 3, the s/(6h) term) both do. For a
  mixture of experts N is the parameters a token *activates*.
* **hardware FLOPs** add what recomputation executes again: full recomputation
  repeats the forward pass (+2·N + 4·L·h·s per token), selective recomputation
  repeats attention's core (+4·L·h·s per token; Korthikanti et al. 2022, §5).
* **MFU** (model FLOPs utilisation) = model FLOPs per second / peak;
  **HFU** uses hardware FLOPs. MFU is the figure to compare across layouts,
  because recomputation is work the layout chose to redo.

All formula functions are plain arithmetic, so the ``_``-prefixed kernels
accept numpy arrays as well as floats (the planner's vectorised search calls
them); the public functions check their scalar arguments first.

>>> round(ridge_point_flop_per_byte(989e12, 3.35e12), 1)   # H100 SXM, dense bf16
295.2
>>> matmul_flops(2048, 12288, 1536)
77309411328
>>> round(matmul_intensity_flop_per_byte(2048, 12288, 1536), 1)
819.2

Taught in: lesson 7 (compute efficiency).
"""

from __future__ import annotations

from typing import Any, Protocol

from ._validate import check_choice, check_divides, check_int, check_number, finite_result, learner_functions
from .i18n import register, shown_repr, tr

register(
    {
        "roofline.mfu_above_one": {
            "zh": "model_flops_per_token = {flops!r}，tokens_per_s = {tokens!r}，devices = {devices}，peak_flops = "
            "{peak!r}：MFU = {value:.4g} > 1，模型每秒的 FLOPs 超过了这些设备的峰值之和，这不可能。请检查 tokens_per_s "
            "是否是全部设备合计的每秒 token 数、peak_flops 是否是单个设备的峰值。",
            "en": "model_flops_per_token = {flops!r}, tokens_per_s = {tokens!r}, devices = {devices}, peak_flops = "
            "{peak!r}: MFU = {value:.4g} > 1, the model FLOPs per second exceed those devices' summed peak, which "
            "cannot happen. Check that tokens_per_s counts all devices together and peak_flops is one device's.",
        },
        "roofline.not_a_layer_shape": {
            "zh": "model = {value}：必须是带 hidden、ffn_hidden、kv_hidden、mlp 的模型（如 ModelSpec），"
            "而不是 {type}。",
            "en": "model = {value}: must be a model with hidden, ffn_hidden, kv_hidden and mlp (e.g. a ModelSpec), "
            "not {type}.",
        },
    }
)

__all__ = [
    "BF16_BYTES",
    "MLP_MATRICES",
    "ROOFLINE_SMOOTHNESS",
    "LayerShape",
    "achieved_flops",
    "attention_flops_per_token",
    "expert_matmul_intensity",
    "hardware_flops_per_token",
    "layout_matmul_intensity",
    "matmul_bytes",
    "matmul_flops",
    "matmul_intensity_flop_per_byte",
    "mfu",
    "model_flops_per_token",
    "ridge_point_flop_per_byte",
    "roofline_flops",
    "roofline_time_s",
    "tokens_per_gpu",
    "transformer_layer_matmul_intensity",
]

#: Bytes of one bf16/fp16 element, the default operand width of the course's matmuls.
BF16_BYTES: int = 2

#: Exponent p of the smooth roofline ``peak / (1 + (peak / (I·bw))**p)**(1/p)``. p -> infinity is the
#: hard roofline; p = 2 puts a kernel at the ridge point at 1/sqrt(2) = 71 % of peak and one at 3x the
#: ridge at 95 %, the shape of measured GEMM efficiency curves (e.g. NVIDIA's "Matrix Multiplication
#: Background User's Guide", the plots of achieved TFLOP/s vs arithmetic intensity). A modelling choice,
#: stated as such: the planner calibrates the kernel ceiling on one named data set, not this shape.
ROOFLINE_SMOOTHNESS: float = 2.0


# --------------------------------------------------------------------------- FLOPs


def _attention_forward_flops_per_token(layers: Any, hidden: Any, seq_len: Any) -> Any:
    """Forward FLOPs per token of attention's QKᵀ and AV over ``seq_len`` keys: 2·s·h each, 4·L·h·s (full count)."""
    return 4 * layers * hidden * seq_len


def _attention_flops_per_token(layers: Any, hidden: Any, seq_len: Any) -> Any:
    """Forward + backward (twice the forward): 12·L·h·s."""
    return 3 * _attention_forward_flops_per_token(layers, hidden, seq_len)


@finite_result
def attention_flops_per_token(layers: int, hidden: int, seq_len: int) -> float:
    """Training FLOPs per token of attention's two matmuls (QKᵀ and AV), forward + backward: 12·L·h·s.

    Forward: QKᵀ costs 2·s·h per token and layer, AV another 2·s·h; backward costs twice the forward.
    Full (non-causal) count, the convention of PaLM's appendix B and Megatron-LM; a causal kernel that
    skips masked blocks executes about half.

    >>> attention_flops_per_token(80, 8192, 8192)  # Llama-3 70B shape at 8K tokens
    64424509440

    Taught in: lesson 7 (compute efficiency).
    """
    layers = check_int("layers", layers, ge=1)
    hidden = check_int("hidden", hidden, ge=1)
    seq_len = check_int("seq_len", seq_len, ge=1)
    return _attention_flops_per_token(layers, hidden, seq_len)  # type: ignore[no-any-return]


def _model_flops_per_token(active_params: Any, layers: Any, hidden: Any, seq_len: Any) -> Any:
    return 6 * active_params + _attention_flops_per_token(layers, hidden, seq_len)


@finite_result
def model_flops_per_token(active_params: float, layers: int, hidden: int, seq_len: int) -> float:
    """Model FLOPs per trained token, 6·N + 12·L·h·s (PaLM appendix B).

    >>> round(model_flops_per_token(70.6e9, 80, 8192, 8192) / 1e9, 1)  # Llama-3 70B at 8K: 423.6 + 64.4
    488.0

    Taught in: lesson 7 (compute efficiency).
    """
    active_params = check_number("active_params", active_params, gt=0)
    layers = check_int("layers", layers, ge=1)
    hidden = check_int("hidden", hidden, ge=1)
    seq_len = check_int("seq_len", seq_len, ge=1)
    return float(_model_flops_per_token(active_params, layers, hidden, seq_len))


#: Recomputation modes and the share of a forward pass each executes again.
RECOMPUTE_EXTRA: dict[str, str] = {
    "none": "nothing",
    "selective": "attention core forward: 4·L·h·s per token",
    "full": "whole forward: 2·N + 4·L·h·s per token",
}


def _hardware_flops_per_token(
    active_params: Any, layers: Any, hidden: Any, seq_len: Any, recompute: str, recomputed_params: Any = None
) -> Any:
    model = _model_flops_per_token(active_params, layers, hidden, seq_len)
    attention_forward = _attention_forward_flops_per_token(layers, hidden, seq_len)
    if recompute == "full":
        repeated = active_params if recomputed_params is None else recomputed_params
        return model + 2 * repeated + attention_forward
    if recompute == "selective":
        return model + attention_forward
    return model


@finite_result
def hardware_flops_per_token(
    active_params: float,
    layers: int,
    hidden: int,
    seq_len: int,
    recompute: str = "none",
    *,
    recomputed_params: float | None = None,
) -> float:
    """FLOPs executed per trained token: model FLOPs plus what ``recompute`` repeats.

    Full recomputation repeats the forward pass of the transformer layers; ``recomputed_params`` are the
    parameters whose matmuls it repeats (default: all active parameters; Megatron-LM does not recompute
    the output layer, so pass the layers' parameters to match its eq. 3 exactly).

    >>> n, L, h, s = 1e9, 24, 2048, 2048
    >>> hardware_flops_per_token(n, L, h, s, "full") / model_flops_per_token(n, L, h, s) == 4 / 3
    True

    Taught in: lesson 7 (compute efficiency).
    """
    active_params = check_number("active_params", active_params, gt=0)
    layers = check_int("layers", layers, ge=1)
    hidden = check_int("hidden", hidden, ge=1)
    seq_len = check_int("seq_len", seq_len, ge=1)
    recompute = check_choice("recompute", recompute, tuple(RECOMPUTE_EXTRA))
    repeated = None if recomputed_params is None else check_number("recomputed_params", recomputed_params, ge=0)
    return float(_hardware_flops_per_token(active_params, layers, hidden, seq_len, recompute, repeated))


def _mfu(model_flops_per_token: Any, tokens_per_s: Any, devices: Any, peak_flops: Any) -> Any:
    return model_flops_per_token * tokens_per_s / (devices * peak_flops)


@finite_result
def mfu(model_flops_per_token: float, tokens_per_s: float, devices: int, peak_flops: float) -> float:
    """Model FLOPs utilisation: model FLOPs per second over the devices' summed peak.

    >>> round(mfu(6 * 175e9, 1.0e5, 1024, 312e12), 3)   # 175B model, 100k tokens/s on 1,024 A100s
    0.329

    Taught in: lesson 7 (compute efficiency).
    """
    model_flops_per_token = check_number("model_flops_per_token", model_flops_per_token, gt=0)
    tokens_per_s = check_number("tokens_per_s", tokens_per_s, ge=0)
    devices = check_int("devices", devices, ge=1)
    peak_flops = check_number("peak_flops", peak_flops, gt=0)
    value = float(_mfu(model_flops_per_token, tokens_per_s, devices, peak_flops))
    if value > 1:
        raise ValueError(
            tr(
                "roofline.mfu_above_one",
                flops=model_flops_per_token,
                tokens=tokens_per_s,
                devices=devices,
                peak=peak_flops,
                value=value,
            )
        )
    return value


# --------------------------------------------------------------------------- matmuls and the roofline


def _matmul_flops(m: Any, k: Any, n: Any) -> Any:
    return 2 * m * k * n


def matmul_flops(m: int, k: int, n: int) -> int:
    """FLOPs of an (m × k) @ (k × n) matrix product: 2·m·k·n (one multiply and one add each).

    Taught in: lesson 7 (compute efficiency).
    """
    return int(_matmul_flops(check_int("m", m, ge=1), check_int("k", k, ge=1), check_int("n", n, ge=1)))


def _matmul_bytes(m: Any, k: Any, n: Any, bytes_per_element: Any) -> Any:
    return bytes_per_element * (m * k + k * n + m * n)


def matmul_bytes(m: int, k: int, n: int, bytes_per_element: int = BF16_BYTES) -> int:
    """Least bytes an (m × k) @ (k × n) product moves: read both operands once, write the result once.

    Taught in: lesson 7 (compute efficiency).
    """
    return int(
        _matmul_bytes(
            check_int("m", m, ge=1),
            check_int("k", k, ge=1),
            check_int("n", n, ge=1),
            check_int("bytes_per_element", bytes_per_element, ge=1),
        )
    )


@finite_result
def matmul_intensity_flop_per_byte(m: int, k: int, n: int, bytes_per_element: int = BF16_BYTES) -> float:
    """Arithmetic intensity of an (m × k) @ (k × n) product, FLOP per byte moved.

    With bf16 operands it is m·k·n / (m·k + k·n + m·n): about the smallest of m, k, n when one is much
    smaller than the others — a decode step's batch of 8 tokens gives about 8 FLOP/byte.

    >>> round(matmul_intensity_flop_per_byte(8, 8192, 8192), 2)
    7.98

    Taught in: lesson 7 (compute efficiency).
    """
    return matmul_flops(m, k, n) / matmul_bytes(m, k, n, bytes_per_element)


def _ridge_point(peak_flops: Any, memory_bandwidth_bytes_per_s: Any) -> Any:
    return peak_flops / memory_bandwidth_bytes_per_s


@finite_result
def ridge_point_flop_per_byte(peak_flops: float, memory_bandwidth_bytes_per_s: float) -> float:
    """The intensity where the roofline bends: peak FLOP/s ÷ memory bytes/s.

    Taught in: lesson 7 (compute efficiency).
    """
    return float(
        _ridge_point(
            check_number("peak_flops", peak_flops, gt=0),
            check_number("memory_bandwidth_bytes_per_s", memory_bandwidth_bytes_per_s, gt=0),
        )
    )


def _roofline_flops(intensity: Any, peak_flops: Any, memory_bandwidth_bytes_per_s: Any) -> Any:
    bandwidth_limit = intensity * memory_bandwidth_bytes_per_s
    return (peak_flops + bandwidth_limit - abs(peak_flops - bandwidth_limit)) / 2  # min(), array-generic


@finite_result
def roofline_flops(intensity_flop_per_byte: float, peak_flops: float, memory_bandwidth_bytes_per_s: float) -> float:
    """The hard roofline: min(peak, intensity · bandwidth), FLOP/s.

    >>> roofline_flops(8, 989e12, 3.35e12) / 1e12    # a decode-sized matmul on an H100: memory-bound
    26.8

    Taught in: lesson 7 (compute efficiency).
    """
    return float(
        _roofline_flops(
            check_number("intensity_flop_per_byte", intensity_flop_per_byte, gt=0),
            check_number("peak_flops", peak_flops, gt=0),
            check_number("memory_bandwidth_bytes_per_s", memory_bandwidth_bytes_per_s, gt=0),
        )
    )


def _achieved_flops(
    intensity: Any, peak_flops: Any, memory_bandwidth_bytes_per_s: Any, ceiling: Any, smoothness: Any
) -> Any:
    ratio = peak_flops / (intensity * memory_bandwidth_bytes_per_s)
    return ceiling * peak_flops / (1 + ratio**smoothness) ** (1 / smoothness)


@finite_result
def achieved_flops(
    intensity_flop_per_byte: float,
    peak_flops: float,
    memory_bandwidth_bytes_per_s: float,
    *,
    ceiling: float = 1.0,
    smoothness: float = ROOFLINE_SMOOTHNESS,
) -> float:
    """A smooth roofline: ``ceiling · peak / (1 + (peak / (I · bw))**p)**(1/p)``, FLOP/s.

    ``ceiling`` is the share of peak the best kernels reach on large shapes (a calibrated figure, see the
    planner); ``smoothness`` p bends the two limbs of the hard roofline into one curve, so a kernel near the
    ridge point reaches less than either limb says — as measured GEMMs do. Always below :func:`roofline_flops`.

    >>> round(achieved_flops(295.2, 989e12, 3.35e12) / 989e12, 3)   # at the ridge point: 1/sqrt(2)
    0.707

    Taught in: lesson 7 (compute efficiency).
    """
    return float(
        _achieved_flops(
            check_number("intensity_flop_per_byte", intensity_flop_per_byte, gt=0),
            check_number("peak_flops", peak_flops, gt=0),
            check_number("memory_bandwidth_bytes_per_s", memory_bandwidth_bytes_per_s, gt=0),
            check_number("ceiling", ceiling, gt=0, le=1),
            check_number("smoothness", smoothness, ge=1, le=64),
        )
    )


def _roofline_time_s(flops: Any, bytes_moved: Any, peak_flops: Any, memory_bandwidth_bytes_per_s: Any) -> Any:
    compute = flops / peak_flops
    memory = bytes_moved / memory_bandwidth_bytes_per_s
    return (compute + memory + abs(compute - memory)) / 2  # max(), array-generic


@finite_result
def roofline_time_s(flops: float, bytes_moved: float, peak_flops: float, memory_bandwidth_bytes_per_s: float) -> float:
    """Lower bound on a kernel's time: the slower of its FLOPs at peak and its bytes at full bandwidth.

    >>> roofline_time_s(2 * 70e9, 140e9, 989e12, 3.35e12) * 1e3   # one decode token of a 70B bf16 model
    41.791044776119406

    Taught in: lesson 7 (compute efficiency); used by serving (lesson 10).
    """
    return float(
        _roofline_time_s(
            check_number("flops", flops, ge=0),
            check_number("bytes_moved", bytes_moved, ge=0),
            check_number("peak_flops", peak_flops, gt=0),
            check_number("memory_bandwidth_bytes_per_s", memory_bandwidth_bytes_per_s, gt=0),
        )
    )


def _attention_matmul_totals(
    tokens: Any, hidden: Any, kv_hidden: Any, tp: Any, bytes_per_element: Any
) -> tuple[Any, Any]:
    """(FLOPs, bytes) of one layer's attention projections on one TP rank: the fused QKV projection (column-parallel)
    and the output projection (row-parallel), for ``tokens`` tokens."""
    shapes = (
        (tokens, hidden, (hidden + 2 * kv_hidden) / tp),
        (tokens, hidden / tp, hidden),
    )
    flops: Any = 0
    moved: Any = 0
    for m, k, n in shapes:
        flops = flops + _matmul_flops(m, k, n)
        moved = moved + _matmul_bytes(m, k, n, bytes_per_element)
    return flops, moved


def _mlp_matmul_totals(
    rows: Any, hidden: Any, ffn_hidden: Any, mlp_tp: Any, mlp_matrices: Any, bytes_per_element: Any
) -> tuple[Any, Any]:
    """(FLOPs, bytes) of one MLP's matmuls on one rank: ``rows`` tokens against the up (and gate) shard,
    column-parallel ``hidden × (mlp_matrices - 1)·ffn_hidden/mlp_tp``, and the down shard, row-parallel
    ``ffn_hidden/mlp_tp × hidden``. A dense layer's MLP, a shared expert, or one routed expert (whose ``rows`` are
    the tokens routed to it, see :func:`expert_matmul_intensity`)."""
    up = (rows, hidden, (mlp_matrices - 1) * ffn_hidden / mlp_tp)
    down = (rows, ffn_hidden / mlp_tp, hidden)
    flops = _matmul_flops(*up) + _matmul_flops(*down)
    moved = _matmul_bytes(*up, bytes_per_element) + _matmul_bytes(*down, bytes_per_element)
    return flops, moved


def _layer_matmul_totals(
    tokens: Any,
    hidden: Any,
    ffn_hidden: Any,
    kv_hidden: Any,
    tp: Any,
    mlp_matrices: Any,
    bytes_per_element: Any,
    mlp_tp: Any = None,
) -> tuple[Any, Any]:
    """(FLOPs, bytes) of one layer's linear matmuls on one TP rank, for ``tokens`` tokens.

    ``mlp_tp`` (default ``tp``) is the MLP's own tensor-parallel degree — a mixture of experts' expert TP under
    Megatron-Core's parallel folding: each rank then multiplies ``tokens·mlp_tp/tp`` rows (its sequence-parallel
    share gathered over the expert-TP group) by MLP shards ``ffn_hidden/mlp_tp`` wide, the same FLOPs in other shapes.
    """
    mlp_tp = tp if mlp_tp is None else mlp_tp
    attention_flops, attention_moved = _attention_matmul_totals(tokens, hidden, kv_hidden, tp, bytes_per_element)
    mlp_flops, mlp_moved = _mlp_matmul_totals(
        tokens * mlp_tp / tp, hidden, ffn_hidden, mlp_tp, mlp_matrices, bytes_per_element
    )
    return attention_flops + mlp_flops, attention_moved + mlp_moved


def _transformer_layer_matmul_intensity(*args: Any) -> Any:
    """FLOPs over bytes of :func:`_layer_matmul_totals` (the same arguments); array-generic."""
    flops, moved = _layer_matmul_totals(*args)
    return flops / moved


@finite_result
def transformer_layer_matmul_intensity(
    tokens: int,
    hidden: int,
    ffn_hidden: int,
    *,
    kv_hidden: int | None = None,
    tp: int = 1,
    mlp_matrices: int = 3,
    bytes_per_element: int = BF16_BYTES,
) -> float:
    """Arithmetic intensity of one transformer layer's linear matmuls on one TP rank, FLOP per byte.

    ``tokens`` is what one device multiplies at once: micro-batch × sequence length ÷ context-parallel
    degree in training, the batch of concurrent sequences in a decode step. The four matmuls are Megatron's
    TP split (column-parallel QKV and MLP-up, row-parallel output and MLP-down); their FLOPs and bytes are
    summed, so the result is the FLOP-weighted intensity. ``kv_hidden`` = KV heads × head dim (GQA), default
    ``hidden``; ``mlp_matrices`` is 3 for SwiGLU, 2 for GELU. TP divides every weight matrix but not the
    tokens, so a higher TP lowers the intensity; fewer tokens lower it more.

    >>> big = transformer_layer_matmul_intensity(2048, 8192, 28672, kv_hidden=1024, tp=8)
    >>> small = transformer_layer_matmul_intensity(256, 8192, 28672, kv_hidden=1024, tp=8)
    >>> round(big), round(small)
    (1091, 231)

    Taught in: lesson 7 (compute efficiency).
    """
    hidden = check_int("hidden", hidden, ge=1)
    kv = hidden if kv_hidden is None else check_int("kv_hidden", kv_hidden, ge=1)
    return float(
        _transformer_layer_matmul_intensity(
            check_int("tokens", tokens, ge=1),
            hidden,
            check_int("ffn_hidden", ffn_hidden, ge=1),
            kv,
            check_int("tp", tp, ge=1),
            check_int("mlp_matrices", mlp_matrices, ge=2, le=3),
            check_int("bytes_per_element", bytes_per_element, ge=1),
        )
    )


def _expert_matmul_intensity(
    rows: Any, hidden: Any, ffn_hidden: Any, etp: Any, mlp_matrices: Any, bytes_per_element: Any
) -> Any:
    """FLOPs over bytes of one routed expert's matmuls (:func:`_mlp_matmul_totals`); array-generic."""
    flops, moved = _mlp_matmul_totals(rows, hidden, ffn_hidden, etp, mlp_matrices, bytes_per_element)
    return flops / moved


@finite_result
def expert_matmul_intensity(
    rows: float,
    hidden: int,
    ffn_hidden: int,
    *,
    etp: int = 1,
    mlp_matrices: int = 3,
    bytes_per_element: int = BF16_BYTES,
) -> float:
    """Arithmetic intensity of one routed expert's matmuls in a mixture-of-experts layer, FLOP per byte.

    A grouped GEMM runs each local expert as its own matmul: ``rows`` tokens (those routed to this expert) against
    its own weights, ``hidden × ffn_hidden/etp`` shards (``mlp_matrices`` 3 for SwiGLU). Every expert reads its
    weights once per micro-batch, so few rows per expert mean a low intensity however many tokens the layer
    sees. With balanced routing an expert gets ``tokens·top_k/num_experts`` of the tokens that reach its
    expert-parallel group (see the planner).

    >>> round(expert_matmul_intensity(512, 2048, 768))    # a Qwen3 30B-A3B expert with 512 tokens routed to it
    302
    >>> round(expert_matmul_intensity(4096, 2048, 768))   # with 8x the tokens (8 EP ranks send it theirs)
    625

    Taught in: lesson 9 (decision workbench: the routed-expert line of a mixture-of-experts candidate's ledger).
    """
    return float(
        _expert_matmul_intensity(
            check_number("rows", rows, gt=0),
            check_int("hidden", hidden, ge=1),
            check_int("ffn_hidden", ffn_hidden, ge=1),
            check_int("etp", etp, ge=1),
            check_int("mlp_matrices", mlp_matrices, ge=2, le=3),
            check_int("bytes_per_element", bytes_per_element, ge=1),
        )
    )


# --------------------------------------------------------------------------- a training layout's per-GPU layer
# (added for lesson 7's widget and exercises: how TP, micro-batch and CP set the shape one GPU multiplies)


class LayerShape(Protocol):
    """What :func:`layout_matmul_intensity` reads from a model (e.g. a :class:`coursekit.planner.ModelSpec`)."""

    @property
    def hidden(self) -> int: ...

    @property
    def ffn_hidden(self) -> int: ...

    @property
    def kv_hidden(self) -> int: ...

    @property
    def mlp(self) -> str: ...


#: Weight matrices of one MLP by its kind: SwiGLU has gate, up and down; GELU has up and down.
MLP_MATRICES: dict[str, int] = {"swiglu": 3, "gelu": 2}


def tokens_per_gpu(micro_batch: int, seq_len: int, cp: int = 1) -> int:
    """Tokens one GPU multiplies per layer in training: micro_batch · seq_len / cp (CP splits the sequence).

    >>> tokens_per_gpu(1, 8192, cp=8)
    1024

    Taught in: lesson 7 (compute efficiency).
    """
    micro_batch = check_int("micro_batch", micro_batch, ge=1)
    seq_len = check_int("seq_len", seq_len, ge=1)
    cp = check_int("cp", cp, ge=1)
    check_divides("cp", cp, "seq_len", seq_len)
    return micro_batch * seq_len // cp


def layout_matmul_intensity(model: LayerShape, *, tp: int, micro_batch: int, seq_len: int, cp: int = 1) -> float:
    """FLOP per byte of one GPU's share of a layer's linear matmuls under a TP / micro-batch / CP layout.

    :func:`tokens_per_gpu` tokens against the model's matrices split by ``tp``
    (:func:`transformer_layer_matmul_intensity`). A decode step is ``micro_batch`` sequences of
    ``seq_len = 1`` new token.

    >>> from coursekit.presets import MODELS
    >>> round(layout_matmul_intensity(MODELS["llama3-70b"], tp=8, micro_batch=1, seq_len=8192))
    1816

    Taught in: lesson 7 (compute efficiency).
    """
    missing = [name for name in ("hidden", "ffn_hidden", "kv_hidden", "mlp") if not hasattr(model, name)]
    if missing:
        raise TypeError(tr("roofline.not_a_layer_shape", value=shown_repr(model), type=type(model).__name__))
    mlp = check_choice("mlp", model.mlp, tuple(MLP_MATRICES))
    return transformer_layer_matmul_intensity(
        tokens_per_gpu(micro_batch, seq_len, cp),
        model.hidden,
        model.ffn_hidden,
        kv_hidden=model.kv_hidden,
        tp=tp,
        mlp_matrices=MLP_MATRICES[mlp],
    )


learner_functions(globals())
