"""Learner-facing text in code comes in zh/en pairs, and the two halves of every pair say the same thing.

One mechanism: a catalog entry (``register({"key": {"zh": ..., "en": ...}})``, rendered by ``tr``) or a
``Text(zh=..., en=...)`` (a glossary entry and a helper taking ``zh, en`` arguments are built on it). Every pair,
in the library and in the lessons' code, is read from the source (AST) and must have both languages, non-empty,
with the same ``{placeholders}`` (and ``%s``-style fields), and the same numbers: a digit sequence in one language
is in the other too, so a changed figure cannot drift in one language only. A Chinese string literal in the library
outside a pair is a second mechanism and fails the test.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LIBRARY = sorted((ROOT / "coursekit").rglob("*.py"))
SOURCES = LIBRARY + sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
#: Tools whose output learners read (lesson navigation and maps, notebooks' folded blocks, the website): held to the
#: same one mechanism as the library.
LEARNER_TOOLS = [
    ROOT / "tools" / name for name in ("lesson_registry.py", "lesson_nav.py", "build_notebooks.py", "cheatsheet_pdf.py")
] + sorted((ROOT / "tools" / "site").glob("*.py"))
#: ``{name}``, ``{name:.1f}``, ``{value!r}`` (an f-string's expression becomes ``{expression}``).
FIELD = re.compile(r"\{([^{}!:]*)[^{}]*\}")
#: argparse's ``%(name)s`` and ``%s`` fields.
PERCENT_FIELD = re.compile(r"%(?:\((\w+)\))?[sdrf]")
#: A field naming its language (``{title.zh}`` / ``{title.en}``, ``{zh_phase}`` / ``{en_phase}``) is the same field.
LANGUAGE_IN_NAME = re.compile(r"(?<![A-Za-z])(?:zh|en)(?![A-Za-z])|zh_|en_|_zh|_en")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")

#: Chinese literals in the library that are not learner text: a glyph the figure-text cache probe draws, and the
#: headings of the bilingual glossary page, which carries both languages in one line.
NOT_A_PAIR = {
    ("coursekit/plotting/text_cache.py", "数据并行"),
    ("coursekit/glossary.py", "# 术语表 / Glossary"),
    ("coursekit/glossary.py", "| 中文 | English | 缩写 / abbr. | 释义 | Definition |"),
    ("coursekit/glossary.py", "中文术语在前，英文原文在后；本课程中的带宽一律指每块 GPU 每个方向的带宽（单向）。"),
    ("coursekit/exercises/input_help.py", "零〇一二两三四五六七八九十"),  # the numerals a learner may type: data
    ("coursekit/exercises/input_help.py", "十百千"),  # the numerals' units (十六, 一百八十四; review 26): data
    # what a learner types, read by the exercises' help (data, never shown as text): the orders of magnitude after a
    # number (2400亿, review 27), a strategy's short name, the ledger words of exercise 2.2, the separators of a set
    # typed as text and the words around a ZeRO stage (阶段2, 第 2 阶段)
    *(
        ("coursekit/exercises/input_help.py", word)
        for word in ("千", "万", "十万", "百万", "千万", "亿", "十亿", "百亿", "千亿", "万亿")
    ),
    # a Chinese numeral's decimal point, minus sign, skipped place and the 两 no decimal digit is (三十一点四, 负三,
    # 一万零五百; fuzz pass 25): data
    *(("coursekit/exercises/input_help.py", word) for word in ("点", "负", "零", "两")),
    # the words and the enumeration comma that join two numbers a learner types (5和7, 5、7; leftovers 29): data
    ("coursekit/exercises/input_help.py", "和与及、"),
    # the words for "short by" before a number (缺1.47) and the counter words after a count (1,152次; leftovers 30)
    ("coursekit/exercises/input_help.py", "还差 缺少 短缺 不足 缺 差 欠 少"),
    ("coursekit/exercises/input_help.py", "次个步块张层台份轮组批条颗"),
    ("coursekit/exercises/__init__.py", "副本"),
    ("coursekit/exercises/lesson2.py", "账本"),
    ("coursekit/exercises/lesson2.py", "本"),
    ("coursekit/exercises/__init__.py", r"\s*(?:[,，、;；/]|\band\b|和)\s*|\s+"),
    ("coursekit/exercises/__init__.py", r"(\d+|[零〇一二两三四五六七八九十百]+)"),
    ("coursekit/exercises/__init__.py", r"(?:[A-Za-z]{1,12}\s*[-=]?\s*)?(?:阶段|第)\s*"),
    ("coursekit/exercises/__init__.py", r"\s*(?:阶段|级)?"),
    ("coursekit/exercises/__init__.py", r"\s*(?:阶段|级)"),
}


def _text(node: ast.AST) -> str | None:
    """A string literal, f-string (its expressions as ``{expression}``) or a sum of them; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            value.value if isinstance(value, ast.Constant) else "{" + ast.unparse(getattr(value, "value", value)) + "}"
            for value in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # "text" + other.zh: other is a field
        left, right = _text(node.left), _text(node.right)
        if left is None and right is None:
            return None
        return (left or "{" + ast.unparse(node.left) + "}") + (right or "{" + ast.unparse(node.right) + "}")
    return None


