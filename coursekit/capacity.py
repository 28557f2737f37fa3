"""Q1 capacity: what one device must hold, and whether it fits.

Three ledgers, each a small frozen dataclass:

* :func:`build_resource_ledger` — the Q1 ledger of lesson 1: state + activations +
  runtime reserve against device memory, all in GiB.
* :func:`training_state_memory` — model states per rank (parameters, gradients,
  optimizer states) under a precision recipe, ZeRO / FSDP sharding over the
  data-parallel group and an even tensor / pipeline model-parallel split.
* :func:`activation_memory` — activation bytes per rank following Korthikanti
  et al. 2022 (arXiv:2205.05198), Table 2, with context parallelism on top.

Every number these functions return is in bytes or GiB as the field name says
(1 GiB = 2**30 bytes; the ZeRO paper's GB = 10**9 bytes is offered as
``total_gb`` for checking against it).

>>> mem = training_state_memory(7.5e9, dp=64, zero_stage=3)
>>> round(mem.total_gb, 3)
1.875

Taught in: lesson 1 (Q1 capacity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._validate import (
    check_bool,
    check_choice,
    check_divides,
    check_int,
    check_number,
    finite_result,
    learner_functions,
)
from .activations import LayerWidths, _korthikanti_widths, _layer_activation_terms
from .i18n import Text, register, tr
from .specs import (
    DEFAULT_RECIPE,
    PRECISION_RECIPES,
    PRECISIONS,
    RECOMPUTE_MODES,
    PrecisionRecipe,
)
from .specs import (
    MEGATRON_DISTOPT_SOURCE as MEGATRON_DISTOPT_SOURCE,
)
from .specs import (
    ZERO_PAPER_SOURCE as ZERO_PAPER_SOURCE,
)
from .units import bytes_to_gb, bytes_to_gib

__all__ = [
    "FSDP_SHARDING_TO_ZERO_STAGE",
    "PRECISION_RECIPES",
    "RECOMPUTE_MODES",
    "ActivationMemory",
    "PrecisionRecipe",
    "ResourceLedger",
    "TrainingStateMemory",
    "activation_memory",
    "activation_memory_breakdown",
    "build_resource_ledger",
    "fsdp_zero_stage",
    "training_state_memory",
]

register(
    {
        "capacity.recipe_conflict": {
            "zh": "{name} = {value!r}：与精度方案 {recipe!r} 冲突，该方案规定 {name} = {expected!r}；二者只传其一。",
            "en": "{name} = {value!r}: conflicts with recipe {recipe!r}, which sets {name} = {expected!r}; "
            "pass one or the other.",
        },
        "capacity.widths_type": {
            "zh": "widths = {value!r}：必须是 LayerWidths（例如 model.layer_widths()），而不是 {type}。",
            "en": "widths = {value!r}: must be a LayerWidths (e.g. model.layer_widths()), not {type}.",
        },
        "capacity.widths_shape": {
            "zh": "widths 描述 hidden = {w_hidden}、heads = {w_heads} 的层，"
            "与 hidden = {hidden}、heads = {heads} 不符。",
            "en": "widths describe a layer with hidden = {w_hidden}, heads = {w_heads}, not hidden = {hidden}, "
            "heads = {heads}.",
        },
        "capacity.ledger_fits": {
            "zh": "需要 {required_gib} GiB，设备显存 {device_memory_gib} GiB：余量 {headroom_gib} GiB，单卡放得下。",
            "en": "Needs {required_gib} GiB of {device_memory_gib} GiB device memory: "
            "{headroom_gib} GiB headroom, fits on one device.",
        },
        "capacity.ledger_short": {
            "zh": "需要 {required_gib} GiB，设备显存 {device_memory_gib} GiB：缺口 {shortfall_gib} GiB，单卡放不下。",
            "en": "Needs {required_gib} GiB of {device_memory_gib} GiB device memory: "
            "{shortfall_gib} GiB short, does not fit on one device.",
        },
    }
)

# ---------------------------------------------------------------------------
# Q1 resource ledger (lesson 1, validated)
# ---------------------------------------------------------------------------

#: Decimal places the ledger rounds GiB figures to (for display).
LEDGER_DECIMALS: int = 2


@dataclass(frozen=True)
class ResourceLedger:
    """One device's capacity ledger, all fields in GiB (2**30 bytes).

    ``required_gib = state_gib + activation_gib + runtime_reserve_gib`` and
    ``headroom_gib = device_memory_gib - required_gib``; both are rounded to
    2 decimals for display. ``fits_one_device`` is decided on
    the *unrounded* sum, so a shortfall of 0.004 GiB shows ``headroom_gib ==
    -0.0`` and still reports ``False``. ``shortfall_gib`` is ``max(0,
    -headroom)`` rounded the same way.

    >>> build_resource_ledger(22.0, 5.0, 2.0, 24.0).headroom_gib
    -5.0

    Taught in: lesson 1 (Q1 capacity).
    """

    state_gib: float
    activation_gib: float
    runtime_reserve_gib: float
    required_gib: float
    device_memory_gib: float
    headroom_gib: float
    shortfall_gib: float
    fits_one_device: bool

    def explain(self) -> str:
        """One sentence in the current language saying whether it fits and by how much.

        >>> build_resource_ledger(13.0, 4.0, 2.0, 24.0).explain()
        'Needs 19.0 GiB of 24.0 GiB device memory: 5.0 GiB headroom, fits on one device.'
        """
        key = "capacity.ledger_fits" if self.fits_one_device else "capacity.ledger_short"
        return tr(
            key,
            required_gib=self.required_gib,
            device_memory_gib=self.device_memory_gib,
            headroom_gib=self.headroom_gib,
            shortfall_gib=self.shortfall_gib,
        )


@finite_result
def build_resource_ledger(
    state_gib: float,
    activation_gib: float,
    runtime_reserve_gib: float,
    device_memory_gib: float,
) -> ResourceLedger:
    """Sum one device's capacity needs and compare them with its memory.

    Parameters (all GiB, 1 GiB = 2**30 bytes):
        state_gib: model states held by this rank (parameters, gradients,
            optimizer states; see :func:`training_state_memory`), >= 0.
        activation_gib: activations kept for the backward pass, >= 0
            (see :func:`activation_memory`).
        runtime_reserve_gib: CUDA context, allocator fragmentation, buffers, >= 0.
        device_memory_gib: usable device memory, > 0.

    ``bool``, strings, NaN and infinity are rejected.

    >>> build_resource_ledger(13.0, 4.0, 2.0, 24.0).fits_one_device
    True
    >>> build_resource_ledger(22.0, 5.0, 2.0, 24.0).shortfall_gib
    5.0
    >>> build_resource_ledger(1.0, 1.0, 1.0, 0)
    Traceback (most recent call last):
    ...
    ValueError: device_memory_gib = 0: must be > 0.

    Taught in: lesson 1 (Q1 capacity).
    """
    state = check_number("state_gib", state_gib, ge=0)
    activation = check_number("activation_gib", activation_gib, ge=0)
    reserve = check_number("runtime_reserve_gib", runtime_reserve_gib, ge=0)
    device = check_number("device_memory_gib", device_memory_gib, gt=0)
    required = state + activation + reserve
    headroom = device - required
    return ResourceLedger(
        state_gib=state,
        activation_gib=activation,
        runtime_reserve_gib=reserve,
        required_gib=round(required, LEDGER_DECIMALS),
        device_memory_gib=round(device, LEDGER_DECIMALS),
        headroom_gib=round(headroom, LEDGER_DECIMALS),
        shortfall_gib=round(max(0.0, -headroom), LEDGER_DECIMALS),
        fits_one_device=headroom >= 0,
    )


# ---------------------------------------------------------------------------
# Precision recipes: bytes per parameter
# ---------------------------------------------------------------------------


def _resolve_recipe(
    recipe: str | PrecisionRecipe | None,
    param_bytes: float | None,
    grad_bytes: float | None,
    optimizer_bytes: float | None,
) -> PrecisionRecipe:
    explicit = {"param_bytes": param_bytes, "grad_bytes": grad_bytes, "optimizer_bytes": optimizer_bytes}
    checked = {name: check_number(name, value, ge=0) for name, value in explicit.items() if value is not None}
    if recipe is None:
        base = PRECISION_RECIPES[DEFAULT_RECIPE]
        if not checked:
            return base
        return PrecisionRecipe(
            name="custom",
            description=Text(zh="自定义精度方案", en="custom precision recipe"),
            param_bytes=checked.get("param_bytes", base.param_bytes),
            grad_bytes=checked.get("grad_bytes", base.grad_bytes),
            optimizer_bytes=checked.get("optimizer_bytes", base.optimizer_bytes),
            source="user input (unset fields from " + DEFAULT_RECIPE + ")",
        )
    if isinstance(recipe, PrecisionRecipe):
        chosen = recipe
    else:
        chosen = PRECISION_RECIPES[check_choice("recipe", recipe, PRECISION_RECIPES)]
    for name, value in checked.items():
        expected = getattr(chosen, name)
        if value != expected:
            raise ValueError(
                tr("capacity.recipe_conflict", name=name, value=explicit[name], recipe=chosen.name, expected=expected)
            )
    return chosen


# ---------------------------------------------------------------------------
# Model states per rank: ZeRO / FSDP, TP, PP
# ---------------------------------------------------------------------------

#: PyTorch FSDP ``ShardingStrategy`` -> ZeRO stage with the same per-rank model-state memory.
#: NO_SHARD replicates like DDP (stage 0); SHARD_GRAD_OP shards gradients and optimizer
#: states (stage 2: the full parameters stay resident through forward and backward);
#: FULL_SHARD also shards parameters (stage 3). HYBRID_SHARD is FULL_SHARD inside a
#: sharding group: use stage 3 with ``dp`` = the size of that group.
FSDP_SHARDING_TO_ZERO_STAGE: dict[str, int] = {"NO_SHARD": 0, "SHARD_GRAD_OP": 2, "FULL_SHARD": 3}


def fsdp_zero_stage(sharding_strategy: str) -> int:
    """The ZeRO stage whose per-rank model-state memory an FSDP sharding strategy matches.

    Parameters:
        sharding_strategy: ``"NO_SHARD"``, ``"SHARD_GRAD_OP"`` or ``"FULL_SHARD"``
            (PyTorch ``torch.distributed.fsdp.ShardingStrategy`` names).

    >>> fsdp_zero_stage("FULL_SHARD")
    3
    >>> fsdp_zero_stage("SHARD_GRAD_OP")
    2

    Taught in: lesson 1 (Q1 capacity).
    """
    strategy = check_choice("sharding_strategy", sharding_strategy, FSDP_SHARDING_TO_ZERO_STAGE)
    return FSDP_SHARDING_TO_ZERO_STAGE[strategy]


@dataclass(frozen=True)
class TrainingStateMemory:
    """Model-state bytes one rank holds: weights, gradients and optimizer states.

    Fields ``params_bytes``, ``grads_bytes``, ``optimizer_bytes`` and
    ``total_bytes`` are bytes per rank; the inputs (``num_params``, the resolved
    ``recipe``, ``dp``, ``zero_stage``, ``tp``, ``pp``) are kept alongside.

    >>> m = training_state_memory(1e9, dp=8, zero_stage=2)
    >>> m.params_bytes, m.grads_bytes, m.optimizer_bytes
    (2000000000.0, 250000000.0, 1500000000.0)

    Taught in: lesson 1 (Q1 capacity).
    """

    num_params: float
    recipe: PrecisionRecipe
    dp: int
    zero_stage: int
    tp: int
    pp: int
    params_bytes: float
    grads_bytes: float
    optimizer_bytes: float
    total_bytes: float

    @property
    def params_per_model_parallel_rank(self) -> float:
        """Parameters this rank's model-parallel shard holds: ``num_params / (tp * pp)``."""
        return self.num_params / (self.tp * self.pp)

    @property
    def params_gib(self) -> float:
        """Weights per rank in GiB."""
        return bytes_to_gib(self.params_bytes)

    @property
    def grads_gib(self) -> float:
        """Gradients per rank in GiB."""
        return bytes_to_gib(self.grads_bytes)

    @property
    def optimizer_gib(self) -> float:
        """Optimizer states per rank in GiB."""
        return bytes_to_gib(self.optimizer_bytes)

    @property
    def total_gib(self) -> float:
        """All model states per rank in GiB (2**30 bytes)."""
        return bytes_to_gib(self.total_bytes)

    @property
    def total_gb(self) -> float:
        """All model states per rank in GB (10**9 bytes), the unit of the ZeRO paper."""
        return bytes_to_gb(self.total_bytes)


