"""The specs module sits below the formulas: plain-int KV heads, the shared per-rank helpers, the old import paths."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from coursekit import specs
from coursekit.planner import specs as planner_specs
from coursekit.specs import ModelSpec, kv_heads_split, stage_layer_counts

# A tiny dense model worked by hand: h = 64, a = 4 (hd 16), f = 256, V = 1000, SwiGLU, RMSNorm, RoPE, no biases.
# Per layer: Q and O 2·64·64 = 8192, K and V 2·64·64 = 8192 (kv_heads = heads), two norms 2·64 = 128,
# MLP 3·64·256 = 49152 -> 65664. Embedding 1000·64 = 64000; output layer 64000 + final norm 64 = 64064.
TINY = ModelSpec("tiny", 4, 64, 4, 256, 1000, 128)
TINY_LAYER = 65664


def test_kv_heads_is_resolved_to_an_int_when_built() -> None:
    assert TINY.kv_heads == 4 and type(TINY.kv_heads) is int
    assert ModelSpec("gqa", 2, 64, 4, 256, 1000, 128, kv_heads=2).kv_heads == 2
    assert ModelSpec("explicit-none", 2, 64, 4, 256, 1000, 128, kv_heads=None).kv_heads == 4  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kv_heads"):
        ModelSpec("bad", 2, 64, 4, 256, 1000, 128, kv_heads=3)


@pytest.mark.parametrize(
    ("kv_heads", "tp", "expected"),
    [(8, 1, 8), (8, 4, 2), (8, 8, 1), (8, 16, 1), (1, 8, 1), (4, 3, 2)],  # ceil(kv / tp): replicated past kv
)
def test_kv_heads_split_scalar_and_array(kv_heads: int, tp: int, expected: int) -> None:
    assert kv_heads_split(kv_heads, tp) == expected
    assert kv_heads_split(kv_heads, np.array([tp, tp]))[1] == expected
    assert kv_heads_split(kv_heads, np.array([float(tp)]))[0] == expected


def test_kv_width_per_rank() -> None:
    gqa = ModelSpec("gqa", 2, 1024, 16, 4096, 1000, 128, kv_heads=4)  # head_dim 64
    assert gqa.kv_width_per_rank(1) == 256
    assert gqa.kv_width_per_rank(2) == 128
    assert gqa.kv_width_per_rank(8) == 64  # one head each, replicated
    assert list(gqa.kv_width_per_rank(np.array([1, 2, 8]))) == [256, 128, 64]


def test_stage_dense_params_by_hand() -> None:
    assert TINY.stage_dense_params(1) == (4 * TINY_LAYER + 64000 + 64064, 0, 4 * TINY_LAYER + 64064)
    assert TINY.stage_dense_params(1)[0] == TINY.num_params
    assert TINY.stage_dense_params(2) == (2 * TINY_LAYER + 64000, 0, 2 * TINY_LAYER + 64064)
    first, mid, last = TINY.stage_dense_params(np.array([1, 2, 4]))
    assert list(first) == [TINY.num_params, 2 * TINY_LAYER + 64000, TINY_LAYER + 64000]
    assert list(mid) == [0, 0, TINY_LAYER]
    assert list(last) == [4 * TINY_LAYER + 64064, 2 * TINY_LAYER + 64064, TINY_LAYER + 64064]
    tied = ModelSpec("tied", 4, 64, 4, 256, 1000, 128, tied_embeddings=True)
    # pp = 1: one tied matrix; pp > 1: the last stage keeps its own copy of it.
    assert tied.stage_dense_params(1)[0] == 4 * TINY_LAYER + 64000 + 64
    assert tied.stage_dense_params(2)[2] == 2 * TINY_LAYER + 64064


# A tiny MoE model with dense layers first, worked by hand: the TINY layer's attention and norms (8192 + 8192 + 128),
# 6 layers of which the first k are dense (MLP 3·64·256 = 49152); an MoE layer has a router 64·4 = 256 and one
# shared expert of 3·64·32 = 6144 besides 4 routed experts of 6144.
def _tiny_moe(k: int) -> ModelSpec:
    return ModelSpec("tiny-moe", 6, 64, 4, 256, 1000, 128, num_experts=4, top_k=2, moe_ffn_hidden=32,
                     shared_experts=1, first_k_dense=k)  # fmt: skip


TINY_DENSE_LAYER, TINY_MOE_LAYER = 16512 + 49152, 16512 + 256 + 6144


@pytest.mark.parametrize(
    ("k", "pp", "kinds"),
    [
        (2, 1, ((2, 4, 0), (0, 0, 0), (2, 4, 0))),  # one stage: first and last are the same
        (2, 2, ((2, 1, 0), (0, 0, 0), (0, 3, 0))),  # 3 + 3 layers
        (2, 3, ((2, 0, 0), (0, 2, 0), (0, 2, 0))),  # 2 + 2 + 2: the dense layers fill the first stage
        (3, 3, ((2, 0, 0), (0, 0, 2), (0, 2, 0))),  # one dense layer reaches a middle stage: "either"
        (5, 3, ((2, 0, 0), (0, 0, 2), (1, 1, 0))),  # and one the last stage
        (0, 3, ((0, 2, 0), (0, 2, 0), (0, 2, 0))),
    ],
)
def test_stage_layer_kinds_by_hand(k: int, pp: int, kinds: tuple[tuple[int, int, int], ...]) -> None:
    model = _tiny_moe(k)
    assert model.stage_layer_kinds(pp) == kinds
    stages = model.stage_layer_kinds(np.array([pp, pp]))
    assert tuple(tuple(int(n[1]) for n in stage) for stage in stages) == kinds
    either = max(TINY_DENSE_LAYER, TINY_MOE_LAYER) if k else TINY_MOE_LAYER
    assert model.dense_params_per_layer == either
    layers = [d * TINY_DENSE_LAYER + m * TINY_MOE_LAYER + e * either for d, m, e in kinds]
    first, mid, last = model.stage_dense_params(pp)
    single = pp == 1
    assert first == layers[0] + 64000 + single * 64064
    assert mid == layers[1]
    assert last == layers[2] + 64064


def test_layer_widths_by_kind() -> None:
    model = _tiny_moe(2)
    assert model.layer_widths("dense").mlp_split == 3 * 256 and not model.layer_widths("dense").router
    assert model.layer_widths("moe").mlp_split == 2 * 3 * 32 + 1 * 3 * 32 and model.layer_widths("moe").router
    assert model.layer_widths() == model.layer_widths("dense")  # 768 wide beats the MoE layer's 288 + 264
    with pytest.raises(ValueError, match="only a mixture-of-experts model has MoE layers"):
        TINY.layer_widths("moe")
    with pytest.raises(ValueError, match='must be None, "dense" or "moe"'):
        model.layer_widths("expert")


def test_stage_layer_counts_llama3_405b() -> None:
    # Llama Team 2024, §3.3.2: 126 layers on 16 stages, one fewer on the first and the last: 7, 8 (middle), 7.
    assert stage_layer_counts(126, 16, 1) == (7, 8, 7)


def test_planner_specs_reexports_the_same_objects() -> None:
    for name in ("ModelSpec", "ClusterSpec", "WorkloadSpec", "DEGREE_KEYS", "MAX_WORLD_SIZE", "divisors", "group_link"):
        assert getattr(planner_specs, name) is getattr(specs, name)
    from coursekit.capacity import PRECISION_RECIPES, RECOMPUTE_MODES
    from coursekit.serving import ServingWorkload

    assert PRECISION_RECIPES is specs.PRECISION_RECIPES and RECOMPUTE_MODES is specs.RECOMPUTE_MODES
    assert ServingWorkload is specs.ServingWorkload


def test_mtp_module_params_by_hand() -> None:
    """DeepSeek-V3 §2.2: each multi-token prediction module has two input RMSNorms, a 2h -> h projection, one
    transformer block and the model's embedding and output head. The block is an MoE layer (MLA, two norms, router,
    1 shared and 256 routed experts of 3 x 7168 x 2048); a final norm closes the module. The model card counts
    685B weights: 671B for the model and 14B for the module with its own stored copy of the embedding and head."""
    from coursekit.presets import MODELS

    model = MODELS["deepseek-v3"]
    h, expert = 7168, 3 * 7168 * 2048
    block = model.attention_params_per_layer + 2 * h + h * 256 + expert
    assert model.mtp_block_params == block + 3 * h + 2 * h * h
    assert model.mtp_params == model.mtp_block_params + 256 * expert
    stored = model.num_params + model.mtp_params + 2 * 129280 * h
    assert stored == pytest.approx(685e9, rel=1e-3)
    assert (
        model.mtp_layers == 1 and ModelSpec.from_config({**_DSV3_CONFIG, "num_nextn_predict_layers": 1}).mtp_layers == 1
    )
    assert dataclasses.replace(model, mtp_layers=0).mtp_params == 0


_DSV3_CONFIG = {"model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
                "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128,
                "num_key_value_heads": 128, "n_shared_experts": 1, "n_routed_experts": 256, "num_experts_per_tok": 8,
                "first_k_dense_replace": 3, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
                "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 129280, "max_position_embeddings": 4096,
                "tie_word_embeddings": False}  # fmt: skip


def test_mtp_sits_on_the_last_stage() -> None:
    moe = dataclasses.replace(_tiny_moe(2), mtp_layers=1)
    assert moe.stage_layer_kinds(3) == ((2, 0, 0), (0, 2, 0), (0, 3, 0))  # the MTP block counts as an MoE layer
    extra = 3 * 64 + 2 * 64 * 64  # the module's three norms and its 2h -> h projection
    assert moe.stage_dense_params(3)[2] == _tiny_moe(2).stage_dense_params(3)[2] + TINY_MOE_LAYER + extra
    dense = dataclasses.replace(TINY, mtp_layers=2)
    assert dense.stage_layer_kinds(2)[2] == (4, 0, 0)
    assert dense.mtp_block_params == TINY_LAYER + extra
    assert dense.stage_dense_params(2)[2] == TINY.stage_dense_params(2)[2] + 2 * (TINY_LAYER + extra)
    with pytest.raises(ValueError, match="mtp_layers"):
        dataclasses.replace(TINY, mtp_layers=-1)


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((0,), ValueError, "pp = 0: must be >= 1"),
        ((2.5,), TypeError, "pp = 2.5: must be an integer"),
        (("4",), TypeError, "pp = '4': must be an integer"),
        ((4, -1), ValueError, "edge_layers = -1: must be >= 0"),
    ],
)
def test_stage_methods_refuse_bad_scalars(args: tuple[object, ...], error: type[Exception], message: str) -> None:
    for method in (TINY.stage_layer_kinds, TINY.stage_dense_params):
        with pytest.raises(error, match=message):
            method(*args)
