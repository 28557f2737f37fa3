"""Numbers quoted in lesson prose are pinned to what coursekit computes.

Each row: a lesson source, a phrase of its prose, and the coursekit value the phrase quotes.
When the prose or the library changes, this test says which sentence is now wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

import coursekit
import coursekit.matrix
from tests.serving_default import library_estimate

SRC = Path(__file__).resolve().parents[1] / "notebooks" / "src"


def _lora_ratios() -> tuple[str, str]:
    """The lowest and highest estimated ÷ published throughput of NeMo 24.07's LoRA rows, to 2 places."""
    from coursekit.planner import compare_published
    from coursekit.published_runs import NEMO_2407_LORA_RUNS

    ratios = [compare_published(run).estimated_over_published for run in NEMO_2407_LORA_RUNS]
    return f"{min(ratios):.2f}", f"{max(ratios):.2f}"  # type: ignore[type-var]


def _sft_ratios() -> tuple[str, str]:
    """The lowest and highest estimated ÷ published throughput of NeMo 24.07's SFT rows, to 2 places."""
    from coursekit.planner import compare_published
    from coursekit.published_runs import NEMO_2407_SFT_RUNS

    ratios = [compare_published(run).estimated_over_published for run in NEMO_2407_SFT_RUNS]
    return f"{min(ratios):.2f}", f"{max(ratios):.2f}"  # type: ignore[type-var]


def _llama2_70b_eighth() -> tuple[float, float]:
    """:func:`_llama2_70b_eighth_gb` in GB and in GiB."""
    gb = _llama2_70b_eighth_gb()
    return gb, gb * 1e9 / 2**30


def _llama2_70b_eighth_gb() -> float:
    """An eighth of Llama 2 70B's parameters at 16 bytes each (2 + 2 + 12: weights, gradients, Adam), in GB."""
    from coursekit.presets import MODELS

    return MODELS["llama2-70b"].num_params / 8 * 16 / 1e9


def _dsv3() -> tuple[str, str, str, int | None]:
    """DeepSeek-V3's own run: estimated ÷ reported throughput, step ÷ the best estimate, rank (2 places)."""
    from coursekit.planner import compare_published
    from coursekit.presets import PUBLISHED_RUNS

    c = compare_published(next(run for run in PUBLISHED_RUNS if run.name == "DeepSeek-V3 (MoE), 2048 H800 GPUs"))
    return f"{c.estimated_over_published:.2f}", f"{c.step_over_best:.2f}", str(c.tie_group), c.rank


def _dsv3_gib(experts_outputs_kept: bool) -> str:
    from tests.test_instructor_published_runs import _dsv3_without_full_recompute_gib

    return f"{_dsv3_without_full_recompute_gib(experts_outputs_kept):.1f}"


def _percent(value: float) -> str:
    return f"{round(100 * value)}%"


def _percent1(value: float) -> str:
    """A percentage to one decimal, as the table next to the prose prints it (``f"{value:.1%}"``)."""
    return f"{value:.1%}"


