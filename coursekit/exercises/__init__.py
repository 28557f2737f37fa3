"""Exercises with friendly checking: ``check("q1.state_gib", answer)``.

An :class:`Exercise` knows how to compute its expected answer by calling
coursekit (never a copied literal, except a fact a cited source states), how
to compare an answer with it (numeric tolerance, exact value, or choice), a
hint and a one-line explanation. Lesson modules ``coursekit.exercises.lesson1``
... define their exercises and :func:`register` them at import; :func:`check`
imports the right module from the id prefix (``q1`` -> ``lesson1``, see
:data:`PREFIX_MODULES`).

:func:`check` shows the feedback in the current language and returns it; it
never raises for a learner's answer:

* ``...`` or ``None`` -> not answered yet;
* right -> correct, with the explanation;
* wrong -> not yet, with the hint (never the expected answer);
* wrong type -> a message saying what kind of answer is expected.

>>> from coursekit.i18n import Text
>>> _ = register(Exercise(
...     id="demo.two_plus_two", lesson=0, prompt=Text(zh="2 + 2 = ?", en="2 + 2 = ?"),
...     expected=lambda: 2 + 2, kind="exact",
...     hint=Text(zh="数一数。", en="Count."), why=Text(zh="2 + 2 = 4。", en="2 + 2 = 4.")), replace=True)
>>> check("demo.two_plus_two", ...).status
Not answered. Replace ... with your answer and run the cell again.
'unanswered'
>>> check("demo.two_plus_two", 4).correct
Correct. 2 + 2 = 4.
True
>>> check("demo.two_plus_two", 5).status
Not yet. Hint: Count.
'incorrect'

A number is judged at the precision the learner wrote it, with at least two
significant digits (:func:`written_tolerance`): for an expected 0.158, ``0.16``
is right and ``0.2`` is not. An exercise may accept other forms of the same
number (``forms=("percent",)``) and declares its likely slips (:class:`Slip`:
GB vs GiB, percent vs fraction, bits vs bytes, one direction vs both, a
parallel degree left out, seconds vs milliseconds); a wrong answer that matches
a slip gets that slip's hint, which names the mistake, never the answer.
:func:`show_solution` shows the worked solution when the learner asks for it.

Taught in: lesson 0 (course index, "how exercises work"); used by every lesson.
"""

from __future__ import annotations

import ast
import html
import importlib
import inspect
import linecache
import logging
import math
import operator
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .._validate import (
    check_bool,
    check_callable,
    check_choice,
    check_instance,
    check_int,
    check_items,
    check_number,
    check_sequence,
    is_numpy_array,
    learner_functions,
)
from ..i18n import Text, shown_repr, shown_str, tr
from ..i18n import register as _register_messages
from ..lessons import LESSONS, prefix_modules
from ..specs import _plain
from ..units import GB_BYTES, GIB_BYTES
from .input_help import (
    _ABOUT_WORDS,
    CARET_POWER,
    TILDE_ANSWER,
    _comma_reading,
    _magnitude_hint,
    _numeral_with_magnitude,
    chinese_number_text,
    chinese_numeral_value,
    tilde_hint,
)
from .input_help import CHINESE_NUMERALS as CHINESE_NUMERALS

_register_messages(
    {
        "exercises.author_slip_hint": {
            "zh": "slip {code}：hint 必须是 coursekit.i18n.Text（中英两种文字），而不是 {type}。",
            "en": "slip {code}: hint must be a coursekit.i18n.Text (both languages), not {type}.",
        },
        "exercises.author_slip_one": {
            "zh": "slip {code}：factor、alternative、matches 三者必须恰好给出一个。",
            "en": "slip {code}: give exactly one of factor, alternative and matches.",
        },
        "exercises.author_id": {
            "zh": "练习编号 id = {value}：必须形如 'q1.state_gib'（小写前缀.名称）。",
            "en": "exercise id = {value}: must look like 'q1.state_gib' (lowercase prefix.name).",
        },
        "exercises.author_prefix": {
            "zh": "练习 '{id}'：前缀 '{prefix}' 属于 {module}，不属于第 {lesson} 课。",
            "en": "exercise '{id}': prefix '{prefix}' belongs to {module}, not lesson {lesson}.",
        },
        "exercises.author_text": {
            "zh": "练习 '{id}'：{name} 必须是 coursekit.i18n.Text（中英两种文字），而不是 {type}。",
            "en": "exercise '{id}': {name} must be a coursekit.i18n.Text (both languages), not {type}.",
        },
        "exercises.author_why": {
            "zh": "练习 '{id}'：why 必须是 Text 或返回 Text 的函数，而不是 {type}。",
            "en": "exercise '{id}': why must be a Text or a function returning one, not {type}.",
        },
        "exercises.author_expected": {
            "zh": "练习 '{id}'：expected 必须是计算答案的函数，而不是 {type}。",
            "en": "exercise '{id}': expected must be a function that computes the answer, not {type}.",
        },
        "exercises.author_choices": {
            "zh": "练习 '{id}'：选择题必须给出 choices。",
            "en": "exercise '{id}': a choice exercise needs choices.",
        },
        "exercises.author_forms": {
            "zh": "练习 '{id}'：只有数值题接受其他写法（forms）。",
            "en": "exercise '{id}': only number exercises accept other forms.",
        },
        "exercises.author_slips": {
            "zh": "练习 '{id}'：slips 的每一项必须是 coursekit.exercises.Slip，而不是 {type}。",
            "en": "exercise '{id}': every item of slips must be a coursekit.exercises.Slip, not {type}.",
        },
        "exercises.author_slip_factor": {
            "zh": "练习 '{id}'：slip '{code}' 带有 factor，只有数值题可以这样。",
            "en": "exercise '{id}': slip '{code}' has a factor; only number exercises may.",
        },
        "exercises.author_twice": {
            "zh": "练习 '{id}' 已经注册过了（重新加载课程模块时用 replace=True）。",
            "en": "exercise '{id}' is already registered (use replace=True when reloading a lesson module).",
        },
    }
)


__all__ = [
    "BINARY_UNIT",
    "COUNT_VS_BILLIONS",
    "FORMS",
    "KIB_VS_KB",
    "KINDS",
    "MB_VS_GB",
    "MIB_VS_GIB",
    "MIB_VS_MB",
    "PREFIX_MODULES",
    "ROUNDED_COUNT",
    "SIGN_FLIPPED",
    "UNIT_SLIPS",
    "Exercise",
    "Feedback",
    "Slip",
    "any_mistake",
    "check",
    "check_entries",
    "degree_left_out",
    "exercises",
    "get_exercise",
    "member_left_out",
    "mistake",
    "offer_solution",
    "register",
    "reveal",
    "show_solution",
    "solution_text",
    "strategy_choice",
    "unit_slips",
    "verify",
    "written_tolerance",
]

_log = logging.getLogger(__name__)
_log.addHandler(logging.NullHandler())

#: Id prefix -> the module of lesson exercises that registers it on import (from the lesson registry,
#: ``coursekit/lessons.json``).
PREFIX_MODULES: dict[str, str] = prefix_modules()

#: How an answer is compared with the expected one.
#: ``number``: a real number within ``rel_tol`` / ``abs_tol``;
#: ``exact``: equal, with the same kind of value (int, str, bool ...), by one rule on its own and inside a sequence:
#: a bool is never a number and an int is never a bool or a float (``1152.0`` is refused, saying to write ``1152``);
#: a list, a tuple and a one-dimensional numpy array are the same sequence, compared item by item in order; numpy
#: scalars count as the Python values they hold;
#: ``choice``: one of ``choices`` (or, if the expected value is a frozenset, a set of them).
KINDS: tuple[str, ...] = ("number", "exact", "choice")

#: Default relative tolerance of numeric answers given at full precision (0.1 %: a constant rounded to
#: four digits, such as 1.074 for GiB/GB, still passes). Rounded answers are judged by :func:`written_tolerance`.
DEFAULT_REL_TOL: float = 1e-3

#: The fewest significant digits a rounded answer is judged at: 0.16 for 0.158 is right, 0.2 is not.
MIN_SIGNIFICANT_DIGITS: int = 2

#: Other forms of the same number an exercise may accept: name -> factor applied to the expected value.
FORMS: dict[str, float] = {"percent": 100.0, "fraction": 0.01}

_ID = re.compile(r"^[a-z][a-z0-9]*\.[a-z0-9_]+$")

