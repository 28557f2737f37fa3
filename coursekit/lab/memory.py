"""Count the bytes each rank really holds under DDP, FSDP2 and TP, and explain every byte the ledger misses.

:func:`run_memory` trains a small transformer (:class:`TinyTransformerConfig`)
for one Adam step under four strategies and measures, on every rank, the
bytes of the storages it holds — parameters (the local tensors of DTensors),
gradients, Adam state. :func:`compare_memory` sets each number against
:func:`coursekit.capacity.training_state_memory` with the ``"fp32-adam"``
recipe (4 + 4 + 8 bytes per parameter) and against the exact extras the
ledger leaves out:

* **padding** — FSDP2 shards dim 0 of every parameter into ``ceil(d0 / n)``
  rows per rank and pads the last shards, so every rank stores
  ``ceil(d0 / n)·rest`` elements for a ``d0 × rest`` tensor.
* **uneven shard** — Adam's state is allocated for the *unpadded* local shard,
  so when ``d0`` does not divide evenly the first ranks hold a little more.
* **sharded copy** — with ``reshard_after_forward=False`` (ZeRO-2 behaviour)
  the all-gathered parameters stay alive from forward to backward *and* FSDP2
  keeps its sharded parameters (the ones Adam updates) beside them.
* **replicated** — tensor parallelism shards only the attention and MLP
  projections; LayerNorm weights and biases, the biases of row-wise layers and
  the classifier head stay whole on every rank.
* **step counters** — PyTorch's Adam keeps one float32 ``step`` scalar per
  parameter tensor (torch/optim/adam.py, ``state["step"]``).

When a measured number differs from ledger + extras, the report says so and
``python -m coursekit.lab memory`` exits non-zero.

Measurement points: parameters right after the forward pass (where ZeRO-2
and ZeRO-3 differ), gradients right after backward, Adam state after the
step. Storages are counted once even when several tensors view them (DDP's
gradients are views into its buckets with ``gradient_as_bucket_view=True``;
with the default ``False`` DDP would hold a second, bucketed copy of the
gradients that no ledger shows). Activations and communication buffers are
not counted.

>>> config = TinyTransformerConfig()
>>> sum(spec.numel for spec in parameter_layout(config))
100421

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._validate import check_choice, check_instance, check_int, learner_functions
from ..capacity import PRECISION_RECIPES, TrainingStateMemory, training_state_memory
from ..i18n import Reason, register, shown_repr, tr
from ._format import LabTable, fmt_count
from ._json import Field, read_source
from .collectives import DEVICES, check_listed, check_ranks
from .tiny_config import TinyTransformerConfig

__all__ = [
    "ADAM_STEP_BYTES",
    "COMPONENTS",
    "MEMORY_SCHEMA",
    "RECIPE",
    "STRATEGIES",
    "MemoryAdjustment",
    "MemoryReport",
    "MemoryRow",
    "ParameterSpec",
    "StrategyMemory",
    "TinyTransformerConfig",
    "compare_memory",
    "expected_adjustments",
    "ledger_for",
    "load_memory_json",
    "parameter_layout",
    "run_memory",
    "tp_supported",
]

#: The strategies measured, in the order they are printed.
STRATEGIES: tuple[str, ...] = ("ddp", "fsdp2-zero3", "fsdp2-zero2", "tp")
#: The rows of each table (``total`` is their sum).
COMPONENTS: tuple[str, ...] = ("params", "grads", "optimizer", "total")
#: The precision recipe of the lab: fp32 weights, fp32 gradients, fp32 Adam moments.
RECIPE: str = "fp32-adam"
#: Bytes of one of Adam's ``step`` counters: a float32 scalar per parameter tensor
#: (torch/optim/adam.py, ``_init_group``: ``torch.tensor(0.0, dtype=_get_scalar_dtype())``).
ADAM_STEP_BYTES: int = 4
#: Version tag of the JSON written by :meth:`MemoryReport.to_json_dict`.
MEMORY_SCHEMA: str = "coursekit.lab.memory/1"
#: Largest |measured - expected| still called a match, bytes (the ledger divides by n in floating point).
MATCH_TOLERANCE_BYTES: float = 1e-6

register(
    {
        "lab.mem_title": {
            "zh": "{strategy}：rank {rank} / 共 {ranks} 个（持有最多字节的 rank），账本 = {ledger}",
            "en": "{strategy}: rank {rank} of {ranks} (the rank holding the most bytes), ledger = {ledger}",
        },
        "lab.mem_skipped": {
            "zh": "{strategy}：跳过，{message}",
            "en": "{strategy}: skipped, {message}",
        },
        "lab.mem_col_component": {"zh": "组成", "en": "component"},
        "lab.mem_col_measured": {"zh": "实测（字节/rank）", "en": "measured (B/rank)"},
        "lab.mem_col_ledger": {"zh": "账本（字节/rank）", "en": "ledger (B/rank)"},
        "lab.mem_col_difference": {"zh": "差值", "en": "difference"},
        "lab.mem_col_explanation": {"zh": "解释", "en": "explanation"},
        "lab.mem_col_unexplained": {"zh": "未解释", "en": "unexplained"},
        "lab.mem_params": {"zh": "参数", "en": "params"},
        "lab.mem_grads": {"zh": "梯度", "en": "grads"},
        "lab.mem_optimizer": {"zh": "优化器状态", "en": "optimizer"},
        "lab.mem_total": {"zh": "合计", "en": "total"},
        "lab.mem_measured_type": {
            "zh": "measured = {value}：必须是把 {keys} 各自映射到字节数（int >= 0）的 dict，而不是 {type}。",
            "en": "measured = {value}: must be a dict mapping each of {keys} to a byte count (an int >= 0), not "
            "{type}.",
        },
        "lab.mem_measured_missing": {
            "zh": "measured 缺少 {missing}：{keys} 每一项都要给出字节数。",
            "en": "measured has no {missing}: give a byte count for each of {keys}.",
        },
        "lab.mem_json_ranks": {
            "zh": "{name}：给出的 rank 是 {found}，而结果有 {ranks} 个 rank："
            "每个 rank 0 … {ranks} - 1 必须恰好出现一次。",
            "en": "{name}: the ranks given are {found}, but the result has {ranks:@rank}: each rank 0 … {ranks} - 1 "
            "must appear exactly once.",
        },
        "lab.mem_exact": {"zh": "与账本一致", "en": "equals the ledger"},
        "lab.mem_sum": {"zh": "上面各行之和", "en": "sum of the rows above"},
        "lab.mem_ok": {
            "zh": "全部 {checked} 个数字（所有策略、所有 rank）都等于 账本 + 上述解释。",
            "en": "All {checked:@number} (every strategy, every rank) equal ledger + the explanations above.",
        },
        "lab.mem_mismatch": {
            "zh": "{count} 个数字与 账本 + 解释 不符，例如 {strategy} rank {rank} 的 {component}："
            "实测 {measured}，预期 {expected}。",
            "en": "{count} number(s) differ from ledger + explanations, e.g. {strategy} rank {rank} {component}: "
            "measured {measured}, expected {expected}.",
        },
        "lab.adj_padding_short": {"zh": "填充", "en": "padding"},
        "lab.adj_padding": {
            "zh": "FSDP2 沿第 0 维切分；{tensors} 个张量的第 0 维不是 {ranks} 的倍数，"
            "被填充 (padding) 到 {ranks} 的倍数：每个 rank 都存 ceil(d0/{ranks}) 行。",
            "en": "FSDP2 shards dim 0; for {tensors:@tensor} dim 0 is not a multiple of {ranks} and is padded up to "
            "one: every rank stores ceil(d0/{ranks}) rows.",
        },
        "lab.adj_gathered_padding_short": {"zh": "全量副本的填充", "en": "gathered padding"},
        "lab.adj_gathered_padding": {
            "zh": "全收集得到的完整参数也带着这 {tensors} 个张量的填充（每个张量 ceil(d0/n)·n 行）。",
            "en": "the all-gathered full parameters carry the padding of those {tensors:@tensor} too "
            "(ceil(d0/n)·n rows each).",
        },
        "lab.adj_sharded_copy_short": {"zh": "分片副本", "en": "sharded copy"},
        "lab.adj_sharded_copy": {
            "zh": "reshard_after_forward=False 时，完整参数从前向保留到反向，FSDP2 同时保留自己的（已填充的）"
            "分片参数，即 Adam 更新的那一份；账本的 ZeRO-2 只算完整的一份。",
            "en": "with reshard_after_forward=False the full parameters stay from forward to backward, and FSDP2 "
            "keeps its (padded) sharded parameters, the ones Adam updates, beside them; the ledger's ZeRO-2 "
            "counts only the full copy.",
        },
        "lab.adj_uneven_shard_short": {"zh": "分片不均", "en": "uneven shard"},
        "lab.adj_uneven_shard": {
            "zh": "{tensors} 个张量的第 0 维不能被 {ranks} 整除：Adam 状态按未填充的本地分片分配，"
            "所以 rank {rank} 与平均份额 1/{ranks} 不同。",
            "en": "dim 0 of {tensors:@tensor} does not divide by {ranks}: Adam state is allocated for the "
            "unpadded local shard, so rank {rank} differs from the even 1/{ranks} share.",
        },
        "lab.adj_replicated_short": {"zh": "复制的参数", "en": "replicated"},
        "lab.adj_replicated": {
            "zh": "TP 只切注意力与 MLP 的投影；{tensors} 个张量（{params} 个参数：LayerNorm 的权重与偏置、"
            "行切分层的偏置、分类头）在每个 rank 上完整保留，而账本按 1/{ranks} 均分："
            "多出 (1 - 1/{ranks}) × {params} 个参数。",
            "en": "TP shards only the attention and MLP projections; {tensors:@tensor} ({params:@parameter}: "
            "LayerNorm weights and biases, biases of row-wise layers, the classifier head) stay whole on every "
            "rank, where the ledger splits everything 1/{ranks}: (1 - 1/{ranks}) × {params:@parameter} more.",
        },
        "lab.adj_step_counters_short": {"zh": "step 计数器", "en": "step counters"},
        "lab.adj_step_counters": {
            "zh": "PyTorch 的 Adam 为每个参数张量保留一个 float32 的 step 计数器：{tensors} 个张量 × 4 字节。",
            "en": "PyTorch's Adam keeps one float32 step counter per parameter tensor: {tensors:@tensor} × 4 bytes.",
        },
        "lab.tp_unsupported": {
            "zh": "张量并行需要 rank 数整除 heads = {heads}、d_model = {d_model} 与 d_ff = {d_ff}，"
            "而 ranks = {ranks}。",
            "en": "tensor parallelism needs the rank count to divide heads = {heads}, d_model = {d_model} and "
            "d_ff = {d_ff}; ranks = {ranks}.",
        },
        "lab.strategy_ddp": {"zh": "DDP（数据并行，全量复制）", "en": "DDP (data parallel, full replicas)"},
        "lab.strategy_fsdp2-zero3": {
            "zh": "FSDP2 fully_shard，reshard_after_forward=True（ZeRO-3 行为）",
            "en": "FSDP2 fully_shard, reshard_after_forward=True (ZeRO-3 behaviour)",
        },
        "lab.strategy_fsdp2-zero2": {
            "zh": "FSDP2 fully_shard，reshard_after_forward=False（ZeRO-2 行为）",
            "en": "FSDP2 fully_shard, reshard_after_forward=False (ZeRO-2 behaviour)",
        },
        "lab.strategy_tp": {
            "zh": "张量并行 (TP)：ColwiseParallel / RowwiseParallel",
            "en": "tensor parallelism (TP): ColwiseParallel / RowwiseParallel",
        },
    }
)


@dataclass(frozen=True)
class ParameterSpec:
    """One parameter tensor of the model: its name, full shape and TP placement.

    ``tp_placement`` is ``"shard0"`` (ColwiseParallel: weight rows and bias),
    ``"shard1"`` (RowwiseParallel weight columns) or ``"replicate"``.

    Taught in: lesson 8 (formula vs measurement).
    """

    name: str
    shape: tuple[int, ...]
    tp_placement: str

    @property
    def numel(self) -> int:
        """Elements of the full tensor."""
        return math.prod(self.shape)


def parameter_layout(config: TinyTransformerConfig) -> tuple[ParameterSpec, ...]:
    """Every parameter of the lab model, in registration order, with its TP placement.

    >>> [s.name for s in parameter_layout(TinyTransformerConfig(layers=1))][:4]
    ['blocks.0.ln1.weight', 'blocks.0.ln1.bias', 'blocks.0.attn.q.weight', 'blocks.0.attn.q.bias']

    Taught in: lesson 8 (formula vs measurement).
    """
    check_instance("config", config, TinyTransformerConfig)
    d, f = config.d_model, config.d_ff
    specs: list[ParameterSpec] = []

    def norm(prefix: str) -> None:
        specs.extend(ParameterSpec(f"{prefix}.{part}", (d,), "replicate") for part in ("weight", "bias"))

    def linear(prefix: str, out_features: int, in_features: int, style: str) -> None:
        weight_placement = {"colwise": "shard0", "rowwise": "shard1", "none": "replicate"}[style]
        bias_placement = "shard0" if style == "colwise" else "replicate"
        specs.append(ParameterSpec(f"{prefix}.weight", (out_features, in_features), weight_placement))
        specs.append(ParameterSpec(f"{prefix}.bias", (out_features,), bias_placement))

    for i in range(config.layers):
        block = f"blocks.{i}"
        norm(f"{block}.ln1")
        for proj in ("q", "k", "v"):
            linear(f"{block}.attn.{proj}", d, d, "colwise")
        linear(f"{block}.attn.o", d, d, "rowwise")
        norm(f"{block}.ln2")
        linear(f"{block}.fc1", f, d, "colwise")
        linear(f"{block}.fc2", d, f, "rowwise")
    norm("head.norm")
    linear("head.out", config.classes, d, "none")
    return tuple(specs)


def tp_supported(config: TinyTransformerConfig, ranks: int) -> Reason | None:
    """``None`` when ``ranks`` can shard the heads and projections evenly, else why not.

    >>> tp_supported(TinyTransformerConfig(), 3).code
    'tp_unsupported'

    Taught in: lesson 8 (formula vs measurement).
    """
    check_instance("config", config, TinyTransformerConfig)
    n = check_int("ranks", ranks, ge=1)
    if config.heads % n or config.d_model % n or config.d_ff % n:
        params = {"heads": config.heads, "d_model": config.d_model, "d_ff": config.d_ff, "ranks": n}
        return Reason("tp_unsupported", "lab.tp_unsupported", params)
    return None


def ledger_for(strategy: str, num_params: int, ranks: int) -> TrainingStateMemory:
    """The :func:`coursekit.capacity.training_state_memory` call that models ``strategy`` on ``ranks`` ranks.

    DDP → ``dp=n, zero_stage=0``; FSDP2 with / without resharding after
    forward → ``zero_stage=3`` / ``2``; TP → ``tp=n``. Recipe ``"fp32-adam"``.

    >>> ledger_for("fsdp2-zero3", 1000, 4).params_bytes
    1000.0

    Taught in: lesson 8 (formula vs measurement).
    """
    strategy = check_choice("strategy", strategy, STRATEGIES)
    params = check_int("num_params", num_params, ge=1)  # the lab model's parameters, counted: a whole number
    n = check_int("ranks", ranks, ge=1)
    if strategy == "tp":
        return training_state_memory(params, recipe=RECIPE, tp=n)
    stage = {"ddp": 0, "fsdp2-zero3": 3, "fsdp2-zero2": 2}[strategy]
    return training_state_memory(params, recipe=RECIPE, dp=n, zero_stage=stage)


@dataclass(frozen=True)
class MemoryAdjustment:
    """One documented extra the ledger does not count: a stable ``code``, its bytes, and a localized reason.

    Taught in: lesson 8 (formula vs measurement).
    """

    code: str
    delta_bytes: float
    reason: Reason

    @property
    def message(self) -> str:
        """The explanation in the current language."""
        return self.reason.message

    @property
    def short(self) -> str:
        """A few words naming the adjustment, in the current language."""
        return tr(f"lab.adj_{self.code}_short")


def _adjustment(code: str, delta_bytes: float, **params: Any) -> MemoryAdjustment:
    return MemoryAdjustment(code, delta_bytes, Reason(code, f"lab.adj_{code}", params))


def _signed(value: float) -> str:
    text = fmt_count(value)
    return text if text.startswith("-") or text == "0" else "+" + text


def _fsdp_rows(d0: int, n: int, rank: int) -> tuple[int, int]:
    """(padded rows per rank, rows rank ``rank`` really owns) for a dim 0 of ``d0`` over ``n`` ranks."""
    per_rank = -(-d0 // n)
    return per_rank, min(per_rank, max(0, d0 - rank * per_rank))


def expected_adjustments(
    strategy: str, config: TinyTransformerConfig, ranks: int, rank: int
) -> dict[str, tuple[MemoryAdjustment, ...]]:
    """The extras, per component, that separate what rank ``rank`` holds from the ledger.

    Derived from the model's shapes only (:func:`parameter_layout`), never
    from a measurement. Element size 4 bytes (fp32), Adam state 8 bytes per
    element, one 4-byte step counter per tensor.

    >>> adj = expected_adjustments("fsdp2-zero3", TinyTransformerConfig(), 2, 0)
    >>> [(a.code, a.delta_bytes) for a in adj["params"]]
    [('padding', 130.0)]

    Taught in: lesson 8 (formula vs measurement).
    """
    strategy = check_choice("strategy", strategy, STRATEGIES)
    n = check_int("ranks", ranks, ge=1)
    r = check_int("rank", rank, ge=0, lt=n)
    recipe = PRECISION_RECIPES[RECIPE]
    element, adam = recipe.param_bytes, recipe.optimizer_bytes
    specs = parameter_layout(config)
    num_params = sum(spec.numel for spec in specs)
    steps = _adjustment("step_counters", float(ADAM_STEP_BYTES * len(specs)), tensors=len(specs))
    if strategy == "ddp":
        return {"params": (), "grads": (), "optimizer": (steps,)}
    if strategy == "tp":
        replicated = [spec for spec in specs if spec.tp_placement == "replicate"]
        kept = sum(spec.numel for spec in replicated) * (1 - 1 / n)
        params = {"tensors": len(replicated), "params": sum(spec.numel for spec in replicated), "ranks": n}
        whole = _adjustment("replicated", element * kept, **params)
        return {
            "params": (whole,),
            "grads": (_adjustment("replicated", recipe.grad_bytes * kept, **params),),
            "optimizer": (_adjustment("replicated", adam * kept, **params), steps),
        }
    padded = owned = gathered = 0
    uneven = 0
    for spec in specs:
        rest = spec.numel // spec.shape[0]
        per_rank, mine = _fsdp_rows(spec.shape[0], n, r)
        padded += per_rank * rest
        owned += mine * rest
        gathered += per_rank * n * rest
        uneven += spec.shape[0] % n != 0
    even_share = num_params / n
    padding = padded - even_share
    shard: tuple[MemoryAdjustment, ...] = ()
    grads: tuple[MemoryAdjustment, ...] = ()
    if padding != 0:
        shard = (_adjustment("padding", element * padding, tensors=uneven, ranks=n),)
        grads = (_adjustment("padding", recipe.grad_bytes * padding, tensors=uneven, ranks=n),)
    optimizer: tuple[MemoryAdjustment, ...] = (steps,)
    if owned != even_share:
        optimizer = (_adjustment("uneven_shard", adam * (owned - even_share), tensors=uneven, ranks=n, rank=r), steps)
    if strategy == "fsdp2-zero3":
        return {"params": shard, "grads": grads, "optimizer": optimizer}
    full: list[MemoryAdjustment] = []
    if gathered != num_params:
        full.append(_adjustment("gathered_padding", element * (gathered - num_params), tensors=uneven))
    full.append(_adjustment("sharded_copy", element * padded, ranks=n))
    return {"params": tuple(full), "grads": grads, "optimizer": optimizer}


@dataclass(frozen=True)
class MemoryRow:
    """One component on one rank: measured bytes, ledger bytes and the adjustments between them.

    Taught in: lesson 8 (formula vs measurement).
    """

    component: str
    measured_bytes: int
    ledger_bytes: float
    adjustments: tuple[MemoryAdjustment, ...] = ()

    @property
    def expected_bytes(self) -> float:
        """Ledger plus every documented adjustment."""
        return self.ledger_bytes + sum(a.delta_bytes for a in self.adjustments)

    @property
    def difference_bytes(self) -> float:
        """Measured minus ledger."""
        return self.measured_bytes - self.ledger_bytes

    @property
    def unexplained_bytes(self) -> float:
        """Measured minus (ledger + adjustments): 0 when every byte is explained."""
        return self.measured_bytes - self.expected_bytes

    @property
    def matches(self) -> bool:
        """True when the adjustments explain the difference exactly."""
        return abs(self.unexplained_bytes) <= MATCH_TOLERANCE_BYTES


@dataclass(frozen=True)
class StrategyMemory:
    """What one rank holds under one strategy: four rows (params, grads, optimizer, total).

    Taught in: lesson 8 (formula vs measurement).
    """

    strategy: str
    ranks: int
    rank: int
    rows: tuple[MemoryRow, ...]

    @property
    def matches(self) -> bool:
        """True when every row matches ledger + adjustments."""
        return all(row.matches for row in self.rows)

    def row(self, component: str) -> MemoryRow:
        """The row of ``component`` (one of :data:`COMPONENTS`); another is a ``ValueError``, never a ``KeyError``."""
        component = check_listed("component", component, (item.component for item in self.rows))
        return next(item for item in self.rows if item.component == component)


def compare_memory(
    strategy: str, config: TinyTransformerConfig, ranks: int, rank: int, measured: Mapping[str, int]
) -> StrategyMemory:
    """Set one rank's measured bytes against the ledger and the expected adjustments.

    Parameters:
        strategy: one of :data:`STRATEGIES`.
        config: the model that was measured.
        ranks, rank: job size n and the rank measured.
        measured: ``{"params": bytes, "grads": bytes, "optimizer": bytes}``.

    >>> row = compare_memory("ddp", TinyTransformerConfig(), 2, 0,
    ...                      {"params": 401684, "grads": 401684, "optimizer": 803512}).row("optimizer")
    >>> row.ledger_bytes, row.unexplained_bytes
    (803368.0, 0.0)

    Taught in: lesson 8 (formula vs measurement).
    """
    num_params = sum(spec.numel for spec in parameter_layout(config))
    ledger = ledger_for(strategy, num_params, ranks)
    adjustments = expected_adjustments(strategy, config, ranks, rank)
    ledger_bytes = {"params": ledger.params_bytes, "grads": ledger.grads_bytes, "optimizer": ledger.optimizer_bytes}
    counts = _measured_bytes(measured)
    rows = [
        MemoryRow(component, counts[component], ledger_bytes[component], adjustments[component])
        for component in COMPONENTS[:-1]
    ]
    total = MemoryRow(
        "total",
        sum(row.measured_bytes for row in rows),
        ledger.total_bytes,
        tuple(a for row in rows for a in row.adjustments),
    )
    return StrategyMemory(strategy, ranks, rank, (*rows, total))


def _measured_bytes(measured: Any) -> dict[str, int]:
    """``measured`` checked: a mapping with a byte count (an int >= 0) for each component but the total."""
    if not isinstance(measured, Mapping):
        raise TypeError(
            tr("lab.mem_measured_type", value=shown_repr(measured), type=type(measured).__name__, keys=_COUNTED)
        )
    counts = {}
    for component in COMPONENTS[:-1]:
        if component not in measured:
            missing = ", ".join(repr(c) for c in COMPONENTS[:-1] if c not in measured)
            raise ValueError(tr("lab.mem_measured_missing", missing=missing, keys=_COUNTED))
        counts[component] = check_int(f"measured[{component!r}]", measured[component], ge=0)
    return counts


#: The components :func:`compare_memory` needs measured, as its messages list them.
_COUNTED: str = ", ".join(repr(component) for component in COMPONENTS[:-1])


@dataclass(frozen=True)
class MemoryReport:
    """Every strategy on every rank, plus where it ran and the losses of the first step.

    ``results`` holds one :class:`StrategyMemory` per (strategy, rank);
    ``skipped`` maps a strategy that could not run to the reason;
    ``losses`` maps each strategy to its first-step loss (all ranks see the
    same batch, so the strategies must agree: they compute the same model).

    Taught in: lesson 8 (formula vs measurement).
    """

    config: TinyTransformerConfig
    ranks: int
    backend: str
    device: str
    launcher: str
    torch_version: str
    results: tuple[StrategyMemory, ...]
    skipped: Mapping[str, Reason] = field(default_factory=dict)
    losses: Mapping[str, float] = field(default_factory=dict)

    @property
    def num_params(self) -> int:
        """Parameters of the model."""
        return sum(spec.numel for spec in parameter_layout(self.config))

    @property
    def matches(self) -> bool:
        """True when every row of every rank of every strategy equals ledger + adjustments."""
        return all(result.matches for result in self.results)

    def strategy_results(self, strategy: str) -> tuple[StrategyMemory, ...]:
        """One :class:`StrategyMemory` per rank for ``strategy`` (one of :data:`STRATEGIES`; none if the report did
        not measure it)."""
        strategy = check_choice("strategy", strategy, STRATEGIES)
        return tuple(result for result in self.results if result.strategy == strategy)

    def largest_rank(self, strategy: str) -> StrategyMemory:
        """The rank of ``strategy`` with the most bytes in total (the one that runs out of memory first); a strategy
        the report did not measure is a ``ValueError`` naming those it measured."""
        check_listed("strategy", strategy, (result.strategy for result in self.results))
        return max(
            self.strategy_results(strategy), key=lambda result: (result.row("total").measured_bytes, -result.rank)
        )

    def table(self, strategy: str) -> str:
        """The table of one strategy for its largest rank, with numbered explanations, in the current language."""
        return self.table_view(strategy).text()

    def table_view(self, strategy: str) -> LabTable:
        """:meth:`table` as a :class:`~coursekit.lab._format.LabTable` (an HTML table in a notebook)."""
        strategy = check_listed("strategy", strategy, [*(result.strategy for result in self.results), *self.skipped])
        if strategy in self.skipped:
            message = self.skipped[strategy].message
            return LabTable.of([tr("lab.mem_skipped", strategy=tr(f"lab.strategy_{strategy}"), message=message)])
        result = self.largest_rank(strategy)
        ledger = ledger_for(strategy, self.num_params, self.ranks)
        call = f'training_state_memory({self.num_params}, recipe="{RECIPE}", ' + (
            f"tp={ledger.tp})" if strategy == "tp" else f"dp={ledger.dp}, zero_stage={ledger.zero_stage})"
        )
        title = tr(
            "lab.mem_title", strategy=tr(f"lab.strategy_{strategy}"), rank=result.rank, ranks=self.ranks, ledger=call
        )
        notes: list[str] = []
        rows = []
        for row in result.rows:
            if row.component == "total":
                explanation = tr("lab.mem_sum")
            elif not row.adjustments:
                explanation = tr("lab.mem_exact")
            else:
                parts = []
                for adjustment in row.adjustments:
                    message = adjustment.message
                    if message not in notes:
                        notes.append(message)
                    parts.append(f"[{notes.index(message) + 1}] {adjustment.short} {_signed(adjustment.delta_bytes)}")
                explanation = "; ".join(parts)
            rows.append(
                [
                    tr(f"lab.mem_{row.component}"),
                    fmt_count(row.measured_bytes),
                    fmt_count(row.ledger_bytes),
                    _signed(row.difference_bytes),
                    explanation,
                    fmt_count(round(row.unexplained_bytes, 6)),
                ]
            )
        header = [
            tr(f"lab.mem_col_{name}")
            for name in ("component", "measured", "ledger", "difference", "explanation", "unexplained")
        ]
        footnotes = [f"[{i}] {note}" for i, note in enumerate(notes, start=1)]
        return LabTable.of([title], header, rows, right={1, 2, 3, 5}, after=footnotes)

    def verdict(self) -> str:
        """One sentence: every number explained, or which one is not."""
        bad = [(result, row) for result in self.results for row in result.rows if not row.matches]
        if not bad:
            return tr("lab.mem_ok", checked=sum(len(result.rows) for result in self.results))
        result, row = bad[0]
        return tr(
            "lab.mem_mismatch",
            count=len(bad),
            strategy=result.strategy,
            rank=result.rank,
            component=row.component,
            measured=fmt_count(row.measured_bytes),
            expected=fmt_count(row.expected_bytes),
        )

    def _strategies_shown(self) -> list[str]:
        """The strategies that ran or were skipped, in the order of :data:`STRATEGIES`."""
        return [s for s in STRATEGIES if s in self.skipped or self.strategy_results(s)]

    def format(self) -> str:
        """Every strategy's table, then the verdict."""
        return "\n\n".join([*(self.table(s) for s in self._strategies_shown()), self.verdict()])

    def views(self) -> tuple[LabTable, ...]:
        """:meth:`format` as :class:`~coursekit.lab._format.LabTable` s: every strategy's table, then the verdict
        (``display(*report.views())`` in a notebook shows HTML tables)."""
        return (*(self.table_view(s) for s in self._strategies_shown()), LabTable.of([self.verdict()]))

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (schema :data:`MEMORY_SCHEMA`), every rank of every strategy."""
        strategies: dict[str, Any] = {}
        for name in STRATEGIES:
            if name in self.skipped:
                reason = self.skipped[name]
                strategies[name] = {"skipped": {"code": reason.code, "message": reason.render("en")}, "ranks": []}
                continue
            per_rank = self.strategy_results(name)
            if not per_rank:
                continue
            strategies[name] = {
                "skipped": None,
                "loss": self.losses.get(name),
                "ranks": [
                    {
                        "rank": result.rank,
                        "rows": [
                            {
                                "component": row.component,
                                "measured_bytes": row.measured_bytes,
                                "ledger_bytes": row.ledger_bytes,
                                "expected_bytes": row.expected_bytes,
                                "difference_bytes": row.difference_bytes,
                                "unexplained_bytes": row.unexplained_bytes,
                                "adjustments": [
                                    {"code": a.code, "delta_bytes": a.delta_bytes, "message": a.reason.render("en")}
                                    for a in row.adjustments
                                ],
                            }
                            for row in result.rows
                        ],
                    }
                    for result in per_rank
                ],
            }
        return {
            "schema": MEMORY_SCHEMA,
            "recipe": RECIPE,
            "ranks": self.ranks,
            "backend": self.backend,
            "device": self.device,
            "launcher": self.launcher,
            "torch_version": self.torch_version,
            "num_params": self.num_params,
            "config": {name: getattr(self.config, name) for name in self.config.__dataclass_fields__},
            "matches": self.matches,
            "strategies": strategies,
        }

    def write_json(self, path: str | Path) -> None:
        """Write :meth:`to_json_dict` to ``path`` (UTF-8, indented)."""
        Path(path).write_text(json.dumps(self.to_json_dict(), indent=2, allow_nan=False) + "\n", encoding="utf-8")


#: The command that writes what :func:`load_memory_json` reads (named in its messages).
MEMORY_WRITER: str = "python -m coursekit.lab memory --json"


def load_memory_json(source: str | Path | Mapping[str, Any]) -> MemoryReport:
    """A :class:`MemoryReport` from what :meth:`MemoryReport.write_json` wrote (a path or the parsed dict).

    Only the measured bytes, the model and where it ran are read back; the
    ledger and every explanation are computed again, so a recorded run is
    checked by today's code. A path that cannot be read, or a result with a key missing or a value of the wrong
    kind, is a ``ValueError`` or ``TypeError`` naming the path or the key, in the current language.

    >>> load_memory_json({"schema": MEMORY_SCHEMA, "config": {"layers": 0}})
    Traceback (most recent call last):
    ...
    ValueError: layers = 0: must be >= 1.

    Taught in: lesson 8 (formula vs measurement).
    """
    return memory_report_from(read_source(source, MEMORY_WRITER))


def memory_report_from(data: Field) -> MemoryReport:
    """A :class:`MemoryReport` from its JSON object (see :func:`load_memory_json`)."""
    data.check_schema(MEMORY_SCHEMA)
    config = data["config"].build(TinyTransformerConfig)
    ranks = data["ranks"].int(ge=1)
    entries = dict(data["strategies"].entries())
    for name, entry in entries.items():
        check_choice(f"{data['strategies'].name} key", name, STRATEGIES)
        entry.mapping()
    strategies = [name for name, entry in entries.items() if entry["skipped"].value is None]
    measured = {}
    for name in strategies:
        per_rank: dict[int, dict[str, int]] = {}
        for rank in entries[name]["ranks"].items():
            index = rank["rank"].int(ge=0, lt=ranks)
            rows = {row["component"].choice(COMPONENTS): row["measured_bytes"] for row in rank["rows"].items()}
            per_rank[index] = {component: value.int(ge=0) for component, value in rows.items() if component != "total"}
        if sorted(per_rank) != list(range(ranks)):
            ranks_field = entries[name]["ranks"]
            raise ValueError(tr("lab.mem_json_ranks", name=ranks_field.name, found=sorted(per_rank), ranks=ranks))
        measured[name] = [per_rank[r] for r in range(ranks)]
    skipped = {}
    if "tp" in entries and entries["tp"]["skipped"].value is not None:
        reason = tp_supported(config, ranks)
        if reason is not None:
            skipped["tp"] = reason
    raw = {
        "world_size": ranks,
        "backend": data["backend"].text(),
        "device": data["device"].text(),
        "launcher": data["launcher"].text(),
        "torch_version": data["torch_version"].text(),
        "strategies": strategies,
        "measured": measured,
        "losses": {name: loss.number() for name in strategies if (loss := entries[name].get("loss")) is not None},
    }
    return build_memory_report(raw, config, skipped)


def _check_strategies(strategies: Iterable[str] | None) -> tuple[str, ...]:
    if strategies is None:
        return STRATEGIES
    if isinstance(strategies, str):
        strategies = [part.strip() for part in strategies.split(",") if part.strip()]
    chosen = tuple(dict.fromkeys(check_choice("strategies", s, STRATEGIES) for s in strategies))
    if not chosen:
        raise ValueError(tr("validate.choice", name="strategies", value="", choices=", ".join(map(repr, STRATEGIES))))
    return chosen


def run_memory(
    *,
    ranks: int | None = 2,
    strategies: Iterable[str] | None = None,
    config: TinyTransformerConfig | None = None,
    device: str = "auto",
) -> MemoryReport:
    """Train the lab model one Adam step per strategy and compare every rank's bytes with the ledger.

    Parameters:
        ranks: processes to spawn on this machine, >= 1 (``None`` under torchrun = WORLD_SIZE).
        strategies: subset of :data:`STRATEGIES` (a list or a comma-separated string; default all).
        config: the model (default :class:`TinyTransformerConfig`).
        device: ``"auto"``, ``"cpu"`` or ``"cuda"`` (see :func:`coursekit.lab.collectives.run_collectives`).

    >>> run_memory(strategies=["zero"])
    Traceback (most recent call last):
    ...
    ValueError: strategies = 'zero': must be one of 'ddp', 'fsdp2-zero3', 'fsdp2-zero2', 'tp'.

    Taught in: lesson 8 (formula vs measurement).
    """
    n = check_ranks(ranks)
    chosen = _check_strategies(strategies)
    config = TinyTransformerConfig() if config is None else config
    check_instance("config", config, TinyTransformerConfig)
    device = check_choice("device", device, DEVICES)
    skipped: dict[str, Reason] = {}
    if "tp" in chosen:
        reason = tp_supported(config, n)
        if reason is not None:
            skipped["tp"] = reason
    runnable = tuple(s for s in chosen if s not in skipped)
    if not runnable:
        return MemoryReport(config, n, "none", "none", "none", "none", (), skipped)
    try:
        from . import _memory_worker
    except ImportError as error:  # pragma: no cover - exercised only without torch
        raise ImportError(tr("lab.no_torch")) from error
    from ._dist import run_distributed

    raw: dict[str, Any] = run_distributed(_memory_worker.memory_worker, n, (config, runnable), device)
    return build_memory_report(raw, config, skipped)


def build_memory_report(
    raw: Mapping[str, Any], config: TinyTransformerConfig, skipped: Mapping[str, Reason] | None = None
) -> MemoryReport:
    """Turn the memory worker's raw per-rank byte counts into a :class:`MemoryReport`."""
    n = int(raw["world_size"])
    results = tuple(
        compare_memory(strategy, config, n, rank, raw["measured"][strategy][rank])
        for strategy in raw["strategies"]
        for rank in range(n)
    )
    return MemoryReport(
        config=config,
        ranks=n,
        backend=str(raw["backend"]),
        device=str(raw["device"]),
        launcher=str(raw["launcher"]),
        torch_version=str(raw["torch_version"]),
        results=results,
        skipped=dict(skipped or {}),
        losses={k: float(v) for k, v in raw["losses"].items()},
    )


learner_functions(globals())
