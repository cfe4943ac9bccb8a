(* symrope: theorem schedule_keeps_relative, stated whole: for every frequency schedule that
   does not depend on the position (any function omega from pair index to a real frequency:
   linear position interpolation, YaRN, llama3, static NTK are such functions), and every head
   dimension d = 2m,

     R_omega(s)^T R_omega(t) = R_omega(t - s)   and   R_omega(p)^T R_omega(p) = I.

   No hypothesis: the schedule's independence of the position is its type (omega takes a pair
   index, never a position or a sequence length). *)
Require Import Reals Lra Lia.
From Symrope Require Import Blocks.
Open Scope R_scope.

Theorem schedule_keeps_relative : forall (m : nat) (omega : nat -> R) (s t : R),
  meq (2 * m) (mmul (2 * m) (tr (rope omega s)) (rope omega t)) (rope omega (t - s)).
Proof. intros. apply rope_tr_mul. Qed.

Theorem schedule_orthogonal : forall (m : nat) (omega : nat -> R) (p : R),
  meq (2 * m) (mmul (2 * m) (tr (rope omega p)) (rope omega p)) ident.
Proof.
  intros m omega p. eapply meq_trans; [apply rope_tr_mul|].
  rewrite Rminus_diag_eq by reflexivity. eapply meq_trans; [|apply bdiag_ident].
  unfold rope. apply bdiag_meq. intros j _.
  rewrite Rmult_0_l. apply rot_0.
Qed.
