"""The known tensors of the lab's correctness check: what each rank feeds a collective, and what it must get back.

Both the driver (:mod:`coursekit.lab.collectives`) and the ranks (the torch worker) read these; they import
nothing from the lab's drivers.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

from .._validate import check_choice, check_int, learner_functions
from ..communication import COLLECTIVES

__all__ = [
    "ELEMENT_BYTES",
    "FLOAT32_EXACT_INT",
    "MAX_VERIFY_RANKS",
    "RANK_OFFSET",
    "VERIFY_CHUNK_ELEMENTS",
    "expected_output",
    "verification_input",
]

#: Bytes of one float32 element, the dtype of every buffer.
ELEMENT_BYTES: int = 4
#: Float32 elements per rank chunk in the known-tensor check (small, exact in float32).
VERIFY_CHUNK_ELEMENTS: int = 3
#: Rank r's check input is ``RANK_OFFSET * r + i`` for element i.
RANK_OFFSET: int = 1000
#: Largest integer float32 holds exactly (24-bit significand): every value of the check must stay below it.
FLOAT32_EXACT_INT: int = 1 << 24


def _largest_value(ranks: int) -> int:
    """The largest value the check produces on ``ranks`` ranks: all_reduce's last element, the sum over the ranks
    r of RANK_OFFSET·r + (3·ranks - 1)."""
    return RANK_OFFSET * ranks * (ranks - 1) // 2 + ranks * (VERIFY_CHUNK_ELEMENTS * ranks - 1)


#: Most ranks the known-tensor check is exact on (183): beyond it all_reduce's sums leave float32's exact integers, so
#: a correct collective would read as a wrong result (and the expected outputs grow as ranks², unbounded).
MAX_VERIFY_RANKS: int = max(n for n in range(1, 1 << 12) if _largest_value(n) <= FLOAT32_EXACT_INT)


def verification_input(kind: str, ranks: int, rank: int) -> list[float]:
    """The known tensor rank ``rank`` feeds ``kind`` in the correctness check.

    Element i of rank r's base buffer is ``1000·r + i``; the base buffer holds
    3 elements per rank (S = 12·n bytes). all_gather sends the first chunk of
    it (its output is the full buffer); the others send all of it. ``ranks`` is at most
    :data:`MAX_VERIFY_RANKS`, where every value stays exact in float32.

    >>> verification_input("all_reduce", 2, 1)
    [1000.0, 1001.0, 1002.0, 1003.0, 1004.0, 1005.0]
    >>> verification_input("all_gather", 2, 1)
    [1000.0, 1001.0, 1002.0]

    Taught in: lesson 8 (formula vs measurement).
    """
    kind = check_choice("kind", kind, COLLECTIVES)
    n = check_int("ranks", ranks, ge=1, le=MAX_VERIFY_RANKS)
    r = check_int("rank", rank, ge=0, lt=n)
    elements = VERIFY_CHUNK_ELEMENTS * (1 if kind == "all_gather" else n)
    return [float(RANK_OFFSET * r + i) for i in range(elements)]


def expected_output(kind: str, ranks: int, rank: int) -> list[float]:
    """What rank ``rank`` must hold after ``kind`` on the :func:`verification_input` tensors.

    >>> expected_output("reduce_scatter", 2, 1)
    [1006.0, 1008.0, 1010.0]
    >>> expected_output("send_recv", 2, 0)
    [1000.0, 1001.0, 1002.0, 1003.0, 1004.0, 1005.0]

    Taught in: lesson 8 (formula vs measurement).
    """
    kind = check_choice("kind", kind, COLLECTIVES)
    n = check_int("ranks", ranks, ge=1, le=MAX_VERIFY_RANKS)
    r = check_int("rank", rank, ge=0, lt=n)
    inputs = [verification_input(kind, n, j) for j in range(n)]
    chunk = VERIFY_CHUNK_ELEMENTS
    if kind == "all_reduce":
        return [sum(column) for column in zip(*inputs, strict=True)]
    if kind == "all_gather":
        return [value for row in inputs for value in row]
    if kind == "reduce_scatter":
        return [sum(row[r * chunk + i] for row in inputs) for i in range(chunk)]
    if kind == "all_to_all":
        return [inputs[j][r * chunk + i] for j in range(n) for i in range(chunk)]
    if kind == "broadcast":
        return list(inputs[0])
    return list(inputs[(r - 1) % n])  # send_recv: from the previous rank on the ring


learner_functions(globals())
