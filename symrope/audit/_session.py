"""An audit as ``symrope audit`` runs it: one certified reference, the primary implementation and
the ones compared with it on the same positions, and the suggested fix re-audited.

The command line (:mod:`symrope.cli._audit`) reads the options and resolves the names
(:func:`symrope.audit._libraries.resolve_implementation`); what happens after that is here.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from symrope.audit._driver import audit
from symrope.audit._reference import REFERENCE_TOLERANCE
from symrope.audit._report import AuditReport, fix_helps
from symrope.audit._results import AuditOptions, AuditResult, exact_schedule
from symrope.errors import InternalError
from symrope.schedules import RopeConfig

__all__ = ["audit_report", "suggested_fix"]


def audit_report(primary: Any, config: RopeConfig, options: AuditOptions, *,
                 compared: Sequence[Any] = (), build_fix: Callable[[str], Any] | None = None,
                 skip_fix: Sequence[str] = (), config_document: dict | None = None,
                 notes: Sequence[str] = ()) -> AuditReport:
    """Audit ``primary`` and every implementation of ``compared`` against one certified
    reference, and re-audit the fix the primary's audit suggests.

    Parameters
    ==========
    primary, compared
        What to audit (anything :func:`symrope.audit.audit` takes).
    options : AuditOptions
        The positions, dtype, tolerance and seed, shared by every audit here.
    build_fix : callable, optional
        ``build_fix(name)``: the implementation a suggested fix names (None: no fix re-audited).
    skip_fix : sequence of str
        Names already audited here: a fix among them is not audited again.
    config_document : dict, optional
        The HF config the schedule came from (the report's ``config_hf``; default: the
        schedule's own).

    Raises
    ======
    InternalError
        The reference's certified error exceeds what symrope promises: no report against it.
    """
    schedule = exact_schedule(config, options.seq_len)
    top = int(options.positions.max()) if options.positions is not None else options.max_position
    certificate = schedule.certify(top, seed=options.seed)
    if not certificate.holds():
        raise InternalError(f"the reference's certified error {certificate.max_error:.3g} exceeds "
                            f"{REFERENCE_TOLERANCE:g}: refusing to report against it")
    result = audit(primary, config, options, schedule)
    others = [audit(other, config, options, schedule) for other in compared]
    fix, fix_note = None, None
    if result.fix and build_fix is not None and result.fix not in skip_fix:
        fix, fix_note = suggested_fix(result, build_fix(result.fix), config, options, schedule)
    return AuditReport(primary=result, certificate=certificate, seed=options.seed,
                       config=config_document if config_document is not None else config.hf_dict(),
                       compared=others, fix=fix, fix_note=fix_note, notes=list(notes))


def suggested_fix(result: AuditResult, fix_impl: Any, config: RopeConfig, options: AuditOptions,
                  schedule=None) -> tuple[AuditResult | None, str | None]:
    """The fix's audit where it helps (:func:`symrope.audit._report.fix_helps`), else None and
    the note that says why no fix is suggested."""
    if result.first_failure is None:
        return None, (f"no fix suggested: the error stays within the tolerance "
                      f"{result.tolerance:.3g} at every audited position")
    fix_options = AuditOptions(**{**vars(options), "dtype": result.dtype})
    candidate = audit(fix_impl, config, fix_options, schedule)
    if fix_helps(result, candidate):
        return candidate, None
    return None, (f"no fix suggested: {result.fix} ({result.dtype}) does not lengthen the "
                  f"safe context nor gain a correct bit here (the dtype's own "
                  f"rounding dominates)")
