"""What the fifteenth reviews left, fixed afterwards: a count given where billions are asked is named as such, the
type refusal reads as English ("an object of type Artist", not "a Artist object")."""

from __future__ import annotations

import pytest

import coursekit
from coursekit._validate import check_instance
from coursekit.exercises import COUNT_VS_BILLIONS, check


@pytest.fixture(autouse=True)
def _english() -> None:
    coursekit.set_language("en")


@pytest.mark.parametrize("answer", [2.397e11, 239_678_529_536, 2.3968e11])
def test_active_parameters_as_a_count_are_named_a_count(answer: float) -> None:
    """Exercise 9.3 asks how many *billion* active parameters; the lesson's as_moe(16, 4) of Llama-3 70B has about
    239.7 billion (the exercise's own why-line). The count itself (2.397e11) is the unit slip, not a wrong method."""
    result = check("plan.moe_active", answer)
    assert result.status == "incorrect" and result.slip == "count_vs_billions"
    assert "10^9" in result.message and "billion" in result.message
    coursekit.set_language("zh")
    assert "十亿" in check("plan.moe_active", answer).message


def test_a_count_slip_is_not_raised_for_other_wrong_answers() -> None:
    result = check("plan.moe_active", 2.0e11)
    assert result.status == "incorrect" and result.slip is None and "10^9" not in result.message
    assert check("plan.moe_active", 239.7).status == "correct"
    assert COUNT_VS_BILLIONS.factor == 1e9


def test_type_refusal_reads_as_english() -> None:
    with pytest.raises(TypeError, match=r"^config = 3: must be an object of type dict, not int\.$"):
        check_instance("config", 3, dict)
