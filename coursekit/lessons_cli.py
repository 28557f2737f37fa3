"""``python -m coursekit lessons DIR [--lang zh|en]``: copy the lesson notebooks out of the installed package.

Once coursekit is installed (from the course's repository or a wheel built from it, see README; the name
``coursekit`` on PyPI belongs to another project) nothing else is needed: this writes the lessons into
``DIR`` laid out as in the repository (``DIR/notebooks/zh/*.ipynb``, ``DIR/notebooks/en/*.ipynb`` and
``DIR/docs/GLOSSARY.md``), so the links between the two languages and to the glossary work. Without
``--lang`` both languages are copied.

A file that already exists in ``DIR`` is never overwritten (it may hold the learner's answers and notes):
it is kept and reported, and the learner can rename it to get a fresh copy on the next run.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     first = copy_lessons(folder, langs=("en",))
...     second = copy_lessons(folder, langs=("en",))
>>> first.copied == second.kept and not first.kept and not second.copied
True
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import i18n
from ._cli import CourseParser, argparse_language, check_output_folder, fail_line, guard, pre_language
from ._validate import check_choice, check_sequence, learner_functions
from .i18n import Text, register, tr

#: Where the wheel puts the notebooks (setup.py ships notebooks/zh and notebooks/en there).
PACKAGED_LESSONS = Path(__file__).resolve().parent / "_lessons"
#: In a source checkout (editable install) the notebooks are the repository's own.
CHECKOUT_LESSONS = Path(__file__).resolve().parents[1] / "notebooks"

register(
    {
        "lessons.copied": {"zh": "已复制 {count} 个笔记本到 {folder}", "en": "copied {count} notebooks to {folder}"},
        "lessons.kept": {
            "zh": "保留了你已有的 {count} 个文件（从不覆盖；想要新副本时先把你的文件改名）：",
            "en": "kept {count:@file} you already have (never overwritten; rename yours to get a fresh copy):",
        },
        "lessons.open": {
            "zh": "在 JupyterLab 中打开 {path} 开始学习。",
            "en": "Open {path} in JupyterLab to start.",
        },
        "lessons.not_a_file": {
            "zh": "{path}：这是一个文件夹（或其他不是文件的东西），而这里要放一个文件；请把它改名或移走后再运行。",
            "en": "{path}: is a folder (or something else that is not a file) where a file goes; rename or move it and "
            "run again.",
        },
        "lessons.dangling_link": {
            "zh": "{path}：是指向 {target} 的链接，但链接的目标不存在；请删除这个链接或恢复它的目标后再运行。",
            "en": "{path}: is a link to {target}, which does not exist; remove the link or restore its target and run "
            "again.",
        },
        "lessons.missing": {
            "zh": "找不到课程笔记本（{folder}）：这个 coursekit 安装不完整。",
            "en": "cannot find the lesson notebooks ({folder}): this coursekit installation is incomplete.",
        },
    }
)


@dataclass
class CopyReport:
    """What :func:`copy_lessons` did: files written and files kept, as paths inside the target folder."""

    copied: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)


def lessons_source() -> Path:
    """The folder holding ``zh/`` and ``en/`` lesson notebooks of this installation."""
    for folder in (PACKAGED_LESSONS, CHECKOUT_LESSONS):
        if (folder / "en" / "00_index.ipynb").is_file():
            return folder
    raise FileNotFoundError(tr("lessons.missing", folder=PACKAGED_LESSONS))


def _lesson_files(folder: Path) -> list[Path]:
    lessons = [p for p in folder.glob("[0-9][0-9]_*.ipynb") if ".mine" not in p.name]
    return sorted([*lessons, *folder.glob("glossary.ipynb")])


def copy_lessons(target: str | Path, langs: Sequence[str] = i18n.LANGUAGES) -> CopyReport:
    """Copy the lessons of ``langs`` (and the glossary) into ``target``; never overwrites an existing file.

    ``target`` must name a folder that exists or can be created (an empty name is refused, not read as
    the current folder): else ``ValueError`` naming it and the rule.
    """
    langs = check_sequence("langs", langs)  # a list or tuple: a string "en" would be read letter by letter
    for index, lang in enumerate(langs):
        check_choice(f"langs[{index}]", lang, i18n.LANGUAGES)
    root = check_output_folder("target", target)
    source = lessons_source()
    from .glossary import render_markdown

    files: list[tuple[Path, Path | str]] = [
        (Path("notebooks", lang, notebook.name), notebook)
        for lang in langs
        for notebook in _lesson_files(source / lang)
    ]
    files.append((Path("docs", "GLOSSARY.md"), render_markdown()))
    for relative, _ in files:  # every place checked before anything is copied: a refusal leaves no half copy
        _check_place(root, relative)
    report = CopyReport()
    for relative, write in files:
        destination = root / relative
        if destination.exists():  # a file the learner has (or a link to one): never overwritten
            report.kept.append(relative)
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(write, Path):
            shutil.copyfile(write, destination)
        else:
            destination.write_text(write, encoding="utf-8")
        report.copied.append(relative)
    return report


def _check_place(root: Path, relative: Path) -> None:
    """``root / relative`` can take a copied file or is a file kept: else ``ValueError`` naming the path and what is
    in the way (a folder of the file's name, a link to nothing, a file where a folder goes)."""
    destination = root / relative
    for ancestor in (root / part for part in reversed(relative.parents[:-1])):  # notebooks, then notebooks/zh
        if (ancestor.exists() or ancestor.is_symlink()) and not ancestor.is_dir():
            raise ValueError(tr("cli.path_under_file", option="DIR", path=destination, blocker=ancestor))
    if destination.is_symlink() and not destination.exists():
        raise ValueError(tr("lessons.dangling_link", path=destination, target=os.readlink(destination)))
    if destination.exists() and not destination.is_file():
        raise ValueError(tr("lessons.not_a_file", path=destination))


def main(argv: Sequence[str], before: Sequence[str] = ()) -> int:
    """Entry point of the ``lessons`` subcommand; returns the exit status (2 for bad arguments or paths).

    ``before``: the ``--lang zh`` / ``--lang=zh`` given before ``lessons`` (``python -m coursekit --lang zh lessons
    DIR``), which sets the messages' language only; a different ``--lang`` after it, which also picks the notebooks
    copied, is refused as an option given twice (exit status 2, naming both), not silently preferred."""
    prog = "python -m coursekit lessons"
    pre_language(argv)  # before the parser is built: its help is in this language
    with argparse_language():
        parser = CourseParser(
            prog=prog,
            description=Text(
                zh="把课程笔记本从已安装的包中复制到 DIR（从不覆盖已有的文件）。",
                en="Copy the lesson notebooks out of the installed package into DIR (never overwrites a file).",
            ).render(),
        )
        parser.add_argument(
            "dir",
            metavar="DIR",
            help=Text(zh="目标文件夹（不存在时会创建）", en="target folder (created if missing)").render(),
        )
        parser.add_argument(
            "--lang",
            choices=i18n.LANGUAGES,
            default=None,
            help=Text(
                zh="只复制这一种语言的笔记本，并用它显示帮助和消息（默认：两种语言都复制）",
                en="copy this language only, and show the help and messages in it (default: both languages)",
            ).render(),
        )
        lang = before[1] if len(before) == 2 and before[0] == "--lang" else None
        if len(before) == 1 and before[0].startswith("--lang="):
            lang = before[0].split("=", 1)[1]
        if lang is not None:
            parser.given_before = {("--lang",): (f"--lang {lang}", lang)}
        args = parser.parse_args(list(argv))
    return guard(prog, lambda: _copy_and_report(prog, args.dir, args.lang))


def _copy_and_report(prog: str, folder: str, lang: str | None) -> int:
    langs = (lang,) if lang else i18n.LANGUAGES
    try:
        check_output_folder("DIR", folder, create=True)
        report = copy_lessons(folder, langs)
    except (FileNotFoundError, ValueError) as exc:
        if isinstance(exc, OSError) and exc.filename is not None:
            raise  # an operating-system error on a path: guard() says it in one line
        return fail_line(prog, str(exc))
    root = Path(folder)
    print(tr("lessons.copied", count=sum(p.suffix == ".ipynb" for p in report.copied), folder=root))
    if report.kept:
        print(tr("lessons.kept", count=len(report.kept)))
        for path in report.kept:
            print(f"  {root / path}")
    print(tr("lessons.open", path=root / "notebooks" / langs[0] / "00_index.ipynb"))
    return 0


learner_functions(globals())
