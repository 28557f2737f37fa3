"""Finish the built website so it needs nothing from the network and reads right in each language.

Run by :func:`build_site.build` after Sphinx, on the HTML it wrote:

* math is rendered to HTML at build time with KaTeX (npm, run under Node), so a page shows formulas with a
  local stylesheet and fonts and no script; the MathJax CDN tags go away;
* the theme's Font Awesome script (1.56 MB, every icon there is) gives way to the few icons the pages use,
  inlined as SVG taken from that same script;
* Chinese pages get the theme's labels (search, colour mode, previous/next ...) and the navigation's captions in
  Chinese; English pages get the navigation's captions in English (the Chinese course's caption was "中文课程");
* a lesson's navigation lines are marked, so that search snippets and the search's page text leave them out;
* code blocks lose the highlighting spans that change nothing: a token class the theme's Pygments stylesheet
  paints in the code block's own colour, and in nothing else, in every colour mode (names, punctuation, white
  space) — about half of a code-heavy lesson page's markup;
* the figures and verdict boxes of a widget's cases (the workbench's list of the lesson's cases) move out of the
  page into files the page's script loads when the learner picks a case: the page first shows the case it was
  built at, so the others' figures (about 40 kB each) and boxes (about 3 kB of HTML each) are no longer part of
  its first load.

* a Chinese page's search box submits to a Chinese search page (``search-zh.html``, written beside Sphinx's English
  one): its words and Sphinx's messages in Chinese; both search pages list their language's results first, ranked
  by where and how often the query occurs (each page's title, headings, glossary entries and text, written to
  ``_static/coursekit-search-pages.js``; static/coursekit-search-rank.js), show the first results with a button for
  more, and take a result's snippet from the lesson text (static/coursekit-search.js);
* the cheat sheet's pages print on one A4 page, with the sheet's own print stylesheet (docs/cheatsheet-print.css);
* a page's switch to the same page in the other language is also among the article header's buttons, which stay at
  the top of the window (static/coursekit-lang.js opens the other page at the section being read).

The npm packages (KaTeX for the site, axe-core for the accessibility tests) are installed once into a cache
folder (``build/site-vendor``); their licences are copied beside the files the site serves.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from coursekit.i18n import Text

#: npm packages fetched at build time (pinned: the site's look and the tests' rules change only on purpose).
NPM_PACKAGES = ("katex@0.19.1", "axe-core@4.14.1")

#: The theme's labels (attributes and short visible texts), which a Chinese page shows in Chinese.
THEME_TEXTS: tuple[Text, ...] = (
    Text(zh="搜索", en="Search"),
    Text(zh="搜索…", en="Search..."),
    Text(zh="颜色模式", en="Color mode"),
    Text(zh="浅色", en="Light"),
    Text(zh="深色", en="Dark"),
    Text(zh="跟随系统", en="System Settings"),
    Text(zh="下载本页", en="Download this page"),
    Text(zh="下载笔记本", en="Download source file"),
    Text(zh="打印为 PDF", en="Print to PDF"),
    Text(zh="全屏", en="Fullscreen mode"),
    Text(zh="源代码仓库", en="Source repository"),
    Text(zh="主导航", en="Main"),
    Text(zh="站点导航", en="Site navigation"),
    Text(zh="本页内容", en="On this page"),
    Text(zh="页面", en="Page"),
    Text(zh="目录", en="Contents"),
    Text(zh="显示或隐藏内容", en="Toggle hidden content"),
    Text(zh="版本提示", en="Version warning"),
    Text(zh="显示或隐藏课程目录", en="Toggle primary sidebar"),
    Text(zh="显示或隐藏本页目录", en="Toggle secondary sidebar"),
    Text(zh="链接到本节", en="Link to this heading"),
    Text(zh="索引", en="Index"),
    Text(zh="下一页", en="next page"),
    Text(zh="上一页", en="previous page"),
    Text(zh="下一页", en="next"),
    Text(zh="上一页", en="previous"),
    Text(zh="回到顶部", en="Back to top"),
    Text(zh="跳到正文", en="Skip to main content"),
    Text(zh="作者：coursekit 作者", en="By coursekit authors"),
    Text(zh="错误", en="Error"),
    Text(zh="请启用 JavaScript 才能使用搜索。", en="Please activate JavaScript to enable the search functionality."),
)
#: The navigation's section captions (build_site.py's toctrees), which a Chinese page shows in Chinese only: the other
#: course's caption, and the Chinese half of a caption that names both languages ("参考 / Reference").
CAPTIONS_ZH: Mapping[str, str] = MappingProxyType(
    {
        "English course": "英文课程",
        "参考 / Reference": "参考",
        "教师指南 / Instructor guide": "教师指南",
        # the English page's captions (CAPTIONS_EN), as the Chinese search page, made from search.html, has them
        "Chinese course": "中文课程",
        "Reference": "参考",
        "Instructor guide": "教师指南",
    }
)
#: The same captions on an English page (and the bilingual home and glossary pages, which Sphinx writes in English):
#: the Chinese course's caption, and the English half of a caption that names both languages (leftovers 27).
CAPTIONS_EN: Mapping[str, str] = MappingProxyType(
    {"中文课程": "Chinese course", "参考 / Reference": "Reference", "教师指南 / Instructor guide": "Instructor guide"}
)
_CAPTION = re.compile(r'(<span class="caption-text">)([^<]*)(</span>)')


def english_captions(text: str) -> str:
    """An English page's navigation captions in English only (:data:`CAPTIONS_EN`).

    >>> english_captions('<p class="caption"><span class="caption-text">中文课程</span></p>')
    '<p class="caption"><span class="caption-text">Chinese course</span></p>'
    """
    return _CAPTION.sub(lambda m: m.group(1) + CAPTIONS_EN.get(m.group(2), m.group(2)) + m.group(3), text)


#: The footer's line (conf.py's ``copyright``, as the theme writes it), which a Chinese page shows in Chinese.
COPYRIGHT = Text(
    zh="© 版权所有：coursekit 作者；课程文字采用 CC BY 4.0 许可，代码采用 MIT 许可。",
    en="© Copyright coursekit authors; course text CC BY 4.0, code MIT.",
)
#: The theme's English label -> its Chinese: a read-only view of THEME_TEXTS.
THEME_ZH: Mapping[str, str] = MappingProxyType({text.en: text.zh for text in THEME_TEXTS})

_ATTRIBUTES = ("aria-label", "title", "placeholder", "data-bs-title", "alt")


def vendor(cache: Path) -> Path:
    """``node_modules`` holding :data:`NPM_PACKAGES`, installed into ``cache`` on first use (needs npm)."""
    modules = cache / "node_modules"
    wanted = {spec.rsplit("@", 1)[0]: spec.rsplit("@", 1)[1] for spec in NPM_PACKAGES}
    have = {}
    for name in wanted:
        manifest = modules / name / "package.json"
        if manifest.exists():
            have[name] = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    if have != wanted:
        if shutil.which("npm") is None:
            raise RuntimeError("the website build needs npm once, to fetch " + ", ".join(NPM_PACKAGES))
        cache.mkdir(parents=True, exist_ok=True)
        command = ["npm", "install", "--prefix", str(cache), "--no-audit", "--no-fund", "--no-save", "--silent"]
        subprocess.run([*command, *NPM_PACKAGES], check=True)
    return modules


# -- math ----------------------------------------------------------------------------------------

_MATH = re.compile(
    r'<(?P<tag>span|div) class="math notranslate nohighlight">(?P<tex>.*?)</(?P=tag)>',
    flags=re.S,
)
_KATEX_SCRIPT = r"""
const katex = require(process.argv[1]);
const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = items.map(([tex, display]) => {
  try { return [true, katex.renderToString(tex, {displayMode: display, throwOnError: true, output: "htmlAndMathml"})]; }
  catch (error) { return [false, String(error.message)]; }
});
process.stdout.write(JSON.stringify(out));
"""
_MATHJAX_TAGS = re.compile(r"\s*<script>window\.MathJax = .*?</script>|\s*<script[^>]*mathjax[^>]*></script>", re.I)


def _tex(inner: str, display: bool) -> str:
    tex = html.unescape(inner).strip()
    opening, closing = (r"\[", r"\]") if display else (r"\(", r"\)")
    if tex.startswith(opening) and tex.endswith(closing):
        tex = tex[2:-2]
    return tex.strip()


def render_math(pages: Iterable[Path], modules: Path, static: Path, out: Path) -> int:
    """Replace every formula on ``pages`` by KaTeX's HTML; returns the number rendered.

    Raises RuntimeError naming the page and formula KaTeX cannot render (the build must not ship raw TeX).
    """
    found: list[tuple[Path, str, bool]] = []
    texts = {page: page.read_text(encoding="utf-8") for page in pages}
    for page, text in texts.items():
        for match in _MATH.finditer(text):
            display = match.group("tag") == "div"
            found.append((page, _tex(match.group("tex"), display), display))
    if not found:
        return 0
    items = json.dumps([[tex, display] for _, tex, display in found])
    katex = modules / "katex"
    result = subprocess.run(
        ["node", "-e", _KATEX_SCRIPT, str(katex)], input=items, capture_output=True, text=True, check=True
    )
    rendered = json.loads(result.stdout)
    failures = [
        f"{page.name}: {tex!r}: {message}"
        for (page, tex, _), (ok, message) in zip(found, rendered, strict=True)
        if not ok
    ]
    if failures:
        raise RuntimeError("KaTeX cannot render:\n" + "\n".join(failures))
    target = static / "katex"
    if target.exists():
        shutil.rmtree(target)
    (target / "fonts").mkdir(parents=True)
    shutil.copyfile(katex / "dist" / "katex.min.css", target / "katex.min.css")
    shutil.copyfile(katex / "LICENSE", target / "LICENSE")
    for font in (katex / "dist" / "fonts").glob("*.woff2"):
        shutil.copyfile(font, target / "fonts" / font.name)
    queue = iter(markup for _, markup in rendered)
    for page, text in texts.items():
        if not _MATH.search(text):
            continue

        def swap(match: re.Match[str]) -> str:
            markup = next(queue)
            tag = match.group("tag")
            return f'<{tag} class="math">{markup}</{tag}>'

        text = _MATH.sub(swap, text)
        css = Path("_static/katex/katex.min.css")
        href = "/".join([".."] * (len(page.relative_to(out).parts) - 1) + list(css.parts))
        text = _MATHJAX_TAGS.sub("", text, count=2)
        text = text.replace("</head>", f'    <link rel="stylesheet" href="{href}" />\n</head>', 1)
        page.write_text(text, encoding="utf-8")
    return len(found)


# -- icons ---------------------------------------------------------------------------------------

_ICON_SETS = {"fab": "brands", "fa-brands": "brands", "far": "regular", "fa-regular": "regular"}
_NOT_A_NAME = re.compile(r"^fa-(solid|brands|regular|fw|lg|xs|sm|[0-9]+x|spin|pulse)$")
_ICON_TAG = re.compile(r'<(?P<tag>i|span) class="(?P<cls>[^"]*\bfa-[a-z0-9-]+[^"]*)"(?P<attrs>[^>]*)>\s*</(?P=tag)>')
_ICON_ENTRY = re.compile(r'"?([a-z0-9-]+)"?:\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]*",("(?:[^"\\]|\\.)*"|\[[^\]]*\])\]')
_SEARCH_INDEX_TAG = re.compile(r'\s*<script src="(?:\.\./)*searchindex\.js"></script>')
#: Sphinx's search script and its language data, which the theme puts on every page: only a search page searches (the
#: theme's box submits to it), and on any other page their presence stopped Sphinx from highlighting the words a
#: learner searched for (sphinx_highlight.js highlights only where ``Search`` is undefined).
_SEARCH_SCRIPT_TAGS = re.compile(r'\s*<script src="(?:\.\./)*_static/(?:searchtools|language_data)\.js[^"]*"></script>')
_FA_TAGS = re.compile(r"\s*<(?:script|link)[^>]*scripts/fontawesome\.js[^>]*>(?:</script>)?")


def icon_table(fontawesome_js: str) -> dict[str, dict[str, tuple[int, int, list[str]]]]:
    """Font Awesome's icons by set (solid, regular, brands): name -> (width, height, SVG path data)."""
    marks = sorted(
        (match.start(), name)
        for name in ("fab", "far", "fas")
        for match in re.finditer(rf'\(function\(\)\{{[a-zA-Z]+\("{name}",', fontawesome_js)
    )
    sets: dict[str, dict[str, tuple[int, int, list[str]]]] = {}
    start = 0
    for end, name in marks:
        section = fontawesome_js[start:end]
        begin = section.rfind("var b={")
        table: dict[str, tuple[int, int, list[str]]] = {}
        for entry in _ICON_ENTRY.finditer(section, max(begin, 0)):
            paths = json.loads(entry.group(4))
            table[entry.group(1)] = (
                int(entry.group(2)),
                int(entry.group(3)),
                [paths] if isinstance(paths, str) else paths,
            )
        sets[{"fab": "brands", "far": "regular", "fas": "solid"}[name]] = table
        start = end
    return sets


