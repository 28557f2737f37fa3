"""The leftovers earlier reviews named but did not fix, each reproduced, fixed in the source and held here:

1. Exercise 3.4 (which rule rejects TP = 16) took only the codes ('tp_heads', 'interconnect', 'none'), while exercise
   3.1 also takes the gate's name as the learner reads it in the widget's grid ('互连', '互连门槛', 'interconnect
   gate', '互联'). 3.4 now reads answers through the same rule (``coursekit.exercises.lesson3._code_from_name``, which
   3.1's reader uses too): the interconnect rule by exercise 3.1's own names, the head rule as '注意力头' /
   'attention heads' ('头数', 'heads'), no rejection as '不被拒绝' / 'not rejected' ('无'). The prompt says so.
2. ``ModelSpec.from_config`` refused an integer key written as an integer-valued float (``num_attention_heads:
   32.0``, as some exported configs write them). It is now read as the integer; 32.5 is refused with a message that
   names the key, the value and the rule, in Chinese or English. (The list entries of ``no_rope_layers`` stay
   integers: transformers compares them to the int 1.)
3. Qwen2 and Qwen2.5 (``model_type`` qwen2, and qwen2_moe) have biases on Q, K and V and none on the output
   projection or the MLP (transformers' Qwen2 attention: q_proj, k_proj, v_proj with bias=True, o_proj bias=False);
   the count from a config ignored them. ``ModelSpec`` has a new field ``qkv_biases`` (a·hd + 2·kv·hd a layer),
   set by the model type or by a ``qkv_bias`` key where a config states one. The Qwen2.5-7B config counts
   7,615,616,512 parameters, the figure Hugging Face reports, worked by hand below; Llama counts are unchanged
   (Llama 3 8B: 8,030,261,248).
4. Lesson 9's node menu cut three long option notes at 1280 x 720 / 110 % (browser check in
   tests/browser/test_leftovers26.py): the options are short (the node's name and what it holds, "pcie-24g-8: 8 × 24
   GiB", "cpu-box: CPU server"), and the widget's message ends with the whole note of a noted node
   (``coursekit.widgets.node_note``).
5. The cheat sheet told the learner to run ``python tools/cheatsheet_pdf.py``, an internal file: it now says to print
   the page from the course website (Ctrl+P) or to run ``make cheatsheet``, a new Makefile target that writes
   ``build/cheatsheet_zh.pdf`` and ``build/cheatsheet_en.pdf``.
6. / 7. The website's labels on Chinese pages and its search snippets: tests/test_site_leftovers26.py.
8. Absurd custom clusters made the planner print numbers of up to 12 places: a 0.001-TFLOP/s GPU's step line read
   "Estimated step 28256.3477420 s = compute 28256.3476943 + ...", a communication line "28105914.4 ms", a matmul
   efficiency "0.0000001%". Now the step line gives its step at most 6 significant figures, in hours or days beyond
   10^5 s and in milliseconds, microseconds or nanoseconds below 1 ms (a part too small for its places reads "<0.1",
   not 0.0); a duration elsewhere in the plan is written by ``coursekit.units.duration_text`` (milliseconds at one
   place from 0.1 ms to 100 s, three significant figures in seconds, hours, days, µs or ns beyond); a nonzero figure
   that would read as 0 gets at most 4 more places, then e-notation (``coursekit.i18n.nonzero``).
9. tests/test_site_review26.py and tests/test_site_browser.py repeated one loop three times (open a page in a
   phone-sized context, render every cell, evaluate a script): it is ``tests.site_build.evaluate_on_pages`` now.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import coursekit
from coursekit.exercises import check
from coursekit.planner import ModelSpec
from coursekit.planner.result import STEP_LINE_SIGNIFICANT, step_line_parts
from coursekit.scaling import StepTimeline
from coursekit.units import DURATION_UNITS, duration_text, seconds_text
from coursekit.widgets.gates import GATE_SHORT_LABELS

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(params=["zh", "en"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    before = coursekit.get_language()
    coursekit.set_language(request.param)
    yield request.param
    coursekit.set_language(before)


# -- 1. exercise 3.4 takes the names exercise 3.1 takes -------------------------------------------------------------


def _interconnect_names() -> list[str]:
    """Every way exercise 3.1 takes the interconnect gate by name: the grid's label in each language, alone or with
    门槛 / gate after it, and the other spelling 互联 (the lesson's own rule, read from the grid's labels)."""
    label = GATE_SHORT_LABELS["interconnect"]
    names = [label.zh, label.zh + "门槛", label.en, label.en + " gate", label.en.upper(), "互联", " 互联门槛 "]
    for name in names:  # the forms really are 3.1's: each is judged there as the interconnect gate
        assert check("q3.first_gate", name).correct, name
    return names


def test_exercise_3_4_takes_every_name_exercise_3_1_takes_for_the_interconnect_rule(lang: str) -> None:
    for name in _interconnect_names():
        feedback = check("q3.tp_rule", name)
        assert feedback.correct, (name, feedback.message)


@pytest.mark.parametrize("answer", ["注意力头", "头数", "attention heads", "Heads", "不被拒绝", "无", "not rejected"])
def test_exercise_3_4_judges_the_other_rules_by_name_as_by_code(answer: str, lang: str) -> None:
    """A wrong rule typed by its name is judged wrong, as its code is ('tp_heads': 16 divides 32; 'none': 16 > 8
    GPUs per node), not refused as unreadable."""
    code = "tp_heads" if answer.lower() in ("注意力头", "头数", "attention heads", "heads") else "none"
    by_name, by_code = check("q3.tp_rule", answer), check("q3.tp_rule", code)
    assert (by_name.status, by_code.status) == ("incorrect", "incorrect"), by_name.message
    assert by_name.message == by_code.message


def test_exercise_3_4_still_refuses_a_name_that_is_no_rule(lang: str) -> None:
    assert check("q3.tp_rule", "容量").status == "invalid"  # a gate's name, but no rule of check_tp_degree
    assert check("q3.tp_rule", "link").status == "invalid"


def test_the_lesson_and_the_prompt_say_names_are_taken() -> None:
    from coursekit.exercises import get_exercise

    prompt = get_exercise("q3.tp_rule").prompt
    assert "'注意力头'" in prompt.zh and "'互连'" in prompt.zh and "'不被拒绝'" in prompt.zh
    assert "'attention heads'" in prompt.en and "'not rejected'" in prompt.en
    source = (ROOT / "notebooks" / "src" / "03_gates.py").read_text(encoding="utf-8")
    assert "`'注意力头'`、`'互连'`、`'不被拒绝'`" in source and "`'attention heads'`" in source


# -- 2. integer-valued floats in a config ---------------------------------------------------------------------------

#: Hugging Face Qwen/Qwen2.5-7B config.json: the keys that change the parameter count.
QWEN25_7B: dict[str, Any] = {
    "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 131072,
    "tie_word_embeddings": False, "hidden_act": "silu", "rms_norm_eps": 1e-06, "use_sliding_window": False,
    "sliding_window": 131072, "max_window_layers": 28,
}  # fmt: skip
#: Hugging Face meta-llama/Meta-Llama-3-8B config.json.
LLAMA3_8B: dict[str, Any] = {
    "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
    "tie_word_embeddings": False, "hidden_act": "silu", "rms_norm_eps": 1e-05,
}  # fmt: skip
INTEGER_KEYS = ("hidden_size", "intermediate_size", "num_attention_heads", "num_hidden_layers", "num_key_value_heads",
                "vocab_size", "max_position_embeddings")  # fmt: skip


@pytest.mark.parametrize("config", [LLAMA3_8B, QWEN25_7B], ids=["llama3-8b", "qwen2.5-7b"])
def test_integer_valued_floats_read_as_the_integers(config: dict[str, Any]) -> None:
    exported = {**config, **{key: float(config[key]) for key in INTEGER_KEYS}}
    assert exported["num_attention_heads"] == float(config["num_attention_heads"])  # 32.0: a float, as exported
    assert ModelSpec.from_config(exported) == ModelSpec.from_config(config)


def test_a_float_window_count_reads_as_its_integer() -> None:
    windowed = {**QWEN25_7B, "use_sliding_window": True, "sliding_window": 4096.0, "max_window_layers": 14.0}
    spec = ModelSpec.from_config(windowed)
    assert (spec.window_tokens, spec.window_layers) == (4096, 28 - 14)  # Qwen2: the window from layer 14 on


@pytest.mark.parametrize("key", ["num_attention_heads", "num_hidden_layers", "hidden_size"])
def test_a_fraction_is_refused_naming_the_key_the_value_and_the_rule(key: str, lang: str) -> None:
    with pytest.raises(ValueError) as caught:
        ModelSpec.from_config({**LLAMA3_8B, key: 32.5})
    message = str(caught.value)
    assert f"'{key}'" in message and "32.5" in message, message
    rule = "必须是 >= 1 的整数" if lang == "zh" else "must be an integer >= 1"
    assert rule in message and "32.0" in message, message  # the rule, and what is taken: 32.0
    assert bool(CJK.search(message)) == (lang == "zh")


@pytest.mark.parametrize("value", [math.nan, math.inf, "32", True, [32]])
def test_what_is_no_number_stays_refused(value: Any) -> None:
    with pytest.raises(ValueError, match="num_attention_heads"):
        ModelSpec.from_config({**LLAMA3_8B, "num_attention_heads": value})


# -- 3. Qwen2's Q, K and V biases ------------------------------------------------------------------------------------


def _qwen25_7b_by_hand(qkv_biases: bool) -> int:
    """Qwen2.5-7B's parameters from its config, module by module as transformers builds Qwen2ForCausalLM."""
    h, layers, heads, kv_heads, f, vocab = 3584, 28, 28, 4, 18944, 152064
    hd = h // heads  # 128
    q, kv = heads * hd, kv_heads * hd  # 3584, 512
    attention = h * q + 2 * h * kv + q * h  # q_proj, k_proj, v_proj, o_proj weights
    biases = q + 2 * kv  # q_proj, k_proj and v_proj biases (bias=True); o_proj none
    mlp = 3 * h * f  # gate_proj, up_proj, down_proj, no biases
    norms = 2 * h  # input_layernorm, post_attention_layernorm (RMSNorm: a scale)
    per_layer = attention + (biases if qkv_biases else 0) + mlp + norms
    return layers * per_layer + 2 * vocab * h + h  # untied embed_tokens and lm_head, the final norm


