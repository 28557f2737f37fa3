"""Regressions from the twenty-first adversarial fuzzing pass: every widget driven to its extremes, the planners' JSON
under random input, and refusals of values typed with an input method.

Part 1 drives every lesson widget as a browser would (each option of each control, both ends of each slider and a
seeded random walk, in both languages) and checks each state's message; it compares the numbers the capacity,
scaling, pipeline and serving widgets show with formulas worked by hand from their papers, and the communication
ledger's sentence with its own sum. Part 2 plans seeded random (model, cluster, workload) triples through
``coursekit.plan`` and ``coursekit.serving.plan_serving`` and checks each result's JSON and bookkeeping. Part 3 gives
the command line values typed in a Chinese input method (full-width digits, an ideographic space) under ``--lang zh``.
Expected values come from a paper, a datasheet, a published parameter count or a hand-worked formula, never from the
code under test.
"""

from __future__ import annotations

import contextlib
import html
import io
import itertools
import json
import math
import random
import re
from decimal import Decimal
from typing import Any

import ipywidgets
import numpy as np
import pytest

from coursekit import i18n
from coursekit.__main__ import main as cli_main
from coursekit.communication.ledger import communication_ledger
from coursekit.planner import ModelSpec, WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import ServingWorkload, plan_serving
from coursekit.widgets import LessonWidget
from coursekit.widgets.capacity import CapacityWidget
from coursekit.widgets.communication import CommunicationWidget
from coursekit.widgets.pipeline import PipelineWidget
from coursekit.widgets.scaling import ScalingWidget
from coursekit.widgets.serving import ServingWidget
from tests.fuzz.test_plan_flag_sweep import FLAGS
from tests.fuzz.test_widget_fuzz import WIDGETS
from tests.test_zh_leftovers import english_words

GIB = 2**30
TAG = re.compile(r"<[^>]+>")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def _english_after() -> Any:
    yield
    i18n.set_language("en")


def _text(html_text: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(TAG.sub(" ", html_text))).strip()


# ---------------------------------------------------------------------------------------------------------------------
# Part 1: widgets
# ---------------------------------------------------------------------------------------------------------------------

#: Words a widget's Chinese message may hold beyond tests/test_zh_leftovers.py's allow-list: units (MiB, KiB), the
#: names of products and tools (InfiniBand NDR, SXM, nccl-tests), the matmuls' standard names (QKV, MLP), FSDP, and
#: English originals in full-width parentheses (test_zh_leftovers' gloss rule reads only ASCII parentheses):
#: “交错 1F1B（interleaved，v >= 2）”. ``payload`` is the symbol payload* of lesson 2's formula.
#: PCIe, Jean Zay (a supercomputer) and BLOOM (the model trained there) are in the node notes that the workbench's and
#: the serving widget's messages end with.
WIDGET_ZH_WORDS = frozenset(
    {"MiB", "KiB", "InfiniBand", "NDR", "SXM", "QKV", "MLP", "FSDP", "nccl", "tests", "interleaved", "payload", "PCIe",
     "Jean", "Zay", "BLOOM"}
)  # fmt: skip
#: The gates widget names a candidate's declared modes as codes (``training``), as its funnel does.
GATE_CODES = frozenset({"training", "serving"})


def _choices(control: ipywidgets.ValueWidget) -> list[Any]:
    """What a learner can set: every option of a dropdown or selection slider, a checkbox's two states, a slider's
    two ends and its middle step."""
    if hasattr(control, "_options_values"):
        return list(control._options_values)
    if isinstance(control, ipywidgets.Checkbox):
        return [True, False]
    if isinstance(control, (ipywidgets.IntSlider, ipywidgets.FloatSlider)):
        low, high, step = control.min, control.max, control.step
        middle = low + round((high - low) / 2 / step) * step
        values = [low, high, middle]
        return [int(v) for v in values] if isinstance(control, ipywidgets.IntSlider) else values
    return [control.value]  # a number box: its typed values have their own test (the gates widget's)