def inline_icons(text: str, icons: dict[str, dict[str, tuple[int, int, list[str]]]]) -> str:
    """Every ``<i class="fa-solid fa-NAME">`` of a page filled with that icon's SVG; the icon script dropped."""

    def svg(match: re.Match[str]) -> str:
        classes = match.group("cls").split()
        kind = next((_ICON_SETS[c] for c in classes if c in _ICON_SETS), "solid")
        names = [c[3:] for c in classes if c.startswith("fa-") and not _NOT_A_NAME.match(c)]
        found = next((icons[kind][n] for n in names if n in icons[kind]), None)
        if found is None:
            return match.group(0)
        width, height, paths = found
        drawn = "".join(f'<path fill="currentColor" d="{d}"/>' for d in paths if d)
        image = (
            f'<svg class="ck-icon" aria-hidden="true" focusable="false" viewBox="0 0 {width} {height}">{drawn}</svg>'
        )
        tag = match.group("tag")  # the theme's classes stay (its CSS places icons by them); ck-fa drops the font glyph
        return f'<{tag} class="{match.group("cls")} ck-fa"{match.group("attrs")}>{image}</{tag}>'

    return _FA_TAGS.sub("", _ICON_TAG.sub(svg, text))


_NAMED_BY_LABEL = re.compile(
    r"(<button class=\"[^\"]*search-button__button[^\"]*\"[^>]*?|<summary[^>]*?)"
    r' aria-label="(?:Search|Toggle hidden content)"'
)


