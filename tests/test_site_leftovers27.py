"""Left-over 6 of tests/test_leftovers27.py, on the built website in a real browser (Chromium; the session's site
build, tests/site_build.py; ``COURSEKIT_SITE_DIR`` may name a ``--no-execute`` build, which has the same navigation):

6. An English page kept the navigation caption "中文课程" (the Chinese course's section) and the captions that name
   both languages ("参考 / Reference", "教师指南 / Instructor guide"): Chinese labels of the site's own on an English
   page, where the Chinese pages had been fixed to be all Chinese. An English page now names them in English only
   (tools/site/finish.py, ``CAPTIONS_EN``). The test reads every label a visitor of an English page can see or hear
   outside the lesson text (the same reading as the Chinese pages' test: visible text, tooltips, accessible names,
   placeholders, with the search dialog open and after hovering each header button) and finds no Chinese but the
   switch to the Chinese page, which names its language in that language. The titles of the Chinese course's pages
   in the navigation are those pages' names, not labels, and are not read (as on the Chinese pages); nor are the
   search page's results (the pages found: their titles and text). A label may give a name in Chinese in
   parentheses after the English, as the course writes terms ("On ModelScope (魔搭) Notebook").
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.site_build import in_browser, labels_on_pages, served, site
from tests.test_site_leftovers26 import _LABELS, CJK

__all__ = ["served", "site"]  # pytest finds the session fixtures through this module's names

#: The Chinese pages' reading, with the search page's results left out: found pages' titles and text, not labels.
_EN_LABELS = _LABELS.replace("el.closest('article.bd-article, ", "el.closest('article.bd-article, #search-results, ")
assert _EN_LABELS != _LABELS
_IN_PARENTHESES = re.compile(r"\([^()]*\)")


def _chinese(label: str) -> bool:
    """True if ``label`` has Chinese outside parentheses (a name in parentheses after the English is the course's
    way of writing a term)."""
    return bool(CJK.search(_IN_PARENTHESES.sub("", label)))


#: English pages of each kind: a lesson, an instructor guide, the cheat sheet, the launch page, the search page.
EN_PAGES = (
    "notebooks/en/03_gates.html",
    "docs/instructor/en/03_gates.html",
    "docs/cheatsheet_en.html",
    "launch/en.html",
    "search.html?q=pipeline",
)


def test_an_english_pages_labels_are_english(site: Path, served: str) -> None:
    found = in_browser(lambda browser: labels_on_pages(browser, served, EN_PAGES, _EN_LABELS))
    assert all(found.values()) and len(found) == len(EN_PAGES)
    chinese = {path: sorted({label for _, label in labels if _chinese(label)}) for path, labels in found.items()}
    chinese = {path: labels for path, labels in chinese.items() if labels}
    assert not chinese, chinese
    # the navigation's captions are there, in English: the proof the reading saw them
    every = {label for labels in found.values() for _, label in labels}
    for caption in ("Chinese course", "English course", "Instructor guide", "Reference"):
        assert caption in every, caption
