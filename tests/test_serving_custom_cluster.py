"""``plan --mode serving`` on a cluster of your own: the custom-cluster flags training takes, with the same meaning,
validation and messages (one parser helper and one builder in :mod:`coursekit.planner.cli`).

Expected values are worked by hand from datasheet figures and the serving estimate's documented roofline
(:func:`coursekit.serving.serving_estimate`), not read back from the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coursekit.__main__ import main
from coursekit.presets import CLUSTERS

#: The H100 SXM datasheet (DGX H100: 8 GPUs, NVLink 450 GB/s and one NDR 400 Gb/s = 50 GB/s port per GPU and
#: direction), the figures a learner would type for an h100-8 node.
H100 = ["--gpu-memory-gib", "80", "--peak-tflops", "989", "--hbm-gb-s", "3350", "--gpus-per-node", "8",
        "--intra-gb-s", "450", "--inter-gb-s", "50"]  # fmt: skip
#: NCCL's ring latencies, which the h100-8 preset states too: 3.4 µs in a node, 14 µs across nodes.
H100_LATENCY = ["--intra-latency-us", "3.4", "--inter-latency-us", "14"]
SERVE = ["plan", "--mode", "serving"]
LOAD = ["--concurrency", "64", "--prompt-tokens", "2048", "--output-tokens", "256"]

#: A small Llama of my own: h = 1024, 4 layers, 8 heads of 128 (no GQA), SwiGLU 4096, 32000 tokens, untied.
TINY_LLAMA = {
    "model_type": "llama",
    "hidden_size": 1024,
    "num_hidden_layers": 4,
    "num_attention_heads": 8,
    "num_key_value_heads": 8,
    "intermediate_size": 4096,
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
    "tie_word_embeddings": False,
    "hidden_act": "silu",
}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``python -m coursekit argv`` run in this process."""
    try:
        code = main(argv)
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = _run([*argv, "--json", "--lang", "en"], capsys)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def _without_cluster_names(data: dict[str, Any]) -> dict[str, Any]:
    """The plan without what names the cluster (its name and source), which a custom cluster states differently."""
    spec = {k: v for k, v in data["cluster_spec"].items() if k not in ("name", "source")}
    return {**{k: v for k, v in data.items() if k not in ("cluster", "cluster_spec")}, "cluster_spec": spec}


def test_the_datasheet_figures_plan_as_the_preset(capsys: pytest.CaptureFixture[str]) -> None:
    # two nodes, so PP hand-offs across nodes read the inter-node bandwidth and latency too; every layout shown
    argv = [*SERVE, "--model", "llama3-70b", "--nodes", "2", *LOAD, "--top", "100"]
    preset = _json([*argv, "--cluster", "h100-8"], capsys)
    # the DGX H100's host figures as the preset has them (2 TB over 8 GPUs; PCIe 5.0 x16 shared by two GPUs)
    host = ["--host-memory-gib", repr(2e12 / 8 / 2**30), "--host-link-gb-s", repr(32 * 16 * 128 / 130 / 8 / 2)]
    custom = _json(
        [*argv, *H100, "--peak-fp8-tflops", "1979", "--compute-capability", "9.0", *H100_LATENCY, *host], capsys
    )
    assert (custom["cluster"], preset["cluster"]) == ("custom", "h100-8")
    assert custom["world_size"] == 16 and custom["accepted"] > 0
    # the host link in GB/s times 1e9 is the preset's bytes/s to the last bit or two (serving does not read it)
    link = "host_link_bandwidth_bytes_per_s"
    assert custom["cluster_spec"].pop(link) == pytest.approx(preset["cluster_spec"].pop(link), rel=1e-15)
    assert _without_cluster_names(custom) == _without_cluster_names(preset)
    preset["cluster_spec"][link] = CLUSTERS["h100-8"].host_link_bandwidth_bytes_per_s
    # the latencies left out are NCCL's ring latencies, the preset's own: the same plan again (no FP8 peak stated)
    plain, expected = _without_cluster_names(_json([*argv, *H100], capsys)), _without_cluster_names(preset)
    assert plain["cluster_spec"].pop("peak_flops_fp8") is None
    assert plain["cluster_spec"].pop("compute_capability") is None  # not stated either (the H100's is 9.0)
    for key in ("host_memory_per_device_gib", "host_link_bandwidth_bytes_per_s"):  # serving reads no host figure
        assert plain["cluster_spec"].pop(key) is None
        expected["cluster_spec"].pop(key)
    expected["cluster_spec"].pop("peak_flops_fp8")
    expected["cluster_spec"].pop("compute_capability")
    assert plain == expected


