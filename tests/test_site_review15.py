"""What a review of the course website in a real browser found (Chromium, 1280 px, a 390 px phone, http:// and
file://), held here so it stays fixed:

* a Chinese learner's search runs on a Chinese search page: its words, Sphinx's messages (searching, found n
  pages, no page found) and its title in Chinese, and results in the page's language first (a Chinese query such
  as 显存 also matches the English lessons, which were mixed in); the English page likewise, with a no-result
  message that no longer asks the reader to select "enough categories" (the site has none);
* a result's snippet is lesson text: not the page's buttons and contents list (跟随系统 浅色 深色 目录), not a
  formula's TeX source (KaTeX's MathML copy, ``m\\,t``); opened from disk, the search shows no snippets instead of
  two console errors per result;
* the search box's magnifier no longer covers the first characters typed (every page's Ctrl+K box, the search
  page's box);
* the language switch is also among the article header's buttons, which stay at the top of the window, and opens
  the other language's page at the section being read;
* a first visit logs nothing to the console: no "invalid theme mode" from the theme, no missing favicon.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import pytest

from tests.site_build import in_browser, served, site

__all__ = ["served", "site"]

LANGS = ("zh", "en")
CHINESE = re.compile(r"[\u4e00-\u9fff]")
#: Words of the theme a Chinese page must not show (the search page's English words, by what a reader sees).
ENGLISH_SEARCH_WORDS = ("Search", "Searching", "Preparing", "matching", "categories", "activate JavaScript")


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def _language(path: str) -> str | None:
    """A page's language from its path (a ``zh``/``en`` folder or a ``_zh``/``_en`` name), None for a bilingual page."""
    parts = path.split("/")
    found = [part for part in parts if part in LANGS]
    if found:
        return found[-1]
    stem = parts[-1].rsplit(".", 1)[0]
    suffix = stem.rsplit("_", 1)[-1]
    return suffix if suffix in LANGS else None


def _counterpart(rel: str, lang: str) -> str:
    """The same page in the other language: its last language segment (``zh/``, ``zh.html``) or suffix swapped."""
    swap = "en" if lang == "zh" else "zh"
    parts = rel[: -len(".html")].split("/")
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] == lang:
            parts[index] = swap
            return "/".join(parts) + ".html"
    return re.sub(rf"_{lang}$", f"_{swap}", "/".join(parts)) + ".html"


def _html_lang(text: str) -> str:
    match = re.search(r'<html[^>]*\blang="([^"]+)"', text)
    assert match, "a page without <html lang>"
    return match.group(1)


def _sphinx_messages(site: Path) -> list[str]:
    """The messages Sphinx's search script shows, read from the script the site serves (its gettext keys)."""
    script = (site / "_static" / "searchtools.js").read_text(encoding="utf-8")
    keys = re.findall(r'(?:_|gettext)\(\s*"((?:[^"\\]|\\.)*)"', script)
    keys += re.findall(r'ngettext\(\s*"((?:[^"\\]|\\.)*)"', script)
    return sorted({key.replace("\\'", "'") for key in keys})


# -- file level ------------------------------------------------------------------------------------


def test_each_page_searches_in_its_own_language(site: Path) -> None:
    """A Chinese page's search box submits to the Chinese search page; every other page's to the English one."""
    checked = {"zh": 0, "en": 0}
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        actions = re.findall(r'<form class="bd-search[^"]*"\s+action="([^"]*)"', text)
        assert actions, f"{page.relative_to(site)}: no search box"
        wanted = "search-zh.html" if _html_lang(text).startswith("zh") else "search.html"
        for action in actions:
            if action == "#":  # a search page's own box
                assert page.name.startswith("search"), page
                continue
            assert action.rsplit("/", 1)[-1] == wanted, (page.relative_to(site), action)
            assert (page.parent / action).resolve() == (site / wanted).resolve()
        checked["zh" if wanted == "search-zh.html" else "en"] += 1
    assert checked["zh"] >= 20 and checked["en"] >= 20, checked


