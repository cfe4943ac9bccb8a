"""The phase decomposition: a frequency error per pair, and the phase noise it leaves per band.

The phase error ``phi(p) - p*omega`` of every pair is unwrapped along consecutive positions
(continuing across the driver's chunks) and fitted by ``(omega_eff - omega) * p``, a
least-squares slope through the origin. The fit is accumulated as moments per band and pair
(``sum p^2``, ``sum p d``, ``sum d^2``, taken about a first slope fitted on the first chunk), so
one pass over the positions suffices. A pair's relative frequency error counts as measured
only when it stands four standard errors above the noise and its phase is not lost.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PhaseFit", "FittedPhase", "unwrap"]

_PHASE_LOST = 0.5   # rad of residual phase noise beyond which a pair's frequency fit means nothing


def unwrap(delta: np.ndarray, previous: np.ndarray | None, steps: np.ndarray) -> np.ndarray:
    """Undo 2*pi jumps along the positions (axis 0), continuing from the previous chunk's last row.

    Returns ``delta`` itself when nothing jumps (the usual case: subtracting zero turns would
    give the same numbers), a new array otherwise. ``steps``: scratch of ``delta``'s shape.
    """
    head = delta[:1] if previous is None else previous   # previous is already unwrapped
    np.subtract(delta[:1], head, out=steps[:1])
    np.subtract(delta[1:], delta[:-1], out=steps[1:])
    if steps.size and max(steps.max(), -steps.min()) <= 3.0:
        return delta       # every step rounds to zero turns (3 / 2pi < 1/2): nothing to undo
    steps *= 1 / (2 * np.pi)
    np.rint(steps, out=steps)
    if not steps.any():
        return delta
    np.cumsum(steps, axis=0, out=steps)
    steps *= 2 * np.pi
    return delta - steps


@dataclass
class _ChunkMoments:
    """One chunk's phase error about the provisional slope, ready to be summed per band."""

    delta: np.ndarray          # (positions, pairs): the unwrapped phase error minus slope * p
    squares: np.ndarray        # p^2 (times the finite mask where some values were not finite)
    positions: np.ndarray      # p as float64
    weight: np.ndarray | None  # the finite mask as 0/1, None when every value was finite
    scratch: tuple             # buffers to hand back after the fold


@dataclass(frozen=True)
class FittedPhase:
    """Per pair: the fitted ``relative`` frequency error and its standard error ``stderr``,
    whether it is ``resolved`` (measured), the ``resolved_slope`` (rad per position, 0 where
    not resolved); per band and pair: the residual phase ``noise`` (RMS, rad)."""

    relative: np.ndarray
    stderr: np.ndarray
    noise: np.ndarray
    resolved: np.ndarray
    resolved_slope: np.ndarray


class PhaseFit:
    """Phase-fit moments of one streaming audit, per band and pair."""

    def __init__(self, bands: int, pairs: int, buffers, contiguous: bool):
        shape = (bands, pairs)
        self.s_pp, self.s_pd, self.s_dd, self.s_ww, self.n_valid = (np.zeros(shape) for _ in range(5))
        self.buffers = buffers
        self.contiguous = contiguous
        self.last_delta = None
        self.provisional_slope = None

    def moments(self, positions: np.ndarray, wrapped: np.ndarray, finite) -> _ChunkMoments:
        """The chunk's phase error (``wrapped``, per position and pair), unwrapped where the
        positions are consecutive and taken about the provisional slope."""
        delta = wrapped
        steps = None
        if self.contiguous:
            # Unwrap along consecutive positions so a steady frequency error keeps growing past pi.
            steps = self.buffers.take(delta.shape)
            delta = unwrap(delta, self.last_delta, steps)
            if finite is not None:
                delta[~finite] = 0.0
            self.last_delta = delta[-1:].copy()
        p = positions.astype(np.float64)
        if finite is None:
            weight, squares = None, (p * p)[:, None]
        else:
            weight = finite.astype(np.float64)
            squares = (p * p)[:, None] * weight
        p = p[:, None]
        if self.provisional_slope is None:
            # Moments are taken about a first slope fitted on this chunk, so that a large, clean
            # drift does not leave a cancellation floor (~1e-8 of the drift) in the residual.
            total = np.broadcast_to(squares, delta.shape).sum(axis=0)
            self.provisional_slope = (p * delta).sum(axis=0) / np.maximum(total, 1e-300)
        residual = np.multiply(self.provisional_slope, p, out=self.buffers.take(delta.shape))
        delta = np.subtract(delta, residual, out=residual)
        if weight is not None:
            delta *= weight
        return _ChunkMoments(delta, squares, p[:, 0], weight, (residual, steps))

    def fold(self, band: int, rows: slice, chunk: _ChunkMoments, wrapped: np.ndarray) -> None:
        """Add the rows ``rows`` of a chunk (all inside ``band``) to the band's moments."""
        delta = chunk.delta
        self.s_pp[band] += chunk.squares[rows].sum(axis=0)
        # p * delta summed down the rows, without the product array (the same sums)
        self.s_pd[band] += np.einsum("i,ij->j", chunk.positions[rows], delta[rows])
        self.s_dd[band] += np.einsum("ij,ij->j", delta[rows], delta[rows])
        self.s_ww[band] += np.einsum("ij,ij->j", wrapped[rows], wrapped[rows])
        self.n_valid[band] += (rows.stop - rows.start) if chunk.weight is None else \
            chunk.weight[rows].sum(axis=0)

    def fit(self, omegas: np.ndarray) -> FittedPhase:
        """The frequency error per pair and the residual noise per band, from the moments."""
        total_pp, total_pd = self.s_pp.sum(axis=0), self.s_pd.sum(axis=0)
        correction = total_pd / np.where(total_pp > 0, total_pp, np.inf)
        slope = self.provisional_slope + correction
        rotating = omegas > 0    # proportional RoPE's frequency-0 pairs have no relative error
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = np.where(rotating, slope / np.where(rotating, omegas, 1.0), np.nan)
        residual = self.s_dd - 2 * correction * self.s_pd + correction**2 * self.s_pp
        count = np.maximum(self.n_valid, 1)
        noise = np.sqrt(np.minimum(np.maximum(residual, 0) / count, self.s_ww / count))
        # Standard error of a least-squares slope through the origin; a pair's frequency error
        # counts as measured only when it stands four standard errors above the phase noise.
        spread = np.maximum(residual.sum(axis=0), 0) / np.maximum(self.n_valid.sum(axis=0) - 1, 1)
        stderr = np.where(rotating, np.sqrt(spread / np.where(total_pp > 0, total_pp, np.inf))
                          / np.where(rotating, omegas, 1.0), np.nan)
        # A pair whose phase is lost (residual noise of radians in some band: the unwrapping
        # then random-walks) has no meaningful frequency; neither does one buried in noise.
        with np.errstate(invalid="ignore"):
            resolved = rotating & (np.abs(relative) > 4 * stderr) & (noise.max(axis=0) < _PHASE_LOST)
        resolved_slope = np.where(resolved, np.abs(slope), 0.0)
        return FittedPhase(relative, stderr, noise, resolved, resolved_slope)