def name_by_visible_text(text: str) -> str:
    """Controls named by the words they show, not by a fixed English aria-label.

    The theme's search button shows "Search Ctrl+K" and a folded solution shows "Show the worked solution"
    (显示参考解答 on a Chinese page), while their aria-labels said "Search" and "Toggle hidden content": a
    name that does not contain what sighted users read (axe: label-content-name-mismatch), in English on
    Chinese pages. Without the label, the accessible name is the visible text, in the page's language.
    """
    return _NAMED_BY_LABEL.sub(r"\1", text)


# -- language ------------------------------------------------------------------------------------


#: What :func:`localize` never touches: code as the lesson shows it (a highlighted cell, an output, inline code)
#: and scripts. A code token that happens to be a theme label (``next``, ``Index``) stays code.
_CODE_BLOCKS = re.compile(r"<(pre|code|script|style|textarea)\b.*?</\1>", flags=re.S | re.I)


def localize(text: str) -> str:
    """The theme's English labels of a Chinese page in Chinese (attributes and the short texts in THEME_ZH, the footer's
    :data:`COPYRIGHT` line, the navigation's captions in :data:`CAPTIONS_ZH`), outside code (:data:`_CODE_BLOCKS`).

    >>> localize('<p class="prev-next-subtitle">next</p><pre><span class="nb">next</span>(it)</pre>')
    '<p class="prev-next-subtitle">下一页</p><pre><span class="nb">next</span>(it)</pre>'
    """

    def attribute(match: re.Match[str]) -> str:
        value = html.unescape(match.group(2))
        return f'{match.group(1)}="{html.escape(THEME_ZH.get(value, value), quote=True)}"'

    def visible(match: re.Match[str]) -> str:
        words = match.group(2).strip()
        if words in THEME_ZH:
            return match.group(0).replace(words, THEME_ZH[words])
        return match.group(0)

    def outside_code(part: str) -> str:
        part = re.sub(rf'\b({"|".join(_ATTRIBUTES)})="([^"]*)"', attribute, part)
        return re.sub(r"(>)(\s*[A-Za-z][A-Za-z .]*[A-Za-z.]\s*)(?=<)", visible, part)

    text = text.replace(COPYRIGHT.en, COPYRIGHT.zh)
    text = _CAPTION.sub(lambda m: m.group(1) + CAPTIONS_ZH.get(m.group(2), m.group(2)) + m.group(3), text)
    pieces, start = [], 0
    for block in _CODE_BLOCKS.finditer(text):
        pieces += [outside_code(text[start : block.start()]), block.group(0)]
        start = block.end()
    return "".join([*pieces, outside_code(text[start:])])


