"""The streaming audit: one implementation's table against the reference, band by band.

Positions are fed in ascending chunks (so memory stays bounded and sequential models such as
the recurrence pay for each step once). Every position of a band and every pair contributes to
the band's maxima; the phase fit (``_phase_fit.py``) is accumulated as moments so one pass
suffices.
"""

from __future__ import annotations

import math
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from symrope.audit._chunks import Buffers, Chunk, Done, PositionStream, complex_table
from symrope.audit._dtypes import widen
from symrope.audit._metrics import (amplitude_error, phase_error, random_query_key_weights,
                                    rotary_scores, rounding_floor)
from symrope.audit._models import ImplModel, dtype_name
from symrope.audit._phase_fit import PhaseFit
from symrope.audit._reference import block_workspace, row_blocks
from symrope.audit._user import check_finite
from symrope.audit._results import (AuditOptions, AuditResult, BandSummary, ExactSchedule,
                                    Implementation, as_implementation, exact_schedule)
from symrope.errors import InternalError, SymropeError, UsageError
from symrope.schedules import RopeConfig

_FINE_BINS_PER_OCTAVE = 8

__all__ = ["AuditOptions", "AuditResult", "BandSummary", "ExactSchedule", "Implementation",
           "as_implementation", "audit", "exact_schedule"]


def audit(target: "str | ImplModel | Implementation | Any", config: RopeConfig,
          options: AuditOptions | None = None,
          schedule: ExactSchedule | None = None) -> AuditResult:
    """Audit one implementation's rotary table against the exact schedule.

    Parameters
    ==========
    target : str, ImplModel or object with ``table``
        What to audit (a built-in model name such as ``"hf"``).
    config : RopeConfig
        The frequency schedule.
    options : AuditOptions, optional
        Positions, dtype, tolerance, seed, offsets; the CLI's defaults otherwise.
    schedule : ExactSchedule, optional
        A reference already built for ``config`` (shared across a comparison).

    Returns
    =======
    AuditResult

    Examples
    ========
    >>> from symrope.schedules import RopeConfig
    >>> config = RopeConfig.from_options(head_dim=32, theta=10000)
    >>> result = audit("neox-fp16", config, AuditOptions(max_position=2047, progress=False))
    >>> round(result.worst("max_abs_error"), 2)       # GPT-NeoX issue 1003
    0.78
    """
    options = options or AuditOptions()
    impl = as_implementation(target)
    schedule = schedule or exact_schedule(config, options.seq_len)
    stream = PositionStream(options)
    run = _Run(impl, config, options, schedule, stream)
    return run.execute()


def _fine_edges(max_position: int) -> np.ndarray:
    """Plot bins: [0, 16) then 8 log-spaced bins per octave up to the last position."""
    octaves = max(math.log2(max_position + 1) - 4, 0)
    # Python's pow per edge (numpy's vectorised one differs by an ulp across SIMD paths)
    steps = np.linspace(0, octaves, int(octaves * _FINE_BINS_PER_OCTAVE) + 1)
    edges = np.unique(np.round([16 * 2.0 ** float(step) for step in steps]))
    return np.concatenate([[0], edges[edges <= max_position]]).astype(np.int64)


