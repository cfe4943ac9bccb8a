"""Claims about symbolic (noncommutative) matrices as lemmas over MathComp's matrices.

A step such as ``(R_d(s) q)^T (R_d(t) k) = q^T (R_d(s)^T R_d(t)) k`` is about opaque matrices
of a symbolic size. It is stated for matrices over *every* commutative ring with units
(MathComp's ``'M[R]_(m, n)`` with ``R : comUnitRingType``; the reals are one), which implies
the claim over the reals, with

* each hypothesis the engine rewrote with (``Eq(a, b)`` in the step's assumptions) as a
  premise;
* ``A \\in unitmx`` for every matrix symbol under an inverse (SymPy's ``A.I`` presupposes it: a
  product of square matrices is invertible exactly when its factors are); an inverse of a sum
  is not exported;
* scalar factors (``s1 *: X1``) ranging over the same ring; integers written as sums of ``1``
  (so Coq's ``ring`` sees them), non-integer rationals not exported.

The proof rewrites with the premises, pushes inverses and transposes inward, distributes
products over sums, moves scalars out and cancels ``A A^-1`` (side conditions from the unit
premises), then compares the two sides entry by entry with Coq's ``ring`` over ``R``
(``symrope_mx`` in :data:`MATRIX_PRELUDE`): each product of matrix symbols is an atom there.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.printing.printer import Printer

from symrope.kernel._translate import Untranslatable, binary_chain, sanitise

__all__ = ["MATRIX_PRELUDE", "MATRIX_SECTION", "MatrixLemma", "matrix_lemma", "MathCompPrinter"]

MATRIX_PRELUDE = """\
From mathcomp Require Import ssreflect ssrfun ssrbool eqtype ssrnat seq fintype bigop ssralg matrix.
Require Import Ring.
Set Implicit Arguments. Unset Strict Implicit. Unset Printing Implicit Defensive.
Import GRing.Theory.
Local Open Scope ring_scope.

(* Coq's ring tactic on the entries of matrices over a commutative ring with units. *)
Lemma symrope_ring_theory (R : comUnitRingType) :
  @ring_theory (GRing.Zmodule.sort (GRing.Ring.zmodType (GRing.ComUnitRing.ringType R)))
    0 1 +%R *%R (fun x y => x - y) -%R eq.
Proof.
  constructor => //; [exact: add0r | exact: addrC | exact: addrA | exact: mul1r
                     | exact: mulrC | exact: mulrA | exact: mulrDl | exact: subrr].
Qed.

