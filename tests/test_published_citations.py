"""Lesson 9's list of sources: one line per published run, numbered as its table, a citation repeated from the line
before it shortened to "as above" (``coursekit.published_runs.citation_lines``)."""

from __future__ import annotations

import pytest

import coursekit
from coursekit.published_runs import all_published_runs, citation, citation_lines


def test_every_citation_is_whole() -> None:
    """The citation is cut at the first top-level "; " (the configs follow): never inside parentheses or quotes."""
    for run in all_published_runs():
        cited = citation(run)
        assert cited.count("(") == cited.count(")") and cited.count("“") == cited.count("”"), run.name
        assert run.source.startswith(cited)


def test_a_repeated_citation_reads_as_above_and_a_new_one_whole() -> None:
    runs = all_published_runs()
    first, second = (str(line) for line in citation_lines(runs[:2]))
    # both Llama 3 405B rows cite arXiv:2407.21783's Table 4, rows 1 and 2
    assert first.startswith("1. Llama Team, “The Llama 3 Herd of Models”, arXiv:2407.21783, Table 4, row 1 ")
    assert second.startswith("2. as above, row 2 (")
    lines = citation_lines(runs)
    assert len(lines) == len(runs)
    assert all(str(line).startswith(f"{number}. ") for number, line in enumerate(lines, start=1))
    whole = [line for line in lines if ". as above, " not in str(line)]
    assert len(whole) < len(lines)  # some rows share their table with the row before


def test_the_lines_are_in_the_learners_language() -> None:
    line = citation_lines(all_published_runs()[:2])[1]
    coursekit.set_language("zh")
    try:
        assert str(line).startswith("2. 同上，row 2")
    finally:
        coursekit.set_language("en")
    assert str(line).startswith("2. as above, row 2")


@pytest.mark.parametrize(
    ("runs", "error", "message"), [("abc", TypeError, "runs = 'abc'"), ([3], TypeError, "runs[0] = 3")]
)
def test_what_is_not_a_list_of_runs_is_refused(runs: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
        citation_lines(runs)
