"""One term per idea in the Chinese course text: the glossary's terms, never a variant.

The glossary (docs/GLOSSARY.md, coursekit.glossary) names intra-node and inter-node 节点内 / 跨节点, arithmetic
intensity 计算强度 and the roofline's ridge point 脊点. The variants below once stood beside them in learner text; a
learner meeting two words for one idea looks for a difference that is not there. The test reads every lesson
source, every coursekit module (its strings are what learners see), the docs and the README.

Two more choices, stated in the glossary: a token is written token (as rank is written rank), never 词元; a
micro-batch is 微批次, and the English word appears in Chinese text only as the gloss after it, 微批次
(micro-batch), or as code in backticks. A line is Chinese text when it holds a CJK character; on a line that holds
both languages (``Text(zh=..., en=...)``) only the part before ``en=`` is Chinese.

Allowed look-alikes: 交换机内 / 交换机间 (inside or between switches, as in NVLS's in-switch reduction), 主机内存
(host memory, which activation offloading fills) and 跨机架 / 跨机柜 (across racks) contain the characters of a variant
without being one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Variant -> the glossary's term that replaces it.
BANNED: dict[str, str] = {
    "机内": "节点内",
    "机间": "跨节点",
    "跨机": "跨节点",
    "节点间": "跨节点",
    "算术强度": "计算强度",
    "转折点": "脊点",
    "词元": "token",
}
_PATTERN = re.compile(r"(?<!交换)(?<!主)机内|(?<!交换)机间|跨机(?![架柜])|节点间|算术强度|转折点|词元")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_ENGLISH_PART = re.compile(r"\ben=|\"en\":")
#: micro-batch in Chinese text, except as the gloss in parentheses or as code (backticks, identifiers).
_MICRO_BATCH = re.compile(r"(?<![(（\w`_/-])micro-batch")


def banned_terms(text: str) -> list[str]:
    """The variants in ``text``, in order.

    >>> banned_terms("节点内快、节点间慢；机内、跨机、机间；算术强度与转折点")
    ['节点间', '机内', '跨机', '机间', '算术强度', '转折点']
    >>> banned_terms("节点内与跨节点；在 NVSwitch 上用交换机内归约的 NVLS；跨机架；计算强度与脊点；卸载到主机内存")
    []
    """
    return [found.group(0) for found in _PATTERN.finditer(text)]


def english_micro_batch(line: str) -> bool:
    """Whether the Chinese part of ``line`` writes micro-batch in English instead of 微批次.

    >>> english_micro_batch("每个 rank 的 micro-batch 是 4"), english_micro_batch("每个 rank 的微批次是 4")
    (True, False)
    >>> english_micro_batch("微批次 (micro-batch) 数"), english_micro_batch("`micro-batch` 与 micro_batch")
    (False, False)
    >>> english_micro_batch('Text(zh="微批次", en="micro-batch")'), english_micro_batch("One micro-batch per rank")
    (False, False)
    >>> english_micro_batch("| 微批次 | micro-batch | 一份批次 | one micro-batch |")
    False
    """
    english = _ENGLISH_PART.search(line)
    chinese = re.sub(r"`[^`]*`", "", line[: english.start()] if english else line)
    # a Markdown table row holds both languages in separate cells: only the Chinese cells count
    return any(_CJK.search(cell) and _MICRO_BATCH.search(cell) for cell in chinese.split("|"))


def _files() -> list[Path]:
    files = sorted((ROOT / "notebooks" / "src").glob("*.py"))
    files += sorted(p for p in (ROOT / "coursekit").rglob("*") if p.suffix in {".py", ".md"})
    files += sorted((ROOT / "docs").rglob("*.md"))
    files.append(ROOT / "README.md")
    return files


def test_the_glossary_uses_the_replacements() -> None:
    glossary = (ROOT / "docs" / "GLOSSARY.md").read_text(encoding="utf-8")
    for term in set(BANNED.values()):
        assert term in glossary, term
    assert set(
        _PATTERN.pattern.replace("(?<!交换)", "").replace("(?<!主)", "").replace("(?![架柜])", "").split("|")
    ) == set(BANNED)
    assert "| 微批次 | micro-batch |" in glossary and "| 文本单元 | token |" in glossary


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_learner_text_uses_one_term_per_idea(path: Path) -> None:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        found += [f"line {number}: {term} -> {BANNED[term]}: {line.strip()[:120]}" for term in banned_terms(line)]
        if english_micro_batch(line):
            found.append(f"line {number}: micro-batch -> 微批次: {line.strip()[:120]}")
    assert not found, f"{path.relative_to(ROOT)}:\n" + "\n".join(found)
