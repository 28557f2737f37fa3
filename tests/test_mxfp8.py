"""MXFP8, the FP8 GEMM layout rule of Blackwell, the compute capability that decides both, and the B300 / GB300 presets.

Expected values are worked by hand from their sources, never read off the code under test:
- Transformer Engine @ d0067d0d: MXFP8 is one E8M0 scale (1 byte) per 32 consecutive elements; the row-wise and the
  column-wise copies are quantised separately from bf16 (docs/features/low_precision_training/mxfp8/mxfp8.rst), the
  default norm writes bf16 and a quantize pass follows (csrc/extensions/normalization.cpp, Impl::UNFUSED), and it runs
  at compute capability 10.x only (quantization.py, _compute_mxfp8_support); FP8 GEMMs take any layout at 10.x and
  from 13.0, where no transposed FP8 copy is made (transformer_engine.cpp, nvte_is_non_tn_fp8_gemm_supported;
  csrc/quantizer.cpp, with_transpose).
- NVIDIA DGX Cloud Benchmarking README @ 841f5466: B300 2250 / 4500 and GB300 2450 / 4900 dense TFLOP/s (BF16 / FP8);
  B300 270 GB at 7.7 TB/s, 8 x 800 Gbit/s compute links; GB300 279 GB at 8 TB/s; NVLink 5 at 1.8 TB/s per GPU.
- Llama 3 8B's config: hidden 4096, 32 heads of 128, 8 KV heads, FFN 14336 (SwiGLU).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io

import pytest

from coursekit.__main__ import main
from coursekit.i18n import get_language, set_language
from coursekit.planner import evaluate_composition, plan
from coursekit.planner.estimate import fp8_quantisation_bytes_per_token, fp8_weight_cast_bytes
from coursekit.presets import CLUSTERS, MODELS
from coursekit.specs import FP8_RECIPES, ClusterSpec, WorkloadSpec, fp8_weight_cache_bytes
from coursekit.units import GB_BYTES

# Llama 3 8B at TP 1, per token and layer: the inputs of QKV (norm fused), the projection, fc1 (norm fused) and fc2,
# and the output gradients of the same four layers.
INPUT_WIDTHS = (4096, 4096, 4096, 14336)
FUSED_INPUTS = (True, False, True, False)
OUTPUT_WIDTHS = (4096 + 2 * 1024, 4096, 2 * 14336, 4096)
MXFP8_COPY = 1 + 1 / 32  # one FP8 byte and 1/32 of an E8M0 scale byte


def _dense(recipe: str, any_layout: bool) -> float:
    got = fp8_quantisation_bytes_per_token(MODELS["llama3-8b"], recipe, tp=1, any_layout=any_layout)
    return float(got.dense_layer)


def test_mxfp8_casts_by_hand() -> None:
    # every tensor: read bf16 (2), write the row-wise and the column-wise copies with their scales, fused norm or not
    per_element = 2 + 2 * MXFP8_COPY
    assert per_element == 4.0625
    by_hand = per_element * (sum(INPUT_WIDTHS) + sum(OUTPUT_WIDTHS))
    assert by_hand == 282880
    assert _dense("mxfp8", True) == by_hand
    assert _dense("mxfp8", False) == by_hand  # no transposes to make on any device: the cast writes both copies


def test_per_tensor_scaling_without_transposes_by_hand() -> None:
    # any layout: only the row-wise copy. Current scaling: amax pass then cast, 2 + 2 + 1; fused into the norm 2 + 1.
    current = sum(3 * w if fused else 5 * w for w, fused in zip(INPUT_WIDTHS, FUSED_INPUTS, strict=True))
    current += 5 * sum(OUTPUT_WIDTHS)
    assert (current, _dense("current", True)) == (331776, 331776)
    # delayed: 2 + 1, and nothing where the norm writes FP8 itself
    delayed = sum(0 if fused else 3 * w for w, fused in zip(INPUT_WIDTHS, FUSED_INPUTS, strict=True))
    delayed += 3 * sum(OUTPUT_WIDTHS)
    assert (delayed, _dense("delayed", True)) == (184320, 184320)
    # Hopper's transposes on top: 1 byte per element written by the cast kernel, a 1 + 1 transpose after a fused
    # norm under delayed scaling (the figures the Hopper tests already state: 401,408 and 262,144)
    assert _dense("current", False) - current == sum(INPUT_WIDTHS) + sum(OUTPUT_WIDTHS) == 69632
    assert _dense("delayed", False) - delayed == 2 * (4096 + 4096) + (4096 + 14336) + sum(OUTPUT_WIDTHS) == 77824


def test_weight_casts_per_parameter() -> None:
    params = 4096 * 6144 + 4096 * 4096 + 4096 * 2 * 14336 + 14336 * 4096  # Llama 3 8B's linear weights in a layer
    model = MODELS["llama3-8b"]
    per_param = {
        ("mxfp8", True): 2 + 2 * MXFP8_COPY,  # read bf16, write both copies
        ("current", True): 2 + 2 + 1,  # amax pass, cast; no transpose
        ("current", False): 2 + 2 + 1 + 1,  # and Hopper's transpose written by the cast
        ("delayed", True): 2 + 1,
        ("delayed", False): 2 + 1 + 1,
    }
    for (recipe, any_layout), expected in per_param.items():
        assert fp8_weight_cast_bytes(model, recipe, tp=1, any_layout=any_layout) == expected * params


def test_cached_fp8_weights_by_recipe_and_device() -> None:
    assert fp8_weight_cache_bytes("current", False) == 2  # Hopper: the FP8 weight and its FP8 transpose
    assert fp8_weight_cache_bytes("delayed", True) == 1  # any layout: the FP8 weight alone
    assert fp8_weight_cache_bytes("mxfp8", True) == 2 * MXFP8_COPY  # both copies and their scales
    # in the ledger: Llama 3 8B at TP 2 caches 32 layers x 218,103,808 weights / 2, 1 byte each fewer on a B200
    b200 = CLUSTERS["b200-8"]
    hopper_rule = dataclasses.replace(b200, name="b200-hopper-rule", compute_capability=None)
    workload = WorkloadSpec(global_batch=64, seq_len=8192, precision="fp8", fp8_weight_cache=True, zero_stages=(1,))
    layout = dict(tp=2, pp=1, dp=4, zero=1, mb=1, recompute="none")
    on = {c.name: evaluate_composition(MODELS["llama3-8b"], c, workload, **layout) for c in (b200, hopper_rule)}
    saved = on["b200-hopper-rule"].memory.params_gib - on["b200-8"].memory.params_gib
    assert saved == pytest.approx(32 * 218_103_808 / 2 / 2**30) == pytest.approx(3.25)


def test_compute_capability_of_the_presets() -> None:
    expected = {
        "a100-8": 8.0, "jeanzay-a100-8": 8.0, "pcie-24g-8": 8.6, "h100-8": 9.0, "h800-8": 9.0, "h200-8": 9.0,
        "b200-8": 10.0, "gb200-nvl72": 10.0, "b300-8": 10.3, "gb300-nvl72": 10.3, "cpu-box": None,
    }  # fmt: skip
    assert {name: c.compute_capability for name, c in CLUSTERS.items()} == expected
    blackwell = {"b200-8", "gb200-nvl72", "b300-8", "gb300-nvl72"}
    assert {name for name, c in CLUSTERS.items() if c.mxfp8} == blackwell
    assert {name for name, c in CLUSTERS.items() if c.fp8_any_layout} == blackwell


@pytest.mark.parametrize(
    ("capability", "any_layout", "mxfp8"),
    [(9.0, False, False), (10.0, True, True), (10.3, True, True), (11.0, True, True), (12.0, False, False),
     (12.1, False, False), (13.0, True, False)],
)  # fmt: skip
def test_the_engine_rules_by_capability(capability: float, any_layout: bool, mxfp8: bool) -> None:
    cluster = dataclasses.replace(CLUSTERS["b200-8"], compute_capability=capability)
    assert (cluster.fp8_any_layout, cluster.mxfp8) == (any_layout, mxfp8)


def test_b300_and_gb300_presets_are_the_reference_architectures() -> None:
    b300, gb300 = CLUSTERS["b300-8"], CLUSTERS["gb300-nvl72"]
    assert (b300.peak_flops, b300.peak_flops_fp8, gb300.peak_flops, gb300.peak_flops_fp8) == (
        2250e12, 4500e12, 2450e12, 4900e12,
    )  # fmt: skip
    assert (b300.memory_per_device_gib, b300.memory_bandwidth_bytes_per_s) == (270.0, 7.7e12)
    assert (gb300.memory_per_device_gib, gb300.memory_bandwidth_bytes_per_s) == (279.0, 8e12)
    assert b300.intra_node_bandwidth_bytes_per_s == gb300.intra_node_bandwidth_bytes_per_s == 1800 * GB_BYTES / 2
    assert b300.inter_node_bandwidth_bytes_per_s == 800e9 / 8  # one 800 Gb/s compute link per GPU, each way
    assert (gb300.gpus_per_node, gb300.nvlink_domain_gpus, b300.gpus_per_node) == (4, 72, 8)
    assert all("841f5466cd86b66abd48049e839c563776f6d716" in c.source for c in (b300, gb300))
    assert "assumed" in gb300.source  # GB300's network is not in the README: said so


def test_mxfp8_refused_where_the_engine_refuses_it() -> None:
    workload = WorkloadSpec(global_batch=64, seq_len=8192, precision="fp8", fp8_recipe="mxfp8")
    before = get_language()
    try:
        set_language("zh")
        with pytest.raises(ValueError, match=r"^fp8_recipe = 'mxfp8'：h100-8 的设备不能运行 MXFP8.*这里是 9）"):
            plan(MODELS["llama3-8b"], CLUSTERS["h100-8"], workload)
        set_language("en")
        unstated = ClusterSpec("mine", 1, 8, 180.0, 2250e12, 900e9, 50e9, 3e-6, 6e-6, 7.7e12, peak_flops_fp8=4500e12)
        with pytest.raises(ValueError, match=r"cannot run MXFP8 .* here: not stated\). .*compute_capability=10\.0"):
            plan(MODELS["llama3-8b"], unstated, workload)
    finally:
        set_language(before)
    assert plan(MODELS["llama3-8b"], CLUSTERS["b200-8"], workload).accepted_count > 0
    # at bf16 the FP8 recipe is not used, so it is not refused
    bf16 = dataclasses.replace(workload, precision="bf16")
    assert plan(MODELS["llama3-8b"], CLUSTERS["h100-8"], bf16).accepted_count > 0
    assert "mxfp8" in FP8_RECIPES


def test_mxfp8_step_sits_between_the_per_tensor_recipes_on_a_b200() -> None:
    # per element of a tensor cast for backward: delayed 3, MXFP8 4.0625, current 5 (any layout): the casts' time
    # orders the steps, all else being equal
    model, cluster = MODELS["llama3-8b"], CLUSTERS["b200-8"]
    layout = dict(tp=1, pp=1, dp=8, zero=1, mb=2, recompute="none")
    steps = {
        recipe: evaluate_composition(
            model, cluster, WorkloadSpec(global_batch=128, seq_len=8192, precision="fp8", fp8_recipe=recipe), **layout
        ).step_s
        for recipe in ("delayed", "mxfp8", "current")
    }
    assert steps["delayed"] < steps["mxfp8"] < steps["current"]


@pytest.mark.parametrize("bad", [True, "10.0", 0.5, float("nan"), 100.0])
def test_compute_capability_checked(bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match="compute_capability"):
        dataclasses.replace(CLUSTERS["b200-8"], compute_capability=bad)


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:
            status = int(stop.code or 0)
    return status, out.getvalue(), err.getvalue()


def test_cli_compute_capability_and_mxfp8() -> None:
    base = ["plan", "--model", "llama3-8b", "--nodes", "1", "--global-batch", "64", "--seq-len", "8192",
            "--precision", "fp8", "--fp8-recipe", "mxfp8", "--top", "1", "--lang", "en"]  # fmt: skip
    status, out, err = _run([*base, "--cluster", "b200-8"])
    assert status == 0 and "FP8 scaling recipe mxfp8" in out
    status, out, err = _run([*base, "--cluster", "h100-8"])
    assert status != 0 and "cannot run MXFP8" in out + err
    # a custom Blackwell cluster states its compute capability
    custom = ["--gpu-memory-gib", "180", "--peak-tflops", "2250", "--peak-fp8-tflops", "4500", "--hbm-gb-s", "7700",
              "--gpus-per-node", "8", "--intra-gb-s", "900", "--inter-gb-s", "50"]  # fmt: skip
    status, out, err = _run([*base, *custom, "--compute-capability", "10.0"])
    assert status == 0 and "FP8 scaling recipe mxfp8" in out
    status, out, err = _run([*base, *custom])
    assert status != 0 and "not stated" in out + err


def test_report_states_the_layout_rule_and_the_cached_copies() -> None:
    def report(cluster: str, recipe: str) -> str:
        workload = WorkloadSpec(
            global_batch=64, seq_len=8192, precision="fp8", fp8_recipe=recipe, fp8_weight_cache=True
        )
        return plan(MODELS["llama3-8b"], CLUSTERS[cluster], workload).report(top=1)

    before = get_language()
    try:
        set_language("en")
        hopper, blackwell, mx = report("h100-8", "current"), report("b200-8", "current"), report("b200-8", "mxfp8")
        assert "transposed FP8 copies are made (FP8 GEMMs at compute capability 9 take only the TN layout)" in hopper
        assert "FP8 weight and its transpose cached between micro-batches, 2 bytes more" in hopper
        assert "no transposed FP8 copies (FP8 GEMMs at compute capability 10 take any layout)" in blackwell
        assert "(one copy, no transpose), 1 byte more" in blackwell
        assert "one E8M0 scale per 32 elements" in mx and "2.0625 bytes more" in mx
        set_language("zh")
        assert "不生成 FP8 转置副本（计算能力 10 的 FP8 矩阵乘接受任意布局）" in report("b200-8", "delayed")
    finally:
        set_language(before)


def test_mxfp8_saved_inputs_carry_their_scales() -> None:
    # Llama 3 8B at TP 1, micro-batch 1, 8192 tokens, no recomputation, one stage: the FP8-saved linear inputs per
    # token and layer are the QKV input 4096, the projection input 4096, the fc1 input 4096 and the fc2 input 14336;
    # MXFP8 saves the column-wise copy with 1/32 byte of scale per element more than per-tensor FP8's 1 byte
    per_token = 4096 + 4096 + 4096 + 14336
    by_hand_gib = 32 * 8192 * per_token / 32 / 2**30
    assert by_hand_gib == 0.203125
    memory = {}
    for recipe in ("current", "mxfp8"):
        workload = WorkloadSpec(global_batch=8, seq_len=8192, precision="fp8", fp8_recipe=recipe, zero_stages=(1,))
        layout = dict(tp=1, pp=1, dp=8, zero=1, mb=1, recompute="none")
        memory[recipe] = evaluate_composition(MODELS["llama3-8b"], CLUSTERS["b200-8"], workload, **layout).memory
    assert memory["mxfp8"].activations_gib - memory["current"].activations_gib == by_hand_gib
    assert memory["mxfp8"].params_gib == memory["current"].params_gib
