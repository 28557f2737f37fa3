"""Activation offloading in the planner (its ``"offload"`` mode).

What the engine does (Megatron-Core, :data:`coursekit.specs.OFFLOAD_SOURCE`): with ``cpu_offloading`` and
``cpu_offloading_num_layers = N`` the saved activations of N layers go to host memory in the forward and come back
for the backward; N must be smaller than the model's layers; the engine refuses offloading with pipeline parallelism
and with any recomputation. NVIDIA's published Llama 3.1 405B run on 128 GB200 (Megatron-Bridge, FP8 current
scaling: tp 2, pp 1, dp 64, Megatron-FSDP, mb 1, seq 8192, global batch 64) offloads 95 of 126 layers and measures
5.62 s a step.

The expected values below are worked from those rules and from numbers outside the code under test: the GB200
superchip's datasheet figures (:mod:`coursekit.hardware`), the activation bytes of one layer as
:func:`coursekit.activations.layer_activation_ledger` counts them (Korthikanti et al.'s table, tested on its own), and
the same layout's ledger without offloading.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

import coursekit
from coursekit.activations import layer_activation_ledger
from coursekit.capacity import RECOMPUTE_MODES
from coursekit.planner import ClusterSpec, WorkloadSpec, evaluate_composition, plan
from coursekit.planner.estimate import OFFLOAD_CODE, offload_copy_s, training_estimate
from coursekit.presets import CLUSTERS, MODELS
from coursekit.specs import PLAN_RECOMPUTE_MODES

GIB = 2**30
MODEL = MODELS["llama3-405b"]
GB200 = CLUSTERS["gb200-nvl72"].with_nodes(32)  # 128 GPUs, trays of 4
WORKLOAD = WorkloadSpec(global_batch=64, seq_len=8192, precision="fp8", fp8_recipe="current")
PUBLISHED = {"tp": 2, "pp": 1, "dp": 64, "cp": 1, "zero": 3, "mb": 1}


def _layout(mode: str, **changes: int) -> object:
    return evaluate_composition(MODEL, GB200, WORKLOAD, **{**PUBLISHED, **changes}, recompute=mode)


def _layer_bytes() -> float:
    """One layer's saved activations on one rank: tp 2 with sequence parallelism, FP8 linears, flash attention."""
    ledger = layer_activation_ledger(
        MODEL.layer_widths(),
        seq_len=8192,
        micro_batch=1,
        tp=2,
        sequence_parallel=True,
        flash_attention=True,
        precision="fp8",
    )
    return float(sum(ledger.values()))


def test_host_figures_of_the_gb200_superchip() -> None:
    # Grace: 480 GB LPDDR5X at 512 GB/s for 2 GPUs; NVLink-C2C 900 GB/s both directions -> 450 GB/s one way
    gb200 = CLUSTERS["gb200-nvl72"]
    assert gb200.host_memory_per_device_gib == pytest.approx(240e9 / GIB)
    assert gb200.host_link_bandwidth_bytes_per_s == pytest.approx(min(450e9, 512e9) / 2)
    # DGX H100: 2 TB for 8 GPUs; PCIe 5.0 x16 (32 GT/s x 16 lanes x 128/130 / 8 bits = 63.0 GB/s) to the host, taken
    # as shared by the two GPUs of a PCIe switch
    h100 = CLUSTERS["h100-8"]
    assert h100.host_memory_per_device_gib == pytest.approx(250e9 / GIB)
    assert h100.host_link_bandwidth_bytes_per_s == pytest.approx(63.0154e9 / 2, rel=1e-5)
    assert CLUSTERS["a100-8"].host_memory_per_device_gib is None  # not stated: the planner does not offload there


def test_the_published_405b_layout_fits_by_offloading_and_keeps_the_step_without_recomputation() -> None:
    none, full, offload = (_layout(mode) for mode in ("none", "full", "offload"))
    assert none.codes == ("memory",) and full.accepted and offload.accepted
    a_bytes = _layer_bytes()
    # the ledger without offloading holds 126 such layers (plus the logits); the device has 186 GiB
    assert none.memory.activations_gib * GIB == pytest.approx(126 * a_bytes, rel=0.01)
    over = none.memory.total_gib * GIB - 186 * GIB
    layers = math.ceil(over / a_bytes) + 1  # N layers on the host save N - 1: one is always in flight
    assert offload.offloaded_layers == layers
    assert 1 <= layers < MODEL.layers <= 126  # fewer than all layers, as the engine requires; NVIDIA offloads 95
    assert offload.memory.total_gib <= 186.0
    assert offload.memory.total_gib * GIB == pytest.approx(
        none.memory.total_gib * GIB - (layers - 1) * a_bytes, rel=1e-3
    )
    assert offload.host_offload_gib * GIB == pytest.approx(layers * a_bytes, rel=1e-3)
    assert offload.host_offload_gib < GB200.host_memory_per_device_gib
    # one layer's copy: A / 225 GB/s (about 8 ms) against a forward of the step's compute / 126 / 3 (about 15 ms)
    per_layer_compute_s = offload.timeline.compute_s / MODEL.layers
    assert a_bytes / 225e9 < per_layer_compute_s / 3
    assert offload.offload_exposed_s == 0.0
    assert offload.offload_copy_s == pytest.approx(2 * layers * a_bytes / 225e9, rel=1e-3)
    assert offload.step_s == pytest.approx(none.step_s, rel=1e-12)  # nothing recomputed, nothing shown
    assert offload.step_s < full.step_s
    # NVIDIA measures 5.62 s; full recomputation's estimate was 1.36x that, offloading's is within 5 %
    assert offload.step_s / 5.62 == pytest.approx(1.0, abs=0.05)
    assert full.step_s / 5.62 > 1.3


