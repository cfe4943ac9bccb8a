"""``symrope survey``: every installed real RoPE implementation x {bf16, fp16, fp32}, one table.

Each row is one audit (``audit()``: the implementation's own code, the certified reference, the
logit probe) on a *sample* of positions, so that ten implementations up to 1M positions take
minutes: every position ``0..DENSE-1``, then in every later band of the audit (``[2^k, 2^(k+1))``)
the last ``TAIL`` positions and ``PER_BAND`` seeded uniformly random ones. What sampling can
miss: if a fraction ``f`` of a band's positions exceeds the tolerance, all ``n = PER_BAND``
random samples miss them with probability ``(1 - f)^n <= exp(-n f)`` (for ``n = 4096``: under
1.7% when ``f >= 0.1%``, under 1.3e-9 when ``f >= 0.5%``). The safe context of a sampled row is
therefore given as a range: at least the dense prefix (or the exact first failure inside it),
at most the first sampled failure.

Rows run in a process pool (all cores; one implementation's three dtypes per task, so each
library is imported once per task). Each row has its own progress bar on stderr, advanced per
audited chunk from the worker process that runs it (through a manager queue the parent drains);
a bar stops (its clock with it) when its row finishes, and a row not run says "skipped" instead
of a rate. What the libraries print while they are imported and run (torchao's warning when
torchtune imports it, Python warnings) is collected in the worker, kept out of the bars, and
returned with the rows (``library_warnings``) for the command to print once.
The command line (``symrope survey``) is :mod:`symrope.cli._survey`.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Sequence

import numpy as np

from symrope.audit._libraries import resolve_implementation, survey_cost, surveyed_names
from symrope.audit._models import MODELS
from symrope.audit._results import DEFAULT_TOLERANCE
from symrope.audit._real import Library
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

DENSE = 8192
PER_BAND = 4096
TAIL = 256
#: How positions are sampled (the ``sampling`` record of ``symrope survey --json``).
SAMPLING = {"dense_below": DENSE, "per_band_random": PER_BAND, "per_band_tail": TAIL}
DTYPES = ("bf16", "fp16", "fp32")
#: The built-in models ``--with-models`` adds (explanations of the real rows).
EXPLAINING_MODELS = ("hf", "meta", "vllm", "llamacpp", "neox-fp16", "recurrence")
_MARKS = (8191, 131071, 1048575)


def sample_positions(max_position: int, seed: int = 0) -> np.ndarray:
    """Every position below ``DENSE``; per later band its last ``TAIL`` and ``PER_BAND`` random ones.

    Examples
    ========
    >>> positions = sample_positions(2**20 - 1)
    >>> int(positions.size) < 60_000, int(positions[8191]), int(positions[-1])
    (True, 8191, 1048575)
    """
    from symrope.audit._metrics import log_bands

    rng = np.random.default_rng(seed)
    pieces = [np.arange(min(DENSE, max_position + 1), dtype=np.int64)]
    for lo, hi in log_bands(max_position):
        if hi < DENSE:
            continue
        lo = max(lo, DENSE)
        pieces.append(np.arange(max(lo, hi - TAIL + 1), hi + 1, dtype=np.int64))
        pieces.append(rng.integers(lo, hi + 1, PER_BAND, dtype=np.int64))
    return np.unique(np.concatenate(pieces))


def _survey_impl(name: str, config: RopeConfig, positions: np.ndarray, tolerance: float,
                 seed: int, report=None) -> list[dict]:
    """One implementation's rows (runs in a worker process).

    ``report(name, dtype, count)``, if given, is told how many positions of the row
    ``(name, dtype)`` were just audited; ``count = None`` says the row is finished,
    ``count = SKIPPED`` that it is not run. What the libraries print or warn meanwhile is
    collected (never on stderr, where the bars are) and returned in the first row's
    ``library_warnings``.
    """
    with _LibraryOutput() as library:
        rows = _survey_rows(name, config, positions, tolerance, seed, report)
    if library.lines:
        rows[0]["library_warnings"] = library.lines
    return rows


SKIPPED = "skipped"


def _survey_rows(name, config, positions, tolerance, seed, report) -> list[dict]:
    from symrope.audit._driver import audit
    from symrope.audit._results import AuditOptions, exact_schedule

    started = time.perf_counter()
    try:
        impl = _build(name, config)
        if isinstance(impl, Library):
            impl.prepare(int(positions[-1]))
    except UsageError as error:
        for dtype in DTYPES:
            _tell(report, name, dtype, SKIPPED)
        return [{"impl": name, "dtype": dtype, "skipped": str(error)} for dtype in DTYPES]
    schedule = exact_schedule(config)
    rows = []
    for dtype in DTYPES:
        row_started = time.perf_counter()
        _tell(report, name, dtype, 0)         # the row starts now: its bar's clock with it
        options = AuditOptions(positions=positions, dtype=dtype, tolerance=tolerance, seed=seed,
                               progress=False,
                               on_progress=None if report is None else
                               (lambda count, dtype=dtype: _tell(report, name, dtype, count)))
        result = audit(impl, config, options, schedule)
        _tell(report, name, dtype, None)
        rows.append(_row(result, positions, time.perf_counter() - row_started))
        rows[-1]["asked_dtype"] = dtype
    rows[0]["setup_seconds"] = round(time.perf_counter() - started - sum(r["seconds"] for r in rows), 2)
    return rows


def _tell(report, name: str, dtype: str, count: int | None) -> None:
    if report is not None:
        report(name, dtype, count)


class _LibraryOutput:
    """Collect, while active, what libraries write to stderr, warn or log (in a worker process
    or, with one worker, in this one), so that none of it lands between the progress bars."""

    def __enter__(self):
        import io
        import logging
        import warnings

        self.lines: list[str] = []
        self._stderr = io.StringIO()
        self._redirect = contextlib.redirect_stderr(self._stderr)
        self._redirect.__enter__()
        self._warnings = warnings.catch_warnings(record=True)
        self._caught = self._warnings.__enter__()
        warnings.simplefilter("always")
        self._handler = logging.StreamHandler(self._stderr)
        self._handler.setLevel(logging.WARNING)
        self._handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        logging.getLogger().addHandler(self._handler)
        return self

    def __exit__(self, *exc_info):
        import logging

        logging.getLogger().removeHandler(self._handler)
        self._warnings.__exit__(*exc_info)
        self._redirect.__exit__(*exc_info)
        found = [f"{w.category.__name__}: {w.message}" for w in self._caught]
        found += [line.strip() for line in self._stderr.getvalue().splitlines() if line.strip()]
        self.lines = list(dict.fromkeys(" ".join(line.split()) for line in found))
        return False


class _QueueReport:
    """A picklable ``report`` that posts ``(name, dtype, count)`` to a manager queue."""

    def __init__(self, updates):
        self.updates = updates

    def __call__(self, name: str, dtype: str, count: int | None) -> None:
        self.updates.put((name, dtype, count))


class _RowBars:
    """One tqdm bar per row (``position=`` keeps them on their own lines), on stderr."""

    def __init__(self, names, total: int, enabled: bool):
        from tqdm.auto import tqdm

        width = max((len(name) for name in names), default=0) + 5
        rows = [(n, d) for n in names for d in DTYPES]
        self.bars, self.started = {}, set()
        for index, (name, dtype) in enumerate(rows):
            # nrows: tqdm hides bars below its guess of the screen height (20 without a
            # terminal); every row is to have its bar
            self.bars[name, dtype] = tqdm(total=total, desc=f"{name} {dtype}".ljust(width),
                                          unit="pos", unit_scale=True, position=index,
                                          nrows=max(len(rows) + 1, 20), file=sys.stderr,
                                          disable=not enabled, leave=True)

    def __call__(self, name: str, dtype: str, count: int | None) -> None:
        bar = self.bars.get((name, dtype))
        if bar is None:
            return
        if count == SKIPPED:                  # not run: no rate, no 100%, its own word
            bar.bar_format = "{desc}: skipped"
            bar.close()
            return
        if (name, dtype) not in self.started:
            self.started.add((name, dtype))
            bar.reset(total=bar.total)        # the row's clock starts with its first news
        if count is None:
            bar.update(bar.total - bar.n)     # finished: the bar (and its clock) stops here
            bar.close()
        else:
            bar.update(count)

    def drain(self, updates) -> None:
        """Apply every update waiting in ``updates`` (a queue) without blocking."""
        while True:
            try:
                self(*updates.get_nowait())
            except queue.Empty:
                return

    def close(self) -> None:
        for bar in reversed(list(self.bars.values())):
            bar.close()


def survey_names() -> tuple[str, ...]:
    """Every name a survey row may have: the surveyed libraries (variants included), the models."""
    return (*surveyed_names(), *MODELS)


def _build(name, config):
    if name not in survey_names():
        raise UsageError(f"unknown implementation {name!r} (one of: {', '.join(survey_names())})")
    return resolve_implementation(name, config)


def _row(result, positions, seconds) -> dict:
    dense = int(np.searchsorted(positions, DENSE))   # positions 0..dense-1 are all audited
    failure = result.first_failure
    if failure is None:
        safe = {"at_least": int(result.max_position) + 1, "at_most": None}
    elif failure < dense:
        safe = {"at_least": failure, "at_most": failure}
    else:
        safe = {"at_least": dense, "at_most": failure}
    at = {}
    for mark in _MARKS:
        inside = [band.max_abs_error for band in result.bands if band.lo <= mark]
        at[str(mark + 1)] = max(inside) if inside and mark <= result.max_position else None
    worst = max(result.bands, key=lambda band: band.max_abs_error)
    return {"impl": result.impl, "dtype": result.dtype, "safe_context": safe,
            "max_abs_error_up_to": at, "logit_error": result.worst("logit_error"),
            "dominant": worst.dominant,
            "fix": (None if failure is None else (result.fix_target or result.fix)),
            "summary": result.summary, "seconds": round(seconds, 2),
            "fine": {"lo": result.fine["lo"], "max_abs_error": result.fine["max_abs_error"]}}


def survey(names: Sequence[str], config: RopeConfig, max_position: int, tolerance: float = DEFAULT_TOLERANCE,
           workers: int = 1, seed: int = 0, progress: bool = True, *,
           positions: np.ndarray | None = None) -> list[dict]:
    """Rows of the survey (see the module docstring), in the order of ``names`` and DTYPES.

    ``positions``: ``sample_positions(max_position, seed)`` if the caller has drawn it already.
    """
    if positions is None:
        positions = sample_positions(max_position, seed)
    order = {name: i for i, name in enumerate(names)}
    rows = []
    bars = _RowBars(names, int(positions.size), enabled=progress)
    try:
        if workers <= 1:
            for name in names:
                rows += _survey_impl(name, config, positions, tolerance, seed,
                                     bars if progress else None)
        else:
            import multiprocessing

            # with progress, the workers post to a manager queue that this process drains
            with (multiprocessing.Manager() if progress else contextlib.nullcontext()) as manager, \
                    ProcessPoolExecutor(max_workers=workers) as pool:
                updates = manager.Queue() if progress else None
                report = None if updates is None else _QueueReport(updates)
                futures = [pool.submit(_survey_impl, name, config, positions, tolerance, seed, report)
                           for name in sorted(names, key=survey_cost, reverse=True)]
                pending = set(futures)
                while pending:
                    # a task posts its last update before it returns: the last drain has them all
                    _, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    if updates is not None:
                        bars.drain(updates)
                for future in futures:
                    rows += future.result()
    finally:
        bars.close()
    rows.sort(key=lambda row: (order.get(row["impl"], len(order)),
                               DTYPES.index(row.get("asked_dtype", row["dtype"]))))
    return rows


def _format_safe(safe: dict) -> str:
    if safe["at_most"] is None:
        return f">= {safe['at_least']}"
    if safe["at_least"] == safe["at_most"]:
        return str(safe["at_least"])
    return f"{safe['at_least']}..{safe['at_most']}"


def survey_table(rows: list[dict], tolerance: float) -> list[str]:
    """The survey's terminal table."""
    from symrope.audit._report import _align

    header = ["impl", "dtype", "safe context", "max|err| <=8K", "<=128K", "<=1M", "logit err",
              "dominant", "fix"]
    lines = [header]
    for row in rows:
        if "skipped" in row:
            lines.append([row["impl"], row["dtype"], "-", "-", "-", "-", "-", "not run", row["skipped"][:60]])
            continue
        marks = [row["max_abs_error_up_to"][str(m + 1)] for m in _MARKS]
        fix = row["fix"] or "none needed"
        dtype = row["dtype"] if row.get("asked_dtype", row["dtype"]) == row["dtype"] else \
            f"{row['dtype']} ({row['asked_dtype']} asked)"
        lines.append([row["impl"], dtype, _format_safe(row["safe_context"]),
                      *("-" if v is None else f"{v:.2e}" for v in marks),
                      "-" if row["logit_error"] != row["logit_error"] else f"{row['logit_error']:.2e}",
                      row["dominant"], fix if len(fix) < 48 else fix.split(":")[0]])
    return _align(lines)


