"""`python -m coursekit lessons DIR [--lang zh|en]`: the lesson notebooks copied out, never over a learner's file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from coursekit.glossary import render_markdown
from coursekit.lessons_cli import copy_lessons, main

ROOT = Path(__file__).resolve().parents[1]


def _repo_lessons(lang: str) -> list[Path]:
    """The lessons and the glossary notebook they link to (a learner's .mine copies are never copied)."""
    folder = ROOT / "notebooks" / lang
    lessons = [p for p in folder.glob("[0-9][0-9]_*.ipynb") if ".mine" not in p.name]
    return sorted([*lessons, folder / "glossary.ipynb"])


def test_copies_both_languages_laid_out_like_the_repository(tmp_path: Path) -> None:
    report = copy_lessons(tmp_path)
    for lang in ("zh", "en"):
        for notebook in _repo_lessons(lang):
            copied = tmp_path / "notebooks" / lang / notebook.name
            assert copied.read_bytes() == notebook.read_bytes()
    # the glossary as a Markdown page too, for readers outside Jupyter
    assert (tmp_path / "docs" / "GLOSSARY.md").read_text(encoding="utf-8") == render_markdown()
    assert len(report.copied) == len(_repo_lessons("zh")) + len(_repo_lessons("en")) + 1 and not report.kept


def test_an_edited_copy_is_never_overwritten(tmp_path: Path) -> None:
    copy_lessons(tmp_path, langs=("zh",))
    mine = tmp_path / "notebooks" / "zh" / _repo_lessons("zh")[1].name
    mine.write_text('{"my": "answers"}', encoding="utf-8")
    mine.with_name("00_index.ipynb").unlink()  # a deleted one comes back
    report = copy_lessons(tmp_path, langs=("zh",))
    assert mine.read_text(encoding="utf-8") == '{"my": "answers"}'
    assert Path("notebooks", "zh", mine.name) in report.kept
    assert report.copied == [Path("notebooks", "zh", "00_index.ipynb")]


def test_one_language_only(tmp_path: Path) -> None:
    assert main([str(tmp_path), "--lang", "en"]) == 0
    assert not (tmp_path / "notebooks" / "zh").exists()
    assert sorted(p.name for p in (tmp_path / "notebooks" / "en").iterdir()) == [p.name for p in _repo_lessons("en")]


def test_bad_arguments_exit_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([str(tmp_path), "--lang", "fr"])
    assert exited.value.code == 2
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    assert main([str(a_file)]) == 2
    assert "not a folder" in capsys.readouterr().err
    with pytest.raises(ValueError, match="lang"):
        copy_lessons(tmp_path / "x", langs=("fr",))


def test_the_command_line_reports_in_chinese(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "coursekit", "lessons", str(tmp_path), "--lang", "zh"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"已复制 {len(_repo_lessons('zh'))} 个笔记本" in run.stdout
    again = subprocess.run(
        [sys.executable, "-m", "coursekit", "lessons", str(tmp_path), "--lang", "zh"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "已复制 0 个笔记本" in again.stdout and "保留了你已有的" in again.stdout