def test_the_copy_formula_by_hand() -> None:
    # PCIe 5.0 x16, 1 GB a layer: 15.87 ms each way; a 30 ms layer computes 10 ms forward, 20 ms backward
    one_way = 1e9 / 63e9
    copy, exposed = offload_copy_s(10, 1e9, 63e9, 0.030, micro_batches=4)
    assert float(copy) == pytest.approx(2 * 4 * 10 * one_way)
    assert float(exposed) == pytest.approx(4 * 10 * ((one_way - 0.010) + 0.0))
    # arrays line up with numbers, element by element, as the search calls it
    copies, shown = offload_copy_s(np.array([0, 10]), 1e9, 63e9, np.array([0.03, 0.3]))
    assert copies.tolist() == pytest.approx([0.0, 20 * one_way]) and shown.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    ("args", "kind", "words"),
    [
        ((-1, 1e9, 63e9, 0.03), ValueError, "offloaded_layers = -1"),
        ((1, 1e9, 0.0, 0.03), ValueError, "host_link_bytes_per_s = 0.0"),
        ((1, "1e9", 63e9, 0.03), TypeError, "layer_bytes"),
        ((1, 1e9, 63e9, float("nan")), ValueError, "layer_compute_s"),
        (([1, 2], 1e9, 63e9, [0.1, 0.2, 0.3]), ValueError, "offloaded_layers, layer_bytes"),
    ],
)
def test_the_copy_formula_refuses_bad_input_by_name(args: tuple, kind: type, words: str) -> None:
    with pytest.raises(kind, match=words.replace("(", r"\(")):
        offload_copy_s(*args)


def test_an_exposed_copy_on_pcie_lengthens_the_step() -> None:
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    workload = WorkloadSpec(global_batch=8, seq_len=32768)
    degrees = {"tp": 1, "pp": 1, "dp": 8, "cp": 1, "zero": 3, "mb": 1}
    none = evaluate_composition(model, cluster, workload, **degrees, recompute="none")
    offload = evaluate_composition(model, cluster, workload, **degrees, recompute="offload")
    assert none.codes == ("memory",) and offload.accepted
    layers, ga = offload.offloaded_layers, offload.grad_accum
    a_bytes = offload.host_offload_gib * GIB / layers
    # the next layer runs for its compute and the communication it waits for (the same as without offloading)
    waited_s = offload.timeline.exposed_communication_s - offload.offload_exposed_s
    layer_s = (offload.timeline.compute_s + waited_s) / (ga * model.layers)
    one_way = a_bytes / cluster.host_link_bandwidth_bytes_per_s
    assert one_way > layer_s / 3  # PCIe is slower than one layer's forward here
    shown = ga * layers * (max(one_way - layer_s / 3, 0) + max(one_way - 2 * layer_s / 3, 0))
    assert offload.offload_exposed_s == pytest.approx(shown, rel=1e-9)
    assert offload.step_s == pytest.approx(none.step_s + shown, rel=1e-9)