_register_messages(
    {
        "exercises.unanswered": {
            "zh": "未作答。把 ... 换成你的答案，再运行本单元格。",
            "en": "Not answered. Replace ... with your answer and run the cell again.",
        },
        "exercises.correct": {
            "zh": "正确。{why}",
            "en": "Correct. {why}",
        },
        "exercises.correct_tolerance": {
            "zh": "正确：你的数与正确值相差不到 {tol}，在检查的容差之内，虽然最后一位没有按四舍五入写对。{why}",
            "en": "Correct: your number is within {tol} of the right value, the check's tolerance, though its last "
            "digit is not rounded right. {why}",
        },
        "exercises.incorrect": {
            "zh": "还不对。提示：{hint}",
            "en": "Not yet. Hint: {hint}",
        },
        "exercises.slip": {
            "zh": "还不对。提示：{slip}",
            "en": "Not yet. Hint: {slip}",
        },
        "exercises.entries_mapping": {
            "zh": "{name} = {value}：必须是一个非空的字典 (dict)：键 -> 练习编号（或同样形状的字典）。",
            "en": "{name} = {value}: must be a non-empty dict: key -> exercise id (or a dict of the same shape).",
        },
        "exercises.entries_not_dict": {
            "zh": "{name} = {value}：必须是一个字典 (dict)，键为 {keys}。",
            "en": "{name} = {value}: must be a dict with the keys {keys}.",
        },
        "exercises.entry_missing": {
            "zh": "{name} 里没有键 {key}：在 {name} 里写上 {key}: 你的答案。",
            "en": "{name} has no key {key}: write {key}: your answer in {name}.",
        },
        "exercises.entries_extra": {
            "zh": "{name} 里的键 {extra} 不是这道题问的，没有检查（题目问的键：{keys}）。",
            "en": "{name} has the keys {extra}, which this exercise does not ask for, so they were not checked (the "
            "keys it asks for: {keys}).",
        },
        "exercises.invalid": {
            "zh": "无法检查。{error}",
            "en": "Cannot check. {error}",
        },
        "exercises.error": {
            "zh": "检查出错：{id}。检查时出现意外错误（不是你的问题，请告诉课程作者）：{error}",
            "en": "Checker error: {id}. Unexpected error while checking (not your fault; please tell the course "
            "authors): {error}",
        },
        "exercises.answer_item": {"zh": "answer 中的一项", "en": "an item of answer"},
        "exercises.answer_type_failed": {
            "zh": "答案的类型 {type} 是自己定义的，读取它时它自己出错了（{error}）："
            "请给出普通的数、字符串、列表或元组。",
            "en": "the answer's type {type} is one of your own, and it failed while being read ({error}): give a "
            "plain number, string, list or tuple.",
        },
        "exercises.expect_choice_set": {
            "zh": "答案应当是由 {choices} 中的选项组成的集合，例如 {{{example!r}}}。",
            "en": "The answer should be a set of options from {choices}, e.g. {{{example!r}}}.",
        },
        "exercises.quoted_choice_set": {
            "zh": "answer = {value!r} 带着引号，是一段文字（字符串），不是集合：去掉外面的引号，"
            "给每个选项各加一对引号，放进花括号、用半角逗号隔开，写成 answer = {literal}。",
            "en": "answer = {value!r} is in quotes, so it is text (a string), not a set: drop the outer quotes, put "
            "each option in quotes of its own, and write them in braces separated by commas: answer = {literal}.",
        },
        "exercises.expect_sequence": {
            "zh": "答案应当是列表或元组（list / tuple），按题目要求的顺序写出各项，而不是 {type}（{value!r}）。",
            "en": "The answer should be a list or tuple, its items in the order the question asks for; not of type "
            "{type} ({value!r}).",
        },
        "exercises.whole_number": {
            "zh": "{name} = {value!r}：必须是整数 (int)；请写成 {whole}，不带小数点"
            "（在代码里用 // 或 int()，而不是 /）。",
            "en": "{name} = {value!r}: must be an integer (int); write {whole}, without the decimal point "
            "(in code, use // or int() rather than /).",
        },
        "exercises.fraction_for_whole": {
            "zh": "{name} = {value!r}：必须是整数 (int)，这里数的是个数或编号，不能带小数。算出小数，多半是某一步用了 "
            "/ 除法：问“最多容纳多少个”时只算整个的，向下取整（在代码里用 // 或 math.floor()，不要四舍五入）；"
            "其它情况先检查那一步。",
            "en": "{name} = {value!r}: must be an integer (int); this counts things or names one, so it has no "
            'fraction. A fraction usually means some step used / division: for "how many fit at most" only whole '
            "ones count, so round down (// or math.floor() in code, not round()); otherwise check that step.",
        },
        "exercises.number_for_bool": {
            "zh": "{name} = {value!r}：必须是真假值 True 或 False，{value!r} 是整数。Python 里“是”写作 True，"
            "“否”写作 False（不加引号，首字母大写），不用 1 和 0。",
            "en": "{name} = {value!r}: must be a truth value, True or False; {value!r} is an integer. In Python "
            '"yes" is True and "no" is False (no quotes, capital first letter), not 1 and 0.',
        },
        "exercises.expect_type": {
            "zh": "答案应当是 {expected_type} 类型，而不是 {type}（{value!r}）。",
            "en": "The answer should be of type {expected_type}, not {type} ({value!r}).",
        },
        "exercises.id_is_exercise": {
            "zh": "exercise_id = 练习 {id!r} 本身：这里要的是它的编号，一个字符串，即 {id!r}。",
            "en": "exercise_id = the exercise {id!r} itself: give its id, the string {id!r}.",
        },
        "exercises.unknown": {
            "zh": "exercise_id：没有编号为 {id!r} 的练习（已知：{known}）。",
            "en": "exercise_id: There is no exercise {id!r} (known: {known}).",
        },
        "exercises.unknown_heading": {
            "zh": "exercise_id = {id!r} 是练习标题里的题号，不是练习编号。练习编号是填空单元格里 check( 后面那个"
            "带引号的字符串，保持原样即可；第 {lesson} 课的练习编号有：{known}。",
            "en": "exercise_id = {id!r} is the number in the exercise's heading, not its id. The id is the quoted "
            "string after check( in the fill-in cell; leave it as it is. Lesson {lesson}'s exercise ids: {known}.",
        },
        "exercises.solution_title": {
            "zh": "参考解答",
            "en": "Worked solution",
        },
        "exercises.solution_question": {"zh": "题目：{prompt}", "en": "Question: {prompt}"},
        "exercises.solution_method": {"zh": "做法：{method}", "en": "Method: {method}"},
        "exercises.solution_result": {"zh": "结果：{why}", "en": "Result: {why}"},
        "exercises.hide_button": {"zh": "收起", "en": "Hide"},
        "exercises.hide_button_labelled": {"zh": "收起：{label}", "en": "Hide: {label}"},
        "exercises.solution_button": {"zh": "显示参考解答与结果", "en": "Show the worked solution and result"},
        "exercises.solution_button_labelled": {
            "zh": "显示参考解答与结果：{label}",
            "en": "Show the worked solution and result: {label}",
        },
        "exercises.solution_offer": {
            "zh": '参考解答已收起。想看时点按钮，或运行 show_solution("{id}")。',
            "en": 'The worked solution is put away. To see it, press the button or run show_solution("{id}").',
        },
        "exercises.reveal_button": {
            "zh": "显示结果（会透露上面练习的答案）",
            "en": "Show the result (it gives the exercises above away)",
        },
        "exercises.reveal_offer": {
            "zh": "结果已收起：它会透露上面练习的答案。先作答，再点按钮查看。",
            "en": "The result is put away: it gives the exercises above away. Answer first, then press the button.",
        },
        "exercises.solution_error": {
            "zh": "参考解答暂时无法计算（不是你的问题，请告诉课程作者）：{error}",
            "en": "The worked solution cannot be computed (not your fault; please tell the course authors): {error}",
        },
        # Slip hints: each names a mistake, never the answer.
        "exercises.slip.gib_vs_gb": {
            "zh": "你的答案与正确值正好差 GiB 与 GB 之比 (2^30 / 10^9 ≈ 1.074)：检查题目要的是 GiB (2^30 字节) "
            "还是 GB (10^9 字节)。",
            "en": "Your answer is off by exactly the GiB / GB ratio (2^30 / 10^9 ≈ 1.074): check whether the "
            "question asks for GiB (2^30 bytes) or GB (10^9 bytes).",
        },
        "exercises.slip.percent_vs_fraction": {
            "zh": "你的答案与正确值正好差 100 倍：检查题目要的是分数（如 0.25）还是百分数（如 25）。",
            "en": "Your answer is off by exactly 100: check whether the question asks for a fraction (like 0.25) "
            "or a percentage (like 25).",
        },
        "exercises.slip.bits_vs_bytes": {
            "zh": "你的答案与正确值正好差 8 倍：1 字节 = 8 比特；网卡常以 Gbit/s 标注，账本里用字节。",
            "en": "Your answer is off by exactly 8: 1 byte = 8 bits; network cards are often rated in Gbit/s, "
            "while the ledgers use bytes.",
        },
        "exercises.slip.direction": {
            "zh": "你的答案与正确值正好差 2 倍：检查带宽是单向（一个方向）还是双向（两个方向之和）；"
            "本课程一律用单向带宽。",
            "en": "Your answer is off by exactly 2: check whether a bandwidth is per direction or bidirectional "
            "(both directions added); this course always uses the per-direction figure.",
        },
        "exercises.slip.binary_unit": {
            "zh": "你的答案与正确值正好差 1024 倍：检查单位是字节、KiB 还是 MiB"
            "（1 KiB = 1024 字节，1 MiB = 1024 KiB）。",
            "en": "Your answer is off by exactly 1024: check whether the unit is bytes, KiB or MiB "
            "(1 KiB = 1024 bytes, 1 MiB = 1024 KiB).",
        },
        "exercises.slip.count_vs_billions": {
            "zh": "你的答案与正确值正好差 10^9 倍：题目问的是多少十亿 (billion)，"
            "把个数除以 1e9 再填（例如 1.5e9 个参数写作 1.5）。",
            "en": "Your answer is off by exactly 10^9: the question asks how many billion, so divide the count by 1e9 "
            "(1.5e9 parameters are written 1.5).",
        },
        "exercises.slip.mib_vs_gib": {
            "zh": "你的答案与正确值正好差 1024 倍：检查单位是 MiB 还是 GiB（1 GiB = 1024 MiB）。",
            "en": "Your answer is off by exactly 1024: check whether the unit is MiB or GiB (1 GiB = 1024 MiB).",
        },
        "exercises.slip.mb_vs_gb": {
            "zh": "你的答案与正确值正好差 1000 倍：检查单位是 MB 还是 GB（1 GB = 1000 MB = 10^9 字节）。",
            "en": "Your answer is off by exactly 1000: check whether the unit is MB or GB (1 GB = 1000 MB = 10^9 "
            "bytes).",
        },
        "exercises.slip.seconds_vs_ms": {
            "zh": "你的答案与正确值正好差 1000 倍：检查单位是秒、毫秒还是微秒（1 s = 1000 ms，1 ms = 1000 µs）。",
            "en": "Your answer is off by exactly 1000: check whether the unit is seconds, milliseconds or "
            "microseconds (1 s = 1000 ms, 1 ms = 1000 µs).",
        },
        "exercises.slip.mib_vs_mb": {
            "zh": "你的答案与正确值正好差 MiB 与 MB 之比 (2^20 / 10^6 ≈ 1.049)：检查题目要的是 MiB (2^20 字节) "
            "还是 MB (10^6 字节)。",
            "en": "Your answer is off by exactly the MiB / MB ratio (2^20 / 10^6 ≈ 1.049): check whether the "
            "question asks for MiB (2^20 bytes) or MB (10^6 bytes).",
        },
        "exercises.slip.kib_vs_kb": {
            "zh": "你的答案与正确值正好差 KiB 与 KB 之比 (1024 / 1000 = 1.024)：检查题目要的是 KiB (1024 字节) "
            "还是 KB (1000 字节)。",
            "en": "Your answer is off by exactly the KiB / KB ratio (1024 / 1000 = 1.024): check whether the "
            "question asks for KiB (1024 bytes) or KB (1000 bytes).",
        },
        "exercises.thousands_comma": {
            "zh": "answer = {value!r}：Python 把逗号读成了分隔符，{written} 成了元组。数字里不要写千位分隔的逗号，"
            "写成 {number}。",
            "en": "answer = {value!r}: Python reads a comma as a separator, so {written} became a tuple. Write the "
            "number without thousands commas: {number}.",
        },
        "exercises.comma_in_expression": {
            "zh": "answer = {value!r}：Python 把 {typed} 里的逗号读成了分隔符，算出的是一个元组，不是一个数。"
            "算式里的数不要写千位分隔的逗号，把这一行写成 answer = {fixed}",
            "en": "answer = {value!r}: Python reads the commas in {typed} as separators and computes a tuple, not a "
            "number. Write the numbers of a calculation without thousands commas: answer = {fixed}",
        },
        "exercises.either_comma": {
            "zh": "answer = {value!r}：Python 把逗号读成了分隔符，{written} 成了元组。"
            "这个逗号可能是小数点，也可能是千位分隔：Python 的小数点是半角句点 '.'，数里也不写千位分隔的逗号。"
            "你想写小数就写 {decimal}，想写整数就写 {number}。",
            "en": "answer = {value!r}: Python reads a comma as a separator, so {written} became a tuple. That comma "
            "may be a decimal point or a thousands comma: Python's decimal point is a full stop '.', and a number "
            "takes no thousands commas. For a decimal write {decimal}; for a whole number write {number}.",
        },
        "exercises.option_with_note": {
            "zh": "{name} = {value!r}：这是选项 {option!r} 连同题目里写在它旁边的说明。答案只写选项本身："
            "{name} = {option!r}",
            "en": "{name} = {value!r}: this is the option {option!r} together with the description the question "
            "gives it. Write the option alone: {name} = {option!r}",
        },
        "exercises.option_spelled_apart": {
            "zh": "{name} = {value!r}：选项要照题目的写法一字不差，连字符、空格、引号都算在内。你写的是选项 "
            "{option!r}：{name} = {option!r}",
            "en": "{name} = {value!r}: an option is written exactly as the question writes it, hyphens, spaces and "
            "quotes included. You mean the option {option!r}: {name} = {option!r}",
        },
        "exercises.none_as_string": {
            "zh": "answer = None：Python 的 None 在这里表示“没作答”。"
            "选项 'none' 要写成带引号的字符串：answer = 'none'。",
            "en": "answer = None: Python's None means \"not answered\" here. Write the option 'none' as a string, in "
            "quotes: answer = 'none'.",
        },
        "exercises.labelled": {"zh": "{label}：{message}", "en": "{label}: {message}"},
        "exercises.entry_blank": {
            "zh": "entry = {value!r}：entry 说明单元格里这一项怎么写（如 '\"DP\": '），反馈里的改法按它写，不能是空白；"
            "单元格用变量 answer 时请省略（None）。",
            "en": "entry = {value!r}: entry says how the cell writes this answer (e.g. '\"DP\": '), and the feedback "
            "writes its fix so, so it cannot be blank; leave it out (None) when the cell uses the variable answer.",
        },
        "exercises.label_blank": {
            "zh": "label = {value!r}：标签写在反馈前面，说明这条结论针对哪一项，不能是空白；"
            "不需要标签时请省略（None）。",
            "en": "label = {value!r}: a label heads the feedback to say which entry it is for, so it cannot be "
            "blank; leave it out (None) for no heading.",
        },
        "exercises.decimal_comma": {
            "zh": "answer = {value!r}：Python 把逗号读成了两个数之间的分隔符，{written} 成了元组。小数要用小数点："
            "写成 {number}。",
            "en": "answer = {value!r}: Python reads a comma as a separator between two numbers, so {written} became "
            "a tuple. Write decimals with a point: {number}.",
        },
        "exercises.slip.sign": {
            "zh": "数值对了，符号反了：问的是个数或大小，写正数（图上的负号表示“减少了多少”）。",
            "en": "The number is right but its sign is not: the question asks for a count or a size, so write it "
            "positive (a minus sign on a chart marks how many were taken away).",
        },
        "exercises.slip.rounded_count": {
            "zh": "你的答案接近，但看起来是约数：这道题要精确的整数个数。把每一项都数全，不要四舍五入。",
            "en": "Your answer is close but looks rounded: this exercise needs the exact count. Count every term and "
            "do not round.",
        },
        "exercises.slip.order": {
            "zh": "你的答案各项都对，但顺序不对：按题目要求的顺序写出它们（例如从小到大）。",
            "en": "Your answer has the right items but not in the order the question asks for (e.g. ascending).",
        },
        "exercises.slip.truncated": {
            "zh": "你的数很接近，但像是把多出的位数直接舍掉了（截断），而不是四舍五入：按四舍五入写，或者多写一位"
            "有效数字再试。",
            "en": "Your number is close, but it looks cut off (truncated) rather than rounded: round it, or write one "
            "more significant digit, and try again.",
        },
        "exercises.slip.more_digits": {
            "zh": "这道题要 {digits} 位有效数字：你写的位数更少，四舍五入到这么少的位数时，对的做法和常见的错误做法"
            "得到同一个数，检查分不出来。多写几位再试。",
            "en": "This exercise needs {digits} significant digits: you wrote fewer, and at that precision the right "
            "method and a common wrong one round to the same number, so the checker cannot tell them apart. Write "
            "more digits and try again.",
        },
        "exercises.unassigned.compare": {
            "zh": "这个单元格没有给 answer 赋值：第 {line} 行 {code} 用了两个等号 ==，那是比较，不是赋值，"
            "所以检查到的是以前留下的 answer。赋值只用一个等号：{fixed}",
            "en": "This cell gives answer no value: line {line}, {code}, uses two equals signs ==, a comparison, not "
            "an assignment, so the check saw an answer left from before. An assignment takes one equals sign: {fixed}",
        },
        "exercises.unassigned.colon": {
            "zh": "这个单元格没有给 answer 赋值：第 {line} 行 {code} 用了冒号，Python 把它读成类型注解，不是赋值，"
            "所以检查到的是以前留下的 answer。赋值用等号：{fixed}",
            "en": "This cell gives answer no value: line {line}, {code}, uses a colon, which Python reads as a type "
            "annotation, not an assignment, so the check saw an answer left from before. An assignment takes an "
            "equals sign: {fixed}",
        },
        "exercises.unassigned.bare": {
            "zh": "这个单元格没有给 answer 赋值：第 {line} 行只有 {code}，前面少了 answer =，所以检查到的是以前留下的 "
            "answer。写成 {fixed}",
            "en": "This cell gives answer no value: line {line} holds {code} alone, without answer = before it, so the "
            "check saw an answer left from before. Write {fixed}",
        },
        "exercises.slip.caret": {
            "zh": "{line}：Python 里 ^ 不是乘方，而是按位异或 (XOR)，所以没有报错，算出的却是另一个数（2^30 是 28）。"
            "{own}乘方写作 **：{fixed}",
            "en": "{line}: in Python ^ is not a power but bitwise XOR, so no error appeared, but the number is "
            "another one (2^30 is 28). {own}A power is written **: {fixed}",
        },
        "exercises.slip.caret_value": {
            "zh": "这一行 Python 算出的是 {xor}（就是你的答案），按乘方算是 {power}。",
            "en": "Python makes this line {xor} (your answer); read as a power it is {power}. ",
        },
        "exercises.quoted_chinese_numeral": {
            "zh": "answer = {value!r} 是用中文数字写的一段文字（字符串），不是数：检查只认阿拉伯数字，"
            "不加引号，写成 answer = {literal}。",
            "en": "answer = {value!r} is a Chinese numeral in quotes, text (a string), not a number: write it in "
            "Arabic digits without quotes, answer = {literal}.",
        },
        "exercises.quoted_value": {
            "zh": "answer = {value!r} 带着引号，是一段文字（字符串），不是{kind}：去掉引号，写成 answer = {literal}。",
            "en": "answer = {value!r} is in quotes, so it is text (a string), not {kind}: drop the quotes and write "
            "answer = {literal}.",
        },
        "exercises.quoted_unit": {
            "zh": "answer = {value!r} 带着引号和单位 {unit}，是一段文字（字符串），不是数：只写数，不加引号、不带单位，"
            "用题目要求的单位：answer = {literal}。",
            "en": "answer = {value!r} is in quotes with its unit {unit}, so it is text (a string), not a number: write "
            "the number alone, without quotes or unit, in the unit the question asks for: answer = {literal}.",
        },
        "exercises.quoted_magnitude": {
            "zh": "answer = {value!r} 带着引号，是一段文字（字符串），不是数。{help}",
            "en": "answer = {value!r} is in quotes, so it is text (a string), not a number. {help}",
        },
        "exercises.quoted_decimal_comma": {
            "zh": "answer = {value!r} 带着引号，是一段文字（字符串），不是数；而且小数点写成了逗号，Python 的小数点是"
            "半角句点 '.'：只写数，不加引号，写成 answer = {literal}。",
            "en": "answer = {value!r} is in quotes, so it is text (a string), not a number; and its decimal point is a "
            "comma, while Python's is a full stop '.': write the number alone, without quotes: answer = {literal}.",
        },
        "exercises.quoted_thousands": {
            "zh": "answer = {value!r} 带着引号，是一段文字（字符串），不是数；数里也不要写千位分隔的逗号："
            "只写数，不加引号、不加逗号，写成 answer = {literal}。",
            "en": "answer = {value!r} is in quotes, so it is text (a string), not a number; and a number takes no "
            "thousands commas: write it alone, without quotes or commas: answer = {literal}.",
        },
        "exercises.quoted_either_comma": {
            "zh": "answer = {value!r} 带着引号，是一段文字（字符串），不是数；而且数里有逗号，它可能是小数点，也可能是"
            "千位分隔：Python 的小数点是半角句点 '.'，数里也不写千位分隔的逗号。只写数，不加引号：想写小数就写 "
            "answer = {decimal}，想写整数就写 answer = {number}。",
            "en": "answer = {value!r} is in quotes, so it is text (a string), not a number; and its comma may be a "
            "decimal point or a thousands comma: Python's decimal point is a full stop '.', and a number takes no "
            "thousands commas. Write the number alone, without quotes: answer = {decimal} for a decimal, answer = "
            "{number} for a whole number.",
        },
        "exercises.quoted_percent": {
            "zh": "answer = {value!r} 带着引号和百分号，是一段文字（字符串），不是数：去掉引号和百分号。"
            "题目要 0 到 1 之间的比例时写 answer = {fraction}（{number}% 就是 {fraction}）；"
            "题目要百分数时写 answer = {number}。",
            "en": "answer = {value!r} is in quotes with a percent sign, so it is text (a string), not a number: drop "
            "both. If the question asks for a fraction between 0 and 1, write answer = {fraction} ({number}% is "
            "{fraction}); if it asks for a percentage, write answer = {number}.",
        },
        "exercises.quoted_about": {
            "zh": "answer = {value!r} 带着引号和“{word}”，是一段文字（字符串），不是数。检查器按你写出的位数判断，"
            "本来就容许舍入，不用写“{word}”：只写数，不加引号，用题目要求的单位：answer = {literal}。",
            "en": "answer = {value!r} is in quotes with “{word}”, so it is text (a string), not a number. The checker "
            "judges the digits you write and allows for rounding already, so leave out “{word}”: write the number "
            "alone, without quotes, in the unit the question asks for: answer = {literal}.",
        },
        "exercises.quoted_yes_no": {
            "zh": "answer = {value!r} 是一段文字（字符串），不是真假值：Python 里“是”写作 True，“否”写作 False"
            "（不加引号，首字母大写）。",
            "en": "answer = {value!r} is text (a string), not a truth value: in Python “yes” is written True and "
            "“no” False (without quotes, with a capital letter).",
        },
        "exercises.quoted_expression": {
            "zh": "answer = {value!r} 带着引号，是一段文字（字符串），Python 不会去算它：去掉引号，写成 "
            "answer = {literal}，Python 会算出它的值，检查器再拿这个值来判断。",
            "en": "answer = {value!r} is in quotes, so it is text (a string) and Python does not work it out: drop "
            "the quotes and write answer = {literal}; Python computes its value, and the checker judges that.",
        },
        "exercises.quoted_list": {
            "zh": "answer = {value!r} 带着引号，是一段文字（字符串），不是列表：去掉引号，把各项放进方括号、用半角逗号"
            "隔开，写成 answer = {literal}。",
            "en": "answer = {value!r} is in quotes, so it is text (a string), not a list: drop the quotes and put the "
            "items in square brackets, separated by commas: answer = {literal}.",
        },
        "exercises.single_item.list": {
            "zh": "answer = {value!r} 是只有一项的列表 (list)；这道题只要一个值，不要列表：去掉方括号，"
            "写成 answer = {literal}。",
            "en": "answer = {value!r} is a list of one item; this question wants a single value, not a list: drop "
            "the square brackets and write answer = {literal}.",
        },
        "exercises.single_item.set": {
            "zh": "answer = {value!r} 是只有一项的集合 (set)（花括号在 Python 里写的是集合）；这道题只要一个值，"
            "不要集合：去掉花括号，写成 answer = {literal}。",
            "en": "answer = {value!r} is a set of one item (braces write a set in Python); this question wants a "
            "single value, not a set: drop the braces and write answer = {literal}.",
        },
        "exercises.single_item.tuple": {
            "zh": "answer = {value!r} 是只有一项的元组 (tuple)（数后面多打一个逗号，Python 也会把它读成元组）；"
            "这道题只要一个值：去掉括号和逗号，写成 answer = {literal}。",
            "en": "answer = {value!r} is a tuple of one item (a comma typed after a number makes one too); this "
            "question wants a single value: drop the brackets and the comma and write answer = {literal}.",
        },
        "exercises.quoted_kind.number": {"zh": "数", "en": "a number"},
        "exercises.quoted_kind.bool": {"zh": "真假值", "en": "a truth value"},
        "exercises.slip.degree": {
            "zh": "你的答案与正确值正好差 {name} = {degree} 倍：是不是漏掉了（或多算了）{name} 这一维的切分？",
            "en": "Your answer is off by exactly {name} = {degree}: did you leave out (or count twice) the split "
            "along {name}?",
        },
    }
)


