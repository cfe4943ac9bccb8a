"""Precision audit of float RoPE implementations against a certified high-precision reference.

``symrope audit`` on the command line; from Python::

    from symrope.audit import audit, AuditOptions
    from symrope.schedules import llama31_8b
    result = audit("hf", llama31_8b(), AuditOptions(max_position=131071, dtype="fp32"))

See ``README.md`` in this folder for the layout. Torch is never imported here: the real
libraries (the registry's entries, ``_libraries/``) and the fix
(``symrope.audit.fix.patch_rotary``) import it only when called.
"""

from symrope.audit._driver import audit
from symrope.audit._results import (DEFAULT_TOLERANCE, AuditOptions, AuditResult, BandSummary,
                                    ExactSchedule, Implementation, as_implementation,
                                    exact_schedule)
from symrope.audit._real import Library, LiftTarget
from symrope.audit._libraries import (DEFAULT_LIBRARY, build_library, default_implementation,
                                      fallback_schedule, implementation_names, libraries,
                                      libraries_table, library_names, lift_help, lift_specs,
                                      resolve_implementation, survey_cost, surveyed_names)
from symrope.audit._hf_config import (build_hf_config, hf_rotary_class, inv_freq_buffer,
                                      rope_config_of, rope_model_types)
from symrope.audit._libraries.hf_transformers import hf_transformers_impl
from symrope.audit._torch import EXTRA, import_library, positions_for_arange
from symrope.audit.fix import RotaryPatch, patch_rotary
from symrope.audit._metrics import (amplitude_error, bits_of_error, log_bands, machine_epsilon,
                                    ordinal, phase_error, random_query_key_weights, round_to,
                                    rotary_scores, ulps_between)
from symrope.audit._models import MODELS, ImplModel, get_model
from symrope.audit._reference import (MAX_POSITION, REFERENCE_TOLERANCE, Certificate, Reference,
                                      certification_sample, check_positions, mp_cos_sin)
from symrope.audit._report import COLUMN_MEANINGS, SCHEMA, AuditReport
from symrope.audit._plot import plot_audits
from symrope.audit._session import audit_report
from symrope.audit._survey import SAMPLING as SURVEY_SAMPLING
from symrope.audit._survey import (EXPLAINING_MODELS, plot_survey, sample_positions, survey,
                                   survey_names, survey_table)
from symrope.audit._user import UserImpl, import_user_module, load_user_impl

__all__ = [
    "COLUMN_MEANINGS", "DEFAULT_LIBRARY", "DEFAULT_TOLERANCE", "EXPLAINING_MODELS", "EXTRA",
    "MAX_POSITION", "MODELS", "REFERENCE_TOLERANCE", "SCHEMA", "SURVEY_SAMPLING", "RotaryPatch",
    "AuditOptions", "AuditReport", "AuditResult", "BandSummary", "Certificate", "ExactSchedule",
    "ImplModel", "Implementation", "Library", "LiftTarget", "Reference", "UserImpl",
    "amplitude_error", "as_implementation", "audit", "audit_report", "bits_of_error",
    "build_hf_config", "build_library", "certification_sample", "check_positions",
    "default_implementation", "exact_schedule", "fallback_schedule", "get_model",
    "hf_rotary_class", "hf_transformers_impl", "implementation_names", "import_library",
    "import_user_module",
    "inv_freq_buffer", "libraries", "libraries_table", "library_names", "lift_help",
    "lift_specs", "load_user_impl", "log_bands", "machine_epsilon", "mp_cos_sin", "ordinal",
    "patch_rotary", "phase_error", "plot_audits", "plot_survey", "positions_for_arange",
    "random_query_key_weights", "resolve_implementation", "rope_config_of", "rope_model_types",
    "round_to", "rotary_scores", "sample_positions", "survey", "survey_cost", "survey_names",
    "survey_table", "surveyed_names", "ulps_between",
]
