#!/usr/bin/env python
"""Write everything that lists the lessons from the lesson registry (``coursekit/lessons.json``).

Usage::

    python tools/lesson_registry.py            # rewrite the generated spots (build_notebooks.py runs this first)
    python tools/lesson_registry.py --check    # exit 1, listing the files whose generated spots are stale

From the registry and the lessons' content it writes:

* each lesson's navigation lines (``tools/lesson_nav.py``);
* each lesson's stated time, in its header (zh and en) and on its instructor pages
  (``docs/instructor/{zh,en}/NN_slug.md``): the content estimate of ``tools/lesson_times.py``, computed once from the
  English notebook the source builds to;
* the lesson map of lesson 0 (the table under its "课程地图" / "Lesson map" heading);
* the README's lesson maps and the instructor guide's contents tables, with the course total and how the times are
  estimated, between ``<!-- lessons:NAME -->`` and ``<!-- /lessons:NAME -->`` markers.

Only those spots change; the prose around them is the authors'. The exercise id prefixes are not written anywhere:
``coursekit.exercises.PREFIX_MODULES`` reads them from the registry.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "tools"):  # tools/ is not a package: its modules are imported by path
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import lesson_times  # noqa: E402
from lesson_nav import rendered_text  # noqa: E402

from coursekit.i18n import Text  # noqa: E402
from coursekit.lessons import Lesson, load  # noqa: E402

REGISTRY = Path("coursekit/lessons.json")
SRC_DIR = Path("notebooks/src")
README = Path("README.md")
GUIDES = Path("docs/instructor")
LANGS: tuple[str, ...] = ("zh", "en")
UNIT = Text(zh="分钟", en="min")
#: The lesson whose source holds the course's lesson map.
INDEX_LESSON = 0
INDEX_HEADING = Text(zh="# ## 课程地图", en="# ## Lesson map")

HEADER_TIME = {
    "zh": re.compile(r"^(# > \*\*时间：\*\* 约 )\d+( 分钟（讲解与阅读 )\d+( 分钟，练习 )\d+( 分钟)", re.M),
    "en": re.compile(
        r"^(# > \*\*Time:\*\* about )\d+( min \(teaching and reading )\d+( min, exercises )\d+( min)", re.M
    ),
}
GUIDE_TIME = {
    "zh": re.compile(r"(\*\*时间：\*\* 约 )\d+( 分钟 = [^+\n]+? )\d+( 分钟 \+ [^\n]+? )\d+( 分钟)"),
    "en": re.compile(r"(\*\*Time:\*\* about )\d+( min = [^+\n]+? )\d+( min \+ [^\n]+? )\d+( min)"),
}

#: A guide's timing-table row for the exercise part alone (``| 10. Exercises and self-check | 15 | ... |``): its
#: minutes are the time line's exercise minutes, written from the same estimate (a guide may have no such row).
EXERCISE_ROW = {
    "zh": re.compile(r"^(\| [0-9.\-（）() ]+练习与自检 \| )\d+( \|)", re.M),
    "en": re.compile(r"^(\| [0-9.\-() ]+Exercises and self-check \| )\d+( \|)", re.M),
}


#: The tables' column headings and the separators the rows use.
README_HEADER = (Text(zh="课", en="Lesson"), Text(zh="主题", en="Topic"), Text(zh="时间", en="Time"))
INDEX_HEADER = (
    Text(zh="课", en="Lesson"),
    Text(zh="主题", en="Topic"),
    Text(zh="要回答的问题", en="Question it answers"),
    Text(zh="时间", en="Time"),
)
GUIDE_HEADER = (Text(zh="课", en="Lesson"), Text(zh="页面", en="Page"), Text(zh="时间", en="Time"))
COLON = Text(zh="：", en=": ")
SEMICOLON = Text(zh="；", en="; ")
THIS_PAGE = Text(zh="（本页）", en=" (this page)")


class RegistryError(ValueError):
    """The registry and the files it generates into do not fit together (the message names the file)."""


@dataclass(frozen=True)
class Minutes:
    """A lesson's stated time: teaching and exercises, each rounded to 5 min, and their sum."""

    teaching: int
    exercises: int

    @property
    def total(self) -> int:
        return self.teaching + self.exercises


# -- the rows ------------------------------------------------------------------------------------


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _title(entry: Lesson, lang: str) -> str:
    """The lesson's short title, an English one capitalised."""
    return Text(zh=entry.title("zh"), en=_capital(entry.title("en"))).render(lang)


