"""The JAX lift: a jaxpr interpreted in the exact semantics the torch lift uses.

The functions lifted here are user code written in JAX (the real JAX libraries are in
``test_jax_libs.py``); every exact rule is compared with what the real primitive computes.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ci_support import import_or_skip

jax = import_or_skip("jax", "pip install 'symrope[jax]'")
jnp = jax.numpy

from symrope.lifting import LiftUndecided, check_lifted, lift  # noqa: E402
from symrope.lifting._jax import JaxLiftedEncoding, uses_jax  # noqa: E402


def rope(q, k, positions):
    d = q.shape[-1]
    inv = 1.0 / (10000.0 ** (jnp.arange(0, d, 2, dtype=jnp.float32) / d))
    angle = jnp.einsum("s,f->sf", positions.astype(jnp.float32), inv)
    cos, sin = jnp.cos(angle), jnp.sin(angle)

    def turn(x):
        a, b = jnp.split(x, 2, axis=-1)
        return jnp.concatenate([a * cos - b * sin, b * cos + a * sin], -1)
    return turn(q), turn(k)


def rope_keys_backwards(q, k, positions):
    return rope(q, k, positions)[0], rope(q, k, -positions)[1]


def test_a_jax_rope_is_proved_with_its_float32_frequencies_and_the_cast_named():
    encoding = lift(rope, head_dim=4)
    assert isinstance(encoding, JaxLiftedEncoding) and uses_jax(rope)
    report = check_lifted(encoding)
    assert report.verdict == "proved"
    assert "rotate_half pairs (i, i + 2)" in report.lift["layout"]["text"]
    blocks = report.generator["axes"][0]["blocks"]
    omega = sp.parse_expr(blocks[1]["matrix"])[1][0]
    assert omega == sp.Rational(float(np.float32(0.01)))   # the float32 value, not 1/100
    (hazard,) = report.hazards
    assert hazard["dtype"] == "float32" and hazard["location"].endswith(
        f"test_jax_lift.py:{rope.__code__.co_firstlineno + 3}")


def test_a_key_rotated_backwards_is_refuted_and_replayed_through_jax_in_float64():
    report = check_lifted(lift(rope_keys_backwards, head_dim=4))
    invariance = report.assumptions["translation_invariance"]
    assert invariance.verdict == "refuted"
    replay = invariance.counterexample["float64_replay"]
    assert replay["agrees"], replay


def _lift_source(tmp_path, body: str, name: str, head_dim: int = 4) -> subprocess.CompletedProcess:
    path = tmp_path / "jax_code.py"
    path.write_text("import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"
                    + textwrap.dedent(body))
    return subprocess.run([sys.executable, "-m", "symrope", "check", "--impl", f"{path}:{name}",
                           "--head-dim", str(head_dim)], capture_output=True, text=True,
                          timeout=240)


def test_check_impl_takes_a_jax_file_and_exits_3_on_what_it_cannot_follow(tmp_path):
    body = '''
    def angle(positions):
        return positions[:, None].astype(jnp.float32) * jnp.asarray([1.0, 0.01], jnp.float32)

    def turn(x, a):
        u, v = jnp.split(x, 2, axis=-1)
        return jnp.concatenate([u * jnp.cos(a) - v * jnp.sin(a), v * jnp.cos(a) + u * jnp.sin(a)], -1)

    def good(q, k, positions):
        a = angle(positions)
        return turn(q, a), turn(k, a)

    def branchy(q, k, positions):
        a = lax.cond(positions[0] > 3, lambda p: angle(p), lambda p: angle(p) * 2, positions)
        return turn(q, a), turn(k, a)

    def python_branch(q, k, positions):
        if positions.max() > 10:
            return q, k
        return good(q, k, positions)

    def sorted_positions(q, k, positions):
        return good(q, k, jnp.sort(positions))

    def table_lookup(q, k, positions):
        table = jnp.arange(100, dtype=jnp.float32)
        a = table[positions][:, None] * jnp.asarray([1.0, 0.01], jnp.float32)
        return turn(q, a), turn(k, a)
    '''
    assert _lift_source(tmp_path, body, "good").returncode == 0
    for name, needle in (("branchy", "lax.cond"), ("python_branch", "jax_code.py:"),
                         ("sorted_positions", "'sort'"), ("table_lookup", "symbolic index")):
        result = _lift_source(tmp_path, body, name)
        assert result.returncode == 3, (name, result.stdout, result.stderr)
        assert needle in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert "jax_code.py:" in result.stderr, result.stderr


def test_unsupported_primitive_is_lift_undecided_with_its_name():
    def cumulative(q, k, positions):
        return rope(q, k, jnp.argsort(positions))
    with pytest.raises(LiftUndecided, match="'(sort|argsort)'"):
        lift(cumulative, head_dim=4)


# --- each exact rule against the real primitive -------------------------------------------------

def _steps():
    half = lambda p: p.astype(jnp.float32) / 2
    return {
        "floor": lambda p: jnp.floor(half(p) + 0.25),
        "ceil": lambda p: jnp.ceil(half(p) - 0.25),
        "round half even (jnp.round)": lambda p: jnp.round(half(p)),
        "round half away (lax.round)": lambda p: jax.lax.round(half(p)),
        "float -> int truncates": lambda p: (half(p) - 0.75).astype(jnp.int32).astype(jnp.float32),
        "integer div truncates": lambda p: jax.lax.div(p - 5, jnp.int32(3)).astype(jnp.float32),
        "rem takes the dividend's sign": lambda p: jax.lax.rem(p - 5, jnp.int32(3)).astype(jnp.float32),
        "floor_divide": lambda p: jnp.floor_divide(p - 5, 3).astype(jnp.float32),
        "mod": lambda p: jnp.mod(p - 5, 3).astype(jnp.float32),
        "clamp": lambda p: jnp.clip(p, 2, 6).astype(jnp.float32),
        "select_n": lambda p: jnp.where(p > 4, p * 2, -p).astype(jnp.float32),
        "integer_pow": lambda p: (half(p) ** 3) / 64,
        "sign and abs": lambda p: jnp.sign(p - 3).astype(jnp.float32) * jnp.abs(half(p) - 1),
    }


@pytest.mark.parametrize("name", list(_steps()))
@settings(max_examples=12, deadline=None)
@given(positions=st.lists(st.integers(-9, 9), min_size=3, max_size=3))
def test_each_rule_computes_what_the_real_primitive_computes(name, positions):
    step = _steps()[name]

    def function(q, k, p):
        a = step(p)[:, None] * jnp.asarray([1.0], jnp.float32)
        return q * jnp.concatenate([jnp.cos(a), jnp.cos(a)], -1), k
    encoding = _lifted(name, function)
    q_rows = encoding.rows.q
    symbols = encoding.rows.positions()
    values = dict(zip(symbols, [sp.Integer(v) for v in positions]))
    x0 = encoding.rows.x
    exact = [q_rows[t][0].xreplace(values).xreplace({s: 1 for s in x0[t]}) for t in range(3)]
    with jax.enable_x64(True):
        real = function(jnp.ones((1, 1, 3, 2)), jnp.ones((1, 1, 3, 2)),
                        jnp.asarray(positions, dtype=jnp.int32))[0]
    np.testing.assert_allclose([float(v) for v in exact], np.asarray(real)[0, 0, :, 0],
                               rtol=1e-6, atol=1e-6)


_LIFTED: dict = {}


def _lifted(name, function):
    if name not in _LIFTED:
        _LIFTED[name] = lift(function, head_dim=2, name=name)
    return _LIFTED[name]
