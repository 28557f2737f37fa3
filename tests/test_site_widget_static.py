"""A widget's static fallback (LessonWidget.static_bundle): what the course website and any page without a
live kernel show — the PNG of the current figure, and HTML stating the control values it was drawn for.
A front end with a widget manager still gets the live view from the same display.
"""

from __future__ import annotations

import base64
import html
import json
import re
from typing import Any

import ipywidgets
import pytest
from matplotlib.figure import Figure

import coursekit
from coursekit.i18n import Text, register
from coursekit.plotting.png import palette_png
from coursekit.widgets import LessonWidget, checkbox, dropdown, slider
from coursekit.widgets.frames import expand_styles

register(
    {
        "static_demo.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"},
        "static_demo.link": {"zh": "链路", "en": "link"},
        "static_demo.sp": {"zh": "序列并行", "en": "sequence parallelism"},
    }
)


class Demo(LessonWidget[float]):
    def __init__(self) -> None:
        super().__init__(
            {
                "tp": slider("static_demo.tp", value=4, min=1, max=8, step=1),
                "link": dropdown("static_demo.link", [(Text(zh="节点内", en="intra-node"), 1.0)], value=1.0),
                "sp": checkbox("static_demo.sp", value=True),
            }
        )

    def setup(self, fig: Figure) -> None:
        ax = fig.add_subplot()
        ax.set_ylim(0, 10)
        self.bar = ax.bar([0], [0.0])[0]

    def compute(self, **values: Any) -> float:
        if values["tp"] > 6:
            raise ValueError(f"tp = {values['tp']}: must be at most 6")
        return float(values["tp"]) * values["link"]

    def draw(self, result: float) -> None:
        self.bar.set_height(result)

    def describe(self, result: float) -> str:
        return f"<b>{result}</b>"


@pytest.fixture(autouse=True)
def _restore_language() -> Any:
    old = coursekit.get_language()
    yield
    coursekit.set_language(old)


def _pixels(png: bytes) -> bytes:
    import io

    from PIL import Image

    return Image.open(io.BytesIO(png)).convert("RGB").tobytes()


def _controls(markup: str) -> list[tuple[str, str]]:
    return [(html.unescape(k), html.unescape(v)) for k, v in re.findall(r"<li>(.+?): <b>(.*?)</b></li>", markup)]


def test_static_bundle_states_each_control_value_in_the_current_language() -> None:
    coursekit.set_language("zh")
    widget = Demo()
    bundle = widget.static_bundle(live=True)
    assert _controls(bundle["text/html"]) == [("张量并行度 TP", "4"), ("链路", "节点内"), ("序列并行", "是")]
    assert "预先算好的状态" in bundle["text/html"]  # the page replays the states below (a live slider)
    assert "静态图" in widget.static_bundle(live=False)["text/html"]
    assert base64.b64decode(bundle["image/png"]) == widget.image.value  # the very figure the widget shows
    static = widget.static_bundle(live=False)
    assert f'src="data:image/png;base64,{static["image/png"]}"' in static["text/html"]
    # beside its replayed states, the page shows the figure as it shows them: the same pixels in a palette PNG
    (src,) = re.findall(r'<img class="ck-static-figure" src="data:image/png;base64,([^"]+)"', bundle["text/html"])
    assert _pixels(base64.b64decode(src)) == _pixels(palette_png(widget.image.value))
    assert "<b>4.0</b>" in bundle["text/html"]  # the verdict is beside it


def test_static_bundle_follows_the_controls() -> None:
    coursekit.set_language("en")
    widget = Demo()
    first = widget.static_bundle()
    widget.controls["tp"].value = 2
    widget.controls["sp"].value = False
    second = widget.static_bundle()
    assert _controls(second["text/html"]) == [
        ("tensor-parallel degree TP", "2"),
        ("link", "intra-node"),
        ("sequence parallelism", "no"),
    ]
    assert second["image/png"] != first["image/png"]


def test_invalid_values_show_the_message_not_a_traceback() -> None:
    coursekit.set_language("en")
    widget = Demo()
    widget.controls["tp"].value = 7
    markup = widget.static_bundle()["text/html"]
    assert "must be at most 6" in markup and "Traceback" not in markup


def test_display_keeps_the_live_view_and_adds_the_static_one() -> None:
    widget = Demo()
    bundle = widget._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.view.model_id
    assert {"text/html", "image/png", "text/plain"} <= set(bundle)
    assert isinstance(widget.view, ipywidgets.VBox)


def test_shared_styles_are_written_once_and_expand_to_the_original() -> None:
    """Two messages that repeat two styles (one single-quoted, as the workbench's table headers are): each style is
    listed once, and expanding gives back the messages character for character."""
    from coursekit.widgets.frames import share_styles

    cell = "padding:1px 6px;border-bottom:1px solid #ddd"
    messages = [
        f'<table><tr><th style=\'{cell};text-align:left\'>#</th><td style="{cell}">1</td><td style="{cell}">2</td>',
        f'<div class="x" style="{cell}">3</div><p>style="not an attribute"</p>',
    ]
    shared, styles = share_styles(messages)
    assert len(styles) == 2 and sorted(len(v) for v in styles.values()) == sorted(
        [len(f' style="{cell}"'), len(f" style='{cell};text-align:left'")]
    )
    assert [expand_styles(m, styles) for m in shared] == messages
    assert sum(len(m) for m in shared) < sum(len(m) for m in messages)
    assert 'class="x" data-cks=' in shared[1] and '<p>style="not an attribute"</p>' in shared[1]


