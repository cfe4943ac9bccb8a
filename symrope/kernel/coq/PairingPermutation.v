(* symrope: theorem pairing_permutation, stated whole for every head dimension d = 2m and every
   frequency function omega.

   Interleaved RoPE (pairs (2i, 2i+1): RoFormer, Meta's reference code) is [rope omega p] of
   Blocks.v; the split-halves layout of Hugging Face (pairs (i, i + m)) is
   R_half(p) = [[C, -S], [S, C]] with C = diag(cos p omega_i), S = diag(sin p omega_i). With the
   de-interleave permutation P ((P x)_i = x_(2i), (P x)_(i+m) = x_(2i+1)):
   P^T P = I, R_half(p) = P R_inter(p) P^T, and q cos + rotate_half(q) sin = R_half(p) q. *)
Require Import Reals Lra Lia.
From Symrope Require Import Blocks.
Open Scope R_scope.

(* Row i of P picks coordinate src m i of x. *)
Definition src (m i : nat) : nat := if Nat.ltb i m then (2 * i)%nat else (2 * (i - m) + 1)%nat.
Definition perm (m : nat) : mat := fun i k => if Nat.eqb k (src m i) then 1 else 0.

Definition rope_half (m : nat) (omega : nat -> R) (p : R) : mat := fun i k =>
  if Nat.ltb i m then
    (if Nat.ltb k m then (if Nat.eqb i k then cos (p * omega i) else 0)
     else (if Nat.eqb (k - m)%nat i then - sin (p * omega i) else 0))
  else
    (if Nat.ltb k m then (if Nat.eqb (i - m)%nat k then sin (p * omega k) else 0)
     else (if Nat.eqb (i - m)%nat (k - m)%nat then cos (p * omega (i - m)%nat) else 0)).

(* Hugging Face: cos and sin tables are cat(freqs, freqs); rotate_half(x) = cat(-x2, x1). *)
Definition half_index (m i : nat) : nat := if Nat.ltb i m then i else (i - m)%nat.
Definition cos_table (m : nat) (omega : nat -> R) (p : R) : vec :=
  fun i => cos (p * omega (half_index m i)).
Definition sin_table (m : nat) (omega : nat -> R) (p : R) : vec :=
  fun i => sin (p * omega (half_index m i)).
Definition rotate_half (m : nat) (x : vec) : vec :=
  fun i => if Nat.ltb i m then - x (i + m)%nat else x (i - m)%nat.

Lemma src_lt : forall m i, (i < 2 * m)%nat -> (src m i < 2 * m)%nat.
Proof. intros m i Hi. unfold src. destruct (Nat.ltb_spec i m); lia. Qed.

Lemma perm_apply : forall m i f, (i < 2 * m)%nat ->
  fsum (2 * m) (fun l => perm m i l * f l) = f (src m i).
Proof.
  intros m i f Hi. rewrite <- (fsum_delta (2 * m) (src m i) f) by (apply src_lt; assumption).
  apply fsum_ext. intros l _. unfold perm. destruct (Nat.eqb l (src m i)); ring.
Qed.

Lemma perm_apply_r : forall m k f, (k < 2 * m)%nat ->
  fsum (2 * m) (fun l => f l * perm m k l) = f (src m k).
Proof.
  intros m k f Hk. rewrite <- (perm_apply m k f Hk). apply fsum_ext. intros l _. ring.
Qed.

Theorem pairing_P_selects : forall m (x : vec) i, (i < 2 * m)%nat ->
  mvec (2 * m) (perm m) x i = x (src m i).
Proof. intros. unfold mvec. apply perm_apply. assumption. Qed.

Lemma src_injective : forall m i k, (i < 2 * m)%nat -> (k < 2 * m)%nat ->
  src m i = src m k -> i = k.
Proof.
  intros m i k Hi Hk. unfold src.
  destruct (Nat.ltb_spec i m); destruct (Nat.ltb_spec k m); lia.
Qed.

Theorem pairing_P_orthogonal : forall m, meq (2 * m) (mmul (2 * m) (tr (perm m)) (perm m)) ident.
Proof.
  intros m i k Hi Hk. unfold mmul, tr.
  (* (P^T P)_(i,k) = sum_l P_(l,i) P_(l,k): row l of P has its 1 at src m l *)
  transitivity (fsum (2 * m) (fun l => if Nat.eqb (src m l) i
                                       then (if Nat.eqb i k then 1 else 0) else 0)).
  - apply fsum_ext. intros l Hl. unfold perm.
    destruct (Nat.eqb_spec i (src m l)); destruct (Nat.eqb_spec k (src m l));
      destruct (Nat.eqb_spec (src m l) i); destruct (Nat.eqb_spec i k); try lia; ring.
  - (* i is src of exactly one row *)
    assert (Hrow : exists r, (r < 2 * m)%nat /\ src m r = i /\
                             forall l, (l < 2 * m)%nat -> src m l = i -> l = r).
    { destruct (Nat.even i) eqn:E.
      - exists (i / 2)%nat. apply Nat.even_spec in E. destruct E as [h Eh]. subst i.
        rewrite pair_div0. unfold src. destruct (Nat.ltb_spec h m); [|lia].
        split; [lia|split; [reflexivity|]]. intros l Hl. destruct (Nat.ltb_spec l m); lia.
      - exists (i / 2 + m)%nat.
        assert (O : Nat.odd i = true) by (unfold Nat.odd; rewrite E; reflexivity).
        apply Nat.odd_spec in O. destruct O as [h Eh]. subst i.
        rewrite pair_div by lia. unfold src. destruct (Nat.ltb_spec (h + m) m); [lia|].
        split; [lia|split; [lia|]]. intros l Hl. destruct (Nat.ltb_spec l m); lia. }
    destruct Hrow as [r [Hr [Er Ur]]].
    rewrite (fsum_ext (2 * m) _ (fun l => if Nat.eqb l r then (if Nat.eqb i k then 1 else 0)
                                         else 0)).
    + rewrite fsum_delta by assumption. unfold ident. reflexivity.
    + intros l Hl. destruct (Nat.eqb_spec (src m l) i); destruct (Nat.eqb_spec l r).
      * reflexivity.
      * exfalso. apply n. apply Ur; assumption.
      * subst. contradiction.
      * reflexivity.
Qed.

Theorem pairing_permutation : forall (m : nat) (omega : nat -> R) (p : R),
  meq (2 * m) (mmul (2 * m) (mmul (2 * m) (perm m) (rope omega p)) (tr (perm m)))
              (rope_half m omega p).
Proof.
  intros m omega p i k Hi Hk. unfold mmul at 1, tr.
  rewrite (fsum_ext (2 * m) _ (fun l => perm m k l * rope omega p (src m i) l)).
  2: { intros l Hl. unfold mmul. rewrite perm_apply by assumption. ring. }
  rewrite (perm_apply m k (fun l => rope omega p (src m i) l)) by assumption.
  unfold rope, bdiag, rope_half, src.
  destruct (Nat.ltb_spec i m); destruct (Nat.ltb_spec k m);
    rewrite ?pair_div0, ?pair_mod0, ?pair_div, ?pair_mod by lia; destruct_eqbs; try lia;
    subst; try reflexivity.
Qed.

(* Hugging Face's q * cos + rotate_half(q) * sin is R_half(p) q. *)
Theorem pairing_rotate_half : forall (m : nat) (omega : nat -> R) (p : R) (q : vec) i,
  (i < 2 * m)%nat ->
  q i * cos_table m omega p i + rotate_half m q i * sin_table m omega p i
  = mvec (2 * m) (rope_half m omega p) q i.
Proof.
  intros m omega p q i Hi. unfold mvec, rope_half, cos_table, sin_table, rotate_half, half_index.
  destruct (Nat.ltb_spec i m).
  - (* row i < m: cos on q_i, -sin on q_(i+m) *)
    rewrite (fsum_ext (2 * m) _ (fun l => (if Nat.eqb l i then cos (p * omega i) * q l else 0)
                                         + (if Nat.eqb l (i + m) then - sin (p * omega i) * q l
                                            else 0))).
    + rewrite fsum_plus, !fsum_delta by lia. ring.
    + intros l Hl. destruct (Nat.ltb_spec l m).
      * destruct (Nat.eqb_spec i l); destruct (Nat.eqb_spec l i); destruct (Nat.eqb_spec l (i + m));
          try lia; ring.
      * destruct (Nat.eqb_spec (l - m) i); destruct (Nat.eqb_spec l i);
          destruct (Nat.eqb_spec l (i + m)); try lia; ring.
  - (* row i >= m: sin on q_(i-m), cos on q_i *)
    rewrite (fsum_ext (2 * m) _ (fun l => (if Nat.eqb l (i - m) then sin (p * omega (i - m)%nat) * q l
                                          else 0)
                                         + (if Nat.eqb l i then cos (p * omega (i - m)%nat) * q l
                                            else 0))).
    + rewrite fsum_plus, !fsum_delta by lia. ring.
    + intros l Hl. destruct (Nat.ltb_spec l m).
      * destruct (Nat.eqb_spec (i - m) l); destruct (Nat.eqb_spec l (i - m));
          destruct (Nat.eqb_spec l i); try lia; subst; ring.
      * destruct (Nat.eqb_spec (i - m) (l - m)); destruct (Nat.eqb_spec l (i - m));
          destruct (Nat.eqb_spec l i); try lia; subst; ring.
Qed.
