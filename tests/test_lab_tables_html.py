"""Lesson 8 shows its lab tables as HTML tables, not as padded text.

The lab's tables (``coursekit.lab``: the collectives' fit summary and detail, the step timelines, the E(P) table) were
printed as monospace text padded on the assumption that a CJK character is exactly two columns wide. Browser fonts do
not keep to that, so in the zh notebook rows such as "实测（各 rank 平均）" drifted right of their columns. The lesson
now ``display``s each table (``LabTable``): an HTML ``<table>`` whose header cells are in the learner's language.
The plain-text methods (``summary_table``, ``table``, ``efficiency_table`` ...) stay for the CLI and a terminal.

The test runs each lesson 8 notebook as a learner's Run All does (``tests/notebook_outputs.py``) and reads the
outputs of the cells that show a table; the cells that show one only when the learner presses a button are left out.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from IPython.core.formatters import DisplayFormatter

import coursekit
from coursekit.i18n import tr
from coursekit.lab import collectives, memory, timeline  # noqa: F401  (their messages: the tables' headers)
from coursekit.lab._format import LabTable
from tests.notebook_outputs import executed

ROOT = Path(__file__).resolve().parents[1]

#: A line only the cell has -> the catalogue keys of the header cells its table shows.
TABLE_CELLS: dict[str, tuple[str, ...]] = {
    "display(report.summary_view())": ("lab.col_collective", "lab.col_alpha", "lab.col_bandwidth"),
    'display(report.detail_view("all_reduce"))': ("lab.col_payload", "lab.col_time", "lab.col_busbw"),
    "display(result.table_view(model=False": ("lab.tl_col_rank", "lab.tl_part_step"),
    'display(timeline.result("ddp", "baseline").table_view(': ("lab.tl_col_rank", "lab.tl_part_step"),
    "display(*memory.views())": ("lab.mem_col_component", "lab.mem_col_measured", "lab.mem_col_unexplained"),
    'display(efficiency_table_view(points, "ddp", with_efficiency=False))': (
        "lab.tl_eff_col_p",
        "lab.tl_eff_col_step",
        "lab.tl_eff_col_cause",
    ),
}


class _Cells(HTMLParser):
    """The text of every ``<th>`` and ``<td>`` in an HTML fragment, and how many ``<table>`` it opens."""

    def __init__(self) -> None:
        super().__init__()
        self.tables = 0
        self.th: list[str] = []
        self.td: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "table":
            self.tables += 1
        elif tag in ("th", "td"):
            self._open = self.th if tag == "th" else self.td
            self._open.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td"):
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open[-1] += data


def _cells(fragment: str) -> _Cells:
    parser = _Cells()
    parser.feed(fragment)
    return parser


def test_a_lab_table_is_an_html_table_in_a_notebook_and_padded_text_in_a_terminal() -> None:
    table = LabTable.of(["t"], ["rank 编号", "步时"], [["实测（各 rank 平均）", "1.00"]], right={1}, after=["note"])
    bundle, _ = DisplayFormatter().format(table)
    cells = _cells(bundle["text/html"])
    assert (cells.tables, cells.th, cells.td) == (1, ["rank 编号", "步时"], ["实测（各 rank 平均）", "1.00"])
    assert bundle["text/plain"] == str(table) == table.text()
    # In a terminal a CJK character takes two columns: 7 of them and 6 other characters are 20 columns.
    assert table.text().splitlines()[2] == "-" * 20 + "  ----"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_lesson8_shows_its_tables_as_html_tables_in_the_learners_language(lang: str) -> None:
    coursekit.set_language(lang)
    try:
        expected = {marker: [tr(key) for key in keys] for marker, keys in TABLE_CELLS.items()}
    finally:
        coursekit.set_language("en")
    notebook = executed(ROOT / "notebooks" / lang / "08_lab.ipynb")
    for marker, headers in expected.items():
        found = [c for c in notebook.cells if c.cell_type == "code" and marker in c.source]
        assert len(found) == 1, f"{lang}/08_lab: {len(found)} cells display a table with {marker!r}, not 1"
        cell = found[0]
        html = [str(o["data"]["text/html"]) for o in cell.outputs if "text/html" in o.get("data", {})]
        tables = [_cells(fragment) for fragment in html if "<table" in fragment]
        assert tables, f"{lang}/08_lab: no HTML table in the cell of {marker!r}"
        for table in tables:
            assert set(headers) <= set(table.th), (marker, headers, table.th)
        streams = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
        assert "---  --" not in streams, f"{lang}/08_lab: a padded text table in the cell of {marker!r}"
    if lang == "zh":
        means = [c for c in notebook.cells if c.cell_type == "code" and "display(result.table_view(" in c.source]
        html = "".join(str(o["data"].get("text/html", "")) for o in means[0].outputs if "data" in o)
        assert "实测（各 rank 平均）" in _cells(html).td
