"""Camellia straight from the spec (gen/specs/camellia.py), one block at a
time: the oracle Camellia's kernels will be held to.  s1's table is derived
here from the spec's f, h and tower-field inversion."""

from functools import lru_cache

from ..linalg import BitMatrix
from ..linalg.gf2n import Field
from ..specs import camellia
from ..specs.validate import SpecError, check_bijection

MASK32, MASK64, MASK128 = (1 << 32) - 1, (1 << 64) - 1, (1 << 128) - 1


def _rotl(x, r, width):
    r %= width
    return ((x << r) | (x >> (width - r))) & ((1 << width) - 1)


def equations_matrix(equations):
    """The spec's bit equations (bit 1 = most significant) as a BitMatrix (bit 0 = least)."""
    return BitMatrix([sum(1 << (8 - j) for j in sources) for sources in reversed(equations)], 8)


def tower_basis():
    """The field element each bit of a byte stands for (bit 0 = a8 = 1, bit 1 = a7 = a,
    ..., bit 4 = a4 = b, ..., bit 7 = a1 = a^3 b), in GF(2)[b]/FIELD_POLY."""
    field = Field(camellia.FIELD_POLY)
    a = field.pow(0b10, camellia.SUBFIELD_GENERATOR_EXPONENT)
    if field.eval_poly(camellia.SUBFIELD_POLY, a) != 0:
        raise SpecError(f"b^{camellia.SUBFIELD_GENERATOR_EXPONENT} is no root of the subfield polynomial")
    powers = [field.pow(a, k) for k in range(4)]
    return tuple(powers + [field.mul(p, 0b10) for p in powers])


@lru_cache(maxsize=None)
def s1_table():
    field = Field(camellia.FIELD_POLY)
    to_field = BitMatrix.from_columns(tower_basis(), 8)
    from_field = to_field.inverse()
    f, h = equations_matrix(camellia.F_EQUATIONS), equations_matrix(camellia.H_EQUATIONS)
    table = []
    for x in range(256):
        y = from_field.apply(field.inv(to_field.apply(f.apply(x ^ camellia.S1_INPUT_CONSTANT))))
        table.append(h.apply(y) ^ camellia.S1_OUTPUT_CONSTANT)
    return check_bijection(table, 8, "Camellia s1")


def sbox(n, x):
    rot_in, rot_out = camellia.S_VARIANTS[n]
    return _rotl(s1_table()[_rotl(x, rot_in, 8)], rot_out, 8)


def f_function(x, k):
    """F(X, k) on 64-bit ints."""
    z = ((x ^ k) & MASK64).to_bytes(8, "big")
    z = [sbox(n, b) for n, b in zip(camellia.S_FUNCTION, z)]
    out = bytearray(8)
    for i, sources in enumerate(camellia.P_EQUATIONS):
        for j in sources:
            out[i] ^= z[j - 1]
    return int.from_bytes(out, "big")


def fl(x, kl):
    xl, xr, kll, klr = x >> 32, x & MASK32, kl >> 32, kl & MASK32
    yr = _rotl(xl & kll, 1, 32) ^ xr
    yl = (yr | klr) ^ xl
    return yl << 32 | yr


def fl_inverse(y, kl):
    yl, yr, kll, klr = y >> 32, y & MASK32, kl >> 32, kl & MASK32
    xl = (yr | klr) ^ yl
    xr = _rotl(xl & kll, 1, 32) ^ yr
    return xl << 32 | xr


def _ka_kb(kl, kr):
    d1, d2 = (kl ^ kr) >> 64, (kl ^ kr) & MASK64
    d2 ^= f_function(d1, camellia.sigma(1))
    d1 ^= f_function(d2, camellia.sigma(2))
    d1, d2 = d1 ^ (kl >> 64), d2 ^ (kl & MASK64)
    d2 ^= f_function(d1, camellia.sigma(3))
    d1 ^= f_function(d2, camellia.sigma(4))
    ka = d1 << 64 | d2
    d1, d2 = (ka ^ kr) >> 64, (ka ^ kr) & MASK64
    d2 ^= f_function(d1, camellia.sigma(5))
    d1 ^= f_function(d2, camellia.sigma(6))
    return ka, d1 << 64 | d2


def subkeys(key):
    """{"kw": [...4], "k": [...rounds], "kl": [...]}, 64-bit ints in the order of use."""
    kl, kr = camellia.key_halves(key)
    ka, kb = _ka_kb(kl, kr)
    sources = {"KL": kl, "KR": kr, "KA": ka, "KB": kb}
    out = {"kw": [], "k": [], "kl": []}
    for kind, _, source, rotation, *half in camellia.subkeys(len(bytes(key))):
        value = _rotl(sources[source], rotation, 128)
        out[kind] += {"L": [value >> 64], "R": [value & MASK64]}[half[0]] if half else [value >> 64, value & MASK64]
    return out


def decryption_subkeys(keys):
    """subkeys' form in the decryption order (the specification's section 3.3):
    kw3, kw4, kw1, kw2; the round keys and the FL keys reversed."""
    return {"kw": keys["kw"][2:] + keys["kw"][:2], "k": keys["k"][::-1], "kl": keys["kl"][::-1]}


def _crypt(keys, block):
    block = bytes(block)
    if len(block) != camellia.BLOCK_BYTES:
        raise SpecError(f"a Camellia block is {camellia.BLOCK_BYTES} bytes, not {len(block)}")
    kw, k, klk = keys["kw"], keys["k"], keys["kl"]
    m = int.from_bytes(block, "big")
    left, right = (m >> 64) ^ kw[0], (m & MASK64) ^ kw[1]
    for r, key in enumerate(k, 1):
        left, right = right ^ f_function(left, key), left
        if r % camellia.FL_EVERY == 0 and r < len(k):
            layer = r // camellia.FL_EVERY - 1
            left, right = fl(left, klk[2 * layer]), fl_inverse(right, klk[2 * layer + 1])
    return ((right ^ kw[2]) << 64 | (left ^ kw[3])).to_bytes(16, "big")


def encrypt_block(key, block):
    return _crypt(subkeys(key), block)


def decrypt_block(key, block):
    return _crypt(decryption_subkeys(subkeys(key)), block)
