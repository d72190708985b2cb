"""SM4 straight from the spec, one block at a time: the oracle every kernel
program and every generated C kernel is checked against."""

from ..specs import sm4

MASK32 = 0xFFFFFFFF


def rotl32(x, n):
    return ((x << n) | (x >> (32 - n))) & MASK32


def tau(word):
    """The S-box on each byte of a 32-bit word."""
    return int.from_bytes(bytes(sm4.SBOX[b] for b in word.to_bytes(4, "big")), "big")


def linear(word, rotations):
    out = word
    for r in rotations:
        out ^= rotl32(word, r)
    return out


def key_schedule(key):
    """The 32 encryption round keys of a 16-byte key."""
    if len(key) != sm4.KEY_BYTES:
        raise ValueError(f"SM4 key must be {sm4.KEY_BYTES} bytes, got {len(key)}")
    k = [int.from_bytes(key[4 * i:4 * i + 4], "big") ^ sm4.FK[i] for i in range(4)]
    for i in range(sm4.ROUNDS):
        k.append(k[i] ^ linear(tau(k[i + 1] ^ k[i + 2] ^ k[i + 3] ^ sm4.CK[i]), sm4.L_KEY_ROTATIONS))
    return k[4:]


def crypt_block(round_keys, block):
    """Encrypt (or, with reversed round keys, decrypt) one 16-byte block."""
    x = [int.from_bytes(block[4 * i:4 * i + 4], "big") for i in range(4)]
    for rk in round_keys:
        x.append(x[-4] ^ linear(tau(x[-3] ^ x[-2] ^ x[-1] ^ rk), sm4.L_ROTATIONS))
    return b"".join(w.to_bytes(4, "big") for w in reversed(x[-4:]))


def encrypt_block(key, block):
    return crypt_block(key_schedule(key), block)


def decrypt_block(key, block):
    return crypt_block(key_schedule(key)[::-1], block)
