"""Precision audit of float RoPE implementations against a certified high-precision reference.

``symrope audit`` on the command line; from Python::

    from symrope.audit import audit, AuditOptions
    from symrope.schedules import llama31_8b
    result = audit("hf", llama31_8b(), AuditOptions(max_position=131071, dtype="fp32"))

See ``README.md`` in this folder for the layout. Torch is never imported here: the real
libraries (``_hf.py``, ``_real*.py``) and the fix (``symrope.audit.fix.patch_rotary``) import it
only when called.
"""

from symrope.audit._driver import audit
from symrope.audit._results import (DEFAULT_TOLERANCE, AuditOptions, AuditResult, BandSummary,
                                    ExactSchedule, Implementation, as_implementation,
                                    exact_schedule)
from symrope.audit._real import EXTRA, REAL_IMPLS, real_impl
from symrope.audit.fix import RotaryPatch, patch_rotary
from symrope.audit._metrics import (amplitude_error, bits_of_error, log_bands, machine_epsilon,
                                    ordinal, phase_error, random_query_key_weights, round_to,
                                    rotary_scores, ulps_between)
from symrope.audit._models import MODELS, ImplModel, get_model
from symrope.audit._reference import (MAX_POSITION, REFERENCE_TOLERANCE, Certificate, Reference,
                                      certification_sample, check_positions, mp_cos_sin)
from symrope.audit._report import SCHEMA, AuditReport
from symrope.audit._user import UserImpl, load_user_impl

__all__ = [
    "DEFAULT_TOLERANCE", "EXTRA", "MAX_POSITION", "MODELS", "REAL_IMPLS", "REFERENCE_TOLERANCE",
    "SCHEMA", "RotaryPatch",
    "AuditOptions", "AuditReport", "AuditResult", "BandSummary", "Certificate", "ExactSchedule",
    "ImplModel", "Implementation", "Reference", "UserImpl",
    "amplitude_error", "as_implementation", "audit", "bits_of_error", "certification_sample",
    "check_positions", "exact_schedule", "get_model", "load_user_impl", "log_bands",
    "machine_epsilon", "mp_cos_sin", "ordinal", "phase_error", "random_query_key_weights",
    "patch_rotary", "real_impl", "round_to", "rotary_scores", "ulps_between",
]
