"""Regressions from the twenty-third adversarial fuzzing pass: every public function the lessons import, called with
numbers of every kind (Python ints and floats, bools, numpy scalars, 0-d and 1-d numpy arrays, NaN, infinities,
-0.0, 1e308, strings, None, Fraction, Decimal), the command lines' flags fed the same, and the lesson widgets driven
to every option and both ends of every slider.

Found and fixed:

1. ``ModelSpec.stage_dense_params`` and ``ModelSpec.stage_layer_kinds`` (array-generic in ``pp``) refused a plain
   split that leaves a stage fewer than no layers (GPT-2 small's 12 layers on 8 stages with a last edge of 3: a last
   stage of -1 layers) but computed it when ``pp`` came in a numpy array, giving parameters of a stage of -1 layers
   (125 of 300 seeded six-element columns held such a split). An array is now checked element by element for its stage
   counts too; its first element a number would refuse is refused with that number's message
   (``coursekit.specs._check_stage_args``).
2. ``coursekit.units.parts_adding_up`` (the rule every "a + b + c = total" sentence prints its parts with) rounded
   ``x * 10**places`` with ``round()``, while the sentences print the total with ``f"{total:.{places}f}"``: the two
   differ where the product rounds to a tie the exact value is not (44.675 is 44.67499999..., printed "44.67";
   ``round(44.675 * 100)`` is 4468). For 599 of 20,000 seeded lists of values written with one more place than printed
   the parts did not add up to the total as printed. The parts are now rounded from the exact binary value, half to
   even, as the format does (``coursekit.units._printed_units``); ``adding_up_places`` by the same rule.
3. The same two functions raised ``OverflowError`` (not a TypeError / ValueError) for a part of 1e300 at 12 places
   (the float product overflows) and for parts whose sum is beyond the float range (two of 1e308). Integer arithmetic
   prints any finite part; a sum beyond the float range is refused naming ``parts``, in the learner's language.
4. ``StepTimeline`` (lesson 6's step decomposed, which ``diagnose_efficiency`` reads and a learner may build from a
   step they measured) took any field: a string or None reached ``diagnose_efficiency`` as Python's own TypeError
   ("'>=' not supported between instances of 'float' and 'str'"), a negative wait and a step of 500 ms whose parts
   add up to 120 ms were diagnosed ("exposed communication takes 2% of the step"). Each field must now be a finite
   number of seconds >= 0, the communication its exposed plus hidden parts and the step the sum of its parts (the
   rule its docstring states), to within floating-point rounding; a refusal names the field, in the learner's
   language.
5. ``coursekit.planner.estimate.expert_rows`` (rows one routed expert multiplies, a helper that checks its arguments
   when called by hand) divided by the model's expert count: a dense model gave a ZeroDivisionError for numbers and
   NaN rows for numpy columns. It is now refused naming the model (the search calls it on MoE models only).

Examined without a defect found: each numeric argument of every public function's documented calls (170 functions,
464 argument slots) replaced by an equal value of another type (np.int64, np.float64, np.float32, np.int32, a 0-d
array, Fraction, Decimal, a bool, a string, -0.0): results equal or a named refusal in Chinese (np.float32 values are
taken as the float they hold); the command line's ``plan`` flags (training and serving) fed "-0", "-0.0", "0x10",
"+8", " 8 ", full-width digits, "Infinity", "1_0", "1e-320", "4.0", a zero-width space, "1,000" and more: exit status
0 or 2, never a traceback, the flag named, in Chinese under ``--lang zh``; ``lessons DIR`` with an empty, blank, file,
device, unicode and over-long path; the lesson widgets driven through every option and slider end.
"""

from __future__ import annotations

import math
import random
import re
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from coursekit import i18n
from coursekit.planner.estimate import expert_rows
from coursekit.presets import MODELS
from coursekit.scaling import StepTimeline, diagnose_efficiency, step_timeline
from coursekit.specs import stage_layer_counts
from coursekit.units import adding_up_places, parts_adding_up

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def _english_after() -> Any:
    yield
    i18n.set_language("en")


