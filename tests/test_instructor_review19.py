"""What a Chinese instructor found rehearsing the Chinese lessons and checking the course website (review 19), fixed.

Expected values are worked from the lessons' own statements, the guides' sentences and the rules stated here, not
read from the code under test.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.site_build import in_browser, served, site

__all__ = ["served", "site"]

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
LESSONS = tuple(sorted(SRC.glob("[0-9][0-9]_*.py")))

# -- zh code comments: a wrapped comment breaks where Chinese prose may break --------------------------------------

#: A Chinese comment line of a lesson source (``# zh: ...``), its indentation and its text.
_ZH_COMMENT = re.compile(r"^(\s*)# zh: (.*)$")
#: Where a Chinese comment may continue on the next line: after a clause's punctuation (full-width or ASCII), or
#: before an opening parenthesis, an arrow or an equals sign that starts the next line.
_BREAK_AFTER = "，。；：、）”,;:)"
_BREAK_BEFORE = ("（", "->", "=")


def zh_comment_breaks(source: str) -> list[tuple[int, str, str]]:
    r"""The line breaks inside runs of Chinese code comments that fall mid-phrase: (line, end, next line's start).

    The English review re-wrapped each run to 80 columns by width, so a break fell wherever the width ran out:
    between 16 and 个头, between 450 and GB/s, inside ceil(5/4) or initialize_model_parallel, between 放得 and 下.
    Chinese has no spaces to break at, so the rule is the one a typesetter keeps: a wrapped comment line ends with a
    clause's punctuation, or the next line opens with a parenthesis, an arrow or an equals sign.

    >>> text = '# %%\n# zh: 共 1,221 个\n# zh: 参数。\n# en: 1,221\n# en: parameters.\n'
    >>> zh_comment_breaks(text)
    [(2, '1,221 个', '参数。')]
    >>> zh_comment_breaks('# %%\n# zh: 手算：\n# zh: 2 x 2 = 4 字节。\n# en: a\n# en: b\n')
    []
    >>> zh_comment_breaks('# %% [markdown] lang="zh"\n# zh: 不是代码\n# zh: 单元格\n')
    []
    """
    found: list[tuple[int, str, str]] = []
    run: list[tuple[int, str]] = []
    code = False

    def flush() -> None:
        for (number, text), (_, following) in itertools.pairwise(run):
            if not text.rstrip().endswith(tuple(_BREAK_AFTER)) and not following.lstrip().startswith(_BREAK_BEFORE):
                found.append((number, text.rstrip()[-8:].lstrip(), following.lstrip()[:8]))
        run.clear()

    for number, line in enumerate(source.split("\n"), start=1):
        if line.startswith("# %%"):
            flush()
            code = "[markdown]" not in line
            continue
        match = _ZH_COMMENT.match(line) if code else None
        if match:
            run.append((number, match.group(2)))
        else:
            flush()
    flush()
    return found


@pytest.mark.parametrize("path", LESSONS, ids=[path.stem for path in LESSONS])
def test_wrapped_zh_code_comments_break_between_phrases(path: Path) -> None:
    # 48 breaks in 9 lessons before this review, e.g. lesson 7's "25 / 50 GB" | "/s。" and lesson 8's "ceil(5/" | "4)"
    breaks = zh_comment_breaks(path.read_text(encoding="utf-8"))
    assert not breaks, "\n".join(f"{path.name}:{n}: ...{end!r} | {start!r}..." for n, end, start in breaks)


def test_the_rule_reads_every_lesson() -> None:
    assert [path.name[:2] for path in LESSONS] == [f"{n:02d}" for n in range(11)]


# -- guide figures no test pinned, computed from coursekit -------------------------------------------------------


def _guide(lang: str, stem: str) -> str:
    return (ROOT / "docs" / "instructor" / lang / f"{stem}.md").read_text(encoding="utf-8")


def _serving_numbers_zh() -> list[str]:
    """tests/test_instructor_guides.py's lesson-10 figures (pinned in the English guide only), as the Chinese guide
    writes them: a per cent sign without the English space."""
    from tests.test_instructor_guides import _serving_numbers

    return [re.sub(r"\*\*(\d+) %\*\*", r"**\1%**", number) for number in _serving_numbers()]


def test_zh_serving_guide_quotes_coursekits_numbers() -> None:
    # the all-reduce (2.45 ms), the reads (5.27 ms), their share of TPOT (32 %), TPOT at batch 64 and 16, Mixtral's GB
    text = _guide("zh", "10_serving")
    missing = [number for number in _serving_numbers_zh() if number not in text]
    assert not missing, f"zh/10_serving.md does not quote: {missing}"


MEGATRON_70B = "Megatron-Core GPT 70B, 4K, 768 H100"
ZOO_PP32 = "all-to-all, EP 8, PP 32"
DGXC_405B = ("DGX Cloud Llama 3.1 405B, 8K, 576 H100 (BF16)", "DGX Cloud Llama 3.1 405B, 8K, 576 H100 (FP8)")


def _workbench_phrases() -> list[tuple[str, str, str]]:
    """(lang, phrase of the lesson-9 guide, the phrase built from compare_published) for figures no test pinned."""
    from tests.test_instructor_published_runs import ZOO, _c, _ordinal, _x, _zoo_step_s

    core70 = _c(MEGATRON_70B)
    pp32 = _c(ZOO.format("4K", ZOO_PP32))
    ranks = [_c(name).rank for name in DGXC_405B]
    assert core70.passes and core70.tie_group == 1 and pp32.passes
    steps = (_zoo_step_s(ZOO_PP32), _x(pp32.step_over_best))
    return [
        ("zh", "70B 那一行排第 5 名，是最优的 1.04 倍",
         f"70B 那一行排第 {core70.rank} 名，是最优的 {_x(core70.step_over_best)} 倍"),
        ("en", "the 70B row ranks 5th, 1.04x the best",
         f"the 70B row ranks {_ordinal(core70.rank)}, {_x(core70.step_over_best)}x the best"),
        ("zh", "PP 32（19.2 s，最优的 1.16 倍）", "PP 32（{:.1f} s，最优的 {} 倍）".format(*steps)),
        ("en", "PP 32 (19.2 s, 1.16x the best)", "PP 32 ({:.1f} s, {}x the best)".format(*steps)),
        ("zh", "576 张卡上的 Llama 3.1 405B 排第 5 和第 3 名",
         "576 张卡上的 Llama 3.1 405B 排第 {} 和第 {} 名".format(*ranks)),
        ("en", "Llama 3.1 405B on 576 GPUs ranks 5th and 3rd",
         "Llama 3.1 405B on 576 GPUs ranks {} and {}".format(*map(_ordinal, ranks))),
    ]  # fmt: skip


@pytest.mark.parametrize("index", range(6))
def test_workbench_guide_figures_are_the_published_run_comparisons(index: int) -> None:
    lang, phrase, computed = _workbench_phrases()[index]
    assert phrase in _guide(lang, "09_workbench"), f"{lang}/09_workbench.md no longer says {phrase!r}"
    assert computed == phrase


# -- zh strings split over lines: a number keeps its unit --------------------------------------------------------

#: A line of lesson code that continues a string (implicit concatenation), and a Chinese text's first line.
_STRING_LINE = re.compile(r"""^\s*(?:zh=)?[fr]?(["'])""")
#: Where a split leaves a number or a ``{placeholder}`` without its unit or measure word (``8 " | "个请求``,
#: ``{margin_gib:.1f} " | "GiB``), or a command's option without its value (``pip install -e " | "".[lab]"``).
_BAD_STRING_END = re.compile(r"""(?:[\d}]|\s-{1,2}[A-Za-z][\w-]*) (["'])$""")


def zh_string_splits(source: str) -> list[tuple[int, str, str]]:
    r"""Splits of a ``zh=`` string over lines that part a number from its unit or an option from its value.

    The English review cut the strings of ``Text(zh=..., en=...)`` where the 80 columns ran out; a Chinese line
    that then ends on a number reads, in the projected code cell, as if the number stood alone. What is printed does
    not change: only where the code line breaks.

    >>> zh_string_splits('print(Text(\n    zh=f"每秒到达 8 "\n    f"个请求",\n    en="8 requests",\n))')
    [(2, 'h=f"每秒到达 8 "', 'f"个请求",')]
    >>> zh_string_splits('Text(\n    zh=f"每秒到达 8 个请求，"\n    f"每个停留 2.5 秒",\n    en="x 8 "\n    "y")')
    []
    """
    lines = source.split("\n")
    found: list[tuple[int, str, str]] = []
    in_zh = False
    for number, (line, following) in enumerate(itertools.pairwise(lines), start=1):
        text = line.rstrip().removesuffix(",")
        if "zh=" in line:
            in_zh = bool(_STRING_LINE.match(line.replace("zh=", "", 1)))
        elif not _STRING_LINE.match(line):
            in_zh = False
        if in_zh and _STRING_LINE.match(following) and "=" not in following.split('"')[0]:
            if _BAD_STRING_END.search(text):
                found.append((number, text.strip()[-12:], following.strip()[:12]))
    return found


@pytest.mark.parametrize("path", LESSONS, ids=[path.stem for path in LESSONS])
def test_zh_strings_split_over_lines_keep_a_number_with_its_unit(path: Path) -> None:
    # 12 in 4 lessons before this review, e.g. lesson 10's "每秒到达 8 " | "个请求" and lesson 8's
    # "pip install -e " | "".[lab]""
    splits = zh_string_splits(path.read_text(encoding="utf-8"))
    assert not splits, "\n".join(f"{path.name}:{n}: ...{end!r} | {start!r}..." for n, end, start in splits)


# -- the course website ------------------------------------------------------------------------------------------

#: A website lesson's output blocks (what the lesson printed) wider inside than their box: a sideways scroll.
SITE_OUTPUT_SCROLLS = """() => [...document.querySelectorAll('div.cell_output pre')]
  .filter((pre) => pre.clientWidth && pre.scrollWidth > pre.clientWidth + 1)
  .map((pre) => [pre.scrollWidth, pre.clientWidth, pre.textContent.slice(0, 40)])"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_website_printed_output_wraps_as_in_jupyterlab(site: Path, lang: str) -> None:
    # JupyterLab's output area wraps a printed line (white-space: pre-wrap); the website kept it on one line, so at
    # 1280 px 44 zh and 119 en output blocks scrolled sideways (33 and 116 at 1024 px, 125 %), e.g. lesson 3's
    # "上下文 未声明，单卡可容纳 未声明：CP 拒绝。原因：..." at 1528 px in a 688 px block
    pages = sorted((site / "notebooks" / lang).glob("[0-9][0-9]_*.html"))
    assert len(pages) == 11

    def run(browser: object) -> dict[str, list[list[object]]]:
        wide = {}
        for viewport, zoom in (((1280, 900), 1.0), ((819, 614), 1.25), ((390, 844), 3.0)):
            for path in pages:
                page = browser.new_page(  # type: ignore[attr-defined]
                    viewport={"width": viewport[0], "height": viewport[1]}, device_scale_factor=zoom
                )
                page.goto(path.as_uri())
                page.wait_for_load_state("load")
                over = page.evaluate(SITE_OUTPUT_SCROLLS)
                page.close()
                if over:
                    wide[f"{viewport[0]}px {path.name}"] = over
        return wide

    assert in_browser(run) == {}


#: For each result of a finished search: its page, whether the text its snippet is cut from (the site's own
#: ckSnippetText) has the query as typed, and whether the snippet shown has it.
_SNIPPETS = """async (phrase) => {
  const squeeze = (text) => text.toLowerCase().replace(/\\s+/g, ' ');
  const out = [];
  for (const li of document.querySelectorAll('#search-results ul.search li')) {
    const url = new URL(li.querySelector('a').href);
    const html = await (await fetch(url.pathname)).text();
    const snippet = li.querySelector('p.context');
    out.push([url.pathname + url.hash, squeeze(ckSnippetText(html, url.hash)).includes(phrase),
              snippet !== null && squeeze(snippet.innerText).includes(phrase)]);
  }
  return out;
}"""


@pytest.mark.parametrize(
    ("search_page", "query"),
    [("search-zh.html", "张量并行"), ("search-zh.html", "流水线气泡"), ("search.html", "pipeline bubble"),
     ("search.html", "ZeRO-3")],
)  # fmt: skip
def test_search_snippet_shows_the_phrase_searched_for(served: str, search_page: str, query: str) -> None:
    # Sphinx centred a snippet on the first hit of the query's last word: 12 of the 19 results for 张量并行 whose page
    # has the phrase showed a snippet around some other 并行, 15 of 27 for ZeRO-3 one around a "3"
    def run(browser: object) -> list[list[object]]:
        page = browser.new_page()  # type: ignore[attr-defined]
        try:
            page.goto(f"{served}/{search_page}?q={quote(query)}")
            page.wait_for_function(
                "() => { const items = document.querySelectorAll('#search-results ul.search li');"
                " return items.length && [...items].every((li) => li.querySelector('p.context')); }",
                timeout=120_000,
            )
            return page.evaluate(_SNIPPETS, query.lower())  # type: ignore[no-any-return]
        finally:
            page.close()

    results = in_browser(run)
    with_phrase = [path for path, has, _ in results if has]
    assert len(with_phrase) >= 10, f"{query!r}: the test's premise (pages with the phrase) is wrong: {results}"
    assert [path for path, has, shown in results if has and not shown] == []


#: An A4 page (210 mm) less tools/site/print_pdf.py's 14 mm margins each side, in CSS px (96 a inch): 687.9 px.
A4_CONTENT_PX = round((210 - 14 - 14) / 25.4 * 96)
#: Blocks of a page's article that hold more than their box on paper (paper does not scroll: the rest is cut off).
_CUT_ON_PAPER = """() => [...document.querySelectorAll('article pre')]
  .filter((pre) => pre.clientWidth && pre.scrollWidth > pre.clientWidth + 1)
  .map((pre) => [pre.scrollWidth, pre.clientWidth, pre.textContent.trim().slice(0, 40)])"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_printed_lessons_keep_every_code_column(site: Path, lang: str) -> None:
    # printed (the print stylesheet, an A4 page), an 80-column line at the screen's 13 px needed 658 px of a 620 px
    # block: 100 zh and 137 en code blocks lost their last columns in page.pdf and course-LANG.pdf
    assert A4_CONTENT_PX == 688
    pages = sorted((site / "notebooks" / lang).glob("[0-9][0-9]_*.html"))
    assert len(pages) == 11

    def run(browser: object) -> dict[str, list[list[object]]]:
        cut = {}
        for path in pages:
            page = browser.new_page(viewport={"width": A4_CONTENT_PX, "height": 1000})  # type: ignore[attr-defined]
            page.emulate_media(media="print")
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
            over = page.evaluate(_CUT_ON_PAPER)
            page.close()
            if over:
                cut[path.name] = over
        return cut

    assert in_browser(run) == {}
