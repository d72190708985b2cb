"""Builder: the Python-embedded way kernels write IR programs."""

from contextlib import contextmanager

from .program import Assign, Comment, Index, Loop, Op, Program, Value, Var, VECTOR_BITS


class Builder:
    def __init__(self, name, bits, params):
        if bits not in VECTOR_BITS:
            raise ValueError(f"vector width must be one of {VECTOR_BITS}, got {bits}")
        self.name = name
        self.bits = bits
        self.params = tuple(params)
        self.state = []
        self.body = []
        self._stmts = self.body
        self._names = {p: 1 for p in self.params}  # values never shadow parameters
        self._consts = {}
        self.scratch = {}

    # ---- naming -------------------------------------------------------
    def _fresh(self, hint):
        count = self._names.get(hint, 0)
        self._names[hint] = count + 1
        return hint if count == 0 else f"{hint}_{count}"

    def _emit(self, opcode, args, hint, bits=None, **attrs):
        result = Value(bits or self.bits, self._fresh(hint))
        self._stmts.append(Op(opcode, result, tuple(args), attrs))
        return result

    # ---- structure ----------------------------------------------------
    def var(self, name):
        v = Var(self.bits, self._fresh(name))
        self.state.append(v)
        return v

    def assign(self, var, value):
        self._stmts.append(Assign(var, value))

    def comment(self, text):
        self._stmts.append(Comment(text))

    @contextmanager
    def loop(self, var, count):
        self._names.setdefault(var, 1)
        body = []
        outer = self._stmts
        outer.append(Loop(var, count, body))
        self._stmts = body
        try:
            yield var
        finally:
            self._stmts = outer

    def scratch_buffer(self, name, nbytes):
        """A byte array of the function's own, addressed by loads and stores
        like a parameter: memory a kernel keeps on purpose for one call."""
        if name in self._names:
            raise ValueError(f"scratch buffer {name!r} shadows a name already in use")
        self._names[name] = 1
        self.scratch[name] = nbytes
        return name

    def finish(self, **info):
        return Program(self.name, self.bits, self.params, self.state, self.body, info, dict(self.scratch))

    # ---- memory ---------------------------------------------------------
    def load(self, param, index, hint="in", row=None, volatile=False):
        """A whole register from param + index; with `row`, from param[row] +
        index (param is then an array of pointers, one per row).  `volatile`:
        the C compiler must make this very access, where it stands (see store)."""
        return self._emit("load", (), hint, **_address(param, index, row, volatile))

    def store(self, param, index, value, row=None, volatile=False):
        """value to param + index, or to param[row] + index (see load).  With
        `volatile`, for a value a kernel keeps in memory on purpose: the C
        compiler may then neither forward it to a later load of the same
        address nor merge those loads, which would put it back in a register."""
        self._stmts.append(Op("store", None, (value,), _address(param, index, row, volatile)))

    def bcast8(self, param, index, hint="bc"):
        return self._emit("bcast8", (), hint, param=param, index=_index(index))

    def bcast32(self, param, index, hint="bc", uniform=False):
        """uniform: the word's 4 bytes are equal (a fact about the memory read, checked by the interpreter)."""
        attrs = {"uniform": True} if uniform else {}
        return self._emit("bcast32", (), hint, param=param, index=_index(index), **attrs)

    def bcast128(self, param, index, hint="bc"):
        """16 bytes at param + index in every 128-bit block (a plain load at 128 bits)."""
        return self._emit("bcast128", (), hint, param=param, index=_index(index))

    def bcast256(self, param, index, hint="bc"):
        """32 bytes at param + index in every 256-bit block (a plain load at 256 bits)."""
        if self.bits < 256:
            raise ValueError(f"bcast256 needs 256- or 512-bit vectors, this program is {self.bits}-bit")
        return self._emit("bcast256", (), hint, param=param, index=_index(index))

    def const(self, data, label, note):
        """A constant: 16 bytes repeated in every 128-bit lane, or bits/8 bytes
        for the whole register (masks that differ per lane, e.g. across-lane
        permutations); identical constants share one value.

        A full-width pattern that repeats every 16 bytes is kept as its 16
        bytes, so it is recognised as the same constant and emitted as a
        broadcast.  Constants are hoisted: they are defined once, at the top of the body."""
        data = _lane_pattern(bytes(data), self.bits, label)
        if data not in self._consts:
            value = Value(self.bits, self._fresh(label))
            self.body.insert(len(self._consts), Op("const", value, (), {"data": data, "label": label, "note": note}))
            self._consts[data] = value
        return self._consts[data]

    # ---- arithmetic -------------------------------------------------------
    def xor(self, a, b, hint="x"):
        return self._emit("xor", (a, b), hint)

    def xor_all(self, values, hint="x"):
        """XOR left to right: the last value joins last (put the latest-ready one there)."""
        acc = values[0]
        for v in values[1:-1]:
            acc = self.xor(acc, v, hint + "_acc")
        return self.xor(acc, values[-1], hint) if len(values) > 1 else acc

    def xor_tree(self, values, hint="x"):
        """XOR of values that become ready together: a balanced tree, so the
        dependency chain is log2(n) deep instead of n - 1."""
        level = list(values)
        while len(level) > 1:
            pairs = [self.xor(level[i], level[i + 1], hint + "_acc") for i in range(0, len(level) - 1, 2)]
            level = pairs + level[len(level) - len(level) % 2:]
        return level[0]

    def and_(self, a, b, hint="m"):
        return self._emit("and", (a, b), hint)

    def or_(self, a, b, hint="o"):
        return self._emit("or", (a, b), hint)

    def andnot(self, a, b, hint="m"):
        return self._emit("andnot", (a, b), hint)

    def shl(self, a, n, lane, hint="sl", known=None, care=None):
        """Shift each `lane`-bit element left by n.  A byte shift (lane 8) may
        state two facts a lowering can use (opcodes.py): `known`, the bits that
        may be set in every input byte, and `care`, the bits of every result
        byte that its users read."""
        return self._emit("shl", (a,), hint, **_shift_attrs("shl", n, lane, known, care))

    def shr(self, a, n, lane, hint="sr", known=None, care=None):
        """Shift each `lane`-bit element right by n (logical); `known` and
        `care` as for shl."""
        return self._emit("shr", (a,), hint, **_shift_attrs("shr", n, lane, known, care))

    def rotl(self, a, n, lane=32, hint="rot"):
        return self._emit("rotl", (a,), hint, n=n, lane=lane)

    def lookup16(self, table, index, hint="shuf"):
        """A 16-entry table lookup per 128-bit block: index byte i < 16 picks
        the block's table byte i, i >= 0x80 gives 0 (no other index: see opcodes.py)."""
        return self._emit("lookup16", (table, index), hint)

    def unpacklo(self, a, b, lane, hint="lo"):
        return self._emit("unpacklo", (a, b), hint, lane=lane)

    def unpackhi(self, a, b, lane, hint="hi"):
        return self._emit("unpackhi", (a, b), hint, lane=lane)

    def add(self, a, b, lane, hint="sum"):
        return self._emit("add", (a, b), hint, lane=lane)

    def shld(self, a, b, n, lane, hint="shld"):
        """(a << n) | (b >> (lane - n)) in each `lane`-bit element: a double shift."""
        return self._emit("shld", (a, b), hint, n=n, lane=lane)

    def minu(self, a, b, lane, hint="min"):
        """Unsigned minimum of `lane`-bit elements."""
        return self._emit("minu", (a, b), hint, lane=lane)

    def maxs(self, a, b, lane, hint="max"):
        """Signed maximum of `lane`-bit elements."""
        return self._emit("maxs", (a, b), hint, lane=lane)

    def select(self, mask, a, b, hint="sel"):
        """Bitwise choice: b where mask has a 1, a elsewhere."""
        return self._emit("select", (mask, a, b), hint)

    def blocks128(self, a, b, picks, hint="blk"):
        """A value made of 128-bit blocks of a and b: output block i is block
        picks[i] of the concatenation (a's blocks, then b's)."""
        return self._emit("blocks128", (a, b), hint, picks=tuple(picks))

    def extract128(self, a, lane, hint="part"):
        """128-bit lane `lane` of a wider value."""
        return self._emit("extract128", (a,), hint, bits=128, lane=lane)

    def clmul(self, a, b, halves, hint="clmul"):
        """Per 128-bit block, the 128-bit carry-less product of a's 64-bit half
        halves[0] and b's half halves[1] (0 low, 1 high)."""
        if len(halves) != 2 or not set(halves) <= {0, 1}:
            raise ValueError(f"clmul {hint}: halves must be two of 0 (low) and 1 (high), not {halves!r}")
        return self._emit("clmul", (a, b), hint, halves=tuple(halves))

    def affine8(self, a, affine_map, hint="aff", note=""):
        return self._emit("affine8", (a,), hint, map=affine_map, note=note)

    def affine_inv8(self, a, affine_map, hint="inv", note=""):
        return self._emit("affine_inv8", (a,), hint, map=affine_map, note=note)

    def sm4_rounds4(self, x, keys, hint="sm4r"):
        """Four SM4 rounds on each 128-bit block's state words with keys' words as round keys."""
        return self._emit("sm4_rounds4", (x, keys), hint)

    def sbox8(self, a, table, hint="sbox", note=""):
        """Every byte through a 256-entry table (a bijection or not: the op is a lookup)."""
        table = bytes(table)
        if len(table) != 256:
            raise ValueError(f"sbox8 {hint}: need a 256-byte table, got {len(table)} bytes")
        return self._emit("sbox8", (a,), hint, table=table, note=note)