@dataclass(frozen=True)
class Slip:
    """A likely mistake an exercise declares, and the hint that names it (never the answer).

    Give exactly one of:

    * ``factor`` (number exercises): an answer equal to the expected value times
      or divided by it, at the precision written, is that slip;
    * ``alternative``: a callable computing the answer the mistake produces (with
      coursekit, like ``expected``), compared as answers are;
    * ``matches(answer, expected)``: a predicate (e.g. a set with one member left
      out, see :func:`member_left_out`).

    Use the ready-made ones:
    :data:`GIB_VS_GB`, :data:`PERCENT_VS_FRACTION`, :data:`BITS_VS_BYTES`,
    :data:`DIRECTION`, :data:`SECONDS_VS_MS` and :func:`degree_left_out`.

    >>> GIB_VS_GB.factor == 2**30 / 10**9
    True
    """

    code: str
    hint: Text
    factor: float | None = None
    alternative: Callable[[], Any] | None = field(default=None, compare=False)
    matches: Callable[[Any, Any], bool] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.hint, Text):
            raise TypeError(tr("exercises.author_slip_hint", code=shown_repr(self.code), type=type(self.hint).__name__))
        if sum(x is not None for x in (self.factor, self.alternative, self.matches)) != 1:
            raise ValueError(tr("exercises.author_slip_one", code=shown_repr(self.code)))
        if self.factor is not None:
            check_number("factor", self.factor, gt=1)


def _slip(code: str, factor: float, **params: Any) -> Slip:
    key = f"exercises.slip.{code.split(':', 1)[0]}"
    return Slip(code, Text(zh=tr(key, lang="zh", **params), en=tr(key, lang="en", **params)), factor=factor)


#: Giving GB where GiB is asked, or the other way round (×1.0737).
GIB_VS_GB: Slip = _slip("gib_vs_gb", GIB_BYTES / GB_BYTES)
#: Giving a percentage where a fraction is asked, or the other way round (×100).
PERCENT_VS_FRACTION: Slip = _slip("percent_vs_fraction", 100.0)
#: Bits for bytes (×8).
BITS_VS_BYTES: Slip = _slip("bits_vs_bytes", 8.0)
#: A bidirectional bandwidth used as a per-direction one, or the other way round (×2).
DIRECTION: Slip = _slip("direction", 2.0)
#: Seconds for milliseconds (×1000).
SECONDS_VS_MS: Slip = _slip("seconds_vs_ms", 1000.0)
#: MiB and MB confused (2^20 / 10^6): a size in MiB answered in MB, or the reverse.
MIB_VS_MB: Slip = _slip("mib_vs_mb", 2**20 / 10**6)
#: KiB and KB confused (1024 / 1000).
KIB_VS_KB: Slip = _slip("kib_vs_kb", 1024 / 1000)
#: Bytes, KiB and MiB confused (×1024): a size answered one binary unit off.
BINARY_UNIT: Slip = _slip("binary_unit", 1024.0)
#: MiB for GiB, or the other way round (×1024): a GiB answer given in MiB.
MIB_VS_GIB: Slip = _slip("mib_vs_gib", 1024.0)
#: MB for GB, or the other way round (×1000): a GB answer given in MB.
MB_VS_GB: Slip = _slip("mb_vs_gb", 1000.0)
#: A count given where billions are asked, or the other way round (×10^9): 7.06e10 parameters for 70.6 (billion).
COUNT_VS_BILLIONS: Slip = _slip("count_vs_billions", 1e9)


def degree_left_out(name: str, degree: int) -> Slip:
    """The slip of leaving out (or counting twice) the split along parallel dimension ``name`` of ``degree``.

    >>> degree_left_out("PP", 4).code
    'degree:PP'
    """
    check_int("degree", degree, ge=2)
    return _slip(f"degree:{name}", float(degree), name=name, degree=degree)


def mistake(code: str, alternative: Callable[[], Any], hint: Text) -> Slip:
    """A slip whose wrong answer ``alternative()`` computes (e.g. the ring's latency term left out).

    >>> mistake("no_reserve", lambda: 3.0, Text(zh="预留呢？", en="The reserve?")).code
    'no_reserve'
    """
    return Slip(code, hint, alternative=alternative)


def any_mistake(code: str, alternatives: Callable[[], Iterable[float]], hint: Text) -> Slip:
    """A slip of a number exercise that several wrong paths reach: ``alternatives()`` computes their answers.

    A number answer matching any of them (at the precision written, as answers are judged) is this slip, e.g. a
    step whose parts add up but one part of which is wrong.

    >>> slip = any_mistake("sum_of_wrong_parts", lambda: (390.0, 330.0), Text(zh="某一部分？", en="Which part?"))
    >>> slip.matches(390, 360.0), slip.matches(330, 360.0), slip.matches(331, 360.0)
    (True, True, False)
    """

    def matches(answer: Any, expected: Any) -> bool:
        if isinstance(answer, bool) or not isinstance(answer, (int, float)) or not math.isfinite(answer):
            return False
        return any(
            math.isclose(answer, wrong, rel_tol=DEFAULT_REL_TOL)
            or abs(answer - wrong) <= written_tolerance(answer) + 1e-9 * max(abs(answer), abs(wrong))
            for wrong in alternatives()
        )

    return Slip(code, hint, matches=matches)


def _rounded_count(answer: Any, expected: Any) -> bool:
    if isinstance(answer, bool) or not isinstance(answer, (int, float)) or not isinstance(expected, int):
        return False
    return answer != expected and abs(answer - expected) <= written_tolerance(answer)


def _sign_flipped(answer: Any, expected: Any) -> bool:
    if isinstance(answer, bool) or not isinstance(answer, (int, float)) or isinstance(expected, bool):
        return False
    return isinstance(expected, (int, float)) and expected > 0 and answer == -expected


#: A count or size answered with a minus sign (a chart's "-1,677" read as the answer): the exact negative of it.
SIGN_FLIPPED: Slip = Slip(
    "sign",
    Text(zh=tr("exercises.slip.sign", lang="zh"), en=tr("exercises.slip.sign", lang="en")),
    matches=_sign_flipped,
)


def _thousands_tuple(answer: Any) -> str | None:
    """The number a tuple of ints spells when read with thousands commas (``(1, 677)`` -> ``"1677"``: what Python
    makes of ``answer = 1,677``), else ``None``."""
    if not isinstance(answer, tuple) or len(answer) < 2:
        return None
    if not all(isinstance(item, int) and not isinstance(item, bool) for item in answer):
        return None
    head, *rest = answer
    if not 1 <= abs(head) <= 999 or not all(0 <= item <= 999 for item in rest):
        return None
    return f"{head}" + "".join(f"{item:03d}" for item in rest)


def _thousands_with_decimals(answer: Any) -> tuple[str, str] | None:
    """``(written, number)`` for a tuple Python makes of a number with thousands commas and a decimal point
    (``answer = 107,374.18`` is ``(107, 374.18)``: ``("107,374.18", "107374.18")``), else None.

    >>> _thousands_with_decimals((107, 374.18)), _thousands_with_decimals((1, 74, 1.5))
    (('107,374.18', '107374.18'), ('1,074,001.5', '1074001.5'))
    >>> _thousands_with_decimals((107, 374)), _thousands_with_decimals((0.5, 1.5)), _thousands_with_decimals((1, 1e3))
    (None, None, None)
    """
    if not isinstance(answer, tuple) or len(answer) < 2:
        return None
    *whole, last = answer
    if not all(isinstance(item, int) and not isinstance(item, bool) for item in whole):
        return None
    if not isinstance(last, float) or not math.isfinite(last) or not 0 <= last < 1000 or last.is_integer():
        return None
    head, *rest = whole
    if not 1 <= abs(head) <= 999 or not all(0 <= item <= 999 for item in rest):
        return None
    fraction = repr(last).partition(".")[2]
    if not fraction.isdigit():  # 1e-05: no digits a learner typed
        return None
    groups = [f"{head}", *(f"{item:03d}" for item in rest), f"{int(last):03d}"]
    return ",".join(groups) + "." + fraction, "".join(groups) + "." + fraction


#: ``answer = 206,0``: the answer line of a learner's cell, a number written with commas (Python's tuple of ints)
_COMMA_ANSWER_LINE = re.compile(r"^\s*answer\s*=\s*(?P<text>[-+]?\d+(?:\s*,\s*\d+)+)\s*,?\s*(?:#.*)?$")


def _caller_lines() -> list[str]:
    """The lines of the learner's cell that called :func:`check`, up to the call (IPython keeps each cell's code in
    linecache); empty when the caller is not found."""
    frame = inspect.currentframe()
    try:
        while frame is not None and str(frame.f_globals.get("__name__", "")).startswith("coursekit"):
            frame = frame.f_back
        if frame is None:
            return []
        return linecache.getlines(frame.f_code.co_filename)[: frame.f_lineno]
    finally:
        del frame


def _caret_answer_line() -> str | None:
    """The cell's last ``answer = ...`` line if it writes a power as ``2^30`` (Python's XOR), else None.

    ``answer = 2^30`` runs without an error (it is 28), so no line of help appears under the cell; check() says
    what went wrong instead (review 25).
    """
    for line in reversed(_caller_lines()):
        if re.match(r"^\s*answer\s*=", line):
            code = line.split("#", 1)[0]
            return code.strip() if CARET_POWER.search(code) else None
    return None


def _caller_assigns_answer() -> bool:
    """Whether the cell that called :func:`check` has an ``answer = ...`` line before the call."""
    return any(re.match(r"^\s*answer\s*=", line) for line in _caller_lines())


