(* symrope: theorem group_law, stated whole over MathComp's matrices.

   For every commutative ring with units K (the reals among them), every size n, every additive
   group of positions P (the reals among them) and all maps F, G, H : P -> 'M[K]_n with
     F(s)^T G(t) = H(t - s) for all s, t   (translation invariance)   and   H(0) = I,
   G(t) is invertible (derived, not assumed), F(t)^T = G(t)^-1, H(t - s) = G(s)^-1 G(t),
   H(a + b) = H(a) H(b) = H(b) H(a) and H(-a) = H(a)^-1: the H form a commutative
   one-parameter group. No hypothesis beyond the two premises. *)
From mathcomp Require Import ssreflect ssrfun ssrbool eqtype ssrnat seq fintype bigop ssralg matrix.
Set Implicit Arguments. Unset Strict Implicit. Unset Printing Implicit Defensive.
Import GRing.Theory.
Local Open Scope ring_scope.

Section GroupLaw.
  Variables (K : comUnitRingType) (P : zmodType) (n : nat).
  Variables (F G H : P -> 'M[K]_n).
  Hypothesis translation_invariance : forall s t : P, (F s)^T *m G t = H (t - s).
  Hypothesis identity_at_zero : H 0 = 1%:M.

  Lemma at_equal_positions (t : P) : (F t)^T *m G t = 1%:M.
  Proof. by rewrite translation_invariance subrr identity_at_zero. Qed.

  Theorem group_law_invertible (t : P) : G t \in unitmx.
  Proof. by case: (mulmx1_unit (at_equal_positions t)). Qed.

  (* A right inverse is the inverse (square matrices over a commutative ring). *)
  Lemma inverse_unique (A B : 'M[K]_n) : A *m B = 1%:M -> B = invmx A.
  Proof.
    move=> AB. have [UA _] := mulmx1_unit AB.
    by rewrite -[B]mul1mx -(mulVmx UA) -mulmxA AB mulmx1.
  Qed.

  Theorem group_law_inverse (t : P) : (F t)^T = invmx (G t).
  Proof.
    by rewrite -[(F t)^T](mulmxK (group_law_invertible t)) at_equal_positions mul1mx.
  Qed.

  Theorem group_law_relative (s t : P) : H (t - s) = invmx (G s) *m G t.
  Proof. by rewrite -translation_invariance group_law_inverse. Qed.

  Theorem group_law_additive (a b : P) : H (a + b) = H a *m H b.
  Proof.
    have -> : H a = invmx (G 0) *m G a by rewrite -group_law_relative subr0.
    have -> : H b = invmx (G a) *m G (a + b) by rewrite -group_law_relative addrC addKr.
    have -> : H (a + b) = invmx (G 0) *m G (a + b) by rewrite -group_law_relative subr0.
    by rewrite mulmxA mulmxK ?group_law_invertible.
  Qed.

  Theorem group_law_commutative (a b : P) : H b *m H a = H (a + b).
  Proof. by rewrite -group_law_additive addrC. Qed.

  Theorem group_law_opposite (a : P) : H (- a) = invmx (H a).
  Proof. by apply: inverse_unique; rewrite -group_law_additive subrr identity_at_zero. Qed.

  Theorem group_law_inverse_pair (a : P) : H a *m H (- a) = 1%:M.
  Proof. by rewrite -group_law_additive subrr identity_at_zero. Qed.
End GroupLaw.

(* The two premises are satisfiable (constant identity maps), so the theorems are not vacuous. *)
Lemma group_law_premises_satisfiable (K : comUnitRingType) (P : zmodType) (n : nat) :
  exists F G H : P -> 'M[K]_n,
    (forall s t, (F s)^T *m G t = H (t - s)) /\ H 0 = 1%:M.
Proof.
  exists (fun _ => 1%:M), (fun _ => 1%:M), (fun _ => 1%:M).
  by split => // s t; rewrite trmx1 mul1mx.
Qed.
