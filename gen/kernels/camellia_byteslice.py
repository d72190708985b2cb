"""Camellia byte-sliced: register j holds byte j of every block in the batch
(16 registers: L = registers 0..7, R = 8..15, big-endian), loaded and
transposed as SM4's and ARIA's byte-sliced kernels are.

Every s-box is an affine map around inversion in AES's field: s1(x) =
h(g(f(x ^ 0xC5))) ^ 0x6E with g the inversion in Camellia's tower field, which
a field isomorphism phi (gen/linalg field_isomorphisms) carries onto AES's
field, so s1(x) = (h T^-1 phi^-1)·inv(phi T f·(x ^ 0xC5)) ^ 0x6E, T the tower
basis; s2, s3 rotate its output, s4 its input, which fold into the two maps.
So an F-function is 8 key XORs, 8 affine maps, 8 inversions with their
outer maps (one GF2P8AFFINEINVQB each with GFNI) and the P-function's byte XORs
into the other half.  FL and FL^-1 work on 32-bit halves: AND, OR and a
one-bit rotation, which across byte registers is a byte shift left, a byte
shift right by 7 of the next byte, and an OR.

The rounds run as a loop over sections: six rounds and an FL layer, then the
last six rounds; the Feistel swap is a renaming, so six rounds leave L and R
in their registers.  Decryption is the same program with the subkeys in the
decryption order (gen/kernels/camellia_reference.py).
"""

from functools import lru_cache

from ..ir import Builder, Index
from ..linalg import AffineMap, BitMatrix, field_isomorphisms
from ..linalg.gf2n import Field
from ..specs import aes, camellia
from .camellia_reference import equations_matrix, tower_basis
from .transpose import load_byte_sliced, store_byte_sliced

KEY_WORD_BYTES = 4        # a subkey byte is stored as a 32-bit word holding it four times
SUBKEY_BYTES = 8
ROUNDS_PER_SECTION = camellia.FL_EVERY


def _rotation(r):
    return BitMatrix.from_function(lambda x: (x << r | x >> (8 - r)) & 0xFF, 8, 8)


@lru_cache(maxsize=None)
def sbox_forms(isomorphism=0):
    """{s-box number: (inner, outer)} with s_n(x) = outer(inv(inner(x))) in AES's field."""
    phi = field_isomorphisms(Field(camellia.FIELD_POLY), Field(aes.FIELD_POLY))[isomorphism]
    to_field = phi @ BitMatrix.from_columns(tower_basis(), 8)
    f, h = equations_matrix(camellia.F_EQUATIONS), equations_matrix(camellia.H_EQUATIONS)
    inner = to_field @ f
    inner = AffineMap(inner, inner.apply(camellia.S1_INPUT_CONSTANT))
    outer = AffineMap(h @ to_field.inverse(), camellia.S1_OUTPUT_CONSTANT)
    return {n: (inner @ _rotation(rot_in), AffineMap(_rotation(rot_out), 0) @ outer)
            for n, (rot_in, rot_out) in camellia.S_VARIANTS.items()}


def subkey_order(key_bytes):
    """The subkeys as the program reads them, as (kind, index) into
    camellia_reference.subkeys' form: kw1, kw2, then per section six round keys
    and (but after the last) the two FL keys, then kw3, kw4."""
    sections = camellia.ROUNDS[key_bytes] // ROUNDS_PER_SECTION
    order = [("kw", 0), ("kw", 1)]
    for section in range(sections):
        order += [("k", ROUNDS_PER_SECTION * section + i) for i in range(ROUNDS_PER_SECTION)]
        if section < sections - 1:
            order += [("kl", 2 * section), ("kl", 2 * section + 1)]
    return order + [("kw", 2), ("kw", 3)]


def subkey_bytes(keys, key_bytes):
    """The rk parameter from camellia_reference.subkeys' form (or its decryption
    order): each byte of each 64-bit subkey as a 32-bit word of four copies."""
    return bytearray(b for kind, index in subkey_order(key_bytes)
                     for b in keys[kind][index].to_bytes(SUBKEY_BYTES, "big") for _ in range(KEY_WORD_BYTES))


