"""Each Chinese document and its English twin have the same structure, numbers and links.

Twins: the instructor guide's pages (docs/instructor/zh|en), the cheat sheet, the capstone, and the README's two
halves. For each pair: the same headings (count and levels, in order), the same set of numbers (a figure changed in
one language only is drift; ``4,096`` and ``4096`` are the same number; how often a number is repeated may differ),
and the same links once the language in a path (``../en/`` vs ``../zh/``, ``_zh.md`` vs ``_en.md``,
``notebooks/zh`` vs ``notebooks/en``) is set aside.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEADING = re.compile(r"^(#{1,6}) ", re.M)
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
LANGUAGE_IN_PATH = re.compile(r"(?<=/)(?:zh|en)(?=/)|(?<=_)(?:zh|en)(?=\.)")


def _readme_halves() -> tuple[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    zh, en = text.index("\n## 中文\n"), text.index("\n## English\n")
    assert zh < en
    return text[zh:en], text[en:]


def _twins() -> list[tuple[str, str, str]]:
    pairs = []
    for page in sorted((ROOT / "docs" / "instructor" / "zh").glob("*.md")):
        twin = ROOT / "docs" / "instructor" / "en" / page.name
        pairs.append((f"instructor/{page.name}", page.read_text(encoding="utf-8"), twin.read_text(encoding="utf-8")))
    for name in ("cheatsheet", "capstone"):
        zh, en = (ROOT / "docs" / f"{name}_{lang}.md" for lang in ("zh", "en"))
        pairs.append((name, zh.read_text(encoding="utf-8"), en.read_text(encoding="utf-8")))
    pairs.append(("README", *_readme_halves()))
    return pairs


TWINS = _twins()


def headings(text: str) -> list[int]:
    """The level of each heading, in order (code blocks left out)."""
    return [len(match.group(1)) for match in HEADING.finditer(FENCE.sub("", text))]


def numbers(text: str) -> set[str]:
    return set(NUMBER.findall(THOUSANDS.sub("", text)))


def links(text: str) -> list[str]:
    return sorted(LANGUAGE_IN_PATH.sub("*", target) for target in LINK.findall(text))


def test_the_helpers_see_what_they_compare() -> None:
    assert headings("# A\n```\n# not a heading\n```\n## B\n") == [1, 2]
    assert numbers("4,096 GPUs, 62,460 compositions, 1.5 copies") == {"4096", "62460", "1.5"}
    zh, en = "[中文版](../zh/08_lab.md) [x](capstone_en.md)", "[English](../en/08_lab.md) [x](capstone_zh.md)"
    assert links(zh) == links(en) == ["../*/08_lab.md", "capstone_*.md"]


@pytest.mark.parametrize(("name", "zh", "en"), TWINS, ids=[name for name, _, _ in TWINS])
def test_twins_have_the_same_headings(name: str, zh: str, en: str) -> None:
    assert headings(zh) == headings(en), f"{name}: heading levels differ"


@pytest.mark.parametrize(("name", "zh", "en"), TWINS, ids=[name for name, _, _ in TWINS])
def test_twins_state_the_same_numbers(name: str, zh: str, en: str) -> None:
    only_zh, only_en = numbers(zh) - numbers(en), numbers(en) - numbers(zh)
    assert not only_zh and not only_en, f"{name}: only in zh {sorted(only_zh)}, only in en {sorted(only_en)}"


@pytest.mark.parametrize(("name", "zh", "en"), TWINS, ids=[name for name, _, _ in TWINS])
def test_twins_link_to_the_same_places(name: str, zh: str, en: str) -> None:
    assert links(zh) == links(en), f"{name}: links differ"


def test_every_instructor_page_has_a_twin() -> None:
    pages = {lang: sorted(p.name for p in (ROOT / "docs" / "instructor" / lang).glob("*.md")) for lang in ("zh", "en")}
    assert pages["zh"] == pages["en"]
