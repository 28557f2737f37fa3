"""The navigation lines of every lesson, generated from the lesson registry (``coursekit/lessons.json``).

Each lesson source (``notebooks/src/NN_*.py``) opens with a navigation line in each language (other
language, course index, glossary, previous, next) and ends with a navigation cell. They are written
here, from the registry's short titles, so that every lesson names the others the same way.
``python tools/build_notebooks.py`` writes them (through ``tools/lesson_registry.py``); this script alone:

    python tools/lesson_nav.py           # check: exit 1 and list the lessons whose navigation differs
    python tools/lesson_nav.py --write   # rewrite the navigation lines of the sources (then build the notebooks)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from coursekit.i18n import Text  # noqa: E402
from coursekit.lessons import LESSONS, Lesson  # noqa: E402

#: Lesson number -> (zh title, en title), as the navigation names them (the registry's short titles).
TITLES: dict[int, tuple[str, str]] = {entry.number: (entry.title("zh"), entry.title("en")) for entry in LESSONS}

TOP_ZH = re.compile(r"^# \[English version\]\(\.\./en/.*$", re.M)
TOP_EN = re.compile(r"^# \[中文版\]\(\.\./zh/.*$", re.M)
BOTTOM_ZH = re.compile(r"^# 导航：.*$", re.M)
BOTTOM_EN = re.compile(r"^# Navigation: .*$", re.M)


#: The navigation's words (the links of the top line are capitalised in English, those of the closing line are not).
OTHER_LANGUAGE = Text(zh="[English version](../en/{stem}.ipynb)", en="[中文版](../zh/{stem}.ipynb)")
INDEX_LINK = Text(zh="[课程导引](00_index.ipynb)", en="[Course index](00_index.ipynb)")
GLOSSARY_LINK = Text(zh="[术语表](glossary.ipynb)", en="[Glossary](glossary.ipynb)")
INDEX_LINK_CLOSING = Text(zh="[课程导引](00_index.ipynb)", en="[course index](00_index.ipynb)")
GLOSSARY_LINK_CLOSING = Text(zh="[术语表](glossary.ipynb)", en="[glossary](glossary.ipynb)")
NAVIGATION = Text(zh="导航：", en="Navigation: ")
PREVIOUS = Text(zh="上一课：", en="Previous: ")
NEXT = Text(zh="下一课：", en="Next: ")


def _by_number(lessons: Sequence[Lesson]) -> dict[int, Lesson]:
    return {entry.number: entry for entry in lessons}


def _link(entry: Lesson, lang: str) -> str:
    text = Text(
        zh=f"第 {entry.number} 课 {entry.title('zh')}", en=f"lesson {entry.number}, {entry.title('en')}"
    ).render(lang)
    return f"[{text}]({entry.stem}.ipynb)"


def _word(text: Text, lang: str, capital: bool) -> str:
    word = text.render(lang)
    return word if capital else word[:1].lower() + word[1:]


def _neighbours(lesson: int, lang: str, lessons: Sequence[Lesson], *, capital: bool) -> list[str]:
    by_number = _by_number(lessons)
    parts = []
    if lesson - 1 in by_number:
        parts.append(_word(PREVIOUS, lang, capital) + _link(by_number[lesson - 1], lang))
    if lesson + 1 in by_number:
        parts.append(_word(NEXT, lang, capital) + _link(by_number[lesson + 1], lang))
    return parts


def top_line(lesson: int, lang: str, lessons: Sequence[Lesson] = LESSONS) -> str:
    """The navigation line under a lesson's title (without the leading ``# ``)."""
    stem = _by_number(lessons)[lesson].stem
    parts = [OTHER_LANGUAGE.render(lang).format(stem=stem)]
    parts += [] if lesson == 0 else [INDEX_LINK.render(lang)]
    parts += [GLOSSARY_LINK.render(lang)]
    return " · ".join(parts + _neighbours(lesson, lang, lessons, capital=True))


def bottom_line(lesson: int, lang: str, lessons: Sequence[Lesson] = LESSONS) -> str:
    """The navigation cell closing a lesson (without the leading ``# ``)."""
    parts = ([] if lesson == 0 else [INDEX_LINK_CLOSING.render(lang)]) + [GLOSSARY_LINK_CLOSING.render(lang)]
    return NAVIGATION.render(lang) + " · ".join(parts + _neighbours(lesson, lang, lessons, capital=False))


def rendered_text(text: str, lesson: int, lessons: Sequence[Lesson] = LESSONS) -> str:
    """A lesson source's ``text`` with its navigation lines generated (a closing navigation cell added if missing)."""
    text = TOP_ZH.sub(lambda _: "# " + top_line(lesson, "zh", lessons), text, count=1)
    text = TOP_EN.sub(lambda _: "# " + top_line(lesson, "en", lessons), text, count=1)
    if BOTTOM_ZH.search(text) and BOTTOM_EN.search(text):
        text = BOTTOM_ZH.sub(lambda _: "# " + bottom_line(lesson, "zh", lessons), text, count=1)
        return BOTTOM_EN.sub(lambda _: "# " + bottom_line(lesson, "en", lessons), text, count=1)
    return (
        text.rstrip("\n")
        + '\n\n# %% [markdown] lang="zh"\n# '
        + bottom_line(lesson, "zh", lessons)
        + '\n\n# %% [markdown] lang="en"\n# '
        + bottom_line(lesson, "en", lessons)
        + "\n"
    )


def rendered(source: Path) -> str:
    """``source``'s text with its navigation lines generated (a closing navigation cell added if missing)."""
    return rendered_text(source.read_text(encoding="utf-8"), int(source.name[:2]))


def main(argv: list[str]) -> int:
    write = "--write" in argv
    stale = []
    for source in sorted(SRC.glob("[0-9][0-9]_*.py")):
        new = rendered(source)
        if new != source.read_text(encoding="utf-8"):
            stale.append(source.name)
            if write:
                source.write_text(new, encoding="utf-8")
    if stale and not write:
        print("navigation differs from the lesson registry in: " + ", ".join(stale))
        return 1
    if stale:
        print("rewrote the navigation of: " + ", ".join(stale))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
