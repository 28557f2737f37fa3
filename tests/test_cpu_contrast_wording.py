"""The CPU-server contrast (preset ``cpu-box``) is described per CPU, not per GPU, in the planner's assumptions line
and in the workbench's: its efficiency comes from each CPU's matmul shapes and its bandwidths are per CPU. The
calibration behind the efficiency was done on GPUs (Megatron-LM Table 1, A100s), and the line says so on every
cluster."""

from __future__ import annotations

import html

import pytest

from coursekit.i18n import set_language
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS, device_word
from coursekit.widgets.workbench import WorkbenchWidget


def _assumptions_line(report: str) -> str:
    return next(line for line in report.splitlines() if "TFLOP/s" in line)


@pytest.mark.parametrize(
    ("lang", "per_cpu", "per_gpu"),
    [
        ("en", ("each CPU's matmul shapes", "unidirectional per CPU"), ("each GPU's", "per GPU")),
        ("zh", ("每个 CPU 的矩阵乘形状", "带宽为每 CPU 单向"), ("每个 GPU", "每 GPU")),
    ],
)
def test_the_planners_assumptions_count_cpus_on_the_cpu_contrast(
    lang: str, per_cpu: tuple[str, ...], per_gpu: tuple[str, ...]
) -> None:
    set_language(lang)
    try:
        line = _assumptions_line(
            plan(MODELS["llama3-8b"], CLUSTERS["cpu-box"].with_nodes(16), WorkloadSpec(global_batch=64)).report()
        )
        assert all(text in line for text in per_cpu), line
        assert not any(text in line for text in per_gpu), line
        assert "A100" in line  # where the efficiency was calibrated
        gpu_line = _assumptions_line(
            plan(MODELS["llama3-8b"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=64)).report()
        )
        assert all(text in gpu_line for text in per_gpu), gpu_line
    finally:
        set_language("en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_workbenchs_assumptions_count_cpus_on_the_cpu_contrast(lang: str) -> None:
    set_language(lang)
    try:
        widget = WorkbenchWidget()
        widget.controls["model"].value = "llama3-8b"
        widget.controls["cluster"].value = "cpu-box"
        message = html.unescape(widget.describe(widget.result))  # the message is HTML
        assert "GPU's matmul" not in message and "每个 GPU" not in message, message
        assert ("each CPU's matmul shapes" if lang == "en" else "每个 CPU 的矩阵乘形状") in message, message
    finally:
        set_language("en")


def test_device_word_names_the_device_and_refuses_what_is_not_a_cluster() -> None:
    assert device_word(CLUSTERS["cpu-box"]) == "CPU"
    assert device_word(CLUSTERS["h100-8"]) == "GPU"
    with pytest.raises(TypeError, match="cluster"):
        device_word("cpu-box")  # type: ignore[arg-type]