def _earlier_caret_line(answer: Any) -> str | None:
    """The last ``answer = ...`` line of the cells run before the one that called :func:`check`, when it writes a
    power as ``2^10`` and Python's XOR reading of it is ``answer`` (so that line made the answer judged), else None.

    A lesson may check in a cell below the one the learner typed the answer in; the caller's own cell then has no
    answer line to read (leftovers 30). The cells run so far are IPython's input history.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of the course
        return None
    shell = get_ipython()
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if not isinstance(history, list) or len(history) < 2:
        return None
    for cell in reversed(history[:-1]):  # the last one is the cell running check()
        if not isinstance(cell, str):
            continue
        for line in reversed(cell.splitlines()):
            if re.match(r"^\s*answer\s*=", line):
                code = line.split("#", 1)[0].strip()
                if CARET_POWER.search(code) and _caret_readings(code, answer) is not None:
                    return code
                return None
    return None


def _caller_cell() -> tuple[str, int] | None:
    """The whole code of the learner's cell that called :func:`check` and the line of the call, when check() was
    called at the top level of a cell (not inside a function); None otherwise."""
    frame = inspect.currentframe()
    try:
        while frame is not None and str(frame.f_globals.get("__name__", "")).startswith("coursekit"):
            frame = frame.f_back
        if frame is None or frame.f_code.co_name != "<module>":
            return None
        return "".join(linecache.getlines(frame.f_code.co_filename)), frame.f_lineno
    finally:
        del frame


def _unassigned_answer() -> Text | None:
    """What the learner's cell did instead of giving ``answer`` a value, when it passes ``answer`` to check() but no
    line before the call assigns it and a line there looks like a meant assignment (``answer == 26.19``,
    ``answer: 26.19``, ``26.19`` alone), else None.

    Python runs those lines without an error and check() then judges an answer left from an earlier run: a right
    answer typed with ``==`` was judged wrong, or a wrong one right (review 29).
    """
    found = _caller_cell()
    if found is None:
        return None
    source, call_line = found
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "check"
        and node.lineno <= call_line <= (node.end_lineno or node.lineno)
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Name)
        and node.args[1].id == "answer"
    ]
    if not calls:
        return None
    call = calls[0]
    # answer: 26.19 (an annotation with no value) stores nothing, though Python marks its name as a target
    annotated = {id(node.target) for node in ast.walk(tree) if isinstance(node, ast.AnnAssign) and node.value is None}
    if any(
        isinstance(node, ast.Name) and node.id == "answer" and isinstance(node.ctx, ast.Store)
        for node in ast.walk(tree)
        if getattr(node, "lineno", call.lineno) < call.lineno and id(node) not in annotated
    ):
        return None

    def text(key: str, **params: Any) -> Text:
        return Text(zh=tr(key, lang="zh", **params), en=tr(key, lang="en", **params))

    for statement in tree.body:
        if statement.lineno >= call.lineno:
            break
        code = shown_str((ast.get_source_segment(source, statement) or "").strip())
        value = statement.value if isinstance(statement, ast.Expr) else None
        if (
            isinstance(value, ast.Compare)
            and isinstance(value.left, ast.Name)
            and value.left.id == "answer"
            and len(value.ops) == 1
            and isinstance(value.ops[0], ast.Eq)
        ):
            right = ast.get_source_segment(source, value.comparators[0]) or ""
            return text("exercises.unassigned.compare", line=statement.lineno, code=code, fixed=f"answer = {right}")
        if (
            isinstance(statement, ast.AnnAssign)
            and statement.value is None
            and isinstance(statement.target, ast.Name)
            and statement.target.id == "answer"
        ):
            right = ast.get_source_segment(source, statement.annotation) or ""
            return text("exercises.unassigned.colon", line=statement.lineno, code=code, fixed=f"answer = {right}")
        if value is not None and not isinstance(value, ast.Call):
            if not (isinstance(value, ast.Name) and value.id == "answer"):
                fixed = f"answer = {code}"
                return text("exercises.unassigned.bare", line=statement.lineno, code=code, fixed=fixed)
    return None  # no line at all: answer may come from a cell above, as the learner meant


def _tilde_answer_hint() -> Text | None:
    """The hint for the cell's last ``answer = ~128`` line ("~" written for "about"; Python computed -129 without
    an error), in both languages, else None (review 29)."""
    for number, line in reversed(list(enumerate(_caller_lines(), start=1))):
        if re.match(r"^\s*answer\s*=", line):
            if TILDE_ANSWER.match(line.rstrip("\n")) is None:
                return None
            zh, en = (tilde_hint(line, number, lang=lang) for lang in ("zh", "en"))
            return Text(zh=zh, en=en) if zh is not None and en is not None else None
    return None


def _typed_comma_number(answer: tuple[int, ...]) -> str | None:
    """How the learner typed the tuple ``answer`` (``"206,0"``), read from the answer line of the cell that called
    :func:`check` (IPython keeps each cell's code in linecache), or None when no such line spells ``answer``.

    A tuple cannot tell ``206,0`` from ``206,000`` (both are ``(206, 0)``): the first is a decimal comma, the second
    a thousands comma.
    """
    for line in reversed(_caller_lines()):
        found = _COMMA_ANSWER_LINE.match(line)
        if found is None:
            continue
        text = re.sub(r"\s+", "", found.group("text"))
        try:
            same = ast.literal_eval(text) == answer
        except (ValueError, SyntaxError):
            same = False
        return text if same else None
    return None


#: A number written with thousands commas inside a line (``327,680`` in ``327,680/1024``)
_COMMA_GROUPED = re.compile(r"(?<![\w.,])(\d{1,3})((?:,\d{3})+)(?![\w.])")
_ARITHMETIC_OPERATORS: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def _arithmetic(node: ast.AST, operators: dict[type, Callable[..., Any]] | None = None) -> Any:
    """The value of a line of plain arithmetic (numbers, + - * / // ** and brackets, a tuple of them; ``operators``
    adds others, such as ``^``); ValueError for anything else, so no learner code runs twice."""
    ops = _ARITHMETIC_OPERATORS if operators is None else operators
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_arithmetic(item, ops) for item in node.elts)
    if isinstance(node, ast.BinOp) and type(node.op) in ops:
        left, right = _arithmetic(node.left, ops), _arithmetic(node.right, ops)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ValueError("power too large to recompute")
        return ops[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in ops:
        return ops[type(node.op)](_arithmetic(node.operand, ops))
    raise ValueError("not plain arithmetic")


#: The operators of :func:`_arithmetic` and Python's ``^`` (XOR): how Python reads ``answer = 2^10`` (8)
_XOR_OPERATORS: dict[type, Callable[..., Any]] = {**_ARITHMETIC_OPERATORS, ast.BitXor: operator.xor}


def _caret_readings(line: str, answer: Any) -> tuple[str, str] | None:
    """``(xor, power)``: the value Python gives the answer line ``line`` (``^`` is XOR) and its value with each ``^``
    read as a power, written out, when the line is plain arithmetic and ``answer`` is its XOR value; else None.

    >>> _caret_readings("answer = 2^10", 8), _caret_readings("answer = 2^10", 1024), _caret_readings("answer = x^2", 1)
    (('8', '1024'), None, None)
    """
    text = line.split("=", 1)[1]
    try:
        xor = _arithmetic(ast.parse(text.strip(), mode="eval").body, _XOR_OPERATORS)
        power = _arithmetic(ast.parse(text.replace("^", "**").strip(), mode="eval").body)
    except (ValueError, SyntaxError, ArithmeticError, TypeError, OverflowError):
        return None
    if isinstance(xor, tuple) or isinstance(power, tuple) or type(answer) not in (int, float) or xor != answer:
        return None
    return tuple(str(v) if isinstance(v, int) else f"{v:.6g}" for v in (xor, power))  # type: ignore[return-value]


def _comma_expression(answer: tuple[Any, ...]) -> tuple[str, str] | None:
    """``(typed, fixed)`` when the cell's answer line is a calculation with a number written with thousands commas
    (``answer = 327,680/1024``, the tuple ``(327, 0.664...)``): the line as typed and without those commas
    (``327680/1024``); None for a number alone (the rules below) or a line that did not make ``answer``."""
    for line in reversed(_caller_lines()):
        found = re.match(r"^\s*answer\s*=\s*(?P<text>[^#]+?)\s*(?:#.*)?$", line)
        if found is None:
            continue
        typed = found.group("text")
        fixed = _COMMA_GROUPED.sub(lambda number: number.group(1) + number.group(2).replace(",", ""), typed)
        if fixed == typed or re.fullmatch(r"[-+]?[\d.]+", fixed):
            return None
        try:
            same = _arithmetic(ast.parse(typed, mode="eval").body) == answer
            _arithmetic(ast.parse(fixed, mode="eval").body)
        except (ValueError, SyntaxError, ArithmeticError, TypeError):
            return None
        return (typed, fixed) if same else None
    return None


def _decimal_comma(answer: Any) -> tuple[str, str] | None:
    """``(written, number)`` for a pair of ints that only a decimal comma can have written (``(-1, 47)``: what Python
    makes of ``answer = -1,47``), else ``None``.

    After a thousands comma come three digits, and Python refuses a group with a leading 0 (``1,047`` is a syntax
    error), so a second item of 1 to 99 was typed with one or two digits: a decimal comma. So was a second item of
    four or more digits (``1,6201``), and any second item after a 0, which no thousands reading starts with
    (``0,639``: a fraction). ``(1, 0)`` stays a thousands reading (``1,000``).

    >>> _decimal_comma((-1, 47)), _decimal_comma((26, 19)), _decimal_comma((0, 5))
    (('-1,47', '-1.47'), ('26,19', '26.19'), ('0,5', '0.5'))
    >>> _decimal_comma((0, 639)), _decimal_comma((1, 6201))
    (('0,639', '0.639'), ('1,6201', '1.6201'))
    >>> _decimal_comma((1, 677)), _decimal_comma((1, 0)), _decimal_comma((1, 2, 3))
    (None, None, None)

    No thousands number starts with a lone 0, so ``(0, 256)``, what Python makes of ``answer = 0,256``, is 0.256:

    >>> _decimal_comma((0, 256))
    ('0,256', '0.256')
    """
    if not isinstance(answer, tuple) or len(answer) != 2:
        return None
    if not all(isinstance(item, int) and not isinstance(item, bool) for item in answer):
        return None
    head, tail = answer
    if not (1 <= tail <= 99 or tail >= 1000 or (head == 0 and tail >= 1)):
        return None
    return f"{head},{tail}", f"{'-' if head < 0 else ''}{abs(head)}.{tail}"


#: An exact count answered as a round number near it (1150 or 1200 for 1152): the exercise needs every unit.
ROUNDED_COUNT: Slip = Slip(
    "rounded_count",
    Text(zh=tr("exercises.slip.rounded_count", lang="zh"), en=tr("exercises.slip.rounded_count", lang="en")),
    matches=_rounded_count,
)


def member_left_out(member: str, hint: Text) -> Slip:
    """The slip of a set answer that is the expected set without ``member``; ``hint`` says what to look at.

    >>> member_left_out("PP", Text(zh="看 PP。", en="Look at PP.")).matches({"TP"}, frozenset({"TP", "PP"}))
    True
    """

    def matches(answer: Any, expected: Any) -> bool:
        return isinstance(answer, (set, frozenset)) and set(answer) == set(expected) - {member}

    return Slip(f"left_out:{member}", hint, matches=matches)


#: Short Chinese names a learner types for a strategy beside the glossary's own (服务副本 is also called 副本).
STRATEGY_SPELLINGS: dict[str, str] = {"副本": "Replica"}
#: A name followed by a gloss in brackets, full-width or not: 'TP（张量并行）', 'Replica (服务副本)'.
#: (The head ends in a character that is no space, so the head and the spaces before the bracket cannot trade
#: characters: a lazy head there took minutes on a long run of spaces, fuzz pass 27.)
_GLOSSED = re.compile(r"(?P<head>[^（(]*[^（(\s])\s*[（(](?P<gloss>[^）)]+)[）)]")
#: Hyphens a copied name may carry that NFKC keeps (U+2010 hyphen, U+2011 non-breaking hyphen: 'ZeRO‑3')
_HYPHENS: dict[int, str] = {0x2010: "-", 0x2011: "-"}


def strategy_choice(text: str, names: tuple[str, ...] | list[str]) -> str:
    """The one of ``names`` (strategy or candidate names such as ``'TP'``, ``'ZeRO-3'``, ``'Replica'``) that ``text``
    names: the name in any case, its glossary term in Chinese or English (``'张量并行'``, ``'tensor parallelism'``:
    :func:`coursekit.glossary.lookup`), a short spelling of :data:`STRATEGY_SPELLINGS`, or either with a gloss in
    brackets after it, as copied from the lesson (``'TP（张量并行）'``); anything else as typed, stripped. One rule
    for every exercise answered with a strategy's name.

    >>> names = ("DP", "ZeRO-3", "TP", "Replica")
    >>> strategy_choice(" tp ", names), strategy_choice("张量并行", names), strategy_choice("副本", names)
    ('TP', 'TP', 'Replica')
    >>> strategy_choice("TP（张量并行）", names), strategy_choice("zero-3", names), strategy_choice("服务副本", names)
    ('TP', 'ZeRO-3', 'Replica')
    >>> strategy_choice("流水线并行", names)  # a strategy that is not among the choices stays as typed
    '流水线并行'
    """
    from ..glossary import lookup

    check_instance("text", text, str)
    choices = check_items("names", names)
    for index, name in enumerate(choices):
        check_instance(f"names[{index}]", name, str)
    by_lower: dict[str, str] = {name.lower(): name for name in choices}

    def one(word: str) -> str | None:
        # invisible format characters (zero-width, bidi marks) copied with a name are no part of it
        word = unicodedata.normalize("NFKC", word).translate(_HYPHENS)
        word = "".join(char for char in word if unicodedata.category(char) != "Cf").strip()
        if word.lower() in by_lower:
            return by_lower[word.lower()]
        if word in STRATEGY_SPELLINGS:
            return by_lower.get(STRATEGY_SPELLINGS[word].lower())
        try:
            abbr = lookup(word).abbr
        except ValueError:
            return None
        return by_lower.get(abbr.lower())

    glossed = _GLOSSED.fullmatch(text.strip())
    for word in (text, *(glossed.group("head", "gloss") if glossed else ())):
        found = one(word)
        if found is not None:
            return found
    return text.strip()


@dataclass(frozen=True)
class Exercise:
    """One exercise: how to compute the expected answer and how to judge an answer.

    Parameters:

    * ``id``: ``"<prefix>.<name>"``, e.g. ``"q1.state_gib"``; the prefix names the lesson module;
    * ``lesson``: the lesson number (must match the prefix, see :data:`PREFIX_MODULES`);
    * ``prompt``: the question, bilingual;
    * ``expected``: a callable with no arguments that computes the right answer with coursekit;
    * ``kind``: one of :data:`KINDS`;
    * ``hint``: shown when the answer is wrong; it must not contain the answer;
    * ``why``: one line shown when the answer is right; a ``Text`` or a callable
      ``expected -> Text`` (to show the computed value);
    * ``rel_tol`` / ``abs_tol``: tolerances of ``number`` exercises (as in :func:`math.isclose`) for answers
      given at full precision; a rounded answer is also judged at the precision written (:func:`written_tolerance`),
      taken as at least ``min_digits`` significant digits (3 where the question asks for 3, so that ``1`` is read as
      1.00 and does not match 1.029);
    * ``forms``: other forms of the same number the exercise accepts, names of :data:`FORMS`
      (``("percent",)``: a fraction may also be answered as a percentage);
    * ``slips``: the likely mistakes (:class:`Slip`), tested in order when an answer is wrong;
    * ``choices``: the options of ``choice`` exercises;
    * ``normalize``: optional function applied to a ``str`` answer (or to each
      ``str`` in a set answer) before comparing, e.g. ``str.upper`` so ``"tp"`` counts as ``"TP"``.

    >>> ex = Exercise(id="demo.bytes_per_param", lesson=0, prompt=Text(zh="?", en="?"),
    ...               expected=lambda: 2 + 2 + 12, hint=Text(zh="数字节。", en="Count bytes."),
    ...               why=Text(zh="16。", en="16."))
    >>> ex.expected_value()
    16
    """

    id: str
    lesson: int
    prompt: Text
    expected: Callable[[], Any]
    hint: Text
    why: Text | Callable[[Any], Text]
    kind: str = "number"
    rel_tol: float = DEFAULT_REL_TOL
    abs_tol: float = 0.0
    min_digits: int = MIN_SIGNIFICANT_DIGITS
    choices: tuple[str, ...] = ()
    normalize: Callable[[Any], Any] | None = field(default=None, compare=False)
    forms: tuple[str, ...] = ()
    slips: tuple[Slip, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(tr("exercises.author_id", value=shown_repr(self.id)))
        lesson = check_int("lesson", self.lesson, ge=0)
        module = PREFIX_MODULES.get(self.prefix)
        module_lesson = re.search(r"lesson(\d+)$", module) if module is not None else None
        if module_lesson is not None and int(module_lesson.group(1)) != lesson:
            raise ValueError(
                tr("exercises.author_prefix", id=self.id, prefix=self.prefix, module=module, lesson=lesson)
            )
        check_choice("kind", self.kind, KINDS)
        for name in ("prompt", "hint"):
            if not isinstance(getattr(self, name), Text):
                raise TypeError(
                    tr("exercises.author_text", id=self.id, name=name, type=type(getattr(self, name)).__name__)
                )
        if not (isinstance(self.why, Text) or callable(self.why)):
            raise TypeError(tr("exercises.author_why", id=self.id, type=type(self.why).__name__))
        if not callable(self.expected):
            raise TypeError(tr("exercises.author_expected", id=self.id, type=type(self.expected).__name__))
        check_number("rel_tol", self.rel_tol, ge=0)
        check_number("abs_tol", self.abs_tol, ge=0)
        check_int("min_digits", self.min_digits, ge=1, le=15)
        if self.kind == "choice" and not self.choices:
            raise ValueError(tr("exercises.author_choices", id=self.id))
        for form in self.forms:
            check_choice("forms", form, FORMS)
        if self.forms and self.kind != "number":
            raise ValueError(tr("exercises.author_forms", id=self.id))
        for slip in self.slips:
            if not isinstance(slip, Slip):
                raise TypeError(tr("exercises.author_slips", id=self.id, type=type(slip).__name__))
            if slip.factor is not None and self.kind != "number":
                raise ValueError(tr("exercises.author_slip_factor", id=self.id, code=slip.code))

    @property
    def prefix(self) -> str:
        """The part of the id before the dot (``"q1"``)."""
        return self.id.split(".", 1)[0]

    def expected_value(self) -> Any:
        """The expected answer, computed now."""
        return self.expected()

    def why_text(self, expected: Any) -> Text:
        """The explanation shown with a right answer."""
        return self.why if isinstance(self.why, Text) else self.why(expected)


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer; ``message`` renders in the language current when read.

    ``status`` is one of ``"unanswered"``, ``"correct"``, ``"incorrect"``,
    ``"invalid"`` (wrong kind of answer) or ``"error"`` (a bug in the exercise);
    ``slip`` is the code of the declared :class:`Slip` a wrong answer matched, if any, or ``"order"``: the right
    items of an ordered answer in another order.
    The message starts with the status in words, so colour is never the only signal.

    :func:`check` already displayed it, so showing a Feedback as the last
    expression of a cell displays nothing more; call :meth:`show` to show it again.
    """

    exercise_id: str
    status: str
    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    slip: str | None = None

    @property
    def correct(self) -> bool:
        """True only for a right answer."""
        return self.status == "correct"

    @property
    def message(self) -> str:
        """The feedback sentence in the current language."""
        return tr(self.key, **self.params)

    def __str__(self) -> str:
        return self.message

    def show(self) -> None:
        """Display the feedback (HTML in a notebook, plain text elsewhere)."""
        _display(self)

    def _ipython_display_(self) -> None:
        """Already displayed by :func:`check`: display nothing more."""


#: Border and background colours of the feedback box, by status (the words say the same).
_COLOURS: dict[str, tuple[str, str]] = {
    "correct": ("#2e7d32", "#edf7ed"),
    "incorrect": ("#c62828", "#fdecea"),
    "unanswered": ("#616161", "#f5f5f5"),
    "invalid": ("#ed6c02", "#fff4e5"),
    "error": ("#ed6c02", "#fff4e5"),
}


def _display_text(text: str, status: str, css_class: str) -> None:
    """Show ``text`` in a coloured box in a notebook (plain text elsewhere)."""
    if _in_kernel():
        from IPython.display import display

        border, background = _COLOURS.get(status, _COLOURS["unanswered"])
        body = html.escape(text).replace("\n", "<br>")
        bundle = {
            "text/plain": text,
            "text/html": f'<div class="coursekit-feedback {css_class}" style="border-left:4px solid {border};'
            f'background:{background};padding:2px 8px">{body}</div>',
        }
        display(bundle, raw=True)  # type: ignore[no-untyped-call]
    else:
        print(text)


def _in_kernel() -> bool:
    """True inside a Jupyter kernel (a notebook in any front end), False in plain Python and doctests."""
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python without IPython
        return False
    return getattr(get_ipython(), "kernel", None) is not None


def _display(feedback: Feedback, label: str | Text | None = None, entry: str | None = None) -> None:
    text = feedback.message
    if entry is not None:
        # the cell writes this answer as an entry of a dict (lesson 5: my_state_gib = {1: ...}): the fix the message
        # writes out ("answer = 13") is written as that entry ("my_state_gib 的 1: 13"; review 27)
        text = text.replace("answer = ", entry)
    elif isinstance(label, str) and label.isidentifier():
        # A label that is a key of the learner's dict (lesson 6: "compute_ms"): the cell has no variable `answer`,
        # so the fix the message writes out ("answer = 240") is written as that entry ('"compute_ms": 240').
        text = text.replace("answer = ", f'"{label}": ')
    if label is not None:
        text = tr("exercises.labelled", label=label.render() if isinstance(label, Text) else label, message=text)
    _display_text(text, feedback.status, f"coursekit-{feedback.status}")


_registry: dict[str, Exercise] = {}
#: Former exercise ids and the id each is registered under now, so a notebook saved before a rename still checks.
RENAMED_IDS: dict[str, str] = {"plan.cp_gate": "plan.cp_cost"}


def register(exercise: Exercise, *, replace: bool = False) -> Exercise:
    """Add ``exercise`` to the registry and return it.

    Registering a second exercise under the same id is an error unless
    ``replace=True`` (for reloading a lesson module).
    """
    check_instance("exercise", exercise, Exercise)
    if exercise.id in _registry and not replace and _registry[exercise.id] is not exercise:
        raise ValueError(tr("exercises.author_twice", id=exercise.id))
    _registry[exercise.id] = exercise
    return exercise


def _load_lesson(prefix: str) -> None:
    module = PREFIX_MODULES.get(prefix)
    if module is None:
        return
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:  # the lesson module exists but one of its imports is missing
            raise


def get_exercise(exercise_id: str) -> Exercise:
    """The registered exercise ``exercise_id``, importing its lesson module if needed."""
    if isinstance(exercise_id, Exercise):  # the object where its id belongs: say which string to write
        raise TypeError(tr("exercises.id_is_exercise", id=exercise_id.id))
    if not isinstance(exercise_id, str):
        raise TypeError(
            tr("validate.type_choice", name="exercise_id", value=exercise_id, type=type(exercise_id).__name__)
        )
    exercise_id = RENAMED_IDS.get(exercise_id, exercise_id)
    if exercise_id not in _registry:
        _load_lesson(exercise_id.split(".", 1)[0])
    try:
        return _registry[exercise_id]
    except KeyError:
        prefix = exercise_id.split(".", 1)[0]
        known = ", ".join(sorted(k for k in _registry if k.startswith(prefix + "."))) or "-"
        heading = re.fullmatch(r"\s*(\d+)\.\d+\s*", exercise_id)  # "0.1": the number in the exercise's heading
        if heading is not None and known == "-":
            number = int(heading.group(1))
            entry = next((e for e in LESSONS if e.number == number and e.exercises), None)
            if entry is not None and entry.exercises is not None:
                _load_lesson(entry.exercises)
                ids = sorted(k for k in _registry if k.startswith(entry.exercises + "."))
                raise ValueError(
                    tr("exercises.unknown_heading", id=exercise_id, lesson=number, known=", ".join(ids))
                ) from None
        raise ValueError(tr("exercises.unknown", id=exercise_id, known=known)) from None


def exercises(lesson: int | None = None) -> tuple[Exercise, ...]:
    """The registered exercises (of one lesson, if given), sorted by id.

    Lesson modules are imported first, so every exercise of the course is listed.
    """
    for prefix in PREFIX_MODULES:
        _load_lesson(prefix)
    chosen = [ex for ex in _registry.values() if lesson is None or ex.lesson == lesson]
    return tuple(sorted(chosen, key=lambda ex: ex.id))


def _normalized(exercise: Exercise, answer: Any) -> Any:
    """A string answer in NFKC form (an input method's full-width ``'Ｂ'`` is ``'B'``) without surrounding spaces and
    a trailing full stop or comma (``'B。'`` is ``'B'``), then the exercise's own normalization; other answers as
    they are."""
    if not isinstance(answer, str):
        return answer
    # an input method's full stop or comma typed after the option ('B。') and stray spaces are not part of it
    answer = unicodedata.normalize("NFKC", answer).strip().rstrip("。、.,;!?").strip()
    return exercise.normalize(answer) if exercise.normalize is not None else answer


#: An option copied with the description the question gives it: ``'mb2（微批次改成 2）'``, ``'tp16 (TP to 16)'``,
#: ``'cp2: CP to 2'`` (after NFKC, the full-width parenthesis is ``(``)
_OPTION_WITH_NOTE = re.compile(
    r"^(?P<option>[^\s(:：]+)(?:\s*\((?P<note>.*)\)?|\s*[:：]\s*(?P<after>.+)|\s+-\s+(?P<dash>.+))$", re.S
)


def _described_option(exercise: Exercise, value: Any) -> str | None:
    """The option ``value`` starts with when the rest is the description the question lists beside it
    (``'mb2(微批次改成 2)'`` is the option ``'mb2'``), else None."""
    if not isinstance(value, str):
        return None
    found = _OPTION_WITH_NOTE.match(value)
    if found is None or not (found.group("note") or found.group("after") or found.group("dash")):
        return None
    option = found.group("option")
    normalized = exercise.normalize(option) if exercise.normalize is not None else option
    return normalized if normalized in exercise.choices else None


#: What an option written apart differs by: case, spaces, hyphens, underscores and quotes (``'fsdp2 zero2'``,
#: ``'FSDP2_ZeRO2'``, ``"'mb2'"`` for ``'fsdp2-zero2'`` and ``'mb2'``)
_OPTION_APART = re.compile(r"[\s\-_'\"‘’“”]+")


def _option_spelled_apart(exercise: Exercise, value: Any) -> str | None:
    """The one option ``value`` spells with other spaces, hyphens, underscores, quotes or case, else None."""
    if not isinstance(value, str) or exercise.choices is None:
        return None
    key = _OPTION_APART.sub("", value).lower()
    if not key:
        return None
    found = [
        option
        for option in exercise.choices
        if isinstance(option, str) and _OPTION_APART.sub("", option).lower() == key
    ]
    return found[0] if len(found) == 1 else None


def _choice(exercise: Exercise, name: str, answer: Any) -> Any:
    """``answer`` as the option it names (after the exercise's normalization); a refusal quotes the answer as the
    learner wrote it, not as normalized (``'both'``, not ``'BOTH'``). An option copied with its description
    (``'mb2（微批次改成 2）'``) is refused with the line that writes the option alone."""
    value = _normalized(exercise, answer)
    try:
        return check_choice(name, value, exercise.choices)
    except ValueError:
        option = _described_option(exercise, value)
        if option is not None:
            raise ValueError(tr("exercises.option_with_note", name=name, value=answer, option=option)) from None
        option = _option_spelled_apart(exercise, value)
        if option is not None:
            raise ValueError(tr("exercises.option_spelled_apart", name=name, value=answer, option=option)) from None
        if value is answer:
            raise
        check_choice(name, answer, exercise.choices)  # raises, quoting the answer as written
        raise


#: What separates the options of a set typed as text: commas (also full-width), the enumeration comma, "和", "and",
#: semicolons, slashes and spaces; brackets and quotes around it or its items are dropped.
_OPTION_SEPARATORS = re.compile(r"\s*(?:[,，、;；/]|\band\b|和)\s*|\s+")


def _options_in_text(exercise: Exercise, answer: Any) -> list[str] | None:
    """The options of a choice-set exercise that the text ``answer`` lists (``'TP, EP'``, ``'{TP、EP}'``,
    ``'TP 和 EP'``), in the exercise's order and spelling; None when ``answer`` is no text or any part of it is no
    option."""
    if not isinstance(answer, str):
        return None
    text = unicodedata.normalize("NFKC", answer).strip().rstrip("。.").strip()
    text = text.strip("{}[]()").strip()
    parts = [part.strip("'\"‘’“”") for part in _OPTION_SEPARATORS.split(text) if part.strip("'\"‘’“” ")]
    if not parts:
        return None
    picked: set[Any] = set()
    for part in parts:
        try:
            picked.add(_choice(exercise, "answer", part))
        except (TypeError, ValueError):
            return None
    return [option for option in exercise.choices if option in picked]


def _significant_digits(value: float) -> int:
    """Significant digits of ``value`` as Python writes it (shortest repr; ``1200`` and ``1200.0`` count 2)."""
    text = repr(abs(float(value))).lower()
    mantissa = text.split("e", 1)[0]
    if mantissa.endswith(".0"):
        mantissa = mantissa[:-2]
    digits = mantissa.replace(".", "").lstrip("0")
    if "." not in mantissa:
        digits = digits.rstrip("0")
    return max(len(digits), 1)


def written_tolerance(answer: float, min_digits: int = MIN_SIGNIFICANT_DIGITS) -> float:
    """Half a unit in the last significant digit of ``answer`` as written, with at least ``min_digits`` significant
    digits (2 by default).

    An answer is right when it rounds the expected value to the digits the learner wrote.

    >>> written_tolerance(0.16), written_tolerance(0.2), written_tolerance(26)
    (0.005, 0.005, 0.5)
    >>> written_tolerance(25.77), written_tolerance(0.0), written_tolerance(1, min_digits=3)
    (0.005, 0.0, 0.005)
    """
    value = abs(check_number("answer", answer))
    min_digits = check_int("min_digits", min_digits, ge=1, le=15)
    if value == 0.0:
        return 0.0
    digits = max(_significant_digits(value), min_digits)
    exponent = math.floor(math.log10(value))
    return float(f"{0.5 * 10.0 ** (exponent - digits + 1):.1g}")


def _number_matches(exercise: Exercise, answer: float, target: float, min_digits: int | None = None) -> bool:
    if math.isclose(answer, target, rel_tol=exercise.rel_tol, abs_tol=exercise.abs_tol):
        return True
    slack = 1e-9 * max(abs(answer), abs(target))  # binary floating point: 0.165 is not quite 0.165
    digits = exercise.min_digits if min_digits is None else min_digits
    return abs(answer - target) <= written_tolerance(answer, digits) + slack


def _scaled_matches(
    exercise: Exercise, answer: float, target: float, factor: float, min_digits: int | None = None
) -> bool:
    """True if ``answer`` is ``target`` times ``factor`` (a unit slip), the exercise's absolute tolerance scaled by the
    same factor: an answer of 0 is not ``target / 1024`` (review 25: exercise 1.3's headroom of -1.47 GiB with an
    absolute tolerance of 0.01 GiB told an answer of 0 that it was "exactly 1024 times" off).

    >>> from coursekit.exercises import get_exercise
    >>> headroom = get_exercise("q1.headroom_gib")
    >>> _scaled_matches(headroom, 0.0, -1.47, 1 / 1024), _scaled_matches(headroom, -1505.3, -1.47, 1024)
    (False, True)
    """
    scaled = target * factor
    if math.isclose(answer, scaled, rel_tol=exercise.rel_tol, abs_tol=exercise.abs_tol * factor):
        return True
    slack = 1e-9 * max(abs(answer), abs(scaled))
    digits = exercise.min_digits if min_digits is None else min_digits
    return abs(answer - scaled) <= written_tolerance(answer, digits) + slack


def _right_by_tolerance_only(exercise: Exercise, answer: Any, expected: Any) -> bool:
    """True for a right number answer that does not round the expected value at the digits written (25.76 for
    25.7698) and is right only by the relative tolerance (lesson 0's rule: within 0.1 % is right too)."""
    if exercise.kind != "number" or isinstance(answer, bool) or not isinstance(answer, (int, float)):
        return False
    if not isinstance(expected, (int, float)) or not math.isfinite(float(answer)):
        return False
    value = float(answer)
    targets = _targets(exercise, float(expected))
    for target in targets:
        slack = 1e-9 * max(abs(value), abs(target))
        if abs(value - target) <= written_tolerance(value, exercise.min_digits) + slack:
            return False
    # right by the relative tolerance the message names (not by an exercise's own absolute one)
    return any(math.isclose(value, target, rel_tol=exercise.rel_tol) for target in targets)


def _truncated(answer: float, targets: list[float], min_digits: int = MIN_SIGNIFICANT_DIGITS) -> bool:
    """True if ``answer`` is an expected value cut off (truncated), not rounded, at the digits the learner wrote.

    The checker judges an answer at the precision it is written with, so 25.7 for 25.77 is wrong (it rounds to
    25.8): without this the learner who did everything right but dropped the last digits would be sent back to the
    method by the exercise's hint.

    >>> _truncated(25.7, [25.7698]), _truncated(25.8, [25.7698]), _truncated(-1.4, [-1.4688])
    (True, False, True)
    >>> _truncated(0.15, [0.16])  # 0.16 cut at two digits is 0.16: nothing was cut off
    False
    """
    if not math.isfinite(answer) or answer == 0:
        return False
    digits = max(_significant_digits(answer), min_digits)
    for target in targets:
        if not math.isfinite(target) or target == 0:
            continue
        scale = 10.0 ** (math.floor(math.log10(abs(target))) - digits + 1)
        units = target / scale
        cut = math.trunc(units + math.copysign(1e-9 * max(1.0, abs(units)), units)) * scale
        rounded = round(units) * scale
        slack = 1e-9 * max(abs(answer), abs(target))
        if abs(answer - cut) <= slack and abs(cut - rounded) > slack:
            return True
    return False


def _precision_hint(exercise: Exercise, answer: Any, expected: Any) -> tuple[str, Text] | None:
    """The code and hint for a wrong number answer whose only fault is its digits, else ``None``.

    ``more_digits``: the exercise needs more significant digits than the learner wrote, and at the digits written
    the answer is the expected value (2.3's 4.4 for 4.445 ms, which the left-out latency term 4.375 also rounds to;
    7.5's one-digit 0.05 for 0.0538, which every exercise's two-digit floor asks to write as 0.054).
    ``truncated``: the answer is the expected value with its last digits cut off instead of rounded.
    """
    if exercise.kind != "number" or isinstance(answer, bool) or not isinstance(answer, (int, float)):
        return None
    value = float(answer)
    if not math.isfinite(value) or not isinstance(expected, (int, float)):
        return None
    targets = _targets(exercise, float(expected))
    written = _significant_digits(value)
    if written < exercise.min_digits:
        slack = 1e-9 * max(abs(value), max(abs(t) for t in targets))
        # judged at the digits written (0.05 is one digit: 0.0538 rounds to it), not at the checker's two-digit floor
        if any(abs(value - t) <= written_tolerance(value, min_digits=1) + slack for t in targets):
            hint = Text(
                zh=tr("exercises.slip.more_digits", lang="zh", digits=exercise.min_digits),
                en=tr("exercises.slip.more_digits", lang="en", digits=exercise.min_digits),
            )
            return "more_digits", hint
    if _truncated(value, targets, exercise.min_digits):
        hint = Text(zh=tr("exercises.slip.truncated", lang="zh"), en=tr("exercises.slip.truncated", lang="en"))
        return "truncated", hint
    return None


def _quoted_value(exercise: Exercise, answer: Any, expected: Any) -> str | None:
    """The message for a number or a truth value written in quotes (``'25.77'``, ``'True'``), else ``None``.

    Python reads ``answer = '25.77'`` as text; the refusal then says "must be a real number, not str", which names
    Python's types but not the fix. The message here says: drop the quotes, and shows the answer without them.
    """
    if not isinstance(answer, str) or exercise.kind == "choice":
        return None
    text = unicodedata.normalize("NFKC", answer).strip().rstrip("。").strip()
    if isinstance(expected, (list, tuple)):
        items = _QUOTED_LIST.fullmatch(text)  # '5,7', '[5, 7]', '5、7' for [5, 7] (review 26)
        if items is None:
            return None
        numbers = re.findall(r"[-+]?\d+(?:\.\d+)?", items.group("items"))
        return tr("exercises.quoted_list", value=answer, literal="[" + ", ".join(numbers) + "]")
    expression = _quoted_expression(text) if isinstance(expected, (int, float)) else None
    if expression is not None:  # '3/19', '989/4.8', '2*2*2*2*4': Python computes it once unquoted (review 26)
        return tr("exercises.quoted_expression", value=answer, literal=expression)
    if isinstance(expected, bool):
        literal = {"true": "True", "false": "False"}.get(text.lower())
        if literal is None and text.lower() in _YES_NO_WORDS:
            # '是' / '否', 'yes' / 'no': the answer in words; both spellings shown, so neither is given away
            return tr("exercises.quoted_yes_no", value=answer)
        kind = "bool"
    elif isinstance(expected, (int, float)):
        # 'TP=4', 'tp 4', 'TP4': the option written as the question names it; the number alone is the answer
        named = re.fullmatch(r"[A-Za-z]{1,12}\s*[-=]?\s*(\d+(?:\.\d+)?)", text)  # 'ZeRO-2' too
        # '阶段2', '第 2 阶段', 'ZeRO 第 2 阶段', '2 级' (exercise 1.2's stage in words; review 27)
        stage = r"(\d+|[零〇一二两三四五六七八九十百]+)"  # the digits, or a Chinese numeral read below
        named = named or re.fullmatch(rf"(?:[A-Za-z]{{1,12}}\s*[-=]?\s*)?(?:阶段|第)\s*{stage}\s*(?:阶段|级)?", text)
        named = named or re.fullmatch(rf"(?:[A-Za-z]{{1,12}}\s*[-=]?\s*)?{stage}\s*(?:阶段|级)", text)
        if named is not None:
            text = named.group(1)
        magnified = _numeral_with_magnitude(text)
        if magnified is not None:  # '两千四百亿' read as '2400亿' (its conversion, below; fuzz pass 25)
            text = "".join(magnified)
        numeral: int | str | None = None if magnified else chinese_numeral_value(text)
        if numeral is None and not magnified:  # '三十一点四', '负三' (fuzz pass 25)
            numeral = chinese_number_text(text)
        if numeral is not None:  # '二' for ZeRO-2 (review 25), '十六', '一百八十四' (review 26): the digits
            return tr("exercises.quoted_chinese_numeral", value=answer, literal=numeral)
        worded = _QUOTED_NUMBER.fullmatch(text)
        message = None if worded is None else _quoted_number_text(answer, worded)
        if message is not None:
            return message
        try:
            number = float(text)
        except ValueError:
            return None
        literal = text if math.isfinite(number) else None
        if literal is not None and not text.isascii():  # '٤': float() reads other scripts' digits, Python code does not
            literal = str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)
        kind = "number"
    else:
        return None
    if literal is None:
        return None
    return tr("exercises.quoted_value", value=answer, literal=literal, kind=tr(f"exercises.quoted_kind.{kind}"))


