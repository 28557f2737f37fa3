"""Every argument of every public function against every value of the adversarial pool, in both languages.

Deterministic and exhaustive over :data:`contract.ADVERSARIAL` (the hypothesis
test in ``test_api_fuzz.py`` adds generated numbers on top). One test per
function; its failure lists every broken call.
"""

from __future__ import annotations

import pytest

from coursekit.i18n import LANGUAGES

from .api_calls import BASELINES, public_functions
from .contract import ADVERSARIAL, judge, mutations


@pytest.mark.parametrize("name", sorted(public_functions()))
def test_every_argument_against_the_pool(name: str) -> None:
    problems = [
        f"{name}({label}) under {lang}: {problem}"
        for kwargs, blamed, label in mutations(name, BASELINES[name](), ADVERSARIAL)
        for lang in LANGUAGES
        if (problem := judge(name, kwargs, blamed, lang)) is not None
    ]
    assert not problems, f"{len(problems)} broken calls:\n" + "\n".join(problems[:40])
