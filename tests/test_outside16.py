"""What an outside reviewer hit feeding NeMo 25.04's DGX-GB200 performance table to the workbench.

The page (docs.nvidia.com/nemo-framework/user-guide/latest/performance/archive/25.04-performance-summary.html) prints
each row's layout in columns named FSDP, TP, PP, CP, VP and EP, and measures tokens/s/GPU and model TFLOP/s/GPU. Its
legend: "FSDP = 1: use FSDP, FSDP = 0: use DDP". A reader copying a row into ``--layout`` writes those names, and
compares the estimate in the table's per-GPU units. Expected values come from the table (e.g. the GPT3-175B row:
128 GPUs, TP 4, PP 4, VP 12) and from arithmetic, not from running the code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from coursekit.planner import ClusterSpec, WorkloadSpec, plan  # noqa: F401  (ClusterSpec: the public name)
from coursekit.planner.space import parse_degrees
from coursekit.presets import CLUSTERS, MODELS
from tests.test_fuzz_regressions12 import _cli, _in

ROOT = Path(__file__).resolve().parents[1]
# NeMo 25.04, DGX-GB200, row LLAMA3-8B: 8 GPUs, GBS 128, MBS 2, sequence 8192, TP 1, PP 1, CP 1, VP 1, FSDP 0
LLAMA8 = ["plan", "--model", "llama3-8b", "--cluster", "gb200-nvl72", "--nodes", "2", "--global-batch", "128"]
LLAMA8 += ["--seq-len", "8192", "--precision", "fp8", "--fp8-recipe", "current", "--max-micro-batch", "2", "--top", "1"]


# --------------------------------------------------------------------------- 1: the tables' column names


def test_vp_reads_as_the_interleaving_depth() -> None:
    assert parse_degrees("tp=4,pp=4,cp=1,vp=12") == {"tp": 4, "pp": 4, "cp": 1, "v": 12}
    assert parse_degrees({"TP": 4, "VP": 12}) == {"tp": 4, "v": 12}
    assert parse_degrees("vpp=2") == {"v": 2}


def test_vp_and_v_together_are_one_key_given_twice() -> None:
    with pytest.raises(ValueError, match="keys 'v' and 'vp' both give the degree v"):
        parse_degrees("v=2,vp=2")


def test_fsdp_1_is_zero_3() -> None:
    assert parse_degrees("tp=1,pp=1,cp=1,fsdp=1") == {"tp": 1, "pp": 1, "cp": 1, "zero": 3}
    with pytest.raises(ValueError, match="keys 'fsdp' and 'zero' both give the degree zero"):
        parse_degrees("fsdp=1,zero=1")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_fsdp_0_says_what_to_write(lang: str) -> None:
    with pytest.raises(ValueError) as info:
        _in(lang, lambda: parse_degrees("tp=1,fsdp=0"))
    message = str(info.value)
    assert "zero=1" in message and "zero=0" in message and "--zero 0,1,2" in message
    assert ("DDP" in message) and (
        ("分布式优化器" in message) if lang == "zh" else ("distributed optimizer" in message)
    )


@pytest.mark.parametrize("value", ["true", "-1", "1.5", "0x10"])
def test_fsdp_other_values_are_refused(value: str) -> None:
    with pytest.raises(ValueError, match="must be 0, 1 or the FSDP sharding group's size"):
        parse_degrees(f"fsdp={value}")


def test_cli_layout_takes_the_table_columns() -> None:
    code, out, err = _cli([*LLAMA8, "--zero", "0,1,2", "--layout", "tp=1,pp=1,cp=1,vp=1"])
    assert code == 0, err
    assert "Your layout tp=1,pp=1,cp=1,v=1" in out
    code, out, err = _cli([*LLAMA8, "--layout", "tp=1,pp=1,cp=1,fsdp=1"])
    assert code == 0, err
    assert "zero=3" in out.split("Your layout", 1)[1].splitlines()[0]


def test_cli_layout_fsdp_0_is_one_line_on_stderr() -> None:
    code, _, err = _cli([*LLAMA8, "--layout", "tp=1,fsdp=0"])
    assert code == 2 and "Traceback" not in err and "zero=1" in err


def test_gpt3_row_with_vp_12_lands_in_the_space() -> None:
    # GPT3-175B row: 128 GB200 (32 nodes of 4), GBS 256, MBS 2, sequence 2048, TP 4, PP 4, VP 12
    result = plan(
        MODELS["gpt3-175b"],
        CLUSTERS["gb200-nvl72"].with_nodes(32),
        WorkloadSpec(
            global_batch=256,
            seq_len=2048,
            precision="fp8",
            fp8_recipe="current",
            max_micro_batch=2,
            max_virtual_stages=12,
        ),
    )
    check = result.check_layout("tp=4,pp=4,cp=1,vp=12")
    assert check.variants > 0 and check.candidate is not None and check.candidate.degrees()["v"] == 12


# --------------------------------------------------------------------------- 2: per-GPU units


def test_layout_check_prints_tokens_and_tflops_per_gpu() -> None:
    code, out, err = _cli([*LLAMA8, "--layout", "tp=1,pp=1,cp=1"])
    assert code == 0, err
    layout = out.split("Your layout", 1)[1]
    total = float(layout.split("Estimated throughput ", 1)[1].split(" tokens/s")[0].replace(",", ""))
    per_gpu = float(layout.split("Per GPU (estimated, not measured): ", 1)[1].split(" tokens/s")[0].replace(",", ""))
    assert per_gpu == pytest.approx(total / 8, abs=1)  # 8 GPUs: the row's
    assert "model TFLOP/s" in layout and "tokens/s/GPU" in layout


def test_per_gpu_tflops_is_utilisation_times_peak() -> None:
    result = plan(
        MODELS["llama3-8b"],
        CLUSTERS["gb200-nvl72"].with_nodes(2),
        WorkloadSpec(global_batch=128, seq_len=8192, precision="fp8", fp8_recipe="current", max_micro_batch=2),
    )
    check = result.check_layout("tp=1,pp=1,cp=1")
    per_gpu = check.per_gpu()
    assert per_gpu is not None and check.candidate is not None
    tokens, tflops = per_gpu
    assert tokens * 8 == pytest.approx(check.candidate.tokens_per_s)
    mfu = check.candidate.estimated_mfu
    assert mfu is not None
    assert tflops == pytest.approx(mfu * check.candidate.peak_flops / 1e12)


def test_per_gpu_line_in_chinese() -> None:
    code, out, err = _cli([*LLAMA8, "--lang", "zh", "--layout", "tp=1,pp=1,cp=1"])
    assert code == 0, err
    assert "按每张 GPU 计" in out and "Per GPU" not in out


def test_rejected_layout_has_no_per_gpu_line() -> None:
    # Llama 3 70B unsharded on one GPU: about 70e9 parameters x 16 bytes (weights, gradients, Adam) = 1.1 TB > 186 GiB
    argv = [*LLAMA8, "--layout", "tp=1,pp=1,cp=1,zero=0"]
    argv[argv.index("llama3-8b")] = "llama3-70b"
    code, out, err = _cli(argv)
    assert code == 0, err
    assert "No variant passes every gate" in out and "Per GPU (estimated" not in out


# --------------------------------------------------------------------------- 3: the held-out report runs offline


def test_heldout_report_runs_and_scores_every_row() -> None:
    script = ROOT / "benchmarks" / "report_heldout_outside16.py"
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    # eight rows of NeMo 25.04's DGX-GB200 table, 34 Megatron-Bridge rows of preset models and four GPT OSS 120B rows
    assert done.stdout.count("estimate/measured") == 8 + 34 + 4
    assert "all: " in done.stdout and " of 46 pass" in done.stdout
    assert "NeMo 25.04 GB200: " in done.stdout and " of 8 pass" in done.stdout


# --------------------------------------------------------------------------- 4: a table's MoE layout without ETP

# Megatron-Bridge 26.04, DGX-H100, row Qwen3_235B_a22B: 256 GPUs, GBS 8192, MBS 1, sequence 4096, TP 2, PP 8, CP 1,
# VP 4, EP 32; no ETP column. With ETP = TP = 2 the expert grid ETP·EP·PP = 2·32·8 = 512 does not divide 256 ranks.
QWEN235 = ["plan", "--model", "qwen3-235b-a22b", "--cluster", "h100-8", "--nodes", "32", "--global-batch", "8192"]
QWEN235 += ["--seq-len", "4096", "--precision", "fp8", "--fp8-recipe", "current", "--max-micro-batch", "1"]
QWEN235 += ["--max-virtual-stages", "4", "--zero", "0,1,2", "--top", "1"]


def test_moe_layout_without_etp_that_cannot_fold_is_checked_at_etp_1() -> None:
    """ETP = TP = 2 makes the expert grid 2 · 32 · 8 = 512 positions on 256 ranks: the ep_fold gate refuses every
    variant, and Megatron-Core would not start such a run, so the table's measured run used another ETP; the check
    takes the recipes' etp=1, says so, and ranks it (9 variants: ZeRO 0/1/2 x recompute none/selective/full)."""
    code, out, err = _cli([*QWEN235, "--layout", "tp=2,pp=8,cp=1,vp=4,ep=32"])
    assert code == 0, err
    layout = out.split("Your layout", 1)[1]
    assert layout.startswith(" tp=2,pp=8,cp=1,v=4,ep=32,etp=1:")
    assert "default ETP = TP = 2 every variant of these degrees fails the ep_fold gate" in layout
    assert "expert TP is 1 (see above)" in layout and "rank " in layout and "No variant passes" not in layout


