"""ARIA's key schedule as a kernel program (it reads the key: the
constant-time check must see it), on one 128-bit register per 128-bit value
(gen/kernels/block128.py).

FO and FE on one block: the S-box layer computes each of the four S-boxes on
the whole register (aria_byteslice.sbox_forms) and keeps each byte's own by
masks; the diffusion is the XOR of seven byte shuffles.  The round keys are
written in the kernels' form, the encryption keys ek_1..ek_(n+1) and the
decryption keys ek_(n+1), A(ek_n), ..., A(ek_2), ek_1.  Params (key, ek, dk).
"""

from ..ir import Builder
from ..specs import aria
from . import block128
from .aria_byteslice import sbox_forms

BLOCK = aria.BLOCK_BYTES


def program(key_bytes):
    rounds = aria.ROUNDS[key_bytes]
    b = Builder(f"aria{8 * key_bytes}_key_schedule", 8 * BLOCK, ("key", "ek", "dk"))
    forms = sbox_forms()

    def substitute(x, layer):
        boxes = {}
        for n in sorted(set(layer)):
            inner, outer = forms[n]
            boxes[n] = b.affine_inv8(b.affine8(x, inner, "sin") if inner else x, outer, f"sb{n}", note=f"SB{n}")
        return block128.byte_masked(b, boxes, [layer[j % 4] for j in range(BLOCK)], "sb")

    def diffuse(x):
        return block128.xor_map(b, x, aria.DIFFUSION, "a")

    def round_function(x, key, layer):
        return diffuse(substitute(b.xor(x, key, "d"), layer))

    b.comment("KL || KR: the key padded with zeros to 256 bits.")
    kl, kr = block128.key_halves(b, key_bytes)
    ck = [block128.const(b, c.to_bytes(BLOCK, "big"), f"ck{i + 1}",
                         f"CK{i + 1} (C1..C3 from 1/pi, in this key length's order)")
          for i, c in enumerate(aria.key_constants(key_bytes))]
    b.comment("W0..W3: the 256-bit Feistel network of three rounds.")
    w0 = kl
    w1 = b.xor(round_function(w0, ck[0], aria.SL1), kr, "w1")
    w2 = b.xor(round_function(w1, ck[1], aria.SL2), w0, "w2")
    w3 = b.xor(round_function(w2, ck[2], aria.SL1), w1, "w3")
    w = (w0, w1, w2, w3)

    b.comment(f"ek_1..ek_{rounds + 1} and the decryption keys.")
    keys = []
    for rotation in aria.ROUND_KEY_ROTATIONS:
        for i in range(4):
            if len(keys) == rounds + 1:
                break
            keys.append(b.xor(w[i], block128.rotl(b, w[i + 1], rotation), f"ek{len(keys) + 1}") if i < 3
                        else b.xor(block128.rotl(b, w[0], rotation), w[3], f"ek{len(keys) + 1}"))
    size = BLOCK * block128.KEY_WORD_BYTES
    for i, key in enumerate(keys):
        block128.store_key_form(b, "ek", i * size, key)
    for i, key in enumerate(reversed(keys)):
        block128.store_key_form(b, "dk", i * size, key if i in (0, rounds) else diffuse(key))
    return b.finish(key_form="bytes4", rounds=rounds)
