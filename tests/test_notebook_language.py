"""Every output of a zh lesson is Chinese: no English prose in what the executed notebook shows.

The rule (what counts as English prose, and what is allowed):

* Text is split into tokens at white space. A token is an **English word** when it is letters only, optionally
  hyphenated (``all-reduce``) and followed by one punctuation mark, and it is not allowed below.
* **Allowed**, each breaking a run of words: code (a token with ``_``, ``.``, ``(``, ``=``, ``/``, ``[``, ``'``
  or a digit, and anything inside backticks or quotes), numbers and units, abbreviations and proper names (a word with
  two or more capital letters, such as ``DP``, ``MoE``, ``NVLink``, ``InfiniBand``, or one of
  :data:`PROPER_NAMES`, which include Python's ``True`` / ``False`` / ``None`` printed as values), the course's
  English terms kept in zh prose (:data:`TERMS`, such as ``rank`` or ``micro-batch``), text in parentheses right
  after a Chinese character (the English gloss the course rule asks for, ``数据并行 (data parallelism, DP)``), URLs,
  citations (``Korthikanti et al.``),
  and CJK characters. Kept terms do not break a run but cannot make one on their own.
* A **run of two or more English words** in a row, at least one of them not a kept term, is English prose
  (``global batch`` alone is not; ``Per rank`` is), and the test fails naming the notebook, the cell and the text.

Figures are PNG images and are not read here; their labels follow :func:`coursekit.plotting.label` (Chinese when a
CJK font is installed). Widget messages are tested in tests/test_widgets_*.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.notebook_outputs import executed, lesson_notebooks, output_texts

#: Capitalised names that are not abbreviations but are allowed as proper names.
PROPER_NAMES = frozenset(
    {"Adam", "Megatron", "Llama", "Ethernet", "Ring", "Simple", "Binder", "Python", "Jupyter", "Transformer"}
    | {"True", "False", "None"}  # Python's constants, printed as values
)
#: English terms the zh course keeps as they are (each glossary-defined or a unit), lower case.
TERMS = frozenset(
    {
        "rank",
        "ranks",
        "token",
        "tokens",
        "batch",
        "micro-batch",
        "global",
        "all-reduce",
        "all-gather",
        "reduce-scatter",
        "all-to-all",
        "send",
        "recv",
        "kernel",
        "checkpoint",
        "payload",
        "none",
        "selective",
        "full",
        "dense",
        "moe",
        "training",
        "serving",
        "intra_node",
        "cross_node",
        "busbw",
        "algbw",
        "ring",
        "alpha-beta",
        # the shell commands the course tells learners to run
        "pip",
        "install",
    }
)
_WORD = re.compile(r"^[A-Za-z]+(?:-[A-Za-z]+)*[,.;:!?]?$")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_GLOSS = re.compile(r"(?<=[\u3400-\u9fff\uff09\uff0c]) ?[(\uff08][^()\uff08\uff09]*[)\uff09]")
_QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’")
_URL = re.compile(r"https?://\S+")
_CITATION = re.compile(r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)? et al\.?")
MIN_RUN = 2


def english_runs(text: str) -> list[str]:
    """The runs of English words in ``text`` that the rule of this module calls prose.

    >>> english_runs("节点内：单向 450 GB/s one way -> ring all-reduce of 15 GB")
    ['one way', 'ring all-reduce of']
    >>> english_runs("数据并行 (data parallelism, DP)：每个 rank 一份 `training_state_memory(...)`")
    []
    """
    text = _URL.sub(" ", text)
    text = _CITATION.sub(" ", text)
    text = _QUOTED.sub(" ", text)
    text = _GLOSS.sub(" ", text)
    runs: list[str] = []
    current: list[str] = []
    for token in [*text.split(), ""]:
        kind = _kind(token)
        if kind is not None:
            current.append(token.rstrip(",.;:!?"))
            continue
        # A run of two or more, at least one of them not a kept term, is prose ("global batch" alone is not).
        if len(current) >= MIN_RUN and any(word.lower() not in TERMS for word in current):
            runs.append(" ".join(current))
        current = []
    return runs


def _kind(token: str) -> str | None:
    """``"word"`` or ``"term"`` for an English token that may form prose, else None (it breaks a run)."""
    if not token or _CJK.search(token) or not _WORD.match(token):
        return None
    word = token.rstrip(",.;:!?")
    if sum(ch.isupper() for ch in word) >= 2 or word in PROPER_NAMES:
        return None
    return "term" if word.lower() in TERMS else "word"


def test_the_rule_flags_english_prose_and_allows_terms_code_and_glosses() -> None:
    # The lesson-0 line the issue quotes: its English part is prose.
    assert english_runs("节点内，类 NVLink（H100）  450 GB/s one way -> ring all-reduce of 15 GB over 8 ranks") == [
        "one way",
        "ring all-reduce of",
    ]
    assert english_runs("ratio: 9x") == []  # one word is not a run (such labels are fixed by hand)
    assert english_runs("Per rank: parameters 2.00 + gradients") == ["Per rank parameters"]
    assert english_runs("单卡放不下：需要 29.0 GiB，设备 24.0 GiB；FSDP FULL_SHARD -> ZeRO-3") == []
    assert english_runs("TP 组会离开节点内高速互连，每层的 collective 都要走跨节点链路") == []
    assert english_runs("流水线并行 (pipeline parallelism, PP)：把模型的层按顺序分段") == []
    assert english_runs("见 https://pytorch.org/docs/stable/distributed.html 和 'workload mode is unsupported'") == []
    assert english_runs("激活系数为 Korthikanti et al. 的 GPT 层") == []
    assert english_runs("100,421 parameters in 36 tensors") == ["parameters in"]


@pytest.mark.parametrize("path", lesson_notebooks("zh"), ids=lambda p: p.name)
def test_zh_outputs_are_chinese(path: Path) -> None:
    notebook = executed(path)
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        for text in output_texts(cell):
            for line in text.splitlines():
                runs = english_runs(line)
                if runs:
                    found.append(f"cell {index}: {runs} in {line.strip()[:160]!r}")
    assert not found, f"{path.name}: English prose in zh outputs:\n" + "\n".join(found)


#: Internal names learners must never see: the design texts ("seed", 种子, "S18") and a bare question number
#: before lesson 0 defines Q1-Q4 (checked separately below).
INTERNAL = re.compile(r"\bseeds?\b|种子|\bS18\b", re.IGNORECASE)
OWN_LESSONS = ["00_index", "01_capacity", "02_communication", "03_gates", "04_composition"]


@pytest.mark.parametrize("stem", OWN_LESSONS)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_lessons_0_to_4_use_no_internal_names(stem: str, lang: str) -> None:
    path = Path(__file__).resolve().parents[1] / "notebooks" / lang / f"{stem}.ipynb"
    notebook = executed(path)
    for index, cell in enumerate(notebook.cells):
        texts = [cell.source] if cell.cell_type == "markdown" else output_texts(cell)
        for text in texts:
            found = INTERNAL.search(text)
            assert found is None, f"{lang}/{stem} cell {index}: {found.group(0)!r} in {text[:200]!r}"


def test_q1_to_q4_are_defined_in_lesson_0_before_any_lesson_uses_them() -> None:
    for lang in ("zh", "en"):
        index = executed(Path(__file__).resolve().parents[1] / "notebooks" / lang / "00_index.ipynb")
        prose = "\n".join(cell.source for cell in index.cells if cell.cell_type == "markdown")
        for number in range(1, 5):
            assert f"**Q{number} " in prose, f"{lang}: lesson 0 does not define Q{number}"


def test_exercise_texts_use_no_internal_names() -> None:
    from coursekit.exercises import exercises

    for exercise in exercises():
        if exercise.prefix not in {"intro", "q1", "q2", "q3", "q4", "lab"}:
            continue  # lessons 5, 6, 7, 9 and 10 are written by others
        for lang in ("zh", "en"):
            texts = [exercise.prompt.render(lang), exercise.hint.render(lang)]
            texts += [slip.hint.render(lang) for slip in exercise.slips]
            for text in texts:
                assert INTERNAL.search(text) is None, f"{exercise.id}: {text[:200]!r}"
