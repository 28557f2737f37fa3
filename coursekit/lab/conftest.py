"""pytest: skip the doctests of the lab's PyTorch modules when PyTorch is not installed.

Those modules import torch at the top; the rest of coursekit.lab (fitting,
reports, the command line) does not and is always collected.
"""

from __future__ import annotations

import importlib.util

collect_ignore_glob: list[str] = (
    []
    if importlib.util.find_spec("torch")
    else [
        "_dist.py",
        "_collective_worker.py",
        "_memory_worker.py",
        "_timeline_worker.py",
        "_lesson_worker.py",
    ]
)
