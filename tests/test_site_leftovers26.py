"""Left-overs 5, 6 and 7 of tests/test_leftovers26.py, on the built website in a real browser (Chromium; the
session's site build, tests/site_build.py):

5. (The site's side of left-over 5: the cheat sheet's pages name no internal file and say ``make cheatsheet``.)
6. A Chinese page showed English labels of the site's own: the navigation's caption of the other course ("English
   course") and the captions that named both languages ("参考 / Reference", "教师指南 / Instructor guide"). A Chinese
   page now names them in Chinese only (tools/site/finish.py, ``CAPTIONS_ZH``), as it already did the theme's labels
   (search, colour mode, previous / next, "On this page", ...). The test reads every label a visitor of a Chinese
   page can see or hear outside the lesson text — visible text, tooltips, accessible names, placeholders — with the
   search dialog open and after hovering each header button, and finds no English word but the site's name, a key
   cap ("Ctrl") and the switch to the English page, which names its language in that language. The titles of the
   English course's pages in the navigation are those pages' names, not labels, and are not read.
7. A search result's snippet began with the lesson's navigation line ("English version · 课程导引 · 术语表 · 上一课：
   ..." / "中文版 · Course index · Glossary · ..."), not with the section's own text. The navigation lines are marked
   (``ck-lesson-nav``) and left out of a snippet's text and of the search's page text, as the course bar already was.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.site_build import in_browser, labels_on_pages, run_search, served, site

__all__ = ["served", "site"]  # pytest finds the session fixtures through this module's names

#: Chinese pages of each kind: a lesson, an instructor guide, the cheat sheet, the launch page, the search page.
ZH_PAGES = (
    "notebooks/zh/03_gates.html",
    "docs/instructor/zh/03_gates.html",
    "docs/cheatsheet_zh.html",
    "launch/zh.html",
    "search-zh.html?q=%E6%B5%81%E6%B0%B4%E7%BA%BF",
)
#: English words a label of a Chinese page may be made of alone: the site's name, the key cap of the search
#: shortcut, the file formats of the download menu (.ipynb, .pdf, .md). A label with Chinese in it is a Chinese label
#: (product names stay in Latin letters: "在 Binder 上运行").
ALLOWED = ("coursekit", "Ctrl", "K", "ipynb", "pdf", "md")
CJK = re.compile(r"[\u4e00-\u9fff]")

#: Every label of the page outside the article's text: visible text (not the links to pages in the navigation: those
#: are page titles), and the tooltip, accessible name, placeholder and title of every element, visible or not (a
#: screen reader and a hover read them). The switch to the English page ("English", ``.ck-lang``) names its target.
_LABELS = """() => {
  const found = [];
  const skipText = (el) => el.closest('article.bd-article, .ck-lang, script, style, noscript, kbd + kbd')
    || el.closest('nav.bd-docs-nav a.reference, nav.bd-links a.reference');
  const shown = (el) => { const s = getComputedStyle(el); const r = el.getBoundingClientRect();
    return s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0 && r.height > 0; };
  for (const el of document.querySelectorAll('body *')) {
    for (const name of ['aria-label', 'title', 'placeholder', 'data-bs-title', 'data-bs-original-title', 'alt']) {
      const value = el.getAttribute(name);
      const inLesson = el.closest('article.bd-article') && !el.closest('.prev-next-area, .header-article');
      if (value && !inLesson && !el.closest('.ck-lang')) found.push([name, value]);
    }
    if (skipText(el) || !shown(el)) continue;
    for (const node of el.childNodes) {
      if (node.nodeType === 3 && node.data.trim()) found.push(['text', node.data.trim()]);
    }
  }
  for (const el of document.querySelectorAll('.prev-next-area *, .tooltip, .bd-search input')) {
    for (const node of el.childNodes) {
      if (node.nodeType === 3 && node.data.trim()) found.push(['text', node.data.trim()]);
    }
  }
  return found;
}"""


def _english(label: str) -> list[str]:
    """The English words of a label written in English (no Chinese in it), but those :data:`ALLOWED`."""
    if CJK.search(label):
        return []
    return [word for word in re.findall(r"[A-Za-z][A-Za-z'’]*", label) if word not in ALLOWED]


def test_a_chinese_pages_labels_are_chinese(site: Path, served: str) -> None:
    found = in_browser(lambda browser: labels_on_pages(browser, served, ZH_PAGES, _LABELS))
    assert all(found.values()) and len(found) == len(ZH_PAGES)
    english = {path: sorted({label for _, label in labels if _english(label)}) for path, labels in found.items()}
    english = {path: labels for path, labels in english.items() if labels}
    assert not english, english
    # the theme's labels are there, in Chinese: the proof the reading saw them
    every = " ".join(label for labels in found.values() for _, label in labels)
    for word in ("搜索", "上一页", "下一页", "本页内容", "英文课程", "参考", "教师指南"):
        assert word in every, word


# -- 7. search snippets from the section's text ----------------------------------------------------------------------

#: The navigation line's words, in each language (tools/lesson_nav.py).
NAV_WORDS = {
    "zh": ("English version", "课程导引 · 术语表", "导航："),
    "en": ("中文版", "Course index · Glossary", "Navigation:"),
}
#: Queries whose best results are the lesson pages whose title holds them: the snippet of such a page starts at its
#: title, and went on with the navigation line under it (lesson 5, and 4 and 6 that name it in their navigation).
QUERIES = {"zh": ("search-zh.html", "场景选择矩阵"), "en": ("search.html", "selection matrix")}


def _snippets(browser: Any, base: str, search_page: str, query: str) -> list[tuple[str, str]]:
    page = browser.new_page()
    try:
        run_search(page, base, search_page, query)
        page.wait_for_function(  # the snippets are filled in after the list, as each result page is fetched
            "() => [...document.querySelectorAll('#search-results ul.search li')].slice(0, 5)"
            ".every((li) => li.querySelector('p.context'))",
            timeout=60_000,
        )
        rows = page.eval_on_selector_all(
            "#search-results ul.search li",
            "els => els.map(li => [li.querySelector('a').href, li.querySelector('p.context')?.innerText || ''])",
        )
        return [(href, text) for href, text in rows]
    finally:
        page.close()


def _article_text(site: Path, href: str) -> str:
    """The text of the page ``href`` names as a reader reads its article (formulas once, without heading links and
    the navigation lines), every white space left out."""
    from bs4 import BeautifulSoup  # the site theme's dependency

    path = re.sub(r"^.*?/(notebooks/|docs/|launch/)", r"\1", href.split("#")[0].split("?")[0])
    article = BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser").select_one("article.bd-article")
    assert article is not None, path
    for element in article.select(".katex-mathml, .headerlink, script, style, .ck-lesson-nav"):
        element.decompose()
    return re.sub(r"\s+", "", article.get_text(""))


def test_search_snippets_come_from_the_section_text(site: Path, served: str) -> None:
    found = in_browser(
        lambda browser: {lang: _snippets(browser, served, *QUERIES[lang]) for lang in QUERIES}, timeout_s=600
    )
    for lang, rows in found.items():
        lessons = [(href, text) for href, text in rows if f"/notebooks/{lang}/" in href]
        assert len(lessons) >= 3, (lang, rows[:5])
        for href, snippet in lessons:
            for word in NAV_WORDS[lang]:
                assert word not in snippet, (lang, href, snippet[:200])
            # the snippet is the page's own text: its longest run between Sphinx's "..." is in the article
            pieces = [re.sub(r"\s+", "", piece) for piece in snippet.split("...") if piece.strip()]
            assert pieces, (href, snippet)
            longest = max(pieces, key=len)
            assert longest[:40] in _article_text(site, href), (lang, href, longest[:120])
        assert any(QUERIES[lang][1].split()[0] in text.lower() for _, text in lessons), (lang, lessons[:3])


# -- 5. the cheat sheet's page says how to print it in the learner's terms ------------------------------------------


def test_the_cheat_sheet_pages_name_no_internal_file(site: Path) -> None:
    from bs4 import BeautifulSoup  # the site theme's dependency

    for lang in ("zh", "en"):
        page = BeautifulSoup((site / "docs" / f"cheatsheet_{lang}.html").read_text(encoding="utf-8"), "html.parser")
        article = page.select_one("article.bd-article")
        assert article is not None
        text = " ".join(article.get_text(" ").split())
        assert "tools/" not in text and "cheatsheet_pdf" not in text, lang
        assert "make cheatsheet" in text and "Ctrl+P" in text, lang
