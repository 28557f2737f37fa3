"""Checking a layout (``PlanResult.check_layout``, ``plan --layout``) and describing every workload on the command line.

The command line must reach every assumption the workbench has: a published run checked with ``python -m coursekit
plan`` gives the rank, tie group and ratio that ``compare_published`` gives in Python. ``check_layout``'s answer is
worked out again here by brute force over the result's own candidates.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json

import pytest

from coursekit.__main__ import main
from coursekit.i18n import set_language
from coursekit.planner import ClusterSpec, LayoutCheck, WorkloadSpec, compare_published, plan, published_degrees
from coursekit.planner.cli import (
    _NOT_WORKLOAD_FLAGS,
    _workload,
    add_plan_command,
    published_run_argv,
    workload_argv,
)
from coursekit.planner.gate_table import GATE_CODES
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import all_published_runs

#: A valid value other than the default for every WorkloadSpec field a ``plan`` flag sets.
NON_DEFAULT: dict[str, object] = {
    "fp8_weight_cache": True,
    "lora_rank": 16,
    "seq_len": 8192,
    "recipe": "megatron-bf16",
    "achievable_flops_fraction": 0.4,
    "overlap_fraction": 0.5,
    "runtime_reserve_gib": 3.5,
    "sequence_parallel": False,
    "zero_stages": (0, 3),
    "recompute_modes": ("selective", "full"),
    "recompute_modules": ("layernorm", "moe_act"),
    "max_micro_batch": 2,
    "max_virtual_stages": 12,
    "max_cp": 1,
    "overlap_dp": 0.25,
    "overlap_pp": 0.5,
    "overlap_cp": 0.0,
    "overlap_tp": 0.0,
    "overlap_ep": 1.0,
    "pipeline_edge_layers": 1,
    "pipeline_last_edge_layers": 2,
    "ep_node_limit": 4,
    "ep_dedup_per_node": True,
    "pipeline_uneven_chunks": True,
    "ep_fp8_dispatch": True,
    "ep_overlap_schedule": "dualpipe",
    "efficiency_ceiling": 0.61,
    "precision": "fp8",
    "flash_attention": False,
    "attention_kernel": "flash-attention-2",
    "fp8_recipe": "current",
    "fp8_activation_cache": "deepseek-v3",
    "moe_probs_in_experts": True,
    "moe_layer_host_s": 0.0031,
    "fp8_matmul_share": 0.7,
}


def _parse(argv: list[str]) -> WorkloadSpec:
    parser = argparse.ArgumentParser()
    add_plan_command(parser.add_subparsers())
    return _workload(parser.parse_args(["plan", "--model", "llama3-8b", "--cluster", "h100-8", *argv]))


def _cli_json(argv: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, "--json", "--top", "0"]) == 0
    return json.loads(out.getvalue())


def test_every_workload_field_has_a_flag() -> None:
    fields = {item.name for item in dataclasses.fields(WorkloadSpec)}
    assert fields - set(_NOT_WORKLOAD_FLAGS) == set(NON_DEFAULT)
    for name, value in NON_DEFAULT.items():
        workload = WorkloadSpec(global_batch=64, **{name: value})
        assert getattr(workload, name) != getattr(WorkloadSpec(global_batch=64), name), name
        argv = workload_argv(workload)
        assert len(argv) > 2, name  # a flag besides --global-batch
        assert _parse(argv) == workload, (name, argv)


def test_default_workload_needs_only_the_batch() -> None:
    assert workload_argv(WorkloadSpec(global_batch=96)) == ["--global-batch", "96"]


def test_every_published_workload_reads_back_equal() -> None:
    for run in all_published_runs():
        assert _parse(workload_argv(run.workload())) == run.workload(), run.name


def test_workload_argv_refuses_what_it_cannot_describe() -> None:
    with pytest.raises(TypeError, match="workload"):
        workload_argv({"global_batch": 8})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="serving"):
        workload_argv(WorkloadSpec(global_batch=8, mode="serving"))
    with pytest.raises(TypeError, match="run"):
        published_degrees("Llama 3 405B")
    with pytest.raises(TypeError, match="run"):
        published_run_argv(None)


def test_command_line_checks_every_published_run_as_compare_published_does() -> None:
    for run in all_published_runs():
        layout = _cli_json(published_run_argv(run))["layout"]
        comparison = compare_published(run)
        assert layout["accepted"] == comparison.accepted, run.name
        assert (layout["rank"], layout["tie_group"]) == (comparison.rank, comparison.tie_group), run.name
        assert layout["over_best"] == comparison.step_over_best, run.name
        assert layout["best"] == comparison.best_layout, run.name
        if comparison.accepted:
            assert ",".join(f"{k}={v}" for k, v in layout["candidate"]["degrees"].items()) == comparison.layout


@pytest.fixture(scope="module")
def result():
    # Llama 3 70B at 8K on 8 H100 nodes, interleaving up to 5 (the DGX Cloud recipe's VP)
    return plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(8), WorkloadSpec(128, 8192, max_virtual_stages=5))


def test_accepted_layout_is_its_fastest_accepted_variant(result) -> None:
    check = result.check_layout("tp=4,pp=4,cp=2,dp=2")
    assert isinstance(check, LayoutCheck) and check.accepted
    wanted = {"tp": 4, "pp": 4, "cp": 2, "dp": 2}
    accepted = result.accepted()
    matching = [pos for pos, cand in enumerate(accepted) if all(cand.degrees()[k] == v for k, v in wanted.items())]
    assert check.rank == matching[0] + 1
    assert check.candidate.label() == accepted[matching[0]].label()
    assert check.accepted_variants == len(matching)
    every = [i for i in range(result.space_size) if all(result.degrees(i)[k] == v for k, v in wanted.items())]
    assert check.variants == len(every)
    assert check.over_best == pytest.approx(accepted[matching[0]].step_s / accepted[0].step_s, rel=1e-12)
    assert check.best.label() == accepted[0].label() and check.accepted_count == len(accepted)
    groups = result.tie_groups()
    assert check.tie_group == next(g for g, members in enumerate(groups, 1) if check.index in members)
    assert check.first_failures == {}


def test_rejected_layout_counts_first_failures_and_shows_the_nearest(result) -> None:
    check = result.check_layout({"tp": 1, "pp": 2, "dp": 32, "zero": 0})  # 70B, no sharding, two stages: nothing fits
    assert not check.accepted and check.rank is None and check.over_best is None
    every = result.find(tp=1, pp=2, dp=32, zero=0)
    firsts = [result.codes(i)[0] for i in every]
    assert check.first_failures == {code: firsts.count(code) for code in GATE_CODES if code in firsts}
    assert sum(check.first_failures.values()) == check.variants == len(every)
    latest = max(GATE_CODES.index(code) for code in firsts)
    assert check.candidate.reasons[0].code == GATE_CODES[latest]
    # of the variants that get as far, the least memory
    candidates = [result.candidate(i) for i in every if GATE_CODES.index(result.codes(i)[0]) == latest]
    assert check.candidate.memory.total_gib == min(c.memory.total_gib for c in candidates)
    assert "memory" in check.report()


def test_layout_outside_the_searched_space(result) -> None:
    check = result.check_layout("tp=4,pp=4,cp=2,dp=2,v=7")  # v = 7 is past --max-virtual-stages 5
    assert check.variants == 0 and check.candidate is None and not check.accepted
    assert "v 1/2/3/4/5" in check.report()
    with pytest.raises(ValueError, match="degrees"):
        result.check_layout("tp=4,xp=2")


def test_layout_flag_prints_the_check_in_both_languages() -> None:
    argv = ["plan", "--model", "llama3-70b", "--cluster", "h100-8", "--nodes", "8", "--global-batch", "128"]
    argv += ["--seq-len", "8192", "--max-virtual-stages", "5", "--layout", "tp=4,pp=4,cp=2,dp=2", "--top", "0"]
    for lang, words in (("en", ("Your layout", "rank", "tie group")), ("zh", ("你的布局", "排第", "并列组"))):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main([*argv, "--lang", lang]) == 0
        text = out.getvalue()
        assert all(word in text for word in words), (lang, text[-600:])
    set_language("en")


def test_bad_layout_flag_exits_2_naming_it(capsys) -> None:
    argv = ["plan", "--model", "llama3-8b", "--cluster", "h100-8", "--global-batch", "8", "--layout", "tp=two"]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "--layout" in capsys.readouterr().err


def test_custom_cluster_layout_check_matches_the_preset() -> None:
    """A cluster typed by hand with the preset's numbers checks a layout as the preset does."""
    h100 = CLUSTERS["h100-8"]
    flags = ["--gpu-memory-gib", repr(h100.memory_per_device_gib), "--peak-tflops", repr(h100.peak_flops / 1e12)]
    flags += ["--peak-fp8-tflops", repr(h100.peak_flops_fp8 / 1e12), "--hbm-gb-s"]
    flags += [repr(h100.memory_bandwidth_bytes_per_s / 1e9), "--gpus-per-node", str(h100.gpus_per_node)]
    flags += ["--intra-gb-s", repr(h100.intra_node_bandwidth_bytes_per_s / 1e9)]
    flags += ["--inter-gb-s", repr(h100.inter_node_bandwidth_bytes_per_s / 1e9)]
    common = ["--model", "llama3-8b", "--nodes", "2", "--global-batch", "64", "--layout", "tp=2,pp=1,dp=8"]
    preset = _cli_json(["plan", "--cluster", "h100-8", *common])["layout"]
    custom = _cli_json(["plan", *flags, *common])["layout"]
    assert isinstance(h100, ClusterSpec)
    assert (custom["rank"], custom["tie_group"], custom["over_best"]) == (
        preset["rank"],
        preset["tie_group"],
        preset["over_best"],
    )