@pytest.mark.parametrize(
    ("case", "key"),
    [
        ("pipeline", "pipeline parallelism (pp = 2 > 1)"),
        ("modules", "module-level recomputation"),
        ("no_host", "states no host memory"),
        ("unneeded", "fits without offloading"),
        ("host_full", "of host memory per GPU"),
        ("too_many_layers", None),
    ],
)
def test_the_offload_gate_says_why(case: str, key: str | None) -> None:
    model, cluster, workload, degrees = MODEL, GB200, WORKLOAD, dict(PUBLISHED)
    if case == "pipeline":
        degrees.update(pp=2, dp=32)
    elif case == "modules":
        model = MODELS["mixtral-8x7b"]
        workload = replace(WORKLOAD, recompute_modules=("moe_act",))
        degrees = {"tp": 1, "pp": 1, "dp": 128, "cp": 1, "ep": 8, "zero": 3, "mb": 1}
    elif case == "no_host":
        cluster = replace(GB200, host_memory_per_device_gib=None, host_link_bandwidth_bytes_per_s=None)
    elif case == "unneeded":
        model = MODELS["llama3-8b"]
    elif case == "host_full":
        cluster = replace(GB200, host_memory_per_device_gib=10.0)
    else:  # 52.2 GiB of states and 2 layers in flight (3.5 GiB) exceed 54 GiB: the memory gate
        cluster = replace(GB200, memory_per_device_gib=54.0)
    candidate = evaluate_composition(model, cluster, workload, **degrees, recompute="offload")
    assert not candidate.accepted
    if key is None:
        assert candidate.codes == ("memory",)
        return
    assert "offload" in candidate.codes
    message = next(r.message for r in candidate.reasons if r.code == "offload")
    assert key in message


def test_the_gate_speaks_chinese() -> None:
    coursekit.set_language("zh")
    c = evaluate_composition(MODEL, GB200, WORKLOAD, **{**PUBLISHED, "pp": 2, "dp": 32}, recompute="offload")
    message = next(r.message for r in c.reasons if r.code == "offload")
    assert "激活卸载" in message and "流水线并行" in message


def test_the_search_offers_offloading_and_its_rows_match_the_explained_layout() -> None:
    result = plan(MODEL, GB200, WORKLOAD)
    row = result.explain({**PUBLISHED, "recompute": "offload"})
    alone = _layout("offload")
    assert row.accepted and row.step_s == pytest.approx(alone.step_s, rel=1e-12)
    assert row.offloaded_layers == alone.offloaded_layers
    best = result.accepted(top=1)[0]
    assert best.step_s <= row.step_s * (1 + 1e-12)


def test_array_columns_give_the_scalar_rows() -> None:
    rows = {key: np.array([2, 2]) for key in ("tp",)}
    rows.update(
        cp=np.array([1, 1]),
        pp=np.array([1, 1]),
        dp=np.array([64, 64]),
        ep=np.array([1, 1]),
        v=np.array([1, 1]),
        zero=np.array([3, 3]),
        mb=np.array([1, 1]),
        ga=np.array([1, 1]),
        rc=np.array([0, OFFLOAD_CODE]),
    )
    est = training_estimate(MODEL, GB200, WORKLOAD, rows)
    assert est["memory"]["offloaded_layers"].tolist() == [0.0, float(_layout("offload").offloaded_layers)]
    assert est["step_s"][1] == pytest.approx(_layout("offload").step_s, rel=1e-12)
    assert est["step_s"][0] == pytest.approx(_layout("none").step_s, rel=1e-12)
    steps = training_estimate(MODEL, GB200, WORKLOAD, rows, with_memory=False)["step_s"]
    assert steps.tolist() == est["step_s"].tolist()


def test_modes_the_planner_searches_and_the_capacity_ledger_keeps() -> None:
    assert RECOMPUTE_MODES == ("none", "selective", "full")  # one device's ledger: no host
    assert PLAN_RECOMPUTE_MODES == ("none", "selective", "full", "offload")
    assert WorkloadSpec(global_batch=8).recompute_modes == PLAN_RECOMPUTE_MODES


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_host_figures_come_in_pairs_and_in_range(lang: str) -> None:
    base = CLUSTERS["a100-8"]
    coursekit.set_language(lang)
    with pytest.raises(ValueError, match="host_link_bandwidth_bytes_per_s") as info:
        replace(base, host_memory_per_device_gib=100.0)
    with pytest.raises(ValueError, match="host_memory_per_device_gib = -1"):
        replace(base, host_memory_per_device_gib=-1, host_link_bandwidth_bytes_per_s=63e9)
    with pytest.raises(TypeError, match="host_link_bandwidth_bytes_per_s"):
        replace(base, host_memory_per_device_gib=100.0, host_link_bandwidth_bytes_per_s="63e9")
    assert ("主机" in str(info.value)) == (lang == "zh")
    # the figure given alone is echoed at 6 significant digits, not as 31507692307.692307 (GB/s typed, bytes/s kept)
    with pytest.raises(ValueError, match=r"host_link_bandwidth_bytes_per_s = 3\.15077e\+10[,，]") as alone:
        replace(base, host_link_bandwidth_bytes_per_s=31.5076923076923e9)
    assert "31507692307" not in str(alone.value)
    ok = replace(base, host_memory_per_device_gib=100, host_link_bandwidth_bytes_per_s=31.5e9)
    assert isinstance(ok, ClusterSpec) and ok.host_memory_per_device_gib == 100.0


