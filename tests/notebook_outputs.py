"""Run a generated lesson notebook once per test session, as a learner's Run All would, and read its outputs.

Used by tests/test_notebook_answers_hidden.py and tests/test_notebook_language.py, so each notebook
executes once however many tests read it. Nothing is answered: the fill-in cells keep ``answer = ...``.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[1]
LANGS: tuple[str, ...] = ("zh", "en")
#: Lesson notebooks: NN_slug.ipynb (the glossary notebook has no code; learners' .mine copies are not lessons).
LESSON_NAME = re.compile(r"^\d\d_[a-z0-9_]+\.ipynb$")
#: Seconds a cell may take (lesson 8 starts PyTorch processes when the lab extra is installed).
CELL_TIMEOUT_S = 300

_TAG = re.compile(r"<[^>]+>")
_STYLE_OR_SCRIPT = re.compile(r"<(style|script)\b.*?</\1>", re.S | re.I)


def lesson_notebooks(lang: str) -> list[Path]:
    """The generated lesson notebooks of ``lang``, sorted."""
    return sorted(p for p in (ROOT / "notebooks" / lang).glob("*.ipynb") if LESSON_NAME.match(p.name))


@cache
def executed(path: Path) -> Any:
    """``path`` executed top to bottom in a fresh kernel (errors stop it, as they would fail nbval)."""
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return notebook


def output_texts(cell: Any) -> list[str]:
    """The text a learner sees in ``cell``'s outputs: streams, plain text, HTML (tags removed), markdown."""
    texts: list[str] = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            texts.append(str(output.get("text", "")))
            continue
        if output.get("output_type") == "error":
            texts.append(f"{output.get('ename')}: {output.get('evalue')}")
            continue
        data = output.get("data", {})
        if "text/html" in data:
            raw = _STYLE_OR_SCRIPT.sub(" ", str(data["text/html"]))
            texts.append(html.unescape(_TAG.sub(" ", raw)))
        elif "text/markdown" in data:
            texts.append(str(data["text/markdown"]))
        elif "text/plain" in data and "application/vnd.jupyter.widget-view+json" not in data:
            texts.append(str(data["text/plain"]))
    return texts


def is_solution(cell: Any) -> bool:
    """A worked-solution cell (tag ``solution``)."""
    return "solution" in cell.get("metadata", {}).get("tags", [])


def answer_forms(value: Any) -> list[str]:
    """How an exercise's expected ``value`` looks when a cell prints it, in every form a learner would recognise.

    Integers of three or more digits, with and without thousands separators; real numbers at 2, 3 and 4
    significant digits (with separators too) when the form has at least three digits; lists and tuples as
    Python prints them. Shorter forms (``2``, ``26``, ``4.4``) and word answers (``'TP'``, ``'feasible'``)
    occur in ordinary text and are not telling, so they are left out.

    >>> answer_forms(1152)
    ['1,152', '1152']
    >>> answer_forms(0.15992)
    ['0.16', '0.1599']
    >>> answer_forms(25.77), answer_forms("TP")
    (['25.8', '25.77'], [])
    """
    if isinstance(value, (bool, str, set, frozenset)) or value is None:
        return []
    if isinstance(value, int):
        return sorted({str(value), f"{value:,}"}) if abs(value) >= 100 else []
    if isinstance(value, float):
        forms: list[str] = []
        for digits in (2, 3, 4):
            text = f"{value:.{digits}g}"
            if "e" in text:
                continue
            grouped = f"{float(text):,.{max(len(text.split('.')[1]) if '.' in text else 0, 0)}f}"
            for form in (text, grouped):
                if sum(ch.isdigit() for ch in form) >= 3 and form not in forms:
                    forms.append(form)
        return forms
    if isinstance(value, (list, tuple)):
        return [repr(value)]
    return []


def shows(text: str, form: str, exercise_id: str = "") -> bool:
    """True if ``form`` stands in ``text`` as a number of its own (not inside a longer number).

    A number right after one of :data:`COINCIDENT_LABELS` of ``exercise_id`` is another quantity and does not count.
    """
    labels = COINCIDENT_LABELS.get(exercise_id, ())
    for match in re.finditer(rf"(?<![\d.,]){re.escape(form)}(?![\d]|[.,]\d)", text):
        if not any(text[: match.start()].endswith(label) for label in labels):
            return True
    return False


#: Outputs that show an exercise's answer by coincidence, by exercise id: the source of the cell that prints it (or,
#: for a long cell, a line only that cell has) and why it tells the learner nothing. Lesson 8's all_reduce fit table
#: has a pred/meas ratio of 0.16 at 8 KiB, the same two digits as the recorded E(4) but an unrelated quantity (a live
#: run changes both independently). Lesson 9's published-run table prints 48 ratios of estimated to published
#: throughput near 1 with two decimals and its step ratios to the best with three; some read 1.02, as plan.cp_cost's
#: step ratio of CP 2 to its twin (1.016) does, or 1.03, as plan.slow_link's ratio of step times with the inter-node
#: bandwidth cut to 1/5 (1.029) does: unrelated quantities. The same lesson's first workbench report lists each
#: candidate's memory, where the 70B example's parameters (and, under bf16 gradients, its gradients) take 1.03 GiB per
#: rank: not a step ratio either; nor are the long-sequence table's speed-ups from CP (one reads 1.03).
COINCIDENCES: dict[str, tuple[str, ...]] = {
    "lab.efficiency_4": ('display(report.detail_view("all_reduce"))',),
    "plan.cp_cost": ("comparisons = [compare_published(run) for run in runs]", 'print(f"#{rank} " + cand.explain())'),
    "plan.slow_link": (
        "comparisons = [compare_published(run) for run in runs]",
        'print(f"#{rank} " + cand.explain())',
        "cp_rows = cp_speedups()",
    ),
}


#: Labels after which a number is another quantity that happens to equal an answer's rounded form, by exercise id:
#: lesson 9's published runs list gradient-accumulation steps as ``ga=240``, and 9.3's 239.7 billion rounds to 240.
#: Lesson 9's prose on DGX Cloud's DeepSeek-V3 row gives its estimated throughput as 1.02x the measured, which reads
#: like plan.cp_cost's step ratio of CP 2 to its twin (1.016): a throughput ratio of another run, unrelated.
COINCIDENT_LABELS: dict[str, tuple[str, ...]] = {
    "plan.moe_active": ("ga=",),
    "plan.cp_cost": ("The estimated throughput is ", "估算吞吐是实测的 "),
}


def coincidence(exercise_id: str, cell_source: str) -> bool:
    """True if the cell ``cell_source`` shows ``exercise_id``'s answer only by coincidence (:data:`COINCIDENCES`): the
    whole cell is a listed source, or one of its lines is."""
    listed = COINCIDENCES.get(exercise_id, ())
    lines = {line.strip() for line in cell_source.splitlines()}
    return cell_source.strip() in listed or any(entry in lines for entry in listed)
