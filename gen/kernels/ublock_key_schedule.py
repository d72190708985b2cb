"""uBlock's key schedule as IR programs over a nibble-per-byte register,
which the C core (templates/ublock_core.c.j2) calls through the key-schedule
file of its architecture (gen/emit/ublock_files.py).

The key register lives one nibble per byte in 128-bit chunks (64 nibbles at
most: four chunks; uBlock-128/128 uses two).  A second key rides in the high
nibbles of the same bytes, so one pass expands two keys (the paper's parallel
key expansion): XORs and byte moves do not mix the two, and the S-box and T_k
look up each nibble half on its own.

One update K' = K2 ^ S(K0' ^ RC) || K3 ^ T(K1') || K1' || K0', with
K0' || K1' = PK(K0 || K1), is two gathers of the register's nibbles:
`moved` (K2, K3, K1', K0' to their new places) and `fed` (K0', K1' under the
positions that take S and T), then XORs under two position masks.  The
gathers become lookup16 masks per (output chunk, source chunk) of 16 bytes.

Two programs make the key material the kernels read:
  expand_program  the register after every update (RK^i is its first
                  block_bits / 4 nibbles), from the spread key and the round
                  constants;
  fold_program    one step of the nibbleslice key form "folded_sboxes"
                  (gen/kernels/ublock_nibbleslice.folded_tables): per nibble
                  position of a round key the 16-entry table S[x ^ k] ^ c
                  (encryption) or S^-1[x ^ c] ^ k (decryption), c the share of
                  RK^r in the one step that takes it and zero elsewhere.
Every table index is a key nibble in a register (lookup16): no key-dependent
address or branch.
"""

from ..ir import Builder, Index
from ..linalg.shuffle import permutation_mask
from ..specs import ublock

CHUNK = 16
REGISTER_NIBBLES = 64
# A row of the round-constant table expand_program reads: RC_i's 8 nibbles in
# both halves of bytes 0..7 (both keys of the register take it), zeros after.
ROUND_CONSTANT_ROW = CHUNK
EXPAND_PARAMS = ("key", "rc", "out")
FOLD_PARAMS = ("rk", "share", "out")
DIRECTIONS = ("encrypt", "decrypt")


def update_maps(block_bits, key_bits):
    """(moved, fed, sbox_positions, tk_positions): moved[j] / fed[j] = source nibble of
    register nibble j (None: zero)."""
    ublock.check_variant(block_bits, key_bits)
    pk = ublock.PK[block_bits, key_bits]
    q = key_bits // 16  # nibbles per quarter K0..K3
    k0p, k1p = list(pk[:q]), list(pk[q:2 * q])
    moved = list(range(2 * q, 4 * q)) + k1p + k0p
    fed = k0p + k1p + [None] * (2 * q)
    pad = [None] * (REGISTER_NIBBLES - 4 * q)
    return moved + pad, fed + pad, set(range(q)), set(range(q, 2 * q))


def apply_update(register, block_bits, key_bits, rc):
    """One update on a list of nibbles, through the gather form (tests check it
    against the reference's algorithm 3)."""
    moved, fed, s_pos, t_pos = update_maps(block_bits, key_bits)
    rc_nibbles = [rc >> (28 - 4 * i) & 15 for i in range(8)]
    out = []
    for j in range(REGISTER_NIBBLES):
        v = register[moved[j]] if moved[j] is not None else 0
        f = register[fed[j]] if fed[j] is not None else 0
        if j in s_pos:
            v ^= ublock.SBOX[f ^ (rc_nibbles[j] if j < 8 else 0)]
        elif j in t_pos:
            v ^= ublock.tk_double(f)
        out.append(v)
    return out