def _is_zh_en(first: ast.AST, second: ast.AST) -> bool:
    a, b = _text(first), _text(second)
    return a is not None and b is not None and bool(CJK.search(a)) and not CJK.search(b)


def _pairs(tree: ast.AST) -> Iterator[tuple[int, str, str, list[ast.AST]]]:
    """Every (line, zh, en, nodes) pair: catalog entries, ``zh=``/``en=`` keywords, ``(zh, en)`` arguments and
    tuples, and a translation table (English key -> Chinese value, argparse's messages)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = [key.value if isinstance(key, ast.Constant) else None for key in node.keys]
            if "zh" in keys and "en" in keys:
                values = dict(zip(keys, node.values, strict=True))
                zh, en = _text(values["zh"]), _text(values["en"])
                if zh is not None and en is not None:
                    yield node.lineno, zh, en, [values["zh"], values["en"]]
            elif keys and all(isinstance(k, str) and not CJK.search(k) for k in keys):
                for key, value in zip(keys, node.values, strict=True):
                    text = _text(value)
                    if text is not None and CJK.search(text):
                        yield value.lineno, text, str(key), [value]
        if isinstance(node, ast.Call):
            keywords = {keyword.arg: keyword.value for keyword in node.keywords}
            if "zh" in keywords and "en" in keywords:
                zh, en = _text(keywords["zh"]), _text(keywords["en"])
                if zh is not None and en is not None:
                    yield node.lineno, zh, en, [keywords["zh"], keywords["en"]]
        if isinstance(node, (ast.Call, ast.Tuple)):
            items = node.args if isinstance(node, ast.Call) else node.elts
            index = 0
            while index + 1 < len(items):
                if _is_zh_en(items[index], items[index + 1]):
                    yield node.lineno, str(_text(items[index])), str(_text(items[index + 1])), items[index : index + 2]
                    index += 2
                else:
                    index += 1


def _fields(text: str) -> list[str]:
    plain = text.replace("{{", "").replace("}}", "")
    # An expression's own string literals are its language's words ('；'.join(...) / '; '.join(...)): not compared.
    names = {LANGUAGE_IN_NAME.sub("*", QUOTED.sub("''", match.group(1))) for match in FIELD.finditer(plain)}
    names |= {f"%{match.group(1) or ''}" for match in PERCENT_FIELD.finditer(text)}
    return sorted(names)


def _numbers(text: str) -> list[str]:
    return sorted(NUMBER.findall(FIELD.sub("", text.replace("{{", "").replace("}}", ""))))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", SOURCES + LEARNER_TOOLS, ids=_rel)
def test_every_pair_has_both_languages_the_same_fields_and_the_same_numbers(path: Path) -> None:
    drift = []
    for line, zh, en, _ in _pairs(ast.parse(path.read_text(encoding="utf-8"))):
        if not zh.strip() or not en.strip():
            drift.append(f"line {line}: an empty half: zh={zh!r} en={en!r}")
        if _fields(zh) != _fields(en):
            drift.append(f"line {line}: fields {_fields(zh)} (zh) vs {_fields(en)} (en)")
        if _numbers(zh) != _numbers(en):
            drift.append(f"line {line}: numbers {_numbers(zh)} (zh) vs {_numbers(en)} (en): {zh[:60]!r} / {en[:60]!r}")
    assert not drift, f"{_rel(path)}:\n" + "\n".join(drift)


def test_the_survey_finds_the_pairs() -> None:
    """The AST reading sees every form the course uses (so the test above is not vacuous)."""
    source = (
        'register({"k": {"zh": "共 {n} 个", "en": "{n} in all"}})\n'
        'Text(zh=f"第 {i} 课", en=f"lesson {i}")\n'
        '_entry("all_reduce", "每层 2 次", "2 per layer")\n'
        'ARGPARSE = {"usage: ": "用法："}\n'
        'phases = [("前向", "Forward")]\n'
    )
    found = [(zh, en) for _, zh, en, _ in _pairs(ast.parse(source))]
    assert sorted(found) == sorted(
        [("共 {n} 个", "{n} in all"), ("第 {i} 课", "lesson {i}"), ("每层 2 次", "2 per layer"), ("用法：", "usage: "),
         ("前向", "Forward")]
    )  # fmt: skip
    assert _numbers("每层 2 次，共 {n:.1f} GiB") == ["2"] and _fields("{title.zh}") == _fields("{title.en}")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


@pytest.mark.parametrize("path", LIBRARY, ids=_rel)
def test_every_chinese_literal_of_the_library_is_half_of_a_pair(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_pairs = {id(sub) for *_, nodes in _pairs(tree) for node in nodes for sub in ast.walk(node)}
    skip = in_pairs | _docstrings(tree)
    alone = [
        f"line {node.lineno}: {node.value[:60]!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CJK.search(node.value)
        if id(node) not in skip and (_rel(path), node.value) not in NOT_A_PAIR
    ]
    assert not alone, f"{_rel(path)}: Chinese text outside a catalog entry or Text: " + "; ".join(alone)


#: The mechanism itself: its class ``Text`` chooses a language half; nothing else may.
MECHANISM = ROOT / "coursekit" / "i18n.py"
LANGUAGE_CODES = {"zh", "en"}
#: A language code as a path part, a name suffix or a tag (``"/zh/"``, ``"_en"``, ``"zh-CN"``): not words.
LANGUAGE_TAG = re.compile(r"[_./-]*(?:zh|en)(?:[-_][A-Za-z]{2})?[_./-]*")


def _is_text(node: ast.AST) -> bool:
    """Words a learner reads: a string (not a bare language code), an f-string, or a tuple / list of them."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_is_text(element) for element in node.elts)
    text = _text(node)
    words = None if text is None else FIELD.sub("", text).strip()  # f"{stem}_en" builds a file name, no words
    return bool(words) and not LANGUAGE_TAG.fullmatch(str(words))


