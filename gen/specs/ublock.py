"""uBlock (Wu et al., "The block cipher uBlock", J. Cryptologic Research 6(6),
2019): uBlock-128/128, uBlock-128/256 and uBlock-256/256, what the cipher is.

Conventions, defined here once:

* A block or key is a byte string, byte 0 first.  Its nibbles are numbered
  high nibble first: nibble 2j is byte j >> 4, nibble 2j + 1 is byte j & 15.
* A block X of n bits is X0 || X1, each n/2 bits; a key K is K0 || K1 || K2
  || K3, each k/4 bits.
* ``<<<_32 b`` rotates every big-endian 32-bit word of a half left by b bits;
  b is a multiple of 4, so it moves nibbles: output nibble i of a word is
  input nibble (i + b/4) mod 8.
* PL_n and PR_n permute the n/16 bytes of a half: output byte j = input byte
  PL[j].  PK_t permutes the nibbles of K0 || K1: output nibble j = input
  nibble PK[j].
* T_k doubles every nibble in GF(2^4) modulo x^4 + x + 1.
* RC_i is a 32-bit constant XORed into the leftmost 32 bits of K0.

Round function (algorithm 1), for i = 0..r-1:
  X0 = S(X0 ^ RK0), X1 = S(X1 ^ RK1); X1 ^= X0;
  X0 ^= X1 <<<_32 4; X1 ^= X0 <<<_32 8; X0 ^= X1 <<<_32 8; X1 ^= X0 <<<_32 20;
  X0 ^= X1; X0 = PL(X0); X1 = PR(X1)
and Y = RK^r ^ (X0 || X1).  Key schedule (algorithm 3), RK^i = the leftmost n
bits of the key register after i updates:
  K0 || K1 = PK(K0 || K1); K2 ^= S(K0 ^ RC_i); K3 ^= T(K1); K = K2 || K3 || K1 || K0.
"""

from .validate import SpecError, check_bijection, check_irreducible, check_rotation

SBOX = check_bijection((0x7, 0x4, 0x9, 0xC, 0xB, 0xA, 0xD, 0x8, 0xF, 0xE, 0x1, 0x6, 0x0, 0x3, 0x2, 0x5),
                       4, "uBlock S-box")

# --- the linear layer: the rotations of algorithm 1, steps 7-10, in order;
#     even steps update X0 from X1, odd steps X1 from X0.
ROTATIONS = tuple(check_rotation(r, 32, "uBlock linear layer") for r in (4, 8, 8, 20))


def _check_permutation(perm, size, what):
    perm = tuple(perm)
    if sorted(perm) != list(range(size)):
        raise SpecError(f"{what}: expected a permutation of 0..{size - 1}, got {perm}")
    return perm


PL = {128: _check_permutation((1, 3, 4, 6, 0, 2, 7, 5), 8, "uBlock PL_128"),
      256: _check_permutation((2, 7, 8, 13, 3, 6, 9, 12, 1, 4, 15, 10, 14, 11, 5, 0), 16, "uBlock PL_256")}
PR = {128: _check_permutation((2, 7, 5, 0, 1, 6, 4, 3), 8, "uBlock PR_128"),
      256: _check_permutation((6, 11, 1, 12, 9, 4, 2, 15, 7, 0, 13, 10, 14, 3, 8, 5), 16, "uBlock PR_256")}

# --- the variants: (block bits, key bits) -> rounds and key permutation.
VARIANTS = {(128, 128): 16, (128, 256): 24, (256, 256): 24}
PK = {
    (128, 128): _check_permutation((6, 0, 8, 13, 1, 15, 5, 10, 4, 9, 12, 2, 11, 3, 7, 14), 16, "uBlock PK1"),
    (128, 256): _check_permutation((10, 5, 15, 0, 2, 7, 8, 13, 14, 6, 4, 12, 1, 3, 11, 9,
                                    24, 25, 26, 27, 28, 29, 30, 31, 16, 17, 18, 19, 20, 21, 22, 23), 32,
                                   "uBlock PK2"),
    (256, 256): _check_permutation((10, 5, 15, 0, 2, 7, 8, 13, 1, 14, 4, 12, 9, 11, 3, 6,
                                    24, 25, 26, 27, 28, 29, 30, 31, 16, 17, 18, 19, 20, 21, 22, 23), 32,
                                   "uBlock PK3"),
}

# --- T_k: multiplication by x in GF(2^4) = GF(2)[x]/(x^4 + x + 1).
TK_FIELD_POLY = check_irreducible(0x13, 4, "uBlock T_k field x^4+x+1")

# --- round constants.  RC_i = c_i || c_i^0x14 || c_i^0x51 || c_i^0x45 (bytes), where
#     c_1 = 0x98 and c_{i+1} = (c_i << 1 mod 2^8) ^ parity(c_i & 0xC6) ^ 0xC1: an 8-bit
#     LFSR with complemented taps.  The rule reproduces every entry of the published
#     table (tests), including RC12 = 8e9adfcb, which the AVX2 paper misprints.
RC_SEED = 0x98
RC_FEEDBACK_TAPS = 0xC6
RC_FEEDBACK_CONSTANT = 0xC1
RC_BYTE_OFFSETS = (0x00, 0x14, 0x51, 0x45)
RC_COUNT = max(VARIANTS.values())


def round_constants():
    """RC_1 .. RC_24 as 32-bit ints (RC_i at index i - 1)."""
    out, c = [], RC_SEED
    for _ in range(RC_COUNT):
        out.append(int.from_bytes(bytes(c ^ off for off in RC_BYTE_OFFSETS), "big"))
        feedback = bin(c & RC_FEEDBACK_TAPS).count("1") & 1
        c = ((c << 1) & 0xFF) ^ feedback ^ RC_FEEDBACK_CONSTANT
    return tuple(out)


def check_variant(block_bits, key_bits):
    """The round count of uBlock-block_bits/key_bits; SpecError if there is no such variant."""
    try:
        return VARIANTS[block_bits, key_bits]
    except KeyError:
        known = ", ".join(f"{n}/{k}" for n, k in VARIANTS)
        raise SpecError(f"no uBlock-{block_bits}/{key_bits}; the variants are {known}") from None


def inverse_sbox():
    inv = [0] * 16
    for x, y in enumerate(SBOX):
        inv[y] = x
    return tuple(inv)


def tk_double(x):
    """x * 2 in GF(2^4) modulo x^4 + x + 1."""
    x <<= 1
    return x ^ TK_FIELD_POLY if x & 0x10 else x


def nibble_rotation(bits):
    """<<<_32 bits as a map on the 8 nibbles of a word: output nibble i = input nibble map[i]."""
    if bits % 4:
        raise SpecError(f"uBlock rotations move whole nibbles; {bits} is not a multiple of 4")
    return tuple((i + bits // 4) % 8 for i in range(8))
