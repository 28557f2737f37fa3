"""A line of help under an error Python raised before ``check`` could see the answer.

Two slips stop a learner's cell before the checker runs, and Python's own message names neither the cause nor the
fix in the learner's language:

* an input method left in Chinese (full-width) mode: ``answer = 25.77。``, ``answer = 26，19``, ``answer = ２６``
  or a minus sign pasted from a PDF (``−1.47``) is a ``SyntaxError: invalid character '。' (U+3002)``;
* a number written with a percent sign, ``answer = 5.4%`` (or the full-width ``５.４％``): a bare
  ``SyntaxError: invalid syntax``;
* a number typed with its unit or with "约" (``answer = 4.45ms``, ``answer = 25.77吉字节``, ``answer = 约26.2``), or
  with a decimal comma before a 0 (``answer = 0,05``): ``invalid decimal literal``, ``invalid syntax`` or
  ``leading zeros in decimal integer literals``;
* ``answer =`` with nothing after it (the ``...`` deleted before an answer was typed): a bare ``invalid syntax``;
* a name Python does not know: an option written without quotes (``answer = B``, ``answer = true``), or a variable
  from a cell above that has not run yet (after a kernel restart, say): a ``NameError``.

:func:`install` registers a handler with IPython for these two errors. It shows Python's own traceback as before and
then one line that says what happened and what to type instead (the offending line with the characters replaced).
Lessons install it when they import :mod:`coursekit.exercises` in a Jupyter kernel; it leaves a shell that already
has a custom handler alone. :func:`input_hint` is the text alone, for a plain error and its line.

>>> import coursekit
>>> coursekit.set_language("en")
>>> error = SyntaxError("invalid character '。' (U+3002)", ("<cell>", 1, 15, "answer = 25.77。\\n"))
>>> print(input_hint(error))  # doctest: +NORMALIZE_WHITESPACE
Line 1 holds '。', a full-width character (typed by a Chinese input method, or copied from a web page or PDF);
Python reads only half-width (English) characters. Switch the input method to English and type the line again:
answer = 25.77
>>> print(input_hint(NameError("name 'B' is not defined", name="B"), "answer = B"))  # doctest: +NORMALIZE_WHITESPACE
Python cannot find the name 'B' (NameError). If it is one of the options the question lists, write it in quotes:
answer = 'B'. If it is a variable from a cell above, run the cells above first (JupyterLab's menu Run → Run All
Above Selected Cell); after a kernel restart every variable has to be computed again.

Taught in: lesson 0 (how the exercises work).
"""

from __future__ import annotations

import ast
import decimal
import html
import linecache
import math
import os
import re
import unicodedata
import warnings
from collections.abc import Callable
from decimal import Decimal
from types import TracebackType
from typing import Any

from .._validate import check_instance, check_int, learner_functions
from ..i18n import LANGUAGES, Text, set_language, shown_str, tr
from ..i18n import register as _register_messages

__all__ = [
    "chinese_number_text",
    "chinese_numeral_value",
    "colon_answer_hint",
    "input_hint",
    "install",
    "tilde_hint",
]

#: The Chinese numerals 0-10 a learner may type for a small whole number (exercise 1.2's ZeRO stage "二"), each with
#: its value: Python reads them as names (a NameError) or, in quotes, as text (review 25).
CHINESE_NUMERALS: dict[str, int] = dict(
    zip("零〇一二两三四五六七八九十", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10), strict=True)  # data, not prose
)

_DIGITS: dict[str, int] = {c: v for c, v in CHINESE_NUMERALS.items() if v < 10}
_UNITS: dict[str, int] = dict(zip("十百千", (10, 100, 1000), strict=True))  # data, not prose


def chinese_numeral_value(text: str) -> int | None:
    """The whole number 0-9999 ``text`` writes in Chinese numerals (``'十六'`` 16, ``'六十四'`` 64,
    ``'一百八十四'`` 184, ``'三百二十'`` 320, ``'一千零二十四'`` 1024), else None. Exercises 4.2, 4.3 and 10.2 ask
    for counts such as these; a learner who types one gets a NameError or, in quotes, a string (review 26).

    >>> [chinese_numeral_value(t) for t in ("二", "十六", "六十四", "一百八十四", "三百二十", "一千零二十四", "两百")]
    [2, 16, 64, 184, 320, 1024, 200]
    >>> chinese_numeral_value("十十"), chinese_numeral_value("放得下"), chinese_numeral_value("")
    (None, None, None)
    >>> [chinese_numeral_value(t) for t in ("零零", "十零", "一千零", "一千零零一", "一千零一", "一百零五")]
    [None, None, None, None, 1001, 105]

    ``text`` must be a string (anything else is refused naming it, in the learner's language).
    """
    text = check_instance("text", text, str)
    if text in CHINESE_NUMERALS:
        return CHINESE_NUMERALS[text]
    if not text or any(c not in _DIGITS and c not in _UNITS for c in text):
        return None
    total, digit, last_unit = 0, None, 10_000
    for index, char in enumerate(text):
        if char in _DIGITS:
            if digit is not None and digit != 0:
                return None  # two digits in a row ("六四")
            if _DIGITS[char] == 0 and (
                not total or digit is not None or index + 1 == len(text) or _DIGITS.get(text[index + 1], 0) == 0
            ):
                # 零 stands only for a place skipped between a unit and a digit ("一千零二十四"): never first, twice
                # or last ("零零", "十零", "一千零" are no numerals; fuzz pass 24 read them as 0, 10 and 1000)
                return None
            digit = _DIGITS[char]
        else:
            unit = _UNITS[char]
            if unit >= last_unit or digit == 0:
                return None  # units must fall ("十百") and follow a digit other than 零
            if digit is None:
                if total or unit != 10:
                    return None  # only 十 may stand without its digit, and only first ("十六")
                digit = 1
            total, digit, last_unit = total + digit * unit, None, unit
    return total + (digit or 0)


#: The Chinese orders of magnitude that group a long numeral's digits, largest first (两千四百亿 is 2400 x 10^8).
_SECTION_UNITS: tuple[tuple[str, int], ...] = (("亿", 10**8), ("万", 10**4))  # data, not prose
#: The Chinese decimal point (三十一点四 is 31.4) and the sign of a negative number (负三 is -3).
_POINT, _MINUS = "点", "负"  # data, not prose


def _chinese_sections(text: str, units: tuple[tuple[str, int], ...]) -> int | None:
    """The whole number ``text`` writes in Chinese numerals grouped by 亿 and 万 (``'两千四百亿'`` 240000000000,
    ``'一万零五百'`` 10500), else None; each group is a numeral 0-9999 (:func:`chinese_numeral_value`), a group after
    a larger one may start with 零 for the places it skips."""
    if not units:
        return chinese_numeral_value(text) if text else None
    (word, size), rest = units[0], units[1:]
    if word not in text:
        return _chinese_sections(text, rest)
    head, _, tail = text.partition(word)
    high = _chinese_sections(head, rest)
    if high is None or high == 0 or word in tail:
        return None  # a group needs its count (一亿, not 亿), and each unit comes once
    if not tail:
        return high * size
    low = _chinese_sections(tail[1:] if tail.startswith("零") else tail, rest)
    return None if low is None else high * size + low


def chinese_number_text(text: str) -> str | None:
    """The number ``text`` writes in Chinese numerals with a decimal point (点), a sign (负) or a group of 万 or 亿,
    written in Arabic digits as Python reads it (``'三十一点四'`` ``'31.4'``, ``'两千四百亿'`` ``'240000000000'``,
    ``'负三'`` ``'-3'``); None when it writes none (or a whole number 0-9999 alone, :func:`chinese_numeral_value`'s).
    A learner who types one gets a NameError or, in quotes, a string (fuzz pass 25).

    >>> [chinese_number_text(t) for t in ("三十一点四", "两千四百亿", "负三", "零点五", "一万零五百", "十六")]
    ['31.4', '240000000000', '-3', '0.5', '10500', None]
    >>> chinese_number_text("点五"), chinese_number_text("亿"), chinese_number_text("三点"), chinese_number_text("负")
    (None, None, None, None)
    """
    check_instance("text", text, str)
    sign, body = ("-", text[1:]) if text.startswith(_MINUS) else ("", text)
    whole_text, point, fraction = body.partition(_POINT)
    whole = _chinese_sections(whole_text, _SECTION_UNITS)
    if whole is None or (point and not fraction) or any(char not in _FRACTION_DIGITS for char in fraction):
        return None
    if not (sign or point or any(word in whole_text for word, _ in _SECTION_UNITS)):
        return None  # a whole number 0-9999 alone: chinese_numeral_value's (its own message)
    digits = "".join(str(_FRACTION_DIGITS[char]) for char in fraction)
    return f"{sign}{whole}" + (f".{digits}" if digits else "")


def _numeral_with_magnitude(text: str) -> tuple[str, str] | None:
    """``text`` as a number in Arabic digits and the Chinese order of magnitude it ends with (``'两千四百亿'``:
    ``('2400', '亿')``, ``'三点五万'``: ``('3.5', '万')``), for :func:`magnitude_hint`'s conversion, else None. Only a
    numeral before one order of magnitude: ``'一亿零五百万'`` is 105,000,000, not 100,000,500 x 10^4. The order is
    万亿, 亿 or 万; 十, 百 and 千 before it belong to the numeral (两千四百亿 is 2400 x 10^8).

    >>> _numeral_with_magnitude("两千四百亿"), _numeral_with_magnitude("三点五万"), _numeral_with_magnitude("两万亿")
    (('2400', '亿'), ('3.5', '万'), ('2', '万亿'))
    >>> _numeral_with_magnitude("一亿零五百万"), _numeral_with_magnitude("亿")
    (None, None)
    """
    for word in _GROUP_MAGNITUDES:
        head = text[: -len(word)]
        if not text.endswith(word) or not head or any(unit in head for unit, _ in _SECTION_UNITS):
            continue
        value = chinese_numeral_value(head)
        number = str(value) if value is not None else chinese_number_text(head)
        return None if number is None else (number, word)
    return None


#: The orders of magnitude a Chinese numeral ends with, as :func:`_numeral_with_magnitude` reads them (the longest
#: first: 万亿 before 亿).
_GROUP_MAGNITUDES: tuple[str, ...] = ("万亿", "亿", "万")  # data, not prose

#: The digits after a Chinese decimal point (三点一四 is 3.14; 两 and 十 are none there).
_FRACTION_DIGITS: dict[str, int] = {char: value for char, value in _DIGITS.items() if char != "两"}


#: The words for "about" a learner may put before a number, in pairs (the longer first, so "大约" is not read as "约").
_ABOUT_WORDS: tuple[Text, ...] = (
    Text(zh="大约", en="approximately"),
    Text(zh="大概", en="approx."),
    Text(zh="近似", en="approx"),
    Text(zh="约", en="about"),
)