def _frames(markup: str) -> dict[str, Any]:
    (data,) = re.findall(r'<script type="application/json" class="ck-live-frames">(.*?)</script>', markup, re.S)
    replay: dict[str, Any] = json.loads(data)
    return replay


def test_live_frames_are_the_widgets_own_states_on_the_main_controls_grid() -> None:
    coursekit.set_language("en")
    widget = Demo()
    replay = _frames(widget.static_bundle(live=True)["text/html"])
    assert replay["control"] == 0 and replay["label"] == "tensor-parallel degree TP"
    frames = replay["frames"]
    assert [f["value"] for f in frames] == [str(v) for v in range(1, 9)]  # the slider's grid: 1..8 by 1
    for value, frame in zip(range(1, 9), frames, strict=True):
        fresh = Demo()  # what the notebook shows at that value
        fresh.controls["tp"].value = value
        # the page's script turns the shared style references back into the notebook's inline styles
        assert expand_styles(frame["message"], replay["styles"]) == fresh.message_html.value
        assert " style=" not in frame["message"]
        assert base64.b64decode(frame["png"]).startswith(b"\x89PNG")
    assert "must be at most 6" in frames[-1]["message"] and "Traceback" not in frames[-1]["message"]
    assert widget.controls["tp"].value == 4 and widget.status == "ok"  # put back as it was


def test_frames_spread_over_a_long_grid_keep_the_ends_and_the_current_value() -> None:
    from coursekit.widgets.frames import MAX_FRAMES, control_steps

    steps = control_steps(ipywidgets.IntSlider(value=37, min=0, max=100, step=1))
    values = [v for _, v in steps]
    assert len(values) <= MAX_FRAMES and values[0] == 0 and values[-1] == 100 and 37 in values
    assert values == sorted(set(values))


def test_frames_are_recorded_only_where_the_site_build_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    from coursekit.widgets import FRAMES_ENV

    monkeypatch.delenv(FRAMES_ENV, raising=False)
    assert "ck-live-frames" not in Demo().static_bundle()["text/html"]  # JupyterLab: the live view only
    monkeypatch.setenv(FRAMES_ENV, "1")
    assert "ck-live-frames" in Demo().static_bundle()["text/html"]


class Cases(Demo):
    """The demo widget with named cases, as a widget too large to precompute offers them."""

    presets = (
        (Text(zh="起点", en="start"), {}),
        (Text(zh="TP 2，无序列并行", en="TP 2 without SP"), {"tp": 2, "sp": False}),
        (Text(zh="TP 7", en="TP 7"), {"tp": 7}),
    )


def test_preset_frames_are_the_widgets_own_states_for_each_case() -> None:
    coursekit.set_language("en")
    widget = Cases()
    bundle = widget.static_bundle(live=True)["text/html"]
    replay = _frames(bundle)
    assert "Precomputed cases" in bundle and replay["label"] == "Lesson case" and "live" in replay["live"]
    cases = replay["presets"]
    assert [c["name"] for c in cases] == ["start", "TP 2 without SP", "TP 7"]
    for (_, changes), case in zip(Cases.presets, cases, strict=True):
        fresh = Demo()  # what the notebook shows with those controls set by hand
        for name, value in changes.items():
            fresh.controls[name].value = value
        assert expand_styles(case["message"], replay["styles"]) == fresh.message_html.value
        labels = [control.description for control in fresh.controls.values()]
        assert case["controls"] == [list(row) for row in zip(labels, _shown(fresh), strict=True)]
        assert base64.b64decode(case["png"]).startswith(b"\x89PNG") and case["alt"]
    assert cases[1]["controls"][0] == ["tensor-parallel degree TP", "2"] and cases[1]["controls"][2][1] == "no"
    assert cases[2]["controls"][2][1] == "yes"  # each case starts from the widget's start, not from the last case
    assert "must be at most 6" in cases[2]["message"]
    assert (widget.controls["tp"].value, widget.controls["sp"].value, widget.status) == (4, True, "ok")


def _shown(widget: LessonWidget[Any]) -> list[str]:
    from coursekit.widgets.frames import shown_value

    return [shown_value(control) for control in widget.controls.values()]


def test_static_figure_is_shown_at_the_figures_size_from_twice_the_pixels() -> None:
    widget = Demo()  # LessonWidget's figure: 6.0 x 3.2 inches, shown at 100 CSS px per inch, drawn at 2x
    markup = widget.static_bundle(live=False)["text/html"]
    assert 'width="600" height="320"' in markup
    png = base64.b64decode(widget.static_bundle(live=False)["image/png"])
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (1200, 640)
