"""The held-out audit's command-line gaps: ``python -m coursekit.planner``, config keys the spec does not model
(named, not dropped), latency flags for a custom cluster and ``--dropout``.

The configs are cut down from the public ``config.json`` files (Hugging Face: EleutherAI/gpt-neox-20b,
tiiuae/falcon-180B and falcon-40b, openai/gpt-oss-120b, microsoft/phi-2, EleutherAI/gpt-j-6b, google/gemma-3-27b-it,
Qwen/Qwen2-7B, meta-llama/Llama-4-Scout-17B-16E, Qwen/Qwen3-Next-80B-A3B, deepseek-ai/DeepSeek-V3,
facebook/opt-175b's shape) to the keys that matter here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coursekit import i18n
from coursekit.__main__ import _subparser, build_parser, main
from coursekit.hardware import NCCL_RING_NET_LATENCY_S, NCCL_RING_NVLINK_LATENCY_S
from coursekit.model_config import config_notes
from coursekit.planner import ClusterSpec, ModelSpec
from coursekit.planner.cli import _cluster_argv
from coursekit.presets import CLUSTERS
from coursekit.specs import MAX_LATENCY_S
from tests.model_configs import GEMMA_3_27B, GPT_OSS_120B

ROOT = Path(__file__).resolve().parents[1]

LLAMA = {
    "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 8192,
    "hidden_act": "silu", "tie_word_embeddings": False, "rope_theta": 500000.0, "attention_dropout": 0.0,
}  # fmt: skip
NEOX_20B = {
    "model_type": "gpt_neox", "hidden_size": 6144, "num_hidden_layers": 44, "num_attention_heads": 64,
    "intermediate_size": 24576, "vocab_size": 50432, "max_position_embeddings": 2048, "tie_word_embeddings": False,
    "rotary_pct": 0.25, "use_parallel_residual": True,
}  # fmt: skip
FALCON_180B = {
    "model_type": "falcon", "hidden_size": 14848, "num_attention_heads": 232, "num_hidden_layers": 80,
    "num_kv_heads": 8, "vocab_size": 65024, "bias": False, "parallel_attn": True, "new_decoder_architecture": True,
    "alibi": False,
}  # fmt: skip
PHI_2 = {
    "model_type": "phi", "hidden_size": 2560, "intermediate_size": 10240, "num_attention_heads": 32,
    "num_hidden_layers": 32, "vocab_size": 51200, "max_position_embeddings": 2048, "hidden_act": "gelu_new",
    "layer_norm_eps": 1e-5, "tie_word_embeddings": False, "partial_rotary_factor": 0.4,
}  # fmt: skip
GPT_J = {
    "model_type": "gptj", "n_embd": 4096, "n_layer": 28, "n_head": 16, "n_positions": 2048, "vocab_size": 50400,
    "rotary_dim": 64, "activation_function": "gelu_new", "tie_word_embeddings": False,
}  # fmt: skip
QWEN2_7B = {
    "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
    "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 131072,
    "sliding_window": 131072, "max_window_layers": 28, "use_sliding_window": False,
}  # fmt: skip
LLAMA4_SCOUT = {
    "model_type": "llama4_text", "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
    "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
    "vocab_size": 202048, "max_position_embeddings": 10485760, "num_local_experts": 16, "num_experts_per_tok": 1,
    "attention_chunk_size": 8192,
}  # fmt: skip
QWEN3_NEXT_LAYERS = ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 12
DEEPSEEK_V3_ROUTING = {**LLAMA, "model_type": "deepseek_v3", "n_group": 8, "topk_group": 4}
MISTRAL_V01 = {**LLAMA, "model_type": "mistral", "max_position_embeddings": 32768, "sliding_window": 4096}


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    """Each test starts in English and leaves the language as it found it (``--lang zh`` sets it)."""
    saved = i18n.get_language()
    i18n.set_language("en")
    yield
    i18n.set_language(saved)


def _both(note: Any) -> tuple[str, str]:
    return note.render("zh"), note.render("en")


# --------------------------------------------------------------------------- python -m coursekit.planner


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COURSEKIT_LANG": "en"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False, env=env, cwd=ROOT)


def test_python_m_coursekit_planner_is_plan() -> None:
    planner, plan = _run("-m", "coursekit.planner", "--help"), _run("-m", "coursekit", "plan", "--help")
    assert planner.returncode == 0, planner.stderr
    assert planner.stdout == plan.stdout  # the same parser, so the same (correct) usage line
    assert planner.stdout.startswith("usage: python -m coursekit plan (--model MODEL | --model-config FILE.json)")
    bad = _run("-m", "coursekit.planner", "--model", "llama3-8b", "--cluster", "h100-8")
    assert bad.returncode == 2 and "the following arguments are required: --global-batch" in bad.stderr


def test_planner_main_runs_the_plan_command(capsys: pytest.CaptureFixture[str]) -> None:
    from coursekit.planner.__main__ import main as planner_main

    argv = ["--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16", "--top", "0", "--json"]
    assert planner_main(argv) == 0
    via_planner = json.loads(capsys.readouterr().out)
    assert main(["plan", *argv]) == 0
    assert json.loads(capsys.readouterr().out)["accepted_count"] == via_planner["accepted_count"]
    assert planner_main(["plan", *argv]) == 0  # a leading "plan" is taken as the command's name
    assert json.loads(capsys.readouterr().out)["accepted_count"] == via_planner["accepted_count"]


# --------------------------------------------------------------------------- config keys not modelled

# (config, the key and value the note names, a phrase of its English and of its Chinese text)
NOTED = [
    pytest.param(NEOX_20B, "rotary_pct=0.25", "turns 25% of each", "25% 的维度", id="neox-rotary_pct"),
    pytest.param(NEOX_20B, "use_parallel_residual=true", "run in parallel", "并行计算", id="neox-parallel-residual"),
    pytest.param(FALCON_180B, "parallel_attn=true", "run in parallel", "并行计算", id="falcon-parallel_attn"),
    pytest.param(
        {k: v for k, v in FALCON_180B.items() if k not in ("parallel_attn", "new_decoder_architecture")},
        "parallel_attn=true (the default)",
        "run in parallel",
        "parallel_attn=true（缺省值）",
        id="falcon-parallel_attn-default",
    ),
    pytest.param(
        {**FALCON_180B, "parallel_attn": False},
        "new_decoder_architecture=true",
        "run in parallel",
        "并行计算",
        id="falcon-new-decoder",
    ),
    pytest.param(
        GPT_OSS_120B,
        "sliding_window=128 on 18 of 36 layers",
        "cover only the query-key pairs inside the window",
        "sliding_window=128，作用于 36 层中的 18 层",
        id="gpt-oss-sliding-window",
    ),
    pytest.param(
        {**GPT_OSS_120B, "layer_types": ["sliding_attention", "full_attention"] * 18},
        "sliding_window=128 on 18 of 36 layers (as layer_types lists)",
        "passes every layer's K/V as for full attention",
        "按 layer_types",
        id="gpt-oss-layer_types",
    ),
    pytest.param(GPT_OSS_120B, 'model_type="gpt_oss"', "attention sinks", "注意力汇", id="gpt-oss-sinks"),
    pytest.param(PHI_2, "partial_rotary_factor=0.4", "turns 40% of each", "40% 的维度", id="phi-partial-rotary"),
    pytest.param(PHI_2, 'model_type="phi"', "run in parallel", "并行计算", id="phi-parallel-block"),
    pytest.param(GPT_J, "rotary_dim=64", "turns 25% of each", "25% 的维度", id="gptj-rotary_dim"),
    pytest.param(
        GEMMA_3_27B,
        "sliding_window=1024 on 52 of 62 layers (sliding_window_pattern=6",
        "the last 1024 tokens",
        "62 层中的 52 层",
        id="gemma3-pattern",
    ),
    pytest.param(
        GEMMA_3_27B,
        "sliding_window=1024 on 52 of 62 layers",
        "KV cache holds at most 1024 tokens per request",
        "每个请求最多存 1024 个 token",
        id="gemma3-window-kv-cache",
    ),
    pytest.param(
        {**QWEN2_7B, "use_sliding_window": True, "sliding_window": 4096, "max_window_layers": 20},
        "sliding_window=4096 on 8 of 28 layers (from max_window_layers=20 on)",
        "taken as on a whole sequence",
        "28 层中的 8 层",
        id="qwen2-window-on",
    ),
    pytest.param(
        MISTRAL_V01, "sliding_window=4096 on 32 of 32 layers (every layer)", "Not modelled", "每一层", id="mistral"
    ),
    pytest.param(
        LLAMA4_SCOUT,
        "attention_chunk_size=8192 on 36 of 48 layers",
        "chunks of 8192 tokens",
        "48 层中的 36 层",
        id="llama4-chunked",
    ),
    pytest.param(
        {**LLAMA, "num_hidden_layers": 48, "layer_types": QWEN3_NEXT_LAYERS},
        "layer_types: 36 of 48 layers are 'linear_attention'",
        "softmax attention",
        "48 层中有 36 层是 'linear_attention'",
        id="linear-attention-layers",
    ),
    pytest.param(
        DEEPSEEK_V3_ROUTING, "topk_group=4 of n_group=8", "--ep-node-limit", "topk_group=4（n_group=8）", id="groups"
    ),
]


@pytest.mark.parametrize(("config", "named", "en_phrase", "zh_phrase"), NOTED)
def test_a_key_not_modelled_is_named_in_both_languages(
    config: dict[str, Any], named: str, en_phrase: str, zh_phrase: str
) -> None:
    notes = [_both(note) for note in config_notes(config)]
    english = [en for _zh, en in notes if named in en and en_phrase in en]
    assert len(english) == 1, [en for _zh, en in notes]
    zh, en = next(pair for pair in notes if pair[1] == english[0])
    key = named.split("=")[0].split(":")[0]
    assert key in zh and zh_phrase in zh and "未建模" in zh and "not modelled" in en.lower()
    # ModelSpec.from_config carries the note in its source, in the current language
    assert en in ModelSpec.from_config(config).source
    i18n.set_language("zh")
    assert zh in ModelSpec.from_config(config).source


def test_the_auditors_configs_get_their_notes() -> None:
    """The four held-out configs: every key the audit found dropped is now named (OPT's has none left: its dropout
    and ffn_dim are read)."""
    expected = {
        "neox": (NEOX_20B, ["rotary_pct=0.25", "use_parallel_residual=true"]),
        "falcon": (FALCON_180B, ["parallel_attn=true"]),
        "gpt-oss": (GPT_OSS_120B, ["sliding_window=128 on 18 of 36 layers", 'model_type="gpt_oss"']),
    }
    for name, (config, starts) in expected.items():
        notes = [note.render("en") for note in config_notes(config)]
        assert len(notes) == len(starts), name
        for note, start in zip(notes, starts, strict=True):
            assert note.startswith(start), (name, note)
    opt = {
        "model_type": "opt", "hidden_size": 12288, "num_hidden_layers": 96, "num_attention_heads": 96,
        "ffn_dim": 49152, "vocab_size": 50272, "max_position_embeddings": 2048, "dropout": 0.1,
        "attention_dropout": 0.0, "activation_function": "relu",
    }  # fmt: skip
    assert config_notes(opt) == ()
    model = ModelSpec.from_config(opt)
    assert (model.dropout, model.ffn_hidden) == (0.1, 49152)
    assert ModelSpec.from_config({**opt, "ffn_dim": 4 * 12288 + 64}).ffn_hidden == 4 * 12288 + 64  # read, not 4h


NEUTRAL = [
    pytest.param(LLAMA, id="plain-llama"),
    pytest.param(  # GPT-NeoX's own activation (GELU): SiLU on a 2-matrix MLP type gets a note (fuzz pass 22)
        {**LLAMA, "model_type": "gpt_neox", "hidden_act": "gelu", "rotary_pct": 1.0, "use_parallel_residual": False},
        id="neox",
    ),
    pytest.param({**PHI_2, "model_type": "stablelm", "partial_rotary_factor": 1.0}, id="partial-rotary-1"),
    pytest.param({**LLAMA, "sliding_window": None, "layer_types": ["full_attention"] * 32}, id="window-null"),
    pytest.param({**FALCON_180B, "parallel_attn": False, "new_decoder_architecture": False}, id="falcon-sequential"),
    pytest.param(QWEN2_7B, id="qwen2-window-off"),
    pytest.param({**MISTRAL_V01, "sliding_window": 32768}, id="window-covers-the-length"),
    pytest.param({**GPT_J, "rotary_dim": None, "model_type": "gpt2"}, id="rotary-dim-null"),
    pytest.param({**DEEPSEEK_V3_ROUTING, "topk_group": 8}, id="all-groups"),
    pytest.param({**LLAMA4_SCOUT, "attention_chunk_size": None}, id="no-chunks"),
]


@pytest.mark.parametrize("config", NEUTRAL)
def test_a_key_at_its_neutral_value_gets_no_note(config: dict[str, Any]) -> None:
    assert config_notes(config) == ()
    source = ModelSpec.from_config(config).source
    assert source.startswith("config.json (") and source.endswith(")") and "not modelled" not in source


def test_a_plain_llama_source_is_unchanged() -> None:
    assert ModelSpec.from_config(LLAMA).source == "config.json (model_type llama)"


def test_notes_never_refuse_a_config() -> None:
    odd = {**NEOX_20B, "rotary_pct": "a quarter", "sliding_window": True, "layer_types": "all", "n_group": 8.5}
    assert [note.render("en").split(":")[0] for note in config_notes(odd)] == ["use_parallel_residual=true"]
    with pytest.raises(TypeError, match="must be a JSON object"):
        config_notes([1, 2])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the command line prints them


def _config_file(tmp_path: Path, config: dict[str, Any]) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return str(path)


SMALL_NEOX = {**NEOX_20B, "hidden_size": 512, "num_hidden_layers": 4, "num_attention_heads": 8,
              "intermediate_size": 2048, "vocab_size": 1024}  # fmt: skip
SMALL_PLAN = ["--cluster", "a100-8", "--global-batch", "16", "--top", "0", "--seq-len", "512"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cli_prints_the_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str) -> None:
    path = _config_file(tmp_path, SMALL_NEOX)
    assert main(["plan", "--model-config", path, *SMALL_PLAN, "--lang", lang]) == 0
    out = capsys.readouterr().out
    heading = {"en": f"Keys of the model config {path} the planner does not model", "zh": f"模型配置 {path} 中"}
    assert out.startswith(heading[lang])
    for note in config_notes(SMALL_NEOX):
        assert f"  - {note.render(lang)}\n" in out
    assert "rotary_pct=0.25" in out and "use_parallel_residual=true" in out


def test_the_cli_puts_the_notes_in_its_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config_file(tmp_path, SMALL_NEOX)
    assert main(["plan", "--model-config", path, *SMALL_PLAN, "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["model_config_notes"]
    assert [note.split(":")[0] for note in notes] == ["rotary_pct=0.25", "use_parallel_residual=true"]
    plain = _config_file(tmp_path, {**SMALL_NEOX, "model_type": "llama", "rotary_pct": 1.0})
    del_keys = {k: v for k, v in json.loads(Path(plain).read_text()).items() if k != "use_parallel_residual"}
    plain = _config_file(tmp_path, del_keys)
    assert main(["plan", "--model-config", plain, *SMALL_PLAN, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model_config_notes"] == []
    assert main(["plan", "--model-config", plain, *SMALL_PLAN]) == 0
    assert "does not model" not in capsys.readouterr().out
    assert main(["plan", "--model", "gpt2-small", *SMALL_PLAN, "--json"]) == 0  # a preset: no such key
    assert "model_config_notes" not in json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------- latency flags

CUSTOM = ["--gpu-memory-gib", "80", "--peak-tflops", "989", "--hbm-gb-s", "3350", "--gpus-per-node", "8",
          "--intra-gb-s", "450", "--inter-gb-s", "50"]  # fmt: skip
BASE = ["plan", "--model", "gpt2-small", "--global-batch", "16", "--top", "0", "--json"]


def _cluster_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main([*BASE, *argv]) == 0
    cluster: dict[str, Any] = json.loads(capsys.readouterr().out)["cluster"]
    return cluster


def test_latency_flags_reach_the_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    custom = _cluster_of([*CUSTOM, "--intra-latency-us", "2.5", "--inter-latency-us", "25"], capsys)
    assert (custom["intra_node_latency_s"], custom["inter_node_latency_s"]) == (2.5e-6, 25e-6)
    default = _cluster_of(CUSTOM, capsys)  # left out: NCCL's ring latencies, as before the flags
    assert (default["intra_node_latency_s"], default["inter_node_latency_s"]) == (
        NCCL_RING_NVLINK_LATENCY_S,
        NCCL_RING_NET_LATENCY_S,
    )
    # with --cluster they replace the preset's, as --inter-gb-s replaces its bandwidth
    pcie = _cluster_of(["--cluster", "pcie-24g-8", "--inter-latency-us", "40"], capsys)
    assert pcie["inter_node_latency_s"] == 40e-6
    assert pcie["intra_node_latency_s"] == CLUSTERS["pcie-24g-8"].intra_node_latency_s
    assert _cluster_of(["--cluster", "h100-8", "--intra-latency-us", "0"], capsys)["intra_node_latency_s"] == 0.0


def test_latency_bounds_are_the_cluster_specs_in_microseconds() -> None:
    h100 = CLUSTERS["h100-8"]
    assert isinstance(h100, ClusterSpec)
    with pytest.raises(ValueError, match="inter_node_latency_s"):
        dataclasses.replace(h100, inter_node_latency_s=MAX_LATENCY_S * 1.001)
    with pytest.raises(ValueError, match="intra_node_latency_s"):
        dataclasses.replace(h100, intra_node_latency_s=-1e-9)
    parser = _subparser(build_parser(), "plan")
    required = ["--model", "gpt2-small", "--cluster", "h100-8", "--global-batch", "16"]
    top = MAX_LATENCY_S * 1e6
    args = parser.parse_args([*required, "--intra-latency-us", repr(top), "--inter-latency-us", "0"])
    assert (args.intra_latency_us, args.inter_latency_us) == (top, 0.0)


@pytest.mark.parametrize(
    ("flag", "value", "en", "zh"),
    [
        ("--intra-latency-us", "-1", "intra_latency_us = -1.0: must be >= 0.", "intra_latency_us = -1.0：必须 >= 0。"),
        (
            "--inter-latency-us",
            "1000001",
            "inter_latency_us = 1000001.0: must be <= 1000000.0.",
            "inter_latency_us = 1000001.0：必须 <= 1000000.0。",
        ),
        ("--inter-latency-us", "nan", "inter_latency_us", "inter_latency_us"),
        ("--dropout", "1", "dropout = 1.0: must be < 1.", "dropout = 1.0：必须 < 1。"),
        ("--dropout", "-0.1", "dropout = -0.1: must be >= 0.", "dropout = -0.1：必须 >= 0。"),
    ],
)
def test_out_of_bounds_is_refused_naming_the_flag(
    flag: str, value: str, en: str, zh: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for lang, message, argument in (("en", en, f"argument {flag}: "), ("zh", zh, f"参数 {flag}：")):
        with pytest.raises(SystemExit) as info:
            main([*BASE, "--cluster", "h100-8", f"{flag}={value}", "--lang", lang])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert argument in err and message in err and "Traceback" not in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_lists_the_new_flags(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["plan", "--help", "--lang", lang])
    out = capsys.readouterr().out
    for flag in ("--intra-latency-us", "--inter-latency-us", "--dropout P"):
        assert flag in out
    assert ("microseconds" if lang == "en" else "微秒") in "".join(out.split())  # zh wraps between characters


def test_cluster_argv_carries_a_latency_of_your_own() -> None:
    own = dataclasses.replace(CLUSTERS["h100-8"], inter_node_latency_s=25e-6)
    argv = _cluster_argv(own)
    assert argv[argv.index("--inter-latency-us") + 1] == "25.0"
    assert "--intra-latency-us" not in argv  # NCCL's ring latency is the command line's default
    assert "--inter-latency-us" not in _cluster_argv(CLUSTERS["h100-8"])


# --------------------------------------------------------------------------- --dropout


def test_dropout_flag_sets_the_models_dropout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config_file(tmp_path, SMALL_NEOX)  # no dropout key: 0 as read
    argv = ["plan", "--model-config", path, *SMALL_PLAN, "--json"]
    assert main(argv) == 0
    without = json.loads(capsys.readouterr().out)
    assert without["model"]["dropout"] == 0.0
    assert main([*argv, "--dropout", "0.1"]) == 0
    with_dropout = json.loads(capsys.readouterr().out)
    assert with_dropout["model"]["dropout"] == 0.1
    assert main([*argv, "--dropout", "0"]) == 0  # and back to none over a config's own
    assert json.loads(capsys.readouterr().out)["model"]["dropout"] == 0.0
    # the dropout masks cost memory: the same composition needs more of it
    memory = []
    for extra in ([], ["--dropout", "0.1"]):
        assert main([*argv, *extra, "--explain", "tp=1,pp=1,dp=8,zero=0,mb=2,recompute=none"]) == 0
        memory.append(json.loads(capsys.readouterr().out)["explain"]["memory_gib"]["activations"])
    assert memory[1] > memory[0]
    # on a preset too
    assert main(["plan", "--model", "gpt2-small", *SMALL_PLAN, "--json", "--dropout", "0.2"]) == 0
    assert json.loads(capsys.readouterr().out)["model"]["dropout"] == 0.2
