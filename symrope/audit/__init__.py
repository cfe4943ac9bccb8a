"""Precision audit of float RoPE implementations against a certified high-precision reference.

``symrope audit`` on the command line; from Python::

    from symrope.audit import audit, AuditOptions
    from symrope.schedules import llama31_8b
    result = audit("hf", llama31_8b(), AuditOptions(max_position=131071, dtype="fp32"))

See ``README.md`` in this folder for the layout. Torch is never imported here: the real
transformers class lives in ``symrope.audit._hf`` and is loaded only for ``--impl hf-transformers``.
"""

from symrope.audit._driver import audit
from symrope.audit._results import (AuditOptions, AuditResult, BandSummary, ExactSchedule,
                                    Implementation, as_implementation, exact_schedule)
from symrope.audit._metrics import (amplitude_error, bits_of_error, log_bands, machine_epsilon,
                                    ordinal, phase_error, random_query_key_weights, round_to,
                                    rotary_scores, ulps_between)
from symrope.audit._models import MODELS, ImplModel, get_model
from symrope.audit._reference import (MAX_POSITION, REFERENCE_TOLERANCE, Certificate, Reference,
                                      certification_sample, check_positions, mp_cos_sin)
from symrope.audit._report import SCHEMA, AuditReport
from symrope.audit._user import load_user_impl

__all__ = [
    "MAX_POSITION", "MODELS", "REFERENCE_TOLERANCE", "SCHEMA",
    "AuditOptions", "AuditReport", "AuditResult", "BandSummary", "Certificate", "ExactSchedule",
    "ImplModel", "Implementation", "Reference",
    "amplitude_error", "as_implementation", "audit", "bits_of_error", "certification_sample",
    "check_positions", "exact_schedule", "get_model", "load_user_impl", "log_bands",
    "machine_epsilon", "mp_cos_sin", "ordinal", "phase_error", "random_query_key_weights",
    "round_to", "rotary_scores", "ulps_between",
]
