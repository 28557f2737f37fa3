"""Inputs a fifteenth adversarial fuzzing pass found wrong, each with the behaviour the project's rules ask for.

The pass aimed at what the earlier ones skip: flags and spec fields that contradict each other (an FP8 peak on a
device whose compute capability has no FP8 tensor cores), odd config.json files, and widgets whose language changes
after they are built. The rules: bad input is a ``TypeError``/``ValueError`` naming the parameter, the value and the
rule, in the learner's language; a command line never prints a traceback (one line on stderr, exit status 2);
results stay physically consistent. The expected values below follow from those rules, a datasheet or a hand count,
not from running the code.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from coursekit.i18n import get_language, set_language
from coursekit.presets import CLUSTERS
from coursekit.specs import ClusterSpec
from tests.test_fuzz_regressions12 import _cli

CJK = re.compile(r"[\u4e00-\u9fff]")
PLAN = ["plan", "--model", "gpt2-small", "--global-batch", "16", "--top", "1"]
CONFIG_PLAN = ["plan", "--global-batch", "16", "--top", "1", "--cluster", "h100-8"]


def _in(lang: str, call):  # type: ignore[no-untyped-def]
    before = get_language()
    set_language(lang)
    try:
        return call()
    finally:
        set_language(before)


# --------------------------------------------------------------------------- 1: an FP8 peak without FP8 tensor cores


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_fp8_peak_on_a_device_of_compute_capability_below_8_9_is_refused(lang: str) -> None:
    """Before: ``replace(h100, compute_capability=8.0)`` kept H100's FP8 peak, so ``precision='fp8'`` ran an Ampere
    device's linear layers at 1979 TFLOP/s. FP8 tensor cores start at compute capability 8.9 (Ada; Hopper 9.0)."""

    def refusal() -> str:
        with pytest.raises(ValueError) as caught:
            replace(CLUSTERS["h100-8"], compute_capability=8.0)
        return str(caught.value)

    message = _in(lang, refusal)
    assert message.startswith("peak_flops_fp8 = 1979000000000000.0")
    assert "compute_capability = 8.0" in message and "8.9" in message
    assert bool(CJK.search(message)) == (lang == "zh")


def test_an_fp8_peak_at_compute_capability_8_9_and_above_or_unstated_is_kept() -> None:
    assert replace(CLUSTERS["h100-8"], compute_capability=8.9).peak("fp8") == 1979e12
    assert replace(CLUSTERS["h100-8"], compute_capability=None).peak("fp8") == 1979e12
    assert replace(CLUSTERS["a100-8"], compute_capability=None, peak_flops_fp8=624e12).peak("fp8") == 624e12
    assert all(c.peak_flops_fp8 is None or c.compute_capability >= 8.9 for c in CLUSTERS.values())
    ampere = ClusterSpec("amp", 1, 8, 80, 312e12, 300e9, 25e9, 2e-6, 5e-6, 2e12, compute_capability=8.0)
    assert ampere.peak_flops_fp8 is None