def _names_a_language(node: ast.AST) -> bool:
    """A comparison with ``"zh"`` / ``"en"`` (``lang == "zh"``, ``get_language() != "en"``, ``"zh" in parts``)."""
    return any(
        isinstance(sub, ast.Compare)
        and any(
            isinstance(side, ast.Constant) and side.value in LANGUAGE_CODES for side in [sub.left, *sub.comparators]
        )
        for sub in ast.walk(node)
    )


def _chooses_text(nodes: list[ast.AST]) -> bool:
    """Some branch yields words, or a name of one language (``x.zh``, ``en_phase``, ``ARGPARSE_ZH``).

    An exception raised there is not counted: a tool's check of its own input (``a lang="zh" cell must be followed by
    its lang="en" twin``) speaks to the course's authors."""
    raised = {
        id(sub)
        for node in nodes
        for raise_ in ast.walk(node)
        if isinstance(raise_, ast.Raise)
        for sub in ast.walk(raise_)
    }
    return any(
        id(sub) not in raised
        and (
            _is_text(sub)
            or (isinstance(sub, ast.Attribute) and _language_param(sub.attr.lower()) is not None)
            or (isinstance(sub, ast.Name) and _language_param(sub.id.lower()) is not None)
        )
        for node in nodes
        for sub in ast.walk(node)
    )


