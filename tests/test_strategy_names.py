"""Exercises answered with a strategy's name take its Chinese or English term too (learner review 27 left this).

A Chinese self-learner answered exercise 3.2 with ``{'TP', 'EP', 'PP', '副本'}`` and exercise 5.3 with ``'张量并行'``,
the names the zh lessons use, and was refused with the list of codes. :func:`coursekit.exercises.strategy_choice` is
now the one rule: the name in any case, its glossary term in either language, the short 副本, or a name copied with
its gloss in brackets. The expected names below come from the glossary's own entries (term -> abbreviation) and from
the lessons' candidate names, not from the function.
"""

from __future__ import annotations

import pytest

from coursekit.exercises import check, strategy_choice
from coursekit.exercises.lesson3 import accepted_when_serving
from coursekit.glossary import lookup
from coursekit.i18n import set_language


@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("数据并行", "DP"),
        ("data parallelism", "DP"),
        ("张量并行", "TP"),
        ("Tensor Parallelism", "TP"),
        ("流水线并行", "PP"),
        ("专家并行", "EP"),
        ("上下文并行", "CP"),
        ("服务副本", "Replica"),
        ("副本", "Replica"),
        ("TP（张量并行）", "TP"),
        ("Replica (serving replica)", "Replica"),
        ("张量并行 (TP)", "TP"),
        ("ｔｐ", "TP"),
    ],
)
def test_a_strategy_is_named_by_its_term(typed: str, name: str) -> None:
    names = ("DP", "ZeRO-3", "TP", "EP", "PP", "CP", "Replica")
    assert strategy_choice(typed, names) == name
    if typed not in ("副本",) and "(" not in typed and "（" not in typed and typed != "ｔｐ":
        assert lookup(typed).abbr.lower() == name.lower()  # the glossary says so, not the function


def test_a_name_outside_the_choices_stays_as_typed() -> None:
    assert strategy_choice("专家数据并行", ("DP", "TP")) == "专家数据并行"  # a glossary term, not a choice here
    assert strategy_choice("  warp drive ", ("DP", "TP")) == "warp drive"


def test_exercise_3_2_takes_chinese_names_and_still_refuses_a_wrong_set() -> None:
    expected = accepted_when_serving()
    chinese = {"TP": "张量并行", "EP": "专家并行", "PP": "流水线并行", "Replica": "副本", "DP": "数据并行"}
    typed = {chinese.get(name, name) for name in expected}
    set_language("zh")
    try:
        assert check("q3.accepted", typed).correct
        assert not check("q3.accepted", typed | {"数据并行"}).correct  # DP serves nothing
    finally:
        set_language("en")


def test_exercise_5_3_takes_the_chinese_term() -> None:
    set_language("zh")
    try:
        assert check("matrix.topology_changed", "TP").correct
        assert check("matrix.topology_changed", "张量并行").correct
        assert check("matrix.topology_changed", "TP（张量并行）").correct
        assert not check("matrix.topology_changed", "全分片数据并行").correct
    finally:
        set_language("en")
