"""How a compiled kernel relates to a lifted reference: same encoding, same up to basis, or
different -- and which parameter explains a difference that is not rounding.

A compiled kernel (``mx.fast.rope``) cannot be lifted, so its relation to a lifted reference
(transformers' rotary class lifted to exact SymPy, whose generator the checker proved: planes
``(a, b)`` turning at exact frequencies ``omega``) is decided numerically, from the kernel's
own outputs on unit vectors:

1. **layout**: which coordinates the kernel pairs (read off its outputs at positions where
   every plane turns), matched to the reference's planes by frequency rank; the permutation
   ``P`` between them is the identity (same basis), the fixed interleaved <-> rotate_half
   permutation (the same encoding up to a change of basis that trained weights absorb), or
   another one;
2. **frequencies**: each kernel pair's frequency, read from its phase at positions 1, 2, 4,
   ..., 2^16 (unwrapped) in float32, against the reference's: equal up to rounding (relative
   difference below 1e-4), a common factor (a position ``scale``), a different ``base`` (the
   log-frequencies fit ``-(2i/d) log base``), or a schedule that differs on some pairs;
3. **amplitude**: the norm of a rotated unit vector (an attention factor, YaRN's mscale);
4. **bands**: per log band of positions, the largest difference of the kernel's rotated unit
   vectors (in the audited dtype) from the exact reference, (a) as is, (b) in the kernel's
   basis (``P F(p) P^T``), (c) with the kernel's own frequencies and amplitude: (b) small
   while (a) is O(1) is a layout difference; (c) small while (b) is O(1) is a frequency or
   amplitude difference; (c) itself is the kernel's rounding.

Nothing here imports a framework; the kernel is anything with ``rotate(x, positions, dtype)``
and ``rope_config``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy as sp

from symrope._parse import parse_number
from symrope.errors import UsageError

__all__ = ["Relation", "reference_planes", "relate"]

_SAME_FREQUENCY = 1e-4     # relative: far above float32 rounding of omega (6e-8) and the probe
_PROBE_POSITIONS = (1, 1000, 100003)


def reference_planes(report, head_dim: int) -> list[tuple[int, int, sp.Rational]]:
    """The rotation planes ``(a, b, omega)`` of a lifted reference whose check proved it a
    pure rotation ``exp(pX)`` (``X e_a = omega e_b``); UsageError otherwise."""
    generator = getattr(report, "generator", None) or {}
    exponential = (generator.get("exponential") or {}).get("verdict")
    rotation = (generator.get("pure_rotation") or {}).get("verdict")
    if report.verdict != "proved" or exponential != "proved" or rotation != "proved":
        raise UsageError("the reference must be proved a pure rotation exp(pX) (verdict "
                         f"{report.verdict}, exp {exponential}, rotation {rotation})")
    axes = generator.get("axes") or []
    if len(axes) != 1:
        raise UsageError("the reference must have one position axis")
    planes = []
    for block in axes[0]["blocks"]:
        a, b = block["indices"]
        planes.append((int(a), int(b), _plane_frequency(block["matrix"])))
    if any(max(a, b) >= head_dim for a, b, _ in planes):
        raise UsageError("the reference's planes do not fit the head dimension")
    return planes


def _plane_frequency(matrix: str) -> sp.Rational:
    """``omega`` of a generator block ``[[0, -omega], [omega, 0]]`` as the report prints it: the
    text is read as numbers, never evaluated (a lifted reference's frequencies are the exact
    rationals of float constants)."""
    entries = [entry.strip() for entry in matrix.replace("[", "").replace("]", "").split(",")]
    if len(entries) != 4:
        raise UsageError(f"a generator block {matrix} is not a plane")
    omega = parse_number(entries[2], "a reference frequency")
    if isinstance(omega, str):
        raise UsageError(f"a reference frequency {omega!r} is not an exact rational")
    return sp.Rational(omega.numerator, omega.denominator)


@dataclass
class Relation:
    """What :func:`relate` found (``text()`` for people, ``to_dict()`` for ``--json``)."""

    name: str
    dtype: str
    verdict: str                 # "same", "same up to basis", "different"
    layout: str
    frequencies: str
    amplitude: str
    permutation_is_identity: bool
    max_relative_frequency_difference: float
    kernel_base: float | None
    reference_base: float | None
    bands: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def text(self) -> str:
        lines = [f"{self.name} ({self.dtype}) against the lifted reference: {self.verdict}",
                 f"  layout: {self.layout}", f"  frequencies: {self.frequencies}",
                 f"  amplitude: {self.amplitude}",
                 "  band (inclusive)      as is   kernel basis  kernel params  explained by"]
        for band in self.bands:
            lines.append(f"  {band['band']:<18} {band['as_is']:9.3g} {band['kernel_basis']:13.3g} "
                         f"{band['kernel_parameters']:14.3g}  {band['cause']}")
        return "\n".join(lines)


def _rotate_basis(kernel, channels, positions, dtype) -> np.ndarray:
    """The kernel's rotation of ``e_j`` for each j of ``channels``: (n, len(channels), d)."""
    d = kernel.rope_config.head_dim
    x = np.zeros((len(positions), len(channels), d))
    x[:, np.arange(len(channels)), channels] = 1.0
    out = kernel.rotate(x, np.asarray(positions, dtype=np.int64), dtype)
    return np.asarray(out, dtype=np.float64)