#: Numbers in quotes as a list may be typed: brackets optional, separated by commas (half- or full-width after NFKC),
#: "、", ";", spaces or "和" / "and" (``'5,7'``, ``'[5, 7]'``, ``'5、7'``, ``'5 和 7'``); at least two numbers.
_AND = Text(zh="和", en="and")
_QUOTED_LIST = re.compile(
    r"[\[(]?\s*(?P<items>[-+]?\d+(?:\.\d+)?(?:\s*(?:[,;\u3001]|"
    + f"{re.escape(_AND.zh)}|{re.escape(_AND.en)}"
    + r"|\s)\s*[-+]?\d+(?:\.\d+)?)+)\s*,?\s*[\])]?",
    re.IGNORECASE,
)

#: The operators an arithmetic expression typed in quotes may hold ('3/19', '2*2*2*2*4', '(4-1)/(16+4-1)').
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.USub, ast.UAdd)


def _quoted_expression(text: str) -> str | None:
    """``text`` as the arithmetic it holds (numbers, + - * / // ** and brackets, at least one operator between two
    numbers), with ``×`` / ``÷`` as ``*`` / ``/``; None for anything else (a plain number, a name, a call).

    >>> _quoted_expression("3/19"), _quoted_expression("989 ÷ 4.8"), _quoted_expression("2×2×2×2×4")
    ('3/19', '989 / 4.8', '2*2*2*2*4')
    >>> _quoted_expression("0.158"), _quoted_expression("-1.47"), _quoted_expression("N/2"), _quoted_expression("1e5")
    (None, None, None, None)
    """
    written = text.replace("×", "*").replace("÷", " / ")
    written = re.sub(r"\s+", " ", written).strip()
    if not re.fullmatch(r"[\d\s.eE+\-*/()]+", written):
        return None
    try:
        tree = ast.parse(written, mode="eval")
    except SyntaxError:
        return None
    if not isinstance(tree.body, ast.BinOp):
        return None  # a number alone, signed or not: the "drop the quotes" message
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
                return None
        elif not isinstance(node, (ast.BinOp, ast.UnaryOp, *_ARITHMETIC)):
            return None
    return written


