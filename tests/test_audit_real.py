"""Real RoPE libraries audited through their own code, against the reference and the models.

The tests that every library must pass are parametrised by the registry of real implementations
(``symrope.audit.libraries()``): a library is tested by being registered. The figures of each
library follow them.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from audit_libraries import ROOT, SCHEDULE_BUILT, require_entry, require_library
from symrope.audit import (AuditOptions, audit, build_library, exact_schedule, get_model,
                           libraries, libraries_table)
from symrope.audit._dtypes import widen
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, inv_freq, llama31_8b

CONFIG = RopeConfig.from_options(head_dim=64, theta=10000)
POSITIONS = np.concatenate([np.arange(0, 2048), np.arange(1_000_000, 1_000_512)])


def table_error(cos, sin, config=CONFIG, positions=POSITIONS):
    exact_cos, exact_sin, _ = exact_schedule(config).reference.cos_sin(positions)
    wide = [widen(part) for part in (cos, sin)]
    return np.maximum(np.abs(wide[0] - exact_cos), np.abs(wide[1] - exact_sin))


def ulps_apart(a, b) -> np.ndarray:
    """How many float32 steps apart ``a`` and ``b`` are (same sign assumed)."""
    a, b = (np.asarray(v, dtype=np.float32).view(np.int32).astype(np.int64) for v in (a, b))
    return np.abs(a - b)


def test_torchtune_is_its_own_float32_angle_and_within_an_ulp_of_the_meta_model():
    require_library("torchtune")
    torch = require_library("torch")
    from symrope.audit._models import _cos_sin_fp32
    from symrope.schedules import inv_freq

    impl = build_library("torchtune", CONFIG)
    cos, sin = impl.table(POSITIONS, CONFIG, "fp32")
    # the module's own float32 theta, times the float32 position, through torch's cos kernel,
    # is the real cache bit for bit (one library, one CPU: nothing SIMD-dependent is compared)
    theta = impl.module.theta.numpy()
    angle = POSITIONS.astype(np.float32)[:, None] * theta[None, :]
    assert np.array_equal(cos, torch.cos(torch.from_numpy(angle)).numpy())
    assert np.array_equal(sin, torch.sin(torch.from_numpy(angle)).numpy())
    # the model's frequencies are the correctly rounded pow; torch's pow is within 1 ulp of it
    model_omega = inv_freq(CONFIG, "float32")
    assert ulps_apart(model_omega, theta).max() <= 1
    # given the same angle, the model's cos is within one float32 ulp of torch's kernel
    model_cos, _ = _cos_sin_fp32(angle)
    assert np.all(np.abs(model_cos - cos) <= np.spacing(np.abs(cos)))
    assert "Approximation" in get_model("meta").summary
    # the rotation runs in float32 and casts back: a bf16 table is the float32 one rounded
    cos16, _ = impl.table(POSITIONS, CONFIG, "bf16")
    assert np.array_equal(cos16.astype(np.float32), cos.astype(cos16.dtype).astype(np.float32))
    # the fp32 angle error at 1M positions: ~2^-24 * 1e6 ~ 0.03-0.06
    assert 0.01 < table_error(cos, sin).max() < 0.1


def test_the_hf_model_is_within_its_stated_ulps_of_the_real_class():
    torch = require_library("torch")
    require_library("transformers")
    from symrope.audit import hf_transformers_impl
    from symrope.audit._models import _cos_sin_fp32
    from symrope.schedules import inv_freq

    for config in (llama31_8b(), CONFIG, RopeConfig.from_options(head_dim=96, theta=1234567.0)):
        impl = hf_transformers_impl(dict(config.hf_dict(), model_type="llama"))
        cos, sin = impl.table(POSITIONS, config, "fp32")
        buffer = impl.module.inv_freq.numpy()
        # the label's claims, on this CPU: inv_freq within 1 ulp (torch's pow vs the exact value
        # rounded once) ...
        assert ulps_apart(inv_freq(config, "float32"), buffer).max() <= 1
        # ... the real forward is fl32(fl32(p) * inv_freq) through torch's cos ...
        angle = POSITIONS.astype(np.float32)[:, None] * buffer[None, :]
        assert np.array_equal(cos, torch.cos(torch.from_numpy(angle)).numpy())
        # ... and the model's cos/sin of that angle within 1 float32 ulp of torch's
        model_cos, model_sin = _cos_sin_fp32(angle)
        assert np.all(np.abs(model_cos - cos) <= np.spacing(np.abs(cos)))
        assert np.all(np.abs(model_sin - sin) <= np.spacing(np.abs(sin)))
    assert "Approximation of the real class" in get_model("hf").summary
    assert "1 ulp" in get_model("hf").summary


def test_rotary_embedding_torch_rounds_positions_to_the_input_dtype():
    require_library("rotary_embedding_torch")
    impl = build_library("rotary-embedding-torch", CONFIG)
    cos32, sin32 = impl.table(POSITIONS, CONFIG, "fp32")
    assert table_error(cos32, sin32).max() < 0.1
    # rotate_queries_or_keys builds its positions in t.dtype: in bf16, 1000001 reads 999424 and
    # cos/sin are off by up to 2 (a finding about the real library, not a model of it)
    cos16, sin16 = impl.table(POSITIONS, CONFIG, "bf16")
    error = table_error(cos16, sin16)
    assert error[:257].max() <= 2.0**-8 and error[-512:].max() > 1.9
    rounded = np.float32(POSITIONS[-1]).astype("float32")
    assert rounded == POSITIONS[-1]   # fp32 holds it: the bf16 error is the dtype's, not ours


def test_keras_hub_rotates_in_the_compute_dtype():
    require_library("keras_hub")
    impl = build_library("keras-hub", CONFIG)
    cos, sin = impl.table(POSITIONS, CONFIG, "fp32")
    assert table_error(cos, sin).max() < 0.1
    cos16, _ = impl.table(POSITIONS[:2048], CONFIG, "bf16")
    assert cos16.dtype.name == "bfloat16"
    with pytest.raises(UsageError, match="keras-hub has default, linear RoPE only"):
        build_library("keras-hub", llama31_8b())


def test_xpos_table_is_relative_to_the_exact_scale_and_overflows_past_90k():
    require_library("rotary_embedding_torch")
    short = build_library("rotary-embedding-torch-xpos", CONFIG)
    result = audit(short, CONFIG, AuditOptions(max_position=4095, dtype="fp32", progress=False))
    assert result.worst("max_abs_error") < 1e-3 and result.dtype == "fp32"
    long = build_library("rotary-embedding-torch-xpos", CONFIG)
    long.prepare(131071)
    cos, _ = long.table(np.array([0, 65536, 131071]), CONFIG, "fp32")
    assert not np.isfinite(cos[0]).all()   # q scale 0.29^(-65536/512) underflows float32


def test_timm_axial_rope_along_one_axis():
    require_library("timm")
    impl = build_library("timm", CONFIG)
    cos, sin = impl.table(POSITIONS, CONFIG, "fp32")
    assert cos.shape == (POSITIONS.size, 32)
    assert table_error(cos, sin).max() < 0.1
    # timm's bands are its own float32 pow (within 1 ulp of the correctly rounded schedule): the
    # table is within the angle error those allow of the model's, whatever the CPU
    model_cos, _ = get_model("hf").table(POSITIONS, CONFIG, "fp32")
    bound = POSITIONS[:, None] * np.spacing(inv_freq(CONFIG, "float32"))[None, :] * 2 + 2e-7
    assert np.all(np.abs(widen(cos) - widen(model_cos)) <= bound)


# --- every registered library ------------------------------------------------------------------

YARN = RopeConfig.from_options(head_dim=64, theta=10000, rope_scaling={
    "rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4096})
PARTIAL = RopeConfig.from_options(head_dim=64, theta=10000, partial_rotary_factor=0.5)


@pytest.mark.parametrize("library", libraries(), ids=lambda library: library.name)
def test_every_library_audits_plain_rope_through_its_own_code(library):
    require_entry(library)
    assert library.installed()   # found by find_spec, as the registry detects it
    impl = build_library(library.name, CONFIG)
    impl.prepare(int(POSITIONS[2047]))
    cos, sin = impl.table(POSITIONS[:2048], CONFIG, "fp32")
    assert cos.shape == sin.shape == (2048, CONFIG.pairs)
    # the float32 angle of positions below 2048 is good to ~1e-4: a wrong pairing (the table is
    # read from the declared channels) or a wrong schedule would be off by O(1)
    assert table_error(cos, sin, positions=POSITIONS[:2048]).max() < 1e-3
    assert impl.summary and isinstance(impl.explanation("bf16"), str)
    result = audit(impl, CONFIG, AuditOptions(max_position=1023, dtype="fp32", progress=False))
    assert result.impl == library.name and result.first_failure is None
    assert result.fix_target == impl.fix_target


@pytest.mark.parametrize("library", [lib for lib in libraries() if lib.cannot_express(YARN)],
                         ids=lambda library: library.name)
def test_unsupported_schedules_are_one_line_usage_errors(library):
    require_entry(library)
    with pytest.raises(UsageError, match=f"{library.name} has .* RoPE only, not 'yarn'"):
        build_library(library.name, YARN)
    plain, note = library.fallback(YARN)   # what symrope audit runs instead, and says so
    assert plain.rope_type == "default" and plain.head_dim == 64 and "plain RoPE" in note


@pytest.mark.parametrize("library", SCHEDULE_BUILT, ids=lambda library: library.name)
def test_partial_rotary_is_refused_only_by_libraries_that_rotate_the_whole_head(library):
    require_entry(library)
    if not library.partial_rotary:
        with pytest.raises(UsageError, match=f"{library.name} rotates the whole head: partial "
                                             r"rotary \(rotary_dim 32 of 64\)"):
            build_library(library.name, PARTIAL)
    else:
        impl = build_library(library.name, PARTIAL)
        assert impl.rope_config.rotary_dim == 32
        cos, sin = impl.table(POSITIONS[:256], PARTIAL, "fp32")
        assert table_error(cos, sin, PARTIAL, POSITIONS[:256]).max() < 1e-4


DOCS_PAGE = ROOT / "docs" / "audit-real.md"


def docs_with_the_registrys_table(page: str) -> str:
    """``page`` with its table of real implementations (the Markdown table whose header is the
    registry's) replaced by ``libraries_table()``."""
    lines, table = page.split("\n"), libraries_table()
    start = lines.index(table[0])
    stop = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[:start] + table + lines[stop:])


