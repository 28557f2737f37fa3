"""Tests for coursekit.capacity (Q1): resource ledger, model states, activations."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import coursekit
from coursekit.capacity import (
    FSDP_SHARDING_TO_ZERO_STAGE,
    PRECISION_RECIPES,
    PrecisionRecipe,
    activation_memory,
    activation_memory_breakdown,
    build_resource_ledger,
    fsdp_zero_stage,
    training_state_memory,
)
from coursekit.i18n import Text, catalog, placeholders

# ---------------------------------------------------------------------------
# build_resource_ledger: the seed's Q1 check
# ---------------------------------------------------------------------------


def test_seed_assertions() -> None:
    # The two inline assertions of seed 000 (Q1小验证), through coursekit.
    fits = build_resource_ledger(13.0, 4.0, 2.0, 24.0)
    does_not_fit = build_resource_ledger(22.0, 5.0, 2.0, 24.0)
    assert fits.fits_one_device
    assert not does_not_fit.fits_one_device


def test_seed_values_by_hand() -> None:
    # 13 + 4 + 2 = 19 GiB on 24 GiB leaves 5; 22 + 5 + 2 = 29 GiB is 5 GiB short.
    fits = build_resource_ledger(13.0, 4.0, 2.0, 24.0)
    assert (fits.required_gib, fits.device_memory_gib, fits.headroom_gib, fits.shortfall_gib) == (19.0, 24.0, 5.0, 0.0)
    short = build_resource_ledger(22.0, 5.0, 2.0, 24.0)
    assert (short.required_gib, short.headroom_gib, short.shortfall_gib) == (29.0, -5.0, 5.0)


def test_fits_is_decided_before_rounding() -> None:
    # 0.004 GiB over: the rounded headroom shows 0.0 but the device is still too small.
    over = build_resource_ledger(20.004, 4.0, 0.0, 24.0)
    assert over.headroom_gib == 0.0
    assert not over.fits_one_device
    under = build_resource_ledger(19.996, 4.0, 0.0, 24.0)
    assert under.headroom_gib == 0.0
    assert under.fits_one_device


def test_exact_fit_counts_as_fitting() -> None:
    assert build_resource_ledger(20, 2, 2, 24).fits_one_device


NAN = float("nan")


@pytest.mark.parametrize(
    ("args", "exc", "message"),
    [
        ((-1, 4, 2, 24), ValueError, "state_gib = -1: must be >= 0."),
        ((13, -0.5, 2, 24), ValueError, "activation_gib = -0.5: must be >= 0."),
        ((13, 4, -2, 24), ValueError, "runtime_reserve_gib = -2: must be >= 0."),
        ((13, 4, 2, 0), ValueError, "device_memory_gib = 0: must be > 0."),
        ((13, 4, 2, -24), ValueError, "device_memory_gib = -24: must be > 0."),
        ((True, 4, 2, 24), TypeError, "state_gib = True: must be a real number (int or float), not bool."),
        (("13", 4, 2, 24), TypeError, "state_gib = '13': must be a real number (int or float), not str."),
        (
            (13, 4, None, 24),
            TypeError,
            "runtime_reserve_gib = None: must be a real number (int or float), not NoneType.",
        ),
        ((NAN, 4, 2, 24), ValueError, "state_gib = nan: must be a finite number (not NaN or infinity)."),
        ((13, 4, 2, math.inf), ValueError, "device_memory_gib = inf: must be a finite number (not NaN or infinity)."),
    ],
)
def test_ledger_rejects(args: tuple[Any, ...], exc: type[Exception], message: str) -> None:
    with pytest.raises(exc) as info:
        build_resource_ledger(*args)
    assert str(info.value) == message


def test_ledger_message_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        build_resource_ledger(13, 4, 2, 0)
    assert str(info.value) == "device_memory_gib = 0：必须 > 0。"


def test_ledger_explain_both_languages() -> None:
    short = build_resource_ledger(22.0, 5.0, 2.0, 24.0)
    assert short.explain() == "Needs 29.0 GiB of 24.0 GiB device memory: 5.0 GiB short, does not fit on one device."
    coursekit.set_language("zh")
    assert short.explain() == "需要 29.0 GiB，设备显存 24.0 GiB：缺口 5.0 GiB，单卡放不下。"
    assert build_resource_ledger(13.0, 4.0, 2.0, 24.0).explain() == (
        "需要 19.0 GiB，设备显存 24.0 GiB：余量 5.0 GiB，单卡放得下。"
    )


gib = st.floats(min_value=0, max_value=1e5, allow_nan=False)


@given(gib, gib, gib, st.floats(min_value=1e-3, max_value=1e5))
def test_ledger_properties(state: float, act: float, reserve: float, device: float) -> None:
    ledger = build_resource_ledger(state, act, reserve, device)
    required = state + act + reserve
    assert ledger.fits_one_device == (required <= device)
    assert ledger.required_gib == round(required, 2)
    assert ledger.headroom_gib == round(device - required, 2)
    assert ledger.shortfall_gib == round(max(0.0, required - device), 2)
    # the rounded parts still add up to within the rounding of three numbers
    assert abs(ledger.required_gib + ledger.headroom_gib - ledger.device_memory_gib) <= 0.015 + 1e-9 * device


# ---------------------------------------------------------------------------
# Precision recipes
# ---------------------------------------------------------------------------


def test_recipes_cover_the_course() -> None:
    assert {"zero-fp16-adam", "megatron-bf16", "fp32-adam"} <= set(PRECISION_RECIPES)
    for name, recipe in PRECISION_RECIPES.items():
        assert recipe.name == name
        assert isinstance(recipe.description, Text)
        assert recipe.source


@pytest.mark.parametrize(
    ("name", "per_param", "source_hint"),
    [
        # ZeRO arXiv:1910.02054 §3.1: 2Ψ + 2Ψ + KΨ with K = 12.
        ("zero-fp16-adam", (2, 2, 12), "1910.02054"),
        # Megatron-Core distributed optimizer docs: bf16 parameters, fp32 gradients -> 18 bytes.
        ("megatron-bf16", (2, 4, 12), "Distributed Optimizer"),
        # Same table: fp32 parameters, fp32 gradients -> 16 bytes.
        ("fp32-adam", (4, 4, 8), "Distributed Optimizer"),
    ],
)
def test_recipe_bytes(name: str, per_param: tuple[int, int, int], source_hint: str) -> None:
    recipe = PRECISION_RECIPES[name]
    assert (recipe.param_bytes, recipe.grad_bytes, recipe.optimizer_bytes) == per_param
    assert recipe.bytes_per_param == sum(per_param)
    assert source_hint in recipe.source


def test_recipe_rejects_bad_bytes() -> None:
    with pytest.raises(ValueError) as info:
        PrecisionRecipe("x", Text(zh="x", en="x"), -1, 2, 12, "test")
    assert str(info.value) == "param_bytes = -1: must be >= 0."


# ---------------------------------------------------------------------------
# training_state_memory: ZeRO / FSDP, TP, PP
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("stage", "paper_gb"), [(0, "120"), (1, "31.4"), (2, "16.6"), (3, "1.88")])
def test_zero_figure_1(stage: int, paper_gb: str) -> None:
    # ZeRO arXiv:1910.02054 Figure 1: Ψ = 7.5B, N_d = 64, K = 12 -> 120, 31.4, 16.6, 1.88 GB (1 GB = 1e9 B);
    # the figure prints the last as 1.9, Table 1 as 1.88.
    mem = training_state_memory(7.5e9, dp=64, zero_stage=stage)
    _assert_printed(mem.total_gb, paper_gb)


# ZeRO arXiv:1910.02054, Table 1: per-device model-state memory in GB for P_os, P_os+g, P_os+g+p
# (stages 1, 2, 3) by DP degree. The paper prints some values rounded and some truncated, so each is
# checked to within one unit of its last printed digit.
ZERO_TABLE_1: list[tuple[float, int, tuple[str, str, str]]] = [
    (7.5e9, 1, ("120", "120", "120")),
    (7.5e9, 4, ("52.5", "41.3", "30")),
    (7.5e9, 16, ("35.6", "21.6", "7.5")),
    (7.5e9, 64, ("31.4", "16.6", "1.88")),
    (7.5e9, 256, ("30.4", "15.4", "0.47")),
    (7.5e9, 1024, ("30.1", "15.1", "0.12")),
    (128e9, 1, ("2048", "2048", "2048")),
    (128e9, 4, ("896", "704", "512")),
    (128e9, 16, ("608", "368", "128")),
    (128e9, 64, ("536", "284", "32")),
    (128e9, 256, ("518", "263", "8")),
    (128e9, 1024, ("513", "257", "2")),
    (1e12, 1, ("16000", "16000", "16000")),
    (1e12, 4, ("7000", "5500", "4000")),
    (1e12, 16, ("4750", "2875", "1000")),
    (1e12, 64, ("4187", "2218", "250")),
    (1e12, 256, ("4046", "2054", "62.5")),
    (1e12, 1024, ("4011", "2013", "15.6")),
]


def _assert_printed(value: float, printed: str) -> None:
    unit = 10.0 ** -len(printed.partition(".")[2])  # one unit of the last printed digit
    assert abs(value - float(printed)) <= unit, (value, printed)


@pytest.mark.parametrize(("psi", "dp", "printed"), ZERO_TABLE_1)
def test_zero_table_1(psi: float, dp: int, printed: tuple[str, str, str]) -> None:
    for stage, paper_gb in zip((1, 2, 3), printed, strict=True):
        _assert_printed(training_state_memory(psi, dp=dp, zero_stage=stage).total_gb, paper_gb)


@pytest.mark.parametrize("d", [2, 8, 64])
def test_megatron_distributed_optimizer_table(d: int) -> None:
    # Megatron-Core developer guide, Distributed Optimizer: bytes per parameter with data-parallel size d.
    # bf16 parameters, fp32 gradients: 18 replicated, 6 + 12/d distributed (optimizer states sharded = ZeRO-1).
    assert training_state_memory(1, recipe="megatron-bf16").total_bytes == 18
    assert training_state_memory(1, recipe="megatron-bf16", dp=d, zero_stage=1).total_bytes == pytest.approx(6 + 12 / d)
    # fp32 parameters, fp32 gradients: 16 replicated, 8 + 8/d distributed.
    assert training_state_memory(1, recipe="fp32-adam").total_bytes == 16
    assert training_state_memory(1, recipe="fp32-adam", dp=d, zero_stage=1).total_bytes == pytest.approx(8 + 8 / d)


def test_parts_by_hand() -> None:
    # 1e9 params, TP 2 x PP 2 -> 2.5e8 per rank; ZeRO-2 over 4: weights 2 B each, grads 2/4, optimizer 12/4.
    mem = training_state_memory(1e9, dp=4, zero_stage=2, tp=2, pp=2)
    assert mem.params_per_model_parallel_rank == 2.5e8
    assert mem.params_bytes == pytest.approx(5e8)
    assert mem.grads_bytes == pytest.approx(1.25e8)
    assert mem.optimizer_bytes == pytest.approx(7.5e8)
    assert mem.total_bytes == pytest.approx(1.375e9)
    assert mem.total_gib == pytest.approx(1.375e9 / 2**30)
    assert mem.params_gib + mem.grads_gib + mem.optimizer_gib == pytest.approx(mem.total_gib)


def test_recipe_resolution() -> None:
    default = training_state_memory(1e9)
    assert default.recipe is PRECISION_RECIPES["zero-fp16-adam"]
    # explicit bytes equal to the recipe's are accepted
    same = training_state_memory(1e9, recipe="fp32-adam", param_bytes=4, grad_bytes=4.0)
    assert same.recipe is PRECISION_RECIPES["fp32-adam"]
    # explicit bytes without a recipe make a custom one, unset fields from zero-fp16-adam
    custom = training_state_memory(1e9, param_bytes=1)
    assert custom.recipe.name == "custom"
    assert (custom.recipe.param_bytes, custom.recipe.grad_bytes, custom.recipe.optimizer_bytes) == (1, 2, 12)
    assert custom.total_bytes == 15e9
    # a PrecisionRecipe object is accepted too
    mine = PrecisionRecipe("mine", Text(zh="我的", en="mine"), 1, 1, 2, "test")
    assert training_state_memory(1e9, recipe=mine).total_bytes == 4e9


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        ({"num_params": 0}, ValueError, "num_params = 0: must be > 0."),
        ({"num_params": "7B"}, TypeError, "num_params = '7B': must be a real number (int or float), not str."),
        ({"dp": 0}, ValueError, "dp = 0: must be >= 1."),
        ({"dp": 2.0}, TypeError, "dp = 2.0: must be an integer (int), not float."),
        ({"tp": True}, TypeError, "tp = True: must be an integer (int), not bool."),
        ({"pp": 0}, ValueError, "pp = 0: must be >= 1."),
        ({"zero_stage": 4}, ValueError, "zero_stage = 4: must be <= 3."),
        ({"zero_stage": -1}, ValueError, "zero_stage = -1: must be >= 0."),
        ({"param_bytes": -1}, ValueError, "param_bytes = -1: must be >= 0."),
        ({"optimizer_bytes": NAN}, ValueError, "optimizer_bytes = nan: must be a finite number (not NaN or infinity)."),
        (
            {"recipe": "fp8"},
            ValueError,
            "recipe = 'fp8': must be one of 'zero-fp16-adam', 'megatron-bf16', 'fp32-adam', 'bf16-adam-no-master', "
            "'apex-dfa-bf16', 'deepseek-v3-fp8'.",
        ),
        ({"recipe": 3}, TypeError, "recipe = 3: must be a string, not int."),
        (
            {"recipe": "megatron-bf16", "grad_bytes": 2},
            ValueError,
            "grad_bytes = 2: conflicts with recipe 'megatron-bf16', which sets grad_bytes = 4.0; "
            "pass one or the other.",
        ),
    ],
)
def test_training_state_rejects(kwargs: dict[str, Any], exc: type[Exception], message: str) -> None:
    call = {"num_params": 1e9, **kwargs}
    with pytest.raises(exc) as info:
        training_state_memory(**call)
    assert str(info.value) == message


def test_recipe_conflict_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        training_state_memory(1e9, recipe="fp32-adam", param_bytes=2)
    assert str(info.value) == (
        "param_bytes = 2：与精度方案 'fp32-adam' 冲突，该方案规定 param_bytes = 4.0；二者只传其一。"
    )


@pytest.mark.parametrize(("strategy", "stage"), [("NO_SHARD", 0), ("SHARD_GRAD_OP", 2), ("FULL_SHARD", 3)])
def test_fsdp_mapping(strategy: str, stage: int) -> None:
    # PyTorch FSDP ShardingStrategy: SHARD_GRAD_OP shards gradients + optimizer states (ZeRO-2),
    # FULL_SHARD also parameters (ZeRO-3).
    assert fsdp_zero_stage(strategy) == stage
    assert FSDP_SHARDING_TO_ZERO_STAGE[strategy] == stage


def test_fsdp_rejects_unknown() -> None:
    with pytest.raises(ValueError) as info:
        fsdp_zero_stage("HYBRID")
    assert str(info.value) == "sharding_strategy = 'HYBRID': must be one of 'NO_SHARD', 'SHARD_GRAD_OP', 'FULL_SHARD'."


params = st.floats(min_value=1e3, max_value=1e13)
degrees = st.integers(min_value=1, max_value=1024)
stages = st.integers(min_value=0, max_value=3)
recipes = st.sampled_from(sorted(PRECISION_RECIPES))


@given(params, degrees, degrees, stages, recipes)
def test_more_dp_never_raises_memory(psi: float, dp: int, extra: int, stage: int, recipe: str) -> None:
    small = training_state_memory(psi, dp=dp, zero_stage=stage, recipe=recipe)
    large = training_state_memory(psi, dp=dp + extra, zero_stage=stage, recipe=recipe)
    assert large.total_bytes <= small.total_bytes * (1 + 1e-12)


@given(params, degrees, stages, recipes, degrees, degrees)
def test_total_is_sum_of_parts(psi: float, dp: int, stage: int, recipe: str, tp: int, pp: int) -> None:
    mem = training_state_memory(psi, dp=dp, zero_stage=stage, tp=tp, pp=pp, recipe=recipe)
    assert mem.total_bytes == pytest.approx(mem.params_bytes + mem.grads_bytes + mem.optimizer_bytes, rel=1e-12)


@given(params, degrees, recipes)
def test_higher_stage_never_raises_memory(psi: float, dp: int, recipe: str) -> None:
    totals = [training_state_memory(psi, dp=dp, zero_stage=s, recipe=recipe).total_bytes for s in range(4)]
    assert all(b <= a * (1 + 1e-12) for a, b in itertools.pairwise(totals))
    if dp == 1:
        assert max(totals) == pytest.approx(min(totals))


@given(params, degrees, degrees, stages)
def test_model_parallel_divides_evenly(psi: float, tp: int, pp: int, stage: int) -> None:
    whole = training_state_memory(psi, dp=8, zero_stage=stage)
    split = training_state_memory(psi, dp=8, zero_stage=stage, tp=tp, pp=pp)
    assert split.total_bytes == pytest.approx(whole.total_bytes / (tp * pp), rel=1e-12)


# ---------------------------------------------------------------------------
# activation_memory: Korthikanti et al. 2022, Table 2
# ---------------------------------------------------------------------------

# GPT-3 175B as in Korthikanti et al. (arXiv:2205.05198): s = 2048, h = 12288, a = 96, t = 8, b = 1.
S, H, A, T = 2048, 12288, 96, 8
SBH = S * 1 * H
GPT3 = {"seq_len": S, "micro_batch": 1, "hidden": H, "heads": A}


@pytest.mark.parametrize(
    ("tp", "sp", "recompute", "expected_per_layer"),
    [
        # Table 2, row by row, written out from the paper's formulas.
        (1, False, "none", SBH * (34 + 5 * A * S / H)),  # no parallelism, Eq. 1
        (T, False, "none", SBH * (10 + 24 / T + 5 * A * S / (H * T))),  # tensor parallel, Eq. 2
        (T, True, "none", SBH / T * (34 + 5 * A * S / H)),  # tensor + sequence parallel
        (T, False, "selective", SBH * (10 + 24 / T)),  # tensor parallel + selective recompute
        (T, True, "selective", SBH * 34 / T),  # tensor + sequence parallel + selective recompute
        (T, False, "full", SBH * 2),  # full recompute
        (T, True, "full", SBH * 2 / T),  # full recompute, layer input split by sequence parallelism
    ],
)
def test_korthikanti_table_2(tp: int, sp: bool, recompute: str, expected_per_layer: float) -> None:
    got = activation_memory(**GPT3, tp=tp, sequence_parallel=sp, recompute=recompute)
    assert got == pytest.approx(expected_per_layer, rel=1e-12)


def test_gpt3_attention_coefficient_is_80_and_mtnlg_64() -> None:
    # Korthikanti §5: 5as/h = 80 for GPT-3 (a=96, s=2048, h=12288) and 64 for MT-NLG (a=128, h=20480).
    gpt3 = activation_memory_breakdown(**GPT3)
    assert gpt3.attention_bytes_per_layer / SBH == 80
    assert gpt3.linear_bytes_per_layer / SBH == 34
    mtnlg = activation_memory_breakdown(seq_len=2048, micro_batch=1, hidden=20480, heads=128)
    assert mtnlg.attention_bytes_per_layer / (2048 * 20480) == 64


@pytest.mark.parametrize(("hidden", "heads", "saving"), [(12288, 96, "0.70"), (20480, 128, "0.65")])
def test_selective_recompute_saving(hidden: int, heads: int, saving: str) -> None:
    # Korthikanti §5: selective recomputation saves 70% of activation memory for GPT-3 and 65% for MT-NLG.
    dims = {"seq_len": 2048, "micro_batch": 1, "hidden": hidden, "heads": heads, "tp": 8, "sequence_parallel": True}
    kept = activation_memory(**dims, recompute="selective") / activation_memory(**dims, recompute="none")
    assert f"{1 - kept:.2f}" == saving


def test_layers_and_breakdown() -> None:
    act = activation_memory_breakdown(**GPT3, layers=96, tp=T)
    assert act.per_layer_bytes == act.linear_bytes_per_layer + act.attention_bytes_per_layer
    assert act.total_bytes == 96 * act.per_layer_bytes
    assert act.total_gib == pytest.approx(act.total_bytes / 2**30)
    # 96 layers x 23 sbh at t = 8: 13 sbh linear + 10 sbh scores per layer
    assert act.total_bytes == 96 * 23 * SBH


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        ({"tp": 5}, ValueError, "tp = 5: must divide heads = 96."),
        ({"cp": 3}, ValueError, "cp = 3: must divide seq_len = 2048."),
        ({"seq_len": 0}, ValueError, "seq_len = 0: must be >= 1."),
        ({"micro_batch": 1.0}, TypeError, "micro_batch = 1.0: must be an integer (int), not float."),
        ({"layers": 0}, ValueError, "layers = 0: must be >= 1."),
        ({"recompute": "partial"}, ValueError, "recompute = 'partial': must be one of 'none', 'selective', 'full'."),
        ({"sequence_parallel": 1}, TypeError, "sequence_parallel = 1: must be True or False, not int."),
        ({"heads": True}, TypeError, "heads = True: must be an integer (int), not bool."),
    ],
)
def test_activation_rejects(kwargs: dict[str, Any], exc: type[Exception], message: str) -> None:
    with pytest.raises(exc) as info:
        activation_memory(**{**GPT3, **kwargs})
    assert str(info.value) == message


def test_activation_message_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        activation_memory(**GPT3, tp=5)
    assert str(info.value) == "tp = 5：必须整除 heads = 96。"


seq_chunks = st.integers(min_value=1, max_value=64)
modes = st.sampled_from(["none", "selective", "full"])
tps = st.sampled_from([1, 2, 4, 8, 16])
cps = st.sampled_from([1, 2, 4, 8])


@given(seq_chunks, st.integers(1, 8), cps, tps, st.booleans(), modes)
def test_cp_divides_every_term(chunks: int, b: int, cp: int, tp: int, sp: bool, mode: str) -> None:
    # each CP rank holds s/cp queries; scores span all keys, so the whole formula divides by cp
    dims = {"seq_len": 128 * chunks * 8, "micro_batch": b, "hidden": 1024, "heads": 16, "tp": tp}
    one = activation_memory(**dims, sequence_parallel=sp, recompute=mode)
    split = activation_memory(**dims, sequence_parallel=sp, recompute=mode, cp=cp)
    assert split == pytest.approx(one / cp, rel=1e-12)


@given(seq_chunks, st.integers(1, 8), st.booleans(), modes)
def test_more_tp_never_raises_activations(chunks: int, b: int, sp: bool, mode: str) -> None:
    dims = {"seq_len": 64 * chunks, "micro_batch": b, "hidden": 2048, "heads": 16}
    values = [activation_memory(**dims, tp=t, sequence_parallel=sp, recompute=mode) for t in (1, 2, 4, 8, 16)]
    assert all(later <= earlier for earlier, later in itertools.pairwise(values))


@given(seq_chunks, st.integers(1, 8), tps)
def test_savings_are_ordered(chunks: int, b: int, tp: int) -> None:
    dims = {"seq_len": 64 * chunks, "micro_batch": b, "hidden": 2048, "heads": 16, "tp": tp}
    for sp in (False, True):
        none, sel, full = (
            activation_memory(**dims, sequence_parallel=sp, recompute=m) for m in ("none", "selective", "full")
        )
        assert full <= sel <= none
    for mode in ("none", "selective", "full"):
        assert activation_memory(**dims, sequence_parallel=True, recompute=mode) <= activation_memory(
            **dims, sequence_parallel=False, recompute=mode
        )


@given(seq_chunks, st.integers(1, 8), st.integers(1, 8), tps, modes)
def test_activations_grow_with_sequence_and_batch(chunks: int, b: int, more: int, tp: int, mode: str) -> None:
    base = {"hidden": 2048, "heads": 16, "tp": tp, "recompute": mode}
    short = activation_memory(seq_len=64 * chunks, micro_batch=b, **base)
    assert activation_memory(seq_len=64 * (chunks + more), micro_batch=b, **base) > short
    assert activation_memory(seq_len=64 * chunks, micro_batch=b + more, **base) == pytest.approx(
        short * (b + more) / b, rel=1e-12
    )


# ---------------------------------------------------------------------------
# catalog
# ---------------------------------------------------------------------------


def test_capacity_messages_are_bilingual_and_consistent() -> None:
    entries = {key: texts for key, texts in catalog().items() if key.startswith("capacity.")}
    assert {"capacity.recipe_conflict", "capacity.ledger_fits", "capacity.ledger_short"} <= set(entries)
    for texts in entries.values():
        assert placeholders(texts["zh"]) == placeholders(texts["en"])
