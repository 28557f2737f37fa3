"""Instructor review 21: every result figure of the lesson 9 guides is the one coursekit computes.

Review 20 left about 70 decimals of docs/instructor/{en,zh}/09_workbench.md unpinned. ``tools/guide_pins.py`` lists
the numbers of every guide that no test looks up; for lesson 9 its list held the figures below (besides release
numbers, model names and section numbers, which are not results). Each row here builds the guide's phrase from
coursekit (or, for a measured step, from the registered run's published figures), never from the guide; the guide
is compared with its whitespace runs collapsed, so a phrase may wrap anywhere in the Markdown.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from coursekit.planner import megatron_core_flops_per_step, megatron_core_model_flops_per_step, plan
from coursekit.planner.calibration import (
    ATTENTION_KERNEL_RATES,
    FP8_MATMUL_SHARE,
    MEASUREMENT_REPEATABILITY,
    MOE_LAYER_HOST_S,
    matmul_fraction,
)
from coursekit.planner.validation import PASS_STEP_OVER_BEST_MAX, PASS_THROUGHPUT_TOLERANCE
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import all_published_runs
from coursekit.specs import EP_A2A_OVERLAP_ON
from tests.test_instructor_published_runs import EP32, FSDP, OVERLAP, TP4, ZOO, _c, _explained, _x, _zoo_tp4_last

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ROOT / "docs" / "instructor"
#: Causal attention computes half the query-key pairs (each query sees the keys up to itself): hand-worked.
CAUSAL_HALF = 0.5
PP32 = "all-to-all, EP 8, PP 32"
GRAPHS = OVERLAP + ", CUDA graphs"


def _flat(lang: str, stem: str) -> str:
    return re.sub(r"\s+", " ", (GUIDES / lang / f"{stem}.md").read_text(encoding="utf-8"))


def _run(name: str):  # type: ignore[no-untyped-def]
    return next(run for run in all_published_runs() if run.name == name)


@cache
def _zoo_measured_s(label: str) -> float:
    """The measured step of the ModelZoo's 4K row ``label``: the table's step time as registered in the run's note;
    the CUDA-graph row gives none, so its 320 TFLOP/s in Megatron-Core's 2025 count."""
    run = _run(ZOO.format("4K", label))
    found = re.search(r"([\d.]+) s a step", str(run.note.en)) if run.note is not None else None
    if found:
        return float(found.group(1))
    count = megatron_core_model_flops_per_step(MODELS[run.model], run.global_batch, run.seq_len, "2025", tp=2)
    return float(count / (run.measured_tflops_per_gpu * 1e12 * run.gpus))


def _zoo(*labels: str) -> list[str]:
    return [f"{_zoo_measured_s(label):.1f}" for label in labels]


def _both_tied() -> str:
    """The one figure for the overlap row and the FSDP row, which the guide says measured the same."""
    overlap, fsdp = _zoo(OVERLAP, FSDP)
    return overlap if overlap == fsdp else f"{overlap} and {fsdp}"


@cache
def _nemotron340_gib() -> tuple[str, str]:
    """Nemotron-4 340B's published interleaved layout without recomputation: memory with FP8 saved inputs, and with
    every saved activation at 16 bits (GiB)."""
    run = next(run for run in all_published_runs() if run.model == "nemotron4-340b")
    gib = {
        precision: plan(
            MODELS[run.model],
            CLUSTERS[run.cluster].with_nodes(run.nodes),
            dataclasses.replace(run.workload(), precision=precision),
        )
        .explain("tp=8,pp=8,dp=2,v=12,zero=1,mb=1,recompute=none")
        .memory.total_gib
        for precision in ("fp8", "bf16")
    }
    return f"{gib['fp8']:.1f}", f"{gib['bf16']:.1f}"


def _qwen30_releases() -> tuple[str, str]:
    """Megatron-Bridge's Qwen3 30B-A3B at 26.02: estimated over measured throughput; and how far apart the 26.02 and
    26.02.01 releases measured the same layout."""
    name = "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, GBS 1024, {})"
    old, new = _c(name.format("26.02")), _c(name.format("26.02.01"))
    assert old.layout == new.layout and not old.passes and new.passes
    return _x(old.estimated_over_published), _x(new.published / old.published)