def _state_bytes(
    local_params: Any, dp: Any, zero_stage: Any, param_bytes: Any, grad_bytes: Any, optimizer_bytes: Any
) -> tuple[Any, Any, Any]:
    """(weights, gradients, optimizer states) bytes per rank for Ψ = ``local_params``; array-generic.

    ZeRO stage >= 1 divides the optimizer states by ``dp``, >= 2 also the gradients, 3 also the weights.
    """
    weights = param_bytes * local_params / (1 + (dp - 1) * (zero_stage >= 3))
    grads = grad_bytes * local_params / (1 + (dp - 1) * (zero_stage >= 2))
    optimizer = optimizer_bytes * local_params / (1 + (dp - 1) * (zero_stage >= 1))
    return weights, grads, optimizer


@finite_result
def training_state_memory(
    num_params: float,
    *,
    param_bytes: float | None = None,
    grad_bytes: float | None = None,
    optimizer_bytes: float | None = None,
    dp: int = 1,
    zero_stage: int = 0,
    tp: int = 1,
    pp: int = 1,
    recipe: str | PrecisionRecipe | None = None,
) -> TrainingStateMemory:
    """Per-rank bytes of weights, gradients and optimizer states.

    Parameters:
        num_params: parameters of the whole model (a count, e.g. ``7.5e9``), > 0.
        param_bytes, grad_bytes, optimizer_bytes: bytes per parameter. When
            left unset they come from ``recipe``, or from ``"zero-fp16-adam"``
            (2, 2, 12) when no recipe is named. Passing one together with a
            recipe is allowed only if it equals the recipe's value; otherwise
            ``ValueError`` (a recipe is a fixed set of dtypes).
        dp: data-parallel degree N_d, >= 1.
        zero_stage: 0 replicates everything; 1 shards optimizer states over
            ``dp``; 2 also gradients; 3 also weights (ZeRO §5; FSDP mapping in
            :func:`fsdp_zero_stage`).
        tp, pp: tensor- and pipeline-parallel degrees, >= 1. The model is
            assumed to split evenly, so each rank's model-parallel shard holds
            ``num_params / (tp * pp)`` parameters.
        recipe: a name in :data:`PRECISION_RECIPES` or a :class:`PrecisionRecipe`.

    With Ψ = num_params / (tp·pp) and per-parameter bytes p, g, k:
    stage 0 holds (p + g + k)·Ψ; stage 1 p·Ψ + g·Ψ + k·Ψ/dp; stage 2
    p·Ψ + (g + k)·Ψ/dp; stage 3 (p + g + k)·Ψ/dp.
    Activations, buffers, fragmentation and the unit of weights stage 3 gathers
    for the layer it is computing are not included.

    >>> m = training_state_memory(7.5e9, dp=64, zero_stage=1)
    >>> round(m.total_gb, 1)
    31.4
    >>> training_state_memory(1e9, recipe="fp32-adam", param_bytes=2)
    Traceback (most recent call last):
    ...
    ValueError: param_bytes = 2: conflicts with recipe 'fp32-adam', which sets param_bytes = 4.0; pass one or the other.

    Taught in: lesson 1 (Q1 capacity).
    """
    params = check_number("num_params", num_params, gt=0)
    dp = check_int("dp", dp, ge=1)
    zero_stage = check_int("zero_stage", zero_stage, ge=0, le=3)
    tp = check_int("tp", tp, ge=1)
    pp = check_int("pp", pp, ge=1)
    chosen = _resolve_recipe(recipe, param_bytes, grad_bytes, optimizer_bytes)

    weights, grads, optimizer = _state_bytes(
        params / (tp * pp), dp, zero_stage, chosen.param_bytes, chosen.grad_bytes, chosen.optimizer_bytes
    )
    return TrainingStateMemory(
        num_params=params,
        recipe=chosen,
        dp=dp,
        zero_stage=zero_stage,
        tp=tp,
        pp=pp,
        params_bytes=weights,
        grads_bytes=grads,
        optimizer_bytes=optimizer,
        total_bytes=weights + grads + optimizer,
    )


