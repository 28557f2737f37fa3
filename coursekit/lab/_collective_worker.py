"""Per-rank code of the collectives lab: build buffers, call torch.distributed, time it.

Runs inside every rank (spawned or under torchrun); see
:mod:`coursekit.lab.collectives` for what is measured and how it is reported.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.distributed as dist

from ._dist import DistContext
from .known_tensors import ELEMENT_BYTES, expected_output, verification_input

# torch 2.13 renamed the tensor-in/tensor-out collectives and deprecated the old names;
# older versions (>= 2.6, the lab's floor) only have the old ones.
_all_gather_single: Callable[..., Any] = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_reduce_scatter_single: Callable[..., Any] = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor

#: Longest error text kept when a backend refuses a collective.
ERROR_TEXT_CHARS: int = 200


def prepare(
    kind: str, ctx: DistContext, elements: int, values: Sequence[float] | None = None
) -> tuple[Callable[[], None], torch.Tensor]:
    """``(call, output)`` for one collective on a float32 buffer of ``elements`` (nccl-tests' S / 4).

    ``values`` fills the input (the known-tensor check); otherwise it is zeros,
    so repeated in-place all_reduce calls stay finite.
    """
    n, rank, device = ctx.world_size, ctx.rank, ctx.device
    chunk = elements // n
    send_elements = chunk if kind == "all_gather" else elements
    if values is None:
        send = torch.zeros(send_elements, dtype=torch.float32, device=device)
    else:
        send = torch.tensor(list(values), dtype=torch.float32, device=device)
    if kind == "all_reduce":
        return (lambda: dist.all_reduce(send)), send
    if kind == "broadcast":
        return (lambda: dist.broadcast(send, src=0)), send
    recv_elements = chunk if kind == "reduce_scatter" else elements
    recv = torch.empty(recv_elements, dtype=torch.float32, device=device)
    if kind == "all_gather":
        return (lambda: _all_gather_single(recv, send)), recv
    if kind == "reduce_scatter":
        return (lambda: _reduce_scatter_single(recv, send)), recv
    if kind == "all_to_all":
        return (lambda: dist.all_to_all_single(recv, send)), recv

    def ring_exchange() -> None:  # send_recv: nccl-tests' ring, everyone sends and receives at once
        ops = [dist.P2POp(dist.isend, send, (rank + 1) % n), dist.P2POp(dist.irecv, recv, (rank - 1) % n)]
        for request in dist.batch_isend_irecv(ops):
            request.wait()

    return ring_exchange, recv


def _status(code: str | None, key: str | None = None, **params: Any) -> dict[str, Any]:
    return {"code": code, "key": key, "params": params}


def _run_checks(ctx: DistContext, kinds: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run every collective once on known tensors: (outputs gathered from all ranks, status per kind)."""
    n = ctx.world_size
    mine: dict[str, list[float] | str] = {}
    for kind in kinds:
        if kind == "send_recv" and n < 2:
            mine[kind] = "needs_two_ranks"
            continue
        values = verification_input(kind, n, ctx.rank)
        elements = len(values) * (n if kind == "all_gather" else 1)
        try:
            call, output = prepare(kind, ctx, elements, values)
            call()
            ctx.synchronize()
            mine[kind] = [float(v) for v in output.cpu().tolist()]
        except (RuntimeError, NotImplementedError, ValueError) as error:
            mine[kind] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[
                :ERROR_TEXT_CHARS
            ]
    gathered: list[Any] = [None] * n
    dist.all_gather_object(gathered, mine)
    outputs: dict[str, Any] = {}
    status: dict[str, Any] = {}
    for kind in kinds:
        per_rank = [gathered[r][kind] for r in range(n)]
        errors = [item for item in per_rank if isinstance(item, str)]
        if errors:
            outputs[kind] = errors[0]
            if errors[0] == "needs_two_ranks":
                status[kind] = _status("needs_two_ranks", "lab.needs_two_ranks")
            else:
                status[kind] = _status("unsupported", "lab.unsupported_backend", backend=ctx.backend, error=errors[0])
            continue
        outputs[kind] = tuple(tuple(item) for item in per_rank)
        status[kind] = _status(None)
        for r, got in enumerate(per_rank):
            expected = expected_output(kind, n, r)
            if got != expected:
                status[kind] = _status("wrong_result", "lab.wrong_result", rank=r, got=got, expected=expected)
                break
    return outputs, status


def _describe(ctx: DistContext) -> dict[str, Any]:
    return {
        "world_size": ctx.world_size,
        "backend": ctx.backend,
        "device": ctx.device.type,
        "launcher": ctx.launcher,
        "torch_version": torch.__version__,
    }


def outputs_worker(ctx: DistContext, kinds: Sequence[str]) -> dict[str, Any]:
    """Known-tensor outputs of every rank (see :func:`coursekit.lab.collectives.collective_outputs`)."""
    outputs, status = _run_checks(ctx, kinds)
    return {**_describe(ctx), "kinds": list(kinds), "outputs": outputs, "status": status}


def time_calls(ctx: DistContext, call: Callable[[], None], warmup: int, repeats: int) -> list[float]:
    """Seconds of ``repeats`` calls, each started right after a barrier, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        call()
    ctx.synchronize()
    samples = []
    for _ in range(repeats):
        ctx.barrier()
        start = time.perf_counter()
        call()
        ctx.synchronize()
        samples.append(time.perf_counter() - start)
    return samples


def timing_worker(
    ctx: DistContext, kinds: Sequence[str], sizes: Sequence[int], warmup: int, repeats: int
) -> dict[str, Any]:
    """Check, then time every collective at every payload; rank 0 returns every rank's samples."""
    outputs, status = _run_checks(ctx, kinds)
    mine: dict[str, list[tuple[int, list[float]]]] = {}
    for kind in kinds:
        if status[kind]["code"] is not None:
            continue
        mine[kind] = []
        for size in sizes:
            call, _ = prepare(kind, ctx, size // ELEMENT_BYTES)
            mine[kind].append((size, time_calls(ctx, call, warmup, repeats)))
    gathered: list[Any] = [None] * ctx.world_size
    dist.all_gather_object(gathered, mine)
    times = {
        kind: [(size, [gathered[r][kind][i][1] for r in range(ctx.world_size)]) for i, size in enumerate(sizes)]
        for kind in mine
    }
    return {**_describe(ctx), "kinds": list(kinds), "status": status, "times": times, "outputs": outputs}