def _check_state(widget: LessonWidget[Any], lang: str, where: str) -> list[str]:
    """What is wrong with the widget's current state: an escaped error, an empty or stale message, English under zh."""
    problems = []
    message, summary = _text(widget.message_html.value), _text(widget.summary_html.value)
    if not message or not summary:
        problems.append(f"{where}: empty message or summary")
    if "Traceback" in widget.message_html.value or "Traceback" in widget.summary_html.value:
        problems.append(f"{where}: traceback shown")
    if widget.status != "ok" and ("Unexpected error" in message or "意外错误" in message):
        problems.append(f"{where}: {message[:300]}")
    if lang == "zh":
        words = [w for w in english_words(message + " " + summary) if w not in WIDGET_ZH_WORDS | GATE_CODES]
        if words:
            problems.append(f"{where}: English under zh {sorted(set(words))}: {message[:200]}")
    # the message matches the controls: computing again for the values the controls hold gives what is shown
    try:
        again = widget.describe(widget.compute(**widget.values()))
    except (TypeError, ValueError):
        if widget.status == "ok":
            problems.append(f"{where}: shown as computed, but the controls' values are refused")
    else:
        if widget.status != "ok" or again != widget.message:
            problems.append(f"{where}: the message is not the one for the controls' values")
    return problems


#: Random changes per language; the serving and workbench widgets compute a search per change, so fewer.
WALK = {"ServingWidget": 30, "WorkbenchWidget": 12}
#: The workbench plans a whole search per change: its options are swept in Chinese, the language with more to check.
LANGUAGES = {"WorkbenchWidget": ("zh",)}


@pytest.mark.parametrize("name", sorted(WIDGETS))
def test_every_control_at_every_option_and_a_random_walk(name: str) -> None:
    """Each control through each of its options (a slider: both ends and the middle), then a seeded random walk and a
    burst of changes under ``hold_updates``, in both languages: no error escapes, the message is never empty, never
    stale and, under zh, Chinese. (The pass drove 200 changes a widget a language and found none.)"""
    problems: list[str] = []
    for lang in LANGUAGES.get(name, ("en", "zh")):
        i18n.set_language(lang)
        widget = WIDGETS[name]()
        problems += _check_state(widget, lang, f"{name}[{lang}] at start")
        for control_name, control in widget.controls.items():
            start = control.value
            for value in _choices(control):
                control.value = value
                problems += _check_state(widget, lang, f"{name}[{lang}] {control_name}={value!r}")
            control.value = start
        rng = random.Random(21)
        for step in range(WALK.get(name, 40)):
            control_name = rng.choice(list(widget.controls))
            widget.controls[control_name].value = rng.choice(_choices(widget.controls[control_name]))
            problems += _check_state(widget, lang, f"{name}[{lang}] step {step} {widget.values()}")
        # several controls set before any render: the shown state is the final one, picture included
        with widget.hold_updates():
            for control in widget.controls.values():
                control.value = rng.choice(_choices(control))
        problems += _check_state(widget, lang, f"{name}[{lang}] after a burst {widget.values()}")
        assert widget._rendered_key is not None
        assert dict(widget._rendered_key[3]) == {k: repr(v) for k, v in widget.values().items()}
    assert not problems, "\n".join(problems[:20])


def test_the_gates_widget_number_box_takes_what_a_learner_types() -> None:
    """The memory box is the one control a learner types into: 0, a negative number, NaN and infinity are refused in
    the box's own words; 29 GiB is DP's need exactly (Q3's case: 29.0 GiB per rank), so DP passes at 29 and fails at
    28.999999."""
    i18n.set_language("zh")
    widget = WIDGETS["GatesWidget"]()
    box = widget.controls["memory_per_device_gib"]
    for value, rule in ((0.0, "必须 > 0"), (-1.0, "必须 > 0"), (math.nan, "有限数"), (math.inf, "有限数")):
        box.value = value
        assert widget.status == "invalid"
        assert "单设备显存 (GiB)" in widget.message and rule in widget.message, widget.message
    box.value = 29.0
    assert "DP、ZeRO-3、TP、PP" in _text(widget.message)
    box.value = 28.999999
    assert "DP 拒绝" in _text(widget.message)


#: Megatron-LM's GPT shapes (Narayanan et al. 2021, Table 1; GPT-3: Brown et al. 2020, Table 2.1): hidden, layers,
#: heads; vocabulary 51,200 and sequence 2,048 as in the paper.
MEGATRON_SHAPES = {
    "megatron-1.7b": (2304, 24, 24),
    "megatron-3.6b": (3072, 30, 32),
    "megatron-7.5b": (4096, 36, 32),
    "megatron-18.4b": (6144, 40, 48),
    "megatron-39.1b": (8192, 48, 64),
    "megatron-76.1b": (10240, 60, 80),
    "megatron-145.6b": (12288, 80, 96),
    "gpt3-175b": (12288, 96, 96),
}
_PARTS = re.compile(
    r"parameters ([\d.]+) \+ gradients ([\d.]+) \+ optimizer state ([\d.]+) \+ activations ([\d.]+) "
    r"\(micro-batches in flight: (\d+)\)"
)