def test_the_chinese_search_page_says_everything_in_chinese(site: Path) -> None:
    text = (site / "search-zh.html").read_text(encoding="utf-8")
    assert _html_lang(text) == "zh-CN"
    title = re.search(r"<title>(.*?)</title>", text, re.S)
    assert title and CHINESE.search(title.group(1)), title
    assert re.search(r"<h1>[^<]*[\u4e00-\u9fff][^<]*</h1>", text)
    catalog = re.search(r"Documentation\.addTranslations\((\{.*?\})\);</script>", text, re.S)
    assert catalog, "no Chinese messages for Sphinx's search"
    messages = json.loads(catalog.group(1).replace("<\\/", "</"))["messages"]
    for key in _sphinx_messages(site):
        if key.strip(" ,") in ("", "in"):  # ", in ": an object's page, which this site has none of
            continue
        said = messages.get(key)
        assert said, f"Sphinx's message {key!r} is not given in Chinese"
        for form in [said] if isinstance(said, str) else said:
            assert CHINESE.search(form), (key, form)
    # the page's visible words: none of the theme's English ones
    visible = re.sub(r"<(script|style|svg)\b.*?</\1>|<[^>]+>", " ", text, flags=re.S)
    for word in ENGLISH_SEARCH_WORDS:
        assert not re.search(rf"\b{word}\b", visible), word


def test_the_english_no_result_message_asks_for_nothing_the_site_lacks(site: Path) -> None:
    text = (site / "search.html").read_text(encoding="utf-8")
    assert _html_lang(text) == "en"
    catalog = re.search(r"Documentation\.addTranslations\((\{.*?\})\);</script>", text, re.S)
    assert catalog
    messages = json.loads(catalog.group(1).replace("<\\/", "</"))["messages"]
    (no_match,) = [key for key in _sphinx_messages(site) if key.startswith("Your search did not match")]
    assert "categories" not in messages[no_match] and not CHINESE.search(messages[no_match])


def test_the_search_pages_load_the_course_search_script_before_sphinxs(site: Path) -> None:
    """The course's Scorer (language first) must exist before searchtools.js, which defines its own otherwise."""
    for name in ("search.html", "search-zh.html"):
        text = (site / name).read_text(encoding="utf-8")
        ours, sphinx = text.find("_static/coursekit-search.js"), text.find("_static/searchtools.js")
        assert 0 < ours < sphinx, name
        assert (site / "_static" / "coursekit-search.js").exists()


def test_every_page_names_its_icon(site: Path) -> None:
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        icon = re.search(r'<link rel="icon" href="([^"]+)"', text)
        assert icon, f"{page.relative_to(site)}: no icon (the browser asks for /favicon.ico: a 404)"
        assert (page.parent / icon.group(1)).resolve().is_file()


def test_every_twin_page_has_the_switch_among_the_header_buttons(site: Path) -> None:
    count = 0
    for page in _pages(site):
        rel = page.relative_to(site).as_posix()
        lang = _language(rel)
        if lang is None or page.name.startswith("search"):
            continue
        other = _counterpart(rel, lang)
        if not (site / other).exists():
            continue
        text = page.read_text(encoding="utf-8")
        header = text.split('<div class="article-header-buttons">', 1)
        assert len(header) == 2, rel
        link = re.match(r'<a data-ck-same-sections="" class="[^"]*ck-lang-header[^"]*" href="([^"]+)"', header[1])
        assert link, f"{rel}: no language switch among the header's buttons"
        assert (page.parent / link.group(1)).resolve() == (site / other).resolve(), rel
        count += 1
    assert count >= 40, count


# -- in the browser --------------------------------------------------------------------------------

_RESULTS = """() => {
  const summary = document.querySelector('#search-results .search-summary');
  return {
    summary: summary ? summary.innerText : null,
    links: [...document.querySelectorAll('#search-results ul.search li > a')].map((a) => a.getAttribute('href')),
    snippets: [...document.querySelectorAll('#search-results ul.search li p.context')].map((p) => p.innerText),
  };
}"""
_FINISHED = "() => /\\d|\\S{8,}/.test(document.querySelector('#search-results .search-summary')?.innerText || '')"


def _wait_results(page: Any) -> dict[str, Any]:
    page.wait_for_function(_FINISHED, timeout=60_000)
    # snippets arrive one by one after the count (each is fetched): wait until every result has its own
    page.wait_for_function(
        "() => { const items = document.querySelectorAll('#search-results ul.search li');"
        " return [...items].every((li) => li.querySelector('p.context')); }",
        timeout=60_000,
    )
    result: dict[str, Any] = page.evaluate(_RESULTS)
    return result


