"""The checker's theorems as proof items: ``pytest proofs/checker_theorems.py``.

Pairing conventions, N-d positions, frequency schedules and ALiBi (``symrope.theorems``
modules ``_pairing``, ``_nd_positions``, ``_schedules``, ``_alibi``). Grids are kept small so
the suite stays fast; ``symrope prove NAME --param d=...`` runs any other size.
"""

from symrope.testing import proof
from symrope.theorems import get_theorem


@proof(d=[2, 4, 8, 16])
def pairing_layouts_are_one_permutation_apart(d):
    return get_theorem("pairing_permutation").build(d=d)


@proof(n=[2, 3])
def commuting_generators_give_relative_nd_positions(n):
    return get_theorem("nd_commuting_generators_relative").build(n=n)


@proof
def noncommuting_so3_generators_are_not_relative():
    """Proved theorem whose steps are refutations: the exact counterexample is part of it."""
    return get_theorem("nd_noncommuting_generators_not_relative").build()


@proof(rope_type=["linear", "yarn", "llama3", "ntk"])
def fixed_schedules_keep_rope_relative(rope_type):
    return get_theorem("schedule_keeps_relative").build(rope_type=rope_type, d=4)


@proof(rope_type=["dynamic", "longrope"])
def length_dependent_schedules_break_relative(rope_type):
    return get_theorem("length_dependent_schedule_not_relative").build(rope_type=rope_type)


@proof
def yarn_attention_factor_scales_the_identity():
    return get_theorem("yarn_attention_factor_scales_identity").build(d=4)


@proof(d=[1, 2, 4])
def alibi_is_a_nilpotent_generator(d):
    return get_theorem("alibi_nilpotent").build(d=d)


@proof(expect="refuted")
def a_dynamic_schedule_claimed_relative_across_lengths_is_refuted():
    """Stating the false claim as a theorem: the engine refutes it with positions s, t."""
    import sympy as sp

    from symrope.engine import Theorem
    from symrope.theorems._schedules import _cross_products, _frequencies, _blocks

    s, t = sp.symbols("s t", real=True)
    before, after = _frequencies("dynamic", 4, 4096), _frequencies("dynamic", 4, 8192)
    thm = Theorem("dynamic_ntk_relative_across_lengths", "R_8192(s)^T R_4096(t) = R_4096(t - s)")
    thm.check(_cross_products(s, after, t, before), _blocks(t - s, before),
              "(false) a cached key and a later query")
    return thm
