"""Held-out check on another engine: NeMo AutoModel's H100 pre-training table, planned as published; nothing asserted.

    .venv/bin/python benchmarks/report_heldout_automodel.py

Every registered run and every other held-out report comes from Megatron-LM, Megatron-Core, NeMo, Megatron-Bridge,
DeepSpeed, MosaicML's Composer or TorchTitan. NeMo AutoModel is a different engine: PyTorch's FSDP2 with Transformer
Engine kernels and DeepEP (or its hybrid variant) for the experts' all-to-all, pipelines through PyTorch's schedules.
None of its rows is registered and no constant of the estimate was fitted on them.

The rows are typed from github.com/NVIDIA-NeMo/Automodel docs/performance-summary.mdx @
36044ad3d139363fb6c73c24af2e7c6b65ec52f6 ("Pre-Training Performance",
"System: DGX-H100, Precision: BF16"): every row of a model the presets hold or whose config.json the workbench reads,
at the table's GPUs, GBS, MBS, sequence, TP, PP, CP, EP, VP and FSDP, measured in tokens per GPU-second. The FSDP
column is the sharding group's size: the data-parallel degree (planned as ZeRO stage 3). The two GPT-OSS rows print
EP "-" beside "DeepEP" (an expert all-to-all, which needs EP > 1): their configs set ``ep_size`` 8 (20B) and 64
(120B) (examples/llm_benchmark/gpt_oss/gptoss_20b_te_deepep.yaml and gptoss_120b_te_deepep.yaml @ 36044ad3d), and
those are planned. The page's notes: mock data, a "fake balanced gate" (routing even by construction, which is
what the estimate assumes), BF16 on H100 (989 TFLOP/s). Nothing else is set, as a reader who copies a row into
``python -m coursekit plan --max-micro-batch MBS --max-virtual-stages VP --zero 3 --layout ...`` would; in
particular the recompute mode is searched (the configs' ``activation_checkpointing`` is not a column).

Left out: the three Nemotron V3 rows (hybrid Mamba-Transformer models: the specs have no state-space layers) and
the fine-tuning (LoRA) table (its configs train a 100-token vocabulary, ``vocab_size: 100``, which no column
states).

Models from config.json (the keys the workbench reads, typed from the public Hugging Face configs):
moonshotai/Kimi-K2-Base (the DeepSeek-V3 architecture with 384 routed experts and 64 heads), openai/gpt-oss-20b and
openai/gpt-oss-120b (report_heldout_outside16.py types the latter).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout import count, print_tally, standing
from report_heldout_outside16 import GPT_OSS_120B_CONFIG

from coursekit.planner.validation import compare_published
from coursekit.presets import CLUSTERS, MODELS, PublishedRun
from coursekit.specs import ModelSpec

SOURCE = (
    "NVIDIA NeMo AutoModel, “Performance Summary”, Pre-Training Performance, DGX-H100, BF16, "
    "github.com/NVIDIA-NeMo/Automodel docs/performance-summary.mdx @ 36044ad3d, row {row}"
)
CLUSTER = "h100-8"

#: moonshotai/Kimi-K2-Base config.json, the keys the workbench reads (model_type deepseek_v3 with 384 experts).
KIMI_K2_CONFIG: dict[str, object] = {
    "model_type": "deepseek_v3",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 61,
    "num_attention_heads": 64,
    "num_key_value_heads": 64,
    "n_routed_experts": 384,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "first_k_dense_replace": 1,
    "moe_layer_freq": 1,
    "q_lora_rank": 1536,
    "kv_lora_rank": 512,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "vocab_size": 163840,
    "max_position_embeddings": 131072,
    "num_nextn_predict_layers": 0,
    "tie_word_embeddings": False,
}
#: openai/gpt-oss-20b config.json: 24 layers alternating sliding-window 128 and full attention, 32 experts of 2880.
GPT_OSS_20B_CONFIG: dict[str, object] = {
    **GPT_OSS_120B_CONFIG,
    "num_hidden_layers": 24,
    "num_local_experts": 32,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
}


def _model(key: str) -> ModelSpec:
    if key == "kimi-k2":
        return ModelSpec.from_config(KIMI_K2_CONFIG, name="kimi-k2")
    if key == "gpt-oss-20b":
        return ModelSpec.from_config(GPT_OSS_20B_CONFIG, name="gpt-oss-20b")
    if key == "gpt-oss-120b":
        return ModelSpec.from_config(GPT_OSS_120B_CONFIG, name="gpt-oss-120b")
    return MODELS[key]


#: (model, table row, GPUs, GBS, MBS, sequence, TP, PP, CP, EP (0: "-", dense), VP (1: "-"), FSDP, tokens/s/GPU)
ROWS: tuple[tuple[str, str, int, int, int, int, int, int, int, int, int, int, float], ...] = (
    ("deepseek-v3", "DeepSeek V3 671B", 1024, 8192, 1, 4096, 1, 4, 1, 64, 8, 256, 865.0),
    ("deepseek-v3", "DeepSeek V3 671B", 256, 512, 1, 4096, 1, 4, 1, 64, 8, 64, 1002.0),
    ("kimi-k2", "Kimi K2", 256, 512, 1, 4096, 1, 8, 1, 32, 4, 32, 924.0),
    ("qwen3-30b-a3b", "Qwen3 MoE 30B", 8, 512, 4, 4096, 1, 1, 1, 8, 1, 8, 12040.0),
    ("gpt-oss-20b", "GPT-OSS 20B", 8, 256, 2, 4096, 1, 1, 1, 8, 1, 8, 13058.0),
    ("gpt-oss-120b", "GPT-OSS 120B", 64, 512, 2, 4096, 1, 1, 1, 64, 1, 64, 7626.0),
    ("llama3-70b", "Llama3 70B", 64, 128, 1, 8192, 1, 1, 2, 0, 1, 32, 866.77),
)


def automodel_run(row: tuple[object, ...]) -> PublishedRun:
    """One row as a :class:`coursekit.presets.PublishedRun`, with only what the table prints."""
    model, label, gpus, batch, micro, seq, tp, pp, cp, ep, vp, fsdp, tokens = row
    assert isinstance(gpus, int) and isinstance(tp, int) and isinstance(pp, int) and isinstance(cp, int)
    assert isinstance(ep, int) and isinstance(tokens, float) and isinstance(seq, int) and isinstance(batch, int)
    dp = gpus // (tp * pp * cp)
    assert fsdp == dp, (label, fsdp, dp)  # the FSDP column is the data-parallel degree
    degrees: dict[str, int] = {"tp": tp, "cp": cp, "pp": pp, "dp": dp}
    if ep > 1:
        degrees["ep"] = ep
    options: tuple[tuple[str, object], ...] = (
        ("precision", "bf16"),
        ("max_micro_batch", micro),
        ("max_virtual_stages", vp),
        ("zero_stages", (3,)),
    )
    return PublishedRun(
        f"NeMo AutoModel {label}, {seq // 1024}K, {gpus} H100 (BF16, FSDP {fsdp})",
        _model(str(model)),
        CLUSTER,
        gpus // CLUSTERS[CLUSTER].gpus_per_node,
        batch,
        seq,
        tuple(degrees.items()),
        "tokens",
        0.0,
        SOURCE.format(row=label),
        measured_tokens_per_gpu_s=tokens,
        workload_options=options,
    )


def main() -> int:
    start = time.perf_counter()
    passes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for row in ROWS:
        run = automodel_run(row)
        c = compare_published(run)
        print(f"{row[1]:17} {row[2]:5} GPUs {standing(c)}")
        if c.estimated_over_published is not None:
            print(f"{'':17} measured {row[-1]:,.0f} tokens/s/GPU; fastest with the layout: {c.layout}")
            print(f"{'':17} the search's best: {c.best_layout}")
        kind = "MoE" if run.model_spec().is_moe else "dense"
        count(passes, totals, ("all", kind), c.passes)
    print_tally(passes, totals)
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
