"""The checker on ordinary inputs: removable singularities, thresholds far out, Mod jumps, budget.

Each encoding has a known truth, derived by hand in its comment; the checker must reach it
(proved only symbolically, refuted only with an exact counterexample).
"""

from unittest import mock

import pytest
import sympy as sp

from symrope.checker import Encoding, check
from symrope.checker import _claims
from symrope.checker._claims import Clock, decide, probe_across_scales
from symrope.checker._continuity import find_discontinuity
from symrope.checker._exponential import NotExponential, exponential_form
from symrope.linalg import quaternion_multiplication, rotation

K = sp.Matrix([[0, -3, 2], [3, 0, -1], [-2, 1, 0]])  # so(3), |w| = sqrt(14)


def rodrigues(p):
    """exp(p K) as Rodrigues wrote it: theta = |p| sqrt(14) sits in denominators (0/0 at p = 0)."""
    omega = p * K
    theta = sp.sqrt(omega[2, 1] ** 2 + omega[0, 2] ** 2 + omega[1, 0] ** 2)
    return sp.eye(3) + sp.sin(theta) / theta * omega + (1 - sp.cos(theta)) / theta ** 2 * omega ** 2


def _replayed_translation(report, F, G, dims: int = 1) -> dict:
    """The translation counterexample replayed through F and G themselves, at 30 digits.

    The score of basis vectors is ``F(s)[:, i] . G(t)[:, j]``; it is evaluated at (s, t) and at
    the point the claim compares it with ((0, t - s), or (s + u, t + u) in the shifted form), and
    the two must differ by more than 1e-6, each agreeing with the report's exact value.
    """
    found = report.assumptions["translation_invariance"].counterexample
    i, j = found.x, found.y
    axes = sp.symbols(f"a0:{dims}", real=True)
    F_at, G_at = (M(axes if dims > 1 else axes[0]) for M in (F, G))

    def position(key):
        value = found.positions[key].exact
        return tuple(value) if dims > 1 else (value,)

    def score(s, t):
        f = F_at.xreplace(dict(zip(axes, s)))
        g = G_at.xreplace(dict(zip(axes, t)))
        return sp.N((f[:, i].T * g[:, j])[0, 0], 30)

    s, t = position("s"), position("t")
    here = score(s, t)
    if "u" in found.positions:
        u = position("u")
        there = score(tuple(a + b for a, b in zip(s, u)), tuple(a + b for a, b in zip(t, u)))
    else:
        there = score((0,) * dims, tuple(b - a for a, b in zip(s, t)))
    reported = found.expected.exact
    assert abs(here - there) > sp.Float("1e-6")
    assert abs(here - sp.N(found.score.exact, 30)) < sp.Float("1e-20")
    assert abs(there - sp.N(reported, 30)) < sp.Float("1e-20")
    return found


def test_rodrigues_form_is_proved_relative_through_its_removable_singularity():
    # R(p) = exp(pK) for p != 0 and the continuous extension R(0) = I: a rotation group, so all
    # four assumptions hold for the continuous extension (the convention the checker states).
    # |p| is replaced by p only because every entry is proved even in |p|; then R(0) = I and
    # R' = K R are proved, and ODE uniqueness gives R(p) = e^{pK}.
    report = check(Encoding.from_matrices("rodrigues", rodrigues, rodrigues), budget=20)
    assert report.verdicts() == {"linearity": "proved", "translation_invariance": "proved",
                                 "identity_at_zero": "proved", "continuity": "proved"}
    assert "removable" in report.assumptions["continuity"].evidence
    translation = report.assumptions["translation_invariance"].evidence
    assert "even in |p|" in translation and "uniqueness for linear ODEs" in translation
    # the generator is K itself, found through the limit p -> 0
    assert report.generator["axes"][0]["blocks"][0]["matrix"] == sp.sstr(K.tolist())


def rodrigues_sinc(p):
    """The same rotation with sinc(theta) (SymPy differentiates sinc into a Piecewise)."""
    theta = sp.sqrt(14) * sp.Abs(p)
    return sp.eye(3) + sp.sinc(theta) * p * K + (1 - sp.cos(theta)) / theta ** 2 * (p * K) ** 2


