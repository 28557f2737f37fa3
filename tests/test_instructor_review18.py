"""What an English instructor found preparing and rehearsing the English lessons in a real browser (review 18), fixed.

Expected values are worked from the lessons' own statements, the browser's measurements and the guides' sentences,
not read from the code under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.site_build import in_browser, site
from tests.test_instructor_review17 import display_columns

__all__ = ["site"]

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"

#: Projected at 1024 px with the browser zoomed to 125 % (819 CSS px) and the file browser folded away, a code
#: cell's editor in plain JupyterLab (no line wrapping: VS Code, JupyterLite, a learner's own JupyterLab) is 637 px
#: wide, 81 columns of its 7.83 px monospace font (measured in Chromium); at 1280 px with the file browser open it is
#: 846 px, 108 columns. Before this review 101 of the English lessons' 262 code cells scrolled sideways at 1280 px.
MAX_CODE_COLUMNS = 80

#: A language-marked comment of a lesson source (``# zh: ...``); each notebook shows it as ``# ...``.
_MARKED = re.compile(r"^(\s*)# (zh|en): ")


def source_code_lines(path: Path) -> list[tuple[int, str]]:
    r"""The code lines of a lesson source as a notebook shows them (a marked comment without its marker), numbered.

    >>> import tempfile
    >>> text = '# %% [markdown]\n# a long prose line\n\n# %%\nx = 1\n# zh: 注释\n# en: a note\n'
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "01_x.py"
    ...     _ = path.write_text(text, encoding="utf-8")
    ...     source_code_lines(path)
    [(5, 'x = 1'), (6, '# 注释'), (7, '# a note'), (8, '')]
    """
    lines, code = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.startswith("# %%"):
            code = "[markdown]" not in line
            continue
        if code:
            lines.append((number, _MARKED.sub(r"\1# ", line)))
    return lines


def test_the_width_rule_counts_what_the_editor_shows() -> None:
    # a CJK character takes two columns; an 80-column line fits, an 81-column one does not
    assert display_columns("x" * 80) == 80 and display_columns("计" * 40) == 80
    assert display_columns("计" * 40 + "x") == MAX_CODE_COLUMNS + 1


def test_no_lesson_source_code_line_is_wider_than_a_projected_editor() -> None:
    wide = [
        f"{path.name}:{number}: {display_columns(line)} columns: {line.strip()[:60]}"
        for path in sorted(SRC.glob("[0-9][0-9]_*.py"))
        for number, line in source_code_lines(path)
        if display_columns(line) > MAX_CODE_COLUMNS
    ]
    assert not wide, "\n".join(wide)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_generated_code_line_is_wider_than_a_projected_editor(lang: str) -> None:
    # the generated cells too: the Colab install cell's comment (105 columns) and a worked solution's first line
    # (97 columns in English) came from tools/build_notebooks.py, not from a lesson source
    wide = [
        f"{path.name}: {display_columns(line)} columns: {line.strip()[:60]}"
        for path in sorted((ROOT / "notebooks" / lang).glob("*.ipynb"))
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
        for line in "".join(cell["source"]).splitlines()
        if display_columns(line) > MAX_CODE_COLUMNS
    ]
    assert not wide, "\n".join(wide)


# -- the guides' figures that no test pinned ---------------------------------------------------------------------


def _guide(lang: str, stem: str) -> str:
    return (ROOT / "docs" / "instructor" / lang / f"{stem}.md").read_text(encoding="utf-8")


def _executed_texts(stem: str) -> list[str]:
    """What the English lesson ``stem`` prints when run top to bottom (executed once per session)."""
    from tests.notebook_outputs import executed, output_texts

    notebook = executed(ROOT / "notebooks" / "en" / f"{stem}.ipynb")
    return [text for cell in notebook.cells for text in output_texts(cell)]


def test_lesson_1_guide_demo_quotes_the_widgets_four_ledgers() -> None:
    # the live demo's steps 1-2 quote the ledger of each ZeRO stage at the widget's defaults (7.5B, DP 8, 80 GiB)
    from coursekit.widgets.capacity import CapacityWidget

    widget = CapacityWidget()
    assert widget.result is not None
    zero0, zero1, zero2, zero3 = (f"{ledger.required_gib:.2f}" for ledger in widget.result.stage_ledgers)
    page = _guide("en", "01_capacity")
    assert f"1. ZeRO-0 needs {zero0} GiB: the optimizer state dominates." in page
    assert f"2. Move ZeRO to 1: {zero1} GiB fits 80 GiB. Stages 2 and 3 need {zero2} and {zero3} GiB" in page


def test_lesson_2_guide_counts_each_strategys_collectives_as_the_lesson_lists_them() -> None:
    # summed from the lesson's own listing of each strategy's traffic ("TP       all-reduce (all_reduce): 576 per step",
    # twice; review 27 named each collective in words before its code name)
    listing = next(text for text in _executed_texts("02_communication") if "send_recv" in text and "Backward" in text)
    calls: dict[str, int] = {}
    for strategy, count in re.findall(r"^(\S+) +.+\(\w+\): (\d+) per step$", listing, re.M):
        calls[strategy] = calls.get(strategy, 0) + int(count)
    expected = (
        f"DP {calls['DP']} all-reduce; ZeRO-2 **{calls['ZeRO-2']}**\n  collectives (8 reduce-scatters + 1 "
        f"all-gather); ZeRO-3 **{calls['ZeRO-3']}** (36 layers × 8 micro-batches × 2 all-gathers and 1\n  "
        f"reduce-scatter); TP {calls['TP']} all-reduces (exercise 2.4's answer: say it after the class has "
        f"answered); PP {calls['PP']}\n  send/recv per boundary; CP {calls['CP']} ring steps; EP {calls['EP']} "
        "all-to-alls; Replica none."
    )
    assert expected in _guide("en", "02_communication")


def test_lesson_10_guide_quotes_the_tables_tpot_for_llama_3_70b() -> None:
    table = next(text for text in _executed_texts("10_serving") if "| llama3-70b | 8 |" in text)
    rows = re.findall(r"^\| llama3-70b \| (\d+) \|(?: [^|]+ \|){3} ([\d.]+) \|", table, re.M)
    assert [tp for tp, _ in rows] == ["1", "2", "4", "8"], rows
    quoted = " / ".join(f"{float(tpot):.1f}" for _, tpot in rows)
    assert f"TPOT at batch 1 for Llama-3 70B: **{quoted} ms** at TP = 1 / 2 / 4 / 8" in _guide("en", "10_serving")


# -- the course website ------------------------------------------------------------------------------------------

#: Code blocks of a website lesson's code cells wider inside than their box (what needs a sideways scroll).
SITE_CODE_SCROLLS = """() => [...document.querySelectorAll('div.cell_input pre')]
  .filter((pre) => pre.clientWidth && pre.scrollWidth > pre.clientWidth + 1)
  .map((pre) => [pre.scrollWidth, pre.clientWidth])"""


def test_website_code_cells_do_not_scroll_sideways(site: Path) -> None:
    # at 1280 px the article leaves a code block 684 px (32 px of it padding): the theme's 14 px monospace (8.4 px a
    # column) held 77 columns, and 180 of the English lessons' 246 code cells scrolled sideways before this review
    # (121 once the lines were cut to 80 columns); at 1024 px and 125 % zoom the sidebars fold and the block is 751 px
    pages = sorted((site / "notebooks" / "en").glob("[0-9][0-9]_*.html"))
    assert len(pages) == 11

    def run(browser: object) -> dict[str, list[list[int]]]:
        wide = {}
        for viewport, zoom in (((1280, 900), 1.0), ((819, 614), 1.25)):
            for path in pages:
                page = browser.new_page(  # type: ignore[attr-defined]
                    viewport={"width": viewport[0], "height": viewport[1]}, device_scale_factor=zoom
                )
                page.goto(path.as_uri())
                page.wait_for_load_state("load")
                over = page.evaluate(SITE_CODE_SCROLLS)
                page.close()
                if over:
                    wide[f"{viewport[0]}px {path.name}"] = over
        return wide

    assert in_browser(run) == {}


# -- figures: no label covers another ----------------------------------------------------------------------------

#: Run first in the lesson's kernel: after each figure is drawn, record every pair of visible texts (tick labels,
#: axis labels, titles, annotations, legend entries) whose boxes overlap by more than 2 px each way.
_OVERLAP_HOOK = """
import matplotlib.figure, matplotlib.text
_ck_overlaps = []
_ck_draw = matplotlib.figure.Figure.draw
def _ck_checked_draw(self, renderer):
    drawn = _ck_draw(self, renderer)
    texts = [
        t for t in self.findobj(matplotlib.text.Text)
        if t.get_visible() and t.get_text().strip() and (t.axes is None or t.axes.get_visible())
    ]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            wide = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            high = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if wide > 2 and high > 2:
                _ck_overlaps.append((a, b))
    return drawn
