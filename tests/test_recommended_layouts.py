"""Layouts that engine teams publish as their recommended configurations are accepted by the workbench's gates.

These tables state layouts without a measured throughput, so they cannot check the estimate; they check the gates.
An expert who types in the layout their engine's own documentation recommends must not see it excluded. Each row is
copied from its source, with the settings the source states (micro-batch, global batch, expert-TP, recomputation,
the distributed optimizer as ZeRO-1); where a source leaves a setting open, the test says what it tried.
"""

from __future__ import annotations

from typing import Any

import pytest

from coursekit.planner import WorkloadSpec, evaluate_composition
from coursekit.presets import CLUSTERS, MODELS

#: Megatron-MoE-ModelZoo runtime_configs/benchmarking/runtime.conf @ e8650517d60d71ab73fc6b3b0388cac4ba435181,
#: BENCHMARKING_MODEL_CONFIGS (TP PP EP CP VPP MBS GBS ... NNODES ... SEQ_LEN, PP_FIRST PP_LAST), with each model's
#: model_configs/benchmarking/<model>.yaml at the same commit: --expert-tensor-parallel-size 1,
#: --use-distributed-optimizer (ZeRO-1), recomputation only where stated (DeepSeek-V2: --recompute-granularity full).
#: Edge layers: DeepSeek-V2's 60 layers over PP 16 with PP_FIRST = PP_LAST = 2 (the middle stages 4 each) and
#: Qwen3-235B's --account-for-embedding/loss-in-pipeline-split (one layer's slot on each edge stage) are
#: ``pipeline_edge_layers`` 2 and 1. Rows left out: Mixtral-8x2B, DeepSeek-V3-Proxy, Qwen3-Next-80B and Kimi-K2
#: have no preset (Qwen3-Next's linear-attention layers cannot be expressed), and the DeepSeek-V3 row's template
#: (PP 16 with no recomputation) is replaced by the zoo's own H100 best-practice command (next table).
ZOO_ROWS: tuple[tuple[Any, ...], ...] = (
    # preset, tp, pp, ep, vpp, mbs, gbs, nodes, edge layers, recompute
    ("mixtral-8x7b", 1, 4, 8, 8, 1, 256, 8, 0, "none"),
    ("mixtral-8x22b", 2, 8, 8, 7, 1, 256, 16, 0, "none"),
    ("deepseek-v2", 1, 16, 8, 2, 1, 1024, 32, 2, "full"),
    ("deepseek-v2-lite", 1, 1, 8, 1, 1, 512, 1, 0, "none"),
    ("qwen3-235b-a22b", 2, 8, 32, 4, 1, 256, 32, 1, "none"),
    ("qwen3-30b-a3b", 1, 1, 8, 1, 1, 256, 4, 0, "none"),
)


@pytest.mark.parametrize(
    ("preset", "tp", "pp", "ep", "vpp", "mbs", "gbs", "nodes", "edge", "recompute"),
    ZOO_ROWS,
    ids=[row[0] for row in ZOO_ROWS],
)
def test_moe_model_zoo_benchmark_layouts_are_accepted(
    preset: str, tp: int, pp: int, ep: int, vpp: int, mbs: int, gbs: int, nodes: int, edge: int, recompute: str
) -> None:
    workload = WorkloadSpec(
        global_batch=gbs, seq_len=4096, pipeline_edge_layers=edge, max_micro_batch=mbs, max_virtual_stages=vpp
    )
    cluster = CLUSTERS["h100-8"].with_nodes(nodes)
    candidate = evaluate_composition(
        MODELS[preset], cluster, workload, tp=tp, pp=pp, ep=ep, etp=1, v=vpp, zero=1, mb=mbs, recompute=recompute
    )
    assert candidate.accepted, (preset, candidate.codes, [str(r) for r in candidate.reasons])
    assert candidate.dp * tp * pp == cluster.world_size