# ---------------------------------------------------------------------------
# Activations per rank (Korthikanti et al. 2022, Table 2)
# ---------------------------------------------------------------------------


#: Bytes per layer per s·b·h that Korthikanti et al. (arXiv:2205.05198, §4.1, Eq. 1)
#: count outside the attention scores with 16-bit activations: attention block 11,
#: MLP 19, two layer norms 4.
ACT_LINEAR_COEFF: int = 34
#: Of those 34, the part tensor parallelism leaves replicated on every TP rank (Eq. 2):
#: two layer-norm inputs 4, the inputs of the first attention and first MLP linear 4,
#: two dropout masks 2. The other 24 are split by t.
ACT_REPLICATED_COEFF: int = 10
#: Bytes per a·s²·b for the attention scores: softmax output 2, dropout mask 1,
#: dropout output 2 (Eq. 1's 5as/h term).
ACT_SCORES_COEFF: int = 5
#: Bytes per s·b·h kept per layer under full recomputation: the layer input only.
ACT_FULL_RECOMPUTE_COEFF: int = 2

KORTHIKANTI_SOURCE: str = (
    "Korthikanti et al., Reducing Activation Recomputation in Large Transformer Models, arXiv:2205.05198, Table 2"
)


@dataclass(frozen=True)
class ActivationMemory:
    """Activation bytes one rank keeps for the backward pass, with the two terms of Table 2.

    ``linear_bytes_per_layer`` is the part linear in sequence length (the
    34·s·b·h family, or 2·s·b·h under full recomputation);
    ``attention_bytes_per_layer`` is the 5·a·s²·b attention-score part (0 with
    selective or full recomputation). ``per_layer_bytes`` is their sum and
    ``total_bytes = per_layer_bytes * layers``. The inputs are kept alongside.

    >>> act = activation_memory_breakdown(seq_len=1024, micro_batch=1, hidden=1024, heads=8, recompute="selective")
    >>> act.linear_bytes_per_layer == 34 * 1024 * 1024, act.attention_bytes_per_layer
    (True, 0.0)

    Taught in: lesson 1 (Q1 capacity).
    """

    seq_len: int
    micro_batch: int
    hidden: int
    heads: int
    layers: int
    tp: int
    sequence_parallel: bool
    recompute: str
    cp: int
    linear_bytes_per_layer: float
    attention_bytes_per_layer: float
    per_layer_bytes: float
    total_bytes: float

    @property
    def total_gib(self) -> float:
        """``total_bytes`` in GiB."""
        return bytes_to_gib(self.total_bytes)