PROSE: list[tuple[str, str, Callable[[], str]]] = [
    ("06_pipeline_scaling.py", "开销 75%", lambda: "开销 " + _percent(coursekit.bubble_overhead(4, 4))),
    ("06_pipeline_scaling.py", "overhead of 75%", lambda: "overhead of " + _percent(coursekit.bubble_overhead(4, 4))),
    ("06_pipeline_scaling.py", "比例就是 42.9%", lambda: "比例就是 " + _percent1(coursekit.bubble_fraction(4, 4))),
    ("06_pipeline_scaling.py", "it is 42.9%", lambda: "it is " + _percent1(coursekit.bubble_fraction(4, 4))),
    ("06_pipeline_scaling.py", "比例降到 15.8%", lambda: "比例降到 " + _percent1(coursekit.bubble_fraction(4, 16))),
    ("06_pipeline_scaling.py", "down to 15.8%", lambda: "down to " + _percent1(coursekit.bubble_fraction(4, 16))),
    ("06_pipeline_scaling.py", "m = 4 的 42.9%", lambda: "m = 4 的 " + _percent1(coursekit.bubble_fraction(4, 4))),
    ("06_pipeline_scaling.py", "(42.9% at m = 4", lambda: f"({_percent1(coursekit.bubble_fraction(4, 4))} at m = 4"),
    # lesson 5, case 3: TP alone vs TP x FSDP
    ("05_selection_matrix.py", "每个 rank 仍有 40 GiB", lambda: f"每个 rank 仍有 {_case3_state_share_gib():g} GiB"),
    ("05_selection_matrix.py", "leaves 40 GiB per rank", lambda: f"leaves {_case3_state_share_gib():g} GiB per rank"),
    ("05_selection_matrix.py", "共 43 GiB", lambda: f"共 {_case3_memory(8, 1):g} GiB"),
    ("05_selection_matrix.py", ", 43 GiB with", lambda: f", {_case3_memory(8, 1):g} GiB with"),
    ("05_selection_matrix.py", "+ 2 = 22.75 GiB", lambda: f"+ 2 = {_case3_memory(8, 4):g} GiB"),
    ("05_selection_matrix.py", "一层就有 26 GiB", lambda: f"一层就有 {_case3().largest_layer_gib:g} GiB"),
    (
        "05_selection_matrix.py",
        "one layer alone is 26 GiB",
        lambda: f"one layer alone is {_case3().largest_layer_gib:g} GiB",
    ),
    # lesson 6, the timeline exercise: the bubble is (p-1)/(m+p-1) = 3/11 of compute + bubble at p = 4, m = 8
    ("06_pipeline_scaling.py", "占它的 3/11", lambda: f"占它的 {_fraction(coursekit.bubble_fraction(4, 8))}"),
    ("06_pipeline_scaling.py", "is 3/11 of it", lambda: f"is {_fraction(coursekit.bubble_fraction(4, 8))} of it"),
    # lesson 9, LoRA fine-tuning: NeMo 24.07's three LoRA rows, and 16 bytes per parameter of an eighth of Llama 2 70B
    ("09_workbench.py", "估算是实测的 0.76 到 0.79 倍", lambda: "估算是实测的 {} 到 {} 倍".format(*_lora_ratios())),
    (
        "09_workbench.py",
        "is 0.76 to 0.79 of the measured",
        lambda: "is {} to {} of the measured".format(*_lora_ratios()),
    ),
    ("09_workbench.py", "估算是实测的 0.77 到 0.86 倍", lambda: "估算是实测的 {} 到 {} 倍".format(*_sft_ratios())),
    ("09_workbench.py", "the estimate at 0.77 to 0.86", lambda: "the estimate at {} to {}".format(*_sft_ratios())),
    (
        "09_workbench.py",
        "每参数 16 字节就是 138 GB（128.5 GiB）",
        lambda: "每参数 16 字节就是 {:.0f} GB（{:.1f} GiB）".format(*_llama2_70b_eighth()),
    ),
    (
        "09_workbench.py",
        "16 bytes per parameter, 138 GB (128.5 GiB)",
        lambda: "16 bytes per parameter, {:.0f} GB ({:.1f} GiB)".format(*_llama2_70b_eighth()),
    ),
    # lesson 9, section 8: the published Llama 3 405B runs (ZeRO-2, no recomputation, 8192 GPUs)
    (
        "09_workbench.py",
        "不做完全重计算就放得下（73.1 GiB）",
        lambda: f"不做完全重计算就放得下（{_dsv3_gib(False)} GiB）",
    ),
    ("09_workbench.py", "若保存专家输出，要 102.8 GiB", lambda: f"若保存专家输出，要 {_dsv3_gib(True)} GiB"),
    ("09_workbench.py", "估算吞吐是实测的 1.06 倍；", lambda: f"估算吞吐是实测的 {_dsv3()[0]} 倍；"),
    (
        "09_workbench.py",
        "发表的布局是它的 1.13 倍，排第 492 名，在第 1 并列组",
        lambda: "发表的布局是它的 {1} 倍，排第 {3} 名，在第 {2} 并列组".format(*_dsv3()),
    ),
    (
        "09_workbench.py",
        "fits without full recomputation (73.1 GiB)",
        lambda: f"fits without full recomputation ({_dsv3_gib(False)} GiB)",
    ),
    (
        "09_workbench.py",
        "keeping the experts' outputs it would need 102.8 GiB",
        lambda: f"keeping the experts' outputs it would need {_dsv3_gib(True)} GiB",
    ),
    (
        "09_workbench.py",
        "The estimated throughput is 1.06x the measured;",
        lambda: f"The estimated throughput is {_dsv3()[0]}x the measured;",
    ),
    (
        "09_workbench.py",
        "the published layout is 1.13x of it, rank 492, tie group 1",
        lambda: "the published layout is {1}x of it, rank {3}, tie group {2}".format(*_dsv3()),
    ),
    ("09_workbench.py", "不重计算每卡要 85 GiB", lambda: f"不重计算每卡要 {_llama3_8k_gib(4):.0f} GiB"),
    ("09_workbench.py", "at 85 GiB per GPU", lambda: f"at {_llama3_8k_gib(4):.0f} GiB per GPU"),
    ("09_workbench.py", "每卡 79 GiB，放得下", lambda: f"每卡 {_llama3_8k_gib(8):.0f} GiB，放得下"),
    ("09_workbench.py", "chunks, 79 GiB per GPU", lambda: f"chunks, {_llama3_8k_gib(8):.0f} GiB per GPU"),
    (
        "09_workbench.py",
        "1F1B 的 15/47 降到 15/271",
        lambda: (
            f"1F1B 的 {_fraction(coursekit.bubble_fraction(16, 32))} 降到 "
            f"{_fraction(coursekit.bubble_fraction(16, 32, 8))}"
        ),
    ),
    (
        "09_workbench.py",
        "1F1B's 15/47 to 15/271",
        lambda: (
            f"1F1B's {_fraction(coursekit.bubble_fraction(16, 32))} to "
            f"{_fraction(coursekit.bubble_fraction(16, 32, 8))}"
        ),
    ),
    # lesson 10, section 4: the weights floor of a mixture of experts
    ("10_serving.py", "129 亿，而不是全部 467 亿", lambda: "{:.0f} 亿，而不是全部 {:.0f} 亿".format(*_mixtral(1e8))),
    (
        "10_serving.py",
        "12.9 billion, not all 46.7 billion",
        lambda: "{:.1f} billion, not all {:.1f} billion".format(*_mixtral(1e9)),
    ),
    # lesson 10, section 11 and self-check 6: the widget's default layout in BF16 and in FP8 (W8A8)
    (
        "10_serving.py",
        "TTFT 从 66 ms 降到 48 ms，TPOT 从 12.7 ms 降到 10.1 ms",
        lambda: "TTFT 从 {:.0f} ms 降到 {:.0f} ms，TPOT 从 {:.1f} ms 降到 {:.1f} ms".format(*_serving_fp8_times()),
    ),
    (
        "10_serving.py",
        "TTFT falls from 66 ms to 48 ms and TPOT from 12.7 ms to 10.1 ms",
        lambda: "TTFT falls from {:.0f} ms to {:.0f} ms and TPOT from {:.1f} ms to {:.1f} ms".format(
            *_serving_fp8_times()
        ),
    ),
    ("10_serving.py", "5.27 + 1.70 + 5.75 = 12.72 ms", lambda: _serving_decode_terms("bf16")),
    ("10_serving.py", "2.63 + 1.70 + 5.75 = 10.08 ms", lambda: _serving_decode_terms("fp8")),
    # lesson 9, section 8: what FP8's casts cost besides the GEMMs, one Llama 3 8B layer at TP 1 on an H100
    ("09_workbench.py", "每个 token 读写 256 KiB", lambda: f"每个 token 读写 {_fp8_cast_kib('delayed'):.0f} KiB"),
    ("09_workbench.py", "当前缩放下 392 KiB", lambda: f"当前缩放下 {_fp8_cast_kib('current'):.0f} KiB"),
    ("09_workbench.py", "256 KiB read and written", lambda: f"{_fp8_cast_kib('delayed'):.0f} KiB read and written"),
    ("09_workbench.py", "392 KiB with current", lambda: f"{_fp8_cast_kib('current'):.0f} KiB with current"),
    (
        "09_workbench.py",
        "所需时间的 12% 和 18%",
        lambda: f"所需时间的 {_percent(_fp8_cast_share('delayed'))} 和 {_percent(_fp8_cast_share('current'))}",
    ),
    (
        "09_workbench.py",
        "that is 12% and 18%",
        lambda: f"that is {_percent(_fp8_cast_share('delayed'))} and {_percent(_fp8_cast_share('current'))}",
    ),
]