def _dgx_dsv3_all_to_all() -> str:
    """DGX Cloud's DeepSeek-V3 at its published layout: the EP all-to-all a step (s)."""
    explained = _explained("DGX Cloud DeepSeek-V3 (MoE), 4K, 1024 H100 (BF16)")[1]
    return f"{ {row.dimension: row.time_s for row in explained.communication}['EP']:.1f}"


def _mixtral_dense_share() -> str:
    """The dense GPT-layer formula's count of Mixtral 8x7B over Megatron-Core's own count (per token)."""
    model = MODELS["mixtral-8x7b"]
    dense = megatron_core_flops_per_step(model.layers, model.hidden, 1, model.vocab, 4096)
    return _x(dense / megatron_core_model_flops_per_step(model, 1, 4096))


def _attention() -> dict[str, str]:
    fa3, fa2 = ATTENTION_KERNEL_RATES["flash-attention-3"], ATTENTION_KERNEL_RATES["flash-attention-2"]
    return {
        "fa3": f"{fa3:.3f}",
        "fa2": f"{fa2:.3f}",
        "cudnn": f"{ATTENTION_KERNEL_RATES['cudnn']:.3f}",
        "fa2_of_fa3": _x(fa2 / fa3),
        "fa3_cost": _x(CAUSAL_HALF / fa3),
        "fa2_cost": _x(CAUSAL_HALF / fa2),
    }


def _tp4() -> tuple[str, str]:
    step, wait = _zoo_tp4_last("{:.1f}|{:.1f}").split("|")
    return step, wait


def _pct(fraction: float, digits: int = 1) -> str:
    return f"{100 * fraction:.{digits}f}"