def test_capacity_widget_numbers_match_the_papers_formulas() -> None:
    """50 seeded random states of lesson 1's widget (recipe zero-fp16-adam: 2 + 2 + 12 bytes per parameter, ZeRO
    paper §3) against the hand formulas: parameters P = 12·L·h²·(1 + 13/(12h) + (V + s)/(12·L·h)) (Narayanan et al.
    2021, eq. 2), the first stage's ceil(L/p) layers, ZeRO-1/2/3 dividing the optimizer / + gradients / + parameters
    by DP, and each layer's activations without sequence parallelism (Korthikanti et al. 2022, Table 2): none
    sbh(10 + 24/t + 5as/(ht)), selective sbh(10 + 24/t), full 2sbh, p micro-batches in flight on the first stage."""
    widget = CapacityWidget()
    rng = random.Random(5)
    for _ in range(50):
        values = {
            "model": rng.choice(list(MEGATRON_SHAPES)),
            "recipe": "zero-fp16-adam",
            "zero_stage": rng.choice([0, 1, 2, 3]),
            "dp": rng.choice([1, 2, 4, 8, 16, 32, 64, 128]),
            "tp": rng.choice([1, 2, 4, 8]),
            "pp": rng.choice([1, 2, 4, 8]),
            "seq_len": rng.choice([1024, 2048, 4096]),
            "micro_batch": rng.randint(1, 16),
            "recompute": rng.choice(["none", "selective", "full"]),
            "reserve_gib": rng.choice([0.0, 2.0, 3.5]),
            "device_gib": 80.0,
        }
        with widget.hold_updates():
            for key, value in values.items():
                widget.controls[key].value = value
        assert widget.status == "ok", widget.message
        h, layers, a = MEGATRON_SHAPES[values["model"]]
        s, b, t, p, d, z = (values[k] for k in ("seq_len", "micro_batch", "tp", "pp", "dp", "zero_stage"))
        params = 12 * layers * h * h * (1 + 13 / (12 * h) + (51200 + 2048) / (12 * layers * h))
        stage_layers = math.ceil(layers / p)
        shard = params * stage_layers / layers / t
        weights, grads, optimizer = 2 * shard / GIB, 2 * shard / GIB, 12 * shard / GIB
        optimizer /= d if z >= 1 else 1
        grads /= d if z >= 2 else 1
        weights /= d if z >= 3 else 1
        per_layer = {
            "none": s * b * h * (10 + 24 / t + 5 * a * s / (h * t)),
            "selective": s * b * h * (10 + 24 / t),
            "full": 2 * s * b * h,
        }[values["recompute"]]
        activations = per_layer * stage_layers * p / GIB
        shown = _PARTS.search(_text(widget.message))
        assert shown, widget.message
        got = [float(x) for x in shown.groups()[:4]]
        for x, want in zip(got, (weights, grads, optimizer, activations), strict=True):
            assert x == pytest.approx(want, abs=0.006 + 1e-3 * want), (values, got)
        assert int(shown.group(5)) == p