def html_language(text: str) -> str | None:
    match = re.search(r'<html[^>]*\blang="([^"]+)"', text)
    return match.group(1) if match else None


_LESSON_PAGE = re.compile(r"^notebooks/(zh|en)/(\d\d_[a-z0-9_]+)\.html$")


def offer_repository_notebook(text: str, page: str, notebooks: Path, out: Path) -> str:
    """A lesson page's download button gives the repository's notebook (copied beside the page), not the
    copy the site was built from (that one carries site-only tags)."""
    match = _LESSON_PAGE.match(page)
    if not match:
        return text
    lang, stem = match.groups()
    source = notebooks / lang / f"{stem}.ipynb"
    if not source.exists():
        return text
    shutil.copyfile(source, out / "notebooks" / lang / source.name)
    staged = f'href="../../_sources/notebooks/{lang}/{source.name}"'
    return text.replace(staged, f'href="{source.name}" download="{source.name}"')


_PYGMENTS_RULE = re.compile(
    r'^(?:html\[data-theme="(?P<theme>[a-z]+)"\] )?\.highlight(?: \.(?P<cls>[a-z0-9]+))? \{(?P<body>[^}]*)\}'
)
_CODE_BLOCK = re.compile(r'<div class="highlight[^"]*"><pre>.*?</pre></div>', re.S)


def plain_token_classes(pygments_css: str) -> frozenset[str]:
    """Pygments token classes drawn exactly as the code around them: in every colour mode of ``pygments_css`` the
    class's only declaration is ``color`` equal to that mode's ``.highlight`` colour.

    >>> css = "\\n".join([
    ...     'html[data-theme="light"] .highlight { background: #fefefe; color: #080808 }',
    ...     'html[data-theme="light"] .highlight .n { color: #080808 }',
    ...     'html[data-theme="light"] .highlight .k { color: #0000FF; font-weight: bold }',
    ...     'html[data-theme="light"] .highlight .p { color: #080808 }',
    ...     'html[data-theme="dark"] .highlight { background: #2b2b2b; color: #F8F8F2 }',
    ...     'html[data-theme="dark"] .highlight .n { color: #F8F8F2 }',
    ...     'html[data-theme="dark"] .highlight .p { color: #FF0000 }',
    ... ])
    >>> sorted(plain_token_classes(css))    # p is red in dark mode, k blue and bold
    ['n']
    """
    base: dict[str, str] = {}
    rules: dict[str, dict[str, str]] = {}
    for line in pygments_css.splitlines():
        match = _PYGMENTS_RULE.match(line.strip())
        if match is None:
            continue
        theme = match["theme"] or ""
        declarations = {
            name.strip().lower(): value.strip().lower()
            for name, _, value in (part.partition(":") for part in match["body"].split(";"))
            if name.strip()
        }
        if match["cls"] is None:
            base[theme] = declarations.get("color", "")
        else:
            rules.setdefault(match["cls"], {})[theme] = ";".join(f"{k}:{v}" for k, v in sorted(declarations.items()))
    return frozenset(
        cls
        for cls, by_theme in rules.items()
        if base and by_theme.keys() == base.keys() and all(rule == f"color:{base[t]}" for t, rule in by_theme.items())
    )