def test_qwen25_7b_counts_its_qkv_biases_as_hugging_face_does() -> None:
    by_hand = _qwen25_7b_by_hand(qkv_biases=True)
    assert by_hand == 7_615_616_512  # Hugging Face's model card for Qwen/Qwen2.5-7B: 7.61B; num_parameters()
    spec = ModelSpec.from_config(QWEN25_7B)
    assert spec.qkv_biases and not spec.biases
    assert spec.num_params == by_hand
    assert by_hand - _qwen25_7b_by_hand(qkv_biases=False) == 28 * (3584 + 2 * 512)


def test_llama_counts_are_unchanged() -> None:
    spec = ModelSpec.from_config(LLAMA3_8B)
    assert not spec.qkv_biases
    assert spec.num_params == 8_030_261_248  # Meta-Llama-3-8B: Hugging Face's num_parameters()
    assert ModelSpec.from_config({**QWEN25_7B, "model_type": "llama"}).num_params == _qwen25_7b_by_hand(False)


def test_a_qkv_bias_key_decides_where_a_config_states_one() -> None:
    without = ModelSpec.from_config({**QWEN25_7B, "qkv_bias": False})
    assert not without.qkv_biases and without.num_params == _qwen25_7b_by_hand(qkv_biases=False)
    assert ModelSpec.from_config({**QWEN25_7B, "model_type": "llama", "qkv_bias": True}).num_params == (
        _qwen25_7b_by_hand(qkv_biases=True)
    )
    with pytest.raises(ValueError, match="qkv_bias"):
        ModelSpec.from_config({**QWEN25_7B, "qkv_bias": "yes"})


