"""What an audit is about and what it returns: the implementation, the options, the exact
schedule, and the per-band results (the streaming itself is in ``_driver.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import mpmath
import numpy as np

from symrope.audit._models import ImplModel, get_model
from symrope.audit._real import Library
from symrope.audit._reference import Certificate, Reference, certification_sample
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, attention_factor, inv_freq

_REFERENCE_PREC = 256

#: The default absolute tolerance on cos/sin, the same for every dtype so that safe contexts of
#: different dtypes compare: 2**-8 = 0.0039, the spacing of bf16 numbers in [0.5, 1) -- an
#: error below it is invisible to a bf16 model, one above it moves attention logits visibly.
DEFAULT_TOLERANCE = 2.0**-8


@dataclass(frozen=True)
class Implementation:
    """Anything audited: a built-in model, a user's function, or a real library.

    ``table(positions, config, dtype, seq_len)`` returns ``(cos, sin)`` of shape (n, pairs).
    ``user_supplied`` implementations get bad output reported as a UsageError (exit 2).
    """

    name: str
    table: Callable[..., Any]
    summary: str = ""
    explanation: str | Callable[[str], str] = ""   # a callable gets the audited dtype
    fix: str | None = None
    default_dtype: str = "fp32"
    user_supplied: bool = True
    fix_target: str | None = None                  # the module and attribute a user changes
    rotate: Callable[..., Any] | None = None       # the implementation's own apply, if it has one
    pairing: str = "rotate_half"
    scaled_table: bool = False                     # table divided by an exact scale (xpos)
    phase_reference: Callable[[], Any] | None = None   # the same code without its knobs
    pure: bool = False     # table without state (True: may run beside the audit's own calls)


def as_implementation(target: "str | ImplModel | Implementation | Any") -> Implementation:
    """Wrap a built-in model name, an :class:`ImplModel`, a real :class:`~symrope.audit.Library`,
    or any object with ``.table``."""
    if isinstance(target, Implementation):
        return target
    if isinstance(target, str):
        target = get_model(target)
    if isinstance(target, ImplModel):
        return Implementation(name=target.name, table=target.table, summary=target.summary,
                              explanation=target.explain, fix=target.fix,
                              default_dtype=target.default_dtype, user_supplied=False,
                              fix_target=target.fix_target, pure=target.pure)
    if isinstance(target, Library):   # the protocol: every attribute is declared
        return Implementation(name=target.name, table=target.table, summary=target.summary,
                              explanation=target.explanation, fix=target.fix,
                              default_dtype=target.default_dtype, user_supplied=False,
                              fix_target=target.fix_target, rotate=target.rotate,
                              pairing=target.pairing, scaled_table=target.scaled_table,
                              phase_reference=target.phase_reference)
    # anything else with a table (a user's object): read what it has
    if not callable(getattr(target, "table", None)):
        raise UsageError(f"{target!r} is not an implementation (it has no table method)")
    explanation = getattr(target, "explanation", "") or ""
    rotate = getattr(target, "rotate", None)
    phase_reference = getattr(target, "phase_reference", None)
    return Implementation(name=str(getattr(target, "name", repr(target))), table=target.table,
                          summary=str(getattr(target, "summary", "") or ""),
                          explanation=explanation if callable(explanation) else str(explanation),
                          fix=getattr(target, "fix", None),
                          default_dtype=str(getattr(target, "default_dtype", None) or "fp32"),
                          user_supplied=bool(getattr(target, "user_supplied", True)),
                          fix_target=getattr(target, "fix_target", None),
                          rotate=rotate if callable(rotate) else None,
                          pairing=str(getattr(target, "pairing", None) or "rotate_half"),
                          scaled_table=bool(getattr(target, "scaled_table", False)),
                          phase_reference=phase_reference if callable(phase_reference) else None)


@dataclass
class AuditOptions:
    """What to audit and how; the defaults are the CLI's defaults.

    ``max_position`` is inclusive (the default, ``2**20 - 1``, is the last position of a
    1M-token context). ``positions`` (sorted, unique) replaces ``0..max_position`` when given.
    ``tolerance`` (absolute error in cos/sin) defaults to :data:`DEFAULT_TOLERANCE` (2**-8) for
    every dtype.
    """

    max_position: int = 2**20 - 1
    positions: np.ndarray | None = None
    dtype: str | None = None
    tolerance: float = DEFAULT_TOLERANCE
    seed: int = 0
    offsets: tuple[int, ...] = (1, 32, 1024)
    vectors: int = 4
    logit_keys: int = 8        # key positions per band for the logit probe (``_logits.py``)
    chunk: int = 8192
    seq_len: int | None = None
    progress: bool | None = None
    #: Called with the number of positions just audited, after every chunk (a survey's workers
    #: report to the parent's progress bars with it).
    on_progress: Callable[[int], Any] | None = None


@dataclass(frozen=True)
class ExactSchedule:
    """The exact frequencies and attention factor of a config, with the fast reference on them."""

    reference: Reference
    amplitude: float
    omegas: np.ndarray

    def certify(self, max_position: int, count: int = 24, seed: int = 0) -> Certificate:
        return self.reference.certify(certification_sample(max_position, count, seed))


def exact_schedule(config: RopeConfig, seq_len: int | None = None) -> ExactSchedule:
    """Evaluate the schedule in mpmath at 256 bits and build the fast reference on it."""
    with mpmath.workprec(_REFERENCE_PREC):
        omegas = inv_freq(config, "mpmath", seq_len)
        amplitude = attention_factor(config, "mpmath", seq_len)
        reference = Reference(list(omegas), precision_bits=_REFERENCE_PREC)
        return ExactSchedule(reference, float(amplitude), reference.omegas_float)


@dataclass
class BandSummary:
    """One position band ``[lo, hi]`` (inclusive). Errors are absolute, phases in radians."""

    lo: int
    hi: int
    positions: int
    max_abs_error: float
    correct_bits: float | None       # -log2(max_abs_error); None when the band is exact
    max_phase_error: float
    phase_noise: float
    frequency_drift: float
    amplitude_error: float
    invariance_violation: float | None
    shift_violation: float | None
    nonfinite: int
    worst_pair: int
    dominant: str
    logit_error: float | None = None   # max |logit - exact logit| of q, k rotated by the impl


@dataclass
class AuditResult:
    """Everything one audit measured; :meth:`to_dict` is the JSON record."""

    impl: str
    summary: str
    explanation: str
    fix: str | None
    dtype: str
    config: str
    max_position: int
    positions: int
    tolerance: float
    amplitude: float
    bands: list[BandSummary]
    frequency_error: float | None
    frequency_error_per_pair: list[float]
    frequency_error_stderr: list[float]
    safe_context: int
    safe_context_is_lower_bound: bool
    first_failure: int | None        # the first audited position over the tolerance
    offsets: tuple[int, ...]
    seconds: float
    fine: dict[str, list] = field(default_factory=dict)
    fix_target: str | None = None      # the module and attribute a user changes to fix it
    logits: dict | None = None         # how the logit measurement was made (see _logits.py)
    #: the largest error correct rounding to the table's dtype makes at the table's magnitude
    #: (``_metrics.rounding_floor``): no implementation in that dtype can do better
    rounding_floor: float = 0.0

    @property
    def tolerance_below_floor(self) -> bool:
        """Whether even a correctly rounded table may fail the tolerance (it measures the dtype)."""
        return self.tolerance < self.rounding_floor

    def to_dict(self) -> dict:
        record = {key: getattr(self, key) for key in (
            "impl", "summary", "dtype", "config", "max_position", "positions", "tolerance",
            "amplitude", "frequency_error", "frequency_error_per_pair", "frequency_error_stderr",
            "safe_context",
            "safe_context_is_lower_bound", "first_failure", "explanation", "fix", "fix_target",
            "logits", "seconds")}
        record["offsets"] = list(self.offsets)
        record["bands"] = [dict(vars(band)) for band in self.bands]
        if self.tolerance_below_floor:
            # only where it decides the verdict: every other audit's document stays as it was
            record["rounding_floor"] = self.rounding_floor
        return record

    def worst(self, key: str) -> float:
        values = [getattr(band, key) for band in self.bands if getattr(band, key) is not None]
        return max(values) if values else float("nan")
