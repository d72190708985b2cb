"""ARIA byte-sliced: register j holds byte j of every block in the batch (16
registers; a W-bit register carries W/8 blocks), as in the SM4 byte-sliced
kernel (gen/kernels/sm4_byteslice.py), whose loading and transposes it shares.

A round is then byte-parallel.  The key addition is one XOR per register with
a broadcast key byte.  Each S-box is an affine map around inversion in AES's
field, the form GFNI's GF2P8AFFINEINVQB and the AES-NI lowerings take
(gen/ir opcodes affine8 and affine_inv8):

  SB1(x) = A·inv(x) ^ 0x63                (AES's S-box)
  SB2(x) = (B·F^3)·inv(x) ^ 0xE2          (x^247 = inv(x)^8, F the squaring map)
  SB3(y) = inv(A^-1·(y ^ 0x63))           (SB1's inverse)
  SB4(y) = F^5·inv(B^-1·(y ^ 0xE2))       (x^223 = inv(x)^32: SB2's inverse)

and the diffusion A is, per output register, the XOR of seven input
registers.  Rounds 1 .. n-2 run as a loop of odd/even pairs, then the odd
round n-1 and the last round (SL2 between two key additions, no diffusion).
Decryption is the same program with the decryption keys (gen/specs/aria.py).
"""

from functools import lru_cache

from ..ir import Builder, Index
from ..linalg import AffineMap, BitMatrix
from ..linalg.gf2n import Field
from ..specs import aria
from .transpose import load_byte_sliced, store_byte_sliced

KEY_WORD_BYTES = 4   # a round key byte is stored as a 32-bit word holding it four times


@lru_cache(maxsize=None)
def sbox_forms():
    """{S-box number: (inner AffineMap or None, outer AffineMap)} with
    SB(x) = outer(inv(inner(x))), derived from the spec's maps: SB1 and SB2 are
    M x^e ^ c with e = -2^k, that is (M F^k) inv(x) ^ c, F the squaring map;
    SB3 and SB4, their inverses, are F^k' inv(M^-1 (y ^ c)) with -2^k' = 1/e."""
    field = Field(aria.FIELD_POLY)

    def frobenius(exponent):
        """F^k as a matrix, for x^exponent = inv(x)^(2^k) on GF(2^8)*."""
        k = next((k for k in range(8) if (exponent + (1 << k)) % 255 == 0), None)
        if k is None:
            raise ValueError(f"x^{exponent} is no Frobenius power of the inverse")
        return BitMatrix.from_function(lambda x: field.pow(x, 1 << k), 8, 8)

    forms = {}
    for number, columns, exponent, constant in ((1, aria.SB1_COLUMNS, aria.SB1_EXPONENT, aria.SB1_CONSTANT),
                                                 (2, aria.SB2_COLUMNS, aria.SB2_EXPONENT, aria.SB2_CONSTANT)):
        direct = AffineMap(BitMatrix.from_columns(columns, 8), constant)
        forms[number] = (None, AffineMap(direct.linear @ frobenius(exponent % 255), constant))
        forms[number + 2] = (direct.inverse(), AffineMap(frobenius(pow(exponent % 255, -1, 255)), 0))
    return forms


def program(bits, key_bytes, groups=1):
    """The kernel for `bits`-wide vectors and one key length; `groups`
    independent 16-register states interleaved.  Params (rk, in, out): rk the
    n + 1 round keys (encryption or decryption), byte j of key r as a 32-bit
    word at 4 (16 r + j)."""
    rounds = aria.ROUNDS[key_bytes]
    forms = sbox_forms()
    blocks = 16 * (bits // 128) * groups
    b = Builder(f"aria{8 * key_bytes}_byteslice{bits}", bits, ("rk", "in", "out"))

    b.comment(f"Load {blocks} blocks and transpose: register j = byte j of every block.")
    states = load_byte_sliced(b, "in", groups, bits)

    def key(round_index, loop_stride=0):
        steps = (("r", loop_stride),) if loop_stride else ()
        return [b.bcast32("rk", Index(KEY_WORD_BYTES * (16 * round_index + j), steps), f"rk{j}", uniform=True)
                for j in range(16)]

    def substitute(x, layer):
        for j in range(16):
            inner, outer = forms[layer[j % 4]]
            v = b.affine8(x[j], inner, "sin", note=f"SB{layer[j % 4]}'s inner map") if inner else x[j]
            b.assign(x[j], b.affine_inv8(v, outer, "sb", note=f"SB{layer[j % 4]}"))

    def diffuse(x):
        out = [b.xor_tree([x[i] for i in sources], f"a{k}") for k, sources in enumerate(aria.DIFFUSION)]
        for j in range(16):
            b.assign(x[j], out[j])

    def add_key(x, keys):
        for j in range(16):
            b.assign(x[j], b.xor(x[j], keys[j], "k"))

    def full_round(keys, layer):
        for x in states:
            add_key(x, keys)
            substitute(x, layer)
            diffuse(x)

    pairs = (rounds - 2) // 2
    b.comment(f"Rounds 1..{rounds - 2}: odd (SL1) and even (SL2) rounds, each with the diffusion.")
    with b.loop("r", pairs):
        for k, layer in enumerate((aria.SL1, aria.SL2)):
            full_round(key(k, 2 * 16 * KEY_WORD_BYTES), layer)
    b.comment(f"Round {rounds - 1} (odd), then round {rounds}: SL2 between two key additions.")
    full_round(key(rounds - 2), aria.SL1)
    last, after = key(rounds - 1), key(rounds)
    for x in states:
        add_key(x, last)
        substitute(x, aria.SL2)
        add_key(x, after)

    b.comment("Transpose back and store.")
    store_byte_sliced(b, "out", states, bits)
    return b.finish(batch_blocks=blocks, key_form="bytes4", strategy="byteslice", rounds=rounds)


def round_key_bytes(round_keys):
    """The rk parameter: each byte of each round key as a 32-bit word of four copies."""
    return bytearray(byte for rk in round_keys for byte in rk for _ in range(KEY_WORD_BYTES))