def _comma_reading(head: str, tail: str) -> str:
    """How a number written ``head,tail`` (the digits before and after one comma) reads: ``"decimal"``,
    ``"thousands"`` or ``"either"``.

    A thousands group has three digits and never follows a lone 0 (``0,256`` is 0.256, ``26,19`` is 26.19);
    ``4,445`` may be 4.445 or 4445, so only the question can tell.

    >>> _comma_reading("0", "256"), _comma_reading("-0", "5"), _comma_reading("26", "19"), _comma_reading("4", "445")
    ('decimal', 'decimal', 'decimal', 'either')
    """
    if len(tail) != 3 or head.lstrip("+-") == "0":
        return "decimal"
    return "either"


_register_messages(
    {
        "input_help.full_width": {
            "zh": "第 {line} 行有 '{char}'：这是中文输入法打出的（或从网页、PDF 复制来的）全角字符，"
            "Python 只认半角（英文）字符。把输入法切换到英文，重新输入这一行：{fixed}",
            "en": "Line {line} holds '{char}', a full-width character (typed by a Chinese input method, or copied "
            "from a web page or PDF); Python reads only half-width (English) characters. Switch the input method "
            "to English and type the line again: {fixed}",
        },
        "input_help.full_width_space": {
            "zh": "第 {line} 行有一个看不见的字符 {code}（中文输入法打出的全角空格，或从网页、PDF 复制来的空格），"
            "Python 不认。删掉它，或把输入法切换到英文重新输入这一行：{fixed}",
            "en": "Line {line} holds an invisible character, {code} (the full-width space of a Chinese input method, "
            "or a space copied from a web page or PDF), which Python does not read. Delete it, or switch the input "
            "method to English and type the line again: {fixed}",
        },
        "input_help.compared": {
            "zh": "第 {line} 行用了两个等号 ==：那是比较，Python 先要读 answer 的值，而它还没有值（NameError）。"
            "赋值只用一个等号：{fixed}",
            "en": "Line {line} uses two equals signs ==: a comparison, for which Python first reads answer, which has "
            "no value yet (NameError). An assignment takes one equals sign: {fixed}",
        },
        "input_help.approx": {
            "zh": "第 {line} 行有“≈”：Python 里没有“约等于”号。只写一边；"
            "检查器按你写出的位数判断，本来就容许舍入：{fixed}",
            "en": "Line {line} has “≈”: Python has no “about” sign. Write one side only; the checker judges the digits "
            "you write and allows for rounding: {fixed}",
        },
        "input_help.approx_or": {"zh": " 或 ", "en": " or "},
        "input_help.tilde": {
            "zh": "第 {line} 行的数前面有“~”：在 Python 里 ~ 不是“约”，而是按位取反（~128 是 -129，~26.19 报错）。"
            "检查器按你写出的位数判断，本来就容许舍入，不用写“~”：{fixed}",
            "en": "Line {line} has “~” before its number: in Python ~ is not “about” but bitwise NOT (~128 is -129, "
            "~26.19 an error). The checker judges the digits you write and allows for rounding, so leave out “~”: "
            "{fixed}",
        },
        "input_help.full_width_still": {
            "zh": "第 {line} 行有 '{char}'：这是中文输入法打出的（或从网页、PDF 复制来的）全角字符，"
            "Python 只认半角（英文）字符。只把它换成半角，这一行仍不是 Python 能读的代码：把输入法切换到英文，"
            "对照题目重新输入这一行（选项写在引号里，数不带单位或百分号）。",
            "en": "Line {line} holds '{char}', a full-width character (typed by a Chinese input method, or copied "
            "from a web page or PDF); Python reads only half-width (English) characters. With only that character "
            "replaced the line is still not Python: switch the input method to English and type the line again as "
            "the question asks (an option in quotes, a number without a unit or percent sign).",
        },
        "input_help.percent": {
            "zh": "第 {line} 行的数后面带着百分号 '%'：Python 的数不带百分号（% 在 Python 里是求余数的运算符）。"
            "去掉它：题目要 0 到 1 之间的比例时写 answer = {fraction}（{number}% 就是 {fraction}）；"
            "题目要百分数时写 answer = {number}。",
            "en": "Line {line} ends its number with a percent sign '%': Python numbers take no percent sign (in "
            "Python % is the remainder operator). Drop it: if the question asks for a fraction between 0 and 1, "
            "write answer = {fraction} ({number}% is {fraction}); if it asks for a percentage, write answer = "
            "{number}.",
        },
        "input_help.truth_value": {
            "zh": "Python 找不到名字 '{name}'（NameError）。真假值要写作 True 或 False"
            "（首字母大写，不加引号）：answer = {literal}。",
            "en": "Python cannot find the name '{name}' (NameError). Truth values are written True and False "
            "(capital first letter, no quotes): answer = {literal}.",
        },
        "input_help.unquoted": {
            "zh": "Python 找不到名字 '{name}'（NameError）。如果它是题目列出的选项，要加引号写成文字：{fixed}。"
            "如果它是前面单元格里算出的变量，先从本课开头依次运行前面的单元格"
            "（{menu}）；重启内核 (kernel) 之后，所有变量都要重新算一遍。",
            "en": "Python cannot find the name '{name}' (NameError). If it is one of the options the question lists, "
            "write it in quotes: {fixed}. If it is a variable from a cell above, run the cells above first ({menu}); "
            "after a kernel restart every variable has to be computed again.",
        },
        "input_help.full_width_decimal_comma": {
            "zh": "第 {line} 行的数中间有 '{char}'：这是中文输入法打出的全角逗号；而且 Python 的小数点是半角句点 '.'，"
            "不是逗号。把输入法切换到英文，重新输入这一行：{fixed}",
            "en": "Line {line} has '{char}' inside its number: a full-width comma typed by a Chinese input method; and "
            "Python's decimal point is a full stop '.', not a comma. Switch the input method to English and type the "
            "line again: {fixed}",
        },
        "input_help.full_width_thousands_comma": {
            "zh": "第 {line} 行的数中间有 '{char}'：这是中文输入法打出的全角逗号；数里也不要写千位分隔的逗号。"
            "把输入法切换到英文，重新输入这一行：{fixed}",
            "en": "Line {line} has '{char}' inside its number: a full-width comma typed by a Chinese input method; and "
            "a number takes no thousands commas. Switch the input method to English and type the line again: {fixed}",
        },
        "input_help.full_width_either_comma": {
            "zh": "第 {line} 行的数中间有 '{char}'：这是中文输入法打出的全角逗号。它可能是小数点，也可能是千位分隔："
            "Python 的小数点是半角句点 '.'，数里也不写千位分隔的逗号。把输入法切换到英文，重新输入这一行："
            "想写小数就写 {decimal}，想写整数就写 {whole}",
            "en": "Line {line} has '{char}' inside its number: a full-width comma typed by a Chinese input method. It "
            "may be a decimal point or a thousands comma: Python's decimal point is a full stop '.', and a number "
            "takes no thousands commas. Switch the input method to English and type the line again: {decimal} for "
            "a decimal, {whole} for a whole number",
        },
        "input_help.decimal_comma": {
            "zh": "第 {line} 行的数把小数点写成了逗号：Python 的小数点是半角句点 '.'（逗号把两个数隔开，"
            "而 0 开头的 {tail} 不是 Python 的数）。重新输入这一行：{fixed}",
            "en": "Line {line} writes its decimal point as a comma: Python's decimal point is a full stop '.' (a comma "
            "separates two numbers, and {tail}, starting with 0, is no Python number). Type the line again: {fixed}",
        },
        "input_help.unit": {
            "zh": "第 {line} 行的数后面带着单位 '{unit}'：Python 的数不带单位。只写数，用题目要求的单位：{fixed}",
            "en": "Line {line} has the unit '{unit}' after its number: Python numbers take no unit. Write the number "
            "alone, in the unit the question asks for: {fixed}",
        },
        "input_help.magnitude_number": {
            "zh": "number = {value!r}：必须是写出来的一个数（ASCII 数字，可带正负号、小数点和指数，例如 '2400'）",
            "en": "number = {value!r}: must be one number as written (ASCII digits, with a sign, a decimal point or an "
            "exponent if any, e.g. '2400')",
        },
        "input_help.magnitude": {
            "zh": "'{word}' 不是单位，是数量级 10^{power}：{written} = {number} * 10**{power} = {value}"
            "（按十亿 (B) 计是 {billions}）。先换算成题目要求的单位，再只写数，不带“{word}”。",
            "en": "'{word}' is no unit but a Chinese order of magnitude, 10^{power}: {written} = {number} * "
            "10**{power} = {value} ({billions} in billions, B). Convert it to the unit the question asks for, then "
            "write the number alone, without '{word}'.",
        },
        "input_help.line_prefix": {
            "zh": "第 {line} 行：",
            "en": "Line {line}: ",
        },
        "input_help.about": {
            "zh": "第 {line} 行的数前面有“{word}”：Python 的数不带文字。检查器按你写出的位数判断，本来就容许舍入，"
            "不用写“{word}”：{fixed}",
            "en": "Line {line} has “{word}” before its number: Python numbers take no words. The checker judges the "
            "digits you write and allows for rounding, so leave out “{word}”: {fixed}",
        },
        "input_help.empty": {
            "zh": "第 {line} 行的等号后面是空的：Python 要求 = 右边有一个值。在 answer = 后面写上你的答案，"
            "再运行本单元格；还没想好就写回 answer = ...（表示还没作答）。",
            "en": "Line {line} has nothing after its equals sign: Python needs a value on the right of =. Write your "
            "answer after answer = and run the cell again; if you have none yet, put back answer = ... (not "
            "answered yet).",
        },
        # JupyterLab's menu as the learner's UI names it: the zh lessons run in JupyterLab's Chinese UI (the
        # language pack's zh_CN labels), where no menu reads "Run" (review 25)
        "input_help.run_above_menu": {
            "zh": "JupyterLab 菜单“运行 → 运行选中单元格上方的所有单元格”，"
            "英文界面是 Run → Run All Above Selected Cell",
            "en": "JupyterLab's menu Run → Run All Above Selected Cell",
        },
        "input_help.chinese_numeral": {
            "zh": "'{name}' 是中文数字：Python 只认阿拉伯数字，把 {name} 读成一个没有定义的名字（NameError）。"
            "写成 answer = {value}。",
            "en": "'{name}' is a Chinese numeral: Python reads only Arabic digits and takes {name} for a name that is "
            "not defined (NameError). Write answer = {value}.",
        },
        "input_help.math_sign": {
            "zh": "第 {line} 行有 '{char}'：这是课文里印出的数学符号，Python 不认。Python 的乘号写作 *，除号写作 /，"
            "乘方写作 **（课文的 2^30 要写成 2**30）。改好的一行：{fixed}",
            "en": "Line {line} holds '{char}', a mathematical sign as the lessons print it, which Python does not "
            "read. Python writes multiplication *, division / and a power ** (the lessons' 2^30 is 2**30). The line "
            "fixed: {fixed}",
        },
        "input_help.superscript": {
            "zh": "第 {line} 行有上标 '{char}'（从网页或 PDF 复制来的乘方，如 10⁵）：Python 不认上标，乘方写作 **。"
            "改好的一行：{fixed}",
            "en": "Line {line} holds the superscript '{char}' (a power copied from a web page or PDF, such as 10⁵): "
            "Python reads no superscripts and writes a power **. The line fixed: {fixed}",
        },
        "input_help.letter_x": {
            "zh": "第 {line} 行把字母 x 当成了乘号：Python 的乘号是 *（乘方是 **）。改好的一行：{fixed}",
            "en": "Line {line} uses the letter x as a multiplication sign: Python multiplies with * (and writes a "
            "power **). The line fixed: {fixed}",
        },
        "input_help.unclosed_quote": {
            "zh": "第 {line} 行的引号没有成对：文字要用一对引号括起来，开头一个、结尾一个。改好的一行：{fixed}",
            "en": "Line {line} opens a quote and never closes it: text goes between a pair of quotes, one before and "
            "one after. The line fixed: {fixed}",
        },
        "input_help.list_comma": {
            "zh": "第 {line} 行括号里的各项之间缺少逗号：列表、元组和集合的各项都用半角逗号隔开。改好的一行：{fixed}",
            "en": "Line {line} has no commas between the items in its brackets: a list, a tuple or a set separates "
            "its items with commas. The line fixed: {fixed}",
        },
        "input_help.caret_power": {
            "zh": "Python 里 ^ 不是乘方，而是按位异或 (XOR)：课程正文写的 2^30、10^9 在代码里要写成 2**30、10**9"
            "（或 1e9）。改好的一行：{fixed}",
            "en": "In Python ^ is not a power but bitwise XOR: the 2^30 and 10^9 of the lessons' text are written "
            "2**30 and 10**9 (or 1e9) in code. The line fixed: {fixed}",
        },
        "input_help.or_words": {"zh": "{first} 还是 {last}", "en": "{first} or {last}"},
        "input_help.list_separator": {"zh": "、", "en": ", "},
        "input_help.spaced_numbers": {
            "zh": "第 {line} 行等号右边是几个用空格隔开的数（{items}）：Python 不知道你要的是哪一个，这一行有歧义——"
            "是 {readings}？答案只写一个数，数里不留空格；按题目要的那一个重写这一行。",
            "en": "Line {line} has several numbers separated by spaces after its equals sign ({items}): Python cannot "
            "tell which one you mean, so the line is ambiguous: {readings}? An answer is one number with no spaces "
            "inside; type the line again with the one the question asks for.",
        },
        "input_help.word_before_number": {
            "zh": "第 {line} 行的数前面有文字 '{word}'：Python 的数不带文字（它把 {word} 读成一个名字，"
            "名字后面紧跟一个数就是语法错误）。只写数：{fixed}",
            "en": "Line {line} has the word '{word}' before its number: Python numbers take no words (it reads {word} "
            "as a name, and a name followed by a number is a syntax error). Write the number alone: {fixed}",
        },
        "input_help.number_with_note": {
            "zh": "第 {line} 行的数后面跟着括号里的说明（{note}）：Python 把数后面的括号读成函数调用，"
            "括号里的说明也不是 Python。答案只写一个数：{fixed}",
            "en": "Line {line} follows its number with a note in parentheses ({note}): Python reads parentheses after "
            "a number as a function call, and the note is not Python either. Write one number alone: {fixed}",
        },
        "input_help.option_with_note": {
            "zh": "第 {line} 行把选项和题目里写在它旁边的说明（{note}）一起抄了进来：答案只写选项本身，"
            "并加上引号：{fixed}",
            "en": "Line {line} copies the option together with the description the question gives it ({note}): "
            "write the option alone, in quotes: {fixed}",
        },
        "input_help.undefined": {
            "zh": "Python 找不到名字 '{name}'（NameError）：它在本课前面的单元格里定义或导入。"
            "先从本课开头依次运行前面的单元格（{menu}），再运行这一格；"
            "重启内核 (kernel) 之后也要这样做。",
            "en": "Python cannot find the name '{name}' (NameError): a cell above defines or imports it. Run the "
            "cells above first ({menu}), then this one; do the same after a kernel "
            "restart.",
        },
    }
)

