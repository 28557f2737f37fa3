"""coursekit: the analytical tools of the parallel-strategy course.

Q1 capacity ledger, Q2 communication ledger, Q3 hard gates, Q4 composition
checks, the pipeline bubble and schedule simulator, scaling efficiency and the
S18 selection matrix. Every number the course shows is computed here.

Submodules load on first use, so ``import coursekit`` stays fast and never
imports matplotlib or ipywidgets (those live in ``coursekit.widgets`` and
``coursekit.plotting``, which the lessons import).

>>> import coursekit
>>> coursekit.get_language() in ("zh", "en")
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .i18n import Reason, Text, get_language, set_language, tr

__version__ = "0.1.0"

# Public name -> submodule that defines it. Loaded lazily (PEP 562).
_EXPORTS: dict[str, str] = {}
for _module, _names in {
}.items():
    for _name in _names:
        _EXPORTS[_name] = _module

__all__ = ["Reason", "Text", "get_language", "set_language", "tr", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'coursekit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - static typing only
    pass
