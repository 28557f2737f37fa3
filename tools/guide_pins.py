"""Which numbers in the instructor guides no test pins (an instructor-review helper).

A guide number is *pinned* when a test looks up a piece of guide text that holds it: ``phrase in text``,
``text.count(phrase)``, ``text.find(phrase)``, or a regular-expression match on the text. This script runs the guide
tests with ``Path.read_text`` patched so that a guide's text records those lookups, then lists every number of every
guide (zh and en) that no recorded lookup covers, with its line.

    PYTHONPATH=. python tools/guide_pins.py [pytest args]      # default: every test file that reads a guide
    PYTHONPATH=. python tools/guide_pins.py --lessons [pytest args]   # the lessons' Markdown cells instead

With ``--lessons`` the same is done for the Markdown cells of each lesson source (notebooks/src), zh and en apart:
a lesson's text is recorded when a test reads the source with ``Path.read_text``, and also when it builds a flat text
of the Markdown cells with :func:`recorded_like` (tests/test_instructor_review22.py does). The default tests are then
every test file that reads a lesson source.

Numbers that are not results (years, lesson and section numbers, timing-table minutes) are listed too; the reader
decides. The lookups are matched against the guide with runs of whitespace collapsed, so a phrase a test wraps
differently still counts.
"""

from __future__ import annotations

import pathlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ROOT / "docs" / "instructor"
LESSONS = ROOT / "notebooks" / "src"
#: A number as the guides write it: 1,024 or 18.09 or 1.2e-3 or 6.6 (µs) — the digits and separators only.
NUMBER = re.compile(r"(?<![\w.])\d+(?:[,.]\d+)*(?:e-?\d+)?")

LOOKED_UP: set[str] = set()


class _Recorded(str):
    """A guide's text that notes every piece of it a test looks for."""

    def _note(self, piece: object) -> None:
        if isinstance(piece, str) and piece:
            LOOKED_UP.add(str(piece))

    def __contains__(self, piece: object) -> bool:  # type: ignore[override]
        self._note(piece)
        return str.__contains__(self, piece)  # type: ignore[operator]

    def count(self, piece: str, *args: object) -> int:  # type: ignore[override]
        self._note(piece)
        return str.count(self, piece, *args)  # type: ignore[arg-type]

    def find(self, piece: str, *args: object) -> int:  # type: ignore[override]
        self._note(piece)
        return str.find(self, piece, *args)  # type: ignore[arg-type]

    def index(self, piece: str, *args: object) -> int:  # type: ignore[override]
        self._note(piece)
        return str.index(self, piece, *args)  # type: ignore[arg-type]

    def replace(self, *args: object) -> _Recorded:  # type: ignore[override]
        return _Recorded(str.replace(self, *args))  # type: ignore[arg-type]

    def split(self, *args: object, **kw: object) -> list[str]:  # type: ignore[override]
        return [_Recorded(part) for part in str.split(self, *args, **kw)]  # type: ignore[arg-type]

    def splitlines(self, *args: object) -> list[str]:  # type: ignore[override]
        return [_Recorded(part) for part in str.splitlines(self, *args)]  # type: ignore[arg-type]

    def lower(self) -> _Recorded:
        return _Recorded(str.lower(self))

    def strip(self, *args: object) -> _Recorded:  # type: ignore[override]
        return _Recorded(str.strip(self, *args))  # type: ignore[arg-type]

    def __getitem__(self, key: object) -> _Recorded:  # type: ignore[override]
        return _Recorded(str.__getitem__(self, key))  # type: ignore[index]


def _install() -> None:
    original = pathlib.Path.read_text

    def read_text(self: Path, *args: object, **kw: object) -> str:
        text = original(self, *args, **kw)  # type: ignore[arg-type]
        if self.suffix == ".md" and GUIDES in self.resolve().parents:
            return _Recorded(text)
        if self.suffix == ".py" and self.resolve().parent == LESSONS:
            return _Recorded(text)
        return text

    pathlib.Path.read_text = read_text  # type: ignore[method-assign]
    for name in ("search", "match", "fullmatch", "findall", "finditer", "sub"):
        _wrap_re(name)


