"""AVX-512 (F, BW, VL, VBMI, VBMI2) + GFNI: 512-bit vectors, GF2P8AFFINE(INV)QB,
VPROLD, VPSHLDD/W double shifts, 256-byte table lookups by VPERMI2B, and
two-operation bitwise chains (three-input XORs, (a | b) & c, ...) as VPTERNLOGD.
Every CPU with AVX-512 and GFNI (Ice Lake and later, Zen 4) has VBMI and VL;
VL gives the 128-bit one-block form (SM4's serial chain) VPROLD and
VPTERNLOGD on xmm registers, one cycle off each of its rounds' L."""

from ...ir import Assign, Loop, Op
from .. import rules
from . import rules as x86_rules
from .gfni_passes import FUSION_PASS
from .ops import permute2b
from .target import target


def shld_native(rw, op, args):
    """AVX-512 VBMI2 double shifts (VPSHLDD/VPSHLDW): one instruction."""
    if op.opcode != "shld" or op.attrs["lane"] not in (16, 32):
        return None
    return rw._emit("shld_native", args, op.result.name, **op.attrs)


def rotate_native(rw, op, args):
    """AVX-512F rotates 32/64-bit elements in one instruction (VPROLD/VPROLQ)."""
    if op.opcode != "rotl" or op.attrs["lane"] not in (32, 64):
        return None
    return rw._emit("rotl_native", args, op.result.name, n=op.attrs["n"], lane=op.attrs["lane"])


def shuffles_only_unpacked(program):
    """The byte shuffles by a constant, none of whose bytes zeroes, whose every
    user is an unpack (unpacklo/unpackhi): what unpack_of_shuffles_as_permute2b
    may fold away, leaving the shuffle unused."""
    defs, users = {}, {}
    for stmt in program.walk():
        if isinstance(stmt, Op):
            if stmt.result is not None:
                defs[stmt.result] = stmt
            for arg in stmt.args:
                users.setdefault(arg, []).append(stmt)
        elif isinstance(stmt, Assign):
            users.setdefault(stmt.value, []).append(stmt)
    foldable = set()
    for value, op in defs.items():
        index = defs.get(op.args[1]) if op.opcode == "lookup16" else None
        if index is None or index.opcode != "const" or any(byte & 0x80 for byte in index.attrs["data"]):
            continue
        if all(isinstance(user, Op) and user.opcode in ("unpacklo", "unpackhi") for user in users.get(value, ())):
            foldable.add(value)
    return foldable


