"""Stated lesson times agree everywhere, and the split lessons' headers are the content estimate.

"Everywhere": each lesson's header (zh and en), the README's and lesson 0's course maps, the instructor guide's
contents pages and each lesson's instructor page (total and its split into teaching and exercises), and the course
totals the README and the instructor guide state.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"


def _lesson_times_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("lesson_times", ROOT / "tools" / "lesson_times.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


def _header_minutes(source: Path) -> tuple[int, int]:
    text = source.read_text(encoding="utf-8")
    zh = re.search(r"^# > \*\*时间：\*\* 约 (\d+) 分钟", text, re.M)
    en = re.search(r"^# > \*\*Time:\*\* about (\d+) min", text, re.M)
    assert zh and en, f"{source.name}: header time not in the course's format"
    return int(zh.group(1)), int(en.group(1))


def _map_minutes(text: str, unit: str) -> dict[int, int]:
    rows = re.findall(r"^#? ?\| \[?(\d+)\]?(?:\([^)]*\))? \|.*\| (\d+) " + unit + r" \|$", text, re.M)
    return {int(lesson): int(minutes) for lesson, minutes in rows}


LESSONS = sorted(SRC.glob("[0-9][0-9]_*.py"))
INSTRUCTOR = ROOT / "docs" / "instructor"


def _header_split(source: Path) -> tuple[int, int]:
    """(teaching, exercises) minutes of the header, the same in zh and en."""
    text = source.read_text(encoding="utf-8")
    zh = re.search(r"^# > \*\*时间：\*\* 约 \d+ 分钟（讲解与阅读 (\d+) 分钟，练习 (\d+) 分钟", text, re.M)
    en = re.search(
        r"^# > \*\*Time:\*\* about \d+ min \(teaching and reading (\d+) min, exercises (\d+) min", text, re.M
    )
    assert zh and en, f"{source.name}: header split not in the course's format"
    assert zh.groups() == en.groups(), f"{source.name}: zh and en headers split the time differently"
    return int(en.group(1)), int(en.group(2))


def _instructor_time(page: Path) -> tuple[int, int, int]:
    """(total, teaching, exercises) minutes of an instructor page's time line."""
    text = page.read_text(encoding="utf-8")
    unit = "分钟" if page.parent.name == "zh" else "min"
    lead = r"\*\*时间：\*\* 约 " if unit == "分钟" else r"\*\*Time:\*\* about "
    found = re.search(lead + rf"(\d+) {unit} = [^+\n]+? (\d+) {unit} \+ [^\n]+? (\d+) {unit}", text)
    assert found, f"{page.relative_to(ROOT)}: no time line in the guide's format"
    total, teaching, exercises = (int(group) for group in found.groups())
    return total, teaching, exercises


def _contents_minutes(text: str, unit: str) -> dict[int, int]:
    """The instructor guide's contents table: ``| 9 Decision workbench | [09_workbench.md](...) | 60 min |``."""
    rows = re.findall(r"^\| (\d+) [^|]*\| \[[^\]]*\]\([^)]*\) \| (\d+) " + unit + r" \|$", text, re.M)
    return {int(lesson): int(minutes) for lesson, minutes in rows}


@pytest.mark.parametrize("source", LESSONS, ids=lambda p: p.stem)
def test_header_and_maps_agree(source: Path) -> None:
    zh, en = _header_minutes(source)
    assert zh == en
    lesson = int(source.name[:2])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    index = (SRC / "00_index.py").read_text(encoding="utf-8")
    for name, table in (
        ("README zh", _map_minutes(readme, "分钟")),
        ("README en", _map_minutes(readme, "min")),
        ("index zh", _map_minutes(index, "分钟")),
        ("index en", _map_minutes(index, "min")),
    ):
        if lesson in table:
            assert table[lesson] == zh, f"{name} says {table[lesson]} min for lesson {lesson}, the header {zh}"


@pytest.mark.parametrize("source", LESSONS, ids=lambda p: p.stem)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_instructor_pages_state_the_lesson_time(source: Path, lang: str) -> None:
    page = INSTRUCTOR / lang / f"{source.stem}.md"
    assert page.exists(), f"no instructor page {page.relative_to(ROOT)}"
    total, teaching, exercises = _instructor_time(page)
    header_total, _ = _header_minutes(source)
    assert total == header_total, f"{page.relative_to(ROOT)} says {total} min, the lesson header {header_total}"
    assert (teaching, exercises) == _header_split(source), f"{page.relative_to(ROOT)}: split differs from the header"
    assert teaching + exercises == total


@pytest.mark.parametrize(("lang", "unit"), [("zh", "分钟"), ("en", "min")])
def test_instructor_contents_and_course_totals_agree(lang: str, unit: str) -> None:
    headers = {int(source.name[:2]): _header_minutes(source)[0] for source in LESSONS}
    contents = (INSTRUCTOR / lang / "README.md").read_text(encoding="utf-8")
    assert _contents_minutes(contents, unit) == headers
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    total = sum(headers.values())
    for name, text in (("README", readme), (f"instructor {lang} contents", contents)):
        stated = {int(m) for m in re.findall(r"[(（](\d+) (?:min|分钟)[；;]", text)}
        assert stated == {total}, f"{name} states a course total of {stated}, the headers add up to {total} min"


@pytest.mark.parametrize("stem", [source.stem for source in LESSONS])
def test_every_lesson_states_the_content_estimate(stem: str) -> None:
    module = _lesson_times_module()
    estimate = module.estimate(ROOT / "notebooks" / "en" / f"{stem}.ipynb", module.course_answers(int(stem[:2])))
    teaching, exercises = _header_split(SRC / f"{stem}.py")
    # the stated rule (README): each part a whole number of 5-min steps, kept while the calibrated estimate stays
    # within half a step plus 1 min of it (so a part may differ from the plain rounding on a rounding edge)
    for stated, raw in ((teaching, estimate.raw_teaching_min), (exercises, estimate.raw_exercise_min)):
        assert stated % 5 == 0 and stated >= 5
        assert abs(raw * module.CALIBRATION - stated) <= 5 / 2 + 1.0, (stem, stated, raw * module.CALIBRATION)
    assert _header_minutes(SRC / f"{stem}.py") == (teaching + exercises, teaching + exercises)


def test_the_estimate_is_calibrated_on_the_measured_lesson() -> None:
    module = _lesson_times_module()
    # The former lesson 5 (before the split) took a self-learner 80-95 min; its raw content sum was 66.7 min.
    assert 80 <= 66.7 * module.CALIBRATION <= 95
