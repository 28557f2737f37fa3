"""coursekit.hardware: link presets, each number traced to its source."""

from __future__ import annotations

from typing import Any

import pytest

import coursekit
from coursekit.communication import communication_ledger, crossover_payload_mib
from coursekit.hardware import (
    IB_NDR_BYTES_PER_S,
    LINK_PRESETS,
    NVLINK4_H100_BIDIRECTIONAL_BYTES_PER_S,
    NVLINK4_H100_BYTES_PER_S,
    LinkPreset,
    link_preset,
)
from coursekit.i18n import Text
from coursekit.units import GB_BYTES, GIB_BYTES


def test_nvlink_is_halved_to_one_direction() -> None:
    # NVIDIA H100 SXM datasheet: NVLink 900 GB/s (both directions added).
    assert NVLINK4_H100_BIDIRECTIONAL_BYTES_PER_S == 900 * GB_BYTES
    assert NVLINK4_H100_BYTES_PER_S == 450 * GB_BYTES
    assert LINK_PRESETS["intra_node"].bandwidth_bytes_per_s == NVLINK4_H100_BYTES_PER_S


def test_infiniband_ndr_is_50_gb_per_second() -> None:
    # InfiniBand NDR: 400 Gb/s per port and direction; 8 bits per byte.
    assert IB_NDR_BYTES_PER_S == 50 * GB_BYTES
    assert LINK_PRESETS["cross_node"].bandwidth_bytes_per_s == IB_NDR_BYTES_PER_S


def test_latencies_are_nccls_ring_simple_values() -> None:
    # NVIDIA/nccl src/graph/tuning.cc, hwLat[NVLINK|NET][Ring][Simple] = 3.4, 14.0 us.
    assert LINK_PRESETS["intra_node"].latency_us == pytest.approx(3.4)
    assert LINK_PRESETS["cross_node"].latency_us == pytest.approx(14.0)
    assert "tuning.cc" in LINK_PRESETS["intra_node"].source


def test_example_link_reproduces_the_first_ledgers() -> None:
    seed = link_preset("example")
    assert (seed.bandwidth_gib_s, seed.latency_us) == (100.0, 5.0)
    low = communication_ledger(256, 1, seed.bandwidth_gib_s, seed.latency_us)
    high = communication_ledger(32, 24, seed.bandwidth_gib_s, seed.latency_us)
    assert high.calls_per_step > low.calls_per_step  # the seed's Q2 assertion


def test_intra_node_is_faster_but_has_a_larger_crossover() -> None:
    intra, cross = LINK_PRESETS["intra_node"], LINK_PRESETS["cross_node"]
    assert intra.bandwidth_gib_s / cross.bandwidth_gib_s == pytest.approx(9.0)
    assert intra.latency_us < cross.latency_us
    assert crossover_payload_mib(intra.bandwidth_gib_s, intra.latency_us) > crossover_payload_mib(
        cross.bandwidth_gib_s, cross.latency_us
    )


def test_units() -> None:
    preset = LINK_PRESETS["cross_node"]
    assert preset.bandwidth_gib_s == 50 * GB_BYTES / GIB_BYTES
    for name, item in LINK_PRESETS.items():
        assert item.name == name and item.label.zh and item.label.en and item.source


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        ({"bandwidth_bytes_per_s": 0}, ValueError, "bandwidth_bytes_per_s = 0: must be > 0."),
        ({"latency_s": -1e-6}, ValueError, "latency_s = -1e-06: must be >= 0."),
        ({"latency_s": True}, TypeError, "latency_s = True: must be a real number (int or float), not bool."),
    ],
)
def test_preset_rejects(kwargs: dict[str, Any], exc: type[Exception], message: str) -> None:
    fields: dict[str, Any] = {
        "name": "x",
        "label": Text(zh="x", en="x"),
        "bandwidth_bytes_per_s": 1e9,
        "latency_s": 1e-6,
        "source": "-",
    }
    fields.update(kwargs)
    with pytest.raises(exc) as info:
        LinkPreset(**fields)
    assert str(info.value) == message


def test_unknown_preset_in_both_languages() -> None:
    with pytest.raises(ValueError) as info:
        link_preset("pcie")
    assert str(info.value) == "name = 'pcie': must be one of 'example', 'intra_node', 'cross_node'."
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        link_preset("pcie")
    assert str(info.value) == "name = 'pcie'：必须是 'example', 'intra_node', 'cross_node' 之一。"


def test_the_former_preset_name_is_accepted_but_not_offered() -> None:
    # "seed" was the example link's key; old calls keep working, but the choices learners see never list it.
    assert link_preset("seed") is LINK_PRESETS["example"]
    assert list(LINK_PRESETS) == ["example", "intra_node", "cross_node"]
    for name, preset in LINK_PRESETS.items():
        assert "seed" not in name and "seed" not in preset.label.en.lower() and "种子" not in preset.label.zh
