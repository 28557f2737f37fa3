"""Held-out check on three papers' training runs that are not registered; nothing is asserted.

    .venv/bin/python benchmarks/report_heldout_papers.py

Neither run is in ``coursekit.published_runs`` and no constant of the estimate was fitted on either. Each is planned
with what its own sources state, and the pass rule is the registered runs' (accepted; tie group 1 or top 10; the best
step within 1.25x; throughput within ±30 %).

* OPT-175B (Zhang et al. 2022, arXiv:2205.01068): §2.4, "992 80GB A100 GPUs, by utilizing Fully Sharded Data Parallel
  with Megatron-LM Tensor Parallelism. We achieve utilization of up to 147 TFLOP/s per GPU. We keep Adam state in
  FP32 ... while the model weights remained in FP16"; Table 1: 96 layers, 96 heads, d_model 12288, batch 2M tokens.
  metaseq's launcher (facebookresearch/metaseq @ f7ffa5f, metaseq/launcher/opt_baselines.py and
  opt_job_constants.py, size "175b"): model parallel 8, batch 2 · 1024² tokens, so (2,097,152 // 124) // 2048 = 8
  sequences per data-parallel rank and no accumulation (--update-freq 1): a global batch of 992 sequences of 2048;
  --ddp-backend fully_sharded with --no-reshard-after-forward (its save key "zero2": the weights gathered once per
  step and kept through backward, ZeRO-2's traffic and peak), --checkpoint-activations (full recomputation),
  --memory-efficient-fp16 (no fp32 master copy: the recipe ``bf16-adam-no-master``, 2 + 2 + 8 bytes). Assumptions:
  the cluster as the ``a100-8`` preset (8 x A100 80GB with NVSwitch, 8 x 200 Gb/s per node; the paper names only the
  GPUs), no flash attention and no sequence parallelism (neither existed in 2021), GELU's cost for OPT's ReLU (the
  same two matrices). The paper does not say how it counts its TFLOP/s: both Megatron-LM's count (recomputation
  included) and PaLM's are printed.
* DeepSeek-V2 (DeepSeek-AI 2024, arXiv:2405.04434): §3.2.3, H800 GPUs, 16-way zero-bubble pipeline parallelism,
  8-way expert parallelism, ZeRO-1 data parallelism, no tensor parallelism; "172.8K GPU hours per trillion tokens";
  §3.2.1: sequences of 4K, a global batch of 9216 sequences once ramped. The paper does not state how many GPUs, so
  the run is planned at 512, 1024 and 2048 (an assumption, printed), in bf16 with fp32 gradients and master weights.
* Nemotron-4 340B (NVIDIA 2024, arXiv:2406.11704): §2.3, 768 DGX H100 nodes (8 H100 80GB SXM5 each, NVLink and
  NVSwitch, 8 x 400 Gb/s InfiniBand per node), 8-way tensor parallelism, 12-way pipeline parallelism with
  interleaving, data parallelism with a distributed optimizer; Table 2, the batch ramp at sequence 4096: DP 16, 32
  and 64 on 1536, 3072 and 6144 GPUs at batches 768, 1536 and 2304, 10.3, 10.3 and 8.0 s per iteration (MFU 42.4,
  42.3 and 41.0 %). Planned on the ``h100-8`` preset in bf16 with the distributed optimizer (ZeRO-1) and the recipe
  the registered Nemotron-4 340B rows use; the paper states neither micro-batch, interleaving depth nor
  recomputation, so the search chooses them (up to its defaults).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dataclasses import replace

from heldout import standing

from coursekit.planner import ModelSpec
from coursekit.planner.validation import compare_published
from coursekit.presets import PublishedRun

#: OPT-175B as a Hugging Face OPT config would state it (the dimensions of Table 1; OPT's 50272-token vocabulary,
#: 2048 positions, ReLU, dropout 0.1, tied embeddings).
OPT_175B_CONFIG = {
    "model_type": "opt", "hidden_size": 12288, "ffn_dim": 49152, "num_hidden_layers": 96, "num_attention_heads": 96,
    "vocab_size": 50272, "max_position_embeddings": 2048, "activation_function": "relu", "dropout": 0.1,
    "attention_dropout": 0.0, "do_layer_norm_before": True, "enable_bias": True, "tie_word_embeddings": True,
}  # fmt: skip
OPT_SOURCE = (
    "Zhang et al., OPT: Open Pre-trained Transformer Language Models, arXiv:2205.01068, §2.4 and Table 1; "
    "facebookresearch/metaseq @ f7ffa5f, metaseq/launcher/opt_baselines.py and opt_job_constants.py (175b)"
)
NEMOTRON_SOURCE = "NVIDIA, Nemotron-4 340B Technical Report, arXiv:2406.11704, §2.3 and Table 2"
#: Table 2: (data-parallel size, global batch, seconds per iteration); TP 8 and PP 12 in every row.
NEMOTRON_RAMP: tuple[tuple[int, int, float], ...] = ((16, 768, 10.3), (32, 1536, 10.3), (64, 2304, 8.0))
DSV2_SOURCE = "DeepSeek-AI, DeepSeek-V2, arXiv:2405.04434, §3.2.1 and §3.2.3 (172.8K GPU hours per trillion tokens)"


def opt_175b(convention: str) -> PublishedRun:
    """OPT-175B on 992 A100s as the module docstring states it, its TFLOP/s read in ``convention``."""
    model = replace(ModelSpec.from_config(OPT_175B_CONFIG, name="opt-175b"), source=OPT_SOURCE)
    return PublishedRun(
        f"OPT-175B, 992 A100 ({convention} count)",
        model,
        "a100-8",
        124,
        992,
        2048,
        (("tp", 8), ("cp", 1), ("pp", 1), ("dp", 124)),
        convention,
        147.0,
        OPT_SOURCE,
        workload_options=(
            ("recipe", "bf16-adam-no-master"),
            ("zero_stages", (2,)),
            ("recompute_modes", ("full",)),
            ("sequence_parallel", False),
            ("flash_attention", False),
            ("max_micro_batch", 8),
            ("max_cp", 1),
        ),
    )


def deepseek_v2(gpus: int) -> PublishedRun:
    """DeepSeek-V2 on ``gpus`` H800s (the paper does not state the count) as the module docstring states it."""
    return PublishedRun(
        f"DeepSeek-V2, {gpus} H800 (GPU count assumed)",
        "deepseek-v2",
        "h800-8",
        gpus // 8,
        9216,
        4096,
        (("tp", 1), ("cp", 1), ("pp", 16), ("dp", gpus // 16), ("ep", 8)),
        "tokens",
        0.0,
        DSV2_SOURCE,
        measured_tokens_per_gpu_s=1e12 / (172.8e3 * 3600),
        workload_options=(("recipe", "megatron-bf16"), ("zero_stages", (1,))),
    )


def nemotron4_340b(dp: int, batch: int, seconds: float) -> PublishedRun:
    """One stage of Nemotron-4 340B's batch ramp (Table 2) as the module docstring states it."""
    gpus = 8 * 12 * dp
    return PublishedRun(
        f"Nemotron-4 340B, {gpus} H100, batch {batch}",
        "nemotron4-340b",
        "h100-8",
        gpus // 8,
        batch,
        4096,
        (("tp", 8), ("cp", 1), ("pp", 12), ("dp", dp)),
        "tokens",
        0.0,
        NEMOTRON_SOURCE,
        measured_tokens_per_gpu_s=batch * 4096 / (seconds * gpus),
        workload_options=(("precision", "bf16"), ("zero_stages", (1,)), ("recipe", "zero-fp16-adam")),
    )


def main() -> int:
    start = time.perf_counter()
    runs = [
        opt_175b("megatron"),
        opt_175b("palm"),
        *(deepseek_v2(gpus) for gpus in (512, 1024, 2048)),
        *(nemotron4_340b(*stage) for stage in NEMOTRON_RAMP),
    ]
    for run in runs:
        c = compare_published(run)
        print(f"{run.name}: {standing(c)}")
        print(f"    published layout as estimated: {c.layout}")
        print(f"    fastest estimate:              {c.best_layout}")
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