@pytest.mark.parametrize(
    ("flags", "fp8", "cc"),
    [
        (["--cluster", "a100-8", "--peak-fp8-tflops", "1000"], "1000.0", "8.0"),  # A100 preset: compute capability 8.0
        (["--cluster", "h100-8", "--compute-capability", "8.6"], "1979.0", "8.6"),  # the preset's FP8 peak
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_command_line_refuses_an_fp8_peak_below_compute_capability_8_9(
    flags: list[str], fp8: str, cc: str, lang: str
) -> None:
    code, out, err = _cli([*PLAN, *flags, "--lang", lang])
    last = err.strip().splitlines()[-1]
    assert code == 2 and out == "" and "Traceback" not in err
    assert f"--peak-fp8-tflops = {fp8}" in last and f"--compute-capability = {cc}" in last
    assert bool(CJK.search(last)) == (lang == "zh")
    # the same flags at compute capability 8.9 (a flag given twice with different values is refused since pass 18)
    at_8_9 = flags[:2] if flags[2] == "--compute-capability" else flags
    code, out, _ = _cli([*PLAN, *at_8_9, "--compute-capability", "8.9"])
    assert code == 0 and "8.9" in out.splitlines()[0]


def test_the_advice_for_fp8_on_a_device_without_it_names_the_compute_capability_too() -> None:
    """The refusal of --precision fp8 on a100-8 told the learner to give an FP8 peak, which alone is now refused
    there (compute capability 8.0): it names the compute capability to state with it."""
    code, _, err = _cli([*PLAN, "--cluster", "a100-8", "--precision", "fp8"])
    last = err.strip().splitlines()[-1]
    assert code == 2 and "--peak-fp8-tflops" in last and "--compute-capability" in last and "8.9" in last


# --------------------------------------------------------------------------- 2: widget labels follow set_language

WIDGETS = [
    ("capacity", "CapacityWidget"),
    ("communication", "CommunicationWidget"),
    ("composition", "CompositionWidget"),
    ("gates", "GatesWidget"),
    ("matrix", "MatrixWidget"),
    ("pipeline", "PipelineWidget"),
    ("roofline", "RooflineWidget"),
    ("scaling", "ScalingWidget"),
    ("serving", "ServingWidget"),
    ("workbench", "WorkbenchWidget"),
]


def _labels(widget) -> dict[str, tuple]:  # type: ignore[no-untyped-def]
    return {
        name: (control.description, tuple(getattr(control, "_options_labels", ())), getattr(control, "label", None))
        for name, control in widget.controls.items()
    }


@pytest.mark.parametrize(("module", "name"), WIDGETS)
@pytest.mark.parametrize(("built", "shown"), [("en", "zh"), ("zh", "en")])
def test_widget_labels_follow_a_later_set_language(module: str, name: str, built: str, shown: str) -> None:
    """Before: a widget built in English and redrawn after ``set_language("zh")`` showed Chinese messages beside its
    English control labels ('pipeline stages p'). Its descriptions and menu labels are now those of a widget built in
    the new language, and no control's value moves."""
    import importlib

    cls = getattr(importlib.import_module(f"coursekit.widgets.{module}"), name)
    try:
        set_language(shown)
        expected = _labels(cls())
        set_language(built)
        widget = cls()
        values = widget.values()
        set_language(shown)
        widget.redraw()
        assert _labels(widget) == expected
        assert widget.values() == values and widget.status == "ok"
        if shown == "zh":
            assert all(CJK.search(str(control.description)) for control in widget.controls.values())
    finally:
        set_language("en")


def test_relabelling_keeps_a_chosen_option_and_a_modes_own_labels() -> None:
    """The workbench in serving mode keeps its concurrency and prompt controls (relabelling must not run the mode's
    swap again), and the pipeline's 'none' option is relabelled after its device menu was rebuilt."""
    from coursekit.widgets.pipeline import PipelineWidget
    from coursekit.widgets.workbench import WorkbenchWidget

    try:
        set_language("en")
        bench = WorkbenchWidget()
        bench.controls["mode"].value = "serving"
        bench.controls["global_batch"].value = bench.controls["global_batch"]._options_values[-1]
        values = bench.values()
        set_language("zh")
        bench.redraw()
        assert bench.values() == values
        assert bench.controls["global_batch"].description == "并发请求数"
        assert bench.controls["mode"].label == "服务"
        pipe = PipelineWidget()
        set_language("en")
        pipe.controls["stages"].value = 2
        assert pipe.controls["slow_stage"]._options_labels == ("none", "0", "1")
        assert pipe.controls["stages"].description.startswith("pipeline stages")
    finally:
        set_language("en")


# --------------------------------------------------------------------------- 3: a config.json that states a key twice

LLAMA = (
    '{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, '
    '"num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 8192'
)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_key_given_twice_with_different_values_is_refused(tmp_path, lang: str) -> None:  # type: ignore[no-untyped-def]
    """Before: json kept the last value silently, so a config.json stating hidden_size 4096 and then 8192 was planned
    as a model twice as wide, with nothing said. Nested objects (rope_scaling) are checked too."""
    from coursekit.model_config import load_model_config

    top, nested = tmp_path / "top.json", tmp_path / "nested.json"
    top.write_text(LLAMA + ', "hidden_size": 8192}')
    nested.write_text(LLAMA + ', "rope_scaling": {"factor": 8.0, "factor": 4.0}}')
    for path, key, first, second in ((top, "hidden_size", "4096", "8192"), (nested, "factor", "8.0", "4.0")):

        def refusal(path=path) -> str:  # type: ignore[no-untyped-def]
            with pytest.raises(ValueError) as caught:
                load_model_config(path)
            return str(caught.value)

        message = _in(lang, refusal)
        assert f"'{key}'" in message and first in message and second in message and str(path) in message
        assert bool(CJK.search(message)) == (lang == "zh")
    code, out, err = _cli([*CONFIG_PLAN, "--model-config", str(top), "--lang", lang])
    assert code == 2 and out == "" and "'hidden_size'" in err.strip().splitlines()[-1] and "Traceback" not in err


def test_a_key_given_twice_with_the_same_value_is_read_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from coursekit.model_config import load_model_config

    path = tmp_path / "same.json"
    path.write_text(LLAMA + ', "hidden_size": 4096, "x": NaN, "x": NaN}')
    config = load_model_config(path)
    assert config["hidden_size"] == 4096 and len(config) == 9


# --------------------------------------------------------------------------- 4: a long config refusal, whole, Chinese


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_command_line_prints_a_long_model_config_refusal_whole(tmp_path, lang: str) -> None:  # type: ignore[no-untyped-def]
    """Before: the refusal was passed to the catalog as an exception object, which it clips to about 200 characters
    as it clips a learner's value: 'does not take: r...m_local_experts' lost the rule and the keys to use. And the
    Chinese refusal listed the keys with an English 'or'."""
    from coursekit.model_config import model_fields_from_config

    path = tmp_path / "experts.json"
    path.write_text(LLAMA + ', "moe_num_expert": 8}')
    code, out, err = _cli([*CONFIG_PLAN, "--model-config", str(path), "--lang", lang])
    last = err.strip().splitlines()[-1]
    assert code == 2 and out == "" and "..." not in last
    joined = "n_routed_experts, num_local_experts, num_experts " + ("或" if lang == "zh" else "or") + " moe_num_experts"
    assert "'moe_num_expert' = 8" in last and joined in last and "num_experts_per_tok" in last

    def refusal() -> str:
        with pytest.raises(ValueError) as caught:
            model_fields_from_config({**json.loads(LLAMA + "}"), "moe_num_expert": 8})
        return str(caught.value)

    assert (" or " in _in(lang, refusal)) == (lang == "en")


# --------------------------------------------------------------------------- 5: hybrid Mamba configs of other families

HYBRID_BASE = {
    "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    "intermediate_size": 14336, "vocab_size": 65536, "max_position_embeddings": 4096, "hidden_act": "silu",
}  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "start", "mamba", "attention"),
    [
        # JambaConfig: attention where i % attn_layer_period == attn_layer_offset (8, 4): layers 4, 12, 20, 28
        ({"model_type": "jamba", "attn_layer_period": 8, "attn_layer_offset": 4}, "attn_layer_period=8", 28, 4),
        ({"model_type": "jamba"}, "attn_layer_period=8, attn_layer_offset=4", 28, 4),  # transformers' defaults
        # BambaConfig / GraniteMoeHybridConfig: attention on the listed layers only
        ({"model_type": "bamba", "attn_layer_indices": [9, 18, 27]}, "attn_layer_indices", 29, 3),
        # Zamba2Config: every layer a Mamba layer, "hybrid" ones with the shared attention block
        ({"model_type": "zamba2", "layers_block_type": ["mamba"] * 5 + ["hybrid"] + ["mamba"] * 26},
         "layers_block_type", 32, 1),
    ],
)  # fmt: skip
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hybrid_mamba_config_says_its_mamba_layers_are_not_modelled(
    extra: dict, start: str, mamba: int, attention: int, lang: str
) -> None:
    """Before: Jamba, Bamba, Granite 4.0 and Zamba configs were planned as 32 transformer layers with nothing said
    (only Nemotron-H's, Qwen3-Next's and MiniMax's layer keys had a note)."""
    from coursekit.model_config import config_notes
    from coursekit.specs import ModelSpec

    config = {**HYBRID_BASE, **extra}
    (note,) = config_notes(config)
    text = note.render(lang)
    assert text.startswith(start) and str(mamba) in text and str(attention) in text and "32" in text
    assert bool(CJK.search(text)) == (lang == "zh")
    if lang == "en":
        assert f"{mamba} of 32 layers are Mamba" in text and f"attention runs in {attention} layer" in text
        assert "attention runs in 1 layers" not in text
    assert _in(lang, lambda: ModelSpec.from_config(config).source).endswith(text)