def _language_param(name: str) -> str | None:
    for lang in LANGUAGE_CODES:
        if name == lang or name.startswith(lang + "_") or name.endswith("_" + lang):
            return lang
    return None


def _call_name(node: ast.Call) -> str:
    return str(getattr(node.func, "id", getattr(node.func, "attr", "")))


def second_mechanisms(tree: ast.AST, *, library: bool = True) -> list[str]:
    """Every way of choosing learner text by language other than a catalog entry or a ``Text``.

    * a ``{"zh": ..., "en": ...}`` dict outside ``register(...)`` (in the library any such dict; elsewhere one
      holding text: a dict of regular expressions per language parses text, it shows none);
    * a translation table: a dict from English (or ASCII) keys to Chinese text, outside ``register(...)``;
    * a comparison with ``"zh"`` / ``"en"`` that picks words (``"：" if lang == "zh" else ": "``,
      ``x.zh if lang == "zh" else x.en``, ``if lang == "zh": return "..."``);
    * a text keyed by its language in a tuple (``("zh", "教师指南")``);
    * a Chinese and an English text side by side as arguments of anything but ``Text`` (``_entry(..., "中", "en")``)
      or in a tuple (``("前向", "Forward")``), or as ``zh=`` / ``en=`` keywords of anything but ``Text``;
    * a function taking ``zh`` and ``en`` arguments that builds no ``Text`` from them;
    * a call of ``pick``.
    """
    registered: set[int] = set()
    texts_args: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and "register" in _call_name(node):
            registered |= {id(sub) for arg in node.args for sub in ast.walk(arg)}
        if isinstance(node, ast.Call) and _call_name(node) == "Text":
            texts_args |= {id(arg) for arg in node.args}
    problems = []
    for node in ast.walk(tree):
        line = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Dict) and id(node) not in registered:
            keys = [key.value if isinstance(key, ast.Constant) else None for key in node.keys]
            if LANGUAGE_CODES <= set(keys) and (library or any(_is_text(value) for value in node.values)):
                problems.append(f"{line}: an inline zh/en dict outside register()")
            elif (
                keys
                and all(isinstance(key, str) and not CJK.search(key) for key in keys)
                and any(CJK.search(_text(value) or "") for value in node.values)
            ):
                problems.append(f"{line}: a translation table (English key -> Chinese text) outside register()")
        if isinstance(node, ast.IfExp) and _names_a_language(node.test) and _chooses_text([node.body, node.orelse]):
            problems.append(f"{line}: text chosen by comparing with 'zh'/'en': {ast.unparse(node)[:60]}")
        if isinstance(node, ast.If) and _names_a_language(node.test) and _chooses_text([*node.body, *node.orelse]):
            problems.append(f"{line}: text chosen by comparing with 'zh'/'en': if {ast.unparse(node.test)[:50]}")
        if isinstance(node, ast.Call) and _call_name(node) != "Text":
            keywords = {keyword.arg: keyword.value for keyword in node.keywords}
            if LANGUAGE_CODES <= set(keywords) and any(_is_text(keywords[lang]) for lang in LANGUAGE_CODES):
                problems.append(f"{line}: {_call_name(node)}(zh=..., en=...) is not a Text")
            if any(_is_zh_en(a, b) for a, b in zip(node.args, node.args[1:], strict=False)):
                problems.append(f"{line}: a (zh, en) pair passed to {_call_name(node)}(); pass a Text")
            if _call_name(node) == "pick":
                problems.append(f"{line}: pick(zh, en); use Text or a catalog entry")
        if isinstance(node, ast.Tuple) and id(node) not in texts_args:
            if any(_is_zh_en(a, b) for a, b in zip(node.elts, node.elts[1:], strict=False)):
                problems.append(f"{line}: a (zh, en) tuple; use Text")
            first = node.elts[0] if node.elts else None
            if isinstance(first, ast.Constant) and first.value in LANGUAGE_CODES and any(map(_is_text, node.elts[1:])):
                problems.append(f"{line}: a text keyed by its language in a tuple; use Text")
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            params = {
                _language_param(arg.arg)
                for arg in [*node.args.args, *node.args.kwonlyargs]
                if arg.annotation is None or ast.unparse(arg.annotation) == "str"  # zh_path: Path is no text
            }
            builds = any(isinstance(sub, ast.Call) and _call_name(sub) == "Text" for sub in ast.walk(node))
            if LANGUAGE_CODES <= params and not builds:
                problems.append(f"{line}: {getattr(node, 'name', 'lambda')}() takes zh and en texts but builds no Text")
    return problems