def plot_survey(rows: list[dict], path: str, tolerance: float, config: RopeConfig) -> None:
    """``symrope survey --plot FILE``: ``max |err|`` against position, one line per row."""
    from symrope.audit._plot import pyplot_for

    pyplot, path = pyplot_for(path)
    figure, axis = pyplot.subplots(figsize=(11, 6.5))
    styles = {"bf16": "-", "fp16": "--", "fp32": ":"}
    colours = {}
    for row in rows:
        if "skipped" in row:
            continue
        colour = colours.setdefault(row["impl"], f"C{len(colours) % 10}")
        points = [(max(x, 1), y) for x, y in zip(row["fine"]["lo"], row["fine"]["max_abs_error"])
                  if y and y > 0 and y != float("inf")]
        if points:
            xs, ys = zip(*points)
            axis.step(xs, ys, where="post", color=colour, linestyle=styles.get(row["dtype"], "-"),
                      label=f"{row['impl']} ({row['dtype']})")
    axis.axhline(tolerance, color="black", linewidth=1, label=f"tolerance {tolerance:.3g}")
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("position (sampled)")
    axis.set_ylabel("max |cos/sin - exact|")
    axis.set_title(f"symrope survey: {config.describe()}", fontsize=9)
    axis.grid(True, alpha=0.3)
    axis.legend(fontsize=7, ncol=3, loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    pyplot.close(figure)
