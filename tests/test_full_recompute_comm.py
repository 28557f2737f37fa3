"""Full recomputation repeats a layer's forward collectives, the expert-parallel all-to-alls included.

Megatron-Core's full recomputation (``--recompute-granularity full``) checkpoints whole transformer layers and runs
each layer's forward again in backward (``TransformerBlock._checkpointed_forward``,
megatron/core/transformer/transformer_block.py). Whatever the forward communicates it communicates again: TP's
all-gathers and reduce-scatters (Korthikanti et al., arXiv:2205.05198, §4.1), context parallelism's K/V ring, and
an MoE layer's token dispatch and combine. So an MoE layer under full recomputation runs 6 all-to-alls per
micro-batch (dispatch and combine forward, again in the recomputed forward, and the two gradients), the same 6 as
the module-level recomputation of the MoE block (``--recompute-modules moe``), not the 4 of a run that keeps its
activations. Until this fix the estimate charged only 4 under full recomputation (an outside reviewer's held-out
DeepSeek-V3 row ranked full recomputation ahead of the module recomputation it ran) and the CP row listed no
recomputed forward ring although the estimate counted its time.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from coursekit.planner import WorkloadSpec, evaluate_composition
from coursekit.presets import CLUSTERS, MODELS


def _row(candidate: object, dimension: str) -> object:
    (row,) = [r for r in candidate.communication if r.dimension == dimension]  # type: ignore[attr-defined]
    return row


@pytest.mark.parametrize(
    ("recompute", "modules", "per_layer"),
    [("none", (), 4), ("selective", (), 4), ("full", (), 6), ("selective", ("moe",), 6), ("full", ("moe",), 6)],
)
def test_expert_all_to_alls_per_layer_and_micro_batch(recompute: str, modules: tuple[str, ...], per_layer: int) -> None:
    model = MODELS["mixtral-8x7b"]  # 32 MoE layers
    cluster = CLUSTERS["h100-8"].with_nodes(1)
    workload = WorkloadSpec(global_batch=32, seq_len=4096, recompute_modules=modules)
    cand = evaluate_composition(model, cluster, workload, tp=1, dp=8, ep=8, mb=1, zero=1, recompute=recompute)
    micro_batches = 32 // 8  # global batch over dp at micro-batch 1
    row = _row(cand, "EP")
    assert row.calls == per_layer * 32 * micro_batches  # type: ignore[attr-defined]
    # one node: every all-to-all has the same payload and link, so the seconds follow the calls
    kept = replace(workload, recompute_modules=())
    keep = evaluate_composition(model, cluster, kept, tp=1, dp=8, ep=8, mb=1, zero=1, recompute="none")
    assert row.time_s == pytest.approx(_row(keep, "EP").time_s * per_layer / 4, rel=1e-9)  # type: ignore[attr-defined]


def test_context_parallel_ring_listed_again_under_full_recomputation() -> None:
    model = MODELS["llama3-8b"]  # 32 layers
    cluster = CLUSTERS["h100-8"].with_nodes(1)
    workload = WorkloadSpec(global_batch=8, seq_len=8192)
    rows = {
        mode: _row(evaluate_composition(model, cluster, workload, tp=1, cp=2, dp=4, mb=1, zero=1, recompute=mode), "CP")
        for mode in ("none", "full")
    }
    steps = (2 - 1) * 32 * (8 // 4)  # cp - 1 ring steps per layer and micro-batch
    # forward ring, backward ring; full recomputation adds the forward ring once more
    assert rows["none"].calls == 2 * steps  # type: ignore[attr-defined]
    assert rows["full"].calls == 3 * steps  # type: ignore[attr-defined]
    entries = rows["full"].traffic.rows  # type: ignore[attr-defined]
    recomputed = [e for e in entries if "Recomputed forward" in e.entry.description.en]
    assert len(recomputed) == 1 and recomputed[0].entry.calls_per_step == steps
