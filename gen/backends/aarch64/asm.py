"""The AArch64 assembly emitter: GNU assembler, AAPCS64.

It writes a lowered program (the same one the C emitter writes as NEON
intrinsics) as one function, its vector registers allocated by
gen/backends/regalloc.py over all 32.  A64 instructions are three-operand,
except those that overwrite a source: SLI and SM4E their first, AESE either
of its two (AddRoundKey is an XOR), and a selection any of its three (BSL
overwrites the mask, BIT the value kept where the mask is 0, BIF the one
kept where it is 1): the allocator picks the operand whose value dies.

The function, in order:
  * a header naming each general register's role, the vector registers used
    and the frame;
  * the frame, only where values spill or d8-d15 must be kept: SP lowered by
    a multiple of 16 (no red zone); from SP up, d8-d15 where the allocation
    uses v8-v15 (AAPCS64: callee-saved in their low 64 bits), stored and
    restored in pairs, then the spill slots;
  * one instruction (or two) per IR op, with a comment naming its value;
  * loops: per (parameter, loop variable, stride) a pointer register that
    starts at the parameter and steps by the stride each iteration (LDR and
    STR take it plus an immediate offset), and a counter counting down.
Constants go to .rodata, each with the note that says where it comes from,
loaded through ADRP and a :lo12: offset.

ABI facts in one place: ARGUMENT_REGISTERS, SCRATCH_REGISTERS,
ROW_REGISTER, ADDRESS_REGISTER, CALLEE_SAVED_VECTORS."""

from dataclasses import dataclass

from ..assembly import Dialect, Function, StepWriter, constants
from ..regalloc import MachineLoop, RegisterFile, allocate, walk
from ..schedule import for_pressure

ARGUMENT_REGISTERS = tuple(f"x{i}" for i in range(8))
# Temporaries the AAPCS64 leaves to a function (x18, the platform register, is not one).
SCRATCH_REGISTERS = tuple(f"x{i}" for i in range(9, 16))
# IP0 and IP1: a row pointer fetched for one access, and an address computed for one.
ROW_REGISTER = "x16"
ADDRESS_REGISTER = "x17"
# v8-v15: the callee keeps their low 64 bits (d8-d15).  The allocator's
# register numbers map onto the caller-saved registers first, so a function
# saves only what more than 24 live values make it use.
CALLEE_SAVED_VECTORS = tuple(range(8, 16))
_PHYSICAL = tuple(r for r in range(32) if r not in CALLEE_SAVED_VECTORS) + CALLEE_SAVED_VECTORS

_ARRANGEMENT = {8: "16b", 16: "8h", 32: "4s", 64: "2d"}
_LOGIC = {"xor": "eor", "and": "and", "or": "orr"}
_LANE_OPS = {"add": "add", "minu": "umin", "maxs": "smax", "unpacklo": "zip1", "unpackhi": "zip2"}
_REV = {2: "rev16", 4: "rev32", 8: "rev64"}


def _destructive(op):
    """The operands each instruction may overwrite with its result."""
    return {"sli": 0, "sm4e": 0, "aese": (0, 1), "bsl": (0, 1, 2)}.get(op.opcode)


REGISTER_FILE = RegisterFile(32, destructive=_destructive)


def register_file(target):
    """The vector registers of `target` as the allocator needs them: every AArch64 target has the same 32."""
    return REGISTER_FILE


def vector(number, arrangement="16b"):
    """The register the allocator numbered `number`, as v<N>.<arrangement>."""
    return f"v{_PHYSICAL[number]}.{arrangement}"


def _add_immediate(dst, base, value):
    """dst = base + value, for |value| below 2^24 (ADD/SUB take 12 bits, shifted or not)."""
    mnemonic = "add" if value >= 0 else "sub"
    value = abs(value)
    if value >= 1 << 24:
        raise ValueError(f"AArch64 asm: an address offset of {value} bytes")
    lines, source = [], base
    if value >> 12:
        lines.append(f"{mnemonic} {dst}, {source}, #{value >> 12}, lsl #12")
        source = dst
    if value & 0xFFF or not lines:
        lines.append(f"{mnemonic} {dst}, {source}, #{value & 0xFFF}")
    return lines


