"""The precision audit of a lifted callable, summarised beside its check.

One function serves both commands: ``symrope check --impl FILE:NAME --audit`` lifts
``NAME(q, k, positions)`` and audits the same callable (``symrope.audit.UserImpl`` of kind
``qk``: the rotated q of unit vectors is its table) against the exact schedule, then appends the
safe context and the worst band to the check report. The schedule is the one the lift knows
(an HF config's), else the one the check read off the code: rotation planes whose frequencies
are ``theta^(-2i/r)`` for one ``theta`` (within float32 rounding). Anything else is skipped with
the reason.
"""

from __future__ import annotations

from symrope.checker import CheckReport, exact_of
from symrope.errors import UsageError
from symrope.lifting._encoding import LiftedEncoding
from symrope.schedules import RopeConfig

__all__ = ["audit_summary", "schedule_of"]

_AGREEMENT = 1e-5  # relative: float32 frequencies against theta^(-2i/r)


def schedule_of(encoding: LiftedEncoding, report: CheckReport | None
                ) -> tuple[RopeConfig | None, str | None]:
    """The exact schedule to audit ``encoding`` against, or ``(None, reason)``."""
    known = getattr(encoding, "schedule", None)
    if known is not None:
        return known, None
    planes = (report.classification or {}).get("p", {}).get("rotation") if report else None
    if not planes:
        return None, ("no exact schedule: the check did not classify the code as rotation "
                      "planes (the audit measures drift against theta^(-2i/d))")
    omegas = sorted((abs(float(exact_of(plane["frequency"]))) for plane in planes),
                    reverse=True)
    rotary = 2 * len(omegas)
    if len(omegas) < 2 or not 0 < omegas[1] < 1:
        theta = 10000.0
    else:
        theta = omegas[1] ** (-rotary / 2)
    expected = [theta ** (-2 * i / rotary) for i in range(len(omegas))]
    if any(abs(got - want) > _AGREEMENT * want for got, want in zip(omegas, expected)):
        return None, ("no exact schedule: the code's frequencies are not theta^(-2i/d) for one "
                      "theta (run 'symrope audit' with its --theta / --rope-scaling)")
    partial = rotary / encoding.dim
    return RopeConfig.from_options(head_dim=encoding.dim, theta=float(f"{theta:.6g}"),
                                   partial_rotary_factor=partial), None


def audit_summary(encoding: LiftedEncoding, report: CheckReport | None, max_position: int = 65535, dtype: str | None = None,
                  tolerance: float | None = None) -> dict:
    """Audit the lifted callable and summarise: safe context, first failure, worst band."""
    from symrope.audit import DEFAULT_TOLERANCE, AuditOptions, UserImpl, audit

    config, reason = schedule_of(encoding, report)
    if config is None:
        return {"skipped": reason, "text": f"audit skipped: {reason}"}
    impl = UserImpl.from_callable(encoding.function, encoding.name, kind="qk")
    options = AuditOptions(max_position=max_position, dtype=dtype, progress=False,
                           tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance)
    try:
        result = audit(impl, config, options)
    except UsageError as error:
        return {"skipped": str(error), "text": f"audit skipped: {error}"}
    worst = max(result.bands, key=lambda band: band.max_abs_error)
    safe = (f"safe context {result.safe_context}" if result.first_failure is not None else
            f"within tolerance at every position up to {max_position}")
    text = (f"audit ({result.dtype}, {config.describe()}, positions 0..{max_position}, "
            f"tolerance {result.tolerance:.3g}): {safe}; worst band {worst.lo}..{worst.hi}: "
            f"max |cos/sin error| {worst.max_abs_error:.3g} ({worst.dominant})")
    return {"dtype": result.dtype, "schedule": config.describe(), "max_position": max_position,
            "tolerance": result.tolerance, "safe_context": result.safe_context,
            "first_failure": result.first_failure,
            "worst_band": {"lo": worst.lo, "hi": worst.hi,
                           "max_abs_error": worst.max_abs_error, "dominant": worst.dominant},
            "bands": [{"lo": b.lo, "hi": b.hi, "max_abs_error": b.max_abs_error,
                       "dominant": b.dominant} for b in result.bands],
            "text": text}
