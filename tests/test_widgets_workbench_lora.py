"""The workbench's LoRA control (coursekit.widgets.workbench, ``lora``): which weights train, planned by the planner.

Expected values come from the planner's public API, called here on its own (``what_if``, ``plan``,
``lora_adapters``), or from a hand calculation; never from the widget.
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Iterator

import pytest

import coursekit
from coursekit.planner import WorkloadSpec, plan, what_if
from coursekit.planner.estimate import lora_adapters
from coursekit.presets import CLUSTERS, MODELS
from coursekit.widgets.workbench import LORA_OPTIONS, TOP_SHOWN, WIDGET_MODELS, WorkbenchWidget

MODULES = ("linear_qkv", "linear_proj", "linear_fc1", "linear_fc2")


@pytest.fixture(params=["zh", "en"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    coursekit.set_language(request.param)
    try:
        yield request.param
    finally:
        coursekit.set_language("en")


def _text(message: str) -> str:
    """The message as the learner reads it: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", " ", message))


def test_the_control_offers_every_weight_or_a_lora_rank(lang: str) -> None:
    w = WorkbenchWidget()
    control = w.controls["lora"]
    assert [value for _label, value in control.options] == ["full", *LORA_OPTIONS]
    assert control.value == "full" and w.result is not None and w.result.workload.lora_rank is None
    assert 32 in LORA_OPTIONS and 16 in LORA_OPTIONS  # NeMo 24.07's rows and Megatron-Bridge's default; its docs' 16
    labels = [label for label, _value in control.options]
    if lang == "zh":
        assert control.description == "训练哪些权重"
        assert labels[0] == "全部（预训练或全参数微调）"
        assert labels[1:] == [f"低秩适配 (LoRA)，秩 {r}" for r in LORA_OPTIONS]
        assert not any(re.search(r"rank|adapter|weight|fine|all", label) for label in [*labels, control.description])
    else:
        assert control.description == "weights trained"
        assert labels == ["all (pre-training or full fine-tuning)", *(f"LoRA adapters only, rank {r}" for r in
                                                                         LORA_OPTIONS)]  # fmt: skip
    # every weight trains: the message names no LoRA
    assert "LoRA" not in w.message and "linear_qkv" not in w.message


