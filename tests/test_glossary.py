"""coursekit.glossary: the course terms, and docs/GLOSSARY.md generated from them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import coursekit
from coursekit.glossary import GLOSSARY, GlossaryEntry, lookup, render_markdown
from coursekit.i18n import Text

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")

#: Terms the course uses (the brief of lesson 0), as (zh, en, abbr).
REQUIRED = [
    ("数据并行", "data parallelism", "DP"),
    ("张量并行", "tensor parallelism", "TP"),
    ("流水线并行", "pipeline parallelism", "PP"),
    ("上下文并行", "context parallelism", "CP"),
    ("专家并行", "expert parallelism", "EP"),
    ("服务副本", "serving replica", "Replica"),
    ("零冗余优化器", "Zero Redundancy Optimizer", "ZeRO"),
    ("全分片数据并行", "fully sharded data parallel", "FSDP"),
    ("流水线气泡", "pipeline bubble", ""),
    ("微批次", "micro-batch", ""),
    ("全局批大小", "global batch size", "GBS"),
    ("梯度累积", "gradient accumulation", ""),
    ("集合通信", "collective communication", ""),
    ("全归约", "all-reduce", ""),
    ("全收集", "all-gather", ""),
    ("归约散射", "reduce-scatter", ""),
    ("全对全", "all-to-all", ""),
    ("广播", "broadcast", ""),
    ("点对点通信", "point-to-point communication", "send/recv"),
    ("单向带宽", "unidirectional bandwidth", ""),
    ("双向带宽", "bidirectional bandwidth", ""),
    ("时延", "latency", ""),
    ("总线带宽", "bus bandwidth", "busbw"),
    ("激活重计算", "activation recomputation", ""),
    ("序列并行", "sequence parallelism", "SP"),
    ("混合精度训练", "mixed-precision training", ""),
    ("优化器状态", "optimizer state", ""),
    ("扩展效率", "scaling efficiency", ""),
    ("掉队者", "straggler", ""),
    ("拓扑", "topology", ""),
    ("节点", "node", ""),
    ("进程编号", "rank", ""),
    ("门槛", "gate", ""),
    ("账本", "ledger", ""),
    # terms the lessons define at first use (pipeline schedules, engines, NCCL protocols, workbench labels)
    ("一前一后调度", "one forward, one backward", "1F1B"),
    ("GPipe 调度", "GPipe schedule", "GPipe"),
    ("双向流水线调度", "DualPipe", "DualPipe"),
    ("Transformer 引擎", "Transformer Engine", "TE"),
    ("专家数据并行", "expert data parallelism", "EDP"),
    ("通信协议", "NCCL protocol", "LL / LL128 / Simple"),
    ("并列组", "tie group", ""),
    ("虚拟阶段数", "virtual stages", "v"),
    ("微批次大小", "micro-batch size", "mb"),
    ("梯度累积步数", "gradient-accumulation steps", "ga"),
    ("文本单元", "token", ""),
]


@pytest.mark.parametrize("label", ["v", "mb", "ga", "1F1B", "EDP"])
def test_workbench_label_fields_and_abbreviations_look_up(label: str) -> None:
    """The workbench writes candidates as ``tp=8,...,v=1,zero=1,mb=1,ga=256``: each field a learner meets is defined."""
    assert lookup(label).abbr == label


def test_the_chinese_course_names_its_one_term_for_token_and_micro_batch() -> None:
    """Chinese text writes token (never 词元) and 微批次 (tests/test_term_pairs.py enforces both)."""
    assert "不另译" in lookup("token").definition.zh
    assert lookup("micro-batch").zh == "微批次"


@pytest.mark.parametrize(("zh", "en", "abbr"), REQUIRED)
def test_required_terms(zh: str, en: str, abbr: str) -> None:
    entry = lookup(zh)
    assert (entry.zh, entry.en, entry.abbr) == (zh, en, abbr)
    assert lookup(en) is entry
    if abbr:
        assert lookup(abbr.lower()) is entry


@pytest.mark.parametrize("entry", GLOSSARY, ids=lambda e: e.en)
def test_entry_languages(entry: GlossaryEntry) -> None:
    assert CJK.search(entry.zh) and CJK.search(entry.definition.zh)
    assert not CJK.search(entry.en) and not CJK.search(entry.definition.en)
    assert isinstance(entry.definition, Text)
    assert entry.definition.zh.endswith("。") and entry.definition.en.endswith(".")


def test_names_are_unique() -> None:
    for attribute in ("zh", "en"):
        names = [getattr(e, attribute).lower() for e in GLOSSARY]
        assert len(names) == len(set(names)), attribute
    abbrs = [e.abbr.lower() for e in GLOSSARY if e.abbr]
    assert len(abbrs) == len(set(abbrs))


def test_bandwidth_terms_say_unidirectional() -> None:
    assert "one direction" in lookup("unidirectional bandwidth").definition.en
    assert "twice the unidirectional" in lookup("bidirectional bandwidth").definition.en


def test_definition_renders_in_current_language() -> None:
    entry = lookup("DP")
    assert str(entry.definition).startswith("Every rank holds the whole model")
    coursekit.set_language("zh")
    assert str(entry.definition).startswith("每个 rank 持有完整模型")


def test_lookup_errors() -> None:
    with pytest.raises(ValueError, match="term = 'warp drive': no glossary entry"):
        lookup("warp drive")
    with pytest.raises(TypeError, match="term = 3: must be a string"):
        lookup(3)  # type: ignore[arg-type]
    # An entry without an abbreviation must not answer the empty string.
    with pytest.raises(ValueError, match="term = '': no glossary entry"):
        lookup("")
    coursekit.set_language("zh")
    with pytest.raises(TypeError, match="term = None：必须是字符串"):
        lookup(None)  # type: ignore[arg-type]


def test_markdown_lists_every_entry_and_escapes_pipes() -> None:
    text = render_markdown()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    assert len(rows) == len(GLOSSARY) + 1  # + header
    assert all(line.count(" | ") == 4 for line in rows)


def test_docs_glossary_is_current() -> None:
    path = ROOT / "docs" / "GLOSSARY.md"
    assert path.read_text(encoding="utf-8") == render_markdown(), "regenerate: python tools/build_notebooks.py"


def test_measurement_repeatability_entry_quotes_the_constant() -> None:
    """The glossary's entry states the tie rule's figures: 12 re-measured rows, 4.5 % (twice their RMS spread)."""
    from coursekit.glossary import lookup
    from coursekit.planner.calibration import MEASUREMENT_REPEATABILITY, REMEASURED_RUNS

    entry = lookup("measurement repeatability").definition
    assert f"{len(REMEASURED_RUNS)} 行" in entry.zh and f"{len(REMEASURED_RUNS)} rows" in entry.en
    assert f"{100 * MEASUREMENT_REPEATABILITY:.1f}%" in entry.zh
    assert f"{100 * MEASUREMENT_REPEATABILITY:.1f} %" in entry.en
