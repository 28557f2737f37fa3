"""The concrete failures the fuzz run reported, each pinned to the message that names the right thing."""

from __future__ import annotations

import io
import math
from contextlib import redirect_stdout
from typing import Any

import pytest

import coursekit
from coursekit.exercises import check


@pytest.mark.parametrize(
    ("call", "error", "fragments"),
    [
        # blamed payload_bytes, now the inputs the overflow came from
        (lambda: coursekit.dp_traffic(num_params=1e308, dp=8), ValueError, ("num_params = 1e+308",)),
        # blamed topology
        (lambda: coursekit.topology_changes(coursekit.PAPER_CASES[0], before="x"), ValueError, ("before = 'x'",)),
        # "'NoneType' object is not iterable"
        (
            lambda: coursekit.traffic_time(None, bandwidth_bytes_per_s=1e9, latency_s=0),
            TypeError,
            ("entries = None", "list or tuple"),
        ),
        # returned inf
        (lambda: coursekit.training_state_memory(1e308), ValueError, ("num_params = 1e+308", "finite")),
        (lambda: coursekit.scaling_efficiency(700, 8, 5e-324), ValueError, ("single_device_throughput = 5e-324",)),
        (lambda: coursekit.simulate_schedule(4, 8, forward_s=1e308), ValueError, ("forward_s = 1e+308",)),
        # hung or ran out of memory: refused by a documented bound
        (lambda: coursekit.rank_groups({"DP": 10**6}), ValueError, ("degrees", "4096")),
        (lambda: coursekit.dp_degrees_for_batch(10**8, 1), ValueError, ("global_batch = 100000000", "16777216")),
        (lambda: coursekit.simulate_schedule(10**9, 8), ValueError, ("stages", "4096")),
        # took seconds (a tuple of 10**12 node numbers; 10**5 full step timelines): refused by a documented bound
        (
            lambda: coursekit.map_groups_to_nodes({"TP": [[0, 10**12]]}, gpus_per_node=8),
            ValueError,
            ("rank in groups['TP'] = 1000000000000", "<= 4095"),
        ),
        (
            lambda: coursekit.scaling_curve(
                list(range(1, 10**5 + 1)), single_device_step_s=1.0, gradient_bytes=1e9, bandwidth_bytes_per_s=1e9
            ),
            ValueError,
            ("devices_list has 100000 items", "at most 1024"),
        ),
        # huge ints: the course's message, even past Python's 4300-digit limit
        (lambda: coursekit.build_resource_ledger(10**400, 4, 2, 24), ValueError, ("state_gib = \u22481.0e+400",)),
        (lambda: coursekit.build_resource_ledger(10**5000, 4, 2, 24), ValueError, ("state_gib = \u22481.0e+5000",)),
        # lookup
        (lambda: coursekit.lookup("x"), ValueError, ("term = 'x'",)),
        (lambda: coursekit.lookup(""), ValueError, ("term = ''",)),
        # unit conversions were unchecked
        (lambda: coursekit.bytes_to_gib(True), TypeError, ("num_bytes = True",)),
        (lambda: coursekit.bytes_to_gib(math.nan), ValueError, ("num_bytes = nan",)),
        (lambda: coursekit.bytes_to_gib("4"), TypeError, ("num_bytes = '4'",)),
    ],
)
def test_reported_failure_now_names_the_argument(call: Any, error: type[Exception], fragments: tuple[str, ...]) -> None:
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error
    for fragment in fragments:
        assert fragment in str(info.value)


def test_lookup_none_answers_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(TypeError, match="term = None：必须是字符串"):
        coursekit.lookup(None)  # type: ignore[arg-type]


def test_messages_show_a_short_value() -> None:
    with pytest.raises(ValueError) as info:
        coursekit.set_language("a" * 10**6)
    assert len(str(info.value)) < 400  # was 1 MB
    with redirect_stdout(io.StringIO()):
        feedback = check("q1.zero2_gib", list(range(100_000)))
    assert feedback.status == "invalid" and len(feedback.message) < 600  # was 689 KB


def test_huge_int_answer_is_judged_not_an_internal_error() -> None:
    with redirect_stdout(io.StringIO()):
        feedback = check("q1.zero2_gib", 10**400)
    assert feedback.status == "invalid"  # was "unexpected error ... not your fault"
    assert "answer = \u22481.0e+400" in feedback.message