def test_biases_everywhere_include_q_k_and_v_once() -> None:
    shape = {"name": "m", "layers": 2, "hidden": 64, "heads": 4, "ffn_hidden": 128, "vocab": 100, "seq_len": 16}
    plain, qkv = ModelSpec(**shape), ModelSpec(**shape, qkv_biases=True)
    everywhere, both = ModelSpec(**shape, biases=True), ModelSpec(**shape, biases=True, qkv_biases=True)
    assert qkv.attention_params_per_layer - plain.attention_params_per_layer == 3 * 64  # a·hd + 2·kv·hd
    assert both.num_params == everywhere.num_params
    with pytest.raises(TypeError, match="qkv_biases"):
        ModelSpec(**shape, qkv_biases=1)  # type: ignore[arg-type]


# -- 5. the cheat sheet says how to print it in the learner's terms ---------------------------------------------------


@pytest.mark.parametrize("name", ["cheatsheet_zh.md", "cheatsheet_en.md"])
def test_the_cheat_sheet_names_no_internal_file(name: str) -> None:
    text = (ROOT / "docs" / name).read_text(encoding="utf-8")
    assert "tools/" not in text and "cheatsheet_pdf" not in text
    assert "make cheatsheet" in text and "Ctrl+P" in text


def test_make_cheatsheet_prints_both_languages() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = makefile.split("\ncheatsheet:", 1)[1].split("\n\n", 1)[0]
    assert "tools/cheatsheet_pdf.py zh build/cheatsheet_zh.pdf" in target
    assert "tools/cheatsheet_pdf.py en build/cheatsheet_en.pdf" in target
    assert "cheatsheet" in makefile.split(".PHONY:", 1)[1].split("\n", 1)[0]


