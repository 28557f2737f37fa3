"""The course website (`make site`): built once here, offline, with every lesson executed.

Checks what a reader gets: every lesson page in both languages, figures as images (a widget's
initial figure as a static PNG with its control values beside it), no traceback, folded solutions
and answers, a language switch to the same lesson, launch buttons for the repository named in
pyproject.toml, a glossary with an anchor per term, internal links that resolve, a search index
that knows Chinese words, a print stylesheet; and, in a real browser, that the language switch
lands on the same lesson.
"""

from __future__ import annotations

import base64
import functools
import html as html_module
import json
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "site"))

import build_site  # noqa: E402
import jupyter_browser  # noqa: E402

from tests.site_build import in_browser, served, site  # noqa: E402  (one build per session, shared with the browser tests)

__all__ = ["served", "site"]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytest.importorskip("myst_nb", reason="the site extra is not installed (pip install -e '.[site]')")

IN_CI = os.environ.get("CI", "").lower() in ("true", "1")
LANGS = ("zh", "en")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _notebooks(lang: str) -> list[Path]:
    return sorted(p for p in (ROOT / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb") if ".mine" not in p.name)


def _cells(path: Path) -> list[dict[str, Any]]:
    cells: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return cells


def _tagged(path: Path, cell_type: str, tag: str) -> int:
    return sum(1 for c in _cells(path) if c["cell_type"] == cell_type and tag in c["metadata"].get("tags", []))


def _repository() -> str:
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    prefix = "https://github.com/"
    assert urls["Repository"].startswith(prefix)
    return str(urls["Repository"][len(prefix) :].strip("/"))


class _Page(HTMLParser):
    """Links, ids, images and a few classes of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.images: list[str] = []
        self.lang_links: list[str] = []
        self.launch: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "name" in a:
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if key in a and tag in ("a", "img", "link", "script"):
                self.links.append(a[key])
        if tag == "img":
            self.images.append(a.get("src", ""))
        classes = a.get("class", "").split()
        if tag == "a" and "ck-lang" in classes:
            self.lang_links.append(a["href"])
        for kind in ("ck-binder", "ck-colab", "ck-modelscope"):
            if tag == "a" and kind in classes:
                self.launch[kind] = a["href"]


@functools.cache
def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_home_page_lists_every_lesson(site: Path) -> None:
    page = _parse(site / "index.html")
    for lang in LANGS:
        for notebook in _notebooks(lang):
            assert f"notebooks/{lang}/{notebook.stem}.html" in page.links


@pytest.mark.parametrize("lang", LANGS)
def test_every_lesson_page_exists_without_traceback(site: Path, lang: str) -> None:
    assert _notebooks(lang), "no lesson notebooks found"
    for notebook in _notebooks(lang):
        html = (site / "notebooks" / lang / f"{notebook.stem}.html").read_text(encoding="utf-8")
        assert "Traceback (most recent call last)" not in html, notebook.name
        assert "output traceback" not in html and "ansi-red-fg" not in html, notebook.name
        assert "Loading widget" not in html and "widget-view+json" not in html, notebook.name
        assert not re.search(r"<p>\|[^<]*\|", html), f"{notebook.name}: a Markdown table left as text"


def test_zh_and_en_pages_have_the_same_figures(site: Path) -> None:
    """Code is written once, so both languages draw the same number of figures."""
    for zh in _notebooks("zh"):
        counts = [len(_parse(site / "notebooks" / lang / f"{zh.stem}.html").images) for lang in LANGS]
        assert counts[0] == counts[1], zh.name


def test_widget_figures_are_static_images_with_their_control_values(site: Path) -> None:
    pages_with_widgets = 0
    for lang in LANGS:
        for notebook in _notebooks(lang):
            uses_widget = any(
                re.search(r"\b\w+Widget\(", "".join(c["source"])) for c in _cells(notebook) if c["cell_type"] == "code"
            )
            html = (site / "notebooks" / lang / f"{notebook.stem}.html").read_text(encoding="utf-8")
            blocks = re.findall(r'<div class="ck-static">(.*?<img class="ck-static-figure"[^>]*>)', html, flags=re.S)
            assert bool(blocks) == uses_widget, notebook.name
            pages_with_widgets += bool(blocks)
            for block in blocks:
                controls = re.findall(r"<li>(.+?): <b>(.*?)</b></li>", block)
                assert controls and all(value for _, value in controls), notebook.name
                (data,) = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', block)
                assert base64.b64decode(data).startswith(PNG_MAGIC), notebook.name
    assert pages_with_widgets >= 2


def test_zh_widget_states_its_controls_in_chinese(site: Path) -> None:
    for notebook in _notebooks("zh"):
        html = (site / "notebooks" / "zh" / f"{notebook.stem}.html").read_text(encoding="utf-8")
        for note in re.findall(r'<p class="ck-static-note">(.*?)</p>', html):
            assert re.search(r"[\u4e00-\u9fff]", note), notebook.name


def test_solutions_and_answers_are_folded(site: Path) -> None:
    total = 0
    for lang in LANGS:
        for notebook in _notebooks(lang):
            html = (site / "notebooks" / lang / f"{notebook.stem}.html").read_text(encoding="utf-8")
            solutions = _tagged(notebook, "code", "solution")
            folded = re.findall(r'class="cell tag_solution tag_hide-cell[^"]*">\s*<details class="[^"]*hide', html)
            assert len(folded) == solutions, notebook.name
            assert html.count('<details class="ck-answer">') == _tagged(notebook, "markdown", "answer"), notebook.name
            total += solutions
    assert total > 0


def test_the_colab_install_cell_is_removed_from_the_pages() -> None:
    # It does something only on Colab, which the page's Colab button opens from the repository.
    for lang in LANGS:
        notebook = json.loads(_notebooks(lang)[0].read_text(encoding="utf-8"))
        staged = build_site.stage_notebook(notebook, lang)
        colab = [c for c in staged["cells"] if "colab-install" in c["metadata"].get("tags", [])]
        assert len(colab) == 1 and "remove-cell" in colab[0]["metadata"]["tags"]
        assert sum("remove-cell" in c["metadata"].get("tags", []) for c in staged["cells"]) == 1


def test_language_switch_goes_to_the_same_lesson(site: Path) -> None:
    for lang, other in (("zh", "en"), ("en", "zh")):
        for notebook in _notebooks(lang):
            page = site / "notebooks" / lang / f"{notebook.stem}.html"
            # the bar's switch and its copy among the header's buttons (tools/site/finish.py) go to one page
            (target,) = set(_parse(page).lang_links)
            expected = (
                f"{notebook.stem}.html" if (ROOT / "notebooks" / other / notebook.name).exists() else "00_index.html"
            )
            assert (page.parent / target).resolve() == (site / "notebooks" / other / expected).resolve()


def test_launch_buttons_open_this_notebook_of_the_configured_repository(site: Path) -> None:
    repo = _repository()
    for lang in LANGS:
        for notebook in _notebooks(lang):
            page = site / "notebooks" / lang / f"{notebook.stem}.html"
            launch = _parse(page).launch
            path = f"notebooks/{lang}/{notebook.name}"
            assert launch["ck-binder"] == f"https://mybinder.org/v2/gh/{repo}/main?urlpath=lab/tree/{path}"
            assert launch["ck-colab"] == f"https://colab.research.google.com/github/{repo}/blob/main/{path}"
            how_to = urlsplit(launch["ck-modelscope"])
            target = (page.parent / how_to.path).resolve()
            assert target == (site / "launch" / f"{lang}.html").resolve()
            assert how_to.fragment in _parse(target).ids
    for lang in LANGS:  # the how-to pages carry the README's steps
        text = re.sub(r"<[^>]+>", "", (site / "launch" / f"{lang}.html").read_text(encoding="utf-8"))
        assert f"git clone https://github.com/{repo}.git coursekit" in text
        assert "pip install -e ." in text


def test_prev_next_stay_in_one_language(site: Path) -> None:
    for lang in LANGS:
        other = "en" if lang == "zh" else "zh"
        for notebook in _notebooks(lang):
            html = (site / "notebooks" / lang / f"{notebook.stem}.html").read_text(encoding="utf-8")
            nav = re.search(r'<div class="prev-next-area">(.*?)</div>\s*</footer>', html, flags=re.S)
            if nav:
                assert f"../{other}/" not in nav.group(1), notebook.name


def test_chinese_pages_translate_the_theme_but_not_the_code(site: Path) -> None:
    """The theme's labels of a zh page are put in Chinese (上一页 / 下一页 at the foot), but never inside code:
    lesson 9's cells call Python's ``next(...)`` and name a variable ``previous``, which the translation once
    turned into ``下一页(...)`` and ``上一页`` on the page."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "site"))
    import finish

    labels = set(finish.THEME_ZH.values())
    for notebook in _notebooks("zh"):
        page = (site / "notebooks" / "zh" / f"{notebook.stem}.html").read_text(encoding="utf-8")
        for block in re.findall(r"<pre\b.*?</pre>", page, flags=re.S):
            words = {w for w in re.findall(r">([^<>]+)<", block) if w.strip() in labels}
            assert not words, (notebook.name, sorted(words)[:3])
    lesson9 = (site / "notebooks" / "zh" / "09_workbench.html").read_text(encoding="utf-8")
    assert '<span class="nb">next</span>' in lesson9 and '<p class="prev-next-subtitle">下一页</p>' in lesson9


def test_glossary_has_an_anchor_per_term(site: Path) -> None:
    from coursekit.glossary import GLOSSARY

    ids = _parse(site / "docs" / "GLOSSARY.html").ids
    anchors = {build_site.glossary_anchor(e.en, e.abbr) for e in GLOSSARY}
    assert "dp" in ids and "tp" in ids and "zero" in ids  # by abbreviation
    assert len(anchors & ids) >= len(GLOSSARY) - 3  # a clash falls back to the English name


def test_instructor_guide_pages_exist(site: Path) -> None:
    for page in (ROOT / "docs" / "instructor").rglob("*.md"):
        assert (site / page.relative_to(ROOT).with_suffix(".html")).is_file(), page


def test_internal_links_resolve(site: Path) -> None:
    broken = []
    pages = [p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts]  # theme templates
    assert len(pages) > 2 * len(_notebooks("en"))
    for page in pages:
        parsed = _parse(page)
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "data:", "javascript:", "mailto:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {link}")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parse(target).ids:
                broken.append(f"{page.relative_to(site)} -> {link} (no anchor)")
    assert not broken, "\n".join(broken[:30])


def test_search_index_knows_chinese_and_english_words(site: Path) -> None:
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    terms = json.loads(text[text.index("(") + 1 : text.rindex(")")])["terms"]
    assert "并行" in terms and "带宽" in terms  # Chinese words, segmented
    assert "bandwidth" in terms


def test_print_stylesheet_is_linked(site: Path) -> None:
    html = (site / "notebooks" / "en" / "01_capacity.html").read_text(encoding="utf-8")
    (link,) = re.findall(r"<link[^>]+coursekit-print\.css[^>]*>", html)
    assert 'media="print"' in link
    assert "display: none" in (site / "_static" / "coursekit-print.css").read_text(encoding="utf-8")


# -- in a real browser ----------------------------------------------------------------------------


def test_browser_language_switch_lands_on_the_same_lesson(served: str) -> None:
    lesson = next(p.stem for p in _notebooks("zh") if re.search(r"Widget\(", p.read_text(encoding="utf-8")))

    def switch_language(browser: Any) -> None:
        page = browser.new_page()
        page.goto(f"{served}/notebooks/zh/{lesson}.html")
        assert re.search(r"[\u4e00-\u9fff]", page.locator("h1").first.inner_text())
        page.wait_for_selector("canvas.ck-static-figure[data-frame]", state="attached")  # the live figure drawn
        figure = page.locator("canvas.ck-static-figure").first
        figure.scroll_into_view_if_needed()
        assert figure.evaluate("canvas => canvas.width > 100 && canvas.clientWidth > 100")
        page.locator("nav.ck-bar a.ck-lang").click()
        page.wait_for_url(f"**/notebooks/en/{lesson}.html")
        assert page.locator("nav.ck-bar a.ck-lang").inner_text() == "中文"
        heading = page.locator("h1").first.inner_text()
        assert heading.startswith("Lesson") and not re.search(r"[\u4e00-\u9fff]", heading)

    in_browser(switch_language, timeout_s=300)


# -- language, anchors, emphasis, reader-facing cells ---------------------------------------------


def _html_lang(path: Path) -> str:
    match = re.search(r'<html[^>]*\blang="([^"]+)"', path.read_text(encoding="utf-8"))
    assert match, path
    return match.group(1)


def test_every_single_language_page_declares_its_language(site: Path) -> None:
    checked = 0
    for page in site.rglob("*.html"):
        rel = page.relative_to(site)
        if "_static" in rel.parts:
            continue
        lang = (
            "zh"
            if "zh" in rel.parts or rel.stem.endswith("_zh")
            else "en"
            if "en" in rel.parts or rel.stem.endswith("_en")
            else None
        )
        if lang:
            assert _html_lang(page) == {"zh": "zh-CN", "en": "en"}[lang], rel
            checked += 1
    assert checked >= 4 * len(_notebooks("en"))  # lessons and instructor guides, both languages, and more


def test_chinese_sections_have_meaningful_anchors(site: Path) -> None:
    ids = []
    for page in (site / "notebooks" / "zh").glob("*.html"):
        ids += re.findall(r'<section id="([^"]+)"', page.read_text(encoding="utf-8"))
    assert len(ids) > 50
    numbered = [i for i in ids if re.fullmatch(r"id\d+", i)]
    assert not numbered, f"{len(numbered)} of {len(ids)} zh sections are only numbered"
    # The anchor of a zh section is its English twin's: the language switch can keep the place.
    en = set(
        re.findall(r'<section id="([^"]+)"', (site / "notebooks" / "en" / "04_composition.html").read_text("utf-8"))
    )
    zh = set(
        re.findall(r'<section id="([^"]+)"', (site / "notebooks" / "zh" / "04_composition.html").read_text("utf-8"))
    )
    assert zh == en


def test_no_literal_bold_markers_in_text(site: Path) -> None:
    """CommonMark does not close ** after 。 before a CJK character: such a pair shows as literal ** text."""
    for page in site.rglob("*.html"):
        if "_static" in page.relative_to(site).parts:
            continue
        html = re.sub(r"<(pre|code|script|style)\b.*?</\1>", "", page.read_text(encoding="utf-8"), flags=re.S)
        text = re.sub(r"<[^>]+>", "", html)
        assert "**" not in text, f"{page.relative_to(site)}: {re.findall(r'.{0,30}[*][*].{0,30}', text)[:2]}"


def test_table_only_cells_show_the_table_without_its_code(site: Path) -> None:
    removed = 0
    for notebook in _notebooks("en"):
        html = (site / "notebooks" / "en" / f"{notebook.stem}.html").read_text(encoding="utf-8")
        removed += len(re.findall(r'class="cell tag_remove-input', html))
        assert "rows.append(" not in html, notebook.name  # the table-building plumbing is not on the page
    assert removed > 0


def test_table_only_rule() -> None:
    table = (
        'rows = ["| a |", "| --- |"]\nfor x in [1]:\n    rows.append(f"| {x} |")\ndisplay(Markdown("\\n".join(rows)))'
    )
    assert build_site.table_only(table, later="print(1)")
    assert not build_site.table_only(table, later="print(rows)")  # a later cell reads what it built
    assert not build_site.table_only("x = 1\nprint(x)", later="")
    assert not build_site.table_only("import os\n" + table, later="")


def test_plain_code_tokens_lose_their_spans_and_nothing_else(site: Path) -> None:
    """The theme's Pygments stylesheet paints names (n) and punctuation (p) in the code block's own colour in the
    light (#080808) and the dark (#F8F8F2) mode, and keywords (k), operators (o) and strings (s2) in their own: the
    finished pages drop only the first kind's spans, and every code cell still reads as its source."""
    import finish

    plain = finish.plain_token_classes((site / "_static" / "pygments.css").read_text(encoding="utf-8"))
    assert {"n", "p"} <= plain and not {"k", "o", "s2", "mi"} & plain
    notebook = json.loads((ROOT / "notebooks" / "en" / "09_workbench.ipynb").read_text(encoding="utf-8"))
    page = (site / "notebooks" / "en" / "09_workbench.html").read_text(encoding="utf-8")
    blocks = re.findall(r'<div class="highlight[^"]*"><pre>(.*?)</pre></div>', page, flags=re.S)
    assert blocks and not any('<span class="n">' in block or '<span class="p">' in block for block in blocks)
    assert any('<span class="k">' in block for block in blocks)
    shown = "\n".join(html_module.unescape(re.sub(r"<[^>]+>", "", block)) for block in blocks)
    code = [("".join(c["source"])) for c in notebook["cells"] if c["cell_type"] == "code"]
    assert "result = plan(model, cluster, workload)" in shown
    assert sum(source.strip() in shown for source in code if source.strip()) >= len(code) // 2


def test_download_button_gives_the_repositorys_notebook(site: Path) -> None:
    for lang in LANGS:
        for notebook in _notebooks(lang):
            page = site / "notebooks" / lang / f"{notebook.stem}.html"
            html = page.read_text(encoding="utf-8")
            assert "_sources/notebooks" not in html, page.name
            assert f'href="{notebook.name}" download=' in html, page.name
            assert (page.parent / notebook.name).read_bytes() == notebook.read_bytes()


def test_no_page_loads_anything_from_another_site(site: Path) -> None:
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        remote = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(?:https?:)?//[^"]+"', html)
        assert not remote, f"{page.relative_to(site)}: {remote[:2]}"
        assert "widget-state+json" not in html and "require.min.js" not in html


def test_every_figure_says_what_it_shows_in_the_pages_language(site: Path) -> None:
    checked = 0
    for lang in LANGS:
        for notebook in _notebooks(lang):
            html = (site / "notebooks" / lang / f"{notebook.stem}.html").read_text(encoding="utf-8")
            for tag in re.findall(r"<img\b[^>]*>", html):
                alt = re.search(r'\balt="([^"]*)"', tag)
                assert alt and len(alt.group(1)) > 15, f"{notebook.name}: {tag[:120]}"
                text = alt.group(1)
                assert ".png" not in text and not re.search(r"[0-9a-f]{32}", text), f"{notebook.name}: {text}"
                has_chinese = bool(re.search(r"[\u4e00-\u9fff]", text))
                if lang == "zh":
                    assert has_chinese, f"{notebook.name}: {text}"
                else:  # an English figure may quote a Chinese name only if its labels do; the words are English
                    assert re.search(r"\b(Figure|axis|points|bars)\b", text), f"{notebook.name}: {text}"
                checked += 1
    assert checked >= 20


def test_each_language_has_its_course_as_one_pdf(site: Path) -> None:
    info = json.loads((site / "build-info.json").read_text(encoding="utf-8"))
    if jupyter_browser.chromium_path() is None and not IN_CI:
        pytest.skip("Chromium is not installed: the PDFs are printed with it")
    home = (site / "index.html").read_text(encoding="utf-8")
    for lang in LANGS:
        assert info["pdf"][lang] == f"course-{lang}.pdf"
        pdf = (site / f"course-{lang}.pdf").read_bytes()
        assert pdf.startswith(b"%PDF-")
        pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
        assert pages >= 3 * len(info["lessons"][lang]), pages  # every lesson, each several A4 pages
        assert f'href="course-{lang}.pdf"' in home