def test_scaling_and_pipeline_widgets_match_their_formulas() -> None:
    """Lesson 6's two widgets over seeded random states. Scaling at P = 512: the ring all-reduce's 2(P-1)/P · S/B,
    overlap hiding at most the compute, E = compute / (compute + exposed). Pipeline, balanced stages: bubble
    (p-1)/(v·m + p-1) and makespan (m + (p-1)/v)·(f + b) with f = 1 s, b = 2 s (Narayanan et al. 2021, §2.2)."""
    scaling = ScalingWidget()
    rng = random.Random(6)
    for _ in range(40):
        values = {name: rng.choice(_choices(control)) for name, control in scaling.controls.items()}
        values["overlap"] = rng.choice([0.0, 0.25, 0.5, 0.95, 1.0])
        with scaling.hold_updates():
            for key, value in values.items():
                scaling.controls[key].value = value
        compute = values["compute_ms"]
        comm = 2 * 511 / 512 * values["gradient_gb"] / values["bandwidth_gb_s"] * 1000
        exposed = comm - min(values["overlap"] * comm, compute)
        text = _text(scaling.message)
        efficiency = re.search(r"E\(512\) = ([\d.]+)", text)
        step = re.search(r"a step takes ([\d,.]+) ms", text)
        assert efficiency and step, text
        assert float(efficiency.group(1)) == pytest.approx(compute / (compute + exposed), abs=0.006)
        assert float(step.group(1).replace(",", "")) == pytest.approx(compute + exposed, abs=0.6, rel=0.006)
    pipeline = PipelineWidget(stages=4, microbatches=8)
    for _ in range(40):
        schedule = rng.choice(["gpipe", "1f1b", "interleaved"])
        p, m = rng.randint(1, 8), rng.randint(1, 16)
        v = rng.randint(2, 4) if schedule == "interleaved" else 1
        if schedule == "interleaved":
            m = p * rng.randint(1, 16 // p)  # interleaving needs m a multiple of p (Megatron-LM)
        with pipeline.hold_updates():
            pipeline.controls["stages"].value = p
            pipeline.controls["microbatches"].value = m
            pipeline.controls["schedule"].value = schedule
            pipeline.controls["virtual_stages"].value = v
            pipeline.controls["slow_stage"].value = "none"
        assert pipeline.status == "ok", pipeline.message
        text = _text(pipeline.message)
        bubble = re.search(r"Simulated bubble \(idle share of the step\): ([\d.]+)%", text)
        makespan = re.search(r"Makespan ([\d.]+) s", text)
        assert bubble and makespan, text
        assert float(bubble.group(1)) / 100 == pytest.approx((p - 1) / (v * m + p - 1), abs=6e-4)
        assert float(makespan.group(1)) == pytest.approx((m + (p - 1) / v) * 3.0, abs=0.06)


#: Published parameter counts (Hugging Face model cards; GPT-3: Brown et al. 2020) and KV shapes (layers, KV heads,
#: head dimension) of lesson 10's dense models; HBM bandwidth per GPU from the datasheets (H100 SXM 3.35 TB/s, A100
#: 80GB SXM 2.039 TB/s).
DENSE_SERVING = {
    "llama3-8b": (8.030e9, 32, 8, 128),
    "llama3-70b": (70.554e9, 80, 8, 128),
    "gpt3-175b": (174.6e9, 96, 96, 128),
    "gpt2-small": (124.44e6, 12, 12, 64),
}
HBM_BYTES_PER_S = {"h100-8": 3.35e12, "a100-8": 2.039e12}


def test_serving_widget_numbers_match_the_hand_worked_ledger() -> None:
    """40 seeded random states of lesson 10's widget, dense models in bf16: weights N·2/TP bytes per rank, the KV
    cache batch·(prompt + output)·layers·2·max(kv_heads/TP, 1)·head_dim·2 bytes, and the weights floor of a decode
    step, the rank's weights ÷ HBM bandwidth."""
    widget = ServingWidget()
    rng = random.Random(3)
    checked = 0
    for _ in range(40):
        values = {
            "model": rng.choice(list(DENSE_SERVING)),
            "gpu": rng.choice(list(HBM_BYTES_PER_S)),
            "tp": rng.choice([1, 2, 4, 8]),
            "batch": rng.choice([1, 7, 64, 200, 512]),
            "prompt_tokens": rng.choice([128, 1024, 2048, 8192]),
            "output_tokens": rng.choice([16, 256, 1024]),
            "precision": "bf16",
        }
        with widget.hold_updates():
            for key, value in values.items():
                widget.controls[key].value = value
        if widget.status != "ok":  # TP that does not divide GPT-2 small's 12 heads: refused, checked above
            assert values["model"] == "gpt2-small" and values["tp"] == 8, widget.message
            continue
        params, layers, kv_heads, head_dim = DENSE_SERVING[values["model"]]
        t = values["tp"]
        weights = params * 2 / t
        tokens = values["batch"] * (values["prompt_tokens"] + values["output_tokens"])
        kv = tokens * layers * 2 * max(kv_heads / t, 1) * head_dim * 2
        text = _text(widget.message)
        ledger = re.search(r"weights ([\d.]+) \+ KV cache ([\d.]+)", text)
        floor = re.search(r"weights floor ([\d.]+) ms", text)
        assert ledger and floor, text
        assert float(ledger.group(1)) == pytest.approx(weights / GIB, abs=0.051, rel=0.01)
        assert float(ledger.group(2)) == pytest.approx(kv / GIB, abs=0.051, rel=0.01)
        floor_ms = weights / HBM_BYTES_PER_S[values["gpu"]] * 1e3
        assert float(floor.group(1)) == pytest.approx(floor_ms, abs=0.051, rel=0.02)
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize(
    ("args", "en", "zh"),
    [
        # 512 × 5 µs = 2.56 ms; 512 × 64 KiB = 32 MiB over 100 GiB/s = 0.3125 ms (lesson 2, exercise 2.2's ledger B).
        # At 3 decimals it read "2.56 ms + 0.312 ms = 2.873 ms".
        (
            (64 / 1024, 512, 100, 5),
            "512 calls: latency 2.56 ms + transfer 0.3125 ms = 2.8725 ms",
            "512 次调用：时延 2.56 ms + 传输 0.3125 ms = 2.8725 ms",
        ),
        # 1 × 0.5 µs = 0.0005 ms; 1 KiB over 1 GiB/s = 2^-20 s = 0.00095 ms; sum 0.00145 ms. At 3 decimals it read
        # "0.001 ms + 0.001 ms = 0.001 ms".
        (
            (1 / 1024, 1, 1.0, 0.5),
            "1 call: latency 0.0005 ms + transfer 0.001 ms = 0.0015 ms",
            "1 次调用：时延 0.0005 ms + 传输 0.001 ms = 0.0015 ms",
        ),
        # 4 × 3.4 µs = 0.0136 ms; 4 KiB over 1 GiB/s = 0.0038 ms; sum 0.0174 ms (was "0.014 + 0.004 = 0.017").
        (
            (1 / 1024, 4, 1.0, 3.4),
            "4 calls: latency 0.0136 ms + transfer 0.0038 ms = 0.0174 ms",
            "4 次调用：时延 0.0136 ms + 传输 0.0038 ms = 0.0174 ms",
        ),
        # Sums that add up at 3 decimals keep them: 24 × 5 µs = 0.12 ms, 24 × 32 MiB / 100 GiB/s = 7.5 ms.
        (
            (32, 24, 100, 5),
            "24 calls: latency 0.12 ms + transfer 7.5 ms = 7.62 ms",
            "24 次调用：时延 0.12 ms + 传输 7.5 ms = 7.62 ms",
        ),
    ],
)
def test_the_ledger_sentence_adds_up_as_printed(args: tuple[float, ...], en: str, zh: str) -> None:
    ledger = communication_ledger(*args)
    assert ledger.explain().startswith(en)
    i18n.set_language("zh")
    assert ledger.explain().startswith(zh)


def test_every_ledger_sentence_of_the_widget_adds_up() -> None:
    """Every state of lesson 2's widget whose sentence prints three numbers (17,624 of the 18,876 that send something;
    the rest print a term as "< 0.001"): latency + transfer = total, in the digits printed. At 3 decimals 767 of 17,600
    did not (4.4 %)."""
    widget = CommunicationWidget()
    grid = [widget.controls[name]._options_values for name in ("payload_mib", "calls_per_step")]
    grid += [widget.controls[name]._options_values for name in ("bandwidth_gib_s", "latency_us")]
    sentence = re.compile(r"latency ([\d.]+) ms \+ transfer ([\d.]+) ms = ([\d.]+) ms")
    checked = 0
    for payload, calls, bandwidth, latency in itertools.product(*grid):
        if calls == 0:
            continue
        text = communication_ledger(payload, calls, bandwidth, latency).explain()
        assert "e-" not in text, text
        shown = sentence.search(text)
        if shown is None:  # a term below the last decimal reads "< 0.001"
            continue
        a, b, total = (Decimal(x) for x in shown.groups())
        assert a + b == total, text
        checked += 1
    assert checked > 17000


def _adds_up(parts: list[str], total: str) -> bool:
    return sum(Decimal(x) for x in parts) == Decimal(total)


_SERVING_LEDGER = re.compile(
    r"weights ([\d.]+) \+ KV cache ([\d.]+) \+ workspace and reserve ([\d.]+) = ([\d.]+) / (\d+) GiB, "
    r"(?:fits, ([\d.]+) GiB headroom|does not fit)"
)


def test_the_serving_sentence_adds_up_at_the_lessons_default() -> None:
    """Lesson 10's default (Llama-3 70B, one H100 node as one TP = 8 replica, 64 requests of 2048 + 256 tokens) read
    "weights 16.4 + KV cache 5.6 + workspace and reserve 2.1 = 24.2 / 80 GiB": the terms add up to 24.1. Weights
    70.554e9 x 2 bytes / 8 = 16.43 GiB; KV cache 64 x 2304 tokens x 80 layers x 2 x 1 KV head per rank x 128 x 2 bytes
    = 5.625 GiB. Two decimals add up: the terms to the total, the total and the headroom to the 80 GiB."""
    shown = _SERVING_LEDGER.search(_text(ServingWidget().message))
    assert shown, "no ledger sentence"
    weights, kv, other, total, device, headroom = shown.groups()
    assert (weights, kv) == ("16.43", "5.62")  # 5.625 to two places, half to even
    assert _adds_up([weights, kv, other], total)
    assert Decimal(total) + Decimal(headroom) == Decimal(device) == 80


def test_every_serving_sentence_adds_up_as_printed() -> None:
    """40 seeded random states of lesson 10's widget: weights + KV cache + workspace and reserve = total as printed,
    and total + headroom = device when it fits. Each term rounded to 1 place on its own, 34 of 85 random states did
    not add up ("1.9 + 0.5 + 2.8 = 5.1")."""
    rng = random.Random(1)
    widget = ServingWidget()
    checked = 0
    for _ in range(40):
        with widget.hold_updates():
            for control in widget.controls.values():
                control.value = rng.choice(_choices(control))
        shown = _SERVING_LEDGER.search(_text(widget.message))
        if shown is None:  # a refused state (FP8 on an A100, TP that does not divide the heads)
            continue
        weights, kv, other, total, device, headroom = shown.groups()
        assert _adds_up([weights, kv, other], total), shown.group(0)
        if headroom is not None:
            assert Decimal(total) + Decimal(headroom) == Decimal(device), shown.group(0)
        checked += 1
    assert checked >= 20


_PLAN_MEMORY = re.compile(r"Memory per rank: params ([\d.]+) \+ grads ([\d.]+) \+ optimizer ([\d.]+) \+ workspace "
                          r"([\d.]+) \+ activations ([\d.]+) \+ reserve ([\d.]+) = ([\d.]+) GiB")  # fmt: skip
_PLAN_SERVING = re.compile(r"memory per rank: weights ([\d.]+) \+ KV cache ([\d.]+) \+ workspace ([\d.]+) \+ "
                           r"reserve ([\d.]+) = ([\d.]+) / (\d+) GiB(?:, fits, ([\d.]+) GiB headroom)?")  # fmt: skip


def test_the_planners_memory_lines_add_up_as_printed() -> None:
    """``plan --explain`` / ``PlanCandidate.explain``: the training memory line's six parts and the serving line's four
    add up to the printed total (each rounded on its own, 44 of 110 training lines were 0.01 GiB off and 52 of 173
    serving lines 0.1 GiB off). Llama-3 70B on 4 A100 nodes, ZeRO-3 over 32: params and grads hold the same bytes
    (2 each) and print the same."""
    rng = random.Random(4)
    training = serving = 0
    for _ in range(16):
        model = MODELS[rng.choice(["llama3-8b", "llama3-70b", "mixtral-8x7b", "deepseek-v2-lite", "gpt2-small"])]
        cluster = CLUSTERS[rng.choice(["h100-8", "a100-8", "b200-8", "pcie-24g-8"])].with_nodes(rng.choice([1, 2, 4]))
        mode = rng.choice(["training", "serving"])
        try:
            result = plan(model, cluster, WorkloadSpec(global_batch=rng.choice([64, 256]), seq_len=4096, mode=mode))
        except ValueError:
            continue
        for cand in result.accepted(top=4):
            text = cand.explain()
            if (memory := _PLAN_MEMORY.search(text)) is not None:
                assert _adds_up(list(memory.groups()[:6]), memory.group(7)), memory.group(0)
                training += 1
            if (line := _PLAN_SERVING.search(text)) is not None:
                assert _adds_up(list(line.groups()[:4]), line.group(5)), line.group(0)
                if line.group(7) is not None:
                    assert Decimal(line.group(5)) + Decimal(line.group(7)) == Decimal(line.group(6)), line.group(0)
                serving += 1
    assert training >= 10 and serving >= 10
    llama = plan(MODELS["llama3-70b"], CLUSTERS["a100-8"].with_nodes(4), WorkloadSpec(global_batch=256, seq_len=4096))
    shown = _PLAN_MEMORY.search(llama.accepted(top=1)[0].explain())
    assert shown and shown.group(1) == shown.group(2), shown


# ---------------------------------------------------------------------------------------------------------------------
# Part 2: random planner inputs
# ---------------------------------------------------------------------------------------------------------------------


def _random_config(rng: random.Random) -> dict[str, Any]:
    """A Llama- or Mixtral-style config.json with valid keys and random sizes."""
    heads = rng.choice([8, 12, 16, 32, 40, 64])
    head_dim = rng.choice([64, 128])
    config: dict[str, Any] = {
        "model_type": "llama",
        "hidden_size": heads * head_dim,
        "num_hidden_layers": rng.choice([2, 12, 24, 32, 48, 80]),
        "num_attention_heads": heads,
        "num_key_value_heads": rng.choice([h for h in (1, 2, 4, 8, heads) if heads % h == 0]),
        "intermediate_size": heads * head_dim * rng.choice([2, 3, 4]),
        "vocab_size": rng.choice([32000, 50257, 128256, 151936]),
        "max_position_embeddings": rng.choice([2048, 4096, 8192, 32768]),
        "hidden_act": "silu",
        "rms_norm_eps": 1e-5,
        "tie_word_embeddings": rng.choice([True, False]),
    }
    if rng.random() < 0.3:
        config.update(model_type="mixtral", num_local_experts=rng.choice([4, 8, 16]), num_experts_per_tok=2)
    return config


def _strict_json(data: Any) -> Any:
    """``data`` written and read back as JSON that holds no NaN or infinity."""
    return json.loads(json.dumps(data, default=str, allow_nan=False))


def _without_clock(data: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in data.items() if k != "elapsed_s"}, sort_keys=True, default=str)