def test_the_docs_table_of_real_implementations_is_the_registry():
    page = DOCS_PAGE.read_text(encoding="utf-8")
    assert docs_with_the_registrys_table(page) == page, (
        "docs/audit-real.md: its table of real implementations is not the registry's; "
        "regenerate it: python tests/test_audit_real.py --update-docs")


def test_every_library_is_installed_by_the_extra_it_names():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = extras["project"]["optional-dependencies"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    installed_by_ci = {extra for group in re.findall(r'-e "\.\[([\w,-]+)\]"', ci)
                       for extra in group.split(",")}
    for library in libraries():
        assert library.extra in extras and library.extra in installed_by_ci, library.name
        # in the extra, or installed beside it by .ci/run (keras-hub: --no-deps)
        assert library.requirement in extras[library.extra] or \
            f'"{library.requirement}"' in ci, library.name


def test_the_registry_refuses_an_entry_that_does_not_declare_the_protocol():
    from symrope.audit import Library
    from symrope.audit._libraries import _check

    class Undeclared(Library):
        name = "undeclared"

        def _rotate(self, x, positions):
            return x

    with pytest.raises(TypeError, match="declares no imports, requirement, runs, table_is"):
        _check(Undeclared, "test", [])

    class Declared(Undeclared):
        imports, requirement, runs, table_is = ("torch",), "torch", "it", "its table"

    _check(Declared, "test", [])
    with pytest.raises(TypeError, match="names undeclared again"):
        _check(Declared, "test", [Declared])
    Declared.pairing = "halves"
    with pytest.raises(TypeError, match="pairing is 'halves'"):
        _check(Declared, "test", [])
    Declared.pairing, Declared.lift = "interleaved", "schedule"
    with pytest.raises(TypeError, match="has no lift_target"):
        _check(Declared, "test", [])
    with pytest.raises(TypeError, match="not a concrete"):
        _check(Library, "test", [])


def test_an_unknown_or_unbuildable_name_is_one_line():
    with pytest.raises(UsageError, match="unknown real implementation 'nope' .one of: "
                                         "hf-transformers, torchtune"):
        build_library("nope", CONFIG)
    with pytest.raises(UsageError, match="--impl torchtune takes no model_type"):
        build_library("torchtune", CONFIG, model_type="llama")
    with pytest.raises(UsageError, match="act on --impl hf-transformers, not 'timm'"):
        build_library("timm", CONFIG, tf32=True)


if __name__ == "__main__":   # python tests/test_audit_real.py --update-docs
    import sys

    if sys.argv[1:] != ["--update-docs"]:
        sys.exit("usage: python tests/test_audit_real.py --update-docs")
    DOCS_PAGE.write_text(docs_with_the_registrys_table(DOCS_PAGE.read_text(encoding="utf-8")),
                         encoding="utf-8")
    print(f"{DOCS_PAGE.relative_to(ROOT)}: table of real implementations regenerated")
