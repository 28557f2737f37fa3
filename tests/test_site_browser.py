"""The course website in a real browser (Chromium): what a learner gets, offline, on any screen.

One site build per session (tests/site_build.py). Each test drives Chromium over every lesson page of both
languages (some over every page):

* search finds the right lessons for a Chinese and an English query (the query is segmented the way the
  index is; the expected pages are read from the lesson notebooks, not from the site);
* with every non-local request blocked, a page loads with no failed request, shows no raw TeX, and its first
  load (figures not counted) stays within :data:`FIRST_LOAD_BUDGET_BYTES`;
* axe-core (npm, injected into the page) finds nothing serious or critical;
* no page is wider than a 390 px phone screen.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.site_build import (
    RENDER_EVERY_CELL,
    ROOT,
    build_site,
    evaluate_on_pages,
    in_browser,
    run_search,
    served,
    site,
)

__all__ = ["served", "site"]  # pytest finds the session fixtures through this module's names

LANGS = ("zh", "en")
#: First load of a lesson page, figures excluded: HTML, styles, scripts, fonts, search index (the issue's budget).
FIRST_LOAD_BUDGET_BYTES = 1_000_000
PHONE_WIDTH_PX = 390
#: Figures in a page: inlined images, and the PNG frames of the live widgets' states (their own budget below).
DATA_IMAGE = re.compile(rb'data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+|"png": "[A-Za-z0-9+/=]+"')


@pytest.fixture(scope="module")
def built(site: Path) -> dict[str, list[str]]:
    """The lessons the site was built from (every lesson: tests/test_site.py checks the home page lists all)."""
    lessons: dict[str, list[str]] = json.loads((site / "build-info.json").read_text(encoding="utf-8"))["lessons"]
    return lessons


def _lessons(built: dict[str, list[str]], lang: str) -> list[Path]:
    return [ROOT / "notebooks" / lang / f"{stem}.ipynb" for stem in built[lang]]


def _lesson_pages(built: dict[str, list[str]]) -> list[str]:
    return [f"notebooks/{lang}/{stem}.html" for lang in LANGS for stem in built[lang]]


def _all_pages(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def _markdown_text(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


# -- search ----------------------------------------------------------------------------------------


def _search(browser: Any, base: str, query: str) -> list[str]:
    page = browser.new_page()
    try:
        run_search(page, base, "search.html", query)
        links = page.eval_on_selector_all("#search-results ul.search li > a", "els => els.map(a => a.href)")
        return [re.sub(r"^.*?/(notebooks/|docs/|launch/)", r"\1", link.split("#")[0].split("?")[0]) for link in links]
    finally:
        page.close()


def _article_text(page: Path) -> str:
    """The words of a page's article (what the search index holds: prose and outputs), lower-case."""
    html = page.read_text(encoding="utf-8")
    article = re.search(r"<article\b.*?</article>", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", article.group(0) if article else html).lower()


def _pages_with_all(
    site: Path, built: dict[str, list[str]], lang: str, words: Iterable[str]
) -> tuple[set[str], set[str]]:
    """Lesson pages of ``lang`` whose prose (the notebook's Markdown) holds every word, and the pages whose
    text (prose and outputs) lacks one."""
    have, lack = set(), set()
    for path in _lessons(built, lang):
        name = f"notebooks/{lang}/{path.stem}.html"
        if all(re.search(w, _markdown_text(path).lower()) for w in words):
            have.add(name)
        if not all(re.search(w, _article_text(site / name)) for w in words):
            lack.add(name)
    return have, lack


def test_search_finds_chinese_and_english_words(site: Path, served: str, built: dict[str, list[str]]) -> None:
    # 张量并行 is one query word; the index holds jieba's words 张量 and 并行, so a page must hold both.
    zh_query, zh_words = "张量并行", ("张量", "并行")
    en_query, en_words = "pipeline bubble", ("pipeline", "bubbl")  # the English stemmer: bubble(s) -> bubbl

    def run(browser: Any) -> dict[str, list[str]]:
        return {zh_query: _search(browser, served, zh_query), en_query: _search(browser, served, en_query)}

    found = in_browser(run)
    for query, lang, words in ((zh_query, "zh", zh_words), (en_query, "en", en_words)):
        have, lack = _pages_with_all(site, built, lang, words)
        assert have, f"no {lang} lesson mentions {words}: the test's premise is wrong"
        results = set(found[query])
        assert have <= results, f"{query!r}: missing {sorted(have - results)}"
        assert not (lack & results), f"{query!r}: pages without every word found: {sorted(lack & results)}"
    tp_lessons = {f"notebooks/zh/{p.stem}.html" for p in _lessons(built, "zh") if "张量并行" in _markdown_text(p)}
    assert tp_lessons <= set(found[zh_query])


# -- offline, no raw TeX, weight -------------------------------------------------------------------

_VISIBLE_TEXT = """() => {
  const body = document.body.cloneNode(true);
  body.querySelectorAll('pre, code, script, style, .katex-mathml, annotation').forEach(e => e.remove());
  return body.textContent;
}"""


def _load_offline(browser: Any, base: str, path: str) -> dict[str, Any]:
    context = browser.new_context()
    blocked: list[str] = []
    failed: list[str] = []
    sizes: list[tuple[str, str, int]] = []

    def route(route: Any) -> None:
        url = route.request.url
        if url.startswith(base) or url.startswith("data:"):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("requestfailed", lambda request: failed.append(request.url))

    def finished(response: Any) -> None:
        if response.status >= 400:
            failed.append(f"{response.status} {response.url}")
        elif not response.url.startswith("data:"):
            body = response.body()
            if response.request.resource_type == "document":
                body = DATA_IMAGE.sub(b"", body)  # the page's own figures are inlined: not counted
            sizes.append((response.request.resource_type, response.url, len(body)))

    page.on("response", finished)
    try:
        page.goto(f"{base}/{path}", wait_until="load", timeout=120_000)
        page.evaluate("document.fonts.ready.then(() => true)")
        text = page.evaluate(_VISIBLE_TEXT)
        fonts_ok = page.evaluate("() => !document.querySelector('.katex') || document.fonts.check('16px KaTeX_Main')")
        katex = page.locator(".katex").count()
        return {
            "blocked": blocked,
            "failed": failed,
            "sizes": sizes,
            "text": text,
            "katex_font": fonts_ok,
            "katex": katex,
        }
    finally:
        context.close()


def test_pages_load_offline_with_math_rendered_and_within_budget(served: str, built: dict[str, list[str]]) -> None:
    def run(browser: Any) -> dict[str, dict[str, Any]]:
        return {path: _load_offline(browser, served, path) for path in _lesson_pages(built)}

    results = in_browser(run)
    math_pages = []
    for path, result in results.items():
        assert not result["blocked"], f"{path} asked the network for {result['blocked'][:3]}"
        assert not result["failed"], f"{path}: failed requests {result['failed'][:3]}"
        raw = re.findall(r".{0,20}(?:\$\$|\\frac|\\\(|\\\[|\\text\{).{0,20}", result["text"])
        assert not raw, f"{path} shows raw TeX: {raw[:3]}"
        assert result["katex_font"], f"{path}: KaTeX's font did not load"
        weight = sum(size for kind, _, size in result["sizes"] if kind != "image")
        heaviest = sorted(((size, url.rsplit("/", 1)[-1]) for kind, url, size in result["sizes"]), reverse=True)[:5]
        assert weight <= FIRST_LOAD_BUDGET_BYTES, f"{path}: first load {weight} bytes: {heaviest}"
        if result["katex"]:
            math_pages.append(path)
    assert len(math_pages) >= min(10, len(results) // 2), (
        "few lessons show a formula: the TeX check above proves little"
    )


# -- accessibility ---------------------------------------------------------------------------------


def _axe_source() -> str:
    import finish

    modules = finish.vendor(build_site.vendor_cache())
    return (modules / "axe-core" / "axe.min.js").read_text(encoding="utf-8")


def test_axe_finds_nothing_serious_or_critical(served: str, built: dict[str, list[str]]) -> None:
    axe = _axe_source()

    def run(browser: Any) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        page = browser.new_page()
        for path in _lesson_pages(built):
            page.goto(f"{served}/{path}", wait_until="load")
            page.add_style_tag(content=RENDER_EVERY_CELL)
            page.add_script_tag(content=axe)
            violations = page.evaluate(
                "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
                ".map(v => v.impact + ' ' + v.id + ': ' + v.nodes.slice(0, 2).map(n => n.target.join(' ')).join(', '))"
            )
            found[path] = violations
        page.close()
        return found

    found = in_browser(run)
    assert len(found) == len(_lesson_pages(built))
    bad = {path: v for path, v in found.items() if v}
    assert not bad, json.dumps(bad, ensure_ascii=False, indent=1)[:3000]


# -- phones ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [PHONE_WIDTH_PX])
def test_no_page_is_wider_than_a_phone(site: Path, served: str, width: int) -> None:
    pages = _all_pages(site)

    script, viewport = "() => document.documentElement.scrollWidth", {"width": width, "height": 844}
    widths = in_browser(lambda browser: evaluate_on_pages(browser, served, pages, script, viewport))
    assert len(widths) == len(pages) > 20
    wide = {path: w for path, w in widths.items() if w > width}
    assert not wide, wide


# -- live widgets without a kernel -----------------------------------------------------------------

#: The precomputed states of one page's widgets, as base64 in the page (PNG frames, verdicts): the budget
#: (16 states at most per widget, about 25-35 kB each; lesson 6 has two widgets).
WIDGET_FRAMES_BUDGET_BYTES = 800_000

#: In the page: the pixels a widget's figure shows (a canvas, or an image before its first bitmap is decoded),
#: the pixels of a recorded state's PNG decoded apart, and waiting until the figure shows a given state.
_FIGURE_HELPERS = """
const ckPixels = (source, width, height) => {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  context.drawImage(source, 0, 0);
  return context.getImageData(0, 0, width, height).data;
};
const ckShownPixels = (figure) => figure.tagName === 'CANVAS'
  ? figure.getContext('2d').getImageData(0, 0, figure.width, figure.height).data
  : ckPixels(figure, figure.naturalWidth, figure.naturalHeight);
const ckStatePixels = async (state) => {  // a state's figure: inline (png) or an image file (src)
  const url = state.src ? new URL(state.src, document.baseURI).href : 'data:image/png;base64,' + state.png;
  const bitmap = await createImageBitmap(await (await fetch(url)).blob());
  return ckPixels(bitmap, bitmap.width, bitmap.height);
};
const ckSame = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
const ckShowing = async (block, index) => {
  for (let tries = 0; tries < 200; tries++) {
    const figure = block.querySelector('.ck-static-figure');
    if (figure.dataset.frame === String(index) && (figure.tagName === 'CANVAS' || figure.complete)) return figure;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error('the figure never showed state ' + index);
};
const ckSameMessage = (block, markup, styles) => {  // as parsed HTML: the browser normalises what it serialises
  const probe = document.createElement('div');
  probe.innerHTML = markup;
  let shown = block.querySelector('.ck-static-message').innerHTML;
  if (styles) {  // the box's shared styles written back as the inline styles they stand for (share_styles)
    const again = document.createElement('div');
    again.innerHTML = shown.replace(/ data-cks="([0-9a-f]+)"/g, (reference, key) => styles[key] || reference);
    shown = again.innerHTML;
  }
  return shown === probe.innerHTML;
};
const ckSettled = async (block) => {  // a case's box and figure are both there (or the box says they did not load)
  for (let tries = 0; tries < 400; tries++) {
    if (block.getAttribute('aria-busy') !== 'true') return;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error('the case never settled');
};
"""

_MOVE_SLIDERS = (
    "async () => {"
    + _FIGURE_HELPERS
    + """
  const out = [];
  for (const block of document.querySelectorAll('.ck-static')) {
    const slider = block.querySelector('input.ck-live-slider');
    if (!slider) continue;
    const replay = JSON.parse(block.querySelector('script.ck-live-frames').textContent);
    const start = Number(slider.value);
    const before = ckShownPixels(await ckShowing(block, start));
    const target = start === 0 ? replay.frames.length - 1 : 0;
    slider.focus();
    slider.value = target;
    slider.dispatchEvent(new Event('input', {bubbles: true}));
    const figure = await ckShowing(block, target);
    const shown = ckShownPixels(figure);
    const row = block.querySelectorAll('.ck-static-controls > li')[replay.control];
    const alt = figure.tagName === 'CANVAS' ? figure.getAttribute('aria-label') : figure.alt;
    out.push({
      changed: !ckSame(shown, before),
      image: ckSame(shown, await ckStatePixels(replay.frames[target])),
      message: ckSameMessage(block, replay.frames[target].message),
      value: row.querySelector('b').textContent === replay.frames[target].value,
      alt: alt === replay.frames[target].alt && alt.length > 10,
      frames: replay.frames.length,
    });
  }
  return out;
}"""
)


def _replay_pages(site: Path, built: dict[str, list[str]], kind: str) -> list[str]:
    """Lesson pages with a widget whose states the page replays as ``kind`` ("frames": a slider, "presets")."""
    pages = []
    for path in _lesson_pages(built):
        html = (site / path).read_text(encoding="utf-8")
        found = re.findall(r'<script type="application/json" class="ck-live-frames">(.*?)</script>', html, re.S)
        if any(kind in json.loads(data.replace("<\\/", "</")) for data in found):
            pages.append(path)
    return pages


def test_every_widget_has_a_live_slider_that_replays_its_states(
    site: Path, served: str, built: dict[str, list[str]]
) -> None:
    widget_lessons = {
        f"notebooks/{lang}/{path.stem}.html"
        for lang in LANGS
        for path in _lessons(built, lang)
        if re.search(r"\b\w+Widget\(", path.read_text(encoding="utf-8"))
    }
    widget_pages = _replay_pages(site, built, "frames")
    assert widget_pages
    # every widget lesson replays its widgets: on a slider, or (the workbench) as the lesson's cases
    assert widget_lessons == set(widget_pages) | set(_replay_pages(site, built, "presets"))

    def run(browser: Any) -> dict[str, list[dict[str, Any]]]:
        page = browser.new_page()
        found = {}
        for path in widget_pages:
            page.goto(f"{served}/{path}", wait_until="load")
            found[path] = page.evaluate(_MOVE_SLIDERS)
        page.close()
        return found

    found = in_browser(run)
    for path, blocks in found.items():
        assert blocks, f"{path}: no widget on the page"
        for block in blocks:
            assert block["frames"] >= 2 and all(block[k] for k in ("changed", "image", "message", "value", "alt")), (
                path,
                block,
            )
        html = (site / path).read_text(encoding="utf-8")
        frames = sum(
            len(m)
            for m in re.findall(r'<script type="application/json" class="ck-live-frames">(.*?)</script>', html, re.S)
        )
        assert frames <= WIDGET_FRAMES_BUDGET_BYTES, f"{path}: {frames} bytes of widget states"


_CHOOSE_CASE = (
    "async ({index, expected}) => {"
    + _FIGURE_HELPERS
    + """
  const block = [...document.querySelectorAll('.ck-static')].find((b) => b.querySelector('.ck-live-preset'));
  const replay = JSON.parse(block.querySelector('script.ck-live-frames').textContent);
  const chosen = replay.presets[index];
  const figure = await ckShowing(block, index);
  await ckSettled(block);
  const rows = [...block.querySelectorAll('.ck-static-controls > li')];
  const box = block.querySelector('.ck-static-message > div');
  return {
    image: ckSame(ckShownPixels(figure), await ckStatePixels(chosen)),
    alt: figure.getAttribute('aria-label') === chosen.alt,
    message: ckSameMessage(block, expected, replay.styles),  // the widget's own box for this case
    restored: !chosen.message_shown || block.querySelector('.ck-static-message').innerHTML === window.ckFirstMessage,
    rows: rows.map((row) => row.textContent.trim()),
    expected: chosen.controls.map(([name, value]) => name + ': ' + value),
    level: box.className,
    word: box.querySelector('b')?.textContent || '',
    colour: getComputedStyle(box).borderLeftColor,
    launch: [...block.querySelectorAll('.ck-live-launch a')].map((a) => a.href),
    cases: replay.presets.length,
    name: chosen.name,
  };
}"""
)


def _rgb(hex_colour: str) -> str:
    return "rgb({}, {}, {})".format(*(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)))