#: Characters an input method types that Python refuses, and what to type instead (NFKC handles the full-width
#: forms of ASCII, U+FF01-FF5E: '，' ',', '（' '(', '２' '2'; these have no such form).
_REPLACEMENTS: dict[str, str] = {
    "。": ".",
    "、": ",",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "−": "-",
    "–": "-",
    "—": "-",
    "【": "[",
    "】": "]",
    "《": "<",
    "》": ">",
    "　": " ",
    "·": "*",
    "×": "*",
    "÷": "/",
}

#: Superscript digits and minus as a power copied from a web page or PDF prints them (``10⁵``, ``2⁻³``): NFKC makes
#: ``10⁵`` the number 105, so they are never simply "retyped in half-width"; each run becomes ``**`` and its digits
_SUPERSCRIPTS: dict[str, str] = {
    "⁰": "0",
    "¹": "1",
    "²": "2",
    "³": "3",
    "⁴": "4",
    "⁵": "5",
    "⁶": "6",
    "⁷": "7",
    "⁸": "8",
}
_SUPERSCRIPTS.update({"⁹": "9", "⁻": "-", "⁺": "+"})
_SUPERSCRIPT_RUN = re.compile("[" + "".join(_SUPERSCRIPTS) + "]+")
#: ``answer = 1.07x10^5`` / ``2 x 2``: the letter x between two numbers, typed for a multiplication sign
_LETTER_X = re.compile(r"(?<=[\d)])\s*[xX]\s*(?=[\d.(])")
#: ``answer = 'Y`` / ``answer = "mb2``: a text with its opening quote only
_UNCLOSED_QUOTE = re.compile(r"^(?P<lead>\s*answer\s*=\s*)(?P<quote>['\"])(?P<text>[^'\"#]*?)\s*$")
#: ``answer = [5 7]``: numbers in square brackets separated by spaces only
#: ``answer = [5 7]``, ``answer = (1 2 4 8 16)`` (exercise 3.3's tuple) or ``answer = {'TP' 'EP'}``: items without
#: the commas between them (two quoted strings side by side are one string to Python, so that set is not refused
#: but becomes ``{'TPEP'}``; only numbers reach the SyntaxError)
_SPACED_LIST = re.compile(
    r"^(?P<lead>\s*answer\s*=\s*)(?P<open>[\[({])\s*(?P<items>[-+]?[\d.]+(?:\s+[-+]?[\d.]+)+)\s*(?P<close>[\])}])\s*$"
)
_BRACKET_PAIRS = {"[": "]", "(": ")", "{": "}"}


_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
#: ``answer = 5 7``: two or more numbers with only spaces between them (5, 7 or 57?)
_SPACED_NUMBERS = re.compile(rf"^(?P<lead>\s*answer\s*=\s*)(?P<items>{_NUMBER}(?:\s+{_NUMBER})+)\s*(?:#.*)?$")
#: ``answer = rank 1``: a word, then a number (the words for "about" are :data:`_NUMBER_WITH_WORDS`')
_WORD_BEFORE_NUMBER = re.compile(
    rf"^(?P<lead>\s*answer\s*=\s*)(?P<word>[^\W\d]\w*)\s+(?P<number>{_NUMBER})\s*(?:#.*)?$"
)
#: ``answer = 0.16（16%）``: a number, then a note in parentheses (a line retyped in half-width characters first)
_NUMBER_WITH_NOTE = re.compile(rf"^(?P<lead>\s*answer\s*=\s*)(?P<number>{_NUMBER})\s*\((?P<note>[^()]*)\)\s*(?:#.*)?$")
#: ``answer = mb2（微批次改成 2）`` / ``answer = 'mb2'（微批次改成 2）``: an option copied with its description
_OPTION_WITH_NOTE = re.compile(
    r"^(?P<lead>\s*answer\s*=\s*)(?P<quote>['\"]?)(?P<option>[A-Za-z_][\w-]*)(?P=quote)\s*\((?P<note>[^()]*)\)\s*"
    r"(?:#.*)?$"
)
#: Python's TypeError for a number followed by parentheses (``answer = 0.16 (16)``): a call of a number
_NUMBER_CALLED = re.compile(r"'(?:int|float)' object is not callable")


def _ambiguous_readings(items: list[str]) -> list[str]:
    """The answers ``answer = 5 7`` may have meant: each number, and the digits run together when every one is a
    plain whole number (57; ``1 024`` is 1024 with a space for a thousands separator).

    >>> _ambiguous_readings(["5", "7"]), _ambiguous_readings(["0.16", "16"])
    (['5', '7', '57'], ['0.16', '16'])
    """
    readings = list(dict.fromkeys(items))
    if all(item.isdigit() for item in items):
        readings.append(str(int("".join(items))))
    return readings


def _slip_before_check(source: str, line: int) -> str | None:
    """The hint for an ``answer = ...`` line that writes more than one value or a value with words around it
    (``answer = 5 7``, ``answer = rank 1``, ``answer = 0.16（16%）``, ``answer = mb2（微批次改成 2）``), else None."""
    text = _fixed_line(source)
    spaced = _SPACED_NUMBERS.match(text)
    if spaced is not None:
        items = spaced.group("items").split()
        lead = spaced.group("lead").strip()
        readings = [f"{lead} {reading}" for reading in _ambiguous_readings(items)]
        joined = tr("input_help.or_words", first=tr("input_help.list_separator").join(readings[:-1]), last=readings[-1])
        return tr("input_help.spaced_numbers", line=line, items=shown_str(" ".join(items)), readings=shown_str(joined))
    worded = _WORD_BEFORE_NUMBER.match(text)
    if worded is not None and worded.group("word") not in ("lambda", "not", "await", "yield"):
        fixed = worded.group("lead").strip() + " " + worded.group("number")
        return tr("input_help.word_before_number", line=line, word=shown_str(worded.group("word")), fixed=fixed)
    noted = _NUMBER_WITH_NOTE.match(text)
    if noted is not None:
        fixed = noted.group("lead").strip() + " " + noted.group("number")
        return tr("input_help.number_with_note", line=line, note=shown_str(noted.group("note").strip()), fixed=fixed)
    option = _OPTION_WITH_NOTE.match(text)
    if option is not None and ("（" in source or not option.group("note").isascii()):
        fixed = f"{option.group('lead').strip()} {option.group('option')!r}"
        return tr("input_help.option_with_note", line=line, note=shown_str(option.group("note").strip()), fixed=fixed)
    return None


def _superscripts_as_powers(line: str) -> str:
    """``line`` with each run of superscript characters written as ``**`` and its digits.

    >>> _superscripts_as_powers("answer = 1.07 × 10⁵"), _superscripts_as_powers("answer = 2⁻³")
    ('answer = 1.07 × 10**5', 'answer = 2**-3')
    """
    return _SUPERSCRIPT_RUN.sub(lambda m: "**" + "".join(_SUPERSCRIPTS[c] for c in m.group(0)), line)


