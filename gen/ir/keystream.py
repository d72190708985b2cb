"""A program transform: fold an XOR with a message into a block kernel's stores.

CTR encrypts counter blocks and XORs the result into the message.  Done as
two passes, the keystream goes to memory and comes back; `xor_into_stores`
turns a block kernel (out = E(in)) into one pass, out = E(in) ^ src, by
giving it one more pointer parameter, `src`, and rewriting every store to
`out` as a load from `src` at the same offset (the same row where `out` is
an array of pointers), an XOR, and the store.  It
works on any program of any strategy, before lowering, so every kernel gets
its fused form from the same data flow as its plain one.
"""

from dataclasses import replace

from .opcodes import MEMORY_READS
from .program import Index, Loop, Op, Value

SOURCE = "src"
# CTR's counter blocks V + j for j below this differ from V only in the last
# byte and in its one carry, so they share every other byte with V or with
# V + CTR_GROUP_BLOCKS: the group over which a counter form runs its first
# round once, and the pair (V, V + CTR_GROUP_BLOCKS) the mode layer passes it.
CTR_GROUP_BLOCKS = 1 << 8


def xor_into_stores(program, source=SOURCE, target="out"):
    """The program with one more parameter, `source`, whose bytes are XORed
    into everything it stores to `target`."""
    if source in program.params:
        raise ValueError(f"{program.name} already has a parameter {source!r}")
    if target not in program.params:
        raise ValueError(f"{program.name} has no parameter {target!r} to store to")
    taken = set(program.params) | {v.name for v in program.state}
    taken |= {s.result.name for s in program.walk() if isinstance(s, Op) and s.result is not None}
    fresh = _Names(taken | {source})
    body = _rewrite(program.body, source, target, fresh)
    return replace(program, name=f"{program.name}_xor", params=program.params + (source,), body=body)


class _Names:
    """Fresh value names that clash with none of the program's."""

    def __init__(self, taken):
        self.taken = set(taken)

    def __call__(self, hint):
        name, n = hint, 1
        while name in self.taken:
            name, n = f"{hint}_{n}", n + 1
        self.taken.add(name)
        return name


def _rewrite(stmts, source, target, fresh):
    out = []
    for stmt in stmts:
        if isinstance(stmt, Loop):
            out.append(Loop(stmt.var, stmt.count, _rewrite(stmt.body, source, target, fresh)))
        elif isinstance(stmt, Op) and stmt.opcode == "store" and stmt.attrs["param"] == target:
            value = stmt.args[0]
            message = Value(value.bits, fresh("msg"))
            mixed = Value(value.bits, fresh("ct"))
            out.append(Op("load", message, (), {**stmt.attrs, "param": source}))
            out.append(Op("xor", mixed, (value, message)))
            out.append(Op("store", None, (mixed,), dict(stmt.attrs)))
        else:
            out.append(stmt)
    return out


# CTR's counter form of a block kernel reads, from `in`, a group buffer of
# three fields: V, V + CTR_GROUP_BLOCKS (each one big-endian block), and one
# byte, the batch's first block j0 in the group.  counter_group_bytes() is its size.
def counter_group_bytes(block_bytes):
    """The group buffer's size: the pair of blocks and the byte j0."""
    return 2 * block_bytes + 1


def counter_blocks(program, block_bytes, source="in"):
    """The program with each load from `source` (a block of the batch, at a
    constant offset) replaced by the counter block V + j0 + k it stands for,
    built in registers from the group buffer at `source` (counter_group_bytes).

    The counters of a group differ from V in their last byte, and past a carry
    out of it they equal V + 256 in every other byte; so block k is the pair
    selected by that carry, with the last byte (V's + j0 + k) mod 256.  The
    carry is the top bit of (v & j) | ((v | j) & ~(v + j)), spread over the
    block by two table lookups, with no branch and no compare, the counter
    being as secret as the key.  Blocks of 32 bytes take their high half from
    the pair and the carry from the low half, which every lane reads."""
    if block_bytes not in (16, 32):
        raise ValueError(f"counter blocks of {block_bytes} bytes: the IR builds 16- and 32-byte ones")
    if source not in program.params:
        raise ValueError(f"{program.name} has no parameter {source!r} to read counters from")
    taken = set(program.params) | {v.name for v in program.state}
    taken |= {s.result.name for s in program.walk() if isinstance(s, Op) and s.result is not None}
    group = _CounterGroup(program.bits, block_bytes, source, _Names(taken))
    body = group.rewrite(program.body)
    return replace(program, name=f"{program.name}_ctr", body=group.prologue + body,
                   info={**program.info, "input": "counter group"})


