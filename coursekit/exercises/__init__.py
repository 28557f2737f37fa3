"""Exercises with friendly checking: ``check("q1.state_gib", answer)``.

An :class:`Exercise` knows how to compute its expected answer by calling
coursekit (never a copied literal, except a fact stated in the seed text), how
to compare an answer with it (numeric tolerance, exact value, or choice), a
hint and a one-line explanation. Lesson modules ``coursekit.exercises.lesson1``
... define their exercises and :func:`register` them at import; :func:`check`
imports the right module from the id prefix (``q1`` -> ``lesson1``, see
:data:`PREFIX_MODULES`).

:func:`check` shows the feedback in the current language and returns it; it
never raises for a learner's answer:

* ``...`` or ``None`` -> not answered yet;
* right -> correct, with the explanation;
* wrong -> not yet, with the hint (never the expected answer);
* wrong type -> a message saying what kind of answer is expected.

>>> from coursekit.i18n import Text
>>> _ = register(Exercise(
...     id="demo.two_plus_two", lesson=0, prompt=Text(zh="2 + 2 = ?", en="2 + 2 = ?"),
...     expected=lambda: 2 + 2, kind="exact",
...     hint=Text(zh="数一数。", en="Count."), why=Text(zh="2 + 2 = 4。", en="2 + 2 = 4.")), replace=True)
>>> check("demo.two_plus_two", ...).status
⏳ demo.two_plus_two: not answered yet. Replace ... with your answer and run the cell again.
'unanswered'
>>> check("demo.two_plus_two", 4).correct
✅ demo.two_plus_two: correct. 2 + 2 = 4.
True
>>> check("demo.two_plus_two", 5).status
❌ demo.two_plus_two: not yet. Hint: Count.
'incorrect'

Taught in: lesson 0 (course index, "how exercises work"); used by every lesson.
"""

from __future__ import annotations

import html
import importlib
import logging
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._validate import check_bool, check_choice, check_int, check_number
from ..i18n import Text, tr
from ..i18n import register as _register_messages

__all__ = [
    "KINDS",
    "PREFIX_MODULES",
    "Exercise",
    "Feedback",
    "check",
    "exercises",
    "verify",
    "get_exercise",
    "register",
]

_log = logging.getLogger(__name__)
_log.addHandler(logging.NullHandler())

#: Id prefix -> the module of lesson exercises that registers it on import.
PREFIX_MODULES: dict[str, str] = {
    "intro": "coursekit.exercises.lesson0",
    "q1": "coursekit.exercises.lesson1",
    "q2": "coursekit.exercises.lesson2",
    "q3": "coursekit.exercises.lesson3",
    "q4": "coursekit.exercises.lesson4",
    "matrix": "coursekit.exercises.lesson5",
    "pipeline": "coursekit.exercises.lesson6",
    "lab": "coursekit.exercises.lesson8",
    "plan": "coursekit.exercises.lesson9",
}

#: How an answer is compared with the expected one.
#: ``number``: a real number within ``rel_tol`` / ``abs_tol``;
#: ``exact``: equal, with the same kind of value (int, str, bool, tuple ...);
#: ``choice``: one of ``choices`` (or, if the expected value is a frozenset, a set of them).
KINDS: tuple[str, ...] = ("number", "exact", "choice")

#: Default relative tolerance of numeric answers (0.5 %: rounding to 2-3 significant digits passes).
DEFAULT_REL_TOL: float = 5e-3

_ID = re.compile(r"^[a-z][a-z0-9]*\.[a-z0-9_]+$")

