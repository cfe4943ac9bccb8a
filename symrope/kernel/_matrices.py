"""Claims about symbolic (noncommutative) matrices as lemmas over MathComp's matrices.

A step such as ``(R_d(s) q)^T (R_d(t) k) = q^T (R_d(s)^T R_d(t)) k`` is about opaque matrices
of a symbolic size. It is stated for matrices over *every* commutative ring (MathComp's
``'M[R]_(m, n)`` with ``R : comRingType``), which implies the claim over the reals, with each
hypothesis the engine rewrote with (``Eq(a, b)`` in the step's assumptions) as a premise. The
fragment: matrix symbols, transposes, products, sums, identities and zero matrices; a matrix
inverse (which needs invertibility premises) or a scalar factor is not exported.
The proof rewrites with the premises, then with ``trmx_mul``, ``trmxK``, ``mulmxA``,
``mulmx1``, ``mul1mx``, and closes by reflexivity.
"""

from __future__ import annotations

import sympy as sp

from symrope.kernel._translate import Untranslatable, binary_chain, sanitise

__all__ = ["MATRIX_PRELUDE", "matrix_lemma"]

MATRIX_PRELUDE = """\
From mathcomp Require Import ssreflect ssrfun ssrbool eqtype ssrnat seq fintype bigop ssralg matrix.
Set Implicit Arguments. Unset Strict Implicit. Unset Printing Implicit Defensive.
Import GRing.Theory.
Local Open Scope ring_scope.
"""


class _Printer:
    def __init__(self):
        self.names: dict = {}
        self.sizes: dict = {}
        self.taken: set = set()

    def size(self, n) -> str:
        n = sp.sympify(n)
        if n.is_Integer and n >= 0:
            return str(int(n))
        if isinstance(n, sp.Symbol):
            if n not in self.sizes:
                self.sizes[n] = sanitise(n.name, self.taken)
                self.taken.add(self.sizes[n])
            return self.sizes[n]
        raise Untranslatable(f"matrix size {n} is not a natural number or a symbol")

    def print(self, e) -> str:
        if isinstance(e, sp.MatrixSymbol):
            rows, cols = self.size(e.shape[0]), self.size(e.shape[1])
            if e not in self.names:
                self.names[e] = (sanitise(e.name, self.taken), rows, cols)
                self.taken.add(self.names[e][0])
            return self.names[e][0]
        if isinstance(e, sp.Transpose):
            return f"({self.print(e.arg)})^T"
        if isinstance(e, sp.Identity):
            return f"(1%:M : 'M[R]_{self.size(e.shape[0])})"
        if isinstance(e, sp.ZeroMatrix):
            return f"(0 : 'M[R]_({self.size(e.shape[0])}, {self.size(e.shape[1])}))"
        if isinstance(e, (sp.MatMul, sp.MatAdd)):
            if any(not isinstance(a, sp.MatrixExpr) for a in e.args):
                raise Untranslatable("a scalar factor in a symbolic matrix product")
            return binary_chain(" *m " if isinstance(e, sp.MatMul) else " + ",
                                map(self.print, e.args))
        if isinstance(e, sp.Inverse):
            raise Untranslatable("a matrix inverse (needs invertibility premises)")
        raise Untranslatable(f"{type(e).__name__} in a symbolic matrix claim")


def matrix_lemma(name: str, lhs, rhs, assumptions=()) -> str:
    """The MathComp lemma (statement and proof) for a symbolic matrix claim, or Untranslatable.

    Examples
    ========

    >>> import sympy as sp
    >>> A, B = sp.MatrixSymbol('A', 2, 2), sp.MatrixSymbol('B', 2, 2)
    >>> print(matrix_lemma("t", sp.Transpose(sp.MatMul(A, B, evaluate=False)), sp.MatMul(B.T, A.T)))
    Lemma t (R : comRingType) (A B : 'M[R]_(2, 2)) :
      ((A *m B))^T = ((B)^T *m (A)^T).
    Proof. rewrite ?trmx_mul ?trmxK ?mulmxA ?mulmx1 ?mul1mx; by []. Qed.
    <BLANKLINE>
    """
    printer = _Printer()
    premises = []
    for hypothesis in assumptions:
        a, b = (hypothesis.lhs, hypothesis.rhs) if isinstance(hypothesis, sp.Equality) \
            else hypothesis
        premises.append(f"{printer.print(a)} = {printer.print(b)}")
    claim = f"{printer.print(lhs)} = {printer.print(rhs)}"
    groups: dict = {}
    for text, rows, cols in printer.names.values():
        groups.setdefault((rows, cols), []).append(text)
    binders = ["(R : comRingType)"]
    if printer.sizes:
        binders.append(f"({' '.join(printer.sizes.values())} : nat)")
    binders += [f"({' '.join(names)} : 'M[R]_({rows}, {cols}))"
                for (rows, cols), names in groups.items()]
    statement = " -> ".join(premises + [claim])
    labels = [f"symrope_h{i}" for i in range(len(premises))]  # never a matrix name
    intro = f"move=> {' '.join(labels)}. " + "".join(f"try rewrite {h}. " for h in labels) \
        if labels else ""
    return (f"Lemma {name} {' '.join(binders)} :\n  {statement}.\n"
            f"Proof. {intro}rewrite ?trmx_mul ?trmxK ?mulmxA ?mulmx1 ?mul1mx; by []. Qed.\n")
