"""x86 legalization rules: AES-NI's AESENCLAST, GFNI's affine instructions,
word shifts for byte shifts, PBLENDVB, VPTERNLOGD and VPERMI2B.  Targets list
them after or beside the neutral rules of gen/backends/rules.py."""

from ...ir.semantics import AES_SBOX_CONSTANT, SHIFT_ROWS, aes_sbox_linear
from ...linalg import aesni_form, gfni_qword
from .ops import permute2b


def affine_inv_via_aesenclast(rw, op, args):
    """affine_inv8(x, M, c) -> affine8(AESENCLAST(invShiftRows(x), 0x63..), M·A_aes^-1, c'):
    the inverse-ShiftRows shuffle undoes the instruction's ShiftRows and the key
    cancels SubBytes' constant, leaving A_aes·inv(x); the map after it absorbs A_aes^-1."""
    if op.opcode != "affine_inv8":
        return None
    form = aesni_form(op.attrs["map"], aes_sbox_linear(), AES_SBOX_CONSTANT, SHIFT_ROWS)
    mask = rw.const(form.pre_shuffle, "inv_shift_rows", "inverse ShiftRows (AESENCLAST's ShiftRows undone)")
    key = rw.const(form.round_key16, "aes_cancel_key", "AESENCLAST key = SubBytes constant 0x63: cancels it")
    shuffled = rw.lookup16(args[0], mask, op.result.name + "_sr")
    raw = rw._emit("aesenclast", (shuffled, key), op.result.name + "_aes")
    return rw.affine8(raw, form.post, op.result.name,
                      note=f"{op.attrs['note']}, times A_aes^-1 (undoes SubBytes' affine)")


def _gfni_matrix_const(rw, affine_map, note):
    qword = gfni_qword(affine_map.linear).to_bytes(8, "little")
    return rw.const(qword * 2, "gfni_mat", f"{note or 'affine map'}: GFNI matrix qword")


def affine_via_gfni(rw, op, args):
    if op.opcode not in ("affine8", "affine_inv8"):
        return None
    m = _gfni_matrix_const(rw, op.attrs["map"], op.attrs["note"])
    opcode = "gf2p8affine" if op.opcode == "affine8" else "gf2p8affineinv"
    return rw._emit(opcode, (args[0], m), op.result.name, imm=op.attrs["map"].constant)


def split_aesenclast_256(rw, op, args):
    """A 256-bit AESENCLAST on an ISA with only the 128-bit one: two halves."""
    if op.opcode != "aesenclast" or rw.bits != 256:
        return None
    halves = []
    for lane in (0, 1):
        x = rw._emit("extract128", (args[0],), f"{op.result.name}_in{lane}", bits=128, lane=lane)
        k = rw._emit("extract128", (args[1],), f"{op.result.name}_k{lane}", bits=128, lane=lane)
        halves.append(rw._emit("aesenclast", (x, k), f"{op.result.name}_{lane}", bits=128))
    return rw._emit("concat128", tuple(halves), op.result.name)


def _bits_crossing(opcode, n, known):
    """The bits a 16-bit shift by n can bring into a byte from its neighbour
    when only `known` bits may be set in the input bytes: shl moves the top n
    bits of the byte below into the low n bits, shr the low n bits of the byte
    above into the top n bits."""
    if opcode == "shl":
        return (known & ~(0xFF >> n)) >> (8 - n)
    return (known << (8 - n)) & 0xFF


def _byte_mask(opcode, n):
    """The result bits a byte shift by n fills from the byte itself."""
    return (0xFF << n) & 0xFF if opcode == "shl" else 0xFF >> n


def byte_shift_by_word_shift(rw, op, args):
    """x86 shifts no element narrower than 16 bits: a byte shift by n is the
    16-bit shift by n, which moves n bits of each byte into its neighbour, and
    an AND that clears them.  The AND is left out exactly where the op's masks
    show it changes nothing a user reads: no bit that can cross (from `known`)
    lands on a bit a user reads (`care`)."""
    if op.opcode not in ("shl", "shr") or op.attrs["lane"] != 8:
        return None
    n, name = op.attrs["n"], op.result.name
    wide = getattr(rw, op.opcode)(args[0], n, 16, name)
    if not _bits_crossing(op.opcode, n, op.attrs.get("known", 0xFF)) & op.attrs.get("care", 0xFF):
        return wide
    own = bytes([_byte_mask(op.opcode, n)] * 16)
    if op.opcode == "shl":
        mask = rw.const(own, f"byte_high{8 - n}", f"top {8 - n} bits of every byte")
    else:
        mask = rw.const(own, f"byte_low{8 - n}", f"low {8 - n} bits of every byte")
    return rw.and_(wide, mask, name + "m")


