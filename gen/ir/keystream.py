"""Program transforms: fold an XOR with a message into a block kernel's
stores, and (XTS) with tweaks into its loads and stores alike.

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
from .program import Assign, Index, Loop, Op, Value

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
    fresh = _Names(_names_in(program) | {source})
    body = _rewrite(program.body, source, target, fresh)
    return replace(program, name=f"{program.name}_xor", params=program.params + (source,), body=body)


def whiten(program, source=SOURCE, loads_from="in", stores_to="out"):
    """The program with one more parameter, `source`, whose bytes are XORed
    into every register it loads from `loads_from` and everything it stores
    to `stores_to`, at the same offsets: out = E(in ^ t) ^ t, XTS's block
    with its tweaks t, in one pass over a batch."""
    if stores_to not in program.params:
        raise ValueError(f"{program.name} has no parameter {stores_to!r}")
    loaded = xor_into_loads(program, source, loads_from)
    body = _rewrite(loaded.body, source, stores_to, _Names(_names_in(loaded)))
    return replace(program, name=f"{program.name}_whitened", params=loaded.params, body=body)


def xor_into_loads(program, source=SOURCE, loads_from="in"):
    """The program with one more parameter, `source`, whose bytes are XORed
    into every register it loads from `loads_from`: out = E(in ^ src), CBC
    encryption's step (src the chaining value) in one pass."""
    if source in program.params:
        raise ValueError(f"{program.name} already has a parameter {source!r}")
    if loads_from not in program.params:
        raise ValueError(f"{program.name} has no parameter {loads_from!r}")
    fresh = _Names(_names_in(program) | {source})
    body = _whiten_loads(program.body, source, loads_from, fresh)
    return replace(program, name=f"{program.name}_chained", params=program.params + (source,), body=body)


def _whiten_loads(stmts, source, loads_from, fresh):
    out = []
    for stmt in stmts:
        if isinstance(stmt, Loop):
            out.append(Loop(stmt.var, stmt.count, _whiten_loads(stmt.body, source, loads_from, fresh)))
        elif isinstance(stmt, Op) and stmt.opcode in MEMORY_READS and stmt.attrs["param"] == loads_from:
            if stmt.opcode != "load":
                raise ValueError(f"xor_into_loads: {stmt} reads {loads_from!r} other than as whole registers")
            raw, tweak = Value(stmt.result.bits, fresh("raw")), Value(stmt.result.bits, fresh("tweak"))
            out.append(Op("load", raw, (), dict(stmt.attrs)))
            out.append(Op("load", tweak, (), {**stmt.attrs, "param": source}))
            out.append(Op("xor", stmt.result, (raw, tweak)))
        else:
            out.append(stmt)
    return out


