(* symrope: theorem xpos_damped_rotation, stated whole.

   The damped rotation H(p) = e^(lambda p) R(omega p), with F(p) = e^(-p X^T) for queries and
   G(p) = e^(p X) for keys, X = lambda I + omega J: F(s)^T G(t) = H(t - s), H(0) = I, the causal
   score q^T H(-l) k = e^(-lambda l) q^T R(-omega l) k, H(delta)^T H(delta) = e^(2 lambda delta) I,
   the ablation omega = 0; xPos for every head dimension d = 2m, every frequency function and
   every scale base B: zeta_i = (2i/d + gamma)/(1 + gamma) lies in (0, 1), the query is scaled
   by zeta_i^(p/B) and the key by zeta_i^(-p/B), and F(s)^T G(t) = diag(zeta_i^((s-t)/B)
   R((t-s) omega_i)) depends on t - s only; damping q and k identically does not.
   The matrix exponential of lambda I + omega J is a named hypothesis. *)
Require Import Reals Lra Lia.
From Symrope Require Import Blocks.
Open Scope R_scope.

Definition damped (lambda omega p : R) : mat := mscale (exp (lambda * p)) (rot (omega * p)).
Definition generator (lambda omega : R) : mat := madd (mscale lambda ident) (mscale omega J).

Section Exponential.
  (* the 2x2 matrix exponential *)
  Variable expm2 : mat -> mat.
  (* e^(aI + bJ) = e^a R(b): I and J commute, e^(aI) = e^a I and e^(bJ) = R(b). *)
  Hypothesis expm2_damped_rotation : forall (A : mat) (a b : R),
    meq 2 A (generator a b) -> meq 2 (expm2 A) (mscale (exp a) (rot b)).

  Theorem xpos_G : forall lambda omega p,
    meq 2 (expm2 (mscale p (generator lambda omega))) (damped lambda omega p).
  Proof.
    intros lambda omega p. unfold damped. eapply meq_trans.
    - apply (expm2_damped_rotation _ (p * lambda) (p * omega)).
      apply meq2; unfold generator; mat_entries; ring.
    - rewrite (Rmult_comm lambda p), (Rmult_comm omega p). apply meq_refl.
  Qed.

  Theorem xpos_F : forall lambda omega p,
    meq 2 (expm2 (mscale (- p) (tr (generator lambda omega)))) (damped (- lambda) omega p).
  Proof.
    intros lambda omega p. unfold damped. eapply meq_trans.
    - apply (expm2_damped_rotation _ (- p * lambda) (p * omega)).
      apply meq2; unfold generator; mat_entries; ring.
    - replace (- p * lambda) with (- lambda * p) by ring.
      rewrite (Rmult_comm omega p). apply meq_refl.
  Qed.
End Exponential.

(* The hypothesis is not contradictory: a function satisfying it (it reads a and b off the
   entries), so the two theorems above are not vacuous. *)
Lemma xpos_hypotheses_satisfiable : exists expm2 : mat -> mat,
  forall (A : mat) (a b : R), meq 2 A (generator a b) -> meq 2 (expm2 A) (mscale (exp a) (rot b)).
Proof.
  exists (fun A => mscale (exp (A 0%nat 0%nat)) (rot (A 1%nat 0%nat))).
  intros A a b H. rewrite (H 0%nat 0%nat), (H 1%nat 0%nat) by lia.
  unfold generator. mat_entries. rewrite !Rmult_1_r, !Rmult_0_r, Rplus_0_r, Rplus_0_l.
  apply meq_refl.
Qed.

Theorem xpos_relative : forall lambda omega s t,
  meq 2 (mmul 2 (tr (damped (- lambda) omega s)) (damped lambda omega t))
        (damped lambda omega (t - s)).
Proof.
  intros. unfold damped. eapply meq_trans; [apply scaled_rot_tr_mul|].
  rewrite <- exp_plus. replace (- lambda * s + lambda * t) with (lambda * (t - s)) by ring.
  rewrite (rot_arg (omega * t - omega * s) (omega * (t - s))) by ring. apply meq_refl.
Qed.

Theorem xpos_H0 : forall lambda omega, meq 2 (damped lambda omega 0) ident.
Proof.
  intros. unfold damped. rewrite !Rmult_0_r, exp_0. eapply meq_trans; [|apply rot_0].
  intros i k _ _. unfold mscale. ring.
Qed.

Theorem xpos_causal_decay : forall lambda omega l (q k : vec),
  dot 2 q (mvec 2 (damped lambda omega (- l)) k)
  = exp (- lambda * l) * dot 2 q (mvec 2 (rot (- omega * l)) k).
Proof.
  intros. unfold damped. mat_entries.
  replace (lambda * - l) with (- lambda * l) by ring.
  replace (omega * - l) with (- omega * l) by ring. ring.
Qed.

Theorem xpos_growth : forall lambda omega delta,
  meq 2 (mmul 2 (tr (damped lambda omega delta)) (damped lambda omega delta))
        (mscale (exp (2 * lambda * delta)) ident).
Proof.
  intros. unfold damped. eapply meq_trans; [apply scaled_rot_tr_mul|].
  rewrite <- exp_plus. replace (lambda * delta + lambda * delta) with (2 * lambda * delta) by ring.
  rewrite Rminus_diag_eq by reflexivity. intros i k Hi Hk. unfold mscale. f_equal.
  apply rot_0; assumption.
Qed.

