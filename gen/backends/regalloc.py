"""Register allocation of lowered programs, for the assembly emitters.

The C emitter leaves registers to the C compiler; the assembly emitters
(x86/asm.py, aarch64/asm.py) take a lowered program through `allocate` and
write what it returns.  Nothing here knows an instruction set: a backend
describes its vector register file as a `RegisterFile` (how many registers,
which ones an op may name).

The steps:

1. Versions.  State variables (`Var`) become SSA names: each `Assign` starts
   a new version, and a loop gives each variable it assigns a version of its
   own at the loop head (a phi), which every iteration must leave in the same
   place.
2. Spilling by furthest next use (Belady).  When an op needs a register and
   none is free, the value whose next use is furthest away leaves; a value
   that comes back without a store (a constant, a load of memory no store of
   the function can write, a value already in its stack slot) counts as twice
   as far, so it leaves first.  Inside a loop, a value used again in the next
   iteration has its next use there.
3. Assignment, in program order (a linear scan): a result takes the free
   register that the op may name, lowest first; an operand in a register the
   op may not name (EVEX's upper 16 under a VEX encoding) is copied down.
4. Loops carry their state in registers where it fits: the places the loop
   is entered with are the places every iteration ends in, restored by moves,
   reloads and stores at the end of the body (cycles of moves go through a
   free register or a stack slot).
5. Spills go to 16-byte-aligned slots of `bits/8` bytes in one stack area,
   whose size the result gives (`Allocation.slots`): the emitter sets up the
   frame once.

The result is a list of machine steps (`Instr`, `Move`, `Spill`, `Reload`,
`Remat`, `MachineLoop`, `Note`) over register numbers and slot numbers;
`machine.run` (tests) executes it bit for bit, so an allocation is checked
against the interpreter on the program it came from.
"""

from dataclasses import dataclass, field

from ..ir import Assign, Comment, Loop, Op, Value, Var
from ..ir.opcodes import MEMORY_READS

_FAR = 1 << 30
# IR ops whose two operands may trade places (the allocator puts the one in
# memory where the instruction can read memory).
COMMUTATIVE = frozenset({"xor", "and", "or", "add", "minu", "maxs"})


@dataclass(frozen=True)
class RegisterFile:
    """A backend's vector registers, as the allocator needs them.

    `count`: registers a kernel may use, numbered 0..count-1 (the emitter maps
    numbers to names and saves what its ABI says is callee-saved).  `limit(op)`:
    the op's operands and result must be registers below this (a VEX-encoded
    instruction on a 32-register target: 16); default `count`.
    `destructive(op)`: the index of the operand the instruction overwrites with
    its result, or a tuple of indices where the instruction has a form
    overwriting each (AArch64's BSL, BIT and BIF: the mask, the one or the
    other source; the allocator takes one whose value dies there), or None;
    default: none does.  `memory(op)`: the index of the
    operand the instruction may read from memory (x86: the last source), or
    None; `memory_recompute`: whether that may be a load's own memory (legacy
    SSE needs 16-byte-aligned memory operands: slots alone); `memory_constants`:
    whether it may be a constant's (the emitter holds constants at full width)."""

    count: int
    limit: object = None
    destructive: object = None
    memory: object = None            # op -> the index of the operand it may read from memory, or None
    memory_recompute: bool = True    # that operand may be any load's memory (else stack slots alone)
    memory_constants: bool = False   # ... or a constant's, held at the register's full width

    def allowed(self, op):
        return self.count if self.limit is None else min(self.count, self.limit(op))

    def memory_operand(self, op):
        """The operand `op` may read from memory instead of a register, or None."""
        return None if self.memory is None else self.memory(op)

    def commutes(self, op):
        """Whether `op`'s two operands may trade places."""
        return op.opcode in COMMUTATIVE

    def tied(self, op):
        """The operands of which the op's result may overwrite one (two-operand
        SSE: the first; AArch64's SLI and SM4E: the first, BSL: any), a tuple."""
        tied = None if self.destructive is None else self.destructive(op)
        return () if tied is None else (tied,) if isinstance(tied, int) else tuple(tied)


# ---- machine steps --------------------------------------------------------

