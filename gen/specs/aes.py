"""AES as the target of field isomorphisms: its field, its S-box and the
AESENCLAST round (FIPS 197).  Nothing here is computed for speed."""

from .validate import check_irreducible

FIELD_POLY = check_irreducible(0x11B, 8, "AES field x^8+x^4+x^3+x+1")

# SubBytes = affine(inverse(x)); the affine map's rows: output bit i is
# b_i ^ b_{i+4} ^ b_{i+5} ^ b_{i+6} ^ b_{i+7} (indices mod 8), then ^ 0x63.
SBOX_AFFINE_CONSTANT = 0x63


def sbox_affine_bit_sources(i):
    """Input bits whose XOR gives output bit i of the S-box's linear part."""
    return [(i + k) % 8 for k in (0, 4, 5, 6, 7)]


# ShiftRows on the 16-byte state (column-major, byte 4*c+r is row r of column c):
# output byte j takes input byte SHIFT_ROWS[j].
SHIFT_ROWS = tuple((4 * ((c + r) % 4) + r) for c in range(4) for r in range(4))
