"""ZUC-128 (ETSI/SAGE 128-EEA3 & 128-EIA3 Document 2, v1.6), ZUC-256 (the
2018 version: "The ZUC-256 Stream Cipher", J. Cryptologic Research 2018) and
ZUC-NEA6 (the ZUC-256 initialisation with a 128-bit IV of the design team's
addendum, IACR ePrint 2021/1439, which 3GPP TS 33.501 takes for its 256-bit
air-interface algorithms NEA6, NIA6 and NCA6): what the cipher is.

The three variants share the round; they differ in key and IV loading and in
the number of initialisation rounds.  Variants are named 128, 256 (the 2018
ZUC-256) and NEA6.

One round: bit reorganisation takes X0..X3 from the LFSR cells s0..s15
(31-bit ints in 1..2**31-1); the FSM gives W = (X0 ^ R1) + R2 and updates
R1 = S(L1(lo16(W1) || hi16(W2))), R2 = S(L2(lo16(W2) || hi16(W1))) with
W1 = R1 + X1, W2 = R2 ^ X2; the LFSR appends sum(multiplier * cell) mod
2**31-1 (plus W >> 1 in initialisation mode).  A keystream word is W ^ X3.
S applies S0, S1, S0, S1 to the bytes of a word, most significant first.

Conventions, defined here once:

* Keys and IVs are byte strings, byte 0 first (K0, IV0 of the standards).
* A keystream word is a 32-bit int; the keystream bit string z0 z1 ... starts
  with the most significant bit of word 0, so as bytes it is the words written
  big-endian.  Message bits likewise: bit 0 is the most significant bit of
  byte 0.  Tags are written big-endian.
* S-box matrices use the BitMatrix convention of gen.linalg: row i gives output
  bit i, bit j of a row is input bit j, bit 0 the least significant.

S0 and S1 are not stored as tables: S0 is the three-round Feistel network on
nibbles P1, P2, P3 followed by a rotation, S1 is M * x^-1 ^ 0x55 in
GF(2^8) modulo x^8+x^7+x^3+x+1; both tables are derived and checked here.
"""

from functools import lru_cache

from .validate import SpecError, check_bijection, check_irreducible, check_rotation

WORD_BITS = 32
CELL_BITS = 31
NEA6 = "nea6"
VARIANTS = (128, 256, NEA6)
KEY_BYTES = {128: 16, 256: 32, NEA6: 32}
IV_BYTES_128 = 16
IV_BYTES_256 = 25         # IV0..IV16 bytes, then IV17..IV24 as 6-bit values, one per byte
IV_PACKED_BYTES_256 = 23  # IV17..IV24 packed into 6 bytes, most significant first
IV_FIELD_BITS_256 = 6


def _check_nibble_map(table, what):
    if len(table) != 16 or not all(0 <= v < 16 for v in table):
        raise SpecError(f"{what}: expected 16 values in 0..15, got {tuple(table)}")
    return tuple(table)


def _check_fits(values, bits, what):
    for i, v in enumerate(values):
        if not 0 <= v < 1 << bits:
            raise SpecError(f"{what}: constant {i} = {v:#x} does not fit in {bits} bits")
    return tuple(values)


# --- S0: x = xH || xL (nibbles); t = P1[xL] ^ xH; outL = P2[t] ^ xL;
#     outH = P3[outL] ^ t; S0(x) = (outH || outL) <<< 5 (8-bit rotation).
P1 = _check_nibble_map((9, 15, 0, 14, 15, 15, 2, 10, 0, 4, 0, 12, 7, 5, 3, 9), "ZUC S0 P1")
P2 = _check_nibble_map((8, 13, 6, 5, 7, 0, 12, 4, 11, 1, 14, 10, 15, 3, 9, 2), "ZUC S0 P2")
P3 = _check_nibble_map((2, 6, 10, 6, 0, 13, 10, 15, 3, 3, 13, 5, 0, 9, 12, 13), "ZUC S0 P3")
S0_ROTATION = check_rotation(5, 8, "ZUC S0 rotation")

