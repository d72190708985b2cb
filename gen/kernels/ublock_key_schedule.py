"""uBlock's key schedule as byte gathers over a nibble-per-byte register: the
form the C core's vectorized key expansion (templates/ublock_core.c.j2) runs.

One update K' = K2 ^ S(K0' ^ RC) || K3 ^ T(K1') || K1' || K0', with
K0' || K1' = PK(K0 || K1), is two gathers of the register's nibbles:
`moved` (K2, K3, K1', K0' to their new places) and `fed` (K0', K1' under the
positions that take S and T), then XORs under two position masks.  The
gathers become pshufb masks per (output chunk, source chunk) of 16 bytes.
"""

from ..linalg.shuffle import permutation_mask
from ..specs import ublock

CHUNK = 16
REGISTER_NIBBLES = 64


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
