"""The preamble of every file of scalar step lemmas (Coq's ``Reals``): the ideal generators
the certificates of :mod:`symrope.kernel._certificate` use, each proved from Coq's standard
library, and the tactics their scripts call. Nothing here is assumed: every lemma ends in
``Qed``."""

__all__ = ["PRELUDE"]

PRELUDE = """\
Require Import Reals Lra.
Open Scope R_scope.

(* The two ideal generators of every certificate below, proved from Coq's standard library. *)
Lemma symrope_sc : forall x : R, sin x ^ 2 + cos x ^ 2 - 1 = 0.
Proof. intro x. rewrite <- (sin2_cos2 x). unfold Rsqr. ring. Qed.

Lemma symrope_ee : forall x : R, exp x * exp (- x) - 1 = 0.
Proof. intro x. rewrite <- exp_plus, Rplus_opp_r, exp_0. ring. Qed.

Lemma symrope_inv_exp : forall x : R, / exp x = exp (- x).
Proof.
  intro x. apply (Rmult_eq_reg_l (exp x)).
  - rewrite Rinv_r by (apply Rgt_not_eq, exp_pos). rewrite <- exp_plus, Rplus_opp_r, exp_0.
    reflexivity.
  - apply Rgt_not_eq, exp_pos.
Qed.

Lemma symrope_inv_exp_pow : forall (x : R) (n : nat), / (exp x ^ n) = exp (- x) ^ n.
Proof. intros x n. rewrite <- pow_inv. now rewrite symrope_inv_exp. Qed.

(* (-1)^k for an integer k, written cos(PI k): equal for every integer, both signs. *)
Definition symrope_sign (x : R) : R := cos (PI * x).

Lemma symrope_sign_plus : forall x y : R, (exists z : Z, x = IZR z) ->
  symrope_sign (x + y) = symrope_sign x * symrope_sign y.
Proof.
  intros x y [z ->]. unfold symrope_sign. rewrite Rmult_plus_distr_l, cos_plus.
  rewrite (sin_eq_0_1 (PI * IZR z)) by (exists z; ring). ring.
Qed.

Lemma symrope_sign_neg : forall x : R, symrope_sign (- x) = symrope_sign x.
Proof. intro x. unfold symrope_sign. rewrite <- cos_neg. f_equal. ring. Qed.

Lemma symrope_sign_one : symrope_sign 1 = -1.
Proof. unfold symrope_sign. rewrite Rmult_1_r, cos_PI. reflexivity. Qed.

Lemma symrope_sign_sq : forall x : R, (exists z : Z, x = IZR z) -> symrope_sign x ^ 2 - 1 = 0.
Proof.
  intros x [z ->]. unfold symrope_sign.
  assert (S : sin (PI * IZR z) = 0) by (apply sin_eq_0_1; exists z; ring).
  pose proof (sin2_cos2 (PI * IZR z)) as P. unfold Rsqr in P. rewrite S in P.
  replace (cos (PI * IZR z) ^ 2) with (cos (PI * IZR z) * cos (PI * IZR z)) by ring. lra.
Qed.

(* x is an integer: an integer symbol (its hypothesis), a constant, or a negation of one. *)
Ltac symrope_int :=
  match goal with
  | |- exists z : Z, IZR ?n = IZR z => exists n; reflexivity
  | |- exists z : Z, - IZR ?n = IZR z => exists (- n)%Z; rewrite opp_IZR; reflexivity
  | H : exists z : Z, ?x = IZR z |- exists z : Z, ?x = IZR z => exact H
  | H : exists z : Z, ?x = IZR z |- exists z : Z, - ?x = IZR z =>
      let w := fresh in let E := fresh in
      destruct H as [w E]; exists (- w)%Z; rewrite E, opp_IZR; reflexivity
  end.

Ltac symrope_expand :=
  repeat (rewrite cos_plus || rewrite sin_plus || rewrite cos_neg || rewrite sin_neg
          || rewrite exp_plus).
"""
