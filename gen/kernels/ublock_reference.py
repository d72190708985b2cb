"""uBlock straight from the spec, one block at a time on nibble lists: the
oracle every kernel program and every generated C kernel is checked against.

A state half is a list of nibbles (gen/specs/ublock.py's numbering); the
functions below are the spec's steps with nothing fused or reordered.
"""

from ..linalg.shuffle import inverse_permutation
from ..specs import ublock
from ..specs.validate import SpecError


def to_nibbles(data):
    """Bytes -> nibbles, high nibble first."""
    return [n for byte in data for n in (byte >> 4, byte & 15)]


def from_nibbles(nibbles):
    return bytes(nibbles[i] << 4 | nibbles[i + 1] for i in range(0, len(nibbles), 2))


def rotate_words(half, bits):
    """<<<_32 bits on every 8-nibble word of a half."""
    rot = ublock.nibble_rotation(bits)
    return [half[w + rot[i]] for w in range(0, len(half), 8) for i in range(8)]


def permute_bytes(half, perm):
    """Output byte j = input byte perm[j], on nibble lists."""
    return [half[2 * perm[j] + k] for j in range(len(perm)) for k in (0, 1)]


def xor(a, b):
    return [x ^ y for x, y in zip(a, b)]


def sub(half, table):
    return [table[x] for x in half]


def linear_layer(x0, x1):
    """Steps 6-11 of algorithm 1 (after the S-boxes, before PL/PR)."""
    x1 = xor(x1, x0)
    for step, bits in enumerate(ublock.ROTATIONS):
        if step % 2 == 0:
            x0 = xor(x0, rotate_words(x1, bits))
        else:
            x1 = xor(x1, rotate_words(x0, bits))
    return xor(x0, x1), x1


def linear_layer_inverse(y0, y1):
    """Steps 8-13 of algorithm 2: undoes linear_layer."""
    y0 = xor(y0, y1)
    for step, bits in reversed(list(enumerate(ublock.ROTATIONS))):
        if step % 2 == 0:
            y0 = xor(y0, rotate_words(y1, bits))
        else:
            y1 = xor(y1, rotate_words(y0, bits))
    return y0, xor(y1, y0)


def check_lengths(block_bits, key_bits, key=None, block=None):
    rounds = ublock.check_variant(block_bits, key_bits)
    if key is not None and len(key) != key_bits // 8:
        raise SpecError(f"uBlock-{block_bits}/{key_bits} needs a {key_bits // 8}-byte key, got {len(key)} bytes")
    if block is not None and len(block) != block_bits // 8:
        raise SpecError(f"uBlock-{block_bits}/{key_bits} blocks are {block_bits // 8} bytes, got {len(block)}")
    return rounds


def round_keys(block_bits, key_bits, key):
    """RK^0 .. RK^r as nibble lists of block_bits / 4 nibbles (algorithm 3)."""
    rounds = check_lengths(block_bits, key_bits, key=key)
    pk = ublock.PK[block_bits, key_bits]
    rc = ublock.round_constants()
    k = to_nibbles(key)
    q = len(k) // 4
    out = [k[:block_bits // 4]]
    for i in range(1, rounds + 1):
        k01 = [k[p] for p in pk]
        k0, k1, k2, k3 = k01[:q], k01[q:], k[2 * q:3 * q], k[3 * q:]
        k0_rc = xor(k0, to_nibbles(rc[i - 1].to_bytes(4, "big")) + [0] * (q - 8))
        k2 = xor(k2, sub(k0_rc, ublock.SBOX))
        k3 = xor(k3, [ublock.tk_double(v) for v in k1])
        k = k2 + k3 + k1 + k0
        out.append(k[:block_bits // 4])
    return out


def encrypt_block(block_bits, key_bits, key, block, rks=None):
    rounds = check_lengths(block_bits, key_bits, key=key, block=block)
    rks = rks or round_keys(block_bits, key_bits, key)
    half = block_bits // 8
    x = to_nibbles(block)
    x0, x1 = x[:half], x[half:]
    for i in range(rounds):
        x0 = sub(xor(x0, rks[i][:half]), ublock.SBOX)
        x1 = sub(xor(x1, rks[i][half:]), ublock.SBOX)
        x0, x1 = linear_layer(x0, x1)
        x0, x1 = permute_bytes(x0, ublock.PL[block_bits]), permute_bytes(x1, ublock.PR[block_bits])
    return from_nibbles(xor(x0 + x1, rks[rounds]))


def decrypt_block(block_bits, key_bits, key, block, rks=None):
    rounds = check_lengths(block_bits, key_bits, key=key, block=block)
    rks = rks or round_keys(block_bits, key_bits, key)
    half = block_bits // 8
    inv = ublock.inverse_sbox()
    y = to_nibbles(block)
    y0, y1 = y[:half], y[half:]
    for i in range(rounds, 0, -1):
        y0, y1 = xor(y0, rks[i][:half]), xor(y1, rks[i][half:])
        y0 = permute_bytes(y0, inverse_permutation(ublock.PL[block_bits]))
        y1 = permute_bytes(y1, inverse_permutation(ublock.PR[block_bits]))
        y0, y1 = linear_layer_inverse(y0, y1)
        y0, y1 = sub(y0, inv), sub(y1, inv)
    return from_nibbles(xor(y0 + y1, rks[0]))


def ecb(block_bits, key_bits, key, data, encrypt=True):
    step = block_bits // 8
    if len(data) % step:
        raise SpecError(f"ECB needs whole {step}-byte blocks, got {len(data)} bytes")
    rks = round_keys(block_bits, key_bits, key)
    fn = encrypt_block if encrypt else decrypt_block
    return b"".join(fn(block_bits, key_bits, key, data[i:i + step], rks) for i in range(0, len(data), step))


def cbc(block_bits, key_bits, key, iv, data, encrypt=True):
    step = block_bits // 8
    if len(iv) != step or len(data) % step:
        raise SpecError(f"CBC needs a {step}-byte IV and whole {step}-byte blocks")
    rks = round_keys(block_bits, key_bits, key)
    out, chain = [], iv
    for i in range(0, len(data), step):
        block = data[i:i + step]
        if encrypt:
            chain = encrypt_block(block_bits, key_bits, key, bytes(a ^ b for a, b in zip(block, chain)), rks)
            out.append(chain)
        else:
            plain = decrypt_block(block_bits, key_bits, key, block, rks)
            out.append(bytes(a ^ b for a, b in zip(plain, chain)))
            chain = block
    return b"".join(out)


def ctr(block_bits, key_bits, key, iv, data):
    """CTR: the IV is one big-endian integer of the block's width, +1 per block."""
    step = block_bits // 8
    if len(iv) != step:
        raise SpecError(f"CTR needs a {step}-byte IV, got {len(iv)} bytes")
    rks = round_keys(block_bits, key_bits, key)
    counter = int.from_bytes(iv, "big")
    out = bytearray()
    for i in range(0, len(data), step):
        stream = encrypt_block(block_bits, key_bits, key, counter.to_bytes(step, "big"), rks)
        out += bytes(a ^ b for a, b in zip(data[i:i + step], stream))
        counter = (counter + 1) % (1 << block_bits)
    return bytes(out)
