"""Instructor review 23: lesson 9's remaining result decimals, each tied to the sentence that quotes it.

Instructor review 22 left these numbers of lesson 9's prose with no test that ties them to their sentence: Qwen3 30B's
host wait and token permutation, the ModelZoo's count check and the nodes a token reaches, TP 4's fitted ratio, the
output layer's weight in layers, three "within" bounds, and the FP8 section's B200 traffic and face-value speed-ups.
Each row below is a phrase of the lesson's Markdown (zh and en, whitespace runs collapsed: tools/guide_pins.py
--lessons credits them) and the phrase as coursekit's value fills it in. Inputs that are published data (the
ModelZoo table's step time) are typed from their source, named where they are defined.

The shared setup lives once (leftovers 28: each test had repeated it): the published runs, their comparisons, plans and
explanations are typed helpers (no ``type: ignore`` at each use); the guides are read by one cached helper
(:func:`_guide`); the repository's folders are one constant (``ROOT``); the runs quoted twice are named once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from coursekit.communication.traffic import _ep_remote_share
from coursekit.exercises import get_exercise
from coursekit.planner import (
    ModelSpec,
    PlanCandidate,
    PlanResult,
    PublishedComparison,
    compare_published,
    fp8_speedups,
    megatron_core_model_flops_per_step,
    plan,
)
from coursekit.planner.estimate import fp8_quantisation_bytes_per_token
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import PublishedRun, all_published_runs
from coursekit.serving import kv_cache_bytes, serving_estimate
from tests.notebook_outputs import answer_forms, executed, output_texts
from tests.test_instructor_review22 import _lesson

QWEN30 = "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8)"
QWEN30_EP16 = "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, EP 16)"
ZOO_4K = "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 ({})"
#: The ModelZoo table's step time of its "235B DeepEP TP 2 EP 32 PP 8 VPP 4" row (best_practice/qwen3/readme.md @
#: e8650517, the run's note in coursekit.published_runs): 19.7 s.
ZOO_EP32_STEP_S = 19.7
#: Runs two sentences each quote (zh and en).
GPT_119B = "Megatron-Core GPT 119B, 4K, 1536 H100"
LLAMA3_70B_FP8 = "Megatron-Bridge Llama 3 70B, 8K, 64 H100 (FP8)"
ROOT = Path(__file__).resolve().parents[1]


@cache
def _runs() -> dict[str, PublishedRun]:
    return {run.name: run for run in all_published_runs()}


@cache
def _compared(name: str) -> PublishedComparison:
    return compare_published(_runs()[name])


def _plan_of(name: str, **changes: object) -> PlanResult:
    run = _runs()[name]
    workload = replace(run.workload(), **changes)
    return plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), workload)


def _explain(name: str, layout: str | None = None, **changes: object) -> PlanCandidate:
    return _plan_of(name, **changes).explain(layout or _compared(name).layout)


def _qwen30_host_wait_s() -> float:
    """Qwen3 30B at EP 16's fastest estimates tie, bound by the host: EP 8 with full recomputation waits this long."""
    ep8 = _explain(QWEN30_EP16, "tp=1,pp=1,dp=16,cp=1,ep=8,etp=1,v=1,zero=2,mb=1,ga=64,recompute=full")
    best = _explain(QWEN30_EP16, _compared(QWEN30_EP16).best_layout)
    assert ep8.step_s == pytest.approx(best.step_s, rel=1e-9)
    assert ep8.timeline is not None
    return float(ep8.timeline.host_wait_s)


def _qwen30_permutation_s() -> float:
    """Qwen3 30B's published layout: the token permutation and unpermutation per step, the dispatcher's second sort
    by local expert included (half of it: coursekit.planner.estimate.token_permutation_bytes_per_token)."""
    permutation_s = _explain(QWEN30).permutation_s
    assert permutation_s is not None  # an MoE layout permutes its tokens
    return float(permutation_s)


def _zoo_count() -> float:
    """Megatron-Core's 2025 count of one ModelZoo Qwen3 235B step (global batch 2048, 4K, TP 2), FLOPs."""
    return float(megatron_core_model_flops_per_step(MODELS["qwen3-235b-a22b"], 2048, 4096, "2025", tp=2))


