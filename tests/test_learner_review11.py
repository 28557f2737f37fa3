"""What a Chinese self-learner, working through the lessons in a real browser, tripped on; each with the behaviour a
learner needs. Expected values come from the exercises' own prompts and hints worked by hand, not from the checker.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from coursekit.exercises import check
from coursekit.hardware import H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S
from tests.test_fuzz_regressions8 import zh  # noqa: F401 (the fixture setting Chinese)


def _status(exercise: str, answer: Any) -> str:
    return check(exercise, answer).status


def test_following_the_decode_hint_is_accepted() -> None:
    """The hint says the intensity is about 16 and attainable = intensity x bandwidth: 16 x 3.35 TB/s / 989 TFLOP/s
    = 0.0542 (the layer's exact 15.9 gives 0.0538). The learner who did what the hint says was told to do it again."""
    following_the_hint = 16 * H100_HBM_BYTES_PER_S / H100_BF16_DENSE_FLOPS
    assert round(following_the_hint, 4) == 0.0542
    assert _status("eff.decode_share", following_the_hint) == "correct"
    assert _status("eff.decode_share", 0.0542) == "correct"
    assert _status("eff.decode_share", 0.05) == "incorrect"  # 7 % off: not the roofline's answer


def test_the_mfu_reasoning_the_result_states_is_accepted() -> None:
    """The result reads "HFU = 148 / 312; full recomputation executes about 1/3 more FLOPs, so MFU = 0.356":
    148 / 312 x 3/4 = 0.3558 is that reasoning; the checker rejected it while accepting 0.36."""
    assert _status("eff.megatron_mfu", 148 / 312 * 3 / 4) == "correct"
    assert _status("eff.megatron_mfu", 0.3555) == "correct"
    assert _status("eff.megatron_mfu", 0.34) == "incorrect"
    assert check("eff.megatron_mfu", 148 / 312).slip == "hfu_for_mfu"  # HFU for MFU still named


@pytest.mark.usefixtures("zh")
def test_a_number_copied_with_its_thousands_comma_is_explained() -> None:
    """The funnel chart prints 1,772; Python reads `answer = 1,772` as the tuple (1, 772)."""
    feedback = check("plan.memory_removed", (1, 772))
    assert feedback.status == "invalid"
    assert "1772" in feedback.message and "逗号" in feedback.message and "tuple" not in feedback.message


def test_a_count_copied_with_the_charts_minus_sign_is_named() -> None:
    feedback = check("plan.memory_removed", -1772)
    assert (feedback.status, feedback.slip) == ("incorrect", "sign") and "sign" in feedback.message
    assert _status("plan.memory_removed", 1772) == "correct"


@pytest.mark.parametrize("answer", [..., 1772, 243, (1, 772)])
def test_feedback_does_not_start_with_the_exercises_internal_id(answer: Any) -> None:
    assert "plan.memory_removed" not in check("plan.memory_removed", answer).message


def _text(html_text: str) -> str:
    import re

    return re.sub(r"<[^>]+>", "", html_text.replace("<br>", "\n"))


@pytest.mark.usefixtures("zh")
def test_a_long_sequence_says_the_activations_push_the_layer_past_the_device() -> None:
    """1.7B at 32K tokens was called "one layer exceeds one device" beside a 0.12 GiB layer, with no sum."""
    from coursekit.widgets.matrix import MatrixWidget

    widget = MatrixWidget()
    widget.controls["model"].value = "megatron-1.7b"
    widget.controls["seq_len"].value = 32768
    case = widget.result.case
    total = case.largest_layer_gib + case.activation_gib + case.runtime_reserve_gib
    assert total > case.device_memory_gib > case.largest_layer_gib  # W + A + R > C, with W alone far below C
    text = _text(widget.message_html.value)
    assert "单层超过单卡" in text and "激活" in text
    # the sum is shown, and (fuzz pass 22) its printed parts add up to its printed total, which is the ledger's
    shown = re.search(r"最大一层 ([\d.]+) \+ 激活 ([\d.]+) \+ 预留 ([\d.]+) = ([\d.]+) GiB", text)
    assert shown is not None, text
    places = len(shown.group(4).partition(".")[2])
    assert abs(float(shown.group(4)) - total) <= 0.5 * 10**-places + 1e-9
    assert round(sum(float(part) for part in shown.groups()[:3]), places) == float(shown.group(4))


@pytest.mark.usefixtures("zh")
def test_a_serving_layout_that_does_not_fit_is_not_called_the_best() -> None:
    from coursekit.widgets.workbench import WorkbenchWidget

    widget = WorkbenchWidget()
    widget.controls["mode"].value = "serving"
    widget.controls["global_batch"].value = 2048
    widget.controls["seq_len"].value = 131072
    assert not widget.result.accepted
    text = _text(widget.message_html.value)
    assert "最佳布局" not in text and "最接近放下的布局" in text and "它放不下" in text
    assert " 0 → " not in text  # tokens/s below one are written with their digits, not rounded to 0


def test_node_presets_say_what_they_are() -> None:
    from coursekit.widgets import node_label, node_note

    # the menu's options are short, what one node holds (left-over 4 of tests/test_leftovers26.py: at 1280 x 720 and
    # 110 % the notes were cut); the widget's message says a noted node's note in full
    assert node_label("h100-8").zh == "h100-8：8 × 80 GiB"
    assert "CPU" in node_label("cpu-box").zh and "CPU server" in node_label("cpu-box").en
    note, bloom = node_note("cpu-box"), node_note("jeanzay-a100-8")
    assert note is not None and "not a GPU" in note.en
    assert bloom is not None and "BLOOM" in bloom.en


def test_a_small_models_times_keep_their_digits() -> None:
    from coursekit.widgets.serving import _ms

    # gpt2-small's TTFT is a fraction of a millisecond: "0 ms" said nothing
    assert (_ms(0.31, 0), _ms(66.4, 0), _ms(8.94), _ms(0.04), _ms(0.0)) == ("0.31", "66", "8.9", "0.04", "0.0")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_instructor_guide_states_the_answers_the_checker_also_accepts(lang: str) -> None:
    from pathlib import Path

    guide = (
        Path(__file__).resolve().parents[1] / "docs" / "instructor" / lang / "07_compute_efficiency.md"
    ).read_text()
    three_quarters = f"{148 / 312 * 3 / 4:.4f}"
    hint_16 = f"{16 * H100_HBM_BYTES_PER_S / H100_BF16_DENSE_FLOPS:.4f}"
    assert (three_quarters, hint_16) == ("0.3558", "0.0542")
    assert three_quarters in guide and hint_16 in guide
    assert (
        _status("eff.megatron_mfu", float(three_quarters)) == _status("eff.decode_share", float(hint_16)) == "correct"
    )


def test_the_workbench_greys_out_what_the_mode_or_model_does_not_read() -> None:
    """Serving reads neither the trained weights, nor the achievable fraction, nor the overlap; "make it MoE" does
    nothing to a model that is MoE already. They stayed live and changed nothing."""
    from coursekit.widgets.workbench import WorkbenchWidget

    widget = WorkbenchWidget()
    unused = ("lora", "mfu", "overlap")
    assert not any(widget.controls[key].disabled for key in (*unused, "moe"))
    widget.controls["mode"].value = "serving"
    assert all(widget.controls[key].disabled for key in unused) and widget.status == "ok"
    widget.controls["mode"].value = "training"
    assert not any(widget.controls[key].disabled for key in unused)
    widget.controls["model"].value = "mixtral-8x7b"
    assert widget.controls["moe"].disabled
    widget.controls["model"].value = "llama3-8b"
    assert not widget.controls["moe"].disabled
