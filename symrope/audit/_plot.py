"""``--plot FILE``: error against position, one panel per component, one curve per implementation.

Read at a glance: the title names the schedule and who is audited in which dtype; each panel's
axis says what is measured and in which unit; curves that coincide stay visible (each has its
own line style and width, the first drawn widest, underneath); the suggested fix is labelled
as the fix; a vertical marker at each safe context (the headline number); positions are ticked
at 4K, 32K, 128K and 1M. The logit panel shows each band's maximum (single sampled keys are
noise), and every panel is on a log scale (a linear one would magnify 1e-4 noise).
"""

from __future__ import annotations

import math
from pathlib import Path

from symrope.audit._results import AuditResult
from symrope.errors import UsageError

_PANELS = (  # (key in AuditResult.fine, or of a BandSummary; title; y-axis label)
    ("max_abs_error", "cos/sin table error", "max |table − exact| (absolute)"),
    ("max_phase_error", "phase error", "max |phase − exact| (rad)"),
    ("amplitude_error", "amplitude error", "max |‖(cos, sin)‖ − a| (absolute)"),
    ("invariance_violation", "relative-invariance violation", "max |score error| (absolute)"),
    ("logit_error", "logit error (band maximum)", "max |q·k − exact| (absolute)"),
    ("shift_violation", "shift violation (band maximum)",
     "max |logit(s,t) − logit(s+u,t+u)| (abs.)"),
)
_BANDED = {"logit_error", "shift_violation"}       # measured per band: drawn as band maxima
# Curves drawn first are widest: an identical curve drawn over one still shows its edges.
_STYLES = (("-", 3.2), ("--", 2.2), (":", 2.2), ("-.", 1.6), ((0, (5, 1, 1, 1)), 1.4))
_TICKS = [(1, "1"), (16, "16"), (256, "256"), (4096, "4K"), (32768, "32K"), (131072, "128K"),
          (1048576, "1M"), (8388608, "8M"), (67108864, "64M")]


def panel_series(result: AuditResult, key: str) -> tuple[list[int], list[float]]:
    """The (positions, values) one panel draws for ``result``: finite positive values only,
    positions clamped to 1 for the log axis. What is measured once per band (the logit error,
    the shift violation) is drawn from the band starts, as the band's maximum."""
    if key in _BANDED:
        # The last band's end closes its step, or a few bands would draw a line short of one.
        bands = result.bands + result.bands[-1:]
        starts = [band.lo for band in result.bands] + [band.hi for band in result.bands[-1:]]
        values = [getattr(band, key) for band in bands]
    else:
        starts = result.fine.get("lo", [])
        values = result.fine.get(key, [])
    points = [(max(x, 1), y) for x, y in zip(starts, values)
              if y and y > 0 and y != float("inf")]
    return [x for x, _ in points], [y for _, y in points]


def curve_label(result: AuditResult, primary: AuditResult) -> str:
    """``hf (bf16)``; the re-audited suggestion is ``suggested fix: fp64-angle (bf16)``."""
    name = f"{result.impl} ({result.dtype})"
    if result is not primary and primary.fix and result.impl == primary.fix:
        return f"suggested fix: {name}"
    return name


def _title(results: list[AuditResult]) -> str:
    """What is audited, in which dtype, with which schedule (its first three settings)."""
    primary = results[0]
    schedule = ", ".join(primary.config.split(", ")[:3]).replace("head_dim", "head dim")
    others = [curve_label(r, primary) for r in results[1:]]
    audited = f"{primary.impl} in {primary.dtype}" + (f" vs {'; '.join(others)}" if others else "")
    return f"RoPE precision against position: {audited}\n{schedule}"


def _safe_label(result: AuditResult) -> str:
    bound = "≥ " if result.safe_context_is_lower_bound else ""
    return f"safe context {bound}{result.safe_context:,}"


