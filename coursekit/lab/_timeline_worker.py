"""Per-rank code of the timeline lab: train a few steps under the profiler, export and read the trace.

Each rank wraps the lab's small transformer (sizes :data:`TIMELINE_CONFIG`)
in one strategy, runs :data:`WARMUP_STEPS` unprofiled steps, then ``steps`` steps under
:mod:`torch.profiler` with every step and its input inside
``record_function`` regions, exports its Chrome trace and reads it back with
:func:`coursekit.lab.timeline.extract_steps`. Rank 0 returns every rank's
step events; the reduction happens in :mod:`coursekit.lab.timeline`.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.profiler import ProfilerActivity, profile, record_function

from ._dist import DistContext
from ._memory_worker import LEARNING_RATE, batch, build_model, wrap
from .steps import INPUT_REGION, STEP_REGION, RankStepEvents, Scenario, breakdown_steps, extract_steps, skip_reason
from .tiny_config import TinyTransformerConfig

#: The timeline model: large enough that a step is mostly operators, small enough for 2 CPU cores.
TIMELINE_CONFIG = TinyTransformerConfig(d_model=128, heads=8, d_ff=512, layers=2, classes=5, seq_len=32, batch=8)
#: Side of the square matrices multiplied while a slow rank burns its extra compute.
BUSY_MATRIX_SIDE: int = 64
#: Unprofiled steps first: DDP rebuilds its gradient buckets during its second step, with a collective of its
#: own (torch/nn/parallel/distributed.py, ``_rebuild_buckets``); profiled steps start after that.
WARMUP_STEPS: int = 2
#: DDP's gradient bucket size in the timeline, MiB. DDP's default (25 MiB, first bucket 1 MiB) puts this 1.6 MB
#: model's gradients in two buckets, both ready only near the end of backward, so nothing can overlap; with
#: 0.25 MiB buckets the first all-reduces start while backward still computes the earlier layers' gradients
#: (the overlap of Li et al., "PyTorch Distributed", VLDB 2020, section 3.2).
BUCKET_CAP_MB: float = 0.25
#: The memory lab's strategy names for the timeline's.
WRAPPERS: dict[str, str] = {"ddp": "ddp", "fsdp": "fsdp2-zero3", "tp": "tp"}


def busy_compute(seconds: float, device: torch.device) -> None:
    """Multiply small matrices for ``seconds`` (the slow rank's extra compute, visible as aten::mm)."""
    a = torch.ones(BUSY_MATRIX_SIDE, BUSY_MATRIX_SIDE, device=device)
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        torch.mm(a, a)
        if device.type == "cuda":
            torch.cuda.synchronize(device)


def all_reduce_after_backward(model: nn.Module, world_size: int) -> None:
    """All-reduce every gradient in one flat call after backward (DDP without buckets or overlap)."""
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)
    flat /= world_size
    offset = 0
    for g in grads:
        g.copy_(flat[offset : offset + g.numel()].view_as(g))
        offset += g.numel()


def train_step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    ctx: DistContext,
    extra_s: float,
    scenario: Scenario,
) -> float:
    """One step inside the step region; returns the wall-clock seconds read around it."""
    start = time.perf_counter()
    with record_function(STEP_REGION):
        with record_function(INPUT_REGION):
            if scenario.input_delay_s > 0:
                time.sleep(scenario.input_delay_s)
            inputs, labels = batch(TIMELINE_CONFIG, ctx.device)
        if extra_s > 0:
            busy_compute(extra_s, ctx.device)
        if scenario.overlap or not isinstance(model, nn.parallel.DistributedDataParallel):
            loss = F.cross_entropy(model(inputs), labels)
            loss.backward()  # type: ignore[no-untyped-call,unused-ignore]
        else:
            # DDP decides in forward whether backward all-reduces its buckets: no_sync must cover both.
            with model.no_sync():
                loss = F.cross_entropy(model(inputs), labels)
                loss.backward()  # type: ignore[no-untyped-call,unused-ignore]
            all_reduce_after_backward(model, ctx.world_size)
        optimizer.step()
        optimizer.zero_grad()
        ctx.synchronize()
    return time.perf_counter() - start