class _Run:
    """The state of one streaming audit (accumulators per band, pair and plot bin)."""

    def __init__(self, impl, config, options, schedule, stream):
        self.impl, self.config, self.options, self.schedule, self.stream = \
            impl, config, options, schedule, stream
        self.pairs = schedule.reference.pairs
        self.bands = stream.band_edges()
        self.band_lo = np.array([lo for lo, _ in self.bands], dtype=np.int64)
        self.dtype = dtype_name(options.dtype or impl.default_dtype)
        shape = (len(self.bands), self.pairs)
        self.max_abs, self.max_phase, self.max_amp = (np.zeros(shape) for _ in range(3))
        self.invariance = np.full((len(self.bands), len(options.offsets)), np.nan)
        self.counts = np.zeros(len(self.bands), dtype=np.int64)
        self.nonfinite = np.zeros(len(self.bands), dtype=np.int64)
        self.fine_edges = _fine_edges(stream.max_position)
        self.fine = {key: np.zeros(len(self.fine_edges)) for key in
                     ("max_abs_error", "max_phase_error", "amplitude_error", "invariance_violation")}
        self.first_unsafe: int | None = None
        self.weights = random_query_key_weights(self.pairs, options.vectors, options.seed)
        offsets = [int(d) for d in options.offsets]
        if any(d < 1 for d in offsets):
            raise UsageError(f"score offsets must be positive integers, got {offsets}")
        exact_cos, exact_sin, _ = schedule.reference.cos_sin(np.array(offsets, dtype=np.int64))
        rotation = (exact_cos + 1j * exact_sin) * schedule.amplitude**2      # (offsets, pairs)
        self.exact_scores = (rotation @ self.weights).real                   # (offsets, vectors)
        self.history = max(offsets)
        self.tolerance = float(options.tolerance)
        if not (self.tolerance > 0 and np.isfinite(self.tolerance)):
            raise UsageError(f"the tolerance must be a positive number, got {options.tolerance!r}")
        # The safe context is the prefix 0..N-1 of positions all audited and all within the
        # tolerance: it ends at the first failure or at the first position not audited.
        self.prefix_end = 0
        self.native_dtype = None
        self.buffers = Buffers()
        self.phase = PhaseFit(len(self.bands), self.pairs, self.buffers, stream.contiguous)

    # --- the implementation, checked ------------------------------------------------------------
    def table(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        impl, expected = self.impl, (positions.shape[0], self.pairs)
        try:
            if self.options.seq_len is None:
                result = impl.table(positions, self.config, self.dtype)
            else:
                result = impl.table(positions, self.config, self.dtype, seq_len=self.options.seq_len)
        except SymropeError:
            raise
        except Exception as error:
            if not impl.user_supplied:
                raise
            message = " ".join(str(error).split())[:200]
            raise UsageError(f"implementation {impl.name!r} raised {type(error).__name__}: "
                             f"{message}") from None
        complaint = UsageError if impl.user_supplied else InternalError
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise complaint(f"implementation {impl.name!r} must return (cos, sin), "
                            f"got {type(result).__name__}")
        cos, sin = (np.asarray(part) for part in result)
        for label, part in (("cos", cos), ("sin", sin)):
            if part.shape != expected:
                raise complaint(f"implementation {impl.name!r} returned {label} of shape "
                                f"{part.shape}, expected {expected} (positions, rotary_dim/2)")
            if part.dtype.kind != "f" and part.dtype.name != "bfloat16":
                raise complaint(f"implementation {impl.name!r} returned {label} of dtype "
                                f"{part.dtype}, expected floats")
        if impl.user_supplied:
            check_finite(cos, sin, positions, f"implementation {impl.name!r}")
        return cos, sin

    # --- the pass ---------------------------------------------------------------------------------
    def execute(self) -> AuditResult:
        started = time.perf_counter()
        keep_pos = np.empty(0, dtype=np.int64)
        keep_table = np.empty((0, self.pairs), dtype=np.complex128)
        from tqdm.auto import tqdm  # imported here: only long audits show it

        show = self.options.progress
        if show is None:
            show = sys.stderr.isatty() and self.stream.count > 200_000
        with tqdm(total=self.stream.count, desc=f"audit {self.impl.name}", unit="pos",
                  unit_scale=True, file=sys.stderr, disable=not show, leave=False) as bar, \
                ThreadPoolExecutor(max_workers=1) as worker, \
                ThreadPoolExecutor(max_workers=1) as reference_worker, \
                ThreadPoolExecutor(max_workers=1) as side:
            # The next chunk's table is computed on a worker thread, and its reference on a
            # second one, while this one folds the current chunk (numpy releases the GIL); the
            # order of table calls is kept. Three threads share the cores better than two.
            pending = logits = None
            for positions in self.stream:
                ahead = None
                if self.stream.contiguous:
                    exact = reference_worker.submit(self._reference, positions)
                    ahead = worker.submit(self._prepare, positions, exact)
                if pending is not None:
                    keep_pos, keep_table = self._consume(pending, keep_pos, keep_table, bar)
                    if logits is None and self.impl.pure:
                        # the dtype is known from the first chunk: a table without state can
                        # measure the logits on a side thread during the stream, not after it
                        logits = side.submit(self._logits)
                pending = ahead if ahead is not None else Done(self._prepare(positions))
            if pending is not None:
                keep_pos, keep_table = self._consume(pending, keep_pos, keep_table, bar)
            seconds = time.perf_counter() - started
            logits = logits.result() if logits is not None else None
        return self._finish(seconds, logits)

    def _reference(self, positions) -> tuple[np.ndarray, np.ndarray]:
        """The exact cos and sin of one chunk (on its own thread, beside the table's)."""
        shape = (positions.size, self.pairs)
        exact_cos, exact_sin = self.buffers.take(shape), self.buffers.take(shape)
        self.schedule.reference.cos_sin(positions, out=(exact_cos, exact_sin))
        return exact_cos, exact_sin

    def _prepare(self, positions, exact=None) -> "Chunk":
        """Everything elementwise about one chunk (runs on the worker thread, ahead of the fold);
        ``exact``: a future of the chunk's reference (None: computed here)."""
        cos_native, sin_native = self.table(positions)
        self.chunk_dtype = cos_native.dtype
        take, shape = self.buffers.take, cos_native.shape
        narrow = min(cos_native.dtype.itemsize, sin_native.dtype.itemsize) < 4   # bf16 or fp16
        middle = take(shape, np.float32) if narrow else None
        cos, sin = widen(cos_native, take(shape), middle), widen(sin_native, take(shape), middle)
        self.buffers.give(middle)
        amplitude = self.schedule.amplitude
        finite = None
        if not (np.isfinite(cos).all() and np.isfinite(sin).all()):
            finite = np.isfinite(cos) & np.isfinite(sin)
            np.copyto(cos, 0.0, where=~finite)
            np.copyto(sin, 0.0, where=~finite)
        exact_cos, exact_sin = self._reference(positions) if exact is None else exact.result()
        error, other = take(shape), take(shape)
        # room above the table for the rows the fold keeps from earlier chunks (no concatenation)
        with_history = take((self.history + 1 + shape[0], shape[1]), np.complex128)
        table = with_history[self.history + 1:]
        wrapped = take(shape)
        work = block_workspace(self.pairs)   # this thread's block scratch
        # Elementwise work in blocks of rows that stay in cache (every entry is computed as it
        # would be for the whole chunk at once: the same numbers, fewer trips to memory).
        for rows in row_blocks(positions.size):
            scaled_cos, scaled_sin = exact_cos[rows], exact_sin[rows]
            if amplitude != 1.0:
                scaled_cos, scaled_sin = scaled_cos * amplitude, scaled_sin * amplitude
            block_error, block_other = error[rows], other[rows]
            np.subtract(cos[rows], scaled_cos, out=block_error)
            np.abs(block_error, out=block_error)
            np.subtract(sin[rows], scaled_sin, out=block_other)
            np.abs(block_other, out=block_other)
            np.maximum(block_error, block_other, out=block_error)
            table[rows].real, table[rows].imag = cos[rows], sin[rows]
            # the amplitude error, into ``other`` (free again): this balances the two threads
            block_spare = work("spare", rows)
            amplitude_error(cos[rows], sin[rows], amplitude, scratch=block_spare, out=block_other)
            # the wrapped phase error, here while the block is in cache (the reference has its
            # own thread now, so the worker can carry it again)
            phase_error(cos[rows], sin[rows], exact_cos[rows], exact_sin[rows], scratch=block_spare,
                        out=wrapped[rows], dot=work("dot", rows))
        # the widened table and the reference are read only above: back to the pool now
        self.buffers.give(cos, sin, exact_cos, exact_sin)
        if finite is not None:
            error[~finite] = np.inf
            other[~finite] = np.inf
            wrapped[~finite] = 0.0
        return Chunk(positions, error, finite, other, with_history, wrapped)

    def _consume(self, pending, keep_pos, keep_table, bar):
        chunk = pending.result()
        positions = chunk.positions
        known_pos = np.concatenate([keep_pos, positions])
        known_table = chunk.with_history[chunk.with_history.shape[0] - known_pos.size:]
        known_table[:keep_pos.size] = keep_table
        self._fold(chunk)
        self._scores(positions, known_pos, known_table)
        keep = known_pos >= positions[-1] - self.history
        bar.update(positions.size)
        if self.options.on_progress is not None:
            self.options.on_progress(int(positions.size))
        keep_pos, keep_table = known_pos[keep], known_table[keep]      # copies
        self.buffers.give(chunk.error, chunk.amplitude, chunk.with_history)
        return keep_pos, keep_table

    def _segments(self, positions: np.ndarray):
        """(band index, start, stop) of the runs of ``positions`` inside each band."""
        index = np.searchsorted(self.band_lo, positions, side="right") - 1
        cuts = np.flatnonzero(np.diff(index)) + 1
        starts = np.concatenate([[0], cuts])
        stops = np.concatenate([cuts, [positions.size]])
        return [(int(index[a]), int(a), int(b)) for a, b in zip(starts, stops)]

    def _fold(self, chunk: "Chunk"):
        """Fold one measured chunk into the per-band, per-pair accumulators (in position order)."""
        positions, error, finite = chunk.positions, chunk.error, chunk.finite
        wrapped, amp = chunk.wrapped, chunk.amplitude
        moments = self.phase.moments(positions, wrapped, finite)
        magnitude = np.abs(wrapped, out=self.buffers.take(wrapped.shape))
        peak_error = self._maxima(positions, error, magnitude, amp)
        for band, start, stop in self._segments(positions):
            self.phase.fold(band, slice(start, stop), moments, wrapped)
            self.counts[band] += stop - start
            self.nonfinite[band] += 0 if finite is None else int((~finite[start:stop]).sum())
        if self.first_unsafe is None and not peak_error <= self.tolerance:
            # only the chunk where the tolerance first fails is searched row by row
            unsafe = np.flatnonzero(~(error.max(axis=1) <= self.tolerance))
            self.first_unsafe = int(positions[unsafe[0]])
        self._extend_prefix(positions)
        self.native_dtype = self.chunk_dtype
        self.buffers.give(wrapped, magnitude, *moments.scratch)

    def _maxima(self, positions, error, magnitude, amp) -> float:
        """Fold the per-band, per-pair maxima and the plot bins' maxima of one chunk; return its
        largest error. Each measure is reduced once down the rows, per pair and per run of rows
        inside one plot bin and one band; the bands' and the bins' maxima come from those few
        rows (maxima are exact: the same numbers in any order). Reducing across each row instead
        cost as much again."""
        bins = np.searchsorted(self.fine_edges, positions, side="right") - 1
        bands = np.searchsorted(self.band_lo, positions, side="right") - 1
        starts = np.concatenate([[0], np.flatnonzero((np.diff(bins) != 0) | (np.diff(bands) != 0)) + 1])
        band_of = bands[starts]
        peak = -np.inf
        for key, values, per_band in (("max_abs_error", error, self.max_abs),
                                      ("max_phase_error", magnitude, self.max_phase),
                                      ("amplitude_error", amp, self.max_amp)):
            peaks = np.maximum.reduceat(values, starts, axis=0)          # (bins here, pairs)
            np.maximum.at(self.fine[key], bins[starts], peaks.max(axis=1))
            for band in np.unique(band_of):
                np.maximum(per_band[band], peaks[band_of == band].max(axis=0), out=per_band[band])
            if key == "max_abs_error":
                peak = peaks.max()
        return float(peak)

    def _extend_prefix(self, positions):
        """Advance the audited-and-safe prefix 0..prefix_end-1 through this (ascending) chunk."""
        if self.prefix_end < 0:
            return
        limit = positions.size if self.first_unsafe is None else \
            int(np.searchsorted(positions, self.first_unsafe))
        run = positions[:limit] - self.prefix_end
        broken = np.flatnonzero(run != np.arange(limit))
        if broken.size:
            self.prefix_end = -(self.prefix_end + int(broken[0])) - 1   # stopped: a gap
        elif limit < positions.size:
            self.prefix_end = -(self.prefix_end + limit) - 1             # stopped: a failure
        else:
            self.prefix_end += limit

    def _fine_max(self, positions, key, values):
        bins = np.searchsorted(self.fine_edges, positions, side="right") - 1
        starts = np.concatenate([[0], np.flatnonzero(np.diff(bins)) + 1])
        peaks = np.maximum.reduceat(values, starts)
        np.maximum.at(self.fine[key], bins[starts], peaks)

    def _rows(self, wanted, known_pos, known_table):
        """Table rows (cos + i sin) at ``wanted``: from the stream if seen recently, else a side call."""
        if known_pos.size and wanted.size and wanted[-1] - wanted[0] == wanted.size - 1:
            start = int(np.searchsorted(known_pos, wanted[0]))
            stop = start + wanted.size
            if stop <= known_pos.size and known_pos[start] == wanted[0] and known_pos[stop - 1] == wanted[-1]:
                return known_table[start:stop]   # a run of the stream: a view
        index = np.minimum(np.searchsorted(known_pos, wanted), max(known_pos.size - 1, 0))
        found = known_pos[index] == wanted if known_pos.size else np.zeros(wanted.shape, bool)
        rows = np.empty((wanted.size, self.pairs), dtype=np.complex128)
        rows[found] = known_table[index[found]]
        if not found.all():
            rows[~found] = complex_table(*(widen(part) for part in self.table(wanted[~found])))
        return rows

    def _scores(self, positions, known_pos, known_table):
        per_position = np.full(positions.size, -np.inf)
        segments = self._segments(positions)
        for column, offset in enumerate(self.options.offsets):
            later = positions >= offset
            if not later.any():
                continue
            current = known_table[known_pos.size - positions.size:]
            if not later.all():
                current = current[later]
            earlier = self._rows(positions[later] - offset, known_pos, known_table)
            scores = rotary_scores(earlier, current, self.weights)
            violation = np.full(positions.size, np.nan)
            violation[later] = np.abs(scores - self.exact_scores[column]).max(axis=1)
            for band, start, stop in segments:
                part = violation[start:stop]
                if not np.isnan(part).all():
                    self.invariance[band, column] = np.fmax(self.invariance[band, column], np.nanmax(part))
            per_position = np.fmax(per_position, violation)
        has = ~np.isnan(per_position) & (per_position > -np.inf)
        if has.any():
            self._fine_max(positions[has], "invariance_violation", per_position[has])

    def _logits(self) -> dict:
        """What attention sees, on a seeded sample per band (``_logits.py``)."""
        from symrope.audit._logits import measure_logits

        dtype = self._reported_dtype()
        logits = measure_logits(self.impl, self.config, self.schedule, dtype, self.bands,
                                seed=self.options.seed, per_band=self.options.logit_keys,
                                vectors=self.options.vectors)
        reference = self.impl.phase_reference() if self.impl.phase_reference else None
        if reference is not None and self.impl.rotate is not None:
            from symrope.audit._outputs import output_mismatch, seeded_vectors

            vectors = seeded_vectors(self.options.vectors, self.config.head_dim, dtype, self.options.seed)
            found = output_mismatch(self.impl.rotate, reference.rotate, [hi for _, hi in self.bands],
                                    vectors, dtype)
            found["against"] = ("the same module without the knobs (float32 phase), both through "
                                "the library's apply function; outputs compared bit for bit; "
                                "seeded standard normal q rounded to the dtype")
            logits["method"]["output_mismatch"] = found
        return logits

    def _reported_dtype(self) -> str:
        if self.native_dtype is None or self.impl.scaled_table:
            return self.dtype   # a scaled table comes back in float64: the audited dtype is asked
        return dtype_name(self.native_dtype)

    def _explanation(self) -> str:
        explanation = self.impl.explanation
        if callable(explanation):
            return explanation(self._reported_dtype())
        return str(explanation or "")

    # --- the summary ------------------------------------------------------------------------------
    def _finish(self, seconds: float, logits: dict | None = None) -> AuditResult:
        logits = self._logits() if logits is None else logits
        phase = self.phase.fit(self.schedule.omegas)
        relative, stderr, noise, resolved = phase.relative, phase.stderr, phase.noise, phase.resolved
        resolved_slope = phase.resolved_slope
        amplitude = self.schedule.amplitude
        summaries = []
        for band, (lo, hi) in enumerate(self.bands):
            drift = float(resolved_slope.max() * hi)
            # What each component can do to cos/sin: a phase error phi moves them by at most
            # 2 |sin(phi / 2)| <= min(phi, 2).
            components = {"frequency": amplitude * min(drift, 2.0),
                          "phase noise": amplitude * min(float(noise[band].max()), 2.0),
                          "amplitude": float(self.max_amp[band].max())}
            invariance = self.invariance[band]
            summaries.append(BandSummary(
                lo=lo, hi=hi, positions=int(self.counts[band]),
                max_abs_error=float(self.max_abs[band].max()),
                correct_bits=_correct_bits(float(self.max_abs[band].max())),
                max_phase_error=float(self.max_phase[band].max()),
                phase_noise=float(noise[band].max()),
                frequency_drift=drift,
                amplitude_error=float(self.max_amp[band].max()),
                invariance_violation=None if np.isnan(invariance).all() else float(np.nanmax(invariance)),
                shift_violation=logits["shift_violation"][band],
                logit_error=logits["logit_error"][band],
                nonfinite=int(self.nonfinite[band]),
                worst_pair=int(self.max_abs[band].argmax()),
                dominant=max(components, key=components.get)))
        # A failing position is never inside the safe context, and neither is one not audited.
        safe = self.prefix_end if self.prefix_end >= 0 else -self.prefix_end - 1
        lower_bound = self.first_unsafe is None or safe < self.first_unsafe
        keep = self.fine["max_abs_error"] > 0
        fine = {"lo": self.fine_edges[keep].tolist()}
        fine.update({key: values[keep].tolist() for key, values in self.fine.items()})
        fine["logit_positions"] = logits.pop("positions")
        fine["logit_error"] = logits.pop("position_error")
        return AuditResult(
            impl=self.impl.name, summary=self.impl.summary, explanation=self._explanation(),
            fix=self.impl.fix, dtype=self._reported_dtype(),
            config=self.config.describe(), max_position=self.stream.max_position,
            positions=self.stream.count, tolerance=float(self.tolerance), amplitude=amplitude,
            bands=summaries,
            frequency_error=float(np.abs(relative[resolved]).max()) if resolved.any() else None,
            frequency_error_per_pair=[float(v) for v in relative],
            frequency_error_stderr=[float(v) for v in stderr], safe_context=int(safe),
            safe_context_is_lower_bound=lower_bound, first_failure=self.first_unsafe, offsets=tuple(self.options.offsets),
            seconds=round(seconds, 3), fine=fine, fix_target=self.impl.fix_target,
            logits={"logit_error_unit": logits["logit_error_unit"], **logits["method"]},
            rounding_floor=self._rounding_floor())

    def _rounding_floor(self) -> float:
        """What correct rounding alone costs the table: in the dtype it came back in, at the
        largest size of its entries (the attention factor: cos at position 0 times it)."""
        if self.native_dtype is None:
            return 0.0
        return rounding_floor(self.native_dtype, self.schedule.amplitude)


def _correct_bits(max_abs_error: float) -> float | None:
    """``-log2(max |err|)``: how many leading bits of cos/sin are right (None: no error at all)."""
    if max_abs_error == 0:
        return None
    return float(-np.log2(max_abs_error))