_register_messages(
    {
        "exercises.unanswered": {
            "zh": "⏳ {id}：尚未作答。把 ... 换成你的答案，再运行本单元格。",
            "en": "⏳ {id}: not answered yet. Replace ... with your answer and run the cell again.",
        },
        "exercises.correct": {
            "zh": "✅ {id}：正确。{why}",
            "en": "✅ {id}: correct. {why}",
        },
        "exercises.incorrect": {
            "zh": "❌ {id}：还不对。提示：{hint}",
            "en": "❌ {id}: not yet. Hint: {hint}",
        },
        "exercises.invalid": {
            "zh": "⚠️ {id}：无法检查这个答案。{error}",
            "en": "⚠️ {id}: this answer cannot be checked. {error}",
        },
        "exercises.error": {
            "zh": "⚠️ {id}：检查时出现意外错误（不是你的问题，请告诉课程作者）：{error}",
            "en": "⚠️ {id}: unexpected error while checking (not your fault; please tell the course authors): {error}",
        },
        "exercises.expect_choice_set": {
            "zh": "答案应当是由 {choices} 中的选项组成的集合，例如 {{{example!r}}}。",
            "en": "The answer should be a set of options from {choices}, e.g. {{{example!r}}}.",
        },
        "exercises.expect_type": {
            "zh": "答案应当是 {expected_type}，而不是 {type}（{value!r}）。",
            "en": "The answer should be a {expected_type}, not a {type} ({value!r}).",
        },
        "exercises.unknown": {
            "zh": "没有编号为 {id!r} 的练习（已知：{known}）。",
            "en": "There is no exercise {id!r} (known: {known}).",
        },
    }
)


