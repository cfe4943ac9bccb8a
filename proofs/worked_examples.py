"""Worked examples of user-written proofs: how to state your own theorem and run it with pytest.

Run with ``pytest proofs/worked_examples.py``; each ``@proof`` function is one test item.
"""

import sympy as sp

from symrope.engine import Theorem
from symrope.testing import proof

phi, psi = sp.symbols("phi psi", real=True)
J = sp.Matrix([[0, -1], [1, 0]])


def rotation(angle):
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


@proof
def rotations_compose_by_adding_angles():
    thm = Theorem("rotations_compose", "R(phi) R(psi) = R(phi + psi), and R(phi)^T = R(-phi)",
                  hypotheses=["phi, psi real"])
    thm.define("R(a)", rotation(sp.Symbol("a")), "rotation of the plane by the angle a")
    thm.check(rotation(phi) * rotation(psi), rotation(phi + psi), "angle-addition formulas")
    thm.check(rotation(phi).T, rotation(-phi), "cos is even, sin is odd")
    thm.check(rotation(phi).T * rotation(psi), rotation(psi - phi),
              "the two facts above: relative angle only")
    return thm


@proof(expect="refuted")
def swapped_transpose_is_refuted():
    """A classic slip: R(s) R(t)^T is R(s - t), not R(t - s). The engine finds the counterexample."""
    s, t = sp.symbols("s t", real=True)
    thm = Theorem("swapped_transpose", "R(s) R(t)^T = R(t - s)  (false)")
    thm.check(rotation(s) * rotation(t).T, rotation(t - s), "a tempting but wrong rearrangement")
    return thm


@proof(n=[2, 3, 5])
def generator_powers_cycle(n):
    """J^(4k + n) = J^n: the powers of J cycle with period 4 (checked for several n)."""
    thm = Theorem("j_powers_cycle", f"J^{4 + n} = J^{n}")
    thm.check(J ** (4 + n), J ** n, "J^4 = I")
    return thm