def _decade_limits(axis, values) -> None:
    """At least one full decade on a log axis, so every panel has labelled major ticks."""
    low, high = min(values), max(values)
    low_decade, high_decade = math.floor(math.log10(low)), math.ceil(math.log10(high))
    if high_decade - low_decade < 1:
        high_decade = low_decade + 1
    axis.set_ylim(10.0 ** low_decade, 10.0 ** high_decade)


def plot_audits(results: list[AuditResult], path: str | Path, title: str | None = None) -> Path:
    """Write a PNG of every result's errors against position (log-log), one panel per metric.

    Parameters
    ==========
    results : list of AuditResult
        The primary audit first; comparisons and the re-audited fix after it (the fix is the
        result whose implementation is the primary's ``fix``; its legend entry says so).
    path : str or Path
        Where the PNG goes (its folder must exist).
    title : str, optional
        The figure title; by default what is audited in which dtype, and the schedule.

    Returns
    =======
    Path
        The written file.
    """
    pyplot, path = pyplot_for(path)
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator, LogFormatterSciNotation

    primary = results[0]
    figure, axes = pyplot.subplots(2, 3, figsize=(15, 8.2), sharex=True)
    top = max(max(r.max_position, 1) for r in results)
    ticks = [(x, label) for x, label in _TICKS if x <= top * 1.5]
    for axis, (key, name, unit) in zip(axes.flat, _PANELS):
        drawn = []
        for index, result in enumerate(results):
            xs, ys = panel_series(result, key)
            if not xs:
                continue
            style, width = _STYLES[index % len(_STYLES)]
            axis.step(xs, ys, where="post", linestyle=style, linewidth=width,
                      color=f"C{index}", label=curve_label(result, primary),
                      zorder=2 + index, alpha=0.9)
            drawn += ys
        if key == "max_abs_error":
            axis.axhline(primary.tolerance, color="black", linestyle="--", linewidth=1,
                         label=f"tolerance {primary.tolerance:.3g}", zorder=1)
            drawn.append(primary.tolerance)
        for index, result in enumerate(results):   # the headline number, on every panel
            if 0 < result.safe_context <= top:
                axis.axvline(result.safe_context, color=f"C{index}", linestyle=(0, (2, 2)),
                             linewidth=1.2, zorder=1,
                             label=f"{_safe_label(result)} ({result.impl})"
                             if key == "max_abs_error" else None)
        axis.set_xscale("log")
        axis.set_yscale("log")
        if drawn:
            _decade_limits(axis, drawn)
        axis.yaxis.set_major_formatter(LogFormatterSciNotation())
        axis.yaxis.set_minor_formatter(NullFormatter())
        axis.set_title(name, fontsize=11)
        axis.set_ylabel(unit, fontsize=9)
        axis.grid(True, which="major", alpha=0.3)
        axis.xaxis.set_major_locator(FixedLocator([x for x, _ in ticks]))
        axis.xaxis.set_minor_locator(NullLocator())
        axis.set_xticklabels([label for _, label in ticks])
    for axis in axes[1]:
        axis.set_xlabel("position (tokens)")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=10,
                      handlelength=3.5)
    figure.suptitle(title or _title(results), fontsize=12)
    figure.subplots_adjust(left=0.07, right=0.99, top=0.89, bottom=0.17, hspace=0.28,
                           wspace=0.3)
    try:
        figure.savefig(path, dpi=110)
    except OSError as error:
        raise UsageError(f"cannot write plot {str(path)!r}: {error.strerror}") from None
    finally:
        pyplot.close(figure)
    return path


def pyplot_for(path):
    """``(pyplot, Path)`` for writing a plot to ``path`` headless; one-line errors when
    matplotlib is missing or the folder does not exist (every audit plot starts here)."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'symrope[plot]'") from None
    matplotlib.use("Agg", force=True)
    from matplotlib import pyplot

    path = Path(path)
    if not path.parent.exists():
        raise UsageError(f"cannot write plot {str(path)!r}: folder {str(path.parent)!r} does not exist")
    return pyplot, path
