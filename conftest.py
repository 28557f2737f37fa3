"""Shared pytest set-up: every test and doctest starts in English."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import coursekit


@pytest.fixture(autouse=True)
def _english_by_default() -> Iterator[None]:
    previous = coursekit.get_language()
    coursekit.set_language("en")
    yield
    coursekit.set_language(previous)