# ---------------------------------------------------------------------------------------------------------------------
# 1. A pipeline split given as a numpy column is refused where one of its values alone is
# ---------------------------------------------------------------------------------------------------------------------


def _error(call: Any) -> str | None:
    try:
        call()
    except ValueError as error:
        return str(error)
    return None


@pytest.mark.parametrize("method", ["stage_dense_params", "stage_layer_kinds"])
def test_a_column_with_a_split_of_negative_layers_is_refused_as_the_number_is(method: str) -> None:
    """GPT-2 small has 12 layers. On 8 stages with no first edge and a last edge of 3 (the embedding and the loss
    counted as layers, Megatron-Core's uneven split), each stage takes ceil((12 + 0 + 3) / 8) = 2 slots: the first 2
    layers, the last 2 - 3 = -1. The plain number is refused; the column holding it must be refused the same way,
    with the same message, and in Chinese under zh."""
    model = MODELS["gpt2-small"]
    assert model.layers == 12
    for lang in ("en", "zh"):
        i18n.set_language(lang)
        alone = _error(lambda: getattr(model, method)(8, 0, 3))
        assert alone is not None and "last_edge_layers" in alone
        for column in (np.array([2, 8]), np.array([[4], [8]]), np.array([2.0, 8.0])):
            assert _error(lambda column=column: getattr(model, method)(column, 0, 3)) == alone, column
        # the edges as columns, pp a number: the second element is the refused split
        edges = (np.array([0, 0]), np.array([0, 3]))
        assert _error(lambda edges=edges: getattr(model, method)(8, *edges)) == alone
        if lang == "zh":
            assert CJK.search(alone)


def test_legal_columns_give_element_by_element_what_the_numbers_give() -> None:
    """Seeded columns of legal splits: each element of the column's result is the plain call's result for that
    element (the rule of every array-generic function), and a column is refused exactly when one of its elements
    alone is."""
    rng = random.Random(23)
    names = sorted(MODELS)
    compared = refused = 0
    for _ in range(60):
        model = MODELS[rng.choice(names)]
        pp = [rng.choice([1, 2, 3, 4, 8, 16, model.layers, model.layers + 1]) for _ in range(5)]
        first = [rng.choice([0, 1, 2]) for _ in range(5)]
        last = [rng.choice([0, 1, 3]) for _ in range(5)]
        alone = []
        for p, e1, e2 in zip(pp, first, last, strict=True):
            try:
                alone.append(model.stage_dense_params(p, e1, e2))
            except ValueError:
                alone.append(None)
        columns = (np.array(pp), np.array(first), np.array(last))
        if any(result is None for result in alone):
            with pytest.raises(ValueError):
                model.stage_dense_params(*columns)
            refused += 1
            continue
        together = model.stage_dense_params(*columns)
        for i, expected in enumerate(alone):
            assert tuple(int(part[i]) for part in together) == tuple(int(x) for x in expected)
            compared += 1
    assert compared > 100 and refused > 5


def test_the_split_rule_the_refusal_applies() -> None:
    """The refusal is the stage counts' own rule: a stage of fewer than no layers. Worked by hand for 12 layers on
    8 stages: slots ceil((12 + e1 + e2) / 8); edges (0, 3) give the last stage 2 - 3 = -1."""
    assert tuple(int(x) for x in stage_layer_counts(12, 8, 0, 3))[2] == -1
    assert min(int(x) for x in stage_layer_counts(12, 4, 0, 3)) >= 0
    model = MODELS["gpt2-small"]
    assert len(model.stage_dense_params(np.array([1, 2, 4]), 0, 3)[0]) == 3  # every element legal: computed


# ---------------------------------------------------------------------------------------------------------------------
# 2-3. Parts printed to add up to the total as the sentence prints it
# ---------------------------------------------------------------------------------------------------------------------


