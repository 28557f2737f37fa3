"""GB200 NVL72: an NVLink domain larger than a node, the preset, and the GB200 rows of Megatron-Bridge's tables.

Expected values are typed from their sources: the DGX Cloud Benchmarking README's peak table and GB200 reference
architecture (@ 841f5466), Megatron-Bridge's launcher rule for Slurm segments (scripts/performance/utils/executors.py
@ 067f987df: up to 18 nodes of 4 GPUs one segment; more nodes, the largest divisor of the node count up to 18) and
its DGX-GB200 performance tables (25.09 @ fa0315ae2, 25.11 @ c0b9a0003, 26.06 @ 63b08b397).
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace

import pytest

from coursekit.__main__ import main
from coursekit.i18n import get_language, set_language
from coursekit.planner import compare_published, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import MEGATRON_BRIDGE_GB200_RUNS, RUN_ROLES
from coursekit.serving import ServingWorkload, plan_serving
from coursekit.specs import ClusterSpec, WorkloadSpec, nvlink_segment_nodes
from coursekit.units import GB_BYTES

GB200 = CLUSTERS["gb200-nvl72"]
#: The same trays with each tray its own NVLink domain: what the cluster was before the domain could span nodes.
TRAYS_ONLY = replace(GB200, name="gb200-trays", nvlink_domain_gpus=None)


def test_preset_is_the_reference_architecture() -> None:
    # peak table: GB200 BF16 2450, FP8 4900 TFLOPS; reference architecture: 186 GB HBM3e and 8 TB/s per GPU,
    # NVLink 5 at 1.8 TB/s per GPU (both directions); a compute tray holds 4 GPUs, a rack's NVLink domain 72
    assert (GB200.peak_flops, GB200.peak_flops_fp8) == (2450e12, 4900e12)
    assert (GB200.memory_per_device_gib, GB200.memory_bandwidth_bytes_per_s) == (186.0, 8e12)
    assert GB200.intra_node_bandwidth_bytes_per_s == 1800 * GB_BYTES / 2
    assert (GB200.gpus_per_node, GB200.nvlink_domain_gpus) == (4, 72)
    assert GB200.inter_node_bandwidth_bytes_per_s == 400e9 / 8  # one 400 Gb/s port per GPU
    assert "841f5466cd86b66abd48049e839c563776f6d716" in GB200.source


@pytest.mark.parametrize(
    ("nodes", "segment"),
    # nodes <= 18: all of them; else the largest divisor <= 18 (19 is prime: segments of 1)
    [(1, 1), (2, 2), (16, 16), (18, 18), (19, 1), (20, 10), (32, 16), (36, 18), (64, 16), (100, 10)],
)
def test_segments_follow_the_launcher(nodes: int, segment: int) -> None:
    assert nvlink_segment_nodes(nodes, 18) == segment
    assert GB200.with_nodes(nodes).domain_gpus == 4 * segment


def test_a_node_is_its_own_domain_by_default() -> None:
    for nodes in (1, 2, 64):
        assert CLUSTERS["h100-8"].with_nodes(nodes).domain_gpus == 8
        assert TRAYS_ONLY.with_nodes(nodes).domain_gpus == 4


@pytest.mark.parametrize("domain", [2, 6, 70])
def test_domain_must_be_whole_nodes(domain: int) -> None:
    before = get_language()
    set_language("zh")
    try:
        with pytest.raises(ValueError, match=rf"^nvlink_domain_gpus = {domain}：一个 NVLink 域由整数个节点组成"):
            replace(GB200, nvlink_domain_gpus=domain)
    finally:
        set_language(before)
    with pytest.raises(TypeError, match="nvlink_domain_gpus"):
        replace(GB200, nvlink_domain_gpus="72")  # type: ignore[arg-type]


def test_tp_across_trays_stays_on_nvlink_inside_the_domain() -> None:
    workload = WorkloadSpec(global_batch=64, seq_len=4096)
    layout = "tp=8,pp=1,dp=8,zero=1,mb=1,recompute=full"
    # 16 trays fill one domain: a TP group of 8 spans two trays over NVLink
    inside = plan(MODELS["llama3-70b"], GB200.with_nodes(16), workload).explain(layout)
    assert inside.accepted, inside.explain()
    tp_row = next(row for row in inside.communication if row.dimension == "TP")
    assert tp_row.link == "intra_node"
    # each tray its own domain: the same group would leave NVLink, and the interconnect gate says so
    trays = plan(MODELS["llama3-70b"], TRAYS_ONLY.with_nodes(16), workload).explain(layout)
    assert [r.code for r in trays.reasons] == ["interconnect"]
    assert "tp = 8 exceeds the 4 GPUs per node" in trays.reasons[0].message
    # 19 trays make segments of one tray: the domain the job fills is 4 GPUs, said as a domain
    nineteen = plan(MODELS["llama3-8b"], GB200.with_nodes(19), WorkloadSpec(global_batch=76, seq_len=4096))
    refused = nineteen.explain("tp=8,pp=1,dp=19,zero=1,mb=1")
    assert [r.code for r in refused.reasons if r.code == "interconnect"] == ["interconnect"]
    message = next(r.message for r in refused.reasons if r.code == "interconnect")
    assert "this job fills in each NVLink domain" in message and "4 GPUs" in message


def test_data_parallel_group_inside_the_domain_uses_nvlink() -> None:
    # ZeRO-3 over 64 GPUs on 16 trays: one domain, so the DP row is on the 900 GB/s link, not the 50 GB/s network
    workload = WorkloadSpec(global_batch=64, seq_len=4096)
    layout = "tp=1,pp=1,dp=64,zero=3,mb=1,recompute=full"
    on_nvl = plan(MODELS["llama3-8b"], GB200.with_nodes(16), workload).explain(layout)
    on_trays = plan(MODELS["llama3-8b"], TRAYS_ONLY.with_nodes(16), workload).explain(layout)
    dp_nvl = next(r for r in on_nvl.communication if r.dimension == "DP")
    dp_trays = next(r for r in on_trays.communication if r.dimension == "DP")
    assert (dp_nvl.link, dp_trays.link) == ("intra_node", "inter_node")
    assert dp_nvl.bus_bytes == pytest.approx(dp_trays.bus_bytes)  # the same traffic, a faster link
    assert dp_nvl.time_s < dp_trays.time_s


def test_report_states_the_domain() -> None:
    result = plan(MODELS["llama3-8b"], GB200.with_nodes(64), WorkloadSpec(global_batch=256, seq_len=4096))
    report = result.report(top=1)
    assert "one NVLink domain joins 72 GPUs across nodes of 4: this job fills 64 of them" in report
    h100 = plan(MODELS["llama3-8b"], CLUSTERS["h100-8"].with_nodes(8), WorkloadSpec(global_batch=256, seq_len=4096))
    assert "NVLink domain" not in h100.report(top=1)


def test_serving_tp_across_trays() -> None:
    workload = ServingWorkload(prompt_tokens=1024, output_tokens=256, concurrency=8)
    served = plan_serving(MODELS["llama3-70b"], GB200.with_nodes(2), workload)
    tp8 = [c for c in served.candidates if c.tp == 8]
    assert tp8 and all(not any(r.code == "interconnect" for r in c.reasons) for c in tp8)
    trays = plan_serving(MODELS["llama3-70b"], TRAYS_ONLY.with_nodes(2), workload)
    assert all(any(r.code == "interconnect" for r in c.reasons) for c in trays.candidates if c.tp == 8)


def test_cli_custom_domain_round_trip() -> None:
    argv = [
        "plan", "--model", "llama3-8b", "--gpu-memory-gib", "186", "--peak-tflops", "2450", "--hbm-gb-s", "8000",
        "--gpus-per-node", "4", "--intra-gb-s", "900", "--inter-gb-s", "50", "--nvlink-domain-gpus", "72",
        "--nodes", "16", "--global-batch", "64", "--json", "--top", "1",
    ]  # fmt: skip
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    assert json.loads(out.getvalue())["cluster"]["nvlink_domain_gpus"] == 72


def test_gb200_rows_transcribe_the_tables() -> None:
    # (release, model, GPUs, GBS, micro-batch, TP, PP, VP, tokens/s/GPU) as the DGX-GB200 tables print them
    rows = {
        ("25.09", "llama3-8b", 8, 128, 2, 1, 1, 1, 31357.0),
        ("25.11", "llama3-8b", 8, 128, 2, 1, 1, 1, 31508.0),
        ("25.11", "llama3-405b", 256, 1536, 1, 4, 16, 4, 813.0),
        ("26.06", "llama3-405b", 256, 1536, 1, 4, 16, 4, 843.0),
    }
    got = set()
    for run in MEGATRON_BRIDGE_GB200_RUNS:
        d, w = dict(run.degrees), run.workload()
        release = run.name.rsplit(", ", 1)[1].rstrip(")")
        got.add(
            (release, run.model, run.nodes * 4, run.global_batch, w.max_micro_batch, d["tp"], d["pp"],
             w.max_virtual_stages, run.measured_tokens_per_gpu_s)
        )  # fmt: skip
        assert run.cluster == "gb200-nvl72" and w.precision == "fp8" and w.fp8_recipe == "current"
        assert d["tp"] * d["pp"] * d["cp"] * d["dp"] == run.nodes * 4
        assert RUN_ROLES[run.name] == "validation"
    assert got == rows


@pytest.mark.parametrize("run", MEGATRON_BRIDGE_GB200_RUNS, ids=[r.name for r in MEGATRON_BRIDGE_GB200_RUNS])
def test_gb200_rows_pass(run: object) -> None:
    comparison = compare_published(run)  # type: ignore[arg-type]
    assert comparison.passes, comparison
    assert comparison.estimated_over_published is not None
    assert 0.7 <= comparison.estimated_over_published <= 1.3


def test_cluster_spec_takes_no_domain_by_position_change() -> None:
    # the new field comes last: a positional ClusterSpec of before keeps its meaning
    c = ClusterSpec("toy", 2, 8, 80, 312e12, 300e9, 25e9, 2e-6, 5e-6, 2.0e12)
    assert c.nvlink_domain_gpus is None and c.domain_gpus == 8


def test_what_lesson_9_and_the_guide_say(monkeypatch: pytest.MonkeyPatch) -> None:
    # all four pass at 0.84 to 0.94 of the measured; without the domain (each tray its own) they pass as well
    ratios = sorted(
        round(compare_published(run).estimated_over_published or 0.0, 2) for run in MEGATRON_BRIDGE_GB200_RUNS
    )
    assert (ratios[0], ratios[-1]) == (0.84, 0.94)
    monkeypatch.setitem(CLUSTERS, "gb200-nvl72", TRAYS_ONLY)
    assert all(compare_published(run).passes for run in MEGATRON_BRIDGE_GB200_RUNS)
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    guide_en = (root / "docs/instructor/en/09_workbench.md").read_text(encoding="utf-8")
    guide_zh = (root / "docs/instructor/zh/09_workbench.md").read_text(encoding="utf-8")
    assert "4 GB200 rows" in guide_en and "pass at 0.84x to 0.94x the measured" in guide_en
    assert "4 行 GB200" in guide_zh and "是实测的 0.84 到 0.94 倍" in guide_zh
    lesson = (root / "notebooks/src/09_workbench.py").read_text(encoding="utf-8")
    assert "four pass, at 0.84 to 0.94 of the measured" in lesson and "4 行都通过，是实测的 0.84 到 0.94 倍" in lesson


@pytest.mark.parametrize(
    ("args", "error", "text"),
    [
        ((True, 18), TypeError, "nodes = True"),
        ((2**52 + 1, 2**50), ValueError, "nodes = 4503599627370497"),  # refused before any scan
        ((64, 2**40), ValueError, "domain_nodes = 1099511627776"),
        ((64, 0), ValueError, "domain_nodes = 0"),
    ],
)
def test_segment_arguments_are_checked(args: tuple[int, int], error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text):
        nvlink_segment_nodes(*args)