@pytest.mark.parametrize("path", SOURCES + LEARNER_TOOLS, ids=_rel)
def test_no_second_mechanism(path: Path) -> None:
    """Learner text is chosen by language in one place: a catalog entry (inside ``register``) or a ``Text``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if path == MECHANISM:  # Text.render is where a language half is chosen
        tree.body = [node for node in tree.body if not (isinstance(node, ast.ClassDef) and node.name == "Text")]
    problems = second_mechanisms(tree, library=path in LIBRARY)
    assert not problems, f"{_rel(path)}: " + "; ".join(problems)


#: One example of each form the course used before it had one mechanism (each must be found).
REMOVED_FORMS = {
    "argparse table": 'ARGPARSE_ZH = {"usage: ": "用法："}',
    "translate by language": 'def t(m):\n    return ARGPARSE_ZH.get(m, m) if get_language() == "zh" else m',
    "ngettext table": (
        'def n(s, p, k):\n    if get_language() == "zh":\n        return {"expected %s": "需要 %s 个"}.get(s, s)'
    ),
    "traffic entry helper": '_entry("all_reduce", total, 1, "dp", n, "梯度 all-reduce", "Gradient all-reduce", SRC)',
    "phase tuples": 'phases = [("前向", "Forward"), ("反向", "Backward")]',
    "glossary helper": '_e("数据并行", "data parallelism", "DP", "持有完整模型。", "Holds the whole model.")',
    "glossary entry": 'GlossaryEntry(zh="数据并行", en="data parallelism", abbr="DP", definition=d)',
    "helper taking zh, en": "def _e(zh, en, abbr, def_zh, def_en):\n    return Entry(zh, en, abbr, def_zh, def_en)",
    "half chosen by hand": 'definition = entry.definition.zh if lang == "zh" else entry.definition.en',
    "pick": 'pick("前向", "Forward")',
    "inline dict": 'UNIT = {"zh": "分钟", "en": "min"}',
    "text keyed by language in tuples": 'for lang, text in (("zh", "教师指南"), ("en", "Instructor guide")): pass',
    "format picked by language": 'title += ("：" if lang == "zh" else ": ") + summary',
}


@pytest.mark.parametrize("form", sorted(REMOVED_FORMS))
def test_each_removed_form_is_found(form: str) -> None:
    assert second_mechanisms(ast.parse(REMOVED_FORMS[form]), library=False), form


def test_the_one_mechanism_passes() -> None:
    source = (
        'register({"k": {"zh": "共 {n} 个", "en": "{n} in all"}})\n'
        'phases = [Text(zh="前向", en="Forward"), Text("反向", "Backward")]\n'
        "def _e(name, abbr, definition):\n    return Entry(zh=name.zh, en=name.en, abbr=abbr, definition=definition)\n"
        "def pick(zh, en):\n    return Text(zh=zh, en=en).render()\n"
        'HEADER = {"zh": re.compile("^# 时间"), "en": re.compile("^# Time")}\n'
        'family = [cjk, LATIN] if plot_language() == "zh" else [LATIN]\n'
    )
    assert second_mechanisms(ast.parse(source), library=False) == []