def test_the_explanation_states_the_offload_and_its_assumptions() -> None:
    text = _layout("offload").explain()
    assert "Activation offloading" in text and "an estimate" in text
    coursekit.set_language("zh")
    text = _layout("offload").explain()
    assert "激活卸载" in text and "估计" in text


CUSTOM = ["--gpu-memory-gib", "80", "--peak-tflops", "989", "--hbm-gb-s", "3350", "--gpus-per-node", "8"]
CUSTOM += ["--intra-gb-s", "450", "--inter-gb-s", "50"]
LONG = ["--model", "llama3-8b", "--global-batch", "8", "--seq-len", "32768", "--recompute", "offload", "--json"]


def test_the_command_line_takes_the_host_figures_of_a_custom_cluster() -> None:
    import json

    from tests.test_fuzz_regressions12 import _cli

    code, out, err = _cli(["plan", *CUSTOM, "--host-memory-gib", "232.8", "--host-link-gb-s", "31.5", *LONG])
    assert code == 0, err
    result = json.loads(out)
    assert result["cluster"]["host_memory_per_device_gib"] == 232.8
    assert result["cluster"]["host_link_bandwidth_bytes_per_s"] == 31.5e9
    assert result["accepted_count"] > 0
    # without the host figures nothing offloads, and the gate says why
    code, out, err = _cli(["plan", *CUSTOM, *LONG])
    assert code == 0, err
    result = json.loads(out)
    assert result["accepted_count"] == 0
    funnel = {row["code"]: row["removed"] for row in result["funnel"]}
    assert funnel["offload"] > 0


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_host_figure_alone_is_refused_on_the_command_line(lang: str) -> None:
    from tests.test_fuzz_regressions12 import _cli

    code, _out, err = _cli(["plan", *CUSTOM, "--host-memory-gib", "232.8", *LONG, "--lang", lang])
    assert code == 2 and "Traceback" not in err
    assert "host" in err and ("主机" in err) == (lang == "zh")


def test_the_presets_lesson_9_names_are_the_ones_that_state_host_figures() -> None:
    from pathlib import Path

    stated = {name for name, cluster in CLUSTERS.items() if cluster.host_memory_per_device_gib is not None}
    assert stated == {"h100-8", "h200-8", "b200-8", "gb200-nvl72", "gb300-nvl72"}
    assert all(c.host_link_bandwidth_bytes_per_s is not None for n, c in CLUSTERS.items() if n in stated)
    source = (Path(__file__).resolve().parents[1] / "notebooks" / "src" / "09_workbench.py").read_text("utf-8")
    assert "（预设里的 H100、H200、B200、\n# GB200、GB300）" in source
    assert "(the H100, H200, B200, GB200 and GB300 presets)" in source


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_guide_9_quotes_the_numbers_the_planner_gives(lang: str) -> None:
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[1] / "docs" / "instructor" / lang / "09_workbench.md").read_text("utf-8")
    none, full, offload = (_layout(mode) for mode in ("none", "full", "offload"))
    assert f"{none.memory.total_gib:.1f} GiB" in guide
    assert f"{full.step_s:.2f} s" in guide
    assert f"{offload.step_s:.2f} s" in guide
    assert str(offload.offloaded_layers) in guide and "5.62 s" in guide  # 5.62 s: NVIDIA's measured step
    # "a seventh": the presets' host links per GPU, GB200 225 GB/s against DGX H100 31.5 GB/s
    ratio = GB200.host_link_bandwidth_bytes_per_s / CLUSTERS["h100-8"].host_link_bandwidth_bytes_per_s
    assert round(ratio) == 7


def test_a_faster_device_never_lengthens_an_offloading_step_that_waits_for_the_host() -> None:
    """Mixtral on 16 GB200, 16 sequences of 1024 tokens: the MoE layers wait for the host to launch them, and the
    copies go on during that wait. Charged after the wait (the first version), 1.5x the peak FLOP/s lengthened the step
    from 0.3077 s to 0.3119 s: the host wait grew by what the compute lost and the exposed copy grew on top."""
    model, cluster = MODELS["mixtral-8x7b"], CLUSTERS["gb200-nvl72"].with_nodes(4)
    workload = WorkloadSpec(global_batch=16, seq_len=1024)
    layout = {"tp": 2, "pp": 1, "dp": 8, "cp": 1, "ep": 2, "etp": 2, "zero": 0, "mb": 2, "recompute": "offload"}
    faster = replace(cluster, peak_flops=cluster.peak_flops * 1.5, peak_flops_fp8=cluster.peak_flops_fp8 * 1.5)
    before = evaluate_composition(model, cluster, workload, **layout)
    after = evaluate_composition(model, faster, workload, **layout)
    assert before.accepted and after.accepted and before.offloaded_layers and after.offload_exposed_s
    assert after.timeline.host_wait_s > 0 and after.step_s <= before.step_s * (1 + 1e-12)
