"""The Binder image's Chinese font (fonts-wqy-microhei, 1.6 MB) has a glyph for every Chinese character the
course draws: every zh text in coursekit's message catalog (figure labels, verdicts, widget controls) and
every Chinese character of the glossary. Read from the font's own character map (fontTools).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import coursekit
from coursekit import i18n

ROOT = Path(__file__).resolve().parents[1]
#: Where Debian's fonts-wqy-microhei puts the font (binder/apt.txt installs it; so does .ci/run).
WQY_MICROHEI = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")


def _course_chinese() -> set[str]:
    for module in pkgutil.walk_packages(coursekit.__path__, "coursekit."):
        if ".lab." in module.name or module.name.endswith("conftest"):
            continue  # the lab's workers need PyTorch; their texts are registered by coursekit.lab itself
        importlib.import_module(module.name)
    texts = [entry["zh"] for entry in i18n.catalog().values()]
    from coursekit.glossary import GLOSSARY

    texts += [e.zh + e.definition.zh for e in GLOSSARY]
    return set(CJK.findall("".join(texts)))


def _cmap(path: Path) -> set[int]:
    from fontTools.ttLib import TTCollection

    collection = TTCollection(str(path))
    return set(collection.fonts[0].getBestCmap())


def test_binder_installs_this_font() -> None:
    assert (ROOT / "binder" / "apt.txt").read_text(encoding="utf-8").split() == ["fonts-wqy-microhei"]


@pytest.mark.skipif(not WQY_MICROHEI.exists(), reason="apt-get install fonts-wqy-microhei")
def test_wqy_microhei_has_every_chinese_character_of_the_course() -> None:
    chars = _course_chinese()
    assert len(chars) > 300  # the catalog really holds the course's Chinese
    cmap = _cmap(WQY_MICROHEI)
    missing = sorted(c for c in chars if ord(c) not in cmap)
    assert not missing, "".join(missing)


@pytest.mark.skipif(not WQY_MICROHEI.exists(), reason="apt-get install fonts-wqy-microhei")
def test_a_missing_glyph_would_be_found() -> None:
    cmap = _cmap(WQY_MICROHEI)
    assert ord("\U0001f600") not in cmap  # an emoji: this font has none, so the check above can fail
