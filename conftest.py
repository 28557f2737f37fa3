"""Shared pytest set-up: every test and doctest starts in English."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import coursekit

# Lesson sources and test fixtures are data, not modules to import for doctests. A learner's own copy
# kept by the notebook builder (NN_slug.mine.ipynb, .mine-2 ...) is their work in progress, not a lesson:
# `make test` must not run it under nbval.
collect_ignore_glob = ["tests/data/*", "notebooks/src/*", "notebooks/*/*.mine.ipynb", "notebooks/*/*.mine-*.ipynb"]


@pytest.fixture(autouse=True)
def _english_by_default() -> Iterator[None]:
    previous = coursekit.get_language()
    coursekit.set_language("en")
    yield
    coursekit.set_language(previous)
