"""Lift real RoPE code into exact SymPy semantics and check the code itself.

``lift(function, head_dim, position_dims)`` runs ``function(q, k, positions)`` on a sequence of
symbolic tokens (each with its own content vector and position) and returns an
:class:`~symrope.Encoding`; ``check_lifted`` checks it (every token pair when the code mixes
tokens), lists its precision hazards and replays counterexamples through the real code in
float64. ``lift_impl(spec)`` builds the encoding for a library of the registry of real
implementations (``symrope.audit.libraries()``: ``hf-transformers``, ``torchtune``, ``timm``,
``rotary-embedding-torch[:xpos]``, ...; ``IMPLS`` names them), ``lift_library`` for a registry
entry and a schedule; ``lift_hf_all`` every lift a transformers model type needs (one per rope
layer type; M-RoPE and its text-token reduction).

Importing this package imports no framework: a function's framework is detected when it is
lifted (``_backends.py``), and only then imported.
"""

from symrope.lifting._errors import LiftUndecided
from symrope.lifting._encoding import LiftedEncoding, TokenRows, relate_tokens
from symrope.lifting._lift import CASTS_NOTE, TOKENS, lift
from symrope.lifting._report import annotate, check_lifted
from symrope.lifting._adapters import IMPLS, lift_impl, lift_library, registered
from symrope.lifting._hf import HFRope, head_dim_of, hf_rope
from symrope.lifting._hf_lift import lift_hf, lift_hf_all, module_frequencies
from symrope.lifting._store import FORMAT as SAVED_LIFT_FORMAT
from symrope.lifting._store import LIMITS as SAVED_LIFT_LIMITS
from symrope.lifting._store import (bad_saved_lift, dump_lift, expressions_to_table,
                                    load_lift_document, table_to_expressions)
from symrope.lifting._audit import audit_summary, schedule_of
from symrope.lifting._conformance import (TASK_LIMIT, check_model_type, conformance,
                                          conformance_counts, conformance_markdown,
                                          conformance_table)
from symrope.lifting._assertions import assert_precise, assert_relative
from symrope.audit import positions_for_arange

__all__ = ["lift", "check_lifted", "annotate", "lift_impl", "lift_library", "registered",
           "LiftedEncoding", "TokenRows", "LiftUndecided", "CASTS_NOTE", "TOKENS", "IMPLS", "lift_hf", "lift_hf_all",
           "positions_for_arange", "audit_summary", "schedule_of", "conformance",
           "check_model_type", "conformance_counts", "conformance_markdown", "conformance_table",
           "TASK_LIMIT", "assert_relative", "assert_precise", "relate_tokens", "HFRope", "hf_rope",
           "head_dim_of", "module_frequencies", "SAVED_LIFT_FORMAT", "SAVED_LIFT_LIMITS", "expressions_to_table",
           "table_to_expressions", "dump_lift", "load_lift_document", "bad_saved_lift"]
