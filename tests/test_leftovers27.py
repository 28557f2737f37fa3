"""The leftovers earlier reviews named but did not fix, each reproduced, fixed in the source and held here:

1. Four answer slips got no line of help. ``answer = 5 7`` (a bare SyntaxError) is now called ambiguous, with the
   lines it may have meant (``answer = 5``, ``answer = 7`` or ``answer = 57``); ``answer = rank 1`` is told to drop
   the word (``answer = 1``); ``answer = 0.16（16%）`` was shown "the line retyped", ``answer = 0.16(16%)``, which is
   no valid Python either: it is now told to drop the note in parentheses (``answer = 0.16``; the same for the
   TypeError of ``answer = 0.16 (16)``); ``answer = mb2（微批次改成 2）`` is told to write the option alone, in
   quotes, and ``check`` refuses ``'mb2（微批次改成 2）'`` saying it is the option 'mb2' with its description and
   showing ``answer = 'mb2'`` (``coursekit.exercises.input_help._slip_before_check``,
   ``coursekit.exercises._described_option``). zh and en.
2. A share below the whole printed as "100%" (lesson 7's roofline on an A100: "平滑曲线 100% 峰值 = 311 TFLOP/s").
   ``share_text`` had been fixed for the widget, but a catalog's ``{efficiency:.0%~}`` (the planner's matmul
   efficiency) still printed 0.997 as "100%", and ``share_text`` itself printed 1 - 1e-9 as "100.000%" and 1e-9 as
   "0.000%". The one rule is now ``coursekit.i18n.nonzero`` (the ``~`` spec): a percentage strictly between 0 and 1
   gets the decimals that tell it from 0 % and from 100 %, then e-notation near 0 and rounding down near 1;
   ``share_text`` calls it.
3. Lesson 8's stated time sat on a rounding edge (teaching 57.7 min against the 57.5 between 55 and 60): one word
   more or less flipped the minutes and every table that shows them. A stated part is now kept while the estimate
   stays within half the 5-min step plus 1 min of it (``tools/lesson_times.py``: ``kept_min``, ``HYSTERESIS_MIN``),
   as the README's and the guides' note on the times says.
4. Guide 9's time line said exercises 15 min while its last timing row gave "exercises, self-check, key points"
   20 min. The key points join the workbench's row; the row "Exercises and self-check" takes its minutes from the
   same estimate as the time line (``tools/lesson_registry.py``: ``EXERCISE_ROW``).
5. Guide 0 and the instructor README told the instructor to run ``make test`` before class without saying it takes
   about an hour; they now say so and give the command that runs only the lessons of one language, with its time.
6. An English page of the website kept the caption "中文课程": tests/test_site_leftovers27.py.
7. ModelScope's own kernel does not load the course's IPython extension, so after a kernel restart an exercise cell
   run first met a bare NameError. ``python tools/install_kernel.py --startup`` (a step of the README's ModelScope
   section and of lesson 0) writes an IPython startup file that loads it in every kernel, without changing the
   platform's kernel spec (browser check: tests/browser/test_leftovers27.py); each of the 46 exercise cells of each
   language, run first, raises an error the handler gives a line of help for.
8. The browser tests' try/finally around each lesson page: ``tests.browser.conftest.lesson_page`` and
   ``restart_kernel``.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

import coursekit
from coursekit import i18n
from coursekit.exercises import check
from coursekit.exercises.input_help import input_hint
from coursekit.units import share_text
from tests.test_lesson_registry import _copy_project

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(params=["zh", "en"])
def lang(request: pytest.FixtureRequest) -> str:
    before = i18n.get_language()
    coursekit.set_language(request.param)
    yield request.param
    coursekit.set_language(before)


def _hint(line: str) -> str | None:
    """The line of help for ``line`` as the cell's handler gives it: the SyntaxError Python raises compiling it, or
    the error running it."""
    try:
        code = compile(line, "<cell>", "exec")
    except SyntaxError as error:
        return input_hint(error)
    try:
        exec(code, {})
    except Exception as error:  # whatever Python raised, as the handler sees it
        return input_hint(error, line)
    raise AssertionError(f"{line!r} raised nothing")


# -- 1. slips with a line of help ------------------------------------------------------------------------------------


def test_two_numbers_with_a_space_are_called_ambiguous(lang: str) -> None:
    hint = _hint("answer = 5 7")
    assert hint is not None
    assert ("歧义" if lang == "zh" else "ambiguous") in hint
    # the three readings, each a line Python runs: 5, 7, or the digits run together
    for reading in ("answer = 5", "answer = 7", "answer = 57"):
        assert reading in hint
        compile(reading, "<fix>", "exec")
    assert "answer = 5 7" not in hint


def test_a_word_before_the_number_is_dropped(lang: str) -> None:
    hint = _hint("answer = rank 1")
    assert hint is not None and "'rank'" in hint
    assert hint.endswith("answer = 1")
    compile("answer = 1", "<fix>", "exec")


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # "'float' object is not callable; perhaps you missed a comma?"
@pytest.mark.parametrize("line", ["answer = 0.16（16%）", "answer = 0.16(16%)", "answer = 0.16 (16)"])
def test_a_number_with_a_note_in_parentheses_gets_a_valid_line(lang: str, line: str) -> None:
    hint = _hint(line)
    assert hint is not None
    fixed = hint.rsplit("：" if lang == "zh" else ": ", 1)[1]
    assert fixed == "answer = 0.16"
    namespace: dict[str, object] = {}
    exec(compile(fixed, "<fix>", "exec"), namespace)  # the suggested line is Python, and gives the number
    assert namespace["answer"] == 0.16
    assert "(16" not in fixed


def test_an_option_typed_with_its_description_is_shown_alone_in_quotes(lang: str) -> None:
    hint = _hint("answer = mb2（微批次改成 2）")
    assert hint is not None and hint.endswith("answer = 'mb2'")
    assert "(微批次改成 2)" not in hint.rsplit(" ", 3)[-1]


@pytest.mark.parametrize("typed", ["mb2（微批次改成 2）", "mb2 (micro-batch to 2)", "mb2：微批次改成 2"])
def test_check_recognises_the_option_in_a_copied_description(lang: str, typed: str) -> None:
    # exercise 7.4's options as its prompt lists them: 'tp16'（TP 改成 16）、'cp2'（CP 改成 2）、'mb2'（微批次改成 2）
    feedback = check("eff.best_change", typed)
    assert feedback.status == "invalid"
    message = feedback.message
    assert "'mb2'" in message and message.endswith("answer = 'mb2'")
    assert ("选项 'mb2'" if lang == "zh" else "the option 'mb2'") in message
    assert check("eff.best_change", "mb2").status == "correct"


def test_a_description_of_no_option_is_refused_as_before(lang: str) -> None:
    feedback = check("eff.best_change", "mb3（微批次改成 3）")
    assert feedback.status == "invalid" and "'tp16', 'cp2', 'mb2'" in feedback.message


# -- 2. a share below the whole never reads 100 % --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "spec", "text"),
    [
        # A100: 311 of a 312 TFLOP/s peak is 99.679...%: one decimal tells it from 100 %
        (311 / 312, ".0%", "99.7%"),
        (0.9996, ".0%", "99.96%"),
        (0.9996, ".1%", "99.96%"),
        (1.0, ".0%", "100%"),
        (0.5, ".0%", "50%"),
        (1.5, ".0%", "150%"),  # not a share: left as the spec writes it
    ],
)
def test_the_one_rule_keeps_a_share_below_the_whole_from_reading_100(value: float, spec: str, text: str) -> None:
    assert i18n.nonzero(value, spec) == text


def test_a_catalog_share_spec_follows_the_rule() -> None:
    # the planner's "Matmul efficiency {efficiency:.0%~} of peak" (coursekit/planner/result.py) goes through the
    # catalog formatter: 0.997 of the peak read "100%" there
    assert i18n._FORMATTER.format("{efficiency:.0%~}", efficiency=0.997) == "99.7%"
    assert i18n._FORMATTER.format("{efficiency:.0%~}", efficiency=1.0) == "100%"


def test_share_text_never_reads_0_or_100_strictly_inside() -> None:
    for share in (1e-9, 1e-6, 0.004, 0.995, 0.9999, 1 - 1e-9, 1 - 1e-15):
        shown = share_text(share)
        assert shown not in ("0%", "100%") and float(shown.rstrip("%")) not in (0.0, 100.0), (share, shown)
    # rounded down near 1 at the most decimals: 1 - 1e-9 is 99.9999999 %, written with four decimals
    assert share_text(1 - 1e-9) == "99.9999%"


# -- 3. the stated time is not a knife edge --------------------------------------------------------------------------


def _tool(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("estimate", "stated", "kept"),
    [
        # the stated rule: a stated part is kept within 5 / 2 + 1 = 3.5 min of the estimate, else rounded to 5
        (57.7, 60, 60),  # lesson 8's teaching time, on the edge: one word less makes it 57.4, still 60
        (57.4, 60, 60),
        (56.6, 60, 60),
        (56.4, 60, 55),  # moved 3.6 min away: rounded again
        (57.7, 55, 55),  # the other side of the edge keeps its own figure just as well
        (59.1, 55, 60),
        (57.7, None, 60),  # a new lesson: plain rounding to the nearest 5
        (57.4, None, 55),
        (2.0, 5, 5),
    ],
)
def test_a_stated_part_changes_only_past_the_margin(estimate: float, stated: int | None, kept: int) -> None:
    times = _tool("lesson_times")
    assert times.KEEP_WITHIN_MIN == 5 / 2 + 1.0
    assert times.kept_min(estimate, stated) == kept


HEADER_EN = re.compile(
    r"^# > \*\*Time:\*\* about (\d+) min \(teaching and reading (\d+) min, exercises (\d+) min", re.M
)


def test_lesson_8s_time_holds_on_either_side_of_its_edge_and_guide_9s_row_follows_its_line(tmp_path: Path) -> None:
    registry = _tool("lesson_registry")
    times = _tool("lesson_times")
    project = _copy_project(tmp_path)
    source = project / "notebooks/src/08_lab.py"
    text = source.read_text(encoding="utf-8")
    found = HEADER_EN.search(text)
    assert found is not None
    teaching, exercises = int(found.group(2)), int(found.group(3))
    entry = next(e for e in registry.lessons_at(project) if e.number == 8)
    estimate = registry.estimate(text, entry)  # plain rounding (nothing stated)
    # the lesson's raw estimate is on the edge the review met (within the margin of both 55 and 60)
    raw = times.estimate(ROOT / "notebooks/en/08_lab.ipynb", times.course_answers(8))
    teaching_min = raw.raw_teaching_min * times.CALIBRATION
    # stated as it is, the figure is kept
    assert registry.estimate(text, entry, registry.Minutes(teaching, exercises)).teaching == teaching
    other = 55 if teaching == 60 else 60
    if abs(teaching_min - other) <= times.KEEP_WITHIN_MIN:  # 57.7 min when the review met it
        # the same content, stated with the other side of the edge, keeps that side: no flip either way
        flipped = text.replace(f"teaching and reading {teaching} min", f"teaching and reading {other} min")
        kept = registry.estimate(flipped, entry, registry.Minutes(other, exercises))
        assert kept.teaching == other
    assert estimate.teaching in (55, 60) and registry.stale(project) == []

    # 4. guide 9's exercise row holds the time line's exercise minutes, from the same estimate
    guide = project / "docs/instructor/en/09_workbench.md"
    page = guide.read_text(encoding="utf-8")
    line = re.search(r"\*\*Time:\*\* about \d+ min = [^+\n]+? \d+ min \+ exercises (\d+) min", page)
    row = re.search(r"^\| 10\. Exercises and self-check \| (\d+) \|", page, re.M)
    assert line and row and line.group(1) == row.group(1)
    guide.write_text(page.replace(row.group(0), "| 10. Exercises and self-check | 20 |"), encoding="utf-8")
    assert registry.stale(project) == [Path("docs/instructor/en/09_workbench.md")]
    registry.write(project)
    assert guide.read_text(encoding="utf-8") == page


@pytest.mark.parametrize(
    ("lang_dir", "heading", "words"),
    [("zh", "## 时间安排", ("练习与自检", "要点")), ("en", "## Timing", ("Exercises and self-check", "key points"))],
)
def test_guide_9s_rows_add_up_to_its_time_line(lang_dir: str, heading: str, words: tuple[str, str]) -> None:
    page = (ROOT / "docs/instructor" / lang_dir / "09_workbench.md").read_text(encoding="utf-8")
    unit = "分钟" if lang_dir == "zh" else "min"
    line = re.search(rf"(\d+) {unit} = [^+\n]+? \d+ {unit} \+ [^\n]+? (\d+) {unit}", page)
    assert line is not None
    total, exercises = (int(n) for n in line.groups())
    timing = page.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|]+) \| (\d+) \|", timing, re.M)
    assert sum(int(m) for _, m in rows) == total
    assert [int(m) for label, m in rows if words[0] in label] == [exercises]
    assert any(words[1].lower() in label.lower() for label, _ in rows)  # the key points are still taught: own row


# -- 5. how long the tests before class take -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("docs/instructor/zh/README.md", ("约 60 分钟", "notebooks/zh", "--nbval-lax", "make test-lessons")),
        ("docs/instructor/zh/00_index.md", ("约 60 分钟", "notebooks/zh", "--nbval-lax", "make test-lessons")),
        ("docs/instructor/en/README.md", ("about 60 min", "notebooks/en", "--nbval-lax", "make test-lessons")),
        ("docs/instructor/en/00_index.md", ("about 60 min", "notebooks/en", "--nbval-lax", "make test-lessons")),
    ],
)
def test_the_guides_say_how_long_make_test_takes_and_give_the_faster_command(path: str, words: tuple[str, ...]) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    paragraph = next(p for p in text.split("\n\n") if "make test" in p)
    for word in words:
        assert word in paragraph, (path, word)
    assert ("估计" if "/zh/" in path else "estimate") in paragraph


def test_make_test_lessons_runs_one_languages_lessons_under_nbval() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")  # join continued lines
    assert "test-lessons" in makefile.split(".PHONY:", 1)[1].split("\n", 1)[0]
    recipe = makefile.split("\ntest-lessons:", 1)[1].split("\n\n", 1)[0]
    assert "pytest notebooks/$(COURSE_LANG)" in recipe and "--nbval-lax" in recipe
    assert "make test-lessons" in makefile.split("\nhelp:", 1)[1].split("\n\n", 1)[0]


# -- 8. one helper for the browser tests' lesson pages ---------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "tests/browser/test_learner_review26.py",
        "tests/browser/test_learner_review25.py",
        "tests/browser/test_leftovers27.py",
    ],
)
def test_browser_tests_open_lessons_through_the_helper(path: str) -> None:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    tries = [node for node in ast.walk(tree) if isinstance(node, ast.Try) and node.finalbody]
    assert tries == [], f"{path}: try/finally at lines {[t.lineno for t in tries]}; use conftest.lesson_page"
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "lesson_page"]
    assert calls


# -- 7. every exercise cell run first after a restart gets a line of help --------------------------------------------


def _exercise_cells(lang_dir: str) -> list[tuple[str, str]]:
    import nbformat

    found = []
    for path in sorted((ROOT / "notebooks" / lang_dir).glob("[0-9][0-9]_*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code" and "learner" in cell.metadata.get("tags", []) and "check(" in cell.source:
                found.append((path.stem, cell.source))
    return found


def _innermost_line(error: BaseException) -> int:
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_lineno if tb is not None else 1


def test_every_exercise_cell_run_first_gets_a_line_of_help(lang: str) -> None:
    # what the startup file's kernel does with a lesson's exercise cell run before any other (after a restart): the
    # cell's own names are missing, and the handler the extension installs gives its line of help
    cells = _exercise_cells(lang)
    assert len(cells) >= 30  # every lesson's exercises, the course's 40-odd
    bare = []
    for stem, source in cells:
        try:
            exec(compile(source, "<cell>", "exec"), {})
        except Exception as error:  # as the kernel's handler receives it
            line = source.splitlines()[_innermost_line(error) - 1]
            if input_hint(error, line) is None:
                bare.append((stem, type(error).__name__, str(error)))
        else:
            bare.append((stem, "ran", source.splitlines()[-1]))  # a cell that needs nothing above: no error to help
    assert bare == [], bare