def _activation_terms(
    s: Any, b: Any, h: Any, a: Any, t: Any, sp: Any, recompute_code: Any, cp: Any
) -> tuple[Any, Any, Any]:
    """(linear, attention-score, total) activation bytes per layer of Korthikanti's GPT layer; array-generic.

    ``recompute_code`` indexes :data:`RECOMPUTE_MODES` (0 none, 1 selective, 2 full); ``sp`` is
    sequence parallelism. The tensor-by-tensor count of :mod:`coursekit.activations` with multi-head
    attention, a GELU MLP of width 4h, dropout on and the scores materialised, which is Table 2 exactly.
    """
    return _layer_activation_terms(_korthikanti_widths(h, a), s, b, t, sp, recompute_code, cp, False)


@finite_result
def _checked_widths(widths: LayerWidths | None, h: int, a: int) -> LayerWidths:
    """``widths`` checked against hidden ``h`` and heads ``a``; ``None`` is Korthikanti et al.'s GPT layer."""
    if widths is None:
        return _korthikanti_widths(h, a)
    if not isinstance(widths, LayerWidths):
        raise TypeError(tr("capacity.widths_type", value=widths, type=type(widths).__name__))
    if (widths.hidden, widths.heads) != (h, a):
        raise ValueError(tr("capacity.widths_shape", hidden=h, heads=a, w_hidden=widths.hidden, w_heads=widths.heads))
    return widths