@dataclass
class _Function:
    """What one function's instructions need: its general registers and frame."""

    params: dict              # parameter name -> register
    pointers: dict            # (parameter, loop variable, stride) -> register, inside loops
    constants: dict           # const value name -> rodata label

    def address(self, attrs, offset_ok):
        """(setup lines, base register, offset) of a load, store or broadcast;
        `offset_ok(disp)`: whether the instruction takes that immediate offset."""
        index, param = attrs["index"], attrs["param"]
        setup = []
        terms = [(var, coeff) for var, coeff in index.terms if coeff]
        if len(terms) > 1:
            raise ValueError(f"AArch64 asm: an address with two loop variables {terms}")
        if "row" in attrs:
            if terms:
                raise ValueError("AArch64 asm: a row pointer indexed by a loop variable")
            setup.append(f"ldr {ROW_REGISTER}, [{self.params[param]}, #{8 * attrs['row']}]")
            base = ROW_REGISTER
        elif terms:
            base = self.pointers[(param, *terms[0])]
        else:
            base = self.params[param]
        disp = index.base
        if disp and not offset_ok(disp):
            setup += _add_immediate(ADDRESS_REGISTER, base, disp)
            base, disp = ADDRESS_REGISTER, 0
        return setup, base, disp


def _scaled(disp):
    """LDR/STR of a q register: an unsigned offset scaled by 16 (else LDUR/STUR: -256 to 255)."""
    return disp % 16 == 0 and 0 <= disp <= 65520


def _q_access(fn, mnemonic, reg, attrs):
    """LDR or STR of q<reg> (LDUR or STUR at an offset that is no multiple of 16)."""
    setup, base, disp = fn.address(attrs, lambda disp: _scaled(disp) or -256 <= disp < 256)
    if not _scaled(disp):
        mnemonic = mnemonic[:2] + "ur"
    return setup + [f"{mnemonic} q{_PHYSICAL[reg]}, [{base}, #{disp}]" if disp else
                    f"{mnemonic} q{_PHYSICAL[reg]}, [{base}]"]


