"""Frequency schedules: a fixed change of the frequencies keeps RoPE relative; one recomputed
from the current sequence length does not; YaRN's attention factor scales ``H(0)``.

The frequencies are the audited ones: :func:`symrope.schedules.inv_freq` with the ``sympy``
context evaluates the very formula the float audit evaluates (transformers'
``ROPE_INIT_FUNCTIONS``), exactly.
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem
from symrope.theorems._registry import theorem
from symrope.errors import UsageError
from symrope.linalg import rotation

__all__ = ["schedule_keeps_relative", "length_dependent_schedule_not_relative",
           "yarn_attention_factor_scales_identity", "schedule_config"]

# Each schedule as a model would configure it (head_dim is filled in by the theorem).
_SCHEDULES = {
    "linear": dict(theta=10000, rope_scaling={"rope_type": "linear", "factor": 4.0},
                   max_position_embeddings=8192),
    "yarn": dict(theta=10000, rope_scaling={"rope_type": "yarn", "factor": 4.0,
                                            "original_max_position_embeddings": 2048},
                 max_position_embeddings=8192),
    "llama3": dict(theta=500000, rope_scaling={"rope_type": "llama3", "factor": 8.0,
                                               "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                               "original_max_position_embeddings": 8192},
                   max_position_embeddings=131072),
    "dynamic": dict(theta=10000, rope_scaling={"rope_type": "dynamic", "factor": 2.0},
                    max_position_embeddings=4096),
    "longrope": dict(theta=10000, rope_scaling={
        "rope_type": "longrope", "original_max_position_embeddings": 4096,
        "short_factor": [1.0, 1.25, 1.5, 2.0], "long_factor": [2.0, 3.0, 4.0, 6.0]},
        max_position_embeddings=16384),
}
# Each block is one engine template proof (rational frequencies share none), ~1-4 s apiece.
_STEP_BUDGET = 60.0
# Static NTK: the dynamic formula evaluated once, at a fixed length, then never recomputed.
_STATIC_NTK_LENGTH = 8192
# Two lengths on either side of the switch: a key cached at the first, a query at the second.
_LENGTHS = {"dynamic": (4096, 8192), "longrope": (4096, 8192)}


def schedule_config(rope_type: str, d: int):
    """The :class:`~symrope.schedules.RopeConfig` this module uses for ``rope_type``."""
    from symrope.schedules import RopeConfig

    options = dict(_SCHEDULES["dynamic" if rope_type == "ntk" else rope_type])
    scaling = dict(options.pop("rope_scaling"))
    if rope_type == "longrope":  # one short and one long factor per frequency pair
        scaling["short_factor"] = (scaling["short_factor"] * d)[: d // 2]
        scaling["long_factor"] = (scaling["long_factor"] * d)[: d // 2]
    return RopeConfig.from_options(head_dim=d, rope_scaling=scaling, **options)


def _frequencies(rope_type: str, d: int, seq_len=None) -> list:
    from symrope.schedules import inv_freq

    if rope_type == "ntk":
        seq_len = _STATIC_NTK_LENGTH
    return list(inv_freq(schedule_config(rope_type, d), "sympy", seq_len=seq_len))


def _in_lowest_terms(thm, audited: list, name: str) -> list:
    """The audited frequencies rewritten exactly in lowest terms, with the step that checks it.

    The block steps below are sampled at 30 and 60 digits; llama3's smoothed frequencies as
    ``inv_freq`` builds them are nested sums (``sqrt(2)*(-512*sqrt(2)/(375*pi) + 4/3)/8000 +
    ...``) whose evaluation was most of the theorem's time. Expanded, with denominators
    rationalised, they are the same numbers, and a checked step says so.
    """
    simple = [sp.radsimp(sp.expand(w)) for w in audited]
    if simple != list(audited):
        thm.check(sp.Matrix(simple), sp.Matrix(audited),
                  "the same numbers in lowest terms (expanded, denominators rationalised); the "
                  "steps below use this form", claim=f"{name} in lowest terms = {name}")
    return simple


def _blocks(position, omega, scale=1):
    return sp.BlockDiagMatrix(*[scale * rotation(position * w) for w in omega])


def _products(left, right, omega, left_scale=1, right_scale=1):
    """``R_omega(left)^T R_omega(right)`` built block by block (each block an explicit 2x2)."""
    return sp.BlockDiagMatrix(*[(left_scale * rotation(left * w)).T *
                                (right_scale * rotation(right * w)) for w in omega])


def _cross_products(left, left_omega, right, right_omega):
    return sp.BlockDiagMatrix(*[rotation(left * a).T * rotation(right * b)
                                for a, b in zip(left_omega, right_omega)])


def _identity_blocks(d, scale=1):
    return sp.BlockDiagMatrix(*[scale * sp.eye(2) for _ in range(d // 2)])


def _check_d(d) -> int:
    d = int(d)
    if d < 2 or d % 2:
        raise UsageError(f"d must be a positive even integer, got {d}")
    return d


@theorem("schedule_keeps_relative",
         "a position-independent frequency schedule (linear PI, YaRN, llama3, static NTK) keeps "
         "R(s)^T R(t) = R(t - s)",
         title="Position-independent frequency schedules stay relative")
def schedule_keeps_relative(rope_type="llama3", d=8) -> Theorem:
    """Build the theorem for one schedule at head dimension ``d``.

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("schedule_keeps_relative").build(rope_type="yarn", d=4).prove()
    >>> report.verdict, report.checked_steps
    ('proved', 3)

    References
    ==========

    .. [1] transformers, ``src/transformers/modeling_rope_utils.py``.
    """
    if rope_type not in ("linear", "yarn", "llama3", "ntk"):
        raise UsageError(f"rope_type must be linear, yarn, llama3 or ntk, got {rope_type!r}")
    d = _check_d(d)
    s, t, p, w = sp.symbols("s t p omega", real=True)
    omega = _frequencies(rope_type, d)
    thm = Theorem("schedule_keeps_relative",
                  rf"For the frequencies $\omega_i$ of the {rope_type} schedule at $d = {d}$, as "
                  r"the audit computes them, and $R_\omega(p) = \operatorname{diag}(R(p\,\omega_i))$: "
                  r"$R_\omega(s)^\top R_\omega(t) = R_\omega(t - s)$ and "
                  r"$R_\omega(p)^\top R_\omega(p) = I$ for every real $s$, $t$, $p$",
                  hypotheses=["the frequencies do not depend on the position or the length (the "
                              "schedule's frequency function takes no position; not checked)"],
                  statement_latex=r"R_\omega(s)^\top R_\omega(t) = R_\omega(t - s),\quad "
                                  r"R_\omega(p)^\top R_\omega(p) = I")
    thm.define("omega_i", sp.Matrix(omega), f"the {rope_type} schedule as the audit computes it, "
               "exactly")
    omega = _in_lowest_terms(thm, omega, "omega_i")
    thm.check(rotation(s * w).T * rotation(t * w), rotation((t - s) * w),
              "for any fixed real frequency: angle addition",
              claim="R(s omega)^T R(t omega) = R((t - s) omega)")
    thm.check(_products(s, t, omega), _blocks(t - s, omega),
              "block by block, for the schedule's frequencies", budget=_STEP_BUDGET,
              claim="R_omega(s)^T R_omega(t) = R_omega(t - s)",
              display=(r"R_\omega(s)^\top R_\omega(t)", r"R_\omega(t - s)"))
    thm.check(_products(p, p, omega), _identity_blocks(d),
              "rotations are orthogonal: identity at zero offset", budget=_STEP_BUDGET,
              claim="R_omega(p)^T R_omega(p) = I",
              display=(r"R_\omega(p)^\top R_\omega(p)", "I"))
    return thm


@theorem("length_dependent_schedule_not_relative",
         "a schedule recomputed from the current length (dynamic NTK, longrope) breaks the "
         "relative property between a cached key and a later query",
         title="Length-dependent frequency schedules are not relative")
def length_dependent_schedule_not_relative(rope_type="dynamic", d=8) -> Theorem:
    """A key cached at one length, a query computed at another: refuted with the counterexample.

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("length_dependent_schedule_not_relative").build().prove()
    >>> report.verdict, [r.verdict.status for r in report.results if r.verdict]
    ('proved', ['refuted', 'proved', 'refuted'])
    """
    if rope_type not in _LENGTHS:
        raise UsageError(f"rope_type must be dynamic or longrope, got {rope_type!r}")
    d = _check_d(d)
    short, long = _LENGTHS[rope_type]
    s, t = sp.symbols("s t", real=True)
    before, after = _frequencies(rope_type, d, short), _frequencies(rope_type, d, long)
    thm = Theorem("length_dependent_schedule_not_relative",
                  rf"{rope_type}: $R_{{{long}}}(s)^\top R_{{{short}}}(t)$ is not a function of "
                  r"$t - s$",
                  hypotheses=[f"key cached at sequence length {short}",
                              f"query computed at sequence length {long}"],
                  statement_latex=rf"R_{{{long}}}(s)^\top R_{{{short}}}(t) \neq "
                                  rf"R_{{{long}}}(0)^\top R_{{{short}}}(t - s)")
    thm.define(f"omega({short})", sp.Matrix(before), "the schedule at the first length")
    thm.define(f"omega({long})", sp.Matrix(after), "the schedule at the second length")
    thm.check(sp.Matrix(before), sp.Matrix(after), "the schedule changes with the length",
              expect="refuted", claim=f"omega({short}) = omega({long}) (false)")
    before = _in_lowest_terms(thm, before, f"omega({short})")
    after = _in_lowest_terms(thm, after, f"omega({long})")
    thm.check(_products(s, t, after), _blocks(t - s, after),
              "at one fixed length the encoding is still relative",
              budget=_STEP_BUDGET,
              claim=f"R_{long}(s)^T R_{long}(t) = R_{long}(t - s)",
              display=(rf"R_{{{long}}}(s)^\top R_{{{long}}}(t)", rf"R_{{{long}}}(t-s)"))
    thm.check(_cross_products(s, after, t, before), _blocks(t - s, before),
              "across the two lengths the score depends on $s$, not only on $t - s$",
              budget=_STEP_BUDGET,
              expect="refuted", claim=f"R_{long}(s)^T R_{short}(t) = R_{long}(0)^T R_{short}(t - s) "
              "(false)",
              display=(rf"R_{{{long}}}(s)^\top R_{{{short}}}(t)",
                       rf"R_{{{long}}}(0)^\top R_{{{short}}}(t-s)"))
    return thm


@theorem("yarn_attention_factor_scales_identity",
         "YaRN's attention factor m keeps translation invariance but makes H(0) = m^2 I",
         title="YaRN's attention factor scales the identity")
def yarn_attention_factor_scales_identity(d=4) -> Theorem:
    """``(m R(s))^T (m R(t)) = m^2 R(t - s)``: relative, but ``H(0) = m^2 I != I``.

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("yarn_attention_factor_scales_identity").build().prove()
    >>> report.verdict, [r.verdict.status for r in report.results if r.verdict]
    ('proved', ['proved', 'proved', 'refuted'])
    """
    from symrope.schedules import attention_factor

    d = _check_d(d)
    config = schedule_config("yarn", d)
    m = sp.sympify(attention_factor(config, "sympy"))
    omega = _frequencies("yarn", d)
    s, t, p = sp.symbols("s t p", real=True)
    thm = Theorem("yarn_attention_factor_scales_identity",
                  rf"YaRN (factor 4, $d = {d}$): with $m = {sp.latex(m, ln_notation=True)}$ on "
                  r"$q$ and $k$, "
                  r"$F(s)^\top G(t) = m^2 R(t - s)$ and $H(0) = m^2 I \ne I$",
                  hypotheses=["cos and sin multiplied by the attention factor $m$"],
                  statement_latex=r"(mR(s))^\top(mR(t)) = m^2 R(t - s),\quad "
                                  r"H(0) = m^2 I \neq I")
    thm.define("m", m, r"YaRN's attention factor $0.1 \ln(\mathrm{factor}) + 1$")
    omega = _in_lowest_terms(thm, omega, "omega_i")
    thm.check(_products(s, t, omega, m, m), _blocks(t - s, omega, m ** 2),
              "a uniform scalar commutes with everything: still relative",
              budget=_STEP_BUDGET,
              claim="(m R(s))^T (m R(t)) = m^2 R(t - s)",
              display=(r"(mR(s))^\top(mR(t))", r"m^2 R(t-s)"))
    thm.check(_products(p, p, omega, m, m), _identity_blocks(d, m ** 2),
              r"at zero offset the score is $m^2 q^\top k$", budget=_STEP_BUDGET,
              claim="(m R(p))^T (m R(p)) = m^2 I", display=(r"(mR(p))^\top(mR(p))", r"m^2 I"))
    thm.check(_products(p, p, omega, m, m), _identity_blocks(d),
              "so the identity assumption $H(0) = I$ fails", expect="refuted", budget=_STEP_BUDGET,
              claim="(m R(p))^T (m R(p)) = I (false)",
              display=(r"(mR(p))^\top(mR(p))", "I"))
    return thm
