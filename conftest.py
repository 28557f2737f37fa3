"""Shared pytest set-up: every test and doctest starts in English."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

import coursekit

# No per-example deadline: on a shared 2-core machine one slow example is load, not a bug.
# Hangs are caught by the fuzz suite's per-call guard; timings belong in benchmarks/.
settings.register_profile("coursekit", deadline=None)
settings.load_profile("coursekit")

# Lesson sources and test fixtures are data, not modules to import for doctests.
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