@functools.cache
def _widget_cases(lang: str) -> list[dict[str, Any]]:
    """Lesson 9's cases as its workbench shows them, computed here by the widget itself (made as the lesson makes
    it, ``WorkbenchWidget()``) in ``lang``: each case's name, controls and verdict box (its styles inline, as in the
    notebook), with nothing of the site's build in between."""
    import coursekit
    from coursekit.i18n import get_language
    from coursekit.widgets.frames import preset_frames
    from coursekit.widgets.workbench import WorkbenchWidget

    before = get_language()
    coursekit.set_language(lang)
    try:
        return preset_frames(WorkbenchWidget())
    finally:
        coursekit.set_language(before)


def _workbench_page(site: Path, built: dict[str, list[str]], lang: str) -> tuple[str, dict[str, Any]]:
    """Lesson 9's page in ``lang``: its path and what its workbench replays (its cases: ``presets``)."""
    (path,) = [path for path in _replay_pages(site, built, "presets") if f"/{lang}/" in path]
    html = (site / path).read_text(encoding="utf-8")
    (frames,) = re.findall(r'<script type="application/json" class="ck-live-frames">(.*?)</script>', html, re.S)
    return path, json.loads(frames)


def _inline_forms(message: str) -> list[str]:
    """``message`` (a verdict box, its styles inline) as a page would carry it inline: as HTML, and as the widget's
    replay data writes it (styles shared, JSON-escaped in a script element)."""
    from coursekit.widgets.frames import share_styles

    (shared,), _ = share_styles([message])
    return [message, shared, json.dumps(shared, ensure_ascii=False)[1:-1].replace("</", "<\\/")]