def test_no_etp_note_when_etp_was_given() -> None:
    code, out, err = _cli([*QWEN235, "--layout", "tp=2,pp=8,cp=1,vp=4,ep=32,etp=2"])
    assert code == 0, err
    assert "No variant passes every gate" in out and "ep_fold" in out
    assert "taken as TP" not in out and "checked with etp=1" not in out
    code, out, err = _cli([*QWEN235, "--layout", "tp=2,pp=8,cp=1,vp=4,ep=32,etp=1"])
    assert code == 0, err
    assert "rank " in out.split("Your layout", 1)[1] and "checked with etp=1" not in out


def test_etp_fold_note_in_chinese() -> None:
    code, out, err = _cli([*QWEN235, "--lang", "zh", "--layout", "tp=2,pp=8,cp=1,vp=4,ep=32"])
    assert code == 0, err
    assert "Megatron-Core 的默认 ETP = TP = 2 下" in out and "专家 TP 取 1（见上）" in out


def test_etp_fold_is_in_the_json() -> None:
    code, out, err = _cli([*QWEN235, "--json", "--layout", "tp=2,pp=8,cp=1,vp=4,ep=32"])
    assert code == 0, err
    layout = json.loads(out)["layout"]
    assert layout["etp_from_fold"] == 2 and layout["accepted"] and layout["degrees"]["etp"] == 1