def _zoo_tflops() -> tuple[float, float, float]:
    """(the table's step time, the count over it per GPU in TFLOP/s, the table's TFLOP/s) of the EP 32 row."""
    run = _runs()[ZOO_4K.format("DeepEP, EP 32")]
    return ZOO_EP32_STEP_S, _zoo_count() / (ZOO_EP32_STEP_S * run.gpus) / 1e12, run.measured_tflops_per_gpu


def _nodes_reached(ep: int) -> tuple[int, float]:
    """(other nodes, how many of them a token reaches) for Qwen3 235B's top-8 routing over ``ep`` ranks of H100
    nodes, each token sent once per node it reaches (DeepEP)."""
    model, per_node = MODELS["qwen3-235b-a22b"], CLUSTERS["h100-8"].gpus_per_node
    copies_remote = model.top_k * (ep - per_node) / ep
    return ep // per_node - 1, float(_ep_remote_share(ep, per_node, model.top_k, True, None)) * copies_remote


def _tp4_fit() -> tuple[float, float]:
    """Without the host time, how much faster the estimate makes TP 4 than the EP 32 TP 2 row (a fraction), and
    the measured TP 4 throughput over TP 2's (both rows in the same FLOP count)."""

    def free_step(key: str) -> float:
        name = ZOO_4K.format(key)
        return float(_explain(name, moe_layer_host_s=0.0).step_s)

    tp2, tp4 = (_runs()[ZOO_4K.format(key)] for key in ("DeepEP, EP 32", "DeepEP, TP 4, EP 8"))
    measured = tp4.measured_tflops_per_gpu / tp2.measured_tflops_per_gpu
    return free_step("DeepEP, EP 32") / free_step("DeepEP, TP 4, EP 8") - 1, measured


def _output_layer_in_layers() -> float:
    """Qwen3 235B's output layer (6·V·h FLOPs per token) in average layers (6 FLOPs per active parameter and
    attention's 12·width·s, less the embedding and output parameters)."""
    m = MODELS["qwen3-235b-a22b"]
    layer = (
        6 * m.active_params
        + 12 * m.layers * m.attention_flops_width * 4096
        - 6 * (m.input_embedding_params + m.output_params)
    ) / m.layers
    return 6 * m.vocab * m.hidden / layer


def _within(values: list[float], places: int) -> str:
    """The tightest bound at ``places`` decimals that the largest of ``values`` stays under ("within 1.01x")."""
    bound = math.ceil(max(values) * 10**places) / 10**places
    assert max(values) < bound or max(values) == bound == 1
    return f"{bound:.{places}f}"


def _over_best(*names: str) -> list[float]:
    over = [_compared(name).step_over_best for name in names]
    assert all(x is not None for x in over), names  # each run's layout passes the gates
    return [float(x) for x in over if x is not None]


def _b200_fp8_kib() -> tuple[float, float, float]:
    """FP8 cast traffic of one Llama 3 8B layer on a B200 (any operand layout), KiB per token: delayed, current,
    MXFP8."""
    b200 = CLUSTERS["b200-8"]
    return tuple(  # type: ignore[return-value]
        float(fp8_quantisation_bytes_per_token(MODELS["llama3-8b"], recipe, any_layout=b200.fp8_any_layout).dense_layer)
        / 1024
        for recipe in ("delayed", "current", "mxfp8")
    )


def _face_value_excess() -> tuple[int, int, int]:
    """With FP8's doubling taken at face value: how much the estimated speed-up exceeds the measured one, lowest and
    highest over the pairs (percent), and how many pairs; every pair must be over."""
    excess = [pair.estimated_over_measured - 1 for pair in fp8_speedups(1.0)]
    assert min(excess) > 0
    return round(100 * min(excess)), round(100 * max(excess)), len(excess)


_LLAMA3 = ("Llama 3 405B, 8K, 16384 GPUs", "Llama 3 405B, 128K, 16384 GPUs")
_MTNLG = ("MT-NLG 530B, 280 nodes", "MT-NLG 530B, 420 nodes")  # the rows where the estimate prefers 7 stages
_NUMBER_WORDS = {11: "eleven"}