def test_serving_layout_is_ranked_by_the_serving_order() -> None:
    serving = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(2), WorkloadSpec(64, mode="serving"))
    accepted = serving.accepted()
    check = serving.check_layout("tp=2")
    position = next(pos for pos, cand in enumerate(accepted) if cand.degrees()["tp"] == 2)
    assert check.accepted and check.rank == position + 1
    assert check.candidate.label() == accepted[position].label()
    # serving orders by GPU-seconds per output token (the inverse of tokens/s per GPU)
    per_gpu = [cand.serving.cluster_tokens_per_s / cand.serving.gpus for cand in accepted]
    assert check.over_best == pytest.approx(per_gpu[0] / per_gpu[position], rel=1e-9)
    assert "GPU-seconds per output token" in check.report()


def test_published_run_of_specs_checks_as_the_presets_do() -> None:
    """A published run may name its model and cluster by preset or give the specs: the same answer."""
    for name in ("Megatron-Core Mixtral 8x7B (MoE), 4K, 64 H100", "DGX Cloud Llama 3.1 70B, 8K, 64 H100 (FP8)"):
        run = next(r for r in all_published_runs() if r.name == name)
        own = dataclasses.replace(run, model=MODELS[run.model], cluster=CLUSTERS[run.cluster])
        assert own.gpus == run.gpus and own.label == run.label
        assert compare_published(own) == compare_published(run)
        # a one-node ClusterSpec of your own becomes the custom-cluster flags (the preset's latencies are NCCL's)
        argv = published_run_argv(own)
        assert "--cluster" not in argv and "--inter-gb-s" in argv
        layout = _cli_json(argv)["layout"]
        assert (layout["rank"], layout["tie_group"]) == (compare_published(run).rank, compare_published(run).tie_group)


