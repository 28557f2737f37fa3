"""What every coursekit command line does at its boundary.

``python -m coursekit plan`` (training and serving), ``python -m coursekit lessons`` and
``python -m coursekit.lab`` share these rules:

* every numeric option is bounded on both sides (:func:`number_arg` has no default ceiling),
  and NaN / infinity are refused, with a message naming the option, the value and the rule;
* a path the user gives is checked before any work starts (:func:`check_output_file`,
  :func:`check_output_folder`): not empty, not a folder where a file is wanted, no part of it
  a file, each name short enough, and the nearest existing folder writable;
* an operating-system error on such a path still ends as one line in the current language
  and exit status :data:`EXIT_USAGE` (2), never a traceback (:func:`guard`);
* when the reader of stdout goes away (``... --json | head``) the command stops quietly with
  :data:`EXIT_BROKEN_PIPE` (141 = 128 + SIGPIPE, what a shell reports for a command that
  SIGPIPE ended, as ``yes | head`` does under ``set -o pipefail``);
* stdout itself is part of the boundary (:func:`guard`): text its encoding cannot hold (an ASCII or
  Latin-1 terminal, ``PYTHONIOENCODING=ascii``) is written as ``\\u00d7``-style escapes rather than
  failing, and JSON is written with JSON's own ``\\u`` escapes (:func:`write_json`), so it stays valid;
  a closed stdout (``>&-``) is refused before any work, and a write that fails (``> /dev/full``: no space,
  an I/O error) ends as one line naming the problem, both with status :data:`EXIT_USAGE`.

>>> check_output_file("--json", "")
Traceback (most recent call last):
...
ValueError: --json '': the path is empty; name a file.

Taught in: lesson 8 (formula vs measurement), lesson 9 (decision workbench), lesson 10 (serving).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import json
import math
import os
import re
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

from . import i18n
from ._validate import check_int, check_number, plainly_written
from .i18n import Text, catalog, register, tr

#: Exit status for bad arguments and refused paths (argparse's convention).
EXIT_USAGE: int = 2
#: Exit status when stdout's reader went away: 128 + SIGPIPE (13).
EXIT_BROKEN_PIPE: int = 141
#: Longest file or folder name (bytes) on Linux and macOS file systems (NAME_MAX).
NAME_MAX_BYTES: int = 255
#: Largest runtime reserve an option may state, GiB per GPU (far above any device's memory).
MAX_RESERVE_GIB: float = 1e6
#: Most results a ``--top`` may ask to show.
MAX_TOP: int = 10_000
#: Characters of a refused value shown back in a message.
SHOWN_CHARS: int = 200
#: Help of the ``--lang`` option that picks the language of a command's help, messages and report.
LANG_HELP: Text = Text(
    zh="帮助、消息和输出的语言（默认：环境变量 COURSEKIT_LANG，否则 en）",
    en="language of the help, the messages and the output (default: COURSEKIT_LANG, else en)",
)

register(
    {
        "cli.not_integer": {"zh": "{value!r} 不是整数", "en": "{value!r} is not an integer"},
        "cli.not_number": {"zh": "{value!r} 不是数", "en": "{value!r} is not a number"},
        # a refused number of a flag with a unit (the custom cluster's): what to write instead
        "cli.flag_unit": {
            "zh": "。只写一个数，单位由参数名给定：{unit}。",
            "en": ". Write the number alone, in the flag's unit: {unit}.",
        },
        "cli.floor_reason": {"zh": "（{reason}）。", "en": " ({reason})."},
        "cli.below_normal": {
            "zh": "{name} = {text}：非零但绝对值小于浮点数的最小正规数 {low:.4g}，读出来是 {read:g}，"
            "写下的数字已经保不住；请写一个绝对值至少 {low:.4g} 的数（这个参数能取 0 时也可以写 0）",
            "en": "{name} = {text}: nonzero but smaller in size than the smallest normal float, {low:.4g}, it reads "
            "back as {read:g}, without the digits written; write a number of at least {low:.4g} in size (or 0, "
            "where the flag takes 0)",
        },
        "cli.not_choice": {"zh": "{value!r} 不是 {choices} 之一", "en": "{value!r} is not one of {choices}"},
        "cli.error": {"zh": "{prog}：错误：{message}", "en": "{prog}: error: {message}"},
        "cli.heading": {"zh": "{heading}：", "en": "{heading}:"},
        "cli.path_empty": {
            "zh": "{option} {path!r}：路径为空；请给出一个{kind}。",
            "en": "{option} {path!r}: the path is empty; name a {kind}.",
        },
        "cli.kind_file": {"zh": "文件", "en": "file"},
        "cli.kind_folder": {"zh": "文件夹（当前文件夹写作 .）", "en": "folder (. for the current one)"},
        "cli.path_type": {
            "zh": "{option} = {value}：必须是路径（str 或 pathlib.Path），而不是 {type}。",
            "en": "{option} = {value}: must be a path (str or pathlib.Path), not {type}.",
        },
        "cli.path_nul": {
            "zh": "{option} {path!r}：路径中有空字符 (\\0)，操作系统不接受这样的路径。",
            "en": "{option} {path!r}: the path holds a NUL character (\\0), which no operating system accepts.",
        },
        "cli.path_is_folder": {
            "zh": "{option} {path}：这是一个文件夹；请给出其中的一个文件名。",
            "en": "{option} {path}: is a folder; name a file inside it.",
        },
        "cli.path_not_folder": {
            "zh": "{option} {path}：已存在且不是文件夹。",
            "en": "{option} {path}: exists and is not a folder.",
        },
        "cli.path_under_file": {
            "zh": "{option} {path}：{blocker} 是文件，不是文件夹。",
            "en": "{option} {path}: {blocker} is a file, not a folder.",
        },
        "cli.path_long_name": {
            "zh": "{option} {path}：名称 {name!r} 有 {size} 字节，超过上限 {limit}。",
            "en": "{option} {path}: the name {name!r} is {size:@byte} long, above the limit of {limit}.",
        },
        "cli.path_unwritable": {
            "zh": "{option} {path}：没有在 {folder} 中写入的权限。",
            "en": "{option} {path}: no permission to write in {folder}.",
        },
        "cli.os_error": {"zh": "{option}{path}：{reason}", "en": "{option}{path}: {reason}"},
        "cli.errno_access": {"zh": "没有权限", "en": "permission denied"},
        "cli.errno_missing": {"zh": "不存在", "en": "does not exist"},
        "cli.errno_not_folder": {"zh": "路径中有一段不是文件夹", "en": "a part of the path is not a folder"},
        "cli.errno_is_folder": {"zh": "这是一个文件夹", "en": "is a folder"},
        "cli.errno_long_name": {"zh": "名称太长", "en": "a name is too long"},
        "cli.errno_no_space": {"zh": "磁盘空间不足", "en": "no space left on the device"},
        "cli.errno_read_only": {"zh": "只读文件系统", "en": "read-only file system"},
        "cli.errno_other": {"zh": "操作系统错误 {code}（{text}）", "en": "{text} (error {code})"},
        "cli.float_range": {
            "zh": "{name} = {value}：超出浮点数范围，绝对值必须 <= {high}。",
            "en": "{name} = {value}: outside the float range; its size must be <= {high}.",
        },
        "cli.errno_io": {"zh": "输入/输出错误", "en": "input/output error"},
        # mkdir where a file of the name is (fuzz pass 26: "操作系统错误 17（File exists）" in a Chinese line)
        "cli.errno_exists": {"zh": "已存在且不是文件夹", "en": "exists and is not a folder"},
        "cli.stdout_closed": {
            "zh": "标准输出已关闭（>&-），结果无处可写；不想看输出时请改用 > /dev/null。",
            "en": "standard output is closed (>&-), so the output has nowhere to go; use > /dev/null to discard it.",
        },
        "cli.write_failed": {"zh": "无法写出输出：{reason}", "en": "cannot write the output: {reason}"},
        "cli.given_twice": {
            "zh": "给了两次，值不同：{first} 和 {second}；请只给一个值，免得后一个悄悄取代前一个",
            "en": "given twice with different values, {first} and {second}; give one value (the later would "
            "silently replace the earlier)",
        },
        "cli.out_of_memory": {
            "zh": "内存不足：这个命令需要的内存超过了这台机器能给的。plan 的搜索请缩小搜索空间（更少的节点，或让 "
            "--max-micro-batch、--max-virtual-stages、--zero、--recompute 取更少的值），或去掉 --all。",
            "en": "out of memory: the command needs more memory than this machine gives. For plan, narrow the search "
            "(fewer nodes, or fewer values of --max-micro-batch, --max-virtual-stages, --zero, --recompute) or leave "
            "out --all.",
        },
    }
)

#: Operating-system error numbers and the catalog key that says them in the learner's language.
_ERRNO_KEYS: dict[int, str] = {
    errno.EACCES: "cli.errno_access",
    errno.EPERM: "cli.errno_access",
    errno.ENOENT: "cli.errno_missing",
    errno.ENOTDIR: "cli.errno_not_folder",
    errno.EISDIR: "cli.errno_is_folder",
    errno.ENAMETOOLONG: "cli.errno_long_name",
    errno.ENOSPC: "cli.errno_no_space",
    errno.EROFS: "cli.errno_read_only",
    errno.EIO: "cli.errno_io",
    errno.EEXIST: "cli.errno_exists",
}
#: Errors of the device stdout (or an output file) writes to, not of the program: a full disk, a quota, a file too
#: large, an I/O error, a descriptor not open for writing. :func:`guard` says them in one line.
_OUTPUT_ERRNOS: frozenset[int] = frozenset(
    code
    for code in (
        errno.ENOSPC,
        getattr(errno, "EDQUOT", None),
        errno.EFBIG,
        errno.EIO,
        errno.EBADF,
        errno.ENXIO,
    )
    if code is not None
)

# argparse's own messages (Python 3.11 msgids): a catalog entry each, whose English text is argparse's msgid itself.
register(
    {
        "argparse.usage": {"zh": "用法：", "en": "usage: "},
        "argparse.argument": {
            "zh": "参数 %(argument_name)s：%(message)s",
            "en": "argument %(argument_name)s: %(message)s",
        },
        "argparse.positionals": {"zh": "位置参数", "en": "positional arguments"},
        "argparse.options": {"zh": "选项", "en": "options"},
        "argparse.help": {"zh": "显示帮助并退出", "en": "show this help message and exit"},
        "argparse.unrecognized": {"zh": "无法识别的参数：%s", "en": "unrecognized arguments: %s"},
        "argparse.not_allowed_with": {"zh": "不能与参数 %s 同时使用", "en": "not allowed with argument %s"},
        "argparse.ignored_explicit": {"zh": "忽略了显式给出的值 %r", "en": "ignored explicit argument %r"},
        "argparse.required": {"zh": "缺少必需的参数：%s", "en": "the following arguments are required: %s"},
        "argparse.one_required": {"zh": "参数 %s 中必须给出一个", "en": "one of the arguments %s is required"},
        "argparse.expected_one": {"zh": "需要一个值", "en": "expected one argument"},
        "argparse.expected_at_most_one": {"zh": "最多需要一个值", "en": "expected at most one argument"},
        "argparse.expected_at_least_one": {"zh": "至少需要一个值", "en": "expected at least one argument"},
        "argparse.expected_n": {"zh": "需要 %s 个值", "en": "expected %s argument"},
        "argparse.ambiguous": {
            "zh": "有歧义的选项：%(option)s 可以匹配 %(matches)s",
            "en": "ambiguous option: %(option)s could match %(matches)s",
        },
        "argparse.unexpected_option": {"zh": "意外的选项：%s", "en": "unexpected option string: %s"},
        "argparse.invalid_value": {"zh": "无效的 %(type)s 值：%(value)r", "en": "invalid %(type)s value: %(value)r"},
        "argparse.invalid_choice": {
            "zh": "无效的选择：%(value)r（可选：%(choices)s）",
            "en": "invalid choice: %(value)r (choose from %(choices)s)",
        },
        "argparse.error": {"zh": "%(prog)s：错误：%(message)s\n", "en": "%(prog)s: error: %(message)s\n"},
        "argparse.unknown_parser": {
            "zh": "未知的子命令 %(parser_name)r（可选：%(choices)s）",
            "en": "unknown parser %(parser_name)r (choices: %(choices)s)",
        },
    }
)
#: argparse's msgid -> the catalog key that says it in the learner's language.
_ARGPARSE_KEYS: dict[str, str] = {texts["en"]: key for key, texts in catalog().items() if key.startswith("argparse.")}

#: argparse's msgid -> its Chinese text: a read-only view derived from the catalog entries above
#: (kept for code that imported it; the catalog is the one place these texts live).
ARGPARSE_ZH: Mapping[str, str] = MappingProxyType(
    {msgid: tr(key, "zh") for msgid, key in _ARGPARSE_KEYS.items() if key != "argparse.expected_n"}
)


def argparse_text(message: str) -> str:
    """argparse's ``message`` (a msgid) in the current language; a message the catalog lacks stays as it is."""
    key = _ARGPARSE_KEYS.get(message)
    return message if key is None else tr(key)


