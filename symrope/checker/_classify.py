"""The generator's real Jordan form, block by block: what each direction of the encoding does.

For ``H(d) = e^{dX}`` every eigenvalue ``lambda = a + i b`` of ``X`` names a behaviour in the
offset ``d``: ``b > 0, a = 0`` a rotation plane of frequency ``b``; ``b > 0, a != 0`` a damped
rotation ``e^{a d} R(b d)``; ``b = 0, a != 0`` decay or growth ``e^{a d}``; ``lambda = 0`` a
direction the position does not touch (NoPE). A Jordan chain longer than one multiplies by a
polynomial in ``d`` (for ``lambda = 0`` that is a nilpotent shear, ALiBi's linear bias).
"""

from __future__ import annotations

import sympy as sp

from symrope.checker._shown import show

__all__ = ["classify_block", "summarise"]


def _jordan_chains(X: sp.Matrix, eigenvalue, multiplicity: int) -> list[int]:
    """Sizes of the Jordan blocks of ``eigenvalue``, from the ranks of ``(X - lambda I)^k``."""
    n = X.shape[0]
    shifted = X - eigenvalue * sp.eye(n)
    ranks = [n]
    power = sp.eye(n)
    while len(ranks) <= multiplicity + 1:
        power = (power * shifted).applyfunc(sp.expand)
        ranks.append(power.rank(simplify=True))
        if ranks[-1] == ranks[-2]:
            break
    # number of blocks of size >= k is rank(A^{k-1}) - rank(A^k)
    at_least = [ranks[k - 1] - ranks[k] for k in range(1, len(ranks))]
    sizes = []
    for k, count in enumerate(at_least, start=1):
        longer = at_least[k] if k < len(at_least) else 0
        sizes += [k] * (count - longer)
    return sorted(sizes, reverse=True)


def _eigenvalues(X: sp.Matrix) -> dict:
    """Eigenvalues with algebraic multiplicities (2x2 blocks in closed form, the rest by SymPy)."""
    if X.shape == (2, 2):
        trace, det = sp.expand(X.trace()), sp.expand(X.det())
        root = sp.sqrt(sp.expand(trace ** 2 / 4 - det))
        if root == 0:
            return {trace / 2: 2}
        return {sp.expand(trace / 2 + root): 1, sp.expand(trace / 2 - root): 1}
    return X.eigenvals(multiple=False)


def classify_block(X: sp.Matrix, indices: tuple[int, ...]) -> list[dict]:
    """The behaviours of one diagonal block of the generator, on the given coordinate indices."""
    X = sp.Matrix(X)
    if X.is_zero_matrix:
        return [{"kind": "zero", "indices": list(indices), "count": len(indices)}]
    normal = (X * X.T - X.T * X).applyfunc(sp.expand).is_zero_matrix
    found = []
    seen = set()
    eigenvalues = sorted(_eigenvalues(X).items(), key=lambda item: sp.default_sort_key(item[0]))
    for eigenvalue, multiplicity in eigenvalues:
        real, imag = sp.expand(sp.re(eigenvalue)), sp.expand(sp.im(eigenvalue))
        if imag.is_negative:
            continue  # its conjugate carries the pair
        key = sp.srepr(eigenvalue)
        if key in seen:
            continue
        seen.add(key)
        chains = [1] * multiplicity if multiplicity == 1 else \
            _jordan_chains(X, eigenvalue, multiplicity)
        entry = {"indices": list(indices), "eigenvalue": eigenvalue, "multiplicity": multiplicity,
                 "chains": chains, "rate": real, "frequency": imag, "normal": normal}
        polynomial = max(chains) > 1
        if imag.is_zero:
            if real.is_zero:
                entry["kind"] = "nilpotent_shear" if polynomial else "zero"
            else:
                entry["kind"] = "jordan" if polynomial else ("decay" if real.is_negative else
                                                              "growth" if real.is_positive
                                                              else "exponential")
        elif imag.is_positive:
            if polynomial:
                entry["kind"] = "jordan"
            else:
                entry["kind"] = "rotation" if real.is_zero else "damped_rotation"
        else:
            entry["kind"] = "undetermined"  # sign of the imaginary part unknown (symbolic)
        if entry["kind"] == "zero":
            entry["count"] = multiplicity
        found.append(entry)
    return found


_LABELS = {
    "rotation": "rotation planes",
    "damped_rotation": "damped rotations",
    "decay": "decay directions",
    "growth": "growth directions",
    "exponential": "exponential directions (sign of rate unknown)",
    "jordan": "Jordan (polynomial-in-offset) blocks",
    "nilpotent_shear": "nilpotent shears",
    "zero": "zero (NoPE) directions",
    "undetermined": "undetermined",
}


def summarise(behaviours: list[dict]) -> dict:
    """Group the behaviours of all blocks by kind, with JSON-friendly values."""
    groups: dict[str, list] = {}
    for b in behaviours:
        item = {"indices": b["indices"]}
        if b["kind"] != "zero":
            item.update({"eigenvalue": show(b["eigenvalue"]), "rate": show(b["rate"]),
                         "frequency": show(b["frequency"]), "jordan_chains": b["chains"],
                         "normal": b["normal"]})
        else:
            item["count"] = b["count"]
        groups.setdefault(b["kind"], []).append(item)
    return groups


def describe(groups: dict) -> list[str]:
    """Human-readable lines, one per kind of behaviour."""
    lines = []
    for kind, items in groups.items():
        label = _LABELS.get(kind, kind)
        if kind == "zero":
            count = sum(i["count"] for i in items)
            lines.append(f"{label}: {count} (indices {_indices(items)})")
            continue
        parts = []
        for item in items[:6]:
            if kind == "rotation":
                text = f"omega = {item['frequency']}"
            elif kind == "damped_rotation":
                text = f"rate {item['rate']}, omega = {item['frequency']}"
            elif kind in ("decay", "growth", "exponential"):
                text = f"rate {item['rate']}"
            else:
                text = f"eigenvalue {item['eigenvalue']}, chains {item['jordan_chains']}"
            if not item["normal"]:
                text += " (non-normal)"
            parts.append(f"{text} on {item['indices']}")
        more = f", ... ({len(items)} in all)" if len(items) > 6 else ""
        lines.append(f"{label} ({len(items)}): " + "; ".join(parts) + more)
    return lines


def _indices(items) -> str:
    flat = sorted(i for item in items for i in item["indices"])
    if len(flat) > 8:
        return f"{flat[0]}..{flat[-1]}, {len(flat)} in all"
    return ", ".join(map(str, flat))