def program(bits, key_bytes, groups=1, isomorphism=0):
    rounds = camellia.ROUNDS[key_bytes]
    sections = rounds // ROUNDS_PER_SECTION
    forms = sbox_forms(isomorphism)
    blocks = 16 * (bits // 128) * groups
    per_section = ROUNDS_PER_SECTION + 2                 # subkeys a loop pass reads
    b = Builder(f"camellia{8 * key_bytes}_byteslice{bits}", bits, ("rk", "in", "out"))

    def subkey(position, stride=0):
        steps = (("s", stride * SUBKEY_BYTES * KEY_WORD_BYTES),) if stride else ()
        return [b.bcast32("rk", Index((SUBKEY_BYTES * position + j) * KEY_WORD_BYTES, steps), f"k{j}",
                          uniform=True) for j in range(SUBKEY_BYTES)]

    b.comment(f"Load {blocks} blocks and transpose: register j = byte j of every block; L = 0..7, R = 8..15.")
    states = load_byte_sliced(b, "in", groups, bits)

    def xor_key(regs, keys):
        for r, k in zip(regs, keys):
            b.assign(r, b.xor(r, k, "w"))

    def f_into(left, right, keys):
        """right ^= F(left, key)."""
        s = []
        for j in range(SUBKEY_BYTES):
            inner, outer = forms[camellia.S_FUNCTION[j]]
            t = b.affine8(b.xor(left[j], keys[j], "t"), inner, "sin", note=f"s{camellia.S_FUNCTION[j]}'s inner map")
            s.append(b.affine_inv8(t, outer, "s", note=f"s{camellia.S_FUNCTION[j]}"))
        for i, sources in enumerate(camellia.P_EQUATIONS):
            b.assign(right[i], b.xor_tree([right[i]] + [s[j - 1] for j in sources], f"p{i}"))

    def rot1(word):
        """A 32-bit word of four byte registers (big-endian) rotated left by one bit."""
        return [b.or_(b.shl(word[i], 1, 8, "rl"), b.shr(word[(i + 1) % 4], 7, 8, "rr"), "rot") for i in range(4)]

    def fl_layer(half, keys, inverse):
        xl, xr, kl, kr = half[:4], half[4:], keys[:4], keys[4:]
        if not inverse:
            new_r = [b.xor(r, v, "flr") for r, v in zip(xr, rot1([b.and_(x, k, "fla") for x, k in zip(xl, kl)]))]
            for r, v in zip(xr, new_r):
                b.assign(r, v)
            for l, r, k in zip(xl, xr, kr):
                b.assign(l, b.xor(b.or_(r, k, "flo"), l, "fll"))
        else:
            for l, r, k in zip(xl, xr, kr):
                b.assign(l, b.xor(b.or_(r, k, "flo"), l, "fll"))
            new_r = [b.xor(r, v, "flr") for r, v in zip(xr, rot1([b.and_(x, k, "fla") for x, k in zip(xl, kl)]))]
            for r, v in zip(xr, new_r):
                b.assign(r, v)

    def six_rounds(first, stride):
        for r in range(ROUNDS_PER_SECTION):
            keys = subkey(first + r, stride)
            for x in states:
                left, right = (x[:8], x[8:]) if r % 2 == 0 else (x[8:], x[:8])
                f_into(left, right, keys)

    b.comment("Whitening: L ^= kw1, R ^= kw2.")
    for x in states:
        xor_key(x[:8], subkey(0))
        xor_key(x[8:], subkey(1))
    b.comment(f"Sections 1..{sections - 1}: six rounds, then FL on L and FL^-1 on R.")
    with b.loop("s", sections - 1):
        six_rounds(2, per_section)
        fl_keys, fl_inverse_keys = subkey(2 + ROUNDS_PER_SECTION, per_section), subkey(3 + ROUNDS_PER_SECTION, per_section)
        for x in states:
            fl_layer(x[:8], fl_keys, False)
            fl_layer(x[8:], fl_inverse_keys, True)
    last = 2 + per_section * (sections - 1)
    b.comment("The last six rounds, then C = (R ^ kw3) || (L ^ kw4).")
    six_rounds(last, 0)
    for x in states:
        xor_key(x[8:], subkey(last + ROUNDS_PER_SECTION))
        xor_key(x[:8], subkey(last + ROUNDS_PER_SECTION + 1))
    store_byte_sliced(b, "out", [x[8:] + x[:8] for x in states], bits)
    return b.finish(batch_blocks=blocks, key_form="bytes4", strategy="byteslice", rounds=rounds)