def test_layout_help_names_the_table_columns() -> None:
    code, out, _ = _cli(["plan", "--help"])
    assert code == 0
    help_text = " ".join(out.split("--layout", 1)[1].split("--json", 1)[0].split())
    assert "vp is v" in help_text and "fsdp=1 is zero=3" in help_text


def test_precision_help_names_blackwell_and_the_tables_fp8_names() -> None:
    code, out, _ = _cli(["plan", "--help"])
    assert code == 0
    text = " ".join(out.split())
    precision = text.split("--precision {bf16,fp8}", 1)[1].split("--fp8-recipe", 1)[0]
    assert "B200" in precision and "GB200" in precision and "A100" in precision
    recipe = text.split("--fp8-recipe {delayed,current,mxfp8}", 1)[1].split("--attention-kernel", 1)[0]
    assert "FP8-CS" in recipe and "FP8-MX" in recipe


def test_layout_json_carries_the_per_gpu_estimate() -> None:
    code, out, err = _cli([*LLAMA8, "--layout", "tp=1,pp=1,cp=1", "--json"])
    assert code == 0, err
    layout = json.loads(out)["layout"]
    per_gpu = layout["per_gpu"]
    assert per_gpu["tokens_per_s"] == pytest.approx(layout["candidate"]["estimate"]["tokens_per_s"] / 8)
    assert per_gpu["model_tflops"] > 0 and layout["etp_from_fold"] is None