@pytest.mark.parametrize("lang", LANGS)
def test_the_workbench_offers_the_lessons_cases_and_a_live_launch(
    site: Path, served: str, built: dict[str, list[str]], lang: str
) -> None:
    from coursekit.i18n import tr
    from coursekit.widgets import _MESSAGE_STYLE
    from coursekit.widgets.workbench import SITE_PRESETS

    pages = [path for path in _replay_pages(site, built, "presets") if f"/{lang}/" in path]
    assert pages, f"no {lang} page offers a widget's cases (lesson 9's workbench)"
    widget = _widget_cases(lang)  # what the live widget shows for each case
    # lesson 9's LoRA trial (Llama-3 70B on one H100 node, rank 32) is one of the cases
    lora = [changes.get("lora") for _, changes in SITE_PRESETS].index(32)
    assert widget[lora]["name"] == SITE_PRESETS[lora][0].render(lang)
    assert dict(widget[lora]["controls"])[tr("widgets.workbench.lora", lang)].endswith("32"), widget[lora]
    # the notebook's verdict words, in the page's language, and its colours
    words = {
        level: tr(f"widgets.level.{level}", lang) + tr("widgets.level.separator", lang) for level in ("pass", "fail")
    }
    colours = {level: _rgb(_MESSAGE_STYLE[level].split("solid ")[1][:7]) for level in words}

    # the cases' figures are image files beside the page, not base64 in it (the site's build moved them out), and so
    # are their verdict boxes but the page's own: the first load carries no other case's box, in any form
    boxes: dict[str, dict[int, str]] = {}  # page -> case -> the file of its box
    for path in pages:
        html = (site / path).read_text(encoding="utf-8")
        (frames,) = re.findall(r'<script type="application/json" class="ck-live-frames">(.*?)</script>', html, re.S)
        cases = json.loads(frames)["presets"]
        assert [(case["name"], case["controls"]) for case in cases] == [(c["name"], c["controls"]) for c in widget]
        assert all("png" not in case for case in cases), f"{path}: a case's figure is still inline"
        assert all("message" not in case for case in cases), f"{path}: a case's verdict box is still inline"
        # the case the page shows keeps one copy of its verdict box: the page's own
        (shown,) = [i for i, case in enumerate(cases) if case.get("message_shown")]
        assert f'<div class="ck-static-message">{widget[shown]["message"]}</div>' in html
        boxes[path] = {}
        for i, case in enumerate(cases):
            assert (site / path).parent.joinpath(case["src"]).resolve().read_bytes().startswith(b"\x89PNG"), case
            if i == shown:
                continue
            box = (site / path).parent.joinpath(case["message_src"]).resolve()
            assert box.name.startswith("ck-case-") and box.read_text(encoding="ascii").startswith("ckCaseMessage(")
            boxes[path][i] = box.name
            inline = [form for form in _inline_forms(widget[i]["message"]) if form in html]
            assert not inline, f"{path}: case {i}'s verdict box is inline: {inline[0][:200]}"

    def run(browser: Any) -> dict[str, dict[str, Any]]:
        page = browser.new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url.rsplit("/", 1)[-1]))
        found: dict[str, dict[str, Any]] = {}
        for path in pages:
            requested.clear()
            page.goto(f"{served}/{path}", wait_until="load")
            page.wait_for_timeout(300)  # what the page's script asks for right after the load event
            first_load = [name for name in requested if name.startswith("ck-case-")]
            page.evaluate(
                "() => { window.ckFirstMessage = document.querySelector('.ck-live-preset').closest('.ck-static')"
                ".querySelector('.ck-static-message').innerHTML; }"
            )
            count = page.evaluate(
                "() => JSON.parse(document.querySelector('.ck-live-preset').closest('.ck-static')"
                ".querySelector('script.ck-live-frames').textContent).presets.length"
            )
            shown, asked = [], []
            for index in [*range(1, count), 0]:  # every case, then back to the first
                requested.clear()
                page.select_option(".ck-live-preset select", str(index))
                expected = widget[index]["message"]
                shown.append({"index": index, **page.evaluate(_CHOOSE_CASE, {"index": index, "expected": expected})})
                asked.append((index, [name for name in requested if name.endswith(".js")]))
            found[path] = {"first_load": first_load, "cases": shown, "asked": asked}
        page.close()
        return found

    results = in_browser(run)
    for path, result in results.items():
        # the first load fetches no case's figure nor box (the page shows its own); a picked case shows its file's
        # pixels and the box its live widget shows, loaded when picked (the page's own box: from the page)
        assert result["first_load"] == [], (path, result["first_load"])
        assert result["asked"] == [(i, [boxes[path][i]] if i in boxes[path] else []) for i, _ in result["asked"]]
        cases = result["cases"]
        assert len(cases) == cases[0]["cases"] == len(widget) >= 2
        (picked,) = [case for case in cases if case["index"] == lora]  # the LoRA trial: its own box and figure
        assert picked["name"] == widget[lora]["name"] and picked["image"] and picked["message"], picked
        for case in cases:
            assert case["image"] and case["alt"] and case["message"] and case["restored"], (path, case)
            assert case["rows"] == case["expected"], (path, case)
            (level,) = [name for name in words if f"coursekit-{name}" in case["level"].split()]
            assert case["word"] == words[level] and case["colour"] == colours[level], (path, case)
            notebook = f"notebooks/{lang}/{Path(path).stem}.ipynb"
            assert any("mybinder.org" in href and notebook in href for href in case["launch"]), case["launch"]