def _with_note(title: str, note: str | None, lang: str) -> str:
    """``title（note）`` / ``title (note)``; ``title`` when there is no note."""
    return title + Text(zh=f"（{note}）", en=f" ({note})").render(lang) if note else title


def heading(entry: Lesson, lang: str, *, summary: bool = False) -> str:
    """``Q1 容量约束`` / ``Formula vs measurement: checking ... (optional; measuring again needs PyTorch)``."""
    title = f"{entry.tag} {entry.title(lang)}" if entry.tag else _title(entry, lang)
    if summary and entry.summaries[lang]:
        title += COLON.render(lang) + str(entry.summaries[lang])
    return _with_note(title, entry.note(lang), lang)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def readme_table(lessons: Sequence[Lesson], times: dict[int, Minutes], lang: str) -> list[str]:
    """The README's lesson map in ``lang``."""
    header = [text.render(lang) for text in README_HEADER]
    rows = [(str(e.number), heading(e, lang, summary=True), _minutes(times[e.number], lang)) for e in lessons]
    return _table(header, rows)


def index_table(lessons: Sequence[Lesson], times: dict[int, Minutes], lang: str) -> list[str]:
    """Lesson 0's lesson map in ``lang`` (each lesson linked, the index itself marked as this page)."""
    header = [text.render(lang) for text in INDEX_HEADER]
    rows = []
    for entry in lessons:
        if entry.number == INDEX_LESSON:
            number, topic = str(entry.number), heading(entry, lang) + THIS_PAGE.render(lang)
        else:
            number = f"[{entry.number}]({entry.stem}.ipynb)"
            # Chinese first, the English term on first use
            english = entry.title("en") + (f"，{entry.note('zh')}" if entry.optional else "")
            tag = entry.tag + " " if entry.tag else ""
            topic = Text(zh=f"{tag}{entry.title('zh')} ({english})", en=heading(entry, "en")).render(lang)
        rows.append((number, topic, entry.questions[lang], _minutes(times[entry.number], lang)))
    return _table(header, rows)


def guide_table(lessons: Sequence[Lesson], times: dict[int, Minutes], lang: str) -> list[str]:
    """The instructor guide's contents table in ``lang`` (no Q1-Q4 tags: the guide does not use them)."""
    header = [text.render(lang) for text in GUIDE_HEADER]
    rows = []
    for entry in lessons:
        title = _with_note(_title(entry, lang), entry.note(lang), lang)
        page = f"{entry.stem}.md"
        rows.append((f"{entry.number} {title}", f"[{page}]({page})", _minutes(times[entry.number], lang)))
    return _table(header, rows)


def _number(value: float) -> str:
    return f"{value:g}"


def _optional_words(lessons: Sequence[Lesson], lang: str) -> str:
    numbers = [str(e.number) for e in lessons if e.optional]
    if len(numbers) == 1:
        english = f"lesson {numbers[0]} is optional"
    else:
        english = f"lessons {', '.join(numbers[:-1])} and {numbers[-1]} are optional"
    return Text(zh=f"第 {'、'.join(numbers)} 课可选", en=english).render(lang)


def _minutes(minutes: Minutes, lang: str) -> str:
    return f"{minutes.total} {UNIT.render(lang)}"


TIMES_TEXT = Text(
    zh=(
        "时间按内容估计（`python tools/lesson_times.py`）：英文词数按每分钟 {words} 词的仔细阅读速度、"
        "每个代码单元格 {code} 分钟、每道练习 {exercise} 分钟（同一单元格里的后续答案各 {extra} 分钟）、"
        "每个小部件 {widget} 分钟、每道自检题 {question} 分钟，总和再乘 {factor}——"
        "这个系数用唯一的实测校准：一位自学者在拆分前的第 5 课上用了 {low}-{high} 分钟。误差约 ±{percent}%。"
        "讲解与练习两部分各取整到 {step} 分钟；已写出的时间在估计偏离它不超过 {keep} 分钟"
        "（取整步长的一半再加 {margin} 分钟）时保持不变，免得多一个词、少一个词就让时间在两个数之间跳动。"
        "上表各课合计约 {hours} 小时（{total} 分钟{optional}）。"
    ),
    en=(
        "Times are estimated from content (`python tools/lesson_times.py`): English words at a careful {words} words "
        "per minute, {code} min per code cell, {exercise} min per exercise ({extra} min per further answer in the "
        "same cell), {widget} min per widget, {question} min per self-check question, the sum times {factor}, a "
        "factor calibrated on the one measurement we have: a self-learner took {low}-{high} min on lesson 5 before "
        "it was split. Expect ±{percent} %. Teaching and exercises are each rounded to {step} min; a time already "
        "stated is kept while the estimate stays within {keep} min of it (half the step plus {margin} min), so that "
        "one word more or less does not flip it. The lessons above add up to about {hours} hours "
        "({total} min{optional})."
    ),
)