# --- S1(x) = M * x^-1 ^ 0x55 with x^-1 in GF(2^8) = GF(2)[x]/(x^8+x^7+x^3+x+1), inv(0) = 0.
S1_FIELD_POLY = check_irreducible(0x18B, 8, "ZUC S1 field x^8+x^7+x^3+x+1")
S1_MATRIX_ROWS = (0xED, 0xDB, 0xB7, 0x7E, 0xE3, 0xD6, 0xBC, 0x79)
S1_CONSTANT = 0x55

# --- L1, L2: x ^ (x <<< r1) ^ ... on 32-bit words.
L1_ROTATIONS = tuple(check_rotation(r, WORD_BITS, "ZUC L1") for r in (2, 10, 18, 24))
L2_ROTATIONS = tuple(check_rotation(r, WORD_BITS, "ZUC L2") for r in (8, 14, 22, 30))

# --- LFSR: s16 = (2^15 s15 + 2^17 s13 + 2^21 s10 + 2^20 s4 + (1 + 2^8) s0) mod (2^31 - 1),
#     a result of 0 being stored as 2^31 - 1.
LFSR_MODULUS = 2**31 - 1
LFSR_TAPS = ((0, 1 + 2**8), (4, 2**20), (10, 2**21), (13, 2**17), (15, 2**15))
LFSR_CELLS = 16
INIT_ROUNDS = 32                  # ZUC-128 and the 2018 ZUC-256
INIT_ROUNDS_BY_VARIANT = {128: INIT_ROUNDS, 256: INIT_ROUNDS, NEA6: 48}

# --- ZUC-128 key loading: s_i = K_i || D_i || IV_i (8 + 15 + 8 bits).
D128 = _check_fits((0x44D7, 0x26BC, 0x626B, 0x135E, 0x5789, 0x35E2, 0x7135, 0x09AF,
                    0x4D78, 0x2F13, 0x6BC4, 0x1AF1, 0x5E26, 0x3C4D, 0x789A, 0x47AC),
                   15, "ZUC-128 D constants")

# --- ZUC-256 key loading: cell i = A || (d_i | E) || B || C (8 + 7 + 8 + 8 bits), each row
#     naming (A, E, B, C): A, B, C are key bytes K0..K31 or IV bytes IV0..IV16, E is None, an
#     IV17..IV24 field (6 bits) or a nibble of K31 (the 2018 paper, section 2.2).
KEY_LOADING_256 = (
    ("K0", None, "K21", "K16"),
    ("K1", None, "K22", "K17"),
    ("K2", None, "K23", "K18"),
    ("K3", None, "K24", "K19"),
    ("K4", None, "K25", "K20"),
    ("IV0", "IV17", "K5", "K26"),
    ("IV1", "IV18", "K6", "K27"),
    ("IV10", "IV19", "K7", "IV2"),
    ("K8", "IV20", "IV3", "IV11"),
    ("K9", "IV21", "IV12", "IV4"),
    ("IV5", "IV22", "K10", "K28"),
    ("K11", "IV23", "IV6", "IV13"),
    ("K12", "IV24", "IV7", "IV14"),
    ("K13", None, "IV15", "IV8"),
    ("K14", "K31_H", "IV16", "IV9"),
    ("K15", "K31_L", "K30", "K29"),
)
D256_KEYSTREAM = (0x22, 0x2F, 0x24, 0x2A, 0x6D, 0x40, 0x40, 0x40,
                  0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30)
TAG_BITS_256 = (32, 64, 128)
TAG_BITS_128 = (32,)

# --- ZUC-NEA6 key loading (ePrint 2021/1439; ipsec-mb's NEA6 initialisation, checked against
#     3GPP's NEA6/NIA6/NCA6 vectors): cell i = A || d_i || B || C (8 + 7 + 8 + 8 bits), every
#     key and IV byte whole and used once, one set of constants for NEA6, NIA6 and NCA6.
IV_BYTES_NEA6 = 16
KEY_LOADING_NEA6 = tuple((f"K{i}", None, f"K{16 + i}", f"K{24 + i}") for i in range(7)) + \
    tuple((f"K{i}", None, f"IV{i - 7}", f"IV{i + 1}") for i in range(7, 15)) + \
    (("K15", None, "K23", "K31"),)