# -- 8. bounded digits on absurd clusters ----------------------------------------------------------------------------


def _timeline(compute: float, exposed: float, hidden: float, bubble: float) -> StepTimeline:
    return StepTimeline(compute_s=compute, communication_s=exposed + hidden, exposed_communication_s=exposed,
                        hidden_communication_s=hidden, bubble_s=bubble, input_wait_s=0.0,
                        step_s=compute + exposed + bubble)  # fmt: skip


def _significant(text: str) -> int:
    """The digits a number states, from its first nonzero digit to its last (28256.3477420: 11; 1000000.0: 1)."""
    return len(text.replace(".", "").strip("0"))


def test_the_step_line_of_a_slow_gpu_keeps_six_significant_figures(lang: str) -> None:
    """The timeline a 0.001-TFLOP/s cluster gave (28256.3477 s of compute, 48 µs of communication exposed): it
    printed 28256.3477420 = 28256.3476943 + 0.0000477 + 0.0000000. Six figures (28256.3) until leftovers 28; now
    the estimate's 3, every digit left of the point kept: 28256 (the test's name kept for its history)."""
    shown = step_line_parts(_timeline(28256.3476943, 4.77e-5, 3e-7, 0.0))
    assert shown["unit"] == "s" and shown["step_s"] == "28256" and shown["compute_s"] == "28256"
    assert _significant(shown["step_s"]) <= max(STEP_LINE_SIGNIFICANT, 5)  # five digits left of the point
    assert shown["exposed_s"] == "<1" and shown["hidden_s"] == "<1" and shown["comm_s"] == "<1"
    assert shown["bubble_s"] == "0"  # a zero reads as zero