def _kernel_pairs(kernel) -> list[tuple[int, int]]:
    """The coordinates the kernel turns together, oriented so that e_a turns toward +e_b."""
    d = kernel.rope_config.head_dim
    rotated = _rotate_basis(kernel, np.arange(d), _PROBE_POSITIONS, "fp32")
    weight = np.abs(rotated).sum(axis=0)            # (input j, output i)
    pairs, seen = [], set()
    for j in range(d):
        if j in seen:
            continue
        others = weight[j].copy()
        others[j] = 0.0
        partner = int(np.argmax(others))
        if others[partner] <= 1e-6 * max(1.0, weight[j, j]):
            continue                                  # pass-through coordinate
        seen.update((j, partner))
        first, second = (j, partner) if rotated[0, j, partner] > 0 else (partner, j)
        pairs.append((first, second))
    return pairs


def _kernel_frequencies(kernel, pairs) -> np.ndarray:
    """Each pair's frequency from its phase at 1, 2, 4, ..., 2^16, unwrapped (float32 run)."""
    firsts = np.array([a for a, _ in pairs])
    positions = [1 << k for k in range(17)]
    rotated = _rotate_basis(kernel, firsts, positions, "fp32")
    index = np.arange(len(pairs))
    seconds = np.array([b for _, b in pairs])
    phase = np.arctan2(rotated[:, index, seconds], rotated[:, index, firsts])
    omega = phase[0].copy()
    for k, p in enumerate(positions[1:], start=1):
        turns = np.round((omega * p - phase[k]) / (2 * np.pi))
        omega = (phase[k] + 2 * np.pi * turns) / p
    return omega


def _base_fit(omegas: np.ndarray, d: int) -> tuple[float | None, float]:
    """The base b with omega_i = b^(-2i/d) that fits best (least squares through the origin in
    log space) and the largest relative misfit; (None, inf) without positive frequencies."""
    index = np.arange(len(omegas))
    keep = (omegas > 0) & (index > 0)
    if not keep.any():
        return None, float("inf")
    x, y = 2 * index[keep] / d, -np.log(omegas[keep])
    log_base = float(np.dot(x, y) / np.dot(x, x))
    misfit = float(np.max(np.abs(np.expm1(-x * log_base + y))))
    return float(np.exp(log_base)), misfit


def _exact_cos_sin(omegas, positions) -> tuple[np.ndarray, np.ndarray]:
    from symrope.audit._reference import Reference

    with mpmath.workprec(256):
        values = [mpmath.mpf(int(w.p)) / int(w.q) if isinstance(w, sp.Rational)
                  else mpmath.mpf(float(w)) for w in omegas]
        reference = Reference(values, precision_bits=256)
    cos, sin, _ = reference.cos_sin(np.asarray(positions, dtype=np.int64))
    return cos, sin


def _band_positions(lo: int, hi: int, count: int = 96) -> np.ndarray:
    rng = np.random.default_rng(lo + 7 * hi)
    inside = rng.integers(lo, hi + 1, size=count)
    return np.unique(np.concatenate([[lo, hi], inside]))


