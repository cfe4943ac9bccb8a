"""Refinement of a block decomposition: float64 start, then Newton sweeps in fixed point.

Matrices here are numpy object arrays of Python integers at scale ``2^bits`` (the number
representation mpmath uses internally); products go through :func:`exact_matmul`. See
:func:`symrope.linalg.certified_skew_blocks` for the whole pipeline and the certificate.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from symrope.linalg._exact import exact_matmul

_mm = exact_matmul

__all__ = ["float_start", "to_fixed", "shift_round", "rounded_ratio", "orthogonalise", "sweep",
           "split_kernel"]

# ----------------------------------------------------------------------------- float64 start

def float_start(X: np.ndarray, zero_tolerance: float):
    """Orthonormal float64 ``Q0`` (planes, then kernel) and the number of planes."""
    n = X.shape[0]
    scale = np.max(np.abs(X))
    if scale == 0:
        return np.eye(n), 0
    values, vectors = np.linalg.eigh(1j * X)
    threshold = zero_tolerance * scale * n
    positive = [k for k in range(n - 1, -1, -1) if values[k] > threshold]
    columns = []
    for k in positive:
        columns += [math.sqrt(2) * vectors[:, k].real, math.sqrt(2) * vectors[:, k].imag]
    planes = np.array(columns).T if columns else np.zeros((n, 0))
    if planes.shape[1] < n:
        full, _ = np.linalg.qr(np.hstack([planes, np.eye(n)]) if planes.size else np.eye(n))
        kernel = full[:, planes.shape[1]:n]
        Q0 = np.hstack([planes, kernel])
    else:
        Q0 = planes
    return Q0, len(positive)


# ----------------------------------------------------------------------------- fixed point

def to_fixed(values: np.ndarray, bits: int) -> np.ndarray:
    """A float64 array as integers at scale ``2^bits`` (exact: ``ldexp`` only moves exponents)."""
    scaled = np.ldexp(values, bits)
    return np.array([int(v) for v in scaled.flat], dtype=object).reshape(values.shape)


def shift_round(matrix: np.ndarray, bits: int) -> np.ndarray:
    """Divide by ``2^bits``, rounding to nearest (object arrays of ints)."""
    if bits <= 0:
        return matrix * (1 << -bits)
    half = 1 << (bits - 1)
    return (matrix + half) >> bits


def rounded_ratio(numerator: int, denominator: int) -> int:
    return (2 * numerator + denominator) // (2 * denominator)


def _plane_frequencies(M: np.ndarray, planes: int) -> list[int]:
    return [(M[2 * a + 1, 2 * a] - M[2 * a, 2 * a + 1]) // 2 for a in range(planes)]


def _clusters(omegas: list[int], gap: int) -> list[list[int]]:
    """Planes whose frequencies chain together within ``gap``: groups of two or more."""
    order = sorted(range(len(omegas)), key=lambda a: omegas[a])
    groups, current = [], order[:1]
    for previous, a in zip(order, order[1:]):
        if omegas[a] - omegas[previous] <= gap:
            current.append(a)
        else:
            groups.append(current)
            current = [a]
    groups.append(current)
    return [g for g in groups if len(g) > 1]


def _diagonalise_clusters(Q, M, clusters, bits):
    """Rotate each cluster of close planes so that ``M`` restricted to it is block diagonal.

    The parts of ``M``'s cluster blocks that commute with ``J`` (``alpha I + beta J``) form a
    complex anti-Hermitian matrix ``Z`` (``J`` acting as ``i``); Newton cannot divide by the
    tiny ``omega_a - omega_b``, so ``-iZ = U diag(mu) U^*`` is diagonalised directly (mpmath
    ``eighe``) and ``U`` acts on the planes as the orthogonal matrix with blocks
    ``Re(U_ab) I + Im(U_ab) J``. The anticommuting parts are left to Newton.
    """
    for cluster in clusters:
        m = len(cluster)
        columns = [c for a in cluster for c in (2 * a, 2 * a + 1)]
        with mpmath.workprec(bits + 32):
            H = mpmath.matrix(m, m)
            for i, a in enumerate(cluster):
                for j, b in enumerate(cluster):
                    m00, m01 = M[2 * a, 2 * b], M[2 * a, 2 * b + 1]
                    m10, m11 = M[2 * a + 1, 2 * b], M[2 * a + 1, 2 * b + 1]
                    alpha = mpmath.ldexp(mpmath.mpf(int(m00 + m11)), -bits - 1)
                    beta = mpmath.ldexp(mpmath.mpf(int(m10 - m01)), -bits - 1)
                    H[i, j] = mpmath.mpc(beta, -alpha)
            for i in range(m):  # exactly Hermitian (fixed-point rounding is not symmetric)
                H[i, i] = mpmath.mpc(H[i, i].real, 0)
                for j in range(i + 1, m):
                    average = (H[i, j] + mpmath.conj(H[j, i])) / 2
                    H[i, j], H[j, i] = average, mpmath.conj(average)
            _, U = mpmath.eighe(H)
            W = np.zeros((2 * m, 2 * m), dtype=object)
            for i in range(m):
                for j in range(m):
                    re = int(mpmath.nint(mpmath.ldexp(U[i, j].real, bits)))
                    im = int(mpmath.nint(mpmath.ldexp(U[i, j].imag, bits)))
                    W[2 * i, 2 * j], W[2 * i, 2 * j + 1] = re, -im
                    W[2 * i + 1, 2 * j], W[2 * i + 1, 2 * j + 1] = im, re
        Q[:, columns] = shift_round(_mm(Q[:, columns], W), bits)
        M[:, columns] = shift_round(_mm(M[:, columns], W), bits)
        M[columns, :] = shift_round(_mm(W.T, M[columns, :]), bits)
    return Q, M


def orthogonalise(Q, bits):
    """One Newton-Schulz step ``Q (3I - Q^T Q) / 2``: squares the distance from orthogonality."""
    correction = -shift_round(_mm(Q.T, Q), bits)
    for i in range(Q.shape[1]):
        correction[i, i] += 3 << bits
    return shift_round(_mm(Q, correction), bits + 1)


def sweep(Q, x_fixed, planes, bits):
    """One refinement sweep at ``bits``: orthogonalise, split clusters, Newton correction."""
    one = 1 << bits
    Q = orthogonalise(Q, bits)
    M = shift_round(_mm(Q.T, shift_round(_mm(x_fixed, Q), bits)), bits)
    # Planes closer than 2^-20 (X scaled to max entry ~1) are diagonalised together: float64
    # eigenvectors cannot separate them, and Newton would divide by their tiny gap.
    clusters = _clusters(_plane_frequencies(M, planes), one >> 20)
    Q, M = _diagonalise_clusters(Q, M, clusters, bits)
    cluster_of = {a: index for index, group in enumerate(clusters) for a in group}
    K = _newton_correction(M, planes, one, cluster_of)
    return Q + shift_round(_mm(Q, K), bits), K


def split_kernel(Q, x_fixed, planes, bits, negligible, zero_tolerance):
    """Split rotation planes off the kernel block of ``Q^T X Q`` when it is not negligible.

    Returns ``(Q, number of new planes)``; the new planes follow the old ones, then the kernel.
    """
    n = Q.shape[0]
    start = 2 * planes
    if n - start < 2:
        return Q, 0
    kernel = Q[:, start:]
    block = shift_round(_mm(kernel.T, shift_round(_mm(x_fixed, kernel), bits)), bits)
    largest = max(abs(int(v)) for v in block.flat)
    if largest <= negligible:
        return Q, 0
    # The block's own float64 decomposition, scaled to entries of size ~1.
    scaled = np.array([[int(v) / largest for v in row] for row in block])
    scaled = (scaled - scaled.T) / 2
    rotation, found = float_start(scaled, zero_tolerance)
    if not found:
        return Q, 0
    Q = Q.copy()
    Q[:, start:] = shift_round(_mm(kernel, to_fixed(rotation, bits)), bits)
    return Q, found


def _newton_correction(M: np.ndarray, planes: int, one: int, cluster_of: dict) -> np.ndarray:
    """Skew ``K`` (fixed point, scale ``one``) with ``omega_a J K_ab - K_ab omega_b J = -M_ab``.

    Commuting parts (``alpha I + beta J``) of the ``(a, b)`` block are divided by
    ``omega_a - omega_b``, anticommuting parts by ``omega_a + omega_b``; within a cluster of
    close planes (``cluster_of``) the commuting part was diagonalised directly and is skipped.
    """
    n = M.shape[0]
    K = np.zeros((n, n), dtype=object)
    omegas = _plane_frequencies(M, planes)
    for a in range(planes):
        ra, wa = 2 * a, omegas[a]
        for b in range(a + 1, planes):
            rb, wb = 2 * b, omegas[b]
            m00, m01, m10, m11 = M[ra, rb], M[ra, rb + 1], M[ra + 1, rb], M[ra + 1, rb + 1]
            alpha, beta = (m00 + m11) // 2, (m10 - m01) // 2     # commuting part alpha I + beta J
            gamma, delta = (m00 - m11) // 2, (m01 + m10) // 2    # anticommuting gamma S + delta T
            k = [[0, 0], [0, 0]]
            same_cluster = a in cluster_of and cluster_of.get(a) == cluster_of.get(b)
            if not same_cluster and wa != wb:  # J (alpha I + beta J) / (wa - wb)
                d = wa - wb
                c00, c01 = rounded_ratio(-beta * one, d), rounded_ratio(-alpha * one, d)
                k = [[c00, c01], [-c01, c00]]
            s = wa + wb  # J (gamma S + delta T) / (wa + wb) = (gamma T - delta S) / s
            g, e = rounded_ratio(gamma * one, s), rounded_ratio(delta * one, s)
            block = [[k[0][0] - e, k[0][1] + g], [k[1][0] + g, k[1][1] + e]]
            for i in range(2):
                for j in range(2):
                    K[ra + i, rb + j] = block[i][j]
                    K[rb + j, ra + i] = -block[i][j]
        for z in range(2 * planes, n):  # plane a against kernel vector z: K = J M_az / omega_a
            k0 = rounded_ratio(-M[ra + 1, z] * one, wa)
            k1 = rounded_ratio(M[ra, z] * one, wa)
            K[ra, z], K[ra + 1, z] = k0, k1
            K[z, ra], K[z, ra + 1] = -k0, -k1
    return K