def _places(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def test_parts_add_up_to_the_total_as_the_format_prints_it() -> None:
    """Python prints a float rounded from its exact binary value, half to even: 44.675 is 44.67499999999999715...,
    printed "44.67" (and round(44.675, 2) agrees), though 44.675 * 100 rounds to 4467.5. One part is its own total."""
    assert f"{44.675:.2f}" == "44.67"
    assert parts_adding_up([44.675], 2) == ["44.67"]
    assert parts_adding_up([0.125], 2) == [f"{0.125:.2f}"] == ["0.12"]  # an exact tie: to even
    rng = random.Random(2023)
    for _ in range(4000):
        decimals = rng.randint(0, 6)
        parts = [round(rng.uniform(0, 100), decimals + 1) for _ in range(rng.randint(1, 6))]
        shown = parts_adding_up(parts, decimals)
        total = f"{sum(parts):.{decimals}f}"  # how the sentences print the total
        assert sum(Decimal(x) for x in shown) == Decimal(total), (parts, decimals, shown, total)
        unit = Decimal(10) ** -decimals
        assert all(_places(x) == decimals for x in shown)
        assert all(abs(Decimal(x) - Decimal(p)) < unit for x, p in zip(shown, parts, strict=True)), (parts, shown)
        places = adding_up_places(parts, 0, 6)
        rounded_alone = [f"{p:.{places}f}" for p in parts]
        if places < 6:  # the places found add up with each part printed on its own
            assert sum(Decimal(x) for x in rounded_alone) == Decimal(f"{sum(parts):.{places}f}"), (parts, places)


def test_huge_parts_print_and_a_sum_beyond_floats_is_refused_by_name() -> None:
    """The largest part printed (2^53 since fuzz pass 25, which refuses 1e300 by name instead of printing its 301
    digits) at 12 places is printed as the format prints it, not an OverflowError. Two parts of 1e308 sum to beyond
    the largest float (about 1.797e308): refused naming ``parts``, in the chosen language."""
    top = float(2**53)
    assert parts_adding_up([top], 12) == [f"{top:.12f}"]
    assert parts_adding_up([top / 2, top / 2], 0) == [f"{top / 2:.0f}"] * 2  # 2^53 is the sum, exactly
    assert sum(int(x) for x in parts_adding_up([top / 2, top / 2], 0)) == int(f"{top:.0f}")
    assert adding_up_places([top], 0, 12) == 0
    for lang in ("en", "zh"):
        i18n.set_language(lang)
        for call in (lambda: parts_adding_up([1e308, 1e308], 2), lambda: adding_up_places([1e308, 1e308], 0, 3)):
            with pytest.raises(ValueError) as error:
                call()
            assert "parts" in str(error.value) and "1e+308" in str(error.value)
            assert bool(CJK.search(str(error.value))) == (lang == "zh")


# ---------------------------------------------------------------------------------------------------------------------
# 4. A step timeline built by hand holds the timeline's own rule
# ---------------------------------------------------------------------------------------------------------------------

#: A step measured by hand (seconds): 100 ms compute, 40 ms communication of which 30 ms hide under it, 10 ms bubble.
MEASURED: dict[str, float] = {
    "compute_s": 0.100,
    "communication_s": 0.040,
    "exposed_communication_s": 0.010,
    "hidden_communication_s": 0.030,
    "bubble_s": 0.010,
    "input_wait_s": 0.0,
    "step_s": 0.120,
}


def test_a_timeline_built_by_hand_reads_as_step_timeline_builds_it() -> None:
    """The rule of StepTimeline's docstring, worked by hand: step = 100 + 10 + 10 = 120 ms, communication = 10 + 30 =
    40 ms. Built field by field, it is the timeline ``step_timeline(0.1, 0.04, overlap_fraction=0.75, bubble_s=0.01)``
    computes, and the diagnosis of the two is the same."""
    by_hand = StepTimeline(**MEASURED)
    built = step_timeline(0.100, 0.040, overlap_fraction=0.75, bubble_s=0.010)
    for name, value in MEASURED.items():
        assert getattr(built, name) == pytest.approx(value, rel=1e-12)
    assert diagnose_efficiency(by_hand).dominant == diagnose_efficiency(built).dominant == "communication"
    # numpy numbers and -0.0 are kept as the plain floats they hold
    odd = StepTimeline(**{**MEASURED, "compute_s": np.float64(0.1), "input_wait_s": -0.0})
    assert type(odd.compute_s) is float and str(odd.input_wait_s) == "0.0"


@pytest.mark.parametrize(
    ("change", "named", "error"),
    [
        ({"compute_s": "0.1"}, "compute_s", TypeError),
        ({"bubble_s": None}, "bubble_s", TypeError),
        ({"bubble_s": True}, "bubble_s", TypeError),
        ({"exposed_communication_s": math.nan}, "exposed_communication_s", ValueError),
        ({"input_wait_s": -0.01, "step_s": 0.11}, "input_wait_s", ValueError),
        ({"step_s": 0.5}, "step_s", ValueError),  # 100 + 10 + 10 ms is 120 ms, not 500
        ({"communication_s": 0.03}, "communication_s", ValueError),  # 10 exposed + 30 hidden is 40 ms
        ({"host_wait_s": 0.005}, "step_s", ValueError),  # a host wait is part of the step: 125 ms
    ],
)
def test_a_timeline_that_breaks_its_rule_is_refused_naming_the_field(
    change: dict[str, Any], named: str, error: type[Exception]
) -> None:
    """Before, each of these was taken: a string or None reached ``diagnose_efficiency`` as Python's own TypeError
    ("'>=' not supported between instances of 'float' and 'str'"), a step of 500 ms made of 120 ms of parts was
    diagnosed as "exposed communication takes 2% of the step"."""
    for lang in ("en", "zh"):
        i18n.set_language(lang)
        with pytest.raises(error) as caught:
            StepTimeline(**{**MEASURED, **change})
        message = str(caught.value)
        assert message.startswith(f"{named} = "), message
        assert bool(CJK.search(message)) == (lang == "zh"), message


# ---------------------------------------------------------------------------------------------------------------------
# 5. Rows per routed expert of a dense model
# ---------------------------------------------------------------------------------------------------------------------


def test_rows_per_expert_of_a_dense_model_are_refused_by_name() -> None:
    """``expert_rows`` = ep·(tokens·etp/tp)·top_k·c/E (its docstring). Mixtral 8x7B routes each token to 2 of 8
    experts without a capacity factor: 4096 tokens on one rank give 4096·2/8 = 1024 rows, element by element for a
    column too. GPT-2 small has no experts (E = 0): before, a ZeroDivisionError for numbers and NaN rows for a
    column; now a ValueError naming the model, in the chosen language."""
    mixtral = MODELS["mixtral-8x7b"]
    assert (mixtral.top_k, mixtral.num_experts) == (2, 8)
    assert expert_rows(mixtral, 4096.0, 1, 1, 1) == 1024.0
    column = expert_rows(mixtral, np.array([4096.0, 8.0]), np.array([1.0, 2.0]), 1, 1)
    alone = [expert_rows(mixtral, 4096.0, 1, 1, 1), expert_rows(mixtral, 8.0, 2, 1, 1)]
    assert column.tolist() == alone == [1024.0, 1.0]
    for lang in ("en", "zh"):
        i18n.set_language(lang)
        for tokens in (4096.0, np.array([4096.0, 1.0])):
            with pytest.raises(ValueError) as caught:
                expert_rows(MODELS["gpt2-small"], tokens, 1, 1, 1)
            assert str(caught.value).startswith("model = gpt2-small")
            assert bool(CJK.search(str(caught.value))) == (lang == "zh")