def _set(argv: list[str], flag: str, value: str) -> list[str]:
    """``argv`` with ``flag`` given ``value``: in place where it is already given (twice it would be refused)."""
    if flag not in argv:
        return [*argv, flag, value]
    at = argv.index(flag)
    return [*argv[: at + 1], value, *argv[at + 2 :]]


def _tiny_tpot(tmp_path: Path, hbm_gb_s: str, capsys: pytest.CaptureFixture[str]) -> float:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    flags = _set(_set(H100, "--gpus-per-node", "1"), "--hbm-gb-s", hbm_gb_s)  # a flag given twice is refused
    argv = [*SERVE, "--model-config", str(path), *flags, "--concurrency", "1", "--prompt-tokens", "1000"]
    data = _json([*argv, "--output-tokens", "200"], capsys)
    assert data["candidates"] == 1  # one GPU: replicas = tp = pp = 1, no all-reduce, no hand-off
    estimate: dict[str, Any] = data["top"][0]["estimate"]
    assert estimate["decode_bound"] == "memory" and estimate["decode_comm_s"] == 0
    return float(estimate["time_per_output_token_s"])


def test_half_the_hbm_bandwidth_doubles_a_memory_bound_tpot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Parameters by hand: embedding and output 2 · 32000 · 1024 = 65,536,000; attention 4 layers · 4 · 1024² =
    # 16,777,216; SwiGLU 4 · 3 · 1024 · 4096 = 50,331,648; RMSNorms (2 · 4 + 1) · 1024 = 9,216: N = 132,654,080.
    params = 2 * 32000 * 1024 + 4 * 4 * 1024**2 + 4 * 3 * 1024 * 4096 + 9 * 1024
    assert params == 132_654_080
    # A decode step at batch 1 reads the bf16 weights, 2 · N bytes, and the KV cache of the mean context
    # P + O/2 = 1000 + 100 = 1100 tokens: 2 (K, V) · 4 layers · 8 heads · 128 · 2 bytes = 16,384 bytes per token.
    step_bytes = 2 * params + 1100 * 2 * 4 * 8 * 128 * 2
    assert step_bytes == 283_330_560
    # It does ~2 · N = 2.7e8 FLOPs: 0.27 µs at 989 TFLOP/s, far under the memory limb, so TPOT = bytes / HBM.
    full, half = _tiny_tpot(tmp_path, "3350", capsys), _tiny_tpot(tmp_path, "1675", capsys)
    assert full == pytest.approx(step_bytes / 3350e9, rel=1e-12)  # 84.58 µs
    assert half == pytest.approx(step_bytes / 1675e9, rel=1e-12)  # 169.15 µs
    assert half == pytest.approx(2 * full, rel=1e-12)


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--gpu-memory-gib", "40"),  # the memory ledger's device and headroom
        ("--peak-tflops", "500"),  # prefill's compute limb (TTFT)
        ("--hbm-gb-s", "2000"),  # decode's memory limb (TPOT)
        ("--gpus-per-node", "4"),  # the interconnect gate (TP inside a node) and the world size
        ("--intra-gb-s", "100"),  # the TP all-reduces
        ("--inter-gb-s", "5"),  # PP hand-offs across the two nodes
        ("--intra-latency-us", "20"),  # the TP all-reduces' latency
        ("--inter-latency-us", "500"),  # the hand-offs' latency across nodes
    ],
)
def test_each_flag_reaches_the_serving_plan(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*SERVE, "--model", "llama3-70b", "--nodes", "2", *LOAD, "--top", "100"]
    base = _without_cluster_names(_json([*argv, *H100], capsys))
    changed = _without_cluster_names(_json(_set([*argv, *H100], flag, value), capsys))
    assert changed["top"] != base["top"], flag


