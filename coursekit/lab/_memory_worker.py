"""Per-rank code of the memory lab: the small transformer, the four strategies, the byte counts.

The model is plain ``torch.nn``: pre-LayerNorm blocks of multi-head causal
self-attention (separate q, k, v, o projections) and a GELU MLP, then a
LayerNorm + linear classifier over the mean of the sequence. Its parameters
are listed, with their TP placements, by :func:`coursekit.lab.memory.parameter_layout`.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Sequence
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.parallel import ColwiseParallel, ParallelStyle, RowwiseParallel, parallelize_module
from torch.nn.parallel import DistributedDataParallel

from ._dist import DistContext
from .tiny_config import TinyTransformerConfig

#: Learning rate of the single Adam step (its value does not change any byte count).
LEARNING_RATE: float = 1e-3


class Attention(nn.Module):  # type: ignore[misc,unused-ignore]  # nn.Module is Any where torch is not installed
    """Causal multi-head self-attention; works on all heads or, under TP, on this rank's heads."""

    def __init__(self, d_model: int, heads: int) -> None:
        super().__init__()
        self.head_dim = d_model // heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.o = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, _ = x.shape
        q, k, v = self.q(x), self.k(x), self.v(x)
        local_heads = q.shape[-1] // self.head_dim  # all heads, or heads / tp under ColwiseParallel
        q, k, v = (t.view(batch, seq, local_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o(y.transpose(1, 2).reshape(batch, seq, local_heads * self.head_dim))  # type: ignore[no-any-return,unused-ignore]


class Block(nn.Module):  # type: ignore[misc,unused-ignore]  # nn.Module is Any where torch is not installed
    """Pre-LayerNorm transformer block: x + attn(ln1(x)), then x + fc2(gelu(fc1(ln2(x))))."""

    def __init__(self, config: TinyTransformerConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(config.d_model)
        self.attn = Attention(config.d_model, config.heads)
        self.ln2 = nn.LayerNorm(config.d_model)
        self.fc1 = nn.Linear(config.d_model, config.d_ff)
        self.fc2 = nn.Linear(config.d_ff, config.d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))  # type: ignore[no-any-return,unused-ignore]


class Head(nn.Module):  # type: ignore[misc,unused-ignore]  # nn.Module is Any where torch is not installed
    """LayerNorm, mean over the sequence, linear classifier."""

    def __init__(self, config: TinyTransformerConfig) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(config.d_model)
        self.out = nn.Linear(config.d_model, config.classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.norm(x).mean(dim=1))  # type: ignore[no-any-return,unused-ignore]


class TinyTransformer(nn.Module):  # type: ignore[misc,unused-ignore]  # nn.Module is Any where torch is not installed
    """The lab's model: ``config.layers`` blocks and a classifier head, nothing else."""

    def __init__(self, config: TinyTransformerConfig) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.layers))
        self.head = Head(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.head(x)  # type: ignore[no-any-return,unused-ignore]


def build_model(config: TinyTransformerConfig, device: torch.device) -> TinyTransformer:
    """The model with weights from ``config.seed`` (identical on every rank)."""
    torch.manual_seed(config.seed)
    return TinyTransformer(config).to(device)  # type: ignore[no-any-return,unused-ignore]


def batch(config: TinyTransformerConfig, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Random inputs and class labels from ``config.seed + 1``; the same on every rank."""
    generator = torch.Generator().manual_seed(config.seed + 1)
    inputs = torch.randn(config.batch, config.seq_len, config.d_model, generator=generator)
    labels = torch.arange(config.batch) % config.classes
    return inputs.to(device), labels.to(device)


def tp_plan() -> dict[str, ParallelStyle]:
    """Megatron-style plan for one block: q, k, v and fc1 column-wise, o and fc2 row-wise."""
    plan: dict[str, ParallelStyle] = {name: ColwiseParallel() for name in ("attn.q", "attn.k", "attn.v", "fc1")}
    plan.update({name: RowwiseParallel() for name in ("attn.o", "fc2")})
    return plan


def wrap(
    strategy: str,
    model: TinyTransformer,
    ctx: DistContext,
    mesh: DeviceMesh,
    *,
    bucket_cap_mb: float | None = None,
) -> nn.Module:
    """Apply one strategy to a freshly built model.

    ``bucket_cap_mb`` sets DDP's gradient bucket size in MiB (``None``: DDP's default, 25 MiB and a first
    bucket of 1 MiB); the other strategies ignore it.
    """
    if strategy == "ddp":
        device_ids = [ctx.device.index or 0] if ctx.device.type == "cuda" else None
        return DistributedDataParallel(
            model,
            device_ids=device_ids,
            gradient_as_bucket_view=True,
            bucket_cap_mb=bucket_cap_mb,
        )
    if strategy in ("fsdp2-zero3", "fsdp2-zero2"):
        reshard = strategy == "fsdp2-zero3"
        for block in model.blocks:
            fully_shard(block, mesh=mesh, reshard_after_forward=reshard)
        fully_shard(model.head, mesh=mesh, reshard_after_forward=reshard)
        fully_shard(model, mesh=mesh, reshard_after_forward=reshard)  # root: holds no parameters of its own
        return model
    for block in model.blocks:
        parallelize_module(block, mesh, tp_plan())
    return model


def held_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the distinct storages behind ``tensors`` (a DTensor counts its local tensor)."""
    storages: dict[tuple[str, int], int] = {}
    for tensor in tensors:
        local = tensor.to_local() if isinstance(tensor, DTensor) else tensor
        storage = local.untyped_storage()
        storages[(str(local.device), storage.data_ptr())] = storage.nbytes()
    return sum(storages.values())


def measure(strategy: str, config: TinyTransformerConfig, ctx: DistContext, mesh: DeviceMesh) -> dict[str, Any]:
    """One forward, backward and Adam step; bytes of params (after forward), grads, optimizer state."""
    model = wrap(strategy, build_model(config, ctx.device), ctx, mesh)
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    inputs, labels = batch(config, ctx.device)
    resting = list(model.parameters())  # sharded DTensors under FSDP2, held by FSDP2 throughout
    loss = F.cross_entropy(model(inputs), labels)
    params_bytes = held_bytes([*resting, *model.parameters()])  # + unsharded params kept after forward
    loss.backward()  # type: ignore[no-untyped-call,unused-ignore]
    grads_bytes = held_bytes(p.grad for p in model.parameters() if p.grad is not None)
    optimizer.step()
    state = [value for per_param in optimizer.state.values() for value in per_param.values() if torch.is_tensor(value)]
    optimizer_bytes = held_bytes(state)
    result = {"params": params_bytes, "grads": grads_bytes, "optimizer": optimizer_bytes, "loss": float(loss.item())}
    del model, optimizer, resting, loss, state
    gc.collect()
    ctx.barrier()
    return result


def parameter_shapes(config: TinyTransformerConfig) -> list[tuple[str, tuple[int, ...]]]:
    """Names and full shapes of the torch model's parameters (to check :func:`parameter_layout`)."""
    model = TinyTransformer(config)
    return [(name, tuple(p.shape)) for name, p in model.named_parameters()]


def memory_worker(ctx: DistContext, config: TinyTransformerConfig, strategies: Sequence[str]) -> dict[str, Any]:
    """Measure every strategy on this rank; rank 0 returns every rank's numbers."""
    mesh = init_device_mesh(ctx.device.type, (ctx.world_size,))
    mine = {strategy: measure(strategy, config, ctx, mesh) for strategy in strategies}
    gathered: list[Any] = [None] * ctx.world_size
    dist.all_gather_object(gathered, mine)
    return {
        "world_size": ctx.world_size,
        "backend": ctx.backend,
        "device": ctx.device.type,
        "launcher": ctx.launcher,
        "torch_version": torch.__version__,
        "strategies": list(strategies),
        "measured": {
            s: [{k: gathered[r][s][k] for k in ("params", "grads", "optimizer")} for r in range(ctx.world_size)]
            for s in strategies
        },
        "losses": {s: gathered[0][s]["loss"] for s in strategies},
        "shapes": parameter_shapes(config),
    }