def run_scenario(
    strategy: str,
    scenario: Scenario,
    ctx: DistContext,
    mesh: DeviceMesh,
    steps: int,
    trace_dir: str,
    extra_s: float,
) -> tuple[list[dict[str, Any]], str]:
    """Warm up, profile ``steps`` steps, export this rank's trace and read its steps back."""
    model = wrap(WRAPPERS[strategy], build_model(TIMELINE_CONFIG, ctx.device), ctx, mesh, bucket_cap_mb=BUCKET_CAP_MB)
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    for _ in range(WARMUP_STEPS):
        train_step(model, optimizer, ctx, extra_s, scenario)
    ctx.barrier()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if ctx.device.type == "cuda" else [])
    walls = []
    with profile(activities=activities) as prof:
        for _ in range(steps):
            walls.append(train_step(model, optimizer, ctx, extra_s, scenario))
    path = str(Path(trace_dir) / f"{strategy}-{scenario.name}-rank{ctx.rank}.json")
    prof.export_chrome_trace(path)
    trace = json.loads(Path(path).read_text(encoding="utf-8"))
    events = extract_steps(trace, name=path, device=ctx.device.type)
    events = tuple(dataclasses.replace(e, wall_s=w) for e, w in zip(events, walls, strict=False))
    ctx.barrier()
    return [dataclasses.asdict(e) for e in events], path


def timeline_worker(
    ctx: DistContext, strategies: Sequence[str], scenarios: Sequence[Scenario], steps: int, trace_dir: str
) -> dict[str, Any]:
    """Every strategy under every scenario on this rank; every rank's step events gathered.

    Each rank computes on one thread: one rank stands for one device, so a
    step's compute stays the same work on the same resource whatever the
    number of ranks (weak scaling), until ranks outnumber the CPU cores.
    """
    torch.set_num_threads(1)
    mesh = init_device_mesh(ctx.device.type, (ctx.world_size,))
    runs: dict[str, list[dict[str, Any]]] = {}
    for strategy in strategies:
        runs[strategy] = []
        baseline_compute_s = 0.0
        for scenario in scenarios:
            skipped = skip_reason(strategy, scenario, ctx.world_size, dataclasses.asdict(TIMELINE_CONFIG))
            if skipped is not None:
                reason = {"code": skipped.code, "key": skipped.key, "params": dict(skipped.params)}
                runs[strategy].append({"scenario": dataclasses.asdict(scenario), "skipped": reason})
                continue
            slow = scenario.slow_rank == ctx.rank
            extra_s = baseline_compute_s * (scenario.slow_factor - 1) if slow else 0.0
            mine, path = run_scenario(strategy, scenario, ctx, mesh, steps, trace_dir, extra_s)
            gathered: list[Any] = [None] * ctx.world_size
            dist.all_gather_object(gathered, (mine, path))
            if scenario.name == "baseline":
                per_rank = [[RankStepEvents(**e) for e in rank_events] for rank_events, _ in gathered]
                own = breakdown_steps(per_rank)[ctx.rank]
                baseline_compute_s = sum(b.compute_s + b.other_s for b in own) / max(len(own), 1)
            runs[strategy].append(
                {
                    "scenario": dataclasses.asdict(scenario),
                    "skipped": None,
                    "events": [rank_events for rank_events, _ in gathered],
                    "trace_files": [p for _, p in gathered],
                }
            )
    return {
        "world_size": ctx.world_size,
        "backend": ctx.backend,
        "device": ctx.device.type,
        "launcher": ctx.launcher,
        "torch_version": torch.__version__,
        "steps": steps,
        "config": dataclasses.asdict(TIMELINE_CONFIG),
        "runs": runs,
    }