def rodrigues_half_angle(p):
    """The same rotation with 1 - cos(theta) written 2 sin(theta/2)^2."""
    theta = sp.sqrt(14) * sp.Abs(p)
    return sp.eye(3) + sp.sin(theta) / theta * p * K + \
        2 * sp.sin(theta / 2) ** 2 / theta ** 2 * (p * K) ** 2


@pytest.mark.parametrize("form", [rodrigues_sinc, rodrigues_half_angle])
def test_other_spellings_of_rodrigues_are_proved_too(form):
    report = check(Encoding.from_matrices(form.__name__, form, form), budget=20)
    assert set(report.verdicts().values()) == {"proved"}
    assert report.generator["axes"][0]["blocks"][0]["matrix"] == sp.sstr(K.tolist())


def test_matrix_exp_liere_2d_is_refuted_without_evaluating_at_zero():
    # exp(p0 Lz + p1 Lx) via SymPy's Matrix.exp: 1/(p0**2 + p1**2) terms, undefined at (0, 0).
    # Lz and Lx do not commute, so the score is not a function of t - s: refuted.
    Lz = sp.Matrix([[0, -1, 0], [1, 0, 0], [0, 0, 0]])
    Lx = sp.Matrix([[0, 0, 0], [0, 0, -1], [0, 1, 0]])

    def R(p):
        return (p[0] * Lz + p[1] * Lx).exp()

    report = check(Encoding.from_matrices("liere_exp", R, R, position_dims=2), budget=60)
    translation = report.assumptions["translation_invariance"]
    assert translation.verdict == "refuted"
    assert report.assumptions["continuity"].verdict != "refuted"
    # R(0, 0) is 0/0 as written: the claim is the shifted form score(s, t) = score(s + u, t + u),
    # and no position it was refuted at is the origin
    found = _replayed_translation(report, R, R, dims=2)
    assert "u" in found
    s, t, u = (tuple(sp.sympify(found[k])) for k in ("s", "t", "u"))
    shifted = [tuple(a + b for a, b in zip(v, u)) for v in (s, t)]
    assert all(v != (0, 0) for v in (s, t, *shifted))