def _wrap_re(name: str) -> None:
    original = getattr(re, name)

    def wrapped(pattern: object, string: object, *args: object, **kw: object) -> object:
        if name == "sub":
            result = original(pattern, string, *args, **kw)
            return _Recorded(result) if isinstance(args[0] if args else None, _Recorded) else result
        result = original(pattern, string, *args, **kw)
        if isinstance(string, _Recorded):
            for found in re.finditer(pattern, str(string), *args[:1]) if name in ("findall", "finditer") else [result]:
                if isinstance(found, re.Match):
                    LOOKED_UP.add(found.group(0))
        return result

    setattr(re, name, wrapped)


def _collapse(text: str) -> tuple[str, list[int]]:
    """The text with whitespace runs as one space, and for each kept character its index in the original."""
    out: list[str] = []
    where: list[int] = []
    for index, char in enumerate(text):
        if char.isspace():
            if out and out[-1] == " ":
                continue
            char = " "
        out.append(char)
        where.append(index)
    return "".join(out), where


def unpinned(text: str, looked_up: set[str]) -> Iterator[tuple[int, str, str]]:
    """(line number, number, line) for each number of ``text`` that no looked-up piece covers."""
    flat, where = _collapse(text)
    covered = [False] * len(text)
    for piece in looked_up:
        if not any(char.isdigit() for char in piece):
            continue
        needle, _ = _collapse(piece)
        start = flat.find(needle)
        while start >= 0 and needle:
            for k in range(start, start + len(needle)):
                covered[where[k]] = True
            start = flat.find(needle, start + 1)
    lines = text.splitlines()
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for found in NUMBER.finditer(text):
        if not all(covered[found.start() : found.end()]):
            line_no = next(i for i, end in enumerate(offsets) if end > found.start())
            yield line_no, found.group(0), lines[line_no - 1].strip()


def recorded_like(source: str, text: str) -> str:
    """``text`` as the same kind of string as ``source``: a text a test derives from a lesson source it read (a flat
    join of its Markdown cells, say) keeps recording lookups while this tool runs, and is a plain ``str`` otherwise."""
    return type(source)(text)


def lesson_markdown(path: Path, lang: str) -> str:
    """The Markdown cells of lesson source ``path`` in ``lang``, one after another, a blank line between."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / "tools" / "build_notebooks.py")
    assert spec is not None and spec.loader is not None
    builder = sys.modules.get("build_notebooks") or importlib.util.module_from_spec(spec)
    if "build_notebooks" not in sys.modules:
        sys.modules["build_notebooks"] = builder
        spec.loader.exec_module(builder)
    cells = builder.parse_source(str.__str__(path.read_text(encoding="utf-8")), path.name)
    return "\n\n".join(
        str(cell.source) for cell in cells if cell.cell_type == "markdown" and cell.metadata.get("lang") == lang
    )


def main(argv: list[str]) -> int:
    import pytest

    lessons = "--lessons" in argv
    argv = [arg for arg in argv if arg != "--lessons"]
    _install()
    needle = "notebooks/src" if lessons else "instructor"
    tests = sorted(
        str(path)
        for path in (ROOT / "tests").glob("test_*.py")
        if needle in path.read_text(encoding="utf-8") and path.name != "test_packaging.py"
    )
    pytest.main(["-q", "-p", "no:cacheprovider", *(argv or tests)])
    if lessons:
        for path in sorted(LESSONS.glob("[0-9][0-9]_*.py")):
            for lang in ("zh", "en"):
                for line_no, number, line in unpinned(lesson_markdown(path, lang), LOOKED_UP):
                    print(f"{path.name}[{lang}]:{line_no}: {number}\t{line[:150]}")
        return 0
    for path in sorted(GUIDES.glob("*/[0-9][0-9]_*.md")):
        rows = list(unpinned(path.read_text(encoding="utf-8"), LOOKED_UP))
        for line_no, number, line in rows:
            print(f"{path.relative_to(GUIDES)}:{line_no}: {number}\t{line[:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
