"""The core's IDA (crates/atmsim-core/src/coding/) against `galois`, an
independent GF(2^m) library for numpy: the same field (GF(2^8) modulo
x^8 + x^4 + x^3 + x^2 + 1, 0x11D), the matrices built from its arithmetic,
the pieces as its matrix products, and reconstruction as its matrix inverse.
"""
import galois  # the `test` extra
import numpy as np
import pytest

from atmsim import _core

GF = galois.GF(2**8, irreducible_poly=0x11D)
CELL = 48


def reference_matrix(kind: str, n: int, m: int):
    """Rabin's N x m matrix from galois' arithmetic: Vandermonde on 0..N-1, Cauchy 1/(p_i + q_j)."""
    i = GF(np.arange(n))[:, None]
    j = np.arange(m)[None, :]
    if kind == "vandermonde":
        return i ** j
    return GF(1) / (GF(np.arange(n) + m)[:, None] + GF(np.arange(m))[None, :])


def as_gf(rows):
    return GF(np.array([list(r) for r in rows], dtype=np.uint8))


@pytest.mark.parametrize("kind, n, m", [("vandermonde", 256, 11), ("vandermonde", 40, 32), ("cauchy", 200, 56)])
def test_dispersal_matrix_is_the_reference_matrix(kind, n, m):
    assert np.array_equal(as_gf(_core.ida_matrix(kind, n, m)), reference_matrix(kind, n, m))


def test_field_is_not_the_aes_field():
    # With m = 2, piece 0x53 of cells (0, c) is 0x53 * c: 0x53 x 0xCA = 0x8F in 0x11D (0x01 in
    # AES's 0x11B), and galois agrees.
    piece = _core.ida_disperse("vandermonde", 256, 2, bytes(CELL) + bytes([0xCA]) * CELL, CELL, [0x53])[0]
    assert piece == bytes([0x8F]) * CELL == bytes([int(GF(0x53) * GF(0xCA))]) * CELL


@pytest.mark.parametrize("kind, n, m, length", [("vandermonde", 64, 11, 512), ("vandermonde", 256, 192, 9180),
                                                ("cauchy", 100, 32, 1518)])
def test_pieces_are_the_reference_products_and_any_m_rebuild(kind, n, m, length):
    rng = np.random.default_rng([n, m, length])
    segment = rng.integers(0, 256, length, dtype=np.uint8).tobytes()
    indices = sorted(rng.choice(n, size=min(n, m + 8), replace=False).tolist())
    pieces = _core.ida_disperse(kind, n, m, segment, CELL, indices)
    cells = GF(np.frombuffer(segment.ljust(m * CELL, b"\0"), dtype=np.uint8).reshape(m, CELL))
    X = reference_matrix(kind, n, m)
    assert np.array_equal(as_gf(pieces), X[indices] @ cells)
    for trial in range(5):
        pick = sorted(rng.choice(len(indices), size=m, replace=False).tolist())
        chosen = [(indices[k], pieces[k]) for k in pick]
        # galois' inverse of the chosen rows rebuilds the cells ...
        rows = [i for i, _ in chosen]
        rebuilt = np.linalg.inv(X[rows]) @ as_gf([p for _, p in chosen])
        assert np.array_equal(rebuilt, cells)
        # ... and so does the core, in any order and with duplicates.
        shuffled = [chosen[k] for k in rng.permutation(m)] + chosen[:2]
        assert _core.ida_reconstruct(kind, n, m, shuffled, length) == segment


def test_fewer_than_m_pieces_refuse():
    segment = bytes(range(200))
    pieces = _core.ida_disperse("vandermonde", 16, 5, segment, CELL, [0, 3, 7, 9])
    with pytest.raises(ValueError, match="4 distinct pieces, 5 needed"):
        _core.ida_reconstruct("vandermonde", 16, 5, list(zip([0, 3, 7, 9], pieces)), len(segment))