def unwrap_plain_tokens(text: str, classes: frozenset[str]) -> str:
    """``text`` with each code block's ``<span class="C">token</span>`` of a plain class ``C`` (see
    :func:`plain_token_classes`) replaced by the token itself; nothing outside code blocks changes.

    >>> page = '<div class="highlight"><pre><span class="n">x</span><span class="o">=</span></pre></div>'
    >>> unwrap_plain_tokens(page + '<span class="n">kept</span>', frozenset({"n"}))
    '<div class="highlight"><pre>x<span class="o">=</span></pre></div><span class="n">kept</span>'
    """
    if not classes:
        return text
    names = "|".join(map(re.escape, sorted(classes)))
    span = re.compile(f'<span class="(?:{names})">([^<]*)</span>')
    return _CODE_BLOCK.sub(lambda block: span.sub(r"\1", block.group(0)), text)


_LIVE_FRAMES = re.compile(r'(<script type="application/json" class="ck-live-frames">)(.*?)(</script>)', re.S)
#: The verdict box a widget's static block shows, right after its states (coursekit.widgets.LessonWidget).
_SHOWN_MESSAGE = re.compile(r'\s*<div class="ck-static-message">(.*?)</div><img class="ck-static-figure"', re.S)
_STYLE_KEY = re.compile(r' data-cks="([0-9a-f]+)"')


def externalize_case_figures(text: str, page: Path, out: Path) -> tuple[str, int]:
    """``text`` (the HTML of ``page``, a page of the site in ``out``) with each widget case's figure written to
    ``out/_images/ck-case-<hash>.png`` and named by its path from the page (``src``) instead of carried inline
    (``png``, base64), and how many figures moved. Only a widget's cases (``presets``) move: a slider's states stay
    inline, decoded ahead so that each step is a canvas copy. The file's name is a hash of its bytes, so a figure
    two pages share is written once.

    A case whose verdict box is the one the page shows already (its shared styles written back in,
    coursekit.widgets.frames.share_styles) carries ``message_shown`` instead of a second copy of it."""
    moved = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal moved
        replay = json.loads(match.group(2))  # its "<\\/" is JSON's escaped "/"
        if not replay.get("presets"):
            return match.group(0)
        shown = _SHOWN_MESSAGE.match(text, match.end())
        styles = replay.get("styles") or {}
        for case in replay["presets"]:
            message = case.get("message")
            inline = None if message is None else _STYLE_KEY.sub(lambda m: styles.get(m.group(1), m.group(0)), message)
            if shown is not None and inline == shown.group(1):
                del case["message"]
                case["message_shown"] = True
            if "png" not in case:
                continue
            data = base64.b64decode(case.pop("png"))
            target = out / "_images" / f"ck-case-{hashlib.sha256(data).hexdigest()[:20]}.png"
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            case["src"] = Path(os.path.relpath(target, page.parent)).as_posix()
            moved += 1
        body = json.dumps(replay, ensure_ascii=False).replace("</", "<\\/")
        return match.group(1) + body + match.group(3)

    return _LIVE_FRAMES.sub(replace, text), moved


#: What the box of a case shows while its file loads, and if it does not (coursekit-live.js), in the page's language.
CASE_LOADING = Text(zh="正在载入这个情形的结论……", en="Loading this case's verdict...")
CASE_FAILED = Text(
    zh="这个情形的结论没有载入。请刷新页面再选一次，或在线运行本课。",
    en="This case's verdict did not load. Reload the page and pick it again, or run the lesson live.",
)


