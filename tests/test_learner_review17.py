"""What the English self-learner of review 17 met in lessons 0-5, 8 and 9's workbench, fixed.

1. Lesson 9's workbench: while no composition passes the gates (GPT-3 175B on one H100 node), choosing the H800 or
   H200 node type or moving the global batch, the sequence length, the achievable fraction of peak, the overlap or
   the inter-node bandwidth left the message and the figure exactly as they were: a silent no-op. In serving, the
   inter-node bandwidth control did the same whenever no layout shown crossed nodes. Lesson 4's composition widget
   did the same for a rank order that keeps the coloured groups and for the model structure while EP = 1.
2. A ``NameError`` on a variable passed to a function (``build_resource_ledger(state_gib, activation_gib, ...)``) was
   answered "if it is one of the options the question lists, write it in quotes: ...(state_gib, 'activation_gib',
   ...)", advice that turns the cell into a TypeError.
3. Lesson cells (2's ZeRO check and traffic list, 4's topology mapping) and exercise 1.3's worked solution used names
   that only a worked solution defined: a learner who skipped a solution got a NameError further on.
4. An answer written in quotes with its unit (``'25.77 GB'``, ``'4.45 ms'``) or as ``'ZeRO-2'`` was refused with
   "must be a real number (int or float), not str", which says neither what is wrong nor what to type.
5. Common slips got the exercise's general hint: 1.1 answered with the ZeRO paper's Figure 1 (N_d = 64, printed just
   above) instead of N_d = 8; 1.3 with 7.5e9 parameters (the question says 7.47B); 5.1 with 2 bytes per parameter;
   2.1 in KiB or bytes instead of MiB; 0.1 in bytes instead of GB; 1.2 with a stage outside 0-3; 8.6 with a rank
   the recorded run does not have; 3.3 with section 8.1's list for micro-batch 1; 8.10 with E(2).
"""

from __future__ import annotations

import ast
import builtins
import json
from pathlib import Path

import pytest

from coursekit.exercises import check
from coursekit.exercises.input_help import input_hint
from coursekit.widgets.composition import CompositionWidget
from coursekit.widgets.workbench import WorkbenchWidget
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)

ROOT = Path(__file__).resolve().parents[1]


# -- 1. the workbench never leaves a change unseen ----------------------------------------------------------------

#: (control, a value other than the widget's default); each changes the search or its assumptions
CHANGES = [
    ("cluster", "h800-8"),  # H800: the H100's 80 GiB and 989 TFLOP/s, so nothing else in the message changes
    ("global_batch", 128),
    ("seq_len", 2048),
    ("mfu", 0.3),
    ("overlap", 0.0),
    ("link_slowdown", 4),
]


@pytest.mark.usefixtures("en")
def test_each_control_changes_the_message_while_nothing_passes() -> None:
    widget = WorkbenchWidget()
    with widget.hold_updates():
        # GPT-3 175B on one 8 x 80 GiB node: 175e9 x 16 bytes = 2.8 TB of training state, 35 x the node's 640 GB
        widget.controls["model"].value = "gpt3-175b"
        widget.controls["nodes"].value = 1
    assert widget.status == "ok" and widget.result is not None and widget.result.accepted_count == 0
    for key, value in CHANGES:
        before = widget.message
        widget.controls[key].value = value
        assert widget.status == "ok" and widget.result.accepted_count == 0
        assert widget.message != before, f"{key} = {value} left the message as it was"
    # the values the learner set are the ones the message states
    assert "Searched: 1 node of h800-8 (80 GiB per device), a global batch of 128 sequences of 2048 tokens" in (
        widget.message
    )
    assert "compute efficiency 30%" in widget.message and "inter-node 12.5 GB/s per GPU" in widget.message
    assert "while none passes, changing them changes no verdict" in widget.message


#: Starting points: nothing passes (training), the lesson's plan passes (training), serving passes, serving fails.
BASES = [
    {"model": "gpt3-175b", "nodes": 1},
    {"model": "llama3-8b", "nodes": 2},
    {"model": "llama3-8b", "nodes": 2, "mode": "serving"},
    {"model": "gpt3-175b", "nodes": 64, "mode": "serving"},
]


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize("base", BASES, ids=lambda base: "-".join(str(v) for v in base.values()))
def test_no_option_of_an_enabled_control_leaves_the_message_as_it_was(base: dict[str, object]) -> None:
    """From each starting point, every other option of every control the learner can use changes the message."""
    widget = WorkbenchWidget()
    with widget.hold_updates():
        for key, value in base.items():
            widget.controls[key].value = value
    start = {key: control.value for key, control in widget.controls.items()}
    silent = []
    for key, control in widget.controls.items():
        if control.disabled:
            continue
        options = [value for _, value in control.options] if hasattr(control, "options") else [not control.value]
        for value in options:
            if value == start[key]:
                continue
            before = widget.message
            control.value = value
            if widget.status != "ok" or widget.message == before:
                silent.append((key, value, widget.status))
            control.value = start[key]
    assert silent == []