#: Yes and no in words, as a learner may answer a True/False question ('是', '否', 'yes', 'no'), after NFKC.
_YES_NO_PAIRS: tuple[Text, ...] = (
    Text(zh="是", en="yes"),
    Text(zh="是的", en="y"),
    Text(zh="对", en="right"),
    Text(zh="正确", en="correct"),
    Text(zh="有", en="yep"),
    Text(zh="会", en="sure"),
    Text(zh="真", en="ok"),
    Text(zh="否", en="no"),
    Text(zh="不是", en="n"),
    Text(zh="不对", en="wrong"),
    Text(zh="错", en="incorrect"),
    Text(zh="没有", en="nope"),
    Text(zh="不会", en="not"),
    Text(zh="假", en="none"),
)
_YES_NO_WORDS: frozenset[str] = frozenset(word for pair in _YES_NO_PAIRS for word in (pair.zh, pair.en))

#: A number as a Chinese (or any) learner may write it in quotes: after "约" / "about", with a decimal or thousands
#: comma, and with a unit ('25.77 GB', '25.77吉字节', '4.45 毫秒') or a percent sign; the text is NFKC-normalized first,
#: so full-width digits, '，', '．' and '％' arrive as their half-width forms.
_QUOTED_NUMBER = re.compile(
    r"(?P<about>" + "|".join(re.escape(w) for t in _ABOUT_WORDS for w in (t.zh, t.en)) + r"|≈|~|ca\.)?\s*"
    r"(?P<number>[-+]?(?:\d+(?:,\d+)*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*"
    r"(?P<unit>%|[A-Za-zµμ\u3400-\u9fff][A-Za-zµμ/\u3400-\u9fff]{0,11})?",
    re.IGNORECASE,
)


def _quoted_number_text(answer: str, match: re.Match[str]) -> str | None:
    """The message for a number in quotes with a comma, a percent sign, "约" or a unit; None for a plain number (the
    caller's "drop the quotes" message) or a text that is no number."""
    number, unit, about = match.group("number"), match.group("unit"), match.group("about")
    if "," in number:
        head, _, rest = number.partition(",")
        single = number.count(",") == 1 and "." not in number
        if single and "e" in number.lower():
            # '1,074e5' (review 23): a mantissa holds no thousands group, so the comma is its decimal point (was
            # read as '1074e5', 1000 times the number)
            reading = "decimal"
        else:
            reading = _comma_reading(head, rest) if single else "thousands"
        if reading == "decimal":
            return tr("exercises.quoted_decimal_comma", value=answer, literal=number.replace(",", "."))
        if reading == "either":
            return tr(
                "exercises.quoted_either_comma",
                value=answer,
                decimal=number.replace(",", "."),
                number=number.replace(",", ""),
            )
        return tr("exercises.quoted_thousands", value=answer, literal=number.replace(",", ""))
    try:
        value = float(number)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    if unit == "%":
        fraction = str(Decimal(number) / 100)
        return tr("exercises.quoted_percent", value=answer, number=number, fraction=fraction)
    if about:
        return tr("exercises.quoted_about", value=answer, word=about, literal=number)
    if unit:
        magnitude = _magnitude_hint(number, unit)
        if magnitude is not None:  # '2400亿': an order of magnitude to convert, not a unit to drop (review 27)
            return tr("exercises.quoted_magnitude", value=answer, help=magnitude)
        return tr("exercises.quoted_unit", value=answer, literal=number, unit=unit)
    return None


def _single_item(exercise: Exercise, answer: Any, expected: Any) -> str | None:
    """The message for a list, tuple or set of one item where one value is wanted (``answer = [1]`` for a rank,
    ``['mb2']`` for an option), else ``None``: the refusal "must be int, not list" named Python's types, not the fix
    (review 26). Questions whose answer is a sequence or a set of options are left alone."""
    if type(answer) not in (list, tuple, set) or len(answer) != 1:
        return None
    if isinstance(expected, (list, tuple, set, frozenset)):
        return None
    item = next(iter(answer))  # answer = {26.19}: braces make a set of one (review 29)
    if isinstance(item, (list, tuple, set, frozenset, dict)):
        return None
    return tr(f"exercises.single_item.{type(answer).__name__}", value=answer, literal=shown_repr(item))


def _targets(exercise: Exercise, expected: float) -> list[float]:
    """The expected value in every form the exercise accepts."""
    return [expected] + [expected * FORMS[form] for form in exercise.forms]


def _plain_answer(answer: Any) -> Any:
    """``answer`` with numpy scalars and 0-d arrays as the Python values they hold, in lists, tuples and sets too.

    A learner who computes with numpy gets ``np.True_`` from ``1 < np.float64(2)`` and ``np.int64(16)`` from an
    array's sum: the same answers as ``True`` and ``16`` (:func:`coursekit.specs._plain`, the rule every spec uses).
    """
    for kind in (list, tuple, set, frozenset):
        if isinstance(answer, kind):
            return kind(_plain_answer(item) for item in answer)
    return _plain(answer)


