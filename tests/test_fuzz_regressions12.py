"""Inputs a twelfth adversarial fuzzing pass found wrong (and five that the eleventh left), each with the behaviour the
project's rules ask for.

The pass drove the newest surfaces: LoRA (``WorkloadSpec(lora_rank=)``, ``--lora-rank``, ``lora_adapters``) with MoE
models, FP8, ZeRO stages, recompute modes and CP; the ``apex-dfa-bf16`` recipe and recipe names; ``citation_lines``
and ``layout_pairs``; the serving widget's precision menu (``serving_view``, ``precision_sentence``);
``units.telling_digits`` and the memory refusal messages. The rules: English nouns agree with their counts ("1 device",
"2 devices"); nonsense is refused naming the parameter, the value and the rule in the learner's language, before any
message is rendered; a value no answer reads is refused rather than dropped; a JSON answer says what was planned. The
expected values below follow from those rules or a hand count, not from running the code.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
from dataclasses import asdict
from typing import Any

import pytest

from coursekit.__main__ import main
from coursekit.i18n import get_language, set_language, tr
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.specs import ClusterSpec, ModelSpec
from tests.test_chunked_attention import SCOUT
from tests.test_fuzz_regressions8 import _refusal, zh  # noqa: F401 (zh: the fixture setting Chinese)
from tests.test_fuzz_regressions9 import MISTRAL_7B

CJK = re.compile(r"[\u4e00-\u9fff]")
#: Count nouns of the course's English messages: a placeholder right before one of them is a count.
COUNT_NOUNS = (
    "devices|nodes|GPUs|layers|ranks|stages|requests|replicas|candidates|compositions|experts|sequences|tokens|"
    "items|values|calls|micro-batches|pipelines|groups|gates|layouts|files|parameters|buffers|steps|bytes|tensors|"
    "heads|chunks|rows"
)
#: Words that may stand between a count and a noun without making the noun the count's own ("{example} on nodes").
NOT_ADJECTIVES = "of|on|the|in|per|to|for|at|with|and|or|than|from|across|over|by|into|a|an"
#: "{count} nouns" in a catalog text, with up to two words between ("{n} concurrent requests", "{v} model chunks"):
#: a count printed before a plural noun whatever the count ("1 nodes", "1 output tokens"; found by fuzz pass 14).
PLAIN_COUNT = re.compile(
    r"\{(\w+)(?::[^{}@]*)?\} (?:(?!(?:"
    + NOT_ADJECTIVES
    + r")\b)[A-Za-z][\w-]* ){0,2}(?:"
    + COUNT_NOUNS
    + r")\b(?![/-])"
)
#: Placeholders before a noun that are names, not counts ("{dim} groups": the TP groups).
NOT_COUNTS = {"dim"}
#: Messages whose count is never one: the scaling widget's last point (512 devices), the workbench's chain of
#: batches ("1 → 8 → 64 requests").
ALWAYS_PLURAL = {"widgets.scaling.efficiency", "widgets.scaling.efficiency_ideal", "widgets.scaling.efficiency_near",
                 "widgets.workbench.tradeoff", "widgets.workbench.tradeoff_closest"}  # fmt: skip
H100_LIKE: dict[str, Any] = {
    "name": "h", "nodes": 1, "gpus_per_node": 8, "memory_per_device_gib": 80, "peak_flops": 989e12,
    "intra_node_bandwidth_bytes_per_s": 450e9, "inter_node_bandwidth_bytes_per_s": 50e9,
    "intra_node_latency_s": 2e-6, "inter_node_latency_s": 5e-6, "memory_bandwidth_bytes_per_s": 3.35e12,
}  # fmt: skip
CUSTOM_FLAGS = ["--gpu-memory-gib", "80", "--hbm-gb-s", "3350", "--gpus-per-node", "8", "--intra-gb-s", "450",
                "--inter-gb-s", "50"]  # fmt: skip


def _in(lang: str, call: Any) -> Any:
    before = get_language()
    set_language(lang)
    try:
        return call()
    finally:
        set_language(before)


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse's exit
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- A1: "1 device", "2 devices"


def _all_messages() -> dict[str, dict[str, str]]:
    import importlib
    import pkgutil

    import coursekit
    from coursekit import i18n

    for info in pkgutil.walk_packages(coursekit.__path__, prefix="coursekit."):
        if not info.name.startswith("coursekit.lab"):  # the lab needs PyTorch
            importlib.import_module(info.name)
    return i18n.catalog()


def test_no_english_message_prints_a_count_before_a_fixed_plural() -> None:
    """Before: "{nodes} nodes × {gpn} devices" and 100 more like it, so one node read "1 nodes"."""
    plain = [
        f"{key}: {match.group(0)}"
        for key, texts in _all_messages().items()
        for match in PLAIN_COUNT.finditer(texts["en"])
        if match.group(1) not in NOT_COUNTS and key not in ALWAYS_PLURAL
    ]
    assert plain == []


def test_one_node_and_one_sequence_read_singular_in_the_plan_report() -> None:
    """Before: "h100-8 (1 nodes × 8 devices = 8 ranks), training, global batch 1 sequences × 16 tokens"."""
    tiny = ModelSpec("t", layers=2, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=16)
    header = plan(tiny, CLUSTERS["h100-8"], WorkloadSpec(global_batch=1)).report(top=0).splitlines()[0]
    assert "(1 node × 8 devices = 8 ranks)" in header and "global batch 1 sequence × 16 tokens" in header


@pytest.mark.parametrize(
    ("key", "params", "singular", "plural"),
    [
        ("planner.tie_header", {"group": 2, "uncertainty": 0.15}, "): 1 candidate", "): 2 candidates"),
        ("serving.reason.pp_layers", {"pp": 2}, "the 1 layer:", "the 2 layers:"),
        ("planner.header", {"model": "m", "cluster": "c", "gpn": 8, "world": 8, "mode": "x"}, "(1 node ×",
         "(2 nodes ×"),
        ("gates.global_batch", {"dp": 1, "micro_batch": 1, "grad_accum": 1, "global_batch": 4}, "= 1 sequence,",
         "= 2 sequences,"),
    ],
)  # fmt: skip
def test_a_count_of_one_takes_the_singular_and_chinese_is_unchanged(
    key: str, params: dict[str, Any], singular: str, plural: str
) -> None:
    count = {"planner.tie_header": "count", "serving.reason.pp_layers": "layers", "planner.header": "nodes",
             "gates.global_batch": "product"}[key]  # fmt: skip
    one = tr(key, "en", **params, **{count: 1})
    assert re.search(re.escape(singular) + r"(?!\w)", one), one  # "1 candidate", not "1 candidates"
    assert plural in tr(key, "en", **params, **{count: 2})
    assert CJK.search(tr(key, "zh", **params, **{count: 1}))


def test_a_one_device_serving_cluster_is_one_device() -> None:
    """Before: "Serving plan: gpt2-small on custom (1 devices), ..."."""
    one_gpu = [flag if flag != "8" else "1" for flag in CUSTOM_FLAGS]  # --gpus-per-node 1
    code, out, err = _cli(["plan", "--mode", "serving", "--model", "gpt2-small", "--concurrency", "1", "--top", "0",
                           "--peak-tflops", "989", *one_gpu])  # fmt: skip
    assert code == 0, err
    assert "(1 device)" in out.splitlines()[0]


@pytest.mark.parametrize("kind", ["window", "chunk"])
def test_a_one_layer_one_token_window_note_is_singular(kind: str) -> None:
    """Before: "1 of 1 layers of m attend a sliding window of the last 1 tokens"."""
    model = ModelSpec("m", layers=1, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=64,
                      **{f"{kind}_tokens": 1, f"{kind}_layers": 1})  # fmt: skip
    for serving in (False, True):
        note = model.window_note(8, serving=serving)
        assert note is not None
        text = note.render("en")
        assert text.startswith("1 of 1 layer of m ") and re.search(r"\b1 token\b", text) and "1 tokens" not in text


# --------------------------------------------------------------------------- A2: an FP8 peak below the bf16 peak


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_fp8_peak_below_the_bf16_peak_is_refused(lang: str) -> None:
    """Before: accepted, so "FP8" ran the linear layers at half the bf16 speed. A device with FP8 tensor cores runs FP8
    at least as fast (H100 SXM: 1979 against 989 dense TFLOP/s)."""
    message = _in(lang, lambda: _refusal(lambda: ClusterSpec(**H100_LIKE, peak_flops_fp8=500e12), ValueError))
    assert message.startswith("peak_flops_fp8 = 500000000000000.0") and "peak_flops = 989000000000000.0" in message
    assert bool(CJK.search(message)) == (lang == "zh")


def test_an_fp8_peak_equal_to_the_bf16_peak_and_the_presets_are_kept() -> None:
    assert ClusterSpec(**H100_LIKE, peak_flops_fp8=989e12).peak("fp8") == 989e12
    assert CLUSTERS["h100-8"].peak("fp8") == 1979e12


@pytest.mark.parametrize(
    ("argv", "fp8", "bf16"),
    [
        (["--peak-tflops", "989", "--peak-fp8-tflops", "500", *CUSTOM_FLAGS], "500.0", "989.0"),
        (["--cluster", "h100-8", "--peak-tflops", "2500"], "1979.0", "2500.0"),  # the preset's FP8 peak, now below
    ],
)
def test_the_command_line_names_its_own_flags_in_tflops(argv: list[str], fp8: str, bf16: str) -> None:
    code, _, err = _cli(["plan", "--model", "gpt2-small", "--global-batch", "8", *argv])
    assert code == 2
    assert f"--peak-fp8-tflops = {fp8}" in err and f"--peak-tflops = {bf16}" in err


# --------------------------------------------------------------------------- A3: the serving JSON names its model


def test_the_serving_json_carries_the_model_spec_as_the_training_json_does() -> None:
    """Before: the serving JSON had the model's name only; the training JSON's "model" has every field."""
    model = ["--model", "mixtral-8x7b", "--cluster", "h100-8", "--json", "--top", "0"]
    serving = json.loads(_cli(["plan", "--mode", "serving", "--concurrency", "8", *model])[1])
    training = json.loads(_cli(["plan", "--global-batch", "8", "--zero", "1", "--recompute", "full", *model])[1])
    assert serving["model_spec"] == training["model"]
    assert serving["model_spec"] == json.loads(json.dumps(asdict(MODELS["mixtral-8x7b"])))
    assert (serving["model_spec"]["num_experts"], serving["model_spec"]["top_k"]) == (8, 2)


# --------------------------------------------------------------------------- A4: a no_rope_layers mark is an int


@pytest.mark.parametrize("mark", [True, False, 1.0, 0.0])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bool_or_float_no_rope_mark_is_refused(mark: Any, lang: str) -> None:
    """Before: [True] * 48 read as 48 chunked layers, [1.0] * 48 too (True == 1.0 == 1); the integer keys refuse a
    bool or a float."""
    config = {**SCOUT, "no_rope_layers": [mark] * 48}
    message = _in(lang, lambda: _refusal(lambda: ModelSpec.from_config(config), ValueError))
    assert "'no_rope_layers'" in message and repr(mark) in message
    assert bool(CJK.search(message)) == (lang == "zh")


def test_integer_marks_still_choose_the_chunked_layers() -> None:
    spec = ModelSpec.from_config({**SCOUT, "no_rope_layers": [1, 1, 1, 0] * 12})
    assert (spec.chunk_tokens, spec.chunk_layers) == (8192, 36)


# --------------------------------------------------------------------------- A5: chunks are Llama 4's


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_attention_chunk_size_outside_llama4_is_not_read_and_says_so(lang: str) -> None:
    """Before: a Mistral config with attention_chunk_size=512 became 32 chunked layers, though no transformers model
    but Llama 4 (Llama4TextConfig) reads the key."""
    from coursekit.model_config import config_notes

    config = {**MISTRAL_7B, "sliding_window": None, "attention_chunk_size": 512}
    spec = ModelSpec.from_config(config)
    assert (spec.chunk_tokens, spec.chunk_layers, spec.window_tokens) == (None, 0, None)
    (note,) = [note.render(lang) for note in config_notes(config)]
    assert note.startswith("attention_chunk_size=512") and '"mistral"' in note and "llama4_text" in note
    assert ("未计入" in note) if lang == "zh" else ("not counted" in note)


def test_a_malformed_chunk_size_a_model_does_not_read_is_not_refused() -> None:
    spec = ModelSpec.from_config({**MISTRAL_7B, "attention_chunk_size": "x"})
    assert (spec.chunk_tokens, spec.window_tokens) == (None, 4096)


def test_llama4_still_reads_its_chunks() -> None:
    spec = ModelSpec.from_config(SCOUT)
    assert (spec.chunk_tokens, spec.chunk_layers) == (8192, 36)  # 3 of every 4 of 48 layers


# --------------------------------------------------------------------------- B: telling_digits and the memory message


@pytest.mark.parametrize(
    ("args", "error", "start"),
    [
        (("29", 24.0), TypeError, "value = '29'"),
        ((True,), TypeError, "value = True"),
        ((math.nan,), ValueError, "value = nan"),
        ((math.inf, 80.0), ValueError, "value = inf"),
        ((10**400,), ValueError, "value = ≈1.0e+400"),
        ((1.0, math.nan), ValueError, "other = nan"),
        ((1.0, "1"), TypeError, "other = '1'"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_telling_digits_refuses_what_is_no_finite_number(
    args: tuple[Any, ...], error: type[Exception], start: str, lang: str
) -> None:
    """Before: '29' raised Python's "Unknown format code 'f' for object of type 'str'", 10**400 an OverflowError, NaN
    and True gave an answer (1) for no number."""
    from coursekit.units import telling_digits

    message = _in(lang, lambda: _refusal(lambda: telling_digits(*args), error))
    assert message.startswith(start) and bool(CJK.search(message)) == (lang == "zh")


def test_telling_digits_still_counts_decimals() -> None:
    from coursekit.units import telling_digits

    # 29.0 / 24.0 differ at one decimal; 0.04 reads 0.0 at one, 0.04 at two; 80.04 / 80.00 differ at two
    assert (telling_digits(29.0, 24.0), telling_digits(0.04), telling_digits(80.04, 80.0)) == (1, 2, 2)


@pytest.mark.parametrize(
    ("args", "error", "start"),
    [
        (("29", 24.0), TypeError, "need_gib = '29'"),
        ((math.nan, 24.0), ValueError, "need_gib = nan"),
        ((30.0, -1.0), ValueError, "have_gib = -1.0"),
        ((30.0, None), TypeError, "have_gib = None"),
    ],
)
def test_the_memory_reason_refuses_its_numbers_when_made(
    args: tuple[Any, ...], error: type[Exception], start: str
) -> None:
    """Before: made without a check, so "29" failed only when the message was read (Python's "Unknown format code"),
    NaN read "per-rank memory nan GiB", and -1 GiB of device memory was stated as such."""
    from coursekit.gates import memory_reason

    assert _refusal(lambda: memory_reason(*args), error).startswith(start)
    assert memory_reason(80.04, 80.0).message == "per-rank memory 80.04 GiB exceeds device memory 80.00 GiB"


# --------------------------------------------------------------------------- B: LoRA is training


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lora_in_a_serving_workload_is_refused(lang: str) -> None:
    """Before: WorkloadSpec(mode="serving", lora_rank=8) was accepted and its rank dropped (the serving search never
    reads it), while the command line refuses --lora-rank beside --mode serving."""
    message = _in(lang, lambda: _refusal(lambda: WorkloadSpec(global_batch=8, mode="serving", lora_rank=8), ValueError))
    assert message.startswith("lora_rank = 8") and "'serving'" in message
    assert bool(CJK.search(message)) == (lang == "zh")


def test_lora_training_is_still_accepted() -> None:
    assert WorkloadSpec(global_batch=8, lora_rank=8).lora_rank == 8
