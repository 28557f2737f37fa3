"""``--gpus``: the whole cluster's GPU count, as a vendor table states it, instead of ``--nodes``.

An outside reviewer feeding NVIDIA's GB200 tables to the workbench had to divide each row's GPU count by the preset's
GPUs per node (4 on a GB200 NVL72 compute tray, 8 on a DGX H100) to get ``--nodes``. Expected node counts below are
that division done by hand: 256 H100s are 32 DGX nodes; 72 GB200s are 18 trays of 4 (NVIDIA DGX GB200 user guide).
"""

from __future__ import annotations

import json

import pytest

from tests.test_fuzz_regressions12 import _cli

LLAMA8 = ["--model", "llama3-8b", "--global-batch", "128", "--top", "1", "--json"]


def _cluster(argv: list[str]) -> dict[str, object]:
    code, out, err = _cli(argv)
    assert code == 0, err
    return json.loads(out)["cluster"]


@pytest.mark.parametrize(
    ("cluster", "gpus", "nodes"),
    [("h100-8", 256, 32), ("h100-8", 8, 1), ("gb200-nvl72", 72, 18), ("gb200-nvl72", 8, 2)],
)
def test_gpus_gives_the_node_count(cluster: str, gpus: int, nodes: int) -> None:
    by_gpus = _cluster(["plan", "--cluster", cluster, "--gpus", str(gpus), *LLAMA8])
    by_nodes = _cluster(["plan", "--cluster", cluster, "--nodes", str(nodes), *LLAMA8])
    assert by_gpus["nodes"] == nodes
    assert by_gpus == by_nodes


def test_gpus_on_a_custom_cluster_counts_its_own_gpus_per_node() -> None:
    custom = ["--gpu-memory-gib", "80", "--peak-tflops", "989", "--hbm-gb-s", "3350", "--gpus-per-node", "4"]
    custom += ["--intra-gb-s", "450", "--inter-gb-s", "50"]
    assert _cluster(["plan", *custom, "--gpus", "16", *LLAMA8])["nodes"] == 4


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["--gpus = 74", "multiple of the GPUs per node (4)", "--nodes"]),
        ("zh", ["--gpus = 74", "每个节点 GPU 数 (4) 的倍数", "--nodes"]),
    ],
)
def test_gpus_that_fill_no_whole_node_are_refused_by_name(lang: str, words: list[str]) -> None:
    code, out, err = _cli(["--lang", lang, "plan", "--cluster", "gb200-nvl72", "--gpus", "74", *LLAMA8])
    assert code == 2 and out == ""
    assert "Traceback" not in err
    for word in words:
        assert word in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_gpus_and_nodes_together_are_refused(lang: str) -> None:
    code, _, err = _cli(["--lang", lang, "plan", "--cluster", "h100-8", "--gpus", "16", "--nodes", "2", *LLAMA8])
    assert code == 2 and "--gpus" in err and "--nodes" in err
    assert ("不能" in err) == (lang == "zh")


@pytest.mark.parametrize("value", ["0", "-8", "1.5", "many"])
def test_gpus_must_be_a_positive_whole_number(value: str) -> None:
    code, _, err = _cli(["plan", "--cluster", "h100-8", "--gpus", value, *LLAMA8])
    assert code == 2 and "gpus" in err and "Traceback" not in err


def test_serving_reads_gpus_too() -> None:
    serving = ["plan", "--mode", "serving", "--model", "llama3-70b", "--cluster", "gb200-nvl72", "--concurrency", "64"]
    serving += ["--prompt-tokens", "1000", "--output-tokens", "200", "--json"]
    code, out, err = _cli([*serving, "--gpus", "8"])
    assert code == 0, err
    code2, out2, _ = _cli([*serving, "--nodes", "2"])
    assert code2 == 0
    assert json.loads(out)["cluster_spec"] == json.loads(out2)["cluster_spec"]
    assert json.loads(out)["world_size"] == 8


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_lists_gpus(lang: str) -> None:
    code, out, _ = _cli(["--lang", lang, "plan", "--help"])
    assert code == 0 and "--gpus" in out
    assert ("GPU 总数" in out) == (lang == "zh")


@pytest.mark.parametrize(("lang", "words"), [("en", "at most 131072 GPUs in all"), ("zh", "GPU 总数也不能超过 131072")])
def test_nodes_help_states_the_gpu_cap_the_refusal_applies(lang: str, words: str) -> None:
    """The help said "1 to 131072" nodes, yet 131072 H100 nodes (1,048,576 GPUs) are refused: the cap is on GPUs."""
    code, out, _ = _cli(["--lang", lang, "plan", "--help"])
    assert code == 0 and "".join(words.split()) in "".join(out.split())  # argparse wraps the help anywhere
    code, _, err = _cli(["plan", "--cluster", "h100-8", "--nodes", "131072", *LLAMA8])
    assert code == 2 and "131072" in err
