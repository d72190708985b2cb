"""ARIA's key schedule as a kernel program (it reads the key: the
constant-time check must see it), on one 128-bit register per 128-bit value.

FO and FE on one block: the S-box layer computes each of the four S-boxes on
the whole register (aria_byteslice.sbox_forms) and keeps each byte's own by
masks; the diffusion is the XOR of seven byte shuffles of the register (the
involution A split into permutations, gen/linalg byte_xor_shuffles).  A
128-bit rotation by 8q + r bits is a byte shuffle by q and, for r, byte
shifts of it and of its copy shifted by one more byte.  The round keys are
written in the kernels' form (each byte as a 32-bit word of four copies), the
encryption keys ek_1..ek_(n+1) and the decryption keys ek_(n+1), A(ek_n), ...,
A(ek_2), ek_1.  Params (key, ek, dk).
"""

from ..ir import Builder
from ..linalg.shuffle import byte_xor_shuffles, permutation_mask
from ..specs import aria
from .aria_byteslice import KEY_WORD_BYTES, sbox_forms

BLOCK = aria.BLOCK_BYTES


def _mask(bytes_on):
    return bytes(0xFF if on else 0 for on in bytes_on)


def program(key_bytes):
    rounds = aria.ROUNDS[key_bytes]
    b = Builder(f"aria{8 * key_bytes}_key_schedule", 8 * BLOCK, ("key", "ek", "dk"))
    forms = sbox_forms()

    def const(data, label, note):
        return b.const(list(data), label, note)

    def shuffle(x, perm, hint):
        return b.lookup16(x, const(permutation_mask(perm), f"{hint}_mask", f"byte shuffle {hint}"), hint)

    def substitute(x, layer):
        out = None
        for n in sorted(set(layer)):
            inner, outer = forms[n]
            s = b.affine_inv8(b.affine8(x, inner, "sin") if inner else x, outer, f"sb{n}", note=f"SB{n}")
            keep = const(_mask(layer[j % 4] == n for j in range(BLOCK)), f"sb{n}_bytes", f"the bytes SB{n} takes")
            kept = b.and_(s, keep, f"sb{n}k")
            out = kept if out is None else b.or_(out, kept, "sl")
        return out

    def diffuse(x):
        return b.xor_tree([shuffle(x, perm, f"a{k}") for k, perm in enumerate(byte_xor_shuffles(aria.DIFFUSION))],
                          "a")

    def round_function(x, key, layer):
        return diffuse(substitute(b.xor(x, key, "d"), layer))

    def rotl128(x, n):
        """x (big-endian in memory order) rotated left by n bits."""
        q, r = (n % 128) // 8, (n % 128) % 8
        moved = shuffle(x, [(j + q) % BLOCK for j in range(BLOCK)], f"rot{q}")
        if r == 0:
            return moved
        nxt = shuffle(x, [(j + q + 1) % BLOCK for j in range(BLOCK)], f"rot{q + 1}")
        return b.or_(b.shl(moved, r, 8, "rl"), b.shr(nxt, 8 - r, 8, "rr"), "rot")

    b.comment("KL || KR: the key padded with zeros to 256 bits.")
    kl = b.load("key", 0, "kl")
    if key_bytes == BLOCK:
        kr = const(bytes(BLOCK), "zero", "KR of a 128-bit key")
    else:
        tail = b.load("key", key_bytes - BLOCK, "kt")
        offset = 2 * BLOCK - key_bytes
        kr = shuffle(tail, [j + offset if j + offset < BLOCK else None for j in range(BLOCK)], "kr")
    ck = [const(c.to_bytes(BLOCK, "big"), f"ck{i + 1}", f"CK{i + 1} (C1..C3 from 1/pi, in this key length's order)")
          for i, c in enumerate(aria.key_constants(key_bytes))]
    b.comment("W0..W3: the 256-bit Feistel network of three rounds.")
    w0 = kl
    w1 = b.xor(round_function(w0, ck[0], aria.SL1), kr, "w1")
    w2 = b.xor(round_function(w1, ck[1], aria.SL2), w0, "w2")
    w3 = b.xor(round_function(w2, ck[2], aria.SL1), w1, "w3")
    w = (w0, w1, w2, w3)

    expand = [const(bytes(4 * q + t for t in range(4) for _ in range(KEY_WORD_BYTES)), f"expand{q}",
                    f"bytes {4 * q}..{4 * q + 3}, each four times") for q in range(4)]

    def store_key(param, index, value):
        for q in range(4):
            b.store(param, (index * BLOCK + 4 * q) * KEY_WORD_BYTES, b.lookup16(value, expand[q], f"{param}{q}"))

    b.comment(f"ek_1..ek_{rounds + 1} and the decryption keys.")
    keys = []
    for g, rotation in enumerate(aria.ROUND_KEY_ROTATIONS):
        for i in range(4):
            if len(keys) == rounds + 1:
                break
            keys.append(b.xor(w[i], rotl128(w[i + 1], rotation), f"ek{len(keys) + 1}") if i < 3
                        else b.xor(rotl128(w[0], rotation), w[3], f"ek{len(keys) + 1}"))
    for i, key in enumerate(keys):
        store_key("ek", i, key)
    for i, key in enumerate(reversed(keys)):
        store_key("dk", i, key if i in (0, rounds) else diffuse(key))
    return b.finish(key_form="bytes4", rounds=rounds)