def _first_other_language(links: list[str], lang: str) -> int:
    languages = [_language(urlsplit(link).path) for link in links]
    others = [i for i, found in enumerate(languages) if found not in (None, lang)]
    return others[0] if others else len(links)


def test_a_chinese_learner_searches_in_chinese(served: str) -> None:
    """From a Chinese lesson, Ctrl+K and a query land on the Chinese search page: Chinese count, Chinese results
    before English ones, the lesson before its instructor guide, snippets of lesson text; no result: a Chinese
    message."""

    def run(browser: Any) -> dict[str, Any]:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        found: dict[str, Any] = {}
        page.goto(f"{served}/notebooks/zh/01_capacity.html", wait_until="load")
        page.keyboard.press("Control+k")
        page.keyboard.type("显存")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        found["url"] = page.url
        found["memory"] = _wait_results(page)
        found["lang"] = page.evaluate("document.documentElement.lang")
        for query in ("流水线气泡", "ZeRO-3", "张量并行"):
            page.goto(f"{served}/search-zh.html?q={quote(query)}", wait_until="load")
            found[query] = _wait_results(page)
        page.goto(f"{served}/search-zh.html?q={quote('xyzzyqq')}", wait_until="load")
        page.wait_for_function(_FINISHED, timeout=60_000)
        found["none"] = page.evaluate(_RESULTS)
        found["visible"] = page.evaluate("document.body.innerText")
        page.close()
        return found

    found = in_browser(run)
    assert urlsplit(found["url"]).path.endswith("/search-zh.html") and found["lang"] == "zh-CN"
    for query in ("memory", "流水线气泡", "ZeRO-3", "张量并行"):
        result = found[query]
        assert CHINESE.search(result["summary"]) and "Search" not in result["summary"], result["summary"]
        links = result["links"]
        assert links, query
        languages = [_language(urlsplit(link).path) for link in links]
        first_english = _first_other_language(links, "zh")
        assert "zh" not in languages[first_english:], (query, links)  # every Chinese page before any English one
        for snippet in result["snippets"]:
            assert "\\" not in snippet, (query, snippet)  # no TeX source of a formula
            assert ".join(" not in snippet and "display(" not in snippet, (query, snippet)  # nor a code cell's source
            for chrome in ("跟随系统", "浅色", "深色", "Ctrl"):  # the page's colour-mode menu and search button
                assert chrome not in snippet, (query, chrome, snippet)
        # the home page (it lists every title, so it matches most queries) after every Chinese page
        paths = [urlsplit(link).path for link in links]
        if "index.html" in paths:
            assert "zh" not in languages[paths.index("index.html") :], (query, paths)
    # a learner's query for a strategy opens a lesson first (the home page came first)
    assert urlsplit(found["张量并行"]["links"][0]).path.startswith("notebooks/zh/"), found["张量并行"]["links"][:3]
    bubble = [urlsplit(link).path for link in found["流水线气泡"]["links"]]
    lesson = bubble.index("notebooks/zh/06_pipeline_scaling.html")
    guide = bubble.index("docs/instructor/zh/06_pipeline_scaling.html")
    assert lesson < guide, bubble
    assert any(urlsplit(link).fragment for link in found["流水线气泡"]["links"]), "no section of a lesson found"
    none = found["none"]
    assert none["links"] == [] and CHINESE.search(none["summary"]), none
    assert not re.search(r"[A-Za-z]{4,}", none["summary"].replace("all-reduce", "")), none["summary"]
    for word in ENGLISH_SEARCH_WORDS:
        assert not re.search(rf"\b{word}\b", found["visible"]), word