def test_moe_model_zoo_deepseek_v3_h100_best_config_is_accepted() -> None:
    """best_practice/deepseek-v3/run_deepseek_v3_h100.sh @ e8650517 ("best config on 1024 H100 GPUs"): PP 8, VPP 4,
    TP 2, EP 64, global batch 8192, FP8 with the precision-aware optimizer's bf16 moments (``deepseek-v3-fp8``:
    2 + 4 + 8 bytes), ``--recompute-modules mla_up_proj mlp`` and no other recomputation, the pipeline layout
    ``Et|(tt|)*30mL`` (``pipeline_edge_layers`` 1: stages of 7, 8 and 7 layers). It fits only because the first
    stage's three dense layers hold no experts: counting every layer of a stage as the heavier kind (a dense
    layer's MLP and an MoE layer's experts) put it at 82.9 GiB. The preset's MTP module (``--mtp-num-layers 1``) is
    on the last stage; the ledger leaves out the ``mlp`` recomputation module (the dense layers' MLPs) and
    ``--fp8-param-gather``."""
    workload = WorkloadSpec(
        global_batch=8192,
        seq_len=4096,
        precision="fp8",
        recipe="deepseek-v3-fp8",
        pipeline_edge_layers=1,
        recompute_modes=("none",),
        recompute_modules=("mla_up_proj",),
        max_virtual_stages=4,
    )
    model = MODELS["deepseek-v3"]
    candidate = evaluate_composition(
        model, CLUSTERS["h100-8"].with_nodes(128), workload, tp=2, pp=8, v=4, ep=64, etp=1, zero=1, mb=1
    )
    assert candidate.accepted, candidate.codes
    # the weights (bf16, 2 bytes) of each stage by hand: attention and two RMSNorms per layer, then a dense layer's
    # SwiGLU MLP of 18432, or an MoE layer's router (7168 x 256), shared expert and its 256/64 = 4 routed experts
    # of 3 x 7168 x 2048; the first stage adds the input embedding, the last the output layer and final norm
    h, attention = 7168, model.attention_params_per_layer
    dense_layer = attention + 2 * h + 3 * h * 18432
    moe_layer = attention + 2 * h + h * 256 + 3 * h * 2048
    experts = 4 * 3 * h * 2048
    embedding = 129280 * h
    stages = {
        "first": (3 * dense_layer + 4 * moe_layer + embedding) / 2 + 4 * experts,
        "mid": 8 * moe_layer / 2 + 8 * experts,
        "last": (7 * moe_layer + embedding + h) / 2 + 7 * experts,
    }
    assert candidate.memory is not None
    assert any(candidate.memory.params_gib == pytest.approx(2 * p / 2**30) for p in stages.values())
    assert candidate.memory.total_gib < 80


#: Megatron-LM docs/user-guide/parallelism-guide.md @ 943665611c8a8060dbd243e34030e955f64747ee, "Parallelism
#: Selection Guide": the recommended language-model and mixture-of-experts configurations (model, GPUs, TP, PP, CP,
#: EP; the Llama 3 rows at "8K seqlen"). The guide states no global batch, recomputation or ZeRO stage: the test
#: takes a global batch of 1024 sequences (256 on 8 GPUs), ZeRO-1 (Megatron's distributed optimizer), expert-TP 1
#: (the only one that DeepSeek-V3's EP 64 x TP 2 on 1024 GPUs leaves room for), and accepts a row when some
#: recomputation mode fits.
GUIDE_ROWS: tuple[tuple[str, int, int, int, int, int, int], ...] = (
    # preset, GPUs, TP, PP, CP, EP, sequence
    ("llama3-8b", 8, 1, 1, 2, 1, 8192),
    ("llama3-70b", 64, 4, 4, 2, 1, 8192),
    ("llama3-405b", 1024, 8, 8, 2, 1, 8192),
    ("gpt3-175b", 128, 4, 8, 1, 1, 2048),
    ("gpt3-175b", 512, 4, 8, 1, 1, 2048),
    ("mixtral-8x7b", 64, 1, 4, 1, 8, 4096),
    ("mixtral-8x22b", 256, 4, 4, 1, 8, 4096),
    ("deepseek-v3", 1024, 2, 16, 1, 64, 4096),
)


@pytest.mark.parametrize(
    ("preset", "gpus", "tp", "pp", "cp", "ep", "seq"), GUIDE_ROWS, ids=[f"{r[0]}-{r[1]}" for r in GUIDE_ROWS]
)
def test_megatron_parallelism_guide_layouts_are_accepted(
    preset: str, gpus: int, tp: int, pp: int, cp: int, ep: int, seq: int
) -> None:
    model = MODELS[preset]
    workload = WorkloadSpec(global_batch=256 if gpus == 8 else 1024, seq_len=seq)
    cluster = CLUSTERS["h100-8"].with_nodes(gpus // 8)
    moe = {"ep": ep, "etp": 1} if model.is_moe else {}
    verdicts = {
        mode: evaluate_composition(model, cluster, workload, tp=tp, pp=pp, cp=cp, zero=1, mb=1, recompute=mode, **moe)
        for mode in ("none", "selective", "full")
    }
    accepted = [mode for mode, candidate in verdicts.items() if candidate.accepted]
    assert accepted, {mode: candidate.codes for mode, candidate in verdicts.items()}
    # a mode that is refused is refused on memory alone: the layout's shape always passes
    assert all(c.codes == ("memory",) for c in verdicts.values() if not c.accepted)