def _names_in(program):
    """Every name the program gives: parameters, state variables, op results."""
    taken = set(program.params) | {v.name for v in program.state}
    return taken | {s.result.name for s in program.walk() if isinstance(s, Op) and s.result is not None}


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
    selected by that carry, with the last byte (v + j0 + k) mod 256 (v: V's
    last byte).  One 16-bit add gives both: v moved down into the low byte of
    its 16-bit element, plus j0 + k, leaves the new last byte in the low byte
    and the carry (0 or 1) in the high one; two table lookups spread the carry
    into a byte mask and a third moves the new byte into place.  No branch and
    no compare: the counter is as secret as the key.  Blocks of 32 bytes take
    their high half from the pair and the carry from the low half, which every
    lane reads.  Six operations per register (v + j0 is summed once, before
    them).  Where the block only goes through a byte permutation (a table
    lookup with a constant index: SM4's words to native order), the
    permutation is folded into the pair and the tables that build it, so the
    block is built already permuted and the lookup goes."""
    if block_bytes not in (16, 32):
        raise ValueError(f"counter blocks of {block_bytes} bytes: the IR builds 16- and 32-byte ones")
    if source not in program.params:
        raise ValueError(f"{program.name} has no parameter {source!r} to read counters from")
    if program.info.get("batch_blocks", 0) > CTR_GROUP_BLOCKS:
        raise ValueError(f"{program.name}: a batch of {program.info['batch_blocks']} blocks; the counters of one "
                         f"pass must lie in one group of {CTR_GROUP_BLOCKS}")
    group = _CounterGroup(program.bits, block_bytes, source, _Names(_names_in(program)))
    group.find_permutations(program)
    body = group.rewrite(program.body)
    return replace(program, name=f"{program.name}_ctr", body=group.prologue + body,
                   info={**program.info, "input": "counter group"})


class _CounterGroup:
    """The ops that build counter blocks: shared values first (the prologue),
    then six per loaded register."""

    def __init__(self, bits, block_bytes, source, fresh):
        self.bits, self.block_bytes, self.source, self.fresh = bits, block_bytes, source, fresh
        self.prologue, self.consts, self.values = [], {}, {}
        low = self.memory("bcast128", block_bytes - 16, "ctr_low")        # V's last 16 bytes, every lane
        # v in byte 14, the low byte of the last 16-bit element, and 0 above it
        self.last = self.op("shr", (low,), "ctr_last", n=8, lane=16)
        first = self.memory("bcast8", 2 * block_bytes, "ctr_first")        # j0 in every byte
        first = self.op("and", (first, self.const(_lanes(bits, lambda lane: _at(14, 0xFF)), "byte_14",
                                                  "byte 14 of each lane: where v + j0 + k is summed")), "ctr_j0")
        self.base = self.op("add", (self.last, first), "ctr_base", lane=16)  # v + j0, its carry in byte 15
        self.permuted = {}  # load result name -> (the lookup it feeds, its constant index)

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
        """A read of the group buffer, made once, in the prologue."""
        return self.once((opcode, index), lambda: self.op(opcode, (), hint, param=self.source, index=Index(index)))

    def once(self, key, make):
        if key not in self.values:
            self.values[key] = make()
        return self.values[key]

    # ---- the rewrite -----------------------------------------------------------
    def find_permutations(self, program):
        """Notes each load from `source` whose one use is a lookup16 of it by
        a constant index: the counter block is then built permuted."""
        consts = {s.result.name: s.attrs["data"] for s in program.walk() if isinstance(s, Op) and s.opcode == "const"}
        uses = {}
        for stmt in program.walk():
            args = stmt.args if isinstance(stmt, Op) else (stmt.value,) if isinstance(stmt, Assign) else ()
            for arg in args:
                if isinstance(arg, Value):
                    uses.setdefault(arg.name, []).append(stmt)
        for stmt in program.walk():
            if not (isinstance(stmt, Op) and stmt.opcode == "load" and stmt.attrs["param"] == self.source):
                continue
            users = uses.get(stmt.result.name, [])
            if len(users) == 1 and isinstance(users[0], Op) and users[0].opcode == "lookup16" \
                    and users[0].args[0] == stmt.result and users[0].args[1].name in consts:
                self.permuted[stmt.result.name] = (users[0], consts[users[0].args[1].name])

    @property
    def skipped(self):
        """The lookups whose permutation the counter blocks take."""
        return {id(lookup) for lookup, _ in self.permuted.values()}

    def rewrite(self, stmts):
        out, skipped = [], self.skipped
        for stmt in stmts:
            if isinstance(stmt, Loop):
                out.append(Loop(stmt.var, stmt.count, self.rewrite(stmt.body)))
            elif isinstance(stmt, Op) and stmt.opcode in MEMORY_READS and stmt.attrs["param"] == self.source:
                lookup, order = self.permuted.get(stmt.result.name, (None, None))
                self.counter_register(stmt, out, lookup.result if lookup else stmt.result, order)
            elif id(stmt) not in skipped:
                out.append(stmt)
        return out

    def counter_register(self, load, out, result, order=None):
        """The ops that give `result` the counter blocks `load` covers, their
        bytes picked by the index `order` (per 128-bit lane) where given."""
        index = load.attrs["index"]
        if load.opcode != "load" or index.terms or load.result.bits != self.bits or "row" in load.attrs:
            raise ValueError(f"counter blocks replace whole-register loads at constant offsets, not {load}")
        if self.block_bytes == 32 and self.bits >= 256 and index.base % 32:
            raise ValueError(f"{load}: a register of 32-byte blocks must start at a block")
        lanes = [index.base + 16 * lane for lane in range(self.bits // 128)]
        block = [offset // self.block_bytes for offset in lanes]   # k: the block of each lane in the batch
        low = tuple(offset % self.block_bytes == self.block_bytes - 16 for offset in lanes)  # holds a last byte
        start = index.base % self.block_bytes
        k = self.const(_per_lane(block, lambda k: _at(14, k)), "block_k",
                       "byte 14 of each lane: its block's number k in the batch")
        total = self.op("add", (self.base, k), "ctr_sum", out, lane=16)  # byte 14: v + j0 + k, byte 15: carry
        picked = "" if order is None else " (in the order of the lookup the block feeds)"
        spread = self.op("lookup16", (total, self.const(
            _permuted(_per_lane(low, lambda last: bytes([15] * 15 + [0x80 if last else 15])), order),
            "carry_everywhere", "every byte reads the carry (byte 15), a block's last byte reads zero" + picked)),
            "ctr_carry", out)
        mask = self.op("lookup16", (self.const(bytes([0, 0xFF]) + bytes(14), "carry_mask_table",
                                               "a carry as a byte mask: 0 -> 0x00, 1 -> 0xff"), spread),
                       "ctr_mask", out)
        pair = (mask, self.open_pair(start, 0, low, order), self.open_pair(start, 1, low, order))
        if not any(low):  # a high half: the pair alone
            out.append(Op("select", result, pair, {}))
            return
        chosen = self.op("select", pair, "ctr_pair", out)
        last = self.op("lookup16", (total, self.const(
            _permuted(_per_lane(low, lambda last: bytes([0x80] * 15 + [14 if last else 0x80])), order),
            "new_last_byte", "byte 15 of a block's last lane reads byte 14, the new last byte; every other byte "
            "zero" + picked)), "ctr_last_byte", out)
        out.append(Op("or", result, (chosen, last), {}))

    def open_pair(self, start, which, low, order=None):
        """V's (which 0) or V + 256's (which 1) bytes for a register starting
        `start` bytes into a block, in every lane, the last byte cleared in the
        lanes that hold it (`low`), picked by `order` where given: made once,
        in the prologue."""
        if order is not None:
            return self.once(("pair", start, which, low, order), lambda: self.op("lookup16", (
                self.open_pair(start, which, low), self.const(order, "ctr_order", "the bytes' order of the lookup "
                                                                                    "the counter block feeds")),
                ("ctr_v", "ctr_w")[which] + "_ordered"))

        def make():
            base, names = which * self.block_bytes, ("ctr_v", "ctr_w")
            if self.block_bytes == 16:
                half = self.memory("bcast128", base, names[which])
            elif self.bits == 128:
                half = self.memory("bcast128", base + start, names[which] + ("_high", "_low")[start // 16])
            else:
                half = self.memory("bcast256", base, names[which])
            if not any(low):
                return half
            keep = self.const(_per_lane(low, lambda last: bytes([0xFF] * 15 + [0 if last else 0xFF])),
                              "all_but_last", "every byte but a block's last")
            return self.op("and", (half, keep), names[which] + "_open")
        return self.once(("pair", start, which, low), make)


def _permuted(table, order):
    """The index `table` composed with the lookup `order` (per 128-bit lane):
    lookup16(lookup16(x, table), order) == lookup16(x, _permuted(table, order))."""
    if order is None:
        return table
    order = bytes(order) * (len(table) // len(order))
    return bytes(0x80 if o >= 0x80 else table[lane - lane % 16 + o]
                 for lane, o in enumerate(order))


def _at(position, byte):
    """A lane of zeros but `byte` at `position`."""
    return bytes(position) + bytes([byte]) + bytes(15 - position)


def _per_lane(values, lane_bytes):
    return b"".join(lane_bytes(v) for v in values)


def _lanes(bits, lane_bytes):
    return _per_lane(range(bits // 128), lane_bytes)
