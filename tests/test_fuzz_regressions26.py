"""Regressions from the twenty-sixth adversarial fuzzing pass: the public surface added since pass 25 (activation
offloading in the planner: ``coursekit.planner.estimate.offload_copy_s``, ``ClusterSpec``'s host fields,
``WorkloadSpec(recompute_modes=...)`` and ``evaluate_composition`` with ``"offload"``, the plan's JSON fields;
``chinese_number_text``; ``python -m coursekit setup``) fed ints, floats, bools, numpy scalars and arrays, NaN,
infinities, -0.0, 1e308, 5e-324, strings, None, Fraction, Decimal and 10**400; metamorphic properties of the planner
with offloading on seeded random clusters; every ``plan`` float flag and ``setup`` fed adversarial values, zh and
en; and pass 25's leftover, the step line of an absurd model.

Found and fixed:

1. ``offload_copy_s`` took ``Decimal('2.5')`` for ``offloaded_layers``, ``layer_bytes``, ``layer_compute_s`` and
   ``micro_batches`` (numpy converts it), where the course refuses a Decimal by name everywhere else (its own
   ``host_link_bytes_per_s`` did). The shared check (also ``moe_host_wait_s``'s) refuses it, alone or in a list.
2. ``offload_copy_s`` took 2.5 offloaded layers, Fraction(1, 3) of a micro-batch and 5e-324 layers: both are
   counts (Megatron-Core's ``cpu_offloading_num_layers`` is an int; a step runs whole micro-batches). A value that
   is not a whole number is refused naming the parameter, the value and the rule, in the learner's language.
3. ``python -m coursekit --lang zh setup --lang en`` wrote its report in English without a word, where ``plan`` and
   ``lessons`` refuse a ``--lang`` given twice with different values. ``setup`` now counts the ``--lang`` before
   the command as given (the same rule: refused by name, exit 2, the message in the later flag's language; the same
   value twice is read once; a ``--lang`` only before ``setup`` still sets its language).
4. ``setup --ipython-dir DIR`` where ``DIR/profile_default/startup`` is a file said "操作系统错误 17（File exists）"
   (the operating system's English words inside a Chinese line). ``EEXIST`` is named in the learner's language:
   "已存在且不是文件夹" / "exists and is not a folder" (``coursekit._cli.os_error_reason``).
5. A float flag given a number past the float range (``--host-link-gb-s`` followed by 401 digits, ``--dropout
   1e400``) was refused as "= inf: must be a finite number", a number nobody wrote. It is refused as outside the
   float range, echoed as ``≈1.0e+400`` (``coursekit.i18n``'s way of showing 10**400); an exponent past even
   Decimal's range (``1e99999999999999999999999``) is echoed as written, cut to 200 characters.
6. (Leftover of pass 25.) A step past a million days (an absurd model on one GPU: 2,867,339 days; 577,769,999,703
   with a larger batch) printed every digit on ``plan --explain``'s step line. Past
   ``coursekit.units.DURATION_PLAIN_RANGE`` in its unit the line writes every number in the step's power of ten,
   as ``duration_text`` writes such a time (``2.87e+06 days = compute 2.87e+06 + ...``); the parts still add up as
   printed. Its throughput line read "0 tokens/s" for 6.6e-08 tokens/s: the line keeps a nonzero value from
   reading 0 (``~`` spec).

Examined without a defect found: ``ClusterSpec``'s two host fields (both or neither, floors and ceilings, numpy
scalars, Fraction; Decimal, bool, NaN, 10**400 refused by name); ``WorkloadSpec(recompute_modes=...)`` (a str,
a set, an array, an empty tuple, a mode misspelt or in Chinese refused; duplicates read once);
``evaluate_composition(recompute=...)`` ("OFFLOAD", "卸载", "", 5, True refused; "offload" with pp = 2 rejected by the
offload gate); ``chinese_number_text`` on 26 texts (400 nines, 50 repeated 亿, 30 decimals, full-width digits);
``--host-memory-gib`` and ``--host-link-gb-s`` fed 19 values each in zh and en (exit 2 naming the flag, or 0 for
" 8", "+8", "1e-3"); ``setup`` with an empty, missing, 300-byte, file or doubled ``--ipython-dir``. The metamorphic
properties below held on every case (seeded, six clusters).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import random
import re
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from coursekit.__main__ import main
from coursekit.i18n import get_language, set_language
from coursekit.planner import plan
from coursekit.planner.estimate import moe_host_wait_s, offload_copy_s
from coursekit.planner.result import step_line_parts
from coursekit.presets import CLUSTERS, MODELS
from coursekit.scaling import StepTimeline
from coursekit.specs import ClusterSpec, WorkloadSpec
from coursekit.units import DURATION_PLAIN_RANGE

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(params=["zh", "en"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    before = get_language()
    set_language(request.param)
    yield request.param
    set_language(before)


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 2
    return int(code), out.getvalue(), err.getvalue()


# 1-2. offload_copy_s: Decimal and counts that are not whole -------------------------------------------------------


@pytest.mark.parametrize("name", ["offloaded_layers", "layer_bytes", "layer_compute_s", "micro_batches"])
def test_offload_copy_s_refuses_a_decimal_by_name(name: str, lang: str) -> None:
    arguments: dict[str, Any] = {
        "offloaded_layers": 10,
        "layer_bytes": 1e9,
        "host_link_bytes_per_s": 63e9,
        "layer_compute_s": 0.03,
        "micro_batches": 1,
    }
    for bad in (Decimal("2"), [Decimal("2"), 1]):
        with pytest.raises(TypeError, match=name) as caught:
            offload_copy_s(**{**arguments, name: bad})
        assert bool(CJK.search(str(caught.value))) == (lang == "zh")
    with pytest.raises(TypeError, match="host_s"):  # the same check: moe_host_wait_s
        moe_host_wait_s(0.005, Decimal("0.0094"), 12)


@pytest.mark.parametrize("name", ["offloaded_layers", "micro_batches"])
def test_offload_copy_s_takes_whole_counts_only(name: str, lang: str) -> None:
    arguments: dict[str, Any] = {"offloaded_layers": 10, "micro_batches": 4}
    for bad in (2.5, Fraction(1, 3), 5e-324, np.array([1.0, 1.5])):
        with pytest.raises(ValueError, match=name) as caught:
            offload_copy_s(
                layer_bytes=1e9, host_link_bytes_per_s=63e9, layer_compute_s=0.03, **{**arguments, name: bad}
            )
        assert ("整数" in str(caught.value)) == (lang == "zh") and ("whole" in str(caught.value)) == (lang == "en")
    # whole numbers in any numeric type still work: the docstring's case, 10 layers of 1 GB over 63 GB/s, 4 batches
    # (each way 1e9 / 63e9 = 15.87 ms; forward 10 ms and backward 20 ms of 30 ms hide 10 and 15.87 ms of it)
    for whole in (4, 4.0, np.int64(4), Fraction(4), np.float64(4.0)):
        copy, exposed = offload_copy_s(10, 1e9, 63e9, 0.03, micro_batches=whole)
        assert math.isclose(float(copy), 2 * 4 * 10 * 1e9 / 63e9)
        assert math.isclose(float(exposed), 4 * 10 * (1e9 / 63e9 - 0.01))


# 3. setup's --lang given before and after the command -------------------------------------------------------------


def test_setup_refuses_two_different_languages_and_reads_one_given_twice(tmp_path: Path) -> None:
    before = get_language()
    try:
        for first, second in (("zh", "en"), ("en", "zh")):
            code, out, err = _run(["--lang", first, "setup", "--lang", second, "--ipython-dir", str(tmp_path / "a")])
            assert code == 2 and out == "" and "Traceback" not in err
            assert f"--lang {first}" in err and f"--lang {second}" in err
            # the message is in the later flag's language, as plan's and lessons' refusal
            assert bool(CJK.search(err.splitlines()[-1])) == (second == "zh"), err
            assert not (tmp_path / "a").exists()
        code, out, err = _run(["--lang=zh", "setup", "--lang", "en", "--ipython-dir", str(tmp_path / "b")])
        assert code == 2 and "--lang zh" in err and not (tmp_path / "b").exists()
        code, out, err = _run(["--lang", "zh", "setup", "--lang", "zh", "--ipython-dir", str(tmp_path / "c")])
        assert code == 0 and out.startswith("已写入") and err == ""
        code, out, err = _run(["--lang", "zh", "setup", "--ipython-dir", str(tmp_path / "d")])
        assert code == 0 and out.startswith("已写入")
        code, out, err = _run(["--lang", "en", "setup", "--ipython-dir", str(tmp_path / "e")])
        assert code == 0 and out.startswith("wrote ")
    finally:
        set_language(before)


# 4. an existing file where setup makes a folder --------------------------------------------------------------------


@pytest.mark.parametrize("language", ["zh", "en"])
def test_setup_names_a_file_in_the_way_in_the_learners_language(tmp_path: Path, language: str) -> None:
    before = get_language()
    try:
        (tmp_path / "profile_default").mkdir()
        (tmp_path / "profile_default" / "startup").write_text("", encoding="utf-8")
        code, out, err = _run(["--lang", language, "setup", "--ipython-dir", str(tmp_path)])
    finally:
        set_language(before)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert str(tmp_path / "profile_default" / "startup") in err
    words = "已存在且不是文件夹" if language == "zh" else "exists and is not a folder"
    assert words in err and "File exists" not in err and "17" not in err


# 5. a float flag past the float range -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "written", "echo"),
    [
        ("--host-link-gb-s", "1" + "0" * 400, "≈1.0e+400"),
        ("--host-memory-gib", "1e400", "≈1.0e+400"),
        ("--dropout", "-2.5e401", "≈-2.5e+401"),
        ("--host-link-gb-s", "1e99999999999999999999999", "1e99999999999999999999999"),
    ],
)
def test_a_float_flag_past_the_float_range_is_not_called_inf(flag: str, written: str, echo: str, lang: str) -> None:
    other = "--host-memory-gib" if flag == "--host-link-gb-s" else "--host-link-gb-s"
    argv = ["plan", "--model", "llama3-8b", "--cluster", "h100-8", "--global-batch", "64", "--lang", lang]
    code, _, err = _run([*argv, f"{flag}={written}", other, "30"])
    last = err.strip().splitlines()[-1]
    assert code == 2 and "Traceback" not in err and flag in last and echo in last, err
    assert "inf" not in last.split(echo, 1)[1] and len(last) < 400
    rule = "超出浮点数范围" if lang == "zh" else "outside the float range"
    assert rule in last
    # a spelt infinity keeps its own message (the rule: a finite number)
    code, _, err = _run([*argv, f"{flag}=inf", other, "30"])
    assert code == 2 and ("有限数" if lang == "zh" else "finite") in err


# 6. the step line of an absurd model ------------------------------------------------------------------------------

DAY_S = 86_400.0


def _timeline(compute: float, exposed: float, hidden: float, bubble: float) -> StepTimeline:
    return StepTimeline(compute_s=compute, communication_s=exposed + hidden, exposed_communication_s=exposed,
                        hidden_communication_s=hidden, bubble_s=bubble, input_wait_s=0.0,
                        step_s=compute + exposed + bubble)  # fmt: skip


def _number(text: str) -> Decimal:
    return Decimal(text.lstrip("<"))


@pytest.mark.parametrize(
    "days",
    [
        (577_769_999_703.0, 0.0, 0.0, 0.0),  # the brief's 12-digit step
        (4.99e13, 3e11, 1e9, 7e10),
        (1e300 / DAY_S, 1e299 / DAY_S, 1e298 / DAY_S, 1e290 / DAY_S),
    ],
)
def test_a_step_of_absurd_size_is_compact_and_adds_up(days: tuple[float, ...], lang: str) -> None:
    shown = step_line_parts(_timeline(*(d * DAY_S for d in days)))
    assert shown["unit"] == ("天" if lang == "zh" else "days")
    step_days = sum(days[i] for i in (0, 1, 3))
    exponent = math.floor(math.log10(step_days))
    # duration_text's rule: outside DURATION_PLAIN_RANGE in the unit, 3 significant figures of e-notation
    assert step_days >= DURATION_PLAIN_RANGE[1]
    assert shown["step_s"] == f"{step_days / 10**exponent:.2f}e{exponent:+03d}"
    for key in ("step_s", "compute_s", "exposed_s", "bubble_s", "comm_s", "hidden_s"):
        assert len(shown[key]) <= len("<0.01e+300"), (key, shown[key])
    parts = [shown[key] for key in ("compute_s", "exposed_s", "bubble_s")]
    if not any(p.startswith("<") for p in parts):
        assert sum(_number(p) for p in parts) == Decimal(shown["step_s"]), shown
    assert _number(shown["exposed_s"]) + _number(shown["hidden_s"]) == _number(shown["comm_s"]) or "<" in (
        shown["exposed_s"] + shown["hidden_s"]
    )
    # below the ceiling the line is as before: a day count of at most 6 digits, no exponent
    below = step_line_parts(_timeline(999_000.0 * DAY_S, 0.0, 0.0, 0.0))
    assert below["step_s"] == "999000" and "e" not in below["step_s"]


#: A Llama-shaped config of 989,577,871,622,144 parameters (12·L·h² + ...: L 1200, h 262144, f 4h, GELU): 10^15.
ABSURD_CONFIG = {
    "model_type": "llama",
    "num_hidden_layers": 1200,
    "hidden_size": 262144,
    "num_attention_heads": 2048,
    "intermediate_size": 1048576,
    "vocab_size": 32000,
    "max_position_embeddings": 2048,
}


def test_plan_explain_on_an_absurd_model_prints_a_compact_step_line(tmp_path: Path, lang: str) -> None:
    config = tmp_path / "absurd.json"
    config.write_text(json.dumps(ABSURD_CONFIG), encoding="utf-8")
    code, out, err = _run(
        ["plan", "--model-config", str(config), "--gpu-memory-gib", "1e6", "--peak-tflops", "0.001",
         "--hbm-gb-s", "3350", "--gpus-per-node", "1", "--intra-gb-s", "450", "--inter-gb-s", "50",
         "--global-batch", "8", "--lang", lang, "--explain", "tp=1,pp=1,dp=1,zero=0,mb=8,recompute=none"]
    )  # fmt: skip
    assert code == 0, err
    pattern = (
        r"估算步时 (\S+) 天 = 计算 (\S+) \+ 暴露的通信 (\S+) \+ 气泡 (\S+) "
        if lang == "zh"
        else (r"Estimated step (\S+) days = compute (\S+) \+ exposed communication (\S+) \+ bubble (\S+) ")
    )
    line = re.search(pattern, out)
    assert line is not None, out[-800:]
    step, *parts = line.groups()
    assert re.fullmatch(r"\d\.\d\de\+\d\d", step), step  # was 2867339
    assert sum(_number(p) for p in parts) == Decimal(step)
    throughput = re.search(r"(?:估算吞吐每秒|Estimated throughput) (\S+)", out)
    assert throughput is not None and float(throughput.group(1)) > 0  # was "0 tokens/s"


# Metamorphic properties of the planner with offloading -----------------------------------------------------------

#: Layouts compared per plan (a seeded sample).
SAMPLE = 120


def _offload_cases() -> list[tuple[str, ClusterSpec, WorkloadSpec]]:
    rng = random.Random(26)
    cases = []
    for k in range(6):
        name = rng.choice(["llama3-8b", "llama2-7b"])
        cluster = dataclasses.replace(
            CLUSTERS["h100-8"],
            name=f"offload-{k}",
            nodes=rng.choice([1, 2]),
            gpus_per_node=rng.choice([4, 8]),
            memory_per_device_gib=rng.choice([24.0, 40.0, 80.0]),
            host_memory_per_device_gib=rng.choice([16.0, 64.0, 256.0]),
            host_link_bandwidth_bytes_per_s=rng.uniform(8e9, 64e9),
            peak_flops_fp8=None,
            nvlink_domain_gpus=None,
        )
        workload = WorkloadSpec(global_batch=rng.choice([32, 64]), seq_len=rng.choice([2048, 4096, 8192]))
        cases.append((name, cluster, workload))
    return cases


OFFLOAD_CASES = _offload_cases()
IDS = [f"{c[0]}@{c[1].name}" for c in OFFLOAD_CASES]


def _layout(result: Any, index: int) -> dict[str, Any]:
    return {key: value for key, value in result.degrees(index).items() if key != "ga"}


def _same(result: Any, layout: dict[str, Any]) -> int:
    (index,) = result.find(**layout)
    return int(index)


def _sample(indices: list[int]) -> list[int]:
    return sorted(random.Random(26).sample(indices, min(SAMPLE, len(indices))))


def test_the_offload_cases_offload() -> None:
    """The seeded cases exercise offloading: most have accepted offloading rows (else the properties test little)."""
    with_offload = 0
    for name, cluster, workload in OFFLOAD_CASES:
        result = plan(MODELS[name], cluster, workload)
        with_offload += any(result.degrees(i)["recompute"] == "offload" for i in result.accepted_indices())
    assert with_offload >= 4


@pytest.mark.parametrize(("name", "cluster", "workload"), OFFLOAD_CASES, ids=IDS)
def test_more_host_memory_a_faster_link_or_more_gpu_memory_never_hurt(
    name: str, cluster: ClusterSpec, workload: WorkloadSpec
) -> None:
    model = MODELS[name]
    base = plan(model, cluster, workload)
    accepted = base.accepted_indices()
    host = cluster.host_memory_per_device_gib
    link = cluster.host_link_bandwidth_bytes_per_s
    assert host is not None and link is not None
    roomier_host = plan(model, dataclasses.replace(cluster, host_memory_per_device_gib=host * 2), workload)
    kept = set(roomier_host.accepted_indices())
    for i in _sample(accepted):
        assert _same(roomier_host, _layout(base, i)) in kept, ("host memory x2 rejected", base.degrees(i))
        assert roomier_host.estimated_step_s(_same(roomier_host, _layout(base, i))) == base.estimated_step_s(i)

    faster = plan(model, dataclasses.replace(cluster, host_link_bandwidth_bytes_per_s=link * 2), workload)
    pool = sorted(set(accepted) | set(base.rejected_indices("memory")) | set(base.rejected_indices("offload")))
    for i in _sample([i for i in pool if base.estimated_step_s(i) is not None]):
        before, after = base.estimated_step_s(i), faster.estimated_step_s(_same(faster, _layout(base, i)))
        assert before is not None and after is not None
        assert after <= before * (1 + 1e-12), ("host link x2 slower", base.degrees(i), before, after)

    roomier = plan(
        model, dataclasses.replace(cluster, memory_per_device_gib=cluster.memory_per_device_gib * 2), workload
    )
    kept = set(roomier.accepted_indices())
    for i in _sample(accepted):
        layout = _layout(base, i)
        if layout["recompute"] == "offload" and _same(roomier, layout) not in kept:
            # the offload gate's stated exception: where the layout fits without offloading, its twin without
            # recomputation is the row accepted
            assert roomier.explain(roomier.candidate(_same(roomier, layout)).label()).codes == ("offload",)
            layout = {**layout, "recompute": "none"}
        assert _same(roomier, layout) in kept, ("GPU memory x2 rejected", base.degrees(i))


_STEP_LINE = {
    "en": re.compile(r"Estimated step (\S+) (\S+) = compute (\S+) \+ exposed communication (\S+) \+ bubble (\S+) "),
    "zh": re.compile(r"估算步时 (\S+) (\S+) = 计算 (\S+) \+ 暴露的通信 (\S+) \+ 气泡 (\S+) "),
}


def test_offloading_rows_explain_agree_with_the_table_add_up_and_round_trip_json(lang: str) -> None:
    checked = 0
    for name, cluster, workload in OFFLOAD_CASES:
        checked += _check_rows(name, cluster, workload, lang)
    assert checked >= 12  # offloading rows checked over the cases


def _check_rows(name: str, cluster: ClusterSpec, workload: WorkloadSpec, lang: str) -> int:
    """Check the first offloading rows of a case's plan and two others; return how many offloaded."""
    base = plan(MODELS[name], cluster, workload)
    rows = [i for i in base.accepted_indices() if base.degrees(i)["recompute"] == "offload"][:4]
    offloading_rows = len(rows)
    rows += [i for i in base.accepted_indices() if base.degrees(i)["recompute"] != "offload"][:2]
    host_gib = cluster.host_memory_per_device_gib
    assert host_gib is not None
    whole = json.dumps(base.to_dict(top=3))  # strict JSON (no NaN): the new fields are plain numbers
    assert json.dumps(json.loads(whole)) == whole and "NaN" not in whole
    for i in rows:
        candidate = base.explain(base.candidate(i).label())
        step = base.estimated_step_s(i)
        assert candidate.accepted and step is not None and candidate.step_s is not None
        assert math.isclose(candidate.step_s, step, rel_tol=1e-9)
        text = candidate.explain()
        line = _STEP_LINE[lang].search(text)
        assert line is not None, text
        printed, _, *parts = line.groups()
        if not any(p.startswith("<") for p in parts):
            assert sum(_number(p) for p in parts) == _number(printed), line.group(0)
        estimate = candidate.to_dict()["estimate"]
        assert json.loads(json.dumps(candidate.to_dict())) == candidate.to_dict()
        offloading = base.degrees(i)["recompute"] == "offload"
        fields = ("offloaded_layers", "host_offload_gib", "offload_copy_s", "offload_exposed_s")
        assert all((field in estimate) == offloading for field in fields)
        if offloading:
            layers = estimate["offloaded_layers"]
            # the engine's rule: fewer layers offloaded than the model has, at least one; the host holds them
            assert isinstance(layers, int) and 1 <= layers < MODELS[name].layers
            assert 0 < estimate["host_offload_gib"] <= host_gib
            # the exposed part of the copies is a part of them, and part of the step
            assert 0 <= estimate["offload_exposed_s"] <= estimate["offload_copy_s"]
            assert estimate["offload_exposed_s"] <= estimate["exposed_communication_s"] * (1 + 1e-12)
            assert str(layers) in text
    return offloading_rows
