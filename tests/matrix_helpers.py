"""Helpers shared by the tests: nothing here uses symrope's engine."""

import sympy as sp


def explicit_matrix(value):
    """An explicit Matrix for a (block) matrix expression, multiplied out factor by factor.

    Independent of the engine, and fast: SymPy's own ``MatMul.as_explicit`` goes through
    symbolic sums over block matrices.
    """
    if isinstance(value, sp.MatrixBase):
        return sp.Matrix(value)
    if isinstance(value, sp.MatMul):
        result = None
        for factor in value.args:
            factor = explicit_matrix(factor) if isinstance(factor, (sp.MatrixBase, sp.MatrixExpr)) \
                else factor
            result = factor if result is None else result * factor
        return sp.Matrix(result)
    if isinstance(value, sp.MatAdd):
        return sp.Matrix(sum((explicit_matrix(term) for term in value.args[1:]),
                             explicit_matrix(value.args[0])))
    if isinstance(value, sp.Transpose):
        return explicit_matrix(value.arg).T
    if isinstance(value, sp.Inverse):
        return explicit_matrix(value.arg).inv()
    if isinstance(value, sp.MatrixExpr):
        return sp.Matrix(value.as_explicit())
    return value  # a scalar