def unpack_of_shuffles_as_permute2b(rw, op, args):
    """unpacklo/hi(a', b') where a' (or b', or both) is a byte shuffle of a by a
    constant that only unpacks use -> one VPERMT2B of a and b by a constant
    index (VBMI): the shuffle's byte moves folded into the interleave, and the
    shuffle dropped.  ZUC byte-swaps its 16 keystream words and then transposes
    them: 16 shuffles per block fewer (measured 2% faster on Zen 4, docs/performance/zuc.md)."""
    if op.opcode not in ("unpacklo", "unpackhi") or rw.bits != 512:
        return None
    foldable = rw.analysis(shuffles_only_unpacked)
    sources, moves = [], []
    for source_arg, arg in zip(op.args, args):
        shuffle = rw.definition(arg) if source_arg in foldable else None
        if shuffle is None or shuffle.opcode != "lookup16":
            sources.append(arg)
            moves.append(None)
            continue
        data = rw.definition(shuffle.args[1]).attrs["data"]
        sources.append(shuffle.args[0])
        moves.append(data * (64 // len(data)))
    if moves == [None, None]:
        return None
    size = op.attrs["lane"] // 8
    half = 16 // size // 2 if op.opcode == "unpackhi" else 0
    index = []
    for i in range(64):
        block, element, byte = i // 16, i % 16 // size, i % size
        side = element % 2
        at = 16 * block + (half + element // 2) * size + byte  # the byte an unpack would take
        within = moves[side][at] & 15 if moves[side] is not None else at % 16
        index.append(64 * side + 16 * block + within)
    table = rw.const(bytes(index), f"{op.opcode}{op.attrs['lane']}_index",
                     f"{op.opcode} of {op.attrs['lane']}-bit elements, the byte shuffles before it folded in (VPERMT2B index)")
    return permute2b(rw, table, sources[0], sources[1], op.result.name)


_BITWISE = {"xor": lambda a, b: a ^ b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
            "andnot": lambda a, b: ~a & b & 0xFF}
# The truth-table inputs of VPTERNLOGD's three operands.
_TERNLOG_INPUTS = (0xF0, 0xCC, 0xAA)
# The truth table of a ^ b ^ c.
_XOR3 = _TERNLOG_INPUTS[0] ^ _TERNLOG_INPUTS[1] ^ _TERNLOG_INPUTS[2]


def bitwise_pair_as_ternary_logic(rw, op, args):
    """f(g(a, b), c) for bitwise f, g -> one VPTERNLOGD(a, b, c) whose truth
    table is f(g(A, B), C) on the canonical inputs, when g's result has no other use."""
    if op.opcode not in _BITWISE:
        return None
    for side in (0, 1):
        inner = rw.definition(args[side])
        if inner is None or inner.opcode not in _BITWISE or rw.source_uses.get(op.args[side]) != 1:
            continue
        a, b, c = _TERNLOG_INPUTS
        g = _BITWISE[inner.opcode](a, b)
        imm = _BITWISE[op.opcode](g, c) if side == 0 else _BITWISE[op.opcode](c, g)
        return rw._emit("ternlog", tuple(inner.args) + (args[1 - side],), op.result.name, imm=imm & 0xFF)
    return None


def shared_xors_to_inline(program):
    """Which XORs with several uses to copy into all of them, each user then a
    three-input XOR (one VPTERNLOGD): {user op: the XOR value it absorbs}.

    Copying a XOR n = a ^ b into every user u = n ^ c saves n's instruction
    when every user is a two-input XOR in the same loop body (n is not a
    stored or loop-carried value) that absorbs nothing else (not even a
    single-use operand, which bitwise_pair_as_ternary_logic would fuse), and
    n itself absorbs nothing.  Chosen greedily in program order.  A chain of
    XORs in which every value feeds the next two steps, such as uBlock's linear layer
    (y1 ^= y0, y0 ^= y1 <<< 4, ...), has no single-use XOR for
    bitwise_pair_as_ternary_logic to fuse; here every other step is copied
    into the next two, 48 XORs per word pair becoming 32 VPTERNLOGDs."""
    block, users, ops = {}, {}, []

    def visit(stmts):
        for stmt in stmts:
            if isinstance(stmt, Loop):
                visit(stmt.body)
            elif isinstance(stmt, Op):
                block[stmt] = id(stmts)
                ops.append(stmt)
                for arg in stmt.args:
                    users.setdefault(arg, []).append(stmt)
            elif isinstance(stmt, Assign):
                users.setdefault(stmt.value, []).append(stmt)

    visit(program.body)
    defs = {op.result: op for op in ops if op.result is not None}

    def fused_by_pair_rule(value):  # bitwise_pair_as_ternary_logic will fold it into its user
        return len(users.get(value, ())) == 1 and value in defs and defs[value].opcode in _BITWISE

    absorbs = {}

    def can_absorb(user, n):
        if not isinstance(user, Op) or user.opcode != "xor" or user in absorbs or block[user] != block[n]:
            return False
        others = [arg for arg in user.args if arg is not n.result]
        return len(others) == 1 and not fused_by_pair_rule(others[0])

    for n in ops:
        shared = users.get(n.result, [])
        if n.opcode != "xor" or n in absorbs or len(shared) < 2 or any(fused_by_pair_rule(arg) for arg in n.args):
            continue
        if all(can_absorb(user, n) for user in shared):
            absorbs.update((user, n.result) for user in shared)
    return absorbs


def shared_xor_as_ternary_logic(rw, op, args):
    """u = n ^ c -> VPTERNLOGD(a, b, c) for the XOR n = a ^ b that
    shared_xors_to_inline copies into u (and into n's other users)."""
    inlined = rw.analysis(shared_xors_to_inline).get(op)
    if inlined is None:
        return None
    side = 0 if op.args[0] is inlined else 1
    inner = rw.definition(args[side])
    if inner is None or inner.opcode != "xor":
        return None
    return rw._emit("ternlog", tuple(inner.args) + (args[1 - side],), op.result.name, imm=_XOR3)


TARGET = target(
    name="avx512_gfni", bits=512, cflags=("-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512vbmi", "-mavx512vbmi2", "-mgfni", "-mpclmul", "-mvpclmulqdq"),
    cpu_features=("avx512f", "avx512bw", "avx512vl", "avx512vbmi", "avx512vbmi2", "gfni", "pclmul", "vpclmulqdq"),
    passes=(FUSION_PASS, (rules.rotate_bytes_by_shuffle, rotate_native, shld_native, x86_rules.affine_via_gfni,
                                    x86_rules.select_by_ternary_logic, x86_rules.sbox8_by_vpermi2b),
            x86_rules.BYTE_SHIFT_PASS,
            (shared_xor_as_ternary_logic, bitwise_pair_as_ternary_logic, unpack_of_shuffles_as_permute2b,
             x86_rules.blocks128_by_permute2q)),
    emulable=True,
    description="AVX-512 + GFNI gf2p8affineqb/gf2p8affineinvqb, 512-bit vectors")
