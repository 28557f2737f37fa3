"""Units, in one place. Every conversion in coursekit goes through these names.

Binary units (GiB, MiB) are what memory is reported in and what the ledgers use;
decimal units (GB, as in the ZeRO paper's Figure 1, and GB/s as in vendor
bandwidth sheets) are kept apart. Bandwidth in coursekit is always
*per GPU, per direction* (unidirectional) unless a name says ``bidirectional``.

The conversions take one finite real number (``bool``, strings, NaN and
infinity are refused like everywhere in the course); formulas that work on
numpy arrays multiply by the constants directly.

>>> GIB_BYTES / MIB_BYTES
1024.0
>>> GB_BYTES
1000000000
"""

from __future__ import annotations

from ._validate import check_number, finite_result, learner_functions

KIB_BYTES: int = 2**10
MIB_BYTES: int = 2**20
GIB_BYTES: int = 2**30
TIB_BYTES: int = 2**40

KB_BYTES: int = 10**3
MB_BYTES: int = 10**6
GB_BYTES: int = 10**9
TB_BYTES: int = 10**12

US_PER_S: int = 10**6
MS_PER_S: int = 10**3
US_PER_MS: int = 10**3


@finite_result
def bytes_to_gib(num_bytes: float) -> float:
    """Bytes -> GiB (2**30 bytes).

    >>> bytes_to_gib(3 * 2**30)
    3.0
    """
    return check_number("num_bytes", num_bytes) / GIB_BYTES


@finite_result
def gib_to_bytes(gib: float) -> float:
    """GiB -> bytes.

    >>> gib_to_bytes(0.5)
    536870912.0
    """
    return check_number("gib", gib) * GIB_BYTES


@finite_result
def bytes_to_gb(num_bytes: float) -> float:
    """Bytes -> GB (10**9 bytes, the unit of the ZeRO paper's Figure 1).

    >>> bytes_to_gb(2.5e9)
    2.5
    """
    return check_number("num_bytes", num_bytes) / GB_BYTES


@finite_result
def bytes_to_mib(num_bytes: float) -> float:
    """Bytes -> MiB (2**20 bytes).

    >>> bytes_to_mib(2**21)
    2.0
    """
    return check_number("num_bytes", num_bytes) / MIB_BYTES


@finite_result
def mib_to_bytes(mib: float) -> float:
    """MiB -> bytes.

    >>> mib_to_bytes(1)
    1048576.0
    """
    return check_number("mib", mib) * MIB_BYTES


#: Most decimals :func:`telling_digits` gives: past six a GiB figure is under a kilobyte.
MAX_TELLING_DIGITS: int = 6


def telling_digits(value: float, other: float = 0.0) -> int:
    """Decimals to show ``value`` with (at least one) so that it does not read as ``other``: a shortfall of
    0.04 GiB is "0.04", not "0.0"; 80.04 GiB against 80 GiB is "80.04" against "80.00". At most
    :data:`MAX_TELLING_DIGITS`.

    >>> telling_digits(29.0, 24.0), telling_digits(0.04), telling_digits(80.0004, 80.0)
    (1, 2, 4)

    Each is a finite real number (a bool, a string, NaN or an infinity is refused naming it).
    """
    value, other = check_number("value", value), check_number("other", other)
    digits = 1
    while digits < MAX_TELLING_DIGITS and f"{value:.{digits}f}" == f"{other:.{digits}f}":
        digits += 1
    return digits


learner_functions(globals())