def test_random_training_and_serving_plans_keep_their_books() -> None:
    """60 seeded random triples (presets and random configs, preset clusters of 1-16 nodes, training and serving):
    each plans or is refused with a ValueError naming the setting; the result's JSON is finite; every accepted layout
    uses exactly the cluster's GPUs and fits its memory; its step time is the sum its timeline states (compute +
    exposed communication + bubble + input wait + load imbalance + host wait, coursekit.scaling.StepTimeline); and
    planning again with numpy integers and lists gives the same JSON."""
    rng = random.Random(21)
    planned = 0
    for k in range(60):
        if rng.random() < 0.7:
            model = MODELS[rng.choice(list(MODELS))]
        else:
            model = ModelSpec.from_config(_random_config(rng), name="random")
        cluster_name, nodes = rng.choice(list(CLUSTERS)), rng.choice([1, 1, 2, 4, 8, 16])
        workload: dict[str, Any] = {
            "global_batch": rng.choice([1, 8, 16, 32, 64, 96, 128, 256, 512, 1024]),
            "seq_len": rng.choice([None, 512, 2048, 4096, 8192]),
            "mode": rng.choice(["training", "training", "serving"]),
        }
        if workload["mode"] == "training" and rng.random() < 0.3:
            workload["zero_stages"] = tuple(sorted(rng.sample([0, 1, 2, 3], rng.randint(1, 4))))
        cluster = CLUSTERS[cluster_name].with_nodes(nodes)
        try:
            result = plan(model, cluster, WorkloadSpec(**workload))
        except ValueError as exc:  # e.g. more ranks than the global batch can feed in serving: named
            assert any(key in str(exc) for key in ("global_batch", "seq_len", "precision", "nodes")), str(exc)
            continue
        planned += 1
        data = _strict_json(result.to_dict(top=5))
        for cand in result.accepted(top=20):
            assert cand.ranks == cluster.world_size, cand.label()
            assert cand.memory is not None and cand.memory.total_gib <= cand.memory.device_gib + 1e-9
            t = cand.timeline
            assert t is not None
            parts = t.compute_s + t.exposed_communication_s + t.bubble_s + t.input_wait_s
            parts += t.load_imbalance_s + t.host_wait_s
            assert t.step_s == pytest.approx(parts, rel=1e-12, abs=1e-15)
        if k % 4 == 0:
            same = dict(workload, global_batch=np.int64(workload["global_batch"]))
            if "zero_stages" in same:
                same["zero_stages"] = list(same["zero_stages"])
            again = plan(model, CLUSTERS[cluster_name].with_nodes(np.int64(nodes)), WorkloadSpec(**same))
            assert _without_clock(_strict_json(again.to_dict(top=5))) == _without_clock(data)
    assert planned >= 50