WORKBENCH: list[tuple[str, str, Callable[[], list[str]]]] = [
    ("en", "EP 32 with the overlap and EP 8 with FSDP, both {} s, estimated", lambda: [_both_tied()]),
    ("zh", "ModelZoo 打开重叠的 EP 32 与用 FSDP 的 EP 8，实测都是 {} s", lambda: [_both_tied()]),
    (
        "en",
        "within {}x of the best and within ±{} % of the reported throughput",
        lambda: [f"{PASS_STEP_OVER_BEST_MAX:g}", _pct(PASS_THROUGHPUT_TOLERANCE, 0)],
    ),
    (
        "zh",
        "在最优的 {} 倍以内、吞吐在 ±{}% 以内",
        lambda: [f"{PASS_STEP_OVER_BEST_MAX:g}", _pct(PASS_THROUGHPUT_TOLERANCE, 0)],
    ),
    ("en", "the B200's measured best-matmul share, {} %.", lambda: [_pct(matmul_fraction(2250e12))]),
    ("zh", "B200 实测的最佳矩阵乘份额 {}%。", lambda: [_pct(matmul_fraction(2250e12))]),
    ("en", "without recomputation ({} GiB, {} GiB counted at 16 bits)", lambda: list(_nemotron340_gib())),
    ("zh", "发表的交错调度不重计算就放得下（{} GiB，按 16 位记是 {} GiB）", lambda: list(_nemotron340_gib())),
    ("en", "so the estimate lets FP8 matmuls keep {} of it", lambda: [f"{FP8_MATMUL_SHARE:.3f}"]),
    ("zh", "估算于是让 FP8 矩阵乘只保留翻倍提速的 {}（", lambda: [f"{FP8_MATMUL_SHARE:.3f}"]),
    (
        "en",
        "the 26.02 release's row of the same model at {}x while 26.02.01's identical layout passes (the two releases "
        "measured {}x apart)",
        lambda: list(_qwen30_releases()),
    ),
    (
        "zh",
        "同一模型 26.02 版的一行是 {} 倍，而 26.02.01 版完全相同的布局通过了（两个版本实测相差 {} 倍）",
        lambda: list(_qwen30_releases()),
    ),
    (
        "en",
        "the estimate hides the share of it measured on the ModelZoo rows below ({})",
        lambda: [_x(EP_A2A_OVERLAP_ON)],
    ),
    ("zh", "估算按下面 ModelZoo 两行实测出的份额（{}）", lambda: [_x(EP_A2A_OVERLAP_ON)]),
    (
        "en",
        "none beat EP 32 with the overlap ({} s): with FSDP it tied ({} s), while PP 32 ({} s) and TP 4 ({} s) were "
        "slower even than EP 32 without the overlap ({} s)",
        lambda: _zoo(OVERLAP, FSDP, PP32, TP4, EP32),
    ),
    (
        "zh",
        "没有一个快过打开重叠的 EP 32（{} s）： 用 FSDP 的持平（{} s），PP 32（{} s）与 TP 4（{} s）甚至比不开重叠的 "
        "EP 32（{} s）还慢",
        lambda: _zoo(OVERLAP, FSDP, PP32, TP4, EP32),
    ),
    (
        "en",
        "in tie group 1 and within {} % — twice the {} % root-mean-square",
        lambda: [_pct(MEASUREMENT_REPEATABILITY), _pct(MEASUREMENT_REPEATABILITY / 2, 2)],
    ),
    ("zh", "在第 1 并列组，而且相差不到 {}%", lambda: [_pct(MEASUREMENT_REPEATABILITY)]),
    (
        "en",
        "two runs of one configuration differ by {} % root-mean-square, so the difference of two n-run means has a "
        "spread of about {} %/√n",
        lambda: [_pct(MEASUREMENT_REPEATABILITY / 2)] * 2,
    ),
    (
        "zh",
        "同一配置跑两次相差 {}%（均方根），n 次平均之差的离散约为 {}%/√n",
        lambda: [_pct(MEASUREMENT_REPEATABILITY / 2)] * 2,
    ),
    ("en", "EP 64 spans 8 nodes and {} s of all-to-all a step go unhidden", lambda: [_dgx_dsv3_all_to_all()]),
    ("zh", "EP 64 跨 8 个节点，每步 {} s 的 全对全不重叠", lambda: [_dgx_dsv3_all_to_all()]),
    ("en", "the dense-GPT formula would count {}x of it", lambda: [_mixtral_dense_share()]),
    ("zh", "按稠密 GPT 的公式只数得到它的 {} 倍", lambda: [_mixtral_dense_share()]),
    (
        "en",
        "the measured order is CUDA graphs {} s < EP 32 with the 1F1B overlap {} s = EP 8 with FSDP {} s < EP 32 {} s "
        "< PP 32 {} s < TP 4 {} s; the estimate puts TP 4 last ({} s, {} s of it waiting for the host)",
        lambda: [*_zoo(GRAPHS, OVERLAP, FSDP, EP32, PP32, TP4), *_tp4()],
    ),
    (
        "zh",
        "CUDA 图 {} s < 打开 1F1B 重叠的 EP 32 {} s = 用 FSDP 的 EP 8 {} s < EP 32 {} s < PP 32 {} s < TP 4 {} s； "
        "估算也把 TP 4 排在最后（{} s，其中 {} s 在等主机）",
        lambda: [*_zoo(GRAPHS, OVERLAP, FSDP, EP32, PP32, TP4), *_tp4()],
    ),
    ("en", "the host's time to launch it ({} ms forward and backward", lambda: [f"{MOE_LAYER_HOST_S * 1e3:.1f}"]),
    ("zh", "（前向加反向 {} ms，", lambda: [f"{MOE_LAYER_HOST_S * 1e3:.1f}"]),
    (
        "en",
        "FlashAttention-3's measured speed ({} of the best matmul on 4K to 16K tokens, so {} of a linear-layer FLOP "
        "per counted FLOP",
        lambda: [_attention()["fa3"], _attention()["fa3_cost"]],
    ),
    (
        "zh",
        "4K 到 16K 个 token 时是最佳矩阵乘的 {}，所以每计一个 FLOP 花 {} 个线性层 FLOP",
        lambda: [_attention()["fa3"], _attention()["fa3_cost"]],
    ),
    (
        "en",
        "the estimate has TP 4 waiting {} s for the host and counts the overlap at {}, both fitted",
        lambda: [_tp4()[1], _x(EP_A2A_OVERLAP_ON)],
    ),
    ("zh", "估算里 TP 4 有 {} s 在等主机，重叠只按 {} 计", lambda: [_tp4()[1], _x(EP_A2A_OVERLAP_ON)]),
    (
        "en",
        '`attention_kernel="flash-attention-2"`: {} of the best matmul, {} of FlashAttention-3, so {} instead of {} '
        'linear-layer FLOPs per counted FLOP of the core (`"cudnn"`: {})',
        lambda: [_attention()[k] for k in ("fa2", "fa2_of_fa3", "fa2_cost", "fa3_cost", "cudnn")],
    ),
    (
        "zh",
        '`attention_kernel="flash-attention-2"`：最佳矩阵乘的 {}，只有 FlashAttention-3 的 {}，所以注意力核心每计一个 '
        'FLOP 花 {} 个线性层 FLOP，而不是 {}（`"cudnn"`：{}）',
        lambda: [_attention()[k] for k in ("fa2", "fa2_of_fa3", "fa2_cost", "fa3_cost", "cudnn")],
    ),
    (
        "en",
        "at {} linear-layer FLOPs per counted FLOP with FlashAttention-2 against {} with the default FlashAttention-3",
        lambda: [_attention()["fa2_cost"], _attention()["fa3_cost"]],
    ),
    (
        "zh",
        "按 FlashAttention-2 计每个注意力 FLOP 花 {} 个线性层 FLOP，按默认的 FlashAttention-3 只花 {}",
        lambda: [_attention()["fa2_cost"], _attention()["fa3_cost"]],
    ),
]