Lemma symrope_invmxM (R : comUnitRingType) (n : nat) (A B : 'M[R]_n) :
  A \\in unitmx -> B \\in unitmx -> invmx (A *m B) = invmx B *m invmx A.
Proof.
  move=> UA UB. have UAB : A *m B \\in unitmx by rewrite unitmx_mul UA UB.
  have E : (A *m B) *m (invmx B *m invmx A) = 1%:M
    by rewrite -mulmxA (mulmxA B) mulmxV // mul1mx mulmxV.
  by rewrite -[invmx B *m invmx A]mul1mx -(mulVmx UAB) -mulmxA E mulmx1.
Qed.

(* A side condition "M is invertible", from the unit premises. *)
Ltac symrope_unit :=
  rewrite ?unitmx_tr ?unitmx_inv ?unitmx_mul ?unitmx1; repeat (apply/andP; split); by [].

"""

# Opened inside every theorem's Module: the ring tactic needs the ring as a section variable.
MATRIX_SECTION = """\
Section SymropeMatrixSteps.
Variable R : comUnitRingType.
(* ring finds its structure by the type of the left side: R's elements are reached as
   ring or as group elements, so both spellings are declared *)
Add Ring symrope_ring : (symrope_ring_theory R).
Lemma symrope_ring_theory_r : @ring_theory (GRing.Ring.sort (GRing.ComUnitRing.ringType R))
  0 1 +%R *%R (fun x y => x - y) -%R eq.
Proof. exact: symrope_ring_theory. Qed.
Add Ring symrope_ring_r : symrope_ring_theory_r.
(* The two sides, entry by entry, with ring: each product of matrix symbols is an atom. *)
Ltac symrope_entries :=
  apply/matrixP => symrope_i symrope_j; rewrite ?mxE;
  (* one spelling of R's operations (the lemmas used above reach them by different paths) *)
  try rewrite -[GRing.ComRing.ringType (GRing.ComUnitRing.comRingType R)]
                /(GRing.ComUnitRing.ringType R);
  try rewrite -[GRing.UnitRing.ringType (GRing.ComUnitRing.unitRingType R)]
                /(GRing.ComUnitRing.ringType R);
  try rewrite -[GRing.ComUnitRing.zmodType R]/(GRing.Ring.zmodType (GRing.ComUnitRing.ringType R));
  match goal with |- @eq _ ?a ?b => let T := type of a in change (@eq T a b) end; ring.
(* Rewrite with the unit premises and the matrix laws until the two sides are the same term,
   or compare them entry by entry. *)
Ltac symrope_mx :=
  do 3! (rewrite ?symrope_invmxM ?invmxK ?trmx_inv ?trmx_mul ?trmxK ?trmx1 ?trmx0
                 ?linearD ?linearN ?linearB ?linearZ /=; try (by symrope_unit));
  rewrite ?mulmxDl ?mulmxDr ?mulmxBl ?mulmxBr ?mulNmx ?mulmxN ?mulmx0 ?mul0mx;
  rewrite -?scalemxAl -?scalemxAr ?scalerA ?scaleNr ?scalerN ?opprK;
  rewrite ?mulmxA;
  do 4! (rewrite ?mulmxK ?mulmxKV ?mulmxV ?mulVmx ?mul1mx ?mulmx1; try (by symrope_unit));
  first [ by [] | symrope_entries ].
"""
MATRIX_SECTION_END = "End SymropeMatrixSteps.\n"

_SMALL_INTEGER = 8  # integers up to this are written 1 + 1 + ... (Coq's ring sees them)


@dataclass
class MatrixLemma:
    """A MathComp lemma for one symbolic matrix claim."""

    name: str
    binders: list[str]
    premises: list[str]
    lhs: str
    rhs: str

    @property
    def trivial(self) -> bool:
        """Both sides print the same and nothing is assumed: Coq re-checks a reflexivity."""
        return self.lhs == self.rhs and not self.premises

    def text(self) -> str:
        statement = " -> ".join(self.premises + [f"{self.lhs} = {self.rhs}"])
        labels = [f"symrope_h{i}" for i in range(len(self.premises))]  # never a matrix name
        intro = ""
        if labels:
            rewrites = "".join(f"try rewrite {h}. " for h in labels
                               if "\\in unitmx" not in self.premises[labels.index(h)])
            intro = f"move=> {' '.join(labels)}. {rewrites}"
        return (f"Lemma {self.name} {' '.join(self.binders)} :\n  {statement}.\n"
                f"Proof. {intro}symrope_mx. Qed.\n")


class MathCompPrinter(Printer):
    """Matrix expressions and their scalar factors as MathComp terms over a ring ``R``.

    Matrix nodes (``MatrixSymbol``, ``Transpose``, ``Inverse``, ``MatMul``, ``MatAdd``,
    ``MatPow``, ``Identity``, ``ZeroMatrix``) and scalar nodes (``Symbol``, ``Integer``,
    ``Add``, ``Mul``, ``Pow``) are different SymPy classes, so one printer serves both; its
    fallback refuses anything else with :class:`Untranslatable`.
    """

    printmethod = "_symrope_mathcomp"
    _default_settings: dict = {}

    def __init__(self) -> None:
        super().__init__()
        self.names: dict = {}     # MatrixSymbol -> (Coq name, rows, cols)
        self.sizes: dict = {}     # size Symbol -> Coq name
        self.scalars: dict = {}   # scalar Symbol -> Coq name
        self.inverted: dict = {}  # MatrixSymbol -> None: the symbols under an inverse
        self.taken: set = set()

    def emptyPrinter(self, e: object) -> str:
        raise Untranslatable(f"{type(e).__name__} in a symbolic matrix claim")

    def _fresh(self, name: str) -> str:
        text = sanitise(name, self.taken)
        self.taken.add(text)
        return text

    def size(self, n) -> str:
        n = sp.sympify(n)
        if n.is_Integer and n >= 0:
            return str(int(n))
        if isinstance(n, sp.Symbol):
            if n not in self.sizes:
                self.sizes[n] = self._fresh(n.name)
            return self.sizes[n]
        raise Untranslatable(f"matrix size {n} is not a natural number or a symbol")

    # -- matrices --
    def _print_MatrixSymbol(self, e) -> str:
        rows, cols = self.size(e.shape[0]), self.size(e.shape[1])
        if e not in self.names:
            self.names[e] = (self._fresh(e.name), rows, cols)
        return self.names[e][0]

    def _print_Transpose(self, e) -> str:
        return f"({self._print(e.arg)})^T"

    def _print_Inverse(self, e) -> str:
        if any(isinstance(a, sp.MatAdd) for a in sp.preorder_traversal(e.arg)):
            raise Untranslatable("the inverse of a sum of matrices")
        for symbol in e.arg.atoms(sp.MatrixSymbol):
            self.inverted[symbol] = None
        return f"(invmx {self._print(e.arg)})"

    def _print_Identity(self, e) -> str:
        return f"(1%:M : 'M[R]_{self.size(e.shape[0])})"

    def _print_ZeroMatrix(self, e) -> str:
        return f"(0 : 'M[R]_({self.size(e.shape[0])}, {self.size(e.shape[1])}))"

    def _print_MatAdd(self, e) -> str:
        return binary_chain(" + ", map(self._print, e.args))

    def _print_MatMul(self, e) -> str:
        scalars = [a for a in e.args if not isinstance(a, sp.MatrixExpr)]
        matrices = [a for a in e.args if isinstance(a, sp.MatrixExpr)]
        product = binary_chain(" *m ", map(self._print, matrices))
        coefficient = sp.Mul(*scalars)
        if coefficient == 1:
            return product
        if coefficient == -1:
            return f"(- {product})"
        return f"({self._scalar(coefficient)} *: {product})"

    def _print_MatPow(self, e) -> str:
        exponent = e.exp
        if not (exponent.is_Integer and exponent > 0):
            raise Untranslatable(f"matrix power with exponent {exponent}")
        return binary_chain(" *m ", [self._print(e.base)] * int(exponent))

    # -- scalars: elements of the ring R (MathComp's ring_scope), never matrices --
    def _scalar(self, e) -> str:
        return self._print(sp.sympify(e, strict=True))

    def _print_Integer(self, e) -> str:
        n = int(e)
        if abs(n) > _SMALL_INTEGER:
            raise Untranslatable(f"the integer factor {n} in a symbolic matrix claim")
        magnitude = "1" if abs(n) == 1 else "0" if n == 0 else \
            "(" + " + ".join(["1"] * abs(n)) + ")"
        return f"(- {magnitude})" if n < 0 else magnitude

    def _print_Rational(self, e) -> str:
        raise Untranslatable(f"the rational factor {e} in a symbolic matrix claim (a ring need "
                             "not divide)")

    def _print_Symbol(self, e) -> str:
        if e.is_extended_real is not True:
            raise Untranslatable(f"symbol {e} is not declared real")
        if e not in self.scalars:
            self.scalars[e] = self._fresh(e.name)
        return self.scalars[e]

    def _print_Add(self, e) -> str:
        return binary_chain(" + ", map(self._print, e.args))

    def _print_Mul(self, e) -> str:
        return binary_chain(" * ", map(self._print, e.args))

    def _print_Pow(self, e) -> str:
        if e.exp.is_Integer and e.exp >= 0:
            return f"({self._print(e.base)} ^+ {int(e.exp)})"
        raise Untranslatable(f"the power {sp.sstr(e)} in a symbolic matrix claim")


def matrix_lemma(name: str, lhs, rhs, assumptions=()) -> MatrixLemma:
    """The MathComp lemma (statement and proof) for a symbolic matrix claim, or Untranslatable.

    Examples
    ========

    >>> import sympy as sp
    >>> A, B = sp.MatrixSymbol('A', 2, 2), sp.MatrixSymbol('B', 2, 2)
    >>> print(matrix_lemma("t", sp.Transpose(sp.MatMul(A, B, evaluate=False)), sp.MatMul(B.T, A.T)).text())
    Lemma t (A B : 'M[R]_(2, 2)) :
      ((A *m B))^T = ((B)^T *m (A)^T).
    Proof. symrope_mx. Qed.
    <BLANKLINE>
    >>> print(matrix_lemma("u", sp.MatMul(A, A.I), sp.Identity(2)).text())
    Lemma u (A : 'M[R]_(2, 2)) :
      (A \\in unitmx) -> (A *m (invmx A)) = (1%:M : 'M[R]_2).
    Proof. move=> symrope_h0. symrope_mx. Qed.
    <BLANKLINE>
    """
    printer = MathCompPrinter()
    premises = []
    for hypothesis in assumptions:
        a, b = (hypothesis.lhs, hypothesis.rhs) if isinstance(hypothesis, sp.Equality) \
            else hypothesis
        premises.append(f"{printer._print(a)} = {printer._print(b)}")
    lhs_text, rhs_text = printer._print(lhs), printer._print(rhs)
    units = [f"({printer.names[m][0]} \\in unitmx)" for m in sorted(printer.inverted, key=str)]
    groups: dict = {}
    for text, rows, cols in printer.names.values():
        groups.setdefault((rows, cols), []).append(text)
    binders = []
    if printer.sizes:
        binders.append(f"({' '.join(printer.sizes.values())} : nat)")
    if printer.scalars:
        binders.append(f"({' '.join(printer.scalars.values())} : R)")
    binders += [f"({' '.join(names)} : 'M[R]_({rows}, {cols}))"
                for (rows, cols), names in groups.items()]
    return MatrixLemma(name, binders, units + premises, lhs_text, rhs_text)
