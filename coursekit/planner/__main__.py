"""``python -m coursekit.planner ARGS``: the same command line as ``python -m coursekit plan ARGS``.

The decision workbench's documented entry point is ``python -m coursekit plan``; this module runs exactly that
command (its parser, its ``--lang``, its ``--mode serving`` and its exit statuses), so ``python -m
coursekit.planner --help`` prints ``plan``'s help, whose usage line names the documented command. A leading
``plan`` is accepted too (``python -m coursekit.planner plan ...``).

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..__main__ import main as coursekit_main

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m coursekit plan`` with ``argv`` (default: the process's arguments); returns its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    return coursekit_main(args if args[:1] == ["plan"] else ["plan", *args])


if __name__ == "__main__":
    sys.exit(main())
