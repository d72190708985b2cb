"""ARIA (RFC 5794; KS X 1213): what the cipher is.

A 16-byte block, keys of 16, 24 or 32 bytes and 12, 14 or 16 rounds.  Bytes are
numbered x0..x15 from the left; 128-bit values (blocks, keys, constants) are
big-endian.  An odd round is FO(D, RK) = A(SL1(D ^ RK)), an even one
FE(D, RK) = A(SL2(D ^ RK)); the last round is C = SL2(P ^ ek_n) ^ ek_(n+1), with
no diffusion.  SL1 applies SB1, SB2, SB3, SB4 to the bytes of each 4-byte
group, SL2 SB3, SB4, SB1, SB2.  A is an involution: each output byte is the XOR
of seven input bytes.

The S-boxes are maps of the AES field GF(2^8) = GF(2)[x]/(x^8+x^4+x^3+x+1), not
tables: SB1(x) = A1 x^-1 ^ 0x63 (AES's SubBytes), SB2(x) = B x^247 ^ 0xE2, and
SB3, SB4 their inverses.  Matrices use gen.linalg's convention: a byte's bit j
is the coefficient of x^j, and a matrix is given by its columns, the image of
bit j.

The key schedule: KL || KR is the key padded with zeros to 256 bits; W0 = KL,
W1 = FO(W0, CK1) ^ KR, W2 = FE(W1, CK2) ^ W0, W3 = FO(W2, CK3) ^ W1, where
CK1..CK3 are C1..C3 in an order set by the key length, and C1 || C2 || C3 are
the first 384 bits of the fractional part of 1/pi.  Round key 4g + i + 1 is
W_i ^ rot_g(W_(i+1)) for i = 0, 1, 2 and rot_g(W0) ^ W3 for i = 3, rot_g being
ROUND_KEY_ROTATIONS[g] (positive: left).  Decryption runs encryption with
ek_(n+1), A(ek_n), ..., A(ek_2), ek_1.
"""

from . import aes
from .validate import SpecError, check_irreducible

BLOCK_BYTES = 16
KEY_BYTES = (16, 24, 32)
ROUNDS = {16: 12, 24: 14, 32: 16}

FIELD_POLY = check_irreducible(aes.FIELD_POLY, 8, "ARIA's field (AES's)")

# SB1 = AES's S-box: the linear part's columns (the image of bit j), derived from
# FIPS 197's rule, and its constant.
SB1_COLUMNS = tuple(sum(1 << i for i in range(8) if j in aes.sbox_affine_bit_sources(i)) for j in range(8))
SB1_EXPONENT = -1
SB1_CONSTANT = aes.SBOX_AFFINE_CONSTANT
# SB2(x) = B x^247 ^ 0xE2 (the ARIA paper's second S-box): B's columns.
SB2_COLUMNS = (0xAC, 0xC5, 0x12, 0xCF, 0x5B, 0x5F, 0x85, 0xEE)
SB2_EXPONENT = 247
SB2_CONSTANT = 0xE2

# The substitution layers: S-box number (1..4; 3 and 4 the inverses of 1 and 2) for
# byte k of each 4-byte group.
SL1 = (1, 2, 3, 4)
SL2 = (3, 4, 1, 2)

# The diffusion layer: output byte i is the XOR of input bytes DIFFUSION[i].
DIFFUSION = (
    (3, 4, 6, 8, 9, 13, 14), (2, 5, 7, 8, 9, 12, 15), (1, 4, 6, 10, 11, 12, 15), (0, 5, 7, 10, 11, 13, 14),
    (0, 2, 5, 8, 11, 14, 15), (1, 3, 4, 9, 10, 14, 15), (0, 2, 7, 9, 10, 12, 13), (1, 3, 6, 8, 11, 12, 13),
    (0, 1, 4, 7, 10, 13, 15), (0, 1, 5, 6, 11, 12, 14), (2, 3, 5, 6, 8, 13, 15), (2, 3, 4, 7, 9, 12, 14),
    (1, 2, 6, 7, 9, 11, 12), (0, 3, 6, 7, 8, 10, 13), (0, 3, 4, 5, 9, 11, 14), (1, 2, 4, 5, 8, 10, 15),
)

# Round keys 1-4, 5-8, 9-12, 13-16, 17: their rotation of the 128-bit W (positive: left).
ROUND_KEY_ROTATIONS = (-19, -31, 61, 31, 19)
CONSTANT_BITS = 128
CONSTANT_COUNT = 3


def one_over_pi_fraction(bits):
    """The first `bits` bits of the fractional part of 1/pi, as an int: pi by Machin's
    formula pi = 16 atan(1/5) - 4 atan(1/239) in fixed point with 64 guard bits."""
    scale = bits + 64

    def atan_inverse(x):
        total, term, k, x2 = 0, (1 << scale) // x, 0, x * x
        while term:
            total += -(term // (2 * k + 1)) if k % 2 else term // (2 * k + 1)
            term //= x2
            k += 1
        return total

    pi = 16 * atan_inverse(5) - 4 * atan_inverse(239)   # pi * 2^scale, to within a few units
    return ((1 << (scale + bits)) // pi) & ((1 << bits) - 1)


def constants():
    """C1, C2, C3: consecutive 128-bit pieces of 1/pi's fraction."""
    bits = one_over_pi_fraction(CONSTANT_BITS * CONSTANT_COUNT)
    return tuple(bits >> (CONSTANT_BITS * (CONSTANT_COUNT - 1 - i)) & ((1 << CONSTANT_BITS) - 1)
                 for i in range(CONSTANT_COUNT))


def key_constants(key_bytes):
    """CK1, CK2, CK3 for a key length: C1..C3 rotated by one place per 8 key bytes past 16."""
    if key_bytes not in KEY_BYTES:
        raise SpecError(f"an ARIA key is one of {KEY_BYTES} bytes, not {key_bytes}")
    c = constants()
    shift = (key_bytes - KEY_BYTES[0]) // 8
    return c[shift:] + c[:shift]
