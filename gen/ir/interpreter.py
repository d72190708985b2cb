"""Bit-exact interpreter of IR programs, on NumPy byte vectors.

`run(program, memory)` executes the program; `memory` maps each pointer
parameter to a bytearray that loads read and stores write (a list of
bytearrays for an array of pointers, which loads and stores with a `row`
attribute address).  With `flip_dont_care`, every byte shift's result bits
outside its `care` mask are flipped: those bits are unspecified (a lowering
may leave anything there), so a program whose output then changes reads bits
it said it does not.  Every kernel
program, before and after each backend's lowering, runs here against the
scalar reference before any C is compiled.  A backend's private ops run from
the registry in semantics.py, which the backend fills when it is imported.
"""

import numpy as np

from ..linalg import carryless_product
from .program import Assign, Comment, Loop, Op
from .semantics import gf_inverse_table, private_op, sm4_rounds4

_INV = np.frombuffer(bytes(gf_inverse_table()), dtype=np.uint8)
# Memory broadcasts: how many bytes each reads and repeats across the register.
_BROADCAST_BYTES = {"bcast8": 1, "bcast32": 4, "bcast128": 16, "bcast256": 32}


def run(program, memory, flip_dont_care=False):
    """Run `program` on `memory` (parameter name -> bytearray, or list of
    bytearrays for an array of pointers); its scratch buffers start zeroed.
    `flip_dont_care`: flip the bits each shift's `care` mask leaves out."""
    local = {**memory, **{name: bytearray(nbytes) for name, nbytes in program.scratch.items()}}
    env = {}
    for var in program.state:
        env[var] = np.zeros(var.bits // 8, dtype=np.uint8)
    _run_block(program.body, env, local, {}, flip_dont_care)
    return memory


def _run_block(stmts, env, memory, loops, flip_dont_care):
    for stmt in stmts:
        if isinstance(stmt, Op):
            result = execute(stmt, env, memory, loops)
            if flip_dont_care and "care" in stmt.attrs:
                result = result ^ np.uint8(~stmt.attrs["care"] & 0xFF)
            if stmt.result is not None:
                env[stmt.result] = result
        elif isinstance(stmt, Assign):
            env[stmt.var] = env[stmt.value]
        elif isinstance(stmt, Loop):
            for i in range(stmt.count):
                _run_block(stmt.body, env, memory, {**loops, stmt.var: i}, flip_dont_care)
        elif not isinstance(stmt, Comment):
            raise TypeError(f"unknown statement {stmt!r}")


def _buffer(memory, attrs):
    """The bytes a load or store addresses: the parameter's, or its row's."""
    buffer = memory[attrs["param"]]
    return buffer[attrs["row"]] if "row" in attrs else buffer


def _lanes(x, lane_bits):
    """View a byte vector as little-endian unsigned elements of lane_bits."""
    return x.view({8: np.uint8, 16: "<u2", 32: "<u4", 64: "<u8"}[lane_bits])


def _lookup16(op, table, index):
    """Per 128-bit block, index byte i < 16 picks the block's table byte i and
    i >= 0x80 gives 0.  An index in 16..0x7F is refused, not given x86's
    meaning (pshufb reads i & 15) or AArch64's (TBL gives 0): a kernel must
    mean the same thing on every ISA."""
    outside = (index >= 16) & (index < 0x80)
    if outside.any():
        at = int(np.flatnonzero(outside)[0])
        raise ValueError(f"interpreter: {op.opcode} {op.result!r}: index byte {at} is {int(index[at]):#04x}, "
                         f"outside its domain (0..15 picks a table byte, 0x80..0xff gives zero)")
    blocks, indices = table.reshape(-1, 16), index.reshape(-1, 16)
    picked = np.take_along_axis(blocks, (indices & 15).astype(np.intp), axis=1)
    return np.where(indices & 0x80, 0, picked).astype(np.uint8).reshape(-1)


def _clmul(a, b, halves):
    """Per 128-bit block, the product of a's 64-bit half halves[0] and b's halves[1]."""
    qa, qb = a.view("<u8").reshape(-1, 2), b.view("<u8").reshape(-1, 2)
    products = [carryless_product(int(x), int(y)) for x, y in zip(qa[:, halves[0]], qb[:, halves[1]])]
    return np.frombuffer(b"".join(p.to_bytes(16, "little") for p in products), dtype=np.uint8).copy()


def _check_known(op, x):
    """A shift's `known` mask is a promise about its input: a byte with a bit
    outside it is an error (a lowering may rely on those bits being zero)."""
    outside = (x & np.uint8(~op.attrs["known"] & 0xFF)) != 0
    if outside.any():
        at = int(np.flatnonzero(outside)[0])
        raise ValueError(f"interpreter: {op.opcode} {op.result!r}: input byte {at} is {int(x[at]):#04x}, "
                         f"outside its known mask {op.attrs['known']:#04x}")


def execute(op, env, memory, loops):
    """Run one op (`env`: its operands' bytes by Value; `loops`: loop variable
    values): the memory ops here, every other one by evaluate."""
    args = [env[a] for a in op.args]
    attrs = op.attrs
    nbytes = op.result.bits // 8 if op.result is not None else None
    code = op.opcode
    if code == "load":
        at = attrs["index"].evaluate(loops)
        return np.frombuffer(bytes(_buffer(memory, attrs)[at:at + nbytes]), dtype=np.uint8).copy()
    if code == "store":
        at = attrs["index"].evaluate(loops)
        _buffer(memory, attrs)[at:at + len(args[0])] = args[0].tobytes()
        return None
    if code in _BROADCAST_BYTES:
        at = attrs["index"].evaluate(loops)
        width = _BROADCAST_BYTES[code]
        element = bytes(memory[attrs["param"]][at:at + width])
        if attrs.get("uniform") and len(set(element)) != 1:
            raise ValueError(f"interpreter: {op.result!r} promises equal bytes, memory holds {element.hex()}")
        return np.tile(np.frombuffer(element, dtype=np.uint8), nbytes // width)
    return evaluate(op, args)


def evaluate(op, args):
    """The bytes `op` (any op but a load, store or broadcast) computes from its
    operands' bytes `args`; a backend's private op runs its registered meaning."""
    attrs = op.attrs
    nbytes = op.result.bits // 8 if op.result is not None else None
    code = op.opcode
    if code == "const":
        return np.tile(np.frombuffer(attrs["data"], dtype=np.uint8), nbytes // len(attrs["data"]))
    if code == "xor":
        return args[0] ^ args[1]
    if code == "and":
        return args[0] & args[1]
    if code == "or":
        return args[0] | args[1]
    if code == "andnot":
        return ~args[0] & args[1]
    if code == "select":
        mask, a, b = args
        return (a & ~mask) | (b & mask)
    if code == "sbox8":
        return np.frombuffer(attrs["table"], dtype=np.uint8)[args[0]]
    if code in ("shl", "shr", "rotl"):
        lane, n = attrs["lane"], attrs["n"]
        if "known" in attrs:
            _check_known(op, args[0])
        x = _lanes(args[0], lane)
        if code == "shl":
            out = x << x.dtype.type(n)
        elif code == "shr":
            out = x >> x.dtype.type(n)
        else:
            out = (x << x.dtype.type(n)) | (x >> x.dtype.type(lane - n))
        return out.view(np.uint8)
    if code == "lookup16":
        return _lookup16(op, args[0], args[1])
    if code in ("unpacklo", "unpackhi"):
        size = attrs["lane"] // 8
        a, b = args[0].reshape(-1, 16 // size, size), args[1].reshape(-1, 16 // size, size)
        half = 16 // size // 2
        sel = slice(0, half) if code == "unpacklo" else slice(half, None)
        return np.stack([a[:, sel], b[:, sel]], axis=2).reshape(-1)
    if code == "shld":
        lane, n = attrs["lane"], attrs["n"]
        a, b = _lanes(args[0], lane), _lanes(args[1], lane)
        return ((a << a.dtype.type(n)) | (b >> b.dtype.type(lane - n))).view(np.uint8)
    if code == "minu":
        return np.minimum(_lanes(args[0], attrs["lane"]), _lanes(args[1], attrs["lane"])).view(np.uint8)
    if code == "maxs":
        signed = {8: np.int8, 16: "<i2", 32: "<i4", 64: "<i8"}[attrs["lane"]]
        return np.maximum(args[0].view(signed), args[1].view(signed)).view(np.uint8)
    if code == "add":
        lane = attrs["lane"]
        return (_lanes(args[0], lane) + _lanes(args[1], lane)).view(np.uint8)
    if code == "affine8":
        table = np.array([attrs["map"].apply(x) for x in range(256)], dtype=np.uint8)
        return table[args[0]]
    if code == "affine_inv8":
        table = np.array([attrs["map"].apply(x) for x in range(256)], dtype=np.uint8)
        return table[_INV[args[0]]]
    if code == "sm4_rounds4":
        state, keys = (a.view("<u4").reshape(-1, 4) for a in args)
        out = [sm4_rounds4(tuple(map(int, s)), tuple(map(int, k))) for s, k in zip(state, keys)]
        return np.array(out, dtype="<u4").reshape(-1).view(np.uint8)
    if code == "blocks128":
        blocks = np.concatenate(args).reshape(-1, 16)
        return blocks[list(attrs["picks"])].reshape(-1).copy()
    if code == "extract128":
        lane = attrs["lane"]
        return args[0][16 * lane:16 * lane + 16].copy()
    if code == "concat128":
        return np.concatenate(args)
    if code == "clmul":
        return _clmul(args[0], args[1], attrs["halves"])
    private = private_op(code)
    if private is not None:
        return private.fn(op, args)
    raise ValueError(f"interpreter: unknown opcode {code!r} ({op.result!r}): neither an IR op (opcodes.py) nor "
                     f"one a backend registered (semantics.register_op; is its module imported?)")


def same_meaning_as(neutral):
    """The meaning of a backend's op that is IR op `neutral` done by one
    instruction: the same bits, so the IR's own definition gives them."""
    def run(op, args):
        return evaluate(Op(neutral, op.result, op.args, op.attrs), args)
    return run