D_NEA6 = _check_fits((0x64, 0x43, 0x7B, 0x2A, 0x11, 0x05, 0x51, 0x42,
                      0x1A, 0x31, 0x18, 0x66, 0x14, 0x2E, 0x01, 0x5C), 7, "ZUC-NEA6 d constants")


def _d256(tag_bits):
    """The MAC constants differ from the keystream ones only in the low bits of d0
    and d2, which hold the code log2(tag_bits) - 4 (32 -> 01, 64 -> 10, 128 -> 11)."""
    code = 0 if tag_bits == 0 else tag_bits.bit_length() - 5
    d = list(D256_KEYSTREAM)
    d[0] |= code >> 1
    d[2] |= code & 1
    return tuple(d)


D256 = {tag: _check_fits(_d256(tag), 7, f"ZUC-256 d constants for tag bits {tag}")
        for tag in (0,) + TAG_BITS_256}


def rotl8(x, n):
    return ((x << n) | (x >> (8 - n))) & 0xFF


def feistel_sbox(p1, p2, p3, rotation):
    """The 256-entry S-box of the nibble Feistel network P1, P2, P3 then <<< rotation."""
    p1, p2, p3 = (_check_nibble_map(p, f"ZUC S0 P{i}") for i, p in enumerate((p1, p2, p3), 1))
    check_rotation(rotation, 8, "ZUC S0 rotation")
    table = []
    for x in range(256):
        x_hi, x_lo = x >> 4, x & 15
        t = p1[x_lo] ^ x_hi
        out_lo = p2[t] ^ x_lo
        out_hi = p3[out_lo] ^ t
        table.append(rotl8(out_hi << 4 | out_lo, rotation))
    return check_bijection(table, 8, "ZUC S0")


def _gf_mul(a, b, poly):
    """Product in GF(2)[x]/(poly)."""
    r = 0
    degree = poly.bit_length() - 1
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a >> degree:
            a ^= poly
    return r


def _gf_inverse(a, poly):
    """a^(2^n - 2), which is a^-1 for a != 0 and 0 for a = 0."""
    degree = poly.bit_length() - 1
    result, power, e = 1, a, (1 << degree) - 2
    while e:
        if e & 1:
            result = _gf_mul(result, power, poly)
        power = _gf_mul(power, power, poly)
        e >>= 1
    return result


def _matrix_apply(rows, x):
    return sum(((row & x).bit_count() & 1) << i for i, row in enumerate(rows))


def inversion_sbox(field_poly, matrix_rows, constant):
    """The 256-entry S-box x -> M * x^-1 ^ constant in GF(2)[x]/(field_poly)."""
    check_irreducible(field_poly, 8, "ZUC S1 field")
    if len(matrix_rows) != 8 or not all(0 <= r < 256 for r in matrix_rows):
        raise SpecError(f"ZUC S1 matrix: expected 8 rows of 8 bits, got {tuple(matrix_rows)}")
    table = [_matrix_apply(matrix_rows, _gf_inverse(x, field_poly)) ^ constant for x in range(256)]
    return check_bijection(table, 8, "ZUC S1")


@lru_cache(maxsize=None)
def s0_table():
    return feistel_sbox(P1, P2, P3, S0_ROTATION)


@lru_cache(maxsize=None)
def s1_table():
    return inversion_sbox(S1_FIELD_POLY, S1_MATRIX_ROWS, S1_CONSTANT)