def test_a_step_of_days_and_a_step_of_microseconds_are_written_in_their_units(lang: str) -> None:
    days = step_line_parts(_timeline(63_401_743.0, 481_176.0, 5_480.0, 0.0))
    assert days["unit"] == ("天" if lang == "zh" else "days")
    step = Decimal(days["step_s"])
    assert days["step_s"] == "739"  # 63,882,919 s / 86,400 = 739.386 days, at 3 figures (leftovers 28)
    assert abs(step * 86400 - Decimal(63_882_919)) <= Decimal("0.5") * 86400
    assert _significant(days["step_s"]) <= STEP_LINE_SIGNIFICANT
    micro = step_line_parts(_timeline(39.742e-6, 21.854e-6, 39.743e-6, 6.624e-6))
    assert micro["unit"] == "µs"
    # 68.220 = 39.742 + 21.854 + 6.624 µs at 3 figures: 68.2 = 39.7 + 21.9 + 6.6
    assert (micro["step_s"], micro["compute_s"], micro["exposed_s"], micro["bubble_s"]) == (
        "68.2", "39.7", "21.9", "6.6",
    )  # fmt: skip
    # the sums still add up as printed
    assert Decimal(micro["compute_s"]) + Decimal(micro["exposed_s"]) + Decimal(micro["bubble_s"]) == Decimal(
        micro["step_s"]
    )


def test_durations_are_unit_scaled_with_bounded_digits(lang: str) -> None:
    hours = "小时" if lang == "zh" else "h"
    assert duration_text(28_105.9144) == "28106 s"  # was 28105914.4 ms
    assert duration_text(962_072.6743) == f"267 {hours}"  # was 962072674.3 ms
    assert duration_text(0.0134) == "13.4 ms" and duration_text(0.0) == "0.0 ms"  # the usual range as before
    assert duration_text(2.5e-6) == "2.5 µs" and duration_text(3e-11) == "0.03 ns"
    assert seconds_text(13.5326) == "13.533 s" and seconds_text(63_882_919.273).startswith("739 ")
    for name, size, start in DURATION_UNITS:  # a unit is used from a thousandth of itself at the least
        assert start == 0 or start >= size / 1000, name
    with pytest.raises(ValueError, match="seconds"):
        duration_text(-1.0)


def test_a_tiny_nonzero_share_goes_to_e_notation_after_four_more_places() -> None:
    from coursekit.i18n import nonzero

    assert nonzero(0.0004, ".0%") == "0.04%" and nonzero(4e-6, ".0%") == "0.0004%"
    assert nonzero(1e-9, ".0%") == "1e-07%"  # the absurd cluster's matmul efficiency printed 0.0000001%


#: Every number the plan prints: digits with an optional fraction (a thousands separator is not used in plan output).
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:e[-+]\d+)?")
ABSURD = [
    ["--model", "mixtral-8x7b", "--peak-tflops", "0.001", "--hbm-gb-s", "0.001", "--intra-gb-s", "0.001",
     "--inter-gb-s", "0.001"],
    ["--model", "llama3-8b", "--peak-tflops", "0.001", "--hbm-gb-s", "1e6", "--intra-gb-s", "0.001",
     "--inter-gb-s", "0.001"],
    ["--model", "llama3-8b", "--peak-tflops", "1e6", "--hbm-gb-s", "1e6", "--intra-gb-s", "1e6", "--inter-gb-s", "1e6"],
]  # fmt: skip


@pytest.mark.parametrize("flags", ABSURD, ids=["slow-moe", "slow-dense", "fast"])
def test_a_plan_on_an_absurd_cluster_prints_bounded_numbers(
    flags: list[str], lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from coursekit.__main__ import main

    argv = ["plan", *flags, "--gpu-memory-gib", "1e6", "--gpus-per-node", "8", "--global-batch", "64", "--lang", lang]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Estimated step" in out or "估算步时" in out
    long = [n for n in NUMBER.findall(out) if "." in n and (_significant(n) > 7 or len(n.split(".")[1]) > 6)]
    assert not long, long[:10]
    # a bandwidth or a peak the learner typed as 0.001 is not printed as 0
    slow = "0.001" in flags
    assert not slow or not re.search(r"(?:inter-node|跨节点|intra-node|节点内) 0(?:\.0)? GB/s", out), out[:600]
