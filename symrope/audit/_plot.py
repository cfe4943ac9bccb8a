"""``--plot FILE``: error against position on log axes, one panel per component, one line per impl."""

from __future__ import annotations

import textwrap
from pathlib import Path

from symrope.audit._results import AuditResult
from symrope.errors import UsageError

_PANELS = (  # (key in AuditResult.fine, or of a BandSummary for shift_violation; title)
    ("max_abs_error", "max |table - exact| (cos, sin)"),
    ("max_phase_error", "max phase error (rad)"),
    ("amplitude_error", "amplitude error |hypot(cos, sin) - a|"),
    ("invariance_violation", "relative-invariance violation of scores"),
    ("logit_error", "logit error |q_s.k_t - exact| (sampled keys t)"),
    ("shift_violation", "shift violation |logit(s, t) - logit(s+u, t+u)| (per band)"),
)


def panel_series(result: AuditResult, key: str) -> tuple[list[int], list[float]]:
    """The (positions, values) one panel draws for ``result``: finite positive values only,
    positions clamped to 1 for the log axis. The shift violation is measured once per band,
    so it is drawn from the band starts."""
    if key == "shift_violation":
        # The last band's end closes its step, or a few bands would draw a line short of one.
        bands = result.bands + result.bands[-1:]
        starts = [band.lo for band in result.bands] + [band.hi for band in result.bands[-1:]]
        values = [band.shift_violation for band in bands]
    else:
        starts = result.fine.get("logit_positions" if key == "logit_error" else "lo", [])
        values = result.fine.get(key, [])
    points = [(max(x, 1), y) for x, y in zip(starts, values) if y and y > 0 and y != float("inf")]
    return [x for x, _ in points], [y for _, y in points]


def plot_audits(results: list[AuditResult], path, title: str | None = None) -> Path:
    """Write a PNG of every result's per-bin maxima against position (log-log).

    Parameters
    ==========
    results : list of AuditResult
        The primary audit first; comparisons and the fix after it.
    path : str or Path
        Where the PNG goes (its folder must exist).
    title : str, optional
        The figure title; the config's description by default.

    Returns
    =======
    Path
        The written file.
    """
    pyplot, path = pyplot_for(path)
    from matplotlib.ticker import FormatStrFormatter, NullFormatter

    figure, axes = pyplot.subplots(2, 3, figsize=(15, 7.5), sharex=True)
    for axis, (key, label) in zip(axes.flat, _PANELS):
        for result in results:
            xs, ys = panel_series(result, key)
            if xs:
                axis.step(xs, ys, where="post", label=f"{result.impl} ({result.dtype})")
        if key == "max_abs_error":
            tolerance = results[0].tolerance
            axis.axhline(tolerance, color="black", linestyle="--", linewidth=1,
                         label=f"tolerance {tolerance:.3g}")
        axis.set_xscale("log")
        axis.set_yscale("log")
        low, high = axis.get_ylim()
        # Minor labels only when the panel spans less than a decade (else they clutter, and
        # matplotlib's mathtext minor labels are slow); plain text when shown.
        axis.yaxis.set_minor_formatter(FormatStrFormatter("%.2g") if high < 10 * low else NullFormatter())
        axis.set_title(label, fontsize=10)
        axis.grid(True, which="major", alpha=0.3)
    for axis in axes[1]:
        axis.set_xlabel("position")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=9)
    figure.suptitle(textwrap.fill(title or results[0].config, 120), fontsize=9)
    figure.subplots_adjust(left=0.08, right=0.98, top=0.88, bottom=0.15, hspace=0.25, wspace=0.2)
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
