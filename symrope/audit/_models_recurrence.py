"""The incremental-rotation model: ``z(p + 1) = z(p) * exp(i omega)`` in complex64.

The recurrence is sequential, so a table at position ``p`` costs ``p`` steps. ``numpy.cumprod``
runs the steps in C, block by block; the last state is kept so that a caller streaming
ascending positions in chunks pays for each step once.
"""

from __future__ import annotations

import numpy as np

from symrope.audit._dtypes import DTYPES
from symrope.schedules import attention_factor, inv_freq

_BLOCK = 1 << 15  # positions per cumprod block: 2^15 x 64 pairs x 8 bytes = 16 MiB


class RecurrenceTable:
    """Callable ``(positions, config, dtype, seq_len) -> (cos, sin)`` with a resumable state.

    Examples
    ========

    >>> import numpy as np
    >>> from symrope.audit._models_recurrence import RecurrenceTable
    >>> from symrope.schedules import RopeConfig
    >>> config = RopeConfig.from_options(head_dim=4, theta=10000)
    >>> cos, sin = RecurrenceTable()(np.array([0, 1, 100000]), config, "fp64", None)
    >>> float(cos[1, 0]) == float(np.float32(np.cos(1.0)))  # one step: exp(i omega) itself
    True
    >>> bool(abs(np.hypot(cos[2, 0], sin[2, 0]) - 1) > 1e-6)  # |z| drifts after 1e5 roundings
    True
    """

    _KEPT = 8  # schedules whose state is kept (a comparison interleaves a few)

    def __init__(self):
        self._states: dict = {}     # schedule -> (position p, z(p))

    def __call__(self, positions, config, dtype, seq_len):
        omega32 = inv_freq(config, "float32", seq_len)
        key = omega32.tobytes()
        position, state = self._states.pop(key, (0, None))
        if state is None or positions.size and positions.min() < position:
            position, state = 0, np.ones(omega32.shape, dtype=np.complex64)
        self._position, self._state = position, state
        step = (np.cos(omega32.astype(np.float64)).astype(np.float32)
                + 1j * np.sin(omega32.astype(np.float64)).astype(np.float32)).astype(np.complex64)
        table = np.empty((positions.shape[0], omega32.shape[0]), dtype=np.complex64)
        order = np.argsort(positions, kind="stable")
        sorted_positions = positions[order]
        done = 0
        while done < sorted_positions.size:
            wanted = sorted_positions[done]
            if wanted == self._position:
                table[order[done]] = self._state
                done += 1
                continue
            # advance the state through one block of steps, keeping every wanted position in it
            count = int(min(_BLOCK, sorted_positions[-1] - self._position))
            # row 0 holds the state, so every step goes through the same accumulate loop (a
            # separate `*=` may take a SIMD/FMA path that rounds differently)
            block = np.empty((count + 1, step.shape[0]), dtype=np.complex64)
            block[0] = self._state
            block[1:] = step
            np.cumprod(block, axis=0, out=block)
            stop = np.searchsorted(sorted_positions, self._position + count, side="right")
            inside = sorted_positions[done:stop]
            table[order[done:stop]] = block[inside - self._position]
            done = stop
            self._position += count
            self._state = block[-1].copy()
        self._states[key] = (self._position, self._state)
        while len(self._states) > self._KEPT:
            self._states.pop(next(iter(self._states)))
        scaling = attention_factor(config, "float64", seq_len)
        cos = table.real.astype(np.float32)
        sin = table.imag.astype(np.float32)
        if scaling != 1.0:
            cos, sin = cos * np.float32(scaling), sin * np.float32(scaling)
        return cos.astype(DTYPES[dtype]), sin.astype(DTYPES[dtype])