def chunk_masks(source_map):
    """pshufb masks [output chunk][source chunk] realising a gather of the register."""
    chunks = REGISTER_NIBBLES // CHUNK
    masks = []
    for c in range(chunks):
        row = []
        for s in range(chunks):
            perm = []
            for j in range(CHUNK):
                src = source_map[c * CHUNK + j]
                perm.append(src - s * CHUNK if src is not None and src // CHUNK == s else None)
            row.append(permutation_mask(perm))
        masks.append(row)
    return masks


def position_mask(positions):
    return bytes(0xFF if j in positions else 0 for j in range(REGISTER_NIBBLES))


def round_constant_rows():
    """The table expand_program reads at `rc`: one ROUND_CONSTANT_ROW per update."""
    rows = []
    for rc in ublock.round_constants():
        nibbles = [rc >> (28 - 4 * i) & 15 for i in range(8)]
        rows.append(bytes(v * 0x11 for v in nibbles) + bytes(ROUND_CONSTANT_ROW - 8))
    return rows


def register_chunks(bits):
    """The 128-bit chunks that hold `bits` bits of key or block, a nibble per byte."""
    return bits // 4 // CHUNK


def expand_program(block_bits, key_bits):
    """uBlock-block_bits/key_bits's key expansion on 128-bit vectors.

    key  the key register, a nibble per byte (key_bits / 4 bytes; a second key
         in the high nibbles);
    rc   round_constant_rows(), one row per update;
    out  the first block_bits / 4 bytes of the register before the first
         update and after each: RK^0 .. RK^r, rounds + 1 rows."""
    rounds = ublock.check_variant(block_bits, key_bits)
    chunks, kept = register_chunks(key_bits), register_chunks(block_bits)
    row = kept * CHUNK
    moved, fed, s_pos, t_pos = update_maps(block_bits, key_bits)
    b = Builder(f"ublock{block_bits}_{key_bits}_expand", 128, EXPAND_PARAMS)
    register = [b.var(f"k{c}") for c in range(chunks)]
    for c, var in enumerate(register):
        b.assign(var, b.load("key", CHUNK * c, f"key{c}"))
    with b.loop("r", rounds) as r:
        for c in range(kept):
            b.store("out", Index(CHUNK * c, ((r, row),)), register[c])
        rc = b.load("rc", Index(0, ((r, ROUND_CONSTANT_ROW),)), "rc")
        updated = _update(b, register, moved, fed, s_pos, t_pos, rc)
        for var, value in zip(register, updated):
            b.assign(var, value)
    for c in range(kept):
        b.store("out", rounds * row + CHUNK * c, register[c])
    return b.finish(rounds=rounds, out_row_bytes=row)


def _update(b, register, moved, fed, s_pos, t_pos, rc):
    """The register after one update: moved ^ (S(fed ^ RC) on the S positions)
    ^ (T(fed) on the T positions), chunk by chunk."""
    s_table = b.const(bytes(ublock.SBOX), "sbox", "uBlock's S-box")
    t_table = b.const(bytes(ublock.tk_double(x) for x in range(16)), "tk_double", "T_k: doubling in GF(2^4)")
    moved_chunks = _gather(b, register, moved, "moved")
    fed_chunks = _gather(b, register, fed, "fed")
    out = []
    for c, (moved_chunk, fed_chunk) in enumerate(zip(moved_chunks, fed_chunks)):
        terms = [moved_chunk]
        for table, positions, extra, hint in ((s_table, s_pos, rc, "s"), (t_table, t_pos, None, "t")):
            mask = position_mask(positions)[CHUNK * c:CHUNK * (c + 1)]
            if fed_chunk is None or not any(mask):
                continue
            x = b.xor(fed_chunk, extra, "with_rc") if extra is not None and c == 0 else fed_chunk
            looked = _lookup_both(b, table, x, hint)
            terms.append(looked if all(mask) else b.and_(looked, b.const(mask, f"{hint}_positions",
                                                                        f"the bytes that take {hint.upper()}"), hint))
        out.append(b.xor_all(terms, f"k{c}_next"))
    return out


def _gather(b, register, source_map, hint):
    """Each chunk of the register gathered by `source_map` (register nibble ->
    source nibble or None): one lookup16 per source chunk that supplies it, ORed;
    None for a chunk nothing supplies."""
    masks = chunk_masks(source_map)
    out = []
    for c in range(len(register)):
        parts = []
        for s, mask in enumerate(masks[c][:len(register)]):
            if all(m & 0x80 for m in mask):
                continue
            if bytes(mask) == bytes(range(CHUNK)):
                parts.append(register[s])
            else:
                parts.append(b.lookup16(register[s], b.const(mask, f"{hint}_{c}_{s}",
                                                             f"{hint}: chunk {c} from chunk {s}"), f"{hint}{c}"))
        acc = parts[0] if parts else None
        for part in parts[1:]:
            acc = b.or_(acc, part, f"{hint}{c}")
        out.append(acc)
    return out


def _lookup_both(b, table, x, hint):
    """A 16-entry table of nibbles applied to both nibble halves of every byte."""
    low = b.const(bytes([0x0F] * CHUNK), "low_nibbles", "each byte's low nibble")
    lo = b.lookup16(table, b.and_(x, low, f"{hint}_lo_index"), f"{hint}_lo")
    hi = b.lookup16(table, b.shr(x, 4, 8, f"{hint}_hi_index"), f"{hint}_hi")
    return b.or_(lo, b.shl(hi, 4, 8, f"{hint}_hi_up", known=0x0F), f"{hint}_both")


def fold_program(block_bits, direction):
    """One step of the key form "folded_sboxes" for `block_bits`-bit blocks.

    rk     the step's round key, block_bits / 8 bytes;
    share  a byte per nibble position: c, the share of RK^r, in the step that
           takes it (the last encryption step, the first decryption step),
           zeros in the others;
    out    16 bytes per nibble position: S[x ^ k] ^ c (encryption) or
           S^-1[x ^ c] ^ k (decryption), k the round key's nibble."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction is one of {DIRECTIONS}, got {direction!r}")
    if block_bits not in {n for n, _ in ublock.VARIANTS}:
        raise ValueError(f"uBlock blocks are {sorted({n for n, _ in ublock.VARIANTS})} bits, got {block_bits}")
    encrypt = direction == "encrypt"
    b = Builder(f"ublock{block_bits}_fold_{direction}", 128, FOLD_PARAMS)
    iota = b.const(bytes(range(CHUNK)), "iota", "every table index")
    low = b.const(bytes([0x0F] * CHUNK), "low_nibbles", "each byte's low nibble")
    table = b.const(bytes(ublock.SBOX) if encrypt else bytes(ublock.inverse_sbox()),
                    "sbox" if encrypt else "sbox_inverse", "uBlock's S-box" if encrypt else "its inverse")
    with b.loop("j", block_bits // 8) as j:
        byte = b.bcast8("rk", Index(0, ((j, 1),)), "rk_byte")
        nibbles = (b.shr(byte, 4, 8, "k_hi"), b.and_(byte, low, "k_lo"))  # nibble 2j, then 2j + 1
        for half, k in enumerate(nibbles):
            c = b.bcast8("share", Index(half, ((j, 2),)), "c")
            if encrypt:
                form = b.xor(b.lookup16(table, b.xor(iota, k, "index"), "looked"), c, "form")
            else:
                form = b.xor(b.lookup16(table, b.xor(iota, c, "index"), "looked"), k, "form")
            b.store("out", Index(CHUNK * half, ((j, 2 * CHUNK),)), form)
    return b.finish()
