"""What the Chinese self-learner of review 21 met bringing their own model and cluster to lesson 9's workbench, fixed.

1. ``ClusterSpec`` typed from a vendor sheet: ``peak_flops=312`` (TFLOPS), ``intra_node_bandwidth_bytes_per_s=200``
   (GB/s) or ``memory_per_device_gib=80e9`` (bytes) were refused with "必须 >= 1000000000.0" and no word of the unit
   the field wants; leaving out the two latencies named them but not what to give.
2. Vendor figures that a unit or direction slip gives were taken silently: an A800 node typed as printed (NVLink
   400 GB/s, both directions summed; 4 x 200 Gb/s InfiniBand per node typed as 800 "GB/s") planned on a network
   faster than NVLink. The report (and the CLI) now list a note under the assumptions.
3. The CLI: ``--peak-tflops 312e12``, ``--gpu-memory-gib 24GB`` or ``--intra-gb-s 32e9`` were refused without the
   flag's unit; the help of ``--intra-gb-s`` / ``--inter-gb-s`` did not say how to convert a datasheet's
   bidirectional or Gb/s figure, and nothing in ``plan --help`` led back to lesson 9.
4. Lesson 9's "your own model and cluster" section did not explain the fields it asks for (units, direction, per GPU
   or per node, the latencies), nor point to the CLI help.
5. Decimal commas in an answer: ``answer = 0,639`` (a tuple (0, 639)) got "必须是实数，而不是 tuple", and
   ``'0,639'`` / ``answer = 0，639`` were told to write 0639 (a thousands reading no number starting with 0 has).
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from coursekit.__main__ import main
from coursekit.exercises import check
from coursekit.exercises.input_help import input_hint
from coursekit.hardware import NCCL_RING_NET_LATENCY_S, NCCL_RING_NVLINK_LATENCY_S
from coursekit.planner import ClusterSpec, ModelSpec, WorkloadSpec, plan
from coursekit.presets import CLUSTERS
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)

ROOT = Path(__file__).resolve().parents[1]

#: NVIDIA A800 80GB SXM datasheet: 312 TFLOPS bf16 dense, 2039 GB/s HBM2e, NVLink 400 GB/s (both directions)
A800 = {
    "name": "a800-8",
    "nodes": 2,
    "gpus_per_node": 8,
    "memory_per_device_gib": 81920 / 1024,  # nvidia-smi: A800-SXM4-80GB, 81920 MiB
    "peak_flops": 312e12,
    "intra_node_latency_s": 3.4e-6,
    "inter_node_latency_s": 14e-6,
    "memory_bandwidth_bytes_per_s": 2039e9,
}
#: the same node converted by hand: NVLink 400 / 2 = 200 GB/s one way; 4 x 200 Gb/s / 8 bits / 8 GPUs = 12.5 GB/s
A800_CONVERTED = {**A800, "intra_node_bandwidth_bytes_per_s": 200e9, "inter_node_bandwidth_bytes_per_s": 12.5e9}


# -- 0. the learner's own config.json files: each planned, its parameter count within 1 % of the public figure ------

#: Public config.json keys (Hugging Face / ModelScope model pages) and the parameter count the model card states:
#: Qwen2.5-7B-Instruct 7.61B, Qwen2.5-72B 72.7B, Qwen3-32B 32.8B, Qwen3-30B-A3B 30.5B total (model cards);
#: DeepSeek-V2-Lite 15.7B (model card); Llama-3.1-8B 8.03B (Hugging Face's safetensors count); GLM-4-9B 9.40B,
#: Yi-34B 34.39B, InternLM2.5-7B 7.74B, Baichuan2-13B 13.9B (Hugging Face's safetensors counts).
OWN_CONFIGS: dict[str, tuple[dict[str, Any], float]] = {
    "qwen2.5-7b-instruct": ({
        "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
        "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064,
        "max_position_embeddings": 32768, "tie_word_embeddings": False, "hidden_act": "silu",
    }, 7.61e9),
    "qwen2.5-72b": ({
        "model_type": "qwen2", "hidden_size": 8192, "intermediate_size": 29568, "num_hidden_layers": 80,
        "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 152064,
        "max_position_embeddings": 131072, "tie_word_embeddings": False,
    }, 72.7e9),
    "qwen3-32b": ({
        "model_type": "qwen3", "hidden_size": 5120, "intermediate_size": 25600, "num_hidden_layers": 64,
        "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
        "max_position_embeddings": 40960, "tie_word_embeddings": False, "attention_bias": False,
    }, 32.8e9),
    "qwen3-30b-a3b": ({
        "model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
        "num_experts": 128, "num_experts_per_tok": 8, "decoder_sparse_step": 1, "mlp_only_layers": [],
        "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
        "vocab_size": 151936, "max_position_embeddings": 40960, "tie_word_embeddings": False,
    }, 30.5e9),
    "deepseek-v2-lite": ({
        "model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944, "moe_intermediate_size": 1408,
        "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1,
        "moe_layer_freq": 1, "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16,
        "kv_lora_rank": 512, "q_lora_rank": None, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
        "v_head_dim": 128, "vocab_size": 102400, "max_position_embeddings": 163840, "tie_word_embeddings": False,
    }, 15.7e9),
    "llama-3.1-8b": ({
        "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
        "max_position_embeddings": 131072, "tie_word_embeddings": False,
    }, 8.03e9),
    "glm-4-9b": ({
        "model_type": "chatglm", "hidden_size": 4096, "ffn_hidden_size": 13696, "num_layers": 40,
        "num_attention_heads": 32, "kv_channels": 128, "multi_query_attention": True, "multi_query_group_num": 2,
        "add_qkv_bias": True, "add_bias_linear": False, "padded_vocab_size": 151552, "seq_length": 8192,
        "rmsnorm": True, "tie_word_embeddings": False,
    }, 9.40e9),
    "yi-34b": ({
        "model_type": "llama", "hidden_size": 7168, "intermediate_size": 20480, "num_hidden_layers": 60,
        "num_attention_heads": 56, "num_key_value_heads": 8, "vocab_size": 64000, "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
    }, 34.39e9),
    "internlm2.5-7b": ({
        "model_type": "internlm2", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 92544, "max_position_embeddings": 32768,
        "bias": False, "tie_word_embeddings": False,
    }, 7.74e9),
    "baichuan2-13b": ({
        "model_type": "baichuan", "hidden_size": 5120, "intermediate_size": 13696, "num_hidden_layers": 40,
        "num_attention_heads": 40, "vocab_size": 125696, "model_max_length": 4096, "tie_word_embeddings": False,
    }, 13.9e9),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(OWN_CONFIGS))
def test_a_learners_config_json_is_read_within_one_percent(name: str) -> None:
    config, published = OWN_CONFIGS[name]
    assert abs(ModelSpec.from_config(config).num_params / published - 1) < 0.01


def test_qwen2_5_7b_counted_by_hand() -> None:
    # embedding and head 2·V·h; per layer: Q and O h·h each, K and V h·(kv·d) each with the Q/K/V biases, the SwiGLU
    # MLP 3·h·f, two RMSNorms 2·h; plus the final norm h (d = h / heads = 128): 7,615,616,512, the count of the
    # published safetensors. The planner leaves out Qwen2's Q/K/V biases (4,608 a layer, 0.002 %), which no
    # config.json key states.
    h, f, layers, v, kv, d = 3584, 18944, 28, 152064, 4, 128
    layer = 2 * h * h + 2 * h * kv * d + (h + 2 * kv * d) + 3 * h * f + 2 * h
    by_hand = 2 * v * h + layers * layer + h
    assert by_hand == 7_615_616_512
    assert abs(ModelSpec.from_config(OWN_CONFIGS["qwen2.5-7b-instruct"][0]).num_params / by_hand - 1) < 1e-4


# -- 1. ClusterSpec names the unit a field wants ------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("field", "typed", "unit"),
    [
        (
            "peak_flops",
            312,
            "单位是 FLOP/s（每秒浮点运算次数），不是 TFLOP/s：数据手册的稠密 bf16 312 TFLOPS 写作 312e12",
        ),
        ("peak_flops", "312 TFLOPS", "不是 TFLOP/s"),
        ("intra_node_bandwidth_bytes_per_s", 200, "单位是字节/秒 (bytes/s)，每 GPU 单向：200 GB/s 写作 200e9"),
        ("inter_node_bandwidth_bytes_per_s", 12.5, "4 * 200e9 / 8 / 8 = 12.5e9"),
        ("memory_per_device_gib", 80e9, "单位是 GiB（2^30 字节），一个数：nvidia-smi 显示的显存总量（MiB）除以 1024"),
        ("memory_per_device_gib", "８０", "单位是 GiB"),
        ("memory_bandwidth_bytes_per_s", 2039, "2039 GB/s 写作 2039e9"),
        ("intra_node_latency_s", 3.4, "单位是秒：3.4 微秒写作 3.4e-6。"),
    ],
)
def test_a_vendor_figure_in_the_wrong_unit_is_told_the_unit(field: str, typed: object, unit: str) -> None:
    with pytest.raises((TypeError, ValueError)) as refused:
        ClusterSpec(**{**A800_CONVERTED, field: typed})
    message = str(refused.value)
    assert message.startswith(f"{field} = {typed!r}：") and unit in message


@pytest.mark.usefixtures("en")
def test_the_unit_in_english() -> None:
    with pytest.raises(ValueError, match=r"The unit is FLOP/s, not TFLOP/s: a datasheet's dense bf16 312 TFLOPS"):
        ClusterSpec(**{**A800_CONVERTED, "peak_flops": 312})


@pytest.mark.usefixtures("zh")
def test_left_out_latencies_are_given_the_command_lines_defaults() -> None:
    without = {k: v for k, v in A800_CONVERTED.items() if not k.endswith("latency_s")}
    with pytest.raises(TypeError) as refused:
        ClusterSpec(**without)
    # NCCL's ring step latencies, the CLI's defaults (coursekit.hardware): 3.4 us inside a node, 14 us across
    assert (NCCL_RING_NVLINK_LATENCY_S, NCCL_RING_NET_LATENCY_S) == (3.4e-6, 14e-6)
    assert str(refused.value).endswith(
        "不知道时用 NCCL 环形算法每一步的默认值（命令行不写 --intra-latency-us、--inter-latency-us 时也用它们）："
        "intra_node_latency_s=3.4e-06、inter_node_latency_s=1.4e-05（秒）。"
    )


# -- 2. a unit or direction slip is listed with the assumptions -----------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_an_a800_node_typed_as_printed_gets_three_notes() -> None:
    printed = ClusterSpec(**A800, intra_node_bandwidth_bytes_per_s=400e9, inter_node_bandwidth_bytes_per_s=800e9)
    notes = [str(note) for note in printed.unit_notes()]
    assert notes == [
        "请核对集群的单位：跨节点带宽 800 GB/s 高于节点内带宽 400 GB/s（两者都按每 GPU 单向计），实际机器上跨节点的"
        "网卡比节点内的链路慢。是否把网卡的 Gb/s（吉比特每秒）当成了 GB/s（要除以 8），或填了每节点所有网卡之和（要再"
        "除以每节点的 8 张卡）？",
        "请核对集群的单位：跨节点带宽 800 GB/s（每 GPU 单向）超过每张卡配一块 800 Gb/s 网卡的 100 GB/s。网卡的 Gb/s "
        "要除以 8，每节点的总和要再除以每节点的 8 张卡。",
        "请核对方向：节点内带宽 400 GB/s 正是数据手册上 A800/H800 NVLink 的双向数字（两个方向之和）；本课程用每 GPU "
        "单向带宽，A800/H800 是 200 GB/s。若你的机器单向确实是 400 GB/s，可以不管这条。",
    ]
    assert ClusterSpec(**A800_CONVERTED).unit_notes() == ()
    # an intra-node figure above NVLink 5's 900 GB/s each way (a B200's 1800 GB/s both ways typed as is)
    b200 = ClusterSpec(**{**A800_CONVERTED, "intra_node_bandwidth_bytes_per_s": 1800e9})
    assert [str(n) for n in b200.unit_notes()] == [
        "请核对集群的单位：节点内带宽 1800 GB/s（每 GPU 单向）超过 NVLink 5（B200）单向的 900 GB/s：是否填了两个方向"
        "之和？本课程用单向带宽，双向的数字要除以 2。"
    ]
    assert not any(cluster.unit_notes() for cluster in CLUSTERS.values())


@pytest.mark.usefixtures("zh")
def test_the_plan_report_lists_the_notes_under_its_assumptions() -> None:
    config = OWN_CONFIGS["llama-3.1-8b"][0]
    printed = ClusterSpec(**A800, intra_node_bandwidth_bytes_per_s=200e9, inter_node_bandwidth_bytes_per_s=200e9)
    result = plan(ModelSpec.from_config(config), printed, WorkloadSpec(global_batch=64, seq_len=4096))
    report = result.report(top=1)
    assert "  - 请核对集群的单位：跨节点带宽 200 GB/s 高于节点内带宽 200 GB/s" not in report  # equal is no slip
    printed = ClusterSpec(**A800, intra_node_bandwidth_bytes_per_s=200e9, inter_node_bandwidth_bytes_per_s=800e9)
    report = plan(ModelSpec.from_config(config), printed, WorkloadSpec(global_batch=64, seq_len=4096)).report(top=1)
    head = report.split("搜索空间")[0]
    assert "\n  - 请核对集群的单位：跨节点带宽 800 GB/s 高于节点内带宽 200 GB/s" in head


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


_CUSTOM = ["--gpu-memory-gib", "80", "--peak-tflops", "312", "--hbm-gb-s", "2039", "--gpus-per-node", "8"]


def test_the_cli_lists_the_notes_of_a_node_typed_as_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(OWN_CONFIGS["qwen2.5-7b-instruct"][0]), encoding="utf-8")
    argv = ["plan", "--lang", "zh", "--model-config", str(path), *_CUSTOM, "--nodes", "2", "--global-batch", "64"]
    code, out, err = _run([*argv, "--intra-gb-s", "400", "--inter-gb-s", "800", "--top", "1"], capsys)
    assert code == 0 and not err
    assert "跨节点带宽 800 GB/s 高于节点内带宽 400 GB/s" in out and "A800/H800 NVLink 的双向数字" in out
    code, out, err = _run([*argv, "--intra-gb-s", "200", "--inter-gb-s", "12.5", "--top", "1"], capsys)
    assert code == 0 and "请核对" not in out


# -- 3. the CLI's custom-cluster flags name their unit ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "typed", "said"),
    [
        ("--peak-tflops", "312e12", "只写一个数，单位由参数名给定：TFLOP/s，312 TFLOPS 写 312，不写 312e12。"),
        (
            "--gpu-memory-gib",
            "24GB",
            "'24GB' 不是数。只写一个数，单位由参数名给定：GiB，nvidia-smi 显示的 MiB 除以 1024",
        ),
        ("--gpu-memory-gib", "２４", "全角数字）。只写一个数，单位由参数名给定：GiB"),
        ("--intra-gb-s", "200e9", "单位由参数名给定：每 GPU 单向 GB/s，NVLink 双向 400 GB/s 写 200。"),
        ("--inter-gb-s", "12.5e9", "单位由参数名给定：每 GPU 单向 GB/s，每节点 4 × 200 Gb/s、8 张卡写 12.5。"),
    ],
)
def test_a_custom_cluster_flag_refused_names_its_unit(
    flag: str, typed: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    values = dict(zip(_CUSTOM[::2], _CUSTOM[1::2], strict=True))
    values.update({"--intra-gb-s": "200", "--inter-gb-s": "12.5", flag: typed})
    argv = ["plan", "--lang", "zh", "--model", "llama3-8b", "--global-batch", "64"]
    code, _, err = _run([*argv, *(item for pair in values.items() for item in pair)], capsys)
    assert code == 2 and said in err and "Traceback" not in err


def test_the_help_converts_datasheet_figures_and_leads_back_to_lesson_9(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # one line a paragraph
    code, out, _ = _run(["plan", "--lang", "zh", "--help"], capsys)
    flat = " ".join(out.split())
    assert code == 0
    assert "数据手册的 NVLink 数字是双向之和，要除以 2：A800 的 400 GB/s 填 200" in flat
    assert "每节点 4 × 200 Gb/s、8 张卡填 4 × 200 / 8 / 8 = 12.5" in flat
    assert "nvidia-smi 显示的总量（MiB）除以 1024（A100 80GB 的 81920 MiB 写 80；" in flat and 81920 / 1024 == 80
    assert "课程里的讲解：第 9 课（决策工作台）的“你自己的模型和集群”一节" in flat
    # the section the help names is the lesson's, and the lesson names the help
    source = (ROOT / "notebooks" / "src" / "09_workbench.py").read_text(encoding="utf-8")
    assert "# ### 你自己的模型和集群" in source and "`python -m coursekit plan --lang zh --help`" in source
    assert "# ### Your own model and cluster" in source and "“Your own model and cluster”" in _run(
        ["plan", "--lang", "en", "--help"], capsys
    )[1].replace("\n", " ")


# -- 4. lesson 9 explains every field it asks for ------------------------------------------------------------------


def _cells(lang: str) -> list[dict[str, Any]]:
    notebook = json.loads((ROOT / "notebooks" / lang / "09_workbench.ipynb").read_text(encoding="utf-8"))
    return list(notebook["cells"])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_lesson_9_explains_every_cluster_field_with_its_unit(lang: str) -> None:
    table = next(
        "".join(cell["source"])
        for cell in _cells(lang)
        if cell["cell_type"] == "markdown" and "| `peak_flops`" in "".join(cell["source"])
    )
    for field in fields(ClusterSpec):
        if field.name in ("peak_flops_fp8", "nvlink_domain_gpus", "compute_capability"):
            continue  # optional, explained where the lesson uses them (FP8, GB200 NVL72)
        assert f"`{field.name}`" in table, field.name
    unit = {"zh": ("**单向**", "Gb/s", "`81920 / 1024`", "`312e12`"), "en": ("**one way**", "Gb/s", "`312e12`")}
    assert all(word in table for word in unit[lang])
    # the latencies it proposes are the command line's defaults
    assert "`3.4e-6` 和 `14e-6`" in table if lang == "zh" else "`3.4e-6` and `14e-6`" in table


# -- 5. decimal commas -------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ((0, 639), "0,639 成了元组。小数要用小数点：写成 0.639。"),
        ((1, 6201), "1,6201 成了元组。小数要用小数点：写成 1.6201。"),
        ("0,639", "而且小数点写成了逗号，Python 的小数点是半角句点 '.'：只写数，不加引号，写成 answer = 0.639。"),
    ],
)
def test_a_decimal_comma_after_zero_is_a_decimal_comma(answer: object, said: str) -> None:
    feedback = check("plan.cp_cost", answer)
    assert feedback.status == "invalid" and said in feedback.message and "0639" not in feedback.message
    # a thousands comma stays one
    assert "写成 1772" in check("plan.memory_removed", (1, 772)).message


@pytest.mark.usefixtures("zh")
def test_a_full_width_decimal_comma_after_zero() -> None:
    with pytest.raises(SyntaxError) as typed:
        compile("answer = 0，639", "<cell>", "exec")
    assert input_hint(typed.value, "answer = 0，639") == (
        "第 1 行的数中间有 '，'：这是中文输入法打出的全角逗号；而且 Python 的小数点是半角句点 '.'，不是逗号。"
        "把输入法切换到英文，重新输入这一行：answer = 0.639"
    )
    with pytest.raises(SyntaxError) as typed:
        compile("answer = 10，639", "<cell>", "exec")
    assert str(input_hint(typed.value, "answer = 10，639")).endswith("answer = 10639")


# -- 6. a config.json the planner refuses or reads only in part says what to do -------------------------------------


@pytest.mark.usefixtures("zh")
def test_a_missing_key_says_what_to_do() -> None:
    # a Qwen2-VL-style config.json without a context length: refused, naming the key and what to add
    config = {k: v for k, v in OWN_CONFIGS["qwen2.5-7b-instruct"][0].items() if k != "max_position_embeddings"}
    with pytest.raises(ValueError) as refused:
        ModelSpec.from_config(config)
    assert str(refused.value) == (
        "模型配置缺少键 'max_position_embeddings'（也接受：n_positions, seq_length, model_max_length）。"
        "请把它补进 config.json（值见模型卡或原版模型的 config.json），或改用上面任一个同义键。"
    )


@pytest.mark.usefixtures("zh")
def test_an_awq_config_is_noted_as_quantized(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Qwen2.5-7B-Instruct-AWQ's config.json is the original's with a quantization_config (4-bit AWQ)
    config = {
        **OWN_CONFIGS["qwen2.5-7b-instruct"][0],
        "quantization_config": {"bits": 4, "group_size": 128, "quant_method": "awq", "version": "gemm"},
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    argv = ["plan", "--lang", "zh", "--model-config", str(path), "--cluster", "pcie-24g-8", "--global-batch", "64"]
    code, out, _ = _run([*argv, "--seq-len", "4096", "--top", "1"], capsys)
    assert code == 0
    assert (
        '  - quantization_config（quant_method="awq"，4 位）：这是量化后的权重，用于推理；训练规划按 16 位权重和完整的'
        "优化器状态计。要规划训练或微调，请用原版（未量化）模型的 config.json。"
    ) in out


def test_lesson_9_runs_the_cli_with_the_kernels_python() -> None:
    # under `make lab` the kernel is .venv/bin/python but a notebook's `!python` is the first python on PATH, which
    # may lack coursekit: the lesson names sys.executable, and the terminal's .venv/bin/python
    source = (ROOT / "notebooks" / "src" / "09_workbench.py").read_text(encoding="utf-8")
    assert "!python -m coursekit" not in source
    assert "`!{sys.executable} -m coursekit plan --lang zh --help`" in source
    assert "`!{sys.executable} -m coursekit plan --help`" in source and "`.venv/bin/python`" in source
