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


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
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


@pytest.mark.parametrize("path", LIBRARY, ids=_rel)
def test_no_second_mechanism(path: Path) -> None:
    """A ``{"zh": ..., "en": ...}`` dict is a catalog entry (inside ``register``); nothing calls ``pick``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    registered = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and "register" in getattr(node.func, "id", getattr(node.func, "attr", "")):
            registered |= {id(sub) for arg in node.args for sub in ast.walk(arg)}
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and {"zh", "en"} <= {k.value for k in node.keys if isinstance(k, ast.Constant)}:
            if id(node) not in registered:
                problems.append(f"line {node.lineno}: an inline zh/en dict outside register()")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "pick":
            problems.append(f"line {node.lineno}: pick(zh, en); use Text or a catalog entry")
    assert not problems, f"{_rel(path)}: " + "; ".join(problems)
