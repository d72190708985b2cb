"""The fixed-function parts of the instructions the IR models.

GF2P8AFFINEINVQB inverts in AES's field and AESENCLAST applies AES's S-box and
ShiftRows: these are facts of the instruction set, so they are taken from the
AES spec (the one place AES is described) and computed with linalg.  Backends
read them from here when they lower onto those instructions.
"""

from functools import lru_cache

from ..linalg import BitMatrix, Field, gf2p8affineinvqb, gf2p8affineqb
from ..specs import aes

SHIFT_ROWS = aes.SHIFT_ROWS
AES_SBOX_CONSTANT = aes.SBOX_AFFINE_CONSTANT


@lru_cache(maxsize=None)
def aes_sbox_linear():
    """The linear part of SubBytes' affine map, as a BitMatrix."""
    rows = [sum(1 << src for src in aes.sbox_affine_bit_sources(i)) for i in range(8)]
    return BitMatrix(tuple(rows), 8)


@lru_cache(maxsize=None)
def gf_inverse_table():
    return Field(aes.FIELD_POLY).inverse_table()


@lru_cache(maxsize=None)
def aes_sbox_table():
    linear = aes_sbox_linear()
    return tuple(linear.apply(y) ^ AES_SBOX_CONSTANT for y in gf_inverse_table())


def gf2p8affine_bytes(x, matrix_bytes, imm, invert):
    """GF2P8AFFINE(INV)QB on a whole vector: each 8-byte group of x uses the
    qword at the same position of matrix_bytes."""
    qwords = [int.from_bytes(matrix_bytes[i:i + 8], "little") for i in range(0, len(matrix_bytes), 8)]
    model = gf2p8affineinvqb if invert else gf2p8affineqb
    return bytes(model(bytes(x), qwords, imm))