#: The workbench's box in the page: a note (while a case loads, or when it did not) or the verdict boxes it shows.
_CASE_BOX = """() => {
  const block = document.querySelector('.ck-live-preset').closest('.ck-static');
  const note = block.querySelector('.ck-static-message > p');
  return {
    busy: block.getAttribute('aria-busy'),
    verdicts: block.querySelectorAll('.ck-static-message .coursekit-ok').length,
    note: note ? [note.className, note.getAttribute('role'), note.textContent] : null,
    faded: getComputedStyle(block.querySelector('.ck-static-figure')).opacity !== '1',
  };
}"""
_SETTLED = "() => !document.querySelector('.ck-live-preset').closest('.ck-static').hasAttribute('aria-busy')"


@pytest.mark.parametrize("lang", LANGS)
def test_a_case_box_says_it_is_loading_and_says_so_if_it_did_not_load(
    site: Path, served: str, built: dict[str, list[str]], lang: str
) -> None:
    """While a picked case's box loads, the page shows no box (not the last case's) but a note that it is loading;
    if its box or its figure does not load, the box says so in the page's language, and picking it again loads it."""
    path, replay = _workbench_page(site, built, lang)
    cases = replay["presets"]
    widget = _widget_cases(lang)
    held_case, failed_box_case, failed_figure_case = [i for i, c in enumerate(cases) if not c.get("message_shown")][:3]
    (shown,) = [i for i, c in enumerate(cases) if c.get("message_shown")]

    def run(browser: Any) -> dict[str, Any]:
        page = browser.new_page()
        held: list[Any] = []
        found: dict[str, Any] = {}

        def pick(index: int) -> None:
            page.select_option(".ck-live-preset select", str(index))

        def same(index: int) -> bool:
            expected = widget[index]["message"]
            return bool(
                page.evaluate(
                    "([expected]) => {"
                    + _FIGURE_HELPERS
                    + """
                    const block = document.querySelector('.ck-live-preset').closest('.ck-static');
                    const replay = JSON.parse(block.querySelector('script.ck-live-frames').textContent);
                    return ckSameMessage(block, expected, replay.styles);
                    }""",
                    [expected],
                )
            )

        page.goto(f"{served}/{path}", wait_until="load")
        # a box whose file is held back: the page shows that it is loading, and no verdict box
        page.route("**/ck-case-*.js", lambda route: held.append(route))
        pick(held_case)
        while not held:  # the route's handler runs once the page's script has asked for the file
            page.wait_for_timeout(25)
        found["loading"] = page.evaluate(_CASE_BOX)
        for route in held:
            route.continue_()
        page.wait_for_function(_SETTLED)
        found["loaded"] = (page.evaluate(_CASE_BOX), same(held_case))
        page.unroute("**/ck-case-*.js")
        # a box whose file does not load, then a figure whose file does not: the box says so
        for pattern, index, name in (
            ("**/ck-case-*.js", failed_box_case, "box"),
            ("**/ck-case-*.png", failed_figure_case, "figure"),
        ):
            page.route(pattern, lambda route: route.abort())
            pick(index)
            page.wait_for_function(_SETTLED)
            found[f"failed {name}"] = page.evaluate(_CASE_BOX)
            page.unroute(pattern)
            pick(shown)  # and back: a case that did not load loads when picked again
            page.wait_for_function(_SETTLED)
            pick(index)
            page.wait_for_function(_SETTLED)
            found[f"again {name}"] = (page.evaluate(_CASE_BOX), same(index))
        page.close()
        return found

    found = in_browser(run)
    assert found["loading"] == {
        "busy": "true",
        "verdicts": 0,
        "note": ["ck-live-pending", "status", replay["loading"]],
        "faded": True,
    }, found["loading"]
    for state in ("loaded", "again box", "again figure"):
        box, same = found[state]
        assert same and box == {"busy": None, "verdicts": 1, "note": None, "faded": False}, (state, box)
    for state in ("failed box", "failed figure"):
        box = found[state]
        assert box == {
            "busy": None,
            "verdicts": 0,
            "note": ["ck-live-failed", "alert", replay["failed"]],
            "faded": True,
        }, (state, box)
    # in the page's language, and saying what happened
    chinese = re.search(r"[\u4e00-\u9fff]", replay["failed"] + replay["loading"])
    assert (chinese is not None) == (lang == "zh"), replay
    assert ("没有载入" in replay["failed"]) if lang == "zh" else ("did not load" in replay["failed"]), replay