PINS: list[tuple[str, str, Callable[[], str]]] = [
    ("zh", "重计算有 3.7 s 在等主机", lambda: f"重计算有 {_qwen30_host_wait_s():.1f} s 在等主机"),
    ("en", "waits 3.7 s for it", lambda: f"waits {_qwen30_host_wait_s():.1f} s for it"),
    ("zh", "连排序每步共 0.83 s", lambda: f"连排序每步共 {_qwen30_permutation_s():.2f} s"),
    ("en", "(0.83 s a step, sorts included)", lambda: f"({_qwen30_permutation_s():.2f} s a step, sorts included)"),
    ("zh", "（19.7 s 对应 246.2，表里是 245；", lambda: "（{:g} s 对应 {:.1f}，表里是 {:.0f}；".format(*_zoo_tflops())),
    (
        "en",
        "(19.7 s: 246.2, the table says 245;",
        lambda: "({:g} s: {:.1f}, the table says {:.0f};".format(*_zoo_tflops()),
    ),
    (
        "zh",
        "平均要到其余 3 个节点中的 2.7 个",
        lambda: "平均要到其余 {} 个节点中的 {:.1f} 个".format(*_nodes_reached(32)),
    ),
    (
        "en",
        "it reaches 2.7 of the 3 others",
        lambda: "it reaches {1:.1f} of the {0} others".format(*_nodes_reached(32)),
    ),
    (
        "zh",
        "估算认为 TP 4 比 TP 2 还快 15%；实测它只有 TP 2 的 0.68 倍",
        lambda: f"估算认为 TP 4 比 TP 2 还快 {100 * _tp4_fit()[0]:.0f}%；实测它只有 TP 2 的 {_tp4_fit()[1]:.2f} 倍",
    ),
    (
        "en",
        "makes TP 4 15 % faster than TP 2; measured, it runs at 0.68 of it",
        lambda: (
            f"makes TP 4 {100 * _tp4_fit()[0]:.0f} % faster than TP 2; measured, it runs at {_tp4_fit()[1]:.2f} of it"
        ),
    ),
    ("zh", "按 FLOP 算约 2.1 层", lambda: f"按 FLOP 算约 {_output_layer_in_layers():.1f} 层"),
    ("en", "about 2.1 layers of FLOPs", lambda: f"about {_output_layer_in_layers():.1f} layers of FLOPs"),
    (
        "zh",
        "步时都在估算最优的 1.01 倍以内",
        lambda: f"步时都在估算最优的 {_within(_over_best(*_LLAMA3), 2)} 倍以内",
    ),
    (
        "en",
        "their steps within 1.01x of the best",
        lambda: f"their steps within {_within(_over_best(*_LLAMA3), 2)}x of the best",
    ),
    (
        "zh",
        "发表的布局排第 2，步时在估算最优的 1.01 倍以内",
        lambda: (
            f"发表的布局排第 {_compared(GPT_119B).rank}，步时在估算最优的 {_within(_over_best(GPT_119B), 2)} 倍以内"
        ),
    ),
    (
        "en",
        "ranks 2nd, its step within 1.01x of the best estimate",
        lambda: (
            f"ranks {_compared(GPT_119B).rank}nd, its step within {_within(_over_best(GPT_119B), 2)}x "
            "of the best estimate"
        ),
    ),
    (
        "zh",
        "步时是它的 1.09 倍",
        lambda: f"步时是它的 {_over_best(LLAMA3_70B_FP8)[0]:.2f} 倍",
    ),
    (
        "en",
        "the published layout takes 1.09x its step",
        lambda: f"the published layout takes {_over_best(LLAMA3_70B_FP8)[0]:.2f}x its step",
    ),
    ("zh", "差距在 1.1 倍以内", lambda: f"差距在 {_within(_over_best(*_MTNLG), 1)} 倍以内"),
    ("en", "the difference is within 1.1x", lambda: f"the difference is within {_within(_over_best(*_MTNLG), 1)}x"),
    (
        "zh",
        "延迟缩放每个 token 读写 180 KiB，当前缩放 324 KiB，MXFP8 约 276 KiB",
        lambda: "延迟缩放每个 token 读写 {:g} KiB，当前缩放 {:g} KiB，MXFP8 约 {:.0f} KiB".format(*_b200_fp8_kib()),
    ),
    (
        "en",
        "180 KiB read and written per token with delayed scaling, 324 KiB with current scaling, about 276 KiB "
        "with MXFP8",
        lambda: (
            "{:g} KiB read and written per token with delayed scaling, {:g} KiB with current scaling, about "
            "{:.0f} KiB with MXFP8".format(*_b200_fp8_kib())
        ),
    ),
    ("zh", "估算的提速比实测高 17% 到 50%", lambda: "估算的提速比实测高 {}% 到 {}%".format(*_face_value_excess()[:2])),
    ("zh", "11 对无一例外", lambda: f"{_face_value_excess()[2]} 对无一例外"),
    (
        "en",
        "17 % to 50 % above the measured one, on all eleven pairs",
        lambda: "{} % to {} % above the measured one, on all {} pairs".format(
            *_face_value_excess()[:2], _NUMBER_WORDS[_face_value_excess()[2]]
        ),
    ),
]


