"""ARIA straight from the spec (gen/specs/aria.py), one block at a time: the
oracle ARIA's kernels will be held to.  Its S-box tables are derived here
from the spec's maps of the AES field."""

from functools import lru_cache

from ..linalg import AffineMap, BitMatrix
from ..linalg.gf2n import Field
from ..specs import aria
from ..specs.validate import SpecError, check_bijection

MASK128 = (1 << 128) - 1


def _power_map_sbox(columns, exponent, constant):
    field = Field(aria.FIELD_POLY)
    affine = AffineMap(BitMatrix.from_columns(columns, 8), constant)
    return tuple(affine.apply(field.pow(x, exponent)) for x in range(256))


def _inverse(table):
    out = [0] * 256
    for x, y in enumerate(table):
        out[y] = x
    return tuple(out)


@lru_cache(maxsize=None)
def sboxes():
    """SB1..SB4 as tables, index 0 for SB1."""
    sb1 = check_bijection(_power_map_sbox(aria.SB1_COLUMNS, aria.SB1_EXPONENT, aria.SB1_CONSTANT), 8, "ARIA SB1")
    sb2 = check_bijection(_power_map_sbox(aria.SB2_COLUMNS, aria.SB2_EXPONENT, aria.SB2_CONSTANT), 8, "ARIA SB2")
    return (sb1, sb2, _inverse(sb1), _inverse(sb2))


def substitute(block, layer):
    boxes = sboxes()
    return bytes(boxes[layer[i % 4] - 1][b] for i, b in enumerate(block))


def diffuse(block):
    return bytes(_xor_all(block[j] for j in sources) for sources in aria.DIFFUSION)


def _xor_all(values):
    out = 0
    for v in values:
        out ^= v
    return out


def _xor(a, b):
    return bytes(p ^ q for p, q in zip(a, b))


def fo(d, rk):
    return diffuse(substitute(_xor(d, rk), aria.SL1))


def fe(d, rk):
    return diffuse(substitute(_xor(d, rk), aria.SL2))


def _rotate(w, r):
    v = int.from_bytes(w, "big")
    r %= 128
    return ((v << r | v >> (128 - r)) & MASK128).to_bytes(16, "big")


def encryption_keys(key):
    """ek_1 .. ek_(n+1)."""
    key = bytes(key)
    if len(key) not in aria.KEY_BYTES:
        raise SpecError(f"an ARIA key is one of {aria.KEY_BYTES} bytes, not {len(key)}")
    kl, kr = key[:16], key[16:] + bytes(32 - len(key))
    ck = [c.to_bytes(16, "big") for c in aria.key_constants(len(key))]
    w0 = kl
    w1 = _xor(fo(w0, ck[0]), kr)
    w2 = _xor(fe(w1, ck[1]), w0)
    w3 = _xor(fo(w2, ck[2]), w1)
    w = (w0, w1, w2, w3)
    keys = []
    for r in aria.ROUND_KEY_ROTATIONS:
        for i in range(4):
            keys.append(_xor(w[i], _rotate(w[i + 1], r)) if i < 3 else _xor(_rotate(w[0], r), w[3]))
    return keys[:aria.ROUNDS[len(key)] + 1]


def decryption_keys(key):
    ek = encryption_keys(key)
    return [ek[-1]] + [diffuse(k) for k in ek[-2:0:-1]] + [ek[0]]


def _crypt(round_keys, block):
    block = bytes(block)
    if len(block) != aria.BLOCK_BYTES:
        raise SpecError(f"an ARIA block is {aria.BLOCK_BYTES} bytes, not {len(block)}")
    rounds = len(round_keys) - 1
    for r in range(rounds - 1):
        block = (fo if r % 2 == 0 else fe)(block, round_keys[r])
    return _xor(substitute(_xor(block, round_keys[rounds - 1]), aria.SL2), round_keys[rounds])


def encrypt_block(key, block):
    return _crypt(encryption_keys(key), block)


def decrypt_block(key, block):
    return _crypt(decryption_keys(key), block)