def test_an_english_reader_gets_english_pages_first(served: str) -> None:
    def run(browser: Any) -> dict[str, Any]:
        page = browser.new_page()
        found: dict[str, Any] = {}
        page.goto(f"{served}/notebooks/en/06_pipeline_scaling.html", wait_until="load")
        page.keyboard.press("Control+k")
        page.keyboard.type("bubble")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        found["url"] = page.url
        found["bubble"] = _wait_results(page)
        page.goto(f"{served}/search.html?q={quote('ZeRO-3')}", wait_until="load")
        found["zero"] = _wait_results(page)
        page.goto(f"{served}/search.html?q={quote('xyzzyqq')}", wait_until="load")
        page.wait_for_function(_FINISHED, timeout=60_000)
        found["none"] = page.evaluate(_RESULTS)
        page.close()
        return found

    found = in_browser(run)
    assert urlsplit(found["url"]).path.endswith("/search.html")
    for query in ("bubble", "zero"):
        links = found[query]["links"]
        languages = [_language(urlsplit(link).path) for link in links]
        assert "zh" in languages, f"{query}: the premise (Chinese pages match too) does not hold"
        assert "en" not in languages[_first_other_language(links, "en") :], links
        assert not CHINESE.search(found[query]["summary"])
        paths = [urlsplit(link).path for link in links]
        assert urlsplit(links[0]).path.startswith("notebooks/en/"), links[:3]  # a lesson first
        if "index.html" in paths:
            assert "en" not in languages[paths.index("index.html") :], (query, paths)
    assert found["none"]["links"] == [] and "categories" not in found["none"]["summary"]


def test_search_from_disk_shows_results_without_console_errors(site: Path) -> None:
    def run(browser: Any) -> dict[str, Any]:
        page = browser.new_page()
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(f"{(site / 'search-zh.html').as_uri()}?q={quote('显存')}", wait_until="load")
        page.wait_for_function(_FINISHED, timeout=60_000)
        page.wait_for_timeout(500)  # a snippet's fetch would fail after the count shows
        found = page.evaluate(_RESULTS)
        found["errors"] = errors
        page.close()
        return found

    found = in_browser(run)
    assert found["links"] and CHINESE.search(found["summary"]), found
    assert found["errors"] == [], found["errors"][:3]


_BOXES = """() => [...document.querySelectorAll('form.bd-search')].filter((form) => form.offsetParent !== null)
  .map((form) => {
    const icon = form.querySelector('.fa-magnifying-glass');
    const input = form.querySelector('input');
    const style = getComputedStyle(input);
    return {
      icon: icon.getBoundingClientRect().right,
      text: input.getBoundingClientRect().left + parseFloat(style.paddingLeft) + parseFloat(style.borderLeftWidth),
    };
  })"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_magnifier_leaves_the_typed_text_clear(served: str, width: int) -> None:
    def run(browser: Any) -> dict[str, list[dict[str, float]]]:
        page = browser.new_page(viewport={"width": width, "height": 844})
        found = {}
        for path in ("notebooks/zh/01_capacity.html", "notebooks/en/01_capacity.html", "index.html"):
            page.goto(f"{served}/{path}", wait_until="load")
            page.keyboard.press("Control+k")
            page.wait_for_function("() => document.getElementById('pst-search-dialog').open")
            found[path] = page.evaluate(_BOXES)
        for path in ("search.html", "search-zh.html"):
            page.goto(f"{served}/{path}", wait_until="load")
            found[path] = page.evaluate(_BOXES)
        page.close()
        return found

    found = in_browser(run)
    for path, boxes in found.items():
        assert boxes, f"{path}: no search box shown"
        for box in boxes:
            assert box["icon"] <= box["text"], (path, box)


def _twin_lessons(site: Path) -> list[str]:
    return sorted(
        p.name
        for p in (site / "notebooks" / "zh").glob("[0-9][0-9]_*.html")
        if (site / "notebooks" / "en" / p.name).exists()
    )


def test_the_language_switch_opens_the_section_being_read(site: Path, served: str) -> None:
    """On every lesson in both languages: scrolled to a section in the middle of the page, a click on the header's
    switch (a real mouse click where it shows) opens the other language's lesson at that section."""
    lessons = _twin_lessons(site)
    assert len(lessons) >= 10

    def run(browser: Any) -> list[dict[str, Any]]:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        found = []
        for name in lessons:
            for lang in LANGS:
                page.goto(f"{served}/notebooks/{lang}/{name}", wait_until="load")
                # a section from the middle of the page on, scrolled to just below the header, whose next heading
                # is beyond the window's top third: the one being read, without doubt
                chosen = page.evaluate(
                    """() => {
                      const article = document.querySelector('article.bd-article');
                      const headings = [...article.querySelectorAll('section[id] > h2, section[id] > h3')];
                      const sections = [...article.querySelectorAll('section[id]')]
                        .filter((s) => s.querySelector(':scope > h2'));
                      for (const section of sections.slice(Math.floor(sections.length / 2))) {
                        const heading = section.querySelector(':scope > h2');
                        window.scrollTo(0, heading.getBoundingClientRect().top + window.scrollY - 80);
                        const next = headings[headings.indexOf(heading) + 1];
                        if (!next || next.getBoundingClientRect().top > window.innerHeight / 3 + 50)
                          return {id: section.id, title: heading.textContent};
                      }
                      return null;
                    }"""
                )
                assert chosen, (name, lang)
                page.wait_for_timeout(100)
                box = page.locator("a.ck-lang-header").bounding_box()
                assert box is not None and 0 <= box["y"] < 100, (name, lang, box)  # it shows at the top
                with page.expect_navigation():
                    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                page.wait_for_load_state("load")
                landed = page.evaluate(
                    """() => {
                      const id = decodeURIComponent(location.hash.slice(1));
                      const section = id && document.getElementById(id);
                      return {lang: document.documentElement.lang, id,
                              heading: section ? section.querySelector('h1, h2, h3').textContent : null};
                    }"""
                )
                found.append({"name": name, "from": lang, "url": page.url, "chosen": chosen, "landed": landed})
        context.close()
        return found

    for hop in in_browser(run):
        other = "en" if hop["from"] == "zh" else "zh"
        path = unquote(urlsplit(hop["url"]).path)
        assert path.endswith(f"/notebooks/{other}/{hop['name']}"), hop
        assert hop["landed"]["lang"].startswith(other), hop
        assert hop["landed"]["id"] == hop["chosen"]["id"] and hop["landed"]["heading"], hop