class _CounterGroup:
    """The ops that build counter blocks: shared values first (the prologue),
    then a few per loaded register."""

    def __init__(self, bits, block_bytes, source, fresh):
        self.bits, self.block_bytes, self.source, self.fresh = bits, block_bytes, source, fresh
        self.prologue, self.consts, self.loads = [], {}, {}
        low_half = block_bytes - 16
        self.low = self.memory("bcast128", low_half, "ctr_low")          # V's last 16 bytes, every lane
        self.last = self.const(_lanes(bits, lambda lane: _only_last(0xFF)), "last_byte",
                               "byte 15 of each lane, a block's last (least significant)")
        first = self.memory("bcast8", 2 * block_bytes, "ctr_first")    # j0 in every byte
        self.first = self.op("and", (first, self.last), "ctr_j0")

    # ---- building ops -------------------------------------------------------
    def op(self, opcode, args, hint, out=None, **attrs):
        result = Value(self.bits, self.fresh(hint))
        (self.prologue if out is None else out).append(Op(opcode, result, tuple(args), attrs))
        return result

    def const(self, data, label, note):
        data = bytes(data)
        if data == data[:16] * (len(data) // 16):
            data = data[:16]
        if data not in self.consts:
            value = Value(self.bits, self.fresh(label))
            self.prologue.insert(len(self.consts), Op("const", value, (), {"data": data, "label": label,
                                                                            "note": note}))
            self.consts[data] = value
        return self.consts[data]

    def memory(self, opcode, index, hint):
        key = (opcode, index)
        if key not in self.loads:
            self.loads[key] = self.op(opcode, (), hint, param=self.source, index=Index(index))
        return self.loads[key]

    # ---- the rewrite -----------------------------------------------------------
    def rewrite(self, stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, Loop):
                out.append(Loop(stmt.var, stmt.count, self.rewrite(stmt.body)))
            elif isinstance(stmt, Op) and stmt.opcode in MEMORY_READS and stmt.attrs["param"] == self.source:
                self.counter_register(stmt, out)
            else:
                out.append(stmt)
        return out

    def counter_register(self, load, out):
        """The ops that give `load`'s result the counter blocks it covers."""
        index = load.attrs["index"]
        if load.opcode != "load" or index.terms or load.result.bits != self.bits or "row" in load.attrs:
            raise ValueError(f"counter blocks replace whole-register loads at constant offsets, not {load}")
        lanes = [(index.base + 16 * lane) for lane in range(self.bits // 128)]
        block = [offset // self.block_bytes for offset in lanes]   # k: the block of each lane in the batch
        low_lane = [offset % self.block_bytes == self.block_bytes - 16 for offset in lanes]
        if self.block_bytes == 32 and self.bits >= 256 and index.base % 32:
            raise ValueError(f"{load}: a register of 32-byte blocks must start at a block")
        pair = [self.pair_half(index.base % self.block_bytes, k) for k in (0, 1)]
        # off: byte 15 of each lane j0 + k, its block's offset from V
        offset = self.op("add", (self.const(_per_lane(block, _only_last), "block_k",
                                                       "byte 15 of each lane: its block's number k in the batch"), self.first), "ctr_j", out,
                         lane=8)
        total = self.op("add", (self.low, offset), "ctr_sum", out, lane=8)
        either = self.op("or", (self.low, offset), "ctr_or", out)
        carry = self.op("or", (self.op("and", (self.low, offset), "ctr_and", out),
                               self.op("andnot", (total, either), "ctr_out", out)), "ctr_carry", out)
        bit = self.op("shr", (carry,), "ctr_bit", out, n=7, lane=8)
        # every byte of a lane reads its byte 15, but a low half's own byte 15 reads "zero"
        spread_index = _per_lane(low_lane, lambda low: bytes([15] * 15 + [0x80 if low else 15]))
        spread = self.op("lookup16", (bit, self.const(spread_index, "spread_index",
                                                      "every byte reads byte 15, a block's last byte reads zero")), "ctr_spread", out)
        mask = self.op("lookup16", (self.const(bytes([0, 0xFF]) + bytes(14), "carry_mask_table",
                                                         "a carry bit as a byte mask: 0 -> 0x00, 1 -> 0xff"), spread),
                       "ctr_mask", out)
        if all(low_lane):
            kept = total
        elif not any(low_lane):
            kept = pair[0]
        else:
            lows = self.const(_per_lane(low_lane, lambda low: bytes([0xFF if low else 0] * 16)), "low_lanes",
                              "the lanes that hold a block's last 16 bytes")
            kept = self.op("select", (lows, pair[0], total), "ctr_kept", out)
        out.append(Op("select", load.result, (mask, kept, pair[1]), {}))

    def pair_half(self, start, which):
        """V's (which 0) or V + 256's (which 1) bytes for a register starting
        `start` bytes into a block, in every lane."""
        base = which * self.block_bytes
        if self.block_bytes == 16:
            return self.memory("bcast128", base, ("ctr_v", "ctr_w")[which])
        if self.bits == 128:
            return self.memory("bcast128", base + start, ("ctr_v", "ctr_w")[which] + ("_high", "_low")[start // 16])
        return self.memory("bcast256", base, ("ctr_v", "ctr_w")[which])


def _only_last(byte):
    """A lane whose byte 15 (a block's last, least significant byte) is `byte`."""
    return bytes(15) + bytes([byte])


def _per_lane(values, lane_bytes):
    return b"".join(lane_bytes(v) for v in values)


def _lanes(bits, lane_bytes):
    return _per_lane(range(bits // 128), lane_bytes)
