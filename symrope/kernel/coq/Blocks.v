(* symrope: finite sums, square matrices as functions, block-diagonal matrices of 2x2 blocks,
   and the 2x2 rotation, over Coq's real numbers. Shared by the whole-theorem files.

   A matrix is a function [nat -> nat -> R]; [meq n A B] says that A and B agree as n x n
   matrices (on every entry i, k < n), so no functional extensionality is ever assumed.
   A block-diagonal matrix [bdiag B] has the 2x2 block [B j] on the coordinates 2j, 2j+1 (the
   interleaved pairing of RoFormer and Meta's reference code). *)
Require Import Reals Lra Lia.
Open Scope R_scope.

(* ---- finite sums ---- *)

Fixpoint fsum (n : nat) (f : nat -> R) : R :=
  match n with O => 0 | S k => fsum k f + f k end.

Lemma fsum_ext : forall n f g, (forall i, (i < n)%nat -> f i = g i) -> fsum n f = fsum n g.
Proof.
  induction n as [|n IH]; intros f g H; simpl; [reflexivity|].
  rewrite (IH f g) by (intros; apply H; lia). rewrite (H n) by lia. reflexivity.
Qed.

Lemma fsum_plus : forall n f g, fsum n (fun i => f i + g i) = fsum n f + fsum n g.
Proof. induction n as [|n IH]; intros; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma fsum_scal_l : forall n c f, fsum n (fun i => c * f i) = c * fsum n f.
Proof. induction n as [|n IH]; intros; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma fsum_scal_r : forall n c f, fsum n (fun i => f i * c) = fsum n f * c.
Proof. induction n as [|n IH]; intros; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma fsum_zero : forall n f, (forall i, (i < n)%nat -> f i = 0) -> fsum n f = 0.
Proof.
  intros n f H. rewrite (fsum_ext n f (fun _ => 0)) by assumption.
  induction n as [|n IH]; simpl; [reflexivity|]. rewrite IH by (intros; apply H; lia). ring.
Qed.

Lemma fsum_swap : forall n m f,
  fsum n (fun i => fsum m (fun j => f i j)) = fsum m (fun j => fsum n (fun i => f i j)).
Proof.
  induction n as [|n IH]; intros m f; simpl.
  - symmetry. apply fsum_zero. reflexivity.
  - rewrite IH, <- fsum_plus. reflexivity.
Qed.

(* Only the term at c survives. *)
Lemma fsum_delta : forall n c f, (c < n)%nat ->
  fsum n (fun j => if Nat.eqb j c then f j else 0) = f c.
Proof.
  induction n as [|n IH]; intros c f Hc; [lia|]. simpl.
  destruct (Nat.eqb_spec n c) as [E|E].
  - subst c. rewrite fsum_zero; [ring|]. intros i Hi.
    destruct (Nat.eqb_spec i n); [lia|reflexivity].
  - rewrite IH by lia. ring.
Qed.

(* Coordinates 0 .. 2m-1 are the pairs (2j, 2j+1), j < m. *)
Lemma fsum_pairs : forall m f, fsum (2 * m) f = fsum m (fun j => f (2 * j)%nat + f (2 * j + 1)%nat).
Proof.
  induction m as [|m IH]; intros f; [reflexivity|].
  replace (2 * S m)%nat with (S (S (2 * m))) by lia.
  change (fsum (S (S (2 * m))) f) with (fsum (2 * m) f + f (2 * m)%nat + f (S (2 * m))).
  change (fsum (S m) ?g) with (fsum m g + g m).
  rewrite IH. replace (S (2 * m)) with (2 * m + 1)%nat by lia. ring.
Qed.

Lemma pair_div : forall j b, (b < 2)%nat -> ((2 * j + b) / 2)%nat = j.
Proof.
  intros j b Hb. rewrite Nat.mul_comm, Nat.div_add_l by lia.
  destruct b as [|[|]]; simpl; [lia|lia|lia].
Qed.

Lemma pair_mod : forall j b, (b < 2)%nat -> ((2 * j + b) mod 2)%nat = b.
Proof.
  intros j b Hb. rewrite Nat.add_comm, Nat.mul_comm, Nat.mod_add by lia.
  destruct b as [|[|]]; simpl; [reflexivity|reflexivity|lia].
Qed.

Lemma pair_split : forall i, i = (2 * (i / 2) + i mod 2)%nat /\ (i mod 2 < 2)%nat.
Proof. intro i. split; [apply Nat.div_mod; lia | apply Nat.mod_upper_bound; lia]. Qed.

(* ---- matrices ---- *)

Definition mat := nat -> nat -> R.
Definition vec := nat -> R.

Definition meq (n : nat) (A B : mat) : Prop :=
  forall i k, (i < n)%nat -> (k < n)%nat -> A i k = B i k.

Definition mmul (n : nat) (A B : mat) : mat := fun i k => fsum n (fun l => A i l * B l k).
Definition tr (A : mat) : mat := fun i k => A k i.
Definition mscale (c : R) (A : mat) : mat := fun i k => c * A i k.
Definition madd (A B : mat) : mat := fun i k => A i k + B i k.
Definition ident : mat := fun i k => if Nat.eqb i k then 1 else 0.
Definition zero : mat := fun _ _ => 0.
Definition mvec (n : nat) (A : mat) (v : vec) : vec := fun i => fsum n (fun l => A i l * v l).
Definition dot (n : nat) (u v : vec) : R := fsum n (fun i => u i * v i).

Lemma meq_refl : forall n A, meq n A A.
Proof. intros n A i k _ _. reflexivity. Qed.

Lemma meq_sym : forall n A B, meq n A B -> meq n B A.
Proof. intros n A B H i k Hi Hk. symmetry. apply H; assumption. Qed.

Lemma meq_trans : forall n A B C, meq n A B -> meq n B C -> meq n A C.
Proof. intros n A B C H1 H2 i k Hi Hk. rewrite H1 by assumption. apply H2; assumption. Qed.

Lemma mmul_meq : forall n A A' B B', meq n A A' -> meq n B B' -> meq n (mmul n A B) (mmul n A' B').
Proof.
  intros n A A' B B' HA HB i k Hi Hk. unfold mmul. apply fsum_ext. intros l Hl.
  rewrite HA, HB by assumption. reflexivity.
Qed.

Lemma tr_meq : forall n A B, meq n A B -> meq n (tr A) (tr B).
Proof. intros n A B H i k Hi Hk. unfold tr. apply H; assumption. Qed.

Lemma mvec_meq : forall n A B v, meq n A B -> forall i, (i < n)%nat -> mvec n A v i = mvec n B v i.
Proof. intros n A B v H i Hi. unfold mvec. apply fsum_ext. intros l Hl. rewrite H by assumption. reflexivity. Qed.

(* (A u) . v = u . (A^T v) and (A B) v = A (B v): the score is a bilinear form. *)
Lemma dot_mvec : forall n A u v, dot n (mvec n A u) v = dot n u (mvec n (tr A) v).
Proof.
  intros n A u v. unfold dot, mvec, tr.
  transitivity (fsum n (fun i => fsum n (fun l => A i l * u l * v i))).
  { apply fsum_ext. intros i _. rewrite <- fsum_scal_r. reflexivity. }
  rewrite fsum_swap. apply fsum_ext. intros l _. rewrite <- fsum_scal_l. apply fsum_ext.
  intros i _. ring.
Qed.

Lemma mvec_mmul : forall n A B v i, mvec n (mmul n A B) v i = mvec n A (mvec n B v) i.
Proof.
  intros n A B v i. unfold mvec, mmul.
  transitivity (fsum n (fun l => fsum n (fun j => A i j * B j l * v l))).
  { apply fsum_ext. intros l _. rewrite <- fsum_scal_r. reflexivity. }
  rewrite fsum_swap. apply fsum_ext. intros j _. rewrite <- fsum_scal_l. apply fsum_ext.
  intros l _. ring.
Qed.

(* The score through two matrices is the bilinear form of A^T B. *)
Lemma score_form : forall n A B C u v, meq n (mmul n (tr A) B) C ->
  dot n (mvec n A u) (mvec n B v) = dot n u (mvec n C v).
Proof.
  intros n A B C u v H. rewrite dot_mvec. unfold dot. apply fsum_ext. intros i Hi.
  f_equal. rewrite <- mvec_mmul. apply mvec_meq; assumption.
Qed.

(* ---- block-diagonal matrices of 2x2 blocks ---- *)

Definition bdiag (B : nat -> mat) : mat :=
  fun i k => if Nat.eqb (i / 2) (k / 2) then B (i / 2)%nat (i mod 2)%nat (k mod 2)%nat else 0.

Lemma bdiag_entry : forall B j b j' b', (b < 2)%nat -> (b' < 2)%nat ->
  bdiag B (2 * j + b)%nat (2 * j' + b')%nat = if Nat.eqb j j' then B j b b' else 0.
Proof. intros. unfold bdiag. rewrite !pair_div, !pair_mod by assumption. reflexivity. Qed.

Lemma bdiag_meq : forall m A B, (forall j, (j < m)%nat -> meq 2 (A j) (B j)) ->
  meq (2 * m) (bdiag A) (bdiag B).
Proof.
  intros m A B H i k Hi Hk. unfold bdiag.
  destruct (Nat.eqb_spec (i / 2) (k / 2)); [|reflexivity].
  apply H; [apply Nat.div_lt_upper_bound; lia | apply Nat.mod_upper_bound; lia
            | apply Nat.mod_upper_bound; lia].
Qed.

Lemma bdiag_tr : forall B i k, tr (bdiag B) i k = bdiag (fun j => tr (B j)) i k.
Proof.
  intros B i k. unfold tr, bdiag.
  destruct (Nat.eqb_spec (k / 2) (i / 2)) as [E|E].
  - rewrite E, Nat.eqb_refl. reflexivity.
  - rewrite (proj2 (Nat.eqb_neq (i / 2) (k / 2))) by congruence. reflexivity.
Qed.

Lemma pair_div0 : forall j, ((2 * j) / 2)%nat = j.
Proof. intro j. rewrite <- (Nat.add_0_r (2 * j)). apply pair_div. lia. Qed.

Lemma pair_mod0 : forall j, ((2 * j) mod 2)%nat = 0%nat.
Proof. intro j. rewrite <- (Nat.add_0_r (2 * j)). apply pair_mod. lia. Qed.

Lemma bdiag_mul_pair : forall m A B c b c' b', (b < 2)%nat -> (b' < 2)%nat -> (c < m)%nat ->
  mmul (2 * m) (bdiag A) (bdiag B) (2 * c + b)%nat (2 * c' + b')%nat
  = bdiag (fun j => mmul 2 (A j) (B j)) (2 * c + b)%nat (2 * c' + b')%nat.
Proof.
  intros m A B c b c' b' Hb Hb' Hc. unfold mmul at 1. rewrite fsum_pairs.
  rewrite (fsum_ext m _ (fun j => if Nat.eqb j c
                                 then (if Nat.eqb c c' then mmul 2 (A c) (B c) b b' else 0)
                                 else 0)).
  - rewrite fsum_delta by assumption. unfold bdiag. rewrite !pair_div, !pair_mod by assumption.
    reflexivity.
  - intros j Hj. unfold bdiag. rewrite ?pair_div, ?pair_mod, ?pair_div0, ?pair_mod0 by lia.
    destruct (Nat.eqb_spec c j); destruct (Nat.eqb_spec j c'); destruct (Nat.eqb_spec j c);
      destruct (Nat.eqb_spec c c'); try lia; subst; unfold mmul; simpl; ring.
Qed.

(* The product of two block-diagonal matrices is block-diagonal, block by block: the step
   "decided block by block" of the engine, proved once for every size. *)
Lemma bdiag_mul : forall m A B,
  meq (2 * m) (mmul (2 * m) (bdiag A) (bdiag B)) (bdiag (fun j => mmul 2 (A j) (B j))).
Proof.
  intros m A B i k Hi Hk.
  destruct (pair_split i) as [Ei Bi]. destruct (pair_split k) as [Ek Bk].
  rewrite Ei, Ek. apply bdiag_mul_pair; try assumption.
  apply Nat.div_lt_upper_bound; lia.
Qed.

Lemma bdiag_tr_mul : forall m A B,
  meq (2 * m) (mmul (2 * m) (tr (bdiag A)) (bdiag B))
              (bdiag (fun j => mmul 2 (tr (A j)) (B j))).
Proof.
  intros m A B. eapply meq_trans; [|apply bdiag_mul].
  apply mmul_meq; [|apply meq_refl]. intros i k _ _. apply bdiag_tr.
Qed.

(* ---- the 2x2 rotation and its generator ---- *)

Definition mat2 (a b c d : R) : mat := fun i k =>
  match i, k with
  | O, O => a | O, S O => b | S O, O => c | S O, S O => d | _, _ => 0
  end.

Definition rot (a : R) : mat := mat2 (cos a) (- sin a) (sin a) (cos a).
Definition J : mat := mat2 0 (-1) 1 0.

Lemma meq2 : forall A B, A 0%nat 0%nat = B 0%nat 0%nat -> A 0%nat 1%nat = B 0%nat 1%nat ->
  A 1%nat 0%nat = B 1%nat 0%nat -> A 1%nat 1%nat = B 1%nat 1%nat -> meq 2 A B.
Proof.
  intros A B H00 H01 H10 H11 i k Hi Hk.
  destruct i as [|[|i]]; destruct k as [|[|k]]; try lia; assumption.
Qed.

(* R(a)^T R(b) = R(b - a): the angle-addition formulas. *)
Lemma rot_tr_mul : forall a b, meq 2 (mmul 2 (tr (rot a)) (rot b)) (rot (b - a)).
Proof.
  intros a b. apply meq2; unfold mmul, tr, rot, mat2; simpl;
    rewrite ?cos_minus, ?sin_minus; ring.
Qed.

Lemma rot_0 : meq 2 (rot 0) ident.
Proof. apply meq2; unfold rot, mat2, ident; simpl; rewrite ?cos_0, ?sin_0; ring. Qed.

Lemma rot_arg : forall a b, a = b -> rot a = rot b.
Proof. intros a b ->. reflexivity. Qed.

(* ---- RoPE's R_d(p) = diag(R(p omega_0), ..., R(p omega_{m-1})) for any frequencies ---- *)

Definition rope (omega : nat -> R) (p : R) : mat := bdiag (fun j => rot (p * omega j)).

(* R_d(s)^T R_d(t) = R_d(t - s) for every number of planes m and every frequency function. *)
Lemma rope_tr_mul : forall m omega s t,
  meq (2 * m) (mmul (2 * m) (tr (rope omega s)) (rope omega t)) (rope omega (t - s)).
Proof.
  intros m omega s t. unfold rope. eapply meq_trans; [apply bdiag_tr_mul|].
  apply bdiag_meq. intros j _. eapply meq_trans; [apply rot_tr_mul|].
  rewrite (rot_arg (t * omega j - s * omega j) ((t - s) * omega j)) by ring. apply meq_refl.
Qed.

Lemma bdiag_ident : forall m, meq (2 * m) (bdiag (fun _ => ident)) ident.
Proof.
  intros m i k Hi Hk. destruct (pair_split i) as [Ei Bi]. destruct (pair_split k) as [Ek Bk].
  unfold bdiag, ident. rewrite Ei at 3. rewrite Ek at 3.
  destruct (Nat.eqb_spec (i / 2) (k / 2)) as [E|E];
    destruct (Nat.eqb_spec (i mod 2) (k mod 2)) as [F|F];
    destruct (Nat.eqb_spec (2 * (i / 2) + i mod 2) (2 * (k / 2) + k mod 2)); try lia;
    reflexivity.
Qed.

(* The same with the index on the other side of the test. *)
Lemma fsum_delta_r : forall n c f, (c < n)%nat ->
  fsum n (fun j => if Nat.eqb c j then f j else 0) = f c.
Proof.
  intros n c f Hc. rewrite <- (fsum_delta n c f Hc). apply fsum_ext. intros j _.
  rewrite Nat.eqb_sym. reflexivity.
Qed.

(* (a R(x))^T (b R(y)) = ab R(y - x): scaled rotations compose like rotations. *)
Lemma scaled_rot_tr_mul : forall a b x y,
  meq 2 (mmul 2 (tr (mscale a (rot x))) (mscale b (rot y))) (mscale (a * b) (rot (y - x))).
Proof.
  intros a b x y. apply meq2; unfold mmul, tr, mscale, rot, mat2; simpl;
    rewrite ?cos_minus, ?sin_minus; ring.
Qed.

Lemma mmul_ident_l : forall A, meq 2 (mmul 2 ident A) A.
Proof. intro A. apply meq2; unfold mmul, ident; simpl; ring. Qed.

(* Unfold matrices to their entries at concrete indices (for 2x2 computations). *)
Ltac mat_entries :=
  cbv beta iota zeta delta [mmul tr mscale madd ident zero mat2 rot J mvec dot fsum Nat.eqb].
Ltac mat_entries_in H :=
  cbv beta iota zeta delta [mmul tr mscale madd ident zero mat2 rot J mvec dot fsum Nat.eqb] in H.

(* Case analysis on every index test of the goal. *)
Ltac destruct_eqbs :=
  repeat match goal with
         | |- context [Nat.eqb ?a ?b] => destruct (Nat.eqb_spec a b)
         | |- context [Nat.ltb ?a ?b] => destruct (Nat.ltb_spec a b)
         end.
