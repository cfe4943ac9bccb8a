(* symrope: theorem general_solution, its algebra stated whole over MathComp's matrices.

   Over every commutative ring with units K (the reals among them) and for every size n, with
   expm the matrix exponential (four facts of analysis about it are the named hypotheses of the
   section), positions p in K:
   - every pair F, G with F(s)^T G(t) = e^((t-s)X) has G(t) = C e^(tX), F(t) = C^-T e^(-tX^T),
     C = G(0) invertible (theorem group_law gives the invertibility);
   - conversely, for every invertible C and every X, this pair satisfies F(s)^T G(t) = e^((t-s)X)
     and F(0)^T G(0) = I;
   - F = G for every p if and only if C^T C = I and X^T = -X. *)
From mathcomp Require Import ssreflect ssrfun ssrbool eqtype ssrnat seq fintype bigop ssralg matrix.
From Symrope Require Import GroupLaw.
Set Implicit Arguments. Unset Strict Implicit. Unset Printing Implicit Defensive.
Import GRing.Theory.
Local Open Scope ring_scope.

Section GeneralSolution.
  Variables (K : comUnitRingType) (n : nat).
  Variable expm : 'M[K]_n -> 'M[K]_n.
  (* Hall, Lie Groups, Lie Algebras, and Representations (2015), Prop. 2.3: *)
  Hypothesis expm_zero : expm 0 = 1%:M.
  Hypothesis expm_transpose : forall A : 'M[K]_n, (expm A)^T = expm A^T.
  Hypothesis expm_add_commuting : forall A B : 'M[K]_n,
    A *m B = B *m A -> expm (A + B) = expm A *m expm B.
  (* Hall, Prop. 2.4: d/dp e^(pA) at p = 0 is A, so the curve p |-> e^(pA) determines A. *)
  Hypothesis expm_line_injective : forall A B : 'M[K]_n,
    (forall p : K, expm (p *: A) = expm (p *: B)) -> A = B.

  Lemma scaled_commute (a b : K) (X : 'M[K]_n) : (a *: X) *m (b *: X) = (b *: X) *m (a *: X).
  Proof. by rewrite -!scalemxAl -!scalemxAr !scalerA mulrC. Qed.

  Lemma expm_opposite (A : 'M[K]_n) : expm (- A) *m expm A = 1%:M.
  Proof.
    rewrite -expm_add_commuting ?addNr ?expm_zero //.
    by rewrite mulNmx mulmxN.
  Qed.

  Lemma inverse_product (A B : 'M[K]_n) : A \in unitmx -> B \in unitmx ->
    invmx (A *m B) = invmx B *m invmx A.
  Proof.
    move=> UA UB. symmetry. apply: inverse_unique.
    by rewrite mulmxA -[A *m B *m _]mulmxA mulmxV // mulmx1 mulmxV.
  Qed.

  Definition solution_G (C X : 'M[K]_n) (p : K) := C *m expm (p *: X).
  Definition solution_F (C X : 'M[K]_n) (p : K) := (invmx C)^T *m expm (- (p *: X^T)).

  Theorem general_solution_satisfies (C X : 'M[K]_n) : C \in unitmx ->
    forall s t : K, (solution_F C X s)^T *m solution_G C X t = expm ((t - s) *: X).
  Proof.
    move=> UC s t. rewrite /solution_F /solution_G trmx_mul trmxK expm_transpose.
    rewrite linearN /= linearZ /= trmxK.
    rewrite mulmxA -[_ *m invmx C *m C]mulmxA mulVmx // mulmx1.
    rewrite -expm_add_commuting; last by rewrite mulNmx mulmxN scaled_commute.
    by rewrite scalerBl addrC.
  Qed.

  Theorem general_solution_identity (C X : 'M[K]_n) : C \in unitmx ->
    (solution_F C X 0)^T *m solution_G C X 0 = 1%:M.
  Proof. by move=> UC; rewrite general_solution_satisfies // subrr scale0r expm_zero. Qed.

  Theorem general_solution_form (F G : K -> 'M[K]_n) (X : 'M[K]_n) :
    (forall s t : K, (F s)^T *m G t = expm ((t - s) *: X)) ->
    G 0 \in unitmx /\ (forall t, G t = solution_G (G 0) X t)
                   /\ (forall t, F t = solution_F (G 0) X t).
  Proof.
    move=> TI. pose H := fun p : K => expm (p *: X).
    have H0 : H 0 = 1%:M by rewrite /H scale0r expm_zero.
    have UG := group_law_invertible TI H0.
    have EG t : G t = solution_G (G 0) X t.
      have R := group_law_relative TI H0 0 t. rewrite /H subr0 in R.
      by rewrite /solution_G R mulmxA mulmxV ?mul1mx.
    split; first exact: UG. split; first exact: EG.
    move=> t. rewrite -[F t]trmxK (group_law_inverse TI H0) EG /solution_G /solution_F.
    rewrite inverse_product ?UG //; last first.
      by case: (mulmx1_unit (expm_opposite (t *: X))).
    have -> : invmx (expm (t *: X)) = expm (- (t *: X)).
      by symmetry; apply: inverse_unique; rewrite -expm_add_commuting ?subrr ?expm_zero //
        mulmxN mulNmx.
    by rewrite trmx_mul expm_transpose linearN /= linearZ.
  Qed.

  Theorem general_solution_rotations (C X : 'M[K]_n) : C \in unitmx ->
    (forall p : K, solution_F C X p = solution_G C X p) <-> (C^T *m C = 1%:M /\ X^T = - X).
  Proof.
    move=> UC. split.
    - move=> FG. have F0 := FG 0. rewrite /solution_F /solution_G !scale0r oppr0 expm_zero
        !mulmx1 in F0.
      split; first by rewrite -{2}F0 -trmx_mul mulVmx // trmx1.
      apply: oppr_inj; rewrite opprK.
      apply: expm_line_injective => p. rewrite scalerN.
      have := FG p; rewrite /solution_F /solution_G F0 => E.
      by rewrite -[LHS]mul1mx -(mulVmx UC) -mulmxA E mulmxA mulVmx // mul1mx.
    - case=> CC XX p. rewrite /solution_F /solution_G XX scalerN opprK.
      congr (_ *m _). have CCt := mulmx1C CC.
      by rewrite -(inverse_unique CCt) trmxK.
  Qed.
End GeneralSolution.