def test_the_fp8_peak_is_recorded_and_the_estimate_stays_bf16(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*SERVE, "--model", "llama3-70b", *LOAD, *H100]
    without, with_fp8 = _json(argv, capsys), _json([*argv, "--peak-fp8-tflops", "1979"], capsys)
    assert (without["cluster_spec"]["peak_flops_fp8"], with_fp8["cluster_spec"]["peak_flops_fp8"]) == (None, 1979e12)
    assert with_fp8["top"] == without["top"]  # at bf16 (the default) serving prices its matmuls at the bf16 peak
    fp8 = _json([*argv, "--peak-fp8-tflops", "1979", "--precision", "fp8"], capsys)
    assert fp8["top"] != with_fp8["top"]  # with --precision fp8 the custom FP8 peak times the linear layers


def test_json_records_the_custom_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run([*SERVE, "--model", "llama3-8b", *H100, "--nodes", "3", *LOAD, "--json"], capsys)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert (data["mode"], data["cluster"], data["world_size"]) == ("serving", "custom", 24)
    spec = data["cluster_spec"]
    # each flag in ClusterSpec's units: GiB, FLOP/s, bytes/s per GPU per direction, seconds (NCCL's ring defaults)
    assert spec == {
        "name": "custom",
        "nodes": 3,
        "gpus_per_node": 8,
        "memory_per_device_gib": 80.0,
        "peak_flops": 989e12,
        "intra_node_bandwidth_bytes_per_s": 450e9,
        "inter_node_bandwidth_bytes_per_s": 50e9,
        "intra_node_latency_s": 3.4e-6,
        "inter_node_latency_s": 14e-6,
        "memory_bandwidth_bytes_per_s": 3350e9,
        "source": "command line",
        "peak_flops_fp8": None,
        "nvlink_domain_gpus": None,  # no --nvlink-domain-gpus: each node its own NVLink domain
        "compute_capability": None,  # no --compute-capability: not stated (Hopper's FP8 layout rule, no MXFP8)
        "host_memory_per_device_gib": None,  # no --host-memory-gib / --host-link-gb-s: not stated
        "host_link_bandwidth_bytes_per_s": None,
    }


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--hbm-gb-s", "1675"], "h100-8 + --hbm-gb-s 1675"),
        (["--inter-latency-us", "30"], "h100-8 + --inter-latency-us 30"),
        (["--gpu-memory-gib", "94", "--intra-latency-us", "0"], "h100-8 + --gpu-memory-gib 94 --intra-latency-us 0"),
    ],
)
def test_a_preset_changed_by_a_flag_is_named_with_its_changes(
    flags: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*SERVE, "--model", "llama3-70b", "--cluster", "h100-8", *flags, *LOAD, "--top", "1"]
    data = _json(argv, capsys)
    assert data["cluster"] == data["cluster_spec"]["name"] == expected
    code, out, _ = _run([*argv, "--lang", "zh"], capsys)
    assert code == 0 and f"llama3-70b 在 {expected}（8 个设备）上" in out.splitlines()[0]
    code, out, _ = _run([*argv, "--lang", "en"], capsys)
    assert code == 0 and f"llama3-70b on {expected} (8 devices)" in out.splitlines()[0]