@pytest.mark.usefixtures("zh")
def test_the_chinese_message_names_the_search_too() -> None:
    widget = WorkbenchWidget()
    with widget.hold_updates():
        widget.controls["model"].value = "gpt3-175b"
        widget.controls["nodes"].value = 1
    assert "本次搜索：1 个 h100-8 节点（每个设备 80 GiB），全局批 1024 条序列，每条 8192 个 token。" in widget.message
    assert "没有组合通过时，改动它们不会改变结论" in widget.message


@pytest.mark.usefixtures("en")
def test_serving_states_the_inter_node_bandwidth() -> None:
    widget = WorkbenchWidget()
    with widget.hold_updates():
        # Llama 3 8B on two H100 nodes: every layout shown fits in one node, so none uses the inter-node link
        widget.controls["model"].value = "llama3-8b"
        widget.controls["nodes"].value = 2
        widget.controls["mode"].value = "serving"
    # the H100 preset's NDR InfiniBand: 400 Gb/s per GPU = 50 GB/s one way
    assert "Inter-node 50.0 GB/s per GPU (one way)" in widget.message
    widget.controls["link_slowdown"].value = 16
    assert "Inter-node 3.1 GB/s per GPU (one way)" in widget.message  # 50 / 16 = 3.125


@pytest.mark.usefixtures("en")
def test_lesson_4s_composition_widget_states_the_order_and_the_structure() -> None:
    """From Megatron-Core's reference example (TP 2, PP 4, DP 2, coloured by TP) the order TP-CP-EP-PP-DP keeps every
    TP group ([0, 1], [2, 3], ...: TP varies fastest in both) and an MoE model with EP = 1 changes no count or check:
    the message and the figure stayed as they were."""
    widget = CompositionWidget()
    start = widget.message
    assert "Rank order TP-CP-EP-DP-PP (fastest first); model structure: dense." in start
    widget.controls["order"].value = "TP-CP-EP-PP-DP"
    assert widget.message != start and "Rank order TP-CP-EP-PP-DP (fastest first)" in widget.message
    before = widget.message
    widget.controls["model_kind"].value = "moe"
    assert widget.message != before and "model structure: MoE." in widget.message


# -- 2. a variable in a call is not an option to quote ------------------------------------------------------------


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("activation_gib", "answer = build_resource_ledger(state_gib, activation_gib, 2.0, 24.0).headroom_gib"),
        ("shape", "answer = f(shape)"),
        ("x", "answer = max([1, 2], key=x)"),
    ],
)
def test_a_variable_in_a_call_is_told_to_run_the_cells_above(name: str, line: str) -> None:
    hint = input_hint(NameError(f"name {name!r} is not defined", name=name), line)
    assert hint is not None
    assert "write it in quotes" not in hint and f"'{name}'" in hint
    assert "Run the cells above first" in hint


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize(
    ("name", "line", "fixed"),
    [
        ("B", "answer = B", "answer = 'B'"),
        ("EP", "answer = {'TP', EP}  # my answer", "answer = {'TP', 'EP'}"),
        ("TP", "answer = [('DP', TP)]", "answer = [('DP', 'TP')]"),
        ("PP", "answer = '流水线', PP", "answer = '流水线', 'PP'"),
    ],
)
def test_an_option_alone_is_still_told_to_go_in_quotes(name: str, line: str, fixed: str) -> None:
    hint = input_hint(NameError(f"name {name!r} is not defined", name=name), line)
    assert hint is not None and f"write it in quotes: {fixed}." in hint


