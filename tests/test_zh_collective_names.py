"""Chinese prose names the collectives as the glossary does, and the glossary glosses English in ASCII parentheses.

The course rule for Chinese text: the Chinese term first, its English original in ASCII parentheses on first use
(全归约 (all-reduce)). For the collectives the Chinese terms are the glossary's (全归约, 全收集, 归约散射, 全对全,
广播, 点对点收发 / 点对点通信), which :data:`coursekit.communication.COLLECTIVE_NAMES` pairs with coursekit's kinds.
So an English collective name (``all-reduce``, ``all_gather``, ``reduce-scatter``, ``all-to-all``, ``broadcast``,
``send/recv``, bare ``gather`` / ``scatter`` / ``reduce``, ``p2p``, plurals and ``-ed`` forms) may stand in Chinese
prose only where it is not prose:

* code: in backticks, in quotes (a ``repr``), in ``$math$``, in an f-string's ``{field}``, or glued to code by
  ``_ . : / -`` (``all_reduce_perf``, ``gloo:all_reduce``, ``dist.all_reduce``, ``--fp8-param-gather``);
* the English original in ASCII parentheses right after Chinese text, also across a line break of the source
  (``全归约 (all-reduce)``, ``全对全分发器\\n(all-to-all dispatcher)``, ``点对点收发 (send_recv)``);
* a name quoted from its source as published: a cited work's title as a Markdown link's text, and the published
  runs' names (:func:`coursekit.published_runs.all_published_runs`), which the course quotes as their sources write
  them.

Scanned: every zh Markdown cell (and language-neutral Markdown cell, which the zh notebook shows too) and ``# zh:``
comment of every lesson source, the Chinese half of every zh/en pair in the library and the lesson sources (read
from the source, as tests/test_bilingual_text.py reads them), and the zh instructor guides.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from coursekit.glossary import GLOSSARY
from coursekit.published_runs import all_published_runs
from tests.test_bilingual_text import SOURCES, _pairs

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
GUIDES = sorted((ROOT / "docs" / "instructor" / "zh").glob("*.md"))

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: An English collective name as a word of its own (not glued to code by _ . : / -).
COLLECTIVE = re.compile(
    r"(?<![\w:/.-])(?:all[-_ ]?reduce|all[-_ ]?gather|reduce[-_ ]?scatter|all[-_ ]?to[-_ ]?all|gather|scatter|reduce"
    r"|broadcast|send/recv|send_recv|sendrecv|p2p)(?:e?[sd])?(?![\w/-])",
    re.I,
)
#: What is not prose: code spans, math, URLs, f-string fields, reprs, a cited work's title (a Markdown link's text),
#: and the English original in ASCII parentheses after Chinese text (no Chinese inside; a line break may precede).
NOT_PROSE = re.compile(
    r"`[^`]*`|\$[^$]*\$|https?://\S+|\{[^{}]*\}|'[^'\n]*'"
    r"|\[[^\]]*\]\(https?://[^)]*\)"
    rf"|(?<=[{_CJK}])\s?\([^()\u3000-\u9fff\uff00-\uffef]*\)"
)


@cache
def _published_names() -> tuple[str, ...]:
    return tuple(sorted({run.name for run in all_published_runs()}, key=len, reverse=True))


def english_collectives(text: str) -> list[str]:
    """The English collective names ``text`` uses as Chinese prose."""
    for name in _published_names():
        text = text.replace(name, " ")
    return COLLECTIVE.findall(NOT_PROSE.sub(" ", text))


def test_the_scan_finds_english_collectives_in_prose_only() -> None:
    assert english_collectives("反向结束后对梯度做 all-reduce（按桶切分时每桶一次）") == ["all-reduce"]
    assert english_collectives("在环形算法里 all_reduce = reduce_scatter + all_gather") == [
        "all_reduce",
        "reduce_scatter",
        "all_gather",
    ]
    assert english_collectives("FSDP 计算每层前要 gather 整层；PP 的 send/recv；7 次 all-reduces") == [
        "gather",
        "send/recv",
        "all-reduces",
    ]
    assert english_collectives("拟合出的 B（all_reduce）= 1 GiB/s") == ["all_reduce"]
    # glosses, code, flags, tools, titles: nothing
    assert english_collectives("全归约 (all-reduce)、全收集峰值 (gather peak)、环形全归约 (ring all-reduce)") == []
    assert english_collectives("全对全分发器\n(all-to-all dispatcher)、点对点收发 (send_recv)") == []
    assert english_collectives("`dist.all_reduce`、gloo:all_reduce、all_reduce_perf、--fp8-param-gather") == []
    assert english_collectives("{report.result('all_reduce')} 与 'reduce_scatter'") == []
    assert english_collectives("下界：[Bandwidth optimal all-reduce algorithms](https://doi.org/10.1/x)") == []


def _cells(path: Path) -> Iterator[tuple[int, str]]:
    """The zh and language-neutral Markdown cells of a lesson source (comment marks removed), and its ``# zh:``
    comments, with the line each starts on."""
    header: str | None = None
    start, lines = 0, []
    for number, line in enumerate([*path.read_text(encoding="utf-8").splitlines(), "# %%"], 1):
        if line.startswith("# %%"):
            if header is not None and "[markdown]" in header and 'lang="en"' not in header:
                yield start, "\n".join(lines)
            header, start, lines = line, number + 1, []
            continue
        if header is not None and "[markdown]" in header:
            lines.append(line.removeprefix("#").removeprefix(" "))
        elif match := re.match(r"\s*# zh: (.*)", line):
            yield number, match.group(1)


def chinese_texts() -> Iterator[tuple[str, int, str]]:
    """(file, line, text) for every Chinese text the rule covers."""
    for path in LESSONS:
        for line, text in _cells(path):
            yield str(path.relative_to(ROOT)), line, text
    for path in SOURCES:
        for line, zh, _en, _nodes in _pairs(ast.parse(path.read_text(encoding="utf-8"))):
            yield str(path.relative_to(ROOT)), line, zh
    for path in GUIDES:
        yield str(path.relative_to(ROOT)), 1, path.read_text(encoding="utf-8")


def test_chinese_texts_name_collectives_by_their_chinese_terms() -> None:
    found = [f"{path}:{line}: {names}" for path, line, text in chinese_texts() if (names := english_collectives(text))]
    assert found == []


def test_the_scan_reads_every_kind_of_text() -> None:
    kinds = {path.split("/")[0] for path, _line, _text in chinese_texts()}
    assert kinds == {"notebooks", "coursekit", "docs"}
    lesson8 = [text for path, _line, text in chinese_texts() if path == "notebooks/src/08_lab.py"]
    assert any("全归约 (all-reduce)" in text for text in lesson8)


#: A full-width parenthesis holding only ASCII: an English gloss or a citation, which the course writes in ASCII
#: parentheses after a space (流水线阶段 (stage)). Full-width ones hold Chinese asides, also a list of names in
#: Chinese punctuation (（PipeDream-Flush、Megatron-LM）) or a formula with non-ASCII symbols (（L = λ·W）).
FULL_WIDTH_ASCII = re.compile(r"（[\x20-\x7e]+）")


def test_the_glossary_glosses_english_in_ascii_parentheses() -> None:
    found = [
        (entry.en, match)
        for entry in GLOSSARY
        for text in (entry.zh, entry.definition.zh)
        for match in FULL_WIDTH_ASCII.findall(text)
    ]
    assert found == []


@pytest.mark.parametrize("text", ["流水线阶段（stage）", "屋顶（Williams et al., 2009）"])
def test_the_parenthesis_rule_flags_english_in_full_width(text: str) -> None:
    assert FULL_WIDTH_ASCII.findall(text)
    assert not FULL_WIDTH_ASCII.findall("（PipeDream-Flush、Megatron-LM）（L = λ·W）流水线阶段 (stage)")