def test_latency_flags_replace_the_presets(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*SERVE, "--model", "llama3-70b", "--cluster", "pcie-24g-8", "--nodes", "2", *LOAD]
    spec = _json([*argv, "--inter-latency-us", "40"], capsys)["cluster_spec"]
    assert spec["inter_node_latency_s"] == 40e-6  # 40 µs, in seconds
    assert spec["intra_node_latency_s"] == CLUSTERS["pcie-24g-8"].intra_node_latency_s  # the preset's own
    assert _json([*argv, "--intra-latency-us", "0"], capsys)["cluster_spec"]["intra_node_latency_s"] == 0.0


def _one_error_line(err: str, lang: str) -> str:
    """The refusal's one error line (after argparse's one usage line); no traceback."""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    usage = "usage: " if lang == "en" else "用法："
    assert len(lines) == 2 and lines[0].startswith(usage), err
    prefix = "python -m coursekit plan --mode serving" + (": error: " if lang == "en" else "：错误：")
    assert lines[1].startswith(prefix), err
    return lines[1][len(prefix) :]


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "the following arguments are required: --cluster (or a custom cluster, missing: --hbm-gb-s)"),
        ("zh", "缺少必需的参数：--cluster （或自定义集群，还缺：--hbm-gb-s）"),
    ],
)
def test_a_missing_custom_flag_is_named(lang: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    flags = [item for pair in zip(H100[::2], H100[1::2], strict=True) if pair[0] != "--hbm-gb-s" for item in pair]
    code, out, err = _run([*SERVE, "--model", "llama3-70b", *flags, *LOAD, "--lang", lang], capsys)
    assert code == 2 and out == ""
    assert _one_error_line(err, lang) == message


@pytest.mark.parametrize(
    ("flag", "value", "en", "zh"),
    [
        (
            "--hbm-gb-s",
            "-5",
            "argument --hbm-gb-s: hbm_gb_s = -5.0: must be >= 0.001.",
            "参数 --hbm-gb-s：hbm_gb_s = -5.0：必须 >= 0.001。",
        ),
        (
            "--peak-tflops",
            "nan",
            "argument --peak-tflops: peak_tflops = nan: must be a finite number (not NaN or infinity).",
            "参数 --peak-tflops：peak_tflops = nan：必须是有限数（不能是 NaN 或无穷大）。",
        ),
        (
            "--gpus-per-node",
            "0",
            "argument --gpus-per-node: gpus_per_node = 0: must be >= 1.",
            "参数 --gpus-per-node：gpus_per_node = 0：必须 >= 1。",
        ),
        (
            "--inter-latency-us",
            "-1",
            "argument --inter-latency-us: inter_latency_us = -1.0: must be >= 0.",
            "参数 --inter-latency-us：inter_latency_us = -1.0：必须 >= 0。",
        ),
    ],
)
def test_a_bad_value_is_refused_naming_flag_value_and_rule(
    flag: str, value: str, en: str, zh: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for lang, message in (("en", en), ("zh", zh)):
        argv = [*SERVE, "--model", "llama3-70b", *H100, f"{flag}={value}", *LOAD, "--lang", lang]
        code, out, err = _run(argv, capsys)
        assert code == 2 and out == ""
        assert _one_error_line(err, lang).startswith(message), err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_serving_help_lists_the_custom_cluster(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run([*SERVE, "--help", "--lang", lang], capsys)
    assert code == 0
    usage = out.split("\n\n", 1)[0]
    assert "(--cluster CLUSTER | --gpu-memory-gib GIB --peak-tflops T --hbm-gb-s B" in usage
    flat = "".join(out.split())  # the help wraps Chinese between characters
    for flag in ("--gpu-memory-gib", "--peak-tflops", "--peak-fp8-tflops", "--hbm-gb-s", "--gpus-per-node",
                 "--intra-gb-s", "--inter-gb-s", "--intra-latency-us", "--inter-latency-us"):  # fmt: skip
        assert f"{flag}{flag[2:].upper().replace('-', '_')}" in flat, flag
    assert ("perdirection" if lang == "en" else "每个方向") in flat
    assert ("atitwith--precisionfp8" if lang == "en" else "在--precisionfp8时用它") in flat  # when the FP8 peak counts
