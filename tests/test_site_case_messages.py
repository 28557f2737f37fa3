"""The website build moves a widget's cases out of the page's first load (tools/site/finish.py), on a small page
made here: each case's figure (``externalize_case_figures``) and each verdict box but the page's own
(``externalize_case_messages``) become files the page's script loads when the learner picks that case. The same
steps on the real lesson 9 page, in a browser: tests/test_site_browser.py."""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path

import pytest

from coursekit.widgets.frames import expand_styles, share_styles

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "site"))

import finish  # noqa: E402

#: Two tiny PNGs (any bytes starting with the signature do: the step moves bytes, it decodes nothing).
PNG_A = b"\x89PNG\r\n\x1a\n" + b"a" * 40
PNG_B = b"\x89PNG\r\n\x1a\n" + b"b" * 40
PASS = '<div class="coursekit-ok coursekit-pass" style="border-left:4px solid #2e7d32;"><b>Pass: </b>{}</div>'
FAIL = '<div class="coursekit-ok coursekit-fail" style="border-left:4px solid #c62828;"><b>Fail: </b>{}</div>'
FRAMES = re.compile(r'<script type="application/json" class="ck-live-frames">(.*?)</script>', re.S)


def _block(replay: dict[str, object], shown: str) -> str:
    """A widget's static block as coursekit.widgets.LessonWidget.static_bundle writes it."""
    data = json.dumps(replay, ensure_ascii=False).replace("</", "<\\/")
    return (
        '<div class="ck-static"><p class="ck-static-note">note</p><ul class="ck-static-controls">'
        "<li>nodes: <b>16</b></li></ul>"
        f'<script type="application/json" class="ck-live-frames">{data}</script>'
        f'<div class="ck-static-message">{shown}</div>'
        '<img class="ck-static-figure" src="data:image/png;base64,AAAA" width="10" height="10" alt="a figure"></div>'
    )


def _page(lang: str) -> tuple[str, list[str], dict[str, str], str]:
    """A page with a workbench (three cases: the one shown, and two with one box and one figure) and a slider;
    the inline boxes, the shared styles and the slider's block."""
    inline = [
        PASS.format("shown, 16 nodes"),
        FAIL.format("nothing fits &lt;1 node&gt;"),
        FAIL.format("nothing fits &lt;1 node&gt;"),
    ]
    shared, styles = share_styles(inline)
    pngs = [PNG_A, PNG_B, PNG_B]
    cases = [
        {
            "name": f"case {i}",
            "controls": [["nodes", "16"]],
            "message": shared[i],
            "png": base64.b64encode(pngs[i]).decode(),
            "alt": "a figure",
        }
        for i in range(3)
    ]
    workbench = _block({"label": "Lesson case", "live": "Run it:", "presets": cases, "styles": styles}, inline[0])
    one = PASS.format("one node")
    (frame,), frame_styles = share_styles([one])
    frames = [{"value": "1", "message": frame, "png": base64.b64encode(PNG_A).decode(), "alt": "a figure"}]
    slider = _block({"control": 0, "label": "nodes", "frames": frames, "styles": frame_styles}, one)
    return f'<html lang="{lang}"><body>{workbench}<p>text</p>{slider}</body></html>', inline, styles, slider


def _finished(text: str, page: Path, out: Path) -> str:
    text, figures = finish.externalize_case_figures(text, page, out)
    assert figures == 3  # the workbench's; the slider's stay inline
    return text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_case_box_but_the_pages_own_moves_to_a_file(tmp_path: Path, lang: str) -> None:
    out = tmp_path / "site"
    page = out / "notebooks" / lang / "09_workbench.html"
    text, inline, styles, slider = _page(lang)
    text = _finished(text, page, out)
    text, moved = finish.externalize_case_messages(text, page, out)

    assert moved == 2
    workbench, after = (json.loads(data) for data in FRAMES.findall(text))
    shown, *others = workbench["presets"]
    assert shown["message_shown"] is True and "message" not in shown and "message_src" not in shown
    assert all("message" not in case for case in others)
    # one box, one file: named by its path from the page, a hash of the box, under _images as the figures
    (src,) = {case["message_src"] for case in others}
    assert src.startswith("../../_images/ck-case-") and src.endswith(".js")
    files = sorted(p.name for p in (out / "_images").glob("ck-case-*.js"))
    assert files == [Path(src).name]
    # the file hands the page's script the box, under the key the script reads from its name
    script = (page.parent / src).resolve().read_bytes()
    assert script.isascii()
    call = re.fullmatch(r'ckCaseMessage\(("[0-9a-f]{20}"), (".*")\);\n', script.decode("ascii"), re.S)
    assert call is not None
    assert json.loads(call.group(1)) == Path(src).name.removeprefix("ck-case-").removesuffix(".js")
    box = json.loads(call.group(2))
    assert 'data-cks="' in box and "style=" not in box  # the shared styles stay shared ...
    assert expand_styles(box, workbench["styles"]) == inline[1]  # ... and the page keeps them
    assert workbench["styles"] == styles
    # the first load carries no other case's box, in any form
    for form in (inline[1], box, json.dumps(box, ensure_ascii=False)[1:-1].replace("</", "<\\/")):
        assert form not in text
    assert "nothing fits" not in text
    # what the box says while a file loads, or if it does not, in the page's language
    assert (workbench["loading"], workbench["failed"]) == (
        finish.CASE_LOADING.render(lang),
        finish.CASE_FAILED.render(lang),
    )
    assert bool(re.search(r"[\u4e00-\u9fff]", workbench["failed"])) == (lang == "zh")
    # a slider's states are untouched: its block is as the widget wrote it
    assert slider in text and "message" in after["frames"][0] and "loading" not in after


def test_a_page_without_cases_is_unchanged(tmp_path: Path) -> None:
    slider = _page("en")[3]
    plain = f'<html lang="en"><body>{slider}</body></html>'
    assert finish.externalize_case_messages(plain, tmp_path / "page.html", tmp_path) == (plain, 0)
    assert not (tmp_path / "_images").exists()


def test_a_box_two_pages_share_is_written_once(tmp_path: Path) -> None:
    out = tmp_path / "site"
    sources = set()
    for lang in ("zh", "en"):
        page = out / "notebooks" / lang / "09_workbench.html"
        text, moved = finish.externalize_case_messages(_finished(_page(lang)[0], page, out), page, out)
        assert moved == 2
        sources |= {case.get("message_src") for case in json.loads(FRAMES.findall(text)[0])["presets"]}
    assert len(list((out / "_images").glob("ck-case-*.js"))) == 1
    assert sources == {None, "../../_images/" + next((out / "_images").glob("ck-case-*.js")).name}
