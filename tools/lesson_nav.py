"""The navigation lines of every lesson, generated from one table of lesson titles.

Each lesson source (``notebooks/src/NN_*.py``) opens with a navigation line in each language (other
language, course index, glossary, previous, next) and ends with a navigation cell. They are written
here, from :data:`TITLES`, so that every lesson names the others the same way.

    python tools/lesson_nav.py           # check: exit 1 and list the lessons whose navigation differs
    python tools/lesson_nav.py --write   # rewrite the navigation lines of the sources (then build the notebooks)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"

#: Lesson number -> (zh title, en title), as the navigation names them.
TITLES: dict[int, tuple[str, str]] = {
    0: ("课程导引", "course index"),
    1: ("容量约束", "capacity"),
    2: ("通信成本", "communication"),
    3: ("约束筛选", "gates"),
    4: ("组合与风险", "composition and risk"),
    5: ("场景选择矩阵", "the selection matrix"),
    6: ("流水线气泡与扩展效率", "pipeline bubble and scaling efficiency"),
    7: ("计算效率", "compute efficiency"),
    8: ("实验：测量一个训练步", "the lab: measuring a step"),
    9: ("决策工作台", "the decision workbench"),
    10: ("服务", "serving"),
}

TOP_ZH = re.compile(r"^# \[English version\]\(\.\./en/.*$", re.M)
TOP_EN = re.compile(r"^# \[中文版\]\(\.\./zh/.*$", re.M)
BOTTOM_ZH = re.compile(r"^# 导航：.*$", re.M)
BOTTOM_EN = re.compile(r"^# Navigation: .*$", re.M)


def _stems() -> dict[int, str]:
    return {int(p.name[:2]): p.stem for p in sorted(SRC.glob("[0-9][0-9]_*.py"))}


def _link(lesson: int, lang: str, stems: dict[int, str]) -> str:
    zh, en = TITLES[lesson]
    text = f"第 {lesson} 课 {zh}" if lang == "zh" else f"lesson {lesson}, {en}"
    return f"[{text}]({stems[lesson]}.ipynb)"


def _neighbours(lesson: int, lang: str, stems: dict[int, str], *, capital: bool) -> list[str]:
    parts = []
    if lesson - 1 in stems:
        word = "上一课：" if lang == "zh" else ("Previous: " if capital else "previous: ")
        parts.append(word + _link(lesson - 1, lang, stems))
    if lesson + 1 in stems:
        word = "下一课：" if lang == "zh" else ("Next: " if capital else "next: ")
        parts.append(word + _link(lesson + 1, lang, stems))
    return parts


def top_line(lesson: int, lang: str) -> str:
    """The navigation line under a lesson's title (without the leading ``# ``)."""
    stems = _stems()
    stem = stems[lesson]
    if lang == "zh":
        parts = [f"[English version](../en/{stem}.ipynb)"]
        parts += [] if lesson == 0 else ["[课程导引](00_index.ipynb)"]
        parts += ["[术语表](glossary.ipynb)"]
    else:
        parts = [f"[中文版](../zh/{stem}.ipynb)"]
        parts += [] if lesson == 0 else ["[Course index](00_index.ipynb)"]
        parts += ["[Glossary](glossary.ipynb)"]
    return " · ".join(parts + _neighbours(lesson, lang, stems, capital=True))


def bottom_line(lesson: int, lang: str) -> str:
    """The navigation cell closing a lesson (without the leading ``# ``)."""
    stems = _stems()
    if lang == "zh":
        parts = ([] if lesson == 0 else ["[课程导引](00_index.ipynb)"]) + ["[术语表](glossary.ipynb)"]
        return "导航：" + " · ".join(parts + _neighbours(lesson, lang, stems, capital=False))
    parts = ([] if lesson == 0 else ["[course index](00_index.ipynb)"]) + ["[glossary](glossary.ipynb)"]
    return "Navigation: " + " · ".join(parts + _neighbours(lesson, lang, stems, capital=False))


def rendered(source: Path) -> str:
    """``source``'s text with its navigation lines generated (a closing navigation cell added if missing)."""
    lesson = int(source.name[:2])
    text = source.read_text(encoding="utf-8")
    text = TOP_ZH.sub(lambda _: "# " + top_line(lesson, "zh"), text, count=1)
    text = TOP_EN.sub(lambda _: "# " + top_line(lesson, "en"), text, count=1)
    if BOTTOM_ZH.search(text) and BOTTOM_EN.search(text):
        text = BOTTOM_ZH.sub(lambda _: "# " + bottom_line(lesson, "zh"), text, count=1)
        text = BOTTOM_EN.sub(lambda _: "# " + bottom_line(lesson, "en"), text, count=1)
    else:
        text = (
            text.rstrip("\n")
            + '\n\n# %% [markdown] lang="zh"\n# '
            + bottom_line(lesson, "zh")
            + '\n\n# %% [markdown] lang="en"\n# '
            + bottom_line(lesson, "en")
            + "\n"
        )
    return text


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
        print("navigation differs from tools/lesson_nav.py in: " + ", ".join(stale))
        return 1
    if stale:
        print("rewrote the navigation of: " + ", ".join(stale))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
