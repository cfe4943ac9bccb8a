"""The checker's theorems (pairing, N-d positions, schedules, ALiBi): what each one proves.

That every registered theorem is proved with every step as expected, states itself, and that
its refuted steps fail at their counterexamples (re-evaluated independently of the engine) is
``tests/test_theorems.py``'s, over the whole registry; the proof grid is
``proofs/checker_theorems.py``.
"""

import pytest
import sympy as sp

from symrope.engine import PROVED
from symrope.errors import UsageError
from symrope.theorems import get_theorem

def test_dynamic_ntk_frequencies_are_the_audited_ones():
    from symrope.schedules import inv_freq
    from symrope.theorems._schedules import schedule_config

    config = schedule_config("dynamic", 8)
    # at 4096 <= max_position_embeddings the base is untouched; at 8192 it grows
    assert inv_freq(config, "sympy", seq_len=4096) == [1, sp.Rational(1, 10),
                                                        sp.Rational(1, 100), sp.Rational(1, 1000)]
    assert inv_freq(config, "sympy", seq_len=8192)[1] == 3 ** sp.Rational(2, 3) / 30


def test_alibi_score_is_the_linear_bias():
    report = get_theorem("alibi_nilpotent").build(d=1).prove()
    (bias,) = [r for r in report.results if r.step.claim.startswith("(F(s) q')^T")]
    assert bias.verdict.status == PROVED
    s, t, m = sp.Symbol("s", real=True), sp.Symbol("t", real=True), sp.Symbol("m", positive=True)
    q0, k0 = sp.symbols("q0 k0", real=True)
    assert sp.expand(bias.step.rhs[0, 0] - (q0 * k0 - m * (s - t))) == 0


@pytest.mark.parametrize("name, params, message", [
    ("pairing_permutation", {"d": 3}, "positive even integer"),
    ("schedule_keeps_relative", {"rope_type": "dynamic"}, "rope_type must be"),
    ("length_dependent_schedule_not_relative", {"rope_type": "yarn"}, "dynamic or longrope"),
    ("alibi_nilpotent", {"d": 0}, "positive integer"),
])
def test_bad_parameters_are_one_line_usage_errors(name, params, message):
    with pytest.raises(UsageError, match=message):
        get_theorem(name).build(**params)