def times_paragraph(lessons: Sequence[Lesson], times: dict[int, Minutes], lang: str) -> str:
    """How the times are estimated (from :mod:`lesson_times`' constants) and the course total."""
    lt = lesson_times
    total = sum(times[e.number].total for e in lessons)
    optional = ""
    if any(e.optional for e in lessons):
        optional = SEMICOLON.render(lang) + _optional_words(lessons, lang)
    low, high = lt.CALIBRATION_MEASURED_MIN
    return TIMES_TEXT.render(lang).format(
        words=_number(lt.WORDS_PER_MIN), code=_number(lt.CODE_CELL_MIN), exercise=_number(lt.EXERCISE_CELL_MIN),
        extra=_number(lt.EXTRA_ANSWER_MIN), widget=_number(lt.WIDGET_MIN), question=_number(lt.SELF_CHECK_MIN),
        factor=_number(lt.CALIBRATION), low=low, high=high, percent=_number(lt.UNCERTAINTY * 100),
        hours=round(total / 60), total=total, optional=optional, step=lt.ROUND_TO_MIN,
        keep=_number(lt.KEEP_WITHIN_MIN), margin=_number(lt.HYSTERESIS_MIN),
    )  # fmt: skip


# -- the generated spots ---------------------------------------------------------------------------


def replace_region(text: str, name: str, lines: Sequence[str], where: str) -> str:
    """``text`` with the lines between ``<!-- lessons:name -->`` and ``<!-- /lessons:name -->`` replaced."""
    pattern = re.compile(rf"(<!-- lessons:{name} -->\n).*?(<!-- /lessons:{name} -->)", re.S)
    if not pattern.search(text):
        raise RegistryError(f"{where}: no <!-- lessons:{name} --> ... <!-- /lessons:{name} --> markers")
    return pattern.sub(lambda m: m.group(1) + "".join(line + "\n" for line in lines) + m.group(2), text, count=1)


def _replace_index_table(text: str, lines: Sequence[str], lang: str, where: str) -> str:
    rows = text.split("\n")
    try:
        start = rows.index(INDEX_HEADING.render(lang))
        first = next(i for i in range(start, len(rows)) if rows[i].startswith("# |"))
    except (ValueError, StopIteration):
        raise RegistryError(f"{where}: no table under the heading {INDEX_HEADING.render(lang)!r}") from None
    last = first
    while last < len(rows) and rows[last].startswith("# |"):
        last += 1
    return "\n".join(rows[:first] + ["# " + line for line in lines] + rows[last:])


def _set_times(pattern: re.Pattern[str], text: str, minutes: Minutes, where: str) -> str:
    if not pattern.search(text):
        raise RegistryError(f"{where}: no time line in the course's format ({pattern.pattern})")
    numbers = (minutes.total, minutes.teaching, minutes.exercises)
    return pattern.sub(
        lambda m: "".join(p + str(n) for p, n in zip(m.groups()[:3], numbers, strict=True)) + m.group(4), text, 1
    )


def stated_minutes(text: str) -> Minutes | None:
    """The (teaching, exercises) split a lesson source's English header states, if it has one."""
    found = HEADER_TIME["en"].search(text)
    if not found:
        return None
    _, teaching, exercises = (int(n) for n in re.findall(r"\d+", found.group(0))[:3])
    return Minutes(teaching, exercises)


def render_source(text: str, entry: Lesson, lessons: Sequence[Lesson], times: dict[int, Minutes]) -> str:
    """A lesson source with its navigation, stated time (and, for lesson 0, the lesson map) generated."""
    where = f"{SRC_DIR / entry.stem}.py"
    text = rendered_text(text, entry.number, lessons)
    for lang in LANGS:
        text = _set_times(HEADER_TIME[lang], text, times[entry.number], where)
        if entry.number == INDEX_LESSON:
            text = _replace_index_table(text, index_table(lessons, times, lang), lang, where)
    return text


@cache
def _course_answers(number: int) -> int | None:
    return lesson_times.course_answers(number)


def estimate(text: str, entry: Lesson, stated: Minutes | None = None) -> Minutes:
    """The content estimate of a lesson source's English notebook (built in memory); ``stated``, the time the source
    stated before, is kept while the estimate stays near it (:func:`lesson_times.kept_min`)."""
    from build_notebooks import build_notebook

    notebook = build_notebook(
        text, f"{SRC_DIR / entry.stem}.py", "en", repo="owner/name"
    )  # Colab's cell is not counted
    found = lesson_times.estimate_cells(entry.stem, notebook.cells, _course_answers(entry.number))
    teaching, exercises = found.kept(None if stated is None else (stated.teaching, stated.exercises))
    return Minutes(teaching, exercises)


