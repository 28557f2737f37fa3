"""coursekit.strategies: the seed's Q1 strategy table as bilingual data."""

from __future__ import annotations

from typing import Any

import pytest

import coursekit
from coursekit.communication import STRATEGIES as TRAFFIC_STRATEGIES
from coursekit.i18n import Text
from coursekit.strategies import STRATEGY_COLUMNS, STRATEGY_TABLE, StrategyRow, strategy_row, strategy_table

#: Seed 000, Q1: the table's rows (策略 | 主要切分对象 | 主要压力 | 最关键前提), with the English fragments of the
#: design text put into Chinese so that a zh lesson's output is Chinese (English terms kept in parentheses).
SEED_Q1_TABLE: list[tuple[str, str, str, str]] = [
    ("DP / ZeRO", "批次 (batch)、参数、梯度或优化器状态", "梯度同步与状态聚合", "模型与训练状态有明确分片方案"),
    ("TP", "层内张量与激活", "高频集合通信 (collective)", "节点内互连强"),
    ("PP", "层 / 流水线阶段 (stage)", "流水线气泡与阶段间传输", "模型足够深且各阶段可平衡"),
    ("CP", "序列 / 上下文", "注意力状态交换", "长上下文收益覆盖通信代价"),
    ("EP", "专家 / token", "分发 (dispatch)、汇合 (combine) 与负载不均", "MoE 路由与容量可控"),
    ("Replica", "服务请求", "队列、缓存局部性与尾延迟", "多副本状态可观测"),
]
#: Seed 000, Q1: "X 解决“……”，前提是……" for each strategy.
SEED_Q1_BULLETS: dict[str, tuple[str, str]] = {
    "DP / ZeRO": ("数据怎么铺开", "模型至少接近能放下"),
    "TP": ("单层怎么拆算", "节点内互连足够强"),
    "PP": ("层怎么分段", "模型足够深或单卡显存偏紧"),
    "EP": ("专家怎么分发", "路由和 token 交换能承受"),
    "CP": ("长序列怎么切分", "注意力状态交换可承受"),
    "Replica": ("请求怎么分发", "多副本容量、队列和缓存局部性可观测"),
}


def test_table_reproduces_the_seed() -> None:
    rows = [(r.name, r.splits.zh, r.pressure.zh, r.key_precondition.zh) for r in STRATEGY_TABLE]
    assert rows == SEED_Q1_TABLE


@pytest.mark.parametrize(("name", "bullet"), sorted(SEED_Q1_BULLETS.items()))
def test_bullets_reproduce_the_seed(name: str, bullet: tuple[str, str]) -> None:
    row = strategy_row(name)
    assert (row.solves.zh, row.assumes.zh) == bullet


def test_every_text_is_bilingual_and_every_row_is_modelled() -> None:
    for row in STRATEGY_TABLE:
        for field in ("solves", "assumes", "splits", "pressure", "key_precondition", "communication"):
            text = getattr(row, field)
            assert isinstance(text, Text) and text.zh.strip() and text.en.strip()
        assert row.traffic and set(row.traffic) <= set(TRAFFIC_STRATEGIES)
    modelled = {key for row in STRATEGY_TABLE for key in row.traffic}
    assert modelled == set(TRAFFIC_STRATEGIES)


def test_markdown_in_both_languages() -> None:
    en = strategy_table(lang="en").splitlines()
    assert en[0] == "| Strategy | Main object split | Main pressure | Key precondition |"
    assert en[1] == "| --- | --- | --- | --- |"
    assert (
        en[3]
        == "| TP | tensors and activations inside a layer | frequent collectives | strong intra-node interconnect |"
    )
    assert len(en) == 2 + len(STRATEGY_TABLE)
    coursekit.set_language("zh")
    zh = strategy_table().splitlines()
    assert zh[0] == "| 策略 | 主要切分对象 | 主要压力 | 最关键前提 |"
    assert zh[2:] == ["| " + " | ".join(row) + " |" for row in SEED_Q1_TABLE]


def test_any_columns_in_any_order() -> None:
    table = strategy_table(["communication", "name"], lang="en").splitlines()
    assert table[0] == "| Where its communication is fragile | Strategy |"
    assert table[-1].endswith("| Replica |")
    assert set(STRATEGY_COLUMNS) == {
        "name",
        "solves",
        "assumes",
        "splits",
        "pressure",
        "key_precondition",
        "communication",
    }


def test_pipes_in_cells_are_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    row = StrategyRow("A|B", *(Text(zh="x|y", en="x|y"),) * 6, traffic=("dp",))
    monkeypatch.setattr("coursekit.strategies.STRATEGY_TABLE", (row,))
    assert strategy_table(["name", "splits"], lang="en").splitlines()[2] == "| A\\|B | x\\|y |"


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "message"),
    [
        (("name",), {}, TypeError, "columns = 'name': must be a list or tuple of column names, not str."),
        (
            ([],),
            {},
            ValueError,
            "columns is empty: choose at least one column (from name, solves, assumes, splits, "
            "pressure, key_precondition, communication).",
        ),
        (
            (["cost"],),
            {},
            ValueError,
            "columns = 'cost': must be one of 'name', 'solves', 'assumes', 'splits', "
            "'pressure', 'key_precondition', 'communication'.",
        ),
        ((["name"],), {"lang": "fr"}, ValueError, "lang = 'fr': must be one of 'zh', 'en'."),
    ],
)
def test_strategy_table_rejects(
    args: tuple[Any, ...], kwargs: dict[str, Any], exc: type[Exception], message: str
) -> None:
    with pytest.raises(exc) as info:
        strategy_table(*args, **kwargs)
    assert str(info.value) == message


def test_rejections_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        strategy_table([])
    assert str(info.value).startswith("columns 为空：至少选择一列")
    with pytest.raises(ValueError) as info:
        strategy_row("FSDP")
    assert str(info.value).startswith("name = 'FSDP'：必须是")


def test_row_rejects_unknown_traffic() -> None:
    with pytest.raises(ValueError) as info:
        StrategyRow("X", *(Text(zh="x", en="x"),) * 6, traffic=("fsdp",))
    assert str(info.value) == "traffic = 'fsdp': must be one of 'dp', 'zero', 'tp', 'pp', 'cp', 'ep', 'replica'."
