"""One term per idea in the Chinese course text: the glossary's terms, never a variant.

The glossary (docs/GLOSSARY.md, coursekit.glossary) names intra-node and inter-node 节点内 / 跨节点, arithmetic
intensity 计算强度 and the roofline's ridge point 脊点. The variants below once stood beside them in learner text; a
learner meeting two words for one idea looks for a difference that is not there. The test reads every lesson
source, every coursekit module (its strings are what learners see), the docs and the README.

Allowed look-alikes: 交换机内 / 交换机间 (inside or between switches, as in NVLS's in-switch reduction) and 跨机架 /
跨机柜 (across racks) contain the characters of a variant without being one.
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
}
_PATTERN = re.compile(r"(?<!交换)机内|(?<!交换)机间|跨机(?![架柜])|节点间|算术强度|转折点")


def banned_terms(text: str) -> list[str]:
    """The variants in ``text``, in order.

    >>> banned_terms("节点内快、节点间慢；机内、跨机、机间；算术强度与转折点")
    ['节点间', '机内', '跨机', '机间', '算术强度', '转折点']
    >>> banned_terms("节点内与跨节点；在 NVSwitch 上用交换机内归约的 NVLS；跨机架；计算强度与脊点")
    []
    """
    return [found.group(0) for found in _PATTERN.finditer(text)]


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
    assert set(_PATTERN.pattern.replace("(?<!交换)", "").replace("(?![架柜])", "").split("|")) == set(BANNED)


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_learner_text_uses_one_term_per_idea(path: Path) -> None:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        found += [f"line {number}: {term} -> {BANNED[term]}: {line.strip()[:120]}" for term in banned_terms(line)]
    assert not found, f"{path.relative_to(ROOT)}:\n" + "\n".join(found)