def test_a_first_visit_logs_nothing_to_the_console(site: Path, served: str) -> None:
    """Over http and from disk, a fresh browser (no stored colour mode) opening the home page, a lesson in each
    language and the search pages logs no error or warning and fails no request (the favicon included)."""
    paths = ["index.html", "notebooks/zh/06_pipeline_scaling.html", "notebooks/en/06_pipeline_scaling.html"]
    paths += [f"search-zh.html?q={quote('气泡')}", "search.html?q=bubble"]

    def run(browser: Any) -> dict[str, list[str]]:
        found = {}
        for base in (served, site.as_uri()):
            for path in paths:
                context = browser.new_context()
                page = context.new_page()
                logged: list[str] = []
                page.on("console", lambda m, out=logged: out.append(m.text) if m.type in ("error", "warning") else None)
                page.on("pageerror", lambda error, out=logged: out.append(str(error)))
                page.on("requestfailed", lambda request, out=logged: out.append(f"failed {request.url}"))
                page.goto(f"{base}/{path}", wait_until="load")
                page.wait_for_timeout(800)
                found[f"{base.split(':')[0]} {path}"] = logged
                context.close()
        return found

    found = in_browser(run)
    assert len(found) == 2 * len(paths)
    noisy = {page: logged for page, logged in found.items() if logged}
    assert not noisy, noisy


# -- the cheat sheet, printed from the website -----------------------------------------------------


def _cheatsheets(site: Path) -> list[Path]:
    pages = sorted((site / "docs").glob("cheatsheet_*.html"))
    assert {p.stem for p in pages} == {"cheatsheet_zh", "cheatsheet_en"}
    return pages


def test_the_cheat_sheet_pages_print_with_the_sheets_own_stylesheet(site: Path) -> None:
    sheet = (Path(__file__).resolve().parents[1] / "docs" / "cheatsheet-print.css").read_bytes()
    for page in _cheatsheets(site):
        text = page.read_text(encoding="utf-8")
        links = re.findall(r'<link rel="stylesheet" media="print" href="([^"]+)" />', text)
        served = [(page.parent / link).resolve() for link in links]
        assert any(path.read_bytes() == sheet for path in served), (page.name, links)
    # and no other page prints with it
    for page in _pages(site):
        if page not in _cheatsheets(site):
            assert "cheatsheet-print.css" not in page.read_text(encoding="utf-8"), page