def _fp8_cast_kib(recipe: str) -> float:
    """FP8 quantisation traffic of one Llama 3 8B layer at TP 1, KiB per token."""
    from coursekit.planner.estimate import fp8_quantisation_bytes_per_token
    from coursekit.presets import MODELS

    return float(fp8_quantisation_bytes_per_token(MODELS["llama3-8b"], recipe).dense_layer) / 1024


def _fp8_cast_share(recipe: str) -> float:
    """That traffic at H100 memory bandwidth over the layer's matmuls (6 FLOPs per linear weight) at the FP8 peak."""
    from coursekit.presets import CLUSTERS, MODELS

    model, h100 = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    linear_params = model.dense_params_per_layer - 2 * model.hidden  # no biases; two RMSNorms of h
    matmul_s = 6 * linear_params / h100.peak("fp8")
    return _fp8_cast_kib(recipe) * 1024 / h100.memory_bandwidth_bytes_per_s / matmul_s


def _llama3_8k_gib(v: int) -> float:
    """Memory per GPU of the published 8K layout (8192 GPUs) at ``v`` chunks, ZeRO-2, without recomputation; v = 4 is
    refused on memory, v = 8 (the paper's one layer per chunk) fits."""
    from coursekit.planner import plan
    from coursekit.presets import CLUSTERS, MODELS, PUBLISHED_RUNS

    run = PUBLISHED_RUNS[0]
    result = plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), run.workload())
    cand = result.explain(f"tp=8,pp=16,dp=64,v={v},zero=2,mb=1,recompute=none")
    assert cand.codes == (("memory",) if v == 4 else ())
    return float(cand.memory.total_gib)  # type: ignore[union-attr]


