"""Camellia (RFC 3713; the Camellia specification v2.0, NTT and Mitsubishi
Electric, 2001): what the cipher is.

A 16-byte block and keys of 16, 24 or 32 bytes; a Feistel network of 18 rounds
(16-byte keys) or 24, with FL / FL^-1 layers after every sixth round but the
last, and whitening before and after.  Values are big-endian; in a byte the
specification numbers bits a1 (most significant) to a8.  A round is
L_r = R_(r-1) ^ F(L_(r-1), k_r), R_r = L_(r-1); F(X, k) = P(S(X ^ k)) on 64 bits,
S applying s1, s2, s3, s4, s2, s3, s4, s1 to the bytes l1..l8, P the byte XORs
below.  FL: Y_R = ((X_L & kl_L) <<< 1) ^ X_R, Y_L = (Y_R | kl_R) ^ X_L on
32-bit halves; FL^-1 its inverse.

The S-box is a map, not a table: s1(x) = h(g(f(x ^ 0xC5))) ^ 0x6E, f and h
linear (given as the specification's bit equations), g the inverse in GF(2^8)
written in the tower basis of GF((2^4)^2): the field GF(2)[b]/(b^8 + b^6 + b^5
+ b^3 + 1), a = b^238 generating its subfield GF(2^4) (a^4 + a + 1 = 0), and a
byte a1..a8 standing for (a8 + a7 a + a6 a^2 + a5 a^3) + (a4 + a3 a + a2 a^2
+ a1 a^3) b.  s2(x) = s1(x) <<< 1, s3(x) = s1(x) <<< 7, s4(x) = s1(x <<< 1).

The key schedule: KL, KR from the key (below), KA and KB from them by F with
the constants Sigma1..Sigma6, which are hex digits 2..17 after the point of
the square roots of the first six primes; every subkey is a 64-bit half of
KL, KR, KA or KB rotated left.
"""

from .validate import SpecError, check_irreducible

BLOCK_BYTES = 16
KEY_BYTES = (16, 24, 32)
ROUNDS = {16: 18, 24: 24, 32: 24}
FL_EVERY = 6                      # an FL / FL^-1 layer after rounds 6, 12 (, 18)

# s1's parts.  Bit equations: output bit i (1 = most significant) is the XOR of input bits.
S1_INPUT_CONSTANT = 0xC5
S1_OUTPUT_CONSTANT = 0x6E
F_EQUATIONS = ((6, 2), (7, 1), (8, 5, 3), (8, 3), (7, 4), (5, 2), (8, 1), (6, 4))
H_EQUATIONS = ((5, 6, 2), (6, 2), (7, 4), (8, 2), (7, 3), (8, 1), (5, 1), (6, 3))
FIELD_POLY = check_irreducible(0x169, 8, "Camellia's field b^8+b^6+b^5+b^3+1")
SUBFIELD_GENERATOR_EXPONENT = 238  # a = b^238, of order 15
SUBFIELD_POLY = check_irreducible(0x13, 4, "Camellia's subfield a^4+a+1")

# s2, s3, s4 from s1: (rotation of the input, rotation of the output), left, 8 bits.
S_VARIANTS = {1: (0, 0), 2: (0, 1), 3: (0, 7), 4: (1, 0)}
S_FUNCTION = (1, 2, 3, 4, 2, 3, 4, 1)    # the s-box of byte l1..l8
# The P-function: z'_i is the XOR of the bytes z_j listed (1 = the leftmost byte).
P_EQUATIONS = ((1, 3, 4, 6, 7, 8), (1, 2, 4, 5, 7, 8), (1, 2, 3, 5, 6, 8), (2, 3, 4, 5, 6, 7),
               (1, 2, 6, 7, 8), (2, 3, 5, 7, 8), (3, 4, 5, 6, 8), (1, 4, 5, 6, 7))

SIGMA_PRIMES = (2, 3, 5, 7, 11, 13)
SIGMA_FIRST_DIGIT = 2                    # hex digits 2..17 after the point
SIGMA_BITS = 64

# Subkeys: (kind, n, source, rotation) takes both halves of source <<< rotation
# as kind_n and kind_(n+1) (1-based, as the specification numbers them);
# (kind, n, source, rotation, "L" or "R") one half as kind_n.  Kinds: kw
# (whitening), k (rounds), kl (FL layers).
SUBKEYS_128 = (
    ("kw", 1, "KL", 0), ("k", 1, "KA", 0), ("k", 3, "KL", 15), ("k", 5, "KA", 15), ("kl", 1, "KA", 30),
    ("k", 7, "KL", 45), ("k", 9, "KA", 45, "L"), ("k", 10, "KL", 60, "R"), ("k", 11, "KA", 60), ("kl", 3, "KL", 77),
    ("k", 13, "KL", 94), ("k", 15, "KA", 94), ("k", 17, "KL", 111), ("kw", 3, "KA", 111),
)
SUBKEYS_256 = (
    ("kw", 1, "KL", 0), ("k", 1, "KB", 0), ("k", 3, "KR", 15), ("k", 5, "KA", 15), ("kl", 1, "KR", 30),
    ("k", 7, "KB", 30), ("k", 9, "KL", 45), ("k", 11, "KA", 45), ("kl", 3, "KL", 60), ("k", 13, "KR", 60),
    ("k", 15, "KB", 60), ("k", 17, "KL", 77), ("kl", 5, "KA", 77), ("k", 19, "KR", 94), ("k", 21, "KA", 94),
    ("k", 23, "KL", 111), ("kw", 3, "KB", 111),
)


def subkeys(key_bytes):
    """The subkey table of a key length (24- and 32-byte keys share one)."""
    if key_bytes not in KEY_BYTES:
        raise SpecError(f"a Camellia key is one of {KEY_BYTES} bytes, not {key_bytes}")
    return SUBKEYS_128 if key_bytes == 16 else SUBKEYS_256


def sigma(i):
    """Sigma_i (1..6): hex digits 2..17 after the point of the square root of the
    i-th prime, by an integer square root."""
    if not 1 <= i <= len(SIGMA_PRIMES):
        raise SpecError(f"Camellia has Sigma1..Sigma{len(SIGMA_PRIMES)}, not Sigma{i}")
    digits = SIGMA_FIRST_DIGIT - 1 + SIGMA_BITS // 4      # hex digits after the point needed
    root = _isqrt(SIGMA_PRIMES[i - 1] << (8 * digits))    # sqrt(p) * 16^digits
    return root & ((1 << SIGMA_BITS) - 1)


def _isqrt(n):
    x = 1 << ((n.bit_length() + 1) // 2)
    while True:
        y = (x + n // x) // 2
        if y >= x:
            return x
        x = y


def key_halves(key):
    """KL, KR as 128-bit ints: a 24-byte key's KR is its last 8 bytes, then their complement."""
    key = bytes(key)
    if len(key) not in KEY_BYTES:
        raise SpecError(f"a Camellia key is one of {KEY_BYTES} bytes, not {len(key)}")
    kl = int.from_bytes(key[:16], "big")
    if len(key) == 16:
        return kl, 0
    right = int.from_bytes(key[16:], "big")
    if len(key) == 24:
        right = right << 64 | (~right & ((1 << 64) - 1))
    return kl, right
