"""Start the lab's ranks: mp.spawn on one machine, or join a torchrun job.

The same worker function runs in both cases. :func:`run_distributed` detects
``torchrun`` through the environment variables it sets (``RANK``,
``WORLD_SIZE``, ``LOCAL_RANK``); otherwise it spawns ``ranks`` processes with
``multiprocessing``'s spawn (:mod:`._lifetime`) on a free loopback port (``MASTER_ADDR =
127.0.0.1``). The device is chosen per rank: CUDA with NCCL when enough GPUs
are visible, else CPU with gloo.

A rank that dies (killed, out of memory, an exception) ends the job: the
other ranks are stopped and :class:`WorkerFailed` carries one line saying
which rank and how; the command line turns it into its own exit code. The
temporary folders (``/tmp/coursekit-lab-*``) are removed on every way out,
including an interrupt or a termination signal delivered to this process; and
when this process dies without cleaning up (SIGKILL), its ranks end within a
fraction of a second and remove the folders themselves (:mod:`._lifetime`).
Ranks ignore SIGINT: a Ctrl-C reaches this process, which stops them.

For the lab's own tests, the environment variable ``COURSEKIT_LAB_KILL_RANK``
makes that rank exit at once with code 7, as a crashed worker would.

This module imports torch; the lab's public API imports it only when a
measurement is asked for.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import os
import pickle
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from ..i18n import tr
from ._env import KILL_RANK_ENV, launched_by_torchrun, temporary_folder, torchrun_world_size
from ._lifetime import join_ranks, start_ranks, stop_ranks

#: Loopback address of the spawned single-machine job.
LOOPBACK_ADDR: str = "127.0.0.1"
#: How long a collective may hang before the process group gives up (a failed
#: rank should end a test run in minutes, not after the 30-minute default).
PROCESS_GROUP_TIMEOUT_S: int = 300


def free_port() -> int:
    """A TCP port on the loopback interface that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK_ADDR, 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True)
class DistContext:
    """What a worker knows about its place in the job.

    Fields: ``rank``, ``world_size``, ``local_rank``, ``device`` (a
    ``torch.device``), ``backend`` (``"nccl"`` or ``"gloo"``) and ``launcher``
    (``"spawn"`` or ``"torchrun"``).
    """

    rank: int
    world_size: int
    local_rank: int
    device: torch.device
    backend: str
    launcher: str

    def synchronize(self) -> None:
        """Wait for queued device work (a no-op on CPU)."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def barrier(self) -> None:
        """``dist.barrier`` on this rank's device."""
        if self.device.type == "cuda":
            dist.barrier(device_ids=[self.device.index or 0])
        else:
            dist.barrier()


def choose_device(preference: str, local_rank: int, local_world_size: int) -> tuple[torch.device, str]:
    """``(device, backend)``: CUDA + NCCL when asked for or available for every local rank, else CPU + gloo."""
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if preference == "cuda" or (preference == "auto" and gpus >= local_world_size > 0):
        if gpus == 0:
            raise RuntimeError("device='cuda' was asked for, but torch.cuda.is_available() is False")
        return torch.device("cuda", local_rank % gpus), "nccl"
    return torch.device("cpu"), "gloo"


def _init(rank: int, world_size: int, local_rank: int, local_world: int, preference: str, launcher: str) -> DistContext:
    device, backend = choose_device(preference, local_rank, local_world)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    if not dist.is_initialized():
        dist.init_process_group(
            backend,
            rank=rank,
            world_size=world_size,
            timeout=timedelta(seconds=PROCESS_GROUP_TIMEOUT_S),
        )
    return DistContext(rank, world_size, local_rank, device, backend, launcher)


def _spawn_entry(
    rank: int,
    world_size: int,
    port: int,
    worker: Callable[..., Any],
    args: tuple[Any, ...],
    preference: str,
    result_path: str,
) -> None:
    if os.environ.get(KILL_RANK_ENV) == str(rank):
        os._exit(7)  # the lab's tests: a worker that dies without a word
    os.environ["MASTER_ADDR"] = LOOPBACK_ADDR
    os.environ["MASTER_PORT"] = str(port)
    # Each spawned rank stands for one device: share the cores instead of oversubscribing them.
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // world_size))
    ctx = _init(rank, world_size, rank, world_size, preference, "spawn")
    try:
        result = worker(ctx, *args)
        if rank == 0:
            Path(result_path).write_bytes(pickle.dumps(result))
    finally:
        dist.destroy_process_group()


def run_distributed(worker: Callable[..., Any], ranks: int | None, args: tuple[Any, ...], device: str = "auto") -> Any:
    """Run ``worker(ctx, *args)`` on every rank and return rank 0's result.

    Under torchrun this process is one rank: the process group is joined from
    the environment (``env://``), and rank 0's result is broadcast so every
    rank returns the same value. Otherwise ``ranks`` processes are spawned on
    this machine and the result comes back through a temporary file.
    ``worker`` must be a module-level function (spawn pickles it by name).
    """
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError(tr("lab.no_cuda"))
    if launched_by_torchrun():
        world = torchrun_world_size()
        rank = int(os.environ["RANK"])
        local_rank = int(os.environ["LOCAL_RANK"])
        local_world = int(os.environ.get("LOCAL_WORLD_SIZE", world))
        owns_group = not dist.is_initialized()
        ctx = _init(rank, world, local_rank, local_world, device, "torchrun")
        try:
            box = [worker(ctx, *args)]
            dist.broadcast_object_list(box, src=0, device=ctx.device if ctx.backend == "nccl" else None)
            return box[0]
        finally:
            if owns_group:
                dist.destroy_process_group()
    if ranks is None:
        raise ValueError("ranks is required when not running under torchrun")
    with temporary_folder() as tmp:
        result_path = str(Path(tmp) / "result.pickle")
        processes = start_ranks(_spawn_entry, ranks, (ranks, free_port(), worker, args, device, result_path), tmp)
        try:
            join_ranks(processes, tmp)
        finally:
            stop_ranks(processes)
        return pickle.loads(Path(result_path).read_bytes())