def test_every_figure_has_two_image_pixels_per_css_pixel(served: str, built: dict[str, list[str]]) -> None:
    """Figures are crisp on a HiDPI screen: each lesson figure and widget figure holds at least two image pixels
    per CSS pixel it is shown at, on a desktop and on a phone."""
    ratios = """() => [...document.querySelectorAll('img.ck-figure, .ck-static-figure')].map((f) => [
      f.className, f.clientWidth ? (f.tagName === 'CANVAS' ? f.width : f.naturalWidth) / f.clientWidth : 0])"""

    def run(browser: Any) -> dict[str, list[tuple[str, float]]]:
        found = {}
        for width in (1280, PHONE_WIDTH_PX):
            context = browser.new_context(viewport={"width": width, "height": 900})
            page = context.new_page()
            for path in _lesson_pages(built):
                page.goto(f"{served}/{path}", wait_until="load")
                page.add_style_tag(content=RENDER_EVERY_CELL)
                found[f"{width}px {path}"] = page.evaluate(ratios)
            context.close()
        return found

    found = in_browser(run)
    assert sum(len(figures) for figures in found.values()) >= len(found) // 2, (
        "few figures found: the test proves little"
    )
    blurry = {page: figures for page, figures in found.items() if any(ratio < 2 for _, ratio in figures)}
    assert not blurry, blurry
