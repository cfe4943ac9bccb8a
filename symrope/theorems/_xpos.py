"""Theorem 7: xPos, the damped rotation ``X = lambda I + omega J``, and why q and k damp oppositely.

With ``F(p) = e^{-pX^T}`` (queries) and ``G(p) = e^{pX}`` (keys):

* ``F(s)^T G(t) = H(t - s) = e^{lambda (t-s)} R(omega (t-s))``, ``H(0) = I``;
* over a causal lag ``l = s - t >= 0``: ``q^T H(-l) k = e^{-lambda l} q^T R(-omega l) k`` (a
  decaying envelope), while ``H(delta)^T H(delta) = e^{2 lambda delta} I`` grows for
  ``delta > 0`` (key after query): causal masking matters;
* ``omega = 0`` is the pure-decay ablation ``H(delta) = e^{lambda delta} I``;
* xPos (Sun et al. 2022) per pair: ``zeta_i = (2i/d + gamma)/(1 + gamma)``, query scaled by
  ``zeta_i^{p/B}``, key by ``zeta_i^{-p/B}``; this is ``lambda_i = -ln(zeta_i)/B``, and the
  score matrix is ``zeta_i^{(s-t)/B} R((t-s) omega_i)`` per pair, a function of ``t - s``;
* damping q and k *identically* is refuted: the score then depends on ``s + t``, and shifting
  both positions changes it (a counterexample is reported).
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem
from symrope.theorems._registry import theorem
from symrope.errors import UsageError
from symrope.theorems._exponential_form import exponential_of
from symrope.linalg import J, rotation
from symrope.schedules import parse_base, parse_dimension, rope_frequencies, xpos_scales

__all__ = ["xpos_damped_rotation"]


def _product(*factors):
    return sp.MatMul(*factors, evaluate=False)


def _scaled_blocks(position, exponent_sign, scales, frequencies, scale_base):
    """``diag(zeta_i^{sign * position / B} R(position * omega_i))``, built unevaluated (cheap).

    ``zeta^x`` is written ``e^{x ln zeta}`` (its definition for ``zeta > 0``): ``ln zeta_i`` is a
    constant the engine abstracts, so every pair is one template, while the rational ``zeta_i``
    itself would stay concrete and make each pair its own claim.
    """
    with sp.evaluate(False):
        # The products too: evaluating e^{x ln zeta} * cos(...) would turn it back into zeta^x.
        entries = [_damped_rotation_entries(sp.exp(exponent_sign * position * sp.log(z) /
                                                   scale_base), position * w)
                   for z, w in zip(scales, frequencies)]
    return sp.BlockDiagMatrix(*[sp.ImmutableMatrix(2, 2, e) for e in entries])


def _damped_rotation_entries(scale, angle):
    cosine, sine = sp.cos(angle), sp.sin(angle)
    return [sp.Mul(scale, cosine), sp.Mul(-1, scale, sine), sp.Mul(scale, sine),
            sp.Mul(scale, cosine)]


@theorem("xpos_damped_rotation", "xPos / damped rotation: F(s)^T G(t) = e^{lambda(t-s)} "
         "R(omega(t-s)); decay over causal lag, growth the other way; identical damping refuted",
         title="Damped rotations and xPos")
def xpos_damped_rotation(d=8, theta=10000, gamma=sp.Rational(2, 5), scale_base=512) -> Theorem:
    """Build theorem 7.

    Parameters
    ==========

    d : int
        Even head dimension of the xPos part.
    theta : number or "theta"
        RoPE frequency base of the rotations.
    gamma : number
        xPos's gamma (0.4 in the paper).
    scale_base : number
        xPos's scale base B (512 in the paper).

    Returns
    =======

    Theorem

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> get_theorem("xpos_damped_rotation").build(d=4).prove().verdict
    'proved'

    References
    ==========

    .. [1] Y. Sun et al., "A Length-Extrapolatable Transformer", arXiv:2212.10554, Sec. 3.2
       and 4.4.1.
    """
    d = parse_dimension(d)
    base = parse_base(theta)
    scale_base = sp.nsimplify(scale_base)
    if not (scale_base.is_number and scale_base.is_positive):
        raise UsageError(f"xPos scale base B must be a positive number, got {scale_base!r}")
    lam, omega, s, t, p, u, delta = sp.symbols("lambda omega s t p u delta", real=True)
    lag = sp.Symbol("l", nonnegative=True)  # printed \ell
    zeta = sp.Symbol("zeta", positive=True)
    q = sp.Matrix(sp.symbols("q_a q_b", real=True))
    k = sp.Matrix(sp.symbols("k_a k_b", real=True))
    identity = sp.eye(2)
    X = lam * identity + omega * sp.Matrix(J)
    thm = Theorem(
        "xpos_damped_rotation",
        r"For $X = \lambda I + \omega J$, $F(p) = e^{-pX^\top}$ and $G(p) = e^{pX}$ give "
        r"$F(s)^\top G(t) = e^{\lambda (t-s)} R(\omega (t-s)) = H(t-s)$ with $H(0) = I$; over a "
        r"causal lag $\ell \ge 0$ the score is $q^\top H(-\ell) k = e^{-\lambda \ell} q^\top "
        r"R(-\omega \ell) k$, and $H(\delta)^\top H(\delta) = e^{2 \lambda \delta} I$ (growth for $\delta > 0$); "
        r"$\omega = 0$ gives pure decay. xPos ($\zeta_i = (2i/d + \gamma)/(1 + \gamma)$, query "
        r"scaled by $\zeta_i^{p/B}$, key by $\zeta_i^{-p/B}$; "
        rf"$d = {d}$, $\theta = {base}$, $\gamma = {sp.latex(sp.nsimplify(gamma))}$, "
        rf"$B = {scale_base}$) is this with $\lambda_i = -\ln(\zeta_i)/B$. Damping $q$ and $k$ "
        r"identically is not translation invariant.",
        hypotheses=[r"$\lambda$, $\omega$ real; the decay reading needs $\lambda > 0$ (for xPos: "
                    r"$0 < \zeta_i < 1$, checked)", r"$\zeta_i > 0$", "$s$, $t$ real"],
        statement_latex=r"F(s)^\top G(t) = e^{\lambda(t-s)}R(\omega(t-s)),\quad "
                        r"q^\top H(-\ell)k = e^{-\lambda\ell}q^\top R(-\omega\ell)k,\quad "
                        r"\zeta_i = \frac{2i/d + \gamma}{1 + \gamma}")
    thm.define("X", X, "the damped rotation generator ($I$ and $J$ commute)",
               display=("X", r"\lambda I + \omega J"))

    # The 2x2 generator.
    H = lambda offset: sp.exp(lam * offset) * rotation(omega * offset)  # noqa: E731
    thm.check(exponential_of(X, p), H(p),
              r"SymPy's exponential; equivalently $e^{p \lambda I} e^{p \omega J}$ since $I$, "
              r"$J$ commute",
              claim="G(p) = e^{pX} = e^{lambda p} R(omega p)",
              display=(r"G(p) = e^{pX}", r"e^{\lambda p} R(\omega p)"))
    F = lambda position: exponential_of(X.T, -position)  # noqa: E731
    thm.check(F(p), sp.exp(-lam * p) * rotation(omega * p),
              r"$X^\top = \lambda I - \omega J$, so $-pX^\top = -\lambda p I + \omega p J$",
              claim="F(p) = e^{-pX^T} = e^{-lambda p} R(omega p)",
              display=(r"F(p) = e^{-pX^\top}", r"e^{-\lambda p} R(\omega p)"))
    thm.check(F(s).T * exponential_of(X, t), H(t - s),
              r"$R(a)^\top R(b) = R(b - a)$ and $e^{-\lambda s} e^{\lambda t} = e^{\lambda "
              r"(t-s)}$",
              claim="F(s)^T G(t) = e^{lambda (t-s)} R(omega (t-s)) = H(t - s)",
              display=(r"F(s)^\top G(t)", r"e^{\lambda (t-s)} R(\omega (t-s)) = H(t-s)"))
    thm.check(H(0), identity, "$e^0 = 1$ and $R(0) = I$", claim="H(0) = I",
              display=("H(0)", "I"))
    thm.check((q.T * H(-lag) * k)[0], sp.exp(-lam * lag) * (q.T * rotation(-omega * lag) * k)[0],
              r"the scalar $e^{-\lambda \ell}$ factors out of the bilinear form, for symbolic "
              r"$q = (q_a, q_b)$ and $k = (k_a, k_b)$",
              claim="q^T H(-l) k = e^{-lambda l} q^T R(-omega l) k (causal lag l >= 0)",
              display=(r"q^\top H(-\ell)\, k", r"e^{-\lambda \ell}\, q^\top R(-\omega \ell)\, k"))
    thm.check(H(delta).T * H(delta), sp.exp(2 * lam * delta) * identity,
              r"$R$ is orthogonal: $H(\delta)$ scales every vector by $e^{\lambda \delta}$, a "
              r"decay for $\delta = -\ell < 0$ and a growth for $\delta > 0$ (key after the query)",
              claim="H(delta)^T H(delta) = e^{2 lambda delta} I",
              display=(r"H(\delta)^\top H(\delta)", r"e^{2 \lambda \delta} I"))
    thm.check(exponential_of(X.subs(omega, 0), delta), sp.exp(lam * delta) * identity,
              "the ablation without rotation", claim="omega = 0: H(delta) = e^{lambda delta} I",
              display=(r"H(\delta)\big|_{\omega = 0}", r"e^{\lambda \delta} I"))

    # Identical damping of q and k breaks translation invariance.
    damped = lambda position: zeta ** position * rotation(omega * position)  # noqa: E731
    thm.check(damped(s).T * damped(t), zeta ** (s + t) * rotation(omega * (t - s)),
              "the scales multiply instead of cancelling",
              claim="F(p) = G(p) = zeta^p R(omega p) gives F(s)^T G(t) = "
                    "zeta^(s+t) R(omega (t-s))",
              display=(r"\bigl(\zeta^{s} R(\omega s)\bigr)^\top \zeta^{t} R(\omega t)",
                       r"\zeta^{s+t} R(\omega (t-s))"))
    thm.check(damped(s).T * damped(t), damped(s + u).T * damped(t + u),
              r"shifting both positions by $u$ multiplies the score by $\zeta^{2u}$",
              claim="identical damping is translation invariant (false)", expect="refuted",
              display=(r"\bigl(\zeta^{s} R(\omega s)\bigr)^\top \zeta^{t} R(\omega t)",
                       r"\bigl(\zeta^{s+u} R(\omega (s+u))\bigr)^\top \zeta^{t+u} "
                       r"R(\omega (t+u))"))

    # xPos per pair.
    thm.check(zeta ** (p / scale_base), sp.exp(p * sp.log(zeta) / scale_base),
              "definition of a real power of a positive number",
              claim="zeta^(p/B) = e^(p ln(zeta)/B)",
              display=(r"\zeta^{p/B}", r"e^{p \ln(\zeta)/B}"))
    scales = xpos_scales(d, gamma)
    i_sym, d_sym = sp.Symbol("i", integer=True, nonnegative=True), sp.Symbol("d", positive=True)
    g_sym = sp.Symbol("gamma", positive=True)
    thm.check(1 - (2 * i_sym / d_sym + g_sym) / (1 + g_sym), (d_sym - 2 * i_sym) / (d_sym * (1 + g_sym)),
              r"so $1 - \zeta_i > 0$ for every pair $i \le d/2 - 1$ ($d - 2i \ge 2$) and "
              r"$\gamma > 0$; and $\zeta_i > 0$: hence $\lambda_i = -\ln(\zeta_i)/B > 0$ and "
              r"$e^{-\lambda_i \ell}$ decays",
              claim="1 - zeta_i = (d - 2i) / (d (1 + gamma)), so 0 < zeta_i < 1 and lambda_i > 0",
              display=(r"1 - \zeta_i = 1 - \frac{2i/d + \gamma}{1 + \gamma}",
                       r"\frac{d - 2i}{d\,(1 + \gamma)}"))
    frequencies = rope_frequencies(d, base, evaluate=False)
    query = lambda position: _scaled_blocks(position, 1, scales, frequencies, scale_base)  # noqa
    key = lambda position: _scaled_blocks(position, -1, scales, frequencies, scale_base)  # noqa
    pair_generator = -sp.log(zeta) / scale_base * identity + omega * sp.Matrix(J)
    thm.check(exponential_of(pair_generator.T, -p),
              sp.exp(p * sp.log(zeta) / scale_base) * rotation(omega * p),
              r"$F(p) = e^{-pX^\top} = e^{-\lambda p} R(\omega p)$ with $\lambda = -\ln(\zeta)/B$, "
              r"for a symbolic $\zeta > 0$ and $\omega$, so for every pair $(\zeta_i, \omega_i)$",
              claim="e^{-p X_i^T} = zeta_i^{p/B} R(p omega_i) with X_i = lambda_i I + omega_i J, "
                    "lambda_i = -ln(zeta_i)/B",
              display=(r"e^{-pX^\top}\big|_{\lambda = -\ln(\zeta)/B}",
                       r"\zeta^{p/B} R(\omega p)"))
    relative = _scaled_blocks(t - s, -1, scales, frequencies, scale_base)
    thm.check(_product(query(s).T, key(t)), relative,
              r"per pair: $\zeta_i^{s/B} \zeta_i^{-t/B} = \zeta_i^{-(t-s)/B}$ and "
              r"$R(s\omega_i)^\top R(t\omega_i) = R((t-s)\omega_i)$",
              claim=f"xPos: F(s)^T G(t) = diag(zeta_i^((s-t)/B) R((t-s) omega_i)) (d = {d})",
              budget=10.0 + d / 32,
              display=(r"F(s)^\top G(t)",
                       r"\operatorname{diag}\left(\zeta_i^{(s-t)/B}R((t-s)\omega_i)\right)"))
    thm.check(_product(query(s).T, query(t)), _product(query(s + u).T, query(t + u)),
              r"xPos with the query scale on both sides: each pair's score is multiplied by "
              r"$\zeta_i^{2u/B}$ when both positions shift by $u$",
              claim="xPos with identical scaling of q and k is translation invariant (false)",
              expect="refuted", budget=10.0 + d / 32,
              display=(r"F(s)^\top F(t)", r"F(s+u)^\top F(t+u)"))
    return thm
