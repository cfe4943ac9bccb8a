"""A theorem's checked steps as one Coq file: a lemma per exported scalar claim.

Each checked step becomes lemmas this way:

* a scalar claim: one lemma;
* an explicit matrix claim: one lemma per entry;
* a block-diagonal claim (RoPE's ``R_d(s)^T R_d(t) = R_d(t-s)``): the engine's block templates
  (the engine's ``claim_key``: blocks equal up to constants share one) export once, entry by
  entry, with the constants as universally quantified reals carrying their sign facts (one
  lemma for a symbolic frequency covers every block, so every ``d``); a template with no
  certificate falls back to its concrete blocks.

Steps that are not exported say why: a step expected to be *refuted* (its evidence is a
counterexample, not an identity), a step whose premises no witness satisfies (a vacuous
implication), a claim with no exact Coq translation or no certificate.

A step is *trivial* when its two sides were already the same when the theorem was built (a
value SymPy computed, compared with itself) or when every lemma it exported states ``X = X``:
Coq re-checks a reflexivity, which is counted apart and never as coverage. The theorem itself,
stated whole in Coq, is :mod:`symrope.kernel._whole`; :attr:`TheoremExport.whole` carries it.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass, field

import sympy as sp

from symrope.engine import (CHECKED, PROVED, Theorem, block_claims, check_premises, claim_key,
                            evaluate_block, with_symbolic_constants)
from symrope.kernel._certificate import PRELUDE, NoCertificate, ScalarLemma, scalar_lemma
from symrope.kernel._matrices import (MATRIX_PRELUDE, MATRIX_SECTION, MATRIX_SECTION_END,
                                      MatrixLemma, matrix_lemma)
from symrope.kernel._translate import Untranslatable, sanitise
from symrope.kernel._whole import WholeResult, describe, standalone_text, whole_theorem

__all__ = ["StepExport", "TheoremExport", "export_theorem"]


@dataclass
class StepExport:
    """What became of one checked step: its lemmas, or the reason it was not exported."""

    index: int          # position among the theorem's steps
    claim: str
    lemmas: list[ScalarLemma] = field(default_factory=list)
    matrix_lemmas: list[MatrixLemma] = field(default_factory=list)  # MathComp (own file)
    reason: str | None = None
    trivial: bool = False  # both sides were the same SymPy object when the theorem was built
    templates: int = 0     # block templates exported for symbolic constants
    kernel: str | None = None  # "checked" / "rejected" once coqc ran
    detail: str | None = None
    expects_refuted: bool = False  # evidence is a counterexample, not an identity
    premises: str | None = None    # the witness of the premises, or why none was found

    @property
    def exported(self) -> bool:
        return self.reason is None

    def to_dict(self) -> dict:
        out = {"step": self.index, "claim": self.claim, "exported": self.exported,
               "lemmas": len(self.lemmas) + len(self.matrix_lemmas)}
        if self.matrix_lemmas:
            out["library"] = "mathcomp"
        if self.reason:
            out["reason"] = self.reason
        if self.trivial:
            out["trivial"] = True
        if self.premises:
            out["premises"] = self.premises
        conditions = sorted({c for lemma in self.lemmas for c in lemma.conditions})
        if conditions:
            out["conditions"] = conditions  # premises the lemmas add: denominators nonzero
        if self.templates:
            out["templates"] = self.templates
        if self.kernel:
            out["kernel"] = self.kernel
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass
class TheoremExport:
    name: str
    module: str  # the Coq file's base name (a sanitised identifier)
    steps: list[StepExport]
    whole: WholeResult | None = None  # the theorem stated whole in Coq, where it is

    def theorem_text(self) -> str | None:
        """The standalone ``NAME_theorem.v`` stating the whole theorem, or None."""
        whole = whole_theorem(self.name) if self.whole is not None else None
        return None if whole is None else standalone_text(whole)

    @property
    def theorem_status(self) -> str:
        """``checked``, ``rejected``, ``not checked`` (coqc not run) or ``not stated``."""
        return "not stated" if self.whole is None else self.whole.status

    @property
    def identity_steps(self) -> list[StepExport]:
        """The steps that claim an identity (not those expected to be refuted)."""
        return [s for s in self.steps if not s.expects_refuted]

    @property
    def trivial(self) -> int:
        return sum(1 for s in self.identity_steps if s.trivial)

    @property
    def nontrivial(self) -> int:
        return sum(1 for s in self.identity_steps if not s.trivial)

    @property
    def nontrivial_checked(self) -> int:
        return sum(1 for s in self.identity_steps if not s.trivial and s.kernel == "checked")

    def text(self, *, only: Container[int] | None = None) -> str:
        """The standalone ``.v`` file; ``only`` (a set of step indices) limits the lemmas."""
        return "\n".join([f"(* symrope: kernel-checkable steps of theorem {_comment(self.name)}. *)",
                          "(* Generated by symrope export coq; every lemma is proved, nothing "
                          "assumed. *)", "", PRELUDE, self.body(only=only)])

    def body(self, *, only: Container[int] | None = None, matrices: bool = False) -> str:
        """The lemmas without the preamble (the kernel check puts many theorems in one file);
        ``matrices=True``: the MathComp lemmas of symbolic matrix steps instead."""
        parts = []
        for step in self.steps:
            if not step.exported or (only is not None and step.index not in only):
                continue
            texts = [lemma.text() for lemma in (step.matrix_lemmas if matrices else step.lemmas)]
            if texts:
                parts.append(f"(* step {step.index}: {_comment(step.claim)} *)")
                parts.extend(texts)
        return "\n".join(parts) + "\n"

    def matrix_text(self) -> str | None:
        """The companion ``NAME_matrices.v`` (MathComp) for symbolic matrix steps, or None."""
        if not any(s.exported and s.matrix_lemmas for s in self.steps):
            return None
        return "\n".join([f"(* symrope: symbolic matrix steps of theorem {_comment(self.name)}, "
                          "over every commutative ring with units (MathComp). *)", "",
                          MATRIX_PRELUDE, MATRIX_SECTION, self.body(matrices=True),
                          MATRIX_SECTION_END])

    @property
    def checked(self) -> int:
        return sum(1 for s in self.steps if s.kernel == "checked")

    @property
    def exported(self) -> int:
        return sum(1 for s in self.steps if s.exported)


def _comment(text: str) -> str:
    """User text made safe inside a Coq comment (no ``(*``, ``*)`` or string quotes)."""
    return re.sub(r"[^A-Za-z0-9 _.,:;=+\-/^<>\[\]{}!?']", " ", str(text))[:160]


def export_theorem(theorem: Theorem, *, force: bool = False) -> TheoremExport:
    """Translate every checked step of ``theorem`` (a :class:`symrope.engine.Theorem`).

    ``force=True`` writes a proof attempt even for a claim SymPy has no certificate for (false
    claims included), so that tests can show Coq rejects it.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine import Theorem
    >>> a, b = sp.symbols('a b', real=True)
    >>> thm = Theorem("addition", "cos(a + b)")
    >>> thm.check(sp.cos(a + b), sp.cos(a)*sp.cos(b) - sp.sin(a)*sp.sin(b), "angle addition")
    >>> export = export_theorem(thm)
    >>> [(s.exported, len(s.lemmas)) for s in export.steps]
    [(True, 1)]
    """
    module = sanitise(theorem.name)
    steps = []
    for index, step in enumerate(theorem.steps):
        if step.kind != CHECKED:
            continue
        record = StepExport(index, step.claim)
        steps.append(record)
        if step.expect != PROVED:
            record.expects_refuted = True
            record.reason = ("expects refuted: its evidence is an exact counterexample checked at "
                             "two precisions, not an identity a kernel can prove")
            continue
        record.trivial = _same_sides(step)
        if step.assumptions:
            premises = check_premises(step.assumptions, step.lhs, step.rhs)
            record.premises = premises.text()
            if not premises.satisfiable:  # a vacuous implication: a kernel would accept it
                record.reason = premises.text()
                continue
        try:
            _export_step(record, step, f"{module}_s{index}", force)
        except (Untranslatable, NoCertificate) as error:
            record.lemmas, record.matrix_lemmas, record.reason = [], [], str(error)
            continue
        lemmas = record.lemmas + record.matrix_lemmas
        record.trivial = record.trivial or (bool(lemmas) and all(lemma.trivial for lemma in lemmas))
    # built by the library's own builder (not a theorem of the same name from elsewhere): only
    # then is its whole-theorem Coq file about it
    whole = whole_theorem(theorem.name) if theorem.built_in else None
    return TheoremExport(theorem.name, module, steps, describe(whole) if whole else None)


def _same_sides(step) -> bool:
    """Both sides the same SymPy object as built (a value computed while building, compared
    with itself) and nothing assumed."""
    if step.assumptions:
        return False
    try:
        return _side(step.lhs) == _side(step.rhs)
    except (TypeError, ValueError, sp.SympifyError):
        return False


def _side(value):
    if isinstance(value, (list, tuple)):
        return sp.ImmutableMatrix(value)
    if isinstance(value, sp.MatrixBase):
        return sp.ImmutableMatrix(value)
    return sp.sympify(value)


def _has_matrix_symbols(side) -> bool:
    return isinstance(side, sp.MatrixExpr) and any(
        isinstance(a, (sp.MatrixSymbol, sp.Identity, sp.ZeroMatrix))
        for a in sp.preorder_traversal(side))


def _export_step(record: StepExport, step, prefix: str, force: bool) -> None:
    lhs, rhs = _side(step.lhs), _side(step.rhs)
    if _has_matrix_symbols(lhs) or _has_matrix_symbols(rhs) or step.assumptions:
        try:
            record.matrix_lemmas.append(matrix_lemma(prefix, lhs, rhs, step.assumptions))
        except Untranslatable as error:
            raise Untranslatable(f"symbolic matrices: {error}") from None
        return
    if isinstance(lhs, sp.MatrixExpr) and not isinstance(lhs, sp.MatrixBase):
        claims = block_claims(lhs, rhs)
        if claims is not None:
            _export_blocks(record, claims, prefix, force)
            return
    if any(isinstance(side, sp.MatrixExpr) and not isinstance(side, sp.MatrixBase)
           for side in (lhs, rhs)):
        lhs, rhs = _written_out(lhs), _written_out(rhs)
    if isinstance(lhs, sp.MatrixBase):
        if getattr(rhs, "shape", None) != lhs.shape:
            raise Untranslatable("the two sides have different shapes")
        for i in range(lhs.rows):
            for j in range(lhs.cols):
                record.lemmas.append(scalar_lemma(f"{prefix}_e{i}_{j}", lhs[i, j], rhs[i, j],
                                                  force=force))
        return
    record.lemmas.append(scalar_lemma(prefix, lhs, rhs, force=force))


_WRITTEN_POWER = 8  # larger powers of explicit matrices are left to SymPy's evaluation


def _unevaluated_product(left, right) -> sp.ImmutableMatrix:
    return sp.ImmutableMatrix(left.rows, right.cols, lambda i, j: sp.Add(*[
        sp.Mul(left[i, k], right[k, j], evaluate=False) for k in range(left.cols)],
        evaluate=False))


def _written_out(side) -> sp.ImmutableMatrix:
    """An explicit matrix expression entry by entry, with products and sums of explicit
    matrices written out *unevaluated*: Coq then checks the multiplication (``J J = -I`` is
    ``0 * 0 + (-1) * 1 = -1``), which SymPy's ``as_explicit`` would have done already."""
    if isinstance(side, sp.MatrixBase):
        return sp.ImmutableMatrix(side)
    if isinstance(side, sp.MatMul):
        scalars = [a for a in side.args if not isinstance(a, sp.MatrixExpr)]
        factors = [_written_out(a) for a in side.args if isinstance(a, sp.MatrixExpr)]
        product = factors[0]
        for factor in factors[1:]:
            product = _unevaluated_product(product, factor)
        if scalars:
            scale = sp.Mul(*scalars)
            product = product.applyfunc(lambda e: sp.Mul(scale, e, evaluate=False))
        return product
    if isinstance(side, sp.MatAdd):
        terms = [_written_out(a) for a in side.args]
        return sp.ImmutableMatrix(terms[0].rows, terms[0].cols, lambda i, j: sp.Add(
            *[t[i, j] for t in terms], evaluate=False))
    if isinstance(side, sp.Transpose):
        return _written_out(side.arg).T
    if isinstance(side, sp.MatPow) and side.exp.is_Integer and 0 < side.exp <= _WRITTEN_POWER:
        return _written_out(sp.MatMul(*[side.base] * int(side.exp), evaluate=False))
    return sp.ImmutableMatrix(side.as_explicit())


def _export_blocks(record: StepExport, claims, prefix: str, force: bool) -> None:
    memo, facts, groups = {}, {}, {}
    for claim in claims:
        groups.setdefault(claim_key(claim, memo, facts), []).append(claim)
    for number, members in enumerate(groups.values()):
        template = with_symbolic_constants(members[0], memo)
        try:
            record.lemmas += _entry_lemmas(evaluate_block(template.lhs), evaluate_block(template.rhs),
                                           f"{prefix}_t{number}", force=False)
            record.templates += 1
            continue
        except (Untranslatable, NoCertificate):
            pass  # constants abstracted too far (e.g. c and -c as two slots): go block by block
        for claim in members:
            record.lemmas += _entry_lemmas(evaluate_block(claim.lhs), evaluate_block(claim.rhs),
                                           f"{prefix}_b{claim.index}", force=force)


def _entry_lemmas(lhs, rhs, prefix: str, force: bool) -> list[ScalarLemma]:
    return [scalar_lemma(f"{prefix}_e{i}_{j}", lhs[i, j], rhs[i, j], force=force)
            for i in range(lhs.rows) for j in range(lhs.cols)]