@pytest.mark.parametrize(
    ("lang", "phrase", "computed"), PINS, ids=[f"{lang}:{phrase[:40]}" for lang, phrase, _ in PINS]
)
def test_lesson9_prose_quotes_the_computed_value(lang: str, phrase: str, computed: Callable[[], str]) -> None:
    text = _lesson(lang)
    assert phrase in text, f"lesson 9 ({lang}) no longer says {phrase!r}: update the prose and this table together"
    assert computed() == phrase


# --- Part A: the guides of lessons 0, 2, 4, 6 and 10, taught from at the projected size --------------------------

GUIDES = ROOT / "docs" / "instructor"
SRC = ROOT / "notebooks" / "src"
TAUGHT = ("00_index", "02_communication", "04_composition", "06_pipeline_scaling", "09_workbench", "10_serving")
TALKING_POINTS = {"zh": "## 讲解要点", "en": "## Talking points"}
CHECK_CALL = re.compile(r'check\("([a-z0-9]+\.[a-z0-9_]+)",\s*answer\)')


@cache
def _guide(lang: str, stem: str) -> str:
    """Guide ``stem`` in ``lang`` as written (read once for every test that reads it)."""
    return (GUIDES / lang / f"{stem}.md").read_text(encoding="utf-8")


def _talking_points(lang: str, stem: str) -> list[str]:
    """The bullets of a guide's talking-points section, each on one line (bold marks dropped)."""
    text = _guide(lang, stem)
    section = text.split(TALKING_POINTS[lang])[1].split("\n## ")[0]
    return [re.sub(r"\s+", " ", bullet).replace("**", "") for bullet in section.split("\n- ")[1:]]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("stem", TAUGHT)
def test_talking_points_leave_the_exercise_answers_to_the_learners(lang: str, stem: str) -> None:
    """A teacher says the talking points aloud during the lesson, before its exercises: a bullet that states an
    exercise's answer must say which exercise it answers (lesson 0 said 24 GiB = 25.77 GB in section 3, exercise
    0.1's answer; lesson 10 said Llama-3 70B's 320 KiB in section 2, exercise 10.1's; lesson 2's 1152, exercise 2.4's,
    did not say so)."""
    source = (SRC / f"{stem}.py").read_text(encoding="utf-8")
    answers = {eid: get_exercise(eid).expected_value() for eid in sorted(set(CHECK_CALL.findall(source)))}
    named = "练习" if lang == "zh" else "exercise"
    leaks = [
        (eid, form, bullet[:80])
        for bullet in _talking_points(lang, stem)
        for eid, value in answers.items()
        for form in answer_forms(value)
        if re.search(rf"(?<![\d.,]){re.escape(form)}(?!\d)", bullet) and named not in bullet.lower()
    ]
    assert leaks == []


def test_lesson0_gb_point_quotes_the_lessons_zero_table() -> None:
    """The DP row of lesson 0's ZeRO table: 16 bytes per parameter (ZeRO paper §3.1) of 7.5B parameters = 120 GB,
    which is 120e9 / 2**30 = 111.76 GiB, 7 % less."""
    gb = 16 * 7.5e9
    gib = gb / 2**30
    zh = f"每设备 {gb / 1e9:.2f} GB = **{gib:.2f} GiB**，相差 {round(100 * (gb / 1e9 / gib - 1))}%"
    en = f"120.00 GB = **{gib:.2f} GiB** per device, {round(100 * (gb / 1e9 / gib - 1))} % apart"
    assert zh in _guide_flat("zh", "00_index") and en in _guide_flat("en", "00_index")
    assert "25.77" not in _guide_flat("zh", "00_index").split("## 练习答案")[0]


def _guide_flat(lang: str, stem: str) -> str:
    """:func:`_guide` with its line breaks (and the spaces around them) as single spaces."""
    return re.sub(r"[ \t]*\n[ \t]*", " ", _guide(lang, stem))