def externalize_case_messages(text: str, page: Path, out: Path) -> tuple[str, int]:
    """``text`` (the HTML of ``page``, a page of the site in ``out``) with the verdict box of each widget case that
    still carries one (``message``: every case but the one the page shows, see :func:`externalize_case_figures`)
    written to ``out/_images/ck-case-<hash>.js`` and named by its path from the page (``message_src``), and how
    many boxes moved. The page's script loads a case's file when the learner picks that case, as it does the
    case's figure: the first load carries neither (about 3 kB of HTML per box).

    The file is a script, ``ckCaseMessage("<hash>", "<box>")`` (ASCII: JSON escapes), not data to fetch, so that
    it loads wherever the figures do, a page opened from disk (``file://``) included, where a browser refuses
    ``fetch``. The box keeps its shared-style references (``data-cks``, coursekit.widgets.frames.share_styles);
    the styles stay in the page (``styles``). Its file's name is a hash of the box, so a box two pages share is
    written once. The widget's replay gains the texts its box shows while a file loads (``loading``) and if it
    fails to (``failed``), in the page's language (its ``<html lang>``).
    """
    moved = 0
    lang = "zh" if (html_language(text) or "").startswith("zh") else "en"

    def replace(match: re.Match[str]) -> str:
        nonlocal moved
        replay = json.loads(match.group(2))
        cases = [case for case in replay.get("presets") or () if "message" in case]
        if not cases:
            return match.group(0)
        for case in cases:
            message = case.pop("message")
            key = hashlib.sha256(message.encode("utf-8")).hexdigest()[:20]
            target = out / "_images" / f"ck-case-{key}.js"
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(f"ckCaseMessage({json.dumps(key)}, {json.dumps(message)});\n", encoding="ascii")
            case["message_src"] = Path(os.path.relpath(target, page.parent)).as_posix()
            moved += 1
        replay["loading"], replay["failed"] = CASE_LOADING.render(lang), CASE_FAILED.render(lang)
        body = json.dumps(replay, ensure_ascii=False).replace("</", "<\\/")
        return match.group(1) + body + match.group(3)

    return _LIVE_FRAMES.sub(replace, text), moved


# -- language switch in the article's header ------------------------------------------------------

_SAME_PAGE_SWITCH = re.compile(
    r'<a data-ck-same-sections="" class="ck-lang ck-lang-(zh|en)" href="([^"]*)">([^<]*)</a>'
)
_HEADER_BUTTONS = '<div class="article-header-buttons">'


def header_language_switch(text: str) -> str:
    """``text`` (a page) with its bar's switch to the same page in the other language also among the article header's
    buttons, which stay at the top of the window (the bar scrolls away with the page): a reader switches where they
    are reading, and coursekit-lang.js opens the other page at that section."""
    match = _SAME_PAGE_SWITCH.search(text)
    if match is None or _HEADER_BUTTONS not in text:
        return text
    other, href, label = match.groups()
    link = (
        f'<a data-ck-same-sections="" class="btn btn-sm ck-lang ck-lang-header ck-lang-{other}" href="{href}" '
        f'lang="{HTML_LANG.render(other)}">{label}</a>'
    )
    return text.replace(_HEADER_BUTTONS, _HEADER_BUTTONS + link, 1)


# -- the cheat sheet, printed from the website ---------------------------------------------------------------

_CHEATSHEET_PAGE = re.compile(r"^docs/cheatsheet_(?:zh|en)\.html$")
#: The sheet's own print stylesheet (docs/, shared with tools/cheatsheet_pdf.py) and the site's adapter to it.
CHEATSHEET_STYLES = ("cheatsheet-print.css", "coursekit-cheatsheet-print.css")


def print_cheatsheet_on_one_page(text: str, page: str, docs: Path, out: Path) -> str:
    """A cheat sheet page (``page``, its path in the site ``out``) prints on one A4 page, as its title promises and as
    tools/cheatsheet_pdf.py prints it: the page links the sheet's print stylesheet (copied from ``docs``) and the
    site's adapter (static/coursekit-cheatsheet-print.css), for print only. Other pages are returned unchanged."""
    sheet = docs / CHEATSHEET_STYLES[0]
    if not _CHEATSHEET_PAGE.match(page) or not sheet.exists():
        return text
    shutil.copyfile(sheet, out / "_static" / sheet.name)
    up = "../" * page.count("/")
    links = "".join(
        f'    <link rel="stylesheet" media="print" href="{up}_static/{name}" />\n' for name in CHEATSHEET_STYLES
    )
    return text.replace("</head>", links + "</head>", 1)


# -- search --------------------------------------------------------------------------------------