matplotlib.figure.Figure.draw = _ck_checked_draw
"""


def overlapping_labels(notebook_path: Path) -> list[list[str]]:
    """The pairs of texts that cover each other in the figures ``notebook_path`` draws when run top to bottom."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(notebook_path, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(_OVERLAP_HOOK))
    notebook.cells.append(nbformat.v4.new_code_cell("import json; print(json.dumps(_ck_overlaps))"))
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(notebook_path.parent)}}
    ).execute()
    printed = "".join(output.get("text", "") for output in notebook.cells[-1].outputs)
    pairs: list[list[str]] = json.loads(printed)
    return pairs


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lesson_10_roofline_labels_do_not_cover_each_other(lang: str) -> None:
    # "prefill 2048" was placed at intensity 700, left of its square, and its box covered the end of
    # "decode b=256" (29 × 16 px at the lesson's figure size): on a projector neither could be read
    assert overlapping_labels(ROOT / "notebooks" / lang / "10_serving.ipynb") == []


@pytest.mark.parametrize(
    ("lang", "fold"), [("en", "fold the file browser (Ctrl+B)"), ("zh", "收起文件浏览器（Ctrl+B）")]
)
def test_instructor_readme_says_to_fold_the_file_browser_on_a_projector(lang: str, fold: str) -> None:
    # at 1024 px and 125 % zoom the open file browser leaves a code cell 385 px, about 49 columns (measured)
    page = (ROOT / "docs" / "instructor" / lang / "README.md").read_text(encoding="utf-8")
    assert fold in page
    assert f"{MAX_CODE_COLUMNS}" in page.split(fold, 1)[1].split("\n\n", 1)[0]