#: The signs of arithmetic as the lessons print them ("2 × 2 × 4", "989 ÷ 4.8", "2 · 80 · 8"): copied into a cell,
#: each is an invalid character; the line of help says what Python writes instead (review 26)
_MATH_SIGNS: frozenset[str] = frozenset("×÷·")

_INVALID_CHARACTER = re.compile(r"invalid character '(.)' \(U\+[0-9A-F]+\)")
#: ``answer = 26.19　``: a space Python cannot see as one (the full-width space of a Chinese input method, a
#: no-break or zero-width space copied from a web page), which it refuses as "invalid non-printable character"
_NON_PRINTABLE = re.compile(r"invalid non-printable character U\+([0-9A-F]{4,6})")
#: ``answer = ~128``: "~" written for "about"; Python reads bitwise NOT (-129; a float is a TypeError)
TILDE_ANSWER = re.compile(r"^(?P<lead>\s*answer\s*=\s*)~\s*(?P<rest>[-+]?(?:\d|\.\d).*)$")
#: ``answer == 26.19``: two equals signs, a comparison Python evaluates (a NameError when no cell gave answer a value)
_COMPARED_ANSWER = re.compile(r"^\s*answer\s*==\s*(?P<value>\S.*)$")
#: Python's TypeError for ``~`` before a float (``answer = ~26.19``)
_TILDE_ERROR = re.compile(r"bad operand type for unary ~")
#: ``answer = 5.4%``: a number written with a percent sign, which Python refuses as invalid syntax
_PERCENT_ANSWER = re.compile(r"^\s*answer\s*=\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*%\s*(?:#.*)?$")
_ANSWER_LINE = re.compile(r"^\s*answer\s*=")
#: The errors the handler adds a line of help to: Python refused the cell before check() could see the answer.
#: TypeError since review 25 (``2^30 / 10^9``: ``^`` is XOR, not a power).
HANDLED_ERRORS: tuple[type[BaseException], ...] = (SyntaxError, NameError, TypeError)
#: Python's TypeError for ``^`` between a float and an int (``2^30 / 10^9``): ``^`` is XOR, not a power
_CARET_ERROR = re.compile(r"unsupported operand type\(s\) for \^")
#: A power written as the lessons print it, ``2^30``, on a line of code (Python reads it as XOR)
CARET_POWER = re.compile(r"\d\s*\^\s*\d")
#: ``answer =`` with nothing after it (the learner deleted ``...`` and ran the cell): a bare invalid syntax
_EMPTY_ANSWER = re.compile(r"^\s*answer\s*=\s*(?:#.*)?$")
#: ``answer = 4.45ms`` / ``answer = 25.77 吉字节`` / ``answer = 约26.2``: a number with a unit after it or a word
#: for "about" before it (a line retyped in half-width characters first)
#: A number as a learner writes it in a line: sign, digits, a decimal point, an exponent (ASCII only).
_PLAIN_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_NUMBER_WITH_WORDS = re.compile(
    r"^(?P<lead>\s*answer\s*=\s*)(?P<about>"
    + "|".join(re.escape(w) for word in _ABOUT_WORDS for w in (word.zh, word.en))
    + r"|≈|~)?\s*"
    # a number, or a calculation of numbers (answer = 20*3.2个, 989 / 4.8 TB/s: review 28)
    rf"(?P<number>{_PLAIN_NUMBER}(?:\s*(?:\*\*|[-+*/])\s*{_PLAIN_NUMBER})*)\s*"
    r"(?P<unit>[A-Za-zµμ\u3400-\u9fff][A-Za-zµμ/\u3400-\u9fff]{0,11})?\s*(?P<comment>#.*)?$"
)
#: ``answer = 0,05``: a decimal comma before a group with a leading 0, which Python refuses outright
_LEADING_ZERO_GROUP = re.compile(r"^(\s*answer\s*=\s*[-+]?\d+),(0\d*)(?![\d,.])")
#: ``answer = 25，77`` / ``answer = 1，677``: a full-width comma between the digits of the answer's number
_COMMA_IN_NUMBER = re.compile(r"^(\s*answer\s*=\s*[-+]?\d+)([，、])(\d+)(?![\d，、,.])")


def _half_width(char: str) -> str | None:
    """What to type instead of ``char``, or None if it is not a full-width or typographic stand-in."""
    if char in _REPLACEMENTS:
        return _REPLACEMENTS[char]
    plain = unicodedata.normalize("NFKC", char)
    if plain != char and plain.isascii():
        return plain
    return None


def _fullwidth_digits(line: str) -> str:
    """``line`` with full-width digits as ASCII ones (the rest untouched)."""
    return "".join(unicodedata.normalize("NFKC", c) if "０" <= c <= "９" else c for c in line)


def _fixed_line(line: str) -> str:
    """``line`` with every full-width character replaced; a full stop that ends the line is dropped (a sentence's
    end, not a decimal point)."""
    text = line.rstrip()
    while text.endswith("。"):
        text = text[:-1].rstrip()
    return "".join(_half_width(char) or char for char in text).strip()


#: ``answer = fsdp2-zero2``: an option with hyphens typed without quotes (Python reads a subtraction of names)
#: ``answer = fsdp2-zero2``, or ``answer = ZeRO-2`` (exercise 1.2's stage named as the lessons name it; a number after
#: the hyphen is taken after a name with a capital letter, as the course writes ZeRO, TP and DP, while the lessons'
#: variables are lower case: ``total-1`` stays arithmetic on a variable; review 27)
_HYPHENATED_OPTION = re.compile(
    r"^(?P<lead>\s*answer\s*=\s*)"
    r"(?P<option>[A-Za-z_]\w*(?:-[A-Za-z_]\w*)+|[a-z]*[A-Z]\w*(?:-(?:[A-Za-z_]\w*|\d+))+)\s*$"
)