def dynamic_ntk(d=4, base=10000, context=2048):
    """Per-token dynamic NTK: base' = base (p / 2048)^(d / (d - 2)) once p > 2048."""
    def encode(x, p):
        scaled = sp.Piecewise((base * (p / context) ** sp.Rational(d, d - 2), p > context),
                              (base, True))
        out = []
        for i in range(d // 2):
            angle = p * scaled ** (-sp.Rational(2 * i, d))
            c, s = sp.cos(angle), sp.sin(angle)
            out += [c * x[2 * i] - s * x[2 * i + 1], s * x[2 * i] + c * x[2 * i + 1]]
        return sp.Matrix(out)

    return Encoding("dynamic_ntk", d, encode, encode)


def test_dynamic_ntk_is_refuted_beyond_its_threshold():
    # below 2048 it is RoPE; above, the angle p * base'(p)^(-2i/d) is not linear in p, so the
    # score of (s, t) and of (s + u, t + u) differ once one of them is past 2048.
    report = check(dynamic_ntk(), budget=60)
    translation = report.assumptions["translation_invariance"]
    assert translation.verdict == "refuted"
    point = translation.counterexample
    positions = [sp.Rational(point[k]) for k in ("s", "t") if k in point]
    positions += [sp.Rational(point["s"]) + sp.Rational(point["u"]),
                  sp.Rational(point["t"]) + sp.Rational(point["u"])] if "u" in point else []
    assert max(abs(v) for v in positions) > 2048
    assert report.assumptions["identity_at_zero"].verdict == "proved"  # F(p)^T G(p) = I


def test_mod_wrapped_angle_has_its_jump_located():
    # angle Mod(p, 4096)/10: from below p = 0 the angle tends to 409.6, from above to 0.
    wrapped = lambda p: rotation(sp.Mod(p, 4096) / 10)  # noqa: E731
    report = check(Encoding.from_matrices("mod_wrapped", wrapped, wrapped), budget=60)
    continuity = report.assumptions["continuity"]
    assert continuity.verdict == "refuted"
    found = continuity.counterexample
    assert found["kind"] == "jump" and found["position"]["p"] in ("0", "4096")
    left, right = sp.sympify(found["left_limit"]), sp.sympify(found["right_limit"])
    assert {left, right} & {sp.cos(sp.Rational(2048, 5)), sp.sin(sp.Rational(2048, 5)),
                            -sp.sin(sp.Rational(2048, 5))}
    assert abs(sp.N(left - right, 30)) > sp.Float("1e-3")


def test_mod_jump_alone_is_a_jump():
    p = sp.Symbol("p", real=True)
    jump = find_discontinuity(sp.Mod(p, 7), [p], {})
    assert jump.kind == "jump" and (jump.left, jump.right) == (7, 0)


def test_removable_point_is_not_a_discontinuity_but_a_pole_still_is():
    p = sp.Symbol("p", real=True)
    assert find_discontinuity(sp.sin(p) / p, [p], {}) is None
    assert find_discontinuity(sp.sin(p) / sp.Abs(p), [p], {}).kind == "jump"
    assert find_discontinuity(sp.cos(p) / p, [p], {}).kind == "pole"


def test_undecided_evidence_counts_the_points_it_evaluated():
    # floor(p) + ceiling(-p) = 0 for every real p: the claim is undefined at every point.
    p = sp.Symbol("p", real=True)
    verdict = decide(1 / (sp.floor(p) + sp.ceiling(-p)), sp.Integer(1), Clock(10), positions=[p])
    assert verdict.undecided
    assert "every sampled point" not in verdict.reason
    assert "0 of" in verdict.reason


def test_a_claim_with_thresholds_is_probed_once():
    # The probe across scales is deterministic: a threshold claim is probed before the engine,
    # and the engine's undecided verdict must not run the same probe a second time.
    p = sp.Symbol("p", real=True)
    with mock.patch.object(_claims, "probe_across_scales",
                           wraps=_claims.probe_across_scales) as probe:
        verdict = decide(1 / (sp.floor(p) + sp.ceiling(-p)), sp.Integer(1), Clock(10),
                         positions=[p])
    assert verdict.undecided and probe.call_count == 1
    # without thresholds the probe runs only after the engine leaves the claim undecided
    with mock.patch.object(_claims, "probe_across_scales",
                           wraps=_claims.probe_across_scales) as probe:
        assert decide(sp.sin(p) ** 2 + sp.cos(p) ** 2, sp.Integer(1), Clock(10),
                      positions=[p]).proved
    assert probe.call_count == 0


def test_a_caller_that_reads_only_proved_can_skip_the_probe_after_undecided():
    # Li2(z) + Li2(1 - z) = pi^2/6 - log(z) log(1 - z) at z = exp(-p^2): true, but the engine
    # leaves it undecided; the exponential recognition reads only .proved, so probing it across
    # scales until the budget runs out would only spend the time.
    p = sp.Symbol("p", real=True)
    z = sp.exp(-p ** 2)
    lhs = sp.polylog(2, z) + sp.polylog(2, 1 - z)
    rhs = sp.pi ** 2 / 6 + p ** 2 * sp.log(1 - z)
    with mock.patch.object(_claims, "probe_across_scales",
                           wraps=_claims.probe_across_scales) as probe:
        verdict = decide(lhs, rhs, Clock(3), positions=[p], probe_undecided=False)
    assert verdict.undecided and probe.call_count == 0


def test_budget_is_shared_between_the_assumptions():
    clock = Clock(40)
    clock.share(4)
    assert 9 < clock.left() <= 10
    clock.share(1)
    assert 39 < clock.left() <= 40


def _quaternion_generators():
    """Left multiplication by i + 2j and right multiplication by k on the quaternions: commuting,
    skew-symmetric, 4x4 (the ComRoPE case)."""
    A = quaternion_multiplication([0, 1, 2, 0], "left")
    B = quaternion_multiplication([0, 0, 0, 1], "right")
    assert A * B == B * A and A.T == -A and B.T == -B
    return A, B


def test_commuting_skew_generators_are_proved_within_a_small_budget():
    # exp(p A) exp(3 p B) = exp(p (A + 3B)) since AB = BA. (SymPy's Matrix.exp of p (A + 3B)
    # itself takes minutes to build, so the product form is the one tested.) Decided from
    # R(0) = I and R' = R'(0) R, never by expanding R(s)^T R(t).
    A, B = _quaternion_generators()
    R = lambda p: (p * A).exp() * (3 * p * B).exp()  # noqa: E731
    report = check(Encoding.from_matrices("comrope_product", R, R), budget=20)
    assert report.verdicts() == {"linearity": "proved", "translation_invariance": "proved",
                                 "identity_at_zero": "proved", "continuity": "proved"}
    assert "exp(pA)" in report.assumptions["translation_invariance"].evidence
    # the generator is A + 3B (skew, so a pure rotation); its rotation frequencies are the
    # positive imaginary parts of the eigenvalues of A + 3B
    (block,) = report.generator["axes"][0]["blocks"]
    assert sp.Matrix(sp.sympify(block["matrix"])) == A + 3 * B
    assert report.generator["pure_rotation"]["verdict"] == "proved"
    frequencies = [sp.sympify(r["frequency"]) for r in report.classification["p"]["rotation"]]
    expected = [sp.im(v) for v in (A + 3 * B).eigenvals() if sp.im(v).is_positive]
    assert len(frequencies) == len(expected) == 2
    assert all(any(sp.simplify(f - e) == 0 for e in expected) for f in frequencies)


def test_two_axes_with_commuting_generators_are_proved_and_without_are_refuted():
    # exp(p0 A) exp(p1 B) with AB = BA is exp(p0 A + p1 B): relative in two axes. With left
    # multiplications by i and by j (which anticommute), dF/dp1 = exp(p0 Li) Lj exp(p1 Lj) is
    # not Lj F, so no exponential form is claimed; the score is then refuted by a
    # counterexample (F^T F = I still holds: both factors are rotations).
    A, B = _quaternion_generators()
    both = lambda p: (p[0] * A).exp() * (p[1] * B).exp()  # noqa: E731
    report = check(Encoding.from_matrices("comrope_2d", both, both, position_dims=2), budget=30)
    assert set(report.verdicts().values()) == {"proved"}
    assert "B_j B_k = B_k B_j" in report.assumptions["translation_invariance"].evidence
    assert report.generator["commute"]["verdict"] == "proved"
    Li, Lj = quaternion_multiplication([0, 1, 0, 0]), quaternion_multiplication([0, 0, 1, 0])
    assert Li * Lj == -Lj * Li
    apart = lambda p: (p[0] * Li).exp() * (p[1] * Lj).exp()  # noqa: E731
    report = check(Encoding.from_matrices("anticommuting_2d", apart, apart, position_dims=2),
                   budget=30)
    assert report.assumptions["translation_invariance"].verdict == "refuted"
    _replayed_translation(report, apart, apart, dims=2)
    assert report.assumptions["identity_at_zero"].verdict == "proved"


def test_exponentials_with_generators_that_do_not_cancel_are_refuted():
    # F(p) = e^{pA}, G(p) = e^{2pA}: both are exponentials, but A^T = -2A fails, so the
    # structural path proves nothing and the expansion path finds the counterexample.
    A, _ = _quaternion_generators()
    F = lambda p: (p * A).exp()  # noqa: E731
    G = lambda p: (2 * p * A).exp()  # noqa: E731
    report = check(Encoding.from_matrices("unequal_rates", F, G), budget=30)
    assert report.assumptions["translation_invariance"].verdict == "refuted"
    _replayed_translation(report, F, G)
    identity = report.assumptions["identity_at_zero"]
    assert identity.verdict == "refuted"
    # F(p)^T G(p) = e^{-pA} e^{2pA} = e^{pA} != I: the score of e_i, e_j at (p, p) is not x^T y
    found = identity.counterexample
    p = found.positions["p"].exact
    i, j = found.x, found.y
    score = sp.N((F(p)[:, i].T * G(p)[:, j])[0, 0], 30)
    assert abs(score - int(i == j)) > sp.Float("1e-6")
    assert abs(score - sp.N(found.score.exact, 30)) < sp.Float("1e-20")


def test_an_odd_function_of_abs_p_is_not_rewritten_to_p():
    # R(|p|): sin(|p|) is not even in |p|, so |p| must not become p (that would make it RoPE).
    # The score at s = -1, t = 1 is cos(|1| - |-1|) = 1 on the diagonal, at (0, 2) it is cos 2.
    absolute = lambda p: rotation(sp.Abs(p))  # noqa: E731
    report = check(Encoding.from_matrices("abs_rotation", absolute, absolute), budget=30)
    assert report.assumptions["translation_invariance"].verdict == "refuted"
    _replayed_translation(report, absolute, absolute)
    assert report.assumptions["identity_at_zero"].verdict == "proved"


def _decide_now(lhs, rhs, expand):
    return decide(lhs, rhs, Clock(20), expand)


def test_exponential_form_reads_the_generator_through_the_abs_rewrite():
    # Rodrigues' R(p) with theta = sqrt(14) |p|: every entry is even in |p|, so |p| -> p is
    # exact; then R(0) = I and R' = K R are proved, and the generator is K itself.
    p = sp.Symbol("p", real=True)
    form = exponential_form("F", [sp.ImmutableMatrix(rodrigues(p))], (p,), _decide_now)
    assert form.generators[0][0] == K
    assert not form.blocks[0].has(sp.Abs)
    assert any("even in |p|" in fact for fact in form.facts)


def test_exponential_form_refuses_what_is_not_an_exponential():
    p = sp.Symbol("p", real=True)
    # sin(|p|) is odd in |p|: replacing |p| by p would change the matrix for p < 0
    with pytest.raises(NotExponential, match="even"):
        exponential_form("F", [sp.ImmutableMatrix(rotation(sp.Abs(p)))], (p,), _decide_now)
    # R(p^2): R(0) = I and R'(0) = 0, but R' = 0 R fails (the rate is 2p, not constant)
    with pytest.raises(NotExponential, match="F/dp"):
        exponential_form("F", [sp.ImmutableMatrix(rotation(p ** 2))], (p,), _decide_now)
    # a rotation that starts at a quarter turn: F(0) != I
    with pytest.raises(NotExponential, match="F\\(0\\) = I"):
        exponential_form("F", [sp.ImmutableMatrix(rotation(p + 1))], (p,), _decide_now)


def test_probe_across_scales_reports_the_entry_that_differs():
    # Both lhs entries are cos(p); only the second rhs entry switches past p = 1000. The entry
    # named must be the differing one, not the first entry equal to it by value.
    p = sp.Symbol("p", real=True)
    jump = sp.Piecewise((1, p > 1000), (0, True))
    lhs = sp.ImmutableMatrix([[sp.cos(p), sp.cos(p)]])
    rhs = sp.ImmutableMatrix([[sp.cos(p), sp.cos(p) + jump]])
    verdict = probe_across_scales(lhs, rhs, [p])
    assert verdict.refuted and verdict.entry == (0, 1)
    at = verdict.counterexample
    assert abs(sp.N((rhs - lhs)[0, 1].xreplace(at), 30)) > sp.Float("1e-6")
    # block by block: the second block's (1, 0) entry, the first block being equal throughout
    block = sp.ImmutableMatrix([[sp.cos(p), sp.sin(p)], [sp.sin(p), sp.cos(p)]])
    moved = sp.ImmutableMatrix([[sp.cos(p), sp.sin(p)], [sp.sin(p) + jump, sp.cos(p)]])
    verdict = probe_across_scales(sp.BlockDiagMatrix(block, block),
                                  sp.BlockDiagMatrix(block, moved), [p])
    assert verdict.refuted and verdict.entry == (1, 1, 0)


def test_removable_points_are_named_by_the_users_axis_name():
    # (p^2 + p) / (p (p + 1)) is 1 off p = 0 and p = -1, both removable: the evidence, in the
    # continuity result and in the facts the exponential path checked, says p (the checker's
    # position is a Dummy that prints as _p).
    def F(p):
        w = (p ** 2 + p) / (p * (p + 1))
        return sp.Matrix([[sp.cos(p) * w, -sp.sin(p)], [sp.sin(p), sp.cos(p)]])

    report = check(Encoding.from_matrices("removable", F, F), budget=30)
    assert set(report.verdicts().values()) == {"proved"}
    texts = [a.evidence for a in report.assumptions.values()]
    texts.append(report.generator["exponential"]["evidence"])
    assert "removable singularities at p = -1" in texts[-1]
    assert "removable singularities at p = -1" in report.assumptions["continuity"].evidence
    assert not any("_p" in text for text in texts), texts
