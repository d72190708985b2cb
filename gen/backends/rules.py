"""Legalization rules: how abstract IR ops become the ops a target has.

Each rule takes (rewriter, op, mapped args) and returns the replacement value,
or None to decline.  Targets list the rules they want, in order.
"""

from ..linalg import AffineMap, BitMatrix, nibble_tables, rotate_words_mask, rotl

IDENTITY8 = AffineMap(BitMatrix.identity(8), 0)


def _defined_by(rw, value, opcode):
    op = rw.definition(value)
    return op if op is not None and op.opcode == opcode else None


def _fuse_into_consumer(rw, op, args, inner_opcode, build):
    """affine8(inner(x, map1), map2) -> build(x, map2∘map1) when the value
    affine8 reads was made by `inner_opcode`."""
    if op.opcode != "affine8":
        return None
    inner = _defined_by(rw, args[0], inner_opcode)
    if inner is None:
        return None
    return build(inner.args[0], op.attrs["map"] @ inner.attrs["map"], op.result.name,
                 note=f"{op.attrs['note']} after {inner.attrs['note']}")


def fuse_affine_after_inverse(rw, op, args):
    """affine8(affine_inv8(x, M, c), M2, c2) -> affine_inv8(x, (M2,c2)∘(M,c)):
    free on GFNI, where the inversion comes with any affine map attached."""
    return _fuse_into_consumer(rw, op, args, "affine_inv8", rw.affine_inv8)


def fuse_affine_chain(rw, op, args):
    """affine8(affine8(x, M1, c1), M2, c2) -> affine8(x, (M2,c2)∘(M1,c1))."""
    return _fuse_into_consumer(rw, op, args, "affine8", rw.affine8)


def drop_identity_affine(rw, op, args):
    if op.opcode == "affine8" and op.attrs["map"] == IDENTITY8:
        return args[0]
    return None


def affine_via_nibble_tables(rw, op, args):
    """affine8 -> two 16-entry table lookups (pshufb) on the nibbles, XORed."""
    if op.opcode != "affine8":
        return None
    lo_table, hi_table = nibble_tables(op.attrs["map"])
    note = op.attrs["note"] or "affine map"
    mask = rw.const(bytes([0x0F] * 16), "nibble_mask", "low nibble of every byte")
    lo_t = rw.const(lo_table, "tbl_lo", f"{note}: low-nibble table (constant folded in)")
    hi_t = rw.const(hi_table, "tbl_hi", f"{note}: high-nibble table")
    lo = rw.and_(args[0], mask, op.args[0].name + "_lo")
    # The AND keeps the low nibble of the shift: its other bits are left unspecified (care).
    hi = rw.and_(rw.shr(args[0], 4, 8, op.args[0].name + "_sh", care=0x0F), mask, op.args[0].name + "_hi")
    return rw.xor(rw.lookup16(lo_t, lo, op.result.name + "_l"), rw.lookup16(hi_t, hi, op.result.name + "_h"),
                  op.result.name)


def sbox8_by_nibble_tables(rw, op, args):
    """sbox8 -> for each high nibble h, the table's row h (entries 16h..16h+15)
    looked up by the low nibble, kept where the high nibble is h (a lookup of
    a one-hot row by the high nibble), XORed over h: 32 16-entry lookups, for
    a target with no byte permutation of 256 entries.  Every index is data in
    a register: no address depends on it."""
    if op.opcode != "sbox8":
        return None
    table, note = op.attrs["table"], op.attrs["note"] or "table"
    name = op.result.name
    mask = rw.const(bytes([0x0F] * 16), "nibble_mask", "low nibble of every byte")
    lo = rw.and_(args[0], mask, name + "_lo")
    # The AND keeps the low nibble of the shift: its other bits are left unspecified (care).
    hi = rw.and_(rw.shr(args[0], 4, 8, name + "_sh", care=0x0F), mask, name + "_hi")
    parts = []
    for h in range(16):
        row = rw.const(table[16 * h:16 * (h + 1)], f"row{h:x}", f"{note}: entries 0x{h:x}0..0x{h:x}f")
        hit = rw.const(bytes(0xFF if i == h else 0 for i in range(16)), f"is{h:x}",
                       f"0xff where the high nibble is 0x{h:x}")
        parts.append(rw.and_(rw.lookup16(row, lo, f"{name}_row{h:x}"), rw.lookup16(hit, hi, f"{name}_is{h:x}"),
                             f"{name}_{h:x}"))
    return rw.xor_tree(parts, name)