@dataclass(eq=False)
class Instr:
    """`op` with its operands in registers `srcs` and its result in `dst` (None for a store)."""
    op: Op
    dst: int | None
    srcs: tuple


@dataclass(frozen=True)
class InMemory:
    """An operand an instruction reads from memory: stack slot `slot`, or
    the memory that `load` (a load no store of the function can change, or a
    constant) reads."""
    slot: int | None
    load: Op | None


@dataclass(eq=False)
class Move:
    dst: int
    src: int
    value: Value


@dataclass(eq=False)
class Spill:
    """Store register `reg` (holding `value`) to stack slot `slot`."""
    reg: int
    slot: int
    value: Value


@dataclass(eq=False)
class Reload:
    reg: int
    slot: int
    value: Value


@dataclass(eq=False)
class Remat:
    """Recompute `value` into `reg` by running `op` again (a constant or an invariant load)."""
    reg: int
    op: Op
    value: Value


@dataclass(eq=False)
class MachineLoop:
    var: str
    count: int
    body: list


@dataclass(eq=False)
class Note:
    text: str


@dataclass
class Allocation:
    steps: list
    slots: int                   # stack slots used (each bits/8 bytes)
    registers: set = field(default_factory=set)   # register numbers written or read

    def count(self, kind):
        return sum(1 for s in walk(self.steps) if isinstance(s, kind))


def walk(steps):
    for step in steps:
        if isinstance(step, MachineLoop):
            yield from walk(step.body)
        else:
            yield step


# ---- 1. versions ----------------------------------------------------------

@dataclass(eq=False)
class _Use:
    op: Op                # the original op (kept for the emitter)
    args: tuple           # names read (versions for Vars)
    result: Value | None


@dataclass(eq=False)
class _Copy:
    dst: Value            # a variable's new version
    src: Value


@dataclass(eq=False)
class _Loop:
    var: str
    count: int
    body: list
    phis: list            # (version at the head, version before the loop, version at the end)


def _versions(program):
    current, serial = {}, {}

    def version(var):
        serial[var] = serial.get(var, 0) + 1
        return Value(var.bits, f"{var.name}.{serial[var]}")

    def read(arg):
        if isinstance(arg, Var):
            if arg not in current:
                raise ValueError(f"regalloc: {arg!r} is read before any assignment")
            return current[arg]
        return arg

    def block(stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, Comment):
                out.append(Note(stmt.text))
            elif isinstance(stmt, Assign):
                new = version(stmt.var)
                out.append(_Copy(new, read(stmt.value)))
                current[stmt.var] = new
            elif isinstance(stmt, Loop):
                assigned = list(dict.fromkeys(s.var for s in _assigns(stmt.body)))
                heads = {var: version(var) for var in assigned}
                before = {var: current.get(var) for var in assigned}
                current.update(heads)
                body = block(stmt.body)
                phis = [(heads[v], before[v], current[v]) for v in assigned]
                current.update(heads)
                out.append(_Loop(stmt.var, stmt.count, body, phis))
            else:
                out.append(_Use(stmt, tuple(read(a) for a in stmt.args), stmt.result))
        return out

    return block(program.body)


def _assigns(stmts):
    for stmt in stmts:
        if isinstance(stmt, Assign):
            yield stmt
        elif isinstance(stmt, Loop):
            yield from _assigns(stmt.body)


def _names_read(step):
    if isinstance(step, _Use):
        return step.args
    if isinstance(step, _Copy):
        return (step.src,)
    if isinstance(step, _Loop):
        inner = [n for s in step.body for n in _names_read(s)]
        defined = {d for s in step.body for d in _names_defined(s)} | {h for h, _, _ in step.phis}
        return tuple(n for n in inner if n not in defined) + tuple(b for _, b, _ in step.phis if b is not None)
    return ()


def _names_defined(step):
    if isinstance(step, _Use) and step.result is not None:
        return (step.result,)
    if isinstance(step, _Copy):
        return (step.dst,)
    if isinstance(step, _Loop):
        return tuple(h for h, _, _ in step.phis)
    return ()


# ---- next uses ------------------------------------------------------------

