(* symrope: theorem nd_commuting_generators_relative, its algebra stated whole over MathComp's
   matrices.

   Over every commutative ring with units K (the reals among them), for every size n and skew
   generators X1, X2 (X_k^T = -X_k), with A(r) = r1 X1 + r2 X2 and G(r) = e^(A(r)) (F = G):
   A(s)^T = -A(s); [A(s), A(t)] = (s1 t2 - s2 t1) [X1, X2]; if X1 X2 = X2 X1 then
   G(s)^T G(t) = G(t - s) for all s, t in K^2; and conversely, a score G(s)^T G(t) = G(t - s)
   for all s, t forces X1 X2 = X2 X1. Three facts about the matrix exponential are the named
   hypotheses. *)
From mathcomp Require Import ssreflect ssrfun ssrbool eqtype ssrnat seq fintype bigop ssralg matrix.
Set Implicit Arguments. Unset Strict Implicit. Unset Printing Implicit Defensive.
Import GRing.Theory.
Local Open Scope ring_scope.

(* the step the engine checks: (U + V)(W + Z) = UW + UZ + VW + VZ, over every ring *)
Lemma distribute (K : ringType) (n : nat) (U V W Z : 'M[K]_n) :
  (U + V) *m (W + Z) = U *m W + U *m Z + V *m W + V *m Z.
Proof. by rewrite mulmxDl !mulmxDr !addrA. Qed.

Section Commuting.
  Variables (K : comUnitRingType) (n : nat).

  (* Coq's ring tactic on K (for the scalar identities below) *)
  Lemma K_ring : @ring_theory (GRing.Ring.sort (GRing.ComUnitRing.ringType K))
    0 1 +%R *%R (fun x y => x - y) -%R eq.
  Proof.
    constructor => //; [exact: add0r | exact: addrC | exact: addrA | exact: mul1r
                       | exact: mulrC | exact: mulrA | exact: mulrDl | exact: subrr].
  Qed.
  Add Ring K_ring : K_ring.
  Lemma K_ring_z : @ring_theory
    (GRing.Zmodule.sort (GRing.Ring.zmodType (GRing.ComUnitRing.ringType K)))
    0 1 +%R *%R (fun x y => x - y) -%R eq.
  Proof. exact: K_ring. Qed.
  Add Ring K_ring_z : K_ring_z.

  Variable expm : 'M[K]_n -> 'M[K]_n.
  (* Hall, Lie Groups, Lie Algebras, and Representations (2015), Prop. 2.3 *)
  Hypothesis expm_transpose : forall A : 'M[K]_n, (expm A)^T = expm A^T.
  Hypothesis expm_add_commuting : forall A B : 'M[K]_n,
    A *m B = B *m A -> expm (A + B) = expm A *m expm B.
  (* The second-order terms of the series: the coefficient of sigma tau is A B on the left and
     (A B + B A)/2 on the right, so equality for all sigma, tau forces A B = B A. *)
  Hypothesis expm_product_commutes : forall A B : 'M[K]_n,
    (forall sigma tau : K, expm (sigma *: A) *m expm (tau *: B) = expm (sigma *: A + tau *: B)) ->
    A *m B = B *m A.

  Variables X1 X2 : 'M[K]_n.
  Hypothesis X1_skew : X1^T = - X1.
  Hypothesis X2_skew : X2^T = - X2.

  Definition A (r1 r2 : K) : 'M[K]_n := r1 *: X1 + r2 *: X2.
  Definition G (r1 r2 : K) : 'M[K]_n := expm (A r1 r2).

  Theorem nd_A_skew (r1 r2 : K) : (A r1 r2)^T = - A r1 r2.
  Proof. by rewrite /A linearD /= !linearZ /= X1_skew X2_skew !scalerN opprD. Qed.

  (* Entry by entry, with ring: each product of the generators is an atom. *)
  Ltac entries :=
    apply/matrixP => i j; rewrite !mxE;
    try rewrite -[GRing.ComRing.ringType (GRing.ComUnitRing.comRingType K)]
                  /(GRing.ComUnitRing.ringType K);
    try rewrite -[GRing.ComUnitRing.zmodType K]/(GRing.Ring.zmodType (GRing.ComUnitRing.ringType K));
    match goal with |- @eq _ ?a ?b => let T := type of a in change (@eq T a b) end; ring.

  Theorem nd_commutator (s1 s2 t1 t2 : K) :
    A s1 s2 *m A t1 t2 - A t1 t2 *m A s1 s2 = (s1 * t2 - s2 * t1) *: (X1 *m X2 - X2 *m X1).
  Proof. rewrite /A !mulmxDl !mulmxDr -!scalemxAl -!scalemxAr !scalerA. entries. Qed.

  Theorem nd_linear (s1 s2 t1 t2 : K) : A t1 t2 - A s1 s2 = A (t1 - s1) (t2 - s2).
  Proof. rewrite /A. entries. Qed.

  Theorem nd_commuting_relative : X1 *m X2 = X2 *m X1 ->
    forall s1 s2 t1 t2 : K, (G s1 s2)^T *m G t1 t2 = G (t1 - s1) (t2 - s2).
  Proof.
    move=> C s1 s2 t1 t2. rewrite /G expm_transpose nd_A_skew -expm_add_commuting.
    - by rewrite addrC nd_linear.
    - apply/eqP. rewrite mulNmx mulmxN -subr_eq0 opprK addrC.
      have -> : A t1 t2 *m A s1 s2 + - (A s1 s2 *m A t1 t2)
                = - (A s1 s2 *m A t1 t2 - A t1 t2 *m A s1 s2) by rewrite opprB addrC.
      by rewrite nd_commutator C subrr scaler0 oppr0.
  Qed.

  Theorem nd_relative_forces_commuting :
    (forall s1 s2 t1 t2 : K, (G s1 s2)^T *m G t1 t2 = G (t1 - s1) (t2 - s2)) ->
    X1 *m X2 = X2 *m X1.
  Proof.
    move=> Rel. have AB : (- X1) *m X2 = X2 *m (- X1).
    { apply: expm_product_commutes => sigma tau.
      have := Rel sigma 0 0 tau. rewrite /G expm_transpose nd_A_skew /A.
      rewrite !scale0r addr0 add0r sub0r subr0 scaleNr => E.
      by rewrite !scalerN. }
    by move: AB; rewrite mulNmx mulmxN => /oppr_inj.
  Qed.
End Commuting.