def activation_memory_breakdown(
    *,
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    layers: int = 1,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    cp: int = 1,
    widths: LayerWidths | None = None,
    flash_attention: bool = False,
    precision: str = "bf16",
) -> ActivationMemory:
    """Activation bytes per rank for one micro-batch, split into Table 2's two terms.

    Parameters:
        seq_len: tokens per sequence s (the full sequence, before context parallelism).
        micro_batch: sequences per micro-batch b.
        hidden: hidden size h.
        heads: attention heads a; ``tp`` must divide it.
        layers: transformer layers this rank holds (with pipeline parallelism,
            the layers of its stage; multiply by the micro-batches in flight
            yourself — the first 1F1B stage keeps ``pp`` of them).
        tp: tensor-parallel degree t.
        sequence_parallel: Megatron sequence parallelism inside the TP group
            (no effect when ``tp == 1``).
        recompute: ``"none"``, ``"selective"`` (recompute the attention core)
            or ``"full"`` (keep only each layer's input).
        cp: context-parallel degree; must divide ``seq_len``.
        widths: the layer's real widths (:class:`coursekit.activations.LayerWidths`, e.g.
            ``model.layer_widths()``: GQA, SwiGLU, MLA, MoE, dropout off); ``None`` = the GPT layer of
            Korthikanti et al. (multi-head attention, GELU MLP of width 4h, dropout on).
        flash_attention: fused attention that stores no s×s scores, only an fp32 softmax statistic per head
            and query (:data:`coursekit.activations.SOFTMAX_STATS_BYTES`). With it, ``recompute="none"``
            no longer carries the quadratic term: that is what "no recomputation" means in today's
            Megatron-Core and NeMo configurations.
        precision: ``"bf16"`` (default) or ``"fp8"``: the linear layers run in FP8 and save their inputs at
            1 byte per element (Transformer Engine; :data:`coursekit.activations.FP8_SAVED_INPUTS_SOURCE`).

    The count is tensor by tensor (:func:`coursekit.activations.layer_activation_ledger`). Per layer,
    with s, b, h, a, t as above and the default widths (Korthikanti et al. 2022, Table 2;
    16-bit activations, attention scores materialised, no flash attention):

    ======================  ===============================  =====================
    recompute               no sequence parallelism          sequence parallelism
    ======================  ===============================  =====================
    none                    s·b·h·(10 + 24/t + 5·a·s/(h·t))  s·b·h/t·(34 + 5·a·s/h)
    selective               s·b·h·(10 + 24/t)                s·b·h·34/t
    full                    2·s·b·h                          2·s·b·h/t
    ======================  ===============================  =====================

    Table 2 lists full recomputation as 2·s·b·h; with sequence parallelism the
    stored layer input is itself split along the sequence over the TP group
    (§4.2.2), hence /t. With t = 1 the first row is Eq. 1, s·b·h·(34 + 5·a·s/h).

    Context parallelism (Megatron-Core CP, ring attention arXiv:2310.01889)
    gives each rank s/cp query tokens. Every linear term holds s/cp tokens; the
    score term holds scores of its s/cp queries against all s keys (computed
    block by block as K/V circulate), 5·a·(s/cp)·s·b. So every term is the
    cp = 1 value divided by cp — not s replaced by s/cp, which would divide the
    quadratic term by cp².

    >>> act = activation_memory_breakdown(seq_len=2048, micro_batch=1, hidden=12288, heads=96, tp=8)
    >>> act.linear_bytes_per_layer / (2048 * 12288), act.attention_bytes_per_layer / (2048 * 12288)
    (13.0, 10.0)

    Taught in: lesson 1 (Q1 capacity).
    """
    s = check_int("seq_len", seq_len, ge=1)
    b = check_int("micro_batch", micro_batch, ge=1)
    h = check_int("hidden", hidden, ge=1)
    a = check_int("heads", heads, ge=1)
    n_layers = check_int("layers", layers, ge=1)
    t = check_int("tp", tp, ge=1)
    sp = check_bool("sequence_parallel", sequence_parallel)
    mode = check_choice("recompute", recompute, RECOMPUTE_MODES)
    c = check_int("cp", cp, ge=1)
    check_divides("tp", t, "heads", a)
    check_divides("cp", c, "seq_len", s)

    flash = check_bool("flash_attention", flash_attention)
    fp8 = check_choice("precision", precision, PRECISIONS) == "fp8"
    widths = _checked_widths(widths, h, a)
    code = RECOMPUTE_MODES.index(mode)
    linear, attention, per_layer = _layer_activation_terms(widths, s, b, t, sp, code, c, flash, fp8)
    return ActivationMemory(
        seq_len=s,
        micro_batch=b,
        hidden=h,
        heads=a,
        layers=n_layers,
        tp=t,
        sequence_parallel=sp,
        recompute=mode,
        cp=c,
        linear_bytes_per_layer=float(linear),
        attention_bytes_per_layer=float(attention),
        per_layer_bytes=float(per_layer),
        total_bytes=float(per_layer * n_layers),
    )


