"""What an audit prints: the terminal table and the versioned JSON document."""

from __future__ import annotations

import platform
import textwrap
from dataclasses import dataclass, field

from symrope.audit._results import AuditResult
from symrope.audit._reference import REFERENCE_TOLERANCE, Certificate

#: Bumped whenever a key of the JSON document changes meaning or disappears.
SCHEMA = "symrope.audit/3"   # 3: non-finite numbers are null + a "<key>_nonfinite" companion

_COLUMNS = (  # (header, BandSummary attribute, format)
    ("max|err|", "max_abs_error", "{:.2e}"),
    ("bits", "correct_bits", "{:.1f}"),
    ("phase noise", "phase_noise", "{:.2e}"),
    ("freq drift", "frequency_drift", "{:.2e}"),
    ("amplitude", "amplitude_error", "{:.2e}"),
    ("invariance", "invariance_violation", "{:.2e}"),
    ("shift", "shift_violation", "{:.2e}"),
    ("logit err", "logit_error", "{:.2e}"),
)

#: What each column of the band table is (printed under the table and in ``--help``).
COLUMN_MEANINGS = (
    ("max|err|", "largest |cos - exact| or |sin - exact| over every position and pair of the band"),
    ("bits", "correct bits, -log2(max|err|): 8 is one bf16 step at 1"),
    ("phase noise", "RMS phase error (rad) left after fitting a frequency error per pair"),
    ("freq drift", "phase (rad) the fitted frequency error has accumulated by the band's end"),
    ("amplitude", "largest ||(cos, sin)| - attention factor|"),
    ("invariance", "largest |score(s, s+d) - exact score(d)| for d in the offsets, from the table"),
    ("shift", "largest |logit(s, t) - logit(s+u, t+u)|, a window at 0 moved to the band's end"),
    ("logit err", "largest |q_s.k_t - exact| of seeded q, k rotated by the implementation itself"),
)


@dataclass
class AuditReport:
    """A primary audit with what it is compared against and its suggested fix re-audited."""

    primary: AuditResult
    certificate: Certificate
    seed: int
    config: dict
    compared: list[AuditResult] = field(default_factory=list)
    fix: AuditResult | None = None
    fix_note: str | None = None   # why no fix is shown, when one exists but was not suggested
    notes: list[str] = field(default_factory=list)   # what was audited instead of what was asked

    # --- JSON -----------------------------------------------------------------------------------
    def to_json(self) -> dict:
        """The ``--json`` document: the primary audit's keys at the top level, plus context."""
        import ml_dtypes
        import mpmath
        import numpy

        from symrope._version import __version__

        document = {"schema": SCHEMA}
        document.update(self.primary.to_dict())
        document["seed"] = self.seed
        document["config_hf"] = self.config
        document["reference"] = {
            "method": "64-bit fixed-point turns, double-double angle, float64 cos/sin; sample checked with mpmath.iv",
            "certified_max_error": self.certificate.max_error,
            "certified_points": self.certificate.points,
            "certified_max_position": self.certificate.max_position,
            "interval_precision_bits": self.certificate.precision_bits,
            "promised_max_error": REFERENCE_TOLERANCE,
            "certified": self.certificate.holds(),
        }
        document["compare"] = [result.to_dict() for result in self.compared]
        if self.fix is not None:
            document["fix"] = dict(self.fix.to_dict(), improvement=improvement(self.primary, self.fix))
        else:
            document["fix"] = None
        document["fix_note"] = self.fix_note
        document["notes"] = list(self.notes)
        document["columns"] = dict(COLUMN_MEANINGS)
        document["versions"] = {"symrope": __version__, "python": platform.python_version(),
                                "numpy": numpy.__version__, "mpmath": mpmath.__version__,
                                "ml_dtypes": ml_dtypes.__version__}
        return document

    # --- the terminal ---------------------------------------------------------------------------
    def to_text(self) -> str:
        """The terminal report: the band table, why the error is what it is, and the fix."""
        primary = self.primary
        lines = [f"symrope audit: {primary.impl} ({primary.dtype}) -- {primary.config}"]
        if primary.summary:
            lines += textwrap.wrap(primary.summary, 96, initial_indent="  ", subsequent_indent="  ")
        for note in self.notes:
            lines += textwrap.wrap("note: " + note, 96, initial_indent="  ", subsequent_indent="    ")
        cert = self.certificate
        lines.append(f"positions 0..{primary.max_position}" if primary.positions == primary.max_position + 1
                     else f"{primary.positions} chosen positions up to {primary.max_position}")
        lines[-1] += f" x {len(primary.frequency_error_per_pair)} pairs"
        lines.append(f"tolerance {primary.tolerance:.3g} absolute on cos/sin (the same for every "
                     f"column; --tolerance)")
        lines.append(f"reference error <= {cert.max_error:.2e} (certified with mpmath.iv on {cert.points} "
                     f"points up to position {_power_of_two(cert.max_position)}; promised "
                     f"{REFERENCE_TOLERANCE:g})")
        if primary.amplitude != 1.0:
            lines.append(f"attention factor {primary.amplitude:.6g} (compared against factor x exact)")
        lines += ["", *band_table(primary), *legend_lines(), ""]
        lines += summary_lines(primary)
        if primary.explanation:
            lines += textwrap.wrap("why: " + primary.explanation, 96, subsequent_indent="     ")
        if self.fix is not None:
            lines += ["", *fix_lines(primary, self.fix)]
        elif self.fix_note:
            lines += ["", *textwrap.wrap(self.fix_note, 96)]
        if self.compared:
            lines += ["", *comparison_table([primary, *self.compared])]
        return "\n".join(lines)