def test_other_mamba_settings_are_noted_and_granite_attention_layers_are_attention() -> None:
    from coursekit.model_config import config_notes

    (note,) = config_notes({**HYBRID_BASE, "model_type": "falcon_h1", "mamba_d_ssm": 1024})
    assert note.en.startswith("mamba_d_ssm: the config has Mamba (state-space model) settings")
    granite = {**HYBRID_BASE, "layer_types": ["mamba"] * 28 + ["attention"] * 4, "mamba_d_state": 128}
    assert [n.en[:36] for n in config_notes(granite)] == ["layer_types: 28 of 32 layers are 'ma"]
    assert config_notes({**HYBRID_BASE, "model_type": "llama"}) == ()


# --------------------------------------------------------------------------- 6: a prefill chunk longer than its context


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_prefill_chunk_longer_than_the_context_is_refused(lang: str) -> None:
    """Before: ``prefill_chunk_tokens=10**6`` beside ``context_tokens=10`` sized the workspace for a million tokens no
    request has (80.1 GiB on llama3-8b), so one 10-token request 'did not fit' an 80 GiB H100."""
    from coursekit.presets import MODELS
    from coursekit.serving import serving_memory_ledger

    args = {"concurrency": 1, "context_tokens": 10}

    def refusal() -> str:
        with pytest.raises(ValueError) as caught:
            serving_memory_ledger(MODELS["llama3-8b"], CLUSTERS["h100-8"], prefill_chunk_tokens=10**6, **args)
        return str(caught.value)

    message = _in(lang, refusal)
    assert message.startswith("prefill_chunk_tokens = 1000000") and "context_tokens = 10" in message
    assert bool(CJK.search(message)) == (lang == "zh")
    whole = serving_memory_ledger(MODELS["llama3-8b"], CLUSTERS["h100-8"], prefill_chunk_tokens=10, **args)
    assert whole == serving_memory_ledger(MODELS["llama3-8b"], CLUSTERS["h100-8"], **args)  # the default: the context
    assert whole.fits


