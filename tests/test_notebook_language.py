"""Every output of a zh lesson is Chinese: no English prose in what the executed notebook shows.

The rule (what counts as English prose, and what is allowed):

* Text is split into tokens at white space. A token is an **English word** when it is letters only, optionally
  hyphenated (``all-gather``) and followed by one punctuation mark, and it is not allowed below.
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
    # the collectives have Chinese names (全归约, 全收集, ...): bare English names next to each other are prose now
    assert english_runs("每层 all-reduce all-gather 各一次，再一次全归约 (all-reduce)") == ["all-reduce all-gather"]
    assert english_runs("micro-batch all-to-all") == ["micro-batch all-to-all"]


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


#: Internal names learners must never see: the design texts ("seed", 种子, "S18"), also inside identifiers
#: (``SEED_CANDIDATES``, ``seed_required_ranks``, ``result.seed``: ``_`` and ``.`` are not letters, so they do not
#: hide the word). A random-number seed is not the design text: ``manual_seed``, "random seed" and 随机种子 pass.
#: A bare question number before lesson 0 defines Q1-Q4 is checked separately below.
INTERNAL = re.compile(
    r"(?<![A-Za-z])(?<!manual_)(?<!random )seeds?(?![A-Za-z])|(?<!随机)种子|(?<![A-Za-z0-9])S18(?![0-9])", re.I
)
ALL_LESSONS = {lang: lesson_notebooks(lang) for lang in ("zh", "en")}


def internal_names(text: str) -> list[str]:
    """The internal names in ``text``.

    >>> internal_names("SEED_CANDIDATES, comparison.seed_required_ranks, result.seed, 种子, S18, seeds")
    ['SEED', 'seed', 'seed', '种子', 'S18', 'seeds']
    >>> internal_names("torch.manual_seed(0); a random seed; 随机种子; S180; seeding; linkseed")
    []
    """
    return [found.group(0) for found in INTERNAL.finditer(text)]


def test_the_jargon_rule_sees_identifiers_too() -> None:
    assert internal_names("from coursekit.gates import SEED_ENVIRONMENT") == ["SEED"]
    assert internal_names("x.seed_required_ranks") == ["seed"]
    assert internal_names("composition_widget.result.seed.required_ranks") == ["seed"]
    assert internal_names("S18 选择矩阵；种子 000") == ["S18", "种子"]
    assert internal_names("torch.manual_seed(0)") == []


@pytest.mark.parametrize(
    "path", [p for lang in ("zh", "en") for p in ALL_LESSONS[lang]], ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_lessons_use_no_internal_names_in_sources_or_outputs(path: Path) -> None:
    """Every cell's source (markdown and code, identifiers included) and every output of every lesson."""
    notebook = executed(path)
    found = []
    for index, cell in enumerate(notebook.cells):
        texts = [cell.source, *(output_texts(cell) if cell.cell_type == "code" else [])]
        found += [f"cell {index}: {names} in {text[:160]!r}" for text in texts if (names := internal_names(text))]
    assert not found, f"{path.parent.name}/{path.name}:\n" + "\n".join(found)


def test_q1_to_q4_are_defined_in_lesson_0_before_any_lesson_uses_them() -> None:
    for lang in ("zh", "en"):
        index = executed(Path(__file__).resolve().parents[1] / "notebooks" / lang / "00_index.ipynb")
        prose = "\n".join(cell.source for cell in index.cells if cell.cell_type == "markdown")
        for number in range(1, 5):
            assert f"**Q{number} " in prose, f"{lang}: lesson 0 does not define Q{number}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_exercise_texts_use_no_internal_names(lang: str) -> None:
    """Every exercise of every prefix: prompt, hint, worked solution (with its result line), slips and choices."""
    import coursekit
    from coursekit.exercises import exercises, solution_text

    coursekit.set_language(lang)
    found = []
    for exercise in exercises():
        texts = [exercise.prompt.render(lang), exercise.hint.render(lang), solution_text(exercise.id)]
        texts += [slip.hint.render(lang) for slip in exercise.slips]
        texts += [str(choice) for choice in exercise.choices]
        found += [f"{exercise.id}: {names} in {text[:160]!r}" for text in texts if (names := internal_names(text))]
    assert not found, "\n".join(found)


def _widget_texts(widget: object) -> list[str]:
    """What a widget shows before anyone touches it: control labels, every option's label and value, the message."""
    texts = [str(getattr(widget, "message", ""))]
    for name, control in getattr(widget, "controls", {}).items():
        texts += [name, str(getattr(control, "description", ""))]
        for option in getattr(control, "options", ()) or ():
            texts += [str(part) for part in (option if isinstance(option, tuple) else (option,))]
    return texts


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_widget_choices_and_messages_use_no_internal_names(lang: str) -> None:
    """Each lesson widget, built with its defaults: labels, choice labels and values, and the first message."""
    import coursekit
    from tests.fuzz.test_widget_fuzz import WIDGETS

    coursekit.set_language(lang)
    found = []
    for name, cls in sorted(WIDGETS.items()):
        widget = cls()
        found += [
            f"{name}: {names} in {text[:160]!r}" for text in _widget_texts(widget) if (names := internal_names(text))
        ]
    assert not found, "\n".join(found)
