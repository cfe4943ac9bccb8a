"""The audit's figures do not depend on the CPU's SIMD code paths.

numpy picks a vectorised kernel per CPU (baseline SSE, AVX2, AVX-512): float32 pow, float64
pow/exp and float32 cos/log differ in their last bit between those paths. Every figure an audit
prints must be the same on any x86-64 CPU, so the same audits run twice in fresh processes: once
as numpy finds the CPU, once with every dispatched feature disabled (``NPY_DISABLE_CPU_FEATURES``,
the baseline path). The JSON documents must be the same in every string and integer (safe
context, first failure, counts) and every float to 1e-9 relative -- so every printed figure
(three significant digits) is the same: numpy's sums themselves run in a different order on each
path (that is what vectorising a reduction means), so their last bits may differ.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from audit_libraries import require_library

ROOT = Path(__file__).resolve().parent.parent


def _dispatched_features() -> str:
    from numpy._core._multiarray_umath import __cpu_dispatch__

    return " ".join(__cpu_dispatch__)


@functools.lru_cache(maxsize=None)
def _run_audit(argv: tuple[str, ...], baseline: bool) -> dict:
    """The audit's JSON document, from a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if baseline:
        env["NPY_DISABLE_CPU_FEATURES"] = _dispatched_features()
    probe = "from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__;" \
            "import sys; sys.stderr.write(' '.join(k for k in __cpu_dispatch__ if __cpu_features__[k]))"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                           timeout=120).stderr.strip()
    if baseline:
        assert found == "", f"numpy still dispatches to {found}"
    result = subprocess.run([sys.executable, "-m", "symrope", "audit", *argv, "--json", "--no-fix"],
                            capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    return _without_timings(json.loads(result.stdout))


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def _differences(a, b, where="") -> list[str]:
    """Where two JSON documents differ: any type, string or integer, or a float beyond 1e-9."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{where}: keys {sorted(a.keys() ^ b.keys())}"]
        return [d for key in a for d in _differences(a[key], b[key], f"{where}.{key}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: lengths {len(a)} and {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{where}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if abs(a - b) <= 1e-9 * max(abs(a), abs(b)) else [f"{where}: {a!r} vs {b!r}"]
    return [] if (type(a), a) == (type(b), b) else [f"{where}: {a!r} vs {b!r}"]


# the built-in models (numpy all the way), and the default audit (the real class, torch's table)
_AUDITS = {
    "models": ["--impl", "hf", "--compare", "meta", "fp64-angle", "llamacpp", "neox-fp16",
               "hf-bf16-autocast", "--max-position", "20000"],
    "default": ["--max-position", "40000", "--compare", "hf"],
}


@pytest.mark.parametrize("name", list(_AUDITS))
def test_figures_are_the_same_on_the_baseline_and_the_dispatched_simd_path(name):
    if name == "default":
        require_library("transformers")
    argv = tuple(_AUDITS[name])
    assert _differences(_run_audit(argv, baseline=False), _run_audit(argv, baseline=True)) == []


def test_the_model_agrees_with_the_real_class_where_their_frequencies_agree():
    """Llama 3.1 8B: torch's pow gives the correctly rounded inv_freq here, so the model (whose
    inv_freq is that value and whose cos/sin are within an ulp of torch's) must give the real
    class's safe context and, band by band, its max |err| within 2%."""
    require_library("transformers")
    import numpy as np

    from symrope.audit import hf_transformers_impl
    from symrope.schedules import inv_freq, llama31_8b

    config = llama31_8b()
    buffer = hf_transformers_impl(dict(config.hf_dict(), model_type="llama")).module.inv_freq.numpy()
    if not np.array_equal(buffer, inv_freq(config, "float32")):
        pytest.skip("torch's pow differs from the correctly rounded inv_freq on this CPU: the model "
                    "is then within the stated ulp bound, not the same table (see "
                    "test_the_hf_model_is_within_its_stated_ulps_of_the_real_class)")
    document = _run_audit(tuple(_AUDITS["default"]), baseline=False)
    real, model = document, document["compare"][0]
    assert real["impl"] == "hf-transformers" and model["impl"] == "hf"
    assert real["safe_context"] == model["safe_context"]
    for a, b in zip(real["bands"], model["bands"]):
        assert abs(a["max_abs_error"] - b["max_abs_error"]) <= 0.02 * a["max_abs_error"]
