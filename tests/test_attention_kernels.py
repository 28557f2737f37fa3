"""The attention kernel a workload names (``WorkloadSpec(attention_kernel=...)``), worked by hand from the paper.

Every expected value comes from the bars of the FlashAttention-3 paper (Shah et al., arXiv:2407.08608, H100 80GB
SXM5, BF16, head dim 128): forward and backward TFLOP/s of FlashAttention-3, cuDNN and FlashAttention-2 at each
sequence length, turned into a rate per counted FLOP (PaLM's count: the backward is 2 forwards; the paper's backward
counts 2.5) over the H100's best matmul, 792.1 TFLOP/s (Bekman's MAMF table).
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import replace

import numpy as np
import pytest

import coursekit
from coursekit.__main__ import main
from coursekit.planner import ClusterSpec, ModelSpec, WorkloadSpec, evaluate_composition
from coursekit.presets import CLUSTERS, MODELS

CJK = re.compile(r"[\u4e00-\u9fff]")


def _rate(forward: float, backward: float) -> float:
    """One forward plus one backward per counted FLOP (backward counted 2.5 forwards in the paper, 2 in PaLM's):
    3 / (1/f + 2/(0.8·b)), over the H100's best matmul."""
    return 3.0 / (1.0 / forward + 2.0 / (backward * 2.0 / 2.5)) / 792.1


# The paper's bars at 4K, 8K and 16K tokens: (forward, backward) TFLOP/s.
FA3 = {4096: (638, 542), 8192: (646, 559), 16384: (648, 561)}
CUDNN = {4096: (609, 499), 8192: (600, 518), 16384: (595, 516)}
FA2 = {1024: (350, 260), 2048: (362, 291), 4096: (368, 310), 8192: (370, 318), 16384: (370, 322)}

# A small model at 4K tokens whose attention core is easy to count: 12·L·h·s FLOPs per token (PaLM).
L, H, S = 4, 1024, 4096
SMALL = ModelSpec("small", layers=L, hidden=H, heads=8, ffn_hidden=4 * H, vocab=1000, seq_len=S, mlp="gelu")
HOPPER = ClusterSpec("hopper", 1, 8, 80.0, 989e12, 450e9, 50e9, 3.4e-6, 14e-6, 3.35e12, compute_capability=9.0)


def _mean(bars: dict[int, tuple[int, int]]) -> tuple[float, float]:
    return sum(f for f, _ in bars.values()) / len(bars), sum(b for _, b in bars.values()) / len(bars)


def test_each_kernels_rate_over_the_best_matmul_by_hand() -> None:
    """FlashAttention-2 at 4K: 3 / (1/368 + 2/(0.8·310)) = 278.25 TFLOP/s per counted FLOP, 0.3513 of 792.1. Over
    4K-16K (the means of the three bars) FlashAttention-3 keeps 0.6244, cuDNN 0.5778, FlashAttention-2 0.3572: the
    Ampere kernel runs at 0.57 of FlashAttention-3's speed on H100."""
    from coursekit.planner.calibration import ATTENTION_KERNEL_RATES, ATTENTION_RELATIVE_RATE, attention_rate_at
    from coursekit.planner.calibration import FLASH_ATTENTION_2_H100_BY_LENGTH as FA2_FIGURES

    assert _rate(368, 310) == pytest.approx(0.3513, abs=1e-4)
    assert attention_rate_at(4096, FA2_FIGURES) == pytest.approx(_rate(368, 310), rel=1e-12)
    assert attention_rate_at(2048, FA2_FIGURES) == pytest.approx(_rate(362, 291), rel=1e-12)
    assert attention_rate_at(512, FA2_FIGURES) == pytest.approx(_rate(350, 260), rel=1e-12)  # the 1K bar
    expected = {
        "flash-attention-3": _rate(*_mean(FA3)),
        "cudnn": _rate(*_mean(CUDNN)),
        "flash-attention-2": _rate(*_mean({k: v for k, v in FA2.items() if k >= 4096})),
    }
    assert ATTENTION_KERNEL_RATES == pytest.approx(expected, rel=1e-12)
    assert [round(expected[k], 4) for k in expected] == [0.6244, 0.5778, 0.3572]
    assert ATTENTION_KERNEL_RATES["flash-attention-3"] == ATTENTION_RELATIVE_RATE  # the default is unchanged
    assert expected["flash-attention-2"] / expected["flash-attention-3"] == pytest.approx(0.572, abs=1e-3)


def test_the_kernel_changes_only_the_attention_cores_share_of_compute_by_hand() -> None:
    """Causal flash attention computes half the pairs at the kernel's rate r: each counted FLOP of the core costs
    0.5 / r linear-layer FLOPs. At 4K tokens (one kernel call over 4096 tokens) FlashAttention-3 runs at
    r3 = 0.6129 and FlashAttention-2 at r2 = 0.3513, so FlashAttention-2 adds, per token, 12·L·h·s counted FLOPs times
    (0.5/r2 - 0.5/r3) = 0.607 linear-layer FLOPs, at the layers' efficiency; memory does not change."""
    batch, dp = 64, 8
    args = {"tp": 1, "pp": 1, "dp": dp, "mb": 1, "zero": 1, "recompute": "none"}
    fa3 = evaluate_composition(SMALL, HOPPER, WorkloadSpec(global_batch=batch, seq_len=S), **args)
    fa2_workload = WorkloadSpec(global_batch=batch, seq_len=S, attention_kernel="flash-attention-2")
    fa2 = evaluate_composition(SMALL, HOPPER, fa2_workload, **args)
    assert fa2.efficiency == fa3.efficiency  # the same matmul shapes
    r3, r2 = _rate(638, 542), _rate(368, 310)
    assert 0.5 / r2 - 0.5 / r3 == pytest.approx(0.607, abs=1e-3)
    added_s = batch * S * (12 * L * H * S) * (0.5 / r2 - 0.5 / r3) / (dp * 989e12 * fa3.efficiency)
    assert fa2.timeline.compute_s - fa3.timeline.compute_s == pytest.approx(added_s, rel=1e-9)
    assert fa2.memory.total_gib == fa3.memory.total_gib


def test_context_parallelism_runs_the_kernel_over_each_ranks_share_by_hand() -> None:
    """With CP each rank calls the kernel over its s/cp tokens: 8K tokens on CP 2 and CP 4 take FlashAttention-2's 4K
    and 2K bars."""
    from coursekit.planner.estimate import attention_core_weight, attention_kernel_rate

    workload = WorkloadSpec(global_batch=8, seq_len=8192, attention_kernel="flash-attention-2")
    rates = attention_kernel_rate(workload, 8192, np.array([1.0, 2.0, 4.0]))
    assert rates == pytest.approx([_rate(370, 318), _rate(368, 310), _rate(362, 291)], rel=1e-12)
    assert attention_core_weight(workload, 8192, 2) == pytest.approx(0.5 / _rate(368, 310), rel=1e-12)


def test_a_published_run_on_h100_names_its_kernel_in_the_assumptions() -> None:
    """The plan's assumption line names the kernel and its 4K-16K rate, in both languages."""
    from coursekit.planner import plan

    workload = WorkloadSpec(global_batch=64, seq_len=8192, attention_kernel="cudnn")
    result = plan(MODELS["llama3-8b"], CLUSTERS["h100-8"].with_nodes(1), workload)
    text = result.report(top=0)
    assert "cuDNN" in text and "0.578" in text
    try:
        coursekit.set_language("zh")
        text = result.report(top=0)
        assert "融合注意力内核 cuDNN" in text and "0.578" in text
    finally:
        coursekit.set_language("en")


@pytest.mark.parametrize("kernel", ["cudnn", "flash-attention-2"])
def test_kernels_measured_on_h100_are_refused_elsewhere_naming_the_rule(kernel: str) -> None:
    """Their bars are H100's: an A100 (compute capability 8.0), a B200 (10.0) or a cluster that states none gets a
    ValueError naming the parameter, the value, the cluster's capability and the way out, in the learner's
    language; H100 and H800 (9.0) accept them, and the default runs anywhere."""
    from coursekit.planner import plan
    from coursekit.specs import check_attention_kernel

    workload = WorkloadSpec(global_batch=64, seq_len=4096, attention_kernel=kernel)
    for name, capability in (("a100-8", "8.0"), ("b200-8", "10.0")):
        with pytest.raises(ValueError, match=rf"attention_kernel = '{kernel}'.*{re.escape(capability)}"):
            plan(MODELS["llama3-8b"], CLUSTERS[name].with_nodes(1), workload)
    with pytest.raises(ValueError, match="not stated"):
        check_attention_kernel(replace(HOPPER, compute_capability=None), kernel)
    for name in ("h100-8", "h800-8"):
        check_attention_kernel(CLUSTERS[name], kernel)
    check_attention_kernel(CLUSTERS["a100-8"], "flash-attention-3")
    try:
        coursekit.set_language("zh")
        with pytest.raises(ValueError) as error:
            check_attention_kernel(CLUSTERS["a100-8"], kernel)
        assert CJK.search(str(error.value)) and kernel in str(error.value) and "8.0" in str(error.value)
    finally:
        coursekit.set_language("en")


def test_bad_kernels_and_contradictions_are_refused_naming_the_parameter() -> None:
    with pytest.raises(ValueError, match=r"attention_kernel.*'fa2'.*flash-attention-3"):
        WorkloadSpec(global_batch=8, attention_kernel="fa2")
    with pytest.raises(TypeError, match="attention_kernel"):
        WorkloadSpec(global_batch=8, attention_kernel=2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"attention_kernel = 'cudnn'.*flash_attention=False"):
        WorkloadSpec(global_batch=8, attention_kernel="cudnn", flash_attention=False)
    with pytest.raises(ValueError, match=r"attention_kernel = 'flash-attention-2'.*serving"):
        WorkloadSpec(global_batch=8, mode="serving", attention_kernel="flash-attention-2")
    WorkloadSpec(global_batch=8, flash_attention=False)  # the default kernel with eager attention: fine
    with pytest.raises(TypeError, match="cluster"):
        from coursekit.specs import check_attention_kernel

        check_attention_kernel("h100-8", "cudnn")  # type: ignore[arg-type]


def test_command_line_takes_the_kernel_and_refuses_it_off_hopper() -> None:
    argv = ["plan", "--model", "llama3-8b", "--cluster", "h100-8", "--nodes", "1", "--global-batch", "64"]
    argv += ["--seq-len", "8192", "--top", "1"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, "--attention-kernel", "flash-attention-2"]) == 0
    assert "FlashAttention-2" in out.getvalue()
    err = io.StringIO()
    a100 = [item if item != "h100-8" else "a100-8" for item in argv]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as exc:
        main([*a100, "--attention-kernel", "flash-attention-2"])
    assert exc.value.code == 2
    assert "attention_kernel" in err.getvalue() and "8.0" in err.getvalue()
    assert "Traceback" not in err.getvalue()
