"""``--plot``: a figure read at a glance (issue 25).

The figure is drawn for a real audit (HF-style RoPE in bf16 and its suggested fix) and read
back from matplotlib's own objects: title, axis labels with units, one style per curve, the fix
labelled as the fix, a marker at each safe context, ticks at 4K/32K, band maxima for the
logits, log scales.
"""

from __future__ import annotations

import pytest

from symrope.audit import AuditOptions, audit
from symrope.schedules import RopeConfig

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def figure(tmp_path_factory):
    from matplotlib import pyplot

    import symrope.audit._plot as plot

    config = RopeConfig.from_options(head_dim=32, theta=500000)
    options = AuditOptions(max_position=70000, dtype="bf16", progress=False)
    primary = audit("hf", config, options)
    assert primary.fix == "fp64-angle" and 0 < primary.safe_context < 70000
    fix = audit("fp64-angle", config, options)
    kept = []
    original_close = pyplot.close
    pyplot.close = lambda fig=None: kept.append(fig)  # keep the figure to read it back
    try:
        path = plot.plot_audits([primary, fix], tmp_path_factory.mktemp("plot") / "a.png")
    finally:
        pyplot.close = original_close
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    yield kept[0], primary, fix
    original_close(kept[0])


def test_title_names_the_implementation_dtype_and_schedule(figure):
    fig, primary, _ = figure
    title = fig._suptitle.get_text()
    assert "hf in bf16" in title and "head dim 32" in title and "theta 500000" in title
    assert "original_max_position_embeddings" not in title  # not a config dump


def test_axes_are_labelled_with_units_and_log_scaled(figure):
    fig, _, _ = figure
    axes = fig.axes
    assert all(axis.get_yscale() == "log" and axis.get_xscale() == "log" for axis in axes)
    units = [axis.get_ylabel() for axis in axes]
    assert all("(" in unit and unit.endswith(")") for unit in units), units
    assert "(rad)" in units[1]
    assert all(axis.get_xlabel() == "position (tokens)" for axis in axes[3:])
    ticks = [label.get_text() for label in axes[3].get_xticklabels()]  # the shared x axis
    assert {"4K", "32K"} <= set(ticks) and "1M" not in ticks  # 70000 positions: up to 128K


def test_the_fix_is_labelled_and_curves_are_distinguishable(figure):
    fig, primary, fix = figure
    legend = [text.get_text() for text in fig.legends[0].get_texts()]
    assert "hf (bf16)" in legend and "suggested fix: fp64-angle (bf16)" in legend
    assert f"safe context {primary.safe_context:,} (hf)" in legend
    lines = [line for line in fig.axes[0].get_lines() if line.get_label() in legend[:2]]
    styles = {(line.get_linestyle(), line.get_linewidth()) for line in lines}
    assert len(styles) == 2  # an identical curve drawn over another still shows


def test_the_safe_context_is_marked_on_every_panel(figure):
    fig, primary, _ = figure
    for axis in fig.axes:
        vertical = [line for line in axis.get_lines() if list(line.get_xdata()) ==
                    [primary.safe_context, primary.safe_context]]
        assert vertical, axis.get_title()


def test_the_logit_panel_draws_band_maxima(figure):
    from symrope.audit._plot import panel_series

    fig, primary, _ = figure
    xs, ys = panel_series(primary, "logit_error")
    banded = [band for band in primary.bands if band.logit_error]
    assert xs[:-1] == [max(band.lo, 1) for band in banded]
    assert ys[:-1] == [band.logit_error for band in banded]
    assert "band maximum" in fig.axes[4].get_title()