# -- 3. no lesson cell needs a worked solution to have run --------------------------------------------------------


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a cell defines (assignments, imports, functions, classes, parameters) and the names it reads."""
    lines = [
        line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith(("%", "!")) else line
        for line in source.splitlines()
    ]
    defined: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else defined).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
    return defined, read - set(dir(builtins))


LESSONS = sorted(path.name for path in (ROOT / "notebooks" / "en").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("notebook", LESSONS)
def test_no_cell_reads_a_name_only_a_worked_solution_defines(notebook: str) -> None:
    """A learner may skip any worked solution (or solve the exercise and move on): every later cell, a lesson cell
    or another worked solution, must find its names in the lesson cells above it."""
    cells = json.loads((ROOT / "notebooks" / "en" / notebook).read_text(encoding="utf-8"))["cells"]
    in_lesson: set[str] = set()
    in_solutions: set[str] = set()
    needs = []
    for index, cell in enumerate(cells):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or "learner" in tags:
            continue
        defined, read = _names("".join(cell["source"]))
        missing = (read - defined - in_lesson) & in_solutions
        if missing:
            needs.append((index, sorted(missing)))
        (in_solutions if "solution" in tags else in_lesson).update(defined)
    assert needs == [], f"cells that read names only a worked solution defines: {needs}"


# -- 4. a number in quotes with its unit --------------------------------------------------------------------------


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize(
    ("exercise_id", "answer", "number", "unit"),
    [
        ("intro.device_gb", "25.77 GB", "25.77", "GB"),
        ("q2.allreduce_ms", "4.45 ms", "4.45", "ms"),
        ("lab.busbw_gib_s", "54.69 GiB/s", "54.69", "GiB/s"),
        ("q1.headroom_gib", "-1.47 GiB", "-1.47", "GiB"),
    ],
)
def test_a_number_with_its_unit_in_quotes_is_told_to_drop_both(
    exercise_id: str, answer: str, number: str, unit: str
) -> None:
    feedback = check(exercise_id, answer)
    assert feedback.status == "invalid"
    assert f"is in quotes with its unit {unit}" in feedback.message
    assert f"without quotes or unit, in the unit the question asks for: answer = {number}." in feedback.message
    assert check(exercise_id, float(number)).correct  # what the message says to write is right


@pytest.mark.usefixtures("zh")
def test_the_chinese_message_for_a_unit_in_quotes() -> None:
    feedback = check("intro.device_gb", "25.77 GB")
    assert "带着引号和单位 GB" in feedback.message and "answer = 25.77。" in feedback.message


@pytest.mark.usefixtures("en")
def test_a_stage_written_as_zero_2_is_told_to_write_the_number() -> None:
    feedback = check("q1.min_zero_stage", "ZeRO-2")
    assert feedback.status == "invalid" and "drop the quotes and write answer = 2." in feedback.message


# -- 5. the slips of 1.1, 1.3 and 5.1 -----------------------------------------------------------------------------


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize(
    ("exercise_id", "answer", "slip", "words"),
    [
        # ZeRO paper, Figure 1: ZeRO-2 at N_d = 64 is 2 x 7.5e9 + 14 x 7.5e9 / 64 bytes = 16.64 GB = 15.50 GiB
        ("q1.zero2_gib", (2 * 7.5e9 + 14 * 7.5e9 / 64) / 2**30, "paper_dp", "N_d = 64, printed above"),
        # 7.5e9 instead of 7.47e9 parameters: 16 x 7.5e9 / 8 bytes = 13.97 GiB, + 9.5625 GiB of activations
        # (34 x 2048 x 4096 bytes x 36 layers) + 2 GiB = 25.53 GiB on 24 GiB
        ("q1.headroom_gib", 24 - (2 * 7.5e9 / 2**30 + 34 * 2048 * 4096 * 36 / 2**30 + 2), "rounded_params", "7.47B"),
        # case 2: 2,684,354,560 parameters x 2 bytes = 5 GiB (16 bytes: 40 GiB)
        ("matrix.case2_state_gib", 2_684_354_560 * 2 / 2**30, "weights_only", "16 bytes per parameter"),
        # 10 us x 25 GiB/s = 268,435.456 bytes = 262.144 KiB (the answer is 0.256 MiB)
        ("q2.crossover_mib", 10e-6 * 25 * 2**30 / 1024, "kib_or_bytes", "that is KiB or bytes"),
        ("q2.crossover_mib", 10e-6 * 25 * 2**30, "kib_or_bytes", "that is KiB or bytes"),
        # 24 GiB = 24 x 2^30 = 25,769,803,776 bytes (the answer is 25.77 GB)
        ("intro.device_gb", 24 * 2**30, "bytes", "divide the bytes by 10^9"),
    ],
)
def test_the_slip_is_named(exercise_id: str, answer: float, slip: str, words: str) -> None:
    feedback = check(exercise_id, round(answer, 2))
    assert feedback.status == "incorrect" and feedback.slip == slip, feedback.message
    assert words in feedback.message


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize(
    ("exercise_id", "answer", "slip", "words"),
    [
        # the ZeRO paper's stages: 0 (plain DP), 1 (optimizer state), 2 (+ gradients), 3 (+ parameters)
        ("q1.min_zero_stage", 4, "no_such_stage", "four stages, 0 to 3"),
        ("q1.min_zero_stage", -1, "no_such_stage", "four stages, 0 to 3"),
        # the recording's command: --ranks 2, so ranks 0 and 1
        ("lab.slow_rank", 2, "no_such_rank", "no rank with that number"),
        # 3.3: the divisors d of 64 with 64 / d a whole number, micro-batch 1 (section 8.1's printed line), not 4
        ("q3.dp_degrees", (1, 2, 4, 8, 16, 32, 64), "micro_batch_1", "the list for a micro-batch of 1"),
    ],
)
def test_a_stage_or_rank_that_does_not_exist_is_named(exercise_id: str, answer: object, slip: str, words: str) -> None:
    feedback = check(exercise_id, answer)
    assert feedback.status == "incorrect" and feedback.slip == slip, feedback.message
    assert words in feedback.message
