"""Left-overs 1 and 7 of tests/test_leftovers27.py in Chromium, in JupyterLab with its Chinese UI:

1. Exercise 7.4 typed as a newcomer types it: ``answer = 5 7`` is called ambiguous with the lines it may mean,
   ``answer = rank 1`` is shown ``answer = 1``, ``answer = 0.16（16%）`` is shown ``answer = 0.16`` (a line Python
   runs), and the option copied with its description, ``'mb2（微批次改成 2）'``, is recognised as the option 'mb2'
   and shown ``answer = 'mb2'``.
7. ModelScope runs the lessons in the image's own ``python3`` kernel, which does not load the course's IPython
   extension: after a kernel restart an exercise cell run first met a bare ``NameError: name 'check' is not
   defined``. The test starts JupyterLab with such a kernel (a kernel spec without ``--ext``, an empty IPython
   folder) and sees the bare error; then writes the startup file of ``tools/install_kernel.py --startup`` (the step
   the README's ModelScope section now has) into that IPython folder, starts the same kernel again, and sees the
   line of help, in Chinese, under the exercise cell run first, both for the NameError and for a SyntaxError.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import install_kernel
import jupyter_browser

from tests.browser.conftest import lesson_page, running_lab
from tests.browser.test_learner_review24 import _cell_index, _type_first_line
from tests.browser.test_learner_review25 import LAPTOP

EXERCISE = 'check("eff.best_change", answer)'
HELP = ".coursekit-input-help"


def test_lesson_7s_exercise_typed_with_four_slips(zh_lab: jupyter_browser.LabServer, browser: Any) -> None:
    with lesson_page(browser, zh_lab, "zh/07_compute_efficiency.ipynb", run_all_s=300, **LAPTOP) as lesson:
        index = _cell_index(lesson.page, EXERCISE)
        spaced = _type_first_line(lesson, index, "answer = 5 7")
        assert "SyntaxError" in spaced and "这一行有歧义" in spaced
        assert "answer = 5、answer = 7 还是 answer = 57？" in spaced
        worded = _type_first_line(lesson, index, "answer = rank 1")
        assert "数前面有文字 'rank'" in worded and worded.rstrip().endswith("只写数：answer = 1")
        noted = _type_first_line(lesson, index, "answer = 0.16（16%）")
        assert "括号里的说明（16%）" in noted and "答案只写一个数：answer = 0.16" in noted
        assert "answer = 0.16(16%)" not in noted  # the old "line retyped", which Python refuses too
        described = _type_first_line(lesson, index, "answer = 'mb2（微批次改成 2）'")
        assert described.startswith("无法检查。") and "这是选项 'mb2' 连同题目里写在它旁边的说明" in described
        assert described.rstrip().endswith("答案只写选项本身：answer = 'mb2'")
        assert _type_first_line(lesson, index, "answer = 'mb2'").startswith("正确。")


@pytest.fixture
def platform_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``python3`` kernel spec as a platform's image has it (no ``--ext``), found before the course's, and an empty
    IPython folder for its kernels; the IPython folder."""
    spec = tmp_path / "jupyter" / "kernels" / install_kernel.KERNEL_NAME
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec.joinpath("kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "Python 3", "language": "python"}), encoding="utf-8"
    )
    ipython_dir = tmp_path / "ipython"
    ipython_dir.mkdir()
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("IPYTHONDIR", str(ipython_dir))
    return ipython_dir


def _first_exercise_run(browser: Any, line: str) -> tuple[str, int]:
    """Open lesson 7 in a new JupyterLab (the environment as the test set it), run exercise 7.4's cell first with
    ``line`` typed, as after a kernel restart; its output text and the number of lines of help it shows."""
    with (
        running_lab(settings=jupyter_browser.make_lab_settings("zh")) as server,
        lesson_page(browser, server, "zh/07_compute_efficiency.ipynb", **LAPTOP) as lesson,
    ):
        index = _cell_index(lesson.page, EXERCISE)
        shown = _type_first_line(lesson, index, line)
        helps = lesson.page.locator(".jp-Notebook .jp-Cell").nth(index).locator(HELP).count()
        return shown, int(helps)


def test_a_platform_kernel_gives_the_line_of_help_through_the_startup_file(platform_kernel: Path, browser: Any) -> None:
    # the platform's kernel alone: Python's bare NameError (the cells above have not run)
    bare, helps = _first_exercise_run(browser, "answer = 'mb2'")
    assert "NameError" in bare and "check" in bare and helps == 0
    assert "Python 找不到名字" not in bare
    # the README's step for ModelScope: the startup file in the IPython folder the kernel reads
    written = install_kernel.install_startup(platform_kernel)
    assert written.parent == platform_kernel / "profile_default" / "startup"
    helped, helps = _first_exercise_run(browser, "answer = 'mb2'")
    assert "NameError" in helped and helps == 1
    assert "Python 找不到名字 'check'（NameError）" in helped and "先从本课开头依次运行前面的单元格" in helped
    syntax, helps = _first_exercise_run(browser, "answer = mb2（微批次改成 2）")
    assert "SyntaxError" in syntax and helps == 1 and "answer = 'mb2'" in syntax
