"""The lesson registry (coursekit/lessons.json) is the one list of lessons; tools/lesson_registry.py writes the rest.

Every lesson source has exactly one registry entry and every entry a source, instructor pages and (if it names one)
an exercises module; every generated spot (navigation, lesson maps, stated times) agrees with the registry; and adding
a lesson takes its source, one registry entry and its instructor pages, nothing else.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from coursekit.lessons import LESSONS, load

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


registry = _tool("lesson_registry")


def _copy_project(into: Path) -> Path:
    """The files the registry reads and writes, copied into a scratch project."""
    for rel in ("README.md", "coursekit/lessons.json", "notebooks/src", "docs/instructor"):
        source, target = ROOT / rel, into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    return into


def test_every_source_has_exactly_one_entry_and_every_entry_its_files() -> None:
    stems = sorted(path.stem for path in SRC.glob("[0-9][0-9]_*.py"))
    entries = [entry.stem for entry in LESSONS]
    assert sorted(entries) == stems and len(set(entries)) == len(entries)
    for entry in LESSONS:
        for lang in ("zh", "en"):
            assert (ROOT / "docs" / "instructor" / lang / f"{entry.stem}.md").is_file(), f"{lang} page of {entry.stem}"
            assert entry.titles[lang] and entry.questions[lang], f"{entry.stem}: {lang} title and question"
        if entry.exercise_module is not None:
            assert importlib.util.find_spec(entry.exercise_module) is not None, entry.exercise_module


def test_every_generated_spot_agrees_with_the_registry() -> None:
    assert registry.stale(ROOT) == [], "run python tools/build_notebooks.py (it runs tools/lesson_registry.py)"


def test_the_registry_is_numbered_from_zero_in_order() -> None:
    text = (ROOT / "coursekit" / "lessons.json").read_text(encoding="utf-8")
    raw = json.loads(text)
    raw["lessons"][1], raw["lessons"][2] = raw["lessons"][2], raw["lessons"][1]
    with pytest.raises(ValueError, match=r"lesson numbers are \[0, 2, 1"):
        load(json.dumps(raw))


def test_headings_of_an_optional_lesson() -> None:
    entry = next(entry for entry in LESSONS if entry.optional)
    entry = type(entry)(**{**entry.__dict__, "titles": {"zh": "实验", "en": "the lab"}, "needs": "PyTorch"})
    entry = type(entry)(**{**entry.__dict__, "summaries": {"zh": "测量", "en": "measuring"}, "tag": None})
    assert registry.heading(entry, "en", summary=True) == "The lab: measuring (optional; measuring again needs PyTorch)"
    assert registry.heading(entry, "zh", summary=True) == "实验：测量（可选；重新实测需要 PyTorch）"
    assert registry.heading(entry, "en") == "The lab (optional; measuring again needs PyTorch)"


def test_check_lists_a_stale_spot_and_write_restores_it(tmp_path: Path) -> None:
    project = _copy_project(tmp_path)
    readme = project / "README.md"
    original = readme.read_text(encoding="utf-8")
    first = LESSONS[1]
    row = next(line for line in original.splitlines() if line.startswith(f"| {first.number} | "))
    readme.write_text(original.replace(row, row.rsplit("|", 2)[0] + "| 999 min |"), encoding="utf-8")
    assert registry.main(["--check", "--root", str(project)]) == 1
    assert registry.stale(project) == [Path("README.md")]
    assert registry.main(["--root", str(project)]) == 0
    assert readme.read_text(encoding="utf-8") == original
    assert registry.main(["--check", "--root", str(project)]) == 0


def test_a_source_without_an_entry_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _copy_project(tmp_path)
    shutil.copy(SRC / f"{LESSONS[-1].stem}.py", project / "notebooks" / "src" / "99_orphan.py")
    assert registry.main(["--check", "--root", str(project)]) == 2
    assert "no entry for the lesson source(s) 99_orphan" in capsys.readouterr().err


NEW_SOURCE = """# %% [markdown] lang="zh"
# # 第 {n} 课：新课
#
# [English version](../en/{stem}.ipynb)
#
# > **时间：** 约 0 分钟（讲解与阅读 0 分钟，练习 0 分钟）