def _power_of_two(value: int) -> str:
    return f"2^{value.bit_length() - 1}" if value > 0 and value & (value - 1) == 0 else str(value)


def _cell(value, fmt: str) -> str:
    if value is None:
        return "-"
    return fmt.format(value)


def band_table(result: AuditResult) -> list[str]:
    """Rows per band: the maxima over every position and pair, and the dominant component."""
    header = ["band (inclusive)", *(name for name, _, _ in _COLUMNS), "dominant"]
    rows = [header]
    for band in result.bands:
        cells = [f"{band.lo}..{band.hi}"]
        cells += [_cell(getattr(band, key), fmt) for _, key, fmt in _COLUMNS]
        cells.append(band.dominant + (f" ({band.nonfinite} non-finite)" if band.nonfinite else ""))
        rows.append(cells)
    return _align(rows)


def legend_lines() -> list[str]:
    """One short line per column of the band table."""
    return [f"  {name:<11} {meaning}" for name, meaning in COLUMN_MEANINGS]


def summary_lines(result: AuditResult) -> list[str]:
    if result.frequency_error is None:
        frequency = "frequency error (fitted omega_eff/omega - 1): not resolved above the phase noise"
    else:
        frequency = f"frequency error (fitted omega_eff/omega - 1): {result.frequency_error:.2e} (largest pair)"
    lines = [frequency, safe_context_line(result), *floor_lines(result),
             *output_mismatch_lines(result)]
    reason = (result.logits or {}).get("not_measured")
    if reason:
        lines += textwrap.wrap(f"logits (shift, logit err) not measured: {reason}", 96,
                               subsequent_indent="  ")
    return lines


def output_mismatch_lines(result: AuditResult) -> list[str]:
    """What a knob does to the rotated q itself (``logits.output_mismatch``), when measured."""
    found = (result.logits or {}).get("output_mismatch")
    if not found:
        return []
    cells = [f"{p}: {m}/{found['outputs_per_vector']} differ, max |diff| {d:.3g}"
             for p, m, d in zip(found["positions"], found["mismatched"], found["max_abs_diff"])]
    return textwrap.wrap("rotated q vs the same module without the knobs (float32 phase), at each "
                         "band's last position: " + "; ".join(cells), 96, subsequent_indent="  ")


def safe_context_line(result: AuditResult) -> str:
    """The safe context: positions 0..N-1 all audited and all within the tolerance."""
    head = f"safe context (|err| <= {result.tolerance:.3g} at every position below it): "
    failure = result.first_failure
    if failure is not None and result.safe_context == failure:
        return head + f"{result.safe_context} (the tolerance first fails at position {failure})"
    if failure is None and result.positions == result.max_position + 1:
        return head + (f"at least {result.safe_context} positions (the tolerance holds at every "
                       f"audited position)")
    # chosen positions: beyond the audited prefix nothing is known about the positions skipped
    text = head + (f"at least {result.safe_context} (positions from {result.safe_context} on were "
                   f"not all audited)")
    if failure is not None:
        text += f"; the tolerance fails at position {failure}, so it is below {failure}"
    return text


