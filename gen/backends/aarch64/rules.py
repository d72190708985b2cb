"""AArch64 legalization rules: AESE for the inversion, SM4E for four SM4
rounds, SLI for rotations and double shifts, TRN and BSL for selections, EOR3 for
three-way XORs (FEAT_SHA3), and the byte shifts that make a nibble's mask
unnecessary."""

from ...ir.semantics import AES_SBOX_CONSTANT, SHIFT_ROWS, aes_sbox_linear
from ...linalg import AffineMap, bit_reversal
from ...linalg.aesni_form import aese_form


def affine_inv_via_aese(rw, op, args):
    """affine_inv8(x, M, c) -> affine8(AESE(invShiftRows(x), k), post): TBL by
    the inverse ShiftRows undoes the instruction's ShiftRows; AESE XORs its key
    before SubBytes, so SubBytes' affine map, constant included, is undone by
    the map after it.  The key is 0, or, where x is a XOR with a value whose
    bytes are all equal (a round key byte), that value: AESE does that XOR,
    and ShiftRows cannot move equal bytes.  Where x is an affine map of y
    that nothing else reads, the bytes are moved first, A(invShiftRows(y))
    (a map of each byte commutes with moving bytes): its nibble tables end in
    a XOR that AESE's key can take (aese_takes_xor)."""
    if op.opcode != "affine_inv8":
        return None
    form = aese_form(op.attrs["map"], aes_sbox_linear(), AES_SBOX_CONSTANT, SHIFT_ROWS)
    mask = rw.const(form.pre_shuffle, "inv_shift_rows", "inverse ShiftRows (AESE's ShiftRows undone)")
    value, key = _without_uniform_term(rw, args[0])
    inner = rw.definition(value)
    if key is None and inner is not None and inner.opcode == "affine8" and rw.source_uses.get(op.args[0]) == 1:
        moved = rw.lookup16(inner.args[0], mask, op.result.name + "_sr")
        shuffled = rw.affine8(moved, inner.attrs["map"], inner.result.name, note=inner.attrs["note"])
    else:
        shuffled = rw.lookup16(value, mask, op.result.name + "_sr")
    if key is None:
        key = rw.const(bytes(16), "zero_key", "AESE key 0: nothing XORed before SubBytes")
    raw = rw._emit("aese", (shuffled, key), op.result.name + "_aes")
    return rw.affine8(raw, form.post, op.result.name,
                      note=f"{op.attrs['note']}, after undoing SubBytes' affine map")


def aese_takes_xor(rw, op, args):
    """AESE(a ^ b, 0) -> AESE(a, b) where nothing else reads a ^ b: the
    instruction XORs its two operands before SubBytes anyway."""
    if op.opcode != "aese" or _const_bytes(rw, args[1]) != bytes(16):
        return None
    inner = rw.definition(args[0])
    if inner is None or inner.opcode != "xor" or rw.source_uses.get(op.args[0]) != 1:
        return None
    return rw._emit("aese", inner.args, op.result.name)


def _is_uniform(rw, value):
    """Whether every byte of `value` is the same: a byte broadcast, or a word
    broadcast whose kernel promises equal bytes."""
    op = rw.definition(value)
    return op is not None and (op.opcode == "bcast8" or op.opcode == "bcast32" and op.attrs.get("uniform"))


def _without_uniform_term(rw, value):
    """(rest, term) where `value` is a tree of XORs with one uniform leaf
    `term` and rest the XOR of the other leaves (rebuilt along the path to the
    term; the XORs it replaces die where nothing else reads them); else
    (value, None)."""
    op = rw.definition(value)
    if op is None or op.opcode != "xor":
        return value, None
    for k in (0, 1):
        if _is_uniform(rw, op.args[k]):
            return op.args[1 - k], op.args[k]
        rest, term = _without_uniform_term(rw, op.args[k])
        if term is not None:
            return rw.xor(rest, op.args[1 - k], op.result.name), term
    return value, None


def _shift_insert(rw, op, high, low):
    """(high << n) | (low >> (lane - n)): USHR then SLI, at any lane width
    (AArch64 shifts bytes too)."""
    n, lane = op.attrs["n"], op.attrs["lane"]
    right = rw.shr(low, lane - n, lane, op.result.name + "_r")
    return rw._emit("sli", (right, high), op.result.name, n=n, lane=lane)


def rotate_by_shift_insert(rw, op, args):
    if op.opcode != "rotl":
        return None
    return _shift_insert(rw, op, args[0], args[0])


def shld_by_shift_insert(rw, op, args):
    if op.opcode != "shld":
        return None
    return _shift_insert(rw, op, args[0], args[1])


