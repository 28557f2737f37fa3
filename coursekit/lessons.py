"""The course's lessons, read from one registry (``coursekit/lessons.json``, shipped with the package).

Each entry names a lesson once: its number and slug (the source is ``notebooks/src/NN_slug.py``), its titles,
the question it answers and a one-line summary in each language, whether it is optional and what it then
needs, and the id prefix of its exercises. The lesson maps, the navigation lines, the instructor guide's
contents and the exercise prefixes are all generated or derived from here (``tools/lesson_registry.py``).
A lesson's stated time needs nothing more: ``tools/lesson_times.py`` estimates it from the lesson's content and
the number of exercise ids its module registers (found through the prefix).

>>> [lesson.stem for lesson in LESSONS[:2]]
['00_index', '01_capacity']
>>> lesson(8).title("en"), lesson(8).note("zh")
('formula vs measurement', '可选；重新实测需要 PyTorch')
>>> lesson(1).exercise_module
'coursekit.exercises.lesson1'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ._validate import called_from_outside, check_instance, check_int, check_items, learner_functions
from .i18n import LANGUAGES, register, tr

register(
    {
        "lessons.optional": {"zh": "可选", "en": "optional"},
        "lessons.optional_needs": {"zh": "可选；重新实测需要 {needs}", "en": "optional; measuring again needs {needs}"},
        "lessons.registry_text": {
            "zh": "text = {value!r}：必须是课程登记表的 JSON 文本 (str)，或 None（读包里的 {file}），而不是 {type}。",
            "en": "text = {value!r}: must be the lesson registry's JSON text (str), or None (the packaged {file}), "
            "not {type}.",
        },
        "lessons.registry_form": {
            "zh": "text 不是 {file} 那样的课程登记表：{reason}",
            "en": "text is not a lesson registry like {file}: {reason}",
        },
        "lessons.registry_numbers": {
            "zh": "{file}：课程编号是 {numbers}，必须依次是 0、1、2……",
            "en": "{file}: lesson numbers are {numbers}, must be 0, 1, 2 ... in order",
        },
    }
)

__all__ = ["LESSONS", "Lesson", "lesson", "prefix_modules"]

#: The registry file inside the package.
REGISTRY_FILE = "lessons.json"


@dataclass(frozen=True)
class Lesson:
    """One registry entry (texts keyed by language code)."""

    number: int
    slug: str
    exercises: str | None
    tag: str | None
    optional: bool
    needs: str | None
    titles: dict[str, str]
    questions: dict[str, str]
    summaries: dict[str, str | None]

    @property
    def stem(self) -> str:
        """``NN_slug``: the name of the source, the notebooks and the instructor pages."""
        return f"{self.number:02d}_{self.slug}"

    @property
    def exercise_module(self) -> str | None:
        """The module that registers this lesson's exercises (``coursekit.exercises.lessonN``)."""
        return None if self.exercises is None else f"coursekit.exercises.lesson{self.number}"

    def title(self, lang: str) -> str:
        """The short title, as navigation and tables name the lesson."""
        return self.titles[lang]

    def note(self, lang: str) -> str | None:
        """``可选；重新实测需要 PyTorch`` / ``optional; measuring again needs PyTorch`` for an optional lesson whose
        measuring needs something more, ``可选`` / ``optional`` for another optional lesson, else None."""
        if not self.optional:
            return None
        return tr("lessons.optional_needs" if self.needs else "lessons.optional", lang, needs=self.needs)


def _entry(raw: dict[str, Any]) -> Lesson:
    return Lesson(
        number=int(raw["number"]),
        slug=str(raw["slug"]),
        exercises=raw["exercises"],
        tag=raw["tag"],
        optional=bool(raw["optional"]),
        needs=raw["needs"],
        titles={lang: raw[lang]["title"] for lang in LANGUAGES},
        questions={lang: raw[lang]["question"] for lang in LANGUAGES},
        summaries={lang: raw[lang]["summary"] for lang in LANGUAGES},
    )


def load(text: str | None = None) -> tuple[Lesson, ...]:
    """The registry's lessons in order (``text``: the JSON to read instead of the packaged file)."""
    if text is None:
        text = resources.files(__package__).joinpath(REGISTRY_FILE).read_text(encoding="utf-8")
    elif not isinstance(text, str):
        raise TypeError(tr("lessons.registry_text", value=text, file=REGISTRY_FILE, type=type(text).__name__))
    try:
        entries = tuple(_entry(raw) for raw in json.loads(text)["lessons"])
    except (ValueError, KeyError, TypeError, AttributeError) as error:  # not JSON, or JSON of another shape
        reason = f"{type(error).__name__}: {error}"
        raise ValueError(tr("lessons.registry_form", file=REGISTRY_FILE, reason=reason)) from None
    numbers = [entry.number for entry in entries]
    if numbers != list(range(len(entries))):
        raise ValueError(tr("lessons.registry_numbers", file=REGISTRY_FILE, numbers=numbers))
    return entries


LESSONS: tuple[Lesson, ...] = load()


def lesson(number: int) -> Lesson:
    """The registry entry of lesson ``number`` (0 to the last lesson's number).

    >>> lesson(1).number
    1
    """
    return LESSONS[check_int("number", number, ge=0, le=len(LESSONS) - 1)]


def prefix_modules(lessons: tuple[Lesson, ...] = LESSONS) -> dict[str, str]:
    """Exercise id prefix -> the module that registers that lesson's exercises."""
    if called_from_outside():
        for i, entry in enumerate(check_items("lessons", lessons)):
            check_instance(f"lessons[{i}]", entry, Lesson)
    return {entry.exercises: str(entry.exercise_module) for entry in lessons if entry.exercises is not None}


learner_functions(globals())
