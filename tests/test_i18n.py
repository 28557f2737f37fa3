"""The catalog: every message in both languages, with the same placeholders and the same numbers."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import coursekit
from coursekit import i18n

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _import_all_submodules() -> None:
    """Import every coursekit submodule that needs no optional extra, so all messages are registered."""
    for info in pkgutil.walk_packages(coursekit.__path__, prefix="coursekit."):
        if info.name.startswith("coursekit.lab"):
            continue  # needs the optional PyTorch extra; covered by tests/test_lab.py
        importlib.import_module(info.name)


def test_every_message_has_both_languages_with_the_same_placeholders() -> None:
    _import_all_submodules()
    entries = i18n.catalog()
    assert entries, "the catalog is empty"
    for key, texts in entries.items():
        assert set(texts) == set(i18n.LANGUAGES), key
        assert texts["zh"].strip() and texts["en"].strip(), key
        assert i18n.placeholders(texts["zh"]) == i18n.placeholders(texts["en"]), key
        # a pure template ("{status}：{label}") may have no ideograph, but never the English text itself
        assert CJK.search(texts["zh"]) or texts["zh"] != texts["en"], f"{key}: the zh text is not translated"
        # Chinese in English text only as the link to the Chinese version
        assert not CJK.search(texts["en"].replace("[中文版]", "")), f"{key}: the en text has Chinese in it"
        numbers = [sorted(NUMBER.findall(re.sub(r"\{[^{}]*\}", "", texts[lang]))) for lang in i18n.LANGUAGES]
        assert numbers[0] == numbers[1], f"{key}: the two languages state different numbers {numbers}"


def test_register_refuses_a_message_in_one_language_only() -> None:
    with pytest.raises(ValueError, match="no text for"):
        i18n.register({"test.only_english": {"en": "only English"}})
    assert "test.only_english" not in i18n.catalog()


def test_register_refuses_conflicting_texts() -> None:
    i18n.register({"test.same": {"zh": "同", "en": "same"}})
    i18n.register({"test.same": {"zh": "同", "en": "same"}})  # idempotent
    with pytest.raises(ValueError, match="twice"):
        i18n.register({"test.same": {"zh": "不同", "en": "different"}})


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "tp = 0: must be >= 1."), ("zh", "tp = 0：必须 >= 1。")],
)
def test_tr_follows_the_current_language(lang: str, expected: str) -> None:
    coursekit.set_language(lang)
    assert coursekit.tr("validate.ge", name="tp", value=0, low=1) == expected


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("fr", ValueError, "lang = 'fr': must be one of 'zh', 'en'."),
        (1, TypeError, "lang = 1: must be a string, not int."),
        (None, TypeError, "lang = None: must be a string, not NoneType."),
    ],
)
def test_set_language_rejects_unknown_languages(value: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        coursekit.set_language(value)  # type: ignore[arg-type]
    assert str(info.value) == message
    assert coursekit.get_language() == "en"


def test_set_language_accepts_case_and_spaces() -> None:
    coursekit.set_language(" ZH ")
    assert coursekit.get_language() == "zh"


def test_reason_message_follows_the_language_when_read() -> None:
    reason = i18n.Reason("ranks", "validate.ge", {"name": "ranks", "value": 0, "low": 1})
    assert reason.message == "ranks = 0: must be >= 1."
    coursekit.set_language("zh")
    assert reason.message == "ranks = 0：必须 >= 1。"
    assert reason.render("en") == "ranks = 0: must be >= 1."
    assert str(reason).startswith("[ranks] ")


def test_text_renders_by_language() -> None:
    text = i18n.Text(zh="流水线气泡", en="pipeline bubble")
    assert str(text) == "pipeline bubble"
    coursekit.set_language("zh")
    assert str(text) == "流水线气泡"
    assert i18n.pick("甲", "A") == "甲"