class _NextUse:
    """Distances to the next read of each name, in steps, within one block
    (the top level or a loop body), reads after the block counted from the
    enclosing block's `after(name)`; in a loop, a carried name's next read
    may be in the next iteration."""

    def __init__(self, steps, after, carried=None):
        self.length = len(steps)
        self.uses = {}
        for position, step in enumerate(steps):
            for name in _names_read(step):
                self.uses.setdefault(name, []).append(position)
        self.after = after
        self.carried = carried or {}     # name at the end -> name it becomes at the head
        # A variable's head version is dead after its last read in the body: what
        # the loop leaves for later is the end version, which becomes the head again.
        self.heads = {head for end, head in self.carried.items() if end is not head}

    def distance(self, name, position):
        """Steps from `position` (exclusive) to the next read of `name`."""
        for use in self.uses.get(name, ()):
            if use > position:
                return use - position
        if name in self.heads:
            return _FAR
        head = self.carried.get(name)
        if head is not None and head in self.uses:
            return self.length - position + self.uses[head][0]
        later = self.after(name if head is None else head)
        return _FAR if later >= _FAR else self.length - position + later

    def read_later(self, name, position):
        return self.distance(name, position) < _FAR


# ---- 2-4. the allocator -----------------------------------------------------

class _Allocator:
    def __init__(self, program, registers, invariant):
        self.registers = registers
        self.invariant = frozenset(invariant)
        self.stored = program.stored_params()
        self.holder = {}        # register -> the names it holds
        self.where = {}         # name -> register
        self.slot = {}          # name -> slot holding a clean copy
        self.remat = {}         # name -> the op that recomputes it
        self.free_slots, self.slots = [], 0
        self.reserved = set()   # slots a loop's carried names return to: never reused inside it
        self.busy = set()       # slots the instruction being placed reads as memory operands
        self.unread = set()     # names a loop entered with in registers and has not read yet
        self.hints = {}         # in a loop body: end version -> (its head, the slot the head returns to)
        self.early = []         # of those, the ones evicted before their first read
        self.used = set()

    # -- bookkeeping --
    def _bind(self, name, reg):
        self._unbind(name)
        self.where[name] = reg
        self.holder.setdefault(reg, set()).add(name)
        self.used.add(reg)

    def _unbind(self, name):
        reg = self.where.pop(name, None)
        if reg is not None:
            self.holder[reg].discard(name)
            if not self.holder[reg]:
                del self.holder[reg]

    def _new_slot(self):
        """A free slot, other than those the instruction being placed reads."""
        for i in range(len(self.free_slots) - 1, -1, -1):
            if self.free_slots[i] not in self.busy:
                return self.free_slots.pop(i)
        self.slots += 1
        return self.slots - 1

    def _forget(self, name):
        """`name` is read no more: free its register and slot."""
        self._unbind(name)
        slot = self.slot.pop(name, None)
        if slot is not None and slot not in self.slot.values() and slot not in self.reserved:
            self.free_slots.append(slot)
        self.remat.pop(name, None)

    def _rematerializable(self, op):
        if op.opcode == "const":
            return True
        return (op.opcode in MEMORY_READS and op.attrs["param"] in self.invariant
                and op.attrs["param"] not in self.stored and not op.attrs["index"].terms
                and "row" not in op.attrs and not op.attrs.get("volatile"))

    # -- choosing registers --
    def _free_register(self, limit, avoid=()):
        for reg in range(limit):
            if reg not in self.holder and reg not in avoid:
                return reg
        return None

    def _evict_cost(self, reg, nu, position):
        names = self.holder[reg]
        far = min(nu.distance(n, position) for n in names)
        clean = all(n in self.remat or n in self.slot or not nu.read_later(n, position) for n in names)
        return far * (2 if clean else 1)

    def _to_slot(self, name, out):
        """Take `name` out of its register, storing it first unless it comes back without a store."""
        if name in self.unread:
            self.early.append(name)
            self.unread.discard(name)
        if name not in self.remat and name not in self.slot:
            slot = self._slot_for(name)
            out.append(Spill(self.where[name], slot, name))
            self.slot[name] = slot
        self._unbind(name)

    def _slot_for(self, name):
        """A new slot for `name`; a variable's version that the loop carries goes
        straight to the slot its head returns to, once the head is dead."""
        head, slot = self.hints.get(name, (None, None))
        if slot is not None and head not in self.where and head not in self.slot \
                and slot not in self.slot.values():
            return slot
        return self._new_slot()

    def _evict(self, reg, nu, position, out):
        """Empty `reg`: each name still read later goes to its slot (or is rematerializable)."""
        for name in sorted(self.holder.get(reg, ()), key=lambda v: v.name):
            if nu.read_later(name, position):
                self._to_slot(name, out)
            else:
                self._forget(name)

    def _take_register(self, limit, nu, position, out, keep=()):
        """A free register below `limit`, evicting the furthest-used value if none is."""
        reg = self._free_register(limit, avoid=keep)
        if reg is not None:
            return reg
        candidates = [r for r in self.holder if r < limit and r not in keep]
        if not candidates:
            raise ValueError(f"regalloc: no register below {limit} left ({len(keep)} held by one instruction)")
        victim = max(candidates, key=lambda r: (self._evict_cost(r, nu, position), -r))
        self._evict(victim, nu, position, out)
        return victim

    def _fetch(self, name, reg):
        """The step that brings `name` (in no register) into `reg`: its op run
        again, or a reload from its slot."""
        if name in self.remat:
            return Remat(reg, self.remat[name], name)
        if name in self.slot:
            return Reload(reg, self.slot[name], name)
        raise ValueError(f"regalloc: {name!r} is neither in a register nor in a slot")

    def _materialize(self, name, reg, out):
        """Bring `name` (not in a register) into `reg`."""
        out.append(self._fetch(name, reg))
        self._bind(name, reg)

    def _through_register(self, steps, out):
        """out += steps(r) for a free register r, or for register 0 lent: stored
        before and reloaded after (at a loop's end, where every register may hold
        a carried value)."""
        temp = self._free_register(self.registers.count)
        if temp is not None:
            out += steps(temp)
            return
        lent, holder = self._new_slot(), sorted(self.holder[0], key=lambda v: v.name)[0]
        out += [Spill(0, lent, holder), *steps(0), Reload(0, lent, holder)]
        self.free_slots.append(lent)

    def _operand(self, name, limit, nu, position, out, keep):
        reg = self.where.get(name)
        if reg is not None and reg < limit:
            return reg
        new = self._take_register(limit, nu, position, out, keep)
        if reg is not None:
            out.append(Move(new, reg, name))
            self._bind(name, new)
        else:
            self._materialize(name, new, out)
        return new

    # -- blocks --
    def block(self, steps, nu):
        out = []
        for position, step in enumerate(steps):
            if isinstance(step, Note):
                out.append(step)
            elif isinstance(step, _Copy):
                self._copy(step.dst, step.src)
                self._release_dead((step.src,), nu, position)
            elif isinstance(step, _Loop):
                out.append(self.loop(step, nu, position, out))
            else:
                self.instruction(step, nu, position, out)
        return out

    def _release_dead(self, names, nu, position):
        for name in dict.fromkeys(names):
            if not nu.read_later(name, position):
                self._forget(name)

    def instruction(self, step, nu, position, out):
        op, limit = step.op, self.registers.allowed(step.op)
        if step.result is not None and not nu.read_later(step.result, position):
            return  # dead code: nothing reads the result
        if step.result is not None and self._rematerializable(op):
            self.remat[step.result] = op   # made where it is first read, not here
            return
        in_memory = self.registers.memory_operand(op)
        args = step.args
        if in_memory is not None and len(args) == 2 and self.registers.commutes(op) \
                and args[in_memory] in self.where and self._memory_operand(args[1 - in_memory], op):
            # A commutative op reads the operand that is in memory from there.
            args = (args[1], args[0])
            op = Op(op.opcode, op.result, args, op.attrs)
        # Registers already holding this instruction's operands stay untouched while the rest come in.
        keep = {self.where[n] for n in args if n in self.where and self.where[n] < limit}
        srcs = []
        self.unread.difference_update(args)
        for index, name in enumerate(args):
            operand = self._memory_operand(name, op) if index == in_memory and args.count(name) == 1 else None
            if operand is None:
                operand = self._operand(name, limit, nu, position, out, keep)
                keep.add(operand)
            srcs.append(operand)
        # Its memory operands' slots stay untouched until it has read them.
        self.busy = {src.slot for src in srcs if isinstance(src, InMemory) and src.slot is not None}
        tied = None
        choices = [i for i in self.registers.tied(op) if not isinstance(srcs[i], InMemory)]
        if choices:
            # The instruction overwrites one operand's register: one whose values
            # die here, or else a copy of the first.
            dying = [i for i in choices if not any(nu.read_later(n, position) for n in self.holder[srcs[i]])]
            tied = dying[0] if dying else choices[0]
            if not dying:
                copy = self._take_register(limit, nu, position, out, keep)
                out.append(Move(copy, srcs[tied], args[tied]))
                srcs[tied] = copy
        self._release_dead(args, nu, position)
        dst = None
        if step.result is not None:
            if tied is not None:
                dst = srcs[tied]
                for name in list(self.holder.get(dst, ())):
                    self._to_slot(name, out)
            else:
                dst = self._take_register(limit, nu, position, out)
            self._bind(step.result, dst)
        out.append(Instr(op, dst, tuple(srcs)))
        self.busy = set()

    def _memory_operand(self, name, op):
        """`name` read straight from memory by `op` (its slot, or the memory a
        load of the same width reads), where it is in no register: no reload,
        no register taken."""
        if name in self.where:
            return None
        if name in self.slot:
            return InMemory(self.slot[name], None)
        source = self.remat.get(name)
        if source is None or source.result.bits != name.bits:
            return None
        if source.opcode == "load" and self.registers.memory_recompute \
                or source.opcode == "const" and self.registers.memory_constants:
            return InMemory(None, source)
        return None

    def _copy(self, dst, src):
        """A variable's new version is the value it is assigned: same register, slot or recomputation."""
        if src in self.where:
            self._bind(dst, self.where[src])
        if src in self.slot:
            self.slot[dst] = self.slot[src]
        if src in self.remat:
            self.remat[dst] = self.remat[src]
        if dst not in self.where and dst not in self.slot and dst not in self.remat:
            raise ValueError(f"regalloc: {src!r} has no place to copy from")

    # -- loops --
    def loop(self, loop, outer, position, out):
        """A loop, placed twice where the first try evicts a value it entered
        with in a register before the body first reads it: that value then
        enters in its slot (a store before the loop, not one per iteration)."""
        saved, mark = self._snapshot(), len(out)
        placed = self._loop(loop, outer, position, out, in_slots=set())
        if self.early:
            in_slots = set(self.early)
            self._restore_snapshot(saved)
            del out[mark:]
            placed = self._loop(loop, outer, position, out, in_slots)
        return placed

    def _snapshot(self):
        return ({r: set(n) for r, n in self.holder.items()}, dict(self.where), dict(self.slot), dict(self.remat),
                list(self.free_slots), self.slots, set(self.reserved), set(self.used))

    def _restore_snapshot(self, saved):
        holder, where, slot, remat, free, slots, reserved, used = saved
        self.holder, self.where, self.slot, self.remat = ({r: set(n) for r, n in holder.items()}, dict(where),
                                                          dict(slot), dict(remat))
        self.free_slots, self.slots, self.reserved, self.used = list(free), slots, set(reserved), set(used)

    def _loop(self, loop, outer, position, out, in_slots):
        reads = {n for s in loop.body for n in _names_read(s)}
        defined = {n for s in loop.body for n in _names_defined(s)}
        heads = {head: before for head, before, _ in loop.phis}
        # Carried into the next iteration: each variable's last version becomes its head
        # again; what the loop reads from outside stays.
        outside = sorted(reads - defined - set(heads), key=lambda v: v.name)
        carried = {end: head for head, _, end in loop.phis}
        carried.update({name: name for name in outside})
        body_nu = _NextUse(loop.body, after=lambda name: outer.distance(name, position), carried=carried)
        # Heads the body reads need their value at the entry; heads read only after
        # the loop need a place for the end version alone.
        live_heads = [h for h in heads if h in reads]
        exit_heads = [h for h in heads if h not in reads and outer.read_later(h, position)]
        for head in live_heads:
            if heads[head] is None:
                raise ValueError(f"regalloc: {head!r} is read in a loop before its first assignment")
        # What the loop never reads but is read after it stays in its register
        # across the loop where the body leaves room, and leaves now otherwise
        # (rather than inside the body, every iteration).
        idle = [n for n in self.where if n not in reads and n not in heads.values()]
        held = [n for n in outside if n in self.where]
        room = self.registers.count - _pressure(loop.body, body_nu, len(held) + len(live_heads))
        # What the body reads from outside and is not in a register (recomputed
        # or in its slot) comes in before the loop where there is room, the
        # most read first: not once per iteration.
        for name in sorted((n for n in outside if n not in self.where),
                           key=lambda n: (-len(body_nu.uses[n]), n.name)):
            reg = self._free_register(self.registers.count)
            if room <= 0 or reg is None:
                break
            self._materialize(name, reg, out)
            room -= 1
        for name in idle:
            if not outer.read_later(name, position):
                self._forget(name)
            elif room > 0:
                room -= 1
                carried[name] = name
                outside.append(name)
            else:
                self._to_slot(name, out)
        # Each head starts as its value before the loop, in a register of its own
        # and with no slot or recomputation shared with another name (the end of
        # every iteration overwrites its place).
        for head in live_heads:
            self._copy(head, heads[head])
        for head in live_heads:
            if head in self.where:
                self.slot.pop(head, None)
                self.remat.pop(head, None)
        for head in live_heads:
            if head not in self.where:
                self._materialize(head, self._take_register(self.registers.count, body_nu, -1, out), out)
                self.slot.pop(head, None)
                self.remat.pop(head, None)
        for head, before, _ in loop.phis:
            if before is not None and not outer.read_later(before, position) and before not in reads:
                self._forget(before)
        for head in live_heads:
            reg = self.where.get(head)
            if reg is not None and len(self.holder[reg]) > 1:
                new = self._take_register(self.registers.count, body_nu, -1, out, keep={reg})
                out.append(Move(new, reg, head))
                self._bind(head, new)
        for name in live_heads + outside:
            if name in in_slots and name in self.where:
                self._to_slot(name, out)
        entry = {n: self.where.get(n) for n in live_heads + outside}
        entry_slots = {n: self.slot.get(n) for n in entry}
        # An exit head's place: a register no other carried name enters in (free
        # inside the body: the head holds nothing there), else a slot.
        for head in exit_heads:
            taken = set(entry.values())
            entry[head] = next((r for r in range(self.registers.count) if r not in taken), None)
            entry_slots[head] = self._new_slot() if entry[head] is None else None
        for name, reg in entry.items():
            if reg is None and entry_slots[name] is None and name not in self.remat:
                raise ValueError(f"regalloc: {name!r} enters the loop with no place")
        reserved = self.reserved
        self.reserved = reserved | {s for s in entry_slots.values() if s is not None}
        # Watch what enters in a register: evicted before the body reads it, it had better entered in its slot.
        self.unread = {n for n, reg in entry.items() if reg is not None and n not in exit_heads}
        self.early = []
        self.hints = {end: (head, entry_slots[head]) for end, head in carried.items()
                      if end is not head and head in entry and entry[head] is None}
        body = self.block(loop.body, body_nu)
        self.unread, self.hints = set(), {}
        self._restore(entry, entry_slots, carried, body)
        self.reserved = reserved
        return MachineLoop(loop.var, loop.count, body)

    def _restore(self, entry, entry_slots, carried, out):
        """End of the body: put each carried name's value for the next
        iteration where the loop entered with it."""
        source = {head: end for end, head in carried.items()}
        # A value whose only copy is in a slot that another carried name returns
        # to would be overwritten below: into a register first (or a slot of its own).
        targets = {slot for slot in entry_slots.values() if slot is not None}
        for name in entry:
            value = source[name]
            slot = self.slot.get(value)
            if value in self.where or value in self.remat or slot not in targets:
                continue
            if entry[name] is None and entry_slots[name] == slot:
                continue
            self._unshare(value, out)
        # Into slots first (the registers still hold their values).
        copies = []
        for name, reg in entry.items():
            value, slot = source[name], entry_slots[name]
            if reg is not None or value == name or self.slot.get(value) == slot:
                continue
            if value in self.where:
                out.append(Spill(self.where[value], slot, name))
            else:
                copies.append((name, value, slot))
        # From their own slots (or recomputed) into the heads', through one register.
        if copies:
            self._through_register(lambda temp: [step for name, value, slot in copies
                                                 for step in (self._fetch(value, temp), Spill(temp, slot, name))],
                                   out)
        # Then registers, all at once.
        self._parallel_moves({reg: source[name] for name, reg in entry.items() if reg is not None}, out)
        # The state is the entry's again, under the heads' names.
        for value in dict.fromkeys(v for v in source.values() if v not in entry):
            self._forget(value)
        for name in list(self.where):
            self._unbind(name)
        for name, reg in entry.items():
            if reg is not None:
                self._bind(name, reg)
            # A slot the body stored a carried name in holds an older value now.
            inside = self.slot.pop(name, None)
            if entry_slots[name] is not None:
                self.slot[name] = entry_slots[name]
            elif inside is not None and inside not in self.slot.values():
                self.free_slots.append(inside)

    def _unshare(self, value, out):
        """Copy `value` out of its slot: into a free register, else into a fresh
        slot through a register lent and given back."""
        temp = self._free_register(self.registers.count)
        if temp is not None:
            self._materialize(value, temp, out)
            return
        fresh = self._new_slot()
        self._through_register(lambda temp: [self._fetch(value, temp), Spill(temp, fresh, value)], out)
        self.slot[value] = fresh

    def _parallel_moves(self, targets, out):
        """Registers `targets` (register -> value) filled at once: moves in an
        order that reads each register before it is overwritten, a cycle
        broken through a free register or a stack slot, then reloads."""
        content = {reg: set(names) for reg, names in self.holder.items()}
        pending = {dst: value for dst, value in targets.items() if value not in content.get(dst, ())}

        def holders(value):
            return [r for r, names in content.items() if value in names]

        def needed(reg):
            return any(v in content.get(reg, ()) and holders(v) == [reg]
                       for d, v in pending.items() if d != reg)

        while pending:
            ready = [d for d in sorted(pending) if not needed(d)]
            if ready:
                dst = ready[0]
                value = pending.pop(dst)
                regs = holders(value)
                out.append(Move(dst, regs[0], value) if regs else self._fetch(value, dst))
                content[dst] = {value}
                continue
            dst = min(pending)
            temp = next((r for r in range(self.registers.count)
                         if r not in targets and not any(needed_value in content.get(r, ())
                                                         for needed_value in pending.values())), None)
            if temp is not None:
                out.append(Move(temp, dst, sorted(content[dst], key=lambda v: v.name)[0]))
                content[temp] = set(content[dst])
            else:
                for value in sorted(content[dst], key=lambda v: v.name):
                    if value in pending.values() and value not in self.remat and value not in self.slot:
                        slot = self._new_slot()
                        out.append(Spill(dst, slot, value))
                        self.slot[value] = slot
            content[dst] = set()


def _pressure(body, nu, carried):
    """Registers a loop body needs at its busiest step: the `carried` names
    plus the values it computes that are alive there."""
    alive, most = 0, 0
    ends = {}
    for position, step in enumerate(body):
        alive -= ends.pop(position, 0)
        for name in _names_defined(step):
            last = position + nu.distance(name, position)
            if last < len(body):
                alive += 1
                ends[last] = ends.get(last, 0) + 1
        most = max(most, alive)
    return carried + most


def allocate(program, registers, invariant=()):
    """Allocate `program`'s vector values to `registers` (a RegisterFile).

    `invariant`: parameters whose memory no store of the call can write (round
    keys): values loaded from them at fixed offsets are reloaded rather than
    spilled.  Returns an Allocation."""
    steps = _versions(program)
    allocator = _Allocator(program, registers, invariant)
    top = _NextUse(steps, after=lambda name: _FAR)
    body = allocator.block(steps, top)
    return Allocation(body, allocator.slots, allocator.used)