def _odd_elements_mask(data):
    """The element width in bytes (1, 2, 4: elements whose doubles a shift
    takes) of a mask that is all ones on the odd elements and zero on the even
    ones, else None."""
    for size in (1, 2, 4):
        if data == (bytes(size) + b"\xff" * size) * (8 // size):
            return size
    return None


def select_as_trn(rw, op, args):
    """select(odd elements, x >> e, y) -> TRN2(x, y) and select(odd elements,
    x, y << e) -> TRN1(x, y), with e the element width and the shift of
    double-width elements: one instruction for a shift and a select."""
    if op.opcode != "select":
        return None
    data = _const_bytes(rw, args[0])
    size = data and _odd_elements_mask(data)
    if not size:
        return None
    bits = 8 * size
    for shifted, opcode, half in ((args[1], "shr", 2), (args[2], "shl", 1)):
        shift = rw.definition(shifted)
        if shift is not None and shift.opcode == opcode and shift.attrs["lane"] == 2 * bits \
                and shift.attrs["n"] == bits:
            a, b = (shift.args[0], args[2]) if half == 2 else (args[1], shift.args[0])
            return rw._emit("trn", (a, b), op.result.name, half=half, lane=bits)
    return None


def select_by_bsl(rw, op, args):
    if op.opcode != "select":
        return None
    return rw._emit("bsl", args, op.result.name)


def sm4_rounds_by_sm4e(rw, op, args):
    if op.opcode != "sm4_rounds4":
        return None
    return rw._emit("sm4e", args, op.result.name)


def _const_bytes(rw, value):
    op = rw.definition(value)
    return op.attrs["data"] if op is not None and op.opcode == "const" else None


def mask_after_byte_shift(rw, op, args):
    """and(shr8(x, n), m) -> shr8(x, n) where m keeps every bit the byte shift
    can leave set: USHR on bytes already clears them (the AND that takes a
    nibble after a shift by 4, which x86 needs for its 16-bit shift)."""
    if op.opcode != "and":
        return None
    for shifted, mask in ((args[0], args[1]), (args[1], args[0])):
        shift = rw.definition(shifted)
        data = _const_bytes(rw, mask)
        if shift is None or shift.opcode != "shr" or shift.attrs["lane"] != 8 or data is None:
            continue
        kept = 0xFF >> shift.attrs["n"]
        if all(byte & kept == kept for byte in data):
            return rw.shr(shift.args[0], shift.attrs["n"], 8, op.result.name)
    return None


# REV's forms: (group bytes, element bytes) -> REV64/REV32/REV16 on 8-, 16- or 32-bit elements.
REV_FORMS = ((8, 1), (4, 1), (2, 1), (8, 2), (4, 2), (8, 4))


def rev_pattern(group, element):
    """The byte indices of reversing `element`-byte elements within every
    `group`-byte group: what lookup16 needs to do a REV."""
    per = group // element
    return bytes(g * group + (per - 1 - e) * element + k
                 for g in range(16 // group) for e in range(per) for k in range(element))


def lookup_as_rev(rw, op, args):
    """lookup16(x, constant) whose constant reverses elements within groups
    (a byte swap, a rotation by half a word) -> one REV: no index register,
    and on Neoverse V1 a REV goes to any of the four vector pipes where TBL
    takes two cycles of V0/V1."""
    if op.opcode != "lookup16":
        return None
    data = _const_bytes(rw, args[1])
    for group, element in REV_FORMS:
        if data == rev_pattern(group, element):
            return rw._emit("rev", (args[0],), op.result.name, group=group, element=element)
    return None


def xor3_by_eor3(rw, op, args):
    """xor(xor(a, b), c) -> EOR3(a, b, c) (FEAT_SHA3) where nothing else reads
    the inner XOR: one instruction for two."""
    if op.opcode != "xor":
        return None
    for k in (0, 1):
        inner = rw.definition(args[k])
        if inner is not None and inner.opcode == "xor" and rw.source_uses.get(op.args[k], 0) == 1:
            return rw._emit("eor3", (inner.args[0], inner.args[1], args[1 - k]), op.result.name)
    return None


def clmul_by_pmull(rw, op, args):
    """PMULL multiplies the low halves of its operands, PMULL2 the high ones:
    a clmul of a's half h and b's other half takes a with its halves
    swapped (one TBL; shared by every product of a that needs it) and b's h."""
    if op.opcode != "clmul" or op.attrs["halves"][0] == op.attrs["halves"][1]:
        return None
    swap = rw.const(bytes(list(range(8, 16)) + list(range(8))), "swap_qwords", "the two 64-bit halves exchanged")
    swapped = rw.lookup16(args[0], swap, op.args[0].name + "_swap")
    half = op.attrs["halves"][1]
    return rw._emit("clmul", (swapped, args[1]), op.result.name, halves=(half, half))


BYTE_BIT_REVERSAL = AffineMap(bit_reversal(8), 0)


def bit_reversal_by_rbit(rw, op, args):
    """The map that reverses the bits of every byte is one RBIT."""
    if op.opcode != "affine8" or op.attrs["map"] != BYTE_BIT_REVERSAL:
        return None
    return rw._emit("rbit", args, op.result.name)
