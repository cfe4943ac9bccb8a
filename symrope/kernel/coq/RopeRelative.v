(* symrope: theorem rope_relative, stated whole and proved for every head dimension d = 2m and
   every frequency function omega (RoFormer's omega_i = theta^(-2i/d) is one of them):

     R_d(s)^T R_d(t) = R_d(t - s)   and   (R_d(s) q)^T (R_d(t) k) = q^T R_d(t - s) k,

   with R_d(p) = diag(R(p omega_0), ..., R(p omega_(m-1))) defined in Blocks.v. The part
   R_d(p) = e^(pX), X = diag(omega_i J), rests on two facts of analysis about the matrix
   exponential, stated below as named hypotheses (not proved here). *)
Require Import Reals Lra Lia.
From Symrope Require Import Blocks.
Open Scope R_scope.

Theorem rope_relative : forall (m : nat) (omega : nat -> R) (s t : R),
  meq (2 * m) (mmul (2 * m) (tr (rope omega s)) (rope omega t)) (rope omega (t - s)).
Proof. intros. apply rope_tr_mul. Qed.

Theorem rope_relative_score : forall (m : nat) (omega : nat -> R) (s t : R) (q k : vec),
  dot (2 * m) (mvec (2 * m) (rope omega s) q) (mvec (2 * m) (rope omega t) k)
  = dot (2 * m) q (mvec (2 * m) (rope omega (t - s)) k).
Proof. intros. apply score_form. apply rope_tr_mul. Qed.

Section Exponential.
  (* expm n A: the exponential of the n x n matrix A, sum_k A^k / k!. *)
  Variable expm : nat -> mat -> mat.
  (* The power series acts block by block (Higham, Functions of Matrices, Thm. 1.13). *)
  Hypothesis expm_bdiag : forall (m : nat) (A : mat) (B : nat -> mat),
    meq (2 * m) A (bdiag B) -> meq (2 * m) (expm (2 * m) A) (bdiag (fun j => expm 2 (B j))).
  (* e^(aJ) = cos(a) I + sin(a) J = R(a): the even and odd terms of the series. *)
  Hypothesis expm_rotation : forall (A : mat) (a : R),
    meq 2 A (mscale a J) -> meq 2 (expm 2 A) (rot a).

  Theorem rope_exponential : forall (m : nat) (omega : nat -> R) (p : R),
    meq (2 * m) (expm (2 * m) (mscale p (bdiag (fun j => mscale (omega j) J)))) (rope omega p).
  Proof.
    intros m omega p. eapply meq_trans.
    - apply (expm_bdiag m _ (fun j => mscale (p * omega j) J)).
      intros i k Hi Hk. unfold mscale, bdiag.
      destruct (Nat.eqb (i / 2) (k / 2)); ring.
    - apply bdiag_meq. intros j _. apply expm_rotation. apply meq_refl.
  Qed.
End Exponential.

(* The two hypotheses are not contradictory: a function satisfying both (it reads each block's
   angle off its lower-left entry), so the theorem above is not vacuous. *)
Lemma rope_hypotheses_satisfiable : exists expm : nat -> mat -> mat,
  (forall (m : nat) (A : mat) (B : nat -> mat),
    meq (2 * m) A (bdiag B) -> meq (2 * m) (expm (2 * m)%nat A) (bdiag (fun j => expm 2%nat (B j))))
  /\ (forall (A : mat) (a : R), meq 2 A (mscale a J) -> meq 2 (expm 2%nat A) (rot a)).
Proof.
  exists (fun _ A => bdiag (fun j => rot (A (2 * j + 1)%nat (2 * j)%nat))). split.
  - intros m A B H. apply bdiag_meq. intros j Hj.
    assert (E : A (2 * j + 1)%nat (2 * j)%nat = B j 1%nat 0%nat).
    { rewrite H by lia. unfold bdiag.
      rewrite pair_div, pair_mod, pair_div0, pair_mod0, Nat.eqb_refl by lia. reflexivity. }
    rewrite E. intros i k Hi Hk.
    destruct i as [|[|]]; destruct k as [|[|]]; try lia; reflexivity.
  - intros A a H.
    assert (E : A 1%nat 0%nat = a) by (rewrite H by lia; unfold mscale, J, mat2; ring).
    intros i k Hi Hk. unfold bdiag.
    destruct i as [|[|]]; destruct k as [|[|]]; try lia; simpl; rewrite E; reflexivity.
Qed.
