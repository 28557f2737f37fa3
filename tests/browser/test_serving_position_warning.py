"""Lesson 10's serving widget in real JupyterLab: a request longer than GPT-2's learned position table is a warning.

GPT-2 small learns one embedding per position for 1024 positions (Radford et al. 2019, n_ctx = 1024, hidden 768). A
request holds its prompt and then its output, so the widget's default 2048-token prompt with 256 output tokens needs
2304 positions: (2048 + 256 - 1024) x 768 = 983,040 parameters the model does not have, worked by hand. The widget
says so as a warning in the learner's language; a short request (128 + 16 tokens) passes. A file-level test sees the
widget's verdict; this one sees what the learner sees after choosing the model with the mouse.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import choose, press
from .test_lessons_walkthrough2 import _message

EXTRA_PARAMS = (2048 + 256 - 1024) * 768


@pytest.mark.parametrize(
    ("notebook", "warning", "passes", "words"),
    [
        ("zh/10_serving.ipynb", "警告", "通过", "1024 个位置"),
        ("en/10_serving.ipynb", "Warning", "Pass", "1024 positions"),
    ],
)
def test_a_request_past_gpt2s_position_table_warns_on_screen(
    open_lesson: Any, notebook: str, warning: str, passes: str, words: str
) -> None:
    assert EXTRA_PARAMS == 983_040
    page = open_lesson(notebook).page
    widget = page.locator(".ck-widget").first
    widget.scroll_into_view_if_needed()
    assert _message(widget).startswith(passes), _message(widget)  # Llama 3 70B, rotary positions: no table
    choose(page, widget, "tp", "4")  # GPT-2 small's 12 heads do not split over TP 8
    message = choose(page, widget, "model", "gpt2-small")
    assert message.startswith(warning), message
    assert f"{EXTRA_PARAMS:,}" in message and words in message and "Traceback" not in message, message
    assert widget.locator(".ck-message .coursekit-warning").count() == 1  # the message; the summary line repeats it
    press(page, widget, "prompt_tokens", "Home")  # 128 prompt tokens
    message = press(page, widget, "output_tokens", "Home")  # + 16 output tokens: inside the table
    assert message.startswith(passes) and f"{EXTRA_PARAMS:,}" not in message, message