@pytest.mark.parametrize(
    ("lang", "template", "values"), WORKBENCH, ids=[f"{row[0]}:{row[1][:40]}" for row in WORKBENCH]
)
def test_workbench_guide_figures_are_coursekits(lang: str, template: str, values: Callable[[], list[str]]) -> None:
    phrase = template.format(*values())
    assert phrase in _flat(lang, "09_workbench"), f"{lang}/09_workbench.md does not say: {phrase!r}"


def test_every_language_pins_the_same_workbench_figures() -> None:
    # the zh and en rows of the table come in pairs that quote the same values (zh's 4.5 % row quotes one of two)
    langs = [row[0] for row in WORKBENCH]
    assert langs.count("en") == langs.count("zh") == len(WORKBENCH) // 2


#: Typical slips the guides' exercise notes quote: (guide, exercise, the checker's slip code, decimals shown). The
#: number is the wrong answer the slip computes (its ``alternative``, the expected value times its ``factor``, or for
#: a KiB-for-bytes answer the expected value over 1024), and the checker must name that slip for it.
SLIPS = [
    ("00_index", "intro.device_gb", "divided", 2),
    ("02_communication", "q2.allreduce_ms", "no_latency", 3),
    ("06_pipeline_scaling", "pipeline.bubble_p4_m16", "overhead_not_fraction", 4),
    ("06_pipeline_scaling", "pipeline.bubble_p4_m16", "percent_vs_fraction", 1),
    ("06_pipeline_scaling", "pipeline.efficiency", "speed_up_not_efficiency", 1),
    ("06_pipeline_scaling", "pipeline.efficiency", "inverted", 2),
    ("07_compute_efficiency", "eff.h200_ridge", "h100_figures", 1),
    ("07_compute_efficiency", "eff.megatron_mfu", "hfu_for_mfu", 3),
    ("08_lab", "lab.busbw_gib_s", "algbw", 1),
    ("08_lab", "lab.crossover_bytes", "kib_for_bytes", 1),
]


def _slip_value(exercise_id: str, code: str) -> float:
    from coursekit.exercises import get_exercise

    exercise = get_exercise(exercise_id)
    slip = next(slip for slip in exercise.slips if slip.code == code)
    if slip.alternative is not None:
        return float(slip.alternative())
    if code == "kib_for_bytes":
        return float(exercise.expected_value()) / 1024
    assert slip.factor is not None, code
    return float(exercise.expected_value()) * slip.factor


def _exercise_note(text: str, exercise_id: str) -> str:
    """The guide's row or bullet on ``exercise_id``: from its id to the next row, bullet or paragraph."""
    start = text.index(f"`{exercise_id}`")
    ends = [i for i in (text.find(mark, start) for mark in ("\n|", "\n- ", "\n\n")) if i >= 0]
    return text[start : min(ends, default=len(text))]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("stem", "exercise_id", "code", "digits"), SLIPS, ids=[f"{row[1]}:{row[2]}" for row in SLIPS])