def expand_iv256(iv):
    """The 25-byte form of a ZUC-256 IV given in the 25- or the 23-byte form."""
    iv = bytes(iv)
    if len(iv) == IV_BYTES_256:
        for i, v in enumerate(iv[17:], 17):
            if v >> IV_FIELD_BITS_256:
                raise SpecError(f"ZUC-256 IV{i} = {v:#04x} has bits above its {IV_FIELD_BITS_256} bits set")
        return iv
    if len(iv) == IV_PACKED_BYTES_256:
        packed = int.from_bytes(iv[17:], "big")
        fields = [(packed >> (IV_FIELD_BITS_256 * (7 - i))) & 0x3F for i in range(8)]
        return iv[:17] + bytes(fields)
    raise SpecError(f"ZUC-256 IV must be {IV_BYTES_256} or {IV_PACKED_BYTES_256} bytes, got {len(iv)}")


def variant_name(variant):
    return f"ZUC-{variant}" if variant != NEA6 else "ZUC-NEA6"


def _check_key(variant, key):
    if variant not in KEY_BYTES:
        raise SpecError(f"ZUC variant must be one of {VARIANTS}, got {variant!r}")
    if len(key) != KEY_BYTES[variant]:
        raise SpecError(f"{variant_name(variant)} key must be {KEY_BYTES[variant]} bytes, got {len(key)}")
    return bytes(key)


def init_rounds(variant):
    """The initialisation rounds of a variant (then one work-mode round, its word discarded)."""
    if variant not in INIT_ROUNDS_BY_VARIANT:
        raise SpecError(f"ZUC variant must be one of {VARIANTS}, got {variant!r}")
    return INIT_ROUNDS_BY_VARIANT[variant]


def check_tag_bits(variant, tag_bits):
    """tag_bits selects the loading constants: 0 = keystream, else a MAC tag length.
    NEA6's loading has one set of constants (NIA6's tag length travels in the IV)."""
    if variant == NEA6:
        if tag_bits != 0:
            raise SpecError(f"ZUC-NEA6 loads one set of constants: tag_bits must be 0, got {tag_bits}")
        return tag_bits
    allowed = TAG_BITS_128 if variant == 128 else TAG_BITS_256
    if tag_bits != 0 and tag_bits not in allowed:
        raise SpecError(f"ZUC-{variant} tag length must be one of {allowed} bits (or 0 for the "
                        f"keystream), got {tag_bits}")
    return tag_bits


def _load_128(key, iv):
    if len(iv) != IV_BYTES_128:
        raise SpecError(f"ZUC-128 IV must be {IV_BYTES_128} bytes, got {len(iv)}")
    return [key[i] << 23 | D128[i] << 8 | iv[i] for i in range(LFSR_CELLS)]


def _load_cells(table, d, key, iv):
    """Cells A || (d_i | E) || B || C of a loading table (KEY_LOADING_256's form)."""
    named = {f"K{i}": v for i, v in enumerate(key)}
    named.update({f"IV{i}": v for i, v in enumerate(iv)})
    named.update({"K31_H": key[31] >> 4, "K31_L": key[31] & 15})
    cells = []
    for i, (a, extra, b, c) in enumerate(table):
        middle = d[i] | (named[extra] if extra else 0)
        cells.append(named[a] << 23 | middle << 16 | named[b] << 8 | named[c])
    return cells


def _load_256(key, iv, tag_bits):
    return _load_cells(KEY_LOADING_256, D256[tag_bits], key, expand_iv256(iv))


def _load_nea6(key, iv):
    if len(iv) != IV_BYTES_NEA6:
        raise SpecError(f"ZUC-NEA6 IV must be {IV_BYTES_NEA6} bytes, got {len(iv)}")
    return _load_cells(KEY_LOADING_NEA6, D_NEA6, key, bytes(iv))


def load_key(variant, key, iv, tag_bits=0):
    """The 16 initial LFSR cells s0..s15 (31-bit ints) for a key, an IV and the
    constants of `tag_bits` (0: keystream; ZUC-128's MAC uses the same constants)."""
    key = _check_key(variant, key)
    check_tag_bits(variant, tag_bits)
    if variant == 128:
        return _load_128(key, bytes(iv))
    if variant == NEA6:
        return _load_nea6(key, iv)
    return _load_256(key, iv, tag_bits)
