(* symrope: theorem alibi_nilpotent, stated whole for every number d of content coordinates.

   On two extra coordinates (indices d and d+1) the nilpotent generator N = [[0, 1], [0, 0]]
   gives F(s) = diag(I_d, I - s N^T) and G(t) = diag(I_d, I + t N) (e^(pN) = I + pN: the
   exponential series stops, a named hypothesis). With q' = (q, 1, 0) and k' = (k, 0, m) the
   score is (F(s) q')^T (G(t) k') = q^T k - m (s - t): ALiBi's linear bias from a relative
   encoding, F(s)^T G(t) = G(t - s) = H(t - s), F(p)^T G(p) = I and H'(0) = diag(0, N). *)
Require Import Reals Lra Lia.
From Symrope Require Import Blocks.
Open Scope R_scope.

Definition N : mat := mat2 0 1 0 0.

(* diag(I_d, B) for a 2x2 block B on the coordinates d and d+1 *)
Definition extend (d : nat) (B : mat) : mat := fun i k =>
  if Nat.ltb i d then (if Nat.eqb k i then 1 else 0)
  else if Nat.ltb k d then 0 else B (i - d)%nat (k - d)%nat.

Definition alibi_F (d : nat) (s : R) : mat := extend d (madd ident (mscale (- s) (tr N))).
Definition alibi_G (d : nat) (t : R) : mat := extend d (madd ident (mscale t N)).
(* (v, a, b): the content coordinates, then the two extra ones *)
Definition pad (d : nat) (v : vec) (a b : R) : vec :=
  fun i => if Nat.ltb i d then v i else if Nat.eqb i d then a else b.

Theorem alibi_N_nilpotent : meq 2 (mmul 2 N N) zero.
Proof. apply meq2; unfold N; mat_entries; ring. Qed.

Section Exponential.
  Variable expm2 : mat -> mat.
  (* The series I + A + A^2/2 + ... stops after the linear term when A^2 = 0. *)
  Hypothesis expm2_nilpotent : forall A : mat,
    meq 2 (mmul 2 A A) zero -> meq 2 (expm2 A) (madd ident A).

  Theorem alibi_exponential : forall p, meq 2 (expm2 (mscale p N)) (madd ident (mscale p N)).
  Proof. intro p. apply expm2_nilpotent. apply meq2; unfold N; mat_entries; ring. Qed.
End Exponential.

Lemma alibi_hypotheses_satisfiable : exists expm2 : mat -> mat,
  forall A : mat, meq 2 (mmul 2 A A) zero -> meq 2 (expm2 A) (madd ident A).
Proof. exists (madd ident). intros A _. apply meq_refl. Qed.

Lemma fsum_SS : forall d f, fsum (S (S d)) f = fsum d f + f d + f (S d).
Proof. reflexivity. Qed.

(* Rows of diag(I_d, B) applied to a vector. *)
Lemma extend_apply : forall d B v i, (i < S (S d))%nat ->
  mvec (S (S d)) (extend d B) v i
  = if Nat.ltb i d then v i
    else B (i - d)%nat 0%nat * v d + B (i - d)%nat 1%nat * v (S d).
Proof.
  intros d B v i Hi. unfold mvec. rewrite fsum_SS. unfold extend.
  destruct (Nat.ltb_spec i d).
  - rewrite (fsum_ext d _ (fun l => if Nat.eqb l i then v l else 0)).
    + rewrite fsum_delta by assumption. destruct_eqbs; try lia; ring.
    + intros l Hl. destruct (Nat.eqb l i); ring.
  - rewrite fsum_zero.
    + destruct_eqbs; try lia. replace (d - d)%nat with 0%nat by lia.
      replace (S d - d)%nat with 1%nat by lia. ring.
    + intros l Hl. destruct_eqbs; try lia; ring.
Qed.

Theorem alibi_score : forall (d : nat) (q k : vec) (s t m : R),
  dot (S (S d)) (mvec (S (S d)) (alibi_F d s) (pad d q 1 0))
                (mvec (S (S d)) (alibi_G d t) (pad d k 0 m))
  = dot d q k - m * (s - t).
Proof.
  intros d q k s t m. unfold dot. rewrite fsum_SS.
  rewrite (fsum_ext d _ (fun i => q i * k i)).
  - unfold alibi_F, alibi_G. rewrite !extend_apply by lia.
    unfold pad. destruct_eqbs; try lia.
    replace (d - d)%nat with 0%nat by lia. replace (S d - d)%nat with 1%nat by lia.
    unfold N. mat_entries. ring.
  - intros i Hi. unfold alibi_F, alibi_G. rewrite !extend_apply by lia.
    unfold pad. destruct_eqbs; try lia. reflexivity.
Qed.

Lemma extend_tr_mul : forall d A B,
  meq (S (S d)) (mmul (S (S d)) (tr (extend d A)) (extend d B)) (extend d (mmul 2 (tr A) B)).
Proof.
  intros d A B i k Hi Hk. unfold mmul at 1. rewrite fsum_SS. unfold tr, extend.
  destruct (Nat.ltb_spec i d); destruct (Nat.ltb_spec k d).
  - rewrite (fsum_ext d _ (fun l => if Nat.eqb l i then (if Nat.eqb k l then 1 else 0) else 0)).
    + rewrite fsum_delta by assumption. destruct_eqbs; try lia; ring.
    + intros l Hl. destruct_eqbs; try lia; ring.
  - rewrite fsum_zero by (intros l Hl; destruct_eqbs; try lia; ring). destruct_eqbs; try lia; ring.
  - rewrite fsum_zero by (intros l Hl; destruct_eqbs; try lia; ring). destruct_eqbs; try lia; ring.
  - rewrite fsum_zero by (intros l Hl; destruct_eqbs; try lia; ring). destruct_eqbs; try lia;
    replace (d - d)%nat with 0%nat by lia; replace (S d - d)%nat with 1%nat by lia;
    unfold mmul, tr; simpl; ring.
Qed.

Lemma extend_meq : forall d A B, meq 2 A B -> meq (S (S d)) (extend d A) (extend d B).
Proof.
  intros d A B H i k Hi Hk. unfold extend. destruct_eqbs; try reflexivity; apply H; lia.
Qed.

Theorem alibi_relative : forall (d : nat) (s t : R),
  meq (S (S d)) (mmul (S (S d)) (tr (alibi_F d s)) (alibi_G d t)) (alibi_G d (t - s)).
Proof.
  intros d s t. unfold alibi_F, alibi_G. eapply meq_trans; [apply extend_tr_mul|].
  apply extend_meq. apply meq2; unfold N; mat_entries; ring.
Qed.

Lemma extend_ident : forall d, meq (S (S d)) (extend d ident) ident.
Proof. intros d i k Hi Hk. unfold extend, ident. destruct_eqbs; try lia; reflexivity. Qed.

Theorem alibi_identity : forall (d : nat) (p : R),
  meq (S (S d)) (mmul (S (S d)) (tr (alibi_F d p)) (alibi_G d p)) ident.
Proof.
  intros d p. eapply meq_trans; [apply alibi_relative|]. eapply meq_trans; [|apply extend_ident].
  unfold alibi_G. apply extend_meq. apply meq2; unfold N; mat_entries; ring.
Qed.

(* H'(0) = diag(0, N): each entry of H(x) = G(x) is differentiable at 0 with derivative X. *)
Definition alibi_X (d : nat) : mat := fun i k =>
  if Nat.ltb i d then 0 else if Nat.ltb k d then 0 else N (i - d)%nat (k - d)%nat.

Lemma affine_derivative : forall c b, derivable_pt_lim (fun x => c + x * b) 0 b.
Proof.
  intros c b.
  assert (H : derivable_pt_lim (plus_fct (fct_cte c) (mult_fct id (fct_cte b))) 0
                               (0 + (1 * fct_cte b 0 + id 0 * 0))).
  { apply derivable_pt_lim_plus; [apply derivable_pt_lim_const|].
    apply derivable_pt_lim_mult; [apply derivable_pt_lim_id|apply derivable_pt_lim_const]. }
  unfold plus_fct, mult_fct, fct_cte, id in H.
  replace (0 + (1 * b + 0 * 0)) with b in H by ring. exact H.
Qed.

Theorem alibi_generator : forall (d i k : nat),
  derivable_pt_lim (fun x => alibi_G d x i k) 0 (alibi_X d i k).
Proof.
  intros d i k. unfold alibi_G, alibi_X, extend.
  destruct (Nat.ltb i d); [apply derivable_pt_lim_const|].
  destruct (Nat.ltb k d); [apply derivable_pt_lim_const|].
  unfold N. mat_entries. apply affine_derivative.
Qed.
