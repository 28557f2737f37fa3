"""GPU memory is built in binary sizes: a datasheet's "80GB" is about 80 GiB, not 80e9 bytes.

The course once taught the opposite (lesson 9's cluster table, the ``ClusterSpec`` refusal and the command line's help
said to write an 80 GB card as 80e9 / 2**30 = 74.5 GiB), which under-counts an A100/A800 80GB by 5.5 GiB: nvidia-smi
shows 81920 MiB on those cards (NVIDIA A100-SXM4-80GB and A800-SXM4-80GB tables printed in public repositories), 81559
MiB on an H100 80GB HBM3. The presets take the datasheet's GB as GiB; these tests hold the teaching to the same rule
and check the note a decimal conversion now gets.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from coursekit import set_language
from coursekit.hardware import DATASHEET_MEMORY_GB, NVIDIA_SMI_MEMORY_MIB
from coursekit.presets import CLUSTERS

ROOT = Path(__file__).resolve().parents[1]


def test_the_nvidia_smi_totals_are_within_half_a_percent_of_the_datasheet_size_read_as_gib() -> None:
    # the datasheets' sizes, typed from the cards' names: 80GB (A100, A800, H100, H800) and 141 GB (H200)
    sizes = {"A100-SXM4-80GB": 80, "A800-SXM4-80GB": 80, "H100 80GB HBM3": 80, "H800": 80, "H200": 141}
    for card, mib in NVIDIA_SMI_MEMORY_MIB.items():
        gib = mib / 1024
        assert abs(gib - sizes[card]) / sizes[card] < 0.005, card
        assert gib - sizes[card] * 1e9 / 2**30 > 5.0, card  # the decimal reading is 5.5 GiB (80) or 9.1 GiB short


@pytest.mark.parametrize("gb", [24, 40, 80, 141, 180])
def test_a_datasheet_size_converted_as_decimal_gets_a_note_in_both_languages(gb: int) -> None:
    cluster = replace(CLUSTERS["a100-8"], memory_per_device_gib=gb * 1e9 / 2**30)
    notes = [note for note in cluster.unit_notes() if "10^9" in note.en]
    assert len(notes) == 1
    assert f"exactly {gb} x 10^9 bytes" in notes[0].en and "81920 MiB = 80 GiB" in notes[0].en
    assert f"正好是 {gb} × 10^9 字节" in notes[0].zh and "请填 nvidia-smi 显示的 MiB 除以 1024" in notes[0].zh


@pytest.mark.parametrize("gib", [80.0, 81559 / 1024, 143771 / 1024, 79.0, 74.0, 75.0, 22.0])
def test_memory_read_from_nvidia_smi_or_a_round_number_gets_no_memory_note(gib: float) -> None:
    cluster = replace(CLUSTERS["a100-8"], memory_per_device_gib=gib)
    assert not [note for note in cluster.unit_notes() if "10^9" in note.en]


def test_no_preset_reads_its_datasheet_size_as_decimal() -> None:
    assert not any(c.unit_notes() for c in CLUSTERS.values())
    for cluster in CLUSTERS.values():
        assert all(abs(cluster.memory_per_device_gib - gb * 1e9 / 2**30) > 0.1 for gb in DATASHEET_MEMORY_GB)


def test_the_refusal_and_the_help_teach_nvidia_smi_not_a_decimal_conversion() -> None:
    set_language("en")
    with pytest.raises(ValueError) as refused:
        replace(CLUSTERS["a100-8"], memory_per_device_gib=80e9)
    assert "nvidia-smi" in str(refused.value) and "81920 MiB is 80" in str(refused.value)
    assert "80e9 / 2**30" not in str(refused.value)
    cli = (ROOT / "coursekit" / "planner" / "cli.py").read_text(encoding="utf-8")
    assert "74.5 GiB)" not in cli and "写 74.5（" not in cli and "is 74.5 (" not in cli


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_lesson_9_builds_the_a800_from_nvidia_smi(lang: str) -> None:
    notebook = json.loads((ROOT / "notebooks" / lang / "09_workbench.ipynb").read_text(encoding="utf-8"))
    text = "\n".join("".join(cell["source"]) for cell in notebook["cells"])
    assert "80e9 / 2**30" not in text
    assert "memory_per_device_gib=81920 / 1024" in text and "`81920 / 1024`" in text
