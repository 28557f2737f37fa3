"""What a Chinese instructor found rehearsing the Chinese lessons and checking the course website (review 19), fixed.

Expected values are worked from the lessons' own statements, the guides' sentences and the rules stated here, not
read from the code under test.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

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
