"""A comment in a zh lesson's code is Chinese: the learner reads it as part of the lesson.

tools/build_notebooks.py writes a code comment in both languages only when it stands on a line of its own (``# zh:``
then ``# en:``); a comment at the end of a code line was copied as it is, so the zh notebooks showed English comments
such as ``# bf16 weights, one eighth per GPU at TP = 8`` or, in a worked solution, ``# 195 bytes of fp32 padding``.

The rule: a comment (a real Python comment token, not a ``#`` inside a string) that has two or more Latin words and no
CJK character is English. A commented-out call the learner is told to uncomment (``# show_solution("intro.device_gb")``
in lesson 0) is code, not English. Lessons 1, 3, 7 and 8 were fixed first; every lesson is checked now (00 to 10,
read from notebooks/src; the glossary notebook has no code).
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = tuple(sorted(path.stem for path in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py")))
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def english_comments(source: str) -> list[str]:
    """The comments of ``source`` (one code cell) that are English by the rule above.

    >>> english_comments("x = 1  # bf16 weights\\ny = '# not a comment'\\n# zh: 中文注释 with code_name\\n")
    ['# bf16 weights']
    >>> english_comments("%pip install x  # a magic line is skipped, its comment too\\nz = 2  # E(P)\\n")
    []
    >>> english_comments('# show_solution("intro.device_gb")\\n# throughput(P) / (P * throughput(1))\\n')
    ['# throughput(P) / (P * throughput(1))']
    """
    lines = ["pass" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    tokens = tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
    return [
        token.string
        for token in tokens
        if token.type == tokenize.COMMENT
        and not _CJK.search(token.string)
        and len(_LATIN_WORD.findall(token.string)) >= 2
        and not commented_out_call(token.string)
    ]


def commented_out_call(comment: str) -> bool:
    """Whether ``comment`` is one call statement with its ``#`` in front, code for the learner to uncomment.

    >>> commented_out_call('# show_solution("intro.device_gb")'), commented_out_call("# the ZeRO paper (Figure 1)")
    (True, False)
    """
    try:
        tree = ast.parse(comment.lstrip("#").strip())
    except SyntaxError:
        return False
    return len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Call)


@pytest.mark.parametrize("lesson", LESSONS)
def test_zh_lesson_code_comments_are_chinese(lesson: str) -> None:
    cells = json.loads((ROOT / "notebooks" / "zh" / f"{lesson}.ipynb").read_text(encoding="utf-8"))["cells"]
    found = [
        f"cell {index}: {comment}"
        for index, cell in enumerate(cells)
        if cell["cell_type"] == "code"
        for comment in english_comments("".join(cell["source"]))
    ]
    assert not found, f"zh/{lesson}: English comments in code:\n" + "\n".join(found)


def test_lesson7_ridge_comment_quotes_the_ridge_the_lesson_prints() -> None:
    # The comment said "989.4 TFLOP/s / 3.35 TB/s = 295.3"; the lesson's table prints the H100 ridge point from
    # coursekit.hardware's 989 TFLOP/s: 989 / 3.35 = 295.2 FLOP/byte.
    from coursekit.hardware import H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S

    ridge = f"{H100_BF16_DENSE_FLOPS / H100_HBM_BYTES_PER_S:.1f}"
    for lang in ("zh", "en"):
        text = (ROOT / "notebooks" / lang / "07_compute_efficiency.ipynb").read_text(encoding="utf-8")
        assert "295.3" not in text and "989.4" not in text, lang
        assert f"= {ridge}" in text, lang


def test_every_lesson_is_checked() -> None:
    assert [name[:2] for name in LESSONS] == [f"{n:02d}" for n in range(11)]