def _quoted_option(code: str, name: str) -> str | None:
    """``code`` (an ``answer = ...`` line) with ``name`` put in quotes, when ``name`` stands alone as the value or as
    an item of a list, tuple or set written out (``answer = B``, ``answer = {'TP', EP}``); None when it is part of an
    expression (``shape.layers * 2``) or an argument of a call (``ledger(state_gib, activation_gib)``): an option is
    never written there, so the name is a variable from a cell above.

    >>> _quoted_option("answer = {'TP', EP}", "EP"), _quoted_option("answer = f(x, EP)", "EP")
    ("answer = {'TP', 'EP'}", None)

    Every bare option of a set, list or tuple is quoted at once (Python names only the first it meets):

    >>> _quoted_option("answer = {TP, EP, PP}", "TP")
    "answer = {'TP', 'EP', 'PP'}"

    An option with hyphens written without quotes is a subtraction to Python (``answer = fsdp2-zero2`` is
    ``fsdp2 - zero2``); the whole option goes in quotes:

    >>> _quoted_option("answer = fsdp2-zero2", "fsdp2")
    "answer = 'fsdp2-zero2'"
    """
    hyphenated = _HYPHENATED_OPTION.match(code)
    if hyphenated is not None and name in hyphenated.group("option").split("-"):
        return f"{hyphenated.group('lead')}{hyphenated.group('option')!r}"
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign):
        return None
    # every option written out without quotes, not only the first one Python stopped at: answer = {TP, EP} is
    # shown as {'TP', 'EP'}, or the learner fixes TP and meets the same NameError for EP (review 27)
    bare: list[ast.Name] = []
    stack: list[ast.expr] = [tree.body[0].value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            bare.append(node)
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            stack.extend(node.elts)
    if not any(item.id == name for item in bare):
        return None
    raw = code.encode("utf-8")  # ast's offsets count UTF-8 bytes
    for item in sorted(bare, key=lambda node: node.col_offset, reverse=True):
        start, end = item.col_offset, item.end_col_offset or item.col_offset
        raw = raw[:start] + repr(item.id).encode("utf-8") + raw[end:]
    return raw.decode("utf-8")


def _comma_in_number_hint(comma: re.Match[str], source: str, line: int) -> str | None:
    """The help for a full-width comma inside the answer's number (:data:`_COMMA_IN_NUMBER`), or None when a line it
    would write out does not compile."""
    rest = _fullwidth_digits(source)[comma.end() :]
    head = comma.group(1).split("=", 1)[1].strip()
    reading = _comma_reading(head, comma.group(3))
    if reading == "either":  # 4，445: 4.445 or 4445, only the question can tell (two lines: no comment)
        rest = rest.split("#", 1)[0]
        decimal = _fixed_line(comma.group(1) + "." + comma.group(3) + rest)
        whole = _fixed_line(comma.group(1) + comma.group(3) + rest)
        if not (_compiles(decimal) and _compiles(whole)):
            return None
        return tr(
            "input_help.full_width_either_comma",
            line=line,
            char=comma.group(2),
            decimal=shown_str(decimal),
            whole=shown_str(whole),
        )
    is_decimal = reading == "decimal"
    number = comma.group(1) + ("." if is_decimal else "") + comma.group(3)
    retyped = _fixed_line(number + rest)
    if not _compiles(retyped):
        return None
    key = "input_help.full_width_decimal_comma" if is_decimal else "input_help.full_width_thousands_comma"
    return tr(key, line=line, char=comma.group(2), fixed=shown_str(retyped))


def input_hint(error: BaseException, line: str | None = None, *, cell: str | None = None) -> str | None:
    """One line of help for ``error`` (``line`` is the source line it was raised on, ``cell`` the whole cell when
    known), or None when there is none.

    A ``SyntaxError`` on ``answer = 5.4%`` says to drop the percent sign and shows both the fraction (0.054) and the
    percentage (5.4); one about a full-width character names the character and shows the line retyped in half-width
    characters; a ``NameError`` says to quote an option (``answer = 'B'``), to write ``True`` / ``False``, or to run
    the cells above first.
    """
    check_instance("error", error, BaseException)
    if line is not None:
        check_instance("line", line, str)
    if cell is not None:
        check_instance("cell", cell, str)
    if isinstance(error, SyntaxError):
        # Python's own SyntaxError holds its line as a str or None; one built by hand may hold anything (bytes, an
        # int), which raised AttributeError here (fuzz pass 24): only a str is read
        text = error.text if isinstance(error.text, str) else None
        percent = _PERCENT_ANSWER.match(_fixed_line(text or line or ""))
        if percent is not None:
            number = percent.group(1)
            fraction = str(Decimal(number) / 100)
            written = shown_str(number)  # a value in at most about 200 characters
            return tr("input_help.percent", line=error.lineno or 1, number=written, fraction=shown_str(fraction))
        source = text or line or ""
        if _EMPTY_ANSWER.match(source):  # answer = (the ... deleted, nothing typed in its place; review 24)
            return tr("input_help.empty", line=error.lineno or 1)
        slipped = _leftover30_slip(source, error.lineno or 1)  # 缺1.47, 1,152次, 7.5B*3.75, x1.0, answer：26.19
        if slipped is not None:
            return slipped
        leftover = _leftover_slip(source, error.lineno or 1)  # 3:19, 5和7, 5、7, [5; 7], 989T/4.8T, 1.5k
        if leftover is not None:
            return leftover
        worded = _number_with_words(source, error.lineno or 1)
        if worded is not None:
            return worded
        zero_group = _LEADING_ZERO_GROUP.match(source)
        if zero_group is not None:  # answer = 0,05: only a decimal comma writes a group that starts with 0
            fixed = zero_group.group(1) + "." + zero_group.group(2) + source[zero_group.end() :]
            return tr(
                "input_help.decimal_comma",
                line=error.lineno or 1,
                tail=zero_group.group(2),
                fixed=shown_str(fixed.strip()),
            )
        line_number = error.lineno or 1
        several = _slip_before_check(source, line_number)
        if several is not None:
            return several
        spaced = _SPACED_LIST.match(source)
        if spaced is not None and _BRACKET_PAIRS[spaced.group("open")] == spaced.group("close"):
            # answer = [5 7] or (1 2 4 8 16): the commas between the items left out (review 27: tuples and sets)
            items = ", ".join(spaced.group("items").split())
            fixed = spaced.group("lead") + spaced.group("open") + items + spaced.group("close")
            return tr("input_help.list_comma", line=line_number, fixed=shown_str(fixed.strip()))
        unclosed = _UNCLOSED_QUOTE.match(source.rstrip("\n"))
        if unclosed is not None and "unterminated string" in str(error.msg or ""):  # answer = 'Y
            quote = unclosed.group("quote")
            fixed = f"{unclosed.group('lead').strip()} {quote}{unclosed.group('text').strip()}{quote}"
            return tr("input_help.unclosed_quote", line=line_number, fixed=shown_str(fixed))
        if _LETTER_X.search(source.split("#", 1)[0]) and _ANSWER_LINE.match(source):  # answer = 1.07x10^5
            code = source.split("#", 1)[0].strip()
            fixed = _LETTER_X.sub(" * ", code)
            fixed = _fixed_line(
                _superscripts_as_powers(CARET_POWER.sub(lambda m: m.group(0).replace("^", "**"), fixed))
            )
            return tr("input_help.letter_x", line=line_number, fixed=shown_str(fixed))
        blank = _NON_PRINTABLE.search(str(error.msg or ""))
        if blank is not None:  # answer = 26.19　: an input method's full-width space (review 29)
            return _invisible_hint(source, line_number, chr(int(blank.group(1), 16)))
        match = _INVALID_CHARACTER.search(str(error.msg or ""))
        if match is not None and match.group(1) == APPROX_SIGN:  # answer = 3/19≈0.158: "≈" for "about" (review 30)
            approx = approx_hint(source, line_number)
            if approx is not None:
                return approx
        if match is not None and match.group(1) in _SUPERSCRIPTS:  # 10⁵: a power, not the number 105
            fixed = _fixed_line(_superscripts_as_powers(source))
            fixed = CARET_POWER.sub(lambda m: m.group(0).replace("^", "**"), fixed)
            return tr("input_help.superscript", line=line_number, char=match.group(1), fixed=shown_str(fixed))
        if match is None or _half_width(match.group(1)) is None:
            return None
        if match.group(1) in _MATH_SIGNS:  # 1.07×10^5 copied from a lesson: *, / and ** (the ^ too)
            fixed = _fixed_line(_superscripts_as_powers(source))
            fixed = CARET_POWER.sub(lambda m: m.group(0).replace("^", "**"), fixed)
            return tr("input_help.math_sign", line=error.lineno or 1, char=match.group(1), fixed=shown_str(fixed))
        comma = _COMMA_IN_NUMBER.match(_fullwidth_digits(source))
        # '，' typed for a decimal point (25，77) or a thousands comma (1，677); a line that would still not compile
        # so retyped ('answer = 5、7和') gets the help below instead (fuzz pass 27)
        comma_hint = _comma_in_number_hint(comma, source, error.lineno or 1) if comma is not None else None
        if comma_hint is not None:
            return comma_hint
        half_width = _fixed_line(source)
        if not _compiles(half_width):  # answer = not_preferred％: retyped, still no Python line (fuzz pass 25)
            return tr("input_help.full_width_still", line=error.lineno or 1, char=match.group(1))
        retyped = shown_str(half_width)  # a line is quoted in at most about 200 characters, as every value
        return tr("input_help.full_width", line=error.lineno or 1, char=match.group(1), fixed=retyped)
    if isinstance(error, TypeError) and line is not None and _NUMBER_CALLED.search(str(error)):
        noted = _slip_before_check(line.split("#", 1)[0], _error_line(error))  # answer = 0.16 (16): a number called
        if noted is not None:
            return noted
    if isinstance(error, TypeError) and line is not None and _TILDE_ERROR.search(str(error)):
        tilde = tilde_hint(line, _error_line(error))  # answer = ~26.19: "~" for "about" (review 29)
        if tilde is not None:
            return tilde
    if isinstance(error, TypeError) and line is not None and _CARET_ERROR.search(str(error)) and "^" in line:
        # answer = 24 * 2^30 / 10^9: the lessons write powers as 2^30; in Python ^ is XOR (review 25)
        code = line.split("#", 1)[0].strip()
        return tr("input_help.caret_power", fixed=shown_str(code.replace("^", "**")))
    if isinstance(error, NameError):
        name = getattr(error, "name", None)
        if not isinstance(name, str) or not name:
            found = re.search(r"name '(\w+)' is not defined", str(error))
            if found is None:
                return None
            name = found.group(1)
        colon = colon_answer_hint(cell, _error_line(error)) if cell is not None else None
        if colon is not None:  # answer: 26.19 above, after a kernel restart (leftovers 30)
            if name == "answer":
                return colon
            # check itself is undefined after a restart, and Python meets it before answer: both lines to fix
            other = input_hint(error, line)
            return colon if other is None else f"{other} {colon}"
        if name.lower() in ("true", "false"):
            return tr("input_help.truth_value", name=name, literal=name.capitalize())
        compared = _COMPARED_ANSWER.match(line.split("#", 1)[0].rstrip()) if line is not None else None
        if name == "answer" and compared is not None:  # answer == 26.19 after a restart: no cell above defines it
            fixed = shown_str(f"answer = {compared.group('value').strip()}")
            return tr("input_help.compared", line=_error_line(error), fixed=fixed)
        shown = shown_str(name)  # a name is quoted in at most about 200 characters, as every value
        code = line.split("#", 1)[0].strip() if line is not None else ""  # without a trailing comment
        # answer = 约206: "约" and a whole number make one Python name (review 23; 约0.16 is a SyntaxError)
        worded = _number_with_words(code, _error_line(error)) if _ANSWER_LINE.match(code) else None
        if worded is not None and name in code:
            return worded
        # answer = 0.356 (MFU): the note in brackets is evaluated first, so its word is the missing name (review 28)
        noted = _slip_before_check(code, _error_line(error)) if _NUMBER_WITH_NOTE.match(_fixed_line(code)) else None
        if noted is not None and name in code:
            return noted
        if re.fullmatch(rf"[{_CJK}]+\d+", name) and _ANSWER_LINE.match(code) and code.split("=", 1)[1].strip() == name:
            glued = _leftover30_slip(code, _error_line(error))  # answer = 缺147: one name to Python (leftovers 30)
            if glued is not None:
                return glued
        magnified = _numeral_with_magnitude(name)
        if magnified is not None and _ANSWER_LINE.match(code) and code.split("=", 1)[1].strip() == name:
            # answer = 两千四百亿: 2400亿's conversion (exercise 9.3 asks in billions), not 240000000000 to type
            magnitude = _magnitude_hint(*magnified)
            if magnitude is not None:
                return f"{tr('input_help.line_prefix', line=_error_line(error))}{magnitude}"
        numeral: int | str | None = chinese_numeral_value(name)
        if numeral is None:  # answer = 三十一点四, 两千四百亿, 负三 (fuzz pass 25: told to quote it as an option)
            numeral = chinese_number_text(name)
        if numeral is not None and _ANSWER_LINE.match(code) and code.split("=", 1)[1].strip() == name:
            # answer = 二: a number in Chinese, not an option to quote (review 25); 十六, 一百八十四 too (review 26)
            return tr("input_help.chinese_numeral", name=shown, value=numeral)
        fixed = _quoted_option(code, name) if _ANSWER_LINE.match(code) else None
        if fixed is not None:
            return tr("input_help.unquoted", name=shown, fixed=shown_str(fixed), menu=tr("input_help.run_above_menu"))
        return tr("input_help.undefined", name=shown, menu=tr("input_help.run_above_menu"))
    return None


def _compiles(line: str) -> bool:
    """Whether Python compiles ``line`` (a line the help would show as the one to type) without a warning: a
    ``SyntaxWarning`` ("'list' object is not callable", ``answer = [5, 7]([5, 7])`` from ``[5, 7]（[5, 7]）``) marks a
    line that fails as soon as it runs."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        try:
            compile(line, "<cell>", "exec")
        except (SyntaxError, SyntaxWarning, ValueError):  # ValueError: a NUL character
            return False
        except (RecursionError, MemoryError):  # 30,000 terms ("５ + ５ + ..."): quoted short, as before, not judged
            return True
    return True


def _error_line(error: BaseException) -> int:
    """The line of the cell ``error`` was raised on (its innermost traceback entry), 1 when it has none."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_lineno if tb is not None else 1


#: Chinese orders of magnitude a learner types after a number as if they were units (``2400亿`` for exercise 9.3's
#: 240 billion): 10 to the power given. Stripped like a unit, "2400亿" became ``answer = 2400``, 10 times 240 (review
#: 27); the help converts instead.
CHINESE_MAGNITUDES: dict[str, int] = {
    "千": 3,
    "万": 4,
    "十万": 5,
    "百万": 6,
    "千万": 7,
    "亿": 8,
    "十亿": 9,
    "百亿": 10,
    "千亿": 11,
    "万亿": 12,
}


#: The longest number :func:`magnitude_hint` echoes as typed; a longer one is echoed with
#: :data:`MAGNITUDE_ECHO_DECIMALS` decimals in e-notation (fuzz pass 25: 401 digits were echoed as 200 and "...").
MAX_WRITTEN_DIGITS: int = 30
#: Decimals of a long number's e-notation in :func:`magnitude_hint`.
MAGNITUDE_ECHO_DECIMALS: int = 2


def magnitude_hint(number: str, word: str) -> str | None:
    """The help for a number written with a Chinese order of magnitude after it (``'2400'``, ``'亿'``), in the
    current language; None when ``word`` is none of :data:`CHINESE_MAGNITUDES`. ``number`` is the number as written
    (ASCII digits, a sign, a decimal point, an exponent); anything else is refused naming it.

    >>> from coursekit import set_language
    >>> set_language("en")
    >>> magnitude_hint("2400", "亿")[:60]
    "'亿' is no unit but a Chinese order of magnitude, 10^8: 2400亿"
    >>> magnitude_hint("2400", "GiB") is None
    True
    """
    check_instance("number", number, str)
    check_instance("word", word, str)
    if re.fullmatch(_PLAIN_NUMBER, number, re.ASCII) is None:
        raise ValueError(tr("input_help.magnitude_number", value=number))
    return _magnitude_hint(number, word)


def _magnitude_hint(number: str, word: str) -> str | None:
    """:func:`magnitude_hint` of a number the help's own pattern read (:data:`_PLAIN_NUMBER`); a value past the
    float range is written as the help writes any number it cannot show (the line itself is left to Python)."""
    power = CHINESE_MAGNITUDES.get(word)
    if power is None:
        return None
    with decimal.localcontext() as context:  # an exponent past Decimal's default range is written, not raised
        context.Emax, context.Emin = decimal.MAX_EMAX, decimal.MIN_EMIN
        exact = Decimal(number) * Decimal(10) ** power
        billions = exact / Decimal(10) ** 9
    if len(number) > MAX_WRITTEN_DIGITS:  # 401 digits typed: echoed in e-notation, never 200 digits and "..."
        number = f"{Decimal(number):.{MAGNITUDE_ECHO_DECIMALS}e}"
    return tr(
        "input_help.magnitude",
        word=word,
        power=power,
        written=shown_str(number + word),
        number=shown_str(number),
        value=shown_str(f"{exact:.3g}" if not math.isfinite(float(exact)) else f"{float(exact):g}"),
        billions=shown_str(f"{billions:.3g}" if not math.isfinite(float(billions)) else f"{float(billions):g}"),
    )


def _number_with_words(source: str, line: int) -> str | None:
    """The hint for an ``answer = ...`` line whose number has a unit after it or "约" before it, else None."""
    found = _NUMBER_WITH_WORDS.match(_fixed_line(source))
    if found is None or not (found.group("unit") or found.group("about")):
        return None
    plain = re.fullmatch(_PLAIN_NUMBER, found.group("number")) is not None
    if not plain and any(word in (found.group("unit") or "") for word in CHINESE_MAGNITUDES):
        return None  # 20*3.2万: an order of magnitude after a calculation is no unit to strip
    magnitude = _magnitude_hint(found.group("number"), found.group("unit") or "") if plain else None
    if magnitude is not None:  # answer = 2400亿 (or 约2400亿): convert, do not strip (review 27)
        return f"{tr('input_help.line_prefix', line=line)}{magnitude}"
    comment = found.group("comment")
    fixed = shown_str(found.group("lead").strip() + " " + found.group("number") + (f"  {comment}" if comment else ""))
    if found.group("about"):
        return tr("input_help.about", line=line, word=found.group("about"), fixed=fixed)
    return tr("input_help.unit", line=line, unit=found.group("unit"), fixed=fixed)


def _invisible_hint(source: str, line: int, char: str) -> str | None:
    """The hint for ``source``, refused for the invisible ``char`` (a full-width, no-break or zero-width space): the
    line with every such character made a plain space or dropped, when that line is Python; else None."""
    plain = "".join(
        " " if unicodedata.category(c) == "Zs" else "" if unicodedata.category(c) == "Cf" else c for c in source
    )
    fixed = _fixed_line(plain)
    if not fixed or not _compiles(fixed):
        return None
    return tr("input_help.full_width_space", line=line, code=f"U+{ord(char):04X}", fixed=shown_str(fixed))


def tilde_hint(source: str, line: int, *, lang: str | None = None) -> str | None:
    """The hint for an ``answer = ~...`` line (``~`` written for "about"), or None for any other line; in ``lang``
    (default: the current language).

    >>> import coursekit
    >>> coursekit.set_language("en")
    >>> print(tilde_hint("answer = ~128  # dp", 1))  # doctest: +NORMALIZE_WHITESPACE
    Line 1 has “~” before its number: in Python ~ is not “about” but bitwise NOT (~128 is -129, ~26.19 an error).
    The checker judges the digits you write and allows for rounding, so leave out “~”: answer = 128  # dp
    """
    found = TILDE_ANSWER.match(check_instance("source", source, str).rstrip("\n"))
    if found is None:
        return None
    fixed = (found.group("lead").strip() + " " + found.group("rest").strip()).strip()
    if not _compiles(fixed):
        return None
    return tr("input_help.tilde", lang=lang, line=line, fixed=shown_str(fixed))


#: "About" as a learner copies it from a lesson's prose ("3/19 ≈ 0.158"), which Python refuses as an invalid character.
APPROX_SIGN: str = "\u2248"


def approx_hint(source: str, line: int, *, lang: str | None = None) -> str | None:
    """The hint for an answer line with "≈" (``answer = 3/19≈0.158``, ``answer = ≈0.158``): each side of it alone, as
    the line to write; None for any other line or when no side is Python.

    >>> import coursekit
    >>> coursekit.set_language("en")
    >>> print(approx_hint("answer = 3/19≈0.158", 1))  # doctest: +NORMALIZE_WHITESPACE
    Line 1 has “≈”: Python has no “about” sign. Write one side only; the checker judges the digits you write and
    allows for rounding: answer = 3/19 or answer = 0.158
    """
    code = check_instance("source", source, str).split("#", 1)[0].strip()
    if APPROX_SIGN not in code:
        return None
    if re.match(rf"answer\s*{APPROX_SIGN}", code):  # answer ≈ 0.158: the sign written for "="
        code = code.replace(APPROX_SIGN, "=", 1)
    if _ANSWER_LINE.match(code) is None:
        return None
    lead, right = code.split("=", 1)
    lines = [f"{lead.strip()} = {side.strip()}" for side in right.split(APPROX_SIGN) if side.strip()]
    lines = [fixed for fixed in lines if _compiles(fixed)]
    if not lines:
        return None
    either = tr("input_help.approx_or", lang=lang).join(shown_str(fixed) for fixed in lines)
    return tr("input_help.approx", lang=lang, line=line, fixed=either)


def _source_line(tb: TracebackType | None) -> str | None:
    """The source line of the innermost frame of ``tb`` (IPython keeps each cell's code in linecache)."""
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
    return line or None


def _source_cell(tb: TracebackType | None) -> str | None:
    """The whole code of the innermost frame's cell of ``tb``, when it is a cell's top level (IPython keeps each
    cell's code in linecache); None inside a function, whose lines are not the cell's answer lines."""
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    if tb.tb_frame.f_code.co_name != "<module>":
        return None
    return "".join(linecache.getlines(tb.tb_frame.f_code.co_filename)) or None


def _handler(
    shell: Any, etype: type[BaseException], value: BaseException, tb: TracebackType | None, tb_offset: Any = None
) -> None:
    """IPython's custom exception handler: Python's own message as before, then the hint (if any)."""
    if issubclass(etype, SyntaxError):
        shell.showsyntaxerror()
    else:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    hint = input_hint(
        value,
        _source_line(tb) if not isinstance(value, SyntaxError) else None,
        cell=_source_cell(tb) if isinstance(value, NameError) else None,
    )
    if hint is not None:
        from IPython.display import display

        body = html.escape(hint)
        display(  # type: ignore[no-untyped-call]
            {
                "text/plain": hint,
                "text/html": f'<div class="coursekit-input-help" style="border-left:4px solid #ed6c02;'
                f'background:#fff4e5;padding:2px 8px">{body}</div>',
            },
            raw=True,
        )


def _session_language(path: str | None = None) -> str | None:
    """The language of the lesson a kernel was started for, from its notebook's folder: ``notebooks/zh/...`` is
    ``'zh'``. ``path`` defaults to ``JPY_SESSION_NAME``, the notebook path Jupyter Server gives the kernel; None when
    the path names no lesson folder.

    >>> _session_language("notebooks/zh/10_serving.ipynb"), _session_language("en/04_composition.ipynb")
    ('zh', 'en')
    >>> _session_language("scratch.ipynb"), _session_language("")
    (None, None)
    """
    if path is None:
        path = os.environ.get("JPY_SESSION_NAME", "")
    folders = re.split(r"[\\/]", path)[:-1]
    return next((lang for lang in reversed(folders) if lang in LANGUAGES), None)


def load_ipython_extension(ipython: Any) -> None:
    """IPython extension (the course's kernel loads it at start, tools/install_kernel.py): :func:`install` before
    any lesson cell has run, so a ``NameError`` in a cell run after a kernel restart gets its line of help too, in
    the language of the lesson's folder (a ``COURSEKIT_LANG`` set by the learner wins; the lesson's first cell sets
    the language again)."""
    if "COURSEKIT_LANG" not in os.environ:
        lang = _session_language()
        if lang is not None:
            set_language(lang)
    install(ipython)


def install(shell: Any = None) -> bool:
    """Register the handler with IPython ``shell`` (the running one by default); True if it is now registered.

    A shell that already has a custom exception handler (another library's, or the course's own from an earlier
    import) is left as it is.
    """
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return False
    current = getattr(shell, "custom_exceptions", ())
    if current == HANDLED_ERRORS:
        return True
    if current and current != (SyntaxError, NameError):  # another library's (the pair: an earlier version's own)
        return False
    shell.set_custom_exc(HANDLED_ERRORS, _handler)
    return True


# -- leftovers 29: a ratio, values joined in Chinese, a list with semicolons, a prefix after a number ---------------

_register_messages(
    {
        "input_help.ratio": {
            "zh": "第 {line} 行写的是比 {ratio}：Python 没有比号，冒号在这里是语法错误。比就是除法"
            "（{ratio} 读作 {first} 比 {second}，即 {first} ÷ {second}），写成：{fixed}",
            "en": "Line {line} writes the ratio {ratio}: Python has no ratio sign, and a colon there is a syntax "
            "error. A ratio is a division ({ratio} is {first} to {second}, {first} ÷ {second}); write: {fixed}",
        },
        "input_help.joined_values": {
            "zh": "第 {line} 行用“{word}”把几个数连在一起（{items}）：Python 不认中文的“和”“与”“及”和顿号“、”。"
            "题目要几个数（例如一个列表）时，写在方括号里、用半角逗号隔开：{fixed}；"
            "题目只要一个数时，只写那一个：{readings}。",
            "en": "Line {line} joins several numbers with “{word}” ({items}), Chinese for “and” or a list comma, which "
            "Python does not read. If the question asks for several numbers (a list, say), write them in square "
            "brackets separated by commas: {fixed}; if it asks for one number, write that one alone: {readings}.",
        },
        "input_help.list_semicolon": {
            "zh": "第 {line} 行括号里的各项用分号隔开：Python 的列表、元组和集合用半角逗号隔开各项"
            "（分号在 Python 里结束一条语句）。改好的一行：{fixed}",
            "en": "Line {line} separates the items in its brackets with semicolons: a list, a tuple or a set "
            "separates its items with commas (in Python a semicolon ends a statement). The line fixed: {fixed}",
        },
        "input_help.scaled_number": {
            "zh": "第 {line} 行的数后面跟着数量级 {words}：Python 的数后面不能直接跟字母或汉字。"
            "把每个数量级写成 10 的幂（e{example} 就是 × 10^{example}），算出的数再按题目要求的单位换算。"
            "{kilo}意思不变的一行：{fixed}",
            "en": "Line {line} writes an order of magnitude after a number, {words}: a Python number cannot be "
            "followed by a letter or a Chinese character. Write each as a power of 10 (e{example} is "
            "× 10^{example}), then convert the result to the unit the question asks for. {kilo}The line with the "
            "same meaning: {fixed}",
        },
        "input_help.kilo_tokens": {
            "zh": "课程里的序列长度按 1K = 1024 计（8K 个 token 是 8 * 1024 = 8192）：数的是 token 时写 {binary}。",
            "en": "The lessons count sequence lengths with 1K = 1024 (8K tokens is 8 * 1024 = 8192): for a count of "
            "tokens write {binary}. ",
        },
        "input_help.or_plain": {"zh": "{first} 或 {last}", "en": "{first} or {last}"},
    }
)

#: The SI prefixes a learner writes after a number as the lessons' prose does (989T for 989 TFLOP/s, 1.5k, 4.8T):
#: each is a power of ten. Lower-case m (milli, or metres, or minutes) is left out: it cannot be guessed.
SI_PREFIX_POWERS: dict[str, int] = {"k": 3, "K": 3, "M": 6, "G": 9, "T": 12, "P": 15}  # data, not prose
#: 1K as the lessons count tokens (8K tokens is 8192)
KIBI: int = 1024
#: A number with an SI prefix (no space: ``4.8 T`` may be a unit's start) or a Chinese order of magnitude after it
_SCALED_NUMBER = re.compile(
    rf"(?<![\w.])(?P<number>{_PLAIN_NUMBER.replace('[-+]?', '')})"
    r"(?:(?P<si>["
    + "".join(SI_PREFIX_POWERS)
    + r"])(?![A-Za-z\d_])|\s*(?P<zh>"
    + "|".join(sorted(CHINESE_MAGNITUDES, key=len, reverse=True))
    + r")(?![\w]))"
)


def _is_zero(number: str) -> bool:
    """Whether the number text (a match of :data:`_NUMBER`) is zero."""
    try:
        return float(number) == 0.0
    except ValueError:
        return False


#: ``answer = 3:19``: a ratio written with a colon (full-width ``：`` retyped first)
_RATIO = re.compile(rf"^(?P<lead>\s*answer\s*=\s*)(?P<first>{_NUMBER})\s*:\s*(?P<second>{_NUMBER})\s*(?:#.*)?$")
#: The words and signs that join numbers in Chinese: "和", "与", "及" (and), the enumeration comma "、"
_JOINING_WORDS: str = "和与及、"  # data, not prose: each character joins two numbers
_JOINED_VALUES = re.compile(
    rf"^(?P<lead>\s*answer\s*=\s*)(?P<items>{_NUMBER}(?:\s*(?:{'|'.join(_JOINING_WORDS)})\s*{_NUMBER})+)\s*(?:#.*)?$"
)
#: ``answer = [5; 7]``: the items of a list, tuple or set separated by semicolons
_SEMICOLON_LIST = re.compile(
    r"^(?P<lead>\s*answer\s*=\s*)(?P<open>[\[({])(?P<items>[^;\[\](){}#]+(?:;[^;\[\](){}#]+)+);?\s*(?P<close>[\])}])"
    r"\s*(?:#.*)?$"
)


def _leftover_slip(source: str, line: int) -> str | None:
    """The hint for a ratio (``answer = 3:19``), numbers joined in Chinese (``answer = 5和7``, ``answer = 5、7``),
    a list with semicolons (``answer = [5; 7]``) or a number with a prefix inside a calculation or alone
    (``answer = 989T/4.8T``, ``answer = 20*3.2万``, ``answer = 1.5k``), else None. Every line shown compiles.

    >>> from coursekit import set_language
    >>> set_language("en")
    >>> [_leftover_slip(line, 1).rsplit(": ", 1)[1] for line in ("answer = 3:19", "answer = [5; 7]")]
    ['answer = 3 / 19', 'answer = [5, 7]']
    """
    raw = _fullwidth_digits(source.rstrip())
    joined = _JOINED_VALUES.match(raw)
    if joined is not None:
        lead = joined.group("lead").strip()
        items = re.findall(_NUMBER, joined.group("items"))
        word = next(w for w in _JOINING_WORDS if w in joined.group("items"))
        fixed = f"{lead} [{', '.join(items)}]"
        singles = [f"{lead} {item}" for item in dict.fromkeys(items)]
        readings = (  # 5和5 is one number twice: "answer = 5", not " or answer = 5" (fuzz pass 27)
            singles[0]
            if len(singles) == 1
            else tr("input_help.or_plain", first=tr("input_help.list_separator").join(singles[:-1]), last=singles[-1])
        )
        if _compiles(fixed) and all(_compiles(single) for single in singles):
            return tr(
                "input_help.joined_values",
                line=line,
                word=word,
                items=shown_str(joined.group("items").strip()),
                fixed=shown_str(fixed),
                readings=shown_str(readings),
            )
    text = _fixed_line(source)
    ratio = _RATIO.match(text)
    if ratio is not None:
        first, second = ratio.group("first"), ratio.group("second")
        fixed = f"{ratio.group('lead').strip()} {first} / {second}"
        if _compiles(fixed) and not _is_zero(second):  # 1:0 would be shown as a ZeroDivisionError (fuzz pass 27)
            return tr("input_help.ratio", line=line, ratio=f"{first}:{second}", first=first, second=second, fixed=fixed)
    listed = _SEMICOLON_LIST.match(text)
    if listed is not None and _BRACKET_PAIRS[listed.group("open")] == listed.group("close"):
        commas = ", ".join(item.strip() for item in listed.group("items").split(";"))
        fixed = f"{listed.group('lead').strip()} {listed.group('open')}{commas}{listed.group('close')}"
        if _compiles(fixed):
            return tr("input_help.list_semicolon", line=line, fixed=shown_str(fixed))
    return _scaled_hint(text, line)


def _scaled_hint(text: str, line: int) -> str | None:
    """:func:`_leftover_slip`'s hint for numbers with an SI prefix or a Chinese order of magnitude after them, each
    written as a power of ten (``989T/4.8T`` as ``989e12/4.8e12``); None when the line has none, when it is one
    number with a Chinese order of magnitude alone (:func:`magnitude_hint`'s conversion), or when the line so written
    would not compile."""
    code, _, comment = text.partition("#")
    if not _ANSWER_LINE.match(code):
        return None
    # a number inside quotes is text ('8K' stays '8K'): only the code between string literals is read and rewritten
    found = [m for part in _STRING_LITERAL.split(code)[::2] for m in _SCALED_NUMBER.finditer(part)]
    if not found:
        return None
    if not any(m.group("si") for m in found) and len(re.findall(_NUMBER, code.split("=", 1)[1])) < 2:
        return None  # answer = 2400亿: converted by the magnitude hint
    words = {m.group("si") or m.group("zh"): _power_of(m) for m in found}
    fixed = _outside_strings(code, lambda m: f"{m.group('number')}e{_power_of(m)}").strip()
    if comment:
        fixed = f"{fixed}  #{comment}"
    if not _compiles(fixed):
        return None
    shown = tr("input_help.list_separator").join(f"{word} = 10^{power}" for word, power in words.items())
    # the lessons write sequence lengths as 8K (8192 tokens): a K may be 1024, so that reading is shown too
    binary = _outside_strings(code, _kibi_product).strip()
    kilo = ""
    if (
        binary != code.strip()
        and _compiles(binary)
        and not any(_SCALED_NUMBER.search(part) for part in _STRING_LITERAL.split(binary)[::2])
    ):
        kilo = tr("input_help.kilo_tokens", binary=shown_str(binary))
    return tr(
        "input_help.scaled_number",
        line=line,
        words=shown_str(shown),
        example=next(iter(words.values())),
        kilo=kilo,
        fixed=shown_str(fixed),
    )


#: A string literal in a line, quoted with ' or " (escapes kept inside); the parts between them are code.
_STRING_LITERAL = re.compile(r"""('[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")""")
#: An operator that binds tighter than a product on the left of a number (2/8K, 2**8K, 2%8K) or on its right (8K**2)
_TIGHTER_BEFORE = re.compile(r"(?:[/%@]|\*\*)\s*$")
_TIGHTER_AFTER = re.compile(r"^\s*\*\*")


def _outside_strings(code: str, replace: Callable[[re.Match[str]], str]) -> str:
    """``code`` with each of :data:`_SCALED_NUMBER`'s matches outside string literals replaced by ``replace``."""
    parts = _STRING_LITERAL.split(code)
    return "".join(part if index % 2 else _SCALED_NUMBER.sub(replace, part) for index, part in enumerate(parts))


def _kibi_product(found: re.Match[str]) -> str:
    """A number with k or K as its product with :data:`KIBI`, in brackets where an operator beside it binds tighter
    than ``*`` (``2/8K`` is ``2/(8*1024)``, not ``2/8*1024``: fuzz pass 27); any other match as written."""
    if found.group("si") not in ("k", "K"):
        return found.group(0)
    product = f"{found.group('number')}*{KIBI}"
    before, after = found.string[: found.start()], found.string[found.end() :]
    if _TIGHTER_BEFORE.search(before) or _TIGHTER_AFTER.match(after):
        return f"({product})"
    return product


def _power_of(found: re.Match[str]) -> int:
    """The power of ten of the prefix or order of magnitude :data:`_SCALED_NUMBER` found after a number."""
    return SI_PREFIX_POWERS[found.group("si")] if found.group("si") else CHINESE_MAGNITUDES[found.group("zh")]


# -- leftovers 30: a word glued to a number, a thousands comma with a counter word, B for billion, a multiplier, a
# ratio with spaces, a colon written for = -------------------------------------------------------------------------

_register_messages(
    {
        "input_help.glued_word": {
            "zh": "第 {line} 行的数前面紧挨着文字 '{word}'：Python 把 {word} 和后面的数字读成一个名字，"
            "名字后面再跟小数点和数字就是语法错误。Python 的数不带文字，只写数：{fixed}",
            "en": "Line {line} has the word '{word}' glued to the front of its number: Python reads {word} and the "
            "digits after it as one name, and a name followed by a decimal point and digits is a syntax error. "
            "Python numbers take no words; write the number alone: {fixed}",
        },
        "input_help.shortfall_word": {
            "zh": "第 {line} 行的数前面有 '{word}'（缺多少）：Python 的数不带文字。"
            "题目问的是余量或差值（放得下为正）时，缺 {number} 就是负数：{negative}；"
            "题目问的是缺口本身有多大时，写 {positive}。",
            "en": "Line {line} has '{word}' (Chinese for “short by”) before its number: Python numbers take no "
            "words. If the question asks for a headroom or a difference (positive when it fits), being short by "
            "{number} is a negative number: {negative}; if it asks how large the shortfall is, write {positive}.",
        },
        "input_help.grouped_with_word": {
            "zh": "第 {line} 行的数写了千位分隔的逗号，后面还跟着 '{word}'：Python 的数不带逗号（逗号把两个值隔开），"
            "也不带文字或单位。去掉逗号和“{word}”，按题目要求的单位只写数：{fixed}",
            "en": "Line {line} writes its number with thousands commas and '{word}' after it: a Python number takes no "
            "commas (a comma separates two values) and no words or units. Leave out the commas and '{word}' and "
            "write the number alone, in the unit the question asks for: {fixed}",
        },
        "input_help.grouped_either": {
            "zh": "第 {line} 行的数里有逗号，后面还跟着 '{word}'：Python 的数不带逗号，也不带文字或单位。"
            "逗号若是千位分隔，写 {whole}；若是小数点，写 {decimal}。",
            "en": "Line {line} has a comma inside its number and '{word}' after it: a Python number takes no commas "
            "and no words or units. If the comma separates thousands, write {whole}; if it is a decimal point, "
            "write {decimal}.",
        },
        "input_help.billion_or_bytes": {
            "zh": "第 {line} 行的数后面紧跟着 B：Python 的数后面不能直接跟字母。课程里 B 有两种意思："
            "在参数个数后面是十亿 (billion, 10^9)，例如 7.5B 个参数是 7.5e9；在大小后面是字节 (bytes)，"
            "是单位，数本身不带。B 是十亿时写：{billion}；B 是字节时只写数：{plain}",
            "en": "Line {line} writes B right after a number: a Python number cannot be followed by a letter. The "
            "lessons use B two ways: after a count of parameters it is a billion (10^9), so 7.5B parameters are "
            "7.5e9; after a size it is bytes, a unit, which the number leaves out. If B means billion, write: "
            "{billion}; if it means bytes, write the number alone: {plain}",
        },
        "input_help.multiplier": {
            "zh": "第 {line} 行把倍数写成了 {written}（“{number} 倍”）：Python 里 x 是字母，× 不是 Python 的符号，"
            "* 两边都要有数。倍数只写数：{fixed}",
            "en": "Line {line} writes a multiplier as {written} (“{number} times”): in Python x is a letter, × is no "
            "Python sign, and * needs a number on each side. A multiplier is the number alone: {fixed}",
        },
        "input_help.colon_for_equals": {
            "zh": "第 {line} 行 {code} 用了冒号：赋值用等号 =（冒号在 Python 里是类型注解，不给 answer 赋值，"
            "所以后面用到 answer 时它还没有值）。改好的一行：{fixed}",
            "en": "Line {line}, {code}, uses a colon: an assignment takes an equals sign = (in Python a colon there "
            "is a type annotation, which gives answer no value, so answer has none when a later line uses it). "
            "The line fixed: {fixed}",
        },
    }
)

#: Chinese words for "short by" that a learner writes before a headroom that does not fit (``answer = 缺1.47`` for
#: exercise 1.3's -1.47 GiB): the number meant may be negative
SHORTFALL_WORDS: tuple[str, ...] = tuple("还差 缺少 短缺 不足 缺 差 欠 少".split())  # data, not prose
#: Chinese counter words after a count (``1,152次``, ``64个``): what they count is whole, so a comma before three
#: digits is a thousands comma
COUNTER_WORDS: str = "次个步块张层台份轮组批条颗"  # data, not prose
_CJK = r"\u3400-\u9fff"
_UNSIGNED = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"  # one way to split a number: no backtracking
#: ``answer = 缺1.47``: Chinese characters glued to the front of a number (a space between is
#: :data:`_WORD_BEFORE_NUMBER`'s)
_GLUED_WORD = re.compile(
    rf"^(?P<lead>\s*answer\s*=\s*)(?P<sign>[-+]?)(?P<word>[{_CJK}]+)\s*(?P<number>{_UNSIGNED})\s*(?P<comment>#.*)?$"
)
#: ``answer = 1,152次``: a number with thousands commas and a word or unit after it
_GROUPED_WITH_WORD = re.compile(
    r"^(?P<lead>\s*answer\s*=\s*)(?P<number>[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?)\s*"
    rf"(?P<word>[A-Za-zµμ{_CJK}][A-Za-zµμ/{_CJK}]{{0,11}})\s*(?P<comment>#.*)?$"
)
#: ``answer = 7.5B*3.75/2**30``: a number with B right after it (a billion, or bytes)
_B_AFTER_NUMBER = re.compile(rf"(?<![\w.])(?P<number>{_UNSIGNED})B(?![A-Za-z\d_])")
#: ``answer = x1.0``, ``answer = ×1.0``, ``answer = 1.0x``: a multiplier written with its sign
_MULTIPLIER = re.compile(
    rf"^(?P<lead>\s*answer\s*=\s*)(?:(?P<before>[xX×*])\s*(?P<first>{_UNSIGNED})|(?P<second>{_UNSIGNED})\s*"
    r"(?P<after>[xX×]))\s*(?P<comment>#.*)?$"
)
#: ``answer: 26.19`` / ``answer：26.19``: a colon typed for =
COLON_ANSWER = re.compile(r"^(?P<indent>\s*)answer\s*[:：]\s*(?P<value>[^=\s#][^#]*?)\s*(?:#.*)?$")


def _with_comment(code: str, comment: str | None) -> str:
    return f"{code}  {comment}" if comment else code


def _leftover30_slip(source: str, line: int) -> str | None:
    """The hint for a word glued to the front of a number (``answer = 缺1.47``), a number with thousands commas and a
    word after it (``answer = 1,152次``), B after a number (``answer = 7.5B*3.75/2**30``), a multiplier
    (``answer = x1.0``, ``×1.0``) or a colon for = (``answer：26.19``), else None. Every line shown compiles.

    >>> from coursekit import set_language
    >>> set_language("en")
    >>> [_leftover30_slip(s, 1).rsplit(": ", 1)[1] for s in ("answer = 1,152次", "answer = x1.0", "answer：26.19")]
    ['answer = 1152', 'answer = 1.0', 'answer = 26.19']
    """
    text = _fixed_line(_fullwidth_digits(source.replace("：", ":")))
    colon = COLON_ANSWER.match(text)
    if colon is not None:
        fixed = f"answer = {colon.group('value')}"
        if _compiles(fixed):
            code = shown_str(source.strip())
            return tr("input_help.colon_for_equals", line=line, code=code, fixed=shown_str(fixed))
    multiplier = _MULTIPLIER.match(source.strip() if "×" in source else text)
    if multiplier is not None:
        number = multiplier.group("first") or multiplier.group("second")
        fixed = _with_comment(f"{multiplier.group('lead').strip()} {number}", multiplier.group("comment"))
        written = (multiplier.group("before") or "") + number + (multiplier.group("after") or "")
        if _compiles(fixed):
            return tr("input_help.multiplier", line=line, written=written, number=number, fixed=shown_str(fixed))
    glued = _GLUED_WORD.match(text)
    if glued is not None and not any(glued.group("word") in (w.zh, w.en) for w in _ABOUT_WORDS):
        lead, word, number = glued.group("lead").strip(), glued.group("word"), glued.group("number")
        if word in CHINESE_MAGNITUDES or chinese_number_text(word) is not None:
            return None
        sign = glued.group("sign")
        positive = _with_comment(f"{lead} {sign}{number}", glued.group("comment"))
        if word in SHORTFALL_WORDS and not sign:
            negative = _with_comment(f"{lead} -{number}", glued.group("comment"))
            return tr(
                "input_help.shortfall_word",
                line=line,
                word=word,
                number=number,
                negative=shown_str(negative),
                positive=shown_str(positive),
            )
        return tr("input_help.glued_word", line=line, word=word, fixed=shown_str(positive))
    grouped = _GROUPED_WITH_WORD.match(text)
    if grouped is not None:
        lead, number, word = grouped.group("lead").strip(), grouped.group("number"), grouped.group("word")
        whole = number.replace(",", "")
        if word in CHINESE_MAGNITUDES:
            magnitude = _magnitude_hint(whole, word)
            return None if magnitude is None else f"{tr('input_help.line_prefix', line=line)}{magnitude}"
        fixed = _with_comment(f"{lead} {whole}", grouped.group("comment"))
        if number.count(",") == 1 and "." not in number and word[0] not in COUNTER_WORDS:
            head, tail = number.split(",")
            decimal = _with_comment(f"{lead} {head}.{tail}", grouped.group("comment"))
            return tr(
                "input_help.grouped_either", line=line, word=word, whole=shown_str(fixed), decimal=shown_str(decimal)
            )
        return tr("input_help.grouped_with_word", line=line, word=word, fixed=shown_str(fixed))
    return _billion_hint(text, line)


def _billion_hint(text: str, line: int) -> str | None:
    """:func:`_leftover30_slip`'s hint for B after a number: both readings the lessons give B, a billion (``7.5e9``)
    and bytes (the number alone), each a line that compiles; None when the line has no such B."""
    code, _, comment = text.partition("#")
    if not _ANSWER_LINE.match(code) or _B_AFTER_NUMBER.search(code) is None:
        return None
    billion = _B_AFTER_NUMBER.sub(lambda m: f"{m.group('number')}e9", code).strip()
    plain = _B_AFTER_NUMBER.sub(lambda m: m.group("number"), code).strip()
    if comment:
        billion, plain = f"{billion}  #{comment}", f"{plain}  #{comment}"
    if not (_compiles(billion) and _compiles(plain)):
        return None
    return tr("input_help.billion_or_bytes", line=line, billion=shown_str(billion), plain=shown_str(plain))


def colon_answer_hint(cell: str, before_line: int | None = None) -> str | None:
    """The hint for a cell whose ``answer`` has no value because a line above ``before_line`` wrote ``answer: 26.19``
    (a type annotation, no assignment), else None: after a kernel restart the cell raises a NameError on the line
    that uses ``answer`` (the check), so the line to fix is another one.

    >>> from coursekit import set_language
    >>> set_language("en")
    >>> colon_answer_hint("answer: 26.19\\ncheck('q1.state_gib', answer)\\n", 2).rsplit(": ", 1)[1]
    'answer = 26.19'
    """
    check_instance("cell", cell, str)
    if before_line is not None:
        check_int("before_line", before_line, ge=1)
    for number, source in reversed(list(enumerate(cell.splitlines(), start=1))):
        if before_line is not None and number >= before_line:
            continue
        if re.match(r"^\s*answer\s*=", source):
            return None  # an assignment above: the colon line is not why answer has no value
        found = COLON_ANSWER.match(source.split("#", 1)[0].rstrip())
        if found is not None:
            fixed = f"answer = {found.group('value')}"
            if _compiles(fixed):
                return tr(
                    "input_help.colon_for_equals",
                    line=number,
                    code=shown_str(source.strip()),
                    fixed=shown_str(fixed),
                )
    return None


learner_functions(globals())