# Every x86 target runs this pass after the rules that write byte shifts.
BYTE_SHIFT_PASS = (byte_shift_by_word_shift,)


def _byte_uniform(rw, value):
    """Whether `value` is a constant whose bytes are all 0x00 or 0xFF."""
    op = rw.definition(value)
    return op is not None and op.opcode == "const" and set(op.attrs["data"]) <= {0x00, 0xFF}


def select_by_blendv(rw, op, args):
    """select with a whole-byte constant mask is one PBLENDVB."""
    if op.opcode != "select" or not _byte_uniform(rw, args[0]):
        return None
    mask, a, b = args
    return rw._emit("blendv", (a, b, mask), op.result.name)


def select_by_ternary_logic(rw, op, args):
    """AVX-512: m ? b : a in one VPTERNLOGD, truth table 0xD8 for the operand
    order (a, b, m): the instruction overwrites its first operand, which is
    better a temporary than the constant mask."""
    if op.opcode != "select":
        return None
    mask, a, b = args
    return rw._emit("ternlog", (a, b, mask), op.result.name, imm=0xD8)


def shuffle_i32x4_picks(picks, same):
    """The 128-bit block picks (a's blocks 0-3, b's 4-7) one VSHUFI32X4 makes
    at 512 bits: blocks 0, 1 from a and 2, 3 from b (any from either when
    a and b are one value)."""
    return len(picks) == 4 and (same or max(picks[:2]) < 4 and min(picks[2:]) >= 4)


def blocks128_by_permute2q(rw, op, args):
    """512-bit blocks128 that VSHUFI32X4 cannot make: VPERMI2Q with a
    constant index of qwords (a's 0-7, b's 8-15), two per picked block."""
    if op.opcode != "blocks128" or rw.bits != 512:
        return None
    picks = op.attrs["picks"]
    if shuffle_i32x4_picks(picks, args[0] is args[1]):
        return None
    qwords = [2 * p + k for p in picks for k in (0, 1)]
    index = rw.const(b"".join(q.to_bytes(8, "little") for q in qwords), f"{op.result.name}_picks",
                     f"VPERMI2Q qword indices of 128-bit blocks {picks} (a's 0-3, b's 4-7)")
    return rw._emit("permute2q", (index, args[0], args[1]), op.result.name)


def sbox8_by_vpermi2b(rw, op, args):
    """AVX-512 VBMI, 512 bits: a 256-byte table is four registers; VPERMI2B
    looks every byte up in the lower 128 bytes and in the upper 128 (it reads
    the index's low 7 bits), and the index's top bit picks between the two.
    Four instructions, none with a secret-dependent address."""
    if op.opcode != "sbox8" or rw.bits != 512:
        return None
    table, name = op.attrs["table"], op.result.name
    quarters = [rw.const(table[64 * q:64 * q + 64], f"{name}_t{q}",
                         f"{op.attrs['note']}: entries {64 * q}..{64 * q + 63}") for q in range(4)]
    low = permute2b(rw, args[0], quarters[0], quarters[1], f"{name}_lo")
    high = permute2b(rw, args[0], quarters[2], quarters[3], f"{name}_hi")
    return rw._emit("blendv", (low, high, args[0]), name)


def split_clmul_256(rw, op, args):
    """A 256-bit clmul on a target with PCLMULQDQ but no VPCLMULQDQ (AVX2
    without VAES: Haswell to Comet Lake, Zen 1 and 2): one 128-bit PCLMULQDQ per half."""
    if op.opcode != "clmul" or op.result.bits != 256:
        return None
    halves = []
    for lane in (0, 1):
        a = rw._emit("extract128", (args[0],), f"{op.result.name}_a{lane}", bits=128, lane=lane)
        b = rw._emit("extract128", (args[1],), f"{op.result.name}_b{lane}", bits=128, lane=lane)
        halves.append(rw._emit("clmul", (a, b), f"{op.result.name}_{lane}", bits=128, **op.attrs))
    return rw._emit("concat128", tuple(halves), op.result.name)