def test_published_run_of_a_model_of_your_own() -> None:
    from coursekit.planner import ModelSpec

    config = {
        "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 8192,
        "hidden_act": "silu",
    }  # fmt: skip
    mistral = ModelSpec.from_config(config, name="mistral-7b")
    run = dataclasses.replace(
        next(r for r in all_published_runs() if r.name == "DGX Cloud Llama 3.1 8B, 8K, 8 H100 (FP8)"),
        name="Mistral 7B on the Llama 3.1 8B recipe",
        model=mistral,
    )
    comparison = compare_published(run)
    assert comparison.accepted and comparison.rank >= 1
    direct = plan(mistral, CLUSTERS["h100-8"].with_nodes(run.nodes), run.workload()).check_layout(
        published_degrees(run)
    )
    assert (direct.rank, direct.tie_group) == (comparison.rank, comparison.tie_group)
    with pytest.raises(ValueError, match="Mistral 7B"):
        published_run_argv(run)


@pytest.mark.parametrize(
    ("change", "error", "named"),
    [
        ({"model": "gpt5"}, ValueError, "model"),
        ({"model": 3}, TypeError, "model"),
        ({"cluster": CLUSTERS["h100-8"].with_nodes(1).name + "-x"}, ValueError, "cluster"),
        ({"nodes": 0}, ValueError, "nodes"),
        ({"global_batch": 2.5}, TypeError, "global_batch"),
        ({"degrees": (("xp", 2),)}, ValueError, "degrees"),
        ({"degrees": (("tp", 0),)}, ValueError, "tp"),
        ({"degrees": "tp=2"}, TypeError, "degrees"),
        ({"flop_convention": "hfu"}, ValueError, "flop_convention"),
        ({"measured_tokens_per_gpu_s": 0.0}, ValueError, "measured_tokens_per_gpu_s"),
        ({"workload_options": (("global_batch", 8),)}, ValueError, "workload_options"),
        ({"workload_options": {"zero_stages": (1,)}}, TypeError, "workload_options"),
        ({"name": ""}, TypeError, "name"),
    ],
)
def test_a_run_built_by_hand_is_refused_by_field(change: dict, error: type, named: str) -> None:
    run = next(r for r in all_published_runs() if r.name == "DGX Cloud Llama 3.1 8B, 8K, 8 H100 (FP8)")
    with pytest.raises(error, match=named):
        dataclasses.replace(run, **change)


