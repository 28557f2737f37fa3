"""Shared pytest set-up: every test and doctest starts in English."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import coursekit

# Lesson sources and test fixtures are data, not modules to import for doctests.
collect_ignore_glob = ["tests/data/*", "notebooks/src/*"]


@pytest.fixture(autouse=True)
def _english_by_default() -> Iterator[None]:
    previous = coursekit.get_language()
    coursekit.set_language("en")
    yield
    coursekit.set_language(previous)