def test_the_cheat_sheet_prints_on_one_a4_page_from_the_website(site: Path, served: str) -> None:
    """Its title says "one page; print at A4" (一页，A4 打印): printed from the site (as Ctrl+P does), each language's
    sheet is one A4 page with its title and every section, and without the theme's printed contents list."""
    import cheatsheet_pdf

    pages = [p.relative_to(site).as_posix() for p in _cheatsheets(site)]

    def run(browser: Any) -> dict[str, Any]:
        found = {}
        page = browser.new_page()
        for path in pages:
            page.goto(f"{served}/{path}", wait_until="load")
            page.emulate_media(media="print")
            shown = page.evaluate(
                """() => ({
                  title: [...document.querySelectorAll('h1')].some((h) => h.offsetParent && h.innerText.trim()),
                  sections: [...document.querySelectorAll('article h2')].filter((h) => h.offsetParent !== null).length,
                  contents: [...document.querySelectorAll('#jb-print-toc')].some((t) => t.offsetParent !== null),
                })"""
            )
            pdf = page.pdf(format="A4", prefer_css_page_size=True)
            found[path] = {**shown, "pages": cheatsheet_pdf.pdf_page_count(pdf)}
        page.close()
        return found

    found = in_browser(run)
    for path, printed in found.items():
        source = (Path(__file__).resolve().parents[1] / "docs" / Path(path).with_suffix(".md").name).read_text("utf-8")
        sections = len(re.findall(r"^## ", source, flags=re.M))
        assert printed == {"title": True, "sections": sections, "contents": False, "pages": 1}, (path, printed)


#: English words of the theme's frame (header, footer, buttons) that a Chinese page must not show; written here by
#: what a reader of the built pages saw, not taken from the site's translation table.
THEME_ENGLISH = ("Copyright", "Contents", "Search", "Download", "Print to PDF", "Skip to main content", "Back to top")
THEME_ENGLISH += ("previous", "next", "By coursekit authors", "Toggle", "Color mode", "Light", "Dark")


def test_no_chinese_page_shows_the_themes_english(site: Path, served: str) -> None:
    """Every Chinese page (lessons, guide, capstone, cheat sheet, launch page, search page), its visible text outside
    code and outside the navigation's list of English lessons: none of the theme's English words (the footer's
    copyright line was English on every one)."""
    pages = [p.relative_to(site).as_posix() for p in _pages(site) if _html_lang(p.read_text("utf-8")).startswith("zh")]
    assert len(pages) >= 25

    def run(browser: Any) -> dict[str, list[str]]:
        page = browser.new_page()
        found = {}
        for path in pages:
            page.goto(f"{served}/{path}", wait_until="load")
            text = page.evaluate(
                """() => {
                  const body = document.body.cloneNode(true);
                  body.querySelectorAll('pre, code, script, style, .katex-mathml, nav.bd-links, [lang="en"]')
                    .forEach((e) => e.remove());
                  return body.innerText;
                }"""
            )
            found[path] = [word for word in THEME_ENGLISH if re.search(rf"\b{word}\b", text)]
        page.close()
        return found

    found = in_browser(run)
    english = {path: words for path, words in found.items() if words}
    assert not english, english


# -- the searched words, highlighted where the learner lands ---------------------------------------


def test_only_the_search_pages_load_sphinxs_search_script(site: Path) -> None:
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        loads = bool(re.search(r'<script src="[^"]*_static/searchtools\.js', text))
        assert loads == page.name.startswith("search"), page.relative_to(site)


@pytest.mark.parametrize(
    ("search", "query", "lesson"), [("search-zh.html", "流水线气泡", "zh"), ("search.html", "bubble", "en")]
)
def test_the_searched_words_are_highlighted_where_the_learner_lands(
    served: str, search: str, query: str, lesson: str
) -> None:
    def run(browser: Any) -> dict[str, Any]:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{served}/{search}?q={quote(query)}", wait_until="load")
        _wait_results(page)
        target = f"notebooks/{lesson}/06_pipeline_scaling.html"
        with page.expect_navigation():
            page.click(f"#search-results ul.search li > a[href='{target}']")
        page.wait_for_function("() => document.querySelector('article .highlighted')", timeout=10_000)
        found: dict[str, Any] = {
            "url": page.url,
            "words": page.evaluate("[...document.querySelectorAll('article .highlighted')].map((e) => e.textContent)"),
        }
        page.keyboard.press("Escape")  # Sphinx's shortcut to hide them
        found["after escape"] = page.evaluate("document.querySelectorAll('.highlighted').length")
        page.close()
        return found

    found = in_browser(run)
    assert urlsplit(found["url"]).path.endswith(f"/notebooks/{lesson}/06_pipeline_scaling.html")
    words = {word.lower() for word in found["words"]}
    assert words and words <= ({"流水线", "气泡"} if lesson == "zh" else {"bubble"}), words
    assert found["after escape"] == 0