def _whole_number(name: str, value: Any) -> int:
    """``value`` as an int; an integral float such as ``1152.0`` is refused with a message saying to write ``1152``.

    The rule of :func:`coursekit._validate.check_int` (a count or a degree is an ``int``, never a bool), for an answer
    on its own and for each item of a sequence alike.
    """
    # the advice writes the int out: only for one short enough to write (1e308 as an int has 309 digits)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
        raise TypeError(tr("exercises.whole_number", name=name, value=value, whole=int(value)))
    if isinstance(value, float) and math.isfinite(value) and not value.is_integer():  # 184.7: a count with a fraction
        raise TypeError(tr("exercises.fraction_for_whole", name=name, value=value))
    return check_int(name, value)


def _as_expected(name: str, answer: Any, expected: Any) -> Any:
    """``answer`` checked to be the kind of value ``expected`` is, with one rule alone and inside a sequence.

    A bool answers a bool (never 0 or 1); an int an int (never a bool or a float, :func:`_whole_number`); a list, a
    tuple and a one-dimensional numpy array are the same sequence, compared item by item in order, each item by the
    same rules (a set has no order and is refused). TypeError / ValueError
    (localized) naming ``answer`` or ``answer[i]`` otherwise.
    """
    if isinstance(expected, bool):
        if type(answer) is int and answer in (0, 1):
            raise TypeError(tr("exercises.number_for_bool", name=name, value=answer))
        return check_bool(name, answer)
    if isinstance(expected, int):
        return _whole_number(name, answer)
    if isinstance(expected, (list, tuple)):
        try:
            items = check_sequence(name, answer)  # a list, a tuple, or a one-dimensional numpy array
        except TypeError:
            raise TypeError(tr("exercises.expect_sequence", type=type(answer).__name__, value=answer)) from None
        if not expected:
            return items
        return tuple(
            _as_expected(f"{name}[{index}]", item, expected[min(index, len(expected) - 1)])
            for index, item in enumerate(items)
        )
    if type(answer) is not type(expected):
        raise TypeError(
            tr(
                "exercises.expect_type",
                expected_type=type(expected).__name__,
                type=type(answer).__name__,
                value=answer,
            )
        )
    return answer


def _judge(exercise: Exercise, answer: Any, expected: Any) -> bool:
    """True if ``answer`` is right; TypeError / ValueError (localized) if it cannot be compared."""
    if isinstance(answer, tuple) and isinstance(expected, (int, float)) and not isinstance(expected, bool):
        # answer = 327,680/1024: the commas of a number inside a calculation (review 28)
        line = _comma_expression(answer)
        if line is not None:
            raise TypeError(tr("exercises.comma_in_expression", value=answer, typed=line[0], fixed=line[1]))
    decimal = _decimal_comma(answer)
    if decimal is not None and isinstance(expected, (int, float)) and not isinstance(expected, bool):
        raise TypeError(tr("exercises.decimal_comma", value=answer, written=decimal[0], number=decimal[1]))
    number = _thousands_tuple(answer)
    if number is not None and isinstance(expected, (int, float)) and not isinstance(expected, bool):
        written = ",".join(str(item) if i == 0 else f"{item:03d}" for i, item in enumerate(answer))
        typed = _typed_comma_number(answer) if len(answer) == 2 and answer[1] == 0 else None
        if typed is not None and len(typed.split(",")[1]) != 3:
            # answer = 206,0 (or 206,00): one or two zeros after the comma are a decimal comma, not 206,000 (review 24)
            head, tail = typed.split(",")
            fixed = head if isinstance(expected, int) else f"{head}.{tail}"  # a count takes no decimals: 64,0 is 64
            raise TypeError(tr("exercises.decimal_comma", value=answer, written=typed, number=fixed))
        if isinstance(expected, float) and len(answer) == 2:
            # 4,445 for 4.445 ms: a decimal comma as likely as a thousands one; an exact count takes no decimals
            decimal_number = f"{'-' if answer[0] < 0 else ''}{abs(answer[0])}.{answer[1]:03d}"
            raise TypeError(
                tr("exercises.either_comma", value=answer, written=written, decimal=decimal_number, number=number)
            )
        raise TypeError(tr("exercises.thousands_comma", value=answer, written=written, number=number))
    decimals = _thousands_with_decimals(answer)
    if decimals is not None and isinstance(expected, (int, float)) and not isinstance(expected, bool):
        # answer = 107,374.18: thousands commas before a decimal point, the tuple (107, 374.18) (review 26)
        written, number = decimals
        raise TypeError(tr("exercises.thousands_comma", value=answer, written=written, number=number))
    if exercise.kind == "number":
        value = check_number("answer", answer)
        return any(_number_matches(exercise, value, target) for target in _targets(exercise, expected))
    if exercise.kind == "choice":
        if isinstance(expected, (frozenset, set)):
            if not isinstance(answer, (set, frozenset, list, tuple)):
                options = _options_in_text(exercise, answer)
                if options is not None:  # answer = 'TP, EP': the set typed as text, shown as one (review 27)
                    literal = "{" + ", ".join(repr(option) for option in options) + "}"
                    raise TypeError(tr("exercises.quoted_choice_set", value=answer, literal=literal))
                raise TypeError(
                    tr("exercises.expect_choice_set", choices=", ".join(exercise.choices), example=exercise.choices[0])
                )
            item_name = tr("exercises.answer_item")  # an item is checked, not the whole answer
            picked = {_choice(exercise, item_name, item) for item in answer}
            return picked == set(expected)
        return bool(_choice(exercise, "answer", answer) == expected)
    # exact
    value = _as_expected("answer", _normalized(exercise, answer), expected)
    if isinstance(expected, list):
        expected = tuple(expected)
    return bool(value == expected)


#: The slips of unit every number exercise gets from the unit its id names (the course writes units in names:
#: ``q1.zero2_gib``, ``q2.allreduce_ms``, ``lab.busbw_gib_s``), tested after the exercise's own slips: one rule for
#: the whole course, so an exercise that leaves a slip of its unit out still has it named (leftovers 30).
UNIT_SLIPS: dict[str, tuple[Slip, ...]] = {
    "gib_s": (GIB_VS_GB, MIB_VS_GIB, DIRECTION, BITS_VS_BYTES),
    "gib": (GIB_VS_GB, MIB_VS_GIB),
    "gb": (GIB_VS_GB, MB_VS_GB),
    "mib": (MIB_VS_MB, MIB_VS_GIB),
    "kib_per_token": (KIB_VS_KB, BINARY_UNIT, BITS_VS_BYTES),
    "kib": (KIB_VS_KB, BINARY_UNIT, BITS_VS_BYTES),
    "bytes": (BINARY_UNIT, BITS_VS_BYTES),
    "ms": (SECONDS_VS_MS,),
    "s": (SECONDS_VS_MS,),
}


def unit_slips(exercise: Exercise) -> tuple[Slip, ...]:
    """The slips of unit :data:`UNIT_SLIPS` gives number exercise ``exercise`` from the unit its id ends with, less
    those it declares itself (a code declared is that slip, with the exercise's own words).

    >>> [slip.code for slip in unit_slips(get_exercise("lab.busbw_gib_s"))]
    ['bits_vs_bytes']
    """
    check_instance("exercise", exercise, Exercise)
    if exercise.kind != "number":
        return ()
    declared = {slip.code for slip in exercise.slips}
    name = exercise.id.rsplit(".", 1)[-1]
    for unit, slips in UNIT_SLIPS.items():
        if name.endswith("_" + unit):
            return tuple(slip for slip in slips if slip.code not in declared)
    return ()


def _slip_of(exercise: Exercise, answer: Any, expected: Any, min_digits: int | None = None) -> Slip | None:
    """The first declared slip a wrong ``answer`` matches, then the first of its unit's (:func:`unit_slips`), if any
    (a number judged at ``min_digits`` significant digits at least, by default the exercise's).

    A factor slip is never named for an answer that is the right value at the precision it is judged (1.0 for
    1.0162 at two digits is no KiB / KB slip, though 1.0162 x 1.024 is 1.04: leftovers 30)."""
    for slip in (*exercise.slips, *unit_slips(exercise)):
        if slip.factor is not None:
            value = float(answer)
            for target in _targets(exercise, float(expected)):
                if _number_matches(exercise, value, target, min_digits):
                    continue  # right at this precision: no slip of unit, whatever its factor
                factors = (slip.factor, 1 / slip.factor)
                if any(_scaled_matches(exercise, value, target, f, min_digits) for f in factors):
                    return slip
        elif slip.alternative is not None:
            wrong = slip.alternative()
            if exercise.kind == "number":
                targets = _targets(exercise, float(wrong))
                if any(_number_matches(exercise, float(answer), t, min_digits) for t in targets):
                    return slip
            elif _judge(exercise, answer, wrong):
                return slip
        elif slip.matches is not None:
            normalized = answer
            if isinstance(answer, (set, frozenset, list, tuple)):
                normalized = frozenset(_normalized(exercise, item) for item in answer)
            if slip.matches(normalized, expected):
                return slip
    return None


def _slip_at_written_digits(exercise: Exercise, answer: Any, expected: Any) -> Slip | None:
    """A declared slip a number answer matches at the digits it is written with (at least the course's two), for an
    answer written with fewer digits than the exercise asks for.

    An exercise that asks for 3 significant digits judges its slips at 3 digits too, so the slip the learner made,
    written with two (exercise 9.4's growth in percent, 2.9 for 2.92; 9.2's 1.6 for 1.62), got the method hint
    (review 25).
    """
    if exercise.kind != "number" or isinstance(answer, bool) or not isinstance(answer, (int, float)):
        return None
    value = float(answer)
    if not math.isfinite(value) or value == 0:
        return None
    written = _significant_digits(value)
    if written >= exercise.min_digits:
        return None
    return _slip_of(exercise, answer, expected, min_digits=max(written, MIN_SIGNIFICANT_DIGITS))


def check(
    exercise_id: str, answer: Any, *, label: str | Text | None = None, entry: str | Text | None = None
) -> Feedback:
    """Check ``answer`` to exercise ``exercise_id``, show the feedback and return it.

    Never raises for a learner's answer; an unknown ``exercise_id`` (an author's
    typo) is a ``ValueError``. ``label`` (a string, or a :class:`~coursekit.i18n.Text` shown in the current
    language) heads the shown feedback, so a cell that checks many entries says which entry each verdict is for
    (lesson 5's matrix: "Case 2, PP"). ``entry`` says how the cell writes this answer when it is no variable
    ``answer`` but an entry of a dict (``'"DP": '``): a message that writes out a fix ("answer = 13") writes it so.

    >>> _ = check("demo.two_plus_two", 5, label="Case 1")  # doctest: +ELLIPSIS
    Case 1: Not yet...

    Taught in: lesson 0 (course index); every lesson's fill-in cells call it.
    """
    exercise = get_exercise(exercise_id)
    if label is not None:
        shown = label.render() if isinstance(label, Text) else check_instance("label", label, str)
        if not shown.strip():  # it would head the feedback with a bare colon
            raise ValueError(tr("exercises.label_blank", value=shown))
    written = None
    if entry is not None:
        written = entry.render() if isinstance(entry, Text) else check_instance("entry", entry, str)
        if not written.strip():  # the fix would lose the entry's name
            raise ValueError(tr("exercises.entry_blank", value=written))
    unassigned = _unassigned_answer()
    if unassigned is not None:  # answer == 26.19: no error, and the answer judged is an old one (review 29)
        feedback = Feedback(exercise.id, "invalid", "exercises.invalid", {"id": exercise.id, "error": unassigned})
    else:
        feedback = _evaluate(exercise, answer)
    _display(feedback, label, written)
    return feedback


def _entry_key(key: Any) -> Any:
    """A dict key as a learner may retype it: a str or int in any case, full-width or spaced (``'dp '`` for
    ``'DP'``, ``'1'`` for ``1``); any other key as it is."""
    if isinstance(key, (str, int)) and not isinstance(key, bool):
        return unicodedata.normalize("NFKC", str(key)).strip().lower()
    return key


def _entries_invalid(exercise_id: str, message_key: str, **params: Any) -> Feedback:
    """An "invalid" verdict on a dict of answers, worded in both languages (shown in the current one)."""
    error = Text(zh=tr(message_key, lang="zh", **params), en=tr(message_key, lang="en", **params))
    return Feedback(exercise_id, "invalid", "exercises.invalid", {"id": exercise_id, "error": error})


def _first_id(ids: Mapping[Any, Any]) -> str:
    first = next(iter(ids.values()))
    return first if isinstance(first, str) else _first_id(first)


def check_entries(
    answers: Any,
    ids: Mapping[Any, Any],
    *,
    name: str,
    labels: Mapping[Any, Any] | None = None,
    entries: Mapping[Any, Any] | None = None,
) -> dict[Any, Any]:
    """Check a dict of answers, one :func:`check` per key of ``ids`` (key -> exercise id, or -> a mapping of the
    same shape for a dict of dicts, as lesson 5's matrix), and return the verdicts by key.

    ``name`` is the learner's variable (``'my_matrix'``), named in every message about the dict itself: a value
    that is no dict, a key the exercise asks for and the dict lacks (its verdict says which key to add), and keys
    it does not ask for (named, not checked). A key may be retyped in another case or width, with spaces around it,
    or an int as text (``'dp'`` for ``'DP'``, ``'1'`` for ``1``). ``labels`` and ``entries`` hold each key's
    ``label`` and ``entry`` for :func:`check` (the same shape as ``ids``). Never raises for a learner's answer.

    >>> from coursekit import set_language
    >>> set_language("en")
    >>> ids = {"a": "demo.two_plus_two", "b": "demo.two_plus_two"}
    >>> verdicts = check_entries({"A": 4, "c": 1}, ids, name="my_answers")  # doctest: +ELLIPSIS
    Cannot check. my_answers has the keys 'c', which this exercise does not ask for, ...
    Correct. 2 + 2 = 4.
    Cannot check. my_answers has no key 'b': write 'b': your answer in my_answers.
    >>> [verdicts[key].status for key in ids]
    ['correct', 'invalid']
    """
    check_instance("name", name, str)
    for argument, value in (("ids", ids), ("labels", labels), ("entries", entries)):
        if (value is not None or argument == "ids") and not isinstance(value, Mapping):
            raise TypeError(tr("exercises.entries_mapping", name=argument, value=shown_repr(value)))
    if not ids:
        raise ValueError(tr("exercises.entries_mapping", name="ids", value=shown_repr(ids)))
    keys_text = ", ".join(repr(key) for key in ids)
    if not isinstance(answers, Mapping):
        feedback = _entries_invalid(
            _first_id(ids), "exercises.entries_not_dict", name=name, value=shown_repr(answers), keys=keys_text
        )
        _display(feedback)
        return Verdicts((key, feedback) for key in ids)
    by_key: dict[Any, Any] = {}
    for key in answers:
        by_key.setdefault(_entry_key(key), key)
    found = {key: (key if key in answers else by_key.get(_entry_key(key), _MISSING)) for key in ids}
    extra = [key for key in answers if key not in set(found.values())]
    if extra:
        _display(
            _entries_invalid(
                _first_id(ids),
                "exercises.entries_extra",
                name=name,
                extra=", ".join(shown_repr(key) for key in extra),
                keys=keys_text,
            )
        )
    verdicts: dict[Any, Any] = Verdicts()
    for key, target in ids.items():
        label = labels.get(key) if labels is not None else None
        entry = entries.get(key) if entries is not None else None
        if found[key] is _MISSING:
            feedback = _entries_invalid(_first_id({key: target}), "exercises.entry_missing", name=name, key=repr(key))
            _display(feedback, label if isinstance(label, (str, Text)) else None)
            verdicts[key] = feedback
        elif isinstance(target, Mapping):
            verdicts[key] = check_entries(
                answers[found[key]],
                target,
                name=f"{name}[{found[key]!r}]",
                labels=label if isinstance(label, Mapping) else None,
                entries=entry if isinstance(entry, Mapping) else None,
            )
        else:
            verdicts[key] = check(target, answers[found[key]], label=label, entry=entry)
    return verdicts


