"""A spec built with a wrong argument gets the course's message in the learner's language, not Python's.

Python's generated ``__init__`` answers an unknown keyword, a missing field, too many positional arguments or one
given twice in English whatever the course's language (``ModelSpec.__init__() got an unexpected keyword argument
'hidden_size'``). The specs a learner builds by hand (the planner's model, cluster and workload, the serving
workload, a precision recipe, a published run, lesson 3's candidate and environment) name the argument and list the
ones they take, in Chinese or English. The expected names come from each class's dataclass fields.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any

import pytest

import coursekit
from coursekit.gates import Candidate, Environment
from coursekit.planner import ClusterSpec, ModelSpec, WorkloadSpec
from coursekit.presets import PublishedRun
from coursekit.specs import PrecisionRecipe, ServingWorkload

CJK = re.compile(r"[\u4e00-\u9fff]")
CLASSES: tuple[type, ...] = (
    ModelSpec,
    ClusterSpec,
    WorkloadSpec,
    ServingWorkload,
    PrecisionRecipe,
    PublishedRun,
    Candidate,
    Environment,
)
TINY: dict[str, Any] = dict(name="m", layers=2, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=8)


def _init_fields(cls: type) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(cls) if f.init]


def _required(cls: type) -> list[str]:
    return [
        f.name
        for f in _init_fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]


def _message(call: Any) -> str:
    with pytest.raises(TypeError) as caught:
        call()
    message = str(caught.value)
    assert "unexpected keyword" not in message and "required positional" not in message
    return message


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_an_unknown_keyword_is_named_with_the_arguments_in_the_learners_language(cls: type, lang: str) -> None:
    coursekit.set_language(lang)
    message = _message(lambda: cls(bogus_width=1))
    assert cls.__name__ in message and "'bogus_width'" in message
    assert ", ".join(f.name for f in _init_fields(cls)) in message  # every argument it takes, in order
    assert bool(CJK.search(message)) == (lang == "zh")


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("cls", [cls for cls in CLASSES if _required(cls)], ids=lambda cls: cls.__name__)
def test_a_missing_required_argument_is_named(cls: type, lang: str) -> None:
    coursekit.set_language(lang)
    required = _required(cls)
    message = _message(lambda: cls())
    assert cls.__name__ in message and required[0] in message and ", ".join(required) in message
    assert bool(CJK.search(message)) == (lang == "zh")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_too_many_positional_arguments_and_one_given_twice(lang: str) -> None:
    coursekit.set_language(lang)
    count = len(_init_fields(WorkloadSpec))
    message = _message(lambda: WorkloadSpec(*([8] * (count + 1))))
    assert "WorkloadSpec" in message and str(count) in message and str(count + 1) in message
    message = _message(lambda: WorkloadSpec(8, global_batch=8))
    assert "WorkloadSpec" in message and "global_batch" in message
    assert bool(CJK.search(message)) == (lang == "zh")


def test_a_config_key_points_to_from_config() -> None:
    """A learner who passes a config.json's keys to the constructor is told where they belong."""
    for lang in ("zh", "en"):
        coursekit.set_language(lang)
        message = _message(lambda: ModelSpec(**TINY, hidden_size=64))
        assert "'hidden_size'" in message and "ModelSpec.from_config" in message


def test_valid_arguments_still_reach_the_field_checks() -> None:
    """The wrapper only adds the argument checks: a good spec is built as before, a bad value is still refused by
    the spec's own checks, dataclasses.replace still works, and the signature shown by help() is the fields'."""
    coursekit.set_language("en")
    spec = ModelSpec(**TINY)
    assert spec.layers == 2 and spec.head_dim == 16  # 64 / 4 heads
    assert dataclasses.replace(spec, layers=4).layers == 4
    with pytest.raises(ValueError, match="layers"):
        ModelSpec(**{**TINY, "layers": 0})
    assert list(inspect.signature(ModelSpec).parameters)[:3] == ["name", "layers", "hidden"]
    assert WorkloadSpec(8).global_batch == 8  # positional as before