# -- links named by file names ---------------------------------------------------------------------


def test_no_link_on_the_site_is_named_by_a_markdown_file_name(site: Path) -> None:
    """The instructor guide's contents listed its pages as 00_index.md, 01_capacity.md ... (and the cheat sheet and
    capstone as cheatsheet_zh.md ...): on the site each such link shows the title of the page it opens."""
    guides = [site / "docs" / "instructor" / lang / "README.html" for lang in LANGS]
    checked = 0
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        for href, inner in re.findall(
            r'<a class="reference internal" href="([^"#]+\.html)[^"]*">(.*?)</a>', text, re.S
        ):
            label = re.sub(r"<[^>]+>", "", inner).strip()
            assert not re.fullmatch(r"[\w.-]+\.md", label), (page.relative_to(site), label)
            if page in guides and re.fullmatch(r"\d\d_[a-z0-9_]+\.html", href):
                target = (page.parent / href).read_text(encoding="utf-8")
                title = re.search(r"<h1>([^<]*)<a class=\"headerlink\"", target)
                assert title and label == re.sub(r"<[^>]+>", "", title.group(1)).strip(), (page.name, href, label)
                checked += 1
    assert checked >= 2 * 10, checked


# -- Chinese text on pages that are not Chinese ----------------------------------------------------

HAN_TEXT = {  # a page that is not Chinese, and an element of it whose text is Chinese
    "index.html": "article li a[href^='notebooks/zh/']",
    "notebooks/en/01_capacity.html": "nav.bd-links a[href*='/zh/']",
    "docs/GLOSSARY.html": "dl.ck-term dt",
}


def _han_fonts(page: Any, cdp: Any, selector: str) -> list[str]:
    """The fonts Chromium draws Chinese text with inside an element (DevTools' platform fonts of a probe of Chinese
    characters put into it, so that it takes the element's style and language)."""
    page.evaluate(
        """(selector) => { const probe = document.createElement('span'); probe.id = 'ck-han-probe';
          probe.textContent = '课程导引'; document.querySelector(selector).appendChild(probe); }""",
        selector,
    )
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    probe = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "#ck-han-probe"})["nodeId"]
    assert probe, selector
    return sorted({font["familyName"] for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": probe})["fonts"]})


def test_chinese_text_on_other_pages_is_drawn_like_the_chinese_pages(served: str) -> None:
    """Chinese lesson titles in an English page's navigation, on the (bilingual) home page and the glossary's terms are
    drawn in the font the Chinese pages use for Chinese, not in whatever CJK font the system falls back to under
    <html lang="en"> (here another typeface; on a system listing a Japanese font first, Japanese glyph forms)."""

    def run(browser: Any) -> dict[str, list[str]]:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        cdp = page.context.new_cdp_session(page)
        found = {}
        page.goto(f"{served}/notebooks/zh/01_capacity.html", wait_until="load")
        found["chinese page"] = _han_fonts(page, cdp, "article h1")
        for path, selector in HAN_TEXT.items():
            page.goto(f"{served}/{path}", wait_until="load")
            found[path] = _han_fonts(page, cdp, selector)
        page.close()
        return found

    found = in_browser(run)
    chinese = found.pop("chinese page")
    assert len(chinese) == 1, chinese
    for path, fonts in found.items():
        assert fonts == chinese, (path, fonts, chinese)


@pytest.mark.parametrize(("search", "query"), [("search-zh.html", "流水线气泡"), ("search.html", "bubble")])
def test_search_results_fit_a_phone(served: str, search: str, query: str) -> None:
    """A result's snippet may hold a long identifier (a notebook's path in an instructor page): on a 390 px phone it
    wraps, and the results page is no wider than the screen."""

    def run(browser: Any) -> dict[str, Any]:
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
        page = context.new_page()
        page.goto(f"{served}/{search}?q={quote(query)}", wait_until="load")
        results = _wait_results(page)
        width = page.evaluate("document.documentElement.scrollWidth")
        context.close()
        return {"results": len(results["links"]), "width": width}

    found = in_browser(run)
    assert found["results"] > 5 and found["width"] <= 390, found