@finite_result
def activation_memory(
    *,
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    layers: int = 1,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    cp: int = 1,
    widths: LayerWidths | None = None,
    flash_attention: bool = False,
    precision: str = "bf16",
) -> float:
    """Activation bytes per rank for one micro-batch (Korthikanti et al. 2022, Table 2).

    Same parameters and formulas as :func:`activation_memory_breakdown`, which
    also returns the per-term split; this returns ``total_bytes`` only.

    >>> activation_memory(seq_len=2048, micro_batch=1, hidden=12288, heads=96,
    ...                   tp=8, sequence_parallel=True, recompute="selective")
    106954752.0
    >>> activation_memory(seq_len=2048, micro_batch=1, hidden=12288, heads=96, tp=5)
    Traceback (most recent call last):
    ...
    ValueError: tp = 5: must divide heads = 96.

    Taught in: lesson 1 (Q1 capacity).
    """
    return activation_memory_breakdown(
        seq_len=seq_len,
        micro_batch=micro_batch,
        hidden=hidden,
        heads=heads,
        layers=layers,
        tp=tp,
        sequence_parallel=sequence_parallel,
        recompute=recompute,
        cp=cp,
        widths=widths,
        flash_attention=flash_attention,
        precision=precision,
    ).total_bytes


learner_functions(globals())