def relate(kernel, planes, name: str, dtype: str = "fp32", max_position: int = 65535,
           reference_base: float | None = None) -> Relation:
    """Relate ``kernel`` to the reference ``planes`` (:func:`reference_planes`), band by band.

    Examples
    ========

    See ``tests/test_mlx_audit.py``: ``mx.fast.rope(traditional=True)`` against transformers'
    lifted Llama rope is "same up to basis", and ``base=10000`` against theta 500000 is a
    frequency difference named as the base.
    """
    d = kernel.rope_config.head_dim
    pairs = _kernel_pairs(kernel)
    if len(pairs) != len(planes):
        raise UsageError(f"{name} turns {len(pairs)} planes, the reference {len(planes)}")
    kernel_omega = _kernel_frequencies(kernel, pairs)
    order_kernel = np.argsort(-kernel_omega, kind="stable")
    reference_omega = np.array([float(w) for _, _, w in planes])
    order_reference = np.argsort(-reference_omega, kind="stable")
    matched = [(pairs[k], planes[r], kernel_omega[k])
               for k, r in zip(order_kernel, order_reference)]
    identity = all((ka, kb) == (ra, rb) for (ka, kb), (ra, rb, _), _ in matched)
    swapped = {(ra, rb): (ka, kb) for (ka, kb), (ra, rb, _), _ in matched}
    half = d // 2
    standard = all(swapped.get((i, i + half)) == (2 * i, 2 * i + 1) for i in range(half)) or \
        all(swapped.get((2 * i, 2 * i + 1)) == (i, i + half) for i in range(half))
    if identity:
        layout = "same basis (the kernel pairs the reference's coordinates)"
    elif standard and len(pairs) == half:
        layout = ("a fixed permutation of coordinates: the kernel pairs "
                  f"{'(2i, 2i+1) (interleaved)' if matched[0][0][1] == matched[0][0][0] + 1 else '(i, i + d/2) (rotate_half)'} "
                  "where the reference pairs the other way: the same encoding up to a change of "
                  "basis (trained weights absorb it, but weights trained for one are wrong for "
                  "the other)")
    else:
        layout = "coordinates permuted: " + ", ".join(
            f"{r[:2]}->{k}" for k, r, _ in matched[:4]) + " ..."
    relative = np.array([w_k / float(r[2]) - 1 for _, r, w_k in matched if r[2] != 0])
    worst = float(np.max(np.abs(relative))) if relative.size else 0.0
    ref_sorted = np.array([float(r[2]) for _, r, _ in matched])
    ker_sorted = np.array([w for _, _, w in matched])
    kernel_base, kernel_misfit = _base_fit(ker_sorted, d)
    fitted_reference_base, reference_misfit = _base_fit(ref_sorted, d)
    reference_base = reference_base or fitted_reference_base
    named = "frequencies"
    if worst <= _SAME_FREQUENCY:
        frequencies = (f"equal up to rounding (largest relative difference {worst:.2g} over "
                       f"{len(matched)} planes)")
    elif relative.size and np.ptp(relative) <= _SAME_FREQUENCY:
        named = f"frequencies: positions scaled by {1 + relative.mean():.6g}"
        frequencies = (f"every frequency times {1 + relative.mean():.6g}: a position scale "
                       "(the kernel's scale or a linear factor) differs -- O(1) at small positions")
    elif kernel_misfit < 1e-3 and reference_misfit < 1e-3:
        named = f"frequencies: base {kernel_base:.6g} instead of {reference_base:.6g}"
        frequencies = (f"a different base: the kernel's frequencies are base^(-2i/d) with base "
                       f"{kernel_base:.6g}, the reference's with base {reference_base:.6g} "
                       f"(largest relative difference {worst:.3g}) -- O(1) at small positions")
    else:
        differ = int(np.sum(np.abs(relative) > _SAME_FREQUENCY))
        named = f"frequencies: the schedule differs on {differ} planes"
        frequencies = (f"a different schedule on {differ} of {len(matched)} planes (largest "
                       f"relative difference {worst:.3g})"
                       + (f"; the kernel's are plain base^(-2i/d) with base {kernel_base:.6g}, "
                          "so the reference's scaling is not applied" if kernel_misfit < 1e-3
                          else ""))
    rotated = _rotate_basis(kernel, np.array([k[0] for k, _, _ in matched]), [0], "fp32")[0]
    norms = np.linalg.norm(rotated, axis=1)
    amplitude_value = float(np.median(norms))
    amplitude = ("1 (no scale)" if abs(amplitude_value - 1) <= 1e-3 else
                 f"{amplitude_value:.6g}: the kernel scales the rotated vectors (an attention "
                 "factor or mscale)")
    bands = _bands(kernel, matched, d, dtype, max_position, amplitude_value, named)
    if identity and worst <= _SAME_FREQUENCY and abs(amplitude_value - 1) <= 1e-3:
        verdict = "same encoding (the differences are rounding)"
    elif worst <= _SAME_FREQUENCY and abs(amplitude_value - 1) <= 1e-3:
        verdict = "same up to basis (a fixed permutation: the layout differs)"
    else:
        verdict = "different encoding (" + ", ".join(
            part for part, on in ((named, worst > _SAME_FREQUENCY),
                                  ("amplitude", abs(amplitude_value - 1) > 1e-3),
                                  ("layout", not identity)) if on) + ")"
    return Relation(name, dtype, verdict, layout, frequencies, amplitude, identity, worst,
                    kernel_base if kernel_misfit < 1e-3 else None, reference_base, bands)