def test_guide_slips_are_what_the_checker_names(lang: str, stem: str, exercise_id: str, code: str, digits: int) -> None:
    import coursekit
    from coursekit.exercises import check

    shown = f"{_slip_value(exercise_id, code):.{digits}f}"
    note = _exercise_note((GUIDES / lang / f"{stem}.md").read_text(encoding="utf-8"), exercise_id)
    assert re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d])", note), f"{lang}/{stem}.md, {exercise_id}: no {shown}"
    coursekit.set_language(lang)
    try:
        assert check(exercise_id, float(shown)).slip == code
    finally:
        coursekit.set_language("en")


def test_compute_efficiency_guide_palm_mfu_counting_6n_only() -> None:
    # PaLM (Chowdhery et al. 2022, section 5 and Table 3): 540.35B parameters, 238.3K tokens/s on 6144 TPU v4 chips;
    # counting 6N FLOPs a token (no attention term), the MFU the guide puts beside the full count's 46.2 %
    from coursekit import roofline as rl
    from coursekit.hardware import TPU_V4_BF16_FLOPS

    six_n = rl.mfu(6 * 540.35e9, 238.3e3, 6144, TPU_V4_BF16_FLOPS)
    assert f"（只数 6N 是 {100 * six_n:.1f}%）" in _flat("zh", "07_compute_efficiency")
    assert f"({100 * six_n:.1f} % counting 6N only)" in _flat("en", "07_compute_efficiency")


def test_compute_efficiency_guide_quotes_the_datasheet_bandwidths() -> None:
    # the ridge points' inputs: A100 80GB SXM 2,039 GB/s and H100 SXM 3.35 TB/s, as coursekit.hardware holds them
    from coursekit.hardware import A100_80GB_HBM_BYTES_PER_S, H100_HBM_BYTES_PER_S

    for lang in ("zh", "en"):
        text = _flat(lang, "07_compute_efficiency")
        for bandwidth in (A100_80GB_HBM_BYTES_PER_S, H100_HBM_BYTES_PER_S):
            assert f"{bandwidth / 1e12:.2f} TB/s" in text, (lang, bandwidth)


def _passing(names: list[str]) -> int:
    comparisons = [_c(name) for name in names]
    return sum(c.passes for c in comparisons)


def _dgx_cloud() -> list[str]:
    """DGX Cloud v24.11.1: rows, dense rows and how many pass, Llama 3.1 405B's two ranks, Nemotron-4 15B's two
    percentages behind the best and ranks (the guide's wording holds while every dense row passes)."""
    from coursekit.published_runs import DGXC_RUNS

    names = [run.name for run in DGXC_RUNS]
    dense = [name for name in names if "(MoE)" not in name]
    if _passing(dense) != len(dense):
        return ["a dense row misses"]
    llama405 = [_c(name).rank for name in dense if "405B" in name]
    nemotron15 = [_c(name) for name in dense if "Nemotron-4 15B" in name]
    assert all(c.step_over_best is not None for c in nemotron15)
    behind = [round(100 * (c.step_over_best - 1)) for c in nemotron15]  # type: ignore[operator]
    return [str(v) for v in (len(names), len(dense), *llama405, *behind, *(c.rank for c in nemotron15))]


def _long_context_rows() -> list[str]:
    from coursekit.published_runs import NEMO_LONG_CONTEXT_RUNS

    names = [run.name for run in NEMO_LONG_CONTEXT_RUNS]
    return [str(len(names))] if _passing(names) == len(names) else ["a long-sequence row misses"]


def _megatron_core_gpt() -> list[str]:
    names = [name for name in (run.name for run in all_published_runs()) if name.startswith("Megatron-Core GPT ")]
    return [str(len(names))] if _passing(names) == len(names) else ["a Megatron-Core row misses"]


