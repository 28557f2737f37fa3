"""Stated lesson times agree everywhere, and the split lessons' headers are the content estimate."""

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


@pytest.mark.parametrize("stem", [source.stem for source in LESSONS])
def test_every_lesson_states_the_content_estimate(stem: str) -> None:
    module = _lesson_times_module()
    estimate = module.estimate(ROOT / "notebooks" / "en" / f"{stem}.ipynb", module.course_answers(int(stem[:2])))
    assert _header_minutes(SRC / f"{stem}.py") == (estimate.total_min, estimate.total_min)


def test_the_estimate_is_calibrated_on_the_measured_lesson() -> None:
    module = _lesson_times_module()
    # The former lesson 5 (before the split) took a self-learner 80-95 min; its raw content sum was 66.7 min.
    assert 80 <= 66.7 * module.CALIBRATION <= 95