def test_omitted_model_parallel_degrees_are_megatrons_defaults(result) -> None:
    """A layout written as a paper writes it means CP 1 and EP 1 (and expert TP = TP); the rest stays free."""
    short = result.check_layout("tp=4,pp=4")
    assert short == result.check_layout("tp=4,pp=4,cp=1,ep=1")
    assert short.candidate.cp == 1 and short.variants == len(result.find(tp=4, pp=4, cp=1, ep=1))
    assert result.check_layout("tp=4,pp=4,cp=2").candidate.cp == 2
    moe = plan(MODELS["mixtral-8x7b"], CLUSTERS["h100-8"].with_nodes(8), WorkloadSpec(256, 4096))
    guide = moe.check_layout("tp=2,ep=8,pp=4")  # expert TP not given: TP's, as Megatron's default
    assert guide.candidate.etp == 2 and guide.candidate.cp == 1
    assert guide.variants == len(moe.find(tp=2, ep=8, pp=4, cp=1, etp=2))
    assert moe.check_layout("tp=2,ep=8,pp=4,etp=1").candidate.etp == 1


def test_the_check_carries_its_row_of_the_tie_explanation(result) -> None:
    """The variant's tie row is the one ``explain_ties(group, every_member=True)`` gives for it: the group's fastest,
    or the assumption that lets it catch up and the measurement that decides."""
    for layout in ("tp=4,pp=1,dp=16", "tp=8,pp=1,dp=8", "tp=4,pp=4,cp=2,dp=2"):
        check = result.check_layout(layout)
        rows = result.explain_ties(check.tie_group, every_member=True)
        row = next(r for r in rows if r.index == check.index)
        assert (check.tie_row.rank, check.tie_row.scenarios, check.tie_row.message) == (
            row.rank,
            row.scenarios,
            row.message,
        )
        assert row.message in check.report()
    assert result.check_layout("tp=4,pp=1,dp=16").tie_row.scenarios == ()  # tie group 1's fastest
    serving = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(2), WorkloadSpec(64, mode="serving"))
    assert serving.check_layout("tp=4").tie_row is None