#: Each language's search page: a Chinese page's search box submits to the Chinese one.
SEARCH_PAGE = Text(zh="search-zh.html", en="search.html")
#: A page's ``<html lang>`` and its search messages' locale, by the course language.
HTML_LANG = Text(zh="zh-CN", en="en")
SEARCH_LOCALE = Text(zh="zh_CN", en="en")
SEARCH_HEADING = Text(zh="搜索", en="Search")
#: The title of a search page, in its language.
SEARCH_TITLE = Text(zh="搜索 - coursekit", en="Search - coursekit")
#: Sphinx's search messages (searchtools.js, by their English key) as a search page says them, in its language.
SEARCH_MESSAGES: Mapping[str, Text] = MappingProxyType(
    {
        "Searching": Text(zh="正在搜索", en="Searching"),
        "Preparing search...": Text(zh="正在准备搜索……", en="Preparing search..."),
        "Search Results": Text(zh="搜索结果", en="Search results"),
        ", in ": Text(zh="，位于 ", en=", in "),
        "Show ${more} more (${left} not shown yet)": Text(
            zh="再显示 ${more} 个（还有 ${left} 个未显示）", en="Show ${more} more (${left} not shown yet)"
        ),
        "Your search did not match any documents. Please make sure that all words are spelled correctly and that "
        "you've selected enough categories.": Text(
            zh="没有页面同时包含这些词。请检查拼写，或换一个更短、更常用的词，例如“气泡”“显存”“all-reduce”。",
            en="No page contains all of these words. Check the spelling, or try a shorter or more common word, "
            'such as "bubble", "memory" or "all-reduce".',
        ),
    }
)
#: Sphinx's count of the pages found (one, several: ``${resultCount}``), in the search page's language.
SEARCH_FOUND_KEY = "Search finished, found one page matching the search query."
SEARCH_FOUND = (
    Text(zh="找到一个页面包含所有这些词。", en="Found one page containing all of these words."),
    Text(
        zh="找到 ${resultCount} 个页面包含所有这些词。", en="Found ${resultCount} pages containing all of these words."
    ),
)
_SEARCHTOOLS_TAG = re.compile(r'\n?\s*<script src="_static/searchtools\.js[^"]*"></script>')
_SEARCH_ACTION = re.compile(r'(<form class="bd-search[^"]*"\s+action="(?:\.\./)*)search\.html"')


#: What a page's search text leaves out, as the snippets do (coursekit-search.js): the page's buttons and course bar,
#: a lesson's navigation lines (:func:`mark_lesson_navigation`), heading links, code cells' source and KaTeX's MathML
#: copy of each formula.
SEARCH_TEXT_DROP = (
    ".headerlink, script, style, .katex-mathml, .ck-bar, .ck-lesson-nav, .ck-static-note, .header-article, .cell_input"
)
#: A lesson's navigation lines as the page renders them (tools/lesson_nav.py writes them): the top one opens with the
#: link to the other language's lesson, the closing one with "导航：" / "Navigation: ".
_LESSON_NAV = re.compile(
    r'<p>(?=<a class="reference internal" href="\.\./(?:en|zh)/\d\d_[a-z0-9_]+\.html"><span class="std std-doc">'
    r"(?:English version|中文版)</span></a> · |导航：|Navigation: )"
)


def mark_lesson_navigation(text: str) -> str:
    """A lesson page's navigation lines marked ``ck-lesson-nav``, so that a search snippet and the search's page text
    leave them out (a result's snippet began "English version · 课程导引 · 术语表 · 上一课：..." rather than with the
    section's own text).

    >>> mark_lesson_navigation('<p>导航：<a href="00_index.html">课程导引</a></p><p>导航很重要</p>')
    '<p class="ck-lesson-nav">导航：<a href="00_index.html">课程导引</a></p><p>导航很重要</p>'
    """
    return _LESSON_NAV.sub('<p class="ck-lesson-nav">', text)


#: The script that gives the search pages every page's text (loaded by the search pages only).
SEARCH_PAGES_SCRIPT = "coursekit-search-pages.js"
#: The course's search scripts, in the order a search page loads them before Sphinx's searchtools.js.
SEARCH_SCRIPTS = (SEARCH_PAGES_SCRIPT, "coursekit-search-rank.js", "coursekit-search.js")


def search_page_data(out: Path) -> dict[str, dict[str, object]]:
    """Every page's title, headings (with their anchors; a glossary entry's name is marked 1) and text, by docname,
    for the search to rank its results by (static/coursekit-search-rank.js). The search pages and the index of
    names are left out."""
    from bs4 import BeautifulSoup  # pydata-sphinx-theme's dependency: there with the site's theme

    data: dict[str, dict[str, object]] = {}
    for path in sorted(out.rglob("*.html")):
        relative = path.relative_to(out)
        if "_static" in relative.parts or relative.name.startswith("search") or relative.name == "genindex.html":
            continue
        article = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser").select_one("article.bd-article")
        if article is None:
            continue
        headings: list[list[object]] = []
        for element in article.select("h1, h2, h3, h4, dl.ck-term > dt"):
            link = element.select_one("a.headerlink")
            anchor = str(link.get("href", "")) if link is not None else ""
            if link is not None:
                link.decompose()
            words = " ".join(element.get_text(" ").split())
            if words:
                headings.append([words, anchor, 1 if element.name == "dt" else 0])
        for element in article.select(SEARCH_TEXT_DROP):
            element.decompose()
        title = next((str(words) for words, _, glossary in headings if not glossary), relative.stem)
        docname = relative.with_suffix("").as_posix()
        data[docname] = {"title": title, "headings": headings, "text": " ".join(article.get_text(" ").split())}
    return data