@dataclass(frozen=True)
class Exercise:
    """One exercise: how to compute the expected answer and how to judge an answer.

    Parameters:

    * ``id``: ``"<prefix>.<name>"``, e.g. ``"q1.state_gib"``; the prefix names the lesson module;
    * ``lesson``: the lesson number (must match the prefix, see :data:`PREFIX_MODULES`);
    * ``prompt``: the question, bilingual;
    * ``expected``: a callable with no arguments that computes the right answer with coursekit;
    * ``kind``: one of :data:`KINDS`;
    * ``hint``: shown when the answer is wrong; it must not contain the answer;
    * ``why``: one line shown when the answer is right; a ``Text`` or a callable
      ``expected -> Text`` (to show the computed value);
    * ``rel_tol`` / ``abs_tol``: tolerances of ``number`` exercises (as in :func:`math.isclose`);
    * ``choices``: the options of ``choice`` exercises;
    * ``normalize``: optional function applied to a ``str`` answer (or to each
      ``str`` in a set answer) before comparing, e.g. ``str.upper`` so ``"tp"`` counts as ``"TP"``.

    >>> ex = Exercise(id="demo.bytes_per_param", lesson=0, prompt=Text(zh="?", en="?"),
    ...               expected=lambda: 2 + 2 + 12, hint=Text(zh="数字节。", en="Count bytes."),
    ...               why=Text(zh="16。", en="16."))
    >>> ex.expected_value()
    16
    """

    id: str
    lesson: int
    prompt: Text
    expected: Callable[[], Any]
    hint: Text
    why: Text | Callable[[Any], Text]
    kind: str = "number"
    rel_tol: float = DEFAULT_REL_TOL
    abs_tol: float = 0.0
    choices: tuple[str, ...] = ()
    normalize: Callable[[Any], Any] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"exercise id {self.id!r} must look like 'q1.state_gib' (lowercase prefix.name)")
        lesson = check_int("lesson", self.lesson, ge=0)
        module = PREFIX_MODULES.get(self.prefix)
        module_lesson = re.search(r"lesson(\d+)$", module) if module is not None else None
        if module_lesson is not None and int(module_lesson.group(1)) != lesson:
            raise ValueError(f"exercise {self.id!r}: prefix {self.prefix!r} belongs to {module}, not lesson {lesson}")
        check_choice("kind", self.kind, KINDS)
        for name in ("prompt", "hint"):
            if not isinstance(getattr(self, name), Text):
                raise TypeError(f"exercise {self.id!r}: {name} must be a coursekit.i18n.Text")
        if not (isinstance(self.why, Text) or callable(self.why)):
            raise TypeError(f"exercise {self.id!r}: why must be a Text or a callable returning one")
        if not callable(self.expected):
            raise TypeError(f"exercise {self.id!r}: expected must be a callable that computes the answer")
        check_number("rel_tol", self.rel_tol, ge=0)
        check_number("abs_tol", self.abs_tol, ge=0)
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"exercise {self.id!r}: a choice exercise needs choices")

    @property
    def prefix(self) -> str:
        """The part of the id before the dot (``"q1"``)."""
        return self.id.split(".", 1)[0]

    def expected_value(self) -> Any:
        """The expected answer, computed now."""
        return self.expected()

    def why_text(self, expected: Any) -> Text:
        """The explanation shown with a right answer."""
        return self.why if isinstance(self.why, Text) else self.why(expected)


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer; ``message`` renders in the language current when read.

    ``status`` is one of ``"unanswered"``, ``"correct"``, ``"incorrect"``,
    ``"invalid"`` (wrong kind of answer) or ``"error"`` (a bug in the exercise).

    :func:`check` already displayed it, so showing a Feedback as the last
    expression of a cell displays nothing more; call :meth:`show` to show it again.
    """

    exercise_id: str
    status: str
    key: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def correct(self) -> bool:
        """True only for a right answer."""
        return self.status == "correct"

    @property
    def message(self) -> str:
        """The feedback sentence in the current language."""
        return tr(self.key, **self.params)

    def __str__(self) -> str:
        return self.message

    def show(self) -> None:
        """Display the feedback (HTML in a notebook, plain text elsewhere)."""
        _display(self)

    def _ipython_display_(self) -> None:
        """Already displayed by :func:`check`: display nothing more."""


_COLOURS: dict[str, str] = {
    "correct": "#2e7d32",
    "incorrect": "#c62828",
    "unanswered": "#616161",
    "invalid": "#ed6c02",
    "error": "#ed6c02",
}


def _display(feedback: Feedback) -> None:
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:  # plain Python without IPython
        shell = None
    if shell is not None and getattr(shell, "kernel", None) is not None:
        from IPython.display import display

        colour = _COLOURS.get(feedback.status, "#616161")
        message = feedback.message
        bundle = {
            "text/plain": message,
            "text/html": f'<div style="border-left:4px solid {colour};padding:2px 8px">{html.escape(message)}</div>',
        }
        display(bundle, raw=True)  # type: ignore[no-untyped-call]
    else:
        print(feedback.message)


_registry: dict[str, Exercise] = {}


def register(exercise: Exercise, *, replace: bool = False) -> Exercise:
    """Add ``exercise`` to the registry and return it.

    Registering a second exercise under the same id is an error unless
    ``replace=True`` (for reloading a lesson module).
    """
    if not isinstance(exercise, Exercise):
        raise TypeError(f"register() needs an Exercise, not {type(exercise).__name__}")
    if exercise.id in _registry and not replace and _registry[exercise.id] is not exercise:
        raise ValueError(f"exercise {exercise.id!r} is already registered")
    _registry[exercise.id] = exercise
    return exercise


def _load_lesson(prefix: str) -> None:
    module = PREFIX_MODULES.get(prefix)
    if module is None:
        return
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:  # the lesson module exists but one of its imports is missing
            raise


def get_exercise(exercise_id: str) -> Exercise:
    """The registered exercise ``exercise_id``, importing its lesson module if needed."""
    if not isinstance(exercise_id, str):
        raise TypeError(
            tr("validate.type_choice", name="exercise_id", value=exercise_id, type=type(exercise_id).__name__)
        )
    if exercise_id not in _registry:
        _load_lesson(exercise_id.split(".", 1)[0])
    try:
        return _registry[exercise_id]
    except KeyError:
        prefix = exercise_id.split(".", 1)[0]
        known = ", ".join(sorted(k for k in _registry if k.startswith(prefix + "."))) or "-"
        raise ValueError(tr("exercises.unknown", id=exercise_id, known=known)) from None


def exercises(lesson: int | None = None) -> tuple[Exercise, ...]:
    """The registered exercises (of one lesson, if given), sorted by id.

    Lesson modules are imported first, so every exercise of the course is listed.
    """
    for prefix in PREFIX_MODULES:
        _load_lesson(prefix)
    chosen = [ex for ex in _registry.values() if lesson is None or ex.lesson == lesson]
    return tuple(sorted(chosen, key=lambda ex: ex.id))


def _normalized(exercise: Exercise, answer: Any) -> Any:
    if exercise.normalize is not None and isinstance(answer, str):
        return exercise.normalize(answer)
    return answer


def _judge(exercise: Exercise, answer: Any, expected: Any) -> bool:
    """True if ``answer`` is right; TypeError / ValueError (localized) if it cannot be compared."""
    if exercise.kind == "number":
        value = check_number("answer", answer)
        return math.isclose(value, expected, rel_tol=exercise.rel_tol, abs_tol=exercise.abs_tol)
    if exercise.kind == "choice":
        if isinstance(expected, (frozenset, set)):
            if not isinstance(answer, (set, frozenset, list, tuple)):
                raise TypeError(
                    tr("exercises.expect_choice_set", choices=", ".join(exercise.choices), example=exercise.choices[0])
                )
            picked = {check_choice("answer", _normalized(exercise, item), exercise.choices) for item in answer}
            return picked == set(expected)
        return bool(check_choice("answer", _normalized(exercise, answer), exercise.choices) == expected)
    # exact
    answer = _normalized(exercise, answer)
    if isinstance(expected, bool):
        return bool(check_bool("answer", answer) == expected)
    if isinstance(expected, int):
        return bool(check_int("answer", answer) == expected)
    if type(answer) is not type(expected):
        raise TypeError(
            tr(
                "exercises.expect_type",
                expected_type=type(expected).__name__,
                type=type(answer).__name__,
                value=answer,
            )
        )
    return bool(answer == expected)


def check(exercise_id: str, answer: Any) -> Feedback:
    """Check ``answer`` to exercise ``exercise_id``, show the feedback and return it.

    Never raises for a learner's answer; an unknown ``exercise_id`` (an author's
    typo) is a ``ValueError``.

    Taught in: lesson 0 (course index); every lesson's fill-in cells call it.
    """
    exercise = get_exercise(exercise_id)
    feedback = _evaluate(exercise, answer)
    _display(feedback)
    return feedback


def verify(exercise_id: str, answer: Any) -> None:
    """Assert that ``answer`` is right for ``exercise_id`` without showing anything.

    For worked-solution cells: they run under Run All and in the tests, but must
    not print a verdict or the expected value next to the learner's blank. A
    wrong answer raises ``AssertionError`` naming the exercise and its status.

    >>> verify("demo.two_plus_two", 4)
    >>> verify("demo.two_plus_two", 5)
    Traceback (most recent call last):
    ...
    AssertionError: demo.two_plus_two: incorrect

    Taught in: lesson 0 (course index); every lesson's solution cells call it.
    """
    feedback = _evaluate(get_exercise(exercise_id), answer)
    if not feedback.correct:
        raise AssertionError(f"{exercise_id}: {feedback.status}")


def _evaluate(exercise: Exercise, answer: Any) -> Feedback:
    eid = exercise.id
    if answer is ... or answer is None:
        return Feedback(eid, "unanswered", "exercises.unanswered", {"id": eid})
    try:
        expected = exercise.expected_value()
        if exercise.kind == "number":
            expected = check_number("expected", expected)
    except Exception as exc:
        _log.error("exercise %s: computing the expected answer failed", eid, exc_info=True)
        return Feedback(eid, "error", "exercises.error", {"id": eid, "error": f"{type(exc).__name__}: {exc}"})
    try:
        right = _judge(exercise, answer, expected)
    except (TypeError, ValueError) as exc:
        return Feedback(eid, "invalid", "exercises.invalid", {"id": eid, "error": str(exc)})
    except Exception as exc:
        _log.error("exercise %s: comparing %r failed", eid, answer, exc_info=True)
        return Feedback(eid, "error", "exercises.error", {"id": eid, "error": f"{type(exc).__name__}: {exc}"})
    if right:
        return Feedback(eid, "correct", "exercises.correct", {"id": eid, "why": exercise.why_text(expected)})
    return Feedback(eid, "incorrect", "exercises.incorrect", {"id": eid, "hint": exercise.hint})
