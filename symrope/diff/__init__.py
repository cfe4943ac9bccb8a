"""Are two real RoPE implementations the same encoding? Decided exactly.

``resolve(spec, ...)`` lifts an implementation (or loads a saved lift); ``diff(a, b)`` decides
``same``, ``same_up_to_basis`` (a signed permutation of the head dimensions that trained
``W_q``/``W_k`` absorb), ``different`` (named in the encoding's terms, with a certified
counterexample and the config keys to blame) or ``undecided``; ``save_lift`` writes a lift as
data (``symrope.lift/1``) that ``load_lift`` reads without executing anything.

This layer sits above the lift and the checker and below the command line
(``symrope/cli/README.md``).
"""

from symrope.diff._audit import side_by_side
from symrope.diff._latex import diff_document
from symrope.diff._ports import PORTS
from symrope.diff._report import VERDICTS, DiffReport, diff
from symrope.diff._resolve import is_saved_lift, load_lift, read_json_object, resolve, save_lift

__all__ = ["diff", "DiffReport", "VERDICTS", "resolve", "save_lift", "load_lift", "is_saved_lift",
           "read_json_object", "side_by_side", "diff_document", "PORTS"]
