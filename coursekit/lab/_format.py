"""Number formatting for the lab's text tables (units via coursekit.units)."""

from __future__ import annotations

import unicodedata

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