# --------------------------------------------------------------------------- 7: a setting the other one leaves unread


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_flat_share_of_peak_with_a_ceiling_and_one_overlap_with_a_dimensions_are_refused(lang: str) -> None:
    """Before: ``WorkloadSpec(achievable_flops_fraction=0.5, efficiency_ceiling=0.3)`` planned exactly as without the
    ceiling (the flat share replaces the efficiency model), and ``overlap_fraction=0.5`` with ``overlap_dp=0.0``
    exactly as without ``overlap_dp``: a value no answer reads is refused rather than dropped (the command line
    already refused ``--overlap`` with ``--overlap-dp``)."""
    from coursekit.planner import WorkloadSpec

    for kwargs, field, value, other in (
        ({"achievable_flops_fraction": 0.5, "efficiency_ceiling": 0.3}, "efficiency_ceiling", "0.3", "0.5"),
        ({"overlap_fraction": 0.5, "overlap_dp": 0.0}, "overlap_dp", "0.0", "0.5"),
    ):

        def refusal(kwargs=kwargs) -> str:  # type: ignore[no-untyped-def]
            with pytest.raises(ValueError) as caught:
                WorkloadSpec(global_batch=8, **kwargs)
            return str(caught.value)

        message = _in(lang, refusal)
        assert message.startswith(f"{field} = {value}") and other in message
        assert bool(CJK.search(message)) == (lang == "zh")
    code, out, err = _cli([*PLAN, "--cluster", "h100-8", "--mfu", "0.5", "--efficiency-ceiling", "0.6", "--lang", lang])
    last = err.strip().splitlines()[-1]
    assert code == 2 and out == "" and "--mfu 0.5" in last and "--efficiency-ceiling 0.6" in last
    assert bool(CJK.search(last)) == (lang == "zh")


def test_each_of_them_alone_and_a_dimensions_default_beside_one_overlap_are_kept() -> None:
    from coursekit.planner import WorkloadSpec
    from coursekit.specs import OVERLAP_DEFAULTS

    assert WorkloadSpec(global_batch=8, achievable_flops_fraction=0.5).efficiency_ceiling is None
    assert WorkloadSpec(global_batch=8, efficiency_ceiling=0.3).efficiency_ceiling == 0.3
    kept = WorkloadSpec(global_batch=8, overlap_fraction=0.5, overlap_dp=OVERLAP_DEFAULTS["dp"])
    assert all(kept.overlap(dim) == 0.5 for dim in OVERLAP_DEFAULTS)


