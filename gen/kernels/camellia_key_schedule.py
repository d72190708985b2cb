"""Camellia's key schedule as a kernel program (it reads the key: the
constant-time check must see it), on one 128-bit register per 128-bit value
(gen/kernels/block128.py): D1 || D2 in one register, D1 in bytes 0..7.

F on one half: the key XOR with Sigma in that half's bytes, the four s-boxes
on the whole register (camellia_byteslice.sbox_forms) kept byte by byte by
masks, and the P-function as byte shuffles that read that half and write the
other, so that one XOR adds F(D1) to D2 (or F(D2) to D1).  KA and KB follow
the specification; every subkey is a 64-bit half of KL, KR, KA or KB rotated,
written in the kernels' form in the order the byte-sliced program reads them
(camellia_byteslice.subkey_order) to ek, and in the decryption order to dk.
Params (key, ek, dk).
"""

from ..ir import Builder
from ..specs import camellia
from . import block128
from .camellia_byteslice import SUBKEY_BYTES, sbox_forms, subkey_order
from .camellia_reference import decryption_subkeys

BLOCK = camellia.BLOCK_BYTES
HALF = BLOCK // 2


def decryption_order(key_bytes):
    """The (kind, index) each position of subkey_order takes in the decryption
    order: camellia_reference's reordering applied to the subkeys' names."""
    order = subkey_order(key_bytes)
    names = {kind: [(kind, i) for i in range(sum(k == kind for k, _ in order))] for kind in ("kw", "k", "kl")}
    reordered = decryption_subkeys(names)
    return [reordered[kind][index] for kind, index in order]


def program(key_bytes):
    b = Builder(f"camellia{8 * key_bytes}_key_schedule", 8 * BLOCK, ("key", "ek", "dk"))
    forms = sbox_forms()

    def f_into(d, half, sigma):
        """d with F(half `half` of d, Sigma) XORed into its other half."""
        first = HALF * half
        keyed = b.xor(d, block128.const(b, bytes(first) + sigma.to_bytes(HALF, "big") + bytes(BLOCK - first - HALF),
                                        "sigma", "Sigma in the half F reads"), "t")
        boxes = {n: b.affine_inv8(b.affine8(keyed, inner, "sin"), outer, f"s{n}", note=f"s{n}")
                 for n, (inner, outer) in forms.items()}
        owner = [camellia.S_FUNCTION[(j - first) % HALF] for j in range(BLOCK)]
        s = block128.byte_masked(b, boxes, owner, "s")
        other = HALF * (1 - half)
        sources = [[] for _ in range(BLOCK)]
        for i, row in enumerate(camellia.P_EQUATIONS):
            sources[other + i] = [first + j - 1 for j in row]
        return b.xor(d, block128.xor_map(b, s, sources, "p"), "d")

    b.comment("KL, KR: a 24-byte key's KR is its last 8 bytes, then their complement.")
    kl, kr = block128.key_halves(b, key_bytes)
    if key_bytes == 24:
        kr = b.xor(block128.shuffle(b, kr, [j % HALF for j in range(BLOCK)], "krr"),
                   block128.const(b, bytes(HALF) + b"\xff" * HALF, "not_low", "the complement's half"), "kr")
    b.comment("KA, and KB for 24- and 32-byte keys.")
    d = b.xor(kl, kr, "d")
    d = f_into(d, 0, camellia.sigma(1))
    d = f_into(d, 1, camellia.sigma(2))
    d = b.xor(d, kl, "d")
    d = f_into(d, 0, camellia.sigma(3))
    ka = f_into(d, 1, camellia.sigma(4))
    sources = {"KL": kl, "KR": kr, "KA": ka}
    if key_bytes != BLOCK:
        d = b.xor(ka, kr, "d")
        d = f_into(d, 0, camellia.sigma(5))
        sources["KB"] = f_into(d, 1, camellia.sigma(6))

    b.comment("The subkeys: halves of the rotated values, in the order of use and in the decryption order.")
    halves = {}
    for kind, n, source, rotation, *half in camellia.subkeys(key_bytes):
        value = block128.rotl(b, sources[source], rotation)
        parts = [(0 if half[0] == "L" else HALF)] if half else [0, HALF]
        for k, first in enumerate(parts):
            halves[kind, n - 1 + k] = (value, first)
    size = SUBKEY_BYTES * block128.KEY_WORD_BYTES
    for param, names in (("ek", subkey_order(key_bytes)), ("dk", decryption_order(key_bytes))):
        for position, name in enumerate(names):
            value, first = halves[name]
            block128.store_key_form(b, param, position * size, value, first, HALF)
    return b.finish(key_form="bytes4", rounds=camellia.ROUNDS[key_bytes])
