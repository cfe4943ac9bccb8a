"""The exact side of the audit: an mpmath ground truth and a fast, certified double-double table.

``mp_cos_sin`` evaluates ``cos(p*omega)``, ``sin(p*omega)`` in mpmath at a precision chosen from the
size of ``p`` (the ground truth). :class:`Reference` gives the same numbers for whole arrays of
positions in float64 with error-free transformations, and :meth:`Reference.certify` bounds its own
error on a sample with mpmath interval arithmetic, so the bound the audit states is proved on
that sample rather than assumed.

How the fast table stays exact: the angle ``p*omega`` is reduced in *turns* (``omega/2pi``). The
fractional turn of each frequency is held as a 64-bit fixed-point integer ``T1`` plus the next
64 bits as a float ``T2``; ``p * T1`` in wrapping uint64 arithmetic *is* ``p * T1 mod 1 turn``
exactly, and ``p * T2`` (below ``2**53``) is rounded to an integer with an error under one unit
of ``2**-64`` turns. Their wrapping sum is the reduced turn in ``[-1/2, 1/2)`` to about
``2**-64``. Its top 26 bits times a 26-bit ``2*pi`` is an exact float product; the rest is a
small correction, giving the angle in ``[-pi, pi)`` as a double-double. ``cos``/``sin`` of the
high part are corrected to first order in the low part.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import mpmath
import numpy as np

from symrope.errors import UsageError

#: Largest position the fast reference handles (positions are exact in float64 below 2**53).
MAX_POSITION = 2**53 - 1
#: The error the audit promises for the fast reference (absolute, in cos and sin).
REFERENCE_TOLERANCE = 2.5e-16

_TOP_BITS = 26            # bits of the reduced turn multiplied exactly by a 26-bit 2*pi
_LOW_BITS = 64 - _TOP_BITS
_WORKING_PREC = 256  # bits for the turns, 2*pi and the interval sample


def check_positions(positions: np.ndarray | list[int] | range) -> np.ndarray:
    """Return ``positions`` as a 1-D int64 array, or raise UsageError naming the bad entry.

    Parameters
    ==========
    positions : array_like
        Non-negative integer token positions, at most ``MAX_POSITION``.

    Examples
    ========
    >>> check_positions([0, 3, 15962]).tolist()
    [0, 3, 15962]
    >>> check_positions([1.5])
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: positions must be integers, got 1.5
    >>> check_positions([True, False])
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: positions must be integers, got dtype bool
    """
    array = np.asarray(positions)
    if array.ndim != 1:
        raise UsageError(f"positions must be a 1-D array, got shape {array.shape}")
    if array.dtype == bool or array.dtype.kind not in "iuf":
        raise UsageError(f"positions must be integers, got dtype {array.dtype}")
    if array.dtype.kind == "f":
        bad = array[~np.isfinite(array) | (array != np.round(array))]
        if bad.size:
            raise UsageError(f"positions must be integers, got {bad[0].item()!r}")
    if array.size and array.min() < 0:
        raise UsageError(f"positions must be >= 0, got {array.min().item()!r}")
    if array.size and array.max() > MAX_POSITION:
        raise UsageError(f"positions must be at most {MAX_POSITION} (2^53 - 1), got "
                         f"{array.max().item()!r}")
    return array.astype(np.int64)


def mp_cos_sin(position: int, omega: float | mpmath.mpf | str,
               amplitude: float | mpmath.mpf = 1) -> tuple:
    """Ground truth ``amplitude * (cos(p*omega), sin(p*omega))`` as mpmath numbers.

    The working precision grows with the position, so the angle keeps at least 100 bits after
    the integer turns are removed.

    Parameters
    ==========
    position : int
        Token position ``p >= 0``.
    omega : mpmath.mpf
        Angular frequency of the pair, as accurate as wanted.
    amplitude : number
        Attention factor multiplied into both components (1 unless YaRN/LongRoPE).

    Examples
    ========
    >>> import mpmath
    >>> c, s = mp_cos_sin(2**40, mpmath.mpf(1))
    >>> print(mpmath.nstr(c, 15), mpmath.nstr(s, 15))
    -0.914004071991557 -0.405705011532829
    """
    position = int(position)
    with mpmath.workprec(max(_WORKING_PREC, 120 + position.bit_length())):
        angle = position * mpmath.mpf(omega)
        return amplitude * mpmath.cos(angle), amplitude * mpmath.sin(angle)


@dataclass(frozen=True)
class Certificate:
    """What the interval check proved: ``max_error`` bounds the reference on ``points`` points."""

    max_error: float
    points: int
    max_position: int
    precision_bits: int

    def holds(self, tolerance: float = REFERENCE_TOLERANCE) -> bool:
        return self.max_error <= tolerance


class Reference:
    """Vectorised ``cos(p*omega_i)``, ``sin(p*omega_i)`` in float64, good to about 1.5e-16.

    Parameters
    ==========
    omegas : sequence of mpmath.mpf
        The pair frequencies, as exact as the schedule gives them (``inv_freq(config, "mpmath")``
        at a high precision). A float64 array is accepted too (it is then the exact input).
    precision_bits : int
        mpmath precision at which ``omegas`` were computed; the interval check widens each omega by
        ``2**(16 - precision_bits)`` relative (room for the schedule's few roundings).

    Examples
    ========
    >>> import mpmath, numpy as np
    >>> with mpmath.workprec(256):
    ...     omegas = [mpmath.mpf(10000) ** (-mpmath.mpf(2 * i) / 8) for i in range(4)]
    >>> reference = Reference(omegas)
    >>> cos, sin, angle = reference.cos_sin(np.array([0, 1, 2**40]))
    >>> cos.shape
    (3, 4)
    >>> float(cos[2, 0]), float(sin[2, 0])
    (-0.914004071991557, -0.40570501153282873)
    >>> reference.certify([2**40 - 1, 12345]).holds()
    True

    References
    ==========
    .. [1] T. J. Dekker, "A floating-point technique for extending the available precision",
       Numer. Math. 18 (1971).
    .. [2] M. Payne, R. Hanek, "Radian reduction for trigonometric functions", SIGNUM Newsl. (1983).
    """

    def __init__(self, omegas: np.ndarray | list, precision_bits: int = _WORKING_PREC) -> None:
        if len(omegas) == 0:
            raise UsageError("the schedule has no rotary pairs")
        self.precision_bits = int(precision_bits)
        with mpmath.workprec(_WORKING_PREC):
            self.omegas = [mpmath.mpf(omega) for omega in omegas]
            # 0 is a frequency (proportional RoPE's pairs beyond its rotated fraction): cos 1, sin 0
            if any(not mpmath.isfinite(o) or o < 0 for o in self.omegas):
                raise UsageError("every rotary frequency must be finite and >= 0")
            two_pi = 2 * mpmath.pi
            whole_bits, next_bits = [], []
            for omega in self.omegas:
                scaled = mpmath.frac(omega / two_pi) * mpmath.mpf(2) ** 64
                whole_bits.append(int(mpmath.floor(scaled)))
                next_bits.append(float(mpmath.frac(scaled)))
            # 2*pi as a 26-bit head (exact products with 26-bit integers) and a float tail.
            head = mpmath.nint(two_pi * 2**(_TOP_BITS - 3)) / 2**(_TOP_BITS - 3)
            self._pi_head = float(head) * 2.0**-_TOP_BITS
            self._pi_tail = float(two_pi - head) * 2.0**-_TOP_BITS
            self._pi_low_bits = float(two_pi) * 2.0**-64
        self._turn_bits = np.array(whole_bits, dtype=np.uint64)      # frac(omega/2pi) * 2**64
        self._turn_next = np.array(next_bits, dtype=np.float64)      # the next 64 bits, as [0, 1)
        self.omegas_float = np.array([float(o) for o in self.omegas])

    @property
    def pairs(self) -> int:
        return len(self.omegas)

    def reduced_angle(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``p*omega`` reduced to ``[-pi, pi)`` as a double-double ``(high, low)``, each (n, pairs)."""
        positions = self._checked(positions)
        high, low = (np.empty((positions.size, self.pairs)) for _ in range(2))
        for rows in row_blocks(positions.size):
            block_high, block_low = self._reduce(positions[rows], block_workspace(self.pairs))
            high[rows], low[rows] = block_high, block_low
        return high, low

    def cos_sin(self, positions: np.ndarray, out: tuple[np.ndarray, np.ndarray] | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(cos, sin, angle)``: float64 arrays (n, pairs); ``angle`` is ``p*omega`` reduced mod 2*pi.

        ``out``, a pair of float64 arrays of shape (n, pairs), receives ``cos`` and ``sin``; the
        angle is then not formed (None is returned in its place).
        """
        positions = self._checked(positions)
        shape = (positions.size, self.pairs)
        cos, sin = out if out is not None else (np.empty(shape), np.empty(shape))
        angle = np.empty(shape) if out is None else None
        work = block_workspace(self.pairs)
        for rows in row_blocks(positions.size):
            high, low = self._reduce(positions[rows], work)
            block_cos, block_sin = work("cos", rows), sin[rows]
            np.cos(high, out=block_cos)
            np.sin(high, out=block_sin)
            # cos(a + e) = cos a - e sin a, sin(a + e) = sin a + e cos a; e < 4e-16 so e**2 vanishes.
            fixed = np.multiply(block_sin, low, out=cos[rows])
            np.subtract(block_cos, fixed, out=fixed)
            block_cos *= low
            block_sin += block_cos
            if angle is not None:
                np.add(high, low, out=angle[rows])
        return cos, sin, angle

    @staticmethod
    def _checked(positions) -> np.ndarray:
        positions = np.asarray(positions, dtype=np.int64)
        if positions.size and (positions.min() < 0 or positions.max() > MAX_POSITION):
            raise UsageError(f"positions must lie in [0, {MAX_POSITION}]")
        return positions

    def _reduce(self, positions: np.ndarray, work) -> tuple[np.ndarray, np.ndarray]:
        """``reduced_angle`` of at most ``BLOCK_ROWS`` positions, in the workspace's buffers
        (valid until this thread's next call): no fresh arrays, so no page faults per call."""
        rows = slice(0, positions.size)
        column = positions[:, None]
        # Fixed-point turns: uint64 products wrap modulo 2**64, i.e. modulo one whole turn.
        turn = np.multiply(column.astype(np.uint64), self._turn_bits, out=work("turn", rows, np.uint64))
        carry = np.multiply(column.astype(np.float64), self._turn_next, out=work("carry", rows))
        np.rint(carry, out=carry)                               # < 2**53: exact enough to round
        whole = work("whole", rows, np.uint64)
        np.copyto(whole, carry, casting="unsafe")               # exact: an integer below 2**53
        turn += whole
        signed = turn.view(np.int64)                            # the turn in [-1/2, 1/2) * 2**64
        integer = np.right_shift(signed, _LOW_BITS, out=whole.view(np.int64))   # 26-bit signed
        top = work("top", rows)
        np.copyto(top, integer)
        np.bitwise_and(signed, np.int64(2**_LOW_BITS - 1), out=integer)
        rest = carry
        np.copyto(rest, integer)
        angle = np.multiply(top, self._pi_head, out=work("low", rows))   # exact: 26 x 26 bits
        small = np.multiply(top, self._pi_tail, out=top)
        rest *= self._pi_low_bits
        small += rest                                           # |small| < 2**-23, error ~2**-76
        high = np.add(angle, small, out=work("high", rows))
        angle -= high
        angle += small                                          # Fast2Sum: the low part, exact
        return high, angle

    def certify(self, positions: np.ndarray | list[int],
                pairs: list[int] | range | None = None) -> Certificate:
        """Bound this reference's error at ``positions`` x ``pairs`` with mpmath interval arithmetic.

        Each exact value ``cos(p*omega)`` is enclosed in an interval (``mpmath.iv``, with omega
        itself widened by the schedule's rounding allowance); the certified error of a table entry
        is the largest distance from it to either end of that interval.

        Parameters
        ==========
        positions : sequence of int
            Sample positions (put the largest positions audited in it).
        pairs : sequence of int, optional
            Pair indices to check; all pairs by default.

        Returns
        =======
        Certificate
        """
        positions = check_positions(positions)
        pairs = range(self.pairs) if pairs is None else list(pairs)
        cos, sin, _ = self.cos_sin(positions)
        iv = mpmath.iv
        worst = mpmath.mpf(0)
        widen = mpmath.mpf(2) ** (16 - self.precision_bits)
        saved = iv.prec
        try:
            iv.prec = _WORKING_PREC
            with mpmath.workprec(_WORKING_PREC):
                omega_boxes = [iv.mpf([o * (1 - widen), o * (1 + widen)]) for o in self.omegas]
                for row, position in enumerate(positions.tolist()):
                    for pair in pairs:
                        box = position * omega_boxes[pair]
                        for exact, value in ((iv.cos(box), cos[row, pair]),
                                             (iv.sin(box), sin[row, pair])):
                            value = mpmath.mpf(float(value))
                            low, high = mpmath.mpf(exact.a), mpmath.mpf(exact.b)
                            worst = max(worst, abs(value - low), abs(value - high))
        finally:
            iv.prec = saved
        return Certificate(max_error=float(mpmath.mpf(worst)), points=len(positions) * len(pairs),
                           max_position=int(positions.max()) if positions.size else 0,
                           precision_bits=_WORKING_PREC)


BLOCK_ROWS = 1024     # positions per block: 1024 x 64 float64 = 512 KiB buffers, in cache
_WORKSPACES = threading.local()


def row_blocks(count: int) -> list[slice]:
    """Slices of ``BLOCK_ROWS`` rows covering ``0..count-1`` (the unit of cache-sized work)."""
    return [slice(start, min(start + BLOCK_ROWS, count)) for start in range(0, count, BLOCK_ROWS)]


def block_workspace(pairs: int):
    """This thread's reusable block buffers for ``pairs`` columns: ``work(name, rows, dtype)``.

    Fresh arrays of this size come from mmap and fault in every page on each use; reusing a
    few buffers per thread is what keeps the reference near numpy's own speed."""
    buffers = getattr(_WORKSPACES, "buffers", None)
    if buffers is None:
        buffers = _WORKSPACES.buffers = {}

    def work(name: str, rows: slice, dtype=np.float64) -> np.ndarray:
        key = (name, pairs, np.dtype(dtype).str)
        if key not in buffers:
            buffers[key] = np.empty((BLOCK_ROWS, pairs), dtype=dtype)
        return buffers[key][:rows.stop - rows.start]
    return work


def certification_sample(max_position: int, count: int = 24, seed: int = 0) -> np.ndarray:
    """Positions for :meth:`Reference.certify`: the ends, powers of two, random log-spaced, and near 2**40.

    Examples
    ========
    >>> sample = certification_sample(2**20 - 1, count=12)
    >>> int(sample.min()), int(sample.max()) == 2**40
    (0, True)
    """
    rng = np.random.default_rng(seed)
    top = max(int(max_position), 1)
    fixed = [0, 1, top, max(top - 1, 0), 2**40, 2**40 - 1, 2**40 - 7919]
    # math.exp per value, not numpy's vectorised exp: its last bit depends on the SIMD path, and
    # the truncation to an integer would pass that on to the sample
    logs = rng.uniform(0, math.log(top + 1), size=max(count - len(fixed), 0))
    randoms = np.array([int(math.exp(v)) for v in logs], dtype=np.int64)
    return np.unique(np.concatenate([np.array(fixed, dtype=np.int64), randoms]))
