"""Number formatting for the lab's tables (units via coursekit.units), and the tables themselves.

A table is printed as padded text in a terminal (the CLI, ``print``) and shown as an HTML table in a notebook
(``display``): padding to "two columns per CJK character" does not hold in a browser's fonts, so zh rows drifted.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..units import GIB_BYTES, KIB_BYTES, MIB_BYTES, MS_PER_S, US_PER_S


def fmt_bytes(num_bytes: float) -> str:
    """Binary-prefixed size: ``'4.0 KiB'``.

    >>> fmt_bytes(4096), fmt_bytes(3 * 2**20), fmt_bytes(12)
    ('4.0 KiB', '3.0 MiB', '12 B')
    """
    if abs(num_bytes) >= GIB_BYTES:
        return f"{num_bytes / GIB_BYTES:.1f} GiB"
    if abs(num_bytes) >= MIB_BYTES:
        return f"{num_bytes / MIB_BYTES:.1f} MiB"
    if abs(num_bytes) >= KIB_BYTES:
        return f"{num_bytes / KIB_BYTES:.1f} KiB"
    return f"{num_bytes:g} B"


def fmt_seconds(seconds: float) -> str:
    """Seconds in µs, ms or s, three significant figures.

    >>> fmt_seconds(4.2e-5), fmt_seconds(0.0123), fmt_seconds(2.5)
    ('42.0 µs', '12.3 ms', '2.50 s')
    """
    if seconds < 1e-3:
        return f"{seconds * US_PER_S:.3g} µs" if seconds * US_PER_S >= 100 else f"{seconds * US_PER_S:.1f} µs"
    if seconds < 1:
        return f"{seconds * MS_PER_S:.3g} ms" if seconds * MS_PER_S >= 100 else f"{seconds * MS_PER_S:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_gib_s(bytes_per_s: float | None) -> str:
    """Bandwidth in GiB/s (2**30 bytes per second), or an em dash when unknown.

    >>> fmt_gib_s(2**31), fmt_gib_s(None)
    ('2.000 GiB/s', '—')
    """
    if bytes_per_s is None:
        return "—"
    return f"{bytes_per_s / GIB_BYTES:.3f} GiB/s"


def fmt_count(num_bytes: float) -> str:
    """An exact byte count with thousands separators; fractions only when present.

    >>> fmt_count(401684), fmt_count(-130), fmt_count(200842.5)
    ('401,684', '-130', '200,842.5')
    """
    if float(num_bytes).is_integer():
        return f"{int(num_bytes):,}"
    return f"{num_bytes:,.2f}".rstrip("0")


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: 2 for each wide (CJK) character.

    >>> display_width("abc"), display_width("显存")
    (3, 4)
    """
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def render_table(header: list[str], rows: list[list[str]], right: set[int] | None = None) -> str:
    """Plain-text table, columns padded to their widest cell (``right`` = right-aligned columns).

    >>> print(render_table(["a", "bb"], [["1", "22"], ["333", "4"]], right={1}))
    a    bb
    ---  --
    1    22
    333   4
    """
    right = right or set()
    widths = [max(display_width(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = []
        for i, (cell, width) in enumerate(zip(cells, widths, strict=True)):
            pad = " " * (width - display_width(cell))
            parts.append(pad + cell if i in right else cell + pad)
        return "  ".join(parts).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(row) for row in rows)])


@dataclass(frozen=True)
class LabTable:
    """A lab table with the lines above and below it: :meth:`text` for a terminal, :meth:`html` for a notebook.

    ``display(table)`` in a notebook shows the HTML table (``_repr_html_``); ``print(table)`` prints the text.

    >>> table = LabTable.of(["title"], ["a", "bb"], [["1", "22"], ["333", "4"]], right={1}, after=["note"])
    >>> print(table)
    title
    a    bb
    ---  --
    1    22
    333   4
    note
    >>> print(LabTable.of(["<x>"], ["显存"], [["4"]], right={0}).html())
    <div class="ck-lab-table">
    <p>&lt;x&gt;</p>
    <table>
    <thead><tr><th style="text-align:right">显存</th></tr></thead>
    <tbody>
    <tr><td style="text-align:right">4</td></tr>
    </tbody>
    </table>
    </div>
    """

    before: tuple[str, ...]
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    right: frozenset[int] = frozenset()
    after: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        before: Iterable[str],
        header: Sequence[str] = (),
        rows: Iterable[Sequence[str]] = (),
        right: Iterable[int] = (),
        after: Iterable[str] = (),
    ) -> LabTable:
        """A table from lists (the lines ``before`` and ``after`` it, its ``header`` and ``rows``)."""
        return cls(tuple(before), tuple(header), tuple(tuple(row) for row in rows), frozenset(right), tuple(after))

    def text(self) -> str:
        """The table as padded plain text, for a terminal (a CJK character counted two columns wide)."""
        body = (
            [render_table(list(self.header), [list(row) for row in self.rows], set(self.right))] if self.header else []
        )
        return "\n".join([*self.before, *body, *self.after])

    def __str__(self) -> str:
        return self.text()

    def html(self) -> str:
        """The table as HTML: a ``<table>`` with the lines above and below it as paragraphs."""

        def paragraph(line: str) -> str:
            return "<p>" + html.escape(line).replace("\n", "<br>") + "</p>"

        def cells(tag: str, row: Sequence[str]) -> str:
            return "".join(
                f'<{tag} style="text-align:{"right" if i in self.right else "left"}">{html.escape(cell)}</{tag}>'
                for i, cell in enumerate(row)
            )

        parts = ['<div class="ck-lab-table">', *(paragraph(line) for line in self.before)]
        if self.header:
            parts += ["<table>", f"<thead><tr>{cells('th', self.header)}</tr></thead>", "<tbody>"]
            parts += [f"<tr>{cells('td', row)}</tr>" for row in self.rows]
            parts += ["</tbody>", "</table>"]
        parts += [*(paragraph(line) for line in self.after), "</div>"]
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.html()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.text())