def _kv_kib(model: ModelSpec, tp: int = 1) -> str:
    return f"{kv_cache_bytes(model, tokens=1, tp=tp) / 1024:.0f}"


def test_lesson10_kv_point_quotes_the_lessons_example() -> None:
    """Lesson 10's KV section works Llama-3 8B (70B is exercise 10.1): the guide's point quotes the 8B's figures as the
    lesson's tables print them (kv_cache_bytes: per token, as MHA, per GPU at TP 8 and TP 16)."""
    llama8 = MODELS["llama3-8b"]
    mha = ModelSpec(
        "llama3-8b-mha", llama8.layers, llama8.hidden, llama8.heads, llama8.ffn_hidden, llama8.vocab, llama8.seq_len
    )
    shape = f"2 · {llama8.layers} · {llama8.kv_heads} · {llama8.head_dim} · 2 = **{_kv_kib(llama8)} KiB**"
    zh, en = _guide_flat("zh", "10_serving"), _guide_flat("en", "10_serving")
    assert f"Llama-3 8B：{shape}。若是 MHA（{mha.kv_heads} 个 KV 头）则为 **{_kv_kib(mha)} KiB**" in zh
    assert f"Llama-3 8B: {shape} per token. With MHA ({mha.kv_heads} KV heads) it would be **{_kv_kib(mha)} KiB**" in en
    tp8, tp16 = _kv_kib(llama8, 8), _kv_kib(llama8, 16)
    assert f"（每 token **{tp8} KiB**）；TP = 16 仍是 **{tp16} KiB**" in zh
    assert f"(**{tp8} KiB** per token); at TP = 16 still **{tp16} KiB**" in en


def _mixtral_floors_ms() -> tuple[float, float]:
    """Mixtral 8x7B's weights floor at batch 1 on one H100 (coursekit's serving estimate) and the time to read every
    weight at the same bandwidth, ms."""
    mixtral, h100 = MODELS["mixtral-8x7b"], CLUSTERS["h100-8"]
    est = serving_estimate(mixtral, h100, batch=1, prompt_tokens=512, output_tokens=128)
    return est.weights_floor_s * 1e3, mixtral.num_params * 2 / h100.memory_bandwidth_bytes_per_s * 1e3


@pytest.mark.parametrize(
    ("lang", "guide", "printed"),
    [
        (
            "zh",
            "下限 {:.1f} ms，而不是读全部权重的 {:.1f} ms",
            "下限：{:.1f} ms（只读激活参数），读全部权重要 {:.1f} ms",
        ),
        (
            "en",
            "a floor of {:.1f} ms, not the {:.1f} ms all the weights would take",
            "H100: {:.1f} ms (active parameters only), not the {:.1f} ms of reading every weight",
        ),
    ],
)
def test_lesson10_prints_the_mixtral_floors_the_guide_quotes(lang: str, guide: str, printed: str) -> None:
    """The guide's 7.7 ms and 27.9 ms were nowhere on the lesson's screen; section 4's Mixtral cell prints them."""
    floors = _mixtral_floors_ms()
    assert guide.format(*floors) in _guide_flat(lang, "10_serving")
    notebook = executed(ROOT / "notebooks" / lang / "10_serving.ipynb")
    shown = " ".join(text for cell in notebook.cells for text in output_texts(cell))
    assert printed.format(*floors) in shown


#: (lesson, an English abbreviation, how the zh guide introduces it at its first use): Chinese term first, then the
#: English (lesson 2 said "nccl-tests 的 busbw", lesson 0 "树形和 NVLS 算法", lesson 10 "NCCL 的 LL 协议" bare).
ZH_FIRST_USE = [
    ("02_communication", "busbw", "总线带宽 (bus bandwidth, busbw)"),
    ("00_index", "NVLS", "在 NVSwitch 交换机内做归约的 NVLS"),
    ("10_serving", "LL", "LL（低时延）协议"),
]


@pytest.mark.parametrize(("stem", "term", "introduced"), ZH_FIRST_USE)
def test_zh_guides_introduce_an_english_term_at_its_first_use(stem: str, term: str, introduced: str) -> None:
    text = _guide("zh", stem)
    first = re.search(rf"(?<![A-Za-z]){term}(?![A-Za-z])", text)
    assert first is not None and introduced in text
    assert text.index(introduced) <= first.start() < text.index(introduced) + len(introduced)