@pytest.mark.parametrize("rank", LORA_OPTIONS)
def test_each_rank_shows_the_plan_of_that_rank(rank: int) -> None:
    """The widget's table is what_if's with WorkloadSpec(lora_rank=rank): counts, rows, and the adapter count."""
    coursekit.set_language("en")
    w = WorkbenchWidget()
    w.controls["lora"].value = rank
    direct = what_if("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024, seq_len=8192, lora_rank=rank))
    result = w.result
    assert w.status == "ok" and result is not None and result.workload.lora_rank == rank
    assert (result.space_size, result.accepted_count) == (direct.space_size, direct.accepted_count)
    labels = [c.label() for c in direct.accepted(TOP_SHOWN)]
    assert re.findall(r"<code>([^<]*)</code>", w.message) == [html.escape(label) for label in labels]
    adapters = lora_adapters(MODELS["llama3-70b"], rank).model_per_token
    shown = _text(w.message)
    assert f"LoRA, rank {rank}: every weight frozen" in shown
    assert f"each token passing through {adapters:,.0f} adapter parameters" in shown
    assert all(module in shown for module in MODULES)
    # the same numbers as training every weight would be a control that does nothing
    full = what_if("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024, seq_len=8192))
    assert direct.accepted(1)[0].step_s < full.accepted(1)[0].step_s  # no weight gradients: less compute


def test_adapter_count_by_hand(lang: str) -> None:
    """Llama-3 8B, rank 16: r·(in + out) on each layer's four fused linear layers, 32 layers. qkv: 4096 in, 4096 +
    2·8·128 out; proj: 4096 + 4096; fc1 (SwiGLU, two halves): 4096 + 2·14336; fc2: 14336 + 4096."""
    by_hand = 32 * 16 * ((4096 + 6144) + (4096 + 4096) + (4096 + 28672) + (14336 + 4096))
    assert by_hand == 35_651_584
    # and the planner's function against the brief's Llama 2 7B figure (MHA, 11008-wide SwiGLU)
    assert lora_adapters(MODELS["llama2-7b"], 16).model_per_token == 33_685_504
    w = WorkbenchWidget()
    with w.hold_updates():
        w.controls["model"].value = "llama3-8b"
        w.controls["lora"].value = 16
    shown = _text(w.message)
    assert "35,651,584" in shown
    if lang == "zh":
        assert "低秩适配 (LoRA)，秩 16：全部权重冻结" in shown and "每个 token 经过 35,651,584 个适配器参数" in shown
        assert all(module in shown for module in MODULES) and "假设：" in shown
    else:
        assert "each token passing through 35,651,584 adapter parameters" in shown


def test_one_node_fits_a_70b_model_only_with_lora(lang: str) -> None:
    """Llama-3 70B on one node of 8 H100s: training every weight, 70.6e9 × 16 bytes over 8 ranks is ~140 GB a rank,
    so nothing fits; with LoRA the frozen weights take 2 bytes each (17.6 GB a rank) and compositions pass."""
    w = WorkbenchWidget()
    w.controls["nodes"].value = 1
    assert w.status == "ok" and w.verdict == "fail" and w.result is not None and w.result.accepted_count == 0
    assert "LoRA" not in w.message
    w.controls["lora"].value = 32
    direct = what_if("llama3-70b", "h100-8", 1, WorkloadSpec(global_batch=1024, seq_len=8192, lora_rank=32))
    assert direct.accepted_count > 0
    assert w.status == "ok" and w.verdict == "pass" and w.result.accepted_count == direct.accepted_count
    shown = _text(w.message)
    head = (f"{direct.space_size} 个组合，{direct.accepted_count} 个通过全部门槛" if lang == "zh" else
            f"{direct.space_size} compositions searched, {direct.accepted_count} pass every gate")  # fmt: skip
    assert head in shown and direct.accepted(1)[0].label() in shown
    assert ("低秩适配 (LoRA)，秩 32" if lang == "zh" else "LoRA, rank 32") in shown


def test_llama2_70b_on_eight_h100s_needs_lora() -> None:
    """The brief's case through the planner alone: Llama 2 70B on 8 H100s has no accepted layout training every
    weight, and some with LoRA (what the lesson's NeMo 24.07 rows show for their own layouts)."""
    one_node = CLUSTERS["h100-8"].with_nodes(1)
    full = plan(MODELS["llama2-70b"], one_node, WorkloadSpec(global_batch=32, seq_len=4096))
    lora = plan(MODELS["llama2-70b"], one_node, WorkloadSpec(global_batch=32, seq_len=4096, lora_rank=32))
    assert full.accepted_count == 0 and lora.accepted_count > 0


def test_lora_with_nothing_fitting_still_says_lora_is_on(lang: str) -> None:
    """Llama 3 405B on one box of 8 × 24 GiB: even frozen, 810 GB of bf16 weights do not fit 192 GiB; the verdict
    says no composition passes, and that LoRA was assumed."""
    w = WorkbenchWidget()
    with w.hold_updates():
        w.controls["model"].value = "llama3-405b"
        w.controls["cluster"].value = "pcie-24g-8"
        w.controls["nodes"].value = 1
        w.controls["lora"].value = 8
    assert w.status == "ok" and w.verdict == "fail" and w.result.accepted_count == 0
    shown = _text(w.message)
    assert ("低秩适配 (LoRA)，秩 8" if lang == "zh" else "LoRA, rank 8") in shown and "linear_fc2" in shown


def test_serving_turns_lora_off_and_refuses_it_with_a_message(lang: str) -> None:
    w = WorkbenchWidget()
    w.controls["lora"].value = 64
    w.controls["mode"].value = "serving"
    assert w.status == "ok" and w.controls["lora"].value == "full"  # switching to serving: LoRA off
    w.controls["lora"].value = 16
    assert w.status == "invalid" and isinstance(w.last_error, ValueError) and w.result is None
    if lang == "zh":
        assert "低秩适配 (LoRA)，秩 16：只用于训练" in w.message and "“训练哪些权重”" in w.message
        assert not re.search(r"[A-Za-z]{4,}", w.message.replace("LoRA", ""))  # Chinese only
    else:
        assert "LoRA, rank 16: applies to training only" in w.message and "“weights trained”" in w.message
    assert "Traceback" not in w.message and "nexpected" not in w.message and "意外" not in w.message
    w.controls["lora"].value = "full"
    assert w.status == "ok"
    w.controls["mode"].value = "training"
    assert w.controls["lora"].value == 64 and w.result.workload.lora_rank == 64  # restored with the batch and sequence


def test_direct_compute_refuses_what_the_control_does_not_offer() -> None:
    coursekit.set_language("en")
    w = WorkbenchWidget()
    values = w.values()
    for bad in (7, "lora", None, True, 16.5):
        with pytest.raises(ValueError, match=r"^lora = "):
            w.compute(**{**values, "lora": bad})
    assert w.compute(**{**values, "lora": 16.0}).workload.lora_rank == 16  # the option 16


def test_the_plan_cache_keeps_ranks_apart() -> None:
    coursekit.set_language("en")
    w = WorkbenchWidget()
    full = w.result
    w.controls["lora"].value = 16
    rank16 = w.result
    w.controls["lora"].value = "full"
    assert w.result is full and rank16 is not full and rank16.workload.lora_rank == 16


@pytest.mark.parametrize("language", ["zh", "en"])
def test_no_control_value_shows_a_traceback(language: str) -> None:
    """Every model × every LoRA choice × MoE what-if × mode: a verdict, or a message in the learner's language."""
    coursekit.set_language(language)
    try:
        w = WorkbenchWidget()
        with w.hold_updates():
            w.controls["nodes"].value = 2
            w.controls["global_batch"].value = 64
        lora_values = [value for _label, value in w.controls["lora"].options]
        for model, moe in itertools.product(WIDGET_MODELS, (False, True)):
            for mode in ("training", "serving"):
                for lora in lora_values:
                    with w.hold_updates():
                        w.controls["model"].value = model
                        w.controls["moe"].value = moe
                        w.controls["mode"].value = mode
                        w.controls["lora"].value = lora
                    case = (model, moe, mode, lora)
                    assert "Traceback" not in w.message, case
                    if w.status == "invalid":
                        # only LoRA while serving is refused, and as an input error, not an unexpected one
                        assert mode == "serving" and lora != "full", (case, w.message)
                        assert isinstance(w.last_error, ValueError), case
                    else:
                        assert w.verdict in ("pass", "fail"), case
                        assert (mode == "training" and lora != "full") == ("linear_qkv" in w.message), case
                with w.hold_updates():
                    w.controls["lora"].value = "full"
                    w.controls["mode"].value = "training"
    finally:
        coursekit.set_language("en")