# %% [markdown] lang="en"
# # Lesson {n}: A new lesson
#
# [中文版](../zh/{stem}.ipynb)
#
# > **Time:** about 0 min (teaching and reading 0 min, exercises 0 min)

# %%
import coursekit

coursekit.set_language("{{{{LANG}}}}")
"""

NEW_PAGE = {
    "zh": "# 第 {n} 课\n\n**时间：** 约 0 分钟 = 讲解与阅读 0 分钟 + 练习 0 分钟。\n",
    "en": "# Lesson {n}\n\n**Time:** about 0 min = teaching and reading 0 min + exercises 0 min.\n",
}


def test_adding_a_lesson_takes_its_source_one_entry_and_its_pages(tmp_path: Path) -> None:
    project = _copy_project(tmp_path)
    number = len(LESSONS)
    stem = f"{number:02d}_new"
    (project / "notebooks" / "src" / f"{stem}.py").write_text(NEW_SOURCE.format(n=number, stem=stem), encoding="utf-8")
    for lang, page in NEW_PAGE.items():
        (project / "docs" / "instructor" / lang / f"{stem}.md").write_text(page.format(n=number), encoding="utf-8")
    path = project / "coursekit" / "lessons.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    texts = {"title": "new lesson", "question": "What is new?", "summary": None}
    raw["lessons"].append(
        {"number": number, "slug": "new", "exercises": None, "tag": None, "optional": False, "needs": None,
         "zh": {**texts, "title": "新课"}, "en": texts}
    )  # fmt: skip
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")

    assert registry.main(["--root", str(project)]) == 0
    assert registry.stale(project) == []
    # A lesson this short is estimated at the floor: 5 min of teaching plus 5 min of exercises.
    readme = (project / "README.md").read_text(encoding="utf-8")
    assert f"| {number} | 新课 | 10 分钟 |" in readme and f"| {number} | New lesson | 10 min |" in readme
    guide = (project / "docs" / "instructor" / "en" / "README.md").read_text(encoding="utf-8")
    assert f"| {number} New lesson | [{stem}.md]({stem}.md) | 10 min |" in guide
    page = (project / "docs" / "instructor" / "zh" / f"{stem}.md").read_text(encoding="utf-8")
    assert "约 10 分钟 = 讲解与阅读 5 分钟 + 练习 5 分钟" in page
    source = (project / "notebooks" / "src" / f"{stem}.py").read_text(encoding="utf-8")
    assert "about 10 min (teaching and reading 5 min, exercises 5 min)" in source
    assert f"Previous: [lesson {number - 1}, {LESSONS[-1].title('en')}]" in source
    previous = (project / "notebooks" / "src" / f"{LESSONS[-1].stem}.py").read_text(encoding="utf-8")
    assert f"下一课：[第 {number} 课 新课]({stem}.ipynb)" in previous
    index = (project / "notebooks" / "src" / f"{LESSONS[0].stem}.py").read_text(encoding="utf-8")
    assert f"# | [{number}]({stem}.ipynb) | New lesson | What is new? | 10 min |" in index


def test_the_notebook_build_runs_the_registry_and_its_check_reports_it(tmp_path: Path) -> None:
    build = _tool("build_notebooks")
    project = _copy_project(tmp_path)
    for rel in ("notebooks/zh", "notebooks/en", "docs/GLOSSARY.md"):
        (shutil.copytree if (ROOT / rel).is_dir() else shutil.copy)(ROOT / rel, project / rel)
    guide = project / "docs" / "instructor" / "en" / "README.md"
    original = guide.read_text(encoding="utf-8")
    guide.write_text(original.replace("| 0 Course index |", "| 0 Index |"), encoding="utf-8")
    problems = build.check(project)
    assert [(p.kind, p.path) for p in problems] == [("stale", Path("docs/instructor/en/README.md"))]
    assert build.main(["--root", str(project)]) == 0
    assert guide.read_text(encoding="utf-8") == original
    assert build.main(["--check", "--root", str(project)]) == 0
