"""``assert_relative`` and ``assert_precise``: symrope's verdicts inside a model repo's test suite.

In the manner of ``numpy.testing`` / ``torch.testing``: each passes silently or raises
``AssertionError`` whose message says what failed and where. Re-exported by
:mod:`symrope.testing` (lazily: importing it stays light).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["assert_relative", "assert_precise"]


def assert_relative(fn: Callable, head_dim: int = 64, position_dims: int = 1, *, tokens: int | None = None,
                    budget: float = 120.0, allow_scale: bool = True) -> None:
    """Assert that ``fn(q, k, positions) -> (q_rot, k_rot)`` makes attention relative.

    The real function is lifted on a symbolic sequence (each token at its own position) and the
    four assumptions are decided on every token pair (:func:`symrope.lifting.check_lifted`).

    Parameters
    ==========

    fn : callable or symrope.Encoding
        Torch code with the ``symrope check --impl`` signature, or an Encoding written in SymPy.
    head_dim, position_dims : int
    tokens : int, optional
        Tokens of the symbolic sequence (default 3).
    budget : float
        Seconds for the check.
    allow_scale : bool
        Pass when scores are relative up to a uniform scale ``c^2`` (an attention factor, as
        YaRN's): identity at zero offset then fails only by ``c^2``.

    Raises
    ======

    AssertionError
        With the refuted assumption, its counterexample (token pair, positions, content) and
        the float64 replay through the real code; or why the code could not be decided.

    Examples
    ========

    >>> import torch
    >>> from symrope.testing import assert_relative
    >>> def rope2(q, k, positions):
    ...     angle = positions[:, None].float() * 0.5
    ...     turn = lambda v: torch.cat((v[..., :1] * angle.cos() - v[..., 1:] * angle.sin(),
    ...                                 v[..., :1] * angle.sin() + v[..., 1:] * angle.cos()), -1)
    ...     return turn(q), turn(k)
    >>> assert_relative(rope2, head_dim=2)
    >>> assert_relative(lambda q, k, positions: rope2(q, k, positions.flip(0)), head_dim=2)
    Traceback (most recent call last):
    ...
    AssertionError: <lambda> is not relative: translation invariance refuted: tokens (0, 1) ...
    """
    from symrope.checker import Encoding, check
    from symrope.checker import ASSUMPTION_TITLES
    from symrope.lifting._errors import LiftUndecided
    from symrope.lifting._lift import lift
    from symrope.lifting._report import check_lifted

    if isinstance(fn, Encoding):
        report, name = check(fn, budget=budget), fn.name
    else:
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        try:
            encoding = lift(fn, head_dim, position_dims,
                            **({} if tokens is None else {"tokens": tokens}))
        except LiftUndecided as reason:
            raise AssertionError(f"{name} could not be lifted to exact semantics, so symrope "
                                 f"has no verdict: {reason}") from None
        report = check_lifted(encoding, budget=budget)
    if report.verdict == "proved" or (allow_scale and report.scaled):
        return
    failures = []
    for assumption, result in report.assumptions.items():
        if result.verdict == "proved":
            continue
        if assumption == "identity_at_zero" and allow_scale and report.scaled:
            continue
        title = ASSUMPTION_TITLES[assumption]
        detail = result.counterexample.get("summary") if result.counterexample else \
            result.evidence
        failures.append(f"{title} {result.verdict}: {detail}")
    verdict = "is not relative" if report.verdict == "refuted" else \
        "could not be decided (no verdict within the budget)"
    raise AssertionError(f"{name} {verdict}: " + "; ".join(failures))


def assert_precise(fn: Callable, dtype: str = "bf16", context: int = 8192, tolerance: float = 2 ** -8, *,
                   head_dim: int = 64, theta: float | None = None,
                   rope_scaling: dict | None = None) -> None:
    """Assert that ``fn``'s float RoPE stays within ``tolerance`` of the exact one up to ``context``.

    ``fn`` is audited as ``symrope audit --impl`` audits it (the ``(q, k, positions)``
    signature, an apply ``f(x, positions)`` or a table ``f(positions) -> (cos, sin)``), in its
    own ``dtype``, at every position ``0 .. context - 1``, against the certified reference of the
    exact schedule: ``theta`` (and ``rope_scaling``) if given, else the schedule the check reads
    off the lifted code.

    Raises
    ======

    AssertionError
        With the first failing position band, its largest cos/sin error, the dominant cause
        and the safe context.

    Examples
    ========

    >>> import torch
    >>> from symrope.testing import assert_precise
    >>> def bf16_positions(q, k, positions):
    ...     inv_freq = 1.0 / (10000 ** (torch.arange(0, 2).float() / 2))
    ...     angle = positions.to(torch.bfloat16)[:, None].float() * inv_freq
    ...     turn = lambda v: torch.cat((v[..., :2] * angle.cos() - v[..., 2:] * angle.sin(),
    ...                                 v[..., :2] * angle.sin() + v[..., 2:] * angle.cos()), -1)
    ...     return turn(q), turn(k)
    >>> assert_precise(bf16_positions, dtype="fp32", context=256, head_dim=4, theta=10000)
    >>> assert_precise(bf16_positions, dtype="fp32", context=4096, head_dim=4, theta=10000)
    Traceback (most recent call last):
    ...
    AssertionError: bf16_positions is not precise to 0.00390625 up to position 4095 in fp32: ...
    """
    from symrope.audit import AuditOptions, UserImpl, audit
    from symrope.errors import UsageError
    from symrope.schedules import RopeConfig

    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    if not isinstance(context, int) or context < 1:
        raise UsageError(f"context must be a positive integer, got {context!r}")
    impl = UserImpl.from_callable(fn, name)
    if theta is None and rope_scaling is None:
        config = _schedule_from_lift(fn, impl.kind, head_dim, name)
    else:
        config = RopeConfig.from_options(head_dim=head_dim, theta=theta,
                                         rope_scaling=rope_scaling)
    result = audit(impl, config, AuditOptions(max_position=context - 1, dtype=dtype,
                                              tolerance=tolerance, progress=False))
    if result.first_failure is None:
        return
    band = next(b for b in result.bands if b.lo <= result.first_failure <= b.hi)
    raise AssertionError(
        f"{name} is not precise to {tolerance:g} up to position {context - 1} in {result.dtype}: "
        f"the first failing position is {result.first_failure} (band {band.lo}..{band.hi}: "
        f"max |cos/sin error| {band.max_abs_error:.3g}, {band.correct_bits or 0:.1f} correct "
        f"bits, dominated by {band.dominant}); safe context {result.safe_context} "
        f"(against {config.describe()})")


def _schedule_from_lift(fn, kind: str, head_dim: int, name: str):
    """The exact schedule of a (q, k, positions) function, read off its lifted check."""
    from symrope.errors import UsageError
    from symrope.lifting._audit import schedule_of
    from symrope.lifting._lift import lift
    from symrope.lifting._report import check_lifted

    if kind != "qk":
        raise UsageError(f"{name}: give theta (and rope_scaling) for a table or apply function: "
                         "only a (q, k, positions) function can be lifted to read its schedule")
    encoding = lift(fn, head_dim)
    config, reason = schedule_of(encoding, check_lifted(encoding))
    if config is None:
        raise UsageError(f"{name}: {reason}")
    return config