def floor_lines(result: AuditResult) -> list[str]:
    """Where the tolerance is below what correct rounding to the dtype errs by at the table's
    magnitude, say so: the safe context then measures the dtype, not the code (it stands as
    measured; the worst error against that floor says what the code adds)."""
    if not result.tolerance_below_floor:
        return []
    floor, worst = result.rounding_floor, result.worst("max_abs_error")
    return textwrap.wrap(
        f"the tolerance {result.tolerance:.3g} is below {result.dtype}'s own rounding: correct "
        f"rounding of values up to {abs(result.amplitude):.6g} errs by up to {floor:.3g}, so no "
        f"{result.dtype} table can be relied on to meet it and this safe context measures the "
        f"dtype, not the code; the worst error is {worst / floor:.3g}x that floor "
        f"(--tolerance {floor:.3g} or more asks what the code adds)", 96, subsequent_indent="  ")


def fix_helps(before: AuditResult, after: AuditResult) -> bool:
    """Whether the fix is worth suggesting: the tolerance failed, and the fix lengthens the safe
    context or gains at least one correct bit (halves the worst error)."""
    if before.first_failure is None:
        return False
    return (after.safe_context > before.safe_context
            or after.worst("max_abs_error") <= before.worst("max_abs_error") / 2)


def improvement(before: AuditResult, after: AuditResult) -> dict:
    """Ratios ``before / after`` of the worst band values (above 1: the fix is better)."""
    ratios = {}
    for key in ("max_abs_error", "phase_noise", "invariance_violation", "logit_error"):
        old, new = before.worst(key), after.worst(key)
        ratios[key] = {"before": old, "after": new,
                       "ratio": (old / new) if new and new == new and old == old else None}
    ratios["safe_context"] = {"before": before.safe_context, "after": after.safe_context}
    return ratios


def fix_lines(before: AuditResult, after: AuditResult) -> list[str]:
    change = improvement(before, after)
    lines = [f"suggested fix: {after.impl} ({after.dtype}) -- {after.summary}"]
    if before.fix_target:
        lines += textwrap.wrap(f"what to change: {before.fix_target}", 96, initial_indent="  ",
                               subsequent_indent="    ")
    for key, label in (("max_abs_error", "max |err|"), ("phase_noise", "phase noise"),
                       ("invariance_violation", "invariance violation"),
                       ("logit_error", "logit error")):
        entry = change[key]
        if entry["before"] != entry["before"]:   # NaN: not measured
            continue
        ratio = entry["ratio"]
        verdict = "" if not ratio else (" (unchanged)" if ratio == 1 else
                                        " (about the same)" if "1" in (f"{ratio:.3g}", f"{1 / ratio:.3g}")
                                        else f" ({ratio:.3g}x smaller)" if ratio > 1
                                        else f" ({1 / ratio:.3g}x larger)")
        lines.append(f"  {label:<21} {entry['before']:.2e} -> {entry['after']:.2e}{verdict}")
    lines.append(f"  {'safe context':<21} {before.safe_context} -> {after.safe_context}"
                 + (" (lower bound)" if after.safe_context_is_lower_bound else ""))
    return lines


def comparison_table(results: list[AuditResult]) -> list[str]:
    """Side by side: each implementation's max |err| per band, then the summary rows."""
    names = [f"{result.impl} ({result.dtype})" for result in results]
    tolerance = results[0].tolerance
    rows = [["band (inclusive)", *names]]
    by_band = [{(band.lo, band.hi): band for band in result.bands} for result in results]
    for band in results[0].bands:
        key = (band.lo, band.hi)
        rows.append([f"{band.lo}..{band.hi}",
                     *(_cell(table[key].max_abs_error, "{:.2e}") if key in table else "-" for table in by_band)])
    rows.append(["worst phase noise", *(f"{r.worst('phase_noise'):.2e}" for r in results)])
    rows.append(["worst invariance", *(_cell(r.worst('invariance_violation'), "{:.2e}") for r in results)])
    rows.append(["frequency error", *(_cell(r.frequency_error, "{:.2e}") for r in results)])
    rows.append(["worst logit error", *(_cell(r.worst('logit_error'), "{:.2e}") for r in results)])
    rows.append(["safe context", *((">=" if r.safe_context_is_lower_bound else "") + str(r.safe_context)
                                    for r in results)])
    return [f"side by side (max |err| per band; safe context at tolerance {tolerance:.3g} for every "
            f"column):", *_align(rows)]


def _align(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) if i == 0 else cell.rjust(width)
                      for i, (cell, width) in enumerate(zip(row, widths))).rstrip() for row in rows]