def instruction(fn, op, dst, srcs):
    """The lines of one allocated op."""
    code, attrs = op.opcode, op.attrs
    d = vector(dst) if dst is not None else None
    s = [vector(r) for r in srcs]
    if code in ("load", "bcast128"):
        return _q_access(fn, "ldr", dst, attrs)
    if code == "store":
        return _q_access(fn, "str", srcs[0], attrs)
    if code in ("bcast8", "bcast32"):
        setup, base, _ = fn.address(attrs, lambda disp: False)     # LD1R takes no offset
        return setup + [f"ld1r {{{vector(dst, '16b' if code == 'bcast8' else '4s')}}}, [{base}]"]
    if code == "const":
        label = fn.constants[op.result.name]
        return [f"adrp {ADDRESS_REGISTER}, {label}", f"ldr q{_PHYSICAL[dst]}, [{ADDRESS_REGISTER}, #:lo12:{label}]"]
    if code in _LOGIC:
        return [f"{_LOGIC[code]} {d}, {s[0]}, {s[1]}"]
    if code == "andnot":                    # ~a & b: BIC clears b's bits that a has
        return [f"bic {d}, {s[1]}, {s[0]}"]
    if code == "eor3":
        return [f"eor3 {d}, {s[0]}, {s[1]}, {s[2]}"]
    if code == "lookup16":                  # TBL: indices of 16 and above give 0
        return [f"tbl {d}, {{{s[0]}}}, {s[1]}"]
    if code in ("shl", "shr", "sli"):
        t = _ARRANGEMENT[attrs["lane"]]
        mnemonic = {"shl": "shl", "shr": "ushr", "sli": "sli"}[code]
        if code == "sli" and dst != srcs[0]:
            raise ValueError("AArch64 asm: SLI overwrites its first operand: the allocator must put it in the result")
        return [f"{mnemonic} {vector(dst, t)}, {vector(srcs[-1], t)}, #{attrs['n']}"]
    if code in _LANE_OPS:
        t = _ARRANGEMENT[attrs["lane"]]
        return [f"{_LANE_OPS[code]} {vector(dst, t)}, {vector(srcs[0], t)}, {vector(srcs[1], t)}"]
    if code == "trn":
        t = _ARRANGEMENT[attrs["lane"]]
        return [f"trn{attrs['half']} {vector(dst, t)}, {vector(srcs[0], t)}, {vector(srcs[1], t)}"]
    if code == "rev":
        return [f"{_REV[attrs['group']]} {vector(dst, _ARRANGEMENT[8 * attrs['element']])}, "
                f"{vector(srcs[0], _ARRANGEMENT[8 * attrs['element']])}"]
    if code == "aese":                      # AESE Vd, Vn: Vd ^ Vn, then SubBytes and ShiftRows
        if dst not in (srcs[0], srcs[1]):
            raise ValueError("AArch64 asm: AESE overwrites one operand: the allocator must put it in the result")
        other = srcs[1] if dst == srcs[0] else srcs[0]
        return [f"aese {d}, {vector(other)}"]
    if code == "sm4e":
        if dst != srcs[0]:
            raise ValueError("AArch64 asm: SM4E overwrites its state operand: the allocator must put it in the result")
        return [f"sm4e {vector(dst, '4s')}, {vector(srcs[1], '4s')}"]
    if code == "rbit":
        return [f"rbit {d}, {s[0]}"]
    if code == "clmul":                     # PMULL: low 64-bit halves, PMULL2: high ones
        halves = attrs["halves"]
        if halves[0] != halves[1]:
            raise ValueError(f"AArch64 asm: PMULL multiplies like halves, not {halves} (rules.clmul_by_pmull)")
        return [f"pmull{'2' if halves[0] else ''} {vector(dst, '1q')}, {vector(srcs[0], '2d' if halves[0] else '1d')}, "
                f"{vector(srcs[1], '2d' if halves[0] else '1d')}"]
    if code == "bsl":                       # bsl(m, a, b): b where m is 1, a where 0
        mask, otherwise, then = srcs
        if dst == mask:
            return [f"bsl {d}, {vector(then)}, {vector(otherwise)}"]
        if dst == otherwise:
            return [f"bit {d}, {vector(then)}, {vector(mask)}"]
        if dst == then:
            return [f"bif {d}, {vector(otherwise)}, {vector(mask)}"]
        raise ValueError("AArch64 asm: a selection overwrites one operand: the allocator must put it in the result")
    raise ValueError(f"AArch64 asm: no form for opcode {code!r}")


class _Writer(StepWriter):
    """The AArch64 spelling of each machine step."""

    def __init__(self, fn, loop_registers, slot_base, label):
        super().__init__()
        self.fn, self.loop_registers, self.slot_base, self.label = fn, loop_registers, slot_base, label
        self.labels = iter(range(1000))

    def instruction(self, op, dst, srcs):
        return instruction(self.fn, op, dst, srcs)

    def move(self, step):
        return [f"mov {vector(step.dst)}, {vector(step.src)}"]

    def spill(self, step):
        return [f"str q{_PHYSICAL[step.reg]}, [sp, #{self.slot_base + 16 * step.slot}]"]

    def reload(self, step):
        return [f"ldr q{_PHYSICAL[step.reg]}, [sp, #{self.slot_base + 16 * step.slot}]"]

    def loop(self, step):
        """Each pointer register set to its parameter and the counter to the
        count; the body; each pointer up by its stride, the counter down, and
        back while it is not 0."""
        label = f"{self.label}_loop_{step.var}{next(self.labels)}"
        counter, pointers = self.loop_registers[step.var]
        if step.count >= 1 << 16:
            raise ValueError(f"AArch64 asm: a loop of {step.count} iterations")
        for (param, _, _), reg in pointers:
            self.body.append(f"\tmov {reg}, {self.fn.params[param]}")
        self.body += [f"\tmov {counter}, #{step.count}", "\t.p2align 4", f"{label}:"]
        self.block(step.body)
        for (_, _, stride), reg in pointers:
            self.body += [f"\t{line}" for line in _add_immediate(reg, reg, stride)]
        self.body += [f"\tsubs {counter}, {counter}, #1", f"\tb.ne {label}"]


