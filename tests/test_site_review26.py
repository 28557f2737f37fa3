"""What review 26 of the course website found in a real browser (Chromium: a Chinese self-learner on a 1280 x 720
laptop and a 390 x 844 phone, an English instructor on a 1024 x 768 projector at 125 %), held here so it stays fixed:

1. On a phone, a displayed formula wider than the screen was cut off: the theme clips ``div.math`` (its rule is
   written for MathJax, whose inner box scrolls) and KaTeX's box does not scroll, so lesson 1's recomputation
   formula lost its last third ("full: 2sbh" cut at "2 sb"). KaTeX's box now scrolls in itself, with room below for
   a fraction's depth (a box that scrolls clips vertically too: lesson 2's formulas lost 4 px); no
   element of any page clips its own text on a phone (the next-page link at the cheat sheet's foot cut its title
   "运行课程：Binder、魔搭 (ModelScope)…" at the screen's edge too: the title now wraps). A formula's box that
   scrolls is a tab stop, as the theme makes its code blocks and tables (coursekit-scroll.js): at 1280 px, lesson 6's
   timeline formula scrolls too, and axe reported a scrollable region a keyboard could not reach.
2. On a phone, table cells broke numbers between their digits (``overflow-wrap: anywhere``): lesson 1's table of
   model shapes read h = "230" over "4" for 2304, "122" over "88" for 12288, and its table of optimizer recipes
   squeezed its first column to 33 px, writing zero-fp16-adam one letter a line. A cell now breaks between words
   (an identifier at its hyphens); a table wider than the screen scrolls in its own box.
3. The launch page ("运行课程" / "Running the course") did not stand on its own: its Binder section sent the reader to
   a "Launch on Binder" badge "above" (on the README, not on the page; English words on the Chinese page), its
   ModelScope section to a pip section "below" that the page did not include, and it named a test file
   (``tests/test_packaging.py``). It also said nothing of running the course on one's own computer (``make lab``),
   one of the three ways a widget's note offers. The README's sections now read right on the page, the pip section
   and a ``make lab`` section (with the clone it runs in) are on it, and every lesson's bar links to that section.
4. A widget whose states the page replays named "the “Run this lesson” buttons at the top of the page" while the
   reader, on a phone, was screens below them: the widget now carries the page's launch links under its note, each
   link on one line (at 819 px "Run on your computer (make lab)" broke before "lab)").
5. The single-language reference pages (capstone, cheat sheet, launch page) lost their previous / next links: the
   navigation listed them alternately in Chinese and English, and previous / next never cross languages. They are
   now listed one language after the other, so each leads to the next page in its own language.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.site_build import ROOT, evaluate_on_pages, in_browser, served, site

__all__ = ["served", "site"]  # pytest finds the session fixtures through this module's names

LANGS = ("zh", "en")
PHONE = {"width": 390, "height": 844}
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _pages(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def _lesson_pages(site: Path) -> list[str]:
    lessons: dict[str, list[str]] = json.loads((site / "build-info.json").read_text(encoding="utf-8"))["lessons"]
    return [f"notebooks/{lang}/{stem}.html" for lang in LANGS for stem in lessons[lang]]


# -- 1. nothing cut off on a phone -----------------------------------------------------------------

#: Elements that clip their own content sideways (overflow hidden or clip) and hold more than they show. KaTeX's
#: MathML copy is for screen readers, hidden on purpose (1 px, clipped).
_CLIPPED = """() => {
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.katex-mathml')) continue;
    const style = getComputedStyle(el);
    if (!/hidden|clip/.test(style.overflowX) || el.clientWidth === 0) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      found.push(`${el.tagName.toLowerCase()}.${el.className}: ${el.scrollWidth} > ${el.clientWidth} px `
        + `"${el.textContent.trim().slice(0, 40)}"`);
    }
  }
  // a formula's box clips vertically too (a box that scrolls sideways cannot show what sticks out below it)
  for (const el of document.querySelectorAll('.bd-article .math, .bd-article .katex-display')) {
    if (/hidden|clip/.test(getComputedStyle(el).overflowY) && el.scrollHeight > el.clientHeight + 1) {
      found.push(`${el.className} (height): ${el.scrollHeight} > ${el.clientHeight} px`
        + ` "${el.textContent.trim().slice(0, 40)}"`);
    }
  }
  const formulas = [...document.querySelectorAll('.bd-article div.math > .katex-display')];
  return {
    found,
    wide: formulas.filter((f) => f.scrollWidth > f.clientWidth + 1)
      .map((f) => [getComputedStyle(f).overflowX, f.tabIndex]),
  };
}"""


def test_no_page_cuts_off_text_or_a_formula_on_a_phone(site: Path, served: str) -> None:
    pages = _pages(site)

    found = in_browser(lambda browser: evaluate_on_pages(browser, served, pages, _CLIPPED, PHONE))
    assert len(found) == len(pages) > 20
    cut = {path: result["found"] for path, result in found.items() if result["found"]}
    assert not cut, json.dumps(cut, ensure_ascii=False, indent=1)[:3000]
    # a formula wider than the phone scrolls in its own box (lesson 1's recomputation formula is one), which a
    # keyboard reaches (a tab stop: axe's scrollable-region-focusable)
    wide = [tuple(box) for result in found.values() for box in result["wide"]]
    assert wide, "no formula is wider than a phone: the test proves little"
    assert set(wide) <= {("auto", 0), ("scroll", 0)}, wide


# -- 2. numbers whole in tables --------------------------------------------------------------------

#: Every number (two digits or more, with its separators) in a table cell, and the lines it is drawn on.
_SPLIT_NUMBERS = r"""() => {
  const numbers = /\d[\d.,]*\d/g;
  let checked = 0;
  const split = [];
  for (const cell of document.querySelectorAll('.bd-article td, .bd-article th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(numbers)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        checked += 1;
        if (lines.size > 1) split.push(match[0]);
      }
    }
  }
  return {checked, split};
}"""


def test_no_number_in_a_table_is_split_across_lines_on_a_phone(site: Path, served: str) -> None:
    pages = _lesson_pages(site)

    found = in_browser(lambda browser: evaluate_on_pages(browser, served, pages, _SPLIT_NUMBERS, PHONE))
    assert sum(result["checked"] for result in found.values()) > 500, "few numbers in tables: the test proves little"
    split = {path: result["split"][:8] for path, result in found.items() if result["split"]}
    assert not split, split
    # and the pages still fit the phone: a wide table scrolls in its own box
    widths = in_browser(lambda browser: _widths(browser, served, pages))
    assert all(width <= PHONE["width"] for width in widths.values()), widths


def _widths(browser: Any, served: str, pages: list[str]) -> dict[str, int]:
    return evaluate_on_pages(browser, served, pages, "() => document.documentElement.scrollWidth", PHONE)


# -- 3. the launch page on its own -----------------------------------------------------------------


def _article(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    article = re.search(r"<article\b.*?</article>", text, flags=re.S)
    assert article, path
    return article.group(0)


def _visible_text(markup: str) -> str:
    markup = re.sub(r"<(script|style)\b.*?</\1>", " ", markup, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", markup)).replace("&quot;", '"')


def _headings(markup: str) -> list[str]:
    return [_visible_text(h).strip() for h in re.findall(r"<h[1-6]\b.*?</h[1-6]>", markup, flags=re.S)]


#: A section's pointer to another section of the page, in each language: 见下文 “用 pip 安装”, (see "With pip" below).
_POINTERS = {"zh": re.compile(r"见下文\s*“([^”]+)”"), "en": re.compile(r"see [“\"]([^”\"]+)[”\"] below")}
#: What a learner's page must not name: a file of the repository's tests or tools.
_INTERNAL_FILE = re.compile(r"\b(?:tests|tools)/[\w/.-]+\.py\b")


@pytest.mark.parametrize("lang", LANGS)
def test_the_launch_page_stands_on_its_own(site: Path, lang: str) -> None:
    markup = _article(site / "launch" / f"{lang}.html")
    text = _visible_text(markup)
    headings = _headings(markup)
    # what a section points to ("below") is on the page, after the pointer
    pointers = list(_POINTERS[lang].finditer(text))
    assert pointers, "the ModelScope section's pointer to the pip section is gone: the test proves little"
    for pointer in pointers:
        target = pointer.group(1)
        assert any(h.startswith(target) for h in headings), (target, headings)
        assert text.find(target, pointer.end()) > pointer.end(), f"{target!r} is not below its pointer"
    # it points to nothing "above" that is not on the page (the README's badge), nor names a test or tool file
    assert "Launch on Binder" not in text
    assert not _INTERNAL_FILE.findall(text), _INTERNAL_FILE.findall(text)
    # every way to run the course a widget's note offers, each a section with its anchor: Binder, ModelScope, make lab
    for anchor in ("binder", "modelscope", "colab", "local", "pip"):
        assert re.search(rf'<section id="{anchor}"|<span id="{anchor}"></span>', markup), anchor
    local = markup[markup.index('id="local"') :]
    local = local[: local.index('id="pip"')]
    clone = f"git clone https://github.com/{_repository()}.git"
    assert "make lab" in _visible_text(local) and clone in _visible_text(local), _visible_text(local)[:400]
    if lang == "zh":
        assert all(CHINESE.search(h) for h in headings), headings


def _repository() -> str:
    import sys

    sys.path.insert(0, str(ROOT / "tools" / "site"))
    import build_site

    return build_site.repository()


#: The bar's launch links and each replayed widget's copy of them (label text, href, and where the copy sits).
_LAUNCH_LINKS = """() => {
  const bar = [...document.querySelectorAll('.ck-bar a.ck-launch')].map((a) => [a.className, a.textContent, a.href]);
  const label = document.querySelector('.ck-bar .ck-launch-label')?.textContent.trim();
  const widgets = [...document.querySelectorAll('.ck-static')].map((block) => {
    const line = block.querySelector('.ck-live-launch');
    return {
      slider: !!block.querySelector('input.ck-live-slider'),
      links: line ? [...line.querySelectorAll('a')].map((a) => [a.className, a.textContent, a.href]) : null,
      text: line ? line.textContent : '',
      afterNote: !!line && line.previousElementSibling?.classList.contains('ck-static-note'),
      // each link on one line (its boxes' tops)
      lines: line ? [...line.querySelectorAll('a')].map((a) => new Set([...a.getClientRects()].map((r) => r.top)).size)
        : [],
    };
  });
  return {bar, label, widgets};
}"""


def test_every_lesson_offers_every_way_to_run_it_at_the_top_and_beside_its_widgets(site: Path, served: str) -> None:
    pages = _lesson_pages(site)

    def run(browser: Any) -> dict[str, Any]:
        found: dict[str, Any] = {}
        # an English instructor's projector at 125 % (1024 x 768: 819 CSS px), then a Chinese learner's phone
        projector = browser.new_page(viewport={"width": 819, "height": 614}, device_scale_factor=1.25)
        for path in pages:
            projector.goto(f"{served}/{path}", wait_until="load")
            found[f"819px {path}"] = projector.evaluate(_LAUNCH_LINKS)
        projector.close()
        page = browser.new_page(viewport=PHONE)
        for path in pages:
            page.goto(f"{served}/{path}", wait_until="load")
            found[path] = page.evaluate(_LAUNCH_LINKS)
        # the bar's "own computer" link opens the launch page at its make-lab section
        page.goto(f"{served}/notebooks/zh/01_capacity.html", wait_until="load")
        page.click(".ck-bar a.ck-local")
        page.wait_for_load_state("load")
        found["landed"] = page.evaluate(
            "() => { const target = document.getElementById(location.hash.slice(1)); const r ="
            " target.getBoundingClientRect(); return {hash: location.hash, page: location.pathname,"
            " text: (target.closest('section') || target.parentElement).textContent,"
            " shown: r.top >= 0 && r.top < innerHeight}; }"
        )
        page.close()
        return found

    found = in_browser(run)
    landed = found.pop("landed")
    assert landed["page"].endswith("/launch/zh.html") and landed["hash"] == "#local", landed
    assert "make lab" in landed["text"] and landed["shown"], landed
    sliders = 0
    for path, result in found.items():
        kinds = {cls.split()[-1] for cls, _, _ in result["bar"]}
        assert kinds == {"ck-binder", "ck-colab", "ck-modelscope", "ck-local"}, (path, result["bar"])
        local = next(text for cls, text, _ in result["bar"] if cls.endswith("ck-local"))
        assert "make lab" in local and (CHINESE.search(local) is not None) == ("/zh/" in path), local
        for widget in result["widgets"]:
            if not widget["slider"]:
                continue
            sliders += 1
            # the page's own links, under the note that names them, after the bar's label in the page's language
            assert widget["links"] == result["bar"] and widget["afterNote"], (path, widget)
            assert set(widget["lines"]) == {1}, (path, widget)
            assert widget["text"].startswith(result["label"]), (path, widget["text"], result["label"])
    assert sliders >= 20, f"only {sliders} replayed widgets: the test proves little"


# -- 5. previous / next on the reference pages -----------------------------------------------------


def _prev_next(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    links = {}
    for kind in ("left-prev", "right-next"):
        match = re.search(rf'<a class="{kind}"\s+href="([^"]+)"', text)
        if match:
            links[kind] = str((path.parent / match.group(1)).resolve())
    return links


def _reference_order(site: Path) -> list[str]:
    """The reference pages in the navigation's order, as the home page's sidebar lists them (after its caption)."""
    text = (site / "index.html").read_text(encoding="utf-8")
    # the caption: "参考 / Reference" on a page that keeps the theme's, "Reference" on an English page (leftovers 27)
    start = re.search(r"(?:参考 / )?Reference</span>", text).end()
    section = text[start : text.index("</ul>", start)]
    return [str((site / href).resolve()) for href in re.findall(r'href="([^"#]+\.html)"', section)]


@pytest.mark.parametrize("lang", LANGS)
def test_each_reference_page_leads_to_the_next_in_its_language(site: Path, lang: str) -> None:
    order = [path for path in _reference_order(site) if re.search(rf"(_{lang}|/{lang})\.html$", path)]
    assert len(order) >= 3, order  # the capstone, the cheat sheet and the launch page at least
    for i, path in enumerate(order):
        links = _prev_next(Path(path))
        if i:
            assert links.get("left-prev") == order[i - 1], (path, links)
        if i < len(order) - 1:
            assert links.get("right-next") == order[i + 1], (path, links)
