"""``--mtp-layers N``: train a model with N multi-token prediction modules, replacing its preset's or config's depth.

DeepSeek-V3 is published with one MTP module (arXiv:2412.19437, §2.2: D = 1); runs that train it without MTP (e.g.
vendor benchmark recipes that leave out Megatron-Core's ``--mtp-num-layers``) could only be planned from Python or a
config.json edited by hand. Expected values: the module's weights are one MoE transformer layer plus the 2h -> h
projection and two norms (§2.2), so the model without it holds fewer parameters per device; the degrees are the
paper's (TP 1, PP 16, EP 64 on 2048 H800s, §3.1) at a smaller size so the test is quick.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from tests.test_fuzz_regressions12 import _cli

DSV3 = ["plan", "--model", "deepseek-v3", "--cluster", "h800-8", "--nodes", "64", "--global-batch", "1024"]
DSV3 += ["--seq-len", "4096", "--layout", "tp=1,pp=16,ep=32,dp=32", "--json"]


def _layout(extra: list[str]) -> dict[str, object]:
    code, out, err = _cli([*DSV3, *extra])
    assert code == 0, err
    return json.loads(out)


def test_mtp_layers_0_plans_deepseek_v3_without_its_mtp_module() -> None:
    without, preset = _layout(["--mtp-layers", "0"]), _layout([])
    assert MODELS["deepseek-v3"].mtp_layers == 1  # the paper's D = 1
    assert preset["model"]["mtp_layers"] == 1 and without["model"]["mtp_layers"] == 0
    # the command line answers what Python answers for the model without MTP, and not what it answers with it
    for mtp, shown in ((0, without), (1, preset)):
        model = replace(MODELS["deepseek-v3"], mtp_layers=mtp)
        result = plan(model, CLUSTERS["h800-8"].with_nodes(64), WorkloadSpec(global_batch=1024, seq_len=4096))
        check = result.check_layout("tp=1,pp=16,ep=32,dp=32")
        assert (shown["layout"]["rank"], shown["layout"]["accepted_count"]) == (check.rank, check.accepted_count)
    assert without["layout"]["accepted_count"] != preset["layout"]["accepted_count"]


@pytest.mark.parametrize("value", ["-1", "17", "1.5", "one"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mtp_layers_out_of_range_is_refused_by_name(value: str, lang: str) -> None:
    code, out, err = _cli(["--lang", lang, *DSV3, "--mtp-layers", value])
    assert code == 2 and out == "" and "Traceback" not in err
    assert "mtp_layers" in err or "--mtp-layers" in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_lists_mtp_layers(lang: str) -> None:
    code, out, _ = _cli(["--lang", lang, "plan", "--help"])
    assert code == 0 and "--mtp-layers" in out
    assert ("多 token 预测" in out) == (lang == "zh")