def test_random_serving_searches_keep_their_books() -> None:
    """80 seeded random serving searches (coursekit.serving.plan_serving): finite JSON; each candidate's TPOT is the
    larger roofline limb plus communication (ServingEstimate's docstring), its decode rate batch / TPOT, its weights
    floor never above its TPOT, and an accepted layout fits its device's memory."""
    rng = random.Random(22)
    searched = 0
    for _ in range(80):
        model = MODELS[rng.choice(list(MODELS))]
        cluster = CLUSTERS[rng.choice(list(CLUSTERS))].with_nodes(rng.choice([1, 1, 2, 4]))
        load: dict[str, Any] = {
            "prompt_tokens": rng.choice([1, 128, 2048, 8192, 32768]),
            "output_tokens": rng.choice([1, 16, 256, 4096]),
        }
        if rng.random() < 0.6:
            load["concurrency"] = rng.choice([1, 3, 64, 257, 1000])
        else:
            load["request_rate_per_s"] = rng.choice([0.5, 3.0, 40.0])
        if rng.random() < 0.3:
            load["tpot_slo_s"] = rng.choice([0.01, 0.05, 0.2])
        result = plan_serving(model, cluster, ServingWorkload(**load))
        _strict_json(result.to_dict(top=5, include_rejected=True))
        for cand in result.candidates:
            est = cand.estimate
            if est is not None:
                limb = max(est.decode_compute_s, est.decode_memory_s) + est.decode_comm_s
                assert est.time_per_output_token_s == pytest.approx(limb, rel=1e-12)
                assert est.decode_tokens_per_s == pytest.approx(est.batch / est.time_per_output_token_s, rel=1e-12)
                assert est.weights_floor_s <= est.time_per_output_token_s * (1 + 1e-12)
            if cand.accepted and cand.ledger is not None:
                assert cand.ledger.total_gib <= cand.ledger.device_gib + 1e-9
        searched += 1
    assert searched == 80