def _ntranslate(singular: str, plural: str, n: int) -> str:
    """argparse's ``ngettext``: the catalog's text for ``singular`` (its plural in English), else argparse's own."""
    english = singular if n == 1 else plural
    key = _ARGPARSE_KEYS.get(singular)
    return english if key is None else Text(zh=tr(key, "zh"), en=english).render()


@contextlib.contextmanager
def argparse_language() -> Iterator[None]:
    """Let argparse speak the current coursekit language (restored afterwards).

    Build a parser inside it as well as parse with it: argparse words its group titles ("options") and the
    ``-h`` help when a parser is built, and the rest when it prints.
    """
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = argparse_text, _ntranslate  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]


#: Characters two terminal columns wide (East Asian Wide / Fullwidth: CJK ideographs and their punctuation).
_WIDE = r"\u2e80-\u303f\u3040-\u9fff\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"
#: Punctuation that stays with the character before it (no line starts with it) or after it (none ends with it).
_CLOSING, _OPENING = "，。、；：！？）》」』", "（《「『"
#: A unit a line may break after: spaces, one wide character with its punctuation, or a word with its punctuation.
_WRAP_UNIT = re.compile(rf"\s+|[{_OPENING}]*(?:[{_WIDE}]|[^\s{_WIDE}]+)[{_CLOSING}]*")


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: two for a wide (CJK) character, one for any other.

    >>> display_width("每块 GPU")
    8
    """
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def wrap_display(text: str, width: int) -> list[str]:
    """``text`` in lines at most ``width`` terminal columns wide (a longer unbreakable word keeps its own line).

    A line may break at a space or between two Chinese characters, never before a closing mark such as ``，``.

    >>> wrap_display("每块 GPU 可用的显存，GiB", 12)
    ['每块 GPU 可', '用的显存，', 'GiB']
    """
    lines: list[str] = []
    line, used = "", 0
    for unit in _WRAP_UNIT.findall(" ".join(text.split())):
        size = display_width(unit)
        if unit.isspace():
            if line:
                line, used = line + unit, used + size
            continue
        if line and used + size > width:
            lines.append(line.rstrip())
            line, used = "", 0
        line, used = line + unit, used + size
    if line.strip():
        lines.append(line.rstrip())
    return lines


class CourseHelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, with Chinese text wrapped by terminal columns (two per Chinese character) and
    broken between Chinese characters as well as at spaces; text without Chinese is wrapped as argparse does."""

    class _Section(argparse.HelpFormatter._Section):
        """A section of the help whose heading ends with the current language's colon ("选项：", "options:")."""

        def format_help(self) -> str:
            text: str = super().format_help()
            if self.heading is None or self.heading is argparse.SUPPRESS:
                return text
            return text.replace(f"{self.heading}:\n", tr("cli.heading", heading=self.heading) + "\n", 1)

    def _split_lines(self, text: str, width: int) -> list[str]:
        if not re.search(f"[{_WIDE}]", text):
            return super()._split_lines(text, width)
        return wrap_display(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if not re.search(f"[{_WIDE}]", text):
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap_display(text, width - len(indent)))


