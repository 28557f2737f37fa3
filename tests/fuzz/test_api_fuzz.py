"""Fuzz every public coursekit function with adversarial arguments, in both languages.

The contract (see ``contract.py``): a finite result, or a ``TypeError`` /
``ValueError`` that names the broken argument, is short and, under ``zh``, is
Chinese; no other exception type; every call answers within the hang guard.
Functions come from coursekit's export list, so a new public function without a
valid call in ``api_calls.py`` fails :func:`test_every_public_function_is_fuzzed`.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coursekit.i18n import LANGUAGES

from .api_calls import BASELINES, public_functions
from .contract import ADVERSARIAL, judge, mutations

FUNCTIONS = sorted(public_functions())

#: Examples per function: with derandomize the draw is the same on every run, so
#: `make test` stays reproducible; raise it locally (HYPOTHESIS_PROFILE is not used).
EXAMPLES = 24
#: Functions whose single call does a whole search; fewer examples keep the suite near its budget.
SLOW_FUNCTIONS: dict[str, int] = {"plan": 4, "simulate_schedule": 12, "gantt_rows": 12}

#: Numbers hypothesis generates on top of the fixed pool: any int (huge ones included) and any float.
GENERATED = st.one_of(
    st.sampled_from(ADVERSARIAL),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
)


def test_every_public_function_is_fuzzed() -> None:
    missing = sorted(set(FUNCTIONS) - set(BASELINES))
    assert not missing, f"add a valid call for {missing} to tests/fuzz/api_calls.py"
    stale = sorted(set(BASELINES) - set(FUNCTIONS))
    assert not stale, f"{stale} are no longer public functions of coursekit"


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_valid_call_keeps_the_contract(name: str) -> None:
    """The baseline itself must pass, or every mutation of it would test nothing."""
    for lang in LANGUAGES:
        assert judge(name, BASELINES[name](), (), lang) is None


@pytest.mark.parametrize("name", FUNCTIONS)
def test_public_function_holds_under_abuse(name: str) -> None:
    @settings(
        max_examples=SLOW_FUNCTIONS.get(name, EXAMPLES),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def run(data: Any) -> None:
        value = data.draw(GENERATED, label="value")
        cases = list(mutations(name, BASELINES[name](), (value,)))
        kwargs, blamed, label = data.draw(st.sampled_from(cases), label="mutation")
        lang = data.draw(st.sampled_from(LANGUAGES), label="lang")
        problem = judge(name, kwargs, blamed, lang)
        assert problem is None, f"{name}({label}) under {lang}: {problem}"

    run()
