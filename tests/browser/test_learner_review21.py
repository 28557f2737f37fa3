"""What the Chinese self-learner of review 21 sees in real JupyterLab when they bring their own cluster.

- An A800 node typed from the vendor sheet as printed (NVLink 400 GB/s both ways; 4 x 200 Gb/s per node typed as
  800 "GB/s"): the workbench's report, in a notebook cell, lists Chinese notes under its assumptions (before: the
  plan went on silently over a network faster than NVLink).
- The same node on the command line, run from a notebook cell (``!python -m coursekit plan ...``), prints the same
  notes; ``--peak-tflops 312e12`` is refused with the flag's unit, in Chinese, without a traceback.
- A refused ``ClusterSpec`` figure (``peak_flops=312``) ends with the unit the field wants.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import scratch_notebook
from .test_learner_review20 import _output_text

_CLUSTER = (
    "--gpu-memory-gib 80 --peak-tflops 312 --hbm-gb-s 2039 --gpus-per-node 8 --nodes 2 "
    "--global-batch 64 --seq-len 4096 --top 1"
)
SOURCES = [
    "import sys\nimport coursekit\ncoursekit.set_language('zh')\n"
    "from coursekit.planner import ClusterSpec, WorkloadSpec, plan\n"
    "from coursekit.presets import MODELS\n"
    "a800 = dict(name='a800-8', nodes=2, gpus_per_node=8,\n"
    "            memory_per_device_gib=81920 / 1024, peak_flops=312e12,\n"
    "            intra_node_latency_s=3.4e-6, inter_node_latency_s=14e-6,\n"
    "            memory_bandwidth_bytes_per_s=2039e9)\n"
    "printed = ClusterSpec(**a800, intra_node_bandwidth_bytes_per_s=400e9,\n"
    "                      inter_node_bandwidth_bytes_per_s=4 * 200e9)\n"
    "result = plan(MODELS['llama3-8b'], printed, WorkloadSpec(global_batch=64))\n"
    "print(result.report(top=1).split('搜索空间')[0])",
    f"!{{sys.executable}} -m coursekit plan --lang zh --model llama3-8b {_CLUSTER} --intra-gb-s 400 --inter-gb-s 800 "
    "| head -6",
    f"!{{sys.executable}} -m coursekit plan --lang zh --model llama3-8b {_CLUSTER} --intra-gb-s 200 "
    "--inter-gb-s 12.5 --peak-tflops 312e12",
    "try:\n    ClusterSpec(**{**a800, 'peak_flops': 312},\n"
    "                intra_node_bandwidth_bytes_per_s=200e9,\n"
    "                inter_node_bandwidth_bytes_per_s=12.5e9)\n"
    "except ValueError as refused:\n    print(refused)",
]


def test_a_vendor_sheet_typed_as_printed_is_flagged_in_chinese(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as lesson:
        page = lesson.page
        report = _output_text(page, 0)
        assert "带宽为每 GPU 单向：节点内 400 GB/s，跨节点 800.0 GB/s" in report
        assert "请核对集群的单位：跨节点带宽 800 GB/s 高于节点内带宽 400 GB/s" in report
        assert "请核对方向：节点内带宽 400 GB/s 正是数据手册上 A800/H800 NVLink 的双向数字" in report

        cli = _output_text(page, 1)
        assert "请核对集群的单位：跨节点带宽 800 GB/s 高于节点内带宽 400 GB/s" in cli
        assert "Traceback" not in cli

        refused = _output_text(page, 2)
        assert (
            "参数 --peak-tflops" in refused and "单位由参数名给定：TFLOP/s，312 TFLOPS 写 312，不写 312e12" in refused
        )
        assert "Traceback" not in refused

        unit = _output_text(page, 3)
        assert unit.startswith(
            "peak_flops = 312：必须 >= 1000000000.0。单位是 FLOP/s（每秒浮点运算次数），不是 TFLOP/s"
        )