def _loop_pointers(steps):
    """Per loop variable, the (parameter, variable, stride) its addresses use, in order."""
    found = {}
    for step in walk(steps):
        op = getattr(step, "op", None)
        if op is not None and "index" in op.attrs:
            for var, coeff in op.attrs["index"].terms:
                key = (op.attrs["param"], var, coeff)
                if coeff and key not in found.setdefault(var, []):
                    found[var].append(key)
    return found


def _ranges(numbers):
    """v0-v7, v16-v20 for sorted register numbers."""
    runs = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"v{a}-v{b}" if a != b else f"v{a}" for a, b in runs)


def _pairs(registers):
    return [registers[i:i + 2] for i in range(0, len(registers), 2)]


def unsupported(program):
    """Why this emitter cannot write `program`, or None."""
    if program.bits != 128:
        return f"AArch64 asm: NEON vectors are 128 bits, not {program.bits}"
    if program.scratch:
        return "AArch64 asm: scratch arrays are not supported"
    if len(program.params) > len(ARGUMENT_REGISTERS):
        return f"AArch64 asm: {len(program.params)} parameters; registers hold eight"
    return None


def function(name, program, target, prefix, dialect=None, schedule=False, invariant=("rk",)):
    """`program` as the global function `name` (a Function: its parts for a
    dialect to put together; every dialect's are the same here); `prefix`
    names its local labels; `schedule`: reorder for low register pressure
    first (gen/backends/schedule.py)."""
    reason = unsupported(program)
    if reason:
        raise ValueError(reason)
    allocation = allocate(for_pressure(program, invariant) if schedule else program, register_file(target),
                          invariant=invariant)
    params = dict(zip(program.params, ARGUMENT_REGISTERS))
    free = list(ARGUMENT_REGISTERS[len(program.params):] + SCRATCH_REGISTERS)
    roles = []
    pointers = _loop_pointers(allocation.steps)
    loop_registers = {}
    for step in allocation.steps:
        if isinstance(step, MachineLoop):
            mine = pointers.get(step.var, [])
            if len(free) < 1 + len(mine):
                raise ValueError("AArch64 asm: more loop pointers than free general registers")
            counter, regs = free.pop(0), [free.pop(0) for _ in mine]
            loop_registers[step.var] = (counter, list(zip(mine, regs)))
            roles.append(f"{counter}: iterations of the {step.var} loop left")
            roles += [f"{reg}: {param} + {stride} x {var}" for (param, var, stride), reg in zip(mine, regs)]
    saved = sorted(_PHYSICAL[r] for r in allocation.registers if _PHYSICAL[r] in CALLEE_SAVED_VECTORS)
    # d8-d15 from SP up (STP's offsets reach 504 bytes), then the spill slots.
    save_base, slot_base = 0, -(-8 * len(saved) // 16) * 16
    frame = slot_base + 16 * allocation.slots
    if frame >= 4096:
        raise ValueError(f"AArch64 asm: a frame of {frame} bytes")
    saves, restores = [], []
    for i, pair in enumerate(_pairs(saved)):
        where = f"[sp, #{save_base + 16 * i}]" if save_base + 16 * i else "[sp]"
        names = ", ".join(f"d{r}" for r in pair)
        saves.append(f"\t{'stp' if len(pair) == 2 else 'str'} {names}, {where} /* callee-saved: low halves */")
        restores.append(f"\t{'ldp' if len(pair) == 2 else 'ldr'} {names}, {where}")
    labels, rodata = constants(allocation.steps, prefix)
    fn = _Function(params, {key: reg for regs in loop_registers.values() for key, reg in regs[1]}, labels)
    writer = _Writer(fn, loop_registers, slot_base, f".L{prefix}")
    writer.block(allocation.steps)

    header = [f"/* {name}: {program.name}, {len(program.params)} argument{'s' if len(program.params) != 1 else ''}"]
    header += [f" *   {reg}: {param}" for param, reg in params.items()]
    header += [f" *   {role}" for role in roles]
    header.append(f" *   {ROW_REGISTER}, {ADDRESS_REGISTER}: a row pointer, an address or a constant's page")
    used = sorted(_PHYSICAL[r] for r in allocation.registers)
    header.append(f" *   vectors: {_ranges(used)} ({len(used)} used)" if used else " *   no vector register")
    header.append(f" *   frame: {frame} bytes ({allocation.slots} spill slot{'s' if allocation.slots != 1 else ''} "
                  f"of 16 bytes" + (f", {', '.join(f'd{r}' for r in saved)} saved" if saved else "") + ")")
    header.append(" */")
    return Function(name, header, frame, writer.body, rodata, allocation, saves=saves, restores=restores)


def directives(target):
    """The .arch directive for `target`'s instructions (its -march flag), since
    the library assembles .S files without the C files' flags."""
    for flag in target.cflags:
        if flag.startswith("-march="):
            return (f"\t.arch {flag.removeprefix('-march=')}",)
    return ("\t.arch armv8-a",)


DIALECTS = {
    "gas": Dialect("gas", (), ("", "\t.section .note.GNU-stack,\"\",%progbits"),
                   start="\t.globl {symbol}\n\t.hidden {symbol}\n\t.type {symbol}, %function\n\t.p2align 4\n{symbol}:",
                   end="\t.size {symbol}, .-{symbol}", ret="\tret",
                   frame_enter=("\tsub sp, sp, #{frame}",), frame_leave=("\tadd sp, sp, #{frame}",),
                   rodata=lambda constant: ["\t.section .rodata", "\t.balign 16"], symbol=lambda s: s),
    # <linux/linkage.h>'s SYM_FUNC_START/END; no CFI (the kernel makes none
    # for leaf functions), constants in mergeable .rodata.cst16 sections.
    "linux": Dialect("linux", ("#include <linux/linkage.h>",), (),
                     start="\t.p2align 4\nSYM_FUNC_START({symbol})", end="SYM_FUNC_END({symbol})", ret="\tret",
                     frame_enter=("\tsub sp, sp, #{frame}",), frame_leave=("\tadd sp, sp, #{frame}",),
                     rodata=lambda constant: [f"\t.section .rodata.cst16{constant.label.replace('.L', '.', 1)}, "
                                              "\"aM\", %progbits, 16", "\t.balign 16"],
                     symbol=lambda s: s.removesuffix("_asm")),
    # libgcrypt's cipher/asm-common-aarch64.h: ELF(), CFI_*(), ret_spec_stop, SECTION_RODATA.
    "libgcrypt": Dialect("libgcrypt", ("#ifdef __aarch64__", "#include \"asm-common-aarch64.h\""),
                         ("", "#endif /* __aarch64__ */"),
                         start="\t.globl {symbol}\nELF(.type {symbol},%function;)\n\t.align 4\n{symbol}:\n"
                               "\tCFI_STARTPROC();",
                         end="\tCFI_ENDPROC();\nELF(.size {symbol},.-{symbol};)", ret="\tret_spec_stop;",
                         frame_enter=("\tsub sp, sp, #{frame}", "\tCFI_ADJUST_CFA_OFFSET({frame});"),
                         frame_leave=("\tadd sp, sp, #{frame}", "\tCFI_ADJUST_CFA_OFFSET(-{frame});"),
                         rodata=lambda constant: ["SECTION_RODATA", "\t.balign 16"],
                         symbol=lambda s: "_gcry_" + s.removesuffix("_asm")),
}