def write_search_page_data(out: Path) -> int:
    """Write :func:`search_page_data` as ``_static/coursekit-search-pages.js``; returns its size in bytes."""
    body = json.dumps(search_page_data(out), ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    script = f"var CK_SEARCH_PAGES = {body};\n"
    (out / "_static" / SEARCH_PAGES_SCRIPT).write_text(script, encoding="utf-8")
    return len(script.encode("utf-8"))


def search_translations(lang: str) -> str:
    """The script that gives Sphinx's search its messages in ``lang`` (Documentation.addTranslations)."""
    messages: dict[str, str | list[str]] = {key: text.render(lang) for key, text in SEARCH_MESSAGES.items()}
    messages[SEARCH_FOUND_KEY] = [text.render(lang) for text in SEARCH_FOUND]
    catalog = {"messages": messages, "plural_expr": "n === 1 ? 0 : 1", "locale": SEARCH_LOCALE.render(lang)}
    body = json.dumps(catalog, ensure_ascii=False).replace("</", "<\\/")
    return f"<script>Documentation.addTranslations({body});</script>"


def search_pages(out: Path) -> int:
    """Write the Chinese search page beside Sphinx's (English) one and give both their language's messages, the
    course's result order (this language's pages first, coursekit-search.js) and snippets of the lesson text only;
    returns the number of search pages written (0 when the site has no search page)."""
    english = out / "search.html"
    if not english.exists():
        return 0
    text = english.read_text(encoding="utf-8")
    languages = ("en", "zh")
    for lang in languages:
        page = text.replace("<title>Search - coursekit</title>", f"<title>{SEARCH_TITLE.render(lang)}</title>", 1)
        tags = "".join(f'\n  <script src="_static/{name}"></script>' for name in SEARCH_SCRIPTS)
        scripts = f"{tags}\n  {search_translations(lang)}"
        page = _SEARCHTOOLS_TAG.sub(lambda match, before=scripts: before + match.group(0), page, count=1)
        page = re.sub(r'<html lang="[^"]*"', f'<html lang="{HTML_LANG.render(lang)}"', page, count=1)
        page = page.replace('name="docsearch:language" content="en"', f'name="docsearch:language" content="{lang}"')
        page = page.replace("<h1>Search</h1>", f"<h1>{SEARCH_HEADING.render(lang)}</h1>")
        if (html_language(page) or "").startswith("zh"):
            page = localize(page)
        (out / SEARCH_PAGE.render(lang)).write_text(page, encoding="utf-8")
    return len(languages)


def search_in_language(text: str) -> str:
    """A Chinese page's search box submits to the Chinese search page."""
    return _SEARCH_ACTION.sub(lambda match: match.group(1) + SEARCH_PAGE.render("zh") + '"', text)


def finish(out: Path, cache: Path, notebooks: Path | None = None, docs: Path | None = None) -> dict[str, int]:
    """Apply every step above to the site in ``out``; returns counts for the build summary.

    ``notebooks``: the repository's ``notebooks`` folder, whose lesson notebooks the download buttons give.
    ``docs``: the repository's ``docs`` folder, whose cheat-sheet print stylesheet the cheat sheet's pages print with.
    """
    static = out / "_static"
    pages = [p for p in out.rglob("*.html") if "_static" not in p.relative_to(out).parts]
    modules = vendor(cache)
    formulas = render_math(pages, modules, static, out)
    script = static / "scripts" / "fontawesome.js"
    icons = icon_table(script.read_text(encoding="utf-8"))
    pygments_css = static / "pygments.css"
    plain = plain_token_classes(pygments_css.read_text(encoding="utf-8")) if pygments_css.exists() else frozenset()
    localized = moved = moved_messages = 0
    for page in pages:
        text = name_by_visible_text(inline_icons(page.read_text(encoding="utf-8"), icons))
        text = unwrap_plain_tokens(text, plain)
        text = mark_lesson_navigation(header_language_switch(text))
        text, figures = externalize_case_figures(text, page, out)
        text, messages = externalize_case_messages(text, page, out)
        moved += figures
        moved_messages += messages
        if notebooks is not None:
            text = offer_repository_notebook(text, page.relative_to(out).as_posix(), notebooks, out)
        if docs is not None:
            text = print_cheatsheet_on_one_page(text, page.relative_to(out).as_posix(), docs, out)
        if page != out / "search.html":  # only the search page searches (the theme's box submits to it)
            text = _SEARCH_SCRIPT_TAGS.sub("", _SEARCH_INDEX_TAG.sub("", text))
        if (html_language(text) or "").startswith("zh"):
            text = search_in_language(localize(text))
            localized += 1
        else:
            text = english_captions(text)
        page.write_text(text, encoding="utf-8")
    searches = search_pages(out)
    search_data_bytes = write_search_page_data(out) if searches else 0
    for leftover in static.glob("scripts/fontawesome.js*"):
        leftover.unlink()
    return {
        "formulas": formulas,
        "pages": len(pages),
        "pages_localized": localized,
        "case_figures": moved,
        "case_messages": moved_messages,
        "search_pages": searches,
        "search_data_bytes": search_data_bytes,
    }