def _mixtral(unit: float) -> tuple[float, float]:
    mixtral = coursekit.MODELS["mixtral-8x7b"]
    return mixtral.active_params / unit, mixtral.num_params / unit


def _serving_fp8_times() -> tuple[float, float, float, float]:
    bf16, fp8 = library_estimate("bf16"), library_estimate("fp8")
    return (
        bf16.time_to_first_token_s * 1e3,
        fp8.time_to_first_token_s * 1e3,
        bf16.time_per_output_token_s * 1e3,
        fp8.time_per_output_token_s * 1e3,
    )


def _serving_decode_terms(precision: str) -> str:
    """A memory-bound decode step: the weights floor + the KV cache reads + the TP all-reduces = TPOT (ms)."""
    est = library_estimate(precision)
    assert est.decode_bound == "memory" and est.pp == 1
    floor, comm = est.weights_floor_s * 1e3, est.decode_comm_s * 1e3
    kv = est.decode_memory_s * 1e3 - floor
    return f"{floor:.2f} + {kv:.2f} + {comm:.2f} = {est.time_per_output_token_s * 1e3:.2f} ms"


def _case3() -> coursekit.matrix.PaperCase:
    return coursekit.matrix.CASE_LAYER_EXCEEDS_DEVICE


def _case3_state_share_gib() -> float:
    tp = coursekit.matrix.evaluate_paper_case(_case3()).verdict_of("TP").degree
    assert tp is not None
    return _case3().training_state_gib / tp


def _case3_memory(tp: int, fsdp: int) -> float:
    return coursekit.matrix.combination_memory_gib(_case3(), tp=tp, fsdp=fsdp)


def _fraction(value: float) -> str:
    frac = Fraction(value).limit_denominator(1000)
    return f"{frac.numerator}/{frac.denominator}"


@pytest.mark.parametrize(("source", "phrase", "computed"), PROSE)
def test_prose_quotes_the_computed_value(source: str, phrase: str, computed: Callable[[], str]) -> None:
    text = (SRC / source).read_text(encoding="utf-8")
    assert phrase in text, f"{source} no longer says {phrase!r}: update the prose and this table together"
    assert computed() == phrase