def lessons_at(root: Path) -> tuple[Lesson, ...]:
    """The registry of the project at ``root``."""
    return load((root / REGISTRY).read_text(encoding="utf-8"))


def _settled_sources(root: Path, lessons: Sequence[Lesson]) -> tuple[dict[int, str], dict[int, Minutes]]:
    """Every lesson source rendered with the times its own content gives (a fixed point: times are digits)."""
    raw: dict[int, str] = {}
    for entry in lessons:
        path = root / SRC_DIR / f"{entry.stem}.py"
        if not path.is_file():
            raise RegistryError(f"{REGISTRY}: lesson {entry.number} has no source {SRC_DIR / entry.stem}.py")
        raw[entry.number] = path.read_text(encoding="utf-8")
    recorded = {n: stated_minutes(text) for n, text in raw.items()}
    times = {n: stated or Minutes(0, 0) for n, stated in recorded.items()}
    for _ in range(4):
        texts = {e.number: render_source(raw[e.number], e, lessons, times) for e in lessons}
        estimated = {e.number: estimate(texts[e.number], e, recorded[e.number]) for e in lessons}
        if estimated == times:
            return texts, times
        times = estimated
    raise RegistryError("the lesson times do not settle: a stated time changes the content it is estimated from")


def _generated_docs(root: Path, lessons: Sequence[Lesson], times: dict[int, Minutes]) -> dict[Path, str]:
    files: dict[Path, str] = {}
    readme = (root / README).read_text(encoding="utf-8")
    for lang in LANGS:
        lines = [*readme_table(lessons, times, lang), "", times_paragraph(lessons, times, lang)]
        readme = replace_region(readme, f"map-{lang}", lines, str(README))
    files[root / README] = readme
    for lang in LANGS:
        path = root / GUIDES / lang / "README.md"
        lines = [*guide_table(lessons, times, lang), "", times_paragraph(lessons, times, lang)]
        files[path] = replace_region(path.read_text(encoding="utf-8"), "contents", lines, str(path.relative_to(root)))
        for entry in lessons:
            page = root / GUIDES / lang / f"{entry.stem}.md"
            if not page.is_file():
                raise RegistryError(
                    f"{REGISTRY}: lesson {entry.number} has no instructor page {page.relative_to(root)}"
                )
            where = str(page.relative_to(root))
            text = _set_times(GUIDE_TIME[lang], page.read_text(encoding="utf-8"), times[entry.number], where)
            exercises = times[entry.number].exercises
            files[page] = EXERCISE_ROW[lang].sub(lambda m, n=exercises: f"{m.group(1)}{n}{m.group(2)}", text)
    return files


def plan(root: Path = ROOT) -> dict[Path, str]:
    """Every file with generated spots, with its fresh text (in memory)."""
    lessons = lessons_at(root)
    stems = {path.stem for path in (root / SRC_DIR).glob("[0-9][0-9]_*.py")}
    unregistered = sorted(stems - {entry.stem for entry in lessons})
    if unregistered:
        raise RegistryError(f"{REGISTRY}: no entry for the lesson source(s) {', '.join(unregistered)}")
    texts, times = _settled_sources(root, lessons)
    files = {root / SRC_DIR / f"{entry.stem}.py": texts[entry.number] for entry in lessons}
    files.update(_generated_docs(root, lessons, times))
    return files


def stale(root: Path = ROOT) -> list[Path]:
    """The files whose generated spots differ from what the registry gives (relative to ``root``)."""
    return [path.relative_to(root) for path, text in plan(root).items() if path.read_text(encoding="utf-8") != text]


def write(root: Path = ROOT) -> list[Path]:
    """Rewrite the stale files; return them (relative to ``root``)."""
    changed = []
    for path, text in plan(root).items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
            changed.append(path.relative_to(root))
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="list the stale files and exit 1 if any")
    parser.add_argument("--root", type=Path, default=ROOT, help="project root (default: this repository)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    action: Callable[[Path], list[Path]] = stale if args.check else write
    try:
        paths = action(root)
    except RegistryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"{'stale' if args.check else 'updated'}: {path}")
    if args.check and paths:
        print(f"{len(paths)} file(s) differ from the lesson registry; regenerate with: python tools/lesson_registry.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
