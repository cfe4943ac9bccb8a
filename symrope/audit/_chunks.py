"""The streaming audit's pieces: the position stream, the chunk record, reused buffers, row
blocks that fit in cache (the phase unwrapping across chunks is the phase fit's: ``_phase_fit.py``).

Fresh arrays of a few MiB come from mmap and fault in every page on first use, which costs about
as much as the arithmetic done on them: the driver takes its chunk arrays from :class:`Buffers`
and hands them back, and does its elementwise work in the reference's ``row_blocks``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from symrope.audit._metrics import log_bands
from symrope.audit._reference import MAX_POSITION, check_positions
from symrope.audit._results import AuditOptions
from symrope.errors import UsageError

class PositionStream:
    """Ascending chunks of the audited positions (a range, or a sorted list)."""

    def __init__(self, options: AuditOptions):
        self.chunk = max(int(options.chunk), 64)
        if options.positions is not None:
            positions = np.unique(check_positions(options.positions))
            if positions.size == 0:
                raise UsageError("no positions to audit")
            self.explicit = positions
            self.max_position = int(positions[-1])
            self.count = int(positions.size)
            self.contiguous = bool(positions[0] == 0 and positions[-1] == positions.size - 1)
        else:
            top = options.max_position
            if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 0:
                raise UsageError(f"max position must be a non-negative integer, got {top!r}")
            if top > MAX_POSITION:
                raise UsageError(f"max position {top} exceeds the largest supported {MAX_POSITION}")
            self.explicit = None
            self.max_position = int(top)
            self.count = self.max_position + 1
            self.contiguous = True

    def __iter__(self) -> Iterator[np.ndarray]:
        if self.explicit is not None:
            for start in range(0, self.count, self.chunk):
                yield self.explicit[start:start + self.chunk]
            return
        for start in range(0, self.count, self.chunk):
            yield np.arange(start, min(start + self.chunk, self.count), dtype=np.int64)

    def band_edges(self) -> list[tuple[int, int]]:
        bands = log_bands(self.max_position)
        if self.explicit is None:
            return bands
        counts = np.searchsorted(self.explicit, [hi + 1 for _, hi in bands]) - \
            np.searchsorted(self.explicit, [lo for lo, _ in bands])
        return [band for band, count in zip(bands, counts) if count > 0]


class Buffers:
    """Chunk-sized arrays handed back and reused (by the worker and the main thread alike).

    A fresh array of a few MiB comes from mmap and faults in every page on first use, which
    costs about as much as the arithmetic done on it; reusing a few per shape avoids that.
    """

    def __init__(self):
        self.free: dict[tuple, list[np.ndarray]] = {}
        self.lock = threading.Lock()

    def take(self, shape, dtype=np.float64) -> np.ndarray:
        key = (tuple(shape), np.dtype(dtype).str)
        with self.lock:
            stack = self.free.get(key)
            if stack:
                return stack.pop()
        return np.empty(shape, dtype)

    def give(self, *arrays) -> None:
        with self.lock:
            for array in arrays:
                if array is not None and array.base is None:    # owners only, never views
                    self.free.setdefault((array.shape, array.dtype.str), []).append(array)


@dataclass
class Chunk:
    """One chunk's table and elementwise measurements, shape (positions, pairs)."""

    positions: np.ndarray
    error: np.ndarray          # max(|cos - a cos_exact|, |sin - a sin_exact|)
    finite: np.ndarray | None  # None when every entry is finite
    amplitude: np.ndarray      # |sqrt(cos**2 + sin**2) - the exact amplitude|
    with_history: np.ndarray   # the table cos + i sin (float64 parts, non-finite entries
                               # zeroed) in its last rows, free rows above for the kept history
    wrapped: np.ndarray        # the phase error in (-pi, pi] (0 at non-finite entries)


class Done:
    """An already computed result with a future's ``result()``."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


def complex_table(cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    table = np.empty(cos.shape, dtype=np.complex128)
    table.real, table.imag = cos, sin
    return table