Theorem xpos_pure_decay : forall lambda delta,
  meq 2 (damped lambda 0 delta) (mscale (exp (lambda * delta)) ident).
Proof.
  intros. unfold damped. rewrite Rmult_0_l. intros i k Hi Hk. unfold mscale. f_equal.
  apply rot_0; assumption.
Qed.

(* ---- xPos for every head dimension d = 2m ---- *)

Definition xpos_zeta (m : nat) (gamma : R) (j : nat) : R :=
  (2 * INR j / (2 * INR m) + gamma) / (1 + gamma).

(* diag(zeta_j^(sign p / B) R(p omega_j)): sign = 1 for queries, -1 for keys. *)
Definition xpos_scaled (zeta omega : nat -> R) (B sign p : R) : mat :=
  bdiag (fun j => mscale (Rpower (zeta j) (sign * p / B)) (rot (p * omega j))).

Theorem xpos_zeta_bounds : forall m gamma j, 0 < gamma -> (j < m)%nat ->
  0 < xpos_zeta m gamma j < 1.
Proof.
  intros m gamma j Hg Hj. unfold xpos_zeta.
  assert (Hjm : INR j < INR m) by (apply lt_INR; assumption).
  assert (Hj0 : 0 <= INR j) by apply pos_INR.
  assert (Hm : 0 < INR m) by lra.
  assert (Hq : 0 <= 2 * INR j / (2 * INR m) < 1).
  { split.
    - apply Rmult_le_pos; [lra|]. left. apply Rinv_0_lt_compat. lra.
    - apply (Rmult_lt_reg_r (2 * INR m)); [lra|]. unfold Rdiv.
      rewrite Rmult_assoc, Rinv_l by lra. lra. }
  split.
  - apply Rmult_lt_0_compat; [lra|]. apply Rinv_0_lt_compat. lra.
  - apply (Rmult_lt_reg_r (1 + gamma)); [lra|]. unfold Rdiv.
    rewrite Rmult_assoc, Rinv_l by lra. lra.
Qed.

(* lambda_j = -ln(zeta_j)/B > 0: every pair decays with the causal lag. *)
Theorem xpos_decay_rate_positive : forall m gamma B j, 0 < gamma -> 0 < B -> (j < m)%nat ->
  0 < - ln (xpos_zeta m gamma j) / B.
Proof.
  intros m gamma B j Hg HB Hj. destruct (xpos_zeta_bounds m gamma j Hg Hj) as [H0 H1].
  assert (ln (xpos_zeta m gamma j) < 0) by (rewrite <- ln_1; apply ln_increasing; assumption).
  unfold Rdiv. apply Rmult_lt_0_compat; [lra|]. apply Rinv_0_lt_compat. assumption.
Qed.

Theorem xpos_relative_blocks : forall (m : nat) (zeta omega : nat -> R) (B s t : R),
  meq (2 * m) (mmul (2 * m) (tr (xpos_scaled zeta omega B 1 s)) (xpos_scaled zeta omega B (-1) t))
              (xpos_scaled zeta omega B (-1) (t - s)).
Proof.
  intros. unfold xpos_scaled. eapply meq_trans; [apply bdiag_tr_mul|].
  apply bdiag_meq. intros j _. eapply meq_trans; [apply scaled_rot_tr_mul|].
  rewrite <- Rpower_plus.
  replace (1 * s / B + -1 * t / B) with (-1 * (t - s) / B) by (unfold Rdiv; ring).
  rewrite (rot_arg (t * omega j - s * omega j) ((t - s) * omega j)) by ring. apply meq_refl.
Qed.

Theorem xpos_relative_score : forall (m : nat) (zeta omega : nat -> R) (B s t : R) (q k : vec),
  dot (2 * m) (mvec (2 * m) (xpos_scaled zeta omega B 1 s) q)
              (mvec (2 * m) (xpos_scaled zeta omega B (-1) t) k)
  = dot (2 * m) q (mvec (2 * m) (xpos_scaled zeta omega B (-1) (t - s)) k).
Proof. intros. apply score_form. apply xpos_relative_blocks. Qed.

(* Identical damping of q and k (zeta^p R(omega p) on both sides) is not translation
   invariant: shifting both positions by u = 1 changes the score at s = t = 0. *)
Definition identical (zeta omega p : R) : mat := mscale (Rpower zeta p) (rot (omega * p)).

Theorem xpos_identical_damping_not_relative : forall zeta omega, 0 < zeta -> zeta <> 1 ->
  exists s t u, ~ meq 2 (mmul 2 (tr (identical zeta omega s)) (identical zeta omega t))
                        (mmul 2 (tr (identical zeta omega (s + u))) (identical zeta omega (t + u))).
Proof.
  intros zeta omega Hz H1. exists 0, 0, 1. intro H.
  specialize (H 0%nat 0%nat ltac:(lia) ltac:(lia)).
  unfold identical in H. mat_entries_in H.
  rewrite !Rplus_0_l, !Rmult_0_r, cos_0, sin_0, Rpower_O, Rpower_1 in H by assumption.
  replace (omega * 1) with omega in H by ring.
  assert (P : sin omega ^ 2 + cos omega ^ 2 = 1)
    by (rewrite <- (sin2_cos2 omega); unfold Rsqr; ring).
  assert (E : zeta * zeta = 1).
  { rewrite <- (Rmult_1_r (zeta * zeta)), <- P. ring_simplify. ring_simplify in H. lra. }
  apply H1. nra.
Qed.
