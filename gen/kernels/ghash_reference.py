"""GHASH as NIST SP 800-38D writes it: the product of two blocks by the
shift-and-add of its Algorithm 1, and GHASH_H over a sequence of blocks.
Written from the spec, slow and plain: the tests hold the IR programs of
gen/kernels/ghash.py to it."""

from ..specs import gf128
from .gf128_reference import REDUCTION_REFLECTED

BLOCK_BITS = 8 * gf128.BLOCK_BYTES
# R = 11100001 || 0^120 (SP 800-38D 6.3): x^7 + x^2 + x + 1, bit-reflected so that
# bit 0 of the bit string (x^0) is the most significant bit of the 128-bit integer.
R = REDUCTION_REFLECTED << (BLOCK_BITS - 8)


def multiply(x, y):
    """X • Y of two 16-byte blocks (Algorithm 1 of SP 800-38D): Z accumulates V
    for every set bit x_i of X, V starts at Y and is multiplied by x each step
    (a right shift of the bit string, reduced by R when bit 127 falls out)."""
    x_bits, v = int.from_bytes(x, "big"), int.from_bytes(y, "big")
    z = 0
    for i in range(BLOCK_BITS):
        if x_bits >> (BLOCK_BITS - 1 - i) & 1:     # x_i: bit i of the string, counted from the left
            z ^= v
        v = v >> 1 ^ (R if v & 1 else 0)           # v_127 is the integer's least significant bit
    return z.to_bytes(gf128.BLOCK_BYTES, "big")


def xor(a, b):
    return bytes(p ^ q for p, q in zip(a, b))


def ghash(h, blocks, y=bytes(gf128.BLOCK_BYTES)):
    """GHASH_H of `blocks` (bytes, a whole number of blocks) from the state y:
    Y_i = (Y_(i-1) xor X_i) • H."""
    if len(blocks) % gf128.BLOCK_BYTES:
        raise ValueError(f"GHASH takes whole blocks, not {len(blocks)} bytes")
    for at in range(0, len(blocks), gf128.BLOCK_BYTES):
        y = multiply(xor(y, blocks[at:at + gf128.BLOCK_BYTES]), h)
    return y


def power(h, k):
    """H^k (k >= 1) by repeated multiplication."""
    out = h
    for _ in range(k - 1):
        out = multiply(out, h)
    return out


def gcm_blocks(aad, ciphertext):
    """GHASH's input for GCM (SP 800-38D 7.1 step 5): A and C each padded with
    zeros to whole blocks, then len(A) and len(C) in bits, 64 bits each, big-endian."""
    def padded(data):
        return data + bytes(-len(data) % gf128.BLOCK_BYTES)
    lengths = (8 * len(aad)).to_bytes(8, "big") + (8 * len(ciphertext)).to_bytes(8, "big")
    return padded(aad) + padded(ciphertext) + lengths