def _bands(kernel, matched, d, dtype, max_position, amplitude, named) -> list[dict]:
    from symrope.audit._metrics import log_bands

    firsts = np.array([k[0] for k, _, _ in matched])
    rows = []
    for lo, hi in log_bands(max_position):
        positions = _band_positions(lo, hi)
        rotated = _rotate_basis(kernel, firsts, positions, dtype)   # (n, planes, d)
        exact = {}
        for label, omegas, scale in (("reference", [r[2] for _, r, _ in matched], 1.0),
                                     ("kernel", [w for _, _, w in matched], amplitude)):
            cos, sin = _exact_cos_sin(omegas, positions)
            exact[label] = (cos * scale, sin * scale)
        as_is = np.zeros_like(rotated)          # the reference's F(p) e_j, its own basis
        in_kernel = np.zeros_like(rotated)      # P F(p) P^T e_j: the reference in the kernel's
        explained = np.zeros_like(rotated)      # the kernel's own parameters
        for v, ((ka, kb), (ra, rb, _), _) in enumerate(matched):
            cos, sin = exact["reference"][0][:, v], exact["reference"][1][:, v]
            if ka == ra:
                as_is[:, v, ra], as_is[:, v, rb] = cos, sin
            elif ka == rb:
                as_is[:, v, rb], as_is[:, v, ra] = cos, -sin
            else:                                # e_ka is another plane's coordinate there
                as_is[:, v] = _reference_column(matched, ka, exact["reference"], d)
            in_kernel[:, v, ka], in_kernel[:, v, kb] = cos, sin
            cos_k, sin_k = exact["kernel"][0][:, v], exact["kernel"][1][:, v]
            explained[:, v, ka], explained[:, v, kb] = cos_k, sin_k
        errors = {key: float(np.max(np.abs(rotated - value))) for key, value in
                  (("as_is", as_is), ("kernel_basis", in_kernel),
                   ("kernel_parameters", explained))}
        floor = max(errors["kernel_parameters"], 2.0 ** -8)
        if errors["as_is"] <= 2 * floor:
            cause = "rounding"
        elif errors["kernel_basis"] <= 2 * floor:
            cause = "layout (a fixed permutation)"
        else:
            cause = (named if "frequencies:" in named else "parameters (amplitude)") + (
                "" if errors["as_is"] <= 2 * errors["kernel_basis"] else " and layout")
        rows.append({"band": f"{lo}..{hi}", **errors, "cause": cause})
    return rows


def _reference_column(matched, j, exact, d) -> np.ndarray:
    """``F(p) e_j`` of the reference for a coordinate j (its plane's first or second)."""
    cos_all, sin_all = exact
    column = np.zeros((cos_all.shape[0], d))
    for v, (_, (ra, rb, _), _) in enumerate(matched):
        if j == ra:
            column[:, ra], column[:, rb] = cos_all[:, v], sin_all[:, v]
        elif j == rb:
            column[:, rb], column[:, ra] = cos_all[:, v], -sin_all[:, v]
    return column
