"""How the lab learns whether torchrun started it (no torch import needed).

>>> isinstance(launched_by_torchrun(), bool)
True
"""

from __future__ import annotations

import os

#: Environment variables torchrun sets for every worker (PyTorch docs, torch.distributed.run).
TORCHRUN_ENV_VARS: tuple[str, ...] = ("RANK", "WORLD_SIZE", "LOCAL_RANK")


def launched_by_torchrun() -> bool:
    """True when this process is a torchrun worker (``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK`` are set)."""
    return all(name in os.environ for name in TORCHRUN_ENV_VARS)


def torchrun_world_size() -> int:
    """``WORLD_SIZE`` of the torchrun job this process belongs to."""
    return int(os.environ["WORLD_SIZE"])