# ---------------------------------------------------------------------------------------------------------------------
# Part 3: refusals of what an input method types
# ---------------------------------------------------------------------------------------------------------------------

#: A full-width number, an Arabic-Indic digit and an ideographic space: what a Chinese input method may type. Python's
#: int() and float() read the first two as numbers; the course's flags refuse them, naming the flag.
IME_VALUES = ("１６", "٣", "\u3000")
_BASE = ["plan", "--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16"]


def _cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = cli_main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return int(code), err.getvalue()


#: --model-config names a file and cannot stand beside the base command's --model (tests/fuzz/test_cli_fuzz.py covers
#: its paths).
IME_FLAGS = [(flag, dest) for flag, dest in FLAGS if flag != "--model-config"]


@pytest.mark.parametrize(("flag", "dest"), IME_FLAGS, ids=[flag for flag, _ in IME_FLAGS])
def test_input_method_values_are_refused_in_chinese_as_typed(flag: str, dest: str) -> None:
    """Every ``plan`` flag that takes a number or a name (tests/fuzz/test_plan_flag_sweep.py's list): exit 2, one
    Chinese line naming the flag and the value as typed. ``--recompute '\u3000'`` read
    "'' 不是 none, selective, full 之一": the list's items were stripped before they were shown."""
    for value in IME_VALUES:
        argv = ["--lang", "zh", *_BASE, flag, value, "--top", "1"]
        if flag == "--global-batch":
            argv = ["--lang", "zh", *_BASE[:-2], flag, value]
        code, err = _cli(argv)
        assert code == 2 and "Traceback" not in err, (flag, value, err[-300:])
        last = err.strip().splitlines()[-1]
        assert flag in last or dest in last, last
        assert repr(value) in last or value in last, last
        assert CJK.search(last), last