def _gpt119_stages() -> list[str]:
    """Megatron-Core's GPT 119B: its layers, its PP and the layers a stage."""
    run = _run("Megatron-Core GPT 119B, 4K, 1536 H100")
    layers, pp = run.model_spec().layers, dict(run.degrees)["pp"]
    return [str(layers), str(pp), str(layers // pp)]


#: Transformer Engine's per-tensor FP8 scalings that run on an H100.
RECIPES = ("delayed", "current")


def _fp8_cast_shares() -> list[str]:
    """Transformer Engine's FP8 casts on a Llama 3 8B layer, as a share of the layer's matmul time at the H100's FP8
    peak, with delayed and current scaling (the lesson's cell, redone)."""
    from coursekit.planner.estimate import fp8_quantisation_bytes_per_token

    model, h100 = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    matmul_s = 6 * (model.dense_params_per_layer - 2 * model.hidden) / h100.peak("fp8")
    bandwidth = h100.memory_bandwidth_bytes_per_s
    shares = (fp8_quantisation_bytes_per_token(model, recipe).dense_layer / bandwidth / matmul_s for recipe in RECIPES)
    return [f"{share:.0%}" for share in shares]


def _tp4_layer_passes() -> list[str]:
    """The ModelZoo's TP 4 row at its published layout: MoE layer passes a step on its busiest stage (micro-batches a
    step times that stage's layers), each of which waits for the host."""
    explained = _explained(ZOO.format("4K", TP4))[1]
    return [str(explained.grad_accum * max(explained.stage_layers))]


WORKBENCH_COUNTS: list[tuple[str, str, Callable[[], list[str]]]] = [
    (
        "en",
        "in BF16 and FP8: {} rows. All {} dense rows pass (the two Llama 3.1 8B rows fit the FP8 matmul share; Llama "
        "3.1 405B on 576 GPUs ranks {}th and {}rd); Nemotron-4 15B's two rows are {} % and {} % behind the best "
        "estimate and rank {}th and {}th",
        _dgx_cloud,
    ),
    (
        "zh",
        "BF16 与 FP8 的每步时间，共 {} 行。 {} 个稠密配置全部通过（Llama 3.1 8B 两行用来标定 FP8 矩阵乘份额；"
        "576 张卡上的 Llama 3.1 405B 排第 {} 和第 {} 名）；"
        "Nemotron-4 15B 的两行只比估算最优慢 {}% 和 {}%，排第 {} 和第 {} 名",
        _dgx_cloud,
    ),
    ("en", "All {} rows of NeMo's long-sequence table", _long_context_rows),
    ("zh", "每 1K token 一张卡）的 {} 行都通过", _long_context_rows),
    ("en", "Megatron-Core's own FLOP count: all {} pass", _megatron_core_gpt),
    ("zh", "Megatron-Core 自己的 FLOP 计数比较 TFLOP/s：{} 行全部通过", _megatron_core_gpt),
    ("en", "The 119B row is worth a minute: {} layers over PP {} leave {} layers a stage", _gpt119_stages),
    ("zh", "119B 那一行值得讲一分钟：{} 层分成 PP {}，每段 {} 层", _gpt119_stages),
    ("en", "are memory-bound passes, {} and {} of a Llama 3 8B layer's matmul time", _fp8_cast_shares),
    ("zh", "在 Llama 3 8B 的一层上相当于按 FP8 峰值算的矩阵乘时间的 {} 和 {}", _fp8_cast_shares),
    ("en", "TP 4's {} thin layer passes a step are shorter on the GPU", _tp4_layer_passes),
    ("zh", "TP 4 每步 {} 次很薄的层计算", _tp4_layer_passes),
]


@pytest.mark.parametrize(
    ("lang", "template", "values"), WORKBENCH_COUNTS, ids=[f"{row[0]}:{row[1][:40]}" for row in WORKBENCH_COUNTS]
)
def test_workbench_guide_counts_are_coursekits(lang: str, template: str, values: Callable[[], list[str]]) -> None:
    phrase = template.format(*values())
    assert phrase in _flat(lang, "09_workbench"), f"{lang}/09_workbench.md does not say: {phrase!r}"


def test_communication_demo_latency_presses_and_table_crossover_are_the_widgets() -> None:
    # lesson 2's demo step 3 halves the latency with two presses of the left arrow from the 5 µs default: the two
    # slider stops below it; step 4's intra-node crossover "the table's 1.459" (review 20 pinned it in zh only)
    from coursekit.widgets.communication import LATENCY_STOPS_US, CommunicationWidget

    widget = CommunicationWidget()
    start = widget.controls["latency_us"].value
    below = [stop for stop in LATENCY_STOPS_US if stop < start][::-1][:2]
    presses = " → ".join(f"{value:g}" for value in (start, *below))
    widget.controls["link"].value = "intra_node"
    intra = widget.compute(**{name: control.value for name, control in widget.controls.items()})
    en, zh = _flat("en", "02_communication"), _flat("zh", "02_communication")
    assert f"two presses of the left arrow: {presses} µs" in en
    assert f"按两次左方向键：{presses} µs" in zh
    assert f"(the widget's rounding of the table's {intra.crossover_mib:.3f};" in en


def test_the_pin_lister_reports_the_numbers_no_looked_up_phrase_covers() -> None:
    # tools/guide_pins.py's matcher on a hand-made guide: a phrase covers the numbers inside it even where the guide
    # wraps it over two lines; a number only partly inside a phrase ("12.5" against "2.5") stays unpinned
    import importlib.util

    spec = importlib.util.spec_from_file_location("guide_pins", ROOT / "tools" / "guide_pins.py")
    assert spec is not None and spec.loader is not None
    guide_pins = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(guide_pins)
    text = "The step is 33.0 s and\n  the bubble 27.3 %.\nThen 12.5 and 7 more.\n"
    looked_up = {"33.0 s and the bubble 27.3 %", "2.5 and", "no digits"}
    assert [(line, number) for line, number, _ in guide_pins.unpinned(text, looked_up)] == [(3, "12.5"), (3, "7")]


#: An exercise answer in a guide: a table row ``| 1.1 `q1.zero2_gib` | 26.19 GiB | ...`` or a bullet
#: ``- `q4.dp_group` (exercise 4.1) → `[5, 7]`.``; the answer is the cell's first bold or code span, else its
#: first word.
_ANSWER_ROW = re.compile(r"^\| (?:[\d.]+ )?`([a-z0-9_]+\.[a-z0-9_]+)` \| (.*?) \|", re.M)
_ANSWER_BULLET = re.compile(r"^- `([a-z0-9_]+\.[a-z0-9_]+)`(?: ?[(（](?:exercise|练习) [\d.]+[)）])? ?→ (.*)$", re.M)


def _shown_answer(cell: str) -> str:
    found = re.search(r"\*\*([^*]+)\*\*|`([^`]+)`", cell)
    shown = next(group for group in found.groups() if group) if found else cell.split()[0]
    return shown.rstrip("×.。").strip()


def _answer_matches(shown: str, expected: object) -> bool:
    import ast

    if isinstance(expected, bool) or not isinstance(expected, (int, float)):
        try:
            return ast.literal_eval(shown) == expected
        except (ValueError, SyntaxError):
            return shown == str(expected)
    number = re.match(r"-?\d+(?:\.(\d+))?$", shown.replace(",", ""))
    if number is None:
        return False
    decimals = len(number.group(1) or "")
    return f"{expected:.{decimals}f}" == shown.replace(",", "")


def _guide_answers() -> list[tuple[str, str, str, str]]:
    rows = []
    for lang in ("zh", "en"):
        for path in sorted((GUIDES / lang).glob("[0-9][0-9]_*.md")):
            text = path.read_text(encoding="utf-8")
            for found in (*_ANSWER_ROW.finditer(text), *_ANSWER_BULLET.finditer(text)):
                rows.append((lang, path.stem, found.group(1), _shown_answer(found.group(2))))
    return rows


def test_the_answer_reader_by_hand() -> None:
    assert _shown_answer("3/19 ≈ **0.158** | x") == "0.158"
    assert _shown_answer("`[5, 7]`. TP fastest") == "[5, 7]"
    assert _shown_answer("26.19 GiB") == "26.19"
    assert _shown_answer("**1.029**× (the fastest") == "1.029"
    assert _answer_matches("0.158", 3 / 19) and not _answer_matches("0.159", 3 / 19)
    assert _answer_matches("[5, 7]", [5, 7]) and _answer_matches('"TP"', "TP") and not _answer_matches("B", "A")


def test_every_exercise_answer_a_guide_states_is_the_checkers() -> None:
    from coursekit.exercises import get_exercise

    answers = _guide_answers()
    # every lesson with exercises states its answers in both languages, under the same ids
    by_lang = {lang: sorted((stem, eid) for lang_, stem, eid, _ in answers if lang_ == lang) for lang in ("zh", "en")}
    assert by_lang["zh"] == by_lang["en"] and len(by_lang["en"]) >= 30
    wrong = [
        (lang, stem, eid, shown, get_exercise(eid).expected_value())
        for lang, stem, eid, shown in answers
        if not _answer_matches(shown, get_exercise(eid).expected_value())
    ]
    assert wrong == []


def test_selection_matrix_case_answers_are_the_checkers() -> None:
    # lesson 5's three cases are tabled three exercises to a row ("`matrix.case1_dp` … `case1_pp`"), which the row
    # reader above does not take: each row against the checker's expected values, verdicts by code (en) or label (zh)
    from coursekit.exercises import get_exercise
    from coursekit.matrix import VERDICT_LABELS

    def expected(case: int, key: str) -> object:
        return get_exercise(f"matrix.case{case}_{key}").expected_value()

    for lang, comma in (("en", ", "), ("zh", "、")):
        text = _flat(lang, "05_selection_matrix")
        gib = " / ".join(f"{expected(case, 'state_gib'):.1f}" for case in (1, 2, 3))
        assert f"| `matrix.case1_state_gib` … `case3_state_gib` | **{gib} GiB**" in text, lang
        kinds = comma.join(f"`{expected(case, 'kind')}`" for case in (1, 2, 3))
        assert f"| `matrix.case1_kind` … `case3_kind` | {kinds} |" in text, lang
        for case in (1, 2, 3):
            codes = [str(expected(case, key)) for key in ("dp", "fsdp", "tp", "pp")]
            shown = codes if lang == "en" else [VERDICT_LABELS[code].zh for code in codes]
            row = f"| `matrix.case{case}_dp` … `case{case}_pp` | {' · '.join(shown)} |"
            assert row in text, (lang, row)


def test_remaining_exercise_notes_are_the_checkers() -> None:
    # numbers in the guides' exercise notes and talking points that no test read (tools/guide_pins.py): lesson 0's
    # 25.77 GB talking point, lesson 6's "0.27 (the fraction, not a time)", lesson 7's decode intensity 15.9 in the
    # answer to 7.5, and lesson 5's "128.0 gets a must-be-an-integer message"
    import coursekit
    from coursekit import roofline as rl
    from coursekit.exercises import check, get_exercise
    from coursekit.exercises.lesson6 import timeline_exercise

    gb = f"{get_exercise('intro.device_gb').expected_value():.2f}"
    timeline = timeline_exercise()
    fraction = f"{timeline.bubble_s / (timeline.compute_s + timeline.bubble_s):.2f}"
    thin = f"{rl.matmul_intensity_flop_per_byte(16, 8192, 8192):.1f}"
    max_dp = get_exercise("matrix.max_dp").expected_value()
    # the 25.77 GB is the answer table's now: the talking point gave exercise 0.1 away (review 23)
    row = f"| `intro.device_gb` | **{gb}** GB = 24 × 2^30 / 10^9 |"
    assert row in _flat("en", "00_index") and row in _flat("zh", "00_index")
    assert f"| {fraction} (the fraction, not a time) |" in _flat("en", "06_pipeline_scaling")
    assert f"| {fraction}（比例，不是时间） |" in _flat("zh", "06_pipeline_scaling")
    assert f"→ `0.05383`. Intensity {thin} FLOP/byte" in _flat("en", "07_compute_efficiency")
    assert f"→ `0.05383`。计算强度 {thin} FLOP/字节" in _flat("zh", "07_compute_efficiency")
    assert f"{get_exercise('eff.decode_share').expected_value():.5f}" == "0.05383"
    assert f'{float(max_dp):.1f} gets a "must be an integer" message' in _flat("en", "05_selection_matrix")
    assert f"写成 {float(max_dp):.1f} 会得到“必须是整数”的提示" in _flat("zh", "05_selection_matrix")
    for lang in ("en", "zh"):
        coursekit.set_language(lang)
        try:
            assert check("matrix.max_dp", float(max_dp)).status == "invalid"
        finally:
            coursekit.set_language("en")
