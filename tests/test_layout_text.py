"""A layout typed the way vendor tables and papers print it: separators, and columns that are not degrees.

Megatron-Bridge's performance pages print a row's layout as columns (TP, PP, CP, VP, EP, MBS, GBS, sequence); a
reader copies them as ``"TP=4 PP=8 VP=4 MBS=1"`` or with semicolons. The degrees are the same whichever separator is
used; the columns that set the workload (GBS, sequence length, sequence parallelism) are refused with the flag that
takes them, not as an "unknown key".
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from coursekit.i18n import set_language
from coursekit.planner.space import WORKLOAD_COLUMNS, parse_degrees

# The Megatron-Bridge 26.06 GB200 Llama 3.1 405B row (docs/performance-summary-archive.md @ 067f987df): TP 4, PP 16,
# CP 1, VP 8, MBS 1 - the same degrees however the row is typed.
EXPECTED = {"tp": 4, "pp": 16, "cp": 1, "v": 8, "mb": 1}


@pytest.mark.parametrize(
    "text",
    [
        "tp=4,pp=16,cp=1,v=8,mb=1",
        "TP=4 PP=16 CP=1 VP=8 MBS=1",
        "TP=4; PP=16; CP=1; VP=8; MBS=1",
        "tp = 4 , pp = 16 , cp = 1 , vp = 8 , mbs = 1",
        "  TP=4\tPP=16\nCP=1  VP=8 MBS=1  ",
    ],
)
def test_separators_give_the_same_degrees(text: str) -> None:
    assert parse_degrees(text) == EXPECTED


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        ("TP=4 PP=16 GBS=1536", "--global-batch"),
        ("tp=4,seq=8192", "--seq-len"),
        ("tp=4,seq_len=8192", "--seq-len"),
        ("tp=4,SP=1", "--no-sequence-parallel"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_workload_columns_are_refused_with_their_flag(text: str, flag: str, lang: str) -> None:
    set_language(lang)
    try:
        with pytest.raises(ValueError) as info:
            parse_degrees(text)
    finally:
        set_language("en")
    message = str(info.value)
    assert flag in message and repr(text) in message
    assert ("unknown key" not in message) and ("未知的键" not in message)
    if lang == "zh":
        assert "工作负载" in message or "序列并行" in message
        assert "setting" not in message and "degree" not in message


def test_every_workload_column_names_a_real_plan_flag() -> None:
    help_text = subprocess.run(
        [sys.executable, "-m", "coursekit", "plan", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for flag, _field in WORKLOAD_COLUMNS.values():
        assert flag in help_text, flag


def test_a_lone_word_between_items_is_still_refused() -> None:
    """White space separates items; it does not make a bare word (or a missing value) acceptable."""
    with pytest.raises(ValueError, match="'pp' is not of the form key=value"):
        parse_degrees("tp=4 pp")
    with pytest.raises(ValueError, match="must be an integer"):
        parse_degrees("tp= ,pp=2")


def test_cli_layout_reads_a_space_separated_row() -> None:
    run = subprocess.run(
        [
            sys.executable, "-m", "coursekit", "plan", "--model", "llama3-70b", "--cluster", "h100-8",
            "--nodes", "8", "--global-batch", "128", "--layout", "TP=4 PP=4 DP=4 VP=5 MBS=1",
        ],
        capture_output=True, text=True, env={"COURSEKIT_LANG": "en", "PATH": ""},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "tp=4,pp=4,dp=4" in run.stdout
