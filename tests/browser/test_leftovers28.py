"""Left-over 2 of tests/test_leftovers28.py in Chromium: lesson 9's workbench, switched to serving, greys three
controls (weights trained, fraction of peak, comm. overlap) and its note named two of them ("the achievable-fraction
and overlap assumptions"). The test reads, as the learner sees them, which controls are greyed out (disabled) and
their labels, and the controls the note names in quotes: the same set, zh and en; back in training nothing is greyed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import choose, scratch_notebook

_QUOTED = {"zh": re.compile(r"“([^”]+)”"), "en": re.compile(r'"([^"]+)"')}
_SERVING = {"zh": "服务", "en": "serving"}
_TRAINING = {"zh": "训练", "en": "training"}
_NOTE = {
    "zh": "服务估算不读取这几个控件，服务模式下它们变灰：",
    "en": "The serving estimate does not read these controls",
}


def _greyed(widget: Any) -> list[str]:
    """The labels of the widget's controls whose input the learner cannot use (disabled), as shown."""
    return [
        str(widget.locator(".ck-control-" + key).first.locator(".widget-label").first.inner_text()).strip()
        for key in widget.evaluate(
            """(el) => [...el.querySelectorAll('[class*="ck-control-"]')]
                .filter((c) => c.querySelector('select:disabled, input:disabled, button:disabled'))
                .map((c) => [...c.classList].find((n) => n.startsWith('ck-control-')).slice('ck-control-'.length))"""
        )
    ]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_serving_note_names_exactly_the_greyed_controls(browser: Any, tmp_path: Path, lang: str) -> None:
    sources = [
        f"import coursekit\ncoursekit.set_language('{lang}')\n"
        "from coursekit.widgets.workbench import WorkbenchWidget\nWorkbenchWidget()"
    ]
    with scratch_notebook(browser, tmp_path, sources) as page:
        widget = page.page.locator(".ck-widget").first
        assert _greyed(widget) == []  # training: every control is live
        shown = choose(page.page, widget, "mode", _SERVING[lang])
        text = str(widget.inner_text()).replace("\xa0", " ")
        assert "Traceback" not in text
        greyed = _greyed(widget)
        assert len(greyed) == 3, greyed  # weights trained, fraction of peak, comm. overlap
        start = text.index(_NOTE[lang])
        # the note ends at its full stop after the last quoted label ("comm. overlap" has a dot of its own)
        note = text[start : text.index("”。" if lang == "zh" else '".', start) + 1]
        named = _QUOTED[lang].findall(note)
        assert sorted(named) == sorted(label.rstrip(":：") for label in greyed), (named, greyed, shown[:300])
        # the former note named two of the three
        assert "两项假设" not in text and "achievable-fraction and overlap assumptions" not in text
        choose(page.page, widget, "mode", _TRAINING[lang])
        assert _greyed(widget) == []
