"""Interleaved chunks that hold any number of layers: ``WorkloadSpec.pipeline_uneven_chunks``.

Megatron-Core, without a hand-written layout, asks v to divide every pipeline stage's layers (its
``TransformerConfig``); a hand-written ``--pipeline-model-parallel-layout`` (Megatron-Core 0.13 on) and PyTorch's
``torch.distributed.pipelining`` (TorchTitan, NeMo Automodel) place any number of layers on a chunk (NeMo Automodel
runs DeepSeek-V3's 61 layers on PP 4 with VP 8, which no equal split allows: 61 is not a multiple of 8). The tests use
Llama 3 70B, which plans quickly: 80 layers over 4 stages are 20 a stage, and 8 chunks do not split 20 equally.
"""

from __future__ import annotations

from functools import cache

import pytest

from coursekit.planner import WorkloadSpec, plan
from coursekit.planner.cli import workload_argv
from coursekit.presets import CLUSTERS, MODELS

LAYOUT = "tp=8,pp=4,dp=2,v=8,zero=1,mb=1"


@cache
def _result(uneven: bool) -> object:
    workload = WorkloadSpec(global_batch=64, seq_len=8192, pipeline_uneven_chunks=uneven)
    return plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(8), workload)


def test_twenty_layers_a_stage_do_not_split_into_eight_equal_chunks() -> None:
    assert MODELS["llama3-70b"].layers == 80 and (80 // 4) % 8 != 0
    assert MODELS["deepseek-v3"].layers == 61 and 61 % 8 != 0  # the Automodel layout: no equal split either


def test_by_default_the_gate_refuses_and_names_the_option() -> None:
    cand = _result(False).explain(LAYOUT)  # type: ignore[attr-defined]
    assert not cand.accepted
    (reason,) = [r for r in cand.reasons if r.code == "pp_schedule"]
    assert "--pipeline-uneven-chunks" in reason.render("en") and "--pipeline-uneven-chunks" in reason.render("zh")


def test_with_uneven_chunks_the_layout_passes_and_its_bubble_is_the_interleaved_one() -> None:
    result = _result(True)
    cand = result.explain(LAYOUT)  # type: ignore[attr-defined]
    assert not [r for r in cand.reasons if r.code == "pp_schedule"]
    # 64 sequences over dp 2 at micro-batch 1: m = 32; (p - 1) / (v·m + p - 1) = 3 / 259 (Narayanan et al. 2021, §2.2)
    assert cand.grad_accum == 32
    assert cand.bubble_fraction == pytest.approx(3 / 259)
    flat = result.explain("tp=8,pp=4,dp=2,v=1,zero=1,mb=1")  # type: ignore[attr-defined]
    assert flat.bubble_fraction == pytest.approx(3 / 35)


def test_the_search_tries_every_v_up_to_a_layer_per_chunk() -> None:
    searched = {c.virtual_stages for c in _result(True).accepted(100000) if c.pp == 4}  # type: ignore[attr-defined]
    default = {c.virtual_stages for c in _result(False).accepted(100000) if c.pp == 4}  # type: ignore[attr-defined]
    assert 8 in searched and 8 not in default and {2, 4} <= default  # 2 and 4 split 20; 8 only unevenly


def test_the_command_line_carries_the_option() -> None:
    workload = WorkloadSpec(global_batch=512, pipeline_uneven_chunks=True)
    assert "--pipeline-uneven-chunks" in workload_argv(workload)
    assert "--pipeline-uneven-chunks" not in workload_argv(WorkloadSpec(global_batch=512))
    with pytest.raises(TypeError, match="pipeline_uneven_chunks"):
        WorkloadSpec(global_batch=512, pipeline_uneven_chunks=1)  # type: ignore[arg-type]