def _shift_attrs(opcode, n, lane, known, care):
    """A shift's attributes: n and lane, and the byte masks `known` and `care`
    only where given (and only on bytes: they describe every byte)."""
    if not 0 < n < lane:
        raise ValueError(f"{opcode} by {n}: the amount must be 1..{lane - 1} for {lane}-bit elements")
    attrs = {"n": n, "lane": lane}
    for name, mask in (("known", known), ("care", care)):
        if mask is None:
            continue
        if lane != 8:
            raise ValueError(f"{opcode} {name}={mask:#04x}: byte masks describe byte shifts (lane 8), not lane {lane}")
        if not 0 <= mask <= 0xFF:
            raise ValueError(f"{opcode} {name}={mask:#x}: a byte mask is 0x00..0xff")
        attrs[name] = mask
    return attrs


def _lane_pattern(data, bits, label):
    """`data` as the IR stores it: 16 bytes if it is one lane's pattern, else the full width."""
    if len(data) not in (16, bits // 8):
        raise ValueError(f"constant {label}: need 16 or {bits // 8} bytes, got {len(data)}")
    return data[:16] if data == data[:16] * (len(data) // 16) else data


def _index(index):
    return index if isinstance(index, Index) else Index(index)


def _address(param, index, row, volatile=False):
    """The attributes of a load or store: `row` only where param is an array of
    pointers, `volatile` only where set."""
    attrs = {"param": param, "index": _index(index)}
    if row is not None:
        attrs["row"] = row
    if volatile:
        attrs["volatile"] = True
    return attrs
