"""``plan --model-config FILE.json`` and a custom cluster on the command line; bad files exit 2 with one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coursekit.__main__ import main
from tests.model_configs import GEMMA_3_27B

LLAMA3_8B = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
}
# An H100 SXM node described by hand (datasheet: 80 GB, 989 TFLOP/s bf16 dense, 3.35 TB/s; NVLink 450 GB/s and
# NDR 50 GB/s per GPU per direction).
CUSTOM = ["--gpu-memory-gib", "80", "--peak-tflops", "989", "--hbm-gb-s", "3350", "--gpus-per-node", "8",
          "--intra-gb-s", "450", "--inter-gb-s", "50"]  # fmt: skip


def _config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_own_model_and_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, json.dumps(LLAMA3_8B))
    # the DGX H100's host figures, as the preset has them: 2 TB over 8 GPUs, PCIe 5.0 x16 shared by two GPUs
    host = ["--host-memory-gib", repr(2e12 / 8 / 2**30), "--host-link-gb-s", repr(32 * 16 * 128 / 130 / 8 / 2)]
    argv = ["plan", "--model-config", path, *CUSTOM, *host, "--nodes", "2", "--global-batch", "64", "--top", "1"]
    assert main([*argv, "--lang", "en", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["accepted_count"] > 0
    # the same plan from the presets (llama3-8b on h100-8) gives the same search
    preset = ["plan", "--model", "llama3-8b", "--cluster", "h100-8", "--nodes", "2", "--global-batch", "64"]
    assert main([*preset, "--top", "1", "--json", "--lang", "en"]) == 0
    assert json.loads(capsys.readouterr().out)["accepted_count"] == data["accepted_count"]
    assert main([*argv, "--lang", "en"]) == 0
    assert "llama on custom (2 nodes × 8 devices = 16 ranks)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "does not exist"),
        ("{not json", "is not valid JSON: line 1, column 2"),
        (json.dumps({**LLAMA3_8B, "hidden_size": None}), "no key 'hidden_size'"),
        (json.dumps({**LLAMA3_8B, "num_attention_heads": 3.5}), "'num_attention_heads' = 3.5: must be an integer"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_bad_config_file_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None, message: str
) -> None:
    path = str(tmp_path / "missing.json") if text is None else _config(tmp_path, text)
    with pytest.raises(SystemExit) as info:
        main(["plan", "--model-config", path, "--cluster", "h100-8", "--global-batch", "8", "--lang", "en"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bad_config_in_chinese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, json.dumps({**LLAMA3_8B, "vocab_size": None}))
    with pytest.raises(SystemExit):
        main(["plan", "--model-config", path, "--cluster", "h100-8", "--global-batch", "8", "--lang", "zh"])
    assert "模型配置缺少键 'vocab_size'（也接受：padded_vocab_size）。" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--gpu-memory-gib", "80"], "missing: --peak-tflops, --hbm-gb-s"),
        (["--cluster", "a100-8", "--precision", "fp8"], "the devices of a100-8 have no FP8 tensor cores"),
        ([*CUSTOM, "--gpus-per-node", "0"], "argument --gpus-per-node: gpus_per_node = 0: must be >= 1."),
        (["--cluster", "h100-8", "--model-config", "x.json"], "not allowed with argument"),
    ],
)
def test_cluster_and_precision_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["plan", "--model", "llama3-8b", "--global-batch", "8", *argv, "--lang", "en"])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_fp8_and_eager_attention_are_stated(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["plan", "--model", "llama3-8b", "--cluster", "h100-8", "--global-batch", "8", "--top", "0"]
    assert main([*base, "--precision", "fp8", "--no-flash-attention", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "FP8: the linear layers' matmuls at the FP8 peak 1979 TFLOP/s" in out
    assert "attention scores materialised" in out


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], "h100-8"),
        (["--inter-latency-us", "30"], "h100-8 + --inter-latency-us 30"),
        (["--gpu-memory-gib", "94", "--inter-node-gb-s", "25"], "h100-8 + --gpu-memory-gib 94 --inter-node-gb-s 25"),
    ],
)
def test_a_changed_preset_is_named_with_its_changes(
    flags: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a preset the flags changed is not the preset any more: its name in the header and the JSON says what changed
    argv = ["plan", "--model", "llama3-8b", "--cluster", "h100-8", *flags, "--global-batch", "16", "--top", "1"]
    assert main([*argv, "--lang", "en", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cluster"]["name"] == expected
    assert main([*argv, "--lang", "zh"]) == 0
    assert f"llama3-8b 在 {expected}（" in capsys.readouterr().out.splitlines()[0]


def test_serving_plans_your_own_model_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, json.dumps(GEMMA_3_27B))
    argv = ["plan", "--mode", "serving", "--model-config", path, "--cluster", "h100-8", "--concurrency", "16",
            "--prompt-tokens", "30000", "--output-tokens", "2000"]  # fmt: skip
    assert main([*argv, "--lang", "en", "--json", "--top", "10"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("sliding_window=1024 on 52 of 62 layers" in note for note in data["model_config_notes"])
    # a request of 32,000 tokens: 10 full layers hold them all, 52 window layers 1024; on one of 8 TP ranks
    # 2 (K and V) · 16 / 8 KV heads · 128 · 2 bytes per token and layer
    per_request_gib = (10 * 32000 + 52 * 1024) * 2 * (16 // 8) * 128 * 2 / 2**30
    tp8 = next(row for row in data["top"] if row["degrees"]["tp"] == 8 and row["degrees"]["pp"] == 1)
    kv_per_request = tp8["ledger"]["kv_cache_gib"] / tp8["concurrency_per_replica"]
    assert kv_per_request == pytest.approx(per_request_gib, rel=1e-9)
    assert main([*argv, "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "未建模或只部分建模的键" in out and "每个请求最多存 1024 个 token" in out


def test_serving_refuses_a_bad_model_config_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, json.dumps({"hidden_size": 64}))
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", "--mode", "serving", "--model-config", path, "--cluster", "h100-8", "--concurrency", "4",
              "--lang", "en"])  # fmt: skip
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "num_hidden_layers" in err[0] and "Traceback" not in err[0]
