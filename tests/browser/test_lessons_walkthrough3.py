"""Walk-through of lesson 9 (the capstone) in real JupyterLab, read as a Chinese self-learner would, checked in English.

What a file-level test cannot see: the text a worked solution shows once its button is pressed, whether the table a
paragraph talks about has the column the paragraph reads off it, and how a long printed listing reads on the page.
These tests open the lesson in one JupyterLab server (the session's), run it all and read the cells' visible text.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import coursekit.exercises  # noqa: F401  (registers the solution button's label in the catalog)

from .test_lessons_walkthrough2 import _CELL_TEXTS, _norm, _press_and_read, _solution_button


def _cell_with(page: Any, needle: str) -> str:
    texts: list[str] = page.evaluate(_CELL_TEXTS)
    found = [_norm(text) for text in texts if needle in text]
    assert found, f"no cell shows {needle!r}"
    return found[0]


@pytest.mark.parametrize(
    ("notebook", "changed", "old"),
    [
        ("zh/09_workbench.ipynb", "最快的组合换了一个", "本来就把高频通信留在节点内"),
        ("en/09_workbench.ipynb", "the fastest composition changes", "already keeps frequent traffic inside nodes"),
    ],
)
def test_lesson9_slow_link_solution_says_the_winner_changes(
    open_lesson: Any, notebook: str, changed: str, old: str
) -> None:
    # The worked result used to say the fastest composition "already keeps frequent traffic inside nodes": the
    # baseline's fastest shards with ZeRO-3 across nodes, and on the slower link another composition wins.
    page = open_lesson(notebook).page
    button, cell = _solution_button(page, "plan.slow_link")
    shown = _press_and_read(page, button, cell, re.compile(re.escape(changed)))
    assert changed in shown and old not in shown, shown[-600:]
    assert "zero=3" in shown and "ZeRO-3" in shown and "tp=8,pp=2" in shown, shown[-600:]
    loss = re.search(r"(\d+\.\d)\s?(?:倍|x the new fastest)", shown)
    assert loss and float(loss.group(1)) > 2, shown[-600:]  # the old winner loses well over 2x on the slow link


@pytest.mark.parametrize(
    ("notebook", "column", "prose"),
    [
        ("zh/09_workbench.ipynb", "并列组", "TP = 1、2、4、8 各自估算最快的组合 都在第 1 并列组"),
        ("en/09_workbench.ipynb", "tie group", "fastest composition of each of TP = 1, 2, 4 and 8 is in tie group 1"),
    ],
)
def test_lesson9_tp_table_shows_the_tie_groups_its_paragraph_quotes(
    open_lesson: Any, notebook: str, column: str, prose: str
) -> None:
    # Section 6's paragraph said "TP = 4 and TP = 8 land in the same or neighbouring tie groups", but the table showed
    # no tie group: TP 1 to 8 are all in tie group 1, less than 2 % apart.
    page = open_lesson(notebook).page
    table = _cell_with(page, "TP 通信 (ms)" if notebook.startswith("zh") else "TP comm. (ms)")
    header = next(line for line in table.splitlines() if "TP" in line and "\t" in line)
    columns = header.split("\t")
    assert column in columns, header
    rows = {int(line.split("\t")[0]): line.split("\t") for line in table.splitlines() if re.match(r"^\d+\t", line)}
    assert sorted(rows) == [1, 2, 4, 8, 16]
    group, step = columns.index(column), columns.index("步时 (s)" if notebook.startswith("zh") else "step (s)")
    assert [rows[tp][group] for tp in (1, 2, 4, 8)] == ["1"] * 4, table
    steps = [float(rows[tp][step]) for tp in (1, 2, 4, 8)]
    assert max(steps) < 1.02 * min(steps), steps
    texts = " ".join(_norm(text).replace("\n", " ") for text in page.evaluate(_CELL_TEXTS))
    assert prose in texts
    assert "相邻的 并列组" not in texts and "neighbouring tie groups" not in texts


@pytest.mark.parametrize(
    ("notebook", "intro", "mixtral"),
    [
        ("zh/09_workbench.ipynb", "8. 对照已发表的大规模训练", "MoE 指南给出的 Mixtral 8x7B 参考布局一行"),
        ("en/09_workbench.ipynb", "8. Against published", "the one Mixtral 8x7B reference layout of its MoE guide"),
    ],
)
def test_lesson9_sources_list_cites_each_run_whole(open_lesson: Any, notebook: str, intro: str, mixtral: str) -> None:
    # The sources under the published-runs table cut each citation at its first "; ", also inside a quoted row name
    # or a parenthesis: row 44 read "as above, act recompute" (the +1f1b overlap that tells it from row 43 was cut)
    # and rows 33 and 46 lost their closing parenthesis. The section's opening list of the rows it checks left out
    # row 33, the Mixtral layout of Megatron-Core's MoE guide.
    page = open_lesson(notebook).page
    assert mixtral in _cell_with(page, intro).replace("\n", " ")
    listing = _cell_with(page, "run.source")
    # each line is "n. citation (note)": the table beside it names the run (coursekit.published_runs.citation_lines)
    cited = {int(m.group(1)): m.group(2) for m in re.finditer(r"^(\d+)\. (.*)$", listing, re.M)}
    assert len(cited) >= 96, f"{len(cited)} numbered sources"
    for number, text in cited.items():
        # the note after the citation is in full-width brackets in zh, so ASCII ( ) and “ ” belong to the citation
        assert text.count("(") == text.count(")") and text.count("“") == text.count("”"), f"{number}. {text}"
    assert "+1f1b overlap" in cited[44] and "+1f1b overlap" not in cited[43]
    assert "320 TFLOPS" in cited[46] and "Reference Best Parallel Mapping" in cited[33]


@pytest.mark.parametrize(
    ("notebook", "heading", "quoted"),
    [
        ("zh/06_pipeline_scaling.ipynb", "误区 5", "结论都是“{}”"),
        ("en/06_pipeline_scaling.ipynb", "Misconception 5", 'is "{}"'),
    ],
)
def test_lesson6_misconception5_quotes_the_verdict_its_cell_prints(
    open_lesson: Any, notebook: str, heading: str, quoted: str
) -> None:
    # Misconception 5 said the verdict on FSDP, TP and PP is "not needed" (不需要); the cell below it prints the
    # verdict "not preferred" (不优先) for each, "not needed" being the reason.
    page = open_lesson(notebook).page
    output = _cell_with(page, "evaluate_paper_case(CASE_FITS_ONE_DEVICE")
    verdicts = dict(re.findall(r"^(FSDP|TP|PP) · ([^:：]+)[:：]", output, re.M))
    assert sorted(verdicts) == ["FSDP", "PP", "TP"] and len(set(verdicts.values())) == 1, verdicts
    prose = _cell_with(page, heading).replace("\n", " ")
    assert quoted.format(verdicts["TP"]) in prose, prose