# --------------------------------------------------------------------------- 8: a blank label on check()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_blank_label_is_refused_by_name(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``check(..., label="")`` printed the feedback behind a bare colon (': Not yet. ...')."""
    from coursekit.exercises import check
    from coursekit.i18n import Text

    for label in ("", "  ", Text(zh=" ", en="")):

        def refusal(label=label) -> str:  # type: ignore[no-untyped-def]
            with pytest.raises(ValueError) as caught:
                check("q1.zero2_gib", 1.0, label=label)
            return str(caught.value)

        message = _in(lang, refusal)
        assert message.startswith("label = ") and bool(CJK.search(message)) == (lang == "zh")
    assert capsys.readouterr().out == ""
    _in(lang, lambda: check("q1.zero2_gib", 1.0, label="Case 1"))
    assert capsys.readouterr().out.startswith("Case 1")


# --------------------------------------------------------------------------- 9: one quantity under two keys


@pytest.mark.parametrize(
    ("extra", "first", "second"),
    [
        ({"n_layer": 12}, "'num_hidden_layers' = 32", "'n_layer' = 12"),
        ({"d_model": 1024}, "'hidden_size' = 4096", "'d_model' = 1024"),
        ({"num_local_experts": 16, "num_experts": 8, "num_experts_per_tok": 2}, "'num_local_experts' = 16",
         "'num_experts' = 8"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_two_alias_keys_of_one_quantity_with_different_values_are_refused(
    extra: dict, first: str, second: str, lang: str
) -> None:
    """Before: the first alias won silently (a config stating num_hidden_layers 32 and n_layer 12 was planned with
    32 layers, one with num_local_experts 16 and num_experts 8 with 16 experts)."""
    from coursekit.specs import ModelSpec

    def refusal() -> str:
        with pytest.raises(ValueError) as caught:
            ModelSpec.from_config({**json.loads(LLAMA + "}"), **extra})
        return str(caught.value)

    message = _in(lang, refusal)
    assert first in message and second in message and bool(CJK.search(message)) == (lang == "zh")


def test_alias_keys_that_agree_and_keys_of_different_limits_are_read() -> None:
    from coursekit.specs import ModelSpec

    base = json.loads(LLAMA + "}")
    assert ModelSpec.from_config({**base, "n_layer": 32.0}).layers == 32  # the same number twice
    # a length limit and the position table, a padded vocabulary and the vocabulary: different quantities
    both = ModelSpec.from_config({**base, "model_max_length": 1024, "padded_vocab_size": 128512})
    assert (both.seq_len, both.vocab) == (8192, 128256)


# --------------------------------------------------------------------------- 10: the sequence rule stated whole


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_refused_sequence_is_told_the_rule_it_broke(lang: str) -> None:
    """Before: fit_alpha_beta took a one-dimensional numpy array of payloads but refused a two-dimensional one with
    'must be a list or tuple, not ndarray', a rule the accepted 1-D array also breaks."""
    import numpy as np

    from coursekit.lab.fit import fit_alpha_beta

    def refusal() -> str:
        with pytest.raises(TypeError) as caught:
            fit_alpha_beta("all_reduce", 4, np.array([[1e3, 1e6]]), [1e-5, 1e-3])
        return str(caught.value)

    message = _in(lang, refusal)
    assert message.startswith("payload_bytes = array([[") and "ndim 2" in message and "numpy" in message
    assert bool(CJK.search(message)) == (lang == "zh")
    one_d = fit_alpha_beta("all_reduce", 4, np.array([1e3, 1e6]), [1e-5, 1e-3])
    assert one_d == fit_alpha_beta("all_reduce", 4, [1e3, 1e6], [1e-5, 1e-3])


# --------------------------------------------------------------------------- 11: a glossary term as a learner types it


@pytest.mark.parametrize(
    ("typed", "abbr"),
    [("ＤＰ", "DP"), ("ｆｓｄｐ", "FSDP"), ("数据 并行", "DP"), ("data-parallelism", "DP"), ("TP\u200b", "TP")],
)
def test_lookup_reads_full_width_letters_and_separators_as_the_plain_term(typed: str, abbr: str) -> None:
    """Before: ``lookup("ＤＰ")`` (an input method's full-width letters, which the exercises already read as plain
    ones) and ``lookup("allreduce")`` were 'no glossary entry'."""
    from coursekit.glossary import lookup

    assert lookup(typed).abbr == abbr
    assert lookup("allreduce") == lookup("All Reduce") == lookup("all-reduce")


def test_no_two_glossary_entries_are_one_term_once_separators_are_dropped() -> None:
    from coursekit.glossary import GLOSSARY, _term_key, lookup

    for entry in GLOSSARY:
        for name in (entry.zh, entry.en, entry.abbr):
            if name:
                assert lookup(name) is entry, name
    assert len({_term_key(e.en) for e in GLOSSARY}) == len(GLOSSARY)
    with pytest.raises(ValueError):
        lookup("\u200b")


# --------------------------------------------------------------------------- 12: a figure too large to draw


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_figure_beyond_the_renderers_pixels_is_refused_by_name(lang: str) -> None:
    """Before: ``figure_to_png(new_figure(1, 1, dpi=10**6))`` asked Agg for a million by a million pixels (4 TB), a
    MemoryError (std::bad_alloc) or a machine out of memory; ``new_figure(1e6, 1)`` was accepted likewise."""
    from coursekit.plotting import MAX_FIGURE_PIXELS, figure_to_png, new_figure

    def refusal(call) -> str:  # type: ignore[no-untyped-def]
        with pytest.raises(ValueError) as caught:
            call()
        return str(caught.value)

    for call, start in (
        (lambda: new_figure(1, 1, dpi=10**6), "(width_in, height_in, dpi) = (1, 1, 1000000)"),
        (lambda: new_figure(600, 600), "(width_in, height_in, dpi) = (600, 600, 100)"),  # 60,000 a side: 3.6e9 in all
        (lambda: figure_to_png(new_figure(9, 82), pixel_ratio=8), "pixel_ratio = 8"),  # 65,600 pixels tall
    ):
        message = _in(lang, lambda call=call: refusal(call))
        assert message.startswith(start) and "65,536" in message and bool(CJK.search(message)) == (lang == "zh")
    assert MAX_FIGURE_PIXELS == 2**26
    png = figure_to_png(new_figure(7.0, 3.6, dpi=200), pixel_ratio=8)  # the workbench's figure at the largest ratio
    assert png[:4] == b"\x89PNG"


# --------------------------------------------------------------------------- 13: PNG helpers


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_png_helpers_refuse_an_empty_image_a_fractional_level_and_bad_bytes_in_the_learners_language(
    lang: str,
) -> None:
    """Before: an empty RGBA array raised numpy's 'zero-size array to reduction operation minimum which has no
    identity'; compress_level=5.5 was cut to 5 silently; bytes Pillow cannot read were explained with Pillow's English
    words and an object address ('cannot identify image file <_io.BytesIO object at 0x...>') under zh too."""
    import numpy as np

    from coursekit.plotting.png import encode_png, palette_png

    def refusal(call, kind) -> str:  # type: ignore[no-untyped-def]
        with pytest.raises(kind) as caught:
            call()
        return str(caught.value)

    empty = _in(lang, lambda: refusal(lambda: encode_png(np.zeros((0, 0, 4), np.uint8)), ValueError))
    level = _in(lang, lambda: refusal(lambda: encode_png(np.zeros((2, 2, 4), np.uint8), compress_level=5.5), TypeError))
    unreadable = _in(lang, lambda: refusal(lambda: palette_png(b"xx"), ValueError))
    assert empty.startswith("rgba ") and "(0, 0, 4)" in empty
    assert level.startswith("compress_level = 5.5")
    assert unreadable.startswith("png") and "0x" not in unreadable and "identify" not in unreadable
    for message in (empty, level, unreadable):
        assert bool(CJK.search(message)) == (lang == "zh")
    assert encode_png(np.zeros((2, 2, 4), np.uint8), compress_level=5) == encode_png(
        np.zeros((2, 2, 4), np.uint8), compress_level=np.int64(5)
    )


# --------------------------------------------------------------------------- 14: the website's frame helpers


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_frame_helpers_refuse_what_is_not_a_widget_or_a_limit_by_name(lang: str) -> None:
    """Before: control_steps(slider, limit=2) raised ZeroDivisionError, limit=None a bare '<=' TypeError, a float
    slider of step 0 ZeroDivisionError, and live_frames(None) / live_replay('x') / shown_value(None) AttributeError."""
    import ipywidgets

    from coursekit.widgets import frames

    slider = ipywidgets.IntSlider(value=2, min=0, max=100, step=1)
    for call, kind, start in (
        (lambda: frames.control_steps(slider, 2), ValueError, "limit = 2"),
        (lambda: frames.control_steps(slider, None), TypeError, "limit = None"),
        (lambda: frames.control_steps(None), TypeError, "control = None"),
        (lambda: frames.shown_value(None), TypeError, "control = None"),
        (lambda: frames.live_frames(None), TypeError, "widget = None"),
        (lambda: frames.live_replay("x"), TypeError, "widget = 'x'"),
        (lambda: frames.preset_frames(3), TypeError, "widget = 3"),
    ):

        def refusal(call=call, kind=kind) -> str:  # type: ignore[no-untyped-def]
            with pytest.raises(kind) as caught:
                call()
            return str(caught.value)

        message = _in(lang, refusal)
        assert message.startswith(start) and bool(CJK.search(message)) == (lang == "zh")
    assert frames.control_steps(ipywidgets.FloatSlider(min=0, max=1, step=0.0)) == []  # no grid to step along
    assert [v for _, v in frames.control_steps(slider, 3)] == [0, 2, 100]


# --------------------------------------------------------------------------- 15: helpers the lessons call directly


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_helpers_the_lessons_call_check_their_arguments(lang: str) -> None:
    """Before: lesson 8's efficiency_table_view(None, "ddp") raised "'NoneType' object is not iterable", lesson 5's
    short_model_name(None) and verdict_grid_chart(None, []) an AttributeError (all three are called in the lessons'
    code cells); label_control(None, key) an AttributeError, and with a key not in the catalog it kept the key."""
    import coursekit.widgets.pipeline  # noqa: F401 (registers the slider's label)
    from coursekit.lab.timeline import efficiency_table_view
    from coursekit.widgets import label_control, slider
    from coursekit.widgets.matrix import short_model_name, verdict_grid_chart

    control = slider("widgets.pipeline.stages", value=1, min=1, max=8, step=1)
    for call, kind, start in (
        (lambda: efficiency_table_view(None, "ddp"), TypeError, "points = None"),
        (lambda: efficiency_table_view([1], "ddp"), TypeError, "points[0] = 1"),
        (lambda: efficiency_table_view([], "ddp", with_efficiency="no"), TypeError, "with_efficiency = 'no'"),
        (lambda: short_model_name(None), TypeError, "model = None"),
        (lambda: verdict_grid_chart(None, []), TypeError, "ax = None"),
        (lambda: label_control(None, "widgets.pipeline.stages"), TypeError, "control = None"),
        (lambda: label_control(control, "no.such.key"), ValueError, "key = 'no.such.key'"),
    ):

        def refusal(call=call, kind=kind) -> str:  # type: ignore[no-untyped-def]
            with pytest.raises(kind) as caught:
                call()
            return str(caught.value)

        message = _in(lang, refusal)
        assert message.startswith(start) and bool(CJK.search(message)) == (lang == "zh")
    assert control._ck_label == "widgets.pipeline.stages"  # the refused key left the control as it was


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_collectives_to_plot_are_checked_by_their_own_name(lang: str) -> None:
    """Before: plot_measured_vs_predicted(report, kinds=-1) raised "'int' object is not iterable", and a wrong name
    in kinds was reported as collectives = ...; a set of names keeps the course's order."""
    from coursekit.lab.collectives import CollectivesReport, check_collectives
    from coursekit.lab.plot import plot_measured_vs_predicted

    report = CollectivesReport(2, "gloo", "cpu", "spawn", "2.13.0", 5, 20)
    for kinds, kind, start in ((-1, TypeError, "kinds = -1"), (["x"], ValueError, "kinds = 'x'")):

        def refusal(kinds=kinds, kind=kind) -> str:  # type: ignore[no-untyped-def]
            with pytest.raises(kind) as caught:
                plot_measured_vs_predicted(report, kinds=kinds)
            return str(caught.value)

        message = _in(lang, refusal)
        assert message.startswith(start) and bool(CJK.search(message)) == (lang == "zh")
    assert check_collectives({"all_gather", "all_reduce"}) == ("all_reduce", "all_gather")
    assert check_collectives(k for k in ["broadcast"]) == ("broadcast",)
