"""What the Chinese self-learner of review 24 met typing answers in lessons 4, 6, 7, 8 and 10 in JupyterLab, fixed.

1. ``answer =`` with nothing after it (the learner deleted ``...`` to type an answer and pressed Shift+Enter too early):
   Python's bare ``SyntaxError: invalid syntax`` and no line of help, the only one of the slips typed in review 24
   (full-width digits, a unit, "约", a percent sign, a decimal comma, ...) that got none. Now the line says that the
   equals sign has nothing after it and how to go back to "not answered" (``answer = ...``).
"""

from __future__ import annotations

import pytest

from coursekit.exercises.input_help import input_hint
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)


def _syntax_error(source: str) -> SyntaxError:
    try:
        compile(source, "<cell>", "exec")
    except SyntaxError as error:
        return error
    raise AssertionError(f"{source!r} raised no SyntaxError")


# -- 1. answer = with nothing after it --------------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_an_empty_answer_gets_a_line_of_help() -> None:
    # the exercise cell as the learner left it: the first line emptied, check() under it
    hint = input_hint(_syntax_error('answer =\ncheck("q4.naive_ranks", answer)\n'))
    assert hint == (
        "第 1 行的等号后面是空的：Python 要求 = 右边有一个值。在 answer = 后面写上你的答案，"
        "再运行本单元格；还没想好就写回 answer = ...（表示还没作答）。"
    )
    # a comment after the equals sign is still nothing; the line number is the error's
    later = input_hint(_syntax_error("x = 1\nanswer =   # 填这里\n"))
    assert later is not None and later.startswith("第 2 行的等号后面是空的")
    # other syntax errors keep their own help (or none): a percent sign, a stray bracket
    percent = input_hint(_syntax_error("answer = 15.8%\n"))
    assert percent is not None and "百分号" in percent
    assert input_hint(_syntax_error("answer = [5, 7\n")) is None


@pytest.mark.usefixtures("en")
def test_an_empty_answer_in_english() -> None:
    hint = input_hint(_syntax_error("answer = \n"))
    assert hint is not None and hint.startswith("Line 1 has nothing after its equals sign")
    assert "answer = ..." in hint
