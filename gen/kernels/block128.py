"""One 128-bit value in one register, big-endian in memory order (byte 0 the
most significant): the byte moves the key-schedule programs make on it.  A
rotation by 8q + r bits is a byte shuffle by q and, for r, byte shifts of it
and of its copy moved by one more byte; a byte-wise XOR map is the XOR of
byte shuffles (gen/linalg byte_xor_shuffles); the kernels' key form writes
each byte as a 32-bit word of four copies."""

from ..linalg.shuffle import byte_xor_shuffles, permutation_mask

BYTES = 16
KEY_WORD_BYTES = 4   # the kernels' key form: a key byte as a 32-bit word of four copies


def const(b, data, label, note):
    return b.const(list(data), label, note)


def shuffle(b, x, perm, hint):
    """Output byte j = x's byte perm[j] (None: zero)."""
    return b.lookup16(x, const(b, permutation_mask(perm), f"{hint}_mask", f"byte shuffle {hint}"), hint)


def rotl(b, x, n):
    """x rotated left by n bits (negative: right)."""
    q, r = (n % 128) // 8, (n % 128) % 8
    moved = shuffle(b, x, [(j + q) % BYTES for j in range(BYTES)], f"rot{q}")
    if r == 0:
        return moved
    nxt = shuffle(b, x, [(j + q + 1) % BYTES for j in range(BYTES)], f"rot{q + 1}")
    return b.or_(b.shl(moved, r, 8, "rl"), b.shr(nxt, 8 - r, 8, "rr"), "rot")


def xor_map(b, x, sources, hint):
    """Output byte i = the XOR of x's bytes sources[i] (16 lists)."""
    return b.xor_tree([shuffle(b, x, perm, f"{hint}{k}") for k, perm in enumerate(byte_xor_shuffles(sources))],
                      hint)


def byte_masked(b, values, owner, hint):
    """Byte j from values[owner[j]] (a dict of registers): AND with masks, then OR."""
    out = None
    for key in sorted(set(owner)):
        mask = const(b, bytes(0xFF if owner[j] == key else 0 for j in range(BYTES)), f"{hint}{key}_bytes",
                     f"the bytes {hint}{key} takes")
        kept = b.and_(values[key], mask, f"{hint}{key}k")
        out = kept if out is None else b.or_(out, kept, hint)
    return out


def store_key_form(b, param, offset, value, first=0, count=BYTES):
    """Bytes first..first+count-1 of value in the kernels' key form at param + offset."""
    for q in range(count // 4):
        picks = [first + 4 * q + t for t in range(4) for _ in range(KEY_WORD_BYTES)]
        b.store(param, offset + 4 * q * KEY_WORD_BYTES, shuffle(b, value, picks, f"{param}x"))


def key_halves(b, key_bytes):
    """A 16-, 24- or 32-byte key at param "key" as two registers: its first 16
    bytes, and the rest at the start of the second, zeros after (a load of the
    key's last 16 bytes, moved down: nothing past the key is read)."""
    first = b.load("key", 0, "kl")
    if key_bytes == BYTES:
        return first, const(b, bytes(BYTES), "zero", "no key bytes past 16")
    tail = b.load("key", key_bytes - BYTES, "kt")
    offset = 2 * BYTES - key_bytes
    return first, shuffle(b, tail, [j + offset if j + offset < BYTES else None for j in range(BYTES)], "kr")