#: Namespace attribute in which :class:`StoreOnce` keeps, while one parser parses, each option it has read (removed
#: before the parser returns, so no command sees it).
_GIVEN = "_coursekit_given"


def _shown_text(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


class StoreOnce(argparse._StoreAction):
    """argparse's ``store``, except that an option given twice with different values is refused (argparse would keep
    the later value without a word: ``plan --nodes 2 --nodes 4`` planned 4 nodes). Given twice with the same value
    it is read once. The refusal names the option and both values as the user wrote them (:class:`CourseParser` hands
    the text over in ``written``)."""

    written: str = ""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given: dict[tuple[str, ...], tuple[str, Any]] = namespace.__dict__.setdefault(_GIVEN, {})
        shown = f"{option_string or self.dest} {_shown_text(self.written)}"
        key = tuple(self.option_strings) or (self.dest,)  # a command's --lang and its subcommand's are one option
        earlier = given.get(key)
        if earlier is not None and earlier[1] != values:
            raise argparse.ArgumentError(self, tr("cli.given_twice", first=earlier[0], second=shown))
        given[key] = (shown, values)
        super().__call__(parser, namespace, values, option_string)


class _SubcommandsOnce(argparse._SubParsersAction):  # type: ignore[type-arg]
    """argparse's subcommands, whose parser is told the options given before the subcommand's name, so an option the
    command and its subcommand both take (``--lang zh plan ... --lang en``) is refused given twice there too."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        sub = self._name_parser_map.get(values[0]) if values else None
        if isinstance(sub, CourseParser):
            sub.given_before = dict(namespace.__dict__.get(_GIVEN, {}))
        try:
            super().__call__(parser, namespace, values, option_string)
        finally:
            if isinstance(sub, CourseParser):
                sub.given_before = {}


#: A command-line token that starts as a negative number does (``-5``, ``-1e999``, ``-.5``, ``-1_000``, ``-0x10``,
#: ``-5GiB``) or is ``float()``'s ``-inf`` / ``-nan``: no option of the course starts so, so argparse takes it as a
#: value and a numeric flag refuses it naming the flag, the value and the rule (argparse's own pattern takes only
#: ``-5`` and ``-0.5`` and said of ``--host-memory-gib -1e999`` only "expected one argument").
NEGATIVE_NUMBER: re.Pattern[str] = re.compile(r"^-(?:\.?\d|(?:inf|infinity|nan)$)", re.IGNORECASE)


class CourseParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` laid out by :class:`CourseHelpFormatter`; its subcommands' parsers are too.

    A value option given twice with different values is refused (:class:`StoreOnce`), exit status 2, also when the
    command and its subcommand both take it (:class:`_SubcommandsOnce`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", CourseHelpFormatter)
        super().__init__(*args, **kwargs)
        self.register("action", None, StoreOnce)
        self.register("action", "store", StoreOnce)
        self.register("action", "parsers", _SubcommandsOnce)
        # a negative number in any form Python's float() reads is a value, not an option: argparse's own pattern
        # (-5, -0.5) read "--host-memory-gib -1e999" or "-inf" as a flag and said only "expected one argument"
        self._negative_number_matcher = NEGATIVE_NUMBER
        #: The options given before this subcommand's name (set while its command parses it).
        self.given_before: dict[tuple[str, ...], tuple[str, Any]] = {}

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        if isinstance(action, StoreOnce):  # the text as written, for a refusal of the option given twice
            action.written = " ".join(arg_strings)
        return super()._get_values(action, arg_strings)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if namespace is None and self.given_before:  # a subcommand: the options its command read count as given
            namespace = argparse.Namespace(**{_GIVEN: dict(self.given_before)})
        parsed, rest = super().parse_known_args(args, namespace)
        vars(parsed).pop(_GIVEN, None)
        return parsed, rest


def language_spelling(value: str) -> str:
    """The course language ``value`` names when written as people write a language: any case, or as a locale or
    language tag (``ZH``, ``zh_CN``, ``zh-Hans``, ``zh_CN.UTF-8``, ``en_US.UTF-8``), as ``COURSEKIT_LANG`` is read;
    ``value`` itself when it names none (``fr``), for ``--lang``'s choices to refuse by name.

    >>> language_spelling("zh_CN.UTF-8"), language_spelling("EN"), language_spelling("fr")
    ('zh', 'en', 'fr')
    """
    code = re.split(r"[_.@-]", value.strip().lower(), maxsplit=1)[0]
    return code if code in i18n.LANGUAGES else value


def language_args(argv: Sequence[str]) -> list[str]:
    """``argv`` with each ``--lang`` value written as its language code (:func:`language_spelling`): ``--lang
    zh_CN`` and ``--lang=ZH`` mean ``--lang zh``; what names no course language is left for the parser to refuse.

    >>> language_args(["plan", "--lang", "zh-Hans", "--lang=en_US.UTF-8", "--model", "x"])
    ['plan', '--lang', 'zh', '--lang=en', '--model', 'x']
    """
    out = list(argv)
    for index, arg in enumerate(out):
        if arg == "--lang" and index + 1 < len(out):
            out[index + 1] = language_spelling(out[index + 1])
        elif arg.startswith("--lang="):
            out[index] = "--lang=" + language_spelling(arg.split("=", 1)[1])
    return out


def pre_language(argv: Sequence[str]) -> None:
    """Apply ``--lang`` before the parser is built, so its help and argument errors are in that language.

    Without ``--lang`` the language stays the current one (``COURSEKIT_LANG``, else English).
    """
    for index, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if arg.startswith("--lang=") else None
        if arg == "--lang" and index + 1 < len(argv):
            value = argv[index + 1]
        if value in i18n.LANGUAGES:
            i18n.set_language(value)


class NumberArg:
    """An argparse ``type=`` for a bounded number: converts, then checks with coursekit's validators.

    Both a floor and a ceiling are required, so no numeric option is left unbounded; a test walks
    every parser and feeds each :class:`NumberArg` option 1e308, -1, nan and inf.
    """

    def __init__(
        self,
        convert: type[int] | type[float],
        name: str,
        bounds: dict[str, float],
        unit: Text | None = None,
        floor_reason: Text | None = None,
    ) -> None:
        self.convert, self.name, self.bounds, self.unit = convert, name, bounds, unit
        self.floor_reason = floor_reason
        self.__name__ = name  # argparse names the type in "invalid <name> value" messages

    def _refuse(self, message: str) -> argparse.ArgumentTypeError:
        """The refusal, ending with the unit the flag wants when it has one (``24GB``, ``312e12`` TFLOP/s)."""
        if self.unit is not None:
            message = message.rstrip("。.") + tr("cli.flag_unit", unit=self.unit.render())
        return argparse.ArgumentTypeError(message)

    def __call__(self, text: str) -> Any:
        if not plainly_written(text):  # int()/float() would read "1_6" or "١٦" as 16
            raise self._refuse(tr("validate.written_number", value=text[:SHOWN_CHARS]))
        try:
            value = self.convert(text)
        except (ValueError, OverflowError):
            key = "cli.not_integer" if self.convert is int else "cli.not_number"
            raise self._refuse(tr(key, value=text[:SHOWN_CHARS])) from None
        if value == 0 and _below_normal(text, value):  # 1e-400 read as 0.0: a floor's message would name 0.0
            raise self._below_normal(text, value)
        if isinstance(value, float) and math.isinf(value) and "inf" not in text.lower():
            # 1e400 or 400 digits read as inf: "= inf: must be a finite number" named a number nobody wrote
            shown = _approx_text(text)
            raise self._refuse(tr("cli.float_range", name=self.name, value=shown, high=sys.float_info.max))
        try:
            if self.convert is int:
                return check_int(self.name, value, **{k: int(v) for k, v in self.bounds.items()})
            number = check_number(self.name, value, **self.bounds)
        except (TypeError, ValueError) as exc:
            message = str(exc)
            floor = self.bounds.get("ge", self.bounds.get("gt"))
            if self.floor_reason is not None and floor is not None and value < floor:
                message = message.rstrip("。.") + tr("cli.floor_reason", reason=self.floor_reason.render())
            raise self._refuse(message) from None
        # within the bounds, yet not the number written (a floor above 1e-320 says more, so it is checked first)
        if _below_normal(text, value):  # 1e-320 read as 9.99989e-321
            raise self._below_normal(text, value)
        return number

    def _below_normal(self, text: str, value: float) -> argparse.ArgumentTypeError:
        """The refusal of a number below the normal floats (:func:`_below_normal`), without the unit note (the unit
        is no slip here)."""
        shown = text.strip()[:SHOWN_CHARS]
        return argparse.ArgumentTypeError(
            tr("cli.below_normal", name=self.name, text=shown, read=value, low=sys.float_info.min)
        )


def _approx_text(text: str) -> str:
    """A number written past the float range, as ``≈1.0e+400`` (its text cut to :data:`SHOWN_CHARS` characters where
    even :class:`~decimal.Decimal` cannot hold its exponent, ``1e99999999999999999999``)."""
    try:
        return f"\u2248{Decimal(text.strip()):.1e}"
    except ArithmeticError:  # decimal.InvalidOperation: an exponent past Decimal's own range
        return _shown_text(text.strip())


#: The part of a written number before its exponent (``1.5`` of ``1.5e-400``).
_MANTISSA = re.compile(r"[^eE]*")


def _below_normal(text: str, value: float) -> bool:
    """Whether ``value``, read from ``text``, is a nonzero number smaller in size than the smallest normal float
    (``sys.float_info.min``, about 2.2e-308): a subnormal keeps fewer digits than written (``1e-320`` reads back as
    9.99989e-321), and a smaller one underflows to 0 (``1e-400``), so the flag would silently take another number
    (fuzz pass 25: ``--intra-latency-us 1e-320`` was echoed as 9.99989e-321).

    >>> _below_normal("1e-320", 1e-320), _below_normal("1e-400", 0.0), _below_normal("0e-400", 0.0)
    (True, True, False)
    >>> _below_normal("2.5", 2.5), _below_normal("-0", -0.0), _below_normal("nan", float("nan"))
    (False, False, False)
    """
    if value != 0:
        return abs(value) < sys.float_info.min
    mantissa = _MANTISSA.match(text.strip())
    return mantissa is not None and re.search("[1-9]", mantissa.group(0)) is not None


def number_arg(
    convert: type[int] | type[float],
    name: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    unit: Text | None = None,
) -> NumberArg:
    """An argparse ``type=`` for ``name``: ``convert`` (``int`` or ``float``) within a floor and a ceiling; ``unit``
    (what the flag's number is in, with an example) ends a refusal, so ``--peak-tflops 312e12`` is told to write 312
    (:func:`floored` adds why the floor is where it is)."""
    if (ge is None) == (gt is None) or (le is None) == (lt is None):
        raise TypeError(f"number_arg({name!r}): give exactly one floor (ge/gt) and one ceiling (le/lt)")
    bounds = {key: value for key, value in (("ge", ge), ("gt", gt), ("le", le), ("lt", lt)) if value is not None}
    return NumberArg(convert, name, bounds, unit)


def floored(arg: NumberArg, reason: Text) -> NumberArg:
    """``arg`` saying, after it refuses a value below its floor, why the floor is where it is (``reason``:
    ``--gpu-memory-gib 1e-320`` is told that 0.001 GiB is about 1 MiB; fuzz pass 24)."""
    arg.floor_reason = reason
    return arg


def fail_line(prog: str, message: str) -> int:
    """Print ``prog: error: message`` (current language) as one line on stderr; returns :data:`EXIT_USAGE`.

    With stderr closed too (``2>&-``) there is nowhere to say it: only the status tells.
    """
    if sys.stderr is not None:
        with contextlib.suppress(OSError):
            sys.stderr.write(tr("cli.error", prog=prog, message=message) + "\n")
    return EXIT_USAGE


def os_error_reason(exc: OSError) -> str:
    """Why the operating system refused, in the current language (its own words, with the error number, for an error
    the catalog does not name)."""
    key = _ERRNO_KEYS.get(exc.errno or 0)
    return tr(key) if key else tr("cli.errno_other", code=exc.errno, text=exc.strerror or str(exc))


def os_error_message(exc: OSError, option: str = "") -> str:
    """One line saying which path failed and why, in the current language."""
    reason = os_error_reason(exc)
    path = "" if exc.filename is None else str(exc.filename)[:SHOWN_CHARS]
    return tr("cli.os_error", option=f"{option} " if option and path else option, path=path, reason=reason)


def _check_names(option: str, path: Path) -> None:
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX_BYTES:
            shown = part if len(part) <= 40 else part[:37] + "..."
            raise ValueError(
                tr("cli.path_long_name", option=option, path=_shown(path), name=shown, size=size, limit=NAME_MAX_BYTES)
            )


def _shown(path: Path) -> str:
    text = str(path)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _check_creatable(option: str, path: Path) -> None:
    """The nearest existing ancestor of ``path`` must be a folder this process may write in."""
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ValueError(tr("cli.path_under_file", option=option, path=_shown(path), blocker=ancestor))
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ValueError(tr("cli.path_unwritable", option=option, path=_shown(path), folder=ancestor))


def _check_path(option: str, text: str | os.PathLike[str], kind: str, create: bool) -> Path:
    if not isinstance(text, (str, os.PathLike)):  # None or a number would be read as the path "None", "5"
        raise TypeError(tr("cli.path_type", option=option, value=i18n.shown_repr(text), type=type(text).__name__))
    if "\0" in str(text):
        raise ValueError(tr("cli.path_nul", option=option, path=str(text)[:SHOWN_CHARS]))
    if not str(text).strip():
        raise ValueError(tr("cli.path_empty", option=option, path=str(text), kind=tr(f"cli.kind_{kind}")))
    path = Path(text)
    _check_names(option, path)
    try:
        if path.is_dir() != (kind == "folder") and path.exists():
            key = "cli.path_is_folder" if kind == "file" else "cli.path_not_folder"
            raise ValueError(tr(key, option=option, path=_shown(path)))
        if path.exists():
            if not os.access(path, os.W_OK | (os.X_OK if kind == "folder" else 0)):
                raise ValueError(tr("cli.path_unwritable", option=option, path=_shown(path), folder=path))
        else:
            _check_creatable(option, path)
        if create:
            _probe(path, kind)
    except OSError as exc:  # the operating system refused (a name too long here, a read-only place, no space)
        raise ValueError(os_error_message(exc, option)) from None
    return path


def _probe(path: Path, kind: str) -> None:
    """Create the folders ``path`` needs and write there once, so a refusal comes now, not after the work."""
    folder = path if kind == "folder" else path.parent
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "folder":
        with tempfile.TemporaryFile(dir=folder):
            return
    existed = path.exists()
    with open(path, "ab"):
        pass
    if not existed:
        path.unlink(missing_ok=True)  # another process trying the same name may have removed it already


def check_output_file(option: str, text: str | os.PathLike[str], *, create: bool = False) -> Path:
    """``text`` as a path a file can be written to, else ``ValueError`` naming ``option``, the path and the rule.

    With ``create``, its folders are made and the file is opened once (and removed again if it was new),
    so even a refusal only the operating system knows of (a read-only place, a full disk) comes at once.

    >>> check_output_file("--json", "/")
    Traceback (most recent call last):
    ...
    ValueError: --json /: is a folder; name a file inside it.
    """
    return _check_path(option, text, "file", create)


def check_output_folder(option: str, text: str | os.PathLike[str], *, create: bool = False) -> Path:
    """``text`` as a folder files can be written into, else ``ValueError``; with ``create`` it is made and tried."""
    return _check_path(option, text, "folder", create)


def stdout_takes(text: str) -> bool:
    """Whether stdout's encoding holds every character of ``text`` (a stream without an encoding takes str)."""
    encoding = getattr(sys.stdout, "encoding", None)
    if not encoding:
        return True
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


#: Characters of JSON :func:`write_json` holds before it writes: a document up to this size is written at once (a
#: failure leaves no half document); a longer one (a search's millions of candidates) is written in pieces of this
#: size, so its memory stays that of the search, not of the text.
JSON_PIECE_CHARS: int = 1 << 24


class StreamedList(list):  # type: ignore[type-arg]
    """A JSON array whose ``count`` items ``item(i)`` makes only while :func:`write_json` writes it (the list itself
    holds nothing): a search's millions of candidates reach stdout without a dict each in memory at once. Only for
    ``write_json`` (``json``'s indented encoder iterates a list and asks its length; nothing else reads it)."""

    def __init__(self, count: int, item: Callable[[int], Any]) -> None:
        super().__init__()
        self._count, self._item = count, item

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self) -> Iterator[Any]:
        return (self._item(i) for i in range(self._count))


def _ascii_json(text: str) -> str:
    """JSON text with every non-ASCII character as JSON's own ``\\uXXXX`` escape (what ``ensure_ascii`` writes;
    outside the ASCII range a JSON document has such characters only inside strings, so the result reads back the
    same)."""
    return re.sub(r"[^\x00-\x7f]", lambda match: json.dumps(match.group())[1:-1], text)


def _write_piece(text: str) -> None:
    sys.stdout.write(text if stdout_takes(text) else _ascii_json(text))


def write_json(payload: Any) -> None:
    """``payload`` as indented JSON and a newline on stdout, written at once (a failure leaves no half document) when
    it is at most :data:`JSON_PIECE_CHARS` long, else in pieces of that size as it is encoded (a :class:`StreamedList`
    in it is made item by item meanwhile), so a search of millions of candidates needs no memory for its text.

    Non-ASCII text (``×``, Chinese) is written as itself where stdout's encoding holds it, else with JSON's own
    ``\\uXXXX`` escapes, which every JSON reader turns back into the same text.
    """
    pieces: list[str] = []
    held = 0
    for chunk in json.JSONEncoder(ensure_ascii=False, indent=1).iterencode(payload):
        pieces.append(chunk)
        held += len(chunk)
        if held >= JSON_PIECE_CHARS:
            _write_piece("".join(pieces))
            pieces, held = [], 0
    _write_piece("".join(pieces) + "\n")


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush does not fail again (Python docs' recipe)."""
    try:
        fileno = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # None, or a stream without a descriptor (io.StringIO)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fileno)
    finally:
        os.close(devnull)


@contextlib.contextmanager
def _escaping_stdout() -> Iterator[None]:
    """stdout writes what its encoding cannot hold as backslash escapes (``\\xd7``) while the command runs."""
    stream = sys.stdout
    if not isinstance(stream, io.TextIOWrapper) or stream.errors == "backslashreplace":
        yield
        return
    errors = stream.errors
    stream.reconfigure(errors="backslashreplace")
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):  # a broken or closed stream keeps its setting
            stream.reconfigure(errors=errors)


def guard(prog: str, run: Callable[[], int], argv: Sequence[str] = ()) -> int:
    """Run a command's body: a broken stdout pipe ends quietly, an OS error on a path or running out of memory ends as
    one line.

    Stdout writes what its encoding cannot hold as escapes; a closed stdout (``>&-``) is refused before ``run``
    starts (in the language of ``argv``'s ``--lang``), and a write to stdout the device refuses (no space, an I/O
    error) ends as one line. Returns ``run()``'s status, :data:`EXIT_BROKEN_PIPE` or :data:`EXIT_USAGE`.
    """
    if sys.stdout is None:  # the shell closed descriptor 1: no output could reach anyone
        pre_language(argv)
        return fail_line(prog, tr("cli.stdout_closed"))
    try:
        with _escaping_stdout():
            code = run()
            sys.stdout.flush()
        return code
    except MemoryError:  # what was allocated is released as the stack unwinds: there is room to say it
        return fail_line(prog, tr("cli.out_of_memory"))
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        if exc.filename is None and exc.errno in _OUTPUT_ERRNOS:  # the device refused the output
            _silence_stdout()
            return fail_line(prog, tr("cli.write_failed", reason=os_error_reason(exc)))
        if exc.filename is None:  # not a path: a fault of the program, not of the arguments
            raise
        return fail_line(prog, os_error_message(exc))