#: A key of ``ids`` the learner's dict does not have (:func:`check_entries`).
_MISSING = object()


class Verdicts(dict):  # type: ignore[type-arg]
    """The verdicts :func:`check_entries` returns, by key: a dict that a notebook does not display again when it is a
    cell's last value (each verdict was shown when checked; the dict of ``Feedback`` reprs would only show internal
    names to the learner)."""

    def _ipython_display_(self) -> None:
        """Already displayed, verdict by verdict: display nothing more."""


def verify(
    exercise_id: str,
    answer: Any,
    *,
    reveal: Callable[[], None] | None = None,
    label: str | Text | None = None,
) -> None:
    """Assert that ``answer`` is right for ``exercise_id``, showing no verdict and no value.

    For worked-solution cells: they run under Run All and in the tests, but must
    not print a verdict or the expected value next to the learner's blank. A
    wrong answer raises ``AssertionError`` naming the exercise and its status. ``label`` names the entry on the
    button, as :func:`check`'s does on the feedback, when one cell verifies many entries (lesson 5's matrix).
    In a notebook, a right one leaves only a button that shows the worked solution
    when pressed (:func:`offer_solution`), then calls ``reveal`` (a table or figure
    that would give the answer away); outside a notebook nothing is shown.

    >>> verify("demo.two_plus_two", 4)
    >>> verify("demo.two_plus_two", 5)
    Traceback (most recent call last):
    ...
    AssertionError: demo.two_plus_two: incorrect

    Taught in: lesson 0 (course index); every lesson's solution cells call it.
    """
    feedback = _evaluate(get_exercise(exercise_id), answer)
    if not feedback.correct:
        raise AssertionError(f"{exercise_id}: {feedback.status}")
    if _in_kernel():
        offer_solution(exercise_id, reveal=reveal, label=label)


def _evaluate(exercise: Exercise, answer: Any) -> Feedback:
    eid = exercise.id
    if answer is None and any(str(choice).lower() == "none" for choice in exercise.choices):
        # the option 'none' written as Python's None, which means "not answered" everywhere else
        return Feedback(eid, "invalid", "exercises.invalid", {"id": eid, "error": tr("exercises.none_as_string")})
    if answer is ... or answer is None:
        return Feedback(eid, "unanswered", "exercises.unanswered", {"id": eid})
    try:
        expected = exercise.expected_value()
        if exercise.kind == "number":
            expected = check_number("expected", expected)
    except Exception as exc:
        _log.error("exercise %s: computing the expected answer failed", eid, exc_info=True)
        return Feedback(eid, "error", "exercises.error", {"id": eid, "error": f"{type(exc).__name__}: {exc}"})
    quoted = _quoted_value(exercise, answer, expected)
    if quoted is None:
        quoted = _single_item(exercise, answer, expected)
    if quoted is not None:
        return Feedback(eid, "invalid", "exercises.invalid", {"id": eid, "error": quoted})
    own = _own_type(answer)
    try:
        answer = _plain_answer(answer)
        if exercise.kind == "choice" and is_numpy_array(answer) and answer.ndim == 1:  # the list of options it holds
            answer = [_plain(item) for item in answer.tolist()]
        right = _judge(exercise, answer, expected)
    except (TypeError, ValueError) as exc:
        return Feedback(eid, "invalid", "exercises.invalid", {"id": eid, "error": str(exc)})
    except Exception as exc:
        if own is not None:  # the learner's own class broke a protocol it claims (iteration, repr): not a checker bug
            error = tr("exercises.answer_type_failed", type=own, error=type(exc).__name__)
            return Feedback(eid, "invalid", "exercises.invalid", {"id": eid, "error": error})
        _log.error("exercise %s: comparing %s failed", eid, type(answer).__name__, exc_info=True)
        return Feedback(eid, "error", "exercises.error", {"id": eid, "error": f"{type(exc).__name__}: {exc}"})
    if right:
        why = exercise.why_text(expected)
        if _right_by_tolerance_only(exercise, answer, expected):  # 25.76 for 25.7698: say why it passed
            return Feedback(
                eid, "correct", "exercises.correct_tolerance", {"id": eid, "why": why, "tol": f"{exercise.rel_tol:.1%}"}
            )
        return Feedback(eid, "correct", "exercises.correct", {"id": eid, "why": why})
    tilde = _tilde_answer_hint() if exercise.kind in ("number", "exact") else None
    if tilde is not None:  # answer = ~128 is -129 to Python: no error showed it (review 29)
        return Feedback(eid, "incorrect", "exercises.slip", {"id": eid, "slip": tilde}, slip="tilde")
    caret = _caret_answer_line() if exercise.kind == "number" else None
    if caret is None and exercise.kind == "number" and not _caller_assigns_answer():
        caret = _earlier_caret_line(answer)  # answer = 2^10 in a cell above the check (leftovers 30)
    if caret is not None:  # answer = 2^30 is 28 to Python: no error showed it (review 25)
        # the learner's own two readings when the line is plain arithmetic that made this answer (leftovers 29)
        readings = _caret_readings(caret, answer)
        readings_text = {
            lang: ""
            if readings is None
            else tr("exercises.slip.caret_value", lang=lang, xor=readings[0], power=readings[1])
            for lang in ("zh", "en")
        }
        hint = Text(
            zh=tr(
                "exercises.slip.caret", lang="zh", line=caret, fixed=caret.replace("^", "**"), own=readings_text["zh"]
            ),
            en=tr(
                "exercises.slip.caret", lang="en", line=caret, fixed=caret.replace("^", "**"), own=readings_text["en"]
            ),
        )
        return Feedback(eid, "incorrect", "exercises.slip", {"id": eid, "slip": hint}, slip="caret")
    try:
        slip = _slip_of(exercise, answer, expected)
    except Exception:  # a slip that cannot test this answer is no reason to withhold the hint
        if own is None:
            _log.error("exercise %s: testing slips on %s failed", eid, type(answer).__name__, exc_info=True)
        slip = None
    if slip is not None:
        return Feedback(eid, "incorrect", "exercises.slip", {"id": eid, "slip": slip.hint}, slip=slip.code)
    precision = _precision_hint(exercise, answer, expected)
    if precision is not None:  # right method, wrong digits: the exercise's hint would send the learner back to it
        code, hint = precision
        return Feedback(eid, "incorrect", "exercises.slip", {"id": eid, "slip": hint}, slip=code)
    short = _slip_at_written_digits(exercise, answer, expected)
    if short is not None:  # 9.4's 2.9 for a growth of 2.92 %: the slip, not the method hint (review 25)
        return Feedback(eid, "incorrect", "exercises.slip", {"id": eid, "slip": short.hint}, slip=short.code)
    if _wrong_order(exercise, answer, expected):  # the exercise's hint would send the learner after wrong items
        hint = Text(zh=tr("exercises.slip.order", lang="zh"), en=tr("exercises.slip.order", lang="en"))
        return Feedback(eid, "incorrect", "exercises.slip", {"id": eid, "slip": hint}, slip="order")
    return Feedback(eid, "incorrect", "exercises.incorrect", {"id": eid, "hint": exercise.hint})


#: Modules whose types the checker reads as the values they are (a subclass defined elsewhere is the learner's own).
_KNOWN_MODULES: tuple[str, ...] = ("builtins", "numpy", "fractions", "decimal")


def _own_type(answer: Any, depth: int = 0) -> str | None:
    """The name of a type ``answer`` (or an item of it, in lists, tuples and sets) has that neither Python nor numpy
    defines: the learner's own class, whose methods may break Python's protocols (an ``__iter__`` or ``__repr__``
    that raises). None when every type is a known one."""
    kind = type(answer)
    module = getattr(kind, "__module__", "") or ""
    if module.split(".", 1)[0] not in _KNOWN_MODULES:
        return kind.__qualname__
    if depth < 2 and isinstance(answer, (list, tuple, set, frozenset)):
        try:
            items = list(_builtin_iter(answer))
        except Exception:
            return kind.__qualname__
        for item in items[:1000]:
            found = _own_type(item, depth + 1)
            if found is not None:
                return found
    return None


def _builtin_iter(value: list[Any] | tuple[Any, ...] | set[Any] | frozenset[Any]) -> Any:
    """The items of a built-in container, read by the built-in type's own iterator (a subclass's is not called)."""
    for kind in (list, tuple, set, frozenset):
        if isinstance(value, kind):
            return kind.__iter__(value)  # type: ignore[arg-type]
    return iter(value)


def _wrong_order(exercise: Exercise, answer: Any, expected: Any) -> bool:
    """True if ``answer`` (judged wrong) holds exactly the items of an exact ``expected`` list or tuple, in another
    order: the slip every ordered answer has, said by :func:`check` after the exercise's own slips."""
    if exercise.kind != "exact" or not isinstance(expected, (list, tuple)):
        return False
    try:
        items = _as_expected("answer", _normalized(exercise, answer), expected)
        return sorted(items) == sorted(expected)
    except Exception:  # an answer that cannot be sorted (or whose own class fails) is simply not this slip
        return False


def solution_text(exercise_id: str) -> str:
    """The worked solution of ``exercise_id`` in the current language: question, method and result.

    >>> print(solution_text("demo.two_plus_two"))
    Worked solution
    Question: 2 + 2 = ?
    Method: Count.
    Result: 2 + 2 = 4.
    """
    exercise = get_exercise(exercise_id)
    lines = [tr("exercises.solution_title", id=exercise.id), tr("exercises.solution_question", prompt=exercise.prompt)]
    lines.append(tr("exercises.solution_method", method=exercise.hint))
    try:
        why = exercise.why_text(exercise.expected_value())
    except Exception as exc:
        _log.error("exercise %s: computing the worked solution failed", exercise.id, exc_info=True)
        lines.append(tr("exercises.solution_error", error=f"{type(exc).__name__}: {exc}"))
    else:
        lines.append(tr("exercises.solution_result", why=why))
    return "\n".join(lines)


def show_solution(exercise_id: str) -> None:
    """Show the worked solution of ``exercise_id`` (question, method, result) when the learner asks for it.

    Taught in: lesson 0 (course index); any lesson's exercise can be opened this way.
    """
    _display_text(solution_text(exercise_id), "unanswered", "coursekit-solution")


class _RevealButton:
    """A button that shows something only when pressed; without widgets, its plain-text form says how to see it.

    Every front end that renders ipywidgets (JupyterLab, Notebook 7, VS Code, Colab) shows the button; one that
    does not shows the sentence. Neither contains what the button reveals until the learner asks for it.
    """

    def __init__(self, label: str, text: str, on_press: Callable[[], None], hide: str | None = None) -> None:
        self.text = text
        self.widget: Any = None
        try:
            import ipywidgets
        except ImportError:
            return
        button = ipywidgets.Button(description=label, icon="eye", layout=ipywidgets.Layout(width="auto"))
        button.add_class("ck-reveal-button")
        shown = ipywidgets.Output()
        shown.add_class("ck-revealed")
        hide = tr("exercises.hide_button") if hide is None else hide

        def press(_: Any) -> None:
            # a second press puts it away again (to retry without it in sight), a third shows it afresh
            shown.clear_output()
            if button.description == hide:
                button.description, button.icon = label, "eye"
                return
            with shown:
                on_press()
            button.description, button.icon = hide, "eye-slash"

        button.on_click(press)
        self.widget = ipywidgets.VBox([button, shown])

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle: dict[str, Any] = {}
        if self.widget is not None:
            widget_bundle = self.widget._repr_mimebundle_(**kwargs)
            bundle = dict(widget_bundle[0] if isinstance(widget_bundle, tuple) else widget_bundle)
        else:
            bundle["text/html"] = f'<div class="coursekit-reveal">{html.escape(self.text)}</div>'
        bundle["text/plain"] = self.text
        return bundle


def offer_solution(
    exercise_id: str, *, reveal: Callable[[], None] | None = None, label: str | Text | None = None
) -> None:
    """Show a button that reveals the worked solution of ``exercise_id`` when pressed; the result stays hidden.

    ``reveal``, if given, is called after the solution is shown: it displays what would give the answer away
    (a table, a figure) only when the learner asks. Worked-solution cells call it through :func:`verify`, so
    Run All leaves a button, not an answer, under every exercise. Outside a notebook there is no button: it prints
    how to see the solution instead (``show_solution``). ``label`` (a string, or a :class:`~coursekit.i18n.Text`)
    is written on the button, so a cell with many buttons says which entry each one shows ("案例 2，FSDP").

    >>> offer_solution("demo.two_plus_two")
    The worked solution is put away. To see it, press the button or run show_solution("demo.two_plus_two").

    Taught in: lesson 0 (course index).
    """
    get_exercise(exercise_id)  # an unknown id is an author's typo: say so now, not when the button is pressed
    if label is not None and not isinstance(label, Text):
        check_instance("label", label, str)

    def press() -> None:
        show_solution(exercise_id)
        if reveal is not None:
            reveal()

    hide = None
    if label is None:
        caption = tr("exercises.solution_button")
    else:
        named = label.render() if isinstance(label, Text) else label
        caption = tr("exercises.solution_button_labelled", label=named)
        hide = tr("exercises.hide_button_labelled", label=named)  # still says which entry it puts away
    text = tr("exercises.solution_offer", id=exercise_id)
    if not _in_kernel():  # plain Python has no button: say how to see the solution (never the solution itself)
        print(text)
        return
    from IPython.display import display

    display(_RevealButton(caption, text, press, hide))  # type: ignore[no-untyped-call]


def reveal(show: Callable[[], None]) -> None:
    """Call ``show`` (a table, a figure, a printout) only when the learner presses a button.

    For ordinary cells after an exercise whose output would give its answer away. Outside a notebook
    ``show`` is not called at all (the cell's checks still run: they do not depend on what is shown).

    Taught in: lesson 5 (the matrix after exercises 5.2 and 5.3).
    """
    check_callable("show", show)
    if not _in_kernel():
        return
    from IPython.display import display

    display(_RevealButton(tr("exercises.reveal_button"), tr("exercises.reveal_offer"), show))  # type: ignore[no-untyped-call]


learner_functions(globals())

if _in_kernel():  # a hint under a cell that Python refused before check() could see the answer (input_help)
    from .input_help import install as _install_input_help

    _install_input_help()
