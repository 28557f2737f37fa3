"""The search space of the decision workbench: the gates in funnel order, pipeline stage layouts, enumeration.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .._validate import (
    called_from_outside,
    check_choice,
    check_instance,
    check_int,
    learner_functions,
    plainly_written,
)
from ..i18n import register, tr
from ..specs import (
    PLAN_RECOMPUTE_MODES,
    _check_stage_counts,
    _divisors,
    _plain,
    pipeline_edges_at,
    stage_layer_counts,
    type_error,
)
from ..specs import (
    expert_tp_default as expert_tp_default,
)
from .gate_table import PLAN_GATES as PLAN_GATES
from .gate_table import PlanGate as PlanGate
from .gate_table import chunks_divide_stages
from .specs import (
    DEGREE_KEYS,
    MAX_GLOBAL_BATCH,
    MAX_WORLD_SIZE,
    ClusterSpec,
    ModelSpec,
    WorkloadSpec,
)

if TYPE_CHECKING:  # pragma: no cover - typing only; numpy is imported inside the search
    import numpy.typing as npt

register(
    {
        "planner.degrees_duplicate": {
            "zh": "{name} = {value!r}：键 {key!r} 出现了不止一次；每个并行度只能给一个值。",
            "en": "{name} = {value!r}: key {key!r} is given more than once; give each degree one value.",
        },
        "planner.degrees_duplicate_alias": {
            "zh": "{name} = {value!r}：键 {first!r} 和 {second!r} 给出的是同一个并行度 {key}；每个并行度只能给一个值。",
            "en": "{name} = {value!r}: keys {first!r} and {second!r} both give the degree {key}; give each degree one "
            "value.",
        },
        "planner.degrees_fullwidth": {
            "zh": "{name} = {value!r}：其中有全角字符 {chars}（输入法打出的）；并行度只能用 ASCII 字符书写，"
            "即 {plain!r}。",
            "en": "{name} = {value!r}: it holds the full-width {chars} (typed by an input method); write the degrees "
            "in ASCII: {plain!r}.",
        },
        "planner.degrees_fsdp_zero": {
            "zh": "{name} = {value!r}：fsdp = 0（数据并行不分片参数，DDP）不对应单个 ZeRO 阶段：写 zero=0（普通 DDP）"
            "或 zero=1（分布式优化器，Megatron 和 NeMo 的常见设置），或者去掉 fsdp 让搜索取任意阶段"
            "（命令行：--zero 0,1,2 只排除 ZeRO-3）。fsdp = 1 读作 zero=3。",
            "en": "{name} = {value!r}: fsdp = 0 (data parallelism without sharded parameters, DDP) names no single "
            "ZeRO stage: write zero=0 (plain DDP) or zero=1 (the distributed optimizer, Megatron's and NeMo's usual "
            "setting), or leave fsdp out and let the search take any stage (on the command line --zero 0,1,2 leaves "
            "out ZeRO-3 alone). fsdp = 1 reads as zero=3.",
        },
        "planner.degrees_fsdp_size": {
            "zh": "{name} = {value!r}：fsdp = {item!r} 必须是 0、1，或 FSDP 分片组的大小（>= 2 的整数，"
            "读作 zero=3，分片组就是数据并行组）。",
            "en": "{name} = {value!r}: fsdp = {item!r} must be 0, 1 or the FSDP sharding group's size (an integer "
            ">= 2, read as zero=3 with the data-parallel group as the sharding group).",
        },
        "planner.degrees_fsdp_cp": {
            "zh": "{name} = {value!r}：fsdp = {size} 与 cp = {cp} 同时给出时，分片组大小可以指数据并行度"
            "（dp = {size}），也可以指 dp × cp（dp = {split}，Megatron-FSDP 的读法）；请同时写出 dp。",
            "en": "{name} = {value!r}: with cp = {cp}, fsdp = {size} may be the data-parallel degree (dp = {size}) or "
            "dp x cp (dp = {split}, as Megatron-FSDP counts it); write dp as well.",
        },
        "planner.degrees_fsdp_group": {
            "zh": "{name} = {value!r}：fsdp = {size} 是 FSDP 分片组的大小，但 dp = {dp}、cp = {cp}：分片组必须是整个"
            "数据并行组（dp = {dp}，或 dp × cp = {dpcp}）。分片组小于数据并行组、组间再复制 (HSDP) 的布局无法表示。",
            "en": "{name} = {value!r}: fsdp = {size} is the FSDP sharding group's size, but dp = {dp} and cp = {cp}: "
            "the sharding group must be the whole data-parallel group (dp = {dp}, or dp x cp = {dpcp}). A sharding "
            "group smaller than the data-parallel group, replicated across groups (HSDP), cannot be expressed.",
        },
        "planner.space_too_large": {
            "zh": "搜索空间有 {size:,} 个组合，超过上限 {limit:,}：请减少 ZeRO 阶段、重计算模式或微批次上限，"
            "或换一个约数较少的 GPU 总数。",
            "en": "the search space has {size:,@composition}, more than the limit {limit:,}: narrow the ZeRO stages, "
            "recompute modes or largest micro-batch, or use a GPU count with fewer divisors.",
        },
    }
)

#: Column names of vendor tables (NeMo's and Megatron-Bridge's performance pages print VP, MBS and FSDP) that
#: :func:`parse_degrees` reads as a degree key: VP is the interleaving depth ``v``, MBS the micro-batch ``mb``; FSDP
#: is handled apart (``fsdp=1`` is ZeRO stage 3; a size of 2 or more, as Megatron-Bridge's later pages and NeMo
#: AutoModel's print it, is ZeRO stage 3 over a data-parallel group of that size).
DEGREE_KEY_ALIASES: dict[str, str] = {"vp": "v", "vpp": "v", "mbs": "mb"}
#: Columns of vendor tables that are settings of the workload, not degrees of a layout: :func:`parse_degrees` refuses
#: each naming the CLI flag and the :class:`coursekit.planner.WorkloadSpec` field that take it.
WORKLOAD_COLUMNS: dict[str, tuple[str, str]] = {
    "gbs": ("--global-batch", "global_batch"),
    "global_batch": ("--global-batch", "global_batch"),
    "seq": ("--seq-len", "seq_len"),
    "seq_len": ("--seq-len", "seq_len"),
    "seqlen": ("--seq-len", "seq_len"),
    "sp": ("--no-sequence-parallel", "sequence_parallel"),
}
_DEGREE_SEPARATORS = re.compile(r"[,;\s]+")
_SPACED_EQUALS = re.compile(r"\s*=\s*")

#: Most candidates one search evaluates (a larger space is refused with a message, not searched).
MAX_SPACE_SIZE: int = 4_000_000
#: Longest text of a learner's value quoted back in a message.
MAX_QUOTED_CHARS: int = 200


def _short(value: Any) -> Any:
    """``value`` itself, or its first :data:`MAX_QUOTED_CHARS` characters when it is a long string."""
    if isinstance(value, str) and len(value) > MAX_QUOTED_CHARS:
        return value[:MAX_QUOTED_CHARS] + "…"
    return value


# --------------------------------------------------------------------------- pipeline stage layout


def stage_layers(
    layers: int, pp: int, edge_layers: int = 0, last_edge_layers: int | None = None
) -> tuple[int, int, int]:
    """Layers of the (first, heaviest middle, last) pipeline stage.

    The first stage gives up ``edge_layers`` = e1 layers to the embedding, the last ``last_edge_layers`` = e2 to the
    output layer and the loss (and a multi-token prediction block); ``last_edge_layers`` ``None`` (the default) is
    e2 = e1. One rule: q = ceil((L + e1 + e2)/pp) slots a stage, the first stage holds q - e1 layers, the last
    q - e2, and the middle stages share the rest evenly, the heaviest ceil((L - (q - e1) - (q - e2))/(pp - 2)).
    With ``pp == 1`` the one stage holds every layer (first = last = L, middle 0). With ``pp == 2`` there is no
    middle: the first stage holds q - e1 (the larger half of L + e1 + e2, less its edge), the last the rest; with
    e1 = e2 that is ceil(L/2), whatever the edges. Llama 3 405B: L = 126, pp = 16, e1 = e2 = 1 gives 7, 8, 7 (Llama
    Team 2024, §3.3.2). DeepSeek-V3 as Megatron-Bridge lays out 16 stages: L = 61, e1 = 0, e2 = 3 gives q = 4 and
    4, 4, 1. A stage with fewer than one layer is malformed (the ``pp_layers`` gate); fewer than none is refused
    here.

    >>> stage_layers(126, 16, 1), stage_layers(80, 3), stage_layers(10, 1)
    ((7, 8, 7), (27, 26, 27), (10, 0, 10))
    >>> stage_layers(61, 16, 0, 3), stage_layers(61, 8, 0, 3), stage_layers(61, 2, 0, 3)
    ((4, 4, 1), (8, 8, 5), (32, 0, 29))

    Taught in: lesson 9 (decision workbench).
    """
    layers = check_int("layers", layers, ge=1, le=1 << 20)
    pp = check_int("pp", pp, ge=1, le=1 << 20)
    edge_layers = check_int("edge_layers", edge_layers, ge=0, le=1 << 20)
    if last_edge_layers is not None:
        last_edge_layers = check_int("last_edge_layers", last_edge_layers, ge=0, le=1 << 20)
    # zero layers is a malformed stage the gate names; fewer is no stage at all, refused
    return _check_stage_counts(layers, pp, edge_layers, last_edge_layers)


# --------------------------------------------------------------------------- the space as columns


INT_COLUMNS: tuple[str, ...] = ("tp", "pp", "dp", "cp", "ep", "etp", "v", "zero", "mb", "ga", "rc", "replicas")


def _v_options(model: ModelSpec, workload: WorkloadSpec, pp: int) -> list[int]:
    """Virtual stages tried at ``pp``: 1, and each v in 2..max that keeps at least one layer per chunk (the first
    and last stages counting the embedding and the loss as ``pipeline_edge_layers`` and
    ``pipeline_last_edge_layers`` layers: a chunk may hold only them) and splits every stage into equal chunks
    (:func:`coursekit.planner.gate_table.chunks_divide_stages`); under
    :attr:`~coursekit.specs.WorkloadSpec.pipeline_uneven_chunks` every such v, split or not.

    Megatron-Core accepts any v that splits the stages, up to one layer per chunk; ``max_virtual_stages`` bounds
    how deep the search interleaves. When no v up to it splits the stages — 92 layers over 4 stages are 23 a
    stage, a prime, which only v = 23 splits — the search tries the shallowest interleaving the engine allows, the
    smallest v that does, rather than none (its activations held in flight, p + (p - 1)/v micro-batches' worth on
    the first stage, and its v-fold pipeline sends are priced as for any v). ``max_virtual_stages`` 1 turns
    interleaving off.

    >>> from coursekit.presets import MODELS
    >>> from coursekit.specs import WorkloadSpec
    >>> gpt119 = MODELS["mcore-gpt-119b"]
    >>> _v_options(gpt119, WorkloadSpec(global_batch=768), 4), _v_options(gpt119, WorkloadSpec(global_batch=768), 2)
    ([1, 23], [1, 2])
    >>> _v_options(gpt119, WorkloadSpec(global_batch=768, max_virtual_stages=1), 4)
    [1]
    """
    edge, last_edge = pipeline_edges_at(
        model.layers, pp, workload.pipeline_edge_layers, workload.pipeline_last_edge_layers, model.mtp_layers
    )
    uneven = workload.pipeline_uneven_chunks
    return list(_v_options_of(model.layers, edge, workload.max_virtual_stages, pp, last_edge, uneven))


@lru_cache(maxsize=1024)
def _v_options_of(
    layers: int, edge: int, max_virtual_stages: int, pp: int, last_edge: int | None = None, uneven: bool = False
) -> tuple[int, ...]:
    """:func:`_v_options` from the integers it depends on (each search asks for every pp, several times);
    ``last_edge`` ``None``: the same as ``edge``; ``uneven`` (:attr:`WorkloadSpec.pipeline_uneven_chunks`): every v
    up to one layer per chunk, split or not."""
    if pp == 1 or max_virtual_stages == 1:
        return (1,)
    last_edge = edge if last_edge is None else last_edge
    first, mid, last = stage_layer_counts(layers, pp, edge, last_edge)
    edges = min(first + edge, last + last_edge)
    fewest = min(edges, mid) if pp > 2 else edges
    splitting = [
        v
        for v in range(2, max(fewest, 1) + 1)
        if uneven or chunks_divide_stages(first, mid, last, pp, edge, v, last_edge)
    ]
    within = [v for v in splitting if v <= max_virtual_stages]
    return (1, *(within or splitting[:1]))


def etp_options(model: ModelSpec, tp: int) -> tuple[int, ...]:
    """Expert tensor-parallel degrees searched at ``tp``: 1 and tp for a mixture of experts, ``(tp,)`` for a dense
    model (which has no expert layers).

    Megatron-Core's parallel folding (``megatron/core/parallel_state.py``, ``initialize_model_parallel``) lays the
    expert layers' ranks out as their own grid ETP × EP × EDP × PP over the same world, with
    ``--expert-tensor-parallel-size`` defaulting to TP; it requires only that ETP · EP · PP divide the world (the
    ``ep_fold`` gate). The search tries the two values practice uses: TP (the default) and 1 (the MoE README's
    advice for fine-grained experts) — the divisors in between would double the MoE search again
    (``benchmarks/bench_plan.py``); :func:`evaluate_composition` accepts any ETP.

    >>> from coursekit.presets import MODELS
    >>> moe, dense = MODELS["mixtral-8x7b"], MODELS["llama3-8b"]
    >>> etp_options(moe, 8), etp_options(moe, 1), etp_options(dense, 8)
    ((1, 8), (1,), (8,))

    Taught in: lesson 9 (decision workbench).
    """
    if called_from_outside():
        check_instance("model", model, ModelSpec)
        check_int("tp", tp, ge=1)
    if not model.is_moe:
        return (tp,)
    return (1, tp) if tp > 1 else (1,)


def training_space(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> dict[str, npt.NDArray[Any]]:
    """Every training composition ``(tp, cp, pp, dp, ep, etp, v, zero, mb, ga, recompute)`` with tp·cp·pp·dp = world.

    A mixture of experts also tries each expert tensor-parallel degree of :func:`etp_options`; a dense model's
    ``etp`` column equals ``tp``. Activation offloading (recompute ``"offload"``) is tried with pp = 1 only, as
    Megatron-Core runs it (the offload gate says why when a composition asks for it with a pipeline).

    Raises ValueError (:data:`MAX_SPACE_SIZE`) rather than build a space too large to search quickly.
    """
    import numpy as np

    if called_from_outside():
        check_instance("model", model, ModelSpec)
        check_instance("cluster", cluster, ClusterSpec)
        check_instance("workload", workload, WorkloadSpec)

    world = cluster.world_size
    ep_options = _divisors(model.num_experts) if model.is_moe else (1,)
    structs: list[tuple[int, int, int, int, int, int, int]] = []
    for tp in _divisors(world):
        etps = etp_options(model, tp)
        for cp in (d for d in _divisors(world // tp) if workload.max_cp is None or d <= workload.max_cp):
            for pp in _divisors(world // (tp * cp)):
                dp = world // (tp * cp * pp)
                for v in _v_options(model, workload, pp):
                    structs.extend((tp, cp, pp, dp, ep, v, etp) for ep in ep_options for etp in etps)
    mb_values = [d for d in _divisors(workload.global_batch) if d <= workload.max_micro_batch]
    inner = len(mb_values) * len(workload.recompute_modes)
    size = len(structs) * len(workload.zero_stages) * inner
    if size > MAX_SPACE_SIZE:
        raise ValueError(tr("planner.space_too_large", size=size, limit=MAX_SPACE_SIZE))
    base = np.array(structs, dtype=np.int64).reshape(-1, 7)
    zeros_all = np.array(workload.zero_stages, dtype=np.int64)
    sharded = base[:, 1] * base[:, 3] > 1  # dp·cp > 1: ZeRO stages differ
    counts = np.where(sharded, zeros_all.size, 1)
    rows = np.repeat(base, counts, axis=0)
    # each base row's ZeRO stages in order: its k-th copy takes stage k (a row that is not sharded has one copy)
    offsets = np.arange(rows.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
    zero_col = zeros_all[offsets] if len(base) else zeros_all[:0]
    mbs = np.array(mb_values, dtype=np.int64)
    rcs = np.array([PLAN_RECOMPUTE_MODES.index(mode) for mode in workload.recompute_modes], dtype=np.int64)
    rows = np.repeat(rows, inner, axis=0)
    zero_col = np.repeat(zero_col, inner)
    n_outer = rows.shape[0] // inner if inner else 0
    mb_col = np.tile(np.repeat(mbs, rcs.size), n_outer)
    rc_col = np.tile(np.tile(rcs, mbs.size), n_outer)
    if "offload" in workload.recompute_modes:
        # the engine offloads activations only without a pipeline (as the interleaved schedule's v > 1 needs one):
        # those rows are not compositions it runs
        runs = (rc_col != PLAN_RECOMPUTE_MODES.index("offload")) | (rows[:, 2] == 1)
        rows, zero_col, mb_col, rc_col = rows[runs], zero_col[runs], mb_col[runs], rc_col[runs]
    dp_col = rows[:, 3]
    ga_col = np.maximum(1, workload.global_batch // (dp_col * mb_col))
    return {
        "tp": rows[:, 0],
        "cp": rows[:, 1],
        "pp": rows[:, 2],
        "dp": dp_col,
        "ep": rows[:, 4],
        "etp": rows[:, 6],
        "v": rows[:, 5],
        "zero": zero_col,
        "mb": mb_col,
        "ga": ga_col,
        "rc": rc_col,
        "replicas": np.ones_like(dp_col),
    }


# --------------------------------------------------------------------------- degrees as text


def _degree_bounds(key: str) -> tuple[int, int]:
    """(least, largest) value of degree ``key``."""
    if key == "zero":
        return 0, 3
    return 1, MAX_GLOBAL_BATCH if key in ("mb", "ga") else MAX_WORLD_SIZE


def parse_degrees(text: str | Mapping[str, Any], *, name: str = "text") -> dict[str, Any]:
    """Read ``"tp=8,pp=4,dp=4,zero=1,mb=1"`` (or a mapping) into keyword arguments of :func:`evaluate_composition`.

    Keys are those of :data:`DEGREE_KEYS`; values are positive integers except
    ``recompute`` (``none``, ``selective``, ``full``) and ``zero`` (0-3). Items are separated by commas, semicolons or
    white space (``"tp=8 pp=4"``). The column names of vendor tables are read too: ``vp`` (and ``vpp``) is ``v``,
    ``mbs`` is ``mb``, and ``fsdp=1`` is ``zero=3`` (``fsdp=0`` names no single ZeRO stage and is refused with what
    to write instead). A table that prints the FSDP sharding group's size
    (Megatron-Bridge's later pages: "FSDP > 0: use FSDP with sharding group size = #GPUs / (TP x PP)"; NeMo
    AutoModel's) gives ``fsdp=N`` with N >= 2: ZeRO-3 over the whole data-parallel group, ``dp = N`` (or
    ``dp · cp = N``; with ``cp`` > 1 write ``dp`` too, the two readings differ). A group smaller than the
    data-parallel group (HSDP) is refused. A table's columns that set the workload, not the layout (``gbs``,
    ``seq``, ``sp``: :data:`WORKLOAD_COLUMNS`), are refused with the flag and field that take them.
    Messages name the parameter ``name`` (the caller's own parameter, e.g. ``"degrees"``).

    >>> parse_degrees("tp=8, pp=4, dp=4, zero=1, mb=1")
    {'tp': 8, 'pp': 4, 'dp': 4, 'zero': 1, 'mb': 1}
    >>> parse_degrees("TP=4 PP=8 VP=4; MBS=1")
    {'tp': 4, 'pp': 8, 'v': 4, 'mb': 1}
    >>> parse_degrees("tp=1,pp=2,vp=4,fsdp=1")
    {'tp': 1, 'pp': 2, 'v': 4, 'zero': 3}
    >>> parse_degrees("tp=1,pp=4,ep=64,vp=8,fsdp=256")
    {'tp': 1, 'pp': 4, 'ep': 64, 'v': 8, 'zero': 3, 'dp': 256}
    >>> parse_degrees("tp=8,xp=2")
    Traceback (most recent call last):
    ...
    ValueError: text = 'tp=8,xp=2': unknown key 'xp'; the keys are tp, pp, dp, cp, ep, etp, v, zero, mb, \
ga, recompute, replicas.

    Taught in: lesson 9 (decision workbench).
    """
    keys = ", ".join(DEGREE_KEYS)
    if isinstance(text, Mapping):
        items = [(str(key).strip().lower(), value) for key, value in text.items()]  # as the text form reads them
    elif isinstance(text, str):
        plain = unicodedata.normalize("NFKC", text)
        if not text.isascii() and plain.isascii():  # full-width 'tp＝４，pp＝２': say so, with the ASCII it stands for
            chars = " ".join(dict.fromkeys(repr(char) for char in text if not char.isascii()))
            raise ValueError(tr("planner.degrees_fullwidth", name=name, value=_short(text), chars=chars, plain=plain))
        items = []
        # commas, semicolons or white space between items ("tp=8 pp=4", "tp=8; pp=4"); spaces around "=" are kept
        # with their item ("tp = 8")
        for part in _DEGREE_SEPARATORS.split(_SPACED_EQUALS.sub("=", text)):
            if not part:
                continue
            if part.count("=") != 1:
                raise ValueError(tr("planner.degrees_syntax", name=name, value=_short(text), item=_short(part)))
            key, value = (side.strip() for side in part.split("="))
            items.append((key.lower(), value))
    else:
        raise type_error(name, _short(text), "str or mapping")
    out: dict[str, Any] = {}
    written_as: dict[str, str] = {}  # the key as written (vp, vpp, fsdp) of each degree read
    fsdp_size: int | None = None  # a table's FSDP sharding group size (fsdp=N, N >= 2)
    for key, raw_value in items:
        written, key = key, DEGREE_KEY_ALIASES.get(key, key)
        if key == "fsdp":  # a vendor table's FSDP column: 1 is ZeRO-3, 0 no single stage, N >= 2 the group's size
            flag = raw_value.strip() if isinstance(raw_value, str) else _plain(raw_value)
            if flag in ("1", 1) and not isinstance(flag, bool):
                key, raw_value = "zero", 3
            elif flag in ("0", 0) and not isinstance(flag, bool):
                raise ValueError(tr("planner.degrees_fsdp_zero", name=name, value=_short(text)))
            else:
                if isinstance(flag, str):
                    size = int(flag) if plainly_written(flag) and flag.isdigit() and len(flag) <= 12 else None
                else:
                    size = flag
                high = _degree_bounds("dp")[1]
                if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= high:
                    raise ValueError(tr("planner.degrees_fsdp_size", name=name, value=_short(text), item=raw_value))
                fsdp_size, key, raw_value = size, "zero", 3
        if key in WORKLOAD_COLUMNS:  # a vendor table's column that is a setting of the workload, not a degree
            flag, field = WORKLOAD_COLUMNS[key]
            catalog = "planner.degrees_sp_key" if field == "sequence_parallel" else "planner.degrees_workload_key"
            shown = _short(text)
            raise ValueError(
                tr(
                    catalog,
                    name=name,
                    value=shown,
                    key=_short(written),
                    flag=flag,
                    spec="WorkloadSpec",
                    field=field,
                    off=False,
                )
            )
        if key not in DEGREE_KEYS:
            raise ValueError(tr("planner.degrees_key", name=name, value=_short(text), key=_short(key), keys=keys))
        if key in out and written_as[key] != written:  # two spellings of one degree (fsdp=1 and zero=3, vp and v)
            first = _short(written_as[key])
            message = tr("planner.degrees_duplicate_alias", name=name, value=_short(text), first=first,
                         second=_short(written), key=key)  # fmt: skip
            raise ValueError(message)
        if key in out:
            raise ValueError(tr("planner.degrees_duplicate", name=name, value=_short(text), key=_short(written)))
        written_as[key] = written
        shown_key = key if written == key else f"{_short(written)} ({key})"  # a table's column name as written
        if key == "recompute":
            mode = _short(raw_value.strip().lower()) if isinstance(raw_value, str) else raw_value
            out[key] = check_choice("recompute", mode, PLAN_RECOMPUTE_MODES)
            continue
        low, high = _degree_bounds(key)
        # written digits are ASCII only, without the underscores and other scripts' digits int() would also read
        if isinstance(raw_value, str):
            digits = raw_value.strip()
            number = int(digits) if plainly_written(digits) and digits.isdigit() and len(digits) <= 12 else None
        else:
            number = raw_value
        number = _plain(number)  # a numpy integer as the Python int it holds
        if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
            message = tr(
                "planner.degrees_int",
                name=name,
                value=_short(text),
                key=shown_key,
                item=_short(raw_value),
                low=low,
                high=high,
            )
            raise ValueError(message) from None
        out[key] = number
    if "replicas" in out and {"dp", "zero", "ga"} & set(out):
        raise ValueError(tr("planner.degrees_mixed", name=name, value=_short(text)))
    if fsdp_size is not None:
        _fsdp_group(out, fsdp_size, name, _short(text))
    return out


def _fsdp_group(out: dict[str, Any], size: int, name: str, shown: str) -> None:
    """Set or check ``out``'s dp for a table's FSDP sharding group of ``size`` ranks (:func:`parse_degrees`)."""
    cp = int(out.get("cp", 1))
    dp = out.get("dp")
    if dp is None:
        if cp > 1 and size % cp == 0:  # two readings: dp = size, or dp x cp = size
            raise ValueError(tr("planner.degrees_fsdp_cp", name=name, value=shown, size=size, cp=cp, split=size // cp))
        out["dp"] = size
    elif size not in (dp, dp * cp):
        message = tr("planner.degrees_fsdp_group", name=name, value=shown, size=size, dp=dp, cp=cp, dpcp=dp * cp)
        raise ValueError(message)


learner_functions(globals())