def rotate_bytes_by_shuffle(rw, op, args):
    """A rotation by a multiple of 8 bits is a byte shuffle."""
    if op.opcode != "rotl" or op.attrs["n"] % 8:
        return None
    mask = rw.const(rotate_words_mask(op.attrs["lane"] // 8, op.attrs["n"]), f"rotl{op.attrs['n']}",
                    f"rotate each {op.attrs['lane']}-bit word left by {op.attrs['n']} (byte shuffle)")
    return rw.lookup16(args[0], mask, op.result.name)


def _shifted_pair(rw, op, high, low):
    """(high << n) | (low >> (lane - n)) by two shifts and an OR: a funnel
    shift, and with high = low a rotation."""
    n, lane = op.attrs["n"], op.attrs["lane"]
    left = rw.shl(high, n, lane, op.result.name + "_l")
    right = rw.shr(low, lane - n, lane, op.result.name + "_r")
    return rw.or_(left, right, op.result.name)


def rotate_by_shifts(rw, op, args):
    if op.opcode != "rotl":
        return None
    return _shifted_pair(rw, op, args[0], args[0])


def rotate_bytes_as_affine(rw, op, args):
    """A rotation of each byte is a linear map of the byte: on GFNI targets it
    becomes one GF2P8AFFINEQB instead of two shifts and an OR (and on x86 an
    AND after each shift: byte_shift_by_word_shift)."""
    if op.opcode != "rotl" or op.attrs["lane"] != 8:
        return None
    n = op.attrs["n"]
    matrix = BitMatrix.from_function(lambda x: rotl(x, n, 8), 8, 8)
    return rw.affine8(args[0], AffineMap(matrix, 0), op.result.name, note=f"rotate each byte left by {n}")


def select_by_masks(rw, op, args):
    if op.opcode != "select":
        return None
    mask, a, b = args
    return rw.or_(rw.and_(b, mask, op.result.name + "_b"), rw.andnot(mask, a, op.result.name + "_a"), op.result.name)


def shld_by_shifts(rw, op, args):
    if op.opcode != "shld":
        return None
    return _shifted_pair(rw, op, args[0], args[1])


def shld_half_by_rotations(rw, op, args):
    """shld(a, b, 16) on 32-bit words = b's high half under a's low half, i.e.
    a 16-bit blend of the two words rotated by 16: byte shuffles and a blend,
    and the rotations are shared when the same words meet again (ZUC's BR)."""
    if op.opcode != "shld" or op.attrs["lane"] != 32 or op.attrs["n"] != 16:
        return None
    high16 = rw.const(bytes([0, 0, 0xFF, 0xFF] * 4), "high16", "high 16 bits of every 32-bit word")
    a_rot = rw.rotl(args[0], 16, 32, op.args[0].name + "_sw")
    b_rot = rw.rotl(args[1], 16, 32, op.args[1].name + "_sw")
    return rw.select(high16, b_rot, a_rot, op.result.name)


def _half_in_both(rw, value, half, name):
    """(q, q) from q, the 64-bit half `half` of each 128-bit block of value: a byte shuffle."""
    picks = bytes(8 * half + i % 8 for i in range(16))
    index = rw.const(picks, f"qword{half}_twice", f"64-bit half {half} of a block in both halves (byte indices)")
    return rw.lookup16(value, index, name)


def clmul_by_shifts(rw, op, args):
    """clmul on a target without a carry-less multiply: the schoolbook product
    XOR over bits i of x of (y << i), in each 128-bit block, from shifts of
    64-bit elements and masks.  x and y (the chosen halves) are copied into
    both halves of a block; bit i of x becomes a mask of both halves by
    (bit - 1) = 0 or all ones, which clears (ANDNOT) or keeps the 128-bit
    term y << i: its low half y << i from the low element, its high half
    y >> (64 - i) from the high one.  Some 640 instructions per product:
    it is correct and constant-time, not fast."""
    if op.opcode != "clmul":
        return None
    name = op.result.name
    x = _half_in_both(rw, args[0], op.attrs["halves"][0], name + "_x")
    y = _half_in_both(rw, args[1], op.attrs["halves"][1], name + "_y")
    one = rw.const((1).to_bytes(8, "little") * 2, "qword_one", "1 in each 64-bit element")
    ones = rw.const(bytes([0xFF] * 16), "all_ones", "every bit set: -1 in each 64-bit element")
    low = rw.const(bytes([0xFF] * 8 + [0] * 8), "low_qword", "the low 64-bit half of a block")
    terms = []
    for i in range(64):
        bit = rw.and_(rw.shr(x, i, 64, f"{name}_b{i}") if i else x, one, f"{name}_bit{i}")
        keep_not = rw.add(bit, ones, 64, f"{name}_nm{i}")      # bit - 1: 0 keeps the term, all ones clears it
        if i:
            shifted = rw.or_(rw.and_(rw.shl(y, i, 64, f"{name}_l{i}"), low, f"{name}_lo{i}"),
                             rw.andnot(low, rw.shr(y, 64 - i, 64, f"{name}_h{i}"), f"{name}_hi{i}"), f"{name}_t{i}")
        else:
            shifted = rw.and_(y, low, f"{name}_t0")
        terms.append(rw.andnot(keep_not, shifted, f"{name}_p{i}"))
    return rw.xor_tree(terms, name)
